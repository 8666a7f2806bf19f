/* splitmix64, the suites' deterministic generator (seeded per test), and the
   seeded suites' arguments. */
#ifndef SLATE_TEST_RNG_H
#define SLATE_TEST_RNG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng_state_;

static inline uint64_t rng_next(void) {
  uint64_t z = (rng_state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform enough in 0 .. n-1 for n > 0. */
static inline uint32_t rng_below(uint32_t n) { return (uint32_t)(rng_next() % n); }
static inline int one_in(uint32_t n) { return rng_below(n) == 0; }

/* The arguments of a seeded suite, [seed [steps]]: returns the seed given,
   or one drawn from the clock; sets *steps where they are given. Prints
   the suite's first line, "seed: <n>". */
static inline uint64_t rng_seed_from_args(int argc, char** argv, unsigned long* steps) {
  uint64_t seed;
  if (argc > 1) {
    seed = (uint64_t)strtoull(argv[1], NULL, 0);
  } else {
    int here = 0;
    rng_state_ = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32) ^ (uint64_t)(uintptr_t)&here;
    seed = rng_next();
  }
  if (argc > 2) *steps = strtoul(argv[2], NULL, 0);
  printf("seed: %llu\n", (unsigned long long)seed);
  fflush(stdout);
  return seed;
}

#endif
