/*
 * map/random.c -- a seeded, randomized differential test of the slate map
 * (SPEC sections 2 and 3): a long run of random operations on a map, each
 * one also applied to a reference model written in plain C below, and the
 * two compared after every step.
 *
 *   map/random [seed [steps]]      (steps default to 200,000)
 *
 * The first line on stdout is "seed: <n>"; the last is "N passed, M failed".
 * The run stops at the first step with a failed assertion and prints that
 * step, its operation and the command line that replays the same sequence
 * of operations ("map/random <seed> <step + 1>").  What cannot be replayed
 * is the library's own per-map hash seed (drawn from OS entropy), so a
 * layout-dependent failure may need a few runs of the same command.
 *
 * The model.  Keys are drawn from a fixed universe of UNIVERSE keys built
 * from the seed: strings (short, longer than 28 bytes, with a shared
 * prefix), byte keys (lengths 0..40, embedded NULs, the empty key, near
 * misses of the integer encoding), i64 keys (negative, INT64_MIN/MAX) and
 * u64 keys (0, UINT64_MAX, ...).  Every key is kept as the bytes the map
 * sees (SPEC 3: a string without its NUL; an integer as 0x00, 0x01 (i64) or
 * 0x02 (u64), then the value little-endian), and universe keys with equal
 * bytes share one model slot, so "i64 -1" and the 10 raw bytes of its
 * encoding are one entry, and the empty string is the empty byte key.  The
 * model is two arrays indexed by that slot (present, value); a key seen in
 * a walk is found again by binary search in the universe sorted by bytes.
 * Any API may reach any key: string keys sometimes go through the bytes
 * API, integer keys sometimes through the bytes API with their encoding,
 * NUL-free byte keys sometimes through the string API.
 *
 * Operations: set, get (hits and misses, sometimes with a NULL value
 * pointer), delete (hits and misses), delete_if (a predicate on the value's
 * bits), clear, compact, reserve, clone (compared to the model and to its
 * source, changed, changed back, changed again, freed), equal, each (full
 * walks and early stops).  After every step slate_length must equal the
 * model's size; every 1,000 steps and at the end slate_check must pass and
 * map and model are compared both ways (a walk over the map, a lookup of
 * every universe key).  Statistics of the run go to stderr.
 *
 * The run is cut into phases of 2,000..10,000 steps (20,000 when the whole
 * universe is in play); each phase draws keys from a prefix of the
 * (shuffled) universe (8 keys .. all of them) and leans toward growing,
 * balance or shrinking, so the map keeps passing between the small map, one
 * table, splits and a directory, up to a few thousand entries.  In some
 * phases a second map mirrors every change of the first (slate_equal must
 * say 1); in the others it stands still (slate_equal must agree with the
 * models).
 *
 * Build (also as C++17 with g++ -std=c++17 -x c++ ... -x none, and clang):
 *   gcc -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude c-tests/map/random.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tr && /tmp/tr
 */
#define SLATE_IMPLEMENTATION
#include "slate.h"
#include "../support/test.h"
#include "../support/map_check.h"
#include "../support/rng.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_STEPS 200000UL
#define CHECK_EVERY 1000UL
#define UNIVERSE 4096u /* keys the operations draw from */
#define KEY_MAX 40u    /* longest universe key */
#define KEY_CAP 48u    /* room for a longer (never-in-universe) key and its NUL */

#define V(n) ((void*)(uintptr_t)(n))

/* A pointer no value ever equals: what a NOT_FOUND lookup must leave alone. */
static char sentinel_object_;
#define SENTINEL ((void*)&sentinel_object_)

/* ------------------------------------------------------------------------ */
/* keys                                                                      */
/* ------------------------------------------------------------------------ */

enum { KIND_STRING, KIND_BYTES, KIND_I64, KIND_U64 };
static const char* const kind_names_[] = {"string", "bytes", "i64", "u64"};

/* Which entry point an operation goes through. */
enum { VIA_STRING, VIA_BYTES, VIA_I64, VIA_U64 };
static const char* const via_names_[] = {"slate_*", "slate_*_bytes", "slate_*_i64",
                                         "slate_*_u64"};

typedef struct tkey {
  int kind;
  uint32_t len;              /* bytes the map sees */
  uint64_t ival;             /* the integer of an i64/u64 key */
  unsigned char b[KEY_CAP];  /* the bytes the map sees; b[len] == 0 */
} tkey;

/* SPEC 3: 0x00, tag (0x01 i64, 0x02 u64), the value little-endian. */
static void encode_int(unsigned char out[10], unsigned char tag, uint64_t value) {
  out[0] = 0x00;
  out[1] = tag;
  for (int i = 0; i < 8; i++) out[2 + i] = (unsigned char)(value >> (8 * i));
}

static void make_int(tkey* k, int kind, uint64_t value) {
  memset(k, 0, sizeof *k);
  k->kind = kind;
  k->ival = value;
  k->len = 10;
  encode_int(k->b, kind == KIND_I64 ? 0x01 : 0x02, value);
}

static void make_string(tkey* k, const char* s) {
  memset(k, 0, sizeof *k);
  k->kind = KIND_STRING;
  k->len = (uint32_t)strlen(s);
  memcpy(k->b, s, k->len);
}

static void make_bytes(tkey* k, const void* bytes, uint32_t len) {
  memset(k, 0, sizeof *k);
  k->kind = KIND_BYTES;
  k->len = len;
  if (len) memcpy(k->b, bytes, len);
}

static const char alnum_[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
static const char shared_prefix_[] = "shared/prefix/16"; /* 16 bytes */

static unsigned char random_text_byte(void) {
  if (one_in(4)) return (unsigned char)(1 + rng_below(255)); /* any byte but NUL */
  return (unsigned char)alnum_[rng_below((uint32_t)sizeof alnum_ - 1)];
}

static void gen_string(tkey* k) {
  uint32_t r = rng_below(16), i = 0, len;
  memset(k, 0, sizeof *k);
  k->kind = KIND_STRING;
  len = r == 0 ? 0 : r < 8 ? 1 + rng_below(12) : 13 + rng_below(KEY_MAX - 12);
  if (len > 16 && one_in(3)) {
    memcpy(k->b, shared_prefix_, 16);
    i = 16;
  }
  for (; i < len; i++) k->b[i] = random_text_byte();
  k->len = len;
}

static tkey universe_[UNIVERSE];

/* `built`: how many universe keys exist already (a byte key may be made
   from one of them: one byte longer or shorter). */
static void gen_bytes(tkey* k, uint32_t built) {
  uint32_t r = rng_below(8), len, i;
  memset(k, 0, sizeof *k);
  k->kind = KIND_BYTES;
  if (r == 5 && built > 0) {
    const tkey* from = &universe_[rng_below(built)];
    memcpy(k->b, from->b, from->len);
    k->len = from->len;
    if (k->len < KEY_MAX && one_in(2)) {
      k->b[k->len++] = 0x00; /* the same bytes and one NUL more */
    } else if (k->len > 0) {
      k->b[--k->len] = 0x00; /* one byte less */
    }
    return;
  }
  switch (r) {
    case 4: /* all NULs: "", "\0", "\0\0", ... */
      k->len = rng_below(KEY_MAX + 1);
      break;
    case 6: /* starts like an integer key but is not 10 bytes long */
      len = 2 + rng_below(KEY_MAX - 1);
      if (len == 10) len = 11;
      k->b[0] = 0x00;
      k->b[1] = (unsigned char)(1 + rng_below(2));
      for (i = 2; i < len; i++) k->b[i] = (unsigned char)rng_below(256);
      k->len = len;
      break;
    case 7: /* exactly an integer key's encoding: the same entry */
      encode_int(k->b, (unsigned char)(1 + rng_below(2)), (uint64_t)((int64_t)rng_below(16) - 8));
      k->len = 10;
      break;
    default: /* random, a third of the bytes NUL */
      len = rng_below(KEY_MAX + 1);
      for (i = 0; i < len; i++) k->b[i] = one_in(3) ? 0x00 : (unsigned char)rng_below(256);
      k->len = len;
      break;
  }
}

static const int64_t i64_specials_[] = {0,
                                        1,
                                        -1,
                                        INT64_MIN,
                                        INT64_MAX,
                                        INT64_MIN + 1,
                                        INT64_MAX - 1,
                                        255,
                                        256,
                                        -256,
                                        (int64_t)1 << 32,
                                        -((int64_t)1 << 32)};
static const uint64_t u64_specials_[] = {0,
                                         1,
                                         UINT64_MAX,
                                         UINT64_MAX - 1,
                                         (uint64_t)1 << 63,
                                         ((uint64_t)1 << 63) - 1,
                                         255,
                                         256,
                                         (uint64_t)1 << 32};

static void gen_i64(tkey* k) {
  uint32_t r = rng_below(4);
  int64_t v;
  if (r == 0)
    v = i64_specials_[rng_below((uint32_t)(sizeof i64_specials_ / sizeof i64_specials_[0]))];
  else if (r == 3)
    v = (int64_t)rng_next();
  else
    v = (int64_t)rng_below(1024) - 512;
  make_int(k, KIND_I64, (uint64_t)v);
}

static void gen_u64(tkey* k) {
  uint32_t r = rng_below(4);
  uint64_t v;
  if (r == 0)
    v = u64_specials_[rng_below((uint32_t)(sizeof u64_specials_ / sizeof u64_specials_[0]))];
  else if (r == 3)
    v = rng_next();
  else
    v = rng_below(1024); /* the same numbers as small i64 keys: other entries */
  make_int(k, KIND_U64, v);
}

static void gen_key(tkey* k, uint32_t built) {
  uint32_t r = rng_below(10);
  if (r < 3)
    gen_string(k);
  else if (r < 6)
    gen_bytes(k, built);
  else if (r < 8)
    gen_i64(k);
  else
    gen_u64(k);
}

static int key_cmp(const unsigned char* a, uint32_t alen, const unsigned char* b, uint32_t blen) {
  uint32_t n = alen < blen ? alen : blen;
  int c = n ? memcmp(a, b, n) : 0;
  if (c != 0) return c;
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* the universe and the model                                                */
/* ------------------------------------------------------------------------ */

static uint32_t canon_[UNIVERSE];  /* model slot of each universe key */
static uint32_t sorted_[UNIVERSE]; /* universe ids sorted by bytes */

static int cmp_ids(const void* pa, const void* pb) {
  const tkey* a = &universe_[*(const uint32_t*)pa];
  const tkey* b = &universe_[*(const uint32_t*)pb];
  return key_cmp(a->b, a->len, b->b, b->len);
}

static void build_universe(void) {
  static const unsigned char nul[1] = {0};
  unsigned char enc[10];
  uint32_t n = 0, i;
  tkey* u = universe_;
  /* keys every run has */
  make_string(&u[n++], "");
  make_bytes(&u[n++], NULL, 0);
  make_bytes(&u[n++], nul, 1);
  make_string(&u[n++], "a");
  make_string(&u[n++], "twelve-bytes");                             /* 12 */
  make_string(&u[n++], "thirteen-byte");                            /* 13 */
  make_string(&u[n++], "twenty-eight-bytes-in-a-slot");             /* 28 */
  make_string(&u[n++], "twenty-nine-bytes-out-of-slot");            /* 29 */
  make_string(&u[n++], "forty-bytes-forty-bytes-forty-bytes-40b"); /* 39 */
  make_int(&u[n++], KIND_I64, 0);
  make_int(&u[n++], KIND_I64, (uint64_t)(int64_t)-1);
  make_int(&u[n++], KIND_I64, (uint64_t)INT64_MIN);
  make_int(&u[n++], KIND_I64, (uint64_t)INT64_MAX);
  make_int(&u[n++], KIND_U64, 0);
  make_int(&u[n++], KIND_U64, 1);
  make_int(&u[n++], KIND_U64, UINT64_MAX);
  encode_int(enc, 0x01, (uint64_t)(int64_t)-1); /* = i64 -1 */
  make_bytes(&u[n++], enc, 10);
  encode_int(enc, 0x02, UINT64_MAX); /* = u64 UINT64_MAX */
  make_bytes(&u[n++], enc, 10);
  while (n < UNIVERSE) {
    gen_key(&u[n], n);
    n++;
  }
  /* shuffle, so that every prefix of the universe mixes all kinds */
  for (i = UNIVERSE - 1; i > 0; i--) {
    uint32_t j = rng_below(i + 1);
    tkey t = u[i];
    u[i] = u[j];
    u[j] = t;
  }
  for (i = 0; i < UNIVERSE; i++) sorted_[i] = i;
  qsort(sorted_, UNIVERSE, sizeof sorted_[0], cmp_ids);
  /* keys with equal bytes share the slot of the smallest id among them */
  for (i = 0; i < UNIVERSE;) {
    uint32_t j = i, low = sorted_[i];
    while (j < UNIVERSE && cmp_ids(&sorted_[i], &sorted_[j]) == 0) {
      if (sorted_[j] < low) low = sorted_[j];
      j++;
    }
    for (; i < j; i++) canon_[sorted_[i]] = low;
  }
}

/* The model slot of a byte string, or -1 when it is no universe key. */
static int32_t model_find(const unsigned char* bytes, uint32_t len) {
  uint32_t lo = 0, hi = UNIVERSE;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const tkey* k = &universe_[sorted_[mid]];
    int c = key_cmp(k->b, k->len, bytes, len);
    if (c == 0) return (int32_t)canon_[sorted_[mid]];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

typedef struct model_s {
  uint32_t size;
  unsigned char present[UNIVERSE]; /* by slot */
  uintptr_t value[UNIVERSE];
} model_s;

static void model_set(model_s* md, uint32_t slot, uintptr_t value) {
  if (!md->present[slot]) md->size++;
  md->present[slot] = 1;
  md->value[slot] = value;
}

static int model_delete(model_s* md, uint32_t slot) {
  if (!md->present[slot]) return 0;
  md->present[slot] = 0;
  md->size--;
  return 1;
}

static void model_clear(model_s* md) {
  memset(md->present, 0, sizeof md->present);
  md->size = 0;
}

static int models_equal(const model_s* a, const model_s* b) {
  if (a->size != b->size) return 0;
  for (uint32_t s = 0; s < UNIVERSE; s++) {
    if (a->present[s] != b->present[s]) return 0;
    if (a->present[s] && a->value[s] != b->value[s]) return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------------ */
/* the map side: one key through one of the entry points                     */
/* ------------------------------------------------------------------------ */

static int key_has_nul(const tkey* k) { return k->len > 0 && memchr(k->b, 0, k->len) != NULL; }

static int pick_via(const tkey* k) {
  switch (k->kind) {
    case KIND_STRING:
      return one_in(8) ? VIA_BYTES : VIA_STRING;
    case KIND_BYTES:
      return !key_has_nul(k) && one_in(8) ? VIA_STRING : VIA_BYTES;
    case KIND_I64:
      return one_in(8) ? VIA_BYTES : VIA_I64;
    default:
      return one_in(8) ? VIA_BYTES : VIA_U64;
  }
}

/* The empty key goes in as NULL and as a real pointer, in turn. */
static unsigned empty_flip_;
static const void* key_bytes(const tkey* k) {
  if (k->len == 0 && (empty_flip_++ & 1u)) return NULL;
  return k->b;
}

static int key_set(slate_s* m, const tkey* k, int via, void* value) {
  switch (via) {
    case VIA_STRING:
      return slate_set(m, (const char*)k->b, value);
    case VIA_I64:
      return slate_set_i64(m, (int64_t)k->ival, value);
    case VIA_U64:
      return slate_set_u64(m, k->ival, value);
    default:
      return slate_set_bytes(m, key_bytes(k), k->len, value);
  }
}

static int key_get(const slate_s* m, const tkey* k, int via, void** value) {
  switch (via) {
    case VIA_STRING:
      return slate_get(m, (const char*)k->b, value);
    case VIA_I64:
      return slate_get_i64(m, (int64_t)k->ival, value);
    case VIA_U64:
      return slate_get_u64(m, k->ival, value);
    default:
      return slate_get_bytes(m, key_bytes(k), k->len, value);
  }
}

static int key_delete(slate_s* m, const tkey* k, int via) {
  switch (via) {
    case VIA_STRING:
      return slate_delete(m, (const char*)k->b);
    case VIA_I64:
      return slate_delete_i64(m, (int64_t)k->ival);
    case VIA_U64:
      return slate_delete_u64(m, k->ival);
    default:
      return slate_delete_bytes(m, key_bytes(k), k->len);
  }
}

/* ------------------------------------------------------------------------ */
/* what the current step does, for the failure report                        */
/* ------------------------------------------------------------------------ */

static struct {
  unsigned long step;
  const char* name;
  int has_key;
  tkey key;
  int via;
  int has_value;
  uintptr_t value;
  char detail[160];
} op_;

static void op_begin(unsigned long step, const char* name) {
  op_.step = step;
  op_.name = name;
  op_.has_key = 0;
  op_.has_value = 0;
  op_.detail[0] = '\0';
}

static void op_key(const tkey* k, int via) {
  op_.has_key = 1;
  op_.key = *k;
  op_.via = via;
}

static void op_value(uintptr_t v) {
  op_.has_value = 1;
  op_.value = v;
}

static void print_bytes(FILE* f, const unsigned char* b, uint32_t len) {
  fprintf(f, "\"");
  for (uint32_t i = 0; i < len; i++) {
    if (b[i] >= 0x20 && b[i] < 0x7F && b[i] != '"' && b[i] != '\\')
      fputc(b[i], f);
    else
      fprintf(f, "\\x%02x", b[i]);
  }
  fprintf(f, "\" (%u bytes)", (unsigned)len);
}

static void print_key(FILE* f, const tkey* k) {
  fprintf(f, "%s key ", kind_names_[k->kind]);
  if (k->kind == KIND_I64)
    fprintf(f, "%lld = ", (long long)(int64_t)k->ival);
  else if (k->kind == KIND_U64)
    fprintf(f, "%llu = ", (unsigned long long)k->ival);
  print_bytes(f, k->b, k->len);
}

static void describe_op(FILE* f) {
  fprintf(f, "step %lu: %s", op_.step, op_.name);
  if (op_.has_key) {
    fprintf(f, " via %s, ", via_names_[op_.via]);
    print_key(f, &op_.key);
  }
  if (op_.has_value) fprintf(f, ", value %p", V(op_.value));
  if (op_.detail[0]) fprintf(f, ", %s", op_.detail);
  fprintf(f, "\n");
}

/* ------------------------------------------------------------------------ */
/* walking a map against a model                                             */
/* ------------------------------------------------------------------------ */

static uint32_t visit_stamp_[UNIVERSE]; /* slot -> the walk that last saw it */
static uint32_t stamp_counter_;
static unsigned problems_printed_; /* per comparison, to keep reports short */

typedef struct walk_s {
  const model_s* model;
  const char* label;
  uint32_t stamp;
  uint64_t count;
  uint64_t problems;
  uint64_t stop_after; /* return stop_ret at this call (0: never) */
  int stop_ret;
  uint32_t* order; /* when set: the slots in visiting order */
  uint64_t order_len;
  int predicate; /* slate_delete_if: return pred_ret when the value matches */
  unsigned shift;
  uintptr_t mask, match;
  int pred_ret;
} walk_s;

static void walk_init(walk_s* w, const model_s* model, const char* label) {
  memset(w, 0, sizeof *w);
  w->model = model;
  w->label = label;
  w->stamp = ++stamp_counter_;
  problems_printed_ = 0;
}

static void report_entry(const char* label, const char* what, const unsigned char* key,
                         uint32_t len, void* value) {
  if (problems_printed_++ >= 5) return;
  fprintf(stderr, "  %s: %s: key ", label, what);
  print_bytes(stderr, key, len);
  fprintf(stderr, ", value %p\n", value);
}

static int value_matches(const walk_s* w, uintptr_t value) {
  return ((value >> w->shift) & w->mask) == w->match;
}

static int walk_cb(const char* key, uint32_t len, void* value, void* data) {
  walk_s* w = (walk_s*)data;
  const unsigned char* k = (const unsigned char*)key;
  int32_t slot = model_find(k, len);
  w->count++;
  if (slot < 0 || !w->model->present[slot]) {
    w->problems++;
    report_entry(w->label, "entry the model does not have", k, len, value);
  } else {
    if (value != V(w->model->value[slot])) {
      w->problems++;
      report_entry(w->label, "wrong value (model has another)", k, len, value);
    }
    if (visit_stamp_[slot] == w->stamp) {
      w->problems++;
      report_entry(w->label, "visited twice", k, len, value);
    }
    visit_stamp_[slot] = w->stamp;
  }
  if (w->order && w->order_len < UNIVERSE)
    w->order[w->order_len++] = slot < 0 ? UINT32_MAX : (uint32_t)slot;
  if (w->predicate) return value_matches(w, (uintptr_t)value) ? w->pred_ret : 0;
  if (w->stop_after != 0 && w->count == w->stop_after) return w->stop_ret;
  return 0;
}

/* slate_each over the map: every entry is in the model with its value, none
   twice, as many as the model holds. Returns the number of problems. */
static uint64_t compare_walk(const slate_s* m, const model_s* model, const char* label,
                             uint32_t* order, uint64_t* order_len) {
  walk_s w;
  walk_init(&w, model, label);
  w.order = order;
  int rc = slate_each(m, walk_cb, &w);
  if (rc != SLATE_OK) {
    w.problems++;
    fprintf(stderr, "  %s: slate_each returned %d\n", label, rc);
  }
  if (w.count != model->size) {
    w.problems++;
    fprintf(stderr, "  %s: slate_each visited %llu entries, the model has %u\n", label,
            (unsigned long long)w.count, (unsigned)model->size);
  }
  if (order_len) *order_len = w.order_len;
  return w.problems;
}

/* Looks every universe key up in the map (through a random entry point):
   present ones with the model's value, absent ones NOT_FOUND with *value
   untouched. With per_entry, one assertion per key; else returns the
   number of problems. */
static uint64_t compare_lookup(const slate_s* m, const model_s* model, const char* label,
                               int per_entry) {
  uint64_t problems = 0;
  problems_printed_ = 0;
  for (uint32_t s = 0; s < UNIVERSE; s++) {
    if (canon_[s] != s) continue;
    const tkey* k = &universe_[s];
    int via = pick_via(k);
    void* v = SENTINEL;
    int rc = key_get(m, k, via, &v);
    int ok = model->present[s] ? rc == SLATE_OK && v == V(model->value[s])
                               : rc == SLATE_ERROR_NOT_FOUND && v == SENTINEL;
    if (!ok && problems_printed_++ < 5) {
      fprintf(stderr, "  %s: lookup via %s of ", label, via_names_[via]);
      print_key(stderr, k);
      fprintf(stderr, ": rc %d value %p, model: %s %p\n", rc, v,
              model->present[s] ? "present" : "absent",
              model->present[s] ? V(model->value[s]) : SENTINEL);
    }
    if (per_entry)
      CHECK(ok);
    else if (!ok)
      problems++;
  }
  return problems;
}

/* ------------------------------------------------------------------------ */
/* the test state and its operations                                         */
/* ------------------------------------------------------------------------ */

static slate_s map_;     /* the map under test */
static slate_s other_;   /* the second map, for slate_equal */
static model_s model_;   /* what map_ holds */
static model_s model2_;  /* what other_ holds */
static int other_touched_;

enum {
  OP_SET,
  OP_GET,
  OP_DELETE,
  OP_DELETE_IF,
  OP_CLEAR,
  OP_COMPACT,
  OP_RESERVE,
  OP_CLONE,
  OP_EQUAL,
  OP_SYNC,
  OP_EACH,
  OP_EACH_STOP,
  OP_COUNT
};
static const char* const op_names_[OP_COUNT] = {
    "set",     "get",   "delete", "delete_if", "clear", "compact",
    "reserve", "clone", "equal",  "sync",      "each",  "each-stop"};

static struct {
  uint32_t limit; /* keys come from universe_[0 .. limit-1] */
  uint32_t w_set, w_delete;
  int mirror; /* other_ follows every change of map_ */
  unsigned long end;
} phase_;

static struct {
  unsigned long ops[OP_COUNT];
  uint64_t max_length;
  uint32_t max_tables, max_depth; /* seen at checkpoints */
  unsigned long steps_over_1000, steps_small, phases, mirror_phases, equal_true, equal_false;
} stats_;

static uintptr_t gen_value(void) {
  uint32_t r = rng_below(16);
  if (r == 0) return 0; /* NULL is a value like any other */
  if (r == 1) return 1 + rng_below(16);
  return (uintptr_t)rng_next();
}

/* A key for an operation: a universe key of this phase, or (fresh) a new
   random key, most likely not in the map. `slot` is its model slot or -1. */
static const tkey* pick_key(int allow_fresh, tkey* scratch, int32_t* slot) {
  if (allow_fresh && one_in(10)) {
    gen_key(scratch, UNIVERSE);
    *slot = model_find(scratch->b, scratch->len);
    return scratch;
  }
  uint32_t id = rng_below(phase_.limit);
  *slot = (int32_t)canon_[id];
  return &universe_[id];
}

static void mirror_set(const tkey* k, uint32_t slot, uintptr_t value) {
  CHECK_EQ_INT(key_set(&other_, k, pick_via(k), V(value)), SLATE_OK);
  model_set(&model2_, slot, value);
  other_touched_ = 1;
}

static void op_set(unsigned long step) {
  int32_t slot;
  const tkey* k = pick_key(0, NULL, &slot);
  int via = pick_via(k);
  uintptr_t value = gen_value();
  op_begin(step, "set");
  op_key(k, via);
  op_value(value);
  CHECK_EQ_INT(key_set(&map_, k, via, V(value)), SLATE_OK);
  model_set(&model_, (uint32_t)slot, value);
  if (phase_.mirror) mirror_set(k, (uint32_t)slot, value);
}

static void op_get(unsigned long step) {
  tkey scratch;
  int32_t slot;
  const tkey* k = pick_key(1, &scratch, &slot);
  int via = pick_via(k);
  int presence_only = one_in(8);
  int present = slot >= 0 && model_.present[slot];
  void* v = SENTINEL;
  op_begin(step, presence_only ? "get (value pointer NULL)" : "get");
  op_key(k, via);
  int rc = key_get(&map_, k, via, presence_only ? NULL : &v);
  CHECK_EQ_INT(rc, present ? SLATE_OK : SLATE_ERROR_NOT_FOUND);
  if (!presence_only) CHECK_EQ_PTR(v, present ? V(model_.value[slot]) : SENTINEL);
}

static void op_delete(unsigned long step) {
  tkey scratch;
  int32_t slot;
  const tkey* k = pick_key(1, &scratch, &slot);
  int via = pick_via(k);
  int present = slot >= 0 && model_.present[slot];
  op_begin(step, "delete");
  op_key(k, via);
  CHECK_EQ_INT(key_delete(&map_, k, via), present ? SLATE_OK : SLATE_ERROR_NOT_FOUND);
  if (present) model_delete(&model_, (uint32_t)slot);
  if (phase_.mirror) {
    int present2 = slot >= 0 && model2_.present[slot];
    CHECK_EQ_INT(key_delete(&other_, k, pick_via(k)),
                 present2 ? SLATE_OK : SLATE_ERROR_NOT_FOUND);
    if (present2) model_delete(&model2_, (uint32_t)slot);
    other_touched_ = 1;
  }
}

/* slate_delete_if with a predicate on the value's bits; `model` follows. */
static void delete_if_on(slate_s* m, model_s* model, const char* label, const walk_s* shape) {
  walk_s w;
  uint32_t before = model->size;
  walk_init(&w, model, label);
  w.predicate = 1;
  w.shift = shape->shift;
  w.mask = shape->mask;
  w.match = shape->match;
  w.pred_ret = shape->pred_ret;
  CHECK_EQ_INT(slate_delete_if(m, walk_cb, &w), SLATE_OK);
  /* the predicate saw every entry once, each as the model has it */
  if (w.count != before)
    fprintf(stderr, "  %s: the predicate ran %llu times for %u entries\n", label,
            (unsigned long long)w.count, (unsigned)before);
  CHECK(w.problems == 0 && w.count == before);
  for (uint32_t s = 0; s < UNIVERSE; s++)
    if (model->present[s] && value_matches(&w, model->value[s])) model_delete(model, s);
}

static void op_delete_if(unsigned long step) {
  static const struct {
    uintptr_t mask, match;
    unsigned weight;
  } shapes[] = {
      {0, 1, 2},  /* nothing */
      {63, 5, 4}, /* 1/64 */
      {15, 3, 4}, /* 1/16 */
      {3, 1, 2},  /* 1/4 */
      {1, 0, 1},  /* 1/2 (and NULL values) */
      {0, 0, 1},  /* everything */
  };
  static const int rets[] = {1, -1, 2, 77, INT_MIN, INT_MAX};
  walk_s shape;
  unsigned total = 0, r, i;
  for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++) total += shapes[i].weight;
  r = rng_below(total);
  for (i = 0; r >= shapes[i].weight; i++) r -= shapes[i].weight;
  memset(&shape, 0, sizeof shape);
  shape.shift = rng_below(8);
  shape.mask = shapes[i].mask;
  shape.match = shapes[i].match;
  shape.pred_ret = rets[rng_below((uint32_t)(sizeof rets / sizeof rets[0]))];
  op_begin(step, "delete_if");
  snprintf(op_.detail, sizeof op_.detail,
           "predicate ((value >> %u) & 0x%llx) == 0x%llx returning %d", shape.shift,
           (unsigned long long)shape.mask, (unsigned long long)shape.match, shape.pred_ret);
  delete_if_on(&map_, &model_, "map", &shape);
  if (phase_.mirror) {
    delete_if_on(&other_, &model2_, "second map", &shape);
    other_touched_ = 1;
  }
}

static void op_clear(unsigned long step) {
  op_begin(step, "clear");
  CHECK_EQ_INT(slate_clear(&map_), SLATE_OK);
  model_clear(&model_);
  if (phase_.mirror) {
    CHECK_EQ_INT(slate_clear(&other_), SLATE_OK);
    model_clear(&model2_);
    other_touched_ = 1;
  }
}

static void op_compact(unsigned long step) {
  op_begin(step, "compact");
  CHECK_EQ_INT(slate_compact(&map_), SLATE_OK);
  CHECK_EQ_U64(info_of(&map_).tombstones, 0); /* SPEC 4: compact drops them */
  if (one_in(4)) {
    CHECK_EQ_INT(slate_compact(&other_), SLATE_OK);
    other_touched_ = 1;
  }
}

static void op_reserve(unsigned long step) {
  uint64_t n = one_in(2) ? rng_below(5000) : slate_length(&map_) + rng_below(64);
  op_begin(step, "reserve");
  snprintf(op_.detail, sizeof op_.detail, "n %llu", (unsigned long long)n);
  CHECK_EQ_INT(slate_reserve(&map_, n), SLATE_OK);
}

static void op_each(unsigned long step) {
  op_begin(step, "each (full walk)");
  CHECK_EQ_U64(compare_walk(&map_, &model_, "each", NULL, NULL), 0);
}

static void op_each_stop(unsigned long step) {
  static const int rets[] = {1, -1, 2, 42, SLATE_ERROR_NOT_FOUND, INT_MIN, INT_MAX};
  walk_s w;
  walk_init(&w, &model_, "each (early stop)");
  w.stop_ret = rets[rng_below((uint32_t)(sizeof rets / sizeof rets[0]))];
  w.stop_after = model_.size ? 1 + rng_below(model_.size) : 0;
  op_begin(step, "each (early stop)");
  snprintf(op_.detail, sizeof op_.detail, "callback returns %d at call %llu", w.stop_ret,
           (unsigned long long)w.stop_after);
  int rc = slate_each(&map_, walk_cb, &w);
  CHECK_EQ_INT(rc, model_.size ? w.stop_ret : (int)SLATE_OK);
  CHECK(w.count == w.stop_after && w.problems == 0);
}

/* Equality of the two maps must follow equality of the two models. */
static void op_equal(unsigned long step) {
  int expect = models_equal(&model_, &model2_);
  op_begin(step, "equal");
  snprintf(op_.detail, sizeof op_.detail, "expecting %d (sizes %u and %u)", expect,
           (unsigned)model_.size, (unsigned)model2_.size);
  CHECK_EQ_INT(slate_equal(&map_, &other_), expect);
  CHECK_EQ_INT(slate_equal(&other_, &map_), expect);
  if (one_in(16)) CHECK_EQ_INT(slate_equal(&map_, &map_), 1);
  if (expect)
    stats_.equal_true++;
  else
    stats_.equal_false++;
}

/* Rebuild the second map from the model, in another order and through
   other entry points, so it holds the same entries with another layout. */
static void op_sync(unsigned long step) {
  unsigned long bad = 0;
  uint32_t start = rng_below(UNIVERSE);
  op_begin(step, "sync (rebuild the second map from the model)");
  if (one_in(2)) {
    slate_free(&other_);
  } else if (slate_clear(&other_) != SLATE_OK) {
    bad++;
  }
  for (uint32_t i = 0; i < UNIVERSE; i++) {
    uint32_t s = (start + UNIVERSE - i) % UNIVERSE;
    if (!model_.present[s]) continue;
    const tkey* k = &universe_[s];
    if (key_set(&other_, k, pick_via(k), V(model_.value[s])) != SLATE_OK) bad++;
  }
  model2_ = model_;
  other_touched_ = 1;
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_INT(slate_equal(&map_, &other_), 1);
}

/* A change to a clone, and how to take it back. */
typedef struct mutation_s {
  int type; /* 0 replace a value, 1 delete, 2 insert */
  const tkey* key;
  int via;
  uintptr_t old_value, new_value;
  tkey fresh;
} mutation_s;

static int32_t find_slot(int present) {
  uint32_t start = rng_below(UNIVERSE);
  for (uint32_t i = 0; i < UNIVERSE; i++) {
    uint32_t s = (start + i) % UNIVERSE;
    if (canon_[s] == s && model_.present[s] == (present ? 1 : 0)) return (int32_t)s;
  }
  return -1;
}

/* Applies a random mutation to the clone `c` of map_ and checks it landed
   in the clone only. Returns 1 when all went as expected. */
static int mutate_clone(slate_s* c, mutation_s* mu) {
  int32_t slot = -1;
  int rc, ok;
  void* vc = SENTINEL;
  void* vm = SENTINEL;
  mu->type = model_.size == 0 ? 2 : (int)rng_below(3);
  if (mu->type != 2) {
    slot = find_slot(1);
    mu->key = &universe_[slot];
    mu->old_value = model_.value[slot];
  } else {
    slot = one_in(2) ? find_slot(0) : -1;
    if (slot >= 0) {
      mu->key = &universe_[slot];
    } else { /* a string longer than any universe key */
      uint32_t len = KEY_MAX + 1 + rng_below(KEY_CAP - KEY_MAX - 1);
      memset(&mu->fresh, 0, sizeof mu->fresh);
      mu->fresh.kind = KIND_STRING;
      mu->fresh.len = len;
      for (uint32_t i = 0; i < len; i++) mu->fresh.b[i] = random_text_byte();
      mu->key = &mu->fresh;
    }
  }
  mu->via = pick_via(mu->key);
  mu->new_value = mu->type == 0 ? mu->old_value ^ 0x40 : gen_value();
  if (mu->type == 1)
    rc = key_delete(c, mu->key, mu->via);
  else
    rc = key_set(c, mu->key, mu->via, V(mu->new_value));
  ok = rc == SLATE_OK;
  /* the clone shows the change, the source does not */
  rc = key_get(c, mu->key, pick_via(mu->key), &vc);
  ok = ok && (mu->type == 1 ? rc == SLATE_ERROR_NOT_FOUND && vc == SENTINEL
                            : rc == SLATE_OK && vc == V(mu->new_value));
  rc = key_get(&map_, mu->key, pick_via(mu->key), &vm);
  ok = ok && (mu->type == 2 ? rc == SLATE_ERROR_NOT_FOUND && vm == SENTINEL
                            : rc == SLATE_OK && vm == V(mu->old_value));
  if (!ok) {
    fprintf(stderr, "  clone mutation %d via %s of ", mu->type, via_names_[mu->via]);
    print_key(stderr, mu->key);
    fprintf(stderr, " did not land in the clone only\n");
  }
  return ok;
}

static int revert_clone(slate_s* c, const mutation_s* mu) {
  if (mu->type == 2) return key_delete(c, mu->key, pick_via(mu->key));
  return key_set(c, mu->key, pick_via(mu->key), V(mu->old_value));
}

static uint32_t order_source_[UNIVERSE];
static uint32_t order_clone_[UNIVERSE];

static void op_clone(unsigned long step) {
  slate_s c;
  mutation_s mu;
  uint64_t n_source = 0, n_clone = 0, problems;
  int fresh = one_in(2);
  op_begin(step, fresh ? "clone (into uninitialized memory)" : "clone (into a freed map)");
  if (fresh) {
    memset(&c, 0xA5, sizeof c);
  } else {
    slate(&c);
    slate_set(&c, "stale entry", V(1));
    slate_set_u64(&c, 7, V(2));
    slate_free(&c);
  }
  if (!CHECK_EQ_INT(slate_clone(&c, &map_), SLATE_OK)) {
    slate_free(&c);
    return;
  }
  CHECK_MAP_OK(&c);
  /* the clone holds what the model holds, both ways, in the source's order */
  problems = compare_walk(&c, &model_, "clone", order_clone_, &n_clone);
  problems += compare_lookup(&c, &model_, "clone", 0);
  CHECK_EQ_U64(problems, 0);
  problems = compare_walk(&map_, &model_, "clone source", order_source_, &n_source);
  CHECK(problems == 0 && n_source == n_clone &&
        memcmp(order_source_, order_clone_, (size_t)n_source * sizeof order_source_[0]) == 0);
  CHECK(slate_equal(&c, &map_) == 1 && slate_equal(&map_, &c) == 1);
  /* change it, take the change back, change it again */
  CHECK(mutate_clone(&c, &mu));
  CHECK(slate_equal(&c, &map_) == 0 && slate_equal(&map_, &c) == 0);
  CHECK_EQ_INT(revert_clone(&c, &mu), SLATE_OK);
  CHECK(slate_equal(&c, &map_) == 1 && slate_equal(&map_, &c) == 1);
  CHECK(mutate_clone(&c, &mu));
  CHECK(slate_equal(&c, &map_) == 0 && slate_equal(&map_, &c) == 0);
  CHECK_EQ_U64(slate_length(&c), model_.size + (mu.type == 2) - (mu.type == 1));
  CHECK_MAP_OK(&c);
  slate_free(&c);
  /* the source never moved */
  problems = compare_walk(&map_, &model_, "source after clone", NULL, NULL);
  problems += compare_lookup(&map_, &model_, "source after clone", 0);
  CHECK_EQ_U64(problems, 0);
}

/* ------------------------------------------------------------------------ */
/* phases, checkpoints, the run                                              */
/* ------------------------------------------------------------------------ */


/* Returns 1 when the phase mirrors (it starts with a sync of the second map). */
static int new_phase(unsigned long step) {
  static const uint32_t limits[] = {8, 12, 40, 200, 1000, 1000, UNIVERSE, UNIVERSE, UNIVERSE,
                                    UNIVERSE};
  uint32_t bias = rng_below(4);
  phase_.limit = limits[rng_below((uint32_t)(sizeof limits / sizeof limits[0]))];
  phase_.w_set = bias < 2 ? 5000 : bias == 2 ? 2500 : 1000;
  phase_.w_delete = bias < 2 ? 400 : bias == 2 ? 2500 : 3500;
  phase_.mirror = one_in(3);
  /* the whole universe takes longer to fill */
  phase_.end = step + 2000 + rng_below(phase_.limit == UNIVERSE ? 18001 : 8001);
  stats_.phases++;
  if (phase_.mirror) stats_.mirror_phases++;
  return phase_.mirror;
}

static int pick_op(void) {
  const uint32_t w[OP_COUNT] = {
      phase_.w_set, 2500, phase_.w_delete, 4, 1, 15, 15, 8, 60, 10, 15, 20,
  };
  uint32_t total = 0, r;
  int op;
  for (op = 0; op < OP_COUNT; op++) total += w[op];
  r = rng_below(total);
  for (op = 0; r >= w[op]; op++) r -= w[op];
  return op;
}

static void checkpoint(int final) {
  slate_info_s in;
  if (slate_info(&map_, &in) == SLATE_OK) { /* for the closing statistics only */
    if (in.tables > stats_.max_tables) stats_.max_tables = in.tables;
    if (in.global_depth > stats_.max_depth) stats_.max_depth = in.global_depth;
  }
  CHECK_MAP_OK(&map_);
  CHECK_EQ_U64(compare_walk(&map_, &model_, "map vs model (walk)", NULL, NULL), 0);
  if (final)
    compare_lookup(&map_, &model_, "model vs map (lookup)", 1);
  else
    CHECK_EQ_U64(compare_lookup(&map_, &model_, "model vs map (lookup)", 0), 0);
  CHECK_MAP_OK(&other_);
  CHECK_EQ_U64(compare_walk(&other_, &model2_, "second map (walk)", NULL, NULL) +
                   compare_lookup(&other_, &model2_, "second map (lookup)", 0),
               0);
}

/* Prints the failing step and how to replay the run up to it. */
static void report_failure(uint64_t seed, unsigned long replay_steps, const char* where) {
  slate_info_s in;
  fprintf(stderr, "FIRST FAILURE%s at ", where);
  describe_op(stderr);
  memset(&in, 0, sizeof in);
  if (slate_info(&map_, &in) == SLATE_OK)
    fprintf(stderr,
            "  map: length %llu (model %u), seed 0x%llx, capacity %llu, tombstones %llu, "
            "tables %u, global depth %u, small %u; phase: keys 0..%u, mirror %d\n",
            (unsigned long long)in.length, (unsigned)model_.size,
            (unsigned long long)in.seed, (unsigned long long)in.capacity,
            (unsigned long long)in.tombstones, (unsigned)in.tables, (unsigned)in.global_depth,
            (unsigned)in.small, (unsigned)phase_.limit - 1, phase_.mirror);
  fprintf(stderr, "reproduce: map/random %llu %lu\n", (unsigned long long)seed, replay_steps);
}

int main(int argc, char** argv) {
  uint64_t seed;
  unsigned long steps = DEFAULT_STEPS, step;
  clock_t started = clock();
  int failed = 0;

  seed = rng_seed_from_args(argc, argv, &steps);
  TEST_SECTION("randomized differential test against a model");
  rng_state_ = seed;
  build_universe();
  {
    uint32_t distinct = 0;
    for (uint32_t s = 0; s < UNIVERSE; s++) distinct += canon_[s] == s;
    fprintf(stderr, "   %lu steps, %u universe keys, %u distinct byte strings\n", steps, UNIVERSE,
            distinct);
  }
  memset(&model_, 0, sizeof model_);
  memset(&model2_, 0, sizeof model2_);
  CHECK_EQ_INT(slate(&map_), SLATE_OK);
  CHECK_EQ_INT(slate(&other_), SLATE_OK);
  phase_.end = 0;

  for (step = 0; step < steps; step++) {
    int op = step == phase_.end && new_phase(step) ? (int)OP_SYNC : pick_op();
    other_touched_ = 0;
    stats_.ops[op]++;
    switch (op) {
      case OP_SET:
        op_set(step);
        break;
      case OP_GET:
        op_get(step);
        break;
      case OP_DELETE:
        op_delete(step);
        break;
      case OP_DELETE_IF:
        op_delete_if(step);
        break;
      case OP_CLEAR:
        op_clear(step);
        break;
      case OP_COMPACT:
        op_compact(step);
        break;
      case OP_RESERVE:
        op_reserve(step);
        break;
      case OP_CLONE:
        op_clone(step);
        break;
      case OP_EQUAL:
        op_equal(step);
        break;
      case OP_SYNC:
        op_sync(step);
        break;
      case OP_EACH:
        op_each(step);
        break;
      default:
        op_each_stop(step);
        break;
    }
    CHECK_EQ_U64(slate_length(&map_), model_.size);
    if (other_touched_) CHECK_EQ_U64(slate_length(&other_), model2_.size);
    if (model_.size > stats_.max_length) stats_.max_length = model_.size;
    if (model_.size > 1000) stats_.steps_over_1000++;
    if (model_.size <= 8) stats_.steps_small++;
    if (TEST_FAILED_COUNT() != 0) {
      report_failure(seed, step + 1, "");
      failed = 1;
      break;
    }
    if ((step + 1) % CHECK_EVERY == 0) {
      checkpoint(0);
      if (TEST_FAILED_COUNT() != 0) {
        report_failure(seed, step + 1, " (in the full comparison after the step)");
        failed = 1;
        break;
      }
    }
  }

  if (!failed) {
    checkpoint(1);
    if (TEST_FAILED_COUNT() != 0)
      report_failure(seed, steps, " (in the final comparison after the last step)");
  }
  fprintf(stderr, "   ops:");
  for (int op = 0; op < OP_COUNT; op++) fprintf(stderr, " %s %lu", op_names_[op], stats_.ops[op]);
  fprintf(stderr,
          "\n   lengths: max %llu, final %u; steps with > 1000 entries %lu, with <= 8 %lu\n"
          "   at checkpoints: tables max %u, global depth max %u\n"
          "   phases %lu (%lu mirrored); slate_equal 1: %lu, 0: %lu; %.2f s CPU\n",
          (unsigned long long)stats_.max_length, (unsigned)model_.size, stats_.steps_over_1000,
          stats_.steps_small, (unsigned)stats_.max_tables, (unsigned)stats_.max_depth,
          stats_.phases, stats_.mirror_phases, stats_.equal_true, stats_.equal_false,
          (double)(clock() - started) / CLOCKS_PER_SEC);
  slate_free(&map_);
  slate_free(&other_);
  return TEST_SUMMARY();
}
