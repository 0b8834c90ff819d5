//! How a [`Stepper`](super::Stepper) steps, and why it refuses a step.

use std::fmt;

use hecs::Entity;

use super::sleep::SleepConfig;
use crate::math::{Real, Vec3, positive};
use crate::toi::ToiMode;

/// Largest coordinate, radius, velocity component, or distance moved along an axis in one step
/// that a ball may have: the sweeps square and multiply lengths and speeds (up to fourth
/// powers), which must stay finite and exact to rounding. Far beyond any scene (scene files
/// allow 1e9).
pub const MAX_LENGTH: Real = 1e50;

/// How a [`Stepper`](super::Stepper) steps.
#[derive(Clone, Debug, PartialEq)]
pub struct StepConfig {
    /// Acceleration of every ball, in length units per time unit squared. Default
    /// `(0, -9.81, 0)`.
    pub gravity: Vec3,
    /// How times of impact are found: a built-in strategy or the user's own
    /// ([`ToiMode::Custom`]). Default [`ToiMode::Analytic`]. May change between steps.
    pub strategy: ToiMode,
    /// Approach speed below which a contact is resolved as perfectly inelastic, so that balls
    /// come to rest: finite, `>= 0`.
    ///
    /// Whatever it is, an impact whose series of bounces ends within the step rests at once
    /// (with restitution `e < 1` and the pair pressed together at `a` along the normal, the
    /// bounces after an impact at `v` last `2 e v / (a (1 - e))`). `None` (the default) relies
    /// on that alone where a ball's own acceleration presses it into a static shape (a ball
    /// landing on a floor or a slope under gravity), or where a ball lands from flight (at
    /// restitution below 1) on a ball no lighter that its supports or sleep hold against the
    /// push, so a real bounce stays one at any step length. Two balls in flight have no rest
    /// speed: they meet as they would without gravity; nor has a ball meeting a wall or a
    /// ceiling (a static shape gravity does not press it into: no series of bounces ends
    /// there). Not where a ball owes velocity paid in advance, nor, but for two elastic balls,
    /// where something touching a ball from the other side drives it. Elsewhere (a ball
    /// landing on a lighter one or wedged between others, balls rolling on a floor) it uses
    /// `2 |gravity| dt`: the speed
    /// gravity adds in two steps, and zero without gravity, so an elastic gas stays exactly
    /// elastic. At long steps that part still swallows real bounces there (at `dt` 0.5 under
    /// the Earth's gravity, every one slower than 9.8); a scene or a caller that steps long can
    /// set its own. See [`StepConfig::rest_speed_for`].
    pub rest_speed: Option<Real>,
    /// Most collisions resolved in one step. `None` (the default) allows `1000 + 100` per ball.
    /// Past it, contacts stop the balls that reach them instead of being resolved: they end the
    /// step at rest where they touch, and what they had is counted in
    /// [`StepStats::energy_stopped`](super::StepStats::energy_stopped) (see
    /// [`Stepper`](super::Stepper)). Nothing passes through anything.
    pub max_events_per_step: Option<usize>,
    /// When still balls fall asleep; `None` keeps every ball awake. Default
    /// [`SleepConfig::default`].
    pub sleep: Option<SleepConfig>,
}

impl Default for StepConfig {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            strategy: ToiMode::Analytic,
            rest_speed: None,
            max_events_per_step: None,
            sleep: Some(SleepConfig::default()),
        }
    }
}

/// Why a step was refused. A refused step changes nothing.
#[derive(Clone, Debug, PartialEq)]
pub enum StepError {
    /// `dt` is zero, negative or not finite.
    InvalidDt(Real),
    /// A ball has a value the stepper cannot use.
    InvalidBall {
        /// The ball.
        entity: Entity,
        /// The component at fault; [`BallField::allowed`] says what it may hold.
        field: BallField,
    },
    /// A field of the [`StepConfig`] has a value the stepper cannot use.
    InvalidConfig {
        /// The field at fault; [`ConfigField::allowed`] says what it may hold.
        field: ConfigField,
    },
    /// A ball is out of the range the sweeps are exact in: a coordinate, its radius or a
    /// velocity component above [`MAX_LENGTH`], or `dt` so long for its speed that it could
    /// move further than that along an axis (gravity included); or its position or velocity
    /// would leave the finite numbers in this step. The world is left as it was before the
    /// step.
    OutOfRange {
        /// The first such ball, in the stepper's order.
        entity: Entity,
        /// [`BallField::Position`], [`BallField::Radius`] or [`BallField::Velocity`].
        field: BallField,
        /// The step that was refused.
        dt: Real,
    },
    /// A static shape has a value the stepper cannot use.
    InvalidStatic {
        /// The shape.
        entity: Entity,
        /// What is wrong; [`StaticFault::allowed`] says what is allowed.
        fault: StaticFault,
    },
}

/// A ball's component named by a [`StepError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BallField {
    /// [`Position`](super::Position).
    Position,
    /// [`Velocity`](super::Velocity).
    Velocity,
    /// [`Radius`](super::Radius).
    Radius,
    /// [`Mass`](super::Mass).
    Mass,
    /// [`Restitution`](super::Restitution).
    Restitution,
    /// [`AngularVelocity`](super::AngularVelocity).
    Spin,
    /// [`Friction`](super::Friction).
    Friction,
    /// [`RollingResistance`](super::RollingResistance).
    RollingResistance,
}

impl BallField {
    /// The component's name in lower case, as error messages print it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Position => "position",
            Self::Velocity => "velocity",
            Self::Radius => "radius",
            Self::Mass => "mass",
            Self::Restitution => "restitution",
            Self::Spin => "spin",
            Self::Friction => "friction",
            Self::RollingResistance => "rolling resistance",
        }
    }

    /// What the stepper accepts in this component.
    pub const fn allowed(self) -> &'static str {
        match self {
            Self::Position => "finite coordinates",
            Self::Velocity => "finite components",
            Self::Radius | Self::Mass => "a finite number > 0",
            Self::Restitution => "a number from 0 to 1",
            Self::Spin => "finite components, each at most MAX_LENGTH in magnitude",
            Self::Friction | Self::RollingResistance => "a finite number >= 0",
        }
    }
}

impl fmt::Display for BallField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A field of [`StepConfig`] named by [`StepError::InvalidConfig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConfigField {
    /// [`StepConfig::gravity`].
    Gravity,
    /// [`StepConfig::rest_speed`].
    RestSpeed,
    /// [`SleepConfig::speed`] in [`StepConfig::sleep`].
    SleepSpeed,
    /// [`SleepConfig::drift`] in [`StepConfig::sleep`].
    SleepDrift,
    /// [`SleepConfig::time`] in [`StepConfig::sleep`].
    SleepTime,
}

impl ConfigField {
    /// The field's path in [`StepConfig`] (`"gravity"`, `"sleep.time"`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Gravity => "gravity",
            Self::RestSpeed => "rest_speed",
            Self::SleepSpeed => "sleep.speed",
            Self::SleepDrift => "sleep.drift",
            Self::SleepTime => "sleep.time",
        }
    }

    /// What the stepper accepts in this field.
    pub const fn allowed(self) -> &'static str {
        match self {
            Self::Gravity => "finite components",
            Self::RestSpeed | Self::SleepSpeed => "None, or a finite number >= 0",
            Self::SleepDrift => "a finite number >= 0",
            Self::SleepTime => "a finite number > 0",
        }
    }
}

impl fmt::Display for ConfigField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What is wrong with a static shape named by [`StepError::InvalidStatic`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StaticFault {
    /// A [`Plane`](crate::geometry::Plane) whose point is not finite or whose normal is not a
    /// finite unit vector.
    Plane,
    /// A [`Cylinder`](crate::geometry::Cylinder) with ends that are not finite or equal, an
    /// axis that is not a unit vector, or a radius that is not a finite number > 0.
    Cylinder,
    /// A [`Restitution`](super::Restitution) outside 0 to 1.
    Restitution,
    /// A [`Friction`](super::Friction) that is not a finite number `>= 0`.
    Friction,
}

impl StaticFault {
    /// What is at fault, in lower case, as error messages print it.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Plane => "plane",
            Self::Cylinder => "cylinder",
            Self::Restitution => "restitution",
            Self::Friction => "friction",
        }
    }

    /// What is allowed, with the constructor that ensures it.
    pub const fn allowed(self) -> &'static str {
        match self {
            Self::Plane => "a finite point and a unit normal (use Plane::new)",
            Self::Cylinder => {
                "finite ends or a unit axis, and a radius > 0 \
                 (use CappedCylinder::new or InfiniteCylinder::new)"
            }
            Self::Restitution => "a number from 0 to 1",
            Self::Friction => "a finite number >= 0",
        }
    }
}

impl fmt::Display for StaticFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidDt(dt) => write!(f, "dt is {dt}; allowed: a finite number > 0"),
            Self::InvalidBall { entity, field } => write!(
                f,
                "ball {entity:?} has a bad {field}; allowed: {}",
                field.allowed()
            ),
            Self::InvalidConfig { field } => write!(
                f,
                "step config has a bad {field}; allowed: {}",
                field.allowed()
            ),
            Self::OutOfRange { entity, field, dt } => write!(
                f,
                "ball {entity:?}: its {field} is out of range in a step of {dt}; allowed: \
                 coordinates, radius, velocity and velocity times dt at most {MAX_LENGTH:e} in \
                 magnitude (the step is refused)"
            ),
            Self::InvalidStatic { entity, fault } => write!(
                f,
                "shape {entity:?} has a bad {fault}; allowed: {}",
                fault.allowed()
            ),
        }
    }
}

impl std::error::Error for StepError {}

impl StepConfig {
    /// Return the rest speed of a step of `dt` where the default does not rely on the series of
    /// bounces alone or on no rest speed at all (see [`StepConfig::rest_speed`]):
    /// [`StepConfig::rest_speed`] if set, else `2 |gravity| dt`.
    #[must_use]
    pub fn rest_speed_for(&self, dt: Real) -> Real {
        self.rest_speed
            .unwrap_or_else(|| 2.0 * self.gravity.length() * dt)
    }

    /// Refuse a configuration the stepper cannot use.
    pub(super) fn check(&self) -> Result<(), StepError> {
        let bad = |field| Err(StepError::InvalidConfig { field });
        if !self.gravity.is_finite() {
            return bad(ConfigField::Gravity);
        }
        if self
            .rest_speed
            .is_some_and(|v| !(v.is_finite() && v >= 0.0))
        {
            return bad(ConfigField::RestSpeed);
        }
        if let Some(sleep) = self.sleep {
            if sleep.speed.is_some_and(|v| !(v.is_finite() && v >= 0.0)) {
                return bad(ConfigField::SleepSpeed);
            }
            if !(sleep.drift.is_finite() && sleep.drift >= 0.0) {
                return bad(ConfigField::SleepDrift);
            }
            if !positive(sleep.time) {
                return bad(ConfigField::SleepTime);
            }
        }
        Ok(())
    }
}
