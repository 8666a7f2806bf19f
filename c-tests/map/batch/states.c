/* map/batch: the map calls on maps in every state, keys of every length,
 * integer encodings, duplicates. */
#include "batch.h"

/* Whether the map has a table of slot layout `int_keys` (0 general, 1
   i64, 2 u64; slate.h's slate_table_info_s). */
static int has_layout(const slate_s* m, uint32_t int_keys) {
  slate_info_s in;
  if (slate_info(m, &in) != SLATE_OK) return 0;
  for (uint32_t t = 0; t < in.tables; t++) {
    slate_table_info_s ti;
    if (slate_table_info(m, t, &ti) == SLATE_OK && ti.int_keys == int_keys) return 1;
  }
  return 0;
}

/* A state of the map: the model must match it, then the battery. */
static void state(const slate_s* m, const model_s* md, uint32_t limit, const char* label) {
  size_t hits;
  if (!CHECK(map_matches(m, md))) fprintf(stderr, "  the model is off before %s\n", label);
  hits = battery(m, md, limit, label);
  fprintf(stderr, "   %-36s %6u entries, %6lu keys found\n", label, (unsigned)md->size,
          (unsigned long)hits);
  /* a map with entries: the batches found some (fill_random picks them) */
  if (md->size > 0) CHECK(hits > 0);
}

/* The first diverse key of this kind with a length in lo..hi. */
static const tkey* diverse_key(int kind, uint32_t lo, uint32_t hi) {
  for (uint32_t i = 0; i < DIVERSE; i++)
    if (universe_[i].kind == kind && universe_[i].len >= lo && universe_[i].len <= hi) return &universe_[i];
  return &universe_[0];
}

void test_map_states(void) {
  slate_s m;
  model_s md;
  slate_info_s in;
  unsigned long bad = 0;
  TEST_SECTION("map states: every call and batch size against the single calls");
  model_init(&md);

  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  state(&m, &md, DIVERSE, "fresh map");
  CHECK_EQ_INT(slate_reserve(&m, 5000), SLATE_OK);
  state(&m, &md, DIVERSE, "empty map with reserved tables");
  slate_free(&m);

  memset(&m, 0, sizeof m); /* README: a valid empty map */
  state(&m, &md, DIVERSE, "zero-filled map");
  put_range(&m, &md, 0, 40);
  state(&m, &md, DIVERSE, "zero-filled map, then filled");
  slate_free(&m);
  model_clear(&md);

  /* small maps: one group, every kind of key in it */
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  put_key(&m, &md, diverse_key(KIND_U64, 10, 10), gen_value(), &bad);
  put_key(&m, &md, diverse_key(KIND_STRING, 29, 32), gen_value(), &bad);
  put_key(&m, &md, diverse_key(KIND_BYTES, 129, 5000), gen_value(), &bad);
  state(&m, &md, DIVERSE, "small map (3 entries)");
  put_key(&m, &md, diverse_key(KIND_I64, 10, 10), gen_value(), &bad);
  put_key(&m, &md, diverse_key(KIND_STRING, 1, 28), gen_value(), &bad);
  put_key(&m, &md, diverse_key(KIND_STRING, 33, 128), gen_value(), &bad);
  put_key(&m, &md, diverse_key(KIND_BYTES, 2, 28), gen_value(), &bad);
  put_key(&m, &md, &universe_[0], gen_value(), &bad); /* the empty key */
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_U64(md.size, 8);
  CHECK(slate_info(&m, &in) == SLATE_OK && in.small == 1);
  state(&m, &md, DIVERSE, "small map (8 entries)");
  slate_free(&m);
  model_clear(&md);

  /* one layout per map */
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  put_range(&m, &md, 0, 300);
  state(&m, &md, DIVERSE, "one table (300 diverse keys)");
  slate_free(&m);
  model_clear(&md);
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  put_range(&m, &md, U64_FIRST, 5000);
  CHECK(has_layout(&m, 2) && !has_layout(&m, 0));
  state(&m, &md, UNIVERSE, "u64 keys only (integer layout)");
  slate_free(&m);
  model_clear(&md);
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  put_range(&m, &md, I64_FIRST, 5000);
  CHECK(has_layout(&m, 1) && !has_layout(&m, 0));
  state(&m, &md, UNIVERSE, "i64 keys only (integer layout)");
  slate_free(&m);
  model_clear(&md);

  /* u64 keys with a few strings: tables of both layouts in one map */
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  put_range(&m, &md, U64_FIRST, 20000);
  put_range(&m, &md, 0, 30);
  CHECK(has_layout(&m, 2) && has_layout(&m, 0));
  state(&m, &md, UNIVERSE, "u64 and strings (layouts mixed)");

  /* everything: many tables, deep enough for the requests ahead */
  put_range(&m, &md, 0, UNIVERSE);
  CHECK(slate_info(&m, &in) == SLATE_OK && in.global_depth >= 7);
  state(&m, &md, UNIVERSE, "many tables (whole universe)");

  /* deletes: tombstones */
  for (uint32_t i = 0; i < UNIVERSE; i++)
    if (!rnd_one_in(8)) del_key(&m, &md, &universe_[i], &bad);
  CHECK_EQ_U64(bad, 0);
  CHECK(slate_info(&m, &in) == SLATE_OK && in.tombstones > 0);
  state(&m, &md, UNIVERSE, "after many deletes (tombstones)");
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  state(&m, &md, UNIVERSE, "after slate_compact");

  CHECK_EQ_INT(slate_clear(&m), SLATE_OK);
  model_clear(&md);
  state(&m, &md, UNIVERSE, "after slate_clear");
  put_range(&m, &md, DIVERSE / 2, DIVERSE);
  state(&m, &md, UNIVERSE, "after slate_clear, refilled");

  slate_free(&m);
  model_clear(&md);
  state(&m, &md, UNIVERSE, "after slate_free");
  put_range(&m, &md, 0, 1000);
  state(&m, &md, UNIVERSE, "after slate_free, refilled");
  del_range(&m, &md, 0, 996);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK); /* README: 8 or fewer: small again */
  state(&m, &md, DIVERSE, "compacted down to 4 entries");
  slate_free(&m);
  model_release(&md);
}

/* ------------------------------------------------------------------------ */
/* keys of every length                                                      */
/* ------------------------------------------------------------------------ */

#define LEN_MAX 300u
static const uint32_t long_lengths_[] = {511, 512, 513, 1000, 4096};
#define LENGTHS (LEN_MAX + 1 + 5)

static uint32_t length_at(uint32_t i) { return i <= LEN_MAX ? i : long_lengths_[i - LEN_MAX - 1]; }
static uintptr_t length_value(uint32_t i, int bytes) { return ((uintptr_t)i << 3) | ((uintptr_t)bytes << 2); }

void test_key_lengths(void) {
  slate_s m;
  batch_s b;
  unsigned long bad = 0;
  char** strs = (char**)xmalloc(sizeof(char*) * LENGTHS * 2);  /* key, near miss */
  unsigned char** bys = (unsigned char**)xmalloc(sizeof(unsigned char*) * LENGTHS * 2);
  uint32_t i, j;
  TEST_SECTION("keys of every length 0..300 and longer, strings and bytes with NULs");
  for (i = 0; i < LENGTHS; i++) {
    uint32_t len = length_at(i);
    for (j = 0; j < 2; j++) {
      char* s = (char*)xmalloc(len + 1);
      unsigned char* y = (unsigned char*)xmalloc(len + 1);
      for (uint32_t c = 0; c < len; c++) s[c] = (char)('a' + (c * 7 + len) % 26);
      s[len] = 0;
      if (j == 1 && len > 0) s[len - 1] = '#'; /* near miss: the last byte differs */
      memcpy(y, s, len + 1);
      if (len > 0) y[0] = 0x00; /* a NUL first, and more inside */
      for (uint32_t c = 5; c < len; c += 9) y[c] = 0x00;
      if (j == 1 && len > 0) y[len - 1] = '#';
      strs[i * 2 + j] = s;
      bys[i * 2 + j] = y;
    }
  }
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  /* every even length's key of both kinds is in the map */
  for (i = 0; i < LENGTHS; i += 2) {
    if (slate_set(&m, strs[i * 2], V(length_value(i, 0))) != SLATE_OK) bad++;
    if (i > 0 && slate_set_bytes(&m, bys[i * 2], length_at(i), V(length_value(i, 1))) != SLATE_OK) bad++;
  }
  CHECK_EQ_U64(bad, 0);
  batch_init(&b, LENGTHS * 4, VIA_STRING);
  for (int pass = 0; pass < 4; pass++) {
    int via = pass % 2 ? VIA_BYTES : VIA_STRING;
    batch_reset(&b, via);
    for (i = 0; i < LENGTHS; i++) {
      uint32_t len = length_at(i);
      int even = i % 2 == 0;
      /* length 0: the one empty key, the string's value */
      for (j = 0; j < 2; j++) {
        int in = even && (j == 0 || len == 0);
        if (via == VIA_STRING) {
          batch_add_string(&b, strs[i * 2 + j], in, in ? length_value(i, 0) : 0);
        } else {
          batch_add_bytes(&b, strs[i * 2 + j], len, in, in ? length_value(i, 0) : 0);
          batch_add_bytes(&b, len ? (const void*)bys[i * 2 + j] : NULL, len, in,
                          in ? length_value(i, len > 0) : 0);
        }
      }
    }
    if (pass >= 2) batch_shuffle(&b); /* every length class next to every other */
    check_batch(&m, &b, 1, pass >= 2 ? "every length, shuffled" : "every length, in order");
    check_batch(&m, &b, 0, "every length, presence only");
  }
  batch_release(&b);
  slate_free(&m);
  for (i = 0; i < LENGTHS * 2; i++) {
    free(strs[i]);
    free(bys[i]);
  }
  free(strs);
  free(bys);
}

/* ------------------------------------------------------------------------ */
/* integer keys and their 10-byte encodings                                  */
/* ------------------------------------------------------------------------ */

/* Map `which`: 0 u64 keys only, 1 i64 keys only, 2 both and strings, 3 the
   u64 keys set as 10-byte encodings through slate_set_bytes. Key n of the
   probes: u64 n*3, i64 n*3 - 300 (the i64 of the same bits as the u64 for
   n >= 100 is absent). */
#define PROBES 600u
static int int_present(int which, int kind, uint64_t n) {
  if (n % 2 != 0) return 0; /* the odd ones are never set */
  if (which == 0 || which == 3) return kind == KIND_U64;
  if (which == 1) return kind == KIND_I64;
  return 1;
}
static uint64_t probe_value(int kind, uint64_t n) {
  return kind == KIND_U64 ? n * 3 : (uint64_t)((int64_t)n * 3 - 300);
}
static uintptr_t int_value_of(int kind, uint64_t n) { return (uintptr_t)((n << 2) | (kind == KIND_U64 ? 2u : 0u)); }

void test_integer_encodings(void) {
  static const char* const names[] = {"u64 keys only", "i64 keys only", "i64, u64 and strings",
                                      "u64 keys set as encodings"};
  unsigned char* enc = (unsigned char*)xmalloc(PROBES * 2 * 6 * 12);
  batch_s b;
  TEST_SECTION("integer keys through the byte call: the 10-byte encodings and near misses");
  batch_init(&b, PROBES * 2 * 6, VIA_U64);
  for (int which = 0; which < 4; which++) {
    slate_s m;
    unsigned long bad = 0;
    CHECK_EQ_INT(init_map(&m), SLATE_OK);
    for (uint64_t n = 0; n < PROBES; n += 2) {
      for (int kind = KIND_I64; kind <= KIND_U64; kind++) {
        if (!int_present(which, kind, n)) continue;
        uint64_t v = probe_value(kind, n);
        void* value = V(int_value_of(kind, n));
        if (which == 3) {
          unsigned char e[10];
          encode_int(e, 0x02, v);
          bad += slate_set_bytes(&m, e, 10, value) != SLATE_OK;
        } else {
          bad += (kind == KIND_U64 ? slate_set_u64(&m, v, value) : slate_set_i64(&m, (int64_t)v, value)) != SLATE_OK;
        }
      }
    }
    if (which == 2) {
      bad += slate_set(&m, "a string among integers", V(8)) != SLATE_OK;
      bad += slate_set(&m, "another one, longer than twenty-eight bytes", V(16)) != SLATE_OK;
    }
    CHECK_EQ_U64(bad, 0);
    if (which == 0) CHECK(has_layout(&m, 2) && !has_layout(&m, 0));
    if (which == 1) CHECK(has_layout(&m, 1) && !has_layout(&m, 0));
    if (which == 2) CHECK(has_layout(&m, 0));
    /* through the byte call: exact encodings (found as the integer keys),
       then 9 and 11 bytes, tags 0x00 and 0x03, a first byte of 0x01 */
    batch_reset(&b, VIA_BYTES);
    for (uint64_t n = 0; n < PROBES; n++) {
      for (int kind = KIND_I64; kind <= KIND_U64; kind++) {
        unsigned char* e = enc + (size_t)(n * 2 + (uint64_t)(kind - KIND_I64)) * 6 * 12;
        int in = int_present(which, kind, n);
        uintptr_t want = in ? int_value_of(kind, n) : 0;
        for (int shape = 0; shape < 6; shape++) {
          unsigned char* p = e + shape * 12;
          encode_int(p, kind == KIND_U64 ? 0x02 : 0x01, probe_value(kind, n));
          p[10] = 0x00;
          if (shape == 3) p[1] = 0x00;
          if (shape == 4) p[1] = 0x03;
          if (shape == 5) p[0] = 0x01;
          batch_add_bytes(&b, p, shape == 1 ? 9 : shape == 2 ? 11 : 10, shape == 0 ? in : 0, want);
        }
      }
    }
    check_batch(&m, &b, 1, names[which]);
    check_batch(&m, &b, 0, names[which]);
    /* and through the integer calls */
    for (int kind = KIND_I64; kind <= KIND_U64; kind++) {
      batch_reset(&b, kind == KIND_U64 ? VIA_U64 : VIA_I64);
      for (uint64_t n = 0; n < PROBES; n++) {
        int in = int_present(which, kind, n);
        uintptr_t want = in ? int_value_of(kind, n) : 0;
        if (kind == KIND_U64)
          batch_add_u64(&b, probe_value(kind, n), in, want);
        else
          batch_add_i64(&b, (int64_t)probe_value(kind, n), in, want);
      }
      check_batch(&m, &b, 1, names[which]);
    }
    slate_free(&m);
  }
  batch_release(&b);
  free(enc);
}

/* ------------------------------------------------------------------------ */
/* duplicates                                                                */
/* ------------------------------------------------------------------------ */

void test_duplicates(void) {
  static const size_t sizes[] = {1, 2, 15, 16, 17, 64, 257};
  slate_s m;
  model_s md;
  batch_s b;
  TEST_SECTION("duplicates: one key many times, two keys alternating");
  model_init(&md);
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  put_range(&m, &md, 0, DIVERSE / 2);
  put_range(&m, &md, U64_FIRST, 100);
  put_range(&m, &md, I64_FIRST, 100);
  batch_init(&b, 257, VIA_U64);
  for (int via = 0; via < VIA_COUNT; via++) {
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      for (int shape = 0; shape < 3; shape++) {
        const tkey* present = key_of_slot(md.list[rnd_below(md.size)], via);
        const tkey* other = pick_key(via, UNIVERSE);
        int tries = 0;
        while (present == NULL && tries++ < 1000) present = key_of_slot(md.list[rnd_below(md.size)], via);
        if (present == NULL) present = pick_key(via, UNIVERSE);
        batch_reset(&b, via);
        for (size_t i = 0; i < sizes[s]; i++) {
          /* shape 0: the present key; 1: the other (most likely absent);
             2: both, alternating */
          batch_add(&b, shape == 0 ? present : shape == 1 ? other : i % 2 ? other : present, &md);
        }
        check_batch(&m, &b, 1, "duplicates");
        if (shape == 0 && b.n > 0) CHECK_EQ_INT(b.found[b.n - 1], 1);
      }
    }
  }
  batch_release(&b);
  slate_free(&m);
  model_release(&md);
}
