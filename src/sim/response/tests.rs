//! The response's rules against worked values, and the faults they mend.

use super::*;

fn body(velocity: Vec3, inverse_mass: Real) -> Body {
    Body::ball((velocity, Vec3::ZERO), (1.0, inverse_mass))
}

#[test]
fn head_on_unequal_masses_match_the_closed_form() {
    // m1 = 1 at +3, m2 = 2 at -1, elastic: v1' = ((m1-m2)v1 + 2 m2 v2)/(m1+m2) = (-3-4)/3,
    // v2' = ((m2-m1)v2 + 2 m1 v1)/(m1+m2) = (-1+6)/3. Normal from b to a is -x.
    let r = resolve(
        body(Vec3::new(3.0, 0.0, 0.0), 1.0),
        body(Vec3::new(-1.0, 0.0, 0.0), 0.5),
        -Vec3::X,
        (1.0, 0.0),
        0.0,
        false,
    )
    .unwrap();
    assert!((r.velocity_a.x - (-7.0 / 3.0)).abs() < 1e-15);
    assert!((r.velocity_b.x - 5.0 / 3.0).abs() < 1e-15);
    // J = (1+e) * 4 / (1 + 0.5) = 16/3
    assert!((r.impulse - 16.0 / 3.0).abs() < 1e-15);
}

#[test]
fn static_reflection_keeps_the_tangential_part() {
    let r = resolve(
        body(Vec3::new(2.0, -3.0, 0.0), 0.25),
        body(Vec3::ZERO, 0.0),
        Vec3::Y,
        (1.0, 0.0),
        0.0,
        false,
    )
    .unwrap();
    assert_eq!(r.velocity_a, Vec3::new(2.0, 3.0, 0.0));
    // J = 2 * 3 / 0.25 = 24 = m * change of velocity
    assert_eq!(r.impulse, 24.0);
}

#[test]
fn rounding_is_not_an_approach() {
    // A closing speed of 1e-17 against speeds of 0.05 is what a resolved contact leaves
    let a = body(Vec3::new(0.05, -1e-17, 0.0), 1.0);
    let b = body(Vec3::ZERO, 1.0);
    assert!(resolve(a, b, Vec3::Y, (1.0, 0.0), 0.0, false).is_none());
    assert!(resolve(a, b, Vec3::Y, (1.0, 0.0), 0.2, false).is_none());
}

#[test]
fn separating_and_sliding_pairs_get_nothing() {
    let a = body(Vec3::new(1.0, 0.0, 0.0), 1.0);
    let b = body(Vec3::ZERO, 1.0);
    assert!(resolve(a, b, Vec3::X, (1.0, 0.0), 0.0, false).is_none());
    assert!(resolve(a, b, Vec3::Y, (1.0, 0.0), 0.0, false).is_none());
}

#[test]
fn slow_approach_rests_and_a_supported_ball_holds() {
    let falling = body(Vec3::new(0.0, -0.01, 0.0), 1.0);
    let mut on_floor = Supports::default();
    on_floor.add(Vec3::Y);
    let held = Body {
        supports: on_floor,
        ..body(Vec3::ZERO, 1.0)
    };
    let r = resolve(falling, held, Vec3::Y, (1.0, 0.0), 0.1, false).unwrap();
    assert!(r.a_rests_on_b && !r.b_rests_on_a);
    assert_eq!(r.velocity_a, Vec3::ZERO);
    assert_eq!(r.velocity_b, Vec3::ZERO);
}

#[test]
fn projection_meets_every_support_at_once() {
    // Wedged between a floor (+y) and a wall tilted 0.01 from it: sliding down along
    // (-1, -1, 0) must stop both into-motions together, leaving only z, which is free
    let mut wedge = Supports::default();
    wedge.add(Vec3::Y);
    let tilted = Vec3::new(0.01, 1.0, 0.0).normalize();
    let u = wedge.project(Vec3::new(-1.0, -1.0, 0.5), tilted);
    assert!(u.dot(Vec3::Y) >= -1e-12 && u.dot(tilted) >= -1e-12, "{u}");
    // Free directions are kept
    let free = wedge.project(Vec3::new(0.3, 0.2, -0.1), tilted);
    assert_eq!(free, Vec3::new(0.3, 0.2, -0.1));
    // Boxed in on every side: nothing is left
    let mut corner = Supports::default();
    corner.add(Vec3::X);
    corner.add(Vec3::Y);
    corner.add(Vec3::Z);
    let stuck = corner.project(
        Vec3::new(-1.0, -2.0, -3.0),
        Vec3::new(1.0, 1.0, 1.0).normalize(),
    );
    assert!(stuck.length() < 1e-12, "{stuck}");
}

#[test]
fn a_support_met_again_counts_as_it_is_now() {
    // The same support 1.7 degrees on: the projection keeps off it as it is now
    let before = Vec3::Y;
    let now = Vec3::new(0.03, 1.0, 0.0).normalize();
    let mut s = Supports::default();
    s.add(before);
    s.add(now);
    let u = s.project_on_supports(Vec3::new(-1.0, -1.0, 0.0));
    assert!(u.dot(now) >= -1e-12, "{u}");
    // And a touch
    let mut t = Supports::default();
    t.touch(before);
    t.touch(now);
    let u = t.project(Vec3::new(-1.0, -1.0, 0.0), Vec3::Z);
    assert!(u.dot(now) >= -1e-12, "{u}");
}

#[test]
fn a_support_holds_only_against_pushes_into_it() {
    let mut on_floor = Supports::default();
    on_floor.add(Vec3::Y);
    assert!(on_floor.hold(-Vec3::Y));
    assert!(!on_floor.hold(Vec3::X), "sideways is free");
    assert!(!on_floor.hold(Vec3::Y), "up is free");
    // A ball resting on the floor is pushed sideways by a slow neighbour: not held, so the
    // pair shares the impulse
    let pusher = body(Vec3::new(0.01, 0.0, 0.0), 1.0);
    let resting = Body {
        supports: on_floor,
        ..body(Vec3::ZERO, 1.0)
    };
    let r = resolve(pusher, resting, -Vec3::X, (1.0, 0.0), 0.1, false).unwrap();
    assert!(!r.a_rests_on_b && !r.b_rests_on_a);
    assert!((r.velocity_a.x - 0.005).abs() < 1e-15 && (r.velocity_b.x - 0.005).abs() < 1e-15);
}

/// Kinetic energy of a body (zero for a static shape), its spin a solid ball's.
fn energy(velocity: Vec3, spin: Vec3, b: &Body) -> Real {
    if b.inverse_mass == 0.0 {
        return 0.0;
    }
    let m = 1.0 / b.inverse_mass;
    0.5 * m * velocity.length_squared() + 0.2 * m * b.radius * b.radius * spin.length_squared()
}

#[test]
fn friction_in_a_resting_contact_turns_no_ball_into_its_supports() {
    // b lies on a floor against a wall on its -x side; a rests on it from above, spinning
    // so that its rub drives b towards the wall
    let mut b_sees = Supports::default();
    b_sees.add(Vec3::Y);
    b_sees.touch(Vec3::X);
    let a = Body {
        spin: Vec3::new(0.0, 0.0, -5.0),
        ..body(Vec3::new(0.0, -0.01, 0.0), 1.0)
    };
    let b = Body {
        supports: b_sees,
        ..body(Vec3::ZERO, 1.0)
    };
    let r = resolve(a, b, Vec3::Y, (0.0, 0.8), 0.1, false).unwrap();
    assert!(r.resting && r.a_rests_on_b);
    assert!(r.velocity_b.dot(Vec3::X) >= -1e-12, "{}", r.velocity_b);
    let before = energy(a.velocity, a.spin, &a) + energy(b.velocity, b.spin, &b);
    let after = energy(r.velocity_a, r.spin_a, &a) + energy(r.velocity_b, r.spin_b, &b);
    assert!(after <= before, "{before} -> {after}");
}

#[test]
fn a_held_ball_sliding_into_its_support_sweeps_nothing_along() {
    // b slides along a ceiling at 5 (gravity presses it up into it: a kick paid for the
    // rest of the step); a heavy ball at rest below and behind it is struck. The impulse
    // pushes b into the ceiling, which takes that part: no reason for a to follow b. Held
    // to the ceiling, b moves only along x, so a leaves at most as fast as from a b of
    // inverse mass `w_b n_x²` along the normal, the three-body answer.
    let mut ceiling = Supports::default();
    ceiling.add(-Vec3::Y);
    let b = Body {
        supports: ceiling,
        paid: Vec3::new(0.0, 0.01, 0.0),
        ..body(Vec3::new(-5.0, 0.0, 0.0), 1.0)
    };
    let a = body(Vec3::ZERO, 0.1);
    let n = Vec3::new(-1.0, -1.0, 0.0).normalize();
    let e = 0.5;
    let r = resolve(a, b, n, (e, 0.0), 0.1, false).unwrap();
    let approach = -(a.velocity - b.velocity).dot(n);
    let held =
        (1.0 + e) * approach * a.inverse_mass / (a.inverse_mass + b.inverse_mass * n.x * n.x);
    assert!(
        r.velocity_a.dot(n) <= held + 1e-12,
        "{} > {held}",
        r.velocity_a.dot(n)
    );
    let before = energy(a.velocity, a.spin, &a) + energy(b.velocity, b.spin, &b);
    let after = energy(r.velocity_a, r.spin_a, &a) + energy(r.velocity_b, r.spin_b, &b);
    assert!(after <= before, "{before} -> {after}");
}

#[test]
fn a_series_of_bounces_ends_where_its_flights_add_up() {
    // Flights 2 e^k v / a, k >= 1, summed bounce by bounce until they are below rounding,
    // against the closed form 2 e v / (a (1 - e)): the series ends within a time just above
    // its sum and not within one just below
    for (v, e, a) in [
        (5.24, 0.7, 9.81),
        (0.3, 0.5, 9.81),
        (2.0, 0.9, 1.0),
        (1.0, 0.1, 100.0),
    ] {
        let (mut sum, mut flight) = (0.0, 2.0 * e * v / a);
        while flight > 1e-18 {
            sum += flight;
            flight *= e;
        }
        assert!(
            bounces_end_within(v, e, a, sum * (1.0 + 1e-12)),
            "{v} {e} {a}"
        );
        assert!(
            !bounces_end_within(v, e, a, sum * (1.0 - 1e-9)),
            "{v} {e} {a}"
        );
    }
    // Restitution 0 ends at once; an elastic series, or one not pressed together, never ends
    assert!(bounces_end_within(3.0, 0.0, 9.81, 0.0));
    assert!(!bounces_end_within(1e-9, 1.0, 9.81, 1e9));
    assert!(!bounces_end_within(1e-9, 0.5, 0.0, 1e9));
    assert!(!bounces_end_within(1e-9, 0.5, -9.81, 1e9));
}
