//! toibox: a small rigid-body ball simulation with pluggable, exact time of impact.
//!
//! Balls move among planes, cylinders and convex polygons. The moment a moving ball first
//! touches something, its *time of impact* (TOI), is found by a pluggable [`ToiStrategy`]: the
//! exact [`Analytic`] sweep, or the sliced search of NeHe's Lesson 30 ([`Sliced`],
//! [`SlicedBisect`]), or the end-of-step overlap test of engines without continuous collision
//! detection ([`Discrete`]). Every strategy answers the same queries with the same [`Toi`] type,
//! so their results can be compared one for one.
//!
//! # A simulation in a game loop
//!
//! A [`Simulation`] owns a [`hecs::World`], a [`Stepper`] and a clock. Each step returns its
//! report by value, so the loop may spawn and despawn while it reads the events:
//!
//! ```
//! use toibox::{BallDef, Plane, Simulation, StepConfig, Vec3};
//!
//! let mut sim = Simulation::new(StepConfig::default()); // gravity -9.81 in y, analytic TOI
//! sim.add_plane(Plane::new(Vec3::ZERO, Vec3::Y).unwrap());
//! sim.spawn_ball(BallDef::new(Vec3::new(0.0, 2.0, 0.0), 0.25).restitution(0.5));
//! for _ in 0..600 {
//!     let report = sim.step(1.0 / 60.0).unwrap();
//!     for event in &report.events {
//!         // event.a hit event.b at event.time into the step: play a sound, score a point
//!         assert!(event.impulse > 0.0);
//!     }
//! }
//! // Ten seconds later the ball rests on the floor, exactly.
//! assert_eq!(sim.report().stats.kinetic_energy, 0.0);
//! ```
//!
//! # A stepper on your own world
//!
//! A game with its own [`hecs::World`] spawns balls with [`BallDef::spawn`] and shapes as
//! single components, and steps the world with a [`Stepper`]. The world is the whole state:
//! edit anything between steps.
//!
//! ```
//! use toibox::hecs::World;
//! use toibox::{BallDef, Position, StepConfig, Stepper, Vec3, Velocity};
//!
//! let mut world = World::new();
//! let ball = BallDef::new(Vec3::ZERO, 0.5).velocity(Vec3::X).spawn(&mut world);
//! let wall = toibox::Plane::new(Vec3::new(2.0, 0.0, 0.0), -Vec3::X).unwrap();
//! world.spawn((wall,));
//! let mut stepper = Stepper::new(StepConfig {
//!     gravity: Vec3::ZERO,
//!     ..StepConfig::default()
//! });
//! for _ in 0..3 {
//!     stepper.step(&mut world, 1.0).unwrap();
//! }
//! // Out 1.5 to the wall, back 1.5: elastic, exact
//! assert_eq!(world.get::<&Position>(ball).unwrap().0, Vec3::ZERO);
//! assert_eq!(world.get::<&Velocity>(ball).unwrap().0, -Vec3::X);
//! ```
//!
//! # Drawing in `f32`
//!
//! The state is `f64` ([`Vec3`] is `glam::DVec3`); most engines draw in `f32`. Convert where
//! you draw, with glam's `as_vec3()`: `position.0.as_vec3()` is a `toibox::glam::Vec3`. Keep
//! the simulation in `f64`: rounding positions to `f32` and back would move balls by up to
//! 6e-8 of their distance from the origin, enough to start them overlapping.
//!
//! # Time of impact on its own
//!
//! ```
//! use toibox::{Analytic, MovingBall, Plane, Sliced, Toi, ToiStrategy, Vec3};
//!
//! let floor = Plane::new(Vec3::ZERO, Vec3::Y).unwrap();
//! // A ball of radius 0.1 falling at 300 units per second from a height of 1.
//! let ball = MovingBall::new(Vec3::new(0.0, 1.0, 0.0), 0.1, Vec3::new(0.0, -300.0, 0.0));
//!
//! // The exact sweep: the gap of 0.9 closes at t = 0.003.
//! let Toi::Hit(hit) = Analytic.ball_plane(&ball, &floor, 1.0 / 60.0) else { panic!() };
//! assert!((hit.time - 0.003).abs() < 1e-15);
//! assert_eq!(hit.normal, Vec3::Y);
//!
//! // Three slices per step report the start of the slice in which the ball went in.
//! let coarse = Sliced { slices: 3 }.ball_plane(&ball, &floor, 1.0 / 60.0);
//! assert_eq!(coarse.time(), Some(0.0));
//! ```
//!
//! Modules:
//! - [`sim`]: the world's components, the [`Stepper`] and the [`Simulation`] that owns a world,
//!   configuration, events and statistics, [`FixedStep`] for game loops;
//! - [`toi`]: the [`ToiStrategy`] trait, [`ToiMode`], the built-in strategies and the closed
//!   forms ([`toi::analytic`]);
//! - [`geometry`]: the shapes as plain data and their static queries;
//! - [`scene`]: scene files (RON), their checks and generators, snapshots of a world;
//! - [`runs`]: headless runs and side-by-side comparisons of strategies;
//! - [`judge`]: which balls escaped or passed through something in a step;
//! - [`sweeps`]: seeded random queries for comparing strategies;
//! - [`math`]: the precision, `f64` throughout ([`Real`], [`Vec3`] = `glam::DVec3`);
//! - `output` (features `cli` or `viewer`): output files checked before a run and written
//!   whole;
//! - `viewer` (feature `viewer`): scenes in 3D with macroquad; nothing else imports it.
//!
//! [`hecs`] and [`glam`] are re-exported: use `toibox::hecs::World` and `toibox::glam` so that
//! the versions match.
#![warn(missing_docs)]

pub mod geometry;
pub mod judge;
pub mod math;
#[cfg(any(feature = "cli", feature = "viewer"))]
pub mod output;
pub mod runs;
pub mod scene;
pub mod sim;
pub mod sweeps;
pub mod toi;
#[cfg(feature = "viewer")]
pub mod viewer;

/// The vector library of [`Vec3`], re-exported so that a user's `glam` is the same version.
pub use glam;
/// The ECS the stepper works on, re-exported so that a user's `hecs` is the same version.
pub use hecs;

pub use geometry::{
    Ball, CappedCylinder, ConvexPolygon, Cylinder, InfiniteCylinder, Plane, Proximity, Shape,
    ShapeError, StaticShape, closest_point_on_sphere,
};
pub use math::{Quat, Real, Vec3};
pub use sim::{
    AngularVelocity, BallDef, BallField, CollisionEvent, ConfigField, FixedStep, Orientation,
    Position, PreviousPosition, Simulation, Sleep, SleepConfig, StaticFault, StepConfig, StepError,
    StepReport, StepStats, Stepper, Velocity,
};
pub use toi::{
    Analytic, Contact, Discrete, MovingBall, PairKind, QueryPair, SampledSearch, Sliced,
    SlicedBisect, Toi, ToiMode, ToiStatus, ToiStrategy,
};

/// The README's code, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
