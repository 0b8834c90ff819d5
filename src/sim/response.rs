//! Collision response: an impulse along the contact normal.
//!
//! A pair with inverse masses `w_a`, `w_b` (zero for a static shape), relative normal velocity
//! `v_n = (v_a - v_b)·n < 0` and restitution `e` receives the impulse
//! `J = -(1 + e) v_n / (w_a + w_b)` along `n`: `v_a += J w_a n`, `v_b -= J w_b n`. Momentum is
//! conserved exactly in real arithmetic, and for `e = 1` so is kinetic energy; tangential
//! velocities are untouched (no friction).
//!
//! Resting contact: an approach slower than the rest speed is treated as perfectly inelastic
//! (`e = 0`), so a bouncing ball stops bouncing after finitely many bounces. A ball that has just
//! come to rest on a static shape, or on a ball that has, counts as immovable for the resting
//! contacts of the balls above it at that instant (shock propagation, Guendelman et al. 2003), so
//! a stack settles in one pass instead of an endless halving of velocities.

use crate::math::{Real, Vec3};

/// One side of a contact, as the response sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Body {
    pub velocity: Vec3,
    /// Zero for a static shape.
    pub inverse_mass: Real,
    /// At rest on a support at this instant.
    pub supported: bool,
}

/// What an impulse did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Response {
    /// Magnitude of the impulse, along the normal.
    pub impulse: Real,
    /// New velocity of the first body.
    pub velocity_a: Vec3,
    /// New velocity of the second body.
    pub velocity_b: Vec3,
    /// The contact was a resting one (slower than the rest speed).
    pub resting: bool,
}

/// Return the speed at which `a` approaches `b` along `n` (from `b` to `a`), or `None` when it
/// does not approach: separating, sliding, or closing slower than rounding.
///
/// A contact just resolved can keep a closing speed of a few ulps of the velocities; counting
/// that as an approach would resolve the same contact again and again at the same instant. Below
/// `1e-12` of the speeds involved plus `1e-9` of the rest speed, a pair is not approaching.
#[inline]
pub(crate) fn approach_speed(a: Vec3, b: Vec3, n: Vec3, rest_speed: Real) -> Option<Real> {
    let approach = -(a - b).dot(n);
    let tolerance = 1e-9 * rest_speed + 1e-12 * (a.length() + b.length());
    (approach > tolerance && approach.is_finite()).then_some(approach)
}

/// Resolve a contact whose normal `n` points from `b` to `a`; `None` when the pair is not
/// approaching (see [`approach_speed`]).
pub(crate) fn resolve(
    a: Body,
    b: Body,
    n: Vec3,
    restitution: Real,
    rest_speed: Real,
) -> Option<Response> {
    let approach = approach_speed(a.velocity, b.velocity, n, rest_speed)?;
    let resting = approach < rest_speed;
    let (mut wa, mut wb) = (a.inverse_mass, b.inverse_mass);
    let e = if resting {
        // Shock propagation: a supported body holds the other up
        if b.supported && !a.supported {
            wb = 0.0;
        } else if a.supported && !b.supported {
            wa = 0.0;
        }
        0.0
    } else {
        restitution
    };
    let total = wa + wb;
    // Two immovable bodies
    if total <= 0.0 {
        return None;
    }
    let impulse = (1.0 + e) * approach / total;
    Some(Response {
        impulse,
        velocity_a: a.velocity + n * (impulse * wa),
        velocity_b: b.velocity - n * (impulse * wb),
        resting,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(velocity: Vec3, inverse_mass: Real) -> Body {
        Body {
            velocity,
            inverse_mass,
            supported: false,
        }
    }

    #[test]
    fn head_on_unequal_masses_match_the_closed_form() {
        // m1 = 1 at +3, m2 = 2 at -1, elastic: v1' = ((m1-m2)v1 + 2 m2 v2)/(m1+m2) = (-3-4)/3,
        // v2' = ((m2-m1)v2 + 2 m1 v1)/(m1+m2) = (-1+6)/3. Normal from b to a is -x.
        let r = resolve(
            body(Vec3::new(3.0, 0.0, 0.0), 1.0),
            body(Vec3::new(-1.0, 0.0, 0.0), 0.5),
            -Vec3::X,
            1.0,
            0.0,
        )
        .unwrap();
        assert!((r.velocity_a.x - (-7.0 / 3.0)).abs() < 1e-15);
        assert!((r.velocity_b.x - 5.0 / 3.0).abs() < 1e-15);
        // J = (1+e) * 4 / (1 + 0.5) = 16/3
        assert!((r.impulse - 16.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn static_reflection_keeps_the_tangential_part() {
        let r = resolve(
            body(Vec3::new(2.0, -3.0, 0.0), 0.25),
            body(Vec3::ZERO, 0.0),
            Vec3::Y,
            1.0,
            0.0,
        )
        .unwrap();
        assert_eq!(r.velocity_a, Vec3::new(2.0, 3.0, 0.0));
        // J = 2 * 3 / 0.25 = 24 = m * change of velocity
        assert_eq!(r.impulse, 24.0);
    }

    #[test]
    fn rounding_is_not_an_approach() {
        // A closing speed of 1e-17 against speeds of 0.05 is what a resolved contact leaves
        let a = body(Vec3::new(0.05, -1e-17, 0.0), 1.0);
        let b = body(Vec3::ZERO, 1.0);
        assert!(resolve(a, b, Vec3::Y, 1.0, 0.0).is_none());
        assert!(resolve(a, b, Vec3::Y, 1.0, 0.2).is_none());
    }

    #[test]
    fn separating_and_sliding_pairs_get_nothing() {
        let a = body(Vec3::new(1.0, 0.0, 0.0), 1.0);
        let b = body(Vec3::ZERO, 1.0);
        assert!(resolve(a, b, Vec3::X, 1.0, 0.0).is_none());
        assert!(resolve(a, b, Vec3::Y, 1.0, 0.0).is_none());
    }

    #[test]
    fn slow_approach_rests_and_a_supported_ball_holds() {
        let falling = body(Vec3::new(0.0, -0.01, 0.0), 1.0);
        let held = Body {
            supported: true,
            ..body(Vec3::ZERO, 1.0)
        };
        let r = resolve(falling, held, Vec3::Y, 1.0, 0.1).unwrap();
        assert!(r.resting);
        assert_eq!(r.velocity_a, Vec3::ZERO);
        assert_eq!(r.velocity_b, Vec3::ZERO);
    }
}
