/* map/batch: the seeded randomized part on the map: rounds of random
 * changes (set, delete, clear, compact, reserve, free, bulk inserts), each
 * followed by random batches of random sizes through random calls. */
#include "batch.h"

void test_random(unsigned long steps) {
  static const uint32_t limits[] = {8, 12, 40, 300, DIVERSE, UNIVERSE};
  unsigned long rounds = steps / 5000 < 4 ? 4 : steps / 5000, round, batches = 0;
  unsigned long bad = 0, hits = 0, keys = 0;
  uint32_t largest = 0;
  slate_s m;
  model_s md;
  batch_s b;
  TEST_SECTION("randomized: changes to a map, then random batches");
  model_init(&md);
  batch_init(&b, 5000, VIA_U64);
  CHECK_EQ_INT(init_map(&m), SLATE_OK);
  for (round = 0; round < rounds; round++) {
    uint32_t limit = limits[rnd_below((uint32_t)(sizeof limits / sizeof limits[0]))];
    uint32_t ops = rnd_below(300), nb = 1 + rnd_below(4);
    for (uint32_t o = 0; o < ops; o++) {
      uint32_t r = rnd_below(1000);
      const tkey* k = &universe_[rnd_below(limit)];
      if (r < 600) {
        put_key(&m, &md, k, gen_value(), &bad);
      } else if (r < 990) {
        del_key(&m, &md, k, &bad);
      } else if (r < 993) {
        bad += slate_clear(&m) != SLATE_OK;
        model_clear(&md);
      } else if (r < 996) {
        bad += slate_compact(&m) != SLATE_OK;
      } else {
        bad += slate_reserve(&m, slate_length(&m) + rnd_below(3000)) != SLATE_OK;
      }
    }
    if (rnd_one_in(10)) put_range(&m, &md, U64_FIRST + rnd_below(INTS - 3000), 1 + rnd_below(3000));
    if (rnd_one_in(30)) {
      slate_free(&m);
      model_clear(&md);
    }
    if (md.size > largest) largest = md.size;
    for (uint32_t i = 0; i < nb; i++) {
      uint32_t r = rnd_below(16);
      size_t n = r < 6 ? batch_sizes_[rnd_below((uint32_t)batch_size_count_)]
                 : r < 15 ? rnd_below(600)
                          : 1000 + rnd_below(4000);
      fill_random(&b, (int)rnd_below(VIA_COUNT), n, limit, &md);
      hits += check_batch(&m, &b, !rnd_one_in(4), "random batch");
      keys += n;
      batches++;
    }
    if (round % 25 == 24 && !CHECK(map_matches(&m, &md))) fprintf(stderr, "  round %lu\n", round);
  }
  CHECK_EQ_U64(bad, 0);
  CHECK(map_matches(&m, &md));
  fprintf(stderr, "   %lu rounds, %lu batches, %lu keys (%lu found), largest map %u\n", rounds, batches,
          keys, hits, (unsigned)largest);
  batch_release(&b);
  slate_free(&m);
  model_release(&md);
}
