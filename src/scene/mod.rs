//! Scenes: generators that place many balls from a few numbers.

mod generators;

pub use generators::{GeneratorError, MAX_GENERATED, gas_box_side, lattice, random_block};
