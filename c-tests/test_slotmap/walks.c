/* test_slotmap: walks -- slotmap_each, callbacks that must not modify their
 * slotmap, and a clone made from inside erase_if and sort. */
#include "slotmap.h"
#include "../quiet.h"

/* ------------------------------------------------------------------------ */
/* slotmap_each                                                              */
/* ------------------------------------------------------------------------ */

typedef struct walk_s {
  const slotmap_s* sm;
  uint32_t calls;
  uint32_t stop_at; /* return `stop_value` at this call (1-based); 0 never */
  int stop_value;
  unsigned bad;
  void* data_seen;
} walk_s;

static int walk_cb(slotmap_key key, void* row, void* data) {
  walk_s* w = (walk_s*)data;
  uint32_t r = w->calls++;
  void* e = NULL;
  w->data_seen = data;
  /* dense order; `row` is the row's column-0 element */
  if (slotmap_key_at(w->sm, r) != key) w->bad++;
  if (row != (void*)((uint64_t*)slotmap_column(w->sm, 0) + r)) w->bad++;
  if (slotmap_get(w->sm, key, &e) != SLATE_OK || e != row) w->bad++;
  if (w->stop_at != 0 && w->calls == w->stop_at) return w->stop_value;
  return 0;
}

void test_each(void) {
  TEST_SECTION("slotmap_each: dense order, early stop");
  slotmap_s sm;
  slotmap_key keys[50];
  unsigned bad = 0;
  walk_s w;
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  for (uint64_t i = 0; i < 50; i++) keys[i] = put_u64(&sm, i, &bad);
  for (int i = 0; i < 50; i += 7) CHECK_EQ_INT(slotmap_erase(&sm, keys[i]), SLATE_OK);
  CHECK_EQ_INT(bad, 0);

  memset(&w, 0, sizeof w);
  w.sm = &sm;
  CHECK_EQ_INT(slotmap_each(&sm, walk_cb, &w), SLATE_OK);
  CHECK_EQ_U64(w.calls, slotmap_length(&sm));
  CHECK_EQ_INT(w.bad, 0);
  CHECK_EQ_PTR(w.data_seen, &w); /* data passed through */

  /* a non-zero return stops the walk and becomes the result */
  memset(&w, 0, sizeof w);
  w.sm = &sm;
  w.stop_at = 3;
  w.stop_value = 42;
  CHECK_EQ_INT(slotmap_each(&sm, walk_cb, &w), 42);
  CHECK_EQ_U64(w.calls, 3);
  memset(&w, 0, sizeof w);
  w.sm = &sm;
  w.stop_at = 1;
  w.stop_value = -7;
  CHECK_EQ_INT(slotmap_each(&sm, walk_cb, &w), -7);
  CHECK_EQ_U64(w.calls, 1);
  memset(&w, 0, sizeof w);
  w.sm = &sm;
  w.stop_at = slotmap_length(&sm); /* on the last row */
  w.stop_value = 9;
  CHECK_EQ_INT(slotmap_each(&sm, walk_cb, &w), 9);
  CHECK_EQ_U64(w.calls, slotmap_length(&sm));
  CHECK_EQ_INT(w.bad, 0);
  /* the walk's lock is released after an early stop */
  slotmap_key k = put_u64(&sm, 777, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_erase(&sm, k), SLATE_OK);

  /* an empty slotmap: no calls */
  slotmap_s empty;
  CHECK_EQ_INT(slotmap(&empty, 8), SLATE_OK);
  memset(&w, 0, sizeof w);
  w.sm = &empty;
  w.stop_at = 1;
  w.stop_value = 5;
  CHECK_EQ_INT(slotmap_each(&empty, walk_cb, &w), SLATE_OK);
  CHECK_EQ_U64(w.calls, 0);
  slotmap_free(&empty);
  slotmap_free(&sm);
}

/* ------------------------------------------------------------------------ */
/* callbacks must not modify their slotmap ([D-walk])                        */
/* ------------------------------------------------------------------------ */

typedef struct reent_s {
  slotmap_s* self;
  slotmap_s* other; /* a second slotmap: writable from the callback */
  slotmap_s* copy;  /* a clone made from inside the callback */
  slotmap_key some_key;
  uint32_t length;
  uint32_t calls;
  unsigned attempts_ok; /* modifying calls that were refused as they should */
  unsigned bad;
} reent_s;

static int nested_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (*(uint64_t*)data)++;
  return 0;
}

/* Every modifying call on r->self: each must be INVALID and change nothing. */
static void try_modify(reent_s* r) {
  uint64_t v = 0xBAD;
  slotmap_key k = SENTINEL_KEY;
  unsigned refused = 0;
  refused += slotmap_insert(r->self, &v, &k) == SLATE_ERROR_INVALID && k == SENTINEL_KEY;
  refused += slotmap_insert(r->self, NULL, &k) == SLATE_ERROR_INVALID;
  refused += slotmap_erase(r->self, r->some_key) == SLATE_ERROR_INVALID;
  refused += slotmap_erase_if(r->self, always_cb, NULL) == SLATE_ERROR_INVALID;
  refused += slotmap_sort(r->self, always_less, NULL) == SLATE_ERROR_INVALID;
  refused += slotmap_clear(r->self) == SLATE_ERROR_INVALID;
  refused += slotmap_reserve(r->self, 100000) == SLATE_ERROR_INVALID;
  refused += slotmap_limit(r->self, r->length + 1) == SLATE_ERROR_INVALID;
  slotmap_free(r->self); /* does nothing */
  refused += slotmap_length(r->self) == r->length;
  refused += slotmap_contains(r->self, r->some_key) == 1;
  if (refused == 10)
    r->attempts_ok++;
  else
    r->bad++;
}

/* Reads from inside the walk are allowed: get, row, contains, key_at,
   length, column, a nested each, a clone from it; another slotmap may be
   written. */
static void try_read(reent_s* r) {
  uint32_t row = SENTINEL_ROW;
  uint64_t nested = 0;
  slotmap_key k = 0;
  if (slotmap_get(r->self, r->some_key, NULL) != SLATE_OK) r->bad++;
  if (slotmap_row(r->self, r->some_key, &row) != SLATE_OK || row >= r->length) r->bad++;
  if (slotmap_key_at(r->self, row) != r->some_key) r->bad++;
  if (slotmap_length(r->self) != r->length) r->bad++;
  if (slotmap_column(r->self, 0) == NULL) r->bad++;
  if (slotmap_each(r->self, nested_cb, &nested) != SLATE_OK || nested != r->length) r->bad++;
  if (slotmap_insert(r->other, NULL, &k) != SLATE_OK) r->bad++;
  if (r->copy != NULL && r->calls == 1) {
    if (slotmap_clone(r->copy, r->self) != SLATE_OK || slotmap_length(r->copy) != r->length)
      r->bad++;
  }
  /* after the nested walk ended, the outer walk still holds the lock */
  if (slotmap_clear(r->self) != SLATE_ERROR_INVALID) r->bad++;
}

static int reent_each_cb(slotmap_key key, void* row, void* data) {
  reent_s* r = (reent_s*)data;
  (void)key;
  (void)row;
  r->calls++;
  if (r->calls <= 2) {
    try_modify(r);
    try_read(r);
  }
  return 0;
}

static int reent_pred_cb(slotmap_key key, void* row, void* data) {
  reent_s* r = (reent_s*)data;
  (void)key;
  (void)row;
  r->calls++;
  if (r->calls <= 2) try_modify(r);
  return 0; /* keep everything */
}

static int reent_less(const void* a, const void* b, void* data) {
  reent_s* r = (reent_s*)data;
  r->calls++;
  if (r->calls <= 2) try_modify(r);
  return less_rec_a(a, b, NULL);
}

/* Tries to re-initialize the walked slotmap from its own callback. */
typedef struct reinit_s {
  slotmap_s* self;
  int rc_one, rc_columns, rc_clone;
  unsigned calls;
} reinit_s;

static void try_reinit(reinit_s* r) {
  static const uint32_t sizes[2] = {4, 8};
  slotmap_s other;
  if (r->calls++ != 0) return;
  r->rc_one = slotmap(r->self, 4);
  r->rc_columns = slotmap_columns(r->self, sizes, 2);
  CHECK_EQ_INT(slotmap(&other, 4), SLATE_OK);
  r->rc_clone = slotmap_clone(r->self, &other);
  slotmap_free(&other);
}

static int reinit_each_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  try_reinit((reinit_s*)data);
  return 0;
}

static int reinit_less(const void* a, const void* b, void* data) {
  try_reinit((reinit_s*)data);
  return less_rec_a(a, b, NULL);
}

void test_reinit_inside_walk(void) {
  TEST_SECTION("slotmap(), slotmap_columns() and slotmap_clone() inside a walk are refused");
  slotmap_s sm;
  reinit_s r;
  capture_s cap;
  unsigned bad = 0;
  uint32_t n;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < 300; i++) put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  slotmap_key* order = keys_by_row(&sm, &n);
  for (int walk = 0; walk < 3; walk++) {
    memset(&r, 0, sizeof r);
    r.self = &sm;
    capture_stderr(&cap);
    if (walk == 0) CHECK_EQ_INT(slotmap_each(&sm, reinit_each_cb, &r), SLATE_OK);
    if (walk == 1) CHECK_EQ_INT(slotmap_erase_if(&sm, reinit_each_cb, &r), SLATE_OK);
    if (walk == 2) CHECK_EQ_INT(slotmap_sort(&sm, reinit_less, &r), SLATE_OK);
    CHECK_NOTHING_PRINTED(release_stderr(&cap));
    CHECK_EQ_INT(r.rc_one, SLATE_ERROR_INVALID);
    CHECK_EQ_INT(r.rc_columns, SLATE_ERROR_INVALID);
    CHECK_EQ_INT(r.rc_clone, SLATE_ERROR_INVALID);
    CHECK_EQ_U64(slotmap_length(&sm), 300);
    CHECK_EQ_INT(dense_problems(&sm), 0);
    if (walk < 2) CHECK_EQ_INT(same_rows(&sm, order, n), 0);
  }
  for (uint32_t i = 0; i < n; i++)
    if (!key3_is(&sm, order[i], KEY_SLOT(order[i]))) bad++;
  CHECK_EQ_INT(bad, 0);
  /* still a working slotmap */
  put3(&sm, 300, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_erase(&sm, order[0]), SLATE_OK);
  free(order);
  slotmap_free(&sm);
  CHECK_EQ_INT(slotmap(&sm, 4), SLATE_OK);
  slotmap_free(&sm);
}

void test_callbacks_cannot_modify(void) {
  TEST_SECTION("modifying a slotmap from its own each / erase_if / sort callback");
  slotmap_s sm, other, copy;
  unsigned bad = 0;
  reent_s r;
  uint32_t n;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap(&other, 4), SLATE_OK);
  for (uint64_t i = 0; i < 200; i++) put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  slotmap_key* order = keys_by_row(&sm, &n);

  /* each */
  memset(&r, 0, sizeof r);
  r.self = &sm;
  r.other = &other;
  r.copy = &copy;
  r.some_key = slotmap_key_at(&sm, 57);
  r.length = slotmap_length(&sm);
  CHECK_EQ_INT(slotmap_each(&sm, reent_each_cb, &r), SLATE_OK);
  CHECK_EQ_U64(r.calls, 200);
  CHECK_EQ_INT(r.attempts_ok, 2);
  CHECK_EQ_INT(r.bad, 0);
  CHECK_EQ_INT(same_rows(&sm, order, n), 0);
  CHECK_EQ_U64(slotmap_length(&other), 2);
  /* the copy made inside is independent and writable afterwards */
  CHECK_EQ_INT(same_rows(&copy, order, n), 0);
  CHECK_EQ_INT(slotmap_erase(&copy, order[0]), SLATE_OK);
  CHECK_EQ_INT(slotmap_get(&sm, order[0], NULL), SLATE_OK);
  slotmap_free(&copy);

  /* erase_if: the predicate keeps everything; its modifications are refused */
  memset(&r, 0, sizeof r);
  r.self = &sm;
  r.other = &other;
  r.some_key = slotmap_key_at(&sm, 57);
  r.length = slotmap_length(&sm);
  CHECK_EQ_INT(slotmap_erase_if(&sm, reent_pred_cb, &r), SLATE_OK);
  CHECK_EQ_U64(r.calls, 200);
  CHECK_EQ_INT(r.attempts_ok, 2);
  CHECK_EQ_INT(r.bad, 0);
  CHECK_EQ_INT(same_rows(&sm, order, n), 0);

  /* sort: the comparator's modifications are refused; the sort still sorts */
  memset(&r, 0, sizeof r);
  r.self = &sm;
  r.other = &other;
  r.some_key = slotmap_key_at(&sm, 57);
  r.length = slotmap_length(&sm);
  CHECK_EQ_INT(slotmap_sort(&sm, reent_less, &r), SLATE_OK);
  CHECK(r.calls >= 2);
  CHECK_EQ_INT(r.attempts_ok, 2);
  CHECK_EQ_INT(r.bad, 0);
  CHECK_EQ_U64(slotmap_length(&sm), 200);
  for (uint32_t i = 0; i < n; i++)
    if (!key3_is(&sm, order[i], KEY_SLOT(order[i]))) bad++;
  CHECK_EQ_INT(bad, 0);
  {
    const rec_s* c0 = (const rec_s*)slotmap_column(&sm, 0);
    for (uint32_t i = 1; i < n; i++)
      if (c0[i - 1].a > c0[i].a) bad++;
    CHECK_EQ_INT(bad, 0);
  }

  /* the lock is gone after each walk: every modification works again */
  slotmap_key k = put3(&sm, 999, &bad);
  CHECK_EQ_INT(bad, 0);
  CHECK(key3_is(&sm, k, 999));
  CHECK_EQ_INT(slotmap_erase(&sm, k), SLATE_OK);
  CHECK_EQ_INT(slotmap_reserve(&sm, 400), SLATE_OK);
  CHECK_EQ_INT(slotmap_limit(&sm, 400), SLATE_OK);
  CHECK_EQ_INT(slotmap_sort(&sm, greater_rec_a, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_erase_if(&sm, never_cb, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  free(order);
  slotmap_free(&sm);
  slotmap_free(&other);
}

/* ------------------------------------------------------------------------ */
/* reads from inside erase_if and sort: a clone made there                   */
/* ------------------------------------------------------------------------ */

typedef struct snap_cb_s {
  slotmap_s* self;
  slotmap_s* copy;
  uint32_t calls, at;
  int rc;
} snap_cb_s;

static int snap_pred_cb(slotmap_key key, void* row, void* data) {
  snap_cb_s* s = (snap_cb_s*)data;
  (void)key;
  if (++s->calls == s->at) s->rc = slotmap_clone(s->copy, s->self);
  return id_of_rec((const rec_s*)row) % 2 == 0;
}

static int snap_less(const void* a, const void* b, void* data) {
  snap_cb_s* s = (snap_cb_s*)data;
  if (++s->calls == s->at) s->rc = slotmap_clone(s->copy, s->self);
  return less_rec_a(a, b, NULL);
}

/* A slotmap is sound: dense, every key it lists valid with its own record
   ([D-key]: slot == id for the records used here), and erasing the keys it
   lists empties it. */
static unsigned soundness_problems(slotmap_s* sm) {
  unsigned bad = dense_problems(sm);
  uint32_t n = slotmap_length(sm);
  for (uint32_t r = 0; r < n; r++) {
    slotmap_key k = slotmap_key_at(sm, r);
    if (!key3_is(sm, k, KEY_SLOT(k))) bad++;
  }
  for (uint32_t guard = 0; slotmap_length(sm) > 0 && guard <= n; guard++)
    if (slotmap_erase(sm, slotmap_key_at(sm, 0)) != SLATE_OK) {
      bad++;
      break;
    }
  if (slotmap_length(sm) != 0) bad++;
  return bad;
}

/* [D-walk] refuses only the calls that would modify the slotmap; a clone
   from it is a read (as SPEC 3 lists "clone from it" among the reads allowed
   inside slate_each), and include/slate.h names only modifications as
   forbidden in an erase_if predicate or a sort comparator.  So a clone made
   there must be refused or sound; a silently broken copy is a bug. */
void test_clone_inside_callbacks(void) {
  TEST_SECTION("a clone made inside an erase_if predicate or a sort comparator");
  enum { N = 10 };
  slotmap_s sm, copy;
  snap_cb_s s;
  unsigned bad = 0;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  for (uint64_t i = 0; i < N; i++) put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);

  /* inside sort: the rows have not moved yet */
  memset(&s, 0, sizeof s);
  s.self = &sm;
  s.copy = &copy;
  s.at = 3;
  s.rc = 12345;
  CHECK_EQ_INT(slotmap_sort(&sm, snap_less, &s), SLATE_OK);
  CHECK(s.rc == SLATE_OK || s.rc == SLATE_ERROR_INVALID);
  if (s.rc == SLATE_OK) {
    CHECK_EQ_U64(slotmap_length(&copy), N);
    CHECK_EQ_INT(soundness_problems(&copy), 0);
    slotmap_free(&copy);
  }

  /* inside erase_if, after the predicate erased some rows already */
  memset(&s, 0, sizeof s);
  s.self = &sm;
  s.copy = &copy;
  s.at = 6;
  s.rc = 12345;
  CHECK_EQ_INT(slotmap_erase_if(&sm, snap_pred_cb, &s), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(&sm), N / 2);
  CHECK_EQ_INT(soundness_problems(&sm), 0);
  CHECK(s.rc == SLATE_OK || s.rc == SLATE_ERROR_INVALID);
  if (s.rc == SLATE_OK) {
    unsigned problems = soundness_problems(&copy);
    if (problems != 0)
      fprintf(stderr, "   the clone made inside slotmap_erase_if is broken (%u problems)\n",
              problems);
    CHECK_EQ_INT(problems, 0);
    slotmap_free(&copy);
  }
  slotmap_free(&sm);
}
