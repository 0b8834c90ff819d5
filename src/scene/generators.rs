//! Seeded generators of non-overlapping balls in a box.

use std::fmt;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::math::{Real, Vec3, ball_volume, random_unit_vector};
use crate::sim::BallDef;

/// Most balls one generator may place; more is refused before anything is allocated.
pub const MAX_GENERATED: u64 = 10_000_000;

/// Largest magnitude of a coordinate, length or speed a scene may use: squares of lengths and
/// products of coordinates stay far inside what `f64` resolves.
pub const MAX_MAGNITUDE: Real = 1e9;

/// Return `x` as a short text: plain for ordinary magnitudes, in scientific notation otherwise.
pub(crate) fn number(x: Real) -> String {
    if x == 0.0 || (1e-4..1e9).contains(&x.abs()) || !x.is_finite() {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Return `v` as `(x, y, z)`, each as [`number`] writes it.
pub(crate) fn vector(v: Vec3) -> String {
    format!("({}, {}, {})", number(v.x), number(v.y), number(v.z))
}

/// A cell of a hash grid: each coordinate divided by the cell size and rounded down, kept as the
/// bits of a float, so that no cell saturates however small the cells are.
pub(crate) type CellKey = [u64; 3];

/// Return the cell of `p` in a grid of cells `size` wide.
pub(crate) fn cell_key(p: Vec3, size: Real) -> CellKey {
    let c = (p / size).floor();
    // + 0.0: -0.0 and 0.0 are one cell
    [c.x, c.y, c.z].map(|x| (x + 0.0).to_bits())
}

/// Return `key` and the 26 cells around it: one step along each axis, where a step is 1 below
/// 2^53 and one float above it (every float there is whole).
///
/// Two points less than a cell apart along an axis are at most one step apart there.
pub(crate) fn neighbour_cells(key: CellKey) -> impl Iterator<Item = CellKey> {
    const WHOLE: Real = 9_007_199_254_740_992.0; // 2^53
    let axes = key.map(|bits| {
        let c = f64::from_bits(bits);
        let [below, above] = if c.abs() < WHOLE {
            [c - 1.0, c + 1.0]
        } else {
            // The next float towards each side; c is not zero
            let away = f64::from_bits(bits + 1);
            let towards = f64::from_bits(bits - 1);
            if c > 0.0 {
                [towards, away]
            } else {
                [away, towards]
            }
        };
        [below, c, above].map(|x| (x + 0.0).to_bits())
    });
    axes[0].into_iter().flat_map(move |x| {
        axes[1]
            .into_iter()
            .flat_map(move |y| axes[2].into_iter().map(move |z| [x, y, z]))
    })
}

/// Why a generator cannot place its balls.
#[derive(Clone, Debug, PartialEq)]
pub enum GeneratorError {
    /// The count is zero or above [`MAX_GENERATED`].
    Count(u64),
    /// A corner of the box is not finite or beyond [`MAX_MAGNITUDE`].
    Corner {
        /// Which corner.
        corner: Corner,
        /// Where it is.
        at: Vec3,
    },
    /// The radius is not a finite number > 0 and up to [`MAX_MAGNITUDE`].
    Radius(Real),
    /// The radius is so small that the ball's mass at density 1 is zero or subnormal.
    Massless {
        /// The radius given.
        radius: Real,
        /// The mass it gives.
        mass: Real,
    },
    /// The speed is not a finite number from 0 to [`MAX_MAGNITUDE`].
    Speed(Real),
    /// The box is narrower than one ball diameter along some axis.
    TooThin {
        /// `max - min`.
        size: Vec3,
    },
    /// The balls do not fit in the box without overlapping.
    DoesNotFit {
        /// Balls asked for.
        count: u64,
        /// Balls that fit.
        fits: u64,
    },
}

/// A corner of a generator's box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corner {
    /// The corner with the smallest coordinates.
    Min,
    /// The corner with the largest coordinates.
    Max,
}

impl GeneratorError {
    /// The generator's parameter at fault: `count`, `min`, `max`, `radius` or `speed`.
    #[must_use]
    pub const fn field(&self) -> &'static str {
        match self {
            Self::Count(_) | Self::DoesNotFit { .. } => "count",
            Self::Corner {
                corner: Corner::Min,
                ..
            } => "min",
            Self::Corner {
                corner: Corner::Max,
                ..
            }
            | Self::TooThin { .. } => "max",
            Self::Radius(_) | Self::Massless { .. } => "radius",
            Self::Speed(_) => "speed",
        }
    }

    /// What is wrong with [`field`](Self::field) and what is allowed, without the field's name.
    #[must_use]
    pub fn problem(&self) -> String {
        match self {
            Self::Count(n) => {
                format!("is {n}; allowed: 1 to {MAX_GENERATED} balls per generator")
            }
            Self::Corner { at, .. } => format!(
                "is {}; allowed: finite coordinates up to 1e9 in magnitude",
                vector(*at)
            ),
            Self::Radius(r) => format!("is {}; allowed: a number > 0 and up to 1e9", number(*r)),
            Self::Massless { radius, mass } => format!(
                "is {}, a ball of mass {} at density 1; allowed: a radius whose ball has a \
                 finite, non-zero mass",
                number(*radius),
                number(*mass)
            ),
            Self::Speed(v) => format!("is {}; allowed: a number from 0 to 1e9", number(*v)),
            Self::TooThin { size } => format!(
                "is {} from min; allowed: a box at least one ball diameter (2 radius) wide \
                 along every axis",
                vector(*size)
            ),
            Self::DoesNotFit { count, fits } => format!(
                "{count} balls do not fit in the box without overlapping; at most {fits} fit: \
                 allowed: a smaller count or radius, or a larger box"
            ),
        }
    }
}

impl fmt::Display for GeneratorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DoesNotFit { .. } => f.write_str(&self.problem()),
            _ => write!(f, "{} {}", self.field(), self.problem()),
        }
    }
}

impl std::error::Error for GeneratorError {}

/// Return the side of a cube holding `count` balls of `radius` at `fraction` of its volume.
///
/// The elastic gases of the benchmarks fill 5% (`fraction = 0.05`).
#[must_use]
pub fn gas_box_side(count: u64, radius: Real, fraction: Real) -> Real {
    // Written out, not through ball_volume: the scene files hold its result to the bit
    (count as Real * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3) / fraction).cbrt()
}

/// Place `count` balls of `radius` on a regular lattice filling the box `min..max`, each moving
/// at `speed` in a direction drawn from `seed`.
///
/// The lattice has as many sites as needed along each axis in proportion to the box's sides;
/// balls take the sites in order (x fastest), every ball entirely inside the box and at least a
/// hair apart. Fails when the count is out of range, a value is bad, or they do not fit.
pub fn lattice(
    min: Vec3,
    max: Vec3,
    count: u64,
    radius: Real,
    speed: Real,
    seed: u64,
) -> Result<Vec<BallDef>, GeneratorError> {
    check(min, max, count, radius, speed)?;
    let inner = max - min - Vec3::splat(2.0 * radius);
    // Sites per axis: at least 1, spaced at least 2r (plus a hair) apart
    let spacing_needed = 2.0 * radius * (1.0 + 1e-9);
    let capacity = |axis: Real| ((axis / spacing_needed).floor() as u64).saturating_add(1);
    let caps = [capacity(inner.x), capacity(inner.y), capacity(inner.z)];
    let fits = caps[0].saturating_mul(caps[1]).saturating_mul(caps[2]);
    if count > fits {
        return Err(GeneratorError::DoesNotFit { count, fits });
    }
    // The smallest cube-like grid with enough sites, within the capacities
    let volume =
        inner.x.max(spacing_needed) * inner.y.max(spacing_needed) * inner.z.max(spacing_needed);
    let per_length = (count as Real / volume).cbrt();
    let mut sites = [0u64; 3];
    for (k, side) in [inner.x, inner.y, inner.z].into_iter().enumerate() {
        sites[k] = ((side.max(spacing_needed) * per_length).ceil() as u64).clamp(1, caps[k]);
    }
    // Grow the axes with room until there are enough sites
    // Saturating: a thin box of tiny balls has more sites along two axes than a u64 holds
    while sites[0].saturating_mul(sites[1]).saturating_mul(sites[2]) < count {
        let k = (0..3)
            .filter(|&k| sites[k] < caps[k])
            .min_by_key(|&k| sites[k])
            .expect("the count fits, so some axis has room");
        sites[k] += 1;
    }
    let step = |k: usize, side: Real| {
        if sites[k] > 1 {
            side / (sites[k] - 1) as Real
        } else {
            0.0
        }
    };
    let steps = Vec3::new(step(0, inner.x), step(1, inner.y), step(2, inner.z));
    let offset = Vec3::new(
        if sites[0] == 1 { inner.x / 2.0 } else { 0.0 },
        if sites[1] == 1 { inner.y / 2.0 } else { 0.0 },
        if sites[2] == 1 { inner.z / 2.0 } else { 0.0 },
    );
    let origin = min + Vec3::splat(radius) + offset;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    Ok((0..count)
        .map(|n| {
            let (x, y, z) = (
                n % sites[0],
                n / sites[0] % sites[1],
                n / sites[0].saturating_mul(sites[1]),
            );
            let position = origin + steps * Vec3::new(x as Real, y as Real, z as Real);
            BallDef::new(position, radius).velocity(random_unit_vector(&mut rng) * speed)
        })
        .collect())
}

/// Place `count` balls of `radius` at random in the box `min..max`, none overlapping, each
/// moving at `speed` in a random direction, all drawn from `seed`.
///
/// Rejection sampling on a grid of cells; fails when the count is out of range or a value is
/// bad, or when the box is packed beyond 30% of its volume (random placement jams well before
/// the densest packing).
pub fn random_block(
    min: Vec3,
    max: Vec3,
    count: u64,
    radius: Real,
    speed: Real,
    seed: u64,
) -> Result<Vec<BallDef>, GeneratorError> {
    check(min, max, count, radius, speed)?;
    let inner = max - min - Vec3::splat(2.0 * radius);
    let box_volume = (max - min).x * (max - min).y * (max - min).z;
    let fits = (0.3 * box_volume / ball_volume(radius)).floor() as u64;
    if count > fits {
        return Err(GeneratorError::DoesNotFit { count, fits });
    }
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let cell = 2.0 * radius;
    let mut grid: std::collections::HashMap<CellKey, Vec<Vec3>> = Default::default();
    let mut balls = Vec::with_capacity(count as usize);
    let mut tries = 0u64;
    while (balls.len() as u64) < count {
        tries += 1;
        if tries > 1000 * count + 10_000 {
            return Err(GeneratorError::DoesNotFit {
                count,
                fits: balls.len() as u64,
            });
        }
        let p = min
            + Vec3::splat(radius)
            + Vec3::new(
                rng.random::<Real>() * inner.x,
                rng.random::<Real>() * inner.y,
                rng.random::<Real>() * inner.z,
            );
        let c = cell_key(p - min, cell);
        let clear = neighbour_cells(c).all(|near| {
            grid.get(&near).is_none_or(|others| {
                others
                    .iter()
                    .all(|q| (p - *q).length_squared() > cell * cell * (1.0 + 1e-9))
            })
        });
        if clear {
            grid.entry(c).or_default().push(p);
            balls.push(BallDef::new(p, radius).velocity(random_unit_vector(&mut rng) * speed));
        }
    }
    Ok(balls)
}

fn check(
    min: Vec3,
    max: Vec3,
    count: u64,
    radius: Real,
    speed: Real,
) -> Result<(), GeneratorError> {
    if count == 0 || count > MAX_GENERATED {
        return Err(GeneratorError::Count(count));
    }
    let within = |v: Vec3| v.is_finite() && v.abs().max_element() <= MAX_MAGNITUDE;
    if !within(min) {
        return Err(GeneratorError::Corner {
            corner: Corner::Min,
            at: min,
        });
    }
    if !within(max) {
        return Err(GeneratorError::Corner {
            corner: Corner::Max,
            at: max,
        });
    }
    if !(radius.is_finite() && radius > 0.0 && radius <= MAX_MAGNITUDE) {
        return Err(GeneratorError::Radius(radius));
    }
    let mass = ball_volume(radius);
    if !(mass.is_normal() && mass.is_finite()) {
        return Err(GeneratorError::Massless { radius, mass });
    }
    if !(speed.is_finite() && (0.0..=MAX_MAGNITUDE).contains(&speed)) {
        return Err(GeneratorError::Speed(speed));
    }
    if !(max - min).cmpge(Vec3::splat(2.0 * radius)).all() {
        return Err(GeneratorError::TooThin { size: max - min });
    }
    Ok(())
}
