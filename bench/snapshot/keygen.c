/*
 * keygen.c -- writes the string key files of the snapshot benchmark,
 * one key a line, deterministically (the same bytes on every run and
 * machine):
 *
 *   words.txt  N distinct word-like keys of lowercase letters, 1-28
 *              bytes (mean 9.8 for N = 1,000,000): word j is
 *              drawn by splitmix64 from state 0x5EED0000 + j (r1, r2,
 *              ...): 1 to 4 syllables (1: 3 in 16, 2: 8 in 16, 3: 4 in
 *              16, 4: 1 in 16, by r1 % 16), each an onset (none in 1 of
 *              8 first syllables), a vowel and a coda from the lists
 *              below, each drawn by the next r; a word already written
 *              is dropped, and j goes on until N are written;
 *   paths.txt  the map benchmark's path keys (../maps/keys.h): the path
 *              form of the first N outputs of splitmix64 from state 42,
 *              60-100 bytes, sharing prefixes as file paths and URLs do.
 *
 * Usage: keygen DIR N   (writes DIR/words.txt and DIR/paths.txt)
 */
#include "common.h"

static const char *const ONSETS[35] = {
    "b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",  "l",  "m",  "n",   "p",  "r",  "s",  "t",  "v",  "w", "z",
    "br", "ch", "cl", "cr", "dr", "fl", "fr", "gr", "pl", "pr", "sh", "sl", "sp", "st", "str", "th", "tr",
};
static const char *const VOWELS[11] = {"a", "e", "i", "o", "u", "ai", "ea", "ee", "ou", "oo", "y"};
static const char *const CODAS[14] = {"", "", "", "n", "r", "s", "t", "l", "m", "nd", "ng", "ck", "st", "x"};

/* Word j into out (at least 29 bytes); returns its length. */
static uint32_t make_word(char *out, uint64_t j) {
    uint64_t s = 0x5EED0000u + j;
    uint64_t r = splitmix64(&s) % 16;
    int syllables = r < 3 ? 1 : r < 11 ? 2 : r < 15 ? 3 : 4;
    uint32_t len = 0;
    for (int k = 0; k < syllables; k++) {
        const char *parts[3];
        uint64_t o = splitmix64(&s);
        parts[0] = k == 0 && o % 8 == 0 ? "" : ONSETS[(o >> 3) % 35];
        parts[1] = VOWELS[splitmix64(&s) % 11];
        parts[2] = CODAS[splitmix64(&s) % 14];
        for (int p = 0; p < 3; p++) {
            size_t l = strlen(parts[p]);
            memcpy(out + len, parts[p], l);
            len += (uint32_t)l;
        }
    }
    return len;
}

/* FNV-1a: the dedup table's hash. */
static uint64_t fnv(const char *p, uint32_t n) {
    uint64_t h = 0xCBF29CE484222325u;
    for (uint32_t i = 0; i < n; i++) h = (h ^ (uint8_t)p[i]) * 0x100000001B3u;
    return h;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: keygen DIR N\n");
        return 2;
    }
    unsigned long n = strtoul(argv[2], NULL, 10);
    if (n == 0 || n > 100000000ul) {
        fprintf(stderr, "keygen: bad N: %s\n", argv[2]);
        return 2;
    }
    size_t dlen = strlen(argv[1]);
    char *path = xmalloc(dlen + 16);

    /* words.txt: the words kept in one buffer, an open-addressing table
     * of their offsets (+1; 0 is empty) for the dedup. */
    size_t cap = 1;
    while (cap < 2 * n) cap <<= 1;
    uint64_t *table = calloc(cap, sizeof *table);
    uint32_t *lens = xmalloc(sizeof(uint32_t) * n);
    char *words = xmalloc(30 * (size_t)n);
    if (!table) die("keygen", "out of memory", n);
    size_t used = 0;
    uint32_t count = 0;
    for (uint64_t j = 0; count < n; j++) {
        char *w = words + used;
        uint32_t l = make_word(w, j);
        size_t at = fnv(w, l) & (cap - 1);
        int seen = 0;
        while (table[at]) {
            uint64_t e = table[at] - 1;
            uint32_t el = (uint32_t)(e >> 40);
            if (el == l && memcmp(words + (e & ((1ull << 40) - 1)), w, l) == 0) {
                seen = 1;
                break;
            }
            at = (at + 1) & (cap - 1);
        }
        if (seen) continue;
        table[at] = ((uint64_t)l << 40 | used) + 1;
        lens[count++] = l;
        w[l] = '\n';
        used += l + 1;
    }
    snprintf(path, dlen + 16, "%s/words.txt", argv[1]);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(words, 1, used, f) != used || fclose(f) != 0) die("keygen", "cannot write words.txt", n);
    free(table);
    free(lens);
    free(words);

    /* paths.txt */
    snprintf(path, dlen + 16, "%s/paths.txt", argv[1]);
    f = fopen(path, "wb");
    if (!f) die("keygen", "cannot write paths.txt", n);
    uint64_t s = 42;
    char line[PATH_STRIDE + 1];
    for (unsigned long i = 0; i < n; i++) {
        uint32_t l = format_path(line, splitmix64(&s));
        line[l] = '\n';
        if (fwrite(line, 1, l + 1, f) != l + 1) die("keygen", "cannot write paths.txt", n);
    }
    if (fclose(f) != 0) die("keygen", "cannot write paths.txt", n);
    free(path);
    return 0;
}
