/* The headers alone (slate.hpp too in C++), under every warning a careful project might turn on.
   Compiled (not run) by `make test` as C11 and C++17 with gcc and clang. */
#include "slate.h"
#include "slate-generic.h"
#ifdef __cplusplus
#include "slate.hpp"
#endif

int slate_header_strict_probe(void);
int slate_header_strict_probe(void) { return sizeof(slate_s) == 64; }
