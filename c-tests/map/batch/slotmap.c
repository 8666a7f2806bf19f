/* map/batch: slotmap_get_many against slotmap_get: element sizes, forged,
 * stale and foreign keys, clear, free and reuse, sort, clone, columns. */
#include "batch.h"

#define MAKE_KEY(generation, index) (((uint64_t)(uint32_t)(generation) << 32) | (uint64_t)(uint32_t)(index))
#define NO_ID UINT64_MAX /* a key that must not be found */

/* Row `id` of a one-column slotmap of `size`-byte elements. */
static void fill_row(unsigned char* row, uint32_t size, uint64_t id) {
  for (uint32_t j = 0; j < size; j++) row[j] = (unsigned char)(id * 31u + j * 7u + 1u);
}

static int row_is(const void* element, uint32_t size, uint64_t id) {
  const unsigned char* e = (const unsigned char*)element;
  for (uint32_t j = 0; j < size; j++)
    if (e[j] != (unsigned char)(id * 31u + j * 7u + 1u)) return 0;
  return 1;
}

/* The keys a test keeps: live ones with their ids, stale ones. */
typedef struct keys_s {
  slotmap_key* live;
  uint64_t* id;
  size_t live_n;
  slotmap_key* stale;
  size_t stale_n;
  size_t cap;
  uint64_t next_id;
} keys_s;

static void keys_init(keys_s* k, size_t cap) {
  memset(k, 0, sizeof *k);
  k->cap = cap;
  k->live = (slotmap_key*)xmalloc(sizeof(slotmap_key) * cap);
  k->id = (uint64_t*)xmalloc(sizeof(uint64_t) * cap);
  k->stale = (slotmap_key*)xmalloc(sizeof(slotmap_key) * cap);
}

static void keys_release(keys_s* k) {
  free(k->live);
  free(k->id);
  free(k->stale);
}

static void insert_rows(slotmap_s* sm, keys_s* k, uint32_t size, size_t n) {
  unsigned char* row = (unsigned char*)xmalloc(size);
  unsigned long bad = 0;
  for (size_t i = 0; i < n && k->live_n < k->cap; i++) {
    slotmap_key key = 0;
    fill_row(row, size, k->next_id);
    if (slotmap_insert(sm, row, &key) != SLATE_OK) {
      bad++;
      continue;
    }
    k->live[k->live_n] = key;
    k->id[k->live_n++] = k->next_id++;
  }
  CHECK_EQ_U64(bad, 0);
  free(row);
}

static void erase_live(slotmap_s* sm, keys_s* k, size_t at, unsigned long* bad) {
  if (slotmap_erase(sm, k->live[at]) != SLATE_OK) (*bad)++;
  if (k->stale_n < k->cap) k->stale[k->stale_n++] = k->live[at];
  k->live[at] = k->live[k->live_n - 1];
  k->id[at] = k->id[--k->live_n];
}

static void erase_random(slotmap_s* sm, keys_s* k, size_t n) {
  unsigned long bad = 0;
  for (size_t i = 0; i < n && k->live_n > 0; i++) erase_live(sm, k, rnd_below((uint32_t)k->live_n), &bad);
  CHECK_EQ_U64(bad, 0);
}

/* Every live key goes stale (clear, free). */
static void all_stale(keys_s* k) {
  for (size_t i = 0; i < k->live_n && k->stale_n < k->cap; i++) k->stale[k->stale_n++] = k->live[i];
  k->live_n = 0;
}

/* A forged key of this slotmap: random, 0, an index past the end, or a
   live key's index with another generation. */
static slotmap_key forged(const keys_s* k, uint32_t slots) {
  slotmap_key base = k->live_n ? k->live[rnd_below((uint32_t)k->live_n)] : MAKE_KEY(1, 0);
  uint32_t g = (uint32_t)(base >> 32), idx = (uint32_t)base;
  switch (rnd_below(10)) {
    case 0:
      return 0;
    case 1:
      return rnd();
    case 2:
      return MAKE_KEY(g, slots + rnd_below(3)); /* past the end, a live generation */
    case 3:
      return MAKE_KEY(g, 0xFFFFFFFFu - rnd_below(2));
    case 4:
      return MAKE_KEY(g + 1, idx); /* an even (dead) generation */
    case 5:
      return MAKE_KEY(g + 2, idx); /* the slot's next generation, not issued */
    case 6:
      return MAKE_KEY(g - 2, idx);
    case 7:
      return MAKE_KEY(g ^ 0x80000000u, idx);
    case 8:
      return MAKE_KEY(0, idx);
    default:
      return MAKE_KEY(0xFFFFFFFFu, idx);
  }
}

/* A batch of n keys: live (found, with their rows), stale, forged,
   duplicates; checked against slotmap_get, the model and the rows. */
static void check_mixed(const slotmap_s* sm, const keys_s* k, uint32_t size, size_t n, const char* label) {
  slotmap_key* keys = (slotmap_key*)xmalloc(sizeof(slotmap_key) * (n + 1));
  uint64_t* ids = (uint64_t*)xmalloc(sizeof(uint64_t) * (n + 1));
  signed char* expect = (signed char*)xmalloc(n + 1);
  void** elements = (void**)xmalloc(sizeof(void*) * (n + 1));
  unsigned long wrong = 0;
  uint32_t slots = 0; /* above every index the test has seen */
  for (size_t i = 0; i < k->live_n; i++)
    if ((uint32_t)k->live[i] >= slots) slots = (uint32_t)k->live[i] + 1;
  for (size_t i = 0; i < k->stale_n; i++)
    if ((uint32_t)k->stale[i] >= slots) slots = (uint32_t)k->stale[i] + 1;
  for (size_t i = 0; i < n; i++) {
    uint32_t r = rnd_below(16);
    if (r < 8 && k->live_n > 0) {
      size_t at = rnd_below((uint32_t)k->live_n);
      keys[i] = k->live[at];
      ids[i] = k->id[at];
    } else if (r < 11 && k->stale_n > 0) {
      keys[i] = k->stale[rnd_below((uint32_t)k->stale_n)];
      ids[i] = NO_ID;
    } else if (r < 13 && i > 0) {
      size_t j = rnd_below((uint32_t)i);
      keys[i] = keys[j];
      ids[i] = ids[j];
    } else {
      keys[i] = forged(k, slots);
      ids[i] = NO_ID;
    }
    expect[i] = ids[i] != NO_ID;
  }
  check_slotmap_batch(sm, keys, n, expect, elements, label);
  for (size_t i = 0; i < n; i++)
    if (ids[i] != NO_ID && (elements[i] == NULL || !row_is(elements[i], size, ids[i]))) wrong++;
  if (!CHECK_EQ_U64(wrong, 0)) fprintf(stderr, "  rows of %s\n", label);
  free(keys);
  free(ids);
  free(expect);
  free(elements);
}

void test_slotmap_basics(void) {
  static const uint32_t sizes[] = {1, 3, 8, 16, 24, 100};
  TEST_SECTION("slotmap_get_many: element sizes, every batch size, live, stale and forged keys");
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    slotmap_s sm;
    keys_s k;
    keys_init(&k, 1000);
    CHECK_EQ_INT(init_slotmap(&sm, sizes[z]), SLATE_OK);
    check_mixed(&sm, &k, sizes[z], 100, "fresh slotmap");
    insert_rows(&sm, &k, sizes[z], 300);
    check_mixed(&sm, &k, sizes[z], 64, "300 rows");
    erase_random(&sm, &k, 100);
    for (size_t s = 0; s < batch_size_count_; s++)
      check_mixed(&sm, &k, sizes[z], batch_sizes_[s], "300 rows, 100 erased");
    insert_rows(&sm, &k, sizes[z], 50); /* slots reused: stale keys of the same index */
    for (size_t s = 0; s < batch_size_count_; s++)
      check_mixed(&sm, &k, sizes[z], batch_sizes_[s], "slots reused");
    slotmap_free(&sm);
    keys_release(&k);
  }
}

void test_slotmap_forged(void) {
  slotmap_s a, b;
  keys_s ka, kb;
  slotmap_key* keys;
  signed char* expect;
  void** elements;
  size_t n = 0;
  TEST_SECTION("slotmap_get_many: forged keys and keys of another slotmap");
  keys_init(&ka, 2000);
  keys_init(&kb, 2000);
  CHECK_EQ_INT(init_slotmap(&a, 8), SLATE_OK);
  CHECK_EQ_INT(init_slotmap(&b, 8), SLATE_OK);
  insert_rows(&a, &ka, 8, 1000);
  insert_rows(&b, &kb, 8, 1000); /* the same slots, each slotmap its generations */
  erase_random(&a, &ka, 100);
  keys = (slotmap_key*)xmalloc(sizeof(slotmap_key) * 4000);
  expect = (signed char*)xmalloc(4000);
  elements = (void**)xmalloc(sizeof(void*) * 4000);
  /* every forged shape around every 20th live key, then b's keys */
  for (size_t i = 0; i < ka.live_n; i += 20) {
    slotmap_key base = ka.live[i];
    uint32_t g = (uint32_t)(base >> 32), idx = (uint32_t)base;
    const slotmap_key shapes[] = {MAKE_KEY(g + 1, idx), MAKE_KEY(g + 2, idx), MAKE_KEY(g - 2, idx),
                                  MAKE_KEY(g ^ 0x80000000u, idx), MAKE_KEY(0, idx),
                                  MAKE_KEY(0xFFFFFFFFu, idx), MAKE_KEY(g, 1000u + idx),
                                  MAKE_KEY(g, 0xFFFFFFFFu), (slotmap_key)idx};
    for (size_t j = 0; j < sizeof shapes / sizeof shapes[0]; j++) {
      keys[n] = shapes[j];
      expect[n++] = 0;
    }
    keys[n] = base; /* and the live key itself between them */
    expect[n++] = 1;
  }
  for (size_t i = 0; i < 400; i++) {
    keys[n] = i % 2 ? rnd() : 0;
    expect[n++] = 0;
  }
  for (size_t i = 0; i < kb.live_n; i++) {
    keys[n] = kb.live[i];
    expect[n++] = 0;
  }
  check_slotmap_batch(&a, keys, n, expect, elements, "forged and foreign keys");
  /* and the other way round: a's keys in b */
  check_slotmap_batch(&b, ka.live, ka.live_n, NULL, elements, "a's keys in b");
  size_t found_in_b = 0;
  for (size_t i = 0; i < ka.live_n; i++) found_in_b += elements[i] != NULL;
  CHECK_EQ_U64(found_in_b, 0);
  /* mixed in with live keys, at every batch size */
  for (size_t s = 0; s < batch_size_count_; s++) check_mixed(&a, &ka, 8, batch_sizes_[s], "forged, mixed");
  free(keys);
  free(expect);
  free(elements);
  slotmap_free(&a);
  slotmap_free(&b);
  keys_release(&ka);
  keys_release(&kb);
}

static int less_u64(const void* x, const void* y, void* data) {
  uint64_t a, b;
  (void)data;
  memcpy(&a, x, 8);
  memcpy(&b, y, 8);
  return a < b;
}

void test_slotmap_lifecycle(void) {
  slotmap_s sm, copy, moved;
  keys_s k;
  TEST_SECTION("slotmap_get_many: erase, reuse, sort, clone, move, clear, free and reuse");
  keys_init(&k, 5000);
  CHECK_EQ_INT(init_slotmap(&sm, 16), SLATE_OK);
  insert_rows(&sm, &k, 16, 500);
  erase_random(&sm, &k, 200);
  check_mixed(&sm, &k, 16, 257, "after erase");
  insert_rows(&sm, &k, 16, 100);
  check_mixed(&sm, &k, 16, 257, "after erase and reuse");
  CHECK_EQ_INT(slotmap_sort(&sm, less_u64, NULL), SLATE_OK); /* rows move, keys stay */
  check_mixed(&sm, &k, 16, 257, "after sort");
  memset(&copy, 0, sizeof copy); /* the bytes it compares all defined */
  CHECK_EQ_INT(slotmap_clone(&copy, &sm), SLATE_OK); /* the keys are valid in the copy */
  check_mixed(&copy, &k, 16, 257, "in a clone");
  slotmap_free(&copy);
  memcpy(&moved, &sm, sizeof sm); /* moved with memcpy between calls */
  check_mixed(&moved, &k, 16, 257, "moved with memcpy");
  CHECK_EQ_INT(slotmap_reserve(&sm, 3000), SLATE_OK);
  check_mixed(&sm, &k, 16, 257, "after reserve");
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  all_stale(&k);
  check_mixed(&sm, &k, 16, 257, "after clear");
  insert_rows(&sm, &k, 16, 300);
  check_mixed(&sm, &k, 16, 257, "after clear, refilled");
  slotmap_free(&sm);
  all_stale(&k);
  check_mixed(&sm, &k, 16, 257, "after free");
  insert_rows(&sm, &k, 16, 600); /* a freed slotmap is a usable one */
  check_mixed(&sm, &k, 16, 257, "after free, reused");
  slotmap_free(&sm);
  slotmap_free(&sm);
  all_stale(&k);
  check_mixed(&sm, &k, 16, 100, "freed twice");
  keys_release(&k);
}

/* Several columns: the element is column 0's, at the key's row. */
void test_slotmap_columns(void) {
  static const uint32_t shapes[][4] = {{12, 8, 1, 0}, {1, 16, 0, 0}, {24, 4, 4, 8}, {3, 0, 0, 0}};
  TEST_SECTION("slotmap_get_many with several columns: column 0's element");
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    slotmap_s sm;
    uint32_t ncols = 0, row_size = 0, stride0 = shapes[s][0];
    slotmap_key keys[700];
    uint32_t ids[700];
    void* elements[700];
    unsigned long wrong = 0, bad = 0;
    unsigned char row[64];
    while (ncols < 4 && shapes[s][ncols] != 0) row_size += shapes[s][ncols++];
    CHECK_EQ_INT(init_columns(&sm, shapes[s], ncols), SLATE_OK);
    for (uint32_t i = 0; i < 600; i++) {
      for (uint32_t j = 0; j < row_size; j++) row[j] = (unsigned char)(i * 13u + j);
      if (slotmap_insert(&sm, row, &keys[i]) != SLATE_OK) bad++;
    }
    for (uint32_t i = 0; i < 600; i += 3)
      if (slotmap_erase(&sm, keys[i]) != SLATE_OK) bad++;
    CHECK_EQ_U64(bad, 0);
    for (uint32_t i = 0; i < 700; i++) ids[i] = i < 600 ? i : ids[rnd_below(600)];
    for (uint32_t i = 600; i < 700; i++) keys[i] = keys[ids[i]]; /* duplicates */
    check_slotmap_batch(&sm, keys, 700, NULL, elements, "several columns");
    const unsigned char* c0 = (const unsigned char*)slotmap_column(&sm, 0);
    for (uint32_t i = 0; i < 700; i++) {
      uint32_t r = 0, id = ids[i];
      const unsigned char* e = (const unsigned char*)elements[i];
      int live = slotmap_row(&sm, keys[i], &r) == SLATE_OK;
      if (live != (id % 3 != 0)) wrong++;
      if (!live) {
        wrong += e != NULL;
        continue;
      }
      /* column 0 at row r, holding the first bytes of row `id` */
      if (e != c0 + (size_t)r * stride0 || e[0] != (unsigned char)(id * 13u) ||
          e[stride0 - 1] != (unsigned char)(id * 13u + stride0 - 1))
        wrong++;
    }
    CHECK_EQ_U64(wrong, 0);
    slotmap_free(&sm);
  }
}

/* A slotmap past the size where the batch requests lines ahead (2^15
   slots), and a batch of `steps` keys. */
void test_slotmap_large(unsigned long steps) {
  size_t n = steps < 1000 ? 1000 : (size_t)steps;
  size_t rows = n / 8 < 40000 ? 40000 : n / 8;
  slotmap_s sm;
  keys_s k;
  TEST_SECTION("slotmap_get_many: a large slotmap, a large batch");
  keys_init(&k, rows + rows / 8);
  CHECK_EQ_INT(init_slotmap(&sm, 8), SLATE_OK);
  insert_rows(&sm, &k, 8, rows);
  erase_random(&sm, &k, rows / 4);
  insert_rows(&sm, &k, 8, rows / 8);
  check_mixed(&sm, &k, 8, n, "large batch");
  slotmap_free(&sm);
  keys_release(&k);
}

static int greater_u32(const void* x, const void* y, void* data) {
  uint32_t a, b;
  (void)data;
  memcpy(&a, x, 4);
  memcpy(&b, y, 4);
  return a > b;
}

/* Rounds of random changes (insert, erase, clear, sort, reserve, free),
   each followed by random batches. */
void test_slotmap_random(unsigned long steps) {
  unsigned long rounds = steps / 5000 < 4 ? 4 : steps / 5000, round;
  slotmap_s sm;
  keys_s k;
  TEST_SECTION("randomized: changes to a slotmap, then random batches");
  keys_init(&k, 50000);
  CHECK_EQ_INT(init_slotmap(&sm, 12), SLATE_OK);
  for (round = 0; round < rounds; round++) {
    uint32_t ops = rnd_below(400), nb = 1 + rnd_below(3);
    unsigned long bad = 0;
    for (uint32_t o = 0; o < ops; o++) {
      uint32_t r = rnd_below(1000);
      if (r < 550 || k.live_n == 0) {
        insert_rows(&sm, &k, 12, 1);
      } else if (r < 995) {
        erase_live(&sm, &k, rnd_below((uint32_t)k.live_n), &bad);
      } else if (r < 997) {
        bad += slotmap_sort(&sm, greater_u32, NULL) != SLATE_OK;
      } else if (r < 998) {
        bad += slotmap_reserve(&sm, slotmap_length(&sm) + rnd_below(1000)) != SLATE_OK;
      } else if (r < 999) {
        bad += slotmap_clear(&sm) != SLATE_OK;
        all_stale(&k);
      } else {
        slotmap_free(&sm);
        all_stale(&k);
      }
    }
    CHECK_EQ_U64(bad, 0);
    for (uint32_t i = 0; i < nb; i++) {
      uint32_t r = rnd_below(8);
      size_t n = r < 3 ? batch_sizes_[rnd_below((uint32_t)batch_size_count_)] : rnd_below(700);
      check_mixed(&sm, &k, 12, n, "random slotmap batch");
    }
  }
  CHECK_EQ_U64(slotmap_length(&sm), k.live_n);
  slotmap_free(&sm);
  keys_release(&k);
}
