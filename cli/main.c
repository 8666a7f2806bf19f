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
 *
 * The program is the units of cli/ (cli.h says which does what); this one
 * reads the options and runs the transcript or the terminal view.
 */
#include "cli.h"

#include <errno.h>
#include <unistd.h>

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
