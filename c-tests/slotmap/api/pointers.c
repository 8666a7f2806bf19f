/* slotmap/api: where rows live -- moving a slotmap with memcpy, pointer
 * validity, and inserting a copy of the slotmap's own element. */
#include "slotmap.h"

/* ------------------------------------------------------------------------ */
/* moving a slotmap with memcpy                                              */
/* ------------------------------------------------------------------------ */

typedef struct holder_s {
  char tag;
  slotmap_s sm;
} holder_s;

void test_memcpy_move(void) {
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

/* Calls from inside its own walk that change nothing: a reserve of rows it
   has room for, an allocator refused to a slotmap that holds memory. */
static int unchanging_calls_cb(slotmap_key key, void* row, void* data) {
  slotmap_s* sm = (slotmap_s*)data;
  (void)key;
  (void)row;
  return (slotmap_reserve(sm, slotmap_length(sm)) != SLATE_OK) +
         (slotmap_set_allocator(sm, NULL) != SLATE_ERROR_INVALID);
}

/* SPEC 6: pointers from slotmap_get / slotmap_column are valid until the
   next call that inserts, erases, sorts, reserves, clears or frees.  So
   reads, calls the contract does not list (limit), calls that fail or are
   refused, and anything done to another slotmap keep them valid, and
   writes through them change the row. */
void test_pointer_validity(void) {
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
  {
    void* elements[3] = {NULL, NULL, NULL};
    slotmap_key some[3] = {keys[0], keys[50], 0};
    CHECK_EQ_INT(slotmap_get_many(&sm, some, 3, elements), SLATE_OK);
    CHECK_EQ_PTR(elements[1], e);
  }
  /* a limit at the length, then what it refuses: no room is made */
  CHECK_EQ_INT(slotmap_limit(&sm, 100), SLATE_OK);
  {
    slotmap_key k = 0;
    uint64_t v = 7;
    CHECK_EQ_INT(slotmap_insert(&sm, &v, &k), SLATE_ERROR_FULL);
    CHECK_EQ_INT(slotmap_reserve(&sm, 5000), SLATE_ERROR_FULL);
  }
  CHECK_EQ_INT(slotmap_limit(&sm, UINT32_MAX), SLATE_OK);
  /* calls inside its own walk that change nothing */
  CHECK_EQ_INT(slotmap_each(&sm, unchanging_calls_cb, &sm), SLATE_OK);
  /* an erase of a key it does not hold */
  {
    slotmap_key foreign = put_u64(&other, 1, &bad);
    CHECK_EQ_INT(slotmap_erase(&sm, foreign), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_INT(slotmap_erase(&other, foreign), SLATE_OK);
  }
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
/* inserting a copy of the slotmap's own element                            */
/* ------------------------------------------------------------------------ */

/* SPEC 6: a pointer from slotmap_get is valid until the next call that
   inserts, so it is still valid as that call's argument (as v[0] is for
   std::vector::push_back).  Duplicating an element of a one-column slotmap
   this way must copy the right bytes also when the insert grows the rows.
   (Run last: if the library reads the freed rows, AddressSanitizer stops
   the program here.) */
void test_insert_own_element(void) {
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
