/* map/api: every call with a NULL or invalid argument returns its error
 * and changes nothing. */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* invalid arguments                                                         */
/* ------------------------------------------------------------------------ */

void test_invalid_arguments(void) {
  TEST_SECTION("invalid arguments");
  slate_s m;
  slate_s c;
  void* v = SENTINEL;
  char message[64];
  slate_info_s in;
  slate_table_info_s ti;
  uint64_t word = 0;

  CHECK_EQ_INT(slate(NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "present", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&m, 7, V(2)), SLATE_OK);

  CHECK_EQ_INT(slate_reserve(NULL, 10), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set(NULL, "k", V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set(&m, NULL, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get(NULL, "present", &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get(&m, NULL, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_delete(NULL, "present"), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete(&m, NULL), SLATE_ERROR_INVALID);

  CHECK_EQ_INT(slate_set_bytes(NULL, "k", 1, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_bytes(&m, NULL, 1, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_bytes(&m, NULL, 0xFFFFFFFFu, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_bytes(NULL, "present", 7, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_bytes(&m, NULL, 7, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_delete_bytes(NULL, "present", 7), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_bytes(&m, NULL, 7), SLATE_ERROR_INVALID);

  CHECK_EQ_INT(slate_set_i64(NULL, 1, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_i64(NULL, 1, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_delete_i64(NULL, 1), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_set_u64(NULL, 7, V(1)), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_get_u64(NULL, 7, &v), SLATE_ERROR_INVALID);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_delete_u64(NULL, 7), SLATE_ERROR_INVALID);

  CHECK_EQ_INT(slate_each(NULL, noop_cb, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_each(&m, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_if(NULL, always_cb, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_delete_if(&m, NULL, NULL), SLATE_ERROR_INVALID);

  CHECK_EQ_INT(slate_equal(NULL, &m), 0);
  CHECK_EQ_INT(slate_equal(&m, NULL), 0);
  CHECK_EQ_INT(slate_equal(NULL, NULL), 0);
  CHECK_EQ_U64(slate_length(NULL), 0);
  CHECK_EQ_INT(slate_clear(NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_compact(NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_clone(NULL, &m), SLATE_ERROR_INVALID);
  memset(&c, 0, sizeof c);
  CHECK_EQ_INT(slate_clone(&c, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_clone(&m, &m), SLATE_ERROR_INVALID); /* copy == map */
  slate_free(NULL); /* no-op, must not crash */

  CHECK_EQ_INT(slate_info(NULL, &in), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_info(&m, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_table_info(NULL, 0, &ti), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_table_info(&m, 0, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_table_ctrl(NULL, 0, 0, &word), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_table_ctrl(&m, 0, 0, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_check(NULL, message, (uint32_t)sizeof message), SLATE_ERROR_INVALID);

  /* slate_use_allocator: all three or none */
  CHECK_EQ_INT(slate_use_allocator(malloc, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(NULL, calloc, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(NULL, NULL, free), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(malloc, calloc, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(malloc, NULL, free), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(NULL, calloc, free), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_use_allocator(malloc, calloc, free), SLATE_OK);
  CHECK_EQ_INT(slate_use_allocator(NULL, NULL, NULL), SLATE_OK);

  /* the failed calls changed nothing */
  CHECK_EQ_U64(slate_length(&m), 2);
  CHECK_EQ_INT(slate_get(&m, "present", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(slate_get_u64(&m, 7, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_MAP_OK(&m);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* slate_strerror                                                            */
/* ------------------------------------------------------------------------ */

/* Every code names itself, and the same static sentence comes back each
   time; anything else is the one unknown-code sentence. */
void test_strerror(void) {
  TEST_SECTION("slate_strerror");
  static const struct {
    int code;
    const char* name;
  } codes[] = {
      {SLATE_OK, "SLATE_OK: "},
      {SLATE_ERROR_NOT_FOUND, "SLATE_ERROR_NOT_FOUND: "},
      {SLATE_ERROR_INVALID, "SLATE_ERROR_INVALID: "},
      {SLATE_ERROR_ALLOC, "SLATE_ERROR_ALLOC: "},
      {SLATE_ERROR_FULL, "SLATE_ERROR_FULL: "},
      {SLATE_ERROR_CORRUPT, "SLATE_ERROR_CORRUPT: "},
      {SLATE_ERROR_UNSUPPORTED, "SLATE_ERROR_UNSUPPORTED: "},
  };
  const size_t n = sizeof codes / sizeof codes[0];
  for (size_t i = 0; i < n; i++) {
    const char* s = slate_strerror(codes[i].code);
    if (!CHECK(s != NULL)) continue;
    CHECK_MSG(strncmp(s, codes[i].name, strlen(codes[i].name)) == 0, codes[i].name);
    CHECK(strlen(s) > strlen(codes[i].name) + 5); /* a sentence follows the name */
    CHECK_EQ_PTR(slate_strerror(codes[i].code), s);
    for (size_t j = 0; j < i; j++) CHECK(strcmp(slate_strerror(codes[j].code), s) != 0);
  }
  CHECK_EQ_INT(strcmp(slate_strerror(SLATE_ERROR_NOT_FOUND), "SLATE_ERROR_NOT_FOUND: the key is not there"), 0);
  static const int unknown[] = {2, 3, -6, 100, -100, INT_MAX, INT_MIN};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    const char* s = slate_strerror(unknown[i]);
    if (CHECK(s != NULL)) CHECK_EQ_INT(strcmp(s, "unknown slate error code"), 0);
  }
}
