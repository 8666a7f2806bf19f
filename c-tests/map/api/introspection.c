/* map/api: seeds, slate_check on a corrupted copy of a map, and
 * slate_table_ctrls. */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* seeds                                                                     */
/* ------------------------------------------------------------------------ */

void test_seeds(void) {
  TEST_SECTION("seeds");
  enum { MAPS = 64 };
  static slate_s maps[MAPS];
  uint64_t seeds[MAPS];
  for (int i = 0; i < MAPS; i++) {
    CHECK_EQ_INT(slate(&maps[i]), SLATE_OK);
    CHECK_EQ_INT(slate_set_u64(&maps[i], 1, V(1)), SLATE_OK);
    seeds[i] = info_of(&maps[i]).seed;
  }
  int duplicates = 0;
  for (int i = 0; i < MAPS; i++)
    for (int j = i + 1; j < MAPS; j++)
      if (seeds[i] == seeds[j]) duplicates++;
  CHECK_EQ_INT(duplicates, 0);
  for (int i = 0; i < MAPS; i++) slate_free(&maps[i]);

  /* a map that becomes empty takes a fresh seed */
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "one", V(1)), SLATE_OK);
  uint64_t s1 = info_of(&m).seed;
  CHECK_EQ_INT(slate_set(&m, "two", V(2)), SLATE_OK);
  CHECK_EQ_U64(info_of(&m).seed, s1);
  CHECK_EQ_INT(slate_delete(&m, "one"), SLATE_OK);
  CHECK_EQ_U64(info_of(&m).seed, s1);
  CHECK_EQ_INT(slate_delete(&m, "two"), SLATE_OK);
  uint64_t s2 = info_of(&m).seed;
  CHECK_NE_U64(s2, s1);
  /* ... also a big one */
  CHECK_EQ_U64(fill_u64(&m, 0, 2000), 0);
  uint64_t s3 = info_of(&m).seed;
  for (uint64_t k = 0; k < 1999; k++) CHECK_EQ_INT(slate_delete_u64(&m, k), SLATE_OK);
  CHECK_EQ_U64(info_of(&m).seed, s3);
  CHECK_EQ_INT(slate_delete_u64(&m, 1999), SLATE_OK);
  CHECK_NE_U64(info_of(&m).seed, s3);
  CHECK_EQ_U64(slate_length(&m), 0);
  verify_structure(&m, 1);
  CHECK_EQ_U64(fill_u64(&m, 0, 2000), 0);
  CHECK_EQ_U64(missing_u64(&m, 0, 2000, 1), 0);
  verify_structure(&m, 0);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* slate_check on a corrupted copy of a map                                  */
/* ------------------------------------------------------------------------ */

void test_check_reports(void) {
  TEST_SECTION("slate_check reports a broken map");
  slate_s m;
  const uint64_t n = 12345;
  memset(&m, 0, sizeof m); /* slate() need not write every private byte */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(fill_u64(&m, 0, n), 0);
  char message[256];
  CHECK_EQ_INT(slate_check(&m, message, (uint32_t)sizeof message), SLATE_OK);

  /* find the length field in the struct by its value; corrupt a copy */
  unsigned char bytes[sizeof(slate_s)];
  memcpy(bytes, &m, sizeof m);
  size_t where = 0;
  int found = 0;
  for (size_t off = 0; off + 8 <= sizeof bytes; off += 4) {
    uint64_t x;
    memcpy(&x, bytes + off, 8);
    if (x == n) {
      found++;
      where = off;
    }
  }
  if (found == 1) {
    uint64_t wrong = n + 1;
    slate_s broken;
    memcpy(bytes + where, &wrong, 8);
    memcpy(&broken, bytes, sizeof broken);
    memset(message, 0, sizeof message);
    CHECK_EQ_INT(slate_check(&broken, message, (uint32_t)sizeof message), SLATE_ERROR_INVALID);
    CHECK(message[0] != '\0');
    fprintf(stderr, "   slate_check says: %s\n", message);
    /* truncated to the capacity and NUL-terminated */
    memset(message, 'x', sizeof message);
    CHECK_EQ_INT(slate_check(&broken, message, 5), SLATE_ERROR_INVALID);
    CHECK(memchr(message, '\0', 5) != NULL);
    CHECK_EQ_INT(message[5], 'x');
    memset(message, 'x', sizeof message);
    CHECK_EQ_INT(slate_check(&broken, message, 1), SLATE_ERROR_INVALID);
    CHECK_EQ_INT(message[0], '\0');
    CHECK_EQ_INT(message[1], 'x');
    CHECK_EQ_INT(slate_check(&broken, NULL, 0), SLATE_ERROR_INVALID);
    /* `broken` shares m's memory: it is never freed */
  } else {
    fprintf(stderr, "   (length field not located in slate_s: corruption test skipped)\n");
  }
  CHECK_MAP_OK(&m);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */

/* slate_table_ctrls returns, in one call, exactly the words slate_table_ctrl
   returns one group at a time; and the walk order is the layout's. */
void test_table_ctrls(void) {
  TEST_SECTION("slate_table_ctrls and the walk order");
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  uint64_t words[128];
  CHECK_EQ_INT(slate_table_ctrls(&m, 0, words, 1), SLATE_ERROR_NOT_FOUND); /* no table yet */
  for (uint64_t i = 0; i < 5000; i++) slate_set_u64(&m, i * 2654435761u, (void*)(uintptr_t)(i + 1));
  slate_info_s in = info_of(&m);
  CHECK(in.tables > 1);
  int same = 1;
  uint64_t full = 0;
  for (uint32_t t = 0; t < in.tables; t++) {
    slate_table_info_s ti;
    if (slate_table_info(&m, t, &ti) != SLATE_OK) { same = 0; break; }
    if (slate_table_ctrls(&m, t, words, ti.groups) != SLATE_OK) { same = 0; break; }
    for (uint32_t g = 0; g < ti.groups; g++) {
      uint64_t one = 0;
      if (slate_table_ctrl(&m, t, g, &one) != SLATE_OK || one != words[g]) same = 0;
      for (int b = 0; b < 8; b++) full += ((words[g] >> (8 * b)) & 0x80) == 0;
    }
    if (t == 0) {
      CHECK_EQ_INT(slate_table_ctrls(&m, t, words, ti.groups + 1), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slate_table_ctrls(&m, t, NULL, 1), SLATE_ERROR_INVALID);
      CHECK_EQ_INT(slate_table_ctrls(&m, t, words, 0), SLATE_OK);
    }
  }
  CHECK(same);
  CHECK_EQ_U64(full, slate_length(&m));
  CHECK_EQ_INT(slate_table_ctrls(&m, in.tables, words, 1), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_table_ctrls(NULL, 0, words, 1), SLATE_ERROR_INVALID);
  slate_free(&m);
}
