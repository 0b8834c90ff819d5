//! The static shapes of a step: planes, cylinders and convex polygons, read from the world.

use hecs::{Entity, World};

use super::components::{Friction, Restitution};
use super::config::{StaticFault, StepError};
use crate::geometry::{Aabb, ConvexPolygon, Cylinder, Plane, Shape, StaticShape};
use crate::math::{Real, Vec3, positive};
use crate::toi::{MovingBall, PairKind, Toi, ToiStrategy};

/// The stepper's questions of a static shape.
impl StaticShape {
    /// The kind of pair a ball and this shape make.
    pub(crate) fn kind(&self) -> PairKind {
        match self {
            Self::Plane(_) => PairKind::BallPlane,
            Self::Cylinder(_) => PairKind::BallCylinder,
            Self::Polygon(_) => PairKind::BallPolygon,
        }
    }

    /// Ask `strategy` when `ball` first touches this shape within `[0, t_max]`.
    pub(crate) fn toi<S: ToiStrategy + ?Sized>(
        &self,
        strategy: &S,
        ball: &MovingBall,
        t_max: Real,
    ) -> Toi {
        match self {
            Self::Plane(s) => strategy.ball_plane(ball, s, t_max),
            Self::Cylinder(s) => strategy.ball_cylinder(ball, s, t_max),
            Self::Polygon(s) => strategy.ball_polygon(ball, s, t_max),
        }
    }

    /// True when no ball inside `aabb` can touch the shape: the box lies wholly in front of a
    /// plane, by more than rounding. Always false for other shapes.
    #[inline]
    pub(crate) fn misses_box(&self, aabb: &Aabb) -> bool {
        let Self::Plane(plane) = self else {
            return false;
        };
        // The corner deepest along the normal
        let n = plane.normal;
        let corner = Vec3::select(n.cmpgt(Vec3::ZERO), aabb.min, aabb.max);
        let margin = 1e-9 * (1.0 + corner.abs().max_element());
        plane.signed_distance(corner) > margin
    }

    /// The signed distance from `point` to the surface (negative inside), and whether a ball
    /// centred there has its centre behind a plane or inside a cylinder.
    #[inline]
    pub(crate) fn gap(&self, point: Vec3) -> (Real, bool) {
        match self {
            Self::Plane(s) => {
                let gap = s.signed_distance(point);
                (gap, gap < 0.0)
            }
            Self::Cylinder(Cylinder::Infinite(s)) => {
                let gap = s.signed_distance(point);
                (gap, gap < 0.0)
            }
            Self::Cylinder(s) => {
                let gap = s.point_proximity(point).distance;
                (gap, gap < 0.0)
            }
            Self::Polygon(s) => (s.point_proximity(point).distance, false),
        }
    }
}

/// A static shape of the world, with its entity, restitution and friction.
#[derive(Clone, Debug)]
pub(super) struct Static {
    pub entity: Entity,
    pub shape: StaticShape,
    pub restitution: Real,
    pub friction: Real,
    /// Tested against every ball rather than registered in the spatial hash.
    pub everywhere: bool,
}

/// Read the static shapes of `world` into `statics`, checking their values.
pub(super) fn gather(world: &mut World, statics: &mut Vec<Static>) -> Result<(), StepError> {
    statics.clear();
    let restitution = |e: Option<&Restitution>| e.map_or(1.0, |e| e.0);
    let friction = |f: Option<&Friction>| f.map_or(0.0, |f| f.0);
    for (entity, plane, e, f) in
        world.query_mut::<(Entity, &Plane, Option<&Restitution>, Option<&Friction>)>()
    {
        if !(plane.point.is_finite() && plane.normal.is_finite() && plane.normal.is_normalized()) {
            return Err(StepError::InvalidStatic {
                entity,
                fault: StaticFault::Plane,
            });
        }
        statics.push(Static {
            entity,
            shape: StaticShape::Plane(*plane),
            restitution: restitution(e),
            friction: friction(f),
            everywhere: false,
        });
    }
    for (entity, cylinder, e, f) in
        world.query_mut::<(Entity, &Cylinder, Option<&Restitution>, Option<&Friction>)>()
    {
        let valid = match cylinder {
            Cylinder::Capped(c) => {
                c.a.is_finite() && c.b.is_finite() && c.a != c.b && positive(c.radius)
            }
            Cylinder::Infinite(c) => {
                c.point.is_finite() && c.axis.is_normalized() && positive(c.radius)
            }
        };
        if !valid {
            return Err(StepError::InvalidStatic {
                entity,
                fault: StaticFault::Cylinder,
            });
        }
        statics.push(Static {
            entity,
            shape: StaticShape::Cylinder(*cylinder),
            restitution: restitution(e),
            friction: friction(f),
            everywhere: false,
        });
    }
    for (entity, polygon, e, f) in world.query_mut::<(
        Entity,
        &ConvexPolygon,
        Option<&Restitution>,
        Option<&Friction>,
    )>() {
        statics.push(Static {
            entity,
            shape: StaticShape::Polygon(polygon.clone()),
            restitution: restitution(e),
            friction: friction(f),
            everywhere: false,
        });
    }
    if let Some(s) = statics
        .iter()
        .find(|s| !(0.0..=1.0).contains(&s.restitution))
    {
        return Err(StepError::InvalidStatic {
            entity: s.entity,
            fault: StaticFault::Restitution,
        });
    }
    if let Some(s) = statics
        .iter()
        .find(|s| !(s.friction.is_finite() && s.friction >= 0.0))
    {
        return Err(StepError::InvalidStatic {
            entity: s.entity,
            fault: StaticFault::Friction,
        });
    }
    Ok(())
}
