//! The curves of [`plot_comparison`](super::plot_comparison): five panels over time and the
//! legend.

use super::*;

/// One panel of [`plot_comparison`]: its caption and the curve it takes from a series.
pub(super) struct Panel {
    pub(super) caption: &'static str,
    pub(super) values: fn(&Series) -> &[f64],
}

/// The panels, in reading order (rows of two).
pub(super) const PANELS: [Panel; 5] = [
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
pub(super) fn points<'a>(
    series: &'a Series,
    values: &'a [f64],
) -> impl Iterator<Item = (f64, f64)> + 'a {
    series.time.iter().copied().zip(values.iter().copied())
}

/// Draw the five panels and the legend of [`plot_comparison`] in a grid of three rows of two.
pub(super) fn draw_comparison<DB: DrawingBackend>(
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

/// Draw one panel of [`plot_comparison`]: its frame and the curve of every series.
pub(super) fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    layout: &Layout,
    frame: &Frame<'_>,
    curves: &[Curve],
) -> Result<(), String> {
    let (x, y) = widened(area, layout, frame);
    let frame = &Frame {
        x: &x,
        y: &y,
        ..*frame
    };
    let mut builder = chart_builder(area, layout, frame);
    with_chart!(builder, frame, |chart| {
        draw_mesh(&mut chart, layout, frame)?;
        draw_curves(&mut chart, layout, frame, curves)
    })
}

/// Draw `curves`, the one of series `i` in [`colour`]`(i)` and [`stroke`] width, a lone point as a dot; a zero
/// line where a linear value axis crosses zero; "no data" if there is no point at all.
pub(super) fn draw_curves<DB, X, Y>(
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
pub(super) fn draw_legend<DB: DrawingBackend>(
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
