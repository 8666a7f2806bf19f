/*
 * common.h -- what the snapshot benchmark's C programs share
 * (snapshot_slate.c, keygen.c): the rows, the map values, the key files,
 * the clock, the repetition loop and its medians. rust/src/main.rs and
 * go/main.go write the same rows, values and shuffles in their languages;
 * run.sh describes the workloads.
 */
#ifndef SNAPSHOT_BENCH_COMMON_H
#define SNAPSHOT_BENCH_COMMON_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* splitmix64 and format_path: the map benchmark's keys. */
#include "../maps/keys.h"

/* ------------------------------------------------------------------ rows */

/* Column 0 of every slotmap row and the set's column: 16 bytes, the
 * slotmap benchmark's element. */
typedef struct {
    uint64_t id;
    float x;
    float y;
} elem16;

/* Column 1 of a 64-byte row. */
typedef struct {
    float vx, vy, vz;
    uint32_t flags;
} vel16;

/* A 64-byte row of three columns (16, 16 and 32 bytes), its fields back
 * to back as slotmap_insert takes them. */
typedef struct {
    elem16 e;
    vel16 v;
    uint64_t a[4];
} row64;

_Static_assert(sizeof(elem16) == 16, "16-byte column");
_Static_assert(sizeof(vel16) == 16, "16-byte column");
_Static_assert(sizeof(row64) == 64, "64-byte row");

/* Row number i (the i-th insert, counted from 0 over the slotmap's whole
 * history): every field a function of i. */
static inline elem16 make_elem(uint64_t i) { return (elem16){i + 1, (float)i, (float)(2 * i)}; }

static inline row64 make_row64(uint64_t i) {
    row64 r;
    r.e = make_elem(i);
    r.v = (vel16){(float)i * 0.5f, -(float)i, (float)i * 0.25f, (uint32_t)(i * 7)};
    r.a[0] = i;
    r.a[1] = i * 3;
    r.a[2] = i ^ 0xA5A5A5A5A5A5A5A5u;
    r.a[3] = ~i;
    return r;
}

/* The 16-byte value of map entry i (codec values): i + 1 and its
 * complement, little-endian. */
static inline void make_value16(uint8_t out[16], uint64_t i) {
    uint64_t a = i + 1, b = ~(i + 1);
    for (int k = 0; k < 8; k++) {
        out[k] = (uint8_t)(a >> (8 * k));
        out[8 + k] = (uint8_t)(b >> (8 * k));
    }
}

/* perm[0..n) = a permutation of 0..n (Fisher-Yates driven by splitmix64
 * from `seed`; the Rust and Go programs draw the same). */
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

/* The shuffle seeds: the rows a churn erases, the order a set adds its keys. */
#define SEED_CHURN 0xC4u
#define SEED_SET 0x5Eu

/* -------------------------------------------------------------- helpers */

static inline void die(const char *prog, const char *what, uint64_t n) {
    fprintf(stderr, "%s: N=%" PRIu64 ": %s\n", prog, n, what);
    exit(1);
}

static inline void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* Memory written once, so that no timed loop pays for its first touch. */
static inline void *xmalloc_touched(size_t n) {
    void *p = xmalloc(n);
    memset(p, 0xEE, n ? n : 1);
    return p;
}

/* Keeps a value (and the memory writes before it) from being optimized
 * away or moved across the clock reading that follows. */
static inline void keep(uint64_t v) { __asm__ volatile("" : : "r"(v) : "memory"); }

/* ---------------------------------------------------------------- clock */

/* The clock: the process's CPU time (CLOCK_PROCESS_CPUTIME_ID, the
 * default: on a shared machine it leaves out the time other processes
 * hold the core; page faults count, as system time) or wall time
 * (CLOCK_MONOTONIC, --clock wall); less the cost of one reading. */
static clockid_t clock_id = CLOCK_PROCESS_CPUTIME_ID;
static uint64_t clock_cost;

static inline uint64_t clock_now(void) {
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static inline uint64_t median_u64(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline void clock_init(void) {
    uint64_t d[201];
    for (int i = 0; i < 201; i++) {
        uint64_t a = clock_now();
        d[i] = clock_now() - a;
    }
    clock_cost = median_u64(d, 201);
}

static inline uint64_t clock_since(uint64_t t0) {
    uint64_t d = clock_now() - t0;
    return d > clock_cost ? d - clock_cost : 0;
}

/* ---------------------------------------------------------- repetitions */

/* How many times each operation runs: once to warm up (its result kept
 * out of the median; the full checks run then), then as many times as
 * fit `budget_ns` for all of a workload's operations together, within
 * min_reps .. max_reps. The operations of a workload take turns (A B C
 * A B C ...), so a drift in the machine's speed reaches all of them. */
static uint64_t budget_ns = 1500000000u;
static uint32_t min_reps = 5, max_reps = 101;

/* One timed operation: does its untimed set-up, times the operation
 * alone, checks it (fully when `full`) and tears down; returns the ns. */
typedef uint64_t (*op_f)(void *ctx, int full);

typedef struct {
    const char *name;
    op_f run;
} op_s;

/* Runs `ops` and prints "<impl> <workload> <op> <N> <count> <ns> <bytes>"
 * for each: the median ns of the timed runs. */
static inline void run_ops(const char *impl, const char *workload, uint64_t n, uint64_t count,
                           uint64_t bytes, const op_s *ops, int nops, void *ctx) {
    uint64_t warm = 0;
    for (int o = 0; o < nops; o++) warm += ops[o].run(ctx, 1);
    uint64_t reps = warm ? budget_ns / warm : max_reps;
    if (reps < min_reps) reps = min_reps;
    if (reps > max_reps) reps = max_reps;
    uint64_t *t = xmalloc(sizeof(uint64_t) * reps * (size_t)nops);
    for (uint64_t r = 0; r < reps; r++)
        for (int o = 0; o < nops; o++) t[(size_t)o * reps + r] = ops[o].run(ctx, 0);
    for (int o = 0; o < nops; o++)
        printf("%s %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", impl, workload, ops[o].name, n,
               count, median_u64(t + (size_t)o * reps, reps), bytes);
    fflush(stdout);
    free(t);
}

/* ------------------------------------------------------------ key files */

/* The lines of a key file (words.txt, paths.txt: one key a line), the
 * first `n` of them: key i is bytes + off[i], len[i] bytes. */
typedef struct {
    uint32_t n;
    char *bytes;
    uint64_t *off;
    uint32_t *len;
    uint64_t total; /* the keys' bytes */
} keyfile;

static inline void keyfile_read(keyfile *kf, const char *path, uint32_t n) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s (run.sh writes it with keygen)\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    kf->bytes = xmalloc((size_t)size + 1);
    if (fread(kf->bytes, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    kf->n = n;
    kf->off = xmalloc(sizeof(uint64_t) * n);
    kf->len = xmalloc(sizeof(uint32_t) * n);
    kf->total = 0;
    uint64_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        char *nl = at < (uint64_t)size ? memchr(kf->bytes + at, '\n', (size_t)size - at) : NULL;
        if (!nl) {
            fprintf(stderr, "%s: fewer than %u keys\n", path, n);
            exit(2);
        }
        kf->off[i] = at;
        kf->len[i] = (uint32_t)(nl - (kf->bytes + at));
        kf->total += kf->len[i];
        at = (uint64_t)(nl - kf->bytes) + 1;
    }
}

static inline void keyfile_free(keyfile *kf) {
    free(kf->bytes);
    free(kf->off);
    free(kf->len);
    memset(kf, 0, sizeof *kf);
}

#endif
