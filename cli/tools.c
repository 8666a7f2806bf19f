/* cli-test: small tools -- a growable string, formatted appends, the key
 * generator and the values stored with keys, the list of keys inserted,
 * and the names of slate's results. */
#include "cli.h"

#include <fcntl.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Small tools: text, random keys, the list of keys we inserted             */
/* ------------------------------------------------------------------------ */

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

void text_add(text_s *t, const char *s, size_t n) {
  text_reserve(t, n);
  if (t->failed) return;
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = '\0';
}

void text_str(text_s *t, const char *s) { text_add(t, s, strlen(s)); }

void text_char(text_s *t, char c) { text_add(t, &c, 1); }

/* snprintf into a fixed buffer, appending at its current end. */
PRINTF_LIKE(3, 4)
void append(char *buf, size_t cap, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, cap - used, fmt, ap);
  va_end(ap);
}

/* splitmix64: the key generator, and the function that makes values. */
uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* The value stored with a key: a function of the key, so `v` can check it. */
void *value_for(uint64_t key) {
  uint64_t s = key ^ UINT64_C(0x5EEDC0FFEE);
  return (void *)(uintptr_t)splitmix64(&s);
}

uint64_t random_seed(void) {
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

bool keys_reserve(keys_s *k, size_t extra) {
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

const char *error_name(int rc) {
  switch (rc) {
    case SLATE_OK: return "SLATE_OK";
    case SLATE_ERROR_NOT_FOUND: return "SLATE_ERROR_NOT_FOUND";
    case SLATE_ERROR_INVALID: return "SLATE_ERROR_INVALID";
    case SLATE_ERROR_ALLOC: return "SLATE_ERROR_ALLOC";
    case SLATE_ERROR_FULL: return "SLATE_ERROR_FULL";
    default: return "an unknown result";
  }
}
