/* map/api, the map API suite, is one program built from the units in
 * c-tests/map/api/: main.c runs the tests in order, each other unit holds
 * one concept's tests, helpers.c the helpers they share. This header
 * declares what the units share. */
#ifndef SLATE_TEST_API_H
#define SLATE_TEST_API_H

#define TEST_UNITS /* one pair of pass/fail counters for all the units */
#include "slate.h"
#include "slate-introspect.h"
#include "../../support/test.h"
#include "../../support/map_check.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(n) ((void*)(uintptr_t)(n))
#define SENTINEL V(0x5eed1234u)

/* Group load limit: a table of c slots holds at most c * 7 / 8 entries. */
#define MAX_TABLE_SLOTS 1024u
#define MAX_TABLE_LOAD (MAX_TABLE_SLOTS * 7u / 8u)

#define REQ(cond)                                                                       \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      structure_problems_++;                                                            \
      if (structure_problems_ <= 8)                                                     \
        fprintf(stderr, "%s:%d: structure: %s (table %u)\n", __FILE__, __LINE__, #cond, \
                (unsigned)t);                                                           \
    }                                                                                   \
  } while (0)

/* Iteration record: the key's bytes (first 64), its length, the pointer the
 * callback saw, and the value. */
typedef struct rec_s {
  uint32_t length;
  unsigned char bytes[64];
  const char* key_pointer;
  void* value;
} rec_s;

typedef struct collect_s {
  rec_s* recs;
  size_t n;
  size_t capacity;
} collect_s;

/* ------------------------------------------------------------------------ */
/* helpers (helpers.c)                                                       */
/* ------------------------------------------------------------------------ */

/* The 10-byte integer key encoding of SPEC section 3, and its decoding (0
 * when the bytes are not a key of the given tag). */
void encode_i64(unsigned char out[10], int64_t value);
void encode_u64(unsigned char out[10], uint64_t value);
int decode_int(const char* key, uint32_t length, unsigned char tag, uint64_t* value);
/* A long (heap-copied) string key, unique per i. */
const char* long_key(char* buffer, size_t capacity, unsigned i);
uint64_t count_entries(const slate_s* m);
/* u64 key k holds V(u64_value(k)): missing_u64 counts the keys of lo..hi-1
 * (by step) that do not, present_u64 those that are not absent, fill_u64
 * the failed inserts of lo..hi-1. */
uint64_t u64_value(uint64_t k);
uint64_t missing_u64(const slate_s* m, uint64_t lo, uint64_t hi, uint64_t step);
uint64_t present_u64(const slate_s* m, uint64_t lo, uint64_t hi, uint64_t step);
uint64_t fill_u64(slate_s* m, uint64_t lo, uint64_t hi);
/* Structural verification (REQ counts into structure_problems_). */
extern unsigned structure_problems_;
void verify_structure(const slate_s* m, int scan_ctrl);
/* The entries in walk order (c.recs is malloc'd), and whether two such
 * sequences are the same. */
collect_s collect(const slate_s* m);
int same_order(const collect_s* a, const collect_s* b);
/* Walk callbacks: always_cb returns 1 (counting calls into an int when
 * data is not NULL), noop_cb 0. */
int always_cb(const char* key, uint32_t length, void* value, void* data);
int noop_cb(const char* key, uint32_t length, void* value, void* data);

/* ------------------------------------------------------------------------ */
/* the tests, in the order main.c runs them                                  */
/* ------------------------------------------------------------------------ */

void test_version(void);            /* basics.c */
void test_sizes_and_limits(void);   /* basics.c */
void test_init_and_empty(void);     /* basics.c */
void test_invalid_arguments(void);  /* errors.c */
void test_strerror(void);           /* errors.c */
void test_string_keys(void);        /* keys.c */
void test_byte_keys(void);          /* keys.c */
void test_keyspaces(void);          /* integer_keys.c */
void test_integer_tables(void);     /* integer_keys.c */
void test_each(void);               /* walks.c */
void test_merge(void);              /* walks.c */
void test_reentrancy(void);         /* walks.c */
void test_reinit_inside_walk(void); /* walks.c */
void test_delete_if(void);          /* delete_if.c */
void test_equal(void);              /* copies.c */
void test_small_map(void);          /* layout.c */
void test_growth(void);             /* layout.c */
void test_tombstones(void);         /* layout.c */
void test_clear(void);              /* memory.c */
void test_compact(void);            /* memory.c */
void test_clone(void);              /* copies.c */
void test_free(void);               /* memory.c */
void test_reserve(void);            /* memory.c */
void test_memcpy_move(void);        /* copies.c */
void test_seeds(void);              /* introspection.c */
void test_check_reports(void);      /* introspection.c */
void test_table_ctrls(void);        /* introspection.c */
void test_entry(void);              /* everyday.c */
void test_take(void);               /* everyday.c */
void test_key_decoding(void);       /* everyday.c */
void test_pin_seed(void);           /* everyday.c */
void test_cursors(void);            /* cursor.c */
void test_allocators(void);         /* allocators.c */

#endif
