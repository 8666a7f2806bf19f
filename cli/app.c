/* cli-test: the application -- what each key does to the map, the list of
 * keys and the view, and where the last key went. */
#include "cli.h"

/* ------------------------------------------------------------------------ */
/* The application                                                          */
/* ------------------------------------------------------------------------ */

bool take_snapshot(app_s *a, bool reuse) {
  snap_s *next = a->prev;
  if (!snap_take(next, &a->map, a->cur, reuse, a->error, sizeof a->error)) return false;
  check_snapshot(next, &a->map);
  a->prev = a->cur;
  a->cur = next;
  if (a->cur->cli_failures > 0 || a->cur->check_rc != SLATE_OK) a->failed = true;
  return true;
}

/* Inserts one new random key. SLATE_OK, a library error, or
 * SLATE_ERROR_ALLOC when the CLI's own list could not grow. */
static int insert_random(app_s *a, uint64_t *inserted) {
  if (!keys_reserve(&a->keys, 1)) return SLATE_ERROR_ALLOC;
  uint64_t key;
  for (;;) {
    key = splitmix64(&a->rng);
    int rc = slate_get_u64(&a->map, key, NULL);
    if (rc == SLATE_ERROR_NOT_FOUND) break;
    if (rc != SLATE_OK) return rc; /* present: draw again */
  }
  int rc = slate_set_u64(&a->map, key, value_for(key));
  if (rc != SLATE_OK) return rc;
  a->keys.items[a->keys.len++] = key;
  *inserted = key;
  return SLATE_OK;
}

/* Where the last inserted key is now, checked against the control words.
 * `single`: one insert just happened, so unless its table was rebuilt the
 * slot must be the one whose byte just turned from empty or deleted to
 * full. */
static void place_last_insert(app_s *a, bool single) {
  a->last_placed = false;
  a->last_note[0] = '\0';
  where_s at = {0, 0, 0};
  switch (locate(&a->map, a->cur, a->last_key, &at)) {
    case ABSENT:
      snprintf(a->last_note, sizeof a->last_note, "FAILED: slate_each does not find it");
      a->failed = true;
      return;
    case WALK_FAILED:
      snprintf(a->last_note, sizeof a->last_note, "FAILED: slate_each failed");
      a->failed = true;
      return;
    case MISMATCH:
      snprintf(a->last_note, sizeof a->last_note,
               "FAILED: slate_each walks more entries than the control words hold");
      a->failed = true;
      return;
    case FOUND: break;
  }
  a->last_placed = true;
  a->last_at = at;
  const tview_s *tv = &a->cur->tables[at.table];
  if (!single || tv->prev < 0) return; /* the table was rebuilt: nothing to compare */
  const tview_s *pt = &a->prev->tables[tv->prev];
  if (tv->full != pt->full + 1) return; /* rebuilt in place (tombstones dropped) */
  uint8_t before = ctrl_byte(a->prev->ctrl[pt->first + at.group], at.slot);
  uint8_t now = ctrl_byte(a->cur->ctrl[tv->first + at.group], at.slot);
  if (before < 0x80 || now >= 0x80) {
    snprintf(a->last_note, sizeof a->last_note,
             "FAILED: the walk order puts it in a slot that did not just fill (0x%02x -> 0x%02x)",
             before, now);
    a->failed = true;
  }
}

/* The table the view follows: the last key's, else the one now covering
 * the directory position followed so far. */
uint32_t focus_table(app_s *a) {
  const snap_s *s = a->cur;
  if (s->ntables == 0) return 0;
  if (a->last_placed && a->last_at.table < s->ntables) return a->last_at.table;
  uint32_t lo = 0, hi = s->ntables - 1;
  while (lo < hi) { /* the last table starting at or before focus_pos */
    uint32_t mid = lo + (hi - lo + 1) / 2;
    if (s->tables[mid].pos <= a->focus_pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

static void do_bulk(app_s *a, unsigned digit) {
  uint64_t n = 1;
  for (unsigned i = 0; i < digit && n < BULK_MAX; i++) n *= 10;
  if (n > BULK_MAX) n = BULK_MAX;
  if (!keys_reserve(&a->keys, (size_t)n)) {
    snprintf(a->status, sizeof a->status, "out of memory for %" PRIu64 " more keys; nothing inserted", n);
    return;
  }
  uint64_t done = 0, key = 0;
  int rc = SLATE_OK;
  while (done < n && (rc = insert_random(a, &key)) == SLATE_OK) done++;
  if (done > 0) {
    a->last = LAST_INSERTED;
    a->last_key = key;
  }
  snprintf(a->status, sizeof a->status, "inserted %" PRIu64 " random keys (10^%u%s)", done, digit,
           digit > 6 ? ", capped at a million" : "");
  if (rc != SLATE_OK) {
    append(a->status, sizeof a->status, ", then an insert failed: %s", error_name(rc));
  }
}

static void do_delete(app_s *a) {
  if (a->keys.len == 0) {
    snprintf(a->status, sizeof a->status, "nothing to delete: the map is empty");
    return;
  }
  size_t i = (size_t)(splitmix64(&a->rng) % a->keys.len);
  uint64_t key = a->keys.items[i];
  where_s at = {0, 0, 0};
  locate_e where = locate(&a->map, a->cur, key, &at); /* cur describes the map before */
  int rc = slate_delete_u64(&a->map, key);
  if (rc != SLATE_OK) {
    snprintf(a->status, sizeof a->status, "slate_delete_u64(0x%016" PRIx64 ") failed: %s", key,
             error_name(rc));
    a->failed = true;
    return;
  }
  a->keys.items[i] = a->keys.items[--a->keys.len];
  a->last = LAST_DELETED;
  a->last_key = key;
  a->last_placed = where == FOUND;
  a->last_at = at;
  a->last_note[0] = '\0';
  if (where != FOUND) {
    snprintf(a->last_note, sizeof a->last_note, "FAILED: the walk before deleting did not place it");
    a->failed = true;
  }
  snprintf(a->status, sizeof a->status, "deleted key 0x%016" PRIx64, key);
}

static void do_clone(app_s *a) {
  slate_s copy;
  int rc = slate_clone(&copy, &a->map);
  if (rc != SLATE_OK) {
    snprintf(a->status, sizeof a->status, "clone: slate_clone failed: %s", error_name(rc));
    if (rc == SLATE_ERROR_ALLOC) slate_free(&copy); /* left an empty map: harmless, and tidy */
    else a->failed = true;
    return;
  }
  int equal = slate_equal(&copy, &a->map);
  char why[200] = "";
  int check = slate_check(&copy, why, (uint32_t)sizeof why);
  uint64_t length = slate_length(&copy);
  slate_free(&copy);
  snprintf(a->status, sizeof a->status,
           "clone: slate_equal(copy, map) = %d (%s), copy holds %" PRIu64 " entries, copy's slate_check %s%s; clone freed",
           equal, equal == 1 ? "equal" : "NOT EQUAL", length, check == SLATE_OK ? "OK" : "FAILED: ",
           check == SLATE_OK ? "" : why);
  if (equal != 1 || check != SLATE_OK || length != slate_length(&a->map)) a->failed = true;
}

static void do_verify(app_s *a) {
  uint64_t missing = 0, wrong = 0, errors = 0;
  char first[128] = "";
  for (size_t i = 0; i < a->keys.len; i++) {
    uint64_t key = a->keys.items[i];
    void *value = NULL;
    int rc = slate_get_u64(&a->map, key, &value);
    const char *what = NULL;
    if (rc == SLATE_ERROR_NOT_FOUND) {
      missing++;
      what = "not found";
    } else if (rc != SLATE_OK) {
      errors++;
      what = error_name(rc);
    } else if (value != value_for(key)) {
      wrong++;
      what = "wrong value";
    }
    if (what != NULL && first[0] == '\0') {
      snprintf(first, sizeof first, "0x%016" PRIx64 " %s", key, what);
    }
  }
  uint64_t length = slate_length(&a->map);
  if (missing + wrong + errors == 0 && length == a->keys.len) {
    snprintf(a->status, sizeof a->status, "verify: all %zu keys found, every value checks", a->keys.len);
    return;
  }
  a->failed = true;
  snprintf(a->status, sizeof a->status,
           "verify: FAILED: of %zu keys %" PRIu64 " not found, %" PRIu64 " with a wrong value, %" PRIu64
           " errors%s%s; slate_length %" PRIu64,
           a->keys.len, missing, wrong, errors, first[0] ? "; first: " : "", first, length);
}

/* Applies one key. False on a fatal error (a->error says which). Sets
 * *quit for q and Esc. */
bool apply_key(app_s *a, int key, bool *quit) {
  char name[32];
  key_name(key, name, sizeof name);
  bool changed = false, reuse = a->interactive, single = false;
  uint64_t before_capacity = a->cur->info.capacity, before_tombstones = a->cur->info.tombstones;
  a->status[0] = '\0';
  a->fresh = false;
  switch (key) {
    case 'q': case 0x1b:
      *quit = true;
      snprintf(a->status, sizeof a->status, "quit");
      break;
    case '[': case ']': case KEY_UP: case KEY_DOWN: case KEY_LEFT: case KEY_RIGHT:
    case KEY_PGUP: case KEY_PGDN: case KEY_HOME: case KEY_END:
      scroll(a, key);
      snprintf(a->status, sizeof a->status, a->interactive ? "scrolled (the next change follows the last key again)"
                                                           : "scroll keys only move the terminal view");
      break;
    case KEY_UNKNOWN:
      snprintf(a->status, sizeof a->status, "ignored (not a key the view uses)");
      break;
    case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
      do_bulk(a, (unsigned)(key - '0'));
      changed = true;
      break;
    case 0x7f: case 0x08:
      do_delete(a);
      changed = true;
      break;
    case 'p': {
      int rc = slate_compact(&a->map);
      if (rc != SLATE_OK) {
        snprintf(a->status, sizeof a->status, "compact: slate_compact failed: %s (map unchanged)", error_name(rc));
        if (rc != SLATE_ERROR_ALLOC) a->failed = true;
        break;
      }
      changed = true;
      reuse = false; /* every table was rebuilt, whatever its counters say */
      break;
    }
    case 'c': {
      int rc = slate_clear(&a->map);
      if (rc != SLATE_OK) {
        snprintf(a->status, sizeof a->status, "clear: slate_clear failed: %s", error_name(rc));
        a->failed = true;
        break;
      }
      a->keys.len = 0;
      changed = true;
      break;
    }
    case 'k': do_clone(a); break;
    case 'v': do_verify(a); break;
    case 'f':
      a->fingerprints = !a->fingerprints;
      snprintf(a->status, sizeof a->status,
               a->fingerprints ? "fingerprints: a full slot shows its 7-bit h2 in hex" : "slot markers: # full, x deleted, . empty");
      break;
    default: {
      uint64_t inserted = 0;
      int rc = insert_random(a, &inserted);
      if (rc != SLATE_OK) {
        snprintf(a->status, sizeof a->status, "insert failed: %s (map unchanged)", error_name(rc));
        if (rc != SLATE_ERROR_ALLOC) a->failed = true;
        break;
      }
      a->last = LAST_INSERTED;
      a->last_key = inserted;
      snprintf(a->status, sizeof a->status, "inserted key 0x%016" PRIx64, inserted);
      changed = single = true;
      break;
    }
  }
  if (changed) {
    if (!take_snapshot(a, reuse)) return false;
    a->fresh = true;
    a->follow = true;
    if (key == 'p') {
      snprintf(a->status, sizeof a->status,
               "compacted: capacity %" PRIu64 " -> %" PRIu64 " slots, tombstones %" PRIu64 " -> %" PRIu64,
               before_capacity, a->cur->info.capacity, before_tombstones, a->cur->info.tombstones);
    } else if (key == 'c') {
      snprintf(a->status, sizeof a->status, "cleared: capacity kept (%" PRIu64 " -> %" PRIu64 " slots)",
               before_capacity, a->cur->info.capacity);
      a->last = LAST_NONE;
    }
    if (a->last == LAST_INSERTED) {
      place_last_insert(a, single);
    } else if (a->last == LAST_DELETED && key != 0x7f && key != 0x08) {
      a->last = LAST_NONE; /* its slot was rebuilt away */
    } else if (a->last == LAST_DELETED && a->last_placed) {
      where_s at = a->last_at;
      const tview_s *tv = at.table < a->cur->ntables ? &a->cur->tables[at.table] : NULL;
      uint8_t now = tv && at.group < tv->info.groups ? ctrl_byte(a->cur->ctrl[tv->first + at.group], at.slot) : 0;
      if (now != CTRL_EMPTY && now != CTRL_DELETED) {
        snprintf(a->last_note, sizeof a->last_note, "FAILED: its slot still reads 0x%02x", now);
        a->failed = true;
      }
    }
    if (a->last == LAST_NONE) {
      a->last_placed = false;
      a->last_note[0] = '\0';
    }
    if (a->last_placed) a->focus_pos = a->cur->tables[a->last_at.table].pos;
  }
  snprintf(a->label, sizeof a->label, "key %s", name);
  return true;
}
