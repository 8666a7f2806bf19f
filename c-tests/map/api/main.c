/*
 * map/api -- the slate map API of SPEC sections 1-3 and 6, and the design
 * of section 4 as seen through the introspection calls (slate_info,
 * slate_table_info, slate_table_ctrl, slate_check).
 *
 * One program of the units in c-tests/map/api/, one concept each (api.h
 * says which); this one runs their tests in order. The same units are
 * compiled as C11 and as C++17:
 *   gcc -std=c11 -Wall -Wextra -Werror -Iinclude c-tests/map/api/[a-z]*.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/t && /tmp/t
 *   g++ -std=c++17 -Wall -Wextra -Werror -Iinclude -x c++ c-tests/map/api/[a-z]*.c \
 *       -x none target/release/libslate.a -lpthread -ldl -lm -o /tmp/tpp && /tmp/tpp
 *
 * The last line on stdout is "N passed, M failed"; the exit status is 0 only
 * when M is 0.  Section names and failure details go to stderr.
 */
#define SLATE_IMPLEMENTATION
#define TEST_MAIN /* this unit holds test.h's counters */
#include "api.h"

int main(void) {
  test_version();
  test_sizes_and_limits();
  test_init_and_empty();
  test_invalid_arguments();
  test_strerror();
  test_string_keys();
  test_byte_keys();
  test_keyspaces();
  test_integer_tables();
  test_each();
  test_merge();
  test_reentrancy();
  test_reinit_inside_walk();
  test_delete_if();
  test_equal();
  test_small_map();
  test_growth();
  test_tombstones();
  test_clear();
  test_compact();
  test_clone();
  test_free();
  test_reserve();
  test_memcpy_move();
  test_seeds();
  test_check_reports();
  test_table_ctrls();
  test_entry();
  test_take();
  test_key_decoding();
  test_pin_seed();
  test_cursors();
  test_allocators();
  return TEST_SUMMARY();
}
