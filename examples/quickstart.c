/*
 * quickstart.c: the slate map in five minutes. String, integer and byte
 * keys; set, get, replace, delete; a presence test; the length; a walk.
 *
 * Build against an installed slate:
 *   cc quickstart.c $(pkg-config --cflags --libs slate) \
 *      -Wl,-rpath,$(pkg-config --variable=libdir slate) -o quickstart
 * or against a source tree:
 *   cc -Iinclude quickstart.c target/release/libslate.a -lpthread -ldl -lm
 *
 * Ownership: the map copies every key it stores and frees those copies
 * itself. Values are plain void*: stored as given, never read, never freed.
 * Here they are small integers carried in the pointer (uintptr_t), so there
 * is nothing to free; if they pointed to your objects, those objects would
 * stay yours and would have to outlive their entries.
 */
#define SLATE_IMPLEMENTATION /* accepted for drop-in use; the code is in libslate */
#include "slate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs a call that returns a slate_error_e; on anything but `expect`,
 * reports it and jumps to the cleanup at the end of main. */
#define EXPECT(call, expect)                                           \
  do {                                                                 \
    int rc_ = (call);                                                  \
    if (rc_ != (expect)) {                                             \
      fprintf(stderr, "%s:%d: %s returned %d, expected %d\n",          \
              __FILE__, __LINE__, #call, rc_, (int)(expect));          \
      goto done;                                                       \
    }                                                                  \
  } while (0)

#define V(n) ((void *)(uintptr_t)(n)) /* an integer as a value */

/* slate_each's order is random per map and per run: the walk formats one
 * line per entry into this buffer, and main sorts the lines. */
typedef struct lines_s {
  char text[16][64];
  size_t count;
} lines_s;

/* Formats one entry. `key` is the map's copy, valid during this call only
 * and not NUL-terminated; an integer key arrives as its 10-byte encoding
 * (0x00, then 0x01 for i64 or 0x02 for u64, then 8 bytes little-endian). */
static int format_entry(const char *key, uint32_t key_length, void *value, void *data) {
  lines_s *lines = data;
  if (lines->count == sizeof lines->text / sizeof lines->text[0]) return SLATE_ERROR_FULL;
  char *out = lines->text[lines->count++];
  size_t room = sizeof lines->text[0];
  const unsigned char *k = (const unsigned char *)key;
  if (key_length == 10 && k[0] == 0x00 && (k[1] == 0x01 || k[1] == 0x02)) {
    uint64_t bits = 0;
    for (int i = 9; i >= 2; i--) bits = bits << 8 | k[i];
    int64_t signed_bits; /* two's complement; memcpy avoids a narrowing cast */
    memcpy(&signed_bits, &bits, sizeof bits);
    if (k[1] == 0x01)
      snprintf(out, room, "i64 %" PRId64, signed_bits);
    else
      snprintf(out, room, "u64 %" PRIu64, bits);
  } else {
    size_t n = (size_t)snprintf(out, room, "\"");
    for (uint32_t i = 0; i < key_length && n + 5 < room; i++)
      n += (size_t)snprintf(out + n, room - n, (k[i] >= 0x20 && k[i] < 0x7f) ? "%c" : "\\x%02x",
                            k[i]);
    snprintf(out + n, room - n, "\"");
  }
  size_t used = strlen(out);
  snprintf(out + used, room - used, " -> %" PRIuPTR, (uintptr_t)value);
  return 0;
}

static int compare_lines(const void *a, const void *b) { return strcmp(a, b); }

int main(void) {
  int status = EXIT_FAILURE;
  slate_s map; /* a complete type: lives on the stack, no heap handle */
  if (slate(&map) != SLATE_OK) return EXIT_FAILURE; /* allocates nothing */

  /* String keys: the key is the string's bytes without the NUL. */
  EXPECT(slate_set(&map, "apple", V(3)), SLATE_OK);
  EXPECT(slate_set(&map, "banana", V(5)), SLATE_OK);
  EXPECT(slate_set(&map, "cherry", V(7)), SLATE_OK);
  EXPECT(slate_set(&map, "apple", V(4)), SLATE_OK); /* replaces, length stays 3 */

  void *value = NULL;
  EXPECT(slate_get(&map, "apple", &value), SLATE_OK);
  printf("apple = %" PRIuPTR "\n", (uintptr_t)value);

  value = V(999); /* NOT_FOUND leaves *value as it was */
  EXPECT(slate_get(&map, "durian", &value), SLATE_ERROR_NOT_FOUND);
  printf("durian: not found, value left at %" PRIuPTR "\n", (uintptr_t)value);

  /* A NULL value pointer makes get a presence test. */
  EXPECT(slate_get(&map, "cherry", NULL), SLATE_OK);
  printf("cherry is present\n");
  EXPECT(slate_delete(&map, "cherry"), SLATE_OK); /* frees the map's key copy */
  EXPECT(slate_delete(&map, "cherry"), SLATE_ERROR_NOT_FOUND);
  printf("cherry deleted; length %" PRIu64 "\n", slate_length(&map));

  /* Integer keys: i64, u64 and strings are three separate keyspaces, so
   * these are three different keys. Integer keys never allocate a copy. */
  EXPECT(slate_set_i64(&map, -42, V(1)), SLATE_OK);
  EXPECT(slate_set_i64(&map, 42, V(2)), SLATE_OK);
  EXPECT(slate_set_u64(&map, 42, V(3)), SLATE_OK);
  EXPECT(slate_set(&map, "42", V(4)), SLATE_OK);
  EXPECT(slate_get_u64(&map, 42, &value), SLATE_OK);
  printf("u64 42 = %" PRIuPTR "\n", (uintptr_t)value);
  EXPECT(slate_delete_i64(&map, 42), SLATE_OK);
  EXPECT(slate_get_i64(&map, 42, NULL), SLATE_ERROR_NOT_FOUND);

  /* Byte keys may hold NULs: "a\0b" (3 bytes) is not the string "a". */
  static const char nul_key[3] = {'a', '\0', 'b'};
  EXPECT(slate_set_bytes(&map, nul_key, sizeof nul_key, V(9)), SLATE_OK);
  EXPECT(slate_get(&map, "a", NULL), SLATE_ERROR_NOT_FOUND);
  EXPECT(slate_get_bytes(&map, nul_key, sizeof nul_key, &value), SLATE_OK);
  printf("bytes a\\0b = %" PRIuPTR "\n", (uintptr_t)value);
  EXPECT(slate_set_bytes(&map, NULL, 0, V(0)), SLATE_OK); /* the empty key */

  /* Walk: a non-zero return from the callback would stop it and come back
   * as slate_each's result. Sort the lines: the walk order is random. */
  lines_s lines = {.count = 0};
  EXPECT(slate_each(&map, format_entry, &lines), SLATE_OK);
  qsort(lines.text, lines.count, sizeof lines.text[0], compare_lines);
  printf("%" PRIu64 " entries:\n", slate_length(&map));
  for (size_t i = 0; i < lines.count; i++) printf("  %s\n", lines.text[i]);

  status = EXIT_SUCCESS;
done:
  slate_free(&map); /* frees tables and key copies; the map stays usable, empty */
  return status;
}
