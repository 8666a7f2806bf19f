// cpp_maps.cpp -- the C++ peers of the map benchmark, each with its default
// hasher: absl::flat_hash_map (Debian libabsl-dev, absl::Hash),
// boost::unordered_flat_map (libboost1.81-dev, boost::hash) and
// std::unordered_map (std::hash).
//
//   --impl absl | absl-prefetch | boost | std
//
//   absl-prefetch: the same absl::flat_hash_map, the peer of slate's batch
//   lookups (slate_get_many_*): its hit and miss phases call
//   m.prefetch(keys[i + D]) before each m.find(keys[i]) (after prefetching
//   the first D keys), so D lookups' cache misses are in flight at once.
//   prefetch() hashes its key and prefetches the control bytes and slots of
//   the key's first probe group (absl 20220623's raw_hash_set), so each key
//   is hashed twice. Its other phases are absl's. D is
//   ABSL_PREFETCH_DISTANCE (below), fixed at compile time.
//   u64 keys: Map<uint64_t, uint64_t>; string keys: Map<std::string,
//   uint64_t> (the map owns a std::string copy of each key: 20-24 bytes is
//   past libstdc++'s 15-byte small-string buffer, so one allocation per key,
//   as slate's copy of a key longer than 12 bytes). Lookups pass a
//   const std::string& from vectors built before the timed loops.
//   insert: try_emplace; hit/miss: find; delete: erase(key); iterate: a
//   range-for summing the values; upsert: ++m.try_emplace(k, 0).first->second
//   (absl, boost: one probe; the string key is copied only when new) and
//   ++m[k] (std::unordered_map, the same one lookup). absl-prefetch has no
//   upsert phase (it would be absl's).
//
//   Path keys (--keys path) take the string code: Map<std::string, uint64_t>.
//
// The workload, the modes and the output are described in common.h.
#include "common.h"

#include <string>
#include <unordered_map>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <boost/unordered/unordered_flat_map.hpp>

// The prefetch distance of absl-prefetch, in keys: 16, chosen by
// measurement. cpp_maps --impl absl-prefetch built with
// -DABSL_PREFETCH_DISTANCE=4, 8, 16, 32 and --impl absl, 3 interleaved
// rounds, --ops 4000000, process CPU time; ns per lookup, medians (a
// shared 2-core Zen 4 VM with another job compiling: +-10% noise):
//
//   keys phase  N           absl    D=4    D=8   D=16   D=32
//   u64  hit    100,000      6.1    6.6    6.5    6.6    6.7
//   u64  hit    2,000,000   31.1   30.2   27.8   24.2   26.4
//   u64  miss   100,000      6.1    7.2    7.2    7.0    7.2
//   u64  miss   2,000,000   12.7   16.8   15.4   16.7   16.3
//   str  hit    100,000     44.2   50.4   49.7   50.3   52.5
//   str  hit    2,000,000    200    186    185    191    198
//   str  miss   100,000     19.5   27.1   25.1   26.5   26.9
//   str  miss   2,000,000   39.3   50.9   53.0   50.1   53.0
//
// 16 is the best distance where prefetching pays, u64 hits out of cache
// (22% below absl at 2M); elsewhere the distances are within the noise of
// each other (D=4/8 are 3% better on string hits at 2M). Prefetching does
// not pay for misses (a miss reads only control bytes, prefetch() also
// fetches the slots) nor in cache (it hashes each key a second time: +6-8 ns
// a string key). Override with -DABSL_PREFETCH_DISTANCE=D to measure
// another distance.
#ifndef ABSL_PREFETCH_DISTANCE
#define ABSL_PREFETCH_DISTANCE 16
#endif

namespace {

const char *prog = "cpp_maps";
constexpr uint32_t kPrefetchDistance = ABSL_PREFETCH_DISTANCE;
static_assert(kPrefetchDistance > 0, "ABSL_PREFETCH_DISTANCE must be positive");

// Runs look(i) for i = 0 .. n-1 with m.prefetch(key(i + D)) issued D keys
// ahead of each look(i): the first D keys prefetched up front, then one
// prefetch per lookup, none past the last key.
template <class Map, class Key, class Look>
inline void prefetched(const Map &m, uint32_t n, Key key, Look look) {
    const uint32_t d = kPrefetchDistance;
    const uint32_t head = n < d ? n : d;
    const uint32_t ahead = n > d ? n - d : 0;
    for (uint32_t i = 0; i < head; i++) m.prefetch(key(i));
    uint32_t i = 0;
    for (; i < ahead; i++) {
        m.prefetch(key(i + d));
        look(i);
    }
    for (; i < n; i++) look(i);
}

// Get-or-insert, then add one to the count: one lookup. try_emplace for the
// open-addressing maps (absl, boost), operator[] for std::unordered_map
// (the idiom there; the same single lookup).
template <class Map, class Key>
inline void count_key(Map &m, const Key &k) {
    ++m.try_emplace(k, 0).first->second;
}
template <class Key, class Hash, class Eq, class Alloc>
inline void count_key(std::unordered_map<Key, uint64_t, Hash, Eq, Alloc> &m, const Key &k) {
    ++m[k];
}

// The workload's string keys as std::strings, built by prepare() before
// anything is timed (and before the memory baseline).
struct StrKeys {
    std::vector<std::string> keys, hit, del, miss, ups;
};
StrKeys g_str;

void prepare_strings(const workload *w) {
    auto fill = [&](std::vector<std::string> &v, const char *buf, const uint8_t *len) {
        std::vector<std::string>().swap(v);
        if (!buf) return;
        v.reserve(w->n);
        for (uint32_t i = 0; i < w->n; i++) v.emplace_back(buf + w->stride * i, len[i]);
    };
    fill(g_str.keys, w->s_keys, w->l_keys);
    fill(g_str.hit, w->s_hit, w->l_hit);
    fill(g_str.del, w->s_del, w->l_del);
    fill(g_str.miss, w->s_miss, w->l_miss);
    // the upsert stream: 2N keys
    std::vector<std::string>().swap(g_str.ups);
    if (w->s_ups) {
        g_str.ups.reserve(2 * size_t(w->n));
        for (size_t j = 0; j < 2 * size_t(w->n); j++) g_str.ups.emplace_back(w->s_ups + w->stride * j, w->l_ups[j]);
    }
}

const StrKeys &str_keys(const workload *) { return g_str; }

template <class Map>
struct U64 {
    static void *create() { return new Map(); }
    static void destroy(void *m) { delete static_cast<Map *>(m); }
    static uint64_t length(void *m) { return static_cast<Map *>(m)->size(); }

    static uint64_t insert(void *mp, const workload *w) {
        Map &m = *static_cast<Map *>(mp);
        for (uint32_t i = 0; i < w->n; i++) m.try_emplace(w->keys[i], uint64_t(i) + 1);
        return m.size();
    }
    static void tail(void *mp, const workload *w, uint32_t *lat) {
        Map &m = *static_cast<Map *>(mp);
        for (uint32_t i = 0; i < w->n; i++) {
            uint64_t t0 = now_ns();
            m.try_emplace(w->keys[i], uint64_t(i) + 1);
            uint64_t t1 = now_ns();
            lat[i] = uint32_t(t1 - t0);
        }
    }
    static uint64_t hit(void *mp, const workload *w) {
        const Map &m = *static_cast<Map *>(mp);
        uint64_t sum = 0, found = 0;
        for (uint32_t i = 0; i < w->n; i++) {
            auto it = m.find(w->hit[i]);
            if (it != m.end()) {
                sum += w->hit[i] ^ it->second;
                found++;
            }
        }
        if (found != w->n) die(prog, "hit: key not found", w->n);
        return sum;
    }
    static uint64_t miss(void *mp, const workload *w) {
        const Map &m = *static_cast<Map *>(mp);
        uint64_t missing = 0;
        for (uint32_t i = 0; i < w->n; i++) missing += m.find(w->miss[i]) == m.end();
        return missing;
    }
    static uint64_t iterate(void *mp, const workload *w) {
        const Map &m = *static_cast<Map *>(mp);
        uint64_t sum = 0, count = 0;
        for (const auto &kv : m) {
            sum += kv.second;
            count++;
        }
        if (count != w->n) die(prog, "iterate: wrong count", w->n);
        return sum;
    }
    static uint64_t del(void *mp, const workload *w) {
        Map &m = *static_cast<Map *>(mp);
        uint64_t deleted = 0;
        for (uint32_t i = 0; i < w->n; i++) deleted += m.erase(w->del[i]);
        return deleted;
    }
    static uint64_t upsert(void *mp, const workload *w) {
        Map &m = *static_cast<Map *>(mp);
        for (size_t j = 0; j < 2 * size_t(w->n); j++) count_key(m, w->ups[j]);
        return m.size();
    }
    static impl_ops ops() { return {create, destroy, insert, hit, miss, iterate, del, upsert, length, tail, nullptr}; }
};

template <class Map>
struct Str {
    static void *create() { return new Map(); }
    static void destroy(void *m) { delete static_cast<Map *>(m); }
    static uint64_t length(void *m) { return static_cast<Map *>(m)->size(); }

    static uint64_t insert(void *mp, const workload *w) {
        Map &m = *static_cast<Map *>(mp);
        const auto &k = str_keys(w).keys;
        for (uint32_t i = 0; i < w->n; i++) m.try_emplace(k[i], uint64_t(i) + 1);
        return m.size();
    }
    static void tail(void *mp, const workload *w, uint32_t *lat) {
        Map &m = *static_cast<Map *>(mp);
        const auto &k = str_keys(w).keys;
        for (uint32_t i = 0; i < w->n; i++) {
            uint64_t t0 = now_ns();
            m.try_emplace(k[i], uint64_t(i) + 1);
            uint64_t t1 = now_ns();
            lat[i] = uint32_t(t1 - t0);
        }
    }
    static uint64_t hit(void *mp, const workload *w) {
        const Map &m = *static_cast<Map *>(mp);
        const auto &k = str_keys(w).hit;
        uint64_t sum = 0, found = 0;
        for (uint32_t i = 0; i < w->n; i++) {
            auto it = m.find(k[i]);
            if (it != m.end()) {
                sum += w->hit[i] ^ it->second;
                found++;
            }
        }
        if (found != w->n) die(prog, "hit: key not found", w->n);
        return sum;
    }
    static uint64_t miss(void *mp, const workload *w) {
        const Map &m = *static_cast<Map *>(mp);
        const auto &k = str_keys(w).miss;
        uint64_t missing = 0;
        for (uint32_t i = 0; i < w->n; i++) missing += m.find(k[i]) == m.end();
        return missing;
    }
    static uint64_t iterate(void *mp, const workload *w) { return U64<Map>::iterate(mp, w); }
    static uint64_t del(void *mp, const workload *w) {
        Map &m = *static_cast<Map *>(mp);
        const auto &k = str_keys(w).del;
        uint64_t deleted = 0;
        for (uint32_t i = 0; i < w->n; i++) deleted += m.erase(k[i]);
        return deleted;
    }
    static uint64_t upsert(void *mp, const workload *w) {
        Map &m = *static_cast<Map *>(mp);
        const auto &k = str_keys(w).ups;
        for (size_t j = 0; j < 2 * size_t(w->n); j++) count_key(m, k[j]);
        return m.size();
    }
    static impl_ops ops() { return {create, destroy, insert, hit, miss, iterate, del, upsert, length, tail, prepare_strings}; }
};

// absl-prefetch: the hit and miss phases of U64 / Str with m.prefetch()
// D keys ahead (see the top of this file); the other phases are theirs.
template <class Map>
struct U64Prefetch : U64<Map> {
    using B = U64<Map>;
    static uint64_t hit(void *mp, const workload *w) {
        const Map &m = *static_cast<Map *>(mp);
        const uint64_t *k = w->hit;
        uint64_t sum = 0, found = 0;
        prefetched(m, w->n, [k](uint32_t i) -> const uint64_t & { return k[i]; }, [&](uint32_t i) {
            auto it = m.find(k[i]);
            if (it != m.end()) {
                sum += k[i] ^ it->second;
                found++;
            }
        });
        if (found != w->n) die(prog, "hit: key not found", w->n);
        return sum;
    }
    static uint64_t miss(void *mp, const workload *w) {
        const Map &m = *static_cast<Map *>(mp);
        const uint64_t *k = w->miss;
        uint64_t missing = 0;
        prefetched(m, w->n, [k](uint32_t i) -> const uint64_t & { return k[i]; },
                   [&](uint32_t i) { missing += m.find(k[i]) == m.end(); });
        return missing;
    }
    static impl_ops ops() {
        return {B::create, B::destroy, B::insert, hit, miss, B::iterate, B::del, nullptr, B::length, B::tail, nullptr};
    }
};

template <class Map>
struct StrPrefetch : Str<Map> {
    using B = Str<Map>;
    static uint64_t hit(void *mp, const workload *w) {
        const Map &m = *static_cast<Map *>(mp);
        const std::string *k = str_keys(w).hit.data();
        uint64_t sum = 0, found = 0;
        prefetched(m, w->n, [k](uint32_t i) -> const std::string & { return k[i]; }, [&](uint32_t i) {
            auto it = m.find(k[i]);
            if (it != m.end()) {
                sum += w->hit[i] ^ it->second;
                found++;
            }
        });
        if (found != w->n) die(prog, "hit: key not found", w->n);
        return sum;
    }
    static uint64_t miss(void *mp, const workload *w) {
        const Map &m = *static_cast<Map *>(mp);
        const std::string *k = str_keys(w).miss.data();
        uint64_t missing = 0;
        prefetched(m, w->n, [k](uint32_t i) -> const std::string & { return k[i]; },
                   [&](uint32_t i) { missing += m.find(k[i]) == m.end(); });
        return missing;
    }
    static impl_ops ops() {
        return {B::create, B::destroy, B::insert, hit, miss, B::iterate, B::del, nullptr, B::length, B::tail,
                prepare_strings};
    }
};

}  // namespace

int main(int argc, char **argv) {
    options o;
    parse_options(&o, argc, argv, "absl");
    std::string impl = o.impl;
    impl_ops ops;
    if (impl == "absl")
        ops = o.strings ? Str<absl::flat_hash_map<std::string, uint64_t>>::ops()
                        : U64<absl::flat_hash_map<uint64_t, uint64_t>>::ops();
    else if (impl == "absl-prefetch")
        ops = o.strings ? StrPrefetch<absl::flat_hash_map<std::string, uint64_t>>::ops()
                        : U64Prefetch<absl::flat_hash_map<uint64_t, uint64_t>>::ops();
    else if (impl == "boost")
        ops = o.strings ? Str<boost::unordered_flat_map<std::string, uint64_t>>::ops()
                        : U64<boost::unordered_flat_map<uint64_t, uint64_t>>::ops();
    else if (impl == "std")
        ops = o.strings ? Str<std::unordered_map<std::string, uint64_t>>::ops()
                        : U64<std::unordered_map<uint64_t, uint64_t>>::ops();
    else {
        std::fprintf(stderr, "%s: unknown --impl %s (absl, absl-prefetch, boost, std)\n", prog, o.impl);
        return 2;
    }
    return run_program(&o, &ops);
}
