//! Stepping elastic gases of 1,000, 10,000 and 100,000 balls: 5% volume fraction, speed 5,
//! dt 1/60, no gravity, restitution 1, in a box of six planes.
//!
//! Prints criterion's time per step and, once per size, the collisions per step and the cost
//! per collision. The cost of a step should grow with balls plus collisions: the 100,000-ball
//! step about 10 times the 10,000-ball one, not 100.

use std::time::Instant;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use toibox::scene::{gas_box_side, lattice};
use toibox::{Plane, StepConfig, Stepper, Vec3};

const RADIUS: f64 = 0.05;
const DT: f64 = 1.0 / 60.0;

/// The gas of the benchmarks, warmed up for a few steps so that it is mixed.
fn gas(count: u64) -> (hecs::World, Stepper) {
    let half = gas_box_side(count, RADIUS, 0.05) / 2.0;
    let mut world = hecs::World::new();
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        world.spawn((Plane::new(-axis * half, axis).unwrap(),));
        world.spawn((Plane::new(axis * half, -axis).unwrap(),));
    }
    for ball in lattice(-Vec3::splat(half), Vec3::splat(half), count, RADIUS, 5.0, 7).unwrap() {
        ball.spawn(&mut world);
    }
    let mut stepper = Stepper::new(StepConfig {
        gravity: Vec3::ZERO,
        ..StepConfig::default()
    });
    for _ in 0..10 {
        stepper.step(&mut world, DT).unwrap();
    }
    (world, stepper)
}

fn step_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("gas_step");
    group.sample_size(10);
    for count in [1_000u64, 10_000, 100_000] {
        let (mut world, mut stepper) = gas(count);
        // Collisions per step and cost per collision, over a short run
        let (steps, clock) = (20, Instant::now());
        let mut collisions = 0;
        for _ in 0..steps {
            collisions += stepper.step(&mut world, DT).unwrap().stats.collisions;
        }
        let per_step = clock.elapsed().as_secs_f64() / steps as f64;
        println!(
            "gas {count}: {:.3} ms/step, {:.0} collisions/step, {:.0} ns/collision",
            per_step * 1e3,
            collisions as f64 / steps as f64,
            per_step * 1e9 * steps as f64 / collisions.max(1) as f64
        );
        group.bench_with_input(BenchmarkId::from_parameter(count), &count, |b, _| {
            b.iter(|| stepper.step(&mut world, DT).unwrap().stats.collisions)
        });
    }
    group.finish();
}

criterion_group!(benches, step_scaling);
criterion_main!(benches);
