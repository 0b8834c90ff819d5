//! The chart of [`plot_pareto`](super::plot_pareto): cost per step against missed contacts.

use super::*;

/// Draw the chart of [`plot_pareto`] on `body`.
pub(super) fn draw_pareto<DB: DrawingBackend>(
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
    let (x, y) = widened(body, layout, &frame);
    let frame = Frame {
        x: &x,
        y: &y,
        ..frame
    };
    let mut builder = chart_builder(body, layout, &frame);
    with_chart!(builder, &frame, |chart| {
        draw_mesh(&mut chart, layout, &frame)?;
        draw_families(&mut chart, layout, &frame, points)
    })
}

/// Draw each family of `points`: a line through its points in its colour, or triangles for
/// the analytic sweep; a label at every point; the legend in the upper right corner.
pub(super) fn draw_families<'a, DB, X, Y>(
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
pub(super) fn draw_point_labels<DB, X, Y>(
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
