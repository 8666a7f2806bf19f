/* map/api: comparing and copying maps -- slate_equal, slate_clone, and
 * moving a map with memcpy. */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* slate_equal                                                               */
/* ------------------------------------------------------------------------ */

void test_equal(void) {
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

void test_clone(void) {
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
/* moving a map with memcpy                                                  */
/* ------------------------------------------------------------------------ */

typedef struct holder_s {
  char pad[3];
  slate_s map;
  int tail;
} holder_s;

void test_memcpy_move(void) {
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
