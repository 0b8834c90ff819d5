//! The judge: which balls escaped or passed through something in a step, whatever the
//! strategy said. One judge for `run`, `compare` and the viewer.
//!
//! After each step every ball is judged on its own:
//! - escaped: its centre is behind a plane (signed distance < 0) or inside a cylinder;
//! - passed through: it overlaps a ball or a shape by more than [`TOLERANCE`] of its radius
//!   at the end of the step, or, for a ball the stepper kept on one path all through the step
//!   ([`Motion::Flight`]: a parabola under gravity, a straight line without, a standstill
//!   asleep), that path took it that deep into something on the way (the exact sweep, with the
//!   radius shrunk by the tolerance).
//!
//! The path is the stepper's, read from the ball's [`Path`] component: its acceleration, and
//! its velocity at the step's end taken back over the step to where the ball began. A ball
//! whose course changed in the step (a collision, a kick, a stop once the step's budget ran
//! out) is judged at its end only ([`Motion::Bent`]).
//!
//! A fault stays with the ball until the judge is made anew: a ball that tunnelled once is on
//! the wrong side from then on. Cost: the balls against each static shape whose box their
//! path's box meets, and the ball pairs whose path boxes share a cell of a grid.

use hecs::Entity;

use crate::geometry::{Aabb, Ball, Cylinder, Plane, Shape, StaticShape};
use crate::math::{Real, Vec3};
use crate::scene::{Scene, SceneItem, SceneWorld};
use crate::sim::{CollisionEvent, Path, Radius};
use crate::toi::{MovingBall, PairKind, Toi, analytic};
use crate::{Position, PreviousPosition, Velocity};

/// Overlap allowed before a ball counts as passed through, relative to its radius.
pub const TOLERANCE: Real = 0.05;

/// How far, relative to the size of the step's terms, a ball's last path taken back over the
/// step may start from where the ball began and still be the path it flew all step. A path
/// computed from an origin up to an epoch of steps back (see [`Path`]) rounds to some 1e-14
/// of them; a change of course moves the start by its change of velocity times the time
/// before it.
const REACHES_BACK: Real = 1e-9;

/// What went wrong with a ball.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Its centre went behind a plane or into a cylinder.
    Escaped,
    /// It went into or through a ball or a shape.
    PassedThrough,
}

/// How a ball moved in a step, as far as the judge can tell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// On one path all through the step, under a constant acceleration: the scene's gravity
    /// in flight, zero on a straight path or for a ball standing still (asleep). Judged along
    /// the path, from where it began to where it ended.
    Flight {
        /// The path's acceleration, in length units per time unit squared.
        acceleration: Vec3,
    },
    /// Its course changed in the step (a collision, a kick, a stop once the step's budget ran
    /// out), or nothing says how it moved: only its end is known, and it is judged there.
    Bent,
}

impl Motion {
    /// Return how a ball moved in a step of `dt` from `previous` to `position`, ending with
    /// `velocity` on `path` (its [`Path`] as the stepper wrote it): in flight under the path's
    /// acceleration when that path, taken back over the step from its end, starts where the
    /// ball began (to 1e-9 of the step's terms); bent when it does not, or without a path.
    ///
    /// A ball's `Path` is its last change of course, so a path that reaches back over the
    /// whole step is the one the ball flew: a collision, a kick or a stop when the step's
    /// budget ran out changes the velocity and moves the start it gives.
    #[must_use]
    pub fn of_path(
        previous: Vec3,
        position: Vec3,
        velocity: Vec3,
        path: Option<&Path>,
        dt: Real,
    ) -> Self {
        // Not stepped by a stepper that writes paths
        let Some(path) = path else {
            return Self::Bent;
        };
        let acceleration = path.acceleration;
        let (back, fall) = (velocity * dt, acceleration * (0.5 * dt * dt));
        let start = position - back + fall;
        let size = previous.abs().max(position.abs()) + back.abs() + fall.abs();
        if (start - previous).abs().max_element() <= REACHES_BACK * size.max_element() {
            Self::Flight { acceleration }
        } else {
            Self::Bent
        }
    }
}

/// A ball as the judge sees it after a step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BallStep {
    /// Centre at the start of the step.
    pub previous: Vec3,
    /// Centre at the end of the step.
    pub position: Vec3,
    /// Radius.
    pub radius: Real,
    /// How it moved from `previous` to `position`.
    pub motion: Motion,
}

impl BallStep {
    /// The ball shrunk by the tolerance, on its path over `[0, dt]` when it flew one (the path
    /// through both ends under its acceleration), else standing at its end.
    fn sweep(&self, dt: Real) -> MovingBall {
        let radius = self.radius * (1.0 - TOLERANCE);
        match self.motion {
            Motion::Bent => MovingBall::new(self.position, radius, Vec3::ZERO),
            Motion::Flight { acceleration } => {
                let start = (self.position - self.previous) / dt - acceleration * (0.5 * dt);
                MovingBall::new(self.previous, radius, start).with_acceleration(acceleration)
            }
        }
    }

    /// Where the centre was at the fraction `s` of a step of `dt`, on the path judged (its
    /// end for a bent one).
    fn center(&self, s: Real, dt: Real) -> Vec3 {
        let Motion::Flight { acceleration } = self.motion else {
            return self.position;
        };
        // The parabola through both ends bulges against its acceleration from the chord
        let chord = self.previous.lerp(self.position, s);
        chord - acceleration * (0.5 * dt * dt * s * (1.0 - s))
    }

    /// The box of the ball over its path in a step of `dt`.
    fn path_box(&self, dt: Real) -> Aabb {
        match self.motion {
            Motion::Bent => Aabb::of_path(self.position, self.position, self.radius),
            // The bulge of a parabola over its chord is at most |a| dt² / 8
            Motion::Flight { acceleration } => {
                let bulge = acceleration.length() * dt * dt / 8.0;
                Aabb::of_path(self.previous, self.position, self.radius + bulge)
            }
        }
    }

    /// True when the ball flew one path through the step.
    fn flew(&self) -> bool {
        matches!(self.motion, Motion::Flight { .. })
    }
}

/// Read the balls of `world` after a step of `dt` with the collisions `events` (its report's)
/// into `out`, in scene order, as the judge sees them: where each was before the step (its
/// `PreviousPosition`, else where it is) and after it, its radius, and how it moved
/// ([`Motion::of_path`] from its `Velocity` and `Path`; bent when it collided in the step).
///
/// # Panics
///
/// If a scene ball lost its `Position`, `Velocity` or `Radius` component.
pub fn read_step(world: &SceneWorld, events: &[CollisionEvent], dt: Real, out: &mut Vec<BallStep>) {
    let view = world.sim.world.view::<(
        &Position,
        Option<&PreviousPosition>,
        &Velocity,
        &Radius,
        Option<&Path>,
    )>();
    out.clear();
    out.extend(world.balls.iter().map(|&e| {
        let (p, previous, v, r, path) = view.get(e).expect("a scene ball keeps its components");
        let previous = previous.map_or(p.0, |q| q.0);
        BallStep {
            previous,
            position: p.0,
            radius: r.0,
            motion: Motion::of_path(previous, p.0, v.0, path, dt),
        }
    }));
    let mut mark = |e: Entity| {
        if let Some(SceneItem::Ball(i)) = world.item(e) {
            out[i].motion = Motion::Bent;
        }
    };
    for event in events {
        mark(event.a);
        if event.kind == PairKind::BallBall {
            mark(event.b);
        }
    }
}

/// A ball's first fault, and each later one that outranks it: what, when, against what, and
/// how deep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Finding {
    /// The fault.
    pub fault: Fault,
    /// The step it was found after, counted from 0 by the judge's calls.
    pub step: u64,
    /// The ball, by its number in the scene.
    pub ball: usize,
    /// What it went into, behind or through.
    pub other: SceneItem,
    /// How deep it went: the largest overlap with `other` on its path in the step (or at its
    /// end), in length units. Larger than the radius for a centre that got behind or inside.
    pub depth: Real,
}

/// Return the least of the convex function `gap` over `[t0, t1]`, found by golden-section
/// search to a relative width of 1e-10 (one new value per narrowing, about 50 in all); both
/// ends are tried too.
pub(crate) fn least(gap: impl Fn(Real) -> Real, t0: Real, t1: Real) -> Real {
    const RATIO: Real = 0.618_033_988_749_894_8;
    let (mut a, mut b) = (t0, t1);
    let mut best = gap(t0).min(gap(t1));
    let width = (t1 - t0).abs() * 1e-10;
    let (mut c, mut d) = (b - RATIO * (b - a), a + RATIO * (b - a));
    let (mut gc, mut gd) = (gap(c), gap(d));
    while b - a > width && a < c && c < d && d < b {
        best = best.min(gc).min(gd);
        if gc < gd {
            (b, d, gd) = (d, c, gc);
            c = b - RATIO * (b - a);
            gc = gap(c);
        } else {
            (a, c, gc) = (c, d, gd);
            d = a + RATIO * (b - a);
            gd = gap(d);
        }
    }
    best.min(gc).min(gd)
}

/// The judge of one scene, and the faults found so far.
#[derive(Clone, Debug)]
pub struct Judge {
    planes: Vec<Plane>,
    /// Infinite cylinders, tested against every ball, with their numbers in the scene.
    everywhere: Vec<(Cylinder, usize)>,
    /// Capped cylinders and polygons with their boxes and what they are in the scene.
    finite: Vec<(StaticShape, Aabb, SceneItem)>,
    /// The fault of each ball, in scene order.
    pub per_ball: Vec<Option<Fault>>,
    /// Each ball's first fault, and an escape after passing through, in the order found.
    pub findings: Vec<Finding>,
    /// Steps judged so far.
    steps: u64,
    /// Scratch of the pairs' grid: cell key and ball.
    entries: Vec<(u64, u32)>,
}

impl Judge {
    /// Create a judge for `scene`'s shapes and balls, with no faults yet.
    #[must_use]
    pub fn new(scene: &Scene) -> Self {
        let mut everywhere = Vec::new();
        let mut finite = Vec::new();
        for (k, c) in scene.cylinders.iter().enumerate() {
            match c.shape {
                Cylinder::Capped(capped) => {
                    let b = Aabb::of_path(capped.a, capped.b, capped.radius);
                    finite.push((c.shape.into(), b, SceneItem::Cylinder(k)));
                }
                Cylinder::Infinite(_) => everywhere.push((c.shape, k)),
            }
        }
        for (k, p) in scene.polygons.iter().enumerate() {
            let vertices = p.shape.vertices().iter().copied();
            let b = Aabb::of_points(vertices).expect("a polygon has vertices");
            finite.push((p.shape.clone().into(), b, SceneItem::Polygon(k)));
        }
        Self {
            planes: scene.planes.iter().map(|p| p.shape).collect(),
            everywhere,
            finite,
            per_ball: vec![None; scene.balls.len()],
            findings: Vec::new(),
            steps: 0,
            entries: Vec::new(),
        }
    }

    /// Return how many balls escaped and how many passed through something.
    #[must_use]
    pub fn counts(&self) -> (usize, usize) {
        let escaped = self.per_ball.iter().filter(|f| **f == Some(Fault::Escaped));
        let through = self
            .per_ball
            .iter()
            .filter(|f| **f == Some(Fault::PassedThrough));
        (escaped.count(), through.count())
    }

    /// Judge the balls after a step of `dt`; `balls` in scene order.
    pub fn judge(&mut self, balls: &[BallStep], dt: Real) {
        debug_assert_eq!(balls.len(), self.per_ball.len());
        for (i, ball) in balls.iter().enumerate() {
            if let Some((fault, other, depth)) = self.judge_statics(ball, dt) {
                self.mark(i, fault, other, depth);
            }
        }
        self.judge_pairs(balls, dt);
        self.steps += 1;
    }

    /// Record `fault` for ball `i`, found against `other` at `depth`; escaping outranks
    /// passing through, and only a ball's first fault of each rank is a finding.
    fn mark(&mut self, i: usize, fault: Fault, other: SceneItem, depth: Real) {
        let slot = &mut self.per_ball[i];
        if *slot == Some(fault) || *slot == Some(Fault::Escaped) {
            return;
        }
        *slot = Some(fault);
        self.findings.push(Finding {
            fault,
            step: self.steps,
            ball: i,
            other,
            depth,
        });
    }

    fn judge_statics(&self, ball: &BallStep, dt: Real) -> Option<(Fault, SceneItem, Real)> {
        let end = Ball::new(ball.position, ball.radius * (1.0 - TOLERANCE));
        let sweep = ball.sweep(dt);
        let hit = |toi: Toi| !matches!(toi, Toi::Miss);
        // How deep the whole ball went into `shape` on the path judged
        let depth = |shape: &dyn Shape| {
            let gap = |t: Real| {
                let center = ball.center(t, dt);
                shape.point_proximity(center).distance - ball.radius
            };
            -least(gap, 0.0, 1.0)
        };
        let mut through = None;
        // A path cannot dip into a half-space and leave it unless its acceleration bends it
        // out of it (towards the plane's normal): otherwise the end tells all
        let bends_out = |normal: Vec3| match ball.motion {
            Motion::Flight { acceleration } => acceleration.dot(normal) > 0.0,
            Motion::Bent => false,
        };
        for (k, plane) in self.planes.iter().enumerate() {
            let item = SceneItem::Plane(k);
            if plane.signed_distance(ball.position) < 0.0 {
                return Some((Fault::Escaped, item, depth(plane)));
            }
            let dips = bends_out(plane.normal) && hit(analytic::ball_plane(&sweep, plane, dt));
            if through.is_none() && (plane.overlaps(&end) || dips) {
                through = Some((item, depth(plane)));
            }
        }
        for (cylinder, k) in &self.everywhere {
            let item = SceneItem::Cylinder(*k);
            if cylinder.point_proximity(ball.position).distance < 0.0 {
                return Some((Fault::Escaped, item, depth(cylinder)));
            }
            if through.is_none()
                && (cylinder.overlaps(&end) || hit(analytic::ball_cylinder(&sweep, cylinder, dt)))
            {
                through = Some((item, depth(cylinder)));
            }
        }
        let path = ball.path_box(dt);
        for (shape, bounds, item) in &self.finite {
            if !path.overlaps(bounds) {
                continue;
            }
            match shape {
                StaticShape::Cylinder(c) => {
                    if c.point_proximity(ball.position).distance < 0.0 {
                        return Some((Fault::Escaped, *item, depth(c)));
                    }
                    if through.is_none()
                        && (c.overlaps(&end) || hit(analytic::ball_cylinder(&sweep, c, dt)))
                    {
                        through = Some((*item, depth(c)));
                    }
                }
                StaticShape::Polygon(p) => {
                    if through.is_none()
                        && (p.overlaps(&end) || hit(analytic::ball_polygon(&sweep, p, dt)))
                    {
                        through = Some((*item, depth(p)));
                    }
                }
                // Unbounded: judged against every ball above, never listed here
                StaticShape::Plane(_) => {}
            }
        }
        through.map(|(item, depth)| (Fault::PassedThrough, item, depth))
    }

    /// Find the pairs whose path boxes meet on a grid of cells the size of most boxes, and
    /// sweep each: a box goes in every cell it overlaps, a pair is tested in the cell that
    /// holds the higher of its two low corners (so once), and the few boxes wider than
    /// [`WIDE`] cells are tested against every ball.
    fn judge_pairs(&mut self, balls: &[BallStep], dt: Real) {
        let boxes: Vec<Aabb> = balls.iter().map(|b| b.path_box(dt)).collect();
        let Some(cell) = cell_size(&boxes) else {
            return;
        };
        let cell_of = |p: Vec3| (p / cell).floor();
        let mut entries = std::mem::take(&mut self.entries);
        let mut wide = Vec::new();
        entries.clear();
        for (i, b) in boxes.iter().enumerate() {
            let (lo, hi) = (cell_of(b.min), cell_of(b.max));
            let span = hi - lo;
            if !(span.is_finite() && span.max_element() < WIDE && lo.abs().max_element() < LIMIT) {
                wide.push(i);
                continue;
            }
            for x in lo.x as i64..=hi.x as i64 {
                for y in lo.y as i64..=hi.y as i64 {
                    for z in lo.z as i64..=hi.z as i64 {
                        entries.push((cell_key(x, y, z), i as u32));
                    }
                }
            }
        }
        entries.sort_unstable();
        let mut test = |i: usize, j: usize| {
            if boxes[i].overlaps(&boxes[j]) && pair_passed_through(&balls[i], &balls[j], dt) {
                let depth = pair_depth(&balls[i], &balls[j], dt);
                self.mark(i, Fault::PassedThrough, SceneItem::Ball(j), depth);
                self.mark(j, Fault::PassedThrough, SceneItem::Ball(i), depth);
            }
        };
        for run in entries.chunk_by(|a, b| a.0 == b.0) {
            for (k, &(key, i)) in run.iter().enumerate() {
                for &(_, j) in &run[k + 1..] {
                    let (i, j) = (i as usize, j as usize);
                    let c = cell_of(boxes[i].min.max(boxes[j].min));
                    if cell_key(c.x as i64, c.y as i64, c.z as i64) == key {
                        test(i, j);
                    }
                }
            }
        }
        for (k, &i) in wide.iter().enumerate() {
            for j in 0..boxes.len() {
                // Two wide boxes meet once, from the first of them
                if j != i && !wide[..k].contains(&j) {
                    test(i, j);
                }
            }
        }
        self.entries = entries;
    }
}

/// Boxes spanning this many cells or more on an axis are tested against every ball.
const WIDE: Real = 4.0;

/// Cell indices stay below this in magnitude (21 bits each in a key).
const LIMIT: Real = (1 << 20) as Real;

/// Return the grid's cell size: the largest edge of seven boxes in eight, or `None` when there
/// are no boxes.
fn cell_size(boxes: &[Aabb]) -> Option<Real> {
    let mut edges: Vec<Real> = (boxes.iter())
        .map(|b| (b.max - b.min).max_element())
        .filter(|e| e.is_finite())
        .collect();
    if edges.is_empty() {
        return None;
    }
    let k = (edges.len() * 7 / 8).min(edges.len() - 1);
    let (_, &mut edge, _) = edges.select_nth_unstable_by(k, Real::total_cmp);
    Some(edge.max(Real::MIN_POSITIVE.sqrt()))
}

/// Return the key of cell `(x, y, z)`, each within [`LIMIT`].
fn cell_key(x: i64, y: i64, z: i64) -> u64 {
    let bits = |v: i64| ((v + (1 << 20)) as u64) & 0x1f_ffff;
    (bits(x) << 42) | (bits(y) << 21) | bits(z)
}

/// Return the deepest overlap of two balls over the step: along their paths when both flew
/// one, else at its end.
fn pair_depth(a: &BallStep, b: &BallStep, dt: Real) -> Real {
    let free = a.flew() && b.flew();
    let gap = |t: Real| {
        let (pa, pb) = if free {
            (a.center(t, dt), b.center(t, dt))
        } else {
            (a.position, b.position)
        };
        pa.distance(pb) - (a.radius + b.radius)
    };
    -least(gap, 0.0, 1.0)
}

/// Return true when two balls end overlapping by more than the tolerance, or the paths they
/// flew took them that deep into each other.
fn pair_passed_through(a: &BallStep, b: &BallStep, dt: Real) -> bool {
    let reach = (a.radius + b.radius) * (1.0 - TOLERANCE);
    if a.position.distance_squared(b.position) < reach * reach {
        return true;
    }
    // Skip pairs with a bent path: only the end is known
    if !(a.flew() && b.flew()) {
        return false;
    }
    !matches!(
        analytic::ball_ball(&a.sweep(dt), &b.sweep(dt), dt),
        Toi::Miss
    )
}

#[cfg(test)]
mod tests;
