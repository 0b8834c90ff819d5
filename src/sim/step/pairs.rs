//! Who asks about a pair in a step, and the pairs its queries met.

use crate::math::Real;
use crate::sim::measure::Touching;

/// Who asks about a pair in this step, and the pairs its queries met: touching, meeting, or
/// declined at a contact.
#[derive(Debug, Default)]
pub(super) struct Pairs {
    /// Per ball, when in the step it last changed course (a count of changes; 0: not since the
    /// step began). Decides which ball of a pair asks.
    pub(super) changed: Vec<u32>,
    /// Per ball, the time of its last change of course in the step (meaningful where
    /// `changed` is not 0).
    pub(super) changed_at: Vec<Real>,
    /// Changes of course so far in the step.
    pub(super) changes: u32,
    /// Per ball, its path over the step is longer than a cell of the memory order, or roams.
    pub(super) long: Vec<bool>,
    /// Every pair a query of this step found touching or meeting: any pair that overlaps at
    /// the end of the step is among them.
    pub(super) contacts: Vec<Touching>,
    /// Pairs met at a contact that turned out not to approach, with the time from which they
    /// may meet again (infinite for pairs that part for good); asked only from then until one
    /// of them changes course.
    pub(super) declined: Vec<(Touching, Real)>,
    /// A pair declined in this step may meet again later (paths that curve back together, or
    /// pressed together as the step ran out): the step is not calm.
    pub(super) declined_may_meet: bool,
    /// A resting cluster at the step's start met a contact on earned velocities alone (a slow
    /// impact, inelastic): the step is not calm.
    pub(super) rested_at_start: bool,
}

impl Pairs {
    /// Start a step of `n` balls: none has changed course, no pair is met or declined.
    pub(super) fn begin(&mut self, n: usize) {
        self.contacts.clear();
        self.declined.clear();
        self.changed.clear();
        self.changed.resize(n, 0);
        self.changed_at.clear();
        self.changed_at.resize(n, 0.0);
        self.changes = 0;
        self.long.clear();
    }

    /// When ball `k` last changed course in the step that began at `t0`; `None` where it has
    /// not.
    pub(super) fn changed_in_step(&self, k: usize, t0: Real) -> Option<Real> {
        let since = self.changed_at[k];
        (self.changed[k] > 0 && since >= t0).then_some(since)
    }
}
