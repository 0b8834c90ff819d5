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
    pub(super) fn slip(&self, c: &Contact) -> Vec3 {
        let theirs = c.b.map_or(Vec3::ZERO, |b| self.surface(b, -c.normal));
        self.surface(c.a, c.normal) - theirs
    }

    /// Return the larger of ball `q`'s speed and its surface's speed from its spin.
    #[inline]
    pub(crate) fn surface_speed(&self, q: usize) -> Real {
        let spin = self.spin[q].length() * self.radius[q];
        self.velocity[q].length().max(spin)
    }

    /// True when every one of `members` is still within `tolerance`: its velocity, and its
    /// surface's speed from its spin (see [`Self::surface_speed`]).
    pub(crate) fn still(&self, members: &[usize], tolerance: Real) -> bool {
        members.iter().all(|&q| self.surface_speed(q) <= tolerance)
    }

    /// Return the velocity and spin of each of `members`.
    pub(crate) fn motions(&self, members: &[usize]) -> Vec<(Vec3, Vec3)> {
        members
            .iter()
            .map(|&q| (self.velocity[q], self.spin[q]))
            .collect()
    }

    /// Give each of `members` its velocity and spin from `motions` (see [`Self::motions`]).
    pub(crate) fn set_motions(&mut self, members: &[usize], motions: &[(Vec3, Vec3)]) {
        for (&q, &(v, w)) in members.iter().zip(motions) {
            (self.velocity[q], self.spin[q]) = (v, w);
        }
    }

    /// Apply `impulse` on contact `c`: on `a`, and its opposite on `b`.
    #[inline]
    pub(super) fn apply(&mut self, c: &Contact, impulse: Vec3) {
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
/// changes by more than `tolerance` in a sweep, or after `sweeps`; after 16, 32, 64, ...
/// sweeps [`polish_rough`] tries for the exact answer (Gauss-Seidel finds which contacts part,
/// stick and slide long before it finds their impulses where masses differ by orders of
/// magnitude).
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
        let worst = sweep_with(local_solve, balls, (contacts, friction), impulse, sweep);
        let tried = sweep + 1;
        // Sweeps that change little may still leave contacts some way from their local
        // solves: settled only where the residual says so
        if (worst <= tolerance && rough_residual(balls, contacts, friction, impulse) <= tolerance)
            || (tried.is_power_of_two()
                && tried >= POLISH_FROM
                && polish_rough(balls, contacts, friction, impulse, tolerance))
        {
            return Solved {
                settled: Settled::Met,
                sweeps: tried,
            };
        }
    }
    Solved {
        settled: Settled::OutOfSweeps,
        sweeps,
    }
}

/// Return the balls of `contacts`, by place, sorted.
pub(super) fn members(contacts: &[Contact]) -> Vec<usize> {
    let mut members: Vec<usize> = contacts
        .iter()
        .flat_map(|c| [Some(c.a), c.b])
        .flatten()
        .collect();
    members.sort_unstable();
    members.dedup();
    members
}

/// A contact's local solve: contact, friction and impulse now in, its new impulse and the
/// largest change of its relative velocity that makes out.
pub(super) type LocalSolve = fn(&RoughBalls<'_>, &Contact, Real, Vec3) -> (Vec3, Real);

/// Sweep number `sweep` of Gauss-Seidel with `solve`: meet every contact once (forwards on
/// even sweeps, backwards on odd ones), applying each new impulse at once. Returns the largest
/// change of a contact's relative velocity it made.
pub(super) fn sweep_with(
    solve: LocalSolve,
    balls: &mut RoughBalls<'_>,
    (contacts, friction): (&[Contact], &[Real]),
    impulse: &mut [Vec3],
    sweep: usize,
) -> Real {
    let mut worst: Real = 0.0;
    let mut meet = |k: usize| {
        let c = &contacts[k];
        let (new, moved) = solve(balls, c, friction[k], impulse[k]);
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
    worst
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
    residual_of(local_solve, balls, (contacts, friction), impulse)
}

/// Return the largest change of a contact's relative velocity that `solve` would still make
/// at `impulse`: the residual of the law it solves.
pub(super) fn residual_of(
    solve: LocalSolve,
    balls: &RoughBalls<'_>,
    (contacts, friction): (&[Contact], &[Real]),
    impulse: &[Vec3],
) -> Real {
    contacts
        .iter()
        .zip(friction.iter().zip(impulse))
        .map(|(c, (&mu, &p))| solve(balls, c, mu, p).1)
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

/// Sweeps before the first try of [`polish_rough`]; the next at twice as many, and so on.
const POLISH_FROM: usize = 16;

/// Unknowns of [`polish_rough`]'s linear system at most (three per sticking contact, one per
/// sliding one).
const MAX_POLISH: usize = 384;

/// What a contact does in a guess of [`polish_rough`].
#[derive(Clone, Copy, PartialEq)]
enum Guess {
    /// No impulse: it parts.
    Parts,
    /// Its impulse within the cone: no slip.
    Sticks,
    /// Its impulse on the cone's edge, across the normal along this unit vector (zero without
    /// friction): it slips the other way.
    Slides(Vec3),
}

/// Try to finish a rough projection at once: guess from `impulse` which contacts part, stick
/// and slide, and solve for the impulses that make exactly those hold (sticking contacts
/// neither close nor slip, sliding ones do not close and push on the cone's edge: a linear
/// system, solved by elimination, dependent contacts taking none); keep it only where every
/// contact's local solve then leaves it within `tolerance` ([`rough_residual`]: Signorini and
/// Coulomb at once). A guess that fails is mended from its own answer (each contact guessed as
/// its local solve there finds it: an active-set Newton iteration), up to [`GUESSES`] times.
/// True when kept; otherwise nothing changed.
fn polish_rough(
    balls: &mut RoughBalls<'_>,
    contacts: &[Contact],
    friction: &[Real],
    impulse: &mut [Vec3],
    tolerance: Real,
) -> bool {
    // Gauss-Seidel's guess, then every pushing contact with friction sticking
    [false, true].into_iter().any(|stick| {
        let mut guess = guess_from(contacts, friction, impulse, stick);
        for _ in 0..GUESSES {
            let next = match solve_guess(balls, contacts, friction, impulse, (&guess, tolerance)) {
                Mended::Kept => return true,
                Mended::Unsolved => return false,
                Mended::Next(next) => guess_from(contacts, friction, &next, false),
            };
            if next == guess {
                return false;
            }
            guess = next;
        }
        false
    })
}

/// Guesses of [`polish_rough`] at most from each start.
const GUESSES: usize = 8;

/// Return what each contact does with `impulse` (every pushing contact with friction sticking
/// where `stick`).
fn guess_from(
    contacts: &[Contact],
    friction: &[Real],
    impulse: &[Vec3],
    stick: bool,
) -> Vec<Guess> {
    (0..contacts.len())
        .map(|k| {
            let (n, mu, p) = (contacts[k].normal, friction[k], impulse[k]);
            let pn = p.dot(n);
            let pt = p - n * pn;
            if pn <= 0.0 {
                Guess::Parts
            } else if mu > 0.0 && (stick || pt.length() < mu * pn * (1.0 - 1e-9)) {
                Guess::Sticks
            } else {
                Guess::Slides(pt.normalize_or_zero())
            }
        })
        .collect()
}

/// How a guess of [`polish_rough`] ended.
enum Mended {
    /// Its answer meets the tolerance, and is taken.
    Kept,
    /// No system to solve (nothing pushes), or one too large.
    Unsolved,
    /// Its answer does not meet the tolerance: each contact's local solve there, from which the
    /// next guess comes.
    Next(Vec<Vec3>),
}

/// Solve the rough projection exactly for `guess` (what each contact does, by index): see
/// [`polish_rough`].
fn solve_guess(
    balls: &mut RoughBalls<'_>,
    contacts: &[Contact],
    friction: &[Real],
    impulse: &mut [Vec3],
    (guess, tolerance): (&[Guess], Real),
) -> Mended {
    // The unknowns: one impulse direction each, read back along another
    let mut columns: Vec<Column> = Vec::new();
    for (k, c) in contacts.iter().enumerate() {
        let (n, mu) = (c.normal, friction[k]);
        match guess[k] {
            Guess::Parts => {}
            Guess::Sticks => columns.extend([Vec3::X, Vec3::Y, Vec3::Z].map(|e| (k, e, e))),
            Guess::Slides(d) => columns.push((k, n + d * mu, n)),
        }
    }
    let m = columns.len();
    if m == 0 || m > MAX_POLISH {
        return Mended::Unsolved;
    }
    let members = members(contacts);
    let saved = balls.motions(&members);
    // The slips with no impulse at all
    for (c, &p) in contacts.iter().zip(impulse.iter()) {
        balls.apply(c, -p);
    }
    let free: Vec<Vec3> = contacts.iter().map(|c| balls.slip(c)).collect();
    let mut a = effects(balls, contacts, &columns, &free);
    // Targets: a sticking contact's slip is its closing along the normal; a sliding one's
    // normal speed that closing
    let mut b: Vec<Real> = columns
        .iter()
        .map(|&(k, _, read)| {
            let c = &contacts[k];
            (-c.normal * c.closing - free[k]).dot(read)
        })
        .collect();
    let solution = eliminate(&mut a, &mut b, m);
    let mut fresh = vec![Vec3::ZERO; contacts.len()];
    for (&(k, direction, _), &s) in columns.iter().zip(&solution) {
        fresh[k] += direction * s;
    }
    for (c, &p) in contacts.iter().zip(&fresh) {
        balls.apply(c, p);
    }
    if rough_residual(balls, contacts, friction, &fresh) <= tolerance {
        impulse.copy_from_slice(&fresh);
        return Mended::Kept;
    }
    let next = contacts
        .iter()
        .zip(friction.iter().zip(&fresh))
        .map(|(c, (&mu, &p))| local_solve(balls, c, mu, p).0)
        .collect();
    balls.set_motions(&members, &saved);
    Mended::Next(next)
}

/// The unknowns: per column, its contact, the direction of its impulse, and the direction its
/// contact's slip is read along.
type Column = (usize, Vec3, Vec3);

/// Return the system of [`solve_guess`] (row-major, one row and one column per unknown): how a
/// unit impulse of each column changes the slip each row reads, from the impulse-free slips
/// `free`. Each column pushes alone, is read, and is put back.
fn effects(
    balls: &mut RoughBalls<'_>,
    contacts: &[Contact],
    columns: &[Column],
    free: &[Vec3],
) -> Vec<Real> {
    let m = columns.len();
    let mut a = vec![0.0; m * m];
    for (x, &(k, direction, _)) in columns.iter().enumerate() {
        let c = &contacts[k];
        let touched: Vec<(usize, Vec3, Vec3)> = [Some(c.a), c.b]
            .into_iter()
            .flatten()
            .map(|q| (q, balls.velocity[q], balls.spin[q]))
            .collect();
        balls.apply(c, direction);
        for (y, &(j, _, read)) in columns.iter().enumerate() {
            let touches = |q: usize| contacts[j].a == q || contacts[j].b == Some(q);
            if touched.iter().any(|t| touches(t.0)) {
                a[y * m + x] = (balls.slip(&contacts[j]) - free[j]).dot(read);
            }
        }
        for (q, v, w) in touched {
            (balls.velocity[q], balls.spin[q]) = (v, w);
        }
    }
    a
}

/// Solve the `m` by `m` system `a x = b` (row-major) by elimination with partial pivoting; an
/// unknown whose column has no pivot beyond rounding of the largest entry depends on those
/// before it and gets zero.
fn eliminate(a: &mut [Real], b: &mut [Real], m: usize) -> Vec<Real> {
    let scale = a.iter().fold(0.0, |s: Real, v| s.max(v.abs()));
    let mut pivot_of = vec![None; m];
    let mut r = 0;
    for col in 0..m {
        if r == m {
            break;
        }
        let (p, best) = (r..m)
            .map(|i| (i, a[i * m + col].abs()))
            .fold((r, -1.0), |w, x| if x.1 > w.1 { x } else { w });
        if best <= 1e-12 * scale {
            continue;
        }
        if p != r {
            for j in 0..m {
                a.swap(p * m + j, r * m + j);
            }
            b.swap(p, r);
        }
        let pivot = a[r * m + col];
        for i in r + 1..m {
            let f = a[i * m + col] / pivot;
            if f != 0.0 {
                for j in col..m {
                    a[i * m + j] -= f * a[r * m + j];
                }
                b[i] -= f * b[r];
            }
        }
        pivot_of[col] = Some(r);
        r += 1;
    }
    let mut x = vec![0.0; m];
    for col in (0..m).rev() {
        if let Some(r) = pivot_of[col] {
            let mut v = b[r];
            for j in col + 1..m {
                v -= a[r * m + j] * x[j];
            }
            x[col] = v / a[r * m + col];
        }
    }
    x
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

    #[test]
    fn a_jam_of_a_light_ball_under_a_heavy_one_settles_exactly_within_a_few_sweeps() {
        // A ball of mass 1e-4 on a floor, one of mass 100 coming down on it at 1, their contact
        // 0.005 rad off the vertical, friction 1: both contacts stick (the tilt needs far less),
        // so neither contact closes or slips, and the heavy ball stops. Gauss-Seidel
        // alone creeps at a millionth a sweep here; the exact finish settles it by sweep 16
        let tilt = Vec3::new(0.005_f64.sin(), 0.005_f64.cos(), 0.0);
        let mut velocity = [Vec3::ZERO, Vec3::new(0.0, -1.0, 0.0)];
        let mut spin = [Vec3::ZERO; 2];
        let contacts = [
            Contact::touching(0, None, Vec3::Y),
            Contact::touching(1, Some(0), tilt),
        ];
        let mut impulse = [Vec3::ZERO; 2];
        let mut balls = RoughBalls {
            velocity: &mut velocity,
            spin: &mut spin,
            inverse_mass: &[1e4, 1e-2],
            radius: &[0.1, 0.1],
        };
        let friction = [1.0, 1.0];
        let solved =
            project_rough_cluster(&mut balls, &contacts, &friction, &mut impulse, (64, 1e-9));
        assert_eq!(solved.settled, Settled::Met, "{solved:?}");
        assert!(solved.sweeps <= 16, "{solved:?}");
        let left = rough_residual(&balls, &contacts, &friction, &impulse);
        assert!(left <= 1e-9, "residual {left}");
        for c in &contacts {
            let slip = balls.slip(c);
            assert!(slip.length() <= 1e-9, "slips at {slip}");
        }
        // The heavy ball stopped but for the tilt's share, the light one rolling aside
        assert!(velocity[1].length() <= 0.005, "{}", velocity[1]);
    }
}
