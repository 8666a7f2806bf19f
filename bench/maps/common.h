/*
 * common.h -- the workload of the map benchmark, shared by its C and C++
 * programs (slate_bench.c, c_maps.c, cpp_maps.cpp). go/main.go and
 * rust/src/main.rs implement the same workload; see README.md.
 *
 * Keys: k_i = splitmix64 output i (state x = 42; x += golden; mix(x)),
 * i = 0 .. N-1; the miss keys are outputs N .. 2N-1 (splitmix64 is a
 * bijection of its counter, so they are all distinct). String keys (--keys
 * str) are "key:" followed by the decimal of the same u64s (20-24 bytes);
 * path keys (--keys path) are path-like strings of 60-100 bytes made from
 * the same u64s, sharing their first 5-30 bytes with many others (the
 * recipe: keys.h). The value of key i is i + 1; the checksums are those of
 * the u64 keys, whatever the key type.
 *
 * Phases, each timed as a whole with the process's CPU time
 * (clock_gettime(CLOCK_PROCESS_CPUTIME_ID), less the cost of a reading;
 * --clock wall: CLOCK_MONOTONIC):
 *   insert   N inserts into a fresh map (no reserve)    checksum: length after
 *   hit      N lookups in a shuffled order              checksum: sum(k ^ value)
 *            (k: the u64 the key was made from)
 *   miss     N lookups of absent keys                   checksum: misses (N)
 *   iterate  every entry, summing values                checksum: the sum
 *   delete   every key, in another shuffled order       checksum: length before
 *                                                                 - length after
 *   upsert   2N get-or-insert ops into another fresh    checksum: sum(k ^ count)
 *            map (no reserve), each adding one to the             over the N keys
 *            key's counter with one lookup (as the map
 *            offers it): every key twice, the 2N ops in
 *            a shuffled order, so N ops insert (count 1)
 *            and N find the key (count 2); the first
 *            ops mostly insert, the last mostly find.
 *            ns per op (2N ops); the checksum, sum(k ^ 2), is taken after
 *            the timed loop by the program's hit loop (untimed) on that map.
 * Shuffles: Fisher-Yates driven by splitmix64 from state 7 (hits), 8
 * (deletes) and 9 (upserts: a permutation p of 0..2N-1, op j counts key
 * p[j] mod N). The shuffled key arrays are built before the timed loops, so
 * every timed loop reads its keys sequentially.
 *
 * Phase selection (--phases, a comma-separated list of the phases above):
 * insert, hit, miss, iterate and delete (and a program's extra phases) run
 * as one group, on one map, whenever any of them is asked for, so each
 * starts from the state it always does; upsert runs on its own map. A
 * program prints the phases asked for (an extra phase with its base
 * phase); the default is all of them.
 *
 * Extra lookup phases (slate_bench.c: hit_b16 hit_b64 hit_b256 miss_b16
 * miss_b64 miss_b256, the batch calls slate_get_many_*): a program may add
 * phases that repeat hit or miss on the same full map with the same keys in
 * the same order (in batches), each timed like the others, ns per key, with
 * the checksum of the phase it repeats. They run right after that phase
 * (insert, hit, hit_b*, miss, miss_b*, iterate, delete), so each starts from
 * the cache state its single-lookup phase starts from (after a full sweep
 * of the table).
 *
 * Output, one line per result (machine-readable, 6 fields):
 *   <impl> <u64|str|path> <phase> <N> <ns_per_op> <checksum>
 * bench mode: phases insert hit miss iterate delete upsert (median of the
 *             reps), and a program's extra phases;
 * tail mode:  tail_mean tail_p50 tail_p99 tail_p999 tail_p9999 tail_max
 *             (ns, single inserts) and tail_nivcsw (involuntary context
 *             switches during the inserts);
 * mem mode:   mem_bytes_per_entry (peak RSS growth / N) and mem_peak_mib.
 */
#ifndef MAPS_COMMON_H
#define MAPS_COMMON_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "keys.h"


static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The phase clock: the process's CPU time (CLOCK_PROCESS_CPUTIME_ID, the
 * default: on a shared machine it leaves out the time other processes hold
 * the core) or wall time (CLOCK_MONOTONIC, --clock wall). Single inserts in
 * tail mode always use wall time (now_ns). */
static clockid_t phase_clock_id = CLOCK_PROCESS_CPUTIME_ID;
static uint64_t phase_clock_cost; /* ns a back-to-back pair of reads measures */

static inline uint64_t phase_now(void) {
    struct timespec ts;
    clock_gettime(phase_clock_id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Keeps a value (and the memory writes before it) from being optimized away
 * or moved across the clock reading that follows. */
static inline void keep(uint64_t v) { __asm__ volatile("" : : "r"(v) : "memory"); }

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

/* perm[0..n) = a permutation of 0..n (Fisher-Yates). */
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

/* The key types (--keys): u64, "key:" strings, path keys (keys.h). */
enum { KEYS_U64, KEYS_STR, KEYS_PATH };

/* The workload for one N: the keys in insert order, in hit order and in
 * delete order, the miss keys, and the upsert stream (2N keys: each key
 * twice, shuffled); u64 values and, with string keys (str or path), their
 * string forms (records of `stride` bytes, NUL-terminated) and lengths. */
typedef struct {
    uint32_t n;
    uint64_t *keys, *hit, *hit_val, *del, *miss, *ups; /* u64s; hit_val: the expected values */
    char *s_keys, *s_hit, *s_del, *s_miss, *s_ups;     /* strings (NULL without) */
    uint8_t *l_keys, *l_hit, *l_del, *l_miss, *l_ups;  /* their lengths */
    size_t stride;                                     /* bytes per string record */
    uint64_t want_hit, want_sum, want_ups;             /* closed forms of the checksums */
} workload;

/* keys: KEYS_U64 (no string forms), KEYS_STR or KEYS_PATH. */
static inline void workload_make(workload *w, uint32_t n, int keys, int lookups) {
    memset(w, 0, sizeof *w);
    w->n = n;
    uint64_t s = 42;
    w->keys = (uint64_t *)xmalloc(sizeof(uint64_t) * n);
    for (uint32_t i = 0; i < n; i++) w->keys[i] = splitmix64(&s);
    w->want_sum = (uint64_t)n * (n + 1) / 2;
    if (lookups) {
        w->miss = (uint64_t *)xmalloc(sizeof(uint64_t) * n);
        for (uint32_t i = 0; i < n; i++) w->miss[i] = splitmix64(&s);
        uint32_t *perm = (uint32_t *)xmalloc(sizeof(uint32_t) * n);
        w->hit = (uint64_t *)xmalloc(sizeof(uint64_t) * n);
        w->hit_val = (uint64_t *)xmalloc(sizeof(uint64_t) * n);
        shuffle(perm, n, 7);
        for (uint32_t i = 0; i < n; i++) {
            w->hit[i] = w->keys[perm[i]];
            w->hit_val[i] = perm[i] + 1u;
            w->want_hit += w->hit[i] ^ w->hit_val[i];
        }
        w->del = (uint64_t *)xmalloc(sizeof(uint64_t) * n);
        shuffle(perm, n, 8);
        for (uint32_t i = 0; i < n; i++) w->del[i] = w->keys[perm[i]];
        free(perm);
        /* upserts: op j counts key p[j] mod N, p a permutation of 0..2N-1 */
        perm = (uint32_t *)xmalloc(sizeof(uint32_t) * 2 * (size_t)n);
        shuffle(perm, 2 * n, 9);
        w->ups = (uint64_t *)xmalloc(sizeof(uint64_t) * 2 * (size_t)n);
        for (uint32_t j = 0; j < 2 * n; j++) w->ups[j] = w->keys[perm[j] % n];
        for (uint32_t i = 0; i < n; i++) w->want_ups += w->keys[i] ^ 2u;
        free(perm);
    }
    if (keys != KEYS_U64) {
        uint32_t (*format)(char *, uint64_t) = keys == KEYS_PATH ? format_path : format_key;
        w->stride = keys == KEYS_PATH ? PATH_STRIDE : KEY_STRIDE;
        uint64_t *src[5] = {w->keys, w->hit, w->del, w->miss, w->ups};
        char **dst[5] = {&w->s_keys, &w->s_hit, &w->s_del, &w->s_miss, &w->s_ups};
        uint8_t **len[5] = {&w->l_keys, &w->l_hit, &w->l_del, &w->l_miss, &w->l_ups};
        for (int a = 0; a < 5; a++) {
            if (!src[a]) continue;
            size_t cnt = a == 4 ? 2 * (size_t)n : n;
            *dst[a] = (char *)xmalloc(w->stride * cnt);
            *len[a] = (uint8_t *)xmalloc(cnt);
            for (size_t i = 0; i < cnt; i++)
                (*len[a])[i] = (uint8_t)format(*dst[a] + w->stride * i, src[a][i]);
        }
    }
}

static inline void workload_free(workload *w) {
    free(w->keys); free(w->hit); free(w->hit_val); free(w->del); free(w->miss); free(w->ups);
    free(w->s_keys); free(w->s_hit); free(w->s_del); free(w->s_miss); free(w->s_ups);
    free(w->l_keys); free(w->l_hit); free(w->l_del); free(w->l_miss); free(w->l_ups);
    memset(w, 0, sizeof *w);
}

static inline int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static inline int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static inline double median_ns(uint64_t *v, uint32_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/* Peak resident set size so far, bytes. */
static inline uint64_t peak_rss(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)ru.ru_maxrss * 1024u;
}

static inline long nivcsw(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_nivcsw;
}

/* Command line shared by all programs:
 *   PROG [--impl NAME] [--keys u64|str|path] [--mode bench|tail|mem]
 *        [--clock cpu|wall] [--phases P,P,...] [--ops K] [N ...]
 * bench: reps per N = clamp(K / N, 1, 1000) (K default 1,000,000);
 * tail and mem use the first N (default 10,000,000). */
typedef struct {
    const char *impl;
    int strings; /* KEYS_U64 (0), KEYS_STR or KEYS_PATH: nonzero for string keys */
    int mode; /* 0 bench, 1 tail, 2 mem */
    int wall; /* --clock wall */
    unsigned phases; /* bit p: PHASES[p] asked for (--phases; default all) */
    uint64_t ops;
    uint32_t sizes[16];
    int nsizes;
} options;

#define NPHASES 6
static const char *const PHASES[NPHASES] = {"insert", "hit", "miss", "iterate", "delete", "upsert"};
#define PHASE_UPSERT 5
#define CORE_PHASES 0x1fu /* insert .. delete: one group on one map */

/* --phases insert,hit,...: the bit mask of the phases named. */
static inline unsigned parse_phases(const char *list) {
    unsigned mask = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int i = 0; i < NPHASES; i++)
            if (len == strlen(PHASES[i]) && !strncmp(p, PHASES[i], len)) mask |= 1u << i, found = 1;
        if (!found && len) { fprintf(stderr, "bad --phases %s\n", list); exit(2); }
        p += len + (p[len] == ',');
    }
    if (!mask) { fprintf(stderr, "bad --phases %s\n", list); exit(2); }
    return mask;
}

static inline void parse_options(options *o, int argc, char **argv, const char *default_impl) {
    memset(o, 0, sizeof *o);
    o->impl = default_impl;
    o->ops = 1000000;
    o->phases = (1u << NPHASES) - 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--impl") && i + 1 < argc) o->impl = argv[++i];
        else if (!strcmp(a, "--keys") && i + 1 < argc) {
            const char *k = argv[++i];
            if (!strcmp(k, "u64")) o->strings = KEYS_U64;
            else if (!strcmp(k, "str")) o->strings = KEYS_STR;
            else if (!strcmp(k, "path")) o->strings = KEYS_PATH;
            else { fprintf(stderr, "bad --keys %s\n", k); exit(2); }
        } else if (!strcmp(a, "--mode") && i + 1 < argc) {
            const char *m = argv[++i];
            if (!strcmp(m, "bench")) o->mode = 0;
            else if (!strcmp(m, "tail")) o->mode = 1;
            else if (!strcmp(m, "mem")) o->mode = 2;
            else { fprintf(stderr, "bad --mode %s\n", m); exit(2); }
        } else if (!strcmp(a, "--clock") && i + 1 < argc) {
            const char *c = argv[++i];
            if (!strcmp(c, "cpu")) o->wall = 0;
            else if (!strcmp(c, "wall")) o->wall = 1;
            else { fprintf(stderr, "bad --clock %s\n", c); exit(2); }
        } else if (!strcmp(a, "--phases") && i + 1 < argc) o->phases = parse_phases(argv[++i]);
        else if (!strcmp(a, "--ops") && i + 1 < argc) o->ops = strtoull(argv[++i], NULL, 10);
        else if (a[0] >= '0' && a[0] <= '9' && o->nsizes < 16) {
            unsigned long long n = strtoull(a, NULL, 10);
            if (n == 0 || n > 100000000ull) { fprintf(stderr, "bad N %s\n", a); exit(2); }
            o->sizes[o->nsizes++] = (uint32_t)n;
        } else { fprintf(stderr, "unknown argument %s\n", a); exit(2); }
    }
    if (o->nsizes == 0) {
        if (o->mode == 0) { o->sizes[0] = 1000; o->sizes[1] = 100000; o->sizes[2] = 10000000; o->nsizes = 3; }
        else { o->sizes[0] = 10000000; o->nsizes = 1; }
    }
    if (o->ops == 0) o->ops = 1;
    phase_clock_id = o->wall ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
    /* The cost of one reading, subtracted from every phase time. */
    uint64_t d[201];
    for (int i = 0; i < 201; i++) {
        uint64_t a = phase_now(), b = phase_now();
        d[i] = b - a;
    }
    qsort(d, 201, sizeof d[0], cmp_u64);
    phase_clock_cost = d[100];
}

static inline uint32_t reps_for(const options *o, uint32_t n) {
    uint64_t r = o->ops / n;
    return r < 1 ? 1 : r > 1000 ? 1000 : (uint32_t)r;
}

static inline const char *keys_name(const options *o) {
    return o->strings == KEYS_PATH ? "path" : o->strings == KEYS_STR ? "str" : "u64";
}

static inline void print_line(const options *o, const char *phase, uint32_t n, double ns, uint64_t checksum) {
    printf("%s %s %s %u %.3f %" PRIu64 "\n", o->impl, keys_name(o), phase, n, ns, checksum);
}

/* Tail mode: per-insert times lat[0..n) in ns -> the tail lines. */
static inline void print_tail(const options *o, uint32_t *lat, uint32_t n, uint64_t total_ns,
                              long csw, uint64_t len) {
    qsort(lat, n, sizeof *lat, cmp_u32);
    static const struct { const char *name; double q; } qs[] = {
        {"tail_p50", 0.5}, {"tail_p99", 0.99}, {"tail_p999", 0.999}, {"tail_p9999", 0.9999}};
    print_line(o, "tail_mean", n, (double)total_ns / n, len);
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        uint32_t idx = (uint32_t)(qs[i].q * n);
        if (idx >= n) idx = n - 1;
        print_line(o, qs[i].name, n, lat[idx], len);
    }
    print_line(o, "tail_max", n, lat[n - 1], len);
    print_line(o, "tail_nivcsw", n, (double)csw, len);
}

static inline void print_mem(const options *o, uint32_t n, uint64_t base, uint64_t peak, uint64_t len) {
    print_line(o, "mem_bytes_per_entry", n, (double)(peak - base) / n, len);
    print_line(o, "mem_peak_mib", n, (double)peak / (1024.0 * 1024.0), len);
}

/* ------------------------------------------------------------ the driver */

/* One implementation, as phase-level loops (one indirect call per phase,
 * never per operation). Each returns its phase's checksum and exits through
 * die() on a wrong count inside the loop. */
typedef struct {
    void *(*create)(void);
    void (*destroy)(void *map);
    uint64_t (*insert)(void *map, const workload *w);  /* length after */
    uint64_t (*hit)(void *map, const workload *w);     /* sum(k ^ value); dies unless N found */
    uint64_t (*miss)(void *map, const workload *w);    /* keys not found */
    uint64_t (*iterate)(void *map, const workload *w); /* sum of values; dies unless N seen */
    uint64_t (*del)(void *map, const workload *w);     /* keys deleted */
    /* the 2N ops of w->ups (w->s_ups): each adds one to the key's counter
     * (0 when new); NULL: no upsert phase. Returns the length after. The
     * checksum is hit's on the map it leaves (every count 2). */
    uint64_t (*upsert)(void *map, const workload *w);
    uint64_t (*length)(void *map);
    /* tail mode: the inserts of phase insert, each timed into lat[i] */
    void (*tail)(void *map, const workload *w, uint32_t *lat);
    /* optional: called once per workload before anything is timed or the
     * memory baseline taken (the C++ program builds its std::strings here) */
    void (*prepare)(const workload *w);
} impl_ops;

/* An extra lookup phase (see the top of this file): run after phase `base`
 * (1: hit, 2: miss) on the same map; its checksum must equal that phase's
 * (sum(k ^ value) over the hits; the count of misses). */
typedef struct {
    const char *name;                              /* e.g. "hit_b16" */
    int base;                                      /* 1 (hit) or 2 (miss) */
    uint64_t (*run)(void *map, const workload *w); /* the phase's checksum */
} extra_phase;

static inline int run_program_extra(const options *o, const impl_ops *ops, const extra_phase *extra, int nextra) {
    const char *prog = o->impl;
    if (o->mode == 1) { /* tail */
        uint32_t n = o->sizes[0];
        workload w;
        workload_make(&w, n, o->strings, 0);
        if (ops->prepare) ops->prepare(&w);
        uint32_t *lat = (uint32_t *)xmalloc(sizeof(uint32_t) * n);
        memset(lat, 0, sizeof(uint32_t) * n);
        void *m = ops->create();
        long csw = nivcsw();
        uint64_t t0 = now_ns();
        ops->tail(m, &w, lat);
        uint64_t total = now_ns() - t0;
        csw = nivcsw() - csw;
        uint64_t len = ops->length(m);
        if (len != n) die(prog, "tail: wrong length", n);
        print_tail(o, lat, n, total, csw, len);
        ops->destroy(m);
        free(lat);
        workload_free(&w);
        return 0;
    }
    if (o->mode == 2) { /* mem */
        uint32_t n = o->sizes[0];
        workload w;
        workload_make(&w, n, o->strings, 0);
        if (ops->prepare) ops->prepare(&w);
        uint64_t base = peak_rss();
        void *m = ops->create();
        uint64_t len = ops->insert(m, &w);
        uint64_t peak = peak_rss();
        if (len != n || ops->length(m) != n) die(prog, "mem: wrong length", n);
        print_mem(o, n, base, peak, len);
        fflush(stdout);
        ops->destroy(m);
        workload_free(&w);
        return 0;
    }
    int core = (o->phases & CORE_PHASES) != 0;
    int upsert = (o->phases >> PHASE_UPSERT & 1) && ops->upsert;
    for (int s = 0; s < o->nsizes; s++) {
        uint32_t n = o->sizes[s];
        workload w;
        workload_make(&w, n, o->strings, 1);
        if (ops->prepare) ops->prepare(&w);
        uint32_t reps = reps_for(o, n);
        /* results 0..5: PHASES; NPHASES + e: extra[e] */
        int np = NPHASES + nextra;
        uint64_t **t = (uint64_t **)xmalloc(sizeof(uint64_t *) * np);
        uint64_t *c = (uint64_t *)xmalloc(sizeof(uint64_t) * np);
        uint64_t *ck = (uint64_t *)xmalloc(sizeof(uint64_t) * np);
        memset(c, 0, sizeof(uint64_t) * np);
        memset(ck, 0, sizeof(uint64_t) * np);
        for (int p = 0; p < np; p++) t[p] = (uint64_t *)xmalloc(sizeof(uint64_t) * reps);
        for (uint32_t r = 0; r < reps; r++) {
            uint64_t t0, t1;
#define MAPS_PHASE(p, call)                                          \
    t0 = phase_now();                                                \
    c[p] = call;                                                     \
    keep(c[p]);                                                      \
    t1 = phase_now();                                                \
    t[p][r] = t1 - t0 > phase_clock_cost ? t1 - t0 - phase_clock_cost : 0;
            if (core) {
                void *m = ops->create();
                MAPS_PHASE(0, ops->insert(m, &w))
                MAPS_PHASE(1, ops->hit(m, &w))
                for (int e = 0; e < nextra; e++)
                    if (extra[e].base == 1) { MAPS_PHASE(NPHASES + e, extra[e].run(m, &w)) }
                MAPS_PHASE(2, ops->miss(m, &w))
                for (int e = 0; e < nextra; e++)
                    if (extra[e].base == 2) { MAPS_PHASE(NPHASES + e, extra[e].run(m, &w)) }
                MAPS_PHASE(3, ops->iterate(m, &w))
                MAPS_PHASE(4, ops->del(m, &w))
                if (c[0] != n) die(prog, "insert: wrong length", n);
                if (c[1] != w.want_hit) die(prog, "hit: wrong checksum", n);
                if (c[2] != n) die(prog, "miss: a miss key was found", n);
                if (c[3] != w.want_sum) die(prog, "iterate: wrong sum", n);
                if (c[4] != n || ops->length(m) != 0) die(prog, "delete: map not emptied", n);
                for (int e = 0; e < nextra; e++)
                    if (c[NPHASES + e] != (extra[e].base == 1 ? w.want_hit : (uint64_t)n)) {
                        char what[96];
                        snprintf(what, sizeof what, "%s: wrong checksum (not the %s phase's)", extra[e].name,
                                 PHASES[extra[e].base]);
                        die(prog, what, n);
                    }
                ops->destroy(m);
            }
            if (upsert) {
                void *m = ops->create();
                MAPS_PHASE(PHASE_UPSERT, ops->upsert(m, &w))
                if (c[PHASE_UPSERT] != n || ops->length(m) != n) die(prog, "upsert: wrong length", n);
                /* the checksum: hit's sum(k ^ value) over the counts, untimed */
                c[PHASE_UPSERT] = ops->hit(m, &w);
                if (c[PHASE_UPSERT] != w.want_ups) die(prog, "upsert: wrong counts", n);
                ops->destroy(m);
            }
#undef MAPS_PHASE
            for (int p = 0; p < np; p++) ck[p] = c[p];
        }
        /* in the order they ran: insert hit hit_* miss miss_* iterate delete
         * upsert; the phases asked for (an extra one with its base phase) */
        for (int p = 0; p < NPHASES; p++) {
            if (!(o->phases >> p & 1) || (p == PHASE_UPSERT && !upsert)) continue;
            uint64_t ops_n = p == PHASE_UPSERT ? 2 * (uint64_t)n : n; /* upsert: 2N ops */
            print_line(o, PHASES[p], n, median_ns(t[p], reps) / (double)ops_n, ck[p]);
            for (int e = 0; e < nextra; e++)
                if (extra[e].base == p)
                    print_line(o, extra[e].name, n, median_ns(t[NPHASES + e], reps) / n, ck[NPHASES + e]);
        }
        for (int p = 0; p < np; p++) free(t[p]);
        free(t);
        free(c);
        free(ck);
        fflush(stdout);
        workload_free(&w);
    }
    return 0;
}

static inline int run_program(const options *o, const impl_ops *ops) { return run_program_extra(o, ops, NULL, 0); }

#endif /* MAPS_COMMON_H */
