//! The audit of a strategy: each of its queries asked again of the analytic sweep, and each
//! contact tallied once.
//!
//! The rules, so that the columns of `compare` agree with each other:
//! - A query whose pair already touches when it begins (a gap of at most [`TOUCHING`] of the
//!   radii, or an overlap by either answer) asks about a resting or sliding contact, not a new
//!   one; an analytic contact that goes no deeper than that on the paths is a graze. Neither
//!   is tallied.
//! - A contact is the analytic answer to one pair on one pair of paths. The stepper asks again
//!   about the same paths (after other events, at cell crossings, in the next step where paths
//!   hold): only the first query that finds something is tallied. A contact found and timed
//!   is over by the end of its step, so the same bits in a later step are a new contact; a
//!   missed or spurious one is remembered for the whole run.
//! - The analytic sweep finds a contact and the strategy none: missed. The strategy finds one
//!   and the analytic sweep none: spurious. Both find one: compared, with the time error,
//!   unless the strategy's contact is another one: later than the analytic contact, at a time
//!   when the pair, on its straight paths, is apart again (the strategy skipped the first
//!   contact). Then it is missed.

use std::cell::{Cell, RefCell};
use std::hash::{Hash, Hasher};

use hecs::Entity;
use rustc_hash::FxHashMap;

use crate::geometry::{ConvexPolygon, Cylinder, Plane, Shape};
use crate::judge::least;
use crate::math::Real;
use crate::toi::{Analytic, MovingBall, QueryPair, Toi, ToiMode, ToiStrategy};

/// Gap at the start of a query, relative to the radii, at or below which the pair counts as
/// already touching: a millionth. Resting and sliding contacts sit within it, and beyond it
/// the time of a contact is set by the paths, not by rounding (a ball sliding down a wall
/// 1e-9 radii away, closing at 1e-8 per second, meets it at a time rounding moves by 1e-8).
pub(super) const TOUCHING: Real = 1e-6;

/// How an audited query went, for `compare --explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// The analytic sweep finds a contact that the strategy does not (or finds elsewhere).
    Missed,
    /// The strategy reports a contact that the analytic sweep does not find.
    Spurious,
}

/// A missed or spurious contact, as the audit saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Noted {
    pub verdict: Verdict,
    /// The step, counted from 0.
    pub step: u64,
    /// Simulation time of the contact: the analytic one for a miss, the strategy's for a
    /// spurious one.
    pub time: Real,
    pub ball: Entity,
    pub other: Entity,
    /// The deepest overlap of the analytic contact on the two straight paths (missed), or
    /// minus the gap at the reported time (spurious).
    pub depth: Real,
}

/// The tallies of an audit.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Tally {
    pub missed: u64,
    pub spurious: u64,
    pub compared: u64,
    pub error_sum: Real,
    pub error_max: Real,
    /// The first missed and the first spurious contacts, up to the number asked for of each.
    pub noted: Vec<Noted>,
}

/// What the other side of a query is.
#[derive(Clone, Copy)]
enum Against<'a> {
    Ball(&'a MovingBall),
    Plane(&'a Plane),
    Cylinder(&'a Cylinder),
    Polygon(&'a ConvexPolygon),
}

impl Against<'_> {
    /// The signed gap between the pair at `t`: negative when they overlap.
    fn gap(self, ball: &MovingBall, t: Real) -> Real {
        let me = ball.at(t);
        match self {
            Self::Ball(other) => {
                me.center.distance(other.center_at(t)) - (me.radius + other.radius)
            }
            Self::Plane(s) => s.proximity(&me).distance,
            Self::Cylinder(s) => s.proximity(&me).distance,
            Self::Polygon(s) => s.proximity(&me).distance,
        }
    }

    /// The deepest overlap of the pair on its straight paths from `t` until the ball has moved
    /// twice the reach relative to the other side (for two balls, the whole overlap).
    fn depth_after(self, ball: &MovingBall, t: Real) -> Real {
        let speed = match self {
            Self::Ball(other) => (ball.velocity - other.velocity).length(),
            _ => ball.velocity.length(),
        };
        if speed == 0.0 {
            return -self.gap(ball, t);
        }
        let span = 2.0 * self.reach(ball) / speed;
        if let Self::Ball(other) = self {
            // Closest approach of two straight paths, in closed form
            let (d, w) = (ball.center - other.center, ball.velocity - other.velocity);
            let closest = (-d.dot(w) / w.length_squared()).clamp(t, t + span);
            return -self.gap(ball, closest);
        }
        -least(|s| self.gap(ball, s), t, t + span)
    }

    /// The sum of the radii that a relative gap is measured against.
    fn reach(self, ball: &MovingBall) -> Real {
        match self {
            Self::Ball(other) => ball.radius + other.radius,
            _ => ball.radius,
        }
    }

    fn analytic(self, ball: &MovingBall, t_max: Real) -> Toi {
        match self {
            Self::Ball(other) => Analytic.ball_ball(ball, other, t_max),
            Self::Plane(s) => Analytic.ball_plane(ball, s, t_max),
            Self::Cylinder(s) => Analytic.ball_cylinder(ball, s, t_max),
            Self::Polygon(s) => Analytic.ball_polygon(ball, s, t_max),
        }
    }
}

/// A strategy that asks the analytic sweep every question it is asked and tallies the
/// differences by the rules of the module; it answers with the strategy's own result, so the
/// run is the strategy's.
pub(super) struct Audit<S = ToiMode> {
    inner: S,
    /// How many missed and spurious contacts to note.
    keep: usize,
    /// The pair of the next query.
    pair: Cell<Option<QueryPair>>,
    /// The current step and the simulation time at its start.
    step: Cell<(u64, Real)>,
    /// The contacts tallied, by a hash of the pair and both paths: true for the missed and
    /// spurious ones, kept for the whole run, false for the compared ones, kept for their step.
    seen: RefCell<FxHashMap<u64, bool>>,
    tally: RefCell<Tally>,
}

impl<S: ToiStrategy> Audit<S> {
    /// Audit `inner`, noting the first `keep` missed contacts and the first `keep` spurious.
    pub fn new(inner: S, keep: usize) -> Self {
        Self {
            inner,
            keep,
            pair: Cell::new(None),
            step: Cell::new((0, 0.0)),
            seen: RefCell::default(),
            tally: RefCell::default(),
        }
    }

    /// Tell the audit that step `step` begins at simulation time `time`.
    pub fn begin_step(&self, step: u64, time: Real) {
        self.step.set((step, time));
        // A contact found and timed has happened, or one of its paths changed, by the end of
        // its step (a contact that turns out not to approach is not asked about again): the
        // same bits in a later step are a new contact (a ball stopped on a floor each step
        // meets it again each step). Memory stays with the step and the misses.
        self.seen.borrow_mut().retain(|_, kept| *kept);
    }

    /// The tallies so far.
    pub fn tally(&self) -> std::cell::Ref<'_, Tally> {
        self.tally.borrow()
    }

    /// Missed contacts so far.
    pub fn missed(&self) -> u64 {
        self.tally.borrow().missed
    }

    fn audit(&self, mine: Toi, ball: &MovingBall, other: Against<'_>, t_max: Real) -> Toi {
        let exact = other.analytic(ball, t_max);
        let overlapping = |toi: &Toi| matches!(toi, Toi::Overlapping(_));
        let touch = TOUCHING * other.reach(ball);
        if matches!((&mine, &exact), (Toi::Miss, Toi::Miss))
            || overlapping(&mine)
            || overlapping(&exact)
            || other.gap(ball, 0.0) <= touch
        {
            return mine;
        }
        // How deep the analytic contact goes on the paths: a graze within touching is none
        let depth = match exact {
            Toi::Hit(e) => other.depth_after(ball, e.time),
            _ => 0.0,
        };
        if matches!(exact, Toi::Hit(_)) && depth <= touch {
            return mine;
        }
        let key = self.key(ball, other);
        if self.seen.borrow().contains_key(&key) {
            return mine;
        }
        let mut tally = self.tally.borrow_mut();
        let (verdict, t, depth) = match (mine, exact) {
            // Later than the analytic contact, with the pair apart again: that one was skipped
            (Toi::Hit(m), Toi::Hit(e)) if m.time > e.time && other.gap(ball, m.time) > touch => {
                (Verdict::Missed, e.time, depth)
            }
            (Toi::Hit(m), Toi::Hit(e)) => {
                let error = (m.time - e.time).abs();
                self.seen.borrow_mut().insert(key, false);
                tally.compared += 1;
                tally.error_sum += error;
                tally.error_max = tally.error_max.max(error);
                return mine;
            }
            (Toi::Miss, Toi::Hit(e)) => (Verdict::Missed, e.time, depth),
            (Toi::Hit(m), Toi::Miss) => (Verdict::Spurious, m.time, -other.gap(ball, m.time)),
            _ => return mine,
        };
        self.seen.borrow_mut().insert(key, true);
        match verdict {
            Verdict::Missed => tally.missed += 1,
            Verdict::Spurious => tally.spurious += 1,
        }
        let room = tally.noted.len() < 2 * self.keep
            && tally.noted.iter().filter(|n| n.verdict == verdict).count() < self.keep;
        if room && let Some(pair) = self.pair.get() {
            let (step, start) = self.step.get();
            tally.noted.push(Noted {
                verdict,
                step,
                time: start + pair.start + t,
                ball: pair.ball,
                other: pair.other,
                depth,
            });
        }
        mine
    }

    /// The identity of the current query's contact: the pair and both paths, to the bit,
    /// whichever ball asks.
    fn key(&self, ball: &MovingBall, other: Against<'_>) -> u64 {
        let bits = |b: &MovingBall| {
            let [x, y, z] = b.center.to_array().map(Real::to_bits);
            let [u, v, w] = b.velocity.to_array().map(Real::to_bits);
            [x, y, z, u, v, w]
        };
        let (a, b) = match self.pair.get() {
            Some(pair) => (pair.ball, pair.other),
            None => (Entity::DANGLING, Entity::DANGLING),
        };
        let mine = (a, bits(ball));
        let theirs = match other {
            Against::Ball(other) => (b, bits(other)),
            _ => (b, [0; 6]),
        };
        let mut h = rustc_hash::FxHasher::default();
        match other {
            Against::Ball(_) if theirs < mine => (theirs, mine).hash(&mut h),
            _ => (mine, theirs).hash(&mut h),
        }
        h.finish()
    }
}

impl<S: ToiStrategy> ToiStrategy for Audit<S> {
    fn ball_ball(&self, ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi {
        let mine = self.inner.ball_ball(ball, other, t_max);
        self.audit(mine, ball, Against::Ball(other), t_max)
    }

    fn ball_plane(&self, ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi {
        let mine = self.inner.ball_plane(ball, plane, t_max);
        self.audit(mine, ball, Against::Plane(plane), t_max)
    }

    fn ball_cylinder(&self, ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi {
        let mine = self.inner.ball_cylinder(ball, cylinder, t_max);
        self.audit(mine, ball, Against::Cylinder(cylinder), t_max)
    }

    fn ball_polygon(&self, ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi {
        let mine = self.inner.ball_polygon(ball, polygon, t_max);
        self.audit(mine, ball, Against::Polygon(polygon), t_max)
    }

    // The strategy audited steps as it would alone
    fn misses_are_certain(&self) -> bool {
        self.inner.misses_are_certain()
    }

    fn before_query(&self, pair: &QueryPair) {
        self.pair.set(Some(*pair));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;
    use crate::toi::Contact;

    /// Reports every analytic contact `late` time units late, or misses it when `late` is None.
    struct Late(Option<Real>);

    impl ToiStrategy for Late {
        fn ball_ball(&self, ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi {
            self.shift(Analytic.ball_ball(ball, other, t_max))
        }
        fn ball_plane(&self, ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi {
            self.shift(Analytic.ball_plane(ball, plane, t_max))
        }
        fn ball_cylinder(&self, ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi {
            self.shift(Analytic.ball_cylinder(ball, cylinder, t_max))
        }
        fn ball_polygon(&self, ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi {
            self.shift(Analytic.ball_polygon(ball, polygon, t_max))
        }
    }

    impl Late {
        fn shift(&self, toi: Toi) -> Toi {
            match (toi, self.0) {
                (Toi::Hit(c), Some(late)) => Toi::Hit(Contact {
                    time: c.time + late,
                    ..c
                }),
                (Toi::Hit(_), None) => Toi::Miss,
                (other, _) => other,
            }
        }
    }

    fn pane() -> ConvexPolygon {
        let corners = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
        ConvexPolygon::new(corners.map(|(y, z)| Vec3::new(0.0, y, z)).to_vec()).unwrap()
    }

    fn pair(a: u32, b: u32) -> QueryPair {
        let mut world = hecs::World::new();
        let entities: Vec<Entity> = (0..=a.max(b)).map(|_| world.spawn(())).collect();
        QueryPair {
            ball: entities[a as usize],
            other: entities[b as usize],
            start: 0.0,
        }
    }

    /// A ball of radius 0.1 at x = -1 flying at the pane at 10: touches at t = 0.09, is
    /// through (apart again) from t = 0.11.
    fn bullet() -> MovingBall {
        MovingBall::new(Vec3::new(-1.0, 0.0, 0.0), 0.1, Vec3::new(10.0, 0.0, 0.0))
    }

    fn counts<S: ToiStrategy>(audit: &Audit<S>) -> (u64, u64, u64) {
        let t = audit.tally();
        (t.missed, t.spurious, t.compared)
    }

    #[test]
    fn a_contact_asked_about_again_is_counted_once() {
        let audit = Audit::new(Late(None), 10);
        let pane = pane();
        audit.before_query(&pair(0, 1));
        for _ in 0..3 {
            let _ = audit.ball_polygon(&bullet(), &pane, 1.0);
        }
        assert_eq!(counts(&audit), (1, 0, 0));
        // Two balls, whichever asks
        let a = MovingBall::new(Vec3::new(-1.0, 0.0, 0.0), 0.1, Vec3::new(10.0, 0.0, 0.0));
        let b = MovingBall::new(Vec3::new(1.0, 0.0, 0.0), 0.1, Vec3::new(-10.0, 0.0, 0.0));
        let audit = Audit::new(Late(None), 10);
        audit.before_query(&pair(0, 1));
        let _ = audit.ball_ball(&a, &b, 1.0);
        audit.before_query(&pair(1, 0));
        let _ = audit.ball_ball(&b, &a, 1.0);
        assert_eq!(counts(&audit), (1, 0, 0));
        let noted = &audit.tally().noted;
        assert_eq!(noted.len(), 1);
        assert!((noted[0].time - 0.09).abs() < 1e-12, "{noted:?}");
        // The whole overlap: centres meet
        assert!((noted[0].depth - 0.2).abs() < 1e-9, "{noted:?}");
    }

    #[test]
    fn a_timed_contact_met_again_in_a_later_step_is_new_and_a_missed_one_is_not() {
        let pane = pane();
        for (strategy, expected) in [(Late(Some(0.0)), (0, 0, 2)), (Late(None), (1, 0, 0))] {
            let audit = Audit::new(strategy, 0);
            for step in 0..2 {
                audit.begin_step(step, 0.0);
                audit.before_query(&pair(0, 1));
                for _ in 0..2 {
                    let _ = audit.ball_polygon(&bullet(), &pane, 1.0);
                }
            }
            assert_eq!(counts(&audit), expected);
        }
    }

    #[test]
    fn a_late_contact_is_timed_while_the_pair_overlaps_and_missed_once_it_is_through() {
        let pane = pane();
        for (late, expected) in [(0.015, (0, 0, 1)), (0.05, (1, 0, 0))] {
            let audit = Audit::new(Late(Some(late)), 0);
            let _ = audit.ball_polygon(&bullet(), &pane, 1.0);
            assert_eq!(counts(&audit), expected, "{late}");
        }
        // Early is a timing error, however early
        let early = Audit::new(Late(Some(-0.08)), 0);
        let _ = early.ball_polygon(&bullet(), &pane, 1.0);
        assert_eq!(counts(&early), (0, 0, 1));
        assert!((early.tally().error_max - 0.08).abs() < 1e-12);
    }

    #[test]
    fn touching_pairs_and_grazes_are_no_contacts() {
        let floor = Plane::new(Vec3::ZERO, Vec3::Y).unwrap();
        // Resting a hair above the floor, sinking: touching when the query begins
        let resting = MovingBall::new(
            Vec3::new(0.0, 0.1 + 1e-9, 0.0),
            0.1,
            Vec3::new(0.0, -1.0, 0.0),
        );
        let audit = Audit::new(Late(None), 0);
        let _ = audit.ball_plane(&resting, &floor, 1.0);
        assert_eq!(counts(&audit), (0, 0, 0));
        // The same a radius up is a contact
        let falling = MovingBall::new(Vec3::new(0.0, 0.2, 0.0), 0.1, Vec3::new(0.0, -1.0, 0.0));
        let _ = audit.ball_plane(&falling, &floor, 1.0);
        assert_eq!(counts(&audit), (1, 0, 0));
        // Two balls passing side by side, overlapping by 1e-12 at the closest: a graze
        let a = MovingBall::new(Vec3::new(-1.0, 0.0, 0.0), 0.1, Vec3::new(10.0, 0.0, 0.0));
        let b = MovingBall::new(Vec3::new(0.0, 0.2 - 1e-12, 0.0), 0.1, Vec3::ZERO);
        let audit = Audit::new(Late(None), 0);
        let _ = audit.ball_ball(&a, &b, 1.0);
        assert_eq!(counts(&audit), (0, 0, 0));
    }

    #[test]
    fn a_contact_where_there_is_none_is_spurious() {
        struct Always;
        impl ToiStrategy for Always {
            fn ball_ball(&self, _: &MovingBall, _: &MovingBall, _: Real) -> Toi {
                Toi::Miss
            }
            fn ball_plane(&self, ball: &MovingBall, _: &Plane, _: Real) -> Toi {
                Toi::Hit(Contact {
                    time: 0.5,
                    point: ball.center,
                    normal: Vec3::Y,
                    depth: 0.0,
                })
            }
            fn ball_cylinder(&self, _: &MovingBall, _: &Cylinder, _: Real) -> Toi {
                Toi::Miss
            }
            fn ball_polygon(&self, _: &MovingBall, _: &ConvexPolygon, _: Real) -> Toi {
                Toi::Miss
            }
        }
        let floor = Plane::new(Vec3::ZERO, Vec3::Y).unwrap();
        let rising = MovingBall::new(Vec3::new(0.0, 1.0, 0.0), 0.1, Vec3::new(0.0, 1.0, 0.0));
        let audit = Audit::new(Always, 1);
        audit.before_query(&pair(0, 1));
        let _ = audit.ball_plane(&rising, &floor, 1.0);
        assert_eq!(counts(&audit), (0, 1, 0));
        // Apart by the gap at t = 0.5: 1.5 - 0.1
        assert!((audit.tally().noted[0].depth + 1.4).abs() < 1e-12);
    }
}
