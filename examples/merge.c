/*
 * merge.c: the merge recipe. slate_each walks map B and its callback writes
 * each entry into map A, resolving keys present in both with a policy
 * function (values are counts: summed, or the larger one kept).
 *
 * The rule that makes this work: a callback may read the map it walks and
 * write any other map. A write to the walked map itself is carried out, but
 * a new key stops the walk with SLATE_ERROR_INVALID (main shows it at the
 * end): only removing the entry it was given lets a walk go on.
 *
 * Build against an installed slate:
 *   cc merge.c $(pkg-config --cflags --libs slate) -o merge
 *
 * Ownership: each map owns its key copies; values are counts carried in
 * the void* (as uintptr_t), so nothing but the maps needs freeing.
 */
#include "slate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct count_s {
  char word[16];
  uintptr_t count;
} count_s;

typedef uintptr_t (*resolve_f)(uintptr_t mine, uintptr_t theirs);

static uintptr_t sum(uintptr_t mine, uintptr_t theirs) { return mine + theirs; }
static uintptr_t larger(uintptr_t mine, uintptr_t theirs) { return mine > theirs ? mine : theirs; }

/* slate_each's `data` for merge_entry: the map to write (never the one
 * being walked) and the policy for keys present in both. */
typedef struct merge_s {
  slate_s *into;
  resolve_f resolve;
  unsigned conflicts;
} merge_s;

/* One entry of the walked map. `key` is the walked map's copy, valid only
 * during this call: slate_set_bytes copies it, so passing it on is fine.
 * A non-zero return stops the walk and becomes slate_each's result. */
static int merge_entry(const char *key, uint32_t key_length, void *value, void *data) {
  merge_s *m = data;
  void *mine = NULL;
  int rc = slate_get_bytes(m->into, key, key_length, &mine);
  if (rc == SLATE_OK) {
    value = (void *)m->resolve((uintptr_t)mine, (uintptr_t)value);
    m->conflicts++;
  } else if (rc != SLATE_ERROR_NOT_FOUND) {
    return rc;
  }
  return slate_set_bytes(m->into, key, key_length, value);
}

/* Collects entries for printing: the walk order is random, so sort first. */
typedef struct table_s {
  count_s rows[32];
  size_t count;
} table_s;

static int collect(const char *key, uint32_t key_length, void *value, void *data) {
  table_s *t = data;
  if (t->count == 32 || key_length >= sizeof t->rows[0].word) return SLATE_ERROR_FULL;
  count_s *row = &t->rows[t->count++];
  memcpy(row->word, key, key_length); /* copy out: `key` dies with the call */
  row->word[key_length] = '\0';
  row->count = (uintptr_t)value;
  return 0;
}

static int by_word(const void *a, const void *b) {
  return strcmp(((const count_s *)a)->word, ((const count_s *)b)->word);
}

static int print_map(const char *name, const slate_s *map) {
  table_s t = {.count = 0};
  int rc = slate_each(map, collect, &t);
  if (rc != SLATE_OK) return rc;
  qsort(t.rows, t.count, sizeof t.rows[0], by_word);
  printf("%-5s", name);
  for (size_t i = 0; i < t.count; i++) printf(" %s=%" PRIuPTR, t.rows[i].word, t.rows[i].count);
  printf("\n");
  return SLATE_OK;
}

static int fill(slate_s *map, const count_s *rows, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int rc = slate_set(map, rows[i].word, (void *)rows[i].count);
    if (rc != SLATE_OK) return rc;
  }
  return SLATE_OK;
}

/* Writes a new key into the map it walks: carried out, and the walk stops. */
typedef struct self_write_s {
  slate_s *walked;
  int get_rc, set_rc;
} self_write_s;

static int write_self(const char *key, uint32_t key_length, void *value, void *data) {
  self_write_s *s = data;
  s->get_rc = slate_get_bytes(s->walked, key, key_length, NULL);
  s->set_rc = slate_set(s->walked, "intruder", value);
  return 0; /* go on, if the walk can */
}

int main(void) {
  static const count_s a_rows[3] = {{"apple", 3}, {"banana", 2}, {"cherry", 5}};
  static const count_s b_rows[4] = {{"banana", 4}, {"cherry", 1}, {"date", 6}, {"fig", 2}};
  slate_s a, b, peak; /* slate() allocates nothing: no cleanup if it fails */
  if (slate(&a) != SLATE_OK || slate(&b) != SLATE_OK || slate(&peak) != SLATE_OK)
    return EXIT_FAILURE;
  int status = EXIT_FAILURE;
  if (fill(&a, a_rows, 3) != SLATE_OK || fill(&b, b_rows, 4) != SLATE_OK) goto done;
  if (print_map("A", &a) != SLATE_OK || print_map("B", &b) != SLATE_OK) goto done;

  /* Policy "keep the larger", into a copy of A (a clone's destination must
   * be fresh or freed: peak has never held anything). */
  if (slate_clone(&peak, &a) != SLATE_OK) goto done;
  merge_s keep = {.into = &peak, .resolve = larger, .conflicts = 0};
  if (slate_each(&b, merge_entry, &keep) != SLATE_OK) goto done;
  if (print_map("max", &peak) != SLATE_OK) goto done;

  /* The recipe itself: B into A, summing counts. B is only read; the walk
   * returns SLATE_OK, or the first error merge_entry returned. */
  merge_s add = {.into = &a, .resolve = sum, .conflicts = 0};
  if (slate_each(&b, merge_entry, &add) != SLATE_OK) goto done;
  if (print_map("A+B", &a) != SLATE_OK) goto done;
  printf("%u keys were in both maps; A now has %" PRIu64 " keys\n", add.conflicts,
         slate_length(&a));

  /* A new key written into the walked map from its own callback is
   * carried out, and the walk stops after that callback: SLATE_ERROR_INVALID. */
  self_write_s s = {.walked = &a, .get_rc = 99, .set_rc = 99};
  int rc = slate_each(&a, write_self, &s);
  if (rc != SLATE_ERROR_INVALID) goto done;
  if (s.get_rc != SLATE_OK || s.set_rc != SLATE_OK) goto done;
  if (slate_get(&a, "intruder", NULL) != SLATE_OK) goto done;
  printf("inside A's own walk: get SLATE_OK, set SLATE_OK, then the walk stopped: %s\n",
         slate_strerror(rc));
  if (slate_delete(&a, "intruder") != SLATE_OK) goto done;

  status = EXIT_SUCCESS;
done:
  if (status != EXIT_SUCCESS) fprintf(stderr, "merge: a slate call failed\n");
  slate_free(&a);
  slate_free(&b);
  slate_free(&peak);
  return status;
}
