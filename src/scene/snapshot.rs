//! Snapshots: the whole state of a world as RON text, to save in the middle of a run and load
//! back so that the run goes on bit for bit as if it had never stopped.
//!
//! A snapshot holds every ball's components (position, velocity, radius, mass, restitution,
//! spin, orientation, previous position, sleep state, path, colour, name) and every static shape, in the order the
//! stepper reads them; numbers are written in the shortest form that reads back to the same
//! bits. Loading spawns them into a new world in that order. Islands of sleeping balls are named
//! after entities, which differ in the new world, so loading renames each island after one of
//! its balls' new entities: the names stay distinct, which is all the stepper asks of them.

use std::collections::HashMap;
use std::num::NonZeroU64;

use hecs::{Entity, World};
use serde::{Deserialize, Serialize};

use super::SceneError;
use crate::geometry::{ConvexPolygon, Cylinder, Plane};
use crate::math::{Quat, Real, Vec3};
use crate::sim::{
    AngularVelocity, Color, Friction, Mass, Name, Orientation, Path, Position, PreviousPosition,
    Radius, Restitution, RollingResistance, Sleep, Velocity,
};

/// RON's extension that writes a cylinder as `Capped(a: ..., b: ..., radius: ...)`, the
/// scene files' form, rather than `Capped((a: ..., ...))`; read whether or not a file enables it.
const FORMAT: ron::extensions::Extensions = ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES;

/// The state of a world: its balls and static shapes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// The balls, in the order the stepper reads them.
    pub balls: Vec<BallState>,
    /// The planes.
    pub planes: Vec<Static<Plane>>,
    /// The cylinders.
    pub cylinders: Vec<Static<Cylinder>>,
    /// The convex polygons, by their vertices.
    pub polygons: Vec<Static<Vec<Vec3>>>,
}

/// One ball's components; `None` where the entity has no such component.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BallState {
    /// [`Position`].
    pub position: Vec3,
    /// [`Velocity`].
    pub velocity: Vec3,
    /// [`Radius`].
    pub radius: Real,
    /// [`Mass`].
    pub mass: Real,
    /// [`Restitution`].
    pub restitution: Option<Real>,
    /// [`Friction`].
    #[serde(default)]
    pub friction: Option<Real>,
    /// [`RollingResistance`].
    #[serde(default)]
    pub rolling_resistance: Option<Real>,
    /// [`AngularVelocity`].
    #[serde(default)]
    pub spin: Option<Vec3>,
    /// [`Orientation`].
    #[serde(default)]
    pub orientation: Option<Quat>,
    /// [`PreviousPosition`].
    pub previous: Option<Vec3>,
    /// [`Sleep`].
    pub sleep: Option<Sleep>,
    /// [`Path`]; where a snapshot does not give it, the ball starts a new path where it is.
    #[serde(default)]
    pub path: Option<Path>,
    /// [`Color`].
    pub color: Option<[f32; 3]>,
    /// [`Name`].
    pub name: Option<String>,
}

/// A static shape and its restitution and friction, where it has them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Static<S> {
    /// The shape.
    pub shape: S,
    /// Its [`Restitution`] component.
    pub restitution: Option<Real>,
    /// Its [`Friction`] component.
    #[serde(default)]
    pub friction: Option<Real>,
}

impl Snapshot {
    /// Take the state of `world`.
    #[must_use]
    pub fn capture(world: &World) -> Self {
        let mut snapshot = Self::default();
        let mut balls = world.query::<(
            &Position,
            &Velocity,
            &Radius,
            &Mass,
            Option<&Restitution>,
            (Option<&Friction>, Option<&RollingResistance>),
            Option<&AngularVelocity>,
            Option<&Orientation>,
            Option<&PreviousPosition>,
            Option<&Sleep>,
            Option<&Path>,
            Option<&Color>,
            Option<&Name>,
        )>();
        for (p, v, r, m, e, (f, c), spin, orientation, previous, sleep, path, color, name) in
            balls.iter()
        {
            snapshot.balls.push(BallState {
                position: p.0,
                velocity: v.0,
                radius: r.0,
                mass: m.0,
                restitution: e.map(|e| e.0),
                friction: f.map(|f| f.0),
                rolling_resistance: c.map(|c| c.0),
                spin: spin.map(|w| w.0),
                orientation: orientation.map(|q| q.0),
                previous: previous.map(|p| p.0),
                sleep: sleep.copied(),
                path: path.copied(),
                color: color.map(|c| c.0),
                name: name.map(|n| n.0.clone()),
            });
        }
        let restitution = |e: Option<&Restitution>| e.map(|e| e.0);
        let friction = |f: Option<&Friction>| f.map(|f| f.0);
        type Material<'a> = (Option<&'a Restitution>, Option<&'a Friction>);
        for (plane, (e, f)) in world.query::<(&Plane, Material<'_>)>().iter() {
            snapshot.planes.push(Static {
                shape: *plane,
                restitution: restitution(e),
                friction: friction(f),
            });
        }
        for (cylinder, (e, f)) in world.query::<(&Cylinder, Material<'_>)>().iter() {
            snapshot.cylinders.push(Static {
                shape: *cylinder,
                restitution: restitution(e),
                friction: friction(f),
            });
        }
        for (polygon, (e, f)) in world.query::<(&ConvexPolygon, Material<'_>)>().iter() {
            snapshot.polygons.push(Static {
                shape: polygon.vertices().to_vec(),
                restitution: restitution(e),
                friction: friction(f),
            });
        }
        snapshot
    }

    /// Write the snapshot as RON text.
    #[must_use]
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::default().extensions(FORMAT);
        ron::ser::to_string_pretty(self, config).expect("numbers, text and lists always serialise")
    }

    /// Read a snapshot from RON `text`; `file` names it in errors.
    pub fn from_ron(text: &str, file: &str) -> Result<Self, SceneError> {
        ron::Options::default()
            .with_default_extension(FORMAT)
            .from_str(text)
            .map_err(|e| SceneError::Syntax {
                file: file.to_owned(),
                line: e.span.start.line,
                column: e.span.start.col,
                message: e.code.to_string(),
                cause: Box::new(e.code),
            })
    }

    /// Spawn the snapshot into a new world, balls first in their order. Fails, spawning
    /// nothing, when a polygon's vertices do not make one.
    pub fn restore(&self) -> Result<World, SceneError> {
        let polygons = self
            .polygons
            .iter()
            .enumerate()
            .map(|(k, p)| {
                ConvexPolygon::new(p.shape.clone()).map_err(|e| SceneError::Value {
                    file: "snapshot".to_owned(),
                    field: format!("polygons[{k}].shape"),
                    message: e.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut world = World::new();
        // Entities first, so that each island can be renamed after one of its new entities,
        // and each ball then gets all its components at once, in order
        let entities: Vec<Entity> = (0..self.balls.len())
            .map(|_| world.reserve_entity())
            .collect();
        let mut islands: HashMap<NonZeroU64, NonZeroU64> = HashMap::new();
        for (ball, &entity) in self.balls.iter().zip(&entities) {
            let mut builder = hecs::EntityBuilder::new();
            builder.add_bundle((
                Position(ball.position),
                Velocity(ball.velocity),
                Radius(ball.radius),
                Mass(ball.mass),
            ));
            if let Some(e) = ball.restitution {
                builder.add(Restitution(e));
            }
            if let Some(f) = ball.friction {
                builder.add(Friction(f));
            }
            if let Some(c) = ball.rolling_resistance {
                builder.add(RollingResistance(c));
            }
            if let Some(w) = ball.spin {
                builder.add(AngularVelocity(w));
            }
            if let Some(q) = ball.orientation {
                builder.add(Orientation(q));
            }
            if let Some(p) = ball.previous {
                builder.add(PreviousPosition(p));
            }
            if let Some(s) = ball.sleep {
                let mut rename = |name: Option<NonZeroU64>| {
                    name.map(|k| *islands.entry(k).or_insert(entity.to_bits()))
                };
                builder.add(Sleep {
                    island: rename(s.island),
                    woken_from: rename(s.woken_from),
                    ..s
                });
            }
            if let Some(q) = ball.path {
                builder.add(q);
            }
            if let Some(c) = ball.color {
                builder.add(Color(c));
            }
            if let Some(n) = &ball.name {
                builder.add(Name(n.clone()));
            }
            world
                .insert(entity, builder.build())
                .expect("a reserved entity");
        }
        for p in &self.planes {
            spawn_static(&mut world, p.shape, (p.restitution, p.friction));
        }
        for c in &self.cylinders {
            spawn_static(&mut world, c.shape, (c.restitution, c.friction));
        }
        for (p, polygon) in self.polygons.iter().zip(polygons) {
            spawn_static(&mut world, polygon, (p.restitution, p.friction));
        }
        Ok(world)
    }
}

/// Spawn a static `shape`, with its restitution and friction where it has them.
fn spawn_static<S: hecs::Component>(
    world: &mut World,
    shape: S,
    (restitution, friction): (Option<Real>, Option<Real>),
) {
    let mut builder = hecs::EntityBuilder::new();
    builder.add(shape);
    if let Some(e) = restitution {
        builder.add(Restitution(e));
    }
    if let Some(f) = friction {
        builder.add(Friction(f));
    }
    world.spawn(builder.build());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_text_is_an_error_with_its_line_and_column() {
        let error =
            Snapshot::from_ron("(balls: [], planes: [], cylinders: [],\n oops: 1)", "s.ron")
                .unwrap_err();
        assert!(
            matches!(&error, SceneError::Syntax { file, line: 2, .. } if file == "s.ron"),
            "{error}"
        );
    }

    #[test]
    fn a_polygon_that_is_none_is_an_error_naming_it() {
        let snapshot = Snapshot {
            polygons: vec![Static {
                shape: vec![Vec3::ZERO, Vec3::X],
                restitution: None,
                friction: None,
            }],
            ..Snapshot::default()
        };
        let Err(error) = snapshot.restore() else {
            panic!("two vertices make no polygon");
        };
        assert!(
            matches!(&error, SceneError::Value { field, .. } if field == "polygons[0].shape"),
            "{error}"
        );
    }

    #[test]
    fn shapes_read_in_the_scene_files_form_with_or_without_the_header() {
        use crate::geometry::{CappedCylinder, InfiniteCylinder};
        let text = "(balls: [], \
            planes: [(shape: (point: (0.0, -1.0, 0.0), normal: (0.0, 1.0, 0.0)), restitution: None)], \
            cylinders: [\
              (shape: Capped(a: (0.0, 0.0, 0.0), b: (0.0, 1.0, 0.0), radius: 0.5), restitution: Some(0.5)), \
              (shape: Infinite(point: (1.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0), radius: 0.25), restitution: None)], \
            polygons: [])";
        let snapshot = Snapshot::from_ron(text, "s.ron").unwrap();
        assert_eq!(
            snapshot.planes[0].shape,
            Plane::new(Vec3::NEG_Y, Vec3::Y).unwrap()
        );
        assert_eq!(
            snapshot.cylinders[0].shape,
            Cylinder::Capped(CappedCylinder::new(Vec3::ZERO, Vec3::Y, 0.5).unwrap())
        );
        assert_eq!(snapshot.cylinders[0].restitution, Some(0.5));
        assert_eq!(
            snapshot.cylinders[1].shape,
            Cylinder::Infinite(InfiniteCylinder::new(Vec3::X, Vec3::Z, 0.25).unwrap())
        );
        let written = snapshot.to_ron();
        assert!(!written.contains("Capped(("), "{written}");
        assert_eq!(Snapshot::from_ron(&written, "w.ron").unwrap(), snapshot);
        let world = snapshot.restore().unwrap();
        assert_eq!(Snapshot::capture(&world), snapshot);
    }
}
