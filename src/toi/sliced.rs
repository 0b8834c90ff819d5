//! NeHe's sliced search, its bisection refinement, and the discrete baseline.

use super::{Contact, MovingBall, Toi, ToiStrategy};
use crate::geometry::{ConvexPolygon, Cylinder, Plane, Proximity, Shape};
use crate::math::Real;

/// Find a contact by sampling the pair's proximity at `slices` instants (NeHe's Lesson 30).
///
/// `proximity_at(t)` measures the pair at time `t`; any static test can be searched this way.
/// The interval `[0, t_max]` is cut into `slices` equal slices (0 counts as 1). If the pair
/// overlaps at `t = 0` the result is [`Toi::Overlapping`]. Otherwise the first slice end `t_k`
/// at which it overlaps gives a hit at the previous slice end `t_{k-1}` (where it does not
/// overlap), or, with `bisect_tolerance = Some(tol)`, at the last non-overlapping time found by
/// bisecting `[t_{k-1}, t_k]` down to a width of `tol`.
///
/// The trade-off: a reported time is never later than the true one and at most one slice (or
/// `tol`) earlier, but a contact that begins and ends between two samples (relative speed times
/// slice length greater than the overlap chord) is missed. Costs `slices + 1` proximity tests per
/// query, plus one per bisection step.
pub fn sliced_search(
    proximity_at: impl Fn(Real) -> Proximity,
    t_max: Real,
    slices: u32,
    bisect_tolerance: Option<Real>,
) -> Toi {
    let start = proximity_at(0.0);
    if start.overlaps() {
        return Toi::Overlapping(Contact::from_proximity(0.0, &start));
    }
    let slices = slices.max(1);
    let mut before = 0.0;
    for k in 1..=slices {
        let t = t_max * (Real::from(k) / Real::from(slices));
        if proximity_at(t).overlaps() {
            let time = match bisect_tolerance {
                Some(tolerance) => bisect(&proximity_at, before, t, tolerance),
                None => before,
            };
            return Toi::Hit(Contact::from_proximity(time, &proximity_at(time)));
        }
        before = t;
    }
    Toi::Miss
}

/// Narrow `[clear, overlapping]` to `tolerance` and return its clear end.
fn bisect(
    proximity_at: &impl Fn(Real) -> Proximity,
    mut clear: Real,
    mut overlapping: Real,
    tolerance: Real,
) -> Real {
    while overlapping - clear > tolerance {
        let mid = clear + 0.5 * (overlapping - clear);
        // Below the resolution of the time axis
        if mid <= clear || mid >= overlapping {
            break;
        }
        if proximity_at(mid).overlaps() {
            overlapping = mid;
        } else {
            clear = mid;
        }
    }
    clear
}

/// Test only the end of the interval: a hit at `t_max` with the overlap found there.
///
/// What an engine without continuous collision detection does; the contact's `depth` is the
/// penetration at `t_max`, for the caller to push apart.
fn end_only(proximity_at: impl Fn(Real) -> Proximity, t_max: Real) -> Toi {
    let end = proximity_at(t_max);
    if end.overlaps() {
        Toi::Hit(Contact::from_proximity(t_max, &end))
    } else {
        Toi::Miss
    }
}

/// NeHe's sliced search with a fixed number of slices per query interval.
///
/// See [`sliced_search`] for what it reports and what it misses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sliced {
    /// Number of slices per interval; NeHe uses 150.
    pub slices: u32,
}

impl Default for Sliced {
    fn default() -> Self {
        Self { slices: 150 }
    }
}

/// The sliced search refined by bisection inside the first overlapping slice.
///
/// As early as `tolerance` instead of a whole slice, and just as blind to contacts between
/// samples. See [`sliced_search`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlicedBisect {
    /// Number of slices per interval.
    pub slices: u32,
    /// Bisection stops when the bracket is this narrow, in time units.
    pub tolerance: Real,
}

impl Default for SlicedBisect {
    fn default() -> Self {
        Self {
            slices: 150,
            tolerance: 1e-9,
        }
    }
}

/// The tunnelling baseline: overlap tested at the end of the interval only.
///
/// Reports a [`Toi::Hit`] at `t_max` whose `depth` is the penetration there; anything that
/// passes through within the interval goes unseen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Discrete;

/// A strategy that finds contacts by sampling a pair's proximity over time.
///
/// Every `SampledSearch` is a [`ToiStrategy`]: the one search serves all pairs, each pair
/// providing only its static test. Implement it to try a search of your own.
pub trait SampledSearch {
    /// Search `[0, t_max]` for the first contact, given the pair's proximity at any time.
    fn search(&self, proximity_at: impl Fn(Real) -> Proximity, t_max: Real) -> Toi;
}

impl SampledSearch for Sliced {
    fn search(&self, proximity_at: impl Fn(Real) -> Proximity, t_max: Real) -> Toi {
        sliced_search(proximity_at, t_max, self.slices, None)
    }
}

impl SampledSearch for SlicedBisect {
    fn search(&self, proximity_at: impl Fn(Real) -> Proximity, t_max: Real) -> Toi {
        sliced_search(proximity_at, t_max, self.slices, Some(self.tolerance))
    }
}

impl SampledSearch for Discrete {
    fn search(&self, proximity_at: impl Fn(Real) -> Proximity, t_max: Real) -> Toi {
        end_only(proximity_at, t_max)
    }
}

impl<S: SampledSearch> ToiStrategy for S {
    fn ball_ball(&self, ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi {
        self.search(|t| other.at(t).proximity(&ball.at(t)), t_max)
    }

    fn ball_plane(&self, ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi {
        self.search(|t| plane.proximity(&ball.at(t)), t_max)
    }

    fn ball_cylinder(&self, ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi {
        self.search(|t| cylinder.proximity(&ball.at(t)), t_max)
    }

    fn ball_polygon(&self, ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi {
        self.search(|t| polygon.proximity(&ball.at(t)), t_max)
    }
}
