/*
 * ecs.c: an entity-component world. Every entity has a position and a
 * health: two columns of a slotmap, one dense row per entity. The parts
 * only some entities have live in sparse sets keyed by the slotmap's keys:
 * a velocity (the rock has none), a hunger counter (the crewed ones), and
 * a "hungry" tag (a membership set: keys only). Systems loop over whole
 * columns, or walk a join: "every entity with a velocity", "every hungry
 * entity with a hunger counter". Entity keys live outside the world (a
 * roster, a turret's target), survive every insert and erase, and go stale
 * for good when their entity dies; a cleanup pass then prunes every set.
 *
 * Build against an installed slate:
 *   cc ecs.c $(pkg-config --cflags --libs slate) -o ecs
 *
 * Ownership: the slotmap and the sets own their rows (insert and set copy
 * them in, free releases them). Pointers from slotmap_column / slotmap_get
 * / slotmap_sparse_get and row numbers last until the next call that adds
 * or removes a row of that structure, so each system fetches them afresh;
 * keys last until their own row is erased.
 */
#include "slate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct position_s { float x, y; } position_s;
typedef struct velocity_s { float dx, dy; } velocity_s;
enum { POSITION, HEALTH, COLUMNS }; /* column numbers */

typedef struct actor_s {
  const char *name;
  slotmap_key id; /* the entity's key: stays valid while the entity lives */
} actor_s;

/* The world: the entities, and their optional parts. */
typedef struct world_s {
  slotmap_s entities;         /* position, health */
  slotmap_sparse_s velocity;  /* velocity_s, for the entities that move */
  slotmap_sparse_s hunger;    /* int32_t, for the entities that eat */
  slotmap_sparse_s hungry;    /* membership: hunger at 2 or more, not fed */
  const actor_s *roster;      /* names, for the messages */
  size_t actors;
} world_s;

static const char *name_of(const world_s *w, slotmap_key key) {
  for (size_t i = 0; i < w->actors; i++)
    if (w->roster[i].id == key) return w->roster[i].name;
  return "?";
}

/* Inserts one entity (a packed row is the columns' fields back to back)
 * and its parts: a velocity unless NULL, a hunger counter if it eats. */
static int spawn(world_s *w, actor_s *actor, position_s p, const velocity_s *v, int32_t hp,
                 int eats) {
  unsigned char row[sizeof p + sizeof hp];
  memcpy(row, &p, sizeof p);
  memcpy(row + sizeof p, &hp, sizeof hp);
  int rc = slotmap_insert(&w->entities, row, &actor->id);
  /* Checked against the owner: the key was just issued, so it is valid. */
  if (rc == SLATE_OK && v != NULL)
    rc = slotmap_sparse_set(&w->velocity, &w->entities, actor->id, v);
  if (rc == SLATE_OK && eats) rc = slotmap_sparse_set(&w->hunger, &w->entities, actor->id, NULL);
  return rc;
}

/* Systems. Movement walks "position and velocity": a join over the
 * velocity set with the entities as owner, so elements[0] is the velocity
 * and elements[1] the entity's column-0 element, its position. */
static int move_one(slotmap_key key, const uint32_t *rows, void *const *elements, void *data) {
  (void)key, (void)rows;
  const velocity_s *v = elements[0];
  position_s *p = elements[1];
  float dt = *(const float *)data;
  p->x += v->dx * dt;
  p->y += v->dy * dt;
  return 0;
}

static int move_system(world_s *w, float dt) {
  slotmap_sparse_s *sets[] = {&w->velocity};
  return slotmap_join(&w->entities, sets, 1, move_one, &dt);
}

static void radiation_system(slotmap_s *entities, float belt_x, int32_t dose) {
  const position_s *p = slotmap_column(entities, POSITION);
  int32_t *hp = slotmap_column(entities, HEALTH);
  for (uint32_t r = 0; r < slotmap_length(entities); r++)
    if (p[r].x >= belt_x) hp[r] -= dose;
}

/* Hunger rises; at 2 an entity subscribes to the "hungry" tag. The walk
 * of `hunger` may modify other sets: `hungry`. */
static int hunger_one(slotmap_key key, void *element, void *data) {
  world_s *w = data;
  int32_t *hunger = element;
  if (++*hunger >= 2 && !slotmap_sparse_contains(&w->hungry, key)) {
    if (slotmap_sparse_set(&w->hungry, &w->entities, key, NULL) != SLATE_OK) return 1;
    printf("  %s gets hungry\n", name_of(w, key));
  }
  return 0;
}

/* Every hungry entity with a hunger counter eats if it is at the depot
 * (x <= depot_x): its hunger drops to 0 and it leaves the tag. Erasing the
 * key the join gave is allowed (the walk stays on the row that took its
 * place); the join walks the smaller set, `hungry`. */
typedef struct meal_s { world_s *w; float depot_x; } meal_s;

static int eat_one(slotmap_key key, const uint32_t *rows, void *const *elements, void *data) {
  (void)rows;
  meal_s *meal = data;
  int32_t *hunger = elements[1];             /* elements[0]: NULL, a membership set */
  const position_s *p = elements[2];         /* the owner's column 0 */
  if (p->x > meal->depot_x) return 0;        /* too far away: stays hungry */
  *hunger = 0;
  printf("  %s eats\n", name_of(meal->w, key));
  return slotmap_sparse_erase(&meal->w->hungry, key) == SLATE_OK ? 0 : 1;
}

static int eat_system(world_s *w, float depot_x) {
  slotmap_sparse_s *sets[] = {&w->hungry, &w->hunger};
  meal_s meal = {w, depot_x};
  return slotmap_join(&w->entities, sets, 2, eat_one, &meal);
}

/* slotmap_erase_if predicate. It may read the world (not modify it). */
static int is_dead(slotmap_key key, void *position, void *data) {
  (void)position; /* the row's column 0; health is in column 1 */
  const slotmap_s *entities = data;
  uint32_t row = 0;
  if (slotmap_row(entities, key, &row) != SLATE_OK) return 0;
  const int32_t *hp = slotmap_column(entities, HEALTH);
  return hp[row] <= 0;
}

/* After entities die: drop their parts from every set, in one pass each. */
static int cleanup(world_s *w, uint32_t *pruned) {
  slotmap_sparse_s *sets[] = {&w->velocity, &w->hunger, &w->hungry};
  *pruned = 0;
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
    uint32_t before = slotmap_sparse_length(sets[i]);
    if (slotmap_sparse_prune(sets[i], &w->entities) != SLATE_OK) return 1;
    *pruned += before - slotmap_sparse_length(sets[i]);
  }
  return 0;
}

/* Prints the roster in its own (fixed) order: deterministic output. */
static void print_world(const world_s *w) {
  const position_s *p = slotmap_column(&w->entities, POSITION);
  const int32_t *hp = slotmap_column(&w->entities, HEALTH);
  for (size_t i = 0; i < w->actors; i++) {
    uint32_t r = 0;
    slotmap_key id = w->roster[i].id;
    if (id == 0) continue; /* not spawned yet */
    if (slotmap_row(&w->entities, id, &r) == SLATE_OK)
      printf("  %-6s at (%5.1f, %4.1f)  health %4d%s%s\n", w->roster[i].name, (double)p[r].x,
             (double)p[r].y, (int)hp[r], slotmap_sparse_contains(&w->velocity, id) ? "" : "  still",
             slotmap_sparse_contains(&w->hungry, id) ? "  hungry" : "");
    else
      printf("  %-6s gone\n", w->roster[i].name);
  }
}

int main(void) {
  static const uint32_t sizes[COLUMNS] = {sizeof(position_s), sizeof(int32_t)};
  /* The game's own records. Key 0 is never valid: "not spawned yet". */
  actor_s roster[] = {{"ship", 0}, {"drone", 0}, {"rock", 0},
                      {"probe", 0}, {"comet", 0}, {"drone2", 0}};
  enum { SHIP, DRONE, ROCK, PROBE, COMET, DRONE2, ACTORS };
  world_s w = {.roster = roster, .actors = ACTORS};
  if (slotmap_columns(&w.entities, sizes, COLUMNS) != SLATE_OK ||
      slotmap_sparse(&w.velocity, sizeof(velocity_s)) != SLATE_OK ||
      slotmap_sparse(&w.hunger, sizeof(int32_t)) != SLATE_OK ||
      slotmap_sparse(&w.hungry, 0) != SLATE_OK) /* 0: a membership set */
    return EXIT_FAILURE;
  int status = EXIT_FAILURE;

  if (slotmap_reserve(&w.entities, 8) != SLATE_OK) goto done; /* optional: no regrowth */
  if (spawn(&w, &roster[SHIP], (position_s){0, 0}, &(velocity_s){1, 0}, 100, 1) != SLATE_OK ||
      spawn(&w, &roster[DRONE], (position_s){2, 1}, &(velocity_s){0.5f, 0}, 40, 1) != SLATE_OK ||
      spawn(&w, &roster[ROCK], (position_s){5, 5}, NULL, 1000, 0) != SLATE_OK ||
      spawn(&w, &roster[PROBE], (position_s){-4, 0}, &(velocity_s){2, 0}, 50, 1) != SLATE_OK ||
      spawn(&w, &roster[COMET], (position_s){10, 0}, &(velocity_s){-1, 0.5f}, 60, 0) != SLATE_OK)
    goto done;
  slotmap_key target = roster[DRONE].id; /* the turret's copy of the key */

  for (int tick = 1; tick <= 3; tick++) {
    printf("tick %d\n", tick);
    if (move_system(&w, 1.0f) != SLATE_OK) goto done;
    radiation_system(&w.entities, 3.0f, 30);
    /* The turret holds a key, not a pointer: the key tells it when its
     * target is gone (a pointer would dangle, or name another entity). */
    uint32_t row = 0;
    if (slotmap_row(&w.entities, target, &row) == SLATE_OK)
      ((int32_t *)slotmap_column(&w.entities, HEALTH))[row] -= 25;
    else
      printf("  turret: target lost\n");
    if (eat_system(&w, 2.5f) != SLATE_OK) goto done; /* those hungry since last tick */
    if (slotmap_sparse_each(&w.hunger, hunger_one, &w) != SLATE_OK) goto done;
    if (slotmap_erase_if(&w.entities, is_dead, &w.entities) != SLATE_OK) goto done;
    uint32_t pruned = 0;
    if (cleanup(&w, &pruned) != 0) goto done;
    if (pruned > 0) printf("  cleanup: %u rows of dead entities pruned\n", (unsigned)pruned);
    print_world(&w);
  }
  /* After the cleanup every set holds live entities' keys only. */
  slotmap_sparse_s *parts[] = {&w.velocity, &w.hunger, &w.hungry};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    const slotmap_key *keys = slotmap_sparse_keys(parts[i]);
    for (uint32_t r = 0; r < slotmap_sparse_length(parts[i]); r++)
      if (!slotmap_contains(&w.entities, keys[r])) goto done;
  }
  printf("%u moving, %u eating, %u hungry\n", (unsigned)slotmap_sparse_length(&w.velocity),
         (unsigned)slotmap_sparse_length(&w.hunger), (unsigned)slotmap_sparse_length(&w.hungry));

  /* The drone died: its key is stale. get leaves *element untouched. */
  void *element = NULL;
  if (slotmap_contains(&w.entities, target) != 0 ||
      slotmap_get(&w.entities, target, &element) != SLATE_ERROR_NOT_FOUND || element != NULL)
    goto done;
  /* A new entity may reuse the dead drone's slot; the old key stays stale,
   * and a set checked against the world refuses to write through it. */
  if (spawn(&w, &roster[DRONE2], (position_s){0, 0}, NULL, 10, 1) != SLATE_OK) goto done;
  const velocity_s boost = {9, 9};
  if (slotmap_contains(&w.entities, target) != 0 ||
      slotmap_sparse_set(&w.velocity, &w.entities, target, &boost) != SLATE_ERROR_NOT_FOUND ||
      slotmap_sparse_contains(&w.hunger, target) != 0 ||
      slotmap_sparse_contains(&w.hunger, roster[DRONE2].id) != 1)
    goto done;
  printf("stale drone key: contains 0, get NOT_FOUND, set refused, "
         "still stale after a new spawn\n");
  /* slotmap_get gives a live entity's column-0 element: its position. */
  if (slotmap_get(&w.entities, roster[DRONE2].id, &element) != SLATE_OK) goto done;
  ((position_s *)element)->y = 7.5f;

  for (size_t i = 0; i < ACTORS; i++) { /* key -> row -> key, every live entity */
    uint32_t r = 0;
    if (slotmap_row(&w.entities, roster[i].id, &r) != SLATE_OK) continue; /* dead */
    if (slotmap_key_at(&w.entities, r) != roster[i].id) goto done;
  }
  printf("slotmap_key_at(slotmap_row(k)) == k for every live entity\n");

  /* Erase is swap-and-pop: the last row moves into the hole, keys stay. */
  uint32_t rock_row = 0, moved_row = 0;
  slotmap_key last = slotmap_key_at(&w.entities, slotmap_length(&w.entities) - 1);
  if (slotmap_row(&w.entities, roster[ROCK].id, &rock_row) != SLATE_OK) goto done;
  if (slotmap_erase(&w.entities, roster[ROCK].id) != SLATE_OK) goto done;
  if (slotmap_erase(&w.entities, roster[ROCK].id) != SLATE_ERROR_NOT_FOUND) goto done;
  if (last != roster[ROCK].id &&
      (slotmap_row(&w.entities, last, &moved_row) != SLATE_OK || moved_row != rock_row))
    goto done;
  printf("rock despawned: the last row took its place; %u rows\n",
         (unsigned)slotmap_length(&w.entities));
  print_world(&w);
  status = EXIT_SUCCESS;

done:
  if (status != EXIT_SUCCESS) fprintf(stderr, "ecs: unexpected result from a slotmap call\n");
  slotmap_sparse_free(&w.hungry);
  slotmap_sparse_free(&w.hunger);
  slotmap_sparse_free(&w.velocity);
  slotmap_free(&w.entities);
  return status;
}
