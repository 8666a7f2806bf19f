/*
 * ecs.cpp: the ecs.c world with slate.hpp (C++17). A slate::slotmap<entity>
 * holds the entities in dense rows (range-for streams them), slate::key
 * values name them from outside (a turret's target, a name -> key
 * slate::map), and a key whose entity died is stale for good. The parts
 * only some entities have are sparse sets keyed by the entity keys: a
 * slate::sparse<velocity> (the rock has none), a slate::sparse<int> hunger
 * counter, and a slate::sparse<void> "hungry" tag; systems walk them with
 * slate::join, and a cleanup pass prunes them after entities die.
 *
 * Build against an installed slate:
 *   c++ -std=c++17 ecs.cpp $(pkg-config --cflags --libs slate) -o ecs
 *
 * Ownership: every container is RAII and move-only. The slotmap and the
 * sets own their rows (copies of trivially copyable structs); the map owns
 * copies of its keys (the names) and stores each entity key inside the
 * void* value (slate::to_value: needs 64-bit pointers). Errors: insert and
 * set throw std::bad_alloc or slate::error; lookups never throw.
 */
#include "slate.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct entity {
  char name[8];  // a copy, so that erase_if can tell the name map who died
  float x, y;
  std::int32_t hp;
};
struct velocity {
  float dx, dy;
};

using world_t = slate::slotmap<entity>;

// The parts only some entities have, keyed by the world's keys.
struct parts {
  slate::sparse<velocity> vel;     // the entities that move
  slate::sparse<std::int32_t> hunger;  // the entities that eat
  slate::sparse<void> hungry;      // a tag: hunger at 2 or more, not fed

  // After entities die: drop their rows from every set, one pass each.
  std::size_t prune(const world_t& world) {
    return vel.prune(world) + hunger.prune(world) + hungry.prune(world);
  }
};

// Inserts an entity, registers its name and gives it its parts (a
// velocity unless `v` is empty, a hunger counter if it eats); on failure
// none of that happened.
static slate::key spawn(world_t& world, slate::map& names, parts& p, const char* name, float x,
                        float y, std::optional<velocity> v, std::int32_t hp, bool eats) {
  entity e{{}, x, y, hp};
  std::snprintf(e.name, sizeof e.name, "%s", name);  // cut to 7 characters
  slate::key k = world.insert(e);  // the slotmap copies `e` in
  try {
    names.set(e.name, slate::to_value(k));  // the map copies the name
  } catch (...) {
    world.erase(k);
    throw;
  }
  try {
    if (v) p.vel.set(world, k, *v);  // checked against the world: k is alive
    if (eats) p.hunger.set(world, k, 0);
  } catch (...) {
    names.erase(e.name);
    world.erase(k);
    p.prune(world);  // whatever part was set
    throw;
  }
  return k;
}

static std::optional<slate::key> lookup(const slate::map& names, std::string_view name) {
  if (auto value = names.get(name)) return slate::from_value<slate::key>(*value);
  return std::nullopt;
}

// Dense order changes with every erase: sort by name before printing.
static void print_world(const world_t& world, const parts& p) {
  std::vector<std::pair<slate::key, const entity*>> rows;
  world.for_each([&](slate::key k, const entity& e) { rows.emplace_back(k, &e); });
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::string_view(a.second->name) < std::string_view(b.second->name);
  });
  for (const auto& [k, e] : rows)
    std::printf("  %-6s at (%5.1f, %4.1f)  health %4d%s%s\n", e->name, static_cast<double>(e->x),
                static_cast<double>(e->y), static_cast<int>(e->hp), p.vel.contains(k) ? "" : "  still",
                p.hungry.contains(k) ? "  hungry" : "");
}

static int run() {
  world_t world;
  slate::map names;
  parts p;
  world.reserve(8);  // optional: no regrowth below 8 entities
  spawn(world, names, p, "ship", 0, 0, velocity{1, 0}, 100, true);
  const slate::key target = spawn(world, names, p, "drone", 2, 1, velocity{0.5f, 0}, 40, true);
  spawn(world, names, p, "rock", 5, 5, std::nullopt, 1000, false);
  spawn(world, names, p, "probe", -4, 0, velocity{2, 0}, 50, true);
  spawn(world, names, p, "comet", 10, 0, velocity{-1, 0.5f}, 60, false);

  for (int tick = 1; tick <= 3; tick++) {
    std::printf("tick %d\n", tick);
    // Movement walks "position and velocity": every key of `vel` alive in
    // `world`, the lambda given the entity (the owner's element) and its
    // velocity.
    slate::join(world, p.vel, [](slate::key, entity& e, velocity& v) {
      e.x += v.dx;
      e.y += v.dy;
    });
    for (entity& e : world)
      if (e.x >= 3.0f) e.hp -= 30;  // radiation belt
    if (entity* t = world.find(target))  // nullptr once the target is gone
      t->hp -= 25;
    else
      std::printf("  turret: target lost\n");

    // Those hungry since the last tick eat at the depot (x <= 2.5) and
    // leave the tag: erasing the key the join gave is allowed. `hungry`
    // adds no argument (a membership set); the join walks the smaller set.
    slate::join(world, p.hungry, p.hunger, [&](slate::key k, entity& e, std::int32_t& hunger) {
      if (e.x > 2.5f) return;  // too far away: stays hungry
      hunger = 0;
      std::printf("  %s eats\n", e.name);
      p.hungry.erase(k);
    });
    // Hunger rises; at 2 an entity takes the tag (another set: allowed).
    p.hunger.for_each([&](slate::key k, std::int32_t& hunger) {
      if (++hunger >= 2 && p.hungry.set(world, k)) std::printf("  %s gets hungry\n", world[k].name);
    });

    // Reap the dead in one pass. The callback must not change `world`'s
    // structure, but it may modify another container: `names`.
    std::vector<std::string> died;
    world.erase_if([&](slate::key, entity& e) {
      if (e.hp > 0) return false;
      names.erase(e.name);
      died.emplace_back(e.name);
      return true;
    });
    std::sort(died.begin(), died.end());
    for (const std::string& name : died) std::printf("  %s died\n", name.c_str());
    if (std::size_t pruned = p.prune(world))  // the dead entities' parts
      std::printf("  cleanup: %zu rows of dead entities pruned\n", pruned);
    print_world(world, p);
  }
  // After the cleanup every set holds live entities' keys only.
  for (const slate::key_view keys : {p.vel.keys(), p.hunger.keys(), p.hungry.keys()})
    for (slate::key k : keys)
      if (!world.contains(k)) return 1;
  std::printf("%zu moving, %zu eating, %zu hungry\n", p.vel.size(), p.hunger.size(),
              p.hungry.size());

  // The drone's key is stale: find() is nullptr, contains() false, at() throws.
  if (world.contains(target) || world.find(target) != nullptr || names.contains("drone"))
    return 1;
  try {
    (void)world.at(target);
    return 1;
  } catch (const std::out_of_range&) {
  }
  const slate::key drone2 = spawn(world, names, p, "drone2", 0, 0, std::nullopt, 10, true);
  if (world.contains(target) || !world.contains(drone2)) return 1;  // still stale
  // A set checked against the world refuses to write through a stale key.
  if (p.vel.try_set(world, target, {9, 9}).code() != SLATE_ERROR_NOT_FOUND) return 1;
  try {
    p.hungry.set(world, target);
    return 1;
  } catch (const slate::error& e) {
    if (e.code() != SLATE_ERROR_NOT_FOUND) return 1;
  }
  if (p.hunger.contains(target) || !p.hunger.contains(drone2)) return 1;
  world[drone2].y = 7.5f;  // operator[]: the key must be valid
  std::printf("stale drone key: not found, set refused, still stale after a new spawn\n");

  // Keys and rows: key_at(row_of(k)) == k, and every name maps to its row's key.
  for (std::size_t r = 0; r < world.size(); r++)
    if (world.row_of(world.key_at(r)) != r) return 1;
  bool consistent = world.for_each([&](slate::key k, const entity& e) {
    return lookup(names, e.name) == k;  // false stops the walk
  });
  if (!consistent || names.size() != world.size()) return 1;
  std::printf("%zu entities, each found by name and by key\n", world.size());

  // Despawn by name: erase() is true once, then false (the key is stale).
  std::optional<slate::key> rock = lookup(names, "rock");
  if (!rock || !world.erase(*rock) || world.erase(*rock) || !names.erase("rock")) return 1;
  std::printf("rock despawned; %zu entities left\n", world.size());
  print_world(world, p);
  return 0;
}

int main() {
  try {
    int rc = run();
    if (rc != 0) std::fprintf(stderr, "ecs: unexpected result\n");
    return rc;
  } catch (const slate::error& e) {  // FULL or INVALID from the library
    std::fprintf(stderr, "ecs: %s (code %d)\n", e.what(), e.code());
  } catch (const std::exception& e) {  // std::bad_alloc, ...
    std::fprintf(stderr, "ecs: %s\n", e.what());
  }
  return 1;
}
