/* slotmap/api: keys and the index -- insert and lookup, keys of another
 * slotmap, erase (swap-and-pop, stale keys), slot reuse. */
#include "slotmap.h"
#include "../../support/rng.h"

/* ------------------------------------------------------------------------ */
/* insert, get, row, contains, key_at; key 0 and forged keys                 */
/* ------------------------------------------------------------------------ */

void test_keys_and_lookup(void) {
  TEST_SECTION("insert, get, row, contains, key_at; key 0, forged keys");
  slotmap_s sm;
  enum { N = 1000 };
  static slotmap_key keys[N];
  unsigned bad = 0, layout_bad = 0, dup = 0;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  for (uint32_t i = 0; i < N; i++) {
    keys[i] = put_u64(&sm, 1000 + i, &bad);
    uint32_t r = SENTINEL_ROW;
    /* [D-append] the new row is the last one */
    if (slotmap_row(&sm, keys[i], &r) != SLATE_OK || r != i || slotmap_length(&sm) != i + 1) bad++;
    /* [D-key] live versions odd; fresh slots numbered in order */
    if ((KEY_VERSION(keys[i]) & 1u) == 0 || KEY_SLOT(keys[i]) != i) layout_bad++;
    if (i > 0 && keys[i] == keys[i - 1]) dup++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(layout_bad, 0);
  CHECK_EQ_INT(dup, 0);
  CHECK_EQ_U64(slotmap_length(&sm), N);

  /* every key finds its value; get points into column 0 at the key's row */
  const uint64_t* col = (const uint64_t*)slotmap_column(&sm, 0);
  CHECK(col != NULL && aligned16(col));
  for (uint32_t i = 0; i < N; i++) {
    void* e = NULL;
    uint32_t r = SENTINEL_ROW;
    if (slotmap_get(&sm, keys[i], &e) != SLATE_OK || e != (const void*)(col + i)) bad++;
    if (value_u64(&sm, keys[i], 0) != 1000 + i) bad++;
    if (slotmap_row(&sm, keys[i], &r) != SLATE_OK || r != i) bad++;
    if (slotmap_contains(&sm, keys[i]) != 1) bad++;
    if (slotmap_key_at(&sm, i) != keys[i]) bad++;
    if (slotmap_get(&sm, keys[i], NULL) != SLATE_OK) bad++; /* presence test */
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(dense_problems(&sm), 0);

  /* key_at past the length is 0 */
  CHECK_EQ_U64(slotmap_key_at(&sm, N), 0);
  CHECK_EQ_U64(slotmap_key_at(&sm, N + 1), 0);
  CHECK_EQ_U64(slotmap_key_at(&sm, UINT32_MAX), 0);

  /* key 0 and forged keys are NOT_FOUND (never INVALID); NOT_FOUND leaves
     *element and *row as they were; contains is 0; erase changes nothing */
  slotmap_key k = keys[123];
  uint32_t slot = KEY_SLOT(k), ver = KEY_VERSION(k);
  const slotmap_key forged[] = {
      0,                                /* never valid */
      MAKE_KEY(0, slot),                /* version 0 */
      MAKE_KEY(ver + 1, slot),          /* an even (vacant) version */
      MAKE_KEY(ver + 2, slot),          /* the next odd version */
      MAKE_KEY(ver - 2, slot),          /* an older odd version */
      MAKE_KEY(ver ^ 0x40000000u, slot),/* far off */
      MAKE_KEY(ver, N),                 /* a slot just past the index */
      MAKE_KEY(ver, 0x7FFFFFFFu),       /* a slot far past the index */
      MAKE_KEY(ver, 0xFFFFFFFFu),       /* the largest slot number */
      MAKE_KEY(0xFFFFFFFFu, slot),      /* the largest version */
      MAKE_KEY(ver == 1 ? 3 : 1, slot), /* the smallest odd version */
      UINT64_MAX,
      (slotmap_key)slot,                /* the slot alone (version 0) */
  };
  for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
    void* e = SENTINEL;
    uint32_t r = SENTINEL_ROW;
    int ok = slotmap_get(&sm, forged[i], &e) == SLATE_ERROR_NOT_FOUND && e == SENTINEL &&
             slotmap_get(&sm, forged[i], NULL) == SLATE_ERROR_NOT_FOUND &&
             slotmap_row(&sm, forged[i], &r) == SLATE_ERROR_NOT_FOUND && r == SENTINEL_ROW &&
             slotmap_contains(&sm, forged[i]) == 0 &&
             slotmap_erase(&sm, forged[i]) == SLATE_ERROR_NOT_FOUND;
    if (!ok) fprintf(stderr, "   forged key #%u 0x%016llx was not NOT_FOUND\n", (unsigned)i,
                     (unsigned long long)forged[i]);
    CHECK(ok);
  }
  /* the real key still works and nothing moved */
  CHECK_EQ_U64(slotmap_length(&sm), N);
  CHECK_EQ_U64(value_u64(&sm, k, 0), 1123);
  CHECK_EQ_U64(slotmap_key_at(&sm, 123), k);

  /* a NULL row inserts a zeroed element */
  slotmap_key z = 0;
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &z), SLATE_OK);
  CHECK_EQ_U64(value_u64(&sm, z, 99), 0);
  CHECK_EQ_U64(slotmap_length(&sm), N + 1);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* keys of another slotmap                                                   */
/* ------------------------------------------------------------------------ */

void test_foreign_keys(void) {
  TEST_SECTION("keys of another slotmap are NOT_FOUND");
  /* [D-random]: every slotmap starts its versions at a random odd number;
     slots 0..7 exist in both, so only the versions tell the keys apart.  A
     spurious match has probability about 2^-29 per key. */
  slotmap_s a, b;
  slotmap_key ka[8], kb[8];
  unsigned bad = 0, found = 0;
  CHECK_EQ_INT(slotmap(&a, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap(&b, 8), SLATE_OK);
  for (uint64_t i = 0; i < 8; i++) {
    ka[i] = put_u64(&a, i, &bad);
    kb[i] = put_u64(&b, 100 + i, &bad);
  }
  CHECK_EQ_INT(bad, 0);
  for (int i = 0; i < 8; i++) {
    if (!is_stale(&b, ka[i])) found++;
    if (!is_stale(&a, kb[i])) found++;
    if (slotmap_erase(&b, ka[i]) != SLATE_ERROR_NOT_FOUND) found++;
    if (slotmap_erase(&a, kb[i]) != SLATE_ERROR_NOT_FOUND) found++;
  }
  CHECK_EQ_INT(found, 0);
  CHECK_EQ_U64(slotmap_length(&a), 8);
  CHECK_EQ_U64(slotmap_length(&b), 8);
  slotmap_free(&a);
  slotmap_free(&b);

  /* start versions differ between slotmaps (8 slotmaps all alike: ~2^-203) */
  slotmap_s several[8];
  uint32_t versions[8];
  int all_same = 1;
  for (int i = 0; i < 8; i++) {
    slotmap_key k = 0;
    CHECK_EQ_INT(slotmap(&several[i], 4), SLATE_OK);
    CHECK_EQ_INT(slotmap_insert(&several[i], NULL, &k), SLATE_OK);
    versions[i] = KEY_VERSION(k);
    if (i > 0 && versions[i] != versions[0]) all_same = 0;
    CHECK(versions[i] & 1u);
  }
  CHECK(!all_same);
  for (int i = 0; i < 8; i++) slotmap_free(&several[i]);
}

/* ------------------------------------------------------------------------ */
/* erase: swap-and-pop, stale keys, slot reuse                               */
/* ------------------------------------------------------------------------ */

void test_erase_and_reuse(void) {
  TEST_SECTION("erase: swap-and-pop, stale keys, reuse order");
  slotmap_s sm;
  slotmap_key keys[10];
  unsigned bad = 0;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  for (uint64_t i = 0; i < 10; i++) keys[i] = put_u64(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);

  /* erasing row 3 moves the last row (key 9) into it */
  CHECK_EQ_INT(slotmap_erase(&sm, keys[3]), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 9);
  CHECK_EQ_U64(slotmap_key_at(&sm, 3), keys[9]);
  CHECK_EQ_U64(slotmap_key_at(&sm, 9), 0);
  CHECK_EQ_U64(value_u64(&sm, keys[9], 99), 9);
  CHECK(is_stale(&sm, keys[3]));
  CHECK_EQ_INT(slotmap_erase(&sm, keys[3]), SLATE_ERROR_NOT_FOUND); /* erase twice */
  CHECK_EQ_U64(slotmap_length(&sm), 9);
  CHECK_EQ_INT(dense_problems(&sm), 0);
  /* erasing the last row moves nothing */
  uint32_t last = slotmap_length(&sm) - 1;
  slotmap_key lastkey = slotmap_key_at(&sm, last);
  slotmap_key before_last = slotmap_key_at(&sm, last - 1);
  CHECK_EQ_INT(slotmap_erase(&sm, lastkey), SLATE_OK);
  CHECK_EQ_U64(slotmap_key_at(&sm, last - 1), before_last);
  CHECK_EQ_INT(dense_problems(&sm), 0);

  /* [D-reuse] most recently freed first: keys[8] (freed last) comes back
     first, then keys[3]'s slot, then a new slot (10) */
  slotmap_key n1 = put_u64(&sm, 101, &bad);
  slotmap_key n2 = put_u64(&sm, 102, &bad);
  slotmap_key n3 = put_u64(&sm, 103, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(KEY_SLOT(n1), KEY_SLOT(lastkey));
  CHECK_EQ_U64(KEY_SLOT(n2), KEY_SLOT(keys[3]));
  CHECK_EQ_U64(KEY_SLOT(n3), 10);
  CHECK_NE_U64(n1, lastkey);
  CHECK_NE_U64(n2, keys[3]);
  CHECK(KEY_VERSION(n2) > KEY_VERSION(keys[3])); /* versions only grow */
  CHECK(KEY_VERSION(n2) & 1u);
  CHECK(is_stale(&sm, keys[3]));
  CHECK(is_stale(&sm, lastkey));
  CHECK_EQ_U64(value_u64(&sm, n1, 0), 101);
  CHECK_EQ_U64(value_u64(&sm, n2, 0), 102);
  CHECK_EQ_U64(value_u64(&sm, n3, 0), 103);

  /* erase everything, one by one from the front (each moves the last row) */
  while (slotmap_length(&sm) > 0) {
    slotmap_key k = slotmap_key_at(&sm, 0);
    if (slotmap_erase(&sm, k) != SLATE_OK || !is_stale(&sm, k) || dense_problems(&sm) != 0) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  for (int i = 0; i < 10; i++) CHECK(is_stale(&sm, keys[i]));
  CHECK(is_stale(&sm, n1));
  CHECK(is_stale(&sm, n3));
  CHECK_EQ_U64(slotmap_key_at(&sm, 0), 0);
  /* the only row of a slotmap */
  slotmap_key only = put_u64(&sm, 5, &bad);
  CHECK_EQ_INT(slotmap_erase(&sm, only), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  CHECK(is_stale(&sm, only));
  slotmap_free(&sm);
}

/* 100,000 erase/insert cycles on one slot: the slot comes back every time
   ([D-reuse]) and every key it ever had stays stale. */
void test_slot_reuse_100k(void) {
  TEST_SECTION("100,000 reuses of one slot: every old key stays stale");
  enum { CYCLES = 100000 };
  slotmap_s sm;
  slotmap_key others[5];
  slotmap_key* history = (slotmap_key*)malloc(sizeof(slotmap_key) * (CYCLES + 1));
  unsigned bad = 0, wrong_slot = 0, not_newer = 0, prev_valid = 0, wrong_value = 0;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  for (uint64_t i = 0; i < 5; i++) others[i] = put_u64(&sm, 500 + i, &bad);
  history[0] = put_u64(&sm, 0, &bad);
  const uint32_t slot = KEY_SLOT(history[0]);
  for (uint32_t c = 1; c <= CYCLES; c++) {
    if (slotmap_erase(&sm, history[c - 1]) != SLATE_OK) bad++;
    history[c] = put_u64(&sm, c, &bad);
    if (KEY_SLOT(history[c]) != slot) wrong_slot++;
    if (KEY_VERSION(history[c]) <= KEY_VERSION(history[c - 1]) || !(KEY_VERSION(history[c]) & 1u))
      not_newer++;
    if (slotmap_contains(&sm, history[c - 1]) != 0 ||
        slotmap_get(&sm, history[c - 1], NULL) != SLATE_ERROR_NOT_FOUND)
      prev_valid++;
    if (value_u64(&sm, history[c], 0xFFFF) != c) wrong_value++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(wrong_slot, 0);
  CHECK_EQ_INT(not_newer, 0);
  CHECK_EQ_INT(prev_valid, 0);
  CHECK_EQ_INT(wrong_value, 0);
  /* every old key, checked again at the end */
  unsigned stale_bad = 0;
  for (uint32_t c = 0; c < CYCLES; c++)
    if (!is_stale(&sm, history[c]) || slotmap_erase(&sm, history[c]) != SLATE_ERROR_NOT_FOUND)
      stale_bad++;
  CHECK_EQ_INT(stale_bad, 0);
  CHECK_EQ_U64(value_u64(&sm, history[CYCLES], 0), CYCLES);
  CHECK_EQ_U64(slotmap_length(&sm), 6);
  for (uint64_t i = 0; i < 5; i++) CHECK_EQ_U64(value_u64(&sm, others[i], 0), 500 + i);
  CHECK_EQ_INT(dense_problems(&sm), 0);
  slotmap_free(&sm);
  free(history);
}

/* row(key_at(r)) == r for every r after every erase of a churn loop, with
   the data following its key. */
void test_churn_invariant(void) {
  TEST_SECTION("swap-and-pop invariant under churn");
  enum { CAP = 600, STEPS = 12000 };
  slotmap_s sm;
  static slotmap_key live[CAP];
  static uint64_t ids[CAP];
  uint32_t n = 0;
  uint64_t next_id = 0;
  unsigned bad = 0, invariant = 0, data = 0, max_slot_bad = 0;
  uint32_t max_slot = 0;
  rng_state_ = 0x5107A9u;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  for (uint32_t s = 0; s < STEPS; s++) {
    int grow = n == 0 || (n < CAP && rng_below(100) < (s % 4000 < 2000 ? 65u : 35u));
    if (grow) {
      live[n] = put3(&sm, next_id, &bad);
      ids[n++] = next_id++;
      if (KEY_SLOT(live[n - 1]) > max_slot) max_slot = KEY_SLOT(live[n - 1]);
    } else {
      uint32_t i = rng_below(n);
      if (slotmap_erase(&sm, live[i]) != SLATE_OK) bad++;
      if (!is_stale(&sm, live[i])) bad++;
      live[i] = live[n - 1];
      ids[i] = ids[--n];
      invariant += dense_problems(&sm);
      if (slotmap_length(&sm) != n) bad++;
    }
  }
  for (uint32_t i = 0; i < n; i++)
    if (!key3_is(&sm, live[i], ids[i])) data++;
  /* slots are reused, so the index never grows past the most rows held */
  if (max_slot >= CAP) max_slot_bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(invariant, 0);
  CHECK_EQ_INT(data, 0);
  CHECK_EQ_INT(max_slot_bad, 0);
  CHECK_EQ_U64(slotmap_length(&sm), n);
  slotmap_free(&sm);
}
