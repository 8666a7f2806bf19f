/* map/api: the three keyspaces, the integer encoding, and the integer
 * tables (16-byte slots while every key is one integer kind). */
#include "api.h"

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

void test_integer_tables(void) {
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

void test_keyspaces(void) {
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
