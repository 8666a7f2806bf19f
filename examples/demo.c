/* The README's quick start: a word count, then a look inside the map. */
#define SLATE_IMPLEMENTATION
#include "slate.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int print_entry(const char *key, uint32_t key_length, void *value, void *data) {
  (void)data;
  printf("  %.*s: %" PRIuPTR "\n", (int)key_length, key, (uintptr_t)value);
  return 0;
}

int main(void) {
  slate_s map;
  slate(&map);
  slate_set(&map, "answer", (void *)42);

  /* Count words: values are plain integers stored in the pointer. */
  const char *text = "the quick brown fox jumps over the lazy dog the end";
  char word[32];
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, " ");
    memcpy(word, p, n);
    word[n] = '\0';
    void *count = 0;
    slate_get(&map, word, &count); /* leaves count at 0 when absent */
    if (slate_set(&map, word, (void *)((uintptr_t)count + 1)) != SLATE_OK) return 1;
    p += n + (p[n] == ' ');
  }
  printf("%" PRIu64 " entries:\n", slate_length(&map));
  slate_each(&map, print_entry, NULL);

  /* Integer keys need no allocation and never meet string keys. */
  for (uint64_t i = 0; i < 100000; i++) slate_set_u64(&map, i, (void *)(uintptr_t)(i * 2));
  void *v = 0;
  if (slate_get_u64(&map, 4242, &v) != SLATE_OK || (uintptr_t)v != 8484) return 1;

  slate_info_s info;
  slate_info(&map, &info);
  printf("after 100000 u64 keys: %" PRIu64 " entries in %u tables, global depth %u, %" PRIu64
         " slots, %" PRIu64 " bytes\n",
         info.length, info.tables, info.global_depth, info.capacity, info.memory);
  char why[200];
  if (slate_check(&map, why, sizeof why) != SLATE_OK) {
    printf("invariant broken: %s\n", why);
    return 1;
  }
  printf("invariants OK\n");
  slate_free(&map);
  return 0;
}
