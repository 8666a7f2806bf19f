/* must not compile: a function pointer key */
/* languages: c c++ */
#include "cf.h"
static int callback(void) { return 0; }
int main(void) {
  int (*bad)(void) = callback;
  long good = 1;
  CF_USE(bad, good);
}
