/* cli-test is one program of the units in cli/ (the Makefile's bin/cli-test
 * builds them all); this header is what they share: the constants, the
 * keys, the types of the input, the snapshots and the application, and
 * each unit's functions. Every unit includes it first: it sets the
 * feature-test macros. */
#ifndef SLATE_CLI_H
#define SLATE_CLI_H

#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* TIOCGWINSZ */

#include "slate.h"
#include "slate-introspect.h" /* the tables as they are: slate_table_info, _ctrls */

#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Where the keys come from: a terminal, or a pipe. */
typedef struct {
  bool interactive; /* a terminal: Esc waits ESC_WAIT_MS for a sequence */
  bool eof;
  unsigned char buf[256];
  size_t pos, len;
} input_s;

/* A growable string. An allocation failure sticks in `failed`. */
typedef struct {
  char *data;
  size_t len, cap;
  bool failed;
} text_s;

/* The keys we inserted and have not deleted, to pick deletions from and
 * to verify. */
typedef struct {
  uint64_t *items;
  size_t len, cap;
} keys_s;

/* One table of a snapshot. */
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

/* Every counter and control word of the map at one moment, and what the
 * checks found. */
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

/* The control byte of a slot in its group's word. */
static inline uint8_t ctrl_byte(uint64_t word, unsigned slot) { return (uint8_t)(word >> (8 * slot)); }

/* A slot: its table, its group in the table, its place in the group. */
typedef struct {
  uint32_t table, group, slot;
} where_s;

typedef enum { FOUND, ABSENT, MISMATCH, WALK_FAILED } locate_e;

typedef enum { LAST_NONE, LAST_INSERTED, LAST_DELETED } last_e;

/* The application: its options, the map, what the CLI knows of it, and the
 * view. */
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

/* terminal.c: raw mode and the alternate screen, restored on every way
 * out; the window's size; whole frames written past the signals. */
extern volatile sig_atomic_t g_winch;  /* the window was resized */
extern volatile sig_atomic_t g_redraw; /* resumed after Ctrl-Z */
void tty_restore(void);
bool tty_setup(void);
void tty_size(unsigned *rows, unsigned *cols);
bool write_frame(const char *s, size_t n);

/* input.c: keys from bytes and escape sequences, and their names. */
bool input_pending(input_s *in);
int read_key(input_s *in);
void key_name(int key, char *out, size_t cap);

/* tools.c: text, random keys and values, the list of keys, result names. */
void text_add(text_s *t, const char *s, size_t n);
void text_str(text_s *t, const char *s);
void text_char(text_s *t, char c);
PRINTF_LIKE(3, 4) void append(char *buf, size_t cap, const char *fmt, ...);
uint64_t splitmix64(uint64_t *state);
void *value_for(uint64_t key);
uint64_t random_seed(void);
bool keys_reserve(keys_s *k, size_t extra);
const char *error_name(int rc);

/* check.c: snapshots of the map, the CLI's own invariant check of them,
 * and a key's slot through the documented iteration order. */
void snap_free(snap_s *s);
bool snap_take(snap_s *s, const slate_s *map, const snap_s *prev, bool reuse, char *err,
               size_t errcap);
void check_snapshot(snap_s *s, const slate_s *map);
locate_e locate(const slate_s *map, const snap_s *s, uint64_t key, where_s *at);

/* app.c: what each key does to the map and the view. */
bool take_snapshot(app_s *a, bool reuse);
uint32_t focus_table(app_s *a);
bool apply_key(app_s *a, int key, bool *quit);

/* render.c: the frame, as a transcript or on the terminal. */
void scroll(app_s *a, int key);
bool draw(app_s *a);

#endif
