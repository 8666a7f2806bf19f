/*
 * slate.hpp: C++17 wrappers over slate.h (hand-written, header-only).
 *
 *     #include "slate.hpp"
 *
 *     slate::map m;                        // RAII owner of a slate_s
 *     int answer = 42;
 *     m.set("answer", &answer);            // string key (bytes, NULs allowed)
 *     m.set(7, &answer);                   // signed integer -> int64_t keyspace
 *     m.set(7u, nullptr);                  // unsigned integer -> uint64_t keyspace
 *     if (auto v = m.get("answer")) { int* p = static_cast<int*>(*v); }
 *     std::uint64_t ids[] = {7, 8, 9};     // batch lookup: found[i] 1 or 0,
 *     void* values[3];                     // values[i] written where found
 *     std::uint8_t found[3];
 *     m.get_many(ids, 3, values, found);
 *     m.for_each([](std::string_view key, void* value) { ... });
 *     for (auto it = m.begin(); it != m.end();)   // iterators (cursors):
 *       it = it->value ? std::next(it) : m.erase(it);  // erase as you go
 *
 *     struct particle { float x, y, vx, vy; };
 *     slate::slotmap<particle> ps;         // generational arena, dense rows
 *     slate::key k = ps.insert({0, 0, 1, 1});
 *     ps[k].x += 1;                        // k must be valid (else std::abort)
 *     for (particle& p : ps) p.x += p.vx;  // streams the dense rows
 *     ps.erase(k);                         // k is stale for good:
 *     assert(ps.find(k) == nullptr);
 *
 *     struct velocity { float dx, dy; };   // an optional part of some rows:
 *     slate::sparse<velocity> vel;         // a sparse set keyed by ps's keys
 *     slate::sparse<void> hungry;          // membership only (a tag)
 *     slate::key k2 = ps.insert({0, 0, 0, 0});
 *     vel.set(ps, k2, {1, 0});             // checked: k2 must be valid in ps
 *     hungry.set(ps, k2);
 *     slate::join(ps, vel, hungry, [&](slate::key e, velocity& v) {
 *       ps[e].x += v.dx;                   // every key in both sets, alive in ps
 *       hungry.erase(e);                   // the given key may be erased
 *     });
 *     vel.prune(ps);                       // drop the rows of dead entities
 *
 *     std::vector<unsigned char> bytes = ps.save();   // snapshots (SPEC §6c)
 *     slate::slotmap<particle> copy;                  // a fresh destination
 *     if (copy.load(bytes.data(), bytes.size()).ok()) // same keys, same rows;
 *       assert(copy.find(k) == nullptr);              // stale keys stay stale
 *
 * Link exactly as for C: libslate.a (or libslate.so) plus -lpthread -ldl -lm.
 * Nothing here is compiled into the library; the header needs C++17 and the
 * standard library, nothing else.
 *
 * ----------------------------------------------------------------------------
 * Why `struct slate` and not `namespace slate`
 * ----------------------------------------------------------------------------
 * slate.h declares the C function `int slate(slate_s*)` at global scope, and
 * C++ forbids a namespace and a function of the same name in one scope. So
 * `slate` is a struct used only as a scope: a struct may share its name with
 * a function (as `struct stat` and `stat()` do), and in `slate::map` the name
 * before `::` is looked up among types and namespaces only, so the spelling
 * is the one a namespace would give. What does not work is what needs a real
 * namespace: `using namespace slate;`, reopening it, or a namespace alias.
 * Use the qualified names or `using map = slate::map;`. The C function stays
 * callable as `slate(&raw)` (or `::slate(&raw)`), unchanged.
 *
 * ----------------------------------------------------------------------------
 * Error policy (the same for every container)
 * ----------------------------------------------------------------------------
 *  - Lookups never throw: `get` returns std::optional<void*>, `find` returns
 *    a pointer (nullptr when absent), `contains` a bool, the batch lookups
 *    `get_many` a slate::status. A key that is simply absent is never an
 *    error.
 *  - Operations that allocate throw std::bad_alloc when the library reports
 *    SLATE_ERROR_ALLOC, like the standard containers.
 *  - Every other failure the library reports throws slate::error (derived
 *    from std::runtime_error; `code()` is the slate_error_e value):
 *      SLATE_ERROR_FULL    a size limit: slotmap insert at its limit(),
 *                          reserve() beyond what can exist, a string key of
 *                          4 GiB or more.
 *      SLATE_ERROR_INVALID a walk (for_each, erase_if, sort, join) whose
 *                          callable changed the walked container otherwise
 *                          than by erasing the key it was given (the change
 *                          is carried out, the walk stops, and the walk's
 *                          call throws), a slotmap limit() below its size,
 *                          or the null key given to sparse::set.
 *      SLATE_ERROR_NOT_FOUND only from sparse::set(owner, key, ...): the
 *                          owner does not accept the key (a dead entity's),
 *                          so nothing was written. This is a write through
 *                          a stale handle, not a lookup, hence an error.
 *    Apart from the arrays a caller hands to get_many (which reports null
 *    ones as a status), the wrappers never pass NULL, so the C API's other
 *    INVALID cases cannot arise through them.
 *  - The C API's rule holds: a call that throws (or returns a failed status)
 *    left the container exactly as it was, except where a callback threw
 *    (see below).
 *  - Each throwing operation that can fail at run time for reasons other than
 *    misuse has a `try_` twin that is noexcept and returns a slate::status
 *    instead (try_set, try_reserve, try_compact, try_clone, try_insert,
 *    try_sort; sparse::try_set also for the owner check). Use them in code built with -fno-exceptions, or where a
 *    failure is expected.
 *  - Snapshots (save, load; SPEC §6c) return their codes as a slate::status
 *    and never throw them: SLATE_ERROR_CORRUPT and SLATE_ERROR_UNSUPPORTED
 *    for bytes a load refuses, SLATE_ERROR_INVALID for a destination in
 *    use, the non-zero int a save's `write` returned, and the codes above.
 *    The one exception is save() returning a std::vector, which throws
 *    as clone() does; save(std::vector&) is its twin returning the status.
 *  - Preconditions that the caller must guarantee (a valid key for
 *    slotmap::operator[]) are checked anyway, because the lookup validates
 *    the key for free: a violation calls std::abort(). slotmap::at() is the
 *    throwing alternative (std::out_of_range).
 *
 * ----------------------------------------------------------------------------
 * Callbacks and exceptions
 * ----------------------------------------------------------------------------
 * for_each, erase_if, sort, slate::join and save take any callable (lambda, function object,
 * function pointer). The C library calls it through a small trampoline that
 * catches every exception the callable throws, stops the walk at once (no
 * further calls of the callable), and rethrows the exception, unchanged,
 * after the C function has returned. No exception ever crosses a C frame.
 * The container is then valid but, for erase_if and sort, only partly
 * processed: erase_if has erased the elements the callable approved before
 * it threw and kept all others; sort leaves the rows in an unspecified order
 * (every key still valid). for_each and join change nothing themselves.
 *
 * A callable that returns bool stops a walk by returning false (as Go's
 * Range does): `true` means "go on". A callable that returns void visits
 * everything. (This is the opposite of the raw C callbacks, where non-zero
 * stops; the wrappers translate.)
 *
 * A save's `write(const void* bytes, std::size_t length)` is the exception:
 * its answer is a code, so it returns void (go on) or int as in C: 0 goes
 * on, non-zero stops the save and becomes save's return (a bool is
 * refused at compile time). An exception from `write` is caught, stops the
 * save and is rethrown after the C call has returned, like the others.
 *
 * ----------------------------------------------------------------------------
 * Building without exceptions (-fno-exceptions)
 * ----------------------------------------------------------------------------
 * Detected automatically (or force with -DSLATE_HPP_EXCEPTIONS=0/1). Then
 * every place that would throw calls std::abort() instead, callbacks are
 * called directly (they cannot throw), and the try_ functions are the way to
 * handle allocation failure and limits.
 *
 * ----------------------------------------------------------------------------
 * Threads, moves, lifetime
 * ----------------------------------------------------------------------------
 * A container is not thread-safe; distinct containers may be used on
 * distinct threads (as in C). The containers are move-only: a move hands
 * over the C struct byte for byte (the C API allows moving a slate_s,
 * slotmap_s or slotmap_sparse_s with memcpy between calls) and re-initializes the source, which
 * is then a valid, empty container. Never move or destroy a container from
 * inside one of its own callbacks. Copies are explicit: clone().
 */
#ifndef SLATE_HPP
#define SLATE_HPP

#if __cplusplus < 201703L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 201703L)
#error "slate.hpp needs C++17 or later (std::optional, std::string_view, if constexpr); compile with -std=c++17 or newer, or use slate.h"
#else

#include "slate.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef SLATE_HPP_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define SLATE_HPP_EXCEPTIONS 1
#else
#define SLATE_HPP_EXCEPTIONS 0
#endif
#endif

/**
 * The scope of the C++ API (a struct, not a namespace: see the file comment).
 * It has no members of its own and cannot be instantiated.
 */
struct slate {
  slate() = delete;

  // --------------------------------------------------------------------------
  // status and error
  // --------------------------------------------------------------------------

  /**
   * A slate_error_e code as a value: what the try_ functions return.
   * Default-constructed it is SLATE_OK. Trivially copyable, all noexcept.
   */
  class status {
   public:
    /** SLATE_OK. */
    constexpr status() noexcept = default;
    /** Wraps a code returned by a slate.h function (any int is kept as is). */
    constexpr explicit status(int code) noexcept : code_(code) {}

    /** True for SLATE_OK only. */
    constexpr bool ok() const noexcept { return code_ == SLATE_OK; }
    /** The same as ok(): `if (m.try_set(k, v)) ...` tests for success. */
    constexpr explicit operator bool() const noexcept { return ok(); }
    /** The raw code: SLATE_OK, SLATE_ERROR_NOT_FOUND, _INVALID, _ALLOC, _FULL;
     * from snapshots also _CORRUPT, _UNSUPPORTED, or a save's `write`'s own
     * non-zero return. */
    constexpr int code() const noexcept { return code_; }
    /** A short static English description of the code (never NULL). */
    const char* message() const noexcept { return describe(code_); }

    /** Same code. */
    friend constexpr bool operator==(status a, status b) noexcept { return a.code_ == b.code_; }
    /** Different codes. */
    friend constexpr bool operator!=(status a, status b) noexcept { return a.code_ != b.code_; }

   private:
    int code_ = SLATE_OK;
  };

  /** A static English description of a slate_error_e code (never NULL):
   * slate_strerror(code). */
  static const char* describe(int code) noexcept { return slate_strerror(code); }

  /**
   * Thrown for SLATE_ERROR_FULL and SLATE_ERROR_INVALID (SLATE_ERROR_ALLOC
   * throws std::bad_alloc instead). what() is describe(code()).
   */
  class error : public std::runtime_error {
   public:
    /** An error for `code` (one of the negative slate_error_e values). */
    explicit error(int code) : std::runtime_error(describe(code)), code_(code) {}
    /** The slate_error_e value. */
    int code() const noexcept { return code_; }

   private:
    int code_;
  };

  // --------------------------------------------------------------------------
  // values: void* helpers
  // --------------------------------------------------------------------------

  /* Integers (but bool) and enums travel as numbers: their bits as the
   * unsigned type of their size. */
  template <class T>
  static constexpr bool value_as_number_ =
      (std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_enum_v<T>;

  template <class T>
  static constexpr auto number_bits_(T value) noexcept {
    if constexpr (std::is_enum_v<T>) {
      return static_cast<std::make_unsigned_t<std::underlying_type_t<T>>>(value);
    } else {
      return static_cast<std::make_unsigned_t<T>>(value);
    }
  }

  /**
   * Packs a small trivially copyable value (an integer, an enum, a float, a
   * pointer, a small struct; at most sizeof(void*) bytes) into a void* so
   * that it can be stored as a map value without allocating. An integer or
   * enum becomes the number C code would store, (void*)(uintptr_t) of its
   * bits zero-extended, on every byte order; anything else is copied byte
   * for byte. Unused bytes are zero, so equal values give equal
   * (pointer-equal) void*s, which is what map equality compares. Read it
   * back with from_value<T>.
   */
  template <class T>
  static void* to_value(const T& value) noexcept {
    static_assert(std::is_trivially_copyable_v<T>, "slate::to_value: T must be trivially copyable");
    static_assert(sizeof(T) <= sizeof(void*), "slate::to_value: T must fit in a void*");
    if constexpr (value_as_number_<T>) {
      return reinterpret_cast<void*>(static_cast<std::uintptr_t>(number_bits_(value)));
    } else {
      void* out = nullptr;
      std::memcpy(static_cast<void*>(&out), static_cast<const void*>(&value), sizeof(T));
      return out;
    }
  }

  /** The value that to_value<T> packed into `value`. */
  template <class T>
  static T from_value(void* value) noexcept {
    static_assert(std::is_trivially_copyable_v<T>, "slate::from_value: T must be trivially copyable");
    static_assert(std::is_default_constructible_v<T>,
                  "slate::from_value: T must be default constructible");
    static_assert(sizeof(T) <= sizeof(void*), "slate::from_value: T must fit in a void*");
    if constexpr (value_as_number_<T>) {
      using bits = decltype(number_bits_(T{}));
      return static_cast<T>(static_cast<bits>(reinterpret_cast<std::uintptr_t>(value)));
    } else {
      T out{};
      std::memcpy(static_cast<void*>(&out), static_cast<const void*>(&value), sizeof(T));
      return out;
    }
  }

  /**
   * Integer keys appear in for_each/erase_if as their 10-byte encoding
   * (0x00, then 0x01 for int64_t or 0x02 for uint64_t, then the value
   * little-endian). decode_i64_key returns the int64_t when `key` is such an
   * encoding, else std::nullopt; decode_u64_key likewise for uint64_t. (A
   * string key set with exactly those 10 bytes is the same entry as the
   * integer key, by the C API's design, and decodes the same way.)
   */
  static std::optional<std::int64_t> decode_i64_key(std::string_view key) noexcept {
    std::int64_t out = 0;
    if (key.size() != SLATE_INT_KEY_LENGTH ||
        slate_key_to_i64(key.data(), SLATE_INT_KEY_LENGTH, &out) != SLATE_OK) {
      return std::nullopt;
    }
    return out;
  }

  /** See decode_i64_key. */
  static std::optional<std::uint64_t> decode_u64_key(std::string_view key) noexcept {
    std::uint64_t out = 0;
    if (key.size() != SLATE_INT_KEY_LENGTH ||
        slate_key_to_u64(key.data(), SLATE_INT_KEY_LENGTH, &out) != SLATE_OK) {
      return std::nullopt;
    }
    return out;
  }

  // --------------------------------------------------------------------------
  // key type rules
  // --------------------------------------------------------------------------

  /**
   * True for the integer types a map accepts as keys: signed char, short,
   * int, long, long long and their unsigned twins (so int64_t, uint64_t,
   * size_t, ...), cv-qualified or not. Signed types use the int64_t
   * keyspace, unsigned types the uint64_t keyspace, by type, never by value:
   * 5 and 5u are different keys; (short)-5 and (int64_t)-5 are the same.
   * Rejected, as in slate-generic.h: bool, plain char, wchar_t, char8_t,
   * char16_t, char32_t, enumerations, floating point, and anything wider than
   * 64 bits. Cast to the integer type you mean.
   */
  template <class I, class U = std::remove_cv_t<I>>
  static constexpr bool is_integer_key_v =
      std::is_integral_v<U> && !std::is_same_v<U, bool> && !std::is_same_v<U, char> &&
      !std::is_same_v<U, wchar_t> && !std::is_same_v<U, char16_t> &&
      !std::is_same_v<U, char32_t> &&
#if defined(__cpp_char8_t)
      !std::is_same_v<U, char8_t> &&
#endif
      sizeof(U) <= sizeof(std::uint64_t);

 private:
  template <class I>
  using enable_integer_key = std::enable_if_t<is_integer_key_v<I>, int>;

  /* A class type that converts to std::string_view (std::string,
     std::string_view, ...): an array of them goes to the bytes batch. */
  template <class S>
  using enable_string_key =
      std::enable_if_t<std::is_class_v<S> && std::is_convertible_v<const S&, std::string_view>, int>;

  /* The element type of a contiguous range (std::data), without const. */
  template <class Range>
  using range_element_t =
      std::remove_cv_t<std::remove_pointer_t<decltype(std::data(std::declval<const Range&>()))>>;

  /* The key types of map::get_many: integers, string classes, C strings. */
  template <class E>
  static constexpr bool is_batch_key_v =
      is_integer_key_v<E> || (std::is_class_v<E> && std::is_convertible_v<const E&, std::string_view>) ||
      std::is_same_v<E, const char*> || std::is_same_v<E, char*>;

  /* Keys per C call where a batch wrapper converts its keys first (on the
     stack: 64 keys and their lengths or results, about 1 KiB). */
  static constexpr std::size_t batch_chunk = 64;

  /** Throws for a failed code: bad_alloc for ALLOC, slate::error otherwise. */
  [[noreturn]] static void throw_code(int code) {
#if SLATE_HPP_EXCEPTIONS
    if (code == SLATE_ERROR_ALLOC) {
      throw std::bad_alloc();
    }
    throw error(code);
#else
    (void)code;
    std::abort();
#endif
  }

  /** Throws unless `code` is SLATE_OK. */
  static void check(int code) {
    if (code != SLATE_OK) {
      throw_code(code);
    }
  }
  static void check(status s) { check(s.code()); }

  /** A caught exception, carried across a C call (nothing without exceptions). */
  struct pending {
#if SLATE_HPP_EXCEPTIONS
    std::exception_ptr exception;
    bool failed() const noexcept { return static_cast<bool>(exception); }
    void rethrow() {
      if (exception) {
        std::rethrow_exception(exception);
      }
    }
#else
    static constexpr bool failed() noexcept { return false; }
    static void rethrow() noexcept {}
#endif
  };

  /**
   * Calls `f` (returning void or something convertible to bool) from inside
   * a C callback and returns its result as a bool (true for a void `f`).
   * An exception is caught and stored into `p`, and the result is false.
   * The trampolines turn that into "stop" (walks), "keep" (erase_if) or
   * "not less" (sort), and never call `f` again once `p` holds an exception.
   */
  template <class F, class... Args>
  static bool call_caught(pending& p, F& f, Args&&... args) noexcept {
#if SLATE_HPP_EXCEPTIONS
    try {
#endif
      using R = std::invoke_result_t<F&, Args...>;
      if constexpr (std::is_void_v<R>) {
        std::invoke(f, std::forward<Args>(args)...);
        return true;
      } else {
        return static_cast<bool>(std::invoke(f, std::forward<Args>(args)...));
      }
#if SLATE_HPP_EXCEPTIONS
    } catch (...) {
      p.exception = std::current_exception();
      return false;
    }
#else
    (void)p;
#endif
  }

  template <class R>
  static constexpr bool void_or_bool_v = std::is_void_v<R> || std::is_convertible_v<R, bool>;

  /* A save's `write`: callable as write(const void* bytes, std::size_t length). */
  template <class W>
  static constexpr bool is_writer_v = std::is_invocable_v<W&, const void*, std::size_t>;

  /*
   * The trampoline of the saves (slate_write_f): calls `write(bytes,
   * length)` and returns 0 for a void `write`, else its int. An exception
   * is caught into `caught` and returns non-zero, which stops the save;
   * the caller rethrows it once the C call has returned.
   */
  template <class W>
  struct writer {
    W& write;
    pending caught;

    static int call(void* context, const void* bytes, std::size_t length) noexcept {
      auto* self = static_cast<writer*>(context);
#if SLATE_HPP_EXCEPTIONS
      try {
#endif
        if constexpr (std::is_void_v<std::invoke_result_t<W&, const void*, std::size_t>>) {
          std::invoke(self->write, bytes, length);
          return 0;
        } else {
          return static_cast<int>(std::invoke(self->write, bytes, length));
        }
#if SLATE_HPP_EXCEPTIONS
      } catch (...) {
        self->caught.exception = std::current_exception();
        return SLATE_ERROR_INVALID;  // stops the save; the exception is what the caller sees
      }
#endif
    }
  };

  /* Runs `c_save(slate_write_f, context)` with `write` behind the
     trampoline, and rethrows what `write` threw. */
  template <class W, class Save>
  static status save_through(W& write, Save c_save) {
    using R = std::invoke_result_t<W&, const void*, std::size_t>;
    static_assert(std::is_void_v<R> || std::is_same_v<R, int> || std::is_same_v<R, slate_error_e>,
                  "slate: save's write must return void, or int (0 to go on, non-zero to stop the "
                  "save with that code); not bool");
    writer<W> w{write, {}};
    int rc = c_save(&writer<W>::call, static_cast<void*>(&w));
    w.caught.rethrow();
    return status(rc);
  }

  /* Appends a snapshot of `size` bytes to `out` through `c_save` and
     slate_buffer_write; `out` keeps its old size on failure. */
  template <class Save>
  static status append_snapshot(std::vector<unsigned char>& out, std::uint64_t size, Save c_save) noexcept {
    const std::size_t before = out.size();
    if (size > out.max_size() - before) {
      return status(SLATE_ERROR_FULL);
    }
#if SLATE_HPP_EXCEPTIONS
    try {
#endif
      out.resize(before + static_cast<std::size_t>(size));
#if SLATE_HPP_EXCEPTIONS
    } catch (const std::bad_alloc&) {
      return status(SLATE_ERROR_ALLOC);
    } catch (...) {
      return status(SLATE_ERROR_FULL);  // std::length_error
    }
#endif
    slate_buffer_s buffer{out.data() + before, static_cast<std::size_t>(size), 0};
    const int rc = c_save(&slate_buffer_write, static_cast<void*>(&buffer));
    out.resize(rc == SLATE_OK ? before + buffer.length : before);  // never grows: cannot throw
    return status(rc);
  }

 public:
  // --------------------------------------------------------------------------
  // map
  // --------------------------------------------------------------------------

  /**
   * A hash map from byte-string or integer keys to void* values: the RAII
   * owner of one slate_s (Go 1.24's Swiss-table map, see slate.h).
   *
   * Keys: std::string_view (and everything that converts to it: string
   * literals, char*, std::string; embedded NULs are part of the key, the
   * empty key is allowed), or an integer type accepted by is_integer_key_v
   * (signed -> int64_t keyspace, unsigned -> uint64_t keyspace). The three
   * keyspaces never meet, except through a string key that is an integer
   * key's exact 10-byte encoding (see decode_i64_key). The map stores its
   * own copy of each key.
   *
   * Values: void*, stored as given, never dereferenced, never freed: the map
   * does not own what they point to. nullptr is a value like any other (use
   * contains() to test presence). to_value/from_value pack small values.
   *
   * Iteration order is unspecified (a clone keeps its source's order).
   * Move-only; copy with clone(). Not thread-safe.
   */
  class map {
   public:
    /** An empty map. Allocates nothing. */
    map() noexcept : raw_() { (void)::slate(&raw_); }

    /** Releases everything the map holds (slate_free). */
    ~map() { slate_free(&raw_); }

    map(const map&) = delete;
    map& operator=(const map&) = delete;

    /**
     * Takes `other`'s entries without copying them (the slate_s moves byte
     * for byte); `other` becomes a valid empty map. Not from inside one of
     * `other`'s callbacks.
     */
    map(map&& other) noexcept : raw_(other.raw_) { (void)::slate(&other.raw_); }

    /**
     * Frees this map's entries and takes `other`'s; `other` becomes a valid
     * empty map. Self-move does nothing. Not from inside a callback of
     * either map.
     */
    map& operator=(map&& other) noexcept {
      if (this != &other) {
        slate_free(&raw_);
        std::memcpy(static_cast<void*>(&raw_), static_cast<const void*>(&other.raw_), sizeof raw_);
        (void)::slate(&other.raw_);
      }
      return *this;
    }

    /** Exchanges the two maps' contents. Not from inside a callback. */
    void swap(map& other) noexcept {
      slate_s tmp = raw_;
      raw_ = other.raw_;
      other.raw_ = tmp;
    }
    /** a.swap(b). */
    friend void swap(map& a, map& b) noexcept { a.swap(b); }

    /**
     * Takes ownership of an initialized slate_s (built by C code, say).
     * `raw` must not be used by its previous owner afterwards.
     */
    static map adopt(const slate_s& raw) noexcept {
      map m;
      m.raw_ = raw;
      return m;
    }

    /**
     * Gives up ownership: returns the slate_s (the caller must slate_free it
     * eventually) and leaves this map valid and empty.
     */
    slate_s release() noexcept {
      slate_s out = raw_;
      (void)::slate(&raw_);
      return out;
    }

    /**
     * An independent copy: the same entries (values copied as pointers, the
     * pointees are not copied) and the same iteration order.
     * Throws std::bad_alloc (this map is unchanged either way).
     */
    map clone() const {
      map out;
      check(try_clone(out));
      return out;
    }

    /**
     * clone() without exceptions: on SLATE_OK `out` holds the copy (its old
     * entries were freed); on SLATE_ERROR_ALLOC `out` is empty.
     * `out` must not be this map (SLATE_ERROR_INVALID).
     */
    status try_clone(map& out) const noexcept {
      if (&out == this) {
        return status(SLATE_ERROR_INVALID);
      }
      slate_free(&out.raw_);
      return status(slate_clone(&out.raw_, &raw_));
    }

    // ---- insert / replace -------------------------------------------------

    /**
     * Inserts `key` -> `value`, or replaces the value of an existing key.
     * Returns true when the key was new, false when a value was replaced.
     * Throws std::bad_alloc, or slate::error (SLATE_ERROR_FULL for a key of
     * 4 GiB or more);
     * then the map is unchanged.
     */
    bool set(std::string_view key, void* value) { return set_impl(key, value); }
    /** set() for an integer key (see is_integer_key_v). */
    template <class I, enable_integer_key<I> = 0>
    bool set(I key, void* value) {
      return set_impl(key, value);
    }
    /** A null char* is not a key (it would be UB for std::string_view). */
    bool set(std::nullptr_t, void*) = delete;

    /**
     * set() without exceptions: SLATE_OK, SLATE_ERROR_ALLOC,
     * SLATE_ERROR_FULL or SLATE_ERROR_INVALID (then the map is unchanged).
     */
    status try_set(std::string_view key, void* value) noexcept {
      return status(set_raw(&raw_, key, value));
    }
    /** try_set() for an integer key. */
    template <class I, enable_integer_key<I> = 0>
    status try_set(I key, void* value) noexcept {
      return status(set_raw(&raw_, key, value));
    }
    status try_set(std::nullptr_t, void*) = delete;

    // ---- get or insert ----------------------------------------------------

    /** What entry() hands back: the key's value, and whether it was new. */
    struct entry_ref {
      void*& value;   /**< the map's stored value (nullptr for a new key) */
      bool inserted;  /**< true when the key was new */
    };

    /**
     * Gets or inserts `key` with one lookup: a reference to its stored
     * value (a new key starts as nullptr) and whether it was new, so that
     * `++reinterpret_cast<std::uintptr_t&>(m.entry(word).value)` counts a
     * word. The reference is valid until the next call that adds or
     * removes a key or changes the map's memory (see slate_entry). Throws
     * std::bad_alloc, or slate::error (SLATE_ERROR_FULL for a key of 4 GiB
     * or more); then
     * nothing was inserted.
     */
    entry_ref entry(std::string_view key) { return entry_impl(key); }
    /** entry() for an integer key. */
    template <class I, enable_integer_key<I> = 0>
    entry_ref entry(I key) {
      return entry_impl(key);
    }
    entry_ref entry(std::nullptr_t) = delete;

    /**
     * entry() without exceptions: on SLATE_OK `value` points to the key's
     * stored value and `*inserted` (unless null) says whether it was new;
     * else `value` is left as it was.
     */
    status try_entry(std::string_view key, void**& value, bool* inserted = nullptr) noexcept {
      return status(entry_raw(&raw_, key, value, inserted));
    }
    /** try_entry() for an integer key. */
    template <class I, enable_integer_key<I> = 0>
    status try_entry(I key, void**& value, bool* inserted = nullptr) noexcept {
      return status(entry_raw(&raw_, key, value, inserted));
    }
    status try_entry(std::nullptr_t, void**&, bool* = nullptr) = delete;

    // ---- lookup -----------------------------------------------------------

    /**
     * The value stored under `key`, or std::nullopt when the key is absent.
     * (A stored nullptr comes back as an engaged optional holding nullptr.)
     * Allocates nothing, never throws; allowed inside callbacks.
     */
    std::optional<void*> get(std::string_view key) const noexcept { return get_impl(key); }
    /** get() for an integer key. */
    template <class I, enable_integer_key<I> = 0>
    std::optional<void*> get(I key) const noexcept {
      return get_impl(key);
    }
    std::optional<void*> get(std::nullptr_t) const = delete;

    /** True when `key` is in the map. Allocates nothing, never throws. */
    bool contains(std::string_view key) const noexcept { return get_raw(&raw_, key, nullptr) == SLATE_OK; }
    /** contains() for an integer key. */
    template <class I, enable_integer_key<I> = 0>
    bool contains(I key) const noexcept {
      return get_raw(&raw_, key, nullptr) == SLATE_OK;
    }
    bool contains(std::nullptr_t) const = delete;

    // ---- batch lookup -----------------------------------------------------

    /**
     * Looks up `count` keys at once: for each i < count, `found[i]` becomes 1
     * when `keys[i]` is in the map, and then `values[i]` its value, else 0,
     * with `values[i]` left as it was. `values` may be nullptr (presence
     * tests only). The results equal those of `count` calls of get(),
     * duplicates included; on a map larger than the caches the call is
     * faster, because it overlaps the keys' cache misses. The arrays are the
     * caller's: the map keeps no pointer into them. Allocates nothing, never
     * throws; allowed inside callbacks, like get().
     *
     * Returns SLATE_OK (also for count 0, when the pointers may be null), or
     * SLATE_ERROR_INVALID, with nothing written, when `keys` or `found` is
     * null and count > 0.
     *
     * This overload takes any integer key type (see is_integer_key_v): an
     * array of std::uint64_t or std::int64_t goes to the C call as it is
     * (slate_get_many_u64 / _i64); other types are converted, 64 keys at a
     * time, on the stack.
     */
    template <class I, enable_integer_key<I> = 0>
    status get_many(const I* keys, std::size_t count, void** values,
                    std::uint8_t* found) const noexcept {
      return status(get_many_ints(&raw_, keys, count, values, found));
    }

    /**
     * get_many() for string keys held as std::string_view, std::string or
     * any class that converts to std::string_view: each key is its bytes
     * (NULs allowed, the empty key allowed), as for get(). They go to
     * slate_get_many_bytes, 64 at a time (their pointers and lengths on the
     * stack). A key of 4 GiB or more, which no map can hold, is not found.
     */
    template <class S, enable_string_key<S> = 0>
    status get_many(const S* keys, std::size_t count, void** values,
                    std::uint8_t* found) const noexcept {
      return status(get_many_views(&raw_, keys, count, values, found));
    }

    /**
     * get_many() for NUL-terminated C strings (slate_get_many): each key is
     * its bytes without the NUL. A null `keys[i]` is SLATE_ERROR_INVALID,
     * with nothing written.
     */
    status get_many(const char* const* keys, std::size_t count, void** values,
                    std::uint8_t* found) const noexcept {
      return status(slate_get_many(&raw_, keys, count, values, found));
    }

    /**
     * get_many() over a contiguous container of keys (std::vector,
     * std::array, a C array, ...; std::data and std::size): `values` (or
     * nullptr) and `found` have room for std::size(keys) elements.
     */
    template <class Keys, std::enable_if_t<is_batch_key_v<range_element_t<Keys>>, int> = 0>
    status get_many(const Keys& keys, void** values, std::uint8_t* found) const noexcept {
      return get_many(std::data(keys), static_cast<std::size_t>(std::size(keys)), values, found);
    }

    // ---- erase ------------------------------------------------------------

    /**
     * Removes `key`. Returns true when it was there, false when not.
     * Memory is kept for reuse (see compact()). Never throws.
     */
    bool erase(std::string_view key) { return erase_impl(key); }
    /** erase() for an integer key. */
    template <class I, enable_integer_key<I> = 0>
    bool erase(I key) {
      return erase_impl(key);
    }
    bool erase(std::nullptr_t) = delete;

    /**
     * Removes `key` and returns its value, or std::nullopt when it was not
     * there: one lookup, so that what the value points to can be freed
     * after the entry is gone. Never throws.
     */
    std::optional<void*> take(std::string_view key) { return take_impl(key); }
    /** take() for an integer key. */
    template <class I, enable_integer_key<I> = 0>
    std::optional<void*> take(I key) {
      return take_impl(key);
    }
    std::optional<void*> take(std::nullptr_t) = delete;

    // ---- size and capacity --------------------------------------------------

    /** The number of entries. */
    std::size_t size() const noexcept { return static_cast<std::size_t>(slate_length(&raw_)); }
    /** True when size() is 0. */
    bool empty() const noexcept { return slate_length(&raw_) == 0; }

    /**
     * Removes every entry, keeps the capacity (a refill allocates less).
     */
    void clear() { check(slate_clear(&raw_)); }

    /**
     * Sizes the map so that `n` entries fit without growing (a hint; never
     * shrinks). Throws std::bad_alloc, or slate::error (SLATE_ERROR_FULL for
     * a size no map can reach, such as UINT64_MAX); the map is unchanged then.
     */
    void reserve(std::uint64_t n) { check(try_reserve(n)); }
    /** reserve() without exceptions. */
    status try_reserve(std::uint64_t n) noexcept { return status(slate_reserve(&raw_, n)); }

    /**
     * Rebuilds the map at its current size, giving back memory left by
     * erasures. Throws std::bad_alloc (the map is unchanged then).
     */
    void compact() { check(try_compact()); }

    /**
     * Pins the hash seed, so that the same calls in the same order give the
     * same iteration order (tests, golden files); see slate_pin_seed. Only
     * while the map holds no memory (a new map, or one that a compact()
     * left empty); throws slate::error (SLATE_ERROR_INVALID) otherwise. A
     * clone keeps the pin.
     * A pinned seed an attacker can learn gives up flooding protection.
     */
    void pin_seed(std::uint64_t seed) { check(try_pin_seed(seed)); }
    /** pin_seed() without exceptions. */
    status try_pin_seed(std::uint64_t seed) noexcept { return status(slate_pin_seed(&raw_, seed)); }

    /**
     * An empty map that allocates through `allocator` (copied; its context
     * must outlive the map's memory); see slate_set_allocator. Clones
     * inherit it. Throws slate::error (SLATE_ERROR_INVALID) for a NULL
     * `allocate` or `release`.
     */
    static map with_allocator(const slate_allocator_s& allocator) {
      map m;
      m.set_allocator(allocator);
      return m;
    }
    /**
     * Gives the map its own allocator; only while it holds no memory (a new
     * map, or one that compact() left empty). Throws
     * slate::error (SLATE_ERROR_INVALID) otherwise.
     */
    void set_allocator(const slate_allocator_s& allocator) { check(try_set_allocator(&allocator)); }
    /** set_allocator() without exceptions; NULL: the process default again. */
    status try_set_allocator(const slate_allocator_s* allocator) noexcept {
      return status(slate_set_allocator(&raw_, allocator));
    }
    /** compact() without exceptions. */
    status try_compact() noexcept { return status(slate_compact(&raw_)); }

    // ---- comparison ---------------------------------------------------------

    /** True when both maps hold the same keys with pointer-equal values. */
    friend bool operator==(const map& a, const map& b) noexcept {
      return slate_equal(&a.raw_, &b.raw_) == 1;
    }
    /** !(a == b). */
    friend bool operator!=(const map& a, const map& b) noexcept { return !(a == b); }

    // ---- walks --------------------------------------------------------------

    /**
     * Calls `f(std::string_view key, void* value)` once per entry, in an
     * unspecified order. `key` views the map's own copy of the key, valid
     * during that call only (integer keys appear as their 10-byte encoding:
     * see decode_i64_key / decode_u64_key). If `f` returns bool, `false`
     * stops the walk; a void `f` visits every entry.
     *
     * Returns true when every entry was visited, false when `f` stopped the
     * walk. `f` may call anything, on this map too (SPEC §3c): erasing the
     * key it was given, or replacing a value, lets the walk go on; any
     * other change to this map is carried out, stops the walk, and makes
     * for_each throw slate::error (SLATE_ERROR_INVALID) unless `f` also
     * stopped it. An exception from `f` stops the walk and is rethrown from
     * for_each.
     */
    template <class F>
    bool for_each(F&& f) const {
      static_assert(std::is_invocable_v<F&, std::string_view, void*>,
                    "slate::map::for_each: f must be callable as f(std::string_view, void*)");
      static_assert(void_or_bool_v<std::invoke_result_t<F&, std::string_view, void*>>,
                    "slate::map::for_each: f must return void or bool");
      walk<std::remove_reference_t<F>> w{f, {}};
      int rc = slate_each(&raw_, &walk<std::remove_reference_t<F>>::visit, &w);
      w.caught.rethrow();
      if (rc < 0) {
        throw_code(rc);
      }
      return rc == SLATE_OK;
    }

    /**
     * Erases every entry for which `f(std::string_view key, void* value)`
     * returns true, in one walk; returns how many were erased. `f` sees keys
     * as in for_each and may call anything as there: a change to this map
     * other than erasing its own key stops the walk, and erase_if then
     * throws slate::error (SLATE_ERROR_INVALID). If `f` throws, the
     * entries it approved before are erased, all others kept, and the
     * exception is rethrown.
     */
    template <class F>
    std::size_t erase_if(F&& f) {
      static_assert(std::is_invocable_r_v<bool, F&, std::string_view, void*>,
                    "slate::map::erase_if: f must be callable as bool f(std::string_view, void*)");
      const std::uint64_t before = slate_length(&raw_);
      walk<std::remove_reference_t<F>> w{f, {}};
      int rc = slate_delete_if(&raw_, &walk<std::remove_reference_t<F>>::predicate, &w);
      w.caught.rethrow();
      check(rc);
      return static_cast<std::size_t>(before - slate_length(&raw_));
    }

    // ---- iterators (cursors) -------------------------------------------------

    /** An entry as an iterator shows it (`*it`). */
    struct element {
      /** The key's bytes: the map's copy, or for an integer key its 10-byte
       * encoding inside the iterator (see decode_i64_key / decode_u64_key). */
      std::string_view key;
      /** The value. */
      void* value;
    };

    /**
     * A forward iterator over the entries, in for_each's order, over a
     * slate_iter_s cursor: it holds no memory. `*it` is an element; its key
     * stays valid until the iterator moves or the map is modified. Every
     * change to the map but erase(it) through this very iterator (a new key,
     * another erase, clear, compact, reserve that grows, a move of the map)
     * makes the map's other iterators stale: incrementing or erasing through
     * a stale iterator throws slate::error (SLATE_ERROR_INVALID), never
     * undefined behaviour. Replacing a present key's value does not.
     *
     *     for (auto it = m.begin(); it != m.end();)
     *       it = drop(it->key) ? m.erase(it) : std::next(it);
     */
    class iterator {
     public:
      using iterator_category = std::forward_iterator_tag;
      using value_type = element;
      using difference_type = std::ptrdiff_t;
      using pointer = const element*;
      using reference = const element&;

      /** The end of every map. */
      iterator() noexcept = default;
      iterator(const iterator& other) noexcept
          : map_(other.map_), cursor_(other.cursor_), entry_(other.entry_), step_(other.step_) {
        rebase(other);
      }
      iterator& operator=(const iterator& other) noexcept {
        map_ = other.map_;
        cursor_ = other.cursor_;
        entry_ = other.entry_;
        step_ = other.step_;
        rebase(other);
        return *this;
      }

      /** The entry (not on end()). */
      reference operator*() const noexcept { return entry_; }
      pointer operator->() const noexcept { return &entry_; }

      /** The next entry, or end(). Throws slate::error when stale. */
      iterator& operator++() {
        advance();
        return *this;
      }
      iterator operator++(int) {
        iterator old(*this);
        advance();
        return old;
      }

      /** Both at the end, or at the same step of one map's walk. */
      friend bool operator==(const iterator& a, const iterator& b) noexcept {
        return a.map_ == b.map_ && (a.map_ == nullptr || a.step_ == b.step_);
      }
      friend bool operator!=(const iterator& a, const iterator& b) noexcept { return !(a == b); }

     private:
      friend class map;

      explicit iterator(const map* m) : map_(m) {
        (void)slate_iter(&cursor_, &m->raw_);
        advance();
      }

      void advance() {
        if (map_ == nullptr) {
          return;
        }
        const char* key = nullptr;
        std::uint32_t length = 0;
        void* value = nullptr;
        int rc = slate_iter_next(&cursor_, &map_->raw_, &key, &length, &value);
        if (rc == SLATE_OK) {
          entry_ = element{std::string_view(key, length), value};
          step_++;
          return;
        }
        map_ = nullptr;
        entry_ = element{};
        if (rc != SLATE_ERROR_NOT_FOUND) {
          throw_code(rc);
        }
      }

      /* A copied cursor carries its integer key's bytes: the copy views its own. */
      void rebase(const iterator& other) noexcept {
        const char* p = entry_.key.data();
        const char* from = reinterpret_cast<const char*>(&other.cursor_);
        std::less_equal<const char*> le;
        if (p != nullptr && le(from, p) && le(p + entry_.key.size(), from + sizeof cursor_)) {
          entry_.key = std::string_view(reinterpret_cast<const char*>(&cursor_) + (p - from),
                                        entry_.key.size());
        }
      }

      const map* map_ = nullptr;  // nullptr: at the end
      slate_iter_s cursor_{};
      element entry_{};
      std::uint64_t step_ = 0;
    };
    using const_iterator = iterator;

    /** An iterator at the first entry (end() for an empty map). */
    iterator begin() const { return iterator(this); }
    /** The end. */
    iterator end() const noexcept { return iterator(); }

    /**
     * Erases the entry `it` is at and returns the iterator at the next entry
     * (or end()); `it`'s copies and the map's other iterators are stale
     * then. Throws slate::error (SLATE_ERROR_INVALID) for end(), an iterator
     * of another map, or a stale iterator; the map
     * is unchanged then.
     */
    iterator erase(iterator it) {
      if (it.map_ != this) {
        throw_code(SLATE_ERROR_INVALID);
      }
      check(slate_iter_delete(&it.cursor_, &raw_));
      it.advance();
      return it;
    }

    // ---- snapshots (SPEC §6c) -----------------------------------------------

    /**
     * Writes the map's snapshot through `write(const void* bytes,
     * std::size_t length)`, in order, in pieces of at least one byte (valid
     * during that call only). `write` returns void (go on), or int: 0 to go
     * on, non-zero to stop the save, which then returns that value (what
     * was written is then no snapshot). Each entry is saved as its key's
     * bytes (integer keys as their 10-byte encodings) and its value: with
     * no `codec`, the value as an integer, (uint64_t)(uintptr_t)value,
     * right for counts, indices, slate::key raw values and to_value's
     * numbers (a pointer saved so means nothing in another process); else
     * the bytes `codec->encode` makes (see slate_value_codec_s; its
     * functions are called from C and must not throw). The seed and the
     * tables are never saved. Only reads the map; allocates nothing but,
     * with a codec and a record (key, value and 8 bytes) past 4 KiB, one
     * scratch buffer (through the map's allocator).
     *
     * Returns SLATE_OK, `write`'s or `encode`'s non-zero return,
     * SLATE_ERROR_ALLOC (a codec save's scratch buffer), or SLATE_ERROR_INVALID
     * for a codec without `encode` or when `write` or `encode` changed the
     * map (SPEC §3c). An exception from `write` stops the save and is
     * rethrown once the C call has returned.
     */
    template <class W, std::enable_if_t<is_writer_v<W>, int> = 0>
    status save(W&& write, const slate_value_codec_s* codec = nullptr) const {
      return save_through(write, [&](slate_write_f f, void* context) noexcept {
        return slate_save(&raw_, codec, f, context);
      });
    }

    /**
     * Appends the map's snapshot to `out` (so that several snapshots, such
     * as a slotmap's, its sets' and its maps', can share one buffer, which
     * slate_snapshot_info walks). Sizes `out` once, with save_size. Returns
     * SLATE_OK; SLATE_ERROR_ALLOC or SLATE_ERROR_FULL when `out` cannot
     * grow that much; or the codes of save(write, codec). On failure `out`
     * holds what it held (its capacity may have grown).
     */
    status save(std::vector<unsigned char>& out, const slate_value_codec_s* codec = nullptr) const noexcept {
      std::uint64_t size = 0;
      const int rc = slate_save_size(&raw_, codec, &size);
      if (rc != SLATE_OK) {
        return status(rc);
      }
      return append_snapshot(out, size, [&](slate_write_f f, void* context) noexcept {
        return slate_save(&raw_, codec, f, context);
      });
    }

    /**
     * The map's snapshot in a new vector: save(out, codec) into an empty
     * one. Throws std::bad_alloc, or slate::error with save's code (an
     * `encode`'s non-zero return included). Without exceptions use
     * save(out, codec).
     */
    std::vector<unsigned char> save(const slate_value_codec_s* codec = nullptr) const {
      std::vector<unsigned char> out;
      check(save(out, codec));
      return out;
    }

    /** The exact number of bytes save() writes with integer values. O(n). */
    std::uint64_t save_size() const noexcept {
      std::uint64_t size = 0;
      (void)slate_save_size(&raw_, nullptr, &size);  // cannot fail without a codec
      return size;
    }
    /**
     * The exact number of bytes save() writes with `codec` (or none): asks
     * `encode` every value's length. SLATE_OK with `size` set, `encode`'s
     * non-zero return, or SLATE_ERROR_INVALID (a codec without `encode`,
     * or `encode` changed the map); `size` unchanged then.
     */
    status save_size(const slate_value_codec_s* codec, std::uint64_t& size) const noexcept {
      return status(slate_save_size(&raw_, codec, &size));
    }

    /**
     * Loads a map snapshot from exactly `length` bytes (any alignment; read
     * during the call only) into this map, which must hold no memory: new,
     * moved from, assigned `slate::map()`, or left empty by compact() (else
     * SLATE_ERROR_INVALID). The tables are rebuilt with this map's seed
     * (its pinned one if pin_seed came first) and allocator. `codec` must
     * match the save's: none for integer values, else one with `decode`
     * (and `discard` if values own something); its functions must not
     * throw. Every byte is checked (SPEC §6c): any input either loads or
     * is refused.
     *
     * Returns SLATE_OK, or (the map unchanged, every value `decode` made
     * passed to `discard`) SLATE_ERROR_INVALID (the destination, or null
     * `bytes` with a non-zero length), SLATE_ERROR_CORRUPT (not a valid
     * snapshot: truncated, damaged), SLATE_ERROR_UNSUPPORTED (a newer
     * format, another kind of snapshot, the other value encoding, an
     * integer value this platform's pointers cannot hold),
     * SLATE_ERROR_FULL, SLATE_ERROR_ALLOC, or `decode`'s non-zero return.
     * Never throws.
     */
    status load(const void* bytes, std::size_t length, const slate_value_codec_s* codec = nullptr) noexcept {
      return status(slate_load(&raw_, bytes, length, codec));
    }

    // ---- C interop ----------------------------------------------------------

    /**
     * The slate_s this map owns, for the C API. Valid while the map lives
     * (a move hands it over). Do not slate_free it through this pointer
     * (the destructor does), and do not re-initialize it with slate().
     */
    slate_s* native() noexcept { return &raw_; }
    /** native(), for read-only C calls. */
    const slate_s* native() const noexcept { return &raw_; }

   private:
    template <class F>
    struct walk {
      F& f;
      pending caught;

      static int visit(const char* key, std::uint32_t length, void* value, void* data) noexcept {
        auto* self = static_cast<walk*>(data);
        return call_caught(self->caught, self->f, std::string_view(key, length), value) ? 0 : 1;
      }
      static int predicate(const char* key, std::uint32_t length, void* value, void* data) noexcept {
        auto* self = static_cast<walk*>(data);
        if (self->caught.failed()) {
          return 0;  // f threw: keep everything from here on
        }
        return call_caught(self->caught, self->f, std::string_view(key, length), value) &&
                       !self->caught.failed()
                   ? 1
                   : 0;
      }
    };

    static constexpr std::uint64_t max_key_length = std::numeric_limits<std::uint32_t>::max();

    static int set_raw(slate_s* m, std::string_view key, void* value) noexcept {
      if (key.size() > max_key_length) {
        return SLATE_ERROR_FULL;
      }
      return slate_set_bytes(m, key.data(), static_cast<std::uint32_t>(key.size()), value);
    }
    template <class I>
    static int set_raw(slate_s* m, I key, void* value) noexcept {
      if constexpr (std::is_signed_v<I>) {
        return slate_set_i64(m, static_cast<std::int64_t>(key), value);
      } else {
        return slate_set_u64(m, static_cast<std::uint64_t>(key), value);
      }
    }
    static int entry_raw(slate_s* m, std::string_view key, void**& value, bool* inserted) noexcept {
      if (key.size() > max_key_length) {
        return SLATE_ERROR_FULL;
      }
      int fresh = 0;
      int rc = slate_entry_bytes(m, key.data(), static_cast<std::uint32_t>(key.size()), &value, &fresh);
      if (rc == SLATE_OK && inserted) *inserted = fresh != 0;
      return rc;
    }
    template <class I>
    static int entry_raw(slate_s* m, I key, void**& value, bool* inserted) noexcept {
      int fresh = 0;
      int rc = 0;
      if constexpr (std::is_signed_v<I>) {
        rc = slate_entry_i64(m, static_cast<std::int64_t>(key), &value, &fresh);
      } else {
        rc = slate_entry_u64(m, static_cast<std::uint64_t>(key), &value, &fresh);
      }
      if (rc == SLATE_OK && inserted) *inserted = fresh != 0;
      return rc;
    }
    static int get_raw(const slate_s* m, std::string_view key, void** value) noexcept {
      if (key.size() > max_key_length) {
        return SLATE_ERROR_NOT_FOUND;  // no such key can exist
      }
      return slate_get_bytes(m, key.data(), static_cast<std::uint32_t>(key.size()), value);
    }
    template <class I>
    static int get_raw(const slate_s* m, I key, void** value) noexcept {
      if constexpr (std::is_signed_v<I>) {
        return slate_get_i64(m, static_cast<std::int64_t>(key), value);
      } else {
        return slate_get_u64(m, static_cast<std::uint64_t>(key), value);
      }
    }
    template <class I>
    static int get_many_ints(const slate_s* m, const I* keys, std::size_t count, void** values,
                             std::uint8_t* found) noexcept {
      if constexpr (std::is_same_v<I, std::uint64_t>) {
        return slate_get_many_u64(m, keys, count, values, found);
      } else if constexpr (std::is_same_v<I, std::int64_t>) {
        return slate_get_many_i64(m, keys, count, values, found);
      } else {
        using wide = std::conditional_t<std::is_signed_v<I>, std::int64_t, std::uint64_t>;
        if (count > 0 && (keys == nullptr || found == nullptr)) {
          return SLATE_ERROR_INVALID;
        }
        wide chunk[batch_chunk];
        for (std::size_t start = 0; start < count; start += batch_chunk) {
          const std::size_t n = count - start < batch_chunk ? count - start : batch_chunk;
          for (std::size_t i = 0; i < n; i++) {
            chunk[i] = static_cast<wide>(keys[start + i]);
          }
          int rc = get_many_ints(m, static_cast<const wide*>(chunk), n,
                                 values ? values + start : nullptr, found + start);
          if (rc != SLATE_OK) {
            return rc;  // (a null map only, which a slate::map never is)
          }
        }
        return SLATE_OK;
      }
    }
    template <class S>
    static int get_many_views(const slate_s* m, const S* keys, std::size_t count, void** values,
                              std::uint8_t* found) noexcept {
      if (count > 0 && (keys == nullptr || found == nullptr)) {
        return SLATE_ERROR_INVALID;
      }
      const void* data[batch_chunk];
      std::uint32_t lengths[batch_chunk];
      std::size_t start = 0;
      while (start < count) {
        std::size_t n = 0;
        for (; n < batch_chunk && start + n < count; n++) {
          const std::string_view key(keys[start + n]);
          if (key.size() > max_key_length) {
            break;  // looked up below, alone
          }
          data[n] = key.data();
          lengths[n] = static_cast<std::uint32_t>(key.size());
        }
        if (n == 0) {
          found[start++] = 0;  // no map holds a key of 4 GiB or more
          continue;
        }
        int rc = slate_get_many_bytes(m, data, lengths, n, values ? values + start : nullptr,
                                      found + start);
        if (rc != SLATE_OK) {
          return rc;  // (a null map only, which a slate::map never is)
        }
        start += n;
      }
      return SLATE_OK;
    }
    /* Removes `key`, storing its value in `*value` unless it is null. */
    static int take_raw(slate_s* m, std::string_view key, void** value) noexcept {
      if (key.size() > max_key_length) {
        return SLATE_ERROR_NOT_FOUND;  // no such key can exist
      }
      return slate_take_bytes(m, key.data(), static_cast<std::uint32_t>(key.size()), value);
    }
    template <class I>
    static int take_raw(slate_s* m, I key, void** value) noexcept {
      if constexpr (std::is_signed_v<I>) {
        return slate_take_i64(m, static_cast<std::int64_t>(key), value);
      } else {
        return slate_take_u64(m, static_cast<std::uint64_t>(key), value);
      }
    }

    template <class K>
    bool set_impl(K key, void* value) {
      const std::uint64_t before = slate_length(&raw_);
      check(set_raw(&raw_, key, value));
      return slate_length(&raw_) != before;
    }
    template <class K>
    std::optional<void*> get_impl(K key) const noexcept {
      void* value = nullptr;
      if (get_raw(&raw_, key, &value) == SLATE_OK) {
        return value;
      }
      return std::nullopt;
    }
    template <class K>
    entry_ref entry_impl(K key) {
      void** value = nullptr;
      bool inserted = false;
      check(entry_raw(&raw_, key, value, &inserted));
      return entry_ref{*value, inserted};
    }
    template <class K>
    std::optional<void*> take_impl(K key) {
      void* value = nullptr;
      int rc = take_raw(&raw_, key, &value);
      if (rc == SLATE_ERROR_NOT_FOUND) {
        return std::nullopt;
      }
      check(rc);
      return value;
    }
    template <class K>
    bool erase_impl(K key) {
      return take_impl(key).has_value();
    }

    slate_s raw_;
  };

  // --------------------------------------------------------------------------
  // key
  // --------------------------------------------------------------------------

  /**
   * A slotmap key: a slotmap_key (low 32 bits slot index, high 32 bits
   * generation). The default key is the null key (0), which no slotmap ever
   * validates. A key stays valid until its element is erased (or the slotmap
   * cleared); after that it never validates again, not even once its slot is
   * reused. Keys are plain values: copy, compare, hash (std::hash<slate::key>
   * is provided) and store them freely. The same key type serves every
   * slotmap<T>; a key of another slotmap is simply not found.
   */
  class key {
   public:
    /** The null key (0). */
    constexpr key() noexcept = default;
    /** Wraps a slotmap_key from the C API. */
    constexpr explicit key(slotmap_key raw) noexcept : raw_(raw) {}

    /** The slotmap_key, for the C API. */
    constexpr slotmap_key raw() const noexcept { return raw_; }
    /** The slot index (low 32 bits). */
    constexpr std::uint32_t index() const noexcept { return static_cast<std::uint32_t>(raw_); }
    /** The slot generation (high 32 bits). */
    constexpr std::uint32_t generation() const noexcept {
      return static_cast<std::uint32_t>(raw_ >> 32);
    }
    /** False for the null key. (True does not mean "valid": ask contains().) */
    constexpr explicit operator bool() const noexcept { return raw_ != 0; }

    /** Same raw value (so the same slot and generation). */
    friend constexpr bool operator==(key a, key b) noexcept { return a.raw_ == b.raw_; }
    /** Different raw values. */
    friend constexpr bool operator!=(key a, key b) noexcept { return a.raw_ != b.raw_; }
    /** An arbitrary total order (by raw value), for ordered containers. */
    friend constexpr bool operator<(key a, key b) noexcept { return a.raw_ < b.raw_; }
    friend constexpr bool operator>(key a, key b) noexcept { return a.raw_ > b.raw_; }
    friend constexpr bool operator<=(key a, key b) noexcept { return a.raw_ <= b.raw_; }
    friend constexpr bool operator>=(key a, key b) noexcept { return a.raw_ >= b.raw_; }

   private:
    slotmap_key raw_ = 0;
  };

 private:
  /*
   * The trampolines of the slotmap and sparse-set walks (each, erase_if):
   * `f(slate::key, U&)`, or `f(slate::key)` when U is void (a membership
   * set, whose walks pass no element). See call_caught.
   */
  template <class F, class U>
  struct keyed_walk {
    F& f;
    pending caught;

    bool call(slotmap_key k, void* row) noexcept {
      if constexpr (std::is_void_v<U>) {
        (void)row;
        return call_caught(caught, f, key(k));
      } else {
        return call_caught(caught, f, key(k), *static_cast<U*>(row));
      }
    }
    static int visit(slotmap_key k, void* row, void* data) noexcept {
      return static_cast<keyed_walk*>(data)->call(k, row) ? 0 : 1;
    }
    static int predicate(slotmap_key k, void* row, void* data) noexcept {
      auto* self = static_cast<keyed_walk*>(data);
      if (self->caught.failed()) {
        return 0;  // f threw: keep everything from here on
      }
      return self->call(k, row) && !self->caught.failed() ? 1 : 0;
    }
  };

  /* The trampoline of slotmap_sort / slotmap_sparse_sort over T elements. */
  template <class Compare, class T>
  struct sorter {
    Compare& comp;
    pending caught;

    static int less(const void* a, const void* b, void* data) noexcept {
      auto* self = static_cast<sorter*>(data);
      if (self->caught.failed()) {
        return 0;  // comp threw: finish quickly in any order
      }
      return call_caught(self->caught, self->comp, *static_cast<const T*>(a),
                         *static_cast<const T*>(b)) &&
                     !self->caught.failed()
                 ? 1
                 : 0;
    }
  };

  /*
   * The C calls of the keyed containers by the struct they take: the
   * slotmap's and the sparse set's have the same shapes under their own
   * names, so that keyed_base serves both. (A partial specialization: GCC
   * refuses an explicit one inside a class.)
   */
  template <class Raw, class = void>
  struct c_calls;
  template <class V>
  struct c_calls<slotmap_s, V> {
    static void init(slotmap_s* raw, std::uint32_t size) noexcept { (void)::slotmap(raw, size); }
    static constexpr auto release = &slotmap_free;
    static constexpr auto clone = &slotmap_clone;
    static constexpr auto set_allocator = &slotmap_set_allocator;
    static constexpr auto contains = &slotmap_contains;
    static constexpr auto erase = &slotmap_erase;
    static constexpr auto length = &slotmap_length;
    static constexpr auto key_at = &slotmap_key_at;
    static constexpr auto row = &slotmap_row;
    static constexpr auto clear = &slotmap_clear;
    static constexpr auto reserve = &slotmap_reserve;
    static constexpr auto get = &slotmap_get;
    static constexpr auto each = &slotmap_each;
    static constexpr auto erase_if = &slotmap_erase_if;
    static constexpr auto sort = &slotmap_sort;
    static constexpr auto save = &slotmap_save;
    static constexpr auto save_size = &slotmap_save_size;
    static constexpr auto load = &slotmap_load;
  };
  template <class V>
  struct c_calls<slotmap_sparse_s, V> {
    static void init(slotmap_sparse_s* raw, std::uint32_t size) noexcept { (void)slotmap_sparse(raw, size); }
    static constexpr auto release = &slotmap_sparse_free;
    static constexpr auto clone = &slotmap_sparse_clone;
    static constexpr auto set_allocator = &slotmap_sparse_set_allocator;
    static constexpr auto contains = &slotmap_sparse_contains;
    static constexpr auto erase = &slotmap_sparse_erase;
    static constexpr auto length = &slotmap_sparse_length;
    static constexpr auto key_at = &slotmap_sparse_key_at;
    static constexpr auto row = &slotmap_sparse_row;
    static constexpr auto clear = &slotmap_sparse_clear;
    static constexpr auto reserve = &slotmap_sparse_reserve;
    static constexpr auto get = &slotmap_sparse_get;
    static constexpr auto each = &slotmap_sparse_each;
    static constexpr auto erase_if = &slotmap_sparse_erase_if;
    static constexpr auto sort = &slotmap_sparse_sort;
    static constexpr auto save = &slotmap_sparse_save;
    static constexpr auto save_size = &slotmap_sparse_save_size;
    static constexpr auto load = &slotmap_sparse_load;
  };

  /**
   * What slotmap<T>, sparse<T> and sparse<void> share: the RAII owner of
   * one `Raw` (slotmap_s or slotmap_sparse_s) of `Size`-byte elements (0:
   * a membership set), and the calls that do not depend on the element
   * type. `Self` is the derived class (clone and with_allocator return
   * it).
   */
  template <class Self, class Raw, std::uint32_t Size>
  class keyed_base {
    using C = c_calls<Raw>;

   public:
    keyed_base(const keyed_base&) = delete;
    keyed_base& operator=(const keyed_base&) = delete;

    /** Exchanges the contents. Not from inside a walk of either. */
    void swap(Self& other) noexcept {
      keyed_base& with = other;
      Raw tmp = raw_;
      raw_ = with.raw_;
      with.raw_ = tmp;
    }
    /** a.swap(b). */
    friend void swap(Self& a, Self& b) noexcept { a.swap(b); }

    /**
     * An independent copy: the same keys, each with the same element (the
     * dense order may differ), the same limit (a slotmap) and allocator.
     * Throws std::bad_alloc (this container is unchanged either way).
     */
    Self clone() const {
      Self out;
      check(try_clone(out));
      return out;
    }
    /**
     * clone() without exceptions: on SLATE_OK `out` holds the copy (its old
     * rows were freed); on failure `out` is empty. `out` must not be this
     * container (SLATE_ERROR_INVALID).
     */
    status try_clone(Self& out) const noexcept {
      keyed_base& to = out;
      if (&to == this) {
        return status(SLATE_ERROR_INVALID);
      }
      C::release(&to.raw_);
      return status(C::clone(&to.raw_, &raw_));
    }

    /**
     * An empty container that allocates through `allocator` (copied; its
     * context must outlive the container's memory); see
     * slotmap_set_allocator / slotmap_sparse_set_allocator. Clones inherit
     * it. Throws slate::error (SLATE_ERROR_INVALID) for a NULL `allocate`
     * or `release`.
     */
    static Self with_allocator(const slate_allocator_s& allocator) {
      Self s;
      s.set_allocator(allocator);
      return s;
    }
    /**
     * Gives the container its own allocator; only while it holds no memory
     * (a new one). Throws slate::error (SLATE_ERROR_INVALID) otherwise.
     */
    void set_allocator(const slate_allocator_s& allocator) { check(try_set_allocator(&allocator)); }
    /** set_allocator() without exceptions; NULL: the process default again. */
    status try_set_allocator(const slate_allocator_s* allocator) noexcept {
      return status(C::set_allocator(&raw_, allocator));
    }

    /** True when `k` is valid here (for a sparse set: held, exactly this generation). */
    bool contains(key k) const noexcept { return C::contains(&raw_, k.raw()) == 1; }

    /** The dense row of `k`, or std::nullopt. */
    std::optional<std::size_t> row_of(key k) const noexcept {
      std::uint32_t row = 0;
      if (C::row(&raw_, k.raw(), &row) == SLATE_OK) {
        return row;
      }
      return std::nullopt;
    }

    /** The key that owns dense row `row`; the null key when row >= size(). */
    key key_at(std::size_t row) const noexcept {
      if (row >= size()) {
        return key();
      }
      return key(C::key_at(&raw_, static_cast<std::uint32_t>(row)));
    }

    /**
     * Erases `k`'s element (the last row moves into its place). Returns true
     * when `k` was there, false when stale, null or foreign (nothing
     * changes). Never throws.
     */
    bool erase(key k) {
      int rc = C::erase(&raw_, k.raw());
      if (rc == SLATE_ERROR_NOT_FOUND) {
        return false;
      }
      check(rc);
      return true;
    }

    /** The number of elements (dense rows). */
    std::size_t size() const noexcept { return C::length(&raw_); }
    /** True when size() is 0. */
    bool empty() const noexcept { return C::length(&raw_) == 0; }

    /**
     * Erases every element; every old key is gone (a slotmap's keys become
     * stale). Keeps the capacity. Throws slate::error (INVALID) only from
     * inside the container's own walk.
     */
    void clear() { check(C::clear(&raw_)); }

    /**
     * Makes room so that `n` elements fit without allocating rows (a
     * slotmap: `n` in all; a sparse set: `n` more, though its index may
     * still allocate a page for a slot index it has not seen). Throws
     * std::bad_alloc, or slate::error (SLATE_ERROR_FULL beyond a slotmap's
     * limit() or 2^32 - 1); unchanged then.
     */
    void reserve(std::size_t n) { check(try_reserve(n)); }
    /** reserve() without exceptions. */
    status try_reserve(std::size_t n) noexcept {
      if (n > std::numeric_limits<std::uint32_t>::max()) {
        return status(SLATE_ERROR_FULL);
      }
      return status(C::reserve(&raw_, static_cast<std::uint32_t>(n)));
    }

    // ---- snapshots (SPEC §6c) -------------------------------------------

    /**
     * Writes the snapshot through `write(const void* bytes, std::size_t
     * length)`, in order, in pieces of at least one byte (valid during that
     * call only; a piece may point straight into the rows). `write` returns
     * void (go on), or int: 0 to go on, non-zero to stop the save, which
     * then returns that value (what was written is then no snapshot).
     *
     * A slotmap's snapshot holds its rows in dense order, every slot's
     * generation, the free list and every retired slot, so that after a
     * load every key means what it meant here: live keys find the same
     * rows, stale keys stay stale, the next inserts issue the keys this
     * slotmap would issue. A set's holds its keys and rows in dense order.
     * The rows' bytes are saved as they are (as with memcpy); the
     * allocator, the capacity and a slotmap's limit are not saved. Only
     * reads; allocates nothing.
     *
     * Returns SLATE_OK, `write`'s non-zero return, or SLATE_ERROR_INVALID
     * when `write` changed this container (SPEC §3c). An exception from
     * `write` stops the save and is rethrown once the C call has returned.
     */
    template <class W, std::enable_if_t<is_writer_v<W>, int> = 0>
    status save(W&& write) const {
      return save_through(write, [this](slate_write_f f, void* context) noexcept {
        return C::save(&raw_, f, context);
      });
    }

    /**
     * Appends the snapshot to `out` (several snapshots, such as a slotmap's
     * and its sets', may share one buffer: slate_snapshot_info walks them),
     * growing it once. Returns SLATE_OK, or SLATE_ERROR_ALLOC or
     * SLATE_ERROR_FULL when `out` cannot grow that much; `out` then holds
     * what it held (its capacity may have grown).
     */
    status save(std::vector<unsigned char>& out) const noexcept {
      return append_snapshot(out, C::save_size(&raw_), [this](slate_write_f f, void* context) noexcept {
        return C::save(&raw_, f, context);
      });
    }

    /**
     * The snapshot in a new vector. Throws std::bad_alloc (or slate::error
     * with SLATE_ERROR_FULL for a snapshot no vector can hold). Without
     * exceptions use save(out).
     */
    std::vector<unsigned char> save() const {
      std::vector<unsigned char> out;
      check(save(out));
      return out;
    }

    /** The exact number of bytes save() writes. O(1). */
    std::uint64_t save_size() const noexcept { return C::save_size(&raw_); }

    /**
     * Loads a snapshot from exactly `length` bytes (any alignment; read
     * during the call only) into this container. The destination must be
     * unused: a slotmap that has never issued a key (new, moved from or
     * assigned a new one; limit(), reserve() and an allocator allowed, but
     * not after an insert, even one erased or cleared since, because the
     * load takes the snapshot's key history), a set that holds no memory
     * (new, moved from or assigned a new one); else SLATE_ERROR_INVALID.
     * The container keeps its allocator (and a slotmap its limit).
     *
     * The snapshot must have this container's layout, which the load
     * checks: for slotmap<T>, a slotmap of one column of sizeof(T) bytes;
     * for sparse<T>, a set of one column of sizeof(T) bytes; for
     * sparse<void>, a membership set. Any other layout (another size,
     * several columns, a membership set for a sparse<T>) is
     * SLATE_ERROR_UNSUPPORTED. Only the size is checked: the rows' bytes
     * are taken as they are, so T must be the type that was saved, with
     * the same representation (slate_snapshot_info's `notes` tell the
     * writer's byte order and pointer width).
     *
     * Returns SLATE_OK, or (this container unchanged, nothing leaked)
     * SLATE_ERROR_INVALID (the destination, or null `bytes` with a non-zero
     * length), SLATE_ERROR_CORRUPT (not a valid snapshot: truncated,
     * damaged), SLATE_ERROR_UNSUPPORTED (a newer format, another kind of
     * snapshot, another layout), SLATE_ERROR_FULL (more rows than a
     * slotmap's limit()) or SLATE_ERROR_ALLOC. Every byte is checked (SPEC
     * §6c): any input either loads into a valid container or is refused.
     * Never throws.
     */
    status load(const void* bytes, std::size_t length) noexcept {
      return status(C::load(&raw_, bytes, length));
    }

    /**
     * The C struct this object owns, for the C API. Do not free or
     * re-initialize it through this pointer.
     */
    Raw* native() noexcept { return &raw_; }
    /** native(), for read-only C calls. */
    const Raw* native() const noexcept { return &raw_; }

   protected:
    keyed_base() noexcept : raw_() { C::init(&raw_, Size); }
    ~keyed_base() { C::release(&raw_); }
    /* Takes `other`'s rows without copying (pointers into them stay
       valid); `other` becomes valid and empty (a slotmap without a
       limit). Not from inside one of `other`'s callbacks. */
    keyed_base(keyed_base&& other) noexcept : raw_(other.raw_) { C::init(&other.raw_, Size); }
    keyed_base& operator=(keyed_base&& other) noexcept {
      if (this != &other) {
        C::release(&raw_);
        std::memcpy(static_cast<void*>(&raw_), static_cast<const void*>(&other.raw_), sizeof raw_);
        C::init(&other.raw_, Size);
      }
      return *this;
    }

    /* The column-0 element of `k`, or nullptr when `k` is not there. */
    void* find_raw(key k) const noexcept {
      void* p = nullptr;
      if (C::get(&raw_, k.raw(), &p) == SLATE_OK) {
        return p;
      }
      return nullptr;
    }

    /* for_each, erase_if and sort over the C walks: U is the element type
       the callable sees (void: none). */
    template <class U, class F>
    bool for_each_impl(F& f) const {
      keyed_walk<F, U> w{f, {}};
      int rc = C::each(&raw_, &keyed_walk<F, U>::visit, &w);
      w.caught.rethrow();
      if (rc < 0) {
        throw_code(rc);
      }
      return rc == SLATE_OK;
    }
    template <class U, class F>
    std::size_t erase_if_impl(F& f) {
      const std::uint32_t before = C::length(&raw_);
      keyed_walk<F, U> w{f, {}};
      int rc = C::erase_if(&raw_, &keyed_walk<F, U>::predicate, &w);
      w.caught.rethrow();
      check(rc);
      return static_cast<std::size_t>(before - C::length(&raw_));
    }
    template <class U, class Compare>
    status sort_impl(Compare& comp) {
      sorter<Compare, U> s{comp, {}};
      int rc = C::sort(&raw_, &sorter<Compare, U>::less, &s);
      s.caught.rethrow();
      return status(rc);
    }

    Raw raw_;
  };

 public:
  // --------------------------------------------------------------------------
  // slotmap<T>
  // --------------------------------------------------------------------------

  /**
   * A generational arena of T: stable keys, O(1) insert, lookup and erase,
   * and the elements packed without holes (dense rows), so range-for over it
   * streams memory. The RAII owner of a one-column slotmap_s whose elements
   * are sizeof(T) bytes.
   *
   * T must be trivially copyable (elements are moved with memcpy, never
   * constructed or destroyed) and at most 16-byte aligned (the column is
   * 16-byte aligned, the stride is sizeof(T)).
   *
   * Pointer and iterator validity: pointers and references from find(),
   * get_many(), operator[], at(), data(), begin()/end(), and row numbers
   * from row_of(), stay valid until the next insert, erase, erase_if, sort,
   * clear, reserve or the slotmap's destruction (as slotmap_get/
   * slotmap_column in C). A move keeps them valid: they then refer to the
   * destination. Keys stay valid until their element is erased (or the
   * slotmap cleared).
   *
   * Erasing moves the last element into the hole (swap-and-pop), so erase
   * changes the dense order; keys are unaffected. Move-only; copy with
   * clone(). Not thread-safe.
   */
  template <class T>
  class slotmap : public keyed_base<slotmap<T>, slotmap_s, static_cast<std::uint32_t>(sizeof(T))> {
    static_assert(std::is_trivially_copyable_v<T>, "slate::slotmap<T>: T must be trivially copyable");
    static_assert(!std::is_const_v<T> && !std::is_volatile_v<T>,
                  "slate::slotmap<T>: T must not be const or volatile");
    static_assert(alignof(T) <= 16, "slate::slotmap<T>: alignof(T) must be at most 16");
    static_assert(sizeof(T) <= std::numeric_limits<std::uint32_t>::max(),
                  "slate::slotmap<T>: sizeof(T) must fit in 32 bits");
    using base = keyed_base<slotmap<T>, slotmap_s, static_cast<std::uint32_t>(sizeof(T))>;
    using base::raw_;

   public:
    using value_type = T;
    using key_type = slate::key;
    using size_type = std::size_t;
    using reference = T&;
    using const_reference = const T&;
    using pointer = T*;
    using const_pointer = const T*;
    /** Iterators are plain pointers into the dense rows. */
    using iterator = T*;
    using const_iterator = const T*;

    /** An empty slotmap with no limit. Allocates nothing. */
    slotmap() noexcept = default;
    /**
     * Takes `other`'s rows, keys and limit without copying (pointers into
     * them stay valid); `other` becomes a valid empty slotmap without a
     * limit. Not from inside one of `other`'s callbacks.
     */
    slotmap(slotmap&&) noexcept = default;
    /**
     * Frees this slotmap's rows and takes `other`'s; `other` becomes a valid
     * empty slotmap. Self-move does nothing.
     */
    slotmap& operator=(slotmap&&) noexcept = default;
    /** Releases the rows (slotmap_free). */
    ~slotmap() = default;

    /* swap, clone, try_clone, with_allocator, set_allocator, contains,
       row_of, key_at, erase, size, empty, clear, reserve, save,
       save_size, load, native: see keyed_base. */

    // ---- insert -----------------------------------------------------------

    /**
     * Copies `value` in as the last dense row and returns its new key.
     * Throws std::bad_alloc, or slate::error (SLATE_ERROR_FULL at the
     * limit()); the slotmap is unchanged then.
     */
    key insert(const T& value) {
      key out;
      check(try_insert(value, out));
      return out;
    }

    /** insert() without exceptions: on SLATE_OK `out` is the new key. */
    status try_insert(const T& value, key& out) noexcept {
      slotmap_key k = 0;
      int rc = slotmap_insert(&raw_, static_cast<const void*>(std::addressof(value)), &k);
      if (rc == SLATE_OK) {
        out = key(k);
      }
      return status(rc);
    }

    // ---- lookup -----------------------------------------------------------

    /**
     * The element of `k`, or nullptr when `k` is stale, null or foreign.
     * Never throws, allocates nothing; valid as described for the class.
     */
    T* find(key k) noexcept { return find_impl(k); }
    /** find(), read-only. */
    const T* find(key k) const noexcept { return find_impl(k); }

    /**
     * Looks up `count` keys at once: `elements[i]` becomes find(keys[i]), the
     * element of `keys[i]` or nullptr for a stale, null or foreign key. The
     * results equal those of `count` calls of find(), duplicates included;
     * on a slotmap larger than the caches the call is faster, because it
     * overlaps the keys' cache misses and starts loading the elements. The
     * keys go to slotmap_get_many 64 at a time (on the stack). The pointers
     * are valid as find()'s. Allocates nothing, never throws; allowed inside
     * callbacks.
     *
     * Returns SLATE_OK (also for count 0, when the pointers may be null), or
     * SLATE_ERROR_INVALID, with nothing written, when `keys` or `elements`
     * is null and count > 0.
     */
    status get_many(const key* keys, std::size_t count, T** elements) noexcept {
      return get_many_impl(keys, count, elements);
    }
    /** get_many(), read-only. */
    status get_many(const key* keys, std::size_t count, const T** elements) const noexcept {
      return get_many_impl(keys, count, elements);
    }

    /**
     * get_many() over a contiguous container of keys (std::vector<slate::key>,
     * std::array, a C array, ...): `elements` has room for std::size(keys).
     */
    template <class Keys, std::enable_if_t<std::is_same_v<range_element_t<Keys>, key>, int> = 0>
    status get_many(const Keys& keys, T** elements) noexcept {
      return get_many_impl(std::data(keys), static_cast<std::size_t>(std::size(keys)), elements);
    }
    /** get_many() over a container, read-only. */
    template <class Keys, std::enable_if_t<std::is_same_v<range_element_t<Keys>, key>, int> = 0>
    status get_many(const Keys& keys, const T** elements) const noexcept {
      return get_many_impl(std::data(keys), static_cast<std::size_t>(std::size(keys)), elements);
    }

    /**
     * The element of `k`. Precondition: contains(k). The header checks it
     * (the lookup validates the key anyway) and calls std::abort() on a stale,
     * null or foreign key; use find() or at() when the key may be stale.
     */
    T& operator[](key k) noexcept { return *checked(find_impl(k)); }
    /** operator[], read-only. */
    const T& operator[](key k) const noexcept { return *checked(find_impl(k)); }

    /** The element of `k`; throws std::out_of_range when `k` is not valid. */
    T& at(key k) { return *at_impl(find_impl(k)); }
    /** at(), read-only. */
    const T& at(key k) const { return *at_impl(find_impl(k)); }

    // ---- erase ------------------------------------------------------------

    /**
     * Erases every element for which `f(slate::key, T&)` returns true, in one
     * pass, as the walk goes (an erased row is refilled by the last one,
     * which `f` sees next, so survivors may change order); returns how many
     * were erased. `f` may modify the element it is given, and
     * may call anything: a change to the slotmap other than erasing its
     * own key stops the walk, and erase_if then throws slate::error
     * (SLATE_ERROR_INVALID). If `f` throws, the elements it approved
     * before are erased, all others kept, and the exception is rethrown.
     */
    template <class F>
    std::size_t erase_if(F&& f) {
      static_assert(std::is_invocable_r_v<bool, F&, key, T&>,
                    "slate::slotmap<T>::erase_if: f must be callable as bool f(slate::key, T&)");
      return this->template erase_if_impl<T>(f);
    }

    /**
     * Calls `f(slate::key, T&)` for every element in dense order; `false`
     * from a bool-returning `f` stops. Returns true when every element was
     * visited. `f` may read the slotmap and modify the element it is given;
     * structural changes throw slate::error. An exception from `f` stops the
     * walk and is rethrown.
     */
    template <class F>
    bool for_each(F&& f) {
      return for_each_checked<T>(f);
    }
    /** for_each(), read-only: `f(slate::key, const T&)`. */
    template <class F>
    bool for_each(F&& f) const {
      return for_each_checked<const T>(f);
    }

    /**
     * Reorders the dense rows so that they ascend by `comp` (a strict weak
     * order over T, `bool comp(const T&, const T&)`, default std::less<>);
     * every key stays valid, pointers do not. Not stable. Needs a uint32_t
     * per row of memory: throws std::bad_alloc (the slotmap unchanged).
     * If `comp` changes the slotmap, the sort stops with the rows in their
     * old order and throws slate::error (SLATE_ERROR_INVALID). If `comp`
     * throws, the sort ends with the rows in an unspecified order (all keys
     * valid) and the exception is rethrown.
     */
    template <class Compare = std::less<>>
    void sort(Compare comp = Compare{}) {
      check(try_sort(std::move(comp)));
    }

    /**
     * sort() that reports library failures (SLATE_ERROR_ALLOC, or INVALID
     * when `comp` changed the slotmap) as a status. An exception from `comp` still propagates.
     */
    template <class Compare = std::less<>>
    status try_sort(Compare comp = Compare{}) {
      static_assert(std::is_invocable_r_v<bool, Compare&, const T&, const T&>,
                    "slate::slotmap<T>::sort: comp must be callable as bool comp(const T&, const T&)");
      return this->template sort_impl<T>(comp);
    }

    // ---- size and capacity --------------------------------------------------

    /**
     * Caps the slotmap at `max_rows` elements: an insert beyond throws
     * slate::error(SLATE_ERROR_FULL). Allocates nothing. Throws slate::error
     * (SLATE_ERROR_INVALID) for a limit below size() or one the library
     * cannot represent (values above 2^32 - 1 are passed as 2^32 - 1, which
     * the current library rejects; its own default is 2^32 - 2).
     */
    void limit(std::size_t max_rows) {
      const std::size_t cap = std::numeric_limits<std::uint32_t>::max();
      check(slotmap_limit(&raw_, static_cast<std::uint32_t>(max_rows < cap ? max_rows : cap)));
    }

    // ---- dense rows -------------------------------------------------------

    /**
     * The dense rows: data()[0 .. size()-1], in an order that insert, erase,
     * erase_if and sort change. nullptr while the slotmap has never
     * allocated. Valid as described for the class.
     */
    T* data() noexcept { return static_cast<T*>(slotmap_column(&raw_, 0)); }
    /** data(), read-only. */
    const T* data() const noexcept { return static_cast<const T*>(slotmap_column(&raw_, 0)); }

    /** First dense row (range-for). */
    iterator begin() noexcept { return data(); }
    /** One past the last dense row. */
    iterator end() noexcept { return data() + this->size(); }
    /** begin(), read-only. */
    const_iterator begin() const noexcept { return data(); }
    /** end(), read-only. */
    const_iterator end() const noexcept { return data() + this->size(); }
    /** begin(), read-only, on any slotmap. */
    const_iterator cbegin() const noexcept { return data(); }
    /** end(), read-only, on any slotmap. */
    const_iterator cend() const noexcept { return data() + this->size(); }

   private:
    template <class U, class F>
    bool for_each_checked(F& f) const {
      static_assert(std::is_invocable_v<F&, key, U&>,
                    "slate::slotmap<T>::for_each: f must be callable as f(slate::key, T&) "
                    "(const T& on a const slotmap)");
      static_assert(void_or_bool_v<std::invoke_result_t<F&, key, U&>>,
                    "slate::slotmap<T>::for_each: f must return void or bool");
      return this->template for_each_impl<U>(f);
    }

    template <class P>
    status get_many_impl(const key* keys, std::size_t count, P* elements) const noexcept {
      if (count > 0 && (keys == nullptr || elements == nullptr)) {
        return status(SLATE_ERROR_INVALID);
      }
      slotmap_key raw[batch_chunk];
      void* found[batch_chunk];
      for (std::size_t start = 0; start < count; start += batch_chunk) {
        const std::size_t n = count - start < batch_chunk ? count - start : batch_chunk;
        for (std::size_t i = 0; i < n; i++) {
          raw[i] = keys[start + i].raw();
        }
        int rc = slotmap_get_many(&raw_, raw, n, found);
        if (rc != SLATE_OK) {
          return status(rc);  // (a null slotmap only, which this never is)
        }
        for (std::size_t i = 0; i < n; i++) {
          elements[start + i] = static_cast<P>(found[i]);
        }
      }
      return status();
    }

    T* find_impl(key k) const noexcept { return static_cast<T*>(this->find_raw(k)); }

    static T* checked(T* p) noexcept {
      if (p == nullptr) {
        std::abort();  // precondition of operator[]: a valid key
      }
      return p;
    }

    static T* at_impl(T* p) {
      if (p == nullptr) {
#if SLATE_HPP_EXCEPTIONS
        throw std::out_of_range("slate::slotmap::at: stale, null or foreign key");
#else
        std::abort();
#endif
      }
      return p;
    }
  };

  // --------------------------------------------------------------------------
  // key_view
  // --------------------------------------------------------------------------

  /**
   * A read-only view of a dense array of keys (what sparse<T>::keys()
   * gives): `size()` keys, `view[i]` the i-th as a slate::key, `data()` the
   * raw slotmap_key array for the C API (slotmap_get_many, another set's
   * slotmap_sparse_get_many). Valid as long as the pointers of the
   * container it came from. Range-for gives slate::key values.
   */
  class key_view {
   public:
    /** An input iterator giving each key by value. */
    class iterator {
     public:
      using iterator_category = std::input_iterator_tag;
      using value_type = slate::key;
      using difference_type = std::ptrdiff_t;
      using pointer = void;
      using reference = slate::key;

      iterator() noexcept = default;
      explicit iterator(const slotmap_key* at) noexcept : at_(at) {}
      slate::key operator*() const noexcept { return slate::key(*at_); }
      iterator& operator++() noexcept {
        ++at_;
        return *this;
      }
      iterator operator++(int) noexcept {
        iterator old(*this);
        ++at_;
        return old;
      }
      friend bool operator==(iterator a, iterator b) noexcept { return a.at_ == b.at_; }
      friend bool operator!=(iterator a, iterator b) noexcept { return a.at_ != b.at_; }

     private:
      const slotmap_key* at_ = nullptr;
    };

    /** No keys. */
    key_view() noexcept = default;
    /** `size` keys at `data` (may be null when size is 0). */
    key_view(const slotmap_key* data, std::size_t size) noexcept : data_(data), size_(size) {}

    /** The raw keys, for the C API; null when empty. */
    const slotmap_key* data() const noexcept { return data_; }
    /** How many keys. */
    std::size_t size() const noexcept { return size_; }
    /** True when there are none. */
    bool empty() const noexcept { return size_ == 0; }
    /** The i-th key (i < size()). */
    slate::key operator[](std::size_t i) const noexcept { return slate::key(data_[i]); }
    /** First key. */
    iterator begin() const noexcept { return iterator(data_); }
    /** One past the last key. */
    iterator end() const noexcept { return iterator(data_ == nullptr ? data_ : data_ + size_); }

   private:
    const slotmap_key* data_ = nullptr;
    std::size_t size_ = 0;
  };

  // --------------------------------------------------------------------------
  // sparse<T> and sparse<void>
  // --------------------------------------------------------------------------

 private:
  /* What may own the keys of a sparse set: a slate::slotmap<U>, a C
     slotmap_s (say, one of several columns), or nullptr (no owner: join's
     keys are not checked). */
  template <class O>
  struct slotmap_kind : std::false_type {};
  template <class U>
  struct slotmap_kind<slotmap<U>> : std::true_type {};
  template <class O, class B = std::remove_cv_t<std::remove_reference_t<O>>>
  static constexpr bool is_owner_v = slotmap_kind<B>::value || std::is_same_v<B, slotmap_s> ||
                                     std::is_same_v<B, std::nullptr_t>;

  template <class U>
  static const slotmap_s* owner_native(const slotmap<U>& owner) noexcept {
    return owner.native();
  }
  static const slotmap_s* owner_native(const slotmap_s& owner) noexcept { return &owner; }
  static const slotmap_s* owner_native(std::nullptr_t) noexcept { return nullptr; }

  /**
   * What sparse<T> and sparse<void> add to keyed_base: the owner-checked
   * set, prune and the dense key array.
   */
  template <class Self, std::uint32_t Size>
  class sparse_base : public keyed_base<Self, slotmap_sparse_s, Size> {
    using base = keyed_base<Self, slotmap_sparse_s, Size>;

   public:
    /**
     * Erases, in one pass, every key that `owner` (a slate::slotmap<U> or
     * a slotmap_s) no longer accepts: the cleanup after entities die.
     * Returns how many were erased. Allocates nothing.
     */
    template <class O, std::enable_if_t<is_owner_v<O> && !std::is_same_v<O, std::nullptr_t>, int> = 0>
    std::size_t prune(const O& owner) {
      const std::uint32_t before = slotmap_sparse_length(&this->raw_);
      check(slotmap_sparse_prune(&this->raw_, owner_native(owner)));
      return static_cast<std::size_t>(before - slotmap_sparse_length(&this->raw_));
    }

    /**
     * The keys in dense order (row i's key at i): for the C API's batch
     * calls, or to walk keys while modifying nothing. Valid as find()'s
     * pointers.
     */
    key_view keys() const noexcept { return key_view(slotmap_sparse_keys(&this->raw_), this->size()); }

   protected:
    sparse_base() noexcept = default;
    sparse_base(sparse_base&&) noexcept = default;
    sparse_base& operator=(sparse_base&&) noexcept = default;
    ~sparse_base() = default;

    /* slotmap_sparse_set, and whether `k` was new to the set (absent
       before: another generation of its slot counts as absent). */
    int set_raw(const slotmap_s* owner, key k, const void* row, bool* inserted) noexcept {
      const bool present = this->contains(k);
      int rc = slotmap_sparse_set(&this->raw_, owner, k.raw(), row);
      if (inserted != nullptr) {
        *inserted = !present;
      }
      return rc;
    }
    bool set_checked(const slotmap_s* owner, key k, const void* row) {
      bool inserted = false;
      check(set_raw(owner, k, row, &inserted));
      return inserted;
    }
  };

 public:
  /**
   * A sparse set of T keyed by slotmap keys: an entity's optional part (a
   * velocity only some entities have) beside the slotmap that issues the
   * entity keys. It maps keys to dense rows of T (range-for streams them)
   * through a paged index, so set, find, contains and erase are O(1) and a
   * set of few keys stays small. The RAII owner of a slotmap_sparse_s.
   *
   *     slate::slotmap<body> world;
   *     slate::sparse<velocity> vel;
   *     slate::key k = world.insert({...});
   *     vel.set(world, k, {1, 0});           // checked: k must be alive in world
   *     if (velocity* v = vel.find(k)) v->dx *= 2;
   *     for (auto [key, v] : vel) ...;        // (slate::key, velocity&) pairs
   *     world.erase(k);
   *     vel.prune(world);                     // drops every dead entity's row
   *
   * Keys are full generational keys: a key whose slot the owner reissued
   * never finds the old entity's row. A set holds one key per slot index:
   * setting a key replaces any other generation of its slot.
   *
   * T must be trivially copyable, not const, at most 16-byte aligned (as
   * for slotmap<T>). Pointers and references from find(), data(), the
   * iterators and keys() stay valid until the next call that sets a new
   * key, erases, prunes, sorts, reserves, clears or destroys the set
   * (overwriting a present key's element moves nothing); a move keeps them.
   * Move-only; copy with clone(). Not thread-safe.
   *
   * The second template parameter is an implementation detail (it selects
   * sparse<void>, the membership set); leave it out.
   */
  template <class T, bool Membership = std::is_void_v<T>>
  class sparse : public sparse_base<sparse<T>, static_cast<std::uint32_t>(sizeof(T))> {
    static_assert(std::is_trivially_copyable_v<T>, "slate::sparse<T>: T must be trivially copyable");
    static_assert(!std::is_const_v<T> && !std::is_volatile_v<T>,
                  "slate::sparse<T>: T must not be const or volatile");
    static_assert(alignof(T) <= 16, "slate::sparse<T>: alignof(T) must be at most 16");
    static_assert(sizeof(T) <= std::numeric_limits<std::uint32_t>::max(),
                  "slate::sparse<T>: sizeof(T) must fit in 32 bits");
    using base = sparse_base<sparse<T>, static_cast<std::uint32_t>(sizeof(T))>;
    using base::raw_;

   public:
    using value_type = T;
    using key_type = slate::key;
    using size_type = std::size_t;

    /** What range-for gives: a key and a reference to its element. */
    template <class U>
    struct basic_entry {
      slate::key key; /**< the entity's key */
      U& value;       /**< its element in this set */
    };
    using entry = basic_entry<T>;
    using const_entry = basic_entry<const T>;

    /** An input iterator over the dense rows, giving (key, element) pairs. */
    template <class U>
    class basic_iterator {
     public:
      using iterator_category = std::input_iterator_tag;
      using value_type = basic_entry<U>;
      using difference_type = std::ptrdiff_t;
      using pointer = void;
      using reference = basic_entry<U>;

      basic_iterator() noexcept = default;
      basic_iterator(const slotmap_key* keys, U* elements, std::size_t row) noexcept
          : keys_(keys), elements_(elements), row_(row) {}
      reference operator*() const noexcept { return {slate::key(keys_[row_]), elements_[row_]}; }
      basic_iterator& operator++() noexcept {
        ++row_;
        return *this;
      }
      basic_iterator operator++(int) noexcept {
        basic_iterator old(*this);
        ++row_;
        return old;
      }
      friend bool operator==(const basic_iterator& a, const basic_iterator& b) noexcept {
        return a.row_ == b.row_ && a.keys_ == b.keys_;
      }
      friend bool operator!=(const basic_iterator& a, const basic_iterator& b) noexcept {
        return !(a == b);
      }

     private:
      const slotmap_key* keys_ = nullptr;
      U* elements_ = nullptr;
      std::size_t row_ = 0;
    };
    using iterator = basic_iterator<T>;
    using const_iterator = basic_iterator<const T>;

    /** An empty set. Allocates nothing. */
    sparse() noexcept = default;
    sparse(sparse&&) noexcept = default;
    /** Frees this set's rows and takes `other`'s; `other` is left empty. */
    sparse& operator=(sparse&&) noexcept = default;
    ~sparse() = default;

    // ---- set ------------------------------------------------------------

    /**
     * Sets `k`'s element to `value`: inserts `k`, or overwrites its element
     * (which moves nothing). Returns true when `k` was new to the set (also
     * when it replaced another generation of its slot), false when an
     * element was overwritten. Any non-null key is taken as given. Throws
     * std::bad_alloc, or slate::error: SLATE_ERROR_INVALID for the null key,
     * SLATE_ERROR_FULL at 2^32 - 2 rows;
     * the set is unchanged then.
     */
    bool set(key k, const T& value) { return this->set_checked(nullptr, k, std::addressof(value)); }

    /**
     * set() checked against the owner of the keys (a slate::slotmap<U> or a
     * C slotmap_s): a key `owner` does not accept (a dead entity's, a
     * forged one) throws slate::error(SLATE_ERROR_NOT_FOUND) and changes
     * nothing, so a stale handle never writes a live entity's row. Use
     * try_set, or test owner.contains(k) first, where that is expected.
     * The null key is SLATE_ERROR_INVALID here too; otherwise as set().
     */
    template <class O, std::enable_if_t<is_owner_v<O> && !std::is_same_v<O, std::nullptr_t>, int> = 0>
    bool set(const O& owner, key k, const T& value) {
      return this->set_checked(owner_native(owner), k, std::addressof(value));
    }

    /** set() without exceptions: SLATE_OK, or the code set() throws (nothing changed). */
    status try_set(key k, const T& value) noexcept {
      return status(this->set_raw(nullptr, k, std::addressof(value), nullptr));
    }
    /** set(owner, ...) without exceptions: SLATE_ERROR_NOT_FOUND for a key `owner` rejects. */
    template <class O, std::enable_if_t<is_owner_v<O> && !std::is_same_v<O, std::nullptr_t>, int> = 0>
    status try_set(const O& owner, key k, const T& value) noexcept {
      return status(this->set_raw(owner_native(owner), k, std::addressof(value), nullptr));
    }

    // ---- lookup ---------------------------------------------------------

    /** The element of `k`, or nullptr when the set does not hold exactly `k`. */
    T* find(key k) noexcept { return find_impl(k); }
    /** find(), read-only. */
    const T* find(key k) const noexcept { return find_impl(k); }

    // ---- walks ----------------------------------------------------------

    /**
     * Calls `f(slate::key, T&)` for every row in dense order; `false` from a
     * bool-returning `f` stops. Returns true when every row was visited.
     * `f` may erase the key it was given (from this set or any other: the
     * walk then visits the row that moved into its place), modify its
     * element, and modify other containers (the owner too); any other
     * change to this set throws slate::error (SLATE_ERROR_INVALID). An
     * exception from `f` stops the walk and is rethrown.
     */
    template <class F>
    bool for_each(F&& f) {
      static_assert(std::is_invocable_v<F&, key, T&>,
                    "slate::sparse<T>::for_each: f must be callable as f(slate::key, T&)");
      static_assert(void_or_bool_v<std::invoke_result_t<F&, key, T&>>,
                    "slate::sparse<T>::for_each: f must return void or bool");
      return this->template for_each_impl<T>(f);
    }
    /** for_each(), read-only: `f(slate::key, const T&)`. */
    template <class F>
    bool for_each(F&& f) const {
      static_assert(std::is_invocable_v<F&, key, const T&>,
                    "slate::sparse<T>::for_each: f must be callable as f(slate::key, const T&)");
      static_assert(void_or_bool_v<std::invoke_result_t<F&, key, const T&>>,
                    "slate::sparse<T>::for_each: f must return void or bool");
      return this->template for_each_impl<const T>(f);
    }

    /**
     * Erases every row for which `f(slate::key, T&)` returns true, in one
     * pass, as the walk goes; returns how many. `f` may call anything: a
     * change to this set other than erasing its own key stops the walk,
     * and erase_if then throws slate::error (SLATE_ERROR_INVALID). If `f`
     * throws, the rows it approved before are erased, all others kept, and
     * the exception is rethrown.
     */
    template <class F>
    std::size_t erase_if(F&& f) {
      static_assert(std::is_invocable_r_v<bool, F&, key, T&>,
                    "slate::sparse<T>::erase_if: f must be callable as bool f(slate::key, T&)");
      return this->template erase_if_impl<T>(f);
    }

    /**
     * Reorders the dense rows so that they ascend by `comp` (a strict weak
     * order, `bool comp(const T&, const T&)`, default std::less<>); every
     * key stays. Not stable. Throws std::bad_alloc (unchanged). If `comp`
     * throws, the rows are left in an unspecified order and the exception
     * is rethrown.
     */
    template <class Compare = std::less<>>
    void sort(Compare comp = Compare{}) {
      check(try_sort(std::move(comp)));
    }
    /** sort() that reports library failures as a status; `comp`'s exceptions still propagate. */
    template <class Compare = std::less<>>
    status try_sort(Compare comp = Compare{}) {
      static_assert(std::is_invocable_r_v<bool, Compare&, const T&, const T&>,
                    "slate::sparse<T>::sort: comp must be callable as bool comp(const T&, const T&)");
      return this->template sort_impl<T>(comp);
    }

    // ---- dense rows -----------------------------------------------------

    /** The elements in dense order (row i's key is keys()[i]); nullptr before the first set. */
    T* data() noexcept { return static_cast<T*>(slotmap_sparse_column(&raw_, 0)); }
    /** data(), read-only. */
    const T* data() const noexcept { return static_cast<const T*>(slotmap_sparse_column(&raw_, 0)); }

    /** First (key, element) pair (range-for). */
    iterator begin() noexcept { return iterator(slotmap_sparse_keys(&raw_), data(), 0); }
    /** One past the last pair. */
    iterator end() noexcept { return iterator(slotmap_sparse_keys(&raw_), data(), this->size()); }
    /** begin(), read-only. */
    const_iterator begin() const noexcept { return const_iterator(slotmap_sparse_keys(&raw_), data(), 0); }
    /** end(), read-only. */
    const_iterator end() const noexcept {
      return const_iterator(slotmap_sparse_keys(&raw_), data(), this->size());
    }

   private:
    T* find_impl(key k) const noexcept { return static_cast<T*>(this->find_raw(k)); }
  };

  /**
   * slate::sparse<void>: a membership set (a tag such as "hungry" or
   * "selected"): keys only, no elements. set(k) subscribes a key, erase(k)
   * unsubscribes it, contains(k) tests it, all O(1); range-for and keys()
   * give the members in dense order; prune(owner), clone(), allocators and
   * the rules on keys are those of sparse<T>.
   */
  template <class V>
  class sparse<V, true> : public sparse_base<sparse<V, true>, 0> {
    using base = sparse_base<sparse<V, true>, 0>;
    using base::raw_;

   public:
    using value_type = void;
    using key_type = slate::key;
    using size_type = std::size_t;
    using iterator = key_view::iterator;
    using const_iterator = key_view::iterator;

    /** An empty set. Allocates nothing. */
    sparse() noexcept = default;
    sparse(sparse&&) noexcept = default;
    /** Frees this set's rows and takes `other`'s; `other` is left empty. */
    sparse& operator=(sparse&&) noexcept = default;
    ~sparse() = default;

    /**
     * Adds `k`. Returns true when it was new, false when already present.
     * Throws as sparse<T>::set (INVALID for the null key or inside a walk
     * of this set; std::bad_alloc; FULL).
     */
    bool set(key k) { return this->set_checked(nullptr, k, nullptr); }
    /**
     * set() checked against the owner of the keys: throws
     * slate::error(SLATE_ERROR_NOT_FOUND) for a key `owner` does not accept.
     */
    template <class O, std::enable_if_t<is_owner_v<O> && !std::is_same_v<O, std::nullptr_t>, int> = 0>
    bool set(const O& owner, key k) {
      return this->set_checked(owner_native(owner), k, nullptr);
    }
    /** set() without exceptions. */
    status try_set(key k) noexcept { return status(this->set_raw(nullptr, k, nullptr, nullptr)); }
    /** set(owner, k) without exceptions. */
    template <class O, std::enable_if_t<is_owner_v<O> && !std::is_same_v<O, std::nullptr_t>, int> = 0>
    status try_set(const O& owner, key k) noexcept {
      return status(this->set_raw(owner_native(owner), k, nullptr, nullptr));
    }

    /**
     * Calls `f(slate::key)` for every member in dense order (as
     * sparse<T>::for_each: `false` stops; `f` may erase the key it was
     * given; an exception is rethrown).
     */
    template <class F>
    bool for_each(F&& f) const {
      static_assert(std::is_invocable_v<F&, key>,
                    "slate::sparse<void>::for_each: f must be callable as f(slate::key)");
      static_assert(void_or_bool_v<std::invoke_result_t<F&, key>>,
                    "slate::sparse<void>::for_each: f must return void or bool");
      return this->template for_each_impl<void>(f);
    }

    /** Erases every member for which `f(slate::key)` returns true; as sparse<T>::erase_if. */
    template <class F>
    std::size_t erase_if(F&& f) {
      static_assert(std::is_invocable_r_v<bool, F&, key>,
                    "slate::sparse<void>::erase_if: f must be callable as bool f(slate::key)");
      return this->template erase_if_impl<void>(f);
    }

    /** First member (range-for gives slate::key values). */
    iterator begin() const noexcept { return this->keys().begin(); }
    /** One past the last member. */
    iterator end() const noexcept { return this->keys().end(); }
  };

  // --------------------------------------------------------------------------
  // join
  // --------------------------------------------------------------------------

 private:
  template <class S>
  struct sparse_kind : std::false_type {};
  template <class T, bool M>
  struct sparse_kind<sparse<T, M>> : std::true_type {};
  template <class S>
  static constexpr bool is_sparse_v = sparse_kind<std::remove_cv_t<S>>::value;

  /* What a set adds to a join callable's arguments: (E&) for sparse<T>
     (E const T on a const set), nothing for a membership set. */
  template <class S>
  static auto join_arg(void* element) noexcept {
    using V = typename std::remove_cv_t<S>::value_type;
    if constexpr (std::is_void_v<V>) {
      (void)element;
      return std::tuple<>();
    } else {
      using E = std::conditional_t<std::is_const_v<S>, const V, V>;
      return std::tuple<E&>(*static_cast<E*>(element));
    }
  }
  template <class S>
  using join_arg_t = decltype(join_arg<S>(nullptr));

  /* The owner's element type, when the owner is a slate::slotmap<U>. */
  template <class O>
  struct owner_element {
    using type = void;
  };
  template <class U>
  struct owner_element<slotmap<U>> {
    using type = U;
  };
  template <class U>
  struct owner_element<const slotmap<U>> {
    using type = const U;
  };

  /* Is f(key, Args...) well-formed, Args the elements of a std::tuple? */
  template <class F, class Head, class Tuple>
  struct join_invocable;
  template <class F, class... Head, class... Args>
  struct join_invocable<F, std::tuple<Head...>, std::tuple<Args...>> {
    static constexpr bool value = std::is_invocable_v<F&, key, Head..., Args...>;
    using result = std::invoke_result<F&, key, Head..., Args...>;
  };

  template <class F, class Owner, class... Sets>
  struct joiner {
    using args = decltype(std::tuple_cat(std::declval<join_arg_t<Sets>>()...));
    using owner_t = typename owner_element<Owner>::type;
    using owner_head = std::conditional_t<std::is_void_v<owner_t>, std::tuple<>,
                                          std::tuple<std::add_lvalue_reference_t<owner_t>>>;
    static constexpr bool plain = join_invocable<F, std::tuple<>, args>::value;
    static constexpr bool with_owner =
        !plain && !std::is_void_v<owner_t> && join_invocable<F, owner_head, args>::value;

    F& f;
    pending caught;

    template <std::size_t... I>
    bool call(slotmap_key k, void* const* elements, std::index_sequence<I...>) noexcept {
      auto tail = std::tuple_cat(join_arg<Sets>(elements[I])...);
      if constexpr (with_owner) {
        auto all = std::tuple_cat(owner_head(*static_cast<owner_t*>(elements[sizeof...(I)])), tail);
        return std::apply([&](auto&... a) { return call_caught(caught, f, key(k), a...); }, all);
      } else {
        return std::apply([&](auto&... a) { return call_caught(caught, f, key(k), a...); }, tail);
      }
    }
    static int visit(slotmap_key k, const std::uint32_t* rows, void* const* elements,
                     void* data) noexcept {
      (void)rows;
      auto* self = static_cast<joiner*>(data);
      return self->call(k, elements, std::index_sequence_for<Sets...>{}) ? 0 : 1;
    }
  };

  template <class Owner, class Tuple, std::size_t... I>
  static bool join_tuple(Owner&& owner, Tuple&& t, std::index_sequence<I...>) {
    using F = std::remove_reference_t<std::tuple_element_t<sizeof...(I), std::remove_reference_t<Tuple>>>;
    using J = joiner<F, std::remove_reference_t<Owner>, std::remove_reference_t<std::tuple_element_t<I, std::remove_reference_t<Tuple>>>...>;
    static_assert((is_sparse_v<std::remove_reference_t<std::tuple_element_t<I, std::remove_reference_t<Tuple>>>> && ...),
                  "slate::join: the arguments between the owner and the callable must be slate::sparse sets");
    static_assert(J::plain || J::with_owner,
                  "slate::join: f must be callable as f(slate::key, E&...), E the element type of each "
                  "sparse<E> in order (membership sets add none), or f(slate::key, U&, E&...) with the "
                  "owner slotmap<U>'s element");
    F& f = std::get<sizeof...(I)>(t);
    slotmap_sparse_s* sets[] = {const_cast<slotmap_sparse_s*>(std::get<I>(t).native())...};
    J j{f, {}};
    int rc = slotmap_join(owner_native(owner), sets, static_cast<std::uint32_t>(sizeof...(I)),
                          &J::visit, &j);
    j.caught.rethrow();
    if (rc < 0) {
      throw_code(rc);
    }
    return rc == SLATE_OK;
  }

 public:
  /**
   * Visits every key present in all the given sets, each once, calling
   * `f(slate::key, E&...)` with a reference to its element in each
   * sparse<E> set, in the order the sets are given. A sparse<void> set
   * (membership) filters without adding an argument:
   *
   *     slate::join(world, pos, vel, hungry,
   *                 [](slate::key k, position& p, velocity& v) { ... });
   *
   * The first argument may be the owner of the keys (a slate::slotmap<U>,
   * a C slotmap_s, or nullptr for none); then only keys the owner accepts
   * at the moment they are reached are visited, and with a slotmap<U>
   * owner `f` may instead take the owner's element after the key:
   * `f(slate::key, U&, E&...)`. Without an owner argument the sets come
   * first: `slate::join(pos, vel, f)`. The last argument is the callable.
   *
   * The join walks the smallest set in dense order and looks the key up in
   * the others, so its cost follows the smallest set. `f` may erase the key
   * it was given from any of the sets (a system dropping a tag it handled),
   * and modify the owner and other containers; any other change to one of
   * the sets is carried out, stops the join, and makes it throw
   * slate::error (SLATE_ERROR_INVALID). A bool-returning `f` stops the join
   * by returning false. Returns true when the join ran to its end. An
   * exception from `f` stops the join and is rethrown. Throws slate::error
   * (SLATE_ERROR_FULL) for more than 32 sets.
   */
  template <class First, class... Rest>
  static bool join(First&& first, Rest&&... rest) {
    if constexpr (is_owner_v<First>) {
      static_assert(sizeof...(Rest) >= 2, "slate::join(owner, sets..., f): at least one set and a callable");
      return join_tuple(first, std::forward_as_tuple(rest...),
                        std::make_index_sequence<sizeof...(Rest) - 1>{});
    } else {
      static_assert(sizeof...(Rest) >= 1, "slate::join(sets..., f): at least one set and a callable");
      return join_tuple(nullptr, std::forward_as_tuple(first, rest...),
                        std::make_index_sequence<sizeof...(Rest)>{});
    }
  }
};

/** Hash of a slotmap key, for std::unordered_set<slate::key> and friends. */
namespace std {
template <>
struct hash<slate::key> {
  std::size_t operator()(slate::key k) const noexcept {
    std::uint64_t x = k.raw();
    // splitmix64's finalizer: index and generation both reach every bit.
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return static_cast<std::size_t>(x);
  }
};
}  // namespace std

#endif  // C++17
#endif /* SLATE_HPP */
