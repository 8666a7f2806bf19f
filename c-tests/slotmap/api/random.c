/* slotmap/api: the seeded randomized test against a model. */
#include "slotmap.h"
#include "../../support/rng.h"

#include <time.h>

/* ------------------------------------------------------------------------ */
/* the randomized test against a model                                       */
/* ------------------------------------------------------------------------ */

/* The slotmap under test has three columns: a uint32_t value (the sort
   column), a uint64_t tag and a 1-byte flag.  The model is the array of live
   records (key, value, tag, flag) in no particular order, the list of every
   key that went stale, and the list of every key ever issued (all distinct,
   checked at the end). */
#define R_CAP 5000u
#define R_ROW 13 /* 4 + 8 + 1 */
static const uint32_t RSIZES[3] = {4, 8, 1};

typedef struct rrec_s {
  slotmap_key key;
  uint32_t value;
  uint64_t tag;
  uint8_t flag;
} rrec_s;

typedef struct keylist_s {
  slotmap_key* keys;
  size_t n, cap;
} keylist_s;

static void keylist_push(keylist_s* l, slotmap_key k) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 4096;
    l->keys = (slotmap_key*)realloc(l->keys, l->cap * sizeof(slotmap_key));
    if (l->keys == NULL) {
      fprintf(stderr, "out of memory\n");
      exit(2);
    }
  }
  l->keys[l->n++] = k;
}

enum {
  R_INSERT,
  R_INSERT_NULL,
  R_ERASE,
  R_ERASE_STALE,
  R_ERASE_FORGED,
  R_GET,
  R_GET_STALE,
  R_KEY_AT,
  R_EACH,
  R_ERASE_IF,
  R_SORT,
  R_CLEAR,
  R_CLONE,
  R_MOVE,
  R_RESERVE,
  R_FREE,
  R_COUNT
};
static const char* const r_names_[R_COUNT] = {
    "insert", "insert NULL", "erase",   "erase stale", "erase forged", "get",
    "get stale", "key_at", "each",     "erase_if",    "sort",         "clear",
    "clone",  "move",       "reserve", "free"};

static slotmap_s rsm_;
static rrec_s rlive_[R_CAP];
static uint32_t rn_;
static keylist_s rstale_, rissued_;
static uint32_t rexpect_slot_; /* [D-reuse] the slot the next insert takes, or UINT32_MAX */
static unsigned long rops_[R_COUNT];
static uint32_t rmax_len_;
static unsigned char rseen_[R_CAP + 1];
static slotmap_key rorder_[R_CAP + 1];
static uint32_t rvalues_[R_CAP + 1];

static void r_pack(unsigned char row[R_ROW], const rrec_s* rec) {
  memcpy(row, &rec->value, 4);
  memcpy(row + 4, &rec->tag, 8);
  row[12] = rec->flag;
}

/* Row r of the three columns holds rec's data. */
static int r_row_is(const slotmap_s* sm, uint32_t r, const rrec_s* rec) {
  const uint32_t* c0 = (const uint32_t*)slotmap_column(sm, 0);
  const uint64_t* c1 = (const uint64_t*)slotmap_column(sm, 1);
  const uint8_t* c2 = (const uint8_t*)slotmap_column(sm, 2);
  return c0 != NULL && c1 != NULL && c2 != NULL && c0[r] == rec->value && c1[r] == rec->tag &&
         c2[r] == rec->flag;
}

/* The full invariant: every model key found with its data (each at a
   distinct row), row(key_at(r)) == r for every row, every stale key
   NOT_FOUND, the columns aligned.  Returns the problems found. */
static unsigned r_verify(const slotmap_s* sm, int check_stale) {
  unsigned bad = 0;
  uint32_t n = slotmap_length(sm);
  if (n != rn_) return 1000000;
  memset(rseen_, 0, n + 1);
  for (uint32_t i = 0; i < rn_; i++) {
    void* e = NULL;
    uint32_t r = SENTINEL_ROW;
    if (slotmap_row(sm, rlive_[i].key, &r) != SLATE_OK || r >= n) {
      bad++;
      continue;
    }
    if (rseen_[r]++) bad++;
    if (slotmap_get(sm, rlive_[i].key, &e) != SLATE_OK ||
        e != (void*)((uint32_t*)slotmap_column(sm, 0) + r))
      bad++;
    if (slotmap_contains(sm, rlive_[i].key) != 1) bad++;
    if (!r_row_is(sm, r, &rlive_[i])) bad++;
  }
  bad += dense_problems(sm);
  if (n > 0)
    for (uint32_t c = 0; c < 3; c++)
      if (!aligned16(slotmap_column(sm, c))) bad++;
  if (check_stale)
    for (size_t i = 0; i < rstale_.n; i++) {
      void* e = SENTINEL;
      if (slotmap_get(sm, rstale_.keys[i], &e) != SLATE_ERROR_NOT_FOUND || e != SENTINEL ||
          slotmap_contains(sm, rstale_.keys[i]) != 0)
        bad++;
    }
  return bad;
}

static void r_forget_all(void) {
  for (uint32_t i = 0; i < rn_; i++) keylist_push(&rstale_, rlive_[i].key);
  rn_ = 0;
}

static void r_insert(int null_row) {
  rrec_s rec;
  unsigned char row[R_ROW];
  slotmap_key k = SENTINEL_KEY;
  uint32_t r = SENTINEL_ROW;
  memset(&rec, 0, sizeof rec);
  if (!null_row) {
    rec.value = rng_below(1000);
    rec.tag = rng_next();
    rec.flag = (uint8_t)rng_next();
  }
  r_pack(row, &rec);
  if (!CHECK_EQ_INT(slotmap_insert(&rsm_, null_row ? NULL : row, &k), SLATE_OK)) return;
  CHECK(k != 0 && (KEY_VERSION(k) & 1u));
  /* [D-append] the new row is the last */
  CHECK(slotmap_row(&rsm_, k, &r) == SLATE_OK && r == rn_);
  /* [D-reuse] the most recently freed slot comes back first */
  if (rexpect_slot_ != UINT32_MAX) CHECK_EQ_U64(KEY_SLOT(k), rexpect_slot_);
  rexpect_slot_ = UINT32_MAX;
  CHECK(r_row_is(&rsm_, rn_, &rec));
  rec.key = k;
  rlive_[rn_++] = rec;
  keylist_push(&rissued_, k);
}

static void r_erase(void) {
  uint32_t i = rng_below(rn_), r = SENTINEL_ROW;
  slotmap_key k = rlive_[i].key;
  slotmap_key last = slotmap_key_at(&rsm_, rn_ - 1);
  CHECK_EQ_INT(slotmap_row(&rsm_, k, &r), SLATE_OK);
  if (!CHECK_EQ_INT(slotmap_erase(&rsm_, k), SLATE_OK)) return;
  /* swap-and-pop: the last row moved into the hole */
  if (r != rn_ - 1) CHECK_EQ_U64(slotmap_key_at(&rsm_, r), last);
  CHECK_EQ_U64(slotmap_key_at(&rsm_, rn_ - 1), 0);
  CHECK(is_stale(&rsm_, k));
  rlive_[i] = rlive_[--rn_];
  keylist_push(&rstale_, k);
  rexpect_slot_ = KEY_SLOT(k);
}

static void r_erase_stale(void) {
  slotmap_key k = rstale_.keys[rng_below((uint32_t)rstale_.n)];
  CHECK_EQ_INT(slotmap_erase(&rsm_, k), SLATE_ERROR_NOT_FOUND);
}

static void r_erase_forged(void) {
  slotmap_key k;
  if (rn_ == 0) {
    k = 0;
  } else {
    slotmap_key live = rlive_[rng_below(rn_)].key;
    uint32_t v = KEY_VERSION(live), s = KEY_SLOT(live);
    switch (rng_below(5)) {
      case 0: k = MAKE_KEY(v + 2, s); break;         /* another odd version */
      case 1: k = MAKE_KEY(v + 1, s); break;         /* an even version */
      case 2: k = MAKE_KEY(v, s + 0x40000000u); break; /* no such slot */
      case 3: k = UINT64_MAX; break;
      default: k = 0; break;
    }
  }
  void* e = SENTINEL;
  CHECK_EQ_INT(slotmap_get(&rsm_, k, &e), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(e, SENTINEL);
  CHECK_EQ_INT(slotmap_erase(&rsm_, k), SLATE_ERROR_NOT_FOUND);
}

static void r_get(void) {
  const rrec_s* rec = &rlive_[rng_below(rn_)];
  void* e = NULL;
  uint32_t r = SENTINEL_ROW, value = 0;
  if (!CHECK_EQ_INT(slotmap_get(&rsm_, rec->key, &e), SLATE_OK)) return;
  memcpy(&value, e, 4);
  CHECK_EQ_U64(value, rec->value);
  CHECK_EQ_INT(slotmap_row(&rsm_, rec->key, &r), SLATE_OK);
  CHECK(r < rn_ && r_row_is(&rsm_, r, rec));
  CHECK_EQ_INT(slotmap_contains(&rsm_, rec->key), 1);
}

static void r_get_stale(void) {
  slotmap_key k = rstale_.keys[rng_below((uint32_t)rstale_.n)];
  CHECK(is_stale(&rsm_, k));
}

static void r_key_at(void) {
  uint32_t r = rng_below(rn_ + 2), row = SENTINEL_ROW;
  slotmap_key k = slotmap_key_at(&rsm_, r);
  if (r >= rn_) {
    CHECK_EQ_U64(k, 0);
  } else {
    CHECK(k != 0);
    CHECK(slotmap_row(&rsm_, k, &row) == SLATE_OK && row == r);
  }
}

typedef struct rwalk_s {
  uint32_t calls, stop_at;
  unsigned bad;
} rwalk_s;

static int r_walk_cb(slotmap_key key, void* row, void* data) {
  rwalk_s* w = (rwalk_s*)data;
  uint32_t r = w->calls++;
  if (slotmap_key_at(&rsm_, r) != key) w->bad++;
  if (row != (void*)((uint32_t*)slotmap_column(&rsm_, 0) + r)) w->bad++;
  return w->calls == w->stop_at ? 1000 + (int)r : 0;
}

static void r_each(void) {
  rwalk_s w;
  memset(&w, 0, sizeof w);
  w.stop_at = rng_below(2) ? 0 : 1 + rng_below(rn_ + 1);
  int rc = slotmap_each(&rsm_, r_walk_cb, &w);
  if (w.stop_at != 0 && w.stop_at <= rn_) {
    CHECK_EQ_INT(rc, 1000 + (int)w.stop_at - 1);
    CHECK_EQ_U64(w.calls, w.stop_at);
  } else {
    CHECK_EQ_INT(rc, SLATE_OK);
    CHECK_EQ_U64(w.calls, rn_);
  }
  CHECK_EQ_INT(w.bad, 0);
}

typedef struct rfilter_s {
  uint32_t modulus, remainder, calls;
} rfilter_s;

static int r_filter_cb(slotmap_key key, void* row, void* data) {
  rfilter_s* f = (rfilter_s*)data;
  uint32_t value;
  (void)key;
  memcpy(&value, row, 4);
  f->calls++;
  return value % f->modulus == f->remainder;
}

static void r_erase_if(void) {
  rfilter_s f;
  f.modulus = 2 + rng_below(9);
  f.remainder = rng_below(f.modulus);
  f.calls = 0;
  const uint32_t* c0 = (const uint32_t*)slotmap_column(&rsm_, 0);
  for (uint32_t r = 0; r < rn_; r++) {
    rorder_[r] = slotmap_key_at(&rsm_, r);
    rvalues_[r] = c0[r];
  }
  if (!CHECK_EQ_INT(slotmap_erase_if(&rsm_, r_filter_cb, &f), SLATE_OK)) return;
  CHECK_EQ_U64(f.calls, rn_);
  /* [D-order] the walk's swap-and-pop: an erased row is refilled by the
     last, which is asked next */
  uint32_t w = rn_, bad = 0;
  for (uint32_t r = 0; r < w;) {
    if (rvalues_[r] % f.modulus == f.remainder) {
      w--;
      rorder_[r] = rorder_[w];
      rvalues_[r] = rvalues_[w];
    } else {
      r++;
    }
  }
  for (uint32_t r = 0; r < w; r++)
    if (slotmap_key_at(&rsm_, r) != rorder_[r]) bad++;
  CHECK_EQ_INT(bad, 0);
  for (uint32_t i = 0; i < rn_;) {
    if (rlive_[i].value % f.modulus == f.remainder) {
      keylist_push(&rstale_, rlive_[i].key);
      rlive_[i] = rlive_[--rn_];
    } else {
      i++;
    }
  }
  CHECK_EQ_U64(w, rn_);
  rexpect_slot_ = UINT32_MAX;
}

static int r_greater(const void* a, const void* b, void* data) {
  (void)data;
  return less_u32(b, a, NULL);
}

static void r_sort(void) {
  int up = rng_below(2) != 0;
  if (!CHECK_EQ_INT(slotmap_sort(&rsm_, up ? less_u32 : r_greater, NULL), SLATE_OK)) return;
  const uint32_t* c0 = (const uint32_t*)slotmap_column(&rsm_, 0);
  uint32_t bad = 0;
  for (uint32_t r = 1; r < rn_; r++)
    if (up ? c0[r - 1] > c0[r] : c0[r - 1] < c0[r]) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(r_verify(&rsm_, 0), 0); /* every key still valid with its data */
}

static void r_clear(void) {
  CHECK_EQ_INT(slotmap_clear(&rsm_), SLATE_OK);
  r_forget_all();
  rexpect_slot_ = UINT32_MAX;
}

static void r_free(void) {
  slotmap_free(&rsm_);
  r_forget_all();
  rexpect_slot_ = UINT32_MAX;
}

static void r_clone(void) {
  slotmap_s copy;
  memset(&copy, 0xA7, sizeof copy);
  if (!CHECK_EQ_INT(slotmap_clone(&copy, &rsm_), SLATE_OK)) return;
  CHECK_EQ_INT(r_verify(&copy, 0), 0);
  /* [D-clone] the same row order */
  uint32_t bad = 0;
  for (uint32_t r = 0; r < rn_; r++)
    if (slotmap_key_at(&copy, r) != slotmap_key_at(&rsm_, r)) bad++;
  CHECK_EQ_INT(bad, 0);
  if (rng_below(2)) {
    /* go on with the copy (moved into place with memcpy) */
    slotmap_free(&rsm_);
    memcpy(&rsm_, &copy, sizeof copy);
  } else {
    /* erasing in the copy leaves the original alone */
    if (rn_ > 0) {
      slotmap_key k = rlive_[rng_below(rn_)].key;
      CHECK_EQ_INT(slotmap_erase(&copy, k), SLATE_OK);
      CHECK_EQ_INT(slotmap_contains(&rsm_, k), 1);
    }
    slotmap_free(&copy);
  }
}

static void r_move(void) {
  slotmap_s* heap = (slotmap_s*)malloc(sizeof(slotmap_s));
  memcpy(heap, &rsm_, sizeof rsm_);
  memset(&rsm_, 0xEE, sizeof rsm_);
  if (rn_ > 0) CHECK_EQ_INT(slotmap_get(heap, rlive_[0].key, NULL), SLATE_OK);
  CHECK_EQ_U64(slotmap_length(heap), rn_);
  memcpy(&rsm_, heap, sizeof rsm_);
  memset(heap, 0x11, sizeof *heap);
  free(heap);
}

static void r_reserve(void) {
  CHECK_EQ_INT(slotmap_reserve(&rsm_, rn_ + rng_below(R_CAP - rn_ + 1)), SLATE_OK);
}

static int r_pick(uint32_t insert_share) {
  uint32_t x = rng_below(10000);
  if (x < 8) return R_ERASE_IF;
  if (x < 16) return R_SORT;
  if (x < 18) return R_CLEAR;
  if (x < 26) return R_CLONE;
  if (x < 36) return R_MOVE;
  if (x < 46) return R_RESERVE;
  if (x < 47) return R_FREE;
  if (x < 57) return R_EACH;
  if (x < 300) return R_KEY_AT;
  if (x < 1100) return R_GET;
  if (x < 1400) return R_GET_STALE;
  if (x < 1550) return R_ERASE_STALE;
  if (x < 1650) return R_ERASE_FORGED;
  if (rng_below(100) < insert_share) return rng_below(20) ? R_INSERT : R_INSERT_NULL;
  return R_ERASE;
}

static int cmp_key(const void* a, const void* b) {
  slotmap_key x = *(const slotmap_key*)a, y = *(const slotmap_key*)b;
  return x < y ? -1 : x > y;
}

void test_random(uint64_t seed, unsigned long steps) {
  TEST_SECTION("randomized test against a model");
  unsigned long step;
  uint32_t insert_share = 50;
  unsigned long phase_end = 0;
  clock_t started = clock();
  rng_state_ = seed;
  rn_ = 0;
  rexpect_slot_ = UINT32_MAX;
  CHECK_EQ_INT(slotmap_columns(&rsm_, RSIZES, 3), SLATE_OK);
  for (step = 0; step < steps; step++) {
    unsigned long failed_before = TEST_FAILED_COUNT();
    if (step == phase_end) {
      /* phases lean toward growing, balance or shrinking */
      static const uint32_t shares[4] = {70, 50, 52, 30};
      insert_share = shares[rng_below(4)];
      phase_end = step + 2000 + rng_below(8000);
    }
    int op = r_pick(insert_share);
    if ((op == R_INSERT || op == R_INSERT_NULL) && rn_ >= R_CAP) op = R_ERASE;
    if ((op == R_ERASE || op == R_GET) && rn_ == 0) op = R_INSERT;
    if ((op == R_ERASE_STALE || op == R_GET_STALE) && rstale_.n == 0) op = R_KEY_AT;
    rops_[op]++;
    switch (op) {
      case R_INSERT: r_insert(0); break;
      case R_INSERT_NULL: r_insert(1); break;
      case R_ERASE: r_erase(); break;
      case R_ERASE_STALE: r_erase_stale(); break;
      case R_ERASE_FORGED: r_erase_forged(); break;
      case R_GET: r_get(); break;
      case R_GET_STALE: r_get_stale(); break;
      case R_KEY_AT: r_key_at(); break;
      case R_EACH: r_each(); break;
      case R_ERASE_IF: r_erase_if(); break;
      case R_SORT: r_sort(); break;
      case R_CLEAR: r_clear(); break;
      case R_CLONE: r_clone(); break;
      case R_MOVE: r_move(); break;
      case R_RESERVE: r_reserve(); break;
      default: r_free(); break;
    }
    CHECK_EQ_U64(slotmap_length(&rsm_), rn_);
    if (rn_ > rmax_len_) rmax_len_ = rn_;
    if ((step + 1) % 1000 == 0) CHECK_EQ_INT(r_verify(&rsm_, 1), 0);
    if (TEST_FAILED_COUNT() != failed_before) {
      fprintf(stderr, "FIRST FAILURE at step %lu (%s), length %u\n", step, r_names_[op], rn_);
      fprintf(stderr, "reproduce: slotmap/api %llu %lu\n", (unsigned long long)seed, step + 1);
      break;
    }
  }
  CHECK_EQ_INT(r_verify(&rsm_, 1), 0);
  /* a key is never issued twice */
  {
    size_t dups = 0;
    qsort(rissued_.keys, rissued_.n, sizeof(slotmap_key), cmp_key);
    for (size_t i = 1; i < rissued_.n; i++)
      if (rissued_.keys[i] == rissued_.keys[i - 1]) dups++;
    CHECK_EQ_U64(dups, 0);
  }
  fprintf(stderr, "   ops:");
  for (int op = 0; op < R_COUNT; op++) fprintf(stderr, " %s %lu,", r_names_[op], rops_[op]);
  fprintf(stderr, "\n   max length %u, final %u, %lu keys issued, %lu stale; %.2f s CPU\n",
          rmax_len_, rn_,
          (unsigned long)rissued_.n, (unsigned long)rstale_.n,
          (double)(clock() - started) / CLOCKS_PER_SEC);
  slotmap_free(&rsm_);
  free(rstale_.keys);
  free(rissued_.keys);
}
