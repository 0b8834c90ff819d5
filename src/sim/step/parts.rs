//! A step in parts: where the resting clusters of a step's start would move so far on their
//! straight paths that their contacts no longer hold through it (a pile sliding apart at a
//! long step, which would otherwise keep a whole step's push of gravity), the step changes
//! nothing and goes in two halves, each of which may halve again.

use hecs::{Entity, World};

use super::Stepper;
use crate::math::Real;
use crate::sim::components::{Path, PreviousPosition};
use crate::sim::config::StepError;
use crate::toi::ToiStrategy;

/// Whether a step was taken whole.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Whole {
    /// Taken.
    Done,
    /// Not taken, nothing changed: its resting clusters would move so far on their straight
    /// paths that their contacts would not hold through it; it goes in two halves.
    Halve,
}

/// Halvings of a step at most (a step in up to 1,024 parts): past them a step is taken whole
/// whatever its clusters do.
const MAX_HALVINGS: u32 = 10;

impl Stepper {
    /// Advance `world` by `dt`, `halved` times halved already: where the resting clusters of
    /// its start would move so far on their straight paths that their contacts no longer
    /// hold (see `Stepper::project_resting`), in two halves instead, each of which may halve
    /// again, down to [`MAX_HALVINGS`]. Nothing is written to the world before that decision.
    pub(super) fn step_in_parts<S: ToiStrategy + ?Sized>(
        &mut self,
        world: &mut World,
        dt: Real,
        strategy: &S,
        halved: u32,
    ) -> Result<(), StepError> {
        if self.step_whole(world, dt, strategy, halved < MAX_HALVINGS)? == Whole::Done {
            return Ok(());
        }
        self.step_in_parts(world, dt / 2.0, strategy, halved + 1)?;
        let first = std::mem::take(&mut self.report);
        // The judge reads where each ball began the whole step
        let began: Vec<(Entity, PreviousPosition)> = world
            .query::<(Entity, &PreviousPosition)>()
            .iter()
            .map(|(e, p)| (e, *p))
            .collect();
        self.step_in_parts(world, dt / 2.0, strategy, halved + 1)?;
        for (e, p) in began {
            if let Ok(mut previous) = world.get::<&mut PreviousPosition>(e) {
                *previous = p;
            }
        }
        // A step in parts had resting contacts: not calm, so the next starts afresh
        for path in world.query_mut::<&mut Path>() {
            path.until = Real::INFINITY;
        }
        self.kept.left = false;
        let mut events = first.events;
        events.append(&mut self.report.events);
        self.report.events = events;
        // Counts add up; what the step's end shows is the second half's
        let later = self.report.stats;
        let mut stats = first.stats;
        stats.add(&later);
        stats.max_penetration = later.max_penetration;
        stats.escaped = later.escaped;
        self.report.stats = stats;
        Ok(())
    }
}
