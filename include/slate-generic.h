/*
 * slate-generic.h -- type-generic key macros for slate.h
 *
 * SLATE_SET, SLATE_GET and SLATE_DELETE call the right slate function for the
 * type of the key, so one spelling works for string and integer keys:
 *
 *     #include "slate-generic.h"
 *
 *     slate_s map;
 *     void* value;
 *     slate(&map);
 *     SLATE_SET(&map, "answer", (void*)42);     -> slate_set
 *     SLATE_SET(&map, -7, (void*)1);            -> slate_set_i64
 *     SLATE_SET(&map, (uint64_t)7, (void*)2);   -> slate_set_u64
 *     if (SLATE_GET(&map, "answer", &value) == SLATE_OK) { ... }
 *     SLATE_DELETE(&map, -7);
 *     slate_free(&map);
 *
 * It works in C11 (with _Generic) and in C++ (C++11 or later, with overloaded
 * inline functions); the same source compiles as either and picks the same
 * function in both. It adds no symbols to the library and nothing to link:
 * every macro expands to a direct call of a slate.h function.
 *
 * Key types and the function each one selects
 * -------------------------------------------
 *
 *   char*, const char*            slate_set / slate_get / slate_delete
 *     (and char arrays, string literals)   the key is the string's bytes
 *                                           without the terminating NUL
 *   signed char, short, int,      slate_set_i64 / slate_get_i64 /
 *   long, long long               slate_delete_i64
 *     (so int64_t, intptr_t, ptrdiff_t, whichever of these they are)
 *   unsigned char, unsigned short, slate_set_u64 / slate_get_u64 /
 *   unsigned, unsigned long,      slate_delete_u64
 *   unsigned long long
 *     (so uint64_t, size_t, uintptr_t, uint8_t, ...)
 *
 * The choice follows the key's type, never its value: (unsigned)5 and 5 are
 * different keys (one in the u64 keyspace, one in the i64 keyspace; slate.h
 * keeps the two keyspaces and the string keyspace apart, see SPEC section 3).
 * A signed key is converted to int64_t and an unsigned key to uint64_t, which
 * preserves its value, so (short)-5, -5 and (int64_t)-5 all name the same
 * entry, and so do (unsigned char)7, 7u and (uint64_t)7.
 *
 * Every other key type is a compile-time error, in C and in C++:
 *
 *   - plain char.  It is a character type, not an integer key, and whether it
 *     is signed depends on the platform, so a char key would land in the i64
 *     keyspace on one machine and the u64 keyspace on another.  Cast it to the
 *     integer type you mean ((unsigned char)c), or pass a string.
 *   - bool / _Bool.  Not an integer key; cast it if you really mean 0 and 1.
 *   - float, double, long double: floating-point keys are not supported
 *     (hash their bytes with slate_set_bytes if you need them).
 *   - pointers other than char* / const char*: void*, int*, unsigned char*,
 *     signed char*, const volatile char*, function pointers, nullptr.
 *     Use slate_set_bytes for raw bytes, or cast a pointer to uintptr_t if the
 *     address itself is the key.
 *   - structs, unions, arrays other than char arrays, __int128, and in C++
 *     std::string / std::string_view (pass s.c_str(), or use slate_set_bytes
 *     with s.data() and s.size(), which also allows embedded NULs).
 *   - in C++, enumerations (scoped or not), wchar_t, char8_t, char16_t and
 *     char32_t: cast to the integer type you mean.
 *
 * Differences between C and C++ that come from the languages, not from this
 * header (the rule above is the same; the type of some expressions is not):
 *
 *   - A character constant such as 'a' has type int in C (so it is accepted,
 *     as i64 key 97) and type char in C++ (so it is rejected).
 *   - A comparison such as (a < b), and true/false from <stdbool.h> before
 *     C23, have type int in C (accepted as i64) and bool in C++ (rejected).
 *   - In C an enumerated type is compatible with an implementation-defined
 *     integer type, which _Generic cannot tell apart from it: an enum key
 *     compiles and goes wherever that integer type goes (with gcc and clang,
 *     unsigned int -> u64 when the enum has no negative constant, else int ->
 *     i64), while the enumeration constants themselves have type int (-> i64).
 *     Cast enum keys explicitly to the integer type you mean.  In C++ enum
 *     keys do not compile.
 *   - Likewise wchar_t, char16_t and char32_t are typedefs of integer types in
 *     C and are accepted there by their underlying type.
 *   - A bit-field key (s.bits, declared `unsigned bits : 3`): gcc in C gives
 *     it a type of its own ("unsigned char:3") that matches no association,
 *     so it does not compile; clang and C++ take its declared type.  Cast it
 *     ((unsigned)s.bits) to be portable.
 *
 * Evaluation: each macro evaluates each of its arguments exactly once (C's
 * _Generic does not evaluate its controlling expression).
 *
 * The macros take the same arguments as the functions they call and return
 * what that function returns (an int from slate_error_e); see slate.h for
 * the full contract.
 */
#ifndef SLATE_GENERIC_H
#define SLATE_GENERIC_H

#include "slate.h"

#if defined(__cplusplus)

#if __cplusplus < 201103L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 201103L)
#error "slate-generic.h needs C++11 or later (deleted functions); compile with -std=c++11 or newer"
#endif

/* C++: overloads.  One non-template overload per accepted key type; a deleted
 * catch-all template wins over any conversion (it is an exact match for every
 * type), so a key of any type not listed here, including bool, char, float,
 * double, enums and pointers other than char*, picks the deleted template and
 * the program does not compile ("use of deleted function
 * slate_generic::set<double>" or similar).  For the listed types the
 * non-template overload is an equally exact match and is preferred. */
namespace slate_generic {

/* The catch-all: any key type not listed below fails to compile. */
template <typename Key> int set(slate_s* map, Key key, void* value) = delete;
template <typename Key> int get(const slate_s* map, Key key, void** value) = delete;
template <typename Key> int del(slate_s* map, Key key) = delete;

/* Strings (char arrays and string literals decay to these). */
inline int set(slate_s* map, const char* key, void* value) noexcept { return slate_set(map, key, value); }
inline int set(slate_s* map, char* key, void* value) noexcept { return slate_set(map, key, value); }
inline int get(const slate_s* map, const char* key, void** value) noexcept { return slate_get(map, key, value); }
inline int get(const slate_s* map, char* key, void** value) noexcept { return slate_get(map, key, value); }
inline int del(slate_s* map, const char* key) noexcept { return slate_delete(map, key); }
inline int del(slate_s* map, char* key) noexcept { return slate_delete(map, key); }

/* Signed integers -> the i64 keyspace, unsigned integers -> the u64 keyspace.
 * The key converts implicitly to int64_t / uint64_t: a widening conversion
 * that keeps the value (no cast, so no -Wuseless-cast or -Wold-style-cast). */
#define SLATE_GENERIC_INTEGER_(type, suffix)                            \
  inline int set(slate_s* map, type key, void* value) noexcept {        \
    return slate_set_##suffix(map, key, value);                         \
  }                                                                     \
  inline int get(const slate_s* map, type key, void** value) noexcept { \
    return slate_get_##suffix(map, key, value);                         \
  }                                                                     \
  inline int del(slate_s* map, type key) noexcept {                     \
    return slate_delete_##suffix(map, key);                             \
  }
SLATE_GENERIC_INTEGER_(signed char, i64)
SLATE_GENERIC_INTEGER_(short, i64)
SLATE_GENERIC_INTEGER_(int, i64)
SLATE_GENERIC_INTEGER_(long, i64)
SLATE_GENERIC_INTEGER_(long long, i64)
SLATE_GENERIC_INTEGER_(unsigned char, u64)
SLATE_GENERIC_INTEGER_(unsigned short, u64)
SLATE_GENERIC_INTEGER_(unsigned int, u64)
SLATE_GENERIC_INTEGER_(unsigned long, u64)
SLATE_GENERIC_INTEGER_(unsigned long long, u64)
#undef SLATE_GENERIC_INTEGER_

} /* namespace slate_generic */

#define SLATE_GENERIC_SET_(map, key, value) ::slate_generic::set((map), (key), (value))
#define SLATE_GENERIC_GET_(map, key, value) ::slate_generic::get((map), (key), (value))
#define SLATE_GENERIC_DELETE_(map, key) ::slate_generic::del((map), (key))

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

/* C11: _Generic with no default association, so a key of any type not listed
 * is a constraint violation ("'_Generic' selector of type 'double' is not
 * compatible with any association" or similar).  Plain char is deliberately
 * absent (signed char and unsigned char are distinct types from it), and so is
 * _Bool.  The controlling expression undergoes lvalue conversion, so
 * qualifiers are dropped (const int -> int) and arrays decay (char[4] ->
 * char*). */
#define SLATE_GENERIC_PICK_(key, string, i64, u64) \
  _Generic((key),                                  \
      char*: string,                               \
      const char*: string,                         \
      signed char: i64,                            \
      short: i64,                                  \
      int: i64,                                    \
      long: i64,                                   \
      long long: i64,                              \
      unsigned char: u64,                          \
      unsigned short: u64,                         \
      unsigned int: u64,                           \
      unsigned long: u64,                          \
      unsigned long long: u64)

#define SLATE_GENERIC_SET_(map, key, value) \
  SLATE_GENERIC_PICK_(key, slate_set, slate_set_i64, slate_set_u64)((map), (key), (value))
#define SLATE_GENERIC_GET_(map, key, value) \
  SLATE_GENERIC_PICK_(key, slate_get, slate_get_i64, slate_get_u64)((map), (key), (value))
#define SLATE_GENERIC_DELETE_(map, key) \
  SLATE_GENERIC_PICK_(key, slate_delete, slate_delete_i64, slate_delete_u64)((map), (key))

#else
#error "slate-generic.h needs C11 (_Generic) or C++11 or later; compile with -std=c11 or newer"
#endif

/*
 * SLATE_SET(map, key, value)
 *
 * Insert key -> value into map, or replace the value if the key is present.
 * Calls slate_set (string key), slate_set_i64 (signed integer key) or
 * slate_set_u64 (unsigned integer key).
 *
 *   map    slate_s*, initialized with slate()
 *   key    a string (char*, const char*, char array, string literal) or an
 *          integer of a type listed above; a string key is copied by the map
 *   value  void*, stored as given, never dereferenced or freed
 *
 * Returns SLATE_OK, SLATE_ERROR_INVALID (NULL map or NULL string key, or the
 * map is being walked by its own slate_each), SLATE_ERROR_ALLOC (the
 * allocator failed; the map is unchanged) or SLATE_ERROR_FULL.
 */
#define SLATE_SET(map, key, value) SLATE_GENERIC_SET_(map, key, value)

/*
 * SLATE_GET(map, key, value_out)
 *
 * Look key up in map.  Calls slate_get, slate_get_i64 or slate_get_u64 by the
 * type of key (see SLATE_SET).
 *
 *   map        const slate_s*
 *   key        as for SLATE_SET
 *   value_out  void**: receives the stored value when the key is found; left
 *              as it was when it is not; may be NULL to test presence only
 *
 * Returns SLATE_OK (found), SLATE_ERROR_NOT_FOUND (absent) or
 * SLATE_ERROR_INVALID (NULL map or NULL string key).  Allocates nothing.
 */
#define SLATE_GET(map, key, value_out) SLATE_GENERIC_GET_(map, key, value_out)

/*
 * SLATE_DELETE(map, key)
 *
 * Remove key from map.  Calls slate_delete, slate_delete_i64 or
 * slate_delete_u64 by the type of key (see SLATE_SET).  The value is not
 * freed; memory held by the map is not returned (see slate_compact).
 *
 * Returns SLATE_OK (removed), SLATE_ERROR_NOT_FOUND (absent) or
 * SLATE_ERROR_INVALID (NULL map or NULL string key, or the map is being
 * walked by its own slate_each).
 */
#define SLATE_DELETE(map, key) SLATE_GENERIC_DELETE_(map, key)

#endif /* SLATE_GENERIC_H */
