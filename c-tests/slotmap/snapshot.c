/*
 * slotmap/snapshot.c -- slotmap and sparse-set snapshots through the C API
 * (SPEC §6c): round trips into memory with slate_buffer_write, keys that
 * keep their meaning, identical re-saves, every truncation CORRUPT,
 * slate_snapshot_info over a save file of two snapshots, and the
 * argument and destination rules.
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -Iinclude c-tests/slotmap/snapshot.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/ts && /tmp/ts
 */
#include "slate.h"
#include "../support/test.h"

#include <stdlib.h>
#include <string.h>

enum { ROWS = 300 };

typedef struct image_s {
  unsigned char* bytes;
  size_t length;
} image_s;

static image_s save_slotmap(const slotmap_s* sm) {
  image_s out = {NULL, 0};
  uint64_t size = slotmap_save_size(sm);
  slate_buffer_s buf;
  buf.bytes = malloc((size_t)size);
  buf.capacity = (size_t)size;
  buf.length = 0;
  CHECK_EQ_INT(slotmap_save(sm, slate_buffer_write, &buf), SLATE_OK);
  CHECK_EQ_U64(buf.length, size);
  out.bytes = (unsigned char*)buf.bytes;
  out.length = buf.length;
  return out;
}

static image_s save_sparse(const slotmap_sparse_s* sp) {
  image_s out = {NULL, 0};
  uint64_t size = slotmap_sparse_save_size(sp);
  slate_buffer_s buf;
  buf.bytes = malloc((size_t)size);
  buf.capacity = (size_t)size;
  buf.length = 0;
  CHECK_EQ_INT(slotmap_sparse_save(sp, slate_buffer_write, &buf), SLATE_OK);
  CHECK_EQ_U64(buf.length, size);
  out.bytes = (unsigned char*)buf.bytes;
  out.length = buf.length;
  return out;
}

static const uint32_t SIZES[2] = {8, 3};

static void test_slotmap_round_trip(void) {
  slotmap_s a, b;
  slotmap_key keys[ROWS];
  unsigned char row[11];
  char message[128];
  CHECK_EQ_INT(slotmap_columns(&a, SIZES, 2), SLATE_OK);
  for (int i = 0; i < ROWS; i++) {
    memset(row, i & 0xFF, sizeof row);
    CHECK_EQ_INT(slotmap_insert(&a, row, &keys[i]), SLATE_OK);
  }
  for (int i = 0; i < ROWS; i += 3) CHECK_EQ_INT(slotmap_erase(&a, keys[i]), SLATE_OK);
  image_s img = save_slotmap(&a);

  CHECK_EQ_INT(slotmap_columns(&b, SIZES, 2), SLATE_OK);
  CHECK_EQ_INT(slotmap_load(&b, img.bytes, img.length), SLATE_OK);
  CHECK_EQ_INT(slotmap_check(&b, message, sizeof message), SLATE_OK);
  CHECK_EQ_INT(slotmap_length(&b), slotmap_length(&a));
  for (int i = 0; i < ROWS; i++) {
    CHECK_EQ_INT(slotmap_contains(&b, keys[i]), slotmap_contains(&a, keys[i]));
    void* ea = NULL;
    void* eb = NULL;
    if (slotmap_get(&a, keys[i], &ea) == SLATE_OK) {
      CHECK_EQ_INT(slotmap_get(&b, keys[i], &eb), SLATE_OK);
      CHECK(memcmp(ea, eb, 8) == 0);
    }
  }
  image_s again = save_slotmap(&b);
  CHECK(again.length == img.length && memcmp(again.bytes, img.bytes, img.length) == 0);
  /* The next inserts issue the same keys. */
  for (int i = 0; i < 50; i++) {
    slotmap_key ka, kb;
    CHECK_EQ_INT(slotmap_insert(&a, NULL, &ka), SLATE_OK);
    CHECK_EQ_INT(slotmap_insert(&b, NULL, &kb), SLATE_OK);
    CHECK_EQ_U64(ka, kb);
  }
  /* A slotmap that issued keys is no destination. */
  CHECK_EQ_INT(slotmap_load(&b, img.bytes, img.length), SLATE_ERROR_INVALID);

  /* Every truncation is CORRUPT, and changes nothing. */
  slotmap_s c;
  CHECK_EQ_INT(slotmap_columns(&c, SIZES, 2), SLATE_OK);
  for (size_t n = 0; n < img.length; n++) {
    if (!CHECK_EQ_INT(slotmap_load(&c, img.bytes, n), SLATE_ERROR_CORRUPT)) break;
  }
  CHECK_EQ_INT(slotmap_length(&c), 0);
  /* A damaged byte fails the checksum; another layout is UNSUPPORTED. */
  img.bytes[img.length / 2] ^= 0x10;
  CHECK_EQ_INT(slotmap_load(&c, img.bytes, img.length), SLATE_ERROR_CORRUPT);
  img.bytes[img.length / 2] ^= 0x10;
  slotmap_s d;
  CHECK_EQ_INT(slotmap(&d, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_load(&d, img.bytes, img.length), SLATE_ERROR_UNSUPPORTED);
  CHECK_EQ_INT(slotmap_load(&c, img.bytes, img.length), SLATE_OK);

  /* Arguments. */
  CHECK_EQ_INT(slotmap_save(NULL, slate_buffer_write, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_save(&a, NULL, NULL), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(slotmap_save_size(NULL), 0);
  CHECK_EQ_INT(slotmap_load(NULL, img.bytes, img.length), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_load(&d, NULL, 5), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slotmap_load(&d, NULL, 0), SLATE_ERROR_CORRUPT);
  CHECK_EQ_INT(slotmap_check(NULL, NULL, 0), SLATE_ERROR_INVALID);

  /* A buffer too small: FULL from slate_buffer_write, and the save's. */
  unsigned char small[64];
  slate_buffer_s buf = {small, sizeof small, 0};
  CHECK_EQ_INT(slotmap_save(&a, slate_buffer_write, &buf), SLATE_ERROR_FULL);
  CHECK(buf.length <= sizeof small);

  free(img.bytes);
  free(again.bytes);
  slotmap_free(&a);
  slotmap_free(&b);
  slotmap_free(&c);
  slotmap_free(&d);
}

static void test_sparse_and_info(void) {
  slotmap_s sm;
  slotmap_sparse_s sp, back;
  slotmap_key keys[ROWS];
  CHECK_EQ_INT(slotmap(&sm, 4), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&sp, 16), SLATE_OK);
  for (int i = 0; i < ROWS; i++) {
    uint32_t v = (uint32_t)i;
    unsigned char row[16];
    memset(row, i & 0xFF, sizeof row);
    CHECK_EQ_INT(slotmap_insert(&sm, &v, &keys[i]), SLATE_OK);
    if (i % 2) CHECK_EQ_INT(slotmap_sparse_set(&sp, &sm, keys[i], row), SLATE_OK);
  }
  image_s a = save_slotmap(&sm);
  image_s b = save_sparse(&sp);
  /* One save file: the slotmap, then its set. */
  unsigned char* file = (unsigned char*)malloc(a.length + b.length);
  memcpy(file, a.bytes, a.length);
  memcpy(file + a.length, b.bytes, b.length);
  slate_snapshot_info_s info;
  CHECK_EQ_INT(slate_snapshot_info(file, a.length + b.length, &info), SLATE_OK);
  CHECK_EQ_U64(info.length, a.length);
  CHECK_EQ_INT(info.kind, SLATE_SNAPSHOT_SLOTMAP);
  CHECK_EQ_U64(info.count, ROWS);
  CHECK_EQ_INT(info.columns, 1);
  CHECK_EQ_INT(info.sizes[0], 4);
  CHECK_EQ_INT(info.format_major, 1);
  CHECK_EQ_INT(info.notes & ~(SLATE_SNAPSHOT_BIG_ENDIAN | SLATE_SNAPSHOT_POINTERS_32), 0);
  CHECK_EQ_INT(slate_snapshot_info(file + info.length, b.length, &info), SLATE_OK);
  CHECK_EQ_INT(info.kind, SLATE_SNAPSHOT_SPARSE);
  CHECK_EQ_U64(info.count, ROWS / 2);
  CHECK_EQ_INT(slate_snapshot_info(file, 10, &info), SLATE_ERROR_CORRUPT);
  CHECK_EQ_INT(slate_snapshot_info(file, a.length, NULL), SLATE_ERROR_INVALID);

  CHECK_EQ_INT(slotmap_sparse(&back, 16), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_load(&back, file + a.length, b.length), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_check(&back, NULL, 0), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_length(&back), slotmap_sparse_length(&sp));
  for (int i = 0; i < ROWS; i++) {
    CHECK_EQ_INT(slotmap_sparse_contains(&back, keys[i]), i % 2);
  }
  image_s again = save_sparse(&back);
  CHECK(again.length == b.length && memcmp(again.bytes, b.bytes, b.length) == 0);
  CHECK_EQ_INT(slotmap_sparse_load(&back, b.bytes, b.length), SLATE_ERROR_INVALID);
  slotmap_sparse_s member;
  CHECK_EQ_INT(slotmap_sparse(&member, 0), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_load(&member, b.bytes, b.length), SLATE_ERROR_UNSUPPORTED);
  /* A slotmap snapshot is not a set's. */
  CHECK_EQ_INT(slotmap_sparse_load(&member, a.bytes, a.length), SLATE_ERROR_UNSUPPORTED);
  CHECK_EQ_INT(slotmap_sparse_check(NULL, NULL, 0), SLATE_ERROR_INVALID);

  free(file);
  free(a.bytes);
  free(b.bytes);
  free(again.bytes);
  slotmap_sparse_free(&sp);
  slotmap_sparse_free(&back);
  slotmap_sparse_free(&member);
  slotmap_free(&sm);
}

int main(void) {
  test_slotmap_round_trip();
  test_sparse_and_info();
  return TEST_SUMMARY();
}
