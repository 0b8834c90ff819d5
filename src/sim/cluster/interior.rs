//! Rough islands whose Coulomb problem Gauss-Seidel does not settle: the convex relaxation of
//! Coulomb's law, solved exactly by an interior-point method and a Newton finish.
//!
//! On a hyperstatic pile that friction cannot hold (a pyramid in a plane of 9 rows just below
//! its limit), nonsmooth Gauss-Seidel's rate falls with every sweep (still at 4e-5 of the
//! pile's speeds after 8,000 sweeps), and neither the active-set finish, a warm start from the
//! relaxation's answer, De Saxcé's fixed point nor Newton's method on Coulomb's natural map
//! settles it. The relaxation (the cone complementarity problem of Anitescu, "Optimization-based
//! simulation of nonsmooth rigid multibody dynamics", Math. Program. 105, 2006) replaces
//! Signorini's condition by `û = u + closing n` in the dual cone, `û_n >= μ |u_t|`: a
//! contact that slides parts at `μ |u_t|` as it slides, and otherwise the same law (impulses in
//! Coulomb's cones, sticking contacts still, parting ones free). It is the nearest velocity to
//! the free one, in the kinetic metric, within a convex set that holds rest, so it never adds
//! energy and its velocities are unique.
//!
//! Each contact's impulse `P` and velocity `û` are scaled into a second-order cone and its dual
//! (`x = (μ P_n, P_t)`, `y = (û_n / μ, û_t)`; a frictionless contact keeps its normal parts
//! alone), and `y = A x + b` with `A` the island's Delassus operator: a monotone linear
//! complementarity problem over a product of cones. A primal-dual path-following method with
//! Nesterov-Todd scaling and Mehrotra's corrector (Vandenberghe, "The CVXOPT linear and
//! quadratic cone program solvers", 2010) factors `A + W²`, positive definite however singular
//! `A` is, in envelope form. It ends near the answer, about the square root of rounding away
//! where the answer is degenerate, and semismooth Newton on the natural map
//! `x - Π(x - ρ y)` finishes it, each step the least-squares change for the singular Jacobians
//! of hyperstatic piles (Levenberg-Marquardt), with backtracking: to rounding in one or two
//! steps, or, at some degenerate answers of random piles (about two in five there), stalling at
//! 1e-12 to 1e-10 of the speeds, when the island is left to the event loop.

use super::Contact;
use super::cholesky::{Cholesky, Envelope};
use super::coulomb::{RoughBalls, members, residual_of};
use super::rest::{least_squares, nearest_in_cone};
use crate::math::{Real, Vec3};
use cone::{Scaling, cone_reach, jordan, project};
use glam::DMat3;

mod cone;

/// Multiply-adds of the interior-point method's factor at most (it factors once an
/// iteration; the Newton finish's systems reach a contact further). In the order of
/// [`narrow_order`], a pyramid in a plane of 9 rows (45 balls, 351 unknowns) takes 1.4e6 (1.9e6
/// in the order found), and a square one of 5 layers (55 balls, 675) 1.8e7 (3.5e7 to 4.6e7).
const MAX_WORK: usize = 1 << 25;

/// Iterations of the interior-point method at most.
const ITERATIONS: usize = 60;

/// The duality gap, relative to the largest it had, at which the interior-point method hands
/// over to the Newton finish.
const HANDOVER: Real = 1e-13;

/// The fraction of the way to a cone's boundary that an interior-point step goes at most.
const INSIDE: Real = 0.99;

/// Newton steps of the finish at most, and halvings of one step at most.
const NEWTON_STEPS: usize = 12;
const HALVINGS: usize = 20;

/// Solve the rough island `contacts` of `balls` (with friction `friction`, impulses now zero)
/// for the convex relaxation of Coulomb's law: the impulses on each contact's ball `a` go into
/// `impulse` and are applied, and the iterations taken are returned, where the natural map's
/// residual (a speed, as [`super::rough_residual`]'s) is within `tolerance`; otherwise `None`
/// and nothing changed.
pub(crate) fn solve_relaxed(
    balls: &mut RoughBalls<'_>,
    contacts: &[Contact],
    friction: &[Real],
    impulse: &mut [Vec3],
    tolerance: Real,
) -> Option<usize> {
    let neighbours = neighbours(contacts);
    let mut unknowns: Vec<Unknowns> = contacts
        .iter()
        .zip(friction)
        .map(|(c, &mu)| {
            let (t1, t2) = c.normal.any_orthonormal_pair();
            Unknowns {
                frame: [c.normal, t1, t2],
                mu,
                at: 0,
            }
        })
        .collect();
    // Placed in an order that keeps the envelope narrow
    let mut at = 0;
    for k in narrow_order(&neighbours) {
        unknowns[k].at = at;
        at += unknowns[k].count();
    }
    let a = delassus(balls, contacts, &unknowns, &neighbours, at);
    if a.factor_work() > MAX_WORK {
        return None;
    }
    let cones = Cones {
        a,
        b: free_velocities(balls, contacts, &unknowns, at),
        unknowns: &unknowns,
        neighbours: &neighbours,
    };
    let (mut x, iterations) = cones.interior_point()?;
    let steps = cones.finish(&mut x, tolerance)?;
    for (k, (c, u)) in contacts.iter().zip(&unknowns).enumerate() {
        impulse[k] = (0..u.count()).map(|d| u.direction(d) * x[u.at + d]).sum();
        balls.apply(c, impulse[k]);
    }
    Some(iterations + steps)
}

/// Return how far `balls` and `impulse` are from a solution of the relaxation on `contacts`,
/// as a speed: the largest change of a contact's relative velocity that its own local solve
/// for the relaxation would still make (see [`super::rough_residual`] for Coulomb's law).
/// Zero exactly at a solution.
pub(crate) fn relaxed_residual(
    balls: &RoughBalls<'_>,
    contacts: &[Contact],
    friction: &[Real],
    impulse: &[Vec3],
) -> Real {
    residual_of(nearest_in_cone, balls, (contacts, friction), impulse)
}

/// Return the fastest a pushing contact of `contacts` parts by sliding under the convex
/// relaxation of Coulomb's law: `μ |u_t|`, its slip's share of its normal speed there.
pub(crate) fn parting_by_sliding(
    balls: &RoughBalls<'_>,
    contacts: &[Contact],
    friction: &[Real],
    impulse: &[Vec3],
) -> Real {
    contacts
        .iter()
        .zip(friction.iter().zip(impulse))
        .filter(|(_, (_, p))| **p != Vec3::ZERO)
        .map(|(c, (&mu, _))| {
            let slip = balls.slip(c);
            mu * (slip - c.normal * slip.dot(c.normal)).length()
        })
        .fold(0.0, Real::max)
}

/// One contact's unknowns: the frame its impulse is read in, its friction, and where its
/// unknowns start.
struct Unknowns {
    /// Normal, and two tangents.
    frame: [Vec3; 3],
    mu: Real,
    at: usize,
}

impl Unknowns {
    /// One unknown without friction (the normal impulse), three with.
    fn count(&self) -> usize {
        if self.mu > 0.0 { 3 } else { 1 }
    }

    /// How the normal parts are scaled: `μ`, or 1 without friction.
    fn scale(&self) -> Real {
        if self.mu > 0.0 { self.mu } else { 1.0 }
    }

    /// The impulse (world frame) of unknown `d` at 1.
    fn direction(&self, d: usize) -> Vec3 {
        if d == 0 {
            self.frame[0] / self.scale()
        } else {
            self.frame[d]
        }
    }

    /// Return the scaled dual parts of the relative velocity `v` (world frame).
    fn read(&self, v: Vec3) -> [Real; 3] {
        [
            v.dot(self.frame[0]) / self.scale(),
            v.dot(self.frame[1]),
            v.dot(self.frame[2]),
        ]
    }

    /// The unknowns' places.
    fn places(&self) -> std::ops::Range<usize> {
        self.at..self.at + self.count()
    }
}

/// Return, per contact, the contacts that share a ball with it (itself included), sorted.
fn neighbours(contacts: &[Contact]) -> Vec<Vec<usize>> {
    let mut by_ball: Vec<Vec<usize>> = Vec::new();
    for (k, c) in contacts.iter().enumerate() {
        for q in [Some(c.a), c.b].into_iter().flatten() {
            if by_ball.len() <= q {
                by_ball.resize(q + 1, Vec::new());
            }
            by_ball[q].push(k);
        }
    }
    contacts
        .iter()
        .map(|c| {
            let mut near: Vec<usize> = [Some(c.a), c.b]
                .into_iter()
                .flatten()
                .flat_map(|q| by_ball[q].iter().copied())
                .collect();
            near.sort_unstable();
            near.dedup();
            near
        })
        .collect()
}

/// Return an order of the contacts that keeps the envelope of a matrix coupling each to its
/// `neighbours` narrow: reverse Cuthill-McKee (breadth first from a contact of fewest
/// neighbours, each contact's new neighbours by their count, then reversed), component by
/// component.
fn narrow_order(neighbours: &[Vec<usize>]) -> Vec<usize> {
    let n = neighbours.len();
    let degree = |k: usize| neighbours[k].len();
    let mut by_degree: Vec<usize> = (0..n).collect();
    by_degree.sort_by_key(|&k| (degree(k), k));
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut fresh = Vec::new();
    for &start in &by_degree {
        if placed[start] {
            continue;
        }
        placed[start] = true;
        let mut next = order.len();
        order.push(start);
        while next < order.len() {
            let k = order[next];
            next += 1;
            fresh.clear();
            fresh.extend(neighbours[k].iter().copied().filter(|&q| !placed[q]));
            fresh.sort_by_key(|&q| (degree(q), q));
            for &q in &fresh {
                placed[q] = true;
                order.push(q);
            }
        }
    }
    order.reverse();
    order
}

/// Return the island's Delassus operator in the scaled unknowns (`count` of them): how a unit
/// of each unknown changes each unknown's dual part, read from the balls (each unit pushed,
/// read at the contacts near, and taken back). A contact's unknowns couple those of its
/// `neighbours`.
fn delassus(
    balls: &mut RoughBalls<'_>,
    contacts: &[Contact],
    unknowns: &[Unknowns],
    neighbours: &[Vec<usize>],
    count: usize,
) -> Envelope {
    let cliques = neighbours
        .iter()
        .map(|near| near.iter().flat_map(|&k| unknowns[k].places()));
    let mut a = Envelope::coupling(count, cliques);
    for (j, c) in contacts.iter().enumerate() {
        let near = &neighbours[j];
        let before: Vec<Vec3> = near.iter().map(|&k| balls.slip(&contacts[k])).collect();
        let touched = members(std::slice::from_ref(c));
        let saved = balls.motions(&touched);
        let u = &unknowns[j];
        for (d, column) in u.places().enumerate() {
            balls.apply(c, u.direction(d));
            for (&k, &was) in near.iter().zip(&before) {
                let read = unknowns[k].read(balls.slip(&contacts[k]) - was);
                for (row, value) in unknowns[k].places().zip(read) {
                    if row >= column {
                        *a.at_mut(row, column) = value;
                    }
                }
            }
            balls.set_motions(&touched, &saved);
        }
    }
    a
}

/// Return the scaled dual parts of each contact's velocity with no impulse, `u + closing n`.
fn free_velocities(
    balls: &RoughBalls<'_>,
    contacts: &[Contact],
    unknowns: &[Unknowns],
    count: usize,
) -> Vec<Real> {
    let mut b = vec![0.0; count];
    for (c, u) in contacts.iter().zip(unknowns) {
        let read = u.read(balls.slip(c) + c.normal * c.closing);
        for (place, value) in u.places().zip(read) {
            b[place] = value;
        }
    }
    b
}

/// The complementarity problem: `x` and `y = A x + b` in the cones of `unknowns`, `xᵀ y = 0`.
struct Cones<'a> {
    a: Envelope,
    b: Vec<Real>,
    unknowns: &'a [Unknowns],
    neighbours: &'a [Vec<usize>],
}

impl Cones<'_> {
    /// Return `A x + b`.
    fn dual(&self, x: &[Real]) -> Vec<Real> {
        let mut y = self.a.times(x);
        for (y, b) in y.iter_mut().zip(&self.b) {
            *y += b;
        }
        y
    }

    /// Run the interior-point method from the cones' centres until the duality gap falls by
    /// [`HANDOVER`]: `x` and the iterations taken, or `None` where no iterate was finite.
    fn interior_point(&self) -> Option<(Vec<Real>, usize)> {
        let n = self.b.len();
        let scale = self.b.iter().fold(0.0, |s: Real, v| s.max(v.abs()));
        if scale == 0.0 {
            return Some((vec![0.0; n], 0));
        }
        let largest = (0..n).fold(0.0, |s: Real, i| s.max(self.a.at(i, i)));
        let (mut x, mut y) = (vec![0.0; n], vec![0.0; n]);
        for u in self.unknowns {
            (x[u.at], y[u.at]) = (scale / largest, scale);
        }
        let mut widest: Real = 0.0;
        let mut last = None;
        for iteration in 0..ITERATIONS {
            let r: Vec<Real> = y.iter().zip(self.dual(&x)).map(|(y, d)| y - d).collect();
            let gap: Real = x.iter().zip(&y).map(|(x, y)| x * y).sum();
            if !gap.is_finite() || r.iter().any(|v| !v.is_finite()) {
                return last.map(|x| (x, iteration));
            }
            widest = widest.max(gap);
            last = Some(x.clone());
            if gap <= HANDOVER * widest {
                return last.map(|x| (x, iteration));
            }
            self.step(&mut x, &mut y, &r, gap);
        }
        last.map(|x| (x, ITERATIONS))
    }

    /// One predictor-corrector step of the interior-point method from `(x, y)`, whose
    /// equation's residual is `r = y - A x - b` and duality gap `gap`.
    fn step(&self, x: &mut [Real], y: &mut [Real], r: &[Real], gap: Real) {
        let n = x.len();
        let scalings: Vec<Scaling> = self
            .unknowns
            .iter()
            .map(|u| Scaling::of(&x[u.places()], &y[u.places()]))
            .collect();
        let mut k = self.a.clone();
        for (u, s) in self.unknowns.iter().zip(&scalings) {
            let w2 = s.w * s.w;
            for i in 0..u.count() {
                for j in 0..=i {
                    *k.at_mut(u.at + i, u.at + j) += w2.col(j)[i];
                }
            }
        }
        let k = Cholesky::factor(k, |diagonal, left| {
            Some(left.max(Real::MIN_POSITIVE.max(1e-14 * diagonal)))
        });
        // Predictor: towards the complementarity of λ ∘ λ = 0
        let affine = self.direction(&k, &scalings, r, |s, _| s.lambda_squared().map(|v| -v));
        let reach = |dx: &[Real], dy: &[Real]| self.step_length(x, dx).min(self.step_length(y, dy));
        let alpha = reach(&affine.0, &affine.1).min(1.0);
        let gap_affine: Real = (0..n)
            .map(|i| (x[i] + alpha * affine.0[i]) * (y[i] + alpha * affine.1[i]))
            .sum();
        let sigma = (gap_affine / gap).clamp(0.0, 1.0).powi(3);
        let mu = gap / self.unknowns.len() as Real;
        // Corrector: centred by σ μ, with Mehrotra's second-order term
        let (dx, dy) = self.direction(&k, &scalings, r, |s, u| {
            let places = u.places();
            let wdx = s.apply(&affine.0[places.clone()], false);
            let widy = s.apply(&affine.1[places], true);
            let corr = jordan(widy, wdx, u.count());
            let ll = s.lambda_squared();
            let mut z = [0.0; 3];
            for i in 0..u.count() {
                z[i] = -ll[i] - corr[i];
            }
            z[0] += sigma * mu;
            z
        });
        let alpha = (INSIDE * reach(&dx, &dy)).min(1.0);
        for i in 0..n {
            x[i] += alpha * dx[i];
            y[i] += alpha * dy[i];
        }
    }

    /// Return the Newton direction `(Δx, Δy)` whose linearised complementarity per cone is
    /// `λ ∘ (W Δx + W⁻¹ Δy) = target`: `(A + W²) Δx = W d + r` with `d = λ⁻¹ ∘ target`, and
    /// `Δy = A Δx - r` (so that the equation's residual falls by the step's fraction).
    fn direction(
        &self,
        k: &Cholesky,
        scalings: &[Scaling],
        r: &[Real],
        target: impl Fn(&Scaling, &Unknowns) -> [Real; 3],
    ) -> (Vec<Real>, Vec<Real>) {
        let mut dx = r.to_vec();
        for (u, s) in self.unknowns.iter().zip(scalings) {
            let d = s.inverse_arrow(target(s, u));
            let wd = s.apply(&d[..u.count()], false);
            for (place, value) in u.places().zip(wd) {
                dx[place] += value;
            }
        }
        k.solve(&mut dx);
        let adx = self.a.times(&dx);
        let dy = adx.iter().zip(r).map(|(a, r)| a - r).collect();
        (dx, dy)
    }

    /// The largest step along `d` from `x` that stays in every cone (infinite where none
    /// limits it).
    fn step_length(&self, x: &[Real], d: &[Real]) -> Real {
        self.unknowns
            .iter()
            .map(|u| {
                let (x, d) = (&x[u.places()], &d[u.places()]);
                if u.count() == 1 {
                    return if d[0] < 0.0 {
                        -x[0] / d[0]
                    } else {
                        Real::INFINITY
                    };
                }
                cone_reach(x, d)
            })
            .fold(Real::INFINITY, Real::min)
    }

    /// Finish `x` by semismooth Newton on the natural map until its residual (a speed) is within
    /// `tolerance`: the steps taken, or `None` after [`NEWTON_STEPS`].
    fn finish(&self, x: &mut [Real], tolerance: Real) -> Option<usize> {
        let rho: Vec<Real> = self
            .unknowns
            .iter()
            .map(|u| 1.0 / self.a.at(u.at, u.at))
            .collect();
        for step in 0..NEWTON_STEPS {
            let (f, jacobians) = self.natural(x, &rho);
            let worst = self
                .unknowns
                .iter()
                .zip(&rho)
                .flat_map(|(u, &rho)| f[u.places()].iter().map(move |v| v.abs() / rho))
                .fold(0.0, Real::max);
            if worst <= tolerance {
                return Some(step);
            }
            let change = least_squares_step(&self.jacobian(&jacobians, &rho), &f);
            // Backtrack until the map's norm falls
            let norm = |x: &[Real]| self.natural(x, &rho).0.iter().map(|v| v * v).sum::<Real>();
            let now = norm(x);
            let mut tried = x.to_vec();
            let mut t = 1.0;
            for _ in 0..HALVINGS {
                for (tried, (x, change)) in tried.iter_mut().zip(x.iter().zip(&change)) {
                    *tried = x + t * change;
                }
                if norm(&tried) < now {
                    break;
                }
                t *= 0.5;
            }
            x.copy_from_slice(&tried);
        }
        None
    }

    /// Return the natural map `x - Π(x - ρ y)` at `x` and, per cone, the Jacobian of its
    /// projection.
    fn natural(&self, x: &[Real], rho: &[Real]) -> (Vec<Real>, Vec<DMat3>) {
        let y = self.dual(x);
        let mut f = vec![0.0; x.len()];
        let mut jacobians = Vec::with_capacity(self.unknowns.len());
        for (u, &rho) in self.unknowns.iter().zip(rho) {
            let mut z = [0.0; 3];
            for (i, place) in u.places().enumerate() {
                z[i] = x[place] - rho * y[place];
            }
            let (p, d) = project(z, u.count());
            for (i, place) in u.places().enumerate() {
                f[place] = x[place] - p[i];
            }
            jacobians.push(d);
        }
        (f, jacobians)
    }

    /// Return the natural map's Jacobian, `I - D + ρ D A` with `D` the projections' Jacobians,
    /// as sparse rows, by unknown.
    fn jacobian(&self, d: &[DMat3], rho: &[Real]) -> Vec<Vec<(usize, Real)>> {
        let mut rows = vec![Vec::new(); self.b.len()];
        for (k, u) in self.unknowns.iter().enumerate() {
            for i in 0..u.count() {
                let mut row = Vec::new();
                for &j in &self.neighbours[k] {
                    for col in self.unknowns[j].places() {
                        let mut value: Real = (0..u.count())
                            .map(|l| d[k].col(l)[i] * entry(&self.a, u.at + l, col))
                            .sum::<Real>()
                            * rho[k];
                        if j == k {
                            let q = col - u.at;
                            value += Real::from(u8::from(i == q)) - d[k].col(q)[i];
                        }
                        if value != 0.0 {
                            row.push((col, value));
                        }
                    }
                }
                rows[u.at + i] = row;
            }
        }
        rows
    }
}

/// Return the least-squares step `Δ` of `J Δ = -f` for the sparse rows `J`: the least-norm
/// solution of `Jᵀ J Δ = -Jᵀ f`.
fn least_squares_step(rows: &[Vec<(usize, Real)>], f: &[Real]) -> Vec<Real> {
    let n = f.len();
    let cliques = rows.iter().map(|row| row.iter().map(|e| e.0));
    let mut g = Envelope::coupling(n, cliques);
    let mut rhs = vec![0.0; n];
    for (row, &fr) in rows.iter().zip(f) {
        for &(p, vp) in row {
            rhs[p] -= vp * fr;
            for &(q, vq) in row {
                if q <= p {
                    *g.at_mut(p, q) += vp * vq;
                }
            }
        }
    }
    least_squares(&g, &rhs)
}

/// The entry of the symmetric `a` at row `i`, column `j`.
fn entry(a: &Envelope, i: usize, j: usize) -> Real {
    let (r, c) = if j <= i { (i, j) } else { (j, i) };
    if a.first(r) <= c { a.at(r, c) } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Solve `count` balls of radius `r` and mass 1 at `velocity` (no spin) on `contacts`
    /// with friction `mu` for the relaxation: the impulses and velocities, and the residual.
    fn relax(
        velocity: &[Vec3],
        r: Real,
        contacts: &[Contact],
        mu: Real,
    ) -> (Vec<Vec3>, Vec<Vec3>, Real) {
        let mut velocity = velocity.to_vec();
        let count = velocity.len();
        let mut spin = vec![Vec3::ZERO; count];
        let (inverse_mass, radius) = (vec![1.0; count], vec![r; count]);
        let friction = vec![mu; contacts.len()];
        let mut impulse = vec![Vec3::ZERO; contacts.len()];
        let mut balls = RoughBalls {
            velocity: &mut velocity,
            spin: &mut spin,
            inverse_mass: &inverse_mass,
            radius: &radius,
        };
        let solved = solve_relaxed(&mut balls, contacts, &friction, &mut impulse, 1e-14);
        assert!(solved.is_some(), "not solved");
        let left = relaxed_residual(&balls, contacts, &friction, &impulse);
        (impulse, velocity, left)
    }

    #[test]
    fn a_chain_of_contacts_in_any_order_is_placed_link_by_link() {
        // Contacts along a chain of balls, listed scrambled: each couples its two links, so a
        // narrow order places every link next to the ones it touches (an envelope of two
        // per row, where the listed order spans the chain)
        let n = 40;
        let label: Vec<usize> = (0..n).map(|k| (k * 17 + 5) % n).collect();
        let mut neighbours = vec![Vec::new(); n];
        for k in 0..n {
            let near = (k.saturating_sub(1)..(k + 2).min(n)).map(|q| label[q]);
            neighbours[label[k]] = near.collect();
            neighbours[label[k]].sort_unstable();
        }
        let order = narrow_order(&neighbours);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..n).collect::<Vec<_>>());
        let place = |c: usize| order.iter().position(|&o| o == c).unwrap();
        for k in 1..n {
            assert_eq!(
                place(label[k]).abs_diff(place(label[k - 1])),
                1,
                "{order:?}"
            );
        }
    }

    #[test]
    fn a_sliding_ball_parts_from_the_floor_at_mu_times_its_slip() {
        // Radius 1, mass 1, sliding at 7 along x, pressed in at 1: k_n = 1, k_t = 7/2. On the
        // cone's edge P = p (n - μ x̂), and the least energy gives p = (1 + 7 μ) / (1 + 7/2 μ²):
        // at μ = 0.5, p = 2.4, the ball leaves the floor at 1.4 = μ times its slip 2.8
        let floor = [Contact::touching(0, None, Vec3::Y)];
        let (impulse, velocity, left) = relax(&[Vec3::new(7.0, -1.0, 0.0)], 1.0, &floor, 0.5);
        assert!(left <= 1e-14, "residual {left:e}");
        assert!(
            (impulse[0] - Vec3::new(-1.2, 2.4, 0.0)).length() < 1e-12,
            "{impulse:?}"
        );
        assert!((velocity[0] - Vec3::new(5.8, 1.4, 0.0)).length() < 1e-12);
        // Where friction can stop the slip (from μ = 2), it is Coulomb's answer: it rolls
        let (impulse, velocity, _) = relax(&[Vec3::new(7.0, -1.0, 0.0)], 1.0, &floor, 3.0);
        assert!(
            (impulse[0] - Vec3::new(-2.0, 1.0, 0.0)).length() < 1e-12,
            "{impulse:?}"
        );
        assert!((velocity[0] - Vec3::new(5.0, 0.0, 0.0)).length() < 1e-12);
    }

    #[test]
    fn a_three_ball_stack_stays_still_exactly_from_two_minus_root_three_on() {
        // Rest is the relaxation's answer exactly where impulses in the cones balance the
        // weights (see `rest::hold_at_rest`): the classic stack's limit, tan 15°
        let r = 0.1;
        let contacts = Contact::three_ball_stack(r);
        let fall = [Vec3::new(0.0, -9.81 / 60.0, 0.0); 3];
        let limit = 2.0 - 3.0_f64.sqrt();
        for (mu, held) in [
            (0.1, false),
            (limit - 1e-3, false),
            (limit + 1e-3, true),
            (1.0, true),
        ] {
            let (impulse, velocity, left) = relax(&fall, r, &contacts, mu);
            assert!(left <= 1e-14, "friction {mu}: residual {left:e}");
            let fastest = velocity.iter().map(|v| v.length()).fold(0.0, Real::max);
            assert_eq!(fastest <= 1e-14, held, "friction {mu}: fastest {fastest:e}");
            for (c, p) in contacts.iter().zip(&impulse) {
                let pn = p.dot(c.normal);
                let pt = (*p - c.normal * pn).length();
                assert!(pn >= -1e-15 && pt <= mu * pn + 1e-15, "friction {mu}: {p}");
            }
        }
    }
}
