//! The sparse symmetric systems of a cluster and their Cholesky factor: the exact solve on the
//! pushing contacts (`solve_active`), rest first's regularised balance
//! (`rest::least_squares`), and the interior-point method's and its Newton finish's systems
//! (`interior`).
//!
//! A contact's row couples only the contacts that share a ball with it, so the systems are
//! sparse. They are kept in envelope (profile) form: each row from its first entry to the
//! diagonal. The factor's fill stays within the envelope (George and Liu, *Computer Solution
//! of Large Sparse Positive Definite Systems*, 1981, ch. 4), so a system whose rows couple
//! only near neighbours in its order (a cluster's contacts ordered bottom up) costs about
//! `m b²` for rows `b` long, not `m³`.

use crate::math::Real;

/// A symmetric `m` by `m` matrix in envelope form: row `x` holds columns `first[x]` to `x`,
/// and every entry left of its envelope is zero.
#[derive(Clone, Debug)]
pub(super) struct Envelope {
    /// Per row, its first column (at most the row).
    first: Vec<usize>,
    /// Per row, where its entries start in `values`, and one more: the end.
    start: Vec<usize>,
    /// Per column, one past the last row whose envelope holds it.
    reach: Vec<usize>,
    values: Vec<Real>,
}

impl Envelope {
    /// Return the zero matrix whose row `x` may hold columns `first[x]` to `x`.
    ///
    /// `first[x] <= x` for every row.
    fn zeros(first: Vec<usize>) -> Self {
        let m = first.len();
        let mut start = Vec::with_capacity(m + 1);
        let mut end = 0;
        start.push(0);
        for (x, &f) in first.iter().enumerate() {
            debug_assert!(f <= x, "row {x} starts at column {f}");
            end += x - f + 1;
            start.push(end);
        }
        // A row that holds column y holds every column from its first to itself
        let mut reach = vec![0; m];
        for (x, &f) in first.iter().enumerate() {
            reach[f] = reach[f].max(x + 1);
        }
        for y in 1..m {
            reach[y] = reach[y].max(reach[y - 1]).max(y + 1);
        }
        Self {
            first,
            start,
            reach,
            values: vec![0.0; end],
        }
    }

    /// Return the zero matrix of `m` rows whose envelope holds every pair of rows within each
    /// of `cliques` (rows coupled to each other, by index below `m`): each row from the least
    /// row of any clique it is in.
    pub(super) fn coupling<C>(m: usize, cliques: impl IntoIterator<Item = C>) -> Self
    where
        C: IntoIterator<Item = usize> + Clone,
    {
        let mut first: Vec<usize> = (0..m).collect();
        for clique in cliques {
            let Some(least) = clique.clone().into_iter().min() else {
                continue;
            };
            for x in clique {
                first[x] = first[x].min(least);
            }
        }
        Self::zeros(first)
    }

    /// Return the dense `m` by `m` matrix `g` (row-major, symmetric: its lower triangle is
    /// read) in envelope form.
    #[cfg(test)]
    pub(super) fn from_dense(g: &[Real], m: usize) -> Self {
        let first = (0..m)
            .map(|x| (0..x).find(|&y| g[x * m + y] != 0.0).unwrap_or(x))
            .collect();
        let mut e = Self::zeros(first);
        for x in 0..m {
            for y in e.first[x]..=x {
                *e.at_mut(x, y) = g[x * m + y];
            }
        }
        e
    }

    /// Rows (and columns).
    pub(super) fn len(&self) -> usize {
        self.first.len()
    }

    /// Return the first column of row `x`.
    pub(super) fn first(&self, x: usize) -> usize {
        self.first[x]
    }

    /// The multiply-adds of a Cholesky factor of this envelope, about: each entry costs the
    /// length of its row before it.
    pub(super) fn factor_work(&self) -> usize {
        (0..self.len())
            .map(|x| {
                let n = x - self.first[x] + 1;
                n * (n + 1) / 2
            })
            .sum()
    }

    /// The entry at row `x`, column `y`, for `first(x) <= y <= x`.
    #[inline]
    pub(super) fn at(&self, x: usize, y: usize) -> Real {
        debug_assert!(self.first[x] <= y && y <= x);
        self.values[self.start[x] + y - self.first[x]]
    }

    /// The entry at row `x`, column `y`, for `first(x) <= y <= x`, to change.
    #[inline]
    pub(super) fn at_mut(&mut self, x: usize, y: usize) -> &mut Real {
        debug_assert!(self.first[x] <= y && y <= x);
        &mut self.values[self.start[x] + y - self.first[x]]
    }

    /// Return `g y` (the lower triangle and its mirror), each row summed by column.
    pub(super) fn times(&self, y: &[Real]) -> Vec<Real> {
        (0..self.len())
            .map(|a| {
                let lower = (self.first[a]..=a).map(|x| self.at(a, x) * y[x]);
                let upper = (a + 1..self.reach[a])
                    .filter(|&x| self.first[x] <= a)
                    .map(|x| self.at(x, a) * y[x]);
                lower.chain(upper).sum()
            })
            .collect()
    }
}

/// The lower Cholesky factor `l` of a symmetric positive semidefinite matrix, in the envelope
/// of the matrix, with the pivots it dropped.
pub(super) struct Cholesky {
    l: Envelope,
    /// Per row: false where its pivot was dropped (the row depends on those before it).
    used: Vec<bool>,
}

impl Cholesky {
    /// Factor `g` in place. `pivot(diagonal, left)` gives the square of row `x`'s pivot from
    /// its diagonal entry and what is left of it after the rows before, or `None` to drop the
    /// row and its column: its unknown is then zero.
    pub(super) fn factor(mut g: Envelope, pivot: impl Fn(Real, Real) -> Option<Real>) -> Self {
        let m = g.len();
        let mut used = vec![true; m];
        for x in 0..m {
            let fx = g.first[x];
            // Row x left of the diagonal, column by column (each column's entries below the
            // diagonal in the order of a column-oriented factor)
            for (y, &pivoted) in used.iter().enumerate().take(x).skip(fx) {
                if !pivoted {
                    *g.at_mut(x, y) = 0.0;
                    continue;
                }
                let mut v = g.at(x, y);
                for z in fx.max(g.first[y])..y {
                    v -= g.at(x, z) * g.at(y, z);
                }
                *g.at_mut(x, y) = v / g.at(y, y);
            }
            let diagonal = g.at(x, x);
            let mut left = diagonal;
            for z in fx..x {
                left -= g.at(x, z) * g.at(x, z);
            }
            match pivot(diagonal, left) {
                Some(square) => *g.at_mut(x, x) = square.sqrt(),
                None => {
                    used[x] = false;
                    for y in fx..=x {
                        *g.at_mut(x, y) = 0.0;
                    }
                }
            }
        }
        Self { l: g, used }
    }

    /// Solve `l lᵀ y = b` in place of `b`, `y` zero on the dropped rows.
    pub(super) fn solve(&self, b: &mut [Real]) {
        let l = &self.l;
        for x in 0..l.len() {
            if !self.used[x] {
                b[x] = 0.0;
                continue;
            }
            for z in l.first[x]..x {
                b[x] -= l.at(x, z) * b[z];
            }
            b[x] /= l.at(x, x);
        }
        for x in (0..l.len()).rev() {
            if !self.used[x] {
                continue;
            }
            for z in x + 1..l.reach[x] {
                if l.first[z] <= x {
                    b[x] -= l.at(z, x) * b[z];
                }
            }
            b[x] /= l.at(x, x);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// A random symmetric positive definite matrix with `band` entries left of each diagonal
    /// (some of them zero), dense.
    fn banded(m: usize, band: usize, rng: &mut Pcg64Mcg) -> Vec<Real> {
        let mut g = vec![0.0; m * m];
        for x in 0..m {
            for y in x.saturating_sub(band)..x {
                if rng.random_bool(0.7) {
                    let v = rng.random_range(-0.5..0.5);
                    g[x * m + y] = v;
                    g[y * m + x] = v;
                }
            }
            g[x * m + x] = band as Real + 1.0;
        }
        g
    }

    #[test]
    fn an_envelope_factor_solves_banded_systems_as_a_dense_one_does() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        for (m, band) in [(1, 0), (5, 1), (40, 3), (60, 12), (30, 29)] {
            let g = banded(m, band, &mut rng);
            let b: Vec<Real> = (0..m).map(|_| rng.random_range(-0.5..0.5)).collect();
            let e = Envelope::from_dense(&g, m);
            // The product reads the mirror of the lower triangle
            let product = e.times(&b);
            for a in 0..m {
                let dense: Real = (0..m).map(|x| g[a * m + x] * b[x]).sum();
                assert!((product[a] - dense).abs() <= 1e-14, "{m} {band} row {a}");
            }
            let mut y = b.clone();
            Cholesky::factor(e, |_, left| Some(left)).solve(&mut y);
            // g y = b, worked back by the dense product
            for a in 0..m {
                let gy: Real = (0..m).map(|x| g[a * m + x] * y[x]).sum();
                assert!(
                    (gy - b[a]).abs() <= 1e-12,
                    "{m} {band} row {a}: {gy} {}",
                    b[a]
                );
            }
        }
    }

    #[test]
    fn a_dependent_row_is_dropped_and_its_unknown_is_zero() {
        // Rows 0 and 2 are the same contact twice: [[1, 0, 1], [0, 2, 0], [1, 0, 1]]
        let g = [1.0, 0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 0.0, 1.0];
        let e = Envelope::from_dense(&g, 3);
        assert_eq!((e.first(0), e.first(1), e.first(2)), (0, 1, 0));
        let mut y = vec![3.0, 4.0, 3.0];
        Cholesky::factor(e, |diagonal, left| {
            (left > 1e-10 * diagonal).then_some(left)
        })
        .solve(&mut y);
        assert_eq!((y[0], y[2]), (3.0, 0.0));
        assert!((y[1] - 2.0).abs() <= 1e-15, "{}", y[1]);
    }
}
