//! PNG plots comparing strategies: energy drift and penetration over time.
//!
//! [`plot_comparison`] draws one [`Series`] per strategy into two stacked panels sharing the
//! time axis: the relative energy drift on top, the largest penetration below, with a title
//! and a legend. The text is drawn with DejaVu Sans (a subset, `assets/fonts`, license next to
//! it) embedded in the binary, so neither building nor running needs system font libraries.
//!
//! The picture is drawn in memory, encoded as PNG into a temporary file next to the target and
//! renamed onto it: on any error no file, partial or whole, is left behind.
//!
//! ```no_run
//! use std::path::Path;
//! use toibox::plot::{DEFAULT_SIZE, Series, plot_comparison};
//!
//! let series = vec![Series {
//!     label: "analytic".to_string(),
//!     energy: vec![(0.0, 0.0), (1.0, 1e-12)],
//!     penetration: vec![(0.0, 0.0), (1.0, 0.0)],
//! }];
//! plot_comparison(Path::new("compare.png"), "pile", &series, DEFAULT_SIZE)?;
//! # Ok::<(), toibox::plot::PlotError>(())
//! ```

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Smallest width and height accepted, in pixels.
pub const MIN_SIDE: u32 = 240;

/// Largest width and height accepted, in pixels.
pub const MAX_SIDE: u32 = 4096;

/// A size that suits a screen or a report: 1200 × 900 pixels.
pub const DEFAULT_SIZE: (u32, u32) = (1200, 900);

/// One strategy's curves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// The name in the legend.
    pub label: String,
    /// `(time, relative energy drift (E - E0)/|E0|)` points, in time order.
    pub energy: Vec<(f64, f64)>,
    /// `(time, largest penetration depth)` points, in time order.
    pub penetration: Vec<(f64, f64)>,
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
    /// Drawing failed in the plotting library (fonts, layout).
    Draw {
        /// The file asked for.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The temporary file could not be created, written or renamed onto the path.
    Io {
        /// The file asked for.
        path: PathBuf,
        /// What was being done when it failed.
        action: &'static str,
        /// The error.
        source: io::Error,
    },
}

impl PlotError {
    /// The file the plot was to be written to.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            Self::Size { path, .. }
            | Self::Path { path }
            | Self::Draw { path, .. }
            | Self::Io { path, .. } => path,
        }
    }
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

/// Draw two stacked panels, one coloured line per series, and write them as a PNG of
/// `size = (width, height)` pixels to `path`.
///
/// The top panel shows the relative energy drift `(E - E0)/|E0|` the caller computed, the
/// bottom one the largest penetration; both share the time axis. Each series gets one colour
/// in both panels and one entry in the legend under the title, in the order given.
///
/// The data may be anything: points with a NaN or infinite coordinate are skipped (the line
/// breaks there), a lone point is drawn as a dot, values beyond ±1e300 are clipped, and an
/// axis whose values are all equal (or absent) still gets a range. The axes are linear. The
/// title and labels are cut short with "…" where they would not fit, and control characters
/// in them become spaces; an empty `series` gives empty, labelled panels.
///
/// The PNG is written to a temporary file in the same directory and renamed onto `path`, which
/// is replaced if it exists.
///
/// # Errors
///
/// [`PlotError`] if the size is out of range, the path names no file, drawing fails, or the
/// file cannot be written (e.g. the directory does not exist). No file is left behind then.
pub fn plot_comparison(
    path: &Path,
    title: &str,
    series: &[Series],
    size: (u32, u32),
) -> Result<(), PlotError> {
    let (width, height) = size;
    if !(MIN_SIDE..=MAX_SIDE).contains(&width) || !(MIN_SIDE..=MAX_SIDE).contains(&height) {
        return Err(PlotError::Size {
            path: path.to_path_buf(),
            width,
            height,
        });
    }
    let Some(file_name) = path.file_name() else {
        return Err(PlotError::Path {
            path: path.to_path_buf(),
        });
    };
    let draw_error = |message: String| PlotError::Draw {
        path: path.to_path_buf(),
        message,
    };

    if !register_font() {
        return Err(draw_error("the embedded font is invalid".to_string()));
    }
    // Drawn at twice the size and scaled down: the plotting library neither smooths lines nor
    // places glyphs closer than a pixel, and both errors halve. Width and height are at most
    // MAX_SIDE: no product overflows.
    let factor = if u64::from(width) * u64::from(height) <= SUPERSAMPLE_MAX_PIXELS {
        2
    } else {
        1
    };
    let canvas_size = (width * factor, height * factor);
    let mut canvas = vec![0u8; canvas_size.0 as usize * canvas_size.1 as usize * 3];
    // The plotting library asserts and unwraps internally; the inputs are sanitised so that
    // none of those should fire, and a panic that still happens becomes an error.
    let drawn = panic::catch_unwind(AssertUnwindSafe(|| {
        render(&mut canvas, canvas_size, factor, title, series)
    }));
    match drawn {
        Ok(Ok(())) => {}
        Ok(Err(message)) => return Err(draw_error(message)),
        Err(_) => return Err(draw_error("the plotting library panicked".to_string())),
    }
    let pixels = downsample(canvas, canvas_size, factor);

    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let (temp_path, file) = create_temp(dir, file_name).map_err(|source| PlotError::Io {
        path: path.to_path_buf(),
        action: "creating a temporary file",
        source,
    })?;
    let written = write_png(file, &pixels, size)
        .map_err(|source| (source, "writing the PNG"))
        .and_then(|()| fs::rename(&temp_path, path).map_err(|source| (source, "renaming")));
    written.map_err(|(source, action)| {
        // Best effort: the error being reported is the one that matters.
        let _ = fs::remove_file(&temp_path);
        PlotError::Io {
            path: path.to_path_buf(),
            action,
            source,
        }
    })
}

/// Pictures of at most this many pixels are drawn at twice their size and scaled down.
const SUPERSAMPLE_MAX_PIXELS: u64 = 1 << 22;

/// Scale an RGB picture of `size` down by `factor`, averaging each `factor` × `factor` block.
fn downsample(canvas: Vec<u8>, (width, height): (u32, u32), factor: u32) -> Vec<u8> {
    if factor <= 1 {
        return canvas;
    }
    let (width, factor) = (width as usize, factor as usize);
    let (out_width, out_height) = (width / factor, height as usize / factor);
    let area = (factor * factor) as u32;
    let mut out = Vec::with_capacity(out_width * out_height * 3);
    for y in 0..out_height {
        for x in 0..out_width {
            for channel in 0..3 {
                let mut sum = 0u32;
                for dy in 0..factor {
                    let row = (y * factor + dy) * width;
                    for dx in 0..factor {
                        sum += u32::from(canvas[(row + x * factor + dx) * 3 + channel]);
                    }
                }
                out.push(((sum + area / 2) / area) as u8);
            }
        }
    }
    out
}

/// The embedded font: DejaVu Sans, cut down to Latin, Greek and common symbols.
static FONT: &[u8] = include_bytes!("../assets/fonts/DejaVuSans-subset.ttf");

/// The family every text here uses; the plotting library's own defaults use it too.
const FAMILY: &str = "sans-serif";

/// Register [`FONT`] as [`FAMILY`] once; whether it could be.
fn register_font() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED
        .get_or_init(|| plotters::style::register_font(FAMILY, FontStyle::Normal, FONT).is_ok())
}

/// Line colours, cycled: the ten of the common "category10" palette.
const COLOURS: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The colour of series `index`.
fn colour(index: usize) -> RGBColor {
    COLOURS[index % COLOURS.len()]
}

/// Values are clipped to `±LIMIT` so that every range and its padding stay finite.
const LIMIT: f64 = 1e300;

/// Values smaller than this in magnitude are treated as zero when choosing a range.
const TINY: f64 = 1e-200;

/// Most characters kept of a label or the title before fitting it to the width.
const MAX_CHARS: usize = 200;

/// Most legend rows; entries that do not fit are counted in a last "+N more".
const MAX_LEGEND_ROWS: usize = 4;

/// A curve split into runs of finite points: the line breaks where a point was skipped.
struct Curve {
    runs: Vec<Vec<(f64, f64)>>,
}

impl Curve {
    fn new(points: &[(f64, f64)]) -> Self {
        let mut runs = Vec::new();
        let mut run = Vec::new();
        for &(t, v) in points {
            if t.is_finite() && v.is_finite() {
                run.push((t.clamp(-LIMIT, LIMIT), v.clamp(-LIMIT, LIMIT)));
            } else if !run.is_empty() {
                runs.push(std::mem::take(&mut run));
            }
        }
        if !run.is_empty() {
            runs.push(run);
        }
        Self { runs }
    }

    fn points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.runs.iter().flatten().copied()
    }
}

/// The smallest and largest of `values`, if any.
fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// The axis range for data within `data` (finite, within ±LIMIT): never empty, never so narrow
/// against its magnitude that tick placement loses precision. With `pad`, 5% is added on each
/// side, but not across zero: data that are all ≥ 0 start the axis at 0.
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

/// Tick label of `value` on an axis spanning `range`: plain decimals with as many places as the
/// tick spacing needs, or scientific notation for very large or very small magnitudes.
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
        return format!("{value:.decimals$}");
    }
    // Scientific: as many digits as the spacing needs, trailing zeros dropped ("1e-6").
    let digits = (value.abs().log10().floor() - step_exponent).clamp(0.0, 6.0) as usize;
    let text = format!("{value:.digits$e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) if mantissa.contains('.') => {
            let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
            format!("{mantissa}e{exponent}")
        }
        _ => text,
    }
}

/// `text` without control characters and at most [`MAX_CHARS`] long.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_CHARS)
        .collect()
}

/// Sizes of the layout, in pixels, scaled with the picture.
struct Layout {
    title: f64,
    text: f64,
    ticks: f64,
    margin: i32,
    line: u32,
}

impl Layout {
    /// The layout of a canvas of `size`, drawn at `factor` times the size of the picture.
    fn new((width, height): (u32, u32), factor: u32) -> Self {
        let unit = f64::from(width.min(height * 4 / 3)) / 1000.0;
        let factor = f64::from(factor);
        // Scaled with the canvas, but text never below 9 to 12 pixels of the picture.
        let px = |x: f64, min: f64| (x * unit).max(min * factor);
        Self {
            title: px(26.0, 12.0),
            text: px(17.0, 10.0),
            ticks: px(14.0, 9.0),
            margin: px(12.0, 4.0) as i32,
            line: (2.4 * unit).round().clamp(factor, 6.0 * factor) as u32,
        }
    }
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// Turn a plotting error into its message.
fn message(error: impl fmt::Display) -> String {
    error.to_string()
}

/// `text` shortened with an ellipsis until it fits `max_width` pixels in `style`.
fn fit(area: &Area<'_>, text: &str, style: &TextStyle<'_>, max_width: u32) -> String {
    let width = |s: &str| {
        area.estimate_text_size(s, style)
            .map_or(u32::MAX, |(w, _)| w)
    };
    if width(text) <= max_width {
        return text.to_string();
    }
    let mut chars: Vec<char> = text.chars().collect();
    while !chars.is_empty() {
        chars.pop();
        let shorter: String = chars.iter().chain(['…'].iter()).collect();
        if width(&shorter) <= max_width {
            return shorter;
        }
    }
    String::new()
}

/// Draw everything into `pixels` (RGB, `size`), a canvas `factor` times the picture's size.
fn render(
    pixels: &mut [u8],
    size: (u32, u32),
    factor: u32,
    title: &str,
    series: &[Series],
) -> Result<(), String> {
    let layout = Layout::new(size, factor);
    let root = BitMapBackend::with_buffer(pixels, size).into_drawing_area();
    root.fill(&WHITE).map_err(message)?;

    let energy: Vec<Curve> = series.iter().map(|s| Curve::new(&s.energy)).collect();
    let penetration: Vec<Curve> = series.iter().map(|s| Curve::new(&s.penetration)).collect();
    let all = || energy.iter().chain(&penetration).flat_map(Curve::points);
    let time = axis_range(bounds(all().map(|(t, _)| t)), false);
    let energy_range = axis_range(
        bounds(energy.iter().flat_map(|c| c.points()).map(|p| p.1)),
        true,
    );
    let penetration_range = axis_range(
        bounds(penetration.iter().flat_map(|c| c.points()).map(|p| p.1)),
        true,
    );

    // Title.
    let (width, _) = root.dim_in_pixel();
    let margin = layout.margin;
    let title_style = TextStyle::from((FAMILY, layout.title).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let title = fit(
        &root,
        &clean(title),
        &title_style,
        width.saturating_sub(2 * margin as u32),
    );
    root.draw_text(&title, &title_style, (width as i32 / 2, margin))
        .map_err(message)?;
    let mut top = margin + (layout.title * 1.35) as i32;

    // Legend, under the title.
    top += draw_legend(&root, series, &layout, top)?;

    let body = root.margin(top, margin, margin, margin * 2);
    let (_, body_height) = body.dim_in_pixel();
    let (upper, lower) = body.split_vertically(body_height / 2);
    // One width for the value labels of both panels, so that their time axes line up.
    let label_width = value_label_width(&root, &layout, energy_range).max(value_label_width(
        &root,
        &layout,
        penetration_range,
    ));
    let axes = Axes {
        time,
        values: energy_range,
        label_width,
        time_label: false,
    };
    draw_panel(
        &upper,
        &layout,
        "Energy drift (E − E₀) / |E₀|",
        &energy,
        &axes,
    )?;
    let axes = Axes {
        values: penetration_range,
        time_label: true,
        ..axes
    };
    draw_panel(
        &lower,
        &layout,
        "Largest penetration depth",
        &penetration,
        &axes,
    )?;
    root.present().map_err(message)
}

/// Draw the legend rows from `top`; return the height they take.
fn draw_legend(
    root: &Area<'_>,
    series: &[Series],
    layout: &Layout,
    top: i32,
) -> Result<i32, String> {
    let style = TextStyle::from((FAMILY, layout.text).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let (width, _) = root.dim_in_pixel();
    let width = width as i32;
    let margin = layout.margin;
    let row_height = (layout.text * 1.5) as i32;
    let swatch = (layout.text * 1.8) as i32;
    let gap = (layout.text * 0.4) as i32;
    let spacing = (layout.text * 1.6) as i32;
    let max_label = (width - 2 * margin - swatch - gap).max(1) as u32;

    if series.is_empty() {
        let note = style.color(&RGBColor(0x60, 0x60, 0x60));
        root.draw_text("(no series)", &note, (margin, top + row_height / 2))
            .map_err(message)?;
        return Ok(row_height);
    }

    // Place the entries in rows, left to right.
    let mut entries = Vec::with_capacity(series.len());
    let (mut x, mut row) = (margin, 0);
    for (index, s) in series.iter().enumerate() {
        let label = fit(root, &clean(&s.label), &style, max_label);
        let text_width = root
            .estimate_text_size(&label, &style)
            .map_or(0, |(w, _)| w as i32);
        let entry_width = swatch + gap + text_width;
        if x > margin && x + entry_width > width - margin {
            row += 1;
            x = margin;
        }
        if row >= MAX_LEGEND_ROWS {
            break;
        }
        entries.push((index, label, x, row));
        x += entry_width + spacing;
    }
    let hidden = series.len() - entries.len();
    if hidden > 0 {
        // Make room for the count in the last row by dropping entries from its end.
        let more = |n: usize| format!("+{n} more");
        let last_row = MAX_LEGEND_ROWS - 1;
        loop {
            let end = entries
                .iter()
                .rev()
                .find(|e| e.3 == last_row)
                .map_or(margin, |e| {
                    let w = root.estimate_text_size(&e.1, &style).map_or(0, |(w, _)| w);
                    e.2 + swatch + gap + w as i32 + spacing
                });
            let needed = root
                .estimate_text_size(&more(series.len() - entries.len()), &style)
                .map_or(0, |(w, _)| w as i32);
            if end + needed <= width - margin || entries.last().is_none_or(|e| e.3 != last_row) {
                let row_y = top + last_row as i32 * row_height + row_height / 2;
                root.draw_text(&more(series.len() - entries.len()), &style, (end, row_y))
                    .map_err(message)?;
                break;
            }
            entries.pop();
        }
    }

    for (index, label, x, row) in &entries {
        let y = top + *row as i32 * row_height + row_height / 2;
        let line = colour(*index).stroke_width(layout.line + 1);
        root.draw(&PathElement::new(vec![(*x, y), (*x + swatch, y)], line))
            .map_err(message)?;
        root.draw_text(label, &style, (*x + swatch + gap, y))
            .map_err(message)?;
    }
    let rows = entries.last().map_or(0, |e| e.3) + 1;
    Ok(rows as i32 * row_height + layout.margin / 2)
}

/// The width in pixels of the widest value label likely on an axis spanning `values`.
fn value_label_width(area: &Area<'_>, layout: &Layout, values: (f64, f64)) -> u32 {
    let style = TextStyle::from((FAMILY, layout.ticks).into_font());
    let step = (values.1 - values.0) / 10.0;
    [values.0, values.1, values.0 + step, values.1 - step]
        .iter()
        .map(|&v| {
            area.estimate_text_size(&tick_label(v, values), &style)
                .map_or(0, |(w, _)| w)
        })
        .max()
        .unwrap_or(0)
}

/// The axes of one panel.
#[derive(Clone, Copy)]
struct Axes {
    /// The time range, shared by both panels.
    time: (f64, f64),
    /// The value range.
    values: (f64, f64),
    /// Width of the value labels, in pixels.
    label_width: u32,
    /// Whether to name the time axis.
    time_label: bool,
}

/// Draw one panel: axes, the curves of every series, and a note if there is nothing to show.
fn draw_panel(
    area: &Area<'_>,
    layout: &Layout,
    caption: &str,
    curves: &[Curve],
    axes: &Axes,
) -> Result<(), String> {
    let &Axes {
        time,
        values,
        label_width,
        time_label,
    } = axes;
    let caption_style = TextStyle::from((FAMILY, layout.text).into_font()).color(&BLACK);
    let tick_style = TextStyle::from((FAMILY, layout.ticks).into_font()).color(&BLACK);
    let desc_style = TextStyle::from((FAMILY, layout.text).into_font()).color(&BLACK);
    let y_area = f64::from(label_width) + layout.ticks * 1.2;
    let x_area = if time_label {
        layout.ticks * 1.6 + layout.text * 1.6
    } else {
        layout.ticks * 1.8
    };

    let mut chart = ChartBuilder::on(area)
        .caption(caption, caption_style)
        .margin_top(layout.margin / 2)
        .margin_right(layout.margin)
        .x_label_area_size(x_area as u32)
        .y_label_area_size(y_area as u32)
        .build_cartesian_2d(time.0..time.1, values.0..values.1)
        .map_err(message)?;

    let time_fmt = |v: &f64| tick_label(*v, time);
    let value_fmt = |v: &f64| tick_label(*v, values);
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(8)
        .y_labels(6)
        .x_label_formatter(&time_fmt)
        .y_label_formatter(&value_fmt)
        .label_style(tick_style)
        .axis_desc_style(desc_style)
        .max_light_lines(4)
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .bold_line_style(RGBColor(0xd0, 0xd0, 0xd0));
    if time_label {
        mesh.x_desc("simulated time");
    }
    mesh.draw().map_err(message)?;

    // A zero line, when zero is inside and not an edge.
    if values.0 < 0.0 && values.1 > 0.0 {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(time.0, 0.0), (time.1, 0.0)],
                BLACK.mix(0.45).stroke_width(1),
            )))
            .map_err(message)?;
    }

    for (index, curve) in curves.iter().enumerate() {
        let style = colour(index).stroke_width(layout.line);
        for run in &curve.runs {
            if let [point] = run.as_slice() {
                let dot = Circle::new(*point, layout.line as i32 + 2, colour(index).filled());
                chart.draw_series(std::iter::once(dot)).map_err(message)?;
            } else {
                chart
                    .draw_series(LineSeries::new(run.iter().copied(), style))
                    .map_err(message)?;
            }
        }
    }

    if curves.iter().all(|c| c.runs.is_empty()) {
        let plot = chart.plotting_area();
        let note = TextStyle::from((FAMILY, layout.text).into_font())
            .color(&RGBColor(0x60, 0x60, 0x60))
            .pos(Pos::new(HPos::Center, VPos::Center));
        let (width, height) = plot.dim_in_pixel();
        let middle = (width as i32 / 2, height as i32 / 2);
        plot.strip_coord_spec()
            .draw_text("no data", &note, middle)
            .map_err(message)?;
    }
    Ok(())
}

/// Create a new temporary file in `dir` for `name`: hidden, unique to this process and call.
fn create_temp(dir: &Path, name: &std::ffi::OsStr) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut attempts = 0;
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut temp_name = std::ffi::OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{}-{n}.tmp", std::process::id()));
        let temp_path = dir.join(temp_name);
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp_path)
        {
            Ok(file) => return Ok((temp_path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempts < 100 => attempts += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Encode `pixels` (RGB, `size`) as PNG into `file` and flush it to disk.
fn write_png(file: File, pixels: &[u8], (width, height): (u32, u32)) -> io::Result<()> {
    let mut out = BufWriter::new(file);
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(pixels).map_err(png_error)?;
    writer.finish().map_err(png_error)?;
    let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.sync_all()
}

/// An encoding error as an I/O error, keeping an I/O error as it is.
fn png_error(error: png::EncodingError) -> io::Error {
    match error {
        png::EncodingError::IoError(e) => e,
        other => io::Error::other(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh, empty directory under the system's temporary directory.
    fn temp_dir(name: &str) -> PathBuf {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toibox-plot-{}-{}-{name}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

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
        let times: Vec<f64> = (0..=600).map(|i| f64::from(i) / 60.0).collect();
        let curve = |f: &dyn Fn(f64) -> f64| times.iter().map(|&t| (t, f(t))).collect::<Vec<_>>();
        vec![
            Series {
                label: "analytic".into(),
                energy: curve(&|t| 1e-13 * (t * 7.0).sin()),
                penetration: curve(&|_| 0.0),
            },
            Series {
                label: "sliced(3)".into(),
                energy: curve(&|t| -0.002 * t),
                penetration: curve(&|t| 0.004 * (1.0 + (t * 3.0).sin()).abs()),
            },
            Series {
                label: "sliced-bisect(3)".into(),
                energy: curve(&|t| -0.0005 * t),
                penetration: curve(&|t| 0.001 * (t * 2.0).cos().abs()),
            },
            Series {
                label: "discrete".into(),
                energy: curve(&|t| 0.01 * t * t),
                penetration: curve(&|t| 0.02 + 0.01 * (t * 5.0).sin()),
            },
        ]
    }

    /// Decode the PNG at `path`: its size and RGB(A) pixels.
    fn decode(path: &Path) -> ((u32, u32), Vec<u8>) {
        let decoder = png::Decoder::new(File::open(path).unwrap());
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        ((info.width, info.height), buf)
    }

    #[test]
    fn writes_a_png_of_the_requested_size() {
        let dir = temp_dir("size");
        let path = dir.join("compare.png");
        plot_comparison(&path, "synthetic scene", &four_series(), (900, 700)).unwrap();

        let bytes = fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&bytes[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 900);
        assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 700);

        let (size, pixels) = decode(&path);
        assert_eq!(size, (900, 700));
        // Every series colour is on the picture, and so is dark text.
        for index in 0..4 {
            let RGBColor(r, g, b) = colour(index);
            assert!(
                pixels.chunks(3).any(|p| p == [r, g, b]),
                "colour of series {index} missing"
            );
        }
        assert!(
            pixels
                .chunks(3)
                .filter(|p| p.iter().all(|&c| c < 64))
                .count()
                > 500
        );
        // Only the plot is left in the directory: the temporary file was renamed.
        assert_eq!(entries(&dir), vec![path.clone()]);

        // Writing again replaces the file.
        plot_comparison(&path, "again", &four_series()[..1], (300, 300)).unwrap();
        assert_eq!(decode(&path).0, (300, 300));
        assert_eq!(entries(&dir), vec![path]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_directory_is_an_error_and_leaves_nothing() {
        let dir = temp_dir("missing");
        let path = dir.join("no-such-dir").join("compare.png");
        let err = plot_comparison(&path, "t", &four_series(), DEFAULT_SIZE).unwrap_err();
        assert!(matches!(err, PlotError::Io { .. }), "{err:?}");
        assert_eq!(err.path(), path);
        assert!(err.to_string().contains("compare.png"), "{err}");
        assert!(!path.exists());
        assert!(entries(&dir).is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_rename_removes_the_temporary_file() {
        let dir = temp_dir("rename");
        // The target is a non-empty directory: the rename fails after the PNG was written.
        let path = dir.join("taken");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("keep"), b"x").unwrap();
        let err = plot_comparison(&path, "t", &four_series(), (400, 300)).unwrap_err();
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
        assert_eq!(entries(&dir), vec![path.clone()]);
        assert_eq!(entries(&path), vec![path.join("keep")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_sizes_and_paths_are_errors() {
        let dir = temp_dir("bad");
        let path = dir.join("p.png");
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
        let err = plot_comparison(&dir.join(".."), "t", &[], DEFAULT_SIZE).unwrap_err();
        assert!(matches!(err, PlotError::Path { .. }), "{err:?}");
        assert!(entries(&dir).is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn awkward_data_is_drawn_without_panicking() {
        let dir = temp_dir("edge");
        let s = |label: &str, energy: Vec<(f64, f64)>, penetration: Vec<(f64, f64)>| Series {
            label: label.into(),
            energy,
            penetration,
        };
        let cases: Vec<(&str, Vec<Series>)> = vec![
            ("no series", vec![]),
            ("empty curves", vec![s("empty", vec![], vec![])]),
            (
                "one point",
                vec![s("one", vec![(0.5, 0.1)], vec![(0.5, 0.0)])],
            ),
            (
                "zeros",
                vec![s("zero", vec![(0.0, 0.0), (1.0, 0.0)], vec![(0.0, 0.0); 3])],
            ),
            (
                "one time",
                vec![s("t", vec![(2.0, 1.0), (2.0, 3.0)], vec![(2.0, 1.0)])],
            ),
            (
                "non-finite",
                vec![s(
                    "nan\nlabel",
                    vec![
                        (0.0, f64::NAN),
                        (1.0, 1.0),
                        (f64::INFINITY, 2.0),
                        (3.0, 3.0),
                    ],
                    vec![(f64::NAN, f64::NAN), (0.0, f64::NEG_INFINITY)],
                )],
            ),
            (
                "huge",
                vec![
                    s(
                        "max",
                        vec![(0.0, f64::MAX), (1.0, -f64::MAX)],
                        vec![(0.0, 1e308)],
                    ),
                    s(
                        "tiny",
                        vec![(0.0, 1e-310), (1e-300, 5e-324)],
                        vec![(0.0, 0.0)],
                    ),
                    s(
                        "offset",
                        vec![(0.0, 1.0), (1.0, 1.0 + 1e-15)],
                        vec![(1e9, 1e9)],
                    ),
                    s("times", vec![(-f64::MAX, 0.0), (f64::MAX, 1.0)], vec![]),
                ],
            ),
            (
                "many long labels",
                (0..40)
                    .map(|i| {
                        s(
                            &format!("strategy {i} {}", "x".repeat(i * 5)),
                            vec![(0.0, i as f64)],
                            vec![],
                        )
                    })
                    .collect(),
            ),
        ];
        for (index, (title, series)) in cases.iter().enumerate() {
            let path = dir.join(format!("case{index}.png"));
            plot_comparison(&path, &title.repeat(20), series, (MIN_SIDE, MIN_SIDE))
                .unwrap_or_else(|e| panic!("{title}: {e}"));
            plot_comparison(&path, title, series, (1000, 400))
                .unwrap_or_else(|e| panic!("{title}: {e}"));
            assert_eq!(decode(&path).0, (1000, 400), "{title}");
        }
        fs::remove_dir_all(&dir).unwrap();
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
        let (lo, hi) = axis_range(Some((-1.0, 1.0)), true);
        assert!(lo < -1.0 && hi > 1.0);
        let (lo, hi) = axis_range(Some((5.0, 5.0)), false);
        assert!(lo < 5.0 && hi > 5.0);
        let (lo, hi) = axis_range(Some((-LIMIT, LIMIT)), true);
        assert!(lo.is_finite() && hi.is_finite() && lo < hi);
    }

    #[test]
    fn tick_labels_are_short() {
        assert_eq!(tick_label(0.5, (0.0, 1.0)), "0.5");
        assert_eq!(tick_label(2.0, (0.0, 10.0)), "2");
        assert_eq!(tick_label(-0.0, (-1.0, 1.0)), "0");
        assert_eq!(tick_label(1e-17, (-1.0, 1.0)), "0");
        assert_eq!(tick_label(2e-7, (-1e-6, 1e-6)), "2e-7");
        assert_eq!(tick_label(-1.5e-6, (-2e-6, 2e-6)), "-1.5e-6");
        assert_eq!(tick_label(1e-6, (-2e-6, 2e-6)), "1e-6");
        assert_eq!(tick_label(1.2e7, (0.0, 2e7)), "1.2e7");
        assert_eq!(tick_label(3e6, (0.0, 1e7)), "3e6");
        assert_eq!(tick_label(0.025, (0.0, 0.031)), "0.025");
    }
}
