/*
 * ecs.cpp: the ecs.c world with slate.hpp (C++17). A slate::slotmap<entity>
 * holds the entities in dense rows (range-for streams them), slate::key
 * values name them from outside (a turret's target, a name -> key
 * slate::map), and a key whose entity died is stale for good.
 *
 * Build against an installed slate:
 *   c++ -std=c++17 ecs.cpp $(pkg-config --cflags --libs slate) -o ecs
 *
 * Ownership: both containers are RAII and move-only. The slotmap owns its
 * rows (copies of `entity`, which must be trivially copyable); the map owns
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
  float x, y, dx, dy;
  std::int32_t hp;
};

using world_t = slate::slotmap<entity>;

// Inserts an entity and registers its name; on failure neither happened.
static slate::key spawn(world_t& world, slate::map& names, const char* name, float x, float y,
                        float dx, float dy, std::int32_t hp) {
  entity e{{}, x, y, dx, dy, hp};
  std::snprintf(e.name, sizeof e.name, "%s", name);  // cut to 7 characters
  slate::key k = world.insert(e);  // the slotmap copies `e` in
  try {
    names.set(e.name, slate::to_value(k));  // the map copies the name
  } catch (...) {
    world.erase(k);
    throw;
  }
  return k;
}

static std::optional<slate::key> lookup(const slate::map& names, std::string_view name) {
  if (auto value = names.get(name)) return slate::from_value<slate::key>(*value);
  return std::nullopt;
}

// Dense order changes with every erase: sort by name before printing.
static void print_world(const world_t& world) {
  std::vector<const entity*> rows;
  for (const entity& e : world) rows.push_back(&e);
  std::sort(rows.begin(), rows.end(), [](const entity* a, const entity* b) {
    return std::string_view(a->name) < std::string_view(b->name);
  });
  for (const entity* e : rows)
    std::printf("  %-6s at (%5.1f, %4.1f)  health %4d\n", e->name, static_cast<double>(e->x),
                static_cast<double>(e->y), static_cast<int>(e->hp));
}

static int run() {
  world_t world;
  slate::map names;
  world.reserve(8);  // optional: no regrowth below 8 entities
  spawn(world, names, "ship", 0, 0, 1, 0, 100);
  const slate::key target = spawn(world, names, "drone", 2, 1, 0.5f, 0, 40);
  spawn(world, names, "rock", 5, 5, 0, 0, 1000);
  spawn(world, names, "probe", -4, 0, 2, 0, 50);
  spawn(world, names, "comet", 10, 0, -1, 0.5f, 60);

  for (int tick = 1; tick <= 3; tick++) {
    std::printf("tick %d\n", tick);
    for (entity& e : world) {  // movement: streams the dense rows
      e.x += e.dx;
      e.y += e.dy;
    }
    for (entity& e : world)
      if (e.x >= 3.0f) e.hp -= 30;  // radiation belt
    if (entity* t = world.find(target))  // nullptr once the target is gone
      t->hp -= 25;
    else
      std::printf("  turret: target lost\n");

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
    print_world(world);
  }

  // The drone's key is stale: find() is nullptr, contains() false, at() throws.
  if (world.contains(target) || world.find(target) != nullptr || names.contains("drone"))
    return 1;
  try {
    (void)world.at(target);
    return 1;
  } catch (const std::out_of_range&) {
  }
  const slate::key drone2 = spawn(world, names, "drone2", 0, 0, 0, 0, 10);
  if (world.contains(target) || !world.contains(drone2)) return 1;  // still stale
  world[drone2].y = 7.5f;  // operator[]: the key must be valid
  std::printf("stale drone key: not found, still stale after a new spawn\n");

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
  print_world(world);
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
