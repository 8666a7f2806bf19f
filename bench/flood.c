/*
 * flood.c -- hash flooding, measured: what keys built against one map's
 * seed do to that map, and to a map with a seed of its own.
 *
 * An attacker who learns one map's seed (here from slate_info; in a real
 * attack, from a leak) can search for keys that all start their probe at
 * group 0 of their table: bits 7..13 of XXH3(key, seed) zero, one key in
 * 128 tries. In that map every such key probes past all the earlier ones;
 * another map hashes with another, unpredictable seed and never sees the
 * collision. `make bench-flood` builds and runs it (links Debian's
 * libxxhash, -lxxhash, for the attacker's XXH3).
 *
 *   flood [KEYS]       default 200000
 */
#define _POSIX_C_SOURCE 200809L
#include <xxhash.h>

#include "slate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct result_s {
  double insert_ns, hit_ns;
} result_s;

static result_s measure(slate_s* m, char (*keys)[32], size_t n) {
  result_s r;
  double t0 = now();
  for (size_t i = 0; i < n; i++)
    if (slate_set(m, keys[i], (void*)(uintptr_t)(i + 1)) != SLATE_OK) exit(1);
  double t1 = now();
  void* v;
  for (size_t i = 0; i < n; i++)
    if (slate_get(m, keys[(i * 7919) % n], &v) != SLATE_OK) exit(1);
  double t2 = now();
  r.insert_ns = (t1 - t0) * 1e9 / (double)n;
  r.hit_ns = (t2 - t1) * 1e9 / (double)n;
  return r;
}

int main(int argc, char** argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 200000;
  char(*flood)[32] = calloc(n, 32);
  char(*plain)[32] = calloc(n, 32);
  if (!flood || !plain) return 1;
  slate_s target, other, control;
  slate(&target);
  slate(&other);
  slate(&control);
  slate_info_s info;
  slate_info(&target, &info);
  uint64_t seed = info.seed;
  double t0 = now();
  uint64_t tries = 0;
  for (size_t found = 0; found < n; tries++) {
    char k[32];
    int len = snprintf(k, sizeof k, "flood-%" PRIu64, tries);
    uint64_t h = XXH3_64bits_withSeed(k, (size_t)len, seed);
    if (((h >> 7) & 127) == 0) memcpy(flood[found++], k, sizeof k);
  }
  double search = now() - t0;
  for (size_t i = 0; i < n; i++) snprintf(plain[i], 32, "plain-%zu", i);
  printf("%zu keys built against one map's seed: %" PRIu64 " tries, %.2f s\n", n, tries, search);
  result_s attacked = measure(&target, flood, n);
  result_s own = measure(&other, flood, n);
  result_s base = measure(&control, plain, n);
  printf("%-44s %10s %10s\n", "", "ns/insert", "ns/hit");
  printf("%-44s %10.1f %10.1f\n", "the map whose seed they were built for", attacked.insert_ns,
         attacked.hit_ns);
  printf("%-44s %10.1f %10.1f\n", "the same keys, a map with its own seed", own.insert_ns,
         own.hit_ns);
  printf("%-44s %10.1f %10.1f\n", "ordinary keys, a map with its own seed", base.insert_ns,
         base.hit_ns);
  slate_free(&target);
  slate_free(&other);
  slate_free(&control);
  free(flood);
  free(plain);
  return 0;
}
