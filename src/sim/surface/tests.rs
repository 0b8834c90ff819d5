use super::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn unit(rng: &mut Pcg64) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if v.length() > 0.1 && v.length() < 1.0 {
            return v.normalize();
        }
    }
}

fn level(mu: Real, c: Real, r: Real) -> Surface {
    Surface {
        normal: Vec3::Y,
        gravity: Vec3::new(0.0, -9.81, 0.0),
        friction: mu,
        rolling_resistance: c,
        radius: r,
    }
}

#[test]
fn a_slide_on_the_level_ends_after_two_sevenths_at_five_sevenths() {
    // v0 along x, no spin: a = -mu g x, alpha = 5 mu g / (2 R) (y cross x); the slip
    // v0 - 7/2 mu g t ends at t = 2 v0 / (7 mu g), with v = 5/7 v0 and spin -5/7 v0 / R about z
    let (mu, r, v0, g) = (0.2, 0.3, 2.5, 9.81);
    let m = plan(Vec3::new(v0, 0.0, 0.0), Vec3::ZERO, &level(mu, 0.0, r)).unwrap();
    assert_eq!(m.acceleration, Vec3::new(-mu * g, 0.0, 0.0));
    let (t, change) = m.next.unwrap();
    assert_eq!(change, Change::Rolls);
    assert!((t - 2.0 * v0 / (7.0 * mu * g)).abs() < 1e-15, "{t}");
    let v = m.velocity + m.acceleration * t;
    let w = m.spin + m.spin_rate * t;
    assert!((v.x - 5.0 / 7.0 * v0).abs() < 1e-14, "{v}");
    assert!((w.z + 5.0 / 7.0 * v0 / r).abs() < 1e-13, "{w}");
    // Then it rolls on for ever without rolling resistance
    let (v, w) = after(change, v, w, &level(mu, 0.0, r));
    let rolling = plan(v, w, &level(mu, 0.0, r)).unwrap();
    assert_eq!(rolling.acceleration, Vec3::ZERO);
    assert_eq!(rolling.next, None);
}

#[test]
fn a_roll_with_resistance_stops_after_v_over_c_g() {
    let (c, r, v0, g) = (0.05, 0.1, 1.5, 9.81);
    let s = level(0.4, c, r);
    let m = plan(Vec3::new(0.0, 0.0, v0), Vec3::new(v0 / r, 0.0, 0.0), &s).unwrap();
    assert!((m.acceleration - Vec3::new(0.0, 0.0, -c * g)).length() < 1e-15);
    let (t, change) = m.next.unwrap();
    assert_eq!(change, Change::Stops);
    assert!((t - v0 / (c * g)).abs() < 1e-12, "{t}");
    let (v, w) = after(
        change,
        m.velocity + m.acceleration * t,
        m.spin + m.spin_rate * t,
        &s,
    );
    assert_eq!((v, w), (Vec3::ZERO, Vec3::ZERO));
    let still = plan(v, w, &s).unwrap();
    assert_eq!(
        (still.acceleration, still.spin_rate, still.next),
        (Vec3::ZERO, Vec3::ZERO, None)
    );
}

#[test]
fn on_a_slope_a_ball_rolls_down_at_five_sevenths_of_g_sin_theta_or_slides_when_too_steep() {
    for (theta, mu) in [(0.3, 0.5), (0.3, 0.05), (1.2, 0.2)] {
        let normal = Vec3::new(-Real::sin(theta), Real::cos(theta), 0.0);
        let s = Surface {
            normal,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            friction: mu,
            rolling_resistance: 0.0,
            radius: 0.2,
        };
        let m = plan(Vec3::ZERO, Vec3::ZERO, &s).unwrap();
        let down = Vec3::new(Real::cos(theta), Real::sin(theta), 0.0);
        let g_t = 9.81 * theta.sin();
        let expected = if 2.0 / 7.0 * theta.tan() <= mu {
            5.0 / 7.0 * g_t
        } else {
            g_t - mu * 9.81 * theta.cos()
        };
        assert!(
            (m.acceleration + down * expected).length() < 1e-12,
            "theta {theta}, mu {mu}: {}",
            m.acceleration
        );
        assert_eq!(m.next, None);
    }
}

#[test]
fn across_a_slope_a_slip_has_no_closed_form_nor_a_roll_with_resistance() {
    // Across a slope: the slip turns, and so does a motion slowed by rolling resistance; a
    // roll without it is a parabola (5/7 g_t), rolling on for ever
    let normal = Vec3::new(-0.3_f64.sin(), 0.3_f64.cos(), 0.0);
    let across = Vec3::Z;
    let surface = |c: Real| Surface {
        normal,
        gravity: Vec3::new(0.0, -9.81, 0.0),
        friction: 0.5,
        rolling_resistance: c,
        radius: 0.2,
    };
    let rolling = normal.cross(across) / 0.2;
    assert!(plan(across, Vec3::ZERO, &surface(0.0)).is_none());
    assert!(plan(across, rolling, &surface(0.1)).is_none());
    let m = plan(across, rolling, &surface(0.0)).unwrap();
    let g_t = Vec3::new(0.0, -9.81, 0.0) + normal * (9.81 * 0.3_f64.cos());
    assert!(
        (m.acceleration - g_t * (5.0 / 7.0)).length() < 1e-14,
        "{}",
        m.acceleration
    );
    assert_eq!(m.next, None);
}

/// Kinetic, rotational and potential energy of a ball of unit mass and radius `r`.
fn energy(x: Vec3, v: Vec3, w: Vec3, r: Real, g: Vec3) -> Real {
    0.5 * v.length_squared() + 0.2 * r * r * w.length_squared() - g.dot(x)
}

#[test]
fn energy_never_rises_along_a_motion_nor_at_a_change() {
    // Random planes, gravities, velocities, spins and coefficients: along each motion the
    // energy at 16 points up to its end never rises, nor does a change of state
    let mut rng = Pcg64::seed_from_u64(5);
    let mut planned = 0;
    for case in 0..4000 {
        let normal = unit(&mut rng);
        let gravity = if case % 2 == 0 {
            -normal * rng.random_range(1.0..20.0)
        } else {
            let g = unit(&mut rng) * rng.random_range(1.0..20.0);
            if g.dot(normal) >= -0.1 {
                continue;
            }
            g
        };
        let s = Surface {
            normal,
            gravity,
            friction: rng.random_range(0.01..1.0),
            rolling_resistance: if rng.random_bool(0.5) {
                rng.random_range(0.0..0.3)
            } else {
                0.0
            },
            radius: rng.random_range(0.01..2.0),
        };
        let mut v = unit(&mut rng) * rng.random_range(0.0..5.0);
        let mut w = unit(&mut rng) * rng.random_range(0.0..20.0);
        if rng.random_bool(0.3) {
            // Rolling already, or spinning about the normal only
            w = normal.cross(v) / s.radius + normal * w.dot(normal);
        }
        let mut x = Vec3::ZERO;
        let mut before = energy(x, v - normal * v.dot(normal), w, s.radius, gravity);
        for _ in 0..4 {
            let Some(m) = plan(v, w, &s) else { break };
            planned += 1;
            let start = energy(x, m.velocity, m.spin, s.radius, gravity);
            assert!(
                start <= before + 1e-12 * before.abs().max(1.0),
                "case {case}: planned up"
            );
            let end = m.next.map_or(3.0, |(t, _)| t.min(3.0));
            let mut last = start;
            for k in 1..=16 {
                let t = end * k as Real / 16.0;
                let e = energy(
                    x + m.velocity * t + m.acceleration * (0.5 * t * t),
                    m.velocity + m.acceleration * t,
                    m.spin + m.spin_rate * t,
                    s.radius,
                    gravity,
                );
                assert!(
                    e <= last + 1e-11 * last.abs().max(1.0),
                    "case {case}: {last} to {e}"
                );
                last = e;
            }
            let Some((t, change)) = m.next else { break };
            x += m.velocity * t + m.acceleration * (0.5 * t * t);
            (v, w) = after(
                change,
                m.velocity + m.acceleration * t,
                m.spin + m.spin_rate * t,
                &s,
            );
            before = last;
        }
    }
    assert!(planned > 2000, "{planned}");
}

#[test]
fn a_stick_keeps_the_angular_momentum_about_the_contact() {
    let mut rng = Pcg64::seed_from_u64(9);
    for _ in 0..500 {
        let n = unit(&mut rng);
        let r = rng.random_range(0.1..3.0);
        let (v, w) = (unit(&mut rng) * 2.0, unit(&mut rng) * 3.0);
        let v = v - n * v.dot(n);
        let (v2, w2) = stick(v, w, n, r);
        // Unit mass: L = (R n) x v + 2/5 R^2 w about the contact point
        let l = |v: Vec3, w: Vec3| (n * r).cross(v) + w * (0.4 * r * r);
        assert!((l(v, w) - l(v2, w2)).length() < 1e-12 * (1.0 + l(v, w).length()));
        assert!(slip(v2, w2, n, r).length() < 1e-12 * (1.0 + v.length() + r * w.length()));
    }
}

#[test]
fn a_stopped_spin_on_a_slanted_plane_stays_stopped() {
    // Rolling down a slanted plane with rolling resistance and a spin about the normal: once
    // that spin has run out, no change of state comes due again at once (rounding left the
    // spin a hair off the plane, which wound down anew in an endless run of changes)
    let mut rng = Pcg64::seed_from_u64(13);
    for case in 0..500 {
        let normal = unit(&mut rng);
        let s = Surface {
            normal,
            gravity: -normal * 9.81 + unit(&mut rng).cross(normal) * 2.0,
            friction: 0.9,
            rolling_resistance: 0.05,
            radius: rng.random_range(0.01..1.0),
        };
        let mut v = Vec3::ZERO;
        let mut w = normal * rng.random_range(-30.0..30.0);
        let mut changes = 0;
        while let Some(m) = plan(v, w, &s) {
            let Some((t, change)) = m.next else { break };
            (v, w) = after(
                change,
                m.velocity + m.acceleration * t,
                m.spin + m.spin_rate * t,
                &s,
            );
            changes += 1;
            assert!(changes < 4, "case {case}: {change:?} after {t} again");
        }
    }
}
