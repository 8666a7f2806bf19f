/*
 * sparse_slate.c -- the sparse-set section of the slotmap benchmark: the
 * slate-rs sparse sets (slotmap_sparse_s) through their C ABI, as a user
 * would call them (plain C11, linked against target/release/libslate.a).
 *
 * Its peers (bench/slotmap/rust/src/bin/sparse_bench.rs) are the `slotmap`
 * crate's SecondaryMap and SparseSecondaryMap and the `shipyard` ECS;
 * bench/slotmap/run.sh runs them interleaved and prints the table. All do
 * the same work, in the same order, with the same data and the same
 * shuffles:
 *
 *   owner    (untimed) the entities: a slotmap_s of N rows (8-byte
 *            elements, never read), made once per N; its keys, in insertion
 *            order, are entities 0 .. N-1. (slotmap crate: a
 *            SlotMap<DefaultKey, ()>; shipyard: N add_entity(()) in a fresh
 *            World every repetition.)
 *   element  struct { uint64_t id; float x; float y; } (16 bytes), one
 *            column; entity i's row is { i + 1, (float)i, (float)(2 i) }
 *   setup    (untimed) a fresh set, room reserved for N rows
 *   set      a component for every entity, in entity order, checked
 *            against the owner (slotmap_sparse_set with the owner; shipyard:
 *            EntitiesView::add_component, which checks the entity is alive;
 *            the SecondaryMaps check nothing)          checksum: rows
 *   get      every entity once, in shuffled order; sums id + bits(x) of
 *            the element it finds                      checksum: the sum
 *   get_many (this program only) the get phase again, the same keys in
 *            the same order, through slotmap_sparse_get_many, 64 keys a
 *            call, each call's elements summed as get sums them (ns per
 *            key)                                      checksum: the sum
 *   contains every entity once, the get phase's order  checksum: hits
 *   iterate  every row in dense order, the same sum (slotmap_sparse_column
 *            + slotmap_sparse_length, a plain loop; SecondaryMap and
 *            SparseSecondaryMap: values(); shipyard: its view's iter())
 *                                                      checksum: the sum
 *   join     (untimed: a second set of the same element, holding 10% of
 *            the entities, N / 10 of them in a shuffled order, entity i's
 *            row that of i + N) then, timed, every entity in both sets:
 *            the sum over both elements. slate: slotmap_join of the two
 *            sets with no owner (the peers check none either), a callback
 *            a key; shipyard: (&a, &b).iter(); the SecondaryMaps: iterate
 *            the smaller, get in the larger. ns per key of the smaller set.
 *                                                      checksum: the sum
 *   erase    every entity once, in another shuffled order (the first set;
 *            the join's smaller set is freed before)  checksum: erased
 *
 * The shuffles are Fisher-Yates driven by splitmix64 with fixed seeds,
 * identical in all programs; the shuffled key arrays are built before the
 * timed loops, so a timed loop reads its keys sequentially. Each phase is
 * timed as a whole with clock_gettime(CLOCK_MONOTONIC); the program repeats
 * setup + phases `reps` times per N (default: 4,000,000 / N, clamped to
 * 7 .. 301) and prints the median ns/op of each phase:
 *
 *   slate <phase> <N> <ns_per_op> <checksum>
 *
 * (phases in the order they run: set get get_many contains iterate join
 * erase)
 *
 * Every result is checked (sums against the closed form, counts, length 0
 * after the erase phase); any mismatch prints to stderr and exits 1.
 *
 * Usage: sparse_slate [--reps K] [--name LABEL] [N ...]
 *        (default N: 1000 100000 1000000)
 *
 * Build (from the repository root, after scripts/build-lib.sh):
 *   gcc -std=c11 -O2 -Wall -Wextra -Iinclude bench/slotmap/sparse_slate.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o sparse_slate
 */
#include "common.h"
#include "slate.h"

#define PHASES 7
#define GET_MANY_BATCH 64
static const char *const phase_names[PHASES] = {"set",     "get",  "get_many", "contains",
                                                 "iterate", "join", "erase"};

/* The get phase through slotmap_sparse_get_many, `batch` keys a call: the
 * sum of weigh() over the elements found; *bad counts the keys not found. */
static inline uint64_t get_many(const slotmap_sparse_s *sp, const uint64_t *keys, uint32_t n, uint32_t batch,
                                uint32_t *bad) {
    void *els[GET_MANY_BATCH];
    uint8_t found[GET_MANY_BATCH];
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i += batch) {
        uint32_t c = n - i < batch ? n - i : batch;
        if (slotmap_sparse_get_many(sp, keys + i, c, els, found) != SLATE_OK) {
            *bad += c;
            continue;
        }
        for (uint32_t j = 0; j < c; j++) {
            if (found[j])
                sum += weigh(els[j]);
            else
                ++*bad;
        }
    }
    return sum;
}

static int join_cb(slotmap_key key, const uint32_t *rows, void *const *elements, void *data) {
    (void)key;
    (void)rows;
    uint64_t *sum = data;
    *sum += weigh(elements[0]) + weigh(elements[1]);
    return 0;
}

static void fail(const char *what, uint32_t n) { fail_in("sparse_slate", what, n); }

static void run(uint32_t n, uint32_t reps) {
    uint64_t *keys = malloc((size_t)n * sizeof *keys);
    uint64_t *get_keys = malloc((size_t)n * sizeof *get_keys);
    uint64_t *erase_keys = malloc((size_t)n * sizeof *erase_keys);
    uint32_t *get_perm = malloc((size_t)n * sizeof *get_perm);
    uint32_t *erase_perm = malloc((size_t)n * sizeof *erase_perm);
    uint32_t *join_perm = malloc((size_t)n * sizeof *join_perm);
    uint64_t *times[PHASES];
    for (int p = 0; p < PHASES; p++) times[p] = malloc(reps * sizeof(uint64_t));
    if (!keys || !get_keys || !erase_keys || !get_perm || !erase_perm || !join_perm) fail("out of memory", n);
    for (int p = 0; p < PHASES; p++)
        if (!times[p]) fail("out of memory", n);
    shuffle(get_perm, n, 0x5EED0011u ^ n);
    shuffle(erase_perm, n, 0x5EED0012u ^ n);
    shuffle(join_perm, n, 0x5EED0013u ^ n);
    uint32_t m = n / 10 ? n / 10 : 1;

    /* The owner: entity i is keys[i]. */
    slotmap_s owner;
    if (slotmap(&owner, sizeof(uint64_t)) != SLATE_OK) fail("slotmap()", n);
    if (slotmap_reserve(&owner, n) != SLATE_OK) fail("slotmap_reserve", n);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = i;
        if (slotmap_insert(&owner, &v, &keys[i]) != SLATE_OK) fail("slotmap_insert", n);
    }
    for (uint32_t i = 0; i < n; i++) {
        get_keys[i] = keys[get_perm[i]];
        erase_keys[i] = keys[erase_perm[i]];
    }

    uint64_t expect = 0, expect_join = 0;
    for (uint32_t i = 0; i < n; i++) {
        elem e = make_elem(i);
        expect += weigh(&e);
    }
    for (uint32_t j = 0; j < m; j++) {
        elem a = make_elem(join_perm[j]), b = make_elem(join_perm[j] + n);
        expect_join += weigh(&a) + weigh(&b);
    }
    uint64_t checks[PHASES] = {0};

    for (uint32_t r = 0; r < reps; r++) {
        slotmap_sparse_s sp;
        if (slotmap_sparse(&sp, sizeof(elem)) != SLATE_OK) fail("slotmap_sparse()", n);
        if (slotmap_sparse_reserve(&sp, n) != SLATE_OK) fail("slotmap_sparse_reserve", n);

        /* set */
        uint32_t bad = 0;
        uint64_t t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            elem e = make_elem(i);
            bad += slotmap_sparse_set(&sp, &owner, keys[i], &e) != SLATE_OK;
        }
        keep(bad);
        uint64_t t1 = now_ns();
        times[0][r] = t1 - t0;
        if (bad || slotmap_sparse_length(&sp) != n) fail("set", n);
        checks[0] = slotmap_sparse_length(&sp);

        /* get */
        uint64_t sum = 0;
        t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            void *p;
            if (slotmap_sparse_get(&sp, get_keys[i], &p) == SLATE_OK)
                sum += weigh(p);
            else
                bad++;
        }
        keep(sum + bad);
        t1 = now_ns();
        times[1][r] = t1 - t0;
        if (bad || sum != expect) fail("get", n);
        checks[1] = sum;

        /* get_many: the same keys in the same order, GET_MANY_BATCH a call */
        t0 = now_ns();
        sum = get_many(&sp, get_keys, n, GET_MANY_BATCH, &bad);
        keep(sum + bad);
        t1 = now_ns();
        times[2][r] = t1 - t0;
        if (bad || sum != expect) fail("get_many", n);
        checks[2] = sum;

        /* contains */
        uint32_t hits = 0;
        t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) hits += (uint32_t)slotmap_sparse_contains(&sp, get_keys[i]);
        keep(hits);
        t1 = now_ns();
        times[3][r] = t1 - t0;
        if (hits != n) fail("contains", n);
        checks[3] = hits;

        /* iterate: the dense column, as a system's loop would read it */
        t0 = now_ns();
        sum = sum_rows(slotmap_sparse_column(&sp, 0), slotmap_sparse_length(&sp));
        keep(sum);
        t1 = now_ns();
        times[4][r] = t1 - t0;
        if (sum != expect) fail("iterate", n);
        checks[4] = sum;

        /* join: the smaller set (untimed), then slotmap_join of the two */
        slotmap_sparse_s small;
        if (slotmap_sparse(&small, sizeof(elem)) != SLATE_OK) fail("slotmap_sparse() (join)", n);
        if (slotmap_sparse_reserve(&small, m) != SLATE_OK) fail("slotmap_sparse_reserve (join)", n);
        for (uint32_t j = 0; j < m; j++) {
            elem e = make_elem(join_perm[j] + n);
            if (slotmap_sparse_set(&small, &owner, keys[join_perm[j]], &e) != SLATE_OK) fail("set (join)", n);
        }
        slotmap_sparse_s *const sets[2] = {&sp, &small};
        sum = 0;
        t0 = now_ns();
        int rc = slotmap_join(NULL, sets, 2, join_cb, &sum);
        keep(sum);
        t1 = now_ns();
        times[5][r] = t1 - t0;
        if (rc != SLATE_OK || sum != expect_join) fail("join", n);
        checks[5] = sum;
        slotmap_sparse_free(&small);

        /* erase */
        uint32_t erased = 0;
        t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) erased += slotmap_sparse_erase(&sp, erase_keys[i]) == SLATE_OK;
        keep(erased);
        t1 = now_ns();
        times[6][r] = t1 - t0;
        if (erased != n || slotmap_sparse_length(&sp) != 0) fail("erase", n);
        checks[6] = erased;

        slotmap_sparse_free(&sp);
    }

    for (int p = 0; p < PHASES; p++) {
        /* The join's operations are the smaller set's keys. */
        double ns = (double)median(times[p], reps) / (p == 5 ? m : n);
        printf("%s %s %u %.3f %llu\n", impl_name, phase_names[p], n, ns, (unsigned long long)checks[p]);
        free(times[p]);
    }
    fflush(stdout);
    slotmap_free(&owner);
    free(keys);
    free(get_keys);
    free(erase_keys);
    free(get_perm);
    free(erase_perm);
    free(join_perm);
}

int main(int argc, char **argv) { return bench_main(argc, argv, run); }
