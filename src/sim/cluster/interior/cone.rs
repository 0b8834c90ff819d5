//! The algebra of the cones of the interior-point method: the half-line and the second-order
//! cone `x0 >= |x1|` of three dimensions, each self-dual. Projection with its Jacobian, the
//! longest step inside, the Jordan product `x ∘ y = (xᵀ y, x0 y1 + y0 x1)`, and the
//! Nesterov-Todd scaling (Vandenberghe, "The CVXOPT linear and quadratic cone program
//! solvers", 2010).

use crate::math::{Real, Vec3};
use glam::DMat3;

/// Project `z` on a cone of `count` dimensions (1: the half-line, 3: the second-order cone):
/// the projection, and its Jacobian.
pub(super) fn project(z: [Real; 3], count: usize) -> ([Real; 3], DMat3) {
    if count == 1 {
        return if z[0] > 0.0 {
            ([z[0], 0.0, 0.0], DMat3::IDENTITY)
        } else {
            ([0.0; 3], DMat3::ZERO)
        };
    }
    let t = (z[1] * z[1] + z[2] * z[2]).sqrt();
    if t <= z[0] {
        return (z, DMat3::IDENTITY);
    }
    if t <= -z[0] {
        return ([0.0; 3], DMat3::ZERO);
    }
    // Onto the boundary: ((z0 + t) / 2) (1, ẑ)
    let (e1, e2) = (z[1] / t, z[2] / t);
    let (f, q) = ((z[0] + t) / 2.0, z[0] / t);
    let rows = [
        [0.5, 0.5 * e1, 0.5 * e2],
        [0.5 * e1, 0.5 * (1.0 + q - q * e1 * e1), -0.5 * q * e1 * e2],
        [0.5 * e2, -0.5 * q * e1 * e2, 0.5 * (1.0 + q - q * e2 * e2)],
    ];
    (
        [f, f * e1, f * e2],
        DMat3::from_cols_array_2d(&rows).transpose(),
    )
}

/// The largest step along `d` from `x` inside the second-order cone: the least positive root
/// of `(x0 + t d0)² - |x1 + t d1|²`, or where `x0 + t d0` reaches zero (infinite for none).
pub(super) fn cone_reach(x: &[Real], d: &[Real]) -> Real {
    let qa = d[0] * d[0] - d[1] * d[1] - d[2] * d[2];
    let qb = x[0] * d[0] - x[1] * d[1] - x[2] * d[2];
    let qc = x[0] * x[0] - x[1] * x[1] - x[2] * x[2];
    let disc = qb * qb - qa * qc;
    let root = if qa == 0.0 {
        (qb < 0.0).then(|| -qc / (2.0 * qb))
    } else if disc < 0.0 {
        None
    } else {
        // Roots qc / q and q / qa, q = -(qb + sign(qb) √disc): no cancellation
        let q = -(qb + qb.signum() * disc.sqrt());
        [q / qa, qc / q]
            .into_iter()
            .filter(|&t| t > 0.0)
            .reduce(Real::min)
    };
    let half = (d[0] < 0.0).then(|| -x[0] / d[0]);
    [root, half]
        .into_iter()
        .flatten()
        .fold(Real::INFINITY, Real::min)
}

/// The Jordan product of two points of a cone of `count` (1 or 3) dimensions.
pub(super) fn jordan(u: [Real; 3], v: [Real; 3], count: usize) -> [Real; 3] {
    if count == 1 {
        return [u[0] * v[0], 0.0, 0.0];
    }
    [
        u[0] * v[0] + u[1] * v[1] + u[2] * v[2],
        u[0] * v[1] + v[0] * u[1],
        u[0] * v[2] + v[0] * u[2],
    ]
}

/// The Nesterov-Todd scaling of one cone at `(x, y)`: `W` with `W x = W⁻¹ y = λ`.
pub(super) struct Scaling {
    pub(super) w: DMat3,
    pub(super) inverse: DMat3,
    pub(super) lambda: [Real; 3],
    pub(super) count: usize,
}

impl Scaling {
    /// The scaling at `x` and `y`, both inside the cone (of 1 or 3 dimensions).
    pub(super) fn of(x: &[Real], y: &[Real]) -> Self {
        if x.len() == 1 {
            let w = (y[0] / x[0]).sqrt();
            return Self {
                w: DMat3::from_diagonal(Vec3::new(w, 1.0, 1.0)),
                inverse: DMat3::from_diagonal(Vec3::new(1.0 / w, 1.0, 1.0)),
                lambda: [(x[0] * y[0]).sqrt(), 0.0, 0.0],
                count: 1,
            };
        }
        let j = |v: Vec3| Vec3::new(v.x, -v.y, -v.z);
        let (x, y) = (Vec3::from_slice(x), Vec3::from_slice(y));
        let (nx, ny) = (x.dot(j(x)).sqrt(), y.dot(j(y)).sqrt());
        let (xb, yb) = (x / nx, y / ny);
        let gamma = ((1.0 + xb.dot(yb)) / 2.0).sqrt();
        // H = 2 v vᵀ - J takes x̄ to ȳ; W is β times its square root, from v's Jordan root
        let v = (yb + j(xb)) / (2.0 * gamma);
        let root = ((v.x + 1.0) / 2.0).sqrt();
        let w = Vec3::new(root, v.y / (2.0 * root), v.z / (2.0 * root));
        let beta = (ny / nx).sqrt();
        let flip = DMat3::from_diagonal(Vec3::new(1.0, -1.0, -1.0));
        let outer = |v: Vec3| DMat3::from_cols(v * v.x, v * v.y, v * v.z);
        let scaling = (outer(w) * 2.0 - flip) * beta;
        let inverse = (outer(j(w)) * 2.0 - flip) * (1.0 / beta);
        Self {
            w: scaling,
            inverse,
            lambda: (scaling * x).to_array(),
            count: 3,
        }
    }

    /// Return `W v` (or `W⁻¹ v`) for `v` of the cone's dimension.
    pub(super) fn apply(&self, v: &[Real], inverse: bool) -> [Real; 3] {
        let m = if inverse { self.inverse } else { self.w };
        let mut full = [0.0; 3];
        full[..v.len()].copy_from_slice(v);
        if self.count == 1 {
            return [m.x_axis.x * full[0], 0.0, 0.0];
        }
        (m * Vec3::from_array(full)).to_array()
    }

    /// Return `λ ∘ λ`.
    pub(super) fn lambda_squared(&self) -> [Real; 3] {
        jordan(self.lambda, self.lambda, self.count)
    }

    /// Solve `λ ∘ d = z` for `d`.
    pub(super) fn inverse_arrow(&self, z: [Real; 3]) -> [Real; 3] {
        let l = self.lambda;
        if self.count == 1 {
            return [z[0] / l[0], 0.0, 0.0];
        }
        let det = l[0] * l[0] - l[1] * l[1] - l[2] * l[2];
        let d0 = (l[0] * z[0] - l[1] * z[1] - l[2] * z[2]) / det;
        [d0, (z[1] - d0 * l[1]) / l[0], (z[2] - d0 * l[2]) / l[0]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scaling_takes_x_and_y_to_the_same_point() {
        let (x, y) = ([2.0, 0.5, -1.0], [1.5, -0.3, 0.7]);
        let s = Scaling::of(&x, &y);
        let (wx, wiy) = (s.apply(&x, false), s.apply(&y, true));
        for i in 0..3 {
            assert!((wx[i] - wiy[i]).abs() < 1e-12, "{wx:?} {wiy:?}");
            assert!((wx[i] - s.lambda[i]).abs() < 1e-12);
        }
        assert!((s.w * s.inverse).abs_diff_eq(DMat3::IDENTITY, 1e-12));
    }
}
