/* A seeded random test against the model: an owner slotmap under churn
   (entities born and dying, slots reissued with new generations), four
   sets of different shapes (one column, membership, three columns, two
   columns of 16 and 5 bytes), and every call of SPEC 6b on keys that are
   live, dead, present, forged, of another generation, of high slot
   indices, or 0; walks that erase, joins of 1-4 sets with and without the
   owner, clones, moves with memcpy. */
#include "sparse.h"
#include "../../support/rng.h"

enum { NSETS = 4, LIVE_MAX = 300, DEAD_MAX = 64 };

static const uint32_t shape_sizes[NSETS][3] = {{8, 0, 0}, {0, 0, 0}, {3, 8, 1}, {16, 5, 0}};
static const uint32_t shape_counts[NSETS] = {1, 0, 3, 2};

typedef struct world_s {
  slotmap_s owner;
  slotmap_key live[LIVE_MAX];
  uint32_t nlive;
  slotmap_key dead[DEAD_MAX];
  uint32_t ndead;
  slotmap_sparse_s store[NSETS][2]; /* each set lives in one of two places */
  int at[NSETS];
  model_s md[NSETS];
  unsigned long step;
} world_s;

static world_s w_;
static model_s copy_md_;

#define SET(i) (&w_.store[(i)][w_.at[(i)]])

static unsigned problems_;
static void problem(const char* what) {
  problems_++;
  if (problems_ <= 20) fprintf(stderr, "   step %lu: %s\n", w_.step, what);
}

/* A key to try on set s. */
static slotmap_key pick_key(int s) {
  uint32_t roll = rng_below(100);
  const model_s* m = &w_.md[s];
  if (roll < 40 && w_.nlive > 0) return w_.live[rng_below(w_.nlive)];
  if (roll < 55 && w_.ndead > 0) return w_.dead[rng_below(w_.ndead)];
  if (roll < 70 && m->n > 0) return m->keys[rng_below(m->n)];
  if (roll < 80) return MAKE_KEY(rng_next(), rng_below(LIVE_MAX + 20));
  if (roll < 85) return MAKE_KEY(rng_below(8) * 2 + 1, MODEL_HIGH + rng_below(MODEL_HIGH_N));
  if (roll < 88) return 0;
  if (w_.nlive > 0) return w_.live[rng_below(w_.nlive)] + ((uint64_t)(1 + rng_below(3)) << 33);
  return MAKE_KEY(1, 1);
}

static int owner_accepts(slotmap_key k) { return slotmap_contains(&w_.owner, k); }

static void check_lookup(int s, slotmap_key k) {
  const model_s* m = &w_.md[s];
  int i = model_find(m, k);
  if (i < 0) {
    if (!is_absent(SET(s), k)) problem("an absent key is found");
    return;
  }
  void* e = SENTINEL;
  uint32_t r = SENTINEL_ROW;
  unsigned char row[ROW_MAX];
  if (slotmap_sparse_contains(SET(s), k) != 1) problem("contains");
  if (slotmap_sparse_row(SET(s), k, &r) != SLATE_OK || slotmap_sparse_key_at(SET(s), r) != k) {
    problem("row/key_at");
    return;
  }
  if (slotmap_sparse_get(SET(s), k, &e) != SLATE_OK) problem("get");
  if (m->ncols == 0 ? e != NULL : e != (unsigned char*)slotmap_sparse_column(SET(s), 0) + (size_t)r * m->sizes[0])
    problem("get's element");
  read_row(SET(s), m, r, row);
  if (memcmp(row, m->rows[i], m->row_bytes) != 0) problem("row bytes");
}

static void do_set(int s, int with_owner) {
  slotmap_key k = pick_key(s);
  unsigned char row[ROW_MAX];
  int null_row = one_in(8);
  model_s* m = &w_.md[s];
  fill_row(m, rng_next(), row);
  uint32_t before = slotmap_sparse_length(SET(s));
  int rc = slotmap_sparse_set(SET(s), with_owner ? &w_.owner : NULL, k, null_row ? NULL : row);
  int want = k == 0 ? SLATE_ERROR_INVALID
                    : (with_owner && !owner_accepts(k)) ? SLATE_ERROR_NOT_FOUND : SLATE_OK;
  if (rc != want) {
    problem("set's result");
    fprintf(stderr, "     key %llx owner %d rc %d want %d\n", (unsigned long long)k, with_owner, rc, want);
  }
  if (rc == SLATE_OK) {
    int had_slot = model_find_slot(m, KEY_SLOT(k)) >= 0;
    model_set(m, k, null_row ? NULL : row);
    if (slotmap_sparse_length(SET(s)) != before + (had_slot ? 0u : 1u)) problem("set's length");
    if (!had_slot && slotmap_sparse_key_at(SET(s), before) != k) problem("set appends");
  } else if (slotmap_sparse_length(SET(s)) != before) {
    problem("a failed set changed the length");
  }
  check_lookup(s, k);
}

static void do_erase(int s) {
  slotmap_key k = pick_key(s);
  model_s* m = &w_.md[s];
  int present = model_find(m, k) >= 0;
  uint32_t before = slotmap_sparse_length(SET(s));
  slotmap_key last = slotmap_sparse_key_at(SET(s), before - 1);
  uint32_t r = 0;
  if (present) slotmap_sparse_row(SET(s), k, &r);
  int rc = slotmap_sparse_erase(SET(s), k);
  if (rc != (present ? SLATE_OK : SLATE_ERROR_NOT_FOUND)) problem("erase's result");
  if (present) {
    model_erase(m, k);
    /* swap-and-pop: the last row's key now at r */
    if (r + 1 < before && slotmap_sparse_key_at(SET(s), r) != last) problem("swap-and-pop");
  }
  check_lookup(s, k);
}

static void do_get_many(int s) {
  slotmap_key keys[24];
  void* elements[24];
  uint8_t found[24];
  uint32_t n = rng_below(24);
  int with_elements = !one_in(4);
  for (uint32_t i = 0; i < n; i++) {
    keys[i] = pick_key(s);
    elements[i] = SENTINEL;
    found[i] = 7;
  }
  if (slotmap_sparse_get_many(SET(s), n ? keys : NULL, n, with_elements ? elements : NULL, n ? found : NULL) != SLATE_OK)
    problem("get_many's result");
  for (uint32_t i = 0; i < n; i++) {
    void* e = SENTINEL;
    int rc = slotmap_sparse_get(SET(s), keys[i], &e);
    if (found[i] != (model_find(&w_.md[s], keys[i]) >= 0)) problem("get_many's found");
    if (found[i] != (rc == SLATE_OK)) problem("get_many against get");
    if (elements[i] != (with_elements ? e : SENTINEL)) problem("get_many's elements");
  }
}

static uint64_t salt_;
static int pred_salted(slotmap_key key, void* row, void* data) {
  (void)row;
  (void)data;
  return ((key * 0x9E3779B97F4A7C15ull + salt_) >> 61) == 0;
}

static void do_erase_if(int s) {
  model_s* m = &w_.md[s];
  salt_ = rng_next();
  if (slotmap_sparse_erase_if(SET(s), pred_salted, NULL) != SLATE_OK) problem("erase_if");
  for (uint32_t i = 0; i < m->n;)
    if (pred_salted(m->keys[i], NULL, NULL))
      model_erase(m, m->keys[i]);
    else
      i++;
  if (sparse_differs(SET(s), m)) problem("after erase_if");
}

static void do_prune(int s) {
  model_s* m = &w_.md[s];
  if (slotmap_sparse_prune(SET(s), &w_.owner) != SLATE_OK) problem("prune");
  for (uint32_t i = 0; i < m->n;)
    if (!owner_accepts(m->keys[i]))
      model_erase(m, m->keys[i]);
    else
      i++;
  if (sparse_differs(SET(s), m)) problem("after prune");
}

static int less16(const void* a, const void* b, void* data) {
  (void)data;
  return memcmp(a, b, 16) < 0;
}

static void do_sort(int s) {
  model_s* m = &w_.md[s];
  int (*less)(const void*, const void*, void*) = s == 0 ? less_u64 : s == 2 ? less_bytes3 : less16;
  int rc = slotmap_sparse_sort(SET(s), less, NULL);
  if (m->ncols == 0) {
    if (rc != SLATE_ERROR_INVALID) problem("sort of a membership set");
    return;
  }
  if (rc != SLATE_OK) problem("sort");
  const unsigned char* c0 = (const unsigned char*)slotmap_sparse_column(SET(s), 0);
  for (uint32_t r = 1; r < m->n; r++)
    if (less(c0 + (size_t)r * m->sizes[0], c0 + (size_t)(r - 1) * m->sizes[0], NULL)) problem("sort's order");
  if (sparse_differs(SET(s), m)) problem("after sort");
}

static void do_clone(int s) {
  static slotmap_sparse_s copy;
  model_s* m = &w_.md[s];
  memset(&copy, 0x5A, sizeof copy);
  if (slotmap_sparse_clone(&copy, SET(s)) != SLATE_OK) problem("clone");
  if (sparse_differs(&copy, m)) problem("the clone differs");
  /* independent: changing the copy leaves the source */
  if (m->n > 0) {
    memcpy(&copy_md_, m, sizeof copy_md_);
    slotmap_key k = m->keys[rng_below(m->n)];
    if (slotmap_sparse_erase(&copy, k) != SLATE_OK) problem("erase from the clone");
    model_erase(&copy_md_, k);
    if (sparse_differs(&copy, &copy_md_)) problem("the clone after an erase");
  }
  if (slotmap_sparse_clone(SET(s), SET(s)) != SLATE_ERROR_INVALID) problem("clone onto itself");
  slotmap_sparse_free(&copy);
  slotmap_sparse_free(&copy);
  if (sparse_differs(SET(s), m)) problem("the source after a clone");
}

/* each: dense order, elements, and erasing the current key on a coin */
typedef struct walk_s {
  int s;
  uint32_t visited;
  slotmap_key first[8];
  uint64_t coin;
  int erase;
} walk_s;

static int walk_cb(slotmap_key key, void* row, void* data) {
  walk_s* wk = (walk_s*)data;
  int s = wk->s;
  void* e = SENTINEL;
  if (wk->visited < 8) wk->first[wk->visited] = key;
  wk->visited++;
  if (slotmap_sparse_get(SET(s), key, &e) != SLATE_OK || e != row) problem("each's element");
  if (model_find(&w_.md[s], key) < 0) problem("each gave a key not in the model");
  if (wk->erase && ((key ^ wk->coin) & 1)) {
    if (slotmap_sparse_erase(SET(s), key) != SLATE_OK) problem("erase in each");
    model_erase(&w_.md[s], key);
  }
  return 0;
}

static void do_each(int s) {
  walk_s wk;
  slotmap_key start[8];
  uint32_t n = slotmap_sparse_length(SET(s));
  memset(&wk, 0, sizeof wk);
  wk.s = s;
  wk.coin = rng_next();
  wk.erase = one_in(3);
  for (uint32_t r = 0; r < 8 && r < n; r++) start[r] = slotmap_sparse_key_at(SET(s), r);
  if (slotmap_sparse_each(SET(s), walk_cb, &wk) != SLATE_OK) problem("each");
  if (wk.visited != n) problem("each visits every row once");
  if (!wk.erase)
    for (uint32_t r = 0; r < 8 && r < n; r++)
      if (wk.first[r] != start[r]) problem("each's order");
  if (wk.erase && sparse_differs(SET(s), &w_.md[s])) problem("after erasing in each");
}

/* joins against brute force */
typedef struct jw_s {
  slotmap_sparse_s* sets[4];
  int idx[4];
  uint32_t count;
  int with_owner;
  slotmap_key want[MODEL_MAX], seen[MODEL_MAX];
  uint32_t nwant, n;
  uint32_t lead;
  int erase_from; /* -1 or a position in sets */
  int stop_at;
} jw_s;

static jw_s jw_;

static int join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  jw_s* j = (jw_s*)data;
  if (j->n < MODEL_MAX) j->seen[j->n] = key;
  j->n++;
  for (uint32_t i = 0; i < j->count; i++) {
    uint32_t r = SENTINEL_ROW;
    void* e = SENTINEL;
    if (slotmap_sparse_row(j->sets[i], key, &r) != SLATE_OK || r != rows[i]) problem("join's rows");
    if (slotmap_sparse_get(j->sets[i], key, &e) != SLATE_OK || e != elements[i]) problem("join's elements");
  }
  if (j->with_owner) {
    uint32_t r = SENTINEL_ROW;
    void* e = SENTINEL;
    if (slotmap_row(&w_.owner, key, &r) != SLATE_OK || r != rows[j->count]) problem("join's owner row");
    if (slotmap_get(&w_.owner, key, &e) != SLATE_OK || e != elements[j->count]) problem("join's owner element");
  }
  if (j->erase_from >= 0 && (key & 2)) {
    if (slotmap_sparse_erase(j->sets[j->erase_from], key) != SLATE_OK) problem("erase in join");
    model_erase(&w_.md[j->idx[j->erase_from]], key);
  }
  if (j->stop_at > 0 && j->n == (uint32_t)j->stop_at) return 77;
  return 0;
}

static int cmp_key(const void* a, const void* b) {
  slotmap_key x = *(const slotmap_key*)a, y = *(const slotmap_key*)b;
  return x < y ? -1 : x > y;
}

static void do_join(void) {
  jw_s* j = &jw_;
  j->count = 1 + rng_below(4);
  j->with_owner = !one_in(3);
  for (uint32_t i = 0; i < j->count; i++) {
    j->idx[i] = (int)rng_below(NSETS);
    j->sets[i] = SET(j->idx[i]);
  }
  uint32_t lead = 0;
  for (uint32_t i = 1; i < j->count; i++)
    if (slotmap_sparse_length(j->sets[i]) < slotmap_sparse_length(j->sets[lead])) lead = i;
  j->lead = lead;
  j->nwant = 0;
  for (uint32_t r = 0; r < slotmap_sparse_length(j->sets[lead]); r++) {
    slotmap_key k = slotmap_sparse_key_at(j->sets[lead], r);
    int in = !j->with_owner || owner_accepts(k);
    for (uint32_t i = 0; i < j->count && in; i++) in = model_find(&w_.md[j->idx[i]], k) >= 0;
    if (in) j->want[j->nwant++] = k;
  }
  j->n = 0;
  j->erase_from = one_in(3) ? (int)rng_below(j->count) : -1;
  j->stop_at = one_in(4) ? (int)rng_below(6) : 0;
  int rc = slotmap_join(j->with_owner ? &w_.owner : NULL, j->sets, j->count, join_cb, j);
  int stopped = j->stop_at > 0 && (uint32_t)j->stop_at <= j->nwant;
  if (rc != (stopped ? 77 : SLATE_OK)) problem("join's result");
  if (j->n != (stopped ? (uint32_t)j->stop_at : j->nwant)) {
    problem("join's count of visits");
    return;
  }
  /* in the lead set's row order, unless the callback erased from it (then
     swap-and-pop brings the last row forward): every key once either way */
  if (j->erase_from < 0 || j->idx[j->erase_from] != j->idx[j->lead]) {
    if (memcmp(j->seen, j->want, j->n * sizeof(slotmap_key)) != 0) problem("join's keys or order");
  } else if (!stopped) {
    qsort(j->seen, j->n, sizeof(slotmap_key), cmp_key);
    qsort(j->want, j->n, sizeof(slotmap_key), cmp_key);
    if (memcmp(j->seen, j->want, j->n * sizeof(slotmap_key)) != 0) problem("join's keys");
  }
}

static void do_owner_churn(void) {
  if (w_.nlive < LIVE_MAX && (w_.nlive < 20 || !one_in(2))) {
    uint32_t id = (uint32_t)w_.step;
    slotmap_key k = 0;
    if (slotmap_insert(&w_.owner, &id, &k) != SLATE_OK) problem("owner insert");
    w_.live[w_.nlive++] = k;
  } else if (w_.nlive > 0) {
    uint32_t i = rng_below(w_.nlive);
    slotmap_key k = w_.live[i];
    w_.live[i] = w_.live[--w_.nlive];
    if (slotmap_erase(&w_.owner, k) != SLATE_OK) problem("owner erase");
    if (w_.ndead < DEAD_MAX)
      w_.dead[w_.ndead++] = k;
    else
      w_.dead[rng_below(DEAD_MAX)] = k;
  }
}

static void do_move(int s) {
  int to = 1 - w_.at[s];
  memcpy(&w_.store[s][to], SET(s), sizeof(slotmap_sparse_s));
  memset(SET(s), 0xDD, sizeof(slotmap_sparse_s));
  w_.at[s] = to;
}

void test_random(uint64_t seed, unsigned long steps) {
  TEST_SECTION("random operations against a model");
  rng_state_ = seed;
  memset(&w_, 0, sizeof w_);
  problems_ = 0;
  CHECK_EQ_INT(slotmap(&w_.owner, 4), SLATE_OK);
  for (int s = 0; s < NSETS; s++) {
    model_init(&w_.md[s], shape_sizes[s], shape_counts[s]);
    CHECK_EQ_INT(sparse_init(SET(s), shape_sizes[s], shape_counts[s]), SLATE_OK);
  }
  for (w_.step = 0; w_.step < steps && problems_ < 50; w_.step++) {
    int s = (int)rng_below(NSETS);
    uint32_t op = rng_below(1000);
    if (op < 150) do_owner_churn();
    else if (op < 400) do_set(s, 1);
    else if (op < 500) do_set(s, 0);
    else if (op < 620) check_lookup(s, pick_key(s));
    else if (op < 700) do_get_many(s);
    else if (op < 850) do_erase(s);
    else if (op < 860) do_erase_if(s);
    else if (op < 880) do_prune(s);
    else if (op < 888) do_sort(s);
    else if (op < 900) {
      uint32_t n = rng_below(64);
      if (slotmap_sparse_reserve(SET(s), n) != SLATE_OK) problem("reserve");
    } else if (op < 902) {
      if (slotmap_sparse_clear(SET(s)) != SLATE_OK) problem("clear");
      for (uint32_t i = 0; i < w_.md[s].n; i++)
        if (!is_absent(SET(s), w_.md[s].keys[i])) problem("a cleared key");
      model_init(&w_.md[s], shape_sizes[s], shape_counts[s]);
    } else if (op < 907) do_clone(s);
    else if (op < 917) do_move(s);
    else if (op < 950) do_each(s);
    else if (op < 999) do_join();
    else {
      slotmap_sparse_free(SET(s));
      model_init(&w_.md[s], shape_sizes[s], shape_counts[s]);
    }
    if (w_.step % 512 == 0)
      for (int t = 0; t < NSETS; t++)
        if (sparse_differs(SET(t), &w_.md[t])) problem("the set differs from the model");
  }
  for (int s = 0; s < NSETS; s++) {
    CHECK_MODEL(SET(s), &w_.md[s]);
    slotmap_sparse_free(SET(s));
  }
  CHECK_EQ_INT(problems_, 0);
  fprintf(stderr, "   %lu steps\n", w_.step);
  slotmap_free(&w_.owner);
}
