//! A pile: balls dropped into an open box until they rest, in toibox and in rapier3d.
//!
//! Every engine starts from the same state, toibox's own: `count` balls of radius 0.05 and
//! density 1 placed by the scene format's lattice generator, each moving at 0.05 in a random
//! direction (seed 7). The generator's box ([`PileConfig::lattice_box`]) is 0.98 wide, room for
//! 9 sites 0.11 apart along x and z, starts 0.01 above the floor, and is as tall as the layers
//! of 81 balls the count needs would be, 0.11 apart; the generator spaces the sites itself. For
//! 2,000 balls it makes 9 x 27 x 9 sites, 0.11 apart along x and z and 0.1015 upwards, and fills
//! them x first, then y, then z: 8 whole slabs along z and the lowest rows of the ninth.
//!
//! The box has half-size 0.5 and no lid: a floor plane at y = -0.5 and four walls at x = ±0.5
//! and z = ±0.5, all facing inwards. Gravity (0, -9.81, 0), restitution 0.5 everywhere, no
//! friction, dt 1/60.
//!
//! toibox steps the scene as loaded (analytic time of impact, its default step configuration,
//! sleeping on). rapier steps it with its default integration parameters and its own sleeping;
//! the floor and walls are five half-spaces on one fixed body (the same planes as toibox's), and
//! restitution 0.5 and friction 0 on every collider, combined by `Min` as toibox combines
//! restitution, so every pair has restitution 0.5 and friction 0.
//!
//! Both engines are judged the same way, from their balls' centres and velocities:
//!
//! - a ball is *at rest* when its speed is at most [`REST_SPEED`]; the pile rests from the
//!   first step after which every ball is at rest after every step to the end of the run;
//! - a ball is *outside* when its centre is below the floor or beyond a wall;
//! - the *overlap* of two balls is how far their surfaces interpenetrate (the sum of the radii
//!   less the distance of the centres), of a ball and the floor or a wall how far the ball
//!   reaches behind it; [`max_overlap`] finds the deepest at the end of the run on a grid.
//!
//! Each engine runs in a child process of its own (the hidden `pile-engine` command), as in
//! [`gas`](crate::gas).

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use rapier3d_f64::prelude::{
    CoefficientCombineRule, ColliderBuilder, IntegrationParameters, PhysicsWorld, RigidBodyBuilder,
    RigidBodyHandle, SharedShape,
};
use serde::{Deserialize, Serialize};
use toibox::scene::Scene;
use toibox::{Position, Vec3, Velocity};

use crate::child;
use crate::memory::Memory;
use crate::table::Table;

/// Radius of every ball.
pub const RADIUS: f64 = 0.05;
/// Half the side of the box: the floor is at `y = -HALF`, the walls at `x, z = ±HALF`.
pub const HALF: f64 = 0.5;
/// Lattice sites the generator's box has room for along x and along z.
pub const PER_ROW: u64 = 9;
/// Distance of those sites, and of the layers the box is made tall enough for; the generator
/// spaces the layers itself, a little over a diameter apart.
pub const SPACING: f64 = 0.11;
/// Gap between the generator's box, and so the lowest balls, and the floor at the start.
pub const FLOOR_GAP: f64 = 0.01;
/// Speed of every ball at the start, in a random direction.
pub const SPEED: f64 = 0.05;
/// Seed of the velocity directions.
pub const SEED: u64 = 7;
/// Restitution of every ball, of the floor and of the walls.
pub const RESTITUTION: f64 = 0.5;
/// Acceleration of every ball, along y.
pub const GRAVITY: f64 = -9.81;
/// Time per step.
pub const DT: f64 = 1.0 / 60.0;
/// Largest speed of a ball at rest, in length units per time unit.
pub const REST_SPEED: f64 = 0.01;

/// One engine that steps the pile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PileEngine {
    /// toibox with the analytic (exact) time of impact and its default step configuration.
    Toibox,
    /// rapier3d with its default integration parameters.
    Rapier,
}

impl PileEngine {
    /// Return the name the command line uses (`--engines`, the hidden `pile-engine` command).
    pub fn cli_name(self) -> &'static str {
        match self {
            Self::Toibox => "toibox",
            Self::Rapier => "rapier",
        }
    }
}

impl fmt::Display for PileEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Toibox => write!(f, "toibox analytic"),
            Self::Rapier => write!(f, "rapier"),
        }
    }
}

/// What to run: how many balls, and how many steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PileConfig {
    /// Balls dropped into the box.
    pub balls: u64,
    /// Steps measured.
    pub steps: u64,
}

impl PileConfig {
    /// Return the corners of the generator's box: as wide as `PER_ROW` balls `SPACING` apart,
    /// centred over the floor, `FLOOR_GAP` above it, as tall as the layers of `PER_ROW²` balls
    /// the count needs, `SPACING` apart.
    pub fn lattice_box(&self) -> (Vec3, Vec3) {
        let across = (PER_ROW - 1) as f64 * SPACING / 2.0 + RADIUS;
        let layers = self.balls.div_ceil(PER_ROW * PER_ROW).max(1);
        let bottom = -HALF + FLOOR_GAP;
        let height = 2.0 * RADIUS + (layers - 1) as f64 * SPACING;
        let mut top = bottom + height;
        // Rounding may leave the box a hair short of its height, too thin for the generator
        while top - bottom < height {
            top = top.next_up();
        }
        (
            Vec3::new(-across, bottom, -across),
            Vec3::new(across, top, across),
        )
    }

    /// Return the pile as a toibox scene: one lattice generator, a floor and four walls.
    pub fn scene(&self) -> Result<Scene, String> {
        let (min, max) = self.lattice_box();
        let v = |v: Vec3| format!("({:?}, {:?}, {:?})", v.x, v.y, v.z);
        let planes: Vec<String> = [
            (Vec3::new(0.0, -HALF, 0.0), Vec3::Y),
            (Vec3::new(-HALF, 0.0, 0.0), Vec3::X),
            (Vec3::new(HALF, 0.0, 0.0), Vec3::NEG_X),
            (Vec3::new(0.0, 0.0, -HALF), Vec3::Z),
            (Vec3::new(0.0, 0.0, HALF), Vec3::NEG_Z),
        ]
        .into_iter()
        .map(|(point, normal)| format!("(point: {}, normal: {}),", v(point), v(normal)))
        .collect();
        let text = format!(
            "Scene(\n    name: \"Pile, {balls} balls\",\n    dt: {DT:?},\n    \
             gravity: (0.0, {GRAVITY:?}, 0.0),\n    toi: Analytic,\n    \
             restitution: {RESTITUTION:?},\n    generators: [Lattice(min: {min}, max: {max}, \
             count: {balls}, radius: {RADIUS:?}, speed: {SPEED:?}, seed: {SEED})],\n    \
             planes: [\n        {planes}\n    ],\n)\n",
            balls = self.balls,
            min = v(min),
            max = v(max),
            planes = planes.join("\n        "),
        );
        Scene::parse(&text, "the pile").map_err(|e| e.to_string())
    }
}

/// The figures of one engine on one pile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PileResult {
    /// The engine's command-line name.
    pub engine: PileEngine,
    /// The engine as the table names it.
    pub label: String,
    /// Balls dropped.
    pub balls: u64,
    /// Steps measured.
    pub steps: u64,
    /// Mean wall-clock milliseconds of one step over the run.
    pub ms_per_step: f64,
    /// Median wall-clock milliseconds of one step.
    pub ms_per_step_median: f64,
    /// Wall-clock milliseconds of all the steps together.
    pub wall_ms: f64,
    /// `ms_per_step` over toibox's (filled in when both ran).
    pub ratio: Option<f64>,
    /// The first step (counted from 1; 0 is the start) after which every ball was at rest
    /// (speed at most [`REST_SPEED`]) after every step to the end of the run; `None` if some
    /// ball still moved after the last step.
    pub rest_step: Option<u64>,
    /// `rest_step` in simulated time units.
    pub rest_time: Option<f64>,
    /// Largest speed of a ball at the end.
    pub max_speed: f64,
    /// Balls faster than [`REST_SPEED`] at the end.
    pub moving: u64,
    /// Balls asleep at the end, by the engine's own sleeping.
    pub asleep: u64,
    /// Balls whose centre ended outside the box: below the floor or beyond a wall.
    pub outside: u64,
    /// Deepest overlap at the end between two balls, or a ball and the floor or a wall, in
    /// length units (0 when nothing overlaps).
    pub max_overlap: f64,
    /// Height of the highest ball's top above the floor at the end.
    pub height: f64,
    /// Collisions resolved over the run (toibox only: rapier resolves contacts, not events).
    pub collisions: Option<u64>,
    /// Contacts held after a step's budget of collisions ran out, summed (toibox only).
    pub events_cap_hits: Option<u64>,
    /// Peak resident memory of the engine's process, in bytes (`VmHWM`), where the system
    /// reports it.
    pub peak_bytes: Option<u64>,
    /// Peak resident memory less the resident memory before the world was built, per ball.
    pub bytes_per_ball: Option<f64>,
}

/// Step times, rest and end state, common to both engines.
struct Measured {
    times: Vec<Duration>,
    rest_step: Option<u64>,
    speeds: Vec<f64>,
    asleep: u64,
    collisions: Option<u64>,
    events_cap_hits: Option<u64>,
    positions: Vec<Vec3>,
}

/// The step from which every ball has been at rest, followed step by step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct RestWatch {
    since: Option<u64>,
}

impl RestWatch {
    /// Note the speeds of the balls after `step` (0 for the start).
    fn note(&mut self, step: u64, speeds: &[f64]) {
        if speeds.iter().all(|&v| v <= REST_SPEED) {
            self.since.get_or_insert(step);
        } else {
            self.since = None;
        }
    }
}

/// Run one engine in this process and return its figures. Used by the hidden `pile-engine`
/// command, in a child process per engine.
pub fn run_engine(engine: PileEngine, config: &PileConfig) -> Result<PileResult, String> {
    let scene = config.scene()?;
    let before = Memory::read();
    let measured = match engine {
        PileEngine::Toibox => step_toibox(&scene, config.steps)?,
        PileEngine::Rapier => step_rapier(&scene, config.steps),
    };
    let after = Memory::read();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut sorted = measured.times.clone();
    sorted.sort();
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
    Ok(PileResult {
        engine,
        label: engine.to_string(),
        balls: config.balls,
        steps: config.steps,
        ms_per_step: ms(wall) / config.steps.max(1) as f64,
        ms_per_step_median: median,
        wall_ms: ms(wall),
        ratio: None,
        rest_step: measured.rest_step,
        rest_time: measured.rest_step.map(|s| s as f64 * scene.dt),
        max_speed: measured.speeds.iter().copied().fold(0.0, f64::max),
        moving: measured.speeds.iter().filter(|&&v| v > REST_SPEED).count() as u64,
        asleep: measured.asleep,
        outside: outside(&measured.positions),
        max_overlap: max_overlap(&measured.positions, RADIUS),
        height: measured
            .positions
            .iter()
            .map(|p| p.y + RADIUS + HALF)
            .fold(0.0, f64::max),
        collisions: measured.collisions,
        events_cap_hits: measured.events_cap_hits,
        peak_bytes,
        bytes_per_ball,
    })
}

/// Step the pile in toibox as the scene builds it, timing every step.
fn step_toibox(scene: &Scene, steps: u64) -> Result<Measured, String> {
    let mut built = scene.build();
    let speeds = |built: &toibox::scene::SceneWorld| -> Result<Vec<f64>, String> {
        let world = &built.sim.world;
        built
            .balls
            .iter()
            .map(|&ball| world.get::<&Velocity>(ball).map(|v| v.0.length()))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())
    };
    let mut rest = RestWatch::default();
    rest.note(0, &speeds(&built)?);
    let mut times = Vec::with_capacity(steps as usize);
    let (mut collisions, mut cap_hits, mut asleep) = (0, 0, 0);
    for step in 1..=steps {
        let clock = Instant::now();
        let report = built.sim.step(scene.dt).map_err(|e| e.to_string())?;
        times.push(clock.elapsed());
        collisions += report.stats.collisions;
        cap_hits += report.stats.events_cap_hits;
        asleep = report.stats.sleeping;
        rest.note(step, &speeds(&built)?);
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
        rest_step: rest.since,
        speeds: speeds(&built)?,
        asleep,
        collisions: Some(collisions),
        events_cap_hits: Some(cap_hits),
        positions,
    })
}

/// Return toibox's vector as rapier's (a newer glam).
fn to_rapier(v: Vec3) -> rapier3d_f64::math::Vector {
    rapier3d_f64::math::Vector::new(v.x, v.y, v.z)
}

/// Step the pile in rapier, timing every step.
///
/// The integration parameters are rapier's defaults (with dt 1/60, its default), sleeping
/// included. Balls are ball colliders of density 1; the floor and walls are the scene's planes
/// as half-spaces on one fixed body. Every collider has the scene's restitution and friction 0,
/// both combined by `Min`.
fn step_rapier(scene: &Scene, steps: u64) -> Measured {
    let mut world = PhysicsWorld {
        gravity: to_rapier(scene.gravity),
        integration_parameters: IntegrationParameters {
            dt: scene.dt,
            ..IntegrationParameters::default()
        },
        ..PhysicsWorld::default()
    };
    let walls = world.insert_body(RigidBodyBuilder::fixed());
    for plane in &scene.planes {
        let wall = ColliderBuilder::new(SharedShape::halfspace(to_rapier(plane.shape.normal)))
            .translation(to_rapier(plane.shape.point))
            .restitution(plane.restitution)
            .restitution_combine_rule(CoefficientCombineRule::Min)
            .friction(0.0)
            .friction_combine_rule(CoefficientCombineRule::Min);
        world.insert_collider(wall, Some(walls));
    }
    let balls: Vec<RigidBodyHandle> = scene
        .balls
        .iter()
        .map(|ball| {
            let body = RigidBodyBuilder::dynamic()
                .translation(to_rapier(ball.position))
                .linvel(to_rapier(ball.velocity));
            let collider = ColliderBuilder::ball(ball.radius)
                .density(1.0)
                .restitution(ball.restitution)
                .restitution_combine_rule(CoefficientCombineRule::Min)
                .friction(0.0)
                .friction_combine_rule(CoefficientCombineRule::Min);
            world.insert(body, collider).0
        })
        .collect();
    let speeds = |world: &PhysicsWorld| -> Vec<f64> {
        balls
            .iter()
            .map(|&b| world.bodies[b].linvel().length())
            .collect()
    };
    let mut rest = RestWatch::default();
    rest.note(0, &speeds(&world));
    let mut times = Vec::with_capacity(steps as usize);
    for step in 1..=steps {
        let clock = Instant::now();
        world.step();
        times.push(clock.elapsed());
        rest.note(step, &speeds(&world));
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
        rest_step: rest.since,
        speeds: speeds(&world),
        asleep: balls
            .iter()
            .filter(|&&b| world.bodies[b].is_sleeping())
            .count() as u64,
        collisions: None,
        events_cap_hits: None,
        positions,
    }
}

/// Return how many of the centres are outside the box: below the floor or beyond a wall (the
/// box has no lid).
pub fn outside(positions: &[Vec3]) -> u64 {
    positions
        .iter()
        .filter(|p| !(p.y >= -HALF && p.x.abs() <= HALF && p.z.abs() <= HALF))
        .count() as u64
}

/// Return the deepest overlap between two of these balls of `radius`, or a ball and the floor
/// or a wall of the box, in length units; 0 when nothing overlaps.
///
/// Balls are binned on a grid of cells one diameter wide, and each is checked against the
/// balls of its own and the 26 neighbouring cells: overlapping balls are less than a diameter
/// apart along every axis, so no pair is missed.
pub fn max_overlap(positions: &[Vec3], radius: f64) -> f64 {
    let diameter = 2.0 * radius;
    let mut deepest = positions.iter().fold(0.0f64, |most, p| {
        let gaps = [p.y + HALF, HALF - p.x, HALF + p.x, HALF - p.z, HALF + p.z];
        gaps.into_iter()
            .fold(most, |most, gap| most.max(radius - gap))
    });
    // Saturating casts: a ball flung far away lands in an edge cell, checked all the same
    let cell = |p: Vec3| (p / diameter).floor().to_array().map(|c| c as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for (i, &p) in positions.iter().enumerate() {
        grid.entry(cell(p)).or_default().push(i);
    }
    for (i, &p) in positions.iter().enumerate() {
        let [x, y, z] = cell(p);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let near = [
                        x.saturating_add(dx),
                        y.saturating_add(dy),
                        z.saturating_add(dz),
                    ];
                    for &j in grid.get(&near).map_or(&[][..], Vec::as_slice) {
                        if j > i {
                            deepest = deepest.max(diameter - p.distance(positions[j]));
                        }
                    }
                }
            }
        }
    }
    deepest
}

/// Run each engine in a child process of this program, `rounds` times in turn, and collect
/// each engine's figures from its fastest round (by mean step time), with the ratios against
/// toibox when it ran.
pub fn run_all(
    engines: &[PileEngine],
    config: &PileConfig,
    rounds: u32,
    quiet: bool,
) -> Result<Vec<PileResult>, String> {
    let mut results: Vec<PileResult> = Vec::new();
    for round in 1..=rounds {
        for &engine in engines {
            if !quiet {
                eprintln!(
                    "running {engine}: {} balls, {} steps, round {round} of {rounds}",
                    config.balls, config.steps
                );
            }
            let args = [
                "pile-engine".to_owned(),
                engine.cli_name().to_owned(),
                "--balls".to_owned(),
                config.balls.to_string(),
                "--steps".to_owned(),
                config.steps.to_string(),
            ];
            let result: PileResult = child::run(&engine.to_string(), &args)?;
            match results.iter_mut().find(|r| r.engine == engine) {
                Some(best) if best.ms_per_step <= result.ms_per_step => {}
                Some(best) => *best = result,
                None => results.push(result),
            }
        }
    }
    let reference = results
        .iter()
        .find(|r| r.engine == PileEngine::Toibox)
        .map(|r| r.ms_per_step);
    for result in &mut results {
        result.ratio = reference.map(|ms| result.ms_per_step / ms);
    }
    Ok(results)
}

/// Return the figures as an aligned table.
pub fn table(results: &[PileResult]) -> String {
    let mut table = Table::new([
        "engine",
        "ms/step",
        "x toibox",
        "rest step",
        "moving",
        "asleep",
        "outside",
        "max overlap",
        "height",
        "cap hits",
        "peak MB",
        "B/ball",
    ]);
    let dash = || "-".to_owned();
    for r in results {
        table.row(vec![
            r.label.clone(),
            format!("{:.3}", r.ms_per_step),
            r.ratio.map_or_else(dash, |x| format!("{x:.2}")),
            r.rest_step
                .map_or_else(|| "never".to_owned(), |s| s.to_string()),
            r.moving.to_string(),
            r.asleep.to_string(),
            r.outside.to_string(),
            format!("{:.2e}", r.max_overlap),
            format!("{:.3}", r.height),
            r.events_cap_hits.map_or_else(dash, |c| c.to_string()),
            r.peak_bytes
                .map_or_else(dash, |b| format!("{:.1}", b as f64 / 1e6)),
            r.bytes_per_ball.map_or_else(dash, |b| format!("{b:.0}")),
        ]);
    }
    table.render()
}

/// The whole `pile --json` answer.
#[derive(Clone, Debug, Serialize)]
pub struct PileReport {
    /// Always `"pile"`.
    pub command: &'static str,
    /// Balls dropped.
    pub balls: u64,
    /// Steps measured.
    pub steps: u64,
    /// Times each engine ran; its figures are from its fastest round.
    pub rounds: u32,
    /// Time per step.
    pub dt: f64,
    /// Radius of every ball.
    pub radius: f64,
    /// Half the side of the box: floor at `y = -box_half`, walls at `x, z = ±box_half`, no lid.
    pub box_half: f64,
    /// Lower corner of the box the generator places the balls in.
    pub lattice_min: [f64; 3],
    /// Upper corner of that box.
    pub lattice_max: [f64; 3],
    /// Distance of the lattice's sites along x and z, and of the layers the generator's box is
    /// made tall enough for.
    pub spacing: f64,
    /// Speed of every ball at the start, in a random direction.
    pub speed: f64,
    /// Seed of the velocity directions.
    pub seed: u64,
    /// Acceleration of every ball.
    pub gravity: [f64; 3],
    /// Restitution of every pair.
    pub restitution: f64,
    /// Friction of every pair.
    pub friction: f64,
    /// Largest speed of a ball at rest.
    pub rest_speed: f64,
    /// One entry per engine, in the order run.
    pub engines: Vec<PileResult>,
}

impl PileReport {
    /// Describe the pile of `config`, run `rounds` times, with the engines' figures.
    pub fn new(config: &PileConfig, rounds: u32, engines: Vec<PileResult>) -> Self {
        let (min, max) = config.lattice_box();
        Self {
            command: "pile",
            balls: config.balls,
            steps: config.steps,
            rounds,
            dt: DT,
            radius: RADIUS,
            box_half: HALF,
            lattice_min: min.to_array(),
            lattice_max: max.to_array(),
            spacing: SPACING,
            speed: SPEED,
            seed: SEED,
            gravity: [0.0, GRAVITY, 0.0],
            restitution: RESTITUTION,
            friction: 0.0,
            rest_speed: REST_SPEED,
            engines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pile_starts_on_a_lattice_above_the_floor() {
        let config = PileConfig {
            balls: 2000,
            steps: 1,
        };
        let scene = config.scene().unwrap();
        assert_eq!(scene.balls.len(), 2000);
        assert_eq!(scene.planes.len(), 5);
        assert_eq!(
            outside(&scene.balls.iter().map(|b| b.position).collect::<Vec<_>>()),
            0
        );
        let lowest = scene
            .balls
            .iter()
            .map(|b| b.position.y)
            .fold(f64::MAX, f64::min);
        assert!((lowest - (-HALF + FLOOR_GAP + RADIUS)).abs() < 1e-12);
        let first_row: Vec<f64> = scene.balls[..PER_ROW as usize]
            .iter()
            .map(|b| b.position.x)
            .collect();
        for pair in first_row.windows(2) {
            assert!((pair[1] - pair[0] - SPACING).abs() < 1e-12);
        }
        assert!(scene.balls.iter().all(|b| b.restitution == RESTITUTION));
        for balls in [1, 2, 50, 80, 81, 82, 200, 1000, 1999, 2025, 5000] {
            let scene = PileConfig { balls, steps: 1 }.scene().unwrap();
            assert_eq!(scene.balls.len() as u64, balls);
        }
    }

    #[test]
    fn overlaps_are_measured_between_balls_and_against_the_box() {
        let r = RADIUS;
        // Apart, touching, and 0.003 into each other, across cells
        let mut balls = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.3, 0.0, 0.0),
            Vec3::new(0.0, 0.1, 0.0),
            Vec3::new(0.3, 0.097, 0.0),
        ];
        assert!((max_overlap(&balls, r) - 0.003).abs() < 1e-12);
        // 0.02 into the wall at x = 0.5
        balls.push(Vec3::new(0.47, 0.0, 0.3));
        assert!((max_overlap(&balls, r) - 0.02).abs() < 1e-12);
        // 0.03 into the floor; its centre still above it
        balls.push(Vec3::new(-0.2, -0.48, -0.2));
        assert!((max_overlap(&balls, r) - 0.03).abs() < 1e-12);
        assert_eq!(outside(&balls), 0);
        // Two balls 0.09 apart diagonally, in different cells
        balls.push(Vec3::new(-0.3, 0.299, 0.3));
        balls.push(Vec3::new(
            -0.3 + 0.09 / 2f64.sqrt(),
            0.299 + 0.09 / 2f64.sqrt(),
            0.3,
        ));
        assert!((max_overlap(&balls, r) - 0.03).abs() < 1e-12);
        balls.push(Vec3::new(-0.3, 0.299, 0.3 + 0.05));
        assert!((max_overlap(&balls, r) - 0.05).abs() < 1e-12);
        // Below the floor and beyond a wall are outside; above the box is not
        balls.extend([
            Vec3::new(0.0, -0.6, 0.0),
            Vec3::new(0.0, 0.0, 0.51),
            Vec3::new(0.0, 3.0, 0.0),
        ]);
        assert_eq!(outside(&balls), 2);
        assert!(max_overlap(&[], r) == 0.0);
        assert!(max_overlap(&[Vec3::ZERO], r) == 0.0);
    }

    #[test]
    fn a_small_pile_stays_in_its_box() {
        let config = PileConfig {
            balls: 50,
            steps: 60,
        };
        let result = run_engine(PileEngine::Toibox, &config).unwrap();
        assert_eq!(result.outside, 0);
        assert!(result.max_overlap < 1e-6, "{}", result.max_overlap);
        assert_eq!(result.events_cap_hits, Some(0));
        let result = run_engine(PileEngine::Rapier, &config).unwrap();
        assert_eq!(result.outside, 0);
        assert!(result.max_overlap < 0.01, "{}", result.max_overlap);
    }
}
