/* Walks: a callback of each (and erase_if's predicate, sort's comparator)
   may erase only the key it was given; every other modification of the
   walked set is refused and changes nothing; the owner and other sets may
   change. */
#include "sparse.h"

static model_s md_, mo_;
static picture_s pic_;

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

/* --- refused modifications ------------------------------------------------ */

typedef struct refuser_s {
  slotmap_sparse_s* sp; /* the walked set */
  const model_s* m;
  slotmap_s* owner;
  unsigned bad, calls;
  int stop_after;
} refuser_s;

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

/* Every modification of r->sp but the erase of `key` is INVALID and changes
   nothing; free does nothing. */
static void try_modifications(refuser_s* r, slotmap_key key) {
  slotmap_sparse_s* sp = r->sp;
  unsigned char row[ROW_MAX];
  slotmap_key other = slotmap_sparse_key_at(sp, 0) == key ? slotmap_sparse_key_at(sp, 1)
                                                          : slotmap_sparse_key_at(sp, 0);
  uint32_t sizes[2] = {4, 4};
  memset(row, 0x77, sizeof row);
  take_picture(sp, r->m, &pic_);
  if (slotmap_sparse_set(sp, NULL, key, row) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_set(sp, r->owner, key, row) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_set(sp, NULL, MAKE_KEY(1, 0x7FFFFFFu), NULL) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_set(sp, NULL, 0, NULL) != SLATE_ERROR_INVALID) r->bad++;
  /* the walk guard comes first: an owner-refused key is INVALID too */
  if (slotmap_sparse_set(sp, r->owner, MAKE_KEY(2, 0x7FFFFFFu), NULL) != SLATE_ERROR_INVALID) r->bad++;
  if (other != 0 && slotmap_sparse_erase(sp, other) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_erase(sp, MAKE_KEY(1, 0x7FFFFFFu)) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_erase_if(sp, pred_all, NULL) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_erase_if(sp, pred_none, NULL) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_prune(sp, r->owner) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_sort(sp, less_u64, NULL) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_reserve(sp, 100000) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_reserve(sp, 0) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_clear(sp) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse(sp, 8) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse(sp, 0) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_columns(sp, sizes, 2) != SLATE_ERROR_INVALID) r->bad++;
  if (slotmap_sparse_set_allocator(sp, NULL) != SLATE_ERROR_INVALID) r->bad++;
  /* a clone into the walked set */
  {
    static slotmap_sparse_s src;
    if (slotmap_sparse(&src, 8) != SLATE_OK) r->bad++;
    if (slotmap_sparse_clone(sp, &src) != SLATE_ERROR_INVALID) r->bad++;
  }
  slotmap_sparse_free(sp);
  if (!same_picture(sp, r->m, &pic_)) r->bad++;
  if (sparse_differs(sp, r->m) != 0) r->bad++;
  /* reads are fine */
  if (slotmap_sparse_contains(sp, key) != 1) r->bad++;
  {
    uint64_t n = 0;
    if (slotmap_sparse_each(sp, count_each, &n) != SLATE_OK || n != r->m->n) r->bad++;
    static slotmap_sparse_s copy;
    if (slotmap_sparse_clone(&copy, sp) != SLATE_OK || sparse_differs(&copy, r->m) != 0) r->bad++;
    slotmap_sparse_free(&copy);
  }
}

static int refusing_each(slotmap_key key, void* row, void* data) {
  refuser_s* r = (refuser_s*)data;
  (void)row;
  r->calls++;
  try_modifications(r, key);
  return r->calls >= (unsigned)r->stop_after ? 1234 : 0;
}

static int refusing_join(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  refuser_s* r = (refuser_s*)data;
  (void)rows;
  (void)elements;
  r->calls++;
  try_modifications(r, key);
  return r->calls >= (unsigned)r->stop_after ? 4321 : 0;
}

typedef struct inner_s {
  slotmap_sparse_s* sp;
  unsigned bad;
} inner_s;

/* erase_if's predicate and sort's comparator may not modify their set,
   not even erase the key they were asked about */
static int modifying_pred(slotmap_key key, void* row, void* data) {
  inner_s* in = (inner_s*)data;
  (void)row;
  if (slotmap_sparse_erase(in->sp, key) != SLATE_ERROR_INVALID) in->bad++;
  if (slotmap_sparse_set(in->sp, NULL, key, NULL) != SLATE_ERROR_INVALID) in->bad++;
  if (slotmap_sparse_contains(in->sp, key) != 1) in->bad++;
  return KEY_SLOT(key) % 2;
}

static inner_s* sorting_;
static int modifying_less(const void* a, const void* b, void* data) {
  (void)data;
  if (slotmap_sparse_erase(sorting_->sp, slotmap_sparse_key_at(sorting_->sp, 0)) != SLATE_ERROR_INVALID)
    sorting_->bad++;
  if (slotmap_sparse_clear(sorting_->sp) != SLATE_ERROR_INVALID) sorting_->bad++;
  return less_u64(a, b, NULL);
}

void test_refused_in_walks(void) {
  TEST_SECTION("modifications of a walked set are refused and change nothing");
  static slotmap_sparse_s a, b, c;
  static slotmap_s owner;
  model_s* m = &md_;
  model_s* mb = &mo_;
  uint32_t size = 8;
  slotmap_key keys[200];
  refuser_s r;
  model_init(m, &size, 1);
  model_init(mb, NULL, 0);
  CHECK_EQ_INT(slotmap(&owner, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&a, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&b, 0), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&c, 8), SLATE_OK);
  for (uint32_t i = 0; i < 200; i++) {
    uint64_t v = 1000 - i;
    CHECK_EQ_INT(slotmap_insert(&owner, &i, &keys[i]), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_set(&a, &owner, keys[i], &v), SLATE_OK);
    model_set(m, keys[i], (const unsigned char*)&v);
    if (i % 2 == 0) {
      CHECK_EQ_INT(slotmap_sparse_set(&b, &owner, keys[i], NULL), SLATE_OK);
      model_set(mb, keys[i], NULL);
    }
    if (i % 3 == 0) CHECK_EQ_INT(slotmap_sparse_set(&c, &owner, keys[i], &v), SLATE_OK);
  }
  /* inside each */
  memset(&r, 0, sizeof r);
  r.sp = &a;
  r.m = m;
  r.owner = &owner;
  r.stop_after = 5;
  CHECK_EQ_INT(slotmap_sparse_each(&a, refusing_each, &r), 1234);
  CHECK_EQ_INT(r.calls, 5);
  CHECK_EQ_INT(r.bad, 0);
  CHECK_MODEL(&a, m);
  /* inside a join, for a tested set (a) and for the walked one (b, the
     smaller) */
  {
    slotmap_sparse_s* sets[2] = {&a, &b};
    memset(&r, 0, sizeof r);
    r.sp = &a; /* tested */
    r.m = m;
    r.owner = &owner;
    r.stop_after = 4;
    CHECK_EQ_INT(slotmap_join(&owner, sets, 2, refusing_join, &r), 4321);
    CHECK_EQ_INT(r.calls, 4);
    CHECK_EQ_INT(r.bad, 0);
    memset(&r, 0, sizeof r);
    r.sp = &b; /* walked */
    r.m = mb;
    r.owner = &owner;
    r.stop_after = 4;
    CHECK_EQ_INT(slotmap_join(NULL, sets, 2, refusing_join, &r), 4321);
    CHECK_EQ_INT(r.calls, 4);
    CHECK_EQ_INT(r.bad, 0);
    CHECK_MODEL(&a, m);
    CHECK_MODEL(&b, mb);
  }
  /* after the walks, modifications work again */
  CHECK_EQ_INT(slotmap_sparse_reserve(&a, 10), SLATE_OK);
  /* erase_if's predicate and sort's comparator */
  {
    inner_s in;
    in.sp = &a;
    in.bad = 0;
    CHECK_EQ_INT(slotmap_sparse_erase_if(&a, modifying_pred, &in), SLATE_OK);
    CHECK_EQ_INT(in.bad, 0);
    for (uint32_t i = 0; i < 200; i++)
      if (KEY_SLOT(keys[i]) % 2) model_erase(m, keys[i]);
    CHECK_MODEL(&a, m);
    sorting_ = &in;
    CHECK_EQ_INT(slotmap_sparse_sort(&a, modifying_less, NULL), SLATE_OK);
    CHECK_EQ_INT(in.bad, 0);
    CHECK_MODEL(&a, m);
  }
  slotmap_sparse_free(&a);
  slotmap_sparse_free(&b);
  slotmap_sparse_free(&c);
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
