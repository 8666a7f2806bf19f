/* The helpers the units of slotmap/api share (declared in slotmap.h):
 * rows of one and of three columns, stale keys, the swap-and-pop
 * invariant, and callbacks. */
#include "slotmap.h"

char sentinel_object_;

int aligned16(const void* p) { return ((uintptr_t)p % 16u) == 0; }

/* --- one column of uint64_t ------------------------------------------- */

/* Inserts v; returns its key (0 and counts a problem on failure). */
slotmap_key put_u64(slotmap_s* sm, uint64_t v, unsigned* bad) {
  slotmap_key k = 0;
  if (slotmap_insert(sm, &v, &k) != SLATE_OK || k == 0) (*bad)++;
  return k;
}

/* The value of key k, or `fallback` when it is not found. */
uint64_t value_u64(const slotmap_s* sm, slotmap_key k, uint64_t fallback) {
  void* e = NULL;
  uint64_t v = fallback;
  if (slotmap_get(sm, k, &e) == SLATE_OK && e != NULL) memcpy(&v, e, sizeof v);
  return v;
}

/* --- three columns: a 12-byte struct, an 8-byte id, a 1-byte flag ----- */

slotmap_key put3(slotmap_s* sm, uint64_t id, unsigned* bad) {
  unsigned char row[ROW3];
  slotmap_key k = 0;
  pack3(row, id);
  if (slotmap_insert(sm, row, &k) != SLATE_OK || k == 0) (*bad)++;
  return k;
}

/* Row r of all three columns holds record `id`. */
int row3_is(const slotmap_s* sm, uint32_t r, uint64_t id) {
  const rec_s* c0 = (const rec_s*)slotmap_column(sm, 0);
  const uint64_t* c1 = (const uint64_t*)slotmap_column(sm, 1);
  const uint8_t* c2 = (const uint8_t*)slotmap_column(sm, 2);
  rec_s want = rec_for(id);
  if (c0 == NULL || c1 == NULL || c2 == NULL || r >= slotmap_length(sm)) return 0;
  return memcmp(&c0[r], &want, sizeof want) == 0 && c1[r] == id && c2[r] == flag_for(id);
}

/* Key k is valid, its row holds record `id`, and slotmap_get points at that
   row's column-0 element. */
int key3_is(const slotmap_s* sm, slotmap_key k, uint64_t id) {
  uint32_t r = SENTINEL_ROW;
  void* e = NULL;
  if (slotmap_row(sm, k, &r) != SLATE_OK || r >= slotmap_length(sm)) return 0;
  if (slotmap_get(sm, k, &e) != SLATE_OK) return 0;
  if (e != (const void*)((const rec_s*)slotmap_column(sm, 0) + r)) return 0;
  if (slotmap_contains(sm, k) != 1) return 0;
  return row3_is(sm, r, id);
}

/* Key k is stale: every lookup says NOT_FOUND and leaves the out-values. */
int is_stale(const slotmap_s* sm, slotmap_key k) {
  void* e = SENTINEL;
  uint32_t r = SENTINEL_ROW;
  return slotmap_get(sm, k, &e) == SLATE_ERROR_NOT_FOUND && e == SENTINEL &&
         slotmap_get(sm, k, NULL) == SLATE_ERROR_NOT_FOUND &&
         slotmap_row(sm, k, &r) == SLATE_ERROR_NOT_FOUND && r == SENTINEL_ROW &&
         slotmap_contains(sm, k) == 0;
}

/* The swap-and-pop invariant: row(key_at(r)) == r for every row, every
   key_at below the length a live key (odd version), 0 at the length. */
unsigned dense_problems(const slotmap_s* sm) {
  unsigned bad = 0;
  uint32_t n = slotmap_length(sm);
  for (uint32_t r = 0; r < n; r++) {
    slotmap_key k = slotmap_key_at(sm, r);
    uint32_t row = SENTINEL_ROW;
    if (k == 0 || (KEY_VERSION(k) & 1u) == 0) bad++;
    if (slotmap_row(sm, k, &row) != SLATE_OK || row != r) bad++;
  }
  if (slotmap_key_at(sm, n) != 0) bad++;
  return bad;
}

/* The keys in dense order (malloc'd; *n gets the length). */
slotmap_key* keys_by_row(const slotmap_s* sm, uint32_t* n) {
  *n = slotmap_length(sm);
  slotmap_key* keys = (slotmap_key*)malloc(sizeof(slotmap_key) * (*n + 1u));
  for (uint32_t r = 0; r < *n; r++) keys[r] = slotmap_key_at(sm, r);
  return keys;
}

int count_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (*(uint64_t*)data)++;
  return 0;
}

uint64_t count_rows(const slotmap_s* sm) {
  uint64_t n = 0;
  CHECK_EQ_INT(slotmap_each(sm, count_cb, &n), SLATE_OK);
  return n;
}

int less_u32(const void* a, const void* b, void* data) {
  uint32_t x, y;
  (void)data;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  return x < y;
}

int less_rec_a(const void* a, const void* b, void* data) {
  if (data != NULL) (*(uint64_t*)data)++;
  return ((const rec_s*)a)->a < ((const rec_s*)b)->a;
}

int greater_rec_a(const void* a, const void* b, void* data) {
  (void)data;
  return ((const rec_s*)a)->a > ((const rec_s*)b)->a;
}

int always_less(const void* a, const void* b, void* data) {
  (void)a;
  (void)b;
  (void)data;
  return 1;
}

int always_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (void)data;
  return 1;
}

int never_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (void)data;
  return 0;
}

/* The slotmap holds exactly these keys in this row order with records
   `ids` (by slot: [D-key] fresh slots 0..n-1 hold ids 0..n-1 here). */
unsigned same_rows(const slotmap_s* sm, const slotmap_key* order, uint32_t n) {
  unsigned bad = 0;
  if (slotmap_length(sm) != n) return 1;
  for (uint32_t r = 0; r < n; r++) {
    if (slotmap_key_at(sm, r) != order[r]) bad++;
    if (!row3_is(sm, r, KEY_SLOT(order[r]))) bad++;
  }
  return bad + dense_problems(sm);
}
