/* must not compile: a struct key */
/* languages: c c++ */
#include "cf.h"
struct point { int x, y; };
int main(void) {
  struct point bad = {1, 2};
  short good = 1;
  CF_USE(bad, good);
}
