//! Sleeping: groups of touching balls that have stayed still are taken out of the step.
//!
//! Without friction, a ball in the hollow between others keeps rocking: it leaves its curved
//! support on a straight tangent path, falls back slower than the rest speed, and loses only
//! the normal part of its velocity each time. The motion dies away but never ends. Sleeping
//! ends it, the way the big engines do (Box2D, Rapier), with a rule that keeps piles honest:
//!
//! - A ball is *still* while each step moves it slower than [`SleepConfig::speed`] (by default
//!   the speed gravity adds in one step, below which a step cannot tell motion from a fall
//!   onto a support and its undoing) and it stays within [`SleepConfig::drift`] radii of where
//!   its stillness began. A faster step or a longer way resets its clock. A ball that rocks in
//!   a hollow is still; one that slides on, however slowly, is not. A ball moving on a surface
//!   in closed form is still only where it stands there: rolling, sliding or pulled down a
//!   slope it is not, however long the step (see `sim::surface`); nor is a ball that ends a
//!   step in flight, which nothing holds against gravity, nor one that ends it going faster
//!   than the sleep speed (a long step's way may end where it began).
//! - Balls that have been still for [`SleepConfig::time`] and touched in the step (a
//!   collision, or a contact found touching) form an *island*, together with the sleeping
//!   islands they touched. A ball that is not still is an island of its own: it keeps no one
//!   else awake, so a pile sleeps from the bottom up while a few balls on it still settle, and
//!   they join it when they are still in turn. A ball that nothing held at the step's start
//!   (it began the step near nothing, or its cluster's solve left a force on it unbalanced)
//!   is the exception: it may still come down on the balls below it that it touched, so
//!   their islands wait for it (a stack sliding apart at a long step slept under its top
//!   ball, and held it up like a floor).
//! - An island falls asleep when it rested in the step on a static shape or a sleeping ball
//!   (a resting contact with it). Its balls get velocity zero and a shared island number in
//!   their [`Sleep`](super::Sleep) component. A still ball held up only by moving balls rests
//!   on nothing that stays, and stays awake: asleep, it would float once they were gone.
//! - A sleeping ball feels no gravity and asks no queries. Moving balls still collide with it:
//!   in a resting contact it holds like a static shape and stays asleep; a harder hit wakes it,
//!   is resolved with its full mass (so momentum and energy stay exact), and wakes its whole
//!   island at the end of the step.
//! - Edits between steps wake the sleepers they concern, checked at the start of each step
//!   against fingerprints in each sleeper's [`Sleep`](super::Sleep) (see `sim::change`): a
//!   sleeper whose velocity, position, radius, mass or restitution was set by the caller wakes,
//!   and its island after the step; so does one woken by [`Sleep::wake`](super::Sleep::wake).
//!   Any change to the static shapes (moved, added, removed, another restitution), to the
//!   gravity or to any field of the [`StepConfig`](super::StepConfig) wakes every sleeper at
//!   once; so does an island losing a ball (despawned, or its `Sleep` reset) for the rest of
//!   that island. A change to one static wakes sleepers far from it too: the fingerprint says
//!   that the statics changed, not where.
//! - With sleeping off, every ball is awake and its clock stays at zero.
//!
//! Without gravity the default rest speed is zero, nothing rests, and nothing falls asleep.

use std::num::NonZeroU64;

use crate::math::{Real, Vec3};

/// When still balls fall asleep; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SleepConfig {
    /// Speed over a step (distance moved over `dt`) below which a ball may count as still, in
    /// length units per time unit: finite, `>= 0`. `None` (the default) uses `|gravity| dt`.
    pub speed: Option<Real>,
    /// How far a still ball may wander from where its stillness began, in radii: finite,
    /// `>= 0`. Default 0.1.
    pub drift: Real,
    /// How long every ball of an island must stay still before it sleeps, in time units:
    /// finite, `> 0`. Default 0.5.
    pub time: Real,
}

impl Default for SleepConfig {
    fn default() -> Self {
        Self {
            speed: None,
            drift: 0.1,
            time: 0.5,
        }
    }
}

/// One ball's sleep state during a step.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Rest {
    /// How long it has been still.
    pub still_for: Real,
    /// Where its stillness began.
    pub anchor: Vec3,
    /// The island it sleeps with; `None` while awake.
    pub island: Option<NonZeroU64>,
    /// The island it was woken from in this step: that island wakes.
    pub woke_from: Option<NonZeroU64>,
    /// It came to rest in this step against a static shape or a sleeping ball: what a sleeping
    /// island must rest on (a resting contact with a moving ball does not count).
    pub grounded: bool,
    /// What the resting clusters of this step's start found holding it.
    pub footing: Footing,
}

/// What the resting clusters of a step's start found holding a ball up (see
/// `Stepper::project_resting`), for sleep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Footing {
    /// Held, or not judged: asleep, without gravity, rolling resistant, or in a cluster too
    /// large to solve or left to the event loop (those sleep by their drift).
    #[default]
    Held,
    /// Awake under gravity but near nothing: nothing held it up. Its island does not fall
    /// asleep at the step's end, however still it is (it keeps its clock).
    Aloft,
    /// Its rough cluster's solve left a force on it unbalanced (its velocity changed by more
    /// than rounding over the step): it is not still, whatever its drift.
    Unbalanced,
    /// Frictionless, on static shapes or sleepers alone, its projection left it moving beyond
    /// rounding across their normals: it glides on for ever, and is not still, whatever its
    /// drift (a slow slide along a floor).
    Glides,
}

impl Footing {
    /// True when a force or its glide moves the ball: it is not still.
    #[inline]
    pub fn moves(self) -> bool {
        matches!(self, Self::Unbalanced | Self::Glides)
    }

    /// True when nothing held the ball against gravity: it may come down on the balls below
    /// it that it touched, whose islands wait for it.
    #[inline]
    pub fn may_come_down(self) -> bool {
        matches!(self, Self::Aloft | Self::Unbalanced)
    }
}

impl Rest {
    /// True while asleep.
    #[inline]
    pub fn asleep(&self) -> bool {
        self.island.is_some()
    }

    /// Count a step of `dt` that ended at `position` and moved the ball at `speed`: still if
    /// `speed <= limit` and `position` is within `reach` of the anchor.
    #[inline]
    pub fn observe(&mut self, position: Vec3, speed: Real, limit: Real, reach: Real, dt: Real) {
        if self.asleep() {
            return;
        }
        if self.still_for > 0.0 && speed <= limit && position.distance(self.anchor) <= reach {
            self.still_for += dt;
        } else if speed <= limit {
            // Stillness begins here
            self.still_for = dt;
            self.anchor = position;
        } else {
            self.still_for = 0.0;
        }
    }

    /// Wake it: awake, not still, and its island to be woken.
    #[inline]
    pub fn wake(&mut self) {
        self.woke_from = self.island.take().or(self.woke_from);
        self.still_for = 0.0;
    }
}

/// What an island is found to be.
#[derive(Clone, Copy, Debug)]
struct Island {
    still: bool,
    grounded: bool,
    /// It bears a ball that may still come down on it: it waits for that ball.
    waits: bool,
    woke: bool,
    name: NonZeroU64,
}

/// Reused buffers of the island search.
#[derive(Debug, Default)]
pub(crate) struct Islands {
    /// Per ball, its height against gravity at the step's end (in any unit), filled by the
    /// caller before [`Islands::settle`].
    pub heights: Vec<Real>,
    parent: Vec<u32>,
    sleepers: Vec<(NonZeroU64, u32)>,
    islands: Vec<Island>,
}

impl Islands {
    /// Find the islands joined by `links` (pairs of ball indices that touched in the step),
    /// and put to sleep or wake each island as a whole, by the clocks of `rests` (see
    /// [`Rest::observe`]), a required stillness of `time`, and the balls' heights (see
    /// [`Islands::heights`]). Balls put to sleep must have their velocity set to zero by the
    /// caller.
    pub fn settle(
        &mut self,
        time: Real,
        rests: &mut [Rest],
        id: impl Fn(usize) -> NonZeroU64,
        links: &[(u32, u32)],
    ) {
        if !rests.iter().any(|r| r.asleep() || r.grounded) {
            return;
        }

        let n = rests.len();
        self.parent.clear();
        self.parent.extend(0..n as u32);
        // A hair of tolerance: thirty steps of 1/60 add up to just under 0.5
        let still = |r: &Rest| r.asleep() || r.still_for >= time * (1.0 - 1e-9);
        for &(a, b) in links {
            if still(&rests[a as usize]) && still(&rests[b as usize]) {
                self.union(a, b);
            }
        }
        // The balls of one sleeping island stay together
        self.sleepers.clear();
        self.sleepers.extend(
            rests
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r.island.or(r.woke_from).map(|k| (k, i as u32))),
        );
        self.sleepers.sort_unstable();
        for k in 1..self.sleepers.len() {
            let ((a, i), (b, j)) = (self.sleepers[k - 1], self.sleepers[k]);
            if a == b {
                self.union(i, j);
            }
        }

        self.islands.clear();
        self.islands.resize(
            n,
            Island {
                still: true,
                grounded: false,
                waits: false,
                woke: false,
                name: NonZeroU64::MAX,
            },
        );
        for (i, rest) in rests.iter().enumerate() {
            let root = self.find(i as u32) as usize;
            let island = &mut self.islands[root];
            island.still &= still(rest);
            island.grounded |= rest.asleep() || rest.grounded;
            island.waits |= rest.footing == Footing::Aloft;
            island.woke |= rest.woke_from.is_some();
            island.name = island.name.min(id(i));
        }
        // A ball that nothing held at the step's start holds awake the balls below it that it
        // touched: it may come down on them, and they must bear it before they sleep
        for &(a, b) in links {
            for (from, to) in [(a as usize, b), (b as usize, a)] {
                let above = self.heights[from] > self.heights[to as usize];
                if rests[from].footing.may_come_down() && above {
                    let root = self.find(to) as usize;
                    self.islands[root].waits = true;
                }
            }
        }
        for (i, rest) in rests.iter_mut().enumerate() {
            let root = self.find(i as u32) as usize;
            let island = self.islands[root];
            if island.woke {
                rest.island = None;
                rest.still_for = 0.0;
            } else if island.still && island.grounded && !island.waits {
                rest.island = Some(island.name);
            }
        }
    }

    fn find(&mut self, i: u32) -> u32 {
        find(&mut self.parent, i)
    }

    fn union(&mut self, a: u32, b: u32) {
        union(&mut self.parent, a, b);
    }
}

/// Return the root of `i`'s set in the union-find forest `parent`, halving the path on the way.
pub(super) fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let grandparent = parent[parent[i as usize] as usize];
        parent[i as usize] = grandparent;
        i = grandparent;
    }
    i
}

/// Join the sets of `a` and `b` in the union-find forest `parent`: the smaller root becomes the
/// root of both, so the roots do not depend on the order of the joins' halving.
pub(super) fn union(parent: &mut [u32], a: u32, b: u32) {
    let (a, b) = (find(parent, a), find(parent, b));
    if a != b {
        parent[a.max(b) as usize] = a.min(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ball `i`'s own number in the tests.
    fn ids(list: &'static [u64]) -> impl Fn(usize) -> NonZeroU64 {
        move |i| NonZeroU64::new(list[i]).expect("ids are not zero")
    }

    const DT: Real = 0.1;

    #[test]
    fn rocking_in_place_is_still_and_sliding_on_is_not() {
        let mut rocking = Rest::default();
        let mut sliding = Rest::default();
        for step in 0..20 {
            // Back and forth by 0.01 at speed 0.1; on and on by 0.01 at speed 0.1
            let x = if step % 2 == 0 { 0.0 } else { 0.01 };
            rocking.observe(Vec3::new(x, 0.0, 0.0), 0.1, 0.16, 0.05, DT);
            sliding.observe(
                Vec3::new(0.01 * step as Real, 0.0, 0.0),
                0.1,
                0.16,
                0.05,
                DT,
            );
        }
        assert!((rocking.still_for - 2.0).abs() < 1e-12, "{rocking:?}");
        // The way from the anchor passes 0.05 every sixth step
        assert!(sliding.still_for <= 0.6 + 1e-12, "{sliding:?}");
        // One fast step resets the clock
        rocking.observe(Vec3::ZERO, 0.2, 0.16, 0.05, DT);
        assert_eq!(rocking.still_for, 0.0);
    }

    #[test]
    fn still_balls_sleep_in_islands_that_rest_and_wait_for_what_nothing_holds_on_them() {
        let mut islands = Islands::default();
        // Ball 0 rests on the floor, ball 1 on ball 0, ball 2 settles on ball 1, unbalanced
        // for two steps (its cluster's solve moves it), then held; ball 3 touches nothing;
        // ball 4 is still but rests only on ball 5, which slides on the floor; ball 6 rests
        // on the floor beside ball 7, unbalanced; ball 9, aloft (it began the step near
        // nothing) though still, came down on ball 8
        let mut rests = vec![Rest::default(); 10];
        rests[0].grounded = true;
        rests[0].still_for = 1.0;
        rests[1].still_for = 0.6;
        rests[3].still_for = 1.0;
        rests[4].still_for = 1.0;
        rests[5].grounded = true;
        rests[6].grounded = true;
        rests[6].still_for = 1.0;
        rests[7].grounded = true;
        rests[7].footing = Footing::Unbalanced;
        rests[8].grounded = true;
        rests[8].still_for = 1.0;
        rests[9].still_for = 1.0;
        rests[9].footing = Footing::Aloft;
        islands.heights = vec![0.1, 0.3, 0.5, 0.1, 0.3, 0.1, 0.1, 0.1, 0.1, 0.3];
        let links = [(0, 1), (1, 2), (4, 5), (6, 7), (8, 9)];
        let ids = ids(&[10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
        for step in 1..=5 {
            rests[2].footing = if step <= 2 {
                Footing::Unbalanced
            } else {
                Footing::Held
            };
            rests[2].still_for = 0.1 * step as Real;
            islands.settle(0.5, &mut rests, &ids, &links);
            // The pile waits while nothing holds the ball on it, then sleeps from the bottom
            // up while that ball settles, and it joins them when still
            assert_eq!(rests[0].asleep(), step >= 3, "step {step}");
            assert_eq!(rests[1].asleep(), step >= 3, "step {step}");
            assert_eq!(rests[2].asleep(), step == 5, "step {step}");
            assert!(!rests[3].asleep(), "not grounded: never");
            assert!(!rests[4].asleep(), "held up by a moving ball: never");
            assert!(!rests[5].asleep(), "moving: never");
            assert!(
                rests[6].asleep(),
                "an unbalanced ball beside it bears on nothing"
            );
            assert!(!rests[7].asleep(), "moving: never");
            assert!(!rests[8].asleep() && !rests[9].asleep(), "aloft: not yet");
        }
        for rest in &rests[..3] {
            assert_eq!(rest.island, NonZeroU64::new(10));
        }
    }

    #[test]
    fn waking_one_ball_wakes_its_island_and_not_another() {
        let mut islands = Islands::default();
        let mut rests = vec![Rest::default(); 4];
        for r in &mut rests[..2] {
            r.island = NonZeroU64::new(1);
        }
        for r in &mut rests[2..] {
            r.island = NonZeroU64::new(3);
        }
        rests[1].wake();
        islands.heights = vec![0.0; 4];
        islands.settle(0.5, &mut rests, ids(&[1, 2, 3, 4]), &[]);
        assert!(!rests[0].asleep() && !rests[1].asleep());
        assert_eq!(rests[0].still_for, 0.0);
        assert_eq!(rests[2].island, NonZeroU64::new(3));
        assert_eq!(rests[3].island, NonZeroU64::new(3));
    }

    #[test]
    fn a_still_ball_joining_two_sleeping_islands_merges_them() {
        let mut islands = Islands::default();
        let mut rests = vec![Rest::default(); 3];
        rests[0].island = NonZeroU64::new(5);
        rests[2].island = NonZeroU64::new(7);
        rests[1].still_for = 1.0;
        islands.heights = vec![0.0; 3];
        islands.settle(0.5, &mut rests, ids(&[5, 6, 7]), &[(1, 0), (1, 2)]);
        assert!(
            rests.iter().all(|r| r.island == NonZeroU64::new(5)),
            "{rests:?}"
        );
    }
}
