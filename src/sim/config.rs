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
    /// come to rest. `None` (the default) uses `2 |gravity| dt`: the speed gravity adds in two
    /// steps, and zero without gravity, so an elastic gas stays exactly elastic.
    pub rest_speed: Option<Real>,
    /// Most collisions resolved in one step. `None` (the default) allows `1000 + 100` per ball.
    /// Past it, contacts stop the balls that reach them for the rest of the step instead of
    /// being resolved (see [`Stepper`](super::Stepper)): nothing passes through anything.
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
        /// The component at fault (`"position"`, `"radius"`, ...).
        field: &'static str,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A field of the [`StepConfig`] has a value the stepper cannot use.
    InvalidConfig {
        /// The field (`"gravity"`, `"sleep.time"`, ...).
        field: &'static str,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A ball is out of the range the sweeps are exact in: a coordinate, its radius or a
    /// velocity component above [`MAX_LENGTH`], or `dt` so long for its speed that it could
    /// move further than that along an axis (gravity included); or its position or velocity would leave the finite
    /// numbers in this step. The world is left as it was before the step.
    OutOfRange {
        /// The first such ball, in the stepper's order.
        entity: Entity,
        /// `"position"`, `"radius"` or `"velocity"`.
        field: &'static str,
        /// The step that was refused.
        dt: Real,
    },
    /// A static shape has a value the stepper cannot use.
    InvalidStatic {
        /// The shape.
        entity: Entity,
        /// What is wrong and what is allowed.
        reason: &'static str,
    },
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidDt(dt) => write!(f, "dt is {dt}; allowed: a finite number > 0"),
            Self::InvalidBall {
                entity,
                field,
                allowed,
            } => write!(f, "ball {entity:?} has a bad {field}; allowed: {allowed}"),
            Self::InvalidConfig { field, allowed } => {
                write!(f, "step config has a bad {field}; allowed: {allowed}")
            }
            Self::OutOfRange { entity, field, dt } => write!(
                f,
                "ball {entity:?}: its {field} is out of range in a step of {dt}; allowed: \
                 coordinates, radius, velocity and velocity times dt at most {MAX_LENGTH:e} in \
                 magnitude (the step is refused)"
            ),
            Self::InvalidStatic { entity, reason } => write!(f, "shape {entity:?}: {reason}"),
        }
    }
}

impl std::error::Error for StepError {}

impl StepConfig {
    /// Refuse a configuration the stepper cannot use.
    pub(super) fn check(&self) -> Result<(), StepError> {
        let bad = |field, allowed| Err(StepError::InvalidConfig { field, allowed });
        if !self.gravity.is_finite() {
            return bad("gravity", "finite components");
        }
        if self
            .rest_speed
            .is_some_and(|v| !(v.is_finite() && v >= 0.0))
        {
            return bad("rest_speed", "None, or a finite number >= 0");
        }
        if let Some(sleep) = self.sleep {
            if sleep.speed.is_some_and(|v| !(v.is_finite() && v >= 0.0)) {
                return bad("sleep.speed", "None, or a finite number >= 0");
            }
            if !(sleep.drift.is_finite() && sleep.drift >= 0.0) {
                return bad("sleep.drift", "a finite number >= 0");
            }
            if !positive(sleep.time) {
                return bad("sleep.time", "a finite number > 0");
            }
        }
        Ok(())
    }
}
