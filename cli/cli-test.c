/*
 * cli-test: watch a slate map's Swiss tables change, one keypress at a time.
 *
 *   ./bin/cli-test                 on a terminal: a live view, redrawn per key
 *   printf '3pv' | ./bin/cli-test  piped: a plain transcript, one frame per key
 *   ./bin/cli-test --help          the keys and the options
 *
 * It is written the way we would like users to write against slate: C11,
 * nothing but include/slate.h, every result checked, everything freed.
 *
 * Everything it shows comes from the documented introspection API:
 *
 *   slate_info        seed, global depth, directory size, tables, capacity
 *   slate_table_info  per table: directory range, local depth, capacity,
 *                     used, tombstones, growth budget, slot layout
 *   slate_table_ctrls the raw 64-bit control words of a table's groups
 *   slate_check       the library's own invariant checker
 *
 * and the CLI checks the counters itself: it recounts full, deleted and
 * empty slots from the raw control words and compares them with what
 * slate_table_info and slate_info report (see check_snapshot).
 *
 * Where is the last key? The library does not expose positions, but the
 * README documents the iteration order: slate_each visits the tables in
 * directory order, their groups in order and the full slots of a group in
 * order. So the k-th entry of a walk is the k-th full slot of the control
 * words, and the CLI finds the slot of the last inserted key that way (and
 * the slot of a key it deletes, just before deleting it). When a single
 * insert did not rebuild its table, it also checks that this is the one
 * slot whose control byte just turned full, so a change of iteration order
 * shows up as a failed check instead of a wrong highlight.
 *
 * Cost: slate_table_ctrls reads a table's words in one call, but each call
 * (like slate_table_info) finds its table by walking the directory from the
 * start, so reading a map of thousands of tables is quadratic in tables,
 * if with a small constant. A transcript reads
 * every word for every frame anyway. The terminal view re-reads a table
 * only when slate_table_info shows it moved, changed shape or changed a
 * counter since it last passed the check: a change to a table's control
 * words always changes its used or tombstone count, except in a compaction,
 * after which everything is re-read. The check line says how many tables
 * were re-read.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* TIOCGWINSZ */

#include "slate.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

#define SLOTS 8u            /* slots per group, bytes per control word */
#define CTRL_EMPTY 0x80u    /* control byte of an empty slot */
#define CTRL_DELETED 0xFEu  /* control byte of a tombstone */
#define BULK_MAX 1000000u   /* keys 1..9 insert 10^n keys, at most this many */
#define REPORT_MAX 6        /* broken invariants spelled out per frame */
#define SUMMARY_EDGE 2      /* tables shown at each end of a transcript summary */
#define POS_BITS 48         /* directory ranges scaled to 2^48 to follow tables */
#define ESC_WAIT_MS 40      /* how long an Esc waits for the rest of a sequence */
#define LINE_CAP 2048

/* Keys beyond bytes, from escape sequences. */
enum {
  KEY_EOF = -1,
  KEY_NONE = -2, /* no key: a timeout, or a signal interrupted the wait */
  KEY_UP = 0x100,
  KEY_DOWN,
  KEY_LEFT,
  KEY_RIGHT,
  KEY_PGUP,
  KEY_PGDN,
  KEY_HOME,
  KEY_END,
  KEY_UNKNOWN
};

/* ------------------------------------------------------------------------ */
/* The terminal: raw mode, restored on every way out                        */
/* ------------------------------------------------------------------------ */

static struct termios g_saved_tty; /* the terminal as we found it */
static struct termios g_raw_tty;
static volatile sig_atomic_t g_tty_raw; /* raw mode and the alternate screen are on */
static volatile sig_atomic_t g_winch;   /* the window was resized */
static volatile sig_atomic_t g_redraw;  /* resumed after Ctrl-Z */

/* Alternate screen, hidden cursor, clear; and back. */
static const char ENTER_SEQ[] = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J";
static const char LEAVE_SEQ[] = "\x1b[0m\x1b[?25h\x1b[?1049l";

/* write(2) until done; async-signal-safe. False on an error. */
static bool write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    s += w;
    n -= (size_t)w;
  }
  return true;
}

/* Restores the terminal. Async-signal-safe, and harmless when not raw. */
static void tty_restore(void) {
  if (!g_tty_raw) return;
  g_tty_raw = 0;
  (void)write_all(STDOUT_FILENO, LEAVE_SEQ, sizeof LEAVE_SEQ - 1);
  (void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_saved_tty);
}

/* Raw mode and the alternate screen. Async-signal-safe. */
static bool tty_raw(void) {
  if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &g_raw_tty) != 0) return false;
  g_tty_raw = 1;
  (void)write_all(STDOUT_FILENO, ENTER_SEQ, sizeof ENTER_SEQ - 1);
  return true;
}

/* SIGINT, SIGTERM, SIGHUP, SIGQUIT and crashes: restore the terminal, then
 * die of the same signal (so a calling shell sees what happened). */
static void on_fatal_signal(int sig) {
  tty_restore();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(sig, &sa, NULL);
  (void)raise(sig); /* delivered when this handler returns */
}

/* Ctrl-Z: give the terminal back, stop; on resuming take it again. */
static void on_suspend(int sig) {
  int saved_errno = errno;
  tty_restore();
  struct sigaction sa, mine;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(sig, &sa, &mine);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  (void)sigprocmask(SIG_UNBLOCK, &set, NULL);
  (void)raise(sig); /* stops here until SIGCONT */
  (void)sigaction(sig, &mine, NULL);
  (void)tty_raw();
  g_redraw = 1;
  errno = saved_errno;
}

static void on_winch(int sig) {
  (void)sig;
  g_winch = 1;
}

/* Installs a handler, leaving alone a signal that was ignored when we
 * started (nohup, background jobs). No SA_RESTART: a resize interrupts the
 * wait for a key so the view is redrawn at once. */
static void handle_signal(int sig, void (*handler)(int)) {
  struct sigaction old;
  if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(sig, &sa, NULL);
}

/* Raw mode for the interactive view: no line buffering, no echo; ISIG
 * stays on, so Ctrl-C is SIGINT and restores the terminal on its way out. */
static bool tty_setup(void) {
  if (tcgetattr(STDIN_FILENO, &g_saved_tty) != 0) return false;
  g_raw_tty = g_saved_tty;
  g_raw_tty.c_iflag &= ~(tcflag_t)(IXON | ICRNL | INLCR | IGNCR | ISTRIP | BRKINT | INPCK);
  g_raw_tty.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);
  g_raw_tty.c_cc[VMIN] = 1;
  g_raw_tty.c_cc[VTIME] = 0;
  if (atexit(tty_restore) != 0) return false;
  const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) handle_signal(fatal[i], on_fatal_signal);
  handle_signal(SIGTSTP, on_suspend);
  handle_signal(SIGWINCH, on_winch);
  return tty_raw();
}

static void tty_size(unsigned *rows, unsigned *cols) {
  struct winsize ws;
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
    *rows = ws.ws_row;
    *cols = ws.ws_col;
  } else {
    *rows = 24;
    *cols = 80;
  }
}

/* Writes a whole frame with the terminating signals held back, so that an
 * interrupted frame cannot cut an escape sequence in two before the
 * restoring one. */
static bool write_frame(const char *s, size_t n) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  sigaddset(&block, SIGQUIT);
  sigaddset(&block, SIGTSTP);
  (void)sigprocmask(SIG_BLOCK, &block, &old);
  bool ok = write_all(STDOUT_FILENO, s, n);
  (void)sigprocmask(SIG_SETMASK, &old, NULL);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Input: bytes, and the few escape sequences the view scrolls with         */
/* ------------------------------------------------------------------------ */

typedef struct {
  bool interactive; /* a terminal: Esc waits ESC_WAIT_MS for a sequence */
  bool eof;
  unsigned char buf[256];
  size_t pos, len;
} input_s;

/* The next byte; KEY_EOF at the end (or on a read error); KEY_NONE when
 * timeout_ms (interactive, >= 0) passed or a signal interrupted the wait. */
static int input_byte(input_s *in, int timeout_ms) {
  if (in->pos < in->len) return in->buf[in->pos++];
  if (in->eof) return KEY_EOF;
  if (in->interactive && timeout_ms >= 0) {
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    if (poll(&p, 1, timeout_ms) <= 0) return KEY_NONE;
  }
  for (;;) {
    ssize_t n = read(STDIN_FILENO, in->buf, sizeof in->buf);
    if (n > 0) {
      in->pos = 1;
      in->len = (size_t)n;
      return in->buf[0];
    }
    if (n < 0 && errno == EINTR) {
      if (in->interactive) return KEY_NONE;
      continue;
    }
    in->eof = true;
    return KEY_EOF;
  }
}

/* More input already typed (a paste, keys sent quickly). */
static bool input_pending(input_s *in) {
  if (in->pos < in->len) return true;
  struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
  return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

/* One key: a byte, or KEY_UP... for the escape sequences of arrows, PgUp,
 * PgDn, Home and End (CSI and SS3 forms). A lone Esc is 0x1b. */
static int read_key(input_s *in) {
  int c = input_byte(in, -1);
  if (c != 0x1b) return c;
  int d = input_byte(in, ESC_WAIT_MS);
  if (d != '[' && d != 'O') return 0x1b;
  int param = 0;
  bool first_param = true;
  for (int i = 0; i < 16; i++) {
    int e = input_byte(in, ESC_WAIT_MS);
    if (e < 0) return KEY_UNKNOWN;
    if (e >= '0' && e <= '9') {
      if (first_param && param < 1000) param = param * 10 + (e - '0');
      continue;
    }
    if (e == ';') {
      first_param = false; /* modifiers (Ctrl-Up...) are ignored */
      continue;
    }
    switch (e) {
      case 'A': return KEY_UP;
      case 'B': return KEY_DOWN;
      case 'C': return KEY_RIGHT;
      case 'D': return KEY_LEFT;
      case 'H': return KEY_HOME;
      case 'F': return KEY_END;
      case '~':
        switch (param) {
          case 1: case 7: return KEY_HOME;
          case 4: case 8: return KEY_END;
          case 5: return KEY_PGUP;
          case 6: return KEY_PGDN;
          default: return KEY_UNKNOWN;
        }
      default:
        if (e >= 0x40 && e <= 0x7e) return KEY_UNKNOWN; /* a final byte we do not use */
    }
  }
  return KEY_UNKNOWN;
}

static void key_name(int key, char *out, size_t cap) {
  switch (key) {
    case 0x7f: case 0x08: snprintf(out, cap, "Backspace"); return;
    case 0x1b: snprintf(out, cap, "Esc"); return;
    case '\r': case '\n': snprintf(out, cap, "Enter"); return;
    case '\t': snprintf(out, cap, "Tab"); return;
    case ' ': snprintf(out, cap, "Space"); return;
    case KEY_UP: snprintf(out, cap, "Up"); return;
    case KEY_DOWN: snprintf(out, cap, "Down"); return;
    case KEY_LEFT: snprintf(out, cap, "Left"); return;
    case KEY_RIGHT: snprintf(out, cap, "Right"); return;
    case KEY_PGUP: snprintf(out, cap, "PgUp"); return;
    case KEY_PGDN: snprintf(out, cap, "PgDn"); return;
    case KEY_HOME: snprintf(out, cap, "Home"); return;
    case KEY_END: snprintf(out, cap, "End"); return;
    case KEY_UNKNOWN: snprintf(out, cap, "an escape sequence"); return;
    default:
      if (key > 0x20 && key < 0x7f) snprintf(out, cap, "'%c'", key);
      else snprintf(out, cap, "0x%02x", (unsigned)key & 0xffu);
  }
}

/* ------------------------------------------------------------------------ */
/* Small tools: text, random keys, the list of keys we inserted             */
/* ------------------------------------------------------------------------ */

/* A growable string. An allocation failure sticks in `failed`. */
typedef struct {
  char *data;
  size_t len, cap;
  bool failed;
} text_s;

static void text_reserve(text_s *t, size_t extra) {
  if (t->failed || t->len + extra < t->cap) return;
  size_t cap = t->cap ? t->cap : 4096;
  while (cap <= t->len + extra) {
    if (cap > SIZE_MAX / 2) {
      t->failed = true;
      return;
    }
    cap *= 2;
  }
  char *p = realloc(t->data, cap);
  if (p == NULL) {
    t->failed = true;
    return;
  }
  t->data = p;
  t->cap = cap;
}

static void text_add(text_s *t, const char *s, size_t n) {
  text_reserve(t, n);
  if (t->failed) return;
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = '\0';
}

static void text_str(text_s *t, const char *s) { text_add(t, s, strlen(s)); }

static void text_char(text_s *t, char c) { text_add(t, &c, 1); }

/* snprintf into a fixed buffer, appending at its current end. */
PRINTF_LIKE(3, 4)
static void append(char *buf, size_t cap, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, cap - used, fmt, ap);
  va_end(ap);
}

/* splitmix64: the key generator, and the function that makes values. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* The value stored with a key: a function of the key, so `v` can check it. */
static void *value_for(uint64_t key) {
  uint64_t s = key ^ UINT64_C(0x5EEDC0FFEE);
  return (void *)(uintptr_t)splitmix64(&s);
}

static uint64_t random_seed(void) {
  uint64_t seed = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = read(fd, &seed, sizeof seed);
    close(fd);
    if (n == (ssize_t)sizeof seed) return seed;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 48);
}

/* The keys we inserted and have not deleted, to pick deletions from and
 * to verify. */
typedef struct {
  uint64_t *items;
  size_t len, cap;
} keys_s;

static bool keys_reserve(keys_s *k, size_t extra) {
  if (extra <= k->cap - k->len) return true;
  size_t cap = k->cap ? k->cap : 1024;
  while (cap - k->len < extra) {
    if (cap > SIZE_MAX / 2 / sizeof *k->items) return false;
    cap *= 2;
  }
  uint64_t *p = realloc(k->items, cap * sizeof *p);
  if (p == NULL) return false;
  k->items = p;
  k->cap = cap;
  return true;
}

static const char *error_name(int rc) {
  switch (rc) {
    case SLATE_OK: return "SLATE_OK";
    case SLATE_ERROR_NOT_FOUND: return "SLATE_ERROR_NOT_FOUND";
    case SLATE_ERROR_INVALID: return "SLATE_ERROR_INVALID";
    case SLATE_ERROR_ALLOC: return "SLATE_ERROR_ALLOC";
    case SLATE_ERROR_FULL: return "SLATE_ERROR_FULL";
    default: return "an unknown result";
  }
}

/* ------------------------------------------------------------------------ */
/* Snapshots: every counter and control word of the map at one moment       */
/* ------------------------------------------------------------------------ */

typedef struct {
  slate_table_info_s info; /* as slate_table_info reports it */
  uint64_t pos, width;     /* its directory range scaled to 2^POS_BITS */
  size_t first;            /* its first control word in snap_s.ctrl */
  uint32_t full, deleted, empty, invalid; /* recounted from the words */
  int64_t prev;            /* the same table in the previous snapshot, or -1 */
  uint32_t changed;        /* groups whose word differs from that table's */
  bool reread;             /* words read from the library for this snapshot */
  bool ok;                 /* the CLI's own check found nothing wrong */
} tview_s;

typedef struct {
  slate_info_s info;
  uint64_t length; /* slate_length */
  tview_s *tables;
  uint32_t ntables;
  size_t tables_cap;
  uint64_t *ctrl; /* every control word, table after table */
  size_t nctrl, ctrl_cap;
  uint64_t fill[SLOTS + 1]; /* groups by number of full slots */
  uint32_t reread;          /* tables whose words were read from the library */
  uint32_t new_tables, changed_tables;
  uint64_t changed_groups;
  char api_problem[256]; /* an introspection call that failed */
  bool extra_table;      /* slate_table_info answered past info.tables */
  unsigned cli_failures; /* the CLI's check */
  char cli_report[1024];
  int check_rc; /* slate_check */
  char check_msg[256];
} snap_s;

static void snap_free(snap_s *s) {
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

static uint8_t ctrl_byte(uint64_t word, unsigned slot) { return (uint8_t)(word >> (8 * slot)); }

/* Fills `s` from the map. With `prev`, tables are matched to the previous
 * snapshot's (same directory range and shape) to count what changed; with
 * `reuse` as well, a matched table whose counters did not move and which
 * passed the check last time keeps its words instead of reading them
 * again (see "Cost" at the top: every change but a compaction moves the
 * counters of each table it touches). False with `err` set when out of
 * memory or when slate_info fails. */
static bool snap_take(snap_s *s, const slate_s *map, const snap_s *prev, bool reuse, char *err,
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
static void check_snapshot(snap_s *s, const slate_s *map) {
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

typedef struct {
  uint32_t table, group, slot;
} where_s;

typedef enum { FOUND, ABSENT, MISMATCH, WALK_FAILED } locate_e;

/* Where `key` is in the map that `s` describes. MISMATCH: the walk put it
 * past the last full slot of the control words. */
static locate_e locate(const slate_s *map, const snap_s *s, uint64_t key, where_s *at) {
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

/* ------------------------------------------------------------------------ */
/* The application                                                          */
/* ------------------------------------------------------------------------ */

typedef enum { LAST_NONE, LAST_INSERTED, LAST_DELETED } last_e;

typedef struct {
  /* options */
  bool interactive, colour, show_all;
  uint64_t key_seed;
  /* the map and what we know it holds */
  slate_s map;
  keys_s keys;
  uint64_t rng;
  snap_s snaps[2];
  snap_s *cur, *prev;
  bool fresh; /* cur was taken after this key changed the map */
  /* the last key inserted or deleted */
  last_e last;
  uint64_t last_key;
  bool last_placed; /* last_at is known */
  where_s last_at;
  char last_note[256];
  /* the view */
  bool fingerprints;
  bool follow;        /* the view follows the last key (until scrolled) */
  uint64_t focus_pos; /* directory position of the table followed */
  uint64_t top;       /* first line of the table area shown */
  unsigned area;      /* rows of the table area in the last frame */
  uint64_t *line_start; /* per table, its first line in the table area */
  size_t line_start_cap;
  unsigned rows, cols;
  text_s frame;
  char label[48];   /* "key 'x'", or "start" */
  char status[512]; /* what the key did */
  bool failed; /* some check failed: exit status 3 */
  char error[256];
} app_s;

static bool take_snapshot(app_s *a, bool reuse) {
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
static uint32_t focus_table(app_s *a) {
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

static void scroll(app_s *a, int key);

/* Applies one key. False on a fatal error (a->error says which). Sets
 * *quit for q and Esc. */
static bool apply_key(app_s *a, int key, bool *quit) {
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

/* ------------------------------------------------------------------------ */
/* Drawing                                                                  */
/* ------------------------------------------------------------------------ */

#define STYLE_RESET "\x1b[0m"
#define STYLE_STATUS "\x1b[7m"
#define STYLE_OK "\x1b[32m"
#define STYLE_BAD "\x1b[1;31m"
#define STYLE_TABLE "\x1b[1m"
#define STYLE_FOCUS "\x1b[1;33m"
#define STYLE_FULL "\x1b[32m"
#define STYLE_DELETED "\x1b[1;31m"
#define STYLE_EMPTY "\x1b[90m"
#define STYLE_INVALID "\x1b[1;35m"
#define STYLE_LAST "\x1b[1;7;33m"

#define WRAP_INDENT 4 /* continuation rows of a wrapped line start with 4 spaces */
#define WRAP_MAX 3    /* rows a header line may take on a terminal */

typedef struct {
  app_s *a;
  text_s *out;
  unsigned row; /* terminal rows started so far */
} frame_s;

/* Where `text` breaks to fit `width` columns: returns the length of the
 * piece that fits (cut at a space unless that is more than halfway back)
 * and stores in *next where the rest starts. */
static size_t wrap_piece(const char *text, size_t width, size_t *next) {
  size_t n = strlen(text);
  if (n <= width) {
    *next = n;
    return n;
  }
  size_t cut = width;
  while (cut > width / 2 && text[cut] != ' ') cut--;
  if (text[cut] != ' ') cut = width;
  size_t rest = cut;
  while (text[rest] == ' ') rest++;
  while (cut > 0 && text[cut - 1] == ' ') cut--;
  *next = rest;
  return cut;
}

/* Columns a line may use: one less than the terminal's, so that writing
 * the last character never wraps the cursor. */
static size_t line_width(const app_s *a) { return a->cols > WRAP_INDENT + 2 ? a->cols - 1 : WRAP_INDENT + 1; }

/* Terminal rows `text` takes when wrapped. */
static unsigned wrap_rows(const app_s *a, const char *text) {
  size_t width = line_width(a), next = 0;
  unsigned rows = 1;
  wrap_piece(text, width, &next);
  for (text += next; *text != '\0'; text += next, rows++) wrap_piece(text, width - WRAP_INDENT, &next);
  return rows;
}

/* Starts a terminal row; false when the screen is full. */
static bool new_row(frame_s *f) {
  if (f->row >= f->a->rows) return false;
  if (f->row > 0) text_str(f->out, "\r\n");
  f->row++;
  return true;
}

/* Rows from .. from+count-1 of `text` wrapped to the terminal, each in
 * `style` (on a colour terminal). */
static void put_rows(frame_s *f, const char *style, const char *text, unsigned from, unsigned count) {
  app_s *a = f->a;
  size_t width = line_width(a);
  for (unsigned r = 0; r < from + count; r++) {
    if (r > 0 && *text == '\0') return;
    size_t next = 0;
    size_t n = wrap_piece(text, r == 0 ? width : width - WRAP_INDENT, &next);
    if (r >= from) {
      if (!new_row(f)) return;
      if (a->colour && style) text_str(f->out, style);
      if (r > 0) text_str(f->out, "    ");
      text_add(f->out, text, n);
      if (a->colour && style) text_str(f->out, STYLE_RESET);
      text_str(f->out, "\x1b[K");
    }
    text += next;
  }
}

/* One line of text: as it is in a transcript; wrapped (at most WRAP_MAX
 * rows) and styled on a terminal. */
static void put_line(frame_s *f, const char *style, const char *text) {
  if (f->a->interactive) {
    put_rows(f, style, text, 0, WRAP_MAX);
  } else {
    text_str(f->out, text);
    text_char(f->out, '\n');
  }
}

/* Groups per grid line: each takes a separator and 8 cells of 1 character
 * (2 in fingerprint mode) after a 5-character group number. */
static uint32_t groups_per_line(const app_s *a) {
  uint32_t cell = a->fingerprints ? 17 : 9;
  if (!a->interactive) return a->fingerprints ? 4 : 8;
  size_t width = line_width(a);
  uint32_t n = width > 5 ? (uint32_t)((width - 5) / cell) : 0;
  return n > 0 ? n : 1;
}

static uint64_t grid_rows(const app_s *a, uint32_t per_line, uint32_t t) {
  return (a->cur->tables[t].info.groups + (uint64_t)per_line - 1) / per_line;
}

/* Table t's header line; returns its style. What is special about the
 * table comes first, in parentheses: new or changed since the previous
 * frame, its check failed, it holds the last key. */
static const char *table_header(const app_s *a, uint32_t t, char *line, size_t cap) {
  const snap_s *s = a->cur;
  const tview_s *tv = &s->tables[t];
  const slate_table_info_s *ti = &tv->info;
  bool focus = a->last_placed && a->last_at.table == t;
  char marks[96] = "";
  if (a->fresh && tv->prev < 0) append(marks, sizeof marks, ", new");
  else if (a->fresh && tv->changed > 0) {
    append(marks, sizeof marks, ", %" PRIu32 " group%s changed", tv->changed, tv->changed == 1 ? "" : "s");
  }
  if (!tv->ok) append(marks, sizeof marks, ", CHECK FAILED");
  if (focus) append(marks, sizeof marks, ", last key");
  snprintf(line, cap, "table %" PRIu32 "%s%s%s: ", t, marks[0] ? " (" : "", marks[0] ? marks + 2 : "",
           marks[0] ? ")" : "");
  if (s->info.small) {
    append(line, cap, "small map (one group, no directory), used %" PRIu32 ", capacity %" PRIu32
           ", growth %" PRIu32 ", tombstones %" PRIu32, ti->used, ti->capacity, ti->growth_left, ti->tombstones);
  } else {
    append(line, cap, "dir %" PRIu32 "-%" PRIu32 ", local depth %" PRIu32 ", used %" PRIu32 ", capacity %" PRIu32
           ", growth %" PRIu32 ", tombstones %" PRIu32,
           ti->directory_first, ti->directory_first + ti->directory_count - 1, ti->local_depth, ti->used,
           ti->capacity, ti->growth_left, ti->tombstones);
  }
  append(line, cap, ", %s", ti->int_keys == 2   ? "u64 slots (16 B)"
                            : ti->int_keys == 1 ? "i64 slots (16 B)"
                                                : "general slots (40 B)");
  return !tv->ok ? STYLE_BAD : focus ? STYLE_FOCUS : STYLE_TABLE;
}

/* Grid line `row` of table t: groups row*per_line onwards, each a row of
 * 8 cells; '>' before the group holding the last key. */
static void put_grid_line(frame_s *f, uint32_t t, uint64_t row, uint32_t per_line) {
  app_s *a = f->a;
  const snap_s *s = a->cur;
  const tview_s *tv = &s->tables[t];
  text_s *out = f->out;
  if (a->interactive && !new_row(f)) return;
  bool colour = a->interactive && a->colour;
  uint32_t g0 = (uint32_t)row * per_line;
  char num[16];
  snprintf(num, sizeof num, "  %3" PRIu32, g0);
  text_str(out, num);
  const char *style = NULL; /* the style in force */
  for (uint32_t g = g0; g < tv->info.groups && g < g0 + per_line; g++) {
    bool here = a->last_placed && a->last_at.table == t && a->last_at.group == g;
    uint64_t w = s->ctrl[tv->first + g];
    const char *mark_style = here ? STYLE_FOCUS : NULL;
    if (colour && mark_style != style) {
      if (style) text_str(out, STYLE_RESET);
      if (mark_style) text_str(out, mark_style);
      style = mark_style;
    }
    text_char(out, here ? '>' : ' ');
    for (unsigned i = 0; i < SLOTS; i++) {
      uint8_t b = ctrl_byte(w, i);
      const char *want;
      char cell[3];
      if (b < 0x80) {
        want = STYLE_FULL;
        if (a->fingerprints) snprintf(cell, sizeof cell, "%02x", b);
        else snprintf(cell, sizeof cell, "#");
      } else if (b == CTRL_EMPTY) {
        want = STYLE_EMPTY;
        snprintf(cell, sizeof cell, a->fingerprints ? ".." : ".");
      } else if (b == CTRL_DELETED) {
        want = STYLE_DELETED;
        snprintf(cell, sizeof cell, a->fingerprints ? "xx" : "x");
      } else {
        want = STYLE_INVALID;
        snprintf(cell, sizeof cell, a->fingerprints ? "??" : "?");
      }
      if (here && a->last_at.slot == i) want = STYLE_LAST;
      if (colour && want != style) {
        if (style) text_str(out, STYLE_RESET);
        text_str(out, want);
        style = want;
      }
      text_str(out, cell);
    }
  }
  if (colour && style) text_str(out, STYLE_RESET);
  text_str(out, a->interactive ? "\x1b[K" : "\n");
}

/* The lines above the tables, in both modes. */
static void put_header(frame_s *f) {
  app_s *a = f->a;
  const snap_s *s = a->cur;
  char line[LINE_CAP];

  snprintf(line, sizeof line, "%s%s: %s; %" PRIu64 " entries", a->interactive ? "" : "== ", a->label,
           a->status, slate_length(&a->map));
  put_line(f, STYLE_STATUS, line);

  snprintf(line, sizeof line, "map: seed 0x%016" PRIx64 ", global depth %" PRIu32 ", directory %" PRIu32
           ", tables %" PRIu32 ", capacity %" PRIu64 ", tombstones %" PRIu64 ", memory %" PRIu64 " bytes%s",
           s->info.seed, s->info.global_depth, s->info.directory, s->info.tables, s->info.capacity,
           s->info.tombstones, s->info.memory,
           s->info.small ? " (small map)" : s->info.capacity == 0 ? " (nothing allocated)" : "");
  put_line(f, NULL, line);

  bool ok = s->cli_failures == 0 && s->check_rc == SLATE_OK;
  snprintf(line, sizeof line, "check: cli ");
  if (s->cli_failures == 0) append(line, sizeof line, "OK");
  else append(line, sizeof line, "FAILED (%u): %s", s->cli_failures, s->cli_report);
  if (a->interactive && s->reread < s->ntables) {
    append(line, sizeof line, " (re-read %" PRIu32 " of %" PRIu32 " tables, the others unchanged)", s->reread,
           s->ntables);
  }
  if (s->check_rc == SLATE_OK) append(line, sizeof line, "; slate_check OK");
  else append(line, sizeof line, "; slate_check FAILED: %s (%s)", s->check_msg, error_name(s->check_rc));
  put_line(f, ok ? STYLE_OK : STYLE_BAD, line);

  snprintf(line, sizeof line, "fill: groups by full slots");
  for (unsigned i = 0; i <= SLOTS; i++) append(line, sizeof line, " %u:%" PRIu64, i, s->fill[i]);
  if (a->fresh) {
    append(line, sizeof line, "; changed: %" PRIu64 " group%s in %" PRIu32 " table%s (%" PRIu32 " new)",
           s->changed_groups, s->changed_groups == 1 ? "" : "s", s->changed_tables,
           s->changed_tables == 1 ? "" : "s", s->new_tables);
  }
  put_line(f, NULL, line);

  bool last_ok = a->last_note[0] == '\0';
  if (a->last == LAST_NONE) {
    snprintf(line, sizeof line, "last: -");
  } else {
    snprintf(line, sizeof line, "last: %s 0x%016" PRIx64, a->last == LAST_INSERTED ? "inserted" : "deleted",
             a->last_key);
    if (a->last_placed) {
      where_s at = a->last_at;
      append(line, sizeof line, " %s table %" PRIu32 " group %" PRIu32 " slot %" PRIu32,
             a->last == LAST_INSERTED ? "->" : "from", at.table, at.group, at.slot);
      uint8_t b = 0;
      if (at.table < s->ntables && at.group < s->tables[at.table].info.groups) {
        b = ctrl_byte(s->ctrl[s->tables[at.table].first + at.group], at.slot);
      }
      if (a->last == LAST_INSERTED) append(line, sizeof line, " (h2 0x%02x)", b);
      else if (b == CTRL_DELETED) append(line, sizeof line, ", now a tombstone (x): its group had no empty slot");
      else if (b == CTRL_EMPTY) append(line, sizeof line, ", now empty (.): its group had an empty slot");
    }
    if (!last_ok) append(line, sizeof line, "; %s", a->last_note);
  }
  put_line(f, last_ok ? NULL : STYLE_BAD, line);
}

/* A transcript frame: the header, then every table (--all) or the first
 * and last SUMMARY_EDGE tables and the last key's, with counts of the rest. */
static void draw_transcript(app_s *a) {
  frame_s f = {.a = a, .out = &a->frame};
  const snap_s *s = a->cur;
  put_header(&f);
  uint32_t per_line = groups_per_line(a);
  uint32_t focus = a->last_placed ? a->last_at.table : UINT32_MAX;
  uint32_t skipped = 0;
  char line[LINE_CAP];
  if (s->ntables == 0) put_line(&f, NULL, "(no tables: nothing allocated)");
  for (uint32_t t = 0; t < s->ntables; t++) {
    bool show = a->show_all || t < SUMMARY_EDGE || t + SUMMARY_EDGE >= s->ntables || t == focus;
    if (!show) {
      skipped++;
      continue;
    }
    if (skipped > 0) {
      snprintf(line, sizeof line, "... %" PRIu32 " table%s not shown (--all prints every table)", skipped,
               skipped == 1 ? "" : "s");
      put_line(&f, NULL, line);
      skipped = 0;
    }
    table_header(a, t, line, sizeof line);
    put_line(&f, NULL, line);
    uint64_t rows = grid_rows(a, per_line, t);
    for (uint64_t r = 0; r < rows; r++) put_grid_line(&f, t, r, per_line);
  }
  text_char(&a->frame, '\n');
}

/* The terminal view's lines below the header: table t starts at line
 * line_start[t] (its header, wrapped, then its grid lines);
 * line_start[ntables] is the total. */
static bool layout(app_s *a) {
  const snap_s *s = a->cur;
  uint32_t per_line = groups_per_line(a);
  if (s->ntables + (size_t)1 > a->line_start_cap) {
    uint64_t *p = realloc(a->line_start, ((size_t)s->ntables + 1) * sizeof *p);
    if (p == NULL) {
      snprintf(a->error, sizeof a->error, "out of memory for the view of %" PRIu32 " tables", s->ntables);
      return false;
    }
    a->line_start = p;
    a->line_start_cap = (size_t)s->ntables + 1;
  }
  char line[LINE_CAP];
  a->line_start[0] = 0;
  for (uint32_t t = 0; t < s->ntables; t++) {
    table_header(a, t, line, sizeof line);
    a->line_start[t + 1] = a->line_start[t] + wrap_rows(a, line) + grid_rows(a, per_line, t);
  }
  return true;
}

/* The table that line `line` of the view belongs to. */
static uint32_t table_at(const app_s *a, uint64_t line) {
  uint32_t lo = 0, hi = a->cur->ntables ? a->cur->ntables - 1 : 0;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo + 1) / 2;
    if (a->line_start[mid] <= line) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Scroll keys move the terminal view only. */
static void scroll(app_s *a, int key) {
  if (!a->interactive || a->cur->ntables == 0 || !layout(a)) return;
  a->follow = false;
  const snap_s *s = a->cur;
  uint64_t total = a->line_start[s->ntables], top = a->top;
  unsigned page = a->area > 1 ? a->area - 1 : 1;
  uint32_t t = table_at(a, top);
  switch (key) {
    case '[': case KEY_LEFT:
      top = a->line_start[t] < top ? a->line_start[t] : (t > 0 ? a->line_start[t - 1] : 0);
      break;
    case ']': case KEY_RIGHT:
      if (t + 1 < s->ntables) top = a->line_start[t + 1];
      break;
    case KEY_UP: top = top > 0 ? top - 1 : 0; break;
    case KEY_DOWN: top++; break;
    case KEY_PGUP: top = top > page ? top - page : 0; break;
    case KEY_PGDN: top += page; break;
    case KEY_HOME: top = 0; break;
    case KEY_END: top = total; break;
    default: break;
  }
  a->top = top; /* clamped when drawn */
}

/* The terminal view: the header, as many table lines as fit around the
 * last key's table, and a footer with the position and the scroll keys. */
static bool draw_terminal(app_s *a) {
  frame_s f = {.a = a, .out = &a->frame};
  const snap_s *s = a->cur;
  text_str(&a->frame, "\x1b[H");
  if (a->rows < 3 || a->cols < 24) {
    put_rows(&f, NULL, "terminal too small", 0, 1);
    text_str(&a->frame, "\x1b[J");
    return true;
  }
  put_header(&f);
  a->area = a->rows > f.row + 1 ? a->rows - f.row - 1 : 0;
  if (!layout(a)) return false;
  uint32_t per_line = groups_per_line(a);
  uint64_t total = a->line_start[s->ntables];
  if (a->follow && s->ntables > 0) {
    uint32_t ft = focus_table(a);
    a->top = a->line_start[ft];
    if (a->last_placed && a->last_at.table == ft) {
      uint64_t header = a->line_start[ft + 1] - a->line_start[ft] - grid_rows(a, per_line, ft);
      uint64_t line = a->line_start[ft] + header + a->last_at.group / per_line;
      if (line >= a->top + a->area) a->top = line + 1 - a->area;
    }
  }
  if (total <= a->area) a->top = 0;
  else if (a->top > total - a->area) a->top = total - a->area; /* keep the screen full */
  if (s->ntables == 0 && a->area > 0) put_line(&f, NULL, "(no tables: nothing allocated)");
  char line[LINE_CAP];
  for (uint64_t l = a->top; l < a->top + a->area && l < total; l++) {
    uint32_t t = table_at(a, l);
    uint64_t header = a->line_start[t + 1] - a->line_start[t] - grid_rows(a, per_line, t);
    uint64_t offset = l - a->line_start[t];
    if (offset < header) {
      const char *style = table_header(a, t, line, sizeof line);
      put_rows(&f, style, line, (unsigned)offset, 1);
    } else {
      put_grid_line(&f, t, offset - header, per_line);
    }
  }
  while (f.row + 1 < a->rows) put_rows(&f, NULL, "", 0, 1);
  char foot[LINE_CAP];
  if (s->ntables > 0) {
    uint64_t last = a->top + a->area < total ? a->top + a->area : total;
    snprintf(foot, sizeof foot, "tables %" PRIu32 "-%" PRIu32 " of %" PRIu32 "%s | scroll: [ ] arrows PgUp/PgDn Home/End | q quit",
             table_at(a, a->top), table_at(a, last > 0 ? last - 1 : 0), s->ntables,
             a->follow ? "" : " (scrolled)");
  } else {
    snprintf(foot, sizeof foot, "any key inserts, 1-9 bulk, Backspace deletes, p c k v f | q quit");
  }
  put_rows(&f, STYLE_STATUS, foot, 0, 1);
  text_str(&a->frame, "\x1b[J");
  return true;
}

static bool draw(app_s *a) {
  a->frame.len = 0;
  a->frame.failed = false;
  if (a->interactive) {
    if (!draw_terminal(a)) return false;
  } else {
    draw_transcript(a);
  }
  if (a->frame.failed) {
    snprintf(a->error, sizeof a->error, "out of memory for the frame");
    return false;
  }
  bool ok = a->interactive ? write_frame(a->frame.data, a->frame.len)
                           : fwrite(a->frame.data, 1, a->frame.len, stdout) == a->frame.len;
  if (!ok) snprintf(a->error, sizeof a->error, "cannot write the output: %s", strerror(errno));
  return ok;
}

/* ------------------------------------------------------------------------ */
/* main                                                                     */
/* ------------------------------------------------------------------------ */

static void usage(FILE *to) {
  fputs(
      "usage: cli-test [--seed N] [--all] [--help]\n"
      "\n"
      "Watch a slate map (Go 1.24 Swiss tables: groups of 8 slots, tables of at\n"
      "most 1024 slots, a directory of tables) change one keypress at a time.\n"
      "On a terminal the view is redrawn after every key. With piped input\n"
      "(printf '3pv' | cli-test) it prints a plain transcript instead, one frame\n"
      "per key, without escape codes.\n"
      "\n"
      "keys:\n"
      "  any other key     insert one random uint64 key (slate_set_u64; the value\n"
      "                    is a function of the key, so v can check it)\n"
      "  1 .. 9            insert 10^n random keys (at most a million per key)\n"
      "  Backspace         delete a random entry (0x7f or 0x08)\n"
      "  p                 compact (slate_compact)\n"
      "  c                 clear, keeping the capacity (slate_clear)\n"
      "  k                 clone, compare the copy with slate_equal, free the clone\n"
      "  v                 look up every inserted key and check its value\n"
      "  f                 toggle slot markers / fingerprints\n"
      "  [ and ]           previous / next table (Left and Right too)\n"
      "  Up and Down       scroll one line\n"
      "  PgUp and PgDn     scroll one page\n"
      "  Home and End      first / last table\n"
      "                    (these move the terminal view only; the next change\n"
      "                    of the map brings the last key back into view)\n"
      "  q or Esc          quit; Ctrl-C also restores the terminal\n"
      "In a transcript newlines are ignored, so echo 3pv | cli-test works.\n"
      "\n"
      "display, after each key:\n"
      "  a status line (what the key did, the entry count); the map: hash seed,\n"
      "  global depth, directory size, tables, capacity; check: the CLI's own\n"
      "  recount of every table from its raw control words (used, tombstones,\n"
      "  growth_left) and the directory ranges, OK or which counter of which\n"
      "  table is wrong, then slate_check's verdict; fill: how many groups hold\n"
      "  0..8 full slots; last: the slot of the last inserted or deleted key;\n"
      "  then per table its directory range, local depth, used, capacity,\n"
      "  growth budget, tombstones and slot layout (u64 keys only: 16-byte\n"
      "  slots), and its groups, 8 cells each:\n"
      "    .  empty    x  deleted (tombstone)    #  full\n"
      "    (f: a full slot shows its 7-bit fingerprint in hex, 2 cells)\n"
      "  '>' marks the group of the last key (a colour terminal also lights up\n"
      "  its slot). A terminal shows the tables around that one; a transcript\n"
      "  shows the first two, the last two and that one, with a count of the\n"
      "  others.\n"
      "\n"
      "options:\n"
      "  --seed N   seed the generator of the random keys (decimal or 0x hex), a\n"
      "             debugging aid for reproducible transcripts: the same keys\n"
      "             are inserted and deleted, so the counts are the same. The\n"
      "             map's own hash seed stays random (the library has no seed\n"
      "             API), so the table layout can differ between runs. Without\n"
      "             --seed the key seed is random too; the first frame shows it.\n"
      "  --all      in a transcript, print every table\n"
      "  --help     this text\n"
      "\n"
      "Colour only on a terminal, and never when NO_COLOR is set or TERM=dumb.\n"
      "Exit status: 0; 1 on an error; 2 on bad usage; 3 when a transcript showed\n"
      "a failed check (the CLI's, slate_check, k or v).\n",
      to);
}

/* Parses the options; -1 to exit 0 (--help), 0 to run, 2 on bad usage. */
static int parse_args(app_s *a, int argc, char **argv, bool *seeded) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const char *value = NULL;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(stdout);
      return -1;
    } else if (strcmp(arg, "--all") == 0) {
      a->show_all = true;
    } else if (strcmp(arg, "--seed") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "cli-test: --seed needs a number\n");
        return 2;
      }
      value = argv[++i];
    } else if (strncmp(arg, "--seed=", 7) == 0) {
      value = arg + 7;
    } else {
      fprintf(stderr, "cli-test: unknown option '%s' (--help lists them)\n", arg);
      return 2;
    }
    if (value != NULL) {
      char *end = NULL;
      errno = 0;
      unsigned long long n = strtoull(value, &end, 0);
      if (value[0] == '\0' || value[0] == '-' || *end != '\0' || errno != 0) {
        fprintf(stderr, "cli-test: --seed wants an unsigned 64-bit number, not '%s'\n", value);
        return 2;
      }
      a->key_seed = (uint64_t)n;
      *seeded = true;
    }
  }
  return 0;
}

static int run_transcript(app_s *a) {
  input_s in = {.interactive = false};
  if (!draw(a)) return 1;
  for (;;) {
    int key = read_key(&in);
    if (key == KEY_EOF) break;
    if (key == '\n' || key == '\r') continue;
    bool quit = false;
    if (!apply_key(a, key, &quit)) return 1;
    if (quit) {
      printf("== %s: %s; %" PRIu64 " entries\n", a->label, a->status, slate_length(&a->map));
      break;
    }
    if (!draw(a)) return 1;
  }
  if (in.eof) printf("== end of input; %" PRIu64 " entries\n", slate_length(&a->map));
  if (fflush(stdout) != 0) {
    snprintf(a->error, sizeof a->error, "cannot write the output: %s", strerror(errno));
    return 1;
  }
  return a->failed ? 3 : 0;
}

static int run_terminal(app_s *a) {
  input_s in = {.interactive = true};
  if (!tty_setup()) {
    snprintf(a->error, sizeof a->error, "cannot put the terminal in raw mode: %s", strerror(errno));
    return 1;
  }
  tty_size(&a->rows, &a->cols);
  if (!draw(a)) return 1;
  for (;;) {
    int key = read_key(&in);
    if (key == KEY_EOF) break;
    if (key == KEY_NONE) {
      if (g_winch) tty_size(&a->rows, &a->cols);
      if (g_winch || g_redraw) {
        g_winch = g_redraw = 0;
        if (!draw(a)) return 1;
      }
      continue;
    }
    bool quit = false;
    if (!apply_key(a, key, &quit)) return 1;
    if (quit) break;
    if (g_winch) {
      g_winch = 0;
      tty_size(&a->rows, &a->cols);
    }
    if (!input_pending(&in) && !draw(a)) return 1;
  }
  tty_restore();
  return 0;
}

int main(int argc, char **argv) {
  app_s a;
  memset(&a, 0, sizeof a);
  a.cur = &a.snaps[0];
  a.prev = &a.snaps[1];
  bool seeded = false;
  int status = parse_args(&a, argc, argv, &seeded);
  if (status != 0) return status < 0 ? 0 : status;
  if (!seeded) a.key_seed = random_seed();
  a.rng = a.key_seed;
  a.interactive = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
  const char *term = getenv("TERM");
  a.colour = a.interactive && getenv("NO_COLOR") == NULL && !(term != NULL && strcmp(term, "dumb") == 0);
  a.follow = true;

  int rc = slate(&a.map);
  if (rc != SLATE_OK) {
    fprintf(stderr, "cli-test: slate() failed: %s\n", error_name(rc));
    return 1;
  }
  if (take_snapshot(&a, false)) {
    snprintf(a.label, sizeof a.label, "start");
    snprintf(a.status, sizeof a.status, "empty map; random keys from seed %" PRIu64 "%s", a.key_seed,
             a.interactive ? " (any key inserts; q quits; --help lists the keys)" : " (--seed repeats them)");
    status = a.interactive ? run_terminal(&a) : run_transcript(&a);
  } else {
    status = 1;
  }
  tty_restore();
  if (status == 1) fprintf(stderr, "cli-test: %s\n", a.error[0] ? a.error : "failed");
  slate_free(&a.map);
  free(a.keys.items);
  snap_free(&a.snaps[0]);
  snap_free(&a.snaps[1]);
  free(a.line_start);
  free(a.frame.data);
  return status;
}
