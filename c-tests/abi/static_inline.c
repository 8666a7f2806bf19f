/*
 * abi/static_inline.c -- a program that defines SLATE_API as
 * "static inline" before including slate.h (the original single-header
 * library used it to keep the implementation private to one file) must still
 * compile without warnings and link against the library: the declarations in
 * the header do not take their linkage from the user's SLATE_API.
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -Iinclude c-tests/abi/static_inline.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tsi && /tmp/tsi
 *   g++ -std=c++17 -x c++ -Wall -Wextra -Werror -Iinclude c-tests/abi/static_inline.c \
 *       -x none target/release/libslate.a -lpthread -ldl -lm -o /tmp/tsipp && /tmp/tsipp
 */
#define SLATE_API static inline
#define SLATE_IMPLEMENTATION
#include "slate.h"
#include "../support/test.h"

#include <stdint.h>

#define V(n) ((void*)(uintptr_t)(n))

static int sum_cb(const char* key, uint32_t length, void* value, void* data) {
  (void)key;
  (void)length;
  *(uintptr_t*)data += (uintptr_t)value;
  return 0;
}

int main(void) {
  slate_s map, copy;
  void* v = NULL;
  uintptr_t sum = 0;
  slate_info_s info;
  char message[128];

  CHECK_EQ_INT(slate(&map), SLATE_OK);
  CHECK_EQ_INT(slate_set(&map, "answer", V(42)), SLATE_OK);
  CHECK_EQ_INT(slate_set_bytes(&map, "a\0b", 3, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_set_i64(&map, -5, V(2)), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&map, 5, V(3)), SLATE_OK);
  CHECK_EQ_INT(slate_get(&map, "answer", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(42));
  CHECK_EQ_INT(slate_get_i64(&map, -5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));
  CHECK_EQ_INT(slate_get_u64(&map, 5, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));
  CHECK_EQ_INT(slate_get_bytes(&map, "a\0b", 3, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_U64(slate_length(&map), 4);
  CHECK_EQ_INT(slate_each(&map, sum_cb, &sum), SLATE_OK);
  CHECK_EQ_U64(sum, 42 + 1 + 2 + 3);
  CHECK_EQ_INT(slate_clone(&copy, &map), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&copy, &map), 1);
  CHECK_EQ_INT(slate_delete(&map, "answer"), SLATE_OK);
  CHECK_EQ_INT(slate_get(&map, "answer", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_equal(&copy, &map), 0);
  CHECK_EQ_INT(slate_info(&map, &info), SLATE_OK);
  CHECK_EQ_U64(info.length, 3);
  CHECK_EQ_INT(slate_check(&map, message, (uint32_t)sizeof message), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&map, 100), SLATE_OK);
  CHECK_EQ_INT(slate_compact(&map), SLATE_OK);
  CHECK_EQ_INT(slate_clear(&map), SLATE_OK);
  CHECK_EQ_U64(slate_length(&map), 0);
  slate_free(&copy);
  slate_free(&map);
  return TEST_SUMMARY();
}
