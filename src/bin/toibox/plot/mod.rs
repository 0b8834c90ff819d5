//! Plots comparing strategies, drawn with plotters: their curves over time, and what the sliced
//! searches cost against the contacts they miss.
//!
//! [`plot_comparison`] draws one [`Series`] per strategy into five panels sharing the time axis
//! (missed contacts, balls passed through or escaped, drift from the analytic run, energy drift,
//! deepest overlap) and a sixth cell holding the legend. [`plot_pareto`] draws the cost per step
//! against the missed contacts, one line of [`ParetoPoint`]s per family of strategies.
//!
//! The file type follows the extension, in any case: `.png` (plotters' bitmap backend encodes
//! it) or `.svg` (its SVG backend). Text is measured, and in a PNG drawn, with DejaVu Sans (a
//! subset, `assets/fonts`, license next to it) embedded in the binary, so neither building nor
//! running needs system font libraries; an SVG names the family `sans-serif` and leaves the
//! glyphs to its viewer.
//!
//! An axis is logarithmic where its values span at least two decades and none is negative;
//! zeros, which a log axis cannot place, are drawn on a floor one decade below the smallest
//! positive value, its tick labelled "0". Otherwise the axis is linear.
//!
//! The picture is drawn into a temporary file next to the target and renamed onto it: on any
//! error no file, partial or whole, is left behind.

use std::fmt;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

#[macro_use]
mod chart;
mod axis;
mod comparison;
mod pareto;
#[cfg(test)]
mod tests;

use axis::*;
use chart::*;
use comparison::*;
use pareto::*;

/// Smallest width and height accepted, in pixels.
pub const MIN_SIDE: u32 = 240;

/// Largest width and height accepted, in pixels.
pub const MAX_SIDE: u32 = 4096;

/// A size that suits a screen or a report: 1200 × 900 pixels.
pub const DEFAULT_SIZE: (u32, u32) = (1200, 900);

/// The extensions a plot's path may have (in any case): the file types it can be written as.
pub const EXTENSIONS: &[&str] = toibox::output::Output::Plot.extensions();

/// One strategy's curves over a run, a value per step.
///
/// Each curve is paired with `time` index by index; points past the shorter of the two are
/// ignored, so a curve not recorded is an empty vector.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// The name in the legend, e.g. `"sliced:150"`.
    pub label: String,
    /// Simulated time after each step, in seconds.
    pub time: Vec<f64>,
    /// Missed contacts so far (a cumulative count).
    pub missed: Vec<f64>,
    /// Balls that passed through something or escaped so far.
    pub faulty: Vec<f64>,
    /// Largest distance of a ball from its place in the analytic run.
    pub drift: Vec<f64>,
    /// Relative drift of the total energy (kinetic + potential), `(E - E0)/|E0|`.
    pub energy: Vec<f64>,
    /// Deepest overlap at the end of the step.
    pub overlap: Vec<f64>,
}

/// One strategy's cost against its misses, for [`plot_pareto`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParetoPoint {
    /// The text next to the point, e.g. `"20"` for 20 slices.
    pub label: String,
    /// The family: points of one family are joined by a line, in the order given; the family
    /// `"analytic"` is drawn as markers alone. E.g. `"sliced"`, `"sliced-bisect"`.
    pub family: String,
    /// Wall-clock cost per step, in milliseconds.
    pub ms_per_step: f64,
    /// Missed contacts over the run.
    pub missed: f64,
}

/// Why a plot could not be written. The message names the file. When it is returned, no file
/// was created or changed at the path.
#[derive(Debug)]
pub enum PlotError {
    /// The width or the height is outside [`MIN_SIDE`]`..=`[`MAX_SIDE`].
    Size {
        /// The file asked for.
        path: PathBuf,
        /// The width asked for, in pixels.
        width: u32,
        /// The height asked for, in pixels.
        height: u32,
    },
    /// The path does not name a file: it is empty, a root, or ends in `..`.
    Path {
        /// The path given.
        path: PathBuf,
    },
    /// The extension is not one of [`EXTENSIONS`], or there is none.
    Extension {
        /// The path given.
        path: PathBuf,
    },
    /// Drawing or encoding failed in the plotting library (fonts, layout, writing the picture
    /// into the temporary file).
    Draw {
        /// The file asked for.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The temporary file could not be created, flushed or renamed onto the path.
    Io {
        /// The file asked for.
        path: PathBuf,
        /// What was being done when it failed.
        action: &'static str,
        /// The error.
        source: io::Error,
    },
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Size {
                path,
                width,
                height,
            } => write!(
                f,
                "{}: cannot plot at {width} x {height} pixels; allowed: {MIN_SIDE} to {MAX_SIDE} \
                 pixels on each side",
                path.display()
            ),
            Self::Path { path } => write!(
                f,
                "{}: cannot write a plot there: the path does not name a file",
                path.display()
            ),
            Self::Extension { path } => write!(
                f,
                "{}: cannot plot into this kind of file; allowed extensions: {}",
                path.display(),
                EXTENSIONS.join(", ")
            ),
            Self::Draw { path, message } => {
                write!(f, "{}: cannot draw the plot: {message}", path.display())
            }
            Self::Io {
                path,
                action,
                source,
            } => write!(
                f,
                "{}: cannot write the plot: {action}: {source}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for PlotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Draw five panels over a shared time axis, one coloured line per series, and write them to
/// `path` as a PNG or an SVG of `size = (width, height)` pixels.
///
/// The panels: missed contacts (cumulative), balls passed through or escaped, state drift
/// from the analytic run, total energy drift, deepest overlap. Each series has one colour in
/// every panel and one entry in the legend, in the order given. The time axis starts at 0 (or
/// at the earliest time, if one is negative); each panel's value axis is linear or
/// logarithmic as the module docs say.
///
/// The data may be anything: a point with a NaN or infinite time or value is skipped (the
/// line breaks there), a lone point is drawn as a dot, values beyond ±1e300 are clipped, an
/// axis whose values are all equal (or absent) still gets a range, and a panel with no point
/// says "no data". The title and the labels are cut short with "…" where they would not fit,
/// and control characters in them become spaces; legend entries that do not fit are counted
/// in a last "+N more".
///
/// The file is written to a temporary file in the same directory and renamed onto `path`,
/// which is replaced if it exists.
///
/// # Errors
///
/// [`PlotError`] if the size is out of range, the path names no file or has another extension,
/// drawing fails, or the file cannot be written (e.g. the directory does not exist). No file is
/// left behind then.
pub fn plot_comparison(
    path: &Path,
    title: &str,
    series: &[Series],
    size: (u32, u32),
) -> Result<(), PlotError> {
    write(path, title, Figure::Comparison(series), size)
}

/// Draw the cost per step (x, in ms) against the missed contacts (y) of `points`, and write it
/// to `path` as a PNG or an SVG of `size = (width, height)` pixels.
///
/// Each family is one line of points in its own colour, in the order given, each point
/// labelled with its `label`; the family `"analytic"` gets triangles and no line. Both axes are
/// linear or logarithmic as the module docs say: on a log axis of misses, a strategy that
/// missed none sits on the floor row labelled "0".
///
/// Awkward data are handled as by [`plot_comparison`]: points with a NaN or infinite
/// coordinate are skipped, and no points give an empty, labelled chart.
///
/// # Errors
///
/// As [`plot_comparison`].
pub fn plot_pareto(
    path: &Path,
    title: &str,
    points: &[ParetoPoint],
    size: (u32, u32),
) -> Result<(), PlotError> {
    write(path, title, Figure::Pareto(points), size)
}

/// What to draw.
#[derive(Clone, Copy)]
enum Figure<'a> {
    Comparison(&'a [Series]),
    Pareto(&'a [ParetoPoint]),
}

/// The file types, each written by its own plotters backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Png,
    Svg,
}

impl Format {
    /// The format `path`'s extension names, in any case.
    fn of(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "png" => Some(Self::Png),
            "svg" => Some(Self::Svg),
            _ => None,
        }
    }

    /// The extension plotters reads the format from.
    fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Svg => "svg",
        }
    }
}

/// Check the request, draw `figure` into a temporary file beside `path`, and rename it there.
fn write(path: &Path, title: &str, figure: Figure<'_>, size: (u32, u32)) -> Result<(), PlotError> {
    let (width, height) = size;
    if !(MIN_SIDE..=MAX_SIDE).contains(&width) || !(MIN_SIDE..=MAX_SIDE).contains(&height) {
        return Err(PlotError::Size {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    if path.file_name().is_none() {
        return Err(PlotError::Path {
            path: path.to_path_buf(),
        });
    }
    let Some(format) = Format::of(path) else {
        return Err(PlotError::Extension {
            path: path.to_path_buf(),
        });
    };
    let draw_error = |message: String| PlotError::Draw {
        path: path.to_path_buf(),
        message,
    };
    let io_error = |action| {
        move |source| PlotError::Io {
            path: path.to_path_buf(),
            action,
            source,
        }
    };
    if !register_font() {
        return Err(draw_error("the embedded font is invalid".to_string()));
    }

    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // The extension tells the backend what to encode; dropped, the file is removed.
    let suffix = format!(".{}", format.extension());
    let mut builder = tempfile::Builder::new();
    builder.prefix(".toibox-plot-").suffix(&suffix);
    // Readable as any new file would be (the umask applies), not private to the owner
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let temp = builder
        .tempfile_in(dir)
        .map_err(io_error("creating a temporary file"))?;

    let layout = Layout::new(size);
    let target = temp.path();
    // The plotting library asserts and unwraps internally; the inputs are sanitised so that
    // none of those should fire, and a panic that still happens becomes an error.
    let drawn = panic::catch_unwind(AssertUnwindSafe(|| match format {
        Format::Png => render(
            BitMapBackend::new(target, size).into_drawing_area(),
            &layout,
            title,
            figure,
        ),
        Format::Svg => render(
            SVGBackend::new(target, size).into_drawing_area(),
            &layout,
            title,
            figure,
        ),
    }));
    match drawn {
        Ok(Ok(())) => {}
        Ok(Err(message)) => return Err(draw_error(message)),
        Err(_) => return Err(draw_error("the plotting library panicked".to_string())),
    }
    // The backend wrote through its own handle to the same file
    temp.as_file()
        .sync_all()
        .map_err(io_error("flushing the file"))?;
    temp.persist(path)
        .map(drop)
        .map_err(|e| io_error("renaming")(e.error))
}

/// Draw `figure` on `root` and write it out; the backend is dropped before this returns.
fn render<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    layout: &Layout,
    title: &str,
    figure: Figure<'_>,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(message)?;
    let margin = layout.margin;
    let inner = root.margin(margin, margin, margin, margin);
    let title_style = layout.font(layout.title);
    let (width, _) = inner.dim_in_pixel();
    let title = fit(&inner, &clean(title), &title_style, width);
    let body = inner.titled(&title, title_style).map_err(message)?;
    match figure {
        Figure::Comparison(series) => draw_comparison(&body, layout, series)?,
        Figure::Pareto(points) => draw_pareto(&body, layout, points)?,
    }
    root.present().map_err(message)
}

/// The embedded font: DejaVu Sans, cut down to Latin, Greek and common symbols.
static FONT: &[u8] = include_bytes!("../../../../assets/fonts/DejaVuSans-subset.ttf");

/// The family every text here uses; the plotting library's own defaults use it too.
const FAMILY: &str = "sans-serif";

/// Register [`FONT`] as [`FAMILY`] once; whether it could be.
fn register_font() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok())
}

/// Line colours, cycled: saturated and far apart in hue, each readable on white.
const COLOURS: [RGBColor; 10] = [
    RGBColor(0x00, 0x5a, 0xe0),
    RGBColor(0xe6, 0x4a, 0x00),
    RGBColor(0x00, 0x9e, 0x2e),
    RGBColor(0xc8, 0x00, 0xa0),
    RGBColor(0x6a, 0x2c, 0xd0),
    RGBColor(0x00, 0x9a, 0xa8),
    RGBColor(0xb0, 0x10, 0x10),
    RGBColor(0xc8, 0x96, 0x00),
    RGBColor(0x20, 0x20, 0x20),
    RGBColor(0xf0, 0x3c, 0x78),
];

/// The colour of series `index`.
fn colour(index: usize) -> RGBColor {
    COLOURS[index % COLOURS.len()]
}

/// Most pixels a series' line is widened by, so that it shows beside the ones drawn over it.
const MAX_WIDENING: u32 = 6;

/// The width of series `index` of `count`: each drawn over the one before and 2 pixels
/// narrower, so that equal curves show as stripes of every colour rather than the last one.
fn stroke(layout: &Layout, index: usize, count: usize) -> u32 {
    let later = u32::try_from(count.saturating_sub(index + 1)).unwrap_or(u32::MAX);
    layout.line + later.saturating_mul(2).min(MAX_WIDENING)
}

/// Grey of notes and of the legend's border.
const GREY: RGBColor = RGBColor(0x60, 0x60, 0x60);

/// Most characters kept of a label or the title before fitting it to the width.
const MAX_CHARS: usize = 200;

/// The family drawn as markers without a line in [`plot_pareto`].
const ANALYTIC: &str = "analytic";

/// Sizes of the layout, in pixels, scaled with the picture.
struct Layout {
    pub(super) title: f64,
    pub(super) text: f64,
    pub(super) ticks: f64,
    pub(super) margin: u32,
    pub(super) line: u32,
}

impl Layout {
    /// The layout of a picture of `size`.
    fn new((width, height): (u32, u32)) -> Self {
        let unit = f64::from(width.min(height * 4 / 3)) / 1000.0;
        // Scaled with the picture, but text never below 9 to 12 pixels.
        let px = |x: f64, min: f64| (x * unit).max(min);
        Self {
            title: px(26.0, 12.0),
            text: px(17.0, 10.0),
            ticks: px(14.0, 9.0),
            margin: px(12.0, 4.0) as u32,
            line: (2.4 * unit).round().clamp(1.0, 6.0) as u32,
        }
    }

    /// Black text of `size` pixels.
    fn font(&self, size: f64) -> TextStyle<'static> {
        TextStyle::from((FAMILY, size).into_font()).color(&BLACK)
    }
}

/// Turn a plotting error into its message.
fn message(error: impl fmt::Display) -> String {
    error.to_string()
}

/// `text` without control characters and at most [`MAX_CHARS`] long.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_CHARS)
        .collect()
}

/// The width of `text` in `style`, in pixels.
fn text_width<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle<'_>,
) -> u32 {
    area.estimate_text_size(text, style)
        .map_or(u32::MAX, |(w, _)| w)
}

/// `text` shortened with an ellipsis until it fits `max_width` pixels in `style`.
fn fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle<'_>,
    max_width: u32,
) -> String {
    if text_width(area, text, style) <= max_width {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let shorter: String = chars.iter().chain(['…'].iter()).collect();
        if text_width(area, &shorter, style) <= max_width {
            return shorter;
        }
    }
    String::new()
}
