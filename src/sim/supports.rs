//! Supports: the directions a ball rests against in a step, and holding a push against them.
//!
//! A ball that comes to rest against a static shape, or against a ball that did, keeps the
//! normal of that support for the rest of the step (three at most, and six touches). A velocity
//! pushed into its supports is projected on their cone at once, so a stack settles from the
//! floor up and a ball in a hollow stops in one go (shock propagation, Guendelman et al. 2003;
//! see [`response`](super::response)).

use crate::math::{Real, Vec3};

/// How firmly a push must go into a support to be held: the cosine of the widest angle.
pub(crate) const HOLD: Real = 0.1;

/// The directions a body rests against in this step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Supports {
    /// Unit normals from each support towards the body, the latest last.
    normals: [Vec3; 3],
    count: u8,
    /// Unit normals of what the body has been found touching in this step: resting contacts
    /// respect them all at once, so that a ball in a hollow stops in one go.
    touches: [Vec3; 6],
    touch_count: u8,
    /// A static shape: held every way.
    everywhere: bool,
}

impl Supports {
    /// What a static shape has.
    pub const EVERYWHERE: Self = Self {
        normals: [Vec3::ZERO; 3],
        count: 0,
        touches: [Vec3::ZERO; 6],
        touch_count: 0,
        everywhere: true,
    };

    /// Note a contact with normal `normal` (towards the body), up to six; a normal within 2.6°
    /// of a known one replaces it (the same contact, as it is now).
    #[inline]
    pub fn touch(&mut self, normal: Vec3) {
        let count = usize::from(self.touch_count);
        if !renew(&mut self.touches[..count], normal) && count < self.touches.len() {
            self.touches[count] = normal;
            self.touch_count += 1;
        }
    }

    /// True when every support and touch lies within 2.6° of `normal`: the body rests on one
    /// thing (or on nothing).
    #[inline]
    pub fn only_along(&self, normal: Vec3) -> bool {
        !self.everywhere
            && self.normals[..usize::from(self.count)]
                .iter()
                .chain(&self.touches[..usize::from(self.touch_count)])
                .all(|m| m.dot(normal) > 0.999)
    }

    /// True when a push along `push` (unit) goes into a support.
    #[inline]
    pub fn hold(&self, push: Vec3) -> bool {
        self.everywhere
            || self.normals[..usize::from(self.count)]
                .iter()
                .any(|m| m.dot(push) < -HOLD)
    }

    /// Return the velocity closest to `v` that moves into none of the supports and touches nor
    /// along `-extra`: the projection of `v` on the cone `{u : u·m >= 0}` of the normals.
    ///
    /// All the constraints at once, not one after another: a ball wedged between two nearly
    /// parallel supports would otherwise be bounced between them in ever smaller steps.
    pub fn project(&self, v: Vec3, extra: Vec3) -> Vec3 {
        let mut normals = [Vec3::ZERO; 10];
        let count = usize::from(self.count);
        let touched = usize::from(self.touch_count);
        normals[..count].copy_from_slice(&self.normals[..count]);
        normals[count..count + touched].copy_from_slice(&self.touches[..touched]);
        normals[count + touched] = extra;
        project_on_cone(v, &normals[..=count + touched])
    }

    /// Return the velocity closest to `v` that moves into none of the supports (touches left
    /// out).
    pub fn project_on_supports(&self, v: Vec3) -> Vec3 {
        project_on_cone(v, &self.normals[..usize::from(self.count)])
    }

    /// Add a support with normal `normal` (towards the body), forgetting the oldest of three;
    /// a normal within 2.6° of a known one replaces it (the same support, as it is now: a ball
    /// projected on a support's old normal may still press into it).
    #[inline]
    pub fn add(&mut self, normal: Vec3) {
        if renew(&mut self.normals[..usize::from(self.count)], normal) {
            return;
        }
        if usize::from(self.count) < self.normals.len() {
            self.normals[usize::from(self.count)] = normal;
            self.count += 1;
        } else {
            self.normals.rotate_left(1);
            self.normals[2] = normal;
        }
    }
}

/// Replace the normal of `known` within 2.6° of `normal` (the same contact, as it is now) by
/// `normal`; false when there is none.
#[inline]
fn renew(known: &mut [Vec3], normal: Vec3) -> bool {
    match known.iter_mut().find(|m| m.dot(normal) > 0.999) {
        Some(m) => {
            *m = normal;
            true
        }
        None => false,
    }
}

/// Return the projection of `v` on the cone `{u : u·m >= 0}` of `normals` (at most ten).
fn project_on_cone(v: Vec3, normals: &[Vec3]) -> Vec3 {
    let slack = -1e-12 * v.length();
    let feasible = |u: Vec3| normals.iter().all(|m| u.dot(*m) >= slack);
    if feasible(v) {
        return v;
    }
    // Sets of active constraints, smallest first: the first whose multipliers are all
    // pushes out and whose answer is feasible meets the optimality conditions of this
    // convex problem, so it is the projection (Karush-Kuhn-Tucker). A projection other than
    // zero is orthogonal to its active normals, so they span at most a plane, and two of them
    // independent carry its multipliers (Carathéodory): where no set of one or two does, the
    // projection is zero
    let mut active = [Vec3::ZERO; 2];
    let end = 1u32 << normals.len();
    for size in 1..=2.min(normals.len()) {
        // The subsets of `size` normals as bit sets, in increasing order
        let mut subset = (1u32 << size) - 1;
        while subset < end {
            let mut k = 0;
            let mut bits = subset;
            while bits != 0 {
                active[k] = normals[bits.trailing_zeros() as usize];
                bits &= bits - 1;
                k += 1;
            }
            if let Some(u) = remove_along(v, &active[..k])
                && feasible(u)
            {
                return u;
            }
            subset = next_of_same_size(subset);
        }
    }
    Vec3::ZERO
}

/// The next larger bit set with as many bits as `subset` (not zero): Gosper's hack (Knuth,
/// *The Art of Computer Programming* 4A, 7.1.3).
#[inline]
fn next_of_same_size(subset: u32) -> u32 {
    let lowest = subset & subset.wrapping_neg();
    let carried = subset + lowest;
    (((carried ^ subset) >> 2) / lowest) | carried
}

/// Return `v` with its components along the span of `active` removed, provided that takes only
/// pushes out of the constraints (non-negative multipliers); `None` otherwise or when the
/// normals are dependent.
fn remove_along(v: Vec3, active: &[Vec3]) -> Option<Vec3> {
    // Solve G μ = -(m_j·v) for v + Σ μ_k m_k orthogonal to every active m_j
    let k = active.len();
    let mut g = [[0.0; 4]; 3];
    for r in 0..k {
        for c in 0..k {
            g[r][c] = active[r].dot(active[c]);
        }
        g[r][3] = -active[r].dot(v);
    }
    // Gaussian elimination with partial pivoting on the k x k system
    for col in 0..k {
        let pivot = (col..k).max_by(|&x, &y| g[x][col].abs().total_cmp(&g[y][col].abs()))?;
        if g[pivot][col].abs() < 1e-9 {
            return None;
        }
        g.swap(col, pivot);
        let row = g[col];
        for (r, other) in g.iter_mut().enumerate().take(k) {
            if r != col {
                let f = other[col] / row[col];
                for (x, y) in other.iter_mut().zip(row).skip(col) {
                    *x -= f * y;
                }
            }
        }
    }
    let mut u = v;
    for r in 0..k {
        let mu = g[r][3] / g[r][r];
        if mu < 0.0 {
            return None;
        }
        u += active[r] * mu;
    }
    Some(u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn the_projection_on_a_cone_is_the_nearest_velocity_in_it() {
        // Variational inequality of the projection u of v on a convex cone K: (v - u)·(w - u)
        // <= 0 for every w in K, with u in K. Normals of supports and touches below a ball
        // (y > 0, so K holds +y), two to ten of them, some nearly in a plane
        let mut rng = Pcg64Mcg::seed_from_u64(0x9E37_79B9_7F4A_7C15);
        let mut random = move || rng.random_range(-1.0..1.0);
        for case in 0..2000 {
            let count = 2 + case % 9;
            let normals: Vec<Vec3> = (0..count)
                .map(|k| {
                    let lift = if k % 3 == 0 { 0.05 } else { 1.0 };
                    Vec3::new(random(), lift * (random() + 1.0) / 2.0 + 1e-3, random()).normalize()
                })
                .collect();
            let v = Vec3::new(random(), random(), random()) * 3.0;
            let u = project_on_cone(v, &normals);
            let scale = v.length();
            for m in &normals {
                assert!(u.dot(*m) >= -1e-9 * scale, "case {case}: {u} goes into {m}");
            }
            for _ in 0..200 {
                let w = Vec3::new(random(), random() + 2.0, random()) * 2.0;
                if normals.iter().all(|m| w.dot(*m) >= 0.0) {
                    let inequality = (v - u).dot(w - u);
                    assert!(
                        inequality <= 1e-9 * scale * (1.0 + w.length()),
                        "case {case}: {w} is nearer than {u} to {v}"
                    );
                }
            }
        }
    }

    #[test]
    fn subsets_of_one_size_come_in_increasing_order() {
        for n in 1..=10 {
            for size in 1..=3.min(n) {
                let all: Vec<u32> = (1u32..1 << n).filter(|s| s.count_ones() == size).collect();
                let mut walked = vec![(1u32 << size) - 1];
                while let Some(&last) = walked.last() {
                    let next = next_of_same_size(last);
                    if next >= 1 << n {
                        break;
                    }
                    walked.push(next);
                }
                assert_eq!(walked, all, "{size} of {n}");
            }
        }
    }
}
