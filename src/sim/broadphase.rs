//! Broad phase: a spatial hash of swept paths, so that a ball is only tested against what its
//! path can reach.
//!
//! Space is cut into cubic cells; every cell maps to one of a power-of-two number of buckets by
//! a hash of its coordinates (Teschner et al., "Optimized Spatial Hashing for Collision
//! Detection of Deformable Objects", 2003). No bounds are needed, and two cells sharing a bucket
//! only cost a few extra candidates. A ball registers the buckets its swept path covers (the path
//! cut into pieces no longer than a cell, each piece's box inflated by the radius), so a fast
//! ball costs cells along its path, not the volume of its bounding box. A ball that changes
//! course registers again; its old entries go stale with its collision counter: they are never
//! searched for, only skipped, and unlinked when a search meets one in a later list.
//!
//! The registrations made at the start of a step are laid out bucket by bucket in one array
//! (a counting sort), so scanning a bucket reads consecutive memory; only the few made after
//! collisions go into per-bucket linked lists.

use crate::math::{Real, Vec3};

/// No entry.
pub(crate) const NONE: u32 = u32::MAX;

/// Set on a packed item that is a static shape rather than a ball.
const STATIC_BIT: u32 = 1 << 31;

/// The other side of a contact, or a candidate for one: a ball or a static shape, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Other {
    /// A ball, by its index in the step's arrays.
    Ball(u32),
    /// A static shape, by its index in the step's list of statics.
    Static(u32),
}

impl Other {
    /// Pack into one `u32`, as the hash and the calendar store it: balls as their index,
    /// statics with the top bit set, so that in order every ball comes before every static.
    #[inline]
    pub fn pack(self) -> u32 {
        match self {
            Self::Ball(i) => i,
            Self::Static(k) => k | STATIC_BIT,
        }
    }

    /// Unpack what [`Other::pack`] packed.
    #[inline]
    pub fn unpack(item: u32) -> Self {
        if item & STATIC_BIT == 0 {
            Self::Ball(item)
        } else {
            Self::Static(item & !STATIC_BIT)
        }
    }
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    /// Return the box of a ball of `radius` moving from `a` to `b`.
    #[inline]
    pub fn of_path(a: Vec3, b: Vec3, radius: Real) -> Self {
        Self {
            min: a.min(b) - Vec3::splat(radius),
            max: a.max(b) + Vec3::splat(radius),
        }
    }

    /// Return true when the two boxes share a point.
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }
}

/// One registration: an item in a bucket, tagged with the item's counter at the time.
#[derive(Clone, Copy, Debug)]
struct Entry {
    item: u32,
    stamp: u32,
    next: u32,
}

/// The spatial hash, rebuilt each step: a bulk part laid out by bucket, and linked lists for
/// what is added later.
#[derive(Debug, Default)]
pub(crate) struct SpatialHash {
    /// One over the cell size; zero when one cell is all of space.
    inv_cell: Real,
    mask: u64,
    /// Per bucket, and one more: where its bulk part starts (it ends where the next one's
    /// starts), and the head of its linked list. Together so that one read brings both.
    slots: Vec<Slot>,
    /// Items registered before [`SpatialHash::finish_bulk`], bucket by bucket (stamp 0).
    bulk: Vec<u32>,
    /// Static registrations waiting for [`SpatialHash::finish_bulk`], as (bucket, item).
    staged: Vec<(u32, u32)>,
    bulk_open: bool,
    entries: Vec<Entry>,
}

/// A bucket's bulk start and linked-list head.
#[derive(Clone, Copy, Debug)]
struct Slot {
    start: u32,
    head: u32,
}

impl SpatialHash {
    /// Empty the hash and set the cell size and the bucket count (a power of two of at least
    /// `buckets`). A cell of `None` is all of space: everything shares one bucket, and every
    /// pair of registrations meets there (the cheapest broad phase for a few balls).
    pub fn reset(&mut self, cell: Option<Real>, buckets: usize) {
        debug_assert!(
            cell.is_none_or(|c| c > 0.0 && c.is_finite()),
            "cell size {cell:?}"
        );
        self.inv_cell = cell.map_or(0.0, |c| 1.0 / c);
        let count = match cell {
            Some(_) => buckets.max(16).next_power_of_two(),
            None => 1,
        };
        self.mask = count as u64 - 1;
        self.slots.clear();
        self.slots.resize(
            count + 1,
            Slot {
                start: 0,
                head: NONE,
            },
        );
        self.entries.clear();
        self.bulk.clear();
        self.staged.clear();
        self.bulk_open = true;
    }

    /// Lay out everything inserted since [`SpatialHash::reset`] bucket by bucket; later
    /// insertions go into linked lists.
    ///
    /// The staged statics come first, then item `i` in the buckets `pool[start..start + len]`
    /// of `ranges[i] = (start, len)`, all with stamp 0.
    pub fn finish_bulk(&mut self, ranges: &[(u32, u32)], pool: &[u32]) {
        let buckets = self.slots.len() - 1;
        let balls = || {
            ranges.iter().enumerate().flat_map(|(i, &(start, len))| {
                pool[start as usize..(start + len) as usize]
                    .iter()
                    .map(move |&b| (b, i as u32))
            })
        };
        // Counts, then where each bucket starts
        for &(bucket, _) in &self.staged {
            self.slots[bucket as usize].start += 1;
        }
        for (bucket, _) in balls() {
            self.slots[bucket as usize].start += 1;
        }
        let mut total = 0u32;
        for b in 0..buckets {
            let count = self.slots[b].start;
            self.slots[b].start = total;
            total += count;
        }
        self.slots[buckets].start = total;
        self.bulk.clear();
        self.bulk.resize(total as usize, 0);
        // Fill, advancing each start to its bucket's end; then shift the ends back to starts
        for (bucket, item) in self.staged.iter().copied().chain(balls()) {
            let slot = &mut self.slots[bucket as usize].start;
            self.bulk[*slot as usize] = item;
            *slot += 1;
        }
        for b in (1..buckets).rev() {
            self.slots[b].start = self.slots[b - 1].start;
        }
        self.slots[0].start = 0;
        self.staged.clear();
        self.bulk_open = false;
    }

    /// True between [`SpatialHash::reset`] and [`SpatialHash::finish_bulk`].
    pub fn is_bulk_open(&self) -> bool {
        self.bulk_open
    }

    /// Add `item` to `bucket`, tagged with `stamp` (the item's collision counter).
    #[inline]
    pub fn insert(&mut self, bucket: u32, item: Other, stamp: u32) {
        let item = item.pack();
        if self.bulk_open {
            debug_assert_eq!(stamp, 0);
            self.staged.push((bucket, item));
            return;
        }
        let head = &mut self.slots[bucket as usize].head;
        self.entries.push(Entry {
            item,
            stamp,
            next: *head,
        });
        *head = (self.entries.len() - 1) as u32;
    }

    /// Call `visit(item, stamp)` for every entry of `bucket`. An entry added after
    /// [`SpatialHash::finish_bulk`] for which `visit` returns false is unlinked: a stale
    /// registration is never wanted again, and a ball that collides many times in one step
    /// would otherwise make its buckets' lists ever longer.
    #[inline]
    pub fn for_each(&mut self, bucket: u32, mut visit: impl FnMut(Other, u32) -> bool) {
        debug_assert!(!self.bulk_open, "finish_bulk first");
        let slot = self.slots[bucket as usize];
        let end = self.slots[bucket as usize + 1].start;
        for &item in &self.bulk[slot.start as usize..end as usize] {
            visit(Other::unpack(item), 0);
        }
        let mut previous = NONE;
        let mut index = slot.head;
        while index != NONE {
            let entry = self.entries[index as usize];
            if visit(Other::unpack(entry.item), entry.stamp) {
                previous = index;
            } else if previous == NONE {
                self.slots[bucket as usize].head = entry.next;
            } else {
                self.entries[previous as usize].next = entry.next;
            }
            index = entry.next;
        }
    }

    /// Return how many buckets there are.
    pub fn bucket_count(&self) -> usize {
        self.slots.len() - 1
    }

    /// Return the registrations of `bucket` made before [`SpatialHash::finish_bulk`], as
    /// (item, stamp).
    #[inline]
    pub fn bulk_entries(&self, bucket: usize) -> &[u32] {
        let (start, end) = (self.slots[bucket].start, self.slots[bucket + 1].start);
        &self.bulk[start as usize..end as usize]
    }

    /// Return the bucket of the cell holding `p`.
    #[inline]
    pub fn bucket_of(&self, p: Vec3) -> u32 {
        self.bucket(self.cell_of(p))
    }

    /// Return how many pieces [`SpatialHash::path_buckets`] cuts the segment `a..b` into: one
    /// when the path is no longer than a cell, and its buckets are then those of its box.
    #[inline]
    pub fn pieces(&self, a: Vec3, b: Vec3) -> usize {
        ((b - a).length() * self.inv_cell).ceil().clamp(1.0, 1e6) as usize
    }

    /// Append to `out` the buckets of the cells within `radius` of the segment `a..b`, each
    /// once, sorted. Returns how many cells were covered, or `None` (with `out` unchanged)
    /// when that would exceed `limit`.
    pub fn path_buckets(
        &self,
        a: Vec3,
        b: Vec3,
        radius: Real,
        limit: usize,
        out: &mut Vec<u32>,
    ) -> Option<usize> {
        if self.inv_cell == 0.0 {
            out.push(self.bucket([0; 3]));
            return Some(1);
        }
        let start = out.len();
        let pieces = self.pieces(a, b);
        let mut cells = 0usize;
        for k in 0..pieces {
            let p = a.lerp(b, k as Real / pieces as Real);
            let q = a.lerp(b, (k + 1) as Real / pieces as Real);
            match self.box_cells(&Aabb::of_path(p, q, radius), limit - cells, out) {
                Some(more) => cells += more,
                None => {
                    out.truncate(start);
                    return None;
                }
            }
        }
        let len = sort_unique(&mut out[start..]);
        out.truncate(start + len);
        Some(cells)
    }

    /// Append to `out` the buckets of the cells that `aabb` touches, each once, sorted; `None`
    /// (with `out` unchanged) when they are more than `limit`.
    pub fn box_buckets(&self, aabb: &Aabb, limit: usize, out: &mut Vec<u32>) -> Option<usize> {
        let start = out.len();
        let cells = self.box_cells(aabb, limit, out)?;
        let len = sort_unique(&mut out[start..]);
        out.truncate(start + len);
        Some(cells)
    }

    /// Push the bucket of every cell `aabb` touches; `None` (pushing nothing) above `limit`.
    fn box_cells(&self, aabb: &Aabb, limit: usize, out: &mut Vec<u32>) -> Option<usize> {
        let lo = self.cell_of(aabb.min);
        let hi = self.cell_of(aabb.max);
        let span = [0, 1, 2].map(|k| hi[k].saturating_sub(lo[k]).saturating_add(1) as u128);
        let cells = span[0] * span[1] * span[2];
        if cells > limit as u128 {
            return None;
        }
        for x in lo[0]..=hi[0] {
            for y in lo[1]..=hi[1] {
                for z in lo[2]..=hi[2] {
                    out.push(self.bucket([x, y, z]));
                }
            }
        }
        Some(cells as usize)
    }

    /// Return a key that orders points along a Z-order curve of the cells, so that points close
    /// in space tend to be close in the order.
    pub fn z_order(&self, p: Vec3) -> u64 {
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
        let [x, y, z] = self.cell_of(p);
        spread(x) | spread(y) << 1 | spread(z) << 2
    }

    /// Return the integer cell of `p` (saturating far away, which only merges far cells).
    #[inline]
    fn cell_of(&self, p: Vec3) -> [i64; 3] {
        let c = p * self.inv_cell;
        [floor(c.x), floor(c.y), floor(c.z)]
    }

    /// Return the bucket of a cell.
    #[inline]
    fn bucket(&self, [x, y, z]: [i64; 3]) -> u32 {
        // Combine, then the 64-bit finaliser of MurmurHash3
        let mut h = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
            ^ (z as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 33;
        h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
        h ^= h >> 33;
        (h & self.mask) as u32
    }
}

/// Return the largest integer not above `v`, saturating at the ends of `i64`: the truncating
/// cast, one lower for a negative fraction (no call to the library's `floor`).
#[inline]
fn floor(v: Real) -> i64 {
    let t = v as i64;
    t.saturating_sub(i64::from((t as Real) > v))
}

/// Sort `items` and move the distinct ones to the front; return how many there are.
fn sort_unique(items: &mut [u32]) -> usize {
    items.sort_unstable();
    let mut write = 0;
    for read in 0..items.len() {
        if write == 0 || items[read] != items[write - 1] {
            items[write] = items[read];
            write += 1;
        }
    }
    write
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_path_covers_cells_along_it_not_its_box() {
        let mut hash = SpatialHash::default();
        hash.reset(Some(1.0), 1 << 16);
        let mut out = Vec::new();
        // A diagonal path across 100 cells per axis: its box holds 10^6 cells, the path a few
        // hundred (173 pieces of one cell's length, each touching a few cells).
        hash.path_buckets(Vec3::splat(0.5), Vec3::splat(100.5), 0.1, 10_000, &mut out)
            .unwrap();
        assert!(out.len() < 1_000, "{} buckets", out.len());
        assert!(out.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
    }

    #[test]
    fn paths_that_meet_share_a_bucket() {
        let mut hash = SpatialHash::default();
        hash.reset(Some(0.5), 1024);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (from, to, out) in [
            (Vec3::new(-3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), &mut a),
            (Vec3::new(0.0, -3.0, 0.2), Vec3::new(0.0, 3.0, 0.2), &mut b),
        ] {
            hash.path_buckets(from, to, 0.1, 1000, out).unwrap();
        }
        assert!(a.iter().any(|x| b.binary_search(x).is_ok()));
    }

    #[test]
    fn floor_matches_the_library_and_saturates() {
        for v in [0.0, -0.0, 0.5, -0.5, 2.75, -2.75, 1e15 + 0.5, -1e15 - 0.5] {
            assert_eq!(floor(v), v.floor() as i64, "{v}");
        }
        assert_eq!(floor(1e300), i64::MAX);
        assert_eq!(floor(-1e300), i64::MIN);
    }

    #[test]
    fn limit_leaves_the_output_unchanged() {
        let mut hash = SpatialHash::default();
        hash.reset(Some(0.1), 1024);
        let mut out = vec![7];
        let cells = hash.path_buckets(Vec3::ZERO, Vec3::ZERO, 10.0, 1000, &mut out);
        assert_eq!(cells, None);
        assert_eq!(out, vec![7]);
    }
}
