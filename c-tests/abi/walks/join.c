/* abi/walks: slotmap_join over 2 and 3 sets, with and without an owner,
 * with every kind of write from inside the callback to the walked set, a
 * tested set, or the entity slotmap; given-key removal from the walked
 * set, a tested set or all of them on every key. */
#include "walks.h"

/* The entities 0 .. 3n+5 of a slotmap `ents`; the smallest set holds the
 * even entities below 2n, every other set all entities but those whose
 * number ends in 4 (the first tested set) or 8 (the second), so the join
 * visits the walked keys ending in neither. With an owner, the entities
 * whose number is 6 mod 7 die after the sets are filled, so the join skips
 * them. Values descend with the entity number, so a sort moves rows; with
 * three sets the last one is a membership set. */
typedef struct jctx_s {
  const scenario_s* sc;
  slotmap_s* ents;
  slotmap_sparse_s sets[3];
  model_s model[3];
  model_s expect; /* the keys the join is to visit, in the walked set's order */
  model_s start;
  visits_s visits;
  slotmap_key* entity;
  uint32_t entities;
  uint32_t count, walked, tested;
  uint32_t at, calls;
  int stopped, stop_rc;
  uint32_t stop_call;
  int reinit;
  unsigned bad;
  arena_s* spare;
  uint64_t next_value;
  uint32_t next_forged;
  slotmap_key nested_target;
  uint32_t nested_calls;
} jctx_s;

static int is_membership(const jctx_s* c, uint32_t set) { return c->count == 3 && set == 2; }

static int less_plain(const void* a, const void* b, void* data) {
  (void)data;
  return *(const uint64_t*)a < *(const uint64_t*)b;
}

static int nested_pred(slotmap_key key, void* row, void* data) {
  jctx_s* c = (jctx_s*)data;
  (void)row;
  c->nested_calls++;
  return c->nested_target != 0 && key == c->nested_target;
}

/* A key no set holds and no entity has (a set takes any non-zero key). */
static slotmap_key forged_key(jctx_s* c) { return MAKE_KEY(1, 0x00200000u + c->next_forged++); }

/* An entity dies: with an owner, the join no longer reaches it. */
static void entity_dies(jctx_s* c, slotmap_key k) {
  CHECK_EQ_INT(slotmap_erase(c->ents, k), SLATE_OK);
  if (c->sc->owner && !visits_has(&c->visits, k)) model_erase_keep(&c->expect, k);
}

static int model_prune(jctx_s* c, uint32_t t, slotmap_key g) {
  model_s* md = &c->model[t];
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
  md->order_known = 0;
  return removed_other ? C_CHANGE : removed_given ? C_GIVEN : C_NONE;
}

static int join_write(jctx_s* c, int w, slotmap_key g);

/* A write to the set numbered t. */
static int set_write(jctx_s* c, int w, uint32_t t, slotmap_key g) {
  slotmap_sparse_s* sp = &c->sets[t];
  model_s* md = &c->model[t];
  const int member = is_membership(c, t);
  slotmap_key o = model_other(md, g);
  uint64_t v = member ? 0 : c->next_value++;
  const void* row = member ? NULL : &v;
  switch (w) {
    case W_SET_NEW: {
      slotmap_key k = forged_key(c);
      CHECK_EQ_INT(slotmap_sparse_set(sp, NULL, k, row), SLATE_OK);
      model_put(md, k, v);
      return C_CHANGE;
    }
    case W_SET_PRESENT:
    case W_SET_GIVEN: {
      slotmap_key k = w == W_SET_PRESENT && o ? o : g;
      CHECK_EQ_INT(slotmap_sparse_set(sp, NULL, k, row), SLATE_OK);
      model_put(md, k, v);
      return C_NONE;
    }
    case W_SET_OTHER_GEN: {
      slotmap_key k = MAKE_KEY(KEY_VERSION(g) + 2, KEY_SLOT(g));
      CHECK_EQ_INT(slotmap_sparse_set(sp, NULL, k, row), SLATE_OK);
      model_rekey(md, g, k, v);
      return C_CHANGE;
    }
    case W_DEL_GIVEN:
      CHECK_EQ_INT(slotmap_sparse_erase(sp, g), SLATE_OK);
      model_erase_swap(md, g);
      return C_GIVEN;
    case W_DEL_OTHER:
      if (o) {
        CHECK_EQ_INT(slotmap_sparse_erase(sp, o), SLATE_OK);
        model_erase_swap(md, o);
        return C_CHANGE;
      }
      CHECK_EQ_INT(slotmap_sparse_erase(sp, forged_key(c)), SLATE_ERROR_NOT_FOUND);
      return C_NONE;
    case W_DEL_ABSENT:
      CHECK_EQ_INT(slotmap_sparse_erase(sp, forged_key(c)), SLATE_ERROR_NOT_FOUND);
      return C_NONE;
    case W_CLEAR: {
      int change = md->n == 1 ? C_GIVEN : C_CHANGE;
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
      int change = md->n == 1 ? C_GIVEN : C_CHANGE;
      slotmap_sparse_free(sp);
      model_clear(md);
      return change;
    }
    case W_REINIT:
      if (md->n == 1) return set_write(c, W_CLEAR, t, g);
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
      return C_NONE;
    }
    case W_SORT:
      if (member) {
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
      if (dies && slotmap_contains(c->ents, dies)) entity_dies(c, dies);
      CHECK_EQ_INT(slotmap_sparse_prune(sp, c->ents), SLATE_OK);
      return model_prune(c, t, g);
    }
    case W_DEL_OR_CLEAR:
      return set_write(c, md->n == 1 ? W_CLEAR : W_DEL_GIVEN, t, g);
    default:
      CHECK_MSG(0, "a write kind a joined set has not");
      return C_NONE;
  }
}

static int join_write(jctx_s* c, int w, slotmap_key g) {
  const scenario_s* s = c->sc;
  switch (w) {
    case W_NONE: return C_NONE;
    case W_OWNER_ERASE_GIVEN:
      entity_dies(c, g);
      return C_NONE;
    case W_OWNER_ERASE_OTHER: {
      /* the last key the join has still to reach, else any other entity */
      slotmap_key k = 0;
      for (uint32_t i = c->expect.n; i-- > 0 && !k;)
        if (c->expect.keys[i] != g && !visits_has(&c->visits, c->expect.keys[i]))
          k = c->expect.keys[i];
      for (uint32_t i = c->entities; i-- > 0 && !k;)
        if (c->entity[i] != g && slotmap_contains(c->ents, c->entity[i])) k = c->entity[i];
      if (k) entity_dies(c, k);
      return C_NONE;
    }
    case W_OWNER_INSERT: {
      slotmap_key k = 0;
      CHECK_EQ_INT(slotmap_insert(c->ents, NULL, &k), SLATE_OK);
      return C_NONE;
    }
    case W_OWNER_CLEAR:
      CHECK_EQ_INT(slotmap_clear(c->ents), SLATE_OK);
      if (s->owner)
        for (uint32_t i = c->expect.n; i-- > 0;)
          if (!visits_has(&c->visits, c->expect.keys[i]))
            model_erase_keep(&c->expect, c->expect.keys[i]);
      return C_NONE;
    default:
      break;
  }
  if (s->target == 3) { /* from every set */
    int change = C_GIVEN;
    for (uint32_t t = 0; t < c->count; t++)
      if (set_write(c, w, t, g) != C_GIVEN) change = C_CHANGE;
    return change;
  }
  return set_write(c, w, s->target == 0 ? c->walked : c->tested, g);
}

static int join_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  jctx_s* c = (jctx_s*)data;
  const scenario_s* s = c->sc;
  c->calls++;
  if (c->stopped) {
    c->bad++;
    return 0;
  }
  /* a key present in every set, live in the owner, with its rows and elements */
  if (model_find(&c->expect, key) < 0) c->bad++;
  for (uint32_t i = 0; i < c->count; i++) {
    uint32_t r = 0xFFFFFFFFu;
    if (slotmap_sparse_row(&c->sets[i], key, &r) != SLATE_OK || r != rows[i]) {
      c->bad++;
      continue;
    }
    if (is_membership(c, i)) {
      if (elements[i] != NULL) c->bad++;
    } else {
      const uint64_t* col = (const uint64_t*)slotmap_sparse_column(&c->sets[i], 0);
      if (elements[i] != (const void*)(col + r) || col[r] != model_value(&c->model[i], key))
        c->bad++;
    }
  }
  if (s->owner) {
    uint32_t r = 0xFFFFFFFFu;
    void* p = NULL;
    if (slotmap_row(c->ents, key, &r) != SLATE_OK || r != rows[c->count]) c->bad++;
    if (slotmap_get(c->ents, key, &p) != SLATE_OK || p != elements[c->count]) c->bad++;
  }
  visits_add(&c->visits, key);

  int here = s->every ? (KEY_SLOT(key) % (2 * s->every) == 0) : (c->calls == c->at);
  if (!here) return 0;
  int change = join_write(c, s->write, key);
  int stops;
  int rc = expected_rc(1, change, s->ret, &stops);
  if (stops) {
    c->stopped = 1;
    c->stop_rc = rc;
    c->stop_call = c->calls;
  }
  return s->ret;
}

uint32_t join_scenario(const scenario_s* s) {
  unsigned long failed_before = TEST_FAILED_COUNT();
  slotmap_s ents;
  arena_s arena, spare;
  jctx_s c;
  memset(&c, 0, sizeof c);
  arena_init(&arena);
  arena_init(&spare);
  c.sc = s;
  c.ents = &ents;
  c.spare = &spare;
  c.count = s->sets == 3 ? 3 : 2;
  c.walked = (uint32_t)s->smallest % c.count;
  c.tested = c.walked == 0 ? 1 : 0;
  c.next_value = 0x100000000ull;
  c.entities = 3 * s->n + 6;
  c.entity = (slotmap_key*)malloc(c.entities * sizeof(slotmap_key));
  if (!c.entity) exit(2);
  model_init(&c.expect, s->n + 8);
  model_init(&c.start, s->n + 8);
  visits_init(&c.visits);

  unsigned failures = 0;
  CHECK_EQ_INT(slotmap(&ents, 4), SLATE_OK);
  for (uint32_t i = 0; i < c.entities; i++)
    if (slotmap_insert(&ents, NULL, &c.entity[i]) != SLATE_OK) failures++;
  slate_allocator_s al = arena_allocator(&arena);
  for (uint32_t t = 0, tested_rank = 0; t < c.count; t++) {
    int member = is_membership(&c, t);
    slotmap_sparse_s* sp = &c.sets[t];
    model_init(&c.model[t], c.entities + 8);
    CHECK_EQ_INT(slotmap_sparse(sp, member ? 0u : (uint32_t)sizeof(uint64_t)), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set_allocator(sp, &al), SLATE_OK);
    uint32_t excluded = 4 + 4 * (t == c.walked ? 0 : tested_rank++);
    for (uint32_t i = 0; i < c.entities; i++) {
      int in = t == c.walked ? (i % 2 == 0 && i < 2 * s->n) : (i % 10 != excluded);
      if (!in) continue;
      uint64_t v = member ? 0 : (uint64_t)(t + 1) * 1000000u + (c.entities - i);
      if (slotmap_sparse_set(sp, &ents, c.entity[i], member ? NULL : &v) != SLATE_OK) failures++;
      model_put(&c.model[t], c.entity[i], v);
    }
  }
  if (s->owner)
    for (uint32_t i = 6; i < c.entities; i += 7)
      if (slotmap_erase(&ents, c.entity[i]) != SLATE_OK) failures++;
  CHECK_EQ_INT(failures, 0);
  /* what the join is to visit: the walked set's keys in its order */
  const model_s* wm = &c.model[c.walked];
  for (uint32_t r = 0; r < wm->n; r++) {
    slotmap_key k = wm->keys[r];
    int in_all = 1;
    for (uint32_t t = 0; t < c.count; t++)
      if (model_find(&c.model[t], k) < 0) in_all = 0;
    if (in_all && (!s->owner || slotmap_contains(&ents, k))) model_put(&c.expect, k, 0);
  }
  model_copy(&c.start, &c.expect);
  c.at = resolve_at(s->at, c.expect.n);

  slotmap_sparse_s* sets[3] = {&c.sets[0], &c.sets[1], &c.sets[2]};
  int rc = slotmap_join(s->owner ? &ents : NULL, sets, c.count, join_cb, &c);

  CHECK_EQ_INT(rc, c.stopped ? c.stop_rc : SLATE_OK);
  CHECK_EQ_U64(c.calls, c.stopped ? c.stop_call : c.expect.n);
  CHECK_EQ_INT(visits_problems(&c.visits, &c.expect, !c.stopped), 0);
  CHECK_EQ_INT(c.bad, 0);
  for (uint32_t t = 0; t < c.count; t++)
    CHECK_EQ_INT(sparse_problems(&c.sets[t], &c.model[t], is_membership(&c, t)), 0);

  /* usable afterwards: the join again visits exactly the keys in every set */
  for (uint32_t t = 0; t < c.count; t++) {
    slotmap_key k = forged_key(&c);
    CHECK_EQ_INT(slotmap_sparse_set(&c.sets[t], NULL, k, NULL), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_erase(&c.sets[t], k), SLATE_OK);
  }
  for (uint32_t t = 0; t < c.count; t++) slotmap_sparse_free(&c.sets[t]);
  slotmap_free(&ents);

  CHECK_EQ_U64(arena.bad, 0);
  CHECK_EQ_U64(spare.allocs, 0);
  size_t left = arena_drop(&arena);
  if (!c.reinit) CHECK_EQ_U64(left, 0);
  arena_drop(&spare);
  for (uint32_t t = 0; t < c.count; t++) model_free(&c.model[t]);
  model_free(&c.expect);
  model_free(&c.start);
  visits_free(&c.visits);
  free(c.entity);
  if (TEST_FAILED_COUNT() != failed_before) scenario_print("join", s);
  return c.calls;
}

int join_applies(const scenario_s* s) {
  int w = s->write;
  switch (s->target) {
    case 2:
      return w == W_OWNER_ERASE_GIVEN || w == W_OWNER_ERASE_OTHER || w == W_OWNER_INSERT ||
             w == W_OWNER_CLEAR;
    case 3:
      return w == W_DEL_GIVEN;
    case 0:
    case 1:
      switch (w) {
        case W_SET_NEW:
        case W_SET_PRESENT:
        case W_SET_GIVEN:
        case W_SET_OTHER_GEN:
        case W_DEL_GIVEN:
        case W_DEL_OTHER:
        case W_DEL_ABSENT:
        case W_CLEAR:
        case W_RESERVE_SMALL:
        case W_RESERVE_BIG:
        case W_FREE:
        case W_REINIT:
        case W_NESTED_NONE:
        case W_NESTED_GIVEN:
        case W_NESTED_OTHER:
        case W_SET_ALLOCATOR:
        case W_SORT:
        case W_PRUNE_GIVEN:
        case W_PRUNE_OTHER:
        case W_DEL_OR_CLEAR:
          return 1;
        default:
          return 0;
      }
    default:
      return 0;
  }
}

void test_join_writes(void) {
  TEST_SECTION("joins: every write from inside the callback, to a walked set, a tested set, the owner");
  static const uint32_t ats[] = {AT_FIRST, AT_MIDDLE, AT_LAST};
  scenario_s s;
  for (int sets = 2; sets <= 3; sets++)
    for (int owner = 0; owner < 2; owner++)
      for (int smallest = 0; smallest < sets; smallest += sets - 1)
        for (int target = 0; target < 3; target++)
          for (int w = W_NONE + 1; w < W_COUNT; w++)
            for (size_t ai = 0; ai < 3; ai++)
              for (int r = 0; r < 2; r++) {
                scenario_init(&s);
                s.write = w;
                s.target = target;
                if (!join_applies(&s)) continue;
                s.sets = sets;
                s.owner = owner;
                s.smallest = smallest;
                s.at = ats[ai];
                s.n = 12;
                s.ret = r == 0 ? 0 : 99;
                join_scenario(&s);
              }
  /* a walked set of one key: clear and free of it remove just that key */
  static const int last_writes[] = {W_CLEAR, W_FREE, W_DEL_GIVEN, W_SET_NEW};
  for (size_t wi = 0; wi < sizeof last_writes / sizeof last_writes[0]; wi++) {
    scenario_init(&s);
    s.write = last_writes[wi];
    s.at = AT_FIRST;
    s.n = 1;
    join_scenario(&s);
  }
}

void test_join_given_removal(void) {
  TEST_SECTION("joins: each callback erases the key it was given, from one set or all");
  static const uint32_t sizes[] = {1, 2, 8, 500};
  scenario_s s;
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (int sets = 2; sets <= 3; sets++)
      for (int owner = 0; owner < 2; owner++)
        for (int smallest = 0; smallest < sets; smallest += sets - 1)
          for (int target = 0; target < 4; target++)
            for (uint32_t every = 1; every <= 3; every += 2) {
              if (target == 2) continue;
              scenario_init(&s);
              s.write = W_DEL_GIVEN;
              s.target = target;
              s.every = every;
              s.sets = sets;
              s.owner = owner;
              s.smallest = smallest;
              s.n = sizes[si];
              join_scenario(&s);
              if (target == 0) { /* the last key of the walked set goes with a clear */
                s.write = W_DEL_OR_CLEAR;
                join_scenario(&s);
              }
            }
}
