//! The stepper: closed-form outcomes (`physics`), resting contact and the budget (`resting`),
//! what a ball stopped by the budget reports and takes away (`budget`), inelastic impacts in
//! crowds (`crowds`), sleeping (`sleep`),
//! restitution (`restitution`), spin (`spin`), friction at impacts (`friction`), motion on a
//! surface in closed form (`surface`), long steps (`long_steps`), determinism and snapshots
//! (`determinism`), bad values from code (`bad_input`), and random worlds checked against brute
//! force (`invariants`, whose soak run CI starts with
//! `cargo test --release --test step -- --ignored soak`). One test binary, so that `cargo test`
//! builds and links it once.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod budget;
mod crowds;
mod determinism;
mod friction;
mod invariants;
mod long_steps;
mod physics;
mod resting;
mod restitution;
mod sleep;
mod spin;
mod stacks;
mod surface;
