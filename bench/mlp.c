/*
 * mlp.c -- what the memory system serves: random 8-byte reads from an
 * array of MIB mebibytes, one after another (each read's address depends
 * on the one before: the latency) and independent, in chunks whose lines
 * are all prefetched first (the throughput with many reads in flight), in
 * ns per read. With `huge`, the array is advised to use transparent huge
 * pages (Linux), which takes the page walks out of each read.
 *
 * Usage: mlp [MIB [huge]]      (default 256)
 * Build: cc -O2 bench/mlp.c -o build/mlp
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 256;
  int huge = argc > 2 && !strcmp(argv[2], "huge");
  size_t n = mib << 17, q = 4000000;
  uint64_t* a = aligned_alloc(1 << 21, n * sizeof *a);
  uint64_t* idx = malloc(q * sizeof *idx);
  if (!a || !idx) return 1;
  if (huge) madvise(a, n * sizeof *a, MADV_HUGEPAGE);
  for (size_t i = 0; i < n; i++) a[i] = i;
  for (size_t i = 0; i < q; i++) idx[i] = mix(i + 1) % n;
  uint64_t sum = 0, p = 0;
  double t0 = now_ns();
  for (size_t i = 0; i < q; i++) {
    p = a[(idx[i] + (p & 1)) % n];
    sum += p;
  }
  double chain = (now_ns() - t0) / q;
  printf("%zu MiB%s: one read after another %.1f ns", mib, huge ? " (huge pages)" : "", chain);
  for (int c = 4; c <= 64; c *= 4) {
    t0 = now_ns();
    for (size_t i = 0; i + c <= q; i += c) {
      for (int j = 0; j < c; j++) __builtin_prefetch(&a[idx[i + j]]);
      for (int j = 0; j < c; j++) sum += a[idx[i + j]];
    }
    printf(", %d in flight %.1f ns", c, (now_ns() - t0) / q);
  }
  printf(" (%llu)\n", (unsigned long long)(sum & 1));
  free(a);
  free(idx);
  return 0;
}
