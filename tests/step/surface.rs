//! Motion on a surface in closed form: a ball lying on a rough plane slides, rolls and stands
//! on the paths worked out by hand, positions included, whatever the step and wherever in a
//! step its state changes.
//!
//! Covered: sliding to rolling on level floors facing y, z and an oblique normal, with and
//! without spin (the natural roll, stun, follow and draw shots: the change after
//! `2 |v0 + R ω0| / (7 μ g)`, ending at `(5 v0 - 2 R ω0)/7`), with steps of several lengths;
//! rolling resistance stopping a rolling ball after `v0² / (2 c g)`; rolling down a slope at
//! `5/7 g sin θ`, sliding down one too steep to roll on; a roll up a slope that stops and
//! comes back down; a roll across a slope on its parabola; rolling down a polygon ramp and
//! off its end, and off a level table's edge; an edit between steps starting the worked path
//! afresh; random rough planes, gravities, spins and steps where no ball sinks, gains energy
//! or meets events without end.

use crate::common::{assert_vec_close_named, position, spin_of, v3, velocity};
use crate::friction::{step_losing_energy, stepper};
use toibox::hecs::{Entity, World};
use toibox::sim::Friction;
use toibox::{BallDef, ConvexPolygon, Plane, Real, Vec3};

/// Relative tolerance of the worked paths.
const WORKED: Real = 1e-9;

#[track_caller]
fn close(actual: Vec3, expected: Vec3, what: &str) {
    assert_vec_close_named(actual, expected, WORKED, what);
}

/// A world with a rough plane through the origin facing `up`, and a ball of radius `r` on it
/// with velocity `v0`, spin `w0`, friction `mu` and rolling resistance `c`.
pub(crate) fn lying(
    up: Vec3,
    r: Real,
    (v0, w0): (Vec3, Vec3),
    (mu, c): (Real, Real),
) -> (World, Entity) {
    let mut world = World::new();
    world.spawn((Plane::new(Vec3::ZERO, up).unwrap(), Friction(mu)));
    let ball = BallDef::new(up * r, r)
        .velocity(v0)
        .spin(w0)
        .friction(mu)
        .rolling_resistance(c)
        .restitution(0.0)
        .spawn(&mut world);
    (world, ball)
}

/// [`lying`], rolling at `v0` without slipping.
fn rolling(up: Vec3, r: Real, v0: Vec3, (mu, c): (Real, Real)) -> (World, Entity) {
    lying(up, r, (v0, up.cross(v0) / r), (mu, c))
}

#[test]
fn a_ball_slides_then_rolls_on_its_worked_path() {
    // On a level floor (gravity g against the normal), a ball at v0 along a unit t with spin
    // w0 about n x t... taken as w0 (t x n) here, back-spin for w0 > 0: its contact point slips
    // at u0 = v0 + R w0 along t. Friction mu g against the slip: v = v0 - s mu g t (s the
    // slip's sign), the slip falls by 7/2 mu g a second and ends at tau = 2 |u0| / (7 mu g);
    // then it rolls on at v0 - s mu g tau = (5 v0 - 2 R w0) / 7 with spin v / R about n x t.
    // Positions: v0 t - s mu g t^2 / 2 until tau, then straight on
    let g = 9.81;
    let oblique = v3(1.0, 2.0, -0.5).normalize();
    let floors = [
        (Vec3::Y, Vec3::X),
        (Vec3::Z, v3(0.6, -0.8, 0.0)),
        (oblique, oblique.cross(Vec3::X).normalize()),
    ];
    // (radius, v0, w0, mu, dt)
    let shots = [
        (0.5, 3.0, 0.0, 0.2, 1.0 / 60.0),
        (0.03, 1.2, 0.0, 0.5, 0.0137),
        (2.0, 7.0, 0.0, 0.05, 0.05),
        (0.028, 2.0, 100.0, 0.2, 1.0 / 60.0),
        (0.028, 2.0, 200.0, 0.2, 0.011),
        (0.028, 2.0, -50.0, 0.2, 1.0 / 60.0),
        (0.028, 2.0, -150.0, 0.3, 0.007),
        (0.1, 1.0, -10.0, 0.3, 1.0 / 60.0),
    ];
    for (up, along) in floors {
        let turning = along.cross(up);
        for (r, v0, w0, mu, dt) in shots {
            let u0: Real = v0 + r * w0;
            let s = u0.signum();
            let tau = 2.0 * u0.abs() / (7.0 * mu * g);
            let end = v0 - s * mu * g * tau;
            let (mut world, ball) = lying(up, r, (along * v0, turning * w0), (mu, 0.0));
            let mut stepper = stepper(-up * g);
            let steps = (2.0 * tau / dt).ceil() as usize + 3;
            let what = format!("up {up}, r {r}, v0 {v0}, w0 {w0}, mu {mu}, dt {dt}");
            for k in 1..=steps {
                stepper.step(&mut world, dt).unwrap();
                let t = k as Real * dt;
                let (x, v, w) = if t <= tau {
                    let v = v0 - s * mu * g * t;
                    let w = w0 - s * 2.5 * mu * g / r * t;
                    (v0 * t - 0.5 * s * mu * g * t * t, v, w)
                } else {
                    let x = v0 * tau - 0.5 * s * mu * g * tau * tau + end * (t - tau);
                    (x, end, -end / r)
                };
                let what = format!("{what}, step {k} (t {t}, tau {tau})");
                close(position(&world, ball), up * r + along * x, &what);
                close(
                    velocity(&world, ball),
                    along * v,
                    &format!("{what}: velocity"),
                );
                close(
                    spin_of(&world, ball) * r,
                    turning * (w * r),
                    &format!("{what}: spin"),
                );
            }
        }
    }
}

#[test]
fn a_rolling_ball_stops_after_v0_squared_over_two_c_g() {
    // Rolling at v0 with rolling resistance c: slowed by c g, it stops at v0 / (c g) after
    // v0^2 / (2 c g), and stays there; then it sleeps
    let g = 9.81;
    for (r, v0, c, dt) in [(0.1, 1.0, 0.05, 1.0 / 60.0), (0.3, 2.5, 0.2, 0.013)] {
        let up = Vec3::Y;
        let along = v3(0.8, 0.0, -0.6);
        let (mut world, ball) = rolling(up, r, along * v0, (0.4, c));
        let mut stepper = stepper(-up * g);
        let stop = v0 / (c * g);
        for k in 1..=((stop / dt) as usize + 200) {
            stepper.step(&mut world, dt).unwrap();
            let t = (k as Real * dt).min(stop);
            let x = v0 * t - 0.5 * c * g * t * t;
            let what = format!("r {r}, v0 {v0}, c {c}, step {k}");
            close(position(&world, ball), up * r + along * x, &what);
            close(velocity(&world, ball), along * (v0 - c * g * t), &what);
        }
        assert!(world.get::<&toibox::Sleep>(ball).unwrap().asleep());
    }
}

/// A plane through the origin tilted by `theta` about z (rising along -x), the unit direction
/// down it, and the part of gravity `g` (along -y) down it and into it.
fn slope(theta: Real) -> (Vec3, Vec3, Real, Real) {
    let normal = v3(-theta.sin(), theta.cos(), 0.0);
    let down = v3(theta.cos(), theta.sin(), 0.0) * -1.0;
    let down = if down.y < 0.0 { down } else { -down };
    (normal, down, 9.81 * theta.sin(), 9.81 * theta.cos())
}

#[test]
fn a_ball_rolls_down_a_slope_at_five_sevenths_of_g_sin_theta() {
    // Released at rest: where 2/7 tan theta <= mu it rolls, at 5/7 g sin theta; on a steeper
    // slope it slides, at g sin theta - mu g cos theta, turning at 5 mu g cos theta / (2 R)
    for (theta, mu, dt) in [
        (0.3, 0.5, 1.0 / 60.0),
        (0.1, 0.2, 0.009),
        (1.0, 0.1, 1.0 / 60.0),
    ] {
        let (normal, down, g_t, g_n) = slope(theta);
        let r = 0.2;
        let (mut world, ball) = lying(normal, r, (Vec3::ZERO, Vec3::ZERO), (mu, 0.0));
        let mut stepper = stepper(v3(0.0, -9.81, 0.0));
        let rolls = 2.0 / 7.0 * theta.tan() <= mu;
        let a = if rolls {
            5.0 / 7.0 * g_t
        } else {
            g_t - mu * g_n
        };
        for k in 1..=120 {
            stepper.step(&mut world, dt).unwrap();
            let t = k as Real * dt;
            let what = format!("theta {theta}, mu {mu}, step {k}");
            close(
                position(&world, ball),
                normal * r + down * (0.5 * a * t * t),
                &what,
            );
            close(velocity(&world, ball), down * (a * t), &what);
            let w = if rolls {
                a * t / r
            } else {
                2.5 * mu * g_n / r * t
            };
            close(
                spin_of(&world, ball) * r,
                normal.cross(down) * (w * r),
                &what,
            );
        }
    }
}

#[test]
fn a_ball_rolled_up_a_slope_stops_and_comes_back() {
    // Rolling up at v0: slowed by 5/7 g sin theta, it stops at 7 v0 / (5 g sin theta) and
    // rolls back down; its velocity is v0 - 5/7 g sin theta t all the way
    let (theta, r, v0, dt) = (0.2, 0.1, 1.5, 1.0 / 60.0);
    let (normal, down, g_t, _) = slope(theta);
    let up_slope = -down;
    let (mut world, ball) = rolling(normal, r, up_slope * v0, (0.4, 0.0));
    let mut stepper = stepper(v3(0.0, -9.81, 0.0));
    let a = 5.0 / 7.0 * g_t;
    for k in 1..=150 {
        stepper.step(&mut world, dt).unwrap();
        let t = k as Real * dt;
        let what = format!("step {k}");
        close(
            position(&world, ball),
            normal * r + up_slope * (v0 * t - 0.5 * a * t * t),
            &what,
        );
        close(velocity(&world, ball), up_slope * (v0 - a * t), &what);
    }
    assert!(velocity(&world, ball).dot(down) > 0.0, "never came back");
}

/// A world with a rough rectangle from `corner` along `down` for `length` and `width` across,
/// a ball of radius `r` lying on its face `start` along from the corner's edge, at `v0`.
fn on_a_ramp(
    (corner, down, across): (Vec3, Vec3, Vec3),
    (length, width): (Real, Real),
    (r, start, v0): (Real, Real, Vec3),
    mu: Real,
) -> (World, Entity, Vec3) {
    let mut world = World::new();
    let half = across * (0.5 * width);
    let ramp = ConvexPolygon::new(vec![
        corner - half,
        corner + down * length - half,
        corner + down * length + half,
        corner + half,
    ])
    .unwrap();
    let normal = ramp.normal();
    let up = if normal.y > 0.0 { normal } else { -normal };
    world.spawn((ramp, Friction(mu)));
    let ball = BallDef::new(corner + down * start + up * r, r)
        .velocity(v0)
        .spin(up.cross(v0) / r)
        .friction(mu)
        .restitution(0.0)
        .spawn(&mut world);
    (world, ball, up)
}

#[test]
fn a_ball_rolls_down_a_polygon_ramp_and_falls_off_its_end() {
    // On a polygon's face as on a plane: rolling from rest at 5/7 g sin theta along the ramp
    // until its centre passes the lower edge; then nothing holds it up there and it falls
    // below the ramp's plane. Also on a level table, rolling off its edge
    let g = 9.81;
    for (theta, dt) in [(0.3_f64, 1.0 / 60.0), (0.0, 0.011)] {
        let down = v3(theta.cos(), -theta.sin(), 0.0);
        let (length, start, r) = (2.0, 0.3, 0.05);
        let v0 = if theta == 0.0 { down * 1.5 } else { Vec3::ZERO };
        let (mut world, ball, up) = on_a_ramp(
            (v3(-1.0, 1.0, 0.0), down, Vec3::Z),
            (length, 1.0),
            (r, start, v0),
            0.4,
        );
        let mut stepper = stepper(v3(0.0, -g, 0.0));
        let a = 5.0 / 7.0 * g * theta.sin();
        let speed = v0.length();
        // Its centre passes the edge when start + speed t + a t^2 / 2 = length
        let edge = if a > 0.0 {
            ((speed * speed + 2.0 * a * (length - start)).sqrt() - speed) / a
        } else {
            (length - start) / speed
        };
        let origin = position(&world, ball);
        let mut fell = false;
        for k in 1..=((edge + 0.5) / dt) as usize {
            stepper.step(&mut world, dt).unwrap();
            let t = k as Real * dt;
            let p = position(&world, ball);
            let what = format!("theta {theta}, step {k} (t {t}, edge at {edge})");
            if t < edge {
                close(p, origin + down * (speed * t + 0.5 * a * t * t), &what);
                close(velocity(&world, ball), down * (speed + a * t), &what);
            }
            // Below where lying on the ramp's plane would hold it
            fell |= (p - origin).dot(up) < -0.01;
        }
        assert!(
            fell,
            "theta {theta}: still level with the ramp after its end"
        );
    }
}

#[test]
fn balls_lying_on_random_rough_planes_never_sink_nor_gain_energy() {
    // Random planes facing up or slanted, gravity straight down or tilted, balls at random
    // velocities along or across the slope with random spins, friction, rolling resistance and
    // steps from 1 ms to 0.2 s: every step ends with the ball on or above the plane, no energy
    // gained (kinetic, rotational and potential) and in a bounded number of events
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;
    let mut rng = Pcg64::seed_from_u64(21);
    let unit = |rng: &mut Pcg64| {
        v3(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        )
        .normalize()
    };
    for case in 0..300 {
        let gravity = if case % 3 == 0 {
            unit(&mut rng) * 9.81
        } else {
            v3(0.0, -9.81, 0.0)
        };
        let mut up = unit(&mut rng);
        if up.dot(gravity) > -0.3 * 9.81 {
            up = -gravity.normalize();
        }
        let r = rng.random_range(0.01..1.0);
        let along = unit(&mut rng).cross(up).normalize();
        let v0 = along * rng.random_range(0.0..5.0);
        let w0 = unit(&mut rng) * rng.random_range(0.0..40.0);
        let mu = rng.random_range(0.05..1.0);
        let c = if rng.random_bool(0.5) {
            rng.random_range(0.0..0.2)
        } else {
            0.0
        };
        let dt = rng.random_range(0.001..0.2);
        let (mut world, ball) = lying(up, r, (v0, w0), (mu, c));
        let mut stepper = stepper(gravity);
        for k in 0..100 {
            let what = format!("case {case}, step {k}");
            let events = step_losing_energy(&mut stepper, &mut world, gravity, dt, &what);
            assert!(events < 100, "{what}: {events} contacts");
            let height = position(&world, ball).dot(up);
            assert!(height >= r - 1e-9 * (1.0 + r), "{what}: sank to {height}");
        }
    }
}

#[test]
fn a_ball_rolled_across_a_slope_curves_down_it_on_a_parabola() {
    // Rolling across a slope without rolling resistance: 5/7 g sin theta down it, the speed
    // across kept, so x = x0 + v0 t + 5/14 g_t t^2, the spin following (v / R about n x v)
    let (theta, r, v0, dt) = (0.25, 0.07, 1.3, 0.013);
    let (normal, down, g_t, _) = slope(theta);
    let across = Vec3::Z;
    let (mut world, ball) = rolling(normal, r, across * v0, (0.6, 0.0));
    let mut stepper = stepper(v3(0.0, -9.81, 0.0));
    let a = 5.0 / 7.0 * g_t;
    for k in 1..=100 {
        stepper.step(&mut world, dt).unwrap();
        let t = k as Real * dt;
        let what = format!("step {k}");
        let v = across * v0 + down * (a * t);
        close(
            position(&world, ball),
            normal * r + across * (v0 * t) + down * (0.5 * a * t * t),
            &what,
        );
        close(velocity(&world, ball), v, &what);
        close(spin_of(&world, ball) * r, normal.cross(v), &what);
    }
}

#[test]
fn an_edit_between_steps_starts_the_worked_path_afresh() {
    // Sliding along x; after 5 steps the ball is sent back along -x without spin: from there
    // it follows the worked slide again, nothing of the old motion kept
    let (r, mu, g, dt) = (0.1, 0.3, 9.81, 0.02);
    let (mut world, ball) = lying(Vec3::Y, r, (v3(2.0, 0.0, 0.0), Vec3::ZERO), (mu, 0.0));
    let mut stepper = stepper(v3(0.0, -g, 0.0));
    for _ in 0..5 {
        stepper.step(&mut world, dt).unwrap();
    }
    let start = position(&world, ball);
    let v0 = -1.5;
    world
        .insert(
            ball,
            (
                toibox::Velocity(v3(v0, 0.0, 0.0)),
                toibox::AngularVelocity(Vec3::ZERO),
            ),
        )
        .unwrap();
    let tau = 2.0 * v0.abs() / (7.0 * mu * g);
    for k in 1..=7 {
        stepper.step(&mut world, dt).unwrap();
        let t = k as Real * dt;
        assert!(t < tau);
        let x = v0 * t + 0.5 * mu * g * t * t;
        close(
            position(&world, ball),
            start + v3(x, 0.0, 0.0),
            &format!("step {k}"),
        );
        close(
            velocity(&world, ball),
            v3(v0 + mu * g * t, 0.0, 0.0),
            &format!("step {k}"),
        );
    }
}
