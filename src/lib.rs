//! toibox: a small rigid-body ball simulation with pluggable, exact time of impact.
//!
//! Balls move among planes, cylinders and convex polygons. The moment a moving ball first
//! touches something, its *time of impact* (TOI), is found by a pluggable [`ToiStrategy`]: the
//! exact [`Analytic`] sweep, or the sliced search of NeHe's Lesson 30 ([`Sliced`],
//! [`SlicedBisect`]), or the end-of-step overlap test of engines without continuous collision
//! detection ([`Discrete`]). Every strategy answers the same queries with the same [`Toi`] type,
//! so their results can be compared one for one.
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
    ShapeError, closest_point_on_sphere,
};
pub use math::{Real, Vec3};
pub use sim::{
    BallDef, CollisionEvent, FixedStep, Position, PreviousPosition, Simulation, Sleep, SleepConfig,
    StepConfig, StepError, StepReport, StepStats, Stepper, Velocity,
};
pub use toi::{
    Analytic, Contact, Discrete, MovingBall, PairKind, QueryPair, SampledSearch, Sliced,
    SlicedBisect, Toi, ToiMode, ToiStatus, ToiStrategy,
};

/// The README's code, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
