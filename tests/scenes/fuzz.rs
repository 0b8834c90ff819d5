//! Mutated scene text fed to the loader: whatever the bytes, `Scene::parse` (and `Scene::load`
//! for bytes that are not UTF-8) returns a scene or a short error naming the source, never a
//! panic.
//!
//! The seeds are the demo scenes, the error corpus `tests/scene_errors/` and the fuzz corpus
//! `tests/fuzz_corpus/`. A case takes one seed and applies a few mutations: bit flips,
//! deletions, insertions of bytes and of troublesome tokens (huge and tiny numbers, NaN, deep
//! nesting, long strings, counts beyond the limits), a number replaced by such a token, a range
//! repeated, a splice with another seed, a truncation. Inputs stay below [`MAX_INPUT`] bytes, so
//! a case is bounded by the loader's own limits; a hang shows as a run that does not end.
//!
//! `cargo test` runs [`DEFAULT_CASES`] seeded cases. The ignored test runs fresh seeds for
//! `TOIBOX_FUZZ_SECONDS` seconds (default 60), as CI does:
//!
//! ```text
//! TOIBOX_FUZZ_SECONDS=60 cargo test --release --test scenes -- --ignored fuzz::
//! ```
//!
//! A failure prints the seed and the smallest input found; add that input to
//! `tests/scene_errors/` with its expect line once the loader refuses it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use toibox::scene::{Scene, SceneError};

/// Cases of the default test.
const DEFAULT_CASES: u32 = 2_000;

/// Cases per runner of the timed test, between looks at the clock.
const CASES_PER_ROUND: u32 = 500;

/// Largest mutated input, in bytes.
const MAX_INPUT: usize = 256 << 10;

/// Most lines an error message may take, as in the error corpus.
const MAX_LINES: usize = 3;

/// The name the loader is given for parsed text.
const SOURCE: &str = "fuzz-case.ron";

/// Tokens that stress numbers, counts, nesting, strings and the RON grammar.
const TOKENS: &[&str] = &[
    "1e308",
    "-1e308",
    "1e309",
    "-0.0",
    "5e-324",
    "1e-320",
    "1e-100",
    "1e9",
    "1000000001.0",
    "NaN",
    "inf",
    "-inf",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "340282366920938463463374607431768211456",
    "4000000000",
    "0x7fffffffffffffff",
    "0b1",
    "1_000",
    "count: 4000000000",
    "count: 10000001",
    "count: 100000",
    "count: 18446744073709551615",
    "radius: 1e-100",
    "radius: 1e-30",
    "radius: 1e9",
    "speed: 1e308",
    "min: (-1e9, -1e9, -1e9)",
    "max: (1e9, 1e9, 1e9)",
    "max: (1e9, 1e-100, 1e-100)",
    "pos: (1e9, 1e9, 1e9)",
    "steps: 18446744073709551615",
    "dt: 5e-324",
    "toi: Sliced(slices: 4000000000)",
    "toi: SlicedBisect(slices: 18446744073709551615, tolerance: 5e-324)",
    "(pos: (0.0, 0.0, 0.0), radius: 0.5),",
    "Lattice(min: (0.0, 0.0, 0.0), max: (1.0, 1.0, 1.0), count: 100000, radius: 1e-100, speed: 0.0),",
    "Random(min: (0.0, 0.0, 0.0), max: (1.0, 1.0, 1.0), count: 100000, radius: 1e-100, speed: 0.0),",
    "Lattice(min: (0.0, 0.0, 0.0), max: (1e9, 1e9, 1e-90), count: 100, radius: 1e-100, speed: 0.0),",
    "Capped(a: (0.0, 0.0, 0.0), b: (0.0, 0.0, 5e-324), radius: 1e308),",
    "Infinite(point: (0.0, 0.0, 0.0), axis: (5e-324, 0.0, 0.0), radius: 1.0),",
    "(vertices: [(0.0, 0.0, 0.0), (1e9, 0.0, 0.0), (0.0, 1e-300, 0.0)]),",
    "(point: (0.0, 0.0, 0.0), normal: (5e-324, 0.0, 0.0)),",
    "generators: [Lattice(min: (0.0, 0.0, 0.0), max: (1.0, 1.0, 1.0), count: 100000, radius: 1e-100, speed: 0.0)],",
    "generators: [Random(min: (0.0, 0.0, 0.0), max: (1.0, 1.0, 1.0), count: 100000, radius: 1e-100, speed: 0.0)],",
    "generators: [Lattice(min: (0.0, 0.0, 0.0), max: (1e9, 1e9, 1e-90), count: 100, radius: 1e-100, speed: 0.0)],",
    "balls: [(pos: (-1e9, 1e9, -0.0), radius: 1e-100, mass: 5e-324, restitution: -0.0, name: \"\\u{0}\", color: (NaN, 0.0, 1.0))],",
    "Some(",
    "None",
    "()",
    "[]",
    "{}",
    ",",
    ":",
    "\"",
    "r#\"",
    "\"#",
    "'",
    "b\"\\xff\"",
    "\"\\u{10FFFF}\"",
    "\"\\u{D800}\"",
    "\\",
    "é",
    "🎱",
    "\u{0}",
    "\u{feff}",
    "\r\n",
    "/*",
    "*/",
    "//",
    "#![enable(implicit_some)]",
    "#![enable(unwrap_newtypes)]",
    "#![enable(unwrap_variant_newtypes)]",
    "#![enable(explicit_struct_names)]",
    "Scene",
    "Lattice(",
    "Random(",
    "Capped(",
    "Infinite(",
    "balls: [",
    "generators: [",
    "true",
    "r#dt",
];

/// Where `Mutation::InsertAfter` inserts: entries and fields land where they parse.
const ANCHORS: &[&str] = &[
    "Scene(",
    "balls: [",
    "generators: [",
    "planes: [",
    "cylinders: [",
    "polygons: [",
];

/// One change to a seed. Positions and choices are `Index`es, taken modulo the current length.
#[derive(Clone, Debug)]
enum Mutation {
    /// Flip one bit of a byte.
    Flip { at: Index, bit: u8 },
    /// Delete up to `len` bytes.
    Delete { at: Index, len: usize },
    /// Insert raw bytes.
    InsertBytes { at: Index, bytes: Vec<u8> },
    /// Insert a token.
    InsertToken { at: Index, token: Index },
    /// Insert a token after the first `anchor` (a list's or the scene's opening), if any.
    InsertAfter { anchor: Index, token: Index },
    /// Replace a number of the text by a token.
    ReplaceNumber { nth: Index, token: Index },
    /// Insert brackets or parentheses nested `depth` deep.
    Nest { at: Index, open: u8, depth: usize },
    /// Insert a string of `len` characters `c`.
    LongString { at: Index, c: char, len: usize },
    /// Repeat a range `times` times.
    Repeat {
        from: Index,
        len: usize,
        times: usize,
    },
    /// Keep the text before `at`, then another seed from `from` on.
    Splice { at: Index, seed: Index, from: Index },
    /// Cut the text at `at`.
    Truncate { at: Index },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<Index>(), 0..8u8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        2 => (any::<Index>(), 1..64usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        1 => (any::<Index>(), proptest::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, bytes)| Mutation::InsertBytes { at, bytes }),
        3 => (any::<Index>(), any::<Index>())
            .prop_map(|(at, token)| Mutation::InsertToken { at, token }),
        2 => (any::<Index>(), any::<Index>())
            .prop_map(|(anchor, token)| Mutation::InsertAfter { anchor, token }),
        4 => (any::<Index>(), any::<Index>())
            .prop_map(|(nth, token)| Mutation::ReplaceNumber { nth, token }),
        1 => (any::<Index>(), prop::sample::select(b"([{".to_vec()), 1..2_000usize)
            .prop_map(|(at, open, depth)| Mutation::Nest { at, open, depth }),
        1 => (any::<Index>(), prop::sample::select(vec!['a', 'é', '🎱', '"', '\\', '\n']), 1..100_000usize)
            .prop_map(|(at, c, len)| Mutation::LongString { at, c, len }),
        1 => (any::<Index>(), 1..200usize, 1..50usize)
            .prop_map(|(from, len, times)| Mutation::Repeat { from, len, times }),
        1 => (any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(at, seed, from)| Mutation::Splice { at, seed, from }),
        1 => any::<Index>().prop_map(|at| Mutation::Truncate { at }),
    ]
}

/// A position in `0..=len`.
fn position(at: &Index, len: usize) -> usize {
    at.index(len + 1)
}

/// The byte ranges of the numbers in `text`: a digit run with its sign, point and exponent.
fn numbers(text: &[u8]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let starts = text[i].is_ascii_digit() && (i == 0 || !text[i - 1].is_ascii_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let start = if i > 0 && text[i - 1] == b'-' {
            i - 1
        } else {
            i
        };
        let mut end = i;
        while end < text.len()
            && (text[end].is_ascii_alphanumeric()
                || matches!(text[end], b'.' | b'_')
                || (matches!(text[end], b'-' | b'+') && matches!(text[end - 1], b'e' | b'E')))
        {
            end += 1;
        }
        found.push((start, end));
        i = end;
    }
    found
}

/// Apply `change` to `text`.
fn apply(text: &mut Vec<u8>, change: &Mutation, seeds: &[Vec<u8>]) {
    let len = text.len();
    match change {
        Mutation::Flip { at, bit } => {
            if len > 0 {
                text[at.index(len)] ^= 1 << bit;
            }
        }
        Mutation::Delete { at, len: n } => {
            let start = position(at, len);
            text.drain(start..(start + n).min(len));
        }
        Mutation::InsertBytes { at, bytes } => {
            let at = position(at, len);
            text.splice(at..at, bytes.iter().copied());
        }
        Mutation::InsertToken { at, token } => {
            let at = position(at, len);
            text.splice(at..at, token.get(TOKENS).bytes());
        }
        Mutation::InsertAfter { anchor, token } => {
            let anchor = anchor.get(ANCHORS).as_bytes();
            if let Some(at) = text.windows(anchor.len()).position(|w| w == anchor) {
                let at = at + anchor.len();
                text.splice(at..at, token.get(TOKENS).bytes());
            }
        }
        Mutation::ReplaceNumber { nth, token } => {
            let found = numbers(text);
            if !found.is_empty() {
                let (start, end) = *nth.get(&found);
                text.splice(start..end, token.get(TOKENS).bytes());
            }
        }
        Mutation::Nest { at, open, depth } => {
            let at = position(at, len);
            text.splice(at..at, std::iter::repeat_n(*open, *depth));
        }
        Mutation::LongString { at, c, len: n } => {
            let at = position(at, len);
            let s: String = std::iter::once('"')
                .chain(std::iter::repeat_n(*c, *n))
                .chain(std::iter::once('"'))
                .collect();
            text.splice(at..at, s.into_bytes());
        }
        Mutation::Repeat {
            from,
            len: n,
            times,
        } => {
            if len > 0 {
                let start = from.index(len);
                let piece = text[start..(start + n).min(len)].to_vec();
                let repeated = piece.repeat(*times);
                text.splice(start..start, repeated);
            }
        }
        Mutation::Splice { at, seed, from } => {
            let other = seed.get(seeds);
            text.truncate(position(at, len));
            text.extend_from_slice(&other[position(from, other.len())..]);
        }
        Mutation::Truncate { at } => text.truncate(position(at, len)),
    }
    text.truncate(MAX_INPUT);
}

/// The seed files: `*.ron` in the demo scenes, the error corpus and the fuzz corpus.
fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<PathBuf> = ["scenes", "tests/scene_errors", "tests/fuzz_corpus"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).expect("a seed directory"))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "ron"))
        .collect();
    paths.sort();
    let seeds: Vec<Vec<u8>> = paths
        .iter()
        .map(|path| std::fs::read(path).expect("a readable seed"))
        .collect();
    assert!(seeds.len() >= 90, "only {} seeds", seeds.len());
    seeds
}

/// A mutated seed.
fn case() -> impl Strategy<Value = (Index, Vec<Mutation>)> {
    (any::<Index>(), proptest::collection::vec(mutation(), 1..6))
}

/// The bytes of a case.
fn mutated(seeds: &[Vec<u8>], (seed, changes): &(Index, Vec<Mutation>)) -> Vec<u8> {
    let mut text = seed.get(seeds).clone();
    for change in changes {
        apply(&mut text, change, seeds);
    }
    text
}

/// Check that `error` names `source` first, is filled in, and is short.
fn check_error(error: &SceneError, source: &str) -> Result<(), String> {
    let text = error.to_string();
    let rest = text
        .strip_prefix(source)
        .ok_or_else(|| format!("the message does not start with {source}: {text}"))?;
    if rest.trim_start_matches(':').trim().is_empty() {
        return Err(format!("the message says nothing: {text:?}"));
    }
    let filled = match error {
        SceneError::Read { file, reason } => file == source && !reason.to_string().is_empty(),
        SceneError::Syntax {
            file,
            line,
            column,
            message,
            ..
        } => file == source && *line >= 1 && *column >= 1 && !message.is_empty(),
        SceneError::Value {
            file,
            field,
            message,
        } => file == source && !field.is_empty() && message.contains("allowed"),
    };
    if !filled {
        return Err(format!("the error is not filled in: {error:?}"));
    }
    let lines = text.lines().count();
    if lines > MAX_LINES {
        return Err(format!("the message takes {lines} lines: {text}"));
    }
    Ok(())
}

/// Load `bytes` as the loader would read them; a file for bytes that are not UTF-8.
fn check_bytes(bytes: &[u8]) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    if let Err(error) = Scene::parse(&text, SOURCE) {
        check_error(&error, SOURCE).map_err(TestCaseError::fail)?;
    }
    if std::str::from_utf8(bytes).is_err() {
        let path = std::env::temp_dir().join(format!(
            "toibox-fuzz-{}-{:?}.ron",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&path, bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let outcome = Scene::load(&path);
        std::fs::remove_file(&path).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let error = outcome
            .err()
            .ok_or_else(|| TestCaseError::fail("bytes that are not UTF-8 loaded"))?;
        let source = path.display().to_string();
        check_error(&error, &source).map_err(TestCaseError::fail)?;
        if !matches!(error, SceneError::Read { .. }) {
            return Err(TestCaseError::fail(format!("not a read error: {error}")));
        }
    }
    Ok(())
}

/// A runner of `cases` cases from `seed`, persisting nothing.
fn runner(cases: u32, seed: u64) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 2_000,
        ..Config::default()
    };
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &key))
}

/// Run `cases` cases from `seed`; on failure, panic with the seed and the smallest input.
fn run(seeds: &[Vec<u8>], cases: u32, seed: u64) {
    let strategy = case();
    let outcome = runner(cases, seed).run(&strategy, |value| check_bytes(&mutated(seeds, &value)));
    match outcome {
        Ok(()) => {}
        Err(TestError::Fail(reason, value)) => {
            let bytes = mutated(seeds, &value);
            panic!(
                "seed {seed}: {reason}\ninput ({} bytes): {:?}",
                bytes.len(),
                String::from_utf8_lossy(&bytes)
            );
        }
        Err(TestError::Abort(reason)) => panic!("seed {seed}: aborted: {reason}"),
    }
}

#[test]
fn mutated_scenes_load_or_fail_clearly() {
    run(&seeds(), DEFAULT_CASES, 0x7013_b0c5);
}

#[test]
#[ignore = "runs for TOIBOX_FUZZ_SECONDS seconds (default 60); CI runs it"]
fn mutated_scenes_for_a_time_budget() {
    let seconds: u64 = std::env::var("TOIBOX_FUZZ_SECONDS")
        .map(|s| s.parse().expect("TOIBOX_FUZZ_SECONDS is a whole number"))
        .unwrap_or(60);
    let budget = Duration::from_secs(seconds);
    let seeds = seeds();
    let start = Instant::now();
    // Fresh seeds each run, printed so that a failure can be replayed
    let first = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    println!("fuzzing the scene loader for {seconds} s from seed {first}");
    let mut rounds = 0u64;
    while start.elapsed() < budget {
        run(&seeds, CASES_PER_ROUND, first.wrapping_add(rounds));
        rounds += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cases = rounds * u64::from(CASES_PER_ROUND);
    println!(
        "{cases} cases in {elapsed:.1} s ({:.0} per second), {rounds} seeds from {first}",
        cases as f64 / elapsed
    );
}
