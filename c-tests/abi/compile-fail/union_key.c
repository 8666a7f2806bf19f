/* must not compile: a union key */
/* languages: c c++ */
#include "cf.h"
union number { int i; unsigned u; };
int main(void) {
  union number bad;
  unsigned good = 1;
  bad.i = 1;
  CF_USE(bad, good);
}
