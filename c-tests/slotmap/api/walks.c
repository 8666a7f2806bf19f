/* slotmap/api: walks -- slotmap_each, what a callback's calls on its own
 * slotmap do ([D-walk]), and a clone made from inside erase_if and sort. */
#include "slotmap.h"
#include "../../support/quiet.h"

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
  /* writable after an early stop */
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
/* calls on the walked slotmap from its own callbacks ([D-walk])             */
/* ------------------------------------------------------------------------ */

static int nested_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (*(uint64_t*)data)++;
  return 0;
}

/* Reads from inside the walk, a value written through a row pointer (the
 * same value), a nested each, an erase of a stale key (no change), a
 * clone from it and a write to another slotmap: the walk goes on. */
typedef struct reent_s {
  slotmap_s* self;
  slotmap_s* other; /* a second slotmap: writable from the callback */
  slotmap_s* copy;  /* a clone made from inside the callback */
  slotmap_key some_key;
  slotmap_key stale;
  uint32_t length;
  uint32_t calls;
  unsigned bad;
} reent_s;

static void try_read(reent_s* r) {
  uint32_t row = SENTINEL_ROW;
  uint64_t nested = 0;
  slotmap_key k = 0;
  void* p = NULL;
  if (slotmap_get(r->self, r->some_key, &p) != SLATE_OK) r->bad++;
  if (p) memmove(p, p, sizeof(rec_s)); /* a value replaced by itself */
  if (slotmap_row(r->self, r->some_key, &row) != SLATE_OK || row >= r->length) r->bad++;
  if (slotmap_key_at(r->self, row) != r->some_key) r->bad++;
  if (slotmap_length(r->self) != r->length) r->bad++;
  if (slotmap_column(r->self, 0) == NULL) r->bad++;
  if (slotmap_each(r->self, nested_cb, &nested) != SLATE_OK || nested != r->length) r->bad++;
  if (slotmap_erase(r->self, r->stale) != SLATE_ERROR_NOT_FOUND) r->bad++;
  if (slotmap_set_allocator(r->self, NULL) != SLATE_ERROR_INVALID) r->bad++; /* holds memory */
  if (slotmap_insert(r->other, NULL, &k) != SLATE_OK) r->bad++;
  if (r->copy != NULL && r->calls == 1) {
    if (slotmap_clone(r->copy, r->self) != SLATE_OK || slotmap_length(r->copy) != r->length)
      r->bad++;
  }
}

static int reent_each_cb(slotmap_key key, void* row, void* data) {
  reent_s* r = (reent_s*)data;
  (void)key;
  (void)row;
  r->calls++;
  if (r->calls <= 2) try_read(r);
  return 0;
}

static int reent_pred_cb(slotmap_key key, void* row, void* data) {
  reent_s* r = (reent_s*)data;
  (void)key;
  (void)row;
  r->calls++;
  if (r->calls <= 2) try_read(r);
  return 0; /* keep everything */
}

static int reent_less(const void* a, const void* b, void* data) {
  reent_s* r = (reent_s*)data;
  int less = less_rec_a(a, b, NULL);
  r->calls++;
  if (r->calls <= 2) try_read(r);
  return less;
}

/* One modifying call on the walked slotmap, made at the first callback:
 * carried out, and the walk stops with SLATE_ERROR_INVALID (a sort applies
 * no order). */
enum { MOD_INSERT, MOD_INSERT_NULL, MOD_ERASE_OTHER, MOD_ERASE_IF, MOD_SORT, MOD_CLEAR,
       MOD_RESERVE, MOD_FREE, MODS };

typedef struct mod_s {
  slotmap_s* self;
  int kind;
  uint32_t calls;
  int rc;
  slotmap_key given, inserted;
} mod_s;

static void modify(mod_s* m, slotmap_key given) {
  uint64_t v[3] = {0, 0, 0};
  if (m->calls++ != 0) return;
  m->given = given;
  slotmap_key other = slotmap_key_at(m->self, 0) == given ? slotmap_key_at(m->self, 1)
                                                          : slotmap_key_at(m->self, 0);
  switch (m->kind) {
    case MOD_INSERT: m->rc = slotmap_insert(m->self, v, &m->inserted); break;
    case MOD_INSERT_NULL: m->rc = slotmap_insert(m->self, NULL, &m->inserted); break;
    case MOD_ERASE_OTHER: m->rc = slotmap_erase(m->self, other); break;
    case MOD_ERASE_IF: m->rc = slotmap_erase_if(m->self, always_cb, NULL); break;
    case MOD_SORT: m->rc = slotmap_sort(m->self, greater_rec_a, NULL); break;
    case MOD_CLEAR: m->rc = slotmap_clear(m->self); break;
    case MOD_RESERVE: m->rc = slotmap_reserve(m->self, 100000); break;
    default: slotmap_free(m->self); break;
  }
}

static int mod_each_cb(slotmap_key key, void* row, void* data) {
  (void)row;
  modify((mod_s*)data, key);
  return 0;
}

static int mod_less(const void* a, const void* b, void* data) {
  int less = less_rec_a(a, b, NULL);
  modify((mod_s*)data, 0);
  return less;
}

/* The given key's erase is the one change that lets each and erase_if go
 * on: every callback erases its own key, and the slotmap ends empty. */
static int erase_own_cb(slotmap_key key, void* row, void* data) {
  slotmap_s* sm = (slotmap_s*)data;
  (void)row;
  return slotmap_erase(sm, key) == SLATE_OK ? 0 : 1000;
}

void test_calls_inside_walks(void) {
  TEST_SECTION("calls on a slotmap from its own each / erase_if / sort callback");
  slotmap_s sm, other, copy;
  unsigned bad = 0;
  reent_s r;
  uint32_t n;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap(&other, 4), SLATE_OK);
  for (uint64_t i = 0; i < 200; i++) put3(&sm, i, &bad);
  slotmap_key stale = put3(&sm, 200, &bad);
  CHECK_EQ_INT(slotmap_erase(&sm, stale), SLATE_OK);
  CHECK_EQ_INT(bad, 0);
  slotmap_key* order = keys_by_row(&sm, &n);

  /* each */
  memset(&r, 0, sizeof r);
  r.self = &sm;
  r.other = &other;
  r.copy = &copy;
  r.stale = stale;
  r.some_key = slotmap_key_at(&sm, 57);
  r.length = slotmap_length(&sm);
  CHECK_EQ_INT(slotmap_each(&sm, reent_each_cb, &r), SLATE_OK);
  CHECK_EQ_U64(r.calls, 200);
  CHECK_EQ_INT(r.bad, 0);
  CHECK_EQ_INT(same_rows(&sm, order, n), 0);
  CHECK_EQ_U64(slotmap_length(&other), 2);
  /* the copy made inside is independent and writable afterwards */
  CHECK_EQ_INT(same_rows(&copy, order, n), 0);
  CHECK_EQ_INT(slotmap_erase(&copy, order[0]), SLATE_OK);
  CHECK_EQ_INT(slotmap_get(&sm, order[0], NULL), SLATE_OK);
  slotmap_free(&copy);

  /* erase_if: the predicate keeps everything */
  memset(&r, 0, sizeof r);
  r.self = &sm;
  r.other = &other;
  r.stale = stale;
  r.some_key = slotmap_key_at(&sm, 57);
  r.length = slotmap_length(&sm);
  CHECK_EQ_INT(slotmap_erase_if(&sm, reent_pred_cb, &r), SLATE_OK);
  CHECK_EQ_U64(r.calls, 200);
  CHECK_EQ_INT(r.bad, 0);
  CHECK_EQ_INT(same_rows(&sm, order, n), 0);

  /* sort: the comparator reads; the sort sorts */
  memset(&r, 0, sizeof r);
  r.self = &sm;
  r.other = &other;
  r.stale = stale;
  r.some_key = slotmap_key_at(&sm, 57);
  r.length = slotmap_length(&sm);
  CHECK_EQ_INT(slotmap_sort(&sm, reent_less, &r), SLATE_OK);
  CHECK(r.calls >= 2);
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
  free(order);

  /* every modifying call, from each walk: carried out, the walk stops */
  static const uint32_t length_after[MODS] = {201, 201, 199, 0, 200, 0, 200, 0};
  for (int walk = 0; walk < 3; walk++)
    for (int kind = 0; kind < MODS; kind++) {
      slotmap_s m;
      mod_s md;
      CHECK_EQ_INT(slotmap_columns(&m, SIZES3, 3), SLATE_OK);
      for (uint64_t i = 0; i < 200; i++) put3(&m, i, &bad);
      CHECK_EQ_INT(bad, 0);
      slotmap_key* before = keys_by_row(&m, &n);
      memset(&md, 0, sizeof md);
      md.self = &m;
      md.kind = kind;
      int rc = walk == 0   ? slotmap_each(&m, mod_each_cb, &md)
               : walk == 1 ? slotmap_erase_if(&m, mod_each_cb, &md)
                           : slotmap_sort(&m, mod_less, &md);
      if (!CHECK_EQ_INT(rc, SLATE_ERROR_INVALID)) fprintf(stderr, "  walk %d, kind %d\n", walk, kind);
      CHECK_EQ_U64(md.calls, 1);
      CHECK_EQ_INT(md.rc, SLATE_OK);
      CHECK_EQ_U64(slotmap_length(&m), length_after[kind]);
      CHECK_EQ_INT(dense_problems(&m), 0);
      if (kind == MOD_INSERT || kind == MOD_INSERT_NULL) {
        CHECK(slotmap_contains(&m, md.inserted));
        /* the rows that were there did not move: no order was applied */
        CHECK_EQ_U64(slotmap_key_at(&m, 200), md.inserted);
        for (uint32_t i = 0; i < n; i++)
          if (slotmap_key_at(&m, i) != before[i]) bad++;
        CHECK_EQ_INT(bad, 0);
      }
      if (kind == MOD_SORT) { /* the nested sort's order */
        const rec_s* c0 = (const rec_s*)slotmap_column(&m, 0);
        for (uint32_t i = 1; i < n; i++)
          if (c0[i - 1].a < c0[i].a) bad++;
        CHECK_EQ_INT(bad, 0);
      }
      /* writable after the walk */
      slotmap_key k = put3(&m, 999, &bad);
      CHECK_EQ_INT(bad, 0);
      CHECK(key3_is(&m, k, 999));
      CHECK_EQ_INT(slotmap_erase(&m, k), SLATE_OK);
      free(before);
      slotmap_free(&m);
    }

  /* each and erase_if go on after a callback erases its own key */
  for (int walk = 0; walk < 2; walk++) {
    slotmap_s m;
    CHECK_EQ_INT(slotmap_columns(&m, SIZES3, 3), SLATE_OK);
    for (uint64_t i = 0; i < 200; i++) put3(&m, i, &bad);
    CHECK_EQ_INT(bad, 0);
    if (walk == 0)
      CHECK_EQ_INT(slotmap_each(&m, erase_own_cb, &m), SLATE_OK);
    else
      CHECK_EQ_INT(slotmap_erase_if(&m, erase_own_cb, &m), SLATE_OK);
    CHECK_EQ_U64(slotmap_length(&m), 0);
    slotmap_free(&m);
  }

  /* every modification works after the walks */
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
  slotmap_free(&sm);
  slotmap_free(&other);
}

/* Re-initializes the walked slotmap from its own callback: slotmap(),
 * slotmap_columns() or a clone into it. Its old contents are copied out
 * first (a slotmap may be moved with memcpy) and freed from the copy after
 * the walk. */
typedef struct reinit_s {
  slotmap_s* self;
  int how;
  int rc;
  slotmap_s saved;
  unsigned calls;
} reinit_s;

static void try_reinit(reinit_s* r) {
  static const uint32_t sizes[2] = {4, 8};
  slotmap_s other;
  if (r->calls++ != 0) return;
  memcpy(&r->saved, r->self, sizeof r->saved);
  if (r->how == 0) r->rc = slotmap(r->self, 4);
  if (r->how == 1) r->rc = slotmap_columns(r->self, sizes, 2);
  if (r->how == 2) {
    CHECK_EQ_INT(slotmap(&other, 4), SLATE_OK);
    r->rc = slotmap_clone(r->self, &other);
    slotmap_free(&other);
  }
}

static int reinit_each_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  try_reinit((reinit_s*)data);
  return 0;
}

static int reinit_less(const void* a, const void* b, void* data) {
  int less = less_rec_a(a, b, NULL);
  try_reinit((reinit_s*)data);
  return less;
}

void test_reinit_inside_walk(void) {
  TEST_SECTION("slotmap(), slotmap_columns() and slotmap_clone() inside a walk: carried out, the walk stops");
  reinit_s r;
  capture_s cap;
  unsigned bad = 0;
  uint32_t n;
  for (int walk = 0; walk < 3; walk++)
    for (int how = 0; how < 3; how++) {
      slotmap_s sm;
      CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
      for (uint64_t i = 0; i < 300; i++) put3(&sm, i, &bad);
      CHECK_EQ_INT(bad, 0);
      slotmap_key* order = keys_by_row(&sm, &n);
      memset(&r, 0, sizeof r);
      r.self = &sm;
      r.how = how;
      capture_stderr(&cap);
      if (walk == 0) CHECK_EQ_INT(slotmap_each(&sm, reinit_each_cb, &r), SLATE_ERROR_INVALID);
      if (walk == 1) CHECK_EQ_INT(slotmap_erase_if(&sm, reinit_each_cb, &r), SLATE_ERROR_INVALID);
      if (walk == 2) CHECK_EQ_INT(slotmap_sort(&sm, reinit_less, &r), SLATE_ERROR_INVALID);
      CHECK_NOTHING_PRINTED(release_stderr(&cap));
      CHECK_EQ_U64(r.calls, 1);
      CHECK_EQ_INT(r.rc, SLATE_OK);
      /* the slotmap is what the call made it: empty, of the new columns */
      CHECK_EQ_U64(slotmap_length(&sm), 0);
      CHECK_EQ_INT(dense_problems(&sm), 0);
      for (uint32_t i = 0; i < n; i++)
        if (slotmap_contains(&sm, order[i])) bad++;
      CHECK_EQ_INT(bad, 0);
      uint64_t v = 5;
      slotmap_key k = 0;
      CHECK_EQ_INT(slotmap_insert(&sm, &v, &k), SLATE_OK);
      CHECK_EQ_INT(slotmap_erase(&sm, k), SLATE_OK);
      /* the old contents, copied out before, are intact in the copy */
      CHECK_EQ_INT(same_rows(&r.saved, order, n), 0);
      slotmap_free(&r.saved);
      free(order);
      slotmap_free(&sm);
    }
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

/* A clone from the walked slotmap is a read, allowed inside any callback
   ([D-walk]); a clone made there must be refused or sound: a silently
   broken copy is a bug. */
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
