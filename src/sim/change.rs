//! Change detection: fingerprints of what the stepper wrote, checked against the world.
//!
//! The world is the whole state, and a user may edit anything between steps. What the stepper
//! relies on from one step to the next (today: that a sleeping ball and what it rests on are as
//! they were when it fell asleep) is checked at the start of each step against fingerprints kept
//! in the world itself, in each ball's [`Sleep`](super::Sleep) component:
//!
//! - [`ball`]: the ball's own position, radius, mass and restitution, bit for bit, as the stepper
//!   last wrote them;
//! - [`surroundings`]: every static shape (in any order) and the step configuration, gravity
//!   included.
//!
//! Being in the world, the fingerprints are saved in snapshots and read by a fresh stepper, so a
//! run continues bit for bit however it is resumed. They are FNV-1a hashes, which do not change
//! with the Rust release (as the standard library's hasher may), so a snapshot saved by one
//! build reads the same in another. A collision of two different states is possible in
//! principle (one in 2⁶⁴); it would leave a sleeper asleep after an edit.

use std::hash::Hasher;

use fnv::FnvHasher;

use crate::geometry::Cylinder;
use crate::math::{Real, Vec3};
use crate::toi::ToiMode;

use super::config::StepConfig;
use crate::geometry::StaticShape;

/// A hasher fed with the bits of numbers.
#[derive(Default)]
struct Fingerprint(FnvHasher);

impl Fingerprint {
    fn real(&mut self, x: Real) -> &mut Self {
        self.0.write_u64(x.to_bits());
        self
    }

    fn vec(&mut self, v: Vec3) -> &mut Self {
        self.real(v.x).real(v.y).real(v.z)
    }

    fn tag(&mut self, tag: u8) -> &mut Self {
        self.0.write_u8(tag);
        self
    }

    fn option(&mut self, x: Option<Real>) -> &mut Self {
        match x {
            Some(x) => self.tag(1).real(x),
            None => self.tag(0),
        }
    }

    fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// Return the fingerprint of a ball's own state: its position, radius, mass and restitution, bit
/// for bit.
#[must_use]
pub(crate) fn ball(position: Vec3, radius: Real, mass: Real, restitution: Real) -> u64 {
    Fingerprint::default()
        .vec(position)
        .real(radius)
        .real(mass)
        .real(restitution)
        .finish()
}

/// Return the fingerprint of the statics (each with its restitution; their order does not
/// count, so a snapshot restored with other entities reads the same) and of `config`.
#[must_use]
pub(crate) fn surroundings<'a>(
    statics: impl IntoIterator<Item = (&'a StaticShape, Real, Real)>,
    config: &StepConfig,
) -> u64 {
    let mut shapes: u64 = 0;
    for (shape, restitution, friction) in statics {
        let mut f = Fingerprint::default();
        match shape {
            StaticShape::Plane(p) => f.tag(1).vec(p.point).vec(p.normal),
            StaticShape::Cylinder(Cylinder::Capped(c)) => f.tag(2).vec(c.a).vec(c.b).real(c.radius),
            StaticShape::Cylinder(Cylinder::Infinite(c)) => {
                f.tag(3).vec(c.point).vec(c.axis).real(c.radius)
            }
            StaticShape::Polygon(p) => {
                f.tag(4);
                for &v in p.vertices() {
                    f.vec(v);
                }
                &mut f
            }
        };
        f.real(restitution);
        // Frictionless shapes keep the fingerprints they had before friction
        if friction != 0.0 {
            f.tag(5).real(friction);
        }
        // A sum: the same for any order
        shapes = shapes.wrapping_add(f.finish());
    }
    let mut f = Fingerprint::default();
    f.0.write_u64(shapes);
    f.vec(config.gravity);
    match config.strategy {
        ToiMode::Analytic => f.tag(1),
        ToiMode::Sliced { slices } => f.tag(2).real(Real::from(slices)),
        ToiMode::SlicedBisect { slices, tolerance } => {
            f.tag(3).real(Real::from(slices)).real(tolerance)
        }
        ToiMode::Discrete => f.tag(4),
        // The same strategy, by the address of what the `Arc` holds
        ToiMode::Custom(ref custom) => {
            f.tag(5);
            f.0.write_usize(std::sync::Arc::as_ptr(custom).cast::<()>() as usize);
            &mut f
        }
    };
    f.option(config.rest_speed);
    f.option(config.max_events_per_step.map(|n| n as Real));
    match config.sleep {
        Some(sleep) => f
            .tag(1)
            .option(sleep.speed)
            .real(sleep.drift)
            .real(sleep.time),
        None => f.tag(0),
    };
    f.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Plane;

    fn floor(y: Real) -> StaticShape {
        StaticShape::Plane(Plane::new(Vec3::new(0.0, y, 0.0), Vec3::Y).unwrap())
    }

    #[test]
    fn any_change_of_a_ball_changes_its_fingerprint() {
        let base = ball(Vec3::new(1.0, 2.0, 3.0), 0.5, 2.0, 0.5);
        assert_eq!(base, ball(Vec3::new(1.0, 2.0, 3.0), 0.5, 2.0, 0.5));
        // One bit of one coordinate, and each other value
        let nudged = Real::from_bits(2.0_f64.to_bits() + 1);
        assert_ne!(base, ball(Vec3::new(1.0, nudged, 3.0), 0.5, 2.0, 0.5));
        assert_ne!(base, ball(Vec3::new(1.0, 2.0, 3.0), 0.6, 2.0, 0.5));
        assert_ne!(base, ball(Vec3::new(1.0, 2.0, 3.0), 0.5, 2.5, 0.5));
        assert_ne!(base, ball(Vec3::new(1.0, 2.0, 3.0), 0.5, 2.0, 1.0));
    }

    #[test]
    fn the_surroundings_ignore_the_order_of_the_statics_and_nothing_else() {
        let (a, b) = (floor(0.0), floor(1.0));
        let config = StepConfig::default();
        let both = surroundings([(&a, 1.0, 0.0), (&b, 0.5, 0.0)], &config);
        let swapped = surroundings([(&b, 0.5, 0.0), (&a, 1.0, 0.0)], &config);
        assert_eq!(both, swapped);
        // A static gone, moved, or with another restitution or friction
        assert_ne!(both, surroundings([(&a, 1.0, 0.0)], &config));
        let moved = floor(1.5);
        assert_ne!(
            both,
            surroundings([(&a, 1.0, 0.0), (&moved, 0.5, 0.0)], &config)
        );
        assert_ne!(
            both,
            surroundings([(&a, 1.0, 0.0), (&b, 0.4, 0.0)], &config)
        );
        // Or with friction
        assert_ne!(
            both,
            surroundings([(&a, 1.0, 0.0), (&b, 0.5, 0.3)], &config)
        );
        // Each field of the configuration
        let statics = || [(&a, 1.0, 0.0), (&b, 0.5, 0.0)];
        for other in [
            StepConfig {
                gravity: Vec3::new(0.0, -9.8, 0.0),
                ..config.clone()
            },
            StepConfig {
                strategy: ToiMode::Sliced { slices: 150 },
                ..config.clone()
            },
            StepConfig {
                rest_speed: Some(0.0),
                ..config.clone()
            },
            StepConfig {
                max_events_per_step: Some(1000),
                ..config.clone()
            },
            StepConfig {
                sleep: None,
                ..config.clone()
            },
            StepConfig {
                strategy: ToiMode::custom(crate::toi::Analytic),
                ..config.clone()
            },
        ] {
            assert_ne!(both, surroundings(statics(), &other), "{other:?}");
        }
    }

    #[test]
    fn a_custom_strategy_is_the_same_while_it_is_the_same_arc() {
        let a = floor(0.0);
        let custom = |strategy: &ToiMode| StepConfig {
            strategy: strategy.clone(),
            ..StepConfig::default()
        };
        let mine = ToiMode::custom(crate::toi::Analytic);
        let print = surroundings([(&a, 1.0, 0.0)], &custom(&mine));
        assert_eq!(
            print,
            surroundings([(&a, 1.0, 0.0)], &custom(&mine.clone()))
        );
        // Another strategy, even an equal one, is a change
        let another = ToiMode::custom(crate::toi::Analytic);
        assert_ne!(print, surroundings([(&a, 1.0, 0.0)], &custom(&another)));
        assert_ne!(mine, another);
        assert_eq!(mine, mine.clone());
    }
}
