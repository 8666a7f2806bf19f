/* must not compile: a long double key */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  long double bad = 1.5L;
  unsigned long long good = 1;
  CF_USE(bad, good);
}
