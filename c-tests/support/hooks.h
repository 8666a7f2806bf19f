/* A counting allocator behind the SLATE_MALLOC/SLATE_CALLOC/SLATE_FREE
   hooks, for the suites that test allocation: it counts attempts, blocks and
   bytes, catches frees of unknown blocks or through the wrong allocator
   (each block carries a header naming its owner), and fails the attempt
   numbered `fail_at` on purpose. `hk` serves the hooks; `hk2` is a second
   allocator for slate_use_allocator. Include it before the include of
   slate.h that carries SLATE_IMPLEMENTATION: it defines the SLATE_* macros. */
#ifndef SLATE_TEST_HOOKS_H
#define SLATE_TEST_HOOKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

void* hk_malloc(size_t size);
void* hk_calloc(size_t count, size_t size);
void hk_free(void* pointer);

#define SLATE_MALLOC(size) hk_malloc(size)
#define SLATE_CALLOC(count, size) hk_calloc((count), (size))
#define SLATE_FREE(pointer) hk_free(pointer)

typedef struct hook_state_s {
  unsigned long long attempts;    /* malloc + calloc calls */
  unsigned long long mallocs;     /* malloc calls */
  unsigned long long callocs;     /* calloc calls */
  unsigned long long allocations; /* successful */
  unsigned long long frees;       /* blocks returned */
  unsigned long long failures;    /* NULLs handed out on purpose */
  unsigned long long fail_at;     /* 0: never; else the attempt that fails */
  unsigned long long live_bytes;  /* bytes handed out and not yet returned */
  unsigned long long total_bytes; /* bytes handed out, ever */
  unsigned long long bad_frees;   /* unknown block, double free, wrong allocator */
} hook_state_s;

static hook_state_s hk;  /* the SLATE_* hooks */
static hook_state_s hk2; /* a second allocator, for slate_use_allocator */

#define HOOK_MAGIC 0x51a7e0a110c8ed01ull
#define HOOK_DEAD 0xdeadbeefdeadbeefull
typedef struct hook_header_s {
  uint64_t magic;
  uint64_t size;
  uint64_t owner;
  uint64_t pad; /* 32 bytes keep malloc's 16-byte alignment */
} hook_header_s;

static void* counted_alloc(hook_state_s* s, size_t count, size_t size, int zero) {
  s->attempts++;
  if (zero)
    s->callocs++;
  else
    s->mallocs++;
  if (s->fail_at != 0 && s->attempts == s->fail_at) {
    s->failures++;
    return NULL;
  }
  if (size != 0 && count > (SIZE_MAX - sizeof(hook_header_s)) / size) return NULL;
  size_t n = count * size;
  hook_header_s* h =
      (hook_header_s*)(zero ? calloc(1, n + sizeof(hook_header_s)) : malloc(n + sizeof(hook_header_s)));
  if (h == NULL) return NULL;
  h->magic = HOOK_MAGIC;
  h->size = n;
  h->owner = (uint64_t)(uintptr_t)s;
  h->pad = 0;
  s->allocations++;
  s->live_bytes += n;
  s->total_bytes += n;
  return h + 1;
}

static void counted_free(hook_state_s* s, void* pointer) {
  if (pointer == NULL) return;
  hook_header_s* h = (hook_header_s*)pointer - 1;
  if (h->magic != HOOK_MAGIC) {
    s->bad_frees++; /* not ours, or freed twice: leak it rather than crash */
    return;
  }
  hook_state_s* owner = (hook_state_s*)(uintptr_t)h->owner;
  if (owner != s) s->bad_frees++;
  owner->frees++;
  owner->live_bytes -= h->size;
  h->magic = HOOK_DEAD;
  free(h);
}

void* hk_malloc(size_t size) { return counted_alloc(&hk, 1, size, 0); }
void* hk_calloc(size_t count, size_t size) { return counted_alloc(&hk, count, size, 1); }
void hk_free(void* pointer) { counted_free(&hk, pointer); }
void* hk2_malloc(size_t size);
void* hk2_calloc(size_t count, size_t size);
void hk2_free(void* pointer);
void* hk2_malloc(size_t size) { return counted_alloc(&hk2, 1, size, 0); }
void* hk2_calloc(size_t count, size_t size) { return counted_alloc(&hk2, count, size, 1); }
void hk2_free(void* pointer) { counted_free(&hk2, pointer); }

/* The same counting allocator as a structure's own (slate_set_allocator,
   slotmap_set_allocator: SPEC 3b), counting into `hk`, with the checks the
   contract makes: every call gets the context given (the address of
   `hk_own_context`), no size is 0, and every release comes with the size
   its block was allocated with. `hk_own_bad` counts what broke them. It
   never calls calloc: a run through it that counts callocs did not use it. */
static int hk_own_context;
static unsigned long long hk_own_bad;

static inline void* hk_own_allocate(void* context, size_t size) {
  if (context != (void*)&hk_own_context || size == 0) hk_own_bad++;
  return counted_alloc(&hk, 1, size, 0);
}

static inline void hk_own_release(void* context, void* pointer, size_t size) {
  if (context != (void*)&hk_own_context || pointer == NULL) {
    hk_own_bad++;
    return;
  }
  const hook_header_s* h = (const hook_header_s*)pointer - 1;
  if (h->magic == HOOK_MAGIC && h->size != size) hk_own_bad++;
  counted_free(&hk, pointer);
}

static void hooks_reset(hook_state_s* s) {
  /* live_bytes and the balance carry over: only the per-run counters reset */
  s->attempts = 0;
  s->mallocs = 0;
  s->callocs = 0;
  s->failures = 0;
  s->fail_at = 0;
}

#endif
