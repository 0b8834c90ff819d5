//! A chart's frame: its axes of the types their scales need, the caption, the grid and
//! ticks, and room for what is drawn at its edges.

use super::*;

/// What a chart's frame shows: caption, axes and their descriptions.
#[derive(Clone, Copy)]
pub(super) struct Frame<'a> {
    pub(super) caption: &'a str,
    pub(super) x: &'a Axis,
    pub(super) y: &'a Axis,
    pub(super) x_desc: Option<&'a str>,
    pub(super) y_desc: Option<&'a str>,
    /// Width of the widest value label, in pixels.
    pub(super) y_label_width: u32,
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
pub(super) type Chart<'a, DB, X, Y> = ChartContext<'a, DB, Cartesian2d<X, Y>>;

/// A chart builder on `area` with the caption and label areas `frame` needs.
pub(super) fn chart_builder<'a, DB: DrawingBackend>(
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
    let (x_area, y_area) = label_areas(layout, frame);
    builder
        .margin(layout.margin)
        .x_label_area_size(x_area as u32)
        .y_label_area_size(y_area as u32);
    builder
}

/// The heights of the time axis's label area and the widths of the value axis's, in pixels.
fn label_areas(layout: &Layout, frame: &Frame<'_>) -> (f64, f64) {
    let desc = |d: Option<&str>| if d.is_some() { layout.text * 1.5 } else { 0.0 };
    let x_area = layout.ticks * 1.8 + desc(frame.x_desc);
    let y_area = f64::from(frame.y_label_width) + layout.ticks * 1.2 + desc(frame.y_desc);
    (x_area, y_area)
}

/// The axes of `frame`, widened so that the widest line or marker centred on a point at an
/// end of a range stays inside the plotting area `chart_builder` makes on `area`: plotters
/// does not clip what it draws to the frame.
pub(super) fn widened<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    layout: &Layout,
    frame: &Frame<'_>,
) -> (Axis, Axis) {
    let (width, height) = area.dim_in_pixel();
    let caption = if frame.caption.is_empty() {
        0.0
    } else {
        layout.text * 2.0
    };
    let margins = 2.0 * f64::from(layout.margin);
    let (x_area, y_area) = label_areas(layout, frame);
    let plot_w = f64::from(width) - margins - y_area;
    let plot_h = f64::from(height) - margins - x_area - caption;
    // Half the widest line, or a dot's radius, and a pixel to spare
    let reach = f64::from(layout.line + MAX_WIDENING + 3);
    let fraction = |length: f64| reach / (length - 2.0 * reach).max(4.0 * reach);
    (
        frame.x.widened(fraction(plot_w)),
        frame.y.widened(fraction(plot_h)),
    )
}

/// Draw the grid, the ticks and their labels, and the axis descriptions of `frame`.
pub(super) fn draw_mesh<DB, X, Y>(
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
pub(super) fn draw_note<DB, X, Y>(
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
