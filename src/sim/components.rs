//! The components of a ball, and the description that spawns one.
//!
//! A ball is an entity with [`Position`], [`Velocity`], [`Radius`], [`Mass`] and optionally
//! [`Restitution`] (default 1), [`Friction`] and [`RollingResistance`] (default 0),
//! [`AngularVelocity`] and [`Orientation`] (default: not spinning, unturned), [`Color`],
//! [`Name`], [`PreviousPosition`], and [`Sleep`] and [`Path`] (the stepper adds them when
//! missing). A static shape is an entity with a [`Plane`](crate::Plane), a [`Cylinder`](crate::Cylinder)
//! or a [`ConvexPolygon`](crate::ConvexPolygon) component, and optionally a [`Restitution`]
//! and a [`Friction`].

use std::num::NonZeroU64;

use super::bodies::Trajectory;
use crate::math::{Quat, Real, Vec3};

/// Centre of a ball, in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub Vec3);

/// Velocity of a ball, in length units per time unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity(pub Vec3);

/// Spin of a ball: its angular velocity in radians per time unit, in world coordinates (the
/// axis is its direction, right-handed). Finite. A ball is a solid sphere, of moment of inertia
/// `2/5 m r²`. A ball without this component does not spin ([`BallDef::spawn`] adds it, with an
/// [`Orientation`], only to a ball that spins).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AngularVelocity(pub Vec3);

/// How a ball is turned from its rest orientation: a unit quaternion, which the stepper turns
/// by the ball's [`AngularVelocity`] each step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Orientation(pub Quat);

/// Radius of a ball: finite and positive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radius(pub Real);

/// Mass of a ball: finite and positive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mass(pub Real);

/// Coefficient of restitution in `[0, 1]`: 1 bounces elastically, 0 stops along the normal.
///
/// A pair bounces with the smaller of its two coefficients (a missing one counts as 1), so a
/// dead ball stays dead against a lively wall. See [`combine_restitution`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Restitution(pub Real);

/// Coefficient of Coulomb friction `μ`, finite and `>= 0`: at an impact the tangential
/// impulse is at most `μ` times the normal one. 0 (the default, also without the component)
/// is frictionless.
///
/// A pair rubs with the geometric mean of its two coefficients, so two equal coefficients give
/// that coefficient and a frictionless side makes the pair frictionless. See
/// [`combine_friction`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Friction(pub Real);

/// Rolling resistance of a ball, finite and `>= 0`: a ball rolling on a shape that holds it up
/// is slowed by this times the acceleration pressing it on (`g` on a level floor), its spin
/// following, until it stops. 0 (the default, also without the component) rolls for ever.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RollingResistance(pub Real);

/// Display colour of a ball, RGB in `[0, 1]` as shown on screen (sRGB, as NeHe's `glColor`); the
/// simulation ignores it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Color(pub [f32; 3]);

/// Display name of a ball; the simulation ignores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name(pub String);

/// Where a ball's path began: the stepper's record of the ball's last change of course, added
/// and kept by the stepper (users move balls through [`Position`] and [`Velocity`]).
///
/// The stepper computes positions from it, `origin + velocity · s + acceleration · s²/2` with
/// `s = t − time`, and never steps them, so a prediction made from a path depends on the path
/// alone: a stepper that takes the world over mid-run, fresh or restored from a snapshot,
/// computes the very same bits. Times are on the stepper's clock: time since its epoch began. An
/// epoch begins anew (every path starting where its ball is, at time 0) every 64 steps or so,
/// which bounds the rounding of the clock, and at every step with a strategy whose misses are
/// not certain. Under gravity it also begins anew after any step that was not calm (something
/// rested, moved on a surface, slept, woke or was stopped by the budget, a path changed course
/// as a kept step ended, or a pair that did not meet may meet later): such a step writes
/// `until` as infinite, no clock.
///
/// A path holds while the ball's [`Position`] is where the path puts it at `until` and its
/// [`Velocity`] is the path's then, bit for bit; a ball without one, or whose components were
/// edited, starts a new path where it is.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Path {
    /// Where the ball was at `time`.
    pub origin: Vec3,
    /// Its velocity at `time`.
    pub velocity: Vec3,
    /// Its acceleration since `time`: gravity in flight, zero on a straight path (absent from
    /// older snapshots, where it is zero).
    #[serde(default)]
    pub acceleration: Vec3,
    /// When the path began, on the stepper's clock.
    pub time: Real,
    /// The end of the last step, on the stepper's clock: when `Position` was written.
    pub until: Real,
}

impl Default for Path {
    /// No path yet: the stepper starts one where the ball is at its next step.
    fn default() -> Self {
        Self {
            origin: Vec3::ZERO,
            velocity: Vec3::ZERO,
            acceleration: Vec3::ZERO,
            time: 0.0,
            until: Real::NAN,
        }
    }
}

impl Path {
    /// Return where the path puts the ball at `t`, on the stepper's clock.
    #[must_use]
    #[inline]
    pub fn at(&self, t: Real) -> Vec3 {
        self.trajectory().at(t)
    }

    /// Return the ball's velocity on the path at `t`, on the stepper's clock.
    #[must_use]
    #[inline]
    pub fn velocity_at(&self, t: Real) -> Vec3 {
        self.trajectory().velocity_at(t)
    }

    /// The stepper's form of the path.
    #[inline]
    pub(super) fn trajectory(&self) -> Trajectory {
        Trajectory {
            origin: self.origin,
            velocity: self.velocity,
            acceleration: self.acceleration,
            time: self.time,
        }
    }
}

/// The ball's position at the start of the last step, written by the stepper when present.
///
/// Lets a renderer draw between the last two states: `previous.lerp(position, alpha)` with the
/// factor from [`FixedStep::alpha`](crate::FixedStep::alpha).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreviousPosition(pub Vec3);

/// Whether a ball sleeps, and how long it has been still; kept by the stepper.
///
/// See [`sleep`](crate::sim::sleep) for the rule. [`Sleep::wake`] wakes a ball and, at the end
/// of the next step, the balls it sleeps with; setting it to the default wakes only that ball.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sleep {
    /// How long the ball has been still, in time units.
    pub still_for: Real,
    /// Where its stillness began.
    pub anchor: Vec3,
    /// The island of touching balls it sleeps with (named after one of its balls); `None`
    /// while awake.
    pub island: Option<NonZeroU64>,
    /// The island it was just woken from by [`Sleep::wake`]: the next step wakes the rest of it.
    pub woken_from: Option<NonZeroU64>,
    /// The gravity it fell asleep under: any other gravity wakes it.
    pub gravity: Vec3,
    /// While asleep, the fingerprint of its position, radius, mass and restitution as the
    /// stepper last wrote them: an edit of any of them wakes it (and its island after the step).
    #[serde(default)]
    pub written: u64,
    /// While asleep, the fingerprint of the static shapes and the step configuration it fell
    /// asleep among: any change to them wakes it.
    #[serde(default)]
    pub surroundings: u64,
    /// While asleep, how many balls its island has: an island that lost a ball (despawned, or
    /// its `Sleep` reset) wakes whole.
    #[serde(default)]
    pub island_size: u32,
}

impl Sleep {
    /// True while the ball sleeps.
    #[must_use]
    pub fn asleep(&self) -> bool {
        self.island.is_some()
    }

    /// Wake the ball, and with the next step the balls it sleeps with.
    pub fn wake(&mut self) {
        self.woken_from = self.island.take().or(self.woken_from);
        self.still_for = 0.0;
    }
}

/// Return the restitution of a pair: the smaller of the two coefficients.
#[must_use]
#[inline]
pub fn combine_restitution(a: Real, b: Real) -> Real {
    a.min(b)
}

/// Return the friction of a pair: the geometric mean `√(a b)` of the two coefficients.
#[must_use]
#[inline]
pub fn combine_friction(a: Real, b: Real) -> Real {
    (a * b).sqrt()
}

/// A description of a ball, to spawn into a [`hecs::World`].
///
/// ```
/// use toibox::{BallDef, Vec3};
/// let mut world = hecs::World::new();
/// let ball = BallDef::new(Vec3::ZERO, 0.5)
///     .velocity(Vec3::X)
///     .restitution(0.9)
///     .spawn(&mut world);
/// assert!(world.get::<&toibox::Velocity>(ball).is_ok());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct BallDef {
    /// Centre.
    pub position: Vec3,
    /// Velocity; default zero.
    pub velocity: Vec3,
    /// Radius.
    pub radius: Real,
    /// Mass; default: density 1 times the volume, `4/3 π r³`.
    pub mass: Real,
    /// Restitution; default 1.
    pub restitution: Real,
    /// Coefficient of friction; default 0.
    pub friction: Real,
    /// Rolling resistance; default 0.
    pub rolling_resistance: Real,
    /// Spin, an angular velocity in radians per time unit; default zero.
    pub spin: Vec3,
    /// Colour, if any.
    pub color: Option<[f32; 3]>,
    /// Name, if any.
    pub name: Option<String>,
}

impl BallDef {
    /// Describe a ball of `radius` at `position`, at rest, of density 1 and restitution 1.
    #[must_use]
    pub fn new(position: Vec3, radius: Real) -> Self {
        Self {
            position,
            velocity: Vec3::ZERO,
            radius,
            mass: crate::math::ball_volume(radius),
            restitution: 1.0,
            friction: 0.0,
            rolling_resistance: 0.0,
            spin: Vec3::ZERO,
            color: None,
            name: None,
        }
    }

    /// Set the velocity.
    #[must_use]
    pub fn velocity(mut self, velocity: Vec3) -> Self {
        self.velocity = velocity;
        self
    }

    /// Set the mass.
    #[must_use]
    pub fn mass(mut self, mass: Real) -> Self {
        self.mass = mass;
        self
    }

    /// Set the restitution.
    #[must_use]
    pub fn restitution(mut self, restitution: Real) -> Self {
        self.restitution = restitution;
        self
    }

    /// Set the coefficient of friction.
    #[must_use]
    pub fn friction(mut self, friction: Real) -> Self {
        self.friction = friction;
        self
    }

    /// Set the rolling resistance.
    #[must_use]
    pub fn rolling_resistance(mut self, rolling_resistance: Real) -> Self {
        self.rolling_resistance = rolling_resistance;
        self
    }

    /// Set the spin (angular velocity, radians per time unit, world axes).
    #[must_use]
    pub fn spin(mut self, spin: Vec3) -> Self {
        self.spin = spin;
        self
    }

    /// Set the colour.
    #[must_use]
    pub fn color(mut self, color: [f32; 3]) -> Self {
        self.color = Some(color);
        self
    }

    /// Set the name.
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Read the ball `entity` of `world` back: its position, velocity, radius and mass, and
    /// its restitution (1 without one), friction and rolling resistance (0 without), spin,
    /// colour and name. `None`
    /// when the entity does not exist
    /// or lacks one of the first four.
    ///
    /// ```
    /// use toibox::{BallDef, Vec3};
    /// let mut world = hecs::World::new();
    /// let cue = BallDef::new(Vec3::X, 0.5).velocity(Vec3::Y).restitution(0.8).name("cue");
    /// let entity = cue.clone().spawn(&mut world);
    /// assert_eq!(BallDef::of(&world, entity), Some(cue));
    /// world.despawn(entity).unwrap();
    /// assert_eq!(BallDef::of(&world, entity), None);
    /// ```
    #[must_use]
    pub fn of(world: &hecs::World, entity: hecs::Entity) -> Option<Self> {
        let entity = world.entity(entity).ok()?;
        let mut ball = Self::new(entity.get::<&Position>()?.0, entity.get::<&Radius>()?.0)
            .velocity(entity.get::<&Velocity>()?.0)
            .mass(entity.get::<&Mass>()?.0);
        if let Some(e) = entity.get::<&Restitution>() {
            ball.restitution = e.0;
        }
        if let Some(f) = entity.get::<&Friction>() {
            ball.friction = f.0;
        }
        if let Some(c) = entity.get::<&RollingResistance>() {
            ball.rolling_resistance = c.0;
        }
        if let Some(w) = entity.get::<&AngularVelocity>() {
            ball.spin = w.0;
        }
        ball.color = entity.get::<&Color>().map(|c| c.0);
        ball.name = entity.get::<&Name>().map(|n| n.0.clone());
        Some(ball)
    }

    /// Spawn the ball into `world` and return its entity.
    ///
    /// The values are not checked here; the stepper reports a ball with a bad value as an error
    /// naming the entity.
    pub fn spawn(self, world: &mut hecs::World) -> hecs::Entity {
        let mut builder = hecs::EntityBuilder::new();
        builder.add_bundle((
            Position(self.position),
            Velocity(self.velocity),
            Radius(self.radius),
            Mass(self.mass),
            Restitution(self.restitution),
            PreviousPosition(self.position),
            Sleep::default(),
            Path::default(),
        ));
        // A ball without spin carries none: the components cost 56 bytes a ball
        if self.spin != Vec3::ZERO {
            builder.add_bundle((AngularVelocity(self.spin), Orientation::default()));
        }
        if self.friction != 0.0 {
            builder.add(Friction(self.friction));
        }
        if self.rolling_resistance != 0.0 {
            builder.add(RollingResistance(self.rolling_resistance));
        }
        if let Some(color) = self.color {
            builder.add(Color(color));
        }
        if let Some(name) = self.name {
            builder.add(Name(name));
        }
        world.spawn(builder.build())
    }
}
