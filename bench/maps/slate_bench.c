/*
 * slate_bench.c -- slate-rs through its C API, as a user would call it:
 * plain C11 linked against target/release/libslate.a (or, for the
 * cross-language-LTO variant, against an LTO build of it with clang).
 *
 * u64 keys: slate_set_u64 / slate_get_u64 / slate_delete_u64.
 * String keys: slate_set_bytes / slate_get_bytes / slate_delete_bytes with
 * the known lengths (no strlen in the library).
 * Values: the integer in the pointer, (void*)(uintptr_t)v.
 * Iteration: slate_each with a callback summing the values.
 *
 * The workload, the modes and the output are described in common.h.
 * Usage: slate_bench [--impl NAME] [--keys u64|str] [--mode bench|tail|mem]
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
        if (slate_set_bytes(m, w->s_keys + (size_t)KEY_STRIDE * i, w->l_keys[i], VAL(i + 1u)) != SLATE_OK)
            die(PROG, "slate_set_bytes failed", w->n);
    return slate_length(m);
}

static uint64_t hit_str(void *mp, const workload *w) {
    const slate_s *m = (const slate_s *)mp;
    uint64_t sum = 0, found = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        void *v;
        if (slate_get_bytes(m, w->s_hit + (size_t)KEY_STRIDE * i, w->l_hit[i], &v) == SLATE_OK) {
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
        missing += slate_get_bytes(m, w->s_miss + (size_t)KEY_STRIDE * i, w->l_miss[i], NULL) == SLATE_ERROR_NOT_FOUND;
    return missing;
}

static uint64_t del_str(void *mp, const workload *w) {
    slate_s *m = (slate_s *)mp;
    uint64_t deleted = 0;
    for (uint32_t i = 0; i < w->n; i++)
        deleted += slate_delete_bytes(m, w->s_del + (size_t)KEY_STRIDE * i, w->l_del[i]) == SLATE_OK;
    return deleted;
}

static void tail_str(void *mp, const workload *w, uint32_t *lat) {
    slate_s *m = (slate_s *)mp;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t t0 = now_ns();
        int rc = slate_set_bytes(m, w->s_keys + (size_t)KEY_STRIDE * i, w->l_keys[i], VAL(i + 1u));
        uint64_t t1 = now_ns();
        if (rc != SLATE_OK) die(PROG, "slate_set_bytes failed", w->n);
        lat[i] = (uint32_t)(t1 - t0);
    }
}

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
    impl_ops ops = {create, destroy, insert_u64, hit_u64, miss_u64, iterate, del_u64, length, tail_u64, NULL};
    if (o.strings) {
        ops.insert = insert_str;
        ops.hit = hit_str;
        ops.miss = miss_str;
        ops.del = del_str;
        ops.tail = tail_str;
    }
    return run_program(&o, &ops);
}
