/* slotmap_join against a brute-force model: 1-4 sets, with and without an
   owner; rows[] and elements[]; the smallest set walked (the first on a
   tie) in row order; the stopping value; erasing the current key from the
   walked set and from a tested one. */
#include "sparse.h"

enum { JMAX = 4096 };

typedef struct joined_s {
  slotmap_sparse_s* const* sets; /* up to 32 */
  uint32_t count;
  const slotmap_s* owner;
  slotmap_key seen[JMAX];
  uint32_t n;
  unsigned bad;
  int stop_at;       /* 0: never */
  int erase_from;    /* -1: none, else the set to erase the key from */
  int erase_also;    /* -1: none, a second set to erase it from */
} joined_s;

static int joined_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  joined_s* j = (joined_s*)data;
  if (j->n < JMAX) j->seen[j->n] = key;
  j->n++;
  for (uint32_t i = 0; i < j->count; i++) {
    uint32_t r = SENTINEL_ROW;
    void* e = SENTINEL;
    if (slotmap_sparse_row(j->sets[i], key, &r) != SLATE_OK || r != rows[i]) j->bad++;
    if (slotmap_sparse_get(j->sets[i], key, &e) != SLATE_OK || e != elements[i]) j->bad++;
  }
  if (j->owner != NULL) {
    uint32_t r = SENTINEL_ROW;
    void* e = SENTINEL;
    if (slotmap_row(j->owner, key, &r) != SLATE_OK || r != rows[j->count]) j->bad++;
    if (slotmap_get(j->owner, key, &e) != SLATE_OK || e != elements[j->count]) j->bad++;
  }
  if (j->erase_from >= 0 && slotmap_sparse_erase(j->sets[j->erase_from], key) != SLATE_OK) j->bad++;
  if (j->erase_also >= 0 && j->erase_also != j->erase_from &&
      slotmap_sparse_erase(j->sets[j->erase_also], key) != SLATE_OK)
    j->bad++;
  if (j->stop_at != 0 && j->n == (uint32_t)j->stop_at) return 100 + j->stop_at;
  return 0;
}

/* The expected visits: the smallest set's keys (the first such on a tie),
   in row order, present in every set and valid in the owner. */
static uint32_t brute_join(const slotmap_s* owner, slotmap_sparse_s* const* sets, uint32_t count,
                           slotmap_key* out) {
  uint32_t lead = 0, n = 0;
  for (uint32_t i = 1; i < count; i++)
    if (slotmap_sparse_length(sets[i]) < slotmap_sparse_length(sets[lead])) lead = i;
  for (uint32_t r = 0; r < slotmap_sparse_length(sets[lead]); r++) {
    slotmap_key k = slotmap_sparse_key_at(sets[lead], r);
    int in = owner == NULL || slotmap_contains(owner, k);
    for (uint32_t i = 0; i < count && in; i++) in = slotmap_sparse_contains(sets[i], k);
    if (in) out[n++] = k;
  }
  return n;
}

static joined_s j_;
static slotmap_key want_[JMAX];

static void run_join(const slotmap_s* owner, slotmap_sparse_s* const* sets, uint32_t count, int stop_at) {
  uint32_t n = brute_join(owner, sets, count, want_);
  memset(&j_, 0, sizeof j_);
  j_.sets = sets;
  j_.count = count;
  j_.owner = owner;
  j_.stop_at = stop_at;
  j_.erase_from = -1;
  j_.erase_also = -1;
  int rc = slotmap_join(owner, sets, count, joined_cb, &j_);
  if (stop_at != 0 && (uint32_t)stop_at <= n) {
    CHECK_EQ_INT(rc, 100 + stop_at);
    CHECK_EQ_U64(j_.n, (uint32_t)stop_at);
    n = (uint32_t)stop_at;
  } else {
    CHECK_EQ_INT(rc, SLATE_OK);
    CHECK_EQ_U64(j_.n, n);
  }
  CHECK_EQ_INT(j_.bad, 0);
  if (j_.n == n) CHECK_EQ_MEM(j_.seen, want_, n * sizeof(slotmap_key));
}

void test_join_basics(void) {
  TEST_SECTION("join: 1-4 sets, with and without owner, against brute force");
  static slotmap_sparse_s s[5];
  static slotmap_s owner;
  uint32_t sizes2[2] = {12, 1};
  slotmap_key keys[3000];
  CHECK_EQ_INT(slotmap(&owner, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&s[0], 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&s[1], 0), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_columns(&s[2], sizes2, 2), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&s[3], 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&s[4], 0), SLATE_OK);
  for (uint32_t i = 0; i < 3000; i++) {
    uint64_t v = i;
    CHECK_EQ_INT(slotmap_insert(&owner, &v, &keys[i]), SLATE_OK);
  }
  /* sets with different members, rows in different orders */
  for (uint32_t i = 0; i < 3000; i++) {
    uint32_t j = (i * 1237u) % 3000u;
    uint64_t v = j;
    if (j % 2 == 0) CHECK_EQ_INT(slotmap_sparse_set(&s[0], &owner, keys[j], &v), SLATE_OK);
    if (j % 3 == 0) CHECK_EQ_INT(slotmap_sparse_set(&s[1], &owner, keys[j], NULL), SLATE_OK);
    if (j % 5 != 1) CHECK_EQ_INT(slotmap_sparse_set(&s[2], &owner, keys[j], NULL), SLATE_OK);
    if (j % 7 < 3) CHECK_EQ_INT(slotmap_sparse_set(&s[3], &owner, keys[3000 - 1 - j], &j), SLATE_OK);
  }
  /* some entities die (their rows stay until pruned) */
  for (uint32_t i = 0; i < 3000; i += 11) CHECK_EQ_INT(slotmap_erase(&owner, keys[i]), SLATE_OK);
  {
    static const uint32_t combos[][4] = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 0}, {0, 1, 0, 0},
                                         {1, 0, 0, 0}, {2, 3, 0, 0}, {0, 1, 2, 0}, {3, 2, 1, 0},
                                         {0, 1, 2, 3}, {2, 0, 3, 1}, {1, 1, 0, 0}, {4, 0, 0, 0},
                                         {0, 4, 1, 0}};
    static const uint32_t counts[] = {1, 1, 1, 2, 1, 2, 3, 3, 4, 4, 2, 1, 3};
    for (unsigned c = 0; c < sizeof counts / sizeof counts[0]; c++) {
      slotmap_sparse_s* sets[4];
      for (uint32_t i = 0; i < counts[c]; i++) sets[i] = &s[combos[c][i]];
      run_join(NULL, sets, counts[c], 0);
      run_join(&owner, sets, counts[c], 0);
      run_join(&owner, sets, counts[c], 3);
      run_join(NULL, sets, counts[c], 1);
    }
  }
  /* a tie: the first set of the smallest length is walked */
  {
    slotmap_sparse_s x, y;
    slotmap_sparse_s* xy[2] = {&x, &y};
    slotmap_sparse_s* yx[2] = {&y, &x};
    CHECK_EQ_INT(slotmap_sparse(&x, 0), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse(&y, 0), SLATE_OK);
    for (uint32_t i = 0; i < 50; i++) {
      CHECK_EQ_INT(slotmap_sparse_set(&x, NULL, keys[i + 1], NULL), SLATE_OK);
      CHECK_EQ_INT(slotmap_sparse_set(&y, NULL, keys[50 - i], NULL), SLATE_OK);
    }
    run_join(NULL, xy, 2, 0);
    CHECK_EQ_U64(j_.seen[0], keys[1]);
    run_join(NULL, yx, 2, 0);
    CHECK_EQ_U64(j_.seen[0], keys[50]);
    slotmap_sparse_free(&x);
    slotmap_sparse_free(&y);
  }
  /* a join takes up to 32 sets (a set may appear more than once); one more
     is FULL */
  {
    slotmap_sparse_s* many[33];
    for (int i = 0; i < 33; i++) many[i] = &s[i % 3];
    run_join(&owner, many, 32, 0);
    CHECK(j_.n > 0);
    CHECK_EQ_INT(slotmap_join(&owner, many, 33, joined_cb, &j_), SLATE_ERROR_FULL);
  }
  /* empty sets join nothing */
  {
    slotmap_sparse_s* sets[2] = {&s[0], &s[4]};
    run_join(&owner, sets, 2, 0);
    CHECK_EQ_U64(j_.n, 0);
  }
  for (int i = 0; i < 5; i++) slotmap_sparse_free(&s[i]);
  slotmap_free(&owner);
}

void test_join_erasing(void) {
  TEST_SECTION("join: erasing the current key from the walked and from a tested set");
  static slotmap_sparse_s a, b, c;
  static slotmap_key before_[JMAX];
  for (int mode = 0; mode < 4; mode++) {
    CHECK_EQ_INT(slotmap_sparse(&a, 8), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse(&b, 0), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse(&c, 4), SLATE_OK);
    for (uint32_t i = 0; i < 2000; i++) {
      slotmap_key k = MAKE_KEY(1, (i * 613u) % 2000u);
      uint64_t v = i;
      CHECK_EQ_INT(slotmap_sparse_set(&a, NULL, k, &v), SLATE_OK);
      if (i % 2 == 0) CHECK_EQ_INT(slotmap_sparse_set(&b, NULL, k, NULL), SLATE_OK);
      if (i % 3 != 0) CHECK_EQ_INT(slotmap_sparse_set(&c, NULL, k, &i), SLATE_OK);
    }
    slotmap_sparse_s* sets[3] = {&a, &b, &c}; /* b, 1000 rows, is walked */
    uint32_t n = brute_join(NULL, sets, 3, want_);
    memcpy(before_, want_, n * sizeof(slotmap_key));
    uint32_t la = slotmap_sparse_length(&a), lb = slotmap_sparse_length(&b),
             lc = slotmap_sparse_length(&c);
    memset(&j_, 0, sizeof j_);
    j_.sets = sets;
    j_.count = 3;
    /* 0: from the walked set; 1: from a tested one; 2: from both;
       3: from all three */
    j_.erase_from = mode == 1 ? 0 : 1;
    j_.erase_also = mode == 2 ? 2 : mode == 3 ? 0 : -1;
    CHECK_EQ_INT(slotmap_join(NULL, sets, 3, joined_cb, &j_), SLATE_OK);
    CHECK_EQ_INT(j_.bad, 0);
    CHECK_EQ_U64(j_.n, n);
    /* every key once; as a set of keys, the brute force's */
    {
      unsigned wrong = 0;
      for (uint32_t i = 0; i < n && i < JMAX; i++) {
        uint32_t hits = 0;
        for (uint32_t x = 0; x < j_.n && x < JMAX; x++) hits += j_.seen[x] == before_[i];
        if (hits != 1) wrong++;
        slotmap_sparse_s* gone = sets[j_.erase_from];
        if (slotmap_sparse_contains(gone, before_[i])) wrong++;
      }
      CHECK_EQ_INT(wrong, 0);
    }
    CHECK_EQ_U64(slotmap_sparse_length(&a), la - ((j_.erase_from == 0 || j_.erase_also == 0) ? n : 0));
    CHECK_EQ_U64(slotmap_sparse_length(&b), lb - (j_.erase_from == 1 ? n : 0));
    CHECK_EQ_U64(slotmap_sparse_length(&c), lc - (j_.erase_also == 2 ? n : 0));
    slotmap_sparse_free(&a);
    slotmap_sparse_free(&b);
    slotmap_sparse_free(&c);
  }
}
