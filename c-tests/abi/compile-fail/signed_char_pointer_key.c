/* must not compile: a signed char* key */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  static signed char bytes[4] = {1, 2, 3, 0};
  signed char* bad = bytes;
  signed char good = 1;
  CF_USE(bad, good);
}
