/* must not compile: a double key (floating-point keys are not supported) */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  double bad = 1.5;
  long long good = 1;
  CF_USE(bad, good);
}
