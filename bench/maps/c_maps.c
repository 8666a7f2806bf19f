/*
 * c_maps.c -- the C peers of the map benchmark: uthash (Debian uthash-dev,
 * its default Jenkins hash), stb_ds's hash maps (Debian libstb-dev) and
 * klib's khash (htslib/khash.h from Debian libhts-dev, header only).
 *
 *   --impl uthash   u64: struct { u64 key; u64 value; UT_hash_handle hh; },
 *                   one malloc per entry (uthash is intrusive; the caller
 *                   allocates), HASH_ADD / HASH_FIND / HASH_DEL.
 *                   str: one malloc per entry holding the key's bytes after
 *                   the struct, HASH_ADD_KEYPTR / HASH_FIND.
 *                   upsert: HASH_FIND, then (new key) malloc + HASH_ADD:
 *                   uthash has no get-or-insert, so a new key is hashed
 *                   twice and probed once, then linked in.
 *   --impl stb_ds   u64: struct { u64 key; u64 value; } *, hmput / hmgeti /
 *                   hmdel; str: struct { char *key; u64 value; } * with
 *                   sh_new_strdup (the map copies each key), shput / shgeti /
 *                   shdel (NUL-terminated keys).
 *                   upsert: hmgeti / shgeti, then m[i].value++ or (new key)
 *                   hmput / shput(k, 1): stb_ds has no get-or-insert either,
 *                   so a new key takes two lookups.
 *   --impl khash    khash 0.2.8 as htslib ships it (open addressing,
 *                   quadratic probing, flags in a separate bit array).
 *                   u64: KHASH_MAP_INIT_INT64 (its hash: (k>>33 ^ k ^ k<<11)
 *                   truncated to 32 bits); str: KHASH_MAP_INIT_STR, const
 *                   char * keys hashed with X31 up to the NUL; the map
 *                   holds a malloc'd copy of each key (made after kh_put
 *                   reports a new key, freed at delete and destroy).
 *                   insert: kh_put + kh_value; hit/miss: kh_get; delete:
 *                   kh_get + kh_del; iterate: over kh_begin..kh_end with
 *                   kh_exist. upsert: one kh_put, its ret flag saying
 *                   whether the key is new (value set to 0), then
 *                   kh_value(h, i)++ (one probe).
 *
 * Path keys (--keys path) take the str code of each map: the same
 * functions over the workload's longer string records.
 *
 * The workload, the modes and the output are described in common.h.
 */
#include "common.h"

#include <uthash.h>

#define STB_DS_IMPLEMENTATION
#include <stb/stb_ds.h>

#include <htslib/khash.h>

static const char *prog = "c_maps";

/* ================================================================ uthash */

typedef struct {
    uint64_t key;
    uint64_t value;
    UT_hash_handle hh;
} ut_u64;

typedef struct {
    UT_hash_handle hh;
    uint64_t value;
    uint32_t len;
    char key[]; /* len bytes and a NUL */
} ut_str;

/* The map is the head pointer; the handle points to it. */
static void *ut_create(void) {
    void **head = (void **)xmalloc(sizeof *head);
    *head = NULL;
    return head;
}

static void ut_destroy_u64(void *h) {
    ut_u64 **head = (ut_u64 **)h, *e, *tmp;
    HASH_ITER(hh, *head, e, tmp) {
        HASH_DEL(*head, e);
        free(e);
    }
    free(head);
}

static void ut_destroy_str(void *h) {
    ut_str **head = (ut_str **)h, *e, *tmp;
    HASH_ITER(hh, *head, e, tmp) {
        HASH_DEL(*head, e);
        free(e);
    }
    free(head);
}

static uint64_t ut_length_u64(void *h) { return HASH_COUNT(*(ut_u64 **)h); }
static uint64_t ut_length_str(void *h) { return HASH_COUNT(*(ut_str **)h); }

static inline void ut_add_u64(ut_u64 **head, uint64_t k, uint64_t v) {
    ut_u64 *e = (ut_u64 *)malloc(sizeof *e);
    if (!e) die(prog, "out of memory", 0);
    e->key = k;
    e->value = v;
    HASH_ADD(hh, *head, key, sizeof(uint64_t), e);
}

static uint64_t ut_insert_u64(void *h, const workload *w) {
    ut_u64 **head = (ut_u64 **)h;
    for (uint32_t i = 0; i < w->n; i++) ut_add_u64(head, w->keys[i], i + 1u);
    return HASH_COUNT(*head);
}

static void ut_tail_u64(void *h, const workload *w, uint32_t *lat) {
    ut_u64 **head = (ut_u64 **)h;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t t0 = now_ns();
        ut_add_u64(head, w->keys[i], i + 1u);
        uint64_t t1 = now_ns();
        lat[i] = (uint32_t)(t1 - t0);
    }
}

static uint64_t ut_hit_u64(void *h, const workload *w) {
    ut_u64 *head = *(ut_u64 **)h, *e;
    uint64_t sum = 0, found = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t k = w->hit[i];
        HASH_FIND(hh, head, &k, sizeof k, e);
        if (e) {
            sum += k ^ e->value;
            found++;
        }
    }
    if (found != w->n) die(prog, "uthash hit: key not found", w->n);
    return sum;
}

static uint64_t ut_miss_u64(void *h, const workload *w) {
    ut_u64 *head = *(ut_u64 **)h, *e;
    uint64_t missing = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t k = w->miss[i];
        HASH_FIND(hh, head, &k, sizeof k, e);
        missing += e == NULL;
    }
    return missing;
}

static uint64_t ut_iterate_u64(void *h, const workload *w) {
    uint64_t sum = 0, count = 0;
    for (ut_u64 *e = *(ut_u64 **)h; e; e = (ut_u64 *)e->hh.next) {
        sum += e->value;
        count++;
    }
    if (count != w->n) die(prog, "uthash iterate: wrong count", w->n);
    return sum;
}

static uint64_t ut_del_u64(void *h, const workload *w) {
    ut_u64 **head = (ut_u64 **)h, *e;
    uint64_t deleted = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t k = w->del[i];
        HASH_FIND(hh, *head, &k, sizeof k, e);
        if (e) {
            HASH_DEL(*head, e);
            free(e);
            deleted++;
        }
    }
    return deleted;
}

static uint64_t ut_upsert_u64(void *h, const workload *w) {
    ut_u64 **head = (ut_u64 **)h, *e;
    for (uint32_t j = 0; j < 2 * w->n; j++) {
        uint64_t k = w->ups[j];
        HASH_FIND(hh, *head, &k, sizeof k, e);
        if (e) e->value++;
        else ut_add_u64(head, k, 1);
    }
    return HASH_COUNT(*head);
}

static inline void ut_add_str(ut_str **head, const char *key, uint32_t len, uint64_t v) {
    ut_str *e = (ut_str *)malloc(sizeof *e + len + 1);
    if (!e) die(prog, "out of memory", 0);
    e->value = v;
    e->len = len;
    memcpy(e->key, key, len + 1);
    HASH_ADD_KEYPTR(hh, *head, e->key, len, e);
}

static uint64_t ut_insert_str(void *h, const workload *w) {
    ut_str **head = (ut_str **)h;
    for (uint32_t i = 0; i < w->n; i++)
        ut_add_str(head, w->s_keys + w->stride * i, w->l_keys[i], i + 1u);
    return HASH_COUNT(*head);
}

static void ut_tail_str(void *h, const workload *w, uint32_t *lat) {
    ut_str **head = (ut_str **)h;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t t0 = now_ns();
        ut_add_str(head, w->s_keys + w->stride * i, w->l_keys[i], i + 1u);
        uint64_t t1 = now_ns();
        lat[i] = (uint32_t)(t1 - t0);
    }
}

static uint64_t ut_hit_str(void *h, const workload *w) {
    ut_str *head = *(ut_str **)h, *e;
    uint64_t sum = 0, found = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        HASH_FIND(hh, head, w->s_hit + w->stride * i, w->l_hit[i], e);
        if (e) {
            sum += w->hit[i] ^ e->value;
            found++;
        }
    }
    if (found != w->n) die(prog, "uthash hit: key not found", w->n);
    return sum;
}

static uint64_t ut_miss_str(void *h, const workload *w) {
    ut_str *head = *(ut_str **)h, *e;
    uint64_t missing = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        HASH_FIND(hh, head, w->s_miss + w->stride * i, w->l_miss[i], e);
        missing += e == NULL;
    }
    return missing;
}

static uint64_t ut_iterate_str(void *h, const workload *w) {
    uint64_t sum = 0, count = 0;
    for (ut_str *e = *(ut_str **)h; e; e = (ut_str *)e->hh.next) {
        sum += e->value;
        count++;
    }
    if (count != w->n) die(prog, "uthash iterate: wrong count", w->n);
    return sum;
}

static uint64_t ut_del_str(void *h, const workload *w) {
    ut_str **head = (ut_str **)h, *e;
    uint64_t deleted = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        HASH_FIND(hh, *head, w->s_del + w->stride * i, w->l_del[i], e);
        if (e) {
            HASH_DEL(*head, e);
            free(e);
            deleted++;
        }
    }
    return deleted;
}

static uint64_t ut_upsert_str(void *h, const workload *w) {
    ut_str **head = (ut_str **)h, *e;
    for (uint32_t j = 0; j < 2 * w->n; j++) {
        const char *k = w->s_ups + w->stride * j;
        HASH_FIND(hh, *head, k, w->l_ups[j], e);
        if (e) e->value++;
        else ut_add_str(head, k, w->l_ups[j], 1);
    }
    return HASH_COUNT(*head);
}

/* ================================================================ stb_ds */

typedef struct {
    uint64_t key;
    uint64_t value;
} stb_u64;

typedef struct {
    char *key;
    uint64_t value;
} stb_str;

static void *stb_create_u64(void) {
    stb_u64 **m = (stb_u64 **)xmalloc(sizeof *m);
    *m = NULL;
    return m;
}

static void *stb_create_str(void) {
    stb_str **m = (stb_str **)xmalloc(sizeof *m);
    *m = NULL;
    sh_new_strdup(*m); /* the map keeps its own copy of every key */
    return m;
}

static void stb_destroy_u64(void *h) {
    hmfree(*(stb_u64 **)h);
    free(h);
}

static void stb_destroy_str(void *h) {
    shfree(*(stb_str **)h);
    free(h);
}

static uint64_t stb_length_u64(void *h) { return (uint64_t)hmlen(*(stb_u64 **)h); }
static uint64_t stb_length_str(void *h) { return (uint64_t)shlen(*(stb_str **)h); }

static uint64_t stb_insert_u64(void *h, const workload *w) {
    stb_u64 *m = *(stb_u64 **)h;
    for (uint32_t i = 0; i < w->n; i++) hmput(m, w->keys[i], (uint64_t)i + 1u);
    *(stb_u64 **)h = m;
    return (uint64_t)hmlen(m);
}

static void stb_tail_u64(void *h, const workload *w, uint32_t *lat) {
    stb_u64 *m = *(stb_u64 **)h;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t t0 = now_ns();
        hmput(m, w->keys[i], (uint64_t)i + 1u);
        uint64_t t1 = now_ns();
        lat[i] = (uint32_t)(t1 - t0);
    }
    *(stb_u64 **)h = m;
}

static uint64_t stb_hit_u64(void *h, const workload *w) {
    stb_u64 *m = *(stb_u64 **)h;
    uint64_t sum = 0, found = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        ptrdiff_t j = hmgeti(m, w->hit[i]);
        if (j >= 0) {
            sum += w->hit[i] ^ m[j].value;
            found++;
        }
    }
    *(stb_u64 **)h = m;
    if (found != w->n) die(prog, "stb_ds hit: key not found", w->n);
    return sum;
}

static uint64_t stb_miss_u64(void *h, const workload *w) {
    stb_u64 *m = *(stb_u64 **)h;
    uint64_t missing = 0;
    for (uint32_t i = 0; i < w->n; i++) missing += hmgeti(m, w->miss[i]) < 0;
    *(stb_u64 **)h = m;
    return missing;
}

static uint64_t stb_iterate_u64(void *h, const workload *w) {
    stb_u64 *m = *(stb_u64 **)h;
    uint64_t sum = 0;
    ptrdiff_t len = hmlen(m);
    for (ptrdiff_t i = 0; i < len; i++) sum += m[i].value;
    if ((uint64_t)len != w->n) die(prog, "stb_ds iterate: wrong count", w->n);
    return sum;
}

static uint64_t stb_del_u64(void *h, const workload *w) {
    stb_u64 *m = *(stb_u64 **)h;
    uint64_t deleted = 0;
    for (uint32_t i = 0; i < w->n; i++) deleted += (uint64_t)hmdel(m, w->del[i]);
    *(stb_u64 **)h = m;
    return deleted;
}

static uint64_t stb_upsert_u64(void *h, const workload *w) {
    stb_u64 *m = *(stb_u64 **)h;
    for (uint32_t j = 0; j < 2 * w->n; j++) {
        ptrdiff_t i = hmgeti(m, w->ups[j]);
        if (i >= 0) m[i].value++;
        else hmput(m, w->ups[j], 1);
    }
    *(stb_u64 **)h = m;
    return (uint64_t)hmlen(m);
}

static uint64_t stb_insert_str(void *h, const workload *w) {
    stb_str *m = *(stb_str **)h;
    for (uint32_t i = 0; i < w->n; i++) shput(m, w->s_keys + w->stride * i, (uint64_t)i + 1u);
    *(stb_str **)h = m;
    return (uint64_t)shlen(m);
}

static void stb_tail_str(void *h, const workload *w, uint32_t *lat) {
    stb_str *m = *(stb_str **)h;
    for (uint32_t i = 0; i < w->n; i++) {
        uint64_t t0 = now_ns();
        shput(m, w->s_keys + w->stride * i, (uint64_t)i + 1u);
        uint64_t t1 = now_ns();
        lat[i] = (uint32_t)(t1 - t0);
    }
    *(stb_str **)h = m;
}

static uint64_t stb_hit_str(void *h, const workload *w) {
    stb_str *m = *(stb_str **)h;
    uint64_t sum = 0, found = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        ptrdiff_t j = shgeti(m, w->s_hit + w->stride * i);
        if (j >= 0) {
            sum += w->hit[i] ^ m[j].value;
            found++;
        }
    }
    *(stb_str **)h = m;
    if (found != w->n) die(prog, "stb_ds hit: key not found", w->n);
    return sum;
}

static uint64_t stb_miss_str(void *h, const workload *w) {
    stb_str *m = *(stb_str **)h;
    uint64_t missing = 0;
    for (uint32_t i = 0; i < w->n; i++) missing += shgeti(m, w->s_miss + w->stride * i) < 0;
    *(stb_str **)h = m;
    return missing;
}

static uint64_t stb_iterate_str(void *h, const workload *w) {
    stb_str *m = *(stb_str **)h;
    uint64_t sum = 0;
    ptrdiff_t len = shlen(m);
    for (ptrdiff_t i = 0; i < len; i++) sum += m[i].value;
    if ((uint64_t)len != w->n) die(prog, "stb_ds iterate: wrong count", w->n);
    return sum;
}

static uint64_t stb_del_str(void *h, const workload *w) {
    stb_str *m = *(stb_str **)h;
    uint64_t deleted = 0;
    for (uint32_t i = 0; i < w->n; i++) deleted += (uint64_t)shdel(m, w->s_del + w->stride * i);
    *(stb_str **)h = m;
    return deleted;
}

static uint64_t stb_upsert_str(void *h, const workload *w) {
    stb_str *m = *(stb_str **)h;
    for (uint32_t j = 0; j < 2 * w->n; j++) {
        char *k = w->s_ups + w->stride * j;
        ptrdiff_t i = shgeti(m, k);
        if (i >= 0) m[i].value++;
        else shput(m, k, 1);
    }
    *(stb_str **)h = m;
    return (uint64_t)shlen(m);
}

/* ================================================================= khash */

KHASH_MAP_INIT_INT64(kh64, uint64_t)
KHASH_MAP_INIT_STR(khstr, uint64_t)

/* Key i of workload array a (keys, hit, miss, del, ups) as each map takes
 * it, and its length (strings only). */
#define KH64_KEY(w, a, i) ((w)->a[i])
#define KH64_LEN(w, a, i) 0u
#define KHSTR_KEY(w, a, i) ((const char *)(w)->s_##a + (w)->stride * (i))
#define KHSTR_LEN(w, a, i) ((uint32_t)(w)->l_##a[i])

/* kh_put; *ret as kh_put's (0: present, 1 or 2: new). A new string key is
 * stored as the map's own copy (len bytes and the NUL), made after kh_put
 * reports it new; *_free_key frees it again. */
static inline khint_t kh64_put(khash_t(kh64) *h, uint64_t key, uint32_t len, int *ret, uint32_t n) {
    (void)len;
    khint_t i = kh_put(kh64, h, key, ret);
    if (*ret < 0) die(prog, "kh_put failed", n);
    return i;
}

static inline khint_t khstr_put(khash_t(khstr) *h, const char *key, uint32_t len, int *ret, uint32_t n) {
    khint_t i = kh_put(khstr, h, key, ret);
    if (*ret < 0) die(prog, "kh_put failed", n);
    if (*ret) {
        char *copy = (char *)malloc(len + 1);
        if (!copy) die(prog, "out of memory", n);
        memcpy(copy, key, len + 1);
        kh_key(h, i) = copy;
    }
    return i;
}

static inline void kh64_free_key(khash_t(kh64) *h, khint_t i) { (void)h, (void)i; }
static inline void khstr_free_key(khash_t(khstr) *h, khint_t i) { free((char *)kh_key(h, i)); }

/* The phase functions of map `name` (kh64, khstr). */
#define KH_IMPL(name, KEY, LEN)                                                                  \
    static void *name##_create(void) { return kh_init(name); }                                   \
    static void name##_destroy(void *hp) {                                                       \
        khash_t(name) *h = (khash_t(name) *)hp;                                                  \
        for (khint_t i = kh_begin(h); i != kh_end(h); ++i)                                       \
            if (kh_exist(h, i)) name##_free_key(h, i);                                           \
        kh_destroy(name, h);                                                                     \
    }                                                                                            \
    static uint64_t name##_length(void *h) { return kh_size((khash_t(name) *)h); }               \
    static inline void name##_add(khash_t(name) *h, const workload *w, uint32_t i) {             \
        int ret;                                                                                 \
        khint_t it = name##_put(h, KEY(w, keys, i), LEN(w, keys, i), &ret, w->n);                \
        kh_value(h, it) = i + 1u;                                                                \
    }                                                                                            \
    static uint64_t name##_insert(void *hp, const workload *w) {                                 \
        khash_t(name) *h = (khash_t(name) *)hp;                                                  \
        for (uint32_t i = 0; i < w->n; i++) name##_add(h, w, i);                                 \
        return kh_size(h);                                                                       \
    }                                                                                            \
    static void name##_tail(void *hp, const workload *w, uint32_t *lat) {                        \
        khash_t(name) *h = (khash_t(name) *)hp;                                                  \
        for (uint32_t i = 0; i < w->n; i++) {                                                    \
            uint64_t t0 = now_ns();                                                              \
            name##_add(h, w, i);                                                                 \
            uint64_t t1 = now_ns();                                                              \
            lat[i] = (uint32_t)(t1 - t0);                                                        \
        }                                                                                        \
    }                                                                                            \
    static uint64_t name##_hit(void *hp, const workload *w) {                                    \
        khash_t(name) *h = (khash_t(name) *)hp;                                                  \
        uint64_t sum = 0, found = 0;                                                             \
        for (uint32_t i = 0; i < w->n; i++) {                                                    \
            khint_t it = kh_get(name, h, KEY(w, hit, i));                                        \
            if (it != kh_end(h)) {                                                               \
                sum += w->hit[i] ^ kh_value(h, it);                                              \
                found++;                                                                         \
            }                                                                                    \
        }                                                                                        \
        if (found != w->n) die(prog, "khash hit: key not found", w->n);                          \
        return sum;                                                                              \
    }                                                                                            \
    static uint64_t name##_miss(void *hp, const workload *w) {                                   \
        khash_t(name) *h = (khash_t(name) *)hp;                                                  \
        uint64_t missing = 0;                                                                    \
        for (uint32_t i = 0; i < w->n; i++) missing += kh_get(name, h, KEY(w, miss, i)) == kh_end(h); \
        return missing;                                                                          \
    }                                                                                            \
    static uint64_t name##_iterate(void *hp, const workload *w) {                                \
        khash_t(name) *h = (khash_t(name) *)hp;                                                  \
        uint64_t sum = 0, count = 0;                                                             \
        for (khint_t i = kh_begin(h); i != kh_end(h); ++i)                                       \
            if (kh_exist(h, i)) {                                                                \
                sum += kh_value(h, i);                                                           \
                count++;                                                                         \
            }                                                                                    \
        if (count != w->n) die(prog, "khash iterate: wrong count", w->n);                        \
        return sum;                                                                              \
    }                                                                                            \
    static uint64_t name##_del(void *hp, const workload *w) {                                    \
        khash_t(name) *h = (khash_t(name) *)hp;                                                  \
        uint64_t deleted = 0;                                                                    \
        for (uint32_t i = 0; i < w->n; i++) {                                                    \
            khint_t it = kh_get(name, h, KEY(w, del, i));                                        \
            if (it != kh_end(h)) {                                                               \
                name##_free_key(h, it);                                                          \
                kh_del(name, h, it);                                                             \
                deleted++;                                                                       \
            }                                                                                    \
        }                                                                                        \
        return deleted;                                                                          \
    }                                                                                            \
    /* one kh_put; a new key's count starts at 0 */                                              \
    static uint64_t name##_upsert(void *hp, const workload *w) {                                 \
        khash_t(name) *h = (khash_t(name) *)hp;                                                  \
        for (uint32_t j = 0; j < 2 * w->n; j++) {                                                \
            int ret;                                                                             \
            khint_t it = name##_put(h, KEY(w, ups, j), LEN(w, ups, j), &ret, w->n);              \
            if (ret) kh_value(h, it) = 0;                                                        \
            kh_value(h, it)++;                                                                   \
        }                                                                                        \
        return kh_size(h);                                                                       \
    }

KH_IMPL(kh64, KH64_KEY, KH64_LEN)
KH_IMPL(khstr, KHSTR_KEY, KHSTR_LEN)

int main(int argc, char **argv) {
    options o;
    parse_options(&o, argc, argv, "uthash");
    impl_ops ops;
    if (!strcmp(o.impl, "uthash")) {
        impl_ops u64 = {ut_create, ut_destroy_u64, ut_insert_u64, ut_hit_u64, ut_miss_u64,
                        ut_iterate_u64, ut_del_u64, ut_upsert_u64, ut_length_u64, ut_tail_u64, NULL};
        impl_ops str = {ut_create, ut_destroy_str, ut_insert_str, ut_hit_str, ut_miss_str,
                        ut_iterate_str, ut_del_str, ut_upsert_str, ut_length_str, ut_tail_str, NULL};
        ops = o.strings ? str : u64;
    } else if (!strcmp(o.impl, "stb_ds")) {
        impl_ops u64 = {stb_create_u64, stb_destroy_u64, stb_insert_u64, stb_hit_u64, stb_miss_u64,
                        stb_iterate_u64, stb_del_u64, stb_upsert_u64, stb_length_u64, stb_tail_u64, NULL};
        impl_ops str = {stb_create_str, stb_destroy_str, stb_insert_str, stb_hit_str, stb_miss_str,
                        stb_iterate_str, stb_del_str, stb_upsert_str, stb_length_str, stb_tail_str, NULL};
        ops = o.strings ? str : u64;
    } else if (!strcmp(o.impl, "khash")) {
        impl_ops u64 = {kh64_create, kh64_destroy, kh64_insert, kh64_hit, kh64_miss,
                        kh64_iterate, kh64_del, kh64_upsert, kh64_length, kh64_tail, NULL};
        impl_ops str = {khstr_create, khstr_destroy, khstr_insert, khstr_hit, khstr_miss,
                        khstr_iterate, khstr_del, khstr_upsert, khstr_length, khstr_tail, NULL};
        ops = o.strings ? str : u64;
    } else {
        fprintf(stderr, "%s: unknown --impl %s (uthash, stb_ds, khash)\n", prog, o.impl);
        return 2;
    }
    return run_program(&o, &ops);
}
