/* must not compile: a char** key (an array of strings is not a string) */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  static const char* names[2] = {"a", "b"};
  const char** bad = names;
  const char* good = names[0];
  CF_USE(bad, good);
}
