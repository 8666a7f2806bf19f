/*
 * abi/generic.c -- slate-generic.h: every accepted key type reaches the right
 * keyspace through SLATE_SET / SLATE_GET / SLATE_DELETE.
 *
 * The same file is compiled as C11 and as C++17:
 *   gcc -std=c11 -Wall -Wextra -Werror -Iinclude c-tests/abi/generic.c     \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tg && /tmp/tg
 *   g++ -std=c++17 -x c++ -Wall -Wextra -Werror -Iinclude c-tests/abi/generic.c \
 *       -x none target/release/libslate.a -lpthread -ldl -lm -o /tmp/tgpp && /tmp/tgpp
 *
 * Every check goes the other way round too: a key written through a macro is
 * read back with the explicit function of the expected keyspace (slate_get,
 * slate_get_i64, slate_get_u64) and is absent from the other two, and a key
 * written with an explicit function is read and deleted through the macros.
 * Finally slate_each shows the raw key bytes, which must carry the keyspace
 * tag of SPEC section 3 (00 01 = i64, 00 02 = u64, little-endian value).
 */
#include "slate-generic.h"
#include "../support/test.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define V(n) ((void*)(uintptr_t)(n))

/* The key is in the i64 keyspace with the value `expect`, and nowhere else. */
static void expect_i64(const slate_s* m, int64_t key, uintptr_t expect) {
  void* v = NULL;
  CHECK_EQ_INT(slate_get_i64(m, key, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(expect));
  CHECK_EQ_INT(slate_get_u64(m, (uint64_t)key, NULL), SLATE_ERROR_NOT_FOUND);
}

/* The key is in the u64 keyspace with the value `expect`, and nowhere else. */
static void expect_u64(const slate_s* m, uint64_t key, uintptr_t expect) {
  void* v = NULL;
  CHECK_EQ_INT(slate_get_u64(m, key, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(expect));
  CHECK_EQ_INT(slate_get_i64(m, (int64_t)key, NULL), SLATE_ERROR_NOT_FOUND);
}

/* One signed type: set through the macro, check with the explicit i64 calls,
 * get through the macro, delete through the macro. */
/* One key type through every macro; KIND is i64 or u64, KT its C type. */
#define ROUND_TRIP(KIND, KT, T, k, n)                                           \
  do {                                                                       \
    slate_s m_;                                                              \
    void* v_ = V(0xdead);                                                    \
    T key_ = (T)(k);                                                         \
    CHECK_EQ_INT(slate(&m_), SLATE_OK);                                      \
    CHECK_EQ_INT(SLATE_SET(&m_, key_, V(n)), SLATE_OK);                      \
    CHECK_EQ_U64(slate_length(&m_), 1);                                      \
    expect_##KIND(&m_, (KT)(k), (n));                                      \
    CHECK_EQ_INT(SLATE_GET(&m_, key_, &v_), SLATE_OK);                       \
    CHECK_EQ_PTR(v_, V(n));                                                  \
    CHECK_EQ_INT(SLATE_GET(&m_, key_, NULL), SLATE_OK);                      \
    CHECK_EQ_INT(SLATE_SET(&m_, key_, V((n) + 1)), SLATE_OK);                \
    CHECK_EQ_U64(slate_length(&m_), 1);                                      \
    expect_##KIND(&m_, (KT)(k), (n) + 1);                                  \
    CHECK_EQ_INT(SLATE_DELETE(&m_, key_), SLATE_OK);                         \
    CHECK_EQ_U64(slate_length(&m_), 0);                                      \
    CHECK_EQ_INT(slate_get_##KIND(&m_, (KT)(k), NULL), SLATE_ERROR_NOT_FOUND); \
    CHECK_EQ_INT(SLATE_DELETE(&m_, key_), SLATE_ERROR_NOT_FOUND);            \
    v_ = V(0xbeef);                                                          \
    CHECK_EQ_INT(SLATE_GET(&m_, key_, &v_), SLATE_ERROR_NOT_FOUND);          \
    CHECK_EQ_PTR(v_, V(0xbeef));                                             \
    /* written by the explicit function, found by the macro */               \
    CHECK_EQ_INT(slate_set_##KIND(&m_, (KT)(k), V(n)), SLATE_OK);          \
    CHECK_EQ_INT(SLATE_GET(&m_, key_, &v_), SLATE_OK);                       \
    CHECK_EQ_PTR(v_, V(n));                                                  \
    CHECK_EQ_INT(SLATE_DELETE(&m_, key_), SLATE_OK);                         \
    CHECK_EQ_U64(slate_length(&m_), 0);                                      \
    slate_free(&m_);                                                         \
  } while (0)
#define SIGNED_ROUND_TRIP(T, k, n) ROUND_TRIP(i64, int64_t, T, k, n)
#define UNSIGNED_ROUND_TRIP(T, k, n) ROUND_TRIP(u64, uint64_t, T, k, n)

static void test_signed_types(void) {
  SIGNED_ROUND_TRIP(signed char, -5, 100);
  SIGNED_ROUND_TRIP(signed char, -128, 101);
  SIGNED_ROUND_TRIP(signed char, 127, 102);
  SIGNED_ROUND_TRIP(short, -5, 110);
  SIGNED_ROUND_TRIP(short, INT16_MIN, 111);
  SIGNED_ROUND_TRIP(int, -5, 120);
  SIGNED_ROUND_TRIP(int, INT32_MIN, 121);
  SIGNED_ROUND_TRIP(int, 0, 122);
  SIGNED_ROUND_TRIP(long, -5, 130);
  SIGNED_ROUND_TRIP(long, 2147483647L, 131);
  SIGNED_ROUND_TRIP(long long, -5, 140);
  SIGNED_ROUND_TRIP(long long, INT64_MIN, 141);
  SIGNED_ROUND_TRIP(long long, INT64_MAX, 142);
  SIGNED_ROUND_TRIP(int64_t, -5, 150);
  SIGNED_ROUND_TRIP(int64_t, INT64_MIN, 151);
  /* typedefs resolve to one of the above */
  SIGNED_ROUND_TRIP(int8_t, -8, 160);
  SIGNED_ROUND_TRIP(int16_t, -16, 161);
  SIGNED_ROUND_TRIP(int32_t, -32, 162);
  SIGNED_ROUND_TRIP(intptr_t, -64, 163);
  SIGNED_ROUND_TRIP(ptrdiff_t, -65, 164);
  SIGNED_ROUND_TRIP(intmax_t, -66, 165);
}

static void test_unsigned_types(void) {
  UNSIGNED_ROUND_TRIP(unsigned char, 7, 200);
  UNSIGNED_ROUND_TRIP(unsigned char, 255, 201); /* not sign-extended */
  UNSIGNED_ROUND_TRIP(unsigned short, 7, 210);
  UNSIGNED_ROUND_TRIP(unsigned short, 65535, 211);
  UNSIGNED_ROUND_TRIP(unsigned, 7, 220);
  UNSIGNED_ROUND_TRIP(unsigned, 4294967295u, 221);
  UNSIGNED_ROUND_TRIP(unsigned, 0, 222);
  UNSIGNED_ROUND_TRIP(unsigned long, 7, 230);
  UNSIGNED_ROUND_TRIP(unsigned long long, 7, 240);
  UNSIGNED_ROUND_TRIP(unsigned long long, UINT64_MAX, 241);
  UNSIGNED_ROUND_TRIP(uint64_t, 7, 250);
  UNSIGNED_ROUND_TRIP(uint64_t, 0x8000000000000000ull, 251);
  UNSIGNED_ROUND_TRIP(uint8_t, 8, 260);
  UNSIGNED_ROUND_TRIP(uint16_t, 16, 261);
  UNSIGNED_ROUND_TRIP(uint32_t, 32, 262);
  UNSIGNED_ROUND_TRIP(uintptr_t, 64, 263);
  UNSIGNED_ROUND_TRIP(size_t, 65, 264);
  UNSIGNED_ROUND_TRIP(uintmax_t, 66, 265);
}

/* The explicit cases of the brief, spelled as a user would. */
static void test_literal_spellings(void) {
  slate_s m;
  void* v = NULL;
  CHECK_EQ_INT(slate(&m), SLATE_OK);

  CHECK_EQ_INT(SLATE_SET(&m, (short)-5, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_get_i64(&m, -5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(SLATE_SET(&m, (unsigned char)7, V(2)), SLATE_OK);
  CHECK_EQ_INT(slate_get_u64(&m, 7, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_EQ_INT(SLATE_SET(&m, "abc", V(3)), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "abc", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));

  /* integer literals: 9 is int, 9u unsigned, 9L long, 9ull unsigned long long */
  CHECK_EQ_INT(SLATE_SET(&m, 9, V(4)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, 10u, V(5)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, -11L, V(6)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, 12ull, V(7)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, -13LL, V(8)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, 14UL, V(9)), SLATE_OK);
  expect_i64(&m, 9, 4);
  expect_u64(&m, 10, 5);
  expect_i64(&m, -11, 6);
  expect_u64(&m, 12, 7);
  expect_i64(&m, -13, 8);
  expect_u64(&m, 14, 9);

  /* (short)-5, -5 and (int64_t)-5 are one key; so are (unsigned char)7, 7u
   * and (uint64_t)7 */
  CHECK_EQ_INT(SLATE_GET(&m, -5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(SLATE_GET(&m, (int64_t)-5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(SLATE_GET(&m, (signed char)-5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(SLATE_GET(&m, 7u, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_EQ_INT(SLATE_GET(&m, (uint64_t)7, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_EQ_INT(SLATE_GET(&m, (unsigned short)7, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  /* ... but 7 (int) is the i64 key 7, which is absent */
  CHECK_EQ_INT(SLATE_GET(&m, 7, NULL), SLATE_ERROR_NOT_FOUND);
  /* and the u64 key 2^64-5 is not the i64 key -5 */
  CHECK_EQ_INT(SLATE_GET(&m, (uint64_t)-5, NULL), SLATE_ERROR_NOT_FOUND);

  CHECK_EQ_U64(slate_length(&m), 9);
  slate_free(&m);
}

/* The same number in the three keyspaces is three entries. */
static void test_keyspaces_apart(void) {
  slate_s m;
  void* v = NULL;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, 42, V(1)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, 42u, V(2)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, "42", V(3)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 3);
  CHECK_EQ_INT(SLATE_GET(&m, (long long)42, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(SLATE_GET(&m, (unsigned long long)42, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_EQ_INT(SLATE_GET(&m, "42", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));
  CHECK_EQ_INT(slate_get_i64(&m, 42, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(slate_get_u64(&m, 42, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_EQ_INT(slate_get(&m, "42", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));

  CHECK_EQ_INT(SLATE_DELETE(&m, (unsigned char)42), SLATE_OK);
  CHECK_EQ_INT(slate_get_u64(&m, 42, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_i64(&m, 42, NULL), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "42", NULL), SLATE_OK);
  CHECK_EQ_INT(SLATE_DELETE(&m, (signed char)42), SLATE_OK);
  CHECK_EQ_INT(slate_get_i64(&m, 42, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "42", NULL), SLATE_OK);
  CHECK_EQ_INT(SLATE_DELETE(&m, "42"), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 0);
  slate_free(&m);
}

/* String keys in every spelling: literal, char array, char*, const char*,
 * const char* const, and a key that is not NUL-terminated at the array end. */
static void test_string_spellings(void) {
  slate_s m;
  void* v = NULL;
  char buffer[16];
  char* p = buffer;
  const char* cp = "const";
  const char* const ccp = "const const";
  const char word[] = "word";

  CHECK_EQ_INT(slate(&m), SLATE_OK);
  strcpy(buffer, "buffer");

  CHECK_EQ_INT(SLATE_SET(&m, "literal", V(1)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, buffer, V(2)), SLATE_OK);   /* char[16] -> char* */
  CHECK_EQ_INT(SLATE_SET(&m, cp, V(3)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, ccp, V(4)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, word, V(5)), SLATE_OK);     /* const char[5] */
  CHECK_EQ_INT(SLATE_SET(&m, "", V(6)), SLATE_OK);       /* the empty key */
  CHECK_EQ_U64(slate_length(&m), 6);

  CHECK_EQ_INT(slate_get(&m, "literal", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(slate_get(&m, "buffer", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_EQ_INT(slate_get(&m, "const", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));
  CHECK_EQ_INT(slate_get(&m, "const const", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(4));
  CHECK_EQ_INT(slate_get(&m, "word", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(5));
  CHECK_EQ_INT(slate_get(&m, "", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(6));

  /* the map copied the key: changing the buffer does not change the entry */
  strcpy(buffer, "changed");
  CHECK_EQ_INT(SLATE_GET(&m, p, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(SLATE_GET(&m, "buffer", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_EQ_INT(SLATE_SET(&m, p, V(7)), SLATE_OK);        /* char* */
  CHECK_EQ_INT(SLATE_GET(&m, "changed", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(7));

  /* a string key never meets an integer key */
  CHECK_EQ_INT(slate_get_i64(&m, 0, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_u64(&m, 0, NULL), SLATE_ERROR_NOT_FOUND);

  CHECK_EQ_INT(SLATE_DELETE(&m, "literal"), SLATE_OK);
  CHECK_EQ_INT(SLATE_DELETE(&m, buffer), SLATE_OK);
  CHECK_EQ_INT(SLATE_DELETE(&m, cp), SLATE_OK);
  CHECK_EQ_INT(SLATE_DELETE(&m, ccp), SLATE_OK);
  CHECK_EQ_INT(SLATE_DELETE(&m, word), SLATE_OK);
  CHECK_EQ_INT(SLATE_DELETE(&m, ""), SLATE_OK);
  CHECK_EQ_INT(SLATE_DELETE(&m, "buffer"), SLATE_OK);
  CHECK_EQ_INT(SLATE_DELETE(&m, "buffer"), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(slate_length(&m), 0);
  slate_free(&m);
}

/* Qualified keys: const and volatile integers and pointers are accepted by
 * their unqualified type. */
static void test_qualified_keys(void) {
  slate_s m;
  void* v = NULL;
  const short cs = -300;
  volatile int vi = -301;
  const volatile unsigned long cvul = 302;
  const uint64_t cu = 303;
  char text[] = "mutable";
  char* const pc = text;

  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, cs, V(1)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, vi, V(2)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, cvul, V(3)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, cu, V(4)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, pc, V(5)), SLATE_OK);
  expect_i64(&m, -300, 1);
  expect_i64(&m, -301, 2);
  expect_u64(&m, 302, 3);
  expect_u64(&m, 303, 4);
  CHECK_EQ_INT(slate_get(&m, "mutable", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(5));
  slate_free(&m);
}

/* Each argument is evaluated exactly once. */
static void test_single_evaluation(void) {
  slate_s m;
  slate_s* maps[1];
  int map_index = 0, key_index = 0, value_index = 0, out_index = 0;
  const int64_t keys[2] = {-1000, -2000};
  const char* names[2] = {"first", "second"};
  void* values[2];
  void* outs[2];
  values[0] = V(11);
  values[1] = V(22);
  outs[0] = NULL;
  outs[1] = NULL;

  CHECK_EQ_INT(slate(&m), SLATE_OK);
  maps[0] = &m;
  CHECK_EQ_INT(SLATE_SET(maps[map_index++], keys[key_index++], values[value_index++]), SLATE_OK);
  CHECK(map_index == 1 && key_index == 1 && value_index == 1);
  expect_i64(&m, -1000, 11);

  map_index = 0;
  key_index = 0;
  CHECK_EQ_INT(SLATE_GET(maps[map_index++], keys[key_index++], &outs[out_index++]), SLATE_OK);
  CHECK(map_index == 1 && key_index == 1 && out_index == 1);
  CHECK(outs[0] == V(11));

  map_index = 0;
  key_index = 0;
  CHECK_EQ_INT(SLATE_SET(maps[map_index++], names[key_index++], V(33)), SLATE_OK);
  CHECK(map_index == 1 && key_index == 1);
  CHECK_EQ_INT(slate_get(&m, "first", NULL), SLATE_OK);

  map_index = 0;
  key_index = 0;
  CHECK_EQ_INT(SLATE_DELETE(maps[map_index++], keys[key_index++]), SLATE_OK);
  CHECK(map_index == 1 && key_index == 1);
  CHECK_EQ_INT(slate_get_i64(&m, -1000, NULL), SLATE_ERROR_NOT_FOUND);
  slate_free(&m);
}

/* NULL map and NULL string key come back as SLATE_ERROR_INVALID through the
 * macros, exactly as from the functions. */
static void test_invalid_arguments(void) {
  slate_s* no_map = NULL;
  const char* no_key = NULL;
  slate_s m;
  void* v = V(5);
  CHECK_EQ_INT(SLATE_SET(no_map, 1, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_SET(no_map, 1u, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_SET(no_map, "x", V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_GET(no_map, 1, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_GET(no_map, 1u, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_GET(no_map, "x", &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_DELETE(no_map, 1), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_DELETE(no_map, 1u), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_DELETE(no_map, "x"), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, V(5));
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, no_key, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_GET(&m, no_key, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(SLATE_DELETE(&m, no_key), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slate_length(&m), 0);
  slate_free(&m);
}

/* The raw bytes slate_each reports: each macro-written key sits in the
 * keyspace its type selects (SPEC section 3, 10-byte integer encoding). */
typedef struct expected_key_s {
  int space; /* 0 string, 1 i64, 2 u64 */
  uint64_t bits;
  const char* text;
  uintptr_t value;
  int seen;
} expected_key_s;

typedef struct walk_s {
  expected_key_s* keys;
  int count;
  int bad;
} walk_s;

static int walk_callback(const char* key, uint32_t key_length, void* value, void* data) {
  walk_s* walk = (walk_s*)data;
  int space = 0, i;
  uint64_t bits = 0;
  if (key_length == 10 && key[0] == 0 && (key[1] == 1 || key[1] == 2)) {
    space = key[1];
    for (i = 9; i >= 2; i--) bits = (bits << 8) | (unsigned char)key[i];
  }
  for (i = 0; i < walk->count; i++) {
    expected_key_s* e = &walk->keys[i];
    if (e->space != space) continue;
    if (space == 0 ? (strlen(e->text) == key_length && memcmp(e->text, key, key_length) == 0)
                   : e->bits == bits) {
      if (value != V(e->value)) walk->bad++;
      e->seen++;
      return 0;
    }
  }
  walk->bad++;
  return 0;
}

static void test_raw_encoding(void) {
  slate_s m;
  walk_s walk;
  int i;
  expected_key_s keys[] = {
      {1, (uint64_t)(int64_t)-1, NULL, 1, 0},                  /* (signed char)-1 */
      {1, (uint64_t)(int64_t)-2, NULL, 2, 0},                  /* (short)-2 */
      {1, (uint64_t)(int64_t)-3, NULL, 3, 0},                  /* -3 */
      {1, (uint64_t)(int64_t)-4, NULL, 4, 0},                  /* -4L */
      {1, (uint64_t)(int64_t)-5, NULL, 5, 0},                  /* -5LL */
      {1, 0x0123456789abcdefull, NULL, 6, 0},                  /* (int64_t) */
      {2, 0xffull, NULL, 7, 0},                                /* (unsigned char)255 */
      {2, 0xffffull, NULL, 8, 0},                              /* (unsigned short) */
      {2, 0xffffffffull, NULL, 9, 0},                          /* unsigned */
      {2, 10, NULL, 10, 0},                                    /* unsigned long */
      {2, 0xfedcba9876543210ull, NULL, 11, 0},                 /* unsigned long long */
      {2, 12, NULL, 12, 0},                                    /* uint64_t */
      {0, 0, "string", 13, 0},
  };
  walk.keys = keys;
  walk.count = (int)(sizeof keys / sizeof keys[0]);
  walk.bad = 0;

  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, (signed char)-1, V(1)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, (short)-2, V(2)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, -3, V(3)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, -4L, V(4)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, -5LL, V(5)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, (int64_t)0x0123456789abcdefll, V(6)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, (unsigned char)255, V(7)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, (unsigned short)0xffff, V(8)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, 0xffffffffu, V(9)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, 10UL, V(10)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, 0xfedcba9876543210ull, V(11)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, (uint64_t)12, V(12)), SLATE_OK);
  CHECK_EQ_INT(SLATE_SET(&m, "string", V(13)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), (uint64_t)walk.count);

  CHECK_EQ_INT(slate_each(&m, walk_callback, &walk), SLATE_OK);
  CHECK(walk.bad == 0);
  for (i = 0; i < walk.count; i++) CHECK(keys[i].seen == 1);
  slate_free(&m);
}

int main(void) {
  test_signed_types();
  test_unsigned_types();
  test_literal_spellings();
  test_keyspaces_apart();
  test_string_spellings();
  test_qualified_keys();
  test_single_evaluation();
  test_invalid_arguments();
  test_raw_encoding();
  return TEST_SUMMARY();
}
