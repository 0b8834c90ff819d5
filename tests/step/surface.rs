//! Motion on a surface in closed form: a ball lying on a rough plane slides, rolls and stands
//! on the paths worked out by hand, positions included, whatever the step and wherever in a
//! step its state changes.
//!
//! Covered: sliding to rolling on level floors facing y, z and an oblique normal, with and
//! without spin (the natural roll, stun, follow and draw shots: the change after
//! `2 |v0 + R ω0| / (7 μ g)`, ending at `(5 v0 - 2 R ω0)/7`), with steps of several lengths;
//! rolling resistance stopping a rolling ball after `v0² / (2 c g)`; rolling down a slope at
//! `5/7 g sin θ`, sliding down one too steep to roll on; a roll up a slope that stops and
//! comes back down.

use crate::common::{assert_vec_close_named, position, spin_of, v3, velocity};
use toibox::hecs::{Entity, World};
use toibox::sim::Friction;
use toibox::{BallDef, Plane, Real, StepConfig, Stepper, Vec3};

/// Relative tolerance of the worked paths.
const WORKED: Real = 1e-9;

#[track_caller]
fn close(actual: Vec3, expected: Vec3, what: &str) {
    assert_vec_close_named(actual, expected, WORKED, what);
}

/// A world with a rough plane through the origin facing `up`, and a ball of radius `r` on it
/// with velocity `v0`, spin `w0`, friction `mu` and rolling resistance `c`.
fn lying(up: Vec3, r: Real, (v0, w0): (Vec3, Vec3), (mu, c): (Real, Real)) -> (World, Entity) {
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

fn stepper(gravity: Vec3) -> Stepper {
    Stepper::new(StepConfig {
        gravity,
        ..StepConfig::default()
    })
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
        let (mut world, ball) = lying(up, r, (along * v0, up.cross(along) * (v0 / r)), (0.4, c));
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
    let (mut world, ball) = lying(
        normal,
        r,
        (up_slope * v0, normal.cross(up_slope) * (v0 / r)),
        (0.4, 0.0),
    );
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
