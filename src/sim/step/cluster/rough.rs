//! The rough islands of the resting clusters: each solved with Coulomb's cone and the spins
//! (rest first, then Gauss-Seidel, then where neither settles the convex relaxation), and kept
//! where it settles and its energy does not rise.

use super::{Clusters, FROM_REST, REST_SOLVES};
use crate::math::{Real, Vec3, ball_energy};
use crate::sim::cluster::{
    Contact, RoughBalls, Settled, Solved, hold_at_rest, parting_by_sliding, project_rough_cluster,
    relaxed_residual, rough_residual, solve_relaxed,
};

/// Return the residual of a rough solve that ended `settled`, for its own law (see
/// [`rough_residual`], [`relaxed_residual`]), or infinity where it did not settle or (relaxed)
/// a sliding contact parts faster than `slack`, a step of gravity's speed, which closes it
/// again.
fn settled_residual(
    balls: &RoughBalls<'_>,
    (contacts, friction): (&[Contact], &[Real]),
    impulse: &[Vec3],
    settled: Settled,
    slack: Real,
) -> Real {
    match settled {
        Settled::Met => rough_residual(balls, contacts, friction, impulse),
        Settled::Relaxed if parting_by_sliding(balls, contacts, friction, impulse) <= slack => {
            relaxed_residual(balls, contacts, friction, impulse)
        }
        _ => Real::INFINITY,
    }
}

/// A rough island's members at the start of its solve.
struct Start<'a> {
    /// Every member at rest but for the step's `fall` of gravity.
    at_rest: bool,
    /// The step's fall: its gravity times its length (zero for the solve without gravity).
    fall: Vec3,
    /// The members' places, and their velocities and spins.
    members: &'a [usize],
    motions: &'a [(Vec3, Vec3)],
}

/// Solve a rough island's contacts `(contacts, friction)` for `balls`, the impulses in
/// `impulse`, from `start`; to `settle` (sweeps, tolerance). At rest, first for staying at rest
/// (see [`hold_at_rest`]); where its contacts cannot hold it, or for any other, Coulomb's
/// problem (see [`project_rough_cluster`]). Where Gauss-Seidel settles neither, the convex
/// relaxation of Coulomb's law (see [`solve_relaxed`]) decides: at rest, it holds the island
/// exactly where friction can (then rest is Coulomb's answer too), and otherwise it is taken
/// where friction could not hold the island even at rest (a pile that comes apart); an island
/// friction could hold is left to the event loop.
fn solve_rough(
    balls: &mut RoughBalls<'_>,
    (contacts, friction): (&[Contact], &[Real]),
    impulse: &mut [Vec3],
    start: Start<'_>,
    settle: (usize, Real),
) -> Solved {
    let at_rest = start.at_rest;
    if let Some(sweeps) = at_rest
        .then(|| {
            let sweeps = (REST_SOLVES / contacts.len()).max(settle.0);
            hold_at_rest(balls, contacts, friction, impulse, (sweeps, settle.1))
        })
        .flatten()
    {
        return Solved {
            settled: Settled::Met,
            sweeps,
        };
    }
    // A pile friction cannot hold settles slowly as it starts to slide from rest
    let sweeps = if at_rest {
        FROM_REST * settle.0
    } else {
        settle.0
    };
    let solved = project_rough_cluster(balls, contacts, friction, impulse, (sweeps, settle.1));
    if solved.settled == Settled::Met {
        return solved;
    }
    balls.set_motions(start.members, start.motions);
    impulse.fill(Vec3::ZERO);
    // Without gravity nothing presses: at rest it is held, and so left
    let tolerance = settle.1;
    if start.fall == Vec3::ZERO
        || !at_rest && held_from_rest(balls, (contacts, friction), &start, tolerance) != Some(false)
    {
        return solved;
    }
    let Some(iterations) = solve_relaxed(balls, contacts, friction, impulse, tolerance) else {
        return solved;
    };
    let sweeps = solved.sweeps + iterations;
    if at_rest && balls.still(start.members, tolerance) {
        // Held: every contact sticks, so Coulomb's law holds as well
        for &q in start.members {
            (balls.velocity[q], balls.spin[q]) = (Vec3::ZERO, Vec3::ZERO);
        }
        return Solved {
            settled: Settled::Met,
            sweeps,
        };
    }
    Solved {
        settled: Settled::Relaxed,
        sweeps,
    }
}

/// Return whether friction could hold the island `(contacts, friction)` of `balls` still
/// through the step were it at rest (each member with `start`'s fall of gravity alone), by
/// the convex relaxation, whose least motion is zero exactly then; `None` where it did not
/// settle. The balls are as they were.
fn held_from_rest(
    balls: &mut RoughBalls<'_>,
    (contacts, friction): (&[Contact], &[Real]),
    start: &Start<'_>,
    tolerance: Real,
) -> Option<bool> {
    for &q in start.members {
        (balls.velocity[q], balls.spin[q]) = (start.fall, Vec3::ZERO);
    }
    let mut impulse = vec![Vec3::ZERO; contacts.len()];
    let held = solve_relaxed(balls, contacts, friction, &mut impulse, tolerance)
        .map(|_| balls.still(start.members, tolerance));
    balls.set_motions(start.members, start.motions);
    held
}

/// Project the rough island of `contacts[from..to]` in `c`: the earned velocities and spins
/// (`fall` `None`), or those with a step's `fall` of gravity added (over a step of `dt`, in
/// which the balls go straight; `slack` is that step's speed of gravity). The solve and its
/// residual where kept; `None`, with the island's velocities, spins and impulses as they were,
/// where the projection did not settle, or where it would raise the island's energy (kinetic
/// and rotational, and of gravity over the step) beyond rounding: the island is left to the
/// event loop.
pub(super) fn project_rough_island(
    c: &mut Clusters,
    (from, to): (usize, usize),
    fall: Option<Vec3>,
    (dt, slack): (Real, Real),
    settle: (usize, Real),
) -> Option<(Solved, Real)> {
    c.gather_members((from, to));
    let (velocity, spin) = match fall {
        Some(_) => (&mut c.velocity, &mut c.spin),
        None => (&mut c.earned, &mut c.earned_spin),
    };
    let with_gravity = fall.is_some();
    let fall = fall.unwrap_or(Vec3::ZERO);
    let gravity = fall / dt;
    let mut start = std::mem::take(&mut c.before);
    start.clear();
    start.extend(c.members.iter().map(|&p| (velocity[p], spin[p])));
    // Kinetic and rotational energy of the members (at their earned velocities before, as a
    // parabola would keep it), and of gravity after a step straight on
    let energy =
        |p: usize, v: Vec3, w: Vec3| ball_energy(c.inverse_mass[p].recip(), c.radius[p], v, w);
    let (mut before, mut scale) = (0.0, 0.0);
    for (&p, &(v, w)) in c.members.iter().zip(&start) {
        before += energy(p, v - fall, w);
        scale += energy(p, v - fall, w) + energy(p, fall, Vec3::ZERO);
    }
    let mut balls = RoughBalls {
        velocity,
        spin,
        inverse_mass: &c.inverse_mass,
        radius: &c.radius,
    };
    let (contacts, friction) = (&c.contacts[from..to], &c.friction[from..to]);
    let impulse = &mut c.rough_impulse[from..to];
    // An island at rest stays at rest where its contacts can hold it through the step
    let at_rest = with_gravity
        && c.members.iter().zip(&start).all(|(&p, &(v, w))| {
            (v - fall).length() <= settle.1 && w.length() * c.radius[p] <= settle.1
        });
    let solved = solve_rough(
        &mut balls,
        (contacts, friction),
        impulse,
        Start {
            at_rest,
            fall,
            members: &c.members,
            motions: &start,
        },
        settle,
    );
    // A ball that no contact pushes keeps its parabola, and its energy: only those that go
    // straight count
    let mut after = 0.0;
    for (&p, &(v0, w0)) in c.members.iter().zip(&start) {
        let (v, w) = (balls.velocity[p], balls.spin[p]);
        after += if (v, w) == (v0, w0) {
            energy(p, v0 - fall, w0)
        } else {
            energy(p, v, w) - gravity.dot(v) * dt / c.inverse_mass[p]
        };
    }
    // Settled, within twice the tolerance of a sweep's changes (the residual is the event
    // loop's threshold of no approach), and no energy gained
    let left = settled_residual(&balls, (contacts, friction), impulse, solved.settled, slack);
    let kept = left <= 2.0 * settle.1 && after <= before + 1e-12 * scale;
    let outcome = kept.then_some((solved, left));
    if kept {
        for (k, p) in (from..to).zip(impulse.iter()) {
            c.impulse[k] = p.dot(c.contacts[k].normal);
        }
    } else {
        balls.set_motions(&c.members, &start);
        impulse.fill(Vec3::ZERO);
    }
    c.before = start;
    outcome
}
