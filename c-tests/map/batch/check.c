/* map/batch: batches in the form of each call, and the differential
 * checkers (declared in batch.h). */
#include "batch.h"

/* ------------------------------------------------------------------------ */
/* batches                                                                   */
/* ------------------------------------------------------------------------ */

void batch_init(batch_s* b, size_t cap, int via) {
  memset(b, 0, sizeof *b);
  b->cap = cap;
  b->via = via;
  b->u64 = (uint64_t*)xmalloc(sizeof(uint64_t) * cap);
  b->i64 = (int64_t*)xmalloc(sizeof(int64_t) * cap);
  b->ptrs = (const void**)xmalloc(sizeof(const void*) * cap);
  b->lens = (uint32_t*)xmalloc(sizeof(uint32_t) * cap);
  b->strs = (const char**)xmalloc(sizeof(const char*) * cap);
  b->expect = (signed char*)xmalloc(cap);
  b->want = (uintptr_t*)xmalloc(sizeof(uintptr_t) * cap);
  b->values = (void**)xmalloc(sizeof(void*) * cap);
  b->found = (uint8_t*)xmalloc(cap);
  b->arena_cap = cap <= 65536 ? cap * 24 + 65536 : 65536;
  b->arena = (unsigned char*)xmalloc(b->arena_cap);
}

void batch_release(batch_s* b) {
  free(b->u64);
  free(b->i64);
  free((void*)b->ptrs);
  free(b->lens);
  free((void*)b->strs);
  free(b->expect);
  free(b->want);
  free(b->values);
  free(b->found);
  free(b->arena);
  memset(b, 0, sizeof *b);
}

void batch_reset(batch_s* b, int via) {
  b->n = 0;
  b->via = via;
  b->arena_used = 0;
}

static size_t batch_slot(batch_s* b, int expect, uintptr_t want) {
  size_t i = b->n;
  if (i >= b->cap) {
    fprintf(stderr, "map/batch: batch of %lu keys is full\n", (unsigned long)b->cap);
    exit(2);
  }
  b->n++;
  b->expect[i] = (signed char)expect;
  b->want[i] = want;
  /* the forms this batch does not use hold values a call must not read */
  b->u64[i] = 0;
  b->i64[i] = 0;
  b->ptrs[i] = NULL;
  b->lens[i] = 0;
  b->strs[i] = NULL;
  return i;
}

void batch_add_u64(batch_s* b, uint64_t key, int expect, uintptr_t want) {
  b->u64[batch_slot(b, expect, want)] = key;
}

void batch_add_i64(batch_s* b, int64_t key, int expect, uintptr_t want) {
  b->i64[batch_slot(b, expect, want)] = key;
}

void batch_add_bytes(batch_s* b, const void* key, uint32_t len, int expect, uintptr_t want) {
  size_t i = batch_slot(b, expect, want);
  b->ptrs[i] = key;
  b->lens[i] = len;
}

void batch_add_string(batch_s* b, const char* key, int expect, uintptr_t want) {
  b->strs[batch_slot(b, expect, want)] = key;
}

int reachable(const tkey* k, int via) {
  switch (via) {
    case VIA_U64:
      return k->kind == KIND_U64;
    case VIA_I64:
      return k->kind == KIND_I64;
    case VIA_BYTES:
      return 1;
    default:
      return k->nul_free;
  }
}

void batch_add(batch_s* b, const tkey* k, const model_s* md) {
  int expect = md ? md->present[k->slot] : -1;
  uintptr_t want = md && md->present[k->slot] ? md->value[k->slot] : 0;
  switch (b->via) {
    case VIA_U64:
      batch_add_u64(b, k->ival, expect, want);
      break;
    case VIA_I64:
      batch_add_i64(b, (int64_t)k->ival, expect, want);
      break;
    case VIA_BYTES: /* the empty key as NULL, now and then */
      batch_add_bytes(b, k->len == 0 && rnd_one_in(2) ? NULL : (const void*)k->b, k->len, expect, want);
      break;
    default:
      batch_add_string(b, (const char*)k->b, expect, want);
      break;
  }
}

const tkey* pick_key(int via, uint32_t limit) {
  for (int tries = 0; tries < 200; tries++) {
    const tkey* k = &universe_[rnd_below(limit)];
    if (reachable(k, via)) return k;
  }
  if (via == VIA_U64) return &universe_[U64_FIRST + rnd_below(INTS / 2)];
  if (via == VIA_I64) return &universe_[I64_FIRST + rnd_below(INTS / 2)];
  return &universe_[0]; /* the empty string */
}

/* The model's answer for bytes no universe key may have: absent, unless
   they are a universe key's after all. */
static void expect_of(const model_s* md, const void* bytes, uint32_t len, int* expect, uintptr_t* want) {
  int32_t slot = model_find(bytes, len);
  *expect = md == NULL ? -1 : slot < 0 ? 0 : md->present[slot];
  *want = *expect == 1 ? md->value[slot] : 0;
}

/* A key no test inserts (most likely): random integers, random bytes of
   any length class (in the batch's arena), random encodings. */
static void add_fresh(batch_s* b, const model_s* md) {
  unsigned char enc[10];
  int expect;
  uintptr_t want;
  uint32_t len, i;
  if (b->via == VIA_U64 || b->via == VIA_I64) {
    uint64_t v = rnd_one_in(4) ? (uint64_t)rnd_below(2000) - 1000 : rnd();
    encode_int(enc, b->via == VIA_I64 ? 0x01 : 0x02, v);
    expect_of(md, enc, 10, &expect, &want);
    if (b->via == VIA_U64)
      batch_add_u64(b, v, expect, want);
    else
      batch_add_i64(b, (int64_t)v, expect, want);
    return;
  }
  len = rnd_one_in(8) ? 129 + rnd_below(200) : rnd_below(70);
  if (b->arena_used + len + 1 > b->arena_cap) len = 0;
  unsigned char* p = b->arena + b->arena_used;
  b->arena_used += len + 1;
  if (b->via == VIA_BYTES && len == 10 && rnd_one_in(2)) {
    encode_int(p, (unsigned char)(1 + rnd_below(2)), rnd_below(4000));
  } else {
    for (i = 0; i < len; i++) {
      unsigned char c = (unsigned char)rnd_below(256);
      p[i] = b->via == VIA_STRING && c == 0 ? (unsigned char)'0' : c;
    }
  }
  p[len] = 0;
  expect_of(md, p, len, &expect, &want);
  if (b->via == VIA_BYTES)
    batch_add_bytes(b, len == 0 && rnd_one_in(2) ? NULL : p, len, expect, want);
  else
    batch_add_string(b, (const char*)p, expect, want);
}

void batch_swap(batch_s* b, size_t i, size_t j) {
#define SWAP_(type, a)  \
  do {                  \
    type t_ = b->a[i];  \
    b->a[i] = b->a[j];  \
    b->a[j] = t_;       \
  } while (0)
  SWAP_(uint64_t, u64);
  SWAP_(int64_t, i64);
  SWAP_(const void*, ptrs);
  SWAP_(uint32_t, lens);
  SWAP_(const char*, strs);
  SWAP_(signed char, expect);
  SWAP_(uintptr_t, want);
#undef SWAP_
}

void batch_shuffle(batch_s* b) {
  for (size_t k = b->n; k > 1; k--) batch_swap(b, k - 1, (size_t)(rnd() % k));
}

/* Position j again: the same key, and so the same answer. */
static void add_duplicate(batch_s* b, size_t j) {
  size_t i = batch_slot(b, b->expect[j], b->want[j]);
  b->u64[i] = b->u64[j];
  b->i64[i] = b->i64[j];
  b->ptrs[i] = b->ptrs[j];
  b->lens[i] = b->lens[j];
  b->strs[i] = b->strs[j];
}

void fill_random(batch_s* b, int via, size_t n, uint32_t limit, const model_s* md) {
  batch_reset(b, via);
  while (b->n < n) {
    uint32_t r = rnd_below(16);
    if (r < 7 && md != NULL && md->size > 0) { /* a key the map holds */
      const tkey* k = key_of_slot(md->list[rnd_below(md->size)], via);
      if (k != NULL) {
        batch_add(b, k, md);
        continue;
      }
    }
    if (r >= 12 && r < 14 && b->n > 0)
      add_duplicate(b, rnd_below((uint32_t)b->n));
    else if (r >= 14)
      add_fresh(b, md);
    else
      batch_add(b, pick_key(via, limit), md);
  }
}

/* ------------------------------------------------------------------------ */
/* the map checker                                                           */
/* ------------------------------------------------------------------------ */

int call_batch(const slate_s* m, const batch_s* b, int with_values) {
  void** values = with_values ? b->values : NULL;
  switch (b->via) {
    case VIA_U64:
      return slate_get_many_u64(m, b->u64, b->n, values, b->found);
    case VIA_I64:
      return slate_get_many_i64(m, b->i64, b->n, values, b->found);
    case VIA_BYTES:
      return slate_get_many_bytes(m, b->ptrs, b->lens, b->n, values, b->found);
    default:
      return slate_get_many(m, b->strs, b->n, values, b->found);
  }
}

static int single(const slate_s* m, const batch_s* b, size_t i, void** value) {
  switch (b->via) {
    case VIA_U64:
      return slate_get_u64(m, b->u64[i], value);
    case VIA_I64:
      return slate_get_i64(m, b->i64[i], value);
    case VIA_BYTES:
      return slate_get_bytes(m, b->ptrs[i], b->lens[i], value);
    default:
      return slate_get(m, b->strs[i], value);
  }
}

static void where(const batch_s* b, int with_values, const char* label) {
  fprintf(stderr, "  in %s: %s, %lu keys, values %s\n", label, via_names_[b->via],
          (unsigned long)b->n, with_values ? "given" : "NULL");
}

static void describe(const batch_s* b, size_t i, int rc1, void* v1) {
  fprintf(stderr, "    key %lu: ", (unsigned long)i);
  switch (b->via) {
    case VIA_U64:
      fprintf(stderr, "u64 %llu", (unsigned long long)b->u64[i]);
      break;
    case VIA_I64:
      fprintf(stderr, "i64 %lld", (long long)b->i64[i]);
      break;
    default: {
      const unsigned char* p = (const unsigned char*)(b->via == VIA_BYTES ? b->ptrs[i] : b->strs[i]);
      uint32_t len = b->via == VIA_BYTES ? b->lens[i] : (uint32_t)strlen(b->strs[i]);
      fprintf(stderr, "%u bytes%s", (unsigned)len, p == NULL ? " (NULL)" : ":");
      for (uint32_t j = 0; p != NULL && j < len && j < 16; j++) fprintf(stderr, " %02x", p[j]);
      if (len > 16) fprintf(stderr, " ...");
    }
  }
  fprintf(stderr, "; batch: found %u value %p; single: rc %d value %p; model: %d %p\n",
          (unsigned)b->found[i], b->values[i], rc1, v1, (int)b->expect[i], V(b->want[i]));
}

size_t check_batch(const slate_s* m, batch_s* b, int with_values, const char* label) {
  slate_s before;
  unsigned long long attempts;
  unsigned long wrong = 0;
  size_t i, hits = 0;
  int rc;
  for (i = 0; i < b->n; i++) {
    b->values[i] = PREFILL(i);
    b->found[i] = FOUND_PREFILL;
  }
  memcpy(&before, m, sizeof before);
  attempts = alloc_attempts();
  rc = call_batch(m, b, with_values);
  /* the call: OK, nothing allocated, the map's bytes untouched */
  if (!CHECK_EQ_INT(rc, SLATE_OK)) where(b, with_values, label);
  if (!CHECK_EQ_U64(alloc_attempts(), attempts)) where(b, with_values, label);
  if (!CHECK(memcmp(&before, m, sizeof before) == 0)) where(b, with_values, label);
  /* each key: as the single call says, and as the model says */
  for (i = 0; i < b->n; i++) {
    void* v = SENTINEL;
    int rc1 = single(m, b, i, &v);
    int in = rc1 == SLATE_OK;
    int bad = (!in && rc1 != SLATE_ERROR_NOT_FOUND) || b->found[i] != in;
    if (with_values) bad |= in ? b->values[i] != v : b->values[i] != PREFILL(i);
    if (b->expect[i] >= 0) {
      bad |= b->found[i] != (uint8_t)b->expect[i];
      if (with_values && b->expect[i] == 1) bad |= b->values[i] != V(b->want[i]);
    }
    if (bad && wrong++ < 5) describe(b, i, rc1, v);
    hits += b->found[i] == 1;
  }
  if (!CHECK_EQ_U64(wrong, 0)) where(b, with_values, label);
  return hits;
}

size_t battery(const slate_s* m, const model_s* md, uint32_t limit, const char* label) {
  batch_s b;
  size_t hits = 0;
  batch_init(&b, 257, VIA_U64);
  for (int via = 0; via < VIA_COUNT; via++) {
    for (size_t s = 0; s < batch_size_count_; s++) {
      for (int with_values = 1; with_values >= 0; with_values--) {
        fill_random(&b, via, batch_sizes_[s], limit, md);
        hits += check_batch(m, &b, with_values, label);
      }
    }
  }
  batch_release(&b);
  return hits;
}

/* ------------------------------------------------------------------------ */
/* the slotmap checker                                                       */
/* ------------------------------------------------------------------------ */

size_t check_slotmap_batch(const slotmap_s* sm, const slotmap_key* keys, size_t n,
                           const signed char* expect, void** elements, const char* label) {
  slotmap_s before;
  unsigned long long attempts;
  unsigned long wrong = 0;
  size_t i, hits = 0;
  int rc;
  for (i = 0; i < n; i++) elements[i] = SENTINEL;
  memcpy(&before, sm, sizeof before);
  attempts = alloc_attempts();
  rc = slotmap_get_many(sm, keys, n, elements);
  if (!CHECK_EQ_INT(rc, SLATE_OK)) fprintf(stderr, "  in %s (%lu keys)\n", label, (unsigned long)n);
  if (!CHECK_EQ_U64(alloc_attempts(), attempts)) fprintf(stderr, "  in %s\n", label);
  if (!CHECK(memcmp(&before, sm, sizeof before) == 0)) fprintf(stderr, "  in %s\n", label);
  for (i = 0; i < n; i++) {
    void* e = SENTINEL;
    int rc1 = slotmap_get(sm, keys[i], &e);
    /* found: the very pointer slotmap_get gives; else NULL (written) */
    int bad = rc1 == SLATE_OK ? e == NULL || elements[i] != e
                              : rc1 != SLATE_ERROR_NOT_FOUND || elements[i] != NULL;
    if (expect != NULL && expect[i] >= 0) bad |= (elements[i] != NULL) != expect[i];
    if (bad && wrong++ < 5)
      fprintf(stderr,
              "    key %lu: 0x%016llx (slot %lu, generation %lu); batch %p; single rc %d %p; "
              "model %d\n",
              (unsigned long)i, (unsigned long long)keys[i], (unsigned long)(keys[i] & 0xFFFFFFFFu),
              (unsigned long)(keys[i] >> 32), elements[i], rc1, e, expect ? (int)expect[i] : -1);
    hits += elements[i] != NULL && elements[i] != SENTINEL;
  }
  if (!CHECK_EQ_U64(wrong, 0)) fprintf(stderr, "  in %s (%lu keys)\n", label, (unsigned long)n);
  return hits;
}
