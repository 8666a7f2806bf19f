/*
 * map/batch, the suite of the batch lookups (SPEC 3 and 6:
 * slate_get_many_u64, slate_get_many_i64, slate_get_many_bytes,
 * slate_get_many and slotmap_get_many), is one program built from the
 * units in c-tests/map/batch/: main.c runs the tests in order, keys.c
 * builds the key universe and its model, check.c holds the differential
 * checkers every test goes through, and each other unit one concept's
 * tests. This header declares what the units share.
 *
 * Every batch is checked against the single calls (slate_get_u64,
 * slate_get_i64, slate_get_bytes, slate_get, slotmap_get), key by key,
 * and, where the test knows what the structure holds, against that model
 * as well; the checker also makes sure the call returned SLATE_OK, wrote
 * nothing into values[i] of a missing key (prefilled with a value per
 * position), allocated nothing through the map's allocator and left the
 * structure's bytes as they were.
 *
 * Library decisions the suite relies on to reach every path (README,
 * "Decisions a user must know", and slotmap/api's list):
 *   - a zero-filled slate_s is a valid empty map;
 *   - a map that never held more than 8 entries is one group (slate_info's
 *     `small`);
 *   - a table of only u64 (or only i64) keys has the integer slot layout, a
 *     key of another kind makes its table general (slate_table_info's
 *     `int_keys`), so u64 keys and a few strings give a map of both;
 *   - the whole universe (about 62,000 entries) reaches global depth 7,
 *     from which a batch requests its lines ahead (src/map/batch.rs);
 *     40,000 slotmap slots pass the slotmap's threshold (2^15);
 *   - fresh slotmap slots are numbered 0, 1, 2, ... in order, and a
 *     slotmap starts its generations at a random number (a key of another
 *     slotmap is not found but with negligible probability).
 */

#ifndef SLATE_TEST_BATCH_H
#define SLATE_TEST_BATCH_H

#define TEST_UNITS /* one pair of pass/fail counters for all the units */
#include "slate.h"
#include "slate-introspect.h"
#include "../../support/test.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(n) ((void*)(uintptr_t)(n))

/* What values[i] holds before a batch call: a pointer per position, no
   value of any map (the maps' values are even, these odd). */
#define PREFILL(i) ((void*)(uintptr_t)(((uintptr_t)(i) << 1) | 1u))
/* What found[i] holds before: neither 0 nor 1. */
#define FOUND_PREFILL 0xEEu
/* What elements[i] holds before a slotmap batch (which writes every one). */
extern char sentinel_object_;
#define SENTINEL ((void*)&sentinel_object_)

/* Which call a map batch goes through. */
enum { VIA_U64, VIA_I64, VIA_BYTES, VIA_STRING, VIA_COUNT };
extern const char* const via_names_[VIA_COUNT];

/* The batch sizes every state is tried with (and a large one elsewhere). */
extern const size_t batch_sizes_[];
extern const size_t batch_size_count_;

/* ------------------------------------------------------------------------ */
/* random numbers (keys.c): splitmix64, seeded once by main                 */
/* ------------------------------------------------------------------------ */

void rnd_seed(uint64_t seed);
uint64_t rnd(void);
uint32_t rnd_below(uint32_t n); /* 0 .. n-1, n > 0 */
int rnd_one_in(uint32_t n);
/* A bijection of the 64-bit integers (splitmix64's finalizer): distinct
   inputs give distinct keys. */
uint64_t mix64(uint64_t x);
/* malloc that ends the run when there is no memory. */
void* xmalloc(size_t n);

/* ------------------------------------------------------------------------ */
/* keys and the model (keys.c)                                              */
/* ------------------------------------------------------------------------ */

enum { KIND_STRING, KIND_BYTES, KIND_I64, KIND_U64 };

/* A universe key: the bytes the map sees (a string without its NUL; an
   integer as 0x00, 0x01 (i64) or 0x02 (u64), then 8 bytes little-endian,
   SPEC 3), and its model slot: universe keys with equal bytes share one,
   so "u64 7" and its 10-byte encoding are one entry. */
typedef struct tkey {
  int kind;
  uint32_t len;
  uint64_t ival;          /* the integer of an i64/u64 key */
  const unsigned char* b; /* len bytes, then a NUL */
  uint32_t slot;
  int nul_free; /* no NUL among the bytes: a string call can reach it */
} tkey;

/* The universe: DIVERSE keys of every kind and length class (0, 1..28,
   29..32, 33..128, over 128 bytes; NULs inside; integer encodings and
   near misses), then INTS integer keys (u64 first, then i64). */
#define DIVERSE 2048u
#define INTS 60000u
#define UNIVERSE (DIVERSE + INTS)
#define U64_FIRST DIVERSE
#define I64_FIRST (DIVERSE + INTS / 2)
extern tkey* universe_;

void build_universe(void);
void free_universe(void);
void encode_int(unsigned char out[10], unsigned char tag, uint64_t value);

/* What a map holds, by model slot; `list` holds the present slots (in no
   order), `pos` each one's place in it. */
typedef struct model_s {
  uint32_t size;
  unsigned char* present;
  uintptr_t* value;
  uint32_t* list;
  uint32_t* pos;
} model_s;

/* The model slot of a byte string, or -1 when no universe key has those
   bytes (then no test ever inserts it). */
int32_t model_find(const void* bytes, uint32_t len);
/* A random universe key of model slot `slot` that a batch of `via` can
   take, or NULL when there is none. */
const tkey* key_of_slot(uint32_t slot, int via);

void model_init(model_s* md);
void model_release(model_s* md);
void model_clear(model_s* md);
/* A value for an entry: even and never 0 (PREFILL is odd). */
uintptr_t gen_value(void);
/* Inserts key k through a random entry point that reaches it, into both
   map and model; deletes likewise. Count a problem when the call fails. */
void put_key(slate_s* m, model_s* md, const tkey* k, uintptr_t value, unsigned long* bad);
void del_key(slate_s* m, model_s* md, const tkey* k, unsigned long* bad);
/* Puts (or deletes) universe_[first .. first+n-1]. */
void put_range(slate_s* m, model_s* md, uint32_t first, uint32_t n);
void del_range(slate_s* m, model_s* md, uint32_t first, uint32_t n);
/* The map holds what the model holds (length, a walk, slate_check). */
int map_matches(const slate_s* m, const model_s* md);

/* ------------------------------------------------------------------------ */
/* batches and the checkers (check.c)                                       */
/* ------------------------------------------------------------------------ */

/* One batch of keys in the form of one call, with what the model expects
   of each (expect -1: the test does not know). */
typedef struct batch_s {
  size_t n, cap;
  int via;
  unsigned char* arena; /* the bytes of fresh keys (fill_random) */
  size_t arena_used, arena_cap;
  uint64_t* u64;
  int64_t* i64;
  const void** ptrs;
  uint32_t* lens;
  const char** strs;
  signed char* expect;
  uintptr_t* want; /* the value of an expected key */
  void** values;
  uint8_t* found;
} batch_s;

void batch_init(batch_s* b, size_t cap, int via);
void batch_release(batch_s* b);
void batch_reset(batch_s* b, int via);
/* Appends universe key k (it must be reachable through b->via) with the
   model's expectation. */
void batch_add(batch_s* b, const tkey* k, const model_s* md);
/* Appends a key that is no universe key, for which the test knows the
   answer (expect -1: unknown). */
void batch_add_u64(batch_s* b, uint64_t key, int expect, uintptr_t want);
void batch_add_i64(batch_s* b, int64_t key, int expect, uintptr_t want);
void batch_add_bytes(batch_s* b, const void* key, uint32_t len, int expect, uintptr_t want);
void batch_add_string(batch_s* b, const char* key, int expect, uintptr_t want);
/* Exchanges two positions; shuffles the batch. */
void batch_swap(batch_s* b, size_t i, size_t j);
void batch_shuffle(batch_s* b);
/* Whether universe key k can go into a batch of `via`. */
int reachable(const tkey* k, int via);
/* A random universe key reachable through `via`, from universe_[0 .. limit-1]
   (where there is one; else from the INTS region or the empty string). */
const tkey* pick_key(int via, uint32_t limit);
/* A random batch of n keys for `via`: present and absent keys interleaved,
   duplicates, keys no test ever inserts. */
void fill_random(batch_s* b, int via, size_t n, uint32_t limit, const model_s* md);

/* The batch call of b->via with its arrays (values NULL when !with_values). */
int call_batch(const slate_s* m, const batch_s* b, int with_values);

/* The differential check of one batch (see the file comment): returns the
   number of keys found; counts one assertion per property. */
size_t check_batch(const slate_s* m, batch_s* b, int with_values, const char* label);
/* Every size of batch_sizes_, every call, with and without values, random
   keys from universe_[0 .. limit-1]. Returns the keys found. */
size_t battery(const slate_s* m, const model_s* md, uint32_t limit, const char* label);

/* The slotmap side: elements[i] against slotmap_get; expect (when not
   NULL) 1 for a key that must be found, 0 for one that must not, -1 for
   one the test cannot tell. Returns the keys found. */
size_t check_slotmap_batch(const slotmap_s* sm, const slotmap_key* keys, size_t n,
                           const signed char* expect, void** elements, const char* label);

/* slate(), slotmap() and slotmap_columns() on zeroed memory: the checkers
   compare a structure's bytes before and after a call, and slate() need
   not write every private byte (valgrind would see undefined ones). */
static inline int init_map(slate_s* m) {
  memset(m, 0, sizeof *m);
  return slate(m);
}
static inline int init_slotmap(slotmap_s* sm, uint32_t element_size) {
  memset(sm, 0, sizeof *sm);
  return slotmap(sm, element_size);
}
static inline int init_columns(slotmap_s* sm, const uint32_t* sizes, uint32_t count) {
  memset(sm, 0, sizeof *sm);
  return slotmap_columns(sm, sizes, count);
}

/* The allocator's attempts so far (main.c: the counting hooks). */
unsigned long long alloc_attempts(void);

/* ------------------------------------------------------------------------ */
/* the tests, in the order main.c runs them                                  */
/* ------------------------------------------------------------------------ */

void test_invalid(void);                        /* invalid.c */
void test_count_zero(void);                     /* invalid.c */
void test_map_states(void);                     /* states.c */
void test_key_lengths(void);                    /* states.c */
void test_integer_encodings(void);              /* states.c */
void test_duplicates(void);                     /* states.c */
void test_inside_each(void);                    /* walks.c */
void test_slotmap_basics(void);                 /* slotmap.c */
void test_slotmap_forged(void);                 /* slotmap.c */
void test_slotmap_lifecycle(void);              /* slotmap.c */
void test_slotmap_columns(void);                /* slotmap.c */
void test_inside_slotmap_each(void);            /* walks.c */
void test_large(unsigned long steps);           /* large.c */
void test_slotmap_large(unsigned long steps);   /* slotmap.c */
void test_random(unsigned long steps);          /* random.c */
void test_slotmap_random(unsigned long steps);  /* slotmap.c */

#endif
