/* What the snapshot suites share (map/snapshot.c, slotmap/snapshot.c): a
 * `write` callback that keeps the bytes of a save
 * and, where the host has POSIX file descriptors, also hands every piece to
 * the kernel with write(2) on /dev/null. Memcheck checks every byte a
 * system call is given, so under Valgrind a save that wrote one
 * uninitialized byte (padding, spare capacity, a stale stage) is an error
 * of the run. Elsewhere (Windows, WASI, Emscripten) the bytes are only
 * kept. And a search for a byte run in saved bytes, the canary pattern
 * searched for, and a counting allocator. Include after slate.h and test.h. */
#ifndef SLATE_TEST_SINK_H
#define SLATE_TEST_SINK_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) && !defined(__wasi__) && !defined(__EMSCRIPTEN__)
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#define SINK_KERNEL 1
#else
#define SINK_KERNEL 0
#endif

/* The bytes of one save, and how it went. */
typedef struct sink_s {
  unsigned char* bytes; /* malloc'd; NULL until the first piece */
  size_t length, capacity;
  unsigned long calls; /* calls of sink_write */
  unsigned long empty; /* ... of them with length 0 (never, SPEC 6c) */
  int fd;              /* /dev/null, or -1 */
  int failed;          /* a piece the kernel or malloc did not take */
} sink_s;

/* An empty sink; `kernel` 1: every piece goes to write(2) as well. */
static inline void sink_open(sink_s* s, int kernel) {
  memset(s, 0, sizeof *s);
  s->fd = -1;
#if SINK_KERNEL
  if (kernel) s->fd = open("/dev/null", O_WRONLY);
#else
  (void)kernel;
#endif
}

/* Empties the sink for another save (the kernel's end stays open). */
static inline void sink_reset(sink_s* s) {
  s->length = 0;
  s->calls = 0;
  s->empty = 0;
  s->failed = 0;
}

static inline void sink_close(sink_s* s) {
#if SINK_KERNEL
  if (s->fd >= 0) close(s->fd);
#endif
  free(s->bytes);
  memset(s, 0, sizeof *s);
  s->fd = -1;
}

/* A slate_write_f whose context is a sink_s. */
static inline int sink_write(void* context, const void* bytes, size_t length) {
  sink_s* s = (sink_s*)context;
  s->calls++;
  if (length == 0) s->empty++;
#if SINK_KERNEL
  if (s->fd >= 0) {
    const unsigned char* p = (const unsigned char*)bytes;
    size_t left = length;
    while (left > 0) {
      ssize_t n = write(s->fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        s->failed = 1;
        break;
      }
      p += n;
      left -= (size_t)n;
    }
  }
#endif
  if (s->length + length > s->capacity) {
    size_t want = s->capacity ? s->capacity : 4096;
    while (want < s->length + length) want *= 2;
    unsigned char* grown = (unsigned char*)realloc(s->bytes, want);
    if (grown == NULL) {
      s->failed = 1;
      return SLATE_ERROR_ALLOC;
    }
    s->bytes = grown;
    s->capacity = want;
  }
  if (length > 0) memcpy(s->bytes + s->length, bytes, length);
  s->length += length;
  return 0;
}

/* Whether the `m` bytes of `needle` occur anywhere in the `n` bytes at
   `hay`. */
static inline int has_run(const void* hay, size_t n, const void* needle, size_t m) {
  const unsigned char* h = (const unsigned char*)hay;
  const unsigned char* x = (const unsigned char*)needle;
  if (m == 0) return 1;
  if (n < m || h == NULL) return 0;
  for (size_t i = 0; i + m <= n; i++)
    if (h[i] == x[0] && memcmp(h + i, x, m) == 0) return 1;
  return 0;
}

/* The canary: 16 bytes no snapshot holds by chance (a fixed splitmix64
   draw, no zero byte), searched for in saves of structures that held it
   only in keys, values and rows since deleted or erased. */
enum { CANARY = 16 };
static const unsigned char canary_[CANARY] = {0xC3, 0x5A, 0x9E, 0x71, 0x2B, 0xF4, 0x88, 0x1D,
                                              0x6E, 0xA7, 0x3C, 0xD9, 0x15, 0x82, 0xEB, 0x47};

/* Fills `n` bytes with the canary, repeated (a row of canaries has one
   at every offset's 16 bytes from its start). */
static inline void fill_canary(void* out, size_t n) {
  unsigned char* p = (unsigned char*)out;
  for (size_t i = 0; i < n; i++) p[i] = canary_[i % CANARY];
}

/* Whether any 16 bytes of the saved image are the canary. */
static inline int holds_canary(const void* bytes, size_t n) {
  return has_run(bytes, n, canary_, CANARY);
}

/* A structure's own allocator (slate_set_allocator and its slotmap and
   set forms) that counts blocks and bytes out. Its context is the
   counter_s. */
typedef struct counter_s {
  unsigned long long allocations, releases, live;
  unsigned long long bad; /* a release of another size than allocated, or of NULL */
} counter_s;

static inline void* counter_allocate(void* context, size_t size) {
  counter_s* c = (counter_s*)context;
  size_t* block = (size_t*)malloc(size + 16);
  if (block == NULL) return NULL;
  block[0] = size;
  c->allocations++;
  c->live += size;
  return (unsigned char*)block + 16;
}

static inline void counter_release(void* context, void* pointer, size_t size) {
  counter_s* c = (counter_s*)context;
  if (pointer == NULL) {
    c->bad++;
    return;
  }
  size_t* block = (size_t*)(void*)((unsigned char*)pointer - 16);
  if (block[0] != size) c->bad++;
  c->releases++;
  c->live -= block[0];
  free(block);
}

/* The slate_allocator_s of a counter. */
static inline slate_allocator_s counter_allocator(counter_s* c) {
  slate_allocator_s a;
  a.allocate = counter_allocate;
  a.release = counter_release;
  a.context = c;
  return a;
}

#endif
