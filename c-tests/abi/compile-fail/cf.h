/*
 * cf.h -- shared frame of the compile-fail sources (see run.sh).
 *
 * Every source in this directory except control.c declares a key of a type
 * slate-generic.h must reject (`bad`) and one it accepts (`good`), and passes
 * KEY(bad, good) to one of the three macros:
 *
 *   SLATE_CF_OP = 1 -> SLATE_SET, 2 -> SLATE_GET, 3 -> SLATE_DELETE
 *   SLATE_CF_CONTROL defined -> the good key is used: the source must compile
 *   SLATE_CF_CONTROL absent  -> the bad key is used: the source must not
 *
 * So the only difference between a compile that must succeed and one that
 * must fail is the type of the key.
 */
#ifndef SLATE_CF_H
#define SLATE_CF_H

#include "slate-generic.h"

#include <stddef.h>

#ifndef SLATE_CF_OP
#define SLATE_CF_OP 1
#endif

#ifdef SLATE_CF_CONTROL
#define KEY(bad, good) (good)
#else
#define KEY(bad, good) (bad)
#endif

#if SLATE_CF_OP == 1
#define CF_CALL(map, key, out) SLATE_SET((map), key, NULL)
#elif SLATE_CF_OP == 2
#define CF_CALL(map, key, out) SLATE_GET((map), key, (out))
#elif SLATE_CF_OP == 3
#define CF_CALL(map, key, out) SLATE_DELETE((map), key)
#else
#error "SLATE_CF_OP must be 1, 2 or 3"
#endif

/* Uses both variables (so neither is an unused-variable warning under
 * -Werror) and calls the macro with the selected one. */
#define CF_USE(bad, good)                     \
  slate_s cf_map;                             \
  void* cf_value = NULL;                      \
  int cf_result;                              \
  (void)(bad);                                \
  (void)(good);                               \
  (void)cf_value;                             \
  (void)slate(&cf_map);                       \
  cf_result = CF_CALL(&cf_map, KEY(bad, good), &cf_value); \
  slate_free(&cf_map);                        \
  return cf_result == SLATE_ERROR_INVALID

#endif
