/*
 * sparse/hooks.c -- the sparse sets' memory (SPEC 6b): the SLATE_*
 * hooks and a set's own allocator serve every byte a set allocates, and
 * the failure rule: a scripted workload (sets through several growths of
 * the rows and of the index's top, mid arrays and pages, takeovers of a
 * slot's other generation, sets checked against an owner, erases,
 * reserve, sort, clone and work on the clone, erase_if, clear; a
 * three-column set and a membership set, each saved and its image loaded
 * into an empty set) runs once to count its
 * allocations, then once for every N with allocation N failing. In each
 * run the call that met the failure returns SLATE_ERROR_ALLOC (no other
 * call does, no failure is swallowed), the set is unchanged (length, row
 * order, every byte of every column, every key with its record, every
 * absent key still absent), the same call then succeeds, and at the end
 * nothing leaked. After a failed clone the copy is an empty set; after a
 * failed load the destination is as it was, and a load accepts it. The whole
 * injection runs twice: through the SLATE_* hooks, and through the sets'
 * own allocator (hk_own_allocate/hk_own_release), where every release
 * must come with its block's size. The driver of the injection, and main,
 * are support/inject.h's, shared with map/hooks.c and slotmap/hooks.c; this
 * file holds what is the sets' own.
 *
 *   gcc -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude c-tests/sparse/hooks.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tsph && /tmp/tsph
 */
#include "../support/hooks.h" /* defines SLATE_MALLOC, SLATE_CALLOC, SLATE_FREE */
#define SLATE_IMPLEMENTATION
#include "slate.h"
#include "../support/test.h"
#include "../support/inject.h" /* and rows3.h */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAKE_KEY(version, slot) (((uint64_t)(uint32_t)(version) << 32) | (uint64_t)(uint32_t)(slot))
#define SENTINEL_ROW 0xC0FFEEu

/* ------------------------------------------------------------------------ */
/* the owner: a slotmap on an allocator of its own (plain malloc), so that   */
/* its memory is neither counted nor failed                                  */
/* ------------------------------------------------------------------------ */

static void* plain_allocate(void* context, size_t size) {
  (void)context;
  return malloc(size);
}
static void plain_release(void* context, void* pointer, size_t size) {
  (void)context;
  (void)size;
  free(pointer);
}

enum { OWNED = 200 };
static slotmap_s owner_;
static slotmap_key owned_[OWNED]; /* even: live; odd: dead */

static void make_owner(void) {
  const slate_allocator_s plain = {plain_allocate, plain_release, NULL};
  CHECK_EQ_INT(slotmap(&owner_, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_set_allocator(&owner_, &plain), SLATE_OK);
  for (uint32_t i = 0; i < OWNED; i++) CHECK_EQ_INT(slotmap_insert(&owner_, &i, &owned_[i]), SLATE_OK);
  for (uint32_t i = 1; i < OWNED; i += 2) CHECK_EQ_INT(slotmap_erase(&owner_, owned_[i]), SLATE_OK);
}

/* ------------------------------------------------------------------------ */
/* records and the model                                                     */
/* ------------------------------------------------------------------------ */

/* ids below OWNED name the owner's entities; the others spread over index
   pages (5 slots apart: a page every 205 ids) and, from HIGH_ID, over slot indices 2^30 and up
   (new mid arrays, a larger top). */
enum { MAXID = 7000, HIGH_ID = 6900 };

static uint32_t slot_of(uint32_t id) {
  if (id < OWNED) return (uint32_t)owned_[id];
  if (id >= HIGH_ID) return 0x40000000u + (id - HIGH_ID) * 3u * 1048576u;
  return 1024u + id * 5u;
}

typedef struct model_s {
  int membership;
  uint8_t present[MAXID];
  uint32_t gen[MAXID];
  uint32_t length;
} model_s;

static slotmap_key key_of(const model_s* md, uint32_t id) {
  if (id < OWNED) return owned_[id];
  return MAKE_KEY(md->gen[id] ? md->gen[id] : 1, slot_of(id));
}
/* the record a key's row holds: its id and generation */
static uint64_t rec_of(uint32_t id, uint32_t gen) { return (uint64_t)id * 16u + gen; }

/* Key k's row holds record `rec`, as every lookup agrees. */
static int key_holds(const slotmap_sparse_s* sp, int membership, slotmap_key k, uint64_t rec) {
  uint32_t r = SENTINEL_ROW;
  void* e = NULL;
  if (slotmap_sparse_row(sp, k, &r) != SLATE_OK || r >= slotmap_sparse_length(sp)) return 0;
  if (slotmap_sparse_key_at(sp, r) != k || slotmap_sparse_contains(sp, k) != 1) return 0;
  if (slotmap_sparse_get(sp, k, &e) != SLATE_OK) return 0;
  if (membership) return e == NULL;
  const rec_s* c0 = (const rec_s*)slotmap_sparse_column(sp, 0);
  const uint64_t* c1 = (const uint64_t*)slotmap_sparse_column(sp, 1);
  const uint8_t* c2 = (const uint8_t*)slotmap_sparse_column(sp, 2);
  rec_s want = rec_for(rec);
  return c0 != NULL && c1 != NULL && c2 != NULL && e == (const void*)(c0 + r) &&
         memcmp(&c0[r], &want, sizeof want) == 0 && c1[r] == rec && c2[r] == flag_for(rec);
}

/* Every record as the model says; every absent id (in either generation)
   absent; the rows dense. Returns the mismatches. */
static unsigned verify_model(const slotmap_sparse_s* sp, const model_s* md) {
  unsigned bad = 0;
  uint32_t n = slotmap_sparse_length(sp);
  if (n != md->length) bad++;
  for (uint32_t id = 0; id < MAXID; id++) {
    if (md->present[id]) {
      if (!key_holds(sp, md->membership, key_of(md, id), rec_of(id, md->gen[id]))) bad++;
    } else if (slotmap_sparse_contains(sp, key_of(md, id))) {
      bad++;
    }
  }
  for (uint32_t r = 0; r < n; r++) {
    uint32_t at = SENTINEL_ROW;
    if (slotmap_sparse_row(sp, slotmap_sparse_key_at(sp, r), &at) != SLATE_OK || at != r) bad++;
  }
  if (slotmap_sparse_key_at(sp, n) != 0) bad++;
  if ((slotmap_sparse_keys(sp) == NULL) != (n == 0)) bad++;
  return bad;
}

static void model_gone(model_s* md, uint32_t id) {
  if (!md->present[id]) return;
  md->present[id] = 0;
  md->length--;
}

/* ------------------------------------------------------------------------ */
/* the workload                                                              */
/* ------------------------------------------------------------------------ */

enum {
  OP_SET,
  OP_SET_OWNER,
  OP_SET_GEN,
  OP_ERASE,
  OP_RESERVE,
  OP_SORT,
  OP_CLONE,
  OP_ERASE_IF,
  OP_CLEAR,
  OP_PRUNE,
  OP_SAVE, /* slotmap_sparse_save: allocates nothing */
  OP_LOAD, /* slotmap_sparse_load of the saved image into an empty set */
  OP_COUNT
};
static const char* const op_names[OP_COUNT] = {"set",   "set_owner", "set_gen",  "erase",
                                               "reserve", "sort",    "clone",    "erase_if",
                                               "clear", "prune",     "save",     "load"};

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
  slotmap_sparse_s m, c, b; /* three columns, its clone, a membership set */
  slotmap_sparse_s l, lb;   /* loaded from the images of m and b */
  model_s mm, mc, mb, ml, mlb;
  model_s saved[2];         /* the models of m and b when saved */
  image_s image[2];         /* their images */
  unsigned ops;
  injection_s inj;
} run_s;

static run_s run_;
static rows_picture_s rows_before_, rows_after_;

static int pred_mod5(slotmap_key key, void* row, void* data) {
  (void)data;
  if (row == NULL) return (key >> 3) % 5 == 0; /* membership */
  return id_of_rec((const rec_s*)row) % 5 == 0;
}

typedef struct sp_call_s {
  inject_call_s call;
  run_s* r;
  slotmap_sparse_s* sp;
  model_s* md;
  const slotmap_sparse_s* watched;
  const model_s* watched_md;
  uint32_t arg;
} sp_call_s;

static int exec_op(sp_call_s* c) {
  unsigned char row[ROW3];
  uint32_t id = c->arg;
  switch (c->call.kind) {
    case OP_SET:
    case OP_SET_OWNER:
    case OP_SET_GEN: {
      uint32_t gen = c->call.kind == OP_SET_GEN ? c->md->gen[id] + 2 : (c->md->gen[id] ? c->md->gen[id] : 1);
      slotmap_key k = id < OWNED ? owned_[id] : MAKE_KEY(gen, slot_of(id));
      pack3(row, rec_of(id, gen));
      return slotmap_sparse_set(c->sp, c->call.kind == OP_SET_OWNER ? &owner_ : NULL, k,
                                c->md->membership ? NULL : row);
    }
    case OP_ERASE:
      return slotmap_sparse_erase(c->sp, key_of(c->md, id));
    case OP_RESERVE:
      return slotmap_sparse_reserve(c->sp, id);
    case OP_SORT:
      return slotmap_sparse_sort(c->sp, less_rec_a, NULL);
    case OP_CLONE:
      memset(&c->r->c, 0xA7, sizeof c->r->c);
      return slotmap_sparse_clone(&c->r->c, &c->r->m);
    case OP_ERASE_IF:
      return slotmap_sparse_erase_if(c->sp, pred_mod5, NULL);
    case OP_CLEAR:
      return slotmap_sparse_clear(c->sp);
    case OP_PRUNE:
      return slotmap_sparse_prune(c->sp, &owner_);
    case OP_SAVE:
      c->r->image[c->md->membership].length = 0;
      return slotmap_sparse_save(c->sp, image_write, &c->r->image[c->md->membership]);
    case OP_LOAD: {
      const image_s* im = &c->r->image[c->md->membership];
      return slotmap_sparse_load(c->sp, im->bytes, im->length);
    }
  }
  return -100;
}

static slotmap_key key_at(const void* sp, uint32_t row) {
  return slotmap_sparse_key_at((const slotmap_sparse_s*)sp, row);
}

/* The rows the call must leave unchanged (the source's, for a clone). */
static void sp_picture(const inject_call_s* call, void* picture) {
  const slotmap_sparse_s* sp = ((const sp_call_s*)call)->watched;
  const void* const none[3] = {NULL, NULL, NULL};
  const void* const column[3] = {slotmap_sparse_column(sp, 0), slotmap_sparse_column(sp, 1),
                                 slotmap_sparse_column(sp, 2)};
  int membership = ((const sp_call_s*)call)->watched_md->membership;
  picture_rows((rows_picture_s*)picture, slotmap_sparse_length(sp), key_at, sp,
               membership ? none : column);
}

static int sp_make(inject_call_s* call) { return exec_op((sp_call_s*)call); }

static unsigned sp_changes(inject_call_s* call) {
  sp_call_s* c = (sp_call_s*)call;
  return verify_model(c->watched, c->watched_md);
}

static int sp_empty_copy(inject_call_s* call) {
  run_s* r = ((sp_call_s*)call)->r;
  uint64_t n = 0;
  int ok = slotmap_sparse_length(&r->c) == 0 && slotmap_sparse_key_at(&r->c, 0) == 0 &&
           slotmap_sparse_keys(&r->c) == NULL && slotmap_sparse_column(&r->c, 0) == NULL &&
           slotmap_sparse_each(&r->c, count_rows_cb, &n) == SLATE_OK && n == 0 &&
           (r->mm.length == 0 || slotmap_sparse_contains(&r->c, slotmap_sparse_key_at(&r->m, 0)) == 0);
  /* usable, with the source's three columns */
  ok = ok && slotmap_sparse_set(&r->c, NULL, MAKE_KEY(1, 7), NULL) == SLATE_OK &&
       slotmap_sparse_column(&r->c, 2) != NULL && slotmap_sparse_column(&r->c, 3) == NULL &&
       slotmap_sparse_length(&r->c) == 1;
  slotmap_sparse_free(&r->c);
  slotmap_sparse_free(&r->c);
  return ok;
}

/* The kinds of call that must meet a failure, and that never may
   (inject_suite_s): erase_if erases as it walks, allocating nothing. */
static const int must_fail_[] = {OP_SET, OP_SET_OWNER, OP_RESERVE, OP_SORT, OP_CLONE, OP_LOAD, -1};
static const int never_fail_[] = {OP_ERASE_IF, OP_SAVE, -1};

static const inject_suite_s sp_suite = {
    op_names, OP_COUNT, "sparse set", OP_CLONE,
    0, /* the rows pictured before the call the baseline predicts to fail */
    sp_picture, same_rows, &rows_before_, &rows_after_,
    sp_make, sp_changes, sp_empty_copy, must_fail_, never_fail_};

/* One call on m (target 0), c (1), b (2), l (3) or lb (4), through the
   driver; the model follows it. */
static void step(run_s* r, int kind, int target, uint32_t arg, int expected) {
  sp_call_s c;
  slotmap_sparse_s* sets[5] = {&r->m, &r->c, &r->b, &r->l, &r->lb};
  model_s* models[5] = {&r->mm, &r->mc, &r->mb, &r->ml, &r->mlb};
  c.r = r;
  c.sp = sets[target];
  c.md = models[target];
  c.watched = kind == OP_CLONE ? &r->m : c.sp;
  c.watched_md = kind == OP_CLONE ? &r->mm : c.md;
  c.arg = arg;
  int rc = inject_step(&sp_suite, &r->inj, &c.call, kind, r->ops++, arg, expected);
  if (rc != expected || rc != SLATE_OK) return;
  model_s* md = c.md;
  switch (kind) {
    case OP_SET:
    case OP_SET_OWNER:
      if (!md->present[arg]) md->length++;
      md->present[arg] = 1;
      if (md->gen[arg] == 0) md->gen[arg] = 1;
      break;
    case OP_SET_GEN:
      if (!md->present[arg]) md->length++;
      md->present[arg] = 1;
      md->gen[arg] += 2;
      break;
    case OP_ERASE:
      model_gone(md, arg);
      break;
    case OP_CLONE:
      memcpy(&r->mc, &r->mm, sizeof r->mc);
      break;
    case OP_ERASE_IF:
      for (uint32_t id = 0; id < MAXID; id++)
        if (md->present[id] &&
            (md->membership ? (key_of(md, id) >> 3) % 5 == 0 : rec_of(id, md->gen[id]) % 5 == 0))
          model_gone(md, id);
      break;
    case OP_CLEAR:
      for (uint32_t id = 0; id < MAXID; id++) model_gone(md, id);
      break;
    case OP_PRUNE:
      for (uint32_t id = 0; id < MAXID; id++)
        if (md->present[id] && !slotmap_contains(&owner_, key_of(md, id))) model_gone(md, id);
      break;
    case OP_SAVE:
      memcpy(&r->saved[md->membership], md, sizeof *md);
      break;
    case OP_LOAD:
      memcpy(md, &r->saved[md->membership], sizeof *md);
      break;
    default:
      break;
  }
}

static unsigned workload(run_s* r) {
  unsigned bad = 0;
  memset(r, 0, sizeof *r);
  r->inj.failed_op = -1;
  r->mb.membership = 1;
  unsigned long long attempts = hk.attempts;
  if (slotmap_sparse_columns(&r->m, SIZES3, 3) != SLATE_OK) bad++;
  if (slotmap_sparse(&r->b, 0) != SLATE_OK) bad++;
  if (inject_own != NULL && slotmap_sparse_set_allocator(&r->m, inject_own) != SLATE_OK) bad++;
  if (inject_own != NULL && slotmap_sparse_set_allocator(&r->b, inject_own) != SLATE_OK) bad++;
  if (hk.attempts != attempts) bad++; /* initializing allocates nothing */
  /* the owner's entities: the living are taken, the dead refused */
  for (uint32_t id = 0; id < OWNED; id++)
    step(r, OP_SET_OWNER, 0, id, id % 2 ? SLATE_ERROR_NOT_FOUND : SLATE_OK);
  /* growth of the rows (8 .. 2048) and of the index's pages */
  for (uint32_t id = OWNED; id < 1200; id++) step(r, OP_SET, 0, id, SLATE_OK);
  /* high slot indices: a larger top, new mid arrays */
  for (uint32_t id = HIGH_ID; id < HIGH_ID + 12; id++) step(r, OP_SET, 0, id, SLATE_OK);
  for (uint32_t id = OWNED; id < 1200; id += 3) step(r, OP_ERASE, 0, id, SLATE_OK);
  for (uint32_t id = OWNED; id < OWNED + 60; id += 3) step(r, OP_ERASE, 0, id, SLATE_ERROR_NOT_FOUND);
  /* another generation of a present slot takes its row over (no new row) */
  for (uint32_t id = OWNED + 1; id < OWNED + 200; id += 3) step(r, OP_SET_GEN, 0, id, SLATE_OK);
  /* overwrite present keys */
  for (uint32_t id = OWNED + 2; id < OWNED + 100; id += 3) step(r, OP_SET, 0, id, SLATE_OK);
  /* reserve, then sets inside the room (index pages may still come) */
  step(r, OP_RESERVE, 0, 1200, SLATE_OK);
  for (uint32_t id = 1200; id < 2400; id++) step(r, OP_SET, 0, id, SLATE_OK);
  step(r, OP_SORT, 0, 0, SLATE_OK);
  /* clone, then grow, erase and sort the copy */
  step(r, OP_CLONE, 0, 0, SLATE_OK);
  for (uint32_t id = 2400; id < 3000; id++) step(r, OP_SET, 1, id, SLATE_OK);
  for (uint32_t id = 1200; id < 1700; id += 2) step(r, OP_ERASE, 1, id, SLATE_OK);
  step(r, OP_SORT, 1, 0, SLATE_OK);
  /* erase_if and more growth of the source */
  step(r, OP_ERASE_IF, 0, 0, SLATE_OK);
  for (uint32_t id = 3000; id < 3400; id++) step(r, OP_SET, 0, id, SLATE_OK);
  step(r, OP_SORT, 0, 0, SLATE_OK);
  step(r, OP_PRUNE, 0, 0, SLATE_OK);
  /* clear and refill the copy; reserve on it */
  step(r, OP_CLEAR, 1, 0, SLATE_OK);
  for (uint32_t id = 1500; id < 2000; id++) step(r, OP_SET, 1, id, SLATE_OK);
  step(r, OP_RESERVE, 1, 20000, SLATE_OK);
  step(r, OP_RESERVE, 1, 0xFFFFFFFFu, SLATE_ERROR_FULL);
  /* a membership set: growth, pages, high slots, erase_if, sort refused */
  for (uint32_t id = OWNED; id < 900; id++) step(r, OP_SET, 2, id, SLATE_OK);
  for (uint32_t id = HIGH_ID; id < HIGH_ID + 6; id++) step(r, OP_SET, 2, id, SLATE_OK);
  step(r, OP_ERASE_IF, 2, 0, SLATE_OK);
  step(r, OP_SORT, 2, 0, SLATE_ERROR_INVALID);
  step(r, OP_RESERVE, 2, 3000, SLATE_OK);
  /* both saved, and loaded into empty sets: every allocation of a load
     fails in turn (the destination unchanged and still a destination) */
  r->ml.membership = 0;
  r->mlb.membership = 1;
  if (slotmap_sparse_columns(&r->l, SIZES3, 3) != SLATE_OK) bad++;
  if (slotmap_sparse(&r->lb, 0) != SLATE_OK) bad++;
  if (inject_own != NULL && slotmap_sparse_set_allocator(&r->l, inject_own) != SLATE_OK) bad++;
  if (inject_own != NULL && slotmap_sparse_set_allocator(&r->lb, inject_own) != SLATE_OK) bad++;
  step(r, OP_SAVE, 0, 0, SLATE_OK);
  step(r, OP_SAVE, 2, 0, SLATE_OK);
  step(r, OP_LOAD, 3, 0, SLATE_OK);
  step(r, OP_LOAD, 4, 0, SLATE_OK);
  bad += verify_model(&r->l, &r->ml);
  bad += verify_model(&r->lb, &r->mlb);
  slotmap_sparse_free(&r->l);
  slotmap_sparse_free(&r->lb);
  for (int i = 0; i < 2; i++) {
    free(r->image[i].bytes);
    r->image[i].bytes = NULL;
  }
  bad += verify_model(&r->m, &r->mm);
  bad += verify_model(&r->c, &r->mc);
  bad += verify_model(&r->b, &r->mb);
  slotmap_sparse_free(&r->m);
  slotmap_sparse_free(&r->c);
  slotmap_sparse_free(&r->b);
  slotmap_sparse_free(&r->m);
  return bad;
}

static unsigned workload_any(void* r) { return workload((run_s*)r); }

/* The injection (hooks_main runs it through the hooks, then through the
   sets' own allocator): the baseline counts the allocations of every
   call; then allocation N fails, for every N (through the hooks the
   index's pages come zeroed from calloc; the own allocator is never asked
   for zeroed memory). */
static void sp_injection(injection_totals_s* t) {
  inject_recorded(workload_any, &run_, &run_.inj, &sp_suite, inject_own == NULL, t);
}

/* Read-only calls and walks allocate nothing; sets use the hooks. */
static int join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)key;
  (void)rows;
  (void)elements;
  (*(uint64_t*)data)++;
  return 0;
}

static void test_hooks_used(void) {
  TEST_SECTION("sets allocate through the hooks; reads, walks and joins allocate nothing");
  slotmap_sparse_s a, b;
  unsigned bad = 0;
  hooks_reset(&hk);
  CHECK_EQ_INT(slotmap_sparse(&a, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&b, 0), SLATE_OK);
  slotmap_sparse_free(&a);
  CHECK_EQ_U64(hk.attempts, 0);
  for (uint32_t i = 0; i < 5000; i++) {
    uint64_t v = i;
    if (slotmap_sparse_set(&a, NULL, MAKE_KEY(1, i * 3), &v) != SLATE_OK) bad++;
    if (i % 2 && slotmap_sparse_set(&b, NULL, MAKE_KEY(1, i * 3), NULL) != SLATE_OK) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(hk.attempts > 0);
  hooks_reset(&hk);
  {
    slotmap_key keys[64];
    void* elements[64];
    uint8_t found[64];
    uint64_t n = 0;
    slotmap_sparse_s* sets[2] = {&a, &b};
    for (uint32_t i = 0; i < 64; i++) keys[i] = MAKE_KEY(1, i * 5);
    for (uint32_t i = 0; i < 5000; i++) {
      void* e = NULL;
      uint32_t row = 0;
      if (slotmap_sparse_get(&a, MAKE_KEY(1, i * 3), &e) != SLATE_OK) bad++;
      if (slotmap_sparse_row(&a, MAKE_KEY(1, i * 3), &row) != SLATE_OK) bad++;
      if (slotmap_sparse_contains(&b, MAKE_KEY(1, i * 3)) != (int)(i % 2)) bad++;
    }
    if (slotmap_sparse_get_many(&a, keys, 64, elements, found) != SLATE_OK) bad++;
    if (slotmap_sparse_each(&a, count_rows_cb, &n) != SLATE_OK || n != 5000) bad++;
    n = 0;
    if (slotmap_join(NULL, sets, 2, join_cb, &n) != SLATE_OK || n != 2500) bad++;
    if (slotmap_sparse_key_at(&a, 7) == 0 || slotmap_sparse_keys(&a) == NULL ||
        slotmap_sparse_column(&a, 0) == NULL || slotmap_sparse_length(&b) != 2500)
      bad++;
    /* erasing and prune allocate nothing either */
    for (uint32_t i = 0; i < 5000; i += 7)
      if (slotmap_sparse_erase(&a, MAKE_KEY(1, i * 3)) != SLATE_OK) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(hk.attempts, 0);
  slotmap_sparse_free(&a);
  slotmap_sparse_free(&b);
  CHECK_EQ_U64(hk.live_bytes, 0);
  CHECK_EQ_U64(hk.allocations, hk.frees);
}

static void free_owner(void) {
  slotmap_free(&owner_);
  CHECK_EQ_U64(hk.live_bytes, 0);
}

int main(void) {
  static const hooks_suite_s suite = {
      make_owner, test_hooks_used, NULL, sp_injection, &sp_suite, NULL, NULL, free_owner};
  return hooks_main(&suite);
}
