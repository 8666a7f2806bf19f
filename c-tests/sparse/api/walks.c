/* Walks: a callback of each, join, erase_if or sort may call anything on
   the walked set (SPEC 3c): the call is carried out; the walk goes on after
   an erase of the key it was given or a call that changes nothing, and
   stops with SLATE_ERROR_INVALID after any other change; the owner and
   other sets may change. */
#include "sparse.h"

static model_s md_, mo_;

/* --- erasing the current key inside each --------------------------------- */

typedef struct eraser_s {
  slotmap_sparse_s* sp;
  uint32_t visits[4096]; /* by slot */
  uint32_t row_expected;
  unsigned bad;
  int erase_all;
} eraser_s;

static int erasing_cb(slotmap_key key, void* row, void* data) {
  eraser_s* e = (eraser_s*)data;
  uint32_t r = SENTINEL_ROW;
  if (KEY_SLOT(key) < 4096) e->visits[KEY_SLOT(key)]++;
  /* the given row pointer is the key's element */
  void* el = NULL;
  if (slotmap_sparse_get(e->sp, key, &el) != SLATE_OK || el != row) e->bad++;
  if (slotmap_sparse_row(e->sp, key, &r) != SLATE_OK) e->bad++;
  if (e->erase_all || KEY_SLOT(key) % 3 == 0) {
    if (slotmap_sparse_erase(e->sp, key) != SLATE_OK) e->bad++;
    /* the key just erased: NOT_FOUND again (still the given key) */
    if (slotmap_sparse_erase(e->sp, key) != SLATE_ERROR_NOT_FOUND) e->bad++;
  }
  return 0;
}

void test_each_erasing(void) {
  TEST_SECTION("each: in dense order; erasing the current key visits every other row once");
  static slotmap_sparse_s sp;
  static eraser_s e;
  model_s* m = &md_;
  uint32_t size = 8;
  model_init(m, &size, 1);
  CHECK_EQ_INT(slotmap_sparse(&sp, 8), SLATE_OK);
  for (uint32_t i = 0; i < 3000; i++) {
    uint64_t v = i;
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, MAKE_KEY(1, i), &v), SLATE_OK);
    model_set(m, MAKE_KEY(1, i), (const unsigned char*)&v);
  }
  /* erase a pattern so rows and slots are not in step */
  for (uint32_t i = 0; i < 3000; i += 7) {
    CHECK_EQ_INT(slotmap_sparse_erase(&sp, MAKE_KEY(1, i)), SLATE_OK);
    model_erase(m, MAKE_KEY(1, i));
  }
  memset(&e, 0, sizeof e);
  e.sp = &sp;
  CHECK_EQ_INT(slotmap_sparse_each(&sp, erasing_cb, &e), SLATE_OK);
  CHECK_EQ_INT(e.bad, 0);
  {
    unsigned wrong = 0;
    for (uint32_t i = 0; i < 3000; i++) {
      uint32_t want = (i % 7 == 0) ? 0 : 1;
      if (e.visits[i] != want) wrong++;
      if (i % 7 != 0 && i % 3 == 0) model_erase(m, MAKE_KEY(1, i));
    }
    CHECK_EQ_INT(wrong, 0);
  }
  CHECK_MODEL(&sp, m);
  /* erase everything from the walk */
  memset(&e, 0, sizeof e);
  e.sp = &sp;
  e.erase_all = 1;
  uint32_t n = slotmap_sparse_length(&sp);
  CHECK_EQ_INT(slotmap_sparse_each(&sp, erasing_cb, &e), SLATE_OK);
  CHECK_EQ_INT(e.bad, 0);
  {
    uint32_t total = 0;
    for (uint32_t i = 0; i < 3000; i++) total += e.visits[i];
    CHECK_EQ_U64(total, n);
  }
  CHECK_EQ_U64(slotmap_sparse_length(&sp), 0);
  slotmap_sparse_free(&sp);
}

/* --- modifications of a walked set ---------------------------------------- */

/* One call on the walked set, made at the first callback. */
enum {
  MOD_SET_GIVEN,       /* the given key's row, set to what it holds: no change */
  MOD_SET_GIVEN_OWNER, /* the same, checked against the owner */
  MOD_SET_NEW,
  MOD_SET_ZERO,          /* key 0: INVALID, no change */
  MOD_SET_OWNER_REJECTS, /* a key the owner does not accept: NOT_FOUND, no change */
  MOD_ERASE_OTHER,
  MOD_ERASE_ABSENT, /* NOT_FOUND, no change */
  MOD_ERASE_IF_ALL,
  MOD_ERASE_IF_NONE, /* no change */
  MOD_PRUNE_NOTHING, /* every key live: no change */
  MOD_SORT,          /* a membership set: INVALID, no change */
  MOD_RESERVE_BIG,
  MOD_RESERVE_NOTHING, /* no change */
  MOD_CLEAR,
  MOD_REINIT,
  MOD_REINIT_COLUMNS,
  MOD_SET_ALLOCATOR, /* INVALID on a set holding memory: no change */
  MOD_CLONE_INTO,
  MOD_FREE,
  MODS
};

typedef struct modder_s {
  slotmap_sparse_s* sp; /* the set the call is made on */
  model_s* m;           /* its model, as the call leaves it */
  slotmap_s* owner;
  int kind;
  unsigned calls, bad;
  int changed;              /* the call changed the set */
  slotmap_sparse_s saved;   /* the set's old contents, before a re-initialisation */
  int reinit;
} modder_s;

static int pred_none(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (void)data;
  return 0;
}

static int pred_all(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (void)data;
  return 1;
}

static void modify(modder_s* r, slotmap_key key) {
  slotmap_sparse_s* sp = r->sp;
  model_s* m = r->m;
  unsigned char row[ROW_MAX];
  slotmap_key other = slotmap_sparse_key_at(sp, 0) == key ? slotmap_sparse_key_at(sp, 1)
                                                          : slotmap_sparse_key_at(sp, 0);
  const slotmap_key fresh = MAKE_KEY(1, 0x7FFFFFFu);
  uint32_t sizes[2] = {4, 4};
  uint32_t at = SENTINEL_ROW;
  const void* given_row = NULL;
  if (m->row_bytes > 0 && slotmap_sparse_row(sp, key, &at) == SLATE_OK) {
    read_row(sp, m, at, row);
    given_row = row;
  }
  r->changed = 1;
  switch (r->kind) {
    case MOD_SET_GIVEN:
      r->changed = 0;
      if (slotmap_sparse_set(sp, NULL, key, given_row) != SLATE_OK) r->bad++;
      break;
    case MOD_SET_GIVEN_OWNER:
      r->changed = 0;
      if (slotmap_sparse_set(sp, r->owner, key, given_row) != SLATE_OK) r->bad++;
      break;
    case MOD_SET_NEW:
      memset(row, 0x77, sizeof row);
      if (slotmap_sparse_set(sp, NULL, fresh, m->row_bytes ? row : NULL) != SLATE_OK) r->bad++;
      model_set(m, fresh, m->row_bytes ? row : NULL);
      break;
    case MOD_SET_ZERO:
      r->changed = 0;
      if (slotmap_sparse_set(sp, NULL, 0, NULL) != SLATE_ERROR_INVALID) r->bad++;
      break;
    case MOD_SET_OWNER_REJECTS:
      r->changed = 0;
      if (slotmap_sparse_set(sp, r->owner, MAKE_KEY(2, 0x7FFFFFFu), NULL) != SLATE_ERROR_NOT_FOUND)
        r->bad++;
      break;
    case MOD_ERASE_OTHER:
      if (slotmap_sparse_erase(sp, other) != SLATE_OK) r->bad++;
      model_erase(m, other);
      break;
    case MOD_ERASE_ABSENT:
      r->changed = 0;
      if (slotmap_sparse_erase(sp, fresh) != SLATE_ERROR_NOT_FOUND) r->bad++;
      break;
    case MOD_ERASE_IF_ALL:
      if (slotmap_sparse_erase_if(sp, pred_all, NULL) != SLATE_OK) r->bad++;
      while (m->n > 0) model_erase(m, m->keys[0]);
      break;
    case MOD_ERASE_IF_NONE:
      r->changed = 0;
      if (slotmap_sparse_erase_if(sp, pred_none, NULL) != SLATE_OK) r->bad++;
      break;
    case MOD_PRUNE_NOTHING:
      r->changed = 0;
      if (slotmap_sparse_prune(sp, r->owner) != SLATE_OK) r->bad++;
      break;
    case MOD_SORT:
      if (m->row_bytes == 0) {
        r->changed = 0;
        if (slotmap_sparse_sort(sp, less_u64, NULL) != SLATE_ERROR_INVALID) r->bad++;
      } else if (slotmap_sparse_sort(sp, less_u64, NULL) != SLATE_OK) {
        r->bad++;
      }
      break;
    case MOD_RESERVE_BIG:
      if (slotmap_sparse_reserve(sp, 100000) != SLATE_OK) r->bad++;
      break;
    case MOD_RESERVE_NOTHING:
      r->changed = 0;
      if (slotmap_sparse_reserve(sp, 0) != SLATE_OK) r->bad++;
      break;
    case MOD_CLEAR:
      if (slotmap_sparse_clear(sp) != SLATE_OK) r->bad++;
      while (m->n > 0) model_erase(m, m->keys[0]);
      break;
    case MOD_REINIT:
    case MOD_REINIT_COLUMNS:
    case MOD_CLONE_INTO: {
      /* the old contents are copied out first (a set may be moved with
         memcpy), to be freed after the walk */
      static slotmap_sparse_s src;
      memcpy(&r->saved, sp, sizeof r->saved);
      r->reinit = 1;
      int rc = r->kind == MOD_REINIT           ? slotmap_sparse(sp, m->row_bytes)
               : r->kind == MOD_REINIT_COLUMNS ? slotmap_sparse_columns(sp, sizes, 2)
                                               : (slotmap_sparse(&src, m->row_bytes) != SLATE_OK
                                                      ? -100
                                                      : slotmap_sparse_clone(sp, &src));
      if (rc != SLATE_OK) r->bad++;
      while (m->n > 0) model_erase(m, m->keys[0]);
      break;
    }
    case MOD_SET_ALLOCATOR:
      r->changed = 0;
      if (slotmap_sparse_set_allocator(sp, NULL) != SLATE_ERROR_INVALID) r->bad++;
      break;
    default:
      slotmap_sparse_free(sp);
      while (m->n > 0) model_erase(m, m->keys[0]);
      break;
  }
}

static int modifying_each(slotmap_key key, void* row, void* data) {
  modder_s* r = (modder_s*)data;
  (void)row;
  if (r->calls++ == 0) modify(r, key);
  return 0;
}

static int modifying_join(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  (void)rows;
  (void)elements;
  return modifying_each(key, NULL, data);
}

/* erase_if's predicate: erases its own key and answers 1 for odd slots (the
   row goes once), sets its own row to what it holds for even ones */
typedef struct inner_s {
  slotmap_sparse_s* sp;
  const model_s* m;
  unsigned bad;
} inner_s;

static int modifying_pred(slotmap_key key, void* row, void* data) {
  inner_s* in = (inner_s*)data;
  unsigned char bytes[ROW_MAX];
  (void)row;
  if (KEY_SLOT(key) % 2) {
    if (slotmap_sparse_erase(in->sp, key) != SLATE_OK) in->bad++;
    if (slotmap_sparse_contains(in->sp, key) != 0) in->bad++;
    return 1;
  }
  uint32_t r = SENTINEL_ROW;
  if (slotmap_sparse_row(in->sp, key, &r) != SLATE_OK) in->bad++;
  read_row(in->sp, in->m, r, bytes);
  if (slotmap_sparse_set(in->sp, NULL, key, bytes) != SLATE_OK) in->bad++;
  return 0;
}

/* sort's comparator erases a key on its third call: the sort stops at once
   and applies no order */
static inner_s* sorting_;
static unsigned sort_calls_;
static int modifying_less(const void* a, const void* b, void* data) {
  int less = less_u64(a, b, NULL);
  (void)data;
  if (++sort_calls_ == 3 &&
      slotmap_sparse_erase(sorting_->sp, slotmap_sparse_key_at(sorting_->sp, 0)) != SLATE_OK)
    sorting_->bad++;
  return less;
}

/* a (200 keys, 8-byte rows) and b (the even ones, membership) from the
   owner's 200 entities, with their models */
static void build_ab(slotmap_s* owner, slotmap_sparse_s* a, slotmap_sparse_s* b, model_s* m,
                     model_s* mb, slotmap_key* keys) {
  uint32_t size = 8;
  model_init(m, &size, 1);
  model_init(mb, NULL, 0);
  CHECK_EQ_INT(slotmap(owner, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(a, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(b, 0), SLATE_OK);
  for (uint32_t i = 0; i < 200; i++) {
    uint64_t v = 1000 - i;
    CHECK_EQ_INT(slotmap_insert(owner, &i, &keys[i]), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set(a, owner, keys[i], &v), SLATE_OK);
    model_set(m, keys[i], (const unsigned char*)&v);
    if (i % 2 == 0) {
      CHECK_EQ_INT(slotmap_sparse_set(b, owner, keys[i], NULL), SLATE_OK);
      model_set(mb, keys[i], NULL);
    }
  }
}

void test_changes_in_walks(void) {
  TEST_SECTION("calls on a walked set: carried out; the walk goes on or stops with INVALID");
  static slotmap_sparse_s a, b;
  static slotmap_s owner;
  model_s* m = &md_;
  model_s* mb = &mo_;
  static slotmap_key keys[200];
  modder_s r;
  /* walk 0: each of a; 1: a join of a and b, the call on a (tested);
     2: the same join, the call on b (walked) */
  for (int walk = 0; walk < 3; walk++)
    for (int kind = 0; kind < MODS; kind++) {
      build_ab(&owner, &a, &b, m, mb, keys);
      slotmap_sparse_s* sets[2] = {&a, &b};
      memset(&r, 0, sizeof r);
      r.sp = walk == 2 ? &b : &a;
      r.m = walk == 2 ? mb : m;
      r.owner = &owner;
      r.kind = kind;
      int rc = walk == 0 ? slotmap_sparse_each(&a, modifying_each, &r)
                         : slotmap_join(walk == 1 ? &owner : NULL, sets, 2, modifying_join, &r);
      unsigned all = walk == 0 ? 200 : 100;
      if (!CHECK_EQ_INT(rc, r.changed ? SLATE_ERROR_INVALID : SLATE_OK) ||
          !CHECK_EQ_U64(r.calls, r.changed ? 1 : all) || !CHECK_EQ_INT(r.bad, 0))
        fprintf(stderr, "   walk %d, call %d\n", walk, kind);
      if (kind == MOD_REINIT_COLUMNS)
        CHECK_EQ_U64(slotmap_sparse_length(r.sp), 0);
      else
        CHECK_MODEL(r.sp, r.m);
      CHECK_MODEL(walk == 2 ? &a : &b, walk == 2 ? m : mb); /* the other set */
      if (r.reinit) slotmap_sparse_free(&r.saved);
      /* the sets are writable after the walk */
      CHECK_EQ_INT(slotmap_sparse_set(r.sp, NULL, MAKE_KEY(3, 5000), NULL), SLATE_OK);
      CHECK_EQ_INT(slotmap_sparse_erase(r.sp, MAKE_KEY(3, 5000)), SLATE_OK);
      slotmap_sparse_free(&a);
      slotmap_sparse_free(&b);
      slotmap_free(&owner);
    }
  /* erase_if's predicate and sort's comparator */
  build_ab(&owner, &a, &b, m, mb, keys);
  {
    inner_s in;
    in.sp = &a;
    in.m = m;
    in.bad = 0;
    CHECK_EQ_INT(slotmap_sparse_erase_if(&a, modifying_pred, &in), SLATE_OK);
    CHECK_EQ_INT(in.bad, 0);
    for (uint32_t i = 0; i < 200; i++)
      if (KEY_SLOT(keys[i]) % 2) model_erase(m, keys[i]);
    CHECK_MODEL(&a, m);
    /* the comparator's erase stops the sort: the rows stay as they were,
       less the erased one (swap-and-pop) */
    slotmap_key first = slotmap_sparse_key_at(&a, 0);
    slotmap_key last = slotmap_sparse_key_at(&a, slotmap_sparse_length(&a) - 1);
    slotmap_key second = slotmap_sparse_key_at(&a, 1);
    sorting_ = &in;
    sort_calls_ = 0;
    CHECK_EQ_INT(slotmap_sparse_sort(&a, modifying_less, NULL), SLATE_ERROR_INVALID);
    CHECK_EQ_U64(sort_calls_, 3);
    CHECK_EQ_INT(in.bad, 0);
    model_erase(m, first);
    CHECK_MODEL(&a, m);
    CHECK_EQ_U64(slotmap_sparse_key_at(&a, 0), last);
    CHECK_EQ_U64(slotmap_sparse_key_at(&a, 1), second);
  }
  slotmap_sparse_free(&a);
  slotmap_sparse_free(&b);
  slotmap_free(&owner);
}

/* --- the owner and other sets change from callbacks ------------------------ */

typedef struct changer_s {
  slotmap_s* owner;
  slotmap_sparse_s* other;
  model_s* mo;
  unsigned bad, calls;
} changer_s;

static int changing_each(slotmap_key key, void* row, void* data) {
  changer_s* c = (changer_s*)data;
  slotmap_key fresh = 0;
  uint32_t i = c->calls++;
  (void)row;
  /* the owner: the entity dies, another is born */
  if (slotmap_erase(c->owner, key) != SLATE_OK) c->bad++;
  if (slotmap_insert(c->owner, &i, &fresh) != SLATE_OK) c->bad++;
  /* another set: set, erase, with the owner */
  if (slotmap_sparse_set(c->other, c->owner, fresh, NULL) != SLATE_OK) c->bad++;
  model_set(c->mo, fresh, NULL);
  if (slotmap_sparse_set(c->other, c->owner, key, NULL) != SLATE_ERROR_NOT_FOUND) c->bad++;
  if (slotmap_sparse_erase(c->other, key) == SLATE_OK) model_erase(c->mo, key);
  if (i % 50 == 0 && slotmap_sparse_prune(c->other, c->owner) != SLATE_OK) c->bad++;
  if (i % 50 == 0) {
    for (uint32_t j = 0; j < c->mo->n;)
      if (slotmap_contains(c->owner, c->mo->keys[j]))
        j++;
      else
        model_erase(c->mo, c->mo->keys[j]);
  }
  return 0;
}

static int changing_join(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  changer_s* c = (changer_s*)data;
  void* e = NULL;
  uint32_t r = SENTINEL_ROW;
  /* the owner's row and element as slotmap_row/slotmap_get give them */
  if (slotmap_row(c->owner, key, &r) != SLATE_OK || r != rows[1]) c->bad++;
  if (slotmap_get(c->owner, key, &e) != SLATE_OK || e != elements[1]) c->bad++;
  return changing_each(key, elements[0], data);
}

void test_others_modifiable(void) {
  TEST_SECTION("the owner and other sets may change from callbacks");
  static slotmap_sparse_s walked, other;
  static slotmap_s owner;
  model_s* mo = &mo_;
  model_s* m = &md_;
  changer_s c;
  model_init(m, NULL, 0);
  model_init(mo, NULL, 0);
  CHECK_EQ_INT(slotmap(&owner, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&walked, 0), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&other, 0), SLATE_OK);
  for (uint32_t i = 0; i < 500; i++) {
    slotmap_key k = 0;
    CHECK_EQ_INT(slotmap_insert(&owner, &i, &k), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set(&walked, &owner, k, NULL), SLATE_OK);
    model_set(m, k, NULL);
    if (i % 2) {
      CHECK_EQ_INT(slotmap_sparse_set(&other, &owner, k, NULL), SLATE_OK);
      model_set(mo, k, NULL);
    }
  }
  memset(&c, 0, sizeof c);
  c.owner = &owner;
  c.other = &other;
  c.mo = mo;
  CHECK_EQ_INT(slotmap_sparse_each(&walked, changing_each, &c), SLATE_OK);
  CHECK_EQ_INT(c.bad, 0);
  CHECK_EQ_INT(c.calls, 500);
  CHECK_MODEL(&walked, m); /* untouched */
  CHECK_MODEL(&other, mo);
  CHECK_EQ_INT(slotmap_sparse_prune(&walked, &owner), SLATE_OK);
  CHECK_EQ_U64(slotmap_sparse_length(&walked), 0);
  /* inside a join with the owner: the owner's entities die as they are
     visited; every key visited still was valid when reached */
  model_init(m, NULL, 0);
  for (uint32_t i = 0; i < mo->n; i++) {
    CHECK_EQ_INT(slotmap_sparse_set(&walked, &owner, mo->keys[i], NULL), SLATE_OK);
    model_set(m, mo->keys[i], NULL);
  }
  {
    slotmap_sparse_s* sets[1] = {&walked};
    slotmap_sparse_s third;
    CHECK_EQ_INT(slotmap_sparse(&third, 0), SLATE_OK);
    memset(&c, 0, sizeof c);
    c.owner = &owner;
    c.other = &third;
    static model_s mt;
    model_init(&mt, NULL, 0);
    c.mo = &mt;
    uint32_t n = slotmap_sparse_length(&walked);
    CHECK_EQ_INT(slotmap_join(&owner, sets, 1, changing_join, &c), SLATE_OK);
    CHECK_EQ_INT(c.bad, 0);
    CHECK_EQ_U64(c.calls, n);
    CHECK_MODEL(&third, &mt);
    slotmap_sparse_free(&third);
  }
  CHECK_MODEL(&walked, m);
  slotmap_sparse_free(&walked);
  slotmap_sparse_free(&other);
  slotmap_free(&owner);
}
