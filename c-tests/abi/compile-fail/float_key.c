/* must not compile: a float key */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  float bad = 1.5f;
  int good = 1;
  CF_USE(bad, good);
}
