/*
 * test_hpp.cpp -- tests of include/slate.hpp, the C++17 wrappers
 * (slate::map, slate::slotmap<T>, slate::sparse<T>, slate::sparse<void>,
 * slate::join, slate::key, slate::status, slate::error, save / load).
 *
 * Build and run (from the repository root):
 *   cargo build --release
 *   g++ -std=c++17 -O1 -g -Wall -Wextra -Werror -Wpedantic -Iinclude -Ic-tests/support \
 *       cpp-tests/test_hpp.cpp target/release/libslate.a -lpthread -ldl -lm \
 *       -o /tmp/th && /tmp/th
 * (the same with clang++, with -std=c++20, with -fsanitize=address,undefined,
 * and under valgrind --leak-check=full --error-exitcode=1).
 *
 * The last line on stdout is "N passed, M failed"; the exit status is 0 only
 * when M is 0. The differential test's PRNG seed is printed on stderr;
 * SLATE_HPP_SEED=<n> replays another one.
 *
 * Compile-time negative tests: each SLATE_HPP_COMPILE_FAIL=<n> below, 1..16,
 * must make this file fail to compile (with -fsyntax-only), e.g.
 *   for n in $(seq 1 16); do g++ -std=c++17 -Iinclude -Ic-tests/support -fsyntax-only \
 *     -DSLATE_HPP_COMPILE_FAIL=$n cpp-tests/test_hpp.cpp 2>/dev/null \
 *     && echo "case $n compiled"; done
 * prints nothing.
 *
 * Built without exceptions (-fno-exceptions, as on WASI; see platform.h)
 * every call that would throw is left out, since slate.hpp would abort
 * there; where the call has a try_ twin (try_set, try_reserve,
 * try_compact, try_clone, try_insert, try_sort) the twin is checked
 * instead: its status code and that the container did not change.
 */
#include "slate.hpp"

#include "test.h"
#include "map_check.h"
#include "platform.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>
#endif

using namespace std::string_view_literals;

/* ------------------------------------------------------------------------ */
/* Test helpers                                                              */
/* ------------------------------------------------------------------------ */

#if TEST_HAVE_EXCEPTIONS
/* Runs f; returns the slate::error code it threw, 0 when it threw nothing,
   -100 for std::bad_alloc, -200 for any other exception. */
template <class F>
static int slate_error_of(F&& f) {
  try {
    f();
  } catch (const slate::error& e) {
    return e.code();
  } catch (const std::bad_alloc&) {
    return -100;
  } catch (...) {
    return -200;
  }
  return 0;
}

/* True when f throws exactly something catchable as E (and nothing else). */
template <class E, class F>
static bool throws_as(F&& f) {
  try {
    f();
  } catch (const E&) {
    return true;
  } catch (...) {
    return false;
  }
  return false;
}
#endif

/* A self-move the compiler cannot see through (no -Wself-move). */
template <class T>
static void self_move(T& a, T& alias) {
  a = std::move(alias);
}

/* An allocator that counts calls and can be told to fail. Installed with
   slate_use_allocator only around the creation of the containers that
   should use it (each container keeps the allocator it was created with). */
static long g_alloc_calls = 0;
static bool g_alloc_fail = false;
static void* t_malloc(size_t n) {
  if (g_alloc_fail) return nullptr;
  g_alloc_calls++;
  return std::malloc(n);
}
static void* t_calloc(size_t c, size_t n) {
  if (g_alloc_fail) return nullptr;
  g_alloc_calls++;
  return std::calloc(c, n);
}
static void t_free(void* p) { std::free(p); }
static void use_test_allocator() { (void)slate_use_allocator(t_malloc, t_calloc, t_free); }
static void use_default_allocator() { (void)slate_use_allocator(nullptr, nullptr, nullptr); }

static void* P(uintptr_t v) { return reinterpret_cast<void*>(v); }
static uintptr_t U(void* p) { return reinterpret_cast<uintptr_t>(p); }

/* ------------------------------------------------------------------------ */
/* Compile-time properties                                                   */
/* ------------------------------------------------------------------------ */

/* Detection idiom: is m.set(K, void*) (and friends) well-formed? */
template <class K, class = void>
struct can_set : std::false_type {};
template <class K>
struct can_set<K, std::void_t<decltype(std::declval<slate::map&>().set(
                      std::declval<K>(), static_cast<void*>(nullptr)))>> : std::true_type {};
template <class K, class = void>
struct can_try_set : std::false_type {};
template <class K>
struct can_try_set<K, std::void_t<decltype(std::declval<slate::map&>().try_set(
                          std::declval<K>(), static_cast<void*>(nullptr)))>> : std::true_type {};
template <class K, class = void>
struct can_get : std::false_type {};
template <class K>
struct can_get<K, std::void_t<decltype(std::declval<const slate::map&>().get(std::declval<K>()))>>
    : std::true_type {};
template <class K, class = void>
struct can_contains : std::false_type {};
template <class K>
struct can_contains<
    K, std::void_t<decltype(std::declval<const slate::map&>().contains(std::declval<K>()))>>
    : std::true_type {};
template <class K, class = void>
struct can_erase : std::false_type {};
template <class K>
struct can_erase<K, std::void_t<decltype(std::declval<slate::map&>().erase(std::declval<K>()))>>
    : std::true_type {};

template <class K>
constexpr bool key_ok =
    can_set<K>::value && can_try_set<K>::value && can_get<K>::value && can_contains<K>::value &&
    can_erase<K>::value;
template <class K>
constexpr bool key_rejected =
    !can_set<K>::value && !can_try_set<K>::value && !can_get<K>::value &&
    !can_contains<K>::value && !can_erase<K>::value;

enum plain_enum { PE_ONE = 1 };
enum class scoped_enum : int { one = 1 };

static_assert(key_ok<const char (&)[4]>, "string literal keys");
static_assert(key_ok<const char*>, "const char* keys");
static_assert(key_ok<char*>, "char* keys");
static_assert(key_ok<std::string>, "std::string keys (rvalue)");
static_assert(key_ok<const std::string&>, "std::string keys (lvalue)");
static_assert(key_ok<std::string_view>, "std::string_view keys");
static_assert(key_ok<int> && key_ok<long> && key_ok<long long> && key_ok<short> &&
                  key_ok<signed char>,
              "signed integer keys");
static_assert(key_ok<unsigned> && key_ok<unsigned long> && key_ok<unsigned long long> &&
                  key_ok<unsigned short> && key_ok<unsigned char>,
              "unsigned integer keys");
static_assert(key_ok<int64_t> && key_ok<uint64_t> && key_ok<size_t> && key_ok<const int&> &&
                  key_ok<volatile unsigned&>,
              "typedefs and cv-qualified integers");
static_assert(key_rejected<double>, "double keys must not compile");
static_assert(key_rejected<float> && key_rejected<long double>, "floating-point keys");
static_assert(key_rejected<bool>, "bool keys");
static_assert(key_rejected<char>, "plain char keys");
static_assert(key_rejected<wchar_t> && key_rejected<char16_t> && key_rejected<char32_t>,
              "character keys");
#if defined(__cpp_char8_t)
static_assert(key_rejected<char8_t>, "char8_t keys");
#endif
static_assert(key_rejected<plain_enum> && key_rejected<scoped_enum>, "enum keys");
static_assert(key_rejected<std::nullptr_t>, "nullptr keys");
static_assert(key_rejected<void*> && key_rejected<int*> && key_rejected<const unsigned char*>,
              "non-char pointer keys");
static_assert(key_rejected<std::vector<char>>, "other class keys");

static_assert(slate::is_integer_key_v<int> && slate::is_integer_key_v<const uint64_t>);
static_assert(!slate::is_integer_key_v<bool> && !slate::is_integer_key_v<char>);
static_assert(!slate::is_integer_key_v<double> && !slate::is_integer_key_v<plain_enum>);

/* Return types. */
static_assert(std::is_same_v<decltype(std::declval<slate::map&>().set("a", nullptr)), bool>);
static_assert(std::is_same_v<decltype(std::declval<slate::map&>().get(1)), std::optional<void*>>);
static_assert(std::is_same_v<decltype(std::declval<slate::map&>().erase(1u)), bool>);
static_assert(std::is_same_v<decltype(std::declval<slate::map&>().try_set(1, nullptr)),
                             slate::status>);
static_assert(std::is_same_v<decltype(std::declval<slate::map&>().native()), slate_s*>);
static_assert(std::is_same_v<decltype(std::declval<const slate::map&>().native()),
                             const slate_s*>);

/* Move-only RAII types. */
static_assert(!std::is_copy_constructible_v<slate::map> && !std::is_copy_assignable_v<slate::map>);
static_assert(std::is_nothrow_move_constructible_v<slate::map> &&
              std::is_nothrow_move_assignable_v<slate::map>);
static_assert(std::is_nothrow_default_constructible_v<slate::map>);
static_assert(std::is_nothrow_destructible_v<slate::map>);
static_assert(std::is_nothrow_swappable_v<slate::map>);
static_assert(!std::is_copy_constructible_v<slate::slotmap<int>> &&
              !std::is_copy_assignable_v<slate::slotmap<int>>);
static_assert(std::is_nothrow_move_constructible_v<slate::slotmap<int>> &&
              std::is_nothrow_move_assignable_v<slate::slotmap<int>>);
static_assert(std::is_nothrow_default_constructible_v<slate::slotmap<double>>);
static_assert(std::is_nothrow_swappable_v<slate::slotmap<double>>);
static_assert(!std::is_default_constructible_v<struct slate>, "slate is a scope, not an object");

/* Keys and statuses are small plain values. */
static_assert(std::is_trivially_copyable_v<slate::key> && sizeof(slate::key) == 8);
static_assert(std::is_trivially_copyable_v<slate::status>);
static_assert(std::is_same_v<slate::slotmap<int>::key_type, slate::key>);
static_assert(std::is_same_v<slate::slotmap<int>::iterator, int*>);
static_assert(std::is_same_v<slate::slotmap<int>::const_iterator, const int*>);
static_assert(!std::is_convertible_v<slate::key, bool>, "key's bool is explicit");
static_assert(!std::is_convertible_v<slotmap_key, slate::key>, "key's constructor is explicit");
static_assert(std::is_base_of_v<std::runtime_error, slate::error>);
static_assert(slate::status().ok() && slate::status(SLATE_OK).ok() &&
              !slate::status(SLATE_ERROR_FULL).ok() &&
              slate::status(SLATE_ERROR_ALLOC).code() == SLATE_ERROR_ALLOC,
              "status is constexpr");
static_assert(slate::key().raw() == 0 && !slate::key() && slate::key(0x500000007ULL).index() == 7 &&
              slate::key(0x500000007ULL).generation() == 5,
              "key is constexpr");

/* What cannot throw is noexcept. A string literal argument converts to
   std::string_view first: libstdc++ makes that conversion noexcept, libc++
   (the WASI build's) does not, nor does the standard, so with libc++ the
   string calls are tested with a string_view argument ("a"sv, noexcept). */
#if !defined(_LIBCPP_VERSION)
static_assert(noexcept(std::declval<const slate::map&>().get("a")));
#else
static_assert(noexcept(std::declval<const slate::map&>().get("a"sv)));
#endif
static_assert(noexcept(std::declval<const slate::map&>().get(1)));
static_assert(noexcept(std::declval<const slate::map&>().contains(1u)));
static_assert(noexcept(std::declval<const slate::map&>().size()));
static_assert(noexcept(std::declval<const slate::map&>().empty()));
#if !defined(_LIBCPP_VERSION)
static_assert(noexcept(std::declval<slate::map&>().try_set("a", nullptr)));
#else
static_assert(noexcept(std::declval<slate::map&>().try_set("a"sv, nullptr)));
#endif
static_assert(noexcept(std::declval<slate::map&>().try_reserve(1)));
static_assert(noexcept(std::declval<slate::map&>().try_compact()));
static_assert(noexcept(std::declval<const slate::map&>() == std::declval<const slate::map&>()));
static_assert(!noexcept(std::declval<slate::map&>().set("a", nullptr)), "set can throw");
static_assert(!noexcept(std::declval<const slate::map&>().clone()), "clone can throw");
static_assert(noexcept(std::declval<slate::slotmap<int>&>().find(slate::key())));
static_assert(noexcept(std::declval<const slate::slotmap<int>&>().contains(slate::key())));
static_assert(noexcept(std::declval<slate::slotmap<int>&>().try_insert(1, std::declval<slate::key&>())));
static_assert(noexcept(std::declval<slate::slotmap<int>&>().begin()));
static_assert(noexcept(std::declval<const slate::slotmap<int>&>().key_at(0)));
static_assert(noexcept(std::hash<slate::key>{}(slate::key())));
static_assert(!noexcept(std::declval<slate::slotmap<int>&>().insert(1)), "insert can throw");
static_assert(!noexcept(std::declval<slate::slotmap<int>&>().at(slate::key())), "at can throw");
static_assert(std::is_nothrow_move_constructible_v<slate::sparse<int>> &&
              std::is_nothrow_move_assignable_v<slate::sparse<int>> &&
              !std::is_copy_constructible_v<slate::sparse<int>> &&
              !std::is_copy_assignable_v<slate::sparse<int>>);
static_assert(std::is_nothrow_move_constructible_v<slate::sparse<void>> &&
              !std::is_copy_constructible_v<slate::sparse<void>>);
static_assert(std::is_nothrow_default_constructible_v<slate::sparse<int>>);
static_assert(noexcept(std::declval<const slate::sparse<int>&>().find(slate::key())));
static_assert(noexcept(std::declval<slate::sparse<int>&>().try_set(slate::key(), 1)));
static_assert(!noexcept(std::declval<slate::sparse<int>&>().set(slate::key(), 1)), "set can throw");
static_assert(std::is_same_v<decltype(*std::declval<slate::sparse<void>&>().begin()), slate::key>);

/* ------------------------------------------------------------------------ */
/* Compile-fail cases (see the file comment); none is compiled normally.     */
/* ------------------------------------------------------------------------ */
#if defined(SLATE_HPP_COMPILE_FAIL)
struct over_aligned {
  alignas(32) float v[8];
};
static void compile_fail() {
  slate::map m;
  (void)m;
#if SLATE_HPP_COMPILE_FAIL == 1
  m.set(1.5, nullptr); /* double key */
#elif SLATE_HPP_COMPILE_FAIL == 2
  slate::slotmap<std::string> s; /* not trivially copyable */
#elif SLATE_HPP_COMPILE_FAIL == 3
  slate::slotmap<over_aligned> s; /* alignof > 16 */
#elif SLATE_HPP_COMPILE_FAIL == 4
  m.set('c', nullptr); /* plain char key */
#elif SLATE_HPP_COMPILE_FAIL == 5
  slate::map copy = m; /* copy */
#elif SLATE_HPP_COMPILE_FAIL == 6
  slate::slotmap<int> a, b;
  a = b; /* copy assignment */
#elif SLATE_HPP_COMPILE_FAIL == 7
  m.set(nullptr, nullptr); /* null string */
#elif SLATE_HPP_COMPILE_FAIL == 8
  m.for_each([](int) {}); /* wrong callback signature */
#elif SLATE_HPP_COMPILE_FAIL == 9
  slate::slotmap<int> s;
  s.erase_if([](slate::key, int&) {}); /* predicate returning void */
#elif SLATE_HPP_COMPILE_FAIL == 10
  m.set(true, nullptr); /* bool key */
#elif SLATE_HPP_COMPILE_FAIL == 11
  slate::slotmap<const int> s; /* const element */
#elif SLATE_HPP_COMPILE_FAIL == 12
  slate::key k = 5; /* implicit key from an integer */
#elif SLATE_HPP_COMPILE_FAIL == 13
  slate::sparse<std::string> s; /* not trivially copyable */
#elif SLATE_HPP_COMPILE_FAIL == 14
  slate::sparse<int> s;
  slate::join(s, [](slate::key, double&) {}); /* callable does not take the elements */
#elif SLATE_HPP_COMPILE_FAIL == 15
  slate::sparse<void> s;
  s.sort(); /* a membership set has nothing to sort */
#elif SLATE_HPP_COMPILE_FAIL == 16
  slate::slotmap<int> s;
  (void)s.save([](const void*, std::size_t) { return true; }); /* a save's write returns void or int */
#endif
}
#endif

/* ------------------------------------------------------------------------ */
/* status, error, describe                                                   */
/* ------------------------------------------------------------------------ */

static void test_status_and_error() {
  TEST_SECTION("status and error");
  slate::status ok;
  CHECK(ok.ok());
  CHECK(static_cast<bool>(ok));
  CHECK_EQ_INT(ok.code(), SLATE_OK);
  CHECK(ok == slate::status(SLATE_OK));
  slate::status full(SLATE_ERROR_FULL);
  CHECK(!full.ok());
  CHECK(!full);
  CHECK(full != ok);
  CHECK_EQ_INT(full.code(), SLATE_ERROR_FULL);
  CHECK(std::strstr(full.message(), "limit") != nullptr);
  CHECK(std::strstr(slate::status(SLATE_ERROR_ALLOC).message(), "SLATE_ERROR_ALLOC") != nullptr);
  CHECK(std::strstr(slate::status(SLATE_ERROR_NOT_FOUND).message(), "SLATE_ERROR_NOT_FOUND") != nullptr);
  CHECK(std::strstr(slate::status(SLATE_ERROR_INVALID).message(), "SLATE_ERROR_INVALID") != nullptr);
  CHECK(std::strstr(slate::describe(12345), "unknown") != nullptr);
  CHECK_EQ_STR(slate::describe(SLATE_OK), slate_strerror(SLATE_OK));
  CHECK_EQ_STR(slate::describe(SLATE_ERROR_FULL), slate_strerror(SLATE_ERROR_FULL));

  slate::error e(SLATE_ERROR_INVALID);
  CHECK_EQ_INT(e.code(), SLATE_ERROR_INVALID);
  CHECK_EQ_STR(e.what(), slate::describe(SLATE_ERROR_INVALID));
  const std::runtime_error& base = e;
  CHECK_EQ_STR(base.what(), slate::describe(SLATE_ERROR_INVALID));
}

/* ------------------------------------------------------------------------ */
/* value helpers                                                             */
/* ------------------------------------------------------------------------ */

static void test_values() {
  TEST_SECTION("to_value / from_value / decode keys");
  CHECK_EQ_INT(slate::from_value<int>(slate::to_value(-123)), -123);
#if UINTPTR_MAX >= UINT64_MAX /* 8-byte values fit in 64-bit pointers only */
  CHECK_EQ_U64(slate::from_value<uint64_t>(slate::to_value(UINT64_MAX)), UINT64_MAX);
  CHECK(slate::from_value<double>(slate::to_value(2.5)) == 2.5);
#endif
  CHECK(slate::from_value<float>(slate::to_value(-0.75f)) == -0.75f);
  CHECK(slate::from_value<char>(slate::to_value('z')) == 'z');
  struct two {
    int16_t a;
    uint8_t b;
  };
  two t{-7, 200};
  two back = slate::from_value<two>(slate::to_value(t));
  CHECK_EQ_INT(back.a, -7);
  CHECK_EQ_INT(back.b, 200);
  int object = 5;
  CHECK_EQ_PTR(slate::from_value<int*>(slate::to_value(&object)), &object);
  /* Unused bytes are zero: equal values, equal pointers. */
  CHECK_EQ_PTR(slate::to_value(static_cast<uint8_t>(9)), slate::to_value(static_cast<uint8_t>(9)));
  CHECK_EQ_U64(U(slate::to_value(static_cast<uint8_t>(9))), 9);
  /* Integers and enums are the numbers C code stores, on every byte order:
   * a value C wrote as (void*)(uintptr_t)42 reads back as 42 at any width. */
  void* from_c = reinterpret_cast<void*>(static_cast<uintptr_t>(42));
  CHECK_EQ_INT(slate::from_value<uint32_t>(from_c), 42);
  CHECK_EQ_INT(slate::from_value<int16_t>(from_c), 42);
  CHECK_EQ_PTR(slate::to_value(static_cast<uint16_t>(42)), from_c);
  CHECK_EQ_U64(U(slate::to_value(static_cast<int32_t>(-2))), 0xFFFFFFFEu);
  CHECK_EQ_INT(slate::from_value<int32_t>(slate::to_value(static_cast<int32_t>(-2))), -2);
  enum class colour : uint8_t { red = 3, blue = 200 };
  CHECK_EQ_U64(U(slate::to_value(colour::blue)), 200);
  CHECK(slate::from_value<colour>(slate::to_value(colour::red)) == colour::red);

  slate::map m;
  m.set("pi", slate::to_value(3.25f));
  m.set(-1, slate::to_value(-1L));
  CHECK(slate::from_value<float>(*m.get("pi")) == 3.25f);
  CHECK_EQ_INT(slate::from_value<long>(*m.get(-1)), -1);

  /* Integer key encodings. */
  const char i5[10] = {0, 1, 5, 0, 0, 0, 0, 0, 0, 0};
  const char u5[10] = {0, 2, 5, 0, 0, 0, 0, 0, 0, 0};
  CHECK(slate::decode_i64_key(std::string_view(i5, 10)) == std::optional<int64_t>(5));
  CHECK(!slate::decode_u64_key(std::string_view(i5, 10)).has_value());
  CHECK(slate::decode_u64_key(std::string_view(u5, 10)) == std::optional<uint64_t>(5));
  CHECK(!slate::decode_i64_key(std::string_view(u5, 10)).has_value());
  CHECK(!slate::decode_i64_key("hello").has_value());
  CHECK(!slate::decode_i64_key(std::string_view(i5, 9)).has_value());
  CHECK(!slate::decode_u64_key("").has_value());
  const char neg[10] = {0, 1, '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff', '\xff'};
  CHECK(slate::decode_i64_key(std::string_view(neg, 10)) == std::optional<int64_t>(-1));
  const char min[10] = {0, 1, 0, 0, 0, 0, 0, 0, 0, '\x80'};
  CHECK(slate::decode_i64_key(std::string_view(min, 10)) ==
        std::optional<int64_t>(std::numeric_limits<int64_t>::min()));
}

/* ------------------------------------------------------------------------ */
/* map: basics                                                               */
/* ------------------------------------------------------------------------ */

static void test_map_basics() {
  TEST_SECTION("map basics");
  slate::map m;
  CHECK(m.empty());
  CHECK_EQ_U64(m.size(), 0);
  CHECK(!m.get("missing").has_value());
  CHECK(!m.contains("missing"));
  CHECK(!m.erase("missing"));
  CHECK_MAP_OK(m.native());

  int a = 1, b = 2;
  CHECK(m.set("a", &a));      /* new key: true */
  CHECK(!m.set("a", &b));     /* replaced: false */
  CHECK(m.set("b", nullptr)); /* a null value is a value */
  CHECK_EQ_U64(m.size(), 2);
  CHECK(!m.empty());
  CHECK(m.get("a").has_value());
  CHECK_EQ_PTR(*m.get("a"), &b);
  CHECK(m.get("b").has_value());
  CHECK_EQ_PTR(*m.get("b"), nullptr);
  CHECK(m.contains("b"));
  CHECK_EQ_PTR(m.get("zzz").value_or(&a), &a);

  CHECK(m.erase("a"));
  CHECK(!m.erase("a"));
  CHECK(!m.contains("a"));
  CHECK_EQ_U64(m.size(), 1);
  CHECK_MAP_OK(m.native());

  /* try_set */
  slate::status st = m.try_set("c", &a);
  CHECK(st.ok());
  CHECK_EQ_PTR(*m.get("c"), &a);
  CHECK(m.try_set(42, &b).ok());
  CHECK(m.try_set(42u, &a).ok());
  CHECK_EQ_PTR(*m.get(42), &b);
  CHECK_EQ_PTR(*m.get(42u), &a);
  CHECK_EQ_U64(m.size(), 4);

  /* clear keeps the map usable */
  m.clear();
  CHECK(m.empty());
  CHECK(!m.contains("c"));
  CHECK(!m.contains(42));
  CHECK(m.set("c", &b));
  CHECK_EQ_U64(m.size(), 1);
  CHECK_MAP_OK(m.native());

  /* many entries: growth, splits, erase half, compact */
  slate::map big;
  const int n = 5000;
  for (int i = 0; i < n; i++) {
    big.set("key-" + std::to_string(i), P(static_cast<uintptr_t>(i) + 1));
  }
  CHECK_EQ_U64(big.size(), n);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    auto v = big.get("key-" + std::to_string(i));
    if (!v || U(*v) != static_cast<uintptr_t>(i) + 1) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_MAP_OK(big.native());
  for (int i = 0; i < n; i += 2) {
    if (!big.erase("key-" + std::to_string(i))) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(big.size(), n / 2);
  for (int i = 0; i < n * 9 / 10; i++) big.erase("key-" + std::to_string(i));
  slate_info_s before = info_of(big.native());
  big.compact();
  slate_info_s after = info_of(big.native());
  CHECK(after.memory < before.memory);
  CHECK_EQ_U64(after.length, big.size());
  CHECK(big.try_compact().ok());
  CHECK_MAP_OK(big.native());
  for (int i = n * 9 / 10 + 1; i < n; i += 2) {
    if (!big.contains("key-" + std::to_string(i))) bad++;
  }
  CHECK_EQ_INT(bad, 0);

  /* reserve */
  slate::map r;
  r.reserve(3000);
  slate_info_s ri = info_of(r.native());
  CHECK(ri.capacity >= 3000);
  CHECK(r.empty());
  CHECK(r.try_reserve(10).ok());
  CHECK(ri.capacity >= 3000);
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { r.reserve(UINT64_MAX); }) == SLATE_ERROR_FULL ||
                   slate_error_of([&] { r.reserve(UINT64_MAX); }) == -100,
               1);
#else
  /* reserve's twin: the same refusal as a status, the map unchanged */
  {
    const slate_info_s was = info_of(r.native());
    const slate::status st = r.try_reserve(UINT64_MAX);
    CHECK(st.code() == SLATE_ERROR_FULL || st.code() == SLATE_ERROR_ALLOC);
    const slate_info_s now = info_of(r.native());
    CHECK_EQ_U64(now.capacity, was.capacity);
    CHECK_EQ_U64(now.memory, was.memory);
  }
#endif
  CHECK(!r.try_reserve(UINT64_MAX).ok());
  CHECK(r.empty());
  CHECK_MAP_OK(r.native());
}

/* ------------------------------------------------------------------------ */
/* map: take and pin_seed                                                    */
/* ------------------------------------------------------------------------ */

static std::vector<std::string> walk_order(const slate::map& m) {
  std::vector<std::string> out;
  m.for_each([&](std::string_view k, void*) { out.emplace_back(k); });
  return out;
}

static void test_map_take_and_pin() {
  TEST_SECTION("map: entry");
  {
    slate::map w;
    const char* words[] = {"a", "b", "a", "c", "a", "b"};
    for (const char* word : words) ++reinterpret_cast<std::uintptr_t&>(w.entry(word).value);
    CHECK(w.get("a") == std::optional<void*>(P(3)));
    CHECK(w.get("b") == std::optional<void*>(P(2)));
    CHECK(w.get("c") == std::optional<void*>(P(1)));
    auto e = w.entry(uint64_t{7});
    CHECK(e.inserted);
    CHECK(e.value == nullptr);
    e.value = P(70);
    auto again = w.entry(7u);
    CHECK(!again.inserted);
    CHECK(again.value == P(70));
    CHECK(w.entry(-7).inserted); /* int64_t -7: new */
    CHECK(w.size() == 5);
    void** slot = nullptr;
    bool fresh = true;
    CHECK(w.try_entry("a", slot, &fresh).ok());
    CHECK(!fresh);
    CHECK(*slot == P(3));
    CHECK(w.try_entry(std::string(300, 'z'), slot).ok());
    CHECK(*slot == nullptr);
    /* inside the map's own walk: the entry of the given key finds it (no
       change: the walk goes on), and a value written through it stays */
    size_t found = 0;
    w.for_each([&](std::string_view k, void* v) {
      void** s = nullptr;
      bool fresh_here = true;
      found += w.try_entry(k, s, &fresh_here).ok() && s != nullptr && *s == v && !fresh_here;
    });
    CHECK_EQ_U64(found, w.size());
#if TEST_HAVE_EXCEPTIONS
    size_t entered = 0;
    w.for_each([&](std::string_view k, void*) {
      entered += slate_error_of([&] { w.entry(k).value = P(5); }) == 0;
    });
    CHECK_EQ_U64(entered, w.size());
    CHECK(w.get("a") == std::optional<void*>(P(5)));
    /* the entry of a new key inserts it and stops the walk: for_each throws */
    const size_t was = w.size();
    CHECK_EQ_INT(slate_error_of([&] {
                   w.for_each([&](std::string_view, void*) { (void)w.entry("new in the walk"); });
                 }),
                 SLATE_ERROR_INVALID);
    CHECK_EQ_U64(w.size(), was + 1);
    CHECK(w.contains("new in the walk"));
#endif
  }

  TEST_SECTION("map: take");
  slate::map m;
  m.set("a", P(1));
  m.set(int64_t{-5}, P(2));
  m.set(uint64_t{5}, P(3));
  m.set(short{-7}, P(4));
  m.set(std::string(200, 'x'), P(5));
  CHECK(m.take("a") == std::optional<void*>(P(1)));
  CHECK(!m.take("a").has_value());
  CHECK(m.take(-5) == std::optional<void*>(P(2)));  /* int: the int64_t keyspace */
  CHECK(!m.take(5).has_value());                    /* not the uint64_t key */
  CHECK(m.take(5u) == std::optional<void*>(P(3)));
  CHECK(m.take(int64_t{-7}) == std::optional<void*>(P(4)));
  CHECK(m.take(std::string(200, 'x')) == std::optional<void*>(P(5)));
  CHECK(m.empty());
  CHECK(!m.take(std::string_view("no such key")).has_value());
  /* inside the map's own walk: taking the given key hands its value back,
     and the walk goes on */
  m.set("b", P(6));
  m.set("c", P(7));
  uintptr_t taken = 0;
  size_t visits = 0;
  CHECK(m.for_each([&](std::string_view k, void*) {
    visits++;
    taken += U(m.take(k).value_or(nullptr));
  }));
  CHECK_EQ_U64(visits, 2);
  CHECK_EQ_U64(taken, 13);
  CHECK(m.empty());

  TEST_SECTION("map: pin_seed");
  slate::map a, b, c;
  a.pin_seed(77);
  CHECK(b.try_pin_seed(77).ok());
  c.pin_seed(78);
  for (uint64_t i = 0; i < 2000; i++) {
    a.set("k" + std::to_string(i), P(i + 1));
    b.set("k" + std::to_string(i), P(i + 1));
    c.set("k" + std::to_string(i), P(i + 1));
  }
  CHECK(walk_order(a) == walk_order(b));
  CHECK(walk_order(a) != walk_order(c));
  CHECK_EQ_INT(a.try_pin_seed(1).code(), SLATE_ERROR_INVALID); /* holds memory */
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { a.pin_seed(1); }), SLATE_ERROR_INVALID);
#endif
  CHECK_EQ_U64(info_of(a.native()).seed, 77);
  slate::map copy = a.clone();
  CHECK(walk_order(copy) == walk_order(a));
  a.clear();
  CHECK_EQ_U64(info_of(a.native()).seed, 77);
}

/* ------------------------------------------------------------------------ */
/* allocators: map::with_allocator, slotmap<T>::with_allocator               */
/* ------------------------------------------------------------------------ */

/* Counts through malloc, with a size header that the release checks. */
struct counting_s {
  uint64_t allocations = 0, releases = 0, live = 0, bad = 0;
};

static void* counting_allocate(void* context, size_t size) {
  counting_s* c = static_cast<counting_s*>(context);
  unsigned char* p = static_cast<unsigned char*>(std::malloc(size + 16));
  if (p == nullptr) return nullptr;
  std::memcpy(p, &size, sizeof size);
  c->allocations++;
  c->live += size;
  return p + 16;
}

static void counting_release(void* context, void* pointer, size_t size) {
  counting_s* c = static_cast<counting_s*>(context);
  unsigned char* p = static_cast<unsigned char*>(pointer) - 16;
  size_t had = 0;
  std::memcpy(&had, p, sizeof had);
  if (had != size) c->bad++;
  c->releases++;
  c->live -= had;
  std::free(p);
}

static void test_allocators() {
  TEST_SECTION("map::with_allocator: every byte through it; clones inherit it");
  counting_s counts;
  const slate_allocator_s allocator{counting_allocate, counting_release, &counts};
  {
    slate::map m = slate::map::with_allocator(allocator);
    CHECK_EQ_U64(counts.allocations, 0);
    for (uint64_t i = 0; i < 3000; i++) m.set(i, P(i + 1));
    m.set(std::string(100, 'x'), P(1));
    CHECK(counts.allocations > 3);
    CHECK_EQ_U64(counts.live, info_of(m.native()).memory);
    slate::map copy = m.clone();
    CHECK_EQ_U64(counts.live, info_of(m.native()).memory + info_of(copy.native()).memory);
    CHECK_EQ_INT(m.try_set_allocator(&allocator).code(), SLATE_ERROR_INVALID); /* holds memory */
#if TEST_HAVE_EXCEPTIONS
    CHECK_EQ_INT(slate_error_of([&] { m.set_allocator(allocator); }), SLATE_ERROR_INVALID);
    slate_allocator_s half = allocator;
    half.release = nullptr;
    CHECK_EQ_INT(slate_error_of([&] { (void)slate::map::with_allocator(half); }),
                 SLATE_ERROR_INVALID);
#endif
    slate::map moved = std::move(m);
    moved.set(uint64_t{5000}, P(1));
    CHECK_EQ_U64(counts.live, info_of(moved.native()).memory + info_of(copy.native()).memory);
  }
  CHECK_EQ_U64(counts.live, 0);
  CHECK_EQ_U64(counts.allocations, counts.releases);

  TEST_SECTION("slotmap<T>::with_allocator");
  {
    auto s = slate::slotmap<uint64_t>::with_allocator(allocator);
    uint64_t before = counts.allocations;
    for (uint64_t i = 0; i < 1000; i++) s.insert(i);
    CHECK(counts.allocations > before);
    CHECK(counts.live > 0);
    auto copy = s.clone();
    CHECK_EQ_U64(copy.size(), 1000);
    CHECK_EQ_INT(s.try_set_allocator(nullptr).code(), SLATE_ERROR_INVALID);
  }
  CHECK_EQ_U64(counts.live, 0);
  CHECK_EQ_U64(counts.allocations, counts.releases);
  CHECK_EQ_U64(counts.bad, 0);
}

/* ------------------------------------------------------------------------ */
/* map: iterators (cursors)                                                  */
/* ------------------------------------------------------------------------ */

/* (key, value) pairs in iterator order. */
static std::vector<std::pair<std::string, void*>> iterated(const slate::map& m) {
  std::vector<std::pair<std::string, void*>> out;
  for (const auto& e : m) out.emplace_back(std::string(e.key), e.value);
  return out;
}

static void test_map_iterators() {
  TEST_SECTION("map: iterators");
  slate::map m;
  CHECK(m.begin() == m.end());
  CHECK(iterated(m).empty());
  std::map<std::string, void*> model;
  for (uint64_t i = 0; i < 3000; i++) {
    std::string k = (i % 3 == 0) ? "key-" + std::to_string(i) : std::string(i % 3 == 1 ? 150 : 5, 'x') + std::to_string(i);
    m.set(k, P(i + 1));
    model[k] = P(i + 1);
    m.set(static_cast<int64_t>(i), P(i + 7)); /* integer keys */
  }
  m.set(std::string_view("", 0), P(99));
  m.set(std::string("a\0b", 3), P(98));
  /* the same sequence as for_each, every entry once */
  std::vector<std::pair<std::string, void*>> walked;
  m.for_each([&](std::string_view k, void* v) { walked.emplace_back(std::string(k), v); });
  CHECK(iterated(m) == walked);
  CHECK_EQ_U64(walked.size(), m.size());
  CHECK_EQ_U64(static_cast<uint64_t>(std::distance(m.begin(), m.end())), m.size());

  /* copies are independent positions; a key of an integer table, which is
   * in the iterator, copied with it */
  slate::map ints;
  for (int64_t i = 0; i < 100; i++) ints.set(i, P(i));
  auto a = ints.begin();
  for (int i = 0; i < 10; i++) ++a;
  auto b = a;
  CHECK(a == b);
  CHECK(a->key == b->key);
  CHECK(a->key.data() != b->key.data()); /* each its own buffer */
  auto c = b++;
  CHECK(c == a);
  CHECK(b != a);
  CHECK(std::next(a) == b);
  CHECK(c->key == a->key);
  CHECK(b->key != a->key);
  CHECK(ints.erase(c) == b);
  {
    slate::map::iterator d;
    d = a;
    CHECK(d == a);
    CHECK(d->key == a->key);
    CHECK(d->value == a->value);
  }

  /* the erase loop: every other integer key, and the odd-length strings */
  slate::map copy = m.clone();
  size_t erased = 0, seen = 0;
  for (auto it = copy.begin(); it != copy.end();) {
    seen++;
    auto k = slate::decode_i64_key(it->key);
    bool drop = k ? *k % 2 == 0 : it->key.size() % 2 == 1;
    if (drop) erased++;
    it = drop ? copy.erase(it) : std::next(it);
  }
  CHECK_EQ_U64(seen, m.size());
  CHECK_EQ_U64(copy.size(), m.size() - erased);
  CHECK_MAP_OK(copy.native());
  size_t kept = 0;
  for (const auto& e : copy) {
    if (auto k = slate::decode_i64_key(e.key)) {
      CHECK(*k % 2 != 0);
      CHECK(e.value == P(static_cast<uint64_t>(*k) + 7));
    } else {
      CHECK(e.key.size() % 2 == 0);
    }
    kept++;
  }
  CHECK_EQ_U64(kept, copy.size());
  /* erasing everything, the last entry included */
  for (auto it = copy.begin(); it != copy.end();) it = copy.erase(it);
  CHECK(copy.empty());
  CHECK_MAP_OK(copy.native());

  /* a value replace leaves iterators valid */
  auto r = m.begin();
  CHECK(!m.set(std::string(r->key), P(5)));
  ++r;
  CHECK(r != m.end());

#if TEST_HAVE_EXCEPTIONS
  /* stale iterators throw slate::error; the map is unchanged */
  auto stale = m.begin();
  m.set("a new key", P(1));
  CHECK_EQ_INT(slate_error_of([&] { ++stale; }), SLATE_ERROR_INVALID);
  stale = m.begin();
  CHECK(m.erase("a new key"));
  size_t before = m.size();
  CHECK_EQ_INT(slate_error_of([&] { (void)m.erase(stale); }), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(m.size(), before);
  /* a second erase through a copy of an erased iterator */
  auto x = m.begin();
  auto y = x;
  auto z = m.erase(x);
  CHECK_EQ_U64(m.size(), before - 1);
  CHECK_EQ_INT(slate_error_of([&] { (void)m.erase(y); }), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(m.size(), before - 1);
  ++z; /* the returned one goes on */
  /* end(), another map's iterator */
  CHECK_EQ_INT(slate_error_of([&] { (void)m.erase(m.end()); }), SLATE_ERROR_INVALID);
  slate::map other = m.clone();
  CHECK_EQ_INT(slate_error_of([&] { (void)m.erase(other.begin()); }), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(m.size(), before - 1);
  /* inside the map's own walk: iterating works, and an erase through an
     iterator is carried out (the first entry: the one the walk gave first,
     so the walk could go on; the callable stops it) */
  size_t inside = 0;
  int erased_inside = -1;
  m.for_each([&](std::string_view, void*) -> bool {
    for (auto it = m.begin(); it != m.end(); ++it) inside++;
    erased_inside = slate_error_of([&] { (void)m.erase(m.begin()); });
    return false;
  });
  CHECK_EQ_U64(inside, before - 1);
  CHECK_EQ_INT(erased_inside, 0);
  CHECK_EQ_U64(m.size(), before - 2);
  /* a moved map: its old iterators are stale */
  auto moved = m.begin();
  slate::map taken(std::move(m));
  CHECK_EQ_INT(slate_error_of([&] { ++moved; }), SLATE_ERROR_INVALID);
#endif
}

/* ------------------------------------------------------------------------ */
/* map: key overloads and keyspaces                                          */
/* ------------------------------------------------------------------------ */

static void test_map_keys() {
  TEST_SECTION("map key overloads");
  slate::map m;
  void* v = nullptr;

  /* One string entry, reached through every string-like spelling. */
  std::string s = "alpha";
  std::string_view sv = s;
  char buffer[] = "alpha";
  char* cp = buffer;
  const char* ccp = "alpha";
  CHECK(m.set("alpha", P(1)));
  CHECK(!m.set(s, P(2)));
  CHECK(!m.set(sv, P(3)));
  CHECK(!m.set(cp, P(4)));
  CHECK(!m.set(ccp, P(5)));
  CHECK(!m.set(std::string("alpha"), P(6)));
  CHECK(!m.set("alpha"sv, P(7)));
  CHECK_EQ_U64(m.size(), 1);
  CHECK_EQ_U64(U(*m.get(buffer)), 7);
  CHECK_EQ_U64(U(*m.get(s)), 7);
  CHECK(m.contains(ccp));
  CHECK(m.contains(cp));
  CHECK_EQ_INT(slate_get(m.native(), "alpha", &v), SLATE_OK); /* the C string keyspace */
  CHECK_EQ_U64(U(v), 7);

  /* Embedded NULs and the empty key. */
  CHECK(m.set(std::string_view("a\0b", 3), P(10)));
  CHECK(m.set(std::string_view("a", 1), P(11)));
  CHECK(m.set(std::string("a\0c", 3), P(12)));
  CHECK(m.set("", P(13)));
  CHECK_EQ_U64(m.size(), 5);
  CHECK_EQ_U64(U(*m.get(std::string_view("a\0b", 3))), 10);
  CHECK_EQ_U64(U(*m.get("a")), 11); /* "a" stops at the NUL of the literal */
  CHECK_EQ_U64(U(*m.get("a\0c"sv)), 12);
  CHECK_EQ_U64(U(*m.get(std::string())), 13);
  CHECK_EQ_U64(U(*m.get(std::string_view())), 13); /* data() == nullptr, size 0 */
  CHECK(m.erase(std::string_view("a\0b", 3)));
  CHECK(m.contains("a"));
  CHECK(m.erase(""));
  CHECK(!m.contains(std::string_view()));

  /* Signed integers: one int64_t entry whatever the type. */
  slate::map k;
  CHECK(k.set(5, P(1)));
  CHECK(!k.set(5L, P(2)));
  CHECK(!k.set(5LL, P(3)));
  CHECK(!k.set(static_cast<int64_t>(5), P(4)));
  CHECK(!k.set(static_cast<short>(5), P(5)));
  CHECK(!k.set(static_cast<signed char>(5), P(6)));
  const int ci = 5;
  CHECK(!k.set(ci, P(7)));
  CHECK_EQ_U64(k.size(), 1);
  CHECK_EQ_INT(slate_get_i64(k.native(), 5, &v), SLATE_OK);
  CHECK_EQ_U64(U(v), 7);
  CHECK_EQ_INT(slate_get_u64(k.native(), 5, nullptr), SLATE_ERROR_NOT_FOUND);

  /* Unsigned integers: one uint64_t entry, apart from the signed one. */
  CHECK(k.set(5u, P(8)));
  CHECK(!k.set(5ul, P(9)));
  CHECK(!k.set(5ull, P(10)));
  CHECK(!k.set(static_cast<uint64_t>(5), P(11)));
  CHECK(!k.set(static_cast<size_t>(5), P(12)));
  CHECK(!k.set(static_cast<unsigned char>(5), P(13)));
  CHECK(!k.set(static_cast<unsigned short>(5), P(14)));
  CHECK_EQ_U64(k.size(), 2);
  CHECK_EQ_INT(slate_get_u64(k.native(), 5, &v), SLATE_OK);
  CHECK_EQ_U64(U(v), 14);
  CHECK_EQ_U64(U(*k.get(5)), 7);
  CHECK_EQ_U64(U(*k.get(5u)), 14);

  /* Neither meets the string "5" nor its raw bytes. */
  CHECK(k.set("5", P(15)));
  CHECK_EQ_U64(k.size(), 3);
  CHECK_EQ_U64(U(*k.get(5)), 7);

  /* The 10-byte encoding is the same entry (SPEC 3), through string_view. */
  const char enc_i5[10] = {0, 1, 5, 0, 0, 0, 0, 0, 0, 0};
  const char enc_u5[10] = {0, 2, 5, 0, 0, 0, 0, 0, 0, 0};
  CHECK(!k.set(std::string_view(enc_i5, 10), P(16)));
  CHECK_EQ_U64(U(*k.get(5L)), 16);
  CHECK_EQ_U64(U(*k.get(std::string_view(enc_u5, 10))), 14);

  /* 0 is the integer 0, not a null string. */
  CHECK(k.set(0, P(17)));
  CHECK_EQ_INT(slate_get_i64(k.native(), 0, &v), SLATE_OK);
  CHECK_EQ_U64(U(v), 17);

  /* Extremes and negatives, converted by value. */
  CHECK(k.set(-1, P(18)));
  CHECK_EQ_U64(U(*k.get(static_cast<int64_t>(-1))), 18);
  CHECK_EQ_U64(U(*k.get(static_cast<short>(-1))), 18);
  CHECK(!k.contains(static_cast<uint64_t>(-1)));
  CHECK(k.set(std::numeric_limits<int64_t>::min(), P(19)));
  CHECK(k.set(std::numeric_limits<int64_t>::max(), P(20)));
  CHECK(k.set(std::numeric_limits<uint64_t>::max(), P(21)));
  CHECK_EQ_INT(slate_get_i64(k.native(), INT64_MIN, &v), SLATE_OK);
  CHECK_EQ_U64(U(v), 19);
  CHECK_EQ_INT(slate_get_u64(k.native(), UINT64_MAX, &v), SLATE_OK);
  CHECK_EQ_U64(U(v), 21);
  CHECK(!k.contains(std::numeric_limits<int64_t>::max() - 1));

  /* erase and contains for each keyspace */
  CHECK(k.erase(5));
  CHECK(!k.erase(5LL));
  CHECK(k.contains(5u));
  CHECK(k.erase(static_cast<unsigned char>(5)));
  CHECK(!k.contains(5ull));
  CHECK(k.contains("5"));
  CHECK_MAP_OK(k.native());

  /* for_each reports integer keys as their encoding. */
  slate::map e;
  e.set(-42, P(1));
  e.set(42u, P(2));
  e.set("x", P(3));
  int ints = 0, uints = 0, strings = 0;
  e.for_each([&](std::string_view key, void* value) {
    if (auto i = slate::decode_i64_key(key)) {
      ints += (*i == -42 && U(value) == 1);
    } else if (auto u = slate::decode_u64_key(key)) {
      uints += (*u == 42 && U(value) == 2);
    } else {
      strings += (key == "x" && U(value) == 3);
    }
  });
  CHECK_EQ_INT(ints, 1);
  CHECK_EQ_INT(uints, 1);
  CHECK_EQ_INT(strings, 1);
}

/* A string key of 4 GiB + 1 bytes: the wrapper rejects it before the C call
   (set: SLATE_ERROR_FULL; lookups: absent). The bytes are never read, so an
   address-space reservation is enough. */
static void test_map_huge_key() {
  TEST_SECTION("map: key of 4 GiB");
#if defined(__linux__) && UINTPTR_MAX > 0xFFFFFFFFu
  const size_t length = (size_t{1} << 32) + 1;
  void* p = mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    fprintf(stderr, "   (mmap of 4 GiB failed: skipped)\n");
    return;
  }
  std::string_view huge(static_cast<const char*>(p), length);
  slate::map m;
  m.set("x", P(1));
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { m.set(huge, P(2)); }), SLATE_ERROR_FULL);
#endif
  CHECK_EQ_INT(m.try_set(huge, P(2)).code(), SLATE_ERROR_FULL); /* the twin, in every build */
  CHECK(!m.get(huge).has_value());
  CHECK(!m.contains(huge));
  CHECK(!m.erase(huge));
  CHECK_EQ_U64(m.size(), 1);
  CHECK_MAP_OK(m.native());
  munmap(p, length);
#else
  fprintf(stderr, "   (not a 64-bit Linux: skipped)\n");
#endif
}

/* ------------------------------------------------------------------------ */
/* map: move, swap, clone, equality, adopt/release                           */
/* ------------------------------------------------------------------------ */

static std::vector<std::string> order_of(const slate::map& m) {
  std::vector<std::string> out;
  m.for_each([&](std::string_view k, void*) { out.emplace_back(k); });
  return out;
}

static void test_map_move_clone() {
  TEST_SECTION("map move / swap / clone / equality");
  slate::map a;
  for (int i = 0; i < 100; i++) a.set(i, P(static_cast<uintptr_t>(i)));
  a.set("s", P(7));

  /* move construction */
  slate::map b(std::move(a));
  CHECK_EQ_U64(b.size(), 101);
  CHECK_EQ_U64(U(*b.get(99)), 99);
  CHECK(a.empty()); /* NOLINT: moved-from is valid and empty */
  CHECK(!a.contains("s"));
  CHECK_MAP_OK(a.native());
  CHECK_MAP_OK(b.native());
  CHECK(a.set("again", P(1))); /* and usable */
  CHECK_EQ_U64(a.size(), 1);

  /* move assignment frees the target's entries (valgrind watches) */
  slate::map c;
  for (int i = 0; i < 50; i++) c.set("c" + std::to_string(i), P(1));
  c = std::move(b);
  CHECK_EQ_U64(c.size(), 101);
  CHECK(!c.contains("c0"));
  CHECK(b.empty());
  CHECK_MAP_OK(b.native());
  b.set(1, P(1));
  CHECK_EQ_U64(b.size(), 1);

  /* self-move changes nothing */
  self_move(c, c);
  CHECK_EQ_U64(c.size(), 101);
  CHECK_EQ_U64(U(*c.get("s")), 7);
  CHECK_MAP_OK(c.native());

  /* swap, member and ADL */
  c.swap(b);
  CHECK_EQ_U64(b.size(), 101);
  CHECK_EQ_U64(c.size(), 1);
  using std::swap;
  swap(b, c);
  CHECK_EQ_U64(c.size(), 101);
  CHECK_EQ_U64(b.size(), 1);

  /* maps inside a vector survive its reallocations */
  std::vector<slate::map> maps;
  for (int i = 0; i < 40; i++) {
    maps.emplace_back();
    maps.back().set(i, P(static_cast<uintptr_t>(i) + 100));
    maps.back().set("name", P(static_cast<uintptr_t>(i)));
  }
  int bad = 0;
  for (int i = 0; i < 40; i++) {
    auto& m = maps[static_cast<size_t>(i)];
    if (m.size() != 2 || U(*m.get(i)) != static_cast<uintptr_t>(i) + 100 ||
        U(*m.get("name")) != static_cast<uintptr_t>(i))
      bad++;
    if (run_check(m.native()) != SLATE_OK) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  std::reverse(maps.begin(), maps.end()); /* swaps through moves */
  CHECK_EQ_U64(U(*maps[0].get(39)), 139);

  /* clone: equal, same order, independent */
  slate::map d = c.clone();
  CHECK(d == c);
  CHECK(!(d != c));
  CHECK(order_of(d) == order_of(c));
  d.set("only-in-d", P(1));
  CHECK(d != c);
  CHECK(!c.contains("only-in-d"));
  d.erase("only-in-d");
  CHECK(d == c);
  d.set(0, P(12345)); /* same key, other value */
  CHECK(d != c);
  CHECK_EQ_U64(U(*c.get(0)), 0);
  c.clear();
  CHECK_EQ_U64(d.size(), 101);
  CHECK_MAP_OK(d.native());
  slate::map empty1, empty2;
  CHECK(empty1 == empty2);
  slate::map empty3 = empty1.clone();
  CHECK(empty3 == empty1);
  CHECK(empty3.empty());

  /* try_clone: into a non-empty map (its entries are freed), not into itself */
  slate::map target;
  for (int i = 0; i < 30; i++) target.set("t" + std::to_string(i), P(1));
  CHECK(d.try_clone(target).ok());
  CHECK(target == d);
  CHECK(!target.contains("t0"));
  CHECK_EQ_INT(d.try_clone(d).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(d.size(), 101);

  /* adopt / release */
  slate_s raw = d.release();
  CHECK(d.empty());
  CHECK_EQ_U64(slate_length(&raw), 101);
  CHECK_EQ_INT(slate_set(&raw, "from-c", P(5)), SLATE_OK);
  slate::map adopted = slate::map::adopt(raw);
  CHECK_EQ_U64(adopted.size(), 102);
  CHECK_EQ_U64(U(*adopted.get("from-c")), 5);
  CHECK_MAP_OK(adopted.native());
  /* a map built by C code */
  slate_s built;
  slate(&built);
  slate_set_i64(&built, -3, P(3));
  slate::map owner = slate::map::adopt(built);
  CHECK_EQ_U64(U(*owner.get(-3)), 3);

  /* native(): the C API sees the same map, both ways */
  CHECK_EQ_INT(slate_set_u64(owner.native(), 9, P(9)), SLATE_OK);
  CHECK_EQ_U64(U(*owner.get(9u)), 9);
  const slate::map& cowner = owner;
  CHECK_EQ_U64(slate_length(cowner.native()), 2);
  CHECK_EQ_PTR(cowner.native(), owner.native());
}

/* ------------------------------------------------------------------------ */
/* map: for_each and erase_if                                                */
/* ------------------------------------------------------------------------ */

struct counting_visitor {
  int calls = 0;
  void operator()(std::string_view, void*) { calls++; }
};

static int g_fn_calls = 0;
static bool free_function_visitor(std::string_view, void*) {
  g_fn_calls++;
  return true;
}

struct test_exception {
  int value;
};

static void test_map_walks() {
  TEST_SECTION("map for_each / erase_if");
  slate::map m;
  const int n = 1000;
  uintptr_t expected_sum = 0;
  for (int i = 1; i <= n; i++) {
    m.set("k" + std::to_string(i), P(static_cast<uintptr_t>(i)));
    expected_sum += static_cast<uintptr_t>(i);
  }

  /* void callable: every entry, once */
  uintptr_t sum = 0;
  std::set<std::string> seen;
  bool complete = m.for_each([&](std::string_view key, void* value) {
    sum += U(value);
    seen.emplace(key);
  });
  CHECK(complete);
  CHECK_EQ_U64(sum, expected_sum);
  CHECK_EQ_U64(seen.size(), n);
  CHECK(seen.count("k1") == 1 && seen.count("k1000") == 1);

  /* bool callable: false stops */
  int calls = 0;
  complete = m.for_each([&](std::string_view, void*) { return ++calls < 10; });
  CHECK(!complete);
  CHECK_EQ_INT(calls, 10);
  calls = 0;
  complete = m.for_each([&](std::string_view, void*) {
    calls++;
    return true;
  });
  CHECK(complete);
  CHECK_EQ_INT(calls, n);
  /* non-bool but bool-convertible return (int: non-zero goes on) */
  calls = 0;
  complete = m.for_each([&](std::string_view, void*) -> int { return ++calls < 3 ? 7 : 0; });
  CHECK(!complete);
  CHECK_EQ_INT(calls, 3);

  /* function objects by lvalue keep their state; function pointers work */
  counting_visitor counter;
  m.for_each(counter);
  CHECK_EQ_INT(counter.calls, n);
  g_fn_calls = 0;
  CHECK(m.for_each(free_function_visitor));
  CHECK_EQ_INT(g_fn_calls, n);
  CHECK(m.for_each(&free_function_visitor));
  CHECK_EQ_INT(g_fn_calls, 2 * n);
  const counting_visitor const_counter{};
  (void)const_counter;
  std::function<void(std::string_view, void*)> fn = [&](std::string_view, void*) { calls++; };
  calls = 0;
  m.for_each(fn);
  CHECK_EQ_INT(calls, n);

  /* empty map: no call */
  slate::map none;
  calls = 0;
  CHECK(none.for_each([&](std::string_view, void*) { calls++; }));
  CHECK_EQ_INT(calls, 0);

  /* reads of the same map inside the walk, writes to another map */
  slate::map merged;
  int inner_ok = 0;
  m.for_each([&](std::string_view key, void* value) {
    inner_ok += m.contains(key) && m.get(key) == std::optional<void*>(value) && m.size() == n;
    merged.set(key, value);
  });
  CHECK_EQ_INT(inner_ok, n);
  CHECK(merged == m);
  /* nested walk of the same map */
  long pairs = 0;
  slate::map small;
  for (int i = 0; i < 20; i++) small.set(i, nullptr);
  small.for_each([&](std::string_view, void*) {
    small.for_each([&](std::string_view, void*) { pairs++; });
  });
  CHECK_EQ_INT(pairs, 400);
  /* clone and compare from inside the walk */
  small.for_each([&](std::string_view, void*) {
    slate::map copy = small.clone();
    CHECK(copy == small);
    return false;
  });

  /* modifying the walked map from inside (SPEC 3c): the change is carried
     out, the walk stops at once, and for_each throws slate::error(INVALID);
     each change on a copy of m, which stays as it is */
#if TEST_HAVE_EXCEPTIONS
  {
    slate::map c = m.clone();
    calls = 0;
    int code = slate_error_of([&] {
      c.for_each([&](std::string_view, void*) {
        calls++;
        c.set("intruder", nullptr);
      });
    });
    CHECK_EQ_INT(code, SLATE_ERROR_INVALID);
    CHECK_EQ_INT(calls, 1);
    CHECK(c.contains("intruder"));
    CHECK_EQ_U64(c.size(), n + 1);
    CHECK_MAP_OK(c.native());
  }
  const std::pair<const char*, std::function<void(slate::map&)>> intruders[] = {
      {"erase", [](slate::map& c) { c.erase("k1"); }},
      {"clear", [](slate::map& c) { c.clear(); }},
      {"reserve", [](slate::map& c) { c.reserve(100000); }},
      {"compact", [](slate::map& c) { c.compact(); }},
      {"erase_if", [](slate::map& c) { c.erase_if([](std::string_view, void*) { return true; }); }},
  };
  const size_t sizes_after[] = {n - 1, 0, n, n, 0};
  for (size_t i = 0; i < sizeof intruders / sizeof intruders[0]; i++) {
    slate::map c = m.clone();
    calls = 0;
    int code = slate_error_of([&] {
      c.for_each([&](std::string_view key, void*) {
        calls++;
        if (key == "k1" && i == 0) return true; /* erasing the given key would go on */
        intruders[i].second(c);
        return true;
      });
    });
    CHECK_MSG(code == SLATE_ERROR_INVALID, intruders[i].first);
    CHECK_MSG(calls == 1 || (i == 0 && calls == 2), intruders[i].first);
    CHECK_MSG(c.size() == sizes_after[i], intruders[i].first);
    CHECK_MAP_OK(c.native());
  }
#else
  /* (the throwing modifiers would abort: their try_ twins, each in a walk
     that its callable stops at the same call, so that for_each returns
     false instead of throwing) */
  const std::pair<const char*, std::function<slate::status(slate::map&)>> intruders[] = {
      {"try_set", [](slate::map& c) { return c.try_set("intruder", nullptr); }},
      {"try_reserve", [](slate::map& c) { return c.try_reserve(100000); }},
      {"try_compact", [](slate::map& c) { return c.try_compact(); }},
  };
  for (const auto& intruder : intruders) {
    slate::map c = m.clone();
    calls = 0;
    slate::status done;
    const bool complete = c.for_each([&](std::string_view, void*) {
      calls++;
      done = intruder.second(c);
      return false;
    });
    CHECK_MSG(!complete && calls == 1, intruder.first);
    CHECK_MSG(done.ok(), intruder.first);
    CHECK_MAP_OK(c.native());
  }
#endif
  CHECK_EQ_U64(m.size(), n);
  CHECK(!m.contains("intruder"));
  CHECK_MAP_OK(m.native());
  /* erasing the key it was given, or setting a value, lets the walk go on */
  {
    slate::map c = m.clone();
    calls = 0;
    CHECK(c.for_each([&](std::string_view key, void* value) {
      calls++;
      c.set(key, value);
      c.erase(key);
    }));
    CHECK_EQ_INT(calls, n);
    CHECK(c.empty());
    CHECK_MAP_OK(c.native());
  }
  /* a try_ write inside: carried out, reported as done; the callable
     stops the walk with it */
  {
    slate::map c = m.clone();
    slate::status inner;
    CHECK(!c.for_each([&](std::string_view, void*) {
      inner = c.try_set("intruder", nullptr);
      return false;
    }));
    CHECK(inner.ok());
    CHECK(c.contains("intruder"));
    CHECK_MAP_OK(c.native());
  }

#if TEST_HAVE_EXCEPTIONS
  /* a throwing callable: the exception comes out unchanged, after one call */
  calls = 0;
  bool caught = false;
  try {
    m.for_each([&](std::string_view, void*) {
      if (++calls == 5) throw std::runtime_error("boom");
    });
  } catch (const std::runtime_error& e) {
    caught = std::strcmp(e.what(), "boom") == 0;
  }
  CHECK(caught);
  CHECK_EQ_INT(calls, 5);
  CHECK_EQ_U64(m.size(), n);
  CHECK_MAP_OK(m.native());
  /* any type, not only std::exception */
  int thrown = 0;
  try {
    m.for_each([](std::string_view, void*) -> bool { throw test_exception{77}; });
  } catch (const test_exception& e) {
    thrown = e.value;
  }
  CHECK_EQ_INT(thrown, 77);
  /* bad_alloc from the callable stays bad_alloc */
  CHECK(throws_as<std::bad_alloc>([&] {
    m.for_each([](std::string_view, void*) { throw std::bad_alloc(); });
  }));
  /* nested: the inner walk's exception crosses two C frames safely */
  CHECK(throws_as<std::logic_error>([&] {
    small.for_each([&](std::string_view, void*) {
      small.for_each([](std::string_view, void*) { throw std::logic_error("inner"); });
    });
  }));
  CHECK_MAP_OK(small.native());
#endif
  /* the map works after all that */
  CHECK(m.set("after", P(1)));
  CHECK(m.erase("after"));

  /* erase_if: returns the count, keeps the rest */
  slate::map e;
  for (int i = 0; i < 1000; i++) e.set(i, P(static_cast<uintptr_t>(i)));
  size_t erased = e.erase_if([](std::string_view, void* v) { return U(v) % 3 == 0; });
  CHECK_EQ_U64(erased, 334);
  CHECK_EQ_U64(e.size(), 666);
  int bad = 0;
  for (int i = 0; i < 1000; i++) {
    if (e.contains(i) != (i % 3 != 0)) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_MAP_OK(e.native());
  CHECK_EQ_U64(e.erase_if([](std::string_view, void*) { return false; }), 0);
  CHECK_EQ_U64(e.size(), 666);
  /* int-returning predicate */
  CHECK_EQ_U64(e.erase_if([](std::string_view k, void*) -> int {
    return slate::decode_i64_key(k).value_or(0) == 1;
  }),
               1);
  CHECK_EQ_U64(e.size(), 665);

  /* erase_if with a throwing predicate: it is not called again, the entries
     it approved before are gone, the others stay */
  slate::map t;
  for (int i = 0; i < 500; i++) t.set(i, P(static_cast<uintptr_t>(i)));
#if TEST_HAVE_EXCEPTIONS
  calls = 0;
  int approved = 0;
  std::set<int64_t> approved_keys;
  caught = false;
  try {
    t.erase_if([&](std::string_view k, void*) {
      if (++calls == 100) throw std::runtime_error("stop");
      if (calls % 2 == 0) {
        approved++;
        approved_keys.insert(*slate::decode_i64_key(k));
        return true;
      }
      return false;
    });
  } catch (const std::runtime_error&) {
    caught = true;
  }
  CHECK(caught);
  CHECK_EQ_INT(calls, 100);
  CHECK_EQ_U64(t.size(), static_cast<size_t>(500 - approved));
  bad = 0;
  for (int i = 0; i < 500; i++) {
    if (t.contains(i) == (approved_keys.count(i) == 1)) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_MAP_OK(t.native());

  /* a predicate that adds a key: the key is added, the walk stops, and
     erase_if throws slate::error(INVALID); the answer that came with the
     change is not applied */
  int code = slate_error_of([&] {
    t.erase_if([&](std::string_view, void*) {
      t.set("x", nullptr);
      return true;
    });
  });
  CHECK_EQ_INT(code, SLATE_ERROR_INVALID);
  CHECK(t.contains("x"));
  CHECK_EQ_U64(t.size(), static_cast<size_t>(500 - approved + 1)); /* nothing approved */
  CHECK(t.erase("x"));
  CHECK_MAP_OK(t.native());
#else
  /* (a predicate cannot throw here) a predicate that sets its own entry to
     the value it holds changes nothing: the walk goes on, nothing erased */
  calls = 0;
  int kept = 0;
  size_t none_erased = t.erase_if([&](std::string_view k, void* v) {
    calls++;
    kept += t.try_set(k, v).ok();
    return false;
  });
  CHECK_EQ_U64(none_erased, 0);
  CHECK_EQ_INT(calls, 500);
  CHECK_EQ_INT(kept, 500);
  CHECK_EQ_U64(t.size(), 500);
  CHECK_MAP_OK(t.native());
#endif
  /* a predicate that erases its own key and approves it: each goes once */
  {
    slate::map u = t.clone();
    const size_t was = u.size();
    calls = 0;
    size_t gone = u.erase_if([&](std::string_view k, void*) {
      calls++;
      return u.erase(k);
    });
    CHECK_EQ_U64(gone, was);
    CHECK_EQ_U64(static_cast<size_t>(calls), was);
    CHECK(u.empty());
    CHECK_MAP_OK(u.native());
  }
}

/* ------------------------------------------------------------------------ */
/* map: allocation failures -> std::bad_alloc                                */
/* ------------------------------------------------------------------------ */

static void test_map_alloc_failure() {
  TEST_SECTION("map: allocation failure");
  use_test_allocator();
  slate::map m;
  use_default_allocator();

  g_alloc_fail = true;
#if TEST_HAVE_EXCEPTIONS
  CHECK(throws_as<std::bad_alloc>([&] { m.set("a", P(1)); }));
#endif
  CHECK_EQ_INT(m.try_set("a", P(1)).code(), SLATE_ERROR_ALLOC);
  CHECK(m.empty());
  g_alloc_fail = false;
  for (int i = 0; i < 200; i++) m.set(i, P(1));
  CHECK_EQ_U64(m.size(), 200);
  for (int i = 0; i < 150; i++) m.erase(i);
  g_alloc_fail = true;
#if TEST_HAVE_EXCEPTIONS
  CHECK(throws_as<std::bad_alloc>([&] { m.compact(); }));
#endif
  CHECK_EQ_INT(m.try_compact().code(), SLATE_ERROR_ALLOC);
#if TEST_HAVE_EXCEPTIONS
  CHECK(throws_as<std::bad_alloc>([&] { m.reserve(100000); }));
#else
  {
    const slate_info_s was = info_of(m.native());
    CHECK_EQ_INT(m.try_reserve(100000).code(), SLATE_ERROR_ALLOC);
    const slate_info_s now = info_of(m.native());
    CHECK_EQ_U64(now.capacity, was.capacity);
    CHECK_EQ_U64(now.memory, was.memory);
  }
#endif
  CHECK_EQ_U64(m.size(), 50);
  CHECK_MAP_OK(m.native());
  g_alloc_fail = false;

  /* clone takes the allocator in force at the call */
  use_test_allocator();
  g_alloc_fail = true;
  slate::map target;
#if TEST_HAVE_EXCEPTIONS
  CHECK(throws_as<std::bad_alloc>([&] { target.set("old", P(1)); }));
  bool threw = throws_as<std::bad_alloc>([&] { slate::map c = m.clone(); });
#else
  slate::status set_st = target.try_set("old", P(1));
#endif
  slate::status st = m.try_clone(target);
  g_alloc_fail = false;
  use_default_allocator();
#if TEST_HAVE_EXCEPTIONS
  CHECK(threw);
#else
  CHECK_EQ_INT(set_st.code(), SLATE_ERROR_ALLOC);
#endif
  CHECK_EQ_INT(st.code(), SLATE_ERROR_ALLOC);
  CHECK(target.empty());
  CHECK_EQ_U64(m.size(), 50);
  CHECK_MAP_OK(m.native());
  CHECK_MAP_OK(target.native());
}

static void test_map_set_outcome_throw() {
  /* In a map created with a failing allocator, set() throws before any
     change; tested separately so that an unexpected success is visible. */
  use_test_allocator();
  slate::map m;
  use_default_allocator();
  g_alloc_fail = true;
#if TEST_HAVE_EXCEPTIONS
  int code = slate_error_of([&] { m.set(std::string(100, 'x'), P(1)); });
  g_alloc_fail = false;
  CHECK_EQ_INT(code, -100);
#else
  /* set's twin reports the failure as a status */
  slate::status st = m.try_set(std::string(100, 'x'), P(1));
  g_alloc_fail = false;
  CHECK_EQ_INT(st.code(), SLATE_ERROR_ALLOC);
  CHECK(!m.contains(std::string(100, 'x')));
#endif
  CHECK(m.empty());
}

/* ------------------------------------------------------------------------ */
/* key                                                                       */
/* ------------------------------------------------------------------------ */

static void test_key() {
  TEST_SECTION("key");
  slate::key null;
  CHECK(!null);
  CHECK_EQ_U64(null.raw(), 0);
  CHECK(null == slate::key(0));
  slate::key a(0x0000000300000002ULL), b(0x0000000400000002ULL), c(0x0000000300000002ULL);
  CHECK(static_cast<bool>(a));
  CHECK_EQ_U64(a.raw(), 0x0000000300000002ULL);
  CHECK_EQ_U64(a.index(), 2);
  CHECK_EQ_U64(a.generation(), 3);
  CHECK(a == c);
  CHECK(a != b);
  CHECK(!(a != c));
  CHECK(a < b && !(b < a));
  CHECK(b > a && a <= c && a >= c && a <= b && b >= a);
  std::hash<slate::key> h;
  CHECK_EQ_U64(h(a), h(c));
  CHECK(h(a) != h(b));
  /* keys as values of std:: containers */
  std::set<slate::key> ordered{b, a, c, null};
  CHECK_EQ_U64(ordered.size(), 3);
  CHECK(*ordered.begin() == null);
  std::unordered_set<slate::key> hashed;
  for (uint64_t i = 1; i <= 1000; i++) hashed.insert(slate::key((i << 32) | (i % 7)));
  CHECK_EQ_U64(hashed.size(), 1000);
  CHECK(hashed.count(slate::key((5ULL << 32) | 5)) == 1);
  CHECK(hashed.count(slate::key((5ULL << 32) | 6)) == 0);
}

/* ------------------------------------------------------------------------ */
/* slotmap<T>: basics                                                        */
/* ------------------------------------------------------------------------ */

struct particle {
  float x, y;
  int32_t id;
  uint32_t flags;
};
static_assert(std::is_trivially_copyable_v<particle>);

struct alignas(16) vec4 {
  float v[4];
};

struct odd_size {
  char c[7];
};

static void test_slotmap_basics() {
  TEST_SECTION("slotmap basics");
  slate::slotmap<particle> s;
  CHECK(s.empty());
  CHECK_EQ_U64(s.size(), 0);
  CHECK(s.begin() == s.end());
  CHECK(s.find(slate::key()) == nullptr);
  CHECK(!s.contains(slate::key()));
  CHECK(!s.erase(slate::key()));
  CHECK(!s.key_at(0));
  CHECK(!s.row_of(slate::key()).has_value());

  slate::key k1 = s.insert({1.0f, 2.0f, 1, 0});
  slate::key k2 = s.insert(particle{3.0f, 4.0f, 2, 0});
  particle p3{5.0f, 6.0f, 3, 0};
  slate::key k3 = s.insert(p3);
  CHECK(k1 && k2 && k3);
  CHECK(k1 != k2 && k2 != k3 && k1 != k3);
  CHECK_EQ_U64(s.size(), 3);
  CHECK(!s.empty());
  CHECK(s.contains(k1) && s.contains(k2) && s.contains(k3));

  /* find / operator[] / at, const and not */
  CHECK(s.find(k2) != nullptr);
  CHECK_EQ_INT(s.find(k2)->id, 2);
  CHECK(s[k3].x == 5.0f);
  s[k3].x = 50.0f;
  CHECK(s.find(k3)->x == 50.0f);
  s.at(k1).y = 20.0f;
  CHECK(s[k1].y == 20.0f);
  const auto& cs = s;
  CHECK_EQ_INT(cs[k1].id, 1);
  CHECK_EQ_INT(cs.at(k2).id, 2);
  CHECK_EQ_INT(cs.find(k3)->id, 3);
  static_assert(std::is_same_v<decltype(cs.find(k3)), const particle*>);
  static_assert(std::is_same_v<decltype(cs[k3]), const particle&>);
  static_assert(std::is_same_v<decltype(s[k3]), particle&>);

  /* rows, keys, data */
  CHECK(s.data() == s.begin());
  CHECK(cs.data() == cs.begin());
  CHECK(cs.cbegin() == cs.begin() && cs.cend() == cs.end());
  CHECK_EQ_INT(s.end() - s.begin(), 3);
  int bad = 0;
  for (size_t r = 0; r < s.size(); r++) {
    slate::key k = s.key_at(r);
    if (!k || s.find(k) != s.data() + r || s.row_of(k) != std::optional<size_t>(r)) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(!s.key_at(3));
  CHECK(!s.key_at(std::numeric_limits<size_t>::max()));
  CHECK(reinterpret_cast<uintptr_t>(s.data()) % 16 == 0);

  /* erase: swap-and-pop, others stay valid, the key goes stale */
  CHECK(s.erase(k1));
  CHECK(!s.erase(k1));
  CHECK(!s.contains(k1));
  CHECK(s.find(k1) == nullptr);
  CHECK(!s.row_of(k1).has_value());
#if TEST_HAVE_EXCEPTIONS /* (at() has no try_ twin: find() is checked above) */
  CHECK(throws_as<std::out_of_range>([&] { (void)s.at(k1); }));
  CHECK(throws_as<std::out_of_range>([&] { (void)cs.at(k1); }));
  CHECK(throws_as<std::out_of_range>([&] { (void)s.at(slate::key()); }));
#endif
  CHECK_EQ_U64(s.size(), 2);
  CHECK_EQ_INT(s[k2].id, 2);
  CHECK(s[k3].x == 50.0f);
  CHECK(s.key_at(0) == k3); /* the last row moved into row 0 */

  /* the freed slot is reused, with a new generation; k1 stays stale */
  slate::key k4 = s.insert({7, 8, 4, 0});
  CHECK_EQ_U64(k4.index(), k1.index());
  CHECK(k4.generation() != k1.generation());
  CHECK(k4 != k1);
  CHECK(!s.contains(k1));
  CHECK(s.find(k1) == nullptr);
  CHECK_EQ_INT(s[k4].id, 4);
  /* churn on one slot: every old key stays stale */
  std::vector<slate::key> old;
  for (int i = 0; i < 100; i++) {
    slate::key k = s.insert({0, 0, 100 + i, 0});
    old.push_back(k);
    s.erase(k);
  }
  bad = 0;
  for (slate::key k : old) bad += s.contains(k) || s.find(k) != nullptr;
  CHECK_EQ_INT(bad, 0);
  std::unordered_set<slate::key> distinct(old.begin(), old.end());
  CHECK_EQ_U64(distinct.size(), 100);

  /* forged and foreign keys */
  CHECK(!s.contains(slate::key(k2.raw() + (1ULL << 32))));
  CHECK(!s.contains(slate::key(0xFFFFFFFFFFFFFFFFULL)));
  slate::slotmap<particle> other;
  slate::key foreign = other.insert({});
  CHECK(other.contains(foreign));
  CHECK(!s.contains(foreign) || foreign == k2 || foreign == k3 || foreign == k4);

  /* try_insert */
  slate::key k5;
  CHECK(s.try_insert({9, 9, 5, 0}, k5).ok());
  CHECK(k5 && s.contains(k5));
  CHECK_EQ_INT(s[k5].id, 5);

  /* clear: every key stale, usable after */
  std::vector<slate::key> live{k2, k3, k4, k5};
  s.clear();
  CHECK(s.empty());
  CHECK(s.begin() == s.end());
  bad = 0;
  for (slate::key k : live) bad += s.contains(k);
  CHECK_EQ_INT(bad, 0);
  slate::key k6 = s.insert({1, 1, 6, 0});
  CHECK_EQ_INT(s[k6].id, 6);
  for (slate::key k : live) bad += s.contains(k);
  CHECK_EQ_INT(bad, 0);

  /* other element types: 16-byte aligned, odd sizes, scalars */
  slate::slotmap<vec4> v;
  for (int i = 0; i < 33; i++) v.insert(vec4{{static_cast<float>(i), 0, 0, 0}});
  CHECK(reinterpret_cast<uintptr_t>(v.data()) % 16 == 0);
  float fsum = 0;
  for (const vec4& e : v) fsum += e.v[0];
  CHECK(fsum == 528.0f);
  slate::slotmap<odd_size> o;
  std::vector<slate::key> ok;
  for (int i = 0; i < 50; i++) {
    odd_size e{};
    std::snprintf(e.c, sizeof e.c, "r%02u", static_cast<unsigned>(i) % 100u);
    ok.push_back(o.insert(e));
  }
  bad = 0;
  for (int i = 0; i < 50; i++) {
    char want[7];
    std::snprintf(want, sizeof want, "r%02u", static_cast<unsigned>(i) % 100u);
    if (std::strcmp(o[ok[static_cast<size_t>(i)]].c, want) != 0) bad++;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(o.end() - o.begin(), 50);
  slate::slotmap<uint8_t> bytes;
  slate::key bk = bytes.insert(200);
  CHECK_EQ_INT(bytes[bk], 200);

  /* native(): the C API sees a one-column slotmap of sizeof(T) */
  slate::slotmap<int64_t> n;
  int64_t row = -77;
  slotmap_key ck = 0;
  CHECK_EQ_INT(slotmap_insert(n.native(), &row, &ck), SLATE_OK);
  CHECK_EQ_INT(n[slate::key(ck)], -77);
  slate::key nk = n.insert(5);
  void* element = nullptr;
  CHECK_EQ_INT(slotmap_get(n.native(), nk.raw(), &element), SLATE_OK);
  CHECK_EQ_INT(*static_cast<int64_t*>(element), 5);
  const auto& cn = n;
  CHECK_EQ_U64(slotmap_length(cn.native()), 2);
  CHECK(cn.native() == n.native());
}

/* operator[] with a stale key calls std::abort (checked in a child). */
static void test_slotmap_precondition() {
  TEST_SECTION("slotmap operator[] precondition");
#if defined(__linux__)
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    slate::slotmap<int> s;
    slate::key k = s.insert(1);
    s.erase(k);
    int value = s[k]; /* aborts */
    _exit(value == 12345 ? 3 : 2);
  }
  int status = 0;
  CHECK(pid > 0);
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
#else
  fprintf(stderr, "   (no fork: skipped)\n");
#endif
}

/* ------------------------------------------------------------------------ */
/* slotmap<T>: range-for, for_each, erase_if, sort                           */
/* ------------------------------------------------------------------------ */

static void test_slotmap_walks() {
  TEST_SECTION("slotmap range-for / for_each / erase_if / sort");
  slate::slotmap<int> s;
  std::unordered_map<slate::key, int> model;
  long expected = 0;
  for (int i = 1; i <= 1000; i++) {
    int value = (i * 7919) % 1000 + 1;
    model[s.insert(value)] = value;
    expected += value;
  }

  /* range-for sums */
  long sum = 0;
  for (int v : s) sum += v;
  CHECK_EQ_INT(sum, expected);
  const auto& cs = s;
  sum = 0;
  for (const int& v : cs) sum += v;
  CHECK_EQ_INT(sum, expected);
  for (int& v : s) v *= 2; /* write through */
  sum = 0;
  for (int v : s) sum += v;
  CHECK_EQ_INT(sum, 2 * expected);
  for (int& v : s) v /= 2;
  CHECK(std::equal(s.begin(), s.end(), cs.begin()));
  CHECK(std::is_permutation(s.begin(), s.end(), cs.begin()));

  /* for_each: dense order, keys, stop, const */
  size_t row = 0;
  int bad = 0;
  bool complete = s.for_each([&](slate::key k, int& v) {
    if (s.key_at(row) != k || &v != s.data() + row || model.at(k) != v) bad++;
    row++;
  });
  CHECK(complete);
  CHECK_EQ_U64(row, 1000);
  CHECK_EQ_INT(bad, 0);
  int calls = 0;
  complete = cs.for_each([&](slate::key, const int&) { return ++calls < 10; });
  CHECK(!complete);
  CHECK_EQ_INT(calls, 10);
  s.for_each([](slate::key, int& v) { v += 1; }); /* modify elements in place */
  bad = 0;
  for (const auto& [k, v] : model) bad += s[k] != v + 1;
  CHECK_EQ_INT(bad, 0);
  s.for_each([](slate::key, int& v) { v -= 1; });
  slate::slotmap<int> none;
  CHECK(none.for_each([&](slate::key, int&) { calls = -1; }));
  CHECK(calls != -1);

  /* a change inside for_each (SPEC 3c), each on a copy of s: carried out,
     the walk stops, and for_each throws slate::error(INVALID) */
  using change_f = std::function<void(slate::slotmap<int>&, slate::key)>;
  const std::pair<const char*, change_f> changes[] = {
      {"insert", [](slate::slotmap<int>& c, slate::key) { c.insert(1); }},
      {"erase another",
       [](slate::slotmap<int>& c, slate::key k) { c.erase(c.key_at(0) == k ? c.key_at(1) : c.key_at(0)); }},
      {"clear", [](slate::slotmap<int>& c, slate::key) { c.clear(); }},
      {"sort", [](slate::slotmap<int>& c, slate::key) { c.sort(); }},
      {"reserve", [](slate::slotmap<int>& c, slate::key) { c.reserve(5000); }},
      {"erase_if",
       [](slate::slotmap<int>& c, slate::key) { c.erase_if([](slate::key, int&) { return true; }); }},
  };
  const size_t sizes_after[] = {1001, 999, 0, 1000, 1000, 0};
  for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
    slate::slotmap<int> c = s.clone();
    calls = 0;
#if TEST_HAVE_EXCEPTIONS
    int code = slate_error_of([&] {
      c.for_each([&](slate::key k, int&) {
        calls++;
        changes[i].second(c, k);
      });
    });
    CHECK_MSG(code == SLATE_ERROR_INVALID, changes[i].first);
#else
    /* (without exceptions the callable stops the walk with its change, so
       that for_each returns false instead of throwing) */
    CHECK(!c.for_each([&](slate::key k, int&) {
      calls++;
      changes[i].second(c, k);
      return false;
    }));
#endif
    CHECK_MSG(calls == 1, changes[i].first);
    CHECK_MSG(c.size() == sizes_after[i], changes[i].first);
  }
  {
    /* a sort inside the walk sorts */
    slate::slotmap<int> c = s.clone();
    slate::status sorted;
    CHECK(!c.for_each([&](slate::key, int&) {
      sorted = c.try_sort();
      return false;
    }));
    CHECK(sorted.ok());
    CHECK(std::is_sorted(c.begin(), c.end()));
  }
  {
    /* erasing the key it was given, and a limit, let the walk go on */
    slate::slotmap<int> c = s.clone();
    calls = 0;
    CHECK(c.for_each([&](slate::key k, int&) {
      calls++;
      c.limit(5000);
      c.erase(k);
    }));
    CHECK_EQ_INT(calls, 1000);
    CHECK(c.empty());
  }
  {
    /* a try_insert inside: carried out */
    slate::slotmap<int> c = s.clone();
    slate::status inner;
    slate::key added;
    CHECK(!c.for_each([&](slate::key, int&) {
      inner = c.try_insert(1, added);
      return false;
    }));
    CHECK(inner.ok());
    CHECK(c.contains(added));
    CHECK_EQ_U64(c.size(), 1001);
  }
  CHECK_EQ_U64(s.size(), 1000);
  /* reads inside are fine */
  bad = 0;
  s.for_each([&](slate::key k, int& v) { bad += !s.contains(k) || s.find(k) != &v; });
  CHECK_EQ_INT(bad, 0);

#if TEST_HAVE_EXCEPTIONS
  /* a throwing for_each callable */
  calls = 0;
  bool caught = false;
  try {
    s.for_each([&](slate::key, int&) {
      if (++calls == 3) throw std::runtime_error("walk");
    });
  } catch (const std::runtime_error& e) {
    caught = std::string(e.what()) == "walk";
  }
  CHECK(caught);
  CHECK_EQ_INT(calls, 3);
  CHECK_EQ_U64(s.size(), 1000);
#endif

  /* erase_if */
  size_t erased = s.erase_if([](slate::key, int& v) { return v % 2 == 1; });
  size_t odd = 0;
  for (auto it = model.begin(); it != model.end();) {
    if (it->second % 2 == 1) {
      odd++;
      CHECK_MSG(!s.contains(it->first), "odd element erased");
      it = model.erase(it);
    } else {
      ++it;
    }
  }
  CHECK_EQ_U64(erased, odd);
  CHECK_EQ_U64(s.size(), model.size());
  bad = 0;
  for (const auto& [k, v] : model) bad += s.find(k) == nullptr || *s.find(k) != v;
  CHECK_EQ_INT(bad, 0);
  /* erased as the walk goes, by swap-and-pop: an erased row is refilled
     by the last, which is asked next */
  std::vector<int> before(s.begin(), s.end());
  erased = s.erase_if([](slate::key, int& v) { return v % 4 == 0; });
  std::vector<int> expect_after(before);
  for (size_t r = 0; r < expect_after.size();) {
    if (expect_after[r] % 4 == 0) {
      expect_after[r] = expect_after.back();
      expect_after.pop_back();
    } else {
      r++;
    }
  }
  CHECK(std::vector<int>(s.begin(), s.end()) == expect_after);
  CHECK_EQ_U64(erased, before.size() - expect_after.size());
  for (auto it = model.begin(); it != model.end();) it = it->second % 4 == 0 ? model.erase(it) : std::next(it);
  CHECK_EQ_U64(s.erase_if([](slate::key, int&) { return false; }), 0);

#if TEST_HAVE_EXCEPTIONS
  /* erase_if with a throwing predicate */
  calls = 0;
  std::vector<slate::key> approved;
  caught = false;
  try {
    s.erase_if([&](slate::key k, int&) {
      if (++calls == 40) throw test_exception{40};
      if (calls % 3 == 0) {
        approved.push_back(k);
        return true;
      }
      return false;
    });
  } catch (const test_exception& e) {
    caught = e.value == 40;
  }
  CHECK(caught);
  CHECK_EQ_INT(calls, 40);
  CHECK_EQ_U64(approved.size(), 13);
  for (slate::key k : approved) model.erase(k);
  CHECK_EQ_U64(s.size(), model.size());
  bad = 0;
  for (slate::key k : approved) bad += s.contains(k);
  for (const auto& [k, v] : model) bad += s.find(k) == nullptr || *s.find(k) != v;
  CHECK_EQ_INT(bad, 0);
  /* a predicate that inserts: carried out, the walk stops, erase_if
     throws; the answer that came with it is not applied */
  {
    slate::slotmap<int> c = s.clone();
    int code = slate_error_of([&] {
      c.erase_if([&](slate::key, int&) {
        c.insert(5);
        return true;
      });
    });
    CHECK_EQ_INT(code, SLATE_ERROR_INVALID);
    CHECK_EQ_U64(c.size(), model.size() + 1);
  }
#else
  /* (a predicate cannot throw here) a predicate that inserts stops the walk
     with its change; erase_if would throw: here only try_ calls, and the
     predicate writes each element through its reference, no change */
  {
    calls = 0;
    const size_t none_erased = s.erase_if([&](slate::key, int& v) {
      calls++;
      v = v + 0;
      return false;
    });
    CHECK_EQ_U64(none_erased, 0);
    CHECK_EQ_U64(static_cast<size_t>(calls), model.size());
    CHECK_EQ_U64(s.size(), model.size());
    bad = 0;
    for (const auto& [k, v] : model) bad += s.find(k) == nullptr || *s.find(k) != v;
    CHECK_EQ_INT(bad, 0);
  }
#endif
  {
    /* a predicate that erases its own key and approves it: each goes once */
    slate::slotmap<int> c = s.clone();
    calls = 0;
    const size_t gone = c.erase_if([&](slate::key k, int&) {
      calls++;
      return c.erase(k);
    });
    CHECK_EQ_U64(gone, model.size());
    CHECK_EQ_U64(static_cast<size_t>(calls), model.size());
    CHECK(c.empty());
  }

  /* sort: default (std::less<>), custom, stateful; keys stay valid */
  s.sort();
  CHECK(std::is_sorted(s.begin(), s.end()));
  bad = 0;
  for (const auto& [k, v] : model) bad += s.find(k) == nullptr || *s.find(k) != v;
  for (size_t r = 0; r < s.size(); r++) bad += s.row_of(s.key_at(r)) != std::optional<size_t>(r);
  CHECK_EQ_INT(bad, 0);
  long comparisons = 0;
  s.sort([&](const int& a, const int& b) {
    comparisons++;
    return a > b;
  });
  CHECK(std::is_sorted(s.begin(), s.end(), std::greater<int>()));
  CHECK(comparisons > 0);
  for (const auto& [k, v] : model) bad += *s.find(k) != v;
  CHECK_EQ_INT(bad, 0);
  CHECK(s.try_sort(std::less<int>()).ok());
  CHECK(std::is_sorted(s.begin(), s.end()));
  CHECK(s.try_sort().ok());

#if TEST_HAVE_EXCEPTIONS
  /* a throwing comparator: the exception comes out, every key still valid */
  long compares = 0;
  caught = false;
  try {
    s.sort([&](const int& a, const int& b) {
      if (++compares == 50) throw std::range_error("cmp");
      return a > b;
    });
  } catch (const std::range_error&) {
    caught = true;
  }
  CHECK(caught);
  CHECK_EQ_INT(compares, 50); /* never called again after the throw */
  CHECK_EQ_U64(s.size(), model.size());
  bad = 0;
  for (const auto& [k, v] : model) bad += s.find(k) == nullptr || *s.find(k) != v;
  for (size_t r = 0; r < s.size(); r++) bad += s.row_of(s.key_at(r)) != std::optional<size_t>(r);
  CHECK_EQ_INT(bad, 0);
  /* a comparator that inserts: carried out, the sort stops, applies no
     order, and throws */
  {
    slate::slotmap<int> c = s.clone();
    const std::vector<int> rows(c.begin(), c.end());
    int code = slate_error_of([&] {
      c.sort([&](const int& a, const int& b) {
        c.insert(1);
        return a < b;
      });
    });
    CHECK_EQ_INT(code, SLATE_ERROR_INVALID);
    CHECK_EQ_U64(c.size(), model.size() + 1);
    CHECK(std::vector<int>(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(rows.size())) == rows);
  }
#else
  /* (a comparator cannot throw here) a comparator that writes nothing but
     reads the slotmap through try_ calls: the sort completes */
  {
    long compares = 0, reads = 0;
    const slate::status st = s.try_sort([&](const int& a, const int& b) {
      compares++;
      reads += s.size() == model.size();
      return a > b;
    });
    CHECK(st.ok());
    CHECK(compares > 0);
    CHECK_EQ_INT(reads, compares);
    CHECK(std::is_sorted(s.begin(), s.end(), std::greater<int>()));
    CHECK_EQ_U64(s.size(), model.size());
    bad = 0;
    for (const auto& [k, v] : model) bad += s.find(k) == nullptr || *s.find(k) != v;
    for (size_t r = 0; r < s.size(); r++) bad += s.row_of(s.key_at(r)) != std::optional<size_t>(r);
    CHECK_EQ_INT(bad, 0);
  }
#endif
  /* reads inside the comparator are allowed */
  bad = 0;
  s.sort([&](const int& a, const int& b) {
    bad += s.size() != model.size();
    return a < b;
  });
  CHECK_EQ_INT(bad, 0);
  /* sorting a struct by a member */
  slate::slotmap<particle> ps;
  std::vector<slate::key> pk;
  for (int i = 0; i < 100; i++) pk.push_back(ps.insert({static_cast<float>((i * 37) % 100), 0, i, 0}));
  ps.sort([](const particle& a, const particle& b) { return a.x < b.x; });
  bad = 0;
  for (size_t r = 0; r < ps.size(); r++) bad += ps.data()[r].x != static_cast<float>(r);
  for (int i = 0; i < 100; i++) bad += ps[pk[static_cast<size_t>(i)]].id != i;
  CHECK_EQ_INT(bad, 0);
  slate::slotmap<int> one;
  one.insert(1);
  one.sort();
  none.sort();
  CHECK_EQ_U64(one.size(), 1);
}

/* ------------------------------------------------------------------------ */
/* slotmap<T>: capacity, limit, allocation failures                          */
/* ------------------------------------------------------------------------ */

static void test_slotmap_capacity() {
  TEST_SECTION("slotmap reserve / limit / allocation failure");
  use_test_allocator();
  slate::slotmap<particle> s;
  use_default_allocator();

  /* reserve: the next n inserts allocate nothing, pointers stay put */
  s.reserve(100);
  long calls_before = g_alloc_calls;
  std::vector<slate::key> keys;
  for (int i = 0; i < 100; i++) keys.push_back(s.insert({0, 0, i, 0}));
  CHECK_EQ_INT(g_alloc_calls, calls_before);
  particle* base = s.data();
  CHECK(s.try_reserve(200).ok());
  CHECK(g_alloc_calls > calls_before);
  calls_before = g_alloc_calls;
  for (int i = 100; i < 200; i++) keys.push_back(s.insert({0, 0, i, 0}));
  CHECK_EQ_INT(g_alloc_calls, calls_before);
  (void)base;
  /* clear keeps the capacity */
  s.clear();
  for (int i = 0; i < 200; i++) s.insert({});
  CHECK_EQ_INT(g_alloc_calls, calls_before);
  /* More rows than a slotmap can hold (2^32 - 2), at any size_t width. */
  CHECK_EQ_INT(s.try_reserve(SIZE_MAX).code(), SLATE_ERROR_FULL);
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { s.reserve(SIZE_MAX); }), SLATE_ERROR_FULL);
#else
  CHECK_EQ_U64(s.size(), 200); /* the refused twin changed nothing */
  CHECK_EQ_INT(g_alloc_calls, calls_before);
#endif

  /* limit */
  slate::slotmap<int> l;
  l.limit(3);
  slate::key a = l.insert(1), b = l.insert(2);
  slate::key c = l.insert(3);
  CHECK(a && b && c);
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { l.insert(4); }), SLATE_ERROR_FULL);
#endif
  slate::key d;
  CHECK_EQ_INT(l.try_insert(4, d).code(), SLATE_ERROR_FULL);
  CHECK(!d);
  CHECK_EQ_U64(l.size(), 3);
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { l.reserve(10); }), SLATE_ERROR_FULL);
  CHECK_EQ_INT(slate_error_of([&] { l.limit(2); }), SLATE_ERROR_INVALID); /* below size */
#else
  /* reserve's twin (limit has none: not called below the size here) */
  CHECK_EQ_INT(l.try_reserve(10).code(), SLATE_ERROR_FULL);
  CHECK_EQ_U64(l.size(), 3);
  CHECK(l[a] == 1 && l[b] == 2 && l[c] == 3);
#endif
  CHECK(l.erase(b));
  l.insert(5); /* room again */
  CHECK_EQ_U64(l.size(), 3);
  l.limit(1000); /* raised */
  l.insert(6);
  CHECK_EQ_U64(l.size(), 4);
  /* a huge limit: accepted, or refused as INVALID (slotmap_limit takes at
     most the library's own maximum, currently 2^32 - 2) */
#if TEST_HAVE_EXCEPTIONS /* (limit has no try_ twin) */
  int huge = slate_error_of([&] { l.limit(std::numeric_limits<size_t>::max()); });
  CHECK(huge == 0 || huge == SLATE_ERROR_INVALID);
#endif
  l.limit(4);
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { l.insert(7); }), SLATE_ERROR_FULL);
#else
  slate::key e;
  CHECK_EQ_INT(l.try_insert(7, e).code(), SLATE_ERROR_FULL);
  CHECK(!e);
  CHECK_EQ_U64(l.size(), 4);
#endif
  /* clone keeps the limit */
  slate::slotmap<int> lc = l.clone();
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { lc.insert(7); }), SLATE_ERROR_FULL);
#else
  CHECK_EQ_INT(lc.try_insert(7, e).code(), SLATE_ERROR_FULL);
  CHECK(!e);
  CHECK_EQ_U64(lc.size(), 4);
#endif

  /* allocation failures */
  use_test_allocator();
  slate::slotmap<int> f;
  use_default_allocator();
  g_alloc_fail = true;
#if TEST_HAVE_EXCEPTIONS
  CHECK(throws_as<std::bad_alloc>([&] { f.insert(1); }));
#endif
  slate::key fk;
  CHECK_EQ_INT(f.try_insert(1, fk).code(), SLATE_ERROR_ALLOC);
#if TEST_HAVE_EXCEPTIONS
  CHECK(throws_as<std::bad_alloc>([&] { f.reserve(10); }));
#else
  CHECK(!fk); /* the failed twin handed out no key */
#endif
  CHECK_EQ_INT(f.try_reserve(10).code(), SLATE_ERROR_ALLOC);
  CHECK(f.empty());
  g_alloc_fail = false;
  std::vector<int> values;
  std::vector<slate::key> fkeys;
  for (int i = 0; i < 64; i++) {
    fkeys.push_back(f.insert(64 - i));
    values.push_back(64 - i);
  }
  g_alloc_fail = true;
#if TEST_HAVE_EXCEPTIONS
  CHECK(throws_as<std::bad_alloc>([&] { f.sort(); }));
#endif
  CHECK_EQ_INT(f.try_sort().code(), SLATE_ERROR_ALLOC);
  g_alloc_fail = false;
  CHECK(std::vector<int>(f.begin(), f.end()) == values); /* unchanged, not sorted */
  int bad = 0;
  for (size_t i = 0; i < fkeys.size(); i++) bad += f[fkeys[i]] != values[i];
  CHECK_EQ_INT(bad, 0);
  /* clone with a failing allocator in force */
  use_test_allocator();
  g_alloc_fail = true;
#if TEST_HAVE_EXCEPTIONS
  bool threw = throws_as<std::bad_alloc>([&] { auto c2 = f.clone(); });
#endif
  slate::slotmap<int> target;
#if !TEST_HAVE_EXCEPTIONS
  /* a target with an element: try_clone empties a target it fails to fill */
  g_alloc_fail = false;
  slate::key tk = target.insert(1);
  CHECK(target.contains(tk));
  g_alloc_fail = true;
#endif
  slate::status st = f.try_clone(target);
  g_alloc_fail = false;
  use_default_allocator();
#if TEST_HAVE_EXCEPTIONS
  CHECK(threw);
#else
  CHECK(!target.contains(tk));
#endif
  CHECK_EQ_INT(st.code(), SLATE_ERROR_ALLOC);
  CHECK(target.empty());
  CHECK_EQ_U64(f.size(), 64);
  f.sort();
  CHECK(std::is_sorted(f.begin(), f.end()));
}

/* ------------------------------------------------------------------------ */
/* slotmap<T>: move, swap, clone                                             */
/* ------------------------------------------------------------------------ */

static void test_slotmap_move_clone() {
  TEST_SECTION("slotmap move / swap / clone");
  slate::slotmap<particle> a;
  std::vector<slate::key> keys;
  for (int i = 0; i < 50; i++) keys.push_back(a.insert({static_cast<float>(i), 0, i, 0}));
  particle* p10 = a.find(keys[10]);

  /* move construction: rows, keys, pointers carried over */
  slate::slotmap<particle> b(std::move(a));
  CHECK_EQ_U64(b.size(), 50);
  CHECK(b.find(keys[10]) == p10);
  CHECK_EQ_INT(b[keys[49]].id, 49);
  CHECK(a.empty()); /* NOLINT: moved-from is valid and empty */
  CHECK(a.begin() == a.end());
  CHECK(!a.contains(keys[0]));
  slate::key ak = a.insert({1, 1, 1, 1}); /* and usable */
  CHECK(a.contains(ak));
  CHECK_EQ_U64(a.size(), 1);

  /* move assignment frees the target's rows */
  slate::slotmap<particle> c;
  for (int i = 0; i < 20; i++) c.insert({});
  c = std::move(b);
  CHECK_EQ_U64(c.size(), 50);
  CHECK(c.find(keys[10]) == p10);
  CHECK(b.empty());
  b.insert({});
  CHECK_EQ_U64(b.size(), 1);

  /* self-move */
  self_move(c, c);
  CHECK_EQ_U64(c.size(), 50);
  CHECK_EQ_INT(c[keys[3]].id, 3);

  /* swap */
  c.swap(b);
  CHECK_EQ_U64(b.size(), 50);
  CHECK_EQ_U64(c.size(), 1);
  using std::swap;
  swap(b, c);
  CHECK_EQ_U64(c.size(), 50);
  CHECK(c.contains(keys[0]));

  /* inside a vector */
  std::vector<slate::slotmap<int>> many;
  std::vector<slate::key> first;
  for (int i = 0; i < 30; i++) {
    many.emplace_back();
    first.push_back(many.back().insert(i));
  }
  int bad = 0;
  for (int i = 0; i < 30; i++) bad += many[static_cast<size_t>(i)][first[static_cast<size_t>(i)]] != i;
  CHECK_EQ_INT(bad, 0);

  /* clone: same keys, same values, independent */
  slate::slotmap<particle> d = c.clone();
  CHECK_EQ_U64(d.size(), c.size());
  bad = 0;
  for (slate::key k : keys) bad += d.find(k) == nullptr || d[k].id != c[k].id || d.find(k) == c.find(k);
  CHECK_EQ_INT(bad, 0);
  d[keys[0]].id = 1000;
  CHECK_EQ_INT(c[keys[0]].id, 0);
  CHECK(d.erase(keys[1]));
  CHECK(c.contains(keys[1]));
  slate::key dk = d.insert({});
  slate::key ck = c.insert({});
  (void)dk;
  (void)ck;
  c.clear();
  CHECK_EQ_U64(d.size(), 50);
  CHECK_EQ_INT(d[keys[0]].id, 1000);
  slate::slotmap<particle> e;
  slate::slotmap<particle> e2 = e.clone();
  CHECK(e2.empty());
  /* try_clone into a non-empty slotmap; not into itself */
  slate::slotmap<particle> t;
  for (int i = 0; i < 10; i++) t.insert({});
  CHECK(d.try_clone(t).ok());
  CHECK_EQ_U64(t.size(), d.size());
  CHECK_EQ_INT(t[keys[0]].id, 1000);
  CHECK_EQ_INT(d.try_clone(d).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(d.size(), 50);
}

/* ------------------------------------------------------------------------ */
/* slotmap<T> against std::unordered_map<slate::key, T>                      */
/* ------------------------------------------------------------------------ */

struct record {
  uint64_t id;
  double weight;
  int32_t tag;
  uint32_t pad;
};

static bool same(const record& a, const record& b) {
  return a.id == b.id && a.weight == b.weight && a.tag == b.tag;
}

static void test_slotmap_differential(uint64_t seed) {
  TEST_SECTION("slotmap differential");
  std::mt19937_64 rng(seed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  slate::slotmap<record> s;
  std::unordered_map<slate::key, record> model;
  std::vector<slate::key> live;  /* the model's keys, for random picks */
  std::vector<slate::key> stale; /* keys erased or cleared */
  long mismatches = 0;
  size_t largest = 0;
  uint64_t next_id = 1;
  const int ops = 30000;
  auto fail = [&](const char* what, int op) {
    if (mismatches++ < 10) fprintf(stderr, "   differential: %s at op %d (seed %" PRIu64 ")\n", what, op, seed);
  };
  auto rebuild_live = [&] {
    live.clear();
    for (const auto& kv : model) live.push_back(kv.first);
  };
  auto verify = [&](int op) {
    if (s.size() != model.size()) fail("size", op);
    size_t r = 0;
    for (const record& rec : s) {
      slate::key k = s.key_at(r);
      auto it = model.find(k);
      if (it == model.end() || !same(it->second, rec)) fail("dense row", op);
      if (s.row_of(k) != std::optional<size_t>(r)) fail("row_of", op);
      r++;
    }
    for (const auto& [k, v] : model) {
      const record* p = s.find(k);
      if (!p || !same(*p, v)) fail("find", op);
    }
    size_t checked = 0;
    for (size_t i = stale.size(); i-- > 0 && checked < 500; checked++) {
      if (s.contains(stale[i]) || s.find(stale[i])) fail("stale key", op);
    }
  };

  for (int op = 0; op < ops; op++) {
    size_t r = pick(1000);
    if (r < 400 || live.empty()) { /* insert */
      record rec{next_id++, static_cast<double>(rng() % 1000) / 8.0, static_cast<int32_t>(rng() % 100), 0};
      slate::key k = s.insert(rec);
      if (!k || model.count(k)) fail("fresh key", op);
      model[k] = rec;
      live.push_back(k);
    } else if (r < 600) { /* erase a live key */
      size_t i = pick(live.size());
      slate::key k = live[i];
      if (!s.erase(k)) fail("erase live", op);
      model.erase(k);
      live[i] = live.back();
      live.pop_back();
      stale.push_back(k);
    } else if (r < 680) { /* erase a stale key */
      if (!stale.empty() && s.erase(stale[pick(stale.size())])) fail("erase stale", op);
    } else if (r < 850) { /* read and modify a live key */
      slate::key k = live[pick(live.size())];
      record* p = s.find(k);
      if (!p || !same(*p, model[k])) {
        fail("lookup", op);
      } else {
        s[k].weight += 1.0;
        model[k].weight += 1.0;
        if (!same(s.at(k), model[k])) fail("operator[]", op);
      }
    } else if (r < 900) { /* stale lookups */
      if (!stale.empty()) {
        slate::key k = stale[pick(stale.size())];
        if (s.find(k) || s.contains(k) || s.row_of(k)) fail("stale lookup", op);
      }
    } else if (r < 905) { /* erase_if */
      int32_t mod = static_cast<int32_t>(pick(5) + 3);
      size_t expect = 0;
      for (auto it = model.begin(); it != model.end();) {
        if (it->second.tag % mod == 0) {
          stale.push_back(it->first);
          it = model.erase(it);
          expect++;
        } else {
          ++it;
        }
      }
      size_t got = s.erase_if([&](slate::key, record& rec) { return rec.tag % mod == 0; });
      if (got != expect) fail("erase_if count", op);
      rebuild_live();
    } else if (r < 930) { /* sort */
      if (pick(2) == 0) {
        s.sort([](const record& a, const record& b) { return a.weight < b.weight; });
        if (!std::is_sorted(s.begin(), s.end(), [](const record& a, const record& b) { return a.weight < b.weight; }))
          fail("sorted", op);
      } else {
        s.sort([](const record& a, const record& b) { return a.id > b.id; });
      }
    } else if (r < 945) { /* clone round trip, sometimes replacing the original */
      slate::slotmap<record> copy = s.clone();
      if (copy.size() != s.size()) fail("clone size", op);
      if (pick(2) == 0) s = std::move(copy);
    } else if (r < 955) { /* move through a temporary */
      slate::slotmap<record> tmp(std::move(s));
      if (!s.empty()) fail("moved-from empty", op);
      s = std::move(tmp);
    } else if (r == 956 && pick(4) == 0) { /* clear, rarely */
      s.clear();
      for (const auto& kv : model) stale.push_back(kv.first);
      model.clear();
      live.clear();
    } else if (r < 960) { /* reserve */
      s.reserve(s.size() + pick(100));
    } else { /* for_each totals */
      double total = 0, want = 0;
      s.for_each([&](slate::key, const record& rec) { total += rec.weight; });
      for (const auto& kv : model) want += kv.second.weight;
      (void)want;
      (void)total;
      size_t visited = 0;
      s.for_each([&](slate::key k, record&) { visited += model.count(k); });
      if (visited != model.size()) fail("for_each keys", op);
    }
    largest = std::max(largest, model.size());
    if (op % 1000 == 999) verify(op);
  }
  verify(ops);
  CHECK_EQ_INT(mismatches, 0);
  CHECK(!model.empty() || s.empty());
  /* every key ever handed out is distinct */
  std::unordered_set<slate::key> all(stale.begin(), stale.end());
  for (const auto& kv : model) all.insert(kv.first);
  CHECK_EQ_U64(all.size(), stale.size() + model.size());
  CHECK(largest > 100);
  fprintf(stderr, "   %d ops, largest %zu, %zu live, %zu stale keys\n", ops, largest, model.size(), stale.size());
}

/* ------------------------------------------------------------------------ */
/* map against std::unordered_map<std::string, void*>, briefly               */
/* ------------------------------------------------------------------------ */

static void test_map_differential(uint64_t seed) {
  TEST_SECTION("map differential");
  std::mt19937_64 rng(seed ^ 0x9E3779B97F4A7C15ULL);
  slate::map m;
  std::unordered_map<std::string, void*> model;
  long mismatches = 0;
  for (int op = 0; op < 20000; op++) {
    uint64_t r = rng() % 100;
    int kind = static_cast<int>(rng() % 3);
    uint64_t n = rng() % 3000;
    std::string key;
    if (kind == 0) {
      key = "s" + std::to_string(n);
    } else {
      char enc[10] = {0, static_cast<char>(kind), 0, 0, 0, 0, 0, 0, 0, 0};
      for (int b = 0; b < 8; b++) enc[2 + b] = static_cast<char>((n >> (8 * b)) & 0xFF);
      key.assign(enc, 10);
    }
    void* value = P(static_cast<uintptr_t>(rng()));
    if (r < 50) {
      bool fresh = kind == 0   ? m.set(key, value)
                   : kind == 1 ? m.set(static_cast<int64_t>(n), value)
                               : m.set(static_cast<uint64_t>(n), value);
      if (fresh != (model.count(key) == 0)) mismatches++;
      model[key] = value;
    } else if (r < 70) {
      bool was = kind == 0 ? m.erase(key) : kind == 1 ? m.erase(static_cast<int64_t>(n)) : m.erase(n);
      if (was != (model.erase(key) == 1)) mismatches++;
    } else if (r < 80) {
      std::optional<void*> taken = kind == 0   ? m.take(key)
                                   : kind == 1 ? m.take(static_cast<int64_t>(n))
                                               : m.take(n);
      auto it = model.find(key);
      if (taken.has_value() != (it != model.end()) || (taken && *taken != it->second)) mismatches++;
      if (it != model.end()) model.erase(it);
    } else {
      auto got = m.get(std::string_view(key));
      auto it = model.find(key);
      if (got.has_value() != (it != model.end()) || (got && *got != it->second)) mismatches++;
    }
  }
  CHECK_EQ_INT(mismatches, 0);
  CHECK_EQ_U64(m.size(), model.size());
  size_t seen = 0;
  m.for_each([&](std::string_view k, void* v) {
    auto it = model.find(std::string(k));
    seen += it != model.end() && it->second == v;
  });
  CHECK_EQ_U64(seen, model.size());
  CHECK_MAP_OK(m.native());
}

/* ------------------------------------------------------------------------ */
/* batch lookups: map::get_many against get() and a model                    */
/* ------------------------------------------------------------------------ */

/* Detection: is m.get_many(const K*, size_t, void**, uint8_t*) well-formed? */
template <class K, class = void>
struct can_get_many_t : std::false_type {};
template <class K>
struct can_get_many_t<K, std::void_t<decltype(std::declval<const slate::map&>().get_many(
                           std::declval<const K*>(), size_t{0}, static_cast<void**>(nullptr),
                           static_cast<uint8_t*>(nullptr)))>> : std::true_type {};
/* ... and over a container of K */
template <class C, class = void>
struct can_get_many_range_t : std::false_type {};
template <class C>
struct can_get_many_range_t<C, std::void_t<decltype(std::declval<const slate::map&>().get_many(
                                 std::declval<const C&>(), static_cast<void**>(nullptr),
                                 static_cast<uint8_t*>(nullptr)))>> : std::true_type {};

template <class K>
constexpr bool can_get_many = can_get_many_t<K>::value;
template <class C>
constexpr bool can_get_many_range = can_get_many_range_t<C>::value;

static_assert(can_get_many<uint64_t> && can_get_many<int64_t> && can_get_many<int> &&
                  can_get_many<unsigned char> && can_get_many<short> && can_get_many<long long> &&
                  can_get_many<size_t> && can_get_many<volatile unsigned>,
              "integer key arrays");
static_assert(can_get_many<std::string> && can_get_many<std::string_view> && can_get_many<const char*> &&
                  can_get_many<char*>,
              "string key arrays");
static_assert(!can_get_many<double> && !can_get_many<bool> && !can_get_many<char> &&
                  !can_get_many<plain_enum> && !can_get_many<void*> && !can_get_many<std::vector<char>>,
              "what get() rejects, get_many rejects");
static_assert(can_get_many_range<std::vector<uint64_t>> && can_get_many_range<std::array<int, 3>> &&
                  can_get_many_range<std::vector<std::string>> && can_get_many_range<const char* [2]> &&
                  can_get_many_range<std::string_view[4]>,
              "containers of keys");
static_assert(!can_get_many_range<std::vector<double>> && !can_get_many_range<std::string> &&
                  !can_get_many_range<int>,
              "containers of what is no key, and no container");
static_assert(std::is_same_v<decltype(std::declval<const slate::map&>().get_many(
                                 std::declval<const uint64_t*>(), 0, nullptr, nullptr)),
                             slate::status>);
static_assert(noexcept(std::declval<const slate::map&>().get_many(std::declval<const uint64_t*>(), 0,
                                                                  nullptr, nullptr)));
static_assert(noexcept(std::declval<const slate::map&>().get_many(std::declval<const int*>(), 0,
                                                                  nullptr, nullptr)));
static_assert(noexcept(std::declval<const slate::map&>().get_many(
    std::declval<const std::string_view*>(), 0, nullptr, nullptr)));
static_assert(noexcept(std::declval<const slate::map&>().get_many(std::declval<const char* const*>(),
                                                                  0, nullptr, nullptr)));
static_assert(noexcept(std::declval<const slate::map&>().get_many(
    std::declval<const std::vector<std::string>&>(), nullptr, nullptr)));
static_assert(std::is_same_v<decltype(std::declval<slate::slotmap<int>&>().get_many(
                                 std::declval<const slate::key*>(), 0, std::declval<int**>())),
                             slate::status>);
static_assert(noexcept(std::declval<slate::slotmap<int>&>().get_many(std::declval<const slate::key*>(),
                                                                     0, std::declval<int**>())));
static_assert(noexcept(std::declval<const slate::slotmap<int>&>().get_many(
    std::declval<const std::vector<slate::key>&>(), std::declval<const int**>())));

/* A const slotmap gives const elements only. */
template <class S, class E, class = void>
struct can_slot_get_many : std::false_type {};
template <class S, class E>
struct can_slot_get_many<S, E, std::void_t<decltype(std::declval<S&>().get_many(
                                   std::declval<const slate::key*>(), size_t{0}, std::declval<E**>()))>>
    : std::true_type {};
static_assert(can_slot_get_many<slate::slotmap<int>, int>::value &&
                  can_slot_get_many<slate::slotmap<int>, const int>::value &&
                  can_slot_get_many<const slate::slotmap<int>, const int>::value &&
                  !can_slot_get_many<const slate::slotmap<int>, int>::value &&
                  !can_slot_get_many<slate::slotmap<int>, long>::value,
              "slotmap get_many: elements of T, const T from a const slotmap");

/* The bytes a map sees for a key (slate.h: an integer as 0x00, 0x01 (i64) or
   0x02 (u64) and 8 bytes little-endian). */
template <class K>
static std::string key_bytes(const K& key) {
  if constexpr (std::is_integral_v<K>) {
    uint64_t v = std::is_signed_v<K> ? static_cast<uint64_t>(static_cast<int64_t>(key))
                                     : static_cast<uint64_t>(key);
    std::string out(10, '\0');
    out[1] = std::is_signed_v<K> ? '\x01' : '\x02';
    for (int b = 0; b < 8; b++) out[2 + static_cast<size_t>(b)] = static_cast<char>((v >> (8 * b)) & 0xFF);
    return out;
  } else {
    return std::string(std::string_view(key));
  }
}

using batch_model = std::unordered_map<std::string, void*>;

/* One get_many call over n keys of type K, checked against get() key by
   key and against the model; values[] and found[] prefilled, and one
   guard element past the end each. `as_range`: through the container
   overload (keys must then be a std::vector's data). Returns the
   mismatches (0 when all agree). */
template <class K>
static long diff_get_many(const slate::map& m, const batch_model& model, const std::vector<K>& keys,
                          bool with_values, bool as_range, size_t* hits) {
  const size_t n = keys.size();
  std::vector<void*> values(n + 1);
  std::vector<uint8_t> found(n + 1, 0xEE);
  for (size_t i = 0; i <= n; i++) values[i] = P(2 * i + 1);
  slate::status st = as_range ? m.get_many(keys, with_values ? values.data() : nullptr, found.data())
                              : m.get_many(keys.data(), n, with_values ? values.data() : nullptr,
                                           found.data());
  long bad = st.ok() ? 0 : 1;
  for (size_t i = 0; i < n; i++) {
    std::optional<void*> g = m.get(keys[i]);
    auto it = model.find(key_bytes(keys[i]));
    bool in = it != model.end();
    bool ok = found[i] == (g ? 1 : 0) && g.has_value() == in && (!in || *g == it->second);
    if (with_values) ok = ok && (g ? values[i] == *g : values[i] == P(2 * i + 1));
    if (!ok && bad < 5)
      fprintf(stderr, "   get_many: key %zu of %zu (%s, %zu bytes): found %u, get %s\n", i, n,
              std::is_integral_v<K> ? (std::is_signed_v<K> ? "signed" : "unsigned") : "string",
              sizeof(K), found[i], g ? "present" : "absent");
    bad += !ok;
    *hits += found[i] == 1;
  }
  bad += values[n] != P(2 * n + 1) || found[n] != 0xEE; /* nothing past the end */
  return bad;
}

/* Keys for a batch of type K: ones the model holds (of that type), others
   drawn from the same small numbers or strings, duplicates. */
template <class K>
static std::vector<K> batch_keys(std::mt19937_64& rng, size_t n, const std::vector<K>& present,
                                 const std::vector<K>& pool) {
  std::vector<K> out;
  out.reserve(n);
  while (out.size() < n) {
    uint64_t r = rng() % 8;
    if (r < 3 && !present.empty())
      out.push_back(present[rng() % present.size()]);
    else if (r < 4 && !out.empty())
      out.push_back(out[rng() % out.size()]);
    else
      out.push_back(pool[rng() % pool.size()]);
  }
  return out;
}

/* All numbers -300 .. 299 as K (so signed and unsigned types meet on the
   same small numbers, in different keyspaces), and some large ones. */
template <class K>
static std::vector<K> int_pool(std::mt19937_64& rng) {
  std::vector<K> pool;
  for (int v = -300; v < 300; v++) pool.push_back(static_cast<K>(v));
  for (int i = 0; i < 100; i++) pool.push_back(static_cast<K>(rng()));
  pool.push_back(std::numeric_limits<K>::max());
  pool.push_back(std::numeric_limits<K>::min());
  return pool;
}

static std::string random_bytes(std::mt19937_64& rng, bool nul_free) {
  static const size_t lengths[] = {0, 1, 5, 12, 27, 28, 29, 31, 32, 33, 64, 100, 128, 129, 200, 300};
  size_t len = rng() % 4 == 0 ? lengths[rng() % (sizeof lengths / sizeof lengths[0])] : rng() % 40;
  std::string s(len, 'a');
  for (auto& c : s) {
    c = static_cast<char>(rng() % 3 == 0 && !nul_free ? 0 : 'a' + static_cast<char>(rng() % 4));
    if (c == 0 && nul_free) c = 'z';
  }
  return s;
}

/* The batch of every key type, in the sizes around the wrappers' chunks of
   64 and the library's of 16, with and without values, through pointers
   and containers. Returns the mismatches. */
static long batch_round(std::mt19937_64& rng, const slate::map& m, const batch_model& model,
                        const std::vector<uint64_t>& u_in, const std::vector<int64_t>& i_in,
                        const std::vector<std::string>& s_in, size_t* hits) {
  static const size_t sizes[] = {0, 1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129, 257, 1000};
  long bad = 0;
  std::vector<uint64_t> upool = int_pool<uint64_t>(rng);
  std::vector<int64_t> ipool = int_pool<int64_t>(rng);
  std::vector<std::string> spool;
  for (int i = 0; i < 300; i++) spool.push_back(random_bytes(rng, false));
  for (const auto& s : s_in)
    if (rng() % 8 == 0) spool.push_back(s + std::string(1, '\0')); /* near misses */
  /* the present keys as the other integer types (where they fit) */
  std::vector<int> int_in;
  std::vector<unsigned> uint_in;
  std::vector<short> short_in;
  std::vector<unsigned char> uchar_in;
  std::vector<signed char> schar_in;
  for (int64_t v : i_in)
    if (v >= INT16_MIN && v <= INT16_MAX) {
      int_in.push_back(static_cast<int>(v));
      short_in.push_back(static_cast<short>(v));
      if (v >= -128 && v <= 127) schar_in.push_back(static_cast<signed char>(v));
    }
  for (uint64_t v : u_in)
    if (v <= UINT32_MAX) {
      uint_in.push_back(static_cast<unsigned>(v));
      if (v <= 255) uchar_in.push_back(static_cast<unsigned char>(v));
    }
  std::vector<long long> ll_in(i_in.begin(), i_in.end());
  std::vector<unsigned long long> ull_in(u_in.begin(), u_in.end());
  std::vector<size_t> size_in;
  for (uint64_t v : u_in)
    if (v <= std::numeric_limits<size_t>::max()) size_in.push_back(static_cast<size_t>(v));
  std::vector<std::string> text_in; /* NUL-free, for C strings */
  for (const auto& s : s_in)
    if (s.find('\0') == std::string::npos) text_in.push_back(s);
  std::vector<std::string> text_pool;
  for (int i = 0; i < 200; i++) text_pool.push_back(random_bytes(rng, true));
  for (size_t n : sizes) {
    for (int variant = 0; variant < 4; variant++) {
      bool with_values = variant % 2 == 0, as_range = variant >= 2;
      bad += diff_get_many(m, model, batch_keys(rng, n, u_in, upool), with_values, as_range, hits);
      bad += diff_get_many(m, model, batch_keys(rng, n, i_in, ipool), with_values, as_range, hits);
      bad += diff_get_many(m, model, batch_keys(rng, n, int_in, int_pool<int>(rng)), with_values, as_range, hits);
      bad += diff_get_many(m, model, batch_keys(rng, n, uint_in, int_pool<unsigned>(rng)), with_values, as_range, hits);
      bad += diff_get_many(m, model, batch_keys(rng, n, short_in, int_pool<short>(rng)), with_values, as_range, hits);
      bad += diff_get_many(m, model, batch_keys(rng, n, uchar_in, int_pool<unsigned char>(rng)), with_values, as_range, hits);
      bad += diff_get_many(m, model, batch_keys(rng, n, schar_in, int_pool<signed char>(rng)), with_values, as_range, hits);
      bad += diff_get_many(m, model, batch_keys(rng, n, ll_in, int_pool<long long>(rng)), with_values, as_range, hits);
      bad += diff_get_many(m, model, batch_keys(rng, n, ull_in, int_pool<unsigned long long>(rng)), with_values, as_range, hits);
      bad += diff_get_many(m, model, batch_keys(rng, n, size_in, int_pool<size_t>(rng)), with_values, as_range, hits);
      std::vector<std::string> strings = batch_keys(rng, n, s_in, spool);
      bad += diff_get_many(m, model, strings, with_values, as_range, hits);
      std::vector<std::string_view> views(strings.begin(), strings.end());
      bad += diff_get_many(m, model, views, with_values, as_range, hits);
      std::vector<std::string> texts = batch_keys(rng, n, text_in, text_pool);
      std::vector<const char*> cstrings;
      for (const auto& t : texts) cstrings.push_back(t.c_str());
      bad += diff_get_many(m, model, cstrings, with_values, as_range, hits);
    }
  }
  /* char** (argv-like) goes to the C-string overload as well */
  std::vector<std::string> texts = batch_keys(rng, 70, text_in, text_pool);
  std::vector<char*> mutable_c;
  for (auto& t : texts) mutable_c.push_back(&t[0]);
  std::vector<void*> values(70);
  std::vector<uint8_t> found(70, 0xEE);
  CHECK(m.get_many(mutable_c.data(), 70, values.data(), found.data()).ok());
  for (size_t i = 0; i < 70; i++) bad += found[i] != (m.contains(texts[i]) ? 1 : 0);
  return bad;
}

static void test_map_get_many(uint64_t seed) {
  TEST_SECTION("map get_many: every key type against get() and a model");
  std::mt19937_64 rng(seed ^ 0x6A09E667F3BCC908ULL);
  slate::map m;
  batch_model model;
  std::vector<uint64_t> u_in;
  std::vector<int64_t> i_in;
  std::vector<std::string> s_in;
  size_t hits = 0;
  auto put = [&](auto key) {
    void* v = P(static_cast<uintptr_t>(rng() & ~uint64_t{1}));
    m.set(key, v);
    model[key_bytes(key)] = v;
  };
  /* states: empty, small, a few tables, many tables; each round adds keys */
  static const int adds[] = {0, 5, 300, 20000};
  for (int add : adds) {
    for (int i = 0; i < add; i++) {
      uint64_t r = rng() % 10;
      if (r < 4) {
        uint64_t v = rng() % 3 == 0 ? rng() : rng() % 600;
        put(v);
        u_in.push_back(v);
      } else if (r < 8) {
        int64_t v = rng() % 3 == 0 ? static_cast<int64_t>(rng()) : static_cast<int64_t>(rng() % 600) - 300;
        put(v);
        i_in.push_back(v);
      } else {
        std::string s = random_bytes(rng, rng() % 2 == 0);
        put(std::string_view(s));
        s_in.push_back(s);
      }
    }
    if (add == 300) { /* an integer key's encoding set as a string key */
      std::string enc = key_bytes(uint64_t{77777});
      put(std::string_view(enc));
      u_in.push_back(77777);
    }
    CHECK_EQ_U64(m.size(), model.size());
    CHECK_EQ_INT(batch_round(rng, m, model, u_in, i_in, s_in, &hits), 0);
  }
  /* tombstones, then after clear */
  size_t erased = 0;
  for (auto it = model.begin(); it != model.end();) {
    if (rng() % 4 != 0) {
      erased += m.erase(it->first);
      it = model.erase(it);
    } else {
      ++it;
    }
  }
  CHECK_EQ_U64(m.size(), model.size());
  CHECK(erased > 0);
  CHECK_EQ_INT(batch_round(rng, m, model, u_in, i_in, s_in, &hits), 0);
  m.clear();
  model.clear();
  CHECK_EQ_INT(batch_round(rng, m, model, u_in, i_in, s_in, &hits), 0);
  CHECK(hits > 1000); /* the batches found keys */
  fprintf(stderr, "   %zu keys found\n", hits);
}

/* count 0, null arrays, a null C string: the status, nothing written. */
static void test_map_get_many_edges() {
  TEST_SECTION("map get_many: count 0, null arrays, huge keys, inside for_each");
  slate::map m;
  m.set(5, P(10));
  m.set(5u, P(12));
  m.set("five", P(14));
  m.set(std::string_view("\0five", 5), P(16));
  void* values[3] = {P(1), P(3), P(5)};
  uint8_t found[3] = {0xEE, 0xEE, 0xEE};
  auto untouched = [&] {
    return values[0] == P(1) && values[1] == P(3) && values[2] == P(5) && found[0] == 0xEE &&
           found[1] == 0xEE && found[2] == 0xEE;
  };
  const uint64_t* no_u = nullptr;
  const int64_t* no_i = nullptr;
  const int* no_int = nullptr;
  const std::string_view* no_sv = nullptr;
  const std::string* no_s = nullptr;
  const char* const* no_c = nullptr;
  /* count 0: OK with null arrays, nothing written with real ones */
  CHECK(m.get_many(no_u, 0, nullptr, nullptr).ok() && m.get_many(no_i, 0, nullptr, nullptr).ok() &&
        m.get_many(no_int, 0, nullptr, nullptr).ok() && m.get_many(no_sv, 0, nullptr, nullptr).ok() &&
        m.get_many(no_s, 0, nullptr, nullptr).ok() && m.get_many(no_c, 0, nullptr, nullptr).ok());
  uint64_t u[3] = {5, 6, 5};
  int64_t s[3] = {5, 6, 5};
  int ints[3] = {5, 6, 5};
  std::string_view views[3] = {"five", std::string_view("\0five", 5), "six"};
  std::string strings[3] = {"five", "six", std::string("\0five", 5)};
  const char* cs[3] = {"five", "six", "five"};
  CHECK(m.get_many(u, 0, values, found).ok() && m.get_many(s, 0, values, found).ok() &&
        m.get_many(ints, 0, values, found).ok() && m.get_many(views, 0, values, found).ok() &&
        m.get_many(strings, 0, values, found).ok() && m.get_many(cs, 0, values, found).ok());
  CHECK(untouched());
  std::vector<uint64_t> none;
  CHECK(m.get_many(none, values, found).ok() && untouched());
  /* null keys or found with count > 0: INVALID, nothing written */
  CHECK_EQ_INT(m.get_many(no_u, 3, values, found).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(no_i, 3, values, found).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(no_int, 3, values, found).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(no_sv, 3, values, found).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(no_s, 3, values, found).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(no_c, 3, values, found).code(), SLATE_ERROR_INVALID);
  CHECK(untouched());
  CHECK_EQ_INT(m.get_many(u, 3, values, nullptr).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(s, 3, values, nullptr).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(ints, 3, values, nullptr).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(views, 3, values, nullptr).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(strings, 3, values, nullptr).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(m.get_many(cs, 3, values, nullptr).code(), SLATE_ERROR_INVALID);
  CHECK(untouched());
  /* a null C string, first or in the second chunk of 64: INVALID, nothing written */
  std::vector<const char*> many(100, "five");
  std::vector<void*> mv(100, P(1));
  std::vector<uint8_t> mf(100, 0xEE);
  for (size_t at : {size_t{0}, size_t{70}, size_t{99}}) {
    many[at] = nullptr;
    CHECK_EQ_INT(m.get_many(many.data(), 100, mv.data(), mf.data()).code(), SLATE_ERROR_INVALID);
    CHECK(std::all_of(mv.begin(), mv.end(), [](void* p) { return p == P(1); }) &&
          std::all_of(mf.begin(), mf.end(), [](uint8_t f) { return f == 0xEE; }));
    many[at] = "five";
  }
  /* the answers themselves, for keys that share their bytes' numbers */
  CHECK(m.get_many(u, 3, values, found).ok());
  CHECK(found[0] == 1 && found[1] == 0 && found[2] == 1 && values[0] == P(12) && values[1] == P(3) &&
        values[2] == P(12));
  CHECK(m.get_many(ints, 3, values, found).ok());
  CHECK(found[0] == 1 && found[1] == 0 && found[2] == 1 && values[0] == P(10) && values[2] == P(10));
  CHECK(m.get_many(views, nullptr, found).ok());
  CHECK(found[0] == 1 && found[1] == 1 && found[2] == 0);
  CHECK(m.get_many(strings, values, found).ok());
  CHECK(found[0] == 1 && found[1] == 0 && found[2] == 1 && values[0] == P(14) && values[2] == P(16));
  /* every key again from inside a walk of the map */
  long inner_bad = 0;
  size_t walked = 0;
  m.for_each([&](std::string_view key, void* value) {
    std::string_view one[2] = {key, "absent"};
    void* v[2] = {P(1), P(3)};
    uint8_t f[2] = {0xEE, 0xEE};
    inner_bad += !m.get_many(one, v, f).ok() || f[0] != 1 || v[0] != value || f[1] != 0 || v[1] != P(3);
    if (auto i = slate::decode_i64_key(key)) {
      int64_t k[1] = {*i};
      inner_bad += !m.get_many(k, v, f).ok() || f[0] != 1 || v[0] != value;
    }
    if (auto i = slate::decode_u64_key(key)) {
      std::array<uint64_t, 1> k{*i};
      inner_bad += !m.get_many(k, v, f).ok() || f[0] != 1 || v[0] != value;
    }
    walked++;
  });
  CHECK_EQ_INT(inner_bad, 0);
  CHECK_EQ_U64(walked, 4);
#if defined(__linux__) && UINTPTR_MAX > 0xFFFFFFFFu
  /* a key of 4 GiB (which no map holds) among others, around a chunk's end */
  const size_t length = (size_t{1} << 32) + 1;
  void* p = mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p != MAP_FAILED) {
    std::string_view huge(static_cast<const char*>(p), length);
    for (size_t at : {size_t{0}, size_t{63}, size_t{64}, size_t{129}}) {
      std::vector<std::string_view> keys(130, "five");
      keys[at] = huge;
      keys[at == 0 ? 1 : at - 1] = "six";
      std::vector<void*> hv(130, P(1));
      std::vector<uint8_t> hf(130, 0xEE);
      CHECK(m.get_many(keys, hv.data(), hf.data()).ok());
      long wrong = 0;
      for (size_t i = 0; i < 130; i++) {
        bool in = keys[i] == "five";
        wrong += hf[i] != (in ? 1 : 0) || hv[i] != (in ? P(14) : P(1));
      }
      CHECK_EQ_INT(wrong, 0);
    }
    munmap(p, length);
  } else {
    fprintf(stderr, "   (mmap of 4 GiB failed: huge keys skipped)\n");
  }
#else
  fprintf(stderr, "   (not a 64-bit Linux: huge keys skipped)\n");
#endif
}

/* ------------------------------------------------------------------------ */
/* batch lookups: slotmap<T>::get_many against find()                        */
/* ------------------------------------------------------------------------ */

/* One batch, every overload: elements[i] == find(keys[i]), the model's
   record there, nothing written past the end. Returns the mismatches. */
static long diff_slot_get_many(slate::slotmap<record>& s, const std::unordered_map<slate::key, record>& model,
                               const std::vector<slate::key>& keys, int variant, size_t* hits) {
  const size_t n = keys.size();
  record dummy{};
  std::vector<record*> out(n + 1, &dummy);
  std::vector<const record*> cout_(n + 1, &dummy);
  const slate::slotmap<record>& cs = s;
  slate::status st;
  switch (variant) {
    case 0:
      st = s.get_many(keys.data(), n, out.data());
      break;
    case 1:
      st = s.get_many(keys, out.data());
      break;
    case 2:
      st = cs.get_many(keys.data(), n, cout_.data());
      break;
    default:
      st = cs.get_many(keys, cout_.data());
      break;
  }
  long bad = st.ok() ? 0 : 1;
  for (size_t i = 0; i < n; i++) {
    const record* got = variant < 2 ? out[i] : cout_[i];
    const record* want = s.find(keys[i]);
    auto it = model.find(keys[i]);
    bool ok = got == want && (it == model.end() ? got == nullptr : got != nullptr && same(*got, it->second));
    if (!ok && bad < 5)
      fprintf(stderr, "   slotmap get_many (variant %d): key %zu of %zu: %p, find %p\n", variant, i, n,
              static_cast<const void*>(got), static_cast<const void*>(want));
    bad += !ok;
    *hits += got != nullptr;
  }
  bad += out[n] != &dummy || cout_[n] != &dummy;
  return bad;
}

static void test_slotmap_get_many(uint64_t seed) {
  TEST_SECTION("slotmap get_many against find()");
  static const size_t sizes[] = {0, 1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129, 257, 1000};
  std::mt19937_64 rng(seed ^ 0xBB67AE8584CAA73BULL);
  slate::slotmap<record> s, other;
  std::unordered_map<slate::key, record> model;
  std::vector<slate::key> live, stale, foreign;
  size_t hits = 0;
  long bad = 0;
  uint64_t next_id = 1;
  for (int i = 0; i < 300; i++) foreign.push_back(other.insert(record{0, 0.0, 0, 0}));
  auto keys_for = [&](size_t n) {
    std::vector<slate::key> keys;
    while (keys.size() < n) {
      uint64_t r = rng() % 12;
      if (r < 5 && !live.empty())
        keys.push_back(live[rng() % live.size()]);
      else if (r < 7 && !stale.empty())
        keys.push_back(stale[rng() % stale.size()]);
      else if (r < 8)
        keys.push_back(foreign[rng() % foreign.size()]);
      else if (r < 9 && !keys.empty())
        keys.push_back(keys[rng() % keys.size()]);
      else if (r < 10 && !live.empty()) /* the right index, another generation */
        keys.push_back(slate::key(live[rng() % live.size()].raw() ^ (uint64_t{2} << 32)));
      else if (r < 11)
        keys.push_back(slate::key(rng()));
      else
        keys.push_back(slate::key());
    }
    return keys;
  };
  for (int round = 0; round < 12; round++) {
    size_t inserts = round < 6 ? static_cast<size_t>(rng() % 3000) : static_cast<size_t>(rng() % 300);
    for (size_t i = 0; i < inserts; i++) {
      record rec{next_id++, static_cast<double>(rng() % 1000), static_cast<int32_t>(rng() % 100), 0};
      slate::key k = s.insert(rec);
      model[k] = rec;
      live.push_back(k);
    }
    size_t erases = live.empty() ? 0 : static_cast<size_t>(rng() % (live.size() / 2 + 1));
    for (size_t i = 0; i < erases; i++) {
      size_t at = static_cast<size_t>(rng() % live.size());
      bad += !s.erase(live[at]);
      model.erase(live[at]);
      stale.push_back(live[at]);
      live[at] = live.back();
      live.pop_back();
    }
    if (round == 8) { /* clear: every key stale */
      s.clear();
      stale.insert(stale.end(), live.begin(), live.end());
      live.clear();
      model.clear();
    }
    for (size_t n : sizes)
      for (int variant = 0; variant < 4; variant++) bad += diff_slot_get_many(s, model, keys_for(n), variant, &hits);
  }
  /* one large batch */
  bad += diff_slot_get_many(s, model, keys_for(100000), 0, &hits);
  CHECK_EQ_INT(bad, 0);
  CHECK(hits > 1000);
  /* null arrays, count 0 */
  record dummy{};
  record* elements[2] = {&dummy, &dummy};
  const record* celements[2] = {&dummy, &dummy};
  slate::key two[2] = {live.empty() ? slate::key() : live[0], slate::key()};
  CHECK(s.get_many(static_cast<const slate::key*>(nullptr), 0, static_cast<record**>(nullptr)).ok());
  CHECK(s.get_many(two, 0, elements).ok() && elements[0] == &dummy);
  CHECK_EQ_INT(s.get_many(static_cast<const slate::key*>(nullptr), 2, elements).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(s.get_many(two, 2, static_cast<record**>(nullptr)).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(std::as_const(s).get_many(static_cast<const slate::key*>(nullptr), 2, celements).code(),
               SLATE_ERROR_INVALID);
  CHECK(elements[0] == &dummy && elements[1] == &dummy && celements[0] == &dummy && celements[1] == &dummy);
  /* inside for_each: each element's own key gives that very element */
  long inner_bad = 0;
  s.for_each([&](slate::key k, record& rec) {
    slate::key ks[3] = {k, slate::key(), k};
    record* e[3] = {nullptr, &dummy, nullptr};
    inner_bad += !s.get_many(ks, e).ok() || e[0] != &rec || e[1] != nullptr || e[2] != &rec;
  });
  CHECK_EQ_INT(inner_bad, 0);
  fprintf(stderr, "   %zu keys found\n", hits);
}

/* ------------------------------------------------------------------------ */
/* sparse<T>, sparse<void> and join, against simple models                   */
/* ------------------------------------------------------------------------ */

/* An allocator that can be told to fail; counts what it holds. */
struct failing_allocator_s {
  bool fail = false;
  uint64_t live = 0;
};
static void* failing_allocate(void* context, size_t size) {
  auto* f = static_cast<failing_allocator_s*>(context);
  if (f->fail) return nullptr;
  void* p = std::malloc(size);
  if (p != nullptr) f->live++;
  return p;
}
static void failing_release(void* context, void* pointer, size_t) {
  auto* f = static_cast<failing_allocator_s*>(context);
  if (pointer != nullptr) f->live--;
  std::free(pointer);
}

struct vel2 {
  float dx, dy;
};

/* The keys a range (key_view, sparse<void>) gives, as a std::set. */
template <class Range>
static std::set<slate::key> key_set(const Range& range) {
  std::set<slate::key> out;
  for (slate::key k : range) out.insert(k);
  return out;
}

static void test_sparse_basics() {
  TEST_SECTION("sparse<T> basics: set, find, erase, owner checks, slots");
  slate::slotmap<int> world;
  slate::sparse<vel2> v;
  CHECK(v.empty());
  CHECK_EQ_U64(v.size(), 0);
  CHECK(v.begin() == v.end());
  CHECK(v.keys().empty());
  CHECK(v.keys().data() == nullptr);
  CHECK(v.data() == nullptr);
  CHECK(v.find(slate::key()) == nullptr);
  CHECK(!v.contains(slate::key()));
  CHECK(!v.erase(slate::key()));
  CHECK(!v.key_at(0));
  CHECK(!v.row_of(slate::key()).has_value());

  slate::key a = world.insert(1), b = world.insert(2), c = world.insert(3);
  CHECK(v.set(a, {1, 2}));            /* new */
  CHECK(v.set(world, b, {3, 4}));     /* new, checked */
  CHECK(!v.set(world, a, {5, 6}));    /* overwritten */
  CHECK_EQ_U64(v.size(), 2);
  CHECK(v.find(a) != nullptr && v.find(a)->dx == 5.0f && v.find(a)->dy == 6.0f);
  CHECK(v.find(c) == nullptr);
  CHECK(v.contains(b) && !v.contains(c));
  const auto& cv = v;
  static_assert(std::is_same_v<decltype(cv.find(a)), const vel2*>);
  static_assert(std::is_same_v<decltype(v.find(a)), vel2*>);
  CHECK(cv.find(b) == v.find(b));

  /* rows, keys, data and range-for agree */
  int bad = 0;
  for (std::size_t r = 0; r < v.size(); r++) {
    slate::key k = v.key_at(r);
    bad += v.keys()[r] != k || v.row_of(k) != r || &v.data()[r] != v.find(k);
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(!v.key_at(v.size()));
  std::size_t row = 0;
  for (auto [k, e] : v) {
    bad += k != v.key_at(row) || &e != v.data() + row;
    e.dy += 100; /* writes through */
    row++;
  }
  CHECK_EQ_U64(row, 2);
  CHECK(v.find(a)->dy == 106.0f && v.find(b)->dy == 104.0f);
  for (auto [k, e] : cv) {
    static_assert(std::is_same_v<decltype(e), const vel2&>);
    bad += cv.find(k) != &e;
  }
  CHECK_EQ_INT(bad, 0);
  CHECK(v.keys().data() == slotmap_sparse_keys(v.native()));
  CHECK((key_set(v.keys()) == std::set<slate::key>{a, b}));

  /* owner checks: a dead entity's key is refused, nothing changes */
  CHECK(world.erase(c));
  CHECK_EQ_INT(v.try_set(world, c, {9, 9}).code(), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(v.try_set(*world.native(), c, {9, 9}).code(), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(v.try_set(world, slate::key(0xdead00000007ull), {9, 9}).code(), SLATE_ERROR_NOT_FOUND);
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { v.set(world, c, {9, 9}); }), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_error_of([&] { v.set(slate::key(), {9, 9}); }), SLATE_ERROR_INVALID);
  CHECK_EQ_INT(slate_error_of([&] { v.set(world, slate::key(), {9, 9}); }), SLATE_ERROR_INVALID);
#endif
  CHECK_EQ_INT(v.try_set(slate::key(), {9, 9}).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(v.size(), 2);
  CHECK(!v.contains(c));
  CHECK(v.try_set(c, {7, 7}).ok()); /* without an owner any non-null key is taken */
  CHECK(v.contains(c));
  CHECK(v.erase(c));
  CHECK(!v.erase(c));

  /* one key per slot: a new entity in a dead one's slot replaces its row */
  slate::key old_a = a;
  CHECK(world.erase(a));
  slate::key a2 = world.insert(4);
  CHECK_EQ_INT(a2.index(), old_a.index());
  CHECK(a2 != old_a);
  CHECK(v.contains(old_a)); /* still there until pruned or replaced */
  CHECK(v.find(a2) == nullptr);
  CHECK(v.set(world, a2, {0, 1})); /* counts as new */
  CHECK(!v.contains(old_a) && v.contains(a2));
  CHECK(v.find(old_a) == nullptr);
  CHECK_EQ_U64(v.size(), 2);

  /* prune after entities die */
  CHECK(world.erase(b));
  CHECK_EQ_U64(v.prune(world), 1);
  CHECK_EQ_U64(v.size(), 1);
  CHECK_EQ_U64(v.prune(*world.native()), 0);
  CHECK(v.contains(a2) && !v.contains(b));

  /* clear and reserve */
  v.reserve(100);
  CHECK(v.try_reserve(1000).ok());
  CHECK_EQ_INT(v.try_reserve(std::numeric_limits<std::size_t>::max()).code(), SLATE_ERROR_FULL);
  v.clear();
  CHECK(v.empty());
  CHECK(!v.contains(a2));
  CHECK(v.set(a2, {}));
}

static void test_sparse_membership() {
  TEST_SECTION("sparse<void>: membership sets");
  slate::slotmap<int> world;
  slate::sparse<void> hungry;
  static_assert(std::is_same_v<slate::sparse<void>::value_type, void>);
  std::vector<slate::key> ks;
  for (int i = 0; i < 100; i++) ks.push_back(world.insert(i));
  std::set<slate::key> model;
  for (int i = 0; i < 100; i += 3) {
    CHECK(hungry.set(world, ks[static_cast<size_t>(i)]));
    model.insert(ks[static_cast<size_t>(i)]);
  }
  CHECK(!hungry.set(ks[0])); /* already a member */
  CHECK_EQ_U64(hungry.size(), model.size());
  CHECK(key_set(hungry) == model);
  CHECK(key_set(hungry.keys()) == model);
  CHECK(hungry.contains(ks[3]) && !hungry.contains(ks[4]));
  CHECK(slotmap_sparse_column(hungry.native(), 0) == nullptr);
  CHECK(hungry.erase(ks[3]));
  CHECK(!hungry.erase(ks[3]));
  model.erase(ks[3]);

  /* for_each: keys only; the given key may be erased */
  std::set<slate::key> seen;
  CHECK(hungry.for_each([&](slate::key k) {
    seen.insert(k);
    if (k.index() % 2 == 0) CHECK(hungry.erase(k));
  }));
  CHECK(seen == model);
  for (auto it = model.begin(); it != model.end();) it = it->index() % 2 == 0 ? model.erase(it) : std::next(it);
  CHECK(key_set(hungry) == model);
  int calls = 0;
  CHECK(!hungry.for_each([&](slate::key) { return ++calls < 3; }));
  CHECK_EQ_INT(calls, 3);

  /* erase_if, owner checks, prune */
  std::size_t gone = hungry.erase_if([](slate::key k) { return k.index() % 5 == 0; });
  std::size_t expected = 0;
  for (auto it = model.begin(); it != model.end();)
    if (it->index() % 5 == 0) {
      it = model.erase(it);
      expected++;
    } else {
      ++it;
    }
  CHECK_EQ_U64(gone, expected);
  CHECK(key_set(hungry) == model);
  slate::key dead = *model.begin();
  CHECK(world.erase(dead));
  CHECK_EQ_INT(hungry.try_set(world, dead).code(), SLATE_ERROR_NOT_FOUND);
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { hungry.set(world, dead); }), SLATE_ERROR_NOT_FOUND);
  CHECK_EQ_INT(slate_error_of([&] { hungry.set(slate::key()); }), SLATE_ERROR_INVALID);
#endif
  CHECK_EQ_INT(hungry.try_set(slate::key()).code(), SLATE_ERROR_INVALID);
  CHECK(hungry.try_set(world, ks[1]).ok());
  model.insert(ks[1]);
  CHECK_EQ_U64(hungry.prune(world), 1);
  model.erase(dead);
  CHECK(key_set(hungry) == model);

  /* move and clone */
  slate::sparse<void> moved(std::move(hungry));
  CHECK(hungry.empty()); /* NOLINT: moved-from is valid and empty */
  CHECK(hungry.set(ks[2]));
  slate::sparse<void> copy = moved.clone();
  CHECK(key_set(copy) == model);
  CHECK(copy.erase(ks[1]));
  CHECK(moved.contains(ks[1]));
  hungry = std::move(copy);
  CHECK(!hungry.contains(ks[2]) && !hungry.contains(ks[1]));
  CHECK_EQ_U64(hungry.size(), model.size() - 1);
}

static void test_sparse_walks() {
  TEST_SECTION("sparse<T>: for_each, erase_if, sort, changes from callables");
  slate::sparse<int> s;
  std::unordered_map<slate::key, int> model;
  for (uint32_t i = 1; i <= 500; i++) {
    slate::key k(uint64_t{1} << 32 | i * 7);
    int value = static_cast<int>((i * 7919) % 1000);
    s.set(k, value);
    model[k] = value;
  }
  /* for_each visits the dense rows in order; bool false stops */
  std::size_t row = 0;
  int bad = 0;
  CHECK(s.for_each([&](slate::key k, int& v) {
    bad += s.key_at(row) != k || &v != s.data() + row || model.at(k) != v;
    row++;
  }));
  CHECK_EQ_U64(row, 500);
  CHECK_EQ_INT(bad, 0);
  const auto& cs = s;
  int calls = 0;
  CHECK(!cs.for_each([&](slate::key, const int&) { return ++calls < 10; }));
  CHECK_EQ_INT(calls, 10);

  /* erasing the given key inside for_each: every row still visited once */
  std::unordered_map<slate::key, int> visits;
  CHECK(s.for_each([&](slate::key k, int& v) {
    visits[k]++;
    if (v % 3 == 0) CHECK(s.erase(k));
  }));
  bad = 0;
  for (const auto& [k, n] : visits) bad += n != 1;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(visits.size(), 500);
  for (auto it = model.begin(); it != model.end();) it = it->second % 3 == 0 ? model.erase(it) : std::next(it);
  CHECK_EQ_U64(s.size(), model.size());

  /* erase_if */
  std::size_t gone = s.erase_if([](slate::key, int& v) { return v % 2 == 0; });
  std::size_t expected = 0;
  for (auto it = model.begin(); it != model.end();)
    if (it->second % 2 == 0) {
      it = model.erase(it);
      expected++;
    } else {
      ++it;
    }
  CHECK_EQ_U64(gone, expected);
  bad = 0;
  for (auto [k, v] : s) bad += model.count(k) != 1 || model[k] != v;
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_U64(s.size(), model.size());

  /* sort: ascending, every key kept */
  s.sort();
  CHECK(std::is_sorted(s.data(), s.data() + s.size()));
  CHECK(s.try_sort(std::greater<>()).ok());
  CHECK(std::is_sorted(s.data(), s.data() + s.size(), std::greater<>()));
  bad = 0;
  for (const auto& [k, v] : model) bad += s.find(k) == nullptr || *s.find(k) != v;
  CHECK_EQ_INT(bad, 0);

  /* inside a walk (SPEC 3c): setting the given key's element lets the walk
     go on; every other change is carried out and stops it. Each change on a
     copy of s, made by a callable that stops the walk with it, so that
     for_each returns false instead of throwing. */
  slate::slotmap<int> owner; /* no entity lives: a prune by it erases every row */
  const slate::key other = s.key_at(1);
  const std::size_t before = s.size();
  {
    slate::sparse<int> c = s.clone();
    calls = 0;
    int set_ok = 0;
    CHECK(c.for_each([&](slate::key k, int& v) {
      calls++;
      set_ok += c.try_set(k, v).ok();
    }));
    CHECK_EQ_U64(static_cast<std::size_t>(calls), before);
    CHECK_EQ_U64(static_cast<std::size_t>(set_ok), before);
  }
  for (int change = 0; change < 5; change++) {
    slate::sparse<int> c = s.clone();
    calls = 0;
    slate::status st;
    CHECK(!c.for_each([&](slate::key k, int&) {
      calls++;
      switch (change) {
        case 0: st = c.try_reserve(10000); break;
        case 1: st = c.try_sort(); break;
        case 2: c.erase(k == other ? c.key_at(0) : other); break;
        case 3: c.clear(); break;
        default: c.prune(owner); break;
      }
      return false;
    }));
    CHECK_EQ_INT(calls, 1);
    CHECK(st.ok());
    CHECK_EQ_U64(c.size(), change < 2 ? before : change == 2 ? before - 1 : 0);
    if (change == 1) CHECK(std::is_sorted(c.data(), c.data() + c.size()));
  }
#if TEST_HAVE_EXCEPTIONS
  {
    /* without the callable's stop, the walk throws slate::error(INVALID) */
    slate::sparse<int> c = s.clone();
    calls = 0;
    CHECK_EQ_INT(slate_error_of([&] {
                   c.for_each([&](slate::key k, int&) {
                     calls++;
                     c.erase(k == other ? c.key_at(0) : other);
                   });
                 }),
                 SLATE_ERROR_INVALID);
    CHECK_EQ_INT(calls, 1);
    CHECK_EQ_U64(c.size(), before - 1);
  }
#endif
  CHECK_EQ_U64(s.size(), before);
  CHECK(s.contains(other));

#if TEST_HAVE_EXCEPTIONS
  /* an exception from the callable stops the walk and comes out unchanged */
  calls = 0;
  CHECK(throws_as<std::logic_error>([&] {
    s.for_each([&](slate::key, int&) {
      if (++calls == 5) throw std::logic_error("stop");
    });
  }));
  CHECK_EQ_INT(calls, 5);
  calls = 0;
  const std::size_t size_before = s.size();
  CHECK(throws_as<std::logic_error>([&] {
    s.erase_if([&](slate::key, int&) {
      if (++calls == 4) throw std::logic_error("stop");
      return true;
    });
  }));
  CHECK_EQ_U64(s.size(), size_before - 3); /* the three approved before */
  CHECK(throws_as<std::logic_error>([&] {
    s.sort([](int, int) -> bool { throw std::logic_error("no"); });
  }));
  CHECK_EQ_U64(s.size(), size_before - 3);
#else
  TEST_SKIPPED("sparse walks: exceptions from the callable", TEST_NO_EXCEPTIONS);
#endif
}

/* The keys present in every set (and alive in the owner, if any). */
template <class... Sets>
static std::set<slate::key> intersection(const slate::slotmap<int>* owner, const Sets&... sets) {
  std::set<slate::key> out;
  std::vector<std::set<slate::key>> all{key_set(sets.keys())...};
  for (slate::key k : all[0]) {
    bool every = owner == nullptr || owner->contains(k);
    for (const auto& s : all) every = every && s.count(k) == 1;
    if (every) out.insert(k);
  }
  return out;
}

static void test_join() {
  TEST_SECTION("join: 1-4 sets, with and without an owner, erasing inside");
  std::mt19937_64 rng(7);
  slate::slotmap<int> world;
  slate::sparse<int> a;
  slate::sparse<double> b;
  slate::sparse<vel2> c;
  slate::sparse<void> tag;
  std::vector<slate::key> ks;
  for (int i = 0; i < 2000; i++) ks.push_back(world.insert(i));
  for (std::size_t i = 0; i < ks.size(); i++) {
    const slate::key k = ks[i];
    if (rng() % 2) a.set(world, k, world[k]);
    if (rng() % 3) b.set(world, k, world[k] * 0.5);
    if (rng() % 4 == 0) c.set(world, k, {static_cast<float>(world[k]), 0});
    if (rng() % 5 == 0) tag.set(world, k);
  }
  for (std::size_t i = 0; i < ks.size(); i += 7) CHECK(world.erase(ks[i])); /* some die */

  /* one set, with the owner: the dead are skipped */
  std::set<slate::key> seen;
  int bad = 0;
  CHECK(slate::join(world, a, [&](slate::key k, int& v) {
    bad += !seen.insert(k).second || v != world[k];
  }));
  CHECK_EQ_INT(bad, 0);
  CHECK(seen == intersection(&world, a));
  /* ... and without it (slate::join(sets..., f) and join(nullptr, ...)) */
  seen.clear();
  CHECK(slate::join(a, [&](slate::key k, int&) { seen.insert(k); }));
  CHECK(seen == key_set(a.keys()));
  seen.clear();
  CHECK(slate::join(nullptr, a, [&](slate::key k, const int&) { seen.insert(k); }));
  CHECK_EQ_U64(seen.size(), a.size());
  /* ... and with a C slotmap_s as the owner */
  seen.clear();
  const slotmap_s& raw_world = *world.native();
  CHECK(slate::join(raw_world, a, [&](slate::key k, int&) { seen.insert(k); }));
  CHECK(seen == intersection(&world, a));

  /* two, three, four sets; each element is the key's own */
  seen.clear();
  slate::join(world, a, b, [&](slate::key k, int& x, double& y) {
    bad += !seen.insert(k).second || x != world[k] || y != world[k] * 0.5;
  });
  CHECK_EQ_INT(bad, 0);
  CHECK(seen == intersection(&world, a, b));
  seen.clear();
  slate::join(a, b, c, [&](slate::key k, int& x, double& y, vel2& z) {
    bad += !seen.insert(k).second || y != x * 0.5 || z.dx != static_cast<float>(x);
  });
  CHECK_EQ_INT(bad, 0);
  CHECK(seen == intersection(nullptr, a, b, c));
  seen.clear();
  /* a membership set filters and adds no argument */
  slate::join(world, a, tag, b, c, [&](slate::key k, int& x, double&, vel2&) {
    bad += !seen.insert(k).second || !tag.contains(k) || x != world[k];
  });
  CHECK_EQ_INT(bad, 0);
  CHECK(seen == intersection(&world, a, tag, b, c));
  seen.clear();
  slate::join(tag, [&](slate::key k) { seen.insert(k); });
  CHECK(seen == key_set(tag));

  /* the owner's element after the key, when the callable asks for it */
  seen.clear();
  slate::join(world, c, [&](slate::key k, int& entity, vel2& z) {
    bad += &entity != world.find(k) || z.dx != static_cast<float>(entity);
    seen.insert(k);
  });
  CHECK_EQ_INT(bad, 0);
  CHECK(seen == intersection(&world, c));
  /* a const set gives const references */
  const slate::sparse<double>& cb = b;
  slate::join(cb, a, [&](slate::key, const double& y, int& x) { bad += y != x * 0.5; });
  CHECK_EQ_INT(bad, 0);

  /* false stops */
  int calls = 0;
  CHECK(!slate::join(world, a, b, [&](slate::key, int&, double&) { return ++calls < 5; }));
  CHECK_EQ_INT(calls, 5);

  /* erasing the given key from any of the sets: each key still once */
  const std::set<slate::key> both = intersection(&world, a, b);
  std::map<slate::key, int> visits;
  slate::join(world, a, b, [&](slate::key k, int& x, double&) {
    visits[k]++;
    if (x % 2 == 0) CHECK(a.erase(k));
    else CHECK(b.erase(k));
  });
  bad = 0;
  for (const auto& [k, n] : visits) bad += n != 1;
  CHECK_EQ_INT(bad, 0);
  std::set<slate::key> visited;
  for (const auto& [k, n] : visits) visited.insert(k);
  CHECK(visited == both);
  CHECK(intersection(&world, a, b).empty());
  /* the tag dropped from inside a join over it */
  slate::join(world, tag, [&](slate::key k) { CHECK(tag.erase(k)); });
  CHECK(intersection(&world, tag).empty());

  /* inside a join over c (SPEC 3c), each on a copy of c: setting the given
     key's element lets the join go on; erasing another key, or a prune that
     erases rows other than the given one, is carried out and stops it */
  slate::key other = c.key_at(1); /* (row 0's key is the one the walk gives first) */
  std::size_t c_before = c.size();
  {
    auto copy = c.clone();
    calls = 0;
    int set_ok = 0;
    CHECK(slate::join(copy, [&](slate::key k, vel2& v) {
      calls++;
      set_ok += copy.try_set(k, v).ok();
    }));
    CHECK_EQ_U64(static_cast<std::size_t>(calls), c_before);
    CHECK_EQ_INT(set_ok, calls);
  }
  {
    /* the callable stops the join with the change: join returns false */
    auto copy = c.clone();
    calls = 0;
    CHECK(!slate::join(copy, [&](slate::key k, vel2&) {
      calls++;
      copy.erase(k == other ? copy.key_at(0) : other);
      return false;
    }));
    CHECK_EQ_INT(calls, 1);
    CHECK_EQ_U64(copy.size(), c_before - 1);
  }
#if TEST_HAVE_EXCEPTIONS
  {
    std::size_t dead = 0;
    for (slate::key k : c.keys()) dead += !world.contains(k);
    auto copy = c.clone();
    calls = 0;
    const int code = slate_error_of([&] {
      slate::join(copy, [&](slate::key, vel2&) {
        calls++;
        copy.prune(world);
      });
    });
    /* entities died before (c holds their rows): more than the given key
       goes, so the join throws */
    CHECK(dead >= 2);
    CHECK_EQ_INT(code, SLATE_ERROR_INVALID);
    CHECK_EQ_INT(calls, 1);
    CHECK_EQ_U64(copy.size(), c_before - dead);
  }
#endif
  CHECK_EQ_U64(c.size(), c_before);
  CHECK(c.contains(other));
  std::size_t died = 0;
  slate::join(world, c, [&](slate::key k, vel2&) { died += world.erase(k); });
  CHECK(died > 0);
  std::size_t stale = 0;
  for (slate::key k : c.keys()) stale += !world.contains(k); /* these and those that died before */
  CHECK(stale >= died);
  CHECK_EQ_U64(c.prune(world), stale);
  CHECK_EQ_U64(c.size(), c_before - stale);
  CHECK(intersection(&world, c).empty());

#if TEST_HAVE_EXCEPTIONS
  calls = 0;
  slate::sparse<int> d;
  for (int i = 1; i <= 10; i++) d.set(slate::key(uint64_t{1} << 32 | static_cast<uint64_t>(i)), i);
  CHECK(throws_as<std::runtime_error>([&] {
    slate::join(d, [&](slate::key, int&) {
      if (++calls == 3) throw std::runtime_error("stop");
    });
  }));
  CHECK_EQ_INT(calls, 3);
  CHECK_EQ_U64(d.size(), 10);
#else
  TEST_SKIPPED("join: exceptions from the callable", TEST_NO_EXCEPTIONS);
#endif
}

/* sparse<T> and sparse<void> against models, keys from an owner under churn. */
static void test_sparse_differential(uint64_t seed) {
  TEST_SECTION("sparse differential (owner under churn)");
  std::mt19937_64 rng(seed ^ 0x5eed);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  slate::slotmap<int> world;
  slate::sparse<record> s;
  slate::sparse<void> m;
  std::unordered_map<slate::key, record> model;
  std::set<slate::key> members;
  std::vector<slate::key> live, dead;
  int bad = 0;
  for (int step = 0; step < 20000; step++) {
    const int op = static_cast<int>(rng() % 100);
    if (op < 20 || live.empty()) { /* an entity is born */
      live.push_back(world.insert(step));
    } else if (op < 30) { /* one dies (its parts stay until pruned or replaced) */
      size_t i = pick(live.size());
      CHECK(world.erase(live[i]));
      dead.push_back(live[i]);
      live[i] = live.back();
      live.pop_back();
    } else if (op < 55) { /* set, checked, a live key */
      slate::key k = live[pick(live.size())];
      record r{rng(), static_cast<double>(step), step, 0};
      const bool fresh = model.count(k) == 0;
      /* one key per slot: another generation of k's slot goes */
      for (auto it = model.begin(); it != model.end();)
        it = it->first.index() == k.index() && it->first != k ? model.erase(it) : std::next(it);
      bad += s.set(world, k, r) != fresh;
      model[k] = r;
      if (rng() % 2) {
        for (auto it = members.begin(); it != members.end();)
          it = it->index() == k.index() && *it != k ? members.erase(it) : std::next(it);
        bad += m.set(world, k) == (members.count(k) == 1);
        members.insert(k);
      }
    } else if (op < 62 && !dead.empty()) { /* set, checked, a dead key: refused */
      slate::key k = dead[pick(dead.size())];
      bad += s.try_set(world, k, record{}).code() != SLATE_ERROR_NOT_FOUND;
      bad += m.try_set(world, k).code() != SLATE_ERROR_NOT_FOUND;
    } else if (op < 80) { /* erase, live or dead */
      slate::key k = (rng() % 2 || dead.empty()) ? live[pick(live.size())] : dead[pick(dead.size())];
      bad += s.erase(k) != (model.erase(k) == 1);
      bad += m.erase(k) != (members.erase(k) == 1);
    } else if (op < 82) { /* prune */
      std::size_t expected = 0;
      for (auto it = model.begin(); it != model.end();)
        if (!world.contains(it->first)) {
          it = model.erase(it);
          expected++;
        } else {
          ++it;
        }
      bad += s.prune(world) != expected;
      expected = 0;
      for (auto it = members.begin(); it != members.end();)
        if (!world.contains(*it)) {
          it = members.erase(it);
          expected++;
        } else {
          ++it;
        }
      bad += m.prune(world) != expected;
    } else { /* lookups of live, dead and forged keys */
      slate::key k = (rng() % 3 == 0) ? slate::key(rng()) :
                     (rng() % 2 || dead.empty()) ? live[pick(live.size())] : dead[pick(dead.size())];
      auto it = model.find(k);
      const record* found = s.find(k);
      bad += (found == nullptr) != (it == model.end());
      if (found && it != model.end()) bad += !same(*found, it->second);
      bad += s.contains(k) != (it != model.end());
      bad += m.contains(k) != (members.count(k) == 1);
    }
    if (step % 2000 == 1999) { /* full comparison */
      bad += s.size() != model.size() || m.size() != members.size();
      std::size_t n = 0;
      for (auto [k, r] : s) {
        auto it = model.find(k);
        bad += it == model.end() || !same(r, it->second);
        n++;
      }
      bad += n != model.size();
      bad += key_set(m) != members;
      /* joined with the owner: exactly the live keys present in both */
      std::set<slate::key> seen;
      slate::join(world, s, m, [&](slate::key k, record& r) {
        bad += !seen.insert(k).second || !same(r, model[k]);
      });
      bad += seen != intersection(&world, s, m);
    }
  }
  CHECK_EQ_INT(bad, 0);
}

static void test_sparse_move_clone_allocator() {
  TEST_SECTION("sparse<T>: move, swap, clone, with_allocator");
  slate::sparse<particle> a;
  std::vector<slate::key> keys;
  for (uint32_t i = 0; i < 50; i++) {
    keys.emplace_back(uint64_t{3} << 32 | (i * 1000));
    a.set(keys.back(), {static_cast<float>(i), 0, static_cast<int32_t>(i), 0});
  }
  particle* p10 = a.find(keys[10]);

  slate::sparse<particle> b(std::move(a));
  CHECK_EQ_U64(b.size(), 50);
  CHECK(b.find(keys[10]) == p10);
  CHECK(a.empty()); /* NOLINT: moved-from is valid and empty */
  CHECK(a.begin() == a.end());
  CHECK(a.set(keys[0], {}));
  slate::sparse<particle> c;
  c.set(keys[1], {});
  c = std::move(b);
  CHECK_EQ_U64(c.size(), 50);
  CHECK(c.find(keys[10]) == p10);
  CHECK(b.empty());
  self_move(c, c);
  CHECK_EQ_U64(c.size(), 50);
  c.swap(a);
  CHECK_EQ_U64(a.size(), 50);
  CHECK_EQ_U64(c.size(), 1);
  using std::swap;
  swap(a, c);
  CHECK_EQ_U64(c.size(), 50);

  slate::sparse<particle> d = c.clone();
  CHECK_EQ_U64(d.size(), 50);
  int bad = 0;
  for (slate::key k : keys) bad += d.find(k) == nullptr || d.find(k)->id != c.find(k)->id || d.find(k) == c.find(k);
  CHECK_EQ_INT(bad, 0);
  d.find(keys[0])->id = 1000;
  CHECK_EQ_INT(c.find(keys[0])->id, 0);
  CHECK(d.erase(keys[1]));
  CHECK(c.contains(keys[1]));
  CHECK_EQ_INT(d.try_clone(d).code(), SLATE_ERROR_INVALID);
  slate::sparse<particle> t;
  t.set(keys[5], {});
  CHECK(d.try_clone(t).ok());
  CHECK_EQ_U64(t.size(), 49);
  CHECK_EQ_INT(t.find(keys[0])->id, 1000);

  std::vector<slate::sparse<int>> many(20);
  for (std::size_t i = 0; i < many.size(); i++) many[i].set(keys[i], static_cast<int>(i));
  many.resize(40); /* moves every set */
  bad = 0;
  for (std::size_t i = 0; i < 20; i++) bad += *many[i].find(keys[i]) != static_cast<int>(i);
  CHECK_EQ_INT(bad, 0);

  counting_s counts;
  const slate_allocator_s allocator{counting_allocate, counting_release, &counts};
  {
    auto s = slate::sparse<uint64_t>::with_allocator(allocator);
    auto m = slate::sparse<void>::with_allocator(allocator);
    CHECK_EQ_U64(counts.allocations, 0);
    for (uint64_t i = 1; i <= 1000; i++) {
      s.set(slate::key(uint64_t{1} << 32 | (i * 37)), i);
      m.set(slate::key(uint64_t{1} << 32 | (i * 37)));
    }
    CHECK(counts.allocations > 2);
    CHECK(counts.live > 0);
    const uint64_t live = counts.live;
    auto copy = s.clone(); /* inherits the allocator */
    CHECK(counts.live > live);
    CHECK_EQ_U64(copy.size(), 1000);
    CHECK_EQ_INT(s.try_set_allocator(nullptr).code(), SLATE_ERROR_INVALID); /* holds memory */
#if TEST_HAVE_EXCEPTIONS
    CHECK_EQ_INT(slate_error_of([&] { m.set_allocator(allocator); }), SLATE_ERROR_INVALID);
    slate_allocator_s half = allocator;
    half.allocate = nullptr;
    CHECK_EQ_INT(slate_error_of([&] { (void)slate::sparse<int>::with_allocator(half); }),
                 SLATE_ERROR_INVALID);
#endif
    s.sort(std::greater<>());
    CHECK_EQ_U64(s.data()[0], 1000);
    CHECK_EQ_U64(s.erase_if([](slate::key, uint64_t& v) { return v % 2 == 0; }), 500);
  }
  CHECK_EQ_U64(counts.live, 0);
  CHECK_EQ_U64(counts.allocations, counts.releases);
  CHECK_EQ_U64(counts.bad, 0);

  /* an allocator that fails: try_ twins report it, the set is unchanged */
  failing_allocator_s fail;
  const slate_allocator_s failing{failing_allocate, failing_release, &fail};
  {
    auto s = slate::sparse<int>::with_allocator(failing);
    fail.fail = true;
    CHECK_EQ_INT(s.try_set(keys[0], 1).code(), SLATE_ERROR_ALLOC);
    CHECK_EQ_INT(s.try_reserve(100).code(), SLATE_ERROR_ALLOC);
    CHECK(s.empty());
#if TEST_HAVE_EXCEPTIONS
    CHECK(throws_as<std::bad_alloc>([&] { s.set(keys[0], 1); }));
#endif
    fail.fail = false;
    CHECK(s.set(keys[0], 1));
    CHECK(s.set(keys[1], 2));
    fail.fail = true;
    slate::sparse<int> out;
    CHECK_EQ_INT(s.try_clone(out).code(), SLATE_ERROR_ALLOC);
    CHECK(out.empty());
    CHECK_EQ_INT(s.try_sort().code(), SLATE_ERROR_ALLOC);
    CHECK_EQ_U64(s.size(), 2);
    CHECK(s.find(keys[1]) != nullptr && *s.find(keys[1]) == 2);
    fail.fail = false;
  }
  CHECK_EQ_U64(fail.live, 0);
}

/* ------------------------------------------------------------------------ */
/* snapshots: save / load (SPEC §6c)                                         */
/* ------------------------------------------------------------------------ */

using bytes_t = std::vector<unsigned char>;

/* A save's write that appends every piece to a std::string. */
struct string_writer {
  std::string* out;
  int calls = 0;
  void operator()(const void* bytes, std::size_t length) {
    out->append(static_cast<const char*>(bytes), length);
    calls++;
  }
};

static bool same_bytes(const bytes_t& a, const std::string& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

static slate_snapshot_info_s snapshot_info_of(const void* bytes, std::size_t length) {
  slate_snapshot_info_s info;
  std::memset(&info, 0xA5, sizeof info);
  CHECK_EQ_INT(slate_snapshot_info(bytes, length, &info), SLATE_OK);
  return info;
}

static int slotmap_check_of(const slotmap_s* s) {
  char message[256] = "";
  int rc = slotmap_check(s, message, static_cast<uint32_t>(sizeof message));
  if (rc != SLATE_OK) fprintf(stderr, "slotmap_check: %d: %s\n", rc, message);
  return rc;
}

static int sparse_check_of(const slotmap_sparse_s* s) {
  char message[256] = "";
  int rc = slotmap_sparse_check(s, message, static_cast<uint32_t>(sizeof message));
  if (rc != SLATE_OK) fprintf(stderr, "slotmap_sparse_check: %d: %s\n", rc, message);
  return rc;
}

/* The loads every snapshot refuses the same way, whatever the destination
   type: cut short, one byte damaged, one byte too many, null bytes. Each
   leaves `dest` empty and still a destination. */
template <class Dest>
static void check_refused_bytes(const bytes_t& bytes) {
  Dest dest;
  int bad = 0;
  const std::size_t cuts[] = {0, 1, 8, 39, 40, 47, bytes.size() / 2, bytes.size() - 8, bytes.size() - 1};
  for (std::size_t cut : cuts) bad += dest.load(bytes.data(), cut).code() != SLATE_ERROR_CORRUPT;
  CHECK_EQ_INT(bad, 0);
  bytes_t damaged = bytes;
  damaged[damaged.size() / 2] ^= 0x10;
  CHECK_EQ_INT(dest.load(damaged.data(), damaged.size()).code(), SLATE_ERROR_CORRUPT);
  bytes_t longer = bytes;
  longer.push_back(0);
  CHECK_EQ_INT(dest.load(longer.data(), longer.size()).code(), SLATE_ERROR_CORRUPT);
  CHECK_EQ_INT(dest.load(nullptr, 0).code(), SLATE_ERROR_CORRUPT);
  CHECK_EQ_INT(dest.load(nullptr, bytes.size()).code(), SLATE_ERROR_INVALID);
  CHECK(dest.empty());
  CHECK(dest.load(bytes.data(), bytes.size()).ok());
  CHECK(!dest.empty());
}

/* A codec for map values that are std::string*: saved as the string's
   bytes, loaded as a new std::string. Counts what it decoded and discarded,
   and fails on request. */
struct string_codec_s {
  int encode_fails_with = 0; /* non-zero: every encode returns it */
  bool fail_writing = false;  /* ... only those given room, after 20 of them */
  int writings = 0;
  int decode_fail_at = -1;   /* the decode that returns 9 */
  int decodes = 0;
  long live = 0; /* strings decoded and not yet discarded or deleted */
};
static int string_encode(void* context, void* value, void* buffer, uint32_t capacity, uint32_t* length) {
  auto* c = static_cast<string_codec_s*>(context);
  if (c->encode_fails_with != 0 && (!c->fail_writing || (capacity > 0 && ++c->writings > 20))) {
    return c->encode_fails_with;
  }
  const std::string& s = *static_cast<const std::string*>(value);
  *length = static_cast<uint32_t>(s.size());
  if (s.size() <= capacity && !s.empty()) std::memcpy(buffer, s.data(), s.size());
  return 0;
}
static int string_decode(void* context, const void* bytes, uint32_t length, void** value) {
  auto* c = static_cast<string_codec_s*>(context);
  if (c->decodes++ == c->decode_fail_at) return 9;
  *value = length == 0 ? new std::string() : new std::string(static_cast<const char*>(bytes), length);
  c->live++;
  return 0;
}
static void string_discard(void* context, void* value) {
  static_cast<string_codec_s*>(context)->live--;
  delete static_cast<std::string*>(value);
}

static void test_snapshot_map() {
  TEST_SECTION("snapshots: map save / load, into a vector and through a callable");
  slate::map m;
  m.set("alpha", P(1));
  m.set(std::string("nul\0key", 7), P(2));
  m.set("", P(3));
  m.set(int64_t{-5}, P(4));
  m.set(uint64_t{5}, slate::to_value(-7));
  for (uint64_t i = 0; i < 500; i++) m.set(i + 100, P(static_cast<uintptr_t>(i * 3)));

  const bytes_t bytes = m.save();
  CHECK_EQ_U64(bytes.size(), m.save_size());
  uint64_t size = 0;
  CHECK(m.save_size(nullptr, size).ok());
  CHECK_EQ_U64(size, bytes.size());
  CHECK(m.save() == bytes); /* an unchanged map saves the same bytes */
  slate_snapshot_info_s info = snapshot_info_of(bytes.data(), bytes.size());
  CHECK_EQ_INT(info.kind, SLATE_SNAPSHOT_MAP);
  CHECK_EQ_U64(info.count, m.size());
  CHECK_EQ_INT(info.values, SLATE_SNAPSHOT_VALUES_INTEGERS);
  CHECK_EQ_U64(info.length, bytes.size());

  /* through callables: the same bytes, in pieces; void and int returns */
  std::string streamed;
  string_writer w{&streamed};
  CHECK(m.save(w).ok());
  CHECK(same_bytes(bytes, streamed));
  CHECK(w.calls > 1);
  std::string streamed_int;
  CHECK(m.save([&](const void* p, std::size_t n) -> int {
           streamed_int.append(static_cast<const char*>(p), n);
           return 0;
         }).ok());
  CHECK(same_bytes(bytes, streamed_int));

  /* loads: the same keys with the same values, the invariants hold */
  slate::map back;
  CHECK(back.load(bytes.data(), bytes.size()).ok());
  CHECK(back == m);
  CHECK_MAP_OK(back.native());
  CHECK(back.get(std::string_view("nul\0key", 7)) == std::optional<void*>(P(2)));
  CHECK(back.get(int64_t{-5}) == std::optional<void*>(P(4)));
  CHECK(slate::from_value<int>(*back.get(uint64_t{5})) == -7);
  CHECK_EQ_U64(back.save_size(), bytes.size());
  slate::map pinned; /* a pinned destination keeps its seed: the streamed copy loads the same */
  CHECK(pinned.try_pin_seed(99).ok());
  CHECK(pinned.load(streamed.data(), streamed.size()).ok());
  CHECK(pinned == m);

  /* save(out) appends */
  bytes_t out{'x', 'y', 'z'};
  CHECK(m.save(out).ok());
  CHECK_EQ_U64(out.size(), 3 + bytes.size());
  CHECK(out[0] == 'x' && out[2] == 'z');
  CHECK(std::equal(bytes.begin(), bytes.end(), out.begin() + 3));
  CHECK_EQ_U64(snapshot_info_of(out.data() + 3, out.size() - 3).length, bytes.size());

  /* a used destination: INVALID, unchanged, until it holds no memory */
  slate::map used;
  used.set("keep", P(8));
  CHECK_EQ_INT(used.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(used.size(), 1);
  CHECK(used.get("keep") == std::optional<void*>(P(8)));
  CHECK(used.erase("keep"));
  CHECK_EQ_INT(used.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_INVALID); /* empty, holds memory */
  CHECK(used.empty());
  CHECK(used.try_compact().ok()); /* empty: gives its memory back */
  CHECK(used.load(bytes.data(), bytes.size()).ok());
  CHECK(used == m);
  CHECK_EQ_INT(back.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_INVALID);
  back = slate::map(); /* a new map is a destination */
  CHECK(back.load(bytes.data(), bytes.size()).ok());
  CHECK(back == m);

  check_refused_bytes<slate::map>(bytes);

  /* another kind: UNSUPPORTED both ways, the destinations unchanged */
  slate::slotmap<int> sm;
  CHECK_EQ_INT(sm.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_UNSUPPORTED);
  CHECK(sm.empty());
  sm.insert(1);
  const bytes_t sm_bytes = sm.save();
  slate::map not_a_slotmap;
  CHECK_EQ_INT(not_a_slotmap.load(sm_bytes.data(), sm_bytes.size()).code(), SLATE_ERROR_UNSUPPORTED);
  CHECK(not_a_slotmap.empty());

  TEST_SECTION("snapshots: map values through a codec");
  string_codec_s counts;
  const slate_value_codec_s codec{string_encode, string_decode, string_discard, &counts};
  std::vector<std::string> texts;
  for (int i = 0; i < 40; i++) texts.push_back(std::string(static_cast<std::size_t>(i * 5), char('a' + i % 26)));
  slate::map named;
  for (std::size_t i = 0; i < texts.size(); i++) named.set(i, &texts[i]);
  const bytes_t coded = named.save(&codec);
  CHECK_EQ_INT(snapshot_info_of(coded.data(), coded.size()).values, SLATE_SNAPSHOT_VALUES_CODEC);
  CHECK(named.save_size(&codec, size).ok());
  CHECK_EQ_U64(size, coded.size());
  std::string coded_streamed;
  CHECK(named.save(string_writer{&coded_streamed}, &codec).ok());
  CHECK(same_bytes(coded, coded_streamed));
  slate::map decoded;
  CHECK(decoded.load(coded.data(), coded.size(), &codec).ok());
  CHECK_EQ_U64(decoded.size(), texts.size());
  CHECK_EQ_INT(counts.live, static_cast<long>(texts.size()));
  int bad = 0;
  for (std::size_t i = 0; i < texts.size(); i++) {
    auto v = decoded.get(i);
    bad += !v || *static_cast<std::string*>(*v) != texts[i] || *v == &texts[i];
  }
  CHECK_EQ_INT(bad, 0);
  decoded.for_each([&](std::string_view, void* v) { string_discard(&counts, v); });
  CHECK_EQ_INT(counts.live, 0);

  /* the other value encoding: UNSUPPORTED, nothing decoded */
  slate::map wrong;
  CHECK_EQ_INT(wrong.load(coded.data(), coded.size()).code(), SLATE_ERROR_UNSUPPORTED);
  CHECK_EQ_INT(wrong.load(bytes.data(), bytes.size(), &codec).code(), SLATE_ERROR_UNSUPPORTED);
  CHECK(wrong.empty());
  /* a decode that refuses: its code; every value decoded before discarded */
  counts.decodes = 0;
  counts.decode_fail_at = 25;
  CHECK_EQ_INT(wrong.load(coded.data(), coded.size(), &codec).code(), 9);
  CHECK_EQ_INT(counts.decodes, 26);
  CHECK_EQ_INT(counts.live, 0);
  CHECK(wrong.empty());
  counts.decode_fail_at = -1;
  /* an encode that refuses: its code from every save; out unchanged */
  counts.encode_fails_with = 7;
  bytes_t kept{1, 2};
  CHECK_EQ_INT(named.save(kept, &codec).code(), 7);
  CHECK((kept == bytes_t{1, 2}));
  CHECK_EQ_INT(named.save(string_writer{&coded_streamed}, &codec).code(), 7);
  CHECK_EQ_INT(named.save_size(&codec, size).code(), 7);
#if TEST_HAVE_EXCEPTIONS
  CHECK_EQ_INT(slate_error_of([&] { (void)named.save(&codec); }), 7);
#endif
  /* save_size passes, the save stops after writing some of it (values of
     8 KiB: more than the save buffers before it writes) */
  counts.fail_writing = true;
  std::vector<std::string> long_texts(40, std::string(8192, 'q'));
  slate::map long_named;
  for (std::size_t i = 0; i < long_texts.size(); i++) long_named.set(i, &long_texts[i]);
  CHECK(long_named.save_size(&codec, size).ok());
  std::size_t written = 0;
  CHECK_EQ_INT(long_named.save([&](const void*, std::size_t n) { written += n; }, &codec).code(), 7);
  CHECK(written > 0 && written < size);
  counts.writings = 0;
  CHECK_EQ_INT(long_named.save(kept, &codec).code(), 7);
  CHECK((kept == bytes_t{1, 2}));
  counts.encode_fails_with = 0;
  counts.fail_writing = false;

  TEST_SECTION("snapshots: map save stopped by write");
  /* a non-zero return stops the save and becomes its return */
  int calls = 0;
  CHECK_EQ_INT(m.save([&](const void*, std::size_t) { return ++calls == 2 ? 42 : 0; }).code(), 42);
  CHECK_EQ_INT(calls, 2);
  calls = 0;
  CHECK_EQ_INT(m.save([&](const void*, std::size_t) {
                  calls++;
                  return SLATE_ERROR_FULL;
                }).code(),
               SLATE_ERROR_FULL);
  CHECK_EQ_INT(calls, 1);
  /* a write that changes the map: INVALID (SPEC §3c) */
  slate::map changing = m.clone();
  CHECK_EQ_INT(changing.save([&](const void*, std::size_t) { changing.set("new", P(1)); }).code(),
               SLATE_ERROR_INVALID);
  CHECK(changing.contains("new"));
#if TEST_HAVE_EXCEPTIONS
  /* an exception from write: rethrown after the C call, the codec's
     scratch buffer given back, no further write */
  counting_s alloc_counts;
  const slate_allocator_s allocator{counting_allocate, counting_release, &alloc_counts};
  {
    slate::map counted = slate::map::with_allocator(allocator);
    for (std::size_t i = 0; i < texts.size(); i++) counted.set(i, &texts[i]);
    std::string long_text(5000, 'L'); /* a record past 4 KiB: the scratch buffer */
    counted.set(texts.size(), &long_text);
    const std::size_t expected = counted.save(&codec).size();
    const uint64_t live = alloc_counts.live, allocations = alloc_counts.allocations;
    CHECK_EQ_U64(live, info_of(counted.native()).memory);
    calls = 0;
    bool caught = false;
    try {
      (void)counted.save(
          [&](const void*, std::size_t) {
            if (++calls == 3) throw test_exception{38};
          },
          &codec);
    } catch (const test_exception& e) {
      caught = e.value == 38;
    }
    CHECK(caught);
    CHECK_EQ_INT(calls, 3);
    CHECK(alloc_counts.allocations > allocations); /* the scratch buffer ... */
    CHECK_EQ_U64(alloc_counts.live, live);           /* ... went back */
    CHECK_EQ_U64(counted.save(&codec).size(), expected); /* and the map saves as before */
  }
  CHECK_EQ_U64(alloc_counts.live, 0);
  CHECK_EQ_U64(alloc_counts.bad, 0);
#endif
}

/* Every key of `keys` finds in `b` what it finds in `a` (both nothing, or
   equal rows); returns how many differ. */
template <class A, class B>
static int differing_finds(const A& a, const B& b, const std::vector<slate::key>& keys) {
  int bad = 0;
  for (slate::key k : keys) {
    auto* x = a.find(k);
    auto* y = b.find(k);
    bad += (x == nullptr) != (y == nullptr) || (x && std::memcmp(x, y, sizeof *x) != 0);
  }
  return bad;
}

static void test_snapshot_slotmap() {
  TEST_SECTION("snapshots: slotmap<T> save / load, keys keep their meaning");
  slate::slotmap<particle> s;
  std::vector<slate::key> keys, stale;
  for (int i = 0; i < 300; i++) {
    keys.push_back(s.insert({float(i), float(-i), i, uint32_t(i) * 7}));
  }
  for (std::size_t i = 0; i < keys.size(); i += 3) {
    CHECK(s.erase(keys[i]));
    stale.push_back(keys[i]);
  }
  slate::key reused = s.insert({1, 2, 3, 4}); /* a slot of a stale key, next generation */
  keys.push_back(reused);

  const bytes_t bytes = s.save();
  CHECK_EQ_U64(bytes.size(), s.save_size());
  CHECK(s.save() == bytes);
  slate_snapshot_info_s info = snapshot_info_of(bytes.data(), bytes.size());
  CHECK_EQ_INT(info.kind, SLATE_SNAPSHOT_SLOTMAP);
  CHECK_EQ_U64(info.count, s.size());
  CHECK_EQ_INT(info.columns, 1);
  CHECK_EQ_INT(info.sizes[0], sizeof(particle));
  std::string streamed;
  string_writer w{&streamed};
  CHECK(s.save(w).ok());
  CHECK(same_bytes(bytes, streamed));

  for (int via = 0; via < 2; via++) {
    slate::slotmap<particle> back;
    const void* data = via == 0 ? static_cast<const void*>(bytes.data()) : streamed.data();
    CHECK(back.load(data, bytes.size()).ok());
    CHECK_EQ_INT(slotmap_check_of(back.native()), SLATE_OK);
    CHECK_EQ_U64(back.size(), s.size());
    CHECK(std::memcmp(back.data(), s.data(), s.size() * sizeof(particle)) == 0); /* dense order too */
    int bad = 0;
    for (std::size_t r = 0; r < s.size(); r++) bad += back.key_at(r) != s.key_at(r);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(differing_finds(s, back, keys), 0);
    for (slate::key k : stale) bad += back.contains(k);
    CHECK_EQ_INT(bad, 0);
    CHECK(back.contains(reused));
    CHECK(back.save() == bytes); /* the loaded slotmap saves the same bytes */
    if (via == 1) {
      /* the next keys are the ones the original issues, and the stale
         keys stay stale through the reuse of their slots */
      slate::slotmap<particle> original = s.clone();
      CHECK(original.save() == bytes); /* (a clone keeps the key history) */
      std::vector<slate::key> more;
      for (int i = 0; i < 150; i++) {
        slate::key a = original.insert({0, 0, i, 0});
        slate::key b = back.insert({0, 0, i, 0});
        bad += a != b;
        more.push_back(b);
      }
      CHECK_EQ_INT(bad, 0);
      for (slate::key k : stale) bad += back.contains(k);
      CHECK_EQ_INT(bad, 0);
      CHECK_EQ_INT(differing_finds(original, back, more), 0);
    }
  }

  TEST_SECTION("snapshots: slotmap<T> layout and destination checks");
  /* another sizeof(T): UNSUPPORTED, the destination unchanged */
  slate::slotmap<uint64_t> narrow;
  CHECK_EQ_INT(narrow.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_UNSUPPORTED);
  CHECK(narrow.empty());
  slate::slotmap<odd_size> odd;
  CHECK_EQ_INT(odd.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_UNSUPPORTED);
  CHECK(odd.empty());
  slate::slotmap<uint64_t> narrow_source; /* the refused loads left it a destination */
  const slate::key n1 = narrow_source.insert(1);
  const bytes_t narrow_bytes = narrow_source.save();
  CHECK(narrow.load(narrow_bytes.data(), narrow_bytes.size()).ok());
  CHECK(narrow.find(n1) != nullptr && *narrow.find(n1) == 1);
  /* the check is by size: a T of the same size loads its bytes as they are */
  static_assert(sizeof(vec4) == sizeof(particle));
  slate::slotmap<vec4> same_size;
  CHECK(same_size.load(bytes.data(), bytes.size()).ok());
  CHECK(std::memcmp(same_size.data(), s.data(), s.size() * sizeof(particle)) == 0);
  /* a set's snapshot, or a map's: another kind */
  slate::sparse<particle> set_of;
  set_of.set(reused, {});
  const bytes_t set_bytes = set_of.save();
  slate::slotmap<particle> not_a_set;
  CHECK_EQ_INT(not_a_set.load(set_bytes.data(), set_bytes.size()).code(), SLATE_ERROR_UNSUPPORTED);
  CHECK(not_a_set.empty());

  /* the destination's limit: FULL, unchanged; a higher limit takes it */
  slate::slotmap<particle> small;
  small.limit(10);
  CHECK_EQ_INT(small.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_FULL);
  CHECK(small.empty());
  small.limit(s.size());
  CHECK(small.load(bytes.data(), bytes.size()).ok());
  CHECK_EQ_U64(small.size(), s.size());

  /* a slotmap that issued keys is no destination (INVALID), even empty */
  slate::slotmap<particle> used;
  slate::key u = used.insert({9, 9, 9, 9});
  CHECK_EQ_INT(used.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_INVALID);
  CHECK(used.contains(u) && used.size() == 1);
  CHECK(used.erase(u));
  CHECK_EQ_INT(used.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_INVALID);
  CHECK(used.empty());
  used.clear();
  CHECK_EQ_INT(used.load(bytes.data(), bytes.size()).code(), SLATE_ERROR_INVALID);
  used = slate::slotmap<particle>(); /* a new one is */
  CHECK(used.load(bytes.data(), bytes.size()).ok());
  CHECK_EQ_INT(differing_finds(s, used, keys), 0);

  check_refused_bytes<slate::slotmap<particle>>(bytes);

  TEST_SECTION("snapshots: slotmap<T> save stopped by write");
  int calls = 0;
  CHECK_EQ_INT(s.save([&](const void*, std::size_t) { return ++calls == 2 ? 42 : 0; }).code(), 42);
  CHECK_EQ_INT(calls, 2);
  calls = 0;
  CHECK_EQ_INT(s.save([&](const void*, std::size_t) -> int { return ++calls == 1 ? -77 : 0; }).code(), -77);
  CHECK_EQ_INT(calls, 1);
  slate::slotmap<particle> changing = s.clone();
  CHECK_EQ_INT(changing.save([&](const void*, std::size_t) { changing.insert({}); }).code(),
               SLATE_ERROR_INVALID);
  CHECK_EQ_U64(changing.size(), s.size() + 1);
  /* a write that only reads the slotmap goes on */
  std::size_t seen = 0;
  CHECK(s.save([&](const void*, std::size_t) { seen += s.size(); }).ok());
  CHECK(seen > 0);
#if TEST_HAVE_EXCEPTIONS
  calls = 0;
  bool caught = false;
  try {
    (void)s.save([&](const void*, std::size_t) {
      if (++calls == 2) throw test_exception{2};
    });
  } catch (const test_exception& e) {
    caught = e.value == 2;
  }
  CHECK(caught);
  CHECK_EQ_INT(calls, 2);
  CHECK(s.save() == bytes); /* the slotmap is as it was */
  caught = false;
  try {
    (void)s.save([&](const void*, std::size_t) { throw std::runtime_error("disk full"); });
  } catch (const std::runtime_error& e) {
    caught = std::string(e.what()) == "disk full";
  }
  CHECK(caught);
#else
  TEST_SKIPPED("snapshots: an exception from write", TEST_NO_EXCEPTIONS);
#endif
}

static void test_snapshot_sparse() {
  TEST_SECTION("snapshots: sparse<T> and sparse<void>, one buffer with their slotmap");
  slate::slotmap<int> world;
  slate::sparse<vel2> vel;
  slate::sparse<void> tag;
  std::vector<slate::key> keys;
  for (int i = 0; i < 200; i++) keys.push_back(world.insert(i));
  for (int i = 0; i < 200; i++) {
    if (i % 2 == 0) vel.set(world, keys[std::size_t(i)], {float(i), float(i) / 2});
    if (i % 3 == 0) tag.set(world, keys[std::size_t(i)]);
  }
  for (int i = 0; i < 200; i += 5) CHECK(world.erase(keys[std::size_t(i)])); /* some sets' keys die */
  CHECK(vel.erase(keys[2]));

  bytes_t all;
  CHECK(world.save(all).ok());
  CHECK(vel.save(all).ok());
  CHECK(tag.save(all).ok());
  CHECK_EQ_U64(all.size(), world.save_size() + vel.save_size() + tag.save_size());
  const bytes_t vel_bytes = vel.save(), tag_bytes = tag.save();
  std::string streamed;
  string_writer w{&streamed};
  CHECK(vel.save(w).ok());
  CHECK(same_bytes(vel_bytes, streamed));

  /* walk the buffer with slate_snapshot_info, load each into a new container */
  slate::slotmap<int> world2;
  slate::sparse<vel2> vel2_;
  slate::sparse<void> tag2;
  std::size_t at = 0;
  uint32_t kinds[3] = {0, 0, 0};
  for (int i = 0; i < 3 && at < all.size(); i++) {
    slate_snapshot_info_s info = snapshot_info_of(all.data() + at, all.size() - at);
    kinds[i] = info.kind;
    const std::size_t n = static_cast<std::size_t>(info.length);
    slate::status st;
    if (i == 0) st = world2.load(all.data() + at, n);
    if (i == 1) st = vel2_.load(all.data() + at, n);
    if (i == 2) st = tag2.load(all.data() + at, n);
    CHECK(st.ok());
    at += n;
  }
  CHECK_EQ_U64(at, all.size());
  CHECK(kinds[0] == SLATE_SNAPSHOT_SLOTMAP && kinds[1] == SLATE_SNAPSHOT_SPARSE &&
        kinds[2] == SLATE_SNAPSHOT_SPARSE);
  CHECK_EQ_INT(snapshot_info_of(vel_bytes.data(), vel_bytes.size()).columns, 1);
  CHECK_EQ_INT(snapshot_info_of(vel_bytes.data(), vel_bytes.size()).sizes[0], sizeof(vel2));
  CHECK_EQ_INT(snapshot_info_of(tag_bytes.data(), tag_bytes.size()).columns, 0);
  CHECK_EQ_INT(slotmap_check_of(world2.native()), SLATE_OK);
  CHECK_EQ_INT(sparse_check_of(vel2_.native()), SLATE_OK);
  CHECK_EQ_INT(sparse_check_of(tag2.native()), SLATE_OK);

  /* the same keys in the same dense order, the same rows */
  CHECK_EQ_U64(vel2_.size(), vel.size());
  CHECK_EQ_U64(tag2.size(), tag.size());
  CHECK(std::equal(vel.keys().begin(), vel.keys().end(), vel2_.keys().begin()));
  CHECK(std::equal(tag.keys().begin(), tag.keys().end(), tag2.keys().begin()));
  CHECK(std::memcmp(vel2_.data(), vel.data(), vel.size() * sizeof(vel2)) == 0);
  CHECK_EQ_INT(differing_finds(vel, vel2_, keys), 0);
  int bad = 0;
  for (slate::key k : keys) bad += tag.contains(k) != tag2.contains(k) || world.contains(k) != world2.contains(k);
  CHECK_EQ_INT(bad, 0);
  CHECK(vel2_.save() == vel_bytes);
  CHECK(tag2.save() == tag_bytes);
  /* and they agree with their loaded slotmap as the originals do */
  std::size_t joined = 0, joined2 = 0;
  slate::join(world, vel, tag, [&](slate::key, vel2&) { joined++; });
  slate::join(world2, vel2_, tag2, [&](slate::key, vel2&) { joined2++; });
  CHECK(joined > 0);
  CHECK_EQ_U64(joined2, joined);
  const std::size_t pruned = vel.prune(world);
  CHECK(pruned > 0);
  CHECK_EQ_U64(vel2_.prune(world2), pruned);
  CHECK(std::equal(vel.keys().begin(), vel.keys().end(), vel2_.keys().begin()));

  TEST_SECTION("snapshots: sparse layout and destination checks");
  /* another layout: UNSUPPORTED, unchanged */
  slate::sparse<int> narrow; /* 4 bytes, not 8 */
  CHECK_EQ_INT(narrow.load(vel_bytes.data(), vel_bytes.size()).code(), SLATE_ERROR_UNSUPPORTED);
  slate::sparse<void> members;
  CHECK_EQ_INT(members.load(vel_bytes.data(), vel_bytes.size()).code(), SLATE_ERROR_UNSUPPORTED);
  slate::sparse<vel2> rows;
  CHECK_EQ_INT(rows.load(tag_bytes.data(), tag_bytes.size()).code(), SLATE_ERROR_UNSUPPORTED);
  slate::slotmap<vel2> not_a_slotmap;
  CHECK_EQ_INT(not_a_slotmap.load(vel_bytes.data(), vel_bytes.size()).code(), SLATE_ERROR_UNSUPPORTED);
  CHECK(narrow.empty() && members.empty() && rows.empty() && not_a_slotmap.empty());
  CHECK(members.load(tag_bytes.data(), tag_bytes.size()).ok()); /* still destinations */
  CHECK(rows.load(vel_bytes.data(), vel_bytes.size()).ok());

  /* a set that holds memory is no destination */
  slate::sparse<vel2> used;
  used.set(keys[1], {});
  CHECK_EQ_INT(used.load(vel_bytes.data(), vel_bytes.size()).code(), SLATE_ERROR_INVALID);
  CHECK_EQ_U64(used.size(), 1);
  CHECK(used.erase(keys[1]));
  CHECK_EQ_INT(used.load(vel_bytes.data(), vel_bytes.size()).code(), SLATE_ERROR_INVALID);
  used = slate::sparse<vel2>();
  CHECK(used.load(vel_bytes.data(), vel_bytes.size()).ok());
  CHECK_EQ_U64(used.size(), snapshot_info_of(vel_bytes.data(), vel_bytes.size()).count);

  check_refused_bytes<slate::sparse<vel2>>(vel_bytes);
  check_refused_bytes<slate::sparse<void>>(tag_bytes);

  TEST_SECTION("snapshots: sparse save stopped by write");
  std::string tag_streamed;
  string_writer pieces{&tag_streamed};
  CHECK(tag.save(pieces).ok());
  CHECK(pieces.calls > 1);
  int calls = 0; /* stopped at the last piece: still the write's code */
  CHECK_EQ_INT(tag.save([&](const void*, std::size_t) { return ++calls == pieces.calls ? 5 : 0; }).code(), 5);
  CHECK_EQ_INT(calls, pieces.calls);
  CHECK_EQ_INT(vel.save([&](const void*, std::size_t) { vel.erase(vel.key_at(0)); }).code(),
               SLATE_ERROR_INVALID);
#if TEST_HAVE_EXCEPTIONS
  const bytes_t tag_now = tag.save();
  calls = 0;
  bool caught = false;
  try {
    (void)tag.save([&](const void*, std::size_t) {
      if (++calls == 1) throw test_exception{1};
    });
  } catch (const test_exception& e) {
    caught = e.value == 1;
  }
  CHECK(caught);
  CHECK_EQ_INT(calls, 1);
  CHECK(tag.save() == tag_now);
#endif
}

int main() {
  uint64_t seed = 20260131;
  if (const char* env = std::getenv("SLATE_HPP_SEED")) seed = std::strtoull(env, nullptr, 0);
  fprintf(stderr, "seed %" PRIu64 " (SLATE_HPP_SEED to replay)\n", seed);
#if !TEST_HAVE_EXCEPTIONS
  TEST_SKIPPED("exceptions: every throwing call and throwing callback", TEST_NO_EXCEPTIONS
               "; their try_ twins are checked instead");
#endif

  test_status_and_error();
  test_values();
  test_map_basics();
  test_map_keys();
  test_map_huge_key();
  test_map_move_clone();
  test_map_walks();
  test_map_take_and_pin();
  test_map_iterators();
  test_allocators();
  test_map_alloc_failure();
  test_map_set_outcome_throw();
  test_key();
  test_slotmap_basics();
  test_slotmap_precondition();
  test_slotmap_walks();
  test_slotmap_capacity();
  test_slotmap_move_clone();
  test_slotmap_differential(seed);
  test_map_differential(seed);
  test_map_get_many(seed);
  test_map_get_many_edges();
  test_slotmap_get_many(seed);
  test_sparse_basics();
  test_sparse_membership();
  test_sparse_walks();
  test_join();
  test_sparse_differential(seed);
  test_sparse_move_clone_allocator();
  test_snapshot_map();
  test_snapshot_slotmap();
  test_snapshot_sparse();
  return TEST_SUMMARY();
}
