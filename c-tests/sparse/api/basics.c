/* NULL sets, initialisation, set/get and their key rules, the owner check,
   generations of one slot, membership sets, columns, get_many. */
#include "sparse.h"

static model_s md_;
static model_s md2_;

static int stop_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (void)data;
  return 1;
}

static int join_count_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)key;
  (void)rows;
  (void)elements;
  (*(uint64_t*)data)++;
  return 0;
}

void test_null_set(void) {
  TEST_SECTION("NULL set");
  slotmap_sparse_s sp;
  slotmap_s owner;
  slotmap_key k = MAKE_KEY(1, 0), keys[2] = {MAKE_KEY(1, 0), 0};
  uint8_t found[2] = {9, 9};
  void* elements[2] = {SENTINEL, SENTINEL};
  uint32_t r = SENTINEL_ROW;
  void* e = SENTINEL;
  uint32_t sizes[1] = {8};
  uint64_t calls = 0;
  CHECK_EQ_INT(slotmap_sparse(NULL, 8), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse(NULL, 0), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_columns(NULL, sizes, 1), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_set_allocator(NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_reserve(NULL, 4), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_set(NULL, NULL, k, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_get(NULL, k, &e), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(e, SENTINEL);
  CHECK_EQ_INT(slotmap_sparse_get_many(NULL, keys, 2, elements, found), SLATE_ERROR_INVALID);
  CHECK(found[0] == 9 && found[1] == 9 && elements[0] == SENTINEL && elements[1] == SENTINEL);
  CHECK_EQ_INT(slotmap_sparse_contains(NULL, k), 0);
  CHECK_EQ_INT(slotmap_sparse_row(NULL, k, &r), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(r, SENTINEL_ROW);
  CHECK_EQ_INT(slotmap_sparse_erase(NULL, k), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_erase_if(NULL, stop_cb, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap(&owner, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_prune(NULL, &owner), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slotmap_sparse_length(NULL), 0);
  CHECK_EQ_PTR(slotmap_sparse_column(NULL, 0), NULL);
  CHECK_EQ_U64(slotmap_sparse_key_at(NULL, 0), 0);
  CHECK_EQ_PTR(slotmap_sparse_keys(NULL), NULL);
  CHECK_EQ_INT(slotmap_sparse_each(NULL, count_each, &calls), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(calls, 0);
  CHECK_EQ_INT(slotmap_sparse_sort(NULL, less_u64, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_clear(NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse(&sp, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_clone(NULL, &sp), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_clone(&sp, NULL), SLATE_ERROR_INVALID);
  slotmap_sparse_free(NULL); /* does nothing */
  /* NULL arguments beside a real set */
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_row(&sp, k, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_prune(&sp, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slotmap_sparse_length(&sp), 1);
  CHECK_EQ_INT(slotmap_sparse_erase_if(&sp, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_each(&sp, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_sort(&sp, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slotmap_sparse_length(&sp), 1);
  CHECK_EQ_INT(slotmap_sparse_contains(&sp, k), 1);
  /* joins: count 0, NULL sets, a NULL set, a NULL callback */
  {
    slotmap_sparse_s* sets[2] = {&sp, NULL};
    uint64_t n = 0;
    CHECK_EQ_INT(slotmap_join(NULL, sets, 0, join_count_cb, &n), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slotmap_join(NULL, NULL, 1, join_count_cb, &n), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slotmap_join(NULL, sets, 2, join_count_cb, &n), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slotmap_join(&owner, sets, 1, NULL, &n), SLATE_ERROR_INVALID);
    CHECK_EQ_U64(n, 0);
    CHECK_EQ_INT(slotmap_join(NULL, sets, 1, join_count_cb, &n), SLATE_OK);
    CHECK_EQ_U64(n, 1);
  }
  slotmap_sparse_free(&sp);
  slotmap_free(&owner);
}

void test_init(void) {
  TEST_SECTION("initialisation");
  slotmap_sparse_s sp;
  uint32_t zero[2] = {8, 0}, seventeen[17];
  counter_s count;
  slate_allocator_s a = counting_allocator(&count);
  for (int i = 0; i < 17; i++) seventeen[i] = 1;
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, NULL, 1), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, zero, 0), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, zero, 2), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, seventeen, 17), SLATE_ERROR_FULL); /* [D-columns] */
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, seventeen, 16), SLATE_OK);
  /* initialisation allocates nothing: an own allocator is accepted only
     while the set holds no memory, and counts nothing until a set */
  CHECK_EQ_INT(slotmap_sparse_set_allocator(&sp, &a), SLATE_OK);
  CHECK_EQ_U64(count.attempts, 0);
  CHECK_EQ_U64(slotmap_sparse_length(&sp), 0);
  CHECK_EQ_PTR(slotmap_sparse_keys(&sp), NULL);
  CHECK_EQ_PTR(slotmap_sparse_column(&sp, 0), NULL); /* [D-column] */
  CHECK_EQ_U64(slotmap_sparse_key_at(&sp, 0), 0);
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, 5), NULL), SLATE_OK);
  CHECK(count.attempts > 0);
  CHECK(count.live_bytes > 0);
  /* holding memory: no allocator change */
  CHECK_EQ_INT(slotmap_sparse_set_allocator(&sp, NULL), SLATE_ERROR_INVALID);
  {
    slate_allocator_s half = a;
    half.release = NULL;
    CHECK_EQ_INT(slotmap_sparse_set_allocator(&sp, &half), SLATE_ERROR_INVALID);
  }
  slotmap_sparse_free(&sp);
  CHECK_EQ_U64(count.live_bytes, 0);
  CHECK_EQ_U64(count.bad, 0);
  /* kept by free */
  unsigned long long before = count.attempts;
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, 5), NULL), SLATE_OK);
  CHECK(count.attempts > before);
  slotmap_sparse_free(&sp);
  CHECK_EQ_U64(count.live_bytes, 0);
  /* dropped by re-initialisation */
  CHECK_EQ_INT(slotmap_sparse(&sp, 4), SLATE_OK);
  before = count.attempts;
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, 5), NULL), SLATE_OK);
  CHECK_EQ_U64(count.attempts, before);
  slotmap_sparse_free(&sp);
}

void test_set_get(void) {
  TEST_SECTION("set, get, row, key_at, keys: key 0, forged keys, overwrite");
  slotmap_sparse_s sp;
  uint32_t size = 8;
  model_s* m = &md_;
  model_init(m, &size, 1);
  CHECK_EQ_INT(slotmap_sparse(&sp, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, 0, NULL), SLATE_ERROR_INVALID);
  CHECK(is_absent(&sp, 0));
  for (uint32_t i = 0; i < 300; i++) {
    slotmap_key k = MAKE_KEY(2 * i + 1, i * 7);
    uint64_t v = i * 1000003ull;
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, &v), SLATE_OK);
    model_set(m, k, (const unsigned char*)&v);
    CHECK_EQ_U64(slotmap_sparse_key_at(&sp, i), k); /* [D-append] */
  }
  CHECK_MODEL(&sp, m);
  /* key 0 with and without rows present; forged keys: another generation,
     another slot, both */
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, 0, NULL), SLATE_ERROR_INVALID);
  CHECK(is_absent(&sp, 0));
  CHECK(is_absent(&sp, MAKE_KEY(3, 0)));
  CHECK(is_absent(&sp, MAKE_KEY(1, 1)));
  CHECK(is_absent(&sp, MAKE_KEY(1, 0xFFFFFFFFu)));
  CHECK(is_absent(&sp, 0xFFFFFFFFFFFFFFFFull));
  CHECK_EQ_INT(slotmap_sparse_erase(&sp, MAKE_KEY(3, 0)), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slotmap_sparse_erase(&sp, 0), SLATE_ERROR_NOT_FOUND);
  CHECK_MODEL(&sp, m);
  /* overwrite moves nothing: same row, same pointer, new bytes; NULL row
     is zeros */
  {
    slotmap_key k = MAKE_KEY(21, 70);
    void *e1 = NULL, *e2 = NULL;
    uint32_t r1 = 0, r2 = 1;
    uint64_t v = 42;
    CHECK_EQ_INT(slotmap_sparse_get(&sp, k, &e1), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_row(&sp, k, &r1), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, &v), SLATE_OK);
    model_set(m, k, (const unsigned char*)&v);
    CHECK_EQ_INT(slotmap_sparse_get(&sp, k, &e2), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_row(&sp, k, &r2), SLATE_OK);
    CHECK_EQ_PTR(e1, e2);
    CHECK_EQ_U64(r1, r2);
    CHECK_EQ_U64(*(uint64_t*)e2, 42);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, NULL), SLATE_OK);
    model_set(m, k, NULL);
    CHECK_EQ_U64(*(uint64_t*)e2, 0);
    /* a set from the set's own element */
    void* other = NULL;
    CHECK_EQ_INT(slotmap_sparse_get(&sp, MAKE_KEY(3, 7), &other), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, other), SLATE_OK);
    model_set(m, k, (const unsigned char*)other);
    /* and a new key from an element, across a growth of the block */
    slotmap_key fresh = MAKE_KEY(1, 100000);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, fresh, other), SLATE_OK);
    model_set(m, fresh, m->rows[model_find(m, MAKE_KEY(3, 7))]);
  }
  CHECK_MODEL(&sp, m);
  /* new keys set from an element of the set itself, across growths of the
     block (counted: the loop goes on until the set has reallocated twice) */
  {
    counter_s count;
    slate_allocator_s a = counting_allocator(&count);
    slotmap_sparse_s own;
    unsigned bad = 0, growths = 0;
    CHECK_EQ_INT(slotmap_sparse(&own, 8), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set_allocator(&own, &a), SLATE_OK);
    uint64_t v = 0xABCDEF;
    CHECK_EQ_INT(slotmap_sparse_set(&own, NULL, MAKE_KEY(1, 0), &v), SLATE_OK);
    for (uint32_t i = 1; i < 5000 && growths < 2; i++) {
      void* from = NULL;
      unsigned long long before = count.attempts;
      if (slotmap_sparse_get(&own, MAKE_KEY(1, i - 1), &from) != SLATE_OK) bad++;
      if (slotmap_sparse_set(&own, NULL, MAKE_KEY(1, i), from) != SLATE_OK) bad++;
      if (count.attempts != before) growths++;
      void* e = NULL;
      if (slotmap_sparse_get(&own, MAKE_KEY(1, i), &e) != SLATE_OK || *(uint64_t*)e != 0xABCDEF) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(growths, 2);
    slotmap_sparse_free(&own);
    CHECK_EQ_U64(count.live_bytes, 0);
  }
  /* the highest slot index */
  {
    slotmap_key top = MAKE_KEY(7, 0xFFFFFFFFu);
    uint64_t v = 99;
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, top, &v), SLATE_OK);
    model_set(m, top, (const unsigned char*)&v);
    CHECK_MODEL(&sp, m);
    CHECK(is_absent(&sp, MAKE_KEY(9, 0xFFFFFFFFu)));
    CHECK_EQ_INT(slotmap_sparse_erase(&sp, top), SLATE_OK);
    model_erase(m, top);
    CHECK(is_absent(&sp, top));
  }
  CHECK_MODEL(&sp, m);
  /* the keys array is the dense key array */
  {
    const slotmap_key* keys = slotmap_sparse_keys(&sp);
    unsigned bad = 0;
    for (uint32_t r = 0; r < slotmap_sparse_length(&sp); r++)
      if (keys[r] != slotmap_sparse_key_at(&sp, r)) bad++;
    CHECK_EQ_INT(bad, 0);
  }
  slotmap_sparse_free(&sp);
  CHECK_EQ_U64(slotmap_sparse_length(&sp), 0);
  CHECK_EQ_PTR(slotmap_sparse_keys(&sp), NULL);
}

void test_owner_and_generations(void) {
  TEST_SECTION("the owner's check; generations of one slot");
  slotmap_s owner;
  slotmap_sparse_s sp;
  static picture_s pic;
  model_s* m = &md_;
  uint32_t size = 8;
  slotmap_key live[64], dead = 0, reissued = 0;
  model_init(m, &size, 1);
  CHECK_EQ_INT(slotmap(&owner, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&sp, 8), SLATE_OK);
  for (uint32_t i = 0; i < 64; i++) {
    CHECK_EQ_INT(slotmap_insert(&owner, &i, &live[i]), SLATE_OK);
    uint64_t v = i + 100;
    CHECK_EQ_INT(slotmap_sparse_set(&sp, &owner, live[i], &v), SLATE_OK);
    model_set(m, live[i], (const unsigned char*)&v);
  }
  CHECK_MODEL(&sp, m);
  /* entity 5 dies: its key is refused with the owner, nothing changed */
  dead = live[5];
  CHECK_EQ_INT(slotmap_erase(&owner, dead), SLATE_OK);
  take_picture(&sp, m, &pic);
  {
    uint64_t v = 999;
    CHECK_EQ_INT(slotmap_sparse_set(&sp, &owner, dead, &v), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, &owner, MAKE_KEY(77, 3), &v), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, &owner, MAKE_KEY(1, 5000), &v), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, &owner, 0, &v), SLATE_ERROR_INVALID);
  }
  CHECK(same_picture(&sp, m, &pic));
  /* the dead key still has its row until pruned */
  CHECK_EQ_INT(slotmap_sparse_contains(&sp, dead), 1);
  /* its slot is reissued: the new key does not find the old row */
  CHECK_EQ_INT(slotmap_insert(&owner, NULL, &reissued), SLATE_OK);
  CHECK_EQ_U64(KEY_SLOT(reissued), KEY_SLOT(dead));
  CHECK_NE_U64(reissued, dead);
  CHECK(is_absent(&sp, reissued));
  /* setting the new generation takes over the dead key's row: same length */
  {
    uint32_t before = slotmap_sparse_length(&sp), r_dead = 0, r_new = 1;
    uint64_t v = 555;
    CHECK_EQ_INT(slotmap_sparse_row(&sp, dead, &r_dead), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, &owner, reissued, &v), SLATE_OK);
    model_erase(m, dead);
    model_set(m, reissued, (const unsigned char*)&v);
    CHECK_EQ_U64(slotmap_sparse_length(&sp), before);
    CHECK_EQ_INT(slotmap_sparse_row(&sp, reissued, &r_new), SLATE_OK);
    CHECK_EQ_U64(r_new, r_dead);
    CHECK(is_absent(&sp, dead));
  }
  CHECK_MODEL(&sp, m);
  /* without an owner, any non-zero key goes, also the dead one, which in
     turn takes over its slot's row again */
  {
    uint64_t v = 777;
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, dead, &v), SLATE_OK);
    model_erase(m, reissued);
    model_set(m, dead, (const unsigned char*)&v);
    CHECK(is_absent(&sp, reissued));
    CHECK_EQ_INT(slotmap_sparse_erase(&sp, reissued), SLATE_ERROR_NOT_FOUND);
  }
  CHECK_MODEL(&sp, m);
  /* churn: the owner erases and reissues every slot many times; only live
     keys are ever set with the owner */
  {
    unsigned bad = 0;
    for (int round = 0; round < 50; round++) {
      for (uint32_t i = (uint32_t)round % 3; i < 64; i += 3) {
        if (i == 5) continue;
        uint64_t v = (uint64_t)round * 1000 + i;
        if (slotmap_erase(&owner, live[i]) != SLATE_OK) bad++;
        if (slotmap_sparse_set(&sp, &owner, live[i], &v) != SLATE_ERROR_NOT_FOUND) bad++;
        slotmap_key old = live[i];
        if (slotmap_insert(&owner, &i, &live[i]) != SLATE_OK) bad++;
        if (slotmap_sparse_contains(&sp, live[i]) != 0) bad++;
        if (slotmap_sparse_set(&sp, &owner, live[i], &v) != SLATE_OK) bad++;
        model_erase(m, old);
        model_set(m, live[i], (const unsigned char*)&v);
        if (slotmap_sparse_contains(&sp, old) != 0) bad++;
      }
    }
    CHECK_EQ_INT(bad, 0);
  }
  CHECK_MODEL(&sp, m);
  slotmap_sparse_free(&sp);
  slotmap_free(&owner);
}

static int null_row_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  if (row != NULL) (*(unsigned*)data)++;
  return 0;
}

static int null_elements_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)key;
  (void)rows;
  if (elements[0] != NULL || elements[1] != NULL) (*(unsigned*)data)++;
  return 0;
}

void test_membership(void) {
  TEST_SECTION("membership sets (element_size 0)");
  slotmap_sparse_s sp, other;
  model_s* m = &md_;
  unsigned bad = 0;
  model_init(m, NULL, 0);
  CHECK_EQ_INT(slotmap_sparse(&sp, 0), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&other, 0), SLATE_OK);
  for (uint32_t i = 0; i < 2000; i += 3) {
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, i), NULL), SLATE_OK);
    model_set(m, MAKE_KEY(1, i), NULL);
    if (i % 2 == 0) CHECK_EQ_INT(slotmap_sparse_set(&other, NULL, MAKE_KEY(1, i), NULL), SLATE_OK);
  }
  /* a row given to a membership set is ignored (no bytes read) */
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, 3), SENTINEL), SLATE_OK);
  CHECK_MODEL(&sp, m);
  {
    void* e = SENTINEL;
    CHECK_EQ_INT(slotmap_sparse_get(&sp, MAKE_KEY(1, 3), &e), SLATE_OK);
    CHECK_EQ_PTR(e, NULL);
    CHECK_EQ_PTR(slotmap_sparse_column(&sp, 0), NULL);
    CHECK_EQ_INT(slotmap_sparse_sort(&sp, less_u64, NULL), SLATE_ERROR_INVALID);
    CHECK_MODEL(&sp, m);
    CHECK_EQ_INT(slotmap_sparse_each(&sp, null_row_cb, &bad), SLATE_OK);
    CHECK_EQ_INT(bad, 0);
    slotmap_sparse_s* sets[2] = {&sp, &other};
    CHECK_EQ_INT(slotmap_join(NULL, sets, 2, null_elements_cb, &bad), SLATE_OK);
    CHECK_EQ_INT(bad, 0);
  }
  {
    slotmap_key keys[3] = {MAKE_KEY(1, 0), MAKE_KEY(1, 1), MAKE_KEY(1, 6)};
    void* elements[3] = {SENTINEL, SENTINEL, SENTINEL};
    uint8_t found[3] = {9, 9, 9};
    CHECK_EQ_INT(slotmap_sparse_get_many(&sp, keys, 3, elements, found), SLATE_OK);
    CHECK(found[0] == 1 && found[1] == 0 && found[2] == 1);
    CHECK(elements[0] == NULL && elements[1] == SENTINEL && elements[2] == NULL);
  }
  /* empty again: keys NULL */
  for (uint32_t i = 0; i < 2000; i += 3) {
    CHECK_EQ_INT(slotmap_sparse_erase(&sp, MAKE_KEY(1, i)), SLATE_OK);
    model_erase(m, MAKE_KEY(1, i));
  }
  CHECK_MODEL(&sp, m);
  CHECK_EQ_PTR(slotmap_sparse_keys(&sp), NULL);
  slotmap_sparse_free(&sp);
  slotmap_sparse_free(&other);
}

void test_columns(void) {
  TEST_SECTION("several columns: 16-byte alignment, strides, row bytes");
  static const uint32_t shapes[4][4] = {{3, 8, 1, 0}, {1, 0, 0, 0}, {16, 5, 0, 0}, {7, 7, 7, 13}};
  static const uint32_t counts[4] = {3, 1, 2, 4};
  for (int s = 0; s < 4; s++) {
    slotmap_sparse_s sp;
    model_s* m = &md_;
    unsigned char row[ROW_MAX];
    model_init(m, shapes[s], counts[s]);
    CHECK_EQ_INT(sparse_init(&sp, shapes[s], counts[s]), SLATE_OK);
    for (uint32_t i = 0; i < 700; i++) {
      slotmap_key k = MAKE_KEY(5, (i * 2654435761u) % 100000u);
      fill_row(m, k * 31u + i, row);
      CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, i % 11 == 0 ? NULL : row), SLATE_OK);
      model_set(m, k, i % 11 == 0 ? NULL : row);
    }
    CHECK_MODEL(&sp, m);
    for (uint32_t c = 0; c < counts[s]; c++) {
      /* the stride is the size: consecutive rows' elements sizes[c] apart */
      uint32_t r = 0;
      void* e = NULL;
      CHECK_EQ_INT(slotmap_sparse_row(&sp, m->keys[10], &r), SLATE_OK);
      CHECK_EQ_INT(slotmap_sparse_get(&sp, m->keys[10], &e), SLATE_OK);
      CHECK_EQ_PTR(e, (unsigned char*)slotmap_sparse_column(&sp, 0) + (size_t)r * shapes[s][0]);
      CHECK_EQ_INT((uintptr_t)slotmap_sparse_column(&sp, c) % 16, 0);
    }
    CHECK_EQ_PTR(slotmap_sparse_column(&sp, counts[s]), NULL);
    slotmap_sparse_free(&sp);
    CHECK_EQ_PTR(slotmap_sparse_column(&sp, 0), NULL);
  }
}

void test_get_many(void) {
  TEST_SECTION("get_many");
  slotmap_sparse_s sp;
  model_s* m = &md2_;
  uint32_t size = 8;
  enum { N = 600 };
  static slotmap_key keys[N];
  static void* elements[N];
  static uint8_t found[N];
  unsigned bad = 0;
  model_init(m, &size, 1);
  CHECK_EQ_INT(slotmap_sparse(&sp, 8), SLATE_OK);
  for (uint32_t i = 0; i < 400; i++) {
    uint64_t v = i;
    slotmap_key k = MAKE_KEY(3, i * 5);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, &v), SLATE_OK);
    model_set(m, k, (const unsigned char*)&v);
  }
  for (uint32_t i = 0; i < N; i++) {
    switch (i % 5) {
      case 0: keys[i] = MAKE_KEY(3, (i / 5) * 5); break;  /* present (below 400 rows) */
      case 1: keys[i] = MAKE_KEY(5, (i / 5) * 5); break;  /* another generation */
      case 2: keys[i] = MAKE_KEY(3, i * 5 + 1); break;    /* another slot */
      case 3: keys[i] = 0; break;
      default: keys[i] = MAKE_KEY(3, ((i * 7) % 400) * 5); break;
    }
    elements[i] = SENTINEL;
    found[i] = 9;
  }
  CHECK_EQ_INT(slotmap_sparse_get_many(&sp, keys, N, elements, found), SLATE_OK);
  for (uint32_t i = 0; i < N; i++) {
    void* e = SENTINEL;
    int rc = slotmap_sparse_get(&sp, keys[i], &e);
    if (found[i] != (rc == SLATE_OK)) bad++;
    if (elements[i] != e) bad++;
    if (found[i] != (model_find(m, keys[i]) >= 0)) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  /* elements NULL: a presence test */
  memset(found, 9, sizeof found);
  CHECK_EQ_INT(slotmap_sparse_get_many(&sp, keys, N, NULL, found), SLATE_OK);
  for (uint32_t i = 0; i < N; i++)
    if (found[i] != slotmap_sparse_contains(&sp, keys[i])) bad++;
  CHECK_EQ_INT(bad, 0);
  /* NULL keys or found with count > 0: INVALID, nothing written */
  memset(found, 9, sizeof found);
  for (uint32_t i = 0; i < N; i++) elements[i] = SENTINEL;
  CHECK_EQ_INT(slotmap_sparse_get_many(&sp, NULL, 3, elements, found), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_sparse_get_many(&sp, keys, 3, elements, NULL), SLATE_ERROR_INVALID);
  for (uint32_t i = 0; i < N; i++)
    if (found[i] != 9 || elements[i] != SENTINEL) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_sparse_get_many(&sp, NULL, 0, NULL, NULL), SLATE_OK);
  /* a set's keys passed to another set's get_many */
  {
    slotmap_sparse_s half;
    CHECK_EQ_INT(slotmap_sparse(&half, 0), SLATE_OK);
    for (uint32_t i = 0; i < 400; i += 2) CHECK_EQ_INT(slotmap_sparse_set(&half, NULL, MAKE_KEY(3, i * 5), NULL), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_get_many(&half, slotmap_sparse_keys(&sp), slotmap_sparse_length(&sp), NULL, found), SLATE_OK);
    for (uint32_t r = 0; r < slotmap_sparse_length(&sp); r++)
      if (found[r] != (KEY_SLOT(slotmap_sparse_key_at(&sp, r)) % 10 == 0)) bad++;
    CHECK_EQ_INT(bad, 0);
    slotmap_sparse_free(&half);
  }
  slotmap_sparse_free(&sp);
}
