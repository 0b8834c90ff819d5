//! The stepper against physics worked out by hand.
//!
//! Covered: head-on collisions of equal and unequal masses, elastic and with restitution below 1
//! (velocities, event time, kind, entities, point, normal and impulse); Newton's cradle; a ball
//! between two parallel planes for 10,000 steps; ricochets off infinite and capped cylinders
//! (side, cap, rim); a ball moving 100 radii per step against a plane, a thin cylinder, a small
//! triangle and another ball; planes skipped only when a path cannot reach them; several collisions of one ball in one step and the cap on events;
//! simultaneous contacts; switching the strategy between steps; the consistency of events and
//! statistics; seeded random scenes with and without gravity (with it, the energy never rises);
//! a ball thrown under gravity along several directions follows its parabola and meets a wall
//! at the root of the quadratic; an elastic gas under three gravities keeps its energy to 1e-9;
//! the two ways of owning the world; refused steps.
//!
//! Tolerances: `EXACT` (1e-12, relative to the magnitude, absolute below 1) for closed forms,
//! `NEWTON` (1e-9) where the rim iteration is involved, `REST` (1e-12) for "at rest".

use crate::common::{
    assert_close_named, assert_vec_close_named, energy, holds_a_clock, no_gravity, position,
    random_vector, v3, velocity,
};
use hecs::{Entity, World};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use toibox::scene::random_block;
use toibox::sim::{Mass, Radius, Restitution, kinetic_energy, momentum};
use toibox::{
    Ball, BallDef, CappedCylinder, CollisionEvent, ConvexPolygon, Cylinder, InfiniteCylinder,
    PairKind, Plane, Position, Shape, Simulation, StepConfig, StepError, StepReport, StepStats,
    Stepper, ToiMode, Vec3, Velocity,
};

const EXACT: f64 = 1e-12;
const NEWTON: f64 = 1e-9;
const REST: f64 = 1e-12;

fn set_state(world: &World, e: Entity, p: Vec3, v: Vec3) {
    world.get::<&mut Position>(e).unwrap().0 = p;
    world.get::<&mut Velocity>(e).unwrap().0 = v;
}

/// Every ball's position and velocity, bit for bit, in entity order.
fn snapshot(world: &World) -> Vec<(Entity, [u64; 3], [u64; 3])> {
    let bits = |v: Vec3| v.to_array().map(f64::to_bits);
    let mut all: Vec<_> = world
        .query::<(Entity, &Position, &Velocity)>()
        .iter()
        .map(|(e, p, v)| (e, bits(p.0), bits(v.0)))
        .collect();
    all.sort_by_key(|(e, _, _)| e.to_bits());
    all
}

/// Check what every report must satisfy: the counts by kind sum to the collisions, there is one
/// event per collision, counted by its kind, in time order within `[0, dt]`, with a unit normal;
/// and the measured energy and momentum are the world's.
#[track_caller]
fn check_report(world: &World, report: &StepReport, dt: f64) {
    let s = &report.stats;
    assert_eq!(
        s.ball_ball + s.ball_plane + s.ball_cylinder + s.ball_polygon,
        s.collisions,
        "counts by kind sum to the collisions: {s:?}"
    );
    assert_eq!(report.events.len() as u64, s.collisions, "one event each");
    for kind in PairKind::ALL {
        let events = report.events.iter().filter(|e| e.kind == kind).count() as u64;
        let counted = match kind {
            PairKind::BallBall => s.ball_ball,
            PairKind::BallPlane => s.ball_plane,
            PairKind::BallCylinder => s.ball_cylinder,
            PairKind::BallPolygon => s.ball_polygon,
        };
        assert_eq!(events, counted, "{kind:?} events and count");
    }
    for pair in report.events.windows(2) {
        assert!(pair[0].time <= pair[1].time, "events in time order");
    }
    for e in &report.events {
        assert!(
            (0.0..=dt).contains(&e.time),
            "event time {} in [0, {dt}]",
            e.time
        );
        assert_close_named(e.normal.length(), 1.0, EXACT, "unit normal");
        assert!(e.impulse > 0.0, "impulse {} is positive", e.impulse);
        assert!(world.get::<&Radius>(e.a).is_ok(), "a is a ball");
        let b_is = match e.kind {
            PairKind::BallBall => world.get::<&Radius>(e.b).is_ok(),
            PairKind::BallPlane => world.get::<&Plane>(e.b).is_ok(),
            PairKind::BallCylinder => world.get::<&Cylinder>(e.b).is_ok(),
            PairKind::BallPolygon => world.get::<&ConvexPolygon>(e.b).is_ok(),
        };
        assert!(b_is, "b of a {:?} event is of that kind", e.kind);
    }
    // The stepper sums in its own order, the world in another: equal to rounding
    let ke = kinetic_energy(world);
    assert!(
        (s.kinetic_energy - ke).abs() <= EXACT * ke.max(1e-300),
        "stats kinetic energy {} vs world {ke}",
        s.kinetic_energy
    );
    let p = momentum(world);
    let scale: f64 = world
        .query::<(&Velocity, &Mass)>()
        .iter()
        .map(|(v, m)| m.0 * v.0.length())
        .sum();
    assert!(
        (s.momentum() - p).length() <= EXACT * scale.max(1e-300),
        "stats momentum {:?} vs world {p}",
        s.momentum
    );
}

/// Step once, check the report's consistency, and return a copy of it.
#[track_caller]
fn step(stepper: &mut Stepper, world: &mut World, dt: f64) -> StepReport {
    let report = stepper.step(world, dt).unwrap().clone();
    check_report(world, &report, dt);
    report
}

// ---------------------------------------------------------------------------------------------
// Head-on collisions
// ---------------------------------------------------------------------------------------------

/// One ball of each side of a head-on collision.
struct Side {
    mass: f64,
    velocity: f64,
    restitution: f64,
}

/// What a head-on collision should produce.
struct Expected {
    v1: f64,
    v2: f64,
    impulse: f64,
}

/// Ball 1 (radius 0.5) at x = 0 and ball 2 (radius 0.5) at x = 3, moving along x; the gap of 2
/// closes at `2 / (v1 - v2)`. Ten steps of 0.2, past the contact; checks the event,
/// the velocities, momentum and energy, and that the pair then separates without a second event.
fn head_on(one: Side, two: Side, expected: Expected) {
    let mut world = World::new();
    let b1 = BallDef::new(Vec3::ZERO, 0.5)
        .velocity(v3(one.velocity, 0.0, 0.0))
        .mass(one.mass)
        .restitution(one.restitution)
        .spawn(&mut world);
    let b2 = BallDef::new(v3(3.0, 0.0, 0.0), 0.5)
        .velocity(v3(two.velocity, 0.0, 0.0))
        .mass(two.mass)
        .restitution(two.restitution)
        .spawn(&mut world);
    let mut stepper = Stepper::new(no_gravity());
    let dt = 0.2;
    let contact = 2.0 / (one.velocity - two.velocity);
    let p_before = one.mass * one.velocity + two.mass * two.velocity;

    let mut events = Vec::new();
    let mut t = 0.0;
    for k in 0..10 {
        let report = step(&mut stepper, &mut world, dt);
        for e in &report.events {
            events.push((k, *e));
        }
        t += dt;
        // Never overlapping at the end of a step (gap of centres at least the 1 of the radii)
        let gap = position(&world, b2).x - position(&world, b1).x;
        assert!(gap >= 1.0 - EXACT, "step {k}: centres {gap} apart");
        assert!(report.stats.max_penetration <= EXACT);
    }
    assert_eq!(events.len(), 1, "one collision in all: {events:?}");
    let (k, e) = events[0];
    // The contact at `contact` falls in step floor(contact / dt), at contact - k dt into it
    assert_eq!(k, (contact / dt).floor() as usize, "step of the contact");
    assert_close_named(
        e.time,
        contact - k as f64 * dt,
        EXACT,
        "event time in the step",
    );
    assert_eq!(e.kind, PairKind::BallBall);
    assert!(
        (e.a, e.b) == (b1, b2) || (e.a, e.b) == (b2, b1),
        "entities of the event"
    );
    // At the contact ball 1 is at x = v1 t, ball 2 at 3 + v2 t: both 0.5 from the point
    let x1 = one.velocity * contact;
    let x2 = 3.0 + two.velocity * contact;
    assert_close_named(x2 - x1, 1.0, EXACT, "touching at the contact");
    assert_vec_close_named(e.point, v3(x1 + 0.5, 0.0, 0.0), EXACT, "contact point");
    // The normal points from b towards a: -x when a is ball 1 (on the left), +x otherwise
    let towards_a = if e.a == b1 { -Vec3::X } else { Vec3::X };
    assert_vec_close_named(e.normal, towards_a, EXACT, "normal from b towards a");
    assert_close_named(e.impulse, expected.impulse, EXACT, "impulse");

    let (v1, v2) = (velocity(&world, b1), velocity(&world, b2));
    assert_vec_close_named(v1, v3(expected.v1, 0.0, 0.0), EXACT, "v1'");
    assert_vec_close_named(v2, v3(expected.v2, 0.0, 0.0), EXACT, "v2'");
    // Impulse = m1 |Δv1| = m2 |Δv2|
    assert_close_named(
        one.mass * (expected.v1 - one.velocity).abs(),
        expected.impulse,
        EXACT,
        "impulse is m1 |dv1|",
    );
    assert_close_named(
        one.mass * v1.x + two.mass * v2.x,
        p_before,
        EXACT,
        "momentum",
    );
    // Closing speed scales by e = min(e1, e2)
    let e_pair = one.restitution.min(two.restitution);
    assert_close_named(
        v2.x - v1.x,
        e_pair * (one.velocity - two.velocity),
        EXACT,
        "separation speed is e times the closing speed",
    );
    // Positions: straight to the contact, then straight with the new velocities
    assert_close_named(
        position(&world, b1).x,
        x1 + expected.v1 * (t - contact),
        EXACT,
        "x1 at the end",
    );
    assert_close_named(
        position(&world, b2).x,
        x2 + expected.v2 * (t - contact),
        EXACT,
        "x2 at the end",
    );
}

#[test]
fn head_on_equal_masses_elastic_swap_velocities() {
    // m1 = m2 = 1, v1 = +3, v2 = -1: v1' = ((m1-m2)v1 + 2 m2 v2)/(m1+m2) = -2/2 = -1,
    // v2' = ((m2-m1)v2 + 2 m1 v1)/(m1+m2) = 6/2 = 3. The gap of 2 closes at 4: t = 0.5 (in the
    // third step of 0.2, at 0.1). Impulse = m1 |Δv1| = 4. Contact point x = 1.5 + 0.5 = 2.
    head_on(
        Side {
            mass: 1.0,
            velocity: 3.0,
            restitution: 1.0,
        },
        Side {
            mass: 1.0,
            velocity: -1.0,
            restitution: 1.0,
        },
        Expected {
            v1: -1.0,
            v2: 3.0,
            impulse: 4.0,
        },
    );
}

#[test]
fn head_on_unequal_masses_elastic_matches_the_closed_form() {
    // m1 = 1 at +3, m2 = 2 at -1: v1' = ((1-2)3 + 2·2·(-1))/3 = -7/3,
    // v2' = ((2-1)(-1) + 2·1·3)/3 = 5/3. Momentum 3 - 2 = 1 = -7/3 + 10/3; energy
    // 4.5 + 1 = 5.5 = 49/18 + 25/9. Impulse = 1 · (3 + 7/3) = 16/3.
    head_on(
        Side {
            mass: 1.0,
            velocity: 3.0,
            restitution: 1.0,
        },
        Side {
            mass: 2.0,
            velocity: -1.0,
            restitution: 1.0,
        },
        Expected {
            v1: -7.0 / 3.0,
            v2: 5.0 / 3.0,
            impulse: 16.0 / 3.0,
        },
    );
}

#[test]
fn head_on_with_restitution_scales_the_closing_speed() {
    // Restitutions 0.8 and 0.5: the pair bounces with 0.5.
    // v1' = (m1 v1 + m2 v2 + m2 e (v2 - v1))/(m1+m2), v2' = (m1 v1 + m2 v2 + m1 e (v1 - v2))/(m1+m2).
    // Equal masses 1, v = +3 and -1: v1' = (2 + 0.5·(-4))/2 = 0, v2' = (2 + 0.5·4)/2 = 2;
    // separation 2 = 0.5 · 4. Impulse = 1 · |0 - 3| = 3 = (1 + e) · 4 / 2.
    head_on(
        Side {
            mass: 1.0,
            velocity: 3.0,
            restitution: 0.8,
        },
        Side {
            mass: 1.0,
            velocity: -1.0,
            restitution: 0.5,
        },
        Expected {
            v1: 0.0,
            v2: 2.0,
            impulse: 3.0,
        },
    );
    // m1 = 1 at +3, m2 = 2 at -1, e = 0.5: v1' = (1 + 2·0.5·(-4))/3 = -1,
    // v2' = (1 + 1·0.5·4)/3 = 1; separation 2 = 0.5 · 4. Impulse = 1 · 4 = (1.5 · 4)/(1 + 1/2).
    // Energy 5.5 -> 0.5 + 1 = 1.5: the loss ½ μ (1 - e²) 4² = ½ · 2/3 · 3/4 · 16 = 4.
    head_on(
        Side {
            mass: 1.0,
            velocity: 3.0,
            restitution: 0.5,
        },
        Side {
            mass: 2.0,
            velocity: -1.0,
            restitution: 1.0,
        },
        Expected {
            v1: -1.0,
            v2: 1.0,
            impulse: 4.0,
        },
    );
}

#[test]
fn head_on_energy_loss_matches_the_restitution() {
    // The last case above through the stats: energy 5.5 before, 1.5 after (loss 4).
    let mut world = World::new();
    BallDef::new(Vec3::ZERO, 0.5)
        .velocity(v3(3.0, 0.0, 0.0))
        .mass(1.0)
        .restitution(0.5)
        .spawn(&mut world);
    BallDef::new(v3(3.0, 0.0, 0.0), 0.5)
        .velocity(v3(-1.0, 0.0, 0.0))
        .mass(2.0)
        .spawn(&mut world);
    assert_close_named(kinetic_energy(&world), 5.5, EXACT, "energy before");
    let mut stepper = Stepper::new(no_gravity());
    let report = step(&mut stepper, &mut world, 1.0);
    assert_eq!(report.stats.collisions, 1);
    assert_close_named(report.stats.kinetic_energy, 1.5, EXACT, "energy after");
    assert_vec_close_named(report.stats.momentum(), Vec3::X, EXACT, "momentum after");
}

// ---------------------------------------------------------------------------------------------
// Newton's cradle
// ---------------------------------------------------------------------------------------------

/// Five balls of radius 0.5 and mass 1 at x = 0, 1, 2, 3, 4 (exactly touching), with the given
/// velocities along x.
fn cradle(speeds: [f64; 5]) -> (World, Vec<Entity>) {
    let mut world = World::new();
    let balls = (0..5)
        .map(|i| {
            BallDef::new(v3(i as f64, 0.0, 0.0), 0.5)
                .mass(1.0)
                .velocity(v3(speeds[i], 0.0, 0.0))
                .spawn(&mut world)
        })
        .collect();
    (world, balls)
}

#[test]
fn newtons_cradle_passes_the_speed_to_the_last_ball() {
    // The first ball at +1 into four at rest, all touching: equal masses swap velocities down
    // the row in four collisions at t = 0, so only the last moves, at 1. Steps of 0.5: after
    // step k the last ball is at 4 + 0.5 k, the others where they were.
    let (mut world, balls) = cradle([1.0, 0.0, 0.0, 0.0, 0.0]);
    let mut stepper = Stepper::new(no_gravity());
    let (p0, e0) = (momentum(&world), kinetic_energy(&world));
    assert_eq!((p0, e0), (Vec3::X, 0.5));
    for k in 1..=3 {
        let report = step(&mut stepper, &mut world, 0.5);
        if k == 1 {
            assert_eq!(report.stats.collisions, 4, "{:?}", report.events);
            assert_eq!(report.stats.ball_ball, 4);
            for e in &report.events {
                assert!(e.time.abs() <= EXACT, "contacts at the start: {}", e.time);
                assert_close_named(e.impulse, 1.0, EXACT, "each passes m·1");
            }
        } else {
            assert_eq!(report.stats.collisions, 0, "step {k}: {:?}", report.events);
        }
        for (i, &b) in balls.iter().enumerate() {
            let (p, v) = (position(&world, b), velocity(&world, b));
            if i == 4 {
                assert_vec_close_named(v, Vec3::X, EXACT, "last ball's velocity");
                assert_vec_close_named(p, v3(4.0 + 0.5 * k as f64, 0.0, 0.0), EXACT, "last ball");
            } else {
                assert!(v.length() <= REST, "ball {i} at rest, moves at {v}");
                assert_vec_close_named(p, v3(i as f64, 0.0, 0.0), REST, "ball {i} in place");
            }
        }
        assert_vec_close_named(momentum(&world), p0, EXACT, "momentum");
        assert_close_named(kinetic_energy(&world), e0, EXACT, "energy");
    }
}

#[test]
fn newtons_cradle_two_in_two_out() {
    // The first two at +1 into three at rest: the last two leave at 1, the first three rest.
    // Momentum 2, energy 1.
    let (mut world, balls) = cradle([1.0, 1.0, 0.0, 0.0, 0.0]);
    let mut stepper = Stepper::new(no_gravity());
    step(&mut stepper, &mut world, 0.5);
    for (i, &b) in balls.iter().enumerate() {
        let v = velocity(&world, b);
        if i >= 3 {
            assert_vec_close_named(v, Vec3::X, EXACT, "ball {i} leaves");
        } else {
            assert!(v.length() <= REST, "ball {i} at rest, moves at {v}");
        }
    }
    assert_vec_close_named(momentum(&world), v3(2.0, 0.0, 0.0), EXACT, "momentum");
    assert_close_named(kinetic_energy(&world), 1.0, EXACT, "energy");
}

// ---------------------------------------------------------------------------------------------
// Between two planes
// ---------------------------------------------------------------------------------------------

#[test]
fn ball_between_two_planes_for_ten_thousand_steps() {
    // Planes at x = 0 (normal +x) and x = 10 (normal -x); a ball of radius 0.5 keeps its centre
    // in [0.5, 9.5]. It starts at x = 5.123 with v = (30, 0.7, -0.4) (default mass, not a power
    // of two). First contact after (9.5 - 5.123)/30 = 0.1459, then one every 9/30 = 0.3. In
    // 10,000 steps of 0.01 (t = 100): contacts at 0.1459 + 0.3 k <= 100, k <= 332.85: 333 of
    // them (the next would be at 100.0459, far from the end). Tangential components untouched.
    let mut world = World::new();
    let left = world.spawn((Plane::new(Vec3::ZERO, Vec3::X).unwrap(),));
    let right = world.spawn((Plane::new(v3(10.0, 0.0, 0.0), -Vec3::X).unwrap(),));
    let v0 = v3(30.0, 0.7, -0.4);
    let ball = BallDef::new(v3(5.123, 0.0, 0.0), 0.5)
        .velocity(v0)
        .spawn(&mut world);
    let mut stepper = Stepper::new(no_gravity());
    let e0 = kinetic_energy(&world);
    let mut collisions = 0;
    let mut last = None;
    for k in 0..10_000 {
        let report = stepper.step(&mut world, 0.01).unwrap();
        let s = report.stats;
        assert_eq!(s.collisions, s.ball_plane, "step {k}: only planes");
        for e in &report.events {
            // Alternating walls, the right one first
            let expected = if collisions % 2 == 0 { right } else { left };
            assert_eq!(e.b, expected, "contact {collisions} with the other wall");
            collisions += 1;
            last = Some(k);
        }
        assert!(
            (s.kinetic_energy - e0).abs() <= 1e-12 * e0,
            "step {k}: energy {} drifted from {e0}",
            s.kinetic_energy
        );
        assert_eq!((s.escaped, s.events_cap_hits), (0, 0), "step {k}");
        let p = position(&world, ball);
        assert!(
            (0.5 - 1e-12..=9.5 + 1e-12).contains(&p.x),
            "step {k}: centre at x = {} outside [0.5, 9.5]",
            p.x
        );
        let v = velocity(&world, ball);
        assert_eq!((v.y, v.z), (v0.y, v0.z), "tangential velocity");
        assert_eq!(v.x.abs(), 30.0, "normal speed");
    }
    assert_eq!(collisions, 333);
    // The last contact at 0.1459 + 0.3 · 332 = 99.7459: in step 9974
    assert_eq!(last, Some(9974));
    // The 333rd contact (right, left, ..., right) is at the right wall; then 100 - 99.7459 =
    // 0.2541 to the left at 30: x = 9.5 - 7.623 = 1.877 (positions summed over 10,000 steps: 1e-9)
    let x_end = position(&world, ball).x;
    assert_close_named(
        x_end,
        9.5 - 30.0 * (100.0 - (0.1459 + 0.3 * 332.0)),
        1e-9,
        "x",
    );
}

// ---------------------------------------------------------------------------------------------
// Ricochets off cylinders
// ---------------------------------------------------------------------------------------------

/// What a ricochet should do: touch at `time` at `point` with `normal`, leave at `v_after`.
struct Bounce {
    time: f64,
    point: Vec3,
    normal: Vec3,
    v_after: Vec3,
    tol: f64,
}

/// One ball of radius 0.5 from `start` at `v`, one cylinder, one step of `dt`: check the single
/// event and the end state.
fn ricochet(cylinder: Cylinder, start: Vec3, v: Vec3, dt: f64, expected: Bounce) {
    let Bounce {
        time,
        point,
        normal,
        v_after,
        tol,
    } = expected;
    let mut world = World::new();
    let c = world.spawn((cylinder,));
    let ball = BallDef::new(start, 0.5).velocity(v).spawn(&mut world);
    let mass = world.get::<&Mass>(ball).unwrap().0;
    let mut stepper = Stepper::new(no_gravity());
    let report = step(&mut stepper, &mut world, dt);
    assert_eq!(report.stats.ball_cylinder, 1, "{:?}", report.events);
    assert_eq!(report.stats.collisions, 1);
    let e = report.events[0];
    assert_eq!((e.a, e.b, e.kind), (ball, c, PairKind::BallCylinder));
    assert_close_named(e.time, time, tol, "time");
    assert_vec_close_named(e.point, point, tol, "point");
    assert_vec_close_named(e.normal, normal, tol, "normal");
    // Mirror about the normal: v' = v - 2 (v·n) n, impulse m |2 v·n|
    assert_vec_close_named(
        v - 2.0 * v.dot(normal) * normal,
        v_after,
        EXACT,
        "hand mirror",
    );
    assert_close_named(e.impulse, mass * 2.0 * v.dot(normal).abs(), tol, "impulse");
    assert_vec_close_named(velocity(&world, ball), v_after, tol, "velocity after");
    let at_contact = start + v * time;
    assert_vec_close_named(
        position(&world, ball),
        at_contact + v_after * (dt - time),
        tol,
        "position at the end",
    );
    assert!(report.stats.max_penetration <= tol);
}

#[test]
fn ricochet_off_an_infinite_cylinder() {
    // Axis z through the origin, radius 1; ball of radius 0.5 from (5, 0.9, 0) at (-2, 0, 0.5).
    // Contact when the centre is 1.5 from the axis: x² + 0.81 = 2.25, x = 1.2, after
    // (5 - 1.2)/2 = 1.9, at (1.2, 0.9, 0.95). Normal (1.2, 0.9, 0)/1.5 = (0.8, 0.6, 0); point
    // (0.8, 0.6, 0.95). v·n = -1.6: v' = (-2, 0, 0.5) + 3.2 (0.8, 0.6, 0) = (0.56, 1.92, 0.5),
    // the axial part kept, |v'_radial| = 2.
    ricochet(
        InfiniteCylinder::new(Vec3::ZERO, Vec3::Z, 1.0)
            .unwrap()
            .into(),
        v3(5.0, 0.9, 0.0),
        v3(-2.0, 0.0, 0.5),
        2.0,
        Bounce {
            time: 1.9,
            point: v3(0.8, 0.6, 0.95),
            normal: v3(0.8, 0.6, 0.0),
            v_after: v3(0.56, 1.92, 0.5),
            tol: EXACT,
        },
    );
}

#[test]
fn ricochet_off_a_capped_cylinder_side_cap_and_rim() {
    let capped = || -> Cylinder {
        CappedCylinder::new(v3(0.0, 0.0, -1.0), v3(0.0, 0.0, 1.0), 1.0)
            .unwrap()
            .into()
    };
    // Side: as the infinite case in the plane z = 0: t = 1.9, point (0.8, 0.6, 0),
    // v' = (0.56, 1.92, 0).
    ricochet(
        capped(),
        v3(5.0, 0.9, 0.0),
        v3(-2.0, 0.0, 0.0),
        2.0,
        Bounce {
            time: 1.9,
            point: v3(0.8, 0.6, 0.0),
            normal: v3(0.8, 0.6, 0.0),
            v_after: v3(0.56, 1.92, 0.0),
            tol: EXACT,
        },
    );
    // Cap: from (0.3, 0, 3) at (0, 0, -2); the centre reaches z = 1.5 after 0.75, touching the
    // cap at (0.3, 0, 1), normal +z; v' = (0, 0, 2).
    ricochet(
        capped(),
        v3(0.3, 0.0, 3.0),
        v3(0.0, 0.0, -2.0),
        1.0,
        Bounce {
            time: 0.75,
            point: v3(0.3, 0.0, 1.0),
            normal: Vec3::Z,
            v_after: v3(0.0, 0.0, 2.0),
            tol: EXACT,
        },
    );
    // Rim: from (1.3, 0, 3.4) at (0, 0, -2), outside the cap's disc: it touches the rim point
    // (1, 0, 1) when 0.3² + (z - 1)² = 0.5², z = 1.4, after 1.0. Normal (0.3, 0, 0.4)/0.5 =
    // (0.6, 0, 0.8); v·n = -1.6: v' = (0, 0, -2) + 3.2 (0.6, 0, 0.8) = (1.92, 0, 0.56).
    ricochet(
        capped(),
        v3(1.3, 0.0, 3.4),
        v3(0.0, 0.0, -2.0),
        1.5,
        Bounce {
            time: 1.0,
            point: v3(1.0, 0.0, 1.0),
            normal: v3(0.6, 0.0, 0.8),
            v_after: v3(1.92, 0.0, 0.56),
            tol: NEWTON,
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Fast balls
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Target {
    Plane,
    ThinCylinder,
    Triangle,
    Ball,
}

/// The stepper skips a plane when a ball's path box is wholly in front of it. Paths that end
/// just short of the plane, exactly on it or just past it, straight or slanted, slow or fast,
/// must give a plane contact exactly when the sweep alone finds one.
#[test]
fn a_plane_is_asked_whenever_the_path_may_reach_it() {
    let dt = 0.25;
    let plane = Plane::new(v3(0.0, -1.0, 0.0), v3(0.0, 1.0, 0.0)).unwrap();
    let mut cases = 0;
    let mut hits = 0;
    // Gaps that close faster than the stepper's rounding tolerance on approach speeds
    for gap in [0.0, 1e-6, 0.3, 7.0] {
        for reach in [0.5, 1.0 - 1e-15, 1.0, 1.0 + 1e-15, 1.5, 1e6] {
            for slant in [0.0, 0.7, -3.0] {
                // Starting `gap` above the plane, closing `reach` times the gap in the step
                let radius = 0.25;
                let start = v3(0.3, -1.0 + radius + gap, -0.2);
                let down = if gap > 0.0 { gap * reach / dt } else { reach };
                let velocity = v3(slant, -down, 0.5 * slant);
                let sweep = toibox::toi::analytic::ball_plane(
                    &toibox::toi::MovingBall::new(start, radius, velocity),
                    &plane,
                    dt,
                );
                let mut world = World::new();
                world.spawn((plane,));
                BallDef::new(start, radius)
                    .velocity(velocity)
                    .spawn(&mut world);
                let mut stepper = Stepper::new(no_gravity());
                let report = step(&mut stepper, &mut world, dt);
                let found = !report.events.is_empty();
                let expected = !matches!(sweep, toibox::Toi::Miss);
                assert_eq!(
                    found, expected,
                    "gap {gap}, reach {reach}, slant {slant}: {sweep:?}"
                );
                cases += 1;
                hits += usize::from(found);
            }
        }
    }
    // Both outcomes are exercised
    assert!(
        hits > 10 && cases - hits > 10,
        "{hits} hits in {cases} cases"
    );
}

#[test]
fn a_ball_at_100_radii_per_step_never_passes_through() {
    // Radius 0.1, speed 10 per step of 1: 100 radii per step, along -x towards a target at the
    // origin. The centre touches it at x_c: 0.1 (plane x = 0, normal +x), 0.11 (capped cylinder
    // along y of radius 0.01), 0.1 (triangle of size 0.15 in the plane x = 0, around the
    // origin), 0.2 (a ball of radius 0.1 and mass 3 at rest). Starting at x_c + 10 (1 + f), the
    // contact is in the second step at f into it. After it: +10 (static), or for the ball
    // (masses 1 and 3) v1' = (1-3)/4 · (-10) = +5, v2' = 2/4 · (-10) = -5.
    for target in [
        Target::Plane,
        Target::ThinCylinder,
        Target::Triangle,
        Target::Ball,
    ] {
        for phase in 0..16 {
            let f = (phase as f64 + 0.5) / 16.0;
            let mut world = World::new();
            let (x_c, kind, other) = match target {
                Target::Plane => (
                    0.1,
                    PairKind::BallPlane,
                    world.spawn((Plane::new(Vec3::ZERO, Vec3::X).unwrap(),)),
                ),
                Target::ThinCylinder => (
                    0.11,
                    PairKind::BallCylinder,
                    world.spawn((Cylinder::from(
                        CappedCylinder::new(v3(0.0, -1.0, 0.0), v3(0.0, 1.0, 0.0), 0.01).unwrap(),
                    ),)),
                ),
                Target::Triangle => (
                    0.1,
                    PairKind::BallPolygon,
                    world.spawn((ConvexPolygon::new(vec![
                        v3(0.0, -0.05, -0.05),
                        v3(0.0, 0.1, 0.0),
                        v3(0.0, -0.05, 0.05),
                    ])
                    .unwrap(),)),
                ),
                Target::Ball => (
                    0.2,
                    PairKind::BallBall,
                    BallDef::new(Vec3::ZERO, 0.1).mass(3.0).spawn(&mut world),
                ),
            };
            let ball = BallDef::new(v3(x_c + 10.0 * (1.0 + f), 0.0, 0.0), 0.1)
                .mass(1.0)
                .velocity(v3(-10.0, 0.0, 0.0))
                .spawn(&mut world);
            let mut stepper = Stepper::new(no_gravity());
            let label = format!("{target:?} at phase {f}");
            let mut events: Vec<(usize, CollisionEvent)> = Vec::new();
            for k in 0..4 {
                let report = step(&mut stepper, &mut world, 1.0);
                events.extend(report.events.iter().map(|e| (k, *e)));
                assert!(report.stats.max_penetration <= 1e-9, "{label}: overlap");
                assert_eq!(report.stats.escaped, 0, "{label}");
                // On the right side at every step end
                let x = position(&world, ball).x;
                let floor = match target {
                    Target::Ball => position(&world, other).x + 0.2,
                    _ => x_c,
                };
                assert!(x >= floor - 1e-9, "{label}, step {k}: x = {x} < {floor}");
            }
            assert_eq!(events.len(), 1, "{label}: {events:?}");
            let (k, e) = events[0];
            assert_eq!((k, e.kind), (1, kind), "{label}");
            assert!(e.a == ball || e.b == ball, "{label}: the ball's event");
            assert!(e.a == other || e.b == other, "{label}: the target's event");
            assert_close_named(e.time, f, EXACT, &format!("{label}: time"));
            let (v_after, x_end) = match target {
                // x_c + 5 (3 - f) after the contact at step 1 + f
                Target::Ball => (5.0, x_c + 5.0 * (3.0 - f)),
                _ => (10.0, x_c + 10.0 * (3.0 - f)),
            };
            assert_vec_close_named(velocity(&world, ball), v3(v_after, 0.0, 0.0), EXACT, &label);
            assert_close_named(position(&world, ball).x, x_end, EXACT, &label);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Several collisions in one step; simultaneous contacts
// ---------------------------------------------------------------------------------------------

/// Planes at x = 0 and x = 1.2 facing each other, a ball of radius 0.1 at x = 0.6 moving +10.
fn narrow_gap() -> (World, Entity, Entity, Entity) {
    let mut world = World::new();
    let left = world.spawn((Plane::new(Vec3::ZERO, Vec3::X).unwrap(),));
    let right = world.spawn((Plane::new(v3(1.2, 0.0, 0.0), -Vec3::X).unwrap(),));
    let ball = BallDef::new(v3(0.6, 0.0, 0.0), 0.1)
        .mass(1.0)
        .velocity(v3(10.0, 0.0, 0.0))
        .spawn(&mut world);
    (world, left, right, ball)
}

#[test]
fn several_collisions_of_one_ball_in_one_step() {
    // The centre stays in [0.1, 1.1]: first contact (right) after 0.5/10 = 0.05, then one every
    // 1.0/10 = 0.1: at 0.05, 0.15, ..., 0.95: 10 contacts in a step of 1, alternating right and
    // left. The last (the 10th, at the left wall) leaves it moving +10 for 0.05: x = 0.6.
    let (mut world, left, right, ball) = narrow_gap();
    let mut stepper = Stepper::new(no_gravity());
    let report = step(&mut stepper, &mut world, 1.0);
    assert_eq!(report.stats.collisions, 10, "{:?}", report.events);
    assert_eq!(report.stats.ball_plane, 10);
    assert_eq!(report.stats.events_cap_hits, 0);
    for (k, e) in report.events.iter().enumerate() {
        let (wall, normal, x) = if k % 2 == 0 {
            (right, -Vec3::X, 1.2)
        } else {
            (left, Vec3::X, 0.0)
        };
        assert_eq!((e.a, e.b), (ball, wall), "contact {k}");
        assert_close_named(e.time, 0.05 + 0.1 * k as f64, EXACT, "contact time");
        assert_vec_close_named(e.normal, normal, EXACT, "normal");
        assert_vec_close_named(e.point, v3(x, 0.0, 0.0), EXACT, "point");
        assert_close_named(e.impulse, 20.0, EXACT, "impulse m · 2 · 10");
    }
    assert_close_named(position(&world, ball).x, 0.6, EXACT, "x at the end");
    assert_vec_close_named(velocity(&world, ball), v3(10.0, 0.0, 0.0), 0.0, "velocity");
}

#[test]
fn the_cap_on_events_stops_the_ball_at_its_next_contact_and_says_so() {
    // The same with at most 4 events: after the 4th (left wall at t = 0.35, x = 0.1) the ball
    // moves +10 and reaches the right wall at t = 0.45, x = 1.1. That contact is held: the ball
    // stops there, touching the wall, and ends the step at rest. (It used to keep its velocity
    // +10 for the next step; a stopped ball now reports the velocity it has, none.) What it
    // had, ½ · 1 · 10² = 50 and 1 · 10 along x, is taken out and counted.
    let (mut world, _, _, ball) = narrow_gap();
    let mut stepper = Stepper::new(StepConfig {
        max_events_per_step: Some(4),
        ..no_gravity()
    });
    let report = step(&mut stepper, &mut world, 1.0);
    assert_eq!(report.stats.collisions, 4);
    assert_eq!(report.stats.events_cap_hits, 1);
    assert_eq!(report.stats.stopped, 1);
    assert_eq!(report.stats.escaped, 0);
    assert!(report.stats.max_penetration <= EXACT, "{:?}", report.stats);
    assert_close_named(position(&world, ball).x, 1.1, EXACT, "x");
    assert_vec_close_named(velocity(&world, ball), Vec3::ZERO, 0.0, "v");
    assert_close_named(report.stats.energy_stopped, 50.0, EXACT, "energy stopped");
    assert_vec_close_named(
        report.stats.momentum_stopped(),
        v3(10.0, 0.0, 0.0),
        EXACT,
        "momentum stopped",
    );
    assert_eq!(report.stats.kinetic_energy, 0.0);

    // The next step finds it at rest against the wall: nothing to resolve, nothing moves
    let report = step(&mut stepper, &mut world, 1.0);
    assert!(report.events.is_empty(), "{:?}", report.events);
    assert_eq!(report.stats.events_cap_hits, 0);
    assert_eq!(report.stats.energy_stopped, 0.0);
    assert_close_named(position(&world, ball).x, 1.1, EXACT, "x, a step later");
    assert_eq!(velocity(&world, ball), Vec3::ZERO);
    assert_eq!(report.stats.escaped, 0);
}

/// Ball A (radius 0.5, mass 1) at the origin moving +1; B and C (the same, at rest) at
/// (1 + c, ±s, 0): A touches both at t = 1, where the unit offsets are (c, ±s).
fn two_targets(c: f64, s: f64) -> (World, [Entity; 3], Stepper) {
    let mut world = World::new();
    let a = BallDef::new(Vec3::ZERO, 0.5)
        .mass(1.0)
        .velocity(Vec3::X)
        .spawn(&mut world);
    let b = BallDef::new(v3(1.0 + c, s, 0.0), 0.5)
        .mass(1.0)
        .spawn(&mut world);
    let cc = BallDef::new(v3(1.0 + c, -s, 0.0), 0.5)
        .mass(1.0)
        .spawn(&mut world);
    (world, [a, b, cc], Stepper::new(no_gravity()))
}

#[test]
fn simultaneous_contacts_at_right_angles_give_a_symmetric_outcome() {
    // B and C at 45° above and below A's path: the normals from B and C to A, (-1, ∓1, 0)/√2,
    // are perpendicular, so the two impulses do not interact and the outcome is unique:
    // each impulse is v·n = 1/√2 (equal masses), B gets (1/2, 1/2, 0), C (1/2, -1/2, 0), A stops.
    // Momentum (1, 0, 0), energy 1/2 = ½ (1/2 + 1/2).
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let (mut world, [a, b, c], mut stepper) = two_targets(h, h);
    let report = step(&mut stepper, &mut world, 1.5);
    assert_eq!(report.stats.ball_ball, 2, "{:?}", report.events);
    for e in &report.events {
        assert_close_named(e.time, 1.0, EXACT, "both at t = 1");
        assert_close_named(e.impulse, h, EXACT, "impulse 1/√2");
    }
    let (va, vb, vc) = (
        velocity(&world, a),
        velocity(&world, b),
        velocity(&world, c),
    );
    assert!(va.length() <= EXACT, "A stops, moves at {va}");
    assert_vec_close_named(vb, v3(0.5, 0.5, 0.0), EXACT, "B");
    assert_vec_close_named(vc, v3(0.5, -0.5, 0.0), EXACT, "C");
    // Mirror images of each other
    assert_vec_close_named(vb, vc * v3(1.0, -1.0, 1.0), EXACT, "B mirrors C");
    let (pb, pc) = (position(&world, b), position(&world, c));
    assert_vec_close_named(pb, pc * v3(1.0, -1.0, 1.0), EXACT, "positions mirror");
    assert_vec_close_named(momentum(&world), Vec3::X, EXACT, "momentum");
    assert_close_named(kinetic_energy(&world), 0.5, EXACT, "energy");
}

#[test]
fn simultaneous_contacts_resolve_one_at_a_time_and_conserve_energy() {
    // B and C at offsets (0.8, ±0.6) from A at the contact (t = 1): normals from B and C to A
    // n_B = (-0.8, -0.6, 0), n_C = (-0.8, 0.6, 0). Contacts at one instant are resolved one
    // after the other, in a fixed order (the documented rule of event-driven stepping, which
    // makes chains like Newton's cradle come out right); the outcome is one of the two orders.
    // B first: approach 0.8, impulse 0.8 along n_B: vA = (1, 0, 0) + 0.8 n_B = (0.36, -0.48, 0),
    // vB = -0.8 n_B = (0.64, 0.48, 0);
    // then C: approach (vA - 0)·(-n_C) = 0.36·0.8 + 0.48·0.6 = 0.576,
    // vA = (0.36, -0.48, 0) - 0.576 (0.8, -0.6, 0) = (-0.1008, -0.1344, 0),
    // vC = 0.576 (0.8, -0.6, 0) = (0.4608, -0.3456, 0).
    // C first is the mirror image (y negated, B and C swapped). Either way momentum (1, 0, 0)
    // and energy ½ are kept.
    // (Solving both contacts together would give the symmetric vA = (1 - 1.6 J, 0, 0) with
    // J = 1.6/2.28; toibox does not, and says so in its docs.)
    let (mut world, [a, b, c], mut stepper) = two_targets(0.8, 0.6);
    let report = step(&mut stepper, &mut world, 1.5);
    assert_eq!(report.stats.ball_ball, 2, "{:?}", report.events);
    assert_eq!(report.events[0].time, report.events[1].time, "one instant");
    let (va, vb, vc) = (
        velocity(&world, a),
        velocity(&world, b),
        velocity(&world, c),
    );
    let b_first = (
        v3(-0.1008, -0.1344, 0.0),
        v3(0.64, 0.48, 0.0),
        v3(0.4608, -0.3456, 0.0),
    );
    let mirror = |v: Vec3| v * v3(1.0, -1.0, 1.0);
    let c_first = (mirror(b_first.0), mirror(b_first.2), mirror(b_first.1));
    let close = |x: Vec3, y: Vec3| (x - y).length() <= 1e-12;
    let matches =
        |(ea, eb, ec): (Vec3, Vec3, Vec3)| close(va, ea) && close(vb, eb) && close(vc, ec);
    assert!(
        matches(b_first) || matches(c_first),
        "A {va}, B {vb}, C {vc}: neither order"
    );
    assert_vec_close_named(momentum(&world), Vec3::X, EXACT, "momentum");
    assert_close_named(kinetic_energy(&world), 0.5, EXACT, "energy");
}

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

#[test]
fn switching_the_strategy_between_steps() {
    // A thin square plate (2 x 2 in the plane x = 0) and a ball of radius 0.1 from x = 3 at
    // -10 per step of 1. The plate is touched when |x| = 0.1, for t in [0.29, 0.31].
    // - Analytic: contact at 0.29, back out at +10: x = 0.1 + 10 · 0.71 = 7.2.
    // - Discrete: only the end (x = -7, far from the plate) is tested: it passes through.
    // - Sliced, 150 slices: samples k/150; the first overlapping is k = 44 (0.2933), so the
    //   contact is reported at 43/150 = 0.28667 (x = 0.1333), and the ball ends at
    //   0.1333 + 10 (1 - 43/150) = 7.2667.
    // - Sliced, 2 slices: samples at 0.5 (x = -2) and 1 (x = -7) are clear: it passes through.
    // - SlicedBisect (150 slices, 1e-9): at most 1e-9 before 0.29.
    let mut sim = Simulation::new(no_gravity());
    let plate = sim.add_polygon(
        ConvexPolygon::new(vec![
            v3(0.0, -1.0, -1.0),
            v3(0.0, 1.0, -1.0),
            v3(0.0, 1.0, 1.0),
            v3(0.0, -1.0, 1.0),
        ])
        .unwrap(),
    );
    let ball = sim.spawn_ball(BallDef::new(v3(3.0, 0.0, 0.0), 0.1));
    let start = |sim: &mut Simulation| {
        set_state(&sim.world, ball, v3(3.0, 0.0, 0.0), v3(-10.0, 0.0, 0.0));
    };
    let run = |sim: &mut Simulation, strategy: ToiMode| {
        start(sim);
        sim.stepper.config.strategy = strategy.clone();
        let report = sim.step(1.0).unwrap();
        check_report(&sim.world, &report, 1.0);
        assert!(report.stats.toi_queries > 0, "{strategy}: queries asked");
        (report, position(&sim.world, ball).x)
    };

    let (analytic, x) = run(&mut sim, ToiMode::Analytic);
    assert_eq!(analytic.stats.ball_polygon, 1);
    let e = analytic.events[0];
    assert_eq!((e.a, e.b, e.kind), (ball, plate, PairKind::BallPolygon));
    assert_close_named(e.time, 0.29, EXACT, "analytic time");
    assert_vec_close_named(e.normal, Vec3::X, EXACT, "normal towards the ball");
    assert_close_named(x, 7.2, EXACT, "analytic: bounced");

    let (discrete, x) = run(&mut sim, ToiMode::Discrete);
    assert_eq!(discrete.stats.collisions, 0, "{:?}", discrete.events);
    assert_eq!(x, -7.0, "discrete: passed through");

    let (sliced, x) = run(&mut sim, ToiMode::Sliced { slices: 150 });
    assert_eq!(sliced.stats.ball_polygon, 1);
    let t = 43.0 / 150.0;
    assert_close_named(sliced.events[0].time, t, EXACT, "sliced time");
    assert_close_named(
        x,
        3.0 - 10.0 * t + 10.0 * (1.0 - t),
        EXACT,
        "sliced: bounced early",
    );

    let (coarse, x) = run(&mut sim, ToiMode::Sliced { slices: 2 });
    assert_eq!(coarse.stats.collisions, 0, "{:?}", coarse.events);
    assert_eq!(x, -7.0, "two slices: passed through");

    let (bisect, x) = run(
        &mut sim,
        ToiMode::SlicedBisect {
            slices: 150,
            tolerance: 1e-9,
        },
    );
    assert_eq!(bisect.stats.ball_polygon, 1);
    let tb = bisect.events[0].time;
    assert!(
        (0.29 - 1e-9 - EXACT..=0.29 + EXACT).contains(&tb),
        "bisected time {tb}"
    );
    assert_close_named(x, 7.2, 1e-7, "bisect: bounced");

    // And back: the same as the first time, bit for bit
    let (again, _) = run(&mut sim, ToiMode::Analytic);
    assert_eq!(again, analytic);
    assert_eq!(sim.steps(), 6);
}

/// A wedge of two planes through the origin, x >= 0 and x + y >= 0, and a ball of radius 0.1 at
/// (3, 0, 0) moving (-10, -5, 0) per step of 1.
fn wedge() -> (World, Entity, [Entity; 2]) {
    let mut world = World::new();
    let wall = world.spawn((Plane::new(Vec3::ZERO, Vec3::X).unwrap(),));
    let slope = world.spawn((Plane::new(Vec3::ZERO, v3(1.0, 1.0, 0.0)).unwrap(),));
    let ball = BallDef::new(v3(3.0, 0.0, 0.0), 0.1)
        .velocity(v3(-10.0, -5.0, 0.0))
        .spawn(&mut world);
    (world, ball, [wall, slope])
}

/// Balls whose centre is behind one of the planes.
fn behind_a_plane(world: &World) -> u64 {
    let planes: Vec<Plane> = world.query::<&Plane>().iter().copied().collect();
    world
        .query::<(&Position, &Radius)>()
        .iter()
        .filter(|(p, _)| planes.iter().any(|plane| plane.signed_distance(p.0) < 0.0))
        .count() as u64
}

#[test]
fn escaped_and_penetration_tell_discrete_from_analytic() {
    // Analytic: the slope is touched first, when (x + y)/√2 = 0.1 on the path (3 - 10t, -5t):
    // t = (3 - 0.1√2)/15 = 0.190572; v = (-10, -5) mirrored about (1, 1)/√2 is (5, 10), away
    // from both planes. Nothing behind a plane, no overlap.
    // Discrete: only the end (-7, -5, 0) is tested, behind both planes. Whichever is resolved
    // first, the ball ends behind the other, moving away from it (not approaching, so no push):
    // - the wall first: v = (10, -5), pushed to x = 0.1; at (0.1, -5) it is 3.46 behind the
    //   slope, moving away from it ((10 - 5)/√2 > 0);
    // - the slope first: v = (5, 10), pushed out along (1, 1)/√2 by 12/√2 + 0.1 to
    //   (-0.929, 1.071): behind the wall, moving away from it (5 > 0).
    // So one escaped ball, overlapping by more than 1.
    let (mut world, ball, [_, slope]) = wedge();
    let mut stepper = Stepper::new(no_gravity());
    let report = step(&mut stepper, &mut world, 1.0);
    assert_eq!(report.stats.ball_plane, 1);
    assert_eq!(report.events[0].b, slope);
    let t = (3.0 - 0.1 * 2f64.sqrt()) / 15.0;
    assert_close_named(report.events[0].time, t, EXACT, "time");
    let expected = v3(3.0 - 10.0 * t, -5.0 * t, 0.0) + v3(5.0, 10.0, 0.0) * (1.0 - t);
    assert_vec_close_named(position(&world, ball), expected, EXACT, "analytic end");
    assert_eq!(report.stats.escaped, 0);
    assert!(report.stats.max_penetration <= EXACT);
    assert_eq!(behind_a_plane(&world), 0);

    let (mut world, ball, _) = wedge();
    stepper.config.strategy = ToiMode::Discrete;
    let report = step(&mut stepper, &mut world, 1.0);
    assert!(report.stats.ball_plane >= 1, "{:?}", report.events);
    assert_eq!(report.stats.escaped, 1, "{:?}", report.stats);
    assert_eq!(behind_a_plane(&world), 1, "at {}", position(&world, ball));
    assert!(
        report.stats.max_penetration > 1.0,
        "penetration {}",
        report.stats.max_penetration
    );
}

#[test]
fn discrete_leaves_an_overlap_that_analytic_prevents() {
    // Two balls of radius 0.5 (equal default masses) on parallel paths 0.8 apart: A from
    // (-5, 0, 0) at +10, B from (5, 0.8, 0) at -10.
    // - Analytic: they touch when the x offset is 0.6 (0.6² + 0.8² = 1): t = (10 - 0.6)/20 =
    //   0.47, A at (-0.3, 0, 0), B at (0.3, 0.8, 0); normal from B to A (-0.6, -0.8, 0);
    //   approach 20 · 0.6 = 12, so each changes by 12 along it: vA = (10, 0) + 12 (-0.6, -0.8)
    //   = (2.8, -9.6, 0), vB = (-2.8, 9.6, 0). No overlap at the end.
    // - Discrete, step 0.5: the end ((0, 0, 0) and (0, 0.8, 0)) overlaps by 0.2, but the pair
    //   is sliding there (relative velocity along x, normal along y): no impulse, the overlap
    //   stays and is reported.
    // - Discrete, step 1: the end ((5, 0, 0) and (-5, 0.8, 0)) is clear: the crossing is unseen.
    let setup = || {
        let mut world = World::new();
        let a = BallDef::new(v3(-5.0, 0.0, 0.0), 0.5)
            .velocity(v3(10.0, 0.0, 0.0))
            .spawn(&mut world);
        let b = BallDef::new(v3(5.0, 0.8, 0.0), 0.5)
            .velocity(v3(-10.0, 0.0, 0.0))
            .spawn(&mut world);
        (world, a, b)
    };
    let mut stepper = Stepper::new(no_gravity());

    let (mut world, a, b) = setup();
    let report = step(&mut stepper, &mut world, 0.5);
    assert_eq!(report.stats.ball_ball, 1, "{:?}", report.events);
    let e = report.events[0];
    assert_close_named(e.time, 0.47, EXACT, "analytic time");
    let towards_a = if e.a == a {
        v3(-0.6, -0.8, 0.0)
    } else {
        v3(0.6, 0.8, 0.0)
    };
    assert_vec_close_named(e.normal, towards_a, EXACT, "normal from b towards a");
    assert_vec_close_named(velocity(&world, a), v3(2.8, -9.6, 0.0), EXACT, "vA");
    assert_vec_close_named(velocity(&world, b), v3(-2.8, 9.6, 0.0), EXACT, "vB");
    assert!(report.stats.max_penetration <= EXACT);

    stepper.config.strategy = ToiMode::Discrete;
    let (mut world, a, b) = setup();
    let report = step(&mut stepper, &mut world, 0.5);
    assert_eq!(report.stats.collisions, 0, "{:?}", report.events);
    assert_close_named(report.stats.max_penetration, 0.2, EXACT, "overlap left");
    assert_vec_close_named(position(&world, a), Vec3::ZERO, EXACT, "A where it went");
    assert_vec_close_named(
        position(&world, b),
        v3(0.0, 0.8, 0.0),
        EXACT,
        "B where it went",
    );

    let (mut world, a, _) = setup();
    let report = step(&mut stepper, &mut world, 1.0);
    assert_eq!(report.stats.collisions, 0, "{:?}", report.events);
    assert_eq!(report.stats.max_penetration, 0.0);
    assert_eq!(velocity(&world, a), v3(10.0, 0.0, 0.0), "unseen");
}

// ---------------------------------------------------------------------------------------------
// Random scenes
// ---------------------------------------------------------------------------------------------

const HALF: f64 = 1.0;

/// The content of a random scene: a box of six planes (half side 1), an infinite and a capped
/// cylinder, a triangle, and balls of mixed radii (0.03 to 0.06), masses (densities 0.5 to 4),
/// restitutions (a quarter 1, the rest 0.5 to 1) and speeds (`speed`, or 15 times it for about
/// one in seven), clear of all of them.
struct Scene {
    balls: Vec<BallDef>,
    planes: Vec<Plane>,
    cylinders: Vec<Cylinder>,
    polygons: Vec<ConvexPolygon>,
}

fn random_scene(seed: u64, count: u64, speed: f64) -> Scene {
    let mut planes = Vec::new();
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        planes.push(Plane::new(-axis * HALF, axis).unwrap());
        planes.push(Plane::new(axis * HALF, -axis).unwrap());
    }
    let cylinders: Vec<Cylinder> = vec![
        InfiniteCylinder::new(v3(0.5, 0.5, 0.0), Vec3::Z, 0.1)
            .unwrap()
            .into(),
        CappedCylinder::new(v3(-0.5, -0.5, -0.3), v3(-0.5, -0.5, 0.3), 0.15)
            .unwrap()
            .into(),
    ];
    let polygons = vec![
        ConvexPolygon::new(vec![
            v3(0.2, 0.0, -0.6),
            v3(0.7, 0.3, -0.5),
            v3(0.4, -0.4, -0.2),
        ])
        .unwrap(),
    ];
    let mut rng = Pcg64::seed_from_u64(seed);
    let corner = Vec3::splat(HALF);
    let balls = random_block(-corner, corner, count, 0.06, speed, seed)
        .unwrap()
        .into_iter()
        .filter_map(|ball| {
            // Shrinking keeps the balls apart and inside
            let radius = ball.radius * (0.5 + 0.5 * rng.random::<f64>());
            let density = 0.5 + 3.5 * rng.random::<f64>();
            let restitution = if rng.random::<f64>() < 0.25 {
                1.0
            } else {
                0.5 + 0.5 * rng.random::<f64>()
            };
            // A few fast ones: 45 per unit time, several radii per step of 0.01
            let boost = if rng.random::<f64>() < 0.15 {
                15.0
            } else {
                1.0
            };
            let shape = Ball::new(ball.position, radius);
            let clear = cylinders.iter().all(|c| c.distance(&shape) > 0.01)
                && polygons.iter().all(|p| p.distance(&shape) > 0.01);
            clear.then(|| {
                BallDef::new(ball.position, radius)
                    .velocity(ball.velocity * boost)
                    .mass(density * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3))
                    .restitution(restitution)
            })
        })
        .collect();
    Scene {
        balls,
        planes,
        cylinders,
        polygons,
    }
}

fn spawn_scene(world: &mut World, scene: &Scene) -> Vec<Entity> {
    for plane in &scene.planes {
        world.spawn((*plane,));
    }
    for cylinder in &scene.cylinders {
        world.spawn((*cylinder,));
    }
    for polygon in &scene.polygons {
        world.spawn((polygon.clone(),));
    }
    scene
        .balls
        .iter()
        .map(|ball| ball.clone().spawn(world))
        .collect()
}

/// Step a random scene and check, every step: the report's consistency; that collisions never
/// add kinetic energy; nothing escaped or overlapping; every ball inside the walls and outside
/// the cylinders.
fn run_random_scene(seed: u64, gravity: Vec3, steps: usize) {
    let dt = 0.01;
    let scene = random_scene(seed, 60, 3.0);
    assert!(scene.balls.len() >= 40, "kept {} balls", scene.balls.len());
    assert!(
        scene.balls.iter().any(|b| b.restitution < 1.0)
            && scene.balls.iter().any(|b| b.restitution == 1.0)
    );
    let mut world = World::new();
    let balls = spawn_scene(&mut world, &scene);
    let mut stepper = Stepper::new(StepConfig {
        gravity,
        ..StepConfig::default()
    });
    let mut collisions = [0u64; 4];
    let mut queries = 0;
    for k in 0..steps {
        // Flight is exact: energy (kinetic plus gravity's potential) changes only at
        // collisions, which may only take it away; resting contacts take the rest of the
        // step's gravity at once, which cannot add any either
        let mechanical = |world: &World| -> (f64, f64) {
            world
                .query::<(&Position, &Velocity, &Mass)>()
                .iter()
                .map(|(p, v, m)| {
                    let (kinetic, potential) =
                        (0.5 * m.0 * v.0.length_squared(), -m.0 * gravity.dot(p.0));
                    (kinetic + potential, kinetic.abs() + potential.abs())
                })
                .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
        };
        let (before, scale) = mechanical(&world);
        let report = step(&mut stepper, &mut world, dt);
        let s = report.stats;
        queries += s.toi_queries;
        let (after, _) = mechanical(&world);
        assert!(
            after <= before + 1e-12 * scale,
            "seed {seed}, step {k}: energy rose from {before} to {after}"
        );
        assert_eq!(s.escaped, 0, "seed {seed}, step {k}");
        assert_eq!(s.events_cap_hits, 0, "seed {seed}, step {k}");
        assert!(
            s.max_penetration <= 1e-9,
            "seed {seed}, step {k}: overlap {}",
            s.max_penetration
        );
        for (i, count) in [s.ball_ball, s.ball_plane, s.ball_cylinder, s.ball_polygon]
            .into_iter()
            .enumerate()
        {
            collisions[i] += count;
        }
        for &b in &balls {
            let p = position(&world, b);
            let r = world.get::<&Radius>(b).unwrap().0;
            assert!(
                p.abs().max_element() <= HALF - r + 1e-9,
                "seed {seed}, step {k}: ball at {p} (radius {r}) outside the box"
            );
            for c in &scene.cylinders {
                assert!(
                    c.proximity(&Ball::new(p, r)).distance >= -1e-9,
                    "seed {seed}, step {k}: ball at {p} inside a cylinder"
                );
            }
        }
    }
    // The scene exercises every kind of pair (so the checks above mean something); a quiet
    // step may ask nothing where predictions are kept, a run asks many
    assert!(queries >= steps as u64, "seed {seed}: {queries} queries");
    assert!(
        collisions.iter().all(|&c| c > 0),
        "seed {seed}: collisions by kind {collisions:?}"
    );
}

#[test]
fn random_scenes_without_gravity_lose_energy_and_keep_their_balls() {
    for seed in [1, 2] {
        run_random_scene(seed, Vec3::ZERO, 300);
    }
}

#[test]
fn random_scenes_with_gravity_lose_energy_and_keep_their_balls() {
    for seed in 1..=20 {
        run_random_scene(seed, v3(0.0, -9.81, 0.0), 300);
    }
}

#[test]
fn a_ball_resting_off_centre_on_another_does_not_stall_the_step() {
    // First seen in a random scene (6,589 events between two balls resting on the floor, then
    // the cap and an overlap of 1.1e-3); this is that contact alone.
    // Floor y = 0; ball B (radius 0.5, mass 1) at rest on it at (0, 0.5, 0); ball A (the same)
    // at rest on B, touching it with the unit offset (x, √(1 - x²), 0); default gravity and
    // rest speed, steps of 0.01. A slides off B: each step has a few contacts (floor-B, B-A at
    // t = 0, then A and B part). Nothing should need more than a few dozen events, and the cap
    // (1000 + 100 · 2 = 1200) should never be reached.
    // What happens instead: a resting contact (approach below the rest speed, e = 0) leaves the
    // pair's relative normal velocity at rounding level, sometimes still approaching by ~1e-17;
    // the touching pair is predicted again at the same instant, and the impulse that would
    // cancel that approach (~1e-21) is below the resolution of velocities of ~0.05, so the
    // velocities do not change and the same event repeats until the cap: the remaining events
    // of the step are dropped and balls end overlapping (up to 4.9e-4 here, 1.1e-3 in a
    // random scene).
    for x in [0.05, 0.15, 0.25, 0.35, 0.4] {
        let mut world = World::new();
        world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(),));
        BallDef::new(v3(0.0, 0.5, 0.0), 0.5)
            .mass(1.0)
            .spawn(&mut world);
        BallDef::new(v3(x, 0.5 + (1.0 - x * x).sqrt(), 0.0), 0.5)
            .mass(1.0)
            .spawn(&mut world);
        let mut stepper = Stepper::new(StepConfig::default());
        for k in 0..3 {
            let report = step(&mut stepper, &mut world, 0.01);
            let s = report.stats;
            assert_eq!(s.events_cap_hits, 0, "x = {x}, step {k}: {s:?}");
            assert!(s.collisions <= 50, "x = {x}, step {k}: {s:?}");
            assert!(s.max_penetration <= 1e-9, "x = {x}, step {k}: {s:?}");
        }
    }
}

#[test]
fn an_elastic_random_scene_conserves_energy() {
    // Every restitution 1 and no gravity: kinetic energy constant to 1e-12 relative.
    let mut scene = random_scene(5, 60, 3.0);
    for ball in &mut scene.balls {
        ball.restitution = 1.0;
    }
    let mut world = World::new();
    spawn_scene(&mut world, &scene);
    let e0 = kinetic_energy(&world);
    let mut stepper = Stepper::new(no_gravity());
    let mut collisions = 0;
    for k in 0..300 {
        let s = step(&mut stepper, &mut world, 0.01).stats;
        collisions += s.collisions;
        assert!(
            (s.kinetic_energy - e0).abs() <= 1e-12 * e0,
            "step {k}: {} vs {e0}",
            s.kinetic_energy
        );
    }
    assert!(collisions > 100, "{collisions} collisions");
}

// ---------------------------------------------------------------------------------------------
// Owning the world
// ---------------------------------------------------------------------------------------------

#[test]
fn simulation_and_hand_owned_world_agree_bit_for_bit() {
    let scene = random_scene(6, 60, 3.0);
    let config = StepConfig {
        gravity: v3(0.0, -9.81, 0.0),
        ..StepConfig::default()
    };
    let dt = 0.01;

    let mut sim = Simulation::new(config.clone());
    for plane in &scene.planes {
        sim.add_plane(*plane);
    }
    for cylinder in &scene.cylinders {
        sim.add_cylinder(*cylinder);
    }
    for polygon in &scene.polygons {
        sim.add_polygon(polygon.clone());
    }
    let sim_balls: Vec<Entity> = scene
        .balls
        .iter()
        .map(|b| sim.spawn_ball(b.clone()))
        .collect();

    let mut world = World::new();
    let balls = spawn_scene(&mut world, &scene);
    let mut stepper = Stepper::new(config);
    assert_eq!(sim_balls, balls, "the same entities");

    let mut collisions = 0;
    for k in 0..200 {
        let a = sim.step(dt).unwrap().clone();
        let b = stepper.step(&mut world, dt).unwrap();
        assert_eq!(&a, b, "step {k}: the same report");
        collisions += a.stats.collisions;
        assert_eq!(snapshot(&sim.world), snapshot(&world), "step {k}");
    }
    assert!(collisions > 0);
    assert_eq!(sim.steps(), 200);
    assert_close_named(sim.time(), 2.0, EXACT, "simulated time");
}

// ---------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------

/// Three good balls between planes, stepped once so that the report is not empty.
fn small_world() -> (Simulation, Vec<Entity>) {
    let mut sim = Simulation::new(no_gravity());
    sim.add_plane(Plane::new(Vec3::ZERO, Vec3::X).unwrap());
    // At x = 0.5, 3 and 5 moving (-1, 0.1, 0): the first bounces at t = 0.25 and meets no other
    // within the step of 1 (the second is 2 away then, closing at 2).
    let balls = [0.5, 3.0, 5.0]
        .into_iter()
        .map(|x| sim.spawn_ball(BallDef::new(v3(x, 0.0, 0.0), 0.25).velocity(v3(-1.0, 0.1, 0.0))))
        .collect();
    sim.step(1.0).unwrap();
    assert_eq!(sim.report().stats.collisions, 1, "the first ball bounced");
    (sim, balls)
}

#[test]
fn a_bad_dt_is_refused_and_changes_nothing() {
    for dt in [
        0.0,
        -0.0,
        -1.0,
        -1e-300,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let (mut sim, _) = small_world();
        let (before, report, steps, time) = (
            snapshot(&sim.world),
            sim.report().clone(),
            sim.steps(),
            sim.time(),
        );
        let error = sim.step(dt).unwrap_err();
        match error {
            StepError::InvalidDt(x) => assert_eq!(x.to_bits(), dt.to_bits(), "{dt}"),
            ref other => panic!("dt {dt}: {other:?}"),
        }
        let text = error.to_string();
        assert!(
            text.contains("allowed: a finite number > 0"),
            "dt {dt}: {text}"
        );
        assert_eq!(snapshot(&sim.world), before, "dt {dt}: world unchanged");
        assert_eq!(sim.report(), &report, "dt {dt}: report unchanged");
        assert_eq!((sim.steps(), sim.time()), (steps, time), "dt {dt}: clock");
        // The stepper itself refuses it the same way
        let mut world = std::mem::take(&mut sim.world);
        let mut stepper = Stepper::new(no_gravity());
        assert!(matches!(
            stepper.step(&mut world, dt),
            Err(StepError::InvalidDt(_))
        ));
        assert_eq!(snapshot(&world), before, "dt {dt}: world unchanged");
    }
}

#[test]
fn a_bad_ball_is_refused_by_entity_and_changes_nothing() {
    type Spoil = fn(&World, Entity);
    let cases: [(&str, Spoil, &str); 6] = [
        (
            "position",
            |w, e| w.get::<&mut Position>(e).unwrap().0.y = f64::NAN,
            "finite",
        ),
        (
            "velocity",
            |w, e| w.get::<&mut Velocity>(e).unwrap().0.x = f64::INFINITY,
            "finite",
        ),
        (
            "radius",
            |w, e| w.get::<&mut Radius>(e).unwrap().0 = 0.0,
            "> 0",
        ),
        (
            "radius",
            |w, e| w.get::<&mut Radius>(e).unwrap().0 = f64::NAN,
            "> 0",
        ),
        (
            "mass",
            |w, e| w.get::<&mut Mass>(e).unwrap().0 = -1.0,
            "> 0",
        ),
        (
            "restitution",
            |w, e| w.get::<&mut Restitution>(e).unwrap().0 = 1.5,
            "0 to 1",
        ),
    ];
    for (field, spoil, allowed_text) in cases {
        let (mut sim, balls) = small_world();
        // The middle one: the error must name it, not just the first ball
        let bad = balls[1];
        spoil(&sim.world, bad);
        let (before, report, steps) = (snapshot(&sim.world), sim.report().clone(), sim.steps());
        let error = sim.step(0.1).unwrap_err();
        match &error {
            StepError::InvalidBall { entity, field: f } => {
                assert_eq!(*entity, bad, "{field}: the bad ball");
                assert_eq!(f.name(), field);
                assert!(f.allowed().contains(allowed_text), "{field}: {f:?}");
            }
            other => panic!("{field}: {other:?}"),
        }
        let text = error.to_string();
        assert!(text.contains(field), "{text}");
        assert!(text.contains(&format!("{bad:?}")), "names the ball: {text}");
        assert!(text.contains("allowed:"), "{text}");
        assert!(text.contains(allowed_text), "{text}");
        assert_eq!(snapshot(&sim.world), before, "{field}: world unchanged");
        assert_eq!(sim.report(), &report, "{field}: report unchanged");
        assert_eq!(sim.steps(), steps);
        // Remove the bad ball and the world steps again
        sim.world.despawn(bad).unwrap();
        assert!(sim.step(0.1).is_ok(), "{field}: steps without it");
    }
}

#[test]
fn stats_of_an_empty_step_are_zero_but_the_energy() {
    // One free ball, no statics: nothing to collide with, yet the energy is measured:
    // m = 2, v = (3, 4, 0): energy ½ · 2 · 25 = 25, momentum (6, 8, 0).
    let mut world = World::new();
    BallDef::new(Vec3::ZERO, 0.5)
        .mass(2.0)
        .velocity(v3(3.0, 4.0, 0.0))
        .spawn(&mut world);
    let mut stepper = Stepper::new(no_gravity());
    let report = step(&mut stepper, &mut world, 0.1);
    assert_eq!(
        report.stats,
        StepStats {
            kinetic_energy: 25.0,
            momentum: [6.0, 8.0, 0.0],
            toi_queries: report.stats.toi_queries,
            ..StepStats::default()
        }
    );
    assert!(report.events.is_empty());
}

/// The stepper measures overlaps and escapes from the contacts its queries find, not by a pass
/// over every ball: balls placed by hand behind a floor, inside a capped cylinder and
/// overlapping one another, all still, are each reported, among many clear balls (the grid path)
/// and alone (a small world).
#[test]
fn overlaps_and_escapes_placed_by_hand_are_measured() {
    for crowd in [0, 200] {
        let mut world = World::new();
        world.spawn((Plane::new(v3(0.0, -1.0, 0.0), Vec3::Y).unwrap(),));
        let post = CappedCylinder::new(v3(3.0, -1.0, 0.0), v3(3.0, 2.0, 0.0), 0.5).unwrap();
        world.spawn((Cylinder::from(post),));
        // Clear balls, still, on a lattice above the floor
        for k in 0..crowd {
            let p = v3(
                -4.0 + (k % 20) as f64 * 0.3,
                0.0 + (k / 20) as f64 * 0.3,
                -3.0,
            );
            BallDef::new(p, 0.1).spawn(&mut world);
        }
        // Behind the floor by 0.3 (centre 0.2 under it), inside the post, and two overlapping
        // by 0.15
        BallDef::new(v3(-2.0, -1.2, 2.0), 0.1).spawn(&mut world);
        BallDef::new(v3(3.0, 0.5, 0.0), 0.1).spawn(&mut world);
        BallDef::new(v3(0.0, 1.0, 2.0), 0.1).spawn(&mut world);
        BallDef::new(v3(0.05, 1.0, 2.0), 0.1).spawn(&mut world);

        let mut stepper = Stepper::new(no_gravity());
        let stats = stepper.step(&mut world, 1.0 / 60.0).unwrap().stats;
        assert_eq!(stats.escaped, 2, "crowd {crowd}: {stats:?}");
        // The ball in the post: 0.5 from its axis to its side, plus its radius
        assert_close_named(stats.max_penetration, 0.6, EXACT, "deepest overlap");
        assert_eq!(stats.collisions, 0, "all still");
    }
}

// ---------------------------------------------------------------------------------------------
// Paths that hold across steps

fn path(world: &World, e: Entity) -> toibox::sim::Path {
    *world.get::<&toibox::sim::Path>(e).unwrap()
}

/// With the analytic strategy, a ball's path holds from step to step until it changes course:
/// the stepper computes its position from where the path began. An epoch of the clock ends
/// after 64 steps, and every path then starts anew where its ball is. Under gravity a path
/// holds after a step in which nothing rested (a ball in flight); with a sampling strategy,
/// every path starts anew at every step (and ends with it).
#[test]
fn paths_hold_across_steps_with_the_exact_strategy() {
    let dt = 1.0 / 60.0;
    let mut world = World::new();
    let start = v3(0.1, 0.2, 0.3);
    let v = v3(1.0, -0.5, 0.25);
    let ball = BallDef::new(start, 0.1).velocity(v).spawn(&mut world);
    let mut stepper = Stepper::new(no_gravity());
    let mut epochs = 0;
    let mut clock = 0.0;
    for k in 1..=200 {
        let before = position(&world, ball);
        stepper.step(&mut world, dt).unwrap();
        let q = path(&world, ball);
        assert_eq!(q.velocity, v);
        // Where the world says it is, the path says it is
        assert_eq!(position(&world, ball), q.at(q.until), "step {k}");
        if q.time == 0.0 && q.origin == before {
            // A new epoch began with this step
            epochs += 1;
            clock = 0.0;
        } else {
            assert_eq!(q.time, 0.0, "step {k}: the path began with its epoch");
        }
        clock += dt;
        assert_close_named(q.until, clock, 1e-12, "the clock");
        assert!(q.until < 65.0 * dt, "step {k}: an epoch ends");
        assert_close_named(
            position(&world, ball).x,
            start.x + v.x * dt * k as f64,
            1e-12,
            "x",
        );
    }
    // The first step and every 64 or so after it
    assert!((3..=4).contains(&epochs), "{epochs} epochs in 200 steps");

    // With a sampling strategy, paths start anew at each step
    let mut stepper = Stepper::new(StepConfig {
        strategy: ToiMode::Sliced { slices: 10 },
        ..no_gravity()
    });
    for k in 0..3 {
        stepper.step(&mut world, dt).unwrap();
        // Ended where the ball is, at the end of a step that began at time 0
        let q = path(&world, ball);
        let here = position(&world, ball);
        assert_eq!((q.origin, q.time, q.until), (here, dt, dt), "step {k}");
    }

    // Under gravity, a parabola that holds from step to step (the clock above was left by
    // straight paths: none holds under gravity, so a new epoch begins)
    let gravity = StepConfig::default().gravity;
    let mut stepper = Stepper::new(StepConfig::default());
    stepper.step(&mut world, dt).unwrap();
    let first = path(&world, ball);
    assert_eq!((first.time, first.until), (0.0, dt));
    assert_eq!(first.acceleration, gravity);
    for k in 2..=20 {
        stepper.step(&mut world, dt).unwrap();
        let q = path(&world, ball);
        assert_eq!(
            (q.origin, q.velocity, q.time),
            (first.origin, first.velocity, 0.0)
        );
        assert_close_named(q.until, f64::from(k) * dt, 1e-12, "the clock");
        assert_eq!(position(&world, ball), q.at(q.until), "step {k}");
        assert_eq!(velocity(&world, ball), q.velocity_at(q.until), "step {k}");
    }

    // A ball lying on a floor rests in every step: no clock is left, and its path starts anew
    let floor = world.spawn((Plane::new(v3(0.0, -10.0, 0.0), Vec3::Y).unwrap(),));
    world.get::<&mut Position>(ball).unwrap().0 = v3(0.0, -9.9, 0.0);
    world.get::<&mut Velocity>(ball).unwrap().0 = Vec3::ZERO;
    for k in 0..5 {
        stepper.step(&mut world, dt).unwrap();
        let q = path(&world, ball);
        assert!(q.until.is_infinite(), "step {k}: {q:?}");
        // The first of these steps went on from the clock the ball's flight left
        if k > 0 {
            assert_eq!(q.time, dt, "step {k}: began with its step");
        }
    }
    world.despawn(floor).unwrap();
}

/// An elastic, frictionless box of side 4 under gravity along a random direction (1 to 20),
/// with a capped and an infinite cylinder and a square plate across it, and 12 balls of radii
/// 0.01 to 0.2 at speeds up to 30, stepped with one of steps of 1 ms to 0.5: nothing rests in
/// most steps, so paths and predictions hold across them.
fn falling_elastic_world(seed: u64) -> (World, Vec3, f64) {
    let mut rng = Pcg64::seed_from_u64(seed + 31_000);
    let mut world = World::new();
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        for side in [-2.0, 2.0] {
            world.spawn((Plane::new(axis * side, -axis * side.signum()).unwrap(),));
        }
    }
    let can = CappedCylinder::new(v3(-1.5, -1.0, -0.5), v3(1.0, -0.5, 0.5), 0.3).unwrap();
    world.spawn((Cylinder::from(can),));
    let rod = InfiniteCylinder::new(v3(0.0, 1.0, 0.0), v3(0.3, 0.0, 1.0), 0.15).unwrap();
    world.spawn((Cylinder::from(rod),));
    let plate = ConvexPolygon::new(vec![
        v3(0.5, 0.0, -1.5),
        v3(1.5, 0.2, -1.5),
        v3(1.5, 0.2, -0.5),
        v3(0.5, 0.0, -0.5),
    ])
    .unwrap();
    world.spawn((plate.clone(),));
    let mut placed: Vec<(Vec3, f64)> = Vec::new();
    while placed.len() < 12 {
        let r = 0.01 * 20.0_f64.powf(rng.random_range(0.0..1.0));
        let p = v3(
            rng.random_range(-2.0 + r..2.0 - r),
            rng.random_range(-2.0 + r..2.0 - r),
            rng.random_range(-2.0 + r..2.0 - r),
        );
        let ball = Ball::new(p, r);
        let clear = placed.iter().all(|(q, s)| q.distance(p) > r + s)
            && can.proximity(&ball).distance > 0.0
            && rod.proximity(&ball).distance > 0.0
            && plate.proximity(&ball).distance > 0.0;
        if clear {
            placed.push((p, r));
        }
    }
    for (p, r) in placed {
        let v = random_vector(&mut rng, 1.0) * rng.random_range(0.0..30.0);
        BallDef::new(p, r).velocity(v).spawn(&mut world);
    }
    let gravity = random_vector(&mut rng, 1.0).normalize() * rng.random_range(1.0..20.0);
    let dt = [1e-3, 1.0 / 60.0, 0.1, 0.5][(seed % 4) as usize];
    (world, gravity, dt)
}

/// Paths kept across steps under gravity are exact as fresh ones: in 72 falling elastic
/// worlds nothing ends inside anything or escapes, energy is kept to 1e-9 of its scale in
/// every step in which nothing rested and never rises in the others (a resting contact is
/// inelastic), and a new stepper at every step gives the same bits. (Seed 26 used to part
/// there: a new stepper met a ball's past graze of the can again at its start, from another
/// normal; seed 63 lost energy in a calm step: a resting cluster took a ball's approach to a
/// wall that gravity pulls it away from, and reported nothing.)
#[test]
fn kept_paths_under_gravity_let_nothing_through_and_keep_energy() {
    let mut calm = [0, 0];
    for seed in 0..72 {
        let (mut world, gravity, dt) = falling_elastic_world(seed);
        let (mut twin, ..) = falling_elastic_world(seed);
        let config = StepConfig {
            gravity,
            ..StepConfig::default()
        };
        let mut stepper = Stepper::new(config.clone());
        for step in 0..150 {
            let (before, scale) = energy(&world, gravity);
            let report = stepper.step(&mut world, dt).unwrap();
            let what = format!("seed {seed}, step {step}");
            assert!(
                report.stats.max_penetration <= 1e-9,
                "{what}: {:?}",
                report.stats
            );
            assert_eq!(report.stats.escaped, 0, "{what}");
            assert_eq!(report.stats.events_cap_hits, 0, "{what}");
            let clock = holds_a_clock(&world);
            calm[usize::from(clock)] += 1;
            // A step in which nothing rested is elastic; a resting contact is not
            let (after, _) = energy(&world, gravity);
            let kept = if clock {
                (after - before).abs()
            } else {
                after - before
            };
            assert!(kept <= 1e-9 * scale, "{what}: {before} -> {after}");
            Stepper::new(config.clone()).step(&mut twin, dt).unwrap();
            let same = world
                .query::<(&Position, &Velocity)>()
                .iter()
                .zip(twin.query::<(&Position, &Velocity)>().iter())
                .all(|(a, b)| a == b);
            assert!(same, "{what}: a new stepper went another way");
        }
    }
    // Most steps went on from the last one's paths
    assert!(
        calm[1] > calm[0],
        "steps without and with a clock: {calm:?}"
    );
}

/// An edit between steps starts a new path where the world puts the ball: a ball moved, or
/// given a new velocity, mid-epoch moves from there, and its neighbours meet it there.
#[test]
fn edits_between_steps_start_new_paths() {
    let dt = 0.1;
    let mut world = World::new();
    let a = BallDef::new(v3(0.0, 0.0, 0.0), 0.1)
        .velocity(v3(1.0, 0.0, 0.0))
        .spawn(&mut world);
    let b = BallDef::new(v3(5.0, 0.0, 0.0), 0.1).spawn(&mut world);
    let mut stepper = Stepper::new(no_gravity());
    for _ in 0..5 {
        stepper.step(&mut world, dt).unwrap();
    }
    let held = path(&world, a);
    assert_eq!(held.time, 0.0, "the path held");
    assert_close_named(position(&world, a).x, 0.5, 1e-12, "x after 5 steps");

    // Moved next to b: they meet within the step, at the gap over the speed
    world.get::<&mut Position>(a).unwrap().0 = v3(4.75, 0.0, 0.0);
    let report = stepper.step(&mut world, dt).unwrap();
    assert_eq!(report.stats.ball_ball, 1, "{:?}", report.events);
    assert_close_named(report.events[0].time, 0.05, 1e-12, "contact time");
    assert_close_named(velocity(&world, b).x, 1.0, 1e-12, "b struck");
    assert_eq!(velocity(&world, a), Vec3::ZERO);

    // Sent back: it goes back from where it is
    let at = position(&world, a);
    world.get::<&mut Velocity>(a).unwrap().0 = v3(-2.0, 0.0, 0.0);
    stepper.step(&mut world, dt).unwrap();
    assert_close_named(position(&world, a).x, at.x - 0.2, 1e-12, "a went back");
    assert_eq!(path(&world, a).velocity, v3(-2.0, 0.0, 0.0));
}

/// Without gravity and with the analytic strategy, predictions outlive the step: a world where
/// nothing changes asks nothing after its first step until its epoch ends, and a pair predicted
/// to meet steps later meets then, at the time predicted from their paths. An edit is
/// re-predicted at once.
#[test]
fn predictions_are_kept_across_steps_until_something_changes() {
    let dt = 0.01;
    let mut world = World::new();
    // A gap of 0.91 at a closing speed of 2: they meet at 0.455, in the 46th step
    let a = BallDef::new(v3(-0.505, 0.0, 0.0), 0.05)
        .velocity(v3(1.0, 0.0, 0.0))
        .spawn(&mut world);
    let b = BallDef::new(v3(0.505, 0.0, 0.0), 0.05)
        .velocity(v3(-1.0, 0.0, 0.0))
        .spawn(&mut world);
    let far = BallDef::new(v3(0.0, 5.0, 0.0), 0.05).spawn(&mut world);
    let mut stepper = Stepper::new(no_gravity());
    let mut met = None;
    for k in 1..=60 {
        let report = stepper.step(&mut world, dt).unwrap();
        let queries = report.stats.toi_queries;
        if k == 1 {
            assert!(queries > 0, "the first step predicts");
        } else if report.events.is_empty() {
            assert_eq!(queries, 0, "step {k}: nothing changed, nothing asked");
        }
        if let Some(e) = report.events.first() {
            assert_eq!((e.a, e.b), (a, b), "step {k}");
            met = Some((k, e.time));
        }
    }
    let (k, time) = met.expect("they met");
    assert_eq!(k, 46);
    assert_close_named(0.01 * 45.0 + time, 0.455, 1e-12, "when they met");

    // An edit is seen at once: the far ball sent at them meets a ball within the step
    world.get::<&mut Position>(far).unwrap().0 = position(&world, a) + v3(0.0, 0.15, 0.0);
    world.get::<&mut Velocity>(far).unwrap().0 = v3(-1.0, -5.0, 0.0);
    let report = stepper.step(&mut world, dt).unwrap();
    assert!(report.stats.toi_queries > 0);
    assert_eq!(report.stats.ball_ball, 1, "{:?}", report.events);
}

#[test]
fn a_thrown_ball_flies_on_its_parabola_and_meets_a_wall_on_time() {
    // Gravity along three directions, a ball thrown from the origin at v0 towards a wall
    // whose normal is -x at x = 3: the centre follows x0 + v0 t + g t²/2 at every step's end,
    // and the wall is met when the x part of the parabola reaches 3 - r, whatever the phase of
    // the step; afterwards the x velocity is reversed and the parabola goes on from there
    let r = 0.25;
    for (k, gravity) in [
        v3(0.0, -9.81, 0.0),
        v3(0.0, -3.0, 4.0),
        v3(-0.5, -9.81, 0.0),
        v3(1.5, -9.81, 0.0),
    ]
    .into_iter()
    .enumerate()
    {
        let mut sim = Simulation::new(StepConfig {
            gravity,
            ..StepConfig::default()
        });
        sim.add_plane(Plane::new(v3(3.0, 0.0, 0.0), -Vec3::X).unwrap());
        let v0 = v3(2.0, 5.0, -1.0);
        let ball = sim.spawn_ball(BallDef::new(Vec3::ZERO, r).velocity(v0));
        let dt = 1.0 / 60.0;
        // x(t) = 2 t + g_x t²/2 = 2.75
        let (a, b, c) = (0.5 * gravity.x, 2.0, -(3.0 - r));
        let t_hit = if a == 0.0 {
            -c / b
        } else {
            (-b + (b * b - 4.0 * a * c).sqrt()) / (2.0 * a)
        };
        let mut met = None;
        for step in 1..=120 {
            let report = sim.step(dt).unwrap();
            let t = step as f64 * dt;
            if let Some(event) = report.events.first() {
                let time = (step - 1) as f64 * dt + event.time;
                met = Some(time);
                assert_close_named(time, t_hit, EXACT, &format!("gravity {k}: the hit"));
                let p_hit = v0 * t_hit + gravity * (0.5 * t_hit * t_hit);
                assert_vec_close_named(event.point, p_hit + Vec3::X * r, 1e-9, "point");
            }
            let expected = match met {
                None => v0 * t + gravity * (0.5 * t * t),
                Some(th) => {
                    // Mirrored in x at the hit: the parabola from the wall onwards
                    let p = v0 * th + gravity * (0.5 * th * th);
                    let mut v = v0 + gravity * th;
                    v.x = -v.x;
                    let s = t - th;
                    p + v * s + gravity * (0.5 * s * s)
                }
            };
            assert_vec_close_named(
                position(&sim.world, ball),
                expected,
                EXACT * 10.0,
                &format!("gravity {k}, step {step}"),
            );
        }
        assert!(met.is_some(), "gravity {k}: never met the wall");
    }
}

#[test]
fn an_elastic_gas_under_gravity_keeps_its_energy() {
    // 60 elastic balls at speed 5 in a closed box, under gravity along three directions, with
    // a rest speed of zero (so no contact is taken as resting, which is inelastic): flight is
    // exact and every collision elastic, so kinetic plus potential energy stays to 1e-9 over
    // 600 steps
    for (seed, gravity) in [
        (1, v3(0.0, -9.81, 0.0)),
        (2, v3(3.0, -2.0, 5.0)),
        (3, v3(0.0, 0.0, -20.0)),
    ] {
        let mut world = World::new();
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            for side in [-1.0, 1.0] {
                world.spawn((Plane::new(axis * side, -axis * side).unwrap(),));
            }
        }
        let block = random_block(Vec3::splat(-1.0), Vec3::splat(1.0), 60, 0.06, 5.0, seed);
        for ball in block.unwrap() {
            ball.spawn(&mut world);
        }
        let mut stepper = Stepper::new(StepConfig {
            gravity,
            rest_speed: Some(0.0),
            ..StepConfig::default()
        });
        let energy = |world: &World| -> f64 {
            world
                .query::<(&Position, &Velocity, &Mass)>()
                .iter()
                .map(|(p, v, m)| 0.5 * m.0 * v.0.length_squared() - m.0 * gravity.dot(p.0))
                .sum()
        };
        let start = energy(&world);
        let mut worst: f64 = 0.0;
        let mut collisions = 0;
        for _ in 0..600 {
            collisions += step(&mut stepper, &mut world, 1.0 / 60.0).stats.collisions;
            worst = worst.max((energy(&world) - start).abs() / start.abs());
        }
        println!("seed {seed}: {collisions} collisions, energy drift {worst:e} at worst");
        assert!(collisions > 1000, "seed {seed}: {collisions}");
        assert!(worst <= 1e-9, "seed {seed}: energy drift {worst:e}");
    }
}
