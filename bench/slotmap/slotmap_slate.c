/*
 * slotmap_slate.c -- the slate-rs slotmap through its C ABI, as a user would
 * call it (plain C11, linked against target/release/libslate.a).
 *
 * One of four programs of the slotmap benchmark (bench/slotmap/run.sh runs
 * them interleaved and prints the table); the others are seed_slotmap.cpp
 * (a plain C++ dense slotmap) and rust/ (the `slotmap` crate's SlotMap and
 * DenseSlotMap). All four do the same work, in the same order, with the
 * same data and the same shuffles:
 *
 *   element  struct { uint64_t id; float x; float y; } (16 bytes), one column;
 *            row i is { i + 1, (float)i, (float)(2 i) }
 *   setup    (untimed) a fresh slotmap, room reserved for N rows
 *   insert   N inserts, keys kept in an array            checksum: rows
 *   get      every key once, in shuffled order; sums     checksum: the sum
 *            id + bits(x) of the element it finds
 *   get_b16, get_b64, get_b256 (this program only)        checksum: the sum
 *            the get phase again with the same keys in the same order,
 *            through slotmap_get_many, 16, 64 or 256 keys a call, each
 *            call's elements summed as get sums them (ns per key)
 *   iterate  every row in dense order, same sum          checksum: the sum
 *            (slate: slotmap_column(0) + slotmap_length, a plain loop)
 *   each     every (key, row) in dense order: the same   checksum: the sum
 *            sum, and the keys XORed (slate: slotmap_each and a callback;
 *            informational, no target)
 *   erase    every key once, in another shuffled order   checksum: erased
 *
 * The shuffles are Fisher-Yates driven by splitmix64 with fixed seeds,
 * identical in all four programs; the shuffled key arrays are built before
 * the timed loops, so a timed loop reads its keys sequentially. Each phase
 * is timed as a whole with clock_gettime(CLOCK_MONOTONIC); the program
 * repeats setup + phases `reps` times per N (default: 4,000,000 / N,
 * clamped to 7 .. 301) and prints the median ns/op of each phase:
 *
 *   slate <phase> <N> <ns_per_op> <checksum>
 *
 * (phases in the order they run: insert get get_b16 get_b64 get_b256
 * iterate each erase)
 *
 * Every result is checked (sums against the closed form, counts, key XOR,
 * length 0 after the erase phase); any mismatch prints to stderr and exits 1.
 *
 * Usage: slotmap_slate [--reps K] [N ...]     (default N: 1000 100000 1000000)
 *
 * Build (from the repository root, after cargo build --release):
 *   gcc -std=c11 -O2 -Wall -Wextra -Iinclude bench/slotmap/slotmap_slate.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o slotmap_slate
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slate.h"

typedef struct {
    uint64_t id;
    float x;
    float y;
} elem;

_Static_assert(sizeof(elem) == 16, "16-byte element");

#define PHASES 8
/* The label printed on every result line (--name): "slate-lto" for the
 * cross-language-LTO build of this same file. */
static const char *impl_name = "slate";

static const char *const phase_names[PHASES] = {"insert",  "get",     "get_b16", "get_b64",
                                                 "get_b256", "iterate", "each",    "erase"};

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Keeps a value (and all memory writes before it) from being optimized away
 * or moved past the clock reading that follows. */
static inline void keep(uint64_t v) { __asm__ volatile("" : : "r"(v) : "memory"); }

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* perm[0..n) = a permutation of 0..n, Fisher-Yates. */
static void shuffle(uint32_t *perm, uint32_t n, uint64_t seed) {
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

static inline uint64_t weigh(const elem *e) { return e->id + bits(e->x); }

#define BATCH_MAX 256

/* The get phase through slotmap_get_many, `batch` keys a call: the sum of
 * weigh() over the elements found; *bad counts the keys not found. */
static inline uint64_t get_many(const slotmap_s *sm, const uint64_t *keys, uint32_t n, uint32_t batch,
                                uint32_t *bad) {
    void *els[BATCH_MAX];
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i += batch) {
        uint32_t c = n - i < batch ? n - i : batch;
        if (slotmap_get_many(sm, keys + i, c, els) != SLATE_OK) {
            *bad += c;
            continue;
        }
        for (uint32_t j = 0; j < c; j++) {
            if (els[j])
                sum += weigh(els[j]);
            else
                ++*bad;
        }
    }
    return sum;
}

/* The iterate loop, out of line and 64-byte aligned so that its speed does
 * not depend on where the linker happens to place main (measured: up to
 * 20% between two builds of identical C code against different archives). */
__attribute__((noinline, aligned(64))) static uint64_t sum_rows(const elem *col, uint32_t len) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < len; i++) sum += weigh(&col[i]);
    return sum;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t median(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void fail(const char *what, uint32_t n) {
    fprintf(stderr, "slotmap_slate: N=%u: %s\n", n, what);
    exit(1);
}

typedef struct {
    uint64_t sum;
    uint64_t keys;
} each_acc;

static int each_cb(slotmap_key key, void *row, void *data) {
    each_acc *acc = data;
    acc->sum += weigh(row);
    acc->keys ^= key;
    return 0;
}

static void run(uint32_t n, uint32_t reps) {
    uint64_t *keys = malloc((size_t)n * sizeof *keys);
    uint64_t *get_keys = malloc((size_t)n * sizeof *get_keys);
    uint64_t *erase_keys = malloc((size_t)n * sizeof *erase_keys);
    uint32_t *get_perm = malloc((size_t)n * sizeof *get_perm);
    uint32_t *erase_perm = malloc((size_t)n * sizeof *erase_perm);
    uint64_t *times[PHASES];
    for (int p = 0; p < PHASES; p++) times[p] = malloc(reps * sizeof(uint64_t));
    if (!keys || !get_keys || !erase_keys || !get_perm || !erase_perm) fail("out of memory", n);
    for (int p = 0; p < PHASES; p++)
        if (!times[p]) fail("out of memory", n);
    shuffle(get_perm, n, 0x5EED0001u ^ n);
    shuffle(erase_perm, n, 0x5EED0002u ^ n);

    uint64_t expect = 0;
    for (uint32_t i = 0; i < n; i++) {
        elem e = {i + 1u, (float)i, (float)(2u * i)};
        expect += weigh(&e);
    }
    uint64_t checks[PHASES] = {0};

    for (uint32_t r = 0; r < reps; r++) {
        slotmap_s sm;
        if (slotmap(&sm, sizeof(elem)) != SLATE_OK) fail("slotmap()", n);
        if (slotmap_reserve(&sm, n) != SLATE_OK) fail("slotmap_reserve", n);

        /* insert */
        uint32_t bad = 0;
        uint64_t t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            elem e = {i + 1u, (float)i, (float)(2u * i)};
            bad += slotmap_insert(&sm, &e, &keys[i]) != SLATE_OK;
        }
        keep(bad);
        uint64_t t1 = now_ns();
        times[0][r] = t1 - t0;
        if (bad || slotmap_length(&sm) != n) fail("insert", n);
        checks[0] = slotmap_length(&sm);

        uint64_t key_xor = 0;
        for (uint32_t i = 0; i < n; i++) {
            get_keys[i] = keys[get_perm[i]];
            erase_keys[i] = keys[erase_perm[i]];
            key_xor ^= keys[i];
        }

        /* get */
        uint64_t sum = 0;
        t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            void *p;
            if (slotmap_get(&sm, get_keys[i], &p) == SLATE_OK)
                sum += weigh(p);
            else
                bad++;
        }
        keep(sum + bad);
        t1 = now_ns();
        times[1][r] = t1 - t0;
        if (bad || sum != expect) fail("get", n);
        checks[1] = sum;

        /* get_b16, get_b64, get_b256: the same keys in the same order, B a call */
#define GET_MANY_PHASE(p, B)                                   \
    t0 = now_ns();                                             \
    sum = get_many(&sm, get_keys, n, B, &bad);                 \
    keep(sum + bad);                                           \
    t1 = now_ns();                                             \
    times[p][r] = t1 - t0;                                     \
    if (bad || sum != expect) fail(phase_names[p], n);         \
    checks[p] = sum;
        GET_MANY_PHASE(2, 16)
        GET_MANY_PHASE(3, 64)
        GET_MANY_PHASE(4, 256)
#undef GET_MANY_PHASE

        /* iterate: the dense column, as a systems loop would read it */
        t0 = now_ns();
        sum = sum_rows(slotmap_column(&sm, 0), slotmap_length(&sm));
        keep(sum);
        t1 = now_ns();
        times[5][r] = t1 - t0;
        if (sum != expect) fail("iterate", n);
        checks[5] = sum;

        /* each: (key, row) pairs through the callback walk */
        each_acc acc = {0, 0};
        t0 = now_ns();
        int rc = slotmap_each(&sm, each_cb, &acc);
        keep(acc.sum ^ acc.keys);
        t1 = now_ns();
        times[6][r] = t1 - t0;
        if (rc != SLATE_OK || acc.sum != expect || acc.keys != key_xor) fail("each", n);
        checks[6] = acc.sum;

        /* erase */
        uint32_t erased = 0;
        t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) erased += slotmap_erase(&sm, erase_keys[i]) == SLATE_OK;
        keep(erased);
        t1 = now_ns();
        times[7][r] = t1 - t0;
        if (erased != n || slotmap_length(&sm) != 0) fail("erase", n);
        checks[7] = erased;

        slotmap_free(&sm);
    }

    for (int p = 0; p < PHASES; p++) {
        double ns = (double)median(times[p], reps) / n;
        printf("%s %s %u %.3f %llu\n", impl_name, phase_names[p], n, ns, (unsigned long long)checks[p]);
        free(times[p]);
    }
    fflush(stdout);
    free(keys);
    free(get_keys);
    free(erase_keys);
    free(get_perm);
    free(erase_perm);
}

static uint32_t default_reps(uint32_t n) {
    uint32_t r = 4000000u / n;
    return r < 7 ? 7 : r > 301 ? 301 : r;
}

int main(int argc, char **argv) {
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
