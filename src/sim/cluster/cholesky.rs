//! The Cholesky factor of a cluster's small dense systems: the exact solve on the pushing
//! contacts (`solve_active`) and rest first's regularised balance (`rest::least_squares`).

use crate::math::Real;

/// The lower Cholesky factor `l` of a symmetric positive semidefinite `m` by `m` matrix
/// (row-major), with the pivots it dropped.
pub(super) struct Cholesky {
    l: Vec<Real>,
    m: usize,
    /// Per row: false where its pivot was dropped (the row depends on those before it).
    used: Vec<bool>,
}

impl Cholesky {
    /// Factor `g` in place. `pivot(diagonal, left)` gives the square of row `x`'s pivot from
    /// its diagonal entry and what is left of it after the rows before, or `None` to drop the
    /// row and its column: its unknown is then zero.
    pub(super) fn factor(
        mut g: Vec<Real>,
        m: usize,
        pivot: impl Fn(Real, Real) -> Option<Real>,
    ) -> Self {
        let mut used = vec![true; m];
        for x in 0..m {
            let diagonal = g[x * m + x];
            for z in 0..x {
                g[x * m + x] -= g[x * m + z] * g[x * m + z];
            }
            let Some(square) = pivot(diagonal, g[x * m + x]) else {
                used[x] = false;
                for y in 0..m {
                    g[x * m + y] = 0.0;
                    g[y * m + x] = 0.0;
                }
                continue;
            };
            let root = square.sqrt();
            g[x * m + x] = root;
            for y in x + 1..m {
                let mut v = g[y * m + x];
                for z in 0..x {
                    v -= g[y * m + z] * g[x * m + z];
                }
                g[y * m + x] = v / root;
            }
        }
        Self { l: g, m, used }
    }

    /// Solve `l lᵀ y = b` in place of `b`, `y` zero on the dropped rows.
    pub(super) fn solve(&self, b: &mut [Real]) {
        let (l, m) = (&self.l, self.m);
        for x in 0..m {
            if !self.used[x] {
                b[x] = 0.0;
                continue;
            }
            for z in 0..x {
                b[x] -= l[x * m + z] * b[z];
            }
            b[x] /= l[x * m + x];
        }
        for x in (0..m).rev() {
            if !self.used[x] {
                continue;
            }
            for z in x + 1..m {
                b[x] -= l[z * m + x] * b[z];
            }
            b[x] /= l[x * m + x];
        }
    }
}
