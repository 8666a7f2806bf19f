/* must not compile: a bool key (_Bool is not accepted as an integer key) */
/* languages: c c++ */
#include "cf.h"
#include <stdbool.h>
int main(void) {
  bool bad = true;
  int good = 1;
  CF_USE(bad, good);
}
