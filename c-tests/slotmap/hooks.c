/*
 * slotmap/hooks.c -- the slotmap's memory: SLATE_MALLOC / SLATE_CALLOC /
 * SLATE_FREE serve slotmaps too (SPEC 6 edge cases), capacity is real
 * (reserve, clear, churn), read-only calls allocate nothing, and allocation
 * failure injection.
 *
 * The hooks are the counting wrappers of support/hooks.h: a 32-byte header
 * in front of every block (a magic number, the size, the owning counter
 * set) catches blocks freed twice or through the wrong allocator, and a
 * switch makes allocation attempt number K return NULL. The driver of the
 * injection, and main, are support/inject.h's, shared with map/hooks.c and
 * sparse/hooks.c; this file holds what is the slotmap's own.
 *
 * The failure-injection part counts the allocations of a scripted workload
 * (inserts through several growths of the rows and of the index, erases,
 * stale erases, reserve, sort, clone and work on the clone, erase_if, a
 * save and a load of its image, clear, limit), then reruns it once for
 * every N, failing allocation N.  In
 * each run: the call that met the failure returns SLATE_ERROR_ALLOC (no
 * other call does, and no failure is swallowed); the slotmap is unchanged
 * (length, row order, every byte of every column, every key with its data,
 * every stale key still stale); the same call then succeeds; the rest of
 * the workload succeeds; at the end allocations == frees.  After a failed
 * clone the copy is an empty, usable slotmap of the same columns; after a
 * failed load the destination is as it was, and a load accepts it. The
 * injection runs twice: through the hooks, and through the slotmaps' own
 * allocator (slotmap_set_allocator).
 *
 *   gcc -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude c-tests/slotmap/hooks.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tsh && /tmp/tsh
 *   g++ -std=c++17 -O1 -g -Wall -Wextra -Werror -Iinclude -x c++ c-tests/slotmap/hooks.c \
 *       -x none target/release/libslate.a -lpthread -ldl -lm -o /tmp/tshpp && /tmp/tshpp
 *
 * Library decisions relied on (see slotmap/api/slotmap.h for the full list):
 *   [D-key]     fresh slots are numbered 0, 1, 2, ... (a key's slot names
 *               its record in some checks below).
 *   [D-column]  slotmap_column is NULL while nothing was ever allocated.
 *   [D-reserve] slotmap_reserve(n) means room for n rows in total: inserts
 *               up to n rows then allocate nothing.
 *   [D-clone]   slotmap_clone takes the allocator in force (like slate_clone)
 *               and keeps the row order.
 */
#include "../support/hooks.h" /* defines SLATE_MALLOC, SLATE_CALLOC, SLATE_FREE */
#define SLATE_IMPLEMENTATION
#include "slate.h"
#include "../support/test.h"
#include "../support/inject.h" /* and rows3.h */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* records: three columns (a 12-byte struct, an 8-byte id, a 1-byte flag)   */
/* ------------------------------------------------------------------------ */

#define KEY_SLOT(k) ((uint32_t)((k)&0xFFFFFFFFu))
#define SENTINEL_KEY 0x5EED5EED5EED5EEDull

static int put3(slotmap_s* sm, uint64_t id, slotmap_key* key) {
  unsigned char row[ROW3];
  pack3(row, id);
  return slotmap_insert(sm, row, key);
}

/* Key k is valid and its row holds record `id` in all three columns. */
static int key3_is(const slotmap_s* sm, slotmap_key k, uint64_t id) {
  uint32_t r = 0xFFFFFFFFu;
  void* e = NULL;
  if (slotmap_row(sm, k, &r) != SLATE_OK || r >= slotmap_length(sm)) return 0;
  if (slotmap_get(sm, k, &e) != SLATE_OK) return 0;
  const rec_s* c0 = (const rec_s*)slotmap_column(sm, 0);
  const uint64_t* c1 = (const uint64_t*)slotmap_column(sm, 1);
  const uint8_t* c2 = (const uint8_t*)slotmap_column(sm, 2);
  rec_s want = rec_for(id);
  return c0 != NULL && c1 != NULL && c2 != NULL && e == (const void*)(c0 + r) &&
         memcmp(&c0[r], &want, sizeof want) == 0 && c1[r] == id && c2[r] == flag_for(id);
}

/* row(key_at(r)) == r for every row; 0 at the length. */
static unsigned dense_problems(const slotmap_s* sm) {
  unsigned bad = 0;
  uint32_t n = slotmap_length(sm);
  for (uint32_t r = 0; r < n; r++) {
    uint32_t row = 0xFFFFFFFFu;
    if (slotmap_row(sm, slotmap_key_at(sm, r), &row) != SLATE_OK || row != r) bad++;
  }
  if (slotmap_key_at(sm, n) != 0) bad++;
  return bad;
}

/* A walk that only reads its slotmap. */
typedef struct reader_s {
  const slotmap_s* sm;
  uint64_t calls;
  unsigned bad;
} reader_s;

static int reader_cb(slotmap_key key, void* row, void* data) {
  reader_s* r = (reader_s*)data;
  uint32_t at = 0;
  void* e = NULL;
  if (slotmap_get(r->sm, key, &e) != SLATE_OK || e != row) r->bad++;
  if (slotmap_row(r->sm, key, &at) != SLATE_OK || slotmap_key_at(r->sm, at) != key) r->bad++;
  if (!slotmap_contains(r->sm, key) || slotmap_column(r->sm, 2) == NULL) r->bad++;
  r->calls++;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* the hooks serve slotmaps; read-only calls allocate nothing                */
/* ------------------------------------------------------------------------ */

static void test_hooks_used(void) {
  TEST_SECTION("slotmap allocations go through SLATE_MALLOC/SLATE_CALLOC/SLATE_FREE");
  enum { N = 10000 };
  slotmap_s sm, one, copy;
  static slotmap_key keys[N];
  unsigned bad = 0;
  unsigned long long live0 = hk.live_bytes, allocs0 = hk.allocations, frees0 = hk.frees;
  hooks_reset(&hk);
  /* initializing, limiting and freeing a fresh slotmap allocate nothing */
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap(&one, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_limit(&sm, N), SLATE_OK);
  slotmap_free(&one);
  CHECK_EQ_U64(hk.attempts, 0);
  CHECK_EQ_U64(hk.live_bytes, live0);

  /* the first insert allocates, through the hooks */
  CHECK_EQ_INT(put3(&sm, 0, &keys[0]), SLATE_OK);
  CHECK(hk.attempts > 0);
  CHECK(hk.live_bytes > live0);
  for (uint64_t i = 1; i < N; i++)
    if (put3(&sm, i, &keys[i]) != SLATE_OK) bad++;
  CHECK_EQ_INT(bad, 0);
  fprintf(stderr, "   %llu mallocs, %llu callocs for %d rows; %llu bytes live\n", hk.mallocs,
          hk.callocs, (int)N, hk.live_bytes - live0);
  /* at least the rows themselves (21 bytes each) are held from the hooks */
  CHECK(hk.live_bytes - live0 >= (unsigned long long)N * ROW3);

  /* read-only calls allocate nothing */
  unsigned long long before = hk.attempts;
  reader_s rd;
  memset(&rd, 0, sizeof rd);
  rd.sm = &sm;
  for (uint32_t i = 0; i < N; i += 7) {
    void* e = NULL;
    uint32_t r = 0;
    if (slotmap_get(&sm, keys[i], &e) != SLATE_OK) bad++;
    if (slotmap_get(&sm, keys[i], NULL) != SLATE_OK) bad++;
    if (slotmap_get(&sm, keys[i] + (2ull << 32), &e) != SLATE_ERROR_NOT_FOUND) bad++;
    if (slotmap_row(&sm, keys[i], &r) != SLATE_OK) bad++;
    if (slotmap_contains(&sm, keys[i]) != 1) bad++;
    if (slotmap_key_at(&sm, i) == 0) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(slotmap_column(&sm, 0) != NULL);
  CHECK(slotmap_column(&sm, 3) == NULL);
  CHECK_EQ_U64(slotmap_key_at(&sm, N), 0);
  CHECK_EQ_U64(slotmap_length(&sm), N);
  CHECK_EQ_INT(slotmap_each(&sm, reader_cb, &rd), SLATE_OK);
  CHECK_EQ_U64(rd.calls, N);
  CHECK_EQ_INT(rd.bad, 0);
  CHECK_EQ_INT(dense_problems(&sm), 0);
  CHECK_EQ_U64(hk.attempts, before);
  /* ... and neither do erase, a limit, nor a reserve within the capacity */
  CHECK_EQ_INT(slotmap_erase(&sm, keys[5]), SLATE_OK);
  CHECK_EQ_INT(slotmap_limit(&sm, N + 10), SLATE_OK);
  CHECK_EQ_INT(slotmap_reserve(&sm, N), SLATE_OK);
  CHECK_EQ_U64(hk.attempts, before);

  /* clone and sort allocate through the hooks, and give everything back */
  CHECK_EQ_INT(slotmap_clone(&copy, &sm), SLATE_OK);
  CHECK(hk.attempts > before);
  before = hk.attempts;
  unsigned long long live_before_sort = hk.live_bytes;
  CHECK_EQ_INT(slotmap_sort(&sm, less_rec_a, NULL), SLATE_OK);
  CHECK(hk.attempts > before); /* "needs memory for a second copy of the rows" */
  fprintf(stderr, "   sort: %llu allocations, live bytes %llu -> %llu\n", hk.attempts - before,
          live_before_sort, hk.live_bytes);
  for (uint64_t i = 0; i < N; i++)
    if (i != 5 && (!key3_is(&sm, keys[i], i) || !key3_is(&copy, keys[i], i))) bad++;
  CHECK_EQ_INT(bad, 0);
  slotmap_free(&copy);
  slotmap_free(&sm);
  CHECK_EQ_U64(hk.live_bytes, live0);
  CHECK_EQ_U64(hk.allocations - allocs0, hk.frees - frees0);
  CHECK_EQ_U64(hk.bad_frees, 0);
  /* a freed slotmap holds nothing ([D-column]) */
  CHECK_EQ_PTR(slotmap_column(&sm, 0), NULL);
}

/* ------------------------------------------------------------------------ */
/* capacity is real                                                          */
/* ------------------------------------------------------------------------ */

static void test_capacity_is_real(void) {
  TEST_SECTION("reserve, clear and churn keep real capacity");
  enum { N = 5000 };
  slotmap_s sm;
  static slotmap_key keys[N];
  unsigned bad = 0;
  unsigned long long before;

  /* [D-reserve] after reserve(n) the next n inserts allocate nothing */
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  hooks_reset(&hk);
  CHECK_EQ_INT(slotmap_reserve(&sm, N), SLATE_OK);
  CHECK(hk.attempts > 0);
  before = hk.attempts;
  for (uint64_t i = 0; i < N; i++)
    if (put3(&sm, i, &keys[i]) != SLATE_OK) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(hk.attempts, before);
  slotmap_free(&sm);

  /* room for n rows in all: with rows and erased slots already there */
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  for (uint64_t i = 0; i < 300; i++) {
    uint64_t v = i;
    if (slotmap_insert(&sm, &v, &keys[i]) != SLATE_OK) bad++;
  }
  for (uint64_t i = 0; i < 300; i += 3)
    if (slotmap_erase(&sm, keys[i]) != SLATE_OK) bad++;
  CHECK_EQ_U64(slotmap_length(&sm), 200);
  CHECK_EQ_INT(slotmap_reserve(&sm, 1000), SLATE_OK);
  before = hk.attempts;
  for (uint64_t i = 0; i < 800; i++) {
    uint64_t v = 1000 + i;
    slotmap_key k;
    if (slotmap_insert(&sm, &v, &k) != SLATE_OK) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(slotmap_length(&sm), 1000);
  CHECK_EQ_U64(hk.attempts, before);
  slotmap_free(&sm);

  /* after clear, refilling allocates nothing */
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  before = hk.attempts;
  for (uint64_t i = 0; i < N; i++)
    if (put3(&sm, i, &keys[i]) != SLATE_OK) bad++;
  unsigned long long first_fill = hk.attempts - before;
  CHECK(first_fill > 0);
  before = hk.attempts;
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  for (uint64_t i = 0; i < N; i++)
    if (put3(&sm, N + i, &keys[i]) != SLATE_OK) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(hk.attempts, before);
  for (uint64_t i = 0; i < N; i++)
    if (!key3_is(&sm, keys[i], N + i)) bad++;
  CHECK_EQ_INT(bad, 0);
  fprintf(stderr, "   first fill of %d rows: %llu allocations; refill after clear: %llu\n", (int)N,
          first_fill, hk.attempts - before);

  /* churn at a constant size allocates nothing: erased slots are reused
     (SPEC 6), so neither the rows nor the index grow */
  before = hk.attempts;
  for (uint32_t c = 0; c < 20000; c++) {
    uint32_t i = (c * 7919u) % N;
    if (slotmap_erase(&sm, keys[i]) != SLATE_OK) bad++;
    if (put3(&sm, c, &keys[i]) != SLATE_OK) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(hk.attempts, before);
  CHECK_EQ_U64(slotmap_length(&sm), N);
  CHECK_EQ_INT(dense_problems(&sm), 0);
  slotmap_free(&sm);
  CHECK_EQ_U64(hk.live_bytes, 0);
  CHECK_EQ_U64(hk.allocations, hk.frees);
}

/* ------------------------------------------------------------------------ */
/* failure injection                                                         */
/* ------------------------------------------------------------------------ */

#define MAXID 9000    /* record ids 0 .. MAXID-1 */
#define MAXSTALE 9000 /* keys erased over a run */

typedef struct model_s {
  unsigned char present[MAXID];
  slotmap_key key[MAXID];
  uint32_t length;
  slotmap_key stale[MAXSTALE];
  uint32_t nstale;
} model_s;

enum {
  OP_INSERT,
  OP_ERASE,
  OP_RESERVE,
  OP_SORT,
  OP_CLONE,
  OP_ERASE_IF,
  OP_CLEAR,
  OP_LIMIT,
  OP_SAVE, /* slotmap_save: allocates nothing */
  OP_LOAD, /* slotmap_load of the saved image into a slotmap that issued no key */
  OP_COUNT
};
static const char* const op_names[OP_COUNT] = {"insert", "erase",    "reserve", "sort",
                                               "clone",  "erase_if", "clear",   "limit",
                                               "save",   "load"};

/* A save's bytes (plain malloc: neither counted nor failed). */
typedef struct image_s {
  unsigned char* bytes;
  size_t length, capacity;
} image_s;

static int image_write(void* context, const void* bytes, size_t length) {
  image_s* im = (image_s*)context;
  if (im->length + length > im->capacity) {
    size_t want = im->capacity ? im->capacity * 2 : 65536;
    while (want < im->length + length) want *= 2;
    unsigned char* grown = (unsigned char*)realloc(im->bytes, want);
    if (grown == NULL) return -200;
    im->bytes = grown;
    im->capacity = want;
  }
  memcpy(im->bytes + im->length, bytes, length);
  im->length += length;
  return 0;
}

typedef struct run_s {
  slotmap_s m, c;     /* the slotmap and its clone */
  slotmap_s l;        /* loaded from the image */
  model_s mm, mc;     /* what they should hold */
  model_s ml, saved;  /* (saved: the model of the slotmap saved) */
  image_s image;
  unsigned ops;
  injection_s inj;    /* what the failures did (inject.h) */
} run_s;

static run_s run_;
static rows_picture_s rows_before_, rows_after_;

/* Every record is as the model says, every stale key is stale, the rows are
   dense; returns the mismatches. */
static unsigned verify_model(const slotmap_s* sm, const model_s* md) {
  unsigned bad = 0;
  uint64_t n = 0;
  if (slotmap_length(sm) != md->length) bad++;
  for (uint32_t id = 0; id < MAXID; id++)
    if (md->present[id] && !key3_is(sm, md->key[id], id)) bad++;
  for (uint32_t i = 0; i < md->nstale; i++)
    if (slotmap_get(sm, md->stale[i], NULL) != SLATE_ERROR_NOT_FOUND) bad++;
  if (slotmap_each(sm, count_rows_cb, &n) != SLATE_OK || n != md->length) bad++;
  bad += dense_problems(sm);
  return bad;
}

static void model_stale(model_s* md, uint32_t id) {
  if (!md->present[id]) return;
  md->present[id] = 0;
  md->length--;
  if (md->nstale < MAXSTALE) md->stale[md->nstale++] = md->key[id];
}

static int pred_mod5(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)data;
  return id_of_rec((const rec_s*)row) % 5 == 0;
}

static int exec_op(run_s* r, int kind, slotmap_s* sm, model_s* md, uint32_t arg, slotmap_key* out) {
  switch (kind) {
    case OP_INSERT:
      return put3(sm, arg, out);
    case OP_ERASE:
      /* a present record's key, or its stale key once erased */
      return slotmap_erase(sm, md->key[arg]);
    case OP_RESERVE:
      return slotmap_reserve(sm, arg);
    case OP_SORT:
      return slotmap_sort(sm, less_rec_a, NULL);
    case OP_CLONE:
      memset(&r->c, 0xA7, sizeof r->c); /* an uninitialized destination */
      return slotmap_clone(&r->c, &r->m);
    case OP_ERASE_IF:
      return slotmap_erase_if(sm, pred_mod5, NULL);
    case OP_CLEAR:
      return slotmap_clear(sm);
    case OP_LIMIT:
      return slotmap_limit(sm, arg);
    case OP_SAVE:
      r->image.length = 0;
      return slotmap_save(sm, image_write, &r->image);
    case OP_LOAD:
      return slotmap_load(sm, r->image.bytes, r->image.length);
  }
  return -100;
}

/* The record of one call of the workload, for the driver of inject.h: the
   slotmap it works on and its model, the one a failure must leave
   unchanged (the source, for a clone), the argument and the key an insert
   returns. */
typedef struct sm_call_s {
  inject_call_s call; /* first: what the driver sees */
  run_s* r;
  slotmap_s* sm;
  model_s* md;
  const slotmap_s* watched;
  const model_s* watched_md;
  uint32_t arg;
  slotmap_key key;
} sm_call_s;

static slotmap_key key_at(const void* sm, uint32_t row) {
  return slotmap_key_at((const slotmap_s*)sm, row);
}

/* The rows the call must leave unchanged (the source's, for a clone). */
static void sm_picture(const inject_call_s* call, void* picture) {
  const slotmap_s* sm = ((const sm_call_s*)call)->watched;
  const void* const column[3] = {slotmap_column(sm, 0), slotmap_column(sm, 1),
                                 slotmap_column(sm, 2)};
  picture_rows((rows_picture_s*)picture, slotmap_length(sm), key_at, sm, column);
}

static int sm_make(inject_call_s* call) {
  sm_call_s* c = (sm_call_s*)call;
  c->key = SENTINEL_KEY;
  return exec_op(c->r, call->kind, c->sm, c->md, c->arg, &c->key);
}

static unsigned sm_changes(inject_call_s* call) {
  sm_call_s* c = (sm_call_s*)call;
  unsigned mismatches = verify_model(c->watched, c->watched_md);
  if (call->kind == OP_INSERT && c->key != SENTINEL_KEY) mismatches++;
  return mismatches;
}

/* The copy of a failed clone is an empty slotmap ([D-column]: holding
   nothing). */
static int sm_empty_copy(inject_call_s* call) {
  run_s* r = ((sm_call_s*)call)->r;
  uint64_t n = 0;
  int ok = slotmap_length(&r->c) == 0 && slotmap_key_at(&r->c, 0) == 0 &&
           slotmap_column(&r->c, 0) == NULL && slotmap_each(&r->c, count_rows_cb, &n) == SLATE_OK &&
           n == 0 && (r->mm.length == 0 || slotmap_contains(&r->c, slotmap_key_at(&r->m, 0)) == 0);
  slotmap_free(&r->c);
  slotmap_free(&r->c);
  return ok;
}

/* The kinds of call that must meet a failure, and that never may
   (inject_suite_s): erase_if erases as it walks, allocating nothing. */
static const int must_fail_[] = {OP_INSERT, OP_RESERVE, OP_SORT, OP_CLONE, OP_LOAD, -1};
static const int never_fail_[] = {OP_ERASE_IF, OP_SAVE, -1};

static const inject_suite_s sm_suite = {
    op_names, OP_COUNT, "slotmap", OP_CLONE,
    0, /* the rows pictured before the call the baseline predicts to fail */
    sm_picture, same_rows, &rows_before_, &rows_after_,
    sm_make, sm_changes, sm_empty_copy, must_fail_, never_fail_};

/* One call of the workload on m (target 0), c (target 1) or l (2), made
   through the driver; `expected` is its result when no allocation fails.
   The model follows it. */
static void step(run_s* r, int kind, int target, uint32_t arg, int expected) {
  sm_call_s c;
  slotmap_s* sms[3] = {&r->m, &r->c, &r->l};
  model_s* models[3] = {&r->mm, &r->mc, &r->ml};
  c.r = r;
  c.sm = sms[target];
  c.md = models[target];
  c.watched = kind == OP_CLONE ? &r->m : c.sm;
  c.watched_md = kind == OP_CLONE ? &r->mm : c.md;
  c.arg = arg;
  c.key = SENTINEL_KEY;
  int rc = inject_step(&sm_suite, &r->inj, &c.call, kind, r->ops++, arg, expected);
  if (rc != expected) return;
  model_s* md = c.md;
  slotmap_key key = c.key;
  if (rc != SLATE_OK) return;
  switch (kind) {
    case OP_INSERT:
      md->present[arg] = 1;
      md->key[arg] = key;
      md->length++;
      break;
    case OP_ERASE:
      model_stale(md, arg);
      break;
    case OP_CLONE:
      memcpy(&r->mc, &r->mm, sizeof r->mc);
      break;
    case OP_ERASE_IF:
      for (uint32_t id = 0; id < MAXID; id += 5) model_stale(md, id);
      break;
    case OP_CLEAR:
      for (uint32_t id = 0; id < MAXID; id++) model_stale(md, id);
      break;
    case OP_SAVE:
      memcpy(&r->saved, md, sizeof r->saved);
      break;
    case OP_LOAD:
      memcpy(md, &r->saved, sizeof *md);
      break;
    default:
      break;
  }
}

/* The scripted workload.  Returns the number of final mismatches. */
static unsigned workload(run_s* r) {
  unsigned bad = 0;
  memset(r, 0, sizeof *r);
  r->inj.failed_op = -1;
  unsigned long long attempts = hk.attempts;
  if (slotmap_columns(&r->m, SIZES3, 3) != SLATE_OK) bad++;
  if (inject_own != NULL && slotmap_set_allocator(&r->m, inject_own) != SLATE_OK) bad++;
  if (hk.attempts != attempts) bad++; /* initializing allocates nothing */
  /* growth of the rows and the index: 8, 16, ..., 2048 */
  for (uint32_t id = 0; id < 2000; id++) step(r, OP_INSERT, 0, id, SLATE_OK);
  for (uint32_t id = 0; id < 2000; id += 3) step(r, OP_ERASE, 0, id, SLATE_OK);
  for (uint32_t id = 0; id < 60; id += 3) /* stale keys */
    step(r, OP_ERASE, 0, id, SLATE_ERROR_NOT_FOUND);
  for (uint32_t id = 2000; id < 2300; id++) step(r, OP_INSERT, 0, id, SLATE_OK); /* reuse slots */
  /* reserve, then inserts inside the reserved room */
  step(r, OP_RESERVE, 0, r->mm.length + 2500, SLATE_OK);
  for (uint32_t id = 2300; id < 4800; id++) step(r, OP_INSERT, 0, id, SLATE_OK);
  step(r, OP_SORT, 0, 0, SLATE_OK);
  /* clone, then grow, erase and sort the copy */
  step(r, OP_CLONE, 0, 0, SLATE_OK);
  for (uint32_t id = 6000; id < 8000; id++) step(r, OP_INSERT, 1, id, SLATE_OK);
  for (uint32_t id = 2000; id < 3000; id += 2) step(r, OP_ERASE, 1, id, SLATE_OK);
  step(r, OP_SORT, 1, 0, SLATE_OK);
  /* erase_if and more growth of the source */
  step(r, OP_ERASE_IF, 0, 0, SLATE_OK);
  /* saved, and loaded into a slotmap that issued no key: every allocation
     of the load fails in turn (the destination unchanged and still a
     destination); the copy holds the same keys, rows and stale keys */
  step(r, OP_SAVE, 0, 0, SLATE_OK);
  if (slotmap_columns(&r->l, SIZES3, 3) != SLATE_OK) bad++;
  if (inject_own != NULL && slotmap_set_allocator(&r->l, inject_own) != SLATE_OK) bad++;
  step(r, OP_LOAD, 2, 0, SLATE_OK);
  bad += verify_model(&r->l, &r->ml);
  slotmap_free(&r->l);
  free(r->image.bytes);
  r->image.bytes = NULL;
  for (uint32_t id = 4800; id < 6000; id++) step(r, OP_INSERT, 0, id, SLATE_OK);
  step(r, OP_SORT, 0, 0, SLATE_OK);
  /* clear and refill the copy, erase from it, reserve on it */
  step(r, OP_CLEAR, 1, 0, SLATE_OK);
  for (uint32_t id = 8000; id < 9000; id++) step(r, OP_INSERT, 1, id, SLATE_OK);
  for (uint32_t id = 8000; id < 9000; id += 7) step(r, OP_ERASE, 1, id, SLATE_OK);
  step(r, OP_RESERVE, 1, 20000, SLATE_OK);
  /* a limit: the insert beyond it is FULL (and allocates nothing) */
  step(r, OP_LIMIT, 0, r->mm.length, SLATE_OK);
  step(r, OP_INSERT, 0, 0, SLATE_ERROR_FULL); /* record 0 was erased above */
  step(r, OP_RESERVE, 0, r->mm.length + 1, SLATE_ERROR_FULL);
  step(r, OP_LIMIT, 0, 0xFFFFFFFEu, SLATE_OK);
  step(r, OP_INSERT, 0, 0, SLATE_OK);
  bad += verify_model(&r->m, &r->mm);
  bad += verify_model(&r->c, &r->mc);
  slotmap_free(&r->m);
  slotmap_free(&r->c);
  slotmap_free(&r->m);
  return bad;
}

static unsigned workload_any(void* r) { return workload((run_s*)r); }

/* The injection (hooks_main runs it through the hooks, then through the
   slotmaps' own allocator): the baseline counts the allocations of every
   call; then allocation N fails, for every N (a slotmap never asks for
   zeroed memory). */
static void sm_injection(injection_totals_s* t) {
  inject_recorded(workload_any, &run_, &run_.inj, &sm_suite, 0, t);
}

/* A clone failing at each of its allocations, explicitly: the copy is an
   empty slotmap of the same columns, usable, and nothing leaked. */
static void test_failed_clone(void) {
  TEST_SECTION("failed clone leaves an empty, usable copy");
  enum { N = 3000 };
  slotmap_s m, c;
  static slotmap_key keys[N];
  unsigned bad = 0;
  CHECK_EQ_INT(slotmap_columns(&m, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < N; i++)
    if (put3(&m, i, &keys[i]) != SLATE_OK) bad++;
  for (uint64_t i = 0; i < N; i += 4)
    if (slotmap_erase(&m, keys[i]) != SLATE_OK) bad++;
  CHECK_EQ_INT(bad, 0);
  unsigned long long live = hk.live_bytes;
  hooks_reset(&hk);
  CHECK_EQ_INT(slotmap_clone(&c, &m), SLATE_OK);
  unsigned long long clone_allocs = hk.attempts;
  CHECK(clone_allocs >= 1);
  slotmap_free(&c);
  CHECK_EQ_U64(hk.live_bytes, live);
  unsigned long long not_alloc = 0, not_empty = 0, not_usable = 0, leaked = 0, source = 0;
  for (unsigned long long n = 1; n <= clone_allocs; n++) {
    slotmap_key k = 0;
    uint64_t calls = 0;
    hooks_reset(&hk);
    hk.fail_at = n;
    memset(&c, 0x5C, sizeof c);
    int rc = slotmap_clone(&c, &m);
    hk.fail_at = 0;
    if (rc != SLATE_ERROR_ALLOC) not_alloc++;
    if (slotmap_length(&c) != 0 || slotmap_key_at(&c, 0) != 0 || slotmap_column(&c, 0) != NULL ||
        slotmap_get(&c, keys[1], NULL) != SLATE_ERROR_NOT_FOUND ||
        slotmap_each(&c, count_rows_cb, &calls) != SLATE_OK || calls != 0)
      not_empty++;
    if (hk.live_bytes != live) leaked++;
    /* usable, with the same three columns */
    if (put3(&c, 77, &k) != SLATE_OK || !key3_is(&c, k, 77) || slotmap_column(&c, 3) != NULL)
      not_usable++;
    slotmap_free(&c);
    slotmap_free(&c);
    if (hk.live_bytes != live) leaked++;
    if (slotmap_length(&m) != N - N / 4) source++;
  }
  CHECK_EQ_U64(not_alloc, 0);
  CHECK_EQ_U64(not_empty, 0);
  CHECK_EQ_U64(not_usable, 0);
  CHECK_EQ_U64(leaked, 0);
  CHECK_EQ_U64(source, 0);
  for (uint64_t i = 0; i < N; i++)
    if (i % 4 == 0 ? slotmap_contains(&m, keys[i]) : !key3_is(&m, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_clone(&c, &m), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&c), slotmap_length(&m));
  slotmap_free(&c);
  slotmap_free(&m);
  CHECK_EQ_U64(hk.live_bytes, 0);
  CHECK_EQ_U64(hk.allocations, hk.frees);
}

/* ------------------------------------------------------------------------ */
/* slate_use_allocator at run time                                           */
/* ------------------------------------------------------------------------ */

static void test_runtime_allocator(void) {
  TEST_SECTION("slate_use_allocator and slotmaps");
  slotmap_s old_sm, new_sm, copy, plain;
  slotmap_key k;
  unsigned bad = 0;
  hooks_reset(&hk);
  hooks_reset(&hk2);
  CHECK_EQ_INT(slotmap_columns(&old_sm, SIZES3, 3), SLATE_OK); /* takes the SLATE_* hooks */
  for (uint64_t i = 0; i < 100; i++)
    if (put3(&old_sm, i, &k) != SLATE_OK) bad++;
  CHECK(hk.attempts > 0);

  CHECK_EQ_INT(slate_use_allocator(hk2_malloc, hk2_calloc, hk2_free), SLATE_OK);
  unsigned long long a1 = hk.attempts;
  CHECK_EQ_INT(slotmap_columns(&new_sm, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < 3000; i++)
    if (put3(&new_sm, i, &k) != SLATE_OK) bad++;
  CHECK(hk2.attempts > 0);
  CHECK_EQ_U64(hk.attempts, a1);

  /* the existing slotmap keeps its allocator */
  unsigned long long b1 = hk2.attempts;
  for (uint64_t i = 100; i < 3000; i++)
    if (put3(&old_sm, i, &k) != SLATE_OK) bad++;
  CHECK(hk.attempts > a1);
  CHECK_EQ_U64(hk2.attempts, b1);

  /* [D-clone] a clone made now allocates through the allocator in force */
  a1 = hk.attempts;
  CHECK_EQ_INT(slotmap_clone(&copy, &old_sm), SLATE_OK);
  CHECK_MSG(hk2.attempts > b1, "a clone made after slate_use_allocator uses the new allocator");
  CHECK_MSG(hk.attempts == a1, "a clone made after slate_use_allocator does not use its source's");
  CHECK_EQ_U64(slotmap_length(&copy), 3000);
  /* ... and so does its growth */
  b1 = hk2.attempts;
  for (uint64_t i = 3000; i < 9000; i++)
    if (put3(&copy, i, &k) != SLATE_OK) bad++;
  CHECK(hk2.attempts > b1);
  CHECK_EQ_U64(hk.attempts, a1);

  /* back to the C library */
  CHECK_EQ_INT(slate_use_allocator(NULL, NULL, NULL), SLATE_OK);
  a1 = hk.attempts;
  b1 = hk2.attempts;
  CHECK_EQ_INT(slotmap_columns(&plain, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < 3000; i++)
    if (put3(&plain, i, &k) != SLATE_OK) bad++;
  CHECK_EQ_U64(hk.attempts, a1);
  CHECK_EQ_U64(hk2.attempts, b1);
  CHECK_EQ_INT(bad, 0);
  slotmap_free(&plain);

  /* every slotmap returns its memory to the allocator it took it from */
  slotmap_free(&old_sm);
  slotmap_free(&new_sm);
  slotmap_free(&copy);
  check_both_returned();
}

int main(void) {
  static const hooks_suite_s suite = {
      NULL, test_hooks_used, test_capacity_is_real, sm_injection, &sm_suite,
      test_failed_clone, test_runtime_allocator, NULL};
  return hooks_main(&suite);
}
