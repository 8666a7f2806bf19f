/*
 * recipes.c -- the states the goldens hold, each built by the same calls
 * on every target: slotmaps from a start image with a chosen first version
 * (fresh, after churn with a free list, cleared, freed into a later era,
 * sorted, three columns of odd sizes, with retired slots, in the era below
 * the first, with no era left), sparse sets (one column, membership only,
 * three columns; keys of slot indices up to 2^32 - 1) and maps with a
 * pinned seed (every kind of key, integer values, a value above 2^32, a
 * codec's values). Each records what it expects of every key it issued.
 * Row and value bytes are defined byte by byte, so that they are the same
 * on little- and big-endian targets.
 */
#include "golden.h"

#include <stdlib.h>
#include <string.h>

/* Slotmaps start here: any odd version is a valid first one. */
#define START_LOW UINT32_C(0x00000F01)
/* ... and here, eight reuses below the top, so that slots retire. */
#define START_HIGH UINT32_C(0xFFFFFFF1)
#define SEED UINT64_C(0x5EED00C0FFEE1234)

static const uint32_t ONE[1] = {8};
static const uint32_t RETIRING[1] = {4};
static const uint32_t ODD3[3] = {3, 255, 1};

void row_bytes(unsigned char* out, uint64_t id, uint32_t column, uint32_t size) {
  /* Byte 0 is a bijection of the id (mod 256), so the sorts' order is
     total for the ids used here. */
  for (uint32_t j = 0; j < size; j++) out[j] = (unsigned char)(id * 37u + column * 101u + j * 7u + 11u);
}

int less_bytes(const void* a, const void* b, void* data) {
  return memcmp(a, b, *(const uint32_t*)data) < 0;
}

static expect_s* add_expect(state_s* st) {
  if (st->count >= MAX_ENTRIES) abort();
  expect_s* e = &st->expect[st->count++];
  memset(e, 0, sizeof *e);
  e->live = 1;
  return e;
}

static uint32_t packed_row(const state_s* st, uint64_t id, unsigned char* row) {
  uint32_t at = 0;
  for (uint32_t c = 0; c < st->columns; c++) {
    row_bytes(row + at, id, c, st->sizes[c]);
    at += st->sizes[c];
  }
  return at;
}

/* ---- slotmaps ----------------------------------------------------------------- */

static void sm_begin(state_s* st, const uint32_t* sizes, uint32_t columns, uint32_t start) {
  st->kind = SLATE_SNAPSHOT_SLOTMAP;
  st->columns = columns;
  memcpy(st->sizes, sizes, columns * sizeof *sizes);
  CHECK_EQ_INT(slotmap_columns(&st->sm, sizes, columns), SLATE_OK);
  image_s img = slotmap_start_image(sizes, columns, start);
  CHECK_EQ_INT(slotmap_load(&st->sm, img.bytes, img.length), SLATE_OK);
  image_free(&img);
}

static uint32_t sm_insert(state_s* st, uint64_t id) {
  unsigned char row[3 * 256];
  packed_row(st, id, row);
  expect_s* e = add_expect(st);
  e->id = id;
  CHECK_EQ_INT(slotmap_insert(&st->sm, row, &e->key), SLATE_OK);
  return st->count - 1;
}

static void sm_erase(state_s* st, uint32_t index) {
  CHECK_EQ_INT(slotmap_erase(&st->sm, st->expect[index].key), SLATE_OK);
  st->expect[index].live = 0;
}

static void all_dead(state_s* st) {
  for (uint32_t i = 0; i < st->count; i++) st->expect[i].live = 0;
}

/* 24 rows, every third erased (last first, so the free list runs from
   slot 0 up), four inserts that reuse slots, two more erases. */
static void sm_churn(state_s* st) {
  for (uint64_t id = 0; id < 24; id++) sm_insert(st, id);
  for (int i = 21; i >= 0; i -= 3) sm_erase(st, (uint32_t)i);
  for (uint64_t id = 24; id < 28; id++) sm_insert(st, id);
  sm_erase(st, 1);
  sm_erase(st, 5);
}

static void sm_sort(state_s* st) {
  CHECK_EQ_INT(slotmap_sort(&st->sm, less_bytes, &st->sizes[0]), SLATE_OK);
}

static void b_slotmap_fresh(state_s* st) { sm_begin(st, ONE, 1, START_LOW); }

static void b_slotmap_churn(state_s* st) {
  sm_begin(st, ONE, 1, START_LOW);
  sm_churn(st);
}

static void b_slotmap_cleared(state_s* st) {
  b_slotmap_churn(st);
  CHECK_EQ_INT(slotmap_clear(&st->sm), SLATE_OK);
  all_dead(st);
}

static void b_slotmap_freed(state_s* st) {
  b_slotmap_churn(st);
  slotmap_free(&st->sm);
  all_dead(st);
}

/* Freed, then filled again: the era above the first. */
static void b_slotmap_later(state_s* st) {
  b_slotmap_freed(st);
  for (uint64_t id = 100; id < 106; id++) sm_insert(st, id);
  sm_erase(st, st->count - 4);
}

static void b_slotmap_sorted(state_s* st) {
  b_slotmap_churn(st);
  sm_sort(st);
}

static void b_slotmap_columns(state_s* st) {
  sm_begin(st, ODD3, 3, START_LOW);
  for (uint64_t id = 0; id < 12; id++) sm_insert(st, id);
  sm_erase(st, 4);
  sm_erase(st, 0);
  sm_erase(st, 9);
  sm_insert(st, 12);
  sm_sort(st);
}

/* Three rows; the newest one erased and replaced ten times, so its slot
   passes the era's last version and retires, and a new slot follows. */
static void b_slotmap_retired(state_s* st) {
  sm_begin(st, RETIRING, 1, START_HIGH);
  for (uint64_t id = 0; id < 3; id++) sm_insert(st, id);
  for (uint64_t id = 3; id < 13; id++) {
    sm_erase(st, st->count - 1);
    sm_insert(st, id);
  }
  int retired = 0;
  for (uint32_t i = 0; i < st->count; i++) retired |= (uint32_t)(st->expect[i].key >> 32) == 0xFFFFFFFFu;
  CHECK(retired); /* a slot reached the era's last version */
}

/* Retired, then freed: no room above, so the next era lies below the
   first, from version 1. */
static void b_slotmap_below(state_s* st) {
  b_slotmap_retired(st);
  slotmap_free(&st->sm);
  all_dead(st);
  for (uint64_t id = 200; id < 204; id++) {
    uint32_t i = sm_insert(st, id);
    CHECK_EQ_U64(st->expect[i].key >> 32, 1);
  }
  sm_erase(st, st->count - 4);
}

/* Below, then freed: no era is left, and an insert is FULL. */
static void b_slotmap_exhausted(state_s* st) {
  b_slotmap_below(st);
  slotmap_free(&st->sm);
  all_dead(st);
  slotmap_key k = 0;
  CHECK_EQ_INT(slotmap_insert(&st->sm, NULL, &k), SLATE_ERROR_FULL);
}

/* ---- sparse sets -------------------------------------------------------------- */

static uint64_t set_key(uint32_t slot, uint32_t version) { return (uint64_t)version << 32 | slot; }

/* Slot indices from 0 to the top of the index, spread over its pages. */
static const uint32_t SLOTS[] = {0,          1,          2,          63,         64,
                                 4095,       4096,       65535,      65536,      1u << 20,
                                 0x7FFFFFFF, 0x80000000, 0xFFFFFFFD, 0xFFFFFFFE, 0xFFFFFFFF};
enum { SLOT_COUNT = sizeof SLOTS / sizeof SLOTS[0] };

static void sp_begin(state_s* st, const uint32_t* sizes, uint32_t columns) {
  st->kind = SLATE_SNAPSHOT_SPARSE;
  st->columns = columns;
  if (columns) memcpy(st->sizes, sizes, columns * sizeof *sizes);
  if (columns == 0) {
    CHECK_EQ_INT(slotmap_sparse(&st->sp, 0), SLATE_OK);
  } else {
    CHECK_EQ_INT(slotmap_sparse_columns(&st->sp, sizes, columns), SLATE_OK);
  }
}

/* Sets `key` to the row of `id`; a key already expected is overwritten,
   one of the same slot and another version takes its row over. */
static void sp_set(state_s* st, uint64_t key, uint64_t id) {
  unsigned char row[3 * 256];
  packed_row(st, id, row);
  CHECK_EQ_INT(slotmap_sparse_set(&st->sp, NULL, key, st->columns ? row : NULL), SLATE_OK);
  for (uint32_t i = 0; i < st->count; i++) {
    if (st->expect[i].key == key && st->expect[i].live) {
      st->expect[i].id = id;
      return;
    }
    if ((uint32_t)st->expect[i].key == (uint32_t)key) st->expect[i].live = 0;
  }
  expect_s* e = add_expect(st);
  e->key = key;
  e->id = id;
}

static void sp_erase(state_s* st, uint32_t index) {
  CHECK_EQ_INT(slotmap_sparse_erase(&st->sp, st->expect[index].key), SLATE_OK);
  st->expect[index].live = 0;
}

static void sp_churn(state_s* st) {
  for (uint32_t i = 0; i < SLOT_COUNT; i++) sp_set(st, set_key(SLOTS[i], 2 * i + 1), i);
  sp_set(st, set_key(SLOTS[3], 7), 40);                /* overwrite */
  sp_erase(st, 0);                                     /* swap-and-pop */
  sp_erase(st, 12);
  sp_set(st, set_key(SLOTS[9], 0xFFFFFFFF), 41);       /* another version of slot 2^20 */
  sp_set(st, set_key(SLOTS[0], 0x80000001), 42);       /* slot 0 again */
  sp_erase(st, 6);
}

static void b_sparse_column(state_s* st) {
  static const uint32_t twelve[1] = {12};
  sp_begin(st, twelve, 1);
  sp_churn(st);
}

static void b_sparse_member(state_s* st) {
  sp_begin(st, NULL, 0);
  sp_churn(st);
}

static void b_sparse_columns(state_s* st) {
  sp_begin(st, ODD3, 3);
  sp_churn(st);
  CHECK_EQ_INT(slotmap_sparse_sort(&st->sp, less_bytes, &st->sizes[0]), SLATE_OK);
}

static void b_sparse_cleared(state_s* st) {
  b_sparse_column(st);
  CHECK_EQ_INT(slotmap_sparse_clear(&st->sp), SLATE_OK);
  all_dead(st);
}

/* ---- maps ------------------------------------------------------------------------ */

static void map_begin(state_s* st, int codec) {
  st->kind = SLATE_SNAPSHOT_MAP;
  st->codec = codec;
  CHECK_EQ_INT(slate(&st->map), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(&st->map, SEED), SLATE_OK);
}

/* The value a recipe stores for `value`: the integer, or the codec's blob
   of it. */
static void* value_of(const state_s* st, uint64_t value) {
  if (!st->codec) return (void*)(uintptr_t)value;
  blob_s* b = (blob_s*)malloc(sizeof *b);
  if (b == NULL) abort();
  b->bytes = (unsigned char*)malloc(BLOB_MAX);
  if (b->bytes == NULL) abort();
  blob_for(value, b->bytes, &b->length);
  return b;
}

static void free_value(const state_s* st, void* value) {
  if (!st->codec) return;
  blob_s* b = (blob_s*)value;
  free(b->bytes);
  free(b);
}

/* Sets an entry, replacing any expectation of the same key. */
static void map_put(state_s* st, int type, const void* key, uint32_t key_length, uint64_t int_key,
                    uint64_t value) {
  expect_s* e = NULL;
  for (uint32_t i = 0; i < st->count; i++) {
    expect_s* x = &st->expect[i];
    if (x->key_type == type && x->key == int_key && x->key_length == key_length &&
        (key_length == 0 || memcmp(x->bytes, key, key_length) == 0)) {
      e = x;
    }
  }
  if (e == NULL) e = add_expect(st);
  e->key_type = type;
  e->key = int_key;
  e->key_length = key_length;
  if (key_length) memcpy(e->bytes, key, key_length);
  e->id = value;
  e->live = 1;
  void* v = value_of(st, value);
  void* old = NULL;
  void** slot = NULL;
  int inserted = 0;
  int rc;
  switch (type) {
    case KEY_BYTES_KEY: rc = slate_entry_bytes(&st->map, key, key_length, &slot, &inserted); break;
    case KEY_STRING: rc = slate_entry(&st->map, (const char*)key, &slot, &inserted); break;
    case KEY_I64: rc = slate_entry_i64(&st->map, (int64_t)int_key, &slot, &inserted); break;
    default: rc = slate_entry_u64(&st->map, int_key, &slot, &inserted); break;
  }
  CHECK_EQ_INT(rc, SLATE_OK);
  if (slot == NULL) abort();
  old = *slot;
  *slot = v;
  if (!inserted) free_value(st, old);
}

static void map_str(state_s* st, const char* key, uint64_t value) {
  map_put(st, KEY_STRING, key, (uint32_t)strlen(key), 0, value);
}
static void map_bytes(state_s* st, const void* key, uint32_t n, uint64_t value) {
  map_put(st, KEY_BYTES_KEY, key, n, 0, value);
}
static void map_i64(state_s* st, int64_t key, uint64_t value) {
  map_put(st, KEY_I64, NULL, 0, (uint64_t)key, value);
}
static void map_u64(state_s* st, uint64_t key, uint64_t value) { map_put(st, KEY_U64, NULL, 0, key, value); }

/* Deletes expectation `index`'s key (its value freed). */
static void map_delete(state_s* st, uint32_t index) {
  expect_s* e = &st->expect[index];
  void* v = NULL;
  int rc;
  switch (e->key_type) {
    case KEY_BYTES_KEY: rc = slate_take_bytes(&st->map, e->bytes, e->key_length, &v); break;
    case KEY_STRING: {
      char s[KEY_BYTES + 1];
      memcpy(s, e->bytes, e->key_length);
      s[e->key_length] = 0;
      rc = slate_take(&st->map, s, &v);
      break;
    }
    case KEY_I64: rc = slate_take_i64(&st->map, (int64_t)e->key, &v); break;
    default: rc = slate_take_u64(&st->map, e->key, &v); break;
  }
  CHECK_EQ_INT(rc, SLATE_OK);
  e->live = 0;
  free_value(st, v);
}

static const unsigned char NULS[5] = {'a', 0, 'b', 0, 0};
static const unsigned char ZERO[1] = {0};
static const unsigned char FF16[16] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                       0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
/* Ten bytes that are no integer key's encoding (0x03 is neither kind). */
static const unsigned char NOT_INT[10] = {0, 3, 1, 2, 3, 4, 5, 6, 7, 8};

/* Every kind of key: u64 and i64 (their extremes), strings, bytes with
   NULs, the empty key; some deleted, one replaced. */
static void map_keys(state_s* st, uint64_t (*value)(uint32_t)) {
  uint32_t n = 0;
  map_u64(st, 0, value(n++));
  map_u64(st, 1, value(n++));
  map_u64(st, UINT32_MAX, value(n++));
  map_u64(st, UINT64_C(1) << 32, value(n++));
  map_u64(st, UINT64_MAX, value(n++));
  map_i64(st, 0, value(n++));
  map_i64(st, -1, value(n++));
  map_i64(st, INT64_MIN, value(n++));
  map_i64(st, INT64_MAX, value(n++));
  map_i64(st, 42, value(n++));
  map_str(st, "alpha", value(n++));
  map_str(st, "beta", value(n++));
  map_str(st, "key 7", value(n++));
  map_str(st, "gamma delta", value(n++));
  map_bytes(st, NULS, sizeof NULS, value(n++));
  map_bytes(st, ZERO, sizeof ZERO, value(n++));
  map_bytes(st, NULL, 0, value(n++));
  map_bytes(st, FF16, sizeof FF16, value(n++));
  map_bytes(st, NOT_INT, sizeof NOT_INT, value(n++));
  for (uint32_t i = 0; i < 12; i++) map_u64(st, UINT64_C(1000003) * i + 5, value(n++));
  map_delete(st, 11); /* "beta" */
  map_delete(st, 6);  /* -1 */
  map_delete(st, 1);  /* u64 1 */
  map_delete(st, 15); /* the key "\0" */
  map_str(st, "alpha", value(n++));
}

/* Integer values: 0, 1, the 32-bit maximum and small counts. */
static uint64_t int_value(uint32_t n) {
  switch (n % 4) {
    case 0: return 0;
    case 1: return UINT32_MAX;
    case 2: return n;
    default: return UINT64_C(1) << (n % 32);
  }
}

static void b_map_int(state_s* st) {
  map_begin(st, 0);
  map_keys(st, int_value);
}

#if UINTPTR_MAX > 0xFFFFFFFFu
static uint64_t wide_value(uint32_t n) {
  switch (n % 4) {
    case 0: return UINT64_C(1) << 32;
    case 1: return UINT64_MAX;
    case 2: return 0;
    default: return UINT32_MAX;
  }
}

static void b_map_wide(state_s* st) {
  map_begin(st, 0);
  for (uint32_t i = 0; i < 4; i++) map_u64(st, i, wide_value(i));
  map_str(st, "wide", UINT64_C(0x123456789ABCDEF0));
}
#endif

static uint64_t blob_id(uint32_t n) { return n; }

static void b_map_codec(state_s* st) {
  map_begin(st, 1);
  map_keys(st, blob_id);
}

static void b_map_empty(state_s* st) {
  map_begin(st, 0);
  map_str(st, "gone", 1);
  map_u64(st, 7, 2);
  map_delete(st, 0);
  map_delete(st, 1);
}

/* ---- the codec -------------------------------------------------------------------- */

/* Lengths from 0 to 299 (past the save's first scratch buffer), bytes with
   NULs among them. */
void blob_for(uint64_t id, unsigned char* out, uint32_t* length) {
  static const uint32_t lengths[8] = {0, 1, 8, 17, 64, 255, 256, 299};
  uint32_t n = lengths[id % 8];
  for (uint32_t j = 0; j < n; j++) out[j] = (unsigned char)(id * 13u + j * 29u);
  *length = n;
}

static int blob_encode(void* context, void* value, void* buffer, uint32_t capacity, uint32_t* length) {
  const blob_s* b = (const blob_s*)value;
  (void)context;
  *length = b->length;
  if (b->length <= capacity && b->length) memcpy(buffer, b->bytes, b->length);
  return 0;
}

static int blob_decode(void* context, const void* bytes, uint32_t length, void** value) {
  (void)context;
  if (length > BLOB_MAX) return 1;
  blob_s* b = (blob_s*)malloc(sizeof *b);
  if (b == NULL) return 1;
  b->bytes = (unsigned char*)malloc(BLOB_MAX);
  if (b->bytes == NULL) {
    free(b);
    return 1;
  }
  if (length) memcpy(b->bytes, bytes, length);
  b->length = length;
  *value = b;
  return 0;
}

static void blob_discard(void* context, void* value) {
  blob_s* b = (blob_s*)value;
  (void)context;
  free(b->bytes);
  free(b);
}

const slate_value_codec_s blob_codec = {blob_encode, blob_decode, blob_discard, NULL};

static int free_each(const char* key, uint32_t key_length, void* value, void* data) {
  (void)key;
  (void)key_length;
  (void)data;
  blob_discard(NULL, value);
  return 0;
}

void free_blob_values(slate_s* map) { CHECK_EQ_INT(slate_each(map, free_each, NULL), SLATE_OK); }

/* ---- the list ------------------------------------------------------------------- */

const recipe_s recipes[] = {
    {"slotmap-fresh", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_fresh},
    {"slotmap-churn", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_churn},
    {"slotmap-cleared", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_cleared},
    {"slotmap-freed", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_freed},
    {"slotmap-later", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_later},
    {"slotmap-sorted", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_sorted},
    {"slotmap-columns", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_columns},
    {"slotmap-retired", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_retired},
    {"slotmap-below", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_below},
    {"slotmap-exhausted", SLATE_SNAPSHOT_SLOTMAP, 0, b_slotmap_exhausted},
    {"sparse-column", SLATE_SNAPSHOT_SPARSE, 0, b_sparse_column},
    {"sparse-member", SLATE_SNAPSHOT_SPARSE, 0, b_sparse_member},
    {"sparse-columns", SLATE_SNAPSHOT_SPARSE, 0, b_sparse_columns},
    {"sparse-cleared", SLATE_SNAPSHOT_SPARSE, 0, b_sparse_cleared},
    {"map-int", SLATE_SNAPSHOT_MAP, 0, b_map_int},
#if UINTPTR_MAX > 0xFFFFFFFFu
    {"map-wide", SLATE_SNAPSHOT_MAP, 1, b_map_wide},
#else
    {"map-wide", SLATE_SNAPSHOT_MAP, 1, NULL},
#endif
    {"map-codec", SLATE_SNAPSHOT_MAP, 0, b_map_codec},
    {"map-empty", SLATE_SNAPSHOT_MAP, 0, b_map_empty},
};
const size_t recipe_count = sizeof recipes / sizeof recipes[0];

int recipe_build(const recipe_s* recipe, state_s* state) {
  memset(state, 0, sizeof *state);
  if (recipe->build == NULL) return 0;
  recipe->build(state);
  return 1;
}

void state_free(state_s* st) {
  switch (st->kind) {
    case SLATE_SNAPSHOT_SLOTMAP: slotmap_free(&st->sm); break;
    case SLATE_SNAPSHOT_SPARSE: slotmap_sparse_free(&st->sp); break;
    default:
      if (st->codec) free_blob_values(&st->map);
      slate_free(&st->map);
      break;
  }
}
