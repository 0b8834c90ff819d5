//! Coulomb's limit: stacks stand exactly when friction can hold them, and slide or roll apart
//! when it cannot.
//!
//! Three equal balls, two on a floor touching and one on top (the classic problem of three
//! stacked cylinders): each bottom ball's torque about its centre needs the friction at the
//! floor to equal that at the top contact, and then its horizontal balance needs
//! `F / N = cos 60° / (1 + sin 60°) = tan 15° = 2 - √3` (0.268) at the top contact, whatever
//! the masses and gravity (the floor needs less). On a frictionless floor the bottom balls
//! cannot be held from turning, so the stack falls at any friction between the balls.

use crate::common::{energy, position, velocity};
use toibox::hecs::{Entity, World};
use toibox::{BallDef, Plane, Real, Sleep, StepConfig, Stepper, Vec3};

/// The friction at which the three-ball stack stands: `2 - √3`.
fn threshold() -> Real {
    2.0 - 3.0_f64.sqrt()
}

/// A three-ball stack of radius `r` on a floor facing `up` (gravity 9.81 against it), balls
/// of friction `mu` (the floor `floor_mu`), restitution 0, the top ball `top_mass` times as
/// heavy as each bottom one: the world, and its balls (bottom, bottom, top).
fn stack(r: Real, up: Vec3, (mu, floor_mu): (Real, Real), top_mass: Real) -> (World, [Entity; 3]) {
    let mut world = World::new();
    world.spawn((
        Plane::new(Vec3::ZERO, up).unwrap(),
        toibox::sim::Friction(floor_mu),
        toibox::sim::Restitution(0.0),
    ));
    let across = if up.x == 0.0 { Vec3::X } else { Vec3::Y };
    let mass = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let ball = |at: Vec3, m: Real, world: &mut World| {
        BallDef::new(at, r)
            .mass(m)
            .friction(mu)
            .restitution(0.0)
            .spawn(world)
    };
    let a = ball(up * r - across * r, mass, &mut world);
    let b = ball(up * r + across * r, mass, &mut world);
    let top = ball(
        up * (r + 2.0 * r * 60f64.to_radians().sin()),
        mass * top_mass,
        &mut world,
    );
    (world, [a, b, top])
}

/// Step the stack for 300 steps of `dt` (5 time units at 1/60); return true when it stood (no
/// ball moved by more than 1e-9 of the radius in any step, every ball still and asleep at the
/// end), false when it fell (the top ball came down by more than a hundredth of a radius; near
/// the threshold it slides slowly). Energy never rises.
fn stands(world: &mut World, balls: [Entity; 3], up: Vec3, dt: Real, what: &str) -> bool {
    let gravity = up * -9.81;
    let mut stepper = Stepper::new(StepConfig {
        gravity,
        ..StepConfig::default()
    });
    let start = balls.map(|b| position(world, b));
    let r = world.get::<&toibox::sim::Radius>(balls[0]).unwrap().0;
    let mut moved = false;
    let steps = (5.0 / dt).round() as usize;
    for step in 0..steps {
        let (before, scale) = energy(world, gravity);
        stepper.step(world, dt).unwrap();
        let (after, _) = energy(world, gravity);
        assert!(
            after <= before + 1e-12 * scale,
            "{what}, step {step}: energy rose from {before} to {after}"
        );
        for (k, &b) in balls.iter().enumerate() {
            moved |= position(world, b).distance(start[k]) > 1e-9 * r;
        }
    }
    let fell = (start[2] - position(world, balls[2])).dot(up) > 0.01 * r;
    assert!(
        moved == fell,
        "{what}: moved {moved} but fell {fell}: top at {}",
        position(world, balls[2])
    );
    if !moved {
        for &b in &balls {
            assert_eq!(
                velocity(world, b),
                Vec3::ZERO,
                "{what}: a ball stood moving"
            );
            let asleep = world.get::<&Sleep>(b).is_ok_and(|s| s.asleep());
            assert!(asleep, "{what}: a ball stood awake");
        }
    }
    !moved
}

#[test]
fn a_three_ball_stack_stands_exactly_when_friction_can_hold_it() {
    // Both sides of 2 - √3 with margins (the 0.02 and 0.5, Rapier's 0.2 and 0.3, and
    // within 0.01 of it), for two radii, top balls of a tenth to ten times the mass, floors
    // facing three ways, and steps of 1/240 to 1/30
    let t = threshold();
    for (r, up, top_mass, dt) in [
        (0.1, Vec3::Y, 1.0, 1.0 / 60.0),
        (0.05, Vec3::X, 10.0, 1.0 / 120.0),
        (1.0, Vec3::Z, 0.1, 1.0 / 30.0),
        (0.1, Vec3::new(0.0, 0.6, 0.8), 3.0, 1.0 / 240.0),
    ] {
        for mu in [0.0, 0.02, 0.2, t - 0.01] {
            let what = format!("r {r}, up {up}, top mass x{top_mass}, dt {dt}, friction {mu}");
            let (mut world, balls) = stack(r, up, (mu, mu), top_mass);
            assert!(
                !stands(&mut world, balls, up, dt, &what),
                "{what}: it stood"
            );
        }
        for mu in [t + 0.01, 0.3, 0.5, 1.0] {
            let what = format!("r {r}, up {up}, top mass x{top_mass}, dt {dt}, friction {mu}");
            let (mut world, balls) = stack(r, up, (mu, mu), top_mass);
            assert!(stands(&mut world, balls, up, dt, &what), "{what}: it fell");
        }
    }
}

#[test]
fn a_three_ball_stack_on_a_frictionless_floor_falls_at_any_friction() {
    for mu in [0.3, 1.0, 5.0] {
        let what = format!("friction {mu} between the balls, none on the floor");
        let (mut world, balls) = stack(0.1, Vec3::Y, (mu, 0.0), 1.0);
        assert!(
            !stands(&mut world, balls, Vec3::Y, 1.0 / 60.0, &what),
            "{what}: it stood"
        );
    }
}
