//! Why a scene could not be loaded: the errors, and what RON's syntax errors mean for a scene.

use crate::math::Real;

/// Why a scene could not be loaded. The message names the file and either the line and column
/// (syntax and types) or the field path (values), and says what is allowed.
#[derive(Debug)]
pub enum SceneError {
    /// The file could not be read.
    Read {
        /// The file.
        file: String,
        /// What went wrong; [`source`](std::error::Error::source) gives it too.
        reason: ReadError,
    },
    /// The text is not a scene: malformed RON, an unknown field, a wrong type.
    Syntax {
        /// The file.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What is wrong and what is allowed.
        message: String,
        /// RON's own error (boxed: it is large); [`source`](std::error::Error::source) gives
        /// it unboxed.
        cause: Box<ron::Error>,
    },
    /// A value is out of its range, or things start overlapping.
    Value {
        /// The file.
        file: String,
        /// The field path, e.g. `balls[3].radius`.
        field: String,
        /// What is wrong and what is allowed.
        message: String,
    },
}

impl std::fmt::Display for SceneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Read { file, reason } => write!(f, "{file}: cannot read the scene: {reason}"),
            Self::Syntax {
                file,
                line,
                column,
                message,
                ..
            } => write!(f, "{file}:{line}:{column}: {message}"),
            Self::Value {
                file,
                field,
                message,
            } => write!(f, "{file}: {field}: {message}"),
        }
    }
}

impl std::error::Error for SceneError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read { reason, .. } => Some(reason),
            Self::Syntax { cause, .. } => Some(cause.as_ref()),
            Self::Value { .. } => None,
        }
    }
}

/// Why a scene file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file system refused: no such file, no permission, ...
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The path is a directory.
    #[error("it is a directory; allowed: a RON scene file")]
    Directory,
    /// The file is larger than a scene may be.
    #[error("it has {bytes} bytes; allowed: at most {max} (use generators for many balls)")]
    TooLarge {
        /// The file's size.
        bytes: u64,
        /// The largest size allowed, [`MAX_FILE_BYTES`](super::MAX_FILE_BYTES).
        max: u64,
    },
    /// The file is not UTF-8 text.
    #[error("{0}; allowed: UTF-8 text")]
    NotUtf8(#[from] std::string::FromUtf8Error),
}

/// A value of a scene that is out of its range, or things that start overlapping: the field
/// path and what is wrong and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ValueError {
    /// The field path, e.g. `balls[3].radius`.
    pub field: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl From<(String, String)> for ValueError {
    fn from((field, message): (String, String)) -> Self {
        Self { field, message }
    }
}

/// Say what RON's error means for a scene, where its own words say too little.
pub(super) fn syntax_message(code: &ron::Error) -> String {
    match code {
        ron::Error::Eof => "the file ends too early; allowed: a complete `Scene(...)` with every \
                            bracket and parenthesis closed"
            .to_owned(),
        ron::Error::IntegerOutOfBounds => "integer out of bounds; allowed: a whole number from \
                                           0 to 18446744073709551615 (counts, steps, seeds)"
            .to_owned(),
        ron::Error::MissingStructField { field, outer } => {
            let what = match outer.as_deref() {
                Some("Scene") => "the scene",
                Some("BallEntry") => "a ball",
                Some("GeneratorBox") => "a generator",
                Some("PlaneEntry") => "a plane",
                Some("PolygonEntry") => "a polygon",
                Some("Capped" | "Infinite") => "a cylinder",
                _ => "this entry",
            };
            format!(
                "missing field named `{field}`; allowed: {what} with a `{field}`, which has no default"
            )
        }
        ron::Error::SuggestRawIdentifier(name) if name.parse::<Real>().is_ok() => format!(
            "a number, {name}, where a field's name belongs; allowed: named fields, e.g. \
             `Sliced(slices: 150)`, `SlicedBisect(slices: 150, tolerance: 1e-9)`"
        ),
        ron::Error::ExpectedDifferentStructName {
            expected: "Scene",
            found,
        } => format!(
            "{code}: this file holds a `{found}(...)`, not a scene; allowed: a scene file, \
             `Scene(dt: ..., ...)`{}",
            if found == "Snapshot" {
                " (a snapshot is a world's saved state, read back by `Snapshot::from_ron`)"
            } else {
                ""
            }
        ),
        ron::Error::ExpectedNamedStructLike("Scene") => {
            format!("{code}: this is not a scene; allowed: a scene file, `Scene(dt: ..., ...)`")
        }
        other => other.to_string(),
    }
}
