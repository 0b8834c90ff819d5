//! Loading a scene: read, parse, check every value, and build a world from it.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

use hecs::Entity;
use ron::extensions::Extensions;

use super::file::{DEFAULT_STEPS, SceneFile};
use super::generators::{CellKey, MAX_GENERATED, cell_key, neighbour_cells};
use crate::geometry::{Ball, ConvexPolygon, Cylinder, Plane, Shape};
use crate::math::{Real, Vec3, positive};
use crate::sim::{BallDef, Friction, Restitution, Simulation, StepConfig};
use crate::toi::ToiMode;

use super::check::{
    Defaults, ball, cylinder, friction, generate, overlap, plane, polygon, restitution,
};
use super::error::{ReadError, SceneError, ValueError, syntax_message};

/// Largest scene file read, in bytes: a scene that needs more uses generators.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Most balls in one scene, listed and generated together.
pub const MAX_BALLS: u64 = MAX_GENERATED;

/// Overlap allowed between things that start touching, relative to their size: rounding, not
/// penetration.
const TOUCH_TOLERANCE: Real = 1e-9;

/// Where a ball of a scene comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BallSource {
    /// `balls[index]`.
    Listed(usize),
    /// Ball `index` of `generators[generator]`.
    Generated {
        /// The generator.
        generator: usize,
        /// The ball within it.
        index: usize,
    },
}

impl fmt::Display for BallSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Listed(i) => write!(f, "balls[{i}]"),
            Self::Generated { generator, index } => {
                write!(f, "generators[{generator}] (its ball {index})")
            }
        }
    }
}

/// A static shape with its restitution and friction.
#[derive(Clone, Debug, PartialEq)]
pub struct Fixed<S> {
    /// The shape.
    pub shape: S,
    /// Its restitution, in `[0, 1]`.
    pub restitution: Real,
    /// Its coefficient of friction, `>= 0`.
    pub friction: Real,
}

/// A checked scene, ready to build worlds from: every value is in range, and nothing starts
/// overlapping.
///
/// Balls are numbered in file order: the listed balls first, then each generator's balls in
/// order. Planes, cylinders and polygons are numbered within their own lists.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// The title.
    pub name: String,
    /// Time per step.
    pub dt: Real,
    /// Steps of a run unless told otherwise.
    pub steps: u64,
    /// Acceleration of every ball.
    pub gravity: Vec3,
    /// The scene's strategy.
    pub toi: ToiMode,
    /// The scene's rest speed; `None`: the stepper's default (see
    /// [`StepConfig::rest_speed`]).
    pub rest_speed: Option<Real>,
    /// Every ball, listed and generated.
    pub balls: Vec<BallDef>,
    /// Where each ball comes from.
    pub sources: Vec<BallSource>,
    /// The planes.
    pub planes: Vec<Fixed<Plane>>,
    /// The cylinders.
    pub cylinders: Vec<Fixed<Cylinder>>,
    /// The polygons.
    pub polygons: Vec<Fixed<ConvexPolygon>>,
}

/// What a scene's entity is: its list and its index there. In JSON, `{"ball": 3}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SceneItem {
    /// A ball, by its number in the scene.
    Ball(usize),
    /// `planes[i]`.
    Plane(usize),
    /// `cylinders[i]`.
    Cylinder(usize),
    /// `polygons[i]`.
    Polygon(usize),
}

/// A simulation built from a [`Scene`], with the entities of every ball and shape.
#[derive(Debug)]
pub struct SceneWorld {
    /// The world, the stepper (configured with the scene's gravity and strategy) and the clock.
    pub sim: Simulation,
    /// The balls' entities, in scene order.
    pub balls: Vec<Entity>,
    /// The planes' entities.
    pub planes: Vec<Entity>,
    /// The cylinders' entities.
    pub cylinders: Vec<Entity>,
    /// The polygons' entities.
    pub polygons: Vec<Entity>,
}

impl SceneWorld {
    /// Return what `entity` is in the scene, or `None` for an entity spawned since.
    #[must_use]
    pub fn item(&self, entity: Entity) -> Option<SceneItem> {
        // Each list was spawned in order into a fresh world: its entities are ascending
        let find = |list: &[Entity]| list.binary_search(&entity).ok();
        find(&self.balls)
            .map(SceneItem::Ball)
            .or_else(|| find(&self.planes).map(SceneItem::Plane))
            .or_else(|| find(&self.cylinders).map(SceneItem::Cylinder))
            .or_else(|| find(&self.polygons).map(SceneItem::Polygon))
    }
}

impl Scene {
    /// Return how front ends name ball `index`: `ball 3`, with its scene name after it where
    /// it has one that says more (`ball 0 (cue)`, but `ball 0` for a ball named "ball 0").
    #[must_use]
    pub fn ball_label(&self, index: usize) -> String {
        let plain = format!("ball {index}");
        match self.balls.get(index).and_then(|b| b.name.as_deref()) {
            Some(name) if name.trim() != plain && !name.trim().is_empty() => {
                format!("{plain} ({name})")
            }
            _ => plain,
        }
    }

    /// Read, parse and check the scene file at `path`.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, SceneError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let read_error = |reason: ReadError| SceneError::Read {
            file: file.clone(),
            reason,
        };
        let metadata = std::fs::metadata(path).map_err(|e| read_error(e.into()))?;
        if metadata.is_dir() {
            return Err(read_error(ReadError::Directory));
        }
        if metadata.len() > MAX_FILE_BYTES {
            return Err(read_error(ReadError::TooLarge {
                bytes: metadata.len(),
                max: MAX_FILE_BYTES,
            }));
        }
        let bytes = std::fs::read(path).map_err(|e| read_error(e.into()))?;
        let text = String::from_utf8(bytes).map_err(|e| read_error(e.into()))?;
        Self::parse(&text, &file)
    }

    /// Parse and check scene `text`; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, SceneError> {
        let options = ron::Options::default().with_default_extension(
            Extensions::IMPLICIT_SOME | Extensions::UNWRAP_VARIANT_NEWTYPES,
        );
        let parsed: SceneFile = options.from_str(text).map_err(|e| SceneError::Syntax {
            file: file.to_owned(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: syntax_message(&e.code),
            cause: Box::new(e.code),
        })?;
        Self::from_file(&parsed).map_err(|ValueError { field, message }| SceneError::Value {
            file: file.to_owned(),
            field,
            message,
        })
    }

    /// Check a parsed scene file and expand its generators; on failure, the field path and
    /// what is wrong.
    pub fn from_file(file: &SceneFile) -> Result<Self, ValueError> {
        let err = |field: &str, message: String| {
            Err(ValueError {
                field: field.to_owned(),
                message,
            })
        };
        if !positive(file.dt) {
            return err(
                "dt",
                format!("is {}; allowed: a finite number > 0", file.dt),
            );
        }
        if file.steps == Some(0) {
            return err("steps", "is 0; allowed: 1 or more".to_owned());
        }
        if !file.gravity.is_finite() {
            return err(
                "gravity",
                "is not finite; allowed: finite numbers".to_owned(),
            );
        }
        file.toi
            .validate()
            .map_err(|e| ("toi".to_owned(), e.to_string()))?;
        if let Some(speed) = file.rest_speed {
            friction("rest_speed", speed)?;
        }
        let defaults = Defaults {
            restitution: restitution("restitution", file.restitution)?,
            friction: friction("friction", file.friction)?,
            rolling_resistance: friction("rolling_resistance", file.rolling_resistance)?,
        };

        let planes = file
            .planes
            .iter()
            .enumerate()
            .map(|(k, p)| plane(k, p, defaults))
            .collect::<Result<Vec<_>, _>>()?;
        let cylinders = file
            .cylinders
            .iter()
            .enumerate()
            .map(|(k, c)| cylinder(k, c, defaults))
            .collect::<Result<Vec<_>, _>>()?;
        let polygons = file
            .polygons
            .iter()
            .enumerate()
            .map(|(k, p)| polygon(k, p, defaults))
            .collect::<Result<Vec<_>, _>>()?;

        // Count before generating anything
        let mut total = file.balls.len() as u64;
        for (g, generator) in file.generators.iter().enumerate() {
            let count = generator.parameters().count;
            total = total.saturating_add(count);
            if total > MAX_BALLS {
                return err(
                    &format!("generators[{g}].count"),
                    format!(
                        "brings the scene to {total} balls; allowed: at most {MAX_BALLS} balls \
                         in all"
                    ),
                );
            }
        }
        let mut balls = Vec::with_capacity(total as usize);
        let mut sources = Vec::with_capacity(total as usize);
        for (i, entry) in file.balls.iter().enumerate() {
            balls.push(ball(i, entry, defaults)?);
            sources.push(BallSource::Listed(i));
        }
        for (g, generator) in file.generators.iter().enumerate() {
            let generated = generate(g, generator, defaults)?;
            sources.extend((0..generated.len()).map(|index| BallSource::Generated {
                generator: g,
                index,
            }));
            balls.extend(generated);
        }

        let scene = Self {
            name: file.name.clone(),
            dt: file.dt,
            steps: file.steps.unwrap_or(DEFAULT_STEPS),
            gravity: file.gravity,
            toi: file.toi.clone(),
            rest_speed: file.rest_speed,
            balls,
            sources,
            planes,
            cylinders,
            polygons,
        };
        scene.check_overlaps()?;
        Ok(scene)
    }

    /// Build a world of this scene: a [`Simulation`] configured with its gravity and strategy.
    #[must_use]
    pub fn build(&self) -> SceneWorld {
        let mut sim = Simulation::new(StepConfig {
            gravity: self.gravity,
            strategy: self.toi.clone(),
            rest_speed: self.rest_speed,
            ..StepConfig::default()
        });
        // One allocation of the exact size for the balls without a colour or a name
        let plain = self
            .balls
            .iter()
            .filter(|def| def.color.is_none() && def.name.is_none())
            .count();
        sim.world.reserve::<(
            crate::sim::Position,
            crate::sim::Velocity,
            crate::sim::Radius,
            crate::sim::Mass,
            Restitution,
            crate::sim::PreviousPosition,
            crate::sim::Sleep,
            crate::sim::Path,
        )>(u32::try_from(plain).expect("at most MAX_BALLS"));
        let balls: Vec<Entity> = self
            .balls
            .iter()
            .map(|def| def.clone().spawn(&mut sim.world))
            .collect();
        let mut spawn = |mut shape: hecs::EntityBuilder| sim.world.spawn(shape.build());
        let planes = self
            .planes
            .iter()
            .map(|p| spawn(fixed(p.shape, p.restitution, p.friction)))
            .collect();
        let cylinders = self
            .cylinders
            .iter()
            .map(|c| spawn(fixed(c.shape, c.restitution, c.friction)))
            .collect();
        let polygons = self
            .polygons
            .iter()
            .map(|p| spawn(fixed(p.shape.clone(), p.restitution, p.friction)))
            .collect();
        SceneWorld {
            sim,
            balls,
            planes,
            cylinders,
            polygons,
        }
    }

    /// Refuse balls that start overlapping each other or a shape, or behind a plane.
    fn check_overlaps(&self) -> Result<(), (String, String)> {
        let name = |i: usize| self.sources[i].to_string();
        for (i, ball) in self.balls.iter().enumerate() {
            let b = Ball::new(ball.position, ball.radius);
            let tolerance = TOUCH_TOLERANCE * ball.radius;
            for (k, plane) in self.planes.iter().enumerate() {
                let distance = plane.shape.signed_distance(b.center);
                if distance < 0.0 {
                    return Err((
                        name(i),
                        format!(
                            "starts behind planes[{k}] (its centre is {:e} on the back side); \
                             allowed: balls on the side the normal points to",
                            -distance
                        ),
                    ));
                }
                if distance < ball.radius - tolerance {
                    return Err((name(i), overlap("planes", k, ball.radius - distance)));
                }
            }
            let shapes = (self.cylinders.iter().map(|c| &c.shape as &dyn Shape))
                .zip(std::iter::repeat("cylinders"))
                .enumerate()
                .chain(
                    (self.polygons.iter().map(|p| &p.shape as &dyn Shape))
                        .zip(std::iter::repeat("polygons"))
                        .enumerate(),
                );
            for (k, (shape, list)) in shapes {
                let depth = shape.proximity(&b).depth();
                if depth > tolerance {
                    return Err((name(i), overlap(list, k, depth)));
                }
            }
        }
        self.check_ball_pairs()
    }

    /// Refuse two balls that overlap, through a grid of cells two largest radii wide.
    fn check_ball_pairs(&self) -> Result<(), (String, String)> {
        if self.balls.len() < 2 {
            return Ok(());
        }
        // One grid per size: a ball goes in the grid whose cells (a power of two) are at least
        // its diameter, and looks for overlaps among the balls of its own grid and of coarser
        // ones, where anything that reaches it is in a neighbouring cell. A few large balls
        // among many small ones then cost no more than the small ones alone. Cells are keyed
        // by the float value of the rounded coordinate, which never saturates.
        let level = |radius: Real| (2.0 * radius).log2().ceil() as i32;
        let mut grids: BTreeMap<i32, HashMap<CellKey, Vec<u32>>> = BTreeMap::new();
        for (i, ball) in self.balls.iter().enumerate() {
            let l = level(ball.radius);
            grids
                .entry(l)
                .or_default()
                .entry(cell_key(ball.position, Real::powi(2.0, l)))
                .or_default()
                .push(i as u32);
        }
        // The first ball (by index) that overlaps an earlier one, and the earliest of those
        let mut first: Option<(usize, usize, Real)> = None;
        for (i, a) in self.balls.iter().enumerate() {
            let own = level(a.radius);
            for (&l, grid) in grids.range(own..) {
                for near in neighbour_cells(cell_key(a.position, Real::powi(2.0, l))) {
                    for &j in grid.get(&near).into_iter().flatten() {
                        let j = j as usize;
                        // A pair within one grid is seen from both sides: once is enough
                        if j == i || (l == own && j > i) {
                            continue;
                        }
                        let b = &self.balls[j];
                        let reach = a.radius + b.radius;
                        let depth = reach - a.position.distance(b.position);
                        let pair = (i.max(j), i.min(j));
                        if depth > TOUCH_TOLERANCE * reach
                            && first.is_none_or(|(x, y, _)| pair < (x, y))
                        {
                            first = Some((pair.0, pair.1, depth));
                        }
                    }
                }
            }
        }
        match first {
            Some((i, j, depth)) => Err((
                self.sources[i].to_string(),
                format!(
                    "overlaps ball {j}, {}, by {depth:e}; allowed: balls that at most touch",
                    self.sources[j]
                ),
            )),
            None => Ok(()),
        }
    }
}

/// The entity builder of a static shape with its restitution and friction (a component only
/// where it is not 0).
fn fixed<S: hecs::Component>(shape: S, restitution: Real, friction: Real) -> hecs::EntityBuilder {
    let mut builder = hecs::EntityBuilder::new();
    builder.add(shape).add(Restitution(restitution));
    if friction != 0.0 {
        builder.add(Friction(friction));
    }
    builder
}
