/*
 * map/snapshot.c -- map snapshots through the C API (SPEC §6c): integer
 * values and codec values round trip into memory with slate_buffer_write,
 * the loaded map passes slate_check and equals the saved one, re-saves
 * have the same size, every truncation is CORRUPT, decode's and write's
 * failures are returned and every decoded value is discarded once, and
 * the argument and destination rules. Then: no deleted key or value, and
 * no byte an encoder wrote past its value's length, is in a save; saves
 * hand every byte to write(2) (support/sink.h: under Valgrind an
 * uninitialized byte is an error); `write` failing at each of its calls,
 * `encode` at each of its calls and `decode` at each value (the code
 * returned, the map unchanged, its scratch buffer returned, every value
 * decoded before the failure discarded once, the destination unchanged);
 * and changes from inside `write` and `encode` (SPEC 3c: a change stops
 * the save with SLATE_ERROR_INVALID, a code returned with it stands, a
 * replaced value or a failed call is no change).
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -Iinclude c-tests/map/snapshot.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/tm && /tmp/tm
 */
#include "slate.h"
#include "../support/test.h"
#include "../support/sink.h"

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

/* ---- blob values, and a codec that counts and fails on demand ---------- */

/* A codec value: `n` bytes at `b`, in one malloc'd block. */
typedef struct blob_s {
  uint32_t n;
  unsigned char* b;
} blob_s;

static blob_s* new_blob(uint32_t n, unsigned seed, int canary) {
  blob_s* v = (blob_s*)malloc(sizeof(blob_s) + n + 1);
  if (v == NULL) return NULL;
  v->n = n;
  v->b = (unsigned char*)(v + 1);
  if (canary)
    fill_canary(v->b, n);
  else
    for (uint32_t i = 0; i < n; i++) v->b[i] = (unsigned char)('a' + (seed + i * 7) % 26);
  return v;
}

/* A change a callback (`write`, `encode`) makes to the map being saved, at
   its call number `at`. */
enum { CH_NONE, CH_INSERT, CH_DELETE, CH_CLEAR, CH_FREE, CH_REPLACE, CH_DELETE_ABSENT, CH_KINDS };
static const char* const change_names[CH_KINDS] = {"none",    "insert", "delete",
                                                   "clear",   "free",   "replace",
                                                   "delete an absent key"};

typedef struct changer_s {
  slate_s* map;
  unsigned long calls, at; /* this callback's calls; change at call `at` (0: never) */
  int kind;
  int rc;           /* returned with the change */
  char victim[32];  /* the key CH_DELETE / CH_REPLACE work on */
  void* old_value;  /* its value before */
  void* new_value;  /* CH_REPLACE's, CH_INSERT's */
  int changed;      /* the change was made (its call's result) */
} changer_s;

static const char INSERTED_KEY[] = "inserted by a callback";

/* One call of the callback: at call `at`, the change, and its return. */
static int changer_tick(changer_s* c) {
  if (c == NULL || ++c->calls != c->at) return 0;
  switch (c->kind) {
    case CH_INSERT:
      c->changed = slate_set(c->map, INSERTED_KEY, c->new_value);
      break;
    case CH_DELETE:
      c->changed = slate_take(c->map, c->victim, &c->old_value);
      break;
    case CH_CLEAR:
      c->changed = slate_clear(c->map);
      break;
    case CH_FREE:
      slate_free(c->map);
      c->changed = SLATE_OK;
      break;
    case CH_REPLACE:
      c->changed = slate_get(c->map, c->victim, &c->old_value);
      if (c->changed == SLATE_OK) c->changed = slate_set(c->map, c->victim, c->new_value);
      break;
    case CH_DELETE_ABSENT:
      c->changed = slate_delete(c->map, "no such key") == SLATE_ERROR_NOT_FOUND ? SLATE_OK : -1;
      break;
  }
  return c->rc;
}

typedef struct codec_state_s {
  unsigned long encodes, decodes, made, discards;
  unsigned long fail_encode_at, fail_decode_at; /* call numbers; 0 never */
  int fail_rc;
  long live;           /* values decode made and nothing freed yet */
  int scribble;        /* encode writes canaries past its length, within capacity */
  changer_s* changer;  /* a change from inside encode */
} codec_state_s;

static int encode_blob(void* context, void* value, void* buffer, uint32_t capacity,
                       uint32_t* length) {
  codec_state_s* s = (codec_state_s*)context;
  const blob_s* v = (const blob_s*)value;
  s->encodes++;
  if (s->fail_encode_at != 0 && s->encodes == s->fail_encode_at) return s->fail_rc;
  int rc = changer_tick(s->changer);
  *length = v->n;
  if (v->n <= capacity) {
    if (v->n > 0) memcpy(buffer, v->b, v->n);
    /* as snprintf's NUL: bytes past the length, inside the capacity */
    if (s->scribble && capacity > v->n) {
      uint32_t extra = capacity - v->n < 3 * CANARY ? capacity - v->n : 3 * CANARY;
      fill_canary((unsigned char*)buffer + v->n, extra);
    }
  }
  return rc;
}

static int decode_blob(void* context, const void* bytes, uint32_t length, void** value) {
  codec_state_s* s = (codec_state_s*)context;
  s->decodes++;
  if (s->fail_decode_at != 0 && s->decodes == s->fail_decode_at) return s->fail_rc;
  blob_s* v = new_blob(length, 0, 0);
  if (v == NULL) return SLATE_ERROR_ALLOC;
  if (length > 0) memcpy(v->b, bytes, length);
  *value = v;
  s->made++;
  s->live++;
  return 0;
}

static void discard_blob(void* context, void* value) {
  codec_state_s* s = (codec_state_s*)context;
  s->discards++;
  s->live--;
  free(value);
}

static slate_value_codec_s blob_codec(codec_state_s* s) {
  slate_value_codec_s c;
  memset(s, 0, sizeof *s);
  c.encode = encode_blob;
  c.decode = decode_blob;
  c.discard = discard_blob;
  c.context = s;
  return c;
}

static int free_blob_cb(const char* key, uint32_t key_length, void* value, void* data) {
  (void)key;
  (void)key_length;
  (void)data;
  free(value);
  return 0;
}

static void free_blob_map(slate_s* map) {
  slate_each(map, free_blob_cb, NULL);
  slate_free(map);
}

/* Whether two maps of blob values hold the same keys with equal bytes. */
typedef struct blob_cmp_s {
  const slate_s* other;
  unsigned long bad, seen;
} blob_cmp_s;

static int blob_cmp_cb(const char* key, uint32_t key_length, void* value, void* data) {
  blob_cmp_s* c = (blob_cmp_s*)data;
  void* there = NULL;
  const blob_s* a = (const blob_s*)value;
  c->seen++;
  if (slate_get_bytes(c->other, key, key_length, &there) != SLATE_OK) {
    c->bad++;
    return 0;
  }
  const blob_s* b = (const blob_s*)there;
  if (a->n != b->n || (a->n > 0 && memcmp(a->b, b->b, a->n) != 0)) c->bad++;
  return 0;
}

static int same_blobs(const slate_s* a, const slate_s* b) {
  blob_cmp_s c = {b, 0, 0};
  if (slate_each(a, blob_cmp_cb, &c) != SLATE_OK) return 0;
  return c.bad == 0 && c.seen == slate_length(b);
}

/* The map of the failure tests: `n` string keys "k00000".., some u64 and
   i64 keys, a key of 0 bytes and a 6000-byte one (handed to `write`
   straight from the map); blob values of 0 to 700 bytes and a few of 5 to
   20 KiB (straight from the scratch buffer): a save of many `write` calls. */
static void fill_blob_map(slate_s* map, int n) {
  char key[32];
  static unsigned char long_key[6000];
  for (int i = 0; i < n; i++) {
    uint32_t len = (uint32_t)(i % 11 == 0 ? 0 : (i * 37) % 700);
    if (i % 97 == 5) len = 5000 + (uint32_t)i * 50;
    snprintf(key, sizeof key, "k%05d", i);
    CHECK_EQ_INT(slate_set(map, key, new_blob(len, (unsigned)i, 0)), SLATE_OK);
  }
  for (int i = 0; i < 20; i++) {
    CHECK_EQ_INT(slate_set_u64(map, (uint64_t)i * 0x100000001ull, new_blob((uint32_t)i, 1, 0)), SLATE_OK);
    CHECK_EQ_INT(slate_set_i64(map, -i - 1, new_blob(3, 2, 0)), SLATE_OK);
  }
  memset(long_key, 'L', sizeof long_key);
  CHECK_EQ_INT(slate_set_bytes(map, long_key, sizeof long_key, new_blob(9, 3, 0)), SLATE_OK);
  CHECK_EQ_INT(slate_set_bytes(map, "", 0, new_blob(1, 4, 0)), SLATE_OK);
}

/* A save through a sink (to the kernel too): its result; the bytes in `s`. */
static int save_to(sink_s* s, const slate_s* map, const slate_value_codec_s* codec) {
  sink_reset(s);
  return slate_save(map, codec, sink_write, s);
}

/* A save of `map` equals the `n` bytes at `want` (it was not changed). */
static int saves_as(const slate_s* map, const slate_value_codec_s* codec, const sink_s* want) {
  sink_s s;
  sink_open(&s, 0);
  int ok = save_to(&s, map, codec) == SLATE_OK && s.length == want->length &&
           memcmp(s.bytes, want->bytes, s.length) == 0;
  sink_close(&s);
  return ok;
}

/* ---- nothing leaks into a snapshot -------------------------------------- */

/* The key of dead entry i: 16 to 56 bytes of canaries, then its number
   (as bytes: keys with no terminating NUL). */
static uint32_t dead_key(unsigned char* key, int i) {
  uint32_t n = (uint32_t)(CANARY + (i * 5) % 41);
  fill_canary(key, n);
  memcpy(key + n, &i, sizeof i);
  return n + (uint32_t)sizeof i;
}

static void test_nothing_leaks(void) {
  TEST_SECTION("map: no deleted key or value, and no byte past a value's length, is saved");
  codec_state_s st;
  slate_value_codec_s codec = blob_codec(&st);
  slate_s map, cleared, back;
  sink_s s;
  unsigned char key[128];
  static unsigned char long_dead[5000];
  char live[32];
  sink_open(&s, 1);
  CHECK_EQ_INT(slate(&map), SLATE_OK);
  CHECK_EQ_INT(slate(&cleared), SLATE_OK);
  /* Live entries and dead ones interleaved, so that the dead ones sit
     beside live ones in the tables; dead values hold canaries. */
  for (int i = 0; i < 600; i++) {
    snprintf(live, sizeof live, "live %d", i);
    CHECK_EQ_INT(slate_set(&map, live, new_blob((uint32_t)(i % 90), (unsigned)i, 0)), SLATE_OK);
    uint32_t n = dead_key(key, i);
    CHECK_EQ_INT(slate_set_bytes(&map, key, n, new_blob((uint32_t)(CANARY + i % 300), 0, 1)), SLATE_OK);
    CHECK_EQ_INT(slate_set_bytes(&cleared, key, n, new_blob(CANARY * 2, 0, 1)), SLATE_OK);
  }
  fill_canary(long_dead, sizeof long_dead);
  CHECK_EQ_INT(slate_set_bytes(&map, long_dead, sizeof long_dead, new_blob(9000, 0, 1)), SLATE_OK);
  /* The search finds them while they are there. */
  CHECK_EQ_INT(save_to(&s, &map, &codec), SLATE_OK);
  CHECK(holds_canary(s.bytes, s.length));
  /* Deleted: taken (and freed), or deleted after a lookup. */
  for (int i = 0; i < 600; i++) {
    void* v = NULL;
    uint32_t n = dead_key(key, i);
    if (i % 2) {
      CHECK_EQ_INT(slate_take_bytes(&map, key, n, &v), SLATE_OK);
    } else {
      CHECK_EQ_INT(slate_get_bytes(&map, key, n, &v), SLATE_OK);
      CHECK_EQ_INT(slate_delete_bytes(&map, key, n), SLATE_OK);
    }
    free(v);
  }
  void* v = NULL;
  CHECK_EQ_INT(slate_take_bytes(&map, long_dead, sizeof long_dead, &v), SLATE_OK);
  free(v);
  /* A cleared map refilled with live entries. */
  slate_each(&cleared, free_blob_cb, NULL);
  CHECK_EQ_INT(slate_clear(&cleared), SLATE_OK);
  for (int i = 0; i < 50; i++) {
    snprintf(live, sizeof live, "live %d", i);
    CHECK_EQ_INT(slate_set(&cleared, live, new_blob((uint32_t)i, (unsigned)i, 0)), SLATE_OK);
  }
  /* Saved with the codec (which writes canaries past each value's length,
     inside the capacity it is given), and with integer values. */
  st.scribble = 1;
  slate_s* maps[2] = {&map, &cleared};
  for (int m = 0; m < 2; m++) {
    uint64_t size = 0;
    CHECK_EQ_INT(save_to(&s, maps[m], &codec), SLATE_OK);
    CHECK_EQ_INT(slate_save_size(maps[m], &codec, &size), SLATE_OK);
    CHECK_EQ_U64(s.length, size);
    CHECK(!holds_canary(s.bytes, s.length));
    CHECK_EQ_INT(s.failed, 0);
    CHECK_EQ_INT(slate(&back), SLATE_OK);
    CHECK_EQ_INT(slate_load(&back, s.bytes, s.length, &codec), SLATE_OK);
    CHECK(same_blobs(maps[m], &back));
    free_blob_map(&back);
    CHECK_EQ_INT(save_to(&s, maps[m], NULL), SLATE_OK);
    CHECK(!holds_canary(s.bytes, s.length));
  }
  CHECK_EQ_U64(st.discards, 0);
  free_blob_map(&map);
  free_blob_map(&cleared);
  sink_close(&s);
}

/* ---- saves hand every byte to the kernel -------------------------------- */

/* The same bytes through the kernel sink and through slate_buffer_write,
   of the size slate_save_size gives; under Valgrind, write(2) is handed
   no uninitialized byte. */
static void save_both_ways(const slate_s* map, const slate_value_codec_s* codec, sink_s* s) {
  uint64_t size = 0;
  CHECK_EQ_INT(slate_save_size(map, codec, &size), SLATE_OK);
  CHECK_EQ_INT(save_to(s, map, codec), SLATE_OK);
  CHECK_EQ_U64(s->length, size);
  CHECK_EQ_INT(s->failed, 0);
  CHECK_EQ_U64(s->empty, 0); /* pieces of at least one byte */
  slate_buffer_s buf;
  buf.bytes = malloc((size_t)size);
  buf.capacity = (size_t)size;
  buf.length = 0;
  CHECK_EQ_INT(slate_save(map, codec, slate_buffer_write, &buf), SLATE_OK);
  CHECK(buf.length == s->length && memcmp(buf.bytes, s->bytes, s->length) == 0);
  free(buf.bytes);
}

/* A codec save encodes straight into the writer's 4 KiB stage: it
   allocates nothing while every record (8 bytes, the key, the value) fits
   there, up to exactly 4,096 bytes, and one scratch buffer, given back,
   once a record is longer. Each snapshot loads back. */
static void test_codec_save_memory(void) {
  TEST_SECTION("map: a codec save allocates only for a record past 4 KiB");
  codec_state_s st;
  slate_value_codec_s codec = blob_codec(&st);
  counter_s own = {0, 0, 0, 0};
  slate_allocator_s alloc = counter_allocator(&own);
  slate_s map, back;
  char key[32];
  sink_s s;
  sink_open(&s, 0);
  CHECK_EQ_INT(slate(&map), SLATE_OK);
  CHECK_EQ_INT(slate_set_allocator(&map, &alloc), SLATE_OK);
  for (int i = 0; i < 200; i++) {
    snprintf(key, sizeof key, "k%05d", i); /* 6 bytes */
    CHECK_EQ_INT(slate_set(&map, key, new_blob((uint32_t)(i * 19 % 4000), (unsigned)i, 0)), SLATE_OK);
  }
  /* The longest record that fits: 8 + 6 + 4,082 bytes; then one more. */
  const uint32_t sizes[3] = {4082, 4083, 70000};
  const unsigned long long allocations[3] = {0, 1, 1};
  for (int k = 0; k < 3; k++) {
    snprintf(key, sizeof key, "edge%02d", k); /* 6 bytes */
    CHECK_EQ_INT(slate_set(&map, key, new_blob(sizes[k], 7, 0)), SLATE_OK);
    unsigned long long allocated = own.allocations, released = own.releases, live = own.live;
    CHECK_EQ_INT(save_to(&s, &map, &codec), SLATE_OK);
    CHECK_EQ_U64(own.allocations - allocated, allocations[k]);
    CHECK_EQ_U64(own.releases - released, allocations[k]);
    CHECK_EQ_U64(own.live, live);
    CHECK_EQ_INT(slate(&back), SLATE_OK);
    CHECK_EQ_INT(slate_load(&back, s.bytes, s.length, &codec), SLATE_OK);
    CHECK_EQ_U64(slate_length(&back), slate_length(&map));
    sink_s again; /* the same records, in the loaded map's order */
    sink_open(&again, 0);
    CHECK_EQ_INT(save_to(&again, &back, &codec), SLATE_OK);
    CHECK_EQ_U64(again.length, s.length);
    sink_close(&again);
    free_blob_map(&back);
    void* v;
    CHECK_EQ_INT(slate_take(&map, key, &v), SLATE_OK);
    free(v);
  }
  CHECK_EQ_U64(own.bad, 0);
  free_blob_map(&map);
  CHECK_EQ_U64(own.live, 0);
  sink_close(&s);
}

static void test_kernel_saves(void) {
  TEST_SECTION(SINK_KERNEL ? "map: saves through write(2) on /dev/null"
                           : "map: saves (no file descriptors here: kept in memory only)");
  codec_state_s st;
  slate_value_codec_s codec = blob_codec(&st);
  slate_s map, zero, back;
  sink_s s;
  sink_open(&s, 1);
#if SINK_KERNEL && defined(__linux__)
  CHECK(s.fd >= 0);
#endif
  CHECK_EQ_INT(slate(&map), SLATE_OK);
  save_both_ways(&map, NULL, &s); /* fresh */
  save_both_ways(&map, &codec, &s);
  memset(&zero, 0, sizeof zero); /* zero-filled */
  save_both_ways(&zero, NULL, &s);
  CHECK_EQ_INT(slate_set(&map, "x", new_blob(0, 0, 0)), SLATE_OK); /* small */
  save_both_ways(&map, &codec, &s);
  save_both_ways(&map, NULL, &s);
  fill_blob_map(&map, 800);
  save_both_ways(&map, &codec, &s);
  save_both_ways(&map, NULL, &s);
  /* after deletes (tombstones), clear and compact */
  char key[32];
  for (int i = 0; i < 800; i += 3) {
    void* v = NULL;
    snprintf(key, sizeof key, "k%05d", i);
    CHECK_EQ_INT(slate_take(&map, key, &v), SLATE_OK);
    free(v);
  }
  save_both_ways(&map, &codec, &s);
  CHECK_EQ_INT(slate(&back), SLATE_OK);
  CHECK_EQ_INT(slate_load(&back, s.bytes, s.length, &codec), SLATE_OK);
  save_both_ways(&back, &codec, &s); /* a loaded map */
  save_both_ways(&back, NULL, &s);
  free_blob_map(&back);
  CHECK_EQ_INT(slate_compact(&map), SLATE_OK);
  save_both_ways(&map, &codec, &s);
  slate_each(&map, free_blob_cb, NULL);
  CHECK_EQ_INT(slate_clear(&map), SLATE_OK);
  save_both_ways(&map, &codec, &s);
  for (uint64_t k = 0; k < 3000; k++) CHECK_EQ_INT(slate_set_u64(&map, k, (void*)(uintptr_t)k), SLATE_OK);
  save_both_ways(&map, NULL, &s);
  slate_free(&map);
  save_both_ways(&map, NULL, &s); /* after free */
  sink_close(&s);
}

/* ---- failures ------------------------------------------------------------ */

/* A sink that fails its call `fail_at` with `rc`, or makes a change there. */
typedef struct failing_sink_s {
  sink_s sink;
  unsigned long fail_at;
  int rc;
  changer_s* changer;
} failing_sink_s;

static int failing_sink_write(void* context, const void* bytes, size_t length) {
  failing_sink_s* f = (failing_sink_s*)context;
  if (f->fail_at != 0 && f->sink.calls + 1 == f->fail_at) {
    f->sink.calls++;
    return f->rc;
  }
  /* the piece first: it may point into the map the change frees */
  int kept = sink_write(&f->sink, bytes, length);
  int rc = changer_tick(f->changer);
  return rc != 0 ? rc : kept;
}

/* `write` failing at each of its calls in turn, `encode` at each of its
   calls (in save_size and in save), `decode` at each value: the code
   returned, the map unchanged, its scratch memory returned, every value
   decoded before the failure discarded once, the destination unchanged. */
static void test_failures(void) {
  TEST_SECTION("map: write, encode and decode failing at each call");
  codec_state_s st;
  slate_value_codec_s codec = blob_codec(&st);
  counter_s own = {0, 0, 0, 0};
  slate_allocator_s alloc = counter_allocator(&own);
  slate_s map, dest;
  sink_s ref_int, ref_codec;
  CHECK_EQ_INT(slate(&map), SLATE_OK);
  CHECK_EQ_INT(slate_set_allocator(&map, &alloc), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(&map, 5), SLATE_OK); /* the same calls in every run */
  fill_blob_map(&map, 300);
  sink_open(&ref_int, 0);
  sink_open(&ref_codec, 0);
  CHECK_EQ_INT(save_to(&ref_int, &map, NULL), SLATE_OK);
  unsigned long long live = own.live;
  unsigned long encodes0 = st.encodes;
  CHECK_EQ_INT(save_to(&ref_codec, &map, &codec), SLATE_OK);
  unsigned long encodes = st.encodes - encodes0;
  CHECK_EQ_U64(own.live, live); /* the scratch buffer went back */
  CHECK(own.allocations > 0);
  CHECK(ref_int.calls > 2);
  CHECK(ref_codec.calls > ref_int.calls);
  CHECK(encodes >= 2 * slate_length(&map)); /* every length, then every value */

  /* write */
  const slate_value_codec_s* codecs[2] = {NULL, &codec};
  const sink_s* refs[2] = {&ref_int, &ref_codec};
  for (int c = 0; c < 2; c++) {
    unsigned long bad_rc = 0, changed = 0, leaked = 0;
    failing_sink_s f;
    memset(&f, 0, sizeof f);
    sink_open(&f.sink, 0);
    for (unsigned long k = 1; k <= refs[c]->calls; k++) {
      sink_reset(&f.sink);
      f.fail_at = k;
      f.rc = (int)(1000 + k);
      if (slate_save(&map, codecs[c], failing_sink_write, &f) != f.rc) bad_rc++;
      if (f.sink.calls != k) bad_rc++; /* no call after the failed one */
      if (own.live != live) leaked++;
      if (k % 7 == 1 || k == refs[c]->calls) changed += !saves_as(&map, codecs[c], refs[c]);
    }
    CHECK_EQ_U64(bad_rc, 0);
    CHECK_EQ_U64(changed, 0);
    CHECK_EQ_U64(leaked, 0);
    sink_close(&f.sink);
  }

  /* encode, in save_size and in save */
  {
    unsigned long bad_rc = 0, changed = 0, leaked = 0;
    sink_s s;
    sink_open(&s, 0);
    for (unsigned long k = 1; k <= encodes; k++) {
      uint64_t size = 12345;
      st.encodes = 0;
      st.fail_encode_at = k;
      st.fail_rc = -(int)(2000 + k);
      if (save_to(&s, &map, &codec) != st.fail_rc) bad_rc++;
      if (st.encodes != k) bad_rc++;
      if (own.live != live) leaked++;
      st.encodes = 0;
      if (k <= slate_length(&map) &&
          (slate_save_size(&map, &codec, &size) != st.fail_rc || size != 12345))
        bad_rc++;
      st.fail_encode_at = 0;
      if (k % 5 == 1 || k == encodes) changed += !saves_as(&map, &codec, &ref_codec);
    }
    CHECK_EQ_U64(bad_rc, 0);
    CHECK_EQ_U64(changed, 0);
    CHECK_EQ_U64(leaked, 0);
    sink_close(&s);
  }
  char message[128];
  CHECK_EQ_INT(slate_check(&map, message, sizeof message), SLATE_OK);

  /* decode: each value in turn; the destination has its own allocator */
  {
    counter_s dest_own = {0, 0, 0, 0};
    slate_allocator_s dest_alloc = counter_allocator(&dest_own);
    unsigned long bad_rc = 0, bad_discards = 0, changed = 0;
    uint64_t count = slate_length(&map);
    CHECK_EQ_INT(slate(&dest), SLATE_OK);
    CHECK_EQ_INT(slate_set_allocator(&dest, &dest_alloc), SLATE_OK);
    CHECK_EQ_INT(slate_pin_seed(&dest, 99), SLATE_OK);
    for (uint64_t k = 1; k <= count; k++) {
      st.decodes = st.made = st.discards = 0;
      st.fail_decode_at = (unsigned long)k;
      st.fail_rc = (int)(3000 + k);
      if (slate_load(&dest, ref_codec.bytes, ref_codec.length, &codec) != st.fail_rc) bad_rc++;
      if (st.made != k - 1 || st.discards != k - 1 || st.live != 0) bad_discards++;
      slate_info_s in;
      memset(&in, 0xFF, sizeof in);
      if (slate_info(&dest, &in) != SLATE_OK || in.length != 0 || in.memory != 0 ||
          slate_length(&dest) != 0 || dest_own.live != 0)
        changed++;
    }
    CHECK_EQ_U64(bad_rc, 0);
    CHECK_EQ_U64(bad_discards, 0);
    CHECK_EQ_U64(changed, 0);
    CHECK_EQ_U64(dest_own.bad, 0);
    /* still a destination, with its allocator and its pinned seed */
    st.fail_decode_at = 0;
    st.decodes = st.made = st.discards = 0;
    CHECK_EQ_INT(slate_load(&dest, ref_codec.bytes, ref_codec.length, &codec), SLATE_OK);
    CHECK_EQ_U64(st.made, count);
    CHECK_EQ_U64(st.discards, 0);
    CHECK(dest_own.live > 0);
    slate_info_s in;
    CHECK_EQ_INT(slate_info(&dest, &in), SLATE_OK);
    CHECK_EQ_U64(in.seed, 99);
    CHECK(same_blobs(&map, &dest));
    free_blob_map(&dest);
    st.live = 0;
    CHECK_EQ_U64(dest_own.live, 0);
  }

  sink_close(&ref_int);
  sink_close(&ref_codec);
  free_blob_map(&map);
  CHECK_EQ_U64(own.live, 0);
  CHECK_EQ_U64(own.allocations, own.releases);
  CHECK_EQ_U64(own.bad, 0);
}

/* ---- changes from inside write and encode (SPEC 3c) ---------------------- */

/* Undoes a change the changer made, so that the map equals `twin` again. */
static void undo_change(changer_s* c) {
  if (c->changed != SLATE_OK) return;
  switch (c->kind) {
    case CH_INSERT:
      CHECK_EQ_INT(slate_delete(c->map, INSERTED_KEY), SLATE_OK);
      break;
    case CH_DELETE:
    case CH_REPLACE:
      CHECK_EQ_INT(slate_set(c->map, c->victim, c->old_value), SLATE_OK);
      break;
    default:
      break;
  }
}

/* Whether the change stands after the save stopped (or went on). */
static int change_stands(const changer_s* c, uint64_t length) {
  void* v = NULL;
  switch (c->kind) {
    case CH_INSERT:
      return slate_get(c->map, INSERTED_KEY, &v) == SLATE_OK && v == c->new_value &&
             slate_length(c->map) == length + 1;
    case CH_DELETE:
      return slate_get(c->map, c->victim, NULL) == SLATE_ERROR_NOT_FOUND &&
             slate_length(c->map) == length - 1;
    case CH_CLEAR:
    case CH_FREE:
      return slate_length(c->map) == 0;
    case CH_REPLACE:
      return slate_get(c->map, c->victim, &v) == SLATE_OK && v == c->new_value &&
             slate_length(c->map) == length;
    default:
      return slate_length(c->map) == length;
  }
}

/* One change at call `at` of `write` (in_encode 0) or `encode` (1) of a
   save with or without the codec: the save's result, then the checks. */
static void change_once(slate_s* map, const slate_s* twin, const slate_value_codec_s* codec,
                        codec_state_s* st, int in_encode, int kind, unsigned long at, int rc,
                        unsigned long* bad) {
  static blob_s extra = {3, (unsigned char*)"abc"};
  failing_sink_s f;
  changer_s c;
  memset(&f, 0, sizeof f);
  memset(&c, 0, sizeof c);
  sink_open(&f.sink, 0);
  c.map = map;
  c.at = at;
  c.kind = kind;
  c.rc = rc;
  c.changed = -1;
  snprintf(c.victim, sizeof c.victim, "k%05lu", (at * 7) % 300);
  blob_s* same_length = NULL;
  if (kind == CH_REPLACE) {
    void* old = NULL;
    slate_get(map, c.victim, &old);
    same_length = new_blob(((blob_s*)old)->n, 9, 0);
    c.new_value = same_length;
  } else {
    c.new_value = &extra;
  }
  uint64_t length = slate_length(map), size = 0;
  if (slate_save_size(map, codec, &size) != SLATE_OK) (*bad)++;
  if (in_encode)
    st->changer = &c;
  else
    f.changer = &c;
  int got = slate_save(map, codec, failing_sink_write, &f);
  st->changer = NULL;
  /* A change stops the save; a non-zero return that came with it
     stands; replacing a value (with one of the same length) or deleting
     an absent key changes nothing. */
  int harmless = kind == CH_REPLACE || kind == CH_DELETE_ABSENT;
  int want = rc != 0 ? rc : harmless ? SLATE_OK : SLATE_ERROR_INVALID;
  char message[128];
  if (c.calls < at) (*bad)++, fprintf(stderr, "   %s at %lu: fewer calls\n", change_names[kind], at);
  if (c.changed != SLATE_OK) (*bad)++;
  if (got != want) {
    (*bad)++;
    if (*bad < 8)
      fprintf(stderr, "   %s in %s at call %lu (rc %d): the save returned %d, not %d\n",
              change_names[kind], in_encode ? "encode" : "write", at, rc, got, want);
  }
  /* A stopped save makes no call after the one that changed the map; one
     that went on wrote all its bytes. */
  if (want != SLATE_OK ? c.calls != at : f.sink.length != size) (*bad)++;
  if (slate_check(map, message, sizeof message) != SLATE_OK) (*bad)++;
  if (!change_stands(&c, length)) (*bad)++;
  /* back to the twin's entries (and, through a clone, its order) */
  if (kind == CH_CLEAR || kind == CH_FREE) {
    slate_free(map);
    if (slate_clone(map, twin) != SLATE_OK) (*bad)++;
  } else {
    undo_change(&c);
  }
  free(same_length);
  if (slate_equal(map, twin) != 1) (*bad)++;
  sink_close(&f.sink);
}

static void test_changes_in_callbacks(void) {
  TEST_SECTION("map: a change from inside write or encode stops the save (SLATE_ERROR_INVALID)");
  codec_state_s st;
  slate_value_codec_s codec = blob_codec(&st);
  slate_s map, twin;
  CHECK_EQ_INT(slate(&map), SLATE_OK);
  CHECK_EQ_INT(slate_pin_seed(&map, 5), SLATE_OK); /* the same calls in every run */
  fill_blob_map(&map, 300);
  CHECK_EQ_INT(slate_clone(&twin, &map), SLATE_OK);
  sink_s s;
  sink_open(&s, 0);
  CHECK_EQ_INT(save_to(&s, &map, NULL), SLATE_OK);
  unsigned long int_writes = s.calls;
  CHECK_EQ_INT(save_to(&s, &map, &codec), SLATE_OK);
  unsigned long codec_writes = s.calls;
  st.encodes = 0;
  CHECK_EQ_INT(save_to(&s, &map, &codec), SLATE_OK);
  unsigned long encodes = st.encodes;
  sink_close(&s);
  CHECK(int_writes > 2);
  fprintf(stderr, "   a save: %lu write calls (integer values), %lu (codec), %lu encode calls\n",
          int_writes, codec_writes, encodes);

  unsigned long bad = 0;
  for (int kind = CH_INSERT; kind < CH_KINDS; kind++) {
    /* every call of write (a clear at the first, a middle and the last) */
    for (int c = 0; c < 2; c++) {
      unsigned long calls = c ? codec_writes : int_writes;
      for (unsigned long at = 1; at <= calls; at++) {
        if ((kind == CH_CLEAR || kind == CH_FREE) && at != 1 && at != calls / 2 && at != calls)
          continue;
        change_once(&map, &twin, c ? &codec : NULL, &st, 0, kind, at, 0, &bad);
      }
      /* the last write: the change still stops the save; a code with it stands */
      change_once(&map, &twin, c ? &codec : NULL, &st, 0, kind, calls, 0, &bad);
      change_once(&map, &twin, c ? &codec : NULL, &st, 0, kind, calls, 77, &bad);
      change_once(&map, &twin, c ? &codec : NULL, &st, 0, kind, 1, -77, &bad);
    }
    /* every call of encode (lengths first, then bytes) */
    for (unsigned long at = 1; at <= encodes; at += kind == CH_CLEAR || kind == CH_FREE ? 97 : 1)
      change_once(&map, &twin, &codec, &st, 1, kind, at, 0, &bad);
    change_once(&map, &twin, &codec, &st, 1, kind, encodes, 0, &bad);
    change_once(&map, &twin, &codec, &st, 1, kind, encodes / 2, 55, &bad);
  }
  CHECK_EQ_U64(bad, 0);
  /* save_size: a change from encode stops it too */
  {
    changer_s c;
    memset(&c, 0, sizeof c);
    c.map = &map;
    c.at = 10;
    c.kind = CH_INSERT;
    c.new_value = new_blob(1, 1, 0);
    st.changer = &c;
    uint64_t size = 0;
    CHECK_EQ_INT(slate_save_size(&map, &codec, &size), SLATE_ERROR_INVALID);
    st.changer = NULL;
    CHECK(change_stands(&c, slate_length(&twin)));
    undo_change(&c);
    free(c.new_value);
    CHECK_EQ_INT(slate_equal(&map, &twin), 1);
  }
  slate_free(&twin);
  free_blob_map(&map);
}

int main(void) {
  test_integer_values();
  test_codec_values();
  test_nothing_leaks();
  test_kernel_saves();
  test_codec_save_memory();
  test_failures();
  test_changes_in_callbacks();
  return TEST_SUMMARY();
}
