/*
 * abi/seeds.c -- every map draws its own seed from the platform's entropy.
 *
 *   seeds          10,000 maps get 10,000 distinct seeds, also maps
 *                  cleared, freed or emptied; slotmaps start their keys at
 *                  scattered generations; and the attacks that broke the
 *                  seeds of splitmix64 over a counter predict nothing
 *   seeds print    prints the seed of a fresh map and the first key of a
 *                  fresh slotmap, for c-tests/abi/seeds-differ.sh, which
 *                  runs it twice: two runs of a program must differ
 *
 * The seeds come from one entropy read per process (getrandom: the OS on
 * Linux and Windows, random_get on WASI, the crypto API under Emscripten),
 * stretched without a system call per map.
 */
#include "slate.h"
#include "../support/test.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { MAPS = 10000, SLOTMAPS = 200 };

static int compare_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

/* Sorts `v` and counts the values that equal their predecessor. */
static size_t duplicates(uint64_t* v, size_t n) {
  qsort(v, n, sizeof v[0], compare_u64);
  size_t d = 0;
  for (size_t i = 1; i < n; i++) d += v[i] == v[i - 1];
  return d;
}

static uint64_t seed_of(const slate_s* m) {
  slate_info_s in;
  memset(&in, 0, sizeof in);
  CHECK_EQ_INT(slate_info(m, &in), SLATE_OK);
  return in.seed;
}

static uint64_t first_slotmap_key(void) {
  slotmap_s sm;
  slotmap_key k = 0;
  uint32_t v = 7;
  if (slotmap(&sm, sizeof v) != SLATE_OK || slotmap_insert(&sm, &v, &k) != SLATE_OK) k = 0;
  slotmap_free(&sm);
  return k;
}

static int print_seeds(void) {
  slate_s m;
  if (slate(&m) != SLATE_OK) return 1;
  printf("map seed %016" PRIx64 ", slotmap key %016" PRIx64 "\n", seed_of(&m),
         first_slotmap_key());
  slate_free(&m);
  return 0;
}

static void test_distinct_seeds(void) {
  TEST_SECTION("10,000 maps, 10,000 seeds");
  static slate_s maps[MAPS];
  static uint64_t seeds[4 * MAPS];
  size_t n = 0;
  for (int i = 0; i < MAPS; i++) {
    CHECK_EQ_INT(slate(&maps[i]), SLATE_OK);
    seeds[n++] = seed_of(&maps[i]);
  }
  /* A map takes a fresh seed when it is cleared, freed, or emptied by
   * deletes: those seeds are distinct from every other one too. */
  for (int i = 0; i < MAPS; i++) {
    CHECK_EQ_INT(slate_set_u64(&maps[i], 1, (void*)1), SLATE_OK);
    CHECK_EQ_INT(slate_clear(&maps[i]), SLATE_OK);
    seeds[n++] = seed_of(&maps[i]);
    CHECK_EQ_INT(slate_set(&maps[i], "k", (void*)1), SLATE_OK);
    CHECK_EQ_INT(slate_delete(&maps[i], "k"), SLATE_OK);
    seeds[n++] = seed_of(&maps[i]);
    slate_free(&maps[i]);
    seeds[n++] = seed_of(&maps[i]);
  }
  CHECK_EQ_U64(duplicates(seeds, n), 0);
  /* Not a counter: the seeds spread over all 64 bits. */
  uint64_t or_bits = 0, and_bits = ~(uint64_t)0;
  for (size_t i = 0; i < n; i++) {
    or_bits |= seeds[i];
    and_bits &= seeds[i];
  }
  CHECK_EQ_U64(or_bits, ~(uint64_t)0);
  CHECK_EQ_U64(and_bits, 0);
}

static void test_slotmap_generations(void) {
  TEST_SECTION("slotmaps start at scattered generations");
  /* A slotmap's first key is slot 0 at its starting generation (the high 32
   * bits), drawn at random: 200 slotmaps (32-bit draws) almost never share
   * one, so allow a few coincidences but not a pattern. */
  static uint64_t keys[SLOTMAPS];
  for (int i = 0; i < SLOTMAPS; i++) {
    keys[i] = first_slotmap_key();
    CHECK_NE_U64(keys[i], 0);
    CHECK_EQ_U64(keys[i] & 0xFFFFFFFFu, 0); /* slot 0 */
  }
  CHECK(duplicates(keys, SLOTMAPS) <= 2);
}

/* splitmix64's output function, which the seeds once were of a counter
 * (base + n * golden), and its inverse: the attacks below assume that
 * scheme and must find nothing. */
static const uint64_t GOLDEN = UINT64_C(0x9E3779B97F4A7C15);

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static uint64_t unshift(uint64_t y, int s) { /* inverts y = x ^ (x >> s) */
  uint64_t x = y;
  for (int i = s; i < 64; i += s) x = y ^ (x >> s);
  return x;
}

static uint64_t unmix(uint64_t z) {
  z = unshift(z, 31);
  z = unshift(z * UINT64_C(0x319642B2D24D8EC3), 27); /* inverse of 0x94D0... */
  z = unshift(z * UINT64_C(0x96DE1B173F119089), 30); /* inverse of 0xBF58... */
  return z;
}

enum { AHEAD = 4096, TARGETS = 500 };

static int in_sorted(const uint64_t* v, size_t n, uint64_t x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && v[lo] == x;
}

static void test_prediction_attacks(void) {
  TEST_SECTION("prediction attacks on seeds and slotmap keys find nothing");
  static uint64_t predicted[AHEAD];
  /* The inverse is right: it undoes mix. */
  CHECK_EQ_U64(unmix(mix(UINT64_C(0x0123456789ABCDEF))), UINT64_C(0x0123456789ABCDEF));
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  /* One seed (what slate_info tells anyone) gives the counter's position
   * under the old scheme; the next seeds would be mix of the next
   * positions. Predict the next AHEAD of them and count the hits among
   * the next TARGETS maps' seeds. */
  uint64_t x = unmix(seed_of(&m));
  for (size_t k = 0; k < AHEAD; k++) predicted[k] = mix(x + (k + 1) * GOLDEN);
  qsort(predicted, AHEAD, sizeof predicted[0], compare_u64);
  unsigned hits = 0;
  for (int i = 0; i < TARGETS; i++) {
    CHECK_EQ_INT(slate_clear(&m), SLATE_OK); /* takes a fresh seed */
    hits += in_sorted(predicted, AHEAD, seed_of(&m));
  }
  CHECK_EQ_INT(hits, 0);
  /* The same position predicts the slotmaps' first generations (bits 1..29
   * of the seed they took from the shared counter). Now they come from
   * another key: a 30-bit coincidence with one of AHEAD candidates has
   * odds of 2^-18 per slotmap. */
  for (size_t k = 0; k < AHEAD; k++) predicted[k] = (mix(x + (k + 1) * GOLDEN) & 0x3FFFFFFFu) | 1;
  qsort(predicted, AHEAD, sizeof predicted[0], compare_u64);
  hits = 0;
  for (int i = 0; i < SLOTMAPS; i++) hits += in_sorted(predicted, AHEAD, first_slotmap_key() >> 32);
  CHECK(hits <= 1);
  slate_free(&m);
}

static void test_zero_filled_maps(void) {
  TEST_SECTION("a zero-filled map gets a seed on every path that gives it tables");
  slate_s m, copy;
  /* slate_reserve first: its tables must not hash with seed 0, nor may the
   * inserts that follow, nor a clone. */
  memset(&m, 0, sizeof m);
  CHECK_EQ_U64(seed_of(&m), 0);
  CHECK_EQ_INT(slate_reserve(&m, 1000), SLATE_OK);
  CHECK_NE_U64(seed_of(&m), 0);
  uint64_t reserved = seed_of(&m);
  for (uint64_t k = 0; k < 500; k++) CHECK_EQ_INT(slate_set_u64(&m, k, (void*)1), SLATE_OK);
  CHECK_EQ_U64(seed_of(&m), reserved);
  CHECK_EQ_INT(slate_clone(&copy, &m), SLATE_OK);
  CHECK_EQ_U64(seed_of(&copy), reserved);
  slate_free(&copy);
  slate_free(&m);
  /* reserve for a small map, and a zero-filled map's first insert */
  memset(&m, 0, sizeof m);
  CHECK_EQ_INT(slate_reserve(&m, 3), SLATE_OK);
  CHECK_NE_U64(seed_of(&m), 0);
  slate_free(&m);
  memset(&m, 0, sizeof m);
  CHECK_EQ_INT(slate_set(&m, "first", (void*)1), SLATE_OK);
  CHECK_NE_U64(seed_of(&m), 0);
  slate_free(&m);
  /* a clone of a zero-filled map with no tables is an empty map that gets
   * its seed when it gets tables */
  memset(&m, 0, sizeof m);
  CHECK_EQ_INT(slate_clone(&copy, &m), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&copy, 100), SLATE_OK);
  CHECK_NE_U64(seed_of(&copy), 0);
  slate_free(&copy);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "print") == 0) return print_seeds();
  test_distinct_seeds();
  test_slotmap_generations();
  test_prediction_attacks();
  test_zero_filled_maps();
  return TEST_SUMMARY();
}
