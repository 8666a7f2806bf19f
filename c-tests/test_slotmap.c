/*
 * test_slotmap.c -- the slotmap of SPEC section 6 and its edge cases (the
 * "Edge cases (both structures)" list): every slotmap_* function and every
 * error code, stale keys, swap-and-pop, columns, walks, limits, clear, clone,
 * free, moving with memcpy, pointer validity, a clone made from inside a
 * callback, inserting a copy of the slotmap's own element, and a seeded
 * randomized test against a model.
 *
 *   test_slotmap [seed [steps]]     (the randomized part: 200,000 steps)
 *
 * The first line on stdout is "seed: <n>" (the randomized part's seed; it
 * is drawn from the clock unless given), the last "N passed, M failed"; the
 * exit status is 0 only when M is 0.  Section names and failure details go
 * to stderr.  Build (also with clang / clang++):
 *   gcc -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude c-tests/test_slotmap.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/ts && /tmp/ts
 *   g++ -std=c++17 -O1 -g -Wall -Wextra -Werror -Iinclude -x c++ c-tests/test_slotmap.c \
 *       -x none target/release/libslate.a -lpthread -ldl -lm -o /tmp/tspp && /tmp/tspp
 *
 * Library decisions this suite relies on, where SPEC 6 leaves the choice
 * open (see src/slotmap.rs and include/slate.h); the tests that depend on
 * one name it:
 *   [D-key]     a key is version << 32 | slot; live versions are odd, and
 *               a slot's version only grows.  New slots are numbered 0, 1,
 *               2, ... in order, so the first n inserts into a fresh
 *               slotmap take slots 0 .. n-1.
 *   [D-append]  an insert appends: the new row is row length-1.
 *   [D-reuse]   erased slots are reused most recently freed first, with a
 *               higher version (SPEC 6 says so too).
 *   [D-column]  slotmap_column is NULL while nothing was ever allocated (a
 *               fresh or freed slotmap), else the 16-byte aligned base.
 *   [D-columns] more than 16 columns is SLATE_ERROR_FULL.
 *   [D-reserve] slotmap_reserve(n) means room for n rows in total: inserts
 *               up to n rows then reallocate nothing; beyond the limit FULL.
 *   [D-limit]   a limit below the length is SLATE_ERROR_INVALID (SPEC).
 *   [D-clone]   slotmap_clone keeps the row order (and the limit).
 *   [D-walk]    a modifying call from inside the slotmap's own slotmap_each /
 *               slotmap_erase_if / slotmap_sort callback returns
 *               SLATE_ERROR_INVALID and changes nothing (slotmap_free does
 *               nothing); reads are allowed.
 *   [D-order]   slotmap_erase_if keeps the survivors' relative order.
 *   [D-random]  each slotmap starts its versions at a random odd number, so
 *               a key of another slotmap is NOT_FOUND except with negligible
 *               probability (about 2^-29 per key).
 */
#define SLATE_IMPLEMENTATION
#include "slate.h"
#include "test.h"
#include "rng.h"
#include "rows3.h"
#include "quiet.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* helpers                                                                   */
/* ------------------------------------------------------------------------ */

#define KEY_SLOT(k) ((uint32_t)((k)&0xFFFFFFFFu))
#define KEY_VERSION(k) ((uint32_t)((k) >> 32))
#define MAKE_KEY(version, slot) (((uint64_t)(uint32_t)(version) << 32) | (uint64_t)(uint32_t)(slot))

/* What a NOT_FOUND (or failed) call must leave alone. */
static char sentinel_object_;
#define SENTINEL ((void*)&sentinel_object_)
#define SENTINEL_ROW 0xC0FFEEu
#define SENTINEL_KEY 0x5EED5EED5EED5EEDull

static int aligned16(const void* p) { return ((uintptr_t)p % 16u) == 0; }

/* --- one column of uint64_t ------------------------------------------- */

/* Inserts v; returns its key (0 and counts a problem on failure). */
static slotmap_key put_u64(slotmap_s* sm, uint64_t v, unsigned* bad) {
  slotmap_key k = 0;
  if (slotmap_insert(sm, &v, &k) != SLATE_OK || k == 0) (*bad)++;
  return k;
}

/* The value of key k, or `fallback` when it is not found. */
static uint64_t value_u64(const slotmap_s* sm, slotmap_key k, uint64_t fallback) {
  void* e = NULL;
  uint64_t v = fallback;
  if (slotmap_get(sm, k, &e) == SLATE_OK && e != NULL) memcpy(&v, e, sizeof v);
  return v;
}

/* --- three columns: a 12-byte struct, an 8-byte id, a 1-byte flag ----- */

static slotmap_key put3(slotmap_s* sm, uint64_t id, unsigned* bad) {
  unsigned char row[ROW3];
  slotmap_key k = 0;
  pack3(row, id);
  if (slotmap_insert(sm, row, &k) != SLATE_OK || k == 0) (*bad)++;
  return k;
}

/* Row r of all three columns holds record `id`. */
static int row3_is(const slotmap_s* sm, uint32_t r, uint64_t id) {
  const rec_s* c0 = (const rec_s*)slotmap_column(sm, 0);
  const uint64_t* c1 = (const uint64_t*)slotmap_column(sm, 1);
  const uint8_t* c2 = (const uint8_t*)slotmap_column(sm, 2);
  rec_s want = rec_for(id);
  if (c0 == NULL || c1 == NULL || c2 == NULL || r >= slotmap_length(sm)) return 0;
  return memcmp(&c0[r], &want, sizeof want) == 0 && c1[r] == id && c2[r] == flag_for(id);
}

/* Key k is valid, its row holds record `id`, and slotmap_get points at that
   row's column-0 element. */
static int key3_is(const slotmap_s* sm, slotmap_key k, uint64_t id) {
  uint32_t r = SENTINEL_ROW;
  void* e = NULL;
  if (slotmap_row(sm, k, &r) != SLATE_OK || r >= slotmap_length(sm)) return 0;
  if (slotmap_get(sm, k, &e) != SLATE_OK) return 0;
  if (e != (const void*)((const rec_s*)slotmap_column(sm, 0) + r)) return 0;
  if (slotmap_contains(sm, k) != 1) return 0;
  return row3_is(sm, r, id);
}

/* Key k is stale: every lookup says NOT_FOUND and leaves the out-values. */
static int is_stale(const slotmap_s* sm, slotmap_key k) {
  void* e = SENTINEL;
  uint32_t r = SENTINEL_ROW;
  return slotmap_get(sm, k, &e) == SLATE_ERROR_NOT_FOUND && e == SENTINEL &&
         slotmap_get(sm, k, NULL) == SLATE_ERROR_NOT_FOUND &&
         slotmap_row(sm, k, &r) == SLATE_ERROR_NOT_FOUND && r == SENTINEL_ROW &&
         slotmap_contains(sm, k) == 0;
}

/* The swap-and-pop invariant: row(key_at(r)) == r for every row, every
   key_at below the length a live key (odd version), 0 at the length. */
static unsigned dense_problems(const slotmap_s* sm) {
  unsigned bad = 0;
  uint32_t n = slotmap_length(sm);
  for (uint32_t r = 0; r < n; r++) {
    slotmap_key k = slotmap_key_at(sm, r);
    uint32_t row = SENTINEL_ROW;
    if (k == 0 || (KEY_VERSION(k) & 1u) == 0) bad++;
    if (slotmap_row(sm, k, &row) != SLATE_OK || row != r) bad++;
  }
  if (slotmap_key_at(sm, n) != 0) bad++;
  return bad;
}

/* The keys in dense order (malloc'd; *n gets the length). */
static slotmap_key* keys_by_row(const slotmap_s* sm, uint32_t* n) {
  *n = slotmap_length(sm);
  slotmap_key* keys = (slotmap_key*)malloc(sizeof(slotmap_key) * (*n + 1u));
  for (uint32_t r = 0; r < *n; r++) keys[r] = slotmap_key_at(sm, r);
  return keys;
}

static int count_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (*(uint64_t*)data)++;
  return 0;
}

static uint64_t count_rows(const slotmap_s* sm) {
  uint64_t n = 0;
  CHECK_EQ_INT(slotmap_each(sm, count_cb, &n), SLATE_OK);
  return n;
}

static int less_u32(const void* a, const void* b, void* data) {
  uint32_t x, y;
  (void)data;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  return x < y;
}

static int less_rec_a(const void* a, const void* b, void* data) {
  if (data != NULL) (*(uint64_t*)data)++;
  return ((const rec_s*)a)->a < ((const rec_s*)b)->a;
}

static int greater_rec_a(const void* a, const void* b, void* data) {
  (void)data;
  return ((const rec_s*)a)->a > ((const rec_s*)b)->a;
}

static int always_less(const void* a, const void* b, void* data) {
  (void)a;
  (void)b;
  (void)data;
  return 1;
}

static int always_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (void)data;
  return 1;
}

static int never_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (void)data;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* NULL is not a slotmap; NULL out-pointers and callbacks                    */
/* ------------------------------------------------------------------------ */

static void test_null_slotmap(void) {
  TEST_SECTION("NULL slotmap, NULL out-pointers, NULL callbacks");
  const uint32_t sizes[2] = {4, 8};
  uint64_t v = 7;
  slotmap_key k = SENTINEL_KEY;
  void* e = SENTINEL;
  uint32_t r = SENTINEL_ROW;
  uint64_t calls = 0;
  slotmap_s sm, copy;

  /* SPEC 6 edge cases: INVALID, or 0 / NULL / nothing as listed */
  CHECK_EQ_INT(slotmap(NULL, 4), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_columns(NULL, sizes, 2), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_reserve(NULL, 10), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_limit(NULL, 10), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_insert(NULL, &v, &k), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(k, SENTINEL_KEY);
  CHECK_EQ_INT(slotmap_insert(NULL, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_get(NULL, 1, &e), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(e, SENTINEL);
  CHECK_EQ_INT(slotmap_get(NULL, 1, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_row(NULL, 1, &r), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(r, SENTINEL_ROW);
  CHECK_EQ_INT(slotmap_row(NULL, 1, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(slotmap_column(NULL, 0), NULL);
  CHECK_EQ_U64(slotmap_key_at(NULL, 0), 0);
  CHECK_EQ_INT(slotmap_contains(NULL, 1), 0);
  CHECK_EQ_INT(slotmap_contains(NULL, 0), 0);
  CHECK_EQ_INT(slotmap_erase(NULL, 1), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_erase_if(NULL, count_cb, &calls), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sort(NULL, less_u32, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_each(NULL, count_cb, &calls), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(calls, 0);
  CHECK_EQ_U64(slotmap_length(NULL), 0);
  CHECK_EQ_INT(slotmap_clear(NULL), SLATE_ERROR_INVALID);
  slotmap_free(NULL); /* does nothing */

  /* clone: NULL on either side, or onto itself */
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  slotmap_key k1 = 0, k2 = 0;
  v = 11;
  CHECK_EQ_INT(slotmap_insert(&sm, &v, &k1), SLATE_OK);
  v = 22;
  CHECK_EQ_INT(slotmap_insert(&sm, &v, &k2), SLATE_OK);
  CHECK_EQ_INT(slotmap_clone(NULL, &sm), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_clone(&copy, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_clone(NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_clone(&sm, &sm), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slotmap_length(&sm), 2);
  CHECK_EQ_U64(value_u64(&sm, k1, 0), 11);
  CHECK_EQ_U64(value_u64(&sm, k2, 0), 22);

  /* NULL out-pointers: INVALID where the result is the point of the call */
  k = SENTINEL_KEY;
  CHECK_EQ_INT(slotmap_insert(&sm, &v, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slotmap_length(&sm), 2); /* nothing was inserted */
  CHECK_EQ_U64(slotmap_key_at(&sm, 2), 0);
  CHECK_EQ_INT(slotmap_row(&sm, k1, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_row(&sm, 0, NULL), SLATE_ERROR_INVALID);
  /* ... but slotmap_get takes a NULL element pointer as a presence test */
  CHECK_EQ_INT(slotmap_get(&sm, k1, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_get(&sm, k1 + (2ull << 32), NULL), SLATE_ERROR_NOT_FOUND); /* version + 2 */

  /* NULL callbacks are INVALID and change nothing */
  CHECK_EQ_INT(slotmap_each(&sm, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_erase_if(&sm, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sort(&sm, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slotmap_length(&sm), 2);
  CHECK_EQ_U64(slotmap_key_at(&sm, 0), k1);
  CHECK_EQ_U64(slotmap_key_at(&sm, 1), k2);
  CHECK_EQ_U64(value_u64(&sm, k1, 0), 11);
  CHECK_EQ_U64(value_u64(&sm, k2, 0), 22);
  /* ... also on an empty slotmap, where there would be nothing to do */
  slotmap_s empty;
  CHECK_EQ_INT(slotmap(&empty, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_each(&empty, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_erase_if(&empty, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sort(&empty, NULL, NULL), SLATE_ERROR_INVALID);
  slotmap_free(&empty);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* initialization                                                            */
/* ------------------------------------------------------------------------ */

static void test_init(void) {
  TEST_SECTION("slotmap, slotmap_columns");
  slotmap_s sm;
  uint32_t sizes[20];
  uint64_t calls = 0;

  /* bad arguments (SPEC 6 edge cases) */
  CHECK_EQ_INT(slotmap(&sm, 0), SLATE_ERROR_INVALID);
  sizes[0] = 4;
  sizes[1] = 8;
  CHECK_EQ_INT(slotmap_columns(&sm, sizes, 0), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_columns(&sm, NULL, 2), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_columns(&sm, NULL, 0), SLATE_ERROR_INVALID);
  sizes[0] = 4;
  sizes[1] = 0;
  sizes[2] = 8;
  CHECK_EQ_INT(slotmap_columns(&sm, sizes, 3), SLATE_ERROR_INVALID); /* a zero size */
  sizes[0] = 0;
  CHECK_EQ_INT(slotmap_columns(&sm, sizes, 1), SLATE_ERROR_INVALID);
  /* [D-columns] more than 16 columns is FULL; 16 are fine */
  for (uint32_t c = 0; c < 20; c++) sizes[c] = c + 1;
  CHECK_EQ_INT(slotmap_columns(&sm, sizes, 17), SLATE_ERROR_FULL);
  CHECK_EQ_INT(slotmap_columns(&sm, sizes, 20), SLATE_ERROR_FULL);
  CHECK_EQ_INT(slotmap_columns(&sm, sizes, 16), SLATE_OK);
  slotmap_free(&sm);
  /* rows of 4 GiB or more are FULL (include/slate.h) */
  sizes[0] = 0x80000000u;
  sizes[1] = 0x80000000u;
  CHECK_EQ_INT(slotmap_columns(&sm, sizes, 2), SLATE_ERROR_FULL);

  /* a fresh slotmap, initialized over garbage, is empty and allocates
     nothing ([D-column]: no column yet) */
  memset(&sm, 0xA5, sizeof sm);
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  CHECK_EQ_PTR(slotmap_column(&sm, 0), NULL);
  CHECK_EQ_PTR(slotmap_column(&sm, 1), NULL);
  CHECK_EQ_U64(slotmap_key_at(&sm, 0), 0);
  CHECK_EQ_INT(slotmap_contains(&sm, 0), 0);
  CHECK(is_stale(&sm, 0));
  CHECK(is_stale(&sm, MAKE_KEY(1, 0)));
  CHECK_EQ_INT(slotmap_erase(&sm, MAKE_KEY(1, 0)), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slotmap_each(&sm, count_cb, &calls), SLATE_OK);
  CHECK_EQ_U64(calls, 0);
  CHECK_EQ_INT(slotmap_erase_if(&sm, count_cb, &calls), SLATE_OK);
  CHECK_EQ_U64(calls, 0);
  CHECK_EQ_INT(slotmap_sort(&sm, less_u32, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  slotmap_free(&sm);
  slotmap_free(&sm);

  /* odd element sizes: 1 byte, 3 bytes, a large element */
  const uint32_t odd_sizes[3] = {1, 3, 1000};
  for (int i = 0; i < 3; i++) {
    unsigned char in[1000], zero[1000];
    slotmap_key keys[40];
    unsigned bad = 0;
    uint32_t size = odd_sizes[i];
    memset(zero, 0, sizeof zero);
    CHECK_EQ_INT(slotmap(&sm, size), SLATE_OK);
    for (uint32_t n = 0; n < 40; n++) {
      memset(in, (int)(n + 1), size);
      keys[n] = 0;
      if (slotmap_insert(&sm, in, &keys[n]) != SLATE_OK) bad++;
    }
    const unsigned char* base = (const unsigned char*)slotmap_column(&sm, 0);
    CHECK(base != NULL && aligned16(base));
    for (uint32_t n = 0; n < 40; n++) {
      void* e = NULL;
      uint32_t r = SENTINEL_ROW;
      memset(in, (int)(n + 1), size);
      if (slotmap_get(&sm, keys[n], &e) != SLATE_OK || memcmp(e, in, size) != 0) bad++;
      /* the column's stride is the element size */
      if (slotmap_row(&sm, keys[n], &r) != SLATE_OK ||
          (const unsigned char*)e != base + (size_t)r * size)
        bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_PTR(slotmap_column(&sm, 1), NULL); /* one column only */
    slotmap_free(&sm);
  }
}

/* ------------------------------------------------------------------------ */
/* insert, get, row, contains, key_at; key 0 and forged keys                 */
/* ------------------------------------------------------------------------ */

static void test_keys_and_lookup(void) {
  TEST_SECTION("insert, get, row, contains, key_at; key 0, forged keys");
  slotmap_s sm;
  enum { N = 1000 };
  static slotmap_key keys[N];
  unsigned bad = 0, layout_bad = 0, dup = 0;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  for (uint32_t i = 0; i < N; i++) {
    keys[i] = put_u64(&sm, 1000 + i, &bad);
    uint32_t r = SENTINEL_ROW;
    /* [D-append] the new row is the last one */
    if (slotmap_row(&sm, keys[i], &r) != SLATE_OK || r != i || slotmap_length(&sm) != i + 1) bad++;
    /* [D-key] live versions odd; fresh slots numbered in order */
    if ((KEY_VERSION(keys[i]) & 1u) == 0 || KEY_SLOT(keys[i]) != i) layout_bad++;
    if (i > 0 && keys[i] == keys[i - 1]) dup++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(layout_bad, 0);
  CHECK_EQ_INT(dup, 0);
  CHECK_EQ_U64(slotmap_length(&sm), N);

  /* every key finds its value; get points into column 0 at the key's row */
  const uint64_t* col = (const uint64_t*)slotmap_column(&sm, 0);
  CHECK(col != NULL && aligned16(col));
  for (uint32_t i = 0; i < N; i++) {
    void* e = NULL;
    uint32_t r = SENTINEL_ROW;
    if (slotmap_get(&sm, keys[i], &e) != SLATE_OK || e != (const void*)(col + i)) bad++;
    if (value_u64(&sm, keys[i], 0) != 1000 + i) bad++;
    if (slotmap_row(&sm, keys[i], &r) != SLATE_OK || r != i) bad++;
    if (slotmap_contains(&sm, keys[i]) != 1) bad++;
    if (slotmap_key_at(&sm, i) != keys[i]) bad++;
    if (slotmap_get(&sm, keys[i], NULL) != SLATE_OK) bad++; /* presence test */
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(dense_problems(&sm), 0);

  /* key_at past the length is 0 */
  CHECK_EQ_U64(slotmap_key_at(&sm, N), 0);
  CHECK_EQ_U64(slotmap_key_at(&sm, N + 1), 0);
  CHECK_EQ_U64(slotmap_key_at(&sm, UINT32_MAX), 0);

  /* key 0 and forged keys are NOT_FOUND (never INVALID); NOT_FOUND leaves
     *element and *row as they were; contains is 0; erase changes nothing */
  slotmap_key k = keys[123];
  uint32_t slot = KEY_SLOT(k), ver = KEY_VERSION(k);
  const slotmap_key forged[] = {
      0,                                /* never valid */
      MAKE_KEY(0, slot),                /* version 0 */
      MAKE_KEY(ver + 1, slot),          /* an even (vacant) version */
      MAKE_KEY(ver + 2, slot),          /* the next odd version */
      MAKE_KEY(ver - 2, slot),          /* an older odd version */
      MAKE_KEY(ver ^ 0x40000000u, slot),/* far off */
      MAKE_KEY(ver, N),                 /* a slot just past the index */
      MAKE_KEY(ver, 0x7FFFFFFFu),       /* a slot far past the index */
      MAKE_KEY(ver, 0xFFFFFFFFu),       /* the largest slot number */
      MAKE_KEY(0xFFFFFFFFu, slot),      /* the largest version */
      MAKE_KEY(ver == 1 ? 3 : 1, slot), /* the smallest odd version */
      UINT64_MAX,
      (slotmap_key)slot,                /* the slot alone (version 0) */
  };
  for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
    void* e = SENTINEL;
    uint32_t r = SENTINEL_ROW;
    int ok = slotmap_get(&sm, forged[i], &e) == SLATE_ERROR_NOT_FOUND && e == SENTINEL &&
             slotmap_get(&sm, forged[i], NULL) == SLATE_ERROR_NOT_FOUND &&
             slotmap_row(&sm, forged[i], &r) == SLATE_ERROR_NOT_FOUND && r == SENTINEL_ROW &&
             slotmap_contains(&sm, forged[i]) == 0 &&
             slotmap_erase(&sm, forged[i]) == SLATE_ERROR_NOT_FOUND;
    if (!ok) fprintf(stderr, "   forged key #%u 0x%016llx was not NOT_FOUND\n", (unsigned)i,
                     (unsigned long long)forged[i]);
    CHECK(ok);
  }
  /* the real key still works and nothing moved */
  CHECK_EQ_U64(slotmap_length(&sm), N);
  CHECK_EQ_U64(value_u64(&sm, k, 0), 1123);
  CHECK_EQ_U64(slotmap_key_at(&sm, 123), k);

  /* a NULL row inserts a zeroed element */
  slotmap_key z = 0;
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &z), SLATE_OK);
  CHECK_EQ_U64(value_u64(&sm, z, 99), 0);
  CHECK_EQ_U64(slotmap_length(&sm), N + 1);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* keys of another slotmap                                                   */
/* ------------------------------------------------------------------------ */

static void test_foreign_keys(void) {
  TEST_SECTION("keys of another slotmap are NOT_FOUND");
  /* [D-random]: every slotmap starts its versions at a random odd number;
     slots 0..7 exist in both, so only the versions tell the keys apart.  A
     spurious match has probability about 2^-29 per key. */
  slotmap_s a, b;
  slotmap_key ka[8], kb[8];
  unsigned bad = 0, found = 0;
  CHECK_EQ_INT(slotmap(&a, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap(&b, 8), SLATE_OK);
  for (uint64_t i = 0; i < 8; i++) {
    ka[i] = put_u64(&a, i, &bad);
    kb[i] = put_u64(&b, 100 + i, &bad);
  }
  CHECK_EQ_INT(bad, 0);
  for (int i = 0; i < 8; i++) {
    if (!is_stale(&b, ka[i])) found++;
    if (!is_stale(&a, kb[i])) found++;
    if (slotmap_erase(&b, ka[i]) != SLATE_ERROR_NOT_FOUND) found++;
    if (slotmap_erase(&a, kb[i]) != SLATE_ERROR_NOT_FOUND) found++;
  }
  CHECK_EQ_INT(found, 0);
  CHECK_EQ_U64(slotmap_length(&a), 8);
  CHECK_EQ_U64(slotmap_length(&b), 8);
  slotmap_free(&a);
  slotmap_free(&b);

  /* start versions differ between slotmaps (8 slotmaps all alike: ~2^-203) */
  slotmap_s several[8];
  uint32_t versions[8];
  int all_same = 1;
  for (int i = 0; i < 8; i++) {
    slotmap_key k = 0;
    CHECK_EQ_INT(slotmap(&several[i], 4), SLATE_OK);
    CHECK_EQ_INT(slotmap_insert(&several[i], NULL, &k), SLATE_OK);
    versions[i] = KEY_VERSION(k);
    if (i > 0 && versions[i] != versions[0]) all_same = 0;
    CHECK(versions[i] & 1u);
  }
  CHECK(!all_same);
  for (int i = 0; i < 8; i++) slotmap_free(&several[i]);
}

/* ------------------------------------------------------------------------ */
/* every element size: insert and erase copy rows of each size exactly      */
/* ------------------------------------------------------------------------ */

/* Element sizes 1..40 and 64: the fast paths (one column of 4, 8, 12 or 16
 * bytes) and every other size, through inserts of given and NULL rows and
 * swap-and-pop erases; every surviving row must hold its own bytes. */
static void test_every_element_size(void) {
  TEST_SECTION("every element size: rows copied in and moved exactly");
  enum { N = 64 };
  unsigned bad = 0;
  for (uint32_t size = 1; size <= 64; size++) {
    if (size > 40 && size != 64) continue;
    slotmap_s sm;
    slotmap_key keys[N];
    unsigned char in[64], want[64];
    if (slotmap(&sm, size) != SLATE_OK) {
      bad++;
      continue;
    }
    for (uint32_t n = 0; n < N; n++) {
      /* every third row NULL (zeroed), the others a pattern per row */
      for (uint32_t b = 0; b < size; b++) in[b] = (unsigned char)(n * 7 + b + 1);
      if (slotmap_insert(&sm, n % 3 == 2 ? NULL : in, &keys[n]) != SLATE_OK) bad++;
    }
    /* erase the even rows: each erase moves the last row into the hole */
    for (uint32_t n = 0; n < N; n += 2)
      if (slotmap_erase(&sm, keys[n]) != SLATE_OK) bad++;
    if (slotmap_length(&sm) != N / 2) bad++;
    for (uint32_t n = 0; n < N; n++) {
      void* e = NULL;
      int rc = slotmap_get(&sm, keys[n], &e);
      if (n % 2 == 0) {
        if (rc != SLATE_ERROR_NOT_FOUND) bad++;
        continue;
      }
      for (uint32_t b = 0; b < size; b++) want[b] = n % 3 == 2 ? 0 : (unsigned char)(n * 7 + b + 1);
      if (rc != SLATE_OK || memcmp(e, want, size) != 0) bad++;
    }
    slotmap_free(&sm);
  }
  CHECK_EQ_INT(bad, 0);
}

/* ------------------------------------------------------------------------ */
/* erase: swap-and-pop, stale keys, slot reuse                               */
/* ------------------------------------------------------------------------ */

static void test_erase_and_reuse(void) {
  TEST_SECTION("erase: swap-and-pop, stale keys, reuse order");
  slotmap_s sm;
  slotmap_key keys[10];
  unsigned bad = 0;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  for (uint64_t i = 0; i < 10; i++) keys[i] = put_u64(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);

  /* erasing row 3 moves the last row (key 9) into it */
  CHECK_EQ_INT(slotmap_erase(&sm, keys[3]), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 9);
  CHECK_EQ_U64(slotmap_key_at(&sm, 3), keys[9]);
  CHECK_EQ_U64(slotmap_key_at(&sm, 9), 0);
  CHECK_EQ_U64(value_u64(&sm, keys[9], 99), 9);
  CHECK(is_stale(&sm, keys[3]));
  CHECK_EQ_INT(slotmap_erase(&sm, keys[3]), SLATE_ERROR_NOT_FOUND); /* erase twice */
  CHECK_EQ_U64(slotmap_length(&sm), 9);
  CHECK_EQ_INT(dense_problems(&sm), 0);
  /* erasing the last row moves nothing */
  uint32_t last = slotmap_length(&sm) - 1;
  slotmap_key lastkey = slotmap_key_at(&sm, last);
  slotmap_key before_last = slotmap_key_at(&sm, last - 1);
  CHECK_EQ_INT(slotmap_erase(&sm, lastkey), SLATE_OK);
  CHECK_EQ_U64(slotmap_key_at(&sm, last - 1), before_last);
  CHECK_EQ_INT(dense_problems(&sm), 0);

  /* [D-reuse] most recently freed first: keys[8] (freed last) comes back
     first, then keys[3]'s slot, then a new slot (10) */
  slotmap_key n1 = put_u64(&sm, 101, &bad);
  slotmap_key n2 = put_u64(&sm, 102, &bad);
  slotmap_key n3 = put_u64(&sm, 103, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(KEY_SLOT(n1), KEY_SLOT(lastkey));
  CHECK_EQ_U64(KEY_SLOT(n2), KEY_SLOT(keys[3]));
  CHECK_EQ_U64(KEY_SLOT(n3), 10);
  CHECK_NE_U64(n1, lastkey);
  CHECK_NE_U64(n2, keys[3]);
  CHECK(KEY_VERSION(n2) > KEY_VERSION(keys[3])); /* versions only grow */
  CHECK(KEY_VERSION(n2) & 1u);
  CHECK(is_stale(&sm, keys[3]));
  CHECK(is_stale(&sm, lastkey));
  CHECK_EQ_U64(value_u64(&sm, n1, 0), 101);
  CHECK_EQ_U64(value_u64(&sm, n2, 0), 102);
  CHECK_EQ_U64(value_u64(&sm, n3, 0), 103);

  /* erase everything, one by one from the front (each moves the last row) */
  while (slotmap_length(&sm) > 0) {
    slotmap_key k = slotmap_key_at(&sm, 0);
    if (slotmap_erase(&sm, k) != SLATE_OK || !is_stale(&sm, k) || dense_problems(&sm) != 0) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  for (int i = 0; i < 10; i++) CHECK(is_stale(&sm, keys[i]));
  CHECK(is_stale(&sm, n1));
  CHECK(is_stale(&sm, n3));
  CHECK_EQ_U64(slotmap_key_at(&sm, 0), 0);
  /* the only row of a slotmap */
  slotmap_key only = put_u64(&sm, 5, &bad);
  CHECK_EQ_INT(slotmap_erase(&sm, only), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  CHECK(is_stale(&sm, only));
  slotmap_free(&sm);
}

/* 100,000 erase/insert cycles on one slot: the slot comes back every time
   ([D-reuse]) and every key it ever had stays stale. */
static void test_slot_reuse_100k(void) {
  TEST_SECTION("100,000 reuses of one slot: every old key stays stale");
  enum { CYCLES = 100000 };
  slotmap_s sm;
  slotmap_key others[5];
  slotmap_key* history = (slotmap_key*)malloc(sizeof(slotmap_key) * (CYCLES + 1));
  unsigned bad = 0, wrong_slot = 0, not_newer = 0, prev_valid = 0, wrong_value = 0;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  for (uint64_t i = 0; i < 5; i++) others[i] = put_u64(&sm, 500 + i, &bad);
  history[0] = put_u64(&sm, 0, &bad);
  const uint32_t slot = KEY_SLOT(history[0]);
  for (uint32_t c = 1; c <= CYCLES; c++) {
    if (slotmap_erase(&sm, history[c - 1]) != SLATE_OK) bad++;
    history[c] = put_u64(&sm, c, &bad);
    if (KEY_SLOT(history[c]) != slot) wrong_slot++;
    if (KEY_VERSION(history[c]) <= KEY_VERSION(history[c - 1]) || !(KEY_VERSION(history[c]) & 1u))
      not_newer++;
    if (slotmap_contains(&sm, history[c - 1]) != 0 ||
        slotmap_get(&sm, history[c - 1], NULL) != SLATE_ERROR_NOT_FOUND)
      prev_valid++;
    if (value_u64(&sm, history[c], 0xFFFF) != c) wrong_value++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(wrong_slot, 0);
  CHECK_EQ_INT(not_newer, 0);
  CHECK_EQ_INT(prev_valid, 0);
  CHECK_EQ_INT(wrong_value, 0);
  /* every old key, checked again at the end */
  unsigned stale_bad = 0;
  for (uint32_t c = 0; c < CYCLES; c++)
    if (!is_stale(&sm, history[c]) || slotmap_erase(&sm, history[c]) != SLATE_ERROR_NOT_FOUND)
      stale_bad++;
  CHECK_EQ_INT(stale_bad, 0);
  CHECK_EQ_U64(value_u64(&sm, history[CYCLES], 0), CYCLES);
  CHECK_EQ_U64(slotmap_length(&sm), 6);
  for (uint64_t i = 0; i < 5; i++) CHECK_EQ_U64(value_u64(&sm, others[i], 0), 500 + i);
  CHECK_EQ_INT(dense_problems(&sm), 0);
  slotmap_free(&sm);
  free(history);
}

/* row(key_at(r)) == r for every r after every erase of a churn loop, with
   the data following its key. */
static void test_churn_invariant(void) {
  TEST_SECTION("swap-and-pop invariant under churn");
  enum { CAP = 600, STEPS = 12000 };
  slotmap_s sm;
  static slotmap_key live[CAP];
  static uint64_t ids[CAP];
  uint32_t n = 0;
  uint64_t next_id = 0;
  unsigned bad = 0, invariant = 0, data = 0, max_slot_bad = 0;
  uint32_t max_slot = 0;
  rng_state_ = 0x5107A9u;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  for (uint32_t s = 0; s < STEPS; s++) {
    int grow = n == 0 || (n < CAP && rng_below(100) < (s % 4000 < 2000 ? 65u : 35u));
    if (grow) {
      live[n] = put3(&sm, next_id, &bad);
      ids[n++] = next_id++;
      if (KEY_SLOT(live[n - 1]) > max_slot) max_slot = KEY_SLOT(live[n - 1]);
    } else {
      uint32_t i = rng_below(n);
      if (slotmap_erase(&sm, live[i]) != SLATE_OK) bad++;
      if (!is_stale(&sm, live[i])) bad++;
      live[i] = live[n - 1];
      ids[i] = ids[--n];
      invariant += dense_problems(&sm);
      if (slotmap_length(&sm) != n) bad++;
    }
  }
  for (uint32_t i = 0; i < n; i++)
    if (!key3_is(&sm, live[i], ids[i])) data++;
  /* slots are reused, so the index never grows past the most rows held */
  if (max_slot >= CAP) max_slot_bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(invariant, 0);
  CHECK_EQ_INT(data, 0);
  CHECK_EQ_INT(max_slot_bad, 0);
  CHECK_EQ_U64(slotmap_length(&sm), n);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* columns                                                                   */
/* ------------------------------------------------------------------------ */

static void test_columns(void) {
  TEST_SECTION("columns: packed rows, NULL rows, alignment, rows stay together");
  slotmap_s sm;
  enum { N = 3000 };
  static slotmap_key keys[N];
  unsigned bad = 0;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  CHECK_EQ_PTR(slotmap_column(&sm, 0), NULL); /* [D-column] nothing allocated yet */
  for (uint64_t i = 0; i < 100; i++) keys[i] = put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  for (int c = 0; c < 3; c++) {
    CHECK(slotmap_column(&sm, (uint32_t)c) != NULL);
    CHECK(aligned16(slotmap_column(&sm, (uint32_t)c)));
  }
  CHECK_EQ_PTR(slotmap_column(&sm, 3), NULL); /* out of range */
  CHECK_EQ_PTR(slotmap_column(&sm, 16), NULL);
  CHECK_EQ_PTR(slotmap_column(&sm, UINT32_MAX), NULL);
  /* the packed row's fields landed in their columns, at the key's row */
  for (uint64_t i = 0; i < 100; i++)
    if (!key3_is(&sm, keys[i], i) || !row3_is(&sm, (uint32_t)i, i)) bad++;
  CHECK_EQ_INT(bad, 0);

  /* a NULL row is zeros in every column, also where old rows left data */
  for (int i = 0; i < 10; i++) CHECK_EQ_INT(slotmap_erase(&sm, keys[99 - i]), SLATE_OK);
  slotmap_key z = 0;
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &z), SLATE_OK);
  {
    uint32_t r = SENTINEL_ROW;
    rec_s zero_rec;
    memset(&zero_rec, 0, sizeof zero_rec);
    CHECK_EQ_INT(slotmap_row(&sm, z, &r), SLATE_OK);
    CHECK_EQ_U64(r, 90); /* the row that held record 90 */
    CHECK_EQ_MEM((const rec_s*)slotmap_column(&sm, 0) + r, &zero_rec, sizeof zero_rec);
    CHECK_EQ_U64(((const uint64_t*)slotmap_column(&sm, 1))[r], 0);
    CHECK_EQ_U64(((const uint8_t*)slotmap_column(&sm, 2))[r], 0);
  }
  CHECK_EQ_INT(slotmap_erase(&sm, z), SLATE_OK);

  /* grow through several reallocations: still aligned, still together */
  for (uint64_t i = 90; i < N; i++) keys[i] = put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  for (int c = 0; c < 3; c++) CHECK(aligned16(slotmap_column(&sm, (uint32_t)c)));
  /* erase every third, then sort by rec.a: row r of every column still
     belongs to the same key */
  for (uint64_t i = 0; i < N; i += 3) CHECK_EQ_INT(slotmap_erase(&sm, keys[i]), SLATE_OK);
  for (uint64_t i = 0; i < N; i++)
    if (i % 3 == 0 ? !is_stale(&sm, keys[i]) : !key3_is(&sm, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_sort(&sm, less_rec_a, NULL), SLATE_OK);
  for (int c = 0; c < 3; c++) CHECK(aligned16(slotmap_column(&sm, (uint32_t)c)));
  for (uint64_t i = 0; i < N; i++)
    if (i % 3 == 0 ? !is_stale(&sm, keys[i]) : !key3_is(&sm, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  /* and each row's id column names the record its key was inserted with */
  {
    uint32_t n = slotmap_length(&sm);
    const uint64_t* ids = (const uint64_t*)slotmap_column(&sm, 1);
    for (uint32_t r = 0; r < n; r++)
      if (slotmap_key_at(&sm, r) != keys[ids[r]] || !row3_is(&sm, r, ids[r])) bad++;
    CHECK_EQ_INT(bad, 0);
  }
  CHECK_EQ_INT(dense_problems(&sm), 0);
  slotmap_free(&sm);

  /* 16 columns of sizes 1..16 (136-byte packed rows), each aligned, each
     with stride equal to its size */
  {
    uint32_t sizes[16];
    unsigned char row[136];
    slotmap_key k16[50];
    for (uint32_t c = 0; c < 16; c++) sizes[c] = c + 1;
    CHECK_EQ_INT(slotmap_columns(&sm, sizes, 16), SLATE_OK);
    for (uint32_t i = 0; i < 50; i++) {
      for (uint32_t b = 0; b < 136; b++) row[b] = (unsigned char)(i * 31u + b * 7u + 1u);
      k16[i] = 0;
      if (slotmap_insert(&sm, row, &k16[i]) != SLATE_OK) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_PTR(slotmap_column(&sm, 16), NULL);
    for (uint32_t c = 0; c < 16; c++) CHECK(aligned16(slotmap_column(&sm, c)));
    /* erase a few so rows move, then verify every byte */
    CHECK_EQ_INT(slotmap_erase(&sm, k16[0]), SLATE_OK);
    CHECK_EQ_INT(slotmap_erase(&sm, k16[17]), SLATE_OK);
    for (uint32_t i = 1; i < 50; i++) {
      uint32_t r = SENTINEL_ROW, offset = 0;
      if (i == 17) continue;
      if (slotmap_row(&sm, k16[i], &r) != SLATE_OK) {
        bad++;
        continue;
      }
      for (uint32_t c = 0; c < 16; c++) {
        const unsigned char* el =
            (const unsigned char*)slotmap_column(&sm, c) + (size_t)r * sizes[c];
        for (uint32_t b = 0; b < sizes[c]; b++)
          if (el[b] != (unsigned char)(i * 31u + (offset + b) * 7u + 1u)) bad++;
        offset += sizes[c];
      }
    }
    CHECK_EQ_INT(bad, 0);
    slotmap_free(&sm);
  }
}

/* ------------------------------------------------------------------------ */
/* slotmap_each                                                              */
/* ------------------------------------------------------------------------ */

typedef struct walk_s {
  const slotmap_s* sm;
  uint32_t calls;
  uint32_t stop_at; /* return `stop_value` at this call (1-based); 0 never */
  int stop_value;
  unsigned bad;
  void* data_seen;
} walk_s;

static int walk_cb(slotmap_key key, void* row, void* data) {
  walk_s* w = (walk_s*)data;
  uint32_t r = w->calls++;
  void* e = NULL;
  w->data_seen = data;
  /* dense order; `row` is the row's column-0 element */
  if (slotmap_key_at(w->sm, r) != key) w->bad++;
  if (row != (void*)((uint64_t*)slotmap_column(w->sm, 0) + r)) w->bad++;
  if (slotmap_get(w->sm, key, &e) != SLATE_OK || e != row) w->bad++;
  if (w->stop_at != 0 && w->calls == w->stop_at) return w->stop_value;
  return 0;
}

static void test_each(void) {
  TEST_SECTION("slotmap_each: dense order, early stop");
  slotmap_s sm;
  slotmap_key keys[50];
  unsigned bad = 0;
  walk_s w;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  for (uint64_t i = 0; i < 50; i++) keys[i] = put_u64(&sm, i, &bad);
  for (int i = 0; i < 50; i += 7) CHECK_EQ_INT(slotmap_erase(&sm, keys[i]), SLATE_OK);
  CHECK_EQ_INT(bad, 0);

  memset(&w, 0, sizeof w);
  w.sm = &sm;
  CHECK_EQ_INT(slotmap_each(&sm, walk_cb, &w), SLATE_OK);
  CHECK_EQ_U64(w.calls, slotmap_length(&sm));
  CHECK_EQ_INT(w.bad, 0);
  CHECK_EQ_PTR(w.data_seen, &w); /* data passed through */

  /* a non-zero return stops the walk and becomes the result */
  memset(&w, 0, sizeof w);
  w.sm = &sm;
  w.stop_at = 3;
  w.stop_value = 42;
  CHECK_EQ_INT(slotmap_each(&sm, walk_cb, &w), 42);
  CHECK_EQ_U64(w.calls, 3);
  memset(&w, 0, sizeof w);
  w.sm = &sm;
  w.stop_at = 1;
  w.stop_value = -7;
  CHECK_EQ_INT(slotmap_each(&sm, walk_cb, &w), -7);
  CHECK_EQ_U64(w.calls, 1);
  memset(&w, 0, sizeof w);
  w.sm = &sm;
  w.stop_at = slotmap_length(&sm); /* on the last row */
  w.stop_value = 9;
  CHECK_EQ_INT(slotmap_each(&sm, walk_cb, &w), 9);
  CHECK_EQ_U64(w.calls, slotmap_length(&sm));
  CHECK_EQ_INT(w.bad, 0);
  /* the walk's lock is released after an early stop */
  slotmap_key k = put_u64(&sm, 777, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_erase(&sm, k), SLATE_OK);

  /* an empty slotmap: no calls */
  slotmap_s empty;
  CHECK_EQ_INT(slotmap(&empty, 8), SLATE_OK);
  memset(&w, 0, sizeof w);
  w.sm = &empty;
  w.stop_at = 1;
  w.stop_value = 5;
  CHECK_EQ_INT(slotmap_each(&empty, walk_cb, &w), SLATE_OK);
  CHECK_EQ_U64(w.calls, 0);
  slotmap_free(&empty);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* callbacks must not modify their slotmap ([D-walk])                        */
/* ------------------------------------------------------------------------ */

typedef struct reent_s {
  slotmap_s* self;
  slotmap_s* other; /* a second slotmap: writable from the callback */
  slotmap_s* copy;  /* a clone made from inside the callback */
  slotmap_key some_key;
  uint32_t length;
  uint32_t calls;
  unsigned attempts_ok; /* modifying calls that were refused as they should */
  unsigned bad;
} reent_s;

static int nested_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (*(uint64_t*)data)++;
  return 0;
}

/* Every modifying call on r->self: each must be INVALID and change nothing. */
static void try_modify(reent_s* r) {
  uint64_t v = 0xBAD;
  slotmap_key k = SENTINEL_KEY;
  unsigned refused = 0;
  refused += slotmap_insert(r->self, &v, &k) == SLATE_ERROR_INVALID && k == SENTINEL_KEY;
  refused += slotmap_insert(r->self, NULL, &k) == SLATE_ERROR_INVALID;
  refused += slotmap_erase(r->self, r->some_key) == SLATE_ERROR_INVALID;
  refused += slotmap_erase_if(r->self, always_cb, NULL) == SLATE_ERROR_INVALID;
  refused += slotmap_sort(r->self, always_less, NULL) == SLATE_ERROR_INVALID;
  refused += slotmap_clear(r->self) == SLATE_ERROR_INVALID;
  refused += slotmap_reserve(r->self, 100000) == SLATE_ERROR_INVALID;
  refused += slotmap_limit(r->self, r->length + 1) == SLATE_ERROR_INVALID;
  slotmap_free(r->self); /* does nothing */
  refused += slotmap_length(r->self) == r->length;
  refused += slotmap_contains(r->self, r->some_key) == 1;
  if (refused == 10)
    r->attempts_ok++;
  else
    r->bad++;
}

/* Reads from inside the walk are allowed: get, row, contains, key_at,
   length, column, a nested each, a clone from it; another slotmap may be
   written. */
static void try_read(reent_s* r) {
  uint32_t row = SENTINEL_ROW;
  uint64_t nested = 0;
  slotmap_key k = 0;
  if (slotmap_get(r->self, r->some_key, NULL) != SLATE_OK) r->bad++;
  if (slotmap_row(r->self, r->some_key, &row) != SLATE_OK || row >= r->length) r->bad++;
  if (slotmap_key_at(r->self, row) != r->some_key) r->bad++;
  if (slotmap_length(r->self) != r->length) r->bad++;
  if (slotmap_column(r->self, 0) == NULL) r->bad++;
  if (slotmap_each(r->self, nested_cb, &nested) != SLATE_OK || nested != r->length) r->bad++;
  if (slotmap_insert(r->other, NULL, &k) != SLATE_OK) r->bad++;
  if (r->copy != NULL && r->calls == 1) {
    if (slotmap_clone(r->copy, r->self) != SLATE_OK || slotmap_length(r->copy) != r->length)
      r->bad++;
  }
  /* after the nested walk ended, the outer walk still holds the lock */
  if (slotmap_clear(r->self) != SLATE_ERROR_INVALID) r->bad++;
}

static int reent_each_cb(slotmap_key key, void* row, void* data) {
  reent_s* r = (reent_s*)data;
  (void)key;
  (void)row;
  r->calls++;
  if (r->calls <= 2) {
    try_modify(r);
    try_read(r);
  }
  return 0;
}

static int reent_pred_cb(slotmap_key key, void* row, void* data) {
  reent_s* r = (reent_s*)data;
  (void)key;
  (void)row;
  r->calls++;
  if (r->calls <= 2) try_modify(r);
  return 0; /* keep everything */
}

static int reent_less(const void* a, const void* b, void* data) {
  reent_s* r = (reent_s*)data;
  r->calls++;
  if (r->calls <= 2) try_modify(r);
  return less_rec_a(a, b, NULL);
}

/* The slotmap holds exactly these keys in this row order with records
   `ids` (by slot: [D-key] fresh slots 0..n-1 hold ids 0..n-1 here). */
static unsigned same_rows(const slotmap_s* sm, const slotmap_key* order, uint32_t n) {
  unsigned bad = 0;
  if (slotmap_length(sm) != n) return 1;
  for (uint32_t r = 0; r < n; r++) {
    if (slotmap_key_at(sm, r) != order[r]) bad++;
    if (!row3_is(sm, r, KEY_SLOT(order[r]))) bad++;
  }
  return bad + dense_problems(sm);
}

/* Tries to re-initialize the walked slotmap from its own callback. */
typedef struct reinit_s {
  slotmap_s* self;
  int rc_one, rc_columns, rc_clone;
  unsigned calls;
} reinit_s;

static void try_reinit(reinit_s* r) {
  static const uint32_t sizes[2] = {4, 8};
  slotmap_s other;
  if (r->calls++ != 0) return;
  r->rc_one = slotmap(r->self, 4);
  r->rc_columns = slotmap_columns(r->self, sizes, 2);
  CHECK_EQ_INT(slotmap(&other, 4), SLATE_OK);
  r->rc_clone = slotmap_clone(r->self, &other);
  slotmap_free(&other);
}

static int reinit_each_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  try_reinit((reinit_s*)data);
  return 0;
}

static int reinit_less(const void* a, const void* b, void* data) {
  try_reinit((reinit_s*)data);
  return less_rec_a(a, b, NULL);
}

static void test_reinit_inside_walk(void) {
  TEST_SECTION("slotmap(), slotmap_columns() and slotmap_clone() inside a walk are refused");
  slotmap_s sm;
  reinit_s r;
  capture_s cap;
  unsigned bad = 0;
  uint32_t n;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < 300; i++) put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  slotmap_key* order = keys_by_row(&sm, &n);
  for (int walk = 0; walk < 3; walk++) {
    memset(&r, 0, sizeof r);
    r.self = &sm;
    capture_stderr(&cap);
    if (walk == 0) CHECK_EQ_INT(slotmap_each(&sm, reinit_each_cb, &r), SLATE_OK);
    if (walk == 1) CHECK_EQ_INT(slotmap_erase_if(&sm, reinit_each_cb, &r), SLATE_OK);
    if (walk == 2) CHECK_EQ_INT(slotmap_sort(&sm, reinit_less, &r), SLATE_OK);
    CHECK_NOTHING_PRINTED(release_stderr(&cap));
    CHECK_EQ_INT(r.rc_one, SLATE_ERROR_INVALID);
    CHECK_EQ_INT(r.rc_columns, SLATE_ERROR_INVALID);
    CHECK_EQ_INT(r.rc_clone, SLATE_ERROR_INVALID);
    CHECK_EQ_U64(slotmap_length(&sm), 300);
    CHECK_EQ_INT(dense_problems(&sm), 0);
    if (walk < 2) CHECK_EQ_INT(same_rows(&sm, order, n), 0);
  }
  for (uint32_t i = 0; i < n; i++)
    if (!key3_is(&sm, order[i], KEY_SLOT(order[i]))) bad++;
  CHECK_EQ_INT(bad, 0);
  /* still a working slotmap */
  put3(&sm, 300, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_erase(&sm, order[0]), SLATE_OK);
  free(order);
  slotmap_free(&sm);
  CHECK_EQ_INT(slotmap(&sm, 4), SLATE_OK);
  slotmap_free(&sm);
}

static void test_callbacks_cannot_modify(void) {
  TEST_SECTION("modifying a slotmap from its own each / erase_if / sort callback");
  slotmap_s sm, other, copy;
  unsigned bad = 0;
  reent_s r;
  uint32_t n;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap(&other, 4), SLATE_OK);
  for (uint64_t i = 0; i < 200; i++) put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  slotmap_key* order = keys_by_row(&sm, &n);

  /* each */
  memset(&r, 0, sizeof r);
  r.self = &sm;
  r.other = &other;
  r.copy = &copy;
  r.some_key = slotmap_key_at(&sm, 57);
  r.length = slotmap_length(&sm);
  CHECK_EQ_INT(slotmap_each(&sm, reent_each_cb, &r), SLATE_OK);
  CHECK_EQ_U64(r.calls, 200);
  CHECK_EQ_INT(r.attempts_ok, 2);
  CHECK_EQ_INT(r.bad, 0);
  CHECK_EQ_INT(same_rows(&sm, order, n), 0);
  CHECK_EQ_U64(slotmap_length(&other), 2);
  /* the copy made inside is independent and writable afterwards */
  CHECK_EQ_INT(same_rows(&copy, order, n), 0);
  CHECK_EQ_INT(slotmap_erase(&copy, order[0]), SLATE_OK);
  CHECK_EQ_INT(slotmap_get(&sm, order[0], NULL), SLATE_OK);
  slotmap_free(&copy);

  /* erase_if: the predicate keeps everything; its modifications are refused */
  memset(&r, 0, sizeof r);
  r.self = &sm;
  r.other = &other;
  r.some_key = slotmap_key_at(&sm, 57);
  r.length = slotmap_length(&sm);
  CHECK_EQ_INT(slotmap_erase_if(&sm, reent_pred_cb, &r), SLATE_OK);
  CHECK_EQ_U64(r.calls, 200);
  CHECK_EQ_INT(r.attempts_ok, 2);
  CHECK_EQ_INT(r.bad, 0);
  CHECK_EQ_INT(same_rows(&sm, order, n), 0);

  /* sort: the comparator's modifications are refused; the sort still sorts */
  memset(&r, 0, sizeof r);
  r.self = &sm;
  r.other = &other;
  r.some_key = slotmap_key_at(&sm, 57);
  r.length = slotmap_length(&sm);
  CHECK_EQ_INT(slotmap_sort(&sm, reent_less, &r), SLATE_OK);
  CHECK(r.calls >= 2);
  CHECK_EQ_INT(r.attempts_ok, 2);
  CHECK_EQ_INT(r.bad, 0);
  CHECK_EQ_U64(slotmap_length(&sm), 200);
  for (uint32_t i = 0; i < n; i++)
    if (!key3_is(&sm, order[i], KEY_SLOT(order[i]))) bad++;
  CHECK_EQ_INT(bad, 0);
  {
    const rec_s* c0 = (const rec_s*)slotmap_column(&sm, 0);
    for (uint32_t i = 1; i < n; i++)
      if (c0[i - 1].a > c0[i].a) bad++;
    CHECK_EQ_INT(bad, 0);
  }

  /* the lock is gone after each walk: every modification works again */
  slotmap_key k = put3(&sm, 999, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK(key3_is(&sm, k, 999));
  CHECK_EQ_INT(slotmap_erase(&sm, k), SLATE_OK);
  CHECK_EQ_INT(slotmap_reserve(&sm, 400), SLATE_OK);
  CHECK_EQ_INT(slotmap_limit(&sm, 400), SLATE_OK);
  CHECK_EQ_INT(slotmap_sort(&sm, greater_rec_a, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_erase_if(&sm, never_cb, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  free(order);
  slotmap_free(&sm);
  slotmap_free(&other);
}

/* ------------------------------------------------------------------------ */
/* slotmap_erase_if                                                          */
/* ------------------------------------------------------------------------ */

typedef struct filter_s {
  uint32_t modulus; /* erase records with id % modulus == 0 */
  int yes;          /* the non-zero value to return */
  uint32_t calls;
  unsigned bad;
  unsigned char seen[2000];
} filter_s;

static int filter_cb(slotmap_key key, void* row, void* data) {
  filter_s* f = (filter_s*)data;
  const rec_s* rec = (const rec_s*)row;
  uint64_t id = id_of_rec(rec);
  rec_s want = rec_for(id);
  f->calls++;
  /* the predicate sees the key with its own row ([D-key]: slot == id here) */
  if (KEY_SLOT(key) != id || memcmp(rec, &want, sizeof want) != 0) f->bad++;
  if (id < 2000) {
    if (f->seen[id]) f->bad++; /* each row exactly once */
    f->seen[id] = 1;
  }
  return id % f->modulus == 0 ? f->yes : 0;
}

static void test_erase_if(void) {
  TEST_SECTION("slotmap_erase_if");
  enum { N = 1500 };
  slotmap_s sm;
  static slotmap_key keys[N];
  static filter_s f;
  unsigned bad = 0;
  uint32_t n;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < N; i++) keys[i] = put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  /* shuffle the rows a little first (erase + reinsert would change keys:
     sort instead) */
  CHECK_EQ_INT(slotmap_sort(&sm, less_rec_a, NULL), SLATE_OK);
  slotmap_key* before = keys_by_row(&sm, &n);

  memset(&f, 0, sizeof f);
  f.modulus = 3;
  f.yes = 1;
  /* SLATE_OK, not a count */
  CHECK_EQ_INT(slotmap_erase_if(&sm, filter_cb, &f), SLATE_OK);
  CHECK_EQ_U64(f.calls, N);
  CHECK_EQ_INT(f.bad, 0);
  CHECK_EQ_U64(slotmap_length(&sm), N - (N + 2) / 3);
  /* exactly the matching rows went; survivors keep keys and data */
  for (uint64_t i = 0; i < N; i++)
    if (i % 3 == 0 ? !is_stale(&sm, keys[i]) : !key3_is(&sm, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(dense_problems(&sm), 0);
  /* [D-order] the survivors keep their relative order */
  {
    uint32_t w = 0;
    for (uint32_t r = 0; r < n; r++) {
      if (KEY_SLOT(before[r]) % 3 == 0) continue;
      if (slotmap_key_at(&sm, w) != before[r]) bad++;
      w++;
    }
    CHECK_EQ_U64(w, slotmap_length(&sm));
    CHECK_EQ_INT(bad, 0);
  }
  free(before);

  /* a predicate that keeps everything changes nothing */
  before = keys_by_row(&sm, &n);
  CHECK_EQ_INT(slotmap_erase_if(&sm, never_cb, NULL), SLATE_OK);
  CHECK_EQ_INT(same_rows(&sm, before, n), 0);
  free(before);

  /* freed slots are reused: the index does not grow */
  for (uint64_t i = N; i < N + 500; i++) {
    slotmap_key k = put3(&sm, i, &bad);
    if (KEY_SLOT(k) >= N) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(slotmap_length(&sm), N - (N + 2) / 3 + 500);
  CHECK_EQ_U64(count_rows(&sm), N - (N + 2) / 3 + 500);

  /* any non-zero value erases (here -1); erasing every row */
  memset(&f, 0, sizeof f);
  f.modulus = 1;
  f.yes = -1;
  CHECK_EQ_INT(slotmap_erase_if(&sm, filter_cb, &f), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  for (uint64_t i = 0; i < N; i++)
    if (!is_stale(&sm, keys[i])) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(slotmap_key_at(&sm, 0), 0);
  /* on an empty slotmap: no calls */
  memset(&f, 0, sizeof f);
  f.modulus = 1;
  f.yes = 1;
  CHECK_EQ_INT(slotmap_erase_if(&sm, filter_cb, &f), SLATE_OK);
  CHECK_EQ_U64(f.calls, 0);
  /* the slotmap is usable afterwards */
  slotmap_key k = put3(&sm, 5, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK(key3_is(&sm, k, 5));
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* slotmap_sort                                                              */
/* ------------------------------------------------------------------------ */

static void test_sort(void) {
  TEST_SECTION("slotmap_sort");
  enum { N = 2000 };
  slotmap_s sm;
  static slotmap_key keys[N];
  unsigned bad = 0;
  uint64_t comparisons = 0;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  /* 0 and 1 rows: nothing to do, still OK */
  CHECK_EQ_INT(slotmap_sort(&sm, less_rec_a, NULL), SLATE_OK);
  keys[0] = put3(&sm, 0, &bad);
  CHECK_EQ_INT(slotmap_sort(&sm, less_rec_a, NULL), SLATE_OK);
  CHECK(key3_is(&sm, keys[0], 0));
  for (uint64_t i = 1; i < N; i++) keys[i] = put3(&sm, i, &bad);
  for (uint64_t i = 0; i < N; i += 5) CHECK_EQ_INT(slotmap_erase(&sm, keys[i]), SLATE_OK);
  CHECK_EQ_INT(bad, 0);

  /* ascending by column 0, the data pointer reaching the comparator */
  CHECK_EQ_INT(slotmap_sort(&sm, less_rec_a, &comparisons), SLATE_OK);
  CHECK(comparisons > 0);
  const rec_s* c0 = (const rec_s*)slotmap_column(&sm, 0);
  uint32_t n = slotmap_length(&sm);
  for (uint32_t r = 1; r < n; r++)
    if (c0[r - 1].a > c0[r].a) bad++;
  CHECK_EQ_INT(bad, 0);
  /* every key stays valid, with its data in every column */
  for (uint64_t i = 0; i < N; i++)
    if (i % 5 == 0 ? !is_stale(&sm, keys[i]) : !key3_is(&sm, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(dense_problems(&sm), 0);

  /* descending */
  CHECK_EQ_INT(slotmap_sort(&sm, greater_rec_a, NULL), SLATE_OK);
  c0 = (const rec_s*)slotmap_column(&sm, 0);
  for (uint32_t r = 1; r < n; r++)
    if (c0[r - 1].a < c0[r].a) bad++;
  for (uint64_t i = 0; i < N; i++)
    if (i % 5 != 0 && !key3_is(&sm, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(dense_problems(&sm), 0);

  /* an inconsistent comparator: some permutation, keys still valid */
  CHECK_EQ_INT(slotmap_sort(&sm, always_less, NULL), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), n);
  for (uint64_t i = 0; i < N; i++)
    if (i % 5 != 0 && !key3_is(&sm, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(dense_problems(&sm), 0);

  /* erase and insert keep working after sorts */
  CHECK_EQ_INT(slotmap_erase(&sm, keys[1]), SLATE_OK);
  slotmap_key k = put3(&sm, 1, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK(key3_is(&sm, k, 1));
  CHECK(is_stale(&sm, keys[1]));
  CHECK_EQ_INT(dense_problems(&sm), 0);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* slotmap_limit                                                             */
/* ------------------------------------------------------------------------ */

static void test_limit(void) {
  TEST_SECTION("slotmap_limit");
  slotmap_s sm, copy;
  slotmap_key keys[32];
  unsigned bad = 0;
  uint32_t n;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap_limit(&sm, 10), SLATE_OK);
  for (uint64_t i = 0; i < 10; i++) keys[i] = put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  slotmap_key* order = keys_by_row(&sm, &n);

  /* an insert at the limit is FULL and changes nothing */
  {
    unsigned char row[ROW3];
    slotmap_key k = SENTINEL_KEY;
    pack3(row, 10);
    CHECK_EQ_INT(slotmap_insert(&sm, row, &k), SLATE_ERROR_FULL);
    CHECK_EQ_U64(k, SENTINEL_KEY);
    CHECK_EQ_INT(slotmap_insert(&sm, NULL, &k), SLATE_ERROR_FULL);
    CHECK_EQ_U64(k, SENTINEL_KEY);
  }
  CHECK_EQ_INT(same_rows(&sm, order, n), 0);
  for (uint64_t i = 0; i < 10; i++) CHECK(key3_is(&sm, keys[i], i));
  /* [D-reserve] reserve beyond the limit is FULL; up to it OK */
  CHECK_EQ_INT(slotmap_reserve(&sm, 11), SLATE_ERROR_FULL);
  CHECK_EQ_INT(slotmap_reserve(&sm, UINT32_MAX), SLATE_ERROR_FULL);
  CHECK_EQ_INT(slotmap_reserve(&sm, 10), SLATE_OK);
  CHECK_EQ_INT(slotmap_reserve(&sm, 3), SLATE_OK); /* below the length: nothing to do */
  CHECK_EQ_INT(same_rows(&sm, order, n), 0);

  /* [D-limit] a limit below the length is INVALID and keeps the old one */
  CHECK_EQ_INT(slotmap_limit(&sm, 9), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_limit(&sm, 0), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(same_rows(&sm, order, n), 0);
  CHECK_EQ_INT(slotmap_reserve(&sm, 11), SLATE_ERROR_FULL); /* still 10 */
  CHECK_EQ_INT(slotmap_limit(&sm, 10), SLATE_OK);            /* equal to the length */
  /* erasing makes room again */
  CHECK_EQ_INT(slotmap_erase(&sm, keys[4]), SLATE_OK);
  keys[10] = put3(&sm, 10, &bad);
  CHECK_EQ_INT(bad, 0);
  {
    slotmap_key k = SENTINEL_KEY;
    CHECK_EQ_INT(slotmap_insert(&sm, NULL, &k), SLATE_ERROR_FULL);
  }
  /* raising the limit */
  CHECK_EQ_INT(slotmap_limit(&sm, 20), SLATE_OK);
  for (uint64_t i = 11; i < 21; i++) keys[i] = put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(slotmap_length(&sm), 20);
  {
    slotmap_key k = SENTINEL_KEY;
    CHECK_EQ_INT(slotmap_insert(&sm, NULL, &k), SLATE_ERROR_FULL);
    CHECK_EQ_U64(k, SENTINEL_KEY);
  }
  for (uint64_t i = 0; i < 21; i++)
    if (i == 4 ? !is_stale(&sm, keys[i]) : !key3_is(&sm, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);

  /* [D-clone] a clone keeps the limit */
  CHECK_EQ_INT(slotmap_clone(&copy, &sm), SLATE_OK);
  {
    slotmap_key k = SENTINEL_KEY;
    CHECK_EQ_INT(slotmap_insert(&copy, NULL, &k), SLATE_ERROR_FULL);
    CHECK_EQ_INT(slotmap_reserve(&copy, 21), SLATE_ERROR_FULL);
  }
  slotmap_free(&copy);

  /* a limit of 0 on an empty slotmap: every insert is FULL */
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  CHECK_EQ_INT(slotmap_limit(&sm, 0), SLATE_OK);
  {
    slotmap_key k = SENTINEL_KEY;
    CHECK_EQ_INT(slotmap_insert(&sm, NULL, &k), SLATE_ERROR_FULL);
    CHECK_EQ_U64(k, SENTINEL_KEY);
    CHECK_EQ_INT(slotmap_reserve(&sm, 1), SLATE_ERROR_FULL);
    CHECK_EQ_INT(slotmap_reserve(&sm, 0), SLATE_OK);
  }
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  /* The largest limit: include/slate.h lists INVALID only for a NULL
     slotmap, a limit below the length, or a call from inside a walk, so
     UINT32_MAX ("no limit", the natural C spelling) must be accepted. */
  CHECK_EQ_INT(slotmap_limit(&sm, UINT32_MAX - 1), SLATE_OK);
  CHECK_EQ_INT(slotmap_limit(&sm, UINT32_MAX), SLATE_OK);
  keys[0] = put3(&sm, 0, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK(key3_is(&sm, keys[0], 0));
  /* a reserve no slotmap can satisfy fails and changes nothing */
  {
    int rc = slotmap_reserve(&sm, UINT32_MAX);
    CHECK(rc == SLATE_ERROR_FULL || rc == SLATE_ERROR_ALLOC);
    CHECK(key3_is(&sm, keys[0], 0));
    CHECK_EQ_U64(slotmap_length(&sm), 1);
  }
  free(order);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* slotmap_reserve                                                           */
/* ------------------------------------------------------------------------ */

/* (test_slotmap_hooks.c counts the allocations; here the column base must
   not move while inserts stay within the reserved room.) */
static void test_reserve(void) {
  TEST_SECTION("slotmap_reserve");
  slotmap_s sm;
  static slotmap_key keys[3100];
  unsigned bad = 0, moved = 0;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap_reserve(&sm, 0), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  CHECK_EQ_INT(slotmap_reserve(&sm, 1000), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  void* base = slotmap_column(&sm, 0);
  CHECK(base != NULL && aligned16(base)); /* [D-column] allocated now */
  for (uint64_t i = 0; i < 1000; i++) {
    keys[i] = put3(&sm, i, &bad);
    if (slotmap_column(&sm, 0) != base) moved++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(moved, 0);
  /* reserving less than the length changes nothing */
  CHECK_EQ_INT(slotmap_reserve(&sm, 500), SLATE_OK);
  CHECK_EQ_PTR(slotmap_column(&sm, 0), base);
  /* [D-reserve] room for n rows in all, counting erased slots */
  for (uint64_t i = 0; i < 1000; i += 10) CHECK_EQ_INT(slotmap_erase(&sm, keys[i]), SLATE_OK);
  CHECK_EQ_INT(slotmap_reserve(&sm, 3000), SLATE_OK);
  base = slotmap_column(&sm, 0);
  for (uint64_t i = 1000; i < 3100; i++) { /* 2100 inserts: 900 -> 3000 rows */
    keys[i] = put3(&sm, i, &bad);
    if (slotmap_column(&sm, 0) != base) moved++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(moved, 0);
  CHECK_EQ_U64(slotmap_length(&sm), 3000);
  for (uint64_t i = 0; i < 3100; i++) {
    if (i < 1000 && i % 10 == 0) {
      if (!is_stale(&sm, keys[i])) bad++;
    } else if (!key3_is(&sm, keys[i], i)) {
      bad++;
    }
  }
  CHECK_EQ_INT(bad, 0);
  for (int c = 0; c < 3; c++) CHECK(aligned16(slotmap_column(&sm, (uint32_t)c)));
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* slotmap_clear                                                             */
/* ------------------------------------------------------------------------ */

static void test_clear(void) {
  TEST_SECTION("slotmap_clear");
  enum { N = 500 };
  slotmap_s sm;
  static slotmap_key keys[N], again[N];
  unsigned bad = 0, moved = 0;
  uint64_t calls = 0;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK); /* fresh */
  for (uint64_t i = 0; i < N; i++) keys[i] = put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  CHECK_EQ_U64(slotmap_key_at(&sm, 0), 0);
  CHECK_EQ_INT(slotmap_each(&sm, count_cb, &calls), SLATE_OK);
  CHECK_EQ_U64(calls, 0);
  for (uint64_t i = 0; i < N; i++)
    if (!is_stale(&sm, keys[i]) || slotmap_erase(&sm, keys[i]) != SLATE_ERROR_NOT_FOUND) bad++;
  CHECK_EQ_INT(bad, 0);
  /* [D-column] capacity kept: the columns stay allocated and do not move
     while refilling (test_slotmap_hooks.c counts the allocations) */
  void* base = slotmap_column(&sm, 0);
  CHECK(base != NULL);
  for (uint64_t i = 0; i < N; i++) {
    again[i] = put3(&sm, N + i, &bad);
    if (slotmap_column(&sm, 0) != base) moved++;
    if (KEY_SLOT(again[i]) >= N) bad++; /* slots reused, the index does not grow */
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(moved, 0);
  for (uint64_t i = 0; i < N; i++) {
    if (!is_stale(&sm, keys[i])) bad++;
    if (!key3_is(&sm, again[i], N + i)) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(dense_problems(&sm), 0);
  CHECK_EQ_U64(count_rows(&sm), N);
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK); /* twice */
  CHECK_EQ_U64(count_rows(&sm), 0);
  for (uint64_t i = 0; i < N; i++)
    if (!is_stale(&sm, keys[i]) || !is_stale(&sm, again[i])) bad++;
  CHECK_EQ_INT(bad, 0);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* slotmap_clone                                                             */
/* ------------------------------------------------------------------------ */

static void test_clone(void) {
  TEST_SECTION("slotmap_clone");
  enum { N = 300 };
  slotmap_s src, copy;
  static slotmap_key keys[N];
  unsigned bad = 0;
  uint32_t n;
  CHECK_EQ_INT(slotmap_columns(&src, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < N; i++) keys[i] = put3(&src, i, &bad);
  for (uint64_t i = 0; i < N; i += 7) CHECK_EQ_INT(slotmap_erase(&src, keys[i]), SLATE_OK);
  CHECK_EQ_INT(bad, 0);
  slotmap_key* order = keys_by_row(&src, &n);

  memset(&copy, 0xA7, sizeof copy); /* an uninitialized destination */
  CHECK_EQ_INT(slotmap_clone(&copy, &src), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&copy), slotmap_length(&src));
  CHECK_NE_PTR(slotmap_column(&copy, 0), slotmap_column(&src, 0));
  /* the same keys are valid in both, with the same data */
  for (uint64_t i = 0; i < N; i++) {
    if (i % 7 == 0) {
      if (!is_stale(&copy, keys[i]) || !is_stale(&src, keys[i])) bad++;
    } else if (!key3_is(&copy, keys[i], i) || !key3_is(&src, keys[i], i)) {
      bad++;
    }
  }
  CHECK_EQ_INT(bad, 0);
  /* [D-clone] in the same row order */
  CHECK_EQ_INT(same_rows(&copy, order, n), 0);
  for (int c = 0; c < 3; c++) CHECK(aligned16(slotmap_column(&copy, (uint32_t)c)));

  /* independent: erasing, inserting and writing in the copy leave the
     source alone, and the other way round */
  for (uint64_t i = 1; i < N; i += 7) CHECK_EQ_INT(slotmap_erase(&copy, keys[i]), SLATE_OK);
  {
    void* e = NULL;
    CHECK_EQ_INT(slotmap_get(&copy, keys[2], &e), SLATE_OK);
    ((rec_s*)e)->c = 12345;
  }
  slotmap_key kc = put3(&copy, 5000, &bad);
  slotmap_key ks = put3(&src, 6000, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK(key3_is(&copy, kc, 5000));
  CHECK(key3_is(&src, ks, 6000));
  for (uint64_t i = 0; i < N; i++) {
    if (i % 7 == 0) continue;
    if (!key3_is(&src, keys[i], i)) bad++; /* the source still has all */
    if (i % 7 == 1 && !is_stale(&copy, keys[i])) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_erase(&src, keys[3]), SLATE_OK);
  CHECK(key3_is(&copy, keys[3], 3));
  CHECK_EQ_INT(dense_problems(&copy), 0);
  CHECK_EQ_INT(dense_problems(&src), 0);

  /* a freed slotmap is a valid clone destination */
  slotmap_free(&copy);
  CHECK_EQ_INT(slotmap_clone(&copy, &src), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&copy), slotmap_length(&src));
  CHECK(key3_is(&copy, ks, 6000));
  slotmap_free(&copy);

  /* a clone of a fresh slotmap: empty, same columns, usable */
  slotmap_s fresh;
  CHECK_EQ_INT(slotmap_columns(&fresh, SIZES3, 3), SLATE_OK);
  memset(&copy, 0x3C, sizeof copy);
  CHECK_EQ_INT(slotmap_clone(&copy, &fresh), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&copy), 0);
  slotmap_key k = put3(&copy, 77, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK(key3_is(&copy, k, 77));
  CHECK_EQ_PTR(slotmap_column(&copy, 3), NULL);
  slotmap_free(&copy);
  slotmap_free(&fresh);

  /* a clone of an emptied (cleared) slotmap */
  slotmap_s cleared;
  CHECK_EQ_INT(slotmap_clone(&cleared, &src), SLATE_OK);
  CHECK_EQ_INT(slotmap_clear(&cleared), SLATE_OK);
  CHECK_EQ_INT(slotmap_clone(&copy, &cleared), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&copy), 0);
  CHECK(is_stale(&copy, ks));
  k = put3(&copy, 78, &bad);
  CHECK(key3_is(&copy, k, 78));
  slotmap_free(&copy);
  slotmap_free(&cleared);

  /* clone onto itself: INVALID, nothing changed */
  uint32_t len = slotmap_length(&src);
  CHECK_EQ_INT(slotmap_clone(&src, &src), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slotmap_length(&src), len);
  CHECK(key3_is(&src, ks, 6000));
  free(order);
  slotmap_free(&src);
}

/* ------------------------------------------------------------------------ */
/* slotmap_free                                                              */
/* ------------------------------------------------------------------------ */

static void test_free(void) {
  TEST_SECTION("slotmap_free");
  enum { N = 200 };
  slotmap_s sm, other;
  static slotmap_key keys[N], again[N];
  unsigned bad = 0, collisions = 0;
  uint64_t calls = 0;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  slotmap_free(&sm); /* a fresh slotmap */
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  for (uint64_t i = 0; i < N; i++) keys[i] = put3(&sm, i, &bad);
  CHECK_EQ_INT(slotmap_erase(&sm, keys[5]), SLATE_OK);
  CHECK_EQ_INT(bad, 0);
  slotmap_free(&sm);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  CHECK_EQ_PTR(slotmap_column(&sm, 0), NULL); /* [D-column] nothing held */
  CHECK_EQ_U64(slotmap_key_at(&sm, 0), 0);
  CHECK_EQ_INT(slotmap_each(&sm, count_cb, &calls), SLATE_OK);
  CHECK_EQ_U64(calls, 0);
  for (uint64_t i = 0; i < N; i++)
    if (!is_stale(&sm, keys[i])) bad++;
  CHECK_EQ_INT(bad, 0);
  slotmap_free(&sm); /* twice */
  slotmap_free(&sm);
  CHECK_EQ_U64(slotmap_length(&sm), 0);

  /* usable: the same columns; the slots come back, but no old key
     validates again, and no new key equals an old one */
  for (uint64_t i = 0; i < N; i++) again[i] = put3(&sm, 1000 + i, &bad);
  CHECK_EQ_INT(bad, 0);
  for (uint64_t i = 0; i < N; i++) {
    if (!is_stale(&sm, keys[i])) bad++;
    if (!key3_is(&sm, again[i], 1000 + i)) bad++;
    for (uint64_t j = 0; j < N; j++)
      if (again[i] == keys[j]) collisions++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(collisions, 0);
  CHECK_EQ_INT(dense_problems(&sm), 0);

  /* a freed slotmap is a valid clone destination */
  CHECK_EQ_INT(slotmap(&other, 8), SLATE_OK);
  slotmap_key ko = put_u64(&other, 4242, &bad);
  slotmap_free(&sm);
  CHECK_EQ_INT(slotmap_clone(&sm, &other), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 1);
  CHECK_EQ_U64(value_u64(&sm, ko, 0), 4242);
  CHECK_EQ_PTR(slotmap_column(&sm, 1), NULL); /* the source's one column */
  slotmap_free(&sm);
  slotmap_free(&other);
  slotmap_free(&other);
}

/* ------------------------------------------------------------------------ */
/* moving a slotmap with memcpy                                              */
/* ------------------------------------------------------------------------ */

typedef struct holder_s {
  char tag;
  slotmap_s sm;
} holder_s;

static void test_memcpy_move(void) {
  TEST_SECTION("memcpy-moving a slotmap");
  enum { N = 2000 };
  slotmap_s a;
  static slotmap_key keys[N];
  unsigned bad = 0;
  CHECK_EQ_INT(slotmap_columns(&a, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < 1000; i++) keys[i] = put3(&a, i, &bad);
  for (uint64_t i = 0; i < 1000; i += 4) CHECK_EQ_INT(slotmap_erase(&a, keys[i]), SLATE_OK);
  CHECK_EQ_INT(bad, 0);

  slotmap_s* heap = (slotmap_s*)malloc(sizeof(slotmap_s));
  memcpy(heap, &a, sizeof a);
  memset(&a, 0xEE, sizeof a);
  for (uint64_t i = 0; i < 1000; i++)
    if (i % 4 == 0 ? !is_stale(heap, keys[i]) : !key3_is(heap, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  for (uint64_t i = 1000; i < N; i++) keys[i] = put3(heap, i, &bad); /* grows */
  CHECK_EQ_INT(slotmap_sort(heap, less_rec_a, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_erase(heap, keys[1]), SLATE_OK);
  CHECK_EQ_INT(bad, 0);

  holder_s* h = (holder_s*)malloc(sizeof(holder_s));
  h->tag = 'h';
  memcpy(&h->sm, heap, sizeof(slotmap_s));
  memset(heap, 0x77, sizeof(slotmap_s));
  free(heap);
  for (uint64_t i = 0; i < N; i++) {
    int gone = (i < 1000 && i % 4 == 0) || i == 1;
    if (gone ? !is_stale(&h->sm, keys[i]) : !key3_is(&h->sm, keys[i], i)) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(dense_problems(&h->sm), 0);
  /* move back, keep using it */
  memcpy(&a, &h->sm, sizeof a);
  free(h);
  CHECK_EQ_INT(slotmap_erase(&a, keys[2]), SLATE_OK);
  slotmap_key k = put3(&a, 9999, &bad);
  CHECK(key3_is(&a, k, 9999));
  CHECK_EQ_INT(dense_problems(&a), 0);
  slotmap_free(&a);

  /* an empty and a freed slotmap move the same way */
  slotmap_s s, t;
  CHECK_EQ_INT(slotmap(&s, 8), SLATE_OK);
  memcpy(&t, &s, sizeof s);
  memset(&s, 0, sizeof s);
  slotmap_key k1 = put_u64(&t, 1, &bad);
  CHECK_EQ_U64(value_u64(&t, k1, 0), 1);
  slotmap_free(&t);
  memcpy(&s, &t, sizeof s);
  CHECK_EQ_U64(slotmap_length(&s), 0);
  CHECK(is_stale(&s, k1));
  slotmap_key k2 = put_u64(&s, 2, &bad);
  CHECK_EQ_U64(value_u64(&s, k2, 0), 2);
  CHECK_EQ_INT(bad, 0);
  slotmap_free(&s);
}

/* ------------------------------------------------------------------------ */
/* pointer validity                                                          */
/* ------------------------------------------------------------------------ */

static int read_walk_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (void)data;
  return 0;
}

/* SPEC 6: pointers from slotmap_get / slotmap_column are valid until the
   next call that inserts, erases, sorts, clears or frees.  So reads (and
   anything done to another slotmap) keep them valid, and writes through
   them change the row. */
static void test_pointer_validity(void) {
  TEST_SECTION("pointer validity");
  slotmap_s sm, other, copy;
  slotmap_key keys[100];
  unsigned bad = 0;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap(&other, 8), SLATE_OK);
  for (uint64_t i = 0; i < 100; i++) keys[i] = put_u64(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  void* e = NULL;
  uint64_t* col = (uint64_t*)slotmap_column(&sm, 0);
  CHECK_EQ_INT(slotmap_get(&sm, keys[50], &e), SLATE_OK);
  CHECK_EQ_PTR(e, col + 50);

  /* reads of this slotmap and writes to another */
  uint32_t r;
  for (int i = 0; i < 100; i++) {
    (void)slotmap_get(&sm, keys[i], NULL);
    (void)slotmap_row(&sm, keys[i], &r);
    (void)slotmap_contains(&sm, keys[i]);
    (void)slotmap_key_at(&sm, (uint32_t)i);
  }
  (void)slotmap_length(&sm);
  (void)slotmap_each(&sm, read_walk_cb, NULL);
  CHECK_EQ_INT(slotmap_clone(&copy, &sm), SLATE_OK);
  for (uint64_t i = 0; i < 5000; i++) (void)put_u64(&other, i, &bad);
  CHECK_EQ_INT(slotmap_sort(&other, less_u32, NULL), SLATE_OK);
  slotmap_free(&other);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_PTR(slotmap_column(&sm, 0), col);
  {
    void* again = NULL;
    CHECK_EQ_INT(slotmap_get(&sm, keys[50], &again), SLATE_OK);
    CHECK_EQ_PTR(again, e);
  }
  CHECK_EQ_U64(*(uint64_t*)e, 50);

  /* a write through the pointer is the row's data */
  *(uint64_t*)e = 0xABCDEF;
  CHECK_EQ_U64(col[50], 0xABCDEF);
  CHECK_EQ_U64(value_u64(&sm, keys[50], 0), 0xABCDEF);
  CHECK_EQ_U64(value_u64(&copy, keys[50], 0), 50); /* not the copy's */
  /* after an erase moves the last row into row 50's place, a fresh lookup
     gives the new place */
  CHECK_EQ_INT(slotmap_erase(&sm, keys[50]), SLATE_OK);
  CHECK_EQ_INT(slotmap_get(&sm, keys[99], &e), SLATE_OK);
  CHECK_EQ_PTR(e, (uint64_t*)slotmap_column(&sm, 0) + 50);
  CHECK_EQ_U64(*(uint64_t*)e, 99);
  slotmap_free(&copy);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* reads from inside erase_if and sort: a clone made there                   */
/* ------------------------------------------------------------------------ */

typedef struct snap_cb_s {
  slotmap_s* self;
  slotmap_s* copy;
  uint32_t calls, at;
  int rc;
} snap_cb_s;

static int snap_pred_cb(slotmap_key key, void* row, void* data) {
  snap_cb_s* s = (snap_cb_s*)data;
  (void)key;
  if (++s->calls == s->at) s->rc = slotmap_clone(s->copy, s->self);
  return id_of_rec((const rec_s*)row) % 2 == 0;
}

static int snap_less(const void* a, const void* b, void* data) {
  snap_cb_s* s = (snap_cb_s*)data;
  if (++s->calls == s->at) s->rc = slotmap_clone(s->copy, s->self);
  return less_rec_a(a, b, NULL);
}

/* A slotmap is sound: dense, every key it lists valid with its own record
   ([D-key]: slot == id for the records used here), and erasing the keys it
   lists empties it. */
static unsigned soundness_problems(slotmap_s* sm) {
  unsigned bad = dense_problems(sm);
  uint32_t n = slotmap_length(sm);
  for (uint32_t r = 0; r < n; r++) {
    slotmap_key k = slotmap_key_at(sm, r);
    if (!key3_is(sm, k, KEY_SLOT(k))) bad++;
  }
  for (uint32_t guard = 0; slotmap_length(sm) > 0 && guard <= n; guard++)
    if (slotmap_erase(sm, slotmap_key_at(sm, 0)) != SLATE_OK) {
      bad++;
      break;
    }
  if (slotmap_length(sm) != 0) bad++;
  return bad;
}

/* [D-walk] refuses only the calls that would modify the slotmap; a clone
   from it is a read (as SPEC 3 lists "clone from it" among the reads allowed
   inside slate_each), and include/slate.h names only modifications as
   forbidden in an erase_if predicate or a sort comparator.  So a clone made
   there must be refused or sound; a silently broken copy is a bug. */
static void test_clone_inside_callbacks(void) {
  TEST_SECTION("a clone made inside an erase_if predicate or a sort comparator");
  enum { N = 10 };
  slotmap_s sm, copy;
  snap_cb_s s;
  unsigned bad = 0;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < N; i++) put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);

  /* inside sort: the rows have not moved yet */
  memset(&s, 0, sizeof s);
  s.self = &sm;
  s.copy = &copy;
  s.at = 3;
  s.rc = 12345;
  CHECK_EQ_INT(slotmap_sort(&sm, snap_less, &s), SLATE_OK);
  CHECK(s.rc == SLATE_OK || s.rc == SLATE_ERROR_INVALID);
  if (s.rc == SLATE_OK) {
    CHECK_EQ_U64(slotmap_length(&copy), N);
    CHECK_EQ_INT(soundness_problems(&copy), 0);
    slotmap_free(&copy);
  }

  /* inside erase_if, after the predicate erased some rows already */
  memset(&s, 0, sizeof s);
  s.self = &sm;
  s.copy = &copy;
  s.at = 6;
  s.rc = 12345;
  CHECK_EQ_INT(slotmap_erase_if(&sm, snap_pred_cb, &s), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), N / 2);
  CHECK_EQ_INT(soundness_problems(&sm), 0);
  CHECK(s.rc == SLATE_OK || s.rc == SLATE_ERROR_INVALID);
  if (s.rc == SLATE_OK) {
    unsigned problems = soundness_problems(&copy);
    if (problems != 0)
      fprintf(stderr, "   the clone made inside slotmap_erase_if is broken (%u problems)\n",
              problems);
    CHECK_EQ_INT(problems, 0);
    slotmap_free(&copy);
  }
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* inserting a copy of the slotmap's own element                            */
/* ------------------------------------------------------------------------ */

/* SPEC 6: a pointer from slotmap_get is valid until the next call that
   inserts, so it is still valid as that call's argument (as v[0] is for
   std::vector::push_back).  Duplicating an element of a one-column slotmap
   this way must copy the right bytes also when the insert grows the rows.
   (Run last: if the library reads the freed rows, AddressSanitizer stops
   the program here.) */
static void test_insert_own_element(void) {
  TEST_SECTION("inserting a copy of the slotmap's own element");
  slotmap_s sm;
  slotmap_key first = 0, k = 0;
  unsigned bad = 0, wrong = 0;
  const uint64_t pattern = 0x1122334455667788ull;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_insert(&sm, &pattern, &first), SLATE_OK);
  for (int i = 0; i < 200; i++) { /* through several growths */
    void* e = NULL;
    if (slotmap_get(&sm, first, &e) != SLATE_OK) bad++;
    if (slotmap_insert(&sm, e, &k) != SLATE_OK) bad++;
    if (value_u64(&sm, k, 0) != pattern) {
      if (wrong++ == 0)
        fprintf(stderr, "   copy #%d (length %u): 0x%016llx\n", i + 1, slotmap_length(&sm),
                (unsigned long long)value_u64(&sm, k, 0));
    }
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(wrong, 0);
  CHECK_EQ_U64(slotmap_length(&sm), 201);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* the randomized test against a model                                       */
/* ------------------------------------------------------------------------ */

/* The slotmap under test has three columns: a uint32_t value (the sort
   column), a uint64_t tag and a 1-byte flag.  The model is the array of live
   records (key, value, tag, flag) in no particular order, the list of every
   key that went stale, and the list of every key ever issued (all distinct,
   checked at the end). */
#define R_CAP 5000u
#define R_ROW 13 /* 4 + 8 + 1 */
static const uint32_t RSIZES[3] = {4, 8, 1};

typedef struct rrec_s {
  slotmap_key key;
  uint32_t value;
  uint64_t tag;
  uint8_t flag;
} rrec_s;

typedef struct keylist_s {
  slotmap_key* keys;
  size_t n, cap;
} keylist_s;

static void keylist_push(keylist_s* l, slotmap_key k) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 4096;
    l->keys = (slotmap_key*)realloc(l->keys, l->cap * sizeof(slotmap_key));
    if (l->keys == NULL) {
      fprintf(stderr, "out of memory\n");
      exit(2);
    }
  }
  l->keys[l->n++] = k;
}

enum {
  R_INSERT,
  R_INSERT_NULL,
  R_ERASE,
  R_ERASE_STALE,
  R_ERASE_FORGED,
  R_GET,
  R_GET_STALE,
  R_KEY_AT,
  R_EACH,
  R_ERASE_IF,
  R_SORT,
  R_CLEAR,
  R_CLONE,
  R_MOVE,
  R_RESERVE,
  R_FREE,
  R_COUNT
};
static const char* const r_names_[R_COUNT] = {
    "insert", "insert NULL", "erase",   "erase stale", "erase forged", "get",
    "get stale", "key_at", "each",     "erase_if",    "sort",         "clear",
    "clone",  "move",       "reserve", "free"};

static slotmap_s rsm_;
static rrec_s rlive_[R_CAP];
static uint32_t rn_;
static keylist_s rstale_, rissued_;
static uint32_t rexpect_slot_; /* [D-reuse] the slot the next insert takes, or UINT32_MAX */
static unsigned long rops_[R_COUNT];
static uint32_t rmax_len_;
static unsigned char rseen_[R_CAP + 1];
static slotmap_key rorder_[R_CAP + 1];
static uint32_t rvalues_[R_CAP + 1];

static void r_pack(unsigned char row[R_ROW], const rrec_s* rec) {
  memcpy(row, &rec->value, 4);
  memcpy(row + 4, &rec->tag, 8);
  row[12] = rec->flag;
}

/* Row r of the three columns holds rec's data. */
static int r_row_is(const slotmap_s* sm, uint32_t r, const rrec_s* rec) {
  const uint32_t* c0 = (const uint32_t*)slotmap_column(sm, 0);
  const uint64_t* c1 = (const uint64_t*)slotmap_column(sm, 1);
  const uint8_t* c2 = (const uint8_t*)slotmap_column(sm, 2);
  return c0 != NULL && c1 != NULL && c2 != NULL && c0[r] == rec->value && c1[r] == rec->tag &&
         c2[r] == rec->flag;
}

/* The full invariant: every model key found with its data (each at a
   distinct row), row(key_at(r)) == r for every row, every stale key
   NOT_FOUND, the columns aligned.  Returns the problems found. */
static unsigned r_verify(const slotmap_s* sm, int check_stale) {
  unsigned bad = 0;
  uint32_t n = slotmap_length(sm);
  if (n != rn_) return 1000000;
  memset(rseen_, 0, n + 1);
  for (uint32_t i = 0; i < rn_; i++) {
    void* e = NULL;
    uint32_t r = SENTINEL_ROW;
    if (slotmap_row(sm, rlive_[i].key, &r) != SLATE_OK || r >= n) {
      bad++;
      continue;
    }
    if (rseen_[r]++) bad++;
    if (slotmap_get(sm, rlive_[i].key, &e) != SLATE_OK ||
        e != (void*)((uint32_t*)slotmap_column(sm, 0) + r))
      bad++;
    if (slotmap_contains(sm, rlive_[i].key) != 1) bad++;
    if (!r_row_is(sm, r, &rlive_[i])) bad++;
  }
  bad += dense_problems(sm);
  if (n > 0)
    for (uint32_t c = 0; c < 3; c++)
      if (!aligned16(slotmap_column(sm, c))) bad++;
  if (check_stale)
    for (size_t i = 0; i < rstale_.n; i++) {
      void* e = SENTINEL;
      if (slotmap_get(sm, rstale_.keys[i], &e) != SLATE_ERROR_NOT_FOUND || e != SENTINEL ||
          slotmap_contains(sm, rstale_.keys[i]) != 0)
        bad++;
    }
  return bad;
}

static void r_forget_all(void) {
  for (uint32_t i = 0; i < rn_; i++) keylist_push(&rstale_, rlive_[i].key);
  rn_ = 0;
}

static void r_insert(int null_row) {
  rrec_s rec;
  unsigned char row[R_ROW];
  slotmap_key k = SENTINEL_KEY;
  uint32_t r = SENTINEL_ROW;
  memset(&rec, 0, sizeof rec);
  if (!null_row) {
    rec.value = rng_below(1000);
    rec.tag = rng_next();
    rec.flag = (uint8_t)rng_next();
  }
  r_pack(row, &rec);
  if (!CHECK_EQ_INT(slotmap_insert(&rsm_, null_row ? NULL : row, &k), SLATE_OK)) return;
  CHECK(k != 0 && (KEY_VERSION(k) & 1u));
  /* [D-append] the new row is the last */
  CHECK(slotmap_row(&rsm_, k, &r) == SLATE_OK && r == rn_);
  /* [D-reuse] the most recently freed slot comes back first */
  if (rexpect_slot_ != UINT32_MAX) CHECK_EQ_U64(KEY_SLOT(k), rexpect_slot_);
  rexpect_slot_ = UINT32_MAX;
  CHECK(r_row_is(&rsm_, rn_, &rec));
  rec.key = k;
  rlive_[rn_++] = rec;
  keylist_push(&rissued_, k);
}

static void r_erase(void) {
  uint32_t i = rng_below(rn_), r = SENTINEL_ROW;
  slotmap_key k = rlive_[i].key;
  slotmap_key last = slotmap_key_at(&rsm_, rn_ - 1);
  CHECK_EQ_INT(slotmap_row(&rsm_, k, &r), SLATE_OK);
  if (!CHECK_EQ_INT(slotmap_erase(&rsm_, k), SLATE_OK)) return;
  /* swap-and-pop: the last row moved into the hole */
  if (r != rn_ - 1) CHECK_EQ_U64(slotmap_key_at(&rsm_, r), last);
  CHECK_EQ_U64(slotmap_key_at(&rsm_, rn_ - 1), 0);
  CHECK(is_stale(&rsm_, k));
  rlive_[i] = rlive_[--rn_];
  keylist_push(&rstale_, k);
  rexpect_slot_ = KEY_SLOT(k);
}

static void r_erase_stale(void) {
  slotmap_key k = rstale_.keys[rng_below((uint32_t)rstale_.n)];
  CHECK_EQ_INT(slotmap_erase(&rsm_, k), SLATE_ERROR_NOT_FOUND);
}

static void r_erase_forged(void) {
  slotmap_key k;
  if (rn_ == 0) {
    k = 0;
  } else {
    slotmap_key live = rlive_[rng_below(rn_)].key;
    uint32_t v = KEY_VERSION(live), s = KEY_SLOT(live);
    switch (rng_below(5)) {
      case 0: k = MAKE_KEY(v + 2, s); break;         /* another odd version */
      case 1: k = MAKE_KEY(v + 1, s); break;         /* an even version */
      case 2: k = MAKE_KEY(v, s + 0x40000000u); break; /* no such slot */
      case 3: k = UINT64_MAX; break;
      default: k = 0; break;
    }
  }
  void* e = SENTINEL;
  CHECK_EQ_INT(slotmap_get(&rsm_, k, &e), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(e, SENTINEL);
  CHECK_EQ_INT(slotmap_erase(&rsm_, k), SLATE_ERROR_NOT_FOUND);
}

static void r_get(void) {
  const rrec_s* rec = &rlive_[rng_below(rn_)];
  void* e = NULL;
  uint32_t r = SENTINEL_ROW, value = 0;
  if (!CHECK_EQ_INT(slotmap_get(&rsm_, rec->key, &e), SLATE_OK)) return;
  memcpy(&value, e, 4);
  CHECK_EQ_U64(value, rec->value);
  CHECK_EQ_INT(slotmap_row(&rsm_, rec->key, &r), SLATE_OK);
  CHECK(r < rn_ && r_row_is(&rsm_, r, rec));
  CHECK_EQ_INT(slotmap_contains(&rsm_, rec->key), 1);
}

static void r_get_stale(void) {
  slotmap_key k = rstale_.keys[rng_below((uint32_t)rstale_.n)];
  CHECK(is_stale(&rsm_, k));
}

static void r_key_at(void) {
  uint32_t r = rng_below(rn_ + 2), row = SENTINEL_ROW;
  slotmap_key k = slotmap_key_at(&rsm_, r);
  if (r >= rn_) {
    CHECK_EQ_U64(k, 0);
  } else {
    CHECK(k != 0);
    CHECK(slotmap_row(&rsm_, k, &row) == SLATE_OK && row == r);
  }
}

typedef struct rwalk_s {
  uint32_t calls, stop_at;
  unsigned bad;
} rwalk_s;

static int r_walk_cb(slotmap_key key, void* row, void* data) {
  rwalk_s* w = (rwalk_s*)data;
  uint32_t r = w->calls++;
  if (slotmap_key_at(&rsm_, r) != key) w->bad++;
  if (row != (void*)((uint32_t*)slotmap_column(&rsm_, 0) + r)) w->bad++;
  return w->calls == w->stop_at ? 1000 + (int)r : 0;
}

static void r_each(void) {
  rwalk_s w;
  memset(&w, 0, sizeof w);
  w.stop_at = rng_below(2) ? 0 : 1 + rng_below(rn_ + 1);
  int rc = slotmap_each(&rsm_, r_walk_cb, &w);
  if (w.stop_at != 0 && w.stop_at <= rn_) {
    CHECK_EQ_INT(rc, 1000 + (int)w.stop_at - 1);
    CHECK_EQ_U64(w.calls, w.stop_at);
  } else {
    CHECK_EQ_INT(rc, SLATE_OK);
    CHECK_EQ_U64(w.calls, rn_);
  }
  CHECK_EQ_INT(w.bad, 0);
}

typedef struct rfilter_s {
  uint32_t modulus, remainder, calls;
} rfilter_s;

static int r_filter_cb(slotmap_key key, void* row, void* data) {
  rfilter_s* f = (rfilter_s*)data;
  uint32_t value;
  (void)key;
  memcpy(&value, row, 4);
  f->calls++;
  return value % f->modulus == f->remainder;
}

static void r_erase_if(void) {
  rfilter_s f;
  f.modulus = 2 + rng_below(9);
  f.remainder = rng_below(f.modulus);
  f.calls = 0;
  const uint32_t* c0 = (const uint32_t*)slotmap_column(&rsm_, 0);
  for (uint32_t r = 0; r < rn_; r++) {
    rorder_[r] = slotmap_key_at(&rsm_, r);
    rvalues_[r] = c0[r];
  }
  if (!CHECK_EQ_INT(slotmap_erase_if(&rsm_, r_filter_cb, &f), SLATE_OK)) return;
  CHECK_EQ_U64(f.calls, rn_);
  /* [D-order] survivors in their old relative order */
  uint32_t w = 0, bad = 0;
  for (uint32_t r = 0; r < rn_; r++)
    if (rvalues_[r] % f.modulus != f.remainder && slotmap_key_at(&rsm_, w++) != rorder_[r]) bad++;
  CHECK_EQ_INT(bad, 0);
  for (uint32_t i = 0; i < rn_;) {
    if (rlive_[i].value % f.modulus == f.remainder) {
      keylist_push(&rstale_, rlive_[i].key);
      rlive_[i] = rlive_[--rn_];
    } else {
      i++;
    }
  }
  CHECK_EQ_U64(w, rn_);
  rexpect_slot_ = UINT32_MAX;
}

static int r_greater(const void* a, const void* b, void* data) {
  (void)data;
  return less_u32(b, a, NULL);
}

static void r_sort(void) {
  int up = rng_below(2) != 0;
  if (!CHECK_EQ_INT(slotmap_sort(&rsm_, up ? less_u32 : r_greater, NULL), SLATE_OK)) return;
  const uint32_t* c0 = (const uint32_t*)slotmap_column(&rsm_, 0);
  uint32_t bad = 0;
  for (uint32_t r = 1; r < rn_; r++)
    if (up ? c0[r - 1] > c0[r] : c0[r - 1] < c0[r]) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(r_verify(&rsm_, 0), 0); /* every key still valid with its data */
}

static void r_clear(void) {
  CHECK_EQ_INT(slotmap_clear(&rsm_), SLATE_OK);
  r_forget_all();
  rexpect_slot_ = UINT32_MAX;
}

static void r_free(void) {
  slotmap_free(&rsm_);
  r_forget_all();
  rexpect_slot_ = UINT32_MAX;
}

static void r_clone(void) {
  slotmap_s copy;
  memset(&copy, 0xA7, sizeof copy);
  if (!CHECK_EQ_INT(slotmap_clone(&copy, &rsm_), SLATE_OK)) return;
  CHECK_EQ_INT(r_verify(&copy, 0), 0);
  /* [D-clone] the same row order */
  uint32_t bad = 0;
  for (uint32_t r = 0; r < rn_; r++)
    if (slotmap_key_at(&copy, r) != slotmap_key_at(&rsm_, r)) bad++;
  CHECK_EQ_INT(bad, 0);
  if (rng_below(2)) {
    /* go on with the copy (moved into place with memcpy) */
    slotmap_free(&rsm_);
    memcpy(&rsm_, &copy, sizeof copy);
  } else {
    /* erasing in the copy leaves the original alone */
    if (rn_ > 0) {
      slotmap_key k = rlive_[rng_below(rn_)].key;
      CHECK_EQ_INT(slotmap_erase(&copy, k), SLATE_OK);
      CHECK_EQ_INT(slotmap_contains(&rsm_, k), 1);
    }
    slotmap_free(&copy);
  }
}

static void r_move(void) {
  slotmap_s* heap = (slotmap_s*)malloc(sizeof(slotmap_s));
  memcpy(heap, &rsm_, sizeof rsm_);
  memset(&rsm_, 0xEE, sizeof rsm_);
  if (rn_ > 0) CHECK_EQ_INT(slotmap_get(heap, rlive_[0].key, NULL), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(heap), rn_);
  memcpy(&rsm_, heap, sizeof rsm_);
  memset(heap, 0x11, sizeof *heap);
  free(heap);
}

static void r_reserve(void) {
  CHECK_EQ_INT(slotmap_reserve(&rsm_, rn_ + rng_below(R_CAP - rn_ + 1)), SLATE_OK);
}

static int r_pick(uint32_t insert_share) {
  uint32_t x = rng_below(10000);
  if (x < 8) return R_ERASE_IF;
  if (x < 16) return R_SORT;
  if (x < 18) return R_CLEAR;
  if (x < 26) return R_CLONE;
  if (x < 36) return R_MOVE;
  if (x < 46) return R_RESERVE;
  if (x < 47) return R_FREE;
  if (x < 57) return R_EACH;
  if (x < 300) return R_KEY_AT;
  if (x < 1100) return R_GET;
  if (x < 1400) return R_GET_STALE;
  if (x < 1550) return R_ERASE_STALE;
  if (x < 1650) return R_ERASE_FORGED;
  if (rng_below(100) < insert_share) return rng_below(20) ? R_INSERT : R_INSERT_NULL;
  return R_ERASE;
}

static int cmp_key(const void* a, const void* b) {
  slotmap_key x = *(const slotmap_key*)a, y = *(const slotmap_key*)b;
  return x < y ? -1 : x > y;
}

static void test_random(uint64_t seed, unsigned long steps) {
  TEST_SECTION("randomized test against a model");
  unsigned long step;
  uint32_t insert_share = 50;
  unsigned long phase_end = 0;
  clock_t started = clock();
  rng_state_ = seed;
  rn_ = 0;
  rexpect_slot_ = UINT32_MAX;
  CHECK_EQ_INT(slotmap_columns(&rsm_, RSIZES, 3), SLATE_OK);
  for (step = 0; step < steps; step++) {
    unsigned long failed_before = TEST_FAILED_COUNT();
    if (step == phase_end) {
      /* phases lean toward growing, balance or shrinking */
      static const uint32_t shares[4] = {70, 50, 52, 30};
      insert_share = shares[rng_below(4)];
      phase_end = step + 2000 + rng_below(8000);
    }
    int op = r_pick(insert_share);
    if ((op == R_INSERT || op == R_INSERT_NULL) && rn_ >= R_CAP) op = R_ERASE;
    if ((op == R_ERASE || op == R_GET) && rn_ == 0) op = R_INSERT;
    if ((op == R_ERASE_STALE || op == R_GET_STALE) && rstale_.n == 0) op = R_KEY_AT;
    rops_[op]++;
    switch (op) {
      case R_INSERT: r_insert(0); break;
      case R_INSERT_NULL: r_insert(1); break;
      case R_ERASE: r_erase(); break;
      case R_ERASE_STALE: r_erase_stale(); break;
      case R_ERASE_FORGED: r_erase_forged(); break;
      case R_GET: r_get(); break;
      case R_GET_STALE: r_get_stale(); break;
      case R_KEY_AT: r_key_at(); break;
      case R_EACH: r_each(); break;
      case R_ERASE_IF: r_erase_if(); break;
      case R_SORT: r_sort(); break;
      case R_CLEAR: r_clear(); break;
      case R_CLONE: r_clone(); break;
      case R_MOVE: r_move(); break;
      case R_RESERVE: r_reserve(); break;
      default: r_free(); break;
    }
    CHECK_EQ_U64(slotmap_length(&rsm_), rn_);
    if (rn_ > rmax_len_) rmax_len_ = rn_;
    if ((step + 1) % 1000 == 0) CHECK_EQ_INT(r_verify(&rsm_, 1), 0);
    if (TEST_FAILED_COUNT() != failed_before) {
      fprintf(stderr, "FIRST FAILURE at step %lu (%s), length %u\n", step, r_names_[op], rn_);
      fprintf(stderr, "reproduce: test_slotmap %llu %lu\n", (unsigned long long)seed, step + 1);
      break;
    }
  }
  CHECK_EQ_INT(r_verify(&rsm_, 1), 0);
  /* a key is never issued twice */
  {
    size_t dups = 0;
    qsort(rissued_.keys, rissued_.n, sizeof(slotmap_key), cmp_key);
    for (size_t i = 1; i < rissued_.n; i++)
      if (rissued_.keys[i] == rissued_.keys[i - 1]) dups++;
    CHECK_EQ_U64(dups, 0);
  }
  fprintf(stderr, "   ops:");
  for (int op = 0; op < R_COUNT; op++) fprintf(stderr, " %s %lu,", r_names_[op], rops_[op]);
  fprintf(stderr, "\n   max length %u, final %u, %lu keys issued, %lu stale; %.2f s CPU\n",
          rmax_len_, rn_,
          (unsigned long)rissued_.n, (unsigned long)rstale_.n,
          (double)(clock() - started) / CLOCKS_PER_SEC);
  slotmap_free(&rsm_);
  free(rstale_.keys);
  free(rissued_.keys);
}

int main(int argc, char** argv) {
  uint64_t seed;
  unsigned long steps = 200000UL;
  if (argc > 1) {
    seed = (uint64_t)strtoull(argv[1], NULL, 0);
  } else {
    int here = 0;
    rng_state_ = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32) ^ (uint64_t)(uintptr_t)&here;
    seed = rng_next();
  }
  if (argc > 2) steps = strtoul(argv[2], NULL, 0);
  printf("seed: %llu\n", (unsigned long long)seed);
  fflush(stdout);

  test_null_slotmap();
  test_init();
  test_keys_and_lookup();
  test_foreign_keys();
  test_erase_and_reuse();
  test_every_element_size();
  test_slot_reuse_100k();
  test_churn_invariant();
  test_columns();
  test_each();
  test_callbacks_cannot_modify();
  test_reinit_inside_walk();
  test_erase_if();
  test_sort();
  test_limit();
  test_reserve();
  test_clear();
  test_clone();
  test_free();
  test_memcpy_move();
  test_pointer_validity();
  test_clone_inside_callbacks();
  test_random(seed, steps);
  test_insert_own_element(); /* last: see there */
  return TEST_SUMMARY();
}
