/*
 * slate_bench.c -- slate-rs through its C API, as a user would call it:
 * plain C11 linked against target/release/libslate.a (or, for the
 * cross-language-LTO variant, against an LTO build of it with clang).
 *
 * u64 keys: slate_set_u64 / slate_get_u64 / slate_delete_u64.
 * String keys (str and path, one code for both): slate_set_bytes /
 * slate_get_bytes / slate_delete_bytes with the known lengths (no strlen in
 * the library).
 * Values: the integer in the pointer, (void*)(uintptr_t)v.
 * Iteration: slate_each with a callback summing the values.
 * Upsert: slate_entry_u64 / slate_entry_bytes (one hash, one probe), the
 * value a counter in the pointer: *v = (void*)((uintptr_t)*v + 1).
 *
 * Batch lookups (extra phases, see common.h): hit_b16, hit_b64, hit_b256,
 * miss_b16, miss_b64, miss_b256 repeat the hit and miss phases with the
 * same keys in the same shuffled order, B keys per call:
 * slate_get_many_u64 for u64 keys, slate_get_many_bytes with the same
 * bytes and lengths for string keys (the single phases' slate_get_bytes);
 * misses pass values = NULL, as the single miss phase does. After each
 * call the caller consumes the results as the single phases do: the sum of
 * k ^ value over the found keys (and their count), the count of misses;
 * the checksums are those of hit and miss. The string batches' key
 * pointer and uint32_t length arrays are built before anything is timed,
 * as the shuffled key arrays are.
 *
 * The workload, the modes and the output are described in common.h.
 * Usage: slate_bench [--impl NAME] [--keys u64|str|path] [--mode bench|tail|mem]
 *                    [--ops K] [N ...]
 */
#include "common.h"

#include "slate.h"

#define PROG "slate_bench"
#define VAL(v) ((void *)(uintptr_t)(v))

static void *create(void) {
    slate_s *m = (slate_s *)xmalloc(sizeof *m);
    if (slate(m) != SLATE_OK) die(PROG, "slate() failed", 0);
    return m;
}

static void destroy(void *m) {
    slate_free((slate_s *)m);
    free(m);
}

static uint64_t length(void *m) { return slate_length((slate_s *)m); }

/* ------------------------------------------------------------- u64 keys */

static uint64_t insert_u64(void *mp, const workload *w) {
    slate_s *m = (slate_s *)mp;
    for (uint32_t i = 0; i < w->n; i++)
        if (slate_set_u64(m, w->keys[i], VAL(i + 1u)) != SLATE_OK) die(PROG, "slate_set_u64 failed", w->n);
    return slate_length(m);
}

static uint64_t hit_u64(void *mp, const workload *w) {
    const slate_s *m = (const slate_s *)mp;
    uint64_t sum = 0, found = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        void *v;
        if (slate_get_u64(m, w->hit[i], &v) == SLATE_OK) {
            sum += w->hit[i] ^ (uintptr_t)v;
            found++;
        }
    }
    if (found != w->n) die(PROG, "hit: key not found", w->n);
    return sum;
}

static uint64_t miss_u64(void *mp, const workload *w) {
    const slate_s *m = (const slate_s *)mp;
    uint64_t missing = 0;
    for (uint32_t i = 0; i < w->n; i++) missing += slate_get_u64(m, w->miss[i], NULL) == SLATE_ERROR_NOT_FOUND;
    return missing;
}

static uint64_t del_u64(void *mp, const workload *w) {
    slate_s *m = (slate_s *)mp;
    uint64_t deleted = 0;
    for (uint32_t i = 0; i < w->n; i++) deleted += slate_delete_u64(m, w->del[i]) == SLATE_OK;
    return deleted;
}

static uint64_t upsert_u64(void *mp, const workload *w) {
    slate_s *m = (slate_s *)mp;
    for (uint32_t j = 0; j < 2 * w->n; j++) {
        void **v;
        if (slate_entry_u64(m, w->ups[j], &v, NULL) != SLATE_OK) die(PROG, "slate_entry_u64 failed", w->n);
        *v = (void *)((uintptr_t)*v + 1);
    }
    return slate_length(m);
}

static void tail_u64(void *mp, const workload *w, uint32_t *lat) {
    slate_s *m = (slate_s *)mp;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t t0 = now_ns();
        int rc = slate_set_u64(m, w->keys[i], VAL(i + 1u));
        uint64_t t1 = now_ns();
        if (rc != SLATE_OK) die(PROG, "slate_set_u64 failed", w->n);
        lat[i] = (uint32_t)(t1 - t0);
    }
}

/* ---------------------------------------------------------- string keys */

static uint64_t insert_str(void *mp, const workload *w) {
    slate_s *m = (slate_s *)mp;
    for (uint32_t i = 0; i < w->n; i++)
        if (slate_set_bytes(m, w->s_keys + w->stride * i, w->l_keys[i], VAL(i + 1u)) != SLATE_OK)
            die(PROG, "slate_set_bytes failed", w->n);
    return slate_length(m);
}

static uint64_t hit_str(void *mp, const workload *w) {
    const slate_s *m = (const slate_s *)mp;
    uint64_t sum = 0, found = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        void *v;
        if (slate_get_bytes(m, w->s_hit + w->stride * i, w->l_hit[i], &v) == SLATE_OK) {
            sum += w->hit[i] ^ (uintptr_t)v;
            found++;
        }
    }
    if (found != w->n) die(PROG, "hit: key not found", w->n);
    return sum;
}

static uint64_t miss_str(void *mp, const workload *w) {
    const slate_s *m = (const slate_s *)mp;
    uint64_t missing = 0;
    for (uint32_t i = 0; i < w->n; i++)
        missing += slate_get_bytes(m, w->s_miss + w->stride * i, w->l_miss[i], NULL) == SLATE_ERROR_NOT_FOUND;
    return missing;
}

static uint64_t del_str(void *mp, const workload *w) {
    slate_s *m = (slate_s *)mp;
    uint64_t deleted = 0;
    for (uint32_t i = 0; i < w->n; i++)
        deleted += slate_delete_bytes(m, w->s_del + w->stride * i, w->l_del[i]) == SLATE_OK;
    return deleted;
}

static uint64_t upsert_str(void *mp, const workload *w) {
    slate_s *m = (slate_s *)mp;
    for (uint32_t j = 0; j < 2 * w->n; j++) {
        void **v;
        if (slate_entry_bytes(m, w->s_ups + w->stride * j, w->l_ups[j], &v, NULL) != SLATE_OK)
            die(PROG, "slate_entry_bytes failed", w->n);
        *v = (void *)((uintptr_t)*v + 1);
    }
    return slate_length(m);
}

static void tail_str(void *mp, const workload *w, uint32_t *lat) {
    slate_s *m = (slate_s *)mp;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t t0 = now_ns();
        int rc = slate_set_bytes(m, w->s_keys + w->stride * i, w->l_keys[i], VAL(i + 1u));
        uint64_t t1 = now_ns();
        if (rc != SLATE_OK) die(PROG, "slate_set_bytes failed", w->n);
        lat[i] = (uint32_t)(t1 - t0);
    }
}

/* -------------------------------------------------------- batch lookups */

#define BATCH_MAX 256

/* The string keys of hit and miss as slate_get_many_bytes takes them: one
 * pointer and one uint32_t length per key (built by prepare_many, before
 * anything is timed). */
static struct {
    const void **hit, **miss;
    uint32_t *l_hit, *l_miss;
} g_many;

static void prepare_many(const workload *w) {
    free(g_many.hit); free(g_many.miss); free(g_many.l_hit); free(g_many.l_miss);
    memset(&g_many, 0, sizeof g_many);
    if (!w->s_hit || !w->s_miss) return; /* tail and mem modes: no lookups */
    g_many.hit = (const void **)xmalloc(sizeof(void *) * w->n);
    g_many.miss = (const void **)xmalloc(sizeof(void *) * w->n);
    g_many.l_hit = (uint32_t *)xmalloc(sizeof(uint32_t) * w->n);
    g_many.l_miss = (uint32_t *)xmalloc(sizeof(uint32_t) * w->n);
    for (uint32_t i = 0; i < w->n; i++) {
        g_many.hit[i] = w->s_hit + w->stride * i;
        g_many.miss[i] = w->s_miss + w->stride * i;
        g_many.l_hit[i] = w->l_hit[i];
        g_many.l_miss[i] = w->l_miss[i];
    }
}

/* One phase of batch lookups, `batch` keys per call; strings: the _bytes
 * call, else the u64 one. Hits: sum(k ^ value), dies unless all N found;
 * misses: the count of keys not found. Inlined into each wrapper below
 * with a constant batch size and key type. */
static inline uint64_t hit_many(const slate_s *m, const workload *w, uint32_t batch, int strings) {
    void *values[BATCH_MAX];
    uint8_t found[BATCH_MAX];
    uint64_t sum = 0, nfound = 0;
    for (uint32_t i = 0; i < w->n; i += batch) {
        uint32_t c = w->n - i < batch ? w->n - i : batch;
        int rc = strings ? slate_get_many_bytes(m, g_many.hit + i, g_many.l_hit + i, c, values, found)
                         : slate_get_many_u64(m, w->hit + i, c, values, found);
        if (rc != SLATE_OK) die(PROG, "slate_get_many failed", w->n);
        for (uint32_t j = 0; j < c; j++)
            if (found[j]) {
                sum += w->hit[i + j] ^ (uintptr_t)values[j];
                nfound++;
            }
    }
    if (nfound != w->n) die(PROG, "hit (batch): key not found", w->n);
    return sum;
}

static inline uint64_t miss_many(const slate_s *m, const workload *w, uint32_t batch, int strings) {
    uint8_t found[BATCH_MAX];
    uint64_t missing = 0;
    for (uint32_t i = 0; i < w->n; i += batch) {
        uint32_t c = w->n - i < batch ? w->n - i : batch;
        int rc = strings ? slate_get_many_bytes(m, g_many.miss + i, g_many.l_miss + i, c, NULL, found)
                         : slate_get_many_u64(m, w->miss + i, c, NULL, found);
        if (rc != SLATE_OK) die(PROG, "slate_get_many failed", w->n);
        for (uint32_t j = 0; j < c; j++) missing += !found[j];
    }
    return missing;
}

#define MANY(B)                                                                                              \
    static uint64_t hit_u64_b##B(void *m, const workload *w) { return hit_many((const slate_s *)m, w, B, 0); }   \
    static uint64_t miss_u64_b##B(void *m, const workload *w) { return miss_many((const slate_s *)m, w, B, 0); } \
    static uint64_t hit_str_b##B(void *m, const workload *w) { return hit_many((const slate_s *)m, w, B, 1); }   \
    static uint64_t miss_str_b##B(void *m, const workload *w) { return miss_many((const slate_s *)m, w, B, 1); }
MANY(16)
MANY(64)
MANY(256)
#undef MANY

static const extra_phase batch_u64[6] = {
    {"hit_b16", 1, hit_u64_b16},    {"hit_b64", 1, hit_u64_b64},    {"hit_b256", 1, hit_u64_b256},
    {"miss_b16", 2, miss_u64_b16}, {"miss_b64", 2, miss_u64_b64}, {"miss_b256", 2, miss_u64_b256},
};
static const extra_phase batch_str[6] = {
    {"hit_b16", 1, hit_str_b16},    {"hit_b64", 1, hit_str_b64},    {"hit_b256", 1, hit_str_b256},
    {"miss_b16", 2, miss_str_b16}, {"miss_b64", 2, miss_str_b64}, {"miss_b256", 2, miss_str_b256},
};

/* ------------------------------------------------------------ iteration */

typedef struct {
    uint64_t sum, count;
} acc;

static int sum_value(const char *key, uint32_t key_length, void *value, void *data) {
    (void)key;
    (void)key_length;
    acc *a = (acc *)data;
    a->sum += (uintptr_t)value;
    a->count++;
    return 0;
}

static uint64_t iterate(void *mp, const workload *w) {
    acc a = {0, 0};
    if (slate_each((const slate_s *)mp, sum_value, &a) != SLATE_OK) die(PROG, "slate_each failed", w->n);
    if (a.count != w->n) die(PROG, "iterate: wrong count", w->n);
    return a.sum;
}

int main(int argc, char **argv) {
    options o;
    parse_options(&o, argc, argv, "slate");
    impl_ops ops = {create, destroy, insert_u64, hit_u64, miss_u64, iterate, del_u64, upsert_u64, length, tail_u64, NULL};
    if (o.strings) {
        ops.insert = insert_str;
        ops.hit = hit_str;
        ops.miss = miss_str;
        ops.del = del_str;
        ops.upsert = upsert_str;
        ops.tail = tail_str;
        ops.prepare = prepare_many;
    }
    return run_program_extra(&o, &ops, o.strings ? batch_str : batch_u64, 6);
}
