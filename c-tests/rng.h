/* splitmix64, the suites' deterministic generator (seeded per test). */
#ifndef SLATE_TEST_RNG_H
#define SLATE_TEST_RNG_H

#include <stdint.h>

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

#endif
