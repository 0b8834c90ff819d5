//! Loading a scene: read, parse, check every value, and build a world from it.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

use hecs::Entity;
use ron::extensions::Extensions;

use super::file::{
    BallEntry, CylinderEntry, DEFAULT_STEPS, GeneratorBox, GeneratorEntry, PlaneEntry,
    PolygonEntry, SceneFile,
};
use super::generators::{
    CellKey, GeneratorError, MAX_GENERATED, MAX_MAGNITUDE, cell_key, lattice, neighbour_cells,
    number, random_block,
};
use crate::geometry::{
    Ball, CappedCylinder, ConvexPolygon, Cylinder, InfiniteCylinder, Plane, Shape, ShapeError,
};
use crate::math::{Real, Vec3, positive};
use crate::sim::{BallDef, Restitution, Simulation, StepConfig};
use crate::toi::ToiMode;

/// Largest scene file read, in bytes: a scene that needs more uses generators.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Most balls in one scene, listed and generated together.
pub const MAX_BALLS: u64 = MAX_GENERATED;

/// Overlap allowed between things that start touching, relative to their size: rounding, not
/// penetration.
const TOUCH_TOLERANCE: Real = 1e-9;

/// Why a scene could not be loaded. The message names the file and either the line and column
/// (syntax and types) or the field path (values), and says what is allowed.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("{file}: cannot read the scene: {reason}")]
    Read {
        /// The file.
        file: String,
        /// What went wrong; [`source`](std::error::Error::source) gives it too.
        #[source]
        reason: ReadError,
    },
    /// The text is not a scene: malformed RON, an unknown field, a wrong type.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// A value is out of its range, or things start overlapping.
    #[error("{file}: {field}: {message}")]
    Value {
        /// The file.
        file: String,
        /// The field path, e.g. `balls[3].radius`.
        field: String,
        /// What is wrong and what is allowed.
        message: String,
    },
}

/// Why a scene file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file system refused: no such file, no permission, ...
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The path is a directory.
    #[error("it is a directory; allowed: a RON scene file")]
    Directory,
    /// The file is larger than a scene may be.
    #[error("it has {bytes} bytes; allowed: at most {max} (use generators for many balls)")]
    TooLarge {
        /// The file's size.
        bytes: u64,
        /// The largest size allowed, [`MAX_FILE_BYTES`].
        max: u64,
    },
    /// The file is not UTF-8 text.
    #[error("{0}; allowed: UTF-8 text")]
    NotUtf8(#[from] std::string::FromUtf8Error),
}

/// A value of a scene that is out of its range, or things that start overlapping: the field
/// path and what is wrong and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ValueError {
    /// The field path, e.g. `balls[3].radius`.
    pub field: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl From<(String, String)> for ValueError {
    fn from((field, message): (String, String)) -> Self {
        Self { field, message }
    }
}

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

/// A static shape with its restitution.
#[derive(Clone, Debug, PartialEq)]
pub struct Fixed<S> {
    /// The shape.
    pub shape: S,
    /// Its restitution, in `[0, 1]`.
    pub restitution: Real,
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
        let default_restitution = file.restitution;
        restitution("restitution", default_restitution)?;

        let planes = file
            .planes
            .iter()
            .enumerate()
            .map(|(k, p)| plane(k, p, default_restitution))
            .collect::<Result<Vec<_>, _>>()?;
        let cylinders = file
            .cylinders
            .iter()
            .enumerate()
            .map(|(k, c)| cylinder(k, c, default_restitution))
            .collect::<Result<Vec<_>, _>>()?;
        let polygons = file
            .polygons
            .iter()
            .enumerate()
            .map(|(k, p)| polygon(k, p, default_restitution))
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
            balls.push(ball(i, entry, default_restitution)?);
            sources.push(BallSource::Listed(i));
        }
        for (g, generator) in file.generators.iter().enumerate() {
            let generated = generate(g, generator, default_restitution)?;
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
            .map(|p| spawn(fixed(p.shape, p.restitution)))
            .collect();
        let cylinders = self
            .cylinders
            .iter()
            .map(|c| spawn(fixed(c.shape, c.restitution)))
            .collect();
        let polygons = self
            .polygons
            .iter()
            .map(|p| spawn(fixed(p.shape.clone(), p.restitution)))
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

/// Say what RON's error means for a scene, where its own words say too little.
fn syntax_message(code: &ron::Error) -> String {
    match code {
        ron::Error::Eof => "the file ends too early; allowed: a complete `Scene(...)` with every \
                            bracket and parenthesis closed"
            .to_owned(),
        ron::Error::IntegerOutOfBounds => "integer out of bounds; allowed: a whole number from \
                                           0 to 18446744073709551615 (counts, steps, seeds)"
            .to_owned(),
        ron::Error::MissingStructField { field, outer } => {
            let what = match outer.as_deref() {
                Some("Scene") => "the scene",
                Some("BallEntry") => "a ball",
                Some("GeneratorBox") => "a generator",
                Some("PlaneEntry") => "a plane",
                Some("PolygonEntry") => "a polygon",
                Some("Capped" | "Infinite") => "a cylinder",
                _ => "this entry",
            };
            format!(
                "missing field named `{field}`; allowed: {what} with a `{field}`, which has no default"
            )
        }
        ron::Error::SuggestRawIdentifier(name) if name.parse::<Real>().is_ok() => format!(
            "a number, {name}, where a field's name belongs; allowed: named fields, e.g. \
             `Sliced(slices: 150)`, `SlicedBisect(slices: 150, tolerance: 1e-9)`"
        ),
        ron::Error::ExpectedDifferentStructName {
            expected: "Scene",
            found,
        } => format!(
            "{code}: this file holds a `{found}(...)`, not a scene; allowed: a scene file, \
             `Scene(dt: ..., ...)`{}",
            if found == "Snapshot" {
                " (a snapshot is a world's saved state, read back by `Snapshot::from_ron`)"
            } else {
                ""
            }
        ),
        ron::Error::ExpectedNamedStructLike("Scene") => {
            format!("{code}: this is not a scene; allowed: a scene file, `Scene(dt: ..., ...)`")
        }
        other => other.to_string(),
    }
}

/// The entity builder of a static shape with its restitution.
fn fixed<S: hecs::Component>(shape: S, restitution: Real) -> hecs::EntityBuilder {
    let mut builder = hecs::EntityBuilder::new();
    builder.add(shape).add(Restitution(restitution));
    builder
}

fn overlap(list: &str, k: usize, depth: Real) -> String {
    format!("overlaps {list}[{k}] by {depth:e}; allowed: balls that at most touch a shape")
}

fn restitution(field: &str, e: Real) -> Result<Real, (String, String)> {
    if (0.0..=1.0).contains(&e) {
        Ok(e)
    } else {
        Err((
            field.to_owned(),
            format!("is {e}; allowed: a number from 0 to 1"),
        ))
    }
}

/// Name the field of `shape` (`planes[2]`, ...) that a shape error is about.
fn shape_error(shape: String) -> impl FnOnce(ShapeError) -> (String, String) {
    move |e| {
        let field = match &e {
            ShapeError::NonFinite { field } | ShapeError::ZeroLength { field } => {
                format!("{shape}.{}", if field == "a..b" { "b" } else { field })
            }
            ShapeError::NonPositiveRadius { .. } => format!("{shape}.radius"),
            _ if shape.starts_with("polygons") => format!("{shape}.vertices"),
            _ => shape,
        };
        (field, e.to_string())
    }
}

/// Refuse coordinates and lengths beyond [`MAX_MAGNITUDE`].
fn within(field: String, values: &[Real]) -> Result<(), (String, String)> {
    match values.iter().find(|x| x.abs() > MAX_MAGNITUDE) {
        Some(x) => Err((
            field,
            format!(
                "has {}; allowed: numbers up to 1e9 in magnitude",
                number(*x)
            ),
        )),
        None => Ok(()),
    }
}

fn plane(k: usize, entry: &PlaneEntry, default: Real) -> Result<Fixed<Plane>, (String, String)> {
    let shape =
        Plane::new(entry.point, entry.normal).map_err(shape_error(format!("planes[{k}]")))?;
    within(format!("planes[{k}].point"), &entry.point.to_array())?;
    let restitution = restitution(
        &format!("planes[{k}].restitution"),
        entry.restitution.unwrap_or(default),
    )?;
    Ok(Fixed { shape, restitution })
}

fn cylinder(
    k: usize,
    entry: &CylinderEntry,
    default: Real,
) -> Result<Fixed<Cylinder>, (String, String)> {
    let field = format!("cylinders[{k}]");
    let (shape, e) = match *entry {
        CylinderEntry::Capped {
            a,
            b,
            radius,
            restitution,
        } => {
            let shape = CappedCylinder::new(a, b, radius).map_err(shape_error(field.clone()))?;
            within(format!("{field}.a"), &a.to_array())?;
            within(format!("{field}.b"), &b.to_array())?;
            within(format!("{field}.radius"), &[radius])?;
            (Cylinder::from(shape), restitution)
        }
        CylinderEntry::Infinite {
            point,
            axis,
            radius,
            restitution,
        } => {
            let shape =
                InfiniteCylinder::new(point, axis, radius).map_err(shape_error(field.clone()))?;
            within(format!("{field}.point"), &point.to_array())?;
            within(format!("{field}.radius"), &[radius])?;
            (Cylinder::from(shape), restitution)
        }
    };
    let restitution = restitution(&format!("cylinders[{k}].restitution"), e.unwrap_or(default))?;
    Ok(Fixed { shape, restitution })
}

fn polygon(
    k: usize,
    entry: &PolygonEntry,
    default: Real,
) -> Result<Fixed<ConvexPolygon>, (String, String)> {
    let shape = ConvexPolygon::new(entry.vertices.clone())
        .map_err(shape_error(format!("polygons[{k}]")))?;
    for (v, vertex) in entry.vertices.iter().enumerate() {
        within(format!("polygons[{k}].vertices[{v}]"), &vertex.to_array())?;
    }
    let restitution = restitution(
        &format!("polygons[{k}].restitution"),
        entry.restitution.unwrap_or(default),
    )?;
    Ok(Fixed { shape, restitution })
}

fn ball(i: usize, entry: &BallEntry, default: Real) -> Result<BallDef, (String, String)> {
    let field = |name: &str| format!("balls[{i}].{name}");
    if !entry.pos.is_finite() {
        return Err((
            field("pos"),
            "is not finite; allowed: finite numbers".into(),
        ));
    }
    if !entry.vel.is_finite() {
        return Err((
            field("vel"),
            "is not finite; allowed: finite numbers".into(),
        ));
    }
    if !positive(entry.radius) {
        return Err((
            field("radius"),
            format!("is {}; allowed: a finite number > 0", number(entry.radius)),
        ));
    }
    within(field("pos"), &entry.pos.to_array())?;
    within(field("vel"), &entry.vel.to_array())?;
    within(field("radius"), &[entry.radius])?;
    let mut def = BallDef::new(entry.pos, entry.radius).velocity(entry.vel);
    if let Some(mass) = entry.mass {
        if !positive(mass) {
            return Err((
                field("mass"),
                format!("is {}; allowed: a finite number > 0", number(mass)),
            ));
        }
        def = def.mass(mass);
    }
    if !positive(def.mass) {
        return Err((
            field("radius"),
            format!(
                "is {}, which gives a mass of {} at density 1; allowed: a radius whose ball has a \
                 finite, non-zero mass, or a `mass`",
                number(entry.radius),
                number(def.mass)
            ),
        ));
    }
    def = def.restitution(restitution(
        &field("restitution"),
        entry.restitution.unwrap_or(default),
    )?);
    if let Some(color) = entry.color {
        def = def.color(self::color(&field("color"), color)?);
    }
    if let Some(name) = &entry.name {
        def = def.name(name.clone());
    }
    Ok(def)
}

fn color(field: &str, (r, g, b): (f32, f32, f32)) -> Result<[f32; 3], (String, String)> {
    if [r, g, b].iter().all(|c| (0.0..=1.0).contains(c)) {
        Ok([r, g, b])
    } else {
        Err((
            field.to_owned(),
            format!("is ({r}, {g}, {b}); allowed: three numbers from 0 to 1"),
        ))
    }
}

impl GeneratorEntry {
    /// The box and numbers of the generator, whichever kind.
    #[must_use]
    pub fn parameters(&self) -> &GeneratorBox {
        match self {
            Self::Lattice(p) | Self::Random(p) => p,
        }
    }
}

fn generate(
    g: usize,
    entry: &GeneratorEntry,
    default: Real,
) -> Result<Vec<BallDef>, (String, String)> {
    let p = entry.parameters();
    let field = |name: &str| format!("generators[{g}].{name}");
    let e = restitution(&field("restitution"), p.restitution.unwrap_or(default))?;
    let color = p.color.map(|c| color(&field("color"), c)).transpose()?;
    let make = match entry {
        GeneratorEntry::Lattice(_) => lattice,
        GeneratorEntry::Random(_) => random_block,
    };
    let balls = make(p.min, p.max, p.count, p.radius, p.speed, p.seed).map_err(|e| match e {
        GeneratorError::Count(_) | GeneratorError::DoesNotFit { .. } => {
            (field(e.field()), e.to_string())
        }
        _ => (field(e.field()), e.problem()),
    })?;
    Ok(balls
        .into_iter()
        .map(|b| {
            let b = b.restitution(e);
            match color {
                Some(c) => b.color(c),
                None => b,
            }
        })
        .collect())
}
