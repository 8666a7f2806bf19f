/*
 * keys.h -- the keys of the map benchmark, in C: the generator and the two
 * string forms of a u64 key. common.h (the C and C++ programs) and
 * ../probe.c (the instruction counts) include it; go/main.go and
 * rust/src/main.rs write the same recipe in their languages.
 *
 * u64 keys: the outputs of splitmix64 (state 42 for the keys; see
 * common.h). Each u64 k has two string forms:
 *   str   "key:" + the decimal of k (20-24 bytes);
 *   path  a path-like key of 60-100 bytes that shares its first 5-30 bytes
 *         with many others, as file paths and URLs do: splitmix64 from
 *         state k draws r1, r2, ... and the key is
 *           PATH_PREFIXES[r1 % 8]                 (5-30 bytes)
 *           then PATH_WORDS[r % 16] + "/" for r = r3, r4, ... while the
 *             key is shorter than T = 44 + r2 % 31 (44..74 bytes; a word
 *             and its '/' are 3-11 bytes)
 *           then the 16 lowercase hex digits of k (so distinct u64s make
 *             distinct keys),
 *         e.g. "/var/log/nginx/users/docs/2024/config/config/47526757130f9f52";
 *         44 + 16 = 60 bytes at least, 74 - 1 + 11 + 16 = 100 at most.
 */
#ifndef MAPS_KEYS_H
#define MAPS_KEYS_H

#include <stdint.h>
#include <string.h>

#define KEY_STRIDE 32   /* bytes per "key:" string in a key buffer (with its NUL) */
#define PATH_STRIDE 104 /* bytes per path key in a key buffer (100 and the NUL, rounded up) */

static inline uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* "key:" + decimal of v, NUL-terminated, into out (KEY_STRIDE bytes);
 * returns the length (without the NUL). */
static inline uint32_t format_key(char *out, uint64_t v) {
    char digits[24];
    int d = 0;
    do {
        digits[d++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    memcpy(out, "key:", 4);
    for (int i = 0; i < d; i++) out[4 + i] = digits[d - 1 - i];
    out[4 + d] = '\0';
    return (uint32_t)(4 + d);
}

static const char *const PATH_PREFIXES[8] = {
    "/tmp/", "/home/alice/", "/usr/share/doc/", "/var/log/nginx/", "s3://assets-eu-west-1/",
    "file:///opt/app/releases/", "https://example.org/api/v2/", "https://cdn.example.net/media/",
};
static const char *const PATH_WORDS[16] = {
    "src", "lib", "include", "docs", "images", "assets", "config", "users",
    "2024", "reports", "build", "cache", "thumbnails", "v1", "data", "archive",
};

/* The path key of k (the recipe above), NUL-terminated, into out
 * (PATH_STRIDE bytes); returns the length (without the NUL). */
static inline uint32_t format_path(char *out, uint64_t k) {
    uint64_t s = k;
    const char *prefix = PATH_PREFIXES[splitmix64(&s) % 8];
    size_t target = 44 + (size_t)(splitmix64(&s) % 31);
    size_t len = strlen(prefix);
    memcpy(out, prefix, len);
    while (len < target) {
        const char *word = PATH_WORDS[splitmix64(&s) % 16];
        size_t wl = strlen(word);
        memcpy(out + len, word, wl);
        len += wl;
        out[len++] = '/';
    }
    for (int i = 15; i >= 0; i--) out[len++] = "0123456789abcdef"[(k >> (4 * i)) & 15];
    out[len] = '\0';
    return (uint32_t)len;
}

#endif /* MAPS_KEYS_H */
