//! Long runs: the elastic gas of `scenes/gas_10k.ron` and the settled pile of
//! `scenes/resting_pile.ron`, stepped for many steps.
//!
//! Ignored by default (minutes in a release build); `.ci/run` runs them with a bounded budget:
//! `TOIBOX_SOAK_STEPS=N cargo test --release --test soak -- --ignored` (default 20,000 steps of
//! the gas, and as many of the pile after it settles).
//!
//! Checked, step after step:
//! - the gas keeps its kinetic energy to 1e-9 relative, loses no ball and lets none escape, and
//!   never hits the cap on events;
//! - the pile, once asleep, stays asleep: no ball moves at all, none escapes;
//! - memory is flat: the bytes live (a counting allocator) after the first tenth of the run
//!   are never exceeded by more than 1% later on, so nothing grows per step. The allocator
//!   counts the whole process, so the runs take turns (`ONE_AT_A_TIME`): one run's memory
//!   must not show up in the other's count.

// The step bench reads the peak too
#[allow(dead_code)]
#[path = "common/counting.rs"]
mod counting;

use counting::Counting;
use toibox::scene::Scene;
use toibox::{Position, Vec3};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Held by each run while it steps: the bytes live are then its own.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Wait for the other runs to finish, and keep them waiting until the guard drops.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    // A run that failed poisoned the lock; its failure is reported on its own
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Steps of each run: `TOIBOX_SOAK_STEPS`, or 20,000.
fn soak_steps() -> usize {
    std::env::var("TOIBOX_SOAK_STEPS")
        .ok()
        .map(|s| {
            s.parse()
                .expect("TOIBOX_SOAK_STEPS: a whole number of steps")
        })
        .unwrap_or(20_000)
}

fn load(scene: &str) -> Scene {
    Scene::load(format!("{}/scenes/{scene}.ron", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Tracks the bytes live: the level once the run has warmed up, and the most seen after it.
struct Flat {
    settled_at: usize,
    level: usize,
    highest: usize,
}

impl Flat {
    fn new(steps: usize) -> Self {
        Self {
            settled_at: (steps / 10).max(1),
            level: 0,
            highest: 0,
        }
    }

    fn observe(&mut self, step: usize) {
        let live = Counting::current();
        if step < self.settled_at {
            self.level = self.level.max(live);
        } else {
            self.highest = self.highest.max(live);
        }
    }

    fn check(&self, what: &str) {
        assert!(
            self.highest as f64 <= 1.01 * self.level as f64,
            "{what}: {} bytes live after the first tenth of the run, {} later",
            self.level,
            self.highest
        );
    }
}

#[test]
#[ignore = "minutes in a release build; .ci/run runs it with a budget"]
fn the_elastic_gas_keeps_its_energy_and_its_balls_for_many_steps() {
    let _alone = alone();
    let steps = soak_steps();
    let scene = load("gas_10k");
    let mut built = scene.build();
    let balls = built.balls.len();
    let start = built.sim.step(scene.dt).unwrap().stats.kinetic_energy;
    let mut flat = Flat::new(steps);
    let (mut collisions, mut worst) = (0, 0.0f64);
    for step in 1..steps {
        let stats = built.sim.step(scene.dt).unwrap().stats;
        collisions += stats.collisions;
        let drift = (stats.kinetic_energy - start).abs() / start;
        assert!(drift <= 1e-9, "step {step}: energy drift {drift:e}");
        worst = worst.max(drift);
        assert_eq!(stats.escaped, 0, "step {step}");
        assert_eq!(stats.events_cap_hits, 0, "step {step}");
        flat.observe(step);
    }
    flat.check("gas_10k");
    let positions = built.sim.world.query::<&Position>().iter().count();
    assert_eq!(positions, balls);
    println!(
        "gas_10k: {steps} steps, {collisions} collisions, largest energy drift {worst:.2e}, \
         memory flat"
    );
}

#[test]
#[ignore = "minutes in a release build; .ci/run runs it with a budget"]
fn the_settled_pile_stays_still_for_many_steps() {
    let _alone = alone();
    let steps = soak_steps();
    let scene = load("resting_pile");
    let mut built = scene.build();
    let balls = built.balls.len();
    let mut settled = None;
    for step in 0..5_000 {
        let stats = built.sim.step(scene.dt).unwrap().stats;
        if stats.sleeping == balls as u64 {
            settled = Some(step);
            break;
        }
    }
    let settled = settled.expect("the pile falls asleep within 5,000 steps");
    let positions = |sim: &toibox::Simulation| -> Vec<Vec3> {
        sim.world.query::<&Position>().iter().map(|p| p.0).collect()
    };
    let still = positions(&built.sim);
    let mut flat = Flat::new(steps);
    for step in 0..steps {
        let stats = built.sim.step(scene.dt).unwrap().stats;
        assert_eq!(stats.sleeping, balls as u64, "step {step}: all asleep");
        assert_eq!(stats.collisions, 0, "step {step}");
        assert_eq!(stats.escaped, 0, "step {step}");
        flat.observe(step);
    }
    assert_eq!(positions(&built.sim), still, "no ball moved");
    flat.check("resting_pile");
    println!("resting_pile: asleep at step {settled}, then {steps} steps without a move");
}
