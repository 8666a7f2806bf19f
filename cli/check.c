/* cli-test: checking -- snapshots of every counter and control word of the
 * map, the CLI's own invariant check of them against slate_info,
 * slate_table_info and slate_length (then slate_check), and a key's slot
 * found through the documented iteration order. */
#include "cli.h"

#include <stdarg.h>

/* ------------------------------------------------------------------------ */
/* Snapshots: every counter and control word of the map at one moment       */
/* ------------------------------------------------------------------------ */

void snap_free(snap_s *s) {
  free(s->tables);
  free(s->ctrl);
  memset(s, 0, sizeof *s);
}

static bool same_table(const snap_s *a, const tview_s *x, const snap_s *b, const tview_s *y) {
  return a->info.small == b->info.small && x->pos == y->pos && x->width == y->width &&
         x->info.capacity == y->info.capacity && x->info.groups == y->info.groups &&
         x->info.local_depth == y->info.local_depth;
}

static bool same_counters(const tview_s *x, const tview_s *y) {
  return x->info.used == y->info.used && x->info.tombstones == y->info.tombstones &&
         x->info.growth_left == y->info.growth_left;
}

/* Fills `s` from the map. With `prev`, tables are matched to the previous
 * snapshot's (same directory range and shape) to count what changed; with
 * `reuse` as well, a matched table whose counters did not move and which
 * passed the check last time keeps its words instead of reading them
 * again (see "Cost" at the top: every change but a compaction moves the
 * counters of each table it touches). False with `err` set when out of
 * memory or when slate_info fails. */
bool snap_take(snap_s *s, const slate_s *map, const snap_s *prev, bool reuse, char *err,
                      size_t errcap) {
  s->ntables = 0;
  s->nctrl = 0;
  memset(s->fill, 0, sizeof s->fill);
  s->reread = s->new_tables = s->changed_tables = 0;
  s->changed_groups = 0;
  s->api_problem[0] = '\0';
  s->extra_table = false;

  int rc = slate_info(map, &s->info);
  if (rc != SLATE_OK) {
    snprintf(err, errcap, "slate_info failed: %s", error_name(rc));
    return false;
  }
  s->length = slate_length(map);

  uint32_t tables = s->info.tables;
  if (tables > s->tables_cap) {
    tview_s *p = realloc(s->tables, (size_t)tables * sizeof *p);
    if (p == NULL) {
      snprintf(err, errcap, "out of memory for %" PRIu32 " tables", tables);
      return false;
    }
    s->tables = p;
    s->tables_cap = tables;
  }
  size_t groups = 0;
  for (uint32_t t = 0; t < tables; t++) {
    tview_s *tv = &s->tables[t];
    memset(tv, 0, sizeof *tv);
    rc = slate_table_info(map, t, &tv->info);
    if (rc != SLATE_OK) {
      snprintf(s->api_problem, sizeof s->api_problem,
               "slate_table_info(map, %" PRIu32 ") returned %s, but slate_info reports %" PRIu32
               " tables",
               t, error_name(rc), tables);
      break;
    }
    s->ntables++;
    groups += tv->info.groups;
  }
  slate_table_info_s past;
  s->extra_table = slate_table_info(map, s->ntables, &past) == SLATE_OK;

  if (groups > s->ctrl_cap) {
    uint64_t *p = realloc(s->ctrl, groups * sizeof *p);
    if (p == NULL) {
      snprintf(err, errcap, "out of memory for %zu control words", groups);
      return false;
    }
    s->ctrl = p;
    s->ctrl_cap = groups;
  }
  s->nctrl = groups;

  bool directory = !s->info.small && s->info.directory > 0 && s->info.global_depth <= POS_BITS;
  size_t p = 0; /* walks prev's tables, which are in directory order too */
  size_t first = 0;
  for (uint32_t t = 0; t < s->ntables; t++) {
    tview_s *tv = &s->tables[t];
    tv->first = first;
    first += tv->info.groups;
    if (directory) {
      unsigned shift = POS_BITS - s->info.global_depth;
      tv->pos = (uint64_t)tv->info.directory_first << shift;
      tv->width = (uint64_t)tv->info.directory_count << shift;
    } else {
      tv->pos = 0;
      tv->width = UINT64_C(1) << POS_BITS;
    }
    tv->prev = -1;
    const tview_s *pt = NULL;
    if (prev != NULL) {
      while (p < prev->ntables && prev->tables[p].pos < tv->pos) p++;
      if (p < prev->ntables && same_table(s, tv, prev, &prev->tables[p])) {
        tv->prev = (int64_t)p;
        pt = &prev->tables[p];
      }
    }
    uint64_t *words = &s->ctrl[tv->first];
    if (reuse && pt != NULL && pt->ok && same_counters(tv, pt)) {
      memcpy(words, &prev->ctrl[pt->first], tv->info.groups * sizeof *words);
    } else {
      tv->reread = true;
      s->reread++;
      rc = slate_table_ctrls(map, t, words, tv->info.groups);
      if (rc != SLATE_OK) {
        for (uint32_t g = 0; g < tv->info.groups; g++) words[g] = UINT64_MAX; /* invalid bytes */
        if (s->api_problem[0] == '\0') {
          snprintf(s->api_problem, sizeof s->api_problem,
                   "slate_table_ctrls(map, %" PRIu32 ") returned %s", t, error_name(rc));
        }
      }
    }
    for (uint32_t g = 0; g < tv->info.groups; g++) {
      unsigned full = 0;
      for (unsigned i = 0; i < SLOTS; i++) {
        uint8_t b = ctrl_byte(words[g], i);
        if (b < 0x80) full++;
        else if (b == CTRL_EMPTY) tv->empty++;
        else if (b == CTRL_DELETED) tv->deleted++;
        else tv->invalid++;
      }
      tv->full += full;
      s->fill[full]++;
      if (pt != NULL && words[g] != prev->ctrl[pt->first + g]) tv->changed++;
    }
    if (prev != NULL && pt == NULL) {
      tv->changed = tv->info.groups;
      s->new_tables++;
    }
    if (tv->changed > 0) {
      s->changed_tables++;
      s->changed_groups += tv->changed;
    }
  }
  return true;
}

PRINTF_LIKE(2, 3)
static void report(snap_s *s, const char *fmt, ...) {
  s->cli_failures++;
  if (s->cli_failures > REPORT_MAX) return;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  append(s->cli_report, sizeof s->cli_report, "%s%s", s->cli_failures > 1 ? "; " : "", msg);
}

/* The CLI's own invariant check, from the raw control words: per table the
 * full, deleted and empty slots recounted against used, tombstones and
 * growth_left (capacity * 7/8 - used - tombstones, or 8 - used - tombstones
 * for a single group of 8, which may fill up); the directory ranges tiling
 * the directory; the sums against slate_info and slate_length. Then
 * slate_check, the library's own. */
void check_snapshot(snap_s *s, const slate_s *map) {
  s->cli_failures = 0;
  s->cli_report[0] = '\0';
  if (s->api_problem[0] != '\0') report(s, "%s", s->api_problem);
  if (s->extra_table) {
    report(s, "slate_info reports %" PRIu32 " tables, but slate_table_info(map, %" PRIu32
              ") finds one more", s->info.tables, s->ntables);
  }
  const slate_info_s *mi = &s->info;
  bool directory = !mi->small && mi->directory > 0;
  uint64_t full = 0, deleted = 0, capacity = 0, next_entry = 0;
  for (uint32_t t = 0; t < s->ntables; t++) {
    tview_s *tv = &s->tables[t];
    const slate_table_info_s *ti = &tv->info;
    unsigned before = s->cli_failures;
    if ((uint64_t)ti->groups * SLOTS != ti->capacity) {
      report(s, "table %" PRIu32 ": capacity %" PRIu32 " is not %" PRIu32 " groups x 8", t,
             ti->capacity, ti->groups);
    }
    if (tv->invalid > 0) {
      report(s, "table %" PRIu32 ": %" PRIu32 " control bytes are neither empty, deleted nor a fingerprint",
             t, tv->invalid);
    }
    if (ti->used != tv->full) {
      report(s, "table %" PRIu32 ": used is %" PRIu32 " but the control words show %" PRIu32
                " full slots", t, ti->used, tv->full);
    }
    if (ti->tombstones != tv->deleted) {
      report(s, "table %" PRIu32 ": tombstones is %" PRIu32 " but the control words show %" PRIu32
                " deleted slots", t, ti->tombstones, tv->deleted);
    }
    int64_t cap = (int64_t)ti->groups * SLOTS;
    int64_t max_load = cap == SLOTS ? (int64_t)SLOTS : cap - cap / 8;
    int64_t growth = max_load - (int64_t)tv->full - (int64_t)tv->deleted;
    if ((int64_t)ti->growth_left != growth) {
      report(s, "table %" PRIu32 ": growth_left is %" PRIu32 " but %s - used %" PRIu32
                " - tombstones %" PRIu32 " = %" PRId64, t, ti->growth_left,
             cap == SLOTS ? "max load 8 (one group)" : "capacity * 7/8", tv->full, tv->deleted,
             growth);
    }
    if (ti->groups > 1 && tv->empty == 0) {
      report(s, "table %" PRIu32 ": no empty slot left, so a probe would never end", t);
    }
    if (directory) {
      if (ti->local_depth > mi->global_depth) {
        report(s, "table %" PRIu32 ": local depth %" PRIu32 " exceeds the global depth %" PRIu32,
               t, ti->local_depth, mi->global_depth);
      } else if ((uint64_t)ti->directory_count != UINT64_C(1) << (mi->global_depth - ti->local_depth)) {
        report(s, "table %" PRIu32 ": %" PRIu32 " directory entries, but local depth %" PRIu32
                  " under global depth %" PRIu32 " needs %" PRIu64, t, ti->directory_count,
               ti->local_depth, mi->global_depth,
               UINT64_C(1) << (mi->global_depth - ti->local_depth));
      }
      if (ti->directory_first != next_entry) {
        report(s, "table %" PRIu32 ": directory range starts at %" PRIu32 ", expected %" PRIu64
                  " (ranges tile the directory in order)", t, ti->directory_first, next_entry);
      } else if (ti->directory_count > 0 && ti->directory_first % ti->directory_count != 0) {
        report(s, "table %" PRIu32 ": directory range %" PRIu32 "+%" PRIu32 " is not aligned", t,
               ti->directory_first, ti->directory_count);
      }
      next_entry = (uint64_t)ti->directory_first + ti->directory_count;
    } else if (ti->groups != 1 || ti->directory_count != 0) {
      report(s, "table %" PRIu32 ": a small map is one group without directory entries", t);
    }
    tv->ok = s->cli_failures == before;
    full += tv->full;
    deleted += tv->deleted;
    capacity += ti->capacity;
  }
  if (directory) {
    if ((uint64_t)mi->directory != UINT64_C(1) << mi->global_depth) {
      report(s, "map: directory has %" PRIu32 " entries, but global depth %" PRIu32 " needs %" PRIu64,
             mi->directory, mi->global_depth, UINT64_C(1) << mi->global_depth);
    }
    if (next_entry != mi->directory) {
      report(s, "map: the tables' ranges cover %" PRIu64 " directory entries of %" PRIu32,
             next_entry, mi->directory);
    }
  }
  if (full != s->length) {
    report(s, "map: slate_length is %" PRIu64 " but the control words show %" PRIu64 " full slots",
           s->length, full);
  }
  if (mi->length != s->length) {
    report(s, "map: slate_info says %" PRIu64 " entries, slate_length %" PRIu64, mi->length,
           s->length);
  }
  if (mi->tombstones != deleted) {
    report(s, "map: slate_info says %" PRIu64 " tombstones, the control words show %" PRIu64,
           mi->tombstones, deleted);
  }
  if (mi->capacity != capacity) {
    report(s, "map: slate_info says capacity %" PRIu64 ", the tables add up to %" PRIu64,
           mi->capacity, capacity);
  }
  if (s->cli_failures > REPORT_MAX) {
    append(s->cli_report, sizeof s->cli_report, "; and %u more", s->cli_failures - REPORT_MAX);
  }
  s->check_msg[0] = '\0';
  s->check_rc = slate_check(map, s->check_msg, (uint32_t)sizeof s->check_msg);
}

/* ------------------------------------------------------------------------ */
/* Finding a key's slot through the documented iteration order              */
/* ------------------------------------------------------------------------ */

typedef struct {
  unsigned char key[10]; /* the u64 key's 10-byte encoding */
  uint64_t index;        /* entries walked before it */
} finder_s;

static int find_entry(const char *key, uint32_t key_length, void *value, void *data) {
  (void)value;
  finder_s *f = data;
  if (key_length == sizeof f->key && memcmp(key, f->key, sizeof f->key) == 0) return 1;
  f->index++;
  return 0;
}

/* Where `key` is in the map that `s` describes. MISMATCH: the walk put it
 * past the last full slot of the control words. */
locate_e locate(const slate_s *map, const snap_s *s, uint64_t key, where_s *at) {
  finder_s f = {.index = 0};
  f.key[0] = 0x00; /* the README's integer encoding: 0x00 0x02, then little-endian */
  f.key[1] = 0x02;
  for (unsigned i = 0; i < 8; i++) f.key[2 + i] = (unsigned char)(key >> (8 * i));
  int rc = slate_each(map, find_entry, &f);
  if (rc == SLATE_OK) return ABSENT;
  if (rc != 1) return WALK_FAILED;
  uint64_t k = f.index;
  for (uint32_t t = 0; t < s->ntables; t++) {
    const tview_s *tv = &s->tables[t];
    if (k >= tv->full) {
      k -= tv->full;
      continue;
    }
    for (uint32_t g = 0; g < tv->info.groups; g++) {
      uint64_t w = s->ctrl[tv->first + g];
      for (unsigned i = 0; i < SLOTS; i++) {
        if (ctrl_byte(w, i) >= 0x80) continue;
        if (k == 0) {
          *at = (where_s){t, g, i};
          return FOUND;
        }
        k--;
      }
    }
  }
  return MISMATCH;
}
