/*
 * wordcount.c: count the words of a text with a slate map, then print the
 * most frequent ones, the number of distinct words and the number of words.
 *   wordcount [-n N] [FILE]     (reads stdin without FILE; N defaults to 10)
 *
 * A word: a maximal run of ASCII letters, digits and apostrophes, lowercased.
 * Ties in count are broken by the words' bytes: the output never depends on
 * the map's iteration order, which is random per run.
 *
 * Build against an installed slate (PREFIX as given to `make install`; the
 * rpath lets the program find libslate.so where pkg-config found it):
 *   export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
 *   cc wordcount.c $(pkg-config --cflags --libs slate) -Wl,-rpath,$(pkg-config --variable=libdir slate) -o wordcount
 *
 * Ownership: the map copies each word (key) it stores; counts live in the
 * void* values, updated in place through slate_entry_bytes's pointer (one
 * hash and one probe a word; the pointer is used before the next call).
 * A key pointer passed to a slate_each callback is valid during that call
 * only: the report copies the words out, and frees them.
 */
#include "slate.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct word_s {
  char *text; /* our copy, malloc'd, not NUL-terminated */
  uint32_t length;
  uintptr_t count;
} word_s;

typedef struct report_s {
  word_s *words; /* room for `capacity` words: one per entry of the map */
  size_t count, capacity;
} report_s;

/* Reads all of `in` into a malloc'd buffer (the caller frees it); NULL on
 * a read error or when out of memory. */
static char *read_all(FILE *in, size_t *length) {
  size_t size = 0, capacity = 4096;
  char *text = malloc(capacity);
  while (text) {
    size += fread(text + size, 1, capacity - size, in);
    if (size < capacity) break; /* end of file, or an error */
    char *bigger = capacity <= SIZE_MAX / 2 ? realloc(text, capacity * 2) : NULL;
    if (!bigger) free(text);
    text = bigger;
    capacity *= 2;
  }
  if (text && ferror(in)) {
    free(text);
    text = NULL;
  }
  *length = size;
  return text;
}

static int is_word_byte(unsigned char c) { return isalnum(c) || c == '\''; }

/* Copies one entry out of the map (the key pointer dies with this call). */
static int collect(const char *key, uint32_t key_length, void *value, void *data) {
  report_s *r = data;
  if (r->count == r->capacity) return SLATE_ERROR_FULL;
  char *copy = malloc(key_length ? key_length : 1);
  if (!copy) return SLATE_ERROR_ALLOC; /* stops the walk; slate_each returns it */
  memcpy(copy, key, key_length);
  r->words[r->count++] = (word_s){.text = copy, .length = key_length, .count = (uintptr_t)value};
  return 0;
}

/* Count descending, then word ascending (bytewise; a prefix comes first). */
static int by_count_then_word(const void *pa, const void *pb) {
  const word_s *a = pa, *b = pb;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  int c = memcmp(a->text, b->text, a->length < b->length ? a->length : b->length);
  return c ? c : (a->length > b->length) - (a->length < b->length);
}

static int usage(void) {
  fprintf(stderr, "usage: wordcount [-n N] [FILE]\n");
  return 2;
}

int main(int argc, char **argv) {
  /* slate() allocates nothing (the first insert does), so the early returns
   * before the first insert need no slate_free. */
  slate_s counts;
  if (slate(&counts) != SLATE_OK) return EXIT_FAILURE;
  unsigned long top = 10;
  int arg = 1;
  if (arg < argc && strcmp(argv[arg], "-n") == 0) {
    char *end = NULL;
    if (arg + 1 == argc || !isdigit((unsigned char)argv[arg + 1][0])) return usage();
    top = strtoul(argv[arg + 1], &end, 10);
    if (*end != '\0') return usage();
    arg += 2;
  }
  if (argc > arg + 1) return usage();
  FILE *in = arg < argc ? fopen(argv[arg], "rb") : stdin;
  if (!in) {
    perror(argv[arg]);
    return EXIT_FAILURE;
  }
  size_t size = 0;
  char *text = read_all(in, &size);
  if (in != stdin) fclose(in);
  if (!text) {
    fprintf(stderr, "wordcount: cannot read the input\n");
    return EXIT_FAILURE;
  }
  int status = EXIT_FAILURE;
  report_s report = {.words = NULL, .count = 0, .capacity = 0};
  /* Lowercase in place, then use each run of the buffer as a byte key (no
   * temporary strings: the map makes its own copy of each key it stores). */
  uint64_t total = 0;
  for (size_t i = 0; i < size; i++) text[i] = (char)tolower((unsigned char)text[i]);
  for (size_t i = 0; i < size; i++) {
    if (!is_word_byte((unsigned char)text[i])) continue;
    size_t start = i;
    while (i < size && is_word_byte((unsigned char)text[i])) i++;
    if (i - start > UINT32_MAX) goto done; /* no such word in real text */
    uint32_t length = (uint32_t)(i - start);
    /* One lookup: the word's count, a new word's starting at 0 (NULL). */
    void **count;
    if (slate_entry_bytes(&counts, text + start, length, &count, NULL) != SLATE_OK) goto done;
    *count = (void *)((uintptr_t)*count + 1);
    total++;
  }

  uint64_t distinct = slate_length(&counts);
  if (distinct > SIZE_MAX / sizeof *report.words) goto done;
  report.capacity = (size_t)distinct;
  report.words = malloc((distinct ? report.capacity : 1) * sizeof *report.words);
  if (!report.words) goto done;
  if (slate_each(&counts, collect, &report) != SLATE_OK) goto done;
  qsort(report.words, report.count, sizeof *report.words, by_count_then_word);

  for (size_t i = 0; i < report.count && i < top; i++) {
    printf("%7" PRIuPTR "  ", report.words[i].count);
    fwrite(report.words[i].text, 1, report.words[i].length, stdout);
    putchar('\n');
  }
  printf("%" PRIu64 " distinct words, %" PRIu64 " words\n", distinct, total);
  status = EXIT_SUCCESS;

done:
  if (status != EXIT_SUCCESS) fprintf(stderr, "wordcount: failed (out of memory?)\n");
  for (size_t i = 0; i < report.count; i++) free(report.words[i].text);
  free(report.words);
  slate_free(&counts);
  free(text);
  return status;
}
