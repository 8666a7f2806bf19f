/* map/api: per-structure allocators (SPEC 3b) -- slate_set_allocator and
 * slotmap_set_allocator with slate_allocator_s.
 *
 * The allocator here is an arena: bump allocation from a buffer this test
 * owns, whose release only counts. It keeps a ledger of the blocks it
 * handed out, so every release is checked against an allocation of the
 * same address, size and context; a pointer the library hands back (an
 * entry's value slot, a slotmap column) is checked to lie in the buffer.
 * It can hand out blocks at 8 modulo 16, to check that the library meets
 * its own alignment needs. Failure of every allocation, through the same
 * kind of allocator, is in map/hooks and slotmap/hooks. */
#include "api.h"

enum { ARENA_BYTES = 4 << 20, LEDGER = 8192 };

typedef struct block_s {
  unsigned char* p;
  size_t size;
  int live;
} block_s;

typedef struct arena_s {
  unsigned char* buffer;
  size_t used;
  size_t limit;       /* allocations past this many bytes fail */
  int off16;          /* hand out blocks at 8 modulo 16 */
  unsigned long long allocations, releases, failures;
  unsigned long long live_bytes;
  unsigned long long bad; /* releases that match no live block of that size, wrong contexts */
  block_s ledger[LEDGER];
  size_t blocks;
} arena_s;

static arena_s* arena_new(int off16) {
  arena_s* a = (arena_s*)calloc(1, sizeof(arena_s));
  if (a == NULL) return NULL;
  a->buffer = (unsigned char*)malloc(ARENA_BYTES);
  a->limit = ARENA_BYTES;
  a->off16 = off16;
  return a;
}

static void arena_delete(arena_s* a) {
  free(a->buffer);
  free(a);
}

static int in_arena(const arena_s* a, const void* p) {
  const unsigned char* b = (const unsigned char*)p;
  return b >= a->buffer && b < a->buffer + ARENA_BYTES;
}

static void* arena_allocate(void* context, size_t size) {
  arena_s* a = (arena_s*)context;
  if (size == 0) a->bad++;
  size_t at = (a->used + 15) & ~(size_t)15;
  if (a->off16) at += 8;
  if (at + size > a->limit || a->blocks == LEDGER || a->buffer == NULL) {
    a->failures++;
    return NULL;
  }
  a->used = at + size;
  a->allocations++;
  a->live_bytes += size;
  a->ledger[a->blocks].p = a->buffer + at;
  a->ledger[a->blocks].size = size;
  a->ledger[a->blocks].live = 1;
  a->blocks++;
  return a->buffer + at;
}

static void arena_release(void* context, void* pointer, size_t size) {
  arena_s* a = (arena_s*)context;
  a->releases++;
  for (size_t i = a->blocks; i-- > 0;) {
    block_s* b = &a->ledger[i];
    if (b->p == (unsigned char*)pointer && b->live) {
      if (b->size != size) a->bad++;
      b->live = 0;
      a->live_bytes -= b->size;
      return;
    }
  }
  a->bad++; /* not a live block of this arena */
}

static slate_allocator_s arena_allocator(arena_s* a) {
  slate_allocator_s s;
  s.allocate = arena_allocate;
  s.release = arena_release;
  s.context = a;
  return s;
}

/* Gives the map the arena through a struct that goes away at once (the
 * library copies it). */
static int give(slate_s* m, arena_s* a) {
  slate_allocator_s s = arena_allocator(a);
  int rc = slate_set_allocator(m, &s);
  memset(&s, 0xA5, sizeof s);
  return rc;
}

static int give_sm(slotmap_s* sm, arena_s* a) {
  slate_allocator_s s = arena_allocator(a);
  int rc = slotmap_set_allocator(sm, &s);
  memset(&s, 0xA5, sizeof s);
  return rc;
}

/* Where the map keeps u64 key k's value. */
static void** slot_of(slate_s* m, uint64_t k) {
  void** v = NULL;
  int inserted = -1;
  if (slate_entry_u64(m, k, &v, &inserted) != SLATE_OK) return NULL;
  return v;
}

static void fill_mixed(slate_s* m, unsigned n) {
  char buffer[200];
  for (unsigned i = 0; i < n; i++) CHECK_EQ_INT(slate_set_u64(m, i, V(u64_value(i))), SLATE_OK);
  for (unsigned i = 0; i < n / 10; i++)
    CHECK_EQ_INT(slate_set(m, long_key(buffer, sizeof buffer, i), V(i + 7)), SLATE_OK);
}

static int walked_stop(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  (void)value;
  slate_s* m = (slate_s*)data;
  arena_s* a = arena_new(0);
  int rc = a ? give(m, a) : -100;
  if (a) arena_delete(a);
  return rc == SLATE_ERROR_INVALID ? 7 : 8;
}

static void test_map_allocator(void) {
  TEST_SECTION("slate_set_allocator: every byte of the map from its allocator");
  arena_s* a = arena_new(1);
  arena_s* b = arena_new(0);
  if (!CHECK(a != NULL && b != NULL && a->buffer != NULL && b->buffer != NULL)) return;
  slate_s m, c, d;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(give(&m, a), SLATE_OK);
  CHECK_EQ_U64(a->allocations, 0); /* allocates nothing yet */
  fill_mixed(&m, 3000);
  CHECK(a->allocations > 200); /* tables, directory, long keys */
  CHECK(info_of(&m).tables > 1);
  CHECK_EQ_U64(info_of(&m).memory, a->live_bytes);
  CHECK(in_arena(a, slot_of(&m, 17)));
  CHECK_EQ_U64(missing_u64(&m, 0, 3000, 1), 0);
  CHECK_MAP_OK(&m);

  TEST_SECTION("slate_set_allocator: clones inherit it, or take the default");
  unsigned long long before = a->allocations;
  CHECK_EQ_INT(slate_clone(&c, &m), SLATE_OK);
  CHECK(a->allocations > before);
  CHECK(in_arena(a, slot_of(&c, 17)));
  CHECK_EQ_U64(info_of(&c).memory + info_of(&m).memory, a->live_bytes);
  CHECK_EQ_INT(slate_equal(&c, &m), 1);
  CHECK_EQ_INT(slate(&d), SLATE_OK); /* the process default */
  fill_mixed(&d, 100);
  slate_s e;
  before = a->allocations;
  CHECK_EQ_INT(slate_clone(&e, &d), SLATE_OK);
  CHECK_EQ_U64(a->allocations, before);
  CHECK(!in_arena(a, slot_of(&e, 5)));
  slate_free(&e);
  slate_free(&c);
  CHECK_EQ_U64(info_of(&m).memory, a->live_bytes);

  TEST_SECTION("slate_set_allocator: only while the map holds no memory");
  slate_allocator_s s = arena_allocator(b);
  CHECK_EQ_INT(slate_set_allocator(&m, &s), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_allocator(&m, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_allocator(NULL, &s), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set_allocator(&m, &s), SLATE_ERROR_INVALID); /* clear keeps the tables */
  fill_mixed(&m, 3000);
  CHECK_EQ_INT(slate_each(&m, walked_stop, &m), 7); /* refused inside its walk */
  for (unsigned i = 0; i < 3000; i++) CHECK_EQ_INT(slate_delete_u64(&m, i), SLATE_OK);
  CHECK_EQ_INT(slate_delete_if(&m, always_cb, NULL), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_INT(slate_set_allocator(&m, &s), SLATE_ERROR_INVALID); /* emptied, tables kept */
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);                      /* gives them back */
  CHECK_EQ_U64(a->live_bytes, 0);
  CHECK_EQ_U64(a->allocations, a->releases);
  /* bad allocators change nothing */
  slate_allocator_s half = s;
  half.allocate = NULL;
  CHECK_EQ_INT(slate_set_allocator(&m, &half), SLATE_ERROR_INVALID);
  half = s;
  half.release = NULL;
  CHECK_EQ_INT(slate_set_allocator(&m, &half), SLATE_ERROR_INVALID);
  before = a->allocations;
  CHECK_EQ_INT(slate_set_u64(&m, 1, V(1)), SLATE_OK);
  CHECK(a->allocations > before); /* still the first arena */
  slate_free(&m);

  TEST_SECTION("slate_set_allocator: slate_free keeps it, slate() drops it, NULL restores");
  before = a->allocations;
  fill_mixed(&m, 500);
  CHECK(a->allocations > before);
  slate_free(&m);
  CHECK_EQ_U64(a->live_bytes, 0);
  CHECK_EQ_INT(slate_set_allocator(&m, &s), SLATE_OK); /* after free: the second arena */
  memset(&s, 0, sizeof s);
  before = b->allocations;
  fill_mixed(&m, 500);
  CHECK(b->allocations > before);
  CHECK(in_arena(b, slot_of(&m, 3)));
  slate_free(&m);
  CHECK_EQ_INT(slate_set_allocator(&m, NULL), SLATE_OK); /* the default again */
  before = b->allocations;
  fill_mixed(&m, 500);
  CHECK_EQ_U64(b->allocations, before);
  CHECK(!in_arena(b, slot_of(&m, 3)));
  slate_free(&m);
  CHECK_EQ_INT(give(&m, b), SLATE_OK);
  CHECK_EQ_INT(slate(&m), SLATE_OK); /* drops it */
  fill_mixed(&m, 500);
  CHECK_EQ_U64(b->allocations, before);
  slate_free(&m);

  TEST_SECTION("slate_set_allocator: a zero-filled map, a moved map, a full arena");
  memset(&m, 0, sizeof m);
  CHECK_EQ_INT(give(&m, b), SLATE_OK);
  fill_mixed(&m, 2000);
  CHECK(b->allocations > before);
  CHECK_EQ_U64(info_of(&m).memory, b->live_bytes);
  slate_s moved;
  memcpy(&moved, &m, sizeof m);
  memset(&m, 0xEE, sizeof m);
  fill_mixed(&moved, 4000);
  CHECK_EQ_U64(info_of(&moved).memory, b->live_bytes);
  /* the arena runs dry: ALLOC, nothing changed, and the map works on */
  b->limit = b->used;
  uint64_t length = slate_length(&moved);
  int rc = SLATE_OK;
  uint64_t k = 10000;
  for (; k < 200000 && rc == SLATE_OK; k++) rc = slate_set_u64(&moved, k, V(k));
  CHECK_EQ_INT(rc, SLATE_ERROR_ALLOC);
  CHECK(b->failures > 0);
  CHECK_EQ_U64(slate_length(&moved), length + (k - 1 - 10000));
  CHECK_EQ_INT(slate_get_u64(&moved, k - 1, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(missing_u64(&moved, 0, 4000, 1), 0);
  CHECK_MAP_OK(&moved);
  b->limit = ARENA_BYTES;
  CHECK_EQ_INT(slate_set_u64(&moved, k - 1, V(k - 1)), SLATE_OK);
  slate_free(&moved);
  slate_free(&d);
  CHECK_EQ_U64(b->live_bytes, 0);
  CHECK_EQ_U64(a->bad + b->bad, 0); /* every release matched its block, size and context */
  CHECK_EQ_U64(a->allocations, a->releases);
  CHECK_EQ_U64(b->allocations, b->releases);
  arena_delete(a);
  arena_delete(b);
}

static int less_u64(const void* x, const void* y, void* data) {
  (void)data;
  return *(const uint64_t*)x < *(const uint64_t*)y;
}

static int odd_row(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)data;
  return (int)(*(const uint64_t*)row & 1);
}

static void test_slotmap_allocator(void) {
  TEST_SECTION("slotmap_set_allocator: columns and index from its allocator");
  arena_s* a = arena_new(1); /* blocks at 8 modulo 16: the columns align by hand */
  arena_s* b = arena_new(0);
  if (!CHECK(a != NULL && b != NULL && a->buffer != NULL && b->buffer != NULL)) return;
  slotmap_s sm, c;
  const uint32_t sizes[3] = {8, 3, 16};
  CHECK_EQ_INT(slotmap_columns(&sm, sizes, 3), SLATE_OK);
  CHECK_EQ_INT(give_sm(&sm, a), SLATE_OK);
  CHECK_EQ_U64(a->allocations, 0);
  slotmap_key keys[3000];
  unsigned char row[27];
  memset(row, 0, sizeof row);
  for (uint64_t i = 0; i < 3000; i++) {
    memcpy(row, &i, 8);
    CHECK_EQ_INT(slotmap_insert(&sm, row, &keys[i]), SLATE_OK);
  }
  CHECK(a->allocations > 2);
  for (uint32_t col = 0; col < 3; col++) {
    void* base = slotmap_column(&sm, col);
    CHECK(in_arena(a, base));
    CHECK_EQ_U64((uintptr_t)base % 16, 0);
  }
  /* sort takes temporary memory from it, and gives it back; erase_if
     erases as it goes and takes none */
  unsigned long long live = a->live_bytes, allocs = a->allocations;
  CHECK_EQ_INT(slotmap_sort(&sm, less_u64, NULL), SLATE_OK);
  CHECK(a->allocations > allocs);
  CHECK_EQ_U64(a->live_bytes, live);
  allocs = a->allocations;
  CHECK_EQ_INT(slotmap_erase_if(&sm, odd_row, NULL), SLATE_OK);
  CHECK_EQ_U64(a->allocations, allocs);
  CHECK_EQ_U64(a->live_bytes, live);
  CHECK_EQ_U64(slotmap_length(&sm), 1500);
  CHECK_EQ_U64((uintptr_t)slotmap_column(&sm, 2) % 16, 0);

  TEST_SECTION("slotmap_set_allocator: clones inherit it; free keeps it; slotmap() drops it");
  allocs = a->allocations;
  CHECK_EQ_INT(slotmap_clone(&c, &sm), SLATE_OK);
  CHECK(a->allocations > allocs);
  CHECK(in_arena(a, slotmap_column(&c, 1)));
  slotmap_free(&c);
  slate_allocator_s s = arena_allocator(b);
  CHECK_EQ_INT(slotmap_set_allocator(&sm, &s), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
  CHECK_EQ_INT(slotmap_set_allocator(&sm, &s), SLATE_ERROR_INVALID); /* clear keeps the rows */
  CHECK_EQ_INT(slotmap_set_allocator(NULL, &s), SLATE_ERROR_INVALID);
  slotmap_free(&sm);
  CHECK_EQ_U64(a->live_bytes, 0);
  slate_allocator_s half = s;
  half.release = NULL;
  CHECK_EQ_INT(slotmap_set_allocator(&sm, &half), SLATE_ERROR_INVALID);
  allocs = a->allocations;
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &keys[0]), SLATE_OK); /* still the first arena */
  CHECK(a->allocations > allocs);
  slotmap_free(&sm);
  CHECK_EQ_INT(slotmap_set_allocator(&sm, &s), SLATE_OK);
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &keys[0]), SLATE_OK);
  CHECK(in_arena(b, slotmap_column(&sm, 0)));
  /* the arena runs dry: ALLOC, nothing changed */
  b->limit = b->used;
  uint32_t n = slotmap_length(&sm);
  int rc = SLATE_OK;
  while (rc == SLATE_OK && n < 100000) {
    rc = slotmap_insert(&sm, NULL, &keys[1]);
    if (rc == SLATE_OK) n++;
  }
  CHECK_EQ_INT(rc, SLATE_ERROR_ALLOC);
  CHECK_EQ_U64(slotmap_length(&sm), n);
  b->limit = ARENA_BYTES;
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &keys[1]), SLATE_OK);
  slotmap_free(&sm);
  CHECK_EQ_U64(b->live_bytes, 0);
  CHECK_EQ_INT(slotmap_set_allocator(&sm, NULL), SLATE_OK); /* the default again */
  allocs = b->allocations;
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &keys[0]), SLATE_OK);
  CHECK_EQ_U64(b->allocations, allocs);
  slotmap_free(&sm);
  CHECK_EQ_INT(give_sm(&sm, b), SLATE_OK);
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK); /* drops it */
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &keys[0]), SLATE_OK);
  CHECK_EQ_U64(b->allocations, allocs);
  slotmap_free(&sm);
  CHECK_EQ_U64(a->bad + b->bad, 0);
  CHECK_EQ_U64(a->allocations, a->releases);
  CHECK_EQ_U64(b->allocations, b->releases);
  arena_delete(a);
  arena_delete(b);
}

void test_allocators(void) {
  test_map_allocator();
  test_slotmap_allocator();
}
