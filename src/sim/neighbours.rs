//! Neighbourhoods: cells sized to the balls, each ball listed in the cell that holds it now.
//!
//! Two balls can touch only when their centres are closer than the sum of their radii. Space is
//! cut into cubic cells at least that wide, so the balls a ball may touch are in the 27 cells
//! around its own, whatever its speed. A ball is listed in the cell that holds its centre now;
//! leaving it is an event of the calendar (a *crossing*), after which the ball asks about the
//! nine cells that have just come within reach. A fast ball costs a crossing per cell it
//! passes, and its queries are among near neighbours only, so the work per collision does not
//! grow with speed or step length: the cell lists of event-driven molecular dynamics
//! (Smallenburg, "Efficient event-driven simulations of hard spheres", Eur. Phys. J. E 45:22,
//! 2022).
//!
//! Mixed sizes get a hierarchy of grids. Balls are banded by radius, each band at most twice
//! the radius of the one below; a ball is listed in its own band's grid and in every coarser
//! one, and a pair of balls of bands `a` and `b` is looked after in grid `max(a, b)`, whose
//! cells are wide enough for both. In its own grid a ball looks at every ball listed; in a
//! coarser grid only at the balls whose own grid that is. A small ball among large ones costs a
//! few coarse neighbours, not a fine cell's worth of each large ball.
//!
//! The invariant: at every moment, each pair of balls in neighbouring cells of its grid has
//! been asked about since either ball last changed course. A ball asks about all its neighbours
//! when its course changes (the start of a step, a collision) and about the new ones when it
//! crosses into a cell. A pair that touches at time `t` is in neighbouring cells at `t`, so
//! its contact is predicted before it happens.
//!
//! Rounding: a crossing moves a ball to the next cell by index at the time its path meets the
//! boundary, where its computed position may lie a rounding either side. The cells are wider
//! than the largest pair of radii by a margin well above that rounding, so a pair close enough
//! to touch is always in neighbouring cells.
//!
//! Finite static shapes are listed in every cell their box overlaps, per grid; a ball asks
//! about those around it in its own grid. Planes, infinite cylinders and shapes over too many
//! cells are asked about by every ball ([`Neighbours::everywhere`]). A ball whose step would
//! cross too many cells (a huge speed) is listed nowhere: it asks about everything, and
//! everything asks about it ([`Neighbours::roaming`]). A world of a few balls is one cell.

mod grid;

pub(super) use grid::Around;
use grid::{Cell, Grid, MAX_CELL};

use super::bodies::{BallBody, NONE};
use super::calendar::Other;
use super::statics::Static;
use crate::geometry::Aabb;
use crate::math::{Real, Vec3};

/// Most cells a ball's path over one step may cross in its own grid before it roams instead.
const CROSSING_LIMIT: Real = 4096.0;

/// Most cells a finite static shape may cover in a grid before every ball asks about it.
const STATIC_CELL_LIMIT: i128 = 4096;

/// Most grids: bands of radius beyond a ratio of 2¹⁵ share the coarsest.
const MAX_GRIDS: usize = 16;

/// Worlds of at most this many balls are one cell: testing every pair costs less than cells.
pub(super) const SMALL_WORLD: usize = 32;

/// The neighbourhoods of one step: the grids, the statics asked about everywhere, and the
/// balls that roam.
#[derive(Debug, Default)]
pub(super) struct Neighbours {
    grids: Vec<Grid>,
    /// Per ball, its own grid.
    own: Vec<u8>,
    /// The smallest radius, from which the bands count.
    smallest: Real,
    /// Whether the world is one cell.
    one_cell: bool,
    /// The grid of each band of radius (bands without balls have none).
    grid_of_band: [u8; MAX_GRIDS],
    /// `1 /` the side of the cells that order the balls in memory.
    order_inverse: Real,
    /// Statics every ball asks about: planes, infinite cylinders, shapes over too many cells.
    pub everywhere: Vec<u32>,
    /// Balls listed nowhere, whose step would cross too many cells.
    pub roaming: Vec<u32>,
    /// Per ball, whether it roams.
    is_roaming: Vec<bool>,
    /// Per static, the stamp of the last search that met it.
    seen: Vec<u32>,
    stamp: u32,
    /// Scratch of the static registration.
    listed: Vec<(Cell, u32)>,
}

impl Neighbours {
    /// Size the grids for `bodies`, at `start` when the step begins and moving for `dt`: bands
    /// of radius, each at most twice the one below, and cells a little over the largest
    /// diameter of each band.
    pub fn plan(&mut self, bodies: &[BallBody], start: &[Vec3], dt: Real) {
        let n = bodies.len();
        self.one_cell = n <= SMALL_WORLD;
        self.smallest = bodies
            .iter()
            .map(|b| b.radius)
            .fold(Real::INFINITY, Real::min);
        let mut largest = [0.0 as Real; MAX_GRIDS];
        for b in bodies {
            let k = self.band(b.radius);
            largest[k] = largest[k].max(b.radius);
        }
        // The margin: well above the rounding of a position anywhere the balls go this step
        let extent = bodies
            .iter()
            .zip(start)
            .map(|(b, p)| {
                p.abs().max_element()
                    + b.path.velocity.abs().max_element() * dt
                    + b.path.acceleration.abs().max_element() * (0.5 * dt * dt)
            })
            .fold(0.0, Real::max);
        let margin = 1e-9 * extent;
        // Memory order: cells of 1.5 mean path boxes. The order decides which of simultaneous
        // contacts is resolved first, so it stays as the stepper has always had it
        let reach = bodies
            .iter()
            .map(|b| 2.0 * b.radius + b.path.velocity.length() * dt)
            .sum::<Real>()
            / n.max(1) as Real;
        self.order_inverse = if self.one_cell {
            0.0
        } else if reach.is_finite() && reach > 0.0 {
            1.0 / (1.5 * reach)
        } else {
            1.0
        };
        let mut grids = 0;
        for (k, &r) in largest.iter().enumerate() {
            if r == 0.0 {
                continue;
            }
            self.grid_of_band[k] = grids as u8;
            if self.grids.len() == grids {
                self.grids.push(Grid::default());
            }
            let grid = &mut self.grids[grids];
            if self.one_cell {
                grid.side = Real::INFINITY;
                grid.inverse = 0.0;
            } else {
                grid.side = 2.0 * r * (1.0 + 1e-9) + margin;
                grid.inverse = 1.0 / grid.side;
            }
            grids += 1;
        }
        self.grids.truncate(grids);
    }

    /// The band of a ball of `radius`.
    #[inline]
    fn band(&self, radius: Real) -> usize {
        if self.one_cell {
            return 0;
        }
        let ratio = (radius / self.smallest).log2().floor();
        (ratio.max(0.0) as usize).min(MAX_GRIDS - 1)
    }

    /// List `bodies` in the planned grids, each in its own and the coarser ones (or as roaming
    /// when its step would cross too many cells), and the statics in the cells their box
    /// covers (or as asked about everywhere). `start` is where the balls are as the step begins.
    pub fn list(&mut self, bodies: &[BallBody], start: &[Vec3], statics: &mut [Static], dt: Real) {
        let n = bodies.len();
        self.own.clear();
        self.roaming.clear();
        self.is_roaming.clear();
        self.is_roaming.resize(n, false);
        self.everywhere.clear();
        self.seen.clear();
        self.seen.resize(statics.len(), 0);
        self.stamp = 0;
        // A dense box of at most 16 cells per ball and grid
        let limit = 16 * n + 4096;
        for grid in &mut self.grids {
            grid.clear(start.iter().copied(), limit);
            grid.statics.clear();
            grid.static_pool.clear();
            grid.cell.clear();
            grid.cell.resize(n, [0; 3]);
            grid.next.clear();
            grid.next.resize(n, NONE);
            grid.previous.clear();
            grid.previous.resize(n, NONE);
        }

        for (i, (b, &p)) in bodies.iter().zip(start).enumerate() {
            let own = self.grid_of_band[self.band(b.radius)];
            self.own.push(own);
            let grid = &self.grids[own as usize];
            let reach = b.path.velocity.abs() * dt + b.path.acceleration.abs() * (0.5 * dt * dt);
            let crossings = (reach * grid.inverse).element_sum();
            // Too many crossings, or not a number of them
            if crossings.is_nan() || crossings > CROSSING_LIMIT {
                self.is_roaming[i] = true;
                self.roaming.push(i as u32);
                continue;
            }
            for grid in &mut self.grids[own as usize..] {
                let cell = grid.cell_of(p);
                grid.link(i as u32, cell);
            }
        }

        for (k, s) in statics.iter_mut().enumerate() {
            s.everywhere = !self.list_static(k as u32, s.shape.aabb());
            if s.everywhere {
                self.everywhere.push(k as u32);
            }
        }
    }

    /// List static `k` with box `aabb` in every grid; false (listing nothing) when it has no
    /// box or covers too many cells in some grid.
    fn list_static(&mut self, k: u32, aabb: Option<Aabb>) -> bool {
        let Some(aabb) = aabb else {
            return false;
        };
        let spans: Vec<(Cell, Cell)> = self
            .grids
            .iter()
            .map(|g| (g.cell_of(aabb.min), g.cell_of(aabb.max)))
            .collect();
        let too_many = spans.iter().any(|(lo, hi)| {
            (0..3)
                .map(|a| i128::from(hi[a]) - i128::from(lo[a]) + 1)
                .product::<i128>()
                > STATIC_CELL_LIMIT
        });
        if too_many {
            return false;
        }
        for (grid, (lo, hi)) in self.grids.iter_mut().zip(spans) {
            self.listed.clear();
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        self.listed.push(([x, y, z], k));
                    }
                }
            }
            // Statics come one at a time: append each cell's entry, merging with the cell's
            // earlier range when it ends the pool
            for &(cell, k) in &self.listed {
                let pool_len = grid.static_pool.len() as u32;
                match grid.statics.get_mut(&cell) {
                    Some((start, len)) if *start + *len == pool_len => {
                        grid.static_pool.push(k);
                        *len += 1;
                    }
                    Some((start, len)) => {
                        let moved: Vec<u32> =
                            grid.static_pool[*start as usize..(*start + *len) as usize].to_vec();
                        *start = pool_len;
                        *len += 1;
                        grid.static_pool.extend(moved);
                        grid.static_pool.push(k);
                    }
                    None => {
                        grid.statics.insert(cell, (pool_len, 1));
                        grid.static_pool.push(k);
                    }
                }
            }
        }
        true
    }

    /// Return the grids ball `i` is listed in, its own first; none when it roams.
    #[inline]
    pub fn grids_of(&self, i: usize) -> std::ops::Range<usize> {
        if self.is_roaming[i] {
            0..0
        } else {
            self.own[i] as usize..self.grids.len()
        }
    }

    /// Return true when ball `i` roams.
    #[inline]
    pub fn roams(&self, i: usize) -> bool {
        self.is_roaming[i]
    }

    /// Call `visit(other)` for every ball or static that ball `i` looks after in grid `g`, in
    /// the cells `around` its own: the balls whose pair is looked after in `g` (both listed
    /// there, one of the two in its own grid), and in its own grid the statics listed there,
    /// each once per call.
    pub fn for_each(&mut self, i: usize, g: usize, around: Around, mut visit: impl FnMut(Other)) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let grid = &self.grids[g];
        let mine = self.own[i] as usize == g;
        let (own, seen) = (&self.own, &mut self.seen);
        // The balls listed from `j` on that ball `i` looks after here
        let balls_from = |mut j: u32, visit: &mut dyn FnMut(Other)| {
            while j != NONE {
                let k = j as usize;
                if k != i && (mine || own[k] as usize == g) {
                    visit(Other::Ball(j));
                }
                j = grid.next[k];
            }
        };
        let centre = grid.cell[i];
        let statics = mine && !grid.statics.is_empty();
        // The usual case: the block of cells around inside the dense box, no statics
        if !statics && let Some(base) = grid.dense_block(centre) {
            let [sx, sy, _] = grid.dense_size;
            let range = |axis: usize| match around {
                Around::Slab { axis: a, step } if a == axis => step..=step,
                _ => -1..=1,
            };
            for z in range(2) {
                for y in range(1) {
                    let row = base as i64 + (z * sy + y) * sx;
                    for x in range(0) {
                        balls_from(grid.dense[(row + x) as usize], &mut visit);
                    }
                }
            }
            return;
        }
        Grid::for_each_cell(centre, around, |cell| {
            balls_from(grid.head(cell), &mut visit);
            if statics
                && !grid.statics.is_empty()
                && let Some(&(start, len)) = grid.statics.get(&cell)
            {
                for &k in &grid.static_pool[start as usize..(start + len) as usize] {
                    if seen[k as usize] != stamp {
                        seen[k as usize] = stamp;
                        visit(Other::Static(k));
                    }
                }
            }
        });
    }

    /// Return when ball `i` (moving as `body`) leaves its cell of grid `g`, if it does before
    /// `t_end`, with the axis and direction of the crossing. A ball that has just crossed may
    /// find the next boundary a rounding behind it: the time is then `now`.
    pub fn next_crossing(
        &self,
        i: usize,
        g: usize,
        body: &BallBody,
        now: Real,
        t_end: Real,
    ) -> Option<(Real, usize, i64)> {
        let grid = &self.grids[g];
        if grid.inverse == 0.0 {
            return None;
        }
        let cell = grid.cell[i];
        let mut first: Option<(Real, usize, i64)> = None;
        for (axis, &c) in cell.iter().enumerate() {
            let path = &body.path;
            // Up through the cell's top, or down through its bottom, whichever comes first
            let up = (c < MAX_CELL)
                .then(|| path.crosses(axis, (c + 1) as Real * grid.side, true, now))
                .flatten()
                .map(|t| (t, 1));
            let down = (c > -MAX_CELL)
                .then(|| path.crosses(axis, c as Real * grid.side, false, now))
                .flatten()
                .map(|t| (t, -1));
            let Some((t, step)) = [up, down]
                .into_iter()
                .flatten()
                .min_by(|a, b| a.0.total_cmp(&b.0))
            else {
                continue;
            };
            if t <= t_end && first.is_none_or(|(best, _, _)| t < best) {
                first = Some((t, axis, step));
            }
        }
        first
    }

    /// List ball `i` again in the cells that hold `position`, in each of its grids: after it
    /// was moved off its path (pushed out of an overlap).
    pub fn relist(&mut self, i: usize, position: Vec3) {
        for g in self.grids_of(i) {
            let grid = &mut self.grids[g];
            let cell = grid.cell_of(position);
            if cell != grid.cell[i] {
                grid.unlink(i as u32);
                grid.link(i as u32, cell);
            }
        }
    }

    /// Move ball `i` to the next cell of grid `g` along `axis` in direction `step`.
    pub fn cross(&mut self, i: usize, g: usize, axis: usize, step: i64) {
        let grid = &mut self.grids[g];
        let mut cell = grid.cell[i];
        cell[axis] = (cell[axis] + step).clamp(-MAX_CELL, MAX_CELL);
        grid.unlink(i as u32);
        grid.link(i as u32, cell);
    }

    /// Return true when a ball moving as `body` for `dt` from `start` goes further than a cell
    /// of the memory order (never in a world of one cell).
    pub fn outruns_order_cell(&self, body: &BallBody, start: Vec3, dt: Real) -> bool {
        let to = start + body.path.velocity * dt + body.path.acceleration * (0.5 * dt * dt);
        (to - start).length() * self.order_inverse > 1.0
    }

    /// Return a key that orders balls along a Z-order curve of cells of 1.5 mean path boxes
    /// (as planned), so that balls close in space tend to be close in memory.
    pub fn z_order(&self, position: Vec3) -> u64 {
        // Spread the low 21 bits of each coordinate three apart
        fn spread(v: i64) -> u64 {
            let mut x = (v as u64) & 0x1f_ffff;
            x = (x | x << 32) & 0x1f_0000_0000_ffff;
            x = (x | x << 16) & 0x1f_0000_ff00_00ff;
            x = (x | x << 8) & 0x100f_00f0_0f00_f00f;
            x = (x | x << 4) & 0x10c3_0c30_c30c_30c3;
            x = (x | x << 2) & 0x1249_2492_4924_9249;
            x
        }
        let p = position * self.order_inverse;
        let c = |x: Real| x.floor().clamp(-(MAX_CELL as Real), MAX_CELL as Real) as i64;
        spread(c(p.x)) | spread(c(p.y)) << 1 | spread(c(p.z)) << 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::StaticShape;
    use crate::geometry::{ConvexPolygon, Plane};
    use crate::sim::bodies::Trajectory;

    /// A ball at `at` of `radius` moving at `velocity`, on its path since time 0.
    fn body(at: Vec3, radius: Real, velocity: Vec3) -> BallBody {
        BallBody {
            path: Trajectory::straight(at, velocity, 0.0),
            radius,
        }
    }

    /// `n` still balls of radius 0.05, 0.5 apart along x (more than a small world).
    fn row(n: usize) -> Vec<BallBody> {
        (0..n)
            .map(|k| body(Vec3::new(0.5 * k as Real, 0.0, 0.0), 0.05, Vec3::ZERO))
            .collect()
    }

    fn built(bodies: &[BallBody], statics: &mut [Static]) -> Neighbours {
        let start: Vec<Vec3> = bodies.iter().map(|b| b.path.origin).collect();
        let mut n = Neighbours::default();
        n.plan(bodies, &start, 1.0);
        n.list(bodies, &start, statics, 1.0);
        n
    }

    fn around(n: &mut Neighbours, i: usize, g: usize, which: Around) -> Vec<Other> {
        let mut found = Vec::new();
        n.for_each(i, g, which, |o| found.push(o));
        found.sort_unstable();
        found
    }

    #[test]
    fn a_ball_finds_the_balls_in_the_cells_around_it_and_no_further() {
        let mut bodies = row(40);
        // A neighbour just within a cell (0.1 wide) of ball 0, one two cells away
        bodies.push(body(Vec3::new(0.0, 0.09, 0.0), 0.05, Vec3::ZERO));
        bodies.push(body(Vec3::new(0.0, 0.25, 0.0), 0.05, Vec3::ZERO));
        let mut n = built(&bodies, &mut []);
        assert_eq!(around(&mut n, 0, 0, Around::All), [Other::Ball(40)]);
        assert_eq!(around(&mut n, 41, 0, Around::All), Vec::<Other>::new());
    }

    #[test]
    fn crossings_follow_the_path_cell_by_cell_and_lists_stay_consistent() {
        // Ball 0 moving +x at 1 from the centre of its cell: it crosses every 0.1 (a little
        // more: the margin), the first time after half a cell
        let mut bodies = row(40);
        bodies[0] = body(Vec3::new(0.05, 0.05, 0.05), 0.05, Vec3::new(1.0, 0.0, 0.0));
        let mut n = built(&bodies, &mut []);
        let side = n.grids[0].side;
        assert!(side > 0.1 && side < 0.1 * (1.0 + 1e-6), "{side}");
        let (t, axis, step) = n.next_crossing(0, 0, &bodies[0], 0.0, 1.0).unwrap();
        assert_eq!((axis, step), (0, 1));
        assert!((t - (side - 0.05)).abs() < 1e-12, "{t}");
        n.cross(0, 0, axis, step);
        // One cell on: x in [side, 2 side)
        assert_eq!(n.grids[0].cell[0], [1, 0, 0]);
        let (t2, _, _) = n.next_crossing(0, 0, &bodies[0], t, 1.0).unwrap();
        assert!((t2 - t - side).abs() < 1e-12);
        // Walk on to the cell of ball 1 (x = 0.5, cell 4): the slab brings it in
        for _ in 0..2 {
            n.cross(0, 0, 0, 1);
        }
        assert_eq!(n.grids[0].cell[0], [3, 0, 0]);
        assert_eq!(
            around(&mut n, 0, 0, Around::Slab { axis: 0, step: 1 }),
            [Other::Ball(1)]
        );
        // Ball 1's list is intact; going back out of reach takes ball 0 out of its view
        n.cross(0, 0, 0, -1);
        n.cross(0, 0, 0, -1);
        assert_eq!(around(&mut n, 1, 0, Around::All), Vec::<Other>::new());
        n.relist(0, Vec3::new(0.5, 0.0, 0.05));
        assert_eq!(around(&mut n, 1, 0, Around::All), [Other::Ball(0)]);
    }

    #[test]
    fn mixed_sizes_meet_in_the_coarser_grid_once() {
        // 40 small balls and one large (radius 0.8, band 4): the large one has a grid of its
        // own, and a small ball beside it is found from either side, in that grid only
        let mut bodies = row(40);
        bodies.push(body(Vec3::new(0.0, 0.85, 0.0), 0.8, Vec3::ZERO));
        let mut n = built(&bodies, &mut []);
        assert_eq!(n.grids.len(), 2);
        assert_eq!(n.grids_of(0), 0..2);
        assert_eq!(n.grids_of(40), 1..2);
        assert_eq!(around(&mut n, 0, 0, Around::All), Vec::<Other>::new());
        assert!(around(&mut n, 0, 1, Around::All).contains(&Other::Ball(40)));
        assert!(around(&mut n, 40, 1, Around::All).contains(&Other::Ball(0)));
        // Two small balls listed in the coarse grid do not meet there
        let coarse = around(&mut n, 0, 1, Around::All);
        assert!(coarse.iter().all(|o| *o == Other::Ball(40)), "{coarse:?}");
    }

    #[test]
    fn statics_are_listed_in_the_cells_they_cover_and_met_once() {
        let square = |x: Real| {
            let corners = [(-0.04, -0.04), (0.04, -0.04), (0.04, 0.04), (-0.04, 0.04)];
            ConvexPolygon::new(corners.map(|(y, z)| Vec3::new(x, y, z)).to_vec()).unwrap()
        };
        let static_of = |shape| Static {
            entity: hecs::Entity::DANGLING,
            shape,
            restitution: 1.0,
            friction: 0.0,
            everywhere: false,
        };
        // Two plates in the cells around ball 0 (sharing cells, so their ranges merge), a
        // plane, and a plate far too large to list
        let huge = ConvexPolygon::new(vec![
            Vec3::new(-500.0, -1.0, -500.0),
            Vec3::new(500.0, -1.0, -500.0),
            Vec3::new(0.0, -1.0, 500.0),
        ])
        .unwrap();
        let mut statics = vec![
            static_of(StaticShape::Polygon(square(0.06))),
            static_of(StaticShape::Plane(Plane::new(Vec3::ZERO, Vec3::Y).unwrap())),
            static_of(StaticShape::Polygon(square(0.07))),
            static_of(StaticShape::Polygon(huge)),
            static_of(StaticShape::Polygon(square(3.0))),
        ];
        let bodies = row(40);
        let mut n = built(&bodies, &mut statics);
        assert_eq!(n.everywhere, [1, 3]);
        assert!(statics[1].everywhere && statics[3].everywhere);
        assert_eq!(
            around(&mut n, 0, 0, Around::All),
            [Other::Static(0), Other::Static(2)]
        );
        // The far plate is beside ball 6 (x = 3)
        assert_eq!(around(&mut n, 6, 0, Around::All), [Other::Static(4)]);
    }

    #[test]
    fn cells_are_clamped_far_out_and_keep_neighbours_neighbours() {
        let mut n = Neighbours::default();
        let row = row(40);
        let start: Vec<Vec3> = row.iter().map(|b| b.path.origin).collect();
        n.plan(&row, &start, 1.0);
        let grid = &n.grids[0];
        let far = grid.cell_of(Vec3::new(1e300, -1e300, 0.0));
        assert_eq!(far, [MAX_CELL, -MAX_CELL, 0]);
        // Cells of two close points differ by at most one, even at the clamp
        let a = grid.cell_of(Vec3::splat(1e60));
        let b = grid.cell_of(Vec3::splat(1e60) + Vec3::splat(0.05));
        assert!((0..3).all(|k| (a[k] - b[k]).abs() <= 1));
    }
}
