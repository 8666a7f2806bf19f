/*
 * image.c -- the snapshot format read and written without the library
 * (SNAPSHOT-FORMAT.md): little-endian fields, XXH3-64 with seed 0 for the
 * checksum, a slotmap's empty image with a chosen first version, and the
 * comparison of two snapshots of one state.
 */
#include "golden.h"

#include <stdlib.h>
#include <string.h>

uint32_t get_u32(const unsigned char* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t get_u64(const unsigned char* p) { return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32; }

void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

void put_u64(unsigned char* p, uint64_t v) {
  put_u32(p, (uint32_t)v);
  put_u32(p + 4, (uint32_t)(v >> 32));
}

uint32_t host_notes(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return (first == 0 ? SLATE_SNAPSHOT_BIG_ENDIAN : 0u) |
         (sizeof(void*) == 4 ? SLATE_SNAPSHOT_POINTERS_32 : 0u);
}

/* ---- XXH3-64, seed 0, for inputs of 17 bytes or more (every snapshot's
        checksummed part is at least 32) --------------------------------- */

static const unsigned char SECRET[192] = {
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

#define PRIME32_1 UINT64_C(0x9E3779B1)
#define PRIME32_2 UINT64_C(0x85EBCA77)
#define PRIME32_3 UINT64_C(0xC2B2AE3D)
#define PRIME64_1 UINT64_C(0x9E3779B185EBCA87)
#define PRIME64_2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define PRIME64_3 UINT64_C(0x165667B19E3779F9)
#define PRIME64_4 UINT64_C(0x85EBCA77C2B2AE63)
#define PRIME64_5 UINT64_C(0x27D4EB2F165667C5)

/* The 128-bit product's halves xor-ed, in 32-bit pieces (no __int128 on
   every target). */
static uint64_t mul128_fold64(uint64_t a, uint64_t b) {
  uint64_t lo_lo = (a & 0xFFFFFFFFu) * (b & 0xFFFFFFFFu);
  uint64_t hi_lo = (a >> 32) * (b & 0xFFFFFFFFu);
  uint64_t lo_hi = (a & 0xFFFFFFFFu) * (b >> 32);
  uint64_t hi_hi = (a >> 32) * (b >> 32);
  uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;
  uint64_t upper = (hi_lo >> 32) + (cross >> 32) + hi_hi;
  uint64_t lower = (cross << 32) | (lo_lo & 0xFFFFFFFFu);
  return lower ^ upper;
}

static uint64_t avalanche(uint64_t h) {
  h ^= h >> 37;
  h *= UINT64_C(0x165667919E3779F9);
  return h ^ (h >> 32);
}

static uint64_t mix16(const unsigned char* in, const unsigned char* secret) {
  return mul128_fold64(get_u64(in) ^ get_u64(secret), get_u64(in + 8) ^ get_u64(secret + 8));
}

static void accumulate_512(uint64_t acc[8], const unsigned char* in, const unsigned char* secret) {
  for (int i = 0; i < 8; i++) {
    uint64_t data = get_u64(in + 8 * i);
    uint64_t key = data ^ get_u64(secret + 8 * i);
    acc[i ^ 1] += data;
    acc[i] += (key & 0xFFFFFFFFu) * (key >> 32);
  }
}

static void scramble(uint64_t acc[8], const unsigned char* secret) {
  for (int i = 0; i < 8; i++) {
    uint64_t a = acc[i];
    a ^= a >> 47;
    a ^= get_u64(secret + 8 * i);
    acc[i] = a * PRIME32_1;
  }
}

static uint64_t hash_long(const unsigned char* in, size_t n) {
  uint64_t acc[8] = {PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3, PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1};
  const size_t stripes = (sizeof SECRET - 64) / 8; /* per block */
  const size_t block = 64 * stripes;
  const size_t blocks = (n - 1) / block;
  for (size_t b = 0; b < blocks; b++) {
    for (size_t s = 0; s < stripes; s++) accumulate_512(acc, in + b * block + s * 64, SECRET + s * 8);
    scramble(acc, SECRET + sizeof SECRET - 64);
  }
  size_t last = ((n - 1) - block * blocks) / 64;
  for (size_t s = 0; s < last; s++) accumulate_512(acc, in + blocks * block + s * 64, SECRET + s * 8);
  accumulate_512(acc, in + n - 64, SECRET + sizeof SECRET - 64 - 7);
  uint64_t result = (uint64_t)n * PRIME64_1;
  for (int i = 0; i < 4; i++) {
    result += mul128_fold64(acc[2 * i] ^ get_u64(SECRET + 11 + 16 * i),
                            acc[2 * i + 1] ^ get_u64(SECRET + 11 + 16 * i + 8));
  }
  return avalanche(result);
}

uint64_t xxh3_64(const unsigned char* in, size_t n) {
  if (n < 17) abort(); /* not needed: snapshots hash at least 32 bytes */
  uint64_t acc = (uint64_t)n * PRIME64_1;
  if (n <= 128) {
    if (n > 32) {
      if (n > 64) {
        if (n > 96) {
          acc += mix16(in + 48, SECRET + 96);
          acc += mix16(in + n - 64, SECRET + 112);
        }
        acc += mix16(in + 32, SECRET + 64);
        acc += mix16(in + n - 48, SECRET + 80);
      }
      acc += mix16(in + 16, SECRET + 32);
      acc += mix16(in + n - 32, SECRET + 48);
    }
    acc += mix16(in, SECRET);
    acc += mix16(in + n - 16, SECRET + 16);
    return avalanche(acc);
  }
  if (n <= 240) {
    size_t rounds = n / 16;
    size_t i = 0;
    for (; i < 8; i++) acc += mix16(in + 16 * i, SECRET + 16 * i);
    acc = avalanche(acc);
    for (; i < rounds; i++) acc += mix16(in + 16 * i, SECRET + 16 * (i - 8) + 3);
    acc += mix16(in + n - 16, SECRET + 136 - 17);
    return avalanche(acc);
  }
  return hash_long(in, n);
}

/* ---- a slotmap's empty image ------------------------------------------------ */

/* A section's frame at `p`: tag, reserved zero, payload length. */
static size_t put_section(unsigned char* p, const char* tag, uint64_t n) {
  memcpy(p, tag, 4);
  put_u32(p + 4, 0);
  put_u64(p + 8, n);
  return 16 + (size_t)((n + 15) / 16 * 16);
}

image_s slotmap_start_image(const uint32_t* sizes, uint32_t columns, uint32_t start) {
  static const unsigned char magic[8] = {0x89, 'S', 'L', 'T', '\r', '\n', 0x1a, '\n'};
  image_s img;
  size_t head = 44 + 4 * (size_t)columns;
  img.length = 32 + (16 + (head + 15) / 16 * 16) + 16 + 16 * (size_t)columns + 8;
  img.bytes = (unsigned char*)calloc(1, img.length);
  if (img.bytes == NULL) abort();
  unsigned char* p = img.bytes;
  memcpy(p, magic, 8);
  p[8] = 1;                   /* major 1, minor 0 */
  put_u32(p + 12, SLATE_SNAPSHOT_SLOTMAP);
  put_u64(p + 16, img.length);
  size_t at = 32;
  unsigned char* h = p + at + 16;
  at += put_section(p + at, "SLTH", head);
  put_u32(h + 0, columns);
  put_u32(h + 4, 0);           /* length */
  put_u32(h + 8, 0);           /* slots */
  put_u32(h + 12, 0xFFFFFFFFu); /* free_head: none */
  put_u32(h + 16, 0);          /* free_length */
  put_u32(h + 20, start);      /* next */
  put_u32(h + 24, 0xFFFFFFFEu); /* retire_at: the first era's */
  put_u32(h + 28, start);      /* lowest */
  put_u32(h + 32, 0);          /* highest: no earlier era */
  put_u32(h + 36, 0);          /* retired */
  for (uint32_t c = 0; c < columns; c++) put_u32(h + 44 + 4 * c, sizes[c]);
  at += put_section(p + at, "SLTS", 0);
  for (uint32_t c = 0; c < columns; c++) at += put_section(p + at, "SLTC", 0);
  put_u64(p + at, xxh3_64(p, at));
  return img;
}

/* ---- the library's saves ------------------------------------------------------ */

static image_s into_image(slate_buffer_s* buf, int rc, uint64_t size) {
  image_s img = {NULL, 0};
  if (!CHECK_EQ_INT(rc, SLATE_OK) || !CHECK_EQ_U64(buf->length, size)) {
    free(buf->bytes);
    return img;
  }
  img.bytes = (unsigned char*)buf->bytes;
  img.length = buf->length;
  return img;
}

static slate_buffer_s buffer_of(uint64_t size) {
  slate_buffer_s buf;
  buf.bytes = malloc(size ? (size_t)size : 1);
  buf.capacity = (size_t)size;
  buf.length = 0;
  if (buf.bytes == NULL) abort();
  return buf;
}

image_s save_slotmap(const slotmap_s* sm) {
  uint64_t size = slotmap_save_size(sm);
  slate_buffer_s buf = buffer_of(size);
  return into_image(&buf, slotmap_save(sm, slate_buffer_write, &buf), size);
}

image_s save_sparse(const slotmap_sparse_s* sp) {
  uint64_t size = slotmap_sparse_save_size(sp);
  slate_buffer_s buf = buffer_of(size);
  return into_image(&buf, slotmap_sparse_save(sp, slate_buffer_write, &buf), size);
}

image_s save_map(const slate_s* map, const slate_value_codec_s* codec) {
  uint64_t size = 0;
  image_s none = {NULL, 0};
  if (!CHECK_EQ_INT(slate_save_size(map, codec, &size), SLATE_OK)) return none;
  slate_buffer_s buf = buffer_of(size);
  return into_image(&buf, slate_save(map, codec, slate_buffer_write, &buf), size);
}

void image_free(image_s* image) {
  free(image->bytes);
  image->bytes = NULL;
  image->length = 0;
}

/* ---- comparing two snapshots ---------------------------------------------------- */

/* A map record: its bytes in a snapshot. */
typedef struct record_s {
  const unsigned char* bytes;
  size_t length;
} record_s;

static int record_order(const void* a, const void* b) {
  const record_s* x = (const record_s*)a;
  const record_s* y = (const record_s*)b;
  size_t n = x->length < y->length ? x->length : y->length;
  int c = memcmp(x->bytes, y->bytes, n);
  if (c != 0) return c;
  return x->length < y->length ? -1 : x->length > y->length;
}

/* A map snapshot's records (MAPH, then MAPE at offset 64, its payload at
   80), sorted; NULL when they do not parse. */
static record_s* map_records(const unsigned char* s, size_t length, uint64_t* count) {
  if (length < 88 || memcmp(s + 32, "MAPH", 4) != 0 || memcmp(s + 64, "MAPE", 4) != 0) return NULL;
  uint64_t n = get_u64(s + 48);
  uint32_t values = get_u32(s + 56);
  uint64_t size = get_u64(s + 72);
  if (size > length - 88 || n > size / 8) return NULL;
  record_s* out = (record_s*)malloc(n ? (size_t)n * sizeof *out : 1);
  if (out == NULL) abort();
  const unsigned char* p = s + 80;
  const unsigned char* end = p + size;
  for (uint64_t i = 0; i < n; i++) {
    const unsigned char* start = p;
    if (end - p < 4) goto bad;
    uint32_t k = get_u32(p);
    if ((uint64_t)(end - p) < 4 + (uint64_t)k + (values == 1 ? 8 : 4)) goto bad;
    p += 4 + k;
    if (values == 1) {
      p += 8;
    } else {
      uint32_t v = get_u32(p);
      if ((uint64_t)(end - p) < 4 + (uint64_t)v) goto bad;
      p += 4 + v;
    }
    out[i].bytes = start;
    out[i].length = (size_t)(p - start);
  }
  if (p != end) goto bad;
  qsort(out, (size_t)n, sizeof *out, record_order);
  *count = n;
  return out;
bad:
  free(out);
  return NULL;
}

int same_snapshot(const image_s* got, const unsigned char* want, size_t want_length, same_e how,
                  const char* what) {
  const unsigned char* g = got->bytes;
  size_t n = got->length;
  if (!CHECK_MSG(g != NULL && n == want_length && n >= 40, what)) return 0;
  /* Each checksum is XXH3-64 of the bytes before it, as this file
     computes it. */
  int ok = CHECK_MSG(get_u64(g + n - 8) == xxh3_64(g, n - 8), what);
  ok &= CHECK_MSG(get_u64(want + n - 8) == xxh3_64(want, n - 8), what);
  if (how == SAME_BYTES) return ok & CHECK_MSG(memcmp(g, want, n) == 0, what);
  /* The envelope but the notes; the notes' other bits zero. */
  ok &= CHECK_MSG(memcmp(g, want, 28) == 0, what);
  ok &= CHECK_MSG((get_u32(g + 28) & ~3u) == 0 && (get_u32(want + 28) & ~3u) == 0, what);
  if (how == SAME_NOTES_ASIDE) return ok & CHECK_MSG(memcmp(g + 32, want + 32, n - 40) == 0, what);
  /* A map's records as a set: MAPH and MAPE's frame alike, then the
     records, then the padding. */
  ok &= CHECK_MSG(get_u32(g + 12) == SLATE_SNAPSHOT_MAP, what);
  ok &= CHECK_MSG(n >= 88 && memcmp(g + 32, want + 32, 48) == 0, what);
  if (!ok) return 0;
  uint64_t count_g = 0, count_w = 0;
  record_s* rg = map_records(g, n, &count_g);
  record_s* rw = map_records(want, n, &count_w);
  ok &= CHECK_MSG(rg != NULL && rw != NULL && count_g == count_w, what);
  for (uint64_t i = 0; ok && i < count_g; i++) {
    ok &= CHECK_MSG(record_order(&rg[i], &rw[i]) == 0, what);
  }
  size_t body = 80 + (size_t)get_u64(g + 72);
  ok &= CHECK_MSG(memcmp(g + body, want + body, n - 8 - body) == 0, what);
  free(rg);
  free(rw);
  return ok;
}
