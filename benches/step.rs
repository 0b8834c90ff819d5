//! Stepping elastic gases of 1,000, 10,000 and 100,000 balls: 5% volume fraction, speed 5,
//! dt 1/60, no gravity, restitution 1, in a box of six planes: the scenes `scenes/gas_1k.ron`,
//! `gas_10k.ron` and `gas_100k.ron`.
//!
//! Before criterion's groups, prints one table for the three gases, each loaded, built and
//! stepped once: the collisions per step, the cost per collision (wall time of stepping over
//! collisions resolved) and collisions per second, and the heap per ball. The cost of a step
//! should grow with balls plus collisions: the targets are a cost per collision at 100,000 balls
//! at most twice that at 10,000, and a peak heap under 600 bytes per ball from loading through
//! stepping. The heap is counted by this bench's global allocator, in bytes asked for (not the
//! allocator's overhead nor resident memory); its counters cost every benchmark here a little.
//! Then criterion's time per step of each gas.
//!
//! Also a settled pile of 300 balls (`scenes/resting_pile.ron`), stepped asleep and with
//! sleeping off: what sleeping saves.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group};
use toibox::Stepper;
use toibox::scene::Scene;

#[path = "../tests/common/counting.rs"]
mod counting;

use counting::Counting;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Steps each gas takes before it is timed, so that it has left its lattice and is mixed.
const WARM_UP: usize = 10;

/// The gases of the report and criterion's group: ball count, name, timed steps of the report.
const GASES: [(u64, &str, usize); 3] = [
    (1_000, "1k", 200),
    (10_000, "10k", 40),
    (100_000, "100k", 8),
];

/// The path of `scenes/gas_{name}.ron`.
fn gas_path(name: &str) -> String {
    format!("{}/../scenes/gas_{name}.ron", env!("CARGO_MANIFEST_DIR"))
}

/// What one gas cost: stepping time and collisions, and heap bytes above the level before it
/// was loaded.
struct GasReport {
    balls: u64,
    steps: usize,
    stepping: Duration,
    collisions: u64,
    /// Live once built (the scene dropped), before the first step.
    built: usize,
    /// The most live from loading through the last step.
    peak: usize,
    /// The most live while stepping, above `built`.
    step_peak: usize,
}

impl GasReport {
    fn ns_per_collision(&self) -> f64 {
        self.stepping.as_secs_f64() * 1e9 / self.collisions.max(1) as f64
    }

    fn per_ball(&self, bytes: usize) -> f64 {
        bytes as f64 / self.balls as f64
    }
}

/// Load and build the gas of `scenes/gas_{name}.ron`, step it `WARM_UP` steps and then `steps`
/// timed ones, and count its time, collisions and heap.
fn measure_gas(name: &str, steps: usize) -> GasReport {
    let before = Counting::reset_peak();
    let scene = Scene::load(gas_path(name)).unwrap_or_else(|e| panic!("{e}"));
    let (balls, dt) = (scene.balls.len() as u64, scene.dt);
    let mut sim = scene.build().sim;
    drop(scene);
    let built = Counting::current().saturating_sub(before);
    // Stepping's peak counts from the built level; the whole run's is the larger one
    let load_peak = Counting::peak();
    let built_level = Counting::reset_peak();
    for _ in 0..WARM_UP {
        sim.step(dt).unwrap();
    }
    let (mut stepping, mut collisions) = (Duration::ZERO, 0);
    for _ in 0..steps {
        let clock = Instant::now();
        let report = sim.step(dt).unwrap();
        stepping += clock.elapsed();
        collisions += report.stats.collisions;
    }
    let step_peak = Counting::peak();
    drop(sim);
    GasReport {
        balls,
        steps,
        stepping,
        collisions,
        built,
        peak: load_peak.max(step_peak).saturating_sub(before),
        step_peak: step_peak.saturating_sub(built_level),
    }
}

/// Print the table of cost per collision and heap per ball, and the ratios to the targets.
fn gas_report() {
    let reports: Vec<(&str, GasReport)> = GASES
        .iter()
        .map(|&(_, name, steps)| (name, measure_gas(name, steps)))
        .collect();
    println!(
        "\ngas report: {WARM_UP} warm-up steps, then the timed ones; heap in bytes asked for, per ball"
    );
    println!(
        "{:<9} {:>7} {:>6} {:>9} {:>10} {:>8} {:>10} {:>8} {:>8} {:>10}",
        "scene",
        "balls",
        "steps",
        "ms/step",
        "coll/step",
        "ns/coll",
        "coll/s",
        "built",
        "peak",
        "step peak"
    );
    for (name, r) in &reports {
        let seconds = r.stepping.as_secs_f64();
        println!(
            "{:<9} {:>7} {:>6} {:>9.3} {:>10.1} {:>8.1} {:>10.3e} {:>8.0} {:>8.0} {:>10.0}",
            format!("gas_{name}"),
            r.balls,
            r.steps,
            seconds * 1e3 / r.steps as f64,
            r.collisions as f64 / r.steps as f64,
            r.ns_per_collision(),
            r.collisions as f64 / seconds,
            r.per_ball(r.built),
            r.per_ball(r.peak),
            r.per_ball(r.step_peak),
        );
    }
    let find = |wanted: &str| {
        reports
            .iter()
            .find(|(name, _)| *name == wanted)
            .map(|(_, r)| r)
    };
    if let (Some(small), Some(large)) = (find("10k"), find("100k")) {
        println!(
            "cost per collision, gas_100k / gas_10k: {:.2} (target <= 1.5)",
            large.ns_per_collision() / small.ns_per_collision()
        );
    }
    let peaks: Vec<String> = reports
        .iter()
        .map(|(name, r)| format!("gas_{name} {:.0}", r.per_ball(r.peak)))
        .collect();
    println!(
        "peak heap per ball, loading through stepping: {} (target < 600)\n",
        peaks.join(", ")
    );
}

/// The gas of `scenes/gas_{name}.ron`, warmed up for a few steps so that it is mixed: its world,
/// a stepper configured as the scene says, and its dt.
fn gas(name: &str) -> (toibox::hecs::World, Stepper, f64) {
    let scene = Scene::load(gas_path(name)).unwrap_or_else(|e| panic!("{e}"));
    let mut built = scene.build();
    for _ in 0..WARM_UP {
        built.sim.step(scene.dt).unwrap();
    }
    (built.sim.world, built.sim.stepper, scene.dt)
}

fn step_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("gas_step");
    group.sample_size(10);
    for (count, name, _) in GASES {
        let (mut world, mut stepper, dt) = gas(name);
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
    let path = format!("{}/../scenes/resting_pile.ron", env!("CARGO_MANIFEST_DIR"));
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

// criterion_main!, with the report first; none when criterion only lists the benchmarks
fn main() {
    if !std::env::args().any(|arg| arg == "--list") {
        gas_report();
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
