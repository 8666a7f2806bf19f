/*
 * abi/longjmp.c -- leaving walks with longjmp (SPEC §3c).
 *
 * A callback may leave any walk (slate_each, slate_delete_if,
 * slotmap_each, slotmap_erase_if, slotmap_sort's comparator,
 * slotmap_sparse_each, slotmap_sparse_erase_if, slotmap_sparse_sort's
 * comparator, slotmap_join, and a save's write and a codec's encode) with
 * longjmp, as C error handling does. A walk
 * keeps no state outside its own frame, so afterwards the walked structure
 * holds what the walk had done, and every call on it and on every other
 * structure behaves as if the walk had returned: writes are carried out,
 * and a later walk whose callback writes to the walked structure follows
 * §3c (replacing a value or removing the given key goes on, any other
 * change stops the walk with SLATE_ERROR_INVALID).
 *
 * Each walk is left at its first, a middle and its last entry, many rounds,
 * some of them right after the callback wrote to the walked structure
 * (replaced the given entry's value, removed the given entry, inserted a
 * new key). After each jump every structure is checked against a model,
 * then written and walked, from the frame that caught the jump and from
 * deeper frames that reuse the abandoned stack. Nested walks, up to 40
 * deep, are left to the outside and to a point inside an outer walk,
 * whose walk then goes on with its structure writable (to its end, or,
 * where a walk inside it sorted its structure, stopped: a sort is a
 * change, also one that was left). Under Valgrind and AddressSanitizer
 * nothing leaks or is read after it was freed (a sort left by a jump
 * leaves its scratch memory with the structure, until its next sort or
 * free). Saves of every structure are left from `write` at its first, a
 * middle and its last call, and a codec save from `encode` at several
 * calls, some right after the callback changed the saved structure; the
 * memory a left save never gave back is measured (see leave_saves).
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slate.h"
#include "../support/test.h"
#include "../support/map_check.h"

/* Entries 1..N are present at the start of every test; X1..X3 are keys
   callbacks insert. */
#define N 120
#define X1 (N + 1) /* inserted by a callback just before it jumps */
#define X2 (N + 2) /* inserted, then removed by the callback it is given to */
#define X3 (N + 3) /* inserted by a callback, which stops its walk */
#define CAP (N + 3)
#define ROUNDS 32
#define NEST_ROUNDS 300
#define MAX_DEPTH 40
#define DEAD 32

#define V(x) ((void*)(uintptr_t)(x))

/* The walks. */
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

/* What a callback writes to the walked structure (before it jumps, or
   after it landed). */
enum { W_NONE, W_REPLACE, W_REMOVE, W_INSERT, WRITES };

/* The structures, and the model of what each holds: entry i (1..CAP) is
   the map's key i -> i, the slotmap's row i (under sm_key[i]), the sparse
   set's row i and the tag set's member, both under own_key[i]. */
typedef struct world_s {
  slate_s map;
  slotmap_s sm;
  slotmap_s own;        /* the owner of the sets' keys: rows 1..CAP, never changed */
  slotmap_sparse_s sp;  /* one uint64_t column: i */
  slotmap_sparse_s tag; /* membership */
  slate_s other;        /* a map no walk here walks */
  uint8_t in_map[CAP + 1], in_sm[CAP + 1], in_sp[CAP + 1], in_tag[CAP + 1];
  slotmap_key sm_key[CAP + 1];
  slotmap_key own_key[CAP + 1];
  slotmap_key dead[DEAD]; /* keys of erased slotmap rows: never found again */
  unsigned dead_next;
} world_s;

static world_s W;

/* Mismatches seen inside callbacks (checked after each walk). */
static unsigned long bad;

/* One walk in progress: its kind, the calls its callback received, where
   it jumps and what it writes first, what it chose, and the walk it starts
   inside itself (nesting). */
typedef struct walk_s {
  int kind;
  long calls;
  long count;  /* the entries (or, for a sort, a lower bound of the comparisons) at its start */
  long target; /* jump at this call; 0: never */
  int where;   /* for a nested innermost walk: 0 first, 1 middle, 2 last */
  int write;   /* what the callback writes just before the jump */
  jmp_buf* to;
  int choose; /* delete_if / erase_if choose entries (else none) */
  uint8_t chosen[CAP + 1];
  uint8_t seen[CAP + 1];
  long dups;
  struct walk_s* nest; /* started from this walk's callback at call nest_at */
  long nest_at;
  uint64_t nest_i; /* the entry given at that call */
  int lands;      /* the nested walk jumps back into this walk's callback */
  int land_write; /* what this walk's callback writes after landing */
  int landed;
  int stopped; /* expected to stop with SLATE_ERROR_INVALID */
  int returned;
  int rc;
} walk_s;

static void walk_reset(walk_s* w, int kind) {
  memset(w, 0, sizeof *w);
  w->kind = kind;
}

static void note_dead(slotmap_key k) {
  W.dead[W.dead_next % DEAD] = k;
  W.dead_next++;
}

/* --- writes to one entry, with the model ------------------------------- */

static void map_put(uint64_t i) {
  CHECK_EQ_INT(slate_set_u64(&W.map, i, V(i)), SLATE_OK);
  W.in_map[i] = 1;
}

static void map_remove(uint64_t i) {
  CHECK_EQ_INT(slate_delete_u64(&W.map, i), SLATE_OK);
  W.in_map[i] = 0;
}

static void sm_put(uint64_t i) {
  CHECK_EQ_INT(slotmap_insert(&W.sm, &i, &W.sm_key[i]), SLATE_OK);
  W.in_sm[i] = 1;
}

static void sm_remove(uint64_t i) {
  CHECK_EQ_INT(slotmap_erase(&W.sm, W.sm_key[i]), SLATE_OK);
  note_dead(W.sm_key[i]);
  W.in_sm[i] = 0;
}

/* Writes the present row of i anew with its own value, through the
   pointer slotmap_get gives: a value replaced, no change. */
static void sm_rewrite(uint64_t i) {
  void* e = NULL;
  if (CHECK_EQ_INT(slotmap_get(&W.sm, W.sm_key[i], &e), SLATE_OK)) *(uint64_t*)e = i;
}

static void sp_put(uint64_t i) {
  CHECK_EQ_INT(slotmap_sparse_set(&W.sp, &W.own, W.own_key[i], &i), SLATE_OK);
  W.in_sp[i] = 1;
}

static void sp_remove(uint64_t i) {
  CHECK_EQ_INT(slotmap_sparse_erase(&W.sp, W.own_key[i]), SLATE_OK);
  W.in_sp[i] = 0;
}

static void tag_put(uint64_t i) {
  CHECK_EQ_INT(slotmap_sparse_set(&W.tag, &W.own, W.own_key[i], NULL), SLATE_OK);
  W.in_tag[i] = 1;
}

static void tag_remove(uint64_t i) {
  CHECK_EQ_INT(slotmap_sparse_erase(&W.tag, W.own_key[i]), SLATE_OK);
  W.in_tag[i] = 0;
}

/* The structure a walk's W_REMOVE / W_INSERT writes to: 0 map, 1 slotmap,
   2 sparse set, 3 tag set (a join removes its given key from the tags). */
static int written_by(int kind, int write) {
  switch (kind) {
    case K_MAP_EACH:
    case K_MAP_DELETE_IF:
      return 0;
    case K_SM_EACH:
    case K_SM_ERASE_IF:
    case K_SM_SORT:
      return 1;
    case K_JOIN:
      return write == W_REMOVE ? 3 : 2;
    default:
      return 2;
  }
}

/* Whether a walk of `kind` walks structure `s` (as written_by numbers). */
static int walks(int kind, int s) {
  switch (kind) {
    case K_MAP_EACH:
    case K_MAP_DELETE_IF:
      return s == 0;
    case K_SM_EACH:
    case K_SM_ERASE_IF:
    case K_SM_SORT:
      return s == 1;
    case K_JOIN:
      return s == 2 || s == 3;
    default:
      return s == 2;
  }
}

/* The callback's own write to the structure its walk walks; `i` is the
   entry it was given (for a sort, the comparator's first element). */
static void write_walked(int kind, int write, uint64_t i) {
  int s = written_by(kind, write);
  switch (write) {
    case W_REPLACE:
      if (s == 0) map_put(i);
      if (s == 1) sm_rewrite(i);
      if (s == 2) sp_put(i);
      break;
    case W_REMOVE:
      if (s == 0) map_remove(i);
      if (s == 1) sm_remove(i);
      if (s == 2) sp_remove(i);
      if (s == 3) tag_remove(i);
      break;
    case W_INSERT:
      if (s == 0) map_put(X1);
      if (s == 1) sm_put(X1);
      if (s == 2) sp_put(X1);
      break;
    default:
      break;
  }
}

/* --- the world: set up, back to entries 1..N, checked against the model - */

static void restore(void) {
  for (uint64_t i = 1; i <= CAP; i++) {
    int want = i <= N;
    if (W.in_map[i] != want) want ? map_put(i) : map_remove(i);
    if (W.in_sm[i] != want) want ? sm_put(i) : sm_remove(i);
    if (W.in_sp[i] != want) want ? sp_put(i) : sp_remove(i);
    if (W.in_tag[i] != want) want ? tag_put(i) : tag_remove(i);
  }
}

static void world_init(void) {
  memset(&W, 0, sizeof W);
  CHECK_EQ_INT(slate(&W.map), SLATE_OK);
  CHECK_EQ_INT(slate(&W.other), SLATE_OK);
  CHECK_EQ_INT(slotmap(&W.sm, sizeof(uint64_t)), SLATE_OK);
  CHECK_EQ_INT(slotmap(&W.own, sizeof(uint64_t)), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&W.sp, sizeof(uint64_t)), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&W.tag, 0), SLATE_OK);
  for (uint64_t i = 1; i <= CAP; i++) {
    CHECK_EQ_INT(slotmap_insert(&W.own, &i, &W.own_key[i]), SLATE_OK);
  }
  restore();
}

static void world_free(void) {
  slate_free(&W.map);
  slate_free(&W.other);
  slotmap_free(&W.sm);
  slotmap_free(&W.own);
  slotmap_sparse_free(&W.sp);
  slotmap_sparse_free(&W.tag);
}

/* The owner's entry number of a key (0 for a key it does not hold). */
static uint64_t own_index(slotmap_key key) {
  void* e = NULL;
  if (slotmap_get(&W.own, key, &e) != SLATE_OK) return 0;
  return *(uint64_t*)e;
}

/* A walk that records what it sees, for the checks. */
typedef struct tally_s {
  long calls;
  unsigned long wrong;
  uint8_t seen[CAP + 1];
} tally_s;

static void tally_entry(tally_s* t, uint64_t i, int key_ok) {
  t->calls++;
  if (i == 0 || i > CAP || !key_ok || t->seen[i]) {
    t->wrong++;
    return;
  }
  t->seen[i] = 1;
}

static int tally_map_cb(const char* key, uint32_t key_length, void* value, void* data) {
  uint64_t k = 0;
  int ok = slate_key_to_u64(key, key_length, &k) == SLATE_OK && k == (uintptr_t)value;
  tally_entry((tally_s*)data, k, ok);
  return 0;
}

static int tally_sm_cb(slotmap_key key, void* row, void* data) {
  uint64_t i = *(uint64_t*)row;
  tally_entry((tally_s*)data, i, i >= 1 && i <= CAP && key == W.sm_key[i]);
  return 0;
}

static int tally_sp_cb(slotmap_key key, void* row, void* data) {
  uint64_t i = *(uint64_t*)row;
  tally_entry((tally_s*)data, i, own_index(key) == i);
  return 0;
}

static int tally_tag_cb(slotmap_key key, void* row, void* data) {
  tally_entry((tally_s*)data, own_index(key), row == NULL);
  return 0;
}

static int tally_join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  uint64_t i = *(const uint64_t*)elements[0];
  uint32_t row = 0;
  int ok = own_index(key) == i && elements[1] == NULL && *(const uint64_t*)elements[2] == i &&
           slotmap_row(&W.own, key, &row) == SLATE_OK && rows[2] == row;
  tally_entry((tally_s*)data, i, ok);
  return 0;
}

/* A full walk visits exactly the model's entries, each once. */
static void check_tally(const tally_s* t, const uint8_t* in, const char* what) {
  unsigned long wrong = t->wrong;
  long want = 0;
  for (uint64_t i = 1; i <= CAP; i++) {
    want += in[i];
    wrong += t->seen[i] != in[i];
  }
  CHECK_MSG(wrong == 0, what);
  CHECK_EQ_INT(t->calls, want);
}

static long count_in(const uint8_t* in) {
  long n = 0;
  for (uint64_t i = 1; i <= CAP; i++) n += in[i];
  return n;
}

static void check_world(void) {
  unsigned long wrong = 0;
  for (uint64_t i = 1; i <= CAP; i++) {
    void* v = NULL;
    int rc = slate_get_u64(&W.map, i, &v);
    wrong += W.in_map[i] ? (rc != SLATE_OK || v != V(i)) : rc != SLATE_ERROR_NOT_FOUND;
    void* e = NULL;
    rc = W.sm_key[i] ? slotmap_get(&W.sm, W.sm_key[i], &e) : SLATE_ERROR_NOT_FOUND;
    wrong += W.in_sm[i] ? (rc != SLATE_OK || *(uint64_t*)e != i) : rc != SLATE_ERROR_NOT_FOUND;
    e = NULL;
    rc = slotmap_sparse_get(&W.sp, W.own_key[i], &e);
    wrong += W.in_sp[i] ? (rc != SLATE_OK || *(uint64_t*)e != i) : rc != SLATE_ERROR_NOT_FOUND;
    wrong += slotmap_sparse_contains(&W.tag, W.own_key[i]) != W.in_tag[i];
  }
  for (unsigned d = 0; d < DEAD && d < W.dead_next; d++) {
    wrong += slotmap_contains(&W.sm, W.dead[d]) != 0;
  }
  CHECK_MSG(wrong == 0, "a structure differs from its model");
  CHECK_EQ_U64(slate_length(&W.map), count_in(W.in_map));
  CHECK_EQ_U64(slotmap_length(&W.sm), count_in(W.in_sm));
  CHECK_EQ_U64(slotmap_sparse_length(&W.sp), count_in(W.in_sp));
  CHECK_EQ_U64(slotmap_sparse_length(&W.tag), count_in(W.in_tag));
  CHECK_EQ_U64(slotmap_length(&W.own), CAP);
  CHECK_MAP_OK(&W.map);

  tally_s t;
  memset(&t, 0, sizeof t);
  CHECK_EQ_INT(slate_each(&W.map, tally_map_cb, &t), SLATE_OK);
  check_tally(&t, W.in_map, "slate_each after the jump");
  memset(&t, 0, sizeof t);
  CHECK_EQ_INT(slotmap_each(&W.sm, tally_sm_cb, &t), SLATE_OK);
  check_tally(&t, W.in_sm, "slotmap_each after the jump");
  memset(&t, 0, sizeof t);
  CHECK_EQ_INT(slotmap_sparse_each(&W.sp, tally_sp_cb, &t), SLATE_OK);
  check_tally(&t, W.in_sp, "slotmap_sparse_each after the jump");
  memset(&t, 0, sizeof t);
  CHECK_EQ_INT(slotmap_sparse_each(&W.tag, tally_tag_cb, &t), SLATE_OK);
  check_tally(&t, W.in_tag, "slotmap_sparse_each of the tags after the jump");
  memset(&t, 0, sizeof t);
  slotmap_sparse_s* sets[2] = {&W.sp, &W.tag};
  CHECK_EQ_INT(slotmap_join(&W.own, sets, 2, tally_join_cb, &t), SLATE_OK);
  uint8_t both[CAP + 1];
  for (uint64_t i = 0; i <= CAP; i++) both[i] = (uint8_t)(W.in_sp[i] && W.in_tag[i]);
  check_tally(&t, both, "slotmap_join after the jump");
}

/* --- the walks, one callback per signature ----------------------------- */

static void nest_hook(walk_s* w, uint64_t i);

/* Every callback's body: counts the call, starts the nested walk, jumps
   (after its write) on the target call, and decides. */
static int visit(walk_s* w, uint64_t i) {
  w->calls++;
  if (i == 0 || i > CAP) {
    bad++;
    i = 1;
  }
  if (!is_sort(w->kind)) {
    w->dups += w->seen[i];
    w->seen[i] = 1;
  }
  if (w->nest != NULL && w->calls == w->nest_at) {
    w->nest_i = i;
    nest_hook(w, i);
  }
  if (w->calls == w->target) {
    write_walked(w->kind, w->write, i);
    longjmp(*w->to, 1);
  }
  int yes = 0;
  if (w->choose && w->kind == K_MAP_DELETE_IF) yes = i % 2 == 0;
  if (w->choose && (w->kind == K_SM_ERASE_IF || w->kind == K_SP_ERASE_IF)) yes = i % 3 == 0;
  w->chosen[i] = (uint8_t)yes;
  return yes;
}

static int map_cb(const char* key, uint32_t key_length, void* value, void* data) {
  uint64_t k = 0;
  if (slate_key_to_u64(key, key_length, &k) != SLATE_OK || k != (uintptr_t)value) bad++;
  return visit((walk_s*)data, (uintptr_t)value);
}

static int sm_cb(slotmap_key key, void* row, void* data) {
  uint64_t i = *(uint64_t*)row;
  if (i < 1 || i > CAP || key != W.sm_key[i]) bad++;
  return visit((walk_s*)data, i);
}

static int sp_cb(slotmap_key key, void* row, void* data) {
  uint64_t i = *(uint64_t*)row;
  if (own_index(key) != i) bad++;
  return visit((walk_s*)data, i);
}

static int join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)rows;
  uint64_t i = *(const uint64_t*)elements[0];
  if (own_index(key) != i) bad++;
  return visit((walk_s*)data, i);
}

/* Descending order of column 0. */
static int less_cb(const void* a, const void* b, void* data) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  visit((walk_s*)data, x);
  return x > y;
}

static int plain_less(const void* a, const void* b, void* data) {
  (void)data;
  return *(const uint64_t*)a > *(const uint64_t*)b;
}

static int run_walk(walk_s* w) {
  slotmap_sparse_s* sets[2] = {&W.sp, &W.tag};
  switch (w->kind) {
    case K_MAP_EACH:
      return slate_each(&W.map, map_cb, w);
    case K_MAP_DELETE_IF:
      return slate_delete_if(&W.map, map_cb, w);
    case K_SM_EACH:
      return slotmap_each(&W.sm, sm_cb, w);
    case K_SM_ERASE_IF:
      return slotmap_erase_if(&W.sm, sm_cb, w);
    case K_SM_SORT:
      return slotmap_sort(&W.sm, less_cb, w);
    case K_SP_EACH:
      return slotmap_sparse_each(&W.sp, sp_cb, w);
    case K_SP_ERASE_IF:
      return slotmap_sparse_erase_if(&W.sp, sp_cb, w);
    case K_SP_SORT:
      return slotmap_sparse_sort(&W.sp, less_cb, w);
    default:
      return slotmap_join(&W.own, sets, 2, join_cb, w);
  }
}

/* The entries a walk of `kind` is given now; for a sort, a lower bound of
   its comparisons. */
static long count_now(int kind) {
  switch (kind) {
    case K_MAP_EACH:
    case K_MAP_DELETE_IF:
      return (long)slate_length(&W.map);
    case K_SM_EACH:
    case K_SM_ERASE_IF:
      return (long)slotmap_length(&W.sm);
    case K_SM_SORT:
      return (long)slotmap_length(&W.sm) - 1;
    case K_SP_EACH:
    case K_SP_ERASE_IF:
      return (long)slotmap_sparse_length(&W.sp);
    case K_SP_SORT:
      return (long)slotmap_sparse_length(&W.sp) - 1;
    default: {
      long n = 0;
      for (uint64_t i = 1; i <= CAP; i++) {
        n += slotmap_sparse_contains(&W.sp, W.own_key[i]) && slotmap_sparse_contains(&W.tag, W.own_key[i]);
      }
      return n;
    }
  }
}

static long position(int where, long count) {
  if (where == 0 || count < 2) return 1;
  return where == 1 ? count / 2 : count;
}

/* Column 0 of a sorted structure is in descending order. */
static void check_sorted(int kind) {
  const uint64_t* col = (const uint64_t*)(kind == K_SM_SORT ? slotmap_column(&W.sm, 0)
                                                             : slotmap_sparse_column(&W.sp, 0));
  uint32_t n = kind == K_SM_SORT ? slotmap_length(&W.sm) : slotmap_sparse_length(&W.sp);
  unsigned long wrong = 0;
  for (uint32_t r = 1; r < n; r++) wrong += col[r - 1] <= col[r];
  CHECK_MSG(wrong == 0, "a completed sort left its rows out of order");
}

/* What a deleting walk, left by a jump or run to its end, had done: it
   removes each entry its predicate chose as it goes (an answer the walk
   never received, or one that came with a change, is not applied). */
static void apply_chosen(const walk_s* w) {
  for (uint64_t i = 1; i <= CAP; i++) {
    if (!w->chosen[i]) continue;
    if (w->kind == K_MAP_DELETE_IF) W.in_map[i] = 0;
    if (w->kind == K_SM_ERASE_IF && W.in_sm[i]) {
      note_dead(W.sm_key[i]);
      W.in_sm[i] = 0;
    }
    if (w->kind == K_SP_ERASE_IF) W.in_sp[i] = 0;
  }
}

/* --- after a jump: every structure written and walked ------------------ */

/* A walk whose callback writes to the walked structure: the given entry's
   value replaced (the walk goes on), the given entry removed when it is
   `drop` (the walk goes on), or, with `insert`, a new key X3 added on the
   first call (the walk stops with SLATE_ERROR_INVALID). */
typedef struct use_s {
  long calls;
  uint64_t drop;
  int insert;
  unsigned long wrong;
  uint8_t seen[CAP + 1];
} use_s;

static void use_entry(use_s* u, uint64_t i) {
  u->calls++;
  if (i == 0 || i > CAP || u->seen[i]) {
    u->wrong++;
    return;
  }
  u->seen[i] = 1;
}

static int use_map_cb(const char* key, uint32_t key_length, void* value, void* data) {
  use_s* u = (use_s*)data;
  uint64_t k = 0;
  if (slate_key_to_u64(key, key_length, &k) != SLATE_OK || k != (uintptr_t)value) u->wrong++;
  use_entry(u, k);
  if (u->insert) {
    u->wrong += slate_set_u64(&W.map, X3, V(X3)) != SLATE_OK;
  } else if (k == u->drop) {
    u->wrong += slate_delete_u64(&W.map, k) != SLATE_OK;
  } else {
    u->wrong += slate_set_u64(&W.map, k, V(k)) != SLATE_OK;
  }
  return 0;
}

static int use_sm_cb(slotmap_key key, void* row, void* data) {
  use_s* u = (use_s*)data;
  uint64_t i = *(uint64_t*)row;
  use_entry(u, i);
  if (u->insert) {
    uint64_t x = X3;
    u->wrong += slotmap_insert(&W.sm, &x, &W.sm_key[X3]) != SLATE_OK;
  } else if (i == u->drop) {
    u->wrong += slotmap_erase(&W.sm, key) != SLATE_OK;
  } else {
    *(uint64_t*)row = i;
  }
  return 0;
}

static int use_sp_cb(slotmap_key key, void* row, void* data) {
  use_s* u = (use_s*)data;
  uint64_t i = *(uint64_t*)row;
  use_entry(u, i);
  if (u->insert) {
    uint64_t x = X3;
    u->wrong += slotmap_sparse_set(&W.sp, &W.own, W.own_key[X3], &x) != SLATE_OK;
  } else if (i == u->drop) {
    u->wrong += slotmap_sparse_erase(&W.sp, key) != SLATE_OK;
  } else {
    u->wrong += slotmap_sparse_set(&W.sp, &W.own, key, &i) != SLATE_OK;
  }
  return 0;
}

static int use_join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)rows;
  use_s* u = (use_s*)data;
  uint64_t i = *(const uint64_t*)elements[0];
  use_entry(u, i);
  if (i == u->drop) {
    u->wrong += slotmap_sparse_erase(&W.tag, key) != SLATE_OK;
  } else {
    u->wrong += slotmap_sparse_set(&W.sp, &W.own, key, &i) != SLATE_OK;
  }
  /* The owner may change during a join: a row added and erased. */
  slotmap_key k = 0;
  u->wrong += slotmap_insert(&W.own, &i, &k) != SLATE_OK;
  u->wrong += slotmap_erase(&W.own, k) != SLATE_OK;
  return 0;
}

static int choose_none(slotmap_key key, void* row, void* data) {
  (void)key, (void)row, (void)data;
  return 0;
}

static int choose_none_map(const char* key, uint32_t key_length, void* value, void* data) {
  (void)key, (void)key_length, (void)value, (void)data;
  return 0;
}

/* Checks a writing walk: each entry the model holds plus the dropped one,
   once. */
static void check_use(const use_s* u, const uint8_t* in, const char* what) {
  unsigned long wrong = u->wrong;
  long want = 0;
  for (uint64_t i = 1; i <= CAP; i++) {
    int expect = in[i] || i == u->drop;
    want += expect;
    wrong += u->seen[i] != expect;
  }
  CHECK_MSG(wrong == 0, what);
  CHECK_EQ_INT(u->calls, want);
}

static void use_map(void) {
  map_put(X2);
  use_s u;
  memset(&u, 0, sizeof u);
  u.drop = X2; /* the walk removes it: the model, ahead */
  W.in_map[X2] = 0;
  CHECK_EQ_INT(slate_each(&W.map, use_map_cb, &u), SLATE_OK);
  check_use(&u, W.in_map, "slate_each whose callback writes the map");
  CHECK_EQ_INT(slate_get_u64(&W.map, X2, NULL), SLATE_ERROR_NOT_FOUND);

  memset(&u, 0, sizeof u);
  u.insert = 1;
  CHECK_EQ_INT(slate_each(&W.map, use_map_cb, &u), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(u.calls, 1);
  CHECK_EQ_INT(u.wrong, 0);
  CHECK_EQ_INT(slate_delete_u64(&W.map, X3), SLATE_OK);
  CHECK_EQ_INT(slate_delete_if(&W.map, choose_none_map, NULL), SLATE_OK);

  CHECK_EQ_INT(slate_set(&W.other, "after", V(7)), SLATE_OK);
  CHECK_EQ_INT(slate_each(&W.other, choose_none_map, NULL), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&W.other, "after"), SLATE_OK);
  slate_s fresh;
  CHECK_EQ_INT(slate(&fresh), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&fresh, 1, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&fresh, 100), SLATE_OK);
  CHECK_EQ_U64(slate_length(&fresh), 1);
  slate_free(&fresh);
}

static void use_slotmap(void) {
  sm_put(X2);
  use_s u;
  memset(&u, 0, sizeof u);
  u.drop = X2;
  W.in_sm[X2] = 0;
  note_dead(W.sm_key[X2]);
  CHECK_EQ_INT(slotmap_each(&W.sm, use_sm_cb, &u), SLATE_OK);
  check_use(&u, W.in_sm, "slotmap_each whose callback writes the slotmap");
  CHECK_EQ_INT(slotmap_contains(&W.sm, W.sm_key[X2]), 0);

  memset(&u, 0, sizeof u);
  u.insert = 1;
  CHECK_EQ_INT(slotmap_each(&W.sm, use_sm_cb, &u), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(u.calls, 1);
  CHECK_EQ_INT(u.wrong, 0);
  W.in_sm[X3] = 1;
  sm_remove(X3);

  /* The sort and erase_if after abandoned ones, run to their end. */
  CHECK_EQ_INT(slotmap_sort(&W.sm, plain_less, NULL), SLATE_OK);
  check_sorted(K_SM_SORT);
  CHECK_EQ_INT(slotmap_erase_if(&W.sm, choose_none, NULL), SLATE_OK);

  slotmap_s fresh;
  slotmap_key k = 0;
  uint64_t v = 5;
  CHECK_EQ_INT(slotmap(&fresh, sizeof v), SLATE_OK);
  CHECK_EQ_INT(slotmap_insert(&fresh, &v, &k), SLATE_OK);
  CHECK_EQ_INT(slotmap_sort(&fresh, plain_less, NULL), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&fresh), 1);
  slotmap_free(&fresh);
}

static void use_sparse(void) {
  sp_put(X2);
  use_s u;
  memset(&u, 0, sizeof u);
  u.drop = X2;
  W.in_sp[X2] = 0;
  CHECK_EQ_INT(slotmap_sparse_each(&W.sp, use_sp_cb, &u), SLATE_OK);
  check_use(&u, W.in_sp, "slotmap_sparse_each whose callback writes the set");
  CHECK_EQ_INT(slotmap_sparse_contains(&W.sp, W.own_key[X2]), 0);

  memset(&u, 0, sizeof u);
  u.insert = 1;
  CHECK_EQ_INT(slotmap_sparse_each(&W.sp, use_sp_cb, &u), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(u.calls, 1);
  CHECK_EQ_INT(u.wrong, 0);
  W.in_sp[X3] = 1;
  sp_remove(X3);

  CHECK_EQ_INT(slotmap_sparse_sort(&W.sp, plain_less, NULL), SLATE_OK);
  check_sorted(K_SP_SORT);
  CHECK_EQ_INT(slotmap_sparse_erase_if(&W.sp, choose_none, NULL), SLATE_OK);

  /* A join whose callback replaces the sets' values, changes the owner
     and removes the given key X2 from the tags. */
  sp_put(X2);
  tag_put(X2);
  memset(&u, 0, sizeof u);
  u.drop = X2;
  W.in_tag[X2] = 0;
  slotmap_sparse_s* sets[2] = {&W.sp, &W.tag};
  CHECK_EQ_INT(slotmap_join(&W.own, sets, 2, use_join_cb, &u), SLATE_OK);
  uint8_t both[CAP + 1];
  for (uint64_t i = 0; i <= CAP; i++) both[i] = (uint8_t)(W.in_sp[i] && W.in_tag[i]);
  check_use(&u, both, "slotmap_join whose callback writes the sets");
  CHECK_EQ_INT(slotmap_sparse_contains(&W.tag, W.own_key[X2]), 0);
  sp_remove(X2);
}

static void use_world(void) {
  use_map();
  use_slotmap();
  use_sparse();
  check_world();
}

/* The same from `depth` frames further down, each filling a buffer: the
   stack the abandoned walk used is used again. */
static unsigned long pad_wrong;

static void use_deeper(int depth) {
  volatile char pad[384];
  for (size_t k = 0; k < sizeof pad; k++) pad[k] = (char)(k + (size_t)depth);
  if (depth > 0) {
    use_deeper(depth - 1);
  } else {
    use_world();
  }
  for (size_t k = 0; k < sizeof pad; k++) pad_wrong += pad[k] != (char)(k + (size_t)depth);
}

static void after_jump(int round) {
  if (round % 2) {
    use_deeper(1 + round % 8);
  } else {
    use_world();
  }
  CHECK_EQ_INT(pad_wrong, 0);
}

/* --- longjmp out of each walk ------------------------------------------ */

static jmp_buf outside;
static walk_s main_walk;

/* A sort's comparisons, for the jump at its last one: the rows are sorted
   first, so the sort that is left sees the same input as the one counted
   (and makes the same comparisons: the sort is deterministic). */
static long sort_comparisons(int kind) {
  if (kind == K_SM_SORT) {
    CHECK_EQ_INT(slotmap_sort(&W.sm, plain_less, NULL), SLATE_OK);
  } else {
    CHECK_EQ_INT(slotmap_sparse_sort(&W.sp, plain_less, NULL), SLATE_OK);
  }
  walk_s probe;
  walk_reset(&probe, kind);
  CHECK_EQ_INT(run_walk(&probe), SLATE_OK);
  CHECK(probe.calls >= count_now(kind));
  return probe.calls;
}

static void jump_once(int kind, int where, int write, int round) {
  walk_s* w = &main_walk;
  walk_reset(w, kind);
  w->choose = 1;
  w->count = is_sort(kind) ? sort_comparisons(kind) : count_now(kind);
  w->target = position(where, w->count);
  w->write = write;
  w->to = &outside;
  if (setjmp(outside) == 0) {
    run_walk(w);
    CHECK_MSG(0, kind_names[kind]); /* the walk returned instead of jumping */
  }
  CHECK_EQ_INT(w->calls, w->target);
  CHECK_EQ_INT(w->dups, 0);
  apply_chosen(w);
  check_world();
  after_jump(round);
  restore();
  check_world();
}

static void leave_each_walk(void) {
  TEST_SECTION("longjmp out of every walk at its first, a middle and its last entry");
  world_init();
  for (int round = 0; round < ROUNDS; round++) {
    for (int kind = 0; kind < KINDS; kind++) {
      for (int where = 0; where < 3; where++) {
        /* Every write kind meets every position over four rounds. */
        jump_once(kind, where, (round + where) % WRITES, round);
      }
    }
  }
  CHECK_EQ_INT(bad, 0);
  world_free();
}

/* --- nested walks ------------------------------------------------------ */

static walk_s chain[MAX_DEPTH];
static int chain_depth;
static jmp_buf nest_outside;

/* Starts the nested walk from inside `w`'s callback. When `w` is the walk
   the innermost one jumps back to, the jump lands here: the walks above
   were left, `w`'s goes on, and its callback writes to `w`'s structure. */
static void nest_hook(walk_s* w, uint64_t i) {
  walk_s* inner = w->nest;
  jmp_buf here;
  if (w->lands) chain[chain_depth - 1].to = &here;
  if (setjmp(here) == 0) {
    inner->count = count_now(inner->kind);
    if (inner->nest == NULL) inner->target = position(inner->where, inner->count);
    inner->rc = run_walk(inner);
    inner->returned = 1;
    return;
  }
  w->landed++;
  write_walked(w->kind, w->land_write, i);
  CHECK_EQ_INT(slate_set_u64(&W.other, i, V(i)), SLATE_OK);
  CHECK_EQ_INT(slate_delete_u64(&W.other, i), SLATE_OK);
}

/* The kinds a walk that runs to its end inside another may have: none
   changes a structure (a sort is a change, and deleting walks choose
   nothing), so the outer walks go on. */
static const int quiet_kinds[] = {K_MAP_EACH, K_MAP_DELETE_IF, K_SM_EACH, K_SM_ERASE_IF,
                                  K_SP_EACH,  K_SP_ERASE_IF,   K_JOIN};

/* A chain of `depth` nested walks; the innermost jumps at its first, a
   middle or its last entry, to the outside (land < 0) or into the
   callback of walk `land`. */
static void run_chain(int depth, int land, int round) {
  chain_depth = depth;
  for (int l = 0; l < depth; l++) {
    int kind = (round * 7 + l * 5) % KINDS;
    if (land >= 0 && l >= 1 && l <= land) {
      kind = quiet_kinds[(round + l * 3) % (int)(sizeof quiet_kinds / sizeof quiet_kinds[0])];
    }
    /* Every other round, no sort among the walks left either (a sort, even
       one that was left, stops the walks of its structure in progress). */
    if (land >= 0 && l > land && round % 2 && is_sort(kind)) kind++;
    walk_reset(&chain[l], kind);
    chain[l].choose = l == 0;
    chain[l].nest = l + 1 < depth ? &chain[l + 1] : NULL;
    chain[l].nest_at = 1 + (round + l) % 3;
  }
  walk_s* innermost = &chain[depth - 1];
  innermost->where = (round / 2) % 3;
  innermost->to = &nest_outside;
  if (land >= 0) {
    walk_s* w = &chain[land];
    w->lands = 1;
    /* Removing its given key leaves an outer walk of the same structure
       stopped, and a sort stops at any removal: replaced values only
       there. */
    int remove_ok = !is_sort(w->kind) && round % 2 == 0;
    for (int l = 0; l < land; l++) {
      if (walks(chain[l].kind, written_by(w->kind, W_REMOVE))) remove_ok = 0;
    }
    w->land_write = remove_ok ? W_REMOVE : W_REPLACE;
  }

  walk_s* outer = &chain[0];
  outer->count = count_now(outer->kind);
  if (setjmp(nest_outside) == 0) {
    outer->rc = run_walk(outer);
    outer->returned = 1;
  }
  if (land < 0) {
    CHECK_EQ_INT(outer->returned, 0);
    CHECK_EQ_INT(innermost->calls, innermost->target);
    apply_chosen(outer);
  } else {
    /* The walks from the outermost to the one landed in returned; those
       above it were left. Each ran to its end, visiting every entry present
       at its start once, unless a walk inside it sorted its structure (a
       sort is a change, also one that was left): then it stopped with
       SLATE_ERROR_INVALID after the call that started the walks inside. */
    CHECK_EQ_INT(chain[land].landed, 1);
    unsigned long wrong = 0;
    for (int l = 0; l <= land; l++) {
      walk_s* w = &chain[l];
      int stopped = 0;
      for (int m = l + 1; m < depth; m++) {
        if (chain[m].kind == K_SM_SORT && walks(w->kind, 1)) stopped = 1;
        if (chain[m].kind == K_SP_SORT && walks(w->kind, 2)) stopped = 1;
      }
      w->stopped = stopped;
      wrong += !w->returned || w->dups != 0;
      wrong += w->rc != (stopped ? SLATE_ERROR_INVALID : SLATE_OK);
      if (stopped) {
        wrong += w->calls != w->nest_at;
      } else if (!is_sort(w->kind)) {
        wrong += w->calls != w->count;
      }
    }
    for (int l = land + 1; l < depth; l++) wrong += chain[l].returned;
    CHECK_MSG(wrong == 0, "a walk inside which a jump landed did not run to its end");
    if (wrong) {
      fprintf(stderr, "   round %d depth %d land %d:", round, depth, land);
      for (int l = 0; l < depth; l++) {
        fprintf(stderr, " %s(rc %d calls %ld/%ld%s)", kind_names[chain[l].kind], chain[l].rc,
                chain[l].calls, chain[l].count, chain[l].stopped ? " stopped" : "");
      }
      fprintf(stderr, "\n");
    }
    /* An answer that came with a change is not applied. */
    if (outer->stopped) outer->chosen[outer->nest_i] = 0;
    apply_chosen(outer);
    if (is_sort(outer->kind) && !outer->stopped) check_sorted(outer->kind);
  }
  CHECK_EQ_INT(bad, 0);
  check_world();
  after_jump(round);
  restore();
  check_world();
}

static void leave_nested_walks(void) {
  TEST_SECTION("longjmp out of nested walks, to the outside and into an outer walk");
  world_init();
  for (int round = 0; round < NEST_ROUNDS; round++) {
    /* Depths 2..MAX_DEPTH: nesting has no limit. */
    int depth = 2 + (round * 13) % (MAX_DEPTH - 1);
    run_chain(depth, -1, round);
    run_chain(depth, (round * 11) % (depth - 1), round);
    /* Into the walk right outside the innermost, and into the outermost. */
    int shallow = 2 + round % 3;
    run_chain(shallow, round % 2 ? 0 : shallow - 2, round);
  }
  world_free();
}

/* --- a walk's own write, then a jump ----------------------------------- */

/* A walk whose callback writes to the walked structure (removes its given
   entry, or inserts a new key) and jumps; the write stands, and the same
   walk, run again, visits what the structure now holds. */
static void jump_after_write(int kind, int write, int where) {
  walk_s* w = &main_walk;
  walk_reset(w, kind);
  w->count = is_sort(kind) ? sort_comparisons(kind) : count_now(kind);
  w->target = position(where, w->count);
  w->write = write;
  w->to = &outside;
  if (setjmp(outside) == 0) {
    run_walk(w);
    CHECK_MSG(0, kind_names[kind]); /* the walk returned instead of jumping */
  }
  CHECK_EQ_INT(w->calls, w->target);
  check_world();
  /* The same walk, run to its end, sees the change. */
  walk_s again;
  walk_reset(&again, kind);
  CHECK_EQ_INT(run_walk(&again), SLATE_OK);
  if (!is_sort(kind)) CHECK_EQ_INT(again.calls, count_now(kind));
  /* (A join walks its smallest set, here the tags, which lack X1.) */
  if (write == W_INSERT && !is_sort(kind) && kind != K_JOIN) CHECK_EQ_INT(again.seen[X1], 1);
  if (is_sort(kind)) check_sorted(kind);
  use_deeper(where * 3);
  restore();
  check_world();
}

static void leave_after_write(void) {
  TEST_SECTION("longjmp out of a walk right after its callback changed the walked structure");
  world_init();
  for (int kind = 0; kind < KINDS; kind++) {
    for (int write = W_REMOVE; write <= W_INSERT; write++) {
      for (int where = 0; where < 3; where++) jump_after_write(kind, write, where);
    }
  }
  CHECK_EQ_INT(bad, 0);
  world_free();
}

/* --- leaving a save by longjmp (SPEC 3c, 6c) --------------------------- */

/* A save is a walk: its `write` (and a codec's `encode`) may leave it with
   longjmp. The saved structure is then as it was (with what the callback
   wrote before the jump), passes its checker, saves the same bytes again
   and takes every later call. Saves of the slotmap, the sets and a map
   without a codec allocate nothing. A map save with a codec encodes into
   the writer's stage; only for a record past its 4 KiB does it allocate
   one scratch buffer through the map's allocator, held by the save's frame
   only: a jump while it is allocated loses it. SPEC 3c says a jump leaks
   nothing; the loss is measured here (the blocks the map's allocator handed
   out during the save and never got back), printed, and the lost blocks
   are freed by the test so that the rest of the run stays leak-checked.
   Built with -DSAVE_JUMP_MUST_NOT_LEAK, a lost block is a failure. */

/* The map's own allocator while saves are left: every live block on a
   list, with the serial number of its allocation. */
typedef struct tracked_s {
  struct tracked_s *prev, *next;
  size_t size;
  unsigned long serial;
} tracked_s;

static tracked_s track_list_ = {&track_list_, &track_list_, 0, 0};
static unsigned long track_serial_;
static unsigned long long track_live_;
/* While set, blocks are the map's own (the callback's write before its
   jump may grow the map): serial 0, never reclaimed. */
static int track_map_owns_;

static void* track_allocate(void* context, size_t size) {
  (void)context;
  tracked_s* t = (tracked_s*)malloc(sizeof(tracked_s) + size);
  if (t == NULL) return NULL;
  t->size = size;
  t->serial = track_map_owns_ ? 0 : ++track_serial_;
  t->next = track_list_.next;
  t->prev = &track_list_;
  track_list_.next->prev = t;
  track_list_.next = t;
  track_live_ += size;
  return t + 1;
}

static void track_unlink_free(tracked_s* t) {
  t->prev->next = t->next;
  t->next->prev = t->prev;
  track_live_ -= t->size;
  free(t);
}

static void track_release(void* context, void* pointer, size_t size) {
  (void)context;
  tracked_s* t = (tracked_s*)pointer - 1;
  if (t->size != size) bad++;
  track_unlink_free(t);
}

/* The blocks allocated after serial `since` and still out (of a save that
   was left: nobody holds them); frees them. Their bytes in `*bytes`. */
static unsigned long track_reclaim(unsigned long since, unsigned long long* bytes) {
  unsigned long n = 0;
  *bytes = 0;
  tracked_s* t = track_list_.next;
  while (t != &track_list_) {
    tracked_s* next = t->next;
    if (t->serial > since && t->serial != 0) {
      n++;
      *bytes += t->size;
      track_unlink_free(t);
    }
    t = next;
  }
  return n;
}

/* The saves: the map with integer values, with a codec; the slotmap; the
   set; the tags. */
enum { S_MAP, S_MAP_CODEC, S_SM, S_SP, S_TAG, SAVE_KINDS };
static const char* const save_names[SAVE_KINDS] = {"slate_save", "slate_save with a codec",
                                                   "slotmap_save", "slotmap_sparse_save",
                                                   "slotmap_sparse_save (membership)"};

/* The structure (as written_by numbers it) a save saves. */
static int saved_structure(int which) {
  return which <= S_MAP_CODEC ? 0 : which == S_SM ? 1 : which == S_SP ? 2 : 3;
}

/* One save in progress: the callback to leave it from, at which call, and
   what that callback writes to the saved structure first. */
typedef struct save_jump_s {
  int which;
  int from_encode;
  long writes, encodes; /* the calls so far */
  long target;          /* jump at this call of `write` or `encode`; 0: never */
  int write;            /* W_NONE, W_INSERT or W_REMOVE */
  long jumped_at;
  long long_values; /* values past 4 KiB asked for their bytes so far */
} save_jump_s;

static save_jump_s SJ;
static jmp_buf save_outside;

/* The saved structure's own write before the jump: X1 inserted, or entry
   5 removed (both undone by restore()). */
static void save_jump_write(void) {
  int s = saved_structure(SJ.which);
  track_map_owns_ = 1;
  if (SJ.write == W_INSERT) {
    if (s == 0) map_put(X1);
    if (s == 1) sm_put(X1);
    if (s == 2) sp_put(X1);
    if (s == 3) tag_put(X1);
  } else if (SJ.write == W_REMOVE) {
    if (s == 0) map_remove(5);
    if (s == 1) sm_remove(5);
    if (s == 2) sp_remove(5);
    if (s == 3) tag_remove(5);
  }
  track_map_owns_ = 0;
}

static int jump_write(void* context, const void* bytes, size_t length) {
  (void)context;
  (void)bytes;
  if (length == 0) bad++;
  if (!SJ.from_encode && ++SJ.writes == SJ.target) {
    SJ.jumped_at = SJ.writes;
    save_jump_write();
    longjmp(save_outside, 1);
  }
  if (SJ.from_encode) SJ.writes++;
  return 0;
}

/* Value V(i) as 8 + 3i bytes, and 5,000 more for every 16th i: a record
   past the writer's 4 KiB stage, which the scratch buffer takes. */
static int jump_encode(void* context, void* value, void* buffer, uint32_t capacity, uint32_t* length) {
  uint64_t i = (uintptr_t)value;
  (void)context;
  *length = (uint32_t)(8 + 3 * i + (i % 16 == 5 ? 5000 : 0));
  if (*length <= capacity) memset(buffer, (int)i, *length);
  if (i % 16 == 5 && buffer != NULL) SJ.long_values++;
  if (SJ.from_encode && ++SJ.encodes == SJ.target) {
    SJ.jumped_at = SJ.encodes;
    save_jump_write();
    longjmp(save_outside, 1);
  }
  if (!SJ.from_encode) SJ.encodes++;
  return 0;
}

static const slate_value_codec_s jump_codec = {jump_encode, NULL, NULL, NULL};

static int run_save(int which, slate_write_f write, void* context) {
  switch (which) {
    case S_MAP: return slate_save(&W.map, NULL, write, context);
    case S_MAP_CODEC: return slate_save(&W.map, &jump_codec, write, context);
    case S_SM: return slotmap_save(&W.sm, write, context);
    case S_SP: return slotmap_sparse_save(&W.sp, write, context);
    default: return slotmap_sparse_save(&W.tag, write, context);
  }
}

/* The bytes a save of `which` gives now (malloc'd), and the calls it made. */
typedef struct save_ref_s {
  slate_buffer_s buf;
  long writes, encodes;
} save_ref_s;

static int ref_write(void* context, const void* bytes, size_t length) {
  save_ref_s* r = (save_ref_s*)context;
  r->writes++;
  return slate_buffer_write(&r->buf, bytes, length);
}

static void save_reference(int which, save_ref_s* r) {
  memset(r, 0, sizeof *r);
  r->buf.capacity = 1 << 20;
  r->buf.bytes = malloc(r->buf.capacity);
  memset(&SJ, 0, sizeof SJ);
  SJ.from_encode = 1; /* (never reached: counts the encodes) */
  CHECK_EQ_INT(run_save(which, ref_write, r), SLATE_OK);
  r->encodes = SJ.encodes;
}

static int same_save(int which, const save_ref_s* want) {
  save_ref_s now;
  save_reference(which, &now);
  int same = now.buf.length == want->buf.length &&
             memcmp(now.buf.bytes, want->buf.bytes, now.buf.length) == 0;
  free(now.buf.bytes);
  return same;
}

static void check_checkers(void) {
  char message[128];
  CHECK_MAP_OK(&W.map);
  CHECK_EQ_INT(slotmap_check(&W.sm, message, sizeof message), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_check(&W.sp, message, sizeof message), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_check(&W.tag, message, sizeof message), SLATE_OK);
}

static unsigned long save_jumps_, lost_jumps_, lost_blocks_;
static unsigned long long lost_bytes_;

/* One save of `which`, left from `write` (from_encode 0) or `encode` at
   its call `target`, after the callback's own `write`. */
static void leave_save_once(int which, int from_encode, long target, int write, int round) {
  save_ref_s ref;
  save_reference(which, &ref);
  unsigned long serial = track_serial_;
  unsigned long long live = track_live_;
  memset(&SJ, 0, sizeof SJ);
  SJ.which = which;
  SJ.from_encode = from_encode;
  SJ.target = target;
  SJ.write = write;
  if (setjmp(save_outside) == 0) {
    run_save(which, jump_write, NULL);
    CHECK_MSG(0, save_names[which]); /* the save returned instead of jumping */
  }
  save_jumps_++;
  CHECK_EQ_INT(SJ.jumped_at, target);
  /* What the left save allocated and never gave back. */
  unsigned long long bytes = 0;
  unsigned long lost = track_reclaim(serial, &bytes);
  if (lost != 0) {
    lost_jumps_++;
    lost_blocks_ += lost;
    lost_bytes_ += bytes;
  }
  if (which == S_MAP_CODEC) {
    CHECK(lost <= 1); /* at most its one scratch buffer */
    /* before the first record past 4 KiB (V(5)'s), nothing */
    if (SJ.long_values == 0) CHECK_EQ_U64(lost, 0);
  } else {
    CHECK_EQ_U64(lost, 0); /* these saves allocate nothing */
  }
#ifdef SAVE_JUMP_MUST_NOT_LEAK
  CHECK_MSG(lost == 0, "a save left by longjmp lost memory");
#endif
  if (write == W_NONE) CHECK_EQ_U64(track_live_, live);
  check_world();
  check_checkers();
  /* Unchanged by the save: the same bytes again (when the callback did
     not write it). */
  if (write == W_NONE) CHECK_MSG(same_save(which, &ref), save_names[which]);
  free(ref.buf.bytes);
  after_jump(round);
  restore();
  check_world();
  check_checkers();
}

static void leave_saves(void) {
  TEST_SECTION("longjmp out of a save's write and a codec's encode");
  static const slate_allocator_s tracked = {track_allocate, track_release, NULL};
  world_init();
  /* The map on the tracked allocator, with the same entries. */
  for (uint64_t i = 1; i <= CAP; i++)
    if (W.in_map[i]) map_remove(i);
  slate_free(&W.map);
  CHECK_EQ_INT(slate_set_allocator(&W.map, &tracked), SLATE_OK);
  restore();
  check_world();
  for (int round = 0; round < 8; round++) {
    for (int which = 0; which < SAVE_KINDS; which++) {
      save_ref_s ref;
      save_reference(which, &ref);
      free(ref.buf.bytes);
      CHECK(ref.writes >= 2);
      int write = round % 3 == 0 ? W_NONE : round % 3 == 1 ? W_INSERT : W_REMOVE;
      /* out of write: its first, a middle and its last call */
      leave_save_once(which, 0, 1, write, round);
      leave_save_once(which, 0, 1 + ref.writes / 2, write, round);
      leave_save_once(which, 0, ref.writes, write, round);
      if (which != S_MAP_CODEC) continue;
      /* out of encode: the first length asked, the first value's bytes
         (capacity 0: no scratch buffer yet), the next, a middle one, the
         last */
      long lengths = count_in(W.in_map);
      CHECK(ref.encodes > lengths + 1);
      leave_save_once(which, 1, 1, write, round);
      leave_save_once(which, 1, lengths + 1, write, round);
      leave_save_once(which, 1, lengths + 2 + round, write, round);
      leave_save_once(which, 1, lengths + (ref.encodes - lengths) / 2, write, round);
      leave_save_once(which, 1, ref.encodes, write, round);
    }
  }
  CHECK_EQ_INT(bad, 0);
  fprintf(stderr,
          "   %lu saves left; %lu of them (codec saves left while their scratch buffer was\n"
          "   allocated) lost %lu blocks, %llu bytes, which SPEC 3c says a jump never loses\n",
          save_jumps_, lost_jumps_, lost_blocks_, lost_bytes_);
  for (uint64_t i = 1; i <= CAP; i++)
    if (W.in_map[i]) map_remove(i);
  world_free();
  CHECK_EQ_U64(track_live_, 0);
}

int main(void) {
  leave_each_walk();
  leave_nested_walks();
  leave_after_write();
  leave_saves();
  return TEST_SUMMARY();
}
