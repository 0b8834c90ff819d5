//! The strategy trait, the analytic strategy, and the enum that names the built-in ones.

use std::fmt;
use std::str::FromStr;

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

/// The built-in strategies by name, as scene files and the command line give them.
///
/// In RON: `Analytic`, `Sliced(slices: 150)`, `SlicedBisect(slices: 150, tolerance: 1e-9)`,
/// `Discrete`. On the command line ([`FromStr`] and [`Display`](fmt::Display)): `analytic`,
/// `sliced[:N]`, `sliced-bisect[:N[:TOL]]`, `discrete`.
///
/// | strategy | misses | reports | cost per query |
/// |---|---|---|---|
/// | `Analytic` | nothing | the exact time | one closed form per feature |
/// | `Sliced` | contacts shorter than a slice | up to a slice early | `slices + 1` static tests |
/// | `SlicedBisect` | contacts shorter than a slice | up to `tolerance` early | the same, plus the bisection |
/// | `Discrete` | anything that is clear again at the end | overlaps at the end | one static test |
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Strategy {
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
}

/// Dispatch one [`ToiStrategy`] method to the strategy a [`Strategy`] names.
macro_rules! dispatch {
    ($self:ident, $method:ident($($arg:ident),*)) => {
        match *$self {
            Strategy::Analytic => Analytic.$method($($arg),*),
            Strategy::Sliced { slices } => Sliced { slices }.$method($($arg),*),
            Strategy::SlicedBisect { slices, tolerance } => {
                SlicedBisect { slices, tolerance }.$method($($arg),*)
            }
            Strategy::Discrete => Discrete.$method($($arg),*),
        }
    };
}

impl ToiStrategy for Strategy {
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
}

impl Strategy {
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
    pub fn validate(&self) -> Result<(), ParseStrategyError> {
        match *self {
            Self::Sliced { slices: 0 } | Self::SlicedBisect { slices: 0, .. } => {
                Err(ParseStrategyError::Slices("0".to_owned()))
            }
            Self::SlicedBisect { tolerance, .. } if !(tolerance.is_finite() && tolerance > 0.0) => {
                Err(ParseStrategyError::Tolerance(tolerance.to_string()))
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Strategy {
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
        }
    }
}

/// Why a strategy name could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseStrategyError {
    /// Not one of the known names.
    Unknown(String),
    /// The slice count is not a whole number of at least 1.
    Slices(String),
    /// The tolerance is not a finite positive number.
    Tolerance(String),
}

impl fmt::Display for ParseStrategyError {
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

impl std::error::Error for ParseStrategyError {}

impl FromStr for Strategy {
    type Err = ParseStrategyError;

    /// Read `analytic`, `sliced[:N]`, `sliced-bisect[:N[:TOL]]` or `discrete` (any case).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let lower = text.trim().to_ascii_lowercase();
        let mut parts = lower.split(':');
        let name = parts.next().unwrap_or_default();
        let slices = parts.next().map(parse_slices).transpose()?.unwrap_or(150);
        let tolerance = parts.next().map(parse_tolerance).transpose()?;
        if parts.next().is_some() {
            return Err(ParseStrategyError::Unknown(text.to_owned()));
        }
        let plain = |strategy: Self| {
            if lower.contains(':') {
                Err(ParseStrategyError::Unknown(text.to_owned()))
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
            _ => Err(ParseStrategyError::Unknown(text.to_owned())),
        }
    }
}

fn parse_slices(text: &str) -> Result<u32, ParseStrategyError> {
    match text.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(ParseStrategyError::Slices(text.to_owned())),
    }
}

fn parse_tolerance(text: &str) -> Result<Real, ParseStrategyError> {
    match text.parse::<Real>() {
        Ok(t) if t.is_finite() && t > 0.0 => Ok(t),
        _ => Err(ParseStrategyError::Tolerance(text.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for strategy in [
            Strategy::Analytic,
            Strategy::SLICED,
            Strategy::Sliced { slices: 7 },
            Strategy::SLICED_BISECT,
            Strategy::SlicedBisect {
                slices: 20,
                tolerance: 1e-6,
            },
            Strategy::Discrete,
        ] {
            assert_eq!(strategy.to_string().parse::<Strategy>(), Ok(strategy));
        }
    }

    #[test]
    fn defaults_and_case() {
        assert_eq!("Sliced".parse(), Ok(Strategy::SLICED));
        assert_eq!("sliced-bisect".parse(), Ok(Strategy::SLICED_BISECT));
        assert_eq!(" ANALYTIC ".parse(), Ok(Strategy::Analytic));
    }

    #[test]
    fn bad_names_say_what_is_allowed() {
        for (text, expected) in [
            ("sliced:0", ParseStrategyError::Slices("0".into())),
            ("sliced:-3", ParseStrategyError::Slices("-3".into())),
            ("sliced:many", ParseStrategyError::Slices("many".into())),
            (
                "sliced-bisect:10:0",
                ParseStrategyError::Tolerance("0".into()),
            ),
            (
                "sliced-bisect:10:nan",
                ParseStrategyError::Tolerance("nan".into()),
            ),
            (
                "analytic:3",
                ParseStrategyError::Unknown("analytic:3".into()),
            ),
            (
                "sliced:3:1e-9",
                ParseStrategyError::Unknown("sliced:3:1e-9".into()),
            ),
            ("rk4", ParseStrategyError::Unknown("rk4".into())),
        ] {
            let error = text.parse::<Strategy>().unwrap_err();
            assert_eq!(error, expected, "{text}");
            assert!(error.to_string().contains("allowed"), "{error}");
        }
    }

    #[test]
    fn ron_names() {
        let read = |text: &str| ron::from_str::<Strategy>(text).unwrap();
        assert_eq!(read("Analytic"), Strategy::Analytic);
        assert_eq!(read("Sliced(slices: 150)"), Strategy::SLICED);
        assert_eq!(
            read("SlicedBisect(slices: 150, tolerance: 1e-9)"),
            Strategy::SLICED_BISECT
        );
        assert_eq!(read("Discrete"), Strategy::Discrete);
        assert!(ron::from_str::<Strategy>("Sliced(slices: 1, extra: 2)").is_err());
    }

    #[test]
    fn validate_rejects_zero_slices_and_bad_tolerance() {
        assert!(Strategy::Sliced { slices: 0 }.validate().is_err());
        assert!(
            Strategy::SlicedBisect {
                slices: 3,
                tolerance: -1.0
            }
            .validate()
            .is_err()
        );
        assert!(Strategy::SLICED_BISECT.validate().is_ok());
    }
}
