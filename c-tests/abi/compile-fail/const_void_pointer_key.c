/* must not compile: a const void* key */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  const void* bad = "abc";
  const char* good = "abc";
  CF_USE(bad, good);
}
