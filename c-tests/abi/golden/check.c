/*
 * check.c -- a snapshot set held against the recipes: each snapshot loads
 * (the checker passes), holds what its recipe expects of every key it
 * issued (present or stale, rows, values, dense order, the next keys), and
 * re-saves to the same bytes but the notes (a map: the same records); the
 * recipe's own save here is the same snapshot too (a map's records in the
 * same order where the byte order is the writer's, as a pinned seed
 * promises). On a 32-bit platform a map value above 2^32 is UNSUPPORTED
 * and leaves the destination as it was.
 */
#include "golden.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- where the snapshots come from ------------------------------------------------ */

static int read_file(const char* dir, const char* name, image_s* out) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.snap", dir, name);
  FILE* f = fopen(path, "rb");
  if (f == NULL) return 0;
  size_t cap = 4096, n = 0;
  unsigned char* bytes = (unsigned char*)malloc(cap);
  if (bytes == NULL) abort();
  for (;;) {
    if (n == cap) {
      cap *= 2;
      bytes = (unsigned char*)realloc(bytes, cap);
      if (bytes == NULL) abort();
    }
    size_t got = fread(bytes + n, 1, cap - n, f);
    if (got == 0) break;
    n += got;
  }
  int ok = !ferror(f);
  fclose(f);
  out->bytes = bytes;
  out->length = n;
  return ok;
}

/* The snapshot NAME of `source` (a copy), or 0 when there is none. */
static int snapshot_of(const source_s* source, const char* name, image_s* out) {
  if (source->dir != NULL) return read_file(source->dir, name, out);
  for (size_t i = 0; i < golden_file_count; i++) {
    if (strcmp(golden_files[i].name, name) == 0) {
      out->length = golden_files[i].length;
      out->bytes = (unsigned char*)malloc(out->length);
      if (out->bytes == NULL) abort();
      memcpy(out->bytes, golden_files[i].bytes, out->length);
      return 1;
    }
  }
  return 0;
}

/* ---- an allocator that counts, for the maps' loads --------------------------------- */

typedef struct counter_s {
  size_t live_bytes;
} counter_s;

static void* count_allocate(void* context, size_t size) {
  void* p = malloc(size);
  if (p) ((counter_s*)context)->live_bytes += size;
  return p;
}

static void count_release(void* context, void* pointer, size_t size) {
  ((counter_s*)context)->live_bytes -= size;
  free(pointer);
}

/* ---- content ---------------------------------------------------------------------- */

static uint32_t live_count(const state_s* st) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < st->count; i++) n += (uint32_t)st->expect[i].live;
  return n;
}

static void check_slotmap(const char* name, const state_s* want, const slotmap_s* got) {
  unsigned char row[256];
  CHECK_MSG(slotmap_length(got) == live_count(want), name);
  for (uint32_t i = 0; i < want->count; i++) {
    const expect_s* e = &want->expect[i];
    if (!CHECK_MSG(slotmap_contains(got, e->key) == e->live, name) || !e->live) continue;
    uint32_t r = 0;
    CHECK_EQ_INT(slotmap_row(got, e->key, &r), SLATE_OK);
    for (uint32_t c = 0; c < want->columns; c++) {
      const unsigned char* base = (const unsigned char*)slotmap_column(got, c);
      row_bytes(row, e->id, c, want->sizes[c]);
      CHECK_MSG(base != NULL && memcmp(base + (size_t)r * want->sizes[c], row, want->sizes[c]) == 0, name);
    }
  }
  /* The dense order is the recipe's. */
  for (uint32_t r = 0; r < slotmap_length(got); r++) {
    CHECK_MSG(slotmap_key_at(got, r) == slotmap_key_at(&want->sm, r), name);
  }
}

static void check_sparse(const char* name, const state_s* want, const slotmap_sparse_s* got) {
  unsigned char row[256];
  CHECK_MSG(slotmap_sparse_length(got) == live_count(want), name);
  for (uint32_t i = 0; i < want->count; i++) {
    const expect_s* e = &want->expect[i];
    if (!CHECK_MSG(slotmap_sparse_contains(got, e->key) == e->live, name) || !e->live) continue;
    uint32_t r = 0;
    CHECK_EQ_INT(slotmap_sparse_row(got, e->key, &r), SLATE_OK);
    for (uint32_t c = 0; c < want->columns; c++) {
      const unsigned char* base = (const unsigned char*)slotmap_sparse_column(got, c);
      row_bytes(row, e->id, c, want->sizes[c]);
      CHECK_MSG(base != NULL && memcmp(base + (size_t)r * want->sizes[c], row, want->sizes[c]) == 0, name);
    }
  }
  for (uint32_t r = 0; r < slotmap_sparse_length(got); r++) {
    CHECK_MSG(slotmap_sparse_key_at(got, r) == slotmap_sparse_key_at(&want->sp, r), name);
  }
}

static int map_get(const slate_s* map, const expect_s* e, void** value) {
  switch (e->key_type) {
    case KEY_BYTES_KEY: return slate_get_bytes(map, e->bytes, e->key_length, value);
    case KEY_STRING: {
      char s[KEY_BYTES + 1];
      memcpy(s, e->bytes, e->key_length);
      s[e->key_length] = 0;
      return slate_get(map, s, value);
    }
    case KEY_I64: return slate_get_i64(map, (int64_t)e->key, value);
    default: return slate_get_u64(map, e->key, value);
  }
}

static void check_map(const char* name, const state_s* want, const slate_s* got) {
  char message[128];
  CHECK_EQ_INT(slate_check(got, message, sizeof message), SLATE_OK);
  CHECK_MSG(slate_length(got) == live_count(want), name);
  for (uint32_t i = 0; i < want->count; i++) {
    const expect_s* e = &want->expect[i];
    void* v = NULL;
    int rc = map_get(got, e, &v);
    if (!CHECK_MSG(rc == (e->live ? SLATE_OK : SLATE_ERROR_NOT_FOUND), name) || !e->live) continue;
    if (!want->codec) {
      CHECK_MSG((uint64_t)(uintptr_t)v == e->id, name);
    } else {
      unsigned char bytes[BLOB_MAX];
      uint32_t n = 0;
      const blob_s* b = (const blob_s*)v;
      blob_for(e->id, bytes, &n);
      CHECK_MSG(b != NULL && b->length == n && (n == 0 || memcmp(b->bytes, bytes, n) == 0), name);
    }
  }
}

/* ---- one snapshot ------------------------------------------------------------------ */

/* Byte for byte where the snapshot's writer had this platform's notes,
   else but the notes. */
static same_e bytes_or_notes_aside(const image_s* snap) {
  return get_u32(snap->bytes + 28) == host_notes() ? SAME_BYTES : SAME_NOTES_ASIDE;
}

/* The library's save here carries this platform's notes. */
static void check_own_notes(const image_s* saved, const char* name) {
  CHECK_MSG(saved->length >= 40 && get_u32(saved->bytes + 28) == host_notes(), name);
}

static void check_one_slotmap(const char* name, const image_s* snap, state_s* want) {
  slotmap_s got;
  char message[128];
  CHECK_EQ_INT(slotmap_columns(&got, want->sizes, want->columns), SLATE_OK);
  if (!CHECK_MSG(slotmap_load(&got, snap->bytes, snap->length) == SLATE_OK, name)) return;
  CHECK_MSG(slotmap_check(&got, message, sizeof message) == SLATE_OK, message);
  check_slotmap(name, want, &got);
  image_s again = save_slotmap(&got);
  check_own_notes(&again, name);
  same_snapshot(&again, snap->bytes, snap->length, bytes_or_notes_aside(snap), name);
  image_s mine = save_slotmap(&want->sm);
  same_snapshot(&mine, snap->bytes, snap->length, bytes_or_notes_aside(snap), name);
  /* The next inserts issue the recipe's keys (or fail alike: no era left). */
  for (int i = 0; i < 3; i++) {
    slotmap_key a = 0, b = 0;
    int ra = slotmap_insert(&got, NULL, &a);
    int rb = slotmap_insert(&want->sm, NULL, &b);
    CHECK_MSG(ra == rb && a == b, name);
  }
  image_free(&again);
  image_free(&mine);
  slotmap_free(&got);
}

static void check_one_sparse(const char* name, const image_s* snap, const state_s* want) {
  slotmap_sparse_s got;
  char message[128];
  if (want->columns == 0) {
    CHECK_EQ_INT(slotmap_sparse(&got, 0), SLATE_OK);
  } else {
    CHECK_EQ_INT(slotmap_sparse_columns(&got, want->sizes, want->columns), SLATE_OK);
  }
  if (!CHECK_MSG(slotmap_sparse_load(&got, snap->bytes, snap->length) == SLATE_OK, name)) return;
  CHECK_MSG(slotmap_sparse_check(&got, message, sizeof message) == SLATE_OK, message);
  check_sparse(name, want, &got);
  image_s again = save_sparse(&got);
  check_own_notes(&again, name);
  same_snapshot(&again, snap->bytes, snap->length, bytes_or_notes_aside(snap), name);
  image_s mine = save_sparse(&want->sp);
  same_snapshot(&mine, snap->bytes, snap->length, bytes_or_notes_aside(snap), name);
  image_free(&again);
  image_free(&mine);
  slotmap_sparse_free(&got);
}

static void check_one_map(const char* name, const image_s* snap, const state_s* want, uint32_t writer_notes) {
  counter_s counter = {0};
  slate_allocator_s allocator = {count_allocate, count_release, &counter};
  const slate_value_codec_s* codec = want->codec ? &blob_codec : NULL;
  slate_s got;
  CHECK_EQ_INT(slate(&got), SLATE_OK);
  CHECK_EQ_INT(slate_set_allocator(&got, &allocator), SLATE_OK);
  if (!CHECK_MSG(slate_load(&got, snap->bytes, snap->length, codec) == SLATE_OK, name)) return;
  check_map(name, want, &got);
  image_s again = save_map(&got, codec);
  check_own_notes(&again, name);
  same_snapshot(&again, snap->bytes, snap->length, SAME_RECORDS, name);
  /* The recipe's map iterates as the writer's did where the byte order
     is the writer's (a pinned seed's promise). */
  int same_order = ((writer_notes ^ host_notes()) & SLATE_SNAPSHOT_BIG_ENDIAN) == 0;
  image_s mine = save_map(&want->map, codec);
  same_e how = same_order ? bytes_or_notes_aside(snap) : SAME_RECORDS;
  same_snapshot(&mine, snap->bytes, snap->length, how, name);
  image_free(&again);
  image_free(&mine);
  if (want->codec) free_blob_values(&got);
  slate_free(&got);
  CHECK_MSG(counter.live_bytes == 0, name);
}

/* A 32-bit platform: UNSUPPORTED, and the destination as it was (empty,
   holding no memory, so its seed can still be pinned). */
static void check_wide_unsupported(const char* name, const image_s* snap) {
  counter_s counter = {0};
  slate_allocator_s allocator = {count_allocate, count_release, &counter};
  slate_snapshot_info_s info;
  slate_s got;
  CHECK_EQ_INT(slate_snapshot_info(snap->bytes, snap->length, &info), SLATE_OK);
  CHECK_EQ_INT(info.kind, SLATE_SNAPSHOT_MAP);
  CHECK_EQ_INT(slate(&got), SLATE_OK);
  CHECK_EQ_INT(slate_set_allocator(&got, &allocator), SLATE_OK);
  CHECK_MSG(slate_load(&got, snap->bytes, snap->length, NULL) == SLATE_ERROR_UNSUPPORTED, name);
  CHECK_EQ_U64(slate_length(&got), 0);
  CHECK_EQ_U64(counter.live_bytes, 0);
  CHECK_EQ_INT(slate_pin_seed(&got, 1), SLATE_OK);
  CHECK_EQ_INT(slate_set(&got, "after", (void*)1), SLATE_OK);
  slate_free(&got);
  CHECK_EQ_U64(counter.live_bytes, 0);
}

void check_all(const source_s* source) {
  const int pointers_32 = (host_notes() & SLATE_SNAPSHOT_POINTERS_32) != 0;
  int have_notes = 0;
  uint32_t writer_notes = 0;
  size_t read = 0;
  for (size_t i = 0; i < recipe_count; i++) {
    const recipe_s* r = &recipes[i];
    image_s snap = {NULL, 0};
    slate_snapshot_info_s info;
    TEST_SECTION(r->name);
    if (!snapshot_of(source, r->name, &snap)) {
      /* A 32-bit writer makes no map with a value above 2^32. */
      CHECK_MSG(r->wide && have_notes && (writer_notes & SLATE_SNAPSHOT_POINTERS_32), r->name);
      continue;
    }
    read++;
    if (!CHECK_MSG(slate_snapshot_info(snap.bytes, snap.length, &info) == SLATE_OK, r->name)) {
      image_free(&snap);
      continue;
    }
    CHECK_MSG(info.kind == (uint32_t)r->kind && info.length == snap.length, r->name);
    /* One writer for the whole set; the embedded goldens are x86-64's. */
    if (!have_notes) {
      writer_notes = info.notes;
      have_notes = 1;
      if (source->dir == NULL) CHECK_EQ_INT(writer_notes, 0);
    }
    CHECK_MSG(info.notes == writer_notes, r->name);
    if (r->wide && pointers_32) {
      check_wide_unsupported(r->name, &snap);
      image_free(&snap);
      continue;
    }
    state_s want;
    if (!CHECK_MSG(recipe_build(r, &want), r->name)) {
      image_free(&snap);
      continue;
    }
    switch (r->kind) {
      case SLATE_SNAPSHOT_SLOTMAP: check_one_slotmap(r->name, &snap, &want); break;
      case SLATE_SNAPSHOT_SPARSE: check_one_sparse(r->name, &snap, &want); break;
      default: check_one_map(r->name, &snap, &want, writer_notes); break;
    }
    state_free(&want);
    image_free(&snap);
  }
  /* Every recipe has its snapshot, and every golden its recipe. */
  if (source->dir == NULL) {
    CHECK_EQ_U64(read, recipe_count);
    CHECK_EQ_U64(golden_file_count, recipe_count);
  } else {
    CHECK_EQ_U64(read + ((writer_notes & SLATE_SNAPSHOT_POINTERS_32) ? 1 : 0), recipe_count);
  }
}

/* ---- writing ----------------------------------------------------------------------- */

void write_all(const char* dir) {
  for (size_t i = 0; i < recipe_count; i++) {
    const recipe_s* r = &recipes[i];
    state_s st;
    image_s img = {NULL, 0};
    if (!recipe_build(r, &st)) continue; /* a value above 2^32 on 32-bit */
    switch (r->kind) {
      case SLATE_SNAPSHOT_SLOTMAP: img = save_slotmap(&st.sm); break;
      case SLATE_SNAPSHOT_SPARSE: img = save_sparse(&st.sp); break;
      default: img = save_map(&st.map, st.codec ? &blob_codec : NULL); break;
    }
    check_own_notes(&img, r->name);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.snap", dir, r->name);
    FILE* f = fopen(path, "wb");
    if (CHECK_MSG(f != NULL, path)) {
      CHECK_MSG(fwrite(img.bytes, 1, img.length, f) == img.length, path);
      CHECK_MSG(fclose(f) == 0, path);
    }
    image_free(&img);
    state_free(&st);
  }
}

/* ---- image.c against the library ----------------------------------------------------- */

static void check_checksum(const image_s* img, const char* what) {
  size_t n = img->length;
  CHECK_MSG(n >= 40 && get_u64(img->bytes + n - 8) == xxh3_64(img->bytes, n - 8), what);
}

void check_format_helpers(void) {
  TEST_SECTION("format helpers");
  /* XXH3-64 as the library computes it, over every length class: 17-128,
     129-240, and several 1 KiB blocks. */
  static const uint32_t sizes3[3] = {3, 255, 1};
  slotmap_s a, b, c;
  slotmap_sparse_s m;
  CHECK_EQ_INT(slotmap(&a, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_columns(&b, sizes3, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap(&c, 8), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&m, 0), SLATE_OK);
  for (uint32_t i = 0; i < 700; i++) {
    slotmap_key k;
    CHECK_EQ_INT(slotmap_insert(&c, NULL, &k), SLATE_OK);
  }
  const slotmap_s* maps[3] = {&a, &b, &c};
  for (int i = 0; i < 3; i++) {
    image_s img = save_slotmap(maps[i]);
    check_checksum(&img, "slotmap save");
    check_own_notes(&img, "slotmap save");
    image_free(&img);
  }
  image_s set = save_sparse(&m);
  check_checksum(&set, "set save");
  image_free(&set);
  /* A start image loads, re-saves to itself but the notes, and issues
     its first version. */
  image_s start = slotmap_start_image(sizes3, 3, 0x12345);
  slotmap_s d;
  CHECK_EQ_INT(slotmap_columns(&d, sizes3, 3), SLATE_OK);
  CHECK_EQ_INT(slotmap_load(&d, start.bytes, start.length), SLATE_OK);
  image_s again = save_slotmap(&d);
  same_snapshot(&again, start.bytes, start.length, SAME_NOTES_ASIDE, "start image");
  slotmap_key k = 0;
  CHECK_EQ_INT(slotmap_insert(&d, NULL, &k), SLATE_OK);
  CHECK_EQ_U64(k, UINT64_C(0x12345) << 32);
  image_free(&again);
  image_free(&start);
  slotmap_free(&a);
  slotmap_free(&b);
  slotmap_free(&c);
  slotmap_free(&d);
  slotmap_sparse_free(&m);
}
