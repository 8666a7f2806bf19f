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
#include "common.h"
#include "slate.h"

#define PHASES 8
static const char *const phase_names[PHASES] = {"insert",  "get",     "get_b16", "get_b64",
                                                 "get_b256", "iterate", "each",    "erase"};

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

static void fail(const char *what, uint32_t n) { fail_in("slotmap_slate", what, n); }

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
        elem e = make_elem(i);
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
            elem e = make_elem(i);
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

int main(int argc, char **argv) { return bench_main(argc, argv, run); }
