//! Scenes: RON files of balls and shapes, checked and built into worlds, and the generators
//! that place many balls from a few numbers; and [`Snapshot`]s, the whole state of a world as
//! RON, saved mid-run and loaded back bit for bit.
//!
//! ```
//! use toibox::scene::Scene;
//!
//! let scene = Scene::parse(
//!     "Scene(dt: 0.01, gravity: (0.0, 0.0, 0.0), balls: [
//!         (pos: (-2.0, 0.0, 0.0), vel: (1.0, 0.0, 0.0), radius: 0.5),
//!         (pos: (2.0, 0.0, 0.0), vel: (-1.0, 0.0, 0.0), radius: 0.5, name: \"right\"),
//!     ])",
//!     "head-on.ron",
//! )
//! .unwrap();
//! let mut world = scene.build();
//! for _ in 0..200 {
//!     world.sim.step(scene.dt).unwrap();
//! }
//! // Equal masses, elastic, head-on: they swapped velocities at t = 1.5
//! let v = world.sim.world.get::<&toibox::Velocity>(world.balls[0]).unwrap().0;
//! assert!((v.x + 1.0).abs() < 1e-12);
//!
//! let error = Scene::parse("Scene(dt: 0.0)", "bad.ron").unwrap_err();
//! assert_eq!(error.to_string(), "bad.ron: dt: is 0; allowed: a finite number > 0");
//! ```

mod check;
mod error;
mod file;
mod generators;
mod load;
mod snapshot;

pub use error::{ReadError, SceneError, ValueError};
pub use file::{
    BallEntry, CylinderEntry, DEFAULT_STEPS, GeneratorBox, GeneratorEntry, PlaneEntry,
    PolygonEntry, SceneFile,
};
pub use generators::{
    Corner, GeneratorError, MAX_GENERATED, MAX_MAGNITUDE, gas_box_side, lattice, random_block,
};
pub use load::{BallSource, Fixed, MAX_BALLS, MAX_FILE_BYTES, Scene, SceneItem, SceneWorld};
/// RON's error, the cause of a [`SceneError::Syntax`].
pub use ron::Error as RonError;
pub use snapshot::{BallState, Snapshot, Static};
