/* abi/walks: scenarios drawn from the seed -- any family, walk, write
 * kind, call, return value and size -- until the walks have made `steps`
 * callbacks. A failure prints its scenario (scenario_print). */
#include "walks.h"
#include "../../support/rng.h"

#include <limits.h>

static int each_return(void) {
  static const int values[] = {1, -1, 77, -9, INT_MAX, INT_MIN};
  return one_in(3) ? values[rng_below(sizeof values / sizeof values[0])] : 0;
}

static int is_given_removal(int w) {
  return w == W_DEL_GIVEN || w == W_TAKE_GIVEN || w == W_DEL_GIVEN_BYTES ||
         w == W_DEL_OR_CLEAR || w == W_DEL_OR_FREE;
}

void test_random(uint64_t seed, unsigned long steps) {
  TEST_SECTION("scenarios drawn from the seed");
  rng_state_ = seed;
  unsigned long calls = 0, scenarios = 0, failed_before = TEST_FAILED_COUNT();
  while (calls < steps) {
    scenario_s s;
    scenario_init(&s);
    uint32_t family = rng_below(4);
    s.n = one_in(10) ? 1 + rng_below(400) : 1 + rng_below(24);
    s.write = 1 + (int)rng_below(W_COUNT - 1);
    s.at = one_in(4) ? (one_in(2) ? AT_LAST : AT_MIDDLE) : 1 + rng_below(1000);
    int every = one_in(5) && is_given_removal(s.write);
    if (every) {
      s.every = 1 + rng_below(3);
      s.at = 0;
    }
    uint32_t made = 0;
    switch (family) {
      case 0:
        s.walk = (int)rng_below(MAP_WALKS);
        s.strings = (int)rng_below(2);
        s.pattern = s.walk == MAP_DELETE_IF && one_in(2);
        s.ret = s.walk == MAP_EACH ? (every ? 0 : each_return()) : (int)rng_below(2);
        if (!map_applies(s.walk, s.write)) continue;
        made = map_scenario(&s);
        break;
      case 1:
        s.walk = (int)rng_below(SM_WALKS);
        s.pattern = s.walk == SM_ERASE_IF && one_in(2);
        s.ret = s.walk == SM_EACH ? (every ? 0 : each_return()) : s.walk == SM_SORT ? 0 : (int)rng_below(2);
        if (!slotmap_applies(s.walk, s.write) || (every && s.walk == SM_SORT)) continue;
        made = slotmap_scenario(&s);
        break;
      case 2:
        s.walk = (int)rng_below(SP_WALKS);
        s.membership = one_in(3);
        s.pattern = s.walk == SP_ERASE_IF && one_in(2);
        s.target = every && s.write == W_DEL_GIVEN ? (int)rng_below(2) : 0;
        s.ret = s.walk == SP_EACH ? (every ? 0 : each_return()) : s.walk == SP_SORT ? 0 : (int)rng_below(2);
        if (!sparse_applies(s.walk, s.write, s.membership) || (every && s.walk == SP_SORT)) continue;
        made = sparse_scenario(&s);
        break;
      default:
        s.sets = 2 + (int)rng_below(2);
        s.owner = (int)rng_below(2);
        s.smallest = (int)rng_below((uint32_t)s.sets);
        s.target = every ? (s.write == W_DEL_GIVEN ? (int)rng_below(2) * 3 : 0) : (int)rng_below(3);
        if (s.target == 2) s.write = W_OWNER_ERASE_GIVEN + (int)rng_below(4);
        s.ret = every ? 0 : each_return();
        if (!join_applies(&s)) continue;
        made = join_scenario(&s);
        break;
    }
    calls += made + 1;
    scenarios++;
    if (TEST_FAILED_COUNT() != failed_before) {
      fprintf(stderr, "   (scenario %lu of seed %llu)\n", scenarios, (unsigned long long)seed);
      failed_before = TEST_FAILED_COUNT();
    }
  }
  fprintf(stderr, "   %lu scenarios, %lu callbacks\n", scenarios, calls);
}
