/* map/batch: SLATE_ERROR_INVALID, each case with nothing written and the
 * structure unchanged, and count 0. */
#include "batch.h"

/* What a call is given instead of the batch's own arrays. */
typedef struct defect_s {
  const char* what;
  int null_map, null_keys, null_lengths, null_found;
  long null_key_at; /* -1: none; else keys[i] NULL (with a non-zero length) */
} defect_s;

static int call_defective(const slate_s* m, batch_s* b, const defect_s* d, int with_values) {
  const slate_s* map = d->null_map ? NULL : m;
  void** values = with_values ? b->values : NULL;
  uint8_t* found = d->null_found ? NULL : b->found;
  switch (b->via) {
    case VIA_U64:
      return slate_get_many_u64(map, d->null_keys ? NULL : b->u64, b->n, values, found);
    case VIA_I64:
      return slate_get_many_i64(map, d->null_keys ? NULL : b->i64, b->n, values, found);
    case VIA_BYTES:
      return slate_get_many_bytes(map, d->null_keys ? NULL : b->ptrs, d->null_lengths ? NULL : b->lens,
                                  b->n, values, found);
    default:
      return slate_get_many(map, d->null_keys ? NULL : b->strs, b->n, values, found);
  }
}

/* One invalid call: INVALID, no byte of found or values written, the map's
   bytes and entries as before, nothing allocated. */
static void expect_invalid(const slate_s* m, const model_s* md, batch_s* b, const defect_s* d,
                           int with_values) {
  slate_s before;
  unsigned long long attempts;
  unsigned long written = 0;
  size_t i, at = (size_t)d->null_key_at;
  const void* saved_ptr = NULL;
  uint32_t saved_len = 0;
  const char* saved_str = NULL;
  for (i = 0; i < b->n; i++) {
    b->values[i] = PREFILL(i);
    b->found[i] = FOUND_PREFILL;
  }
  if (d->null_key_at >= 0) {
    saved_ptr = b->ptrs[at];
    saved_len = b->lens[at];
    saved_str = b->strs[at];
    b->ptrs[at] = NULL;
    b->lens[at] = 1 + (uint32_t)(at % 40);
    b->strs[at] = NULL;
  }
  memcpy(&before, m, sizeof before);
  attempts = alloc_attempts();
  int rc = call_defective(m, b, d, with_values);
  if (d->null_key_at >= 0) {
    b->ptrs[at] = saved_ptr;
    b->lens[at] = saved_len;
    b->strs[at] = saved_str;
  }
  for (i = 0; i < b->n; i++) written += b->values[i] != PREFILL(i) || b->found[i] != FOUND_PREFILL;
  int ok = CHECK_EQ_INT(rc, SLATE_ERROR_INVALID);
  ok &= CHECK_EQ_U64(written, 0);
  ok &= CHECK(memcmp(&before, m, sizeof before) == 0);
  ok &= CHECK_EQ_U64(alloc_attempts(), attempts);
  ok &= CHECK(map_matches(m, md));
  if (!ok)
    fprintf(stderr, "  %s: %s, %lu keys, values %s\n", d->what, via_names_[b->via], (unsigned long)b->n,
            with_values ? "given" : "NULL");
}

static void slotmap_invalid(void) {
  slotmap_s sm, before;
  slotmap_key keys[40];
  void* elements[40];
  unsigned long written = 0, bad = 0;
  uint64_t v;
  unsigned long long attempts;
  TEST_SECTION("slotmap_get_many: invalid arguments");
  CHECK_EQ_INT(init_slotmap(&sm, 8), SLATE_OK);
  for (v = 0; v < 40; v++)
    if (slotmap_insert(&sm, &v, &keys[v]) != SLATE_OK) bad++;
  CHECK_EQ_U64(bad, 0);
  for (int c = 0; c < 3; c++) { /* NULL slotmap, NULL keys, NULL elements */
    for (size_t i = 0; i < 40; i++) elements[i] = SENTINEL;
    memcpy(&before, &sm, sizeof before);
    attempts = alloc_attempts();
    int rc = slotmap_get_many(c == 0 ? NULL : &sm, c == 1 ? NULL : keys, 40, c == 2 ? NULL : elements);
    CHECK_EQ_INT(rc, SLATE_ERROR_INVALID);
    for (size_t i = 0; i < 40; i++) written += elements[i] != SENTINEL;
    CHECK_EQ_U64(written, 0);
    CHECK(memcmp(&before, &sm, sizeof before) == 0);
    CHECK_EQ_U64(alloc_attempts(), attempts);
  }
  /* the slotmap still holds every row */
  for (v = 0; v < 40; v++) {
    void* e = NULL;
    uint64_t got = ~v;
    if (slotmap_get(&sm, keys[v], &e) == SLATE_OK && e != NULL) memcpy(&got, e, 8);
    bad += got != v;
  }
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_U64(slotmap_length(&sm), 40);
  slotmap_free(&sm);
}

void test_invalid(void) {
  slate_s m;
  model_s md;
  batch_s b;
  TEST_SECTION("invalid arguments: SLATE_ERROR_INVALID, nothing written, the map unchanged");
  model_init(&md);
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  put_range(&m, &md, 0, 300);
  put_range(&m, &md, U64_FIRST, 200);
  batch_init(&b, 64, VIA_U64);
  for (int via = 0; via < VIA_COUNT; via++) {
    defect_s cases[9];
    int ncases = 0;
    memset(cases, 0, sizeof cases);
    for (int c = 0; c < 9; c++) cases[c].null_key_at = -1;
    cases[ncases].what = "NULL map";
    cases[ncases++].null_map = 1;
    cases[ncases].what = "NULL keys";
    cases[ncases++].null_keys = 1;
    cases[ncases].what = "NULL found";
    cases[ncases++].null_found = 1;
    if (via == VIA_BYTES) {
      cases[ncases].what = "NULL key_lengths";
      cases[ncases++].null_lengths = 1;
    }
    if (via == VIA_BYTES || via == VIA_STRING) {
      /* first, in the second chunk of 16, last */
      static const long at[] = {0, 17, 39};
      for (int j = 0; j < 3; j++) {
        cases[ncases].what = via == VIA_BYTES ? "a NULL keys[i] with a length" : "a NULL keys[i]";
        cases[ncases++].null_key_at = at[j];
      }
    }
    for (int c = 0; c < ncases; c++) {
      for (int with_values = 1; with_values >= 0; with_values--) {
        /* 40 keys, most of them in the map (found would be written) */
        fill_random(&b, via, 40, 300, &md);
        expect_invalid(&m, &md, &b, &cases[c], with_values);
      }
    }
  }
  /* the empty key as NULL with length 0 is no defect */
  batch_reset(&b, VIA_BYTES);
  batch_add_bytes(&b, NULL, 0, md.present[universe_[1].slot], md.value[universe_[1].slot]);
  check_batch(&m, &b, 1, "the empty key as NULL");
  batch_release(&b);
  slate_free(&m);
  model_release(&md);
  slotmap_invalid();
}

void test_count_zero(void) {
  slate_s m, before;
  model_s md;
  slotmap_s sm;
  void* values[1];
  uint8_t found[1];
  const void* ptrs[1] = {"x"};
  uint32_t lens[1] = {1};
  const char* strs[1] = {"x"};
  uint64_t u[1] = {1};
  int64_t s[1] = {1};
  slotmap_key keys[1] = {0};
  TEST_SECTION("count 0: SLATE_OK with NULL arrays, nothing written; a NULL map is still INVALID");
  model_init(&md);
  for (int state = 0; state < 2; state++) {
    CHECK_EQ_INT(init_map(&m), SLATE_OK);
    if (state == 1) put_range(&m, &md, 0, 100);
    memcpy(&before, &m, sizeof before);
    CHECK_EQ_INT(slate_get_many_u64(&m, NULL, 0, NULL, NULL), SLATE_OK);
    CHECK_EQ_INT(slate_get_many_i64(&m, NULL, 0, NULL, NULL), SLATE_OK);
    CHECK_EQ_INT(slate_get_many_bytes(&m, NULL, NULL, 0, NULL, NULL), SLATE_OK);
    CHECK_EQ_INT(slate_get_many(&m, NULL, 0, NULL, NULL), SLATE_OK);
    /* real arrays, but count 0: not one element written */
    values[0] = SENTINEL;
    found[0] = FOUND_PREFILL;
    CHECK_EQ_INT(slate_get_many_u64(&m, u, 0, values, found), SLATE_OK);
    CHECK_EQ_INT(slate_get_many_i64(&m, s, 0, values, found), SLATE_OK);
    CHECK_EQ_INT(slate_get_many_bytes(&m, ptrs, lens, 0, values, found), SLATE_OK);
    CHECK_EQ_INT(slate_get_many(&m, strs, 0, values, found), SLATE_OK);
    CHECK(values[0] == SENTINEL && found[0] == FOUND_PREFILL);
    CHECK(memcmp(&before, &m, sizeof before) == 0);
    slate_free(&m);
    model_clear(&md);
  }
  /* a NULL map is INVALID whatever the count */
  CHECK_EQ_INT(slate_get_many_u64(NULL, NULL, 0, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_many_i64(NULL, NULL, 0, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_many_bytes(NULL, NULL, NULL, 0, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_many(NULL, NULL, 0, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_get_many(NULL, NULL, 0, NULL), SLATE_ERROR_INVALID);
  /* the slotmap */
  CHECK_EQ_INT(init_slotmap(&sm, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_get_many(&sm, NULL, 0, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &keys[0]), SLATE_OK);
  CHECK_EQ_INT(slotmap_get_many(&sm, NULL, 0, NULL), SLATE_OK);
  values[0] = SENTINEL;
  CHECK_EQ_INT(slotmap_get_many(&sm, keys, 0, values), SLATE_OK);
  CHECK_EQ_PTR(values[0], SENTINEL);
  slotmap_free(&sm);
  model_release(&md);
}
