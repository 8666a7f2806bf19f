/* must not compile: an int* key (a pointer is not an integer key) */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  static int number = 5;
  int* bad = &number;
  int good = 5;
  CF_USE(bad, good);
}
