//! A numerically stable solver for `a t² + b t + c = 0`, and the sweep kernel built on it.

use crate::math::Real;

/// The real roots of a quadratic (or lower-degree) equation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Roots {
    /// No real root.
    None,
    /// One root: a linear equation, or a double root.
    One(Real),
    /// Two distinct roots, the smaller first.
    Two(Real, Real),
    /// Every `t` is a root (`a = b = c = 0`).
    All,
}

/// Solve `a t² + b t + c = 0` for real `t`.
///
/// Handles zero coefficients: `a = 0` gives the linear root `-c / b`, and `a = b = 0` gives
/// [`Roots::All`] or [`Roots::None`] depending on `c`. Two roots come sorted. The roots are taken
/// as `q / a` and `c / q` with `q = -(b + sign(b) √disc) / 2`, which never subtracts nearly equal
/// numbers (Numerical Recipes 5.6). Non-finite coefficients give [`Roots::None`].
///
/// ```
/// use toibox::toi::quadratic::{solve, Roots};
/// assert_eq!(solve(1.0, -3.0, 2.0), Roots::Two(1.0, 2.0));
/// assert_eq!(solve(0.0, 2.0, -4.0), Roots::One(2.0));
/// assert_eq!(solve(1.0, 0.0, 1.0), Roots::None);
/// ```
#[must_use]
pub fn solve(a: Real, b: Real, c: Real) -> Roots {
    if !(a.is_finite() && b.is_finite() && c.is_finite()) {
        return Roots::None;
    }
    if a == 0.0 {
        // Linear or constant
        return if b != 0.0 {
            Roots::One(-c / b)
        } else if c == 0.0 {
            Roots::All
        } else {
            Roots::None
        };
    }
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return Roots::None;
    }
    if disc == 0.0 {
        return Roots::One(-b / (2.0 * a));
    }
    let q = -0.5 * (b + b.signum() * disc.sqrt());
    let (r0, r1) = (q / a, c / q);
    if r0 <= r1 {
        Roots::Two(r0, r1)
    } else {
        Roots::Two(r1, r0)
    }
}

/// Return the first time `t >= 0` at which a point `s + t w` enters the ball of radius `r`
/// around the origin, given the coefficients of `|s + t w|² - r²`: `a = w·w`, `half_b = s·w`,
/// `c = s·s - r²`.
///
/// A point moving away or sideways (`half_b >= 0`) never enters. A point that approaches from
/// inside or on the sphere (`c <= 0`, which callers have usually ruled out already) enters at
/// `t = 0`. This is the kernel of every sphere-like sweep: ball-ball, ball-vertex, ball-edge and
/// ball-cylinder side (with the components perpendicular to the axis).
#[must_use]
#[inline]
pub fn entry_time(a: Real, half_b: Real, c: Real) -> Option<Real> {
    // Moving away or sideways
    if half_b >= 0.0 {
        return None;
    }
    // Already inside
    if c <= 0.0 {
        return Some(0.0);
    }
    match solve(a, 2.0 * half_b, c) {
        Roots::One(t) | Roots::Two(t, _) => Some(t),
        Roots::None | Roots::All => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_come_sorted_for_either_sign_of_b() {
        // (t - 2)(t + 5) = t² + 3t - 10
        assert_eq!(solve(1.0, 3.0, -10.0), Roots::Two(-5.0, 2.0));
        // -(t - 2)(t + 5)
        assert_eq!(solve(-1.0, -3.0, 10.0), Roots::Two(-5.0, 2.0));
    }

    #[test]
    fn zero_coefficients() {
        assert_eq!(solve(0.0, 0.0, 0.0), Roots::All);
        assert_eq!(solve(0.0, 0.0, 3.0), Roots::None);
        assert_eq!(solve(0.0, -2.0, 3.0), Roots::One(1.5));
        // t² = 0
        assert_eq!(solve(4.0, 0.0, 0.0), Roots::One(0.0));
        // t² - 4 = 0: b = 0 takes the sign branch of +0
        assert_eq!(solve(1.0, 0.0, -4.0), Roots::Two(-2.0, 2.0));
        // t (t - 3) = 0: c = 0
        assert_eq!(solve(1.0, -3.0, 0.0), Roots::Two(0.0, 3.0));
    }

    #[test]
    fn double_root() {
        // (t - 3)² = t² - 6t + 9
        assert_eq!(solve(1.0, -6.0, 9.0), Roots::One(3.0));
    }

    #[test]
    fn no_cancellation_for_a_tiny_root() {
        // t² - 1e8 t + 1 = 0: roots ~1e8 and 1e-8. The textbook (-b - √disc) / 2a loses the small
        // root to cancellation; the stable form keeps full precision.
        let Roots::Two(small, large) = solve(1.0, -1e8, 1.0) else {
            panic!("two roots expected");
        };
        assert!((small - 1e-8).abs() <= 1e-8 * 1e-12, "small root {small}");
        assert!((large - 1e8).abs() <= 1e8 * 1e-12, "large root {large}");
    }

    #[test]
    fn non_finite_coefficients_have_no_roots() {
        assert_eq!(solve(Real::NAN, 1.0, 1.0), Roots::None);
        assert_eq!(solve(1.0, Real::INFINITY, 1.0), Roots::None);
    }

    #[test]
    fn entry_time_of_a_point_into_the_unit_ball() {
        // From (3,0,0) with velocity (-1,0,0): enters at t = 2.
        let (s, w) = (3.0, -1.0);
        assert_eq!(entry_time(w * w, s * w, s * s - 1.0), Some(2.0));
        // Moving away
        assert_eq!(entry_time(1.0, 3.0, 8.0), None);
        // Approaching from inside
        assert_eq!(entry_time(1.0, -0.5, -0.75), Some(0.0));
        // Passing by at distance 2 along y = 2: s = (-3,2), w = (1,0): |s|² - 1 = 12, s·w = -3
        assert_eq!(entry_time(1.0, -3.0, 12.0), None);
    }
}
