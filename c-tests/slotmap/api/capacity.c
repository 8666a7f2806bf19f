/* slotmap/api: a slotmap's room -- limit, reserve and free. */
#include "slotmap.h"

/* ------------------------------------------------------------------------ */
/* slotmap_limit                                                             */
/* ------------------------------------------------------------------------ */

void test_limit(void) {
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
     slotmap or a limit below the length, so UINT32_MAX ("no limit", the
     natural C spelling) must be accepted. */
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

/* (slotmap/hooks.c counts the allocations; here the column base must
   not move while inserts stay within the reserved room.) */
void test_reserve(void) {
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
/* slotmap_free                                                              */
/* ------------------------------------------------------------------------ */

void test_free(void) {
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
