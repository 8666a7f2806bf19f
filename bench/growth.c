/*
 * growth.c -- insert latency while a slate map grows, one insert at a time.
 *
 * Go's Swiss-table design bounds the work of any single insert: a table grows
 * by doubling its groups only up to 1024 slots and then splits in two, so no
 * insert ever rehashes more than 1024 entries, however large the map.  This
 * program checks that claim from the outside, as a user would (plain C11,
 * linked against libslate.a):
 *
 *   1. grows a map to N u64 keys (default 10,000,000), timing every single
 *      slate_set_u64 with clock_gettime(CLOCK_MONOTONIC);
 *   2. looks every key up again and checks its value, and checks that keys
 *      never inserted are absent;
 *   3. does the same with M string keys (default 1,000,000), "key:<n>" for n
 *      from a splitmix64 sequence, through slate_set / slate_get.
 *
 * For each it prints the total time, ns/insert, the insert-time percentiles
 * (p50 ... p99.99), the largest single-insert pause, the largest pause in the
 * first and in the last 10% of the inserts and in every tenth in between (if
 * pauses were proportional to the map's size, as with a rehash-everything
 * map, the last tenth would be ~10x the first), the p99.9 and p99.99 of every
 * tenth (the cost of a typical table split, robust against one-off OS
 * noise), the count of pauses over 10 us / 100 us / 1 ms, the context
 * switches and page faults during the inserts, and slate_info at the end
 * (tables, global depth, directory size, memory).
 *
 * Every insert time includes one clock reading (printed as "timer") and
 * whatever the OS did at that moment (an interrupt, a page fault on fresh
 * memory, preemption: with another busy process a pause of a whole scheduler
 * tick, often 4 ms, shows up as an involuntary context switch): single large
 * outliers can be noise; a maximum or a tail percentile that climbs tenth
 * after tenth would not be.  Note that a directory doubling is a pointer copy
 * proportional to the directory (128 KiB at 10M keys), the one piece of
 * per-insert work that does grow with the map, as in Go; and that a split of
 * a table of string keys rehashes each key from its heap copy, so it costs
 * more than a split of integer keys (one cache miss per entry).
 *
 * Build and run (from the repository root, after cargo build --release):
 *   gcc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude bench/growth.c \
 *       target/release/libslate.a -lpthread -ldl -lm -o /tmp/growth
 *   /tmp/growth                  # 10,000,000 u64 keys, 1,000,000 string keys
 *   /tmp/growth 100000 10000     # scaled down
 *   /tmp/growth 100000           # string keys default to a tenth: 10000
 *   /tmp/growth 0 50000          # a count of 0 skips that part
 *
 * Exit status: 0 when every key was inserted and found with its value and no
 * absent key was found; 1 when any key is missing or wrong or a call failed;
 * 2 for a usage error or when the benchmark itself runs out of memory.
 */
#define _POSIX_C_SOURCE 200809L

#include "slate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__)
#include <sys/resource.h>
#define GROWTH_HAVE_RUSAGE 1
#endif

/* ------------------------------------------------------------------ utils */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64's output function: a bijection on 64-bit values, so the keys
 * mix(base + i * golden) are distinct for distinct i, and keys with i >= n
 * are guaranteed absent from a map filled with i < n. */
#define GOLDEN 0x9e3779b97f4a7c15ull
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint64_t u64_key(uint64_t i) { return mix(0x5eed5eed5eedull + i * GOLDEN); }
static void* value_of(uint64_t x) { return (void*)(uintptr_t)(x * 2 + 1); }

static void* xmalloc(size_t size) {
  void* p = malloc(size ? size : 1);
  if (!p) {
    fprintf(stderr, "growth: out of memory (%zu bytes for the benchmark's own arrays)\n", size);
    exit(2);
  }
  return p;
}

static int parse_count(const char* text, uint64_t* out) {
  char* end = NULL;
  unsigned long long v;
  if (!text[0] || text[0] == '-') return 0;
  errno = 0;
  v = strtoull(text, &end, 10);
  if (errno || *end) return 0;
  *out = (uint64_t)v;
  return 1;
}

static const char* error_name(int e) {
  switch (e) {
    case SLATE_OK: return "SLATE_OK";
    case SLATE_ERROR_NOT_FOUND: return "SLATE_ERROR_NOT_FOUND";
    case SLATE_ERROR_INVALID: return "SLATE_ERROR_INVALID";
    case SLATE_ERROR_ALLOC: return "SLATE_ERROR_ALLOC";
    case SLATE_ERROR_FULL: return "SLATE_ERROR_FULL";
    default: return "unknown error";
  }
}

/* OS events during a phase: context switches (another process took the CPU:
 * a pause of a scheduler tick, often 4 ms, that is not the map's work) and
 * page faults (fresh memory touched for the first time). */
typedef struct os_events_s {
  long involuntary, voluntary, minor_faults, major_faults;
} os_events_s;

static void os_events(os_events_s* e) {
#ifdef GROWTH_HAVE_RUSAGE
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    e->involuntary = ru.ru_nivcsw;
    e->voluntary = ru.ru_nvcsw;
    e->minor_faults = ru.ru_minflt;
    e->major_faults = ru.ru_majflt;
    return;
  }
#endif
  e->involuntary = e->voluntary = e->minor_faults = e->major_faults = -1;
}

static void report_os_events(const os_events_s* before, const os_events_s* after) {
  if (before->involuntary < 0 || after->involuntary < 0) return;
  printf("  os events      %ld involuntary + %ld voluntary context switches, %ld minor + %ld major"
         " page faults during the inserts\n",
         after->involuntary - before->involuntary, after->voluntary - before->voluntary,
         after->minor_faults - before->minor_faults, after->major_faults - before->major_faults);
}

/* ------------------------------------------------------- latency record */

/* Insert times in ns, one per insert, clamped to 32 bits (4.29 s). */
typedef struct record_s {
  uint32_t* ns;
  uint64_t count;
} record_s;

static uint32_t clamp32(uint64_t x) { return x > UINT32_MAX ? UINT32_MAX : (uint32_t)x; }

/* LSD radix sort, 4 passes of 8 bits. */
static void sort_u32(uint32_t* a, uint64_t n) {
  uint32_t* tmp = (uint32_t*)xmalloc((size_t)n * sizeof *tmp);
  uint32_t* src = a;
  uint32_t* dst = tmp;
  int shift;
  for (shift = 0; shift < 32; shift += 8) {
    uint64_t count[257];
    uint64_t i;
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++) count[((src[i] >> shift) & 0xff) + 1]++;
    for (i = 0; i < 256; i++) count[i + 1] += count[i];
    for (i = 0; i < n; i++) dst[count[(src[i] >> shift) & 0xff]++] = src[i];
    {
      uint32_t* t = src;
      src = dst;
      dst = t;
    }
  }
  /* four passes: the result is back in a */
  free(tmp);
}

/* Nearest-rank percentile of sorted data. */
static uint32_t percentile(const uint32_t* sorted, uint64_t n, double p) {
  uint64_t rank;
  if (n == 0) return 0;
  rank = (uint64_t)((double)n * p);
  if ((double)rank < (double)n * p) rank++;
  if (rank == 0) rank = 1;
  if (rank > n) rank = n;
  return sorted[rank - 1];
}

static uint32_t max_in(const uint32_t* a, uint64_t from, uint64_t to, uint64_t* at) {
  uint32_t m = 0;
  uint64_t i;
  if (at) *at = from;
  for (i = from; i < to; i++)
    if (a[i] > m) {
      m = a[i];
      if (at) *at = i;
    }
  return m;
}

static void print_ns(const char* label, uint32_t ns) {
  if (ns >= 1000000)
    printf("%s %.2f ms", label, ns / 1e6);
  else if (ns >= 10000)
    printf("%s %.1f us", label, ns / 1e3);
  else
    printf("%s %" PRIu32 " ns", label, ns);
}

static void report_inserts(const char* what, record_s* r, uint64_t total_ns) {
  uint64_t n = r->count, at = 0, i;
  uint32_t first, last, overall;
  printf("%s: %" PRIu64 " inserts\n", what, n);
  printf("  total          %.3f s  (%.1f ns/insert, timer included)\n", total_ns / 1e9,
         n ? (double)total_ns / (double)n : 0.0);
  if (n == 0) return;

  overall = max_in(r->ns, 0, n, &at);
  printf("  largest pause ");
  print_ns("", overall);
  printf("  at insert #%" PRIu64 " (map of %" PRIu64 " entries)\n", at + 1, at);

  first = max_in(r->ns, 0, (n + 9) / 10, NULL);
  last = max_in(r->ns, n - (n + 9) / 10, n, NULL);
  printf("  largest pause, first 10%%:");
  print_ns("", first);
  printf("   last 10%%:");
  print_ns("", last);
  printf("   (last/first %.2f)\n", first ? (double)last / first : 0.0);

  printf("  max by tenth (us):    ");
  for (i = 0; i < 10; i++) {
    uint64_t from = n * i / 10, to = n * (i + 1) / 10;
    printf(" %.1f", to > from ? max_in(r->ns, from, to, NULL) / 1e3 : 0.0);
  }
  printf("\n");

  {
    uint64_t over10us = 0, over100us = 0, over1ms = 0;
    for (i = 0; i < n; i++) {
      over10us += r->ns[i] >= 10000;
      over100us += r->ns[i] >= 100000;
      over1ms += r->ns[i] >= 1000000;
    }
    printf("  pauses         %" PRIu64 " inserts >= 10 us, %" PRIu64 " >= 100 us, %" PRIu64
           " >= 1 ms\n", over10us, over100us, over1ms);
  }

  /* The maximum of a tenth is one event and easily an OS hiccup; the tail
   * percentiles of each tenth show whether the typical growth step (a table
   * doubling or split: about 1 insert in 600 once tables are at 1024 slots)
   * gets dearer as the map grows. */
  if (n >= 10000) {
    double p999[10], p9999[10];
    for (i = 0; i < 10; i++) {
      uint64_t from = n * i / 10, to = n * (i + 1) / 10;
      sort_u32(r->ns + from, to - from);
      p999[i] = percentile(r->ns + from, to - from, 0.999) / 1e3;
      p9999[i] = percentile(r->ns + from, to - from, 0.9999) / 1e3;
    }
    printf("  p99.9 by tenth (us): ");
    for (i = 0; i < 10; i++) printf(" %.1f", p999[i]);
    printf("\n  p99.99 by tenth (us):");
    for (i = 0; i < 10; i++) printf(" %.1f", p9999[i]);
    printf("\n");
  }

  sort_u32(r->ns, n);
  printf("  insert time   ");
  print_ns(" p50", percentile(r->ns, n, 0.50));
  print_ns("  p99", percentile(r->ns, n, 0.99));
  print_ns("  p99.9", percentile(r->ns, n, 0.999));
  print_ns("  p99.99", percentile(r->ns, n, 0.9999));
  print_ns("  max", r->ns[n - 1]);
  printf("\n");
}

static void report_info(const slate_s* map) {
  slate_info_s info;
  int e;
  memset(&info, 0, sizeof info);
  e = slate_info(map, &info);
  if (e != SLATE_OK) {
    printf("  map            slate_info failed: %s (%d)\n", error_name(e), e);
    return;
  }
  printf("  map            length %" PRIu64 ", tables %" PRIu32 ", global depth %" PRIu32
         ", directory %" PRIu32 "%s\n",
         info.length, info.tables, info.global_depth, info.directory,
         info.small ? ", small (bare group)" : "");
  printf("                 capacity %" PRIu64 " slots (load %.3f), tombstones %" PRIu64
         ", memory %.1f MiB (%.1f bytes/entry)\n",
         info.capacity, info.capacity ? (double)info.length / (double)info.capacity : 0.0,
         info.tombstones, info.memory / 1048576.0,
         info.length ? (double)info.memory / (double)info.length : 0.0);
}

/* ------------------------------------------------------------- u64 keys */

static int run_u64(uint64_t n) {
  slate_s map;
  record_s rec;
  os_events_s os_before, os_after;
  uint64_t i, t0, start, total, bad = 0, absent_checked, found_absent = 0;
  int e;

  rec.ns = (uint32_t*)xmalloc((size_t)n * sizeof *rec.ns);
  rec.count = n;
  if ((e = slate(&map)) != SLATE_OK) {
    printf("slate() failed: %s (%d)\n", error_name(e), e);
    return 1;
  }

  os_events(&os_before);
  start = t0 = now_ns();
  for (i = 0; i < n; i++) {
    uint64_t key = u64_key(i), t1;
    e = slate_set_u64(&map, key, value_of(key));
    t1 = now_ns();
    rec.ns[i] = clamp32(t1 - t0);
    t0 = t1;
    if (e != SLATE_OK) {
      printf("u64 keys: slate_set_u64 #%" PRIu64 " (key %" PRIu64 ") failed: %s (%d)\n", i, key,
             error_name(e), e);
      slate_free(&map);
      free(rec.ns);
      return 1;
    }
  }
  total = t0 - start;
  os_events(&os_after);
  report_inserts("u64 keys", &rec, total);
  report_os_events(&os_before, &os_after);
  free(rec.ns);

  if (slate_length(&map) != n) {
    printf("  LENGTH WRONG: slate_length %" PRIu64 ", expected %" PRIu64 "\n", slate_length(&map), n);
    bad++;
  }

  start = now_ns();
  for (i = 0; i < n; i++) {
    uint64_t key = u64_key(i);
    void* v = NULL;
    e = slate_get_u64(&map, key, &v);
    if (e != SLATE_OK || v != value_of(key)) {
      if (bad < 10)
        printf("  WRONG: key #%" PRIu64 " (%" PRIu64 "): %s, value %p, expected %p\n", i, key,
               error_name(e), v, value_of(key));
      bad++;
    }
  }
  total = now_ns() - start;
  absent_checked = n < 1000000 ? n : 1000000;
  for (i = 0; i < absent_checked; i++) {
    void* v = NULL;
    e = slate_get_u64(&map, u64_key(n + i), &v);
    if (e != SLATE_ERROR_NOT_FOUND) {
      if (found_absent < 10)
        printf("  WRONG: absent key %" PRIu64 " gave %s\n", u64_key(n + i), error_name(e));
      found_absent++;
    }
  }
  /* the same numbers in the i64 keyspace are other keys */
  for (i = 0; i < absent_checked && i < 1000; i++) {
    e = slate_get_i64(&map, (int64_t)u64_key(i), NULL);
    if (e != SLATE_ERROR_NOT_FOUND) {
      if (found_absent < 10)
        printf("  WRONG: i64 key %" PRId64 " found in a map of u64 keys: %s\n",
               (int64_t)u64_key(i), error_name(e));
      found_absent++;
    }
  }
  if (bad == 0)
    printf("  lookups        all %" PRIu64 " keys found with their values (%.1f ns/lookup)\n", n,
           n ? (double)total / (double)n : 0.0);
  else
    printf("  lookups        %" PRIu64 " of %" PRIu64 " keys MISSING OR WRONG\n", bad, n);
  if (found_absent == 0)
    printf("  absent keys    %" PRIu64 " never-inserted keys not found, as expected\n",
           absent_checked + (absent_checked < 1000 ? absent_checked : 1000));
  else
    printf("  absent keys    %" PRIu64 " never-inserted keys FOUND\n", found_absent);
  report_info(&map);
  slate_free(&map);
  return bad || found_absent ? 1 : 0;
}

/* ---------------------------------------------------------- string keys */

typedef struct strings_s {
  char* text;      /* all keys, NUL-terminated, back to back */
  size_t* offset;  /* offset[i]: start of key i */
} strings_s;

static void make_strings(strings_s* s, uint64_t from, uint64_t n) {
  size_t cap = (size_t)n * 25 + 1, used = 0;
  uint64_t i;
  s->text = (char*)xmalloc(cap);
  s->offset = (size_t*)xmalloc((size_t)n * sizeof *s->offset);
  for (i = 0; i < n; i++) {
    /* "key:" + at most 20 digits + NUL = 25 */
    int w = snprintf(s->text + used, cap - used, "key:%llu",
                     (unsigned long long)mix(0xabcdef12345ull + (from + i) * GOLDEN));
    s->offset[i] = used;
    used += (size_t)w + 1;
  }
}

static void free_strings(strings_s* s) {
  free(s->text);
  free(s->offset);
}

static int run_strings(uint64_t n) {
  slate_s map;
  record_s rec;
  strings_s keys, absent;
  os_events_s os_before, os_after;
  uint64_t i, t0, start, total, bad = 0, absent_checked, found_absent = 0;
  int e;

  make_strings(&keys, 0, n);
  rec.ns = (uint32_t*)xmalloc((size_t)n * sizeof *rec.ns);
  rec.count = n;
  if ((e = slate(&map)) != SLATE_OK) {
    printf("slate() failed: %s (%d)\n", error_name(e), e);
    return 1;
  }

  os_events(&os_before);
  start = t0 = now_ns();
  for (i = 0; i < n; i++) {
    uint64_t t1;
    e = slate_set(&map, keys.text + keys.offset[i], value_of(i));
    t1 = now_ns();
    rec.ns[i] = clamp32(t1 - t0);
    t0 = t1;
    if (e != SLATE_OK) {
      printf("string keys: slate_set #%" PRIu64 " (\"%s\") failed: %s (%d)\n", i,
             keys.text + keys.offset[i], error_name(e), e);
      slate_free(&map);
      free(rec.ns);
      free_strings(&keys);
      return 1;
    }
  }
  total = t0 - start;
  os_events(&os_after);
  report_inserts("string keys", &rec, total);
  report_os_events(&os_before, &os_after);
  free(rec.ns);

  if (slate_length(&map) != n) {
    printf("  LENGTH WRONG: slate_length %" PRIu64 ", expected %" PRIu64 "\n", slate_length(&map), n);
    bad++;
  }

  start = now_ns();
  for (i = 0; i < n; i++) {
    void* v = NULL;
    e = slate_get(&map, keys.text + keys.offset[i], &v);
    if (e != SLATE_OK || v != value_of(i)) {
      if (bad < 10)
        printf("  WRONG: key #%" PRIu64 " (\"%s\"): %s, value %p, expected %p\n", i,
               keys.text + keys.offset[i], error_name(e), v, value_of(i));
      bad++;
    }
  }
  total = now_ns() - start;

  absent_checked = n < 100000 ? n : 100000;
  make_strings(&absent, n, absent_checked);
  for (i = 0; i < absent_checked; i++) {
    e = slate_get(&map, absent.text + absent.offset[i], NULL);
    if (e != SLATE_ERROR_NOT_FOUND) {
      if (found_absent < 10)
        printf("  WRONG: absent key \"%s\" gave %s\n", absent.text + absent.offset[i],
               error_name(e));
      found_absent++;
    }
  }
  free_strings(&absent);

  if (bad == 0)
    printf("  lookups        all %" PRIu64 " keys found with their values (%.1f ns/lookup)\n", n,
           n ? (double)total / (double)n : 0.0);
  else
    printf("  lookups        %" PRIu64 " of %" PRIu64 " keys MISSING OR WRONG\n", bad, n);
  if (found_absent == 0)
    printf("  absent keys    %" PRIu64 " never-inserted keys not found, as expected\n",
           absent_checked);
  else
    printf("  absent keys    %" PRIu64 " never-inserted keys FOUND\n", found_absent);
  report_info(&map);
  slate_free(&map);
  free_strings(&keys);
  return bad || found_absent ? 1 : 0;
}

/* ----------------------------------------------------------------- main */

static void timer_overhead(void) {
  uint64_t best = UINT64_MAX, i;
  for (i = 0; i < 1000; i++) {
    uint64_t a = now_ns(), b = now_ns(), c = now_ns();
    (void)b;
    if ((c - a) / 2 < best) best = (c - a) / 2;
  }
  printf("timer: clock_gettime(CLOCK_MONOTONIC), ~%" PRIu64
         " ns per reading; one reading is included in every insert time\n", best);
}

int main(int argc, char** argv) {
  uint64_t n_u64 = 10000000, n_str = 1000000;
  int failed = 0;

  if (argc > 3 || (argc > 1 && !parse_count(argv[1], &n_u64)) ||
      (argc > 2 && !parse_count(argv[2], &n_str))) {
    fprintf(stderr,
            "usage: %s [U64_KEYS [STRING_KEYS]]\n"
            "  defaults: 10000000 u64 keys, 1000000 string keys;\n"
            "  with only U64_KEYS given, STRING_KEYS is a tenth of it; 0 skips a part\n",
            argv[0]);
    return 2;
  }
  if (argc == 2) n_str = n_u64 / 10;
  if (n_u64 > SIZE_MAX / sizeof(uint32_t) || n_str > SIZE_MAX / 32) {
    fprintf(stderr, "growth: counts too large for this platform\n");
    return 2;
  }

  printf("slate growth benchmark: %" PRIu64 " u64 keys, %" PRIu64 " string keys\n", n_u64, n_str);
  timer_overhead();
  printf("\n");
  if (n_u64) {
    failed |= run_u64(n_u64);
    printf("\n");
  }
  if (n_str) {
    failed |= run_strings(n_str);
    printf("\n");
  }
  printf("%s\n", failed ? "FAILED: some keys were missing or wrong" : "OK: every key found with its value");
  return failed ? 1 : 0;
}
