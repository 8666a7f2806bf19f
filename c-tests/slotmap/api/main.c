/*
 * slotmap/api -- the slotmap of SPEC section 6 and its edge cases (the
 * "Edge cases (both structures)" list): every slotmap_* function and every
 * error code, stale keys, swap-and-pop, columns, walks, limits, clear, clone,
 * free, moving with memcpy, pointer validity, a clone made from inside a
 * callback, inserting a copy of the slotmap's own element, and a seeded
 * randomized test against a model.
 *
 *   slotmap/api [seed [steps]]     (the randomized part: 200,000 steps)
 *
 * One program of the units in c-tests/slotmap/api/, one concept each
 * (slotmap.h says which, and lists the library decisions the tests rely
 * on); this one runs their tests in order.
 *
 * The first line on stdout is "seed: <n>" (the randomized part's seed; it
 * is drawn from the clock unless given), the last "N passed, M failed"; the
 * exit status is 0 only when M is 0.  Section names and failure details go
 * to stderr.  Build (also with clang / clang++):
 *   gcc -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude c-tests/slotmap/api/[a-z]*.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/ts && /tmp/ts
 *   g++ -std=c++17 -O1 -g -Wall -Wextra -Werror -Iinclude -x c++ c-tests/slotmap/api/[a-z]*.c \
 *       -x none target/release/libslate.a -lpthread -ldl -lm -o /tmp/tspp && /tmp/tspp
 */
#define SLATE_IMPLEMENTATION
#define TEST_MAIN /* this unit holds test.h's counters */
#include "slotmap.h"
#include "../../support/rng.h"

int main(int argc, char** argv) {
  uint64_t seed;
  unsigned long steps = 200000UL;
  seed = rng_seed_from_args(argc, argv, &steps);

  test_null_slotmap();
  test_init();
  test_keys_and_lookup();
  test_foreign_keys();
  test_erase_and_reuse();
  test_every_element_size();
  test_slot_reuse_100k();
  test_churn_invariant();
  test_columns();
  test_each();
  test_calls_inside_walks();
  test_reinit_inside_walk();
  test_erase_if();
  test_sort();
  test_limit();
  test_reserve();
  test_clear();
  test_clone();
  test_free();
  test_memcpy_move();
  test_pointer_validity();
  test_clone_inside_callbacks();
  test_random(seed, steps);
  test_insert_own_element(); /* last: see there */
  return TEST_SUMMARY();
}
