/* map/api: the everyday calls of SPEC 3b -- slate_entry* (get-or-insert),
 * slate_take*, the integer key decoding (slate_key_to_i64/u64,
 * SLATE_INT_KEY_LENGTH) and slate_pin_seed.
 * Each against a model, on maps of every key kind and state: empty, one
 * bare group, many tables, mixed layouts, with tombstones. */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* keys of every kind                                                        */
/* ------------------------------------------------------------------------ */

enum { KIND_STRING, KIND_BYTES, KIND_LONG, KIND_I64, KIND_U64, KINDS };

/* Key i of a kind: short strings, bytes with an embedded NUL (and the empty
   key for i == 0), strings over 128 bytes, int64_t, uint64_t. */
typedef struct ekey_s {
  int kind;
  char bytes[200];
  uint32_t length;
  int64_t i64;
  uint64_t u64;
} ekey_s;

static ekey_s ekey(int kind, unsigned i) {
  ekey_s k;
  memset(&k, 0, sizeof k);
  k.kind = kind;
  switch (kind) {
    case KIND_STRING:
      k.length = (uint32_t)snprintf(k.bytes, sizeof k.bytes, "s%u", i);
      break;
    case KIND_BYTES:
      if (i == 0) break; /* the empty key */
      k.length = (uint32_t)snprintf(k.bytes, sizeof k.bytes, "b_%u", i);
      k.bytes[1] = '\0';
      break;
    case KIND_LONG:
      memset(k.bytes, 'L', 150);
      k.length = 150 + (uint32_t)snprintf(k.bytes + 150, sizeof k.bytes - 150, "%u", i);
      break;
    case KIND_I64:
      k.i64 = -(int64_t)i * 7919 - 1;
      break;
    default:
      k.u64 = (uint64_t)i * 1000003u + UINT64_C(0xF000000000000000);
      break;
  }
  return k;
}

static int set_k(slate_s* m, const ekey_s* k, void* v) {
  switch (k->kind) {
    case KIND_STRING:
    case KIND_LONG: return slate_set(m, k->bytes, v);
    case KIND_BYTES: return slate_set_bytes(m, k->length ? k->bytes : NULL, k->length, v);
    case KIND_I64: return slate_set_i64(m, k->i64, v);
    default: return slate_set_u64(m, k->u64, v);
  }
}

static int get_k(const slate_s* m, const ekey_s* k, void** v) {
  switch (k->kind) {
    case KIND_STRING:
    case KIND_LONG: return slate_get(m, k->bytes, v);
    case KIND_BYTES: return slate_get_bytes(m, k->length ? k->bytes : NULL, k->length, v);
    case KIND_I64: return slate_get_i64(m, k->i64, v);
    default: return slate_get_u64(m, k->u64, v);
  }
}

static int take_k(slate_s* m, const ekey_s* k, void** v) {
  switch (k->kind) {
    case KIND_STRING:
    case KIND_LONG: return slate_take(m, k->bytes, v);
    case KIND_BYTES: return slate_take_bytes(m, k->length ? k->bytes : NULL, k->length, v);
    case KIND_I64: return slate_take_i64(m, k->i64, v);
    default: return slate_take_u64(m, k->u64, v);
  }
}

static int entry_k(slate_s* m, const ekey_s* k, void*** v, int* inserted) {
  switch (k->kind) {
    case KIND_STRING:
    case KIND_LONG: return slate_entry(m, k->bytes, v, inserted);
    case KIND_BYTES: return slate_entry_bytes(m, k->length ? k->bytes : NULL, k->length, v, inserted);
    case KIND_I64: return slate_entry_i64(m, k->i64, v, inserted);
    default: return slate_entry_u64(m, k->u64, v, inserted);
  }
}

/* n keys (malloc'd, room for n + 1), cycling through the kinds of the
   bit mask `kinds`, unique within each kind; NULL when out of memory. */
static ekey_s* key_set(unsigned n, unsigned kinds) {
  unsigned kind = 0, count = 0;
  for (unsigned k = 0; k < KINDS; k++) count += kinds >> k & 1;
  ekey_s* keys = (ekey_s*)malloc((n + 1) * sizeof *keys);
  for (unsigned i = 0; keys && i < n; i++) {
    while (!(kinds >> (kind % KINDS) & 1)) kind++;
    keys[i] = ekey((int)(kind % KINDS), i / count);
    kind++;
  }
  return keys;
}

static uint64_t lcg(uint64_t* s) {
  *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return *s >> 33;
}

/* ------------------------------------------------------------------------ */
/* slate_entry*                                                              */
/* ------------------------------------------------------------------------ */

/* n keys (kinds from `kinds`) through slate_entry: new, then present, then
   every third deleted and entered again; against get and the length. */
static void entry_all(unsigned n, unsigned kinds) {
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  unsigned bad = 0;
  ekey_s* keys = key_set(n, kinds);
  if (!CHECK(keys != NULL)) return;
  for (unsigned i = 0; i < n; i++) {
    void** v = (void**)SENTINEL;
    int inserted = 7;
    if (entry_k(&m, &keys[i], &v, &inserted) != SLATE_OK || inserted != 1 || *v != NULL) bad++;
    *v = V(i + 1);
    if (slate_length(&m) != i + 1) bad++;
  }
  for (unsigned i = 0; i < n; i++) {
    void** v = NULL;
    int inserted = 7;
    void* got = NULL;
    if (entry_k(&m, &keys[i], &v, &inserted) != SLATE_OK || inserted != 0 || *v != V(i + 1)) bad++;
    *v = V(i + 2); /* written through the pointer: what get sees */
    if (get_k(&m, &keys[i], &got) != SLATE_OK || got != V(i + 2)) bad++;
    if (entry_k(&m, &keys[i], &v, NULL) != SLATE_OK || *v != V(i + 2)) bad++; /* inserted may be NULL */
  }
  CHECK_EQ_U64(slate_length(&m), n);
  for (unsigned i = 0; i < n; i += 3) {
    if (take_k(&m, &keys[i], NULL) != SLATE_OK) bad++;
  }
  CHECK_MAP_OK(&m);
  for (unsigned i = 0; i < n; i++) {
    void** v = NULL;
    int inserted = 7;
    if (entry_k(&m, &keys[i], &v, &inserted) != SLATE_OK) bad++;
    if (inserted != (i % 3 == 0) || *v != (i % 3 == 0 ? NULL : V(i + 2))) bad++;
    if (i % 3 == 0) *v = V(i + 3);
  }
  CHECK_EQ_U64(slate_length(&m), n);
  for (unsigned i = 0; i < n; i++) {
    void* got = NULL;
    if (get_k(&m, &keys[i], &got) != SLATE_OK || got != V(i % 3 == 0 ? i + 3 : i + 2)) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_MAP_OK(&m);
  slate_free(&m);
  free(keys);
}

/* Inside the map's own walk (SPEC 3c): an entry of the given key, and a
 * value written through it, leave the walk going; an entry of a new key
 * inserts it and stops the walk with INVALID. */
typedef struct entry_walk_s {
  slate_s* self;
  slate_s* other;
  int calls, last, present_ok, inserted_new, entered_other;
} entry_walk_s;

static int entry_inside_cb(const char* key, uint32_t length, void* value, void* data) {
  entry_walk_s* w = (entry_walk_s*)data;
  void** v = (void**)SENTINEL;
  int inserted = 7;
  w->calls++;
  if (slate_entry_bytes(w->self, key, length, &v, &inserted) == SLATE_OK && inserted == 0 &&
      *v == value) {
    *v = V((uintptr_t)value + 100);
    w->present_ok++;
  }
  if (slate_entry_bytes(w->other, key, length, &v, &inserted) == SLATE_OK && inserted == 1) {
    *v = V(3);
    w->entered_other++;
  }
  if (w->calls == w->last && slate_entry(w->self, "brand new", &v, &inserted) == SLATE_OK &&
      inserted == 1 && *v == NULL) {
    *v = V(99);
    w->inserted_new++;
  }
  return 0;
}

void test_entry(void) {
  TEST_SECTION("slate_entry: every kind of key, every state of map");
  const unsigned all = (1u << KINDS) - 1;
  const unsigned sizes[] = {0, 1, 8, 300, 5000};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    entry_all(sizes[i], all);
    entry_all(sizes[i], 1u << KIND_U64);
    entry_all(sizes[i], 1u << KIND_I64);
    entry_all(sizes[i], 1u << KIND_STRING);
    entry_all(sizes[i], 1u << KIND_LONG);
    entry_all(sizes[i], 1u << KIND_BYTES);
  }

  TEST_SECTION("slate_entry: counting words with one lookup each");
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  static const char* const words[] = {"the", "cat", "the", "hat", "the", "cat"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
    void** v;
    if (slate_entry(&m, words[i], &v, NULL) == SLATE_OK) *v = (void*)((uintptr_t)*v + 1);
  }
  void* n = NULL;
  CHECK_EQ_INT(slate_get(&m, "the", &n), SLATE_OK);
  CHECK_EQ_PTR(n, V(3));
  CHECK_EQ_INT(slate_get(&m, "cat", &n), SLATE_OK);
  CHECK_EQ_PTR(n, V(2));
  CHECK_EQ_INT(slate_get(&m, "hat", &n), SLATE_OK);
  CHECK_EQ_PTR(n, V(1));
  CHECK_EQ_U64(slate_length(&m), 3);

  TEST_SECTION("slate_entry: the pointer lives until a key is added or removed");
  void** p = NULL;
  CHECK_EQ_INT(slate_entry(&m, "cat", &p, NULL), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "hat", V(10)), SLATE_OK); /* a set of a present key */
  void* got = NULL;
  CHECK_EQ_INT(slate_get(&m, "the", &got), SLATE_OK);   /* a read */
  *p = V(20);
  CHECK_EQ_INT(slate_get(&m, "cat", &got), SLATE_OK);
  CHECK_EQ_PTR(got, V(20));

  TEST_SECTION("slate_entry: arguments");
  void** v = (void**)SENTINEL;
  int inserted = 7;
  CHECK_EQ_INT(slate_entry(NULL, "k", &v, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_entry_bytes(NULL, "k", 1, &v, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_entry_i64(NULL, 1, &v, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_entry_u64(NULL, 1, &v, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_entry(&m, NULL, &v, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_entry_bytes(&m, NULL, 2, &v, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_entry(&m, "k", NULL, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_entry_bytes(&m, "k", 1, NULL, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_entry_i64(&m, 1, NULL, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_entry_u64(&m, 1, NULL, &inserted), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, (void**)SENTINEL);
  CHECK_EQ_INT(inserted, 7);
  CHECK_EQ_U64(slate_length(&m), 3);
  CHECK_EQ_INT(slate_entry_bytes(&m, NULL, 0, &v, &inserted), SLATE_OK); /* the empty key */
  CHECK_EQ_INT(inserted, 1);
  CHECK_EQ_PTR(*v, NULL);
  CHECK_EQ_U64(slate_length(&m), 4);

  TEST_SECTION("slate_entry inside the map's own walk");
  slate_s other;
  CHECK_EQ_INT(slate(&other), SLATE_OK);
  entry_walk_s w;
  memset(&w, 0, sizeof w);
  w.self = &m;
  w.other = &other;
  w.last = 4;
  CHECK_EQ_INT(slate_each(&m, entry_inside_cb, &w), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(w.calls, 4);
  CHECK_EQ_INT(w.present_ok, 4);
  CHECK_EQ_INT(w.inserted_new, 1);
  CHECK_EQ_INT(w.entered_other, 4);
  CHECK_EQ_U64(slate_length(&m), 5);
  CHECK_EQ_U64(slate_length(&other), 4);
  static const char* const names[] = {"the", "cat", "hat"};
  static const uintptr_t values[] = {3 + 100, 20 + 100, 10 + 100};
  for (size_t i = 0; i < 3; i++) {
    got = NULL;
    CHECK_EQ_INT(slate_get(&m, names[i], &got), SLATE_OK);
    CHECK_EQ_PTR(got, V(values[i]));
  }
  CHECK_EQ_INT(slate_get_bytes(&m, NULL, 0, &got), SLATE_OK);
  CHECK_EQ_PTR(got, V(100));
  CHECK_EQ_INT(slate_get(&m, "brand new", &got), SLATE_OK);
  CHECK_EQ_PTR(got, V(99));
  CHECK_MAP_OK(&m);
  slate_free(&m);
  slate_free(&other);
}

/* ------------------------------------------------------------------------ */
/* slate_take*                                                               */
/* ------------------------------------------------------------------------ */

/* n keys (kinds from `kinds`, a bit mask), every third deleted, then every
   key taken in a shuffled order and taken again. */
static void take_all(unsigned n, unsigned kinds) {
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  ekey_s* keys = key_set(n, kinds);
  unsigned char* present = (unsigned char*)calloc(n + 1, 1);
  unsigned* order = (unsigned*)malloc((n + 1) * sizeof *order);
  if (!CHECK(keys && present && order)) return;
  for (unsigned i = 0; i < n; i++) {
    present[i] = set_k(&m, &keys[i], V(i + 1)) == SLATE_OK;
    CHECK(present[i]);
    order[i] = i;
  }
  uint64_t expected = n;
  for (unsigned i = 0; i < n; i += 3) {
    CHECK_EQ_INT(slate_delete_bytes(&m, "no such key", 11), SLATE_ERROR_NOT_FOUND);
    int rc = keys[i].kind == KIND_I64   ? slate_delete_i64(&m, keys[i].i64)
             : keys[i].kind == KIND_U64 ? slate_delete_u64(&m, keys[i].u64)
                                        : slate_delete_bytes(&m, keys[i].length ? keys[i].bytes : NULL,
                                                             keys[i].length);
    CHECK_EQ_INT(rc, SLATE_OK);
    present[i] = 0;
    expected--;
  }
  CHECK_EQ_U64(slate_length(&m), expected);
  uint64_t s = n * 31u + kinds;
  for (unsigned i = n; i > 1; i--) {
    unsigned j = (unsigned)(lcg(&s) % i), t = order[i - 1];
    order[i - 1] = order[j];
    order[j] = t;
  }
  unsigned bad = 0;
  for (unsigned r = 0; r < n; r++) {
    unsigned i = order[r];
    void* v = SENTINEL;
    int rc = take_k(&m, &keys[i], &v);
    if (present[i]) {
      if (rc != SLATE_OK || v != V(i + 1)) bad++;
      expected--;
      void* again = SENTINEL;
      if (take_k(&m, &keys[i], &again) != SLATE_ERROR_NOT_FOUND || again != SENTINEL) bad++;
      if (get_k(&m, &keys[i], NULL) != SLATE_ERROR_NOT_FOUND) bad++;
    } else if (rc != SLATE_ERROR_NOT_FOUND || v != SENTINEL) {
      bad++;
    }
    if (slate_length(&m) != expected) bad++;
    if (r % 97 == 0) CHECK_MAP_OK(&m);
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_MAP_OK(&m);
  /* and the emptied map works as ever */
  if (n > 0) {
    CHECK_EQ_INT(set_k(&m, &keys[0], V(7)), SLATE_OK);
    CHECK_EQ_INT(take_k(&m, &keys[0], NULL), SLATE_OK);
  }
  slate_free(&m);
  free(keys);
  free(present);
  free(order);
}

/* Inside the map's own walk (SPEC 3c): a take of the given key removes it
 * and hands its value back, and the walk goes on; a take of an absent key
 * changes nothing; with `other_key`, the first callback takes another key
 * instead, which stops the walk with INVALID. */
typedef struct take_walk_s {
  slate_s* self;
  slate_s* other;
  int other_key;
  int calls, taken_given, absent_ok, taken_other_key, taken_other_map;
} take_walk_s;

static int take_inside_cb(const char* key, uint32_t length, void* value, void* data) {
  take_walk_s* w = (take_walk_s*)data;
  void* v = SENTINEL;
  w->calls++;
  if (w->other_key) {
    /* u64 key 1, or i64 key -1 when 1 is the given one */
    unsigned char one[10];
    encode_u64(one, 1);
    int given_is_one = length == 10 && memcmp(key, one, 10) == 0;
    int rc = given_is_one ? slate_take_i64(w->self, -1, &v) : slate_take_u64(w->self, 1, &v);
    w->taken_other_key += rc == SLATE_OK && v == V(1);
    return 0;
  }
  w->absent_ok += slate_take(w->self, "absent", &v) == SLATE_ERROR_NOT_FOUND && v == SENTINEL;
  w->taken_given += slate_take_bytes(w->self, key, length, &v) == SLATE_OK && v == value;
  v = SENTINEL;
  w->taken_other_map += slate_take_bytes(w->other, key, length, &v) == SLATE_OK && v == V(9);
  return 0;
}

void test_take(void) {
  TEST_SECTION("slate_take: every kind of key, every state of map");
  const unsigned all = (1u << KINDS) - 1;
  const unsigned sizes[] = {0, 1, 8, 300, 5000};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    take_all(sizes[i], all);
    take_all(sizes[i], 1u << KIND_U64);    /* an integer table */
    take_all(sizes[i], 1u << KIND_I64);
    take_all(sizes[i], 1u << KIND_STRING); /* inline keys only */
    take_all(sizes[i], 1u << KIND_LONG);   /* heap keys only */
  }

  TEST_SECTION("slate_take: arguments");
  slate_s m;
  void* v = SENTINEL;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_take(NULL, "k", &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_take_bytes(NULL, "k", 1, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_take_i64(NULL, 1, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_take_u64(NULL, 1, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_take(&m, NULL, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_take_bytes(&m, NULL, 3, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_take_bytes(&m, NULL, 0, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_set_bytes(&m, NULL, 0, V(5)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "k", V(6)), SLATE_OK);
  CHECK_EQ_INT(slate_take_bytes(&m, NULL, 0, &v), SLATE_OK); /* the empty key */
  CHECK_EQ_PTR(v, V(5));
  CHECK_EQ_INT(slate_take(&m, "k", NULL), SLATE_OK); /* value may be NULL */
  CHECK_EQ_U64(slate_length(&m), 0);
  /* a take that empties the map gives it a fresh seed, as a delete does */
  CHECK_EQ_INT(slate_set_u64(&m, 1, V(1)), SLATE_OK);
  uint64_t seed = info_of(&m).seed;
  CHECK_EQ_INT(slate_take_u64(&m, 1, &v), SLATE_OK);
  CHECK_NE_U64(info_of(&m).seed, seed);

  TEST_SECTION("slate_take inside the map's own walk");
  slate_s other;
  CHECK_EQ_INT(slate(&other), SLATE_OK);
  for (int pass = 0; pass < 2; pass++) {
    for (unsigned i = 0; i < 40; i++) {
      ekey_s k = ekey(KIND_STRING, i);
      CHECK_EQ_INT(set_k(&m, &k, V(9)), SLATE_OK);
      CHECK_EQ_INT(set_k(&other, &k, V(9)), SLATE_OK);
    }
    CHECK_EQ_INT(slate_set_u64(&m, 1, V(1)), SLATE_OK);
    CHECK_EQ_INT(slate_set_i64(&m, -1, V(1)), SLATE_OK);
    take_walk_s w;
    memset(&w, 0, sizeof w);
    w.self = &m;
    w.other = &other;
    w.other_key = pass;
    if (pass == 0) {
      /* every callback takes the key it was given: each entry once, and
         the map ends empty */
      CHECK_EQ_INT(slate_each(&m, take_inside_cb, &w), SLATE_OK);
      CHECK_EQ_INT(w.calls, 42);
      CHECK_EQ_INT(w.taken_given, 42);
      CHECK_EQ_INT(w.absent_ok, 42);
      CHECK_EQ_INT(w.taken_other_map, 40); /* another map: taken */
      CHECK_EQ_U64(slate_length(&m), 0);
      CHECK_EQ_U64(slate_length(&other), 0);
    } else {
      CHECK_EQ_INT(slate_each(&m, take_inside_cb, &w), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(w.calls, 1);
      CHECK_EQ_INT(w.taken_other_key, 1);
      CHECK_EQ_U64(slate_length(&m), 41);
    }
    CHECK_MAP_OK(&m);
    CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
    CHECK_EQ_INT(slate_clear(&other), SLATE_OK);
  }
  slate_free(&m);
  slate_free(&other);
}

/* ------------------------------------------------------------------------ */
/* slate_key_to_i64 / slate_key_to_u64                                       */
/* ------------------------------------------------------------------------ */

typedef struct decode_walk_s {
  unsigned i64s, u64s, strings, bad;
} decode_walk_s;

static int decode_cb(const char* key, uint32_t length, void* value, void* data) {
  decode_walk_s* d = (decode_walk_s*)data;
  int64_t i = 0;
  uint64_t u = 0;
  int ri = slate_key_to_i64(key, length, &i), ru = slate_key_to_u64(key, length, &u);
  uintptr_t want = (uintptr_t)value;
  if (ri == SLATE_OK) {
    d->i64s++;
    if (ru != SLATE_ERROR_NOT_FOUND || u != 0 || length != SLATE_INT_KEY_LENGTH ||
        (uintptr_t)(uint64_t)i != want)
      d->bad++;
  } else if (ru == SLATE_OK) {
    d->u64s++;
    if (ri != SLATE_ERROR_NOT_FOUND || i != 0 || length != SLATE_INT_KEY_LENGTH || (uintptr_t)u != want)
      d->bad++;
  } else {
    d->strings++;
    if (ri != SLATE_ERROR_NOT_FOUND || ru != SLATE_ERROR_NOT_FOUND) d->bad++;
  }
  return 0;
}

void test_key_decoding(void) {
  TEST_SECTION("slate_key_to_i64 / slate_key_to_u64");
  CHECK_EQ_INT(SLATE_INT_KEY_LENGTH, 10);
  const int64_t is[] = {INT64_MIN, -1, 0, 1, INT64_MAX, -123456789};
  const uint64_t us[] = {0, 1, UINT64_MAX, UINT64_C(0x0102030405060708)};
  for (size_t k = 0; k < sizeof is / sizeof *is; k++) {
    unsigned char e[10];
    int64_t out = 42;
    uint64_t other = 42;
    encode_i64(e, is[k]);
    CHECK_EQ_INT(slate_key_to_i64((const char*)e, 10, &out), SLATE_OK);
    CHECK_EQ_INT(out == is[k], 1);
    CHECK_EQ_INT(slate_key_to_u64((const char*)e, 10, &other), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_U64(other, 42);
  }
  for (size_t k = 0; k < sizeof us / sizeof *us; k++) {
    unsigned char e[10];
    uint64_t out = 42;
    int64_t other = 42;
    encode_u64(e, us[k]);
    CHECK_EQ_INT(slate_key_to_u64((const char*)e, 10, &out), SLATE_OK);
    CHECK_EQ_U64(out, us[k]);
    CHECK_EQ_INT(slate_key_to_i64((const char*)e, 10, &other), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_INT(other == 42, 1);
  }
  /* not an encoding: wrong length, first byte, tag; the empty key */
  unsigned char e[12];
  uint64_t u = 42;
  int64_t i = 42;
  encode_u64(e, 5);
  e[10] = e[11] = 0;
  CHECK_EQ_INT(slate_key_to_u64((const char*)e, 9, &u), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_key_to_u64((const char*)e, 11, &u), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_key_to_u64(NULL, 0, &u), SLATE_ERROR_NOT_FOUND);
  e[1] = 0x03;
  CHECK_EQ_INT(slate_key_to_u64((const char*)e, 10, &u), SLATE_ERROR_NOT_FOUND);
  e[1] = 0x02;
  e[0] = 0x01;
  CHECK_EQ_INT(slate_key_to_u64((const char*)e, 10, &u), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(u, 42);
  /* arguments */
  e[0] = 0x00;
  CHECK_EQ_INT(slate_key_to_u64((const char*)e, 10, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_key_to_i64((const char*)e, 10, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_key_to_u64(NULL, 10, &u), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_key_to_i64(NULL, 10, &i), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(u, 42);
  CHECK_EQ_INT(i == 42, 1);

  /* every key a walk shows decodes as what was set */
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (unsigned k = 0; k < 2000; k++) {
    CHECK_EQ_INT(slate_set_i64(&m, -(int64_t)k * 977, V((uint64_t)(-(int64_t)k * 977))), SLATE_OK);
    CHECK_EQ_INT(slate_set_u64(&m, (uint64_t)k << 40, V((uint64_t)k << 40)), SLATE_OK);
    ekey_s s = ekey(KIND_STRING, k);
    CHECK_EQ_INT(set_k(&m, &s, V(1)), SLATE_OK);
  }
  decode_walk_s d = {0, 0, 0, 0};
  CHECK_EQ_INT(slate_each(&m, decode_cb, &d), SLATE_OK);
  CHECK_EQ_INT(d.i64s, 2000);
  CHECK_EQ_INT(d.u64s, 2000);
  CHECK_EQ_INT(d.strings, 2000);
  CHECK_EQ_INT(d.bad, 0);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* slate_pin_seed                                                            */
/* ------------------------------------------------------------------------ */

/* The same calls: growth to many tables, deletes, inserts again. */
static void same_calls(slate_s* m) {
  for (unsigned i = 0; i < 3000; i++) {
    ekey_s k = ekey((int)(i % KINDS), i);
    CHECK_EQ_INT(set_k(m, &k, V(i + 1)), SLATE_OK);
  }
  for (unsigned i = 0; i < 3000; i += 7) {
    ekey_s k = ekey((int)(i % KINDS), i);
    CHECK_EQ_INT(take_k(m, &k, NULL), SLATE_OK);
  }
  for (unsigned i = 3000; i < 3300; i++) {
    ekey_s k = ekey((int)(i % KINDS), i);
    CHECK_EQ_INT(set_k(m, &k, V(i + 1)), SLATE_OK);
  }
}

static int walked_by(const slate_s* a, const slate_s* b) {
  collect_s ca = collect(a), cb = collect(b);
  int same = same_order(&ca, &cb);
  free(ca.recs);
  free(cb.recs);
  return same;
}

typedef struct pin_walk_s {
  slate_s* self;
  slate_s* fresh;
  int refused, pinned;
} pin_walk_s;

static int pin_inside_cb(const char* key, uint32_t length, void* value, void* data) {
  pin_walk_s* w = (pin_walk_s*)data;
  (void)key, (void)length, (void)value;
  w->refused += slate_pin_seed(w->self, 1) == SLATE_ERROR_INVALID;
  w->pinned += slate_pin_seed(w->fresh, 2) == SLATE_OK;
  return 0;
}

void test_pin_seed(void) {
  TEST_SECTION("slate_pin_seed: the same calls walk in the same order");
  slate_s a, b, c;
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_INT(slate(&b), SLATE_OK);
  CHECK_EQ_INT(slate(&c), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(NULL, 1), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_pin_seed(&a, 0x5EED), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(&b, 0x5EED), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(&c, 0x5EEE), SLATE_OK);
  CHECK_EQ_U64(info_of(&a).seed, 0x5EED);
  same_calls(&a);
  same_calls(&b);
  same_calls(&c);
  CHECK(info_of(&a).tables > 1);
  CHECK(walked_by(&a, &b));
  CHECK(!walked_by(&a, &c)); /* another seed, another order */

  TEST_SECTION("slate_pin_seed: only on a map that holds no memory");
  CHECK_EQ_INT(slate_pin_seed(&a, 1), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(info_of(&a).seed, 0x5EED);
  /* the pin survives emptying, clear and free */
  CHECK_EQ_INT(slate_clear(&a), SLATE_OK);
  CHECK_EQ_U64(info_of(&a).seed, 0x5EED);
  CHECK_EQ_INT(slate_pin_seed(&a, 1), SLATE_ERROR_INVALID); /* clear keeps the tables */
  slate_free(&a);
  CHECK_EQ_U64(info_of(&a).seed, 0x5EED);
  same_calls(&a);
  CHECK(walked_by(&a, &b));
  for (unsigned i = 0; i < 3300; i++) {
    ekey_s k = ekey((int)(i % KINDS), i);
    (void)take_k(&a, &k, NULL);
  }
  CHECK_EQ_U64(slate_length(&a), 0);
  CHECK_EQ_U64(info_of(&a).seed, 0x5EED);
  CHECK_EQ_INT(slate_pin_seed(&a, 1), SLATE_ERROR_INVALID); /* emptied, tables kept */
  CHECK_EQ_INT(slate_compact(&a), SLATE_OK);                /* gives them back */
  CHECK_EQ_INT(slate_pin_seed(&a, 0x5EED), SLATE_OK);
  same_calls(&a);
  CHECK(walked_by(&a, &b));
  CHECK_EQ_INT(slate_delete_if(&a, always_cb, NULL), SLATE_OK);
  CHECK_EQ_U64(info_of(&a).seed, 0x5EED);

  TEST_SECTION("slate_pin_seed: clones keep it, slate() drops it");
  slate_s copy;
  CHECK_EQ_INT(slate_clone(&copy, &b), SLATE_OK);
  CHECK(walked_by(&copy, &b));
  slate_free(&copy);
  CHECK_EQ_U64(info_of(&copy).seed, 0x5EED);
  same_calls(&copy);
  CHECK(walked_by(&copy, &b));
  slate_free(&copy);
  CHECK_EQ_INT(slate(&copy), SLATE_OK);
  same_calls(&copy);
  CHECK_NE_U64(info_of(&copy).seed, 0x5EED);
  CHECK(!walked_by(&copy, &b));
  slate_free(&copy);

  TEST_SECTION("slate_pin_seed: seed 0, and inside walks");
  slate_s z;
  CHECK_EQ_INT(slate(&z), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(&z, 0), SLATE_OK);
  same_calls(&z);
  CHECK_EQ_U64(info_of(&z).seed, 0);
  CHECK_EQ_INT(slate_clear(&z), SLATE_OK);
  CHECK_EQ_U64(info_of(&z).seed, 0);
  /* a zero-filled map pinned like any other */
  slate_s zero;
  memset(&zero, 0, sizeof zero);
  CHECK_EQ_INT(slate_pin_seed(&zero, 0x5EED), SLATE_OK);
  same_calls(&zero);
  CHECK(walked_by(&zero, &b));
  slate_free(&zero);
  slate_s fresh;
  CHECK_EQ_INT(slate(&fresh), SLATE_OK);
  pin_walk_s w = {&b, &fresh, 0, 0};
  CHECK_EQ_INT(slate_each(&b, pin_inside_cb, &w), SLATE_OK);
  CHECK_EQ_INT(w.refused, (int)slate_length(&b));
  CHECK_EQ_INT(w.pinned, (int)slate_length(&b));
  CHECK_EQ_U64(info_of(&b).seed, 0x5EED);
  CHECK_EQ_U64(info_of(&fresh).seed, 2);
  slate_free(&z);
  slate_free(&a);
  slate_free(&b);
  slate_free(&c);
  slate_free(&fresh);
}
