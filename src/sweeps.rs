//! Seeded random sweeps of every pair kind, and a side-by-side run of strategies over them.
//!
//! The same seed gives the same cases on every machine (a PCG generator), so the command line,
//! the benchmarks and comparisons with other engines all answer the same questions. Cases are
//! unit-sized objects near the origin with a ball aimed roughly at them, at speeds from a
//! crawl to many diameters per interval, so that some hit squarely, some graze and some miss.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use crate::geometry::{CappedCylinder, ConvexPolygon, Cylinder, InfiniteCylinder, Plane};
use crate::math::{Real, Vec3, random_unit_vector};
pub use crate::toi::PairKind;
use crate::toi::{MovingBall, Toi, ToiMode, ToiStrategy};

/// What the swept ball is tested against.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// Another moving ball.
    Ball(MovingBall),
    /// A static plane.
    Plane(Plane),
    /// A static cylinder.
    Cylinder(Cylinder),
    /// A static convex polygon.
    Polygon(ConvexPolygon),
}

/// One query: a moving ball, what it may hit, and the interval `[0, t_max]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepCase {
    /// The swept ball.
    pub ball: MovingBall,
    /// The other object.
    pub target: Target,
    /// End of the interval.
    pub t_max: Real,
}

impl SweepCase {
    /// Return the kind of pair.
    #[must_use]
    pub fn kind(&self) -> PairKind {
        match self.target {
            Target::Ball(_) => PairKind::BallBall,
            Target::Plane(_) => PairKind::BallPlane,
            Target::Cylinder(_) => PairKind::BallCylinder,
            Target::Polygon(_) => PairKind::BallPolygon,
        }
    }

    /// Answer the case with `strategy`.
    #[must_use]
    pub fn query(&self, strategy: &impl ToiStrategy) -> Toi {
        match &self.target {
            Target::Ball(other) => strategy.ball_ball(&self.ball, other, self.t_max),
            Target::Plane(plane) => strategy.ball_plane(&self.ball, plane, self.t_max),
            Target::Cylinder(cylinder) => strategy.ball_cylinder(&self.ball, cylinder, self.t_max),
            Target::Polygon(polygon) => strategy.ball_polygon(&self.ball, polygon, self.t_max),
        }
    }
}

/// Return `count` cases of `kind` from `seed`: the same cases for the same arguments, always.
///
/// No case starts in contact: every one is a question about the future.
#[must_use]
pub fn generate(kind: PairKind, count: usize, seed: u64) -> Vec<SweepCase> {
    // One stream per kind, so the ball-ball cases do not change when others are added
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ (kind as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    (0..count)
        .map(|_| {
            loop {
                let case = generate_one(kind, &mut rng);
                if !matches!(case.query(&crate::toi::Analytic), Toi::Overlapping(_)) {
                    break case;
                }
            }
        })
        .collect()
}

fn generate_one(kind: PairKind, rng: &mut Pcg64Mcg) -> SweepCase {
    let t_max = 1.0;
    let radius = rng.random_range(0.05..0.6);
    let target = match kind {
        PairKind::BallBall => Target::Ball(MovingBall::new(
            random_unit_vector(rng) * rng.random_range(0.0..0.5),
            rng.random_range(0.05..0.6),
            random_unit_vector(rng) * speed(rng) * 0.5,
        )),
        PairKind::BallPlane => Target::Plane(
            Plane::new(
                random_unit_vector(rng) * rng.random_range(0.0..0.5),
                random_unit_vector(rng),
            )
            .expect("a unit normal"),
        ),
        PairKind::BallCylinder => {
            let axis = random_unit_vector(rng);
            let cylinder_radius = rng.random_range(0.1..0.8);
            if rng.random_bool(0.75) {
                let half = rng.random_range(0.1..1.0);
                let center = random_unit_vector(rng) * rng.random_range(0.0..0.3);
                Target::Cylinder(Cylinder::Capped(
                    CappedCylinder::new(
                        center - axis * half,
                        center + axis * half,
                        cylinder_radius,
                    )
                    .expect("distinct ends"),
                ))
            } else {
                Target::Cylinder(Cylinder::Infinite(
                    InfiniteCylinder::new(Vec3::ZERO, axis, cylinder_radius).expect("a unit axis"),
                ))
            }
        }
        PairKind::BallPolygon => Target::Polygon(random_polygon(rng)),
    };

    // Start outside, 1.5 to 4 from the origin, mostly aimed near the origin (some far off)
    let start = match &target {
        Target::Plane(plane) => {
            let lateral = random_unit_vector(rng) * rng.random_range(0.0..2.0);
            plane.point + lateral - plane.normal * plane.normal.dot(lateral)
                + plane.normal * (radius + rng.random_range(0.01..3.0))
        }
        _ => random_unit_vector(rng) * rng.random_range(1.5..4.0),
    };
    let aim = random_unit_vector(rng) * rng.random_range(0.0..1.2);
    let direction = crate::math::normalize_or(aim - start, Vec3::X);
    let ball = MovingBall::new(start, radius, direction * speed(rng));
    SweepCase {
        ball,
        target,
        t_max,
    }
}

/// A speed spread over three orders of magnitude: from 0.3 to 300 per unit time.
fn speed(rng: &mut Pcg64Mcg) -> Real {
    10f64.powf(rng.random_range(-0.5..2.5))
}

/// A convex polygon of 3 to 8 vertices on an ellipse in a random plane through the origin.
fn random_polygon(rng: &mut Pcg64Mcg) -> ConvexPolygon {
    let normal = random_unit_vector(rng);
    let u = normal.any_orthonormal_vector();
    let v = normal.cross(u);
    let (a, b) = (rng.random_range(0.3..1.2), rng.random_range(0.3..1.2));
    let count = rng.random_range(3..=8);
    let mut angles: Vec<Real> = (0..count)
        .map(|_| rng.random_range(0.0..std::f64::consts::TAU))
        .collect();
    angles.sort_by(Real::total_cmp);
    loop {
        let vertices = angles
            .iter()
            .map(|t| u * (a * t.cos()) + v * (b * t.sin()))
            .collect();
        match ConvexPolygon::new(vertices) {
            Ok(polygon) => return polygon,
            // Angles too close together: fall back to evenly spread ones
            Err(_) => {
                angles = (0..count)
                    .map(|i| std::f64::consts::TAU * Real::from(i) / Real::from(count))
                    .collect();
            }
        }
    }
}

/// How one strategy did on one pair kind, against the analytic answers to the same cases.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The strategy, as named on the command line.
    pub strategy: String,
    /// The pair kind.
    pub kind: PairKind,
    /// Cases asked.
    pub cases: usize,
    /// Cases the strategy reported as a hit.
    pub hits: usize,
    /// Cases the analytic strategy reported as a hit.
    pub analytic_hits: usize,
    /// Analytic hits the strategy reported as a miss (tunnelling).
    pub missed: usize,
    /// Cases the strategy reported as a hit where the analytic strategy found none.
    pub spurious: usize,
    /// Mean of `analytic time - strategy time` over the hits both found.
    pub mean_time_error: Real,
    /// Largest `|analytic time - strategy time|` over the hits both found.
    pub max_time_error: Real,
    /// Wall-clock nanoseconds per query, averaged over the cases (noisy: compare within a run).
    pub ns_per_query: Real,
}

/// Answer every case with each strategy and compare with the analytic answers.
///
/// Rows come per strategy, then per pair kind (kinds with no case are left out). `progress` is
/// called with the number of queries answered so far, for a progress bar.
#[must_use]
pub fn compare(
    cases: &[SweepCase],
    strategies: &[ToiMode],
    mut progress: impl FnMut(u64),
) -> Vec<Comparison> {
    let mut done = 0u64;
    let mut rows = Vec::new();
    for kind in PairKind::ALL {
        let subset: Vec<&SweepCase> = cases.iter().filter(|c| c.kind() == kind).collect();
        if subset.is_empty() {
            continue;
        }
        let (reference, _) = answer_all(&subset, &ToiMode::Analytic);
        done += subset.len() as u64;
        progress(done);
        for strategy in strategies {
            let (answers, seconds) = answer_all(&subset, strategy);
            done += subset.len() as u64;
            progress(done);
            rows.push(tally(strategy, kind, &reference, &answers, seconds));
        }
    }
    // Per strategy first, as people read the table
    rows.sort_by_key(|row| {
        strategies
            .iter()
            .position(|s| s.to_string() == row.strategy)
            .unwrap_or(usize::MAX)
    });
    rows
}

/// Answer every case with one strategy; return the answers and the seconds taken.
fn answer_all(cases: &[&SweepCase], strategy: &ToiMode) -> (Vec<Toi>, Real) {
    let clock = Instant::now();
    let answers = cases
        .iter()
        .map(|case| std::hint::black_box(case.query(strategy)))
        .collect();
    (answers, clock.elapsed().as_secs_f64())
}

/// Count a strategy's answers against the analytic ones.
fn tally(
    strategy: &ToiMode,
    kind: PairKind,
    reference: &[Toi],
    answers: &[Toi],
    seconds: Real,
) -> Comparison {
    let mut row = Comparison {
        strategy: strategy.to_string(),
        kind,
        cases: answers.len(),
        hits: answers.iter().filter(|a| a.is_hit()).count(),
        analytic_hits: reference.iter().filter(|a| a.is_hit()).count(),
        missed: 0,
        spurious: 0,
        mean_time_error: 0.0,
        max_time_error: 0.0,
        ns_per_query: seconds * 1e9 / answers.len().max(1) as Real,
    };
    let mut error_sum = 0.0;
    let mut both = 0usize;
    for (exact, found) in reference.iter().zip(answers) {
        match (exact, found) {
            (Toi::Hit(e), Toi::Hit(f)) => {
                let error = e.time - f.time;
                error_sum += error;
                row.max_time_error = row.max_time_error.max(error.abs());
                both += 1;
            }
            (Toi::Hit(_), _) => row.missed += 1,
            (_, Toi::Hit(_)) => row.spurious += 1,
            _ => {}
        }
    }
    if both > 0 {
        row.mean_time_error = error_sum / both as Real;
    }
    row
}
