/*
 * abi/escape.c -- leaving a walk's callback without returning, beyond
 * longjmp (SPEC §3c; abi/longjmp.c has longjmp itself).
 *
 * A walk keeps no state outside its own frame, and every library frame
 * between the caller and the callback is a plain frame, so a callback may
 * also leave its walk by
 *   - siglongjmp from a signal handler running on a sigaltstack (a signal
 *     raised in the callback; and a walk run by the handler itself, on the
 *     alternate stack, left from its callback);
 *   - pthread_exit, and cancellation of a thread blocked in the callback
 *     (deferred, at a condition wait or pthread_testcancel);
 *   - a ucontext fiber that started the walk, switched away in the
 *     callback and is never resumed, its stack then freed or unmapped.
 * After each, for every walk (slate_each, slate_delete_if, slotmap_each,
 * slotmap_erase_if, slotmap_sort, slotmap_sparse_each,
 * slotmap_sparse_erase_if, slotmap_sparse_sort, slotmap_join) left at its
 * first, a middle and its last entry, the walked structure holds what it
 * held, and is written, walked (by callbacks that write to it) and freed as
 * if the walk had returned.
 *
 * A counting allocator shows that a walk left by longjmp (a sort, an
 * erase_if, any) leaks nothing: a sort's scratch memory belongs to the
 * structure, comes from the structure's allocator and goes back at its
 * next sort or its free; after the free no byte is alive and the allocator
 * is never called again, whatever runs later (on this thread or another).
 *
 * pthread_exit and cancellation end a thread by forced unwinding: built as
 * usual, the unwinder passes through every frame between the callback and
 * the thread's start, the library's among them, which must hold no landing
 * pad; built without unwind tables (make escape-test), glibc's unwinder
 * stops at the callback's frame and jumps to the thread's start, running
 * the cleanup handlers C registered on the way. Both must leave the
 * structure usable. Where the platform lacks signals with sigaltstack,
 * ucontext or POSIX threads (WebAssembly, Windows), only what it has runs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slate.h"
#include "../support/test.h"
#include "../support/map_check.h"

#if defined(__unix__) && !defined(__EMSCRIPTEN__) && !defined(__wasi__)
#define HAVE_POSIX 1
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#endif

/* AddressSanitizer learns of stack switches from these calls, and forgets
   the shadow of a fiber's or an alternate signal stack's dead frames. */
#if defined(__SANITIZE_ADDRESS__)
#define ESC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ESC_ASAN 1
#endif
#endif
#if defined(ESC_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Valgrind learns of a fiber's stack from this. */
#if defined(HAVE_POSIX) && defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define ESC_VALGRIND 1
#endif
#endif

#define N 64
#define X (N + 1) /* a key written after an escape */
#define V(x) ((void*)(uintptr_t)(x))

enum {
  K_MAP_EACH,
  K_MAP_DELETE_IF,
  K_SM_EACH,
  K_SM_ERASE_IF,
  K_SM_SORT,
  K_SP_EACH,
  K_SP_ERASE_IF,
  K_SP_SORT,
  K_JOIN,
  KINDS
};

static const char* const kind_names[KINDS] = {
    "slate_each",          "slate_delete_if",         "slotmap_each",
    "slotmap_erase_if",    "slotmap_sort",            "slotmap_sparse_each",
    "slotmap_sparse_erase_if", "slotmap_sparse_sort", "slotmap_join"};

static int is_sort(int kind) { return kind == K_SM_SORT || kind == K_SP_SORT; }

/* Entries 1..N in each structure: the map's key i -> i, the slotmap's row
   i, the sparse set's row i and the tag set's member, both under the
   owner's key own_key[i]. Between tests a world holds exactly these. */
typedef struct world_s {
  slate_s map;
  slotmap_s sm;
  slotmap_s own; /* rows 1..X, keys of the sets */
  slotmap_sparse_s sp;
  slotmap_sparse_s tag;
  slotmap_key sm_key[X + 1];
  slotmap_key own_key[X + 1];
} world_s;

/* Allocators for the map, the slotmap, the sparse set and the tag set
   (NULL: the process default). */
typedef struct allocators_s {
  const slate_allocator_s* map;
  const slate_allocator_s* sm;
  const slate_allocator_s* sp;
  const slate_allocator_s* tag;
} allocators_s;

static void world_init(world_s* w, const allocators_s* a) {
  memset(w, 0, sizeof *w);
  CHECK_EQ_INT(slate(&w->map), SLATE_OK);
  CHECK_EQ_INT(slotmap(&w->sm, sizeof(uint64_t)), SLATE_OK);
  CHECK_EQ_INT(slotmap(&w->own, sizeof(uint64_t)), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&w->sp, sizeof(uint64_t)), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&w->tag, 0), SLATE_OK);
  if (a != NULL) {
    CHECK_EQ_INT(slate_set_allocator(&w->map, a->map), SLATE_OK);
    CHECK_EQ_INT(slotmap_set_allocator(&w->sm, a->sm), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set_allocator(&w->sp, a->sp), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set_allocator(&w->tag, a->tag), SLATE_OK);
  }
  for (uint64_t i = 1; i <= X; i++) {
    CHECK_EQ_INT(slotmap_insert(&w->own, &i, &w->own_key[i]), SLATE_OK);
    if (i > N) continue;
    CHECK_EQ_INT(slate_set_u64(&w->map, i, V(i)), SLATE_OK);
    CHECK_EQ_INT(slotmap_insert(&w->sm, &i, &w->sm_key[i]), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set(&w->sp, &w->own, w->own_key[i], &i), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set(&w->tag, &w->own, w->own_key[i], NULL), SLATE_OK);
  }
}

static void world_free(world_s* w) {
  slate_free(&w->map);
  slotmap_free(&w->sm);
  slotmap_free(&w->own);
  slotmap_sparse_free(&w->sp);
  slotmap_sparse_free(&w->tag);
}

static uint64_t own_index(const world_s* w, slotmap_key key) {
  void* e = NULL;
  if (slotmap_get(&w->own, key, &e) != SLATE_OK) return 0;
  return *(uint64_t*)e;
}

/* --- a walk that escapes ----------------------------------------------- */

/* One walk: on its `target`-th call the callback runs `leave`, which does
   not return; on its `insert_at`-th call it adds key X to the walked
   structure (a change: the walk then stops with SLATE_ERROR_INVALID). */
typedef struct esc_s {
  world_s* w;
  int kind;
  long calls;
  long target;
  long insert_at;
  void (*leave)(struct esc_s* e);
  unsigned long wrong;
  uint8_t seen[X + 1];
  int returned;
  int rc;
} esc_s;

static void esc_reset(esc_s* e, world_s* w, int kind) {
  memset(e, 0, sizeof *e);
  e->w = w;
  e->kind = kind;
}

static void insert_x(esc_s* e) {
  world_s* w = e->w;
  uint64_t x = X;
  switch (e->kind) {
    case K_MAP_EACH:
    case K_MAP_DELETE_IF:
      e->wrong += slate_set_u64(&w->map, X, V(X)) != SLATE_OK;
      break;
    case K_SM_EACH:
    case K_SM_ERASE_IF:
    case K_SM_SORT:
      e->wrong += slotmap_insert(&w->sm, &x, &w->sm_key[X]) != SLATE_OK;
      break;
    default:
      e->wrong += slotmap_sparse_set(&w->sp, &w->own, w->own_key[X], &x) != SLATE_OK;
      break;
  }
}

/* Removes X again (after insert_x). */
static void remove_x(esc_s* e) {
  world_s* w = e->w;
  switch (e->kind) {
    case K_MAP_EACH:
    case K_MAP_DELETE_IF:
      CHECK_EQ_INT(slate_delete_u64(&w->map, X), SLATE_OK);
      break;
    case K_SM_EACH:
    case K_SM_ERASE_IF:
    case K_SM_SORT:
      CHECK_EQ_INT(slotmap_erase(&w->sm, w->sm_key[X]), SLATE_OK);
      break;
    default:
      CHECK_EQ_INT(slotmap_sparse_erase(&w->sp, w->own_key[X]), SLATE_OK);
      break;
  }
}

/* Every callback's body. Predicates choose nothing. */
static void visit(esc_s* e, uint64_t i) {
  e->calls++;
  if (i == 0 || i > X) {
    e->wrong++;
    i = 0;
  }
  if (!is_sort(e->kind)) {
    e->wrong += e->seen[i];
    e->seen[i] = 1;
  }
  if (e->calls == e->target) {
    e->leave(e);
    e->wrong++; /* leave returned */
  }
  if (e->calls == e->insert_at) insert_x(e);
}

static int map_cb(const char* key, uint32_t key_length, void* value, void* data) {
  esc_s* e = (esc_s*)data;
  uint64_t k = 0;
  if (slate_key_to_u64(key, key_length, &k) != SLATE_OK || k != (uintptr_t)value) e->wrong++;
  visit(e, (uintptr_t)value);
  return 0;
}

static int sm_cb(slotmap_key key, void* row, void* data) {
  esc_s* e = (esc_s*)data;
  uint64_t i = *(uint64_t*)row;
  if (i < 1 || i > X || key != e->w->sm_key[i]) e->wrong++;
  visit(e, i);
  return 0;
}

static int sp_cb(slotmap_key key, void* row, void* data) {
  esc_s* e = (esc_s*)data;
  uint64_t i = *(uint64_t*)row;
  if (own_index(e->w, key) != i) e->wrong++;
  visit(e, i);
  return 0;
}

static int join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)rows;
  esc_s* e = (esc_s*)data;
  uint64_t i = *(const uint64_t*)elements[0];
  if (own_index(e->w, key) != i || elements[1] != NULL) e->wrong++;
  visit(e, i);
  return 0;
}

static int less_cb(const void* a, const void* b, void* data) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  visit((esc_s*)data, x);
  return x > y;
}

static int plain_less(const void* a, const void* b, void* data) {
  (void)data;
  return *(const uint64_t*)a > *(const uint64_t*)b;
}

static int run_walk(esc_s* e) {
  world_s* w = e->w;
  slotmap_sparse_s* sets[2] = {&w->sp, &w->tag};
  switch (e->kind) {
    case K_MAP_EACH:
      return slate_each(&w->map, map_cb, e);
    case K_MAP_DELETE_IF:
      return slate_delete_if(&w->map, map_cb, e);
    case K_SM_EACH:
      return slotmap_each(&w->sm, sm_cb, e);
    case K_SM_ERASE_IF:
      return slotmap_erase_if(&w->sm, sm_cb, e);
    case K_SM_SORT:
      return slotmap_sort(&w->sm, less_cb, e);
    case K_SP_EACH:
      return slotmap_sparse_each(&w->sp, sp_cb, e);
    case K_SP_ERASE_IF:
      return slotmap_sparse_erase_if(&w->sp, sp_cb, e);
    case K_SP_SORT:
      return slotmap_sparse_sort(&w->sp, less_cb, e);
    default:
      return slotmap_join(&w->own, sets, 2, join_cb, e);
  }
}

/* The calls a walk of `kind` makes on world `w` as it stands; a sort's
   rows are sorted first, so that the sort to be left sees the input that
   was counted (and, being deterministic, makes the same comparisons). */
static long calls_of(world_s* w, int kind) {
  if (!is_sort(kind)) return N;
  if (kind == K_SM_SORT) {
    CHECK_EQ_INT(slotmap_sort(&w->sm, plain_less, NULL), SLATE_OK);
  } else {
    CHECK_EQ_INT(slotmap_sparse_sort(&w->sp, plain_less, NULL), SLATE_OK);
  }
  esc_s probe;
  esc_reset(&probe, w, kind);
  CHECK_EQ_INT(run_walk(&probe), SLATE_OK);
  CHECK_EQ_INT(probe.wrong, 0);
  CHECK(probe.calls >= N - 1);
  return probe.calls;
}

/* An escape at the first, a middle or the last call. */
static void aim(esc_s* e, int where) {
  long calls = calls_of(e->w, e->kind);
  e->target = where == 0 ? 1 : where == 1 ? calls / 2 : calls;
}

/* --- checks and use after an escape ------------------------------------ */

typedef struct tally_s {
  const world_s* w;
  long calls;
  unsigned long wrong;
  uint8_t seen[X + 1];
} tally_s;

static void tally(tally_s* t, uint64_t i, int ok) {
  t->calls++;
  if (!ok || i < 1 || i > N || t->seen[i]) {
    t->wrong++;
    return;
  }
  t->seen[i] = 1;
}

static int tally_map_cb(const char* key, uint32_t key_length, void* value, void* data) {
  uint64_t k = 0;
  int ok = slate_key_to_u64(key, key_length, &k) == SLATE_OK && k == (uintptr_t)value;
  tally((tally_s*)data, k, ok);
  return 0;
}

static int tally_sm_cb(slotmap_key key, void* row, void* data) {
  tally_s* t = (tally_s*)data;
  uint64_t i = *(uint64_t*)row;
  tally(t, i, i <= X && key == t->w->sm_key[i]);
  return 0;
}

static int tally_sp_cb(slotmap_key key, void* row, void* data) {
  tally_s* t = (tally_s*)data;
  if (row == NULL) {
    tally(t, own_index(t->w, key), 1);
  } else {
    tally(t, *(uint64_t*)row, own_index(t->w, key) == *(uint64_t*)row);
  }
  return 0;
}

static int tally_join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)rows;
  tally_s* t = (tally_s*)data;
  uint64_t i = *(const uint64_t*)elements[0];
  tally(t, i, own_index(t->w, key) == i && *(const uint64_t*)elements[2] == i);
  return 0;
}

static void check_tally(const tally_s* t, const char* what) {
  unsigned long wrong = t->wrong;
  for (uint64_t i = 1; i <= N; i++) wrong += !t->seen[i];
  CHECK_MSG(wrong == 0, what);
  CHECK_EQ_INT(t->calls, N);
}

/* The world holds exactly entries 1..N, and every walk visits each once. */
static void check_world(world_s* w) {
  unsigned long wrong = 0;
  for (uint64_t i = 1; i <= X; i++) {
    int in = i <= N;
    void* v = NULL;
    int rc = slate_get_u64(&w->map, i, &v);
    wrong += in ? (rc != SLATE_OK || v != V(i)) : rc != SLATE_ERROR_NOT_FOUND;
    if (in) {
      void* e = NULL;
      rc = slotmap_get(&w->sm, w->sm_key[i], &e);
      wrong += rc != SLATE_OK || *(uint64_t*)e != i;
    }
    void* e = NULL;
    rc = slotmap_sparse_get(&w->sp, w->own_key[i], &e);
    wrong += in ? (rc != SLATE_OK || *(uint64_t*)e != i) : rc != SLATE_ERROR_NOT_FOUND;
    wrong += slotmap_sparse_contains(&w->tag, w->own_key[i]) != in;
  }
  CHECK_MSG(wrong == 0, "a structure lost or changed an entry");
  CHECK_EQ_U64(slate_length(&w->map), N);
  CHECK_EQ_U64(slotmap_length(&w->sm), N);
  CHECK_EQ_U64(slotmap_sparse_length(&w->sp), N);
  CHECK_EQ_U64(slotmap_sparse_length(&w->tag), N);
  CHECK_MAP_OK(&w->map);
  tally_s t;
  memset(&t, 0, sizeof t);
  t.w = w;
  CHECK_EQ_INT(slate_each(&w->map, tally_map_cb, &t), SLATE_OK);
  check_tally(&t, "slate_each");
  memset(&t, 0, sizeof t);
  t.w = w;
  CHECK_EQ_INT(slotmap_each(&w->sm, tally_sm_cb, &t), SLATE_OK);
  check_tally(&t, "slotmap_each");
  memset(&t, 0, sizeof t);
  t.w = w;
  CHECK_EQ_INT(slotmap_sparse_each(&w->sp, tally_sp_cb, &t), SLATE_OK);
  check_tally(&t, "slotmap_sparse_each");
  memset(&t, 0, sizeof t);
  t.w = w;
  CHECK_EQ_INT(slotmap_sparse_each(&w->tag, tally_sp_cb, &t), SLATE_OK);
  check_tally(&t, "slotmap_sparse_each of the tags");
  memset(&t, 0, sizeof t);
  t.w = w;
  slotmap_sparse_s* sets[2] = {&w->sp, &w->tag};
  CHECK_EQ_INT(slotmap_join(&w->own, sets, 2, tally_join_cb, &t), SLATE_OK);
  check_tally(&t, "slotmap_join");
}

/* A walk whose callback writes to the walked structure: the given entry's
   value replaced, and the given entry removed when it is X; both leave
   the walk going. */
typedef struct writer_s {
  world_s* w;
  long calls;
  unsigned long wrong;
} writer_s;

static int write_map_cb(const char* key, uint32_t key_length, void* value, void* data) {
  writer_s* u = (writer_s*)data;
  uint64_t k = 0;
  u->calls++;
  u->wrong += slate_key_to_u64(key, key_length, &k) != SLATE_OK || k != (uintptr_t)value;
  u->wrong += (k == X ? slate_delete_u64(&u->w->map, k) : slate_set_u64(&u->w->map, k, value)) != SLATE_OK;
  return 0;
}

static int write_sm_cb(slotmap_key key, void* row, void* data) {
  writer_s* u = (writer_s*)data;
  u->calls++;
  if (*(uint64_t*)row == X) {
    u->wrong += slotmap_erase(&u->w->sm, key) != SLATE_OK;
  } else {
    *(uint64_t*)row = *(uint64_t*)row;
  }
  return 0;
}

static int write_sp_cb(slotmap_key key, void* row, void* data) {
  writer_s* u = (writer_s*)data;
  uint64_t i = *(uint64_t*)row;
  u->calls++;
  if (i == X) {
    u->wrong += slotmap_sparse_erase(&u->w->sp, key) != SLATE_OK;
  } else {
    u->wrong += slotmap_sparse_set(&u->w->sp, &u->w->own, key, &i) != SLATE_OK;
  }
  return 0;
}

static int write_join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)rows;
  writer_s* u = (writer_s*)data;
  u->calls++;
  if (*(const uint64_t*)elements[0] == X) u->wrong += slotmap_sparse_erase(&u->w->tag, key) != SLATE_OK;
  return 0;
}

static int choose_none(slotmap_key key, void* row, void* data) {
  (void)key, (void)row, (void)data;
  return 0;
}

/* Writes and walks every structure of `w` (each walk's callback writing to
   the walked structure), leaving it as it was. */
static void use_world(world_s* w) {
  uint64_t x = X;
  writer_s u;
  memset(&u, 0, sizeof u);
  u.w = w;
  CHECK_EQ_INT(slate_set_u64(&w->map, X, V(X)), SLATE_OK);
  CHECK_EQ_INT(slate_each(&w->map, write_map_cb, &u), SLATE_OK);
  CHECK_EQ_INT(u.calls, N + 1);
  CHECK_EQ_INT(slate_get_u64(&w->map, X, NULL), SLATE_ERROR_NOT_FOUND);

  u.calls = 0;
  CHECK_EQ_INT(slotmap_insert(&w->sm, &x, &w->sm_key[X]), SLATE_OK);
  CHECK_EQ_INT(slotmap_each(&w->sm, write_sm_cb, &u), SLATE_OK);
  CHECK_EQ_INT(u.calls, N + 1);
  CHECK_EQ_INT(slotmap_contains(&w->sm, w->sm_key[X]), 0);
  CHECK_EQ_INT(slotmap_sort(&w->sm, plain_less, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_erase_if(&w->sm, choose_none, NULL), SLATE_OK);

  u.calls = 0;
  CHECK_EQ_INT(slotmap_sparse_set(&w->sp, &w->own, w->own_key[X], &x), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_each(&w->sp, write_sp_cb, &u), SLATE_OK);
  CHECK_EQ_INT(u.calls, N + 1);
  CHECK_EQ_INT(slotmap_sparse_contains(&w->sp, w->own_key[X]), 0);
  CHECK_EQ_INT(slotmap_sparse_sort(&w->sp, plain_less, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_erase_if(&w->sp, choose_none, NULL), SLATE_OK);

  u.calls = 0;
  CHECK_EQ_INT(slotmap_sparse_set(&w->sp, &w->own, w->own_key[X], &x), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_set(&w->tag, &w->own, w->own_key[X], NULL), SLATE_OK);
  slotmap_sparse_s* sets[2] = {&w->sp, &w->tag};
  CHECK_EQ_INT(slotmap_join(&w->own, sets, 2, write_join_cb, &u), SLATE_OK);
  CHECK_EQ_INT(u.calls, N + 1);
  CHECK_EQ_INT(slotmap_sparse_contains(&w->tag, w->own_key[X]), 0);
  CHECK_EQ_INT(slotmap_sparse_erase(&w->sp, w->own_key[X]), SLATE_OK);
  CHECK_EQ_INT(u.wrong, 0);

  /* A change stops a walk, whatever stack it runs on. */
  for (int kind = 0; kind < KINDS; kind++) {
    esc_s e;
    esc_reset(&e, w, kind);
    e.insert_at = 1;
    CHECK_EQ_INT(run_walk(&e), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(e.calls, 1);
    CHECK_EQ_INT(e.wrong, 0);
    remove_x(&e);
  }
  check_world(w);
}

/* The same from deeper frames, over the stack the abandoned walk used. */
static unsigned long pad_wrong;

static void use_deeper(world_s* w, int depth) {
  volatile char pad[512];
  for (size_t k = 0; k < sizeof pad; k++) pad[k] = (char)(k * 3 + (size_t)depth);
  if (depth > 0) {
    use_deeper(w, depth - 1);
  } else {
    use_world(w);
  }
  for (size_t k = 0; k < sizeof pad; k++) pad_wrong += pad[k] != (char)(k * 3 + (size_t)depth);
}

/* After an escape from walk `e`: the world as it was, then written,
   walked, from here and from deeper frames. */
static void after_escape(esc_s* e, long round) {
  CHECK_EQ_INT(e->calls, e->target);
  CHECK_EQ_INT(e->returned, 0);
  CHECK_EQ_INT(e->wrong, 0);
  check_world(e->w);
  if (round % 2) {
    use_deeper(e->w, 1 + (int)(round % 6));
  } else {
    use_world(e->w);
  }
  CHECK_EQ_INT(pad_wrong, 0);
}

/* --- siglongjmp from a handler on a sigaltstack ------------------------ */

#if defined(HAVE_POSIX)
#define ALT_SIZE (1u << 20)

static sigjmp_buf sig_env;
static volatile sig_atomic_t handler_on_alt;
static esc_s* handler_walk;
static void* alt_base;

static int on_alt_stack(void) {
  stack_t ss;
  return sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK) != 0;
}

/* SIGUSR1: raised inside a callback; jumps out of the walk and the
   handler. */
static void jump_handler(int sig) {
  (void)sig;
  handler_on_alt = on_alt_stack();
  siglongjmp(sig_env, 1);
}

static void leave_by_signal(esc_s* e) {
  (void)e;
  raise(SIGUSR1);
}

/* SIGUSR2: runs a walk on the alternate stack. */
static void walk_handler(int sig) {
  (void)sig;
  handler_on_alt = on_alt_stack();
  handler_walk->rc = run_walk(handler_walk);
  handler_walk->returned = 1;
}

static void leave_by_siglongjmp(esc_s* e) {
  (void)e;
  siglongjmp(sig_env, 1);
}

static void signal_escape(world_s* w, int kind, int where, long round) {
  static esc_s e;
  esc_reset(&e, w, kind);
  aim(&e, where);
  e.leave = leave_by_signal;
  handler_on_alt = 0;
  if (sigsetjmp(sig_env, 1) == 0) {
    e.rc = run_walk(&e);
    e.returned = 1;
  }
  UNPOISON(alt_base, ALT_SIZE);
  CHECK_MSG(handler_on_alt, "the handler ran on the alternate stack");
  CHECK_EQ_INT(on_alt_stack(), 0);
  after_escape(&e, round);
}

/* The walk runs in the handler, on the alternate stack, and its callback
   leaves it and the handler with siglongjmp. */
static void walk_in_handler(world_s* w, int kind, int where, long round) {
  static esc_s e;
  esc_reset(&e, w, kind);
  aim(&e, where);
  e.leave = leave_by_siglongjmp;
  handler_walk = &e;
  handler_on_alt = 0;
  if (sigsetjmp(sig_env, 1) == 0) {
    raise(SIGUSR2);
    CHECK_MSG(0, "the handler's walk returned instead of leaving");
  }
  UNPOISON(alt_base, ALT_SIZE);
  CHECK_MSG(handler_on_alt, "the handler ran on the alternate stack");
  CHECK_EQ_INT(on_alt_stack(), 0);
  after_escape(&e, round);

  /* A walk in the handler that changes what it walks stops there; one
     that does not runs to its end. */
  esc_reset(&e, w, kind);
  e.insert_at = 1 + (long)where;
  handler_walk = &e;
  raise(SIGUSR2);
  CHECK_EQ_INT(e.returned, 1);
  CHECK_EQ_INT(e.rc, SLATE_ERROR_INVALID);
  CHECK_EQ_INT(e.calls, 1 + (long)where);
  CHECK_EQ_INT(e.wrong, 0);
  remove_x(&e);
  esc_reset(&e, w, kind);
  handler_walk = &e;
  raise(SIGUSR2);
  CHECK_EQ_INT(e.returned, 1);
  CHECK_EQ_INT(e.rc, SLATE_OK);
  CHECK_EQ_INT(e.wrong, 0);
  check_world(w);
}

static void escape_by_signal(void) {
  TEST_SECTION("siglongjmp out of walks from a handler on a sigaltstack");
  alt_base = malloc(ALT_SIZE);
  if (!CHECK(alt_base != NULL)) return;
  stack_t ss, old;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = alt_base;
  ss.ss_size = ALT_SIZE;
  if (!CHECK_EQ_INT(sigaltstack(&ss, &old), 0)) return;
  struct sigaction sa, old1, old2;
  memset(&sa, 0, sizeof sa);
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK;
  sa.sa_handler = jump_handler;
  CHECK_EQ_INT(sigaction(SIGUSR1, &sa, &old1), 0);
  sa.sa_handler = walk_handler;
  CHECK_EQ_INT(sigaction(SIGUSR2, &sa, &old2), 0);

  static world_s w;
  world_init(&w, NULL);
  for (long round = 0; round < 4; round++) {
    for (int kind = 0; kind < KINDS; kind++) {
      for (int where = 0; where < 3; where++) {
        signal_escape(&w, kind, where, round);
        walk_in_handler(&w, kind, where, round);
      }
    }
  }
  world_free(&w);

  sigaction(SIGUSR1, &old1, NULL);
  sigaction(SIGUSR2, &old2, NULL);
  sigaltstack(&old, NULL);
  free(alt_base);
}
#endif

/* --- pthread_exit and cancellation in a callback ----------------------- */

#if defined(HAVE_POSIX)
#define EXITED ((void*)(uintptr_t)0x5a7e)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int inside;

static void leave_by_exit(esc_s* e) {
  (void)e;
  pthread_exit(EXITED);
}

/* The cancellation's cleanup: unlocks the mutex a condition wait
   reacquired. Under AddressSanitizer it also forgets the poison of the
   frames the cancellation unwinds (they end without their epilogues),
   which the thread's exit code would otherwise meet as false reports
   (the compiler does this itself before pthread_exit, a noreturn call). */
static void cancelled(void* m) {
  if (m != NULL) pthread_mutex_unlock((pthread_mutex_t*)m);
#if defined(ESC_ASAN)
  __asan_handle_no_return();
#endif
}

/* Tells the main thread it is inside the callback, then waits to be
   cancelled: at a condition wait (kinds of even number) or at
   pthread_testcancel. */
static void leave_by_cancel(esc_s* e) {
  pthread_mutex_lock(&mu);
  inside = 1;
  pthread_cond_broadcast(&cv);
  if (e->kind % 2 == 0) {
    pthread_cleanup_push(cancelled, &mu);
    for (;;) pthread_cond_wait(&cv, &mu);
    pthread_cleanup_pop(1);
  } else {
    pthread_mutex_unlock(&mu);
    pthread_cleanup_push(cancelled, NULL);
    for (;;) {
      pthread_testcancel();
      sched_yield();
    }
    pthread_cleanup_pop(1);
  }
}

static void* walker(void* arg) {
  esc_s* e = (esc_s*)arg;
  e->rc = run_walk(e);
  e->returned = 1;
  return NULL;
}

static void thread_escape(world_s* w, int kind, int where, int cancel, long round) {
  static esc_s e;
  esc_reset(&e, w, kind);
  aim(&e, where);
  e.leave = cancel ? leave_by_cancel : leave_by_exit;
  inside = 0;
  pthread_t t;
  if (!CHECK_EQ_INT(pthread_create(&t, NULL, walker, &e), 0)) return;
  if (cancel) {
    pthread_mutex_lock(&mu);
    while (!inside) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    CHECK_EQ_INT(pthread_cancel(t), 0);
  }
  void* result = NULL;
  CHECK_EQ_INT(pthread_join(t, &result), 0);
  CHECK_EQ_PTR(result, cancel ? PTHREAD_CANCELED : EXITED);
  after_escape(&e, round);
}

static void escape_by_thread_exit(void) {
  TEST_SECTION("pthread_exit and pthread_cancel inside walks' callbacks");
  static world_s w;
  world_init(&w, NULL);
  for (long round = 0; round < 2; round++) {
    for (int kind = 0; kind < KINDS; kind++) {
      for (int where = 0; where < 3; where++) {
        thread_escape(&w, kind, where, 0, round);
        thread_escape(&w, kind, where, 1, round);
      }
    }
  }
  world_free(&w);
}
#endif

/* --- an abandoned ucontext fiber --------------------------------------- */

#if defined(HAVE_POSIX)
#define FIBER_STACK (256u * 1024u)

static ucontext_t main_uc, fiber_uc;
static esc_s* fiber_walk;
#if defined(ESC_ASAN)
static const void* main_bottom;
static size_t main_size;
#endif

static void fiber_main(void) {
#if defined(ESC_ASAN)
  __sanitizer_finish_switch_fiber(NULL, &main_bottom, &main_size);
#endif
  fiber_walk->rc = run_walk(fiber_walk);
  fiber_walk->returned = 1;
#if defined(ESC_ASAN)
  __sanitizer_start_switch_fiber(NULL, main_bottom, main_size);
#endif
}

/* Switches back to the main context; the fiber is never resumed (its
   frames, the walk's among them, die with its stack). */
static void leave_by_switch(esc_s* e) {
  (void)e;
#if defined(ESC_ASAN)
  __sanitizer_start_switch_fiber(NULL, main_bottom, main_size);
#endif
  swapcontext(&fiber_uc, &main_uc);
}

static void fiber_escape(int kind, int where, int use_mmap, long round) {
  static world_s w;
  static esc_s e;
  world_init(&w, NULL);
  esc_reset(&e, &w, kind);
  aim(&e, where);
  e.leave = leave_by_switch;
  fiber_walk = &e;

  void* stack = use_mmap ? mmap(NULL, FIBER_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                         : malloc(FIBER_STACK);
  if (!CHECK(stack != NULL && stack != MAP_FAILED)) return;
#if defined(ESC_VALGRIND)
  unsigned stack_id = VALGRIND_STACK_REGISTER(stack, (char*)stack + FIBER_STACK);
#endif
  CHECK_EQ_INT(getcontext(&fiber_uc), 0);
  fiber_uc.uc_stack.ss_sp = stack;
  fiber_uc.uc_stack.ss_size = FIBER_STACK;
  fiber_uc.uc_link = &main_uc;
  makecontext(&fiber_uc, fiber_main, 0);
#if defined(ESC_ASAN)
  void* fake = NULL;
  __sanitizer_start_switch_fiber(&fake, stack, FIBER_STACK);
#endif
  CHECK_EQ_INT(swapcontext(&main_uc, &fiber_uc), 0);
#if defined(ESC_ASAN)
  __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif

  /* The fiber's stack goes away with the walk's frames on it. */
#if defined(ESC_VALGRIND)
  VALGRIND_STACK_DEREGISTER(stack_id);
#endif
  UNPOISON(stack, FIBER_STACK);
  if (use_mmap) {
    CHECK_EQ_INT(munmap(stack, FIBER_STACK), 0);
  } else {
    free(stack);
  }
  after_escape(&e, round);
  /* A walk run to its end, then the structures freed as usual. */
  esc_s again;
  esc_reset(&again, &w, kind);
  CHECK_EQ_INT(run_walk(&again), SLATE_OK);
  CHECK_EQ_INT(again.wrong, 0);
  world_free(&w);
  CHECK_EQ_U64(slate_length(&w.map), 0);
  CHECK_EQ_U64(slotmap_length(&w.sm), 0);
  CHECK_EQ_U64(slotmap_sparse_length(&w.sp), 0);
}

static void escape_by_fiber(void) {
  TEST_SECTION("walks started in a ucontext fiber that is abandoned and its stack freed");
  for (long round = 0; round < 2; round++) {
    for (int kind = 0; kind < KINDS; kind++) {
      for (int where = 0; where < 3; where++) fiber_escape(kind, where, (int)((round + where) % 2), round);
    }
  }
}
#endif

/* --- a counting allocator ---------------------------------------------- */

#define BLOCKS 512

/* Live blocks with their sizes, the calls, and the calls that came after
   the structure it serves was freed (`closed`). */
typedef struct counter_s {
  long long live;
  long allocs, releases;
  int closed;
  long late, unknown, wrong_size;
  int n;
  void* block[BLOCKS];
  size_t size[BLOCKS];
} counter_s;

static void* count_allocate(void* context, size_t size) {
  counter_s* c = (counter_s*)context;
  c->allocs++;
  if (c->closed) c->late++;
  if (size == 0 || c->n == BLOCKS) {
    c->unknown++;
    return NULL;
  }
  void* p = malloc(size);
  if (p == NULL) return NULL;
  c->block[c->n] = p;
  c->size[c->n] = size;
  c->n++;
  c->live += (long long)size;
  return p;
}

static void count_release(void* context, void* pointer, size_t size) {
  counter_s* c = (counter_s*)context;
  c->releases++;
  if (c->closed) c->late++;
  for (int k = 0; k < c->n; k++) {
    if (c->block[k] != pointer) continue;
    c->wrong_size += c->size[k] != size;
    c->live -= (long long)c->size[k];
    c->n--;
    c->block[k] = c->block[c->n];
    c->size[k] = c->size[c->n];
    free(pointer);
    return;
  }
  c->unknown++;
}

static jmp_buf counted_env;

static void leave_by_longjmp(esc_s* e) {
  (void)e;
  longjmp(counted_env, 1);
}

/* Leaves walk `kind` of `w` at `where` by longjmp; with `use`, the world
   is then checked, written and walked. */
static void jump_out(world_s* w, int kind, int where, int use) {
  static esc_s e;
  esc_reset(&e, w, kind);
  aim(&e, where);
  e.leave = leave_by_longjmp;
  if (setjmp(counted_env) == 0) {
    run_walk(&e);
    CHECK_MSG(0, kind_names[kind]); /* the walk returned instead of jumping */
  }
  if (use) {
    after_escape(&e, where);
  } else {
    CHECK_EQ_INT(e.calls, e.target);
  }
}

/* What runs on other structures after a counted world was freed: every
   walk left and run to its end on a world of the default allocator. */
static void other_activity(void) {
  static world_s o;
  world_init(&o, NULL);
  for (int kind = 0; kind < KINDS; kind++) {
    jump_out(&o, kind, kind % 3, 1);
    esc_s e;
    esc_reset(&e, &o, kind);
    CHECK_EQ_INT(run_walk(&e), SLATE_OK);
  }
  check_world(&o);
  world_free(&o);
}

#if defined(HAVE_POSIX)
static void* other_activity_thread(void* arg) {
  (void)arg;
  static world_s o;
  world_init(&o, NULL);
  for (int kind = 0; kind < KINDS; kind++) {
    esc_s e;
    esc_reset(&e, &o, kind);
    if (run_walk(&e) != SLATE_OK) return NULL;
  }
  world_free(&o);
  return &o;
}
#endif

static long long live_of(counter_s* const* c) {
  long long live = 0;
  for (int k = 0; k < 4; k++) live += c[k]->live;
  return live;
}

static long calls_of_counters(counter_s* const* c) {
  long calls = 0;
  for (int k = 0; k < 4; k++) calls += c[k]->allocs + c[k]->releases;
  return calls;
}

/* A world whose four structures have counting allocators; walk `kind` is
   left by longjmp, then (by `then`) freed at once, left again several
   times, run to its end, or the world used; then freed. */
static void counted_escape(int kind, int where, int then) {
  counter_s* c[4];
  slate_allocator_s a[4];
  for (int k = 0; k < 4; k++) {
    c[k] = (counter_s*)calloc(1, sizeof(counter_s));
    if (!CHECK(c[k] != NULL)) return;
    a[k].allocate = count_allocate;
    a[k].release = count_release;
    a[k].context = c[k];
  }
  allocators_s as;
  as.map = &a[0];
  as.sm = &a[1];
  as.sp = &a[2];
  as.tag = &a[3];
  static world_s w;
  world_init(&w, &as);

  counter_s* walked = kind == K_SM_SORT ? c[1] : c[2];
  long long held = walked->live;
  int blocks = walked->n;
  jump_out(&w, kind, where, 0);
  if (is_sort(kind)) {
    /* The sort's memory (an index per row) is the structure's, from its
       allocator, and stays with it after the jump. */
    CHECK_EQ_INT(walked->n, blocks + 1);
    CHECK(walked->live >= held + (long long)(N * sizeof(uint32_t)));
  }
  /* Nothing of the abandoned walk is released by calls on other
     structures. */
  long before = calls_of_counters(c);
  other_activity();
  CHECK_EQ_INT(calls_of_counters(c), before);
  check_world(&w);

  if (then == 1) {
    /* Scratch left by an abandoned sort or erase_if goes back at the next
       one: leaving it again and again does not pile memory up. */
    jump_out(&w, kind, (where + 1) % 3, 0);
    long long live2 = live_of(c);
    for (int k = 0; k < 6; k++) jump_out(&w, kind, k % 3, 0);
    CHECK(live_of(c) <= live2);
  } else if (then == 2) {
    esc_s e;
    esc_reset(&e, &w, kind);
    CHECK_EQ_INT(run_walk(&e), SLATE_OK);
    check_world(&w);
  } else if (then == 3) {
    use_world(&w);
  }

  world_free(&w);
  for (int k = 0; k < 4; k++) {
    CHECK_EQ_INT(c[k]->live, 0);
    CHECK_EQ_INT(c[k]->n, 0);
    CHECK_EQ_INT(c[k]->allocs, c[k]->releases);
    CHECK_EQ_INT(c[k]->unknown, 0);
    CHECK_EQ_INT(c[k]->wrong_size, 0);
    c[k]->closed = 1;
  }
  /* Whatever runs later, on this thread or another, calls none of them. */
  other_activity();
#if defined(HAVE_POSIX)
  pthread_t t;
  if (CHECK_EQ_INT(pthread_create(&t, NULL, other_activity_thread, NULL), 0)) {
    void* result = NULL;
    CHECK_EQ_INT(pthread_join(t, &result), 0);
    CHECK(result != NULL);
  }
#endif
  /* And a freed structure's free again releases nothing. */
  world_free(&w);
  for (int k = 0; k < 4; k++) {
    CHECK_EQ_INT(c[k]->late, 0);
    CHECK_EQ_INT(c[k]->live, 0);
    memset(c[k], 0xdd, sizeof(counter_s));
    free(c[k]);
  }
}

static void counted_escapes(void) {
  TEST_SECTION("a counting allocator: walks left by longjmp leak nothing, nothing is released after free");
  for (int kind = 0; kind < KINDS; kind++) {
    for (int then = 0; then < 4; then++) {
      for (int where = 0; where < 3; where++) counted_escape(kind, where, then);
    }
  }
}

int main(void) {
#if defined(HAVE_POSIX)
  escape_by_signal();
  escape_by_fiber();
  escape_by_thread_exit();
#endif
  counted_escapes();
  return TEST_SUMMARY();
}
