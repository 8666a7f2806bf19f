/*
 * map/hooks.c -- SLATE_MALLOC / SLATE_CALLOC / SLATE_FREE and allocation
 * failure injection.
 *
 * The three hooks are the counting wrappers of support/hooks.h around the C
 * library's allocator: a 32-byte header in front of every block (a magic
 * number, the size and the owning counter set) catches a block freed
 * through the wrong allocator or twice, and a switch makes allocation
 * attempt number K return NULL. The driver of the injection, and main, are
 * support/inject.h's, shared with slotmap/hooks.c and sparse/hooks.c; this
 * file holds what is the map's own.
 *
 * The failure-injection part counts the allocations of a scripted workload
 * (u64 and long string inserts through table doubling, splits and directory
 * doublings; replacements; deletes; clone; compact; reserve; delete_if;
 * saves with and without a codec, and loads of their images into empty
 * maps; clear), then reruns it once for every N, failing allocation N.  In each
 * run: the call that met the failure returns SLATE_ERROR_ALLOC (no other call
 * does, and no failure is swallowed); the map is unchanged (shape, memory,
 * every entry with its value, slate_check OK); the same call then succeeds;
 * the rest of the workload succeeds; at the end allocations == frees.  After
 * a failed clone the copy is an empty map that slate_free accepts (twice);
 * a failed load leaves its destination an empty map that a load accepts,
 * and has passed every value its codec decoded to `discard`, once.
 * The injection runs twice: through the hooks, and through the maps' own
 * allocator (slate_set_allocator).
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -Iinclude c-tests/map/hooks.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/th && /tmp/th
 *   g++ -std=c++17 -x c++ -Wall -Wextra -Werror -Iinclude c-tests/map/hooks.c \
 *       -x none target/release/libslate.a -lpthread -ldl -lm -o /tmp/thpp && /tmp/thpp
 */
#include "../support/hooks.h" /* defines SLATE_MALLOC, SLATE_CALLOC, SLATE_FREE */
#define SLATE_IMPLEMENTATION
#include "slate.h"
#include "slate-introspect.h"
#include "../support/test.h"
#include "../support/inject.h"
#include "../support/map_check.h"

#include <stdlib.h>
#include <string.h>

#define V(n) ((void*)(uintptr_t)(n))

static const char* long_key(char* buffer, size_t capacity, unsigned i) {
  snprintf(buffer, capacity, "hooks-test-long-string-key-%05u-padded-past-inline", i);
  return buffer;
}

static int noop_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  (*(uint64_t*)data)++;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* the hooks are used                                                        */
/* ------------------------------------------------------------------------ */

static void test_hooks_used(void) {
  TEST_SECTION("allocations go through SLATE_MALLOC/SLATE_CALLOC/SLATE_FREE");
  slate_s m, c;
  char buffer[96];
  void* v = NULL;
  unsigned long long live0 = hk.live_bytes, allocs0 = hk.allocations, frees0 = hk.frees;
  hooks_reset(&hk);
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(hk.attempts, 0); /* slate() allocates nothing */
  CHECK_EQ_INT(slate_set(&m, "first", V(1)), SLATE_OK);
  CHECK(hk.attempts > 0);
  CHECK_EQ_U64(info_of(&m).memory, hk.live_bytes - live0);
  for (uint64_t k = 0; k < 5000; k++) CHECK_EQ_INT(slate_set_u64(&m, k, V(k + 1)), SLATE_OK);
  for (unsigned i = 0; i < 100; i++)
    CHECK_EQ_INT(slate_set(&m, long_key(buffer, sizeof buffer, i), V(i)), SLATE_OK);
  slate_info_s in = info_of(&m);
  CHECK(in.tables > 1);
  CHECK_EQ_U64(in.memory, hk.live_bytes - live0);
  fprintf(stderr, "   %llu mallocs, %llu callocs for 5101 entries; %llu bytes live\n", hk.mallocs,
          hk.callocs, hk.live_bytes - live0);

  /* a zero-filled slate_s, never given to slate(), allocates through the
     hooks too: for its first key (a long one, copied before its first
     table), and for a reserve */
  {
    slate_s z;
    memset(&z, 0, sizeof z);
    unsigned long long a0 = hk.attempts, l0 = hk.live_bytes;
    CHECK_EQ_INT(slate_set(&z, long_key(buffer, sizeof buffer, 1), V(1)), SLATE_OK);
    CHECK(hk.attempts > a0);
    CHECK_EQ_U64(info_of(&z).memory, hk.live_bytes - l0);
    slate_free(&z);
    CHECK_EQ_U64(hk.live_bytes, l0);
    memset(&z, 0, sizeof z);
    a0 = hk.attempts;
    CHECK_EQ_INT(slate_reserve(&z, 3000), SLATE_OK);
    CHECK(hk.attempts > a0);
    CHECK_EQ_U64(info_of(&z).memory, hk.live_bytes - l0);
    CHECK_EQ_INT(slate_set_u64(&z, 5, V(5)), SLATE_OK);
    slate_free(&z);
    CHECK_EQ_U64(hk.live_bytes, l0);
  }

  /* read-only calls allocate nothing */
  unsigned long long before = hk.attempts;
  uint64_t n = 0;
  slate_table_info_s ti;
  uint64_t word;
  CHECK_EQ_INT(slate_get(&m, "first", &v), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "absent", &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_bytes(&m, "first", 5, &v), SLATE_OK);
  CHECK_EQ_INT(slate_get_i64(&m, 1, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_u64(&m, 1, &v), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, long_key(buffer, sizeof buffer, 5), NULL), SLATE_OK);
  CHECK_EQ_INT(slate_each(&m, noop_cb, &n), SLATE_OK);
  CHECK_EQ_U64(n, 5101);
  CHECK_EQ_INT(slate_equal(&m, &m), 1);
  CHECK_EQ_U64(slate_length(&m), 5101);
  CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
  CHECK_EQ_INT(slate_table_ctrl(&m, 0, 0, &word), SLATE_OK);
  CHECK_EQ_INT(run_check(&m), SLATE_OK);
  CHECK_EQ_U64(hk.attempts, before);

  /* clone, delete, compact, free: all through the hooks, balanced */
  CHECK_EQ_INT(slate_clone(&c, &m), SLATE_OK);
  CHECK(hk.attempts > before);
  CHECK_EQ_INT(slate_equal(&c, &m), 1);
  CHECK_EQ_U64(info_of(&c).memory + info_of(&m).memory, hk.live_bytes - live0);
  before = hk.attempts;
  CHECK_EQ_INT(slate_equal(&c, &m), 1);
  CHECK_EQ_U64(hk.attempts, before);
  slate_free(&c);
  CHECK_EQ_U64(info_of(&m).memory, hk.live_bytes - live0);
  for (uint64_t k = 0; k < 5000; k++) CHECK_EQ_INT(slate_delete_u64(&m, k), SLATE_OK);
  unsigned long long live_before_compact = hk.live_bytes;
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  CHECK(hk.live_bytes < live_before_compact); /* compact lowers the memory held */
  CHECK_EQ_U64(info_of(&m).memory, hk.live_bytes - live0);
  slate_free(&m);
  CHECK_EQ_U64(hk.live_bytes, live0);
  CHECK_EQ_U64(hk.allocations - allocs0, hk.frees - frees0);
  CHECK_EQ_U64(hk.bad_frees, 0);
}

/* ------------------------------------------------------------------------ */
/* capacity is real                                                          */
/* ------------------------------------------------------------------------ */

static void test_capacity_is_real(void) {
  TEST_SECTION("clear and reserve keep real capacity");
  slate_s a, b;
  const uint64_t n = 20000;
  unsigned long long t0, first_fill, refill, plain_fill, reserved_fill;

  CHECK_EQ_INT(slate(&a), SLATE_OK);
  t0 = hk.total_bytes;
  for (uint64_t k = 0; k < n; k++) CHECK_EQ_INT(slate_set_u64(&a, k, V(k)), SLATE_OK);
  first_fill = hk.total_bytes - t0;
  CHECK_EQ_INT(slate_clear(&a), SLATE_OK);
  t0 = hk.total_bytes;
  for (uint64_t k = 0; k < n; k++) CHECK_EQ_INT(slate_set_u64(&a, k, V(k)), SLATE_OK);
  refill = hk.total_bytes - t0;
  CHECK(refill < first_fill);
  plain_fill = first_fill;

  CHECK_EQ_INT(slate(&b), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&b, n), SLATE_OK);
  t0 = hk.total_bytes;
  for (uint64_t k = 0; k < n; k++) CHECK_EQ_INT(slate_set_u64(&b, k, V(k)), SLATE_OK);
  reserved_fill = hk.total_bytes - t0;
  CHECK(reserved_fill < plain_fill);
  fprintf(stderr, "   bytes allocated: first fill %llu, refill after clear %llu, fill after reserve %llu\n",
          first_fill, refill, reserved_fill);
  CHECK_EQ_INT(slate_equal(&a, &b), 1);

  /* compact lowers the memory held */
  for (uint64_t k = 0; k < n; k++)
    if (k % 100) CHECK_EQ_INT(slate_delete_u64(&b, k), SLATE_OK);
  unsigned long long live = hk.live_bytes;
  uint64_t memory = info_of(&b).memory;
  CHECK_EQ_INT(slate_compact(&b), SLATE_OK);
  CHECK(hk.live_bytes < live);
  CHECK(info_of(&b).memory < memory);
  CHECK_EQ_U64(memory - info_of(&b).memory, live - hk.live_bytes);
  slate_free(&a);
  slate_free(&b);
  CHECK_EQ_U64(hk.live_bytes, 0);
  CHECK_EQ_U64(hk.allocations, hk.frees);
}

/* ------------------------------------------------------------------------ */
/* failure injection                                                         */
/* ------------------------------------------------------------------------ */

#define NU 5200 /* u64 keys 0 .. NU-1 */
#define NS 48   /* long string keys */
#define NI 32   /* i64 keys -1 .. -NI */
#define MAX_TABLES 256

typedef struct model_s {
  unsigned char u[NU];
  uintptr_t uv[NU];
  unsigned char s[NS];
  uintptr_t sv[NS];
  unsigned char i[NI];
  uintptr_t iv[NI];
  uint64_t length;
} model_s;

typedef struct shape_s {
  slate_info_s info;
  uint32_t n;
  slate_table_info_s t[MAX_TABLES];
  uint64_t order; /* a hash of the walk's sequence of keys and values */
} shape_s;

/* Folds each entry, in walk order, into a running FNV-1a hash. */
static int order_cb(const char* key, uint32_t length, void* value, void* data) {
  uint64_t* h = (uint64_t*)data;
  for (uint32_t i = 0; i < length; i++) *h = (*h ^ (unsigned char)key[i]) * UINT64_C(0x100000001B3);
  *h = (*h ^ (uint64_t)(uintptr_t)value) * UINT64_C(0x100000001B3);
  return 0;
}

enum {
  OP_SET_U64,
  OP_DEL_U64,
  OP_SET_STR,
  OP_DEL_STR,
  OP_SET_I64,
  OP_DEL_I64,
  OP_CLONE,
  OP_COMPACT,
  OP_RESERVE,
  OP_CLEAR,
  OP_DELETE_IF,
  OP_ENTRY_U64, /* slate_entry*: a get-or-insert that writes the value */
  OP_ENTRY_STR,
  OP_ENTRY_I64,
  OP_TAKE_U64,
  OP_SAVE,     /* slate_save with the codec: its scratch buffer */
  OP_SAVE_INT, /* slate_save with integer values: allocates nothing */
  OP_LOAD,     /* slate_load of the codec image into an empty map */
  OP_LOAD_INT, /* ... of the integer image */
  OP_COUNT
};
static const char* const op_names[] = {"set_u64",   "delete_u64", "set",       "delete",
                                       "set_i64",   "delete_i64", "clone",     "compact",
                                       "reserve",   "clear",      "delete_if", "entry_u64",
                                       "entry",     "entry_i64",  "take_u64",
                                       "save",      "save_int",   "load",
                                       "load_int"};

/* The set or delete whose model an entry or take follows. */
static int model_kind(int kind) {
  switch (kind) {
    case OP_ENTRY_U64: return OP_SET_U64;
    case OP_ENTRY_STR: return OP_SET_STR;
    case OP_ENTRY_I64: return OP_SET_I64;
    case OP_TAKE_U64: return OP_DEL_U64;
    default: return kind;
  }
}

#define SENTINEL V(0x5eed1234u)

/* slate_entry* then a write through the pointer; a failed call must leave
   the out-parameters as they were (else -100). */
static int entry_then_write(int rc, void** slot, int inserted, uintptr_t value) {
  if (rc == SLATE_OK) {
    if (inserted != 0 && inserted != 1) return -100;
    if (inserted && *slot != NULL) return -100; /* a new key starts as NULL */
    *slot = V(value);
  } else if (slot != (void**)SENTINEL || inserted != 7) {
    return -100;
  }
  return rc;
}

/* The saves' bytes (plain malloc, neither counted nor failed). */
typedef struct image_s {
  unsigned char* bytes;
  size_t length, capacity;
} image_s;

static int image_write(void* context, const void* bytes, size_t length) {
  image_s* im = (image_s*)context;
  if (im->length + length > im->capacity) {
    size_t want = im->capacity ? im->capacity * 2 : 65536;
    while (want < im->length + length) want *= 2;
    unsigned char* grown = (unsigned char*)realloc(im->bytes, want);
    if (grown == NULL) return -200;
    im->bytes = grown;
    im->capacity = want;
  }
  memcpy(im->bytes + im->length, bytes, length);
  im->length += length;
  return 0;
}

/* The codec of the saves and loads: a value V(n) as its 8 bytes and
   value_extra(n) more, decoded back; it counts the values decode made and
   discard undid. Every seventh value is past 4 KiB, so that a save
   allocates its scratch buffer (and grows it). */
static uint32_t value_extra(uint64_t n) {
  return (uint32_t)(n % 300 + (n % 7 == 3 ? 4096 + n % 5 * 1000 : 0));
}

typedef struct codec_count_s {
  unsigned long made, discarded;
} codec_count_s;

static int encode_n(void* context, void* value, void* buffer, uint32_t capacity, uint32_t* length) {
  uint64_t n = (uint64_t)(uintptr_t)value;
  (void)context;
  *length = 8 + value_extra(n);
  if (*length <= capacity) {
    unsigned char* b = (unsigned char*)buffer;
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(n >> (8 * i));
    memset(b + 8, (int)(n & 0xFF), *length - 8);
  }
  return 0;
}

static int decode_n(void* context, const void* bytes, uint32_t length, void** value) {
  codec_count_s* c = (codec_count_s*)context;
  const unsigned char* b = (const unsigned char*)bytes;
  uint64_t n = 0;
  if (length < 8) return -300;
  for (int i = 0; i < 8; i++) n |= (uint64_t)b[i] << (8 * i);
  if (length != 8 + value_extra(n)) return -300;
  *value = V(n);
  c->made++;
  return 0;
}

static void discard_n(void* context, void* value) {
  (void)value;
  ((codec_count_s*)context)->discarded++;
}

typedef struct run_s {
  slate_s m, c;       /* the map and its clone */
  slate_s s;          /* small maps switching layout */
  slate_s l, li;      /* maps loaded from the codec and the integer image */
  model_s mm, mc, ms; /* what they should hold */
  model_s ml, mli, saved; /* (saved: the model of the map saved) */
  image_s image, image_int;
  codec_count_s counts;
  int c_live;         /* c has been cloned */
  unsigned ops;
  injection_s inj;    /* what the failures did (inject.h) */
  uint32_t depth_reached;  /* global depth after the first 2500 inserts */
} run_s;

static run_s run_;
static shape_s shape_before_, shape_after_;

static void take_shape(const slate_s* m, shape_s* s) {
  memset(s, 0, sizeof *s);
  slate_info(m, &s->info);
  s->n = s->info.tables < MAX_TABLES ? s->info.tables : MAX_TABLES;
  for (uint32_t i = 0; i < s->n; i++) slate_table_info(m, i, &s->t[i]);
  /* The iteration order too, for maps small enough to walk before every
   * call (the layout switches of small maps are where it could change). */
  s->order = UINT64_C(0xCBF29CE484222325);
  if (s->info.length <= 256) slate_each(m, order_cb, &s->order);
}

static int same_shape(const void* before, const void* after) {
  const shape_s* a = (const shape_s*)before;
  const shape_s* b = (const shape_s*)after;
  const slate_info_s* x = &a->info;
  const slate_info_s* y = &b->info;
  if (x->length != y->length || x->capacity != y->capacity || x->tombstones != y->tombstones ||
      x->memory != y->memory || x->global_depth != y->global_depth || x->tables != y->tables ||
      x->directory != y->directory || x->small != y->small)
    return 0;
  if (x->length != 0 && x->seed != y->seed) return 0;
  if (a->n != b->n || a->order != b->order) return 0;
  return memcmp(a->t, b->t, a->n * sizeof a->t[0]) == 0;
}

static uintptr_t pred_calls_;
static int pred_mod3(const char* key, uint32_t length, void* value, void* data) {
  const unsigned char* k = (const unsigned char*)key;
  (void)value;
  (void)data;
  pred_calls_++;
  if (length != 10 || k[0] != 0 || k[1] != 2) return 0;
  uint64_t x = 0;
  for (int i = 0; i < 8; i++) x |= (uint64_t)k[2 + i] << (8 * i);
  return x % 3 == 0;
}

/* Every key of the universe is as the model says; returns the mismatches. */
static unsigned verify_model(const slate_s* m, const model_s* md) {
  unsigned bad = 0;
  char buffer[96];
  if (slate_length(m) != md->length) bad++;
  for (uint64_t k = 0; k < NU; k++) {
    void* v = V(0xF00D);
    int rc = slate_get_u64(m, k, &v);
    if (md->u[k] ? (rc != SLATE_OK || v != V(md->uv[k])) : (rc != SLATE_ERROR_NOT_FOUND || v != V(0xF00D)))
      bad++;
  }
  for (unsigned i = 0; i < NS; i++) {
    void* v = NULL;
    int rc = slate_get(m, long_key(buffer, sizeof buffer, i), &v);
    if (md->s[i] ? (rc != SLATE_OK || v != V(md->sv[i])) : rc != SLATE_ERROR_NOT_FOUND) bad++;
  }
  for (unsigned i = 0; i < NI; i++) {
    void* v = NULL;
    int rc = slate_get_i64(m, -(int64_t)i - 1, &v);
    if (md->i[i] ? (rc != SLATE_OK || v != V(md->iv[i])) : rc != SLATE_ERROR_NOT_FOUND) bad++;
  }
  uint64_t n = 0;
  if (slate_each(m, noop_cb, &n) != SLATE_OK || n != md->length) bad++;
  if (run_check(m) != SLATE_OK) bad++;
  return bad;
}

static int model_has(const model_s* md, int kind, uint64_t key) {
  switch (model_kind(kind)) {
    case OP_SET_U64:
    case OP_DEL_U64:
      return md->u[key];
    case OP_SET_STR:
    case OP_DEL_STR:
      return md->s[key];
    default:
      return md->i[key];
  }
}

static void model_put(model_s* md, int kind, uint64_t key, uintptr_t value) {
  kind = model_kind(kind);
  unsigned char* present = kind == OP_SET_U64 ? &md->u[key] : kind == OP_SET_STR ? &md->s[key] : &md->i[key];
  uintptr_t* slot = kind == OP_SET_U64 ? &md->uv[key] : kind == OP_SET_STR ? &md->sv[key] : &md->iv[key];
  if (!*present) md->length++;
  *present = 1;
  *slot = value;
}

static void model_remove(model_s* md, int kind, uint64_t key) {
  kind = model_kind(kind);
  unsigned char* present = kind == OP_DEL_U64 ? &md->u[key] : kind == OP_DEL_STR ? &md->s[key] : &md->i[key];
  if (*present) md->length--;
  *present = 0;
}

static int exec_op(run_s* r, int kind, slate_s* m, uint64_t key, uintptr_t value) {
  char buffer[96];
  switch (kind) {
    case OP_SET_U64:
      return slate_set_u64(m, key, V(value));
    case OP_DEL_U64:
      return slate_delete_u64(m, key);
    case OP_SET_STR:
      return slate_set(m, long_key(buffer, sizeof buffer, (unsigned)key), V(value));
    case OP_DEL_STR:
      return slate_delete(m, long_key(buffer, sizeof buffer, (unsigned)key));
    case OP_SET_I64:
      return slate_set_i64(m, -(int64_t)key - 1, V(value));
    case OP_DEL_I64:
      return slate_delete_i64(m, -(int64_t)key - 1);
    case OP_CLONE:
      memset(&r->c, 0xA7, sizeof r->c); /* a fresh, uninitialized destination */
      return slate_clone(&r->c, &r->m);
    case OP_COMPACT:
      return slate_compact(m);
    case OP_RESERVE:
      return slate_reserve(m, key);
    case OP_CLEAR:
      return slate_clear(m);
    case OP_DELETE_IF:
      return slate_delete_if(m, pred_mod3, NULL);
    case OP_ENTRY_U64:
    case OP_ENTRY_STR:
    case OP_ENTRY_I64: {
      void** slot = (void**)SENTINEL;
      int inserted = 7;
      int rc = kind == OP_ENTRY_U64   ? slate_entry_u64(m, key, &slot, &inserted)
               : kind == OP_ENTRY_I64 ? slate_entry_i64(m, -(int64_t)key - 1, &slot, &inserted)
                                      : slate_entry(m, long_key(buffer, sizeof buffer, (unsigned)key),
                                                    &slot, &inserted);
      return entry_then_write(rc, slot, inserted, value);
    }
    case OP_TAKE_U64: {
      void* v = SENTINEL;
      int rc = slate_take_u64(m, key, &v);
      return rc == SLATE_ERROR_NOT_FOUND && v != SENTINEL ? -100 : rc;
    }
    case OP_SAVE:
    case OP_SAVE_INT: {
      slate_value_codec_s codec = {encode_n, decode_n, discard_n, &r->counts};
      image_s* im = kind == OP_SAVE ? &r->image : &r->image_int;
      im->length = 0;
      return slate_save(m, kind == OP_SAVE ? &codec : NULL, image_write, im);
    }
    case OP_LOAD:
    case OP_LOAD_INT: {
      /* a failed load discarded every value it decoded, once; a load
         that succeeded, none (else -100) */
      slate_value_codec_s codec = {encode_n, decode_n, discard_n, &r->counts};
      const image_s* im = kind == OP_LOAD ? &r->image : &r->image_int;
      r->counts.made = r->counts.discarded = 0;
      int rc = slate_load(m, im->bytes, im->length, kind == OP_LOAD ? &codec : NULL);
      if (rc == SLATE_OK ? r->counts.discarded != 0 : r->counts.discarded != r->counts.made)
        return -100;
      return rc;
    }
  }
  return -100;
}

/* The record of one call of the workload, for the driver of inject.h: the
   map it works on and the model of that map, the key and the value. */
typedef struct map_call_s {
  inject_call_s call; /* first: what the driver sees */
  run_s* r;
  slate_s* m;
  model_s* md;
  uint64_t key;
  uintptr_t value;
} map_call_s;

/* The shape of the map the call must leave unchanged (the source, for a
   clone). */
static void map_picture(const inject_call_s* call, void* picture) {
  const map_call_s* c = (const map_call_s*)call;
  take_shape(call->kind == OP_CLONE ? &c->r->m : c->m, (shape_s*)picture);
}

static int map_make(inject_call_s* call) {
  map_call_s* c = (map_call_s*)call;
  return exec_op(c->r, call->kind, c->m, c->key, c->value);
}

static unsigned map_changes(inject_call_s* call) {
  map_call_s* c = (map_call_s*)call;
  return verify_model(call->kind == OP_CLONE ? &c->r->m : c->m, c->md);
}

/* The copy of a failed clone is an empty map. */
static int map_empty_copy(inject_call_s* call) {
  run_s* r = ((map_call_s*)call)->r;
  slate_info_s ci;
  memset(&ci, 0xFF, sizeof ci);
  int ok = slate_info(&r->c, &ci) == SLATE_OK && ci.length == 0 && ci.memory == 0 &&
           ci.capacity == 0 && slate_length(&r->c) == 0 &&
           slate_get_u64(&r->c, 1, NULL) == SLATE_ERROR_NOT_FOUND && run_check(&r->c) == SLATE_OK;
  slate_free(&r->c);
  slate_free(&r->c);
  return ok;
}

/* The kinds of call that must meet a failure (inject_suite_s). */
static const int must_fail_[] = {OP_CLONE,    OP_COMPACT, OP_RESERVE, OP_SET_U64, OP_SET_STR,
                                 OP_ENTRY_U64, OP_ENTRY_STR, OP_SAVE, OP_LOAD, OP_LOAD_INT, -1};
static const int never_fail_[] = {OP_SAVE_INT, -1};

static const inject_suite_s map_suite = {
    op_names, OP_COUNT, "map", OP_CLONE,
    0, /* only the call predicted to fail is pictured (inject_recorded) */
    map_picture, same_shape, &shape_before_, &shape_after_,
    map_make, map_changes, map_empty_copy, must_fail_, never_fail_};

/* One call of the workload, on m (target 0), c (target 1), s (target 2),
   l (3) or li (4), made through the driver; the model follows it. */
static void step(run_s* r, int kind, int target, uint64_t key, uintptr_t value) {
  map_call_s c;
  slate_s* maps[5] = {&r->m, &r->c, &r->s, &r->l, &r->li};
  model_s* models[5] = {&r->mm, &r->mc, &r->ms, &r->ml, &r->mli};
  c.r = r;
  c.m = maps[target];
  c.md = models[target];
  c.key = key;
  c.value = value;
  int expected = SLATE_OK;
  if (kind == OP_DEL_U64 || kind == OP_DEL_STR || kind == OP_DEL_I64 || kind == OP_TAKE_U64)
    expected = model_has(c.md, kind, key) ? SLATE_OK : SLATE_ERROR_NOT_FOUND;
  if (inject_step(&map_suite, &r->inj, &c.call, kind, r->ops++, key, expected) != expected) return;
  model_s* md = c.md;
  switch (model_kind(kind)) {
    case OP_SET_U64:
    case OP_SET_STR:
    case OP_SET_I64:
      model_put(md, kind, key, value);
      break;
    case OP_DEL_U64:
    case OP_DEL_STR:
    case OP_DEL_I64:
      model_remove(md, kind, key);
      break;
    case OP_CLONE:
      memcpy(&r->mc, &r->mm, sizeof r->mc);
      r->c_live = 1;
      break;
    case OP_CLEAR:
      memset(md, 0, sizeof *md);
      break;
    case OP_SAVE:
      memcpy(&r->saved, md, sizeof r->saved);
      break;
    case OP_LOAD:
    case OP_LOAD_INT:
      memcpy(md, &r->saved, sizeof *md);
      break;
    case OP_DELETE_IF:
      for (uint64_t k = 0; k < NU; k += 3) model_remove(md, OP_DEL_U64, k);
      break;
    default:
      break;
  }
}

/* A map of the workload, with its allocator (inject.h's inject_own) and a
   pinned seed: every run then makes the same allocations in the same calls
   up to the one that fails, so the driver pictures only the call the
   baseline predicts to fail (and checks that prediction). */
static int init_map(slate_s* m) {
  int rc = slate(m);
  if (rc == SLATE_OK) rc = slate_pin_seed(m, UINT64_C(0x9E3779B97F4A7C15));
  if (rc == SLATE_OK && inject_own != NULL) rc = slate_set_allocator(m, inject_own);
  return rc;
}

/* The scripted workload.  Returns the number of final mismatches. */
static unsigned workload(run_s* r) {
  unsigned bad = 0;
  memset(r, 0, sizeof *r);
  r->inj.failed_op = -1;
  unsigned long long attempts = hk.attempts;
  if (init_map(&r->m) != SLATE_OK) bad++;
  if (hk.attempts != attempts) bad++; /* slate() allocates nothing */
  /* growth: small map, tables, doubling, splits, directory doublings */
  for (uint64_t k = 0; k < 2500; k++) step(r, OP_SET_U64, 0, k, k * 2 + 1);
  {
    slate_info_s in;
    memset(&in, 0, sizeof in);
    slate_info(&r->m, &in);
    r->depth_reached = in.global_depth;
  }
  for (uint64_t i = 0; i < NS; i++) step(r, OP_SET_STR, 0, i, 50000 + i);
  for (uint64_t i = 0; i < NI; i++) step(r, OP_SET_I64, 0, i, 60000 + i);
  for (uint64_t k = 0; k < 100; k++) step(r, OP_SET_U64, 0, k, k * 2 + 2); /* replace */
  for (uint64_t i = 0; i < NS; i += 4) step(r, OP_SET_STR, 0, i, 51000 + i); /* replace */
  for (uint64_t k = 0; k < 1200; k += 2) step(r, OP_DEL_U64, 0, k, 0);
  for (uint64_t i = 0; i < NS; i += 3) step(r, OP_DEL_STR, 0, i, 0);
  for (uint64_t i = 0; i < NI; i += 5) step(r, OP_DEL_I64, 0, i, 0);
  /* clone, then work on the copy */
  step(r, OP_CLONE, 0, 0, 0);
  for (uint64_t k = 5000; k < 5100; k++) step(r, OP_SET_U64, 1, k, k);
  for (uint64_t i = 0; i < NS; i += 2) step(r, OP_DEL_STR, 1, i, 0);
  for (uint64_t i = 0; i < 16; i++) step(r, OP_SET_STR, 1, i, 70000 + i);
  /* compact, reserve, more growth */
  step(r, OP_COMPACT, 0, 0, 0);
  step(r, OP_RESERVE, 0, slate_length(&r->m) + 2000, 0);
  for (uint64_t k = 2500; k < 4500; k++) step(r, OP_SET_U64, 0, k, k * 2 + 1);
  /* get-or-insert: new keys (through growth) and present ones; takes */
  for (uint64_t k = 4500; k < 5200; k++) step(r, OP_ENTRY_U64, 0, k, k * 3);
  for (uint64_t k = 2000; k < 2100; k++) step(r, OP_ENTRY_U64, 0, k, k * 5); /* present */
  for (uint64_t i = 0; i < NS; i += 2) step(r, OP_ENTRY_STR, 0, i, 80000 + i);
  for (uint64_t i = 0; i < NI; i++) step(r, OP_ENTRY_I64, 0, i, 85000 + i);
  for (uint64_t k = 4500; k < 4800; k += 3) step(r, OP_TAKE_U64, 0, k, 0);
  step(r, OP_DELETE_IF, 0, 0, 0);
  /* saved, then loaded into empty maps: every allocation of a load fails
     in turn (the destination unchanged, every decoded value discarded) */
  step(r, OP_SAVE_INT, 0, 0, 0);
  step(r, OP_SAVE, 0, 0, 0);
  if (init_map(&r->l) != SLATE_OK || init_map(&r->li) != SLATE_OK) bad++;
  step(r, OP_LOAD, 3, 0, 0);
  step(r, OP_LOAD_INT, 4, 0, 0);
  bad += verify_model(&r->l, &r->ml);
  bad += verify_model(&r->li, &r->mli);
  if (slate_equal(&r->l, &r->m) != 1 || slate_equal(&r->li, &r->m) != 1) bad++;
  slate_free(&r->l);
  slate_free(&r->li);
  free(r->image.bytes);
  free(r->image_int.bytes);
  r->image.bytes = r->image_int.bytes = NULL;
  step(r, OP_COMPACT, 1, 0, 0);
  step(r, OP_CLEAR, 1, 0, 0);
  for (uint64_t k = 0; k < 100; k++) step(r, OP_SET_U64, 1, k, k + 7);
  for (uint64_t i = 0; i < NS; i++) step(r, OP_SET_STR, 0, i, 90000 + i);
  step(r, OP_RESERVE, 1, 3000, 0);
  for (uint64_t k = 100; k < 3000; k++) step(r, OP_SET_U64, 1, k, k + 7);
  for (uint64_t k = 3000; k < NU; k++) step(r, OP_ENTRY_U64, 1, k, k + 9); /* grows */
  /* small maps that must switch layout: a string into a full small map of
     u64 keys (a general table and a directory at once), and a long string
     into a small table of u64 keys that deletes emptied (its key copied
     before the table turns general) */
  if (init_map(&r->s) != SLATE_OK) bad++;
  for (uint64_t k = 0; k < 8; k++) step(r, OP_SET_U64, 2, k, k + 100);
  step(r, OP_SET_STR, 2, 1, 200);
  for (uint64_t k = 0; k < 8; k++) step(r, OP_DEL_U64, 2, k, 0);
  step(r, OP_DEL_STR, 2, 1, 0);
  for (uint64_t k = 0; k < 5; k++) step(r, OP_SET_U64, 2, k, k + 300);
  for (uint64_t k = 0; k < 5; k++) step(r, OP_DEL_U64, 2, k, 0);
  step(r, OP_SET_STR, 2, 2, 400);
  step(r, OP_SET_I64, 2, 3, 500);
  bad += verify_model(&r->s, &r->ms);
  slate_free(&r->s);
  /* a size that cannot exist: FULL (or ALLOC), and nothing changes */
#if defined(__linux__)
  /* more than the machine's memory: FULL without allocating anything */
  {
    unsigned long long before = hk.attempts;
    if (slate_reserve(&r->m, UINT64_C(1) << 36) != SLATE_ERROR_FULL) bad++;
    if (hk.attempts != before) bad++;
  }
#endif
  {
    take_shape(&r->m, &shape_before_);
    int rc = slate_reserve(&r->m, UINT64_MAX);
    take_shape(&r->m, &shape_after_);
    if (rc != SLATE_ERROR_FULL && rc != SLATE_ERROR_ALLOC) bad++;
    if (!same_shape(&shape_before_, &shape_after_)) bad++;
  }
  bad += verify_model(&r->m, &r->mm);
  bad += verify_model(&r->c, &r->mc);
  slate_free(&r->m);
  slate_free(&r->c);
  slate_free(&r->m);
  return bad;
}

static unsigned workload_any(void* r) { return workload((run_s*)r); }

/* The injection (hooks_main runs it through the hooks, then through the
   maps' own allocator): the baseline counts the allocations, then
   allocation N fails, for every N. */
static void map_injection(injection_totals_s* t) {
  run_s* r = &run_;
  /* the own allocator never calls calloc: no calloc means every allocation
     of the run went through it */
  unsigned long long total =
      inject_recorded(workload_any, r, &r->inj, &map_suite, inject_own == NULL, t);
  CHECK(total > 50);
  CHECK(r->depth_reached >= 2); /* splits and directory doublings happened */
}

/* A clone failing at each of its allocations, explicitly. */
static void test_failed_clone(void) {
  TEST_SECTION("failed clone leaves an empty copy");
  slate_s m, c;
  char buffer[96];
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (uint64_t k = 0; k < 3000; k++) CHECK_EQ_INT(slate_set_u64(&m, k, V(k + 1)), SLATE_OK);
  for (unsigned i = 0; i < 20; i++)
    CHECK_EQ_INT(slate_set(&m, long_key(buffer, sizeof buffer, i), V(i + 1)), SLATE_OK);
  unsigned long long live = hk.live_bytes;
  hooks_reset(&hk);
  CHECK_EQ_INT(slate_clone(&c, &m), SLATE_OK);
  unsigned long long clone_allocs = hk.attempts;
  CHECK(clone_allocs > 20);
  slate_free(&c);
  CHECK_EQ_U64(hk.live_bytes, live);
  unsigned long long bad = 0;
  for (unsigned long long n = 1; n <= clone_allocs; n++) {
    hooks_reset(&hk);
    hk.fail_at = n;
    memset(&c, 0x5C, sizeof c);
    int rc = slate_clone(&c, &m);
    hk.fail_at = 0;
    if (rc != SLATE_ERROR_ALLOC) bad++;
    if (slate_length(&c) != 0) bad++;
    if (slate_get_u64(&c, 1, NULL) != SLATE_ERROR_NOT_FOUND) bad++;
    if (info_of(&c).memory != 0) bad++;
    slate_free(&c);
    slate_free(&c);
    if (hk.live_bytes != live) bad++;
    /* the empty copy is a usable map */
    if (slate_set(&c, "x", V(1)) != SLATE_OK || slate_length(&c) != 1) bad++;
    slate_free(&c);
    if (slate_length(&m) != 3020) bad++;
  }
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_INT(run_check(&m), SLATE_OK);
  CHECK_EQ_INT(slate_clone(&c, &m), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&c, &m), 1);
  slate_free(&c);
  slate_free(&m);
  CHECK_EQ_U64(hk.live_bytes, 0);
  CHECK_EQ_U64(hk.allocations, hk.frees);
}

/* ------------------------------------------------------------------------ */
/* slate_use_allocator at run time                                           */
/* ------------------------------------------------------------------------ */

static void test_runtime_allocator(void) {
  TEST_SECTION("slate_use_allocator");
  slate_s old_map, new_map, copy, plain;
  hooks_reset(&hk);
  hooks_reset(&hk2);
  CHECK_EQ_INT(slate(&old_map), SLATE_OK); /* takes the SLATE_* hooks */
  for (uint64_t k = 0; k < 100; k++) CHECK_EQ_INT(slate_set_u64(&old_map, k, V(k + 1)), SLATE_OK);
  CHECK(hk.attempts > 0);

  CHECK_EQ_INT(slate_use_allocator(hk2_malloc, hk2_calloc, hk2_free), SLATE_OK);
  unsigned long long a1 = hk.attempts;
  CHECK_EQ_INT(slate(&new_map), SLATE_OK);
  for (uint64_t k = 0; k < 3000; k++) CHECK_EQ_INT(slate_set_u64(&new_map, k, V(k + 1)), SLATE_OK);
  CHECK(hk2.attempts > 0);
  CHECK_EQ_U64(hk.attempts, a1);
  CHECK_EQ_U64(info_of(&new_map).memory, hk2.live_bytes);

  /* the existing map keeps its allocator */
  unsigned long long b1 = hk2.attempts;
  for (uint64_t k = 100; k < 3000; k++) CHECK_EQ_INT(slate_set_u64(&old_map, k, V(k + 1)), SLATE_OK);
  CHECK(hk.attempts > a1);
  CHECK_EQ_U64(hk2.attempts, b1);
  CHECK_EQ_U64(info_of(&old_map).memory, hk.live_bytes);

  /* a clone initialized now allocates through the current allocator
   * (SPEC 1: "for maps created afterwards"; slate_use_allocator's contract:
   * "Maps initialized (slate(), slate_clone) afterwards allocate through
   * them") */
  a1 = hk.attempts;
  CHECK_EQ_INT(slate_clone(&copy, &old_map), SLATE_OK);
  CHECK_MSG(hk2.attempts > b1, "a clone made after slate_use_allocator uses the new allocator");
  CHECK_MSG(hk.attempts == a1, "a clone made after slate_use_allocator does not use its source's");
  CHECK_EQ_INT(slate_equal(&copy, &old_map), 1);

  /* a partial set is refused and changes nothing */
  CHECK_EQ_INT(slate_use_allocator(hk_malloc, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(NULL, NULL, hk_free), SLATE_ERROR_INVALID);
  slate_s again;
  b1 = hk2.attempts;
  CHECK_EQ_INT(slate(&again), SLATE_OK);
  CHECK_EQ_INT(slate_set(&again, "k", V(1)), SLATE_OK);
  CHECK(hk2.attempts > b1);
  slate_free(&again);

  /* back to the C library */
  CHECK_EQ_INT(slate_use_allocator(NULL, NULL, NULL), SLATE_OK);
  a1 = hk.attempts;
  b1 = hk2.attempts;
  CHECK_EQ_INT(slate(&plain), SLATE_OK);
  for (uint64_t k = 0; k < 3000; k++) CHECK_EQ_INT(slate_set_u64(&plain, k, V(k + 1)), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&plain, &new_map), 1);
  CHECK_EQ_U64(hk.attempts, a1);
  CHECK_EQ_U64(hk2.attempts, b1);
  slate_free(&plain);

  /* every map returns its memory to the allocator it took it from */
  slate_free(&old_map);
  slate_free(&new_map);
  slate_free(&copy);
  check_both_returned();
}

int main(void) {
  static const hooks_suite_s suite = {
      NULL, test_hooks_used, test_capacity_is_real, map_injection, &map_suite,
      test_failed_clone, test_runtime_allocator, NULL};
  return hooks_main(&suite);
}
