/* abi/walks: what the units share -- the tracking allocator, the model,
 * the record of visits, the write kinds and the expected outcome. */
#include "walks.h"

/* ------------------------------------------------------------------------ */
/* tracking allocator                                                        */
/* ------------------------------------------------------------------------ */

void arena_init(arena_s* a) { memset(a, 0, sizeof *a); }

static void* arena_allocate(void* context, size_t size) {
  arena_s* a = (arena_s*)context;
  a->allocs++;
  if (size == 0) a->bad++; /* SPEC 3b: size is never 0 */
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    void** blocks = (void**)realloc(a->blocks, cap * sizeof *blocks);
    if (!blocks) return NULL;
    a->blocks = blocks;
    size_t* sizes = (size_t*)realloc(a->sizes, cap * sizeof *sizes);
    if (!sizes) return NULL;
    a->sizes = sizes;
    a->cap = cap;
  }
  void* p = malloc(size ? size : 1);
  if (!p) return NULL;
  a->blocks[a->n] = p;
  a->sizes[a->n] = size;
  a->n++;
  a->live_bytes += size;
  return p;
}

static void arena_release(void* context, void* pointer, size_t size) {
  arena_s* a = (arena_s*)context;
  a->releases++;
  for (size_t i = a->n; i-- > 0;) {
    if (a->blocks[i] == pointer) {
      if (a->sizes[i] != size) a->bad++;
      a->live_bytes -= a->sizes[i];
      a->blocks[i] = a->blocks[a->n - 1];
      a->sizes[i] = a->sizes[a->n - 1];
      a->n--;
      free(pointer);
      return;
    }
  }
  a->bad++; /* not ours: leave it alone */
}

slate_allocator_s arena_allocator(arena_s* a) {
  slate_allocator_s al;
  al.allocate = arena_allocate;
  al.release = arena_release;
  al.context = a;
  return al;
}

size_t arena_drop(arena_s* a) {
  size_t left = a->n;
  for (size_t i = 0; i < a->n; i++) free(a->blocks[i]);
  free(a->blocks);
  free(a->sizes);
  memset(a, 0, sizeof *a);
  return left;
}

/* ------------------------------------------------------------------------ */
/* model: arrays in dense order, with an open-addressing index (key -> its   */
/* position + 1; linear probing, deletion by backward shift)                 */
/* ------------------------------------------------------------------------ */

static void out_of_memory(void) {
  fprintf(stderr, "out of memory\n");
  exit(2);
}

static uint32_t home_of(const model_s* m, uint64_t key) {
  return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - m->bits));
}

/* The index slot that holds `key`, or the empty slot where it would go. */
static uint32_t slot_of(const model_s* m, uint64_t key) {
  uint32_t mask = (1u << m->bits) - 1, i = home_of(m, key);
  while (m->index[i] != 0 && m->keys[m->index[i] - 1] != key) i = (i + 1) & mask;
  return i;
}

static void index_rebuild(model_s* m) {
  uint32_t bits = 6;
  while ((1u << bits) < 2 * m->cap) bits++;
  if (bits != m->bits || !m->index) {
    free(m->index);
    m->bits = bits;
    m->index = (uint32_t*)malloc(((size_t)1 << bits) * sizeof(uint32_t));
    if (!m->index) out_of_memory();
  }
  memset(m->index, 0, ((size_t)1 << m->bits) * sizeof(uint32_t));
  for (uint32_t p = 0; p < m->n; p++) m->index[slot_of(m, m->keys[p])] = p + 1;
}

static void index_remove(model_s* m, uint32_t i) {
  uint32_t mask = (1u << m->bits) - 1, j = i;
  m->index[i] = 0;
  for (;;) {
    j = (j + 1) & mask;
    if (m->index[j] == 0) return;
    uint32_t h = home_of(m, m->keys[m->index[j] - 1]);
    /* the entry at j may move to the hole at i unless its home lies in (i, j] */
    int stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
    if (!stays) {
      m->index[i] = m->index[j];
      m->index[j] = 0;
      i = j;
    }
  }
}

void model_init(model_s* m, uint32_t cap) {
  memset(m, 0, sizeof *m);
  if (cap < 16) cap = 16;
  m->keys = (uint64_t*)malloc(cap * sizeof(uint64_t));
  m->vals = (uint64_t*)malloc(cap * sizeof(uint64_t));
  if (!m->keys || !m->vals) out_of_memory();
  m->cap = cap;
  m->order_known = 1;
  index_rebuild(m);
}

void model_free(model_s* m) {
  free(m->keys);
  free(m->vals);
  free(m->index);
  memset(m, 0, sizeof *m);
}

static void model_grow(model_s* m, uint32_t cap) {
  uint64_t* keys = (uint64_t*)realloc(m->keys, cap * sizeof(uint64_t));
  if (!keys) out_of_memory();
  m->keys = keys;
  uint64_t* vals = (uint64_t*)realloc(m->vals, cap * sizeof(uint64_t));
  if (!vals) out_of_memory();
  m->vals = vals;
  m->cap = cap;
  index_rebuild(m);
}

void model_copy(model_s* to, const model_s* from) {
  if (to->cap < from->n) model_grow(to, from->n);
  memcpy(to->keys, from->keys, from->n * sizeof(uint64_t));
  memcpy(to->vals, from->vals, from->n * sizeof(uint64_t));
  to->n = from->n;
  to->order_known = from->order_known;
  index_rebuild(to);
}

int model_find(const model_s* m, uint64_t key) {
  uint32_t i = slot_of(m, key);
  return m->index[i] ? (int)(m->index[i] - 1) : -1;
}

void model_put(model_s* m, uint64_t key, uint64_t value) {
  int p = model_find(m, key);
  if (p >= 0) {
    m->vals[p] = value;
    return;
  }
  if (m->n == m->cap) model_grow(m, m->cap * 2);
  m->keys[m->n] = key;
  m->vals[m->n] = value;
  m->n++;
  m->index[slot_of(m, key)] = m->n;
}

void model_erase_swap(model_s* m, uint64_t key) {
  uint32_t i = slot_of(m, key);
  if (m->index[i] == 0) return;
  uint32_t p = m->index[i] - 1, last = m->n - 1;
  index_remove(m, i);
  if (p != last) {
    m->keys[p] = m->keys[last];
    m->vals[p] = m->vals[last];
    m->index[slot_of(m, m->keys[p])] = p + 1;
  }
  m->n--;
}

void model_erase_keep(model_s* m, uint64_t key) {
  int p = model_find(m, key);
  if (p < 0) return;
  memmove(m->keys + p, m->keys + p + 1, (m->n - (uint32_t)p - 1) * sizeof(uint64_t));
  memmove(m->vals + p, m->vals + p + 1, (m->n - (uint32_t)p - 1) * sizeof(uint64_t));
  m->n--;
  index_rebuild(m);
}

void model_rekey(model_s* m, uint64_t key, uint64_t to, uint64_t value) {
  uint32_t i = slot_of(m, key);
  if (m->index[i] == 0) return;
  uint32_t p = m->index[i] - 1;
  index_remove(m, i);
  m->keys[p] = to;
  m->vals[p] = value;
  m->index[slot_of(m, to)] = p + 1;
}

void model_clear(model_s* m) {
  m->n = 0;
  index_rebuild(m);
}

typedef struct pair_s {
  uint64_t key, val;
} pair_s;

static int pair_by_value(const void* a, const void* b) {
  const pair_s* x = (const pair_s*)a;
  const pair_s* y = (const pair_s*)b;
  return x->val < y->val ? -1 : x->val > y->val;
}

void model_sort_by_value(model_s* m) {
  pair_s* pairs = (pair_s*)malloc((m->n + 1) * sizeof(pair_s));
  if (!pairs) out_of_memory();
  for (uint32_t i = 0; i < m->n; i++) {
    pairs[i].key = m->keys[i];
    pairs[i].val = m->vals[i];
  }
  qsort(pairs, m->n, sizeof(pair_s), pair_by_value);
  for (uint32_t i = 0; i < m->n; i++) {
    m->keys[i] = pairs[i].key;
    m->vals[i] = pairs[i].val;
  }
  free(pairs);
  index_rebuild(m);
}

uint64_t model_value(const model_s* m, uint64_t key) {
  int p = model_find(m, key);
  return p >= 0 ? m->vals[p] : 0;
}

uint64_t model_other(const model_s* m, uint64_t not_this) {
  for (uint32_t i = 0; i < m->n; i++)
    if (m->keys[i] != not_this) return m->keys[i];
  return 0;
}

/* ------------------------------------------------------------------------ */
/* visits                                                                    */
/* ------------------------------------------------------------------------ */

void visits_init(visits_s* v) { memset(v, 0, sizeof *v); }
void visits_free(visits_s* v) {
  free(v->keys);
  memset(v, 0, sizeof *v);
}

void visits_add(visits_s* v, uint64_t key) {
  if (v->n == v->cap) {
    uint32_t cap = v->cap ? v->cap * 2 : 64;
    uint64_t* keys = (uint64_t*)realloc(v->keys, cap * sizeof(uint64_t));
    if (!keys) {
      fprintf(stderr, "out of memory\n");
      exit(2);
    }
    v->keys = keys;
    v->cap = cap;
  }
  v->keys[v->n++] = key;
}

int visits_has(const visits_s* v, uint64_t key) {
  for (uint32_t i = 0; i < v->n; i++)
    if (v->keys[i] == key) return 1;
  return 0;
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

unsigned visits_problems(const visits_s* v, const model_s* expected, int all) {
  unsigned problems = 0;
  uint64_t* seen = (uint64_t*)malloc((v->n + 1) * sizeof(uint64_t));
  uint64_t* want = (uint64_t*)malloc((expected->n + 1) * sizeof(uint64_t));
  if (!seen || !want) exit(2);
  memcpy(seen, v->keys, v->n * sizeof(uint64_t));
  memcpy(want, expected->keys, expected->n * sizeof(uint64_t));
  qsort(seen, v->n, sizeof(uint64_t), cmp_u64);
  qsort(want, expected->n, sizeof(uint64_t), cmp_u64);
  uint32_t i = 0, j = 0;
  while (i < v->n) {
    if (i > 0 && seen[i] == seen[i - 1]) {
      problems++; /* visited twice */
      i++;
      continue;
    }
    while (j < expected->n && want[j] < seen[i]) {
      if (all) problems++; /* never visited */
      j++;
    }
    if (j < expected->n && want[j] == seen[i])
      j++;
    else
      problems++; /* not a key the walk may visit */
    i++;
  }
  if (all) problems += expected->n - j;
  free(seen);
  free(want);
  return problems;
}

/* ------------------------------------------------------------------------ */
/* write kinds, scenarios, outcomes                                          */
/* ------------------------------------------------------------------------ */

const char* write_name(int w) {
  static const char* const names[W_COUNT] = {
      "none",          "set-new",       "set-present",   "set-given",     "delete-given",
      "take-given",    "delete-bytes-given", "cursor-delete-given", "delete-other", "delete-absent",
      "entry-new",     "entry-present", "clear",         "compact",       "reserve-small",
      "reserve-big",   "free",          "reinit",        "nested-none",   "nested-given",
      "nested-other",  "set-allocator", "pin-seed",      "sort",          "prune-given",
      "prune-other",   "set-other-generation", "owner-erase-given", "owner-erase-other",
      "owner-insert",  "owner-clear",   "delete-or-clear", "delete-or-free"};
  return w >= 0 && w < W_COUNT ? names[w] : "?";
}

uint32_t resolve_at(uint32_t at, uint32_t calls) {
  if (at == 0 || calls == 0) return 0;
  if (at == AT_LAST) return calls;
  if (at == AT_MIDDLE) return (calls + 1) / 2;
  return 1 + (at - 1) % calls;
}

void scenario_init(scenario_s* s) {
  memset(s, 0, sizeof *s);
  s->sets = 2;
}

void scenario_print(const char* family, const scenario_s* s) {
  fprintf(stderr,
          "   in scenario: %s walk %d, write %s, at %lu, every %lu, return %d, n %lu, pattern %d, "
          "strings %d, membership %d, sets %d, owner %d, target %d, smallest %d\n",
          family, s->walk, write_name(s->write), (unsigned long)s->at, (unsigned long)s->every,
          s->ret, (unsigned long)s->n, s->pattern, s->strings, s->membership, s->sets, s->owner,
          s->target, s->smallest);
}

int expected_rc(int stops_on_return, int change, int ret, int* stops) {
  if (stops_on_return && ret != 0) {
    *stops = 1;
    return ret;
  }
  if (change == C_CHANGE) {
    *stops = 1;
    return SLATE_ERROR_INVALID;
  }
  *stops = 0;
  return SLATE_OK;
}
