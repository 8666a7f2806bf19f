/* The headers alone (slate.hpp too in C++), under every warning a careful project might turn on.
   Compiled (not run) by `make test` as C11 and C++17 with gcc and clang.

   The headers claim only names of their own (slate_, slotmap_, SLATE_):
   a program's names stay its own, also ones the library uses inside (the
   unwinder's `Context` and `Trace`), and so do the system's declarations
   (<unwind.h>'s `_Unwind_Backtrace`). */
#include <unwind.h>
typedef struct Context {
  int depth;
} Context;
typedef double Trace;
#include "slate.h"
#include "slate-generic.h"
#include "slate-introspect.h"
#ifdef __cplusplus
#include "slate.hpp"
#endif

int slate_header_strict_probe(void);
int slate_header_strict_probe(void) { return sizeof(slate_s) == 64; }
