/* The driver of the hooks suites (map/hooks.c, slotmap/hooks.c,
   sparse/hooks.c): allocation-failure injection, and the suite's main.
   Include it after hooks.h, slate.h and test.h.

   A suite's workload makes a scripted series of calls, each through
   `inject_call`, and checks the structures against a model. The baseline
   (`inject_baseline`) runs it once with nothing failing; then
   `inject_each_failure` runs it again and again with the counting allocator
   of hooks.h failing attempt 1, then 2, 3, ... until a run makes fewer
   attempts than the one to fail. Every such run must see exactly one
   SLATE_ERROR_ALLOC, from the call that met the failure, which changed
   nothing and succeeds when made again; leave the structures as the model
   says (the workload returns 0); and leak nothing. The whole injection
   runs twice (`hooks_main`): with the structures allocating through the
   SLATE_* hooks, and through their own allocator (`inject_own`). */
#ifndef SLATE_TEST_INJECT_H
#define SLATE_TEST_INJECT_H

#include <stdio.h>
#include <string.h>

#include "rows3.h"

/* What a workload reports about the failures it met; each suite's run
   record holds one, reset by the workload at its start. */
typedef struct injection_s {
  unsigned alloc_errors;   /* calls that returned SLATE_ERROR_ALLOC */
  unsigned unexplained;    /* ... without an injected failure */
  unsigned swallowed;      /* injected failures that did not surface */
  unsigned wrong_rc;       /* unexpected return codes (after any retry) */
  unsigned changed;        /* failed calls that changed the structure */
  unsigned unpredicted;    /* failures in a call the baseline said allocates nothing */
  unsigned bad_clone_copy; /* failed clones whose copy was not left empty */
  unsigned retry_failed;   /* the call did not succeed on the retry */
  int failed_op;           /* kind of the call that failed, -1 none */
  unsigned messages;       /* messages printed about this run */
} injection_s;

/* One call of a workload, as the driver sees it: a suite's record of the
   call holds this as its first member, and the suite's functions below
   read the rest (which structure, which key) from there. */
typedef struct inject_call_s {
  int kind;               /* the kind of call: an index into the suite's op_names */
  unsigned index;         /* its place in the workload (0, 1, ...) */
  unsigned long long arg; /* its argument, for messages */
  int expected;           /* its result when no allocation fails */
} inject_call_s;

/* What the driver needs from a suite to make and check its calls. */
typedef struct inject_suite_s {
  const char* const* op_names; /* the kinds of call, by name */
  int op_count;
  const char* structure;       /* what the calls work on ("map"), for messages */
  int clone_op;                /* the kind of call that initializes a copy */
  /* 1: the picture of the structure a failure must leave unchanged is
     taken before every call; 0: only before the call the baseline
     predicts to fail (inject_recorded). */
  int every_call;
  /* Takes the picture of the structure the call must leave unchanged (the
     source, for a clone) into `picture`, one of the two below. */
  void (*picture)(const inject_call_s* call, void* picture);
  int (*same_picture)(const void* before, const void* after);
  void *before, *after;
  /* Makes the call: once, and again after a failure. */
  int (*make)(inject_call_s* call);
  /* After SLATE_ERROR_ALLOC: in how many ways the structure is not as the
     model says (0: as it says). */
  unsigned (*changes)(inject_call_s* call);
  /* After a clone failed: whether the copy is an empty structure; frees
     the copy (twice). */
  int (*empty_copy)(inject_call_s* call);
  /* The kinds of call some failure run's failing call must be of, and
     those none may be of (they allocate nothing); each list ends at -1. */
  const int* must_fail;
  const int* never_fail;
} inject_suite_s;

enum { INJECT_MAX_OPS = 32, INJECT_MAX_CALLS = 20000 };

/* The allocator a workload gives its structures: NULL keeps the SLATE_*
   hooks; else the hooks' counting allocator as each one's own (hooks.h). */
static const slate_allocator_s* inject_own;

/* While inject_recorded's baseline runs: the allocation attempts of each
   call, by its place in the workload, and how many calls there were. */
static int inject_recording_;
static unsigned inject_base_allocs_[INJECT_MAX_CALLS];
static unsigned inject_calls_;

/* Totals over the runs of one `inject_each_failure`. */
typedef struct injection_totals_s {
  unsigned long long runs;
  unsigned long long by_op[INJECT_MAX_OPS]; /* runs whose failing call was of each kind */
  unsigned long long n, limit; /* the attempt of the last run, and the cap */
  unsigned long long not_one_alloc_error, mismatched_end, leaks, bad_frees;
  unsigned long long unexplained, swallowed, wrong_rc, changed, unpredicted, bad_copy,
      retry_failed;
} injection_totals_s;

static void inject_note(injection_s* inj, const inject_suite_s* suite, const inject_call_s* call,
                        const char* what, const char* structure, int rc) {
  if (inj->messages++ < 6)
    fprintf(stderr, "   fail_at=%llu op #%u %s(%llu): %s%s (rc %d)\n", hk.fail_at, call->index + 1,
            suite->op_names[call->kind], call->arg, what, structure, rc);
}

/* Whether the attempt set to fail falls inside the call about to be made,
   by the attempts each call made in the baseline: the call is expected to
   fail, and its structure's full picture is worth taking. */
static inline int inject_predicted(unsigned index) {
  return !inject_recording_ && index < INJECT_MAX_CALLS && hk.fail_at != 0 && hk.failures == 0 &&
         hk.fail_at > hk.attempts && hk.fail_at <= hk.attempts + inject_base_allocs_[index];
}

/* Makes one call of a workload and records in `inj` how it went against
   the promise of every failing call: the call that meets an allocation
   failure returns SLATE_ERROR_ALLOC (and no call returns it otherwise),
   changes nothing (a failed clone leaves an empty copy), and succeeds when
   made again. Returns the call's result (the retry's, after a failure). */
static int inject_call(const inject_suite_s* suite, injection_s* inj, inject_call_s* call) {
  unsigned long long attempts = hk.attempts;
  int pictured = suite->every_call || inject_predicted(call->index);
  if (pictured) suite->picture(call, suite->before);
  unsigned long long failures = hk.failures;
  int rc = suite->make(call);
  if (rc == SLATE_ERROR_ALLOC) {
    inj->alloc_errors++;
    inj->failed_op = call->kind;
    if (hk.failures == failures) {
      inj->unexplained++;
      inject_note(inj, suite, call, "SLATE_ERROR_ALLOC without an allocation failure", "", rc);
    }
    if (!pictured) {
      inj->unpredicted++;
      inject_note(inj, suite, call, "a call failed that allocated nothing in the baseline", "", rc);
    }
    /* nothing changed */
    unsigned changes = suite->changes(call);
    if (pictured) {
      suite->picture(call, suite->after);
      changes += !suite->same_picture(suite->before, suite->after);
    }
    if (changes != 0) {
      inj->changed++;
      inject_note(inj, suite, call, "the failed call changed the ", suite->structure, (int)changes);
    }
    if (call->kind == suite->clone_op && !suite->empty_copy(call)) {
      inj->bad_clone_copy++;
      inject_note(inj, suite, call, "the copy of a failed clone is not an empty ", suite->structure, 0);
    }
    /* later calls succeed: the same call again */
    rc = suite->make(call);
    if (rc != call->expected) {
      inj->retry_failed++;
      inject_note(inj, suite, call, "the retried call failed", "", rc);
    }
  } else if (hk.failures != failures) {
    inj->swallowed++;
    inject_note(inj, suite, call, "an allocation failed but the call did not report SLATE_ERROR_ALLOC",
                "", rc);
  }
  if (rc != call->expected) {
    inj->wrong_rc++;
    inject_note(inj, suite, call, "unexpected return code", "", rc);
  }
  if (inject_recording_ && call->index < INJECT_MAX_CALLS)
    inject_base_allocs_[call->index] = (unsigned)(hk.attempts - attempts);
  if (inject_recording_ && call->index >= inject_calls_) inject_calls_ = call->index + 1;
  return rc;
}

/* Makes the `index`th call of a workload (from 0) through inject_call,
   its header filled in: kind, argument and expected result. */
static int inject_step(const inject_suite_s* suite, injection_s* inj, inject_call_s* call, int kind,
                       unsigned index, unsigned long long arg, int expected) {
  call->kind = kind;
  call->index = index;
  call->arg = arg;
  call->expected = expected;
  return inject_call(suite, inj, call);
}

/* The baseline: `workload(run)` once with no failure injected, which must
   go as the model says, meet no SLATE_ERROR_ALLOC and give back all it
   took. Returns the allocation attempts it made. */
static unsigned long long inject_baseline(unsigned (*workload)(void* run), void* run,
                                          const injection_s* report) {
  unsigned long long allocs0 = hk.allocations, frees0 = hk.frees;
  hooks_reset(&hk);
  CHECK_EQ_U64(workload(run), 0);
  unsigned long long total = hk.attempts;
  CHECK_EQ_INT(report->alloc_errors, 0);
  CHECK_EQ_INT(report->wrong_rc, 0);
  CHECK_EQ_U64(hk.live_bytes, 0);
  CHECK_EQ_U64(hk.allocations - allocs0, hk.frees - frees0);
  return total;
}

/* Fails allocation attempt n of `workload(run)` for n = 1, 2, ... up to
   `limit`, reading each run's report from `*report`; names the kinds of
   failing calls after the suite's. */
static void inject_each_failure(unsigned (*workload)(void* run), void* run,
                                const injection_s* report, const inject_suite_s* suite,
                                unsigned long long limit, injection_totals_s* t) {
  memset(t, 0, sizeof *t);
  t->limit = limit;
  int messages = 0;
  for (t->n = 1; t->n <= limit; t->n++) {
    unsigned long long allocs0 = hk.allocations, frees0 = hk.frees, bad_frees0 = hk.bad_frees;
    hooks_reset(&hk);
    hk.fail_at = t->n;
    unsigned end = workload(run);
    int triggered = hk.failures != 0;
    hk.fail_at = 0;
    if (!triggered) break; /* the workload made fewer than n allocations */
    t->runs++;
    if (report->failed_op >= 0 && report->failed_op < INJECT_MAX_OPS)
      t->by_op[report->failed_op]++;
    int bad_run = 0;
    if (report->alloc_errors != 1) t->not_one_alloc_error++, bad_run = 1;
    if (end != 0) t->mismatched_end++, bad_run = 1;
    if (hk.live_bytes != 0 || hk.allocations - allocs0 != hk.frees - frees0)
      t->leaks++, bad_run = 1;
    if (hk.bad_frees != bad_frees0) t->bad_frees++, bad_run = 1;
    t->unexplained += report->unexplained;
    t->swallowed += report->swallowed;
    t->wrong_rc += report->wrong_rc;
    t->changed += report->changed;
    t->unpredicted += report->unpredicted;
    t->bad_copy += report->bad_clone_copy;
    t->retry_failed += report->retry_failed;
    if (bad_run && messages++ < 6)
      fprintf(stderr,
              "   fail_at=%llu: %u ALLOC errors, %u end mismatches, live bytes %llu, "
              "allocations-frees %lld\n",
              t->n, report->alloc_errors, end, hk.live_bytes,
              (long long)(hk.allocations - allocs0) - (long long)(hk.frees - frees0));
    hk.live_bytes = 0; /* do not let one leak poison the next runs */
  }
  fprintf(stderr, "   %llu failure runs; failing call: ", t->runs);
  for (int k = 0; k < suite->op_count && k < INJECT_MAX_OPS; k++)
    if (t->by_op[k]) fprintf(stderr, "%s %llu  ", suite->op_names[k], t->by_op[k]);
  fprintf(stderr, "\n");
}

/* What every injection must show: it ended before its cap, and no run
   went wrong in any way. */
static void check_injection(const injection_totals_s* t) {
  CHECK(t->n <= t->limit); /* ended with a run that made fewer than n allocations */
  CHECK(t->runs > 0);
  CHECK_EQ_U64(t->not_one_alloc_error, 0);
  CHECK_EQ_U64(t->mismatched_end, 0);
  CHECK_EQ_U64(t->leaks, 0);
  CHECK_EQ_U64(t->bad_frees, 0);
  CHECK_EQ_U64(t->unexplained, 0);
  CHECK_EQ_U64(t->swallowed, 0);
  CHECK_EQ_U64(t->wrong_rc, 0);
  CHECK_EQ_U64(t->changed, 0);
  CHECK_EQ_U64(t->bad_copy, 0);
  CHECK_EQ_U64(t->retry_failed, 0);
  /* (a check of the harness where a suite predicts its allocations:
     every failing call had its full picture taken) */
  CHECK_EQ_U64(t->unpredicted, 0);
}

/* The whole injection of a suite that pictures only the calls predicted
   to fail: the baseline, recording each call's attempts, then one failure
   run for each of its allocations, checked by check_injection. `zeroed`
   says whether some allocations ask for zeroed memory (calloc): never
   through a structure's own allocator, and through the hooks only where
   the structure needs it. Returns the baseline's allocation attempts; `t`
   holds the totals. */
static inline unsigned long long inject_recorded(unsigned (*workload)(void* run), void* run,
                                                 const injection_s* report,
                                                 const inject_suite_s* suite, int zeroed,
                                                 injection_totals_s* t) {
  inject_recording_ = 1;
  inject_calls_ = 0;
  unsigned long long total = inject_baseline(workload, run, report);
  inject_recording_ = 0;
  CHECK(inject_calls_ <= INJECT_MAX_CALLS); /* every call's attempts recorded */
  CHECK(total > 20);
  if (zeroed)
    CHECK(hk.callocs > 0);
  else
    CHECK_EQ_U64(hk.callocs, 0);
  fprintf(stderr, "   baseline: %llu allocations\n", total);
  inject_each_failure(workload, run, report, suite, total * 2 + 100, t);
  check_injection(t);
  CHECK_EQ_U64(t->runs, total);
  return total;
}

/* ------------------------------------------------------------------------ */
/* the rows of a slotmap or a sparse set                                     */
/* ------------------------------------------------------------------------ */

enum { INJECT_MAX_ROWS = 9000 };

/* A full picture of the rows of a structure with the three columns of
   rows3.h (or with none: a membership set): their order, their keys and
   every byte of every column. */
typedef struct rows_picture_s {
  uint32_t length;
  int columns;
  slotmap_key keys[INJECT_MAX_ROWS];
  unsigned char c0[INJECT_MAX_ROWS * 12], c1[INJECT_MAX_ROWS * 8], c2[INJECT_MAX_ROWS];
} rows_picture_s;

/* `column[i]` is column i of the structure (all NULL: no columns), whose
   rows' keys key_at gives. */
static inline void picture_rows(rows_picture_s* p, uint32_t length,
                                slotmap_key (*key_at)(const void* structure, uint32_t row),
                                const void* structure, const void* const column[3]) {
  p->length = length < (uint32_t)INJECT_MAX_ROWS ? length : (uint32_t)INJECT_MAX_ROWS;
  p->columns = column[0] != NULL;
  for (uint32_t r = 0; r < p->length; r++) p->keys[r] = key_at(structure, r);
  if (p->length > 0 && p->columns) {
    memcpy(p->c0, column[0], (size_t)p->length * 12);
    memcpy(p->c1, column[1], (size_t)p->length * 8);
    memcpy(p->c2, column[2], (size_t)p->length);
  }
}

static inline int same_rows(const void* before, const void* after) {
  const rows_picture_s* a = (const rows_picture_s*)before;
  const rows_picture_s* b = (const rows_picture_s*)after;
  if (a->length != b->length || memcmp(a->keys, b->keys, a->length * sizeof a->keys[0]) != 0)
    return 0;
  return !a->columns || (memcmp(a->c0, b->c0, (size_t)a->length * 12) == 0 &&
                         memcmp(a->c1, b->c1, (size_t)a->length * 8) == 0 &&
                         memcmp(a->c2, b->c2, a->length) == 0);
}

/* The walk callback of both that counts the rows, and the sort order of
   both on the records of rows3.h. */
static inline int count_rows_cb(slotmap_key key, void* row, void* data) {
  (void)key;
  (void)row;
  (*(uint64_t*)data)++;
  return 0;
}

static inline int less_rec_a(const void* a, const void* b, void* data) {
  (void)data;
  return ((const rec_s*)a)->a < ((const rec_s*)b)->a;
}

/* ------------------------------------------------------------------------ */
/* the suite                                                                 */
/* ------------------------------------------------------------------------ */

/* A hooks suite: its tests, which hooks_main runs in this order. */
typedef struct hooks_suite_s {
  void (*setup)(void); /* or NULL */
  /* The structures allocate through the hooks; what allocates nothing. */
  void (*hooks_used)(void);
  void (*capacity)(void); /* or NULL */
  /* The failure injection: the baseline and the failure runs of the
     suite's workload, with the structures given `inject_own`; the totals
     in `t`, whose failing calls hooks_main checks by must_fail and
     never_fail. */
  void (*injection)(injection_totals_s* t);
  const inject_suite_s* calls;
  void (*failed_clone)(void);      /* or NULL */
  void (*runtime_allocator)(void); /* or NULL; last: it switches the allocator */
  void (*teardown)(void);          /* or NULL */
} hooks_suite_s;

/* With `own` NULL the structures allocate through the SLATE_* hooks; else
   through it, their own allocator (which a clone inherits), and the
   failure rule holds exactly as with the hooks. */
static void hooks_injection_(const hooks_suite_s* suite, const slate_allocator_s* own) {
  char title[96];
  const inject_suite_s* calls = suite->calls;
  if (own)
    snprintf(title, sizeof title, "allocation failure injection, each %s's own allocator",
             calls->structure);
  else
    snprintf(title, sizeof title, "allocation failure injection, the SLATE_* hooks");
  TEST_SECTION(title);
  inject_own = own;
  hk_own_bad = 0;
  injection_totals_s t;
  suite->injection(&t);
  for (const int* k = calls->must_fail; *k >= 0; k++)
    CHECK_MSG(t.by_op[*k] > 0, calls->op_names[*k]);
  for (const int* k = calls->never_fail; *k >= 0; k++)
    CHECK_MSG(t.by_op[*k] == 0, calls->op_names[*k]);
  CHECK_EQ_U64(hk_own_bad, 0); /* every release with its context and size */
  inject_own = NULL;
}

/* Every block both allocators handed out came back, each to the one it
   came from. */
static inline void check_both_returned(void) {
  CHECK_EQ_U64(hk.live_bytes, 0);
  CHECK_EQ_U64(hk2.live_bytes, 0);
  CHECK_EQ_U64(hk.allocations, hk.frees);
  CHECK_EQ_U64(hk2.allocations, hk2.frees);
  CHECK_EQ_U64(hk.bad_frees, 0);
  CHECK_EQ_U64(hk2.bad_frees, 0);
}

/* The suite's main: its tests in order, the injection twice. */
static int hooks_main(const hooks_suite_s* suite) {
  /* the constructor installed the hooks; nothing was allocated yet */
  CHECK_EQ_U64(hk.live_bytes, 0);
  if (suite->setup) suite->setup();
  suite->hooks_used();
  if (suite->capacity) suite->capacity();
  hooks_injection_(suite, NULL);
  {
    const slate_allocator_s own = {hk_own_allocate, hk_own_release, &hk_own_context};
    hooks_injection_(suite, &own);
  }
  if (suite->failed_clone) suite->failed_clone();
  if (suite->runtime_allocator) suite->runtime_allocator();
  if (suite->teardown) suite->teardown();
  CHECK_EQ_U64(hk.allocations, hk.frees);
  CHECK_EQ_U64(hk.bad_frees, 0);
  return TEST_SUMMARY();
}

#endif
