/*
 * snapshot_slate.c -- slate-rs snapshots through the C ABI (plain C11,
 * linked against target/release/libslate.a), with the baselines they are
 * judged against: memcpy of the snapshot's byte count, and for maps a
 * slate_each walk that copies every key and value into a buffer and
 * slate_reserve(n) plus n inserts into a fresh map. run.sh runs it
 * interleaved with the Rust (slotmap + serde + bincode 2) and Go
 * (encoding/gob) programs and prints the tables.
 *
 * Workloads (N = the structure's keys before any churn):
 *   slotmap-r16-fresh   N inserts of 16-byte rows, one column (elem16)
 *   slotmap-r64-fresh   N inserts of 64-byte rows, three columns of 16,
 *                       16 and 32 bytes (row64)
 *   slotmap-r16-churn,  the same, then 20% churn: the rows of N/5 keys
 *   slotmap-r64-churn   erased (the first N/5 of a shuffle, seed
 *                       SEED_CHURN), then N/10 rows inserted: 0.9 N rows in
 *                       N slots, half the freed slots reused at their next
 *                       generation, half on the free list
 *   set-c16             a sparse set of a 16-byte column holding every key
 *                       of an N-row slotmap, added in a shuffled order
 *                       (seed SEED_SET)
 *   set-member          the same keys in a membership set (no column)
 *   map-u64-int         N u64 keys (splitmix64 from 42), values i + 1
 *                       saved as integers (NULL codec)
 *   map-u64-codec       the same keys, values 16-byte records saved
 *                       through a codec (encode copies the 16 bytes;
 *                       decode copies them into an arena and returns the
 *                       pointer)
 *   map-words-int, map-words-codec, map-paths-int, map-paths-codec
 *                       the first N lines of words.txt / paths.txt (keygen.c)
 * Row i (the i-th insert) and value i are common.h's make_elem,
 * make_row64 and make_value16.
 *
 * Operations (each workload's take turns; common.h's run_ops):
 *   save     the structure's *_save through slate_buffer_write into a
 *            buffer of the snapshot's size, allocated and touched before
 *   load     *_load of the snapshot into a fresh structure (the load's
 *            allocations and its validation included; the free after it
 *            is not timed)
 *   memcpy   memcpy of the snapshot's bytes into a touched buffer
 *   walk     (maps) slate_each, each entry's key length, key bytes and
 *            value (8 bytes; codec: a length and the 16 bytes) copied
 *            into a touched buffer: the snapshot's records, nothing else
 *   insert   (maps) slate(), slate_reserve(n), then n slate_set_u64 /
 *            slate_set_bytes of the same keys and values (codec: the 16
 *            bytes copied into an arena first, as decode does)
 *   size     no timing: the snapshot's bytes and the bound on
 *            them (slotmap: rows' bytes + 8/slot + 32/column + 192; map
 *            with integer values: keys' bytes as saved, an integer key's
 *            10-byte encoding, + 12/entry + 112; 0: no bound)
 * Output, one line each: slate <workload> <op> <N> <count> <ns> <bytes>
 * (count: rows, set keys or entries; ns: median of the timed runs; bytes:
 * the snapshot's), and for size: slate <workload> size <N> <count>
 * <bytes> <bound>.
 *
 * Checks: every save's length (and on the warm-up run its bytes against
 * the first save's); every load's return code and length, and on the
 * warm-up run the loaded structure in full: its checker, every row,
 * key and stale key of a slotmap (and the key its next insert issues),
 * every key and row of a set, every key's value in a map, and a second
 * save of a loaded slotmap or set giving the loaded bytes again; every
 * walk's byte count; every insert run's length. Any failure prints to
 * stderr and exits 1.
 *
 * Usage: snapshot_slate [--keys DIR] [--clock cpu|wall] [--budget-ms MS]
 *                       [--min-reps K] [--max-reps K] [--workloads W,W,...]
 *                       [--name LABEL] N ...
 */
#include "common.h"
#include "slate.h"

static const char *impl = "slate";
static const char *key_dir = ".";

static void fail(const char *what, uint64_t n) { die("snapshot_slate", what, n); }

/* ------------------------------------------------------------- slotmaps */

typedef struct {
    uint64_t n;
    uint32_t ncols, row_size;
    uint32_t sizes[3];
    slotmap_s sm;
    uint64_t *stale; /* keys erased by the churn */
    uint32_t nstale;
    uint8_t *snap; /* the snapshot */
    uint64_t size;
    uint8_t *out, *dst; /* the save's and memcpy's buffers */
} sm_ctx;

static void sm_insert_row(sm_ctx *c, uint64_t i, slotmap_key *key) {
    int rc;
    if (c->ncols == 1) {
        elem16 e = make_elem(i);
        rc = slotmap_insert(&c->sm, &e, key);
    } else {
        row64 r = make_row64(i);
        rc = slotmap_insert(&c->sm, &r, key);
    }
    if (rc != SLATE_OK) fail("slotmap_insert", c->n);
}

static uint64_t sm_save(void *ctx, int full) {
    sm_ctx *c = ctx;
    slate_buffer_s b = {c->out, c->size, 0};
    uint64_t t0 = clock_now();
    int rc = slotmap_save(&c->sm, slate_buffer_write, &b);
    keep((uint64_t)rc);
    uint64_t t = clock_since(t0);
    if (rc != SLATE_OK || b.length != c->size) fail("slotmap_save", c->n);
    if (full && memcmp(c->out, c->snap, c->size) != 0) fail("slotmap_save: two saves differ", c->n);
    return t;
}

static uint64_t do_memcpy(uint8_t *dst, const uint8_t *src, uint64_t size) {
    uint64_t t0 = clock_now();
    memcpy(dst, src, size);
    keep(dst[size - 1]);
    uint64_t t = clock_since(t0);
    if (dst[0] != src[0] || dst[size - 1] != src[size - 1]) fail("memcpy", size);
    return t;
}

static uint64_t sm_memcpy(void *ctx, int full) {
    (void)full;
    sm_ctx *c = ctx;
    return do_memcpy(c->dst, c->snap, c->size);
}

/* The loaded slotmap `l` against the saved one, in full. */
static void sm_verify(sm_ctx *c, slotmap_s *l) {
    char msg[200];
    uint64_t n = c->n;
    if (slotmap_check(l, msg, sizeof msg) != SLATE_OK) {
        fprintf(stderr, "slotmap_check: %s\n", msg);
        fail("loaded slotmap fails its check", n);
    }
    uint32_t len = slotmap_length(&c->sm);
    if (slotmap_length(l) != len) fail("loaded slotmap: length", n);
    for (uint32_t col = 0; col < c->ncols; col++)
        if (memcmp(slotmap_column(l, col), slotmap_column(&c->sm, col), (size_t)len * c->sizes[col]) != 0)
            fail("loaded slotmap: a column differs", n);
    for (uint32_t r = 0; r < len; r++) {
        slotmap_key k = slotmap_key_at(&c->sm, r);
        uint32_t row;
        if (slotmap_key_at(l, r) != k || slotmap_row(l, k, &row) != SLATE_OK || row != r)
            fail("loaded slotmap: a key", n);
    }
    for (uint32_t i = 0; i < c->nstale; i++)
        if (slotmap_contains(l, c->stale[i])) fail("loaded slotmap: a stale key is live", n);
    uint64_t size = slotmap_save_size(l);
    if (size != c->size) fail("loaded slotmap: save size", n);
    slate_buffer_s b = {c->out, c->size, 0};
    if (slotmap_save(l, slate_buffer_write, &b) != SLATE_OK || memcmp(c->out, c->snap, c->size) != 0)
        fail("loaded slotmap: its save differs from the snapshot", n);
    /* the next insert issues the key the saved slotmap would issue */
    slotmap_s copy;
    if (slotmap_clone(&copy, &c->sm) != SLATE_OK) fail("slotmap_clone", n);
    uint8_t row[64] = {0};
    slotmap_key k1, k2;
    if (slotmap_insert(&copy, row, &k1) != SLATE_OK || slotmap_insert(l, row, &k2) != SLATE_OK || k1 != k2)
        fail("loaded slotmap: the next insert's key", n);
    slotmap_free(&copy);
}

static uint64_t sm_load(void *ctx, int full) {
    sm_ctx *c = ctx;
    slotmap_s l;
    if (slotmap_columns(&l, c->sizes, c->ncols) != SLATE_OK) fail("slotmap_columns", c->n);
    uint64_t t0 = clock_now();
    int rc = slotmap_load(&l, c->snap, c->size);
    keep((uint64_t)rc);
    uint64_t t = clock_since(t0);
    if (rc != SLATE_OK || slotmap_length(&l) != slotmap_length(&c->sm)) fail("slotmap_load", c->n);
    if (full) sm_verify(c, &l);
    slotmap_free(&l);
    return t;
}

static void run_slotmap(const char *workload, uint64_t n, int wide, int churn) {
    sm_ctx c = {0};
    c.n = n;
    if (wide) {
        c.ncols = 3;
        c.sizes[0] = 16, c.sizes[1] = 16, c.sizes[2] = 32;
        c.row_size = 64;
    } else {
        c.ncols = 1;
        c.sizes[0] = 16;
        c.row_size = 16;
    }
    if (slotmap_columns(&c.sm, c.sizes, c.ncols) != SLATE_OK) fail("slotmap_columns", n);
    slotmap_key *keys = xmalloc(sizeof(slotmap_key) * n);
    uint64_t next = 0;
    for (uint64_t i = 0; i < n; i++) sm_insert_row(&c, next++, &keys[i]);
    if (churn) {
        uint32_t *perm = xmalloc(sizeof(uint32_t) * n);
        shuffle(perm, (uint32_t)n, SEED_CHURN);
        c.nstale = (uint32_t)(n / 5);
        c.stale = xmalloc(sizeof(uint64_t) * (c.nstale + 1));
        for (uint32_t j = 0; j < c.nstale; j++) {
            c.stale[j] = keys[perm[j]];
            if (slotmap_erase(&c.sm, c.stale[j]) != SLATE_OK) fail("slotmap_erase", n);
        }
        for (uint64_t j = 0; j < n / 10; j++) {
            slotmap_key k;
            sm_insert_row(&c, next++, &k);
        }
        free(perm);
    }
    free(keys);
    uint32_t len = slotmap_length(&c.sm);

    c.size = slotmap_save_size(&c.sm);
    c.snap = xmalloc_touched(c.size);
    c.out = xmalloc_touched(c.size);
    c.dst = xmalloc_touched(c.size);
    slate_buffer_s b = {c.snap, c.size, 0};
    if (slotmap_save(&c.sm, slate_buffer_write, &b) != SLATE_OK || b.length != c.size) fail("slotmap_save", n);
    slate_snapshot_info_s info;
    if (slate_snapshot_info(c.snap, c.size, &info) != SLATE_OK || info.count != len ||
        info.kind != SLATE_SNAPSHOT_SLOTMAP || info.columns != c.ncols)
        fail("slate_snapshot_info", n);
    uint64_t bound = (uint64_t)len * c.row_size + 8 * (uint64_t)info.slots + 32 * (uint64_t)c.ncols + 192;
    printf("%s %s size %" PRIu64 " %u %" PRIu64 " %" PRIu64 "\n", impl, workload, n, len, c.size, bound);

    const op_s ops[] = {{"memcpy", sm_memcpy}, {"save", sm_save}, {"load", sm_load}};
    run_ops(impl, workload, n, len, c.size, ops, 3, &c);

    slotmap_free(&c.sm);
    free(c.stale);
    free(c.snap);
    free(c.out);
    free(c.dst);
}

/* ----------------------------------------------------------------- sets */

typedef struct {
    uint64_t n;
    uint32_t elem_size; /* 16, or 0: membership */
    slotmap_sparse_s sp;
    uint8_t *snap;
    uint64_t size;
    uint8_t *out, *dst;
} set_ctx;

static uint64_t set_save(void *ctx, int full) {
    set_ctx *c = ctx;
    slate_buffer_s b = {c->out, c->size, 0};
    uint64_t t0 = clock_now();
    int rc = slotmap_sparse_save(&c->sp, slate_buffer_write, &b);
    keep((uint64_t)rc);
    uint64_t t = clock_since(t0);
    if (rc != SLATE_OK || b.length != c->size) fail("slotmap_sparse_save", c->n);
    if (full && memcmp(c->out, c->snap, c->size) != 0) fail("slotmap_sparse_save: two saves differ", c->n);
    return t;
}

static uint64_t set_memcpy(void *ctx, int full) {
    (void)full;
    set_ctx *c = ctx;
    return do_memcpy(c->dst, c->snap, c->size);
}

static void set_verify(set_ctx *c, slotmap_sparse_s *l) {
    char msg[200];
    uint64_t n = c->n;
    if (slotmap_sparse_check(l, msg, sizeof msg) != SLATE_OK) {
        fprintf(stderr, "slotmap_sparse_check: %s\n", msg);
        fail("loaded set fails its check", n);
    }
    uint32_t len = slotmap_sparse_length(&c->sp);
    if (slotmap_sparse_length(l) != len) fail("loaded set: length", n);
    if (memcmp(slotmap_sparse_keys(l), slotmap_sparse_keys(&c->sp), sizeof(slotmap_key) * len) != 0)
        fail("loaded set: the keys differ", n);
    if (c->elem_size &&
        memcmp(slotmap_sparse_column(l, 0), slotmap_sparse_column(&c->sp, 0), (size_t)len * c->elem_size) != 0)
        fail("loaded set: the column differs", n);
    const slotmap_key *keys = slotmap_sparse_keys(&c->sp);
    for (uint32_t r = 0; r < len; r++) {
        uint32_t row;
        if (slotmap_sparse_row(l, keys[r], &row) != SLATE_OK || row != r) fail("loaded set: a key's row", n);
    }
    slate_buffer_s b = {c->out, c->size, 0};
    if (slotmap_sparse_save(l, slate_buffer_write, &b) != SLATE_OK || memcmp(c->out, c->snap, c->size) != 0)
        fail("loaded set: its save differs from the snapshot", n);
}

static uint64_t set_load(void *ctx, int full) {
    set_ctx *c = ctx;
    slotmap_sparse_s l;
    if (slotmap_sparse(&l, c->elem_size) != SLATE_OK) fail("slotmap_sparse", c->n);
    uint64_t t0 = clock_now();
    int rc = slotmap_sparse_load(&l, c->snap, c->size);
    keep((uint64_t)rc);
    uint64_t t = clock_since(t0);
    if (rc != SLATE_OK || slotmap_sparse_length(&l) != slotmap_sparse_length(&c->sp))
        fail("slotmap_sparse_load", c->n);
    if (full) set_verify(c, &l);
    slotmap_sparse_free(&l);
    return t;
}

static void run_set(const char *workload, uint64_t n, uint32_t elem_size) {
    set_ctx c = {0};
    c.n = n;
    c.elem_size = elem_size;
    slotmap_s owner;
    if (slotmap(&owner, sizeof(elem16)) != SLATE_OK) fail("slotmap", n);
    slotmap_key *keys = xmalloc(sizeof(slotmap_key) * n);
    for (uint64_t i = 0; i < n; i++) {
        elem16 e = make_elem(i);
        if (slotmap_insert(&owner, &e, &keys[i]) != SLATE_OK) fail("slotmap_insert", n);
    }
    if (slotmap_sparse(&c.sp, elem_size) != SLATE_OK) fail("slotmap_sparse", n);
    uint32_t *perm = xmalloc(sizeof(uint32_t) * n);
    shuffle(perm, (uint32_t)n, SEED_SET);
    for (uint64_t j = 0; j < n; j++) {
        elem16 e = make_elem(perm[j]);
        if (slotmap_sparse_set(&c.sp, &owner, keys[perm[j]], elem_size ? &e : NULL) != SLATE_OK)
            fail("slotmap_sparse_set", n);
    }
    free(perm);
    free(keys);
    uint32_t len = slotmap_sparse_length(&c.sp);

    c.size = slotmap_sparse_save_size(&c.sp);
    c.snap = xmalloc_touched(c.size);
    c.out = xmalloc_touched(c.size);
    c.dst = xmalloc_touched(c.size);
    slate_buffer_s b = {c.snap, c.size, 0};
    if (slotmap_sparse_save(&c.sp, slate_buffer_write, &b) != SLATE_OK || b.length != c.size)
        fail("slotmap_sparse_save", n);
    printf("%s %s size %" PRIu64 " %u %" PRIu64 " 0\n", impl, workload, n, len, c.size);

    const op_s ops[] = {{"memcpy", set_memcpy}, {"save", set_save}, {"load", set_load}};
    run_ops(impl, workload, n, len, c.size, ops, 3, &c);

    slotmap_sparse_free(&c.sp);
    slotmap_free(&owner);
    free(c.snap);
    free(c.out);
    free(c.dst);
}

/* ----------------------------------------------------------------- maps */

typedef struct {
    uint64_t n;
    int codec;
    const uint64_t *ukeys; /* u64 keys, or NULL */
    const keyfile *kf;     /* string keys, or NULL */
    uint8_t (*vals)[16];   /* the codec values of the saved map */
    slate_s m;
    uint8_t *snap;
    uint64_t size, records; /* the snapshot's bytes; its records' */
    uint8_t *out, *dst, *walk;
    uint8_t (*arena)[16]; /* where decode and the insert run put values */
    uint64_t used;
    slate_value_codec_s vc;
} map_ctx;

static int encode16(void *context, void *value, void *buffer, uint32_t capacity, uint32_t *length) {
    (void)context;
    *length = 16;
    if (capacity >= 16) memcpy(buffer, value, 16);
    return 0;
}

static int decode16(void *context, const void *bytes, uint32_t length, void **value) {
    map_ctx *c = context;
    if (length != 16 || c->used == c->n) return 1;
    uint8_t *p = c->arena[c->used++];
    memcpy(p, bytes, 16);
    *value = p;
    return 0;
}

static const slate_value_codec_s *map_codec(map_ctx *c) { return c->codec ? &c->vc : NULL; }

static uint64_t map_save(void *ctx, int full) {
    map_ctx *c = ctx;
    slate_buffer_s b = {c->out, c->size, 0};
    uint64_t t0 = clock_now();
    int rc = slate_save(&c->m, map_codec(c), slate_buffer_write, &b);
    keep((uint64_t)rc);
    uint64_t t = clock_since(t0);
    if (rc != SLATE_OK || b.length != c->size) fail("slate_save", c->n);
    if (full && memcmp(c->out, c->snap, c->size) != 0) fail("slate_save: two saves differ", c->n);
    return t;
}

static uint64_t map_memcpy(void *ctx, int full) {
    (void)full;
    map_ctx *c = ctx;
    return do_memcpy(c->dst, c->snap, c->size);
}

typedef struct {
    uint8_t *p;
    int codec;
} walk_s;

static int walk_cb(const char *key, uint32_t key_length, void *value, void *data) {
    walk_s *w = data;
    uint8_t *p = w->p;
    memcpy(p, &key_length, 4);
    memcpy(p + 4, key, key_length);
    p += 4 + key_length;
    if (w->codec) {
        uint32_t l = 16;
        memcpy(p, &l, 4);
        memcpy(p + 4, value, 16);
        p += 20;
    } else {
        uint64_t v = (uint64_t)(uintptr_t)value;
        memcpy(p, &v, 8);
        p += 8;
    }
    w->p = p;
    return 0;
}

static uint64_t map_walk(void *ctx, int full) {
    (void)full;
    map_ctx *c = ctx;
    walk_s w = {c->walk, c->codec};
    uint64_t t0 = clock_now();
    int rc = slate_each(&c->m, walk_cb, &w);
    keep((uint64_t)rc);
    uint64_t t = clock_since(t0);
    if (rc != SLATE_OK || (uint64_t)(w.p - c->walk) != c->records) fail("the walk's bytes", c->n);
    return t;
}

/* The value of entry i as the saved map holds it. */
static void *map_value(map_ctx *c, uint64_t i) { return c->codec ? (void *)c->vals[i] : (void *)(uintptr_t)(i + 1); }

static int map_set(slate_s *m, map_ctx *c, uint64_t i, void *value) {
    if (c->ukeys) return slate_set_u64(m, c->ukeys[i], value);
    return slate_set_bytes(m, c->kf->bytes + c->kf->off[i], c->kf->len[i], value);
}

static int map_get(const slate_s *m, map_ctx *c, uint64_t i, void **value) {
    if (c->ukeys) return slate_get_u64(m, c->ukeys[i], value);
    return slate_get_bytes(m, c->kf->bytes + c->kf->off[i], c->kf->len[i], value);
}

/* Map `l` holds every key with its value. */
static void map_verify(map_ctx *c, slate_s *l) {
    char msg[200];
    uint64_t n = c->n;
    if (slate_check(l, msg, sizeof msg) != SLATE_OK) {
        fprintf(stderr, "slate_check: %s\n", msg);
        fail("map fails its check", n);
    }
    if (slate_length(l) != n) fail("map: length", n);
    for (uint64_t i = 0; i < n; i++) {
        void *v;
        if (map_get(l, c, i, &v) != SLATE_OK) fail("map: a key is missing", n);
        if (c->codec ? memcmp(v, c->vals[i], 16) != 0 : v != map_value(c, i)) fail("map: a value differs", n);
    }
    uint64_t size;
    if (slate_save_size(l, map_codec(c), &size) != SLATE_OK || size != c->size) fail("map: save size", n);
}

static uint64_t map_load(void *ctx, int full) {
    map_ctx *c = ctx;
    slate_s l;
    if (slate(&l) != SLATE_OK) fail("slate", c->n);
    c->used = 0;
    uint64_t t0 = clock_now();
    int rc = slate_load(&l, c->snap, c->size, map_codec(c));
    keep((uint64_t)rc);
    uint64_t t = clock_since(t0);
    if (rc != SLATE_OK || slate_length(&l) != c->n) fail("slate_load", c->n);
    if (full) map_verify(c, &l);
    slate_free(&l);
    return t;
}

static uint64_t map_insert(void *ctx, int full) {
    map_ctx *c = ctx;
    slate_s l;
    if (slate(&l) != SLATE_OK) fail("slate", c->n);
    uint64_t n = c->n, bad = 0;
    uint64_t t0 = clock_now();
    bad += slate_reserve(&l, n) != SLATE_OK;
    if (c->codec) {
        for (uint64_t i = 0; i < n; i++) {
            memcpy(c->arena[i], c->vals[i], 16);
            bad += map_set(&l, c, i, c->arena[i]) != SLATE_OK;
        }
    } else {
        for (uint64_t i = 0; i < n; i++) bad += map_set(&l, c, i, (void *)(uintptr_t)(i + 1)) != SLATE_OK;
    }
    keep(bad);
    uint64_t t = clock_since(t0);
    if (bad || slate_length(&l) != n) fail("reserve + insert", n);
    if (full) map_verify(c, &l);
    slate_free(&l);
    return t;
}

static void run_map(const char *workload, uint64_t n, const uint64_t *ukeys, const keyfile *kf, int codec) {
    map_ctx c = {0};
    c.n = n;
    c.codec = codec;
    c.ukeys = ukeys;
    c.kf = kf;
    c.vc = (slate_value_codec_s){encode16, decode16, NULL, &c};
    if (codec) {
        c.vals = xmalloc(16 * n);
        for (uint64_t i = 0; i < n; i++) make_value16(c.vals[i], i);
        c.arena = xmalloc_touched(16 * n);
    }
    if (slate(&c.m) != SLATE_OK) fail("slate", n);
    uint64_t key_bytes = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (map_set(&c.m, &c, i, map_value(&c, i)) != SLATE_OK) fail("slate_set", n);
        key_bytes += ukeys ? SLATE_INT_KEY_LENGTH : kf->len[i];
    }
    if (slate_length(&c.m) != n) fail("duplicate keys", n);
    c.records = key_bytes + n * (codec ? 4 + 4 + 16 : 4 + 8);

    if (slate_save_size(&c.m, map_codec(&c), &c.size) != SLATE_OK) fail("slate_save_size", n);
    c.snap = xmalloc_touched(c.size);
    c.out = xmalloc_touched(c.size);
    c.dst = xmalloc_touched(c.size);
    c.walk = xmalloc_touched(c.records);
    slate_buffer_s b = {c.snap, c.size, 0};
    if (slate_save(&c.m, map_codec(&c), slate_buffer_write, &b) != SLATE_OK || b.length != c.size)
        fail("slate_save", n);
    uint64_t bound = codec ? 0 : key_bytes + 12 * n + 112;
    printf("%s %s size %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", impl, workload, n, n, c.size, bound);

    const op_s ops[] = {
        {"memcpy", map_memcpy}, {"save", map_save}, {"walk", map_walk}, {"load", map_load}, {"insert", map_insert},
    };
    run_ops(impl, workload, n, n, c.size, ops, 5, &c);

    slate_free(&c.m);
    free(c.vals);
    free(c.arena);
    free(c.snap);
    free(c.out);
    free(c.dst);
    free(c.walk);
}

/* ----------------------------------------------------------------- main */

static const char *const WORKLOADS[] = {
    "slotmap-r16-fresh", "slotmap-r16-churn", "slotmap-r64-fresh", "slotmap-r64-churn",
    "set-c16",           "set-member",        "map-u64-int",       "map-u64-codec",
    "map-words-int",     "map-words-codec",   "map-paths-int",     "map-paths-codec",
};
#define NWORKLOADS (sizeof WORKLOADS / sizeof WORKLOADS[0])

static int wanted(const char *list, const char *w) {
    if (!list) return 1;
    size_t l = strlen(w);
    for (const char *p = list; (p = strstr(p, w)) != NULL; p += l)
        if ((p == list || p[-1] == ',') && (p[l] == ',' || p[l] == '\0')) return 1;
    return 0;
}

static void run_size(uint64_t n, const char *list) {
    if (wanted(list, "slotmap-r16-fresh")) run_slotmap("slotmap-r16-fresh", n, 0, 0);
    if (wanted(list, "slotmap-r16-churn")) run_slotmap("slotmap-r16-churn", n, 0, 1);
    if (wanted(list, "slotmap-r64-fresh")) run_slotmap("slotmap-r64-fresh", n, 1, 0);
    if (wanted(list, "slotmap-r64-churn")) run_slotmap("slotmap-r64-churn", n, 1, 1);
    if (wanted(list, "set-c16")) run_set("set-c16", n, 16);
    if (wanted(list, "set-member")) run_set("set-member", n, 0);
    if (wanted(list, "map-u64-int") || wanted(list, "map-u64-codec")) {
        uint64_t *keys = xmalloc(sizeof(uint64_t) * n);
        uint64_t s = 42;
        for (uint64_t i = 0; i < n; i++) keys[i] = splitmix64(&s);
        if (wanted(list, "map-u64-int")) run_map("map-u64-int", n, keys, NULL, 0);
        if (wanted(list, "map-u64-codec")) run_map("map-u64-codec", n, keys, NULL, 1);
        free(keys);
    }
    static const char *const files[2] = {"words", "paths"};
    for (int f = 0; f < 2; f++) {
        char wi[32], wc[32], path[4096];
        snprintf(wi, sizeof wi, "map-%s-int", files[f]);
        snprintf(wc, sizeof wc, "map-%s-codec", files[f]);
        if (!wanted(list, wi) && !wanted(list, wc)) continue;
        snprintf(path, sizeof path, "%s/%s.txt", key_dir, files[f]);
        keyfile kf;
        keyfile_read(&kf, path, (uint32_t)n);
        if (wanted(list, wi)) run_map(wi, n, NULL, &kf, 0);
        if (wanted(list, wc)) run_map(wc, n, NULL, &kf, 1);
        keyfile_free(&kf);
    }
}

int main(int argc, char **argv) {
    const char *list = NULL;
    uint64_t sizes[16];
    int count = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--keys") == 0 && i + 1 < argc) {
            key_dir = argv[++i];
        } else if (strcmp(a, "--clock") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "wall") == 0) clock_id = CLOCK_MONOTONIC;
            else if (strcmp(v, "cpu") != 0) goto usage;
        } else if (strcmp(a, "--budget-ms") == 0 && i + 1 < argc) {
            budget_ns = strtoull(argv[++i], NULL, 10) * 1000000u;
        } else if (strcmp(a, "--min-reps") == 0 && i + 1 < argc) {
            min_reps = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(a, "--max-reps") == 0 && i + 1 < argc) {
            max_reps = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(a, "--workloads") == 0 && i + 1 < argc) {
            list = argv[++i];
        } else if (strcmp(a, "--name") == 0 && i + 1 < argc) {
            impl = argv[++i];
        } else {
            unsigned long long v = strtoull(a, NULL, 10);
            if (v < 10 || v > 100000000ull || count == 16) goto usage;
            sizes[count++] = v;
        }
    }
    if (count == 0 || min_reps == 0 || max_reps < min_reps) goto usage;
    if (list) {
        /* every name in the list is a workload */
        char *copy = xmalloc(strlen(list) + 1);
        strcpy(copy, list);
        for (char *w = strtok(copy, ","); w; w = strtok(NULL, ",")) {
            size_t k = 0;
            while (k < NWORKLOADS && strcmp(WORKLOADS[k], w) != 0) k++;
            if (k == NWORKLOADS) {
                fprintf(stderr, "snapshot_slate: unknown workload %s\n", w);
                return 2;
            }
        }
        free(copy);
    }
    clock_init();
    for (int i = 0; i < count; i++) run_size(sizes[i], list);
    return 0;
usage:
    fprintf(stderr,
            "usage: snapshot_slate [--keys DIR] [--clock cpu|wall] [--budget-ms MS] [--min-reps K] [--max-reps K]\n"
            "                      [--workloads W,W,...] [--name LABEL] N ...\n");
    return 2;
}
