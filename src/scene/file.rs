//! The scene file: what a RON file says, as serde reads it.
//!
//! Every field is named as in the file; see [`SceneFile`] for the whole format. Unknown fields
//! are refused, so a typo is an error rather than a silently ignored line.

use serde::{Deserialize, Serialize};

use crate::math::{Real, Vec3};
use crate::sim::BallDef;
use crate::toi::ToiMode;

/// A scene as written in a RON file, before its values are checked.
///
/// ```ron
/// Scene(
///     name: "Two balls head-on",
///     dt: 0.01,                   // seconds per step, > 0 (required)
///     steps: 200,                 // default step count for run/compare (optional)
///     gravity: (0.0, 0.0, 0.0),   // optional, default (0.0, -9.81, 0.0)
///     toi: Analytic,              // optional: Sliced(slices: 150), SlicedBisect(slices: 150,
///                                 // tolerance: 1e-9), Discrete
///     restitution: 1.0,           // optional default for balls and shapes, default 1.0
///     friction: 0.0,              // optional default for balls and shapes, default 0.0
///     rolling_resistance: 0.0,    // optional default for balls, default 0.0
///     balls: [(pos: (-2.0, 0.0, 0.0), vel: (1.0, 0.0, 0.0), radius: 0.5,
///              spin: (0.0, 0.0, 3.0),        // rad/s about world axes, optional
///              friction: 0.2)],              // optional, every entry below may have it
///     generators: [Lattice(min: (-1.0, -1.0, -1.0), max: (1.0, 1.0, 1.0), count: 1000,
///                          radius: 0.05, speed: 5.0, seed: 7)],
///     planes: [(point: (0.0, -1.0, 0.0), normal: (0.0, 1.0, 0.0))],
///     cylinders: [Capped(a: (0.0, 0.0, 0.0), b: (0.0, 2.0, 0.0), radius: 0.3)],
///     polygons: [(vertices: [(0.0, 0.0, 5.0), (1.0, 0.0, 5.0), (0.0, 1.0, 5.0)])],
/// )
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Scene", deny_unknown_fields)]
pub struct SceneFile {
    /// A title; default: none.
    #[serde(default)]
    pub name: String,
    /// Time per step, `> 0`.
    pub dt: Real,
    /// Steps that `run` and `compare` take unless told otherwise, `>= 1`; default
    /// [`DEFAULT_STEPS`].
    #[serde(default, with = "whole::option")]
    pub steps: Option<u64>,
    /// Acceleration of every ball; default `(0, -9.81, 0)`.
    #[serde(default = "default_gravity", with = "xyz")]
    pub gravity: Vec3,
    /// How times of impact are found; default [`ToiMode::Analytic`].
    #[serde(default)]
    pub toi: ToiMode,
    /// Restitution of balls and shapes that do not give their own, in `[0, 1]`; default 1.
    #[serde(default = "one")]
    pub restitution: Real,
    /// Coefficient of friction of balls and shapes that do not give their own, `>= 0`;
    /// default 0 (frictionless).
    #[serde(default)]
    pub friction: Real,
    /// Rolling resistance of balls that do not give their own, `>= 0`; default 0.
    #[serde(default)]
    pub rolling_resistance: Real,
    /// Approach speed below which a contact comes to rest instead of bouncing, `>= 0`;
    /// default: the stepper's (see [`StepConfig::rest_speed`](crate::StepConfig::rest_speed)).
    #[serde(default)]
    pub rest_speed: Option<Real>,
    /// Balls one by one.
    #[serde(default)]
    pub balls: Vec<BallEntry>,
    /// Many balls from a few numbers, after the listed ones.
    #[serde(default)]
    pub generators: Vec<GeneratorEntry>,
    /// One-sided planes: balls stay on the side the normal points to.
    #[serde(default)]
    pub planes: Vec<PlaneEntry>,
    /// Capped and infinite cylinders.
    #[serde(default)]
    pub cylinders: Vec<CylinderEntry>,
    /// Flat convex polygons, two-sided.
    #[serde(default)]
    pub polygons: Vec<PolygonEntry>,
}

/// Steps of a run when neither the command line nor the scene says.
pub const DEFAULT_STEPS: u64 = 1000;

/// One ball.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BallEntry {
    /// Centre.
    #[serde(with = "xyz")]
    pub pos: Vec3,
    /// Velocity; default zero.
    #[serde(default, with = "xyz")]
    pub vel: Vec3,
    /// Radius, `> 0`.
    pub radius: Real,
    /// Mass, `> 0`; default: density 1 times the volume.
    #[serde(default)]
    pub mass: Option<Real>,
    /// Restitution in `[0, 1]`; default: the scene's.
    #[serde(default)]
    pub restitution: Option<Real>,
    /// Coefficient of friction, `>= 0`; default: the scene's.
    #[serde(default)]
    pub friction: Option<Real>,
    /// Rolling resistance, `>= 0`; default: the scene's.
    #[serde(default)]
    pub rolling_resistance: Option<Real>,
    /// Spin: angular velocity in radians per time unit about world axes (right-handed);
    /// default zero.
    #[serde(default, with = "xyz")]
    pub spin: Vec3,
    /// Display name.
    #[serde(default)]
    pub name: Option<String>,
    /// Display colour, RGB in `[0, 1]`.
    #[serde(default)]
    pub color: Option<(f32, f32, f32)>,
}

impl From<BallDef> for BallEntry {
    /// The entry that describes `ball`, every field given.
    fn from(ball: BallDef) -> Self {
        Self {
            pos: ball.position,
            vel: ball.velocity,
            spin: ball.spin,
            radius: ball.radius,
            mass: Some(ball.mass),
            restitution: Some(ball.restitution),
            friction: Some(ball.friction),
            rolling_resistance: Some(ball.rolling_resistance),
            name: ball.name,
            color: ball.color.map(|[r, g, b]| (r, g, b)),
        }
    }
}

/// Balls from a generator: seeded, never overlapping each other, all inside the box.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum GeneratorEntry {
    /// On a regular lattice filling the box ([`lattice`](super::lattice)).
    Lattice(GeneratorBox),
    /// At random in the box ([`random_block`](super::random_block)).
    Random(GeneratorBox),
}

/// What a generator needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorBox {
    /// Lower corner of the box the balls lie in.
    #[serde(with = "xyz")]
    pub min: Vec3,
    /// Upper corner.
    #[serde(with = "xyz")]
    pub max: Vec3,
    /// How many balls, 1 to [`MAX_GENERATED`](super::MAX_GENERATED).
    #[serde(with = "whole")]
    pub count: u64,
    /// Their radius, `> 0`.
    pub radius: Real,
    /// Their speed, in random directions, `>= 0`.
    pub speed: Real,
    /// Seed of the positions and directions.
    #[serde(default, with = "whole")]
    pub seed: u64,
    /// Their restitution; default: the scene's.
    #[serde(default)]
    pub restitution: Option<Real>,
    /// Their coefficient of friction; default: the scene's.
    #[serde(default)]
    pub friction: Option<Real>,
    /// Their rolling resistance; default: the scene's.
    #[serde(default)]
    pub rolling_resistance: Option<Real>,
    /// Their colour.
    #[serde(default)]
    pub color: Option<(f32, f32, f32)>,
}

/// A one-sided plane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaneEntry {
    /// A point on the plane.
    #[serde(with = "xyz")]
    pub point: Vec3,
    /// The side balls stay on; any length but zero.
    #[serde(with = "xyz")]
    pub normal: Vec3,
    /// Restitution; default: the scene's.
    #[serde(default)]
    pub restitution: Option<Real>,
    /// Coefficient of friction; default: the scene's.
    #[serde(default)]
    pub friction: Option<Real>,
}

/// A cylinder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum CylinderEntry {
    /// From `a` to `b`, with flat caps.
    Capped {
        /// Centre of one cap.
        #[serde(with = "xyz")]
        a: Vec3,
        /// Centre of the other cap.
        #[serde(with = "xyz")]
        b: Vec3,
        /// Radius, `> 0`.
        radius: Real,
        /// Restitution; default: the scene's.
        #[serde(default)]
        restitution: Option<Real>,
        /// Coefficient of friction; default: the scene's.
        #[serde(default)]
        friction: Option<Real>,
    },
    /// Endless along its axis.
    Infinite {
        /// A point on the axis.
        #[serde(with = "xyz")]
        point: Vec3,
        /// The axis direction; any length but zero.
        #[serde(with = "xyz")]
        axis: Vec3,
        /// Radius, `> 0`.
        radius: Real,
        /// Restitution; default: the scene's.
        #[serde(default)]
        restitution: Option<Real>,
        /// Coefficient of friction; default: the scene's.
        #[serde(default)]
        friction: Option<Real>,
    },
}

/// A flat convex polygon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolygonEntry {
    /// Its corners in order around it: at least 3, in one plane, convex.
    #[serde(with = "xyz_list")]
    pub vertices: Vec<Vec3>,
    /// Restitution; default: the scene's.
    #[serde(default)]
    pub restitution: Option<Real>,
    /// Coefficient of friction; default: the scene's.
    #[serde(default)]
    pub friction: Option<Real>,
}

fn default_gravity() -> Vec3 {
    Vec3::new(0.0, -9.81, 0.0)
}

fn one() -> Real {
    1.0
}

/// A whole number from 0 to `u64::MAX`, written as an integer or as a float with no fraction
/// (`1e6`), refused with a clear message otherwise.
mod whole {
    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    const ALLOWED: &str = "allowed: a whole number from 0 to 18446744073709551615";

    pub fn serialize<S: Serializer>(n: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(*n)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(Whole)
    }

    struct Whole;

    impl<'de> Visitor<'de> for Whole {
        type Value = u64;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a whole number")
        }

        fn visit_u64<E: de::Error>(self, n: u64) -> Result<u64, E> {
            Ok(n)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
            d.deserialize_any(Whole)
        }

        fn visit_i64<E: de::Error>(self, n: i64) -> Result<u64, E> {
            u64::try_from(n).map_err(|_| E::custom(format!("{n} is negative; {ALLOWED}")))
        }

        fn visit_u128<E: de::Error>(self, n: u128) -> Result<u64, E> {
            u64::try_from(n).map_err(|_| E::custom(format!("{n} is too large; {ALLOWED}")))
        }

        fn visit_i128<E: de::Error>(self, n: i128) -> Result<u64, E> {
            u64::try_from(n).map_err(|_| E::custom(format!("{n} is out of range; {ALLOWED}")))
        }

        fn visit_f64<E: de::Error>(self, x: f64) -> Result<u64, E> {
            // 2^64 is the first float above the range
            if x.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&x) {
                Ok(x as u64)
            } else {
                let x = crate::scene::generators::number(x);
                Err(E::custom(format!(
                    "{x} is not a whole number in range; {ALLOWED}"
                )))
            }
        }
    }

    /// The same, optional.
    pub mod option {
        use serde::{Deserializer, Serializer};

        pub fn serialize<S: Serializer>(n: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
            match n {
                Some(n) => s.serialize_some(n),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
            super::deserialize(d).map(Some)
        }
    }
}

/// A vector as the tuple `(x, y, z)`.
mod xyz {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::math::{Real, Vec3};

    pub fn serialize<S: Serializer>(v: &Vec3, s: S) -> Result<S::Ok, S::Error> {
        (v.x, v.y, v.z).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        let (x, y, z) = <(Real, Real, Real)>::deserialize(d)?;
        Ok(Vec3::new(x, y, z))
    }
}

/// A list of vectors, each the tuple `(x, y, z)`.
mod xyz_list {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::math::{Real, Vec3};

    pub fn serialize<S: Serializer>(vs: &[Vec3], s: S) -> Result<S::Ok, S::Error> {
        let tuples: Vec<(Real, Real, Real)> = vs.iter().map(|v| (v.x, v.y, v.z)).collect();
        tuples.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec3>, D::Error> {
        let tuples = Vec::<(Real, Real, Real)>::deserialize(d)?;
        Ok(tuples
            .into_iter()
            .map(|(x, y, z)| Vec3::new(x, y, z))
            .collect())
    }
}
