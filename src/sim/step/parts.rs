//! A step in parts: where the resting clusters of a step's start would move so far on their
//! straight paths that their contacts no longer hold through it (a pile sliding apart at a
//! long step, which would otherwise keep a whole step's push of gravity), the step changes
//! nothing and goes in two halves, each of which may halve again.

use hecs::{Entity, World};

use super::Stepper;
use crate::math::Real;
use crate::sim::components::{
    AngularVelocity, Orientation, Path, Position, PreviousPosition, Sleep, Velocity,
};
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
    /// again, down to [`MAX_HALVINGS`]. Nothing is written to the world before that decision,
    /// and a step refused in its second half puts back what its first half wrote.
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
        // The first half writes the world before the second may refuse: a refused step
        // changes nothing, so what the step writes is kept until both are done
        let saved = (halved == 0).then(|| Written::save(world));
        let halves = self.both_halves(world, dt, strategy, halved);
        if halves.is_err()
            && let Some(saved) = saved
        {
            saved.restore(world);
        }
        halves
    }

    /// The two halves of a step of `dt` in parts, `halved` times halved already, and their
    /// reports merged.
    fn both_halves<S: ToiStrategy + ?Sized>(
        &mut self,
        world: &mut World,
        dt: Real,
        strategy: &S,
        halved: u32,
    ) -> Result<(), StepError> {
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

/// What a step writes to its balls (see `Stepper::scatter`), as it was before the step: each
/// ball's position, velocity, and the components it had or lacked.
struct Written(Vec<(Entity, Saved)>);

/// One ball's written components; `None` where it had none (the step adds them).
type Saved = (
    Position,
    Velocity,
    Option<Path>,
    Option<AngularVelocity>,
    Option<Orientation>,
    Option<PreviousPosition>,
    Option<Sleep>,
);

impl Written {
    /// Save what a step writes to the balls of `world`.
    fn save(world: &World) -> Self {
        let mut query = world.query::<(
            Entity,
            &Position,
            &Velocity,
            Option<&Path>,
            Option<&AngularVelocity>,
            Option<&Orientation>,
            Option<&PreviousPosition>,
            Option<&Sleep>,
        )>();
        Self(
            query
                .iter()
                .map(|(e, p, v, path, spin, orientation, previous, sleep)| {
                    let (path, spin, orientation) =
                        (path.copied(), spin.copied(), orientation.copied());
                    (
                        e,
                        (
                            *p,
                            *v,
                            path,
                            spin,
                            orientation,
                            previous.copied(),
                            sleep.copied(),
                        ),
                    )
                })
                .collect(),
        )
    }

    /// Put `world`'s balls back as saved, taking away the components the step added.
    fn restore(self, world: &mut World) {
        for (e, (p, v, path, spin, orientation, previous, sleep)) in self.0 {
            let _ = world.insert(e, (p, v));
            restore_one(world, e, path);
            restore_one(world, e, spin);
            restore_one(world, e, orientation);
            restore_one(world, e, previous);
            restore_one(world, e, sleep);
        }
    }
}

/// Give entity `e` of `world` its component `saved`, or none where it had none.
fn restore_one<T: hecs::Component>(world: &mut World, e: Entity, saved: Option<T>) {
    // The entity was just stepped: neither can fail but for a component already missing
    match saved {
        Some(value) => {
            let _ = world.insert_one(e, value);
        }
        None => {
            let _ = world.remove_one::<T>(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;

    #[test]
    fn what_a_step_writes_is_put_back_as_it_was() {
        let mut world = World::new();
        let path = Path {
            origin: Vec3::X,
            velocity: Vec3::Y,
            acceleration: Vec3::NEG_Y,
            time: 0.5,
            until: 1.0,
        };
        let full = world.spawn((
            Position(Vec3::ONE),
            Velocity(Vec3::Z),
            path,
            AngularVelocity(Vec3::X),
            Orientation::default(),
            PreviousPosition(Vec3::ZERO),
            Sleep::default(),
        ));
        let bare = world.spawn((Position(Vec3::NEG_ONE), Velocity(Vec3::ZERO)));
        let saved = Written::save(&world);
        // What a step does: moves both, rewrites the first's components, gives the second its
        // missing ones
        for (p, v) in world.query_mut::<(&mut Position, &mut Velocity)>() {
            p.0 += Vec3::ONE;
            v.0 = Vec3::NAN;
        }
        world.get::<&mut Path>(full).unwrap().until = Real::INFINITY;
        world.get::<&mut AngularVelocity>(full).unwrap().0 = Vec3::Y;
        world
            .insert(
                bare,
                (
                    path,
                    AngularVelocity(Vec3::Z),
                    Orientation::default(),
                    PreviousPosition(Vec3::X),
                    Sleep::default(),
                ),
            )
            .unwrap();
        saved.restore(&mut world);
        assert_eq!(world.get::<&Position>(full).unwrap().0, Vec3::ONE);
        assert_eq!(world.get::<&Velocity>(full).unwrap().0, Vec3::Z);
        assert_eq!(*world.get::<&Path>(full).unwrap(), path);
        assert_eq!(world.get::<&AngularVelocity>(full).unwrap().0, Vec3::X);
        assert_eq!(world.get::<&Position>(bare).unwrap().0, Vec3::NEG_ONE);
        assert_eq!(world.get::<&Velocity>(bare).unwrap().0, Vec3::ZERO);
        let entity = world.entity(bare).unwrap();
        assert!(!entity.has::<Path>() && !entity.has::<AngularVelocity>());
        assert!(!entity.has::<Orientation>() && !entity.has::<PreviousPosition>());
        assert!(!entity.has::<Sleep>());
    }
}
