//! The sparse-set section of the slotmap benchmark: the `slotmap` crate's
//! `SecondaryMap` and `SparseSecondaryMap` (keyed by the keys of a
//! `SlotMap<DefaultKey, ()>`, their owner) and the `shipyard` ECS (its own
//! entities; one component storage, a true sparse set, per part), called
//! natively (release profile with LTO, one codegen unit), doing the same
//! work as `bench/slotmap/sparse_slate.c` (see there for the phases, the
//! data, the shuffles and the checks).
//!
//! Output, one line per implementation, phase and N (median over the
//! repetitions):
//!
//! ```text
//! SecondaryMap <phase> <N> <ns_per_op> <checksum>
//! SparseSecondaryMap <phase> <N> <ns_per_op> <checksum>
//! shipyard <phase> <N> <ns_per_op> <checksum>
//! ```
//!
//! Usage: `sparse_bench [--impl secondary|sparse-secondary|shipyard|all] [--reps K] [N ...]`

use std::hint::black_box;
use std::process::exit;
use std::time::Instant;

use shipyard::{Component, Delete, EntitiesView, EntityId, Get, IntoIter, View, ViewMut, World};
use slotmap::{DefaultKey, SecondaryMap, SlotMap, SparseSecondaryMap};
use slotmap_bench::{default_reps, elem, fail, median, ns, parse_args, shuffle, weigh, Elem};

/// The phases, in the order they run (`sparse_slate.c` also has
/// `get_many`, after `get`). `iterate10`, this program's only: the join's
/// smaller set walked after the join, an iteration where 10% of the
/// entities have the component (for the SecondaryMaps, `values()` over a
/// map whose slots are 1 in 10 occupied); ns per element found.
const PHASES: [&str; 7] = [
    "set",
    "get",
    "contains",
    "iterate",
    "join",
    "iterate10",
    "erase",
];

/// What every implementation does with the same numbers: the shuffles, the
/// join's smaller set and the expected checksums.
struct Plan {
    n: u32,
    /// Entity `get_perm[i]` is the i-th looked up (get, contains).
    get_perm: Vec<u32>,
    /// Entity `erase_perm[i]` is the i-th erased.
    erase_perm: Vec<u32>,
    /// The smaller set of the join: entities `join_perm[0 .. m)`, set in
    /// that order.
    join_perm: Vec<u32>,
    m: u32,
    expect: u64,
    expect_join: u64,
    /// The sum over the join's smaller set (the iterate10 phase).
    expect_small: u64,
}

impl Plan {
    fn new(n: u32) -> Plan {
        let get_perm = shuffle(n, 0x5EED_0011 ^ n as u64);
        let erase_perm = shuffle(n, 0x5EED_0012 ^ n as u64);
        let join_perm = shuffle(n, 0x5EED_0013 ^ n as u64);
        let m = (n / 10).max(1);
        let expect = (0..n).fold(0u64, |a, i| a.wrapping_add(weigh(&elem(i))));
        let expect_join = join_perm[..m as usize].iter().fold(0u64, |a, &i| {
            a.wrapping_add(weigh(&elem(i)))
                .wrapping_add(weigh(&elem(i + n)))
        });
        let expect_small = join_perm[..m as usize]
            .iter()
            .fold(0u64, |a, &i| a.wrapping_add(weigh(&elem(i + n))));
        Plan {
            n,
            get_perm,
            erase_perm,
            join_perm,
            m,
            expect,
            expect_join,
            expect_small,
        }
    }
}

/// Per-phase timings and checksums, printed as `<label> <phase> ...`.
struct Record {
    times: [Vec<u64>; 7],
    checks: [u64; 7],
}

impl Record {
    fn new() -> Record {
        Record {
            times: Default::default(),
            checks: [0; 7],
        }
    }
    fn print(self, label: &str, plan: &Plan) {
        for (p, t) in self.times.into_iter().enumerate() {
            // The join's and iterate10's operations are the smaller set's
            // rows.
            let ops = if matches!(PHASES[p], "join" | "iterate10") {
                plan.m
            } else {
                plan.n
            };
            println!(
                "{} {} {} {:.3} {}",
                label,
                PHASES[p],
                plan.n,
                median(t) as f64 / ops as f64,
                self.checks[p]
            );
        }
    }
}

/// The iterate10 phase's loop: the sum of `weigh` over `values`. Out of
/// line, so that the phases' own functions compile as they do without it.
#[inline(never)]
fn sum_values<'a>(values: impl Iterator<Item = &'a Elem>) -> u64 {
    values.fold(0u64, |s, e| s.wrapping_add(weigh(e)))
}

/// `SecondaryMap` and `SparseSecondaryMap` (their APIs match), keyed by
/// the keys of an owner `SlotMap`.
macro_rules! bench_secondary {
    ($fn_name:ident, $map:ident, $label:literal) => {
        fn $fn_name(plan: &Plan, reps: u32) {
            let n = plan.n;
            let mut owner: SlotMap<DefaultKey, ()> = SlotMap::with_capacity(n as usize);
            let keys: Vec<DefaultKey> = (0..n).map(|_| owner.insert(())).collect();
            let get_keys: Vec<DefaultKey> =
                plan.get_perm.iter().map(|&i| keys[i as usize]).collect();
            let erase_keys: Vec<DefaultKey> =
                plan.erase_perm.iter().map(|&i| keys[i as usize]).collect();
            let mut rec = Record::new();

            for _ in 0..reps {
                let mut a: $map<DefaultKey, Elem> = $map::with_capacity(n as usize);
                black_box(&mut a);

                // set: a component for every entity, in entity order
                let t0 = Instant::now();
                for (i, &k) in keys.iter().enumerate() {
                    a.insert(k, elem(i as u32));
                }
                black_box(&mut a);
                rec.times[0].push(ns(t0));
                if a.len() != n as usize {
                    fail($label, "set", n);
                }
                rec.checks[0] = a.len() as u64;

                // get, shuffled
                let t0 = Instant::now();
                let mut sum = 0u64;
                let mut bad = 0u32;
                for &k in &get_keys {
                    match a.get(k) {
                        Some(e) => sum = sum.wrapping_add(weigh(e)),
                        None => bad += 1,
                    }
                }
                black_box((sum, bad));
                rec.times[1].push(ns(t0));
                if bad != 0 || sum != plan.expect {
                    fail($label, "get", n);
                }
                rec.checks[1] = sum;
                black_box(&mut a);

                // contains, the same keys
                let t0 = Instant::now();
                let mut hits = 0u32;
                for &k in &get_keys {
                    hits += a.contains_key(k) as u32;
                }
                black_box(hits);
                rec.times[2].push(ns(t0));
                if hits != n {
                    fail($label, "contains", n);
                }
                rec.checks[2] = hits as u64;
                black_box(&mut a);

                // iterate
                let t0 = Instant::now();
                let sum = a.values().fold(0u64, |s, e| s.wrapping_add(weigh(e)));
                black_box(sum);
                rec.times[3].push(ns(t0));
                if sum != plan.expect {
                    fail($label, "iterate", n);
                }
                rec.checks[3] = sum;
                black_box(&mut a);

                // join: walk the smaller map, look each key up in the larger
                let mut b: $map<DefaultKey, Elem> = $map::with_capacity(plan.m as usize);
                for &i in &plan.join_perm[..plan.m as usize] {
                    b.insert(keys[i as usize], elem(i + n));
                }
                black_box(&mut b);
                let t0 = Instant::now();
                let mut sum = 0u64;
                for (k, eb) in b.iter() {
                    if let Some(ea) = a.get(k) {
                        sum = sum.wrapping_add(weigh(ea)).wrapping_add(weigh(eb));
                    }
                }
                black_box(sum);
                rec.times[4].push(ns(t0));
                if sum != plan.expect_join {
                    fail($label, "join", n);
                }
                rec.checks[4] = sum;

                // iterate10: the smaller map, 1 slot in 10 occupied
                let t0 = Instant::now();
                let sum = sum_values(b.values());
                black_box(sum);
                rec.times[5].push(ns(t0));
                if sum != plan.expect_small {
                    fail($label, "iterate10", n);
                }
                rec.checks[5] = sum;
                drop(b);
                black_box(&mut a);

                // erase, another shuffled order
                let t0 = Instant::now();
                let mut erased = 0u32;
                for &k in &erase_keys {
                    erased += a.remove(k).is_some() as u32;
                }
                black_box(erased);
                black_box(&mut a);
                rec.times[6].push(ns(t0));
                if erased != n || !a.is_empty() {
                    fail($label, "erase", n);
                }
                rec.checks[6] = erased as u64;
            }
            rec.print($label, plan);
        }
    };
}

bench_secondary!(run_secondary, SecondaryMap, "SecondaryMap");
bench_secondary!(
    run_sparse_secondary,
    SparseSecondaryMap,
    "SparseSecondaryMap"
);

/// shipyard's components: the set of every entity and the join's smaller
/// one (a storage per type). Untracked: no insertion/modification/removal
/// bookkeeping.
struct Pos(Elem);
impl Component for Pos {
    type Tracking = shipyard::track::Untracked;
}

struct Vel(Elem);
impl Component for Vel {
    type Tracking = shipyard::track::Untracked;
}

/// The `shipyard` ECS: a fresh `World` for every repetition (untimed: N
/// entities), its component storages sparse sets.
fn run_shipyard(plan: &Plan, reps: u32) {
    const LABEL: &str = "shipyard";
    let n = plan.n;
    let mut rec = Record::new();
    for _ in 0..reps {
        let mut world = World::new();
        let ids: Vec<EntityId> = (0..n).map(|_| world.add_entity(())).collect();
        let get_ids: Vec<EntityId> = plan.get_perm.iter().map(|&i| ids[i as usize]).collect();
        let erase_ids: Vec<EntityId> = plan.erase_perm.iter().map(|&i| ids[i as usize]).collect();
        let (entities, mut pos, mut vel) = world
            .borrow::<(EntitiesView, ViewMut<Pos>, ViewMut<Vel>)>()
            .unwrap_or_else(|_| fail(LABEL, "borrow", n));
        pos.reserve(n as usize);
        black_box(&mut pos);

        // set: checked against the entities (a dead entity panics), as
        // slate's set is checked against its owner
        let t0 = Instant::now();
        for (i, &id) in ids.iter().enumerate() {
            entities.add_component(id, &mut pos, Pos(elem(i as u32)));
        }
        black_box(&mut pos);
        rec.times[0].push(ns(t0));
        if pos.len() != n as usize {
            fail(LABEL, "set", n);
        }
        rec.checks[0] = pos.len() as u64;

        {
            let view: View<Pos> = pos.as_view();

            // get, shuffled
            let t0 = Instant::now();
            let mut sum = 0u64;
            let mut bad = 0u32;
            for &id in &get_ids {
                match (&view).get(id) {
                    Ok(p) => sum = sum.wrapping_add(weigh(&p.0)),
                    Err(_) => bad += 1,
                }
            }
            black_box((sum, bad));
            rec.times[1].push(ns(t0));
            if bad != 0 || sum != plan.expect {
                fail(LABEL, "get", n);
            }
            rec.checks[1] = sum;

            // contains, the same ids
            let t0 = Instant::now();
            let mut hits = 0u32;
            for &id in &get_ids {
                hits += view.contains(id) as u32;
            }
            black_box(hits);
            rec.times[2].push(ns(t0));
            if hits != n {
                fail(LABEL, "contains", n);
            }
            rec.checks[2] = hits as u64;

            // iterate: the storage's own iterator (dense)
            let t0 = Instant::now();
            let sum = (&view)
                .iter()
                .fold(0u64, |s, p| s.wrapping_add(weigh(&p.0)));
            black_box(sum);
            rec.times[3].push(ns(t0));
            if sum != plan.expect {
                fail(LABEL, "iterate", n);
            }
            rec.checks[3] = sum;
        }

        // join: shipyard's own two-component iteration (it walks the
        // smaller storage)
        vel.reserve(plan.m as usize);
        for &i in &plan.join_perm[..plan.m as usize] {
            entities.add_component(ids[i as usize], &mut vel, Vel(elem(i + n)));
        }
        black_box(&mut vel);
        {
            let pv: View<Pos> = pos.as_view();
            let vv: View<Vel> = vel.as_view();
            let t0 = Instant::now();
            let sum = (&pv, &vv).iter().fold(0u64, |s, (p, v)| {
                s.wrapping_add(weigh(&p.0)).wrapping_add(weigh(&v.0))
            });
            black_box(sum);
            rec.times[4].push(ns(t0));
            if sum != plan.expect_join {
                fail(LABEL, "join", n);
            }
            rec.checks[4] = sum;
        }
        {
            // iterate10: the smaller storage's own iterator (dense)
            let vv: View<Vel> = vel.as_view();
            let t0 = Instant::now();
            let sum = sum_values((&vv).iter().map(|v| &v.0));
            black_box(sum);
            rec.times[5].push(ns(t0));
            if sum != plan.expect_small {
                fail(LABEL, "iterate10", n);
            }
            rec.checks[5] = sum;
        }
        black_box(&mut pos);

        // erase, another shuffled order
        let t0 = Instant::now();
        let mut erased = 0u32;
        for &id in &erase_ids {
            erased += pos.delete(id) as u32;
        }
        black_box(erased);
        black_box(&mut pos);
        rec.times[6].push(ns(t0));
        if erased != n || !pos.is_empty() {
            fail(LABEL, "erase", n);
        }
        rec.checks[6] = erased as u64;
    }
    rec.print(LABEL, plan);
}

const USAGE: &str =
    "sparse_bench [--impl secondary|sparse-secondary|shipyard|all] [--reps K] [N ...]";

fn main() {
    let (which, reps, sizes) = parse_args("all", USAGE);
    let (sec, sparse, ship) = match which.as_str() {
        "secondary" => (true, false, false),
        "sparse-secondary" => (false, true, false),
        "shipyard" => (false, false, true),
        "all" => (true, true, true),
        _ => {
            eprintln!("usage: {USAGE}");
            exit(2)
        }
    };
    for n in sizes {
        let plan = Plan::new(n);
        let r = if reps > 0 { reps } else { default_reps(n) };
        if sec {
            run_secondary(&plan, r);
        }
        if sparse {
            run_sparse_secondary(&plan, r);
        }
        if ship {
            run_shipyard(&plan, r);
        }
    }
}
