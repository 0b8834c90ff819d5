//! Axis-aligned boxes: the broad phase's and the judge's first, cheap test.

use crate::math::{Real, Vec3};

/// An axis-aligned box, `min <= max` on every axis.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Aabb {
    /// The low corner.
    pub min: Vec3,
    /// The high corner.
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

    /// Return the box of the points `points`; `None` for none.
    pub fn of_points(points: impl IntoIterator<Item = Vec3>) -> Option<Self> {
        points.into_iter().fold(None, |b: Option<Self>, p| {
            Some(b.map_or(Self { min: p, max: p }, |b| Self {
                min: b.min.min(p),
                max: b.max.max(p),
            }))
        })
    }

    /// Return true when the two boxes share a point.
    #[inline]
    pub fn overlaps(&self, other: &Self) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }
}
