/* map/api: cursors -- slate_iter, slate_iter_next, slate_iter_delete
 * (SPEC 3b): the order, deleting as the cursor goes, staleness, moves. */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* entries as sequences                                                      */
/* ------------------------------------------------------------------------ */

/* One entry: a copy of its key's bytes, and its value. */
typedef struct ent_s {
  char* key;
  uint32_t length;
  void* value;
} ent_s;

typedef struct seq_s {
  ent_s* e;
  size_t n;
  size_t capacity;
} seq_s;

static void seq_add(seq_s* s, const char* key, uint32_t length, void* value) {
  if (s->n == s->capacity) {
    s->capacity = s->capacity ? 2 * s->capacity : 64;
    s->e = (ent_s*)realloc(s->e, s->capacity * sizeof(ent_s));
  }
  ent_s* e = &s->e[s->n++];
  e->key = (char*)malloc(length ? length : 1);
  if (length) memcpy(e->key, key, length);
  e->length = length;
  e->value = value;
}

static void seq_free(seq_s* s) {
  for (size_t i = 0; i < s->n; i++) free(s->e[i].key);
  free(s->e);
  memset(s, 0, sizeof *s);
}

static int seq_same(const seq_s* a, const seq_s* b) {
  if (a->n != b->n) return 0;
  for (size_t i = 0; i < a->n; i++) {
    const ent_s *x = &a->e[i], *y = &b->e[i];
    if (x->length != y->length || x->value != y->value) return 0;
    if (x->length && memcmp(x->key, y->key, x->length) != 0) return 0;
  }
  return 1;
}

static int each_cb(const char* key, uint32_t length, void* value, void* data) {
  seq_add((seq_s*)data, key, length, value);
  return 0;
}

/* slate_each's sequence. */
static seq_s each_seq(const slate_s* m) {
  seq_s s;
  memset(&s, 0, sizeof s);
  CHECK_EQ_INT(slate_each(m, each_cb, &s), SLATE_OK);
  return s;
}

/* A cursor's full sequence; its last return code in *rc. Deletes the
 * entries at positions `i` where i % every == phase (every 0: none). */
static seq_s cursor_seq(slate_s* m, size_t every, size_t phase, int* rc) {
  seq_s s;
  slate_iter_s it;
  const char* k;
  uint32_t n;
  void* v;
  size_t i = 0;
  memset(&s, 0, sizeof s);
  CHECK_EQ_INT(slate_iter(&it, m), SLATE_OK);
  while ((*rc = slate_iter_next(&it, m, &k, &n, &v)) == SLATE_OK) {
    seq_add(&s, k, n, v);
    if (every && i % every == phase && slate_iter_delete(&it, m) != SLATE_OK) {
      *rc = -100; /* a refused delete */
      break;
    }
    i++;
  }
  return s;
}

/* Whether map m holds exactly the entries of s (in any order). */
static int holds_exactly(const slate_s* m, const seq_s* s) {
  if (slate_length(m) != s->n) return 0;
  for (size_t i = 0; i < s->n; i++) {
    void* v = SENTINEL;
    if (slate_get_bytes(m, s->e[i].key, s->e[i].length, &v) != SLATE_OK || v != s->e[i].value)
      return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------------ */
/* maps of every shape                                                       */
/* ------------------------------------------------------------------------ */

/* Entry i of a mixed map: a string, bytes with NULs, a long key (over 128
 * bytes), an int64, a uint64 key, in turn; i == 0 also adds the empty key. */
static void put_mixed(slate_s* m, unsigned i) {
  char buffer[200];
  void* value = V(i + 1);
  switch (i % 5) {
    case 0:
      snprintf(buffer, sizeof buffer, "key-%u", i);
      CHECK_EQ_INT(slate_set(m, buffer, value), SLATE_OK);
      break;
    case 1:
      memset(buffer, 0, 12);
      memcpy(buffer + 3, &i, sizeof i);
      CHECK_EQ_INT(slate_set_bytes(m, buffer, 12, value), SLATE_OK);
      break;
    case 2:
      memset(buffer, 'x', 150);
      snprintf(buffer + 140, 20, "%u", i);
      CHECK_EQ_INT(slate_set_bytes(m, buffer, 150, value), SLATE_OK);
      break;
    case 3:
      CHECK_EQ_INT(slate_set_i64(m, -(int64_t)i, value), SLATE_OK);
      break;
    default:
      CHECK_EQ_INT(slate_set_u64(m, (uint64_t)i * 0x9E3779B97F4A7C15ull, value), SLATE_OK);
      break;
  }
  if (i == 0) CHECK_EQ_INT(slate_set_bytes(m, NULL, 0, V(0xE0)), SLATE_OK);
}

enum { SHAPES = 9 };
static const char* const shape_names[SHAPES] = {
    "empty",     "zero-filled", "one group",          "mixed, many tables", "u64 only",
    "i64 only",  "mixed layouts", "with tombstones", "small, integer"};

/* Builds shape `shape` into m (which is uninitialized). */
static void build(slate_s* m, int shape) {
  unsigned i;
  if (shape == 1) {
    memset(m, 0, sizeof *m);
    return;
  }
  CHECK_EQ_INT(slate(m), SLATE_OK);
  switch (shape) {
    case 0:
      break;
    case 2:
      for (i = 0; i < 7; i++) put_mixed(m, i); /* 8 entries with the empty key */
      break;
    case 3:
      for (i = 0; i < 6000; i++) put_mixed(m, i);
      break;
    case 4:
      CHECK_EQ_U64(fill_u64(m, 0, 5000), 0);
      break;
    case 5:
      for (i = 0; i < 3000; i++) CHECK_EQ_INT(slate_set_i64(m, (int64_t)i - 1500, V(i + 7)), SLATE_OK);
      break;
    case 6: /* integer tables, and some turned general by a string key */
      CHECK_EQ_U64(fill_u64(m, 0, 4000), 0);
      for (i = 0; i < 5; i++) {
        char key[32];
        snprintf(key, sizeof key, "general-%u", i);
        CHECK_EQ_INT(slate_set(m, key, V(i)), SLATE_OK);
      }
      break;
    case 7:
      for (i = 0; i < 4000; i++) put_mixed(m, i);
      for (i = 0; i < 4000; i += 3) {
        char key[32];
        snprintf(key, sizeof key, "key-%u", i);
        slate_delete(m, key);
        slate_delete_i64(m, -(int64_t)i);
      }
      CHECK(info_of(m).tombstones > 0);
      break;
    default:
      CHECK_EQ_U64(fill_u64(m, 100, 104), 0);
      break;
  }
  CHECK_MAP_OK(m);
}

static void test_order_and_deletes(void) {
  for (int shape = 0; shape < SHAPES; shape++) {
    TEST_SECTION(shape_names[shape]);
    slate_s m, copy;
    int rc;
    build(&m, shape);
    seq_s all = each_seq(&m);
    CHECK_EQ_U64(all.n, slate_length(&m));

    /* a full iteration is slate_each's sequence, twice, and stays done */
    for (int round = 0; round < 2; round++) {
      seq_s s = cursor_seq(&m, 0, 0, &rc);
      CHECK_EQ_INT(rc, SLATE_ERROR_NOT_FOUND);
      CHECK(seq_same(&s, &all));
      seq_free(&s);
    }
    CHECK(holds_exactly(&m, &all));

    /* NULL out-parameters: the same number of entries */
    {
      slate_iter_s it;
      uint64_t count = 0;
      CHECK_EQ_INT(slate_iter(&it, &m), SLATE_OK);
      while ((rc = slate_iter_next(&it, &m, NULL, NULL, NULL)) == SLATE_OK) count++;
      CHECK_EQ_INT(rc, SLATE_ERROR_NOT_FOUND);
      CHECK_EQ_U64(count, all.n);
      CHECK_EQ_INT(slate_iter_next(&it, &m, NULL, NULL, NULL), SLATE_ERROR_NOT_FOUND);
      CHECK_EQ_INT(slate_iter_delete(&it, &m), SLATE_ERROR_NOT_FOUND);
    }

    /* deleting every entry, every other entry (both phases), the last one */
    for (int way = 0; way < 4; way++) {
      if (shape == 1) {
        memset(&copy, 0, sizeof copy); /* a clone is never zero-filled */
      } else {
        CHECK_EQ_INT(slate_clone(&copy, &m), SLATE_OK);
      }
      uint64_t before_seed = info_of(&copy).seed;
      size_t every = way == 0 ? 1 : way == 3 ? (all.n ? all.n : 1) : 2;
      size_t phase = way == 2 ? 1 : way == 3 ? (all.n ? all.n - 1 : 0) : 0;
      seq_s s = cursor_seq(&copy, every, phase, &rc);
      CHECK_EQ_INT(rc, SLATE_ERROR_NOT_FOUND);
      CHECK(seq_same(&s, &all)); /* every entry exactly once, in order */
      seq_s kept;
      memset(&kept, 0, sizeof kept);
      for (size_t i = 0; i < all.n; i++)
        if (i % every != phase) seq_add(&kept, all.e[i].key, all.e[i].length, all.e[i].value);
      CHECK(holds_exactly(&copy, &kept));
      for (size_t i = 0; i < all.n; i++)
        if (i % every == phase)
          CHECK_EQ_INT(slate_get_bytes(&copy, all.e[i].key, all.e[i].length, NULL),
                       SLATE_ERROR_NOT_FOUND);
      seq_s after = each_seq(&copy);
      CHECK_EQ_U64(after.n, kept.n);
      CHECK_MAP_OK(&copy);
      verify_structure(&copy, 1);
      if (kept.n == 0 && all.n > 0) CHECK_NE_U64(info_of(&copy).seed, before_seed);
      /* the map works on */
      CHECK_EQ_INT(slate_set(&copy, "after", V(1)), SLATE_OK);
      CHECK_EQ_U64(slate_length(&copy), kept.n + 1);
      CHECK_MAP_OK(&copy);
      seq_free(&after);
      seq_free(&kept);
      seq_free(&s);
      slate_free(&copy);
    }
    seq_free(&all);
    slate_free(&m);
  }
}

/* ------------------------------------------------------------------------ */
/* the rules of one cursor                                                   */
/* ------------------------------------------------------------------------ */

static void test_cursor_rules(void) {
  TEST_SECTION("cursor rules");
  slate_s m;
  slate_iter_s it;
  const char* k = (const char*)SENTINEL;
  uint32_t n = 77;
  void* v = SENTINEL;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 100), 0);

  /* NULL arguments: INVALID, nothing written */
  CHECK_EQ_INT(slate_iter(NULL, &m), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_iter(&it, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_iter(&it, &m), SLATE_OK);
  CHECK_EQ_INT(slate_iter_next(NULL, &m, &k, &n, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_iter_next(&it, NULL, &k, &n, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_iter_delete(NULL, &m), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_iter_delete(&it, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(k, SENTINEL);
  CHECK_EQ_U64(n, 77);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_U64(slate_length(&m), 100);

  /* delete before the first next, twice on one entry, after NOT_FOUND */
  CHECK_EQ_INT(slate_iter_delete(&it, &m), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_iter_next(&it, &m, &k, &n, &v), SLATE_OK);
  uint64_t first;
  CHECK(decode_int(k, n, 0x02, &first));
  CHECK_EQ_PTR(v, V(u64_value(first)));
  CHECK_EQ_INT(slate_iter_delete(&it, &m), SLATE_OK);
  CHECK_EQ_INT(slate_iter_delete(&it, &m), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(slate_length(&m), 99);
  CHECK_EQ_INT(slate_get_u64(&m, first, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_iter_next(&it, &m, &k, &n, &v), SLATE_OK);
  uint64_t second;
  CHECK(decode_int(k, n, 0x02, &second));
  CHECK_NE_U64(second, first);
  /* the key stays readable across reads of the map */
  CHECK_EQ_INT(slate_get_u64(&m, second, &v), SLATE_OK);
  CHECK_EQ_INT(decode_int(k, n, 0x02, &first), 1);
  CHECK_EQ_U64(first, second);
  uint64_t rest = 1;
  while (slate_iter_next(&it, &m, NULL, NULL, NULL) == SLATE_OK) rest++;
  CHECK_EQ_U64(rest, 99);
  CHECK_EQ_INT(slate_iter_delete(&it, &m), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(slate_length(&m), 99);

  /* an integer key comes from the cursor's own buffer */
  CHECK_EQ_INT(slate_iter(&it, &m), SLATE_OK);
  CHECK_EQ_INT(slate_iter_next(&it, &m, &k, &n, NULL), SLATE_OK);
  CHECK_EQ_U64(n, SLATE_INT_KEY_LENGTH);
  CHECK((const char*)k >= (const char*)&it && (const char*)k + n <= (const char*)(&it + 1));

  /* a cursor never placed by slate_iter is stale */
  memset(&it, 0, sizeof it);
  CHECK_EQ_INT(slate_iter_next(&it, &m, NULL, NULL, NULL), SLATE_ERROR_INVALID);
  memset(&it, 0xA5, sizeof it);
  CHECK_EQ_INT(slate_iter_next(&it, &m, NULL, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_iter_delete(&it, &m), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slate_length(&m), 99);

  /* a pinned map left empty by cursors keeps its seed */
  slate_s p;
  CHECK_EQ_INT(slate(&p), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(&p, 42), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&p, 0, 20), 0);
  int rc;
  seq_s s = cursor_seq(&p, 1, 0, &rc);
  CHECK_EQ_INT(rc, SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(s.n, 20);
  CHECK_EQ_U64(slate_length(&p), 0);
  CHECK_EQ_U64(info_of(&p).seed, 42);
  CHECK_MAP_OK(&p);
  seq_free(&s);
  slate_free(&p);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* staleness                                                                 */
/* ------------------------------------------------------------------------ */

enum {
  ACT_SET_NEW, ACT_SET_BYTES_NEW, ACT_SET_I64_NEW, ACT_SET_U64_NEW, ACT_DELETE, ACT_DELETE_BYTES,
  ACT_DELETE_I64, ACT_DELETE_U64, ACT_TAKE, ACT_TAKE_U64, ACT_OTHER_CURSOR, ACT_DELETE_IF,
  ACT_RESERVE, ACT_CLEAR, ACT_COMPACT, ACT_FREE, ACT_SLATE, ACT_WRITE_IN_WALK, STALE_ACTS,
  /* changes nothing a cursor sees */
  ACT_REPLACE = STALE_ACTS, ACT_REPLACE_BYTES, ACT_REPLACE_I64, ACT_REPLACE_U64, ACT_DELETE_ABSENT,
  ACT_TAKE_ABSENT, ACT_NULL_KEY, ACT_RESERVE_NOTHING, ACT_RESERVE_FULL, ACT_DELETE_IF_NONE,
  ACT_REFUSED, ACT_READS, ACT_ALL
};

/* Calls from inside a walk that change nothing: refused (pin_seed and
 * set_allocator on a map that holds memory), failed, or of an absent key. */
static int refuse_cb(const char* key, uint32_t length, void* value, void* data) {
  slate_s* m = (slate_s*)data;
  (void)key;
  (void)length;
  (void)value;
  CHECK_EQ_INT(slate_pin_seed(m, 1), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_allocator(m, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set(m, NULL, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete(m, "absent"), SLATE_ERROR_NOT_FOUND);
  return 1;
}

/* A write from inside a walk is carried out (and stops the walk). */
static int write_in_walk_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  CHECK_EQ_INT(slate_set((slate_s*)data, "in-walk", V(1)), SLATE_OK);
  return 0;
}

static int is_u64_3(const char* key, uint32_t length, void* value, void* data) {
  uint64_t k;
  (void)value;
  (void)data;
  return decode_int(key, length, 0x02, &k) && k == 3;
}

/* Does `a` to m (u64 keys 0..99, "str", i64 7, or fewer); `other` is a
 * second cursor on m. */
static void act(slate_s* m, int a, slate_iter_s* other) {
  switch (a) {
    case ACT_SET_NEW: CHECK_EQ_INT(slate_set(m, "new", V(1)), SLATE_OK); break;
    case ACT_SET_BYTES_NEW: CHECK_EQ_INT(slate_set_bytes(m, "n\0w", 3, V(1)), SLATE_OK); break;
    case ACT_SET_I64_NEW: CHECK_EQ_INT(slate_set_i64(m, -5, V(1)), SLATE_OK); break;
    case ACT_SET_U64_NEW: CHECK_EQ_INT(slate_set_u64(m, 1000, V(1)), SLATE_OK); break;
    case ACT_DELETE: CHECK_EQ_INT(slate_delete(m, "str"), SLATE_OK); break;
    case ACT_DELETE_BYTES: {
      unsigned char key[10];
      encode_u64(key, 3);
      CHECK_EQ_INT(slate_delete_bytes(m, key, 10), SLATE_OK);
      break;
    }
    case ACT_DELETE_I64: CHECK_EQ_INT(slate_delete_i64(m, 7), SLATE_OK); break;
    case ACT_DELETE_U64: CHECK_EQ_INT(slate_delete_u64(m, 3), SLATE_OK); break;
    case ACT_TAKE: {
      void* v = NULL;
      CHECK_EQ_INT(slate_take(m, "str", &v), SLATE_OK);
      CHECK_EQ_PTR(v, V(0x57));
      break;
    }
    case ACT_TAKE_U64: {
      void* v = NULL;
      CHECK_EQ_INT(slate_take_u64(m, 5, &v), SLATE_OK);
      CHECK_EQ_PTR(v, V(u64_value(5)));
      break;
    }
    case ACT_OTHER_CURSOR:
      CHECK_EQ_INT(slate_iter_next(other, m, NULL, NULL, NULL), SLATE_OK);
      CHECK_EQ_INT(slate_iter_delete(other, m), SLATE_OK);
      CHECK_EQ_INT(slate_iter_next(other, m, NULL, NULL, NULL), SLATE_OK); /* still valid */
      break;
    case ACT_DELETE_IF: CHECK_EQ_INT(slate_delete_if(m, is_u64_3, NULL), SLATE_OK); break;
    case ACT_RESERVE: CHECK_EQ_INT(slate_reserve(m, 50000), SLATE_OK); break;
    case ACT_CLEAR: CHECK_EQ_INT(slate_clear(m), SLATE_OK); break;
    case ACT_COMPACT: CHECK_EQ_INT(slate_compact(m), SLATE_OK); break;
    case ACT_FREE: slate_free(m); break;
    case ACT_SLATE:
      slate_free(m);
      CHECK_EQ_INT(slate(m), SLATE_OK);
      break;
    case ACT_REPLACE: CHECK_EQ_INT(slate_set_u64(m, 3, V(5)), SLATE_OK); break;
    case ACT_REPLACE_BYTES: {
      unsigned char key[10];
      encode_u64(key, 3);
      CHECK_EQ_INT(slate_set_bytes(m, key, 10, V(6)), SLATE_OK);
      break;
    }
    case ACT_REPLACE_I64: CHECK_EQ_INT(slate_set_i64(m, 7, V(71)), SLATE_OK); break;
    case ACT_REPLACE_U64: CHECK_EQ_INT(slate_set_u64(m, 0, V(8)), SLATE_OK); break;
    case ACT_DELETE_ABSENT:
      CHECK_EQ_INT(slate_delete(m, "absent"), SLATE_ERROR_NOT_FOUND);
      CHECK_EQ_INT(slate_delete_u64(m, 12345), SLATE_ERROR_NOT_FOUND);
      CHECK_EQ_INT(slate_delete_i64(m, 3), SLATE_ERROR_NOT_FOUND);
      break;
    case ACT_TAKE_ABSENT: CHECK_EQ_INT(slate_take(m, "absent", NULL), SLATE_ERROR_NOT_FOUND); break;
    case ACT_NULL_KEY:
      CHECK_EQ_INT(slate_set(m, NULL, V(1)), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slate_set_bytes(m, NULL, 3, V(1)), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slate_delete(m, NULL), SLATE_ERROR_INVALID);
      break;
    case ACT_RESERVE_NOTHING:
      CHECK_EQ_INT(slate_reserve(m, 10), SLATE_OK);
      CHECK_EQ_INT(slate_reserve(m, 0), SLATE_OK);
      break;
    case ACT_RESERVE_FULL: CHECK_EQ_INT(slate_reserve(m, UINT64_MAX), SLATE_ERROR_FULL); break;
    case ACT_DELETE_IF_NONE: CHECK_EQ_INT(slate_delete_if(m, noop_cb, NULL), SLATE_OK); break;
    case ACT_REFUSED: CHECK_EQ_INT(slate_each(m, refuse_cb, m), 1); break;
    case ACT_WRITE_IN_WALK:
      CHECK_EQ_INT(slate_each(m, write_in_walk_cb, m), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slate_get(m, "in-walk", NULL), SLATE_OK);
      break;
    default: {
      slate_s c;
      CHECK_EQ_INT(slate_get_u64(m, 3, NULL), SLATE_OK);
      CHECK_EQ_U64(count_entries(m), slate_length(m));
      CHECK_EQ_INT(slate_clone(&c, m), SLATE_OK);
      CHECK_EQ_INT(slate_equal(&c, m), 1);
      slate_free(&c);
      break;
    }
  }
}

static void test_staleness(void) {
  TEST_SECTION("cursor staleness");
  for (int a = 0; a < ACT_ALL; a++) {
    for (int moved = 0; moved < 3; moved++) { /* cursor fresh, moved once, at its end */
      slate_s m;
      slate_iter_s it, other;
      const char* k = (const char*)SENTINEL;
      void* v = SENTINEL;
      uint32_t n = 77;
      CHECK_EQ_INT(slate(&m), SLATE_OK);
      CHECK_EQ_U64(fill_u64(&m, 0, 100), 0);
      CHECK_EQ_INT(slate_set_i64(&m, 7, V(70)), SLATE_OK);
      CHECK_EQ_INT(slate_set(&m, "str", V(0x57)), SLATE_OK);
      CHECK_EQ_INT(slate_iter(&it, &m), SLATE_OK);
      CHECK_EQ_INT(slate_iter(&other, &m), SLATE_OK);
      uint64_t seen = 0;
      if (moved == 1) seen += slate_iter_next(&it, &m, NULL, NULL, NULL) == SLATE_OK;
      if (moved == 2)
        while (slate_iter_next(&it, &m, NULL, NULL, NULL) == SLATE_OK) seen++;
      act(&m, a, &other);
      if (a < STALE_ACTS) {
        if (!CHECK_EQ_INT(slate_iter_next(&it, &m, &k, &n, &v), SLATE_ERROR_INVALID))
          fprintf(stderr, "  action %d, moved %d\n", a, moved);
        CHECK_EQ_INT(slate_iter_delete(&it, &m), SLATE_ERROR_INVALID);
        CHECK_EQ_PTR(k, SENTINEL);
        CHECK_EQ_U64(n, 77);
        CHECK_EQ_PTR(v, SENTINEL);
        /* stays stale, even on a map that changes no more */
        CHECK_EQ_INT(slate_iter_next(&it, &m, NULL, NULL, NULL), SLATE_ERROR_INVALID);
        /* a fresh cursor sees the map as it is */
        int rc;
        seq_s s = cursor_seq(&m, 0, 0, &rc);
        CHECK_EQ_INT(rc, SLATE_ERROR_NOT_FOUND);
        CHECK_EQ_U64(s.n, slate_length(&m));
        seq_free(&s);
      } else {
        uint64_t before = slate_length(&m);
        int rc;
        while ((rc = slate_iter_next(&it, &m, NULL, NULL, NULL)) == SLATE_OK) seen++;
        if (!CHECK_EQ_INT(rc, SLATE_ERROR_NOT_FOUND))
          fprintf(stderr, "  action %d, moved %d\n", a, moved);
        CHECK_EQ_U64(seen, before);
        CHECK_EQ_INT(slate_iter_next(&other, &m, NULL, NULL, NULL), SLATE_OK);
      }
      CHECK_MAP_OK(&m);
      slate_free(&m);
    }
  }

  /* clear, compact and free on an empty map, a freed map, a zero-filled
   * map: each carried out, so each makes cursors stale */
  for (int a = ACT_CLEAR; a <= ACT_FREE; a++) {
    for (int kind = 0; kind < 3; kind++) {
      slate_s m;
      slate_iter_s it;
      if (kind == 2) {
        memset(&m, 0, sizeof m);
      } else {
        CHECK_EQ_INT(slate(&m), SLATE_OK);
      }
      if (kind == 1) slate_free(&m);
      CHECK_EQ_INT(slate_iter(&it, &m), SLATE_OK);
      act(&m, a, NULL);
      CHECK_EQ_INT(slate_iter_next(&it, &m, NULL, NULL, NULL), SLATE_ERROR_INVALID);
      slate_free(&m);
    }
  }

  /* a zero-filled map: empty, then stale once it gets a key */
  {
    slate_s z;
    slate_iter_s it;
    memset(&z, 0, sizeof z);
    CHECK_EQ_INT(slate_iter(&it, &z), SLATE_OK);
    CHECK_EQ_INT(slate_iter_next(&it, &z, NULL, NULL, NULL), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_INT(slate_set_u64(&z, 1, V(1)), SLATE_OK);
    CHECK_EQ_INT(slate_iter_next(&it, &z, NULL, NULL, NULL), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_iter(&it, &z), SLATE_OK);
    CHECK_EQ_INT(slate_iter_next(&it, &z, NULL, NULL, NULL), SLATE_OK);
    CHECK_EQ_INT(slate_iter_delete(&it, &z), SLATE_OK);
    CHECK_EQ_INT(slate_iter_next(&it, &z, NULL, NULL, NULL), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_U64(slate_length(&z), 0);
    slate_free(&z);
  }
}

/* ------------------------------------------------------------------------ */
/* inside walks                                                              */
/* ------------------------------------------------------------------------ */

typedef struct inner_s {
  slate_s* m;
  slate_iter_s* it; /* placed before the walk */
  int calls;
  int filter;        /* 1: a delete_if predicate that deletes every other entry */
  int cursor_delete; /* 1: each callback deletes its own entry through a cursor of
                        its own; 2: the second callback deletes the first entry */
  int deleted;       /* entries deleted so far */
  int bad;
} inner_s;

static int inner_cb(const char* key, uint32_t length, void* value, void* data) {
  inner_s* s = (inner_s*)data;
  slate_iter_s mine;
  const char* k = NULL;
  uint32_t n = 0;
  (void)value;
  s->calls++;
  /* a cursor of its own, placed and moved in the walk */
  if (slate_iter(&mine, s->m) != SLATE_OK) s->bad++;
  if (slate_iter_next(&mine, s->m, &k, &n, NULL) != SLATE_OK) s->bad++;
  /* the outer cursor: valid until the map changes */
  int rc = slate_iter_next(s->it, s->m, NULL, NULL, NULL);
  if (rc != (s->deleted ? SLATE_ERROR_INVALID : SLATE_OK)) s->bad++;
  if (s->cursor_delete == 1) {
    /* its own entry, through the cursor: the walk goes on */
    while (k && !(n == length && memcmp(k, key, n) == 0))
      if (slate_iter_next(&mine, s->m, &k, &n, NULL) != SLATE_OK) k = NULL;
    if (!k || slate_iter_delete(&mine, s->m) != SLATE_OK) s->bad++;
    s->deleted++;
    return 0;
  }
  if (s->cursor_delete == 2 && s->calls == 2) {
    /* the cursor's first entry is the one the first callback was given: an
       entry other than the given one, so the walk stops */
    if (slate_iter_delete(&mine, s->m) != SLATE_OK) s->bad++;
    s->deleted++;
    return 0;
  }
  if (s->filter && s->calls % 2 == 0) {
    s->deleted++;
    return 1;
  }
  return 0;
}

static void test_cursor_in_walks(void) {
  TEST_SECTION("cursors inside walks");
  slate_s m;
  slate_iter_s it;
  inner_s s;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 50), 0);
  CHECK_EQ_INT(slate_iter(&it, &m), SLATE_OK);
  memset(&s, 0, sizeof s);
  s.m = &m;
  s.it = &it;
  CHECK_EQ_INT(slate_each(&m, inner_cb, &s), SLATE_OK);
  CHECK_EQ_INT(s.calls, 50);
  CHECK_EQ_INT(s.bad, 0);
  CHECK_EQ_U64(slate_length(&m), 50);
  /* the walk changed nothing: the cursor was moved 50 times, is at its end */
  CHECK_EQ_INT(slate_iter_next(&it, &m, NULL, NULL, NULL), SLATE_ERROR_NOT_FOUND);

  /* delete_if: cursors stale from its first deletion on */
  CHECK_EQ_INT(slate_iter(&it, &m), SLATE_OK);
  memset(&s, 0, sizeof s);
  s.m = &m;
  s.it = &it;
  s.filter = 1;
  CHECK_EQ_INT(slate_delete_if(&m, inner_cb, &s), SLATE_OK);
  CHECK_EQ_INT(s.calls, 50);
  CHECK_EQ_INT(s.bad, 0);
  CHECK_EQ_U64(slate_length(&m), 25);
  CHECK_EQ_INT(slate_iter_next(&it, &m, NULL, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_MAP_OK(&m);

  /* each callback deletes its own entry through a cursor: every entry is
     visited once, the map ends empty, the outer cursor is stale */
  CHECK_EQ_INT(slate_iter(&it, &m), SLATE_OK);
  memset(&s, 0, sizeof s);
  s.m = &m;
  s.it = &it;
  s.cursor_delete = 1;
  CHECK_EQ_INT(slate_each(&m, inner_cb, &s), SLATE_OK);
  CHECK_EQ_INT(s.calls, 25);
  CHECK_EQ_INT(s.bad, 0);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_INT(slate_iter_next(&it, &m, NULL, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_MAP_OK(&m);

  /* a cursor deletes another entry: carried out, and the walk stops */
  CHECK_EQ_U64(fill_u64(&m, 0, 50), 0);
  CHECK_EQ_INT(slate_iter(&it, &m), SLATE_OK);
  memset(&s, 0, sizeof s);
  s.m = &m;
  s.it = &it;
  s.cursor_delete = 2;
  CHECK_EQ_INT(slate_each(&m, inner_cb, &s), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(s.calls, 2);
  CHECK_EQ_INT(s.bad, 0);
  CHECK_EQ_U64(slate_length(&m), 49);
  CHECK_MAP_OK(&m);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* other maps, clones, moves                                                 */
/* ------------------------------------------------------------------------ */

static void test_cursor_maps(void) {
  TEST_SECTION("cursors and other maps");
  slate_s a, b, c;
  slate_iter_s it;
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_INT(slate(&b), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&a, 0, 300), 0);
  CHECK_EQ_U64(fill_u64(&b, 0, 300), 0);
  CHECK_EQ_INT(slate_clone(&c, &a), SLATE_OK);

  /* another map, a clone (same tables, same order): stale, and stays so */
  for (int which = 0; which < 3; which++) {
    slate_s* other = which == 0 ? &b : &c;
    CHECK_EQ_INT(slate_iter(&it, &a), SLATE_OK);
    CHECK_EQ_INT(slate_iter_next(&it, &a, NULL, NULL, NULL), SLATE_OK);
    if (which == 2) {
      slate_s empty;
      CHECK_EQ_INT(slate(&empty), SLATE_OK);
      other = &empty;
      CHECK_EQ_INT(slate_iter_next(&it, other, NULL, NULL, NULL), SLATE_ERROR_INVALID);
    } else {
      CHECK_EQ_INT(slate_iter_next(&it, other, NULL, NULL, NULL), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slate_iter_delete(&it, other), SLATE_ERROR_INVALID);
      CHECK_EQ_U64(slate_length(other), 300);
    }
    CHECK_EQ_INT(slate_iter_next(&it, &a, NULL, NULL, NULL), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_iter_delete(&it, &a), SLATE_ERROR_INVALID);
    CHECK_EQ_U64(slate_length(&a), 300);
  }
  /* a clone of an empty map, zero-filled maps that got their first key or
   * their first tables: other maps all the same */
  for (int how = 0; how < 3; how++) {
    slate_s x, y;
    slate_iter_s ix;
    if (how == 0) {
      CHECK_EQ_INT(slate(&x), SLATE_OK);
      CHECK_EQ_INT(slate_clone(&y, &x), SLATE_OK);
    } else {
      memset(&x, 0, sizeof x);
      memset(&y, 0, sizeof y);
      if (how == 1) {
        CHECK_EQ_INT(slate_set(&x, "k", V(1)), SLATE_OK);
        CHECK_EQ_INT(slate_set(&y, "k", V(1)), SLATE_OK);
      } else {
        CHECK_EQ_INT(slate_reserve(&x, 100), SLATE_OK);
        CHECK_EQ_INT(slate_reserve(&y, 100), SLATE_OK);
      }
    }
    CHECK_EQ_INT(slate_iter(&ix, &x), SLATE_OK);
    CHECK_EQ_INT(slate_iter_next(&ix, &y, NULL, NULL, NULL), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_iter(&ix, &y), SLATE_OK);
    CHECK_EQ_INT(slate_iter_next(&ix, &x, NULL, NULL, NULL), SLATE_ERROR_INVALID);
    slate_free(&x);
    slate_free(&y);
  }
  /* a re-initialized map is another map */
  {
    slate_s e;
    CHECK_EQ_INT(slate(&e), SLATE_OK);
    CHECK_EQ_INT(slate_iter(&it, &e), SLATE_OK);
    CHECK_EQ_INT(slate(&e), SLATE_OK);
    CHECK_EQ_INT(slate_iter_next(&it, &e, NULL, NULL, NULL), SLATE_ERROR_INVALID);
  }

  /* a map moved with memcpy between calls: the cursor follows it, also
   * while deleting */
  {
    seq_s all = each_seq(&a);
    seq_s got;
    slate_s* spots = (slate_s*)malloc(3 * sizeof(slate_s));
    size_t at = 0, i = 0;
    const char* k;
    uint32_t n;
    void* v;
    int rc;
    memset(&got, 0, sizeof got);
    memcpy(&spots[0], &a, sizeof a);
    CHECK_EQ_INT(slate_iter(&it, &spots[0]), SLATE_OK);
    while ((rc = slate_iter_next(&it, &spots[at], &k, &n, &v)) == SLATE_OK) {
      seq_add(&got, k, n, v);
      if (i++ % 3 == 0) CHECK_EQ_INT(slate_iter_delete(&it, &spots[at]), SLATE_OK);
      size_t to = (at + 1) % 3;
      memcpy(&spots[to], &spots[at], sizeof(slate_s));
      memset(&spots[at], 0xEE, sizeof(slate_s));
      at = to;
    }
    CHECK_EQ_INT(rc, SLATE_ERROR_NOT_FOUND);
    CHECK(seq_same(&got, &all));
    CHECK_EQ_U64(slate_length(&spots[at]), 300 - 100);
    CHECK_MAP_OK(&spots[at]);
    memcpy(&a, &spots[at], sizeof a);
    free(spots);
    seq_free(&got);
    seq_free(&all);
  }
  /* a cursor moved with memcpy goes on too */
  {
    slate_iter_s it2;
    uint64_t count = 0;
    CHECK_EQ_INT(slate_iter(&it, &b), SLATE_OK);
    CHECK_EQ_INT(slate_iter_next(&it, &b, NULL, NULL, NULL), SLATE_OK);
    memcpy(&it2, &it, sizeof it);
    memset(&it, 0, sizeof it);
    CHECK_EQ_INT(slate_iter_delete(&it2, &b), SLATE_OK);
    while (slate_iter_next(&it2, &b, NULL, NULL, NULL) == SLATE_OK) count++;
    CHECK_EQ_U64(count, 299);
    CHECK_EQ_U64(slate_length(&b), 299);
  }
  slate_free(&a);
  slate_free(&b);
  slate_free(&c);
}

void test_cursors(void) {
  TEST_SECTION("slate_iter");
  test_order_and_deletes();
  test_cursor_rules();
  test_staleness();
  test_cursor_in_walks();
  test_cursor_maps();
}
