/* must not compile: a plain char key (plain char is a character type, not an integer key; its signedness is platform-defined) */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  char bad = 'a';
  signed char good = 'a';
  CF_USE(bad, good);
}
