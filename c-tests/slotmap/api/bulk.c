/* slotmap/api: the calls on every row -- erase_if, sort, clear and
 * clone. */
#include "slotmap.h"

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

void test_erase_if(void) {
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
  /* [D-order] the walk's swap-and-pop: an erased row is refilled by the
     last, which is asked next */
  {
    uint32_t len = n;
    for (uint32_t r = 0; r < len;) {
      if (KEY_SLOT(before[r]) % 3 == 0)
        before[r] = before[--len];
      else
        r++;
    }
    CHECK_EQ_U64(len, slotmap_length(&sm));
    CHECK_EQ_INT(same_rows(&sm, before, len), 0);
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

void test_sort(void) {
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
/* slotmap_clear                                                             */
/* ------------------------------------------------------------------------ */

void test_clear(void) {
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
     while refilling (slotmap/hooks.c counts the allocations) */
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

void test_clone(void) {
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
