/*
 * map/batch -- the batch lookups of SPEC 3 and 6 (slate_get_many_u64,
 * slate_get_many_i64, slate_get_many_bytes, slate_get_many,
 * slotmap_get_many): a differential test of each against the single calls
 * (slate_get_u64, slate_get_i64, slate_get_bytes, slate_get, slotmap_get)
 * and a model, with random and adversarial batches.
 *
 *   map/batch [seed [steps]]      (steps default to 1,000,000)
 *
 * `steps` is the size of the large batches (a million keys natively; the
 * builds for other targets give fewer) and sets the number of rounds of
 * the randomized part (one per 5,000 steps, at least 4).
 *
 * What is covered: every call on maps in every state (fresh, zero-filled,
 * small, one table, many tables, integer and general slot layouts mixed
 * in one map, tombstones, after clear, compact, free and refill); keys of
 * every length class (0, 1..28, 29..32, 33..128, over 128 bytes), with
 * NULs inside, and byte keys that are exactly an integer key's 10-byte
 * encoding (and near misses of one); batch sizes around the library's
 * chunks of 16 (0, 1, 2, 15, 16, 17, 63, 64, 65, 255, 256, 257) and a
 * large one; duplicates; present and absent keys interleaved; a NULL
 * values array; values[i] of a missing key left as it was; the calls from
 * inside slate_each and slotmap_each callbacks; every SLATE_ERROR_INVALID
 * case, each with nothing written and the structure unchanged; count 0
 * with NULL arrays. On the slotmap side: stale keys after erase, clear,
 * free and reuse; forged keys (random, 0, an index past the end, the
 * right index with the wrong generation); keys of another slotmap;
 * several columns, where the element is column 0's.
 *
 * Every batch call is also checked to allocate nothing: the allocator
 * hooks (hooks.h) count every allocation of the structures under test.
 *
 * The seed fixes every key, batch and change the suite makes; the
 * library's own per-map hash seeds come from OS entropy, so walk orders
 * (and with them the number of checks made inside walks) differ between
 * runs of one seed.
 *
 * The first line on stdout is "seed: <n>", the last "N passed, M failed";
 * the exit status is 0 only when M is 0. Section names and failure
 * details go to stderr. One program of the units in c-tests/map/batch/
 * (batch.h says which). Build (also as C++17 with g++ -x c++, and clang):
 *   gcc -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude c-tests/map/batch/[a-z]*.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tb && /tmp/tb
 */
#include "../../support/hooks.h" /* defines SLATE_MALLOC, SLATE_CALLOC, SLATE_FREE */
#define SLATE_IMPLEMENTATION
#define TEST_MAIN /* this unit holds test.h's counters */
#include "batch.h"
#include "../../support/rng.h"

#include <time.h>

unsigned long long alloc_attempts(void) { return hk.attempts; }

int main(int argc, char** argv) {
  unsigned long steps = 1000000UL;
  clock_t started = clock();
  uint64_t seed = rng_seed_from_args(argc, argv, &steps);
  rnd_seed(seed);
  hooks_reset(&hk);
  build_universe();

  test_invalid();
  test_count_zero();
  test_map_states();
  test_key_lengths();
  test_integer_encodings();
  test_duplicates();
  test_inside_each();
  test_slotmap_basics();
  test_slotmap_forged();
  test_slotmap_lifecycle();
  test_slotmap_columns();
  test_inside_slotmap_each();
  test_large(steps);
  test_slotmap_large(steps);
  test_random(steps);
  test_slotmap_random(steps);

  free_universe();
  /* the hooks saw every block of the structures come back once */
  CHECK_EQ_U64(hk.bad_frees, 0);
  fprintf(stderr, "   %lu steps, %.2f s CPU\n", steps, (double)(clock() - started) / CLOCKS_PER_SEC);
  if (TEST_FAILED_COUNT() != 0)
    fprintf(stderr, "reproduce: map/batch %llu %lu\n", (unsigned long long)seed, steps);
  return TEST_SUMMARY();
}
