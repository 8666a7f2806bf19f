/* cli-test: the terminal -- raw mode and the alternate screen, restored on
 * every way out (exit, fatal signals, Ctrl-Z), the window's size, and
 * frames written whole. */
#include "cli.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* The terminal: raw mode, restored on every way out                        */
/* ------------------------------------------------------------------------ */

static struct termios g_saved_tty; /* the terminal as we found it */
static struct termios g_raw_tty;
static volatile sig_atomic_t g_tty_raw; /* raw mode and the alternate screen are on */
volatile sig_atomic_t g_winch;   /* the window was resized */
volatile sig_atomic_t g_redraw;  /* resumed after Ctrl-Z */

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
void tty_restore(void) {
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
bool tty_setup(void) {
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

void tty_size(unsigned *rows, unsigned *cols) {
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
bool write_frame(const char *s, size_t n) {
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
