// seed_slotmap.cpp -- a plain C++ dense slotmap, written the classic way,
// and the same benchmark as slotmap_slate.c (see there for the phases, the
// data, the shuffles and the checks).
//
// The slotmap: fixed arrays sized at construction (no growth), a sparse
// index slot -> (dense index, generation), a reverse array dense -> slot,
// swap-and-pop erase, one global generation counter incremented on every
// insert and every erase, and a free list (a stack) of slots. A key is
// generation << 32 | slot; generation 0 is never handed out, so key 0 (and
// any key to a never-used slot) is invalid.
//
// Output: seed <phase> <N> <ns_per_op> <checksum>
// Usage:  seed_slotmap [--reps K] [N ...]
// Build:  g++ -std=c++17 -O2 -Wall -Wextra bench/slotmap/seed_slotmap.cpp -o seed_slotmap
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

namespace {

struct Elem {
    uint64_t id;
    float x;
    float y;
};
static_assert(sizeof(Elem) == 16, "16-byte element");

using Key = uint64_t;

template <class T>
class DenseSlotMap {
    struct Slot {
        uint32_t dense;
        uint32_t gen;
    };

public:
    explicit DenseSlotMap(uint32_t capacity)
        : data_(new T[capacity]),
          reverse_(new uint32_t[capacity]),
          sparse_(new Slot[capacity]()),
          free_(new uint32_t[capacity]),
          free_top_(capacity),
          cap_(capacity) {
        // Slot 0 on top of the stack: slots are taken in ascending order.
        for (uint32_t i = 0; i < capacity; i++) free_[i] = capacity - 1 - i;
    }

    // 0 when full.
    Key insert(const T& value) {
        if (size_ == cap_ || free_top_ == 0) return 0;
        uint32_t slot = free_[--free_top_];
        uint32_t gen = ++generation_;
        sparse_[slot] = Slot{size_, gen};
        data_[size_] = value;
        reverse_[size_] = slot;
        ++size_;
        return (Key)gen << 32 | slot;
    }

    T* get(Key key) {
        uint32_t slot = (uint32_t)key, gen = (uint32_t)(key >> 32);
        if (slot >= cap_) return nullptr;
        Slot s = sparse_[slot];
        if (s.gen != gen || gen == 0) return nullptr;
        return &data_[s.dense];
    }

    bool erase(Key key) {
        uint32_t slot = (uint32_t)key, gen = (uint32_t)(key >> 32);
        if (slot >= cap_) return false;
        Slot s = sparse_[slot];
        if (s.gen != gen || gen == 0) return false;
        uint32_t last = size_ - 1;
        data_[s.dense] = data_[last];
        uint32_t moved = reverse_[last];
        reverse_[s.dense] = moved;
        sparse_[moved].dense = s.dense;
        sparse_[slot].gen = ++generation_;
        free_[free_top_++] = slot;
        --size_;
        return true;
    }

    uint32_t size() const { return size_; }
    T* data() { return data_.get(); }
    Key key_at(uint32_t dense) const {
        uint32_t slot = reverse_[dense];
        return (Key)sparse_[slot].gen << 32 | slot;
    }

private:
    std::unique_ptr<T[]> data_;
    std::unique_ptr<uint32_t[]> reverse_;
    std::unique_ptr<Slot[]> sparse_;
    std::unique_ptr<uint32_t[]> free_;
    uint32_t free_top_;
    uint32_t size_ = 0;
    uint32_t cap_;
    uint32_t generation_ = 0;
};

constexpr int kPhases = 5;
const char* const kPhaseNames[kPhases] = {"insert", "get", "iterate", "each", "erase"};

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

inline void keep(uint64_t v) { __asm__ volatile("" : : "r"(v) : "memory"); }

uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

void shuffle(std::vector<uint32_t>& perm, uint32_t n, uint64_t seed) {
    uint64_t s = seed;
    perm.resize(n);
    for (uint32_t i = 0; i < n; i++) perm[i] = i;
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)(splitmix64(s) % i);
        std::swap(perm[i - 1], perm[j]);
    }
}

inline uint64_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

inline uint64_t weigh(const Elem& e) { return e.id + bits(e.x); }

// The iterate loop, out of line and 64-byte aligned (as in slotmap_slate.c).
__attribute__((noinline, aligned(64))) uint64_t sum_rows(const Elem* col, uint32_t len) {
    uint64_t sum = 0;
    for (uint32_t i = 0; i < len; i++) sum += weigh(col[i]);
    return sum;
}

uint64_t median(std::vector<uint64_t> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

[[noreturn]] void fail(const char* what, uint32_t n) {
    std::fprintf(stderr, "seed_slotmap: N=%u: %s\n", n, what);
    std::exit(1);
}

void run(uint32_t n, uint32_t reps) {
    std::vector<Key> keys(n), get_keys(n), erase_keys(n);
    std::vector<uint32_t> get_perm, erase_perm;
    shuffle(get_perm, n, 0x5EED0001u ^ n);
    shuffle(erase_perm, n, 0x5EED0002u ^ n);
    uint64_t expect = 0;
    for (uint32_t i = 0; i < n; i++) expect += weigh(Elem{i + 1u, (float)i, (float)(2u * i)});
    std::vector<uint64_t> times[kPhases];
    uint64_t checks[kPhases] = {};

    for (uint32_t r = 0; r < reps; r++) {
        DenseSlotMap<Elem> sm(n);

        uint32_t bad = 0;
        uint64_t t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            keys[i] = sm.insert(Elem{i + 1u, (float)i, (float)(2u * i)});
            bad += keys[i] == 0;
        }
        keep(bad);
        uint64_t t1 = now_ns();
        times[0].push_back(t1 - t0);
        if (bad || sm.size() != n) fail("insert", n);
        checks[0] = sm.size();

        uint64_t key_xor = 0;
        for (uint32_t i = 0; i < n; i++) {
            get_keys[i] = keys[get_perm[i]];
            erase_keys[i] = keys[erase_perm[i]];
            key_xor ^= keys[i];
        }

        uint64_t sum = 0;
        t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) {
            if (const Elem* e = sm.get(get_keys[i]))
                sum += weigh(*e);
            else
                bad++;
        }
        keep(sum + bad);
        t1 = now_ns();
        times[1].push_back(t1 - t0);
        if (bad || sum != expect) fail("get", n);
        checks[1] = sum;

        t0 = now_ns();
        sum = sum_rows(sm.data(), sm.size());
        keep(sum);
        t1 = now_ns();
        times[2].push_back(t1 - t0);
        if (sum != expect) fail("iterate", n);
        checks[2] = sum;

        sum = 0;
        uint64_t kx = 0;
        t0 = now_ns();
        {
            const Elem* col = sm.data();
            uint32_t len = sm.size();
            for (uint32_t i = 0; i < len; i++) {
                sum += weigh(col[i]);
                kx ^= sm.key_at(i);
            }
        }
        keep(sum ^ kx);
        t1 = now_ns();
        times[3].push_back(t1 - t0);
        if (sum != expect || kx != key_xor) fail("each", n);
        checks[3] = sum;

        uint32_t erased = 0;
        t0 = now_ns();
        for (uint32_t i = 0; i < n; i++) erased += sm.erase(erase_keys[i]);
        keep(erased);
        t1 = now_ns();
        times[4].push_back(t1 - t0);
        if (erased != n || sm.size() != 0) fail("erase", n);
        checks[4] = erased;
    }

    for (int p = 0; p < kPhases; p++)
        std::printf("seed %s %u %.3f %llu\n", kPhaseNames[p], n, (double)median(times[p]) / n,
                    (unsigned long long)checks[p]);
    std::fflush(stdout);
}

uint32_t default_reps(uint32_t n) {
    uint32_t r = 4000000u / n;
    return r < 7 ? 7 : r > 301 ? 301 : r;
}

}  // namespace

int main(int argc, char** argv) {
    uint32_t reps = 0;
    std::vector<uint32_t> sizes;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = (uint32_t)std::strtoul(argv[++i], nullptr, 10);
        } else {
            unsigned long v = std::strtoul(argv[i], nullptr, 10);
            if (v == 0 || v > 100000000ul) {
                std::fprintf(stderr, "usage: %s [--reps K] [N ...]\n", argv[0]);
                return 2;
            }
            sizes.push_back((uint32_t)v);
        }
    }
    if (sizes.empty()) sizes = {1000, 100000, 1000000};
    for (uint32_t n : sizes) run(n, reps ? reps : default_reps(n));
    return 0;
}
