/*
 * slotmap/api, the slotmap suite, is one program built from the units in
 * c-tests/slotmap/api/: main.c runs the tests in order, each other unit
 * holds one concept's tests, helpers.c the helpers they share. This header
 * declares what the units share.
 *
 * Library decisions this suite relies on, where SPEC 6 leaves the choice
 * open (see src/slotmap.rs and include/slate.h); the tests that depend on
 * one name it:
 *   [D-key]     a key is version << 32 | slot; live versions are odd, and
 *               a slot's version only grows.  New slots are numbered 0, 1,
 *               2, ... in order, so the first n inserts into a fresh
 *               slotmap take slots 0 .. n-1.
 *   [D-append]  an insert appends: the new row is row length-1.
 *   [D-reuse]   erased slots are reused most recently freed first, with a
 *               higher version (SPEC 6 says so too).
 *   [D-column]  slotmap_column is NULL while nothing was ever allocated (a
 *               fresh or freed slotmap), else the 16-byte aligned base.
 *   [D-columns] more than 16 columns is SLATE_ERROR_FULL.
 *   [D-reserve] slotmap_reserve(n) means room for n rows in total: inserts
 *               up to n rows then reallocate nothing; beyond the limit FULL.
 *   [D-limit]   a limit below the length is SLATE_ERROR_INVALID (SPEC).
 *   [D-clone]   slotmap_clone keeps the row order (and the limit).
 *   [D-walk]    a call from inside the slotmap's own slotmap_each /
 *               slotmap_erase_if / slotmap_sort callback does what it does
 *               outside a walk (SPEC 3c); after a change other than the
 *               erase of the given key, the walk stops with
 *               SLATE_ERROR_INVALID (a sort applies no order).
 *   [D-order]   slotmap_erase_if erases as it walks the rows in dense order,
 *               by swap-and-pop: an erased row is refilled by the last row,
 *               which is asked next (include/slate.h).
 *   [D-random]  each slotmap starts its versions at a random odd number, so
 *               a key of another slotmap is NOT_FOUND except with negligible
 *               probability (about 2^-29 per key).
 */

#ifndef SLATE_TEST_SLOTMAP_H
#define SLATE_TEST_SLOTMAP_H

#define TEST_UNITS /* one pair of pass/fail counters for all the units */
#include "slate.h"
#include "../../support/test.h"
#include "../../support/rows3.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_SLOT(k) ((uint32_t)((k)&0xFFFFFFFFu))
#define KEY_VERSION(k) ((uint32_t)((k) >> 32))
#define MAKE_KEY(version, slot) (((uint64_t)(uint32_t)(version) << 32) | (uint64_t)(uint32_t)(slot))

/* What a NOT_FOUND (or failed) call must leave alone. */
extern char sentinel_object_;
#define SENTINEL ((void*)&sentinel_object_)
#define SENTINEL_ROW 0xC0FFEEu
#define SENTINEL_KEY 0x5EED5EED5EED5EEDull

/* ------------------------------------------------------------------------ */
/* helpers (helpers.c)                                                       */
/* ------------------------------------------------------------------------ */

int aligned16(const void* p);
/* One column of uint64_t: inserts v, returning its key (0 and counting a
 * problem on failure); the value of key k, or `fallback`. */
slotmap_key put_u64(slotmap_s* sm, uint64_t v, unsigned* bad);
uint64_t value_u64(const slotmap_s* sm, slotmap_key k, uint64_t fallback);
/* Three columns (rows3.h): inserts record `id`; row r holds record `id`;
 * key k is valid and its row holds record `id`. */
slotmap_key put3(slotmap_s* sm, uint64_t id, unsigned* bad);
int row3_is(const slotmap_s* sm, uint32_t r, uint64_t id);
int key3_is(const slotmap_s* sm, slotmap_key k, uint64_t id);
/* Key k is stale: every lookup says NOT_FOUND and leaves the out-values. */
int is_stale(const slotmap_s* sm, slotmap_key k);
/* Breaches of the swap-and-pop invariant. */
unsigned dense_problems(const slotmap_s* sm);
/* The keys in dense order (malloc'd; *n gets the length). */
slotmap_key* keys_by_row(const slotmap_s* sm, uint32_t* n);
/* The slotmap holds exactly these keys in this row order, with the records
 * their slots name; returns the mismatches. */
unsigned same_rows(const slotmap_s* sm, const slotmap_key* order, uint32_t n);
/* Walk, predicate and sort callbacks. */
int count_cb(slotmap_key key, void* row, void* data);
uint64_t count_rows(const slotmap_s* sm);
int less_u32(const void* a, const void* b, void* data);
int less_rec_a(const void* a, const void* b, void* data);
int greater_rec_a(const void* a, const void* b, void* data);
int always_less(const void* a, const void* b, void* data);
int always_cb(slotmap_key key, void* row, void* data);
int never_cb(slotmap_key key, void* row, void* data);

/* ------------------------------------------------------------------------ */
/* the tests, in the order main.c runs them                                  */
/* ------------------------------------------------------------------------ */

void test_null_slotmap(void);             /* init.c */
void test_init(void);                     /* init.c */
void test_keys_and_lookup(void);          /* keys.c */
void test_foreign_keys(void);             /* keys.c */
void test_erase_and_reuse(void);          /* keys.c */
void test_every_element_size(void);       /* columns.c */
void test_slot_reuse_100k(void);          /* keys.c */
void test_churn_invariant(void);          /* keys.c */
void test_columns(void);                  /* columns.c */
void test_each(void);                     /* walks.c */
void test_calls_inside_walks(void);       /* walks.c */
void test_reinit_inside_walk(void);       /* walks.c */
void test_erase_if(void);                 /* bulk.c */
void test_sort(void);                     /* bulk.c */
void test_limit(void);                    /* capacity.c */
void test_reserve(void);                  /* capacity.c */
void test_clear(void);                    /* bulk.c */
void test_clone(void);                    /* bulk.c */
void test_free(void);                     /* capacity.c */
void test_memcpy_move(void);              /* pointers.c */
void test_pointer_validity(void);         /* pointers.c */
void test_clone_inside_callbacks(void);   /* walks.c */
void test_random(uint64_t seed, unsigned long steps); /* random.c */
void test_insert_own_element(void);       /* pointers.c */

#endif
