//! Scene files: every demo scene loaded, stepped and compared (`demo`), the corpus of bad
//! files and their messages (`errors`), mutated scene text fed to the loader (`fuzz`,
//! ignored; CI runs it with `cargo test --release --test scenes -- --ignored`), and the judge
//! on balls at rest, tunnelling balls and the demo scenes at steps up to 10 (`judge`). One
//! test binary, so that `cargo test` builds and links it once.

#[path = "../common/mod.rs"]
mod common;

mod demo;
mod errors;
mod fuzz;
mod judge;
