//! Engines in processes of their own: this program re-run with a hidden command that prints one
//! engine's figures as JSON, read back here.
//!
//! A child per engine keeps each engine's peak memory (`VmHWM`) its own, and keeps engines from
//! warming each other's caches and allocators.

use std::process::{Command, Stdio};

use serde::de::DeserializeOwned;

/// Run this program with `args` (a hidden command and its arguments), with standard error
/// passed through, and read its standard output as one JSON value. `what` names the run in
/// errors.
pub fn run<T: DeserializeOwned>(what: &str, args: &[String]) -> Result<T, String> {
    let program = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let output = Command::new(&program)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{what} failed: {}", output.status));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("{what} answered what is not its figures: {e}"))
}
