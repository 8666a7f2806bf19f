/* The helpers the units of sparse/api share (declared in sparse.h): the
   model of a set, pictures, a counting allocator, callbacks. */
#include "sparse.h"

char sentinel_object_;

void model_init(model_s* m, const uint32_t* sizes, uint32_t count) {
  memset(m, 0, sizeof *m);
  m->ncols = count;
  for (uint32_t c = 0; c < count && c < MAX_COLS; c++) {
    m->sizes[c] = sizes[c];
    m->row_bytes += sizes[c];
  }
}

int sparse_init(slotmap_sparse_s* sp, const uint32_t* sizes, uint32_t count) {
  if (count == 0) return slotmap_sparse(sp, 0);
  if (count == 1) return slotmap_sparse(sp, sizes[0]);
  return slotmap_sparse_columns(sp, sizes, count);
}

/* The `where` entry of a slot, or -1. */
static int where_of(uint32_t slot) {
  if (slot < MODEL_LOW) return (int)slot;
  if (slot - MODEL_HIGH < MODEL_HIGH_N) return (int)(MODEL_LOW + (slot - MODEL_HIGH));
  return -1;
}

int model_find_slot(const model_s* m, uint32_t slot) {
  int w = where_of(slot);
  if (w >= 0) return m->where[w] - 1;
  for (uint32_t i = 0; i < m->n; i++)
    if (KEY_SLOT(m->keys[i]) == slot) return (int)i;
  return -1;
}

int model_find(const model_s* m, slotmap_key k) {
  int i = model_find_slot(m, KEY_SLOT(k));
  return (i >= 0 && m->keys[i] == k) ? i : -1;
}

void model_set(model_s* m, slotmap_key k, const unsigned char* row) {
  int i = model_find_slot(m, KEY_SLOT(k));
  if (i < 0) {
    if (m->n >= MODEL_MAX) return;
    i = (int)m->n++;
  }
  m->keys[i] = k;
  if (where_of(KEY_SLOT(k)) >= 0) m->where[where_of(KEY_SLOT(k))] = i + 1;
  if (row)
    memcpy(m->rows[i], row, m->row_bytes);
  else
    memset(m->rows[i], 0, m->row_bytes);
}

void model_erase(model_s* m, slotmap_key k) {
  int i = model_find(m, k);
  if (i < 0) return;
  if (where_of(KEY_SLOT(k)) >= 0) m->where[where_of(KEY_SLOT(k))] = 0;
  m->n--;
  if ((uint32_t)i != m->n) {
    m->keys[i] = m->keys[m->n];
    memcpy(m->rows[i], m->rows[m->n], ROW_MAX);
    if (where_of(KEY_SLOT(m->keys[i])) >= 0) m->where[where_of(KEY_SLOT(m->keys[i]))] = i + 1;
  }
}

void read_row(const slotmap_sparse_s* sp, const model_s* m, uint32_t r, unsigned char* out) {
  uint32_t off = 0;
  for (uint32_t c = 0; c < m->ncols; c++) {
    const unsigned char* base = (const unsigned char*)slotmap_sparse_column(sp, c);
    if (base != NULL) memcpy(out + off, base + (size_t)r * m->sizes[c], m->sizes[c]);
    off += m->sizes[c];
  }
}

void fill_row(const model_s* m, uint64_t v, unsigned char* out) {
  for (uint32_t i = 0; i < m->row_bytes; i++) out[i] = (unsigned char)((v >> (8 * (i % 8))) + i * 29u);
}

unsigned sparse_differs(const slotmap_sparse_s* sp, const model_s* m) {
  unsigned bad = 0;
  uint32_t n = slotmap_sparse_length(sp);
  const slotmap_key* keys = slotmap_sparse_keys(sp);
  unsigned char row[ROW_MAX];
  if (n != m->n) bad++;
  if ((keys == NULL) != (n == 0)) bad++;
  if (slotmap_sparse_key_at(sp, n) != 0) bad++;
  for (uint32_t c = 0; c < m->ncols; c++) {
    void* base = slotmap_sparse_column(sp, c);
    if ((uintptr_t)base % 16u != 0) bad++;
    if (n > 0 && base == NULL) bad++;
  }
  if (slotmap_sparse_column(sp, m->ncols) != NULL) bad++;
  /* every row's key is in the model, with its bytes */
  for (uint32_t r = 0; r < n; r++) {
    slotmap_key k = slotmap_sparse_key_at(sp, r);
    uint32_t at = SENTINEL_ROW;
    if (keys != NULL && keys[r] != k) bad++;
    int i = model_find(m, k);
    if (i < 0) {
      bad++;
      continue;
    }
    if (slotmap_sparse_row(sp, k, &at) != SLATE_OK || at != r) bad++;
    read_row(sp, m, r, row);
    if (memcmp(row, m->rows[i], m->row_bytes) != 0) bad++;
  }
  /* every model key is in the set */
  for (uint32_t i = 0; i < m->n; i++) {
    slotmap_key k = m->keys[i];
    void* e = SENTINEL;
    uint32_t r = SENTINEL_ROW;
    if (slotmap_sparse_contains(sp, k) != 1) bad++;
    if (slotmap_sparse_get(sp, k, NULL) != SLATE_OK) bad++;
    if (slotmap_sparse_row(sp, k, &r) != SLATE_OK || r >= n) {
      bad++;
      continue;
    }
    if (slotmap_sparse_get(sp, k, &e) != SLATE_OK) bad++;
    if (m->ncols == 0) {
      if (e != NULL) bad++;
    } else if (e != (void*)((unsigned char*)slotmap_sparse_column(sp, 0) + (size_t)r * m->sizes[0])) {
      bad++;
    }
  }
  if (bad != 0 && TEST_FAILED_COUNT() < 20) fprintf(stderr, "   set differs from model in %u ways\n", bad);
  return bad;
}

int is_absent(const slotmap_sparse_s* sp, slotmap_key k) {
  void* e = SENTINEL;
  uint32_t r = SENTINEL_ROW;
  uint8_t found = 7;
  void* many = SENTINEL;
  return slotmap_sparse_get(sp, k, &e) == SLATE_ERROR_NOT_FOUND && e == SENTINEL &&
         slotmap_sparse_get(sp, k, NULL) == SLATE_ERROR_NOT_FOUND &&
         slotmap_sparse_row(sp, k, &r) == SLATE_ERROR_NOT_FOUND && r == SENTINEL_ROW &&
         slotmap_sparse_contains(sp, k) == 0 &&
         slotmap_sparse_get_many(sp, &k, 1, &many, &found) == SLATE_OK && found == 0 &&
         many == SENTINEL;
}

void take_picture(const slotmap_sparse_s* sp, const model_s* m, picture_s* p) {
  p->n = slotmap_sparse_length(sp);
  if (p->n > MODEL_MAX) p->n = MODEL_MAX;
  for (uint32_t r = 0; r < p->n; r++) {
    p->keys[r] = slotmap_sparse_key_at(sp, r);
    read_row(sp, m, r, p->rows[r]);
  }
  p->col0 = slotmap_sparse_column(sp, 0);
}

int same_picture(const slotmap_sparse_s* sp, const model_s* m, const picture_s* p) {
  unsigned char row[ROW_MAX];
  if (slotmap_sparse_length(sp) != p->n || slotmap_sparse_column(sp, 0) != p->col0) return 0;
  for (uint32_t r = 0; r < p->n; r++) {
    if (slotmap_sparse_key_at(sp, r) != p->keys[r]) return 0;
    read_row(sp, m, r, row);
    if (memcmp(row, p->rows[r], m->row_bytes) != 0) return 0;
  }
  return 1;
}

/* --- a counting own allocator ------------------------------------------ */

typedef struct counted_header_s {
  uint64_t size, magic, pad0, pad1; /* 32 bytes: 16-byte alignment kept */
} counted_header_s;
#define COUNTED_MAGIC 0xC0C0A110C8EDull

static void* counting_allocate(void* context, size_t size) {
  counter_s* c = (counter_s*)context;
  c->attempts++;
  if (size == 0) c->bad++;
  counted_header_s* h = (counted_header_s*)malloc(size + sizeof *h);
  if (h == NULL) return NULL;
  h->size = size;
  h->magic = COUNTED_MAGIC;
  c->live_bytes += size;
  if (c->live_bytes > c->peak_bytes) c->peak_bytes = c->live_bytes;
  return h + 1;
}

static void counting_release(void* context, void* pointer, size_t size) {
  counter_s* c = (counter_s*)context;
  if (pointer == NULL) {
    c->bad++;
    return;
  }
  counted_header_s* h = (counted_header_s*)pointer - 1;
  if (h->magic != COUNTED_MAGIC || h->size != size) c->bad++;
  h->magic = 0;
  c->live_bytes -= h->size;
  free(h);
}

slate_allocator_s counting_allocator(counter_s* c) {
  slate_allocator_s a;
  memset(c, 0, sizeof *c);
  a.allocate = counting_allocate;
  a.release = counting_release;
  a.context = c;
  return a;
}

/* --- callbacks ------------------------------------------------------------ */

int count_each(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (*(uint64_t*)data)++;
  return 0;
}

int less_u64(const void* a, const void* b, void* data) {
  uint64_t x, y;
  (void)data;
  memcpy(&x, a, 8);
  memcpy(&y, b, 8);
  return x < y;
}

/* column 0 of 3 bytes compared as bytes */
int less_bytes3(const void* a, const void* b, void* data) {
  (void)data;
  return memcmp(a, b, 3) < 0;
}
