/* must not compile: an unsigned char* key (bytes go through slate_set_bytes) */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  static unsigned char bytes[4] = {1, 2, 3, 0};
  unsigned char* bad = bytes;
  unsigned char good = 1;
  CF_USE(bad, good);
}
