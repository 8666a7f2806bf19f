/*
 * common.h -- what the slotmap benchmark's C programs share
 * (slotmap_slate.c: the slotmap section; sparse_slate.c: the sparse-set
 * section): the element, its checksum weight, the clock, the shuffles, the
 * dense-column loop, the medians and the command line. rust/src/lib.rs
 * does the same for the Rust programs.
 */
#ifndef SLOTMAP_BENCH_COMMON_H
#define SLOTMAP_BENCH_COMMON_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The 16-byte element of every phase; row i is { i + 1, (float)i,
 * (float)(2 i) }. */
typedef struct {
    uint64_t id;
    float x;
    float y;
} elem;

_Static_assert(sizeof(elem) == 16, "16-byte element");

/* The label printed on every result line (--name): "slate-lto" for the
 * cross-language-LTO build of the same file. */
static const char *impl_name = "slate";

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Keeps a value (and all memory writes before it) from being optimized away
 * or moved past the clock reading that follows. */
static inline void keep(uint64_t v) { __asm__ volatile("" : : "r"(v) : "memory"); }

static inline uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* perm[0..n) = a permutation of 0..n, Fisher-Yates. */
static inline void shuffle(uint32_t *perm, uint32_t n, uint64_t seed) {
    uint64_t s = seed;
    for (uint32_t i = 0; i < n; i++) perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)(splitmix64(&s) % i);
        uint32_t t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
}

static inline uint64_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline elem make_elem(uint32_t i) { return (elem){i + 1u, (float)i, (float)(2u * i)}; }

/* What a phase sums over the elements it finds. */
static inline uint64_t weigh(const elem *e) { return e->id + bits(e->x); }

/* The iterate loop, out of line and 64-byte aligned so that its speed does
 * not depend on where the linker happens to place main (measured: up to
 * 20% between two builds of identical C code against different archives). */
__attribute__((noinline, aligned(64))) static uint64_t sum_rows(const elem *col, uint32_t len) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < len; i++) sum += weigh(&col[i]);
    return sum;
}

static inline int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static inline uint64_t median(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A failed check: prints "<program>: N=<n>: <what>" and exits 1. */
static inline void fail_in(const char *program, const char *what, uint32_t n) {
    fprintf(stderr, "%s: N=%u: %s\n", program, n, what);
    exit(1);
}

/* Repetitions per N unless --reps says: 4,000,000 / N, within 7 .. 301. */
static inline uint32_t default_reps(uint32_t n) {
    uint32_t r = 4000000u / n;
    return r < 7 ? 7 : r > 301 ? 301 : r;
}

/* The command line, [--reps K] [--name LABEL] [N ...] (default N: 1000
 * 100000 1000000): calls run(N, reps) for each N in turn. */
static inline int bench_main(int argc, char **argv, void (*run)(uint32_t n, uint32_t reps)) {
    uint32_t reps = 0;
    uint32_t sizes[64];
    int count = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
            impl_name = argv[++i];
        } else {
            unsigned long v = strtoul(argv[i], NULL, 10);
            if (v == 0 || v > 100000000ul || count == 64) {
                fprintf(stderr, "usage: %s [--reps K] [--name LABEL] [N ...]\n", argv[0]);
                return 2;
            }
            sizes[count++] = (uint32_t)v;
        }
    }
    if (count == 0) {
        sizes[0] = 1000;
        sizes[1] = 100000;
        sizes[2] = 1000000;
        count = 3;
    }
    for (int i = 0; i < count; i++) run(sizes[i], reps ? reps : default_reps(sizes[i]));
    return 0;
}

#endif
