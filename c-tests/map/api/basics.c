/* map/api: the version, the sizes and limits that mean the same on every
 * target, and a map from init through empty. */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* version                                                                  */
/* ------------------------------------------------------------------------ */

void test_version(void) {
  TEST_SECTION("version");
  /* The library's version is the header's, and the header's string is
   * made of its three numbers. */
  const char* v = slate_version();
  CHECK(v != NULL);
  CHECK_EQ_STR(v, SLATE_VERSION_STRING);
  char parts[64];
  snprintf(parts, sizeof parts, "%d.%d.%d", SLATE_VERSION_MAJOR, SLATE_VERSION_MINOR,
           SLATE_VERSION_PATCH);
  CHECK_EQ_STR(parts, SLATE_VERSION_STRING);
  CHECK(slate_version() == v); /* static: the same string every time */
}

/* ------------------------------------------------------------------------ */
/* sizes and limits                                                         */
/* ------------------------------------------------------------------------ */

/* Records the bytes of the one key a walk sees. */
typedef struct one_key_s {
  unsigned char bytes[16];
  uint32_t length, calls;
} one_key_s;

static int one_key_cb(const char* key, uint32_t key_length, void* value, void* data) {
  one_key_s* k = (one_key_s*)data;
  (void)value;
  k->calls++;
  k->length = key_length;
  if (key_length <= sizeof k->bytes) memcpy(k->bytes, key, key_length);
  return 0;
}

void test_sizes_and_limits(void) {
  TEST_SECTION("sizes and limits: the same meaning on 32- and 64-bit targets");
  /* The structs are the same size everywhere (their fields are u64s), so a
   * struct embedding them has one layout on wasm32, i686 and x86-64. */
  CHECK_EQ_U64(sizeof(slate_s), 64);
  CHECK_EQ_U64(sizeof(slotmap_s), 192);
  CHECK_EQ_U64(sizeof(slotmap_key), 8);
  /* An integer key is the same 10 bytes on every target: little-endian. */
  slate_s m;
  one_key_s k;
  const unsigned char want[10] = {0x00, 0x02, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01};
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&m, UINT64_C(0x0102030405060708), V(1)), SLATE_OK);
  memset(&k, 0, sizeof k);
  CHECK_EQ_INT(slate_each(&m, one_key_cb, &k), SLATE_OK);
  CHECK_EQ_INT(k.calls, 1);
  CHECK_EQ_INT(k.length, 10);
  CHECK_EQ_MEM(k.bytes, want, 10);
  CHECK_EQ_INT(slate_get_bytes(&m, want, 10, NULL), SLATE_OK);

  /* Sizes no memory can hold are errors that change nothing, never a size
   * that wrapped around to a small allocation. 2^31 rows of 4 GiB each pass
   * every address space. */
  slotmap_s sm;
  uint32_t e = 5;
  slotmap_key key = 0;
  CHECK_EQ_INT(slotmap(&sm, UINT32_MAX), SLATE_OK);
  CHECK_EQ_INT(slotmap_reserve(&sm, UINT32_C(1) << 31), SLATE_ERROR_FULL);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  slotmap_free(&sm);
  /* 2^31 rows of 1 MiB: no allocator has 2 PiB (FULL where the address
   * space is smaller). */
  CHECK_EQ_INT(slotmap(&sm, UINT32_C(1) << 20), SLATE_OK);
  int rc = slotmap_reserve(&sm, UINT32_C(1) << 31);
  CHECK(rc == SLATE_ERROR_FULL || rc == SLATE_ERROR_ALLOC);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  slotmap_free(&sm);
  CHECK_EQ_INT(slotmap(&sm, sizeof e), SLATE_OK);
  CHECK_EQ_INT(slotmap_insert(&sm, &e, &key), SLATE_OK);
  CHECK_EQ_INT(slotmap_contains(&sm, key), 1);
  slotmap_free(&sm);
#if defined(__linux__) || SIZE_MAX <= UINT32_MAX
  /* Maps of 2^34 and 2^41 entries (tables of 860 GB and 56 PB) exceed this
   * machine's memory (Linux tells it) or address space: SLATE_ERROR_FULL
   * before anything is allocated, rather than table after table until an
   * overcommitting system kills the process. */
  for (int shift = 34; shift <= 41; shift += 7) {
    slate_info_s was = info_of(&m);
    CHECK_EQ_INT(slate_reserve(&m, UINT64_C(1) << shift), SLATE_ERROR_FULL);
    CHECK_EQ_U64(info_of(&m).memory, was.memory);
    CHECK_EQ_U64(info_of(&m).capacity, was.capacity);
  }
#endif
#if SIZE_MAX <= UINT32_MAX
  /* 32-bit targets: 2^32 entries' tables (2^23 of them, 200 GB) and a
   * slotmap's first block of 1 GiB rows (8 GiB) exceed the address space. */
  slate_info_s before = info_of(&m);
  CHECK_EQ_INT(slate_reserve(&m, UINT64_C(1) << 32), SLATE_ERROR_FULL);
  CHECK_EQ_U64(info_of(&m).memory, before.memory);
  CHECK_EQ_U64(info_of(&m).capacity, before.capacity);
  CHECK_EQ_INT(slotmap(&sm, UINT32_C(1) << 30), SLATE_OK);
  CHECK_EQ_INT(slotmap_insert(&sm, NULL, &key), SLATE_ERROR_FULL);
  CHECK_EQ_U64(slotmap_length(&sm), 0);
  slotmap_free(&sm);
#endif
  CHECK_EQ_U64(slate_length(&m), 1);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* init, empty maps                                                          */
/* ------------------------------------------------------------------------ */

void test_init_and_empty(void) {
  TEST_SECTION("init and empty map");
  slate_s m, e, c;
  memset(&m, 0xCD, sizeof m); /* slate() accepts uninitialized memory */
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 0);
  slate_info_s in = info_of(&m);
  CHECK_EQ_U64(in.length, 0);
  CHECK_EQ_U64(in.capacity, 0);
  CHECK_EQ_U64(in.tombstones, 0);
  CHECK_EQ_U64(in.memory, 0);
  CHECK_EQ_INT(in.global_depth, 0);
  CHECK_EQ_INT(in.tables, 0);
  CHECK_EQ_INT(in.directory, 0);
  CHECK_EQ_INT(in.small, 0);
  slate_table_info_s ti;
  CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_ERROR_NOT_FOUND);
  uint64_t word = 0;
  CHECK_NE_INT(slate_table_ctrl(&m, 0, 0, &word), SLATE_OK);
  CHECK_MAP_OK(&m);
  verify_structure(&m, 1);

  void* v = SENTINEL;
  unsigned char raw[10];
  encode_u64(raw, 1);
  CHECK_EQ_INT(slate_get(&m, "a", &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_bytes(&m, "a", 1, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_bytes(&m, NULL, 0, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_bytes(&m, raw, 10, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_i64(&m, 1, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get_u64(&m, 1, &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_get(&m, "a", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete(&m, "a"), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete_bytes(&m, "a", 1), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete_bytes(&m, NULL, 0), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete_i64(&m, 1), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete_u64(&m, 1), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(count_entries(&m), 0);
  int calls = 0;
  CHECK_EQ_INT(slate_each(&m, always_cb, &calls), SLATE_OK);
  CHECK_EQ_INT(slate_delete_if(&m, always_cb, &calls), SLATE_OK);
  CHECK_EQ_INT(calls, 0);
  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  CHECK_EQ_INT(slate_reserve(&m, 0), SLATE_OK);
  in = info_of(&m);
  CHECK_EQ_U64(in.length, 0);
  CHECK_EQ_U64(in.capacity, 0);
  CHECK_EQ_U64(in.memory, 0);
  CHECK_EQ_INT(slate_equal(&m, &m), 1);
  CHECK_EQ_INT(slate(&e), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&m, &e), 1);
  CHECK_EQ_INT(slate_equal(&e, &m), 1);

  memset(&c, 0xAB, sizeof c); /* clone accepts an uninitialized destination */
  CHECK_EQ_INT(slate_clone(&c, &m), SLATE_OK);
  CHECK_EQ_U64(slate_length(&c), 0);
  CHECK_EQ_INT(slate_equal(&c, &m), 1);
  CHECK_EQ_INT(slate_set(&c, "only-in-clone", V(3)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&c), 1);
  CHECK_EQ_U64(slate_length(&m), 0);
  CHECK_EQ_INT(slate_equal(&c, &m), 0);
  slate_free(&c);
  slate_free(&e);

  /* the drop-in example of SPEC section 1 */
  CHECK_EQ_INT(slate_set(&m, "answer", V(42)), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "answer", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(42));
  slate_free(&m);
  CHECK_EQ_U64(slate_length(&m), 0);
  slate_free(&m);
  CHECK_EQ_U64(slate_length(&m), 0);
}
