//! Shapes and times of impact: static queries of every shape (`geometry`), the closed forms
//! on hand-computed cases (`analytic`), and seeded property tests of every strategy
//! (`properties`). One test binary, so that `cargo test` builds and links it once.

#[path = "../common/mod.rs"]
mod common;

mod analytic;
mod geometry;
mod properties;
