//! Precision, decided in one place.
//!
//! All simulation state is `f64`: positions, velocities, radii and times. The vector type is
//! glam's [`DVec3`](glam::DVec3), from the same glam version the viewer (macroquad) uses, so the
//! library and the viewer share one set of vector types.

/// The scalar type of every simulation quantity.
pub type Real = f64;

/// The 3D vector type of every simulation quantity.
pub type Vec3 = glam::DVec3;

/// The rotation type of a ball's orientation.
pub type Quat = glam::DQuat;

/// Return the moment of inertia of a solid ball of `mass` and `radius` about a diameter,
/// `2/5 m r²`.
#[must_use]
#[inline]
pub fn ball_inertia(mass: Real, radius: Real) -> Real {
    0.4 * mass * radius * radius
}

/// Return the kinetic energy of a ball's spin, `½ I ω²` with `I` the solid ball's.
#[must_use]
#[inline]
pub fn spin_energy(mass: Real, radius: Real, spin: Vec3) -> Real {
    0.5 * ball_inertia(mass, radius) * spin.length_squared()
}

/// Return the kinetic energy of a solid ball moving at `velocity` and turning at `spin`,
/// `½ m v² + ½ I ω²`.
#[must_use]
#[inline]
pub fn ball_energy(mass: Real, radius: Real, velocity: Vec3, spin: Vec3) -> Real {
    0.5 * mass * velocity.length_squared() + spin_energy(mass, radius, spin)
}

/// Return `orientation` turned by `spin` (an angular velocity, radians per time unit) for a
/// time `dt`: the rotation by the angle `|spin| dt` about `spin`, exact for a constant spin.
#[must_use]
#[inline]
pub fn turned(orientation: Quat, spin: Vec3, dt: Real) -> Quat {
    if spin == Vec3::ZERO {
        orientation
    } else {
        (Quat::from_scaled_axis(spin * dt) * orientation).normalize()
    }
}

/// Return a unit vector perpendicular to `v`.
///
/// `v` need not be normalised; for a zero vector the result is `Vec3::X`. Used wherever a
/// normal is undefined (coincident centres, a point on an axis) and any direction will do.
#[must_use]
#[inline]
pub fn any_orthonormal(v: Vec3) -> Vec3 {
    let length = v.length();
    if !(length > 0.0 && length.is_finite()) {
        return Vec3::X;
    }
    (v / length).any_orthonormal_vector()
}

/// Return `v` divided by its length, or `fallback` when the length is zero or not finite.
#[must_use]
#[inline]
pub fn normalize_or(v: Vec3, fallback: Vec3) -> Vec3 {
    let length = v.length();
    if length > 0.0 && length.is_finite() {
        v / length
    } else {
        fallback
    }
}

/// Return the volume of a ball of `radius`, `4/3 π r³`: also its mass at density 1.
#[must_use]
#[inline]
pub fn ball_volume(radius: Real) -> Real {
    4.0 / 3.0 * std::f64::consts::PI * radius.powi(3)
}

/// True for a finite number above zero.
#[inline]
pub(crate) fn positive(x: Real) -> bool {
    x.is_finite() && x > 0.0
}

/// Return a unit vector drawn uniformly from the sphere's directions (rejection from the cube,
/// so the number of draws from `rng` varies).
pub fn random_unit_vector(rng: &mut impl rand::Rng) -> Vec3 {
    // Rejection from the cube keeps the directions uniform
    loop {
        let v = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        let length2 = v.length_squared();
        if length2 > 1e-6 && length2 <= 1.0 {
            return v / length2.sqrt();
        }
    }
}
