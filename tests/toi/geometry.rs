//! Static queries of a ball against every shape, seed 001's and seed 003's cases, and the
//! constructors' validation errors.
//!
//! Tolerance: `EXACT` (1e-12, relative, absolute below 1) unless a test says otherwise.

use crate::common::{assert_close, assert_vec_close, can, triangle, v3};
use toibox::{
    Ball, CappedCylinder, ConvexPolygon, Cylinder, InfiniteCylinder, Plane, Proximity, Shape,
    ShapeError, Vec3, closest_point_on_sphere,
};

const EXACT: f64 = 1e-12;

#[track_caller]
fn assert_proximity(p: &Proximity, distance: f64, point: Vec3, normal: Vec3) {
    assert_close(p.distance, distance, EXACT);
    assert_vec_close(p.point, point, EXACT);
    assert_vec_close(p.normal, normal, EXACT);
}

/// Frame of the tilted square: u × w = n.
const U: Vec3 = Vec3::new(1.0, 0.0, 0.0);
const W: Vec3 = Vec3::new(0.0, 0.8, -0.6);
const N: Vec3 = Vec3::new(0.0, 0.6, 0.8);

fn tilted_square_vertices() -> Vec<Vec3> {
    vec![-U - W, U - W, U + W, -U + W]
}

// ---------------------------------------------------------------------------------------------
// Closest point on a sphere (seed 003)
// ---------------------------------------------------------------------------------------------

#[test]
fn closest_point_on_sphere_seed_003_number() {
    let p = closest_point_on_sphere(v3(1.0, 1.0, 0.0), 2.0, v3(0.0, 0.0, 7.0));
    assert!(
        (p - v3(0.719944, 0.719944, 1.960392)).abs().max_element() < 1e-6,
        "{p}"
    );
    // Exactly: (1,1,0) + 2 (-1,-1,7) / √51.
    let s = 51.0_f64.sqrt();
    assert_vec_close(p, v3(1.0 - 2.0 / s, 1.0 - 2.0 / s, 14.0 / s), EXACT);
}

#[test]
fn closest_point_on_sphere_inside_and_at_the_centre() {
    // Inside: still the surface point, 2 out along (0,0,1).
    let p = closest_point_on_sphere(v3(1.0, 1.0, 0.0), 2.0, v3(1.0, 1.0, 0.5));
    assert_vec_close(p, v3(1.0, 1.0, 2.0), EXACT);
    // At the centre: the documented +x direction.
    let p = closest_point_on_sphere(v3(1.0, 1.0, 0.0), 2.0, v3(1.0, 1.0, 0.0));
    assert_vec_close(p, v3(3.0, 1.0, 0.0), EXACT);
}

// ---------------------------------------------------------------------------------------------
// Ball
// ---------------------------------------------------------------------------------------------

#[test]
fn ball_point_proximity() {
    let b = Ball::new(v3(1.0, 2.0, 3.0), 2.0);
    // 5 above the centre: 3 outside.
    assert_proximity(
        &b.point_proximity(v3(1.0, 2.0, 8.0)),
        3.0,
        v3(1.0, 2.0, 5.0),
        Vec3::Z,
    );
    // 1 above the centre: 1 inside.
    assert_proximity(
        &b.point_proximity(v3(1.0, 2.0, 4.0)),
        -1.0,
        v3(1.0, 2.0, 5.0),
        Vec3::Z,
    );
    // At the centre: normal +x, depth the radius.
    assert_proximity(
        &b.point_proximity(v3(1.0, 2.0, 3.0)),
        -2.0,
        v3(3.0, 2.0, 3.0),
        Vec3::X,
    );
}

#[test]
fn ball_against_ball() {
    let b = Ball::new(v3(1.0, 2.0, 3.0), 2.0);
    // Centres 5 apart, radii 2 + 1: gap 2.
    let apart = Ball::new(v3(1.0, 2.0, 8.0), 1.0);
    assert_proximity(&b.proximity(&apart), 2.0, v3(1.0, 2.0, 5.0), Vec3::Z);
    assert_close(b.distance(&apart), 2.0, EXACT);
    assert!(!b.overlaps(&apart));
    // Centres 3 apart: touching counts as overlapping.
    let touching = Ball::new(v3(1.0, 2.0, 6.0), 1.0);
    assert_close(b.distance(&touching), 0.0, EXACT);
    assert!(b.overlaps(&touching));
    // Centres 2 apart: depth 1, distance clamped to 0.
    let deep = Ball::new(v3(1.0, 2.0, 5.0), 1.0);
    let p = b.proximity(&deep);
    assert_close(p.distance, -1.0, EXACT);
    assert_close(p.depth(), 1.0, EXACT);
    assert!(p.overlaps());
    assert_close(b.distance(&deep), 0.0, EXACT);
}

#[test]
fn ball_closest_point() {
    let b = Ball::new(v3(1.0, 2.0, 3.0), 2.0);
    assert_vec_close(b.closest_point(v3(1.0, 2.0, 8.0)), v3(1.0, 2.0, 5.0), EXACT);
    // Inside the solid: the point itself.
    assert_vec_close(b.closest_point(v3(1.5, 2.0, 3.0)), v3(1.5, 2.0, 3.0), EXACT);
}

#[test]
fn ball_validate() {
    assert_eq!(Ball::new(v3(1.0, 2.0, 3.0), 0.5).validate(), Ok(()));
    assert_eq!(
        Ball::new(Vec3::ZERO, 0.0).validate(),
        Err(ShapeError::NonPositiveRadius { radius: 0.0 })
    );
    assert_eq!(
        Ball::new(v3(f64::NAN, 0.0, 0.0), 1.0).validate(),
        Err(ShapeError::NonFinite {
            field: "center".into()
        })
    );
}

// ---------------------------------------------------------------------------------------------
// Plane
// ---------------------------------------------------------------------------------------------

#[test]
fn plane_point_proximity() {
    // Plane y = 2, normal given unnormalised.
    let plane = Plane::new(v3(0.0, 2.0, 0.0), v3(0.0, 3.0, 0.0)).unwrap();
    assert_vec_close(plane.normal, Vec3::Y, EXACT);
    assert_close(plane.signed_distance(v3(5.0, 7.0, 1.0)), 5.0, EXACT);
    assert_proximity(
        &plane.point_proximity(v3(5.0, 7.0, 1.0)),
        5.0,
        v3(5.0, 2.0, 1.0),
        Vec3::Y,
    );
    // Behind: negative, same normal (one-sided).
    assert_proximity(
        &plane.point_proximity(v3(5.0, -1.0, 1.0)),
        -3.0,
        v3(5.0, 2.0, 1.0),
        Vec3::Y,
    );
}

#[test]
fn plane_oblique() {
    // Through (1,1,1), normal (1,2,2)/3: (4,7,7) is (3 + 12 + 12)/3 = 9 away, foot
    // (4,7,7) - 9 (1,2,2)/3 = (1,1,1).
    let plane = Plane::new(v3(1.0, 1.0, 1.0), v3(1.0, 2.0, 2.0)).unwrap();
    let n = v3(1.0, 2.0, 2.0) / 3.0;
    assert_proximity(
        &plane.point_proximity(v3(4.0, 7.0, 7.0)),
        9.0,
        v3(1.0, 1.0, 1.0),
        n,
    );
}

#[test]
fn plane_against_ball() {
    let plane = Plane::new(v3(0.0, 2.0, 0.0), Vec3::Y).unwrap();
    // Centre 3 above, radius 1: gap 2.
    let above = Ball::new(v3(1.0, 5.0, 1.0), 1.0);
    assert_close(plane.distance(&above), 2.0, EXACT);
    assert!(!plane.overlaps(&above));
    // Centre 0.5 above: depth 0.5.
    let low = Ball::new(v3(1.0, 2.5, 1.0), 1.0);
    assert_close(plane.proximity(&low).depth(), 0.5, EXACT);
    assert!(plane.overlaps(&low));
    assert_close(plane.distance(&low), 0.0, EXACT);
    // Entirely behind: overlapping the solid half-space, depth 3 + 1.
    let behind = Ball::new(v3(1.0, -1.0, 1.0), 1.0);
    assert!(plane.overlaps(&behind));
    assert_close(plane.proximity(&behind).depth(), 4.0, EXACT);
}

#[test]
fn plane_closest_point() {
    let plane = Plane::new(v3(0.0, 2.0, 0.0), Vec3::Y).unwrap();
    assert_vec_close(
        plane.closest_point(v3(5.0, 7.0, 1.0)),
        v3(5.0, 2.0, 1.0),
        EXACT,
    );
    // Behind: inside the half-space, the point itself.
    assert_vec_close(
        plane.closest_point(v3(5.0, -1.0, 1.0)),
        v3(5.0, -1.0, 1.0),
        EXACT,
    );
}

// ---------------------------------------------------------------------------------------------
// Capped cylinder
// ---------------------------------------------------------------------------------------------

#[test]
fn capped_cylinder_outside_regions() {
    let c = can();
    assert_close(c.length(), 4.0, EXACT);
    // Side: radial 5, height 1.
    assert_proximity(
        &c.point_proximity(v3(5.0, 1.0, 0.0)),
        3.0,
        v3(2.0, 1.0, 0.0),
        Vec3::X,
    );
    // Cap b: 3 above, radial 1.
    assert_proximity(
        &c.point_proximity(v3(1.0, 7.0, 0.0)),
        3.0,
        v3(1.0, 4.0, 0.0),
        Vec3::Y,
    );
    // Cap a: 2 below.
    assert_proximity(
        &c.point_proximity(v3(0.5, -2.0, 1.0)),
        2.0,
        v3(0.5, 0.0, 1.0),
        -Vec3::Y,
    );
    // On the axis beyond cap b.
    assert_proximity(
        &c.point_proximity(v3(0.0, 6.0, 0.0)),
        2.0,
        v3(0.0, 4.0, 0.0),
        Vec3::Y,
    );
    // Rim b: (5,8) is (3,4) from the rim point (2,4): distance 5.
    assert_proximity(
        &c.point_proximity(v3(5.0, 8.0, 0.0)),
        5.0,
        v3(2.0, 4.0, 0.0),
        v3(0.6, 0.8, 0.0),
    );
    // Rim a: (0,-3,-6) is (0,-3,-4) from the rim point (0,0,-2).
    assert_proximity(
        &c.point_proximity(v3(0.0, -3.0, -6.0)),
        5.0,
        v3(0.0, 0.0, -2.0),
        v3(0.0, -0.6, -0.8),
    );
}

#[test]
fn capped_cylinder_inside_regions() {
    let c = can();
    // Radial 1.5 at height 2: side 0.5 away, caps 2 away.
    assert_proximity(
        &c.point_proximity(v3(1.5, 2.0, 0.0)),
        -0.5,
        v3(2.0, 2.0, 0.0),
        Vec3::X,
    );
    // Height 0.3: cap a 0.3 away, side 1.5, cap b 3.7.
    assert_proximity(
        &c.point_proximity(v3(0.5, 0.3, 0.0)),
        -0.3,
        v3(0.5, 0.0, 0.0),
        -Vec3::Y,
    );
    // Height 3.9: cap b 0.1 away.
    assert_proximity(
        &c.point_proximity(v3(0.0, 3.9, 0.5)),
        -0.1,
        v3(0.0, 4.0, 0.5),
        Vec3::Y,
    );
    // Inside points are their own closest points.
    assert_vec_close(c.closest_point(v3(1.5, 2.0, 0.0)), v3(1.5, 2.0, 0.0), EXACT);
    assert_vec_close(c.closest_point(v3(5.0, 1.0, 0.0)), v3(2.0, 1.0, 0.0), EXACT);
}

#[test]
fn capped_cylinder_tilted() {
    // Axis (0,3,4), length 5. (5, 1.5, 2) is the axis midpoint plus 5x: side, 3 out.
    let c = CappedCylinder::new(Vec3::ZERO, v3(0.0, 3.0, 4.0), 2.0).unwrap();
    assert_close(c.length(), 5.0, EXACT);
    assert_proximity(
        &c.point_proximity(v3(5.0, 1.5, 2.0)),
        3.0,
        v3(2.0, 1.5, 2.0),
        Vec3::X,
    );
    // 2 beyond b along the axis: cap b.
    assert_proximity(
        &c.point_proximity(v3(0.0, 3.0 + 1.2, 4.0 + 1.6)),
        2.0,
        v3(0.0, 3.0, 4.0),
        v3(0.0, 0.6, 0.8),
    );
}

#[test]
fn capped_cylinder_against_ball() {
    let c = can();
    // Side: radial 5, radius 1: gap 2.
    let side = Ball::new(v3(5.0, 1.0, 0.0), 1.0);
    assert_close(c.distance(&side), 2.0, EXACT);
    assert!(!c.overlaps(&side));
    // Inside the flat bounding box (|x| <= 3, y <= 5) but clear of the rim:
    // |(0.9, 0.9)| - 1 = 0.9√2 - 1 > 0.
    let corner = Ball::new(v3(2.9, 4.9, 0.0), 1.0);
    assert_close(
        c.distance(&corner),
        0.9 * std::f64::consts::SQRT_2 - 1.0,
        EXACT,
    );
    assert!(!c.overlaps(&corner));
    // Into the rim: |(0.5, 0.5)| - 1 < 0.
    let rim = Ball::new(v3(2.5, 4.5, 0.0), 1.0);
    assert!(c.overlaps(&rim));
    assert_close(
        c.proximity(&rim).depth(),
        1.0 - 0.5 * std::f64::consts::SQRT_2,
        EXACT,
    );
    // The enum answers the same.
    let wrapped = Cylinder::from(c);
    assert_eq!(wrapped.proximity(&rim), c.proximity(&rim));
}

// ---------------------------------------------------------------------------------------------
// Infinite cylinder
// ---------------------------------------------------------------------------------------------

#[test]
fn infinite_cylinder_point_proximity() {
    // Axis z (given unnormalised), radius 1: (3,4) is 5 from the axis.
    let c = InfiniteCylinder::new(Vec3::ZERO, v3(0.0, 0.0, 2.0), 1.0).unwrap();
    assert_vec_close(c.axis, Vec3::Z, EXACT);
    assert_proximity(
        &c.point_proximity(v3(3.0, 4.0, 100.0)),
        4.0,
        v3(0.6, 0.8, 100.0),
        v3(0.6, 0.8, 0.0),
    );
    // Inside: (0.3, 0.4) is 0.5 from the axis.
    assert_proximity(
        &c.point_proximity(v3(0.3, 0.4, -7.0)),
        -0.5,
        v3(0.6, 0.8, -7.0),
        v3(0.6, 0.8, 0.0),
    );
}

#[test]
fn infinite_cylinder_oblique_axis() {
    // NeHe's: through (-200,0,0), axis (0,1,1)/√2, radius 30. (-150,7,7): the axial part (0,7,7)
    // leaves 50 from the axis.
    let c = InfiniteCylinder::new(v3(-200.0, 0.0, 0.0), v3(0.0, 1.0, 1.0), 30.0).unwrap();
    let s = std::f64::consts::FRAC_1_SQRT_2;
    assert_vec_close(c.axis, v3(0.0, s, s), EXACT);
    assert_proximity(
        &c.point_proximity(v3(-150.0, 7.0, 7.0)),
        20.0,
        v3(-170.0, 7.0, 7.0),
        Vec3::X,
    );
    // A ball of radius 15 there: gap 5; of radius 25: depth 5.
    assert_close(
        c.distance(&Ball::new(v3(-150.0, 7.0, 7.0), 15.0)),
        5.0,
        EXACT,
    );
    let deep = Ball::new(v3(-150.0, 7.0, 7.0), 25.0);
    assert!(c.overlaps(&deep));
    assert_close(c.proximity(&deep).depth(), 5.0, EXACT);
    assert_eq!(Cylinder::from(c).proximity(&deep), c.proximity(&deep));
}

// ---------------------------------------------------------------------------------------------
// Convex polygon
// ---------------------------------------------------------------------------------------------

#[test]
fn polygon_face_from_both_sides() {
    let t = triangle();
    assert_proximity(
        &t.point_proximity(v3(1.0, 1.0, 3.0)),
        3.0,
        v3(1.0, 1.0, 0.0),
        Vec3::Z,
    );
    // Two-sided: below, the distance is positive and the normal -z.
    assert_proximity(
        &t.point_proximity(v3(1.0, 1.0, -2.0)),
        2.0,
        v3(1.0, 1.0, 0.0),
        -Vec3::Z,
    );
    // In the plate: distance 0, the +normal side.
    assert_proximity(
        &t.point_proximity(v3(1.0, 1.0, 0.0)),
        0.0,
        v3(1.0, 1.0, 0.0),
        Vec3::Z,
    );
    assert_vec_close(t.closest_point(v3(1.0, 1.0, 0.0)), v3(1.0, 1.0, 0.0), EXACT);
}

#[test]
fn polygon_edges_and_vertices() {
    let t = triangle();
    // Edge y = 0: (2,-3,4) is (0,-3,4) from (2,0,0).
    assert_proximity(
        &t.point_proximity(v3(2.0, -3.0, 4.0)),
        5.0,
        v3(2.0, 0.0, 0.0),
        v3(0.0, -0.6, 0.8),
    );
    // Hypotenuse x + y = 4: (3,3,0) projects to (2,2,0), √2 away.
    let s = std::f64::consts::SQRT_2;
    assert_proximity(
        &t.point_proximity(v3(3.0, 3.0, 0.0)),
        s,
        v3(2.0, 2.0, 0.0),
        v3(1.0, 1.0, 0.0) / s,
    );
    // Vertex (4,0,0): (7,-4,0) is (3,-4,0) from it.
    assert_proximity(
        &t.point_proximity(v3(7.0, -4.0, 0.0)),
        5.0,
        v3(4.0, 0.0, 0.0),
        v3(0.6, -0.8, 0.0),
    );
    // Vertex (0,0,0) from below: (-3,-4,-12), 13 away.
    assert_proximity(
        &t.point_proximity(v3(-3.0, -4.0, -12.0)),
        13.0,
        Vec3::ZERO,
        v3(-3.0, -4.0, -12.0) / 13.0,
    );
    assert_vec_close(
        t.closest_point(v3(7.0, -4.0, 0.0)),
        v3(4.0, 0.0, 0.0),
        EXACT,
    );
}

#[test]
fn polygon_accessors() {
    let t = triangle();
    assert_eq!(t.vertices().len(), 3);
    assert_eq!(t.edges().count(), 3);
    assert_eq!(
        t.edges().last(),
        Some((v3(0.0, 4.0, 0.0), v3(0.0, 0.0, 0.0)))
    );
    assert_close(t.plane_distance(v3(9.0, 9.0, -2.5)), -2.5, EXACT);
    // Inside, on the boundary, outside.
    assert!(t.contains_projection(v3(1.0, 1.0, 5.0)));
    assert!(t.contains_projection(v3(2.0, 2.0, -1.0)));
    assert!(!t.contains_projection(v3(2.1, 2.0, 0.0)));
}

#[test]
fn polygon_tilted_square() {
    let square = ConvexPolygon::new(tilted_square_vertices()).unwrap();
    assert_vec_close(square.normal(), N, EXACT);
    // Face: 3 along N above 0.5U.
    assert_proximity(&square.point_proximity(N * 3.0 + U * 0.5), 3.0, U * 0.5, N);
    // From behind.
    assert_proximity(
        &square.point_proximity(N * -3.0 + U * 0.5),
        3.0,
        U * 0.5,
        -N,
    );
    // Edge U + sW: the point 4U + 0.2W + 4N is (3U + 4N) from U + 0.2W, 5 away.
    assert_proximity(
        &square.point_proximity(U * 4.0 + W * 0.2 + N * 4.0),
        5.0,
        U + W * 0.2,
        U * 0.6 + N * 0.8,
    );
    // Vertex U + W: 3U + 4W beyond it.
    assert_proximity(
        &square.point_proximity(U * 4.0 + W * 5.0),
        5.0,
        U + W,
        U * 0.6 + W * 0.8,
    );
}

#[test]
fn polygon_against_ball() {
    let t = triangle();
    // Height 0.5 over the face, radius 1: depth 0.5.
    let face = Ball::new(v3(1.0, 1.0, 0.5), 1.0);
    assert!(t.overlaps(&face));
    assert_close(t.proximity(&face).depth(), 0.5, EXACT);
    // Height 3: gap 2.
    let above = Ball::new(v3(1.0, 1.0, 3.0), 1.0);
    assert_close(t.distance(&above), 2.0, EXACT);
    assert!(!t.overlaps(&above));
}

#[test]
fn seed_001_edge_parameter_is_clamped() {
    // Seed 001 leaves the edge parameter unclamped: the centre (6,-0.3,0.4) is 0.5 from the
    // line of the edge y = 0 (beyond the vertex (4,0,0)), which would pass for r = 1. The
    // segment's closest point is the vertex, √(4 + 0.09 + 0.16) = √4.25 away: no overlap.
    let t = triangle();
    let b = Ball::new(v3(6.0, -0.3, 0.4), 1.0);
    let p = t.proximity(&b);
    assert!(!t.overlaps(&b), "{p:?}");
    assert_close(p.distance, 4.25_f64.sqrt() - 1.0, EXACT);
    assert_vec_close(p.point, v3(4.0, 0.0, 0.0), EXACT);
}

#[test]
fn seed_001_projected_radius() {
    // Seed 001 compares the in-plane distance to an edge with the full radius. At height
    // d = 0.8 with r = 1 the projected radius is √(1 - 0.64) = 0.6; an in-plane distance of
    // 0.8 lies between 0.6 and 1: the seed says overlap, the 3D distance √1.28 > 1 says no.
    let t = triangle();
    let b = Ball::new(v3(2.0, -0.8, 0.8), 1.0);
    assert!(!t.overlaps(&b));
    assert_close(t.distance(&b), 1.28_f64.sqrt() - 1.0, EXACT);
    // In-plane distance 0.5 < 0.6: √(0.25 + 0.64) < 1, overlapping.
    let near = Ball::new(v3(2.0, -0.5, 0.8), 1.0);
    assert!(t.overlaps(&near));
    assert_close(t.proximity(&near).depth(), 1.0 - 0.89_f64.sqrt(), EXACT);
}

// ---------------------------------------------------------------------------------------------
// Constructor validation
// ---------------------------------------------------------------------------------------------

#[test]
fn plane_new_rejects_bad_input() {
    assert_eq!(
        Plane::new(Vec3::ZERO, Vec3::ZERO),
        Err(ShapeError::ZeroLength {
            field: "normal".into()
        })
    );
    assert_eq!(
        Plane::new(Vec3::ZERO, v3(0.0, f64::NAN, 0.0)),
        Err(ShapeError::NonFinite {
            field: "normal".into()
        })
    );
    assert_eq!(
        Plane::new(v3(f64::INFINITY, 0.0, 0.0), Vec3::Y),
        Err(ShapeError::NonFinite {
            field: "point".into()
        })
    );
}

#[test]
fn capped_cylinder_new_rejects_bad_input() {
    let a = v3(1.0, 2.0, 3.0);
    let b = v3(1.0, 5.0, 3.0);
    assert_eq!(
        CappedCylinder::new(a, a, 1.0),
        Err(ShapeError::ZeroLength {
            field: "a..b".into()
        })
    );
    assert_eq!(
        CappedCylinder::new(a, b, 0.0),
        Err(ShapeError::NonPositiveRadius { radius: 0.0 })
    );
    assert_eq!(
        CappedCylinder::new(a, b, -1.0),
        Err(ShapeError::NonPositiveRadius { radius: -1.0 })
    );
    assert_eq!(
        CappedCylinder::new(a, b, f64::NAN),
        Err(ShapeError::NonFinite {
            field: "radius".into()
        })
    );
    assert_eq!(
        CappedCylinder::new(a, v3(f64::NAN, 0.0, 0.0), 1.0),
        Err(ShapeError::NonFinite { field: "b".into() })
    );
    assert!(CappedCylinder::new(a, b, 0.5).is_ok());
}

#[test]
fn infinite_cylinder_new_rejects_bad_input() {
    assert_eq!(
        InfiniteCylinder::new(Vec3::ZERO, Vec3::ZERO, 1.0),
        Err(ShapeError::ZeroLength {
            field: "axis".into()
        })
    );
    assert_eq!(
        InfiniteCylinder::new(Vec3::ZERO, Vec3::Y, -2.0),
        Err(ShapeError::NonPositiveRadius { radius: -2.0 })
    );
}

#[test]
fn polygon_new_rejects_too_few_vertices() {
    assert_eq!(
        ConvexPolygon::new(vec![Vec3::ZERO, Vec3::X]),
        Err(ShapeError::TooFewVertices { count: 2 })
    );
}

#[test]
fn polygon_new_rejects_collinear_vertices() {
    assert_eq!(
        ConvexPolygon::new(vec![Vec3::ZERO, v3(1.0, 1.0, 1.0), v3(2.0, 2.0, 2.0)]),
        Err(ShapeError::Collinear)
    );
}

#[test]
fn polygon_new_rejects_a_repeated_vertex() {
    assert_eq!(
        ConvexPolygon::new(vec![Vec3::ZERO, Vec3::X, Vec3::X, Vec3::Y]),
        Err(ShapeError::RepeatedVertex { index: 1 })
    );
    // The last equal to the first.
    assert_eq!(
        ConvexPolygon::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::ZERO]),
        Err(ShapeError::RepeatedVertex { index: 3 })
    );
}

#[test]
fn polygon_new_rejects_a_non_finite_vertex() {
    assert_eq!(
        ConvexPolygon::new(vec![Vec3::ZERO, v3(1.0, f64::NAN, 0.0), Vec3::Y]),
        Err(ShapeError::NonFinite {
            field: "vertices[1]".into()
        })
    );
}

#[test]
fn polygon_new_rejects_non_planar_vertices() {
    // Square with (2,2) lifted to z = 1. Centroid (1,1,0.25), area vector (-2,-2,8) of length
    // 6√2; vertex 0 is at (-1,-1,-0.25) from the centroid: |2 + 2 - 2| / (6√2) = √2/6, and all
    // four vertices are that far.
    let error = ConvexPolygon::new(vec![
        Vec3::ZERO,
        v3(2.0, 0.0, 0.0),
        v3(2.0, 2.0, 1.0),
        v3(0.0, 2.0, 0.0),
    ])
    .unwrap_err();
    let ShapeError::NonPlanar { distance, .. } = error else {
        panic!("expected NonPlanar, got {error:?}");
    };
    assert_close(distance, std::f64::consts::SQRT_2 / 6.0, EXACT);
}

#[test]
fn polygon_new_rejects_a_reflex_corner() {
    // (1,1) bends inwards: vertex 3 = (0,4) is right of the edge (4,0) -> (1,1), and
    // vertex 1 = (4,0) right of the edge (1,1) -> (0,4).
    let error = ConvexPolygon::new(vec![
        Vec3::ZERO,
        v3(4.0, 0.0, 0.0),
        v3(1.0, 1.0, 0.0),
        v3(0.0, 4.0, 0.0),
    ])
    .unwrap_err();
    assert!(
        matches!(error, ShapeError::NonConvex { index: 1 | 3 }),
        "{error:?}"
    );
}

#[test]
fn polygon_new_rejects_a_pentagram() {
    // The five points of a regular pentagon taken two at a time: edges cross.
    let point = |k: u32| {
        let angle = std::f64::consts::FRAC_PI_2 + f64::from(k) * 2.0 * std::f64::consts::PI / 5.0;
        v3(angle.cos(), angle.sin(), 0.0)
    };
    let star = vec![point(0), point(2), point(4), point(1), point(3)];
    let error = ConvexPolygon::new(star).unwrap_err();
    assert!(matches!(error, ShapeError::NonConvex { .. }), "{error:?}");
    // The same points in order are a valid pentagon.
    assert!(ConvexPolygon::new((0..5).map(point).collect()).is_ok());
}

#[test]
fn polygon_new_accepts_both_windings() {
    let ccw = vec![
        Vec3::ZERO,
        v3(2.0, 0.0, 0.0),
        v3(2.0, 2.0, 0.0),
        v3(0.0, 2.0, 0.0),
    ];
    let cw: Vec<Vec3> = ccw.iter().rev().copied().collect();
    assert_vec_close(ConvexPolygon::new(ccw).unwrap().normal(), Vec3::Z, EXACT);
    assert_vec_close(ConvexPolygon::new(cw).unwrap().normal(), -Vec3::Z, EXACT);
    // Tilted: (U - W) - (-U - W) = 2U, then 2W; U × W = N.
    let tilted = tilted_square_vertices();
    let reversed: Vec<Vec3> = tilted.iter().rev().copied().collect();
    assert_vec_close(ConvexPolygon::new(tilted).unwrap().normal(), N, EXACT);
    assert_vec_close(ConvexPolygon::new(reversed).unwrap().normal(), -N, EXACT);
}

#[test]
fn polygon_new_accepts_collinear_consecutive_edges() {
    let polygon = ConvexPolygon::new(vec![
        Vec3::ZERO,
        v3(1.0, 0.0, 0.0),
        v3(2.0, 0.0, 0.0),
        v3(2.0, 2.0, 0.0),
        v3(0.0, 2.0, 0.0),
    ])
    .unwrap();
    assert_vec_close(polygon.normal(), Vec3::Z, EXACT);
}

#[test]
fn every_error_message_says_what_is_allowed() {
    let errors = [
        Plane::new(Vec3::ZERO, Vec3::ZERO).unwrap_err(),
        Plane::new(v3(f64::NAN, 0.0, 0.0), Vec3::Y).unwrap_err(),
        CappedCylinder::new(Vec3::ZERO, Vec3::ZERO, 1.0).unwrap_err(),
        CappedCylinder::new(Vec3::ZERO, Vec3::Y, 0.0).unwrap_err(),
        CappedCylinder::new(Vec3::ZERO, Vec3::Y, f64::NAN).unwrap_err(),
        InfiniteCylinder::new(Vec3::ZERO, Vec3::ZERO, 1.0).unwrap_err(),
        ConvexPolygon::new(vec![Vec3::ZERO, Vec3::X]).unwrap_err(),
        ConvexPolygon::new(vec![Vec3::ZERO, Vec3::X, v3(2.0, 0.0, 0.0)]).unwrap_err(),
        ConvexPolygon::new(vec![Vec3::ZERO, Vec3::X, Vec3::X, Vec3::Y]).unwrap_err(),
        ConvexPolygon::new(vec![Vec3::ZERO, Vec3::X, v3(1.0, 1.0, 1.0), Vec3::Y]).unwrap_err(),
        ConvexPolygon::new(vec![
            Vec3::ZERO,
            v3(4.0, 0.0, 0.0),
            v3(1.0, 1.0, 0.0),
            v3(0.0, 4.0, 0.0),
        ])
        .unwrap_err(),
    ];
    let kinds: Vec<_> = errors.iter().map(std::mem::discriminant).collect();
    for kind in [
        ShapeError::NonFinite {
            field: String::new(),
        },
        ShapeError::NonPositiveRadius { radius: 0.0 },
        ShapeError::ZeroLength {
            field: String::new(),
        },
        ShapeError::TooFewVertices { count: 0 },
        ShapeError::RepeatedVertex { index: 0 },
        ShapeError::Collinear,
        ShapeError::NonPlanar {
            index: 0,
            distance: 0.0,
        },
        ShapeError::NonConvex { index: 0 },
    ] {
        assert!(
            kinds.contains(&std::mem::discriminant(&kind)),
            "no case for {kind:?}"
        );
    }
    for error in &errors {
        let message = error.to_string();
        assert!(message.contains("allowed"), "{message}");
    }
}
