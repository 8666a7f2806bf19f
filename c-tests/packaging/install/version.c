/* Prints the version three ways and fails unless they agree: the
 * library's slate_version(), the header's SLATE_VERSION_STRING, and the
 * header's SLATE_VERSION_MAJOR/MINOR/PATCH. */
#include <stdio.h>
#include <string.h>

#include "slate.h"

int main(void) {
  char parts[64];
  snprintf(parts, sizeof parts, "%d.%d.%d", SLATE_VERSION_MAJOR, SLATE_VERSION_MINOR,
           SLATE_VERSION_PATCH);
  const char* library = slate_version();
  printf("%s\n", library);
  if (strcmp(library, SLATE_VERSION_STRING) != 0 || strcmp(parts, SLATE_VERSION_STRING) != 0) {
    fprintf(stderr, "versions disagree: library %s, header %s, parts %s\n", library,
            SLATE_VERSION_STRING, parts);
    return 1;
  }
  return 0;
}
