/*
 * test_cpp.cpp -- tests of the slate C API that only make sense in C++17.
 *
 * The C suites in c-tests/ already compile as C++17; this file covers what a
 * C++ program does on top of them, through the plain C API (there is no
 * slate.hpp yet):
 *
 *   - type properties checked at compile time (static_assert);
 *   - callbacks written as captureless lambdas, with C++ state behind the
 *     void* data pointer (a struct, a std::vector, a std::string);
 *   - exceptions never crossing the C boundary: catch inside the callback,
 *     stop the walk with a non-zero code, rethrow after slate_each returns;
 *   - a differential test against std::unordered_map (string, int64_t and
 *     uint64_t keys) driven by a fixed PRNG seed;
 *   - maps inside standard containers that move them (std::vector growth,
 *     std::array, a struct with an RAII owner, std::sort);
 *   - std::thread: one map per thread, distinct seeds on concurrently
 *     created maps, maps handed from one thread to another;
 *   - slate_use_allocator with lambdas and std::atomic counters.
 *
 * Build and run (from the repository root):
 *   cargo build --release
 *   g++ -std=c++17 -O1 -g -Wall -Wextra -Werror -Iinclude -Ic-tests/support \
 *       cpp-tests/test_cpp.cpp target/release/libslate.a -lpthread -ldl -lm \
 *       -o /tmp/tcpp && /tmp/tcpp
 *
 * The PRNG seed is printed on stderr; SLATE_CPP_SEED=<n> in the environment
 * replays another one. As with the C suites, the last line on stdout is
 * "N passed, M failed" and the exit status is 0 only when M is 0.
 *
 * CHECK* macros update plain (non-atomic) counters, so they are only ever
 * called on the main thread: worker threads record what they saw in their
 * own result structs, which the main thread checks after join().
 *
 * WebAssembly (see platform.h): built without exceptions (WASI,
 * -fno-exceptions) the exception tests are left out and callbacks call their
 * C++ code directly; where threads cannot start (Emscripten, WASI; or
 * -DTEST_HAVE_THREADS=0) the thread tests are left out. Each part left out
 * prints "-- <name>: skipped (<why>)" on stderr.
 */
#include "slate.h"
#include "slate-introspect.h"
#include "../c-tests/support/test.h"
#include "../c-tests/support/map_check.h"
#include "platform.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
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

#if TEST_HAVE_THREADS
#include <future>
#include <thread>
#endif

/* ------------------------------------------------------------------------ */
/* Compile-time properties                                                   */
/* ------------------------------------------------------------------------ */

/* slate_s can be copied byte for byte (SPEC 1: no pointer into itself), so it
   may live in std::vector / std::array, which move it with memmove. */
static_assert(std::is_trivially_copyable_v<slate_s>, "slate_s must be trivially copyable");
static_assert(std::is_standard_layout_v<slate_s>, "slate_s must be standard layout");
static_assert(std::is_trivial_v<slate_s>, "slate_s must be trivial (default-constructible as in C)");
static_assert(std::is_trivially_destructible_v<slate_s>, "nothing runs when a slate_s dies");
static_assert(sizeof(slate_s) > 0 && sizeof(slate_s) % 8 == 0, "slate_s size must be a multiple of 8");
static_assert(alignof(slate_s) >= alignof(uint32_t), "slate_s is at least word aligned");
static_assert(std::is_trivially_copyable_v<slate_info_s> && std::is_standard_layout_v<slate_info_s>);
static_assert(std::is_trivially_copyable_v<slate_table_info_s> &&
              std::is_standard_layout_v<slate_table_info_s>);

/* Error codes exactly as in SPEC 2. */
static_assert(std::is_enum_v<slate_error_e>);
static_assert(static_cast<int>(SLATE_OK) == 0);
static_assert(static_cast<int>(SLATE_ERROR_NOT_FOUND) == 1);
static_assert(static_cast<int>(SLATE_ERROR_INVALID) == -1);
static_assert(static_cast<int>(SLATE_ERROR_ALLOC) == -2);
static_assert(static_cast<int>(SLATE_ERROR_FULL) == -3);

/* The callback and allocator typedefs have the shapes of SPEC 3. */
static_assert(std::is_same_v<slate_each_f, int (*)(const char*, uint32_t, void*, void*)>);
static_assert(std::is_same_v<slate_malloc_f, void* (*)(size_t)>);
static_assert(std::is_same_v<slate_calloc_f, void* (*)(size_t, size_t)>);
static_assert(std::is_same_v<slate_free_f, void (*)(void*)>);

/* Functions return int (so a callback's code passes through slate_each). */
static_assert(std::is_same_v<decltype(&slate_each), int (*)(const slate_s*, slate_each_f, void*)>);
static_assert(std::is_same_v<decltype(&slate_delete_if), int (*)(slate_s*, slate_each_f, void*)>);
static_assert(std::is_same_v<decltype(&slate_set_bytes),
                             int (*)(slate_s*, const void*, uint32_t, void*)>);
static_assert(std::is_same_v<decltype(&slate_length), uint64_t (*)(const slate_s*)>);
static_assert(std::is_same_v<decltype(&slate_use_allocator),
                             int (*)(slate_malloc_f, slate_calloc_f, slate_free_f)>);

/* Plain functions: one with C++ linkage, one with C linkage. The header
   declares the typedefs outside its extern "C" block; gcc and clang (like
   every mainstream compiler) ignore language linkage in function types, so
   both kinds convert. Strictly, the typedefs name C function pointers when
   seen from C, and a function given to the library must never throw. */
static int plain_count_each(const char*, uint32_t, void*, void* data) {
  ++*static_cast<uint64_t*>(data);
  return 0;
}
extern "C" {
static int c_linkage_count_each(const char*, uint32_t, void*, void* data) {
  ++*static_cast<uint64_t*>(data);
  return 0;
}
static void* c_linkage_malloc(size_t size) { return std::malloc(size); }
static void* c_linkage_calloc(size_t count, size_t size) { return std::calloc(count, size); }
static void c_linkage_free(void* pointer) { std::free(pointer); }
}
static_assert(std::is_same_v<decltype(&plain_count_each), slate_each_f>);
static_assert(std::is_convertible_v<decltype(&c_linkage_count_each), slate_each_f>);
static_assert(std::is_convertible_v<decltype(&c_linkage_malloc), slate_malloc_f>);
static_assert(std::is_convertible_v<decltype(&c_linkage_calloc), slate_calloc_f>);
static_assert(std::is_convertible_v<decltype(&c_linkage_free), slate_free_f>);

namespace {

/* Captureless lambdas convert to the typedefs, implicitly or with unary +.
   A noexcept lambda converts too (C++17: noexcept function pointer ->
   plain function pointer); it is the safety net that turns an escaping
   exception into std::terminate instead of unwinding through Rust. */
constexpr auto k_each_lambda = [](const char*, uint32_t, void*, void* data) -> int {
  ++*static_cast<uint64_t*>(data);
  return 0;
};
constexpr auto k_each_noexcept = [](const char*, uint32_t, void*, void* data) noexcept -> int {
  ++*static_cast<uint64_t*>(data);
  return 0;
};
constexpr auto k_malloc_lambda = [](size_t size) -> void* { return std::malloc(size); };
constexpr auto k_calloc_lambda = [](size_t n, size_t size) -> void* { return std::calloc(n, size); };
constexpr auto k_free_lambda = [](void* p) { std::free(p); };

static_assert(std::is_same_v<decltype(+k_each_lambda), slate_each_f>);
static_assert(std::is_convertible_v<decltype(k_each_lambda), slate_each_f>);
static_assert(std::is_same_v<decltype(+k_each_noexcept),
                             int (*)(const char*, uint32_t, void*, void*) noexcept>);
static_assert(std::is_convertible_v<decltype(+k_each_noexcept), slate_each_f>);
static_assert(std::is_convertible_v<decltype(k_each_noexcept), slate_each_f>);
static_assert(std::is_same_v<decltype(+k_malloc_lambda), slate_malloc_f>);
static_assert(std::is_same_v<decltype(+k_calloc_lambda), slate_calloc_f>);
static_assert(std::is_same_v<decltype(+k_free_lambda), slate_free_f>);
/* A lambda of the wrong shape does not convert. */
constexpr auto k_wrong_shape = [](const char*, uint64_t, void*, void*) -> int { return 0; };
static_assert(!std::is_convertible_v<decltype(k_wrong_shape), slate_each_f>);

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

uint64_t g_seed = 0x5EED2024C0FFEEull; /* SLATE_CPP_SEED overrides */

void* V(uint64_t n) { return reinterpret_cast<void*>(static_cast<uintptr_t>(n)); }

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::string hex(std::string_view s) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out.empty() ? std::string("(empty)") : out;
}

/* A key handed to a callback, as a std::string (the pointer may be anything
   for the empty key). */
std::string key_string(const char* key, uint32_t length) {
  return length == 0 ? std::string() : std::string(key, length);
}

/* The 10-byte integer key encoding of SPEC 3. */
std::string encode_int(unsigned char tag, uint64_t value) {
  std::string out(10, '\0');
  out[1] = static_cast<char>(tag);
  for (int i = 0; i < 8; i++) out[2 + i] = static_cast<char>(static_cast<unsigned char>(value >> (8 * i)));
  return out;
}
bool decode_int(std::string_view key, unsigned char tag, uint64_t* value) {
  if (key.size() != 10 || key[0] != '\0' || static_cast<unsigned char>(key[1]) != tag) return false;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= static_cast<uint64_t>(static_cast<unsigned char>(key[2 + i])) << (8 * i);
  *value = v;
  return true;
}

bool map_ok(const slate_s* m) { return run_check(m) == SLATE_OK; }

/* Reports the first few mismatches of a randomized test, counts the rest. */
struct Mismatches {
  const char* name;
  uint64_t count = 0;
  void fail(uint64_t op, const char* what, const std::string& detail) {
    if (++count <= 10) {
      fprintf(stderr, "  %s: op %" PRIu64 ": %s %s\n", name, op, what, detail.c_str());
    }
  }
};

struct Timer {
  const char* name;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  explicit Timer(const char* n) : name(n) { TEST_SECTION(n); }
  ~Timer() {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fprintf(stderr, "   (%.3f s)\n", s);
  }
};

/* A std::function-free way to run a capturing lambda through slate_each:
   the lambda travels as the void* data, a captureless trampoline calls it.
   Exceptions are caught in the trampoline, stop the walk, and are rethrown
   here, after the C call has returned. This is the shape a slate.hpp
   for_each would have. Without exceptions the trampoline calls the lambda
   directly (it cannot throw). */
#if TEST_HAVE_EXCEPTIONS
constexpr int k_callback_threw = 0x7E7E; /* not a slate_error_e */

template <class F>
int each_rethrow(const slate_s* map, F& f) {
  struct Ctx {
    F* f;
    std::exception_ptr error;
  } ctx{&f, nullptr};
  int rc = slate_each(
      map,
      [](const char* key, uint32_t length, void* value, void* data) noexcept -> int {
        Ctx* c = static_cast<Ctx*>(data);
        try {
          return (*c->f)(std::string_view(length ? key : "", length), value);
        } catch (...) {
          c->error = std::current_exception();
          return k_callback_threw;
        }
      },
      &ctx);
  if (ctx.error) std::rethrow_exception(ctx.error);
  return rc;
}
#else
template <class F>
int each_rethrow(const slate_s* map, F& f) {
  return slate_each(
      map,
      [](const char* key, uint32_t length, void* value, void* data) noexcept -> int {
        return (*static_cast<F*>(data))(std::string_view(length ? key : "", length), value);
      },
      &f);
}
#endif

/* Everything a map holds, as a std::unordered_map; counts keys seen twice. */
std::unordered_map<std::string, void*> contents(const slate_s* m, uint64_t* duplicates, int* rc) {
  struct State {
    std::unordered_map<std::string, void*> seen;
    uint64_t dups = 0;
  } st;
  *rc = slate_each(
      m,
      [](const char* key, uint32_t length, void* value, void* data) noexcept -> int {
        State* s = static_cast<State*>(data);
#if TEST_HAVE_EXCEPTIONS
        try {
#endif
          if (!s->seen.emplace(key_string(key, length), value).second) s->dups++;
#if TEST_HAVE_EXCEPTIONS
        } catch (...) {
          return k_callback_threw; /* std::bad_alloc */
        }
#endif
        return 0;
      },
      &st);
  *duplicates = st.dups;
  return std::move(st.seen);
}

/* ------------------------------------------------------------------------ */
/* 0. Type properties at run time (the compile-time part is above)           */
/* ------------------------------------------------------------------------ */

void test_type_properties() {
  Timer t("type properties: lambdas and plain functions as callbacks/allocators");
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (int i = 0; i < 100; i++) CHECK_EQ_INT(slate_set_i64(&m, i, V(i + 1)), SLATE_OK);

  uint64_t n = 0;
  CHECK_EQ_INT(slate_each(&m, k_each_lambda, &n), SLATE_OK); /* implicit conversion */
  CHECK_EQ_INT(slate_each(&m, +k_each_noexcept, &n), SLATE_OK);
  CHECK_EQ_INT(slate_each(&m, plain_count_each, &n), SLATE_OK);
  CHECK_EQ_INT(slate_each(&m, c_linkage_count_each, &n), SLATE_OK);
  CHECK_EQ_U64(n, 400);

  /* A capturing lambda is a class with state: it does not convert. */
  int captured = 3;
  auto capturing = [&captured](const char*, uint32_t, void*, void*) -> int { return captured; };
  static_assert(!std::is_convertible_v<decltype(capturing), slate_each_f>);
  CHECK_EQ_INT(capturing(nullptr, 0, nullptr, nullptr), 3);

  /* Allocators: lambdas (with +) and extern "C" functions are accepted. */
  CHECK_EQ_INT(slate_use_allocator(+k_malloc_lambda, +k_calloc_lambda, +k_free_lambda), SLATE_OK);
  slate_s a;
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_INT(slate_use_allocator(c_linkage_malloc, c_linkage_calloc, c_linkage_free), SLATE_OK);
  slate_s b;
  CHECK_EQ_INT(slate_clone(&b, &m), SLATE_OK);
  CHECK_EQ_INT(slate_use_allocator(nullptr, nullptr, nullptr), SLATE_OK);
  CHECK_EQ_INT(slate_use_allocator(+k_malloc_lambda, nullptr, +k_free_lambda), SLATE_ERROR_INVALID);
  for (int i = 0; i < 100; i++) {
    std::string k = "a-key-long-enough-to-be-copied-" + std::to_string(i);
    CHECK_EQ_INT(slate_set(&a, k.c_str(), V(i)), SLATE_OK);
  }
  CHECK_EQ_U64(slate_length(&a), 100);
  CHECK_EQ_INT(slate_equal(&b, &m), 1);
  CHECK_MAP_OK(&a);
  CHECK_MAP_OK(&b);
  slate_free(&a);
  slate_free(&b);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* 1. Callbacks as lambdas, C++ state through void* data                     */
/* ------------------------------------------------------------------------ */

void test_callbacks() {
  Timer t("callbacks: captureless lambdas with a struct, std::vector, std::string as data");
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);

  std::vector<std::string> expected;
  uint64_t expected_bytes = 0;
  uintptr_t expected_sum = 0;
  for (int i = 0; i < 300; i++) {
    std::string k = (i % 3 == 0) ? "k" + std::to_string(i)
                                 : "a-much-longer-key-that-lives-on-the-heap-" + std::to_string(i);
    if (i % 7 == 0) k += std::string("\0tail", 5); /* embedded NUL */
    expected.push_back(k);
    expected_bytes += k.size();
    expected_sum += static_cast<uintptr_t>(i) * 16;
    CHECK_EQ_INT(slate_set_bytes(&m, k.data(), static_cast<uint32_t>(k.size()), V(uint64_t(i) * 16)),
                 SLATE_OK);
  }
  expected.push_back(std::string()); /* the empty key */
  CHECK_EQ_INT(slate_set_bytes(&m, nullptr, 0, V(0xE0)), SLATE_OK);
  expected_sum += 0xE0;
  CHECK_EQ_U64(slate_length(&m), expected.size());

  /* A struct. */
  struct Stats {
    uint64_t count = 0;
    uint64_t key_bytes = 0;
    uintptr_t value_sum = 0;
    uint64_t null_keys = 0;
  } stats;
  CHECK_EQ_INT(slate_each(
                   &m,
                   [](const char* key, uint32_t length, void* value, void* data) -> int {
                     auto* s = static_cast<Stats*>(data);
                     s->count++;
                     s->key_bytes += length;
                     s->value_sum += reinterpret_cast<uintptr_t>(value);
                     if (length > 0 && key == nullptr) s->null_keys++;
                     return 0;
                   },
                   &stats),
               SLATE_OK);
  CHECK_EQ_U64(stats.count, expected.size());
  CHECK_EQ_U64(stats.key_bytes, expected_bytes);
  CHECK_EQ_U64(stats.value_sum, expected_sum);
  CHECK_EQ_U64(stats.null_keys, 0);

  /* A std::vector<std::string> collecting the keys (embedded NULs kept).
     (The lambda is named, not written inside CHECK_EQ_INT's arguments: a
     preprocessor directive inside macro arguments is not portable.) */
  std::vector<std::string> keys;
  auto collect = [](const char* key, uint32_t length, void*, void* data) noexcept -> int {
#if TEST_HAVE_EXCEPTIONS
    try {
#endif
      static_cast<std::vector<std::string>*>(data)->push_back(key_string(key, length));
      return 0;
#if TEST_HAVE_EXCEPTIONS
    } catch (...) {
      return k_callback_threw;
    }
#endif
  };
  CHECK_EQ_INT(slate_each(&m, collect, &keys), SLATE_OK);
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> sorted = expected;
  std::sort(sorted.begin(), sorted.end());
  CHECK(keys == sorted);

  /* A std::string buffer; a clone walks in the same order (SPEC 3/4), so
     both buffers are byte-identical. */
  auto append = [](const char* key, uint32_t length, void* value, void* data) noexcept -> int {
#if TEST_HAVE_EXCEPTIONS
    try {
#endif
      auto* buf = static_cast<std::string*>(data);
      buf->append(key_string(key, length));
      buf->push_back('=');
      buf->append(std::to_string(reinterpret_cast<uintptr_t>(value)));
      buf->push_back(';');
      return 0;
#if TEST_HAVE_EXCEPTIONS
    } catch (...) {
      return k_callback_threw;
    }
#endif
  };
  std::string buffer, clone_buffer;
  CHECK_EQ_INT(slate_each(&m, append, &buffer), SLATE_OK);
  slate_s copy;
  CHECK_EQ_INT(slate_clone(&copy, &m), SLATE_OK);
  CHECK_EQ_INT(slate_each(&copy, append, &clone_buffer), SLATE_OK);
  CHECK(!buffer.empty());
  CHECK(buffer == clone_buffer);
  CHECK_EQ_U64(std::count(buffer.begin(), buffer.end(), ';'), expected.size());
  slate_free(&copy);

  /* Early stop: the callback's non-zero code becomes slate_each's result. */
  int visited = 0;
  CHECK_EQ_INT(slate_each(
                   &m,
                   [](const char*, uint32_t, void*, void* data) -> int {
                     return ++*static_cast<int*>(data) == 5 ? 77 : 0;
                   },
                   &visited),
               77);
  CHECK_EQ_INT(visited, 5);
  visited = 0;
  CHECK_EQ_INT(slate_each(
                   &m,
                   [](const char*, uint32_t, void*, void* data) -> int {
                     return ++*static_cast<int*>(data) == 2 ? -12345 : 0;
                   },
                   &visited),
               -12345);
  CHECK_EQ_INT(visited, 2);

  /* slate_delete_if with a std::unordered_set<std::string> of doomed keys. */
  std::unordered_set<std::string> doomed;
  for (size_t i = 0; i < expected.size(); i += 4) doomed.insert(expected[i]);
  auto is_doomed = [](const char* key, uint32_t length, void*, void* data) noexcept -> int {
    auto* set = static_cast<std::unordered_set<std::string>*>(data);
#if TEST_HAVE_EXCEPTIONS
    try {
#endif
      return set->count(key_string(key, length)) ? 1 : 0;
#if TEST_HAVE_EXCEPTIONS
    } catch (...) {
      return 0;
    }
#endif
  };
  CHECK_EQ_INT(slate_delete_if(&m, is_doomed, &doomed), SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), expected.size() - doomed.size());
  uint64_t wrong = 0;
  for (const std::string& k : expected) {
    int rc = slate_get_bytes(&m, k.data(), static_cast<uint32_t>(k.size()), nullptr);
    if (rc != (doomed.count(k) ? SLATE_ERROR_NOT_FOUND : SLATE_OK)) wrong++;
  }
  CHECK_EQ_U64(wrong, 0);
  CHECK_MAP_OK(&m);

  /* Capturing lambdas through the void* trampoline. */
  uint64_t seen = 0, long_keys = 0;
  auto visit = [&](std::string_view key, void*) -> int {
    seen++;
    if (key.size() > 28) long_keys++;
    return 0;
  };
  CHECK_EQ_INT(each_rethrow(&m, visit), SLATE_OK);
  CHECK_EQ_U64(seen, slate_length(&m));
  CHECK(long_keys > 0);

  /* A merge: the callback writes into another map, reads its own map, and
     sets its own entry to the value it holds (no change: the walk goes on). */
  struct Merge {
    slate_s* self;
    slate_s* target;
    int bad_sets = 0, own_values_set = 0, reads_ok = 0;
  };
  slate_s target;
  CHECK_EQ_INT(slate(&target), SLATE_OK);
  Merge merge{&m, &target};
  CHECK_EQ_INT(slate_each(
                   &m,
                   [](const char* key, uint32_t length, void* value, void* data) -> int {
                     auto* mg = static_cast<Merge*>(data);
                     if (slate_set_bytes(mg->target, key, length, value) != SLATE_OK) mg->bad_sets++;
                     void* v = nullptr;
                     if (slate_get_bytes(mg->self, key, length, &v) == SLATE_OK && v == value) mg->reads_ok++;
                     if (slate_set_bytes(mg->self, key, length, value) == SLATE_OK) mg->own_values_set++;
                     return 0;
                   },
                   &merge),
               SLATE_OK);
  CHECK_EQ_INT(merge.bad_sets, 0);
  CHECK_EQ_U64(merge.reads_ok, slate_length(&m));
  CHECK_EQ_U64(merge.own_values_set, slate_length(&m));
  CHECK_EQ_INT(slate_equal(&m, &target), 1);

  /* A new key written to the walked map is carried out, and the walk stops
     with SLATE_ERROR_INVALID. */
  struct Writer {
    slate_s* self;
    int calls = 0, rc = 1;
  };
  Writer writer{&m};
  CHECK_EQ_INT(slate_each(
                   &m,
                   [](const char*, uint32_t, void*, void* data) -> int {
                     auto* w = static_cast<Writer*>(data);
                     w->calls++;
                     w->rc = slate_set(w->self, "written inside its walk", V(9));
                     return 0;
                   },
                   &writer),
               SLATE_ERROR_INVALID);
  CHECK_EQ_INT(writer.calls, 1);
  CHECK_EQ_INT(writer.rc, SLATE_OK);
  CHECK_EQ_U64(slate_length(&m), slate_length(&target) + 1);
  CHECK_EQ_INT(slate_delete(&m, "written inside its walk"), SLATE_OK);
  CHECK_EQ_INT(slate_equal(&m, &target), 1);

  /* Integer keys reach the callback as their 10-byte encoding. */
  slate_s ints;
  CHECK_EQ_INT(slate(&ints), SLATE_OK);
  CHECK_EQ_INT(slate_set_i64(&ints, -5, V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_set_u64(&ints, 5, V(2)), SLATE_OK);
  std::vector<std::string> int_keys;
  CHECK_EQ_INT(slate_each(
                   &ints,
                   [](const char* key, uint32_t length, void*, void* data) -> int {
                     static_cast<std::vector<std::string>*>(data)->push_back(key_string(key, length));
                     return 0;
                   },
                   &int_keys),
               SLATE_OK);
  std::sort(int_keys.begin(), int_keys.end());
  std::vector<std::string> want_int = {encode_int(1, static_cast<uint64_t>(int64_t{-5})), encode_int(2, 5)};
  std::sort(want_int.begin(), want_int.end());
  CHECK(int_keys == want_int);

  slate_free(&ints);
  slate_free(&target);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* 2. Exceptions never cross the C boundary                                  */
/* ------------------------------------------------------------------------ */

#if TEST_HAVE_EXCEPTIONS
/* Ordinary C++ code that throws. */
int risky_lookup(const std::vector<int>& table, size_t index) { return table.at(index); }

struct WalkState {
  std::vector<int> table;          /* the "application data" the callback uses */
  size_t visited = 0;
  std::exception_ptr error;        /* the exception, kept for after the walk */
};

constexpr int k_stopped_by_exception = 1000;

/* The pattern: everything that may throw sits in try; catch (...) records
   the exception and returns a non-zero code, which stops the walk. */
int guarded_callback(const char*, uint32_t, void*, void* data) noexcept {
  auto* st = static_cast<WalkState*>(data);
  try {
    (void)risky_lookup(st->table, st->visited++); /* throws std::out_of_range eventually */
    return 0;
  } catch (...) {
    st->error = std::current_exception();
    return k_stopped_by_exception;
  }
}

void test_exceptions() {
  Timer t("exceptions: caught inside callbacks, walk stopped, map still valid");
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  for (int i = 0; i < 2000; i++) {
    std::string k = "exception-test-key-number-" + std::to_string(i);
    CHECK_EQ_INT(slate_set(&m, k.c_str(), V(i)), SLATE_OK);
  }
  slate_s before;
  CHECK_EQ_INT(slate_clone(&before, &m), SLATE_OK);

  /* std::out_of_range from vector::at after 10 entries. */
  WalkState st;
  st.table.assign(10, 1);
  CHECK_EQ_INT(slate_each(&m, guarded_callback, &st), k_stopped_by_exception);
  CHECK_EQ_U64(st.visited, 11);
  CHECK(st.error != nullptr);
  bool caught = false;
  try {
    std::rethrow_exception(st.error);
  } catch (const std::out_of_range&) {
    caught = true;
  } catch (...) {
  }
  CHECK(caught);
  CHECK_MAP_OK(&m);
  CHECK_EQ_U64(slate_length(&m), 2000);
  CHECK_EQ_INT(slate_equal(&m, &before), 1);
  /* The aborted walk is over: the map accepts writes again. */
  CHECK_EQ_INT(slate_set(&m, "after-the-exception", V(1)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, "after-the-exception"), SLATE_OK);
  CHECK_EQ_INT(slate_compact(&m), SLATE_OK);
  uint64_t n = 0;
  CHECK_EQ_INT(slate_each(&m, k_each_lambda, &n), SLATE_OK);
  CHECK_EQ_U64(n, 2000);

  /* A non-std exception type, thrown from a lambda. */
  struct Odd {
    int code;
  };
  struct OddState {
    int count = 0;
    std::exception_ptr error;
  } odd;
  CHECK_EQ_INT(slate_each(
                   &m,
                   [](const char*, uint32_t, void*, void* data) noexcept -> int {
                     auto* s = static_cast<OddState*>(data);
                     try {
                       if (++s->count == 3) throw Odd{42};
                       return 0;
                     } catch (...) {
                       s->error = std::current_exception();
                       return 3;
                     }
                   },
                   &odd),
               3);
  int odd_code = 0;
  try {
    std::rethrow_exception(odd.error);
  } catch (const Odd& e) {
    odd_code = e.code;
  } catch (...) {
  }
  CHECK_EQ_INT(odd_code, 42);
  CHECK_MAP_OK(&m);

  /* Nested walks: the inner callback throws; its code is propagated by the
     outer callback; both maps come out intact and writable. */
  slate_s inner;
  CHECK_EQ_INT(slate(&inner), SLATE_OK);
  for (uint64_t i = 0; i < 50; i++) CHECK_EQ_INT(slate_set_u64(&inner, i, V(i)), SLATE_OK);
  struct Nested {
    slate_s* inner;
    int outer_calls = 0, inner_calls = 0;
    std::exception_ptr error;
  } nested{&inner, 0, 0, nullptr};
  CHECK_EQ_INT(slate_each(
                   &m,
                   [](const char*, uint32_t, void*, void* data) noexcept -> int {
                     auto* ns = static_cast<Nested*>(data);
                     ns->outer_calls++;
                     return slate_each(
                         ns->inner,
                         [](const char*, uint32_t, void*, void* d) noexcept -> int {
                           auto* s = static_cast<Nested*>(d);
                           try {
                             if (++s->inner_calls == 60) throw std::runtime_error("deep");
                             return 0;
                           } catch (...) {
                             s->error = std::current_exception();
                             return k_stopped_by_exception;
                           }
                         },
                         ns);
                   },
                   &nested),
               k_stopped_by_exception);
  CHECK_EQ_INT(nested.outer_calls, 2);
  CHECK_EQ_INT(nested.inner_calls, 60);
  CHECK(nested.error != nullptr);
  CHECK_MAP_OK(&m);
  CHECK_MAP_OK(&inner);
  CHECK_EQ_INT(slate_set_u64(&inner, 999, V(999)), SLATE_OK);
  CHECK_EQ_INT(slate_set(&m, "nested-after", V(2)), SLATE_OK);
  CHECK_EQ_INT(slate_delete(&m, "nested-after"), SLATE_OK);

  /* slate_delete_if: non-zero means "delete", so a predicate that throws
     records the exception and answers 0 ("keep") from then on. */
  struct Pred {
    int calls = 0, deleted = 0;
    std::exception_ptr error;
  } pred;
  CHECK_EQ_INT(slate_delete_if(
                   &m,
                   [](const char*, uint32_t, void* value, void* data) noexcept -> int {
                     auto* p = static_cast<Pred*>(data);
                     if (p->error) return 0;
                     try {
                       if (++p->calls == 500) throw std::length_error("predicate failed");
                       bool doomed = (reinterpret_cast<uintptr_t>(value) % 2) == 0;
                       p->deleted += doomed;
                       return doomed;
                     } catch (...) {
                       p->error = std::current_exception();
                       return 0;
                     }
                   },
                   &pred),
               SLATE_OK);
  CHECK(pred.error != nullptr);
  CHECK(pred.deleted > 0);
  CHECK_EQ_U64(slate_length(&m), 2000 - static_cast<uint64_t>(pred.deleted));
  CHECK_MAP_OK(&m);
  CHECK_EQ_INT(slate_set(&m, "after-delete-if", V(3)), SLATE_OK);

  /* The generic wrapper: the user's lambda throws; the exception comes out of
     each_rethrow as itself, after slate_each returned. */
  int calls = 0;
  auto thrower = [&calls](std::string_view key, void*) -> int {
    if (++calls == 7) throw std::runtime_error("from user code: " + std::string(key));
    return 0;
  };
  std::string message;
  try {
    (void)each_rethrow(&m, thrower);
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  CHECK_EQ_INT(calls, 7);
  CHECK(message.rfind("from user code: ", 0) == 0);
  CHECK_MAP_OK(&m);
  CHECK_EQ_INT(slate_delete(&m, "after-delete-if"), SLATE_OK);
  calls = 0;
  auto counter = [&calls](std::string_view, void*) -> int {
    ++calls;
    return 0;
  };
  CHECK_EQ_INT(each_rethrow(&m, counter), SLATE_OK);
  CHECK_EQ_U64(static_cast<uint64_t>(calls), slate_length(&m));

  slate_free(&inner);
  slate_free(&before);
  slate_free(&m);
}
#else
void test_exceptions() {
  TEST_SKIPPED("exceptions: caught inside callbacks, walk stopped, map still valid", TEST_NO_EXCEPTIONS);
}
#endif

/* ------------------------------------------------------------------------ */
/* 3. Differential tests against std::unordered_map                          */
/* ------------------------------------------------------------------------ */

/* Key number id of the string pool: lengths 0..300 (the inline/heap boundary
   at 12/13 included), letters, digits, embedded NULs or any byte. */
std::string pool_key(uint64_t id) {
  if (id == 0) return std::string();
  uint64_t h = splitmix64(id * 0x100000001B3ull + 17);
  size_t len;
  switch (h % 10) {
    case 0: len = 1 + (h >> 8) % 3; break;
    case 1:
    case 2: len = 4 + (h >> 8) % 9; break;
    case 3: len = 12 + (h >> 8) % 2; break;
    case 4:
    case 5: len = 14 + (h >> 8) % 27; break;
    case 6: len = 10; break;
    case 7: len = 41 + (h >> 8) % 260; break;
    default: len = 5 + (h >> 8) % 30; break;
  }
  std::string s(len, '\0');
  unsigned style = static_cast<unsigned>((h >> 40) % 4);
  uint64_t x = h;
  for (size_t i = 0; i < len; i++) {
    x = splitmix64(x);
    unsigned c;
    switch (style) {
      case 0: c = 'a' + static_cast<unsigned>(x % 26); break;
      case 1: c = (x % 5 == 0) ? 0u : 'A' + static_cast<unsigned>(x % 26); break;
      case 2: c = static_cast<unsigned>(x & 0xFF); break;
      default: c = '0' + static_cast<unsigned>(x % 10); break;
    }
    s[i] = static_cast<char>(c);
  }
  return s;
}

void compare_strings(const slate_s* m, const std::unordered_map<std::string, void*>& ref,
                     Mismatches& mm, uint64_t op) {
  uint64_t dups = 0;
  int rc = 0;
  auto seen = contents(m, &dups, &rc);
  if (rc != SLATE_OK) mm.fail(op, "slate_each returned", std::to_string(rc));
  if (dups) mm.fail(op, "keys visited twice:", std::to_string(dups));
  if (seen.size() != ref.size())
    mm.fail(op, "entry count", std::to_string(seen.size()) + " vs " + std::to_string(ref.size()));
  for (const auto& [k, v] : ref) {
    auto it = seen.find(k);
    if (it == seen.end()) {
      mm.fail(op, "missing from walk:", hex(k));
    } else if (it->second != v) {
      mm.fail(op, "wrong value in walk for", hex(k));
    }
    void* got = V(0xBAD);
    if (slate_get_bytes(m, k.data(), static_cast<uint32_t>(k.size()), &got) != SLATE_OK || got != v)
      mm.fail(op, "get disagrees for", hex(k));
  }
  for (const auto& [k, v] : seen) {
    (void)v;
    if (!ref.count(k)) mm.fail(op, "extra key in walk:", hex(k));
  }
}

void test_differential_strings() {
  Timer t("differential: std::string keys vs std::unordered_map<std::string, void*>");
  std::mt19937_64 rng(g_seed);
  std::vector<std::string> pool;
  for (uint64_t id = 0; id < 5000; id++) pool.push_back(pool_key(id));
  size_t with_nul = 0;
  for (const auto& k : pool) with_nul += k.find('\0') != std::string::npos;
  CHECK(with_nul > 500);

  std::unordered_map<std::string, void*> ref;
  slate_s store[2];
  int cur = 0;
  CHECK_EQ_INT(slate(&store[cur]), SLATE_OK);
  Mismatches mm{"strings"};
  void* const sentinel = V(0x5E7717E1);
  constexpr uint64_t k_ops = 60000;
  uint64_t max_len = 0, moves = 0, clones = 0, compacts = 0, clears = 0, checks = 0;
  uint32_t max_tables = 0;

  for (uint64_t op = 0; op < k_ops; op++) {
    slate_s* m = &store[cur];
    const bool drain = (op / 10000) % 2 == 1; /* alternate filling and draining */
    const uint64_t set_end = drain ? 200 : 450, get_end = set_end + 250, del_end = 980;
    const uint64_t r = rng() % 1000;
    const std::string& key = pool[rng() % pool.size()];
    const auto klen = static_cast<uint32_t>(key.size());
    const bool cstr = key.find('\0') == std::string::npos && (rng() & 1);

    if (r < set_end) {
      void* value = (rng() % 20 == 0) ? nullptr : V(rng());
      int rc = cstr ? slate_set(m, key.c_str(), value) : slate_set_bytes(m, key.data(), klen, value);
      if (rc != SLATE_OK) mm.fail(op, "set returned", std::to_string(rc) + " for " + hex(key));
      ref[key] = value;
    } else if (r < get_end) {
      void* got = sentinel;
      int rc = cstr ? slate_get(m, key.c_str(), &got) : slate_get_bytes(m, key.data(), klen, &got);
      auto it = ref.find(key);
      if (it == ref.end()) {
        if (rc != SLATE_ERROR_NOT_FOUND || got != sentinel) mm.fail(op, "get of absent key", hex(key));
      } else if (rc != SLATE_OK || got != it->second) {
        mm.fail(op, "get of present key", hex(key));
      }
    } else if (r < del_end) {
      int rc = cstr ? slate_delete(m, key.c_str()) : slate_delete_bytes(m, key.data(), klen);
      int want = ref.erase(key) ? SLATE_OK : SLATE_ERROR_NOT_FOUND;
      if (rc != want) mm.fail(op, "delete returned", std::to_string(rc) + " for " + hex(key));
    } else if (r < 984) { /* presence test */
      int rc = slate_get_bytes(m, key.data(), klen, nullptr);
      if (rc != (ref.count(key) ? SLATE_OK : SLATE_ERROR_NOT_FOUND)) mm.fail(op, "presence", hex(key));
    } else if (r < 989) { /* move the map by copying its bytes, poison the old */
      std::memcpy(&store[cur ^ 1], &store[cur], sizeof(slate_s));
      std::memset(static_cast<void*>(&store[cur]), 0xAB, sizeof(slate_s));
      cur ^= 1;
      moves++;
    } else if (r < 992) { /* continue with a clone */
      int rc = slate_clone(&store[cur ^ 1], m);
      if (rc != SLATE_OK || slate_equal(&store[cur ^ 1], m) != 1) mm.fail(op, "clone", std::to_string(rc));
      slate_free(m);
      cur ^= 1;
      clones++;
    } else if (r < 995) {
      if (slate_compact(m) != SLATE_OK) mm.fail(op, "compact", "");
      compacts++;
    } else if (r < 998) {
      if (slate_reserve(m, slate_length(m) + rng() % 3000) != SLATE_OK) mm.fail(op, "reserve", "");
    } else if (r == 998 && rng() % 16 == 0) {
      if (slate_clear(m) != SLATE_OK) mm.fail(op, "clear", "");
      ref.clear();
      clears++;
    } else {
      compare_strings(m, ref, mm, op);
    }
    m = &store[cur];
    if (slate_length(m) != ref.size())
      mm.fail(op, "length", std::to_string(slate_length(m)) + " vs " + std::to_string(ref.size()));
    max_len = std::max<uint64_t>(max_len, ref.size());
    if (op % 1000 == 999) {
      checks++;
      if (!map_ok(m)) mm.fail(op, "slate_check failed", "");
      slate_info_s now{};
      if (slate_info(m, &now) == SLATE_OK) max_tables = std::max(max_tables, now.tables);
    }
  }
  slate_s* m = &store[cur];
  compare_strings(m, ref, mm, k_ops);
  slate_info_s in = info_of(m);
  fprintf(stderr,
          "   %" PRIu64 " ops, peak %" PRIu64 " entries in up to %u tables, final %" PRIu64
          " in %u; %" PRIu64 " moves, %" PRIu64 " clones, %" PRIu64 " compacts, %" PRIu64 " clears\n",
          k_ops, max_len, max_tables, in.length, in.tables, moves, clones, compacts, clears);
  CHECK_EQ_U64(mm.count, 0);
  CHECK_EQ_U64(slate_length(m), ref.size());
  CHECK(max_len > 1024); /* the map went past one table's worth of slots */
  CHECK(max_tables > 1);  /* and split (directory, several tables) */
  CHECK(moves > 0 && clones > 0 && compacts > 0);
  CHECK_EQ_U64(checks, k_ops / 1000);
  CHECK_MAP_OK(m);
  slate_free(m);
  CHECK_EQ_U64(slate_length(m), 0);
}

int64_t pick_i64(std::mt19937_64& rng) {
  static const int64_t extremes[] = {0, 1, -1, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1,
                                     255, 256, -256, int64_t{1} << 32, -(int64_t{1} << 32)};
  uint64_t r = rng() % 10;
  if (r < 7) return static_cast<int64_t>(rng() % 4001) - 2000;
  if (r < 8) return extremes[rng() % (sizeof extremes / sizeof extremes[0])];
  return static_cast<int64_t>(rng());
}
uint64_t pick_u64(std::mt19937_64& rng) {
  static const uint64_t extremes[] = {0, 1, 2, UINT64_MAX, UINT64_MAX - 1, uint64_t{1} << 63,
                                      (uint64_t{1} << 63) - 1, 255, 256, uint64_t{1} << 32};
  uint64_t r = rng() % 10;
  if (r < 7) return rng() % 4001;
  if (r < 8) return extremes[rng() % (sizeof extremes / sizeof extremes[0])];
  return rng();
}

void compare_ints(const slate_s* m, const std::unordered_map<int64_t, void*>& ri,
                  const std::unordered_map<uint64_t, void*>& ru, Mismatches& mm, uint64_t op) {
  uint64_t dups = 0;
  int rc = 0;
  auto seen = contents(m, &dups, &rc);
  if (rc != SLATE_OK) mm.fail(op, "slate_each returned", std::to_string(rc));
  if (dups) mm.fail(op, "keys visited twice:", std::to_string(dups));
  std::unordered_map<int64_t, void*> si;
  std::unordered_map<uint64_t, void*> su;
  for (const auto& [k, v] : seen) {
    uint64_t x = 0;
    if (decode_int(k, 1, &x)) {
      si[static_cast<int64_t>(x)] = v;
    } else if (decode_int(k, 2, &x)) {
      su[x] = v;
    } else {
      mm.fail(op, "walk reported a key that is no integer encoding:", hex(k));
    }
  }
  if (si != ri) mm.fail(op, "i64 entries differ", std::to_string(si.size()) + " vs " + std::to_string(ri.size()));
  if (su != ru) mm.fail(op, "u64 entries differ", std::to_string(su.size()) + " vs " + std::to_string(ru.size()));
  for (const auto& [k, v] : ri) {
    void* got = V(0xBAD);
    if (slate_get_i64(m, k, &got) != SLATE_OK || got != v) mm.fail(op, "get_i64", std::to_string(k));
    std::string enc = encode_int(1, static_cast<uint64_t>(k));
    got = V(0xBAD);
    if (slate_get_bytes(m, enc.data(), 10, &got) != SLATE_OK || got != v)
      mm.fail(op, "10-byte encoding of i64", std::to_string(k));
  }
  for (const auto& [k, v] : ru) {
    void* got = V(0xBAD);
    if (slate_get_u64(m, k, &got) != SLATE_OK || got != v) mm.fail(op, "get_u64", std::to_string(k));
  }
}

void test_differential_ints() {
  Timer t("differential: int64_t/uint64_t keys vs std::unordered_map<int64_t|uint64_t, void*>");
  std::mt19937_64 rng(g_seed ^ 0x1417);
  std::unordered_map<int64_t, void*> ri;
  std::unordered_map<uint64_t, void*> ru;
  slate_s m;
  CHECK_EQ_INT(slate(&m), SLATE_OK);
  Mismatches mm{"ints"};
  void* const sentinel = V(0x5E7717E1);
  constexpr uint64_t k_ops = 60000;
  uint64_t max_len = 0;

  for (uint64_t op = 0; op < k_ops; op++) {
    const bool drain = (op / 10000) % 2 == 1;
    const uint64_t set_end = drain ? 200 : 450, get_end = set_end + 250, del_end = 985;
    const uint64_t r = rng() % 1000;
    const bool is_signed = rng() & 1;
    const int64_t ki = pick_i64(rng);
    const uint64_t ku = pick_u64(rng);
    if (r < set_end) {
      void* value = (rng() % 20 == 0) ? nullptr : V(rng());
      int rc = is_signed ? slate_set_i64(&m, ki, value) : slate_set_u64(&m, ku, value);
      if (rc != SLATE_OK) mm.fail(op, "set returned", std::to_string(rc));
      if (is_signed) ri[ki] = value; else ru[ku] = value;
    } else if (r < get_end) {
      void* got = sentinel;
      int rc = is_signed ? slate_get_i64(&m, ki, &got) : slate_get_u64(&m, ku, &got);
      bool present = is_signed ? ri.count(ki) != 0 : ru.count(ku) != 0;
      void* want = present ? (is_signed ? ri[ki] : ru[ku]) : sentinel;
      if (rc != (present ? SLATE_OK : SLATE_ERROR_NOT_FOUND) || got != want)
        mm.fail(op, is_signed ? "get_i64" : "get_u64", is_signed ? std::to_string(ki) : std::to_string(ku));
    } else if (r < del_end) {
      int rc = is_signed ? slate_delete_i64(&m, ki) : slate_delete_u64(&m, ku);
      int want = (is_signed ? ri.erase(ki) : ru.erase(ku)) ? SLATE_OK : SLATE_ERROR_NOT_FOUND;
      if (rc != want) mm.fail(op, "delete returned", std::to_string(rc));
    } else if (r < 990) { /* raw 10-byte access reaches the same entry */
      std::string enc = is_signed ? encode_int(1, static_cast<uint64_t>(ki)) : encode_int(2, ku);
      void* got = sentinel;
      int rc = slate_get_bytes(&m, enc.data(), 10, &got);
      bool present = is_signed ? ri.count(ki) != 0 : ru.count(ku) != 0;
      if (rc != (present ? SLATE_OK : SLATE_ERROR_NOT_FOUND)) mm.fail(op, "raw encoding get", hex(enc));
      /* the same number in the other keyspace is a different key */
      std::string other = is_signed ? encode_int(2, static_cast<uint64_t>(ki)) : encode_int(1, ku);
      bool other_present = is_signed ? ru.count(static_cast<uint64_t>(ki)) != 0
                                     : ri.count(static_cast<int64_t>(ku)) != 0;
      if (slate_get_bytes(&m, other.data(), 10, nullptr) != (other_present ? SLATE_OK : SLATE_ERROR_NOT_FOUND))
        mm.fail(op, "other keyspace", hex(other));
    } else if (r < 994) {
      if (slate_compact(&m) != SLATE_OK) mm.fail(op, "compact", "");
    } else if (r < 999) {
      slate_s copy;
      if (slate_clone(&copy, &m) != SLATE_OK || slate_equal(&copy, &m) != 1) mm.fail(op, "clone", "");
      slate_free(&m);
      std::memcpy(&m, &copy, sizeof m);
    } else {
      compare_ints(&m, ri, ru, mm, op);
    }
    if (slate_length(&m) != ri.size() + ru.size())
      mm.fail(op, "length", std::to_string(slate_length(&m)) + " vs " + std::to_string(ri.size() + ru.size()));
    max_len = std::max<uint64_t>(max_len, ri.size() + ru.size());
    if (op % 1000 == 999 && !map_ok(&m)) mm.fail(op, "slate_check failed", "");
  }
  compare_ints(&m, ri, ru, mm, k_ops);
  fprintf(stderr, "   %" PRIu64 " ops, peak %" PRIu64 " entries, final %zu i64 + %zu u64\n", k_ops,
          max_len, ri.size(), ru.size());
  CHECK_EQ_U64(mm.count, 0);
  CHECK_EQ_U64(slate_length(&m), ri.size() + ru.size());
  CHECK(max_len > 1024);
  CHECK_MAP_OK(&m);
  slate_free(&m);
}

/* ------------------------------------------------------------------------ */
/* 4. Maps in standard containers                                            */
/* ------------------------------------------------------------------------ */

std::string container_key(size_t map_id, size_t i) {
  if (i % 3 == 0) return std::to_string(map_id) + ":" + std::to_string(i); /* short, inline */
  return "container-map-" + std::to_string(map_id) + "-entry-" + std::to_string(i) + "-long-tail";
}
void* container_value(size_t map_id, size_t i) { return V((uint64_t(map_id) << 32) | (i + 1)); }

void fill_container_map(slate_s* m, size_t map_id, size_t from, size_t to, uint64_t* bad) {
  for (size_t i = from; i < to; i++) {
    std::string k = container_key(map_id, i);
    if (slate_set(m, k.c_str(), container_value(map_id, i)) != SLATE_OK) ++*bad;
  }
}

/* Every entry 0..count-1 of map_id is there with its value; nothing else. */
bool verify_container_map(const slate_s* m, size_t map_id, size_t count) {
  if (slate_length(m) != count) {
    fprintf(stderr, "  map %zu: length %" PRIu64 ", want %zu\n", map_id, slate_length(m), count);
    return false;
  }
  for (size_t i = 0; i < count; i++) {
    std::string k = container_key(map_id, i);
    void* v = nullptr;
    if (slate_get(m, k.c_str(), &v) != SLATE_OK || v != container_value(map_id, i)) {
      fprintf(stderr, "  map %zu: entry %zu lost\n", map_id, i);
      return false;
    }
  }
  return map_ok(m);
}

/* A struct that owns a map the C++ way: RAII, move-only. Moving copies the
   map's bytes and re-initializes the source (slate() forgets without
   freeing), so exactly one owner frees. Values point at objects the struct
   owns; the map never frees them. */
struct Item {
  std::string name;
  int weight;
};
struct Registry {
  std::string title;
  slate_s by_name;
  std::vector<std::unique_ptr<Item>> items;

  explicit Registry(std::string t) : title(std::move(t)) { slate(&by_name); }
  Registry(Registry&& o) noexcept : title(std::move(o.title)), by_name(o.by_name), items(std::move(o.items)) {
    slate(&o.by_name);
  }
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;
  Registry& operator=(Registry&&) = delete;
  ~Registry() { slate_free(&by_name); }

  bool add(std::string name, int weight) {
    items.push_back(std::make_unique<Item>(Item{std::move(name), weight}));
    Item* it = items.back().get();
    return slate_set_bytes(&by_name, it->name.data(), static_cast<uint32_t>(it->name.size()), it) == SLATE_OK;
  }
  const Item* find(std::string_view name) const {
    void* v = nullptr;
    if (slate_get_bytes(&by_name, name.data(), static_cast<uint32_t>(name.size()), &v) != SLATE_OK) return nullptr;
    return static_cast<const Item*>(v);
  }
};

void test_containers() {
  Timer t("containers: std::vector growth, erase, swap, sort; std::array; RAII struct");

  /* --- std::vector<slate_s> that reallocates ------------------------- */
  std::vector<slate_s> maps;
  std::vector<size_t> ids, counts; /* what each slot should hold */
  const size_t first_sizes[] = {0, 1, 8, 9, 57, 896, 897, 5000};
  uint64_t bad_sets = 0;
  for (size_t j = 0; j < sizeof first_sizes / sizeof first_sizes[0]; j++) {
    maps.emplace_back();
    CHECK_EQ_INT(slate(&maps.back()), SLATE_OK);
    fill_container_map(&maps.back(), j, 0, first_sizes[j], &bad_sets);
    ids.push_back(j);
    counts.push_back(first_sizes[j]);
  }
  const size_t cap = maps.capacity();
  const slate_s* old_data = maps.data();
  size_t next_id = ids.size();
  while (maps.capacity() == cap) { /* push until the vector reallocates */
    maps.emplace_back();
    CHECK_EQ_INT(slate(&maps.back()), SLATE_OK);
    fill_container_map(&maps.back(), next_id, 0, 100 + next_id, &bad_sets);
    ids.push_back(next_id);
    counts.push_back(100 + next_id);
    next_id++;
  }
  CHECK_EQ_U64(bad_sets, 0);
  CHECK(maps.capacity() > cap);
  fprintf(stderr, "   vector reallocated: capacity %zu -> %zu, %zu maps, storage %s\n", cap,
          maps.capacity(), maps.size(), maps.data() == old_data ? "same address" : "moved");
  auto verify_all = [&](const char* when) {
    size_t good = 0;
    for (size_t s = 0; s < maps.size(); s++) good += verify_container_map(&maps[s], ids[s], counts[s]);
    if (!CHECK_EQ_U64(good, maps.size())) fprintf(stderr, "  (after %s)\n", when);
  };
  verify_all("reallocation");

  /* Grow the moved maps (their tables and directories must still be theirs). */
  for (size_t s = 0; s < 4; s++) {
    fill_container_map(&maps[s], ids[s], counts[s], counts[s] + 3000, &bad_sets);
    counts[s] += 3000;
  }
  CHECK_EQ_U64(bad_sets, 0);
  verify_all("growing moved maps");

  /* shrink_to_fit and erase in the middle move the maps again. */
  slate_free(&maps[2]);
  maps.erase(maps.begin() + 2);
  ids.erase(ids.begin() + 2);
  counts.erase(counts.begin() + 2);
  maps.shrink_to_fit();
  verify_all("erase + shrink_to_fit");

  std::swap(maps[0], maps[1]);
  std::swap(ids[0], ids[1]);
  std::swap(counts[0], counts[1]);
  std::reverse(maps.begin(), maps.end());
  std::reverse(ids.begin(), ids.end());
  std::reverse(counts.begin(), counts.end());
  verify_all("swap + reverse");

  /* std::sort moves maps through a temporary: sort (id, map) pairs by size. */
  struct Tagged {
    size_t id, count;
    slate_s map;
  };
  static_assert(std::is_trivially_copyable_v<Tagged>);
  std::vector<Tagged> tagged;
  for (size_t s = 0; s < maps.size(); s++) tagged.push_back(Tagged{ids[s], counts[s], maps[s]});
  maps.clear(); /* the maps now live in `tagged` only */
  std::sort(tagged.begin(), tagged.end(), [](const Tagged& a, const Tagged& b) {
    return slate_length(&a.map) > slate_length(&b.map);
  });
  size_t good = 0;
  bool ordered = true;
  for (size_t s = 0; s < tagged.size(); s++) {
    good += verify_container_map(&tagged[s].map, tagged[s].id, tagged[s].count);
    if (s > 0 && slate_length(&tagged[s - 1].map) < slate_length(&tagged[s].map)) ordered = false;
  }
  CHECK_EQ_U64(good, tagged.size());
  CHECK(ordered);
  for (Tagged& tg : tagged) slate_free(&tg.map);

  /* --- std::array<slate_s, 4> ----------------------------------------- */
  std::array<slate_s, 4> arr;
  for (slate_s& m : arr) CHECK_EQ_INT(slate(&m), SLATE_OK);
  const size_t arr_sizes[] = {0, 5, 100, 2500};
  for (size_t j = 0; j < arr.size(); j++) fill_container_map(&arr[j], 100 + j, 0, arr_sizes[j], &bad_sets);
  std::array<slate_s, 4> moved = arr; /* a byte copy; `arr` is dead from here */
  std::memset(static_cast<void*>(arr.data()), 0xCD, sizeof arr); /* poison the old bytes */
  good = 0;
  for (size_t j = 0; j < moved.size(); j++) good += verify_container_map(&moved[j], 100 + j, arr_sizes[j]);
  CHECK_EQ_U64(good, moved.size());
  for (size_t j = 0; j < moved.size(); j++) fill_container_map(&moved[j], 100 + j, arr_sizes[j], 2600, &bad_sets);
  good = 0;
  for (size_t j = 0; j < moved.size(); j++) good += verify_container_map(&moved[j], 100 + j, 2600);
  CHECK_EQ_U64(good, moved.size());
  CHECK_EQ_U64(bad_sets, 0);
  for (slate_s& m : moved) slate_free(&m);

  /* --- a map inside a struct, the struct inside a growing vector ------- */
  std::vector<Registry> regs;
  for (int r = 0; r < 12; r++) {
    regs.emplace_back("registry-" + std::to_string(r));
    Registry& reg = regs.back();
    for (int i = 0; i < 40 * (r + 1); i++) {
      if (!reg.add("item-" + std::to_string(r) + "-" + std::to_string(i) + (i % 2 ? "-with-a-long-name" : ""), i))
        bad_sets++;
    }
  }
  CHECK_EQ_U64(bad_sets, 0);
  size_t found = 0, expected_found = 0;
  for (int r = 0; r < 12; r++) {
    const Registry& reg = regs[static_cast<size_t>(r)];
    CHECK_MAP_OK(&reg.by_name);
    for (int i = 0; i < 40 * (r + 1); i++) {
      expected_found++;
      std::string name = "item-" + std::to_string(r) + "-" + std::to_string(i) + (i % 2 ? "-with-a-long-name" : "");
      const Item* it = reg.find(name);
      if (it && it->name == name && it->weight == i) found++;
    }
  }
  CHECK_EQ_U64(found, expected_found);
  Registry taken(std::move(regs[3])); /* move out: the source now holds an empty map */
  CHECK_EQ_U64(slate_length(&regs[3].by_name), 0);
  CHECK_EQ_U64(slate_length(&taken.by_name), 160);
  CHECK(taken.find("item-3-0") != nullptr && taken.find("item-3-0")->weight == 0);
  CHECK_MAP_OK(&taken.by_name);
  regs.clear(); /* destructors free every map (valgrind: nothing leaks) */
}

/* ------------------------------------------------------------------------ */
/* 5. Threads                                                                */
/* ------------------------------------------------------------------------ */

#if TEST_HAVE_THREADS
/* Seeds of maps created at the same moment on different threads. Runs first
   in main, so the threads also race the library's one-time entropy read. */
void test_concurrent_seeds() {
  Timer t("threads: seeds of maps created concurrently are distinct");
  constexpr int k_threads = 8, k_maps = 64;
  struct Result {
    std::vector<uint64_t> seeds;
    int errors = 0;
  };
  std::vector<Result> results(k_threads);
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < k_threads; i++) {
    threads.emplace_back([&, i] {
      Result& r = results[static_cast<size_t>(i)];
      std::vector<slate_s> maps(k_maps);
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      for (slate_s& m : maps) {
        slate_info_s in{};
        if (slate(&m) != SLATE_OK || slate_info(&m, &in) != SLATE_OK) r.errors++;
        r.seeds.push_back(in.seed);
      }
      for (slate_s& m : maps) { /* an emptied map takes a fresh seed too */
        slate_info_s in{};
        if (slate_set_u64(&m, 1, V(1)) != SLATE_OK || slate_clear(&m) != SLATE_OK ||
            slate_info(&m, &in) != SLATE_OK)
          r.errors++;
        r.seeds.push_back(in.seed);
        slate_free(&m);
      }
    });
  }
  while (ready.load() < k_threads) std::this_thread::yield();
  go.store(true);
  for (auto& th : threads) th.join();
  std::set<uint64_t> all;
  size_t total = 0;
  int errors = 0;
  for (const Result& r : results) {
    errors += r.errors;
    total += r.seeds.size();
    all.insert(r.seeds.begin(), r.seeds.end());
  }
  slate_s main_map;
  CHECK_EQ_INT(slate(&main_map), SLATE_OK);
  all.insert(info_of(&main_map).seed);
  total++;
  CHECK_EQ_INT(errors, 0);
  CHECK_EQ_U64(total, size_t{k_threads} * k_maps * 2 + 1);
  CHECK_EQ_U64(all.size(), total);
  slate_free(&main_map);
}

struct WorkerResult {
  uint64_t ops = 0, mismatches = 0, final_length = 0, expected_length = 0;
  int check_rc = -100;
  char check_message[256] = {0};
  uint64_t seed = 0;
};

/* One thread, one map: u64 and string keys against per-thread references. */
void map_worker(WorkerResult* out, int tid, uint64_t ops) {
  std::mt19937_64 rng(g_seed ^ splitmix64(static_cast<uint64_t>(tid) + 1));
  slate_s m;
  slate(&m);
  slate_info_s in;
  if (slate_info(&m, &in) == SLATE_OK) out->seed = in.seed;
  std::unordered_map<uint64_t, void*> ru;
  std::unordered_map<std::string, void*> rs;
  char buf[64];
  for (uint64_t i = 0; i < ops; i++) {
    const uint64_t r = rng();
    const unsigned what = static_cast<unsigned>((r >> 1) % 100);
    const uint64_t k = (r >> 8) % 20000;
    void* value = V(r | 1);
    if (r & 1) {
      int n = snprintf(buf, sizeof buf, (k & 1) ? "t%d-%" PRIu64 : "thread-%d-key-%" PRIu64 "-long", tid, k);
      std::string key(buf, static_cast<size_t>(n));
      if (what < 50) {
        if (slate_set_bytes(&m, key.data(), static_cast<uint32_t>(key.size()), value) != SLATE_OK) out->mismatches++;
        rs[key] = value;
      } else if (what < 75) {
        void* got = nullptr;
        int rc = slate_get_bytes(&m, key.data(), static_cast<uint32_t>(key.size()), &got);
        auto it = rs.find(key);
        if (it == rs.end() ? rc != SLATE_ERROR_NOT_FOUND : (rc != SLATE_OK || got != it->second)) out->mismatches++;
      } else {
        int rc = slate_delete_bytes(&m, key.data(), static_cast<uint32_t>(key.size()));
        if (rc != (rs.erase(key) ? SLATE_OK : SLATE_ERROR_NOT_FOUND)) out->mismatches++;
      }
    } else {
      if (what < 50) {
        if (slate_set_u64(&m, k, value) != SLATE_OK) out->mismatches++;
        ru[k] = value;
      } else if (what < 75) {
        void* got = nullptr;
        int rc = slate_get_u64(&m, k, &got);
        auto it = ru.find(k);
        if (it == ru.end() ? rc != SLATE_ERROR_NOT_FOUND : (rc != SLATE_OK || got != it->second)) out->mismatches++;
      } else {
        int rc = slate_delete_u64(&m, k);
        if (rc != (ru.erase(k) ? SLATE_OK : SLATE_ERROR_NOT_FOUND)) out->mismatches++;
      }
    }
    if (slate_length(&m) != ru.size() + rs.size()) out->mismatches++;
    out->ops++;
  }
  /* final sweep */
  for (const auto& [k, v] : ru) {
    void* got = nullptr;
    if (slate_get_u64(&m, k, &got) != SLATE_OK || got != v) out->mismatches++;
  }
  for (const auto& [k, v] : rs) {
    void* got = nullptr;
    if (slate_get_bytes(&m, k.data(), static_cast<uint32_t>(k.size()), &got) != SLATE_OK || got != v) out->mismatches++;
  }
  out->final_length = slate_length(&m);
  out->expected_length = ru.size() + rs.size();
  out->check_rc = slate_check(&m, out->check_message, sizeof out->check_message);
  slate_free(&m);
}

void test_threads() {
  Timer t("threads: one map per std::thread; maps handed between threads");
  constexpr int k_threads = 4;
  constexpr uint64_t k_ops = 250000;
  std::vector<WorkerResult> results(k_threads);
  {
    std::vector<std::thread> threads;
    for (int i = 0; i < k_threads; i++) threads.emplace_back(map_worker, &results[static_cast<size_t>(i)], i, k_ops);
    for (auto& th : threads) th.join();
  }
  std::set<uint64_t> seeds;
  for (const WorkerResult& r : results) {
    CHECK_EQ_U64(r.ops, k_ops);
    CHECK_EQ_U64(r.mismatches, 0);
    CHECK_EQ_U64(r.final_length, r.expected_length);
    CHECK(r.final_length > 1024);
    CHECK_MSG(r.check_rc == SLATE_OK, r.check_message);
    seeds.insert(r.seed);
  }
  CHECK_EQ_U64(seeds.size(), size_t{k_threads});

  /* Built on one thread, read on another after join. */
  slate_s shared;
  std::thread builder([&shared] {
    slate(&shared);
    for (uint64_t i = 0; i < 5000; i++) {
      std::string k = "built-elsewhere-" + std::to_string(i);
      slate_set(&shared, k.c_str(), V(i + 1));
      slate_set_i64(&shared, -static_cast<int64_t>(i), V(i + 2));
    }
  });
  builder.join();
  CHECK_EQ_U64(slate_length(&shared), 10000);
  CHECK_MAP_OK(&shared);
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < 5000; i++) {
    std::string k = "built-elsewhere-" + std::to_string(i);
    void* v = nullptr;
    if (slate_get(&shared, k.c_str(), &v) != SLATE_OK || v != V(i + 1)) wrong++;
    if (slate_get_i64(&shared, -static_cast<int64_t>(i), &v) != SLATE_OK || v != V(i + 2)) wrong++;
  }
  CHECK_EQ_U64(wrong, 0);

  /* Modified here, read (including a walk) on a third thread, freed on a fourth. */
  CHECK_EQ_INT(slate_set(&shared, "added-on-main", V(7)), SLATE_OK);
  uint64_t reader_wrong = 0, reader_walked = 0;
  std::thread reader([&] {
    void* v = nullptr;
    if (slate_get(&shared, "added-on-main", &v) != SLATE_OK || v != V(7)) reader_wrong++;
    for (uint64_t i = 0; i < 5000; i++)
      if (slate_get_i64(&shared, -static_cast<int64_t>(i), &v) != SLATE_OK || v != V(i + 2)) reader_wrong++;
    if (slate_each(&shared, k_each_lambda, &reader_walked) != SLATE_OK) reader_wrong++;
  });
  reader.join();
  CHECK_EQ_U64(reader_wrong, 0);
  CHECK_EQ_U64(reader_walked, 10001);
  std::thread([&shared] { slate_free(&shared); }).join();
  CHECK_EQ_U64(slate_length(&shared), 0);
  CHECK_EQ_INT(slate_set(&shared, "reused", V(1)), SLATE_OK); /* a freed map is usable */
  CHECK_MAP_OK(&shared);
  slate_free(&shared);

  /* A map returned by value from std::async (a trivially copyable result). */
  std::future<slate_s> fut = std::async(std::launch::async, [] {
    slate_s m;
    slate(&m);
    for (uint64_t i = 0; i < 3000; i++) slate_set_u64(&m, i * 7, V(i));
    return m;
  });
  slate_s got = fut.get();
  CHECK_EQ_U64(slate_length(&got), 3000);
  wrong = 0;
  for (uint64_t i = 0; i < 3000; i++) {
    void* v = nullptr;
    if (slate_get_u64(&got, i * 7, &v) != SLATE_OK || v != V(i)) wrong++;
  }
  CHECK_EQ_U64(wrong, 0);
  CHECK_MAP_OK(&got);
  slate_free(&got);
}
#else
void test_concurrent_seeds() {
  TEST_SKIPPED("threads: seeds of maps created concurrently are distinct", TEST_NO_THREADS);
}
void test_threads() {
  TEST_SKIPPED("threads: one map per std::thread; maps handed between threads", TEST_NO_THREADS);
}
#endif

/* ------------------------------------------------------------------------ */
/* 6. slate_use_allocator with C++ functions and std::atomic counters       */
/* ------------------------------------------------------------------------ */

/* The allocator functions cannot capture (they are C function pointers), so
   their state is global; atomics because several threads may allocate at
   once. A header in front of every block records its size and a magic
   value, padded to max_align_t so the user pointer keeps malloc's alignment. */
struct AllocCounters {
  std::atomic<uint64_t> mallocs{0}, callocs{0}, frees{0}, null_frees{0}, foreign_frees{0};
  std::atomic<int64_t> live_blocks{0}, live_bytes{0}, peak_bytes{0};
  std::atomic<int64_t> fail_after{-1}; /* >= 0: that many more succeed, then NULL */
  void reset() {
    mallocs = callocs = frees = null_frees = foreign_frees = 0;
    live_blocks = live_bytes = peak_bytes = 0;
    fail_after = -1;
  }
};
AllocCounters g_alloc;
constexpr size_t k_header = alignof(std::max_align_t) >= 16 ? alignof(std::max_align_t) : 16;
constexpr uint64_t k_magic = 0xA110CA7EDB10C5EDull;

bool alloc_should_fail() {
  int64_t left = g_alloc.fail_after.load();
  while (left >= 0) {
    if (left == 0) return true;
    if (g_alloc.fail_after.compare_exchange_weak(left, left - 1)) return false;
  }
  return false;
}
void* alloc_track(void* raw, size_t size) {
  if (!raw) return nullptr;
  auto* header = static_cast<uint64_t*>(raw);
  header[0] = size;
  header[1] = k_magic;
  g_alloc.live_blocks++;
  int64_t now = g_alloc.live_bytes += static_cast<int64_t>(size);
  int64_t peak = g_alloc.peak_bytes.load();
  while (now > peak && !g_alloc.peak_bytes.compare_exchange_weak(peak, now)) {
  }
  return static_cast<char*>(raw) + k_header;
}

const slate_malloc_f counting_malloc = [](size_t size) -> void* {
  if (alloc_should_fail() || size > SIZE_MAX - k_header) return nullptr;
  g_alloc.mallocs++;
  return alloc_track(std::malloc(size + k_header), size);
};
const slate_calloc_f counting_calloc = [](size_t count, size_t size) -> void* {
  if (alloc_should_fail()) return nullptr;
  if (size != 0 && count > (SIZE_MAX - k_header) / size) return nullptr;
  g_alloc.callocs++;
  return alloc_track(std::calloc(1, count * size + k_header), count * size);
};
const slate_free_f counting_free = [](void* pointer) {
  if (!pointer) {
    g_alloc.null_frees++;
    return;
  }
  auto* header = reinterpret_cast<uint64_t*>(static_cast<char*>(pointer) - k_header);
  if (header[1] != k_magic) { /* not ours: never hand it to free() */
    g_alloc.foreign_frees++;
    return;
  }
  header[1] = 0;
  g_alloc.frees++;
  g_alloc.live_blocks--;
  g_alloc.live_bytes -= static_cast<int64_t>(header[0]);
  std::free(header);
};

uint64_t total_allocs() { return g_alloc.mallocs.load() + g_alloc.callocs.load(); }

void test_allocator() {
  Timer t("slate_use_allocator: counting allocator from lambdas, std::atomic counters");
  g_alloc.reset();

  slate_s before; /* initialized under the default allocator: keeps it */
  CHECK_EQ_INT(slate(&before), SLATE_OK);
  CHECK_EQ_INT(slate_use_allocator(counting_malloc, counting_calloc, counting_free), SLATE_OK);

  slate_s a;
  CHECK_EQ_INT(slate(&a), SLATE_OK);
  CHECK_EQ_U64(total_allocs(), 0); /* slate() allocates nothing */
  uint64_t bad = 0;
  for (uint64_t i = 0; i < 3000; i++) {
    /* longer than the 28 bytes a slot holds: copied */
    std::string k = "counted-allocation-key-past-the-inline-limit-" + std::to_string(i);
    bad += slate_set(&a, k.c_str(), V(i)) != SLATE_OK;
    bad += slate_set_u64(&a, i, V(i)) != SLATE_OK;
  }
  CHECK_EQ_U64(bad, 0);
  CHECK(total_allocs() > 3000); /* at least one per long key */
  CHECK(g_alloc.live_blocks.load() > 0);
  CHECK_EQ_U64(static_cast<uint64_t>(g_alloc.live_bytes.load()), info_of(&a).memory);

  /* The map made before the switch does not use the counting allocator. */
  uint64_t allocs_now = total_allocs();
  for (uint64_t i = 0; i < 500; i++) {
    std::string k = "default-allocator-key-" + std::to_string(i);
    bad += slate_set(&before, k.c_str(), V(i)) != SLATE_OK;
  }
  CHECK_EQ_U64(total_allocs(), allocs_now);

  /* Read-only calls allocate nothing. */
  uint64_t walked = 0;
  CHECK_EQ_INT(slate_each(&a, k_each_lambda, &walked), SLATE_OK);
  CHECK_EQ_INT(slate_get(&a, "counted-allocation-key-past-the-inline-limit-7", nullptr), SLATE_OK);
  CHECK_EQ_U64(total_allocs(), allocs_now);

  /* A clone takes the allocator in force. */
  slate_s c;
  CHECK_EQ_INT(slate_clone(&c, &a), SLATE_OK);
  CHECK(total_allocs() > allocs_now);
  CHECK_EQ_INT(slate_equal(&a, &c), 1);
  CHECK_EQ_U64(static_cast<uint64_t>(g_alloc.live_bytes.load()), info_of(&a).memory + info_of(&c).memory);

  /* Delete half, compact: memory goes back through counting_free. */
  int64_t live_before_compact = g_alloc.live_bytes.load();
  CHECK_EQ_INT(slate_delete_if(
                   &a, [](const char*, uint32_t, void* v, void*) -> int { return reinterpret_cast<uintptr_t>(v) % 2; },
                   nullptr),
               SLATE_OK);
  CHECK_EQ_INT(slate_compact(&a), SLATE_OK);
  CHECK(g_alloc.live_bytes.load() < live_before_compact);
  CHECK_EQ_U64(static_cast<uint64_t>(g_alloc.live_bytes.load()), info_of(&a).memory + info_of(&c).memory);
  CHECK_MAP_OK(&a);

  /* Failure injection: a lambda allocator that returns NULL. */
  slate_s f;
  CHECK_EQ_INT(slate(&f), SLATE_OK);
  for (uint64_t i = 0; i < 8; i++) CHECK_EQ_INT(slate_set_u64(&f, i, V(i)), SLATE_OK);
  slate_s snapshot;
  CHECK_EQ_INT(slate_clone(&snapshot, &f), SLATE_OK);
  int failures = 0, rc = SLATE_ERROR_ALLOC;
  uint64_t unchanged = 0;
  for (int64_t budget = 0; budget < 20 && rc == SLATE_ERROR_ALLOC; budget++) {
    g_alloc.fail_after = budget;
    rc = slate_set(&f, "the-ninth-key-is-long-enough-to-be-copied", V(9)); /* key copy + growth */
    g_alloc.fail_after = -1;
    if (rc == SLATE_ERROR_ALLOC) {
      failures++;
      unchanged += slate_equal(&f, &snapshot) == 1 && map_ok(&f);
    }
  }
  CHECK_EQ_INT(rc, SLATE_OK);
  CHECK(failures >= 2);
  CHECK_EQ_U64(unchanged, static_cast<uint64_t>(failures));
  CHECK_EQ_U64(slate_length(&f), 9);
  g_alloc.fail_after = 0;
  slate_s failed_clone;
  CHECK_EQ_INT(slate_clone(&failed_clone, &a), SLATE_ERROR_ALLOC);
  g_alloc.fail_after = -1;
  CHECK_EQ_U64(slate_length(&failed_clone), 0);
  slate_free(&failed_clone);

  /* Back to the C library's allocator. */
  CHECK_EQ_INT(slate_use_allocator(nullptr, nullptr, nullptr), SLATE_OK);
  allocs_now = total_allocs();
  slate_s d;
  CHECK_EQ_INT(slate(&d), SLATE_OK);
  for (uint64_t i = 0; i < 2000; i++) {
    std::string k = "after-restore-key-number-" + std::to_string(i);
    bad += slate_set(&d, k.c_str(), V(i)) != SLATE_OK;
  }
  CHECK_EQ_U64(total_allocs(), allocs_now);
  CHECK_EQ_U64(bad, 0);

  /* Maps made under the counting allocator still free through it. */
  slate_free(&a);
  slate_free(&c);
  slate_free(&f);
  slate_free(&snapshot);
  slate_free(&a); /* twice is harmless */
  CHECK_EQ_INT(g_alloc.live_blocks.load(), 0);
  CHECK_EQ_INT(g_alloc.live_bytes.load(), 0);
  CHECK_EQ_U64(g_alloc.frees.load(), total_allocs());
  CHECK_EQ_U64(g_alloc.null_frees.load(), 0);
  CHECK_EQ_U64(g_alloc.foreign_frees.load(), 0);
  fprintf(stderr, "   %" PRIu64 " mallocs, %" PRIu64 " callocs, %" PRIu64 " frees, peak %" PRId64 " bytes\n",
          g_alloc.mallocs.load(), g_alloc.callocs.load(), g_alloc.frees.load(), g_alloc.peak_bytes.load());
  slate_free(&d);
  slate_free(&before);

  /* Several threads allocating through the same counting allocator. */
#if TEST_HAVE_THREADS
  g_alloc.reset();
  CHECK_EQ_INT(slate_use_allocator(counting_malloc, counting_calloc, counting_free), SLATE_OK);
  constexpr int k_threads = 4;
  std::vector<uint64_t> thread_bad(k_threads, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < k_threads; i++) {
    threads.emplace_back([i, &thread_bad] {
      slate_s m;
      slate(&m);
      uint64_t& b = thread_bad[static_cast<size_t>(i)];
      for (uint64_t j = 0; j < 20000; j++) {
        std::string k = "thread-" + std::to_string(i) + "-allocating-key-past-the-inline-limit-" +
                        std::to_string(j % 5000);
        if (j % 3 == 2) {
          int r = slate_delete(&m, k.c_str());
          b += r != SLATE_OK && r != SLATE_ERROR_NOT_FOUND;
        } else {
          b += slate_set(&m, k.c_str(), V(j)) != SLATE_OK;
        }
      }
      b += slate_compact(&m) != SLATE_OK;
      slate_free(&m);
    });
  }
  for (auto& th : threads) th.join();
  CHECK_EQ_INT(slate_use_allocator(nullptr, nullptr, nullptr), SLATE_OK);
  uint64_t tb = 0;
  for (uint64_t b : thread_bad) tb += b;
  CHECK_EQ_U64(tb, 0);
  CHECK(total_allocs() > 4 * 5000);
  CHECK_EQ_U64(g_alloc.frees.load(), total_allocs());
  CHECK_EQ_INT(g_alloc.live_blocks.load(), 0);
  CHECK_EQ_INT(g_alloc.live_bytes.load(), 0);
  CHECK_EQ_U64(g_alloc.foreign_frees.load() + g_alloc.null_frees.load(), 0);
#else
  TEST_SKIPPED("threads: several threads allocating through the counting allocator", TEST_NO_THREADS);
#endif
}

} /* namespace */

int main() {
  if (const char* s = std::getenv("SLATE_CPP_SEED")) g_seed = std::strtoull(s, nullptr, 0);
  fprintf(stderr, "test_cpp: PRNG seed 0x%016" PRIx64 " (SLATE_CPP_SEED=0x%" PRIx64 " to replay)\n", g_seed,
          g_seed);
  const auto start = std::chrono::steady_clock::now();

  test_concurrent_seeds(); /* first: races the one-time entropy read */
  test_type_properties();
  test_callbacks();
  test_exceptions();
  test_differential_strings();
  test_differential_ints();
  test_containers();
  test_threads();
  test_allocator();

  fprintf(stderr, "test_cpp: %.2f s\n",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return TEST_SUMMARY();
}
