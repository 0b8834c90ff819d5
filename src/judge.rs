//! The judge: which balls escaped or passed through something in a step, whatever the
//! strategy said. One judge for `run`, `compare` and the viewer.
//!
//! After each step every ball is judged on its own:
//! - escaped: its centre is behind a plane (signed distance < 0) or inside a cylinder;
//! - passed through: it overlaps a ball or a shape by more than [`TOLERANCE`] of its radius
//!   at the end of the step, or, for a ball without a collision in the step (so its path was
//!   free flight from its previous position: a parabola under the scene's gravity, a straight
//!   line without), that path took it that deep into something on the way (the exact sweep,
//!   with the radius shrunk by the tolerance).
//!
//! A fault stays with the ball until the judge is made anew: a ball that tunnelled once is on
//! the wrong side from then on. Cost: the balls against each static shape whose box their
//! path's box meets, and the ball pairs whose path boxes share a cell of a grid.

use hecs::Entity;

use crate::geometry::{Aabb, Ball, Cylinder, Plane, Shape, StaticShape};
use crate::math::{Real, Vec3};
use crate::scene::{Scene, SceneItem, SceneWorld};
use crate::sim::{CollisionEvent, Radius};
use crate::toi::{MovingBall, PairKind, Toi, analytic};
use crate::{Position, PreviousPosition};

/// Overlap allowed before a ball counts as passed through, relative to its radius.
pub const TOLERANCE: Real = 0.05;

/// What went wrong with a ball.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Its centre went behind a plane or into a cylinder.
    Escaped,
    /// It went into or through a ball or a shape.
    PassedThrough,
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
    /// True when the ball collided in the step: its path was not the straight line.
    pub collided: bool,
}

impl BallStep {
    /// The ball shrunk by the tolerance, on its path over `[0, dt]` when that was free flight
    /// under `gravity` (a parabola, straight without gravity), else standing at its end.
    fn sweep(&self, dt: Real, gravity: Vec3) -> MovingBall {
        let radius = self.radius * (1.0 - TOLERANCE);
        if self.collided {
            MovingBall::new(self.position, radius, Vec3::ZERO)
        } else if gravity == Vec3::ZERO {
            MovingBall::new(self.previous, radius, (self.position - self.previous) / dt)
        } else {
            let start = (self.position - self.previous) / dt - gravity * (0.5 * dt);
            MovingBall::new(self.previous, radius, start).with_acceleration(gravity)
        }
    }

    /// Where the centre was at the fraction `s` of a step of `dt` under `gravity`, on the
    /// path judged (its end for a ball that collided).
    fn center(&self, s: Real, dt: Real, gravity: Vec3) -> Vec3 {
        if self.collided {
            return self.position;
        }
        // The parabola through both ends bulges against gravity from the chord
        let chord = self.previous.lerp(self.position, s);
        if gravity == Vec3::ZERO {
            chord
        } else {
            chord - gravity * (0.5 * dt * dt * s * (1.0 - s))
        }
    }

    /// The box of the ball over its path under `gravity` in a step of `dt`.
    fn path_box(&self, dt: Real, gravity: Vec3) -> Aabb {
        let from = if self.collided {
            self.position
        } else {
            self.previous
        };
        // The bulge of a parabola over its chord is at most |g| dt² / 8
        let bulge = if self.collided {
            0.0
        } else {
            gravity.length() * dt * dt / 8.0
        };
        Aabb::of_path(from, self.position, self.radius + bulge)
    }
}

/// Read the balls of `world` after a step with the collisions `events` (its report's) into
/// `out`, in scene order, as the judge sees them: where each was before the step (its
/// `PreviousPosition`, else where it is) and after it, its radius, and whether it collided in
/// the step.
///
/// # Panics
///
/// If a scene ball lost its `Position` or `Radius` component.
pub fn read_step(world: &SceneWorld, events: &[CollisionEvent], out: &mut Vec<BallStep>) {
    let view = world
        .sim
        .world
        .view::<(&Position, Option<&PreviousPosition>, &Radius)>();
    out.clear();
    out.extend(world.balls.iter().map(|&e| {
        let (p, previous, r) = view.get(e).expect("a scene ball keeps its components");
        BallStep {
            previous: previous.map_or(p.0, |q| q.0),
            position: p.0,
            radius: r.0,
            collided: false,
        }
    }));
    let mut mark = |e: Entity| {
        if let Some(SceneItem::Ball(i)) = world.item(e) {
            out[i].collided = true;
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
    /// The scene's gravity: a ball that did not collide in a step flew on a parabola.
    gravity: Vec3,
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
            gravity: scene.gravity,
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
        let gravity = self.gravity;
        let sweep = ball.sweep(dt, gravity);
        let hit = |toi: Toi| !matches!(toi, Toi::Miss);
        // How deep the whole ball went into `shape` on the path judged
        let depth = |shape: &dyn Shape| {
            let gap = |t: Real| {
                let center = ball.center(t, dt, gravity);
                shape.point_proximity(center).distance - ball.radius
            };
            -least(gap, 0.0, 1.0)
        };
        let mut through = None;
        // A path cannot dip into a half-space and leave it unless gravity bends it out of it
        // (towards the plane's normal): otherwise the end tells all
        for (k, plane) in self.planes.iter().enumerate() {
            let item = SceneItem::Plane(k);
            if plane.signed_distance(ball.position) < 0.0 {
                return Some((Fault::Escaped, item, depth(plane)));
            }
            let dips = gravity.dot(plane.normal) > 0.0
                && !ball.collided
                && hit(analytic::ball_plane(&sweep, plane, dt));
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
        let path = ball.path_box(dt, self.gravity);
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
        let boxes: Vec<Aabb> = balls.iter().map(|b| b.path_box(dt, self.gravity)).collect();
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
            if boxes[i].overlaps(&boxes[j])
                && pair_passed_through(&balls[i], &balls[j], dt, self.gravity)
            {
                let depth = pair_depth(&balls[i], &balls[j], dt, self.gravity);
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
/// free, else at its end.
fn pair_depth(a: &BallStep, b: &BallStep, dt: Real, gravity: Vec3) -> Real {
    let free = !(a.collided || b.collided);
    let gap = |t: Real| {
        let (pa, pb) = if free {
            (a.center(t, dt, gravity), b.center(t, dt, gravity))
        } else {
            (a.position, b.position)
        };
        pa.distance(pb) - (a.radius + b.radius)
    };
    -least(gap, 0.0, 1.0)
}

/// Return true when two balls end overlapping by more than the tolerance, or their paths of
/// free flight took them that deep into each other.
fn pair_passed_through(a: &BallStep, b: &BallStep, dt: Real, gravity: Vec3) -> bool {
    let reach = (a.radius + b.radius) * (1.0 - TOLERANCE);
    if a.position.distance_squared(b.position) < reach * reach {
        return true;
    }
    // Skip pairs with a bent path: only the end is known
    if a.collided || b.collided {
        return false;
    }
    !matches!(
        analytic::ball_ball(&a.sweep(dt, gravity), &b.sweep(dt, gravity), dt),
        Toi::Miss
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene() -> Scene {
        // A floor, a pane at x = 0 (2 x 2), and a pole along y through x = 5
        Scene::parse(
            "Scene(dt: 0.1, gravity: (0.0, 0.0, 0.0),
               balls: [(pos: (-2.0, 0.0, 0.0), radius: 0.1), (pos: (3.0, 0.0, 0.0), radius: 0.1)],
               planes: [(point: (0.0, -1.0, 0.0), normal: (0.0, 1.0, 0.0))],
               cylinders: [Infinite(point: (5.0, 0.0, 0.0), axis: (0.0, 1.0, 0.0), radius: 0.5)],
               polygons: [(vertices: [(0.0, -1.0, -1.0), (0.0, 1.0, -1.0), (0.0, 1.0, 1.0), (0.0, -1.0, 1.0)])])",
            "faults.ron",
        )
        .unwrap()
    }

    fn state(previous: Vec3, position: Vec3, collided: bool) -> BallStep {
        BallStep {
            previous,
            position,
            radius: 0.1,
            collided,
        }
    }

    #[test]
    fn the_grid_finds_the_pairs_that_testing_every_pair_finds() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
        let scene = Scene::parse(
            "Scene(dt: 0.1, balls: [], planes: [], cylinders: [], polygons: [])",
            "none.ron",
        )
        .unwrap();
        for round in 0..20 {
            // Crowded balls of mixed sizes, a few of them fast enough to be wide
            let balls: Vec<BallStep> = (0..300)
                .map(|k| {
                    let at = Vec3::new(rng.random(), rng.random(), rng.random()) * 3.0;
                    let speed = if k % 37 == 0 { 40.0 } else { 0.5 };
                    let step = Vec3::new(rng.random(), rng.random(), rng.random()) - 0.5;
                    BallStep {
                        previous: at,
                        position: at + step * speed * 0.1,
                        radius: rng.random_range(0.01..0.08),
                        collided: rng.random_bool(0.2),
                    }
                })
                .collect();
            let mut judge = Judge::new(&scene);
            judge.per_ball = vec![None; balls.len()];
            judge.judge_pairs(&balls, 0.1);
            let mut expected = vec![None; balls.len()];
            for i in 0..balls.len() {
                for j in i + 1..balls.len() {
                    if pair_passed_through(&balls[i], &balls[j], 0.1, Vec3::ZERO) {
                        expected[i] = Some(Fault::PassedThrough);
                        expected[j] = Some(Fault::PassedThrough);
                    }
                }
            }
            assert_eq!(judge.per_ball, expected, "round {round}");
            assert!(
                expected.iter().any(Option::is_some),
                "round {round} tests nothing"
            );
        }
    }

    #[test]
    fn least_finds_the_bottom_of_a_convex_gap() {
        // A narrow V near one end, a parabola, a line, a constant
        let v = |t: Real| (400.0 * (t - 0.0075125)).abs() - 0.005;
        assert!((least(v, 0.0075, 0.016_666) + 0.005).abs() < 1e-9);
        let parabola = |t: Real| (t - 0.3) * (t - 0.3) - 1.0;
        assert!((least(parabola, 0.0, 1.0) + 1.0).abs() < 1e-12);
        assert_eq!(least(|t| 2.0 - t, 0.0, 1.5), 0.5);
        assert_eq!(least(|_| 4.0, 1.0, 1.0), 4.0);
    }

    #[test]
    fn a_ball_that_crossed_the_pane_passed_through_it() {
        let mut judge = Judge::new(&scene());
        let parked = state(Vec3::new(3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), false);
        // From x = -2 to x = 2 in one step, straight through the pane at x = 0
        let crossed = state(Vec3::new(-2.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0), false);
        judge.judge(&[crossed, parked], 0.1);
        assert_eq!(judge.per_ball, vec![Some(Fault::PassedThrough), None]);
        // A bounce (a collision in the step) that ends clear is no fault
        let mut judge = Judge::new(&scene());
        let bounced = state(Vec3::new(-2.0, 0.0, 0.0), Vec3::new(-1.0, 0.0, 0.0), true);
        judge.judge(&[bounced, parked], 0.1);
        assert_eq!(judge.per_ball, vec![None, None]);
    }

    #[test]
    fn behind_the_floor_or_inside_the_pole_is_escaped() {
        let mut judge = Judge::new(&scene());
        let below = state(Vec3::new(-2.0, 0.0, 0.0), Vec3::new(-2.0, -1.5, 0.0), false);
        let inside = state(Vec3::new(3.0, 0.0, 0.0), Vec3::new(5.1, 0.0, 0.0), false);
        judge.judge(&[below, inside], 0.1);
        assert_eq!(judge.counts(), (2, 0));
    }

    #[test]
    fn balls_that_crossed_each_other_passed_through_and_touching_ones_did_not() {
        let mut judge = Judge::new(&scene());
        // Head-on along z = 2 (clear of the pane), swapping places in one step
        let a = state(Vec3::new(-1.0, 0.0, 2.0), Vec3::new(1.0, 0.0, 2.0), false);
        let b = state(Vec3::new(1.0, 0.0, 2.0), Vec3::new(-1.0, 0.0, 2.0), false);
        judge.judge(&[a, b], 0.1);
        assert_eq!(judge.counts(), (0, 2));
        // Resting in contact (centres 2 radii apart) is fine
        let mut judge = Judge::new(&scene());
        let a = state(Vec3::new(-1.0, 0.0, 2.0), Vec3::new(-1.0, 0.0, 2.0), false);
        let b = state(Vec3::new(-0.8, 0.0, 2.0), Vec3::new(-0.8, 0.0, 2.0), false);
        judge.judge(&[a, b], 0.1);
        assert_eq!(judge.counts(), (0, 0));
    }
}
