/*
 * probe.c -- instructions per call, counted by callgrind: the map's u64
 * and string lookups (hits and misses), replacements, inserts of new keys
 * (fresh maps grown to N, growth included; also through slate_entry),
 * get-or-inserts of present keys, deletes and takes of every key
 * of such maps, and walks (slate_each, counted per entry), at 1,000 and
 * 100,000 keys; the slotmap's get, insert and
 * erase at 1,000 rows; the sparse sets' get, get_many and two-set join
 * (no owner, the smaller set holding every tenth key; counted per key the
 * callback gets) at 1,000 and 100,000 rows; and the batch lookups
 * (`_many`: batches of BATCH keys, counted per key). For the walk fences
 * of SPEC 3c (`scripts/walk-fence.sh`), in pairs: the erase of the key a
 * walk's callback was given (`_walk`: a sparse set's in slotmap_sparse_each,
 * the map's string and integer deletes in slate_each) and the same erase
 * outside a walk, counted per erase, at 1,000 and 100,000 keys; and at
 * 1,000 keys, replacements with another thread parked inside a walk and
 * with it parked outside one. Every map's seed is pinned, so the counts are
 * the same on every run of one binary (`scripts/probe-fence.sh` holds
 * them to ceilings).
 * Each phase is one function of REPS calls (an erase pair's phases: one
 * function per erase, called REPS times); `scripts/probe.sh` runs this
 * (`probe 1000`, `probe 100000`) under
 * `valgrind --tool=callgrind --toggle-collect=phase_*` and divides each
 * phase's inclusive count, summed over its calls, by REPS. No phase_*
 * function calls another (entering one toggles collection, so a nested
 * one would switch it off). Counts are exact and repeatable
 * for one binary, so they show what a change costs where timings on a
 * shared machine cannot.
 *
 * Keys as in bench/maps (maps/keys.h): splitmix64 outputs, strings
 * "key:<decimal>" (20-24 bytes), and path keys (60-100 bytes sharing their
 * first 5-30 bytes, through the _bytes calls with their lengths, as
 * bench/maps passes them: phase_path_*); lookups in a shuffled order.
 */
#define _POSIX_C_SOURCE 200809L

#include "slate.h"

#include "maps/keys.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 100000, STRIDE = KEY_STRIDE, BATCH = 64 };

/* Each phase is one function callgrind can toggle on (noinline), and
 * phases with the same body stay apart (no_icf: GCC folds identical
 * functions into one symbol at -O2; clang does not fold them). */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noinline, no_icf))
#else
#define NOINLINE __attribute__((noinline))
#endif

typedef struct keys_s {
  size_t n;
  uint64_t* ints;     /* present: ints[0..n), absent: ints[n..2n) */
  char* strings;      /* likewise, STRIDE bytes each */
  char* paths;        /* likewise, PATH_STRIDE bytes each */
  uint8_t* path_lens; /* their lengths */
  uint32_t* order;    /* REPS indices below n, shuffled */
} keys_s;

static void make_keys(keys_s* k, size_t n) {
  k->n = n;
  k->ints = malloc(2 * n * sizeof *k->ints);
  k->strings = malloc(2 * n * STRIDE);
  k->paths = malloc(2 * n * PATH_STRIDE);
  k->path_lens = malloc(2 * n);
  k->order = malloc(REPS * sizeof *k->order);
  if (!k->ints || !k->strings || !k->paths || !k->path_lens || !k->order) exit(1);
  uint64_t x = 42;
  for (size_t i = 0; i < 2 * n; i++) {
    k->ints[i] = splitmix64(&x);
    format_key(k->strings + i * STRIDE, k->ints[i]);
    k->path_lens[i] = (uint8_t)format_path(k->paths + i * PATH_STRIDE, k->ints[i]);
  }
  uint64_t s = 7;
  for (size_t i = 0; i < REPS; i++) k->order[i] = (uint32_t)(splitmix64(&s) % n);
}

/* Path key i (present below n, absent from n) and its length. */
#define PATH(k, i) (k)->paths + (i) * PATH_STRIDE, (k)->path_lens[i]

static volatile uintptr_t sink;

/* A probe whose own setup went wrong measures nothing: it says what and
 * exits non-zero, which fails scripts/probe.sh. */
static void fail(const char* what) {
  fprintf(stderr, "probe: %s\n", what);
  exit(1);
}

/* A new map with the probe's pinned seed. */
static void fresh(slate_s* m) {
  slate(m);
  if (slate_pin_seed(m, UINT64_C(0x5EED5EED5EED5EED)) != SLATE_OK) exit(1);
}

#define PHASE(name, body)                 \
  NOINLINE static void name(slate_s* m, const keys_s* k) { \
    uintptr_t acc = 0;                    \
    for (size_t r = 0; r < REPS; r++) {   \
      size_t i = k->order[r];             \
      void* v = NULL;                     \
      body;                               \
      acc += (uintptr_t)v;                \
    }                                     \
    sink = acc;                           \
  }

/* A walk's callback: sums the values. */
static int add_value(const char* key, uint32_t key_length, void* value, void* data) {
  (void)key;
  (void)key_length;
  *(uintptr_t*)data += (uintptr_t)value;
  return 0;
}

/* slate_each over the whole map, REPS entries in all (REPS / N walks),
 * counted per entry. */
#define EACH_PHASE(name)                                   \
  NOINLINE static void name(slate_s* m, const keys_s* k) { \
    uintptr_t acc = 0;                                     \
    for (size_t r = 0; r < REPS / k->n; r++)               \
      if (slate_each(m, add_value, &acc) != SLATE_OK) fail("slate_each"); \
    sink = acc;                                            \
  }

EACH_PHASE(phase_u64_each)
EACH_PHASE(phase_str_each)

PHASE(phase_u64_hit, slate_get_u64(m, k->ints[i], &v))
PHASE(phase_u64_miss, slate_get_u64(m, k->ints[k->n + i], &v))
PHASE(phase_u64_replace, slate_set_u64(m, k->ints[i], (void*)(uintptr_t)r))
PHASE(phase_str_hit, slate_get(m, k->strings + i * STRIDE, &v))
PHASE(phase_str_miss, slate_get(m, k->strings + (k->n + i) * STRIDE, &v))
PHASE(phase_str_replace, slate_set(m, k->strings + i * STRIDE, (void*)(uintptr_t)r))
PHASE(phase_path_hit, slate_get_bytes(m, PATH(k, i), &v))
PHASE(phase_path_miss, slate_get_bytes(m, PATH(k, k->n + i), &v))
/* slate_info of an integer map: its cost follows the tables, not the
 * slots (an integer key holds no heap bytes to count). */
PHASE(phase_u64_info, slate_info_s in; slate_info(m, &in); v = (void*)(uintptr_t)in.memory)
/* Get-or-insert of present keys, writing the value as a replace does. */
static void put(void** slot, size_t r) { *slot = (void*)(uintptr_t)r; }
PHASE(phase_u64_entry, void** slot; if (slate_entry_u64(m, k->ints[i], &slot, NULL) == SLATE_OK) put(slot, r))
PHASE(phase_str_entry, void** slot; if (slate_entry(m, k->strings + i * STRIDE, &slot, NULL) == SLATE_OK) put(slot, r))

/* Inserts of new keys: REPS / n fresh maps, each grown to the n keys
 * (the maps are made before and freed after the phase). */
#define INSERT_PHASE(name, call)                                       \
  NOINLINE static void name(slate_s* maps, const keys_s* k) {          \
    for (size_t r = 0; r < REPS / k->n; r++)                           \
      for (size_t i = 0; i < k->n; i++) call;                          \
  }

INSERT_PHASE(phase_u64_insert, slate_set_u64(&maps[r], k->ints[i], (void*)(uintptr_t)(i + 1)))
INSERT_PHASE(phase_str_insert, slate_set(&maps[r], k->strings + i * STRIDE, (void*)(uintptr_t)(i + 1)))
/* Then each of those maps emptied key by key, in insertion order. */
INSERT_PHASE(phase_u64_delete, slate_delete_u64(&maps[r], k->ints[i]))
INSERT_PHASE(phase_str_delete, slate_delete(&maps[r], k->strings + i * STRIDE))
INSERT_PHASE(phase_path_delete, slate_delete_bytes(&maps[r], PATH(k, i)))
INSERT_PHASE(phase_u64_take, slate_take_u64(&maps[r], k->ints[i], NULL))
INSERT_PHASE(phase_u64_entry_insert, { void** s; if (slate_entry_u64(&maps[r], k->ints[i], &s, NULL) == SLATE_OK) *s = (void*)(uintptr_t)(i + 1); })
INSERT_PHASE(phase_str_entry_insert, { void** s; if (slate_entry(&maps[r], k->strings + i * STRIDE, &s, NULL) == SLATE_OK) *s = (void*)(uintptr_t)(i + 1); })
INSERT_PHASE(phase_str_take, slate_take(&maps[r], k->strings + i * STRIDE, NULL))
/* Uncounted: the maps of the delete and take phases. */
INSERT_PHASE(fill_u64, slate_set_u64(&maps[r], k->ints[i], (void*)(uintptr_t)(i + 1)))
INSERT_PHASE(fill_str, slate_set(&maps[r], k->strings + i * STRIDE, (void*)(uintptr_t)(i + 1)))
INSERT_PHASE(fill_path, slate_set_bytes(&maps[r], PATH(k, i), (void*)(uintptr_t)(i + 1)))

typedef void (*maps_phase_f)(slate_s* maps, const keys_s* k);

/* `fill` (or nothing) then `phase` on REPS / n fresh maps. */
static void on_fresh_maps(const keys_s* k, maps_phase_f fill, maps_phase_f phase) {
  size_t count = REPS / k->n;
  slate_s* maps = malloc(count * sizeof *maps);
  if (!maps) exit(1);
  for (size_t r = 0; r < count; r++) fresh(&maps[r]);
  if (fill) fill(maps, k);
  phase(maps, k);
  for (size_t r = 0; r < count; r++) slate_free(&maps[r]);
  free(maps);
}

static void insert_phases(const keys_s* k) {
  on_fresh_maps(k, NULL, phase_u64_insert);
  on_fresh_maps(k, NULL, phase_str_insert);
  on_fresh_maps(k, NULL, phase_u64_entry_insert);
  on_fresh_maps(k, NULL, phase_str_entry_insert);
  on_fresh_maps(k, fill_u64, phase_u64_delete);
  on_fresh_maps(k, fill_str, phase_str_delete);
  on_fresh_maps(k, fill_u64, phase_u64_take);
  on_fresh_maps(k, fill_str, phase_str_take);
  on_fresh_maps(k, fill_path, phase_path_delete);
}

/* The keys of the lookups in their shuffled order, as the batch calls
 * take them (built before the phases). */
typedef struct batch_s {
  uint64_t* hits;
  uint64_t* misses;
  const char** hit_strings;
  const char** miss_strings;
  const void** hit_paths;
  const void** miss_paths;
  uint32_t* hit_path_lens;
  uint32_t* miss_path_lens;
  void** values;
  uint8_t* found;
} batch_s;

static void make_batch(batch_s* b, const keys_s* k) {
  b->hits = malloc(REPS * sizeof *b->hits);
  b->misses = malloc(REPS * sizeof *b->misses);
  b->hit_strings = malloc(REPS * sizeof *b->hit_strings);
  b->miss_strings = malloc(REPS * sizeof *b->miss_strings);
  b->hit_paths = malloc(REPS * sizeof *b->hit_paths);
  b->miss_paths = malloc(REPS * sizeof *b->miss_paths);
  b->hit_path_lens = malloc(REPS * sizeof *b->hit_path_lens);
  b->miss_path_lens = malloc(REPS * sizeof *b->miss_path_lens);
  b->values = malloc(REPS * sizeof *b->values);
  b->found = malloc(REPS);
  if (!b->hits || !b->misses || !b->hit_strings || !b->miss_strings || !b->hit_paths ||
      !b->miss_paths || !b->hit_path_lens || !b->miss_path_lens || !b->values || !b->found)
    exit(1);
  for (size_t r = 0; r < REPS; r++) {
    size_t i = k->order[r];
    b->hits[r] = k->ints[i];
    b->misses[r] = k->ints[k->n + i];
    b->hit_strings[r] = k->strings + i * STRIDE;
    b->miss_strings[r] = k->strings + (k->n + i) * STRIDE;
    b->hit_paths[r] = k->paths + i * PATH_STRIDE;
    b->hit_path_lens[r] = k->path_lens[i];
    b->miss_paths[r] = k->paths + (k->n + i) * PATH_STRIDE;
    b->miss_path_lens[r] = k->path_lens[k->n + i];
  }
}

#define BATCH_PHASE(name, call)                               \
  NOINLINE static void name(slate_s* m, const batch_s* b) {   \
    uintptr_t acc = 0;                                        \
    for (size_t r = 0; r < REPS; r += BATCH) {                \
      call;                                                   \
      for (size_t j = r; j < r + BATCH && j < REPS; j++)      \
        acc += b->found[j] ? (uintptr_t)b->values[j] : 0;     \
    }                                                         \
    sink = acc;                                               \
  }

#define SPAN(r) (REPS - (r) < BATCH ? REPS - (r) : BATCH)
BATCH_PHASE(phase_u64_many_hit, slate_get_many_u64(m, b->hits + r, SPAN(r), b->values + r, b->found + r))
BATCH_PHASE(phase_u64_many_miss, slate_get_many_u64(m, b->misses + r, SPAN(r), b->values + r, b->found + r))
BATCH_PHASE(phase_str_many_hit, slate_get_many(m, b->hit_strings + r, SPAN(r), b->values + r, b->found + r))
BATCH_PHASE(phase_str_many_miss, slate_get_many(m, b->miss_strings + r, SPAN(r), b->values + r, b->found + r))
BATCH_PHASE(phase_path_many_hit, slate_get_many_bytes(m, b->hit_paths + r, b->hit_path_lens + r, SPAN(r), b->values + r, b->found + r))
BATCH_PHASE(phase_path_many_miss, slate_get_many_bytes(m, b->miss_paths + r, b->miss_path_lens + r, SPAN(r), b->values + r, b->found + r))

NOINLINE static void phase_slotmap_get(slotmap_s* sm, const slotmap_key* keys, const keys_s* k) {
  uintptr_t acc = 0;
  for (size_t r = 0; r < REPS; r++) {
    void* e = NULL;
    slotmap_get(sm, keys[k->order[r]], &e);
    acc += (uintptr_t)e;
  }
  sink = acc;
}

NOINLINE static void phase_slotmap_many_get(slotmap_s* sm, const slotmap_key* keys, void** elements) {
  uintptr_t acc = 0;
  for (size_t r = 0; r < REPS; r += BATCH) {
    slotmap_get_many(sm, keys + r, SPAN(r), elements + r);
    for (size_t j = r; j < r + BATCH && j < REPS; j++) acc += (uintptr_t)elements[j];
  }
  sink = acc;
}

NOINLINE static void phase_slotmap_insert(slotmap_s* sm, slotmap_key* keys) {
  for (uint32_t r = 0; r < REPS; r++) slotmap_insert(sm, &r, &keys[r]);
}

NOINLINE static void phase_slotmap_erase(slotmap_s* sm, const slotmap_key* keys) {
  for (uint32_t r = 0; r < REPS; r++) slotmap_erase(sm, keys[r]);
}

NOINLINE static void phase_sparse_get(const slotmap_sparse_s* sp, const slotmap_key* shuffled) {
  uintptr_t acc = 0;
  for (size_t r = 0; r < REPS; r++) {
    void* e = NULL;
    slotmap_sparse_get(sp, shuffled[r], &e);
    acc += (uintptr_t)e;
  }
  sink = acc;
}

NOINLINE static void phase_sparse_many_get(const slotmap_sparse_s* sp, const slotmap_key* shuffled,
                                           void** elements, uint8_t* found) {
  uintptr_t acc = 0;
  for (size_t r = 0; r < REPS; r += BATCH) {
    slotmap_sparse_get_many(sp, shuffled + r, SPAN(r), elements + r, found + r);
    for (size_t j = r; j < r + BATCH && j < REPS; j++) acc += found[j] ? (uintptr_t)elements[j] : 0;
  }
  sink = acc;
}

static int join_visit(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)rows;
  *(uintptr_t*)data += key + (uintptr_t)elements[0] + (uintptr_t)elements[1];
  return 0;
}

/* Joins of `sets` until REPS keys were visited (`per_join` each). */
NOINLINE static void phase_sparse_join(slotmap_sparse_s* const* sets, size_t per_join) {
  uintptr_t acc = 0;
  for (size_t r = 0; r < REPS; r += per_join) slotmap_join(NULL, sets, 2, join_visit, &acc);
  sink = acc;
}

/* Erasing the key a walk's callback was given, against the same erase
 * outside any walk (SPEC 3c: within 1.5x; scripts/walk-fence.sh holds
 * the pairs to it). Each counted function is ONE erase or delete, NOINLINE
 * and named phase_*, so callgrind collects inside it alone and sums it over
 * its REPS calls: the walk's own stepping and its look at the structure
 * after each callback stay outside the count, and both functions of a pair
 * pay the same call into them. The callback calls phase_*_walk with the key
 * it was given and records that key; the pair's other phase then erases the
 * recorded keys, in the same order, from structures built the same way, so
 * both do the same swap-and-pop or slot work. REPS / n structures of n keys
 * each are emptied: REPS erases per phase. */

NOINLINE static void phase_sparse_erase_walk(slotmap_sparse_s* sp, slotmap_key key) {
  if (slotmap_sparse_erase(sp, key) != SLATE_OK) fail("slotmap_sparse_erase of the given key in a walk");
}

NOINLINE static void phase_sparse_erase(slotmap_sparse_s* sp, slotmap_key key) {
  if (slotmap_sparse_erase(sp, key) != SLATE_OK) fail("slotmap_sparse_erase outside a walk");
}

typedef struct sparse_erase_walk_s {
  slotmap_sparse_s* set;
  slotmap_key* order; /* the keys, in the order the callbacks got them */
  size_t count;
} sparse_erase_walk_s;

static int erase_given(slotmap_key key, void* element, void* data) {
  (void)element;
  sparse_erase_walk_s* w = (sparse_erase_walk_s*)data;
  w->order[w->count++] = key;
  phase_sparse_erase_walk(w->set, key);
  return 0;
}

/* `count` sets of 16-byte elements, each holding the owner's n keys as
 * the sparse phases' `all` set does. */
static void fill_sets(slotmap_sparse_s* sets, size_t count, slotmap_s* owner, const slotmap_key* keys,
                      const keys_s* k) {
  for (size_t r = 0; r < count; r++) {
    slotmap_sparse(&sets[r], 16);
    for (uint32_t i = 0; i < k->n; i++) {
      uint64_t row[2] = {i, k->ints[i]};
      if (slotmap_sparse_set(&sets[r], owner, keys[i], row) != SLATE_OK) fail("slotmap_sparse_set");
    }
  }
}

static void sparse_erase_phases(const keys_s* k, slotmap_s* owner, const slotmap_key* keys) {
  size_t count = REPS / k->n;
  slotmap_sparse_s* sets = malloc(count * sizeof *sets);
  slotmap_key* order = malloc(REPS * sizeof *order);
  if (!sets || !order) exit(1);
  fill_sets(sets, count, owner, keys, k);
  sparse_erase_walk_s w = {NULL, order, 0};
  for (size_t r = 0; r < count; r++) {
    w.set = &sets[r];
    if (slotmap_sparse_each(&sets[r], erase_given, &w) != SLATE_OK) fail("slotmap_sparse_each erasing the given keys");
    if (slotmap_sparse_length(&sets[r]) != 0) fail("a set left non-empty by a walk that erased every given key");
    slotmap_sparse_free(&sets[r]);
  }
  if (w.count != count * k->n) fail("a walk that erased the given keys visited a key twice or missed one");
  fill_sets(sets, count, owner, keys, k);
  for (size_t r = 0; r < count; r++)
    for (size_t i = 0; i < k->n; i++) phase_sparse_erase(&sets[r], order[r * k->n + i]);
  for (size_t r = 0; r < count; r++) {
    if (slotmap_sparse_length(&sets[r]) != 0) fail("a set left non-empty");
    slotmap_sparse_free(&sets[r]);
  }
  free(order);
  free(sets);
}

/* The same for the map, with the delete a user writes in a slate_each
 * callback: for string keys slate_delete_bytes(map, key, key_length) with
 * the bytes the callback was given (they are not NUL-terminated, so not
 * slate_delete); for integer keys slate_delete_u64 of the key that
 * slate_key_to_u64 decodes from them (the decoding happens in the callback,
 * outside the count). Outside a walk the same deletes take the recorded
 * keys from a buffer of the caller's. */

NOINLINE static void phase_map_delete_walk(slate_s* m, const char* key, uint32_t key_length) {
  if (slate_delete_bytes(m, key, key_length) != SLATE_OK) fail("slate_delete_bytes of the given key in a walk");
}

NOINLINE static void phase_map_delete(slate_s* m, const char* key, uint32_t key_length) {
  if (slate_delete_bytes(m, key, key_length) != SLATE_OK) fail("slate_delete_bytes outside a walk");
}

NOINLINE static void phase_map_u64_delete_walk(slate_s* m, uint64_t key) {
  if (slate_delete_u64(m, key) != SLATE_OK) fail("slate_delete_u64 of the given key in a walk");
}

NOINLINE static void phase_map_u64_delete(slate_s* m, uint64_t key) {
  if (slate_delete_u64(m, key) != SLATE_OK) fail("slate_delete_u64 outside a walk");
}

typedef struct map_delete_walk_s {
  slate_s* map;
  char* strings;       /* the string keys in the order the callbacks got them, STRIDE bytes each */
  uint32_t* lengths;   /* their lengths */
  uint64_t* ints;      /* the integer keys in that order */
  size_t count;
} map_delete_walk_s;

static int delete_given(const char* key, uint32_t key_length, void* value, void* data) {
  (void)value;
  map_delete_walk_s* w = (map_delete_walk_s*)data;
  if (key_length >= STRIDE) fail("a string key longer than the probe's keys");
  memcpy(w->strings + w->count * STRIDE, key, key_length);
  w->lengths[w->count++] = key_length;
  phase_map_delete_walk(w->map, key, key_length);
  return 0;
}

static int delete_given_u64(const char* key, uint32_t key_length, void* value, void* data) {
  (void)value;
  map_delete_walk_s* w = (map_delete_walk_s*)data;
  uint64_t u;
  if (slate_key_to_u64(key, key_length, &u) != SLATE_OK) fail("slate_key_to_u64 of a walk's key");
  w->ints[w->count++] = u;
  phase_map_u64_delete_walk(w->map, u);
  return 0;
}

/* Walks each of the REPS / n `maps` with `callback`, which deletes every
 * key it is given; each walk must visit each of the map's n keys once and
 * leave it empty. */
static void walk_deleting(slate_s* maps, const keys_s* k, slate_each_f callback, map_delete_walk_s* w) {
  w->count = 0;
  for (size_t r = 0; r < REPS / k->n; r++) {
    w->map = &maps[r];
    if (slate_each(&maps[r], callback, w) != SLATE_OK) fail("slate_each deleting the given keys");
    if (slate_length(&maps[r]) != 0) fail("a map left non-empty by a walk that deleted every given key");
  }
  if (w->count != REPS / k->n * k->n) fail("a walk that deleted the given keys visited a key twice or missed one");
}

/* Counted: the deletes of walk_deleting's recorded keys, outside a walk. */
static void delete_recorded(slate_s* maps, const keys_s* k, const map_delete_walk_s* w) {
  for (size_t r = 0; r < REPS / k->n; r++)
    for (size_t i = 0, j = r * k->n; i < k->n; i++, j++) phase_map_delete(&maps[r], w->strings + j * STRIDE, w->lengths[j]);
}

static void delete_recorded_u64(slate_s* maps, const keys_s* k, const map_delete_walk_s* w) {
  for (size_t r = 0; r < REPS / k->n; r++)
    for (size_t i = 0, j = r * k->n; i < k->n; i++, j++) phase_map_u64_delete(&maps[r], w->ints[j]);
}

/* REPS / n fresh maps, filled by `fill`. */
static void fill_fresh(slate_s* maps, const keys_s* k, maps_phase_f fill) {
  for (size_t r = 0; r < REPS / k->n; r++) fresh(&maps[r]);
  fill(maps, k);
}

/* Frees maps that the deletes must have emptied. */
static void free_emptied(slate_s* maps, const keys_s* k) {
  for (size_t r = 0; r < REPS / k->n; r++) {
    if (slate_length(&maps[r]) != 0) fail("a map left non-empty by deletes of all its keys");
    slate_free(&maps[r]);
  }
}

static void map_delete_phases(const keys_s* k) {
  slate_s* maps = malloc(REPS / k->n * sizeof *maps);
  map_delete_walk_s w = {NULL, malloc((size_t)REPS * STRIDE), malloc(REPS * sizeof(uint32_t)),
                         malloc(REPS * sizeof(uint64_t)), 0};
  if (!maps || !w.strings || !w.lengths || !w.ints) exit(1);
  fill_fresh(maps, k, fill_str);
  walk_deleting(maps, k, delete_given, &w);
  free_emptied(maps, k);
  fill_fresh(maps, k, fill_str);
  delete_recorded(maps, k, &w);
  free_emptied(maps, k);
  fill_fresh(maps, k, fill_u64);
  walk_deleting(maps, k, delete_given_u64, &w);
  free_emptied(maps, k);
  fill_fresh(maps, k, fill_u64);
  delete_recorded_u64(maps, k, &w);
  free_emptied(maps, k);
  free(w.strings);
  free(w.lengths);
  free(w.ints);
  free(maps);
}

/* The sparse phases: an owner of n rows, a set of 16-byte elements for
 * every key, a second for every tenth. */
static void sparse_phases(const keys_s* k, void** elements, uint8_t* found) {
  size_t n = k->n;
  slotmap_s owner;
  slotmap_sparse_s all, tenth;
  slotmap_key* keys = malloc(n * sizeof *keys);
  slotmap_key* shuffled = malloc(REPS * sizeof *shuffled);
  if (!keys || !shuffled) exit(1);
  slotmap(&owner, sizeof(uint32_t));
  slotmap_sparse(&all, 16);
  slotmap_sparse(&tenth, 16);
  for (uint32_t i = 0; i < n; i++) {
    if (slotmap_insert(&owner, &i, &keys[i]) != SLATE_OK) exit(1);
    uint64_t row[2] = {i, k->ints[i]};
    if (slotmap_sparse_set(&all, &owner, keys[i], row) != SLATE_OK) exit(1);
  }
  for (size_t r = 0; r < n / 10; r++)
    if (slotmap_sparse_set(&tenth, &owner, keys[k->order[r]], NULL) != SLATE_OK) exit(1);
  for (size_t r = 0; r < REPS; r++) shuffled[r] = keys[k->order[r]];
  phase_sparse_get(&all, shuffled);
  phase_sparse_many_get(&all, shuffled, elements, found);
  slotmap_sparse_s* const sets[2] = {&all, &tenth};
  phase_sparse_join(sets, slotmap_sparse_length(&tenth));
  sparse_erase_phases(k, &owner, keys);
  slotmap_sparse_free(&tenth);
  slotmap_sparse_free(&all);
  slotmap_free(&owner);
  free(shuffled);
  free(keys);
}

/* The thread fence: the instructions this thread spends on REPS
 * replacements of present keys (as phase_u64_replace), once while another
 * thread is parked inside a slotmap_each callback on a slotmap of its own
 * (beside_walk), once while that other thread is parked outside any walk
 * (alone; so both phases run beside one parked thread and differ only in
 * its walk). A walk keeps no state outside its own frame (SPEC 3c), so the
 * two counts agree (scripts/walk-fence.sh: within 1%). callgrind's
 * collection state is per thread and the parked thread never enters a
 * phase_* function, so none of its instructions are in either count. */
PHASE(phase_u64_set_alone, slate_set_u64(m, k->ints[i], (void*)(uintptr_t)r))
PHASE(phase_u64_set_beside_walk, slate_set_u64(m, k->ints[i], (void*)(uintptr_t)r))

typedef struct parked_s {
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int in_walk; /* park inside a slotmap_each callback, or outside any walk */
  int parked;  /* set by the parked thread once it waits */
  int done;    /* set by the measuring thread once it is done */
  int result;  /* the parked thread's slotmap_each result */
  pthread_t thread;
} parked_s;

static void wait_until_done(parked_s* p) {
  pthread_mutex_lock(&p->lock);
  p->parked = 1;
  pthread_cond_broadcast(&p->changed);
  while (!p->done) pthread_cond_wait(&p->changed, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

static int park_in_callback(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  wait_until_done((parked_s*)data);
  return 0;
}

static void* parked_thread(void* arg) {
  parked_s* p = (parked_s*)arg;
  if (!p->in_walk) {
    wait_until_done(p);
    p->result = SLATE_OK;
    return NULL;
  }
  slotmap_s sm;
  slotmap_key key;
  uint32_t row = 1;
  slotmap(&sm, sizeof row);
  if (slotmap_insert(&sm, &row, &key) != SLATE_OK) fail("slotmap_insert");
  p->result = slotmap_each(&sm, park_in_callback, p);
  slotmap_free(&sm);
  return NULL;
}

/* Starts the other thread and returns once it is parked. */
static void park_other_thread(parked_s* p, int in_walk) {
  memset(p, 0, sizeof *p);
  p->in_walk = in_walk;
  p->result = -1;
  if (pthread_mutex_init(&p->lock, NULL) || pthread_cond_init(&p->changed, NULL)) fail("pthread init");
  if (pthread_create(&p->thread, NULL, parked_thread, p)) fail("pthread_create");
  pthread_mutex_lock(&p->lock);
  while (!p->parked) pthread_cond_wait(&p->changed, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

static void release_other_thread(parked_s* p) {
  pthread_mutex_lock(&p->lock);
  p->done = 1;
  pthread_cond_broadcast(&p->changed);
  pthread_mutex_unlock(&p->lock);
  if (pthread_join(p->thread, NULL)) fail("pthread_join");
  if (p->result != SLATE_OK) fail("the parked thread's walk did not return SLATE_OK");
  pthread_cond_destroy(&p->changed);
  pthread_mutex_destroy(&p->lock);
}

static void thread_phases(const keys_s* k) {
  slate_s m;
  fresh(&m);
  for (size_t i = 0; i < k->n; i++) slate_set_u64(&m, k->ints[i], (void*)(uintptr_t)(i + 1));
  parked_s p;
  park_other_thread(&p, 0);
  phase_u64_set_alone(&m, k);
  release_other_thread(&p);
  park_other_thread(&p, 1);
  phase_u64_set_beside_walk(&m, k);
  release_other_thread(&p);
  slate_free(&m);
}

/* probe N: the map phases and the sparse sets' at N keys; with N = 1000
 * also the slotmap's and the thread fence's. */
int main(int argc, char** argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
  {
    keys_s k;
    make_keys(&k, n);
    batch_s b;
    make_batch(&b, &k);
    insert_phases(&k);
    map_delete_phases(&k);
    slate_s m;
    fresh(&m);
    for (size_t i = 0; i < k.n; i++) slate_set_u64(&m, k.ints[i], (void*)(uintptr_t)(i + 1));
    phase_u64_hit(&m, &k);
    phase_u64_miss(&m, &k);
    phase_u64_many_hit(&m, &b);
    phase_u64_many_miss(&m, &b);
    phase_u64_replace(&m, &k);
    phase_u64_entry(&m, &k);
    phase_u64_info(&m, &k);
    phase_u64_each(&m, &k);
    slate_free(&m);
    fresh(&m);
    for (size_t i = 0; i < k.n; i++) slate_set(&m, k.strings + i * STRIDE, (void*)(uintptr_t)(i + 1));
    phase_str_hit(&m, &k);
    phase_str_miss(&m, &k);
    phase_str_many_hit(&m, &b);
    phase_str_many_miss(&m, &b);
    phase_str_replace(&m, &k);
    phase_str_entry(&m, &k);
    phase_str_each(&m, &k);
    slate_free(&m);
    fresh(&m);
    for (size_t i = 0; i < k.n; i++) slate_set_bytes(&m, PATH(&k, i), (void*)(uintptr_t)(i + 1));
    phase_path_hit(&m, &k);
    phase_path_miss(&m, &k);
    phase_path_many_hit(&m, &b);
    phase_path_many_miss(&m, &b);
    slate_free(&m);
    sparse_phases(&k, b.values, b.found);
    if (n == 1000) {
      /* slotmap of 1,000 rows: get; then REPS inserts and erases */
      slotmap_s sm;
      slotmap(&sm, sizeof(uint32_t));
      slotmap_key* keys = malloc(REPS * sizeof *keys);
      if (!keys) return 1;
      for (uint32_t r = 0; r < 1000; r++) slotmap_insert(&sm, &r, &keys[r]);
      phase_slotmap_get(&sm, keys, &k);
      slotmap_key* shuffled = malloc(REPS * sizeof *shuffled);
      if (!shuffled) return 1;
      for (size_t r = 0; r < REPS; r++) shuffled[r] = keys[k.order[r]];
      phase_slotmap_many_get(&sm, shuffled, b.values);
      free(shuffled);
      slotmap_free(&sm);
      slotmap(&sm, sizeof(uint32_t));
      slotmap_reserve(&sm, REPS);
      phase_slotmap_insert(&sm, keys);
      phase_slotmap_erase(&sm, keys);
      slotmap_free(&sm);
      free(keys);
      thread_phases(&k);
    }
    free(k.ints);
    free(k.strings);
    free(k.paths);
    free(k.path_lens);
    free(k.order);
    free(b.hits);
    free(b.misses);
    free(b.hit_strings);
    free(b.miss_strings);
    free(b.hit_paths);
    free(b.miss_paths);
    free(b.hit_path_lens);
    free(b.miss_path_lens);
    free(b.values);
    free(b.found);
  }
  return 0;
}
