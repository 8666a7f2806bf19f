/* map/api: slate_delete_if, and a predicate that writes into the map
 * being filtered. */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* slate_delete_if                                                           */
/* ------------------------------------------------------------------------ */

typedef struct pred_s {
  uint64_t modulus;
  uint64_t calls;
  int return_value;
  int bad;
} pred_s;

static int pred_cb(const char* key, uint32_t length, void* value, void* data) {
  pred_s* p = (pred_s*)data;
  uint64_t k;
  p->calls++;
  if (!decode_int(key, length, 0x02, &k)) return 0; /* keep non-u64 keys */
  if (value != V(u64_value(k))) p->bad++;
  return (k % p->modulus == 0) ? p->return_value : 0;
}

/* A predicate that writes into the map being filtered (SPEC 3c): on every
 * u64 key it replaces the value with itself (no change); on multiples of 5
 * it deletes its own key and answers 1 (the entry is deleted once, the
 * walk goes on); from call `insert_at` on, once, it inserts a new key and
 * answers 1: the walk stops with INVALID, and that answer is not applied. */
typedef struct pred_writer_s {
  slate_s* self;
  int calls, insert_at, insert_call;
  uint64_t deleted;
  uint64_t insert_key; /* the key given with the insert */
} pred_writer_s;

static int pred_writer_cb(const char* key, uint32_t length, void* value, void* data) {
  pred_writer_s* w = (pred_writer_s*)data;
  uint64_t k;
  w->calls++;
  if (!decode_int(key, length, 0x02, &k)) return 0; /* keep non-u64 keys */
  CHECK_EQ_INT(slate_set_bytes(w->self, key, length, value), SLATE_OK);
  if (w->insert_at && w->calls >= w->insert_at && !w->insert_call) {
    w->insert_call = w->calls;
    w->insert_key = k;
    CHECK_EQ_INT(slate_set(w->self, "from-predicate", V(1)), SLATE_OK);
    return 1;
  }
  if (k % 5 == 0) {
    CHECK_EQ_INT(slate_delete_bytes(w->self, key, length), SLATE_OK);
    w->deleted++;
    return 1;
  }
  return 0;
}

void test_delete_if(void) {
  TEST_SECTION("slate_delete_if");
  slate_s m;
  pred_s p;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, 10000), 0);
  CHECK_EQ_INT(slate_set(&m, "keep-me", V(1)), SLATE_OK);
  memset(&p, 0, sizeof p);
  p.modulus = 2;
  p.return_value = 1;
  CHECK_EQ_INT(slate_delete_if(&m, pred_cb, &p), SLATE_OK); /* not a count */
  CHECK_EQ_U64(p.calls, 10001);
  CHECK_EQ_INT(p.bad, 0);
  CHECK_EQ_U64(slate_length(&m), 5001);
  CHECK_EQ_U64(missing_u64(&m, 1, 10000, 2), 0);
  CHECK_EQ_U64(present_u64(&m, 0, 10000, 2), 0);
  CHECK_EQ_INT(slate_get(&m, "keep-me", NULL), SLATE_OK);
  verify_structure(&m, 1);

  /* any non-zero return deletes */
  memset(&p, 0, sizeof p);
  p.modulus = 3;
  p.return_value = -1;
  CHECK_EQ_INT(slate_delete_if(&m, pred_cb, &p), SLATE_OK);
  CHECK_EQ_U64(p.calls, 5001);
  uint64_t expect = 1; /* keep-me */
  for (uint64_t k = 1; k < 10000; k += 2)
    if (k % 3 != 0) expect++;
  CHECK_EQ_U64(slate_length(&m), expect);
  uint64_t bad = 0;
  for (uint64_t k = 0; k < 10000; k++) {
    int want = (k % 2 == 1 && k % 3 != 0) ? SLATE_OK : SLATE_ERROR_NOT_FOUND;
    if (slate_get_u64(&m, k, NULL) != want) bad++;
  }
  CHECK_EQ_U64(bad, 0);

  /* writes from inside the predicate are carried out */
  {
    pred_writer_s w;
    memset(&w, 0, sizeof w);
    w.self = &m;
    uint64_t length = slate_length(&m), fives = 0;
    for (uint64_t k = 0; k < 10000; k++)
      if (k % 2 == 1 && k % 3 != 0 && k % 5 == 0) fives++;
    CHECK_EQ_INT(slate_delete_if(&m, pred_writer_cb, &w), SLATE_OK);
    CHECK_EQ_U64(w.calls, length);
    CHECK_EQ_U64(w.deleted, fives);
    expect -= fives;
    CHECK_EQ_U64(slate_length(&m), expect);
    bad = 0;
    for (uint64_t k = 0; k < 10000; k++) {
      void* v = NULL;
      int want = (k % 2 == 1 && k % 3 != 0 && k % 5 != 0) ? SLATE_OK : SLATE_ERROR_NOT_FOUND;
      if (slate_get_u64(&m, k, &v) != want || (want == SLATE_OK && v != V(u64_value(k)))) bad++;
    }
    CHECK_EQ_U64(bad, 0);
    verify_structure(&m, 1);
    /* a new key stops the walk at once; the answer that came with it is
       not applied */
    memset(&w, 0, sizeof w);
    w.self = &m;
    w.insert_at = 20;
    CHECK_EQ_INT(slate_delete_if(&m, pred_writer_cb, &w), SLATE_ERROR_INVALID);
    CHECK(w.insert_call >= 20);
    CHECK_EQ_INT(w.calls, w.insert_call);
    CHECK_EQ_INT(slate_get(&m, "from-predicate", NULL), SLATE_OK);
    CHECK_EQ_INT(slate_get_u64(&m, w.insert_key, NULL), SLATE_OK);
    CHECK_EQ_U64(slate_length(&m), expect + 1);
    CHECK_EQ_INT(slate_get(&m, "keep-me", NULL), SLATE_OK);
    CHECK_EQ_INT(slate_delete(&m, "from-predicate"), SLATE_OK);
    verify_structure(&m, 1);
  }

  /* deleting nothing */
  slate_info_s before = info_of(&m);
  memset(&p, 0, sizeof p);
  p.modulus = 1000000;
  p.return_value = 1;
  CHECK_EQ_INT(slate_delete_if(&m, noop_cb, NULL), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), expect);
  CHECK_EQ_U64(info_of(&m).seed, before.seed);
  verify_structure(&m, 1);

  /* deleting everything: the map is empty and takes a new seed */
  int calls = 0;
  CHECK_EQ_INT(slate_delete_if(&m, always_cb, &calls), SLATE_OK);
  CHECK_EQ_U64(calls, expect);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_U64(count_entries(&m), 0);
  CHECK_NE_U64(info_of(&m).seed, before.seed);
  verify_structure(&m, 1);
  CHECK_EQ_INT(slate_set(&m, "again", V(1)), SLATE_OK);

  /* small map */
  slate_s s;
  CHECK_EQ_INT(slate(&s), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&s, 0, 6), 0);
  memset(&p, 0, sizeof p);
  p.modulus = 2;
  p.return_value = 1;
  CHECK_EQ_INT(slate_delete_if(&s, pred_cb, &p), SLATE_OK);
  CHECK_EQ_U64(p.calls, 6);
  CHECK_EQ_U64(slate_length(&s), 3);
  CHECK_EQ_U64(missing_u64(&s, 1, 6, 2), 0);
  CHECK_EQ_U64(present_u64(&s, 0, 6, 2), 0);
  verify_structure(&s, 1);
  slate_free(&s);
  slate_free(&m);
}
