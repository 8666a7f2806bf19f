/* Whether a call prints to stderr: capture_stderr() sends stderr to a
 * temporary file until release_stderr(), which returns the bytes written
 * meanwhile. Where the host has no POSIX file descriptors (WASI,
 * Emscripten, Windows) nothing is captured and release_stderr() returns -1:
 * not checked. Include after test.h. */
#ifndef SLATE_TEST_QUIET_H
#define SLATE_TEST_QUIET_H

#include <stdio.h>

#if defined(__unix__) && !defined(__wasi__) && !defined(__EMSCRIPTEN__)
#include <unistd.h>

/* POSIX's, which strict C11 (-std=c11) leaves undeclared (C++ compilers
 * declare it). */
#ifndef __cplusplus
extern int fileno(FILE* stream);
#endif

typedef struct capture_s {
  FILE* file;
  int saved;
} capture_s;

static void capture_stderr(capture_s* c) {
  fflush(stderr);
  c->file = tmpfile();
  c->saved = c->file ? dup(2) : -1;
  if (c->saved >= 0) dup2(fileno(c->file), 2);
}

static long release_stderr(capture_s* c) {
  long n = -1;
  fflush(stderr);
  if (c->saved >= 0) {
    dup2(c->saved, 2);
    close(c->saved);
    if (fseek(c->file, 0, SEEK_END) == 0) n = ftell(c->file);
  }
  if (c->file) fclose(c->file);
  return n;
}
#else
typedef struct capture_s {
  int unused;
} capture_s;
static void capture_stderr(capture_s* c) { c->unused = 0; }
static long release_stderr(capture_s* c) {
  (void)c;
  return -1;
}
#endif

/* Passes when nothing was written, or when the host cannot tell. */
#define CHECK_NOTHING_PRINTED(bytes) CHECK((bytes) <= 0)

#endif
