/* must compile, as C11 and as C++17: every accepted key type through every
 * macro.  run.sh requires this file to compile before it believes that the
 * other sources fail because of their key type. */
/* languages: c c++ */
#include "slate-generic.h"

#include <stddef.h>
#include <stdint.h>

#define USE(key)                                                   \
  do {                                                             \
    result |= SLATE_SET(&map, key, NULL);                          \
    result |= SLATE_GET(&map, key, &value);                        \
    result |= SLATE_GET(&map, key, NULL);                          \
    result |= SLATE_DELETE(&map, key);                             \
  } while (0)

int main(void) {
  slate_s map;
  void* value = NULL;
  int result = 0;
  char buffer[8] = "buffer";
  char* string = buffer;
  const char* const_string = "const";
  const int const_int = 3;
  (void)slate(&map);
  USE("literal");
  USE(buffer);
  USE(string);
  USE(const_string);
  USE((signed char)-1);
  USE((short)-2);
  USE(-3);
  USE(-4L);
  USE(-5LL);
  USE((int64_t)-6);
  USE(const_int);
  USE((unsigned char)1);
  USE((unsigned short)2);
  USE(3u);
  USE(4ul);
  USE(5ull);
  USE((uint64_t)6);
  USE((size_t)7);
  slate_free(&map);
  return result != 0;
}
