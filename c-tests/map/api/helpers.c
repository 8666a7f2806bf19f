/* The helpers the units of map/api share (declared in api.h): the integer
 * key encoding, key and entry counting, structural verification through
 * the introspection calls, and walk-order records. */
#include "api.h"

/* The 10-byte integer key encoding of SPEC section 3. */
static void encode_int(unsigned char out[10], unsigned char tag, uint64_t value) {
  out[0] = 0x00;
  out[1] = tag;
  for (int i = 0; i < 8; i++) out[2 + i] = (unsigned char)(value >> (8 * i));
}
void encode_i64(unsigned char out[10], int64_t value) {
  encode_int(out, 0x01, (uint64_t)value);
}
void encode_u64(unsigned char out[10], uint64_t value) { encode_int(out, 0x02, value); }

/* Decodes an integer key of the given tag; 0 when the bytes are not one. */
int decode_int(const char* key, uint32_t length, unsigned char tag, uint64_t* value) {
  const unsigned char* k = (const unsigned char*)key;
  if (length != 10 || k[0] != 0x00 || k[1] != tag) return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)k[2 + i] << (8 * i);
  *value = v;
  return 1;
}


/* A long (heap-copied) string key, unique per i. */
const char* long_key(char* buffer, size_t capacity, unsigned i) {
  snprintf(buffer, capacity, "a-long-string-key-%06u-with-some-padding-after-it", i);
  return buffer;
}

static int count_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  (*(uint64_t*)data)++;
  return 0;
}

uint64_t count_entries(const slate_s* m) {
  uint64_t n = 0;
  CHECK_EQ_INT(slate_each(m, count_cb, &n), SLATE_OK);
  return n;
}

static int is_pow2(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

/* Classifies the 8 control bytes of a group. Returns the invalid byte count. */
static int classify_ctrl(uint64_t word, int* full, int* deleted, int* empty) {
  int invalid = 0;
  for (int i = 0; i < 8; i++) {
    unsigned b = (unsigned)((word >> (8 * i)) & 0xFF);
    if (b == 0x80)
      (*empty)++;
    else if (b == 0xFE)
      (*deleted)++;
    else if (b < 0x80)
      (*full)++;
    else
      invalid++;
  }
  return invalid;
}

/* Counts u64 keys lo..hi-1 whose lookup does not give V(value_of(k)). */
uint64_t u64_value(uint64_t k) { return k * 2 + 1; }
uint64_t missing_u64(const slate_s* m, uint64_t lo, uint64_t hi, uint64_t step) {
  uint64_t bad = 0;
  for (uint64_t k = lo; k < hi; k += step) {
    void* v = NULL;
    if (slate_get_u64(m, k, &v) != SLATE_OK || v != V(u64_value(k))) bad++;
  }
  return bad;
}
uint64_t present_u64(const slate_s* m, uint64_t lo, uint64_t hi, uint64_t step) {
  uint64_t bad = 0;
  for (uint64_t k = lo; k < hi; k += step) {
    void* v = SENTINEL;
    if (slate_get_u64(m, k, &v) != SLATE_ERROR_NOT_FOUND || v != SENTINEL) bad++;
  }
  return bad;
}
uint64_t fill_u64(slate_s* m, uint64_t lo, uint64_t hi) {
  uint64_t bad = 0;
  for (uint64_t k = lo; k < hi; k++)
    if (slate_set_u64(m, k, V(u64_value(k))) != SLATE_OK) bad++;
  return bad;
}

/* Structural verification through slate_info / slate_table_info /
 * slate_table_ctrl.  Per-table problems are accumulated into one assertion. */
unsigned structure_problems_;

void verify_structure(const slate_s* m, int scan_ctrl) {
  slate_info_s in = info_of(m);
  slate_table_info_s ti;
  uint64_t word = 0;
  uint32_t t = 0;
  structure_problems_ = 0;
  REQ(in.length == slate_length(m));
  if (in.tables == 0) {
    REQ(in.capacity == 0);
    REQ(in.directory == 0);
    REQ(in.small == 0);
    REQ(in.length == 0);
    REQ(in.tombstones == 0);
    REQ(in.memory == 0);
    REQ(in.global_depth == 0);
    REQ(slate_table_info(m, 0, &ti) == SLATE_ERROR_NOT_FOUND);
    REQ(slate_table_ctrl(m, 0, 0, &word) != SLATE_OK);
  } else if (in.small) {
    REQ(in.small == 1);
    REQ(in.tables == 1);
    REQ(in.capacity == 8);
    REQ(in.directory == 0);
    REQ(in.global_depth == 0);
    REQ(in.tombstones == 0);
    REQ(in.length <= 8);
    REQ(in.memory >= 8 * (sizeof(void*) + 1));
    REQ(slate_table_info(m, 0, &ti) == SLATE_OK);
    REQ(ti.capacity == 8);
    REQ(ti.groups == 1);
    REQ(ti.used == in.length);
    REQ(ti.tombstones == 0);
    REQ(slate_table_info(m, 1, &ti) == SLATE_ERROR_NOT_FOUND);
    if (scan_ctrl) {
      int full = 0, deleted = 0, empty = 0;
      REQ(slate_table_ctrl(m, 0, 0, &word) == SLATE_OK);
      REQ(classify_ctrl(word, &full, &deleted, &empty) == 0);
      REQ((uint64_t)full == in.length);
      REQ(deleted == 0);
      REQ((uint64_t)empty == 8 - in.length);
      REQ(slate_table_ctrl(m, 0, 1, &word) != SLATE_OK);
      REQ(slate_table_ctrl(m, 1, 0, &word) != SLATE_OK);
    }
  } else {
    uint64_t sum_used = 0, sum_capacity = 0, sum_tombstones = 0;
    uint32_t next_first = 0;
    REQ(in.global_depth < 32);
    REQ(in.directory == (uint32_t)1 << (in.global_depth & 31));
    REQ(in.tables >= 1 && in.tables <= in.directory);
    for (t = 0; t < in.tables; t++) {
      memset(&ti, 0xA5, sizeof ti);
      int rc = slate_table_info(m, t, &ti);
      REQ(rc == SLATE_OK);
      if (rc != SLATE_OK) break;
      REQ(ti.directory_first == next_first);
      REQ(ti.local_depth <= in.global_depth);
      if (ti.local_depth <= in.global_depth)
        REQ(ti.directory_count == (uint32_t)1 << (in.global_depth - ti.local_depth));
      REQ(ti.directory_count != 0 && ti.directory_first % ti.directory_count == 0);
      REQ(is_pow2(ti.capacity) && ti.capacity >= 8 && ti.capacity <= MAX_TABLE_SLOTS);
      REQ(ti.groups * 8 == ti.capacity);
      REQ(ti.used + ti.tombstones + ti.growth_left == ti.capacity * 7 / 8);
      next_first += ti.directory_count;
      sum_used += ti.used;
      sum_capacity += ti.capacity;
      sum_tombstones += ti.tombstones;
      if (scan_ctrl) {
        int full = 0, deleted = 0, empty = 0, invalid = 0;
        for (uint32_t g = 0; g < ti.groups; g++) {
          word = 0;
          REQ(slate_table_ctrl(m, t, g, &word) == SLATE_OK);
          invalid += classify_ctrl(word, &full, &deleted, &empty);
        }
        REQ(invalid == 0);
        REQ((uint32_t)full == ti.used);
        REQ((uint32_t)deleted == ti.tombstones);
        REQ(empty > 0);
        REQ(slate_table_ctrl(m, t, ti.groups, &word) != SLATE_OK);
      }
    }
    REQ(next_first == in.directory);
    REQ(sum_used == in.length);
    REQ(sum_capacity == in.capacity);
    REQ(sum_tombstones == in.tombstones);
    REQ(slate_table_info(m, in.tables, &ti) == SLATE_ERROR_NOT_FOUND);
    REQ(slate_table_ctrl(m, in.tables, 0, &word) != SLATE_OK);
    REQ(in.memory >= in.capacity * (sizeof(void*) + 1) + (uint64_t)in.directory * sizeof(void*));
  }
  CHECK_MSG(structure_problems_ == 0, "structure problems, see above");
  CHECK_MAP_OK(m);
}

static int collect_cb(const char* key, uint32_t length, void* value, void* data) {
  collect_s* c = (collect_s*)data;
  if (c->n < c->capacity) {
    rec_s* r = &c->recs[c->n];
    r->length = length;
    memset(r->bytes, 0, sizeof r->bytes);
    memcpy(r->bytes, key, length < sizeof r->bytes ? length : sizeof r->bytes);
    r->key_pointer = key;
    r->value = value;
  }
  c->n++;
  return 0;
}

collect_s collect(const slate_s* m) {
  collect_s c;
  c.capacity = (size_t)slate_length(m) + 16;
  c.recs = (rec_s*)calloc(c.capacity, sizeof(rec_s));
  c.n = 0;
  CHECK_EQ_INT(slate_each(m, collect_cb, &c), SLATE_OK);
  return c;
}

/* Same sequence of (length, bytes, value)? */
int same_order(const collect_s* a, const collect_s* b) {
  if (a->n != b->n || a->n > a->capacity) return 0;
  for (size_t i = 0; i < a->n; i++) {
    if (a->recs[i].length != b->recs[i].length) return 0;
    if (memcmp(a->recs[i].bytes, b->recs[i].bytes, sizeof a->recs[i].bytes) != 0) return 0;
    if (a->recs[i].value != b->recs[i].value) return 0;
  }
  return 1;
}

int always_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  if (data) (*(int*)data)++;
  return 1;
}

int noop_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  (void)data;
  return 0;
}
