//! Bad values handed to the stepper by code rather than by a scene file.
//!
//! Covered: every component of a ball made NaN, infinite, zero or negative where that is not
//! allowed, before the first step and between steps; `dt` of zero, negative, not a number,
//! infinite, and so large that a ball's position would overflow; speeds near the largest
//! numbers; balls of radius 1e-6 at coordinates of 1e9; two balls on one spot. Each refused
//! step returns its typed error and leaves every component of every entity as it was, bit for
//! bit, so nothing non-finite reaches the world and no ball is lost; after the bad value is
//! mended, stepping goes on. What is accepted steps without a panic and keeps every number
//! finite.

use hecs::{Entity, World};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use toibox::sim::MAX_LENGTH;
use toibox::sim::{Mass, Radius, Restitution, Sleep};
use toibox::{
    BallDef, BallField, CappedCylinder, Cylinder, InfiniteCylinder, Plane, Position,
    PreviousPosition, StaticFault, StepConfig, StepError, Stepper, Vec3, Velocity,
};

fn v3(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3::new(x, y, z)
}

/// Every component the stepper reads or writes, as bits, by entity.
fn snapshot(world: &World) -> Vec<(Entity, Vec<u64>)> {
    let mut all: Vec<(Entity, Vec<u64>)> = world
        .iter()
        .map(|entity| {
            let e = entity.entity();
            let mut bits = Vec::new();
            let mut vector = |v: Vec3| bits.extend(v.to_array().map(f64::to_bits));
            if let Some(p) = entity.get::<&Position>() {
                vector(p.0);
            }
            if let Some(v) = entity.get::<&Velocity>() {
                vector(v.0);
            }
            if let Some(p) = entity.get::<&PreviousPosition>() {
                vector(p.0);
            }
            if let Some(p) = entity.get::<&toibox::sim::Path>() {
                vector(p.origin);
                vector(p.velocity);
                vector(p.acceleration);
                vector(Vec3::new(p.time, p.until, 0.0));
            }
            if let Some(w) = entity.get::<&toibox::sim::AngularVelocity>() {
                vector(w.0);
            }
            if let Some(o) = entity.get::<&toibox::sim::Orientation>() {
                let [x, y, z, w] = o.0.to_array();
                vector(Vec3::new(x, y, z));
                vector(Vec3::new(w, 0.0, 0.0));
            }
            if let Some(s) = entity.get::<&Sleep>() {
                vector(s.anchor);
                vector(s.gravity);
                bits.push(s.still_for.to_bits());
                bits.push(s.island.map_or(0, |k| k.get()));
            }
            if let Some(r) = entity.get::<&Radius>() {
                bits.push(r.0.to_bits());
            }
            if let Some(m) = entity.get::<&Mass>() {
                bits.push(m.0.to_bits());
            }
            (e, bits)
        })
        .collect();
    all.sort_by_key(|(e, _)| *e);
    all
}

/// A floor and eight balls moving about above it, stepped once so that every component has
/// been written by the stepper.
fn busy_world() -> (World, Vec<Entity>, Stepper) {
    let mut world = World::new();
    world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(),));
    let balls = (0..8)
        .map(|k| {
            let x = f64::from(k) * 1.5;
            BallDef::new(v3(x, 1.0 + 0.1 * f64::from(k), 0.0), 0.5)
                .velocity(v3(if k % 2 == 0 { 2.0 } else { -2.0 }, -1.0, 0.5))
                .spawn(&mut world)
        })
        .collect();
    let mut stepper = Stepper::new(StepConfig::default());
    stepper.step(&mut world, 1.0 / 60.0).unwrap();
    (world, balls, stepper)
}

/// Step `world`, expect a refusal naming `entity` and `field`, and check that nothing changed.
fn expect_refused(world: &mut World, stepper: &mut Stepper, dt: f64, check: impl Fn(&StepError)) {
    let before = snapshot(world);
    let error = stepper
        .step(world, dt)
        .expect_err("a bad value must refuse the step");
    check(&error);
    assert!(!error.to_string().is_empty() && error.to_string().contains("allowed"));
    assert_eq!(
        snapshot(world),
        before,
        "a refused step changes nothing: {error}"
    );
}

#[test]
fn a_bad_ball_value_refuses_the_step_and_changes_nothing() {
    let bad_numbers = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
    type Spoil = fn(&mut World, Entity, f64);
    let cases: [(&str, Spoil, &[f64]); 5] = [
        (
            "position",
            |w, e, x| w.get::<&mut Position>(e).unwrap().0.y = x,
            &bad_numbers,
        ),
        (
            "velocity",
            |w, e, x| w.get::<&mut Velocity>(e).unwrap().0.z = x,
            &bad_numbers,
        ),
        (
            "radius",
            |w, e, x| w.get::<&mut Radius>(e).unwrap().0 = x,
            &[0.0, -0.0, -0.5, f64::NAN, f64::INFINITY],
        ),
        (
            "mass",
            |w, e, x| w.get::<&mut Mass>(e).unwrap().0 = x,
            &[0.0, -1.0, f64::NAN, f64::INFINITY],
        ),
        (
            "restitution",
            |w, e, x| w.get::<&mut Restitution>(e).unwrap().0 = x,
            &[-0.01, 1.01, f64::NAN, f64::INFINITY],
        ),
    ];
    for (field, spoil, values) in cases {
        for &value in values {
            let (mut world, balls, mut stepper) = busy_world();
            let victim = balls[3];
            spoil(&mut world, victim, value);
            expect_refused(&mut world, &mut stepper, 1.0 / 60.0, |error| {
                assert!(
                    matches!(error, StepError::InvalidBall { entity, field: f, .. }
                        if *entity == victim && f.name() == field),
                    "{field} = {value}: {error}"
                );
            });
            // Mended, the world steps on with every ball
            let mended = BallDef::new(v3(4.5, 1.3, 0.0), 0.5);
            world
                .insert(
                    victim,
                    (
                        Position(mended.position),
                        Velocity(Vec3::ZERO),
                        Radius(mended.radius),
                        Mass(mended.mass),
                        Restitution(1.0),
                    ),
                )
                .unwrap();
            stepper.step(&mut world, 1.0 / 60.0).unwrap();
            assert_eq!(world.query::<&Position>().iter().count(), balls.len());
        }
    }
}

#[test]
fn a_bad_dt_refuses_the_step_and_changes_nothing() {
    for dt in [
        0.0,
        -0.0,
        -1.0 / 60.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        let (mut world, _, mut stepper) = busy_world();
        expect_refused(&mut world, &mut stepper, dt, |error| {
            assert!(matches!(error, StepError::InvalidDt(_)), "dt {dt}: {error}");
        });
    }
    // The smallest positive dt is a step like any other
    let (mut world, _, mut stepper) = busy_world();
    stepper.step(&mut world, f64::from_bits(1)).unwrap();
}

#[test]
fn a_step_that_would_overflow_is_refused_whole() {
    // dt so large that the moving balls would leave the finite numbers
    for dt in [1e300, f64::MAX] {
        let (mut world, balls, mut stepper) = busy_world();
        expect_refused(&mut world, &mut stepper, dt, |error| {
            assert!(
                matches!(error, StepError::OutOfRange { entity, .. } if balls.contains(entity)),
                "dt {dt}: {error}"
            );
        });
        // A sensible dt goes on
        stepper.step(&mut world, 1.0 / 60.0).unwrap();
    }
    // Values beyond the range the sweeps are exact in, set between steps: a speed near the
    // largest numbers, a far position, a huge radius
    type Spoil = fn(&mut World, Entity);
    let spoils: [(&str, Spoil); 3] = [
        ("velocity", |w, e| {
            w.get::<&mut Velocity>(e).unwrap().0 = v3(f64::MAX, 0.0, 0.0);
        }),
        ("position", |w, e| {
            w.get::<&mut Position>(e).unwrap().0.z = -2.0 * MAX_LENGTH;
        }),
        ("radius", |w, e| w.get::<&mut Radius>(e).unwrap().0 = 1e300),
    ];
    for (name, spoil) in spoils {
        let (mut world, balls, mut stepper) = busy_world();
        spoil(&mut world, balls[5]);
        expect_refused(&mut world, &mut stepper, 1.0 / 60.0, |error| {
            assert!(
                matches!(error, StepError::OutOfRange { entity, field, .. }
                    if *entity == balls[5] && field.name() == name),
                "{name}: {error}"
            );
        });
    }
    // A speed whose square overflows, with a dt so short that the ball moves only 1e38: the
    // sweep would square the speed, so the step is refused, not run blind
    let mut world = World::new();
    let fast = BallDef::new(Vec3::ZERO, 1.0)
        .velocity(v3(1e300, 0.0, 0.0))
        .spawn(&mut world);
    BallDef::new(v3(2.5, 0.0, 0.0), 1.0).spawn(&mut world);
    let mut stepper = Stepper::new(StepConfig {
        gravity: Vec3::ZERO,
        ..StepConfig::default()
    });
    expect_refused(&mut world, &mut stepper, 1e-262, |error| {
        assert!(
            matches!(error, StepError::OutOfRange { entity, field: BallField::Velocity, .. }
                if *entity == fast),
            "{error}"
        );
    });
    // At the limit of speed, over a short step, the ball strikes the other and bounces back
    world.get::<&mut Velocity>(fast).unwrap().0 = v3(MAX_LENGTH, 0.0, 0.0);
    let report = stepper.step(&mut world, 1e-49).unwrap();
    assert_eq!(report.events.len(), 1, "{report:?}");
    assert!(world.get::<&Velocity>(fast).unwrap().0.x <= 0.0);

    // At the limit, a ball still steps, and bounces off the floor
    let mut world = World::new();
    world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(),));
    let fast = BallDef::new(v3(0.0, 1.0, 0.0), 0.5)
        .velocity(v3(0.0, -MAX_LENGTH, 0.0))
        .spawn(&mut world);
    Stepper::new(StepConfig::default())
        .step(&mut world, 1.0 / 60.0)
        .unwrap();
    let p = world.get::<&Position>(fast).unwrap().0;
    assert!(p.y >= 0.5 && p.is_finite(), "{p}");
    // A huge dt with nothing moving and no gravity is no overflow
    let mut world = World::new();
    BallDef::new(Vec3::ZERO, 1.0).spawn(&mut world);
    let mut still = Stepper::new(StepConfig {
        gravity: Vec3::ZERO,
        ..StepConfig::default()
    });
    still.step(&mut world, 1e300).unwrap();
}

#[test]
fn tiny_balls_far_from_the_origin_step_without_losing_anything() {
    // Radius 1e-6 at coordinates of 1e9, where a coordinate's rounding (1.2e-7) is an eighth of
    // a radius: exactness degrades to that rounding, but every step runs, every number stays
    // finite, no ball is lost, and overlaps stay within a few roundings of a coordinate.
    let mut rng = Pcg64::seed_from_u64(11);
    let mut world = World::new();
    let origin = Vec3::splat(1e9);
    let count = 200;
    for k in 0..count {
        let cell = v3(f64::from(k % 6), f64::from((k / 6) % 6), f64::from(k / 36));
        let velocity = v3(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        ) * 1e-4;
        BallDef::new(origin + cell * 3e-6, 1e-6)
            .velocity(velocity)
            .spawn(&mut world);
    }
    let mut stepper = Stepper::new(StepConfig {
        gravity: Vec3::ZERO,
        ..StepConfig::default()
    });
    let ulp = 1e9f64.next_up() - 1e9;
    let mut collisions = 0;
    for step in 0..300 {
        let stats = stepper.step(&mut world, 1.0 / 60.0).unwrap().stats;
        collisions += stats.collisions;
        assert!(stats.kinetic_energy.is_finite(), "step {step}");
        assert!(
            stats.max_penetration <= 8.0 * ulp,
            "step {step}: overlap {:e} against a rounding of {ulp:e}",
            stats.max_penetration
        );
    }
    assert!(collisions > 0, "the cluster must collide to test anything");
    let positions: Vec<Vec3> = world.query::<&Position>().iter().map(|p| p.0).collect();
    assert_eq!(positions.len(), count as usize);
    assert!(positions.iter().all(|p| p.is_finite()));
}

#[test]
fn two_balls_on_one_spot_move_together_until_they_part() {
    // Documented on the stepper: an overlap is resolved only by a contact, when the pair
    // approaches; balls on one spot with one velocity go on together, with finite numbers.
    let mut world = World::new();
    world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(),));
    let a = BallDef::new(v3(0.0, 2.0, 0.0), 0.5).spawn(&mut world);
    let b = BallDef::new(v3(0.0, 2.0, 0.0), 0.5).spawn(&mut world);
    let mut stepper = Stepper::new(StepConfig::default());
    for _ in 0..240 {
        stepper.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let position = |e: Entity, world: &World| world.get::<&Position>(e).unwrap().0;
    assert_eq!(position(a, &world), position(b, &world));
    assert!(position(a, &world).is_finite());
    // Given velocities apart, they part; given velocities into each other along the pushed
    // direction, they are pushed apart by the contact
    for (va, vb) in [
        (v3(1.0, 0.0, 0.0), Vec3::ZERO),
        (v3(-1.0, 0.0, 0.0), Vec3::ZERO),
    ] {
        let mut world = World::new();
        let a = BallDef::new(Vec3::ZERO, 0.5).velocity(va).spawn(&mut world);
        let b = BallDef::new(Vec3::ZERO, 0.5).velocity(vb).spawn(&mut world);
        let mut stepper = Stepper::new(StepConfig {
            gravity: Vec3::ZERO,
            ..StepConfig::default()
        });
        for _ in 0..120 {
            stepper.step(&mut world, 1.0 / 60.0).unwrap();
        }
        let gap = position(a, &world).distance(position(b, &world));
        assert!(gap >= 1.0 - 1e-12, "va {va}: centres {gap} apart");
        let speed = |e: Entity| world.get::<&Velocity>(e).unwrap().0.length_squared();
        assert!(speed(a) + speed(b) <= va.length_squared() + vb.length_squared() + 1e-12);
    }
}

#[test]
fn a_bad_static_shape_refuses_the_step_and_names_the_fault() {
    type Spoil = fn(&mut World) -> Entity;
    let spoils: [(StaticFault, Spoil); 6] = [
        (StaticFault::Plane, |w| {
            w.spawn((Plane {
                point: v3(0.0, -5.0, 0.0),
                normal: v3(0.0, 2.0, 0.0),
            },))
        }),
        (StaticFault::Plane, |w| {
            w.spawn((Plane {
                point: v3(f64::NAN, -5.0, 0.0),
                normal: Vec3::Y,
            },))
        }),
        (StaticFault::Cylinder, |w| {
            w.spawn((Cylinder::Capped(CappedCylinder {
                a: v3(0.0, -5.0, 0.0),
                b: v3(0.0, -5.0, 0.0),
                radius: 1.0,
            }),))
        }),
        (StaticFault::Cylinder, |w| {
            w.spawn((Cylinder::Infinite(InfiniteCylinder {
                point: v3(20.0, 0.0, 0.0),
                axis: Vec3::Z,
                radius: -1.0,
            }),))
        }),
        (StaticFault::Cylinder, |w| {
            w.spawn((Cylinder::Infinite(InfiniteCylinder {
                point: v3(20.0, 0.0, 0.0),
                axis: v3(0.0, 0.0, 3.0),
                radius: 1.0,
            }),))
        }),
        (StaticFault::Restitution, |w| {
            w.spawn((
                Plane::new(v3(0.0, -5.0, 0.0), Vec3::Y).unwrap(),
                Restitution(1.5),
            ))
        }),
    ];
    for (expected, spoil) in spoils {
        let (mut world, _, mut stepper) = busy_world();
        let shape = spoil(&mut world);
        expect_refused(&mut world, &mut stepper, 1.0 / 60.0, |error| {
            assert!(
                matches!(error, StepError::InvalidStatic { entity, fault }
                    if *entity == shape && *fault == expected),
                "{expected:?}: {error}"
            );
            assert!(error.to_string().contains(expected.allowed()), "{error}");
        });
        // Mended, the same world steps
        world.despawn(shape).unwrap();
        stepper.step(&mut world, 1.0 / 60.0).unwrap();
    }
}
