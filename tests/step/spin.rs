//! Spin: a ball's angular velocity is kept (frictionless contacts exert no torque), turns its
//! orientation exactly, counts in the energy, survives snapshots, and is checked like any value.

use crate::common::{v3, velocity};
use toibox::hecs::World;
use toibox::scene::{Scene, SceneError, Snapshot};
use toibox::sim::{Radius, kinetic_energy};
use toibox::{
    AngularVelocity, BallDef, BallField, Orientation, Quat, StepConfig, StepError, Stepper, Vec3,
};

fn no_gravity() -> Stepper {
    Stepper::new(StepConfig {
        gravity: Vec3::ZERO,
        ..StepConfig::default()
    })
}

/// The ball's spin; zero without the component.
fn spin_of(world: &World, ball: toibox::hecs::Entity) -> Vec3 {
    world
        .get::<&AngularVelocity>(ball)
        .map_or(Vec3::ZERO, |w| w.0)
}

fn orientation_of(world: &World, ball: toibox::hecs::Entity) -> Quat {
    world.get::<&Orientation>(ball).unwrap().0
}

#[test]
fn a_spinning_ball_keeps_its_spin_and_turns_by_it_exactly() {
    for spin in [v3(0.0, 0.0, 3.0), v3(-1.5, 2.0, 0.25), v3(0.0, 40.0, 0.0)] {
        let mut world = World::new();
        let ball = BallDef::new(Vec3::ZERO, 0.5)
            .velocity(v3(1.0, 0.0, 0.0))
            .spin(spin)
            .spawn(&mut world);
        let mut stepper = no_gravity();
        let (steps, dt) = (250, 0.004);
        for _ in 0..steps {
            stepper.step(&mut world, dt).unwrap();
        }
        assert_eq!(spin_of(&world, ball), spin, "kept bit for bit");
        let expected = Quat::from_scaled_axis(spin * (f64::from(steps) * dt));
        let turned = orientation_of(&world, ball);
        // The same rotation (q and -q are one)
        let closeness = turned.dot(expected).abs();
        assert!(
            (1.0 - closeness).abs() < 1e-12,
            "{spin}: {turned} against {expected}"
        );
        assert!((turned.length() - 1.0).abs() < 1e-14);
    }
}

#[test]
fn the_energy_counts_rotation() {
    let mut world = World::new();
    let (m, r, v, w) = (2.0, 0.3, v3(0.5, -1.0, 0.0), v3(4.0, 0.0, -2.0));
    BallDef::new(Vec3::ZERO, r)
        .mass(m)
        .velocity(v)
        .spin(w)
        .spawn(&mut world);
    let expected = 0.5 * m * v.length_squared() + 0.5 * (0.4 * m * r * r) * w.length_squared();
    assert!((kinetic_energy(&world) - expected).abs() <= 1e-15 * expected);
    let mut stepper = no_gravity();
    let report = stepper.step(&mut world, 0.01).unwrap();
    let stats = report.stats.kinetic_energy;
    assert!(
        (stats - expected).abs() <= 1e-15 * expected,
        "{stats} against {expected}"
    );
    let run_energy = toibox::runs::energy(&world, Vec3::ZERO);
    assert!((run_energy - expected).abs() <= 1e-15 * expected);
}

#[test]
fn elastic_collisions_of_spinning_balls_keep_energy_and_spins() {
    let mut world = World::new();
    let spins = [v3(0.0, 5.0, 1.0), v3(-3.0, 0.0, 0.5), v3(0.0, 0.0, 0.0)];
    let balls: Vec<_> = [(-2.0, 1.0), (0.0, 0.0), (2.0, -1.5)]
        .iter()
        .zip(spins)
        .map(|(&(x, vx), w)| {
            BallDef::new(v3(x, 0.01 * x, 0.0), 0.4)
                .velocity(v3(vx, 0.0, 0.0))
                .spin(w)
                .spawn(&mut world)
        })
        .collect();
    let start = kinetic_energy(&world);
    let mut stepper = no_gravity();
    let mut collisions = 0;
    for _ in 0..200 {
        collisions += stepper.step(&mut world, 0.01).unwrap().stats.collisions;
    }
    assert!(collisions >= 2, "{collisions} collisions");
    let end = kinetic_energy(&world);
    assert!((end - start).abs() <= 1e-13 * start, "{start} -> {end}");
    for (&ball, w) in balls.iter().zip(spins) {
        assert_eq!(spin_of(&world, ball), w);
    }
    assert!(
        velocity(&world, balls[0]).x < 0.0,
        "the left ball bounced back"
    );
}

#[test]
fn a_bad_spin_refuses_the_step_and_changes_nothing() {
    for bad in [f64::NAN, f64::INFINITY, 1e60] {
        let mut world = World::new();
        let ball = BallDef::new(Vec3::ZERO, 0.5).spawn(&mut world);
        assert!(
            world.get::<&AngularVelocity>(ball).is_err(),
            "no spin, no component"
        );
        let turned = Orientation(Quat::from_rotation_x(0.5));
        world
            .insert(ball, (AngularVelocity(v3(0.0, bad, 0.0)), turned))
            .unwrap();
        let before = orientation_of(&world, ball);
        let error = no_gravity().step(&mut world, 0.01).unwrap_err();
        assert!(
            matches!(error, StepError::InvalidBall { entity, field: BallField::Spin } if entity == ball),
            "{bad}: {error}"
        );
        assert!(error.to_string().contains("spin"), "{error}");
        assert_eq!(orientation_of(&world, ball), before);
    }
}

#[test]
fn a_snapshot_keeps_spin_and_orientation_bit_for_bit() {
    let mut world = World::new();
    BallDef::new(Vec3::ZERO, 0.5)
        .spin(v3(1.0, 2.0, 3.0))
        .spawn(&mut world);
    BallDef::new(v3(3.0, 0.0, 0.0), 0.5)
        .velocity(v3(-1.0, 0.0, 0.0))
        .spawn(&mut world);
    let mut stepper = no_gravity();
    for _ in 0..37 {
        stepper.step(&mut world, 0.01).unwrap();
    }
    let text = Snapshot::capture(&world).to_ron();
    let mut restored = Snapshot::from_ron(&text, "snapshot")
        .unwrap()
        .restore()
        .unwrap();
    let mut fresh = no_gravity();
    for _ in 0..50 {
        stepper.step(&mut world, 0.01).unwrap();
        fresh.step(&mut restored, 0.01).unwrap();
    }
    assert_eq!(Snapshot::capture(&world), Snapshot::capture(&restored));
    let spins: Vec<_> = restored
        .query::<(&AngularVelocity, &Radius)>()
        .iter()
        .map(|(w, _)| w.0)
        .collect();
    assert!(spins.contains(&v3(1.0, 2.0, 3.0)), "{spins:?}");
}

#[test]
fn scene_files_give_spin_and_check_it() {
    let text = "Scene(dt: 0.01, gravity: (0.0, 0.0, 0.0), \
                balls: [(pos: (0.0, 0.0, 0.0), radius: 0.5, spin: (0.0, 0.0, 6.5))])";
    let scene = Scene::parse(text, "spin.ron").unwrap();
    assert_eq!(scene.balls[0].spin, v3(0.0, 0.0, 6.5));
    let built = scene.build();
    assert_eq!(spin_of(&built.sim.world, built.balls[0]), v3(0.0, 0.0, 6.5));
    for bad in ["(0.0, 0.0, 1e10)", "(0.0, inf, 0.0)"] {
        let text =
            format!("Scene(dt: 0.01, balls: [(pos: (0.0, 0.0, 0.0), radius: 0.5, spin: {bad})])");
        let error = Scene::parse(&text, "spin.ron").unwrap_err();
        assert!(
            matches!(&error, SceneError::Value { field, .. } if field == "balls[0].spin"),
            "{bad}: {error}"
        );
    }
}
