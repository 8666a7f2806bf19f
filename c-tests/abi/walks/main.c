/*
 * abi/walks -- SPEC 3c, walks and callbacks: every kind of write from
 * inside the callback of every walk (slate_each, slate_delete_if,
 * slotmap_each, slotmap_erase_if, slotmap_sort's comparator,
 * slotmap_sparse_each, slotmap_sparse_erase_if, slotmap_sparse_sort's
 * comparator, slotmap_join over 2 and 3 sets with and without an owner),
 * at the first, a middle and the last callback, against a model: the
 * walk's return, the entries it visited, and the structure afterwards;
 * given-key removal on every entry; 1,000-deep nesting; read-only walks
 * that allocate nothing; and scenarios drawn from a seed.
 *
 *   abi/walks [seed [steps]]    (the drawn scenarios make `steps`
 *                                 callbacks in all: 60,000 by default)
 *
 * One program of the units in c-tests/abi/walks/ (walks.h says what each
 * holds). No setjmp, threads or signals: it runs on WASI. The first line on
 * stdout is "seed: <n>", the last "N passed, M failed"; the exit status is
 * 0 only when M is 0. Build (also with clang, or g++ -x c++):
 *   gcc -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude c-tests/abi/walks/[a-z]*.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tw && /tmp/tw
 */
#define SLATE_IMPLEMENTATION
#define TEST_MAIN /* this unit holds test.h's counters */
#include "walks.h"
#include "../../support/rng.h"

int main(int argc, char** argv) {
  unsigned long steps = 60000UL;
  uint64_t seed = rng_seed_from_args(argc, argv, &steps);
  test_map_writes();
  test_map_given_removal();
  test_slotmap_writes();
  test_slotmap_given_removal();
  test_sparse_writes();
  test_sparse_given_removal();
  test_join_writes();
  test_join_given_removal();
  test_deep_nesting();
  test_deep_nesting_removal();
  test_read_walks_allocate_nothing();
  test_random(seed, steps);
  return TEST_SUMMARY();
}
