//! Headless runs of a scene, and side-by-side comparisons of strategies on one scene.
//!
//! [`run`] steps a [`Scene`] and reports the end state, totals over the run and, if asked, every
//! collision; [`compare`] runs it once per strategy from the same initial state and measures each
//! against the analytic run. The JSON of `toibox run --json` and `toibox compare --json` is the
//! serialization of [`RunReport`] and [`Comparison`]; the field names are a contract.
//!
//! Energy is kinetic plus the potential of gravity, `Σ ½ m v² - m g·x`, so that it is conserved
//! by an elastic run under gravity too.

use std::cell::Cell;
use std::time::Instant;

use serde::Serialize;

use crate::geometry::{ConvexPolygon, Cylinder, Plane};
use crate::judge::{Judge, read_step};
use crate::math::{Real, Vec3};
use crate::scene::{Scene, SceneItem, SceneWorld};
use crate::sim::{Mass, Position, StepError, Velocity};
use crate::toi::{Analytic, MovingBall, Strategy, Toi, ToiStrategy};

/// A ball at the end of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BallState {
    /// Centre.
    pub pos: [Real; 3],
    /// Velocity.
    pub vel: [Real; 3],
}

/// Totals of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RunStats {
    /// Collisions resolved, all kinds.
    pub collisions: u64,
    /// Ball-ball collisions.
    pub ball_ball: u64,
    /// Ball-plane collisions.
    pub ball_plane: u64,
    /// Ball-cylinder collisions.
    pub ball_cylinder: u64,
    /// Ball-polygon collisions.
    pub ball_polygon: u64,
    /// Time-of-impact queries.
    pub toi_queries: u64,
    /// Contacts held after a step's budget of collisions ran out, summed over the steps (see
    /// [`StepStats::events_cap_hits`](crate::StepStats::events_cap_hits)).
    pub events_cap_hits: u64,
    /// Balls stopped short of a step's end by those contacts, summed over the steps.
    pub stopped: u64,
    /// Largest overlap found at the end of any step.
    pub max_penetration: Real,
    /// Most balls found behind a plane or inside a shape at the end of any step.
    pub escaped: u64,
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
    /// Balls asleep at the end.
    pub sleeping: u64,
}

/// One collision of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EventRecord {
    /// The step it happened in, from 0.
    pub step: u64,
    /// Simulation time of the contact.
    pub time: Real,
    /// `ball_ball`, `ball_plane`, `ball_cylinder` or `ball_polygon`.
    pub kind: &'static str,
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
    /// Every ball at the end, in scene order.
    pub balls: Vec<BallState>,
    /// Totals.
    pub stats: RunStats,
    /// Every collision, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<EventRecord>>,
    /// Energy and penetration after each step, for plots.
    #[serde(skip)]
    pub trace: Trace,
}

/// Energy and largest penetration after each step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// Simulated time after each step.
    pub time: Vec<Real>,
    /// Energy after each step.
    pub energy: Vec<Real>,
    /// Largest penetration at the end of each step.
    pub penetration: Vec<Real>,
}

/// How to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunOptions {
    /// Steps to take.
    pub steps: u64,
    /// The strategy.
    pub toi: Strategy,
    /// Record every collision.
    pub events: bool,
}

/// Return the energy of the balls of `world` under `gravity`: `Σ ½ m v² - m g·x`.
#[must_use]
pub fn energy(world: &hecs::World, gravity: Vec3) -> Real {
    world
        .query::<(&Position, &Velocity, &Mass)>()
        .iter()
        .map(|(p, v, m)| m.0 * (0.5 * v.0.length_squared() - gravity.dot(p.0)))
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
    progress: impl FnMut(u64),
) -> Result<RunReport, StepError> {
    let mut world = scene.build();
    run_with(scene, name, &mut world, options, &options.toi, progress)
}

fn run_with<S: ToiStrategy + ?Sized>(
    scene: &Scene,
    name: &str,
    world: &mut SceneWorld,
    options: RunOptions,
    strategy: &S,
    mut progress: impl FnMut(u64),
) -> Result<RunReport, StepError> {
    let gravity = scene.gravity;
    let mut stats = RunStats {
        energy_start: energy(&world.sim.world, gravity),
        momentum_start: crate::sim::momentum(&world.sim.world).to_array(),
        ..RunStats::default()
    };
    let mut events = options.events.then(Vec::new);
    let mut trace = Trace::default();
    let mut wall = 0.0;
    let mut judge = Judge::new(scene);
    let mut judged = Vec::with_capacity(world.balls.len());
    for step in 0..options.steps {
        let start_time = world.sim.time();
        let started = Instant::now();
        world.sim.step_with(scene.dt, strategy)?;
        let report = world.sim.report();
        wall += started.elapsed().as_secs_f64();
        let s = &report.stats;
        stats.collisions += s.collisions;
        stats.ball_ball += s.ball_ball;
        stats.ball_plane += s.ball_plane;
        stats.ball_cylinder += s.ball_cylinder;
        stats.ball_polygon += s.ball_polygon;
        stats.toi_queries += s.toi_queries;
        stats.events_cap_hits += s.events_cap_hits;
        stats.stopped += s.stopped;
        stats.max_penetration = stats.max_penetration.max(s.max_penetration);
        stats.escaped = stats.escaped.max(s.escaped);
        stats.sleeping = s.sleeping;
        if let Some(events) = &mut events {
            for e in &report.events {
                let index = |entity| match world.item(entity) {
                    Some(
                        SceneItem::Ball(i)
                        | SceneItem::Plane(i)
                        | SceneItem::Cylinder(i)
                        | SceneItem::Polygon(i),
                    ) => i,
                    None => usize::MAX,
                };
                events.push(EventRecord {
                    step,
                    time: start_time + e.time,
                    kind: e.kind.name(),
                    a: index(e.a),
                    b: index(e.b),
                    point: e.point.to_array(),
                    normal: e.normal.to_array(),
                    impulse: e.impulse,
                });
            }
        }
        read_step(world, &report.events, &mut judged);
        judge.judge(&judged, scene.dt);
        trace.time.push(world.sim.time());
        trace.energy.push(energy(&world.sim.world, gravity));
        trace.penetration.push(s.max_penetration);
        progress(step + 1);
    }
    stats.passed_through = judge.counts().1 as u64;
    stats.energy_end = energy(&world.sim.world, gravity);
    stats.momentum_end = crate::sim::momentum(&world.sim.world).to_array();
    stats.wall_ms = wall * 1e3;
    let balls = world
        .balls
        .iter()
        .map(|&e| {
            let p = world
                .sim
                .world
                .get::<&Position>(e)
                .map_or(Vec3::NAN, |p| p.0);
            let v = world
                .sim
                .world
                .get::<&Velocity>(e)
                .map_or(Vec3::NAN, |v| v.0);
            BallState {
                pos: p.to_array(),
                vel: v.to_array(),
            }
        })
        .collect();
    Ok(RunReport {
        scene: name.to_owned(),
        name: scene.name.clone(),
        toi: options.toi.to_string(),
        steps: options.steps,
        dt: scene.dt,
        time: world.sim.time(),
        balls,
        stats,
        events,
        trace,
    })
}

/// One strategy measured against the analytic run of the same scene.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StrategyResult {
    /// The strategy, as on the command line.
    pub toi: String,
    /// Collisions resolved.
    pub collisions: u64,
    /// Contacts missed: queries where the analytic sweep, asked the same question from the same
    /// state, finds a contact and this strategy none (tunnelling). Zero for analytic itself.
    pub missed: u64,
    /// Contacts reported where the analytic sweep finds none.
    pub spurious: u64,
    /// Contacts both found, whose times were compared.
    pub compared: u64,
    /// Mean of `|t - t_analytic|` over the compared contacts, in time units; `None` (`null` in
    /// JSON, empty in CSV) when no contact was compared.
    pub toi_error_mean: Option<Real>,
    /// Largest `|t - t_analytic|`; `None` when no contact was compared.
    pub toi_error_max: Option<Real>,
    /// Largest overlap at the end of any step.
    pub max_penetration: Real,
    /// Most balls behind a plane or inside a shape at the end of any step.
    pub escaped: u64,
    /// Balls the [`judge`](crate::judge) found passed through something in some step.
    pub passed_through: u64,
    /// Contacts held after a step's budget of collisions ran out, summed over the steps.
    pub cap_hits: u64,
    /// `(E_end - E_start) / |E_start|` (absolute when `E_start` is zero).
    pub energy_drift: Real,
    /// Wall-clock milliseconds per step (of a run without the analytic cross-check).
    pub ms_per_step: Real,
    /// Time-of-impact queries per step.
    pub toi_queries_per_step: Real,
    /// Largest distance of a ball's final position from its position in the analytic run.
    pub state_drift_max: Real,
    /// Mean distance of the final positions from the analytic run's.
    pub state_drift_mean: Real,
}

/// Every strategy's result on one scene.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The scene, as the caller named it.
    pub scene: String,
    /// Steps each strategy took.
    pub steps: u64,
    /// One per strategy, in the order asked.
    pub results: Vec<StrategyResult>,
    /// Each strategy's run, for plots.
    #[serde(skip)]
    pub runs: Vec<RunReport>,
}

/// Run `scene` for `steps` with each of `strategies` from the same initial state, and measure
/// each against the analytic run; `progress(steps_done)` counts the steps of all runs
/// (`steps * (2 * strategies + 1)`: each strategy runs once to be timed and once cross-checked).
pub fn compare(
    scene: &Scene,
    name: &str,
    steps: u64,
    strategies: &[Strategy],
    mut progress: impl FnMut(u64),
) -> Result<Comparison, StepError> {
    let mut done = 0;
    let options = |toi| RunOptions {
        steps,
        toi,
        events: false,
    };
    let reference = run(scene, name, options(Strategy::Analytic), &mut progress)?;
    done += steps;
    let mut results = Vec::with_capacity(strategies.len());
    let mut runs = Vec::with_capacity(strategies.len());
    for &toi in strategies {
        let at = done;
        let timed = run(scene, name, options(toi), |k| progress(at + k))?;
        done += steps;
        let audit = Audit::new(toi);
        let at = done;
        let mut world = scene.build();
        let checked = run_with(scene, name, &mut world, options(toi), &audit, |k| {
            progress(at + k);
        })?;
        done += steps;
        debug_assert_eq!(
            checked.balls, timed.balls,
            "the cross-check changes nothing"
        );

        let s = &timed.stats;
        let drifts: Vec<Real> = (timed.balls.iter().zip(&reference.balls))
            .map(|(a, b)| Vec3::from_array(a.pos).distance(Vec3::from_array(b.pos)))
            .collect();
        let per_step = |x: Real| if steps > 0 { x / steps as Real } else { 0.0 };
        let compared = audit.compared.get();
        results.push(StrategyResult {
            toi: toi.to_string(),
            collisions: s.collisions,
            missed: audit.missed.get(),
            spurious: audit.spurious.get(),
            compared,
            toi_error_mean: (compared > 0).then(|| audit.error_sum.get() / compared as Real),
            toi_error_max: (compared > 0).then(|| audit.error_max.get()),
            max_penetration: s.max_penetration,
            escaped: s.escaped,
            passed_through: s.passed_through,
            cap_hits: s.events_cap_hits,
            energy_drift: relative_change(s.energy_start, s.energy_end),
            ms_per_step: per_step(s.wall_ms),
            toi_queries_per_step: per_step(s.toi_queries as Real),
            state_drift_max: drifts.iter().copied().fold(0.0, Real::max),
            state_drift_mean: if drifts.is_empty() {
                0.0
            } else {
                drifts.iter().sum::<Real>() / drifts.len() as Real
            },
        });
        runs.push(timed);
    }
    Ok(Comparison {
        scene: name.to_owned(),
        steps,
        results,
        runs,
    })
}

/// A strategy that asks the analytic sweep the same question every time and tallies the
/// differences; it answers with the strategy's own result.
struct Audit {
    inner: Strategy,
    missed: Cell<u64>,
    spurious: Cell<u64>,
    compared: Cell<u64>,
    error_sum: Cell<Real>,
    error_max: Cell<Real>,
}

impl Audit {
    fn new(inner: Strategy) -> Self {
        Self {
            inner,
            missed: Cell::new(0),
            spurious: Cell::new(0),
            compared: Cell::new(0),
            error_sum: Cell::new(0.0),
            error_max: Cell::new(0.0),
        }
    }

    fn tally(&self, mine: Toi, exact: Toi) -> Toi {
        let bump = |c: &Cell<u64>| c.set(c.get() + 1);
        match (mine, exact) {
            (Toi::Miss, Toi::Hit(_)) => bump(&self.missed),
            (Toi::Hit(_), Toi::Miss) => bump(&self.spurious),
            (Toi::Hit(a), Toi::Hit(b)) => {
                let error = (a.time - b.time).abs();
                bump(&self.compared);
                self.error_sum.set(self.error_sum.get() + error);
                self.error_max.set(self.error_max.get().max(error));
            }
            _ => {}
        }
        mine
    }
}

impl ToiStrategy for Audit {
    fn ball_ball(&self, ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi {
        self.tally(
            self.inner.ball_ball(ball, other, t_max),
            Analytic.ball_ball(ball, other, t_max),
        )
    }

    fn ball_plane(&self, ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi {
        self.tally(
            self.inner.ball_plane(ball, plane, t_max),
            Analytic.ball_plane(ball, plane, t_max),
        )
    }

    fn ball_cylinder(&self, ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi {
        self.tally(
            self.inner.ball_cylinder(ball, cylinder, t_max),
            Analytic.ball_cylinder(ball, cylinder, t_max),
        )
    }

    fn ball_polygon(&self, ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi {
        self.tally(
            self.inner.ball_polygon(ball, polygon, t_max),
            Analytic.ball_polygon(ball, polygon, t_max),
        )
    }

    // The strategy audited steps as it would alone
    fn misses_are_certain(&self) -> bool {
        self.inner.misses_are_certain()
    }
}
