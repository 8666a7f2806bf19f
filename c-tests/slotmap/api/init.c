/* slotmap/api: NULL is not a slotmap (and NULL out-pointers and
 * callbacks), and initialization. */
#include "slotmap.h"

/* ------------------------------------------------------------------------ */
/* NULL is not a slotmap; NULL out-pointers and callbacks                    */
/* ------------------------------------------------------------------------ */

void test_null_slotmap(void) {
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

void test_init(void) {
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
