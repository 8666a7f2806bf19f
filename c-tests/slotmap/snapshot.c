/*
 * slotmap/snapshot.c -- slotmap and sparse-set snapshots through the C API
 * (SPEC §6c): round trips into memory with slate_buffer_write, keys that
 * keep their meaning, identical re-saves, every truncation CORRUPT,
 * slate_snapshot_info over a save file of two snapshots, and the
 * argument and destination rules. Then: no erased or cleared row (rows of
 * canaries, sorted, erased one by one, by erase_if, cleared) is in a
 * save; saves of many layouts and states hand every byte to write(2)
 * (support/sink.h: under Valgrind an uninitialized byte is an error);
 * `write` failing at each of its calls (its code returned, the structure
 * unchanged); and changes from inside `write` at each of its calls (SPEC
 * 3c: a change stops the save with SLATE_ERROR_INVALID, a code returned
 * with it stands, a rewritten row or a stale key's erase is no change).
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -Iinclude c-tests/slotmap/snapshot.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/ts && /tmp/ts
 */
#include "slate.h"
#include "../support/test.h"
#include "../support/sink.h"

#include <stdio.h>
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

/* ---- helpers of the sections below --------------------------------------- */

/* A save of either kind of structure into a sink: `sp` NULL for `sm`'s. */
static int save_any(sink_s* s, const slotmap_s* sm, const slotmap_sparse_s* sp) {
  sink_reset(s);
  return sp ? slotmap_sparse_save(sp, sink_write, s) : slotmap_save(sm, sink_write, s);
}

static uint64_t size_any(const slotmap_s* sm, const slotmap_sparse_s* sp) {
  return sp ? slotmap_sparse_save_size(sp) : slotmap_save_size(sm);
}

static int check_any(const slotmap_s* sm, const slotmap_sparse_s* sp) {
  char message[128];
  int rc = sp ? slotmap_sparse_check(sp, message, sizeof message)
              : slotmap_check(sm, message, sizeof message);
  if (rc != SLATE_OK) fprintf(stderr, "   check: %s\n", message);
  return rc == SLATE_OK;
}

/* A save of the structure is the `want` image (canonical: it is unchanged). */
static int saves_as(const slotmap_s* sm, const slotmap_sparse_s* sp, const sink_s* want) {
  sink_s s;
  sink_open(&s, 0);
  int ok = save_any(&s, sm, sp) == SLATE_OK && s.length == want->length &&
           memcmp(s.bytes, want->bytes, s.length) == 0;
  sink_close(&s);
  return ok;
}

/* ---- nothing leaks into a snapshot -------------------------------------- */

static const uint32_t LEAK_SIZES[2] = {40, 3};

static void put_row(slotmap_s* sm, int dead, uint32_t i, slotmap_key* key) {
  unsigned char row[43];
  if (dead)
    fill_canary(row, sizeof row);
  else
    memset(row, (int)(i % 200), sizeof row);
  CHECK_EQ_INT(slotmap_insert(sm, row, key), SLATE_OK);
}

static int is_canary_row(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)data;
  return memcmp(row, canary_, CANARY) == 0;
}

static int less_row(const void* a, const void* b, void* data) {
  (void)data;
  return memcmp(a, b, 40) < 0;
}

static void test_nothing_leaks(void) {
  TEST_SECTION("slotmaps and sets: no erased or cleared row is saved");
  enum { M = 700 };
  static slotmap_key live[M], dead[M];
  slotmap_s sm, cleared;
  slotmap_sparse_s sp, sp_cleared;
  sink_s s;
  sink_open(&s, 1);
  CHECK_EQ_INT(slotmap_columns(&sm, LEAK_SIZES, 2), SLATE_OK);
  CHECK_EQ_INT(slotmap_columns(&cleared, LEAK_SIZES, 2), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, LEAK_SIZES, 2), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_columns(&sp_cleared, LEAK_SIZES, 2), SLATE_OK);
  /* Live and dead rows interleaved: swap-and-pop moves rows over the dead
     ones and leaves copies past the length. */
  for (uint32_t i = 0; i < M; i++) {
    put_row(&sm, 0, i, &live[i]);
    put_row(&sm, 1, i, &dead[i]);
    slotmap_key k;
    put_row(&cleared, 1, i, &k);
  }
  unsigned char row[43];
  for (uint32_t i = 0; i < M; i++) {
    int d = i % 2 == 0;
    if (d)
      fill_canary(row, sizeof row);
    else
      memset(row, (int)(i % 200), sizeof row);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, d ? dead[i] : live[i], row), SLATE_OK);
    fill_canary(row, sizeof row);
    CHECK_EQ_INT(slotmap_sparse_set(&sp_cleared, NULL, dead[i], row), SLATE_OK);
  }
  /* The search finds them while they are there. */
  CHECK_EQ_INT(save_any(&s, &sm, NULL), SLATE_OK);
  CHECK(holds_canary(s.bytes, s.length));
  CHECK_EQ_INT(save_any(&s, NULL, &sp), SLATE_OK);
  CHECK(holds_canary(s.bytes, s.length));
  /* Sorted while they are there (a sort's scratch memory stays with the
     structure), then erased: one by one, and by erase_if. */
  CHECK_EQ_INT(slotmap_sort(&sm, less_row, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_sort(&sp, less_row, NULL), SLATE_OK);
  for (uint32_t i = 0; i < M / 3; i++) CHECK_EQ_INT(slotmap_erase(&sm, dead[i]), SLATE_OK);
  CHECK_EQ_INT(slotmap_erase_if(&sm, is_canary_row, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_length(&sm), M);
  for (uint32_t i = 0; i < M / 2; i += 2) CHECK_EQ_INT(slotmap_sparse_erase(&sp, dead[i]), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_erase_if(&sp, is_canary_row, NULL), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_length(&sp), M / 2);
  /* Cleared, then a few live rows. */
  CHECK_EQ_INT(slotmap_clear(&cleared), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_clear(&sp_cleared), SLATE_OK);
  for (uint32_t i = 0; i < 10; i++) {
    slotmap_key k;
    put_row(&cleared, 0, i, &k);
    memset(row, 7, sizeof row);
    CHECK_EQ_INT(slotmap_sparse_set(&sp_cleared, NULL, live[i], row), SLATE_OK);
  }
  slotmap_s* sms[2] = {&sm, &cleared};
  slotmap_sparse_s* sps[2] = {&sp, &sp_cleared};
  for (int k = 0; k < 4; k++) {
    const slotmap_s* a = k < 2 ? sms[k] : NULL;
    const slotmap_sparse_s* b = k < 2 ? NULL : sps[k - 2];
    CHECK_EQ_INT(save_any(&s, a, b), SLATE_OK);
    CHECK_EQ_U64(s.length, size_any(a, b));
    CHECK(!holds_canary(s.bytes, s.length));
    CHECK_EQ_INT(s.failed, 0);
  }
  sink_close(&s);
  slotmap_free(&sm);
  slotmap_free(&cleared);
  slotmap_sparse_free(&sp);
  slotmap_sparse_free(&sp_cleared);
}

/* ---- saves hand every byte to the kernel -------------------------------- */

/* Through the kernel sink and through slate_buffer_write: the same bytes,
   as many as save_size says, every piece at least one byte. */
static void save_both_ways(const slotmap_s* sm, const slotmap_sparse_s* sp, sink_s* s) {
  uint64_t size = size_any(sm, sp);
  CHECK_EQ_INT(save_any(s, sm, sp), SLATE_OK);
  CHECK_EQ_U64(s->length, size);
  CHECK_EQ_INT(s->failed, 0);
  CHECK_EQ_U64(s->empty, 0);
  slate_buffer_s buf;
  buf.bytes = malloc((size_t)size);
  buf.capacity = (size_t)size;
  buf.length = 0;
  CHECK_EQ_INT(sp ? slotmap_sparse_save(sp, slate_buffer_write, &buf)
                  : slotmap_save(sm, slate_buffer_write, &buf),
               SLATE_OK);
  CHECK(buf.length == s->length && memcmp(buf.bytes, s->bytes, s->length) == 0);
  free(buf.bytes);
}

/* Rows of `width` bytes, each byte set. */
static void insert_rows(slotmap_s* sm, uint32_t width, uint32_t n, slotmap_key* keys) {
  unsigned char row[256];
  for (uint32_t i = 0; i < n; i++) {
    for (uint32_t b = 0; b < width && b < sizeof row; b++) row[b] = (unsigned char)(i * 31 + b);
    CHECK_EQ_INT(slotmap_insert(sm, row, &keys[i]), SLATE_OK);
  }
}

static void test_kernel_saves(void) {
  TEST_SECTION(SINK_KERNEL ? "slotmaps and sets: saves through write(2) on /dev/null"
                           : "slotmaps and sets: saves (no file descriptors here: kept in memory only)");
  /* Layouts whose columns end between 16-byte boundaries: padding. */
  static const uint32_t one[1] = {1};
  static const uint32_t odd[3] = {3, 5, 7};
  static const uint32_t many[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17};
  static const uint32_t* layouts[3] = {one, odd, many};
  static const uint32_t counts[3] = {1, 3, 16};
  static slotmap_key keys[1000];
  sink_s s;
  sink_open(&s, 1);
#if SINK_KERNEL && defined(__linux__)
  CHECK(s.fd >= 0);
#endif
  for (int l = 0; l < 3; l++) {
    slotmap_s sm, back;
    uint32_t width = 0;
    for (uint32_t c = 0; c < counts[l]; c++) width += layouts[l][c];
    CHECK_EQ_INT(slotmap_columns(&sm, layouts[l], counts[l]), SLATE_OK);
    save_both_ways(&sm, NULL, &s); /* fresh */
    insert_rows(&sm, width, 1, keys);
    save_both_ways(&sm, NULL, &s);
    insert_rows(&sm, width, 1000, keys);
    save_both_ways(&sm, NULL, &s);
    for (uint32_t i = 0; i < 1000; i += 3) CHECK_EQ_INT(slotmap_erase(&sm, keys[i]), SLATE_OK);
    save_both_ways(&sm, NULL, &s); /* a free list */
    CHECK_EQ_INT(slotmap_columns(&back, layouts[l], counts[l]), SLATE_OK);
    CHECK_EQ_INT(slotmap_load(&back, s.bytes, s.length), SLATE_OK);
    save_both_ways(&back, NULL, &s); /* loaded */
    CHECK_EQ_INT(slotmap_clear(&sm), SLATE_OK);
    save_both_ways(&sm, NULL, &s);
    slotmap_free(&sm);
    save_both_ways(&sm, NULL, &s); /* after free: a new epoch */
    insert_rows(&sm, width, 5, keys);
    save_both_ways(&sm, NULL, &s);
    slotmap_free(&sm);
    slotmap_free(&back);
  }
  /* Sets: membership, one odd column, several. */
  for (int l = -1; l < 3; l++) {
    slotmap_sparse_s sp, back;
    unsigned char row[256];
    if (l < 0)
      CHECK_EQ_INT(slotmap_sparse(&sp, 0), SLATE_OK);
    else
      CHECK_EQ_INT(slotmap_sparse_columns(&sp, layouts[l], counts[l]), SLATE_OK);
    save_both_ways(NULL, &sp, &s);
    for (uint32_t i = 0; i < 900; i++) {
      memset(row, (int)i, sizeof row);
      CHECK_EQ_INT(slotmap_sparse_set(&sp, NULL, ((uint64_t)(2 * i + 1) << 32) | (i * 7 + 3), row),
                   SLATE_OK);
    }
    save_both_ways(NULL, &sp, &s);
    for (uint32_t i = 0; i < 900; i += 4)
      CHECK_EQ_INT(slotmap_sparse_erase(&sp, ((uint64_t)(2 * i + 1) << 32) | (i * 7 + 3)), SLATE_OK);
    save_both_ways(NULL, &sp, &s);
    if (l < 0)
      CHECK_EQ_INT(slotmap_sparse(&back, 0), SLATE_OK);
    else
      CHECK_EQ_INT(slotmap_sparse_columns(&back, layouts[l], counts[l]), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_load(&back, s.bytes, s.length), SLATE_OK);
    save_both_ways(NULL, &back, &s);
    CHECK_EQ_INT(slotmap_sparse_clear(&sp), SLATE_OK);
    save_both_ways(NULL, &sp, &s);
    slotmap_sparse_free(&sp);
    save_both_ways(NULL, &sp, &s);
    slotmap_sparse_free(&back);
  }
  sink_close(&s);
}

/* ---- failures, and changes from inside write ----------------------------- */

/* The structures of the failure tests: a slotmap of two columns (one wide:
   columns handed to `write` in many pieces) with erased and retired-free
   slots, a set of one column and a membership set, all loaded from their
   reference images for each trial (the same state every time). */
static const uint32_t FAIL_SIZES[2] = {40, 1};
enum { FAIL_ROWS = 3000 };

typedef struct fixture_s {
  sink_s sm_ref, sp_ref, tag_ref; /* the reference images */
  slotmap_key keys[FAIL_ROWS];    /* the slotmap's keys; erased ones of i % 3 == 0 */
} fixture_s;

static fixture_s fx_;

static void fixture_make(void) {
  slotmap_s sm;
  slotmap_sparse_s sp, tag;
  static const uint32_t sp_size[1] = {24};
  sink_open(&fx_.sm_ref, 0);
  sink_open(&fx_.sp_ref, 0);
  sink_open(&fx_.tag_ref, 0);
  CHECK_EQ_INT(slotmap_columns(&sm, FAIL_SIZES, 2), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_columns(&sp, sp_size, 1), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&tag, 0), SLATE_OK);
  insert_rows(&sm, 41, FAIL_ROWS, fx_.keys);
  unsigned char row[24];
  for (uint32_t i = 0; i < FAIL_ROWS; i++) {
    memset(row, (int)(i & 0xFF), sizeof row);
    CHECK_EQ_INT(slotmap_sparse_set(&sp, &sm, fx_.keys[i], row), SLATE_OK);
    if (i % 2) CHECK_EQ_INT(slotmap_sparse_set(&tag, &sm, fx_.keys[i], NULL), SLATE_OK);
  }
  for (uint32_t i = 0; i < FAIL_ROWS; i += 3) {
    CHECK_EQ_INT(slotmap_erase(&sm, fx_.keys[i]), SLATE_OK);
    CHECK_EQ_INT(slotmap_sparse_erase(&sp, fx_.keys[i]), SLATE_OK);
    slotmap_sparse_erase(&tag, fx_.keys[i]);
  }
  CHECK_EQ_INT(save_any(&fx_.sm_ref, &sm, NULL), SLATE_OK);
  CHECK_EQ_INT(save_any(&fx_.sp_ref, NULL, &sp), SLATE_OK);
  CHECK_EQ_INT(save_any(&fx_.tag_ref, NULL, &tag), SLATE_OK);
  slotmap_free(&sm);
  slotmap_sparse_free(&sp);
  slotmap_sparse_free(&tag);
}

static void fixture_free(void) {
  sink_close(&fx_.sm_ref);
  sink_close(&fx_.sp_ref);
  sink_close(&fx_.tag_ref);
}

/* Structure `which` (0 slotmap, 1 set, 2 membership set) as the fixture
   has it: loaded from its reference image into `sm` or `sp`. */
static const sink_s* fixture_load(int which, slotmap_s* sm, slotmap_sparse_s* sp) {
  static const uint32_t sp_size[1] = {24};
  if (which == 0) {
    CHECK_EQ_INT(slotmap_columns(sm, FAIL_SIZES, 2), SLATE_OK);
    CHECK_EQ_INT(slotmap_load(sm, fx_.sm_ref.bytes, fx_.sm_ref.length), SLATE_OK);
    return &fx_.sm_ref;
  }
  const sink_s* ref = which == 1 ? &fx_.sp_ref : &fx_.tag_ref;
  if (which == 1)
    CHECK_EQ_INT(slotmap_sparse_columns(sp, sp_size, 1), SLATE_OK);
  else
    CHECK_EQ_INT(slotmap_sparse(sp, 0), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_load(sp, ref->bytes, ref->length), SLATE_OK);
  return ref;
}

static const char* const which_names[3] = {"slotmap", "set", "membership set"};

/* A change from inside `write`, by kind. */
enum {
  CH_INSERT,
  CH_ERASE,
  CH_CLEAR,
  CH_FREE,
  CH_OTHER_GENERATION,
  CH_REWRITE,
  CH_ERASE_ABSENT,
  CH_KINDS
};
static const char* const change_names[CH_KINDS] = {
    "insert", "erase", "clear", "free", "another generation of a present slot", "rewrite a row",
    "erase an absent key"};

typedef struct trial_s {
  sink_s sink;
  unsigned long fail_at; /* fail this call with rc (no change) */
  unsigned long change_at; /* or make the change at this call, returning rc */
  int kind;
  int rc;
  slotmap_s* sm;
  slotmap_sparse_s* sp;
  slotmap_key key;  /* the key the change works on */
  int changed;      /* the result of the change's call */
  uint32_t length;  /* the structure's length before */
} trial_s;

static int trial_write(void* context, const void* bytes, size_t length) {
  trial_s* t = (trial_s*)context;
  unsigned long call = t->sink.calls + 1;
  if (call == t->fail_at) {
    t->sink.calls++;
    return t->rc;
  }
  /* the piece first: it may point into rows the change moves or frees */
  int kept = sink_write(&t->sink, bytes, length);
  if (call != t->change_at) return kept;
  unsigned char row[64];
  void* e = NULL;
  memset(row, 0x5C, sizeof row);
  switch (t->kind) {
    case CH_INSERT:
      t->changed = t->sp ? slotmap_sparse_set(t->sp, NULL, (7ull << 32) | 0x7FFFFFF0u, row)
                         : slotmap_insert(t->sm, row, &t->key);
      break;
    case CH_ERASE:
      t->changed = t->sp ? slotmap_sparse_erase(t->sp, t->key) : slotmap_erase(t->sm, t->key);
      break;
    case CH_CLEAR:
      t->changed = t->sp ? slotmap_sparse_clear(t->sp) : slotmap_clear(t->sm);
      break;
    case CH_FREE: /* the rows `write` was handed pieces of, released */
      if (t->sp)
        slotmap_sparse_free(t->sp);
      else
        slotmap_free(t->sm);
      t->changed = SLATE_OK;
      break;
    case CH_OTHER_GENERATION: /* a set takes the row over; a slotmap: an insert into the free slot */
      t->changed = t->sp ? slotmap_sparse_set(t->sp, NULL, t->key + (2ull << 32), row)
                         : slotmap_insert(t->sm, row, &t->key);
      break;
    case CH_REWRITE: /* a present key's row, written anew: no change */
      if (t->sp)
        t->changed = slotmap_sparse_set(t->sp, NULL, t->key, row);
      else if ((t->changed = slotmap_get(t->sm, t->key, &e)) == SLATE_OK)
        memset(e, 0x5C, 40);
      break;
    case CH_ERASE_ABSENT: /* a stale key: no change */
      t->changed = (t->sp ? slotmap_sparse_erase(t->sp, t->key) : slotmap_erase(t->sm, t->key)) ==
                           SLATE_ERROR_NOT_FOUND
                       ? SLATE_OK
                       : -1;
      break;
  }
  return t->rc != 0 ? t->rc : kept;
}

/* Whether the change stands after the save. */
static int change_stands(const trial_s* t) {
  uint32_t n = t->sp ? slotmap_sparse_length(t->sp) : slotmap_length(t->sm);
  int has = t->sp ? slotmap_sparse_contains(t->sp, t->key) : slotmap_contains(t->sm, t->key);
  switch (t->kind) {
    case CH_INSERT:
      return n == t->length + 1 &&
             (t->sp ? slotmap_sparse_contains(t->sp, (7ull << 32) | 0x7FFFFFF0u) : has);
    case CH_ERASE:
      return n == t->length - 1 && !has;
    case CH_CLEAR:
    case CH_FREE:
      return n == 0;
    case CH_OTHER_GENERATION:
      return t->sp ? n == t->length && !has && slotmap_sparse_contains(t->sp, t->key + (2ull << 32))
                   : n == t->length + 1 && has;
    default:
      return n == t->length;
  }
}

/* One save of structure `which` through a trial; the save's result. */
static int run_trial(int which, trial_s* t, slotmap_s* sm, slotmap_sparse_s* sp) {
  t->sm = which == 0 ? sm : NULL;
  t->sp = which == 0 ? NULL : sp;
  t->length = which == 0 ? slotmap_length(sm) : slotmap_sparse_length(sp);
  sink_reset(&t->sink);
  return which == 0 ? slotmap_save(sm, trial_write, t) : slotmap_sparse_save(sp, trial_write, t);
}

static void free_which(int which, slotmap_s* sm, slotmap_sparse_s* sp) {
  if (which == 0)
    slotmap_free(sm);
  else
    slotmap_sparse_free(sp);
}

/* `write` failing at each of its calls: its code, no call after it, the
   structure unchanged (the same image again). */
static void test_write_failures(void) {
  TEST_SECTION("slotmaps and sets: write failing at each of its calls");
  for (int which = 0; which < 3; which++) {
    slotmap_s sm;
    slotmap_sparse_s sp;
    trial_s t;
    unsigned long bad = 0;
    memset(&t, 0, sizeof t);
    sink_open(&t.sink, 0);
    const sink_s* ref = fixture_load(which, &sm, &sp);
    CHECK(ref->calls > (which == 0 ? 4u : 1u));
    fprintf(stderr, "   %s: %lu write calls\n", which_names[which], ref->calls);
    for (unsigned long k = 1; k <= ref->calls; k++) {
      t.fail_at = k;
      t.rc = (int)(500 + k);
      if (run_trial(which, &t, &sm, &sp) != t.rc || t.sink.calls != k) bad++;
      if (!saves_as(which == 0 ? &sm : NULL, which == 0 ? NULL : &sp, ref)) bad++;
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(check_any(which == 0 ? &sm : NULL, which == 0 ? NULL : &sp));
    free_which(which, &sm, &sp);
    sink_close(&t.sink);
  }
}

/* A change from inside `write` at each of its calls (SPEC 3c, 6c): the
   save returns SLATE_ERROR_INVALID (a code `write` returned with the
   change stands instead), also at the last call; writing a present row
   anew or erasing a stale key is no change; the change stands and the
   structure passes its checker, saves and loads. */
static void test_changes_in_write(void) {
  TEST_SECTION("slotmaps and sets: a change from inside write stops the save (SLATE_ERROR_INVALID)");
  unsigned long bad = 0, trials = 0;
  for (int which = 0; which < 3; which++) {
    unsigned long calls = (which == 0 ? &fx_.sm_ref : which == 1 ? &fx_.sp_ref : &fx_.tag_ref)->calls;
    for (int kind = 0; kind < CH_KINDS; kind++) {
      for (unsigned long at = 1; at <= calls + 2; at++) {
        slotmap_s sm;
        slotmap_sparse_s sp;
        trial_s t;
        memset(&t, 0, sizeof t);
        sink_open(&t.sink, 0);
        fixture_load(which, &sm, &sp);
        /* the last call twice more: with a code (stands), and a code at the first */
        t.change_at = at <= calls ? at : at == calls + 1 ? calls : 1;
        t.rc = at <= calls ? 0 : at == calls + 1 ? 66 : -66;
        t.kind = kind;
        t.changed = -100;
        /* the key the change works on: a present one, or for CH_ERASE_ABSENT
           an erased one (i % 3 == 0) */
        uint32_t i = kind == CH_ERASE_ABSENT ? 3 * (uint32_t)at : 3 * (uint32_t)at + 1;
        t.key = fx_.keys[i % FAIL_ROWS];
        if (which == 2 && kind != CH_ERASE_ABSENT && (i % 2) == 0) t.key = fx_.keys[(i + 3) % FAIL_ROWS];
        int got = run_trial(which, &t, &sm, &sp);
        int harmless = kind == CH_REWRITE || kind == CH_ERASE_ABSENT;
        int want = t.rc != 0 ? t.rc : harmless ? SLATE_OK : SLATE_ERROR_INVALID;
        trials++;
        int ok = got == want && t.changed == SLATE_OK && change_stands(&t) &&
                 t.sink.calls == (got == SLATE_OK ? calls : t.change_at) &&
                 check_any(which == 0 ? &sm : NULL, which == 0 ? NULL : &sp);
        /* and it saves, and loads, as it now is */
        sink_s again;
        sink_open(&again, 0);
        ok = ok && save_any(&again, which == 0 ? &sm : NULL, which == 0 ? NULL : &sp) == SLATE_OK;
        if (ok) {
          slotmap_s sm2;
          slotmap_sparse_s sp2;
          static const uint32_t sp_size[1] = {24};
          if (which == 0) {
            ok = slotmap_columns(&sm2, FAIL_SIZES, 2) == SLATE_OK &&
                 slotmap_load(&sm2, again.bytes, again.length) == SLATE_OK &&
                 slotmap_length(&sm2) == slotmap_length(&sm);
          } else {
            ok = (which == 1 ? slotmap_sparse_columns(&sp2, sp_size, 1) : slotmap_sparse(&sp2, 0)) ==
                     SLATE_OK &&
                 slotmap_sparse_load(&sp2, again.bytes, again.length) == SLATE_OK &&
                 slotmap_sparse_length(&sp2) == slotmap_sparse_length(&sp);
          }
          free_which(which, &sm2, &sp2);
        }
        if (!ok && bad++ < 8)
          fprintf(stderr, "   %s, %s at write call %lu (rc %d): save %d (want %d), change %d\n",
                  which_names[which], change_names[kind], t.change_at, t.rc, got, want, t.changed);
        sink_close(&again);
        free_which(which, &sm, &sp);
        sink_close(&t.sink);
      }
    }
  }
  CHECK_EQ_U64(bad, 0);
  CHECK(trials > 50);
}

int main(void) {
  test_slotmap_round_trip();
  test_sparse_and_info();
  test_nothing_leaks();
  test_kernel_saves();
  fixture_make();
  test_write_failures();
  test_changes_in_write();
  fixture_free();
  return TEST_SUMMARY();
}
