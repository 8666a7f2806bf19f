/*
 * test_longjmp.c -- leaving walks with longjmp (SPEC §3).
 *
 * A callback may leave slate_each, slate_delete_if, slotmap_each,
 * slotmap_erase_if and slotmap_sort with longjmp, as C error handling
 * does; afterwards the walked structure holds what the walk left and every
 * call on it, and on every other structure, behaves as if the walk had
 * returned. Each walk is left at its first, a middle and its last entry,
 * thousands of times, and after each jump the walked structure and fresh
 * ones are written and walked, directly and from deeper frames that reuse
 * the abandoned stack. Nested walks are left to the outside and to a point
 * inside the outer walk, whose structure must then still refuse writes.
 * Under Valgrind and AddressSanitizer, nothing leaks or is read after it
 * was freed (the slotmap's erase_if and sort hold scratch memory).
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slate.h"
#include "test.h"
#include "support.h"

#define N 300
#define ROUNDS 200

#define V(x) ((void*)(uintptr_t)(x))

static jmp_buf outside;

/* Where the current walk jumps: at its `target`-th call. */
typedef struct leave_s {
  long target;
  long calls;
  /* slate_delete_if: the keys its predicate chose before the jump. */
  uint8_t chosen[N + 1];
} leave_s;

static leave_s leave;

static void arm(long target) {
  leave.target = target;
  leave.calls = 0;
  memset(leave.chosen, 0, sizeof leave.chosen);
}

/* Counts a call and jumps out on the target one. */
static void maybe_jump(void) {
  if (++leave.calls == leave.target) longjmp(outside, 1);
}

static int each_cb(const char* key, uint32_t key_length, void* value, void* data) {
  (void)key, (void)key_length, (void)value, (void)data;
  maybe_jump();
  return 0;
}

/* Deletes the entries with even values, jumping on the target call. */
static int delete_cb(const char* key, uint32_t key_length, void* value, void* data) {
  (void)key, (void)key_length, (void)data;
  maybe_jump();
  uintptr_t v = (uintptr_t)value;
  if (v % 2 == 0) {
    leave.chosen[v] = 1;
    return 1;
  }
  return 0;
}

static int slotmap_cb(slotmap_key key, void* row, void* data) {
  (void)key, (void)row, (void)data;
  maybe_jump();
  return 0;
}

static int erase_cb(slotmap_key key, void* row, void* data) {
  (void)key, (void)data;
  maybe_jump();
  return *(uint64_t*)row % 3 == 0;
}

static int less_cb(const void* a, const void* b, void* data) {
  (void)data;
  maybe_jump();
  return *(const uint64_t*)a > *(const uint64_t*)b; /* descending */
}

/* A walk that tries to write what it walks: the registry still works. */
typedef struct refuse_s {
  slate_s* map;
  slotmap_s* sm;
  int refused, ran;
} refuse_s;

static int refuse_map_cb(const char* key, uint32_t key_length, void* value, void* data) {
  refuse_s* r = (refuse_s*)data;
  (void)value;
  r->ran++;
  r->refused += slate_set(r->map, "refused", V(1)) == SLATE_ERROR_INVALID;
  r->refused += slate_delete_bytes(r->map, key, key_length) == SLATE_ERROR_INVALID;
  return 1;
}

static int refuse_slotmap_cb(slotmap_key key, void* row, void* data) {
  refuse_s* r = (refuse_s*)data;
  (void)row;
  r->ran++;
  r->refused += slotmap_erase(r->sm, key) == SLATE_ERROR_INVALID;
  r->refused += slotmap_insert(r->sm, NULL, &key) == SLATE_ERROR_INVALID;
  return 1;
}

static void fill_map(slate_s* m) {
  for (uint64_t i = 1; i <= N; i++) CHECK_EQ_INT(slate_set_u64(m, i, V(i)), SLATE_OK);
}

static void fill_slotmap(slotmap_s* sm, slotmap_key* keys) {
  for (uint64_t i = 1; i <= N; i++) {
    CHECK_EQ_INT(slotmap_insert(sm, &i, &keys[i - 1]), SLATE_OK);
  }
}

/* Every entry of the map is i -> i, except the deleted ones. */
static void check_map(const slate_s* m, const uint8_t* deleted) {
  uint64_t present = 0;
  for (uint64_t i = 1; i <= N; i++) {
    void* v = NULL;
    int rc = slate_get_u64(m, i, &v);
    if (deleted && deleted[i]) {
      CHECK_EQ_INT(rc, SLATE_ERROR_NOT_FOUND);
    } else {
      present++;
      if (CHECK_EQ_INT(rc, SLATE_OK)) CHECK_EQ_PTR(v, V(i));
    }
  }
  CHECK_EQ_U64(slate_length(m), present);
  CHECK_MAP_OK(m);
}

/* Every key still finds its own value. */
static void check_slotmap(const slotmap_s* sm, const slotmap_key* keys) {
  CHECK_EQ_U64(slotmap_length(sm), N);
  for (uint64_t i = 1; i <= N; i++) {
    void* e = NULL;
    if (CHECK_EQ_INT(slotmap_get(sm, keys[i - 1], &e), SLATE_OK)) {
      CHECK_EQ_U64(*(uint64_t*)e, i);
    }
  }
}

/* Writes and walks on the walked map, another map and a new one. */
static void use_maps(slate_s* walked, slate_s* other) {
  CHECK_EQ_INT(slate_set(walked, "after", V(7)), SLATE_OK);
  CHECK_EQ_INT(slate_set(other, "after", V(7)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(other, "after"), SLATE_OK);
  refuse_s r = {walked, NULL, 0, 0};
  CHECK_EQ_INT(slate_each(walked, refuse_map_cb, &r), 1);
  CHECK_EQ_INT(r.refused, 2 * r.ran);
  CHECK_EQ_INT(slate_delete(walked, "after"), SLATE_OK);
  slate_s fresh;
  CHECK_EQ_INT(slate(&fresh), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&fresh, 1, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&fresh, 100), SLATE_OK);
  slate_free(&fresh);
}

static void use_slotmaps(slotmap_s* walked) {
  slotmap_key k = 0;
  uint64_t v = 0;
  CHECK_EQ_INT(slotmap_insert(walked, &v, &k), SLATE_OK);
  refuse_s r = {NULL, walked, 0, 0};
  CHECK_EQ_INT(slotmap_each(walked, refuse_slotmap_cb, &r), 1);
  CHECK_EQ_INT(r.refused, 2 * r.ran);
  CHECK_EQ_INT(slotmap_erase(walked, k), SLATE_OK);
  slotmap_s fresh;
  CHECK_EQ_INT(slotmap(&fresh, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_insert(&fresh, &v, &k), SLATE_OK);
  slotmap_free(&fresh);
}

/* The same, from `depth` frames further down, each filling a buffer: the
   abandoned stack is reused. */
static void use_deeper(int depth, slate_s* walked, slate_s* other, slotmap_s* sm) {
  volatile char pad[256];
  for (size_t i = 0; i < sizeof pad; i++) pad[i] = (char)(i + (size_t)depth);
  if (depth > 0) {
    use_deeper(depth - 1, walked, other, sm);
  } else {
    use_maps(walked, other);
    use_slotmaps(sm);
  }
  CHECK(pad[depth] == (char)(depth + depth));
}

static void after_jump(long round, slate_s* walked, slate_s* other, slotmap_s* sm) {
  if (round % 2) {
    use_deeper((int)(round % 5), walked, other, sm);
  } else {
    use_maps(walked, other);
    use_slotmaps(sm);
  }
}

static long target_of(int where, long last) {
  return where == 0 ? 1 : where == 1 ? last / 2 : last;
}

static void leave_map_walks(void) {
  TEST_SECTION("longjmp out of slate_each and slate_delete_if");
  static slate_s m, other;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate(&other), SLATE_OK);
  static slotmap_s sm;
  CHECK_EQ_INT(slotmap(&sm, sizeof(uint64_t)), SLATE_OK);
  fill_map(&m);
  for (volatile long round = 0; round < ROUNDS; round++) {
    for (volatile int where = 0; where < 3; where++) {
      arm(target_of(where, N));
      if (setjmp(outside) == 0) {
        slate_each(&m, each_cb, NULL);
        CHECK_MSG(0, "slate_each returned instead of jumping");
      }
      CHECK_EQ_U64((uint64_t)leave.calls, (uint64_t)leave.target);
      check_map(&m, NULL);
      after_jump(round, &m, &other, &sm);

      arm(target_of(where, N));
      if (setjmp(outside) == 0) {
        slate_delete_if(&m, delete_cb, NULL);
        CHECK_MSG(0, "slate_delete_if returned instead of jumping");
      }
      /* What the walk deleted before the jump stays deleted; the rest
         stays. */
      check_map(&m, leave.chosen);
      after_jump(round, &m, &other, &sm);
      fill_map(&m);
    }
  }
  slate_free(&m);
  slate_free(&other);
  slotmap_free(&sm);
}

static void leave_slotmap_walks(void) {
  TEST_SECTION("longjmp out of slotmap_each, slotmap_erase_if and slotmap_sort");
  static slotmap_s sm;
  static slotmap_key keys[N];
  static slate_s m, other;
  CHECK_EQ_INT(slotmap(&sm, sizeof(uint64_t)), SLATE_OK);
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate(&other), SLATE_OK);
  fill_slotmap(&sm, keys);
  /* A full sort of these rows makes this many comparisons. */
  static long compares;
  arm(-1);
  {
    static slotmap_s copy;
    CHECK_EQ_INT(slotmap_clone(&copy, &sm), SLATE_OK);
    CHECK_EQ_INT(slotmap_sort(&copy, less_cb, NULL), SLATE_OK);
    compares = leave.calls;
    slotmap_free(&copy);
  }
  CHECK(compares > N);
  for (volatile long round = 0; round < ROUNDS; round++) {
    for (volatile int where = 0; where < 3; where++) {
      arm(target_of(where, N));
      if (setjmp(outside) == 0) {
        slotmap_each(&sm, slotmap_cb, NULL);
        CHECK_MSG(0, "slotmap_each returned instead of jumping");
      }
      check_slotmap(&sm, keys);
      after_jump(round, &m, &other, &sm);

      arm(target_of(where, N));
      if (setjmp(outside) == 0) {
        slotmap_erase_if(&sm, erase_cb, NULL);
        CHECK_MSG(0, "slotmap_erase_if returned instead of jumping");
      }
      /* erase_if erases once its walk is over: nothing was erased. */
      check_slotmap(&sm, keys);
      after_jump(round, &m, &other, &sm);

      arm(target_of(where, compares));
      if (setjmp(outside) == 0) {
        slotmap_sort(&sm, less_cb, NULL);
        CHECK_MSG(0, "slotmap_sort returned instead of jumping");
      }
      check_slotmap(&sm, keys);
      after_jump(round, &m, &other, &sm);
    }
  }
  /* And the walks still run to their end. */
  arm(-1);
  CHECK_EQ_INT(slotmap_sort(&sm, less_cb, NULL), SLATE_OK);
  check_slotmap(&sm, keys);
  CHECK_EQ_INT(slotmap_erase_if(&sm, erase_cb, NULL), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), N - N / 3);
  slotmap_free(&sm);
  slate_free(&m);
  slate_free(&other);
}

/* Nested walks: the map's walk runs the slotmap's, whose callback jumps. */
typedef struct nest_s {
  slate_s* map;
  slotmap_s* sm;
  jmp_buf inside;
  int land_inside;
  int landed;
  int checked;
} nest_s;

static nest_s nest;

static int inner_cb(slotmap_key key, void* row, void* data) {
  (void)key, (void)row, (void)data;
  maybe_jump();
  return 0;
}

static int inner_jump_inside_cb(slotmap_key key, void* row, void* data) {
  (void)key, (void)row, (void)data;
  if (++leave.calls == leave.target) longjmp(nest.inside, 1);
  return 0;
}

static int outer_cb(const char* key, uint32_t key_length, void* value, void* data) {
  (void)key, (void)key_length, (void)value, (void)data;
  if (nest.landed) return 0;
  if (!nest.land_inside) {
    slotmap_each(nest.sm, inner_cb, NULL);
    return 0;
  }
  if (setjmp(nest.inside) == 0) {
    slotmap_each(nest.sm, inner_jump_inside_cb, NULL);
    CHECK_MSG(0, "slotmap_each returned instead of jumping");
    return 0;
  }
  nest.landed = 1;
  /* Back inside the map's walk: the slotmap's walk is over, the map's is
     not. */
  slotmap_key k = 0;
  CHECK_EQ_INT(slotmap_insert(nest.sm, NULL, &k), SLATE_OK);
  CHECK_EQ_INT(slotmap_erase(nest.sm, k), SLATE_OK);
  CHECK_EQ_INT(slate_set(nest.map, "inside", V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_u64(nest.map, 1), SLATE_ERROR_INVALID);
  nest.checked++;
  return 0;
}

static void leave_nested_walks(void) {
  TEST_SECTION("longjmp out of nested walks");
  static slate_s m, other;
  static slotmap_s sm;
  static slotmap_key keys[N];
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate(&other), SLATE_OK);
  CHECK_EQ_INT(slotmap(&sm, sizeof(uint64_t)), SLATE_OK);
  fill_map(&m);
  fill_slotmap(&sm, keys);
  nest.map = &m;
  nest.sm = &sm;
  for (volatile long round = 0; round < ROUNDS; round++) {
    /* Out of both. */
    nest.land_inside = 0;
    nest.landed = 0;
    arm(target_of((int)(round % 3), N));
    if (setjmp(outside) == 0) {
      slate_each(&m, outer_cb, NULL);
      CHECK_MSG(0, "slate_each returned instead of jumping");
    }
    check_map(&m, NULL);
    check_slotmap(&sm, keys);
    after_jump(round, &m, &other, &sm);

    /* Out of the inner one, to a point inside the outer one, which then
       runs to its end. */
    nest.land_inside = 1;
    nest.landed = 0;
    nest.checked = 0;
    arm(target_of((int)(round % 3), N));
    CHECK_EQ_INT(slate_each(&m, outer_cb, NULL), SLATE_OK);
    CHECK_EQ_INT(nest.checked, 1);
    check_map(&m, NULL);
    check_slotmap(&sm, keys);
    after_jump(round, &m, &other, &sm);
  }
  slate_free(&m);
  slate_free(&other);
  slotmap_free(&sm);
}

int main(void) {
  leave_map_walks();
  leave_slotmap_walks();
  leave_nested_walks();
  return TEST_SUMMARY();
}
