//! Helpers shared by the test files: short and random vector construction, a ball's position,
//! velocity and spin, a world's energy and whether it holds a clock, a configuration without
//! gravity, float comparisons with a stated tolerance, the deepest overlap of a small world's
//! balls, and the shapes several files measure against.

// Each test file uses some of these
#![allow(dead_code)]

use toibox::hecs::{Entity, World};
use toibox::sim::{Mass, Path, Radius};
use toibox::{
    AngularVelocity, CappedCylinder, ConvexPolygon, Position, Real, StepConfig, Vec3, Velocity,
};

/// Kinetic, rotational and potential energy under `gravity` of the world's balls, and the sum
/// of their magnitudes (a scale for rounding).
pub fn energy(world: &World, gravity: Vec3) -> (f64, f64) {
    let mut q = world.query::<(
        &Position,
        &Velocity,
        &Mass,
        &Radius,
        Option<&AngularVelocity>,
    )>();
    q.iter()
        .map(|(p, v, m, r, w)| {
            let kinetic = 0.5 * m.0 * v.0.length_squared();
            let turning = w.map_or(0.0, |w| 0.2 * m.0 * r.0 * r.0 * w.0.length_squared());
            let potential = -m.0 * gravity.dot(p.0);
            (
                kinetic + turning + potential,
                kinetic + turning + potential.abs(),
            )
        })
        .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// True when the world holds a clock to go on from: the last step left its paths holding.
pub fn holds_a_clock(world: &World) -> bool {
    world
        .query::<&Path>()
        .iter()
        .any(|path| path.until.is_finite())
}

/// A random vector, each component uniform in `-half..half`.
pub fn random_vector(rng: &mut impl rand::Rng, half: f64) -> Vec3 {
    v3(
        rng.random_range(-half..half),
        rng.random_range(-half..half),
        rng.random_range(-half..half),
    )
}

/// The spin of `ball` in `world` (zero for a ball without [`AngularVelocity`]).
pub fn spin_of(world: &World, ball: Entity) -> Vec3 {
    world
        .get::<&AngularVelocity>(ball)
        .map_or(Vec3::ZERO, |w| w.0)
}

/// The position of `ball` in `world`.
#[track_caller]
pub fn position(world: &World, ball: Entity) -> Vec3 {
    world.get::<&Position>(ball).expect("a ball").0
}

/// The velocity of `ball` in `world`.
#[track_caller]
pub fn velocity(world: &World, ball: Entity) -> Vec3 {
    world.get::<&Velocity>(ball).expect("a ball").0
}

/// Shorthand for `Vec3::new`.
pub fn v3(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3::new(x, y, z)
}

/// `|actual - expected| <= tol * max(|expected|, 1)`.
#[track_caller]
pub fn assert_close(actual: f64, expected: f64, tol: f64) {
    assert!(
        (actual - expected).abs() <= tol * expected.abs().max(1.0),
        "got {actual}, expected {expected} (tolerance {tol})"
    );
}

/// `|actual - expected| <= tol * max(|expected|, 1)`, for vectors.
#[track_caller]
pub fn assert_vec_close(actual: Vec3, expected: Vec3, tol: f64) {
    assert!(
        (actual - expected).length() <= tol * expected.length().max(1.0),
        "got {actual}, expected {expected} (tolerance {tol})"
    );
}

/// A configuration without gravity (and so with a rest speed of zero: fully elastic).
pub fn no_gravity() -> StepConfig {
    StepConfig {
        gravity: Vec3::ZERO,
        ..StepConfig::default()
    }
}

/// `|actual - expected| <= tol * max(|expected|, 1)`, naming `what` is compared.
#[track_caller]
pub fn assert_close_named(actual: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= tol * expected.abs().max(1.0),
        "{what}: got {actual}, expected {expected} (tolerance {tol})"
    );
}

/// `|actual - expected| <= tol * max(|expected|, 1)`, for vectors, naming `what` is compared.
#[track_caller]
pub fn assert_vec_close_named(actual: Vec3, expected: Vec3, tol: f64, what: &str) {
    assert!(
        (actual - expected).length() <= tol * expected.length().max(1.0),
        "{what}: got {actual}, expected {expected} (tolerance {tol})"
    );
}

/// Cylinder along +y from the origin to (0,4,0), radius 2. The set of centres that touch it
/// for a ball of radius 1: side |x⊥| = 3 for y in [0,4], caps y = -1 and y = 5 within |x⊥| <= 2,
/// and the rims (tori of radii 2 and 1).
pub fn can() -> CappedCylinder {
    CappedCylinder::new(Vec3::ZERO, v3(0.0, 4.0, 0.0), 2.0).unwrap()
}

/// Triangle in z = 0, counter-clockwise around +z (normal +z).
pub fn triangle() -> ConvexPolygon {
    ConvexPolygon::new(vec![
        v3(0.0, 0.0, 0.0),
        v3(4.0, 0.0, 0.0),
        v3(0.0, 4.0, 0.0),
    ])
    .unwrap()
}

/// The deepest overlap of any two balls in `world`, whatever their radii (every pair: small
/// worlds only).
pub fn deepest_overlap(world: &World) -> Real {
    let balls: Vec<(Vec3, Real)> = world
        .query::<(&Position, &Radius)>()
        .iter()
        .map(|(p, r)| (p.0, r.0))
        .collect();
    let mut deepest: Real = 0.0;
    for (i, &(a, ra)) in balls.iter().enumerate() {
        for &(b, rb) in &balls[i + 1..] {
            deepest = deepest.max(ra + rb - a.distance(b));
        }
    }
    deepest
}
