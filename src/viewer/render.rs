//! Drawing: the lighting materials, spheres with normals, cylinders, polygons, the panels of
//! planes, and the batches that carry them to macroquad.
//!
//! Everything is built in `f64` and converted to `f32` here, at draw time. Lit surfaces carry
//! their unit normal in the vertex's `normal` attribute; the fragment shader lights them per
//! pixel (Lambert from a key and a fill light tied to the camera, a hemisphere ambient, a
//! Blinn-Phong highlight and a faint rim). Colours are taken as they should look on the screen
//! (sRGB, as NeHe's `glColor` values): lighting converts them to linear and back.

use macroquad::material::{Material, MaterialParams, load_material};
use macroquad::math::{Vec2 as V2, Vec3 as V3, vec2, vec3};
use macroquad::miniquad::{
    BlendFactor, BlendState, BlendValue, Comparison, Equation, PipelineParams, ShaderSource,
    UniformDesc, UniformType,
};
use macroquad::models::{Mesh, Vertex, draw_line_3d, draw_mesh};
use macroquad::prelude::Color;

use super::bounds::plane_axes;
use crate::geometry::{Aabb, Cylinder, Plane, Shape};
use crate::math::{Real, Vec3, any_orthonormal};
use crate::scene::Scene;

/// Convert a simulation vector to a drawing one.
#[must_use]
#[inline]
pub(crate) fn v3(v: Vec3) -> V3 {
    vec3(v.x as f32, v.y as f32, v.z as f32)
}

/// Most vertices in one batch handed to macroquad.
pub(crate) const BATCH_VERTICES: usize = 16_000;
/// Most indices in one batch.
pub(crate) const BATCH_INDICES: usize = 6 * BATCH_VERTICES;

const LIT_VERTEX: &str = r#"#version 100
attribute vec3 position;
attribute vec4 color0;
attribute vec4 normal;
attribute vec2 texcoord;
varying lowp vec4 v_color;
varying highp vec3 v_normal;
varying highp vec3 v_world;
uniform mat4 Model;
uniform mat4 Projection;
void main() {
    vec4 world = Model * vec4(position, 1.0);
    v_world = world.xyz;
    v_normal = normal.xyz;
    v_color = color0 / 255.0;
    gl_Position = Projection * world;
}
"#;

const LIT_FRAGMENT: &str = r#"#version 100
precision highp float;
varying lowp vec4 v_color;
varying highp vec3 v_normal;
varying highp vec3 v_world;
uniform vec3 Eye;
uniform vec3 Key;
uniform vec3 Fill;
uniform vec3 Up;
void main() {
    vec3 n = normalize(v_normal);
    vec3 v = normalize(Eye - v_world);
    // Two-sided: light the face the eye sees
    if (dot(n, v) < 0.0) n = -n;
    // Colours are given as on the screen (sRGB): light them in linear, with gamma 2 (cheap
    // where the GPU is emulated)
    vec3 base = v_color.rgb * v_color.rgb;
    float sky = 0.5 + 0.5 * dot(n, Up);
    vec3 ambient = mix(vec3(0.05, 0.045, 0.05), vec3(0.13, 0.14, 0.17), sky);
    float key = max(dot(n, Key), 0.0);
    float fill = max(dot(n, Fill), 0.0);
    vec3 h = normalize(Key + v);
    // Blinn-Phong, exponent 64 by squaring
    float s = max(dot(n, h), 0.0);
    s *= s; s *= s; s *= s; s *= s; s *= s; s *= s;
    float spec = s * 0.45 * step(0.0, dot(n, Key));
    float r = 1.0 - max(dot(n, v), 0.0);
    float rim = r * r * r * 0.12;
    vec3 lit = base * (ambient + 0.95 * key + 0.22 * fill) + vec3(spec) + rim * vec3(0.6, 0.7, 0.9);
    vec3 srgb = sqrt(clamp(lit, 0.0, 1.0));
    gl_FragColor = vec4(srgb, v_color.a);
}
"#;

const PLAIN_VERTEX: &str = r#"#version 100
attribute vec3 position;
attribute vec4 color0;
attribute vec2 texcoord;
attribute vec4 normal;
varying lowp vec4 v_color;
varying lowp vec2 v_uv;
uniform mat4 Model;
uniform mat4 Projection;
void main() {
    v_color = color0 / 255.0;
    v_uv = texcoord;
    gl_Position = Projection * Model * vec4(position, 1.0);
}
"#;

const FLAT_FRAGMENT: &str = r#"#version 100
precision mediump float;
varying lowp vec4 v_color;
varying lowp vec2 v_uv;
void main() {
    if (v_color.a < 0.03) discard;
    gl_FragColor = v_color;
}
"#;

/// A soft round glow on a quad with texture coordinates in `[0, 1]²`, for additive blending:
/// the colour fades from a white-hot core to nothing at the rim.
const GLOW_FRAGMENT: &str = r#"#version 100
precision mediump float;
varying lowp vec4 v_color;
varying lowp vec2 v_uv;
void main() {
    float d = length(v_uv * 2.0 - 1.0);
    float a = clamp(1.0 - d, 0.0, 1.0);
    float glow = a * a;
    if (glow * v_color.a < 0.02) discard;
    vec3 c = mix(v_color.rgb, vec3(1.0), glow * glow * glow) * glow * v_color.a;
    gl_FragColor = vec4(c, 0.0);
}
"#;

/// The materials of the viewer.
pub(crate) struct Materials {
    /// Lit, alpha-blended (opaque at alpha 1).
    pub lit: Material,
    /// Vertex colour, alpha-blended; nearly clear fragments are discarded.
    pub flat: Material,
    /// Additive glow; fragments outside its disc are discarded.
    pub glow: Material,
}

/// Where the lights are, for one frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lights {
    /// The camera's position.
    pub eye: V3,
    /// Unit direction towards the key light.
    pub key: V3,
    /// Unit direction towards the fill light.
    pub fill: V3,
    /// Unit up direction, for the sky half of the ambient.
    pub up: V3,
}

impl Materials {
    /// Compile the shaders.
    pub fn load() -> Result<Self, macroquad::Error> {
        let alpha = BlendState::new(
            Equation::Add,
            BlendFactor::Value(BlendValue::SourceAlpha),
            BlendFactor::OneMinusValue(BlendValue::SourceAlpha),
        );
        // Every material tests and writes depth: miniquad cannot test without writing (a
        // pipeline without depth writes has no depth test). Translucent things are drawn
        // after the opaque ones, back to front, and discard their clear fragments.
        let blended = PipelineParams {
            depth_test: Comparison::LessOrEqual,
            depth_write: true,
            color_blend: Some(alpha),
            ..PipelineParams::default()
        };
        let additive = PipelineParams {
            color_blend: Some(BlendState::new(
                Equation::Add,
                BlendFactor::One,
                BlendFactor::One,
            )),
            ..blended
        };
        let lit_uniforms = ["Eye", "Key", "Fill", "Up"]
            .into_iter()
            .map(|name| UniformDesc::new(name, UniformType::Float3))
            .collect();
        let make = |vertex: &str, fragment: &str, pipeline_params, uniforms| {
            load_material(
                ShaderSource::Glsl { vertex, fragment },
                MaterialParams {
                    pipeline_params,
                    uniforms,
                    textures: Vec::new(),
                },
            )
        };
        Ok(Self {
            lit: make(LIT_VERTEX, LIT_FRAGMENT, blended, lit_uniforms)?,
            flat: make(PLAIN_VERTEX, FLAT_FRAGMENT, blended, Vec::new())?,
            glow: make(PLAIN_VERTEX, GLOW_FRAGMENT, additive, Vec::new())?,
        })
    }

    /// Set the lights of the lit material; takes effect with the next `gl_use_material`.
    pub fn set_lights(&self, lights: &Lights) {
        self.lit.set_uniform("Eye", lights.eye);
        self.lit.set_uniform("Key", lights.key);
        self.lit.set_uniform("Fill", lights.fill);
        self.lit.set_uniform("Up", lights.up);
    }
}

/// Return a colour `rgb` (as on the screen) and alpha `a` as vertex bytes.
#[must_use]
pub(crate) fn rgba(rgb: [f32; 3], a: f32) -> [u8; 4] {
    let byte = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
    [byte(rgb[0]), byte(rgb[1]), byte(rgb[2]), byte(a)]
}

/// Triangles gathered for one material, handed to macroquad in batches.
#[derive(Default)]
pub(crate) struct Batch {
    mesh: Option<Mesh>,
}

impl Batch {
    fn mesh(&mut self) -> &mut Mesh {
        self.mesh.get_or_insert_with(|| Mesh {
            vertices: Vec::with_capacity(BATCH_VERTICES),
            indices: Vec::with_capacity(BATCH_VERTICES * 6),
            texture: None,
        })
    }

    /// Make room for `vertices` more vertices and `indices` more indices, drawing what is
    /// gathered when it is full; return the index the next vertex will have.
    fn reserve(&mut self, vertices: usize, indices: usize) -> u16 {
        debug_assert!(vertices <= BATCH_VERTICES && indices <= BATCH_INDICES);
        let mesh = self.mesh();
        if mesh.vertices.len() + vertices > BATCH_VERTICES
            || mesh.indices.len() + indices > BATCH_INDICES
        {
            self.flush();
        }
        self.mesh().vertices.len() as u16
    }

    /// Add one vertex.
    #[inline]
    fn vertex(&mut self, position: V3, uv: V2, color: [u8; 4], normal: V3) {
        self.mesh().vertices.push(Vertex {
            position,
            uv,
            color,
            normal: normal.extend(0.0),
        });
    }

    /// Draw what is gathered with the material in use, and start again.
    pub fn flush(&mut self) {
        let mesh = self.mesh();
        if !mesh.indices.is_empty() {
            draw_mesh(mesh);
        }
        mesh.vertices.clear();
        mesh.indices.clear();
    }

    /// Add a quad of four corners (in order around it) with texture coordinates on the unit
    /// square, one colour per corner.
    pub fn quad(&mut self, corners: [V3; 4], colors: [[u8; 4]; 4], normal: V3) {
        let first = self.reserve(4, 6);
        let uvs = [
            vec2(0.0, 0.0),
            vec2(1.0, 0.0),
            vec2(1.0, 1.0),
            vec2(0.0, 1.0),
        ];
        for k in 0..4 {
            self.vertex(corners[k], uvs[k], colors[k], normal);
        }
        let mesh = self.mesh();
        mesh.indices
            .extend([0, 1, 2, 0, 2, 3].map(|k: u16| first + k));
    }

    /// Add a convex polygon as a fan, in one colour, with one normal.
    pub fn polygon(&mut self, vertices: &[V3], color: [u8; 4], normal: V3) {
        self.fan(vertices, color, |_| normal);
    }

    /// Add a convex polygon as a fan, in one colour, vertex `k` with normal `normal(k)`.
    pub fn fan(&mut self, vertices: &[V3], color: [u8; 4], normal: impl Fn(usize) -> V3) {
        if vertices.len() < 3 {
            return;
        }
        let first = self.reserve(vertices.len(), 3 * (vertices.len() - 2));
        for (k, &p) in vertices.iter().enumerate() {
            self.vertex(p, V2::ZERO, color, normal(k));
        }
        let mesh = self.mesh();
        for k in 1..vertices.len() as u16 - 1 {
            mesh.indices.extend([first, first + k, first + k + 1]);
        }
    }

    /// Add a sphere of `radius` at `center`, from `template`.
    pub fn sphere(&mut self, template: &SphereTemplate, center: V3, radius: f32, color: [u8; 4]) {
        let first = self.reserve(template.normals.len(), template.indices.len());
        for &n in &template.normals {
            self.vertex(center + n * radius, V2::ZERO, color, n);
        }
        let mesh = self.mesh();
        mesh.indices
            .extend(template.indices.iter().map(|&k| first + k));
    }

    /// Add a tube from `a` to `b` of `radius` with `sides` sides, and flat caps when `caps`.
    pub fn cylinder(&mut self, a: V3, b: V3, radius: f32, sides: u16, caps: bool, color: [u8; 4]) {
        let axis = (b - a).normalize_or_zero();
        let u = v3(any_orthonormal(Vec3::new(
            f64::from(axis.x),
            f64::from(axis.y),
            f64::from(axis.z),
        )));
        let w = axis.cross(u);
        let ring = |k: u16| {
            let angle = std::f32::consts::TAU * f32::from(k) / f32::from(sides);
            u * angle.cos() + w * angle.sin()
        };
        // The side: two rings of radial normals
        let first = self.reserve(2 * usize::from(sides + 1), 6 * usize::from(sides));
        for k in 0..=sides {
            let n = ring(k);
            self.vertex(a + n * radius, V2::ZERO, color, n);
            self.vertex(b + n * radius, V2::ZERO, color, n);
        }
        let mesh = self.mesh();
        for k in 0..sides {
            let i = first + 2 * k;
            mesh.indices.extend([i, i + 1, i + 3, i, i + 3, i + 2]);
        }
        if caps {
            for (center, normal) in [(a, -axis), (b, axis)] {
                let rim: Vec<V3> = (0..sides).map(|k| center + ring(k) * radius).collect();
                self.polygon(&rim, color, normal);
            }
        }
    }
}

/// A unit sphere's vertices (each its own normal) and triangles.
pub(crate) struct SphereTemplate {
    normals: Vec<V3>,
    indices: Vec<u16>,
}

impl SphereTemplate {
    /// A sphere of `rings` bands of latitude and `slices` of longitude.
    #[must_use]
    pub fn new(rings: u16, slices: u16) -> Self {
        use std::f32::consts::{PI, TAU};
        let mut normals = Vec::with_capacity(usize::from((rings + 1) * (slices + 1)));
        for i in 0..=rings {
            let polar = PI * f32::from(i) / f32::from(rings);
            for j in 0..=slices {
                let azimuth = TAU * f32::from(j) / f32::from(slices);
                normals.push(vec3(
                    polar.sin() * azimuth.cos(),
                    polar.cos(),
                    polar.sin() * azimuth.sin(),
                ));
            }
        }
        let mut indices = Vec::with_capacity(usize::from(rings * slices) * 6);
        let row = slices + 1;
        for i in 0..rings {
            for j in 0..slices {
                let a = i * row + j;
                let b = a + row;
                indices.extend([a, b, a + 1, a + 1, b, b + 1]);
            }
        }
        Self { normals, indices }
    }
}

/// Spheres at four levels of detail, chosen by their size on the screen.
pub(crate) struct Spheres {
    levels: [SphereTemplate; 4],
}

impl Spheres {
    /// Build the templates.
    #[must_use]
    pub fn new() -> Self {
        Self {
            levels: [
                SphereTemplate::new(4, 6),
                SphereTemplate::new(8, 12),
                SphereTemplate::new(14, 22),
                SphereTemplate::new(24, 40),
            ],
        }
    }

    /// Return the template for a sphere `pixels` in radius on the screen.
    #[must_use]
    pub fn for_size(&self, pixels: f32) -> &SphereTemplate {
        let level = match pixels {
            p if p < 6.0 => 0,
            p if p < 16.0 => 1,
            p if p < 48.0 => 2,
            _ => 3,
        };
        &self.levels[level]
    }
}

/// Sides of a drawn cylinder.
const CYLINDER_SIDES: u16 = 40;
/// The colour of static shapes: a steel blue-grey.
const SHAPE_COLOR: [f32; 3] = [0.5, 0.55, 0.62];
/// The colour of panels and grids.
const PANEL_COLOR: [f32; 3] = [0.55, 0.65, 0.8];

/// One plane, clipped to the bounds, ready to draw.
pub(crate) struct Panel {
    /// The plane.
    pub plane: Plane,
    /// The polygon of the plane inside the bounds.
    pub outline: Vec<V3>,
    /// Grid lines across it.
    pub grid: Vec<(V3, V3)>,
    /// How brightly the key light of a default view falls on it, in `[0, 1]`.
    pub shade: f32,
}

/// The static part of a scene, built once: panels, cylinders and polygons.
pub(crate) struct StaticScene {
    /// The planes.
    pub panels: Vec<Panel>,
    /// Capped cylinders, opaque and lit: ends and radius.
    cylinders: Vec<(V3, V3, f32)>,
    /// The faces of the infinite cylinders inside the room, opaque and lit: each face's
    /// vertices and their normals.
    tubes: Vec<(Vec<V3>, Vec<V3>)>,
    /// Polygons: vertices and normal.
    polygons: Vec<(Vec<V3>, V3)>,
}

impl StaticScene {
    /// Clip the scene's unbounded shapes to `clip` and keep everything in `f32`.
    #[must_use]
    pub fn new(scene: &Scene, clip: &Aabb) -> Self {
        let panels = scene
            .planes
            .iter()
            .filter_map(|p| panel(&p.shape, clip))
            .collect();
        let mut cylinders = Vec::new();
        let mut tubes = Vec::new();
        let planes: Vec<Plane> = scene.planes.iter().map(|p| p.shape).collect();
        for c in &scene.cylinders {
            match c.shape {
                Cylinder::Capped(capped) => {
                    cylinders.push((v3(capped.a), v3(capped.b), capped.radius as f32));
                }
                Cylinder::Infinite(infinite) => {
                    // The part inside the box and the room's planes, each vertex with the
                    // tube's radial normal
                    for face in clip.clip_tube(&infinite, &planes, CYLINDER_SIDES) {
                        let normals = face
                            .iter()
                            .map(|&p| v3(c.shape.point_proximity(p).normal))
                            .collect();
                        tubes.push((face.into_iter().map(v3).collect(), normals));
                    }
                }
            }
        }
        let polygons = scene
            .polygons
            .iter()
            .map(|p| {
                let vertices = p.shape.vertices().iter().map(|&v| v3(v)).collect();
                (vertices, v3(p.shape.normal()))
            })
            .collect();
        Self {
            panels,
            cylinders,
            tubes,
            polygons,
        }
    }

    /// Add the cylinders to `batch` (lit, opaque).
    pub fn opaque(&self, batch: &mut Batch) {
        let color = rgba(SHAPE_COLOR, 1.0);
        for &(a, b, radius) in &self.cylinders {
            batch.cylinder(a, b, radius, CYLINDER_SIDES, true, color);
        }
        for (face, normals) in &self.tubes {
            batch.fan(face, color, |k| normals[k]);
        }
    }

    /// Add the polygons to `batch` (lit, blended), the farthest from `eye` first.
    pub fn polygon_fills(&self, eye: Vec3, batch: &mut Batch) {
        let color = rgba([0.45, 0.6, 0.8], 0.5);
        for k in back_to_front(self.polygons.iter().map(|(v, _)| v.as_slice()), eye) {
            let (vertices, normal) = &self.polygons[k];
            batch.polygon(vertices, color, *normal);
        }
    }

    /// Draw the polygons' edges as lines with the material in use.
    pub fn polygon_edges(&self) {
        let color = Color::new(0.75, 0.85, 1.0, 0.9);
        for (vertices, _) in &self.polygons {
            for (k, &a) in vertices.iter().enumerate() {
                draw_line_3d(a, vertices[(k + 1) % vertices.len()], color);
            }
        }
    }

    /// Add the panels the camera at `eye` looks at from their front to `batch` (flat,
    /// blended). Panels seen from behind are left out, so that the walls between the camera
    /// and the scene do not veil it.
    pub fn panel_fills(&self, eye: Vec3, batch: &mut Batch) {
        let outlines = self.panels.iter().map(|p| p.outline.as_slice());
        for k in back_to_front(outlines, eye) {
            let panel = &self.panels[k];
            if !panel.faces(eye) {
                continue;
            }
            let shade = 0.6 + 0.4 * panel.shade;
            let rgb = PANEL_COLOR.map(|c| c * shade);
            batch.polygon(&panel.outline, rgba(rgb, 0.13), v3(panel.plane.normal));
        }
    }

    /// Draw the panels' grids and edges as lines with the default material: grids on the
    /// panels seen from the front, only a faint outline on the others.
    pub fn panel_lines(&self, eye: Vec3) {
        let grid = Color::new(0.55, 0.66, 0.85, 0.16);
        let edge = Color::new(0.6, 0.72, 0.92, 0.45);
        let back = Color::new(0.6, 0.72, 0.92, 0.14);
        for panel in &self.panels {
            let front = panel.faces(eye);
            if front {
                for &(a, b) in &panel.grid {
                    draw_line_3d(a, b, grid);
                }
            }
            let n = panel.outline.len();
            for k in 0..n {
                let color = if front { edge } else { back };
                draw_line_3d(panel.outline[k], panel.outline[(k + 1) % n], color);
            }
        }
    }
}

impl Panel {
    /// Return true when the eye is on the front side of the plane.
    fn faces(&self, eye: Vec3) -> bool {
        self.plane.signed_distance(eye) > 0.0
    }
}

/// Return the indices of `polygons` ordered by the distance of their centres from `eye`,
/// the farthest first: the order to blend them in.
fn back_to_front<'a>(polygons: impl Iterator<Item = &'a [V3]>, eye: Vec3) -> Vec<usize> {
    let eye = v3(eye);
    let mut order: Vec<(f32, usize)> = polygons
        .enumerate()
        .map(|(k, vertices)| {
            let center = vertices.iter().copied().sum::<V3>() / vertices.len().max(1) as f32;
            (center.distance_squared(eye), k)
        })
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    order.into_iter().map(|(_, k)| k).collect()
}

/// Clip `plane` to `clip` and lay a grid on it; `None` when it misses the box.
fn panel(plane: &Plane, clip: &Aabb) -> Option<Panel> {
    let outline = clip.clip_plane(plane);
    if outline.len() < 3 {
        return None;
    }
    let (u, v) = plane_axes(plane.normal);
    let extent = |axis: Vec3| {
        let (lo, hi) = outline
            .iter()
            .map(|p| p.dot(axis))
            .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            });
        (lo, hi)
    };
    let (u_lo, u_hi) = extent(u);
    let (v_lo, v_hi) = extent(v);
    let spacing = nice_spacing((u_hi - u_lo).max(v_hi - v_lo) / 12.0);
    // Lines through round coordinates: the world origin projected on the plane is on a line
    let origin = plane.normal * plane.normal.dot(plane.point);
    let mut grid = Vec::new();
    for (across, along, lo, hi) in [(u, v, u_lo, u_hi), (v, u, v_lo, v_hi)] {
        let first = (lo / spacing).ceil() as i64;
        let last = ((hi / spacing).floor() as i64).min(first + 200);
        for k in first..=last {
            let point = origin + across * (k as Real * spacing);
            if let Some((a, b)) = clip.clip_line(point, along) {
                grid.push((v3(a), v3(b)));
            }
        }
    }
    let light = Vec3::new(-0.3, 0.85, 0.45).normalize();
    Some(Panel {
        plane: *plane,
        outline: outline.into_iter().map(v3).collect(),
        grid,
        shade: plane.normal.dot(light).max(0.0) as f32,
    })
}

/// Return the number of the form 1, 2 or 5 times a power of ten nearest above `x` (> 0).
#[must_use]
pub(crate) fn nice_spacing(x: Real) -> Real {
    let power = 10f64.powf(x.log10().floor());
    let m = x / power;
    let step = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    step * power
}

/// A camera-facing square of half-size `half` at `center`, with `right` and `up` the
/// camera's unit axes.
#[must_use]
pub(crate) fn billboard(center: V3, half: f32, right: V3, up: V3) -> [V3; 4] {
    [
        center + (-right - up) * half,
        center + (right - up) * half,
        center + (right + up) * half,
        center + (-right + up) * half,
    ]
}

/// A colour for a ball without one: a palette of ten distinct hues (Tableau 10), by ball
/// number.
#[must_use]
pub(crate) fn palette(index: usize) -> [f32; 3] {
    const SRGB: [u32; 10] = [
        0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F, 0xEDC948, 0xB07AA1, 0xFF9DA7, 0x9C755F,
        0xBAB0AC,
    ];
    let c = SRGB[index % SRGB.len()];
    [(c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF].map(|b| b as f32 / 255.0)
}

/// Return `a` blended towards `b` by `t` in `[0, 1]`.
#[must_use]
pub(crate) fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_is_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_spacing(0.7), 1.0);
        assert_eq!(nice_spacing(1.5), 2.0);
        assert_eq!(nice_spacing(45.0), 50.0);
        assert!((nice_spacing(0.003) - 0.005).abs() < 1e-15);
    }

    #[test]
    fn a_sphere_template_has_unit_normals_and_valid_triangles() {
        let t = SphereTemplate::new(8, 12);
        assert!(t.normals.iter().all(|n| (n.length() - 1.0).abs() < 1e-5));
        assert_eq!(t.indices.len(), 8 * 12 * 6);
        assert!(t.indices.iter().all(|&i| usize::from(i) < t.normals.len()));
    }

    #[test]
    fn palette_colours_are_distinct_and_in_range() {
        let colors: Vec<_> = (0..10).map(palette).collect();
        for (i, a) in colors.iter().enumerate() {
            assert!(a.iter().all(|c| (0.0..=1.0).contains(c)));
            assert!(colors[i + 1..].iter().all(|b| a != b));
        }
    }
}
