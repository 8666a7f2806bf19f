/*
 * soak_generations.c -- a slot's generations, used up through the C API
 * (`make soak`: about 2^31 insert/erase cycles, some tens of seconds).
 *
 * One slot is cycled until its generation is exhausted and it retires,
 * keeping keys from early, middle and late cycles: every one must be
 * stale, and stay stale after slotmap_clear, after slotmap_free and any
 * number of later inserts (a freed slotmap once reissued such a key).
 */
#include "slate.h"
#include "../support/test.h"

#include <stdint.h>
#include <stdio.h>

enum { KEPT = 64 };

int main(void) {
  slotmap_s sm;
  uint32_t v = 1;
  slotmap_key key = 0, kept[KEPT];
  unsigned n_kept = 0;
  CHECK_EQ_INT(slotmap(&sm, sizeof v), SLATE_OK);
  /* A neighbour that stays, so the slotmap is never empty. */
  slotmap_key stay = 0;
  CHECK_EQ_INT(slotmap_insert(&sm, &v, &stay), SLATE_OK);
  uint64_t cycles = 0;
  uint32_t index = UINT32_MAX;
  for (;;) {
    if (slotmap_insert(&sm, &v, &key) != SLATE_OK) break;
    if (index == UINT32_MAX) index = (uint32_t)key;
    if ((uint32_t)key != index) break; /* the slot retired: a new one came */
    /* keep keys at a spread of cycles, the last ones above all */
    if ((cycles & (cycles - 1)) == 0 || (key >> 32) > 0xFFFFFFF0u) {
      if (n_kept < KEPT) kept[n_kept++] = key;
    }
    if (slotmap_erase(&sm, key) != SLATE_OK) break;
    cycles++;
  }
  printf("   slot %u retired after %llu cycles; %u keys kept\n", index, (unsigned long long)cycles,
         n_kept);
  CHECK((uint32_t)key != index);
  CHECK(cycles > (1u << 30));
  for (unsigned i = 0; i < n_kept; i++) CHECK_EQ_INT(slotmap_contains(&sm, kept[i]), 0);
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  for (unsigned i = 0; i < n_kept; i++) CHECK_EQ_INT(slotmap_contains(&sm, kept[i]), 0);
  slotmap_free(&sm);
  unsigned reissued = 0;
  for (int i = 0; i < 1000; i++) {
    slotmap_key k = 0;
    CHECK_EQ_INT(slotmap_insert(&sm, &v, &k), SLATE_OK);
    for (unsigned j = 0; j < n_kept; j++) reissued += k == kept[j];
    if (i % 2) CHECK_EQ_INT(slotmap_erase(&sm, k), SLATE_OK);
  }
  CHECK_EQ_INT(reissued, 0);
  for (unsigned i = 0; i < n_kept; i++) CHECK_EQ_INT(slotmap_contains(&sm, kept[i]), 0);
  CHECK_EQ_INT(slotmap_contains(&sm, stay), 0);
  slotmap_free(&sm);
  return TEST_SUMMARY();
}
