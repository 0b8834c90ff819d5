//! Stepping elastic gases of 1,000, 10,000 and 100,000 balls: 5% volume fraction, speed 5,
//! dt 1/60, no gravity, restitution 1, in a box of six planes: the scenes `scenes/gas_1k.ron`,
//! `gas_10k.ron` and `gas_100k.ron`.
//!
//! Prints criterion's time per step and, once per size, the collisions per step and the cost
//! per collision. The cost of a step should grow with balls plus collisions: the 100,000-ball
//! step about 10 times the 10,000-ball one, not 100.
//!
//! Also a settled pile of 300 balls (`scenes/resting_pile.ron`), stepped asleep and with
//! sleeping off: what sleeping saves.

use std::time::Instant;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toibox::Stepper;
use toibox::scene::Scene;

/// The gas of `scenes/gas_{name}.ron`, warmed up for a few steps so that it is mixed: its world,
/// a stepper configured as the scene says, and its dt.
fn gas(name: &str) -> (hecs::World, Stepper, f64) {
    let path = format!("{}/scenes/gas_{name}.ron", env!("CARGO_MANIFEST_DIR"));
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut built = scene.build();
    for _ in 0..10 {
        built.sim.step(scene.dt).unwrap();
    }
    (built.sim.world, built.sim.stepper, scene.dt)
}

fn step_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("gas_step");
    group.sample_size(10);
    for (count, name) in [(1_000u64, "1k"), (10_000, "10k"), (100_000, "100k")] {
        let (mut world, mut stepper, dt) = gas(name);
        // Collisions per step and cost per collision, over a short run
        let (steps, clock) = (20, Instant::now());
        let mut collisions = 0;
        for _ in 0..steps {
            collisions += stepper.step(&mut world, dt).unwrap().stats.collisions;
        }
        let per_step = clock.elapsed().as_secs_f64() / steps as f64;
        println!(
            "gas {count}: {:.3} ms/step, {:.0} collisions/step, {:.0} ns/collision",
            per_step * 1e3,
            collisions as f64 / steps as f64,
            per_step * 1e9 * steps as f64 / collisions.max(1) as f64
        );
        group.bench_with_input(BenchmarkId::from_parameter(count), &count, |b, _| {
            b.iter(|| stepper.step(&mut world, dt).unwrap().stats.collisions)
        });
    }
    group.finish();
}

/// A settled pile: `scenes/resting_pile.ron` stepped until every ball sleeps, then stepped
/// asleep, and with sleeping switched off (every ball awake, resting contacts resolved anew
/// each step).
fn resting_pile(c: &mut Criterion) {
    let path = format!("{}/scenes/resting_pile.ron", env!("CARGO_MANIFEST_DIR"));
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let count = scene.balls.len() as u64;
    let mut built = scene.build();
    let mut settled_at = None;
    for step in 1..=scene.steps {
        if built.sim.step(scene.dt).unwrap().stats.sleeping == count {
            settled_at = Some(step);
            break;
        }
    }
    let settled_at = settled_at.expect("the pile falls asleep");
    println!("resting_pile: {count} balls asleep after {settled_at} steps");
    let mut group = c.benchmark_group("resting_pile_step");
    group.sample_size(20);
    let (mut world, mut stepper, dt) = (built.sim.world, built.sim.stepper, scene.dt);
    group.bench_function("asleep", |b| {
        b.iter(|| stepper.step(&mut world, dt).unwrap().stats.collisions)
    });
    stepper.config.sleep = None;
    group.bench_function("awake", |b| {
        b.iter(|| stepper.step(&mut world, dt).unwrap().stats.collisions)
    });
    group.finish();
}

criterion_group!(benches, step_scaling, resting_pile);
criterion_main!(benches);
