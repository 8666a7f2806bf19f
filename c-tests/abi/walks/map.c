/* abi/walks: the map's walks (slate_each, slate_delete_if) with every
 * kind of write from inside the callback, against a model; given-key
 * removal on every entry, integer and string keys, small and large maps. */
#include "walks.h"

/* A map scenario's state, shared with its callbacks. Keys are modelled as
 * u64: an integer key is itself; a string key is its number (the string
 * is made from it, short or long enough to live outside the slot). Values
 * stay below 2^32, so that a pointer holds them on every target. */
typedef struct mctx_s {
  const scenario_s* sc;
  slate_s* m;
  model_s model; /* what the map holds now: the writes and the walk's deletions applied */
  model_s start; /* what it held when the walk started */
  visits_s visits;
  uint32_t at, calls;
  int stopped;        /* the walk is to stop at the call numbered stop_call */
  int stop_rc;        /* ... and return this */
  uint32_t stop_call;
  int reinit;         /* the map was re-initialised: its old memory is forgotten */
  unsigned bad;       /* problems seen inside callbacks */
  arena_s* spare;     /* an allocator the map must refuse */
  uint64_t next_new;  /* numbers of keys never in the map */
  uint64_t absent;
  uint32_t next_value;
  uint64_t nested_target; /* what a nested delete_if deletes (0: nothing) */
  uint32_t nested_calls;
} mctx_s;

static uint64_t key_number(const mctx_s* c, uint32_t i) {
  /* integer keys spread over 64 bits (an odd multiplier is a bijection);
     string keys are numbered 1, 2, 3, ... */
  return c->sc->strings ? (uint64_t)i + 1 : ((uint64_t)i + 1) * 0x9E3779B97F4A7C15ull;
}

static uint32_t first_value(uint64_t key) { return (uint32_t)(key * 2654435761u) | 1u; }

static const char* string_key(uint64_t number, char* buffer, size_t size) {
  if (number % 2)
    snprintf(buffer, size, "a-key-long-enough-to-live-outside-the-slot#%llu",
             (unsigned long long)number);
  else
    snprintf(buffer, size, "k#%llu", (unsigned long long)number);
  return buffer;
}

/* The model key of the map key bytes a walk shows; 0 when they are not a
 * key of this suite. */
static uint64_t decode(const mctx_s* c, const char* key, uint32_t length) {
  if (!c->sc->strings) {
    uint64_t k = 0;
    return slate_key_to_u64(key, length, &k) == SLATE_OK ? k : 0;
  }
  char buffer[96];
  if (length == 0 || length >= sizeof buffer) return 0;
  memcpy(buffer, key, length);
  buffer[length] = '\0';
  const char* hash = strrchr(buffer, '#');
  return hash ? (uint64_t)strtoull(hash + 1, NULL, 10) : 0;
}

static int mput(mctx_s* c, uint64_t k, uint32_t value) {
  char b[96];
  return c->sc->strings ? slate_set(c->m, string_key(k, b, sizeof b), V(value))
                        : slate_set_u64(c->m, k, V(value));
}
static int mget(const mctx_s* c, uint64_t k, void** value) {
  char b[96];
  return c->sc->strings ? slate_get(c->m, string_key(k, b, sizeof b), value)
                        : slate_get_u64(c->m, k, value);
}
static int mdel(mctx_s* c, uint64_t k) {
  char b[96];
  return c->sc->strings ? slate_delete(c->m, string_key(k, b, sizeof b))
                        : slate_delete_u64(c->m, k);
}
static int mtake(mctx_s* c, uint64_t k, void** value) {
  char b[96];
  return c->sc->strings ? slate_take(c->m, string_key(k, b, sizeof b), value)
                        : slate_take_u64(c->m, k, value);
}
static int mentry(mctx_s* c, uint64_t k, void*** value, int* inserted) {
  char b[96];
  return c->sc->strings ? slate_entry(c->m, string_key(k, b, sizeof b), value, inserted)
                        : slate_entry_u64(c->m, k, value, inserted);
}

static int nested_pred(const char* key, uint32_t length, void* value, void* data) {
  mctx_s* c = (mctx_s*)data;
  (void)value;
  c->nested_calls++;
  return c->nested_target != 0 && decode(c, key, length) == c->nested_target;
}

/* Clear and free count as the removal of the given key when it was the
 * last entry (SPEC 3c); otherwise they are a change. */
static int removal_of_all(const mctx_s* c) { return c->model.n == 1 ? C_GIVEN : C_CHANGE; }

/* Makes the scenario's write from the callback given key g (its bytes
 * key/length); returns what it did to the map (enum change_e). */
static int map_write(mctx_s* c, int w, uint64_t g, const char* key, uint32_t length) {
  slate_s* m = c->m;
  model_s* md = &c->model;
  uint64_t o = model_other(md, g);
  void* v = V(0xDEAD);
  void** slot = NULL;
  int inserted = 7;
  switch (w) {
    case W_NONE: return C_NONE;
    case W_SET_NEW: {
      uint64_t k = c->next_new++;
      uint32_t value = c->next_value++;
      CHECK_EQ_INT(mput(c, k, value), SLATE_OK);
      model_put(md, k, value);
      return C_CHANGE;
    }
    case W_SET_PRESENT:
    case W_SET_GIVEN: {
      uint64_t k = (w == W_SET_PRESENT && o) ? o : g;
      uint32_t value = c->next_value++;
      CHECK_EQ_INT(mput(c, k, value), SLATE_OK);
      model_put(md, k, value);
      return C_NONE;
    }
    case W_DEL_GIVEN:
      CHECK_EQ_INT(mdel(c, g), SLATE_OK);
      model_erase_swap(md, g);
      return C_GIVEN;
    case W_TAKE_GIVEN:
      CHECK_EQ_INT(mtake(c, g, &v), SLATE_OK);
      CHECK_EQ_PTR(v, V(model_value(md, g)));
      model_erase_swap(md, g);
      return C_GIVEN;
    case W_DEL_GIVEN_BYTES: /* through the map's own copy of the key, as a callback has it */
      CHECK_EQ_INT(slate_delete_bytes(m, key, length), SLATE_OK);
      model_erase_swap(md, g);
      return C_GIVEN;
    case W_ITER_DEL_GIVEN: {
      slate_iter_s it;
      const char* k;
      uint32_t n;
      int done = 0;
      CHECK_EQ_INT(slate_iter(&it, m), SLATE_OK);
      while (!done && slate_iter_next(&it, m, &k, &n, NULL) == SLATE_OK) {
        if (decode(c, k, n) == g) {
          CHECK_EQ_INT(slate_iter_delete(&it, m), SLATE_OK);
          done = 1;
        }
      }
      CHECK(done);
      model_erase_swap(md, g);
      return C_GIVEN;
    }
    case W_DEL_OTHER:
      if (o) {
        CHECK_EQ_INT(mdel(c, o), SLATE_OK);
        model_erase_swap(md, o);
        return C_CHANGE;
      }
      /* the given key is the only entry: nothing else to delete */
      CHECK_EQ_INT(mdel(c, c->absent), SLATE_ERROR_NOT_FOUND);
      return C_NONE;
    case W_DEL_ABSENT:
      CHECK_EQ_INT(mdel(c, c->absent), SLATE_ERROR_NOT_FOUND);
      v = V(0xDEAD);
      CHECK_EQ_INT(mtake(c, c->absent, &v), SLATE_ERROR_NOT_FOUND);
      CHECK_EQ_PTR(v, V(0xDEAD));
      return C_NONE;
    case W_ENTRY_NEW: {
      uint64_t k = c->next_new++;
      uint32_t value = c->next_value++;
      if (CHECK_EQ_INT(mentry(c, k, &slot, &inserted), SLATE_OK)) {
        CHECK_EQ_INT(inserted, 1);
        CHECK_EQ_PTR(*slot, NULL);
        *slot = V(value);
      }
      model_put(md, k, value);
      return C_CHANGE;
    }
    case W_ENTRY_PRESENT: {
      uint64_t k = o ? o : g;
      uint32_t value = c->next_value++;
      if (CHECK_EQ_INT(mentry(c, k, &slot, &inserted), SLATE_OK)) {
        CHECK_EQ_INT(inserted, 0);
        CHECK_EQ_PTR(*slot, V(model_value(md, k)));
        *slot = V(value); /* a value replaced through the entry's pointer */
      }
      model_put(md, k, value);
      return C_NONE;
    }
    case W_CLEAR: {
      int change = removal_of_all(c);
      CHECK_EQ_INT(slate_clear(m), SLATE_OK);
      model_clear(md);
      return change;
    }
    case W_COMPACT:
      CHECK_EQ_INT(slate_compact(m), SLATE_OK);
      return C_CHANGE;
    case W_RESERVE_SMALL:
      CHECK_EQ_INT(slate_reserve(m, slate_length(m)), SLATE_OK);
      return C_NONE;
    case W_RESERVE_BIG:
      CHECK_EQ_INT(slate_reserve(m, (uint64_t)md->n * 4 + 4096), SLATE_OK);
      return C_CHANGE;
    case W_FREE: {
      int change = removal_of_all(c);
      slate_free(m);
      model_clear(md);
      return change;
    }
    case W_REINIT:
      /* re-initialising a map whose only entry is the given one is left out
         (SPEC 3c names clear and free there): that case clears */
      if (md->n == 1) return map_write(c, W_CLEAR, g, key, length);
      CHECK_EQ_INT(slate(m), SLATE_OK);
      model_clear(md);
      c->reinit = 1;
      return C_CHANGE;
    case W_NESTED_NONE:
    case W_NESTED_GIVEN:
    case W_NESTED_OTHER: {
      uint32_t n = md->n;
      uint64_t target = w == W_NESTED_GIVEN ? g : w == W_NESTED_OTHER ? o : 0;
      c->nested_target = target;
      c->nested_calls = 0;
      CHECK_EQ_INT(slate_delete_if(m, nested_pred, c), SLATE_OK);
      CHECK_EQ_U64(c->nested_calls, n);
      c->nested_target = 0;
      if (!target) return C_NONE;
      model_erase_swap(md, target);
      return target == g ? C_GIVEN : C_CHANGE;
    }
    case W_SET_ALLOCATOR: {
      slate_allocator_s al = arena_allocator(c->spare);
      CHECK_EQ_INT(slate_set_allocator(m, &al), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slate_set_allocator(m, NULL), SLATE_ERROR_INVALID);
      return C_NONE;
    }
    case W_PIN_SEED:
      CHECK_EQ_INT(slate_pin_seed(m, 12345), SLATE_ERROR_INVALID);
      return C_NONE;
    case W_DEL_OR_CLEAR:
      return map_write(c, md->n == 1 ? W_CLEAR : W_DEL_GIVEN, g, key, length);
    case W_DEL_OR_FREE:
      return map_write(c, md->n == 1 ? W_FREE : W_DEL_GIVEN, g, key, length);
    default:
      CHECK_MSG(0, "a write kind the map has not");
      return C_NONE;
  }
}

static int map_cb(const char* key, uint32_t length, void* value, void* data) {
  mctx_s* c = (mctx_s*)data;
  const scenario_s* s = c->sc;
  c->calls++;
  if (c->stopped) {
    c->bad++; /* called after the call that was to stop the walk */
    return 0;
  }
  uint64_t g = decode(c, key, length);
  int p = model_find(&c->model, g);
  if (g == 0 || p < 0 || value != V(c->model.vals[p])) c->bad++;
  visits_add(&c->visits, g);

  int here = s->every ? (g % s->every == 0) : (c->calls == c->at);
  int answer = s->pattern && g % 3 == 1;
  int change = C_NONE;
  if (here) {
    change = map_write(c, s->write, g, key, length);
    answer = s->ret;
    int stops;
    int rc = expected_rc(s->walk == MAP_EACH, change, s->ret, &stops);
    if (stops) {
      c->stopped = 1;
      c->stop_rc = rc;
      c->stop_call = c->calls;
    }
  }
  if (s->walk == MAP_DELETE_IF) {
    /* the predicate's answer is applied unless it came with a change; the
       given key, when the write removed it, is not deleted twice */
    if (answer && change != C_CHANGE) model_erase_swap(&c->model, g);
    return answer;
  }
  return here ? s->ret : 0;
}

/* The map equals the model: length, every key with its value; the
 * invariant checker passes. */
static void check_map_is_model(mctx_s* c) {
  CHECK_EQ_U64(slate_length(c->m), c->model.n);
  unsigned wrong = 0;
  for (uint32_t i = 0; i < c->model.n; i++) {
    void* v = NULL;
    if (mget(c, c->model.keys[i], &v) != SLATE_OK || v != V(c->model.vals[i])) wrong++;
  }
  CHECK_EQ_INT(wrong, 0);
  CHECK_MAP_OK(c->m);
}

uint32_t map_scenario(const scenario_s* s) {
  unsigned long failed_before = TEST_FAILED_COUNT();
  slate_s m;
  arena_s arena, spare;
  mctx_s c;
  memset(&c, 0, sizeof c);
  arena_init(&arena);
  arena_init(&spare);
  c.sc = s;
  c.m = &m;
  c.spare = &spare;
  model_init(&c.model, s->n + 8);
  model_init(&c.start, s->n + 8);
  visits_init(&c.visits);
  c.next_new = key_number(&c, s->n + 1000);
  c.absent = key_number(&c, s->n + 500);
  c.next_value = 0x40000000u;

  /* the map, with a tracking allocator */
  slate_allocator_s al = arena_allocator(&arena);
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set_allocator(&m, &al), SLATE_OK);
  unsigned put_failures = 0;
  for (uint32_t i = 0; i < s->n; i++) {
    uint64_t k = key_number(&c, i);
    if (mput(&c, k, first_value(k)) != SLATE_OK) put_failures++;
    model_put(&c.model, k, first_value(k));
  }
  CHECK_EQ_INT(put_failures, 0);
  model_copy(&c.start, &c.model);
  c.at = resolve_at(s->at, s->n);

  int rc = s->walk == MAP_EACH ? slate_each(&m, map_cb, &c) : slate_delete_if(&m, map_cb, &c);

  CHECK_EQ_INT(rc, c.stopped ? c.stop_rc : SLATE_OK);
  CHECK_EQ_U64(c.calls, c.stopped ? c.stop_call : c.start.n);
  CHECK_EQ_INT(visits_problems(&c.visits, &c.start, !c.stopped), 0);
  CHECK_EQ_INT(c.bad, 0);
  check_map_is_model(&c);

  /* the map is usable afterwards */
  uint64_t k = c.next_new++;
  CHECK_EQ_INT(mput(&c, k, 5), SLATE_OK);
  CHECK_EQ_INT(mdel(&c, k), SLATE_OK);
  CHECK_EQ_INT(slate_each(&m, nested_pred, &c), SLATE_OK);
  slate_free(&m);
  CHECK_EQ_U64(slate_length(&m), 0);

  /* nothing leaked, nothing went to the wrong allocator */
  CHECK_EQ_U64(arena.bad, 0);
  CHECK_EQ_U64(spare.allocs, 0);
  size_t left = arena_drop(&arena);
  if (!c.reinit) CHECK_EQ_U64(left, 0);
  arena_drop(&spare);
  model_free(&c.model);
  model_free(&c.start);
  visits_free(&c.visits);
  if (TEST_FAILED_COUNT() != failed_before) scenario_print("map", s);
  return c.calls;
}

int map_applies(int walk, int write) {
  (void)walk;
  switch (write) {
    case W_SORT:
    case W_PRUNE_GIVEN:
    case W_PRUNE_OTHER:
    case W_SET_OTHER_GEN:
    case W_OWNER_ERASE_GIVEN:
    case W_OWNER_ERASE_OTHER:
    case W_OWNER_INSERT:
    case W_OWNER_CLEAR:
      return 0;
    default:
      return write > W_NONE && write < W_COUNT;
  }
}

/* ------------------------------------------------------------------------ */
/* every write kind, at the first, a middle and the last callback            */
/* ------------------------------------------------------------------------ */

void test_map_writes(void) {
  TEST_SECTION("map walks: every write from inside the callback");
  static const uint32_t ats[] = {AT_FIRST, AT_MIDDLE, AT_LAST};
  static const uint32_t sizes[] = {7, 100};
  scenario_s s;
  for (int strings = 0; strings < 2; strings++)
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
      for (int walk = 0; walk < MAP_WALKS; walk++)
        for (int w = W_NONE + 1; w < W_COUNT; w++) {
          if (!map_applies(walk, w)) continue;
          for (size_t ai = 0; ai < 3; ai++)
            for (int r = 0; r < 2; r++)
              for (int pattern = 0; pattern < (walk == MAP_DELETE_IF ? 2 : 1); pattern++) {
                scenario_init(&s);
                s.walk = walk;
                s.write = w;
                s.at = ats[ai];
                s.n = sizes[si];
                s.strings = strings;
                s.pattern = pattern;
                /* each: a stopping value with the write; delete_if: the answer */
                s.ret = r == 0 ? 0 : walk == MAP_EACH ? 77 : 1;
                map_scenario(&s);
              }
        }
  /* a single entry: clear and free remove just the given key */
  static const int last_writes[] = {W_CLEAR, W_FREE, W_DEL_GIVEN, W_COMPACT, W_SET_NEW};
  for (int walk = 0; walk < MAP_WALKS; walk++)
    for (size_t wi = 0; wi < sizeof last_writes / sizeof last_writes[0]; wi++) {
      scenario_init(&s);
      s.walk = walk;
      s.write = last_writes[wi];
      s.at = AT_FIRST;
      s.n = 1;
      map_scenario(&s);
    }
}

/* ------------------------------------------------------------------------ */
/* each callback removes its own key                                         */
/* ------------------------------------------------------------------------ */

void test_map_given_removal(void) {
  TEST_SECTION("map walks: each callback removes the key it was given");
  static const uint32_t sizes[] = {1, 2, 5, 8, 100, 3000};
  static const int writes[] = {W_DEL_GIVEN,      W_TAKE_GIVEN,   W_DEL_GIVEN_BYTES,
                               W_ITER_DEL_GIVEN, W_NESTED_GIVEN, W_DEL_OR_CLEAR,
                               W_DEL_OR_FREE};
  scenario_s s;
  for (int strings = 0; strings < 2; strings++)
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
      for (int walk = 0; walk < MAP_WALKS; walk++)
        for (size_t wi = 0; wi < sizeof writes / sizeof writes[0]; wi++)
          for (uint32_t every = 1; every <= 3; every += 2)
            for (int ret = 0; ret < (walk == MAP_DELETE_IF ? 2 : 1); ret++) {
              int w = writes[wi];
              /* the writes that walk the map themselves, on small maps only */
              if ((w == W_ITER_DEL_GIVEN || w == W_NESTED_GIVEN) && sizes[si] > 100) continue;
              scenario_init(&s);
              s.walk = walk;
              s.write = w;
              s.every = every;
              s.n = sizes[si];
              s.strings = strings;
              /* delete_if: a predicate that deleted its own key and answers
                 1 deletes nothing twice; the others are kept or deleted by
                 the every-third pattern */
              s.ret = ret;
              s.pattern = walk == MAP_DELETE_IF;
              map_scenario(&s);
            }
}
