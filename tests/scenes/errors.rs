//! The corpus of bad scene files: every file under `tests/scene_errors/` must be refused with a
//! short message that names the file and says what is wrong and what is allowed.
//!
//! # The expect line
//!
//! The first line of every corpus file is a comment of the form
//!
//! ```text
//! // expect: FRAGMENT | FRAGMENT | ...
//! ```
//!
//! The error's `Display` text must start with the file's path, and each fragment (trimmed, at
//! least one, none empty, none containing `|`) must appear verbatim in the rest of it, so a
//! fragment never matches the file's own name. By convention the fragments give the
//! `:LINE:COLUMN:` of syntax and type errors or the `field.path:` of value errors, what is
//! wrong, and the words saying what is allowed.

use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use toibox::Vec3;
use toibox::scene::{BallEntry, GeneratorBox, GeneratorEntry, Scene, SceneError, SceneFile};
use toibox::toi::ToiMode;

/// Where the corpus lives.
fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scene_errors")
}

/// The corpus files, sorted by name.
fn corpus_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("the corpus directory tests/scene_errors exists")
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// The name of a corpus file.
fn file_name(path: &Path) -> String {
    path.file_name()
        .expect("a corpus file has a name")
        .to_string_lossy()
        .into_owned()
}

/// The fragments of a file's expect line, or why it has none.
///
/// Reads bytes, so a corpus file that is not UTF-8 after its first line still has one.
fn expected_fragments(path: &Path) -> Result<Vec<String>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = std::str::from_utf8(first).map_err(|_| "its first line is not UTF-8".to_owned())?;
    let rest = first
        .trim_end_matches('\r')
        .strip_prefix("// expect:")
        .ok_or_else(|| format!("its first line is not `// expect: ...`: {first:?}"))?;
    let fragments: Vec<String> = rest.split('|').map(|f| f.trim().to_owned()).collect();
    if fragments.iter().any(String::is_empty) {
        return Err(format!("its expect line has an empty fragment: {first:?}"));
    }
    Ok(fragments)
}

/// Load `path`, turning a panic into an error message.
fn load_without_panic(path: &Path) -> Result<Result<Scene, SceneError>, String> {
    panic::catch_unwind(AssertUnwindSafe(|| Scene::load(path))).map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned())
    })
}

/// Most lines an error message may take.
const MAX_LINES: usize = 3;

/// Check one corpus file; on failure, say what is wrong.
fn check_corpus_file(path: &Path) -> Result<String, String> {
    let fragments = expected_fragments(path)?;
    let error = match load_without_panic(path) {
        Err(panic) => return Err(format!("loading it panicked: {panic}")),
        Ok(Ok(_)) => return Err("it loaded without an error".to_owned()),
        Ok(Err(error)) => error,
    };
    let text = error.to_string();
    let mut problems = Vec::new();
    let file = path.display().to_string();
    let rest = text.strip_prefix(&file).unwrap_or_else(|| {
        problems.push(format!("the message does not start with the file {file}"));
        &text
    });
    let structured = match &error {
        SceneError::Read { file: named, .. } | SceneError::Value { file: named, .. } => {
            named == &file
        }
        SceneError::Syntax {
            file: named,
            line,
            column,
            ..
        } => named == &file && *line >= 1 && *column >= 1,
    };
    if !structured {
        problems.push(format!("the error's fields are not filled in: {error:?}"));
    }
    for fragment in &fragments {
        if !rest.contains(fragment.as_str()) {
            problems.push(format!("the message lacks {fragment:?}"));
        }
    }
    let lines = text.lines().count();
    if lines > MAX_LINES {
        problems.push(format!(
            "the message takes {lines} lines; allowed: at most {MAX_LINES}"
        ));
    }
    if problems.is_empty() {
        Ok(text)
    } else {
        Err(format!("{}\n    message: {text}", problems.join("; ")))
    }
}

#[test]
fn every_corpus_file_is_refused_with_a_clear_message() {
    let mut failures = String::new();
    let mut checked = 0;
    for path in corpus_files() {
        let name = file_name(&path);
        checked += 1;
        match check_corpus_file(&path) {
            Ok(text) => println!("ok {name}: {text}"),
            Err(problem) => writeln!(failures, "{name}: {problem}").unwrap(),
        }
    }
    assert!(
        checked >= MIN_CHECKED_FILES,
        "{checked} corpus files were checked; expected at least {MIN_CHECKED_FILES}"
    );
    assert!(failures.is_empty(), "corpus files failed:\n{failures}");
}

/// Fewest files the corpus may hold.
const MIN_CORPUS_FILES: usize = 80;

/// Fewest corpus files checked.
const MIN_CHECKED_FILES: usize = 80;

#[test]
fn corpus_is_large_and_every_file_has_an_expect_line() {
    let files = corpus_files();
    assert!(
        files.len() >= MIN_CORPUS_FILES,
        "the corpus has {} files; expected at least {MIN_CORPUS_FILES}",
        files.len()
    );
    let mut failures = String::new();
    for path in &files {
        let name = file_name(path);
        if !name.ends_with(".ron") {
            writeln!(failures, "{name}: not a .ron file").unwrap();
        }
        if let Err(problem) = expected_fragments(path) {
            writeln!(failures, "{name}: {problem}").unwrap();
        }
    }
    assert!(
        failures.is_empty(),
        "corpus files are malformed:\n{failures}"
    );
}

#[test]
fn a_missing_file_is_a_read_error_naming_it() {
    let path = corpus_dir().join("no such scene.ron");
    let error = Scene::load(&path).unwrap_err();
    let file = path.display().to_string();
    assert!(
        matches!(&error, SceneError::Read { file: named, .. } if *named == file),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(text.starts_with(&format!("{file}: ")), "{text}");
    assert!(text.contains("cannot read the scene"), "{text}");
    // The cause is kept, typed: the file system's own error
    let source = std::error::Error::source(&error).expect("a cause");
    let io = source
        .downcast_ref::<toibox::scene::ReadError>()
        .and_then(|reason| std::error::Error::source(reason))
        .and_then(|cause| cause.downcast_ref::<std::io::Error>())
        .expect("an io::Error under the read error");
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    assert!(matches!(
        &error,
        SceneError::Read {
            reason: toibox::scene::ReadError::Io(_),
            ..
        }
    ));
}

#[test]
fn a_directory_is_a_read_error_naming_it() {
    let path = corpus_dir();
    let error = Scene::load(&path).unwrap_err();
    let file = path.display().to_string();
    assert!(
        matches!(&error, SceneError::Read { file: named, .. } if *named == file),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(text.starts_with(&format!("{file}: ")), "{text}");
    assert!(text.contains("directory"), "{text}");
    assert!(text.contains("allowed"), "{text}");
}

#[test]
fn a_file_of_zero_bytes_is_refused() {
    // The corpus's `empty.ron` holds its expect line; this one holds nothing at all.
    let path = std::env::temp_dir().join(format!("scene-errors-empty-{}.ron", std::process::id()));
    std::fs::write(&path, b"").unwrap();
    let outcome = load_without_panic(&path);
    std::fs::remove_file(&path).unwrap();
    let error = match outcome {
        Err(panic) => panic!("loading an empty file panicked: {panic}"),
        Ok(result) => result.unwrap_err(),
    };
    let file = path.display().to_string();
    assert!(
        matches!(&error, SceneError::Syntax { file: named, line: 1, column: 1, .. } if *named == file),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(text.starts_with(&format!("{file}:1:1: ")), "{text}");
    assert!(text.contains("Expected opening `(`"), "{text}");
}

#[test]
fn a_syntax_error_keeps_rons_own_error_as_its_cause() {
    for (text, expected) in [
        ("Scene(dt: 0.01, gravty: (0.0, 0.0, 0.0))", "gravty"),
        ("Scene(dt: 0.01, toi: Sliced(150))", "150"),
        ("Snapshot(balls: [])", "Snapshot"),
    ] {
        let error = Scene::parse(text, "inline.ron").unwrap_err();
        let SceneError::Syntax { cause, message, .. } = &error else {
            panic!("{text}: {error:?}");
        };
        let source = std::error::Error::source(&error).expect("a cause");
        let ron = source
            .downcast_ref::<toibox::scene::RonError>()
            .expect("RON's error");
        assert_eq!(ron, cause.as_ref(), "{text}");
        assert!(message.contains(expected), "{text}: {message}");
    }
}

/// A generator of `count` balls in the unit box at `z`.
fn generator_box(z: f64, count: u64) -> GeneratorBox {
    GeneratorBox {
        min: Vec3::new(0.0, 0.0, z),
        max: Vec3::new(1.0, 1.0, z + 1.0),
        count,
        radius: 0.1,
        speed: 0.0,
        seed: 0,
        restitution: None,
        friction: None,
        rolling_resistance: None,
        color: None,
    }
}

#[test]
fn a_count_of_a_trillion_is_refused_by_its_field() {
    // Built as serde would read it, so the check does not depend on the generator syntax
    let kinds: [fn(GeneratorBox) -> GeneratorEntry; 2] =
        [GeneratorEntry::Lattice, GeneratorEntry::Random];
    for kind in kinds {
        for (generators, field) in [
            (
                vec![kind(generator_box(0.0, 1_000_000_000_000))],
                "generators[0].count",
            ),
            (
                vec![
                    kind(generator_box(0.0, 1)),
                    kind(generator_box(2.0, 1_000_000_000_000)),
                ],
                "generators[1].count",
            ),
        ] {
            let file = SceneFile {
                name: String::new(),
                dt: 0.01,
                steps: None,
                gravity: Vec3::ZERO,
                toi: ToiMode::default(),
                restitution: 1.0,
                friction: 0.0,
                rolling_resistance: 0.0,
                rest_speed: None,
                balls: vec![BallEntry {
                    pos: Vec3::new(5.0, 5.0, 5.0),
                    vel: Vec3::ZERO,
                    spin: Vec3::ZERO,
                    radius: 0.5,
                    mass: None,
                    restitution: None,
                    friction: None,
                    rolling_resistance: None,
                    name: None,
                    color: None,
                }],
                generators,
                planes: Vec::new(),
                cylinders: Vec::new(),
                polygons: Vec::new(),
            };
            let toibox::scene::ValueError {
                field: path,
                message,
            } = Scene::from_file(&file).unwrap_err();
            assert_eq!(path, field, "{message}");
            assert!(
                message.contains("brings the scene to 100000000000"),
                "{message}"
            );
            assert!(message.contains("allowed"), "{message}");
        }
    }
}

#[test]
fn documented_generator_syntax_parses() {
    // The syntax of the format's documentation and of the shipped scenes
    let scene = Scene::parse(
        "Scene(dt: 0.01, generators: [
            Lattice(min: (-1.0, -1.0, -1.0), max: (1.0, 1.0, 1.0), count: 1000, radius: 0.05,
                    speed: 5.0, seed: 7),
            Random(min: (2.0, 0.0, 0.0), max: (4.0, 2.0, 2.0), count: 20, radius: 0.1,
                   speed: 1.0),
        ])",
        "generators.ron",
    )
    .unwrap();
    assert_eq!(scene.balls.len(), 1020);
    // And a count of 10^12 written in it is refused by its field
    let error = Scene::parse(
        "Scene(dt: 0.01, generators: [Random(min: (0.0, 0.0, 0.0), max: (1.0, 1.0, 1.0),
            count: 1000000000000, radius: 0.1, speed: 0.0)])",
        "huge.ron",
    )
    .unwrap_err();
    assert!(
        matches!(&error, SceneError::Value { field, .. } if field == "generators[0].count"),
        "{error:?}"
    );
}

#[test]
fn valid_scenes_load() {
    // The control cases: the corpus does not pass because everything fails
    let minimal = Scene::parse("Scene(dt: 0.01)", "minimal.ron").unwrap();
    assert_eq!(minimal.dt, 0.01);
    assert!(minimal.balls.is_empty());

    // Every section but the generators (see `documented_generator_syntax_parses`), with
    // things that touch but do not overlap
    let full = Scene::parse(
        "Scene(
            name: \"every section\",
            dt: 0.01,
            steps: 10,
            gravity: (0.0, -9.81, 0.0),
            toi: SlicedBisect(slices: 10, tolerance: 1e-9),
            restitution: 0.0,
            balls: [
                (pos: (-3.0, 0.5, 0.0), radius: 0.5, mass: 2.0, restitution: 1.0,
                 name: \"a\", color: (1.0, 0.0, 0.0)),
                (pos: (-2.0, 0.5, 0.0), vel: (1.0, 0.0, 0.0), radius: 0.5),
                (pos: (-5.0, 0.5, 0.0), radius: 0.5),
                (pos: (0.0, 0.5, 4.5), radius: 0.5),
            ],
            planes: [(point: (0.0, 0.0, 0.0), normal: (0.0, 1.0, 0.0))],
            cylinders: [
                Capped(a: (-6.0, 0.0, 0.0), b: (-6.0, 1.0, 0.0), radius: 0.5),
                Infinite(point: (0.0, 0.0, -10.0), axis: (1.0, 0.0, 0.0), radius: 0.5,
                         restitution: 1.0),
            ],
            polygons: [(vertices: [(-1.0, 0.0, 5.0), (1.0, 0.0, 5.0), (0.0, 1.0, 5.0)])],
        )",
        "full.ron",
    )
    .unwrap();
    assert_eq!(full.balls.len(), 4);
    assert_eq!(full.planes.len(), 1);
    assert_eq!(full.cylinders.len(), 2);
    assert_eq!(full.polygons.len(), 1);
}
