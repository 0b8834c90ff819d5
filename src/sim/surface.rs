//! Motion on a surface in closed form: a ball lying on a plane, pressed on by gravity, slides,
//! rolls or stands there on a parabola in the plane, its spin changing at a constant rate, until
//! its next change of state (the event-based scheme of Leckie and Greenspan, "An event-based
//! pool physics simulator", Advances in Computer Games 2006).
//!
//! With the plane's unit normal `n`, gravity's parts `g_n = -g·n > 0` into the plane and
//! `g_t = g + g_n n` along it, a ball of radius `R` with friction `μ` on the plane and rolling
//! resistance `c`:
//! - **sliding**: its contact point slips at `u = v - R ω × n`. Friction `μ m g_n` against the
//!   slip gives `a = g_t - μ g_n û` and `α = 5 μ g_n / (2 R) n × û`, so `u̇ = g_t - 7/2 μ g_n û`.
//!   Closed form while `g_t` lies along `û` (a level plane, or a slip straight up or down a
//!   slope); the slip ends after `|u| / (7/2 μ g_n - g_t·û)`, `2 |u| / (7 μ g_n)` on the level.
//! - **rolling** (no slip, possible while `2/7 |g_t| <= μ g_n`): `a = 5/7 g_t - c g_n v̂`, the
//!   spin following (`α = n × a / R`). Closed form without rolling resistance (a parabola
//!   across a slope too), on the level, or while `g_t` lies along `v`; the speed runs out after
//!   `|v| / (-a·v̂)` where `a` opposes `v` along it. A slide has a closed form only where the
//!   roll after it has one too.
//! - **standing** (`v = 0`): held where rolling resistance holds it (`5/7 |g_t| <= c g_n`),
//!   rolling down the slope otherwise (sliding down where it is too steep to roll).
//! - **frictionless** (`μ = 0`): `a = g_t` whatever the slip, and the spin never changes.
//! - In each, the spin about the normal loses `5/2 c g_n / R` a second until it stops (the same
//!   resistance about the normal as across it).
//!
//! Energy only goes down: sliding dissipates `μ m g_n |u|` a second, rolling `7/5 c m g_n |v|`.
//! Where the slip runs across a slope, or the motion of a ball with rolling resistance does,
//! its direction turns and the path has no closed form: [`plan`] says so, and the stepper
//! holds the ball step by step instead.

use crate::math::{Real, Vec3};

/// A plane a ball lies on, as its motion there sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Surface {
    /// The plane's unit normal, towards the ball.
    pub normal: Vec3,
    /// Gravity (must press into the plane: `gravity·normal < 0`).
    pub gravity: Vec3,
    /// The coefficient of friction of the ball on the plane (0 or above).
    pub friction: Real,
    /// The ball's rolling resistance (0 or above).
    pub rolling_resistance: Real,
    /// The ball's radius.
    pub radius: Real,
}

/// What ends a state of motion on a surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// The slip runs out: the ball rolls.
    Rolls,
    /// The speed runs out: the ball stands (and may roll back down a slope).
    Stops,
    /// The spin about the normal runs out.
    StopsTurning,
}

/// A ball's motion on a surface, from its start until its next change of state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SurfaceMotion {
    /// The velocity it starts with, along the plane.
    pub velocity: Vec3,
    /// The spin it starts with.
    pub spin: Vec3,
    /// Its constant acceleration, along the plane.
    pub acceleration: Vec3,
    /// The constant rate its spin changes at.
    pub spin_rate: Vec3,
    /// Its next change of state and how long after the start it comes; `None` when it goes on
    /// for ever.
    pub next: Option<(Real, Change)>,
}

/// How far the slip or the speed may be from zero, relative to the speeds, and still count as
/// zero: a rounding of the motions that end it.
const SPEED_ROUNDING: Real = 1e-9;

/// How far gravity along the plane may be from a direction, relative to gravity, and still
/// count as along it.
const ALONG: Real = 1e-12;

/// Return the motion of a ball with velocity `velocity` and spin `spin` on `surface` until its
/// next change of state, or `None` where it has no closed form (a slip or a motion across a
/// slope).
///
/// The velocity's part along the normal is dropped. A slip within a rounding of zero is taken
/// out by a sticking impulse at the contact, which keeps the angular momentum about it and
/// takes energy away. A ball stands only at a speed of exactly zero (what [`after`] leaves
/// when the speed runs out); a slide whose slip and speed run out together on a slope, with
/// rolling resistance, may end where the roll has no closed form, and the stepper then holds
/// the ball step by step.
#[must_use]
pub(crate) fn plan(velocity: Vec3, spin: Vec3, surface: &Surface) -> Option<SurfaceMotion> {
    let Surface {
        normal: n,
        gravity,
        friction: mu,
        rolling_resistance: c,
        radius: r,
    } = *surface;
    let g_n = -gravity.dot(n);
    debug_assert!(g_n > 0.0 && mu >= 0.0 && r > 0.0);
    let g_t = along_slope(gravity, n, g_n);
    let v = velocity - n * velocity.dot(n);
    if mu == 0.0 {
        return Some(glide(v, spin, g_t));
    }
    let slip = slip(v, spin, n, r);
    let scale = v.length() + r * (spin - n * spin.dot(n)).length();
    let (spin_rate, turning) = wind_down(spin, surface, g_n);
    let sliding = |v: Vec3, spin: Vec3, along: Vec3, ends: Option<Real>| SurfaceMotion {
        velocity: v,
        spin,
        acceleration: g_t - along * (mu * g_n),
        spin_rate: n.cross(along) * (2.5 * mu * g_n / r) + spin_rate,
        next: earliest(ends.map(|t| (t, Change::Rolls)), turning),
    };

    // Rolling in closed form at `v`: on the level, without rolling resistance, or along the
    // slope (or too slow to tell)
    let rolls = |v: Vec3| {
        c == 0.0 || v.length() <= SPEED_ROUNDING * scale || lies_along(g_t, v.normalize(), gravity)
    };

    // Sliding, and rolling after it in closed form too
    if slip.length() > SPEED_ROUNDING * scale {
        let along = slip.normalize();
        if !lies_along(g_t, along, gravity) {
            return None;
        }
        let rate = 3.5 * mu * g_n - g_t.dot(along);
        let ends = (rate > 0.0).then(|| slip.length() / rate);
        let motion = sliding(v, spin, along, ends);
        if ends.is_some_and(|t| !rolls(v + motion.acceleration * t)) {
            return None;
        }
        return Some(motion);
    }
    let (v, spin) = stick(v, spin, n, r);
    // Too steep to roll: it slides down, its slip growing
    if 2.0 / 7.0 * g_t.length() > mu * g_n {
        return Some(sliding(v, spin, g_t.normalize(), None));
    }
    let speed = v.length();
    let rolling = |v: Vec3, spin: Vec3, acceleration: Vec3, ends: Option<Real>| SurfaceMotion {
        velocity: v,
        spin,
        acceleration,
        spin_rate: n.cross(acceleration) / r + spin_rate,
        next: earliest(ends.map(|t| (t, Change::Stops)), turning),
    };
    // Standing: held by rolling resistance, or rolling down the slope
    if speed == 0.0 {
        let down = 5.0 / 7.0 * g_t.length() - c * g_n;
        let acceleration = (down > 0.0).then(|| g_t.normalize() * down);
        let acceleration = acceleration.unwrap_or(Vec3::ZERO);
        return Some(rolling(Vec3::ZERO, spin.dot(n) * n, acceleration, None));
    }
    // Rolling: it stops only where its acceleration lies along its motion
    let along = v / speed;
    if !rolls(v) {
        return None;
    }
    let acceleration = g_t * (5.0 / 7.0) - along * (c * g_n);
    let slowing = -acceleration.dot(along);
    let straight = lies_along(acceleration, along, gravity);
    let ends = (straight && slowing > 0.0).then(|| speed / slowing);
    Some(rolling(v, spin, acceleration, ends))
}

/// Return the motion of a ball on a frictionless surface at `velocity` along it with `spin`,
/// `g_t` the part of gravity along it: nothing but gravity acts along the plane, whatever the
/// slip, and nothing turns the ball.
fn glide(velocity: Vec3, spin: Vec3, g_t: Vec3) -> SurfaceMotion {
    SurfaceMotion {
        velocity,
        spin,
        acceleration: g_t,
        spin_rate: Vec3::ZERO,
        next: None,
    }
}

/// True when `gravity` has a part along a plane of unit normal `n` beyond [`ALONG`] of it: the
/// plane is a slope.
#[must_use]
pub(crate) fn slopes(gravity: Vec3, n: Vec3) -> bool {
    (gravity - n * gravity.dot(n)).length() > ALONG * gravity.length()
}

/// Return the part of `gravity` along a surface of normal `n` that gravity presses into with
/// `g_n`: zero where it is within [`ALONG`] of none.
fn along_slope(gravity: Vec3, n: Vec3, g_n: Real) -> Vec3 {
    let g_t = gravity + n * g_n;
    if g_t.length() <= ALONG * gravity.length() {
        Vec3::ZERO
    } else {
        g_t
    }
}

/// Return the velocity and spin of a ball after the change of state `change` on `surface`:
/// the slip, the speed (with the spin across the normal that rolled it) or the spin about the
/// normal set to zero, where the closed form has brought it to a rounding of zero. Energy only
/// goes down.
#[must_use]
pub(crate) fn after(change: Change, velocity: Vec3, spin: Vec3, surface: &Surface) -> (Vec3, Vec3) {
    let n = surface.normal;
    match change {
        Change::Rolls => stick(velocity, spin, n, surface.radius),
        Change::Stops => (Vec3::ZERO, n * spin.dot(n)),
        Change::StopsTurning => (velocity, spin - n * spin.dot(n)),
    }
}

/// The slip of the contact point of a ball of radius `r` at `velocity` and `spin` on a plane
/// with normal `n`, along the plane.
#[inline]
fn slip(velocity: Vec3, spin: Vec3, n: Vec3, r: Real) -> Vec3 {
    let u = velocity + spin.cross(-n * r);
    u - n * u.dot(n)
}

/// Return `velocity` and `spin` after the impulse at the contact that stops its slip: `-m u / k`
/// with `k = 7/2`, so `v -= 2/7 u` and `ω += 5/(7 R) n × u`. It keeps the angular momentum about
/// the contact point and takes energy away.
fn stick(velocity: Vec3, spin: Vec3, n: Vec3, r: Real) -> (Vec3, Vec3) {
    let u = slip(velocity, spin, n, r);
    (
        velocity - u * (2.0 / 7.0),
        spin + n.cross(u) * (5.0 / (7.0 * r)),
    )
}

/// True when `x` lies along the unit vector `along` (either way) or is zero, to a rounding of
/// `gravity`.
#[inline]
fn lies_along(x: Vec3, along: Vec3, gravity: Vec3) -> bool {
    (x - along * x.dot(along)).length() <= ALONG * gravity.length()
}

/// The rate at which the spin about the normal winds down, and when it stops; none where it
/// is zero to a rounding of the spin (what a change that stopped it leaves on a slanted
/// plane).
fn wind_down(spin: Vec3, surface: &Surface, g_n: Real) -> (Vec3, Option<(Real, Change)>) {
    let n = surface.normal;
    let about = spin.dot(n);
    let rate = 2.5 * surface.rolling_resistance * g_n / surface.radius;
    // Stopped, to a rounding of the spin
    if about.abs() <= SPEED_ROUNDING * spin.length() || rate == 0.0 {
        return (Vec3::ZERO, None);
    }
    (
        n * (-rate * about.signum()),
        Some((about.abs() / rate, Change::StopsTurning)),
    )
}

/// The earlier of two changes.
fn earliest(a: Option<(Real, Change)>, b: Option<(Real, Change)>) -> Option<(Real, Change)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.0 < x.0 { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests;
