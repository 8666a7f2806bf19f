/* cli-test: input -- bytes from the terminal or a pipe, the escape
 * sequences of the keys the view scrolls with, and the keys' names. */
#include "cli.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Input: bytes, and the few escape sequences the view scrolls with         */
/* ------------------------------------------------------------------------ */

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
bool input_pending(input_s *in) {
  if (in->pos < in->len) return true;
  struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
  return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

/* One key: a byte, or KEY_UP... for the escape sequences of arrows, PgUp,
 * PgDn, Home and End (CSI and SS3 forms). A lone Esc is 0x1b. */
int read_key(input_s *in) {
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

void key_name(int key, char *out, size_t cap) {
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
