//! Time of impact: when, within an interval, a moving ball first touches something.
//!
//! A ball moves on a straight path `center + velocity * t` for `t ∈ [0, t_max]`, or, with an
//! acceleration ([`MovingBall::with_acceleration`]), on the parabola
//! `center + velocity t + acceleration t² / 2` (the stepper's balls under gravity, between
//! their contacts). Every query answers with a [`Toi`]: the first contact in the interval, the
//! fact that the pair already touches or overlaps at `t = 0`, or a miss.
//!
//! *How* the time is found is a [`ToiStrategy`]. The built-in ones, named by [`ToiMode`]:
//! - [`Analytic`]: closed forms (and a safeguarded Newton iteration on cylinder rims); on a
//!   parabola, polynomial conditions searched in the Bernstein basis. Exact to floating point:
//!   it never misses a contact and never reports one late.
//! - [`Sliced`]: NeHe's search. Samples `slices` instants and reports the instant before the first
//!   overlapping one: up to one slice early, and blind to contacts shorter than a slice.
//! - [`SlicedBisect`]: the sliced search, then bisection inside the first overlapping slice down
//!   to a tolerance. As early as the tolerance, but just as blind between samples.
//! - [`Discrete`]: tests the end of the interval only, like engines without continuous collision
//!   detection. Reports the overlap it finds there, so fast balls tunnel.

pub mod analytic;
pub(crate) mod bernstein;
pub mod quadratic;
mod sliced;
mod strategy;

pub use sliced::{Discrete, SampledSearch, Sliced, SlicedBisect, sliced_search};
pub use strategy::{Analytic, ParseToiModeError, ToiMode, ToiStrategy};

use serde::Serialize;

use crate::geometry::{Ball, Proximity};
use crate::math::{Real, Vec3};

/// The bodies a query of the stepper is about, as [`ToiStrategy::before_query`] hears them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QueryPair {
    /// The ball the query moves (`ball` in the query methods).
    pub ball: hecs::Entity,
    /// The other ball, or the static shape.
    pub other: hecs::Entity,
    /// The query's `t = 0`, in time units from the start of the current step: where the later
    /// of the two paths began, so negative for paths from an earlier step.
    pub start: Real,
}

/// A ball in flight: `center + velocity t + acceleration t² / 2`, a straight path when the
/// acceleration is zero (the default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovingBall {
    /// Centre at `t = 0`.
    pub center: Vec3,
    /// Radius, finite and positive.
    pub radius: Real,
    /// Velocity at `t = 0`, in length units per time unit.
    pub velocity: Vec3,
    /// Constant acceleration (gravity), in length units per time unit squared.
    pub acceleration: Vec3,
}

impl MovingBall {
    /// Create a ball of `radius` at `center` moving with `velocity` on a straight path.
    #[must_use]
    #[inline]
    pub const fn new(center: Vec3, radius: Real, velocity: Vec3) -> Self {
        Self {
            center,
            radius,
            velocity,
            acceleration: Vec3::ZERO,
        }
    }

    /// Return the ball with a constant `acceleration`: its path a parabola.
    #[must_use]
    #[inline]
    pub const fn with_acceleration(self, acceleration: Vec3) -> Self {
        Self {
            acceleration,
            ..self
        }
    }

    /// Return true when the path is a straight line.
    #[must_use]
    #[inline]
    pub fn is_straight(&self) -> bool {
        self.acceleration == Vec3::ZERO
    }

    /// Return the ball's centre at time `t`.
    #[must_use]
    #[inline]
    pub fn center_at(&self, t: Real) -> Vec3 {
        if self.is_straight() {
            self.center + self.velocity * t
        } else {
            self.center + self.velocity * t + self.acceleration * (0.5 * t * t)
        }
    }

    /// Return the ball's velocity at time `t`.
    #[must_use]
    #[inline]
    pub fn velocity_at(&self, t: Real) -> Vec3 {
        if self.is_straight() {
            self.velocity
        } else {
            self.velocity + self.acceleration * t
        }
    }

    /// The centre's path as a vector polynomial in `t`.
    pub(crate) fn path(&self) -> bernstein::Quadratic3 {
        bernstein::Quadratic3 {
            p: self.center,
            q: self.velocity,
            r: self.acceleration * 0.5,
        }
    }

    /// Return the ball as it is at time `t`.
    #[must_use]
    #[inline]
    pub fn at(&self, t: Real) -> Ball {
        Ball::new(self.center_at(t), self.radius)
    }
}

/// Where and when a ball touches another object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Time of the contact, in `[0, t_max]`.
    pub time: Real,
    /// The contact point on the other object's surface (for an overlap, the surface point
    /// closest to the ball's centre).
    pub point: Vec3,
    /// Unit normal from the other object towards the ball.
    pub normal: Vec3,
    /// Penetration depth at `time`: zero for a first touch, positive for an overlap.
    pub depth: Real,
}

impl Contact {
    /// Build the contact at `time` from the pair's proximity then.
    #[must_use]
    #[inline]
    pub fn from_proximity(time: Real, proximity: &Proximity) -> Self {
        Self {
            time,
            point: proximity.point,
            normal: proximity.normal,
            depth: proximity.depth(),
        }
    }

    /// Return a ball-ball contact as seen from the other ball: the normal reversed, the point
    /// moved to the first ball's surface (the two surfaces are `depth` apart along the normal).
    #[must_use]
    #[inline]
    pub fn flipped(&self) -> Self {
        Self {
            normal: -self.normal,
            point: self.point - self.normal * self.depth,
            ..*self
        }
    }
}

/// The outcome of a time-of-impact query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Toi {
    /// The pair first touches at `contact.time`, with no overlap before (depth zero, except for
    /// [`Discrete`], which reports the overlap it finds at the end of the interval).
    Hit(Contact),
    /// The pair already touches or overlaps at `t = 0`; the contact carries the depth and the
    /// normal that separates it. Whether the pair is approaching is the caller's concern.
    Overlapping(Contact),
    /// No contact in the interval.
    Miss,
}

/// The kind of a [`Toi`], without its data: for counting and reporting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToiStatus {
    /// See [`Toi::Hit`].
    Hit,
    /// See [`Toi::Overlapping`].
    Overlapping,
    /// See [`Toi::Miss`].
    Miss,
}

impl Toi {
    /// Return the contact of a hit or an overlap.
    #[must_use]
    #[inline]
    pub fn contact(&self) -> Option<&Contact> {
        match self {
            Self::Hit(c) | Self::Overlapping(c) => Some(c),
            Self::Miss => None,
        }
    }

    /// Return the time of a hit or an overlap (zero for an overlap).
    #[must_use]
    #[inline]
    pub fn time(&self) -> Option<Real> {
        self.contact().map(|c| c.time)
    }

    /// Return the kind of outcome.
    #[must_use]
    #[inline]
    pub fn status(&self) -> ToiStatus {
        match self {
            Self::Hit(_) => ToiStatus::Hit,
            Self::Overlapping(_) => ToiStatus::Overlapping,
            Self::Miss => ToiStatus::Miss,
        }
    }

    /// Return true for a hit.
    #[must_use]
    #[inline]
    pub fn is_hit(&self) -> bool {
        matches!(self, Self::Hit(_))
    }
}

/// The kinds of pair a strategy answers for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PairKind {
    /// Two moving balls.
    BallBall,
    /// A ball and a one-sided plane.
    BallPlane,
    /// A ball and a capped or infinite cylinder.
    BallCylinder,
    /// A ball and a convex polygon.
    BallPolygon,
}

impl PairKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [Self; 4] = [
        Self::BallBall,
        Self::BallPlane,
        Self::BallCylinder,
        Self::BallPolygon,
    ];

    /// Return the snake-case name used in reports (`ball_ball`, ...).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::BallBall => "ball_ball",
            Self::BallPlane => "ball_plane",
            Self::BallCylinder => "ball_cylinder",
            Self::BallPolygon => "ball_polygon",
        }
    }
}
