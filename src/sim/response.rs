//! Collision response: an impulse along the contact normal.
//!
//! A pair with inverse masses `w_a`, `w_b` (zero for a static shape), relative normal velocity
//! `v_n = (v_a - v_b)·n < 0` and restitution `e` receives the impulse
//! `J = -(1 + e) v_n / (w_a + w_b)` along `n`: `v_a += J w_a n`, `v_b -= J w_b n`. Momentum is
//! conserved exactly in real arithmetic, and for `e = 1` so is kinetic energy; without friction
//! tangential velocities are untouched. With friction the contact also rubs (see [`rub`]):
//! Coulomb's law at the contact points, sticking or sliding, turning the balls.
//!
//! Resting contact: an approach slower than the rest speed is treated as perfectly inelastic
//! (`e = 0`), so a bouncing ball stops bouncing after finitely many bounces. A ball that has come
//! to rest against a static shape in a step, or against a ball that had, is held in that
//! direction for the rest of the step: in a resting contact that pushes it into its support it
//! counts as immovable (shock propagation, Guendelman et al. 2003). So a stack settles from the
//! floor up, and a row from the wall back, in one pass instead of an endless halving of
//! velocities.
//!
//! Under gravity a ball flies on a parabola, and a ball that lies on something touches it
//! without closing while gravity presses it in: such a pair is closing at speed zero (see
//! [`closing`]), a resting contact. The stepper gives each ball of a resting contact the rest
//! of the step's gravity as a velocity at once (NeHe's kick, from there to the step's end)
//! and resolves the contact here at the level of velocities, so piles are held by the same
//! rules with or without gravity.
//!
//! That kick pays gravity in advance: until the step's end a kicked ball carries velocity it
//! has not yet earned ([`Body::owed`]). Impacts and friction act on the earned velocity only,
//! so that what was paid in advance bounces nothing and rubs nothing, and after each contact a
//! kicked ball owes its gravity again, less what holds it up takes: a ball sent off its floor
//! pays gravity on the way up instead of rising unslowed for the rest of the step. A ball that
//! another's prepaid gravity pushes along owes what it was pushed with, as the pusher does.
//! So gravity paid in advance adds no kinetic energy; passed on from ball to ball at one
//! instant, it can still carry a ball uphill (a seam the one island solve is to remove).

use crate::math::{Real, Vec3};

use super::supports::{HOLD, Supports};

/// One side of a contact, as the response sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Body {
    pub velocity: Vec3,
    /// Angular velocity; zero for a static shape.
    pub spin: Vec3,
    /// Radius of a ball; zero for a static shape (its contact point is on its surface).
    pub radius: Real,
    /// Rolling resistance of a ball; zero for a static shape.
    pub rolling: Real,
    /// Zero for a static shape.
    pub inverse_mass: Real,
    /// What it rests against in this step.
    pub supports: Supports,
    /// Held in resting contacts whatever its supports (see [`Frozen`]).
    pub frozen: Frozen,
    /// The part of `velocity` paid in advance and not yet earned: a ball going straight to the
    /// step's end after a kick carries up to `g (t1 - now)` of it, less what its supports
    /// took, and a ball pushed along by another's prepaid gravity what it was pushed with.
    /// Impacts and friction act on the earned velocity, `velocity - owed`; zero for a ball
    /// that owes nothing and for a static shape.
    pub owed: Vec3,
    /// The spin it has not yet earned, as `owed` for velocity: what a projection of its
    /// resting cluster with friction paid in advance for the rest of the step. Friction acts on
    /// the earned spin, `spin - owed_spin`.
    pub owed_spin: Vec3,
    /// What it owes again after each contact, less what its supports take: for a ball going
    /// straight after a kick, the whole of the gravity paid in advance for the rest of the
    /// step, `g (t1 - now)`; for a ball pushed along, its `owed`. Zero otherwise.
    pub paid: Vec3,
}

impl Body {
    /// A static shape: still, immovable, held every way.
    pub const SHAPE: Self = Self {
        velocity: Vec3::ZERO,
        spin: Vec3::ZERO,
        radius: 0.0,
        rolling: 0.0,
        inverse_mass: 0.0,
        supports: Supports::EVERYWHERE,
        frozen: Frozen::Always,
        owed: Vec3::ZERO,
        owed_spin: Vec3::ZERO,
        paid: Vec3::ZERO,
    };

    /// A ball at `velocity` and `spin`, of `radius` and `inverse_mass`, resting on nothing,
    /// owing nothing.
    #[must_use]
    pub fn ball((velocity, spin): (Vec3, Vec3), (radius, inverse_mass): (Real, Real)) -> Self {
        Self {
            velocity,
            spin,
            radius,
            rolling: 0.0,
            inverse_mass,
            supports: Supports::default(),
            frozen: Frozen::No,
            owed: Vec3::ZERO,
            owed_spin: Vec3::ZERO,
            paid: Vec3::ZERO,
        }
    }

    /// True when this body holds against a push along `push` (unit): frozen that way (asleep,
    /// or busy), or held by its supports.
    #[inline]
    pub(crate) fn holds(&self, push: Vec3) -> bool {
        self.frozen.holds(push) || self.supports.hold(push)
    }

    /// Return the velocity this body leaves a contact with, given its `earned` one, and what of
    /// it is still owed: a ball going straight after a kick owes all its gravity again, less
    /// what holds it up takes (`project`, on its supports), so a ball sent off its floor pays it
    /// rather than rising unslowed for the rest of the step. An earned velocity into a support
    /// is kept whole, with all the gravity paid: the event loop meets that support at once, as
    /// an impact with its restitution. A body that paid nothing keeps `earned` and owes
    /// nothing.
    fn owe(&self, earned: Vec3, project: impl Fn(&Supports, Vec3) -> Vec3) -> (Vec3, Vec3) {
        if self.paid == Vec3::ZERO {
            return (earned, Vec3::ZERO);
        }
        // An impact into a support, beyond the rounding of an approach (held here, a ball
        // struck onto its floor lost its bounce)
        let held = project(&self.supports, earned);
        if (earned - held).length() > tolerance(earned, self.paid, 0.0) {
            return (earned + self.paid, self.paid);
        }
        let velocity = project(&self.supports, held + self.paid);
        (velocity, velocity - held)
    }
}

/// How a body holds in resting contacts regardless of its supports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Frozen {
    /// Only as its supports say.
    No,
    /// Against pushes with a part along this unit direction (gravity's): a ball past
    /// [`FREEZE_AFTER`] resting contacts in a step. Sideways pushes are still shared, so that
    /// horizontal momentum is kept (a break of racked balls on a table).
    Downward(Vec3),
    /// Every way: a sleeping ball, or a frozen ball without gravity.
    Always,
}

impl Frozen {
    /// True when a push along `push` (unit) is held.
    #[inline]
    fn holds(self, push: Vec3) -> bool {
        match self {
            Self::No => false,
            Self::Downward(down) => push.dot(down) > HOLD,
            Self::Always => true,
        }
    }
}

/// Resting contacts of one ball in one step after which it holds against pushes along gravity
/// (every way without gravity) for the rest of the step. A ball wedged in a pile can otherwise
/// be struck back and forth with ever smaller impulses at one instant (inelastic collapse,
/// McNamara and Young 1994); after this many it stops yielding downwards and the chain ends.
pub(crate) const FREEZE_AFTER: u32 = 8;

/// Resting contacts of one ball in one step after which it holds every way, so that sideways
/// chains end too (in bins, between walls). A break of racked balls on a table stays below it
/// and keeps its momentum.
pub(crate) const FREEZE_ALWAYS_AFTER: u32 = 64;

/// What an impulse did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Response {
    /// Magnitude of the impulse, along the normal.
    pub impulse: Real,
    /// New velocity of the first body.
    pub velocity_a: Vec3,
    /// New velocity of the second body.
    pub velocity_b: Vec3,
    /// New angular velocity of the first body.
    pub spin_a: Vec3,
    /// New angular velocity of the second body.
    pub spin_b: Vec3,
    /// What the first body's new velocity still owes (see [`Body::owed`]).
    pub owed_a: Vec3,
    /// What the second body's new velocity still owes.
    pub owed_b: Vec3,
    /// The contact was a resting one (slower than the rest speed).
    pub resting: bool,
    /// The first body now rests on the second, which held: it gains the support `n`.
    pub a_rests_on_b: bool,
    /// The second body now rests on the first, which held: it gains the support `-n`.
    pub b_rests_on_a: bool,
}

/// Return the speed at which `a` approaches `b` along `n` (from `b` to `a`), or `None` when it
/// does not approach: separating, sliding, or closing slower than rounding.
///
/// A contact just resolved can keep a closing speed of a few ulps of the velocities; counting
/// that as an approach would resolve the same contact again and again at the same instant. Below
/// `1e-12` of the speeds involved and of the rest speed, a pair is not approaching. (The rest
/// speed's part was `1e-9` once: a ball pushed into a wall at just below it, after a step of 7
/// s, went 4e-7 in.)
#[inline]
pub(crate) fn approach_speed(a: Vec3, b: Vec3, n: Vec3, rest_speed: Real) -> Option<Real> {
    let approach = -(a - b).dot(n);
    (approach > tolerance(a, b, rest_speed) && approach.is_finite()).then_some(approach)
}

/// The closing speed below which bodies moving at `a` and `b` count as not approaching (see
/// [`approach_speed`]).
#[inline]
fn tolerance(a: Vec3, b: Vec3, rest_speed: Real) -> Real {
    1e-12 * (rest_speed + a.length() + b.length())
}

/// Return how a body moving at `va` with acceleration `aa` closes on one moving at `vb` with
/// `ab` along `n` (from the second to the first): its approach speed (see [`approach_speed`]),
/// or zero for a pair that does not move apart but is accelerated into each other (a ball
/// lying on what holds it up); `None` when neither.
#[inline]
pub(crate) fn closing(
    (va, aa): (Vec3, Vec3),
    (vb, ab): (Vec3, Vec3),
    n: Vec3,
    rest_speed: Real,
) -> Option<Real> {
    if let Some(approach) = approach_speed(va, vb, n, rest_speed) {
        return Some(approach);
    }
    let apart = (va - vb).dot(n) > tolerance(va, vb, rest_speed);
    let pressing = -(aa - ab).dot(n);
    let slack = 1e-12 * (aa.length() + ab.length());
    (!apart && pressing > slack).then_some(0.0)
}

/// Return true when the series of bounces that an impact at `approach` (> 0) starts ends
/// within `time_left`: with `restitution` `e < 1` and the pair pressed together at
/// `pressing` (> 0, along the normal), the bounces after it last `2 e v / (a (1 - e))`
/// together (a geometric series of flights `2 e^k v / a`). Such a contact is taken as resting
/// at once: at the series' end the pair rests together, as it does from here, with the normal
/// motion gone either way. A series that outlasts the step is a real bounce at any step
/// length.
#[inline]
pub(crate) fn bounces_end_within(
    approach: Real,
    restitution: Real,
    pressing: Real,
    time_left: Real,
) -> bool {
    if !(restitution < 1.0 && pressing > 0.0) {
        return false;
    }
    2.0 * restitution * approach <= time_left * pressing * (1.0 - restitution)
}

/// Resolve a contact whose normal `n` points from `b` to `a`, with `restitution` and the
/// coefficient of `friction`; `None` when the pair is not approaching (see
/// [`approach_speed`]). The contact is a resting one when the approach is slower than
/// `rest_speed`, or when `rests` (the stepper found it so before it gave the pair the rest of
/// the step's gravity).
pub(crate) fn resolve(
    a: Body,
    b: Body,
    n: Vec3,
    (restitution, friction): (Real, Real),
    rest_speed: Real,
    rests: bool,
) -> Option<Response> {
    let approach = approach_speed(a.velocity, b.velocity, n, rest_speed)?;
    let resting = rests || approach < rest_speed;
    let (wa, wb) = (a.inverse_mass, b.inverse_mass);
    if resting {
        // Shock propagation: a body pushed into its support holds
        let a_held = wa == 0.0 || a.holds(n);
        let b_held = wb == 0.0 || b.holds(-n);
        if a_held || b_held {
            return Some(hold(a, b, n, (a_held, b_held), friction));
        }
    }
    let e = if resting { 0.0 } else { restitution };
    let total = wa + wb;
    // Two immovable bodies
    if total <= 0.0 {
        return None;
    }
    let paid = a.paid != Vec3::ZERO || b.paid != Vec3::ZERO;
    // Velocity paid in advance bounces nothing: the impulse is the earned velocities'
    let (va, vb, closing) = if paid {
        let (ea, eb) = (a.velocity - a.owed, b.velocity - b.owed);
        (ea, eb, (-(ea - eb).dot(n)).max(0.0))
    } else {
        (a.velocity, b.velocity, approach)
    };
    let impulse = (1.0 + e) * closing / total;
    let mut response = Response {
        impulse,
        velocity_a: va + n * (impulse * wa),
        velocity_b: vb - n * (impulse * wb),
        spin_a: a.spin,
        spin_b: b.spin,
        owed_a: Vec3::ZERO,
        owed_b: Vec3::ZERO,
        resting,
        a_rests_on_b: false,
        b_rests_on_a: false,
    };
    if friction > 0.0 {
        rub(&a, &b, n, friction * impulse, &mut response);
    }
    if !paid {
        return Some(response);
    }
    take_paid(&a, &b, n, &mut response);
    // What the contact passed on, at least: the larger normal momentum change
    response.impulse = response
        .impulse
        .max(passed_on(response.velocity_a - a.velocity, wa, n))
        .max(passed_on(response.velocity_b - b.velocity, wb, n));
    Some(response)
}

/// Where gravity was paid in advance to `a` or `b`: only what holds a ball up takes its
/// gravity in `response`; what still presses into the other side, the contact takes,
/// inelastically.
fn take_paid(a: &Body, b: &Body, n: Vec3, response: &mut Response) {
    let (wa, wb) = (a.inverse_mass, b.inverse_mass);
    let on_supports = |s: &Supports, v: Vec3| s.project_on_supports(v);
    (response.velocity_a, response.owed_a) = a.owe(response.velocity_a, on_supports);
    (response.velocity_b, response.owed_b) = b.owe(response.velocity_b, on_supports);
    // Only the paid gravity's part: an approach that comes from the supports taking earned
    // velocity is a new contact, met as one (taking it here would make the other side follow
    // a held ball sliding along its support, from nothing)
    let pressing = (-(response.velocity_a - response.velocity_b).dot(n))
        .min(-(response.owed_a - response.owed_b).dot(n));
    if pressing > 0.0 {
        // A side that its supports hold does not yield (shock propagation, as in `hold`)
        let (ha, hb) = (
            if a.supports.hold(n) { 0.0 } else { wa },
            if b.supports.hold(-n) { 0.0 } else { wb },
        );
        let (wa, wb) = if ha + hb > 0.0 { (ha, hb) } else { (wa, wb) };
        let taken = pressing / (wa + wb);
        response.velocity_a += n * (taken * wa);
        response.owed_a += n * (taken * wa);
        response.velocity_b -= n * (taken * wb);
        response.owed_b -= n * (taken * wb);
    }
}

/// Return the velocity and spin of a ball landing on a static shape with normal `n` (towards
/// the ball), and the normal impulse: its approach along `n` is taken out, inelastically, and
/// the impact rubs with `friction` (see [`rub`]). A ball of `radius` and `inverse_mass` at
/// `velocity` and `spin`.
pub(crate) fn land(
    (velocity, spin): (Vec3, Vec3),
    (radius, inverse_mass): (Real, Real),
    n: Vec3,
    friction: Real,
) -> (Vec3, Vec3, Real) {
    let approach = (-velocity.dot(n)).max(0.0);
    let impulse = approach / inverse_mass;
    let ball = Body::ball((velocity, spin), (radius, inverse_mass));
    let mut response = Response {
        impulse,
        velocity_a: velocity + n * approach,
        velocity_b: Vec3::ZERO,
        spin_a: spin,
        spin_b: Vec3::ZERO,
        owed_a: Vec3::ZERO,
        owed_b: Vec3::ZERO,
        resting: true,
        a_rests_on_b: true,
        b_rests_on_a: false,
    };
    if friction > 0.0 {
        rub(&ball, &Body::SHAPE, n, friction * impulse, &mut response);
    }
    (response.velocity_a, response.spin_a, impulse)
}

/// Return the normal impulse that changed by `dv` the velocity of a body of `inverse_mass`
/// (zero for a static shape), along the contact normal `n`.
#[inline]
fn passed_on(dv: Vec3, inverse_mass: Real, n: Vec3) -> Real {
    if inverse_mass > 0.0 {
        dv.dot(n).abs() / inverse_mass
    } else {
        0.0
    }
}

/// Add the tangential impulse of an impact to `response`: Coulomb friction with sticking and
/// sliding, Walton's model with a tangential restitution of zero ("Oblique impacts of
/// inelastic, frictional spheres", 1993).
///
/// With the contact points `r_a = -R_a n` and `r_b = R_b n` from the centres, the slip is the
/// tangential part `u` of `(v_a + ω_a × r_a) - (v_b + ω_b × r_b)` before the impact, on the
/// earned velocities (see [`Body::owed`]). An
/// impulse `J` on `a` (and `-J` on `b`) perpendicular to `n` changes it by `k J`, with
/// `k = Σ (1/m + R²/I) = 7/2 Σ 1/m` for solid balls (a static side adds nothing). Sticking
/// needs `J = -u / k`; Coulomb allows at most `limit = μ J_n`, so beyond it the ball slides:
/// `J = -limit u / |u|`. Either takes energy away, never adds it.
fn rub(a: &Body, b: &Body, n: Vec3, limit: Real, response: &mut Response) {
    let (ra, rb) = (-n * a.radius, n * b.radius);
    let (va, vb) = (a.velocity - a.owed, b.velocity - b.owed);
    let (wa, wb) = (a.spin - a.owed_spin, b.spin - b.owed_spin);
    let slip = (va + wa.cross(ra)) - (vb + wb.cross(rb));
    let u = slip - n * slip.dot(n);
    let speed = u.length();
    let k = 3.5 * (a.inverse_mass + b.inverse_mass);
    if speed == 0.0 || k == 0.0 {
        return;
    }
    let stick = speed / k;
    let j = u * (-stick.min(limit) / speed);
    // A solid ball's inverse moment of inertia: 5 / (2 m R²)
    let turn = |body: &Body| {
        if body.inverse_mass > 0.0 {
            2.5 * body.inverse_mass / (body.radius * body.radius)
        } else {
            0.0
        }
    };
    response.velocity_a += j * a.inverse_mass;
    response.velocity_b -= j * b.inverse_mass;
    response.spin_a += ra.cross(j) * turn(a);
    response.spin_b += rb.cross(-j) * turn(b);
}

/// A resting contact with at least one side held: neither ball keeps moving into the other nor
/// into what it rests on. Energy only goes down; momentum goes into the supports.
///
/// With `friction`, the contact then rubs (see [`rub`]) up to `friction` times the normal
/// impulse it passed on: a ball lying on a rough shape is slowed by `μ g` for the rest of each
/// step, until it rolls (a per-step Coulomb solve: the rolling speed is exact, the moment it
/// starts to roll is found to within a step). A ball lying alone on a plane moves in closed
/// form instead where it can (see [`surface`](super::surface)).
fn hold(a: Body, b: Body, n: Vec3, (a_held, b_held): (bool, bool), friction: Real) -> Response {
    // Each ball stops moving into its supports and into the other, all constraints at once (on
    // its earned velocity: see `Body::owe`)
    let stop = |body: &Body, n: Vec3| body.supports.project(body.velocity - body.owed, n);
    let ea = stop(&a, n);
    let eb = if b.inverse_mass > 0.0 {
        stop(&b, -n)
    } else {
        b.velocity
    };
    // What friction turned into a ball's supports, touches or the other, they take (a ball
    // wedged between rough neighbours is otherwise rubbed from one into the next for ever).
    // A ball going straight after a kick owes all its gravity again, less what holds it up
    // (its supports, touches and the other) takes
    let owe = |body: &Body, n: Vec3, earned: Vec3| {
        let earned = body.supports.project(earned, n);
        body.owe(earned, |s: &Supports, v: Vec3| s.project(v, n))
    };
    let (left_a, left_b) = (owe(&a, n, ea), owe(&b, -n, eb));
    // What the contact passed on: the larger normal momentum change (supports take the rest)
    let impulse = passed_on(left_a.0 - a.velocity, a.inverse_mass, n).max(passed_on(
        left_b.0 - b.velocity,
        b.inverse_mass,
        n,
    ));
    let mut response = Response {
        impulse,
        velocity_a: ea,
        velocity_b: eb,
        spin_a: a.spin,
        spin_b: b.spin,
        owed_a: Vec3::ZERO,
        owed_b: Vec3::ZERO,
        resting: true,
        a_rests_on_b: b_held,
        b_rests_on_a: a_held,
    };
    if friction > 0.0 {
        let a = Body {
            velocity: ea,
            owed: Vec3::ZERO,
            ..a
        };
        let b = Body {
            velocity: eb,
            owed: Vec3::ZERO,
            ..b
        };
        rub(&a, &b, n, friction * impulse, &mut response);
    }
    // A ball rolling or spinning on a shape that holds it up
    if a.rolling > 0.0 && b.inverse_mass == 0.0 && a.inverse_mass > 0.0 {
        let slowing = a.rolling * impulse * a.inverse_mass;
        resist_rolling(&mut response, n, a.radius, slowing);
        resist_spinning(&mut response, n, a.radius, slowing);
    }
    // A velocity that friction and rolling resistance left as it was owes what it did above
    let again = |body: &Body, n: Vec3, velocity: Vec3, stopped: Vec3, left: (Vec3, Vec3)| {
        if velocity == stopped {
            left
        } else {
            owe(body, n, velocity)
        }
    };
    (response.velocity_a, response.owed_a) = again(&a, n, response.velocity_a, ea, left_a);
    if b.inverse_mass > 0.0 {
        (response.velocity_b, response.owed_b) = again(&b, -n, response.velocity_b, eb, left_b);
    }
    response
}

/// Slow the first body's spin about `n` (a ball of `radius` turning in place on what holds it
/// up) by up to `5/2 slowing / radius`: the torque of a rolling resistance that slows by
/// `slowing`, the same resistance about the normal as across it.
fn resist_spinning(response: &mut Response, n: Vec3, radius: Real, slowing: Real) {
    let w = response.spin_a;
    let about = w.dot(n);
    let less = (2.5 * slowing / radius).min(about.abs());
    response.spin_a = w - n * (less * about.signum());
}

/// Slow the first body of `response`, a ball of `radius` on a static shape with normal `n`, by
/// up to `slowing` along its motion, if it rolls there (its contact point does not slip); its
/// spin follows so that it still rolls, and keeps its part about `n`. Energy only goes down.
fn resist_rolling(response: &mut Response, n: Vec3, radius: Real, slowing: Real) {
    let (v, w) = (response.velocity_a, response.spin_a);
    let along = v - n * v.dot(n);
    let speed = along.length();
    let slip = v + w.cross(-n * radius);
    let slip = slip - n * slip.dot(n);
    if speed == 0.0 || slip.length() > 1e-9 * speed {
        return;
    }
    let kept = along * (1.0 - slowing.min(speed) / speed);
    response.velocity_a = v - along + kept;
    response.spin_a = n.cross(kept) / radius + n * w.dot(n);
}

#[cfg(test)]
mod tests;
