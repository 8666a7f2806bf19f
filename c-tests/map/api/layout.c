/* map/api: the layout of SPEC section 4 seen through the introspection
 * calls -- the small map, growth through doublings, splits and directory
 * doublings, tombstones. */
#include "api.h"

/* ------------------------------------------------------------------------ */
/* the small map: one bare group of 8 slots                                  */
/* ------------------------------------------------------------------------ */

void test_small_map(void) {
  TEST_SECTION("small map");
  slate_s m;
  slate_info_s in;
  slate_table_info_s ti;
  uint64_t before = 0, after = 0;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (uint64_t k = 1; k <= 8; k++) {
    CHECK_EQ_INT(slate_set_u64(&m, k, V(u64_value(k))), SLATE_OK);
    in = info_of(&m);
    CHECK_EQ_INT(in.small, 1);
    CHECK_EQ_U64(in.capacity, 8);
    CHECK_EQ_INT(in.tables, 1);
    CHECK_EQ_INT(in.directory, 0);
    CHECK_EQ_U64(in.length, k);
  }
  verify_structure(&m, 1);
  /* a delete in the small map empties the slot: no tombstones */
  CHECK_EQ_INT(slate_table_ctrl(&m, 0, 0, &before), SLATE_OK);
  CHECK_EQ_INT(slate_delete_u64(&m, 3), SLATE_OK);
  CHECK_EQ_INT(slate_table_ctrl(&m, 0, 0, &after), SLATE_OK);
  {
    int changed = 0, to_empty = 0;
    for (int i = 0; i < 8; i++) {
      unsigned b0 = (unsigned)((before >> (8 * i)) & 0xFF), b1 = (unsigned)((after >> (8 * i)) & 0xFF);
      if (b0 != b1) {
        changed++;
        if (b0 < 0x80 && b1 == 0x80) to_empty++;
      }
    }
    CHECK_EQ_INT(changed, 1);
    CHECK_EQ_INT(to_empty, 1);
  }
  CHECK_EQ_U64(info_of(&m).tombstones, 0);
  CHECK_EQ_INT(slate_delete_u64(&m, 5), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), 6);
  /* refilling to 8: never held more than 8, still small */
  CHECK_EQ_INT(slate_set_u64(&m, 100, V(u64_value(100))), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&m, 101, V(u64_value(101))), SLATE_OK);
  in = info_of(&m);
  CHECK_EQ_INT(in.small, 1);
  CHECK_EQ_U64(in.capacity, 8);
  CHECK_EQ_U64(in.length, 8);
  verify_structure(&m, 1);
  /* replacing a value keeps it small */
  CHECK_EQ_INT(slate_set_u64(&m, 100, V(u64_value(100))), SLATE_OK);
  CHECK_EQ_INT(info_of(&m).small, 1);
  /* the 9th entry: one table of 16 slots, a directory of 1 */
  CHECK_EQ_INT(slate_set_u64(&m, 102, V(u64_value(102))), SLATE_OK);
  in = info_of(&m);
  CHECK_EQ_INT(in.small, 0);
  CHECK_EQ_INT(in.tables, 1);
  CHECK_EQ_U64(in.capacity, 16);
  CHECK_EQ_INT(in.directory, 1);
  CHECK_EQ_INT(in.global_depth, 0);
  CHECK_EQ_U64(in.length, 9);
  CHECK_EQ_U64(in.tombstones, 0);
  memset(&ti, 0xA5, sizeof ti);
  CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
  CHECK_EQ_INT(ti.capacity, 16);
  CHECK_EQ_INT(ti.groups, 2);
  CHECK_EQ_INT(ti.local_depth, 0);
  CHECK_EQ_INT(ti.directory_first, 0);
  CHECK_EQ_INT(ti.directory_count, 1);
  CHECK_EQ_INT(ti.used, 9);
  CHECK_EQ_INT(ti.tombstones, 0);
  CHECK_EQ_INT(ti.growth_left, 14 - 9);
  CHECK_EQ_INT(slate_table_info(&m, 1, &ti), SLATE_ERROR_NOT_FOUND);
  verify_structure(&m, 1);
  CHECK_EQ_U64(missing_u64(&m, 1, 3, 1), 0);
  CHECK_EQ_U64(missing_u64(&m, 4, 5, 1), 0);
  CHECK_EQ_U64(missing_u64(&m, 6, 9, 1), 0);
  CHECK_EQ_U64(missing_u64(&m, 100, 103, 1), 0);
  CHECK_EQ_U64(present_u64(&m, 3, 4, 1), 0);
  CHECK_EQ_U64(present_u64(&m, 5, 6, 1), 0);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* growth to 100,000 entries: doubling, splits, directory doubling           */
/* ------------------------------------------------------------------------ */

#define MAX_SNAP_TABLES 4096
typedef struct snap_s {
  slate_info_s info;
  uint32_t n;
  slate_table_info_s t[MAX_SNAP_TABLES];
} snap_s;

static void take_snap(const slate_s* m, snap_s* s) {
  s->info = info_of(m);
  s->n = s->info.tables < MAX_SNAP_TABLES ? s->info.tables : MAX_SNAP_TABLES;
  for (uint32_t i = 0; i < s->n; i++) {
    memset(&s->t[i], 0, sizeof s->t[i]);
    if (slate_table_info(m, i, &s->t[i]) != SLATE_OK) {
      s->n = i;
      break;
    }
  }
}

typedef struct growth_stats_s {
  unsigned first_table;
  unsigned doublings;
  unsigned splits;
  unsigned directory_doublings;
  unsigned bad_transitions;
} growth_stats_s;

/* prev -> cur after one insert changed the shape of a map under a pure
 * insert workload: exactly one table doubled, or split (maybe doubling the
 * directory), or the small map became the first table. */
static void check_transition(const snap_s* prev, const snap_s* cur, growth_stats_s* st) {
  uint32_t t = 0;
  unsigned events = 0;
  structure_problems_ = 0;
  if (prev->info.tables == 0) {
    REQ(cur->info.small == 1 && cur->info.capacity == 8 && cur->info.tables == 1);
    events = 1;
  } else if (prev->info.small) {
    REQ(cur->info.small == 0);
    REQ(cur->info.tables == 1);
    REQ(cur->info.capacity == 16);
    REQ(cur->info.directory == 1);
    REQ(cur->info.global_depth == 0);
    REQ(cur->info.length == 9);
    st->first_table++;
    events = 1;
  } else {
    uint32_t g = cur->info.global_depth - prev->info.global_depth;
    uint32_t j = 0;
    REQ(cur->info.small == 0);
    REQ(cur->info.global_depth >= prev->info.global_depth);
    REQ(g <= 1);
    REQ(cur->n == cur->info.tables && prev->n == prev->info.tables);
    for (t = 0; t < prev->n && g <= 1; t++) {
      const slate_table_info_s* p = &prev->t[t];
      uint32_t first = p->directory_first << g, count = p->directory_count << g;
      if (j >= cur->n) {
        REQ(j < cur->n);
        break;
      }
      const slate_table_info_s* c = &cur->t[j];
      REQ(c->directory_first == first);
      if (c->directory_first != first) break;
      if (c->directory_count == count) {
        REQ(c->local_depth == p->local_depth);
        if (c->capacity == 2 * p->capacity) {
          uint32_t limit = p->capacity * 7 / 8;
          events++;
          st->doublings++;
          REQ(p->capacity < MAX_TABLE_SLOTS);
          REQ(c->tombstones == 0);
          REQ(c->used == limit || c->used == limit + 1);
        } else {
          REQ(c->capacity == p->capacity);
        }
        j++;
      } else if (c->directory_count * 2 == count && j + 1 < cur->n) {
        const slate_table_info_s* d = &cur->t[j + 1];
        events++;
        st->splits++;
        REQ(d->directory_first == first + count / 2);
        REQ(d->directory_count == count / 2);
        REQ(c->local_depth == p->local_depth + 1);
        REQ(d->local_depth == p->local_depth + 1);
        REQ(p->capacity == MAX_TABLE_SLOTS);
        REQ(c->used + d->used == MAX_TABLE_LOAD || c->used + d->used == MAX_TABLE_LOAD + 1);
        REQ(c->tombstones == 0 && d->tombstones == 0);
        if (g == 1) {
          REQ(p->local_depth == prev->info.global_depth);
          st->directory_doublings++;
        } else {
          REQ(p->local_depth < prev->info.global_depth);
        }
        j += 2;
      } else {
        int correspondence = 0;
        REQ(correspondence);
        break;
      }
    }
    REQ(j == cur->n);
  }
  REQ(events == 1);
  REQ(cur->info.memory > prev->info.memory);
  if (structure_problems_ != 0) st->bad_transitions++;
}

static snap_s snap_x, snap_y;

void test_growth(void) {
  TEST_SECTION("growth to 100,000 entries");
  slate_s m;
  growth_stats_s st;
  snap_s* prev = &snap_x;
  snap_s* cur = &snap_y;
  const uint64_t total = 100000;
  uint64_t insert_errors = 0, load_violations = 0, checks_failed = 0, length_errors = 0;
  memset(&st, 0, sizeof st);
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  take_snap(&m, prev);
  for (uint64_t k = 0; k < total; k++) {
    if (slate_set_u64(&m, k, V(u64_value(k))) != SLATE_OK) insert_errors++;
    slate_info_s in;
    if (slate_info(&m, &in) != SLATE_OK) insert_errors++;
    if (in.length != k + 1) length_errors++;
    if (!in.small && in.length * 8 > in.capacity * 7) load_violations++;
    if (in.tables != prev->info.tables || in.capacity != prev->info.capacity ||
        in.directory != prev->info.directory || in.small != prev->info.small ||
        in.global_depth != prev->info.global_depth) {
      snap_s* tmp;
      take_snap(&m, cur);
      check_transition(prev, cur, &st);
      tmp = prev;
      prev = cur;
      cur = tmp;
    }
    uint64_t n = k + 1;
    if (n == 8 || n == 9 || n == 15 || n == 100 || n == 897 || n == 1000 || n == 2000 ||
        n == 5000 || n % 20000 == 0) {
      if (run_check(&m) != SLATE_OK) checks_failed++;
    }
    if (n == 9 || n == 1000 || n == 4000 || n == 30000 || n == total) verify_structure(&m, 1);
  }
  CHECK_EQ_U64(insert_errors, 0);
  CHECK_EQ_U64(length_errors, 0);
  CHECK_EQ_U64(load_violations, 0);
  CHECK_EQ_U64(checks_failed, 0);
  CHECK_EQ_INT(st.bad_transitions, 0);
  CHECK_EQ_INT(st.first_table, 1);
  CHECK(st.doublings >= 6); /* 16 -> 32 -> ... -> 1024 */
  CHECK(st.splits >= 100);
  CHECK(st.directory_doublings >= 6);
  fprintf(stderr, "   growth: %u doublings, %u splits, %u directory doublings\n", st.doublings,
          st.splits, st.directory_doublings);

  slate_info_s in = info_of(&m);
  CHECK_EQ_U64(in.length, total);
  CHECK_EQ_U64(slate_length(&m), total);
  CHECK(in.global_depth >= 7);
  CHECK(in.tables >= total / MAX_TABLE_LOAD);
  CHECK_EQ_U64(in.directory, (uint64_t)1 << in.global_depth);
  CHECK_EQ_U64(in.tombstones, 0);
  CHECK(in.capacity * 7 / 8 >= total);
  CHECK_EQ_U64(missing_u64(&m, 0, total, 1), 0);
  CHECK_EQ_U64(present_u64(&m, total, total + 1000, 1), 0);
  CHECK_EQ_U64(count_entries(&m), total);

  /* deleting returns no memory and keeps capacity; compact returns it */
  uint64_t bad = 0;
  for (uint64_t k = 0; k < total; k += 2)
    if (slate_delete_u64(&m, k) != SLATE_OK) bad++;
  CHECK_EQ_U64(bad, 0);
  slate_info_s half = info_of(&m);
  CHECK_EQ_U64(half.length, total / 2);
  CHECK_EQ_U64(half.capacity, in.capacity);
  CHECK_EQ_INT(half.tables, in.tables);
  CHECK_EQ_U64(half.memory, in.memory);
  CHECK_EQ_U64(missing_u64(&m, 1, total, 2), 0);
  CHECK_EQ_U64(present_u64(&m, 0, total, 2), 0);
  verify_structure(&m, 1);
  for (uint64_t k = 1; k < total; k += 2)
    if (k % 10 != 1 && slate_delete_u64(&m, k) != SLATE_OK) bad++;
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_U64(slate_length(&m), total / 10);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  slate_info_s compacted = info_of(&m);
  CHECK_EQ_U64(compacted.length, total / 10);
  CHECK(compacted.capacity < in.capacity);
  CHECK(compacted.memory < in.memory);
  CHECK(compacted.tables < in.tables);
  CHECK_EQ_U64(compacted.tombstones, 0);
  CHECK_EQ_U64(missing_u64(&m, 1, total, 10), 0);
  CHECK_EQ_U64(present_u64(&m, 0, total, 2), 0);
  CHECK_EQ_U64(present_u64(&m, 3, total, 10), 0);
  verify_structure(&m, 1);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* tombstones                                                                */
/* ------------------------------------------------------------------------ */

#define TS_GROUPS 16 /* a table of 128 slots */

static void read_ctrl(const slate_s* m, uint64_t* words, uint32_t groups) {
  for (uint32_t g = 0; g < groups; g++) {
    words[g] = 0;
    CHECK_EQ_INT(slate_table_ctrl(m, 0, g, &words[g]), SLATE_OK);
  }
}

/* the one byte that changed between two ctrl snapshots; -1 if not exactly one */
static int changed_byte(const uint64_t* a, const uint64_t* b, uint32_t groups, unsigned* old_b,
                        unsigned* new_b) {
  int where = -1, count = 0;
  for (uint32_t g = 0; g < groups; g++) {
    for (int i = 0; i < 8; i++) {
      unsigned x = (unsigned)((a[g] >> (8 * i)) & 0xFF), y = (unsigned)((b[g] >> (8 * i)) & 0xFF);
      if (x != y) {
        count++;
        where = (int)(g * 8 + (uint32_t)i);
        *old_b = x;
        *new_b = y;
      }
    }
  }
  return count == 1 ? where : -1;
}

static int group_has_empty(uint64_t word) {
  for (int i = 0; i < 8; i++)
    if (((word >> (8 * i)) & 0xFF) == 0x80) return 1;
  return 0;
}

void test_tombstones(void) {
  TEST_SECTION("tombstones and direct empties");
  slate_s m;
  slate_table_info_s ti, t2;
  uint64_t before[TS_GROUPS], after[TS_GROUPS];
  uint64_t k = 0;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  /* fill one table of 128 slots to growth_left == 1 (111 entries) */
  for (;;) {
    CHECK_EQ_INT(slate_set_u64(&m, k, V(u64_value(k))), SLATE_OK);
    k++;
    slate_info_s in = info_of(&m);
    if (!in.small && in.tables == 1 && in.capacity == 128) {
      CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
      if (ti.growth_left <= 1) break;
    }
    if (k > 1000) break;
  }
  if (!CHECK_EQ_U64(k, 111)) {
    slate_free(&m);
    return;
  }
  CHECK_EQ_INT(ti.growth_left, 1);
  CHECK_EQ_INT(ti.used, 111);
  CHECK_EQ_INT(ti.groups, TS_GROUPS);

  /* delete 60 keys, classifying each delete */
  uint64_t tomb_keys[128];
  unsigned tomb_h2[128];
  int tomb_at[128];
  int n_tomb = 0, n_empty = 0, bad = 0;
  for (uint64_t d = 0; d < 60; d++) {
    unsigned ob = 0, nb = 0;
    read_ctrl(&m, before, TS_GROUPS);
    CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
    if (slate_delete_u64(&m, d) != SLATE_OK) bad++;
    read_ctrl(&m, after, TS_GROUPS);
    CHECK_EQ_INT(slate_table_info(&m, 0, &t2), SLATE_OK);
    int at = changed_byte(before, after, TS_GROUPS, &ob, &nb);
    if (at < 0 || ob >= 0x80) {
      bad++;
      continue;
    }
    if (t2.used != ti.used - 1) bad++;
    if (group_has_empty(before[at / 8])) {
      n_empty++;
      if (nb != 0x80 || t2.growth_left != ti.growth_left + 1 || t2.tombstones != ti.tombstones)
        bad++;
    } else {
      if (nb != 0xFE || t2.growth_left != ti.growth_left || t2.tombstones != ti.tombstones + 1)
        bad++;
      tomb_keys[n_tomb] = d;
      tomb_h2[n_tomb] = ob;
      tomb_at[n_tomb] = at;
      n_tomb++;
    }
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(n_tomb > 0);
  CHECK(n_empty > 0);
  CHECK_EQ_U64(info_of(&m).tombstones, n_tomb);
  fprintf(stderr, "   %d tombstones, %d direct empties\n", n_tomb, n_empty);
  verify_structure(&m, 1);

  /* reinserting a key whose delete left a tombstone reuses a tombstone:
     the first on its probe, which reaches its own old slot before any
     empty one. Only if an earlier reinsert took that very slot may the
     probe go on past it, to an empty slot. */
  bad = 0;
  int taken[TS_GROUPS * 8] = {0};
  int reused_tomb = 0, moved_on = 0;
  for (int i = 0; i < n_tomb; i++) {
    unsigned ob = 0, nb = 0;
    read_ctrl(&m, before, TS_GROUPS);
    CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
    if (slate_set_u64(&m, tomb_keys[i], V(u64_value(tomb_keys[i]))) != SLATE_OK) bad++;
    read_ctrl(&m, after, TS_GROUPS);
    CHECK_EQ_INT(slate_table_info(&m, 0, &t2), SLATE_OK);
    int at = changed_byte(before, after, TS_GROUPS, &ob, &nb);
    if (at < 0 || nb != tomb_h2[i] || t2.used != ti.used + 1 || t2.capacity != ti.capacity) {
      bad++;
      continue;
    }
    taken[at] = 1;
    if (ob == 0xFE) {
      reused_tomb++;
      if (t2.tombstones != ti.tombstones - 1 || t2.growth_left != ti.growth_left) bad++;
    } else {
      moved_on++;
      if (ob != 0x80 || !taken[tomb_at[i]] || at == tomb_at[i] ||
          t2.tombstones != ti.tombstones || t2.growth_left != ti.growth_left - 1)
        bad++;
    }
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(reused_tomb > 0);
  CHECK_EQ_U64(info_of(&m).tombstones, (uint64_t)moved_on);
  fprintf(stderr, "   reinserts: %d reused a tombstone, %d went past one taken before them\n",
          reused_tomb, moved_on);
  CHECK_EQ_U64(missing_u64(&m, 60, 111, 1), 0);
  for (int i = 0; i < n_tomb; i++) CHECK_EQ_U64(missing_u64(&m, tomb_keys[i], tomb_keys[i] + 1, 1), 0);

  /* delete them again, then insert new keys: some land on tombstones */
  for (int i = 0; i < n_tomb; i++) CHECK_EQ_INT(slate_delete_u64(&m, tomb_keys[i]), SLATE_OK);
  slate_info_s in = info_of(&m);
  CHECK(in.tombstones > 0);
  int reused = 0, fresh = 0;
  bad = 0;
  uint64_t next = 1000000;
  for (int i = 0; i < 500; i++) {
    CHECK_EQ_INT(slate_table_info(&m, 0, &ti), SLATE_OK);
    if (ti.tombstones == 0) break;
    if (slate_set_u64(&m, next, V(u64_value(next))) != SLATE_OK) bad++;
    next++;
    in = info_of(&m);
    if (in.tables != 1 || in.capacity != 128) {
      /* the table was rebuilt: growth drops tombstones */
      CHECK_EQ_U64(in.tombstones, 0);
      break;
    }
    CHECK_EQ_INT(slate_table_info(&m, 0, &t2), SLATE_OK);
    if (t2.tombstones == ti.tombstones - 1 && t2.growth_left == ti.growth_left)
      reused++;
    else if (t2.tombstones == ti.tombstones && t2.growth_left == ti.growth_left - 1)
      fresh++;
    else if (t2.tombstones == 0 && ti.growth_left <= 1)
      break; /* pruned in place */
    else
      bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(reused > 0);
  fprintf(stderr, "   new keys: %d reused a tombstone, %d took an empty slot\n", reused, fresh);
  verify_structure(&m, 1);

  /* keep inserting until the table grows: growth drops tombstones */
  for (uint64_t d = 60; d < 80; d++) CHECK_EQ_INT(slate_delete_u64(&m, d), SLATE_OK);
  uint64_t cap = info_of(&m).capacity;
  for (int i = 0; i < 2000; i++) {
    CHECK_EQ_INT(slate_set_u64(&m, next, V(u64_value(next))), SLATE_OK);
    next++;
    in = info_of(&m);
    if (in.capacity != cap) break;
  }
  CHECK(in.capacity > cap);
  CHECK_EQ_U64(in.tombstones, 0);
  CHECK_EQ_U64(missing_u64(&m, 80, 111, 1), 0);
  CHECK_EQ_U64(missing_u64(&m, 1000000, next, 1), 0);
  CHECK_EQ_U64(present_u64(&m, 0, 80, 1), 0);
  verify_structure(&m, 1);
  slate_free(&m);
}
