//! One grid of the hierarchy: cubic cells of one side, each with the list of the balls it holds
//! and the statics it meets; a dense box of cells around the balls and a hash map beyond it.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use rustc_hash::FxHasher;

use crate::math::{Real, Vec3};
use crate::sim::bodies::NONE;

/// A cell of a grid, by its integer coordinates.
pub(super) type Cell = [i64; 3];

/// A map keyed by cells, with a fast hash (the keys are not chosen by an adversary).
pub(super) type CellMap<V> = HashMap<Cell, V, BuildHasherDefault<FxHasher>>;

/// Cell coordinates are clamped to this magnitude: far beyond it, every ball of a grid shares
/// the outermost cells, which keeps neighbours neighbours.
pub(super) const MAX_CELL: i64 = 1 << 60;

/// Which of the 27 cells around a ball's cell to visit.
#[derive(Clone, Copy, Debug)]
pub(in crate::sim) enum Around {
    /// All 27.
    All,
    /// The 9 that came within reach by a crossing along `axis` in direction `step` (±1).
    Slab {
        /// 0, 1 or 2 for x, y, z.
        axis: usize,
        /// +1 or -1.
        step: i64,
    },
}

/// One grid of the hierarchy.
#[derive(Debug, Default)]
pub(super) struct Grid {
    /// Side of a cell; infinite for a world in one cell.
    pub side: Real,
    /// `1 / side` (zero for one cell).
    pub inverse: Real,
    /// The first ball listed in each cell (the rest are linked through `next`): in `dense`
    /// for the cells of a box around the balls at the start of the step, in `heads` outside it.
    pub heads: CellMap<u32>,
    pub dense: Vec<u32>,
    /// The dense box: its lowest cell and its size in cells (zero when there is none).
    pub dense_min: Cell,
    pub dense_size: [i64; 3],
    /// Per ball listed here: its cell and its neighbours in that cell's list.
    pub cell: Vec<Cell>,
    pub next: Vec<u32>,
    pub previous: Vec<u32>,
    /// The statics listed in each cell: a range of `static_pool`.
    pub statics: CellMap<(u32, u32)>,
    pub static_pool: Vec<u32>,
}

impl Grid {
    /// Return the cell that holds `p`.
    #[inline]
    pub fn cell_of(&self, p: Vec3) -> Cell {
        let c = |x: Real| {
            // Floor without the library call: truncate, then step down below zero
            let v = (x * self.inverse).clamp(-(MAX_CELL as Real), MAX_CELL as Real);
            let t = v as i64;
            t - i64::from((t as Real) > v)
        };
        [c(p.x), c(p.y), c(p.z)]
    }

    /// Return the place of `cell` in `dense`, if it is in the dense box.
    #[inline]
    pub fn dense_index(&self, cell: Cell) -> Option<usize> {
        let [x, y, z] = [0, 1, 2].map(|a| cell[a].wrapping_sub(self.dense_min[a]));
        let [sx, sy, sz] = self.dense_size;
        // Unsigned comparison: below the box wraps to a huge number
        ((x as u64) < sx as u64 && (y as u64) < sy as u64 && (z as u64) < sz as u64)
            .then(|| ((z * sy + y) * sx + x) as usize)
    }

    /// Return the place of `cell` in `dense` when it and every cell around it are in the dense
    /// box.
    #[inline]
    pub fn dense_block(&self, cell: Cell) -> Option<usize> {
        let inside = (0..3).all(|a| {
            let k = cell[a].wrapping_sub(self.dense_min[a]);
            k >= 1 && k < self.dense_size[a] - 1
        });
        if inside { self.dense_index(cell) } else { None }
    }

    /// Return the first ball listed in `cell`, or [`NONE`].
    #[inline]
    pub fn head(&self, cell: Cell) -> u32 {
        match self.dense_index(cell) {
            Some(k) => self.dense[k],
            None => self.heads.get(&cell).copied().unwrap_or(NONE),
        }
    }

    /// Return the first ball listed in `cell`, to be changed.
    #[inline]
    pub fn head_mut(&mut self, cell: Cell) -> &mut u32 {
        match self.dense_index(cell) {
            Some(k) => &mut self.dense[k],
            None => self.heads.entry(cell).or_insert(NONE),
        }
    }

    /// Size the dense box to the cells of `positions` and one more around, unless that would
    /// be more than `limit` cells; empty every cell.
    pub fn clear(&mut self, positions: impl Iterator<Item = Vec3>, limit: usize) {
        self.heads.clear();
        let mut lo = [i64::MAX; 3];
        let mut hi = [i64::MIN; 3];
        for p in positions {
            let c = self.cell_of(p);
            for a in 0..3 {
                lo[a] = lo[a].min(c[a]);
                hi[a] = hi[a].max(c[a]);
            }
        }
        let size = [0, 1, 2].map(|a| i128::from(hi[a]) - i128::from(lo[a]) + 3);
        let cells = size.iter().product::<i128>();
        self.dense.clear();
        if lo[0] <= hi[0] && size.iter().all(|&s| s > 0) && cells <= limit as i128 {
            self.dense_min = lo.map(|c| c - 1);
            self.dense_size = size.map(|s| s as i64);
            self.dense.resize(cells as usize, NONE);
        } else {
            self.dense_size = [0; 3];
        }
    }

    /// List ball `i` in `cell`.
    #[inline]
    pub fn link(&mut self, i: u32, cell: Cell) {
        let head = *self.head_mut(cell);
        let k = i as usize;
        self.cell[k] = cell;
        self.previous[k] = NONE;
        self.next[k] = head;
        if head != NONE {
            self.previous[head as usize] = i;
        }
        *self.head_mut(cell) = i;
    }

    /// Take ball `i` out of its cell's list.
    #[inline]
    pub fn unlink(&mut self, i: u32) {
        let k = i as usize;
        let (previous, next) = (self.previous[k], self.next[k]);
        if previous == NONE {
            let cell = self.cell[k];
            *self.head_mut(cell) = next;
        } else {
            self.next[previous as usize] = next;
        }
        if next != NONE {
            self.previous[next as usize] = previous;
        }
    }

    /// Call `visit(cell)` for the cells `around` `centre`.
    #[inline]
    pub fn for_each_cell(centre: Cell, around: Around, mut visit: impl FnMut(Cell)) {
        let range = |axis: usize| match around {
            Around::Slab { axis: a, step } if a == axis => {
                let k = centre[axis].saturating_add(step);
                k..=k
            }
            _ => centre[axis].saturating_sub(1)..=centre[axis].saturating_add(1),
        };
        for x in range(0) {
            for y in range(1) {
                for z in range(2) {
                    visit([x, y, z]);
                }
            }
        }
    }
}
