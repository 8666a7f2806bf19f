/* The three-column row of the slotmap suites: a 12-byte struct, an 8-byte
   id and a 1-byte flag, packed back to back (21 bytes), each field derived
   from the id so that any row can be checked on its own. */
#ifndef SLATE_TEST_ROWS3_H
#define SLATE_TEST_ROWS3_H

#include <stdint.h>
#include <string.h>

typedef struct rec_s {
  uint32_t a, b, c;
} rec_s;
static const uint32_t SIZES3[3] = {12, 8, 1};
#define ROW3 21 /* 12 + 8 + 1, back to back, no padding */

static inline rec_s rec_for(uint64_t id) {
  rec_s r;
  r.a = (uint32_t)((id * 2654435761u) % 1000u); /* duplicates: a sort key */
  r.b = (uint32_t)id ^ 0xA5A5A5A5u;
  r.c = (uint32_t)(id >> 32) * 3u + 7u;
  return r;
}
static inline uint8_t flag_for(uint64_t id) { return (uint8_t)(id * 37u + 1u); }
static inline uint64_t id_of_rec(const rec_s* r) { return (uint64_t)(r->b ^ 0xA5A5A5A5u); }

static inline void pack3(unsigned char row[ROW3], uint64_t id) {
  rec_s r = rec_for(id);
  uint8_t f = flag_for(id);
  memcpy(row, &r, 12);
  memcpy(row + 12, &id, 8);
  row[20] = f;
}

#endif
