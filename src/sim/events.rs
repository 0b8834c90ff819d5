//! What happened in a step: collision events and statistics.

use hecs::Entity;
use serde::Serialize;

use crate::math::{Real, Vec3};
use crate::toi::PairKind;

/// One resolved collision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollisionEvent {
    /// The ball.
    pub a: Entity,
    /// The other ball, or the static shape's entity.
    pub b: Entity,
    /// What `b` is.
    pub kind: PairKind,
    /// Time of the contact, from the start of the step, in `[0, dt]`.
    pub time: Real,
    /// The contact point, on `b`'s surface.
    pub point: Vec3,
    /// Unit normal from `b` towards `a`.
    pub normal: Vec3,
    /// Magnitude of the impulse along the normal (mass times velocity change of `a`).
    pub impulse: Real,
}

/// Counts and measures of one step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StepStats {
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
    /// Time-of-impact queries asked of the strategy.
    pub toi_queries: u64,
    /// Contacts reached after the step's budget of resolved collisions ran out
    /// ([`StepConfig::max_events_per_step`](crate::StepConfig::max_events_per_step)): each
    /// stopped its moving balls where they touch instead of being resolved.
    pub events_cap_hits: u64,
    /// Balls stopped at a contact because the budget ran out: they stood still for the rest of
    /// the step and ended it at rest, velocity and spin zero.
    pub stopped: u64,
    /// Kinetic energy the [`stopped`](Self::stopped) balls had when they stopped, spin
    /// included (`Σ ½ m v² + ½ I ω²`, `I = 2/5 m r²`; in mass times length² per time²),
    /// taken out of the world; 0 when the budget did not run out. Gravity paid in advance (a
    /// ball held at a resting contact takes the rest of the step's gravity at once) is not
    /// counted: the ball had not earned it. Without gravity, the kinetic energy at a step's
    /// start is its [`kinetic_energy`](Self::kinetic_energy) at the end plus this plus what the
    /// collisions dissipated (none in an elastic, frictionless world).
    pub energy_stopped: Real,
    /// Momentum the [`stopped`](Self::stopped) balls had when they stopped, `Σ m v` (earned,
    /// as for [`energy_stopped`](Self::energy_stopped)), taken out of the world.
    pub momentum_stopped: [Real; 3],
    /// Islands of balls in contact whose impulses were solved together and kept: resting
    /// clusters at the step's start (projected twice: what the balls earned, then with the
    /// step's gravity; each projection counted) and crowds met as one impact.
    pub contact_solves: u64,
    /// Sweeps over their contacts, summed over the [`contact_solves`](Self::contact_solves).
    pub contact_sweeps: u64,
    /// Largest residual of the [`contact_solves`](Self::contact_solves), in length per time: the
    /// speed a contact still closes at, a pushing contact parts at, or (with friction) a contact
    /// slips at within Coulomb's cone, which its own impulse would still take away (the natural
    /// map's residual; for a [relaxed](Self::contact_solves_relaxed) solve, its relaxation's). A resting cluster's solve is kept only within `1e-12` of the step's
    /// rest speed, a crowd's within `2e-9` of its fastest ball's speed; one that does not meet
    /// its tolerance is not kept (see [`contact_solves_left`](Self::contact_solves_left)). 0
    /// when nothing was solved.
    pub contact_residual: Real,
    /// Largest residual of the [`contact_solves`](Self::contact_solves) as a share of the
    /// tolerance its solve is held to (see [`contact_residual`](Self::contact_residual)): at
    /// most 1, whichever kinds of solve the step met. 0 when nothing was solved.
    pub contact_residual_share: Real,
    /// Resting clusters and crowds left to the event loop's contacts (met pair by pair): their
    /// solve did not meet its tolerance within its budget of sweeps, or (with friction) would
    /// have raised their energy.
    pub contact_solves_left: u64,
    /// Of the [`contact_solves`](Self::contact_solves), resting clusters with friction whose
    /// Coulomb problem did not settle, kept with the convex relaxation of Coulomb's law
    /// instead: impulses within the cones, sticking contacts still, and a sliding contact
    /// parting at `μ` times its slip, at most a step of gravity's speed (Anitescu 2006). Its
    /// residual is that law's, to the same tolerance.
    pub contact_solves_relaxed: u64,
    /// Largest overlap between a ball and anything at the end of the step, in length units.
    ///
    /// Measured over the pairs whose queries in the step found them touching or meeting (with a
    /// strategy whose misses are certain, see
    /// [`ToiStrategy::misses_are_certain`](crate::toi::ToiStrategy::misses_are_certain);
    /// otherwise over every pair asked about): the only pairs that can end a step overlapping.
    /// Pairs of two sleeping balls are not asked, so not measured again while they sleep.
    pub max_penetration: Real,
    /// Balls whose centre ended behind a plane or inside a cylinder, over the same pairs as
    /// [`max_penetration`](Self::max_penetration).
    pub escaped: u64,
    /// Balls asleep at the end of the step (see [`sleep`](crate::sim::sleep)).
    pub sleeping: u64,
    /// Kinetic energy at the end of the step, spin included: `Σ ½ m v² + ½ I ω²`, with
    /// `I = 2/5 m r²`.
    pub kinetic_energy: Real,
    /// Momentum at the end of the step, `Σ m v`.
    pub momentum: [Real; 3],
}

impl StepStats {
    /// Fold the stats of a later step into these, for totals over many steps: the counts and
    /// what the stopped balls had ([`energy_stopped`](Self::energy_stopped),
    /// [`momentum_stopped`](Self::momentum_stopped)) add up,
    /// [`max_penetration`](Self::max_penetration), [`escaped`](Self::escaped) and
    /// [`contact_residual`](Self::contact_residual) keep the largest, and
    /// [`sleeping`](Self::sleeping), the kinetic energy and the momentum take the later
    /// step's.
    pub fn add(&mut self, later: &Self) {
        self.collisions += later.collisions;
        self.ball_ball += later.ball_ball;
        self.ball_plane += later.ball_plane;
        self.ball_cylinder += later.ball_cylinder;
        self.ball_polygon += later.ball_polygon;
        self.toi_queries += later.toi_queries;
        self.events_cap_hits += later.events_cap_hits;
        self.stopped += later.stopped;
        self.energy_stopped += later.energy_stopped;
        self.contact_solves += later.contact_solves;
        self.contact_sweeps += later.contact_sweeps;
        self.contact_residual = self.contact_residual.max(later.contact_residual);
        self.contact_residual_share = self
            .contact_residual_share
            .max(later.contact_residual_share);
        self.contact_solves_left += later.contact_solves_left;
        self.contact_solves_relaxed += later.contact_solves_relaxed;
        self.momentum_stopped = (self.momentum_stopped() + later.momentum_stopped()).to_array();
        self.max_penetration = self.max_penetration.max(later.max_penetration);
        self.escaped = self.escaped.max(later.escaped);
        self.sleeping = later.sleeping;
        self.kinetic_energy = later.kinetic_energy;
        self.momentum = later.momentum;
    }

    /// Count one solve of contacts together: `sweeps` sweeps, leaving `residual` where it is
    /// held to `tolerance`.
    pub(crate) fn count_solve(&mut self, sweeps: usize, residual: Real, tolerance: Real) {
        self.contact_solves += 1;
        self.contact_sweeps += sweeps as u64;
        self.contact_residual = self.contact_residual.max(residual);
        if residual > 0.0 {
            self.contact_residual_share = self.contact_residual_share.max(residual / tolerance);
        }
    }

    /// Count one collision of `kind`.
    pub(crate) fn count(&mut self, kind: PairKind) {
        self.collisions += 1;
        match kind {
            PairKind::BallBall => self.ball_ball += 1,
            PairKind::BallPlane => self.ball_plane += 1,
            PairKind::BallCylinder => self.ball_cylinder += 1,
            PairKind::BallPolygon => self.ball_polygon += 1,
        }
    }

    /// Return the momentum as a vector.
    #[must_use]
    pub fn momentum(&self) -> Vec3 {
        Vec3::from_array(self.momentum)
    }

    /// Return the momentum the stopped balls had as a vector (see
    /// [`momentum_stopped`](Self::momentum_stopped)).
    #[must_use]
    pub fn momentum_stopped(&self) -> Vec3 {
        Vec3::from_array(self.momentum_stopped)
    }
}

/// What the last step did: its events in the order they were resolved, and its statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// The collisions, in time order.
    pub events: Vec<CollisionEvent>,
    /// The statistics.
    pub stats: StepStats,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_fold_counts_maxima_and_the_last_state() {
        let step = |n: u64, depth: Real, escaped: u64| StepStats {
            collisions: n,
            ball_plane: n,
            toi_queries: 10 * n,
            events_cap_hits: n / 2,
            stopped: n / 3,
            energy_stopped: 0.25 * n as Real,
            momentum_stopped: [0.5 * n as Real, -1.0, 0.0],
            max_penetration: depth,
            escaped,
            sleeping: n,
            kinetic_energy: n as Real,
            momentum: [n as Real, 0.0, -1.0],
            ..StepStats::default()
        };
        let mut totals = StepStats::default();
        for s in [step(4, 1e-3, 2), step(6, 1e-9, 0), step(3, 0.0, 1)] {
            totals.add(&s);
        }
        assert_eq!(totals.collisions, 13);
        assert_eq!(totals.ball_plane, 13);
        assert_eq!(totals.ball_ball, 0);
        assert_eq!(totals.toi_queries, 130);
        assert_eq!(totals.events_cap_hits, 2 + 3 + 1);
        assert_eq!(totals.stopped, 1 + 2 + 1);
        assert_eq!(totals.energy_stopped, 0.25 * 13.0);
        assert_eq!(totals.momentum_stopped, [0.5 * 13.0, -3.0, 0.0]);
        assert_eq!(totals.max_penetration, 1e-3);
        assert_eq!(totals.escaped, 2);
        assert_eq!(totals.sleeping, 3);
        assert_eq!(totals.kinetic_energy, 3.0);
        assert_eq!(totals.momentum, [3.0, 0.0, -1.0]);
    }
}
