/* test_api: slate_delete_if, and a predicate that tries to write into the
 * map being filtered. */
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

/* a predicate that tries to write into the map being filtered */
typedef struct pred_writer_s {
  slate_s* self;
  int calls;
} pred_writer_s;

static int pred_writer_cb(const char* key, uint32_t length, void* value, void* data) {
  pred_writer_s* w = (pred_writer_s*)data;
  (void)value;
  w->calls++;
  if (w->calls == 1) {
    CHECK_EQ_INT(slate_set(w->self, "from-predicate", V(1)), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_set_bytes(w->self, key, length, V(0xBAD)), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_delete_bytes(w->self, key, length), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_clear(w->self), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_compact(w->self), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_reserve(w->self, 100000), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(slate_delete_if(w->self, always_cb, NULL), SLATE_ERROR_INVALID);
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

  /* writes from inside the predicate are refused */
  {
    pred_writer_s w;
    w.self = &m;
    w.calls = 0;
    uint64_t length = slate_length(&m);
    CHECK_EQ_INT(slate_delete_if(&m, pred_writer_cb, &w), SLATE_OK);
    CHECK_EQ_U64(w.calls, length);
    CHECK_EQ_U64(slate_length(&m), length);
    CHECK_EQ_INT(slate_get(&m, "from-predicate", NULL), SLATE_ERROR_NOT_FOUND);
    CHECK_EQ_INT(slate_get(&m, "keep-me", NULL), SLATE_OK);
    CHECK_EQ_INT(slate_set(&m, "after-predicate", V(1)), SLATE_OK); /* unlocked again */
    CHECK_EQ_INT(slate_delete(&m, "after-predicate"), SLATE_OK);
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
