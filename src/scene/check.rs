//! The checks of a scene file's entries: each value in its range, each shape buildable, named
//! by its field path when it is not.

use super::file::{
    BallEntry, CylinderEntry, GeneratorBox, GeneratorEntry, PlaneEntry, PolygonEntry,
};
use super::generators::{GeneratorError, MAX_MAGNITUDE, lattice, number, random_block};
use super::load::Fixed;
use crate::geometry::{
    CappedCylinder, ConvexPolygon, Cylinder, InfiniteCylinder, Plane, ShapeError,
};
use crate::math::{Real, positive};
use crate::sim::BallDef;

pub(super) fn overlap(list: &str, k: usize, depth: Real) -> String {
    format!("overlaps {list}[{k}] by {depth:e}; allowed: balls that at most touch a shape")
}

/// The scene's defaults for what balls and shapes do not give.
#[derive(Clone, Copy, Debug)]
pub(super) struct Defaults {
    pub restitution: Real,
    pub friction: Real,
    pub rolling_resistance: Real,
}

/// Check a coefficient of friction or a rolling resistance.
pub(super) fn friction(field: &str, mu: Real) -> Result<Real, (String, String)> {
    if mu.is_finite() && mu >= 0.0 {
        Ok(mu)
    } else {
        Err((
            field.to_owned(),
            format!("is {}; allowed: a finite number >= 0", number(mu)),
        ))
    }
}

pub(super) fn restitution(field: &str, e: Real) -> Result<Real, (String, String)> {
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
pub(super) fn shape_error(shape: String) -> impl FnOnce(ShapeError) -> (String, String) {
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
pub(super) fn within(field: String, values: &[Real]) -> Result<(), (String, String)> {
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

pub(super) fn plane(
    k: usize,
    entry: &PlaneEntry,
    defaults: Defaults,
) -> Result<Fixed<Plane>, (String, String)> {
    let shape =
        Plane::new(entry.point, entry.normal).map_err(shape_error(format!("planes[{k}]")))?;
    within(format!("planes[{k}].point"), &entry.point.to_array())?;
    fixed(
        shape,
        &format!("planes[{k}]"),
        (entry.restitution, entry.friction),
        defaults,
    )
}

/// A checked shape with its restitution and friction, its own or the scene's.
fn fixed<S>(
    shape: S,
    field: &str,
    (e, mu): (Option<Real>, Option<Real>),
    defaults: Defaults,
) -> Result<Fixed<S>, (String, String)> {
    let restitution = restitution(
        &format!("{field}.restitution"),
        e.unwrap_or(defaults.restitution),
    )?;
    let friction = friction(
        &format!("{field}.friction"),
        mu.unwrap_or(defaults.friction),
    )?;
    Ok(Fixed {
        shape,
        restitution,
        friction,
    })
}

pub(super) fn cylinder(
    k: usize,
    entry: &CylinderEntry,
    defaults: Defaults,
) -> Result<Fixed<Cylinder>, (String, String)> {
    let field = format!("cylinders[{k}]");
    let (shape, material) = match *entry {
        CylinderEntry::Capped {
            a,
            b,
            radius,
            restitution,
            friction,
        } => {
            let shape = CappedCylinder::new(a, b, radius).map_err(shape_error(field.clone()))?;
            within(format!("{field}.a"), &a.to_array())?;
            within(format!("{field}.b"), &b.to_array())?;
            within(format!("{field}.radius"), &[radius])?;
            (Cylinder::from(shape), (restitution, friction))
        }
        CylinderEntry::Infinite {
            point,
            axis,
            radius,
            restitution,
            friction,
        } => {
            let shape =
                InfiniteCylinder::new(point, axis, radius).map_err(shape_error(field.clone()))?;
            within(format!("{field}.point"), &point.to_array())?;
            within(format!("{field}.radius"), &[radius])?;
            (Cylinder::from(shape), (restitution, friction))
        }
    };
    fixed(shape, &field, material, defaults)
}

pub(super) fn polygon(
    k: usize,
    entry: &PolygonEntry,
    defaults: Defaults,
) -> Result<Fixed<ConvexPolygon>, (String, String)> {
    let shape = ConvexPolygon::new(entry.vertices.clone())
        .map_err(shape_error(format!("polygons[{k}]")))?;
    for (v, vertex) in entry.vertices.iter().enumerate() {
        within(format!("polygons[{k}].vertices[{v}]"), &vertex.to_array())?;
    }
    fixed(
        shape,
        &format!("polygons[{k}]"),
        (entry.restitution, entry.friction),
        defaults,
    )
}

pub(super) fn ball(
    i: usize,
    entry: &BallEntry,
    defaults: Defaults,
) -> Result<BallDef, (String, String)> {
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
    if !entry.spin.is_finite() {
        return Err((
            field("spin"),
            "is not finite; allowed: finite numbers (radians per time unit)".into(),
        ));
    }
    within(field("pos"), &entry.pos.to_array())?;
    within(field("vel"), &entry.vel.to_array())?;
    within(field("spin"), &entry.spin.to_array())?;
    within(field("radius"), &[entry.radius])?;
    let mut def = BallDef::new(entry.pos, entry.radius)
        .velocity(entry.vel)
        .spin(entry.spin);
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
    def = def
        .restitution(restitution(
            &field("restitution"),
            entry.restitution.unwrap_or(defaults.restitution),
        )?)
        .friction(friction(
            &field("friction"),
            entry.friction.unwrap_or(defaults.friction),
        )?)
        .rolling_resistance(friction(
            &field("rolling_resistance"),
            entry
                .rolling_resistance
                .unwrap_or(defaults.rolling_resistance),
        )?);
    if let Some(color) = entry.color {
        def = def.color(self::color(&field("color"), color)?);
    }
    if let Some(name) = &entry.name {
        def = def.name(name.clone());
    }
    Ok(def)
}

pub(super) fn color(field: &str, (r, g, b): (f32, f32, f32)) -> Result<[f32; 3], (String, String)> {
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

pub(super) fn generate(
    g: usize,
    entry: &GeneratorEntry,
    defaults: Defaults,
) -> Result<Vec<BallDef>, (String, String)> {
    let p = entry.parameters();
    let field = |name: &str| format!("generators[{g}].{name}");
    let e = restitution(
        &field("restitution"),
        p.restitution.unwrap_or(defaults.restitution),
    )?;
    let mu = friction(&field("friction"), p.friction.unwrap_or(defaults.friction))?;
    let rolling = friction(
        &field("rolling_resistance"),
        p.rolling_resistance.unwrap_or(defaults.rolling_resistance),
    )?;
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
            let b = b.restitution(e).friction(mu).rolling_resistance(rolling);
            match color {
                Some(c) => b.color(c),
                None => b,
            }
        })
        .collect())
}
