/* Helpers the map suites share: a map's info, and the invariant checker as
   an assertion. Include after slate.h and test.h (inline: a unit of a
   suite of several need not use both). */
#ifndef SLATE_TEST_SUPPORT_H
#define SLATE_TEST_SUPPORT_H

#include <stdio.h>
#include <string.h>

/* slate_info as a value; the struct is pre-filled with garbage so a field
   the library forgets to write shows up. */
static inline slate_info_s info_of(const slate_s* m) {
  slate_info_s in;
  memset(&in, 0xA5, sizeof in);
  CHECK_EQ_INT(slate_info(m, &in), SLATE_OK);
  return in;
}

/* Runs slate_check, printing its reason when an invariant is broken. */
static inline int run_check(const slate_s* m) {
  char message[512];
  message[0] = '\0';
  int rc = slate_check(m, message, (uint32_t)sizeof message);
  if (rc != SLATE_OK) fprintf(stderr, "slate_check: %d: %s\n", rc, message);
  return rc;
}
#define CHECK_MAP_OK(m) CHECK_EQ_INT(run_check(m), SLATE_OK)

#endif
