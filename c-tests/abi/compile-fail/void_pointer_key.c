/* must not compile: a void* key (only char* and const char* are string keys) */
/* languages: c c++ */
#include "cf.h"

int main(void) {
  static char storage[4] = "abc";
  void* bad = storage;
  char* good = storage;
  CF_USE(bad, good);
}
