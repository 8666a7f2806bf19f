/*
 * sparse/api, the sparse-set suite (SPEC 6b): one program built from the
 * units in c-tests/sparse/api/: main.c runs the tests in order, each other
 * unit holds one concept's tests, helpers.c what they share (the model of a
 * set, the owner slotmap, counting allocators). This header declares it.
 *
 * Library decisions this suite relies on, where SPEC 6b leaves the choice
 * open (see src/sparse and include/slate.h):
 *   [D-append]  a new key appends its row (row length-1).
 *   [D-column]  slotmap_sparse_column is NULL while the set holds no block
 *               (fresh or freed), else the 16-byte aligned base.
 *   [D-columns] more than 16 columns is SLATE_ERROR_FULL.
 *   [D-reserve] reserve(n) is room for n more rows.
 *   [D-keys]    slotmap keys: version << 32 | slot, live versions odd.
 */
#ifndef SLATE_TEST_SPARSE_H
#define SLATE_TEST_SPARSE_H

#define TEST_UNITS
#include "slate.h"
#include "../../support/test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_SLOT(k) ((uint32_t)((k)&0xFFFFFFFFu))
#define KEY_VERSION(k) ((uint32_t)((k) >> 32))
#define MAKE_KEY(version, slot) (((uint64_t)(uint32_t)(version) << 32) | (uint64_t)(uint32_t)(slot))

extern char sentinel_object_;
#define SENTINEL ((void*)&sentinel_object_)
#define SENTINEL_ROW 0xC0FFEEu

/* ------------------------------------------------------------------------ */
/* the model of one set: key -> row bytes                                    */
/* ------------------------------------------------------------------------ */

enum { MODEL_MAX = 4096, ROW_MAX = 64, MAX_COLS = 16 };

typedef struct model_s {
  uint32_t ncols;
  uint32_t sizes[MAX_COLS];
  uint32_t row_bytes; /* sum of sizes (0: membership) */
  uint32_t n;
  slotmap_key keys[MODEL_MAX];
  unsigned char rows[MODEL_MAX][ROW_MAX];
  /* index + 1 of the entry of each small slot (below MODEL_LOW) and of each
     slot of [MODEL_HIGH, MODEL_HIGH + MODEL_HIGH_N); others are searched */
  int32_t where[4096 + 1024];
} model_s;
#define MODEL_LOW 4096u
#define MODEL_HIGH 0x7FFFFE00u
#define MODEL_HIGH_N 1024u

/* Initializes set and model alike: sizes NULL / count 0 is membership. */
void model_init(model_s* m, const uint32_t* sizes, uint32_t count);
int sparse_init(slotmap_sparse_s* sp, const uint32_t* sizes, uint32_t count);
/* The model's index of key k's slot, or -1. */
int model_find_slot(const model_s* m, uint32_t slot);
int model_find(const model_s* m, slotmap_key k);
void model_set(model_s* m, slotmap_key k, const unsigned char* row); /* NULL: zeros */
void model_erase(model_s* m, slotmap_key k);
/* Every way the set differs from the model (0: same): length, keys, rows
   (every column's bytes), row/get/contains/key_at/keys agreement, the
   16-byte alignment of columns, key_at(length) == 0. */
unsigned sparse_differs(const slotmap_sparse_s* sp, const model_s* m);
#define CHECK_MODEL(sp, m) CHECK_EQ_INT(sparse_differs((sp), (m)), 0)
/* Key k (not in the set) reads as absent everywhere, out-values untouched. */
int is_absent(const slotmap_sparse_s* sp, slotmap_key k);
/* The bytes of row r (columns back to back) into out. */
void read_row(const slotmap_sparse_s* sp, const model_s* m, uint32_t r, unsigned char* out);
/* The expected row bytes for a value v. */
void fill_row(const model_s* m, uint64_t v, unsigned char* out);

/* A full picture of a set (for "nothing changed"). */
typedef struct picture_s {
  uint32_t n;
  slotmap_key keys[MODEL_MAX];
  unsigned char rows[MODEL_MAX][ROW_MAX];
  void* col0;
} picture_s;
void take_picture(const slotmap_sparse_s* sp, const model_s* m, picture_s* p);
int same_picture(const slotmap_sparse_s* sp, const model_s* m, const picture_s* p);

/* ------------------------------------------------------------------------ */
/* a counting own allocator (slotmap_sparse_set_allocator)                   */
/* ------------------------------------------------------------------------ */

typedef struct counter_s {
  unsigned long long attempts, live_bytes, peak_bytes, bad;
} counter_s;
slate_allocator_s counting_allocator(counter_s* c);

/* callbacks */
int count_each(slotmap_key key, void* row, void* data);
int less_u64(const void* a, const void* b, void* data);
int less_bytes3(const void* a, const void* b, void* data);

/* ------------------------------------------------------------------------ */
/* the tests, in the order main.c runs them                                  */
/* ------------------------------------------------------------------------ */

void test_null_set(void);              /* basics.c */
void test_init(void);                  /* basics.c */
void test_set_get(void);               /* basics.c */
void test_owner_and_generations(void); /* basics.c */
void test_membership(void);            /* basics.c */
void test_columns(void);               /* basics.c */
void test_get_many(void);              /* basics.c */
void test_erase(void);                 /* bulk.c */
void test_erase_if_prune(void);        /* bulk.c */
void test_sort(void);                  /* bulk.c */
void test_reserve(void);               /* bulk.c */
void test_clear_clone_free(void);      /* bulk.c */
void test_memcpy_move(void);           /* bulk.c */
void test_high_slots_memory(void);     /* bulk.c */
void test_each_erasing(void);          /* walks.c */
void test_changes_in_walks(void);      /* walks.c */
void test_others_modifiable(void);     /* walks.c */
void test_join_basics(void);           /* joins.c */
void test_join_erasing(void);          /* joins.c */
void test_random(uint64_t seed, unsigned long steps); /* random.c */

#endif
