/* map/batch: batches of `steps` keys (a million natively) on a large map
 * of integer keys with strings mixed in. */
#include "batch.h"

/* Key j of the map: u64 mix64(2j) for j < n_u64, i64 of the same bits for
   j < n_i64; mix64(2j + 1) is never set, nor are the i64 of j >= n_i64. */
static uintptr_t u64_value(size_t j) { return (uintptr_t)(j + 1) << 2; }
static uintptr_t i64_value(size_t j) { return ((uintptr_t)(j + 1) << 2) | 2u; }

/* A present or absent u64 (kind 0) or i64 (kind 1) key, or a duplicate. */
static void add_int(batch_s* b, int kind, size_t n_set, int duplicates) {
  uint32_t r = rnd_below(duplicates ? 16 : 14);
  size_t j;
  if (r >= 14 && b->n > 0) {
    size_t at = (size_t)(rnd() % b->n);
    if (kind == 0)
      batch_add_u64(b, b->u64[at], b->expect[at], b->want[at]);
    else
      batch_add_i64(b, b->i64[at], b->expect[at], b->want[at]);
    return;
  }
  /* present; never set (an odd preimage); or beyond the keys set of this
     kind (for i64 the bits of a u64 key that is set) */
  int in = r < 8;
  j = (size_t)(rnd() % n_set);
  uint64_t key = mix64(in ? 2 * (uint64_t)j : r < 11 ? 2 * (uint64_t)j + 1 : 2 * (uint64_t)(n_set + j));
  if (kind == 0)
    batch_add_u64(b, key, in, in ? u64_value(j) : 0);
  else
    batch_add_i64(b, (int64_t)key, in, in ? i64_value(j) : 0);
}

#define STRINGS 64u

void test_large(unsigned long steps) {
  size_t n = steps < 16384 ? 16384 : (size_t)steps; /* enough for several tables */
  size_t n_u64 = n / 2, n_i64 = n / 8, i;
  slate_s m;
  slate_info_s in;
  batch_s b;
  unsigned long bad = 0;
  char** strs = (char**)xmalloc(sizeof(char*) * STRINGS * 2);
  unsigned char* enc = (unsigned char*)xmalloc((n / 4) * 10);
  char heading[120];
  snprintf(heading, sizeof heading, "large: batches of %lu keys, a map of %lu entries", (unsigned long)n,
           (unsigned long)(n_u64 + n_i64 + STRINGS));
  TEST_SECTION(heading);
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  for (i = 0; i < n_u64; i++) bad += slate_set_u64(&m, mix64(2 * (uint64_t)i), V(u64_value(i))) != SLATE_OK;
  for (i = 0; i < n_i64; i++)
    bad += slate_set_i64(&m, (int64_t)mix64(2 * (uint64_t)i), V(i64_value(i))) != SLATE_OK;
  /* strings of every length class, half of them set */
  for (i = 0; i < STRINGS * 2; i++) {
    size_t len = 5 + (i * 37) % 300;
    strs[i] = (char*)xmalloc(len + 1);
    snprintf(strs[i], len + 1, "%03lu/", (unsigned long)i); /* distinct: a number first */
    for (size_t c = 4; c < len; c++) strs[i][c] = (char)('A' + (c + i) % 26);
    strs[i][len] = '\0';
    if (i < STRINGS) bad += slate_set(&m, strs[i], V((uintptr_t)(i + 1) << 3)) != SLATE_OK;
  }
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_U64(slate_length(&m), n_u64 + n_i64 + STRINGS);
  CHECK(slate_info(&m, &in) == SLATE_OK && in.tables > 8);
  fprintf(stderr, "   %u tables, global depth %u\n", (unsigned)in.tables, (unsigned)in.global_depth);

  batch_init(&b, n, VIA_U64);
  for (int kind = 0; kind < 2; kind++) {
    batch_reset(&b, kind == 0 ? VIA_U64 : VIA_I64);
    while (b.n < n) add_int(&b, kind, kind == 0 ? n_u64 : n_i64, 1);
    check_batch(&m, &b, 1, kind == 0 ? "large u64 batch" : "large i64 batch");
    check_batch(&m, &b, 0, kind == 0 ? "large u64 batch, presence" : "large i64 batch, presence");
  }
  /* byte keys: the integers' encodings, the strings, random bytes */
  batch_reset(&b, VIA_BYTES);
  for (i = 0; i < n / 4; i++) {
    uint32_t r = rnd_below(9);
    if (r == 8 && b.n > 0) { /* a duplicate */
      size_t at = (size_t)(rnd() % b.n);
      batch_add_bytes(&b, b.ptrs[at], b.lens[at], b.expect[at], b.want[at]);
    } else if (r < 5) {
      size_t at = b.n;
      int kind = (int)rnd_below(2);
      add_int(&b, kind, kind == 0 ? n_u64 : n_i64, 0);
      encode_int(enc + i * 10, kind == 0 ? 0x02 : 0x01, kind == 0 ? b.u64[at] : (uint64_t)b.i64[at]);
      b.ptrs[at] = enc + i * 10;
      b.lens[at] = 10;
    } else if (r < 7) {
      size_t s = rnd_below(STRINGS * 2);
      batch_add_bytes(&b, strs[s], (uint32_t)strlen(strs[s]), s < STRINGS, s < STRINGS ? (uintptr_t)(s + 1) << 3 : 0);
    } else if (r < 8) {
      /* 0 to 10 random bytes, most likely absent */
      uint32_t len = rnd_below(11);
      for (uint32_t c = 0; c < 10; c++) enc[i * 10 + c] = (unsigned char)rnd_below(256);
      batch_add_bytes(&b, enc + i * 10, len, -1, 0);
    }
  }
  check_batch(&m, &b, 1, "large byte batch");
  /* strings */
  batch_reset(&b, VIA_STRING);
  for (i = 0; i < n / 8; i++) {
    size_t s = rnd_below(STRINGS * 2);
    batch_add_string(&b, strs[s], s < STRINGS, s < STRINGS ? (uintptr_t)(s + 1) << 3 : 0);
  }
  check_batch(&m, &b, 1, "large string batch");
  batch_release(&b);
  slate_free(&m);
  for (i = 0; i < STRINGS * 2; i++) free(strs[i]);
  free(strs);
  free(enc);
}
