//! One copy of the scene with its strategy: the world, its running totals, and the judge of
//! its faults. Nothing here draws; the viewer's loop steps panes and reads them.

use std::time::Instant;

use crate::judge::{BallStep, Judge, read_step};
use crate::math::{Real, Vec3};
use crate::runs::energy;
use crate::scene::{Scene, SceneItem, SceneWorld};
use crate::sim::{StepError, StepStats};
use crate::toi::{PairKind, ToiMode};

/// Slice counts that `+` and `-` step through.
const SLICES: [u32; 15] = [
    1, 2, 5, 10, 20, 50, 100, 150, 200, 500, 1000, 2000, 5000, 10_000, 100_000,
];

/// A scene's world stepped with one strategy.
pub(crate) struct Pane {
    /// The world, its stepper and its clock.
    pub world: SceneWorld,
    /// Faults found so far.
    pub faults: Judge,
    /// For each ball with a fault, in scene order: the step in which the judge first found
    /// one, and the ball's path in it (its centre before and after).
    pub fault_paths: Vec<Option<(u64, Vec3, Vec3)>>,
    /// Every ball after the last step, in scene order.
    pub balls: Vec<BallStep>,
    /// Where balls touched something in the last step, by ball then time: the ball, the
    /// fraction of the step in `[0, 1]`, and its centre then.
    pub contacts: Vec<(usize, Real, Vec3)>,
    /// The steps' stats folded together since the start ([`StepStats::add`]).
    pub totals: StepStats,
    /// Kinetic energy at the start.
    pub kinetic_start: Real,
    /// Kinetic plus potential energy at the start, and now.
    pub energy: (Real, Real),
    /// Wall-clock milliseconds per step, smoothed; `None` before the first step.
    pub physics_ms: Option<Real>,
    /// The error that stopped this pane, if any.
    pub error: Option<StepError>,
    /// Slices the sliced strategies use when `T` picks them.
    pub slices: u32,
}

impl Pane {
    /// Build `scene` with `strategy`.
    #[must_use]
    pub fn new(scene: &Scene, strategy: ToiMode) -> Self {
        let mut world = scene.build();
        let slices = slices_of(&strategy).unwrap_or(150);
        world.sim.stepper.config.strategy = strategy;
        let mut pane = Self {
            balls: Vec::with_capacity(world.balls.len()),
            contacts: Vec::new(),
            faults: Judge::new(scene),
            fault_paths: vec![None; scene.balls.len()],
            world,
            totals: StepStats::default(),
            kinetic_start: 0.0,
            energy: (0.0, 0.0),
            physics_ms: None,
            error: None,
            slices,
        };
        pane.start(scene);
        pane
    }

    fn start(&mut self, scene: &Scene) {
        self.kinetic_start = crate::sim::kinetic_energy(&self.world.sim.world);
        let e = energy(&self.world.sim.world, scene.gravity);
        self.energy = (e, e);
        read_step(&self.world, &[], scene.dt, &mut self.balls);
    }

    /// Go back to the scene's initial state, keeping the strategy and the slice count.
    pub fn reset(&mut self, scene: &Scene) {
        let strategy = self.strategy();
        *self = Self {
            slices: self.slices,
            ..Self::new(scene, strategy)
        };
    }

    /// Return the strategy.
    #[must_use]
    pub fn strategy(&self) -> ToiMode {
        self.world.sim.stepper.config.strategy.clone()
    }

    /// Use `strategy` from the next step on.
    pub fn set_strategy(&mut self, strategy: ToiMode) {
        if let Some(n) = slices_of(&strategy) {
            self.slices = n;
        }
        self.world.sim.stepper.config.strategy = strategy;
    }

    /// Take the next built-in strategy: analytic, sliced, sliced-bisect, discrete, analytic.
    pub fn cycle_strategy(&mut self) {
        let n = self.slices;
        let next = match self.strategy() {
            ToiMode::Analytic => ToiMode::Sliced { slices: n },
            ToiMode::Sliced { .. } => ToiMode::SlicedBisect {
                slices: n,
                tolerance: 1e-9,
            },
            ToiMode::SlicedBisect { .. } => ToiMode::Discrete,
            ToiMode::Discrete | ToiMode::Custom(_) => ToiMode::Analytic,
        };
        self.set_strategy(next);
    }

    /// Step the slice count up (`up`) or down the ladder 1, 2, 5, 10, ... 100,000; the sliced
    /// strategies take it at once.
    pub fn change_slices(&mut self, up: bool) {
        let n = self.slices;
        self.slices = if up {
            SLICES.iter().copied().find(|&s| s > n).unwrap_or(n)
        } else {
            SLICES.iter().rev().copied().find(|&s| s < n).unwrap_or(n)
        };
        let strategy = match self.strategy() {
            ToiMode::Sliced { .. } => ToiMode::Sliced {
                slices: self.slices,
            },
            ToiMode::SlicedBisect { tolerance, .. } => ToiMode::SlicedBisect {
                slices: self.slices,
                tolerance,
            },
            other => other,
        };
        self.world.sim.stepper.config.strategy = strategy;
    }

    /// Take one step of `dt`, then judge the balls. After an error the pane stays stopped.
    pub fn step(&mut self, scene: &Scene, dt: Real) {
        if self.error.is_some() {
            return;
        }
        let started = Instant::now();
        let strategy = self.world.sim.stepper.config.strategy.clone();
        if let Err(e) = self.world.sim.step_lent(dt, &strategy) {
            self.error = Some(e);
            return;
        }
        let ms = started.elapsed().as_secs_f64() * 1e3;
        self.physics_ms = Some(match self.physics_ms {
            Some(old) => old + (ms - old) * 0.1,
            None => ms,
        });
        let report = self.world.sim.report();
        self.totals.add(&report.stats);
        read_step(&self.world, &report.events, dt, &mut self.balls);
        self.contacts.clear();
        for event in &report.events {
            let fraction = (event.time / dt).clamp(0.0, 1.0);
            if let Some(SceneItem::Ball(i)) = self.world.item(event.a) {
                let centre = event.point + event.normal * self.balls[i].radius;
                self.contacts.push((i, fraction, centre));
            }
            if event.kind != PairKind::BallBall {
                continue;
            }
            if let Some(SceneItem::Ball(j)) = self.world.item(event.b) {
                let centre = event.point - event.normal * self.balls[j].radius;
                self.contacts.push((j, fraction, centre));
            }
        }
        self.contacts
            .sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        self.energy.1 = energy(&self.world.sim.world, scene.gravity);
        self.faults.judge(&self.balls, dt);
        let step = self.world.sim.steps();
        let found = self.faults.per_ball.iter().zip(&self.balls);
        for (path, (fault, ball)) in self.fault_paths.iter_mut().zip(found) {
            if fault.is_some() && path.is_none() {
                *path = Some((step, ball.previous, ball.position));
            }
        }
    }

    /// Return the centre of every ball a fraction `alpha` in `[0, 1]` into the last step, in
    /// scene order: on the straight line from contact to contact (the step's path), not
    /// across the corners of its bounces.
    #[must_use]
    pub fn centres(&self, alpha: Real) -> Vec<Vec3> {
        let mut contacts = self.contacts.iter().peekable();
        (self.balls.iter().enumerate())
            .map(|(i, ball)| {
                let mut from = (0.0, ball.previous);
                let mut to = (1.0, ball.position);
                let mut past = false;
                while let Some(&(_, f, c)) = contacts.next_if(|c| c.0 == i) {
                    if past {
                        continue;
                    }
                    if f <= alpha {
                        from = (f, c);
                    } else {
                        to = (f, c);
                        past = true;
                    }
                }
                let span = to.0 - from.0;
                // Skip the division where two waypoints share a time
                if span <= 0.0 {
                    return to.1;
                }
                from.1.lerp(to.1, (alpha - from.0) / span)
            })
            .collect()
    }

    /// Return the kinetic energy after the last step.
    #[must_use]
    pub fn kinetic(&self) -> Real {
        if self.world.sim.steps() == 0 {
            self.kinetic_start
        } else {
            self.world.sim.report().stats.kinetic_energy
        }
    }
}

/// Return the slice count of a sliced strategy.
#[must_use]
fn slices_of(strategy: &ToiMode) -> Option<u32> {
    match *strategy {
        ToiMode::Sliced { slices } | ToiMode::SlicedBisect { slices, .. } => Some(slices),
        ToiMode::Analytic | ToiMode::Discrete | ToiMode::Custom(_) => None,
    }
}

/// Return `value` relative to `start`, or the plain difference when `start` is zero.
#[must_use]
pub(crate) fn drift(start: Real, value: Real) -> Real {
    if start != 0.0 {
        (value - start) / start.abs()
    } else {
        value - start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::{self, RunOptions};

    fn cradle() -> Scene {
        Scene::parse(
            include_str!("../../scenes/newtons_cradle.ron"),
            "newtons_cradle.ron",
        )
        .unwrap()
    }

    #[test]
    fn a_pane_stepped_n_times_ends_where_a_headless_run_of_n_steps_ends() {
        let scene = cradle();
        let mut pane = Pane::new(&scene, ToiMode::Analytic);
        for _ in 0..300 {
            pane.step(&scene, scene.dt);
        }
        let options = RunOptions {
            steps: 300,
            toi: ToiMode::Analytic,
            events: false,
        };
        let report = runs::run(&scene, "cradle", options, |_| {}).unwrap();
        for (ball, expected) in pane.balls.iter().zip(&report.balls) {
            assert_eq!(
                ball.position.to_array(),
                expected.pos.to_array(),
                "bit for bit"
            );
        }
        assert_eq!(pane.totals.collisions, report.stats.steps.collisions);
        assert_eq!(pane.faults.counts(), (0, 0));
    }

    #[test]
    fn strategies_cycle_through_the_built_ins_with_the_slice_count() {
        let scene = cradle();
        let mut pane = Pane::new(&scene, ToiMode::Analytic);
        pane.change_slices(false);
        assert_eq!(pane.slices, 100);
        pane.cycle_strategy();
        assert_eq!(pane.strategy(), ToiMode::Sliced { slices: 100 });
        pane.change_slices(true);
        assert_eq!(pane.strategy(), ToiMode::Sliced { slices: 150 });
        pane.cycle_strategy();
        assert_eq!(pane.strategy().to_string(), "sliced-bisect:150");
        pane.cycle_strategy();
        assert_eq!(pane.strategy(), ToiMode::Discrete);
        pane.cycle_strategy();
        assert_eq!(pane.strategy(), ToiMode::Analytic);
    }

    #[test]
    fn a_fault_keeps_the_path_of_the_step_it_was_found_in() {
        let scene = Scene::parse(include_str!("../../scenes/bullets.ron"), "bullets.ron").unwrap();
        let mut pane = Pane::new(&scene, ToiMode::Sliced { slices: 150 });
        for _ in 0..3 {
            pane.step(&scene, scene.dt);
        }
        let (_, through) = pane.faults.counts();
        assert!(through > 0, "the sliced search misses some bullets");
        for (i, ball) in scene.balls.iter().enumerate() {
            let fault = pane.faults.per_ball[i];
            let path = pane.fault_paths[i];
            assert_eq!(fault.is_some(), path.is_some(), "ball {i}");
            let Some((step, from, to)) = path else {
                continue;
            };
            // A pane bullet tunnels in the first step: from x = -3 across the pane at x = 0
            // to x = -3 + 400/60 = 3.67, and flies on
            if ball.name.as_deref().is_some_and(|n| n.starts_with("pane")) {
                assert_eq!((step, from), (1, ball.position), "ball {i}");
                assert!(from.x < 0.0 && to.x > 0.0, "ball {i}: {from} -> {to}");
                assert!(pane.balls[i].position.x > to.x, "ball {i}");
            }
        }
        pane.reset(&scene);
        assert!(pane.fault_paths.iter().all(Option::is_none));
    }

    #[test]
    fn balls_are_drawn_through_their_contacts() {
        let scene = Scene::parse(include_str!("../../scenes/bullets.ron"), "bullets.ron").unwrap();
        let mut pane = Pane::new(&scene, ToiMode::Analytic);
        pane.step(&scene, scene.dt);
        // Bullet "pane 1" touches the pane at x = 0 when its centre is at x = -0.005, after
        // 2.995 m at 400 m/s: 0.0074875 s, 0.44925 of the step; it ends 400 / 60 - 2.995 =
        // 3.6717 m back from there, at x = -3.6767
        let (i, fraction, _) = pane.contacts[0];
        assert_eq!(i, 0);
        assert!((fraction - 0.44925).abs() < 1e-9, "{fraction}");
        let at = |alpha| pane.centres(alpha)[0];
        assert!((at(fraction).x + 0.005).abs() < 1e-9, "{}", at(fraction));
        assert_eq!(at(0.0), scene.balls[0].position);
        assert_eq!(at(1.0), pane.balls[0].position);
        assert!((at(1.0).x + 3.676_667).abs() < 1e-5, "{}", at(1.0));
        // Halfway to the pane, halfway back
        let half = at(fraction * 0.5).x;
        assert!((half - (-3.0 - 0.005) * 0.5).abs() < 1e-9, "{half}");
        // A ball without a contact in the step moves on its straight line
        let before = Pane::new(&scene, ToiMode::Analytic).balls;
        let mut free = Pane::new(&scene, ToiMode::Analytic);
        free.step(&scene, scene.dt);
        free.step(&scene, scene.dt);
        assert!(free.contacts.iter().all(|c| c.0 != 0));
        let ball = free.balls[0];
        assert!(ball.previous != before[0].position);
        let mid = ball.previous.lerp(ball.position, 0.25);
        assert!((free.centres(0.25)[0] - mid).length() < 1e-12);
    }

    #[test]
    fn a_reset_returns_to_the_start_and_keeps_the_strategy() {
        let scene = cradle();
        let mut pane = Pane::new(&scene, ToiMode::Sliced { slices: 20 });
        for _ in 0..50 {
            pane.step(&scene, scene.dt);
        }
        pane.reset(&scene);
        assert_eq!(pane.world.sim.steps(), 0);
        assert_eq!(pane.strategy(), ToiMode::Sliced { slices: 20 });
        assert_eq!(pane.balls[0].position, scene.balls[0].position);
    }
}
