/* Allocation-failure injection, shared by test_hooks.c (maps) and
   test_slotmap_hooks.c (slotmaps). Include it after hooks.h and test.h.

   A suite's workload makes a scripted series of calls, each through
   `inject_call`, and checks the structures against a model. The baseline
   (`inject_baseline`) runs it once with nothing failing; then
   `inject_each_failure` runs it again and again with the counting allocator
   of hooks.h failing attempt 1, then 2, 3, ... until a run makes fewer
   attempts than the one to fail. Every such run must see exactly one
   SLATE_ERROR_ALLOC, from the call that met the failure, which changed
   nothing and succeeds when made again; leave the structures as the model
   says (the workload returns 0); and leak nothing. */
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
  unsigned messages;       /* messages printed about this run */
} injection_s;

/* One call of a workload, as the driver sees it: a suite's record of the
   call holds this as its first member, and the suite's functions below
   read the rest (which structure, which key) from there. */
typedef struct inject_call_s {
  int kind;               /* the kind of call: an index into the suite's op_names */
  unsigned number;        /* its place in the workload (1, 2, ...), for messages */
  unsigned long long arg; /* its argument, for messages */
  int expected;           /* its result when no allocation fails */
} inject_call_s;

/* What the driver needs from a suite to make and check its calls. */
typedef struct inject_suite_s {
  const char* const* op_names; /* the kinds of call, by name */
  const char* structure;       /* what the calls work on ("map"), for messages */
  int clone_op;                /* the kind of call that initializes a copy */
  /* Before the call: takes the picture of the structure that a failure
     must leave unchanged; returns 0 where it took none (the suite did not
     expect the call to fail). */
  int (*before)(inject_call_s* call);
  /* Makes the call: once, and again after a failure. */
  int (*make)(inject_call_s* call);
  /* After SLATE_ERROR_ALLOC: in how many ways the structure is not as the
     picture (if `pictured`) and the model say (0: unchanged). */
  unsigned (*changes)(inject_call_s* call, int pictured);
  /* After a clone failed: whether the copy is an empty structure; frees
     the copy (twice). */
  int (*empty_copy)(inject_call_s* call);
} inject_suite_s;

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

static void inject_note(injection_s* inj, const inject_suite_s* suite, const inject_call_s* call,
                        const char* what, const char* structure, int rc) {
  if (inj->messages++ < 6)
    fprintf(stderr, "   fail_at=%llu op #%u %s(%llu): %s%s (rc %d)\n", hk.fail_at, call->number,
            suite->op_names[call->kind], call->arg, what, structure, rc);
}

/* Makes one call of a workload and records in `inj` how it went against
   the promise of every failing call: the call that meets an allocation
   failure returns SLATE_ERROR_ALLOC (and no call returns it otherwise),
   changes nothing (a failed clone leaves an empty copy), and succeeds when
   made again. Returns the call's result (the retry's, after a failure). */
static int inject_call(const inject_suite_s* suite, injection_s* inj, inject_call_s* call) {
  int pictured = suite->before(call);
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
    unsigned changes = suite->changes(call, pictured);
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
  return rc;
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

/* For suites that record each call's allocation attempts in the baseline
   (`base_allocs[index]`): whether the attempt set to fail falls inside the
   call about to be made, the `index`th of the workload, so the call is
   expected to fail and its structure's full picture is worth taking. */
static inline int inject_predicted(int baseline, unsigned index, const unsigned* base_allocs,
                            unsigned max_ops) {
  return !baseline && index < max_ops && hk.fail_at != 0 && hk.failures == 0 &&
         hk.fail_at > hk.attempts && hk.fail_at <= hk.attempts + base_allocs[index];
}

/* The whole injection of such a suite: the baseline (with `*baseline` 1
   while it runs, so the suite records each call's attempts), then one
   failure run for each of its allocations, checked by check_injection.
   `zeroed` says whether some allocations ask for zeroed memory (calloc):
   never through a structure's own allocator, and through the hooks only
   where the structure needs it. Returns the baseline's allocation
   attempts; `t` holds the totals for the suite's own checks. */
static inline unsigned long long inject_recorded(unsigned (*workload)(void* run), void* run,
                                          const injection_s* report, const char* const* op_names,
                                          int op_count, int zeroed, int* baseline,
                                          injection_totals_s* t) {
  *baseline = 1;
  unsigned long long total = inject_baseline(workload, run, report);
  *baseline = 0;
  CHECK(total > 20);
  if (zeroed)
    CHECK(hk.callocs > 0);
  else
    CHECK_EQ_U64(hk.callocs, 0);
  fprintf(stderr, "   baseline: %llu allocations\n", total);
  inject_each_failure(workload, run, report, op_names, op_count, total * 2 + 100, t);
  check_injection(t);
  CHECK_EQ_U64(t->runs, total);
  return total;
}

#endif
