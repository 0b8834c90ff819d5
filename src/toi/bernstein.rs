//! The first time at which polynomial conditions all hold, by subdivision in the Bernstein
//! basis: the time-of-impact queries of a ball under constant acceleration.
//!
//! A ball whose centre follows a parabola touches a plane when a quadratic in `t` reaches zero,
//! the side of a cylinder, an edge or a vertex when a quartic does, and a cap's rim when a
//! polynomial of degree 8 does. Each part of a shape inflated by the ball (its Minkowski sum)
//! is a set of conditions `p_k(t) <= 0` that hold together (the side between the caps, ...);
//! [`first_entry`] returns the earliest `t` in `[0, t_max]` at which they all hold.
//!
//! Method: each `p_k` is written in the Bernstein basis of the interval, whose coefficients
//! bound it from below and above there (the convex-hull property). A piece on which some `p_k`
//! is bounded away above zero holds no entry and is dropped; the others are halved and searched
//! earliest first (Lane and Riesenfeld 1981, "Bounds on a polynomial"; Sherbrooke and
//! Patrikalakis 1993, "Computation of the solutions of nonlinear polynomial systems"). Each
//! piece's coefficients come from the polynomial shifted to the piece's start, so their
//! rounding is that of the polynomial's values there, whatever its size elsewhere. A piece where one condition goes from positive to non-positive with a
//! single sign change of its coefficients (so a single root: Descartes' rule of signs holds in
//! the Bernstein basis) while the others hold throughout is finished by bisection. A tangent
//! double root keeps its piece's lower bound at zero, so its piece is split down to a width of
//! rounding and reported: a graze is never skipped.

use crate::math::{Real, Vec3};

/// Highest degree of a condition: a cap's rim gives 8.
pub(crate) const MAX_DEGREE: usize = 8;

/// Coefficients of a polynomial of degree at most [`MAX_DEGREE`].
type Coefficients = [Real; MAX_DEGREE + 1];

/// Most halvings of the interval: pieces narrower than `t_max / 2^60` are rounding.
const MAX_DEPTH: u32 = 60;

/// A polynomial in `t`, in power form: `Σ c[k] t^k` for `k <= degree`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Poly {
    c: Coefficients,
    degree: usize,
}

impl Poly {
    /// The polynomial with coefficients `c`, from the constant term up (at most
    /// [`MAX_DEGREE`] + 1 of them).
    pub fn new(c: &[Real]) -> Self {
        assert!(!c.is_empty() && c.len() <= MAX_DEGREE + 1, "degree 0 to 8");
        let mut all = [0.0; MAX_DEGREE + 1];
        all[..c.len()].copy_from_slice(c);
        Self {
            c: all,
            degree: c.len() - 1,
        }
    }

    /// The constant `k`.
    pub fn constant(k: Real) -> Self {
        Self::new(&[k])
    }

    /// Return the value at `t` (Horner).
    pub fn eval(&self, t: Real) -> Real {
        self.c[..=self.degree]
            .iter()
            .rev()
            .fold(0.0, |acc, &c| acc * t + c)
    }

    /// Return `self + other`.
    pub fn add(&self, other: &Self) -> Self {
        let degree = self.degree.max(other.degree);
        let mut c = [0.0; MAX_DEGREE + 1];
        for (k, ck) in c.iter_mut().enumerate().take(degree + 1) {
            *ck = self.c[k] + other.c[k];
        }
        Self { c, degree }
    }

    /// Return `self * k`.
    pub fn scale(&self, k: Real) -> Self {
        Self {
            c: self.c.map(|c| c * k),
            degree: self.degree,
        }
    }

    /// Return `self * other`; their degrees add up to at most [`MAX_DEGREE`].
    pub fn mul(&self, other: &Self) -> Self {
        let degree = self.degree + other.degree;
        assert!(degree <= MAX_DEGREE, "degree {degree} over {MAX_DEGREE}");
        let mut c = [0.0; MAX_DEGREE + 1];
        for i in 0..=self.degree {
            for j in 0..=other.degree {
                c[i + j] += self.c[i] * other.c[j];
            }
        }
        Self { c, degree }
    }
}

/// `C(n, k)` as a float (exact for the degrees used).
const fn binomial(n: usize, k: usize) -> Real {
    let mut acc = 1.0;
    let mut i = 0;
    while i < k {
        acc = acc * (n - i) as Real / (i + 1) as Real;
        i += 1;
    }
    acc
}

/// `C(i, k) / C(n, k)` at `[n][i][k]`: the change from the power basis (scaled to the piece)
/// to the Bernstein basis of degree `n`.
const TO_BERNSTEIN: [[[Real; MAX_DEGREE + 1]; MAX_DEGREE + 1]; MAX_DEGREE + 1] = {
    let mut table = [[[0.0; MAX_DEGREE + 1]; MAX_DEGREE + 1]; MAX_DEGREE + 1];
    let mut n = 0;
    while n <= MAX_DEGREE {
        let mut i = 0;
        while i <= n {
            let mut k = 0;
            while k <= i {
                table[n][i][k] = binomial(i, k) / binomial(n, k);
                k += 1;
            }
            i += 1;
        }
        n += 1;
    }
    table
};

/// A vector polynomial of degree 2 in `t`: `p + q t + r t²`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Quadratic3 {
    /// The constant term.
    pub p: Vec3,
    /// The linear term.
    pub q: Vec3,
    /// The quadratic term.
    pub r: Vec3,
}

impl Quadratic3 {
    /// Return the vector less the constant `v`.
    pub fn minus(&self, v: Vec3) -> Self {
        Self {
            p: self.p - v,
            ..*self
        }
    }

    /// Return each coefficient's part perpendicular to the unit vector `axis`.
    pub fn reject(&self, axis: Vec3) -> Self {
        Self {
            p: self.p.reject_from_normalized(axis),
            q: self.q.reject_from_normalized(axis),
            r: self.r.reject_from_normalized(axis),
        }
    }

    /// Return `self · k` as a polynomial of degree 2.
    pub fn dot(&self, k: Vec3) -> Poly {
        Poly::new(&[self.p.dot(k), self.q.dot(k), self.r.dot(k)])
    }

    /// Return `|self|²` as a polynomial of degree 4.
    pub fn length_squared(&self) -> Poly {
        let (p, q, r) = (self.p, self.q, self.r);
        Poly::new(&[
            p.dot(p),
            2.0 * p.dot(q),
            q.dot(q) + 2.0 * p.dot(r),
            2.0 * q.dot(r),
            r.dot(r),
        ])
    }
}

/// Return `p`'s Bernstein coefficients on `[t0, t0 + h]`, and a bound on their rounding: the
/// polynomial is first shifted to `t0` (Taylor's coefficients, by Horner's scheme), so the bound
/// is that of evaluating `p` near `t0`, not near `0`.
fn local(p: &Poly, t0: Real, h: Real) -> (Coefficients, Real) {
    let n = p.degree;
    let mut q = p.c;
    let mut size = p.c.map(Real::abs);
    for i in 0..n {
        for k in (i..n).rev() {
            q[k] += t0 * q[k + 1];
            size[k] += t0.abs() * size[k + 1];
        }
    }
    let mut power = 1.0;
    let mut magnitude = 0.0;
    for k in 0..=n {
        q[k] *= power;
        magnitude += size[k] * power;
        power *= h;
    }
    // b_i = Σ_{k <= i} C(i, k) / C(n, k) · q_k
    let mut b = [0.0; MAX_DEGREE + 1];
    for (i, bi) in b.iter_mut().enumerate().take(n + 1) {
        *bi = (0..=i).map(|k| TO_BERNSTEIN[n][i][k] * q[k]).sum();
    }
    (b, 32.0 * (n + 1) as Real * Real::EPSILON * magnitude)
}

/// Return the earliest `t` in `[0, t_max]` at which every condition is `<= 0`, or `None`.
///
/// `t_max` must be finite and positive. The answer is never later than the true first entry by
/// more than rounding, and a touch (a double root) counts as an entry.
pub(crate) fn first_entry(conditions: &[Poly], t_max: Real) -> Option<Real> {
    debug_assert!(t_max.is_finite() && t_max > 0.0);
    // Pieces of [0, t_max] still to search, the earliest on top: start and depth (depth
    // first, so at most one piece a level waits)
    let mut stack = [(0.0, 0_u32); MAX_DEPTH as usize + 2];
    let mut waiting = 1;
    while waiting > 0 {
        waiting -= 1;
        let (t0, depth) = stack[waiting];
        let h = t_max * 0.5_f64.powi(depth as i32);
        let mut pending = None;
        let mut pending_count = 0;
        let mut excluded = false;
        let mut hold_at_start = true;
        for (k, p) in conditions.iter().enumerate() {
            let (b, slack) = local(p, t0, h);
            let b = &b[..=p.degree];
            let (low, high) = b
                .iter()
                .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), &c| {
                    (lo.min(c), hi.max(c))
                });
            if low > slack {
                excluded = true;
                break;
            }
            hold_at_start &= b[0] <= 0.0;
            if high > 0.0 {
                pending_count += 1;
                pending = Some((k, sign_changes(b) == 1 && b[0] > 0.0));
            }
        }
        if excluded {
            continue;
        }
        if hold_at_start {
            return Some(t0);
        }
        if let (1, Some((k, true))) = (pending_count, pending) {
            return Some(bisect(&conditions[k], t0, (t0 + h).min(t_max)));
        }
        if depth >= MAX_DEPTH {
            return Some(t0);
        }
        stack[waiting] = (t0 + 0.5 * h, depth + 1);
        stack[waiting + 1] = (t0, depth + 1);
        waiting += 2;
    }
    None
}

/// Count the sign changes of `b`, zeros skipped.
fn sign_changes(b: &[Real]) -> usize {
    let mut changes = 0;
    let mut last = 0.0;
    for &c in b {
        if c != 0.0 {
            if last != 0.0 && (c > 0.0) != (last > 0.0) {
                changes += 1;
            }
            last = c;
        }
    }
    changes
}

/// Return the last time found with `p > 0` in `[t0, t1]`, where `p(t0) > 0 >= p(t1)` and `p`
/// has a single root: bisection down to adjacent floats.
fn bisect(p: &Poly, mut t0: Real, mut t1: Real) -> Real {
    if p.eval(t1) <= 0.0 && p.eval(t0) <= 0.0 {
        return t0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (t0 + t1);
        if mid <= t0 || mid >= t1 {
            break;
        }
        if p.eval(mid) > 0.0 {
            t0 = mid;
        } else {
            t1 = mid;
        }
    }
    if p.eval(t1) == 0.0 { t1 } else { t0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bernstein_coefficients_bound_and_interpolate_the_ends() {
        let p = Poly::new(&[1.0, -3.0, 0.5, 2.0, -0.25]);
        for t_max in [0.5, 1.0, 3.0] {
            let (b, _) = local(&p, 0.0, t_max);
            assert!((b[0] - p.eval(0.0)).abs() < 1e-12);
            assert!((b[4] - p.eval(t_max)).abs() < 1e-9 * (1.0 + p.eval(t_max).abs()));
            let (lo, hi) = b[..=4]
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &c| {
                    (l.min(c), h.max(c))
                });
            for k in 0..=1000 {
                let v = p.eval(t_max * f64::from(k) / 1000.0);
                assert!(lo - 1e-9 <= v && v <= hi + 1e-9, "{v} outside {lo}..{hi}");
            }
        }
    }

    #[test]
    fn the_first_root_of_several_is_found() {
        // (t - 1)(t - 2)(t - 3): positive before 1
        let p = Poly::new(&[-6.0, 11.0, -6.0, 1.0]).scale(-1.0);
        let t = first_entry(&[p], 10.0).unwrap();
        assert!((t - 1.0).abs() < 1e-14, "{t}");
        assert!(p.eval(t) >= 0.0);
        // Only after 2 while the second condition holds after 2.5
        let late = Poly::new(&[2.5, -1.0]);
        let t = first_entry(&[p, late], 10.0).unwrap();
        assert!((t - 3.0).abs() < 1e-14, "{t}");
        assert_eq!(first_entry(&[p], 0.5), None);
    }

    #[test]
    fn a_tangent_double_root_is_a_touch_and_a_near_miss_is_not() {
        // (t - 0.7)²: touches zero at 0.7 and never goes below
        let touch = Poly::new(&[0.49, -1.4, 1.0]);
        let t = first_entry(&[touch], 2.0).unwrap();
        assert!((t - 0.7).abs() < 1e-6, "{t}");
        // Lifted by 1e-6: no entry
        let miss = touch.add(&Poly::constant(1e-6));
        assert_eq!(first_entry(&[miss], 2.0), None);
        // A quartic tangent at 1.25: (t - 1.25)² (t² + 1)
        let quartic = Poly::new(&[1.5625, -2.5, 1.0]).mul(&Poly::new(&[1.0, 0.0, 1.0]));
        let t = first_entry(&[quartic], 4.0).unwrap();
        assert!((t - 1.25).abs() < 1e-6, "{t}");
    }

    #[test]
    fn holding_at_the_start_is_an_entry_at_zero() {
        let p = Poly::new(&[-1.0, 1.0]);
        assert_eq!(first_entry(&[p], 5.0), Some(0.0));
    }

    #[test]
    fn vector_quadratics_square_into_quartics() {
        let path = Quadratic3 {
            p: Vec3::new(1.0, 2.0, -1.0),
            q: Vec3::new(0.5, -1.0, 3.0),
            r: Vec3::new(0.0, -4.9, 0.25),
        };
        let squared = path.length_squared();
        let along = path.dot(Vec3::new(0.0, 1.0, 0.0));
        for k in 0..20 {
            let t = f64::from(k) * 0.1;
            let x = path.p + path.q * t + path.r * t * t;
            assert!(
                (squared.eval(t) - x.length_squared()).abs() < 1e-12 * (1.0 + x.length_squared())
            );
            assert!((along.eval(t) - x.y).abs() < 1e-12);
        }
    }
}
