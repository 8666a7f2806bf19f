/*
 * ecs.c: an entity-component world in a multi-column slotmap: columns
 * position, velocity and health, one dense row per entity; systems loop
 * over whole columns. Entity keys live outside the world (a roster, a
 * turret's target), survive every insert and erase, and go stale for good
 * when their entity dies.
 *
 * Build against an installed slate:
 *   cc ecs.c $(pkg-config --cflags --libs slate) -o ecs
 *
 * Ownership: the slotmap owns the rows (slotmap_insert copies them in,
 * slotmap_free releases them). Pointers from slotmap_column / slotmap_get
 * and row numbers last until the next insert, erase, sort or clear, so each
 * system fetches them afresh; keys last until their own row is erased.
 */
#include "slate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct position_s { float x, y; } position_s;
typedef struct velocity_s { float dx, dy; } velocity_s;
enum { POSITION, VELOCITY, HEALTH, COLUMNS }; /* column numbers */

typedef struct actor_s {
  const char *name;
  slotmap_key id; /* the entity's key: stays valid while the entity lives */
} actor_s;

/* Inserts one entity. A packed row is the columns' fields back to back. */
static int spawn(slotmap_s *world, actor_s *actor, position_s p, velocity_s v, int32_t hp) {
  unsigned char row[sizeof p + sizeof v + sizeof hp];
  memcpy(row, &p, sizeof p);
  memcpy(row + sizeof p, &v, sizeof v);
  memcpy(row + sizeof p + sizeof v, &hp, sizeof hp);
  return slotmap_insert(world, row, &actor->id);
}

/* Systems: plain loops over the dense columns. */
static void move_system(slotmap_s *world, float dt) {
  position_s *p = slotmap_column(world, POSITION);
  const velocity_s *v = slotmap_column(world, VELOCITY);
  for (uint32_t r = 0; r < slotmap_length(world); r++) {
    p[r].x += v[r].dx * dt;
    p[r].y += v[r].dy * dt;
  }
}

static void radiation_system(slotmap_s *world, float belt_x, int32_t dose) {
  const position_s *p = slotmap_column(world, POSITION);
  int32_t *hp = slotmap_column(world, HEALTH);
  for (uint32_t r = 0; r < slotmap_length(world); r++)
    if (p[r].x >= belt_x) hp[r] -= dose;
}

/* slotmap_erase_if predicate. It may read the world (not modify it). */
static int is_dead(slotmap_key key, void *position, void *data) {
  (void)position; /* the row's column 0; health is in column 2 */
  const slotmap_s *world = data;
  uint32_t row = 0;
  if (slotmap_row(world, key, &row) != SLATE_OK) return 0;
  const int32_t *hp = slotmap_column(world, HEALTH);
  return hp[row] <= 0;
}

/* Prints the roster in its own (fixed) order: deterministic output. */
static void print_world(const slotmap_s *world, const actor_s *roster, size_t n) {
  const position_s *p = slotmap_column(world, POSITION);
  const int32_t *hp = slotmap_column(world, HEALTH);
  for (size_t i = 0; i < n; i++) {
    uint32_t r = 0;
    if (roster[i].id == 0) continue; /* not spawned yet */
    if (slotmap_row(world, roster[i].id, &r) == SLATE_OK)
      printf("  %-6s at (%5.1f, %4.1f)  health %4d\n", roster[i].name, (double)p[r].x,
             (double)p[r].y, (int)hp[r]);
    else
      printf("  %-6s gone\n", roster[i].name);
  }
}

int main(void) {
  static const uint32_t sizes[COLUMNS] = {sizeof(position_s), sizeof(velocity_s), sizeof(int32_t)};
  slotmap_s world;
  if (slotmap_columns(&world, sizes, COLUMNS) != SLATE_OK) return EXIT_FAILURE;
  int status = EXIT_FAILURE;
  /* The game's own records. Key 0 is never valid: "not spawned yet". */
  actor_s roster[] = {{"ship", 0}, {"drone", 0}, {"rock", 0},
                      {"probe", 0}, {"comet", 0}, {"drone2", 0}};
  enum { SHIP, DRONE, ROCK, PROBE, COMET, DRONE2, ACTORS };

  if (slotmap_reserve(&world, 8) != SLATE_OK) goto done; /* optional: no regrowth */
  if (spawn(&world, &roster[SHIP], (position_s){0, 0}, (velocity_s){1, 0}, 100) != SLATE_OK ||
      spawn(&world, &roster[DRONE], (position_s){2, 1}, (velocity_s){0.5f, 0}, 40) != SLATE_OK ||
      spawn(&world, &roster[ROCK], (position_s){5, 5}, (velocity_s){0, 0}, 1000) != SLATE_OK ||
      spawn(&world, &roster[PROBE], (position_s){-4, 0}, (velocity_s){2, 0}, 50) != SLATE_OK ||
      spawn(&world, &roster[COMET], (position_s){10, 0}, (velocity_s){-1, 0.5f}, 60) != SLATE_OK)
    goto done;
  slotmap_key target = roster[DRONE].id; /* the turret's copy of the key */

  for (int tick = 1; tick <= 3; tick++) {
    printf("tick %d\n", tick);
    move_system(&world, 1.0f);
    radiation_system(&world, 3.0f, 30);
    /* The turret holds a key, not a pointer: the key tells it when its
     * target is gone (a pointer would dangle, or name another entity). */
    uint32_t row = 0;
    if (slotmap_row(&world, target, &row) == SLATE_OK)
      ((int32_t *)slotmap_column(&world, HEALTH))[row] -= 25;
    else
      printf("  turret: target lost\n");
    if (slotmap_erase_if(&world, is_dead, &world) != SLATE_OK) goto done;
    print_world(&world, roster, ACTORS);
  }

  /* The drone died: its key is stale. get leaves *element untouched. */
  void *element = NULL;
  if (slotmap_contains(&world, target) != 0 ||
      slotmap_get(&world, target, &element) != SLATE_ERROR_NOT_FOUND || element != NULL)
    goto done;
  /* A new entity may reuse the dead drone's slot; the old key stays stale. */
  if (spawn(&world, &roster[DRONE2], (position_s){0, 0}, (velocity_s){0, 0}, 10) != SLATE_OK)
    goto done;
  if (slotmap_contains(&world, target) != 0) goto done;
  printf("stale drone key: contains 0, get NOT_FOUND, still stale after a new spawn\n");
  /* slotmap_get gives a live entity's column-0 element: its position. */
  if (slotmap_get(&world, roster[DRONE2].id, &element) != SLATE_OK) goto done;
  ((position_s *)element)->y = 7.5f;

  for (size_t i = 0; i < ACTORS; i++) { /* key -> row -> key, every live entity */
    uint32_t r = 0;
    if (slotmap_row(&world, roster[i].id, &r) != SLATE_OK) continue; /* dead */
    if (slotmap_key_at(&world, r) != roster[i].id) goto done;
  }
  printf("slotmap_key_at(slotmap_row(k)) == k for every live entity\n");

  /* Erase is swap-and-pop: the last row moves into the hole, keys stay. */
  uint32_t rock_row = 0, moved_row = 0;
  slotmap_key last = slotmap_key_at(&world, slotmap_length(&world) - 1);
  if (slotmap_row(&world, roster[ROCK].id, &rock_row) != SLATE_OK) goto done;
  if (slotmap_erase(&world, roster[ROCK].id) != SLATE_OK) goto done;
  if (slotmap_erase(&world, roster[ROCK].id) != SLATE_ERROR_NOT_FOUND) goto done;
  if (last != roster[ROCK].id &&
      (slotmap_row(&world, last, &moved_row) != SLATE_OK || moved_row != rock_row))
    goto done;
  printf("rock despawned: the last row took its place; %u rows\n",
         (unsigned)slotmap_length(&world));
  print_world(&world, roster, ACTORS);
  status = EXIT_SUCCESS;

done:
  if (status != EXIT_SUCCESS) fprintf(stderr, "ecs: unexpected result from a slotmap call\n");
  slotmap_free(&world);
  return status;
}
