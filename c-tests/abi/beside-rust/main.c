/* main.c: a program that links libslate.a beside another Rust static
   library (run.sh builds it: other/lib.rs) and calls into both. Each
   library carries its own copy of the Rust runtime; only libslate.a's is
   local to it, the other's is as rustc wrote it. */
#include <stdint.h>

#include "slate.h"
#include "../../support/test.h"

/* The other library's (other/lib.rs). */
uint64_t other_joined_length(uint32_t n);
int32_t other_catch(int32_t n);

int main(void) {
  /* slate: a string key and an integer key, set and read back; a slotmap
     row inserted and read back. */
  slate_s map;
  CHECK_EQ_INT(slate(&map), SLATE_OK);
  CHECK_EQ_INT(slate_set(&map, "answer", (void *)(uintptr_t)42), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&map, 7, (void *)(uintptr_t)49), SLATE_OK);
  void *value = NULL;
  CHECK_EQ_INT(slate_get(&map, "answer", &value), SLATE_OK);
  CHECK_EQ_U64((uint64_t)(uintptr_t)value, 42);
  CHECK_EQ_INT(slate_get_u64(&map, 7, &value), SLATE_OK);
  CHECK_EQ_U64((uint64_t)(uintptr_t)value, 49);
  CHECK_EQ_INT(slate_get(&map, "question", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(slate_length(&map), 2);
  slate_free(&map);

  slotmap_s sm;
  CHECK_EQ_INT(slotmap(&sm, sizeof(uint64_t)), SLATE_OK);
  uint64_t row = 0x5eed, *got = NULL;
  slotmap_key key = 0;
  CHECK_EQ_INT(slotmap_insert(&sm, &row, &key), SLATE_OK);
  CHECK_EQ_INT(slotmap_get(&sm, key, (void **)&got), SLATE_OK);
  CHECK(got != NULL && *got == 0x5eed);
  slotmap_free(&sm);

  /* The other library: a Vec of Strings joined ("0,1,...,11" is 25
     bytes), and a panic caught inside it by its own catch_unwind. */
  CHECK_EQ_U64(other_joined_length(12), 25);
  CHECK_EQ_INT(other_catch(2), 2);
  CHECK_EQ_INT(other_catch(3), -1);

  /* slate once more after the other library's panic. */
  CHECK_EQ_INT(slate(&map), SLATE_OK);
  CHECK_EQ_INT(slate_set(&map, "after", (void *)(uintptr_t)1), SLATE_OK);
  CHECK_EQ_INT(slate_get(&map, "after", &value), SLATE_OK);
  CHECK_EQ_U64((uint64_t)(uintptr_t)value, 1);
  slate_free(&map);
  return TEST_SUMMARY();
}
