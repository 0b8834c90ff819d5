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
static FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-subset.ttf");

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

/// Values are clipped to `±LIMIT` so that every range and its padding stay finite.
const LIMIT: f64 = 1e300;

/// Values smaller than this in magnitude are treated as zero when choosing a range.
const TINY: f64 = 1e-200;

/// Decades positive values must span for a log axis: a ratio of about 30.
const MIN_DECADES: f64 = 1.5;

/// Most decades a log axis shows; smaller values are raised to its floor.
const MAX_DECADES: f64 = 15.0;

/// Most characters kept of a label or the title before fitting it to the width.
const MAX_CHARS: usize = 200;

/// The family drawn as markers without a line in [`plot_pareto`].
const ANALYTIC: &str = "analytic";

/// Sizes of the layout, in pixels, scaled with the picture.
struct Layout {
    title: f64,
    text: f64,
    ticks: f64,
    margin: u32,
    line: u32,
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

/// How values are placed along an axis.
#[derive(Clone, Debug, PartialEq)]
enum Scale {
    /// Evenly.
    Linear,
    /// By their logarithm. Values below `floor`, zero among them, are drawn at `floor`; its
    /// tick is labelled `floor_label` when anything was raised to it.
    Log {
        floor: f64,
        floor_label: Option<String>,
    },
}

/// Choose the scale of an axis for `values` (finite, within ±[`LIMIT`]): logarithmic when no
/// value is negative and the positive ones span at least [`MIN_DECADES`], else linear.
///
/// The floor of a log axis: one decade below the smallest positive value's, labelled "0",
/// when there are zeros; [`MAX_DECADES`] below the largest's, labelled "≤" that, when the
/// values span more; the smallest value itself otherwise.
fn choose_scale(values: &[f64]) -> Scale {
    // Signs cannot go on a log axis
    if values.iter().any(|&v| v < 0.0) {
        return Scale::Linear;
    }
    let Some((low, high)) = bounds(values.iter().copied().filter(|&v| v >= TINY)) else {
        return Scale::Linear;
    };
    let (low_log, high_log) = (low.log10(), high.log10());
    if high_log - low_log < MIN_DECADES {
        return Scale::Linear;
    }
    let lowest = (high_log.ceil() - MAX_DECADES).max(TINY.log10());
    if low_log.floor() < lowest {
        let floor = 10f64.powf(lowest);
        return Scale::Log {
            floor,
            floor_label: Some(format!("≤{}", log_tick_label(floor))),
        };
    }
    if values.iter().any(|&v| v < low) {
        return Scale::Log {
            floor: 10f64.powf(low_log.floor() - 1.0),
            floor_label: Some("0".to_string()),
        };
    }
    Scale::Log {
        floor: low,
        floor_label: None,
    }
}

/// One axis of a chart: its scale and the range it shows.
#[derive(Clone, Debug, PartialEq)]
struct Axis {
    scale: Scale,
    range: (f64, f64),
}

impl Axis {
    /// A value axis for `values` (finite, within ±[`LIMIT`]): the scale [`choose_scale`]
    /// picks, the data with 5% to spare on each side, and a linear axis of values that are all
    /// ≥ 0 starting at 0.
    fn for_values(values: &[f64]) -> Self {
        let scale = choose_scale(values);
        let range = match &scale {
            Scale::Linear => axis_range(bounds(values.iter().copied()), true),
            Scale::Log { floor, .. } => {
                let high = values.iter().copied().fold(*floor, f64::max);
                let pad = 0.05 * (high / floor).log10();
                (floor / 10f64.powf(pad), high * 10f64.powf(pad))
            }
        };
        Self { scale, range }
    }

    /// The time axis for `times` (finite, within ±[`LIMIT`]): linear, from 0 (or the earliest
    /// time if it is negative) to the latest.
    fn time(times: &[f64]) -> Self {
        let data = bounds(times.iter().copied()).map(|(lo, hi)| (lo.min(0.0), hi));
        Self {
            scale: Scale::Linear,
            range: axis_range(data, false),
        }
    }

    /// The axis with `fraction` of its length added at each end, on its own scale (decades
    /// on a log axis).
    fn widened(&self, fraction: f64) -> Self {
        let (lo, hi) = self.range;
        let range = match self.scale {
            Scale::Linear => {
                let pad = (hi - lo) * fraction;
                (lo - pad, hi + pad)
            }
            Scale::Log { .. } => {
                let pad = 10f64.powf((hi / lo).log10() * fraction);
                (lo / pad, hi * pad)
            }
        };
        Self {
            scale: self.scale.clone(),
            range,
        }
    }

    /// Where `value` is drawn: clipped to ±[`LIMIT`], raised to a log axis's floor; `None`
    /// if it is not finite.
    fn place(&self, value: f64) -> Option<f64> {
        if !value.is_finite() {
            return None;
        }
        let value = value.clamp(-LIMIT, LIMIT);
        Some(match self.scale {
            Scale::Linear => value,
            Scale::Log { floor, .. } => value.max(floor),
        })
    }

    /// The tick label of `value`.
    fn label(&self, value: f64) -> String {
        match &self.scale {
            Scale::Linear => tick_label(value, self.range),
            Scale::Log {
                floor,
                floor_label: Some(label),
            } if (value / floor - 1.0).abs() < 1e-6 => label.clone(),
            Scale::Log { .. } => log_tick_label(value),
        }
    }

    /// The widest tick label likely on this axis, in pixels of `style`.
    fn label_width<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        style: &TextStyle<'_>,
    ) -> u32 {
        let (lo, hi) = self.range;
        let candidates = match &self.scale {
            Scale::Linear => {
                let step = (hi - lo) / 10.0;
                vec![lo, hi, lo + step, hi - step]
            }
            // The outer powers of ten, and a mantissa in case light ticks are labelled
            Scale::Log { floor, .. } => {
                let outer = [
                    10f64.powf(lo.log10().ceil()),
                    10f64.powf(hi.log10().floor()),
                ];
                vec![*floor, outer[0], outer[1], outer[0] * 5.0, outer[1] * 5.0]
            }
        };
        candidates
            .into_iter()
            .map(|v| text_width(area, &self.label(v), style))
            .filter(|&w| w != u32::MAX)
            .max()
            .unwrap_or(0)
    }
}

/// The smallest and largest of `values`, if any.
fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// The linear axis range for data within `data` (finite, within ±LIMIT): never empty, never so
/// narrow against its magnitude that tick placement loses precision. With `pad`, 5% is added
/// on each side, but not across zero: data that are all ≥ 0 start the axis at 0.
fn axis_range(data: Option<(f64, f64)>, pad: bool) -> (f64, f64) {
    let Some((lo, hi)) = data else {
        return (0.0, 1.0);
    };
    let magnitude = lo.abs().max(hi.abs());
    let (mut start, mut end) = if magnitude < TINY {
        (-1.0, 1.0)
    } else if hi - lo <= magnitude * 1e-9 {
        let middle = lo / 2.0 + hi / 2.0;
        (middle - magnitude * 0.1, middle + magnitude * 0.1)
    } else if pad {
        let margin = (hi - lo) * 0.05;
        (lo - margin, hi + margin)
    } else {
        (lo, hi)
    };
    if lo >= 0.0 {
        start = start.max(0.0);
    } else if hi <= 0.0 {
        end = end.min(0.0);
    }
    (start, end)
}

/// Tick label of `value` on a linear axis spanning `range`: plain decimals with as many places
/// as the tick spacing needs, or scientific notation for very large or very small magnitudes.
fn tick_label(value: f64, range: (f64, f64)) -> String {
    let (lo, hi) = range;
    let step = (hi - lo).abs() / 10.0;
    if !value.is_finite() || !step.is_finite() || step <= 0.0 {
        return format!("{value}");
    }
    if value.abs() < step * 1e-6 {
        return "0".to_string();
    }
    let magnitude = lo.abs().max(hi.abs());
    let step_exponent = step.log10().floor();
    if (1e-3..1e5).contains(&magnitude) {
        let decimals = (-step_exponent).clamp(0.0, 9.0) as usize;
        return trim_zeros(format!("{value:.decimals$}"));
    }
    // Scientific: as many digits as the spacing needs, trailing zeros dropped ("1e-6").
    let digits = (value.abs().log10().floor() - step_exponent).clamp(0.0, 6.0) as usize;
    short_scientific(value, digits)
}

/// Tick label of `value` on a log axis: two significant digits at most, plain between 0.001
/// and 99 999, scientific beyond ("1e-6", "2.5e7").
fn log_tick_label(value: f64) -> String {
    if !value.is_finite() || value <= 0.0 {
        return format!("{value}");
    }
    // Rounded first: ticks come from repeated products, 1e-3 may arrive as 0.000999…
    let value: f64 = format!("{value:.1e}").parse().unwrap_or(value);
    let exponent = value.log10().floor();
    if (-3.0..5.0).contains(&exponent) {
        let decimals = (1.0 - exponent).max(0.0) as usize;
        return trim_zeros(format!("{value:.decimals$}"));
    }
    short_scientific(value, 1)
}

/// `text`, a decimal number, without trailing zeros after its point ("1.50" → "1.5", "2.0" →
/// "2").
fn trim_zeros(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// `value` in scientific notation with `digits` decimals, trailing zeros dropped.
fn short_scientific(value: f64, digits: usize) -> String {
    let text = format!("{value:.digits$e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) if mantissa.contains('.') => {
            let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
            format!("{mantissa}e{exponent}")
        }
        _ => text,
    }
}

/// A curve as runs of placed points: the line breaks where a point was skipped.
type Curve = Vec<Vec<(f64, f64)>>;

/// Place `points` on the axes `x` and `y`, breaking the curve at each point that has no place.
fn place(points: impl Iterator<Item = (f64, f64)>, x: &Axis, y: &Axis) -> Curve {
    let mut runs = Vec::new();
    let mut run = Vec::new();
    for (a, b) in points {
        match (x.place(a), y.place(b)) {
            (Some(a), Some(b)) => run.push((a, b)),
            _ if !run.is_empty() => runs.push(std::mem::take(&mut run)),
            _ => {}
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

/// The finite values of `values`, clipped to ±[`LIMIT`].
fn finite(values: impl Iterator<Item = f64>) -> Vec<f64> {
    values
        .filter(|v| v.is_finite())
        .map(|v| v.clamp(-LIMIT, LIMIT))
        .collect()
}

/// One panel of [`plot_comparison`]: its caption and the curve it takes from a series.
struct Panel {
    caption: &'static str,
    values: fn(&Series) -> &[f64],
}

/// The panels, in reading order (rows of two).
const PANELS: [Panel; 5] = [
    Panel {
        caption: "Missed contacts (cumulative)",
        values: |s| &s.missed,
    },
    Panel {
        caption: "Balls passed through or escaped",
        values: |s| &s.faulty,
    },
    Panel {
        caption: "State drift from the analytic run",
        values: |s| &s.drift,
    },
    Panel {
        caption: "Total energy drift (E − E₀) / |E₀|",
        values: |s| &s.energy,
    },
    Panel {
        caption: "Deepest overlap",
        values: |s| &s.overlap,
    },
];

/// The points of a series' curve: `values` paired with its times.
fn points<'a>(series: &'a Series, values: &'a [f64]) -> impl Iterator<Item = (f64, f64)> + 'a {
    series.time.iter().copied().zip(values.iter().copied())
}

/// Draw the five panels and the legend of [`plot_comparison`] in a grid of three rows of two.
fn draw_comparison<DB: DrawingBackend>(
    body: &DrawingArea<DB, Shift>,
    layout: &Layout,
    series: &[Series],
) -> Result<(), String> {
    let time = Axis::time(&finite(series.iter().flat_map(|s| s.time.iter().copied())));
    let axes: Vec<Axis> = PANELS
        .iter()
        .map(|panel| {
            let paired = series.iter().flat_map(|s| {
                points(s, (panel.values)(s))
                    .filter(|(t, _)| t.is_finite())
                    .map(|(_, v)| v)
            });
            Axis::for_values(&finite(paired))
        })
        .collect();
    // One width for the value labels of every panel, so that the time axes line up.
    let tick_style = layout.font(layout.ticks);
    let label_width = axes
        .iter()
        .map(|axis| axis.label_width(body, &tick_style))
        .max()
        .unwrap_or(0);

    let cells = body.split_evenly((3, 2));
    for (index, (panel, axis)) in PANELS.iter().zip(&axes).enumerate() {
        let curves: Vec<Curve> = series
            .iter()
            .map(|s| place(points(s, (panel.values)(s)), &time, axis))
            .collect();
        // The lowest panel of each column names the time axis.
        let time_desc = index >= PANELS.len() - 2;
        let frame = Frame {
            caption: panel.caption,
            x: &time,
            y: axis,
            x_desc: time_desc.then_some("simulated time (s)"),
            y_desc: None,
            y_label_width: label_width,
        };
        draw_panel(&cells[index], layout, &frame, &curves)?;
    }
    draw_legend(&cells[PANELS.len()], layout, series)
}

/// What a chart's frame shows: caption, axes and their descriptions.
#[derive(Clone, Copy)]
struct Frame<'a> {
    caption: &'a str,
    x: &'a Axis,
    y: &'a Axis,
    x_desc: Option<&'a str>,
    y_desc: Option<&'a str>,
    /// Width of the widest value label, in pixels.
    y_label_width: u32,
}

/// Build the chart of `$frame` with `$builder`, its axes of the types their scales need, and
/// evaluate `$body` with it bound to `$chart` (a macro: each pair of axis types is its own
/// chart type).
macro_rules! with_chart {
    ($builder:expr, $frame:expr, |$chart:ident| $body:expr) => {{
        let (x0, x1) = $frame.x.range;
        let (y0, y1) = $frame.y.range;
        match (&$frame.x.scale, &$frame.y.scale) {
            (Scale::Linear, Scale::Linear) => {
                let mut $chart = $builder
                    .build_cartesian_2d(x0..x1, y0..y1)
                    .map_err(message)?;
                $body
            }
            (Scale::Linear, Scale::Log { .. }) => {
                let mut $chart = $builder
                    .build_cartesian_2d(x0..x1, (y0..y1).log_scale())
                    .map_err(message)?;
                $body
            }
            (Scale::Log { .. }, Scale::Linear) => {
                let mut $chart = $builder
                    .build_cartesian_2d((x0..x1).log_scale(), y0..y1)
                    .map_err(message)?;
                $body
            }
            (Scale::Log { .. }, Scale::Log { .. }) => {
                let mut $chart = $builder
                    .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
                    .map_err(message)?;
                $body
            }
        }
    }};
}

/// A chart whose axes both carry `f64`, whatever their scales.
type Chart<'a, DB, X, Y> = ChartContext<'a, DB, Cartesian2d<X, Y>>;

/// A chart builder on `area` with the caption and label areas `frame` needs.
fn chart_builder<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    layout: &Layout,
    frame: &Frame<'_>,
) -> ChartBuilder<'a, 'static, DB> {
    let (width, _) = area.dim_in_pixel();
    let mut builder = ChartBuilder::on(area);
    if !frame.caption.is_empty() {
        let style = layout.font(layout.text);
        let caption = fit(area, &clean(frame.caption), &style, width);
        builder.caption(caption, style);
    }
    let desc = |d: Option<&str>| if d.is_some() { layout.text * 1.5 } else { 0.0 };
    let x_area = layout.ticks * 1.8 + desc(frame.x_desc);
    let y_area = f64::from(frame.y_label_width) + layout.ticks * 1.2 + desc(frame.y_desc);
    builder
        .margin(layout.margin)
        .x_label_area_size(x_area as u32)
        .y_label_area_size(y_area as u32);
    builder
}

/// `frame` with both axes widened so that the widest line or marker centred on a point at
/// an end of a range stays inside the plotting area `chart_builder` makes on `area`: plotters
/// does not clip what it draws to the frame.
fn inside<'a, DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    layout: &Layout,
    frame: &Frame<'a>,
    x: &'a mut Axis,
    y: &'a mut Axis,
) -> Frame<'a> {
    let (width, height) = area.dim_in_pixel();
    let desc = |d: Option<&str>| if d.is_some() { layout.text * 1.5 } else { 0.0 };
    let caption = if frame.caption.is_empty() {
        0.0
    } else {
        layout.text * 2.0
    };
    let margins = 2.0 * f64::from(layout.margin);
    let y_area = f64::from(frame.y_label_width) + layout.ticks * 1.2 + desc(frame.y_desc);
    let x_area = layout.ticks * 1.8 + desc(frame.x_desc);
    let plot_w = f64::from(width) - margins - y_area;
    let plot_h = f64::from(height) - margins - x_area - caption;
    // Half the widest line, or a dot's radius, and a pixel to spare
    let reach = f64::from(layout.line + MAX_WIDENING + 3);
    let fraction = |length: f64| reach / (length - 2.0 * reach).max(4.0 * reach);
    *x = frame.x.widened(fraction(plot_w));
    *y = frame.y.widened(fraction(plot_h));
    Frame { x, y, ..*frame }
}

/// Draw the grid, the ticks and their labels, and the axis descriptions of `frame`.
fn draw_mesh<DB, X, Y>(
    chart: &mut Chart<'_, DB, X, Y>,
    layout: &Layout,
    frame: &Frame<'_>,
) -> Result<(), String>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let (width, height) = chart.plotting_area().dim_in_pixel();
    let x_fmt = |v: &f64| frame.x.label(*v);
    let y_fmt = |v: &f64| frame.y.label(*v);
    // Room for a label every five characters across, every three lines up; every two on a
    // log axis, whose labels are the powers of ten that fit
    let x_labels = (f64::from(width) / (layout.ticks * 5.0)).clamp(2.0, 12.0) as usize;
    let lines = match frame.y.scale {
        Scale::Linear => 3.0,
        Scale::Log { .. } => 2.0,
    };
    let y_labels = (f64::from(height) / (layout.ticks * lines)).clamp(2.0, 12.0) as usize;
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(x_labels)
        .y_labels(y_labels)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style(layout.font(layout.ticks))
        .axis_desc_style(layout.font(layout.text))
        .max_light_lines(4)
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .bold_line_style(RGBColor(0xd0, 0xd0, 0xd0));
    if let Some(desc) = frame.x_desc {
        mesh.x_desc(desc);
    }
    if let Some(desc) = frame.y_desc {
        mesh.y_desc(desc);
    }
    mesh.draw().map_err(message)
}

/// Write `text` in grey in the middle of `chart`'s plotting area.
fn draw_note<DB, X, Y>(
    chart: &Chart<'_, DB, X, Y>,
    layout: &Layout,
    text: &str,
) -> Result<(), String>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let area = chart.plotting_area().strip_coord_spec();
    let style = layout
        .font(layout.text)
        .color(&GREY)
        .pos(Pos::new(HPos::Center, VPos::Center));
    let (width, height) = area.dim_in_pixel();
    area.draw_text(text, &style, (width as i32 / 2, height as i32 / 2))
        .map_err(message)
}

/// Draw one panel of [`plot_comparison`]: its frame and the curve of every series.
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    layout: &Layout,
    frame: &Frame<'_>,
    curves: &[Curve],
) -> Result<(), String> {
    let (mut x, mut y) = (frame.x.clone(), frame.y.clone());
    let frame = &inside(area, layout, frame, &mut x, &mut y);
    let mut builder = chart_builder(area, layout, frame);
    with_chart!(builder, frame, |chart| {
        draw_mesh(&mut chart, layout, frame)?;
        draw_curves(&mut chart, layout, frame, curves)
    })
}

/// Draw `curves`, the one of series `i` in [`colour`]`(i)` and [`stroke`] width, a lone point as a dot; a zero
/// line where a linear value axis crosses zero; "no data" if there is no point at all.
fn draw_curves<DB, X, Y>(
    chart: &mut Chart<'_, DB, X, Y>,
    layout: &Layout,
    frame: &Frame<'_>,
    curves: &[Curve],
) -> Result<(), String>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let (x0, x1) = frame.x.range;
    let (y0, y1) = frame.y.range;
    if frame.y.scale == Scale::Linear && y0 < 0.0 && y1 > 0.0 {
        let zero = PathElement::new(vec![(x0, 0.0), (x1, 0.0)], BLACK.mix(0.45).stroke_width(1));
        chart.draw_series(std::iter::once(zero)).map_err(message)?;
    }
    for (index, curve) in curves.iter().enumerate() {
        let width = stroke(layout, index, curves.len());
        let style = colour(index).stroke_width(width);
        for run in curve {
            if let [point] = run.as_slice() {
                let dot = Circle::new(*point, width + 2, colour(index).filled());
                chart.draw_series(std::iter::once(dot)).map_err(message)?;
            } else {
                chart
                    .draw_series(LineSeries::new(run.iter().copied(), style))
                    .map_err(message)?;
            }
        }
    }
    if curves.iter().all(Vec::is_empty) {
        draw_note(chart, layout, "no data")?;
    }
    Ok(())
}

/// Draw the legend of [`plot_comparison`] in `cell`: a line of each series' colour and its
/// label, as many as fit, then "+N more".
fn draw_legend<DB: DrawingBackend>(
    cell: &DrawingArea<DB, Shift>,
    layout: &Layout,
    series: &[Series],
) -> Result<(), String> {
    let margin = layout.margin;
    let area = cell.margin(margin, margin, margin * 2, margin);
    let style = layout.font(layout.text);
    if series.is_empty() {
        let note = style.color(&GREY);
        return area
            .draw_text("no strategies", &note, (0, 0))
            .map_err(message);
    }
    let (width, height) = area.dim_in_pixel();
    let swatch = (layout.text * 2.2) as u32;
    let inner = (layout.text * 0.5) as u32;
    // The legend box sits 5 pixels in; its rows are 1.25 text heights apart
    let room = f64::from(height) - f64::from(2 * inner + 10) - layout.text;
    let rows = ((room / (layout.text * 1.25)).floor() as usize + 1).max(1);
    let shown = if series.len() <= rows {
        series.len()
    } else {
        rows - 1
    };
    let label_width = width.saturating_sub(swatch + 2 * inner + 10);

    let mut chart = ChartBuilder::on(&area)
        .build_cartesian_2d(0.0..1.0, 0.0..1.0)
        .map_err(message)?;
    for (index, s) in series.iter().enumerate().take(shown) {
        let label = fit(&area, &clean(&s.label), &style, label_width);
        let line = colour(index).stroke_width(stroke(layout, index, series.len()));
        let length = (swatch - inner) as i32;
        chart
            .draw_series(LineSeries::new(std::iter::empty(), line))
            .map_err(message)?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + length, y)], line));
    }
    if shown < series.len() {
        chart
            .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
            .map_err(message)?
            .label(format!("+{} more", series.len() - shown));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .margin(inner)
        .legend_area_size(swatch)
        .label_font(style)
        .background_style(WHITE)
        .border_style(GREY)
        .draw()
        .map_err(message)
}

/// Draw the chart of [`plot_pareto`] on `body`.
fn draw_pareto<DB: DrawingBackend>(
    body: &DrawingArea<DB, Shift>,
    layout: &Layout,
    points: &[ParetoPoint],
) -> Result<(), String> {
    let x = Axis::for_values(&finite(points.iter().map(|p| p.ms_per_step)));
    let y = Axis::for_values(&finite(points.iter().map(|p| p.missed)));
    let tick_style = layout.font(layout.ticks);
    let frame = Frame {
        caption: "",
        x: &x,
        y: &y,
        x_desc: Some("cost per step (ms)"),
        y_desc: Some("missed contacts"),
        y_label_width: y.label_width(body, &tick_style),
    };
    let (mut x, mut y) = (x.clone(), y.clone());
    let frame = inside(body, layout, &frame, &mut x, &mut y);
    let mut builder = chart_builder(body, layout, &frame);
    with_chart!(builder, &frame, |chart| {
        draw_mesh(&mut chart, layout, &frame)?;
        draw_families(&mut chart, layout, &frame, points)
    })
}

/// Draw each family of `points`: a line through its points in its colour, or triangles for
/// the analytic sweep; a label at every point; the legend in the upper right corner.
fn draw_families<'a, DB, X, Y>(
    chart: &mut Chart<'a, DB, X, Y>,
    layout: &Layout,
    frame: &Frame<'_>,
    points: &[ParetoPoint],
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let mut families: Vec<&str> = Vec::new();
    for point in points {
        if !families.contains(&point.family.as_str()) {
            families.push(&point.family);
        }
    }
    let area = chart.plotting_area().strip_coord_spec();
    let (width, _) = area.dim_in_pixel();
    let text_style = layout.font(layout.text);
    let radius = layout.line + 2;
    let swatch = (layout.text * 2.2) as i32;
    let mut drawn = false;
    let mut next_colour = 0;
    for family in families {
        let members: Vec<&ParetoPoint> = points.iter().filter(|p| p.family == family).collect();
        let curve = place(
            members.iter().map(|p| (p.ms_per_step, p.missed)),
            frame.x,
            frame.y,
        );
        drawn |= !curve.is_empty();
        let label = fit(&area, &clean(family), &text_style, width / 2);
        if family == ANALYTIC {
            let marker = BLACK.filled();
            let size = (radius * 2 + 1) as i32;
            chart
                .draw_series(
                    curve
                        .iter()
                        .flatten()
                        .map(|&p| TriangleMarker::new(p, size, marker)),
                )
                .map_err(message)?
                .label(label)
                .legend(move |(x, y)| TriangleMarker::new((x + swatch / 2, y), size, marker));
            draw_point_labels(chart, layout, frame, &members, BLACK)?;
            continue;
        }
        let tint = colour(next_colour);
        next_colour += 1;
        let line = tint.stroke_width(layout.line);
        for run in &curve {
            chart
                .draw_series(LineSeries::new(run.iter().copied(), line))
                .map_err(message)?;
        }
        chart
            .draw_series(
                curve
                    .iter()
                    .flatten()
                    .map(|&p| Circle::new(p, radius, tint.filled())),
            )
            .map_err(message)?
            .label(label)
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (swatch, 0)], line)
                    + Circle::new((swatch / 2, 0), radius, tint.filled())
            });
        draw_point_labels(chart, layout, frame, &members, tint)?;
    }
    if !drawn {
        return draw_note(chart, layout, "no data");
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .margin((layout.text * 0.5) as u32)
        .legend_area_size((layout.text * 2.6) as u32)
        .label_font(text_style)
        .background_style(WHITE)
        .border_style(GREY)
        .draw()
        .map_err(message)
}

/// Write each point's label above and to the right of it, in `tint`.
fn draw_point_labels<DB, X, Y>(
    chart: &mut Chart<'_, DB, X, Y>,
    layout: &Layout,
    frame: &Frame<'_>,
    members: &[&ParetoPoint],
    tint: RGBColor,
) -> Result<(), String>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let style = layout
        .font(layout.ticks)
        .color(&tint)
        .pos(Pos::new(HPos::Left, VPos::Bottom));
    let offset = (layout.line + 4) as i32;
    let labels = members.iter().filter_map(|p| {
        let at = (frame.x.place(p.ms_per_step)?, frame.y.place(p.missed)?);
        let text = Text::new(clean(&p.label), (offset, -offset), style.clone());
        Some(EmptyElement::at(at) + text)
    });
    chart.draw_series(labels).map_err(message)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn entries(dir: &Path) -> Vec<PathBuf> {
        let mut names: Vec<PathBuf> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
    }

    /// Four strategies over ten seconds at 60 Hz, shaped like a real comparison.
    fn four_series() -> Vec<Series> {
        let time: Vec<f64> = (1..=600).map(|i| f64::from(i) / 60.0).collect();
        let curve = |f: &dyn Fn(f64) -> f64| time.iter().map(|&t| f(t)).collect::<Vec<_>>();
        let series = |label: &str, missed: f64, energy: &dyn Fn(f64) -> f64, depth: f64| Series {
            label: label.into(),
            time: time.clone(),
            missed: curve(&|t| (missed * t).floor()),
            faulty: curve(&|t| (missed * t / 40.0).floor()),
            drift: curve(&|t| missed * 1e-3 * t * t + 1e-14),
            energy: curve(energy),
            overlap: curve(&|t| depth * (1.0 + (t * 3.0).sin()).abs()),
        };
        vec![
            series("analytic", 0.0, &|t| 1e-13 * (t * 7.0).sin(), 0.0),
            series("sliced:150", 2.0, &|t| -0.002 * t, 0.004),
            series("sliced-bisect:150", 0.5, &|t| -0.0005 * t, 0.001),
            series("discrete", 60.0, &|t| 0.01 * t * t, 0.02),
        ]
    }

    /// A sliced and a bisecting family at four slice counts each, and the analytic sweep.
    fn pareto_points() -> Vec<ParetoPoint> {
        let mut points = Vec::new();
        for (family, cost, misses) in [("sliced", 0.02, 4000.0), ("sliced-bisect", 0.03, 900.0)] {
            for slices in [5.0, 20.0, 80.0, 320.0] {
                points.push(ParetoPoint {
                    label: format!("{slices}"),
                    family: family.into(),
                    ms_per_step: cost * slices,
                    missed: (misses / (slices * slices) - 0.1).floor().max(0.0),
                });
            }
        }
        points.push(ParetoPoint {
            label: "analytic".into(),
            family: ANALYTIC.into(),
            ms_per_step: 0.4,
            missed: 0.0,
        });
        points
    }

    /// The width and height in the header of the PNG at `path`.
    fn png_size(path: &Path) -> (u32, u32) {
        let bytes = fs::read(path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&bytes[12..16], b"IHDR");
        let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
        (word(16), word(20))
    }

    #[test]
    fn writes_a_png_of_the_requested_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("compare.png");
        plot_comparison(&path, "synthetic scene", &four_series(), (900, 700)).unwrap();
        assert_eq!(png_size(&path), (900, 700));
        // Only the plot is left in the directory: the temporary file was renamed.
        assert_eq!(entries(dir.path()), vec![path.clone()]);

        // Writing again replaces the file; the extension is read in any case
        let upper = dir.path().join("pareto.PNG");
        plot_pareto(&upper, "cost", &pareto_points(), (300, 300)).unwrap();
        assert_eq!(png_size(&upper), (300, 300));
        plot_comparison(&path, "again", &four_series()[..1], (300, 300)).unwrap();
        assert_eq!(png_size(&path), (300, 300));
        assert_eq!(entries(dir.path()), vec![path, upper]);
    }

    /// How many pixels of the PNG at `path` have exactly `colour`.
    fn pixels_of(path: &Path, colour: RGBColor) -> usize {
        let mut reader = png::Decoder::new(fs::File::open(path).unwrap())
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("unexpected colour type {other:?}"),
        };
        buf[..info.buffer_size()]
            .chunks_exact(channels)
            .filter(|p| (p[0], p[1], p[2]) == (colour.0, colour.1, colour.2))
            .count()
    }

    #[test]
    fn curves_stay_inside_their_frame() {
        // Curves along every edge of the data: zeros from time 0, a maximum at the last time,
        // a lone point in a corner; four series, so the first is drawn widest
        assert!(register_font());
        let (width, height) = (640u32, 420u32);
        let layout = Layout::new((width, height));
        for (x, y) in [
            (Axis::time(&[0.0, 2.0]), Axis::for_values(&[0.0, 5.0])),
            (
                Axis::time(&[0.0, 2.0]),
                Axis::for_values(&[1e-9, 1e-3, 7.0]),
            ),
        ] {
            let (lo, hi) = (y.range.0.max(1e-9), 5.0);
            let curves: Vec<Curve> = (0..4)
                .map(|k| match k {
                    0 => vec![vec![(0.0, lo), (1.0, lo), (2.0, lo)]],
                    1 => vec![vec![(0.0, lo), (2.0, hi)]],
                    2 => vec![vec![(0.0, hi), (2.0, hi)]],
                    _ => vec![vec![(2.0, lo)]],
                })
                .collect();
            let frame = Frame {
                caption: "edges",
                x: &x,
                y: &y,
                x_desc: Some("time"),
                y_desc: None,
                y_label_width: 30,
            };
            let mut drawn = vec![255u8; (width * height * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut drawn, (width, height));
                draw_panel(&root.into_drawing_area(), &layout, &frame, &curves).unwrap();
            }
            // The frame the panel drew in, built again on a scratch picture
            let mut scratch = vec![255u8; drawn.len()];
            let root = BitMapBackend::with_buffer(&mut scratch, (width, height));
            let area = root.into_drawing_area();
            let (mut wx, mut wy) = (x.clone(), y.clone());
            let widened = inside(&area, &layout, &frame, &mut wx, &mut wy);
            let mut builder = chart_builder(&area, &layout, &widened);
            let mut pixels = || -> Result<_, String> {
                with_chart!(builder, &widened, |chart| {
                    let chart = &mut chart;
                    Ok(chart.plotting_area().get_pixel_range())
                })
            };
            let (columns, rows) = pixels().unwrap();
            let mut seen = 0;
            for (k, pixel) in drawn.chunks_exact(3).enumerate() {
                let (px, py) = ((k % width as usize) as i32, (k / width as usize) as i32);
                if (0..4).any(|c| {
                    let RGBColor(r, g, b) = colour(c);
                    pixel == [r, g, b]
                }) {
                    seen += 1;
                    assert!(
                        (columns.start..=columns.end).contains(&px)
                            && (rows.start..=rows.end).contains(&py),
                        "{:?}: a curve at ({px}, {py}), outside {columns:?} x {rows:?}",
                        y.scale
                    );
                }
            }
            assert!(seen > 1000, "the curves are drawn: {seen} pixels");
        }
    }

    #[test]
    fn equal_curves_show_every_colour() {
        // Two strategies with the same values (sliced and sliced-bisect on the bullets): the
        // second is drawn over the first, which must still show beside it in every panel
        let first = four_series().swap_remove(1);
        let second = Series {
            label: "twin".into(),
            ..first.clone()
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("twins.png");
        plot_comparison(&path, "twins", &[first, second], DEFAULT_SIZE).unwrap();
        let (under, over) = (pixels_of(&path, colour(0)), pixels_of(&path, colour(1)));
        println!("pixels: first {under}, second {over}");
        assert!(over > 1000, "the curves are drawn: {over} pixels");
        // A pixel on each side of the second's three along every curve (drawn with equal
        // widths, the first would keep its legend swatch only, some 200 pixels)
        assert!(3 * under > over, "first {under} pixels, second {over}");
    }

    /// The texts of the SVG `svg`, trimmed.
    fn svg_texts(svg: &str) -> Vec<&str> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| t.split_once('>')?.1.split_once("</text>"))
            .map(|(text, _)| text.trim())
            .collect()
    }

    #[test]
    fn writes_an_svg_with_the_legend() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("compare.svg");
        plot_comparison(&path, "synthetic <scene>", &four_series(), DEFAULT_SIZE).unwrap();
        let svg = fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.contains(r#"width="1200" height="900""#));
        let texts = svg_texts(&svg);
        for label in ["analytic", "sliced:150", "sliced-bisect:150", "discrete"] {
            assert!(texts.contains(&label), "{label} missing from {texts:?}");
        }
        assert!(texts.contains(&"synthetic &lt;scene&gt;"), "{texts:?}");

        let path = dir.path().join("pareto.svg");
        plot_pareto(&path, "cost", &pareto_points(), DEFAULT_SIZE).unwrap();
        let svg = fs::read_to_string(&path).unwrap();
        let texts = svg_texts(&svg);
        // The families, a point's label, and the floor of the log axis of misses
        for label in ["sliced", "sliced-bisect", "analytic", "320", "0"] {
            assert!(texts.contains(&label), "{label} missing from {texts:?}");
        }
    }

    #[test]
    fn a_missing_directory_is_an_error_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no-such-dir").join("compare.png");
        let err = plot_comparison(&path, "t", &four_series(), DEFAULT_SIZE).unwrap_err();
        assert!(
            matches!(&err, PlotError::Io { path: named, .. } if *named == path),
            "{err:?}"
        );
        assert!(err.to_string().contains("compare.png"), "{err}");
        assert!(entries(dir.path()).is_empty());
    }

    #[test]
    fn a_failed_rename_removes_the_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        // A non-empty directory in the target's place: the rename fails after drawing
        let path = dir.path().join("taken.svg");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("keep"), b"x").unwrap();
        let err = plot_pareto(&path, "t", &pareto_points(), (400, 300)).unwrap_err();
        assert!(
            matches!(
                err,
                PlotError::Io {
                    action: "renaming",
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(entries(dir.path()), vec![path.clone()]);
        assert_eq!(entries(&path), vec![path.join("keep")]);
    }

    #[test]
    fn bad_sizes_paths_and_extensions_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.png");
        for size in [
            (0, 0),
            (100, 600),
            (600, MAX_SIDE + 1),
            (u32::MAX, u32::MAX),
        ] {
            let err = plot_comparison(&path, "t", &four_series(), size).unwrap_err();
            assert!(matches!(err, PlotError::Size { .. }), "{err:?}");
            assert!(err.to_string().contains("p.png"), "{err}");
        }
        let err = plot_comparison(&dir.path().join(".."), "t", &[], DEFAULT_SIZE).unwrap_err();
        assert!(matches!(err, PlotError::Path { .. }), "{err:?}");
        for name in ["p.jpg", "p", "p.svg.gz"] {
            let err = plot_pareto(&dir.path().join(name), "t", &[], DEFAULT_SIZE).unwrap_err();
            assert!(matches!(err, PlotError::Extension { .. }), "{err:?}");
            assert!(
                err.to_string().ends_with("allowed extensions: png, svg"),
                "{err}"
            );
        }
        assert!(entries(dir.path()).is_empty());
    }

    #[test]
    fn awkward_data_is_drawn_without_panicking() {
        let dir = tempfile::tempdir().unwrap();
        let s = |label: &str, time: Vec<f64>, values: Vec<f64>| Series {
            label: label.into(),
            missed: values.clone(),
            energy: values.iter().map(|v| -v).collect(),
            overlap: values,
            time,
            ..Series::default()
        };
        let nan = f64::NAN;
        let inf = f64::INFINITY;
        let cases: Vec<(&str, Vec<Series>)> = vec![
            ("no series", vec![]),
            ("empty curves", vec![s("empty", vec![], vec![])]),
            ("one point", vec![s("one", vec![0.5], vec![0.1])]),
            ("zeros", vec![s("zero", vec![0.0, 1.0, 2.0], vec![0.0; 3])]),
            ("one time", vec![s("t", vec![2.0, 2.0], vec![1.0, 300.0])]),
            ("short curve", vec![s("t", vec![1.0, 2.0, 3.0], vec![1.0])]),
            (
                "non-finite",
                vec![s(
                    "nan\nlabel",
                    vec![0.0, 1.0, inf, 3.0, nan],
                    vec![nan, 1.0, 2.0, 3e5, -inf],
                )],
            ),
            (
                "huge",
                vec![
                    s("max", vec![0.0, 1.0], vec![f64::MAX, 1e-310]),
                    s("tiny", vec![0.0, 1e-300], vec![1e-310, 5e-324]),
                    s("offset", vec![0.0, 1.0], vec![1.0, 1.0 + 1e-15]),
                    s("times", vec![-f64::MAX, f64::MAX], vec![0.0, 1.0]),
                ],
            ),
            (
                "many long labels",
                (0..40_u32)
                    .map(|i| {
                        s(
                            &format!("strategy {i} {}", "x".repeat(i as usize * 5)),
                            vec![0.0, 1.0],
                            vec![f64::from(i), 1e3 * f64::from(i)],
                        )
                    })
                    .collect(),
            ),
        ];
        for (index, (title, series)) in cases.iter().enumerate() {
            let path = dir.path().join(format!("case{index}.png"));
            plot_comparison(&path, &title.repeat(20), series, (MIN_SIDE, MIN_SIDE))
                .unwrap_or_else(|e| panic!("{title}: {e}"));
            plot_comparison(&path, title, series, (1000, 400))
                .unwrap_or_else(|e| panic!("{title}: {e}"));
            assert_eq!(png_size(&path), (1000, 400), "{title}");
            // The points of the same data, as a Pareto chart
            let points: Vec<ParetoPoint> = (series.iter())
                .flat_map(|s| {
                    s.time.iter().zip(&s.missed).map(|(&t, &m)| ParetoPoint {
                        label: s.label.clone(),
                        family: s.label.clone(),
                        ms_per_step: t,
                        missed: m,
                    })
                })
                .collect();
            let path = dir.path().join(format!("case{index}.svg"));
            plot_pareto(&path, title, &points, (MIN_SIDE, MIN_SIDE))
                .unwrap_or_else(|e| panic!("{title}: {e}"));
        }
    }

    #[test]
    fn an_axis_is_logarithmic_where_positive_values_span_decades() {
        // Too narrow, signed, or nothing positive: linear
        assert_eq!(choose_scale(&[]), Scale::Linear);
        assert_eq!(choose_scale(&[0.0, 0.0]), Scale::Linear);
        assert_eq!(choose_scale(&[1.0, 30.0]), Scale::Linear);
        assert_eq!(choose_scale(&[0.0, 5.0, 5.0]), Scale::Linear);
        assert_eq!(choose_scale(&[-1e-15, 1e-9, 1.0]), Scale::Linear);
        // Two decades and no zero: the smallest value is the floor, nothing is raised
        assert_eq!(
            choose_scale(&[1.0, 100.0]),
            Scale::Log {
                floor: 1.0,
                floor_label: None
            }
        );
        // Zeros: a floor one decade below the smallest positive value's (2e-3 → 1e-4)
        let Scale::Log { floor, floor_label } = choose_scale(&[0.0, 2e-3, 7.0]) else {
            panic!()
        };
        assert!((floor / 1e-4 - 1.0).abs() < 1e-12, "{floor}");
        assert_eq!(floor_label.as_deref(), Some("0"));
        // Thirty decades: the floor is MAX_DECADES below the largest value's (1e10 → 1e-5)
        let Scale::Log { floor, floor_label } = choose_scale(&[1e-20, 1e10]) else {
            panic!()
        };
        assert!((floor / 1e-5 - 1.0).abs() < 1e-12, "{floor}");
        assert_eq!(floor_label.as_deref(), Some("≤1e-5"));

        // On the axis, zeros sit on the floor, labelled "0", inside the range
        let axis = Axis::for_values(&[0.0, 1.0, 10.0, 1000.0]);
        assert_eq!(axis.place(0.0), Some(0.1));
        assert_eq!(axis.place(nan_of()), None);
        assert_eq!(axis.label(0.1), "0");
        assert_eq!(axis.label(1000.0), "1000");
        assert!(axis.range.0 < 0.1 && axis.range.1 > 1000.0);
    }

    fn nan_of() -> f64 {
        f64::NAN
    }

    #[test]
    fn axis_ranges_are_never_empty() {
        assert_eq!(axis_range(None, true), (0.0, 1.0));
        assert_eq!(axis_range(Some((0.0, 0.0)), true), (0.0, 1.0));
        assert_eq!(axis_range(Some((-0.0, 0.0)), false), (0.0, 1.0));
        assert_eq!(axis_range(Some((-2.0, 0.0)), true), (-2.1, 0.0));
        let (lo, hi) = axis_range(Some((-5.0, -5.0)), true);
        assert!(lo < -5.0 && hi > -5.0 && hi < 0.0);
        let (lo, hi) = axis_range(Some((0.0, 2.0)), true);
        assert_eq!(lo, 0.0);
        assert!((hi - 2.1).abs() < 1e-12);
        let (lo, hi) = axis_range(Some((5.0, 5.0)), false);
        assert!(lo < 5.0 && hi > 5.0);
        let (lo, hi) = axis_range(Some((-LIMIT, LIMIT)), true);
        assert!(lo.is_finite() && hi.is_finite() && lo < hi);
        // The time axis starts at 0
        assert_eq!(Axis::time(&[0.5, 2.0]).range, (0.0, 2.0));
    }

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(0.5, (0.0, 1.0)), "0.5");
        assert_eq!(tick_label(2.0, (0.0, 10.0)), "2");
        assert_eq!(tick_label(-0.0, (-1.0, 1.0)), "0");
        assert_eq!(tick_label(1e-17, (-1.0, 1.0)), "0");
        assert_eq!(tick_label(2e-7, (-1e-6, 1e-6)), "2e-7");
        assert_eq!(tick_label(-1.5e-6, (-2e-6, 2e-6)), "-1.5e-6");
        assert_eq!(tick_label(1.2e7, (0.0, 2e7)), "1.2e7");
        assert_eq!(tick_label(0.025, (0.0, 0.031)), "0.025");
        assert_eq!(tick_label(2.0, (0.0, 4.98)), "2");
        assert_eq!(tick_label(2.5, (0.0, 4.98)), "2.5");
        // Log ticks come from repeated products: 1e-3 may arrive as 0.0009999…
        assert_eq!(log_tick_label(0.000_999_999_999_9), "0.001");
        assert_eq!(log_tick_label(0.002), "0.002");
        assert_eq!(log_tick_label(20_000.000_000_1), "20000");
        assert_eq!(log_tick_label(1e-12), "1e-12");
        assert_eq!(log_tick_label(2.5e7), "2.5e7");
    }
}
