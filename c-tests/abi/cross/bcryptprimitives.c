/*
 * A test fixture for wine 8, which lacks bcryptprimitives.dll: Rust's
 * standard library (and getrandom) draw random bytes through its
 * ProcessPrng, which every Windows since 10 provides. Built as
 * bcryptprimitives.dll beside the test programs, it answers ProcessPrng
 * with RtlGenRandom (advapi32's SystemFunction036), which wine has.
 * Programs on real Windows need nothing of this.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG n = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    length -= n;
  }
  return TRUE;
}
