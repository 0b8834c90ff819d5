//! The simulation: balls and static shapes in a [`hecs::World`], stepped in time.
//!
//! Two ways to use it, with the same stepper:
//! - own the world: spawn balls with [`BallDef::spawn`] and shapes as single components
//!   (`world.spawn((plane,))`), then call [`Stepper::step`] on it;
//! - let a [`Simulation`] own the world, the stepper and the clock.
//!
//! Units are the caller's: toibox only needs them consistent (the NeHe room is hundreds of units
//! wide with a time unit of one frame; a gas box is 2 metres wide with seconds).

mod bodies;
mod calendar;
mod change;
mod cluster;
mod components;
mod config;
mod events;
mod fixed_step;
mod measure;
mod neighbours;
mod response;
pub mod sleep;
mod statics;
mod step;
mod supports;
mod surface;

pub use components::{
    AngularVelocity, BallDef, Color, Friction, Mass, Name, Orientation, Path, Position,
    PreviousPosition, Radius, Restitution, RollingResistance, Sleep, Velocity, combine_friction,
    combine_restitution,
};
pub use config::{BallField, ConfigField, MAX_LENGTH, StaticFault, StepConfig, StepError};
pub use events::{CollisionEvent, StepReport, StepStats};
pub use fixed_step::FixedStep;
pub use sleep::SleepConfig;
pub use step::Stepper;

use hecs::{Entity, World};

use crate::geometry::{ConvexPolygon, Cylinder, Plane};
use crate::math::{Real, Vec3, spin_energy};

/// A world, a stepper and a clock.
///
/// ```
/// use toibox::{BallDef, Plane, Simulation, StepConfig, Vec3};
///
/// let mut sim = Simulation::new(StepConfig::default());
/// sim.add_plane(Plane::new(Vec3::ZERO, Vec3::Y).unwrap());
/// sim.spawn_ball(BallDef::new(Vec3::new(0.0, 2.0, 0.0), 0.25).restitution(0.5));
/// for _ in 0..600 {
///     sim.step(1.0 / 60.0).unwrap();
/// }
/// // Ten seconds later the ball rests on the floor, exactly.
/// assert_eq!(sim.report().stats.kinetic_energy, 0.0);
/// ```
#[derive(Default)]
pub struct Simulation {
    /// The entities: balls and static shapes. Change it freely between steps.
    pub world: World,
    /// The stepper and its configuration.
    pub stepper: Stepper,
    time: Real,
    steps: u64,
}

impl Simulation {
    /// Create an empty simulation.
    #[must_use]
    pub fn new(config: StepConfig) -> Self {
        Self {
            world: World::new(),
            stepper: Stepper::new(config),
            time: 0.0,
            steps: 0,
        }
    }

    /// Spawn a ball.
    pub fn spawn_ball(&mut self, ball: BallDef) -> Entity {
        ball.spawn(&mut self.world)
    }

    /// Add a plane.
    pub fn add_plane(&mut self, plane: Plane) -> Entity {
        self.world.spawn((plane,))
    }

    /// Add a cylinder.
    pub fn add_cylinder(&mut self, cylinder: impl Into<Cylinder>) -> Entity {
        self.world.spawn((cylinder.into(),))
    }

    /// Add a convex polygon.
    pub fn add_polygon(&mut self, polygon: ConvexPolygon) -> Entity {
        self.world.spawn((polygon,))
    }

    /// Advance by `dt`; see [`Stepper::step`]. Returns the step's report by value (a copy of
    /// [`Simulation::report`]), so that a loop can read its events and edit the simulation in
    /// the same body. A refused step changes nothing and counts no time.
    ///
    /// ```
    /// use toibox::{BallDef, Plane, Simulation, StepConfig, Vec3};
    ///
    /// let mut sim = Simulation::new(StepConfig::default());
    /// sim.add_plane(Plane::new(Vec3::ZERO, Vec3::Y).unwrap());
    /// sim.spawn_ball(BallDef::new(Vec3::new(0.0, 1.0, 0.0), 0.1));
    /// let mut popped = 0;
    /// for _ in 0..120 {
    ///     let report = sim.step(1.0 / 60.0).unwrap();
    ///     for event in &report.events {
    ///         // A ball that hits anything pops, and a new one drops in its place
    ///         sim.world.despawn(event.a).unwrap();
    ///         sim.spawn_ball(BallDef::new(Vec3::new(0.0, 1.0, 0.0), 0.1));
    ///         popped += 1;
    ///     }
    /// }
    /// assert!(popped >= 2);
    /// ```
    pub fn step(&mut self, dt: Real) -> Result<StepReport, StepError> {
        let strategy = self.stepper.config.strategy.clone();
        self.step_lent(dt, &strategy)?;
        Ok(self.report().clone())
    }

    /// Advance by `dt` with a strategy of the caller's own for this step; see
    /// [`Stepper::step_with`]. Returns the report by value, as [`Simulation::step`] does.
    pub fn step_with<S: crate::toi::ToiStrategy + ?Sized>(
        &mut self,
        dt: Real,
        strategy: &S,
    ) -> Result<StepReport, StepError> {
        self.step_lent(dt, strategy)?;
        Ok(self.report().clone())
    }

    /// Advance by `dt` with `strategy`, copying nothing: for callers in this crate that read
    /// [`Simulation::report`] afterwards (runs, the viewer).
    pub(crate) fn step_lent<S: crate::toi::ToiStrategy + ?Sized>(
        &mut self,
        dt: Real,
        strategy: &S,
    ) -> Result<(), StepError> {
        self.stepper.step_with(&mut self.world, dt, strategy)?;
        self.time += dt;
        self.steps += 1;
        Ok(())
    }

    /// Return what the last step did.
    #[must_use]
    pub fn report(&self) -> &StepReport {
        self.stepper.report()
    }

    /// Return the simulated time so far.
    #[must_use]
    pub fn time(&self) -> Real {
        self.time
    }

    /// Return the number of steps taken.
    #[must_use]
    pub fn steps(&self) -> u64 {
        self.steps
    }
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("entities", &self.world.len())
            .field("stepper", &self.stepper)
            .field("time", &self.time)
            .field("steps", &self.steps)
            .finish()
    }
}

/// Wake every ball in `world`. Edits to the world wake the sleepers they concern by themselves
/// (see [`sleep`]); this is for waking balls for a reason of the caller's own.
pub fn wake_all(world: &mut World) {
    for sleep in world.query_mut::<&mut Sleep>() {
        *sleep = Sleep::default();
    }
}

/// Return the kinetic energy of the balls in `world`, `Σ ½ m v² + ½ I ω²` (`I = 2/5 m r²`).
#[must_use]
pub fn kinetic_energy(world: &World) -> Real {
    world
        .query::<(&Velocity, &Mass, &Radius, Option<&AngularVelocity>)>()
        .iter()
        .map(|(v, m, r, w)| {
            0.5 * m.0 * v.0.length_squared() + w.map_or(0.0, |w| spin_energy(m.0, r.0, w.0))
        })
        .sum()
}

/// Return the momentum of the balls in `world`, `Σ m v`.
#[must_use]
pub fn momentum(world: &World) -> Vec3 {
    world
        .query::<(&Velocity, &Mass)>()
        .iter()
        .map(|(v, m)| v.0 * m.0)
        .sum()
}
