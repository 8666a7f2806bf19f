/* Calls that the README's cross-language-LTO recipe inlines into their
 * caller. scripts/check-lto.sh builds this file with that recipe and reads
 * the machine code: each probe_* function must contain no call to the
 * library's entry point it uses. main() runs every probe once so that the
 * inlined code is also seen to work. */
#include <stdint.h>
#include <stdio.h>

#include "slate.h"

typedef struct row {
    uint64_t id;
    float x, y;
} row;

__attribute__((noinline)) int probe_get_u64(const slate_s *m, uint64_t k, void **v) {
    return slate_get_u64(m, k, v);
}

__attribute__((noinline)) int probe_set_u64(slate_s *m, uint64_t k, void *v) {
    return slate_set_u64(m, k, v);
}

__attribute__((noinline)) int probe_delete_u64(slate_s *m, uint64_t k) {
    return slate_delete_u64(m, k);
}

__attribute__((noinline)) int probe_get_bytes(const slate_s *m, const void *k, uint32_t n, void **v) {
    return slate_get_bytes(m, k, n, v);
}

__attribute__((noinline)) int probe_set_bytes(slate_s *m, const void *k, uint32_t n, void *v) {
    return slate_set_bytes(m, k, n, v);
}

__attribute__((noinline)) int probe_get_i64(const slate_s *m, int64_t k, void **v) {
    return slate_get_i64(m, k, v);
}

__attribute__((noinline)) int probe_slotmap_get(const slotmap_s *sm, slotmap_key k, void **e) {
    return slotmap_get(sm, k, e);
}

__attribute__((noinline)) int probe_slotmap_insert(slotmap_s *sm, const row *r, slotmap_key *k) {
    return slotmap_insert(sm, r, k);
}

__attribute__((noinline)) int probe_slotmap_erase(slotmap_s *sm, slotmap_key k) {
    return slotmap_erase(sm, k);
}

static int passed, failed;

static void check(int ok, const char *what) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAILED: %s\n", what);
    }
}

int main(void) {
    slate_s m;
    check(slate(&m) == SLATE_OK, "slate");
    int one = 1, two = 2;
    void *v = NULL;
    /* Enough keys to leave the small map for the directory, so that the
     * inlined calls run their directory paths too. */
    for (uint64_t k = 0; k < 100; k++) check(probe_set_u64(&m, k, &one) == SLATE_OK, "set u64");
    check(probe_set_u64(&m, 7, &two) == SLATE_OK, "replace u64");
    check(probe_get_u64(&m, 7, &v) == SLATE_OK && v == &two, "get u64");
    check(probe_get_u64(&m, 100, &v) == SLATE_ERROR_NOT_FOUND && v == &two, "miss u64");
    check(probe_get_i64(&m, 7, &v) == SLATE_ERROR_NOT_FOUND, "i64 key is not the u64 key");
    check(probe_delete_u64(&m, 7) == SLATE_OK, "delete u64");
    check(probe_get_u64(&m, 7, NULL) == SLATE_ERROR_NOT_FOUND, "deleted u64");
    check(slate_length(&m) == 99, "length");
    check(probe_get_u64(NULL, 1, NULL) == SLATE_ERROR_INVALID, "NULL map");
    /* Byte keys on both sides of the 32-byte split of the lookup path. */
    static const char long_key[] = "a key of more than thirty-two bytes, for the outlined path";
    check(probe_set_bytes(&m, "name", 4, &one) == SLATE_OK, "set bytes");
    check(probe_set_bytes(&m, long_key, sizeof long_key - 1, &two) == SLATE_OK, "set long bytes");
    check(probe_get_bytes(&m, "name", 4, &v) == SLATE_OK && v == &one, "get bytes");
    check(probe_get_bytes(&m, long_key, sizeof long_key - 1, &v) == SLATE_OK && v == &two, "get long bytes");
    check(probe_get_bytes(&m, "nam", 3, NULL) == SLATE_ERROR_NOT_FOUND, "miss bytes");
    check(probe_get_bytes(&m, NULL, 1, NULL) == SLATE_ERROR_INVALID, "NULL key");
    check(slate_length(&m) == 101, "length with byte keys");
    slate_free(&m);

    slotmap_s sm;
    check(slotmap(&sm, sizeof(row)) == SLATE_OK, "slotmap");
    slotmap_key a = 0, b = 0;
    row ra = {1, 1.0f, 2.0f}, rb = {2, 3.0f, 4.0f};
    check(probe_slotmap_insert(&sm, &ra, &a) == SLATE_OK, "insert a");
    check(probe_slotmap_insert(&sm, &rb, &b) == SLATE_OK, "insert b");
    void *e = NULL;
    check(probe_slotmap_get(&sm, b, &e) == SLATE_OK && ((row *)e)->id == 2, "get b");
    check(probe_slotmap_erase(&sm, a) == SLATE_OK, "erase a");
    check(probe_slotmap_get(&sm, a, NULL) == SLATE_ERROR_NOT_FOUND, "stale a");
    check(probe_slotmap_get(&sm, b, &e) == SLATE_OK && ((row *)e)->id == 2, "b after the swap");
    check(probe_slotmap_erase(&sm, a) == SLATE_ERROR_NOT_FOUND, "erase a twice");
    check(probe_slotmap_get(&sm, 0, NULL) == SLATE_ERROR_NOT_FOUND, "key 0");
    slotmap_free(&sm);

    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
