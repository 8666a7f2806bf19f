/* abi/walks: a sparse set's walks (slotmap_sparse_each,
 * slotmap_sparse_erase_if, the comparator of slotmap_sparse_sort) with
 * every kind of write from inside the callback, against a model of the
 * dense rows; given-key removal on every row, from the walked set and from
 * another set as well. */
#include "walks.h"

/* The set's keys are entities of a slotmap (`ents`, not walked): the
 * entities 0, 2, 4, ... are in the set, the odd ones are not (new keys
 * and absent keys come from them). One column of uint64_t, values
 * descending, or no column (a membership set: every value 0). */
typedef struct pctx_s {
  const scenario_s* sc;
  slotmap_sparse_s* sp;
  slotmap_sparse_s* other; /* another set of the same keys (target 1) */
  slotmap_s* ents;
  model_s model, start, other_model;
  visits_s visits;
  slotmap_key* outside; /* entities not in the set */
  uint32_t outside_n, outside_used;
  uint32_t at, calls;
  int stopped, stop_rc;
  uint32_t stop_call;
  int reinit;
  unsigned bad;
  arena_s* spare;
  uint64_t next_value;
  slotmap_key nested_target;
  uint32_t nested_calls;
} pctx_s;

static int less_plain(const void* a, const void* b, void* data) {
  (void)data;
  return *(const uint64_t*)a < *(const uint64_t*)b;
}

static int nested_pred(slotmap_key key, void* row, void* data) {
  pctx_s* c = (pctx_s*)data;
  (void)row;
  c->nested_calls++;
  return c->nested_target != 0 && key == c->nested_target;
}

/* An entity the set does not hold. */
static slotmap_key outside_key(pctx_s* c) {
  if (c->outside_used < c->outside_n) return c->outside[c->outside_used++];
  return MAKE_KEY(1, 0x00100000u + c->outside_used++); /* any non-zero key is taken */
}

/* Erases from the model every key the entity slotmap no longer accepts,
 * as a prune does; returns what that did, for the given key g. */
static int model_prune(pctx_s* c, slotmap_key g) {
  model_s* md = &c->model;
  int removed_given = 0, removed_other = 0;
  for (uint32_t i = md->n; i-- > 0;) {
    slotmap_key k = md->keys[i];
    if (!slotmap_contains(c->ents, k)) {
      if (k == g)
        removed_given = 1;
      else
        removed_other = 1;
      model_erase_keep(md, k);
    }
  }
  md->order_known = 0; /* the order a prune leaves is unspecified */
  return removed_other ? C_CHANGE : removed_given ? C_GIVEN : C_NONE;
}

static int sparse_write(pctx_s* c, int w, slotmap_key g) {
  slotmap_sparse_s* sp = c->sp;
  model_s* md = &c->model;
  const int member = c->sc->membership;
  slotmap_key o = model_other(md, g);
  uint64_t v = member ? 0 : c->next_value++;
  const void* row = member ? NULL : &v;
  switch (w) {
    case W_NONE: return C_NONE;
    case W_SET_NEW: {
      slotmap_key k = outside_key(c);
      CHECK_EQ_INT(slotmap_sparse_set(sp, NULL, k, row), SLATE_OK);
      model_put(md, k, v);
      return C_CHANGE;
    }
    case W_SET_PRESENT: {
      slotmap_key k = o ? o : g;
      if (!g) v = model_value(md, k); /* in a comparator: the same value */
      /* checked against the entity slotmap, which accepts the key */
      CHECK_EQ_INT(slotmap_sparse_set(sp, c->ents, k, row), SLATE_OK);
      model_put(md, k, v);
      return C_NONE;
    }
    case W_SET_GIVEN:
      CHECK_EQ_INT(slotmap_sparse_set(sp, NULL, g, row), SLATE_OK);
      model_put(md, g, v);
      return C_NONE;
    case W_SET_OTHER_GEN: {
      /* a key of another generation of a present slot replaces that key:
         a new key */
      slotmap_key base = g ? g : o;
      slotmap_key k = MAKE_KEY(KEY_VERSION(base) + 2, KEY_SLOT(base));
      CHECK_EQ_INT(slotmap_sparse_set(sp, NULL, k, row), SLATE_OK);
      CHECK_EQ_INT(slotmap_sparse_contains(sp, base), 0);
      model_rekey(md, base, k, v);
      return C_CHANGE;
    }
    case W_DEL_GIVEN:
      CHECK_EQ_INT(slotmap_sparse_erase(sp, g), SLATE_OK);
      model_erase_swap(md, g);
      if (c->sc->target == 1) { /* and from a set that is not walked */
        CHECK_EQ_INT(slotmap_sparse_erase(c->other, g), SLATE_OK);
        model_erase_swap(&c->other_model, g);
      }
      return C_GIVEN;
    case W_DEL_OTHER:
      if (o) {
        CHECK_EQ_INT(slotmap_sparse_erase(sp, o), SLATE_OK);
        model_erase_swap(md, o);
        return C_CHANGE;
      }
      CHECK_EQ_INT(slotmap_sparse_erase(sp, c->outside[0]), SLATE_ERROR_NOT_FOUND);
      return C_NONE;
    case W_DEL_ABSENT:
      CHECK_EQ_INT(slotmap_sparse_erase(sp, c->outside[0]), SLATE_ERROR_NOT_FOUND);
      CHECK_EQ_INT(slotmap_sparse_erase(sp, 0), SLATE_ERROR_NOT_FOUND);
      return C_NONE;
    case W_CLEAR: {
      int change = g && md->n == 1 ? C_GIVEN : C_CHANGE;
      CHECK_EQ_INT(slotmap_sparse_clear(sp), SLATE_OK);
      model_clear(md);
      return change;
    }
    case W_RESERVE_SMALL:
      CHECK_EQ_INT(slotmap_sparse_reserve(sp, 0), SLATE_OK);
      return C_NONE;
    case W_RESERVE_BIG:
      CHECK_EQ_INT(slotmap_sparse_reserve(sp, md->n * 4 + 4096), SLATE_OK);
      return C_CHANGE;
    case W_FREE: {
      int change = g && md->n == 1 ? C_GIVEN : C_CHANGE;
      slotmap_sparse_free(sp);
      model_clear(md);
      return change;
    }
    case W_REINIT:
      if (md->n == 1 && g) return sparse_write(c, W_CLEAR, g);
      CHECK_EQ_INT(slotmap_sparse(sp, member ? 0u : (uint32_t)sizeof(uint64_t)), SLATE_OK);
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
      CHECK_EQ_INT(slotmap_sparse_erase_if(sp, nested_pred, c), SLATE_OK);
      CHECK_EQ_U64(c->nested_calls, n);
      c->nested_target = 0;
      if (!target) return C_NONE;
      model_erase_swap(md, target); /* erase_if erases by swap-and-pop */
      return target == g ? C_GIVEN : C_CHANGE;
    }
    case W_SET_ALLOCATOR: {
      slate_allocator_s al = arena_allocator(c->spare);
      CHECK_EQ_INT(slotmap_sparse_set_allocator(sp, &al), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slotmap_sparse_set_allocator(sp, NULL), SLATE_ERROR_INVALID);
      return C_NONE;
    }
    case W_SORT:
      if (member) { /* no column 0: refused, nothing changed */
        CHECK_EQ_INT(slotmap_sparse_sort(sp, less_plain, NULL), SLATE_ERROR_INVALID);
        return C_NONE;
      }
      if (md->n < 2) return C_NONE;
      CHECK_EQ_INT(slotmap_sparse_sort(sp, less_plain, NULL), SLATE_OK);
      model_sort_by_value(md);
      return C_CHANGE;
    case W_PRUNE_GIVEN:
    case W_PRUNE_OTHER: {
      slotmap_key dies = w == W_PRUNE_GIVEN ? g : o;
      if (dies) CHECK_EQ_INT(slotmap_erase(c->ents, dies), SLATE_OK);
      CHECK_EQ_INT(slotmap_sparse_prune(sp, c->ents), SLATE_OK);
      return model_prune(c, g);
    }
    case W_DEL_OR_CLEAR:
      return sparse_write(c, md->n == 1 ? W_CLEAR : W_DEL_GIVEN, g);
    case W_DEL_OR_FREE:
      return sparse_write(c, md->n == 1 ? W_FREE : W_DEL_GIVEN, g);
    default:
      CHECK_MSG(0, "a write kind the set has not");
      return C_NONE;
  }
}

static void note_stop(pctx_s* c, int stops_on_return, int change, int ret) {
  int stops;
  int rc = expected_rc(stops_on_return, change, ret, &stops);
  if (stops) {
    c->stopped = 1;
    c->stop_rc = rc;
    c->stop_call = c->calls;
  }
}

static int sparse_cb(slotmap_key key, void* element, void* data) {
  pctx_s* c = (pctx_s*)data;
  const scenario_s* s = c->sc;
  void* p = SENTINEL_PTR;
  c->calls++;
  if (c->stopped) {
    c->bad++;
    return 0;
  }
  int i = model_find(&c->model, key);
  if (i < 0) c->bad++;
  if (s->membership) {
    if (element != NULL) c->bad++;
  } else if (i >= 0 && (!element || *(const uint64_t*)element != c->model.vals[i])) {
    c->bad++;
  }
  if (slotmap_sparse_get(c->sp, key, &p) != SLATE_OK || p != element) c->bad++;
  visits_add(&c->visits, key);

  int here = s->every ? (KEY_SLOT(key) % (2 * s->every) == 0) : (c->calls == c->at);
  int answer = s->pattern && KEY_SLOT(key) % 6 == 2;
  int change = C_NONE;
  if (here) {
    change = sparse_write(c, s->write, key);
    answer = s->ret;
    note_stop(c, s->walk == SP_EACH, change, s->ret);
  }
  if (s->walk == SP_ERASE_IF) {
    /* erased as the walk goes (swap-and-pop), unless the answer came with
       a change; a key the predicate erased itself is not erased twice */
    if (answer && change != C_CHANGE) model_erase_swap(&c->model, key);
    return answer;
  }
  return here ? s->ret : 0;
}

static int sparse_less(const void* a, const void* b, void* data) {
  pctx_s* c = (pctx_s*)data;
  c->calls++;
  if (c->stopped) {
    c->bad++;
    return 0;
  }
  /* the elements are read first: a write may move them */
  int less = *(const uint64_t*)a < *(const uint64_t*)b;
  if (c->calls == c->at) note_stop(c, 0, sparse_write(c, c->sc->write, 0), 0);
  return less;
}

static int count_less(const void* a, const void* b, void* data) {
  ++*(uint32_t*)data;
  return *(const uint64_t*)a < *(const uint64_t*)b;
}

unsigned sparse_problems(const slotmap_sparse_s* sp, const model_s* md, int membership) {
  unsigned problems = 0;
  uint32_t n = slotmap_sparse_length(sp);
  if (n != md->n) problems++;
  const uint64_t* col = (const uint64_t*)slotmap_sparse_column(sp, 0);
  const slotmap_key* keys = slotmap_sparse_keys(sp);
  if (membership ? col != NULL : (n > 0 && col == NULL)) problems++;
  if ((n == 0) != (keys == NULL)) problems++;
  for (uint32_t r = 0; r < n; r++) {
    slotmap_key k = slotmap_sparse_key_at(sp, r);
    uint32_t row = 0xFFFFFFFFu;
    void* p = SENTINEL_PTR;
    int i = model_find(md, k);
    if (i < 0) problems++;
    if (keys && keys[r] != k) problems++;
    if (!membership && (i < 0 || !col || col[r] != md->vals[i])) problems++;
    if (md->order_known && (r >= md->n || md->keys[r] != k)) problems++;
    if (slotmap_sparse_row(sp, k, &row) != SLATE_OK || row != r) problems++;
    if (slotmap_sparse_get(sp, k, &p) != SLATE_OK || p != (membership ? NULL : (const void*)(col + r)))
      problems++;
    if (!slotmap_sparse_contains(sp, k)) problems++;
  }
  if (slotmap_sparse_key_at(sp, n) != 0) problems++;
  return problems;
}

/* The entity slotmap of 2n + 2 entities, and the set of the even ones
 * (values descending), with its own allocator when `arena` is given; the
 * odd entities into `outside`. */
static void build(pctx_s* c, slotmap_sparse_s* sp, arena_s* arena, uint32_t n, int membership,
                  model_s* md) {
  unsigned failures = 0;
  CHECK_EQ_INT(slotmap(c->ents, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(sp, membership ? 0u : (uint32_t)sizeof(uint64_t)), SLATE_OK);
  if (arena) {
    slate_allocator_s al = arena_allocator(arena);
    CHECK_EQ_INT(slotmap_sparse_set_allocator(sp, &al), SLATE_OK);
  }
  c->outside_n = 0;
  for (uint32_t i = 0; i < 2 * n + 2; i++) {
    slotmap_key k = 0;
    if (slotmap_insert(c->ents, NULL, &k) != SLATE_OK) failures++;
    if (i % 2) {
      if (c->outside) c->outside[c->outside_n++] = k;
      continue;
    }
    if (i / 2 >= n) continue;
    uint64_t v = membership ? 0 : (uint64_t)(n - i / 2) * 16 + 8;
    if (slotmap_sparse_set(sp, c->ents, k, membership ? NULL : &v) != SLATE_OK) failures++;
    if (md) model_put(md, k, v);
  }
  CHECK_EQ_INT(failures, 0);
}

static uint32_t sort_calls(uint32_t n) {
  slotmap_s ents;
  slotmap_sparse_s sp;
  pctx_s c;
  uint32_t calls = 0;
  memset(&c, 0, sizeof c);
  c.ents = &ents;
  build(&c, &sp, NULL, n, 0, NULL);
  CHECK_EQ_INT(slotmap_sparse_sort(&sp, count_less, &calls), SLATE_OK);
  slotmap_sparse_free(&sp);
  slotmap_free(&ents);
  return calls;
}

uint32_t sparse_scenario(const scenario_s* s) {
  unsigned long failed_before = TEST_FAILED_COUNT();
  slotmap_s ents;
  slotmap_sparse_s sp, other;
  arena_s arena, spare;
  pctx_s c;
  memset(&c, 0, sizeof c);
  arena_init(&arena);
  arena_init(&spare);
  c.sc = s;
  c.sp = &sp;
  c.other = &other;
  c.ents = &ents;
  c.spare = &spare;
  c.next_value = 0x100000000ull;
  c.outside = (slotmap_key*)malloc((s->n + 2) * sizeof(slotmap_key));
  if (!c.outside) exit(2);
  model_init(&c.model, s->n + 8);
  model_init(&c.start, s->n + 8);
  model_init(&c.other_model, s->n + 8);
  visits_init(&c.visits);
  build(&c, &sp, &arena, s->n, s->membership, &c.model);
  model_copy(&c.start, &c.model);
  /* another set of the same keys, not walked */
  CHECK_EQ_INT(slotmap_sparse_clone(&other, &sp), SLATE_OK);
  model_copy(&c.other_model, &c.model);
  c.other_model.order_known = 0;
  uint32_t total = s->walk == SP_SORT ? sort_calls(s->n) : s->n;
  c.at = resolve_at(s->at, total);

  int rc;
  if (s->walk == SP_EACH)
    rc = slotmap_sparse_each(&sp, sparse_cb, &c);
  else if (s->walk == SP_ERASE_IF)
    rc = slotmap_sparse_erase_if(&sp, sparse_cb, &c);
  else
    rc = slotmap_sparse_sort(&sp, sparse_less, &c);

  CHECK_EQ_INT(rc, c.stopped ? c.stop_rc : SLATE_OK);
  if (s->walk == SP_SORT) {
    if (c.stopped)
      CHECK_EQ_U64(c.calls, c.stop_call);
    else
      model_sort_by_value(&c.model);
  } else {
    CHECK_EQ_U64(c.calls, c.stopped ? c.stop_call : c.start.n);
    CHECK_EQ_INT(visits_problems(&c.visits, &c.start, !c.stopped), 0);
  }
  CHECK_EQ_INT(c.bad, 0);
  CHECK_EQ_INT(sparse_problems(&sp, &c.model, s->membership), 0);
  CHECK_EQ_INT(sparse_problems(&other, &c.other_model, s->membership), 0);

  /* usable afterwards */
  slotmap_key k = outside_key(&c);
  CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, k, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_erase(&sp, k), SLATE_OK);
  slotmap_sparse_free(&sp);
  slotmap_sparse_free(&other);
  slotmap_free(&ents);
  CHECK_EQ_U64(slotmap_sparse_length(&sp), 0);

  CHECK_EQ_U64(arena.bad, 0);
  CHECK_EQ_U64(spare.allocs, 0);
  size_t left = arena_drop(&arena);
  if (!c.reinit) CHECK_EQ_U64(left, 0);
  arena_drop(&spare);
  free(c.outside);
  model_free(&c.model);
  model_free(&c.start);
  model_free(&c.other_model);
  visits_free(&c.visits);
  if (TEST_FAILED_COUNT() != failed_before) scenario_print("sparse", s);
  return c.calls;
}

int sparse_applies(int walk, int write, int membership) {
  if (walk == SP_SORT && membership) return 0;
  switch (write) {
    case W_SET_NEW:
    case W_SET_PRESENT:
    case W_SET_OTHER_GEN:
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
    case W_PRUNE_OTHER:
      return 1;
    case W_SET_GIVEN:
    case W_DEL_GIVEN:
    case W_NESTED_GIVEN:
    case W_PRUNE_GIVEN:
    case W_DEL_OR_CLEAR:
    case W_DEL_OR_FREE:
      return walk != SP_SORT;
    default:
      return 0;
  }
}

void test_sparse_writes(void) {
  TEST_SECTION("sparse walks: every write from inside the callback");
  static const uint32_t ats[] = {AT_FIRST, AT_MIDDLE, AT_LAST};
  static const uint32_t sizes[] = {9, 60};
  scenario_s s;
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int membership = 0; membership < 2; membership++)
      for (int walk = 0; walk < SP_WALKS; walk++)
        for (int w = W_NONE + 1; w < W_COUNT; w++) {
          if (!sparse_applies(walk, w, membership)) continue;
          for (size_t ai = 0; ai < 3; ai++)
            for (int r = 0; r < (walk == SP_SORT ? 1 : 2); r++)
              for (int pattern = 0; pattern < (walk == SP_ERASE_IF ? 2 : 1); pattern++) {
                scenario_init(&s);
                s.walk = walk;
                s.write = w;
                s.at = ats[ai];
                s.n = sizes[si];
                s.membership = membership;
                s.pattern = pattern;
                s.ret = r == 0 ? 0 : walk == SP_EACH ? 4321 : 1;
                sparse_scenario(&s);
              }
        }
  static const int last_writes[] = {W_CLEAR, W_FREE, W_DEL_GIVEN, W_PRUNE_GIVEN, W_SET_OTHER_GEN};
  for (int walk = 0; walk < SP_SORT; walk++)
    for (size_t wi = 0; wi < sizeof last_writes / sizeof last_writes[0]; wi++) {
      scenario_init(&s);
      s.walk = walk;
      s.write = last_writes[wi];
      s.at = AT_FIRST;
      s.n = 1;
      sparse_scenario(&s);
    }
}

void test_sparse_given_removal(void) {
  TEST_SECTION("sparse walks: each callback erases the key it was given");
  static const uint32_t sizes[] = {1, 2, 8, 100, 3000};
  static const int writes[] = {W_DEL_GIVEN, W_NESTED_GIVEN, W_PRUNE_GIVEN, W_DEL_OR_CLEAR,
                               W_DEL_OR_FREE};
  scenario_s s;
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int membership = 0; membership < 2; membership++)
      for (int walk = 0; walk < SP_SORT; walk++)
        for (size_t wi = 0; wi < sizeof writes / sizeof writes[0]; wi++)
          for (uint32_t every = 1; every <= 3; every += 2)
            for (int target = 0; target < (writes[wi] == W_DEL_GIVEN ? 2 : 1); target++)
              for (int ret = 0; ret < (walk == SP_ERASE_IF ? 2 : 1); ret++) {
                if ((writes[wi] == W_NESTED_GIVEN || writes[wi] == W_PRUNE_GIVEN) &&
                    sizes[si] > 100)
                  continue;
                scenario_init(&s);
                s.walk = walk;
                s.write = writes[wi];
                s.every = every;
                s.n = sizes[si];
                s.membership = membership;
                s.target = target; /* 1: erased from another set as well */
                s.ret = ret;
                s.pattern = walk == SP_ERASE_IF;
                sparse_scenario(&s);
              }
}
