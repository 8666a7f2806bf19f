/* Erase (swap-and-pop), erase_if, prune, sort, reserve, clear, clone, free,
   moving with memcpy, and the memory of high slot indices. */
#include "sparse.h"

static model_s md_, mc_;

void test_erase(void) {
  TEST_SECTION("erase: swap-and-pop");
  slotmap_sparse_s sp;
  model_s* m = &md_;
  uint32_t sizes[3] = {3, 8, 1};
  unsigned char row[ROW_MAX];
  model_init(m, sizes, 3);
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, sizes, 3), SLATE_OK);
  for (uint32_t i = 0; i < 100; i++) {
    fill_row(m, i, row);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, i), row), SLATE_OK);
    model_set(m, MAKE_KEY(1, i), row);
  }
  /* erasing row 10 moves the last row (key 99) there */
  CHECK_EQ_INT(slotmap_sparse_erase(&sp, MAKE_KEY(1, 10)), SLATE_OK);
  model_erase(m, MAKE_KEY(1, 10));
  CHECK_EQ_U64(slotmap_sparse_key_at(&sp, 10), MAKE_KEY(1, 99));
  CHECK_EQ_U64(slotmap_sparse_length(&sp), 99);
  CHECK(is_absent(&sp, MAKE_KEY(1, 10)));
  CHECK_EQ_INT(slotmap_sparse_erase(&sp, MAKE_KEY(1, 10)), SLATE_ERROR_NOT_FOUND);
  /* erasing the last row moves nothing */
  CHECK_EQ_INT(slotmap_sparse_erase(&sp, MAKE_KEY(1, 98)), SLATE_OK);
  model_erase(m, MAKE_KEY(1, 98));
  CHECK_EQ_U64(slotmap_sparse_key_at(&sp, 97), MAKE_KEY(1, 97));
  /* another generation of a present slot is NOT_FOUND and erases nothing */
  CHECK_EQ_INT(slotmap_sparse_erase(&sp, MAKE_KEY(3, 5)), SLATE_ERROR_NOT_FOUND);
  CHECK_MODEL(&sp, m);
  for (uint32_t i = 0; i < 100; i += 2) {
    int rc = slotmap_sparse_erase(&sp, MAKE_KEY(1, i));
    CHECK_EQ_INT(rc, (i == 10 || i == 98) ? SLATE_ERROR_NOT_FOUND : SLATE_OK);
    model_erase(m, MAKE_KEY(1, i));
  }
  CHECK_MODEL(&sp, m);
  slotmap_sparse_free(&sp);
}

static int odd_slot(slotmap_key key, void* row, void* data) {
  (void)row;
  (*(uint64_t*)data)++;
  return KEY_SLOT(key) % 2 == 1;
}

void test_erase_if_prune(void) {
  TEST_SECTION("erase_if and prune");
  slotmap_sparse_s sp;
  slotmap_s owner;
  model_s* m = &md_;
  uint32_t size = 8;
  slotmap_key keys[500];
  uint64_t asked = 0;
  model_init(m, &size, 1);
  CHECK_EQ_INT(slotmap(&owner, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&sp, 8), SLATE_OK);
  for (uint32_t i = 0; i < 500; i++) {
    uint64_t v = i;
    CHECK_EQ_INT(slotmap_insert(&owner, &i, &keys[i]), SLATE_OK);
    if (i % 5 == 4) continue;
    CHECK_EQ_INT(slotmap_sparse_set(&sp, &owner, keys[i], &v), SLATE_OK);
    model_set(m, keys[i], (const unsigned char*)&v);
  }
  CHECK_EQ_INT(slotmap_sparse_erase_if(&sp, odd_slot, &asked), SLATE_OK);
  CHECK_EQ_U64(asked, 400);
  for (uint32_t i = 0; i < 500; i++)
    if (KEY_SLOT(keys[i]) % 2 == 1) model_erase(m, keys[i]);
  CHECK_MODEL(&sp, m);
  /* entities die; prune drops exactly their rows */
  for (uint32_t i = 0; i < 500; i += 3) {
    CHECK_EQ_INT(slotmap_erase(&owner, keys[i]), SLATE_OK);
    model_erase(m, keys[i]);
  }
  /* one slot reissued: the dead key's row is dropped, the new key absent */
  {
    slotmap_key again = 0;
    CHECK_EQ_INT(slotmap_insert(&owner, NULL, &again), SLATE_OK);
    CHECK(is_absent(&sp, again));
  }
  CHECK(slotmap_sparse_length(&sp) > m->n);
  CHECK_EQ_INT(slotmap_sparse_prune(&sp, &owner), SLATE_OK);
  CHECK_MODEL(&sp, m);
  CHECK_EQ_INT(slotmap_sparse_prune(&sp, &owner), SLATE_OK); /* nothing more */
  CHECK_MODEL(&sp, m);
  /* an empty owner prunes everything; an empty set prunes fine */
  slotmap_free(&owner);
  CHECK_EQ_INT(slotmap_sparse_prune(&sp, &owner), SLATE_OK);
  CHECK_EQ_U64(slotmap_sparse_length(&sp), 0);
  CHECK_EQ_INT(slotmap_sparse_prune(&sp, &owner), SLATE_OK);
  asked = 0;
  CHECK_EQ_INT(slotmap_sparse_erase_if(&sp, odd_slot, &asked), SLATE_OK);
  CHECK_EQ_U64(asked, 0);
  slotmap_sparse_free(&sp);
}

void test_sort(void) {
  TEST_SECTION("sort by column 0");
  slotmap_sparse_s sp;
  model_s* m = &md_;
  uint32_t sizes[3] = {3, 8, 1};
  unsigned char row[ROW_MAX];
  unsigned bad = 0;
  model_init(m, sizes, 3);
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, sizes, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_sort(&sp, less_bytes3, NULL), SLATE_OK); /* empty */
  for (uint32_t i = 0; i < 3000; i++) {
    slotmap_key k = MAKE_KEY(1, (i * 7919u) % 50000u);
    fill_row(m, (i * 2654435761u) % 977u, row);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, row), SLATE_OK);
    model_set(m, k, row);
  }
  CHECK_EQ_INT(slotmap_sparse_sort(&sp, less_bytes3, NULL), SLATE_OK);
  CHECK_MODEL(&sp, m);
  const unsigned char* c0 = (const unsigned char*)slotmap_sparse_column(&sp, 0);
  for (uint32_t r = 1; r < slotmap_sparse_length(&sp); r++)
    if (memcmp(c0 + 3 * (r - 1), c0 + 3 * r, 3) > 0) bad++;
  CHECK_EQ_INT(bad, 0);
  /* walks go in the sorted order */
  slotmap_sparse_free(&sp);
  /* one column of u64 */
  {
    uint32_t size = 8;
    model_init(m, &size, 1);
    CHECK_EQ_INT(slotmap_sparse(&sp, 8), SLATE_OK);
    for (uint32_t i = 0; i < 1000; i++) {
      uint64_t v = (i * 7u) % 1000u;
      CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(9, i), &v), SLATE_OK);
      model_set(m, MAKE_KEY(9, i), (const unsigned char*)&v);
    }
    CHECK_EQ_INT(slotmap_sparse_sort(&sp, less_u64, NULL), SLATE_OK);
    CHECK_MODEL(&sp, m);
    const uint64_t* col = (const uint64_t*)slotmap_sparse_column(&sp, 0);
    for (uint32_t r = 0; r < 1000; r++)
      if (col[r] != r) bad++;
    CHECK_EQ_INT(bad, 0);
    slotmap_sparse_free(&sp);
  }
}

void test_reserve(void) {
  TEST_SECTION("reserve: the next n new keys allocate nothing for their rows");
  slotmap_sparse_s sp;
  counter_s count;
  slate_allocator_s a = counting_allocator(&count);
  enum { N = 1000 };
  /* without reserve, filling one index page's slots allocates (growths) */
  CHECK_EQ_INT(slotmap_sparse(&sp, 24), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_set_allocator(&sp, &a), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, 0), NULL), SLATE_OK);
  unsigned long long before = count.attempts;
  for (uint32_t i = 1; i <= N; i++) CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, i), NULL), SLATE_OK);
  CHECK(count.attempts > before);
  slotmap_sparse_free(&sp);
  CHECK_EQ_U64(count.live_bytes, 0);
  /* with reserve: nothing for keys in a page the index has */
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, 0), NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_reserve(&sp, N), SLATE_OK);
  before = count.attempts;
  for (uint32_t i = 1; i <= N; i++) CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, i), NULL), SLATE_OK);
  CHECK_EQ_U64(count.attempts, before);
  CHECK_EQ_U64(slotmap_sparse_length(&sp), N + 1);
  /* the next one beyond may allocate; reserving what is there does not */
  before = count.attempts;
  CHECK_EQ_INT(slotmap_sparse_reserve(&sp, 0), SLATE_OK);
  CHECK_EQ_U64(count.attempts, before);
  /* reserve after erasing: room counts from the length */
  for (uint32_t i = 1; i <= 500; i++) CHECK_EQ_INT(slotmap_sparse_erase(&sp, MAKE_KEY(1, i)), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_reserve(&sp, 500), SLATE_OK);
  before = count.attempts;
  for (uint32_t i = 1; i <= 500; i++) CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(3, i), NULL), SLATE_OK);
  CHECK_EQ_U64(count.attempts, before);
  /* a reserve no set can reach */
  CHECK_EQ_INT(slotmap_sparse_reserve(&sp, 0xFFFFFFFFu), SLATE_ERROR_FULL);
  CHECK_EQ_U64(slotmap_sparse_length(&sp), N + 1);
  /* a membership set reserves too */
  slotmap_sparse_free(&sp);
  CHECK_EQ_INT(slotmap_sparse(&sp, 0), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_set_allocator(&sp, &a), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, 0), NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_reserve(&sp, N), SLATE_OK);
  before = count.attempts;
  for (uint32_t i = 1; i <= N; i++) CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, i), NULL), SLATE_OK);
  CHECK_EQ_U64(count.attempts, before);
  slotmap_sparse_free(&sp);
  CHECK_EQ_U64(count.live_bytes, 0);
  CHECK_EQ_U64(count.bad, 0);
}

void test_clear_clone_free(void) {
  TEST_SECTION("clear, clone, free");
  slotmap_sparse_s sp, copy;
  model_s* m = &md_;
  model_s* mc = &mc_;
  uint32_t sizes[2] = {16, 5};
  unsigned char row[ROW_MAX];
  counter_s count;
  slate_allocator_s a = counting_allocator(&count);
  model_init(m, sizes, 2);
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, sizes, 2), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_set_allocator(&sp, &a), SLATE_OK);
  for (uint32_t i = 0; i < 1500; i++) {
    slotmap_key k = MAKE_KEY(7, i * 1031u);
    fill_row(m, i, row);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, row), SLATE_OK);
    model_set(m, k, row);
  }
  /* clone: equal contents, its own memory (the source's allocator) */
  unsigned long long live = count.live_bytes;
  memset(&copy, 0xA7, sizeof copy);
  CHECK_EQ_INT(slotmap_sparse_clone(&copy, &sp), SLATE_OK);
  CHECK(count.live_bytes >= 2 * live);
  CHECK_MODEL(&copy, m);
  CHECK_EQ_INT(slotmap_sparse_clone(&sp, &sp), SLATE_ERROR_INVALID);
  CHECK_MODEL(&sp, m);
  /* independent */
  memcpy(mc, m, sizeof *mc);
  CHECK_EQ_INT(slotmap_sparse_erase(&copy, m->keys[0]), SLATE_OK);
  model_erase(mc, m->keys[0]);
  CHECK_EQ_INT(slotmap_sparse_set(&copy, NULL, MAKE_KEY(1, 3), NULL), SLATE_OK);
  model_set(mc, MAKE_KEY(1, 3), NULL);
  CHECK_MODEL(&sp, m);
  CHECK_MODEL(&copy, mc);
  /* clear: every key gone, capacity and pages kept (no allocation on refill) */
  CHECK_EQ_INT(slotmap_sparse_clear(&sp), SLATE_OK);
  for (uint32_t i = 0; i < m->n; i++) CHECK(is_absent(&sp, m->keys[i]));
  model_init(m, sizes, 2);
  CHECK_MODEL(&sp, m);
  {
    unsigned long long before = count.attempts;
    for (uint32_t i = 0; i < 1500; i++) {
      slotmap_key k = MAKE_KEY(9, i * 1031u);
      fill_row(m, i + 7, row);
      CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, row), SLATE_OK);
      model_set(m, k, row);
    }
    CHECK_EQ_U64(count.attempts, before);
  }
  CHECK_MODEL(&sp, m);
  /* free: empty, usable, twice harmless, a clone destination */
  slotmap_sparse_free(&copy);
  slotmap_sparse_free(&copy);
  CHECK_EQ_U64(slotmap_sparse_length(&copy), 0);
  CHECK_EQ_PTR(slotmap_sparse_keys(&copy), NULL);
  CHECK_EQ_PTR(slotmap_sparse_column(&copy, 0), NULL);
  CHECK(is_absent(&copy, MAKE_KEY(1, 3)));
  CHECK_EQ_INT(slotmap_sparse_set(&copy, NULL, MAKE_KEY(1, 3), NULL), SLATE_OK);
  CHECK_EQ_U64(slotmap_sparse_length(&copy), 1);
  slotmap_sparse_free(&copy);
  CHECK_EQ_INT(slotmap_sparse_clone(&copy, &sp), SLATE_OK);
  CHECK_MODEL(&copy, m);
  slotmap_sparse_free(&copy);
  /* a clone of an empty set, and of a freed one */
  slotmap_sparse_free(&sp);
  CHECK_EQ_INT(slotmap_sparse_clone(&copy, &sp), SLATE_OK);
  CHECK_EQ_U64(slotmap_sparse_length(&copy), 0);
  CHECK_EQ_INT(slotmap_sparse_set(&copy, NULL, MAKE_KEY(1, 1), NULL), SLATE_OK);
  CHECK_EQ_PTR(slotmap_sparse_column(&copy, 2), NULL);
  CHECK_NE_PTR(slotmap_sparse_column(&copy, 1), NULL);
  slotmap_sparse_free(&copy);
  CHECK_EQ_U64(count.live_bytes, 0);
  CHECK_EQ_U64(count.bad, 0);
}

void test_memcpy_move(void) {
  TEST_SECTION("moving a set with memcpy between calls");
  static slotmap_sparse_s a, b;
  model_s* m = &md_;
  uint32_t size = 8;
  model_init(m, &size, 1);
  CHECK_EQ_INT(slotmap_sparse(&a, 8), SLATE_OK);
  for (uint32_t i = 0; i < 2000; i++) {
    uint64_t v = i * 3u;
    CHECK_EQ_INT(slotmap_sparse_set(&a, NULL, MAKE_KEY(1, i * 3), &v), SLATE_OK);
    model_set(m, MAKE_KEY(1, i * 3), (const unsigned char*)&v);
  }
  memcpy(&b, &a, sizeof b);
  memset(&a, 0xEE, sizeof a);
  CHECK_MODEL(&b, m);
  for (uint32_t i = 0; i < 2000; i += 2) {
    CHECK_EQ_INT(slotmap_sparse_erase(&b, MAKE_KEY(1, i * 3)), SLATE_OK);
    model_erase(m, MAKE_KEY(1, i * 3));
  }
  for (uint32_t i = 0; i < 3000; i++) {
    uint64_t v = i;
    CHECK_EQ_INT(slotmap_sparse_set(&b, NULL, MAKE_KEY(5, 100000 + i), &v), SLATE_OK);
    model_set(m, MAKE_KEY(5, 100000 + i), (const unsigned char*)&v);
  }
  memcpy(&a, &b, sizeof a);
  CHECK_MODEL(&a, m);
  CHECK_EQ_INT(slotmap_sparse_sort(&a, less_u64, NULL), SLATE_OK);
  CHECK_MODEL(&a, m);
  slotmap_sparse_free(&a);
}

void test_high_slots_memory(void) {
  TEST_SECTION("10 keys with slot indices near 2^31 hold less than 1 MiB");
  slotmap_sparse_s sp;
  counter_s count;
  slate_allocator_s a = counting_allocator(&count);
  const uint32_t spots[10] = {0x80000000u, 0x80000001u, 0x7FFFFFFFu, 0x80012345u, 0x7FFF0000u,
                              0x80400000u, 0x81000000u, 0x7F000000u, 0x80000400u, 0xFFFFFFFEu};
  model_s* m = &md_;
  uint32_t size = 16;
  unsigned char row[ROW_MAX];
  model_init(m, &size, 1);
  CHECK_EQ_INT(slotmap_sparse(&sp, 16), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_set_allocator(&sp, &a), SLATE_OK);
  for (int i = 0; i < 10; i++) {
    slotmap_key k = MAKE_KEY(2 * i + 1, spots[i]);
    fill_row(m, k, row);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, row), SLATE_OK);
    model_set(m, k, row);
  }
  CHECK_MODEL(&sp, m);
  fprintf(stderr, "   live %llu bytes, peak %llu\n", count.live_bytes, count.peak_bytes);
  CHECK(count.live_bytes < 1024u * 1024u);
  CHECK(count.peak_bytes < 1024u * 1024u);
  /* and a clone of it too */
  {
    slotmap_sparse_s copy;
    unsigned long long live = count.live_bytes;
    CHECK_EQ_INT(slotmap_sparse_clone(&copy, &sp), SLATE_OK);
    CHECK_MODEL(&copy, m);
    CHECK(count.live_bytes - live < 1024u * 1024u);
    slotmap_sparse_free(&copy);
  }
  slotmap_sparse_free(&sp);
  CHECK_EQ_U64(count.live_bytes, 0);
  CHECK_EQ_U64(count.bad, 0);
}
