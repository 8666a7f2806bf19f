/* map/api: a map's memory -- clear, compact, reserve and free. */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* clear                                                                     */
/* ------------------------------------------------------------------------ */

void test_clear(void) {
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

void test_compact(void) {
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
/* free                                                                      */
/* ------------------------------------------------------------------------ */

void test_free(void) {
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

void test_reserve(void) {
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
