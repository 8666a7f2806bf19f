/* map/api: walks -- slate_each, the merge recipe, and what a callback's
 * calls on the map being walked do (SPEC 3c; abi/walks covers every
 * write from every walk). */
#include "api.h"
#include "../../support/quiet.h"

/* ------------------------------------------------------------------------ */
/* slate_each                                                                */
/* ------------------------------------------------------------------------ */

typedef struct visit_s {
  unsigned char seen[3000];
  int calls;
  int stop_at;  /* stop on this call (1-based), 0: never */
  int stop_ret; /* what to return then */
  int bad;
  const void* data_check;
} visit_s;

static int visit_cb(const char* key, uint32_t length, void* value, void* data) {
  visit_s* s = (visit_s*)data;
  uint64_t k;
  if (s->data_check != (const void*)s) s->bad++;
  s->calls++;
  if (!decode_int(key, length, 0x02, &k) || k >= 3000 || value != V(u64_value(k)))
    s->bad++;
  else
    s->seen[k]++;
  if (s->stop_at && s->calls == s->stop_at) return s->stop_ret;
  return 0;
}

void test_each(void) {
  TEST_SECTION("slate_each");
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 3000), 0);

  visit_s* s = (visit_s*)calloc(1, sizeof(visit_s));
  s->data_check = s;
  CHECK_EQ_INT(slate_each(&m, visit_cb, s), SLATE_OK);
  CHECK_EQ_INT(s->calls, 3000);
  CHECK_EQ_INT(s->bad, 0);
  int once = 1;
  for (int i = 0; i < 3000; i++)
    if (s->seen[i] != 1) once = 0;
  CHECK_MSG(once, "every entry visited exactly once");

  /* early stops: the callback's value is slate_each's */
  static const int stops[][2] = {{1, 7}, {3, -3}, {100, 1}, {2999, INT_MAX}, {3000, INT_MIN},
                                 {1, SLATE_ERROR_ALLOC}};
  for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
    memset(s, 0, sizeof *s);
    s->data_check = s;
    s->stop_at = stops[i][0];
    s->stop_ret = stops[i][1];
    CHECK_EQ_INT(slate_each(&m, visit_cb, s), stops[i][1]);
    CHECK_EQ_INT(s->calls, stops[i][0]);
    CHECK_EQ_INT(s->bad, 0);
  }
  /* the map is still walkable and writable after an early stop */
  CHECK_EQ_INT(slate_set_u64(&m, 5000, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_delete_u64(&m, 5000), SLATE_OK);

  /* the order is deterministic for one state */
  collect_s a = collect(&m);
  collect_s b = collect(&m);
  CHECK(same_order(&a, &b));
  free(a.recs);
  free(b.recs);

  /* small map */
  slate_s small;
  CHECK_EQ_INT(slate(&small), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&small, 10, 15), 0);
  memset(s, 0, sizeof *s);
  s->data_check = s;
  CHECK_EQ_INT(slate_each(&small, visit_cb, s), SLATE_OK);
  CHECK_EQ_INT(s->calls, 5);
  CHECK_EQ_INT(s->bad, 0);
  memset(s, 0, sizeof *s);
  s->data_check = s;
  s->stop_at = 2;
  s->stop_ret = 42;
  CHECK_EQ_INT(slate_each(&small, visit_cb, s), 42);
  CHECK_EQ_INT(s->calls, 2);

  /* the key pointer a callback sees is the map's own copy */
  char key[64];
  strcpy(key, "a key long enough to live outside the slot");
  CHECK_EQ_INT(slate_set(&small, key, V(77)), SLATE_OK);
  collect_s c = collect(&small);
  int found = 0;
  for (size_t i = 0; i < c.n && i < c.capacity; i++) {
    if (c.recs[i].value == V(77)) {
      found++;
      CHECK_EQ_INT(c.recs[i].length, strlen(key));
      CHECK_EQ_MEM(c.recs[i].bytes, key, strlen(key));
      CHECK_NE_PTR(c.recs[i].key_pointer, key);
    }
  }
  CHECK_EQ_INT(found, 1);
  free(c.recs);
  free(s);
  slate_free(&small);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* merge: slate_each over a, writing into b                                  */
/* ------------------------------------------------------------------------ */

static int merge_cb(const char* key, uint32_t length, void* value, void* data) {
  return slate_set_bytes((slate_s*)data, key, length, value);
}

void test_merge(void) {
  TEST_SECTION("merge recipe");
  slate_s a, b;
  char buffer[96];
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_INT(slate(&b), SLATE_OK);
  /* a: u64 0..1999 (odd values), strings 0..49; b: u64 1000..2999 with other values */
  CHECK_EQ_U64(fill_u64(&a, 0, 2000), 0);
  for (unsigned i = 0; i < 50; i++)
    CHECK_EQ_INT(slate_set(&a, long_key(buffer, sizeof buffer, i), V(50000 + i)), SLATE_OK);
  for (uint64_t k = 1000; k < 3000; k++) CHECK_EQ_INT(slate_set_u64(&b, k, V(7)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&b, "b-only", V(8)), SLATE_OK);
  CHECK_EQ_INT(slate_each(&a, merge_cb, &b), SLATE_OK);
  CHECK_EQ_U64(slate_length(&a), 2050);
  CHECK_EQ_U64(slate_length(&b), 3000 + 50 + 1);
  CHECK_EQ_U64(missing_u64(&b, 0, 2000, 1), 0); /* a's values won */
  uint64_t bad = 0;
  for (uint64_t k = 2000; k < 3000; k++) {
    void* v = NULL;
    if (slate_get_u64(&b, k, &v) != SLATE_OK || v != V(7)) bad++;
  }
  for (unsigned i = 0; i < 50; i++) {
    void* v = NULL;
    if (slate_get(&b, long_key(buffer, sizeof buffer, i), &v) != SLATE_OK || v != V(50000 + i))
      bad++;
  }
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_INT(slate_get(&b, "b-only", NULL), SLATE_OK);
  CHECK_EQ_INT(slate_get(&a, "b-only", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(missing_u64(&a, 0, 2000, 1), 0); /* a untouched */
  verify_structure(&a, 0);
  verify_structure(&b, 0);
  /* merging a into a copy of itself changes nothing */
  slate_s c;
  CHECK_EQ_INT(slate_clone(&c, &a), SLATE_OK);
  CHECK_EQ_INT(slate_each(&a, merge_cb, &c), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&a, &c), 1);
  slate_free(&c);
  slate_free(&a);
  slate_free(&b);
}

/* ------------------------------------------------------------------------ */
/* calls on the map being walked, from inside its walk                       */
/* ------------------------------------------------------------------------ */

/* Reads, nested walks, a clone, writes to other maps and replacing a value
 * leave the walk going, and the map as it was. */
typedef struct reent_s {
  slate_s* self;
  slate_s* other;
  slate_s* copy;
  uint64_t length;
  int calls;
  int nested_calls;
  int inner_other_calls;
} reent_s;

static int nested_cb(const char* key, uint32_t length, void* value, void* data) {
  reent_s* r = (reent_s*)data;
  void* v = NULL;
  r->nested_calls++;
  /* a read of the map both walks walk */
  if (slate_get_bytes(r->self, key, length, &v) != SLATE_OK || v != value) r->nested_calls += 1000000;
  return 0;
}

/* walking another map from inside the walk of self: a write to the map
 * this inner walk walks is carried out and stops the inner walk only */
static int inner_other_cb(const char* key, uint32_t length, void* value, void* data) {
  reent_s* r = (reent_s*)data;
  (void)key;
  (void)length;
  (void)value;
  r->inner_other_calls++;
  CHECK_EQ_INT(slate_set(r->copy, "from-inner", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(r->copy, "from-inner"), SLATE_OK);
  CHECK_EQ_INT(slate_set(r->other, "from-inner", V(1)), SLATE_OK); /* a new key */
  return 0;
}

static int stop_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  (void)data;
  return 5;
}

static int reent_cb(const char* key, uint32_t length, void* value, void* data) {
  reent_s* r = (reent_s*)data;
  slate_s* m = r->self;
  void* v = SENTINEL;
  r->calls++;
  /* replacing the given key's value (here with itself) is no change */
  CHECK_EQ_INT(slate_set_bytes(m, key, length, value), SLATE_OK);
  if (r->calls > 1) return 0;

  /* reads */
  CHECK_EQ_INT(slate_get_bytes(m, key, length, &v), SLATE_OK);
  CHECK_EQ_PTR(v, value);
  CHECK_EQ_INT(slate_get(m, "s0", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1000));
  CHECK_EQ_INT(slate_get_u64(m, 3, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(u64_value(3)));
  CHECK_EQ_INT(slate_get_i64(m, -1, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2001));
  CHECK_EQ_U64(slate_length(m), r->length);
  CHECK_EQ_INT(slate_equal(m, m), 1);
  /* a call that changes nothing: the delete of an absent key */
  CHECK_EQ_INT(slate_delete(m, "absent"), SLATE_ERROR_NOT_FOUND);
  /* nested walks of the same map */
  CHECK_EQ_INT(slate_each(m, nested_cb, r), SLATE_OK);
  CHECK_EQ_U64(r->nested_calls, r->length);
  CHECK_EQ_INT(slate_each(m, stop_cb, NULL), 5);
  CHECK_EQ_INT(slate_delete_if(m, noop_cb, NULL), SLATE_OK);
  slate_info_s in;
  CHECK_EQ_INT(slate_info(m, &in), SLATE_OK);
  CHECK_EQ_U64(in.length, r->length);
  CHECK_EQ_INT(run_check(m), SLATE_OK);

  /* clone from inside: the copy is a separate, writable map */
  CHECK_EQ_INT(slate_clone(r->copy, m), SLATE_OK);
  CHECK_EQ_INT(slate_equal(r->copy, m), 1);
  CHECK_EQ_INT(slate_set(r->copy, "in-callback", V(5)), SLATE_OK);
  CHECK_EQ_INT(slate_delete_u64(r->copy, 3), SLATE_OK);
  CHECK_EQ_U64(slate_length(r->copy), r->length);
  CHECK_EQ_INT(slate_equal(r->copy, m), 0);

  /* other maps are writable */
  CHECK_EQ_INT(slate_set_bytes(r->other, key, length, value), SLATE_OK);
  CHECK_EQ_INT(slate_delete_bytes(r->other, key, length), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(r->other, 1, V(2)), SLATE_OK);

  /* walking another map from in here */
  CHECK_EQ_INT(slate_each(r->other, inner_other_cb, r), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(r->inner_other_calls, 1);
  return 0;
}

static void check_reent_map(const slate_s* m) {
  void* v = NULL;
  CHECK_EQ_U64(slate_length(m), 3 + 200 + 20);
  CHECK_EQ_U64(missing_u64(m, 0, 200, 1), 0);
  for (int i = 0; i < 20; i++) {
    char k[16];
    snprintf(k, sizeof k, "s%d", i);
    v = NULL;
    CHECK(slate_get(m, k, &v) == SLATE_OK && v == V(1000 + i));
  }
  CHECK_EQ_INT(slate_get_i64(m, -1, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2001));
  CHECK_EQ_INT(slate_get(m, "from-inner", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(m, "in-callback", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_MAP_OK(m);
}

/* What one write to the walked map does to slate_each: each is carried
 * out; the walk goes on after replacing a value, deleting the given key
 * or a call that changes nothing, and stops with INVALID after any other
 * change. */
enum {
  WR_SET_NEW,
  WR_SET_BYTES_NEW,
  WR_SET_I64_NEW,
  WR_REPLACE_OTHER,
  WR_DELETE_GIVEN,
  WR_DELETE_OTHER,
  WR_DELETE_ABSENT,
  WR_CLEAR,
  WR_COMPACT,
  WR_RESERVE_SMALL,
  WR_RESERVE_BIG,
  WR_DELETE_IF_ALL,
  WR_FREE,
  WR_KINDS
};

typedef struct write_s {
  slate_s* m;
  int kind;
  int calls;
  int rc;
  uint64_t given;
} write_s;

static int write_cb(const char* key, uint32_t length, void* value, void* data) {
  write_s* w = (write_s*)data;
  slate_s* m = w->m;
  (void)value;
  if (++w->calls > 1) return 0;
  CHECK(decode_int(key, length, 0x02, &w->given));
  uint64_t other = w->given == 3 ? 4 : 3;
  switch (w->kind) {
    case WR_SET_NEW: w->rc = slate_set(m, "new-key", V(1)); break;
    case WR_SET_BYTES_NEW: w->rc = slate_set_bytes(m, "new\0bytes", 9, V(1)); break;
    case WR_SET_I64_NEW: w->rc = slate_set_i64(m, -77, V(1)); break;
    case WR_REPLACE_OTHER: w->rc = slate_set_u64(m, other, V(0xBAD)); break;
    case WR_DELETE_GIVEN: w->rc = slate_delete_bytes(m, key, length); break;
    case WR_DELETE_OTHER: w->rc = slate_delete_u64(m, other); break;
    case WR_DELETE_ABSENT: w->rc = slate_delete_u64(m, 999999); break;
    case WR_CLEAR: w->rc = slate_clear(m); break;
    case WR_COMPACT: w->rc = slate_compact(m); break;
    case WR_RESERVE_SMALL: w->rc = slate_reserve(m, 1); break;
    case WR_RESERVE_BIG: w->rc = slate_reserve(m, 100000); break;
    case WR_DELETE_IF_ALL: w->rc = slate_delete_if(m, always_cb, NULL); break;
    default: slate_free(m); break;
  }
  return 0;
}

static void test_each_write(void) {
  enum { N = 100 };
  /* {walk's return, calls, length after, the write's return} */
  static const int expect[WR_KINDS][4] = {
      {SLATE_ERROR_INVALID, 1, N + 1, SLATE_OK}, /* set new */
      {SLATE_ERROR_INVALID, 1, N + 1, SLATE_OK}, /* set_bytes new */
      {SLATE_ERROR_INVALID, 1, N + 1, SLATE_OK}, /* set_i64 new */
      {SLATE_OK, N, N, SLATE_OK},                /* replace another key's value */
      {SLATE_OK, N, N - 1, SLATE_OK},            /* delete the given key */
      {SLATE_ERROR_INVALID, 1, N - 1, SLATE_OK}, /* delete another key */
      {SLATE_OK, N, N, SLATE_ERROR_NOT_FOUND},   /* delete an absent key */
      {SLATE_ERROR_INVALID, 1, 0, SLATE_OK},     /* clear */
      {SLATE_ERROR_INVALID, 1, N, SLATE_OK},     /* compact */
      {SLATE_OK, N, N, SLATE_OK},                /* reserve that moves nothing */
      {SLATE_ERROR_INVALID, 1, N, SLATE_OK},     /* reserve that grows */
      {SLATE_ERROR_INVALID, 1, 0, SLATE_OK},     /* a nested delete_if of every entry */
      {SLATE_ERROR_INVALID, 1, 0, SLATE_OK},     /* free */
  };
  for (int kind = 0; kind < WR_KINDS; kind++) {
    slate_s m;
    write_s w;
    CHECK_EQ_INT(slate(&m), SLATE_OK);
    CHECK_EQ_U64(fill_u64(&m, 0, N), 0);
    memset(&w, 0, sizeof w);
    w.m = &m;
    w.kind = kind;
    CHECK_EQ_INT(slate_each(&m, write_cb, &w), expect[kind][0]);
    CHECK_EQ_INT(w.calls, expect[kind][1]);
    CHECK_EQ_U64(slate_length(&m), (uint64_t)expect[kind][2]);
    CHECK_EQ_INT(w.rc, expect[kind][3]);
    /* the write was carried out */
    void* v = NULL;
    uint64_t other = w.given == 3 ? 4 : 3;
    switch (kind) {
      case WR_SET_NEW: CHECK_EQ_INT(slate_get(&m, "new-key", NULL), SLATE_OK); break;
      case WR_SET_BYTES_NEW: CHECK_EQ_INT(slate_get_bytes(&m, "new\0bytes", 9, NULL), SLATE_OK); break;
      case WR_SET_I64_NEW: CHECK_EQ_INT(slate_get_i64(&m, -77, NULL), SLATE_OK); break;
      case WR_REPLACE_OTHER:
        CHECK_EQ_INT(slate_get_u64(&m, other, &v), SLATE_OK);
        CHECK_EQ_PTR(v, V(0xBAD));
        break;
      case WR_DELETE_GIVEN: CHECK_EQ_INT(slate_get_u64(&m, w.given, NULL), SLATE_ERROR_NOT_FOUND); break;
      case WR_DELETE_OTHER: CHECK_EQ_INT(slate_get_u64(&m, other, NULL), SLATE_ERROR_NOT_FOUND); break;
      case WR_RESERVE_BIG: CHECK(info_of(&m).capacity >= 100000); break;
      default: break;
    }
    CHECK_MAP_OK(&m);
    /* and the map is writable after the walk */
    CHECK_EQ_INT(slate_set(&m, "after", V(1)), SLATE_OK);
    CHECK_EQ_INT(slate_delete(&m, "after"), SLATE_OK);
    slate_free(&m);
  }
}

void test_reentrancy(void) {
  TEST_SECTION("calls from inside slate_each on the walked map and others");
  slate_s m, other, copy;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate(&other), SLATE_OK);
  memset(&copy, 0, sizeof copy);
  CHECK_EQ_U64(fill_u64(&m, 0, 200), 0);
  for (int i = 0; i < 20; i++) {
    char k[16];
    snprintf(k, sizeof k, "s%d", i);
    CHECK_EQ_INT(slate_set(&m, k, V(1000 + i)), SLATE_OK);
  }
  CHECK_EQ_INT(slate_set_i64(&m, -1, V(2001)), SLATE_OK);
  CHECK_EQ_INT(slate_set_i64(&m, -2, V(2002)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "a-string-key-longer-than-the-inline-limit", V(2003)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&other, "other", V(1)), SLATE_OK);
  slate_info_s before = info_of(&m);
  collect_s order_before = collect(&m);

  reent_s r;
  memset(&r, 0, sizeof r);
  r.self = &m;
  r.other = &other;
  r.copy = &copy;
  r.length = slate_length(&m);
  CHECK_EQ_INT(slate_each(&m, reent_cb, &r), SLATE_OK);
  CHECK_EQ_U64(r.calls, r.length);
  check_reent_map(&m);
  slate_info_s after = info_of(&m);
  CHECK_EQ_U64(after.capacity, before.capacity);
  CHECK_EQ_U64(after.tombstones, before.tombstones);
  CHECK_EQ_U64(after.seed, before.seed);
  CHECK_EQ_U64(after.memory, before.memory);
  collect_s order_after = collect(&m);
  CHECK(same_order(&order_before, &order_after));
  free(order_before.recs);
  free(order_after.recs);

  /* the copy made inside is independent and stays writable afterwards */
  CHECK_EQ_U64(slate_length(&copy), r.length);
  CHECK_EQ_INT(slate_get(&copy, "in-callback", NULL), SLATE_OK);
  CHECK_EQ_INT(slate_set(&copy, "after", V(1)), SLATE_OK);
  CHECK_MAP_OK(&copy);
  slate_free(&copy);
  /* the inner walk's write to its own map was carried out */
  CHECK_EQ_INT(slate_get_u64(&other, 1, NULL), SLATE_OK);
  CHECK_EQ_INT(slate_get(&other, "from-inner", NULL), SLATE_OK);
  CHECK_MAP_OK(&other);

  /* writable after the walk, also after an early stop */
  CHECK_EQ_INT(slate_each(&m, stop_cb, NULL), 5);
  CHECK_EQ_INT(slate_set(&m, "after-walk", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, "after-walk"), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&m, 1000), SLATE_OK);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  check_reent_map(&m);
  /* each over an empty map, then writes */
  slate_s empty;
  CHECK_EQ_INT(slate(&empty), SLATE_OK);
  CHECK_EQ_INT(slate_each(&empty, stop_cb, NULL), SLATE_OK);
  CHECK_EQ_INT(slate_set(&empty, "x", V(1)), SLATE_OK);
  slate_free(&empty);
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 0);
  slate_free(&m);
  slate_free(&other);

  TEST_SECTION("each write to the walked map: carried out; the walk goes on or stops with INVALID");
  test_each_write();
}

/* Re-initializes the walked map from its own callback: slate() or a clone
 * into it. The map's old contents are moved out first (a map may be moved
 * with memcpy), so that they can be freed after the walk. */
typedef struct reinit_s {
  slate_s* self;
  slate_s* unwalked;
  const slate_s* source; /* NULL: slate() */
  slate_s saved;
  int rc_init, rc_unwalked;
  unsigned calls;
} reinit_s;

static int reinit_cb(const char* key, uint32_t key_length, void* value, void* data) {
  reinit_s* r = (reinit_s*)data;
  (void)key;
  (void)key_length;
  (void)value;
  if (r->calls++ == 0) {
    memcpy(&r->saved, r->self, sizeof r->saved);
    r->rc_init = r->source ? slate_clone(r->self, r->source) : slate(r->self);
    r->rc_unwalked = slate(r->unwalked);
  }
  return 0;
}

void test_reinit_inside_walk(void) {
  TEST_SECTION("slate() and slate_clone() into a map inside its own walk: carried out, the walk stops");
  slate_s m, n, source;
  reinit_s r;
  capture_s cap;
  CHECK_EQ_INT(slate(&source), SLATE_OK);
  CHECK_EQ_INT(slate_set(&source, "from-the-source", V(3)), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&source, 5, V(4)), SLATE_OK);
  for (int pass = 0; pass < 4; pass++) {
    CHECK_EQ_INT(slate(&m), SLATE_OK);
    CHECK_EQ_U64(fill_u64(&m, 0, 100), 0);
    CHECK_EQ_INT(slate_set(&m, "a-string-key-longer-than-the-inline-limit", V(7)), SLATE_OK);
    memset(&r, 0, sizeof r);
    r.self = &m;
    r.unwalked = &n;
    r.source = pass / 2 ? &source : NULL;
    capture_stderr(&cap);
    if (pass % 2 == 0)
      CHECK_EQ_INT(slate_each(&m, reinit_cb, &r), SLATE_ERROR_INVALID);
    else
      CHECK_EQ_INT(slate_delete_if(&m, reinit_cb, &r), SLATE_ERROR_INVALID);
    CHECK_NOTHING_PRINTED(release_stderr(&cap));
    CHECK_EQ_INT(r.rc_init, SLATE_OK);
    CHECK_EQ_INT(r.rc_unwalked, SLATE_OK);
    slate_free(&n);
    CHECK_EQ_U64(r.calls, 1);
    /* the map is what the call made it: fresh, or the source's copy */
    if (r.source) {
      CHECK_EQ_INT(slate_equal(&m, &source), 1);
    } else {
      CHECK_EQ_U64(slate_length(&m), 0);
    }
    CHECK_MAP_OK(&m);
    /* its old contents, moved out before, are intact */
    CHECK_EQ_U64(slate_length(&r.saved), 101);
    CHECK_EQ_U64(missing_u64(&r.saved, 0, 100, 1), 0);
    CHECK_MAP_OK(&r.saved);
    slate_free(&r.saved);
    /* and the map changes, frees and starts again */
    CHECK_EQ_INT(slate_set(&m, "after", V(1)), SLATE_OK);
    CHECK_EQ_INT(slate_delete(&m, "after"), SLATE_OK);
    slate_free(&m);
    CHECK_EQ_U64(slate_length(&m), 0);
    CHECK_EQ_INT(slate(&m), SLATE_OK);
    CHECK_EQ_INT(slate_set(&m, "again", V(2)), SLATE_OK);
    CHECK_EQ_U64(slate_length(&m), 1);
    slate_free(&m);
  }
  slate_free(&source);
}
