/*
 * abi/threads.c -- read-only calls from several threads at once, on a map
 * a slotmap and two sparse sets keyed by its keys that nobody modifies:
 * lookups, walks, slate_equal, slate_info, clones from them, cursors
 * (slate_iter, slate_iter_next), the sets' get, get_many, contains, row,
 * keys, each, and joins of the sets with the slotmap as their owner, and
 * saves (SPEC 6c: a save only reads) of the map with and without a codec,
 * of the slotmap and of both sets, each of whose bytes must equal the
 * reference save made before the threads started (the same map saves in
 * the same iteration order, so the same bytes). Built
 * twice by `make tsan-test`: natively,
 * and under ThreadSanitizer with the library instrumented too, where any
 * write a read-only call made into the shared structure would be a
 * reported data race. Meanwhile other threads write maps of their own.
 */
#include "slate.h"
#include "../support/test.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(n) ((void*)(uintptr_t)(n))

enum { THREADS = 4, ROUNDS = 40, KEYS = 3000, ROWS = 2000 };

static slate_s shared_, twin_;
static slotmap_s rows_;
static slotmap_key row_keys_[ROWS];
/* parts_: a u64 (r * 3) for every row r not a multiple of 3; tags_:
   membership of every even row */
static slotmap_sparse_s parts_, tags_;

typedef struct worker_s {
  int id;
  unsigned long bad, walked, saves;
} worker_s;

/* The codec of the map's saves: a value as its 8 bytes and n % 400 more,
   4,500 more again for every ninth (records past 4 KiB: each save
   allocates its scratch buffer, on every thread at once); no state, so
   any thread may run it. */
static int encode_n(void* context, void* value, void* buffer, uint32_t capacity, uint32_t* length) {
  uint64_t n = (uint64_t)(uintptr_t)value;
  (void)context;
  *length = (uint32_t)(8 + n % 400 + (n % 9 == 4 ? 4500 : 0));
  if (*length <= capacity) {
    unsigned char* b = (unsigned char*)buffer;
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(n >> (8 * i));
    memset(b + 8, (int)(n & 0xFF), *length - 8);
  }
  return 0;
}

static const slate_value_codec_s codec_ = {encode_n, NULL, NULL, NULL};

/* The reference saves: the map (integer values, codec values), the
   slotmap, the set of u64 rows, the membership set. */
enum { SAVES = 5 };
static slate_buffer_s reference_[SAVES];

static int save_one(int which, slate_buffer_s* buf) {
  switch (which) {
    case 0: return slate_save(&shared_, NULL, slate_buffer_write, buf);
    case 1: return slate_save(&shared_, &codec_, slate_buffer_write, buf);
    case 2: return slotmap_save(&rows_, slate_buffer_write, buf);
    case 3: return slotmap_sparse_save(&parts_, slate_buffer_write, buf);
    default: return slotmap_sparse_save(&tags_, slate_buffer_write, buf);
  }
}

static void save_references(void) {
  for (int i = 0; i < SAVES; i++) {
    uint64_t size = 0;
    if (i < 2)
      CHECK_EQ_INT(slate_save_size(&shared_, i ? &codec_ : NULL, &size), SLATE_OK);
    else
      size = i == 2 ? slotmap_save_size(&rows_) : slotmap_sparse_save_size(i == 3 ? &parts_ : &tags_);
    reference_[i].bytes = malloc((size_t)size);
    reference_[i].capacity = (size_t)size;
    reference_[i].length = 0;
    CHECK_EQ_INT(save_one(i, &reference_[i]), SLATE_OK);
    CHECK_EQ_U64(reference_[i].length, size);
  }
}

/* A save on this thread gives the reference's bytes. */
static void save_and_compare(worker_s* w, int which) {
  slate_buffer_s buf;
  buf.capacity = reference_[which].capacity;
  buf.bytes = malloc(buf.capacity);
  buf.length = 0;
  if (buf.bytes == NULL || save_one(which, &buf) != SLATE_OK ||
      buf.length != reference_[which].length ||
      memcmp(buf.bytes, reference_[which].bytes, buf.length) != 0)
    w->bad++;
  free(buf.bytes);
  w->saves++;
}

static int count_cb(const char* key, uint32_t length, void* value, void* data) {
  worker_s* w = (worker_s*)data;
  void* again = NULL;
  /* a lookup of the walked map from inside its walk */
  if (slate_get_bytes(&shared_, key, length, &again) != SLATE_OK || again != value) w->bad++;
  w->walked++;
  return 0;
}

static int row_cb(slotmap_key key, void* row, void* data) {
  worker_s* w = (worker_s*)data;
  void* element = NULL;
  if (slotmap_get(&rows_, key, &element) != SLATE_OK || element != row) w->bad++;
  w->walked++;
  return 0;
}

static int part_cb(slotmap_key key, void* element, void* data) {
  worker_s* w = (worker_s*)data;
  void* again = NULL;
  uint32_t row = 0;
  if (slotmap_sparse_get(&parts_, key, &again) != SLATE_OK || again != element) w->bad++;
  if (slotmap_row(&rows_, key, &row) != SLATE_OK || *(uint64_t*)element != (uint64_t)row * 3u)
    w->bad++;
  w->walked++;
  return 0;
}

static int joined_cb(slotmap_key key, const uint32_t* rows, void* const* elements, void* data) {
  worker_s* w = (worker_s*)data;
  /* rows of even rows not multiples of 3; the owner's element is its row */
  uint32_t r = *(const uint32_t*)elements[2];
  if (r % 2 != 0 || r % 3 == 0 || row_keys_[r] != key) w->bad++;
  if (elements[1] != NULL || *(const uint64_t*)elements[0] != (uint64_t)r * 3u) w->bad++;
  if (slotmap_sparse_key_at(&parts_, rows[0]) != key || slotmap_sparse_key_at(&tags_, rows[1]) != key)
    w->bad++;
  w->walked++;
  return 0;
}

/* Reads of the two sets, and their join. */
static void read_sets(worker_s* w) {
  slotmap_key keys[64];
  void* elements[64];
  uint8_t found[64];
  for (int r = w->id; r < ROWS; r += 3) {
    void* e = NULL;
    int has = r % 3 != 0;
    if (slotmap_sparse_get(&parts_, row_keys_[r], &e) != (has ? SLATE_OK : SLATE_ERROR_NOT_FOUND))
      w->bad++;
    if (has && *(uint64_t*)e != (uint64_t)r * 3u) w->bad++;
    if (slotmap_sparse_contains(&tags_, row_keys_[r]) != (r % 2 == 0)) w->bad++;
  }
  for (int base = 0; base + 64 <= ROWS; base += 64 * 4) {
    if (slotmap_sparse_get_many(&parts_, row_keys_ + base, 64, elements, found) != SLATE_OK) w->bad++;
    for (int i = 0; i < 64; i++)
      if (found[i] != ((base + i) % 3 != 0) || (found[i] && *(uint64_t*)elements[i] != (uint64_t)(base + i) * 3u))
        w->bad++;
  }
  /* the tags' dense keys, looked up in the other set */
  const slotmap_key* tagged = slotmap_sparse_keys(&tags_);
  uint32_t n = slotmap_sparse_length(&tags_);
  for (uint32_t i = 0; i + 64 <= n; i += 64) {
    memcpy(keys, tagged + i, sizeof keys);
    if (slotmap_sparse_get_many(&parts_, keys, 64, NULL, found) != SLATE_OK) w->bad++;
    for (int j = 0; j < 64; j++)
      if (found[j] != slotmap_sparse_contains(&parts_, keys[j])) w->bad++;
  }
  w->walked = 0;
  if (slotmap_sparse_each(&parts_, part_cb, w) != SLATE_OK || w->walked != ROWS - (ROWS + 2) / 3)
    w->bad++;
  w->walked = 0;
  slotmap_sparse_s* sets[2] = {&parts_, &tags_};
  if (slotmap_join(&rows_, sets, 2, joined_cb, w) != SLATE_OK) w->bad++;
  uint32_t want = 0;
  for (uint32_t r = 0; r < ROWS; r++) want += r % 2 == 0 && r % 3 != 0;
  if (w->walked != want) w->bad++;
}

/* Two cursors on the shared map, taken in turns: each gives every entry
 * once, as a lookup sees it, and the same sequence. */
static void read_with_cursors(worker_s* w) {
  slate_iter_s a, b;
  const char *ka, *kb;
  uint32_t na, nb;
  void *va, *vb;
  int ra, rb;
  unsigned long n = 0;
  if (slate_iter(&a, &shared_) != SLATE_OK || slate_iter(&b, &shared_) != SLATE_OK) w->bad++;
  for (;;) {
    ra = slate_iter_next(&a, &shared_, &ka, &na, &va);
    rb = slate_iter_next(&b, &shared_, &kb, &nb, &vb);
    if (ra != rb) w->bad++;
    if (ra != SLATE_OK) break;
    void* again = NULL;
    if (na != nb || va != vb || memcmp(ka, kb, na) != 0) w->bad++;
    if (slate_get_bytes(&shared_, ka, na, &again) != SLATE_OK || again != va) w->bad++;
    n++;
  }
  if (ra != SLATE_ERROR_NOT_FOUND || n != 3 * KEYS) w->bad++;
}

static void* reader(void* arg) {
  worker_s* w = (worker_s*)arg;
  char key[32];
  for (int round = 0; round < ROUNDS; round++) {
    for (uint64_t k = (uint64_t)w->id; k < KEYS; k += 7) {
      void* v = NULL;
      if (slate_get_u64(&shared_, k, &v) != SLATE_OK || v != V(k + 1)) w->bad++;
      snprintf(key, sizeof key, "key-%llu", (unsigned long long)k);
      if (slate_get(&shared_, key, &v) != SLATE_OK || v != V(k + 2)) w->bad++;
      if (slate_get_i64(&shared_, -(int64_t)k - 1, NULL) != SLATE_OK) w->bad++;
    }
    w->walked = 0;
    if (slate_each(&shared_, count_cb, w) != SLATE_OK || w->walked != 3 * KEYS) w->bad++;
    if (slate_equal(&shared_, &twin_) != 1) w->bad++;
    if (round % 4 == w->id % 4) read_with_cursors(w);
    if (slate_length(&shared_) != 3 * KEYS) w->bad++;
    slate_info_s in;
    if (slate_info(&shared_, &in) != SLATE_OK || in.length != 3 * KEYS) w->bad++;
    if (round % 8 == 0) {
      slate_s copy;
      if (slate_clone(&copy, &shared_) != SLATE_OK || slate_equal(&copy, &shared_) != 1) w->bad++;
      slate_free(&copy);
    }
    for (int r = w->id; r < ROWS; r += 5) {
      void* e = NULL;
      if (slotmap_get(&rows_, row_keys_[r], &e) != SLATE_OK || *(uint32_t*)e != (uint32_t)r)
        w->bad++;
      if (slotmap_contains(&rows_, row_keys_[r]) != 1) w->bad++;
    }
    w->walked = 0;
    if (slotmap_each(&rows_, row_cb, w) != SLATE_OK || w->walked != ROWS) w->bad++;
    read_sets(w);
    /* saves, each thread starting at another one */
    save_and_compare(w, (round + w->id) % SAVES);
    if (round % 4 == 0) save_and_compare(w, (round + w->id + 1) % SAVES);
  }
  return NULL;
}

/* A thread that writes a map of its own while the others read theirs. */
static void* writer(void* arg) {
  worker_s* w = (worker_s*)arg;
  slate_s own;
  if (slate(&own) != SLATE_OK) w->bad++;
  for (uint64_t k = 0; k < 20000; k++)
    if (slate_set_u64(&own, k, V(k)) != SLATE_OK) w->bad++;
  for (uint64_t k = 0; k < 20000; k += 2)
    if (slate_delete_u64(&own, k) != SLATE_OK) w->bad++;
  if (slate_length(&own) != 10000) w->bad++;
  /* and a cursor that deletes every key of 4k + 1 */
  slate_iter_s it;
  uint64_t k;
  const char* key;
  uint32_t length;
  int rc;
  if (slate_iter(&it, &own) != SLATE_OK) w->bad++;
  while ((rc = slate_iter_next(&it, &own, &key, &length, NULL)) == SLATE_OK)
    if (slate_key_to_u64(key, length, &k) == SLATE_OK && k % 4 == 1 &&
        slate_iter_delete(&it, &own) != SLATE_OK)
      w->bad++;
  if (rc != SLATE_ERROR_NOT_FOUND || slate_length(&own) != 5000) w->bad++;
  slate_free(&own);
  return NULL;
}

/* slate_strerror's sentences for -6 .. 1, as the main thread saw them. */
static const char* sentences_[8];

/* slate_strerror on many threads at once: the same static sentences. */
static void* strerror_worker(void* arg) {
  worker_s* w = (worker_s*)arg;
  for (int r = 0; r < 20000; r++) {
    for (int c = -6; c <= 1; c++) {
      const char* s = slate_strerror(c);
      if (s != sentences_[c + 6] || strcmp(s, sentences_[c + 6]) != 0) w->bad++;
    }
  }
  return NULL;
}

static void test_strerror_threads(void) {
  for (int c = -6; c <= 1; c++) sentences_[c + 6] = slate_strerror(c);
  pthread_t threads[THREADS];
  worker_s workers[THREADS];
  memset(workers, 0, sizeof workers);
  for (int i = 0; i < THREADS; i++) CHECK_EQ_INT(pthread_create(&threads[i], NULL, strerror_worker, &workers[i]), 0);
  unsigned long bad = 0;
  for (int i = 0; i < THREADS; i++) {
    CHECK_EQ_INT(pthread_join(threads[i], NULL), 0);
    bad += workers[i].bad;
  }
  CHECK_EQ_U64(bad, 0);
}

int main(void) {
  char key[32];
  test_strerror_threads();
  CHECK_EQ_INT(slate(&shared_), SLATE_OK);
  CHECK_EQ_INT(slotmap(&rows_, sizeof(uint32_t)), SLATE_OK);
  for (uint64_t k = 0; k < KEYS; k++) {
    snprintf(key, sizeof key, "key-%llu", (unsigned long long)k);
    CHECK_EQ_INT(slate_set_u64(&shared_, k, V(k + 1)), SLATE_OK);
    CHECK_EQ_INT(slate_set(&shared_, key, V(k + 2)), SLATE_OK);
    CHECK_EQ_INT(slate_set_i64(&shared_, -(int64_t)k - 1, V(k + 3)), SLATE_OK);
  }
  CHECK_EQ_INT(slate_clone(&twin_, &shared_), SLATE_OK);
  for (uint32_t r = 0; r < ROWS; r++) CHECK_EQ_INT(slotmap_insert(&rows_, &r, &row_keys_[r]), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&parts_, sizeof(uint64_t)), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse(&tags_, 0), SLATE_OK);
  for (uint32_t r = 0; r < ROWS; r++) {
    uint64_t v = (uint64_t)r * 3u;
    if (r % 3 != 0) CHECK_EQ_INT(slotmap_sparse_set(&parts_, &rows_, row_keys_[r], &v), SLATE_OK);
    if (r % 2 == 0) CHECK_EQ_INT(slotmap_sparse_set(&tags_, &rows_, row_keys_[r], NULL), SLATE_OK);
  }

  save_references();

  pthread_t threads[THREADS + 2];
  worker_s workers[THREADS + 2];
  memset(workers, 0, sizeof workers);
  for (int i = 0; i < THREADS + 2; i++) {
    workers[i].id = i;
    CHECK_EQ_INT(pthread_create(&threads[i], NULL, i < THREADS ? reader : writer, &workers[i]), 0);
  }
  unsigned long bad = 0, saves = 0;
  for (int i = 0; i < THREADS + 2; i++) {
    CHECK_EQ_INT(pthread_join(threads[i], NULL), 0);
    bad += workers[i].bad;
    saves += workers[i].saves;
  }
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_U64(saves, THREADS * (ROUNDS + ROUNDS / 4));
  for (int i = 0; i < SAVES; i++) free(reference_[i].bytes);
  /* after the readers, the map is as it was and may be modified again */
  CHECK_EQ_INT(slate_equal(&shared_, &twin_), 1);
  CHECK_EQ_INT(slate_set(&shared_, "after", V(9)), SLATE_OK);
  slate_free(&shared_);
  slate_free(&twin_);
  /* the sets are as they were, and may be modified again */
  CHECK_EQ_U64(slotmap_sparse_length(&parts_), ROWS - (ROWS + 2) / 3);
  CHECK_EQ_INT(slotmap_sparse_erase(&tags_, row_keys_[0]), SLATE_OK);
  CHECK_EQ_INT(slotmap_sparse_prune(&parts_, &rows_), SLATE_OK);
  slotmap_sparse_free(&parts_);
  slotmap_sparse_free(&tags_);
  slotmap_free(&rows_);
  return TEST_SUMMARY();
}
