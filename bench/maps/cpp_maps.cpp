// cpp_maps.cpp -- the C++ peers of the map benchmark, each with its default
// hasher: absl::flat_hash_map (Debian libabsl-dev, absl::Hash),
// boost::unordered_flat_map (libboost1.81-dev, boost::hash) and
// std::unordered_map (std::hash).
//
//   --impl absl | boost | std
//   u64 keys: Map<uint64_t, uint64_t>; string keys: Map<std::string,
//   uint64_t> (the map owns a std::string copy of each key: 20-24 bytes is
//   past libstdc++'s 15-byte small-string buffer, so one allocation per key,
//   as slate's copy of a key longer than 12 bytes). Lookups pass a
//   const std::string& from vectors built before the timed loops.
//   insert: try_emplace; hit/miss: find; delete: erase(key); iterate: a
//   range-for summing the values.
//
// The workload, the modes and the output are described in common.h.
#include "common.h"

#include <string>
#include <unordered_map>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <boost/unordered/unordered_flat_map.hpp>

namespace {

const char *prog = "cpp_maps";

// The workload's string keys as std::strings, built by prepare() before
// anything is timed (and before the memory baseline).
struct StrKeys {
    std::vector<std::string> keys, hit, del, miss;
};
StrKeys g_str;

void prepare_strings(const workload *w) {
    auto fill = [&](std::vector<std::string> &v, const char *buf, const uint8_t *len) {
        std::vector<std::string>().swap(v);
        if (!buf) return;
        v.reserve(w->n);
        for (uint32_t i = 0; i < w->n; i++) v.emplace_back(buf + (size_t)KEY_STRIDE * i, len[i]);
    };
    fill(g_str.keys, w->s_keys, w->l_keys);
    fill(g_str.hit, w->s_hit, w->l_hit);
    fill(g_str.del, w->s_del, w->l_del);
    fill(g_str.miss, w->s_miss, w->l_miss);
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
    static impl_ops ops() { return {create, destroy, insert, hit, miss, iterate, del, length, tail, nullptr}; }
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
    static impl_ops ops() { return {create, destroy, insert, hit, miss, iterate, del, length, tail, prepare_strings}; }
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
    else if (impl == "boost")
        ops = o.strings ? Str<boost::unordered_flat_map<std::string, uint64_t>>::ops()
                        : U64<boost::unordered_flat_map<uint64_t, uint64_t>>::ops();
    else if (impl == "std")
        ops = o.strings ? Str<std::unordered_map<std::string, uint64_t>>::ops()
                        : U64<std::unordered_map<uint64_t, uint64_t>>::ops();
    else {
        std::fprintf(stderr, "%s: unknown --impl %s (absl, boost, std)\n", prog, o.impl);
        return 2;
    }
    return run_program(&o, &ops);
}
