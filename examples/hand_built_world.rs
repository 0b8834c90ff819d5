//! Headless embedding: your own hecs world, built by hand, stepped, and read back.
//!
//! A box with a floor and four walls, a capped cylinder lying across it, a triangular ramp, and
//! a dozen balls dropped from above. After five simulated seconds every ball is still inside,
//! none ever rose above its drop height, most of the energy is gone, and the events say what
//! hit what.
//!
//! Run with `cargo run --example hand_built_world`.

use toibox::hecs;
use toibox::sim::{Radius, kinetic_energy};
use toibox::{
    BallDef, CappedCylinder, ConvexPolygon, Cylinder, PairKind, Plane, Position, StepConfig,
    Stepper, Vec3,
};

fn main() {
    let mut world = hecs::World::new();

    // The box: floor at y = 0, walls at x, z = ±2
    world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(),));
    for (point, normal) in [
        (Vec3::new(-2.0, 0.0, 0.0), Vec3::X),
        (Vec3::new(2.0, 0.0, 0.0), -Vec3::X),
        (Vec3::new(0.0, 0.0, -2.0), Vec3::Z),
        (Vec3::new(0.0, 0.0, 2.0), -Vec3::Z),
    ] {
        world.spawn((Plane::new(point, normal).unwrap(),));
    }
    // A log across the box and a ramp
    let log = CappedCylinder::new(Vec3::new(-1.5, 0.4, 0.0), Vec3::new(1.5, 0.4, 0.0), 0.3);
    world.spawn((Cylinder::Capped(log.unwrap()),));
    let ramp = ConvexPolygon::new(vec![
        Vec3::new(-2.0, 1.5, -2.0),
        Vec3::new(-2.0, 1.5, 2.0),
        Vec3::new(0.0, 0.5, 0.0),
    ]);
    world.spawn((ramp.unwrap(),));

    // A dozen balls on a grid above it all
    let balls: Vec<hecs::Entity> = (0..12)
        .map(|n| {
            let (x, z) = (-1.5 + (n % 4) as f64, -1.0 + (n / 4) as f64);
            BallDef::new(Vec3::new(x, 3.0 + 0.3 * n as f64, z), 0.15)
                .velocity(Vec3::new(0.5, 0.0, -0.3))
                .restitution(0.7)
                .spawn(&mut world)
        })
        .collect();

    let mut stepper = Stepper::new(StepConfig::default());
    let dt = 1.0 / 120.0;
    let mut counts = [0u64; 4];
    let start_energy = kinetic_energy(&world) + potential_energy(&world);
    let drop_heights: Vec<f64> = balls
        .iter()
        .map(|&b| world.get::<&Position>(b).unwrap().0.y)
        .collect();
    for _ in 0..600 {
        let report = stepper.step(&mut world, dt).expect("a valid world");
        for event in &report.events {
            counts[PairKind::ALL.iter().position(|k| *k == event.kind).unwrap()] += 1;
            assert!(event.time >= 0.0 && event.time <= dt);
            assert!((event.normal.length() - 1.0).abs() < 1e-12);
        }
        assert_eq!(report.stats.escaped, 0, "a ball left the box");
        for (&ball, &height) in balls.iter().zip(&drop_heights) {
            let y = world.get::<&Position>(ball).unwrap().0.y;
            assert!(y <= height, "a ball rose from {height} to {y}");
        }
    }
    let energy = kinetic_energy(&world) + potential_energy(&world);
    assert!(
        energy < 0.5 * start_energy,
        "{start_energy} J -> {energy} J"
    );

    for kind in PairKind::ALL {
        let n = counts[PairKind::ALL.iter().position(|k| *k == kind).unwrap()];
        println!("{:<14} {n} collisions", kind.name());
    }
    for ball in balls {
        let p = world.get::<&Position>(ball).unwrap().0;
        let r = world.get::<&Radius>(ball).unwrap().0;
        assert!(p.y >= r - 1e-9, "ball below the floor at {p}");
        assert!(
            p.x.abs() <= 2.0 - r + 1e-9 && p.z.abs() <= 2.0 - r + 1e-9,
            "outside at {p}"
        );
    }
    assert!(
        counts[1] > 0 && counts[2] > 0,
        "balls hit the floor and the log"
    );
    println!(
        "all 12 balls inside and below their drop heights; energy {start_energy:.3} J -> {energy:.3} J"
    );
}

/// Potential energy of the balls in the default gravity, measured from the floor.
fn potential_energy(world: &hecs::World) -> f64 {
    world
        .query::<(&Position, &toibox::sim::Mass)>()
        .iter()
        .map(|(p, m)| m.0 * 9.81 * p.0.y)
        .sum()
}
