//! Output files of the front ends (plots, tables, screenshots): checked before any work, and
//! written whole or not at all.
//!
//! [`check`] is meant for the first second of a command: a path whose extension does not fit
//! what it is for, or whose directory is missing or refuses a new file, is an error before a
//! long run, not after it. [`write_whole`] writes a file under a temporary name in the same
//! directory and renames it into place, so a reader never sees a partial file and a failure
//! leaves none behind.

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What an output file is for: each kind allows its own extensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// A plot of `compare --plot`.
    Plot,
    /// A table of `compare --csv`.
    Csv,
    /// A picture of the viewer's window (`view --screenshot`).
    Screenshot,
}

impl Output {
    /// Return the extensions this kind of file may have, lower case, without the dot.
    #[must_use]
    pub const fn extensions(self) -> &'static [&'static str] {
        match self {
            Self::Plot => &["png", "svg"],
            Self::Screenshot => &["png"],
            Self::Csv => &["csv"],
        }
    }

    /// Return the command-line option that names this kind of file.
    #[must_use]
    pub fn option(self) -> &'static str {
        match self {
            Self::Plot => "--plot",
            Self::Csv => "--csv",
            Self::Screenshot => "--screenshot",
        }
    }
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.option())
    }
}

/// Why an output file cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The path's extension is not one the kind of file allows (or it has none).
    #[error(
        "{}: {kind} cannot write this kind of file; allowed extensions: {}",
        path.display(),
        allowed(*kind)
    )]
    Extension {
        /// The path given.
        path: PathBuf,
        /// What the file is for.
        kind: Output,
    },
    /// The path names no file: it is empty, a root, or ends in `..`.
    #[error("{}: {kind} needs a file name", path.display())]
    NoFileName {
        /// The path given.
        path: PathBuf,
        /// What the file is for.
        kind: Output,
    },
    /// The directory the file would go in does not exist, or is not a directory.
    #[error("{}: cannot write: no directory {}", path.display(), dir.display())]
    NoDirectory {
        /// The path given.
        path: PathBuf,
        /// Its directory.
        dir: PathBuf,
    },
    /// The file, or a temporary file beside it, could not be created, written or renamed.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The path given.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

/// The allowed extensions of `kind`, as an error message lists them.
fn allowed(kind: Output) -> String {
    kind.extensions().join(", ")
}

/// Return the directory `path` would be written in (`.` for a bare file name).
fn directory(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Check that a file of `kind` can be written at `path`: its extension is one `kind` allows
/// (in any case), and its directory exists and takes a new file (one is created and removed).
/// An existing file at `path` is fine: it would be replaced.
///
/// # Errors
///
/// [`OutputError`] naming the path and what is wrong; for an extension, the allowed ones.
pub fn check(path: &Path, kind: Output) -> Result<(), OutputError> {
    if path.file_name().is_none() {
        return Err(OutputError::NoFileName {
            path: path.to_path_buf(),
            kind,
        });
    }
    let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase());
    if !extension.is_some_and(|e| kind.extensions().contains(&e.as_str())) {
        return Err(OutputError::Extension {
            path: path.to_path_buf(),
            kind,
        });
    }
    let dir = directory(path);
    if !dir.is_dir() {
        return Err(OutputError::NoDirectory {
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
        });
    }
    tempfile::Builder::new()
        .prefix(".toibox-check")
        .tempfile_in(dir)
        .map(drop)
        .map_err(|source| OutputError::Write {
            path: path.to_path_buf(),
            source,
        })
}

/// Write a file at `path` whole or not at all: `write` fills a temporary file in the same
/// directory, which is then renamed onto `path` (replacing a file there). On any error the
/// temporary file is removed and `path` is left as it was.
///
/// # Errors
///
/// [`OutputError::Write`] with the first error met: creating the temporary file, `write`'s
/// own, or the rename.
pub fn write_whole(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), OutputError> {
    prepare(path, write)?.commit()
}

/// A file written under a temporary name beside its path, waiting to be renamed into place by
/// [`Pending::commit`]; dropped, it is removed. For several files that go out together or not
/// at all: prepare each, then commit each.
#[derive(Debug)]
pub struct Pending {
    path: PathBuf,
    file: tempfile::NamedTempFile,
}

impl Pending {
    /// Rename the file into place, replacing a file at its path.
    ///
    /// # Errors
    ///
    /// [`OutputError::Write`] if the rename fails; the temporary file is removed then.
    pub fn commit(self) -> Result<(), OutputError> {
        let path = self.path;
        self.file
            .persist(&path)
            .map(drop)
            .map_err(|e| OutputError::Write {
                path,
                source: e.error,
            })
    }
}

/// Write the file for `path` under a temporary name in the same directory (see [`Pending`]).
///
/// # Errors
///
/// [`OutputError::Write`] if the temporary file cannot be created or `write` fails; nothing is
/// left behind then.
pub fn prepare(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<Pending, OutputError> {
    let error = |source: io::Error| OutputError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut file = tempfile::Builder::new()
        .prefix(".toibox-")
        .suffix(".partial")
        .tempfile_in(directory(path))
        .map_err(error)?;
    let mut buffered = io::BufWriter::new(file.as_file_mut());
    write(&mut buffered)
        .and_then(|()| buffered.flush())
        .map_err(error)?;
    drop(buffered);
    Ok(Pending {
        path: path.to_path_buf(),
        file,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn extensions_are_checked_in_any_case_and_named_when_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name);
        assert!(check(&at("a.png"), Output::Plot).is_ok());
        assert!(check(&at("a.Svg"), Output::Plot).is_ok());
        assert!(check(&at("a.PNG"), Output::Screenshot).is_ok());
        assert!(check(&at("t.Csv"), Output::Csv).is_ok());
        for (name, kind) in [
            ("a.jpg", Output::Plot),
            ("a", Output::Plot),
            ("t.png", Output::Csv),
            ("shot.csv", Output::Screenshot),
        ] {
            let error = check(&at(name), kind).unwrap_err().to_string();
            assert!(error.contains(kind.option()), "{error}");
            assert!(
                error.ends_with(&format!("allowed extensions: {}", allowed(kind))),
                "{error}"
            );
        }
        // Checking leaves nothing behind
        assert!(files_in(dir.path()).is_empty());
    }

    #[test]
    fn a_missing_directory_or_a_file_in_its_place_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no").join("plot.png");
        let error = check(&missing, Output::Plot).unwrap_err();
        assert!(matches!(error, OutputError::NoDirectory { .. }), "{error}");
        assert!(error.to_string().contains("no directory"), "{error}");
        std::fs::write(dir.path().join("file"), b"x").unwrap();
        let under_a_file = dir.path().join("file").join("t.csv");
        assert!(matches!(
            check(&under_a_file, Output::Csv),
            Err(OutputError::NoDirectory { .. })
        ));
        assert!(matches!(
            check(Path::new(".."), Output::Csv),
            Err(OutputError::NoFileName { .. })
        ));
    }

    #[test]
    fn a_file_is_written_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        write_whole(&path, |w| w.write_all(b"a,b\n1,2\n")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n1,2\n");
        // A failed write leaves the old file and no temporary one
        let failed = write_whole(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("the table broke"))
        });
        assert!(failed.unwrap_err().to_string().contains("the table broke"));
        assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n1,2\n");
        assert_eq!(files_in(dir.path()), ["t.csv"]);
        // A directory in the file's place: the rename fails, nothing is left
        let blocked = dir.path().join("blocked.csv");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("inside"), b"x").unwrap();
        assert!(write_whole(&blocked, |w| w.write_all(b"x")).is_err());
        assert_eq!(files_in(dir.path()), ["blocked.csv", "t.csv"]);
        // Prepared and dropped: nothing written
        let dropped = prepare(&dir.path().join("u.csv"), |w| w.write_all(b"x")).unwrap();
        drop(dropped);
        assert_eq!(files_in(dir.path()), ["blocked.csv", "t.csv"]);
    }
}
