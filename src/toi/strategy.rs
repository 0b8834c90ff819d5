//! The strategy trait, the analytic strategy, and the enum that names the built-in ones.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::sliced::{Discrete, Sliced, SlicedBisect};
use super::{MovingBall, QueryPair, Toi, analytic};
use crate::geometry::{ConvexPolygon, Cylinder, Plane};
use crate::math::Real;

/// A way of finding the time of impact: one method per pair kind.
///
/// Each method returns the first contact of `ball` with the other object in `[0, t_max]`
/// (`t_max >= 0`), with times measured from the start of the paths. The normal points from the
/// other object towards `ball`. Implement it to plug a strategy of your own into the stepper;
/// a search that only samples the pair over time can implement
/// [`SampledSearch`](super::SampledSearch) instead and get this trait for free.
pub trait ToiStrategy {
    /// Find when `ball` first touches `other`, both moving.
    fn ball_ball(&self, ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi;
    /// Find when `ball` first touches the one-sided `plane`.
    fn ball_plane(&self, ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi;
    /// Find when `ball` first touches `cylinder`.
    fn ball_cylinder(&self, ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi;
    /// Find when `ball` first touches `polygon`.
    fn ball_polygon(&self, ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi;

    /// True when every [`Toi::Miss`] is certain: the pair does not touch anywhere in
    /// `[0, t_max]`. The stepper then measures the end of a step over the pairs found touching
    /// alone; otherwise over every pair it asked about (a strategy that can miss a contact can
    /// leave an overlap behind a miss). The default, false, is always safe.
    fn misses_are_certain(&self) -> bool {
        false
    }

    /// Return the strategy's name, as reports and the command line show it; the default is
    /// `"custom"`.
    fn name(&self) -> &str {
        "custom"
    }

    /// Hear which pair the stepper's next query is about, just before it is made; the default
    /// does nothing. For strategies that log or audit their queries (`compare` uses it to tell
    /// contacts apart); the answer must not depend on it.
    #[inline]
    fn before_query(&self, pair: &QueryPair) {
        let _ = pair;
    }
}

/// The exact strategy: closed-form sweeps from [`analytic`].
///
/// Never misses a contact and never reports one late, at any speed; costs one small closed form
/// per feature (a few Newton steps on cylinder rims).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Analytic;

impl ToiStrategy for Analytic {
    fn ball_ball(&self, ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi {
        analytic::ball_ball(ball, other, t_max)
    }

    fn ball_plane(&self, ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi {
        analytic::ball_plane(ball, plane, t_max)
    }

    fn ball_cylinder(&self, ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi {
        analytic::ball_cylinder(ball, cylinder, t_max)
    }

    fn ball_polygon(&self, ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi {
        analytic::ball_polygon(ball, polygon, t_max)
    }

    fn misses_are_certain(&self) -> bool {
        true
    }
}

/// How the stepper finds times of impact: one of the built-in strategies by name, as scene
/// files and the command line give them, or a strategy of the user's own.
///
/// In RON: `Analytic`, `Sliced(slices: 150)`, `SlicedBisect(slices: 150, tolerance: 1e-9)`,
/// `Discrete`. On the command line ([`FromStr`] and [`Display`](fmt::Display)): `analytic`,
/// `sliced[:N]`, `sliced-bisect[:N[:TOL]]`, `discrete`. A [`ToiMode::Custom`] strategy is set
/// from code only ([`ToiMode::custom`]); it is shown by its [`ToiStrategy::name`] and cannot be
/// written to a scene file.
///
/// | strategy | misses | reports | cost per query |
/// |---|---|---|---|
/// | `Analytic` | nothing | the exact time | one closed form per feature |
/// | `Sliced` | contacts shorter than a slice | up to a slice early | `slices + 1` static tests |
/// | `SlicedBisect` | contacts shorter than a slice | up to `tolerance` early | the same, plus the bisection |
/// | `Discrete` | anything that is clear again at the end | overlaps at the end | one static test |
/// | `Custom` | what the user's strategy misses | what it reports | its own |
///
/// ```
/// use toibox::{Analytic, MovingBall, Plane, Simulation, StepConfig, Toi, ToiMode, ToiStrategy};
/// use toibox::{BallDef, ConvexPolygon, Cylinder, Real, Vec3};
///
/// /// The exact sweep, counting the plane queries it answers.
/// #[derive(Default)]
/// struct Counting(std::sync::atomic::AtomicU64);
///
/// impl ToiStrategy for Counting {
///     fn ball_ball(&self, ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi {
///         Analytic.ball_ball(ball, other, t_max)
///     }
///     fn ball_plane(&self, ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi {
///         self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
///         Analytic.ball_plane(ball, plane, t_max)
///     }
///     fn ball_cylinder(&self, ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi {
///         Analytic.ball_cylinder(ball, cylinder, t_max)
///     }
///     fn ball_polygon(&self, ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi {
///         Analytic.ball_polygon(ball, polygon, t_max)
///     }
///     fn name(&self) -> &str {
///         "counting"
///     }
/// }
///
/// let counting = std::sync::Arc::new(Counting::default());
/// let mut sim = Simulation::new(StepConfig {
///     strategy: ToiMode::Custom(counting.clone()),
///     ..StepConfig::default()
/// });
/// sim.add_plane(Plane::new(Vec3::ZERO, Vec3::Y).unwrap());
/// sim.spawn_ball(BallDef::new(Vec3::new(0.0, 1.0, 0.0), 0.1));
/// for _ in 0..60 {
///     sim.step(1.0 / 60.0).unwrap();
/// }
/// // The ball came within reach of the floor and bounced: the stepper asked the strategy
/// assert!(counting.0.load(std::sync::atomic::Ordering::Relaxed) > 0);
/// assert!(sim.report().stats.kinetic_energy > 0.0);
/// assert_eq!(sim.stepper.config.strategy.to_string(), "counting");
/// ```
#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ToiMode {
    /// See [`Analytic`].
    #[default]
    Analytic,
    /// See [`Sliced`].
    Sliced {
        /// Slices per query interval, at least 1.
        slices: u32,
    },
    /// See [`SlicedBisect`].
    SlicedBisect {
        /// Slices per query interval, at least 1.
        slices: u32,
        /// Bisection tolerance in time units, positive.
        tolerance: Real,
    },
    /// See [`Discrete`].
    Discrete,
    /// A strategy of the user's own, shared: cloning the mode clones the [`Arc`]. Two custom
    /// modes are equal when they hold the same strategy (the same [`Arc`]), so replacing it
    /// with another, even an equal one, counts as a change of the configuration.
    #[serde(skip)]
    Custom(Arc<dyn ToiStrategy + Send + Sync>),
}

impl ToiMode {
    /// Wrap a strategy of the user's own; see [`ToiMode::Custom`].
    #[must_use]
    pub fn custom(strategy: impl ToiStrategy + Send + Sync + 'static) -> Self {
        Self::Custom(Arc::new(strategy))
    }
}

impl PartialEq for ToiMode {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Analytic, Self::Analytic) | (Self::Discrete, Self::Discrete) => true,
            (Self::Sliced { slices: a }, Self::Sliced { slices: b }) => a == b,
            (
                Self::SlicedBisect {
                    slices: a,
                    tolerance: s,
                },
                Self::SlicedBisect {
                    slices: b,
                    tolerance: t,
                },
            ) => a == b && s == t,
            (Self::Custom(a), Self::Custom(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl fmt::Debug for ToiMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Analytic => f.write_str("Analytic"),
            Self::Sliced { slices } => f.debug_struct("Sliced").field("slices", slices).finish(),
            Self::SlicedBisect { slices, tolerance } => f
                .debug_struct("SlicedBisect")
                .field("slices", slices)
                .field("tolerance", tolerance)
                .finish(),
            Self::Discrete => f.write_str("Discrete"),
            Self::Custom(strategy) => f.debug_tuple("Custom").field(&strategy.name()).finish(),
        }
    }
}

/// Dispatch one [`ToiStrategy`] method to the strategy a [`ToiMode`] names.
macro_rules! dispatch {
    ($self:ident, $method:ident($($arg:ident),*)) => {
        match *$self {
            ToiMode::Custom(ref custom) => custom.$method($($arg),*),
            ToiMode::Analytic => Analytic.$method($($arg),*),
            ToiMode::Sliced { slices } => Sliced { slices }.$method($($arg),*),
            ToiMode::SlicedBisect { slices, tolerance } => {
                SlicedBisect { slices, tolerance }.$method($($arg),*)
            }
            ToiMode::Discrete => Discrete.$method($($arg),*),
        }
    };
}

impl ToiStrategy for ToiMode {
    fn ball_ball(&self, ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi {
        dispatch!(self, ball_ball(ball, other, t_max))
    }

    fn ball_plane(&self, ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi {
        dispatch!(self, ball_plane(ball, plane, t_max))
    }

    fn ball_cylinder(&self, ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi {
        dispatch!(self, ball_cylinder(ball, cylinder, t_max))
    }

    fn ball_polygon(&self, ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi {
        dispatch!(self, ball_polygon(ball, polygon, t_max))
    }

    fn misses_are_certain(&self) -> bool {
        dispatch!(self, misses_are_certain())
    }

    fn before_query(&self, pair: &QueryPair) {
        if let Self::Custom(custom) = self {
            custom.before_query(pair);
        }
    }
}

impl ToiMode {
    /// NeHe's search with its 150 slices.
    pub const SLICED: Self = Self::Sliced { slices: 150 };

    /// The bisection tolerance when none is given: 1e-9 time units.
    pub const BISECT_TOLERANCE: Real = 1e-9;

    /// The sliced search with 150 slices, refined to [`Self::BISECT_TOLERANCE`].
    pub const SLICED_BISECT: Self = Self::SlicedBisect {
        slices: 150,
        tolerance: Self::BISECT_TOLERANCE,
    };

    /// Check the parameters: slices at least 1, tolerance finite and positive.
    pub fn validate(&self) -> Result<(), ParseToiModeError> {
        match *self {
            Self::Sliced { slices: 0 } | Self::SlicedBisect { slices: 0, .. } => {
                Err(ParseToiModeError::Slices("0".to_owned()))
            }
            Self::SlicedBisect { tolerance, .. } if !(tolerance.is_finite() && tolerance > 0.0) => {
                Err(ParseToiModeError::Tolerance(tolerance.to_string()))
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for ToiMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Analytic => f.write_str("analytic"),
            Self::Sliced { slices } => write!(f, "sliced:{slices}"),
            Self::SlicedBisect { slices, tolerance } => {
                write!(f, "sliced-bisect:{slices}")?;
                if tolerance != Self::BISECT_TOLERANCE {
                    write!(f, ":{tolerance:e}")?;
                }
                Ok(())
            }
            Self::Discrete => f.write_str("discrete"),
            Self::Custom(ref custom) => f.write_str(custom.name()),
        }
    }
}

/// Why a strategy name could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseToiModeError {
    /// Not one of the known names.
    Unknown(String),
    /// The slice count is not a whole number of at least 1.
    Slices(String),
    /// The tolerance is not a finite positive number.
    Tolerance(String),
}

impl fmt::Display for ParseToiModeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown(name) => write!(
                f,
                "unknown TOI strategy `{name}`; allowed: analytic, sliced[:N], sliced-bisect[:N[:TOL]], discrete"
            ),
            Self::Slices(n) => write!(
                f,
                "slice count `{n}` is not allowed; allowed: a whole number from 1 to {}",
                u32::MAX
            ),
            Self::Tolerance(t) => write!(
                f,
                "tolerance `{t}` is not allowed; allowed: a finite number > 0"
            ),
        }
    }
}

impl std::error::Error for ParseToiModeError {}

impl FromStr for ToiMode {
    type Err = ParseToiModeError;

    /// Read `analytic`, `sliced[:N]`, `sliced-bisect[:N[:TOL]]` or `discrete` (any case).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let lower = text.trim().to_ascii_lowercase();
        let mut parts = lower.split(':');
        let name = parts.next().unwrap_or_default();
        let slices = parts.next().map(parse_slices).transpose()?.unwrap_or(150);
        let tolerance = parts.next().map(parse_tolerance).transpose()?;
        if parts.next().is_some() {
            return Err(ParseToiModeError::Unknown(text.to_owned()));
        }
        let plain = |strategy: Self| {
            if lower.contains(':') {
                Err(ParseToiModeError::Unknown(text.to_owned()))
            } else {
                Ok(strategy)
            }
        };
        match name {
            "analytic" => plain(Self::Analytic),
            "discrete" => plain(Self::Discrete),
            "sliced" if tolerance.is_none() => Ok(Self::Sliced { slices }),
            "sliced-bisect" => Ok(Self::SlicedBisect {
                slices,
                tolerance: tolerance.unwrap_or(Self::BISECT_TOLERANCE),
            }),
            _ => Err(ParseToiModeError::Unknown(text.to_owned())),
        }
    }
}

fn parse_slices(text: &str) -> Result<u32, ParseToiModeError> {
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ParseToiModeError::Slices(text.to_owned())),
    }
}

fn parse_tolerance(text: &str) -> Result<Real, ParseToiModeError> {
    match text.parse::<Real>() {
        Ok(t) if t.is_finite() && t > 0.0 => Ok(t),
        _ => Err(ParseToiModeError::Tolerance(text.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for strategy in [
            ToiMode::Analytic,
            ToiMode::SLICED,
            ToiMode::Sliced { slices: 7 },
            ToiMode::SLICED_BISECT,
            ToiMode::SlicedBisect {
                slices: 20,
                tolerance: 1e-6,
            },
            ToiMode::Discrete,
        ] {
            assert_eq!(strategy.to_string().parse::<ToiMode>(), Ok(strategy));
        }
    }

    #[test]
    fn defaults_and_case() {
        assert_eq!("Sliced".parse(), Ok(ToiMode::SLICED));
        assert_eq!("sliced-bisect".parse(), Ok(ToiMode::SLICED_BISECT));
        assert_eq!(" ANALYTIC ".parse(), Ok(ToiMode::Analytic));
    }

    #[test]
    fn bad_names_say_what_is_allowed() {
        for (text, expected) in [
            ("sliced:0", ParseToiModeError::Slices("0".into())),
            ("sliced:-3", ParseToiModeError::Slices("-3".into())),
            ("sliced:many", ParseToiModeError::Slices("many".into())),
            (
                "sliced-bisect:10:0",
                ParseToiModeError::Tolerance("0".into()),
            ),
            (
                "sliced-bisect:10:nan",
                ParseToiModeError::Tolerance("nan".into()),
            ),
            (
                "analytic:3",
                ParseToiModeError::Unknown("analytic:3".into()),
            ),
            (
                "sliced:3:1e-9",
                ParseToiModeError::Unknown("sliced:3:1e-9".into()),
            ),
            ("rk4", ParseToiModeError::Unknown("rk4".into())),
        ] {
            let error = text.parse::<ToiMode>().unwrap_err();
            assert_eq!(error, expected, "{text}");
            assert!(error.to_string().contains("allowed"), "{error}");
        }
    }

    #[test]
    fn ron_names() {
        let read = |text: &str| ron::from_str::<ToiMode>(text).unwrap();
        assert_eq!(read("Analytic"), ToiMode::Analytic);
        assert_eq!(read("Sliced(slices: 150)"), ToiMode::SLICED);
        assert_eq!(
            read("SlicedBisect(slices: 150, tolerance: 1e-9)"),
            ToiMode::SLICED_BISECT
        );
        assert_eq!(read("Discrete"), ToiMode::Discrete);
        assert!(ron::from_str::<ToiMode>("Sliced(slices: 1, extra: 2)").is_err());
    }

    #[test]
    fn validate_rejects_zero_slices_and_bad_tolerance() {
        assert!(ToiMode::Sliced { slices: 0 }.validate().is_err());
        assert!(
            ToiMode::SlicedBisect {
                slices: 3,
                tolerance: -1.0
            }
            .validate()
            .is_err()
        );
        assert!(ToiMode::SLICED_BISECT.validate().is_ok());
    }
}
