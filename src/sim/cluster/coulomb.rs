//! Resting clusters with Coulomb's friction: the velocities and spins of a cluster of balls in
//! contact after one impulse per contact, along the normal and across it, that meets Signorini's
//! condition and Coulomb's law at every contact at once (Moreau's sweeping process at the level
//! of velocities, solved by nonsmooth Gauss-Seidel with an exact local solve per contact: Jean,
//! "The non-smooth contact dynamics method", 1999; Acary and Brogliato, *Numerical Methods for
//! Nonsmooth Dynamical Systems*, 2008, ch. 13).
//!
//! For solid balls a contact's own impulse `P` changes its relative velocity at the contact by
//! `k_n P_n` along the normal and `k_t P_t` across it, with `k_n = w_a + w_b` and
//! `k_t = 7/2 (w_a + w_b)` (the `5/2` of the spins, `I = 2/5 m r²`): the local problem
//! separates. Along the normal the contact takes the least push that stops it closing; across it
//! the push that stops it slipping, if Coulomb's cone `|P_t| <= μ P_n` allows that, else the
//! cone's edge against the slip. Each local solve minimises the kinetic energy over its own
//! impulse within its cone.

use super::{Contact, Settled, Solved};
use crate::math::{Real, Vec3};

/// The balls of a rough projection, by place.
pub(crate) struct RoughBalls<'a> {
    pub velocity: &'a mut [Vec3],
    pub spin: &'a mut [Vec3],
    pub inverse_mass: &'a [Real],
    pub radius: &'a [Real],
}

impl RoughBalls<'_> {
    /// Return the velocity of ball `k`'s surface at its contact point along `-normal` (the
    /// point facing what it touches).
    #[inline]
    fn surface(&self, k: usize, normal: Vec3) -> Vec3 {
        self.velocity[k] + self.spin[k].cross(-normal * self.radius[k])
    }

    /// Apply `impulse` to ball `k` at its contact point along `-normal`.
    #[inline]
    fn push(&mut self, k: usize, normal: Vec3, impulse: Vec3) {
        let w = self.inverse_mass[k];
        let r = self.radius[k];
        self.velocity[k] += impulse * w;
        self.spin[k] += (-normal * r).cross(impulse) * (2.5 * w / (r * r));
    }

    /// Return the relative velocity of contact `c` at its point: ball `a`'s surface against
    /// `b`'s (or a still shape's).
    #[inline]
    fn slip(&self, c: &Contact) -> Vec3 {
        let theirs = c.b.map_or(Vec3::ZERO, |b| self.surface(b, -c.normal));
        self.surface(c.a, c.normal) - theirs
    }

    /// Apply `impulse` on contact `c`: on `a`, and its opposite on `b`.
    #[inline]
    fn apply(&mut self, c: &Contact, impulse: Vec3) {
        self.push(c.a, c.normal, impulse);
        if let Some(b) = c.b {
            self.push(b, -c.normal, -impulse);
        }
    }
}

/// Project the velocities and spins of `balls` on `contacts` with Coulomb friction `friction`
/// (one coefficient per contact, `>= 0`): the impulses on each contact's ball `a` (world
/// frame; its opposite on `b`) go into `impulse`, whose starting values are applied first (zero
/// is allowed). Sweeps forwards and backwards in turn stop when no contact's relative velocity
/// changes by more than `tolerance` in a sweep, or after `sweeps`.
pub(crate) fn project_rough_cluster(
    balls: &mut RoughBalls<'_>,
    contacts: &[Contact],
    friction: &[Real],
    impulse: &mut [Vec3],
    (sweeps, tolerance): (usize, Real),
) -> Solved {
    for (c, &p) in contacts.iter().zip(impulse.iter()) {
        balls.apply(c, p);
    }
    for sweep in 0..sweeps {
        let mut worst: Real = 0.0;
        let mut meet = |k: usize| {
            let c = &contacts[k];
            let (new, moved) = local_solve(balls, c, friction[k], impulse[k]);
            if new != impulse[k] {
                worst = worst.max(moved);
                balls.apply(c, new - impulse[k]);
                impulse[k] = new;
            }
        };
        if sweep % 2 == 0 {
            (0..contacts.len()).for_each(&mut meet);
        } else {
            (0..contacts.len()).rev().for_each(&mut meet);
        }
        if worst <= tolerance {
            return Solved {
                settled: Settled::Met,
                sweeps: sweep + 1,
            };
        }
    }
    Solved {
        settled: Settled::OutOfSweeps,
        sweeps,
    }
}

/// Return how far `balls` and `impulse` are from a solution of the rough projection on
/// `contacts`, as a speed: the largest change of a contact's relative velocity that its own
/// local solve would still make (the natural map's residual of Signorini's condition and
/// Coulomb's cone, in the contact's own metric). Zero exactly at a solution.
pub(crate) fn rough_residual(
    balls: &RoughBalls<'_>,
    contacts: &[Contact],
    friction: &[Real],
    impulse: &[Vec3],
) -> Real {
    contacts
        .iter()
        .zip(friction.iter().zip(impulse))
        .map(|(c, (&mu, &p))| local_solve(balls, c, mu, p).1)
        .fold(0.0, Real::max)
}

/// Solve contact `c` (friction `mu`, impulse now `old`) alone, the others held: its new
/// impulse, and the largest change of its relative velocity that makes (along the normal or
/// across it).
#[inline]
fn local_solve(balls: &RoughBalls<'_>, c: &Contact, mu: Real, old: Vec3) -> (Vec3, Real) {
    let n = c.normal;
    let (wa, wb) = (
        balls.inverse_mass[c.a],
        c.b.map_or(0.0, |b| balls.inverse_mass[b]),
    );
    let kn = wa + wb;
    let kt = 3.5 * kn;
    let old_n = old.dot(n);
    // The contact's velocity without its own impulse
    let free = balls.slip(c) - n * (kn * old_n) - (old - n * old_n) * kt;
    let pn = ((-c.closing - free.dot(n)) / kn).max(0.0);
    let stick = -(free - n * free.dot(n)) / kt;
    let limit = mu * pn;
    let pt = if stick.length_squared() <= limit * limit {
        stick
    } else {
        stick * (limit / stick.length())
    };
    let new = n * pn + pt;
    let change = new - old;
    if change == Vec3::ZERO {
        return (new, 0.0);
    }
    let change_n = change.dot(n);
    let moved = (kn * change_n)
        .abs()
        .max(kt * (change - n * change_n).length());
    (new, moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ball of radius 1 and mass 1 on a floor (normal +y), sliding at `v` along x with spin
    /// `w` about z, pressed in at `down`: the projection with friction `mu`.
    fn on_floor(v: Real, w: Real, down: Real, mu: Real) -> (Vec3, Vec3, Vec3) {
        let mut velocity = [Vec3::new(v, -down, 0.0)];
        let mut spin = [Vec3::new(0.0, 0.0, w)];
        let contacts = [Contact {
            a: 0,
            b: None,
            normal: Vec3::Y,
            closing: 0.0,
        }];
        let mut impulse = [Vec3::ZERO];
        let mut balls = RoughBalls {
            velocity: &mut velocity,
            spin: &mut spin,
            inverse_mass: &[1.0],
            radius: &[1.0],
        };
        let solved = project_rough_cluster(&mut balls, &contacts, &[mu], &mut impulse, (64, 1e-14));
        assert_eq!(solved.settled, Settled::Met);
        let left = rough_residual(&balls, &contacts, &[mu], &impulse);
        assert!(left <= 1e-14, "residual {left}");
        (velocity[0], spin[0], impulse[0])
    }

    #[test]
    fn a_sliding_ball_grips_or_slides_as_coulomb_says() {
        // Sliding at 7 without spin, pressed in at 1: the normal impulse is 1. Rolling needs
        // v' = ω' r with v' = 7 - P_t and ω' = -5/2 P_t, so P_t = 2 (v' = 5): allowed from
        // μ = 2 on; below, P_t = μ and it still slides
        let (v, w, p) = on_floor(7.0, 0.0, 1.0, 3.0);
        assert!((v - Vec3::new(5.0, 0.0, 0.0)).length() < 1e-12, "{v}");
        assert!((w - Vec3::new(0.0, 0.0, -5.0)).length() < 1e-12, "{w}");
        assert!((p - Vec3::new(-2.0, 1.0, 0.0)).length() < 1e-12, "{p}");
        let (v, w, p) = on_floor(7.0, 0.0, 1.0, 0.5);
        assert!((v - Vec3::new(6.5, 0.0, 0.0)).length() < 1e-12, "{v}");
        assert!((w - Vec3::new(0.0, 0.0, -1.25)).length() < 1e-12, "{w}");
        assert!((p - Vec3::new(-0.5, 1.0, 0.0)).length() < 1e-12, "{p}");
        // Rolling already (ω = -v / r): nothing to take across
        let (v, w, _) = on_floor(3.0, -3.0, 1.0, 0.5);
        assert!((v - Vec3::new(3.0, 0.0, 0.0)).length() < 1e-12, "{v}");
        assert!((w - Vec3::new(0.0, 0.0, -3.0)).length() < 1e-12, "{w}");
    }
}
