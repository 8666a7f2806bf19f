/* Allocation-failure injection, shared by test_hooks.c (maps) and
   test_slotmap_hooks.c (slotmaps). Include it after hooks.h and test.h.

   A suite's workload makes a scripted series of calls and checks each one
   against a model. `inject_each_failure` runs it again and again with the
   counting allocator of hooks.h failing attempt 1, then 2, 3, ... until a
   run makes fewer attempts than the one to fail. Every such run must see
   exactly one SLATE_ERROR_ALLOC, leave the structures as the model says
   (the workload returns 0), and leak nothing. */
#ifndef SLATE_TEST_INJECT_H
#define SLATE_TEST_INJECT_H

#include <stdio.h>
#include <string.h>

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
} injection_s;

enum { INJECT_MAX_OPS = 32 };

/* Totals over the runs of one `inject_each_failure`. */
typedef struct injection_totals_s {
  unsigned long long runs;
  unsigned long long by_op[INJECT_MAX_OPS]; /* runs whose failing call was of each kind */
  unsigned long long n, limit; /* the attempt of the last run, and the cap */
  unsigned long long not_one_alloc_error, mismatched_end, leaks, bad_frees;
  unsigned long long unexplained, swallowed, wrong_rc, changed, unpredicted, bad_copy,
      retry_failed;
} injection_totals_s;

/* Fails allocation attempt n of `workload(run)` for n = 1, 2, ... up to
   `limit`, reading each run's report from `*report`; names the kinds of
   failing calls from `op_names` (`op_count` of them). */
static void inject_each_failure(unsigned (*workload)(void* run), void* run,
                                const injection_s* report, const char* const* op_names,
                                int op_count, unsigned long long limit,
                                injection_totals_s* t) {
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
  for (int k = 0; k < op_count && k < INJECT_MAX_OPS; k++)
    if (t->by_op[k]) fprintf(stderr, "%s %llu  ", op_names[k], t->by_op[k]);
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
     every failing call had its full snapshot taken) */
  CHECK_EQ_U64(t->unpredicted, 0);
}

#endif
