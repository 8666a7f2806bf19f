/*
 * map/snapshot.c -- map snapshots through the C API (SPEC §6c): integer
 * values and codec values round trip into memory with slate_buffer_write,
 * the loaded map passes slate_check and equals the saved one, re-saves
 * have the same size, every truncation is CORRUPT, decode's and write's
 * failures are returned and every decoded value is discarded once, and
 * the argument and destination rules.
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -Iinclude c-tests/map/snapshot.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tm && /tmp/tm
 */
#include "slate.h"
#include "../support/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ENTRIES = 500 };

typedef struct image_s {
  unsigned char* bytes;
  size_t length;
} image_s;

static image_s save_map(const slate_s* map, const slate_value_codec_s* codec) {
  image_s out = {NULL, 0};
  uint64_t size = 0;
  slate_buffer_s buf;
  CHECK_EQ_INT(slate_save_size(map, codec, &size), SLATE_OK);
  buf.bytes = malloc((size_t)size);
  buf.capacity = (size_t)size;
  buf.length = 0;
  CHECK_EQ_INT(slate_save(map, codec, slate_buffer_write, &buf), SLATE_OK);
  CHECK_EQ_U64(buf.length, size);
  out.bytes = (unsigned char*)buf.bytes;
  out.length = buf.length;
  return out;
}

static int loaded_ok(const slate_s* map) {
  char message[128];
  return CHECK_EQ_INT(slate_check(map, message, sizeof message), SLATE_OK);
}

/* ---- integer values ---------------------------------------------------- */

static void fill(slate_s* map) {
  char key[32];
  static const unsigned char nul[5] = {'a', 0, 'b', 0, 0};
  for (int i = 0; i < ENTRIES; i++) {
    snprintf(key, sizeof key, "key %d", i);
    CHECK_EQ_INT(slate_set(map, key, (void*)(uintptr_t)i), SLATE_OK);
  }
  for (int64_t i = -20; i < 20; i++) {
    CHECK_EQ_INT(slate_set_i64(map, i * 1000003, (void*)(uintptr_t)(i + 100)), SLATE_OK);
  }
  CHECK_EQ_INT(slate_set_u64(map, UINT64_MAX, (void*)UINTPTR_MAX), SLATE_OK);
  CHECK_EQ_INT(slate_set_bytes(map, nul, sizeof nul, (void*)0), SLATE_OK);
  CHECK_EQ_INT(slate_set_bytes(map, nul, 0, (void*)7), SLATE_OK);
}

static int failing_write(void* context, const void* bytes, size_t length) {
  int* left = (int*)context;
  (void)bytes;
  (void)length;
  return --*left == 0 ? 99 : 0;
}

static void test_integer_values(void) {
  slate_s map, copy, other;
  slate_snapshot_info_s info;
  if (!CHECK_EQ_INT(slate(&map), SLATE_OK)) return;
  fill(&map);
  for (int i = 0; i < ENTRIES; i += 3) {
    char key[32];
    snprintf(key, sizeof key, "key %d", i);
    CHECK_EQ_INT(slate_delete(&map, key), SLATE_OK);
  }
  image_s img = save_map(&map, NULL);
  CHECK_EQ_INT(slate_snapshot_info(img.bytes, img.length, &info), SLATE_OK);
  CHECK_EQ_INT((int)info.kind, SLATE_SNAPSHOT_MAP);
  CHECK_EQ_INT((int)info.values, SLATE_SNAPSHOT_VALUES_INTEGERS);
  CHECK_EQ_U64(info.count, slate_length(&map));

  CHECK_EQ_INT(slate(&copy), SLATE_OK);
  CHECK_EQ_INT(slate_load(&copy, img.bytes, img.length, NULL), SLATE_OK);
  loaded_ok(&copy);
  CHECK_EQ_INT(slate_equal(&map, &copy), 1);
  image_s again = save_map(&copy, NULL);
  CHECK_EQ_U64(again.length, img.length);
  free(again.bytes);
  /* A loaded map holds memory: no second load. */
  CHECK_EQ_INT(slate_load(&copy, img.bytes, img.length, NULL), SLATE_ERROR_INVALID);

  /* Two destinations of one pinned seed: the same tables, the same bytes. */
  slate_s a, b;
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_INT(slate(&b), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(&a, 7), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(&b, 7), SLATE_OK);
  CHECK_EQ_INT(slate_load(&a, img.bytes, img.length, NULL), SLATE_OK);
  CHECK_EQ_INT(slate_load(&b, img.bytes, img.length, NULL), SLATE_OK);
  image_s ia = save_map(&a, NULL), ib = save_map(&b, NULL);
  CHECK(ia.length == ib.length && memcmp(ia.bytes, ib.bytes, ia.length) == 0);
  free(ia.bytes);
  free(ib.bytes);
  slate_free(&a);
  slate_free(&b);

  /* Every truncation is CORRUPT; the destination still holds nothing. */
  CHECK_EQ_INT(slate(&other), SLATE_OK);
  int all_corrupt = 1;
  for (size_t n = 0; n < img.length; n += 1 + n / 64) {
    if (slate_load(&other, img.bytes, n, NULL) != SLATE_ERROR_CORRUPT) all_corrupt = 0;
  }
  CHECK(all_corrupt);
  CHECK_EQ_U64(slate_length(&other), 0);
  /* One damaged byte: the checksum. */
  img.bytes[img.length / 2] ^= 0x10;
  CHECK_EQ_INT(slate_load(&other, img.bytes, img.length, NULL), SLATE_ERROR_CORRUPT);
  img.bytes[img.length / 2] ^= 0x10;
  CHECK_EQ_INT(slate_load(&other, img.bytes, img.length, NULL), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&map, &other), 1);
  slate_free(&other);

  /* A zero-filled map is a destination too. */
  slate_s zero;
  memset(&zero, 0, sizeof zero);
  CHECK_EQ_INT(slate_load(&zero, img.bytes, img.length, NULL), SLATE_OK);
  loaded_ok(&zero);
  CHECK_EQ_INT(slate_equal(&map, &zero), 1);
  slate_free(&zero);

  /* Arguments, and write's failures. */
  uint64_t size = 0;
  CHECK_EQ_INT(slate_save(NULL, NULL, slate_buffer_write, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_save(&map, NULL, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_save_size(NULL, NULL, &size), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_save_size(&map, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_load(NULL, img.bytes, img.length, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_load(&other, NULL, 5, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_load(&other, NULL, 0, NULL), SLATE_ERROR_CORRUPT);
  for (int k = 1; k <= 3; k++) {
    int left = k;
    CHECK_EQ_INT(slate_save(&map, NULL, failing_write, &left), 99);
  }
  unsigned char small[64];
  slate_buffer_s buf = {small, sizeof small, 0};
  CHECK_EQ_INT(slate_save(&map, NULL, slate_buffer_write, &buf), SLATE_ERROR_FULL);

  free(img.bytes);
  slate_free(&copy);
  slate_free(&map);
}

/* ---- codec values: malloc'd strings --------------------------------------- */

typedef struct counts_s {
  int decoded;
  int discarded;
  int fail_decode_at;
} counts_s;

static int encode_str(void* context, void* value, void* buffer, uint32_t capacity,
                      uint32_t* length) {
  size_t n = strlen((const char*)value);
  (void)context;
  *length = (uint32_t)n;
  if (n <= capacity && n > 0) memcpy(buffer, value, n);
  return 0;
}

static int decode_str(void* context, const void* bytes, uint32_t length, void** value) {
  counts_s* c = (counts_s*)context;
  if (c->fail_decode_at != 0 && c->decoded + 1 == c->fail_decode_at) return 123;
  char* s = (char*)malloc(length + 1);
  if (s == NULL) return SLATE_ERROR_ALLOC;
  if (length > 0) memcpy(s, bytes, length);
  s[length] = 0;
  *value = s;
  c->decoded++;
  return 0;
}

static void discard_str(void* context, void* value) {
  counts_s* c = (counts_s*)context;
  c->discarded++;
  free(value);
}

static int free_value(const char* key, uint32_t key_length, void* value, void* data) {
  (void)data;
  (void)key;
  (void)key_length;
  free(value);
  return 0;
}

static void test_codec_values(void) {
  counts_s counts = {0, 0, 0};
  slate_value_codec_s codec = {encode_str, decode_str, discard_str, &counts};
  slate_s map, copy;
  char key[32];
  if (!CHECK_EQ_INT(slate(&map), SLATE_OK)) return;
  for (int i = 0; i < 100; i++) {
    size_t n = (size_t)(i % 7 == 0 ? 0 : i * 53);
    char* s = (char*)malloc(n + 1);
    memset(s, 'a' + i % 26, n);
    s[n] = 0;
    snprintf(key, sizeof key, "v%d", i);
    CHECK_EQ_INT(slate_set(&map, key, s), SLATE_OK);
  }
  image_s img = save_map(&map, &codec);
  slate_snapshot_info_s info;
  CHECK_EQ_INT(slate_snapshot_info(img.bytes, img.length, &info), SLATE_OK);
  CHECK_EQ_INT((int)info.values, SLATE_SNAPSHOT_VALUES_CODEC);

  CHECK_EQ_INT(slate(&copy), SLATE_OK);
  CHECK_EQ_INT(slate_load(&copy, img.bytes, img.length, NULL), SLATE_ERROR_UNSUPPORTED);
  CHECK_EQ_INT(slate_load(&copy, img.bytes, img.length, &codec), SLATE_OK);
  loaded_ok(&copy);
  CHECK_EQ_INT(counts.decoded, 100);
  int same = 1;
  for (int i = 0; i < 100; i++) {
    void *a = NULL, *b = NULL;
    snprintf(key, sizeof key, "v%d", i);
    if (slate_get(&map, key, &a) != SLATE_OK || slate_get(&copy, key, &b) != SLATE_OK ||
        strcmp((const char*)a, (const char*)b) != 0)
      same = 0;
  }
  CHECK(same);
  image_s again = save_map(&copy, &codec);
  CHECK_EQ_U64(again.length, img.length);
  free(again.bytes);
  slate_each(&copy, free_value, NULL);
  slate_free(&copy);

  /* decode's non-zero return, at its third call: the earlier two discarded. */
  counts.decoded = counts.discarded = 0;
  counts.fail_decode_at = 3;
  CHECK_EQ_INT(slate_load(&copy, img.bytes, img.length, &codec), 123);
  CHECK_EQ_INT(counts.decoded, 2);
  CHECK_EQ_INT(counts.discarded, 2);
  CHECK_EQ_U64(slate_length(&copy), 0);
  counts.fail_decode_at = 0;
  /* A codec without decode cannot load; without encode cannot save. */
  slate_value_codec_s half = {encode_str, NULL, NULL, &counts};
  CHECK_EQ_INT(slate_load(&copy, img.bytes, img.length, &half), SLATE_ERROR_INVALID);
  half.encode = NULL;
  half.decode = decode_str;
  uint64_t size = 0;
  CHECK_EQ_INT(slate_save_size(&map, &half, &size), SLATE_ERROR_INVALID);
  /* A codec image saved with integers is the other kind. */
  image_s ints = save_map(&map, NULL);
  CHECK_EQ_INT(slate_load(&copy, ints.bytes, ints.length, &codec), SLATE_ERROR_UNSUPPORTED);
  free(ints.bytes);

  free(img.bytes);
  slate_each(&map, free_value, NULL);
  slate_free(&map);
}

int main(void) {
  test_integer_values();
  test_codec_values();
  return TEST_SUMMARY();
}
