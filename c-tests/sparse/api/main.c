/*
 * sparse/api -- the sparse sets of SPEC 6b and their joins: every
 * slotmap_sparse_* call and slotmap_join against a model (a map from key
 * to row bytes per set), with keys from a real owner slotmap under churn,
 * stale and forged keys, key 0, membership and multi-column sets, walks
 * that erase, changes from callbacks, clone/free/memcpy moves, the memory of
 * high slot indices, and a seeded randomized test.
 *
 *   sparse/api [seed [steps]]     (the randomized part: 200,000 steps)
 *
 * One program of the units in c-tests/sparse/api/ (sparse.h lists them
 * and the library decisions the tests rely on). The first line on stdout
 * is "seed: <n>", the last "N passed, M failed"; the exit status is 0 only
 * when M is 0. Build (also with clang / clang++, or g++ -x c++):
 *   gcc -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude c-tests/sparse/api/[a-z]*.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tsp && /tmp/tsp
 */
#define SLATE_IMPLEMENTATION
#define TEST_MAIN
#include "sparse.h"
#include "../../support/rng.h"

int main(int argc, char** argv) {
  unsigned long steps = 200000UL;
  uint64_t seed = rng_seed_from_args(argc, argv, &steps);
  test_null_set();
  test_init();
  test_set_get();
  test_owner_and_generations();
  test_membership();
  test_columns();
  test_get_many();
  test_erase();
  test_erase_if_prune();
  test_sort();
  test_reserve();
  test_clear_clone_free();
  test_memcpy_move();
  test_high_slots_memory();
  test_each_erasing();
  test_changes_in_walks();
  test_others_modifiable();
  test_join_basics();
  test_join_erasing();
  test_random(seed, steps);
  return TEST_SUMMARY();
}
