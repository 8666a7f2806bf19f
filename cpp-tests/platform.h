/*
 * platform.h -- what the C++ suites (test_cpp.cpp, test_hpp.cpp) may use on
 * the target they are built for. Include it after slate.h / slate.hpp.
 *
 *   TEST_HAVE_EXCEPTIONS  1 when try/catch/throw are available. test_hpp.cpp
 *                         takes slate.hpp's mode (SLATE_HPP_EXCEPTIONS);
 *                         test_cpp.cpp, which includes only slate.h, takes the
 *                         compiler's (__cpp_exceptions). 0 with
 *                         -fno-exceptions, as on WASI.
 *   TEST_HAVE_THREADS     1 when std::thread / std::async can start a thread.
 *                         0 on Emscripten (built without pthreads) and WASI,
 *                         1 elsewhere.
 *
 * Both can be forced with -DTEST_HAVE_EXCEPTIONS=0 / -DTEST_HAVE_THREADS=0
 * (or =1). With both at 1, the native build, the suites run everything.
 * With one at 0 the parts that need it are not compiled: a part that is
 * only about exceptions or threads is replaced by a TEST_SKIPPED note on
 * stderr; where slate.hpp has a try_ twin of a throwing call, the suite
 * checks the twin instead.
 */
#ifndef SLATE_TEST_PLATFORM_H
#define SLATE_TEST_PLATFORM_H

#include <stdio.h>

#ifndef TEST_HAVE_EXCEPTIONS
#if defined(SLATE_HPP_EXCEPTIONS)
#define TEST_HAVE_EXCEPTIONS SLATE_HPP_EXCEPTIONS
#elif defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define TEST_HAVE_EXCEPTIONS 1
#else
#define TEST_HAVE_EXCEPTIONS 0
#endif
#endif

/* A test that expects a throw cannot run against a slate.hpp that aborts. */
#if TEST_HAVE_EXCEPTIONS && defined(SLATE_HPP_EXCEPTIONS) && !SLATE_HPP_EXCEPTIONS
#error "TEST_HAVE_EXCEPTIONS=1 needs slate.hpp built with exceptions (SLATE_HPP_EXCEPTIONS=1)"
#endif

#ifndef TEST_HAVE_THREADS
#if defined(__EMSCRIPTEN__) || defined(__wasi__)
#define TEST_HAVE_THREADS 0
#else
#define TEST_HAVE_THREADS 1
#endif
#endif

/* Notes, like TEST_SECTION (stderr: stdout carries only the summary), that
   a part of a suite was not built for this target:
   "-- <what>: skipped (<why>)". */
#define TEST_SKIPPED(what, why) (fprintf(stderr, "-- %s: skipped (%s)\n", (what), (why)), (void)0)
#define TEST_NO_THREADS "no threads on this target"
#define TEST_NO_EXCEPTIONS "built without exceptions"

#endif /* SLATE_TEST_PLATFORM_H */
