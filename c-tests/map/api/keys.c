/* map/api: string keys and byte keys (NULs, the empty key, keys around
 * the inline limit and very long ones). */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* string keys                                                               */
/* ------------------------------------------------------------------------ */

void test_string_keys(void) {
  TEST_SECTION("string keys");
  slate_s m;
  void* v = SENTINEL;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "alpha", V(1)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 1);
  CHECK_EQ_INT(slate_get(&m, "alpha", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(1));
  CHECK_EQ_INT(slate_set(&m, "alpha", V(2)), SLATE_OK); /* replace */
  CHECK_EQ_U64(slate_length(&m), 1);
  CHECK_EQ_INT(slate_get(&m, "alpha", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(2));

  /* a NULL value is a value */
  CHECK_EQ_INT(slate_set(&m, "beta", NULL), SLATE_OK);
  v = SENTINEL;
  CHECK_EQ_INT(slate_get(&m, "beta", &v), SLATE_OK);
  CHECK_EQ_PTR(v, NULL);
  CHECK_EQ_INT(slate_get(&m, "beta", NULL), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "gamma", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "alpha", NULL), SLATE_OK);

  /* case and prefixes */
  CHECK_EQ_INT(slate_get(&m, "Alpha", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "alph", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "alphab", NULL), SLATE_ERROR_NOT_FOUND);

  /* delete */
  CHECK_EQ_INT(slate_delete(&m, "alpha"), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, "alpha"), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_U64(slate_length(&m), 1);
  v = SENTINEL;
  CHECK_EQ_INT(slate_get(&m, "alpha", &v), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_PTR(v, SENTINEL);
  CHECK_EQ_INT(slate_set(&m, "alpha", V(3)), SLATE_OK); /* back again */
  CHECK_EQ_INT(slate_get(&m, "alpha", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(3));

  /* all prefixes of one long string are distinct keys */
  char text[128];
  for (int i = 0; i < 100; i++) text[i] = (char)('a' + (i * 7) % 26);
  uint64_t bad = 0;
  for (int n = 1; n < 100; n++) {
    char k[128];
    memcpy(k, text, (size_t)n);
    k[n] = '\0';
    if (slate_set(&m, k, V(1000 + n)) != SLATE_OK) bad++;
  }
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_U64(slate_length(&m), 2 + 99);
  bad = 0;
  for (int n = 1; n < 100; n++) {
    char k[128];
    memcpy(k, text, (size_t)n);
    k[n] = '\0';
    v = NULL;
    if (slate_get(&m, k, &v) != SLATE_OK || v != V(1000 + n)) bad++;
    /* the same bytes through the byte API reach the same entry */
    v = NULL;
    if (slate_get_bytes(&m, text, (uint32_t)n, &v) != SLATE_OK || v != V(1000 + n)) bad++;
  }
  CHECK_EQ_U64(bad, 0);

  /* the map owns a copy of the key */
  char buffer[64];
  strcpy(buffer, "mutable-key-longer-than-twelve-bytes");
  CHECK_EQ_INT(slate_set(&m, buffer, V(9)), SLATE_OK);
  char short_buffer[8];
  strcpy(short_buffer, "tiny");
  CHECK_EQ_INT(slate_set(&m, short_buffer, V(10)), SLATE_OK);
  buffer[0] = 'X';
  short_buffer[0] = 'X';
  CHECK_EQ_INT(slate_get(&m, "mutable-key-longer-than-twelve-bytes", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(9));
  CHECK_EQ_INT(slate_get(&m, buffer, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get(&m, "tiny", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(10));
  CHECK_EQ_INT(slate_get(&m, short_buffer, NULL), SLATE_ERROR_NOT_FOUND);

  /* slate_set_bytes with a string's bytes == slate_set */
  CHECK_EQ_INT(slate_set_bytes(&m, "hello", 5, V(11)), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "hello", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(11));
  CHECK_EQ_INT(slate_delete(&m, "hello"), SLATE_OK);
  CHECK_EQ_INT(slate_get_bytes(&m, "hello", 5, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_MAP_OK(&m);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* byte keys                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct bytes_seen_s {
  int seen[8];
  int unknown;
} bytes_seen_s;

static const char* const nul_keys[7] = {"a\0b", "a\0c", "a", "a\0", "\0", "\0\0", ""};
static const uint32_t nul_lengths[7] = {3, 3, 1, 2, 1, 2, 0};

static int bytes_seen_cb(const char* key, uint32_t length, void* value, void* data) {
  bytes_seen_s* s = (bytes_seen_s*)data;
  for (int i = 0; i < 7; i++) {
    if (length == nul_lengths[i] && memcmp(key, nul_keys[i], length) == 0) {
      if (value == V(100 + i)) s->seen[i]++;
      return 0;
    }
  }
  s->unknown++;
  return 0;
}

void test_byte_keys(void) {
  TEST_SECTION("byte keys");
  slate_s m;
  void* v = SENTINEL;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (int i = 0; i < 7; i++)
    CHECK_EQ_INT(slate_set_bytes(&m, nul_keys[i], nul_lengths[i], V(100 + i)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 7);
  for (int i = 0; i < 7; i++) {
    v = SENTINEL;
    CHECK_EQ_INT(slate_get_bytes(&m, nul_keys[i], nul_lengths[i], &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(100 + i));
  }
  /* the string API sees the bytes up to the first NUL */
  CHECK_EQ_INT(slate_get(&m, "a\0b", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(102));
  CHECK_EQ_INT(slate_get(&m, "", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(106));
  /* the empty key: NULL with length 0 is the same key as "" */
  CHECK_EQ_INT(slate_get_bytes(&m, NULL, 0, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(106));
  CHECK_EQ_INT(slate_set_bytes(&m, NULL, 0, V(107)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 7);
  CHECK_EQ_INT(slate_get(&m, "", &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(107));
  CHECK_EQ_INT(slate_set(&m, "", V(106)), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 7);
  CHECK_EQ_INT(slate_get_bytes(&m, "ignored", 0, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(106));
  CHECK_EQ_INT(slate_get_bytes(&m, "a\0d", 3, NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_get_bytes(&m, "\0\0\0", 3, NULL), SLATE_ERROR_NOT_FOUND);

  bytes_seen_s seen;
  memset(&seen, 0, sizeof seen);
  CHECK_EQ_INT(slate_each(&m, bytes_seen_cb, &seen), SLATE_OK);
  for (int i = 0; i < 7; i++) CHECK_EQ_INT(seen.seen[i], 1);
  CHECK_EQ_INT(seen.unknown, 0);

  CHECK_EQ_INT(slate_delete_bytes(&m, NULL, 0), SLATE_OK);
  CHECK_EQ_INT(slate_get(&m, "", NULL), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_delete(&m, ""), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_set(&m, "", V(5)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, ""), SLATE_OK);
  CHECK_EQ_INT(slate_delete_bytes(&m, "a\0b", 3), SLATE_OK);
  CHECK_EQ_INT(slate_get_bytes(&m, "a\0c", 3, &v), SLATE_OK);
  CHECK_EQ_PTR(v, V(101));
  CHECK_EQ_U64(slate_length(&m), 5);

  /* keys around the inline limit and very long keys, differing in one byte */
  static const uint32_t lengths[] = {4, 5, 8, 9, 11, 12, 13, 16, 17, 27, 28, 29, 32, 33, 64, 1000, 100000};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
    uint32_t n = lengths[i];
    unsigned char* k = (unsigned char*)malloc(n);
    unsigned char fill = (unsigned char)(0x20 + i);
    memset(k, fill, n);
    CHECK_EQ_INT(slate_set_bytes(&m, k, n, V(200 + i)), SLATE_OK);
    k[n - 1] = 0x7F;
    CHECK_EQ_INT(slate_set_bytes(&m, k, n, V(300 + i)), SLATE_OK);
    k[0] = 0x00; /* a copy was stored: changing our buffer changes nothing */
    CHECK_EQ_INT(slate_get_bytes(&m, k, n, NULL), SLATE_ERROR_NOT_FOUND);
    k[0] = fill;
    CHECK_EQ_INT(slate_get_bytes(&m, k, n, &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(300 + i));
    k[n - 1] = fill;
    CHECK_EQ_INT(slate_get_bytes(&m, k, n, &v), SLATE_OK);
    CHECK_EQ_PTR(v, V(200 + i));
    CHECK_EQ_INT(slate_get_bytes(&m, k, n - 1, NULL), SLATE_ERROR_NOT_FOUND);
    free(k);
  }
  CHECK_EQ_U64(slate_length(&m), 5 + 2 * (sizeof lengths / sizeof lengths[0]));
  CHECK_EQ_U64(count_entries(&m), 5 + 2 * (sizeof lengths / sizeof lengths[0]));
  verify_structure(&m, 1);
  slate_free(&m);
}
