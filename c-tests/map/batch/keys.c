/* map/batch: random numbers, the key universe and the model of a map
 * (declared in batch.h). */
#include "batch.h"

#include <limits.h>

char sentinel_object_;

const char* const via_names_[VIA_COUNT] = {"slate_get_many_u64", "slate_get_many_i64",
                                           "slate_get_many_bytes", "slate_get_many"};

/* Around the chunks of 16 keys the library works in, and past them. */
const size_t batch_sizes_[] = {0, 1, 2, 15, 16, 17, 63, 64, 65, 255, 256, 257};
const size_t batch_size_count_ = sizeof batch_sizes_ / sizeof batch_sizes_[0];

/* ------------------------------------------------------------------------ */
/* random numbers                                                            */
/* ------------------------------------------------------------------------ */

static uint64_t rnd_state_;

void rnd_seed(uint64_t seed) { rnd_state_ = seed; }

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t rnd(void) { return mix64(rnd_state_ += 0x9E3779B97F4A7C15ull); }
uint32_t rnd_below(uint32_t n) { return (uint32_t)(rnd() % n); }
int rnd_one_in(uint32_t n) { return rnd_below(n) == 0; }

void* xmalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "map/batch: out of memory (%lu bytes)\n", (unsigned long)n);
    exit(2);
  }
  return p;
}

/* ------------------------------------------------------------------------ */
/* the universe                                                              */
/* ------------------------------------------------------------------------ */

tkey* universe_;
static uint32_t* sorted_;      /* universe ids sorted by bytes */
static uint32_t* group_first_; /* by slot: its first place in sorted_ */
static uint32_t* group_count_; /* by slot: how many ids share it */

void encode_int(unsigned char out[10], unsigned char tag, uint64_t value) {
  out[0] = 0x00;
  out[1] = tag;
  for (int i = 0; i < 8; i++) out[2 + i] = (unsigned char)(value >> (8 * i));
}

static void set_bytes(tkey* k, int kind, const void* bytes, uint32_t len) {
  unsigned char* b = (unsigned char*)xmalloc((size_t)len + 1);
  if (len) memcpy(b, bytes, len);
  b[len] = 0;
  k->kind = kind;
  k->len = len;
  k->ival = 0;
  k->b = b;
  k->nul_free = len == 0 || memchr(b, 0, len) == NULL;
}

static void make_int(tkey* k, int kind, uint64_t value) {
  unsigned char enc[10];
  encode_int(enc, kind == KIND_I64 ? 0x01 : 0x02, value);
  set_bytes(k, kind, enc, 10);
  k->ival = value;
}

static const char alnum_[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

/* A length from one of the classes the library treats apart: 0, 1..28
   (in the slot), 29..32, 33..128, 129..300 (looked up alone in a batch),
   rarely up to 2,000. */
static uint32_t gen_length(void) {
  switch (rnd_below(11)) {
    case 0:
      return 0;
    case 1:
    case 2:
    case 3:
      return 1 + rnd_below(28);
    case 4:
    case 5:
      return 29 + rnd_below(4);
    case 6:
    case 7:
      return 33 + rnd_below(96);
    case 8:
    case 9:
      return 129 + rnd_below(172);
    default:
      return rnd_one_in(4) ? 301 + rnd_below(1700) : 1 + rnd_below(300);
  }
}

static unsigned char* scratch_; /* room for the longest generated key */
#define SCRATCH 4200u

static void gen_text(tkey* k, uint32_t len, int kind) {
  for (uint32_t i = 0; i < len; i++) {
    if (kind == KIND_BYTES && rnd_one_in(3))
      scratch_[i] = 0x00;
    else if (rnd_one_in(5))
      scratch_[i] = (unsigned char)(1 + rnd_below(255));
    else
      scratch_[i] = (unsigned char)alnum_[rnd_below((uint32_t)sizeof alnum_ - 1)];
  }
  set_bytes(k, kind, scratch_, len);
}

/* Another key like `from`: the last byte changed, a byte more or less, or
   the same bytes as a key of the other kind. */
static void gen_near(tkey* k, const tkey* from) {
  uint32_t len = from->len;
  int kind = from->kind == KIND_STRING && rnd_one_in(2) ? KIND_STRING : KIND_BYTES;
  if (len) memcpy(scratch_, from->b, len);
  switch (rnd_below(4)) {
    case 0:
      if (len) scratch_[len - 1] = (unsigned char)(scratch_[len - 1] == 'x' ? 'y' : 'x');
      break;
    case 1:
      scratch_[len++] = kind == KIND_BYTES ? 0x00 : 'z';
      break;
    case 2:
      if (len) len--;
      break;
    default:
      kind = from->kind == KIND_STRING ? KIND_BYTES : from->nul_free ? KIND_STRING : KIND_BYTES;
      break;
  }
  set_bytes(k, kind, scratch_, len);
}

static const int64_t i64_specials_[] = {0,         1,         -1,  INT64_MIN,     INT64_MAX,
                                        INT64_MIN + 1, INT64_MAX - 1, 255, 256, -256,
                                        (int64_t)1 << 32, -((int64_t)1 << 32)};
static const uint64_t u64_specials_[] = {0,   1,   UINT64_MAX,      UINT64_MAX - 1, (uint64_t)1 << 63,
                                         255, 256, (uint64_t)1 << 32, 0x0102030405060708ull};
#define COUNT_OF(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* The integer of universe int key number j (INTS region). */
static uint64_t int_value(uint32_t j, int kind) {
  if (j < 1000) return kind == KIND_U64 ? j : (uint64_t)((int64_t)j - 500);
  return mix64((uint64_t)j * 2 + (kind == KIND_U64));
}

static uint32_t build_diverse(tkey* u) {
  static const unsigned lengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 27, 28, 29, 30, 31, 32, 33,
                                     63, 64, 65, 127, 128, 129, 130, 200, 255, 256, 257, 1000, 4096};
  unsigned char enc[12];
  uint32_t n = 0, i;
  set_bytes(&u[n++], KIND_STRING, "", 0);
  set_bytes(&u[n++], KIND_BYTES, "", 0);
  set_bytes(&u[n++], KIND_BYTES, "\0", 1);
  set_bytes(&u[n++], KIND_BYTES, "\0\0", 2);
  for (i = 0; i < COUNT_OF(lengths); i++) { /* every class boundary, both kinds */
    uint32_t len = lengths[i];
    memset(scratch_, 'L', len);
    scratch_[len - 1] = (unsigned char)('0' + i % 10);
    set_bytes(&u[n++], KIND_STRING, scratch_, len);
    scratch_[len / 2] = 0x00;
    set_bytes(&u[n++], KIND_BYTES, scratch_, len);
    memset(scratch_, 0, len); /* all NULs */
    set_bytes(&u[n++], KIND_BYTES, scratch_, len);
  }
  for (i = 0; i < COUNT_OF(i64_specials_); i++) make_int(&u[n++], KIND_I64, (uint64_t)i64_specials_[i]);
  for (i = 0; i < COUNT_OF(u64_specials_); i++) make_int(&u[n++], KIND_U64, u64_specials_[i]);
  /* integer encodings as byte keys: of specials, of the INTS region's keys */
  for (i = 0; i < 64; i++) {
    int kind = i % 2 ? KIND_U64 : KIND_I64;
    uint64_t v = i < 8 ? (kind == KIND_U64 ? u64_specials_[i] : (uint64_t)i64_specials_[i])
                       : int_value(rnd_below(INTS / 2), kind);
    encode_int(enc, kind == KIND_I64 ? 0x01 : 0x02, v);
    set_bytes(&u[n++], KIND_BYTES, enc, 10);
  }
  /* near misses of an encoding: 9 and 11 bytes, tags 0x00 and 0x03, a
     first byte of 0x01 */
  for (i = 0; i < 40; i++) {
    encode_int(enc, (unsigned char)(1 + i % 2), int_value(i, i % 2 ? KIND_U64 : KIND_I64));
    switch (i / 2 % 5) {
      case 0:
        set_bytes(&u[n++], KIND_BYTES, enc, 9);
        break;
      case 1:
        enc[10] = 0x00;
        set_bytes(&u[n++], KIND_BYTES, enc, 11);
        break;
      case 2:
        enc[1] = 0x00;
        set_bytes(&u[n++], KIND_BYTES, enc, 10);
        break;
      case 3:
        enc[1] = 0x03;
        set_bytes(&u[n++], KIND_BYTES, enc, 10);
        break;
      default:
        enc[0] = 0x01;
        set_bytes(&u[n++], KIND_BYTES, enc, 10);
        break;
    }
  }
  while (n < DIVERSE) {
    uint32_t r = rnd_below(20);
    if (r < 7)
      gen_text(&u[n], gen_length(), KIND_STRING);
    else if (r < 13)
      gen_text(&u[n], gen_length(), KIND_BYTES);
    else if (r < 16)
      gen_near(&u[n], &u[rnd_below(n)]);
    else if (r < 18)
      make_int(&u[n], KIND_I64, rnd_one_in(2) ? (uint64_t)((int64_t)rnd_below(1024) - 512) : rnd());
    else
      make_int(&u[n], KIND_U64, rnd_one_in(2) ? rnd_below(1024) : rnd());
    n++;
  }
  return n;
}

static int key_cmp(const tkey* a, const tkey* b) {
  if (a->len != b->len) return a->len < b->len ? -1 : 1;
  return a->len ? memcmp(a->b, b->b, a->len) : 0;
}

static int cmp_ids(const void* pa, const void* pb) {
  uint32_t a = *(const uint32_t*)pa, b = *(const uint32_t*)pb;
  int c = key_cmp(&universe_[a], &universe_[b]);
  return c != 0 ? c : a < b ? -1 : a > b ? 1 : 0;
}

void build_universe(void) {
  uint32_t i;
  scratch_ = (unsigned char*)xmalloc(SCRATCH);
  universe_ = (tkey*)xmalloc(sizeof(tkey) * UNIVERSE);
  sorted_ = (uint32_t*)xmalloc(sizeof(uint32_t) * UNIVERSE);
  group_first_ = (uint32_t*)xmalloc(sizeof(uint32_t) * UNIVERSE);
  group_count_ = (uint32_t*)xmalloc(sizeof(uint32_t) * UNIVERSE);
  build_diverse(universe_);
  for (i = 0; i < INTS / 2; i++) {
    make_int(&universe_[U64_FIRST + i], KIND_U64, int_value(i, KIND_U64));
    make_int(&universe_[I64_FIRST + i], KIND_I64, int_value(i, KIND_I64));
  }
  for (i = 0; i < UNIVERSE; i++) sorted_[i] = i;
  qsort(sorted_, UNIVERSE, sizeof sorted_[0], cmp_ids);
  /* equal bytes share the slot of the smallest id (sorted first) */
  for (i = 0; i < UNIVERSE;) {
    uint32_t j = i, slot = sorted_[i];
    while (j < UNIVERSE && key_cmp(&universe_[sorted_[i]], &universe_[sorted_[j]]) == 0) {
      universe_[sorted_[j]].slot = slot;
      j++;
    }
    group_first_[slot] = i;
    group_count_[slot] = j - i;
    i = j;
  }
}

void free_universe(void) {
  for (uint32_t i = 0; i < UNIVERSE; i++) free((void*)(uintptr_t)universe_[i].b);
  free(universe_);
  free(sorted_);
  free(group_first_);
  free(group_count_);
  free(scratch_);
}

int32_t model_find(const void* bytes, uint32_t len) {
  uint32_t lo = 0, hi = UNIVERSE;
  tkey probe;
  probe.len = len;
  probe.b = (const unsigned char*)bytes;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = key_cmp(&universe_[sorted_[mid]], &probe);
    if (c == 0) return (int32_t)universe_[sorted_[mid]].slot;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

const tkey* key_of_slot(uint32_t slot, int via) {
  uint32_t n = group_count_[slot], start = rnd_below(n);
  for (uint32_t i = 0; i < n; i++) {
    const tkey* k = &universe_[sorted_[group_first_[slot] + (start + i) % n]];
    if (reachable(k, via)) return k;
  }
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* the model                                                                 */
/* ------------------------------------------------------------------------ */

void model_init(model_s* md) {
  md->size = 0;
  md->present = (unsigned char*)xmalloc(UNIVERSE);
  memset(md->present, 0, UNIVERSE);
  md->value = (uintptr_t*)xmalloc(sizeof(uintptr_t) * UNIVERSE);
  md->list = (uint32_t*)xmalloc(sizeof(uint32_t) * UNIVERSE);
  md->pos = (uint32_t*)xmalloc(sizeof(uint32_t) * UNIVERSE);
}

void model_release(model_s* md) {
  free(md->present);
  free(md->value);
  free(md->list);
  free(md->pos);
  memset(md, 0, sizeof *md);
}

void model_clear(model_s* md) {
  for (uint32_t i = 0; i < md->size; i++) md->present[md->list[i]] = 0;
  md->size = 0;
}

static void model_set(model_s* md, uint32_t slot, uintptr_t value) {
  if (!md->present[slot]) {
    md->present[slot] = 1;
    md->pos[slot] = md->size;
    md->list[md->size++] = slot;
  }
  md->value[slot] = value;
}

static void model_delete(model_s* md, uint32_t slot) {
  if (!md->present[slot]) return;
  uint32_t at = md->pos[slot], last = md->list[--md->size];
  md->list[at] = last;
  md->pos[last] = at;
  md->present[slot] = 0;
}

uintptr_t gen_value(void) {
  if (rnd_one_in(16)) return 0; /* NULL is a value like any other */
  return (uintptr_t)rnd() & ~(uintptr_t)1;
}

/* The empty byte key goes in as NULL or as a pointer, in turn. */
static const void* bytes_of(const tkey* k) { return k->len == 0 && rnd_one_in(2) ? NULL : k->b; }

void put_key(slate_s* m, model_s* md, const tkey* k, uintptr_t value, unsigned long* bad) {
  int rc;
  int via_string = k->kind == KIND_STRING   ? !rnd_one_in(8)
                   : k->kind == KIND_BYTES ? k->nul_free && rnd_one_in(8)
                                           : 0;
  if (k->kind == KIND_U64 && !rnd_one_in(8))
    rc = slate_set_u64(m, k->ival, V(value));
  else if (k->kind == KIND_I64 && !rnd_one_in(8))
    rc = slate_set_i64(m, (int64_t)k->ival, V(value));
  else if (via_string)
    rc = slate_set(m, (const char*)k->b, V(value));
  else
    rc = slate_set_bytes(m, bytes_of(k), k->len, V(value));
  if (rc != SLATE_OK) (*bad)++;
  model_set(md, k->slot, value);
}

void del_key(slate_s* m, model_s* md, const tkey* k, unsigned long* bad) {
  int rc;
  if (k->kind == KIND_U64 && !rnd_one_in(8))
    rc = slate_delete_u64(m, k->ival);
  else if (k->kind == KIND_I64 && !rnd_one_in(8))
    rc = slate_delete_i64(m, (int64_t)k->ival);
  else if (k->nul_free && k->kind == KIND_STRING)
    rc = slate_delete(m, (const char*)k->b);
  else
    rc = slate_delete_bytes(m, bytes_of(k), k->len);
  if (rc != (md->present[k->slot] ? SLATE_OK : SLATE_ERROR_NOT_FOUND)) (*bad)++;
  model_delete(md, k->slot);
}

void put_range(slate_s* m, model_s* md, uint32_t first, uint32_t n) {
  unsigned long bad = 0;
  for (uint32_t i = first; i < first + n; i++) put_key(m, md, &universe_[i], gen_value(), &bad);
  CHECK_EQ_U64(bad, 0);
}

void del_range(slate_s* m, model_s* md, uint32_t first, uint32_t n) {
  unsigned long bad = 0;
  for (uint32_t i = first; i < first + n; i++) del_key(m, md, &universe_[i], &bad);
  CHECK_EQ_U64(bad, 0);
}

typedef struct walk_s {
  const model_s* md;
  unsigned long count, problems;
} walk_s;

static int walk_cb(const char* key, uint32_t len, void* value, void* data) {
  walk_s* w = (walk_s*)data;
  int32_t slot = model_find(key, len);
  w->count++;
  if (slot < 0 || !w->md->present[slot] || V(w->md->value[slot]) != value) w->problems++;
  return 0;
}

int map_matches(const slate_s* m, const model_s* md) {
  walk_s w;
  char message[256];
  w.md = md;
  w.count = 0;
  w.problems = 0;
  message[0] = '\0';
  if (slate_each(m, walk_cb, &w) != SLATE_OK) return 0;
  if (slate_check(m, message, (uint32_t)sizeof message) != SLATE_OK) {
    fprintf(stderr, "  slate_check: %s\n", message);
    return 0;
  }
  return w.problems == 0 && w.count == md->size && slate_length(m) == md->size;
}
