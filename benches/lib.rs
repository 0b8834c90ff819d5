//! toibox's benchmarks live in `toi.rs` and `step.rs` beside this file; this library is empty.
//! `cargo bench -p toibox-benches --bench toi` times every strategy on every pair kind,
//! `cargo bench -p toibox-benches --bench step` steps the elastic gases.
