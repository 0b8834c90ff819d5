//! Resting clusters at the step's start: the balls near each other or a static shape, given
//! the step's gravity and projected together on the velocities that meet their contacts (see
//! [`project_cluster`]), so that a load goes wherever it can and a cluster that no compressive
//! forces hold moves.

use super::{ROUNDING, Step, Stepper, Whole, goes_beyond_rounding};
use crate::geometry::{Ball, Shape};
use crate::math::{Real, Vec3};
use crate::sim::bodies::{Motion, permute};
use crate::sim::calendar::Other;
use crate::sim::cluster::{Contact, Settled, project_cluster, residual};
use crate::sim::components::combine_friction;
use crate::sim::sleep::{Footing, find, union};
use crate::sim::surface::slopes;
use crate::toi::ToiStrategy;
use rough::project_rough_island;

mod rough;

/// Gaps, relative to the radii, within which a ball is in a resting contact with another ball
/// or a static shape. A wider gap may close in the step (see [`Contact::closing`]): a ball
/// sliding over a curved surface on its straight path leaves it by `(v dt)² / 2R`, which this
/// keeps in the contact at any speed slower than the rest speed.
const NEAR: Real = 1e-2;

/// How far apart, or into each other, relative to their radii, the two sides of a pushing
/// contact of a projected island may be at the step's end on their paths, and how far its
/// normal may turn (radians): beyond either the contact does not hold through the step, which
/// goes in halves.
const OUTRUN: Real = 1.0;

/// Balls of a frictionless island at most for it to be projected: larger ones are left to the
/// resting contacts of the event loop, as before.
const MAX_ISLAND: u32 = 32;

/// Balls of a rough island at most for it to be projected. Its solve is bounded by
/// [`ROUGH_SOLVES`] and [`REST_SOLVES`] whatever its size, and its sweeps settle on pyramids
/// of 55 balls, but seldom on random piles of over 64, which would only pay for them (a rough
/// pile of 300 balls took three times as long with no limit).
const MAX_ROUGH_ISLAND: u32 = 64;

/// Sweeps of a projection at most: what it leaves closing is met as resting contacts in the
/// event loop.
const SWEEPS: usize = 64;

/// The net force, relative to its weight, on a ball of a projected rough cluster beyond which
/// it is not still (for sleep), however slowly it moves: a stack just past Coulomb's limit
/// slides apart from rest, slowly at first.
const UNBALANCED: Real = 1e-9;

/// Local solves of a projection with friction at most, over all its sweeps (which carry no
/// exact finish: a stack of three with a top ball a tenth of the others' mass needs thousands
/// of sweeps near Coulomb's limit), and sweeps at least.
const ROUGH_SOLVES: usize = 1 << 16;
const ROUGH_SWEEPS: usize = 256;

/// Local solves at most of the search for impulses that hold a rough island at rest (see
/// [`hold_at_rest`]), over all its sweeps: it stops as soon as they are found, and near
/// Coulomb's limit they are found only after a thousand sweeps or more (a pyramid in a plane of
/// 10 rows, 145 contacts, at 0.02 above its limit: 2,048).
const REST_SOLVES: usize = 1 << 19;

/// How many times as many sweeps a rough island at rest at the step's start takes where its
/// contacts cannot hold it (see [`hold_at_rest`]): a pyramid just past Coulomb's limit starts to
/// slide apart from rest, and Gauss-Seidel meets its tolerance there only after tens of
/// thousands of local solves.
const FROM_REST: usize = 4;

/// The closing speed, relative to the rest speed, below which a projection has met a contact:
/// half of what the event loop counts as no approach (see `response::approach_speed`).
const MET: Real = 0.5e-12;

/// Scratch of the projection of resting clusters.
#[derive(Debug, Default)]
pub(super) struct Clusters {
    /// Per ball, its place in the projection, or [`NONE`].
    place: Vec<u32>,
    /// The balls of the projection, by place: gathered indices.
    balls: Vec<u32>,
    /// Per place: the velocity projected without gravity (what the ball has earned), and with
    /// the step's gravity.
    earned: Vec<Vec3>,
    velocity: Vec<Vec3>,
    /// Per place, the spin without gravity and with it, and the radius (rough islands).
    earned_spin: Vec<Vec3>,
    spin: Vec<Vec3>,
    radius: Vec<Real>,
    inverse_mass: Vec<Real>,
    /// Per place, the ball takes its projected velocity (a contact pushes it).
    pushed: Vec<bool>,
    /// Per place, the ball is in a rough island.
    rough: Vec<bool>,
    contacts: Vec<Contact>,
    /// What each contact is with, as the calendar names it.
    others: Vec<Other>,
    /// Per contact, its coefficient of friction.
    friction: Vec<Real>,
    impulse: Vec<Real>,
    /// Per contact of a rough island, its impulse on its ball `a` (along and across).
    rough_impulse: Vec<Vec3>,
    /// Per contact, its normal impulse in the projection without gravity (on earned
    /// velocities).
    earned_impulse: Vec<Real>,
    /// Union-find over the places, and the size of each island at its root.
    parent: Vec<u32>,
    size: Vec<u32>,
    /// The islands projected, as ranges of `contacts`, and how.
    islands: Vec<(usize, usize, Solve)>,
    /// The places of one rough island, and their velocities and spins before its projection.
    members: Vec<usize>,
    before: Vec<(Vec3, Vec3)>,
    found: Vec<Other>,
    /// The contacts of one ball: with what, the other ball if it takes part, normal, closing,
    /// friction.
    near: Vec<Near>,
    order: Vec<u32>,
    done: Vec<u64>,
}

impl Clusters {
    /// Gather the places of the balls of the island `contacts[from..to]` into `members`,
    /// sorted.
    fn gather_members(&mut self, (from, to): (usize, usize)) {
        self.members.clear();
        for k in &self.contacts[from..to] {
            self.members.push(k.a);
            self.members.extend(k.b);
        }
        self.members.sort_unstable();
        self.members.dedup();
    }
}

/// A resting contact of a ball: with what, the other ball if it takes part, the normal, the
/// closing speed, and the pair's coefficient of friction.
type Near = (Other, Option<usize>, Vec3, Real, Real);

/// No place.
const NONE: u32 = u32::MAX;

/// The unit normals of a ball's contacts made orthonormal (at most three), to read the part of
/// its velocity along all of them: how it glides.
#[derive(Clone, Copy, Debug)]
struct Across {
    normals: [Vec3; 3],
    count: usize,
}

impl Across {
    /// Return the orthonormal span of `normals` (one within rounding of those before adds
    /// nothing).
    fn of(normals: impl IntoIterator<Item = Vec3>) -> Self {
        let mut across = Self {
            normals: [Vec3::ZERO; 3],
            count: 0,
        };
        for n in normals {
            if across.count == 3 {
                break;
            }
            let own = across.glide(n);
            if own.length() > 1e-9 {
                across.normals[across.count] = own.normalize();
                across.count += 1;
            }
        }
        across
    }

    /// Return `v` less its parts along the normals.
    fn glide(&self, v: Vec3) -> Vec3 {
        self.normals[..self.count]
            .iter()
            .fold(v, |v, n| v - *n * v.dot(*n))
    }
}

/// How an island is projected.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Solve {
    /// Without friction or spins (see [`project_cluster`]).
    Smooth,
    /// With Coulomb's friction and spins (a contact with friction, or a ball spinning; see
    /// [`project_rough_cluster`]).
    Rough,
    /// Left to the event loop: its rough projection did not settle, or would have raised the
    /// energy.
    Left,
}

impl Stepper {
    /// Project the resting clusters of the step's start, under gravity: every ball awake without
    /// rolling resistance that is near another such ball, a sleeper or a static shape, and does
    /// not close on it faster than the rest speed even after a step of gravity. Frictionless
    /// islands of at most [`MAX_ISLAND`] balls; those with friction or spin, of at most
    /// [`MAX_ROUGH_ISLAND`], with Coulomb's cone and the spins (see [`project_rough_cluster`]),
    /// but not a rough ball alone on shapes, nor a smooth one alone on one slope (both move
    /// there in closed form).
    ///
    /// Each such ball's velocity is projected on the contacts (what it has earned), then, with
    /// the step's gravity added, again. A ball that a contact then pushes takes that velocity at
    /// once and goes straight to the step's end (NeHe's kick), owing the difference as a kicked
    /// ball does (see `response::Body::owed`); the others keep their parabolas, with the earned
    /// velocity. Sleepers and statics do not yield. Each contact that pushes is reported as a
    /// collision at the step's start, and holds its ball up as a resting contact of the event
    /// loop would (supports, sleep).
    ///
    /// A contact whose balls, on their new paths, would stand apart or overlap by more than
    /// [`OUTRUN`] of their radii at the step's end, or whose normal would turn by more than
    /// [`OUTRUN`] radians, does not hold through it (a pile that starts to slide apart at a
    /// long step): the step is to be taken in halves ([`Whole::Halve`]).
    pub(super) fn project_resting<S: ToiStrategy + ?Sized>(&mut self, step: &Step<'_, S>) -> Whole {
        let mut c = std::mem::take(&mut self.scratch.clusters);
        let dt = step.t1 - step.t0;
        self.find_resting_contacts(&mut c, dt, step.rest_speed);
        let mut whole = Whole::Done;
        if !c.contacts.is_empty() {
            self.order_islands(&mut c);
            self.project_islands(&mut c, dt, step.rest_speed);
            self.apply_projection(&mut c, dt);
            if self.outruns(&c, step.t1) {
                whole = Whole::Halve;
            }
        }
        self.scratch.clusters = c;
        whole
    }

    /// True when a contact of a projected island that pushes would, on its balls' paths,
    /// stand apart or overlap by more than [`OUTRUN`] of its radii at `t1`, or turn its normal
    /// by more than [`OUTRUN`] radians (the distance of the unit normals).
    fn outruns(&self, c: &Clusters, t1: Real) -> bool {
        c.islands
            .iter()
            .filter(|island| island.2 != Solve::Left)
            .flat_map(|&(from, to, _)| from..to)
            .filter(|&k| c.impulse[k] > 0.0 || c.rough_impulse[k] != Vec3::ZERO)
            .any(|k| {
                let contact = &c.contacts[k];
                let i = c.balls[contact.a] as usize;
                let (at, radius) = (self.balls.end(i, t1), self.balls.body[i].radius);
                let (gap, normal, reach) = match c.others[k] {
                    Other::Ball(j) => {
                        let j = j as usize;
                        let its = self.balls.body[j].radius;
                        let d = at - self.balls.end(j, t1);
                        let length = d.length();
                        (length - radius - its, d / length, radius + its)
                    }
                    Other::Static(s) => {
                        let shape = &self.statics[s as usize].shape;
                        let p = shape.proximity(&Ball::new(at, radius));
                        (p.distance, p.normal, radius)
                    }
                };
                gap.abs() > OUTRUN * reach || normal.distance(contact.normal) > OUTRUN
            })
    }

    /// Return true when ball `i` takes part in the projection.
    fn takes_part(&self, i: usize) -> bool {
        let m = &self.balls.material[i];
        !self.balls.rest[i].asleep() && m.inverse_mass > 0.0 && m.rolling_resistance == 0.0
    }

    /// List the contacts of the balls that take part, each pair once, through the grids: those
    /// that close slower than `rest_speed` after a step of `dt` of gravity.
    fn find_resting_contacts(&mut self, c: &mut Clusters, dt: Real, rest_speed: Real) {
        let n = self.balls.len();
        c.place.clear();
        c.place.resize(n, NONE);
        c.balls.clear();
        c.contacts.clear();
        c.others.clear();
        c.friction.clear();
        let mut found = std::mem::take(&mut c.found);
        for i in 0..n {
            if !self.takes_part(i) {
                continue;
            }
            self.candidates(i, &mut found);
            let balls = &self.balls;
            let (at, radius) = (balls.start[i], balls.body[i].radius);
            // Where it will be going at the step's end, on its parabola
            let path = &balls.body[i].path;
            let ending = path.velocity + path.acceleration * dt;
            for &other in &found {
                if let Some(near) =
                    self.near_contact(i, other, (at, radius, ending), dt, rest_speed)
                {
                    c.near.push(near);
                }
            }
            // In the order of what they are with (most candidates are far: only the near are
            // sorted)
            c.near.sort_unstable_by_key(|near| near.0);
            for (other, b, normal, closing, mu) in c.near.drain(..) {
                let mut place = |k: usize| {
                    if c.place[k] == NONE {
                        c.place[k] = c.balls.len() as u32;
                        c.balls.push(k as u32);
                    }
                    c.place[k] as usize
                };
                let a = place(i);
                let b = b.map(place);
                c.contacts.push(Contact {
                    a,
                    b,
                    normal,
                    closing,
                });
                c.others.push(other);
                c.friction.push(mu);
            }
        }
        c.found = found;
        // A ball near nothing begins the step in flight: nothing holds it up
        for i in 0..n {
            if self.takes_part(i) && c.place[i] == NONE {
                self.balls.rest[i].footing = Footing::Aloft;
            }
        }
    }

    /// Ball `i` (at `at`, of `radius`, going at `ending` at the step's end) and `other`, if
    /// they are in a resting contact: near, not overlapping, and closing slower than
    /// `rest_speed` after a step of `dt` of gravity. With what, the other ball if it takes
    /// part, the normal, the closing speed that brings the gap to a touch, and the pair's
    /// friction.
    fn near_contact(
        &self,
        i: usize,
        other: Other,
        (at, radius, ending): (Vec3, Real, Vec3),
        dt: Real,
        rest_speed: Real,
    ) -> Option<Near> {
        let balls = &self.balls;
        let (normal, gap, other_ending, b, reach, mu) = match other {
            Other::Ball(j) => {
                let j = j as usize;
                // Each pair of balls that both take part once, from the lower index
                let part = self.takes_part(j);
                let asleep = balls.rest[j].asleep();
                if j == i || (part && j < i) || !(part || asleep) {
                    return None;
                }
                let (to, its) = (balls.start[j], balls.body[j].radius);
                let d = at - to;
                let length = d.length();
                if length == 0.0 {
                    return None;
                }
                let path = &balls.body[j].path;
                let b = (!asleep).then_some(j);
                let other_ending = path.velocity + path.acceleration * dt;
                (
                    d / length,
                    length - (radius + its),
                    other_ending,
                    b,
                    radius + its,
                    balls.material[j].friction,
                )
            }
            Other::Static(k) => {
                let s = &self.statics[k as usize];
                let p = s.shape.proximity(&Ball::new(at, radius));
                (p.normal, p.distance, Vec3::ZERO, None, radius, s.friction)
            }
        };
        // Near, not overlapping (a contact of the event loop pushes an overlap apart),
        // and slower than the rest speed after a step of gravity (a faster one bounces)
        if gap > NEAR * reach
            || gap < -ROUNDING * reach
            || -(ending - other_ending).dot(normal) > rest_speed
        {
            return None;
        }
        // A gap may close by the step's end, to within rounding (so that no query
        // finds the pair meeting at the end); one within rounding is a touch
        let closing = if gap > ROUNDING * reach {
            (gap - 0.5 * ROUNDING * reach) / dt
        } else {
            0.0
        };
        let mu = combine_friction(balls.material[i].friction, mu);
        Some((other, b, normal, closing, mu))
    }

    /// Join the places into islands by their ball-ball contacts, and order the contacts island
    /// by island, each bottom up (a sweep then carries a load down a stack in one go). The
    /// islands small enough to be projected go into `c.islands`.
    fn order_islands(&mut self, c: &mut Clusters) {
        let m = c.balls.len();
        c.parent.clear();
        c.parent.extend(0..m as u32);
        for contact in &c.contacts {
            if let Some(b) = contact.b {
                union(&mut c.parent, contact.a as u32, b as u32);
            }
        }
        c.size.clear();
        c.size.resize(m, 0);
        for k in 0..m {
            let root = find(&mut c.parent, k as u32);
            c.parent[k] = root;
            c.size[root as usize] += 1;
        }
        let (balls, up) = (&self.balls, -self.config.gravity);
        let (parent, place_of, contacts) = (&c.parent, &c.balls, &c.contacts);
        let height = |k: &Contact| balls.start[place_of[k.a] as usize].dot(up);
        c.order.clear();
        c.order.extend(0..contacts.len() as u32);
        c.order.sort_by(|&x, &y| {
            let (x, y) = (&contacts[x as usize], &contacts[y as usize]);
            (parent[x.a].cmp(&parent[y.a])).then(height(x).total_cmp(&height(y)))
        });
        permute(&mut c.contacts, &c.order, &mut c.done);
        permute(&mut c.others, &c.order, &mut c.done);
        permute(&mut c.friction, &c.order, &mut c.done);
        c.islands.clear();
        let mut from = 0;
        while from < c.contacts.len() {
            let root = c.parent[c.contacts[from].a];
            let to = from
                + c.contacts[from..]
                    .iter()
                    .take_while(|k| c.parent[k.a] == root)
                    .count();
            let balls = &self.balls;
            let spins = |k: &Contact| {
                let spin = |p: usize| balls.material[c.balls[p] as usize].spin != Vec3::ZERO;
                spin(k.a) || k.b.is_some_and(spin)
            };
            let rough = c.friction[from..to].iter().any(|&mu| mu > 0.0)
                || c.contacts[from..to].iter().any(spins);
            // A ball alone on shapes is left to the event loop, which lays it on one in closed
            // form where it can: a rough one on any; a smooth one where it lies on one slope and
            // touches nothing else (projected, it would go straight with a step's slide down
            // the slope and run ahead of its parabola; on a level floor, in a corner or on a
            // sleeper, the projection is exact)
            let gravity = self.config.gravity;
            let n = c.contacts[from].normal;
            let on_one_slope = to - from == 1
                && matches!(c.others[from], Other::Static(_))
                && gravity.dot(n) < 0.0
                && slopes(gravity, n);
            let alone = c.size[root as usize] == 1 && (rough || on_one_slope);
            let most = if rough { MAX_ROUGH_ISLAND } else { MAX_ISLAND };
            if c.size[root as usize] <= most && !alone {
                let solve = if rough { Solve::Rough } else { Solve::Smooth };
                c.islands.push((from, to, solve));
            }
            from = to;
        }
    }

    /// Project each island's velocities: without gravity (what each ball has earned), then
    /// with a step of `dt` of it, each to within a fraction of `rest_speed`. Rough islands
    /// project spins too, with Coulomb's friction.
    fn project_islands(&mut self, c: &mut Clusters, dt: Real, rest_speed: Real) {
        let balls = &self.balls;
        c.earned.clear();
        c.earned.extend(
            c.balls
                .iter()
                .map(|&i| balls.body[i as usize].path.velocity),
        );
        c.earned_spin.clear();
        c.earned_spin
            .extend(c.balls.iter().map(|&i| balls.material[i as usize].spin));
        c.inverse_mass.clear();
        c.inverse_mass.extend(
            c.balls
                .iter()
                .map(|&i| balls.material[i as usize].inverse_mass),
        );
        c.radius.clear();
        c.radius
            .extend(c.balls.iter().map(|&i| balls.body[i as usize].radius));
        let settle = (SWEEPS, MET * rest_speed);
        let rough = MET * rest_speed;
        let fall = self.config.gravity * dt;
        for with_gravity in [false, true] {
            if with_gravity {
                std::mem::swap(&mut c.earned_impulse, &mut c.impulse);
                c.velocity.clear();
                c.velocity.extend(c.earned.iter().map(|&v| v + fall));
                c.spin.clone_from(&c.earned_spin);
            }
            c.impulse.clear();
            c.impulse.resize(c.contacts.len(), 0.0);
            c.rough_impulse.clear();
            c.rough_impulse.resize(c.contacts.len(), Vec3::ZERO);
            for x in 0..c.islands.len() {
                let (from, to, solve) = c.islands[x];
                match solve {
                    Solve::Smooth => {
                        match project_smooth_island(c, (from, to), with_gravity, settle) {
                            Some((sweeps, left)) => {
                                self.report.stats.count_solve(sweeps, left, 2.0 * settle.1)
                            }
                            None => {
                                c.islands[x].2 = Solve::Left;
                                self.report.stats.contact_solves_left += 1;
                            }
                        }
                    }
                    Solve::Rough => {
                        let fall = with_gravity.then_some(fall);
                        let sweeps = (ROUGH_SOLVES / (to - from)).max(ROUGH_SWEEPS);
                        let slack = self.config.gravity.length() * dt;
                        let island = (from, to);
                        match project_rough_island(c, island, fall, (dt, slack), (sweeps, rough)) {
                            Some((solved, left)) => {
                                let stats = &mut self.report.stats;
                                stats.count_solve(solved.sweeps, left, 2.0 * rough);
                                if solved.settled == Settled::Relaxed {
                                    stats.contact_solves_relaxed += 1;
                                }
                            }
                            None => {
                                c.islands[x].2 = Solve::Left;
                                self.report.stats.contact_solves_left += 1;
                            }
                        }
                    }
                    Solve::Left => {}
                }
            }
        }
    }

    /// Give the balls of the projected islands their velocities, and note each contact that
    /// pushes: a collision at the step's start, a link for sleep, and for a static shape or a
    /// sleeper a support.
    fn apply_projection(&mut self, c: &mut Clusters, dt: Real) {
        c.pushed.clear();
        c.pushed.resize(c.balls.len(), false);
        c.rough.clear();
        c.rough.resize(c.balls.len(), false);
        for &(from, to, solve) in &c.islands {
            let rough = solve == Solve::Rough;
            if solve == Solve::Left {
                continue;
            }
            // A ball alone in a frictionless island (on static shapes or sleepers only) that its
            // contacts push glides on across their normals
            if solve == Solve::Smooth && c.contacts[from..to].iter().all(|k| k.b.is_none()) {
                let pushing = || (from..to).filter(|&k| c.impulse[k] > 0.0);
                if pushing().next().is_some() {
                    let across = Across::of(pushing().map(|k| c.contacts[k].normal));
                    let place = c.contacts[from].a;
                    let i = c.balls[place] as usize;
                    let glide = across.glide(c.velocity[place]).length();
                    if goes_beyond_rounding(glide, dt, self.balls.body[i].radius) {
                        self.balls.rest[i].footing = Footing::Glides;
                    }
                }
            }
            for k in from..to {
                let (contact, impulse) = (c.contacts[k], c.impulse[k]);
                c.rough[contact.a] |= rough;
                if let Some(b) = contact.b {
                    c.rough[b] |= rough;
                }
                let i = c.balls[contact.a] as usize;
                let now = self.kept.clock;
                if impulse <= 0.0 && c.rough_impulse[k] == Vec3::ZERO {
                    // Met on earned velocities only: a slow impact at the step's start,
                    // inelastic, that gravity does not press on (its balls keep the earned
                    // velocities)
                    let earned = c.earned_impulse[k];
                    if earned > 0.0 {
                        self.pairs.rested_at_start = true;
                        self.report_push(i, c.others[k], now, contact.normal, earned);
                    }
                    continue;
                }
                c.pushed[contact.a] = true;
                if let Some(b) = contact.b {
                    c.pushed[b] = true;
                } else {
                    self.balls.rest[i].grounded = true;
                    self.balls.supports_mut(i).add(contact.normal);
                }
                self.report_push(i, c.others[k], now, contact.normal, impulse);
            }
        }
        for (k, &i) in c.balls.iter().enumerate() {
            let i = i as usize;
            let path = &mut self.balls.body[i].path;
            if c.pushed[k] {
                path.velocity = c.velocity[k];
                path.acceleration = Vec3::ZERO;
                let material = &mut self.balls.material[i];
                material.spin = c.spin[k];
                material.motion = Motion::Kicked {
                    owed: (c.velocity[k] - c.earned[k]) / dt,
                    owed_spin: (c.spin[k] - c.earned_spin[k]) / dt,
                };
                // Gravity not held up by a rough cluster: a net force beyond rounding of its
                // weight (frictionless clusters creep as they pack, and sleep by their drift)
                let gravity = self.config.gravity.length() * dt;
                let change = (c.velocity[k] - c.earned[k]).length();
                if c.rough[k] && change > UNBALANCED * gravity {
                    self.balls.rest[i].footing = Footing::Unbalanced;
                }
            } else {
                path.velocity = c.earned[k];
                self.balls.material[i].spin = c.earned_spin[k];
            }
        }
    }
}

/// Project the frictionless island of `contacts[from..to]` in `c`: the earned velocities, or
/// those with a step of gravity (`with_gravity`). The sweeps and the residual where it meets
/// `settle`'s tolerance; otherwise `None`, with the island's velocities and impulses as they
/// were: the island is left to the event loop.
fn project_smooth_island(
    c: &mut Clusters,
    (from, to): (usize, usize),
    with_gravity: bool,
    settle: (usize, Real),
) -> Option<(usize, Real)> {
    c.gather_members((from, to));
    let velocity = if with_gravity {
        &mut c.velocity
    } else {
        &mut c.earned
    };
    c.before.clear();
    c.before
        .extend(c.members.iter().map(|&p| (velocity[p], Vec3::ZERO)));
    let (contacts, impulse) = (&c.contacts[from..to], &mut c.impulse[from..to]);
    let solved = project_cluster(velocity, &c.inverse_mass, contacts, impulse, settle);
    if solved.settled == Settled::Met {
        return Some((
            solved.sweeps,
            residual(velocity, &c.inverse_mass, contacts, impulse),
        ));
    }
    for (&p, &(v, _)) in c.members.iter().zip(&c.before) {
        velocity[p] = v;
    }
    impulse.fill(0.0);
    None
}
