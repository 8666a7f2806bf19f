/* abi/walks: the slotmap's walks (slotmap_each, slotmap_erase_if, the
 * comparator of slotmap_sort) with every kind of write from inside the
 * callback, against a model of the dense rows; given-key removal on every
 * row. */
#include "walks.h"

/* One column of uint64_t values, built in descending order so that a sort
 * moves rows. */
typedef struct sctx_s {
  const scenario_s* sc;
  slotmap_s* sm;
  model_s model;  /* keys in dense order, their values */
  model_s start;
  visits_s visits;
  uint32_t at, calls;
  int stopped, stop_rc;
  uint32_t stop_call;
  int reinit;
  unsigned bad;
  arena_s* spare;
  slotmap_key stale; /* a key erased before the walk */
  uint64_t next_value;
  slotmap_key nested_target;
  uint32_t nested_calls;
} sctx_s;

static uint64_t row_value(uint32_t n, uint32_t i) { return (uint64_t)(n - i) * 16 + 8; }

static int less_plain(const void* a, const void* b, void* data) {
  (void)data;
  return *(const uint64_t*)a < *(const uint64_t*)b;
}

static int nested_pred(slotmap_key key, void* row, void* data) {
  sctx_s* c = (sctx_s*)data;
  (void)row;
  c->nested_calls++;
  return c->nested_target != 0 && key == c->nested_target;
}

/* Makes the scenario's write from the callback given key g (0 in a
 * comparator, which is given no key) and its row; returns what it did. */
static int slotmap_write(sctx_s* c, int w, slotmap_key g, void* row) {
  slotmap_s* sm = c->sm;
  model_s* md = &c->model;
  slotmap_key o = model_other(md, g);
  void* p = NULL;
  switch (w) {
    case W_NONE: return C_NONE;
    case W_SET_NEW: {
      uint64_t v = c->next_value++;
      slotmap_key k = 0;
      CHECK_EQ_INT(slotmap_insert(sm, &v, &k), SLATE_OK);
      model_put(md, k, v);
      return C_CHANGE;
    }
    case W_SET_PRESENT: {
      /* a value replaced through a row pointer; in a comparator the same
         value, so that the order being sorted stays consistent */
      slotmap_key k = o ? o : g;
      if (!CHECK_EQ_INT(slotmap_get(sm, k, &p), SLATE_OK)) return C_NONE;
      uint64_t v = g ? c->next_value++ : *(uint64_t*)p;
      *(uint64_t*)p = v;
      model_put(md, k, v);
      return C_NONE;
    }
    case W_SET_GIVEN: {
      uint64_t v = c->next_value++;
      *(uint64_t*)row = v;
      model_put(md, g, v);
      return C_NONE;
    }
    case W_DEL_GIVEN:
      CHECK_EQ_INT(slotmap_erase(sm, g), SLATE_OK);
      model_erase_swap(md, g);
      return C_GIVEN;
    case W_DEL_OTHER:
      if (o) {
        CHECK_EQ_INT(slotmap_erase(sm, o), SLATE_OK);
        model_erase_swap(md, o);
        return C_CHANGE;
      }
      CHECK_EQ_INT(slotmap_erase(sm, c->stale), SLATE_ERROR_NOT_FOUND);
      return C_NONE;
    case W_DEL_ABSENT:
      CHECK_EQ_INT(slotmap_erase(sm, c->stale), SLATE_ERROR_NOT_FOUND);
      CHECK_EQ_INT(slotmap_erase(sm, 0), SLATE_ERROR_NOT_FOUND);
      return C_NONE;
    case W_CLEAR: {
      int change = g && md->n == 1 ? C_GIVEN : C_CHANGE;
      CHECK_EQ_INT(slotmap_clear(sm), SLATE_OK);
      model_clear(md);
      return change;
    }
    case W_RESERVE_SMALL:
      CHECK_EQ_INT(slotmap_reserve(sm, slotmap_length(sm)), SLATE_OK);
      return C_NONE;
    case W_RESERVE_BIG:
      CHECK_EQ_INT(slotmap_reserve(sm, md->n * 4 + 4096), SLATE_OK);
      return C_CHANGE;
    case W_FREE: {
      int change = g && md->n == 1 ? C_GIVEN : C_CHANGE;
      slotmap_free(sm);
      model_clear(md);
      return change;
    }
    case W_REINIT:
      /* a slotmap whose only row is the given one: left out, it clears */
      if (md->n == 1 && g) return slotmap_write(c, W_CLEAR, g, row);
      CHECK_EQ_INT(slotmap(sm, (uint32_t)sizeof(uint64_t)), SLATE_OK);
      model_clear(md);
      c->reinit = 1;
      return C_CHANGE;
    case W_NESTED_NONE:
    case W_NESTED_GIVEN:
    case W_NESTED_OTHER: {
      uint32_t n = md->n;
      slotmap_key target = w == W_NESTED_GIVEN ? g : w == W_NESTED_OTHER ? o : 0;
      c->nested_target = target;
      c->nested_calls = 0;
      CHECK_EQ_INT(slotmap_erase_if(sm, nested_pred, c), SLATE_OK);
      CHECK_EQ_U64(c->nested_calls, n);
      c->nested_target = 0;
      if (!target) return C_NONE;
      model_erase_swap(md, target); /* erase_if erases by swap-and-pop */
      return target == g ? C_GIVEN : C_CHANGE;
    }
    case W_SET_ALLOCATOR: {
      slate_allocator_s al = arena_allocator(c->spare);
      CHECK_EQ_INT(slotmap_set_allocator(sm, &al), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slotmap_set_allocator(sm, NULL), SLATE_ERROR_INVALID);
      return C_NONE;
    }
    case W_SORT:
      /* a sort of fewer than two rows moves nothing: left out */
      if (md->n < 2) return C_NONE;
      CHECK_EQ_INT(slotmap_sort(sm, less_plain, NULL), SLATE_OK);
      model_sort_by_value(md);
      return C_CHANGE;
    case W_DEL_OR_CLEAR:
      return slotmap_write(c, md->n == 1 ? W_CLEAR : W_DEL_GIVEN, g, row);
    case W_DEL_OR_FREE:
      return slotmap_write(c, md->n == 1 ? W_FREE : W_DEL_GIVEN, g, row);
    default:
      CHECK_MSG(0, "a write kind the slotmap has not");
      return C_NONE;
  }
}

static void note_stop(sctx_s* c, int stops_on_return, int change, int ret) {
  int stops;
  int rc = expected_rc(stops_on_return, change, ret, &stops);
  if (stops) {
    c->stopped = 1;
    c->stop_rc = rc;
    c->stop_call = c->calls;
  }
}

static int slotmap_cb(slotmap_key key, void* row, void* data) {
  sctx_s* c = (sctx_s*)data;
  const scenario_s* s = c->sc;
  void* p = NULL;
  c->calls++;
  if (c->stopped) {
    c->bad++;
    return 0;
  }
  int i = model_find(&c->model, key);
  if (i < 0 || *(const uint64_t*)row != c->model.vals[i]) c->bad++;
  if (slotmap_get(c->sm, key, &p) != SLATE_OK || p != row) c->bad++;
  visits_add(&c->visits, key);

  int here = s->every ? (KEY_SLOT(key) % s->every == 0) : (c->calls == c->at);
  int answer = s->pattern && KEY_SLOT(key) % 3 == 1;
  int change = C_NONE;
  if (here) {
    change = slotmap_write(c, s->write, key, row);
    answer = s->ret;
    note_stop(c, s->walk == SM_EACH, change, s->ret);
  }
  if (s->walk == SM_ERASE_IF) {
    /* erased as the walk goes (swap-and-pop), unless the answer came with
       a change; a key the predicate erased itself is not erased twice */
    if (answer && change != C_CHANGE) model_erase_swap(&c->model, key);
    return answer;
  }
  return here ? s->ret : 0;
}

static int slotmap_less(const void* a, const void* b, void* data) {
  sctx_s* c = (sctx_s*)data;
  c->calls++;
  if (c->stopped) {
    c->bad++;
    return 0;
  }
  /* the elements are read first: a write may move them */
  int less = *(const uint64_t*)a < *(const uint64_t*)b;
  if (c->calls == c->at) note_stop(c, 0, slotmap_write(c, c->sc->write, 0, NULL), 0);
  return less;
}

static int count_less(const void* a, const void* b, void* data) {
  ++*(uint32_t*)data;
  return *(const uint64_t*)a < *(const uint64_t*)b;
}

/* Breaches of: the slotmap holds exactly the model's keys and values
 * (in the model's order where it is known), and every key, row and
 * pointer agrees. */
static unsigned slotmap_problems(const slotmap_s* sm, const model_s* md) {
  unsigned problems = 0;
  uint32_t n = slotmap_length(sm);
  if (n != md->n) problems++;
  const uint64_t* col = (const uint64_t*)slotmap_column(sm, 0);
  for (uint32_t r = 0; r < n; r++) {
    slotmap_key k = slotmap_key_at(sm, r);
    uint32_t row = 0xFFFFFFFFu;
    void* p = NULL;
    int i = model_find(md, k);
    if (i < 0 || !col || col[r] != md->vals[i]) problems++;
    if (md->order_known && (r >= md->n || md->keys[r] != k)) problems++;
    if (slotmap_row(sm, k, &row) != SLATE_OK || row != r) problems++;
    if (slotmap_get(sm, k, &p) != SLATE_OK || p != (const void*)(col + r)) problems++;
    if (!slotmap_contains(sm, k)) problems++;
  }
  if (slotmap_key_at(sm, n) != 0) problems++;
  return problems;
}

static void build(slotmap_s* sm, arena_s* arena, model_s* md, uint32_t n, slotmap_key* stale) {
  CHECK_EQ_INT(slotmap(sm, (uint32_t)sizeof(uint64_t)), SLATE_OK);
  if (arena) {
    slate_allocator_s al = arena_allocator(arena);
    CHECK_EQ_INT(slotmap_set_allocator(sm, &al), SLATE_OK);
  }
  unsigned failures = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t v = row_value(n, i);
    slotmap_key k = 0;
    if (slotmap_insert(sm, &v, &k) != SLATE_OK) failures++;
    if (md) model_put(md, k, v);
  }
  /* one more row, erased: its key is stale for good */
  slotmap_key k = 0;
  if (slotmap_insert(sm, NULL, &k) != SLATE_OK || slotmap_erase(sm, k) != SLATE_OK) failures++;
  if (stale) *stale = k;
  CHECK_EQ_INT(failures, 0);
}

/* The comparator calls a sort of that slotmap makes when nothing writes:
 * the same rows sorted the same way make the same calls. */
static uint32_t sort_calls(uint32_t n) {
  slotmap_s sm;
  uint32_t calls = 0;
  build(&sm, NULL, NULL, n, NULL);
  CHECK_EQ_INT(slotmap_sort(&sm, count_less, &calls), SLATE_OK);
  slotmap_free(&sm);
  return calls;
}

uint32_t slotmap_scenario(const scenario_s* s) {
  unsigned long failed_before = TEST_FAILED_COUNT();
  slotmap_s sm;
  arena_s arena, spare;
  sctx_s c;
  memset(&c, 0, sizeof c);
  arena_init(&arena);
  arena_init(&spare);
  c.sc = s;
  c.sm = &sm;
  c.spare = &spare;
  c.next_value = 0x100000000ull;
  model_init(&c.model, s->n + 8);
  model_init(&c.start, s->n + 8);
  visits_init(&c.visits);
  build(&sm, &arena, &c.model, s->n, &c.stale);
  model_copy(&c.start, &c.model);
  uint32_t total = s->walk == SM_SORT ? sort_calls(s->n) : s->n;
  c.at = resolve_at(s->at, total);

  int rc;
  if (s->walk == SM_EACH)
    rc = slotmap_each(&sm, slotmap_cb, &c);
  else if (s->walk == SM_ERASE_IF)
    rc = slotmap_erase_if(&sm, slotmap_cb, &c);
  else
    rc = slotmap_sort(&sm, slotmap_less, &c);

  CHECK_EQ_INT(rc, c.stopped ? c.stop_rc : SLATE_OK);
  if (s->walk == SM_SORT) {
    if (c.stopped)
      CHECK_EQ_U64(c.calls, c.stop_call);
    else
      model_sort_by_value(&c.model); /* the sort went on: its order is applied */
  } else {
    CHECK_EQ_U64(c.calls, c.stopped ? c.stop_call : c.start.n);
    CHECK_EQ_INT(visits_problems(&c.visits, &c.start, !c.stopped), 0);
  }
  CHECK_EQ_INT(c.bad, 0);
  CHECK_EQ_INT(slotmap_problems(&sm, &c.model), 0);

  /* usable afterwards */
  uint64_t v = 1;
  slotmap_key k = 0;
  CHECK_EQ_INT(slotmap_insert(&sm, &v, &k), SLATE_OK);
  CHECK_EQ_INT(slotmap_erase(&sm, k), SLATE_OK);
  slotmap_free(&sm);
  CHECK_EQ_U64(slotmap_length(&sm), 0);

  CHECK_EQ_U64(arena.bad, 0);
  CHECK_EQ_U64(spare.allocs, 0);
  size_t left = arena_drop(&arena);
  if (!c.reinit) CHECK_EQ_U64(left, 0); /* erase_if and sort scratch went back at free */
  arena_drop(&spare);
  model_free(&c.model);
  model_free(&c.start);
  visits_free(&c.visits);
  if (TEST_FAILED_COUNT() != failed_before) scenario_print("slotmap", s);
  return c.calls;
}

int slotmap_applies(int walk, int write) {
  switch (write) {
    case W_SET_NEW:
    case W_SET_PRESENT:
    case W_DEL_OTHER:
    case W_DEL_ABSENT:
    case W_CLEAR:
    case W_RESERVE_SMALL:
    case W_RESERVE_BIG:
    case W_FREE:
    case W_REINIT:
    case W_NESTED_NONE:
    case W_NESTED_OTHER:
    case W_SET_ALLOCATOR:
    case W_SORT:
      return 1;
    case W_SET_GIVEN:
    case W_DEL_GIVEN:
    case W_NESTED_GIVEN:
    case W_DEL_OR_CLEAR:
    case W_DEL_OR_FREE:
      return walk != SM_SORT; /* a comparator is given no key */
    default:
      return 0;
  }
}

void test_slotmap_writes(void) {
  TEST_SECTION("slotmap walks: every write from inside the callback");
  static const uint32_t ats[] = {AT_FIRST, AT_MIDDLE, AT_LAST};
  static const uint32_t sizes[] = {9, 60};
  scenario_s s;
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int walk = 0; walk < SM_WALKS; walk++)
      for (int w = W_NONE + 1; w < W_COUNT; w++) {
        if (!slotmap_applies(walk, w)) continue;
        for (size_t ai = 0; ai < 3; ai++)
          for (int r = 0; r < (walk == SM_SORT ? 1 : 2); r++)
            for (int pattern = 0; pattern < (walk == SM_ERASE_IF ? 2 : 1); pattern++) {
              scenario_init(&s);
              s.walk = walk;
              s.write = w;
              s.at = ats[ai];
              s.n = sizes[si];
              s.pattern = pattern;
              s.ret = r == 0 ? 0 : walk == SM_EACH ? -77 : 1;
              slotmap_scenario(&s);
            }
      }
  static const int last_writes[] = {W_CLEAR, W_FREE, W_DEL_GIVEN, W_SET_NEW};
  for (int walk = 0; walk < SM_SORT; walk++)
    for (size_t wi = 0; wi < sizeof last_writes / sizeof last_writes[0]; wi++) {
      scenario_init(&s);
      s.walk = walk;
      s.write = last_writes[wi];
      s.at = AT_FIRST;
      s.n = 1;
      slotmap_scenario(&s);
    }
}

void test_slotmap_given_removal(void) {
  TEST_SECTION("slotmap walks: each callback erases the key it was given");
  static const uint32_t sizes[] = {1, 2, 8, 100, 3000};
  static const int writes[] = {W_DEL_GIVEN, W_NESTED_GIVEN, W_DEL_OR_CLEAR, W_DEL_OR_FREE};
  scenario_s s;
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int walk = 0; walk < SM_SORT; walk++)
      for (size_t wi = 0; wi < sizeof writes / sizeof writes[0]; wi++)
        for (uint32_t every = 1; every <= 3; every += 2)
          for (int ret = 0; ret < (walk == SM_ERASE_IF ? 2 : 1); ret++) {
            if (writes[wi] == W_NESTED_GIVEN && sizes[si] > 100) continue;
            scenario_init(&s);
            s.walk = walk;
            s.write = writes[wi];
            s.every = every;
            s.n = sizes[si];
            s.ret = ret; /* erase_if: 1 after erasing its own key: no second erase */
            s.pattern = walk == SM_ERASE_IF;
            slotmap_scenario(&s);
          }
}
