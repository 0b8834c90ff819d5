//! Scenes: generators that place many balls from a few numbers.

mod generators;

pub use generators::{GeneratorError, gas_box_side, lattice, random_block};
