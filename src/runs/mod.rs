//! Headless runs of a scene, and side-by-side comparisons of strategies on one scene.
//!
//! [`run`] steps a [`Scene`] and reports the end state, totals over the run and, if asked, every
//! collision; [`compare`] runs it once per strategy from the same initial state and measures each
//! against the analytic run. The JSON of `toibox run --json` and `toibox compare --json` is the
//! serialization of [`RunReport`] and [`Comparison`]; the field names are a contract.
//!
//! Energy is kinetic (spin included) plus the potential of gravity,
//! `Σ ½ m v² + ½ I ω² - m g·x`, so that it is conserved by an elastic run under gravity too.

mod audit;
mod compare;

use std::time::Instant;

use serde::Serialize;

pub use compare::{
    CompareOptions, Comparison, Explained, Incident, IncidentKind, StrategyResult, compare,
};

use crate::judge::{BallStep, Judge, read_step};
use crate::math::{Real, Vec3, spin_energy};
use crate::scene::{BallEntry, Scene, SceneItem, SceneWorld};
use crate::sim::{
    AngularVelocity, BallDef, Mass, Position, Radius, StepError, StepStats, Velocity,
};
use crate::toi::{PairKind, ToiMode, ToiStrategy};

/// Totals of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RunStats {
    /// The steps' stats folded with [`StepStats::add`]: collisions, queries, cap hits, balls
    /// stopped and the energy they lost summed; the deepest overlap and most balls escaped of
    /// any step; balls asleep, kinetic energy and momentum after the last step. Written flat
    /// into JSON.
    #[serde(flatten)]
    pub steps: StepStats,
    /// Balls the [`judge`](crate::judge) found passed through something (a ball, a plane, a
    /// cylinder, a polygon) in some step of the run.
    pub passed_through: u64,
    /// Energy (kinetic plus gravity's potential) before the first step.
    pub energy_start: Real,
    /// Energy after the last step.
    pub energy_end: Real,
    /// Momentum before the first step.
    pub momentum_start: [Real; 3],
    /// Momentum after the last step.
    pub momentum_end: [Real; 3],
    /// Wall-clock time of the steps, in milliseconds.
    pub wall_ms: Real,
}

/// One collision of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EventRecord {
    /// The step it happened in, from 0.
    pub step: u64,
    /// Simulation time of the contact.
    pub time: Real,
    /// What the ball met (JSON: `ball_ball`, `ball_plane`, `ball_cylinder` or `ball_polygon`).
    pub kind: PairKind,
    /// The ball's index in the scene.
    pub a: usize,
    /// The other ball's index, or the index in the shape's own list.
    pub b: usize,
    /// Contact point.
    pub point: [Real; 3],
    /// Unit normal from `b` towards `a`.
    pub normal: [Real; 3],
    /// Magnitude of the impulse.
    pub impulse: Real,
}

/// What a run did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    /// The scene, as the caller named it (its file).
    pub scene: String,
    /// The scene's title.
    pub name: String,
    /// The strategy, as on the command line.
    pub toi: String,
    /// Steps taken.
    pub steps: u64,
    /// Time per step.
    pub dt: Real,
    /// Simulated time at the end.
    pub time: Real,
    /// Every ball at the end, in scene order, as a scene file's `balls` would give it.
    pub balls: Vec<BallEntry>,
    /// Totals.
    pub stats: RunStats,
    /// Every collision, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<EventRecord>>,
    /// Energy and penetration after each step, for plots.
    #[serde(skip)]
    pub trace: Trace,
}

/// What a run looked like after each step, for plots.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Simulated time after each step.
    pub time: Vec<Real>,
    /// Energy (kinetic plus gravity's potential) after each step.
    pub energy: Vec<Real>,
    /// Largest penetration at the end of each step.
    pub penetration: Vec<Real>,
    /// Balls the judge found escaped or passed through so far, after each step.
    pub faulty: Vec<u64>,
    /// Contacts missed so far, after each step: filled by [`compare`] only.
    pub missed: Vec<u64>,
    /// Farthest a ball is from its place in the analytic run, after each step: filled by
    /// [`compare`] only.
    pub drift: Vec<Real>,
}

/// How to run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    /// Steps to take.
    pub steps: u64,
    /// The strategy.
    pub toi: ToiMode,
    /// Record every collision.
    pub events: bool,
}

/// Return the energy of the balls of `world` under `gravity`: `Σ ½ m v² + ½ I ω² - m g·x`.
#[must_use]
pub fn energy(world: &hecs::World, gravity: Vec3) -> Real {
    world
        .query::<(
            &Position,
            &Velocity,
            &Mass,
            &Radius,
            Option<&AngularVelocity>,
        )>()
        .iter()
        .map(|(p, v, m, r, w)| {
            let rotation = w.map_or(0.0, |w| spin_energy(m.0, r.0, w.0));
            m.0 * (0.5 * v.0.length_squared() - gravity.dot(p.0)) + rotation
        })
        .sum()
}

/// Return `(end - start) / |start|`, or `end - start` when `start` is zero: how the energy
/// drift of a run is reported.
#[must_use]
pub fn relative_change(start: Real, end: Real) -> Real {
    if start != 0.0 {
        (end - start) / start.abs()
    } else {
        end - start
    }
}

/// Step `scene` as `options` say, calling `progress(steps_done)` after every step. `name` is
/// how the report names the scene.
pub fn run(
    scene: &Scene,
    name: &str,
    options: RunOptions,
    mut progress: impl FnMut(u64),
) -> Result<RunReport, StepError> {
    let mut runner = Runner::new(scene, options.events);
    for step in 0..options.steps {
        runner.step(&options.toi)?;
        progress(step + 1);
    }
    Ok(runner.finish(name, &options.toi.to_string()))
}

/// One run in progress: the world, the totals so far, and the judge.
struct Runner<'a> {
    scene: &'a Scene,
    world: SceneWorld,
    stats: RunStats,
    events: Option<Vec<EventRecord>>,
    trace: Trace,
    /// Wall-clock seconds inside the steps.
    wall: Real,
    judge: Judge,
    judged: Vec<BallStep>,
    steps: u64,
}

impl<'a> Runner<'a> {
    /// Build `scene`'s world, ready to step, recording every collision if `events`.
    fn new(scene: &'a Scene, events: bool) -> Self {
        let world = scene.build();
        let gravity = scene.gravity;
        let stats = RunStats {
            energy_start: energy(&world.sim.world, gravity),
            momentum_start: crate::sim::momentum(&world.sim.world).to_array(),
            ..RunStats::default()
        };
        Self {
            scene,
            stats,
            events: events.then(Vec::new),
            trace: Trace::default(),
            wall: 0.0,
            judge: Judge::new(scene),
            judged: Vec::with_capacity(world.balls.len()),
            steps: 0,
            world,
        }
    }

    /// Take one step of the scene's `dt` with `strategy`, then judge it and trace it.
    fn step<S: ToiStrategy + ?Sized>(&mut self, strategy: &S) -> Result<(), StepError> {
        let world = &mut self.world;
        let scene = self.scene;
        let start_time = world.sim.time();
        let started = Instant::now();
        world.sim.step_lent(scene.dt, strategy)?;
        let report = world.sim.report();
        self.wall += started.elapsed().as_secs_f64();
        self.stats.steps.add(&report.stats);
        if let Some(events) = &mut self.events {
            for e in &report.events {
                let index = |entity| match world.item(entity)? {
                    SceneItem::Ball(i)
                    | SceneItem::Plane(i)
                    | SceneItem::Cylinder(i)
                    | SceneItem::Polygon(i) => Some(i),
                };
                // A run spawns nothing: every entity of an event is an item of the scene
                let (Some(a), Some(b)) = (index(e.a), index(e.b)) else {
                    debug_assert!(false, "an event of an entity not in the scene: {e:?}");
                    continue;
                };
                events.push(EventRecord {
                    step: self.steps,
                    time: start_time + e.time,
                    kind: e.kind,
                    a,
                    b,
                    point: e.point.to_array(),
                    normal: e.normal.to_array(),
                    impulse: e.impulse,
                });
            }
        }
        read_step(world, &report.events, scene.dt, &mut self.judged);
        self.judge.judge(&self.judged, scene.dt);
        let (escaped, through) = self.judge.counts();
        self.trace.time.push(world.sim.time());
        self.trace
            .energy
            .push(energy(&world.sim.world, scene.gravity));
        self.trace.penetration.push(report.stats.max_penetration);
        self.trace.faulty.push((escaped + through) as u64);
        self.steps += 1;
        Ok(())
    }

    /// Where each ball is now, in scene order.
    fn positions(&self) -> impl Iterator<Item = Vec3> + '_ {
        let world = &self.world;
        world.balls.iter().map(|&e| {
            world
                .sim
                .world
                .get::<&Position>(e)
                .map_or(Vec3::NAN, |p| p.0)
        })
    }

    /// The report of the run so far, its strategy named `toi`.
    fn finish(mut self, name: &str, toi: &str) -> RunReport {
        let world = &self.world;
        let stats = &mut self.stats;
        stats.passed_through = self.judge.counts().1 as u64;
        stats.energy_end = energy(&world.sim.world, self.scene.gravity);
        stats.momentum_end = crate::sim::momentum(&world.sim.world).to_array();
        stats.wall_ms = self.wall * 1e3;
        let balls = (world.balls.iter())
            .map(|&e| BallDef::of(&world.sim.world, e).map(BallEntry::from))
            .collect::<Option<_>>()
            .expect("a run's balls stay in its world");
        RunReport {
            scene: name.to_owned(),
            name: self.scene.name.clone(),
            toi: toi.to_owned(),
            steps: self.steps,
            dt: self.scene.dt,
            time: world.sim.time(),
            balls,
            stats: self.stats,
            events: self.events,
            trace: self.trace,
        }
    }
}
