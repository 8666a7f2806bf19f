/* A walk left by longjmp, for the fuzz targets (Rust cannot call setjmp).
 *
 * fuzz_walk_and_jump runs one walk of the library with a trampoline as its
 * callback. The trampoline counts the callback calls (visits; for a sort,
 * comparator calls): the one numbered `at` (from 0) leaves the walk with
 * longjmp back into fuzz_walk_and_jump, which returns 1; every other one
 * calls the target's own callback with the target's data and returns its
 * answer. A walk that ends first returns its code in `rc`, and
 * fuzz_walk_and_jump returns 0. Between the setjmp and the longjmp lie only
 * the library's walk frames and the trampolines: the target's callbacks
 * have returned before the jump.
 *
 * With `nested`, visit `at` does not jump itself: it starts the same walk
 * again on the same structures, whose trampoline calls the callback with
 * `nested_data` and jumps at its visit `nested_at` to the outer walk's
 * setjmp, leaving both walks at once (or, when the inner walk ends first,
 * visit `at` jumps after it). `nested_visits` counts the inner visits. */
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "slate.h"

enum {
  FUZZ_MAP_EACH,
  FUZZ_MAP_DELETE_IF,
  FUZZ_SLOTMAP_EACH,
  FUZZ_SLOTMAP_ERASE_IF,
  FUZZ_SLOTMAP_SORT,
  FUZZ_SPARSE_EACH,
  FUZZ_SPARSE_ERASE_IF,
  FUZZ_SPARSE_SORT,
  FUZZ_JOIN
};

/* What the Rust side fills in (ffi.rs declares the same layout). */
typedef struct fuzz_walk_s {
  int kind;
  void *structure; /* slate_s*, slotmap_s* or slotmap_sparse_s* */
  const slotmap_s *owner;
  slotmap_sparse_s *const *sets;
  uint32_t count;
  slate_each_f map;
  slotmap_each_f rows;
  int (*less)(const void *a, const void *b, void *data);
  slotmap_join_f join;
  void *data;
  uint32_t at;     /* the visit that jumps */
  uint32_t visits; /* out: visits made, the jumping one included */
  int rc;          /* out: the walk's code when it returned */
  int nested;
  uint32_t nested_at;
  void *nested_data;
  uint32_t nested_visits; /* out */
} fuzz_walk_s;

/* One walk's trampoline state: where to jump, at which visit, and the
 * data its callback gets. */
typedef struct frame_s {
  fuzz_walk_s *walk;
  jmp_buf *env;
  uint32_t at;
  uint32_t *visits;
  void *data;
  int outer;
} frame_s;

static int run(frame_s *f);

static void *visit(void *data) {
  frame_s *f = (frame_s *)data;
  if ((*f->visits)++ == f->at) {
    if (f->outer && f->walk->nested) {
      frame_s inner;
      inner.walk = f->walk;
      inner.env = f->env;
      inner.at = f->walk->nested_at;
      inner.visits = &f->walk->nested_visits;
      inner.data = f->walk->nested_data;
      inner.outer = 0;
      (void)run(&inner);
    }
    longjmp(*f->env, 1);
  }
  return f->data;
}

static int on_map(const char *key, uint32_t key_length, void *value, void *data) {
  void *user = visit(data);
  return ((frame_s *)data)->walk->map(key, key_length, value, user);
}

static int on_row(slotmap_key key, void *row, void *data) {
  void *user = visit(data);
  return ((frame_s *)data)->walk->rows(key, row, user);
}

static int on_less(const void *a, const void *b, void *data) {
  void *user = visit(data);
  return ((frame_s *)data)->walk->less(a, b, user);
}

static int on_join(slotmap_key key, const uint32_t *rows, void *const *elements, void *data) {
  void *user = visit(data);
  return ((frame_s *)data)->walk->join(key, rows, elements, user);
}

int fuzz_walk_and_jump(fuzz_walk_s *w) {
  jmp_buf env;
  frame_s f;
  f.walk = w;
  f.env = &env;
  f.at = w->at;
  f.visits = &w->visits;
  f.data = w->data;
  f.outer = 1;
  w->visits = 0;
  w->nested_visits = 0;
  w->rc = 0;
  if (setjmp(env) != 0) {
    return 1;
  }
  w->rc = run(&f);
  return 0;
}

/* The walk of `f->walk`'s kind, with `f` as the trampolines' data. */
static int run(frame_s *f) {
  fuzz_walk_s *w = f->walk;
  switch (w->kind) {
  case FUZZ_MAP_EACH:
    return slate_each((const slate_s *)w->structure, on_map, f);
  case FUZZ_MAP_DELETE_IF:
    return slate_delete_if((slate_s *)w->structure, on_map, f);
  case FUZZ_SLOTMAP_EACH:
    return slotmap_each((const slotmap_s *)w->structure, on_row, f);
  case FUZZ_SLOTMAP_ERASE_IF:
    return slotmap_erase_if((slotmap_s *)w->structure, on_row, f);
  case FUZZ_SLOTMAP_SORT:
    return slotmap_sort((slotmap_s *)w->structure, on_less, f);
  case FUZZ_SPARSE_EACH:
    return slotmap_sparse_each((const slotmap_sparse_s *)w->structure, on_row, f);
  case FUZZ_SPARSE_ERASE_IF:
    return slotmap_sparse_erase_if((slotmap_sparse_s *)w->structure, on_row, f);
  case FUZZ_SPARSE_SORT:
    return slotmap_sparse_sort((slotmap_sparse_s *)w->structure, on_less, f);
  default:
    return slotmap_join(w->owner, w->sets, w->count, on_join, f);
  }
}
