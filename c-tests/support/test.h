/*
 * test.h -- a tiny header-only assertion framework for the slate C tests.
 *
 * Each CHECK* macro records one assertion: it counts a pass or a failure and,
 * on failure, prints "file:line: FAILED: expression" (with both values for
 * the comparison forms) to stderr.  Every macro is an expression whose value
 * is 1 when the check passed and 0 when it failed, so a test can stop early:
 *
 *     if (!CHECK_EQ_INT(slate(&map), SLATE_OK)) return;
 *
 * TEST_SUMMARY() prints the line "N passed, M failed" on stdout and evaluates
 * to the process exit status: 0 when nothing failed, 1 otherwise:
 *
 *     int main(void) { ...; return TEST_SUMMARY(); }
 *
 * The header compiles as C11 and as C++ (C++11 or later) with
 * -Wall -Wextra -Werror under gcc and clang.  In a program of one
 * translation unit the counters are static.  A program of several units
 * defines TEST_UNITS before each include of this header, and TEST_MAIN as
 * well in the one unit (its main) that holds the counters: every unit then
 * counts into the same two.
 */
#ifndef SLATE_TEST_H
#define SLATE_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Failure messages beyond this many are counted but not printed. */
#ifndef TEST_MAX_MESSAGES
#define TEST_MAX_MESSAGES 200
#endif

#if !defined(TEST_UNITS)
static unsigned long test_passed_ = 0;
static unsigned long test_failed_ = 0;
#elif defined(TEST_MAIN)
unsigned long test_passed_ = 0;
unsigned long test_failed_ = 0;
#else
extern unsigned long test_passed_;
extern unsigned long test_failed_;
#endif

static inline int test_fail_header_(const char* file, int line) {
  test_failed_++;
  if (test_failed_ > TEST_MAX_MESSAGES) {
    if (test_failed_ == TEST_MAX_MESSAGES + 1) {
      fprintf(stderr, "(further failure messages suppressed)\n");
    }
    return 0;
  }
  fprintf(stderr, "%s:%d: FAILED: ", file, line);
  return 1;
}

static inline int test_check_(int ok, const char* file, int line, const char* expr) {
  if (ok) {
    test_passed_++;
    return 1;
  }
  if (test_fail_header_(file, line)) {
    fprintf(stderr, "%s\n", expr);
  }
  return 0;
}

static inline int test_check_msg_(int ok, const char* file, int line, const char* expr,
                                  const char* message) {
  if (ok) {
    test_passed_++;
    return 1;
  }
  if (test_fail_header_(file, line)) {
    fprintf(stderr, "%s (%s)\n", expr, message ? message : "");
  }
  return 0;
}

static inline int test_eq_int_(long long a, long long b, int want_equal, const char* file, int line,
                               const char* ea, const char* eb) {
  if ((a == b) == (want_equal != 0)) {
    test_passed_++;
    return 1;
  }
  if (test_fail_header_(file, line)) {
    fprintf(stderr, "%s %s %s (%lld vs %lld)\n", ea, want_equal ? "==" : "!=", eb, a, b);
  }
  return 0;
}

static inline int test_eq_u64_(unsigned long long a, unsigned long long b, int want_equal,
                               const char* file, int line, const char* ea, const char* eb) {
  if ((a == b) == (want_equal != 0)) {
    test_passed_++;
    return 1;
  }
  if (test_fail_header_(file, line)) {
    fprintf(stderr, "%s %s %s (%llu [0x%llx] vs %llu [0x%llx])\n", ea, want_equal ? "==" : "!=", eb,
            a, a, b, b);
  }
  return 0;
}

static inline int test_eq_ptr_(const void* a, const void* b, int want_equal, const char* file,
                               int line, const char* ea, const char* eb) {
  if ((a == b) == (want_equal != 0)) {
    test_passed_++;
    return 1;
  }
  if (test_fail_header_(file, line)) {
    fprintf(stderr, "%s %s %s (%p vs %p)\n", ea, want_equal ? "==" : "!=", eb, a, b);
  }
  return 0;
}

static inline int test_eq_str_(const char* a, const char* b, const char* file, int line,
                               const char* ea, const char* eb) {
  int ok = (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
  if (ok) {
    test_passed_++;
    return 1;
  }
  if (test_fail_header_(file, line)) {
    fprintf(stderr, "%s == %s (\"%s\" vs \"%s\")\n", ea, eb, a ? a : "(null)", b ? b : "(null)");
  }
  return 0;
}

static inline int test_eq_mem_(const void* a, const void* b, size_t n, const char* file, int line,
                               const char* ea, const char* eb) {
  int ok = (n == 0) || (a != NULL && b != NULL && memcmp(a, b, n) == 0);
  if (ok) {
    test_passed_++;
    return 1;
  }
  if (test_fail_header_(file, line)) {
    fprintf(stderr, "%s == %s over %lu bytes\n", ea, eb, (unsigned long)n);
  }
  return 0;
}

static inline int test_summary_(void) {
  fflush(stderr);
  printf("%lu passed, %lu failed\n", test_passed_, test_failed_);
  fflush(stdout);
  return test_failed_ > 0 ? 1 : 0;
}

#define CHECK(cond) test_check_(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_MSG(cond, message) test_check_msg_(!!(cond), __FILE__, __LINE__, #cond, (message))
#define CHECK_EQ_INT(a, b) \
  test_eq_int_((long long)(a), (long long)(b), 1, __FILE__, __LINE__, #a, #b)
#define CHECK_NE_INT(a, b) \
  test_eq_int_((long long)(a), (long long)(b), 0, __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_U64(a, b) \
  test_eq_u64_((unsigned long long)(a), (unsigned long long)(b), 1, __FILE__, __LINE__, #a, #b)
#define CHECK_NE_U64(a, b) \
  test_eq_u64_((unsigned long long)(a), (unsigned long long)(b), 0, __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_PTR(a, b) \
  test_eq_ptr_((const void*)(a), (const void*)(b), 1, __FILE__, __LINE__, #a, #b)
#define CHECK_NE_PTR(a, b) \
  test_eq_ptr_((const void*)(a), (const void*)(b), 0, __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_STR(a, b) test_eq_str_((a), (b), __FILE__, __LINE__, #a, #b)
#define CHECK_EQ_MEM(a, b, n) test_eq_mem_((a), (b), (size_t)(n), __FILE__, __LINE__, #a, #b)

/* Prints a section name (to stderr, so stdout carries only the summary). */
#define TEST_SECTION(name) (fprintf(stderr, "-- %s\n", (name)), (void)0)

/* The summary line; evaluates to the exit status (0 all passed, 1 otherwise). */
#define TEST_SUMMARY() test_summary_()

/* Number of failed assertions so far (for tests that stop after a failure). */
#define TEST_FAILED_COUNT() (test_failed_)

#endif /* SLATE_TEST_H */
