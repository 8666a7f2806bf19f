/* map/batch: the batch calls from inside slate_each and slotmap_each
 * callbacks (allowed: they are reads). */
#include "batch.h"

typedef struct each_s {
  const slate_s* m;
  const model_s* md;
  const slate_s* other;
  const model_s* other_md;
  batch_s b;
  unsigned long visits, batches, nested, unknown;
  char text[5000]; /* a visited key as a C string */
} each_s;

static int nested_cb(const char* key, uint32_t len, void* value, void* data);

/* Checks a batch that starts with the key being visited: found, with the
   value the walk shows. */
static void check_visited(each_s* c, const char* label, void* value) {
  check_batch(c->m, &c->b, 1, label);
  CHECK(c->b.found[0] == 1 && c->b.values[0] == value);
  c->batches++;
}

static int each_cb(const char* key, uint32_t len, void* value, void* data) {
  each_s* c = (each_s*)data;
  int32_t slot;
  uintptr_t want = (uintptr_t)value;
  c->visits++;
  if (c->visits > 400 && c->visits % 64 != 0) return 0; /* enough */
  slot = model_find(key, len);
  /* the key as bytes (the map's own copy of it), then random keys */
  fill_random(&c->b, VIA_BYTES, 1 + rnd_below(40), UNIVERSE, c->md);
  batch_add_bytes(&c->b, key, len, 1, want);
  batch_swap(&c->b, 0, c->b.n - 1);
  check_visited(c, "inside slate_each (bytes)", value);
  /* an integer key's encoding: through its integer call too */
  if (len == 10 && key[0] == 0x00 && (key[1] == 0x01 || key[1] == 0x02)) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)(unsigned char)key[2 + i] << (8 * i);
    fill_random(&c->b, key[1] == 0x02 ? VIA_U64 : VIA_I64, 1 + rnd_below(40), UNIVERSE, c->md);
    if (key[1] == 0x02)
      batch_add_u64(&c->b, v, 1, want);
    else
      batch_add_i64(&c->b, (int64_t)v, 1, want);
    batch_swap(&c->b, 0, c->b.n - 1);
    check_visited(c, "inside slate_each (integer)", value);
  } else if (len < sizeof c->text && (len == 0 || memchr(key, 0, len) == NULL)) {
    memcpy(c->text, key, len);
    c->text[len] = '\0';
    fill_random(&c->b, VIA_STRING, 1 + rnd_below(40), UNIVERSE, c->md);
    batch_add_string(&c->b, c->text, 1, want);
    batch_swap(&c->b, 0, c->b.n - 1);
    check_visited(c, "inside slate_each (string)", value);
  }
  c->unknown += slot < 0; /* the walk shows only universe keys */
  /* another map, from inside this walk */
  fill_random(&c->b, (int)rnd_below(VIA_COUNT), 1 + rnd_below(70), UNIVERSE, c->other_md);
  check_batch(c->other, &c->b, 1, "inside slate_each, on another map");
  /* and a walk of the other map inside this one, batches on this map there */
  if (c->visits % 100 == 1) CHECK_EQ_INT(slate_each(c->other, nested_cb, c), SLATE_OK);
  return 0;
}

static int nested_cb(const char* key, uint32_t len, void* value, void* data) {
  each_s* c = (each_s*)data;
  (void)key;
  (void)len;
  (void)value;
  if (c->nested++ % 16 != 0) return 0;
  fill_random(&c->b, (int)rnd_below(VIA_COUNT), 1 + rnd_below(40), UNIVERSE, c->md);
  check_batch(c->m, &c->b, 1, "inside two walks");
  return 0;
}

void test_inside_each(void) {
  slate_s m, other;
  model_s md, other_md;
  each_s c;
  TEST_SECTION("inside slate_each callbacks: every call, on the walked map and another");
  model_init(&md);
  model_init(&other_md);
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  CHECK_EQ_INT(init_map(&other), SLATE_OK);
  put_range(&m, &md, 0, DIVERSE);
  put_range(&m, &md, U64_FIRST, 3000);
  put_range(&m, &md, I64_FIRST, 3000);
  put_range(&other, &other_md, DIVERSE / 2, 500);
  memset(&c, 0, sizeof c);
  c.m = &m;
  c.md = &md;
  c.other = &other;
  c.other_md = &other_md;
  batch_init(&c.b, 128, VIA_BYTES);
  CHECK_EQ_INT(slate_each(&m, each_cb, &c), SLATE_OK);
  CHECK_EQ_U64(c.visits, md.size);
  CHECK(c.batches > 400 && c.nested > 0);
  CHECK_EQ_U64(c.unknown, 0);
  /* the walks changed nothing */
  CHECK(map_matches(&m, &md));
  CHECK(map_matches(&other, &other_md));
  fprintf(stderr, "   %lu visits, %lu batches on the walked map\n", c.visits, c.batches);
  batch_release(&c.b);
  slate_free(&m);
  slate_free(&other);
  model_release(&md);
  model_release(&other_md);
}

/* ------------------------------------------------------------------------ */
/* slotmap_each                                                              */
/* ------------------------------------------------------------------------ */

typedef struct sm_each_s {
  const slotmap_s* sm;
  const slotmap_s* other;
  const slotmap_key* stale;
  size_t stale_n;
  unsigned long visits, wrong;
} sm_each_s;

static int sm_each_cb(slotmap_key key, void* row, void* data) {
  sm_each_s* c = (sm_each_s*)data;
  slotmap_key keys[6];
  signed char expect[6] = {1, 0, 0, 1, 0, 1};
  void* elements[6];
  uint32_t n = slotmap_length(c->sm), r = rnd_below(n);
  uint64_t id;
  c->visits++;
  keys[0] = key;                             /* the row being visited */
  keys[1] = c->stale[rnd_below((uint32_t)c->stale_n)]; /* erased */
  keys[2] = 0;
  keys[3] = slotmap_key_at(c->sm, r); /* another row */
  keys[4] = key ^ 0x200000000ull;     /* the right index, another generation */
  keys[5] = key;                      /* a duplicate */
  check_slotmap_batch(c->sm, keys, 6, expect, elements, "inside slotmap_each");
  /* the element is the row the walk passes, and holds its value */
  memcpy(&id, row, sizeof id);
  if (elements[0] != row || elements[5] != row || (uint32_t)id != (uint32_t)(key & 0xFFFFFFFFu))
    c->wrong++;
  /* another slotmap from inside this walk: this key is foreign there */
  keys[1] = slotmap_key_at(c->other, r % slotmap_length(c->other));
  expect[0] = 0;
  expect[1] = 1;
  expect[3] = 0;
  expect[5] = 0;
  check_slotmap_batch(c->other, keys, 6, expect, elements, "inside slotmap_each, on another");
  return 0;
}

void test_inside_slotmap_each(void) {
  slotmap_s sm, other;
  slotmap_key stale[500];
  sm_each_s c;
  unsigned long bad = 0;
  TEST_SECTION("inside slotmap_each callbacks");
  CHECK_EQ_INT(init_slotmap(&sm, 8), SLATE_OK);
  CHECK_EQ_INT(init_slotmap(&other, 8), SLATE_OK);
  for (uint64_t i = 0; i < 2000; i++) {
    slotmap_key k = 0;
    uint64_t v = i; /* a row holds its slot index: fresh slots are numbered in order */
    if (slotmap_insert(&sm, &v, &k) != SLATE_OK || (k & 0xFFFFFFFFu) != i) bad++;
    if (i < 300 && slotmap_insert(&other, &v, &k) != SLATE_OK) bad++;
  }
  for (uint32_t i = 0; i < 500; i++) {
    stale[i] = slotmap_key_at(&sm, rnd_below(slotmap_length(&sm)));
    if (slotmap_erase(&sm, stale[i]) != SLATE_OK) bad++;
  }
  CHECK_EQ_U64(bad, 0);
  memset(&c, 0, sizeof c);
  c.sm = &sm;
  c.other = &other;
  c.stale = stale;
  c.stale_n = 500;
  CHECK_EQ_INT(slotmap_each(&sm, sm_each_cb, &c), SLATE_OK);
  CHECK_EQ_U64(c.visits, 1500);
  CHECK_EQ_U64(c.wrong, 0);
  slotmap_free(&sm);
  slotmap_free(&other);
}
