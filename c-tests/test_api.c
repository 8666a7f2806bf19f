/*
 * test_api.c -- the slate map API of SPEC sections 1-3 and 6, and the design
 * of section 4 as seen through the introspection calls (slate_info,
 * slate_table_info, slate_table_ctrl, slate_check).
 *
 * The same file is compiled as C11 and as C++17:
 *   gcc -std=c11 -Wall -Wextra -Werror -Iinclude c-tests/test_api.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/t && /tmp/t
 *   g++ -std=c++17 -x c++ -Wall -Wextra -Werror -Iinclude c-tests/test_api.c \
 *       -x none target/release/libslate.a -lpthread -ldl -lm -o /tmp/tpp && /tmp/tpp
 *
 * The last line on stdout is "N passed, M failed"; the exit status is 0 only
 * when M is 0.  Section names and failure details go to stderr.
 */
#define SLATE_IMPLEMENTATION
#include "slate.h"
#include "test.h"
#include "support.h"
#include "quiet.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define V(n) ((void*)(uintptr_t)(n))
#define SENTINEL V(0x5eed1234u)

/* Group load limit: a table of c slots holds at most c * 7 / 8 entries. */
#define MAX_TABLE_SLOTS 1024u
#define MAX_TABLE_LOAD (MAX_TABLE_SLOTS * 7u / 8u)

/* ------------------------------------------------------------------------ */
/* helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* The 10-byte integer key encoding of SPEC section 3. */
static void encode_int(unsigned char out[10], unsigned char tag, uint64_t value) {
  out[0] = 0x00;
  out[1] = tag;
  for (int i = 0; i < 8; i++) out[2 + i] = (unsigned char)(value >> (8 * i));
}
static void encode_i64(unsigned char out[10], int64_t value) {
  encode_int(out, 0x01, (uint64_t)value);
}
static void encode_u64(unsigned char out[10], uint64_t value) { encode_int(out, 0x02, value); }

/* Decodes an integer key of the given tag; 0 when the bytes are not one. */
static int decode_int(const char* key, uint32_t length, unsigned char tag, uint64_t* value) {
  const unsigned char* k = (const unsigned char*)key;
  if (length != 10 || k[0] != 0x00 || k[1] != tag) return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)k[2 + i] << (8 * i);
  *value = v;
  return 1;
}


/* A long (heap-copied) string key, unique per i. */
static const char* long_key(char* buffer, size_t capacity, unsigned i) {
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

static uint64_t count_entries(const slate_s* m) {
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
static uint64_t u64_value(uint64_t k) { return k * 2 + 1; }
static uint64_t missing_u64(const slate_s* m, uint64_t lo, uint64_t hi, uint64_t step) {
  uint64_t bad = 0;
  for (uint64_t k = lo; k < hi; k += step) {
    void* v = NULL;
    if (slate_get_u64(m, k, &v) != SLATE_OK || v != V(u64_value(k))) bad++;
  }
  return bad;
}
static uint64_t present_u64(const slate_s* m, uint64_t lo, uint64_t hi, uint64_t step) {
  uint64_t bad = 0;
  for (uint64_t k = lo; k < hi; k += step) {
    void* v = SENTINEL;
    if (slate_get_u64(m, k, &v) != SLATE_ERROR_NOT_FOUND || v != SENTINEL) bad++;
  }
  return bad;
}
static uint64_t fill_u64(slate_s* m, uint64_t lo, uint64_t hi) {
  uint64_t bad = 0;
  for (uint64_t k = lo; k < hi; k++)
    if (slate_set_u64(m, k, V(u64_value(k))) != SLATE_OK) bad++;
  return bad;
}

/* Structural verification through slate_info / slate_table_info /
 * slate_table_ctrl.  Per-table problems are accumulated into one assertion. */
static unsigned structure_problems_;
#define REQ(cond)                                                                       \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      structure_problems_++;                                                            \
      if (structure_problems_ <= 8)                                                     \
        fprintf(stderr, "%s:%d: structure: %s (table %u)\n", __FILE__, __LINE__, #cond, \
                (unsigned)t);                                                           \
    }                                                                                   \
  } while (0)

static void verify_structure(const slate_s* m, int scan_ctrl) {
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

/* Iteration record: the key's bytes (first 64), its length, the pointer the
 * callback saw, and the value. */
typedef struct rec_s {
  uint32_t length;
  unsigned char bytes[64];
  const char* key_pointer;
  void* value;
} rec_s;

typedef struct collect_s {
  rec_s* recs;
  size_t n;
  size_t capacity;
} collect_s;

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

static collect_s collect(const slate_s* m) {
  collect_s c;
  c.capacity = (size_t)slate_length(m) + 16;
  c.recs = (rec_s*)calloc(c.capacity, sizeof(rec_s));
  c.n = 0;
  CHECK_EQ_INT(slate_each(m, collect_cb, &c), SLATE_OK);
  return c;
}

/* Same sequence of (length, bytes, value)? */
static int same_order(const collect_s* a, const collect_s* b) {
  if (a->n != b->n || a->n > a->capacity) return 0;
  for (size_t i = 0; i < a->n; i++) {
    if (a->recs[i].length != b->recs[i].length) return 0;
    if (memcmp(a->recs[i].bytes, b->recs[i].bytes, sizeof a->recs[i].bytes) != 0) return 0;
    if (a->recs[i].value != b->recs[i].value) return 0;
  }
  return 1;
}

static int always_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  if (data) (*(int*)data)++;
  return 1;
}

/* ------------------------------------------------------------------------ */
/* init, empty maps                                                          */
/* ------------------------------------------------------------------------ */

static void test_init_and_empty(void) {
  TEST_SECTION("init and empty map");
  slate_s m, e, c;
  memset(&m, 0xCD, sizeof m); /* slate() accepts uninitialized memory */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 0);
  slate_info_s in = info_of(&m);
  CHECK_EQ_U64(in.length, 0);
  CHECK_EQ_U64(in.capacity, 0);
  CHECK_EQ_U64(in.tombstones, 0);
  CHECK_EQ_U64(in.memory, 0);
  CHECK_EQ_INT(in.global_depth, 0);
  CHECK_EQ_INT(in.tables, 0);
  CHECK_EQ_INT(in.directory, 0);
  CHECK_EQ_INT(in.small, 0);
  slate_table_info_s ti;
  CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_ERROR_NOT_FOUND);
  uint64_t word = 0;
  CHECK_NE_INT(slate_table_ctrl(&m, 0, 0, &word), SLATE_OK);
  CHECK_MAP_OK(&m);
  verify_structure(&m, 1);

  void* v = SENTINEL;
  unsigned char raw[10];
  encode_u64(raw, 1);
  CHECK_EQ_INT(slate_get(&m, "a", &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_bytes(&m, "a", 1, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_bytes(&m, NULL, 0, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_i64(&m, 1, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_u64(&m, 1, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get(&m, "a", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete(&m, "a"), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete_bytes(&m, "a", 1), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete_bytes(&m, NULL, 0), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete_i64(&m, 1), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete_u64(&m, 1), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(count_entries(&m), 0);
  int calls = 0;
  CHECK_EQ_INT(slate_each(&m, always_cb, &calls), SLATE_OK);
  CHECK_EQ_INT(slate_delete_if(&m, always_cb, &calls), SLATE_OK);
  CHECK_EQ_INT(calls, 0);
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&m, 0), SLATE_OK);
  in = info_of(&m);
  CHECK_EQ_U64(in.length, 0);
  CHECK_EQ_U64(in.capacity, 0);
  CHECK_EQ_U64(in.memory, 0);
  CHECK_EQ_INT(slate_equal(&m, &m), 1);
  CHECK_EQ_INT(slate(&e), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&m, &e), 1);
  CHECK_EQ_INT(slate_equal(&e, &m), 1);

  memset(&c, 0xAB, sizeof c); /* clone accepts an uninitialized destination */
  CHECK_EQ_INT(slate_clone(&c, &m), SLATE_OK);
  CHECK_EQ_U64(slate_length(&c), 0);
  CHECK_EQ_INT(slate_equal(&c, &m), 1);
  CHECK_EQ_INT(slate_set(&c, "only-in-clone", V(3)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&c), 1);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_INT(slate_equal(&c, &m), 0);
  slate_free(&c);
  slate_free(&e);

  /* the drop-in example of SPEC section 1 */
  CHECK_EQ_INT(slate_set(&m, "answer", V(42)), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "answer", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(42));
  slate_free(&m);
  CHECK_EQ_U64(slate_length(&m), 0);
  slate_free(&m);
  CHECK_EQ_U64(slate_length(&m), 0);
}

/* ------------------------------------------------------------------------ */
/* invalid arguments                                                         */
/* ------------------------------------------------------------------------ */

static int noop_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  (void)data;
  return 0;
}

static void test_invalid_arguments(void) {
  TEST_SECTION("invalid arguments");
  slate_s m;
  slate_s c;
  void* v = SENTINEL;
  char message[64];
  slate_info_s in;
  slate_table_info_s ti;
  uint64_t word = 0;

  CHECK_EQ_INT(slate(NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "present", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&m, 7, V(2)), SLATE_OK);

  CHECK_EQ_INT(slate_reserve(NULL, 10), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set(NULL, "k", V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set(&m, NULL, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get(NULL, "present", &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get(&m, NULL, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_delete(NULL, "present"), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete(&m, NULL), SLATE_ERROR_INVALID);

  CHECK_EQ_INT(slate_set_bytes(NULL, "k", 1, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_bytes(&m, NULL, 1, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_bytes(&m, NULL, 0xFFFFFFFFu, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_bytes(NULL, "present", 7, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_bytes(&m, NULL, 7, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_delete_bytes(NULL, "present", 7), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_bytes(&m, NULL, 7), SLATE_ERROR_INVALID);

  CHECK_EQ_INT(slate_set_i64(NULL, 1, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_i64(NULL, 1, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_delete_i64(NULL, 1), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_u64(NULL, 7, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_u64(NULL, 7, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_delete_u64(NULL, 7), SLATE_ERROR_INVALID);

  CHECK_EQ_INT(slate_each(NULL, noop_cb, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_each(&m, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_if(NULL, always_cb, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_if(&m, NULL, NULL), SLATE_ERROR_INVALID);

  CHECK_EQ_INT(slate_equal(NULL, &m), 0);
  CHECK_EQ_INT(slate_equal(&m, NULL), 0);
  CHECK_EQ_INT(slate_equal(NULL, NULL), 0);
  CHECK_EQ_U64(slate_length(NULL), 0);
  CHECK_EQ_INT(slate_clear(NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_compact(NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_clone(NULL, &m), SLATE_ERROR_INVALID);
  memset(&c, 0, sizeof c);
  CHECK_EQ_INT(slate_clone(&c, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_clone(&m, &m), SLATE_ERROR_INVALID); /* copy == map */
  slate_free(NULL); /* no-op, must not crash */

  CHECK_EQ_INT(slate_info(NULL, &in), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_info(&m, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_table_info(NULL, 0, &ti), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_table_info(&m, 0, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_table_ctrl(NULL, 0, 0, &word), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_table_ctrl(&m, 0, 0, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_check(NULL, message, (uint32_t)sizeof message), SLATE_ERROR_INVALID);

  /* slate_use_allocator: all three or none */
  CHECK_EQ_INT(slate_use_allocator(malloc, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(NULL, calloc, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(NULL, NULL, free), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(malloc, calloc, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(malloc, NULL, free), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(NULL, calloc, free), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(malloc, calloc, free), SLATE_OK);
  CHECK_EQ_INT(slate_use_allocator(NULL, NULL, NULL), SLATE_OK);

  /* the failed calls changed nothing */
  CHECK_EQ_U64(slate_length(&m), 2);
  CHECK_EQ_INT(slate_get(&m, "present", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(slate_get_u64(&m, 7, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_MAP_OK(&m);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* string keys                                                               */
/* ------------------------------------------------------------------------ */

static void test_string_keys(void) {
  TEST_SECTION("string keys");
  slate_s m;
  void* v = SENTINEL;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "alpha", V(1)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 1);
  CHECK_EQ_INT(slate_get(&m, "alpha", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(slate_set(&m, "alpha", V(2)), SLATE_OK); /* replace */
  CHECK_EQ_U64(slate_length(&m), 1);
  CHECK_EQ_INT(slate_get(&m, "alpha", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));

  /* a NULL value is a value */
  CHECK_EQ_INT(slate_set(&m, "beta", NULL), SLATE_OK);
  v = SENTINEL;
  CHECK_EQ_INT(slate_get(&m, "beta", &v), SLATE_OK);
  CHECK_EQ_PTR(v, NULL);
  CHECK_EQ_INT(slate_get(&m, "beta", NULL), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "gamma", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "alpha", NULL), SLATE_OK);

  /* case and prefixes */
  CHECK_EQ_INT(slate_get(&m, "Alpha", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "alph", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "alphab", NULL), SLATE_ERROR_NOT_FOUND);

  /* delete */
  CHECK_EQ_INT(slate_delete(&m, "alpha"), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, "alpha"), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(slate_length(&m), 1);
  v = SENTINEL;
  CHECK_EQ_INT(slate_get(&m, "alpha", &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_set(&m, "alpha", V(3)), SLATE_OK); /* back again */
  CHECK_EQ_INT(slate_get(&m, "alpha", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));

  /* all prefixes of one long string are distinct keys */
  char text[128];
  for (int i = 0; i < 100; i++) text[i] = (char)('a' + (i * 7) % 26);
  uint64_t bad = 0;
  for (int n = 1; n < 100; n++) {
    char k[128];
    memcpy(k, text, (size_t)n);
    k[n] = '\0';
    if (slate_set(&m, k, V(1000 + n)) != SLATE_OK) bad++;
  }
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_U64(slate_length(&m), 2 + 99);
  bad = 0;
  for (int n = 1; n < 100; n++) {
    char k[128];
    memcpy(k, text, (size_t)n);
    k[n] = '\0';
    v = NULL;
    if (slate_get(&m, k, &v) != SLATE_OK || v != V(1000 + n)) bad++;
    /* the same bytes through the byte API reach the same entry */
    v = NULL;
    if (slate_get_bytes(&m, text, (uint32_t)n, &v) != SLATE_OK || v != V(1000 + n)) bad++;
  }
  CHECK_EQ_U64(bad, 0);

  /* the map owns a copy of the key */
  char buffer[64];
  strcpy(buffer, "mutable-key-longer-than-twelve-bytes");
  CHECK_EQ_INT(slate_set(&m, buffer, V(9)), SLATE_OK);
  char short_buffer[8];
  strcpy(short_buffer, "tiny");
  CHECK_EQ_INT(slate_set(&m, short_buffer, V(10)), SLATE_OK);
  buffer[0] = 'X';
  short_buffer[0] = 'X';
  CHECK_EQ_INT(slate_get(&m, "mutable-key-longer-than-twelve-bytes", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(9));
  CHECK_EQ_INT(slate_get(&m, buffer, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "tiny", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(10));
  CHECK_EQ_INT(slate_get(&m, short_buffer, NULL), SLATE_ERROR_NOT_FOUND);

  /* slate_set_bytes with a string's bytes == slate_set */
  CHECK_EQ_INT(slate_set_bytes(&m, "hello", 5, V(11)), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "hello", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(11));
  CHECK_EQ_INT(slate_delete(&m, "hello"), SLATE_OK);
  CHECK_EQ_INT(slate_get_bytes(&m, "hello", 5, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_MAP_OK(&m);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* byte keys                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct bytes_seen_s {
  int seen[8];
  int unknown;
} bytes_seen_s;

static const char* const nul_keys[7] = {"a\0b", "a\0c", "a", "a\0", "\0", "\0\0", ""};
static const uint32_t nul_lengths[7] = {3, 3, 1, 2, 1, 2, 0};

static int bytes_seen_cb(const char* key, uint32_t length, void* value, void* data) {
  bytes_seen_s* s = (bytes_seen_s*)data;
  for (int i = 0; i < 7; i++) {
    if (length == nul_lengths[i] && memcmp(key, nul_keys[i], length) == 0) {
      if (value == V(100 + i)) s->seen[i]++;
      return 0;
    }
  }
  s->unknown++;
  return 0;
}

static void test_byte_keys(void) {
  TEST_SECTION("byte keys");
  slate_s m;
  void* v = SENTINEL;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (int i = 0; i < 7; i++)
    CHECK_EQ_INT(slate_set_bytes(&m, nul_keys[i], nul_lengths[i], V(100 + i)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 7);
  for (int i = 0; i < 7; i++) {
    v = SENTINEL;
    CHECK_EQ_INT(slate_get_bytes(&m, nul_keys[i], nul_lengths[i], &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(100 + i));
  }
  /* the string API sees the bytes up to the first NUL */
  CHECK_EQ_INT(slate_get(&m, "a\0b", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(102));
  CHECK_EQ_INT(slate_get(&m, "", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(106));
  /* the empty key: NULL with length 0 is the same key as "" */
  CHECK_EQ_INT(slate_get_bytes(&m, NULL, 0, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(106));
  CHECK_EQ_INT(slate_set_bytes(&m, NULL, 0, V(107)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 7);
  CHECK_EQ_INT(slate_get(&m, "", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(107));
  CHECK_EQ_INT(slate_set(&m, "", V(106)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 7);
  CHECK_EQ_INT(slate_get_bytes(&m, "ignored", 0, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(106));
  CHECK_EQ_INT(slate_get_bytes(&m, "a\0d", 3, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_bytes(&m, "\0\0\0", 3, NULL), SLATE_ERROR_NOT_FOUND);

  bytes_seen_s seen;
  memset(&seen, 0, sizeof seen);
  CHECK_EQ_INT(slate_each(&m, bytes_seen_cb, &seen), SLATE_OK);
  for (int i = 0; i < 7; i++) CHECK_EQ_INT(seen.seen[i], 1);
  CHECK_EQ_INT(seen.unknown, 0);

  CHECK_EQ_INT(slate_delete_bytes(&m, NULL, 0), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete(&m, ""), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_set(&m, "", V(5)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, ""), SLATE_OK);
  CHECK_EQ_INT(slate_delete_bytes(&m, "a\0b", 3), SLATE_OK);
  CHECK_EQ_INT(slate_get_bytes(&m, "a\0c", 3, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(101));
  CHECK_EQ_U64(slate_length(&m), 5);

  /* keys around the inline limit and very long keys, differing in one byte */
  static const uint32_t lengths[] = {4, 5, 8, 9, 11, 12, 13, 16, 17, 27, 28, 29, 32, 33, 64, 1000, 100000};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    uint32_t n = lengths[i];
    unsigned char* k = (unsigned char*)malloc(n);
    unsigned char fill = (unsigned char)(0x20 + i);
    memset(k, fill, n);
    CHECK_EQ_INT(slate_set_bytes(&m, k, n, V(200 + i)), SLATE_OK);
    k[n - 1] = 0x7F;
    CHECK_EQ_INT(slate_set_bytes(&m, k, n, V(300 + i)), SLATE_OK);
    k[0] = 0x00; /* a copy was stored: changing our buffer changes nothing */
    CHECK_EQ_INT(slate_get_bytes(&m, k, n, NULL), SLATE_ERROR_NOT_FOUND);
    k[0] = fill;
    CHECK_EQ_INT(slate_get_bytes(&m, k, n, &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(300 + i));
    k[n - 1] = fill;
    CHECK_EQ_INT(slate_get_bytes(&m, k, n, &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(200 + i));
    CHECK_EQ_INT(slate_get_bytes(&m, k, n - 1, NULL), SLATE_ERROR_NOT_FOUND);
    free(k);
  }
  CHECK_EQ_U64(slate_length(&m), 5 + 2 * (sizeof lengths / sizeof lengths[0]));
  CHECK_EQ_U64(count_entries(&m), 5 + 2 * (sizeof lengths / sizeof lengths[0]));
  verify_structure(&m, 1);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* the three keyspaces                                                       */
/* ------------------------------------------------------------------------ */

typedef struct enc_seen_s {
  int matched[16];
  int unknown;
} enc_seen_s;

static const int64_t i64_keys[] = {INT64_MIN, -1, 0, 1, 5, INT64_MAX};
static const uint64_t u64_keys[] = {0, 1, 5, UINT64_MAX, (uint64_t)1 << 63};
#define N_I64 (sizeof i64_keys / sizeof i64_keys[0])
#define N_U64 (sizeof u64_keys / sizeof u64_keys[0])

static int enc_seen_cb(const char* key, uint32_t length, void* value, void* data) {
  enc_seen_s* s = (enc_seen_s*)data;
  unsigned char raw[10];
  for (size_t i = 0; i < N_I64; i++) {
    encode_i64(raw, i64_keys[i]);
    if (length == 10 && memcmp(key, raw, 10) == 0) {
      if (value == V(0x100 + i)) s->matched[i]++;
      return 0;
    }
  }
  for (size_t i = 0; i < N_U64; i++) {
    encode_u64(raw, u64_keys[i]);
    if (length == 10 && memcmp(key, raw, 10) == 0) {
      if (value == V(0x200 + i)) s->matched[N_I64 + i]++;
      return 0;
    }
  }
  if (length == 1 && key[0] == 'x' && value == V(0x300)) {
    s->matched[N_I64 + N_U64]++;
    return 0;
  }
  s->unknown++;
  return 0;
}

/* Counts a map's tables by slot layout (slate_table_info's int_keys). */
static void count_layouts(const slate_s* m, uint32_t counts[3], uint32_t* other) {
  slate_info_s in = info_of(m);
  counts[0] = counts[1] = counts[2] = 0;
  *other = 0;
  for (uint32_t t = 0; t < in.tables; t++) {
    slate_table_info_s ti;
    memset(&ti, 0xA5, sizeof ti);
    CHECK_EQ_INT(slate_table_info(m, t, &ti), SLATE_OK);
    if (ti.int_keys < 3)
      counts[ti.int_keys]++;
    else
      (*other)++;
  }
}

/* The two slot layouts, as the library's Rust structs lay them out. */
#ifdef __cplusplus
#define ALIGNED_8 alignas(8)
#else
#define ALIGNED_8 _Alignas(8)
#endif
typedef struct int_slot_s {
  uint64_t key;
  void* value;
} int_slot_s;
typedef struct general_slot_s {
  ALIGNED_8 unsigned char key[32];
  void* value;
} general_slot_s;

typedef struct int_walk_s {
  uint64_t count, sum, bad;
} int_walk_s;

/* Every key an integer-only map shows is the 10-byte u64 encoding. */
static int int_walk_cb(const char* key, uint32_t key_length, void* value, void* data) {
  int_walk_s* w = (int_walk_s*)data;
  unsigned char raw[10];
  uint64_t k = 0;
  w->count++;
  if (key_length != 10) {
    w->bad++;
    return 0;
  }
  for (int i = 7; i >= 0; i--) k = k << 8 | (unsigned char)key[2 + i]; /* little-endian bytes */
  encode_u64(raw, k);
  if (memcmp(raw, key, 10) != 0 || value != V(k + 1)) w->bad++;
  w->sum += k;
  return 0;
}

static void test_integer_tables(void) {
  TEST_SECTION("integer tables: 16-byte slots while every key is one integer kind");
  slate_s m;
  uint32_t counts[3], other;
  void* v = NULL;
  unsigned char raw[10];
  const uint64_t n = 5000;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (uint64_t k = 0; k < n; k++) CHECK_EQ_INT(slate_set_u64(&m, k, V(k + 1)), SLATE_OK);
  count_layouts(&m, counts, &other);
  slate_info_s in = info_of(&m);
  CHECK(in.tables > 4);
  CHECK_EQ_INT(counts[2], in.tables);
  CHECK_EQ_INT(counts[0] + counts[1] + other, 0);
  /* the raw encoding of a u64 is that u64 key: found, replaced, added and
     deleted in the integer tables, which stay integer */
  encode_u64(raw, 17);
  CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(18));
  CHECK_EQ_INT(slate_set_bytes(&m, raw, 10, V(18)), SLATE_OK);
  encode_u64(raw, n);
  CHECK_EQ_INT(slate_set_bytes(&m, raw, 10, V(n + 1)), SLATE_OK);
  CHECK_EQ_INT(slate_get_u64(&m, n, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(n + 1));
  CHECK_EQ_INT(slate_delete_bytes(&m, raw, 10), SLATE_OK);
  CHECK_EQ_INT(slate_get_u64(&m, n, NULL), SLATE_ERROR_NOT_FOUND);
  count_layouts(&m, counts, &other);
  CHECK_EQ_INT(counts[2], in.tables);
  /* keys of another kind are absent, whatever their bits */
  CHECK_EQ_INT(slate_get_i64(&m, 17, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete_i64(&m, 17), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "17", NULL), SLATE_ERROR_NOT_FOUND);
  /* a walk shows every key as its 10-byte encoding */
  int_walk_s w = {0, 0, 0};
  CHECK_EQ_INT(slate_each(&m, int_walk_cb, &w), SLATE_OK);
  CHECK_EQ_U64(w.count, n);
  CHECK_EQ_U64(w.sum, n * (n - 1) / 2);
  CHECK_EQ_U64(w.bad, 0);

  /* an i64 key turns exactly its own table general, at the same size: each
     group's 8 slots grow from integer slots (a uint64_t and a value) to
     general ones (32 bytes of key, 8-aligned, and a value): 16 to 40 bytes
     on 64-bit targets, 12 to 40 on i686, where a uint64_t in a struct is
     4-aligned */
  CHECK_EQ_INT(slate_set_i64(&m, -1, V(99)), SLATE_OK);
  count_layouts(&m, counts, &other);
  CHECK_EQ_INT(counts[0], 1);
  CHECK_EQ_INT(counts[2], in.tables - 1);
  slate_info_s in2 = info_of(&m);
  CHECK_EQ_U64(in2.tables, in.tables);
  CHECK_EQ_U64(in2.capacity, in.capacity);
  uint64_t grown = 0;
  for (uint32_t t = 0; t < in2.tables; t++) {
    slate_table_info_s ti;
    CHECK_EQ_INT(slate_table_info(&m, t, &ti), SLATE_OK);
    if (ti.int_keys == 0) grown = (uint64_t)ti.groups * 8 * (sizeof(general_slot_s) - sizeof(int_slot_s));
  }
  CHECK_EQ_U64(in2.memory - in.memory, grown);
  for (uint64_t k = 0; k < n; k++) {
    if (slate_get_u64(&m, k, &v) != SLATE_OK || v != V(k + 1)) {
      CHECK_MSG(0, "a u64 key was lost when its table turned general");
      break;
    }
  }
  CHECK_EQ_INT(slate_get_i64(&m, -1, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(99));
  CHECK_EQ_INT(run_check(&m), SLATE_OK);
  verify_structure(&m, 1);
  /* a string lands in a table of its own hash: at most one more turns */
  CHECK_EQ_INT(slate_set(&m, "a string", V(7)), SLATE_OK);
  count_layouts(&m, counts, &other);
  CHECK(counts[0] >= 1 && counts[0] <= 2);
  CHECK_EQ_INT(counts[0] + counts[2], in.tables);

  /* compact brings integer tables back once the other keys are gone */
  CHECK_EQ_INT(slate_delete_i64(&m, -1), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, "a string"), SLATE_OK);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  count_layouts(&m, counts, &other);
  in2 = info_of(&m);
  CHECK_EQ_INT(counts[2], in2.tables);
  CHECK_EQ_U64(slate_length(&m), n);
  CHECK_EQ_INT(run_check(&m), SLATE_OK);

  /* a clone keeps the layout; an i64-only map has the i64 layout */
  slate_s c;
  CHECK_EQ_INT(slate_clone(&c, &m), SLATE_OK);
  count_layouts(&c, counts, &other);
  CHECK_EQ_INT(counts[2], in2.tables);
  CHECK_EQ_INT(slate_equal(&c, &m), 1);
  slate_free(&c);
  slate_free(&m);
  for (int64_t k = -100; k < 100; k++) CHECK_EQ_INT(slate_set_i64(&m, k, V(1)), SLATE_OK);
  count_layouts(&m, counts, &other);
  CHECK_EQ_INT(counts[1], info_of(&m).tables);
  encode_u64(raw, 5);
  CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(run_check(&m), SLATE_OK);
  slate_free(&m);
}

static void test_keyspaces(void) {
  TEST_SECTION("keyspaces and the integer encoding");
  slate_s m;
  void* v = SENTINEL;
  unsigned char raw[10];
  CHECK_EQ_INT(slate(&m), SLATE_OK);

  /* "x", i64 5, u64 5: three different entries */
  CHECK_EQ_INT(slate_set(&m, "x", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_set_i64(&m, 5, V(2)), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&m, 5, V(3)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 3);
  CHECK_EQ_INT(slate_get(&m, "x", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(slate_get_i64(&m, 5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_EQ_INT(slate_get_u64(&m, 5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));
  /* the raw 10-byte encodings reach the integer entries */
  encode_i64(raw, 5);
  CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  encode_u64(raw, 5);
  CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));
  /* ... and only the exact 10 bytes: */
  CHECK_EQ_INT(slate_get_bytes(&m, raw, 9, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_bytes(&m, raw + 1, 9, NULL), SLATE_ERROR_NOT_FOUND);
  raw[1] = 0x03;
  CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, NULL), SLATE_ERROR_NOT_FOUND);
  /* a string "5" is none of them */
  CHECK_EQ_INT(slate_get(&m, "5", NULL), SLATE_ERROR_NOT_FOUND);
  /* writing the raw encoding replaces the integer entry */
  encode_i64(raw, 5);
  CHECK_EQ_INT(slate_set_bytes(&m, raw, 10, V(4)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 3);
  CHECK_EQ_INT(slate_get_i64(&m, 5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(4));
  CHECK_EQ_INT(slate_get_u64(&m, 5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));
  /* deleting through the raw bytes deletes the integer entry */
  encode_u64(raw, 5);
  CHECK_EQ_INT(slate_delete_bytes(&m, raw, 10), SLATE_OK);
  CHECK_EQ_INT(slate_get_u64(&m, 5, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_i64(&m, 5, NULL), SLATE_OK);
  CHECK_EQ_INT(slate_delete_i64(&m, 5), SLATE_OK);
  CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(slate_length(&m), 1);
  CHECK_EQ_INT(slate_delete(&m, "x"), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 0);

  /* boundary values; i64 and u64 with the same bits stay apart */
  for (size_t i = 0; i < N_I64; i++)
    CHECK_EQ_INT(slate_set_i64(&m, i64_keys[i], V(0x100 + i)), SLATE_OK);
  for (size_t i = 0; i < N_U64; i++)
    CHECK_EQ_INT(slate_set_u64(&m, u64_keys[i], V(0x200 + i)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "x", V(0x300)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), N_I64 + N_U64 + 1);
  for (size_t i = 0; i < N_I64; i++) {
    CHECK_EQ_INT(slate_get_i64(&m, i64_keys[i], &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(0x100 + i));
    encode_i64(raw, i64_keys[i]);
    CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(0x100 + i));
  }
  for (size_t i = 0; i < N_U64; i++) {
    CHECK_EQ_INT(slate_get_u64(&m, u64_keys[i], &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(0x200 + i));
    encode_u64(raw, u64_keys[i]);
    CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(0x200 + i));
  }
  CHECK_EQ_INT(slate_get_u64(&m, (uint64_t)-2, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_i64(&m, 2, NULL), SLATE_ERROR_NOT_FOUND);
  /* the encodings by hand: i64 -1 is 00 01 ff*8, u64 0x0102030405060708 ... */
  {
    static const unsigned char minus_one[10] = {0x00, 0x01, 0xff, 0xff, 0xff,
                                                0xff, 0xff, 0xff, 0xff, 0xff};
    static const unsigned char i64_min[10] = {0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x80};
    static const unsigned char u64_big[10] = {0x00, 0x02, 0x08, 0x07, 0x06,
                                              0x05, 0x04, 0x03, 0x02, 0x01};
    CHECK_EQ_INT(slate_get_bytes(&m, minus_one, 10, &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(0x101));
    CHECK_EQ_INT(slate_get_bytes(&m, i64_min, 10, &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(0x100));
    CHECK_EQ_INT(slate_set_u64(&m, 0x0102030405060708ull, V(0x400)), SLATE_OK);
    CHECK_EQ_INT(slate_get_bytes(&m, u64_big, 10, &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(0x400));
    CHECK_EQ_INT(slate_delete_bytes(&m, u64_big, 10), SLATE_OK);
  }
  /* slate_each reports the 10-byte encodings */
  enc_seen_s seen;
  memset(&seen, 0, sizeof seen);
  CHECK_EQ_INT(slate_each(&m, enc_seen_cb, &seen), SLATE_OK);
  for (size_t i = 0; i < N_I64 + N_U64 + 1; i++) CHECK_EQ_INT(seen.matched[i], 1);
  CHECK_EQ_INT(seen.unknown, 0);

  /* enough integers to leave the small map; decode every one from slate_each */
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  for (int64_t k = -500; k < 500; k++) CHECK_EQ_INT(slate_set_i64(&m, k, V(k + 1000)), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 1000), 0);
  collect_s c = collect(&m);
  CHECK_EQ_U64(c.n, 2000);
  uint64_t bad = 0;
  static unsigned char seen_i[1000], seen_u[1000];
  memset(seen_i, 0, sizeof seen_i);
  memset(seen_u, 0, sizeof seen_u);
  for (size_t i = 0; i < c.n && i < c.capacity; i++) {
    uint64_t x;
    const char* k = (const char*)c.recs[i].bytes;
    if (decode_int(k, c.recs[i].length, 0x01, &x)) {
      int64_t s = (int64_t)x;
      if (s < -500 || s >= 500 || c.recs[i].value != V(s + 1000))
        bad++;
      else
        seen_i[s + 500]++;
    } else if (decode_int(k, c.recs[i].length, 0x02, &x)) {
      if (x >= 1000 || c.recs[i].value != V(u64_value(x)))
        bad++;
      else
        seen_u[x]++;
    } else {
      bad++;
    }
  }
  for (int i = 0; i < 1000; i++)
    if (seen_i[i] != 1 || seen_u[i] != 1) bad++;
  CHECK_EQ_U64(bad, 0);
  free(c.recs);
  verify_structure(&m, 1);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* slate_each                                                                */
/* ------------------------------------------------------------------------ */

typedef struct visit_s {
  unsigned char seen[3000];
  int calls;
  int stop_at;  /* stop on this call (1-based), 0: never */
  int stop_ret; /* what to return then */
  int bad;
  const void* data_check;
} visit_s;

static int visit_cb(const char* key, uint32_t length, void* value, void* data) {
  visit_s* s = (visit_s*)data;
  uint64_t k;
  if (s->data_check != (const void*)s) s->bad++;
  s->calls++;
  if (!decode_int(key, length, 0x02, &k) || k >= 3000 || value != V(u64_value(k)))
    s->bad++;
  else
    s->seen[k]++;
  if (s->stop_at && s->calls == s->stop_at) return s->stop_ret;
  return 0;
}

static void test_each(void) {
  TEST_SECTION("slate_each");
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 3000), 0);

  visit_s* s = (visit_s*)calloc(1, sizeof(visit_s));
  s->data_check = s;
  CHECK_EQ_INT(slate_each(&m, visit_cb, s), SLATE_OK);
  CHECK_EQ_INT(s->calls, 3000);
  CHECK_EQ_INT(s->bad, 0);
  int once = 1;
  for (int i = 0; i < 3000; i++)
    if (s->seen[i] != 1) once = 0;
  CHECK_MSG(once, "every entry visited exactly once");

  /* early stops: the callback's value is slate_each's */
  static const int stops[][2] = {{1, 7}, {3, -3}, {100, 1}, {2999, INT_MAX}, {3000, INT_MIN},
                                 {1, SLATE_ERROR_ALLOC}};
  for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
    memset(s, 0, sizeof *s);
    s->data_check = s;
    s->stop_at = stops[i][0];
    s->stop_ret = stops[i][1];
    CHECK_EQ_INT(slate_each(&m, visit_cb, s), stops[i][1]);
    CHECK_EQ_INT(s->calls, stops[i][0]);
    CHECK_EQ_INT(s->bad, 0);
  }
  /* the map is still walkable and writable after an early stop */
  CHECK_EQ_INT(slate_set_u64(&m, 5000, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_delete_u64(&m, 5000), SLATE_OK);

  /* the order is deterministic for one state */
  collect_s a = collect(&m);
  collect_s b = collect(&m);
  CHECK(same_order(&a, &b));
  free(a.recs);
  free(b.recs);

  /* small map */
  slate_s small;
  CHECK_EQ_INT(slate(&small), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&small, 10, 15), 0);
  memset(s, 0, sizeof *s);
  s->data_check = s;
  CHECK_EQ_INT(slate_each(&small, visit_cb, s), SLATE_OK);
  CHECK_EQ_INT(s->calls, 5);
  CHECK_EQ_INT(s->bad, 0);
  memset(s, 0, sizeof *s);
  s->data_check = s;
  s->stop_at = 2;
  s->stop_ret = 42;
  CHECK_EQ_INT(slate_each(&small, visit_cb, s), 42);
  CHECK_EQ_INT(s->calls, 2);

  /* the key pointer a callback sees is the map's own copy */
  char key[64];
  strcpy(key, "a key long enough to live outside the slot");
  CHECK_EQ_INT(slate_set(&small, key, V(77)), SLATE_OK);
  collect_s c = collect(&small);
  int found = 0;
  for (size_t i = 0; i < c.n && i < c.capacity; i++) {
    if (c.recs[i].value == V(77)) {
      found++;
      CHECK_EQ_INT(c.recs[i].length, strlen(key));
      CHECK_EQ_MEM(c.recs[i].bytes, key, strlen(key));
      CHECK_NE_PTR(c.recs[i].key_pointer, key);
    }
  }
  CHECK_EQ_INT(found, 1);
  free(c.recs);
  free(s);
  slate_free(&small);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* merge: slate_each over a, writing into b                                  */
/* ------------------------------------------------------------------------ */

static int merge_cb(const char* key, uint32_t length, void* value, void* data) {
  return slate_set_bytes((slate_s*)data, key, length, value);
}

static void test_merge(void) {
  TEST_SECTION("merge recipe");
  slate_s a, b;
  char buffer[96];
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_INT(slate(&b), SLATE_OK);
  /* a: u64 0..1999 (odd values), strings 0..49; b: u64 1000..2999 with other values */
  CHECK_EQ_U64(fill_u64(&a, 0, 2000), 0);
  for (unsigned i = 0; i < 50; i++)
    CHECK_EQ_INT(slate_set(&a, long_key(buffer, sizeof buffer, i), V(50000 + i)), SLATE_OK);
  for (uint64_t k = 1000; k < 3000; k++) CHECK_EQ_INT(slate_set_u64(&b, k, V(7)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&b, "b-only", V(8)), SLATE_OK);
  CHECK_EQ_INT(slate_each(&a, merge_cb, &b), SLATE_OK);
  CHECK_EQ_U64(slate_length(&a), 2050);
  CHECK_EQ_U64(slate_length(&b), 3000 + 50 + 1);
  CHECK_EQ_U64(missing_u64(&b, 0, 2000, 1), 0); /* a's values won */
  uint64_t bad = 0;
  for (uint64_t k = 2000; k < 3000; k++) {
    void* v = NULL;
    if (slate_get_u64(&b, k, &v) != SLATE_OK || v != V(7)) bad++;
  }
  for (unsigned i = 0; i < 50; i++) {
    void* v = NULL;
    if (slate_get(&b, long_key(buffer, sizeof buffer, i), &v) != SLATE_OK || v != V(50000 + i))
      bad++;
  }
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_INT(slate_get(&b, "b-only", NULL), SLATE_OK);
  CHECK_EQ_INT(slate_get(&a, "b-only", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(missing_u64(&a, 0, 2000, 1), 0); /* a untouched */
  verify_structure(&a, 0);
  verify_structure(&b, 0);
  /* merging a into a copy of itself changes nothing */
  slate_s c;
  CHECK_EQ_INT(slate_clone(&c, &a), SLATE_OK);
  CHECK_EQ_INT(slate_each(&a, merge_cb, &c), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &c), 1);
  slate_free(&c);
  slate_free(&a);
  slate_free(&b);
}

/* ------------------------------------------------------------------------ */
/* modifying a map from inside its own walk                                  */
/* ------------------------------------------------------------------------ */

typedef struct reent_s {
  slate_s* self;
  slate_s* other;
  slate_s* copy;
  uint64_t length;
  int calls;
  int nested_calls;
  int predicate_calls;
  int inner_other_calls;
} reent_s;

static int count_pred_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  ((reent_s*)data)->predicate_calls++;
  return 1;
}

static int nested_cb(const char* key, uint32_t length, void* value, void* data) {
  reent_s* r = (reent_s*)data;
  r->nested_calls++;
  (void)value;
  if (r->nested_calls == 1) {
    CHECK_EQ_INT(slate_set_u64(r->self, 999999, V(1)), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_delete_bytes(r->self, key, length), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_clear(r->self), SLATE_ERROR_INVALID);
  }
  return 0;
}

/* walking another map from inside the walk of self: self stays locked */
static int inner_other_cb(const char* key, uint32_t length, void* value, void* data) {
  reent_s* r = (reent_s*)data;
  (void)key;
  (void)length;
  (void)value;
  r->inner_other_calls++;
  if (r->inner_other_calls == 1) {
    CHECK_EQ_INT(slate_set(r->self, "from-inner", V(1)), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_set(r->other, "from-inner", V(1)), SLATE_ERROR_INVALID); /* walked too */
    CHECK_EQ_INT(slate_set(r->copy, "from-inner", V(1)), SLATE_OK);
    CHECK_EQ_INT(slate_delete(r->copy, "from-inner"), SLATE_OK);
  }
  return 0;
}

static int stop_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  (void)data;
  return 5;
}

static int reent_cb(const char* key, uint32_t length, void* value, void* data) {
  reent_s* r = (reent_s*)data;
  slate_s* m = r->self;
  void* v = SENTINEL;
  r->calls++;
  if (r->calls > 1) {
    CHECK_EQ_INT(slate_delete_bytes(m, key, length), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_set_bytes(m, key, length, V(0xBAD)), SLATE_ERROR_INVALID);
    return 0;
  }
  /* writes: refused */
  CHECK_EQ_INT(slate_set(m, "new-key", V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_bytes(m, key, length, V(0xBAD)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_bytes(m, "new-bytes", 9, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_i64(m, -77, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_u64(m, 77777, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_u64(m, 3, V(0xBAD)), SLATE_ERROR_INVALID); /* replace */
  CHECK_EQ_INT(slate_delete(m, "s0"), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_bytes(m, key, length), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_i64(m, -1), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_u64(m, 3), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_clear(m), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_compact(m), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_reserve(m, 100000), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_if(m, count_pred_cb, r), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(r->predicate_calls, 0);
  slate_free(m); /* refused: must change nothing */
  CHECK_EQ_U64(slate_length(m), r->length);

  /* reads: allowed */
  CHECK_EQ_INT(slate_get_bytes(m, key, length, &v), SLATE_OK);
  CHECK_EQ_PTR(v, value);
  CHECK_EQ_INT(slate_get(m, "s0", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1000));
  CHECK_EQ_INT(slate_get_u64(m, 3, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(u64_value(3)));
  CHECK_EQ_INT(slate_get_i64(m, -1, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2001));
  CHECK_EQ_U64(slate_length(m), r->length);
  CHECK_EQ_INT(slate_equal(m, m), 1);
  CHECK_EQ_INT(slate_each(m, nested_cb, r), SLATE_OK);
  CHECK_EQ_U64(r->nested_calls, r->length);
  CHECK_EQ_INT(slate_each(m, stop_cb, NULL), 5);
  /* still inside the outer walk after the nested ones returned */
  CHECK_EQ_INT(slate_set(m, "after-nested", V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_u64(m, 3), SLATE_ERROR_INVALID);
  slate_info_s in;
  CHECK_EQ_INT(slate_info(m, &in), SLATE_OK);
  CHECK_EQ_U64(in.length, r->length);
  CHECK_EQ_INT(run_check(m), SLATE_OK);

  /* clone from inside: the copy is a separate, writable map */
  CHECK_EQ_INT(slate_clone(r->copy, m), SLATE_OK);
  CHECK_EQ_INT(slate_equal(r->copy, m), 1);
  CHECK_EQ_INT(slate_set(r->copy, "in-callback", V(5)), SLATE_OK);
  CHECK_EQ_INT(slate_delete_u64(r->copy, 3), SLATE_OK);
  CHECK_EQ_U64(slate_length(r->copy), r->length);
  CHECK_EQ_INT(slate_equal(r->copy, m), 0);

  /* other maps are writable */
  CHECK_EQ_INT(slate_set_bytes(r->other, key, length, value), SLATE_OK);
  CHECK_EQ_INT(slate_delete_bytes(r->other, key, length), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(r->other, 1, V(2)), SLATE_OK);

  /* walking another map from in here */
  CHECK_EQ_INT(slate_each(r->other, inner_other_cb, r), SLATE_OK);
  CHECK(r->inner_other_calls >= 1);
  return 0;
}

static void check_reent_map(const slate_s* m) {
  void* v = NULL;
  CHECK_EQ_U64(slate_length(m), 3 + 200 + 20);
  CHECK_EQ_U64(missing_u64(m, 0, 200, 1), 0);
  for (int i = 0; i < 20; i++) {
    char k[16];
    snprintf(k, sizeof k, "s%d", i);
    v = NULL;
    CHECK(slate_get(m, k, &v) == SLATE_OK && v == V(1000 + i));
  }
  CHECK_EQ_INT(slate_get_i64(m, -1, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2001));
  CHECK_EQ_INT(slate_get(m, "new-key", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_u64(m, 77777, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(m, "after-nested", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(m, "from-inner", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_MAP_OK(m);
}

static void test_reentrancy(void) {
  TEST_SECTION("writes from inside slate_each");
  slate_s m, other, copy;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate(&other), SLATE_OK);
  memset(&copy, 0, sizeof copy);
  CHECK_EQ_U64(fill_u64(&m, 0, 200), 0);
  for (int i = 0; i < 20; i++) {
    char k[16];
    snprintf(k, sizeof k, "s%d", i);
    CHECK_EQ_INT(slate_set(&m, k, V(1000 + i)), SLATE_OK);
  }
  CHECK_EQ_INT(slate_set_i64(&m, -1, V(2001)), SLATE_OK);
  CHECK_EQ_INT(slate_set_i64(&m, -2, V(2002)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "a-string-key-longer-than-the-inline-limit", V(2003)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&other, "other", V(1)), SLATE_OK);
  slate_info_s before = info_of(&m);
  collect_s order_before = collect(&m);

  reent_s r;
  memset(&r, 0, sizeof r);
  r.self = &m;
  r.other = &other;
  r.copy = &copy;
  r.length = slate_length(&m);
  CHECK_EQ_INT(slate_each(&m, reent_cb, &r), SLATE_OK);
  CHECK_EQ_U64(r.calls, r.length);
  check_reent_map(&m);
  slate_info_s after = info_of(&m);
  CHECK_EQ_U64(after.capacity, before.capacity);
  CHECK_EQ_U64(after.tombstones, before.tombstones);
  CHECK_EQ_U64(after.seed, before.seed);
  CHECK_EQ_U64(after.memory, before.memory);
  collect_s order_after = collect(&m);
  CHECK(same_order(&order_before, &order_after));
  free(order_before.recs);
  free(order_after.recs);

  /* the copy made inside is independent and stays writable afterwards */
  CHECK_EQ_U64(slate_length(&copy), r.length);
  CHECK_EQ_INT(slate_get(&copy, "in-callback", NULL), SLATE_OK);
  CHECK_EQ_INT(slate_set(&copy, "after", V(1)), SLATE_OK);
  CHECK_MAP_OK(&copy);
  slate_free(&copy);
  CHECK_EQ_INT(slate_get_u64(&other, 1, NULL), SLATE_OK);

  /* the lock is released after the walk, also after an early stop */
  CHECK_EQ_INT(slate_each(&m, stop_cb, NULL), 5);
  CHECK_EQ_INT(slate_set(&m, "after-walk", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, "after-walk"), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&m, 1000), SLATE_OK);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  check_reent_map(&m);
  /* each over an empty map, then writes */
  slate_s empty;
  CHECK_EQ_INT(slate(&empty), SLATE_OK);
  CHECK_EQ_INT(slate_each(&empty, stop_cb, NULL), SLATE_OK);
  CHECK_EQ_INT(slate_set(&empty, "x", V(1)), SLATE_OK);
  slate_free(&empty);
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 0);
  slate_free(&m);
  slate_free(&other);
}

/* ------------------------------------------------------------------------ */
/* slate_delete_if                                                           */
/* ------------------------------------------------------------------------ */

typedef struct pred_s {
  uint64_t modulus;
  uint64_t calls;
  int return_value;
  int bad;
} pred_s;

static int pred_cb(const char* key, uint32_t length, void* value, void* data) {
  pred_s* p = (pred_s*)data;
  uint64_t k;
  p->calls++;
  if (!decode_int(key, length, 0x02, &k)) return 0; /* keep non-u64 keys */
  if (value != V(u64_value(k))) p->bad++;
  return (k % p->modulus == 0) ? p->return_value : 0;
}

/* a predicate that tries to write into the map being filtered */
typedef struct pred_writer_s {
  slate_s* self;
  int calls;
} pred_writer_s;

static int pred_writer_cb(const char* key, uint32_t length, void* value, void* data) {
  pred_writer_s* w = (pred_writer_s*)data;
  (void)value;
  w->calls++;
  if (w->calls == 1) {
    CHECK_EQ_INT(slate_set(w->self, "from-predicate", V(1)), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_set_bytes(w->self, key, length, V(0xBAD)), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_delete_bytes(w->self, key, length), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_clear(w->self), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_compact(w->self), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_reserve(w->self, 100000), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_delete_if(w->self, always_cb, NULL), SLATE_ERROR_INVALID);
  }
  return 0;
}

/* Tries to re-initialize the walked map from its own callback. */
typedef struct reinit_s {
  slate_s* self;
  slate_s* unwalked;
  int rc_init, rc_clone, rc_unwalked;
  unsigned calls;
} reinit_s;

static int reinit_cb(const char* key, uint32_t key_length, void* value, void* data) {
  reinit_s* r = (reinit_s*)data;
  (void)key;
  (void)key_length;
  (void)value;
  if (r->calls++ == 0) {
    slate_s other;
    CHECK_EQ_INT(slate(&other), SLATE_OK);
    r->rc_init = slate(r->self);
    r->rc_clone = slate_clone(r->self, &other);
    slate_free(&other);
    /* a map this thread does not walk may be initialized */
    r->rc_unwalked = slate(r->unwalked);
  }
  return 0;
}

static void test_reinit_inside_walk(void) {
  TEST_SECTION("slate() and slate_clone() into a map inside its own walk are refused");
  slate_s m, n;
  reinit_s r;
  capture_s cap;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 100), 0);
  CHECK_EQ_INT(slate_set(&m, "a-string-key-longer-than-the-inline-limit", V(7)), SLATE_OK);
  collect_s order_before = collect(&m);
  slate_info_s before = info_of(&m);
  for (int pass = 0; pass < 2; pass++) {
    memset(&r, 0, sizeof r);
    r.self = &m;
    r.unwalked = &n;
    capture_stderr(&cap);
    if (pass == 0)
      CHECK_EQ_INT(slate_each(&m, reinit_cb, &r), SLATE_OK);
    else
      CHECK_EQ_INT(slate_delete_if(&m, reinit_cb, &r), SLATE_OK);
    CHECK_NOTHING_PRINTED(release_stderr(&cap));
    CHECK_EQ_INT(r.rc_init, SLATE_ERROR_INVALID);
    CHECK_EQ_INT(r.rc_clone, SLATE_ERROR_INVALID);
    CHECK_EQ_INT(r.rc_unwalked, SLATE_OK);
    slate_free(&n);
    CHECK_EQ_U64(r.calls, 101);
    /* the map is as it was, walked in the same order */
    CHECK_EQ_U64(slate_length(&m), 101);
    CHECK_EQ_U64(missing_u64(&m, 0, 100, 1), 0);
    collect_s order = collect(&m);
    CHECK(same_order(&order_before, &order));
    free(order.recs);
    CHECK_EQ_U64(info_of(&m).memory, before.memory);
    CHECK_MAP_OK(&m);
  }
  free(order_before.recs);
  /* and it is not bricked: it changes, frees and starts again */
  CHECK_EQ_INT(slate_set(&m, "after", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, "after"), SLATE_OK);
  slate_free(&m);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "again", V(2)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 1);
  slate_free(&m);
}

static void test_delete_if(void) {
  TEST_SECTION("slate_delete_if");
  slate_s m;
  pred_s p;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 10000), 0);
  CHECK_EQ_INT(slate_set(&m, "keep-me", V(1)), SLATE_OK);
  memset(&p, 0, sizeof p);
  p.modulus = 2;
  p.return_value = 1;
  CHECK_EQ_INT(slate_delete_if(&m, pred_cb, &p), SLATE_OK); /* not a count */
  CHECK_EQ_U64(p.calls, 10001);
  CHECK_EQ_INT(p.bad, 0);
  CHECK_EQ_U64(slate_length(&m), 5001);
  CHECK_EQ_U64(missing_u64(&m, 1, 10000, 2), 0);
  CHECK_EQ_U64(present_u64(&m, 0, 10000, 2), 0);
  CHECK_EQ_INT(slate_get(&m, "keep-me", NULL), SLATE_OK);
  verify_structure(&m, 1);

  /* any non-zero return deletes */
  memset(&p, 0, sizeof p);
  p.modulus = 3;
  p.return_value = -1;
  CHECK_EQ_INT(slate_delete_if(&m, pred_cb, &p), SLATE_OK);
  CHECK_EQ_U64(p.calls, 5001);
  uint64_t expect = 1; /* keep-me */
  for (uint64_t k = 1; k < 10000; k += 2)
    if (k % 3 != 0) expect++;
  CHECK_EQ_U64(slate_length(&m), expect);
  uint64_t bad = 0;
  for (uint64_t k = 0; k < 10000; k++) {
    int want = (k % 2 == 1 && k % 3 != 0) ? SLATE_OK : SLATE_ERROR_NOT_FOUND;
    if (slate_get_u64(&m, k, NULL) != want) bad++;
  }
  CHECK_EQ_U64(bad, 0);

  /* writes from inside the predicate are refused */
  {
    pred_writer_s w;
    w.self = &m;
    w.calls = 0;
    uint64_t length = slate_length(&m);
    CHECK_EQ_INT(slate_delete_if(&m, pred_writer_cb, &w), SLATE_OK);
    CHECK_EQ_U64(w.calls, length);
    CHECK_EQ_U64(slate_length(&m), length);
    CHECK_EQ_INT(slate_get(&m, "from-predicate", NULL), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_INT(slate_get(&m, "keep-me", NULL), SLATE_OK);
    CHECK_EQ_INT(slate_set(&m, "after-predicate", V(1)), SLATE_OK); /* unlocked again */
    CHECK_EQ_INT(slate_delete(&m, "after-predicate"), SLATE_OK);
  }

  /* deleting nothing */
  slate_info_s before = info_of(&m);
  memset(&p, 0, sizeof p);
  p.modulus = 1000000;
  p.return_value = 1;
  CHECK_EQ_INT(slate_delete_if(&m, noop_cb, NULL), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), expect);
  CHECK_EQ_U64(info_of(&m).seed, before.seed);
  verify_structure(&m, 1);

  /* deleting everything: the map is empty and takes a new seed */
  int calls = 0;
  CHECK_EQ_INT(slate_delete_if(&m, always_cb, &calls), SLATE_OK);
  CHECK_EQ_U64(calls, expect);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_U64(count_entries(&m), 0);
  CHECK_NE_U64(info_of(&m).seed, before.seed);
  verify_structure(&m, 1);
  CHECK_EQ_INT(slate_set(&m, "again", V(1)), SLATE_OK);

  /* small map */
  slate_s s;
  CHECK_EQ_INT(slate(&s), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&s, 0, 6), 0);
  memset(&p, 0, sizeof p);
  p.modulus = 2;
  p.return_value = 1;
  CHECK_EQ_INT(slate_delete_if(&s, pred_cb, &p), SLATE_OK);
  CHECK_EQ_U64(p.calls, 6);
  CHECK_EQ_U64(slate_length(&s), 3);
  CHECK_EQ_U64(missing_u64(&s, 1, 6, 2), 0);
  CHECK_EQ_U64(present_u64(&s, 0, 6, 2), 0);
  verify_structure(&s, 1);
  slate_free(&s);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* slate_equal                                                               */
/* ------------------------------------------------------------------------ */

static void test_equal(void) {
  TEST_SECTION("slate_equal");
  slate_s a, b, c;
  char buffer[96];
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_INT(slate(&b), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 1);
  CHECK_EQ_INT(slate_set(&a, "k", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  CHECK_EQ_INT(slate_equal(&b, &a), 0);
  CHECK_EQ_INT(slate_set(&b, "k", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 1);
  CHECK_EQ_INT(slate_set(&b, "k", V(2)), SLATE_OK); /* same key, other value */
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  CHECK_EQ_INT(slate_equal(&b, &a), 0);
  CHECK_EQ_INT(slate_set(&b, "k", NULL), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  slate_free(&a);
  slate_free(&b);

  /* same content, built in opposite orders, with different seeds */
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_INT(slate(&b), SLATE_OK);
  for (uint64_t k = 0; k < 3000; k++) CHECK_EQ_INT(slate_set_u64(&a, k, V(k + 1)), SLATE_OK);
  for (unsigned i = 0; i < 40; i++)
    CHECK_EQ_INT(slate_set(&a, long_key(buffer, sizeof buffer, i), V(i)), SLATE_OK);
  for (unsigned i = 40; i-- > 0;)
    CHECK_EQ_INT(slate_set(&b, long_key(buffer, sizeof buffer, i), V(i)), SLATE_OK);
  for (uint64_t k = 3000; k-- > 0;) CHECK_EQ_INT(slate_set_u64(&b, k, V(k + 1)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 1);
  CHECK_EQ_INT(slate_equal(&b, &a), 1);
  CHECK_EQ_INT(slate_equal(&a, &a), 1);

  /* one value differs */
  CHECK_EQ_INT(slate_set_u64(&b, 1234, V(0)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  CHECK_EQ_INT(slate_equal(&b, &a), 0);
  CHECK_EQ_INT(slate_set_u64(&b, 1234, V(1235)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 1);
  /* an extra key: different lengths */
  CHECK_EQ_INT(slate_set_u64(&b, 5000, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  CHECK_EQ_INT(slate_equal(&b, &a), 0);
  /* same length, one key swapped for another */
  CHECK_EQ_INT(slate_delete_u64(&b, 0), SLATE_OK);
  CHECK_EQ_U64(slate_length(&a), slate_length(&b));
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  CHECK_EQ_INT(slate_equal(&b, &a), 0);
  CHECK_EQ_INT(slate_delete_u64(&b, 5000), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&b, 0, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 1);
  /* clone */
  CHECK_EQ_INT(slate_clone(&c, &a), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &c), 1);
  CHECK_EQ_INT(slate_equal(&c, &b), 1);
  slate_free(&c);
  /* after clear: equal to an empty map */
  CHECK_EQ_INT(slate_clear(&a), SLATE_OK);
  CHECK_EQ_INT(slate(&c), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &c), 1);
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  slate_free(&a);
  slate_free(&b);
  slate_free(&c);

  /* the keyspaces are part of the key */
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_INT(slate(&b), SLATE_OK);
  CHECK_EQ_INT(slate_set_i64(&a, 5, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&b, 5, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  CHECK_EQ_INT(slate_clear(&a), SLATE_OK);
  CHECK_EQ_INT(slate_clear(&b), SLATE_OK);
  CHECK_EQ_INT(slate_set(&a, "x", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_set_bytes(&b, "x\0", 2, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  /* NULL value vs missing key at equal length */
  CHECK_EQ_INT(slate_clear(&a), SLATE_OK);
  CHECK_EQ_INT(slate_clear(&b), SLATE_OK);
  CHECK_EQ_INT(slate_set(&a, "k", NULL), SLATE_OK);
  CHECK_EQ_INT(slate_set(&a, "j", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&b, "k", NULL), SLATE_OK);
  CHECK_EQ_INT(slate_set(&b, "z", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &b), 0);
  /* a small map and a large (reserved) one with the same content */
  CHECK_EQ_INT(slate_clear(&a), SLATE_OK);
  slate_free(&b);
  CHECK_EQ_INT(slate(&b), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&b, 10000), SLATE_OK);
  for (uint64_t k = 0; k < 5; k++) {
    CHECK_EQ_INT(slate_set_u64(&a, k, V(k)), SLATE_OK);
    CHECK_EQ_INT(slate_set_u64(&b, k, V(k)), SLATE_OK);
  }
  CHECK_EQ_INT(slate_equal(&a, &b), 1);
  CHECK_EQ_INT(slate_equal(&b, &a), 1);
  slate_free(&a);
  slate_free(&b);
}

/* ------------------------------------------------------------------------ */
/* the small map: one bare group of 8 slots                                  */
/* ------------------------------------------------------------------------ */

static void test_small_map(void) {
  TEST_SECTION("small map");
  slate_s m;
  slate_info_s in;
  slate_table_info_s ti;
  uint64_t before = 0, after = 0;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (uint64_t k = 1; k <= 8; k++) {
    CHECK_EQ_INT(slate_set_u64(&m, k, V(u64_value(k))), SLATE_OK);
    in = info_of(&m);
    CHECK_EQ_INT(in.small, 1);
    CHECK_EQ_U64(in.capacity, 8);
    CHECK_EQ_INT(in.tables, 1);
    CHECK_EQ_INT(in.directory, 0);
    CHECK_EQ_U64(in.length, k);
  }
  verify_structure(&m, 1);
  /* a delete in the small map empties the slot: no tombstones */
  CHECK_EQ_INT(slate_table_ctrl(&m, 0, 0, &before), SLATE_OK);
  CHECK_EQ_INT(slate_delete_u64(&m, 3), SLATE_OK);
  CHECK_EQ_INT(slate_table_ctrl(&m, 0, 0, &after), SLATE_OK);
  {
    int changed = 0, to_empty = 0;
    for (int i = 0; i < 8; i++) {
      unsigned b0 = (unsigned)((before >> (8 * i)) & 0xFF), b1 = (unsigned)((after >> (8 * i)) & 0xFF);
      if (b0 != b1) {
        changed++;
        if (b0 < 0x80 && b1 == 0x80) to_empty++;
      }
    }
    CHECK_EQ_INT(changed, 1);
    CHECK_EQ_INT(to_empty, 1);
  }
  CHECK_EQ_U64(info_of(&m).tombstones, 0);
  CHECK_EQ_INT(slate_delete_u64(&m, 5), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 6);
  /* refilling to 8: never held more than 8, still small */
  CHECK_EQ_INT(slate_set_u64(&m, 100, V(u64_value(100))), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&m, 101, V(u64_value(101))), SLATE_OK);
  in = info_of(&m);
  CHECK_EQ_INT(in.small, 1);
  CHECK_EQ_U64(in.capacity, 8);
  CHECK_EQ_U64(in.length, 8);
  verify_structure(&m, 1);
  /* replacing a value keeps it small */
  CHECK_EQ_INT(slate_set_u64(&m, 100, V(u64_value(100))), SLATE_OK);
  CHECK_EQ_INT(info_of(&m).small, 1);
  /* the 9th entry: one table of 16 slots, a directory of 1 */
  CHECK_EQ_INT(slate_set_u64(&m, 102, V(u64_value(102))), SLATE_OK);
  in = info_of(&m);
  CHECK_EQ_INT(in.small, 0);
  CHECK_EQ_INT(in.tables, 1);
  CHECK_EQ_U64(in.capacity, 16);
  CHECK_EQ_INT(in.directory, 1);
  CHECK_EQ_INT(in.global_depth, 0);
  CHECK_EQ_U64(in.length, 9);
  CHECK_EQ_U64(in.tombstones, 0);
  memset(&ti, 0xA5, sizeof ti);
  CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
  CHECK_EQ_INT(ti.capacity, 16);
  CHECK_EQ_INT(ti.groups, 2);
  CHECK_EQ_INT(ti.local_depth, 0);
  CHECK_EQ_INT(ti.directory_first, 0);
  CHECK_EQ_INT(ti.directory_count, 1);
  CHECK_EQ_INT(ti.used, 9);
  CHECK_EQ_INT(ti.tombstones, 0);
  CHECK_EQ_INT(ti.growth_left, 14 - 9);
  CHECK_EQ_INT(slate_table_info(&m, 1, &ti), SLATE_ERROR_NOT_FOUND);
  verify_structure(&m, 1);
  CHECK_EQ_U64(missing_u64(&m, 1, 3, 1), 0);
  CHECK_EQ_U64(missing_u64(&m, 4, 5, 1), 0);
  CHECK_EQ_U64(missing_u64(&m, 6, 9, 1), 0);
  CHECK_EQ_U64(missing_u64(&m, 100, 103, 1), 0);
  CHECK_EQ_U64(present_u64(&m, 3, 4, 1), 0);
  CHECK_EQ_U64(present_u64(&m, 5, 6, 1), 0);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* growth to 100,000 entries: doubling, splits, directory doubling           */
/* ------------------------------------------------------------------------ */

#define MAX_SNAP_TABLES 4096
typedef struct snap_s {
  slate_info_s info;
  uint32_t n;
  slate_table_info_s t[MAX_SNAP_TABLES];
} snap_s;

static void take_snap(const slate_s* m, snap_s* s) {
  s->info = info_of(m);
  s->n = s->info.tables < MAX_SNAP_TABLES ? s->info.tables : MAX_SNAP_TABLES;
  for (uint32_t i = 0; i < s->n; i++) {
    memset(&s->t[i], 0, sizeof s->t[i]);
    if (slate_table_info(m, i, &s->t[i]) != SLATE_OK) {
      s->n = i;
      break;
    }
  }
}

typedef struct growth_stats_s {
  unsigned first_table;
  unsigned doublings;
  unsigned splits;
  unsigned directory_doublings;
  unsigned bad_transitions;
} growth_stats_s;

/* prev -> cur after one insert changed the shape of a map under a pure
 * insert workload: exactly one table doubled, or split (maybe doubling the
 * directory), or the small map became the first table. */
static void check_transition(const snap_s* prev, const snap_s* cur, growth_stats_s* st) {
  uint32_t t = 0;
  unsigned events = 0;
  structure_problems_ = 0;
  if (prev->info.tables == 0) {
    REQ(cur->info.small == 1 && cur->info.capacity == 8 && cur->info.tables == 1);
    events = 1;
  } else if (prev->info.small) {
    REQ(cur->info.small == 0);
    REQ(cur->info.tables == 1);
    REQ(cur->info.capacity == 16);
    REQ(cur->info.directory == 1);
    REQ(cur->info.global_depth == 0);
    REQ(cur->info.length == 9);
    st->first_table++;
    events = 1;
  } else {
    uint32_t g = cur->info.global_depth - prev->info.global_depth;
    uint32_t j = 0;
    REQ(cur->info.small == 0);
    REQ(cur->info.global_depth >= prev->info.global_depth);
    REQ(g <= 1);
    REQ(cur->n == cur->info.tables && prev->n == prev->info.tables);
    for (t = 0; t < prev->n && g <= 1; t++) {
      const slate_table_info_s* p = &prev->t[t];
      uint32_t first = p->directory_first << g, count = p->directory_count << g;
      if (j >= cur->n) {
        REQ(j < cur->n);
        break;
      }
      const slate_table_info_s* c = &cur->t[j];
      REQ(c->directory_first == first);
      if (c->directory_first != first) break;
      if (c->directory_count == count) {
        REQ(c->local_depth == p->local_depth);
        if (c->capacity == 2 * p->capacity) {
          uint32_t limit = p->capacity * 7 / 8;
          events++;
          st->doublings++;
          REQ(p->capacity < MAX_TABLE_SLOTS);
          REQ(c->tombstones == 0);
          REQ(c->used == limit || c->used == limit + 1);
        } else {
          REQ(c->capacity == p->capacity);
        }
        j++;
      } else if (c->directory_count * 2 == count && j + 1 < cur->n) {
        const slate_table_info_s* d = &cur->t[j + 1];
        events++;
        st->splits++;
        REQ(d->directory_first == first + count / 2);
        REQ(d->directory_count == count / 2);
        REQ(c->local_depth == p->local_depth + 1);
        REQ(d->local_depth == p->local_depth + 1);
        REQ(p->capacity == MAX_TABLE_SLOTS);
        REQ(c->used + d->used == MAX_TABLE_LOAD || c->used + d->used == MAX_TABLE_LOAD + 1);
        REQ(c->tombstones == 0 && d->tombstones == 0);
        if (g == 1) {
          REQ(p->local_depth == prev->info.global_depth);
          st->directory_doublings++;
        } else {
          REQ(p->local_depth < prev->info.global_depth);
        }
        j += 2;
      } else {
        int correspondence = 0;
        REQ(correspondence);
        break;
      }
    }
    REQ(j == cur->n);
  }
  REQ(events == 1);
  REQ(cur->info.memory > prev->info.memory);
  if (structure_problems_ != 0) st->bad_transitions++;
}

static snap_s snap_x, snap_y;

static void test_growth(void) {
  TEST_SECTION("growth to 100,000 entries");
  slate_s m;
  growth_stats_s st;
  snap_s* prev = &snap_x;
  snap_s* cur = &snap_y;
  const uint64_t total = 100000;
  uint64_t insert_errors = 0, load_violations = 0, checks_failed = 0, length_errors = 0;
  memset(&st, 0, sizeof st);
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  take_snap(&m, prev);
  for (uint64_t k = 0; k < total; k++) {
    if (slate_set_u64(&m, k, V(u64_value(k))) != SLATE_OK) insert_errors++;
    slate_info_s in;
    if (slate_info(&m, &in) != SLATE_OK) insert_errors++;
    if (in.length != k + 1) length_errors++;
    if (!in.small && in.length * 8 > in.capacity * 7) load_violations++;
    if (in.tables != prev->info.tables || in.capacity != prev->info.capacity ||
        in.directory != prev->info.directory || in.small != prev->info.small ||
        in.global_depth != prev->info.global_depth) {
      snap_s* tmp;
      take_snap(&m, cur);
      check_transition(prev, cur, &st);
      tmp = prev;
      prev = cur;
      cur = tmp;
    }
    uint64_t n = k + 1;
    if (n == 8 || n == 9 || n == 15 || n == 100 || n == 897 || n == 1000 || n == 2000 ||
        n == 5000 || n % 20000 == 0) {
      if (run_check(&m) != SLATE_OK) checks_failed++;
    }
    if (n == 9 || n == 1000 || n == 4000 || n == 30000 || n == total) verify_structure(&m, 1);
  }
  CHECK_EQ_U64(insert_errors, 0);
  CHECK_EQ_U64(length_errors, 0);
  CHECK_EQ_U64(load_violations, 0);
  CHECK_EQ_U64(checks_failed, 0);
  CHECK_EQ_INT(st.bad_transitions, 0);
  CHECK_EQ_INT(st.first_table, 1);
  CHECK(st.doublings >= 6); /* 16 -> 32 -> ... -> 1024 */
  CHECK(st.splits >= 100);
  CHECK(st.directory_doublings >= 6);
  fprintf(stderr, "   growth: %u doublings, %u splits, %u directory doublings\n", st.doublings,
          st.splits, st.directory_doublings);

  slate_info_s in = info_of(&m);
  CHECK_EQ_U64(in.length, total);
  CHECK_EQ_U64(slate_length(&m), total);
  CHECK(in.global_depth >= 7);
  CHECK(in.tables >= total / MAX_TABLE_LOAD);
  CHECK_EQ_U64(in.directory, (uint64_t)1 << in.global_depth);
  CHECK_EQ_U64(in.tombstones, 0);
  CHECK(in.capacity * 7 / 8 >= total);
  CHECK_EQ_U64(missing_u64(&m, 0, total, 1), 0);
  CHECK_EQ_U64(present_u64(&m, total, total + 1000, 1), 0);
  CHECK_EQ_U64(count_entries(&m), total);

  /* deleting returns no memory and keeps capacity; compact returns it */
  uint64_t bad = 0;
  for (uint64_t k = 0; k < total; k += 2)
    if (slate_delete_u64(&m, k) != SLATE_OK) bad++;
  CHECK_EQ_U64(bad, 0);
  slate_info_s half = info_of(&m);
  CHECK_EQ_U64(half.length, total / 2);
  CHECK_EQ_U64(half.capacity, in.capacity);
  CHECK_EQ_INT(half.tables, in.tables);
  CHECK_EQ_U64(half.memory, in.memory);
  CHECK_EQ_U64(missing_u64(&m, 1, total, 2), 0);
  CHECK_EQ_U64(present_u64(&m, 0, total, 2), 0);
  verify_structure(&m, 1);
  for (uint64_t k = 1; k < total; k += 2)
    if (k % 10 != 1 && slate_delete_u64(&m, k) != SLATE_OK) bad++;
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_U64(slate_length(&m), total / 10);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  slate_info_s compacted = info_of(&m);
  CHECK_EQ_U64(compacted.length, total / 10);
  CHECK(compacted.capacity < in.capacity);
  CHECK(compacted.memory < in.memory);
  CHECK(compacted.tables < in.tables);
  CHECK_EQ_U64(compacted.tombstones, 0);
  CHECK_EQ_U64(missing_u64(&m, 1, total, 10), 0);
  CHECK_EQ_U64(present_u64(&m, 0, total, 2), 0);
  CHECK_EQ_U64(present_u64(&m, 3, total, 10), 0);
  verify_structure(&m, 1);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* tombstones                                                                */
/* ------------------------------------------------------------------------ */

#define TS_GROUPS 16 /* a table of 128 slots */

static void read_ctrl(const slate_s* m, uint64_t* words, uint32_t groups) {
  for (uint32_t g = 0; g < groups; g++) {
    words[g] = 0;
    CHECK_EQ_INT(slate_table_ctrl(m, 0, g, &words[g]), SLATE_OK);
  }
}

/* the one byte that changed between two ctrl snapshots; -1 if not exactly one */
static int changed_byte(const uint64_t* a, const uint64_t* b, uint32_t groups, unsigned* old_b,
                        unsigned* new_b) {
  int where = -1, count = 0;
  for (uint32_t g = 0; g < groups; g++) {
    for (int i = 0; i < 8; i++) {
      unsigned x = (unsigned)((a[g] >> (8 * i)) & 0xFF), y = (unsigned)((b[g] >> (8 * i)) & 0xFF);
      if (x != y) {
        count++;
        where = (int)(g * 8 + (uint32_t)i);
        *old_b = x;
        *new_b = y;
      }
    }
  }
  return count == 1 ? where : -1;
}

static int group_has_empty(uint64_t word) {
  for (int i = 0; i < 8; i++)
    if (((word >> (8 * i)) & 0xFF) == 0x80) return 1;
  return 0;
}

static void test_tombstones(void) {
  TEST_SECTION("tombstones and direct empties");
  slate_s m;
  slate_table_info_s ti, t2;
  uint64_t before[TS_GROUPS], after[TS_GROUPS];
  uint64_t k = 0;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  /* fill one table of 128 slots to growth_left == 1 (111 entries) */
  for (;;) {
    CHECK_EQ_INT(slate_set_u64(&m, k, V(u64_value(k))), SLATE_OK);
    k++;
    slate_info_s in = info_of(&m);
    if (!in.small && in.tables == 1 && in.capacity == 128) {
      CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
      if (ti.growth_left <= 1) break;
    }
    if (k > 1000) break;
  }
  if (!CHECK_EQ_U64(k, 111)) {
    slate_free(&m);
    return;
  }
  CHECK_EQ_INT(ti.growth_left, 1);
  CHECK_EQ_INT(ti.used, 111);
  CHECK_EQ_INT(ti.groups, TS_GROUPS);

  /* delete 60 keys, classifying each delete */
  uint64_t tomb_keys[128];
  unsigned tomb_h2[128];
  int n_tomb = 0, n_empty = 0, bad = 0;
  for (uint64_t d = 0; d < 60; d++) {
    unsigned ob = 0, nb = 0;
    read_ctrl(&m, before, TS_GROUPS);
    CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
    if (slate_delete_u64(&m, d) != SLATE_OK) bad++;
    read_ctrl(&m, after, TS_GROUPS);
    CHECK_EQ_INT(slate_table_info(&m, 0, &t2), SLATE_OK);
    int at = changed_byte(before, after, TS_GROUPS, &ob, &nb);
    if (at < 0 || ob >= 0x80) {
      bad++;
      continue;
    }
    if (t2.used != ti.used - 1) bad++;
    if (group_has_empty(before[at / 8])) {
      n_empty++;
      if (nb != 0x80 || t2.growth_left != ti.growth_left + 1 || t2.tombstones != ti.tombstones)
        bad++;
    } else {
      if (nb != 0xFE || t2.growth_left != ti.growth_left || t2.tombstones != ti.tombstones + 1)
        bad++;
      tomb_keys[n_tomb] = d;
      tomb_h2[n_tomb] = ob;
      n_tomb++;
    }
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(n_tomb > 0);
  CHECK(n_empty > 0);
  CHECK_EQ_U64(info_of(&m).tombstones, n_tomb);
  fprintf(stderr, "   %d tombstones, %d direct empties\n", n_tomb, n_empty);
  verify_structure(&m, 1);

  /* reinserting a key whose delete left a tombstone reuses a tombstone */
  bad = 0;
  for (int i = 0; i < n_tomb; i++) {
    unsigned ob = 0, nb = 0;
    read_ctrl(&m, before, TS_GROUPS);
    CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
    if (slate_set_u64(&m, tomb_keys[i], V(u64_value(tomb_keys[i]))) != SLATE_OK) bad++;
    read_ctrl(&m, after, TS_GROUPS);
    CHECK_EQ_INT(slate_table_info(&m, 0, &t2), SLATE_OK);
    int at = changed_byte(before, after, TS_GROUPS, &ob, &nb);
    if (at < 0 || ob != 0xFE || nb != tomb_h2[i]) bad++;
    if (t2.tombstones != ti.tombstones - 1 || t2.growth_left != ti.growth_left ||
        t2.used != ti.used + 1 || t2.capacity != ti.capacity)
      bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(info_of(&m).tombstones, 0);
  CHECK_EQ_U64(missing_u64(&m, 60, 111, 1), 0);
  for (int i = 0; i < n_tomb; i++) CHECK_EQ_U64(missing_u64(&m, tomb_keys[i], tomb_keys[i] + 1, 1), 0);

  /* delete them again, then insert new keys: some land on tombstones */
  for (int i = 0; i < n_tomb; i++) CHECK_EQ_INT(slate_delete_u64(&m, tomb_keys[i]), SLATE_OK);
  slate_info_s in = info_of(&m);
  CHECK(in.tombstones > 0);
  int reused = 0, fresh = 0;
  bad = 0;
  uint64_t next = 1000000;
  for (int i = 0; i < 500; i++) {
    CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
    if (ti.tombstones == 0) break;
    if (slate_set_u64(&m, next, V(u64_value(next))) != SLATE_OK) bad++;
    next++;
    in = info_of(&m);
    if (in.tables != 1 || in.capacity != 128) {
      /* the table was rebuilt: growth drops tombstones */
      CHECK_EQ_U64(in.tombstones, 0);
      break;
    }
    CHECK_EQ_INT(slate_table_info(&m, 0, &t2), SLATE_OK);
    if (t2.tombstones == ti.tombstones - 1 && t2.growth_left == ti.growth_left)
      reused++;
    else if (t2.tombstones == ti.tombstones && t2.growth_left == ti.growth_left - 1)
      fresh++;
    else if (t2.tombstones == 0 && ti.growth_left <= 1)
      break; /* pruned in place */
    else
      bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(reused > 0);
  fprintf(stderr, "   new keys: %d reused a tombstone, %d took an empty slot\n", reused, fresh);
  verify_structure(&m, 1);

  /* keep inserting until the table grows: growth drops tombstones */
  for (uint64_t d = 60; d < 80; d++) CHECK_EQ_INT(slate_delete_u64(&m, d), SLATE_OK);
  uint64_t cap = info_of(&m).capacity;
  for (int i = 0; i < 2000; i++) {
    CHECK_EQ_INT(slate_set_u64(&m, next, V(u64_value(next))), SLATE_OK);
    next++;
    in = info_of(&m);
    if (in.capacity != cap) break;
  }
  CHECK(in.capacity > cap);
  CHECK_EQ_U64(in.tombstones, 0);
  CHECK_EQ_U64(missing_u64(&m, 80, 111, 1), 0);
  CHECK_EQ_U64(missing_u64(&m, 1000000, next, 1), 0);
  CHECK_EQ_U64(present_u64(&m, 0, 80, 1), 0);
  verify_structure(&m, 1);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* clear                                                                     */
/* ------------------------------------------------------------------------ */

static void test_clear(void) {
  TEST_SECTION("slate_clear");
  slate_s m;
  char buffer[96];
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 5000), 0);
  for (unsigned i = 0; i < 20; i++)
    CHECK_EQ_INT(slate_set(&m, long_key(buffer, sizeof buffer, i), V(i)), SLATE_OK);
  for (uint64_t k = 0; k < 5000; k += 3) CHECK_EQ_INT(slate_delete_u64(&m, k), SLATE_OK);
  slate_info_s a = info_of(&m);
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  slate_info_s b = info_of(&m);
  CHECK_EQ_U64(b.length, 0);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_U64(b.capacity, a.capacity);
  CHECK_EQ_INT(b.tables, a.tables);
  CHECK_EQ_INT(b.directory, a.directory);
  CHECK_EQ_INT(b.global_depth, a.global_depth);
  CHECK_EQ_INT(b.small, 0);
  CHECK_EQ_U64(b.tombstones, 0);
  CHECK_NE_U64(b.seed, a.seed);
  CHECK(b.memory <= a.memory);
  CHECK(b.memory > 0);
  CHECK_EQ_U64(count_entries(&m), 0);
  CHECK_EQ_U64(present_u64(&m, 0, 5000, 1), 0);
  CHECK_EQ_INT(slate_get(&m, long_key(buffer, sizeof buffer, 3), NULL), SLATE_ERROR_NOT_FOUND);
  verify_structure(&m, 1);
  /* refill */
  CHECK_EQ_U64(fill_u64(&m, 0, 5000), 0);
  CHECK_EQ_U64(slate_length(&m), 5000);
  CHECK_EQ_U64(missing_u64(&m, 0, 5000, 1), 0);
  verify_structure(&m, 0);
  /* clear twice */
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_U64(info_of(&m).capacity, a.capacity);
  slate_free(&m);

  /* a small map stays a small map */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 3), 0);
  a = info_of(&m);
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  b = info_of(&m);
  CHECK_EQ_U64(b.length, 0);
  CHECK_EQ_INT(b.small, 1);
  CHECK_EQ_U64(b.capacity, 8);
  CHECK_NE_U64(b.seed, a.seed);
  verify_structure(&m, 1);
  CHECK_EQ_U64(fill_u64(&m, 10, 18), 0);
  CHECK_EQ_INT(info_of(&m).small, 1);
  CHECK_EQ_U64(missing_u64(&m, 10, 18, 1), 0);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* compact                                                                   */
/* ------------------------------------------------------------------------ */

static void test_compact(void) {
  TEST_SECTION("slate_compact");
  slate_s m;
  char buffer[96];
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 20000), 0);
  for (uint64_t k = 0; k < 20000; k++)
    if (k % 200 != 0) CHECK_EQ_INT(slate_delete_u64(&m, k), SLATE_OK);
  slate_info_s a = info_of(&m);
  CHECK_EQ_U64(a.length, 100);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  slate_info_s b = info_of(&m);
  CHECK_EQ_U64(b.length, 100);
  CHECK(b.capacity < a.capacity);
  CHECK(b.memory < a.memory);
  CHECK(b.tables <= a.tables);
  CHECK_EQ_U64(b.tombstones, 0);
  CHECK(b.capacity * 7 / 8 >= 100);
  CHECK(b.capacity <= 512); /* rebuilt at the current size */
  CHECK_EQ_U64(missing_u64(&m, 0, 20000, 200), 0);
  CHECK_EQ_U64(present_u64(&m, 1, 20000, 200), 0);
  CHECK_EQ_U64(present_u64(&m, 137, 20000, 200), 0);
  verify_structure(&m, 1);
  /* compacting a compact map changes nothing */
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  slate_info_s c = info_of(&m);
  CHECK_EQ_U64(c.capacity, b.capacity);
  CHECK_EQ_U64(c.length, 100);
  CHECK_EQ_U64(missing_u64(&m, 0, 20000, 200), 0);
  /* and the map keeps working */
  CHECK_EQ_U64(fill_u64(&m, 20000, 23000), 0);
  CHECK_EQ_U64(missing_u64(&m, 20000, 23000, 1), 0);
  verify_structure(&m, 0);
  slate_free(&m);

  /* tombstones are dropped */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 3000), 0);
  for (uint64_t k = 0; k < 3000; k += 3) CHECK_EQ_INT(slate_delete_u64(&m, k), SLATE_OK);
  a = info_of(&m);
  CHECK(a.tombstones > 0);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  b = info_of(&m);
  CHECK_EQ_U64(b.tombstones, 0);
  CHECK_EQ_U64(b.length, 2000);
  CHECK(b.capacity <= a.capacity);
  CHECK_EQ_U64(missing_u64(&m, 1, 3000, 3), 0);
  CHECK_EQ_U64(missing_u64(&m, 2, 3000, 3), 0);
  CHECK_EQ_U64(present_u64(&m, 0, 3000, 3), 0);
  verify_structure(&m, 1);

  /* everything deleted */
  for (uint64_t k = 0; k < 3000; k++)
    if (k % 3 != 0) CHECK_EQ_INT(slate_delete_u64(&m, k), SLATE_OK);
  a = info_of(&m);
  CHECK_EQ_U64(a.length, 0);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  b = info_of(&m);
  CHECK_EQ_U64(b.length, 0);
  CHECK(b.capacity < a.capacity);
  CHECK(b.memory < a.memory);
  verify_structure(&m, 1);
  CHECK_EQ_INT(slate_set(&m, "after", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "after", NULL), SLATE_OK);
  slate_free(&m);

  /* long keys: their copies stay with the entries */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (unsigned i = 0; i < 500; i++)
    CHECK_EQ_INT(slate_set(&m, long_key(buffer, sizeof buffer, i), V(i + 1)), SLATE_OK);
  for (unsigned i = 0; i < 500; i++)
    if (i % 10) CHECK_EQ_INT(slate_delete(&m, long_key(buffer, sizeof buffer, i)), SLATE_OK);
  a = info_of(&m);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  b = info_of(&m);
  CHECK(b.memory < a.memory);
  CHECK_EQ_U64(b.length, 50);
  {
    int bad = 0;
    for (unsigned i = 0; i < 500; i += 10) {
      void* v = NULL;
      if (slate_get(&m, long_key(buffer, sizeof buffer, i), &v) != SLATE_OK || v != V(i + 1))
        bad++;
    }
    CHECK_EQ_INT(bad, 0);
  }
  verify_structure(&m, 1);
  slate_free(&m);

  /* small map */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 5), 0);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 5);
  CHECK_EQ_U64(missing_u64(&m, 0, 5, 1), 0);
  verify_structure(&m, 1);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* clone                                                                     */
/* ------------------------------------------------------------------------ */

static void compare_clone_shape(const slate_s* a, const slate_s* b) {
  slate_info_s x = info_of(a), y = info_of(b);
  CHECK_EQ_U64(y.length, x.length);
  CHECK_EQ_U64(y.seed, x.seed);
  CHECK_EQ_U64(y.capacity, x.capacity);
  CHECK_EQ_U64(y.tombstones, x.tombstones);
  CHECK_EQ_INT(y.global_depth, x.global_depth);
  CHECK_EQ_INT(y.tables, x.tables);
  CHECK_EQ_INT(y.directory, x.directory);
  CHECK_EQ_INT(y.small, x.small);
  CHECK(y.memory <= x.memory || x.memory == 0);
  int bad = 0;
  for (uint32_t t = 0; t < x.tables && t < y.tables; t++) {
    slate_table_info_s p, q;
    memset(&p, 0, sizeof p);
    memset(&q, 0, sizeof q);
    if (slate_table_info(a, t, &p) != SLATE_OK || slate_table_info(b, t, &q) != SLATE_OK) {
      bad++;
      continue;
    }
    if (memcmp(&p, &q, sizeof p) != 0) bad++;
    for (uint32_t g = 0; g < p.groups; g++) {
      uint64_t u = 1, w = 2;
      if (slate_table_ctrl(a, t, g, &u) != SLATE_OK || slate_table_ctrl(b, t, g, &w) != SLATE_OK ||
          u != w)
        bad++;
    }
  }
  CHECK_MSG(bad == 0, "clone has the same tables and control bytes (no rehash)");
}

static void test_clone(void) {
  TEST_SECTION("slate_clone");
  slate_s src, cp;
  char buffer[96];
  void* v = NULL;
  CHECK_EQ_INT(slate(&src), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&src, 0, 3000), 0);
  for (unsigned i = 0; i < 30; i++) {
    CHECK_EQ_INT(slate_set(&src, long_key(buffer, sizeof buffer, i), V(70000 + i)), SLATE_OK);
    CHECK_EQ_INT(slate_set_i64(&src, -(int64_t)i - 1, V(80000 + i)), SLATE_OK);
  }
  for (uint64_t k = 0; k < 3000; k += 6) CHECK_EQ_INT(slate_delete_u64(&src, k), SLATE_OK);
  uint64_t length = slate_length(&src);
  CHECK_EQ_U64(length, 3000 - 500 + 60);

  memset(&cp, 0xAB, sizeof cp);
  CHECK_EQ_INT(slate_clone(&cp, &src), SLATE_OK);
  CHECK_EQ_U64(slate_length(&cp), length);
  CHECK_EQ_INT(slate_equal(&cp, &src), 1);
  CHECK_EQ_INT(slate_equal(&src, &cp), 1);
  compare_clone_shape(&src, &cp);
  verify_structure(&cp, 1);

  /* the same iteration order, from different key copies */
  collect_s a = collect(&src), b = collect(&cp);
  CHECK(same_order(&a, &b));
  {
    /* Stored keys are the clone's own copies. (An integer table keeps
       integer keys as values and shows each one to the callback from a
       buffer of that call, so only the other keys are compared.) */
    int shared = 0, compared = 0;
    for (size_t i = 0; i < a.n && i < b.n && i < a.capacity; i++) {
      if (a.recs[i].length == 10 && a.recs[i].bytes[0] == 0) continue;
      compared++;
      if (a.recs[i].key_pointer == b.recs[i].key_pointer) shared++;
    }
    CHECK_EQ_INT(compared, 30);
    CHECK_EQ_INT(shared, 0);
  }
  free(a.recs);
  free(b.recs);

  /* independence both ways */
  CHECK_EQ_INT(slate_set(&cp, "only-in-copy", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_delete_u64(&cp, 1), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&cp, 2, V(0)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&cp, long_key(buffer, sizeof buffer, 0)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&src), length);
  CHECK_EQ_INT(slate_get(&src, "only-in-copy", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_u64(&src, 1, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(u64_value(1)));
  CHECK_EQ_INT(slate_get_u64(&src, 2, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(u64_value(2)));
  CHECK_EQ_INT(slate_get(&src, long_key(buffer, sizeof buffer, 0), &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(70000));
  CHECK_EQ_INT(slate_equal(&cp, &src), 0);
  CHECK_EQ_U64(fill_u64(&src, 10000, 12000), 0);
  CHECK_EQ_INT(slate_delete_u64(&src, 3), SLATE_OK);
  CHECK_EQ_INT(slate_get_u64(&cp, 10000, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_u64(&cp, 3, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(u64_value(3)));
  /* the copy survives the source */
  slate_free(&src);
  CHECK_EQ_U64(slate_length(&cp), length - 1);
  {
    uint64_t bad = 0;
    for (uint64_t k = 3; k < 3000; k++) {
      int want = (k % 6 == 0 || k == 1) ? SLATE_ERROR_NOT_FOUND : SLATE_OK;
      v = NULL;
      int rc = slate_get_u64(&cp, k, &v);
      if (rc != want) bad++;
      if (rc == SLATE_OK && v != V(u64_value(k))) bad++;
    }
    for (unsigned i = 1; i < 30; i++) {
      v = NULL;
      if (slate_get(&cp, long_key(buffer, sizeof buffer, i), &v) != SLATE_OK || v != V(70000 + i))
        bad++;
      if (slate_get_i64(&cp, -(int64_t)i - 1, &v) != SLATE_OK || v != V(80000 + i)) bad++;
    }
    CHECK_EQ_U64(bad, 0);
  }
  verify_structure(&cp, 1);

  /* a freed map is a valid clone destination; clone of the clone */
  CHECK_EQ_INT(slate_clone(&src, &cp), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&src, &cp), 1);
  compare_clone_shape(&cp, &src);
  slate_free(&src);
  slate_free(&cp);

  /* small and empty maps */
  CHECK_EQ_INT(slate(&src), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&src, 0, 6), 0);
  memset(&cp, 0x11, sizeof cp);
  CHECK_EQ_INT(slate_clone(&cp, &src), SLATE_OK);
  compare_clone_shape(&src, &cp);
  a = collect(&src);
  b = collect(&cp);
  CHECK(same_order(&a, &b));
  free(a.recs);
  free(b.recs);
  CHECK_EQ_INT(slate_set_u64(&cp, 100, V(1)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&src), 6);
  CHECK_EQ_INT(slate_get_u64(&src, 100, NULL), SLATE_ERROR_NOT_FOUND);
  slate_free(&cp);
  CHECK_EQ_INT(slate_clear(&src), SLATE_OK);
  CHECK_EQ_INT(slate_clone(&cp, &src), SLATE_OK);
  CHECK_EQ_U64(slate_length(&cp), 0);
  compare_clone_shape(&src, &cp);
  slate_free(&cp);
  slate_free(&src);
  CHECK_EQ_INT(slate_clone(&cp, &src), SLATE_OK); /* of a freed map */
  CHECK_EQ_U64(slate_length(&cp), 0);
  CHECK_EQ_INT(slate_set(&cp, "x", V(1)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&src), 0);
  slate_free(&cp);

  /* a cleared big map: capacity is cloned too */
  CHECK_EQ_INT(slate(&src), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&src, 0, 2000), 0);
  CHECK_EQ_INT(slate_clear(&src), SLATE_OK);
  CHECK_EQ_INT(slate_clone(&cp, &src), SLATE_OK);
  compare_clone_shape(&src, &cp);
  slate_free(&cp);
  slate_free(&src);
}

/* ------------------------------------------------------------------------ */
/* free                                                                      */
/* ------------------------------------------------------------------------ */

static void test_free(void) {
  TEST_SECTION("slate_free");
  slate_s m;
  char buffer[96];
  void* v = NULL;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 2000), 0);
  for (unsigned i = 0; i < 20; i++)
    CHECK_EQ_INT(slate_set(&m, long_key(buffer, sizeof buffer, i), V(i)), SLATE_OK);
  slate_free(&m);
  slate_info_s in = info_of(&m);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_U64(in.length, 0);
  CHECK_EQ_U64(in.capacity, 0);
  CHECK_EQ_U64(in.memory, 0);
  CHECK_EQ_U64(in.tombstones, 0);
  CHECK_EQ_INT(in.tables, 0);
  CHECK_EQ_INT(in.directory, 0);
  CHECK_EQ_INT(in.small, 0);
  verify_structure(&m, 1);
  CHECK_EQ_U64(present_u64(&m, 0, 100, 1), 0);
  CHECK_EQ_INT(slate_get(&m, long_key(buffer, sizeof buffer, 1), NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(count_entries(&m), 0);
  /* usable again */
  CHECK_EQ_INT(slate_set(&m, "again", V(5)), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "again", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(5));
  CHECK_EQ_U64(slate_length(&m), 1);
  slate_free(&m);
  slate_free(&m); /* twice: harmless */
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_INT(slate_reserve(&m, 100), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 100), 0);
  CHECK_EQ_U64(missing_u64(&m, 0, 100, 1), 0);
  slate_free(&m);
  /* free right after slate() */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  slate_free(&m);
  slate_free(&m);
  CHECK_EQ_INT(slate_equal(&m, &m), 1);
  CHECK_MAP_OK(&m);
}

/* ------------------------------------------------------------------------ */
/* reserve                                                                   */
/* ------------------------------------------------------------------------ */

static uint64_t reserved_room(const slate_s* m) {
  slate_info_s in = info_of(m);
  if (in.small) return 8;
  uint64_t room = 0;
  for (uint32_t t = 0; t < in.tables; t++) {
    slate_table_info_s ti;
    if (slate_table_info(m, t, &ti) == SLATE_OK) room += ti.growth_left + ti.used;
  }
  return room;
}

static void same_info(const slate_info_s* a, const slate_info_s* b, int with_seed) {
  CHECK_EQ_U64(b->length, a->length);
  CHECK_EQ_U64(b->capacity, a->capacity);
  CHECK_EQ_U64(b->tombstones, a->tombstones);
  CHECK_EQ_U64(b->memory, a->memory);
  CHECK_EQ_INT(b->global_depth, a->global_depth);
  CHECK_EQ_INT(b->tables, a->tables);
  CHECK_EQ_INT(b->directory, a->directory);
  CHECK_EQ_INT(b->small, a->small);
  if (with_seed) CHECK_EQ_U64(b->seed, a->seed);
}

static void test_reserve(void) {
  TEST_SECTION("slate_reserve");
  static const uint64_t sizes[] = {1, 5, 8, 9, 14, 100, 896, 1000, 10000, 40000};
  slate_s m;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    uint64_t n = sizes[i];
    CHECK_EQ_INT(slate(&m), SLATE_OK);
    CHECK_EQ_INT(slate_reserve(&m, n), SLATE_OK);
    CHECK_EQ_U64(slate_length(&m), 0);
    slate_info_s a = info_of(&m);
    CHECK(a.capacity >= n);
    CHECK(reserved_room(&m) >= n);
    verify_structure(&m, 0);
    CHECK_EQ_U64(fill_u64(&m, 0, n), 0);
    slate_info_s b = info_of(&m);
    CHECK_EQ_U64(b.length, n);
    CHECK_EQ_U64(b.capacity, a.capacity);
    CHECK_EQ_INT(b.tables, a.tables);
    CHECK_EQ_INT(b.directory, a.directory);
    CHECK_EQ_U64(missing_u64(&m, 0, n, 1), 0);
    verify_structure(&m, 0);
    slate_free(&m);
  }

  /* reserve on a populated map keeps the entries */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 500), 0);
  CHECK_EQ_INT(slate_set(&m, "a-string-key-longer-than-the-inline-limit", V(9)), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&m, 5000), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 501);
  CHECK_EQ_U64(missing_u64(&m, 0, 500, 1), 0);
  CHECK_EQ_INT(slate_get(&m, "a-string-key-longer-than-the-inline-limit", NULL), SLATE_OK);
  CHECK(reserved_room(&m) >= 5000);
  verify_structure(&m, 1);
  slate_info_s a = info_of(&m);
  CHECK_EQ_U64(fill_u64(&m, 500, 4999), 0);
  slate_info_s b = info_of(&m);
  CHECK_EQ_U64(b.capacity, a.capacity);
  CHECK_EQ_INT(b.tables, a.tables);
  CHECK_EQ_U64(b.length, 5000);
  /* a smaller reserve is a no-op */
  CHECK_EQ_INT(slate_reserve(&m, 10), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&m, 0), SLATE_OK);
  slate_info_s c = info_of(&m);
  same_info(&b, &c, 1);

  /* sizes that cannot exist: FULL or ALLOC, and nothing changes */
  static const uint64_t impossible[] = {UINT64_MAX, UINT64_MAX - 1, (uint64_t)1 << 63,
                                        UINT64_MAX / 2};
  for (size_t i = 0; i < sizeof impossible / sizeof impossible[0]; i++) {
    int rc = slate_reserve(&m, impossible[i]);
    CHECK(rc == SLATE_ERROR_FULL || rc == SLATE_ERROR_ALLOC);
    slate_info_s d = info_of(&m);
    same_info(&b, &d, 1);
  }
  CHECK_EQ_U64(missing_u64(&m, 0, 4999, 1), 0);
  CHECK_EQ_INT(slate_get(&m, "a-string-key-longer-than-the-inline-limit", NULL), SLATE_OK);
  verify_structure(&m, 1);
  slate_free(&m);

  CHECK_EQ_INT(slate(&m), SLATE_OK);
  {
    int rc = slate_reserve(&m, UINT64_MAX);
    CHECK(rc == SLATE_ERROR_FULL || rc == SLATE_ERROR_ALLOC);
    slate_info_s e = info_of(&m);
    CHECK_EQ_U64(e.capacity, 0);
    CHECK_EQ_U64(e.memory, 0);
    CHECK_EQ_INT(e.tables, 0);
  }
  CHECK_EQ_U64(fill_u64(&m, 0, 3), 0);
  {
    slate_info_s e = info_of(&m);
    int rc = slate_reserve(&m, UINT64_MAX);
    CHECK(rc == SLATE_ERROR_FULL || rc == SLATE_ERROR_ALLOC);
    slate_info_s f = info_of(&m);
    same_info(&e, &f, 1);
  }
  CHECK_EQ_U64(missing_u64(&m, 0, 3, 1), 0);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* moving a map with memcpy                                                  */
/* ------------------------------------------------------------------------ */

typedef struct holder_s {
  char pad[3];
  slate_s map;
  int tail;
} holder_s;

static void test_memcpy_move(void) {
  TEST_SECTION("memcpy-moving a map");
  slate_s a;
  char buffer[96];
  void* v = NULL;
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&a, 0, 3000), 0);
  for (unsigned i = 0; i < 20; i++)
    CHECK_EQ_INT(slate_set(&a, long_key(buffer, sizeof buffer, i), V(i + 1)), SLATE_OK);
  collect_s before = collect(&a);

  slate_s* heap = (slate_s*)malloc(sizeof(slate_s));
  memcpy(heap, &a, sizeof a);
  memset(&a, 0xEE, sizeof a);
  CHECK_EQ_U64(slate_length(heap), 3020);
  CHECK_EQ_U64(missing_u64(heap, 0, 3000, 1), 0);
  collect_s moved = collect(heap);
  CHECK(same_order(&before, &moved));
  free(moved.recs);
  CHECK_EQ_U64(fill_u64(heap, 3000, 6000), 0);
  CHECK_EQ_INT(slate_delete_u64(heap, 0), SLATE_OK);
  CHECK_MAP_OK(heap);

  holder_s* h = (holder_s*)malloc(sizeof(holder_s));
  memcpy(&h->map, heap, sizeof(slate_s));
  memset(heap, 0x77, sizeof(slate_s));
  free(heap);
  CHECK_EQ_U64(slate_length(&h->map), 6019);
  CHECK_EQ_U64(missing_u64(&h->map, 1, 6000, 1), 0);
  CHECK_EQ_INT(slate_get(&h->map, long_key(buffer, sizeof buffer, 7), &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(8));
  CHECK_EQ_INT(slate_compact(&h->map), SLATE_OK);
  verify_structure(&h->map, 0);
  memcpy(&a, &h->map, sizeof a);
  free(h);
  CHECK_EQ_U64(missing_u64(&a, 1, 6000, 1), 0);
  slate_free(&a);
  free(before.recs);

  /* a small map, an empty map and a freed map move the same way */
  slate_s s, t;
  CHECK_EQ_INT(slate(&s), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&s, 0, 4), 0);
  memcpy(&t, &s, sizeof s);
  memset(&s, 0, sizeof s);
  CHECK_EQ_U64(missing_u64(&t, 0, 4, 1), 0);
  CHECK_EQ_U64(fill_u64(&t, 4, 20), 0);
  CHECK_EQ_U64(missing_u64(&t, 0, 20, 1), 0);
  slate_free(&t);
  memcpy(&s, &t, sizeof s);
  CHECK_EQ_U64(slate_length(&s), 0);
  CHECK_EQ_U64(fill_u64(&s, 0, 4), 0);
  slate_free(&s);
}

/* ------------------------------------------------------------------------ */
/* seeds                                                                     */
/* ------------------------------------------------------------------------ */

static void test_seeds(void) {
  TEST_SECTION("seeds");
  enum { MAPS = 64 };
  static slate_s maps[MAPS];
  uint64_t seeds[MAPS];
  for (int i = 0; i < MAPS; i++) {
    CHECK_EQ_INT(slate(&maps[i]), SLATE_OK);
    CHECK_EQ_INT(slate_set_u64(&maps[i], 1, V(1)), SLATE_OK);
    seeds[i] = info_of(&maps[i]).seed;
  }
  int duplicates = 0;
  for (int i = 0; i < MAPS; i++)
    for (int j = i + 1; j < MAPS; j++)
      if (seeds[i] == seeds[j]) duplicates++;
  CHECK_EQ_INT(duplicates, 0);
  for (int i = 0; i < MAPS; i++) slate_free(&maps[i]);

  /* a map that becomes empty takes a fresh seed */
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "one", V(1)), SLATE_OK);
  uint64_t s1 = info_of(&m).seed;
  CHECK_EQ_INT(slate_set(&m, "two", V(2)), SLATE_OK);
  CHECK_EQ_U64(info_of(&m).seed, s1);
  CHECK_EQ_INT(slate_delete(&m, "one"), SLATE_OK);
  CHECK_EQ_U64(info_of(&m).seed, s1);
  CHECK_EQ_INT(slate_delete(&m, "two"), SLATE_OK);
  uint64_t s2 = info_of(&m).seed;
  CHECK_NE_U64(s2, s1);
  /* ... also a big one */
  CHECK_EQ_U64(fill_u64(&m, 0, 2000), 0);
  uint64_t s3 = info_of(&m).seed;
  for (uint64_t k = 0; k < 1999; k++) CHECK_EQ_INT(slate_delete_u64(&m, k), SLATE_OK);
  CHECK_EQ_U64(info_of(&m).seed, s3);
  CHECK_EQ_INT(slate_delete_u64(&m, 1999), SLATE_OK);
  CHECK_NE_U64(info_of(&m).seed, s3);
  CHECK_EQ_U64(slate_length(&m), 0);
  verify_structure(&m, 1);
  CHECK_EQ_U64(fill_u64(&m, 0, 2000), 0);
  CHECK_EQ_U64(missing_u64(&m, 0, 2000, 1), 0);
  verify_structure(&m, 0);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* slate_check on a corrupted copy of a map                                  */
/* ------------------------------------------------------------------------ */

static void test_check_reports(void) {
  TEST_SECTION("slate_check reports a broken map");
  slate_s m;
  const uint64_t n = 12345;
  memset(&m, 0, sizeof m); /* slate() need not write every private byte */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, n), 0);
  char message[256];
  CHECK_EQ_INT(slate_check(&m, message, (uint32_t)sizeof message), SLATE_OK);

  /* find the length field in the struct by its value; corrupt a copy */
  unsigned char bytes[sizeof(slate_s)];
  memcpy(bytes, &m, sizeof m);
  size_t where = 0;
  int found = 0;
  for (size_t off = 0; off + 8 <= sizeof bytes; off += 4) {
    uint64_t x;
    memcpy(&x, bytes + off, 8);
    if (x == n) {
      found++;
      where = off;
    }
  }
  if (found == 1) {
    uint64_t wrong = n + 1;
    slate_s broken;
    memcpy(bytes + where, &wrong, 8);
    memcpy(&broken, bytes, sizeof broken);
    memset(message, 0, sizeof message);
    CHECK_EQ_INT(slate_check(&broken, message, (uint32_t)sizeof message), SLATE_ERROR_INVALID);
    CHECK(message[0] != '\0');
    fprintf(stderr, "   slate_check says: %s\n", message);
    /* truncated to the capacity and NUL-terminated */
    memset(message, 'x', sizeof message);
    CHECK_EQ_INT(slate_check(&broken, message, 5), SLATE_ERROR_INVALID);
    CHECK(memchr(message, '\0', 5) != NULL);
    CHECK_EQ_INT(message[5], 'x');
    memset(message, 'x', sizeof message);
    CHECK_EQ_INT(slate_check(&broken, message, 1), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(message[0], '\0');
    CHECK_EQ_INT(message[1], 'x');
    CHECK_EQ_INT(slate_check(&broken, NULL, 0), SLATE_ERROR_INVALID);
    /* `broken` shares m's memory: it is never freed */
  } else {
    fprintf(stderr, "   (length field not located in slate_s: corruption test skipped)\n");
  }
  CHECK_MAP_OK(&m);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */

/* slate_table_ctrls returns, in one call, exactly the words slate_table_ctrl
   returns one group at a time; and the walk order is the layout's. */
static void test_table_ctrls(void) {
  TEST_SECTION("slate_table_ctrls and the walk order");
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  uint64_t words[128];
  CHECK_EQ_INT(slate_table_ctrls(&m, 0, words, 1), SLATE_ERROR_NOT_FOUND); /* no table yet */
  for (uint64_t i = 0; i < 5000; i++) slate_set_u64(&m, i * 2654435761u, (void*)(uintptr_t)(i + 1));
  slate_info_s in = info_of(&m);
  CHECK(in.tables > 1);
  int same = 1;
  uint64_t full = 0;
  for (uint32_t t = 0; t < in.tables; t++) {
    slate_table_info_s ti;
    if (slate_table_info(&m, t, &ti) != SLATE_OK) { same = 0; break; }
    if (slate_table_ctrls(&m, t, words, ti.groups) != SLATE_OK) { same = 0; break; }
    for (uint32_t g = 0; g < ti.groups; g++) {
      uint64_t one = 0;
      if (slate_table_ctrl(&m, t, g, &one) != SLATE_OK || one != words[g]) same = 0;
      for (int b = 0; b < 8; b++) full += ((words[g] >> (8 * b)) & 0x80) == 0;
    }
    if (t == 0) {
      CHECK_EQ_INT(slate_table_ctrls(&m, t, words, ti.groups + 1), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slate_table_ctrls(&m, t, NULL, 1), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slate_table_ctrls(&m, t, words, 0), SLATE_OK);
    }
  }
  CHECK(same);
  CHECK_EQ_U64(full, slate_length(&m));
  CHECK_EQ_INT(slate_table_ctrls(&m, in.tables, words, 1), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_table_ctrls(NULL, 0, words, 1), SLATE_ERROR_INVALID);
  slate_free(&m);
}

/* Records the bytes of the one key a walk sees. */
typedef struct one_key_s {
  unsigned char bytes[16];
  uint32_t length, calls;
} one_key_s;

static int one_key_cb(const char* key, uint32_t key_length, void* value, void* data) {
  one_key_s* k = (one_key_s*)data;
  (void)value;
  k->calls++;
  k->length = key_length;
  if (key_length <= sizeof k->bytes) memcpy(k->bytes, key, key_length);
  return 0;
}

static void test_sizes_and_limits(void) {
  TEST_SECTION("sizes and limits: the same meaning on 32- and 64-bit targets");
  /* The structs are the same size everywhere (their fields are u64s), so a
   * struct embedding them has one layout on wasm32, i686 and x86-64. */
  CHECK_EQ_U64(sizeof(slate_s), 64);
  CHECK_EQ_U64(sizeof(slotmap_s), 192);
  CHECK_EQ_U64(sizeof(slotmap_key), 8);
  /* An integer key is the same 10 bytes on every target: little-endian. */
  slate_s m;
  one_key_s k;
  const unsigned char want[10] = {0x00, 0x02, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&m, UINT64_C(0x0102030405060708), V(1)), SLATE_OK);
  memset(&k, 0, sizeof k);
  CHECK_EQ_INT(slate_each(&m, one_key_cb, &k), SLATE_OK);
  CHECK_EQ_INT(k.calls, 1);
  CHECK_EQ_INT(k.length, 10);
  CHECK_EQ_MEM(k.bytes, want, 10);
  CHECK_EQ_INT(slate_get_bytes(&m, want, 10, NULL), SLATE_OK);

  /* Sizes no memory can hold are errors that change nothing, never a size
   * that wrapped around to a small allocation. 2^31 rows of 4 GiB each pass
   * every address space. */
  slotmap_s sm;
  uint32_t e = 5;
  slotmap_key key = 0;
  CHECK_EQ_INT(slotmap(&sm, UINT32_MAX), SLATE_OK);
  CHECK_EQ_INT(slotmap_reserve(&sm, UINT32_C(1) << 31), SLATE_ERROR_FULL);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  slotmap_free(&sm);
  /* 2^31 rows of 1 MiB: no allocator has 2 PiB (FULL where the address
   * space is smaller). */
  CHECK_EQ_INT(slotmap(&sm, UINT32_C(1) << 20), SLATE_OK);
  int rc = slotmap_reserve(&sm, UINT32_C(1) << 31);
  CHECK(rc == SLATE_ERROR_FULL || rc == SLATE_ERROR_ALLOC);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  slotmap_free(&sm);
  CHECK_EQ_INT(slotmap(&sm, sizeof e), SLATE_OK);
  CHECK_EQ_INT(slotmap_insert(&sm, &e, &key), SLATE_OK);
  CHECK_EQ_INT(slotmap_contains(&sm, key), 1);
  slotmap_free(&sm);
#if defined(__linux__) || SIZE_MAX <= UINT32_MAX
  /* Maps of 2^34 and 2^41 entries (tables of 860 GB and 56 PB) exceed this
   * machine's memory (Linux tells it) or address space: SLATE_ERROR_FULL
   * before anything is allocated, rather than table after table until an
   * overcommitting system kills the process. */
  for (int shift = 34; shift <= 41; shift += 7) {
    slate_info_s was = info_of(&m);
    CHECK_EQ_INT(slate_reserve(&m, UINT64_C(1) << shift), SLATE_ERROR_FULL);
    CHECK_EQ_U64(info_of(&m).memory, was.memory);
    CHECK_EQ_U64(info_of(&m).capacity, was.capacity);
  }
#endif
#if SIZE_MAX <= UINT32_MAX
  /* 32-bit targets: 2^32 entries' tables (2^23 of them, 200 GB) and a
   * slotmap's first block of 1 GiB rows (8 GiB) exceed the address space. */
  slate_info_s before = info_of(&m);
  CHECK_EQ_INT(slate_reserve(&m, UINT64_C(1) << 32), SLATE_ERROR_FULL);
  CHECK_EQ_U64(info_of(&m).memory, before.memory);
  CHECK_EQ_U64(info_of(&m).capacity, before.capacity);
  CHECK_EQ_INT(slotmap(&sm, UINT32_C(1) << 30), SLATE_OK);
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &key), SLATE_ERROR_FULL);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  slotmap_free(&sm);
#endif
  CHECK_EQ_U64(slate_length(&m), 1);
  slate_free(&m);
}

static void test_version(void) {
  TEST_SECTION("version");
  /* The library's version is the header's, and the header's string is
   * made of its three numbers. */
  const char* v = slate_version();
  CHECK(v != NULL);
  CHECK_EQ_STR(v, SLATE_VERSION_STRING);
  char parts[64];
  snprintf(parts, sizeof parts, "%d.%d.%d", SLATE_VERSION_MAJOR, SLATE_VERSION_MINOR,
           SLATE_VERSION_PATCH);
  CHECK_EQ_STR(parts, SLATE_VERSION_STRING);
  CHECK(slate_version() == v); /* static: the same string every time */
}

int main(void) {
  test_version();
  test_sizes_and_limits();
  test_init_and_empty();
  test_invalid_arguments();
  test_string_keys();
  test_byte_keys();
  test_keyspaces();
  test_integer_tables();
  test_each();
  test_merge();
  test_reentrancy();
  test_reinit_inside_walk();
  test_delete_if();
  test_equal();
  test_small_map();
  test_growth();
  test_tombstones();
  test_clear();
  test_compact();
  test_clone();
  test_free();
  test_reserve();
  test_memcpy_move();
  test_seeds();
  test_check_reports();
  test_table_ctrls();
  return TEST_SUMMARY();
}
