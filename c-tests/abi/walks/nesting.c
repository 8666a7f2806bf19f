/* abi/walks: walks nested 1,000 deep (one structure, and a cycle through
 * all of them), with the deepest callback removing the key every level
 * was given; and read-only walks, nested or not, that allocate nothing. */
#include "walks.h"

enum { DEPTH = 1000, ENTRIES = 10 };

/* The walks a level may run. */
enum {
  K_MAP_EACH = 0,
  K_MAP_DELETE_IF,
  K_SM_EACH,
  K_SM_ERASE_IF,
  K_SP_EACH,
  K_SP_ERASE_IF,
  K_JOIN,        /* over a (walked: the smaller) and b */
  K_JOIN_OWNER,  /* the same, with the slotmap of entities as owner */
  K_KINDS
};

typedef struct deep_s {
  int kind;           /* the walk of every level; -1: level L runs kind L % K_KINDS */
  uint32_t depth;     /* levels */
  uint32_t level;     /* the level whose walk calls back now */
  int erase_at_bottom; /* 1: the deepest level erases the key it was given (from a for joins);
                          2: for joins, from b, the tested set */
  unsigned long visits[DEPTH];
  unsigned bad;
  slate_s* map;
  slotmap_s* sm;
  slotmap_sparse_s* a;
  slotmap_sparse_s* b;
  slotmap_sparse_s* sets[2]; /* {a, b}: kept here, so that a level's frame holds no array */
} deep_s;

static int kind_of(const deep_s* d, uint32_t level) {
  return d->kind >= 0 ? d->kind : (int)(level % K_KINDS);
}

static int run_level(deep_s* d);

/* What every callback does: count the visit; on its level's first call,
 * start the next level, or at the deepest level erase the given key. */
static int deep_step(deep_s* d) {
  uint32_t level = d->level;
  d->visits[level]++;
  if (d->visits[level] != 1) return 0;
  if (level + 1 < d->depth) {
    d->level = level + 1;
    int rc = run_level(d);
    d->level = level;
    if (rc != SLATE_OK) d->bad++;
    return 0;
  }
  return d->erase_at_bottom;
}

static int deep_map_cb(const char* key, uint32_t length, void* value, void* data) {
  deep_s* d = (deep_s*)data;
  (void)value;
  if (deep_step(d) && slate_delete_bytes(d->map, key, length) != SLATE_OK) d->bad++;
  return 0;
}

static int deep_sm_cb(slotmap_key key, void* row, void* data) {
  deep_s* d = (deep_s*)data;
  (void)row;
  if (deep_step(d) && slotmap_erase(d->sm, key) != SLATE_OK) d->bad++;
  return 0;
}

static int deep_sp_cb(slotmap_key key, void* row, void* data) {
  deep_s* d = (deep_s*)data;
  (void)row;
  if (deep_step(d) && slotmap_sparse_erase(d->a, key) != SLATE_OK) d->bad++;
  return 0;
}

static int deep_join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  deep_s* d = (deep_s*)data;
  (void)rows;
  (void)elements;
  int erase = deep_step(d);
  if (erase && slotmap_sparse_erase(erase == 2 ? d->b : d->a, key) != SLATE_OK) d->bad++;
  return 0;
}

static int run_level(deep_s* d) {
  slotmap_sparse_s* const* sets = d->sets;
  switch (kind_of(d, d->level)) {
    case K_MAP_EACH: return slate_each(d->map, deep_map_cb, d);
    case K_MAP_DELETE_IF: return slate_delete_if(d->map, deep_map_cb, d);
    case K_SM_EACH: return slotmap_each(d->sm, deep_sm_cb, d);
    case K_SM_ERASE_IF: return slotmap_erase_if(d->sm, deep_sm_cb, d);
    case K_SP_EACH: return slotmap_sparse_each(d->a, deep_sp_cb, d);
    case K_SP_ERASE_IF: return slotmap_sparse_erase_if(d->a, deep_sp_cb, d);
    case K_JOIN: return slotmap_join(NULL, sets, 2, deep_join_cb, d);
    default: return slotmap_join(d->sm, sets, 2, deep_join_cb, d);
  }
}

/* ENTRIES entries in each structure: the map, the slotmap of entities,
 * set a (the entities) and set b (the entities and as many more). */
typedef struct world_s {
  slate_s map;
  slotmap_s sm;
  slotmap_sparse_s a, b;
  slotmap_key keys[2 * ENTRIES];
} world_s;

static void world_build(world_s* w) {
  unsigned failures = 0;
  CHECK_EQ_INT(slate(&w->map), SLATE_OK);
  CHECK_EQ_INT(slotmap(&w->sm, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&w->a, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&w->b, 0), SLATE_OK);
  for (uint32_t i = 0; i < 2 * ENTRIES; i++) {
    uint64_t v = i;
    if (slotmap_insert(&w->sm, &v, &w->keys[i]) != SLATE_OK) failures++;
    if (i < ENTRIES) {
      if (slate_set_u64(&w->map, i, V(i + 1)) != SLATE_OK) failures++;
      if (slotmap_sparse_set(&w->a, &w->sm, w->keys[i], &v) != SLATE_OK) failures++;
    }
    if (slotmap_sparse_set(&w->b, &w->sm, w->keys[i], NULL) != SLATE_OK) failures++;
  }
  /* the slotmap holds ENTRIES rows, as the others: the rest are erased
     (from the slotmap only, so that b keeps more keys than a) */
  for (uint32_t i = ENTRIES; i < 2 * ENTRIES; i++)
    if (slotmap_erase(&w->sm, w->keys[i]) != SLATE_OK) failures++;
  CHECK_EQ_INT(failures, 0);
}

static void world_free(world_s* w) {
  CHECK_MAP_OK(&w->map);
  slate_free(&w->map);
  slotmap_free(&w->sm);
  slotmap_sparse_free(&w->a);
  slotmap_sparse_free(&w->b);
}

static unsigned long run_deep(world_s* w, int kind, int erase_at_bottom, unsigned long* wrong) {
  deep_s* d = (deep_s*)calloc(1, sizeof(deep_s));
  if (!d) exit(2);
  d->kind = kind;
  d->depth = DEPTH;
  d->erase_at_bottom = erase_at_bottom;
  d->map = &w->map;
  d->sm = &w->sm;
  d->a = &w->a;
  d->b = &w->b;
  d->sets[0] = &w->a;
  d->sets[1] = &w->b;
  CHECK_EQ_INT(run_level(d), SLATE_OK);
  CHECK_EQ_INT(d->bad, 0);
  /* every level visited every entry once: the deepest level's removal of
     the key all levels were given first lets every walk go on */
  unsigned long levels = 0;
  *wrong = 0;
  for (uint32_t l = 0; l < DEPTH; l++) {
    if (d->visits[l] > 0) levels++;
    if (d->visits[l] != ENTRIES) ++*wrong;
  }
  free(d);
  return levels;
}

void test_deep_nesting(void) {
  TEST_SECTION("walks nested 1,000 deep: one structure, and a cycle through all");
  unsigned long wrong = 0;
  for (int kind = -1; kind < K_KINDS; kind++) {
    world_s w;
    world_build(&w);
    CHECK_EQ_U64(run_deep(&w, kind, 0, &wrong), DEPTH);
    CHECK_EQ_U64(wrong, 0);
    /* nothing changed: every structure still holds its ENTRIES */
    CHECK_EQ_U64(slate_length(&w.map), ENTRIES);
    CHECK_EQ_U64(slotmap_length(&w.sm), ENTRIES);
    CHECK_EQ_U64(slotmap_sparse_length(&w.a), ENTRIES);
    CHECK_EQ_U64(slotmap_sparse_length(&w.b), 2 * ENTRIES);
    /* and every structure is writable again */
    CHECK_EQ_INT(slate_set_u64(&w.map, 999, V(1)), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_erase(&w.a, w.keys[0]), SLATE_OK);
    CHECK_EQ_INT(slotmap_erase(&w.sm, w.keys[0]), SLATE_OK);
    world_free(&w);
  }
}

void test_deep_nesting_removal(void) {
  TEST_SECTION("walks nested 1,000 deep: the deepest callback removes the key all were given");
  unsigned long wrong = 0;
  for (int kind = 0; kind < K_KINDS; kind++)
    for (int from = 1; from <= (kind >= K_JOIN ? 2 : 1); from++) {
      world_s w;
      world_build(&w);
      CHECK_EQ_U64(run_deep(&w, kind, from, &wrong), DEPTH);
      CHECK_EQ_U64(wrong, 0);
      /* exactly one key went, from the structure walked */
      uint64_t map_n = slate_length(&w.map), sm_n = slotmap_length(&w.sm);
      uint64_t a_n = slotmap_sparse_length(&w.a), b_n = slotmap_sparse_length(&w.b);
      switch (kind) {
        case K_MAP_EACH:
        case K_MAP_DELETE_IF: CHECK_EQ_U64(map_n, ENTRIES - 1); break;
        case K_SM_EACH:
        case K_SM_ERASE_IF: CHECK_EQ_U64(sm_n, ENTRIES - 1); break;
        case K_SP_EACH:
        case K_SP_ERASE_IF: CHECK_EQ_U64(a_n, ENTRIES - 1); break;
        default:
          CHECK_EQ_U64(a_n, from == 1 ? ENTRIES - 1 : ENTRIES);
          CHECK_EQ_U64(b_n, from == 2 ? 2 * ENTRIES - 1 : 2 * ENTRIES);
          break;
      }
      CHECK_EQ_U64(map_n + sm_n + a_n + b_n, 5 * ENTRIES - 1);
      world_free(&w);
    }
}

/* ------------------------------------------------------------------------ */
/* read-only walks allocate nothing                                          */
/* ------------------------------------------------------------------------ */

static unsigned long hook_allocations_, hook_releases_;

static void* counting_malloc(size_t size) {
  hook_allocations_++;
  return malloc(size);
}
static void* counting_calloc(size_t count, size_t size) {
  hook_allocations_++;
  return calloc(count, size);
}
static void counting_free(void* pointer) {
  hook_releases_++;
  free(pointer);
}

typedef struct reader_s {
  const slate_s* map;
  const slotmap_s* sm;
  slotmap_sparse_s* sets[3];
  unsigned long visits;
  int nest; /* 1: now and then a visit starts every read-only walk again, one level deeper */
  int stop_after;
} reader_s;

static void read_everything(reader_s* r);

static int read_map_cb(const char* key, uint32_t length, void* value, void* data) {
  reader_s* r = (reader_s*)data;
  void* v = NULL;
  (void)value;
  r->visits++;
  if (slate_get_bytes(r->map, key, length, &v) != SLATE_OK) r->visits += 1000000;
  if (r->nest && r->visits % 97 == 1) {
    r->nest = 0;
    read_everything(r);
    r->nest = 1;
  }
  return r->stop_after && r->visits >= (unsigned long)r->stop_after ? 9 : 0;
}

static int read_row_cb(slotmap_key key, void* row, void* data) {
  reader_s* r = (reader_s*)data;
  (void)key;
  (void)row;
  r->visits++;
  if (r->nest && r->visits % 97 == 1) {
    r->nest = 0;
    read_everything(r);
    r->nest = 1;
  }
  return 0;
}

static int read_join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  reader_s* r = (reader_s*)data;
  (void)rows;
  (void)elements;
  if (!slotmap_sparse_contains(r->sets[0], key)) r->visits += 1000000;
  r->visits++;
  if (r->nest && r->visits % 97 == 1) {
    r->nest = 0;
    read_everything(r);
    r->nest = 1;
  }
  return 0;
}

static void read_everything(reader_s* r) {
  CHECK_EQ_INT(slate_each(r->map, read_map_cb, r), SLATE_OK);
  CHECK_EQ_INT(slotmap_each(r->sm, read_row_cb, r), SLATE_OK);
  for (int i = 0; i < 3; i++) CHECK_EQ_INT(slotmap_sparse_each(r->sets[i], read_row_cb, r), SLATE_OK);
  CHECK_EQ_INT(slotmap_join(r->sm, r->sets, 2, read_join_cb, r), SLATE_OK);
  CHECK_EQ_INT(slotmap_join(NULL, r->sets, 3, read_join_cb, r), SLATE_OK);
  slotmap_sparse_s* reversed[3] = {r->sets[2], r->sets[1], r->sets[0]};
  CHECK_EQ_INT(slotmap_join(r->sm, reversed, 3, read_join_cb, r), SLATE_OK);
}

static int never(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (void)data;
  return 0;
}

static int greater_u64(const void* a, const void* b, void* data) {
  (void)data;
  return *(const uint64_t*)a > *(const uint64_t*)b;
}

void test_read_walks_allocate_nothing(void) {
  TEST_SECTION("read-only walks, nested or not, allocate nothing");
  char buffer[80];
  arena_s arena;
  arena_init(&arena);
  hook_allocations_ = hook_releases_ = 0;
  /* the process default counts; set c has an allocator of its own */
  CHECK_EQ_INT(slate_use_allocator(counting_malloc, counting_calloc, counting_free), SLATE_OK);
  slate_s map;
  slotmap_s sm;
  slotmap_sparse_s a, b, c;
  slate_allocator_s al = arena_allocator(&arena);
  CHECK_EQ_INT(slate(&map), SLATE_OK);
  CHECK_EQ_INT(slotmap(&sm, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&a, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&b, 0), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&c, 16), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_set_allocator(&c, &al), SLATE_OK);
  unsigned failures = 0;
  for (uint32_t i = 0; i < 600; i++) {
    uint64_t row[2] = {600 - i, i};
    slotmap_key k = 0;
    if (slate_set_u64(&map, i, V(i)) != SLATE_OK) failures++;
    snprintf(buffer, sizeof buffer, "a string key long enough to be kept outside %u", i);
    if (i % 20 == 0 && slate_set(&map, buffer, V(i)) != SLATE_OK) failures++;
    if (slotmap_insert(&sm, row, &k) != SLATE_OK) failures++;
    if (i % 3 == 0 && slotmap_sparse_set(&a, &sm, k, row) != SLATE_OK) failures++;
    if (i % 2 == 0 && slotmap_sparse_set(&b, &sm, k, NULL) != SLATE_OK) failures++;
    if (i % 5 != 0 && slotmap_sparse_set(&c, NULL, k, row) != SLATE_OK) failures++;
  }
  CHECK_EQ_INT(failures, 0);

  reader_s r;
  memset(&r, 0, sizeof r);
  r.map = &map;
  r.sm = &sm;
  r.sets[0] = &a;
  r.sets[1] = &b;
  r.sets[2] = &c;
  for (int round = 0; round < 2; round++) {
    unsigned long hooks = hook_allocations_ + hook_releases_;
    unsigned long long own = arena.allocs + arena.releases;
    r.visits = 0;
    r.nest = 0;
    read_everything(&r);
    CHECK(r.visits > 0 && r.visits < 1000000);
    r.visits = 0;
    r.nest = 1;
    read_everything(&r);
    CHECK(r.visits > 0 && r.visits < 1000000);
    /* a walk stopped by its callback's return */
    r.visits = 0;
    r.nest = 0;
    r.stop_after = 5;
    CHECK_EQ_INT(slate_each(&map, read_map_cb, &r), 9);
    CHECK_EQ_U64(r.visits, 5);
    r.stop_after = 0;
    CHECK_EQ_U64(hook_allocations_ + hook_releases_, hooks);
    CHECK_EQ_U64(arena.allocs + arena.releases, own);
    /* sorts and erase_ifs may keep scratch memory in their structure; the
       read-only walks after them still allocate nothing */
    CHECK_EQ_INT(slotmap_sort(&sm, greater_u64, NULL), SLATE_OK);
    CHECK_EQ_INT(slotmap_erase_if(&sm, never, NULL), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_sort(&c, greater_u64, NULL), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_erase_if(&c, never, NULL), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_erase_if(&b, never, NULL), SLATE_OK);
  }
  slate_free(&map);
  slotmap_free(&sm);
  slotmap_sparse_free(&a);
  slotmap_sparse_free(&b);
  slotmap_sparse_free(&c);
  /* everything went back, to the allocator it came from */
  CHECK_EQ_U64(hook_allocations_, hook_releases_);
  CHECK_EQ_U64(arena.live_bytes, 0);
  CHECK_EQ_U64(arena.bad, 0);
  CHECK_EQ_U64(arena_drop(&arena), 0);
  CHECK_EQ_INT(slate_use_allocator(NULL, NULL, NULL), SLATE_OK);
}
