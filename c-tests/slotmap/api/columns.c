/* slotmap/api: rows and columns -- every element size, and slotmaps of
 * several columns. */
#include "slotmap.h"

/* ------------------------------------------------------------------------ */
/* every element size: insert and erase copy rows of each size exactly      */
/* ------------------------------------------------------------------------ */

/* Element sizes 1..40 and 64: the fast paths (one column of 4, 8, 12 or 16
 * bytes) and every other size, through inserts of given and NULL rows and
 * swap-and-pop erases; every surviving row must hold its own bytes. */
void test_every_element_size(void) {
  TEST_SECTION("every element size: rows copied in and moved exactly");
  enum { N = 64 };
  unsigned bad = 0;
  for (uint32_t size = 1; size <= 64; size++) {
    if (size > 40 && size != 64) continue;
    slotmap_s sm;
    slotmap_key keys[N];
    unsigned char in[64], want[64];
    if (slotmap(&sm, size) != SLATE_OK) {
      bad++;
      continue;
    }
    for (uint32_t n = 0; n < N; n++) {
      /* every third row NULL (zeroed), the others a pattern per row */
      for (uint32_t b = 0; b < size; b++) in[b] = (unsigned char)(n * 7 + b + 1);
      if (slotmap_insert(&sm, n % 3 == 2 ? NULL : in, &keys[n]) != SLATE_OK) bad++;
    }
    /* erase the even rows: each erase moves the last row into the hole */
    for (uint32_t n = 0; n < N; n += 2)
      if (slotmap_erase(&sm, keys[n]) != SLATE_OK) bad++;
    if (slotmap_length(&sm) != N / 2) bad++;
    for (uint32_t n = 0; n < N; n++) {
      void* e = NULL;
      int rc = slotmap_get(&sm, keys[n], &e);
      if (n % 2 == 0) {
        if (rc != SLATE_ERROR_NOT_FOUND) bad++;
        continue;
      }
      for (uint32_t b = 0; b < size; b++) want[b] = n % 3 == 2 ? 0 : (unsigned char)(n * 7 + b + 1);
      if (rc != SLATE_OK || memcmp(e, want, size) != 0) bad++;
    }
    slotmap_free(&sm);
  }
  CHECK_EQ_INT(bad, 0);
}

/* ------------------------------------------------------------------------ */
/* columns                                                                   */
/* ------------------------------------------------------------------------ */

void test_columns(void) {
  TEST_SECTION("columns: packed rows, NULL rows, alignment, rows stay together");
  slotmap_s sm;
  enum { N = 3000 };
  static slotmap_key keys[N];
  unsigned bad = 0;
  CHECK_EQ_INT(slotmap_columns(&sm, SIZES3, 3), SLATE_OK);
  CHECK_EQ_PTR(slotmap_column(&sm, 0), NULL); /* [D-column] nothing allocated yet */
  for (uint64_t i = 0; i < 100; i++) keys[i] = put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  for (int c = 0; c < 3; c++) {
    CHECK(slotmap_column(&sm, (uint32_t)c) != NULL);
    CHECK(aligned16(slotmap_column(&sm, (uint32_t)c)));
  }
  CHECK_EQ_PTR(slotmap_column(&sm, 3), NULL); /* out of range */
  CHECK_EQ_PTR(slotmap_column(&sm, 16), NULL);
  CHECK_EQ_PTR(slotmap_column(&sm, UINT32_MAX), NULL);
  /* the packed row's fields landed in their columns, at the key's row */
  for (uint64_t i = 0; i < 100; i++)
    if (!key3_is(&sm, keys[i], i) || !row3_is(&sm, (uint32_t)i, i)) bad++;
  CHECK_EQ_INT(bad, 0);

  /* a NULL row is zeros in every column, also where old rows left data */
  for (int i = 0; i < 10; i++) CHECK_EQ_INT(slotmap_erase(&sm, keys[99 - i]), SLATE_OK);
  slotmap_key z = 0;
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &z), SLATE_OK);
  {
    uint32_t r = SENTINEL_ROW;
    rec_s zero_rec;
    memset(&zero_rec, 0, sizeof zero_rec);
    CHECK_EQ_INT(slotmap_row(&sm, z, &r), SLATE_OK);
    CHECK_EQ_U64(r, 90); /* the row that held record 90 */
    CHECK_EQ_MEM((const rec_s*)slotmap_column(&sm, 0) + r, &zero_rec, sizeof zero_rec);
    CHECK_EQ_U64(((const uint64_t*)slotmap_column(&sm, 1))[r], 0);
    CHECK_EQ_U64(((const uint8_t*)slotmap_column(&sm, 2))[r], 0);
  }
  CHECK_EQ_INT(slotmap_erase(&sm, z), SLATE_OK);

  /* grow through several reallocations: still aligned, still together */
  for (uint64_t i = 90; i < N; i++) keys[i] = put3(&sm, i, &bad);
  CHECK_EQ_INT(bad, 0);
  for (int c = 0; c < 3; c++) CHECK(aligned16(slotmap_column(&sm, (uint32_t)c)));
  /* erase every third, then sort by rec.a: row r of every column still
     belongs to the same key */
  for (uint64_t i = 0; i < N; i += 3) CHECK_EQ_INT(slotmap_erase(&sm, keys[i]), SLATE_OK);
  for (uint64_t i = 0; i < N; i++)
    if (i % 3 == 0 ? !is_stale(&sm, keys[i]) : !key3_is(&sm, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(slotmap_sort(&sm, less_rec_a, NULL), SLATE_OK);
  for (int c = 0; c < 3; c++) CHECK(aligned16(slotmap_column(&sm, (uint32_t)c)));
  for (uint64_t i = 0; i < N; i++)
    if (i % 3 == 0 ? !is_stale(&sm, keys[i]) : !key3_is(&sm, keys[i], i)) bad++;
  CHECK_EQ_INT(bad, 0);
  /* and each row's id column names the record its key was inserted with */
  {
    uint32_t n = slotmap_length(&sm);
    const uint64_t* ids = (const uint64_t*)slotmap_column(&sm, 1);
    for (uint32_t r = 0; r < n; r++)
      if (slotmap_key_at(&sm, r) != keys[ids[r]] || !row3_is(&sm, r, ids[r])) bad++;
    CHECK_EQ_INT(bad, 0);
  }
  CHECK_EQ_INT(dense_problems(&sm), 0);
  slotmap_free(&sm);

  /* 16 columns of sizes 1..16 (136-byte packed rows), each aligned, each
     with stride equal to its size */
  {
    uint32_t sizes[16];
    unsigned char row[136];
    slotmap_key k16[50];
    for (uint32_t c = 0; c < 16; c++) sizes[c] = c + 1;
    CHECK_EQ_INT(slotmap_columns(&sm, sizes, 16), SLATE_OK);
    for (uint32_t i = 0; i < 50; i++) {
      for (uint32_t b = 0; b < 136; b++) row[b] = (unsigned char)(i * 31u + b * 7u + 1u);
      k16[i] = 0;
      if (slotmap_insert(&sm, row, &k16[i]) != SLATE_OK) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_PTR(slotmap_column(&sm, 16), NULL);
    for (uint32_t c = 0; c < 16; c++) CHECK(aligned16(slotmap_column(&sm, c)));
    /* erase a few so rows move, then verify every byte */
    CHECK_EQ_INT(slotmap_erase(&sm, k16[0]), SLATE_OK);
    CHECK_EQ_INT(slotmap_erase(&sm, k16[17]), SLATE_OK);
    for (uint32_t i = 1; i < 50; i++) {
      uint32_t r = SENTINEL_ROW, offset = 0;
      if (i == 17) continue;
      if (slotmap_row(&sm, k16[i], &r) != SLATE_OK) {
        bad++;
        continue;
      }
      for (uint32_t c = 0; c < 16; c++) {
        const unsigned char* el =
            (const unsigned char*)slotmap_column(&sm, c) + (size_t)r * sizes[c];
        for (uint32_t b = 0; b < sizes[c]; b++)
          if (el[b] != (unsigned char)(i * 31u + (offset + b) * 7u + 1u)) bad++;
        offset += sizes[c];
      }
    }
    CHECK_EQ_INT(bad, 0);
    slotmap_free(&sm);
  }
}
