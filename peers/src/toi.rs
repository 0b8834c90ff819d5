//! toibox's seeded random sweeps answered by its closed forms and by parry3d's `cast_shapes`.
//!
//! The cases come from [`toibox::sweeps::generate`], the same questions `toibox sweeps` asks:
//! - ball-ball and ball-plane as generated (parry answers the plane with its `HalfSpace`, the
//!   same solid half-space toibox's one-sided plane bounds);
//! - ball-cylinder: the capped cylinders among the generated cylinders (parry has no infinite
//!   cylinder), in order until there are enough;
//! - ball-triangle: the generated convex polygons cut to the triangle of their vertices `0`,
//!   `n/3` and `2n/3` (a triangle inside the polygon, so a case that starts apart from the
//!   polygon starts apart from its triangle too).
//!
//! parry is asked with `ShapeCastOptions::with_max_time_of_impact(t_max)`: its defaults (no
//! target distance, stop at penetration) and the case's interval. No case starts in contact, so
//! what it does on penetration does not matter.
//!
//! Where the two disagree by more than [`TOLERANCE`] (in hit or miss, or in time), the case is
//! judged with toibox's exact geometry (the signed gap between the two surfaces at a time, which
//! is a convex function of time along straight paths, so its minimum is found by a golden-section
//! search) and with parry's own contact query at the time in question, and put in a [`Class`].

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use parry3d_f64::math::{Pose, Rotation, Vector};
use parry3d_f64::query::{ShapeCastHit, ShapeCastOptions, ShapeCastStatus, cast_shapes};
use parry3d_f64::shape::{Ball, Cylinder, HalfSpace, Shape as ParryShape, Triangle};
use serde::Serialize;
use toibox::sweeps::{self, PairKind, Target};
use toibox::toi::analytic;
use toibox::{CappedCylinder, ConvexPolygon, MovingBall, Plane, Proximity, Shape, Toi, Vec3};

use crate::table::Table;

/// Time differences above this, and gaps or depths below it (in length), count as disagreements
/// and as within a tolerance, respectively.
pub const TOLERANCE: f64 = 1e-6;

/// Shortest time spent answering each set of cases, for a queries-per-second figure.
const MIN_TIMING: Duration = Duration::from_millis(250);

/// The pair kinds compared, by what the moving ball is swept against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Kind {
    /// Two moving balls.
    #[serde(rename = "ball_ball")]
    Ball,
    /// A ball and a plane (a half-space).
    #[serde(rename = "ball_plane")]
    Plane,
    /// A ball and a capped cylinder.
    #[serde(rename = "ball_capped_cylinder")]
    CappedCylinder,
    /// A ball and a triangle.
    #[serde(rename = "ball_triangle")]
    Triangle,
}

impl Kind {
    /// Every kind, in the order the table lists them.
    pub const ALL: [Self; 4] = [
        Self::Ball,
        Self::Plane,
        Self::CappedCylinder,
        Self::Triangle,
    ];

    /// Return the name the table uses.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ball => "ball-ball",
            Self::Plane => "ball-plane",
            Self::CappedCylinder => "ball-capped-cylinder",
            Self::Triangle => "ball-triangle",
        }
    }
}

/// What the moving ball may hit.
#[derive(Clone, Debug, PartialEq)]
pub enum Other {
    /// Another moving ball.
    Ball(MovingBall),
    /// A plane.
    Plane(Plane),
    /// A capped cylinder.
    Cylinder(CappedCylinder),
    /// A triangle (a convex polygon of three vertices).
    Triangle(ConvexPolygon),
}

/// One question: when does `ball` first touch `other` within `[0, t_max]`?
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The moving ball.
    pub ball: MovingBall,
    /// What it may hit.
    pub other: Other,
    /// End of the interval.
    pub t_max: f64,
}

impl Case {
    /// Answer with toibox's closed form for the pair.
    #[inline]
    pub fn toibox(&self) -> Toi {
        match &self.other {
            Other::Ball(other) => analytic::ball_ball(&self.ball, other, self.t_max),
            Other::Plane(plane) => analytic::ball_plane(&self.ball, plane, self.t_max),
            Other::Cylinder(cylinder) => {
                analytic::ball_capped_cylinder(&self.ball, cylinder, self.t_max)
            }
            Other::Triangle(triangle) => analytic::ball_polygon(&self.ball, triangle, self.t_max),
        }
    }

    /// Return how the pair stands at time `t`, by toibox's exact geometry: the signed gap, and
    /// the normal from the other object towards the ball.
    pub fn proximity_at(&self, t: f64) -> Proximity {
        let ball = self.ball.at(t);
        match &self.other {
            Other::Ball(other) => other.at(t).proximity(&ball),
            Other::Plane(plane) => plane.proximity(&ball),
            Other::Cylinder(cylinder) => cylinder.proximity(&ball),
            Other::Triangle(triangle) => triangle.proximity(&ball),
        }
    }

    /// Return the ball's velocity relative to the other object.
    pub fn relative_velocity(&self) -> Vec3 {
        match &self.other {
            Other::Ball(other) => self.ball.velocity - other.velocity,
            _ => self.ball.velocity,
        }
    }

    /// Return the speed at which the gap closes at time `t` (negative when it opens).
    pub fn approach_speed(&self, t: f64) -> f64 {
        -self.proximity_at(t).normal.dot(self.relative_velocity())
    }

    /// Return the time in `[lo, hi]` where the gap is smallest, and the gap there.
    pub fn closest(&self, lo: f64, hi: f64) -> (f64, f64) {
        let gap = |t: f64| self.proximity_at(t).distance;
        let ratio = (5f64.sqrt() - 1.0) / 2.0;
        let (mut a, mut b) = (lo, hi);
        let mut c = b - ratio * (b - a);
        let mut d = a + ratio * (b - a);
        let (mut fc, mut fd) = (gap(c), gap(d));
        for _ in 0..200 {
            if fc < fd {
                b = d;
                d = c;
                fd = fc;
                c = b - ratio * (b - a);
                fc = gap(c);
            } else {
                a = c;
                c = d;
                fc = fd;
                d = a + ratio * (b - a);
                fd = gap(d);
            }
        }
        [(lo, gap(lo)), (hi, gap(hi)), (c, fc), (d, fd)]
            .into_iter()
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .expect("four candidates")
    }

    /// Return the feature of the other object a contact point lies on: `sphere`, `face`
    /// (plane, triangle), `edge`, `vertex` (triangle), `side`, `cap`, `rim` (cylinder).
    pub fn feature(&self, point: Vec3) -> &'static str {
        let near = |d: f64| d.abs() <= 1e-9;
        match &self.other {
            Other::Ball(_) => "sphere",
            Other::Plane(_) => "face",
            Other::Cylinder(c) => {
                let axis = (c.b - c.a).normalize();
                let along = (point - c.a).dot(axis);
                let radial = (point - c.a - axis * along).length();
                match (
                    near(along) || near(along - c.length()),
                    near(radial - c.radius),
                ) {
                    (true, true) => "rim",
                    (true, false) => "cap",
                    _ => "side",
                }
            }
            Other::Triangle(t) => {
                if t.vertices().iter().any(|&v| near((point - v).length())) {
                    "vertex"
                } else if t.edges().any(|(a, b)| {
                    let along = ((point - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
                    near((point - a - (b - a) * along).length())
                }) {
                    "edge"
                } else {
                    "face"
                }
            }
        }
    }

    /// Describe the other object in a line.
    pub fn describe_other(&self) -> String {
        let v = |v: Vec3| format!("({:.6}, {:.6}, {:.6})", v.x, v.y, v.z);
        match &self.other {
            Other::Ball(b) => format!(
                "ball at {} radius {:.6} velocity {}",
                v(b.center),
                b.radius,
                v(b.velocity)
            ),
            Other::Plane(p) => format!("plane through {} normal {}", v(p.point), v(p.normal)),
            Other::Cylinder(c) => format!(
                "capped cylinder {} to {} radius {:.6}",
                v(c.a),
                v(c.b),
                c.radius
            ),
            Other::Triangle(t) => format!(
                "triangle {}",
                t.vertices()
                    .iter()
                    .map(|&p| v(p))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

/// A case as parry is asked it: poses, velocities and shapes.
pub struct ParryCase {
    pos1: Pose,
    vel1: Vector,
    ball: Ball,
    pos2: Pose,
    vel2: Vector,
    other: ParryOther,
    options: ShapeCastOptions,
}

/// parry's shape of the other object.
enum ParryOther {
    Ball(Ball),
    HalfSpace(HalfSpace),
    Cylinder(Cylinder),
    Triangle(Triangle),
}

impl ParryCase {
    /// Translate a case into parry's terms.
    pub fn new(case: &Case) -> Self {
        let (pos2, vel2, other) = match &case.other {
            Other::Ball(b) => (
                Pose::from_translation(vector(b.center)),
                vector(b.velocity),
                ParryOther::Ball(Ball::new(b.radius)),
            ),
            Other::Plane(p) => (
                Pose::from_translation(vector(p.point)),
                Vector::ZERO,
                ParryOther::HalfSpace(HalfSpace::new(vector(p.normal))),
            ),
            Other::Cylinder(c) => {
                let axis = vector(c.b - c.a);
                let rotation = Rotation::from_rotation_arc(Vector::Y, axis.normalize());
                (
                    Pose::from_parts(vector((c.a + c.b) / 2.0), rotation),
                    Vector::ZERO,
                    ParryOther::Cylinder(Cylinder::new(axis.length() / 2.0, c.radius)),
                )
            }
            Other::Triangle(t) => {
                let v = t.vertices();
                (
                    Pose::IDENTITY,
                    Vector::ZERO,
                    ParryOther::Triangle(Triangle::new(vector(v[0]), vector(v[1]), vector(v[2]))),
                )
            }
        };
        Self {
            pos1: Pose::from_translation(vector(case.ball.center)),
            vel1: vector(case.ball.velocity),
            ball: Ball::new(case.ball.radius),
            pos2,
            vel2,
            other,
            options: ShapeCastOptions::with_max_time_of_impact(case.t_max),
        }
    }

    /// Return parry's shape of the other object.
    #[inline]
    fn other(&self) -> &dyn ParryShape {
        match &self.other {
            ParryOther::Ball(s) => s,
            ParryOther::HalfSpace(s) => s,
            ParryOther::Cylinder(s) => s,
            ParryOther::Triangle(s) => s,
        }
    }

    /// Answer with parry's `cast_shapes`.
    #[inline]
    pub fn answer(&self) -> Option<ShapeCastHit> {
        cast_shapes(
            &self.pos1,
            self.vel1,
            &self.ball,
            &self.pos2,
            self.vel2,
            self.other(),
            self.options,
        )
        .expect("parry answers every pair compared here")
    }

    /// Return the signed gap at time `t` by parry's own contact query (negative: overlapping),
    /// or `None` when the pair is farther apart than the scale of the cases.
    pub fn own_gap(&self, t: f64) -> Option<f64> {
        let at = |pose: &Pose, velocity: Vector| {
            Pose::from_parts(pose.translation + velocity * t, pose.rotation)
        };
        parry3d_f64::query::contact(
            &at(&self.pos1, self.vel1),
            &self.ball,
            &at(&self.pos2, self.vel2),
            self.other(),
            1e3,
        )
        .expect("parry answers every pair compared here")
        .map(|contact| contact.dist)
    }
}

/// Return toibox's vector as parry's (a newer glam).
fn vector(v: Vec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

/// Return `count` cases of `kind` from `seed`.
pub fn cases(kind: Kind, count: usize, seed: u64) -> Vec<Case> {
    let (pair, keep): (PairKind, fn(sweeps::SweepCase) -> Option<Case>) = match kind {
        Kind::Ball => (PairKind::BallBall, |c| match c.target {
            Target::Ball(other) => Some(Case {
                ball: c.ball,
                other: Other::Ball(other),
                t_max: c.t_max,
            }),
            _ => None,
        }),
        Kind::Plane => (PairKind::BallPlane, |c| match c.target {
            Target::Plane(plane) => Some(Case {
                ball: c.ball,
                other: Other::Plane(plane),
                t_max: c.t_max,
            }),
            _ => None,
        }),
        Kind::CappedCylinder => (PairKind::BallCylinder, |c| match c.target {
            Target::Cylinder(toibox::Cylinder::Capped(cylinder)) => Some(Case {
                ball: c.ball,
                other: Other::Cylinder(cylinder),
                t_max: c.t_max,
            }),
            _ => None,
        }),
        Kind::Triangle => (PairKind::BallPolygon, |c| match c.target {
            Target::Polygon(polygon) => {
                let v = polygon.vertices();
                let n = v.len();
                let triangle = ConvexPolygon::new(vec![v[0], v[n / 3], v[2 * n / 3]]).ok()?;
                Some(Case {
                    ball: c.ball,
                    other: Other::Triangle(triangle),
                    t_max: c.t_max,
                })
            }
            _ => None,
        }),
    };
    // The generator's stream is sequential, so a longer run starts with the same cases
    let mut asked = count + count / 2 + 16;
    loop {
        let kept: Vec<Case> = sweeps::generate(pair, asked, seed)
            .into_iter()
            .filter_map(keep)
            .take(count)
            .collect();
        if kept.len() == count {
            return kept;
        }
        asked *= 2;
    }
}

/// Why an answer of parry's differs from toibox's, judged by toibox's exact geometry and by
/// parry's own contact query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Both hit, and the exact gap at parry's time is within [`TOLERANCE`]: the pair closes
    /// so slowly there that a tiny gap is a long time.
    SlowApproach,
    /// toibox hits and parry misses, and the ball never gets deeper than [`TOLERANCE`] into
    /// the other object within the interval: a grazing touch.
    GrazingTouch,
    /// parry hits and toibox misses, and the ball passes within [`TOLERANCE`] of the other
    /// object without touching it.
    NearMiss,
    /// parry's cast disagrees with parry's own contact query by more than [`TOLERANCE`]: at the
    /// time it reports (or, for a miss, where the ball is deepest), its contact query finds the
    /// pair overlapping (late, missed) or apart (early).
    ParryInconsistent,
    /// Anything else: the two geometries disagree.
    Unexplained,
}

impl Class {
    /// Return a short description for the text report.
    pub fn describe(self) -> &'static str {
        match self {
            Self::SlowApproach => {
                "both hit; the exact gap at parry's time is within 1e-6, approached slowly"
            }
            Self::GrazingTouch => "toibox hits, parry misses; the ball goes at most 1e-6 deep",
            Self::NearMiss => "parry hits, toibox misses; the ball passes within 1e-6",
            Self::ParryInconsistent => {
                "parry's cast is off by more than 1e-6 by parry's own contact query"
            }
            Self::Unexplained => "not explained by a tolerance or by parry's own query",
        }
    }
}

/// One case on which the two disagree, with the figures that explain it.
#[derive(Clone, Debug, Serialize)]
pub struct Disagreement {
    /// The case's index among the cases of its kind.
    pub index: usize,
    /// Why they disagree.
    pub class: Class,
    /// The ball's centre at `t = 0`.
    pub center: [f64; 3],
    /// The ball's radius.
    pub radius: f64,
    /// The ball's velocity.
    pub velocity: [f64; 3],
    /// The other object.
    pub other: String,
    /// End of the interval.
    pub t_max: f64,
    /// toibox's time of impact, if it hits.
    pub toibox_time: Option<f64>,
    /// parry's time of impact, if it hits.
    pub parry_time: Option<f64>,
    /// parry's status, if it hits.
    pub parry_status: Option<String>,
    /// The exact gap at toibox's time (zero up to rounding), if it hits.
    pub gap_at_toibox_time: Option<f64>,
    /// The exact gap at parry's time, if it hits.
    pub gap_at_parry_time: Option<f64>,
    /// The smallest exact gap over the interval (minus the deepest penetration).
    pub closest_gap: f64,
    /// The speed at which the gap closes at toibox's time, or at the closest approach.
    pub approach_speed: f64,
    /// The feature toibox's contact lies on (see [`Case::feature`]), or at the closest
    /// approach for a miss.
    pub feature: &'static str,
    /// parry's own signed gap (its contact query) at its time, or where the ball is deepest
    /// when it misses.
    pub parry_own_gap: Option<f64>,
}

impl Disagreement {
    /// Judge a case whose answers differ.
    fn judge(
        index: usize,
        case: &Case,
        parry_case: &ParryCase,
        toibox: Option<f64>,
        parry: Option<&ShapeCastHit>,
    ) -> Self {
        let parry_time = parry.map(|h| h.time_of_impact);
        let (closest_time, closest_gap) = case.closest(0.0, case.t_max);
        let gap_at = |t: Option<f64>| t.map(|t| case.proximity_at(t).distance);
        // Where parry is asked its own opinion: at its time, or where the ball is deepest
        let judged_time = parry_time.unwrap_or(closest_time);
        let exact_there = case.proximity_at(judged_time).distance;
        let parry_own_gap = parry_case.own_gap(judged_time);
        // parry's contact query agrees with the exact gap there, which its cast contradicts
        let parry_inconsistent = exact_there.abs() > TOLERANCE
            && parry_own_gap.is_some_and(|own| (own - exact_there).abs() <= TOLERANCE);
        let class = match (toibox, parry_time) {
            (Some(_), Some(_)) if exact_there.abs() <= TOLERANCE => Class::SlowApproach,
            (Some(_), None) if closest_gap >= -TOLERANCE => Class::GrazingTouch,
            (None, Some(_)) if (0.0..=TOLERANCE).contains(&closest_gap) => Class::NearMiss,
            _ if parry_inconsistent => Class::ParryInconsistent,
            _ => Class::Unexplained,
        };
        let feature_time = toibox.unwrap_or(closest_time);
        let v = |v: Vec3| [v.x, v.y, v.z];
        Self {
            index,
            class,
            center: v(case.ball.center),
            radius: case.ball.radius,
            velocity: v(case.ball.velocity),
            other: case.describe_other(),
            t_max: case.t_max,
            toibox_time: toibox,
            parry_time,
            parry_status: parry.map(|h| format!("{:?}", h.status)),
            gap_at_toibox_time: gap_at(toibox),
            gap_at_parry_time: gap_at(parry_time),
            closest_gap,
            approach_speed: case.approach_speed(feature_time),
            feature: case.feature(case.proximity_at(feature_time).point),
            parry_own_gap,
        }
    }

    /// Describe the case and both answers in a few lines.
    pub fn describe(&self) -> String {
        let time = |t: Option<f64>| t.map_or_else(|| "miss".to_owned(), |t| format!("{t:.12}"));
        let gap = |g: Option<f64>| g.map_or_else(|| "-".to_owned(), |g| format!("{g:.3e}"));
        format!(
            "case {}: {:?}, on the {}\n  ball at ({:.6}, {:.6}, {:.6}) radius {:.6} velocity \
             ({:.6}, {:.6}, {:.6}), t_max {}\n  against {}\n  toibox {} (exact gap there {}), \
             parry {} {} (exact gap there {}, by parry's contact query {}); closest gap {:.3e}, \
             approach speed {:.3e}",
            self.index,
            self.class,
            self.feature,
            self.center[0],
            self.center[1],
            self.center[2],
            self.radius,
            self.velocity[0],
            self.velocity[1],
            self.velocity[2],
            self.t_max,
            self.other,
            time(self.toibox_time),
            gap(self.gap_at_toibox_time),
            time(self.parry_time),
            self.parry_status.as_deref().unwrap_or(""),
            gap(self.gap_at_parry_time),
            gap(self.parry_own_gap),
            self.closest_gap,
            self.approach_speed,
        )
    }
}

/// How toibox and parry did on one pair kind.
#[derive(Clone, Debug, Serialize)]
pub struct KindReport {
    /// The pair kind.
    pub kind: Kind,
    /// Cases asked.
    pub cases: usize,
    /// toibox's queries per second of wall-clock time.
    pub toibox_queries_per_second: f64,
    /// parry's queries per second of wall-clock time.
    pub parry_queries_per_second: f64,
    /// Cases toibox reports as a hit.
    pub toibox_hits: usize,
    /// Cases parry reports as a hit.
    pub parry_hits: usize,
    /// Cases only toibox reports as a hit.
    pub toibox_only: usize,
    /// Cases only parry reports as a hit.
    pub parry_only: usize,
    /// Largest `|toibox time - parry time|` among the cases both report as a hit.
    pub max_time_difference: f64,
    /// Cases both report as a hit, at times more than [`TOLERANCE`] apart.
    pub time_differences: usize,
    /// Largest exact gap at parry's time among the cases both report as a hit: how far short
    /// of the contact parry stops (negative: how deep past it).
    pub max_gap_at_parry_time: f64,
    /// Smallest exact gap at parry's time among the cases both report as a hit.
    pub min_gap_at_parry_time: f64,
    /// parry's hits by status.
    pub parry_status: BTreeMap<String, usize>,
    /// toibox answers other than a hit or a miss (an overlap at the start: none expected).
    pub toibox_overlapping: usize,
    /// Disagreements by class.
    pub classes: BTreeMap<Class, usize>,
    /// Every disagreement: the least explained classes first, then the largest time
    /// differences.
    pub disagreements: Vec<Disagreement>,
}

/// Return queries per second: answer every case with `answer` until [`MIN_TIMING`] has passed.
fn rate<C, R>(cases: &[C], answer: impl Fn(&C) -> R) -> f64 {
    let pass = || {
        for case in cases {
            black_box(answer(black_box(case)));
        }
    };
    pass();
    let clock = Instant::now();
    let mut passes = 0u64;
    while passes == 0 || clock.elapsed() < MIN_TIMING {
        pass();
        passes += 1;
    }
    (passes as f64 * cases.len() as f64) / clock.elapsed().as_secs_f64()
}

/// Compare toibox and parry on `count` cases of `kind` from `seed`.
pub fn compare(kind: Kind, count: usize, seed: u64) -> KindReport {
    let cases = cases(kind, count, seed);
    let parry_cases: Vec<ParryCase> = cases.iter().map(ParryCase::new).collect();
    let toibox_queries_per_second = rate(&cases, Case::toibox);
    let parry_queries_per_second = rate(&parry_cases, ParryCase::answer);
    let mut report = KindReport {
        kind,
        cases: cases.len(),
        toibox_queries_per_second,
        parry_queries_per_second,
        toibox_hits: 0,
        parry_hits: 0,
        toibox_only: 0,
        parry_only: 0,
        max_time_difference: 0.0,
        time_differences: 0,
        max_gap_at_parry_time: 0.0,
        min_gap_at_parry_time: 0.0,
        parry_status: BTreeMap::new(),
        toibox_overlapping: 0,
        classes: BTreeMap::new(),
        disagreements: Vec::new(),
    };
    for (index, (case, parry_case)) in cases.iter().zip(&parry_cases).enumerate() {
        let ours = match case.toibox() {
            Toi::Hit(contact) => Some(contact.time),
            Toi::Overlapping(_) => {
                report.toibox_overlapping += 1;
                Some(0.0)
            }
            Toi::Miss => None,
        };
        let theirs = parry_case.answer();
        if let Some(hit) = &theirs {
            *report
                .parry_status
                .entry(status_name(hit.status))
                .or_default() += 1;
        }
        report.toibox_hits += usize::from(ours.is_some());
        report.parry_hits += usize::from(theirs.is_some());
        let differs = match (ours, &theirs) {
            (Some(t), Some(hit)) => {
                let difference = (t - hit.time_of_impact).abs();
                report.max_time_difference = report.max_time_difference.max(difference);
                report.time_differences += usize::from(difference > TOLERANCE);
                let gap = case.proximity_at(hit.time_of_impact).distance;
                report.max_gap_at_parry_time = report.max_gap_at_parry_time.max(gap);
                report.min_gap_at_parry_time = report.min_gap_at_parry_time.min(gap);
                difference > TOLERANCE
            }
            (Some(_), None) => {
                report.toibox_only += 1;
                true
            }
            (None, Some(_)) => {
                report.parry_only += 1;
                true
            }
            (None, None) => false,
        };
        if differs {
            let judged = Disagreement::judge(index, case, parry_case, ours, theirs.as_ref());
            *report.classes.entry(judged.class).or_default() += 1;
            report.disagreements.push(judged);
        }
    }
    let spread = |d: &Disagreement| match (d.toibox_time, d.parry_time) {
        (Some(a), Some(b)) => (a - b).abs(),
        _ => f64::INFINITY,
    };
    // The least explained first, then the largest time differences
    report
        .disagreements
        .sort_by(|a, b| b.class.cmp(&a.class).then(spread(b).total_cmp(&spread(a))));
    report
}

/// Return a status as the report names it.
fn status_name(status: ShapeCastStatus) -> String {
    match status {
        ShapeCastStatus::Converged => "converged",
        ShapeCastStatus::OutOfIterations => "out_of_iterations",
        ShapeCastStatus::Failed => "failed",
        ShapeCastStatus::PenetratingOrWithinTargetDist => "penetrating",
    }
    .to_owned()
}

/// Return the reports as an aligned table, the disagreements by class, and up to `examples`
/// disagreements per kind.
pub fn text(reports: &[KindReport], examples: usize) -> String {
    let mut table = Table::new([
        "pair",
        "cases",
        "toibox q/s",
        "parry q/s",
        "x parry",
        "hits toibox",
        "hits parry",
        "hit/miss differ",
        "max |dt|",
        "|dt| > 1e-6",
    ]);
    for r in reports {
        table.row(vec![
            r.kind.name().to_owned(),
            r.cases.to_string(),
            format!("{:.3e}", r.toibox_queries_per_second),
            format!("{:.3e}", r.parry_queries_per_second),
            format!(
                "{:.2}",
                r.toibox_queries_per_second / r.parry_queries_per_second
            ),
            r.toibox_hits.to_string(),
            r.parry_hits.to_string(),
            format!("{} + {}", r.toibox_only, r.parry_only),
            format!("{:.2e}", r.max_time_difference),
            r.time_differences.to_string(),
        ]);
    }
    let mut out = table.render();
    out.push_str(
        "\nq/s              queries answered per second of wall-clock time\n\
         x parry          toibox's queries per second over parry's\n\
         hits             cases answered with a contact within the interval\n\
         hit/miss differ  cases only toibox hits + cases only parry hits\n\
         max |dt|         largest time difference among the cases both hit\n\
         |dt| > 1e-6      cases both hit, at times more than 1e-6 apart\n\
         \nThe exact gap between the surfaces at parry's times, smallest to largest\n\
         (positive: parry stops short of the contact; negative: past it):\n",
    );
    for r in reports {
        out.push_str(&format!(
            "  {:<22}{:.1e} to {:.1e}\n",
            r.kind.name(),
            r.min_gap_at_parry_time,
            r.max_gap_at_parry_time
        ));
    }
    for r in reports {
        if r.disagreements.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "\n{}: {} disagreements\n",
            r.kind.name(),
            r.disagreements.len()
        ));
        for (class, count) in &r.classes {
            out.push_str(&format!("  {count:>6}  {class:?}: {}\n", class.describe()));
        }
        for d in r.disagreements.iter().take(examples) {
            for line in d.describe().lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
    }
    out
}

/// The whole `toi --json` answer.
#[derive(Clone, Debug, Serialize)]
pub struct ToiReport {
    /// Always `"toi"`.
    pub command: &'static str,
    /// Cases per kind.
    pub cases: usize,
    /// Seed of the case generator.
    pub seed: u64,
    /// Time differences above this count as disagreements.
    pub tolerance: f64,
    /// One report per pair kind.
    pub kinds: Vec<KindReport>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cases_are_what_was_asked() {
        for kind in Kind::ALL {
            let cases = cases(kind, 50, 3);
            assert_eq!(cases.len(), 50);
            assert!(
                cases
                    .iter()
                    .all(|c| !matches!(c.toibox(), Toi::Overlapping(_)))
            );
        }
    }

    #[test]
    fn parry_and_toibox_agree_on_a_head_on_hit() {
        let case = Case {
            ball: MovingBall::new(Vec3::new(-2.0, 0.0, 0.0), 0.5, Vec3::X),
            other: Other::Cylinder(
                CappedCylinder::new(Vec3::new(0.0, -1.0, 0.0), Vec3::new(0.0, 1.0, 0.0), 0.5)
                    .unwrap(),
            ),
            t_max: 10.0,
        };
        assert_eq!(case.toibox().time(), Some(1.0));
        let parry = ParryCase::new(&case).answer().unwrap();
        assert!((parry.time_of_impact - 1.0).abs() < 1e-9);
    }
}
