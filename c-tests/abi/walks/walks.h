/*
 * abi/walks, the suite of SPEC 3c (walks and callbacks), is one program
 * built from the units in c-tests/abi/walks/: main.c runs the tests in
 * order; common.c holds what the others share (a tracking allocator, the
 * model of a structure, the record of visits, the write kinds); map.c,
 * slotmap.c, sparse.c and join.c run every write kind from inside every
 * walk of their structure against the model; nesting.c holds deep nesting
 * and the read-only walks that allocate nothing; random.c draws scenarios
 * from a seed. This header declares what the units share.
 *
 * What SPEC 3c promises, as the tests use it: after each callback the walk
 * looks at the walked structure;
 *   - unchanged, or only values of present keys replaced: it goes on;
 *   - the only change is the removal of the key the callback was given
 *     (also a clear or free when that key was the last entry): it goes on,
 *     and every entry present at its start and not removed is visited
 *     exactly once;
 *   - any other change: it stops at once and returns SLATE_ERROR_INVALID,
 *     unless the callback's own non-zero return came with that call in a
 *     walk where non-zero stops it (each, sparse each, join).
 * A write is carried out as outside a walk, so the structure afterwards
 * equals the model with the write applied. A predicate's answer that came
 * with a change is not applied; slate_delete_if, slotmap_erase_if and
 * slotmap_sparse_erase_if erase as they go (the dense ones by
 * swap-and-pop: the erased row is refilled by the last, asked next), and
 * what they erased before they stopped stays erased; a sort that stops
 * applies no order.
 *
 * Library decisions the suite relies on (see the other suites' headers):
 *   [D-key]    a slotmap key is version << 32 | slot, live versions odd;
 *              the first n inserts into a fresh slotmap take slots 0..n-1.
 *   [D-append] a new slotmap row or sparse key appends its row.
 *   [D-gen]    a key of another generation set into a sparse set takes
 *              over the row of its slot's key, in place.
 */
#ifndef SLATE_TEST_WALKS_H
#define SLATE_TEST_WALKS_H

#define TEST_UNITS /* one pair of pass/fail counters for all the units */
#include "slate.h"
#include "../../support/test.h"
#include "../../support/map_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(n) ((void*)(uintptr_t)(n))
#define SENTINEL_PTR V(0x5EED)
#define KEY_SLOT(k) ((uint32_t)((k)&0xFFFFFFFFu))
#define KEY_VERSION(k) ((uint32_t)((k) >> 32))
#define MAKE_KEY(version, slot) (((uint64_t)(uint32_t)(version) << 32) | (uint64_t)(uint32_t)(slot))

/* ------------------------------------------------------------------------ */
/* a tracking allocator (slate_set_allocator and its slotmap and set forms)  */
/* ------------------------------------------------------------------------ */

/* Remembers every live block, so that a structure re-initialised inside a
 * walk (which forgets its memory without freeing it, as slate() and
 * slotmap() say) leaks nothing: arena_drop releases what is left. */
typedef struct arena_s {
  void** blocks;
  size_t* sizes;
  size_t n, cap;
  unsigned long long allocs;   /* allocate calls */
  unsigned long long releases; /* release calls */
  unsigned long long live_bytes;
  unsigned long long bad; /* a release of a block this arena did not give, or a wrong size */
} arena_s;

void arena_init(arena_s* a);
slate_allocator_s arena_allocator(arena_s* a);
/* Releases every block still live and the arena's own bookkeeping; returns
 * how many blocks were still live. */
size_t arena_drop(arena_s* a);

/* ------------------------------------------------------------------------ */
/* the model of a structure: keys (in dense order where it is known) and    */
/* their values                                                              */
/* ------------------------------------------------------------------------ */

typedef struct model_s {
  uint64_t* keys;
  uint64_t* vals;
  uint32_t n, cap;
  int order_known; /* keys[] is the structure's dense order */
  uint32_t* index; /* key -> position + 1 (open addressing) */
  uint32_t bits;
} model_s;

void model_init(model_s* m, uint32_t cap);
void model_free(model_s* m);
void model_copy(model_s* to, const model_s* from); /* `to` initialized */
int model_find(const model_s* m, uint64_t key);    /* index or -1 */
void model_put(model_s* m, uint64_t key, uint64_t value); /* replace, or append */
void model_erase_swap(model_s* m, uint64_t key); /* swap-and-pop */
void model_erase_keep(model_s* m, uint64_t key); /* the others keep their order */
void model_rekey(model_s* m, uint64_t key, uint64_t to, uint64_t value); /* same position */
void model_clear(model_s* m);
void model_sort_by_value(model_s* m); /* ascending values */
/* The value of a present key (0 for an absent one). */
uint64_t model_value(const model_s* m, uint64_t key);
/* A present key other than `not_this`, or 0 when there is none. */
uint64_t model_other(const model_s* m, uint64_t not_this);

/* ------------------------------------------------------------------------ */
/* the keys a walk visited                                                   */
/* ------------------------------------------------------------------------ */

typedef struct visits_s {
  uint64_t* keys;
  uint32_t n, cap;
} visits_s;

void visits_init(visits_s* v);
void visits_free(visits_s* v);
void visits_add(visits_s* v, uint64_t key);
int visits_has(const visits_s* v, uint64_t key);
/* Every visit is of a key of `expected` and none is repeated; returns the
 * breaches. With `all`, also every key of `expected` was visited. */
unsigned visits_problems(const visits_s* v, const model_s* expected, int all);

/* ------------------------------------------------------------------------ */
/* what a callback does to the walked structure                              */
/* ------------------------------------------------------------------------ */

enum write_e {
  W_NONE = 0,        /* nothing: the control */
  W_SET_NEW,         /* set / insert a new key */
  W_SET_PRESENT,     /* replace the value of another present key */
  W_SET_GIVEN,       /* replace the value of the given key */
  W_DEL_GIVEN,       /* delete / erase the given key */
  W_TAKE_GIVEN,      /* map: slate_take of the given key */
  W_DEL_GIVEN_BYTES, /* map: slate_delete_bytes through the key pointer given */
  W_ITER_DEL_GIVEN,  /* map: a cursor deletes the given key */
  W_DEL_OTHER,       /* delete another present key */
  W_DEL_ABSENT,      /* delete a key that is not there: no change */
  W_ENTRY_NEW,       /* map: slate_entry of a new key */
  W_ENTRY_PRESENT,   /* map: slate_entry of a present key, value written through it */
  W_CLEAR,
  W_COMPACT,         /* map */
  W_RESERVE_SMALL,   /* a reserve that allocates and moves nothing */
  W_RESERVE_BIG,     /* a reserve that grows */
  W_FREE,
  W_REINIT,          /* slate() / slotmap() / slotmap_sparse() */
  W_NESTED_NONE,     /* a nested delete_if / erase_if that removes nothing */
  W_NESTED_GIVEN,    /* ... that removes the given key only */
  W_NESTED_OTHER,    /* ... that removes another key */
  W_SET_ALLOCATOR,   /* INVALID on a structure holding memory: no change */
  W_PIN_SEED,        /* map: as W_SET_ALLOCATOR */
  W_SORT,            /* slotmap / set: a nested sort that reorders */
  W_PRUNE_GIVEN,     /* set: the given key dies in the entity slotmap, then prune */
  W_PRUNE_OTHER,     /* set: another key dies, then prune */
  W_SET_OTHER_GEN,   /* set: a key of another generation of the given key's slot */
  W_OWNER_ERASE_GIVEN, /* join: the given entity dies in the entity slotmap */
  W_OWNER_ERASE_OTHER, /* join: an entity not yet reached dies */
  W_OWNER_INSERT,      /* join: a new entity */
  W_OWNER_CLEAR,       /* join: every entity dies */
  W_DEL_OR_CLEAR,    /* delete the given key; clear instead when it is the last entry */
  W_DEL_OR_FREE,     /* delete the given key; free instead when it is the last entry */
  W_COUNT
};
const char* write_name(int w);

/* What a write did to the walked structure (SPEC 3c's three cases). */
enum change_e { C_NONE = 0, C_GIVEN, C_CHANGE };

/* The call at which a scenario writes: 1 (the first), AT_MIDDLE, AT_LAST,
 * or any other number n, taken as 1 + (n - 1) % calls. */
#define AT_FIRST 1u
#define AT_MIDDLE 0xFFFFFFFEu
#define AT_LAST 0xFFFFFFFFu
uint32_t resolve_at(uint32_t at, uint32_t calls);

/* One scenario: a structure of n entries, one walk of it, one write kind
 * made at call `at` (or, with `every`, at each call whose entry's number
 * is a multiple of `every`: given-key removals on many entries). */
typedef struct scenario_s {
  int walk;          /* the family's walk */
  int write;         /* enum write_e */
  uint32_t at;       /* see AT_*; 0: never */
  uint32_t every;    /* 0: only at `at` */
  int ret;           /* the callback's return at the write (a predicate's answer) */
  uint32_t n;        /* entries (join: keys in the smallest set) */
  int pattern;       /* predicates answer 1 for every third entry elsewhere */
  int strings;       /* map: string keys (else u64) */
  int membership;    /* set: no columns */
  int sets;          /* join: 2 or 3 */
  int owner;         /* join: the entity slotmap is passed as owner */
  int target;        /* join: 0 the walked set, 1 a tested set, 2 the entity slotmap */
  int smallest;      /* join: the index of the smallest set */
} scenario_s;

void scenario_init(scenario_s* s);
void scenario_print(const char* family, const scenario_s* s);

/* What the walk returns, and whether it stops at the write's call: each
 * kind of walk (`stops_on_return`: each, sparse each, join) lets the
 * callback's non-zero return stand; a change stops any walk with INVALID. */
int expected_rc(int stops_on_return, int change, int ret, int* stops);

/* ------------------------------------------------------------------------ */
/* the families (one unit each)                                              */
/* ------------------------------------------------------------------------ */

enum { MAP_EACH = 0, MAP_DELETE_IF, MAP_WALKS };
enum { SM_EACH = 0, SM_ERASE_IF, SM_SORT, SM_WALKS };
enum { SP_EACH = 0, SP_ERASE_IF, SP_SORT, SP_WALKS };

/* Whether the write kind means something in that walk. */
int map_applies(int walk, int write);
int slotmap_applies(int walk, int write);
int sparse_applies(int walk, int write, int membership);
int join_applies(const scenario_s* s);

/* Breaches of: the set holds exactly the model's keys and values (in the
 * model's order where it is known), and keys, rows, pointers agree. */
unsigned sparse_problems(const slotmap_sparse_s* sp, const model_s* md, int membership);

/* Run one scenario with its checks; return the number of callbacks made. */
uint32_t map_scenario(const scenario_s* s);
uint32_t slotmap_scenario(const scenario_s* s);
uint32_t sparse_scenario(const scenario_s* s);
uint32_t join_scenario(const scenario_s* s);

/* ------------------------------------------------------------------------ */
/* the tests, in the order main.c runs them                                  */
/* ------------------------------------------------------------------------ */

void test_map_writes(void);            /* map.c */
void test_map_given_removal(void);     /* map.c */
void test_slotmap_writes(void);        /* slotmap.c */
void test_slotmap_given_removal(void);  /* slotmap.c */
void test_sparse_writes(void);         /* sparse.c */
void test_sparse_given_removal(void);  /* sparse.c */
void test_join_writes(void);           /* join.c */
void test_join_given_removal(void);    /* join.c */
void test_deep_nesting(void);          /* nesting.c */
void test_deep_nesting_removal(void);  /* nesting.c */
void test_read_walks_allocate_nothing(void); /* nesting.c */
void test_random(uint64_t seed, unsigned long steps); /* random.c */

#endif
