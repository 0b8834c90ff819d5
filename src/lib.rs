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
//! Modules: [`geometry`] holds the shapes and their static queries, [`toi`] the strategies and
//! the closed forms ([`toi::analytic`]), [`judge`] which balls escaped or passed through
//! something in a step, [`sweeps`] seeded random queries for comparing strategies, [`math`] the
//! precision (`f64` throughout). With the feature `viewer` (on by
//! default), `viewer` shows scenes in 3D with macroquad; nothing else imports it.
#![warn(missing_docs)]

pub mod geometry;
pub mod judge;
pub mod math;
pub mod output;
pub mod plot;
pub mod runs;
pub mod scene;
pub mod sim;
pub mod sweeps;
pub mod toi;
#[cfg(feature = "viewer")]
pub mod viewer;

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
    SlicedBisect, Strategy, Toi, ToiStatus, ToiStrategy,
};

/// The README's code, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
