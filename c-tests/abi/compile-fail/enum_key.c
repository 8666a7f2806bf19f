/* must not compile: an enum key in C++ (in C an enum is compatible with an integer type, which _Generic cannot tell apart, so it is accepted there; see slate-generic.h) */
/* languages: c++ */
#include "cf.h"
enum color { RED, GREEN };
int main(void) {
  enum color bad = GREEN;
  int good = 1;
  CF_USE(bad, good);
}
