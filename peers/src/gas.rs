//! The elastic gas of `scenes/gas_*.ron` in toibox and in rapier3d.
//!
//! Every engine starts from the same state, toibox's own: `count` balls of radius 0.05 and
//! density 1 on the scene generator's lattice (seed 7), moving at `speed` in random directions,
//! in a cube that they fill to 5% of its volume; no gravity, restitution 1, no friction, dt 1/60.
//! toibox bounds the cube with six inward-facing planes; rapier with six fixed cuboids whose
//! inner faces are the cube's faces.
//!
//! Each engine runs in a child process of its own (the hidden `engine` command), so that its
//! peak memory is its own and engines do not warm each other's caches or allocators.

use std::fmt;
use std::time::{Duration, Instant};

use rapier3d_f64::prelude::{
    CoefficientCombineRule, ColliderBuilder, IntegrationParameters, PhysicsWorld, RigidBodyBuilder,
    RigidBodyHandle,
};
use serde::{Deserialize, Serialize};
use toibox::scene::{Scene, gas_box_side};
use toibox::{Position, ToiMode, Vec3};

use crate::child;
use crate::memory::Memory;
use crate::table::Table;

/// Radius of every ball.
pub const RADIUS: f64 = 0.05;
/// Share of the box's volume the balls fill.
pub const VOLUME_FRACTION: f64 = 0.05;
/// Seed of the lattice's velocity directions, as in `scenes/gas_*.ron`.
pub const SEED: u64 = 7;
/// Time per step.
pub const DT: f64 = 1.0 / 60.0;
/// Slices of the sliced strategy run for reference.
pub const SLICES: u32 = 150;

/// One engine, or one configuration of one, that steps the gas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// toibox with the analytic (exact) time of impact: the reference of the ratios.
    Toibox,
    /// toibox with NeHe's sliced search, 150 slices per step.
    ToiboxSliced,
    /// rapier3d with its default integration parameters, without continuous collision detection.
    Rapier,
    /// rapier3d with its default integration parameters and CCD on every ball.
    RapierCcd,
}

impl Engine {
    /// Return the name the command line uses (`--engines`, the hidden `engine` command).
    pub fn cli_name(self) -> &'static str {
        match self {
            Self::Toibox => "toibox",
            Self::ToiboxSliced => "toibox-sliced",
            Self::Rapier => "rapier",
            Self::RapierCcd => "rapier-ccd",
        }
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Toibox => write!(f, "toibox analytic"),
            Self::ToiboxSliced => write!(f, "toibox sliced:{SLICES}"),
            Self::Rapier => write!(f, "rapier"),
            Self::RapierCcd => write!(f, "rapier + ccd"),
        }
    }
}

/// What to run: the gas's size and speed, and how many steps.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GasConfig {
    /// Balls in the box.
    pub balls: u64,
    /// Steps measured.
    pub steps: u64,
    /// Speed of every ball at the start.
    pub speed: f64,
}

impl GasConfig {
    /// Return the side of the cube.
    pub fn box_side(&self) -> f64 {
        gas_box_side(self.balls, RADIUS, VOLUME_FRACTION)
    }

    /// Return the gas as a toibox scene: the text of `scenes/gas_1k.ron` for 1,000 balls at
    /// speed 5, with the count, box and speed of this configuration.
    pub fn scene(&self) -> Result<Scene, String> {
        let half = self.box_side() / 2.0;
        let planes: Vec<String> = (0..3)
            .flat_map(|axis| {
                [-1.0f64, 1.0].map(|sign| {
                    let mut point = [0.0; 3];
                    let mut normal = [0.0; 3];
                    point[axis] = sign * half;
                    normal[axis] = -sign;
                    format!(
                        "(point: ({:?}, {:?}, {:?}), normal: ({:?}, {:?}, {:?})),",
                        point[0], point[1], point[2], normal[0], normal[1], normal[2]
                    )
                })
            })
            .collect();
        let text = format!(
            "Scene(\n    name: \"Elastic gas, {balls} balls\",\n    dt: {DT:?},\n    \
             gravity: (0.0, 0.0, 0.0),\n    toi: Analytic,\n    restitution: 1.0,\n    \
             generators: [Lattice(min: ({m:?}, {m:?}, {m:?}), max: ({half:?}, {half:?}, \
             {half:?}), count: {balls}, radius: {RADIUS:?}, speed: {speed:?}, seed: {SEED})],\n    \
             planes: [\n        {planes}\n    ],\n)\n",
            balls = self.balls,
            m = -half,
            speed = self.speed,
            planes = planes.join("\n        "),
        );
        Scene::parse(&text, "the gas").map_err(|e| e.to_string())
    }
}

/// The figures of one engine on one gas.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineResult {
    /// The engine's command-line name.
    pub engine: Engine,
    /// The engine as the table names it.
    pub label: String,
    /// Balls in the box.
    pub balls: u64,
    /// Steps measured.
    pub steps: u64,
    /// Median wall-clock milliseconds of one step.
    pub ms_per_step: f64,
    /// Mean wall-clock milliseconds of one step.
    pub ms_per_step_mean: f64,
    /// Wall-clock milliseconds of all the steps together.
    pub wall_ms: f64,
    /// `ms_per_step` over toibox analytic's (filled in when both ran).
    pub ratio: Option<f64>,
    /// Collisions resolved over the run (toibox only: rapier resolves contacts, not events).
    pub collisions: Option<u64>,
    /// Collisions per second of wall-clock stepping time (toibox only).
    pub collisions_per_second: Option<f64>,
    /// Kinetic energy at the start, `Σ ½ m v²` (plus rotation for rapier).
    pub energy_start: f64,
    /// Kinetic energy at the end.
    pub energy_end: f64,
    /// `energy_end / energy_start`.
    pub energy_kept: f64,
    /// Balls whose centre is outside the box at the end.
    pub outside: u64,
    /// Peak resident memory of the engine's process, in bytes (`VmHWM`), where the system
    /// reports it.
    pub peak_bytes: Option<u64>,
    /// Peak resident memory less the resident memory before the world was built, per ball.
    pub bytes_per_ball: Option<f64>,
}

/// Step times and end state, common to every engine.
struct Measured {
    times: Vec<Duration>,
    collisions: Option<u64>,
    energy_start: f64,
    energy_end: f64,
    positions: Vec<Vec3>,
}

/// Run one engine in this process and return its figures. Used by the hidden `engine` command,
/// in a child process per engine.
pub fn run_engine(engine: Engine, config: &GasConfig) -> Result<EngineResult, String> {
    let scene = config.scene()?;
    let before = Memory::read();
    let measured = match engine {
        Engine::Toibox => step_toibox(&scene, ToiMode::Analytic, config.steps)?,
        Engine::ToiboxSliced => {
            step_toibox(&scene, ToiMode::Sliced { slices: SLICES }, config.steps)?
        }
        Engine::Rapier => step_rapier(&scene, config, false),
        Engine::RapierCcd => step_rapier(&scene, config, true),
    };
    let after = Memory::read();
    let half = config.box_side() / 2.0;
    let outside = measured
        .positions
        .iter()
        .filter(|p| p.abs().max_element() > half)
        .count() as u64;
    let mut sorted = measured.times.clone();
    sorted.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => ms(sorted[n / 2]),
        n => (ms(sorted[n / 2 - 1]) + ms(sorted[n / 2])) / 2.0,
    };
    let wall: Duration = measured.times.iter().sum();
    let peak_bytes = after.and_then(|m| m.peak_bytes);
    let bytes_per_ball = match (peak_bytes, before.map(|m| m.resident_bytes)) {
        (Some(peak), Some(base)) => Some(peak.saturating_sub(base) as f64 / config.balls as f64),
        _ => None,
    };
    Ok(EngineResult {
        engine,
        label: engine.to_string(),
        balls: config.balls,
        steps: config.steps,
        ms_per_step: median,
        ms_per_step_mean: ms(wall) / config.steps.max(1) as f64,
        wall_ms: ms(wall),
        ratio: None,
        collisions: measured.collisions,
        collisions_per_second: measured
            .collisions
            .map(|c| c as f64 / wall.as_secs_f64().max(f64::MIN_POSITIVE)),
        energy_start: measured.energy_start,
        energy_end: measured.energy_end,
        energy_kept: measured.energy_end / measured.energy_start,
        outside,
        peak_bytes,
        bytes_per_ball,
    })
}

/// Step the gas in toibox with `strategy`, timing every step.
fn step_toibox(scene: &Scene, strategy: ToiMode, steps: u64) -> Result<Measured, String> {
    let mut built = scene.build();
    built.sim.stepper.config.strategy = strategy;
    let energy_start = toibox::sim::kinetic_energy(&built.sim.world);
    let mut times = Vec::with_capacity(steps as usize);
    let mut collisions = 0;
    for _ in 0..steps {
        let clock = Instant::now();
        let report = built.sim.step(scene.dt).map_err(|e| format!("{e:?}"))?;
        times.push(clock.elapsed());
        collisions += report.stats.collisions;
    }
    let world = &built.sim.world;
    let positions = built
        .balls
        .iter()
        .map(|&ball| world.get::<&Position>(ball).map(|p| p.0))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok(Measured {
        times,
        collisions: Some(collisions),
        energy_start,
        energy_end: toibox::sim::kinetic_energy(world),
        positions,
    })
}

/// Return toibox's vector as rapier's (a newer glam).
fn to_rapier(v: Vec3) -> rapier3d_f64::math::Vector {
    rapier3d_f64::math::Vector::new(v.x, v.y, v.z)
}

/// Step the gas in rapier, with CCD on every ball or on none, timing every step.
///
/// The integration parameters are rapier's defaults (with dt 1/60, its default). Balls are ball
/// colliders of density 1, restitution 1 combined by `Max`, friction 0; the walls are six
/// cuboids on one fixed body, their inner faces on the cube's faces, each at least as thick as
/// half the box and as two steps of travel.
fn step_rapier(scene: &Scene, config: &GasConfig, ccd: bool) -> Measured {
    let mut world = PhysicsWorld {
        gravity: rapier3d_f64::math::Vector::ZERO,
        integration_parameters: IntegrationParameters {
            dt: scene.dt,
            ..IntegrationParameters::default()
        },
        ..PhysicsWorld::default()
    };
    let half = config.box_side() / 2.0;
    let thickness = half.max(2.0 * config.speed * scene.dt);
    let walls = world.insert_body(RigidBodyBuilder::fixed());
    for axis in 0..3 {
        for sign in [-1.0, 1.0] {
            let mut extents = rapier3d_f64::math::Vector::splat(half + 2.0 * thickness);
            extents[axis] = thickness / 2.0;
            let mut center = rapier3d_f64::math::Vector::ZERO;
            center[axis] = sign * (half + thickness / 2.0);
            let wall = ColliderBuilder::cuboid(extents.x, extents.y, extents.z)
                .translation(center)
                .restitution(1.0)
                .restitution_combine_rule(CoefficientCombineRule::Max)
                .friction(0.0);
            world.insert_collider(wall, Some(walls));
        }
    }
    let balls: Vec<RigidBodyHandle> = scene
        .balls
        .iter()
        .map(|ball| {
            let body = RigidBodyBuilder::dynamic()
                .translation(to_rapier(ball.position))
                .linvel(to_rapier(ball.velocity))
                .ccd_enabled(ccd);
            let collider = ColliderBuilder::ball(ball.radius)
                .density(1.0)
                .restitution(1.0)
                .restitution_combine_rule(CoefficientCombineRule::Max)
                .friction(0.0);
            world.insert(body, collider).0
        })
        .collect();
    let energy = |world: &PhysicsWorld| -> f64 {
        balls
            .iter()
            .map(|&b| world.bodies[b].kinetic_energy())
            .sum()
    };
    let energy_start = energy(&world);
    let mut times = Vec::with_capacity(config.steps as usize);
    for _ in 0..config.steps {
        let clock = Instant::now();
        world.step();
        times.push(clock.elapsed());
    }
    let positions = balls
        .iter()
        .map(|&b| {
            let p = world.bodies[b].translation();
            Vec3::new(p.x, p.y, p.z)
        })
        .collect();
    Measured {
        times,
        collisions: None,
        energy_start,
        energy_end: energy(&world),
        positions,
    }
}

/// Run each engine in a child process of this program, `rounds` times in turn, and collect
/// each engine's figures from its fastest round (by median step time), with the ratios against
/// toibox analytic when it ran.
pub fn run_all(
    engines: &[Engine],
    config: &GasConfig,
    rounds: u32,
    quiet: bool,
) -> Result<Vec<EngineResult>, String> {
    let mut results: Vec<EngineResult> = Vec::new();
    for round in 1..=rounds {
        for &engine in engines {
            if !quiet {
                eprintln!(
                    "running {engine}: {} balls, {} steps, round {round} of {rounds}",
                    config.balls, config.steps
                );
            }
            let result = run_child(engine, config)?;
            match results.iter_mut().find(|r| r.engine == engine) {
                Some(best) if best.ms_per_step <= result.ms_per_step => {}
                Some(best) => *best = result,
                None => results.push(result),
            }
        }
    }
    let reference = results
        .iter()
        .find(|r| r.engine == Engine::Toibox)
        .map(|r| r.ms_per_step);
    for result in &mut results {
        result.ratio = reference.map(|ms| result.ms_per_step / ms);
    }
    Ok(results)
}

/// Run one engine in a child process of this program and read its figures.
fn run_child(engine: Engine, config: &GasConfig) -> Result<EngineResult, String> {
    let args = [
        "engine".to_owned(),
        engine.cli_name().to_owned(),
        "--balls".to_owned(),
        config.balls.to_string(),
        "--steps".to_owned(),
        config.steps.to_string(),
        "--speed".to_owned(),
        config.speed.to_string(),
    ];
    child::run(&engine.to_string(), &args)
}

/// Return the figures as an aligned table.
pub fn table(results: &[EngineResult]) -> String {
    let mut table = Table::new([
        "engine",
        "ms/step",
        "x toibox",
        "collisions/s",
        "energy kept",
        "outside",
        "peak MB",
        "B/ball",
    ]);
    let dash = || "-".to_owned();
    for r in results {
        table.row(vec![
            r.label.clone(),
            format!("{:.3}", r.ms_per_step),
            r.ratio.map_or_else(dash, |x| format!("{x:.2}")),
            r.collisions_per_second
                .map_or_else(dash, |c| format!("{c:.0}")),
            format!("{:.6}", r.energy_kept),
            r.outside.to_string(),
            r.peak_bytes
                .map_or_else(dash, |b| format!("{:.1}", b as f64 / 1e6)),
            r.bytes_per_ball.map_or_else(dash, |b| format!("{b:.0}")),
        ]);
    }
    table.render()
}

/// The whole `gas --json` answer.
#[derive(Clone, Debug, Serialize)]
pub struct GasReport {
    /// Always `"gas"`.
    pub command: &'static str,
    /// Balls in the box.
    pub balls: u64,
    /// Steps measured.
    pub steps: u64,
    /// Times each engine ran; its figures are from its fastest round.
    pub rounds: u32,
    /// Speed of every ball at the start.
    pub speed: f64,
    /// Time per step.
    pub dt: f64,
    /// Radius of every ball.
    pub radius: f64,
    /// Share of the box's volume the balls fill.
    pub volume_fraction: f64,
    /// Side of the cube.
    pub box_side: f64,
    /// Seed of the velocity directions.
    pub seed: u64,
    /// One entry per engine, in the order run.
    pub engines: Vec<EngineResult>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gas_is_the_demo_scene() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes/gas_1k.ron");
        let demo = Scene::load(path).unwrap();
        let config = GasConfig {
            balls: 1000,
            steps: 1,
            speed: 5.0,
        };
        let ours = config.scene().unwrap();
        assert_eq!(ours.balls, demo.balls);
        assert_eq!(ours.planes, demo.planes);
        assert_eq!(ours.dt, demo.dt);
        assert_eq!(ours.gravity, demo.gravity);
    }

    #[test]
    fn every_engine_keeps_a_small_gas_in_its_box() {
        let config = GasConfig {
            balls: 64,
            steps: 10,
            speed: 5.0,
        };
        for engine in [
            Engine::Toibox,
            Engine::ToiboxSliced,
            Engine::Rapier,
            Engine::RapierCcd,
        ] {
            let result = run_engine(engine, &config).unwrap();
            assert_eq!(result.outside, 0, "{engine}");
            assert!(
                result.energy_kept > 0.0 && result.energy_kept < 1.5,
                "{engine}"
            );
        }
    }
}
