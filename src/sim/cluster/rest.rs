//! Rough islands at rest: whether their contacts can hold them still through a step of gravity.
//!
//! With Coulomb's friction the velocity-level contact problem can have several answers: a pile
//! that friction can hold may also slide apart, and which one nonsmooth Gauss-Seidel finds
//! depends on the order of its sweeps and on rounding (a pyramid of six balls at friction 0.5
//! used to stand for seven steps and then fall from velocities of 1e-15 that each step doubled).
//! An island at rest stays at rest where impulses inside every contact's cone balance the step's
//! gravity: then nothing moves, every contact sticks, and Signorini's condition and Coulomb's
//! law hold, so rest is one of the answers, and the one taken.
//!
//! Whether such impulses exist is a convex question. The impulses `P` in the cones that leave
//! the least kinetic energy are found by Gauss-Seidel whose local solve is the nearest impulse
//! within the contact's cone in its own metric (the associated law, Moreau's proximal form;
//! Acary and Brogliato 2008, ch. 12): its least energy is zero exactly when the island can be
//! held. Where its sweeps come near, an exact finish makes the impulses balance to rounding,
//! each contact inside its cone free and each on the cone's edge moving along it (a few Newton
//! steps on the balance, least squares of least change).

use super::cholesky::{Cholesky, Envelope};
use super::coulomb::{RoughBalls, members, sweep_with};
use super::{Contact, POLISH_FROM, rough_residual};
use crate::math::{Real, Vec3};

/// Balls of an island at most for the exact finish (six rows of its system each).
const MAX_FINISH: usize = 64;

/// Newton steps of the exact finish at most.
const FINISH_STEPS: usize = 4;

/// A contact's impulse with a tangential part within this fraction of the cone's edge is on
/// the edge, for the exact finish.
const EDGE: Real = 1e-6;

/// Hold an island at rest where its contacts can: find impulses within Coulomb's cones (one
/// coefficient per contact in `friction`) that leave every ball of `contacts` still, to
/// `tolerance` (a speed: each ball's velocity and the speed of its surface from its spin), in
/// at most `sweeps` sweeps. When found, the balls' velocities and spins are set to exactly zero,
/// `impulse` holds the impulses on each contact's ball `a`, and the sweeps taken are returned;
/// otherwise `None`, and the balls and `impulse` (which must start at zero) are as they were.
pub(crate) fn hold_at_rest(
    balls: &mut RoughBalls<'_>,
    contacts: &[Contact],
    friction: &[Real],
    impulse: &mut [Vec3],
    (sweeps, tolerance): (usize, Real),
) -> Option<usize> {
    let members = members(contacts);
    let start = balls.motions(&members);
    let fastest = |balls: &RoughBalls<'_>| {
        members
            .iter()
            .map(|&q| balls.surface_speed(q))
            .fold(0.0, Real::max)
    };
    let mut held = None;
    for sweep in 0..sweeps {
        let worst = sweep_with(nearest_in_cone, balls, (contacts, friction), impulse, sweep);
        let tried = sweep + 1;
        if fastest(balls) <= tolerance
            || (tried.is_power_of_two()
                && tried >= POLISH_FROM
                && finish(balls, (contacts, friction), &members, impulse, tolerance))
        {
            held = Some(tried);
            break;
        }
        // Settled with the island moving: friction cannot hold it
        if worst <= 1e-2 * tolerance {
            break;
        }
    }
    if held.is_some() && rough_residual(balls, contacts, friction, impulse) <= tolerance {
        for &q in &members {
            (balls.velocity[q], balls.spin[q]) = (Vec3::ZERO, Vec3::ZERO);
        }
        return held;
    }
    balls.set_motions(&members, &start);
    impulse.fill(Vec3::ZERO);
    None
}

/// Solve contact `c` (friction `mu`, impulse now `old`) alone for the associated law, the
/// others held: the impulse within its cone nearest, in the contact's own metric, to the one
/// that stops it (closing no faster than it may, not slipping). Returns it, and the largest
/// change of the contact's relative velocity it makes.
pub(super) fn nearest_in_cone(
    balls: &RoughBalls<'_>,
    c: &Contact,
    mu: Real,
    old: Vec3,
) -> (Vec3, Real) {
    let n = c.normal;
    let kn = balls.inverse_mass[c.a] + c.b.map_or(0.0, |b| balls.inverse_mass[b]);
    let kt = 3.5 * kn;
    let old_n = old.dot(n);
    let free = balls.slip(c) - n * (kn * old_n) - (old - n * old_n) * kt;
    // In coordinates scaled by the metric's square roots the cone stays a circular cone, of
    // slope mu √(kt / kn), and the nearest point is the Euclidean projection on it
    let (root_n, root_t) = (kn.sqrt(), kt.sqrt());
    let qn = (-c.closing - free.dot(n)) / root_n;
    let qt = -(free - n * free.dot(n)) / root_t;
    let slope = mu * (kt / kn).sqrt();
    let across = qt.length();
    let (qn, qt) = if across <= slope * qn {
        (qn, qt)
    } else if slope * across <= -qn {
        (0.0, Vec3::ZERO)
    } else {
        let on = (qn + slope * across) / (1.0 + slope * slope);
        (on, qt * (slope * on / across))
    };
    let new = n * (qn / root_n) + qt / root_t;
    let change = new - old;
    let change_n = change.dot(n);
    let moved = (kn * change_n)
        .abs()
        .max(kt * (change - n * change_n).length());
    (new, moved)
}

/// Try to balance the island exactly from Gauss-Seidel's impulses: Newton steps on the
/// balance of every member (velocity and surface speed from spin zero), each pushing contact's
/// impulse free where inside its cone and moving along the edge where on it, the least change
/// that balances (least squares, iterated Tikhonov); an impulse a step takes out of its cone
/// goes back onto it (onto the edge, or to none past the tip), and the next step balances
/// from there. True when every member is then still
/// within `tolerance` and every contact meets Coulomb's law (see [`rough_residual`]);
/// otherwise nothing changed.
fn finish(
    balls: &mut RoughBalls<'_>,
    (contacts, friction): (&[Contact], &[Real]),
    members: &[usize],
    impulse: &mut [Vec3],
    tolerance: Real,
) -> bool {
    if members.len() > MAX_FINISH {
        return false;
    }
    let saved = balls.motions(members);
    let mut fresh = impulse.to_vec();
    for _ in 0..FINISH_STEPS {
        let columns = free_directions(contacts, friction, &fresh);
        if columns.is_empty() {
            break;
        }
        let change = least_balancing_change(balls, contacts, members, &columns);
        for (k, c) in contacts.iter().enumerate() {
            if change[k] == Vec3::ZERO {
                continue;
            }
            let mut p = fresh[k] + change[k];
            let (pn, mu) = (p.dot(c.normal), friction[k]);
            let across = p - c.normal * pn;
            if pn <= 0.0 {
                // Out of the cone's tip: it parts
                p = Vec3::ZERO;
            } else if on_edge(c.normal, mu, fresh[k]) || across.length() > mu * pn {
                // Back onto the edge it moved along, or went past
                p = c.normal * pn + across.normalize_or_zero() * (mu * pn);
            }
            balls.apply(c, p - fresh[k]);
            fresh[k] = p;
        }
        if balls.still(members, tolerance)
            && rough_residual(balls, contacts, friction, &fresh) <= tolerance
        {
            impulse.copy_from_slice(&fresh);
            return true;
        }
    }
    balls.set_motions(members, &saved);
    false
}

/// Return whether impulse `p` on a contact of normal `n` and friction `mu` pushes on the edge
/// of its cone.
fn on_edge(n: Vec3, mu: Real, p: Vec3) -> bool {
    let pn = p.dot(n);
    pn > 0.0 && (p - n * pn).length() >= mu * pn * (1.0 - EDGE)
}

/// Return the directions each pushing contact's impulse may change in (with its index): all
/// three inside the cone; on its edge, along the edge and around it.
fn free_directions(
    contacts: &[Contact],
    friction: &[Real],
    impulse: &[Vec3],
) -> Vec<(usize, Vec3)> {
    let mut columns = Vec::new();
    for (k, (c, &p)) in contacts.iter().zip(impulse).enumerate() {
        let (n, mu) = (c.normal, friction[k]);
        let pn = p.dot(n);
        if pn <= 0.0 {
            continue;
        }
        if !on_edge(n, mu, p) {
            columns.extend([Vec3::X, Vec3::Y, Vec3::Z].map(|e| (k, e)));
        } else {
            let across = (p - n * pn).normalize_or_zero();
            columns.push((k, n + across * mu));
            if mu > 0.0 {
                columns.push((k, n.cross(across)));
            }
        }
    }
    columns
}

/// Return, per contact, the least change of impulse along `columns` that leaves every member
/// of `members` still (velocity and `spin × radius` zero): `Jᵀ y` with `J Jᵀ y = -u`, `J` the
/// members' change of motion per unit of each column and `u` their motion now.
fn least_balancing_change(
    balls: &RoughBalls<'_>,
    contacts: &[Contact],
    members: &[usize],
    columns: &[(usize, Vec3)],
) -> Vec<Vec3> {
    let rows = 6 * members.len();
    let row_of = |q: usize| 6 * members.binary_search(&q).expect("a member");
    // Each column's entries: at most two members, six rows each
    let entries: Vec<Vec<(usize, Real)>> = columns
        .iter()
        .map(|&(k, e)| {
            let c = &contacts[k];
            let mut entry = Vec::with_capacity(12);
            for (q, sign) in [(Some(c.a), 1.0), (c.b, -1.0)] {
                let Some(q) = q else { continue };
                let (w, r) = (balls.inverse_mass[q], balls.radius[q]);
                let dv = e * (sign * w);
                let dw = (-c.normal * (sign * r)).cross(e * sign) * (2.5 * w / r);
                let at = row_of(q);
                entry.extend(
                    [dv.x, dv.y, dv.z, dw.x, dw.y, dw.z]
                        .into_iter()
                        .enumerate()
                        .map(|(i, x)| (at + i, x)),
                );
            }
            entry
        })
        .collect();
    // Rows are coupled where a column moves both
    let cliques = entries.iter().map(|entry| entry.iter().map(|e| e.0));
    let mut g = Envelope::coupling(rows, cliques);
    for entry in &entries {
        for &(a, x) in entry {
            for &(b, y) in entry {
                if b <= a {
                    *g.at_mut(a, b) += x * y;
                }
            }
        }
    }
    let mut motion = vec![0.0; rows];
    for &q in members {
        let (v, w) = (balls.velocity[q], balls.spin[q] * balls.radius[q]);
        let at = row_of(q);
        motion[at..at + 6].copy_from_slice(&[-v.x, -v.y, -v.z, -w.x, -w.y, -w.z]);
    }
    let y = least_squares(&g, &motion);
    let mut change = vec![Vec3::ZERO; contacts.len()];
    for (&(k, e), entry) in columns.iter().zip(&entries) {
        let s: Real = entry.iter().map(|&(a, x)| x * y[a]).sum();
        change[k] += e * s;
    }
    change
}

/// Tikhonov steps of [`least_squares`], and its regularisation relative to the largest
/// diagonal entry.
const TIKHONOV_STEPS: usize = 6;
const TIKHONOV: Real = 1e-8;

/// Solve `g y = b` for a symmetric positive semidefinite matrix `g`, singular or not, by
/// iterated Tikhonov regularisation: `y += (g + λ I)⁻¹ (b - g y)`, which tends to the
/// least-norm solution where `b` is in `g`'s range.
pub(super) fn least_squares(g: &Envelope, b: &[Real]) -> Vec<Real> {
    let m = g.len();
    let largest = (0..m).fold(0.0, |s: Real, x| s.max(g.at(x, x)));
    let mut l = g.clone();
    for x in 0..m {
        *l.at_mut(x, x) += TIKHONOV * largest;
    }
    let l = Cholesky::factor(l, |_, left| Some(left.max(Real::MIN_POSITIVE)));
    let mut y = vec![0.0; m];
    for _ in 0..TIKHONOV_STEPS {
        let mut r: Vec<Real> = b.iter().zip(g.times(&y)).map(|(b, gy)| b - gy).collect();
        l.solve(&mut r);
        for (y, r) in y.iter_mut().zip(r) {
            *y += r;
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Real = 9.81;
    const DT: Real = 1.0 / 60.0;
    const TOLERANCE: Real = 1e-14;

    /// Hold balls of radius `r` and mass 1, at rest before a step of gravity `-G y`, at
    /// `contacts` with friction `mu`: the sweeps, the impulses and the velocities after.
    fn hold(
        count: usize,
        r: Real,
        contacts: &[Contact],
        mu: Real,
    ) -> (Option<usize>, Vec<Vec3>, Vec<Vec3>) {
        let mut velocity = vec![Vec3::new(0.0, -G * DT, 0.0); count];
        let mut spin = vec![Vec3::ZERO; count];
        let (inverse_mass, radius) = (vec![1.0; count], vec![r; count]);
        let mut impulse = vec![Vec3::ZERO; contacts.len()];
        let friction = vec![mu; contacts.len()];
        let mut balls = RoughBalls {
            velocity: &mut velocity,
            spin: &mut spin,
            inverse_mass: &inverse_mass,
            radius: &radius,
        };
        let held = hold_at_rest(
            &mut balls,
            contacts,
            &friction,
            &mut impulse,
            (4096, TOLERANCE),
        );
        (held, impulse, velocity)
    }

    fn on(a: usize, b: Option<usize>, normal: Vec3) -> Contact {
        Contact::touching(a, b, normal.normalize())
    }

    #[test]
    fn a_ball_on_a_floor_is_held_by_its_weight_alone() {
        let (held, impulse, velocity) = hold(1, 0.1, &[on(0, None, Vec3::Y)], 0.0);
        assert!(held.is_some());
        assert_eq!(velocity[0], Vec3::ZERO);
        assert!((impulse[0] - Vec3::new(0.0, G * DT, 0.0)).length() < 1e-15);
    }

    #[test]
    fn a_ball_on_one_slope_is_never_held_and_one_in_a_groove_always() {
        // One contact cannot stop the ball turning, whatever its friction; two faces of a
        // groove hold it without any
        let slope = Vec3::new(0.3, 1.0, 0.0);
        for mu in [0.0, 0.5, 10.0] {
            let (held, impulse, velocity) = hold(1, 0.1, &[on(0, None, slope)], mu);
            assert_eq!(held, None, "friction {mu}");
            assert_eq!(impulse[0], Vec3::ZERO);
            assert_eq!(velocity[0], Vec3::new(0.0, -G * DT, 0.0));
        }
        let groove = [
            on(0, None, Vec3::new(0.3, 1.0, 0.0)),
            on(0, None, Vec3::new(-0.5, 1.0, 0.0)),
        ];
        let (held, impulse, velocity) = hold(1, 0.1, &groove, 0.0);
        assert!(held.is_some());
        assert_eq!(velocity[0], Vec3::ZERO);
        let total = impulse[0] + impulse[1];
        assert!((total - Vec3::new(0.0, G * DT, 0.0)).length() < 1e-15);
    }

    #[test]
    fn a_three_ball_stack_is_held_from_two_minus_root_three_on() {
        let r = 0.1;
        let contacts = Contact::three_ball_stack(r);
        let limit = 2.0 - 3.0_f64.sqrt();
        for mu in [0.0, 0.1, limit - 1e-3] {
            assert_eq!(hold(3, r, &contacts, mu).0, None, "friction {mu}");
        }
        for mu in [limit + 1e-3, 0.5, 2.0] {
            let (held, impulse, velocity) = hold(3, r, &contacts, mu);
            assert!(held.is_some(), "friction {mu}");
            assert!(velocity.iter().all(|&v| v == Vec3::ZERO));
            // Each within its cone to rounding of a weight, and the floor bears the three
            for (c, p) in contacts.iter().zip(&impulse) {
                let pn = p.dot(c.normal);
                let pt = (*p - c.normal * pn).length();
                let rounding = 1e-15 * G * DT;
                assert!(pn >= -rounding, "friction {mu}: a pull of {pn:e}");
                assert!(
                    pt <= mu * pn + rounding,
                    "friction {mu}: {pt:e} over {pn:e}"
                );
            }
            let floor = (impulse[0] + impulse[1]).y;
            assert!(
                (floor - 3.0 * G * DT).abs() < 1e-14,
                "friction {mu}: {floor}"
            );
        }
    }
}
