//! The front ends, run as a user runs them: the command line's output, JSON and errors
//! (`cli`), and the viewer's screenshots checked pixel by pixel (`viewer`, with the feature
//! `viewer`). One test binary, so that `cargo test` builds and links it once.

mod cli;
#[cfg(feature = "viewer")]
mod viewer;
