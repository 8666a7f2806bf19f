/* cli-test: rendering -- the header, the tables' control words as a grid,
 * wrapping and scrolling, drawn as a transcript or on the terminal. */
#include "cli.h"

#include <errno.h>

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
void scroll(app_s *a, int key) {
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

bool draw(app_s *a) {
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
