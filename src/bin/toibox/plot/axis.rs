//! Axes: linear or logarithmic by the values, their ranges, and tick labels.

use super::*;

/// Values are clipped to `±LIMIT` so that every range and its padding stay finite.
pub(super) const LIMIT: f64 = 1e300;

/// Values smaller than this in magnitude are treated as zero when choosing a range.
pub(super) const TINY: f64 = 1e-200;

/// Decades positive values must span for a log axis: a ratio of about 30.
pub(super) const MIN_DECADES: f64 = 1.5;

/// Most decades a log axis shows; smaller values are raised to its floor.
pub(super) const MAX_DECADES: f64 = 15.0;

/// How values are placed along an axis.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Scale {
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
pub(super) fn choose_scale(values: &[f64]) -> Scale {
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
pub(super) struct Axis {
    pub(super) scale: Scale,
    pub(super) range: (f64, f64),
}

impl Axis {
    /// A value axis for `values` (finite, within ±[`LIMIT`]): the scale [`choose_scale`]
    /// picks, the data with 5% to spare on each side, and a linear axis of values that are all
    /// ≥ 0 starting at 0.
    pub(super) fn for_values(values: &[f64]) -> Self {
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
    pub(super) fn time(times: &[f64]) -> Self {
        let data = bounds(times.iter().copied()).map(|(lo, hi)| (lo.min(0.0), hi));
        Self {
            scale: Scale::Linear,
            range: axis_range(data, false),
        }
    }

    /// The axis with `fraction` of its length added at each end, on its own scale (decades
    /// on a log axis).
    pub(super) fn widened(&self, fraction: f64) -> Self {
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
    pub(super) fn place(&self, value: f64) -> Option<f64> {
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
    pub(super) fn label(&self, value: f64) -> String {
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
    pub(super) fn label_width<DB: DrawingBackend>(
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
pub(super) fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// The linear axis range for data within `data` (finite, within ±LIMIT): never empty, never so
/// narrow against its magnitude that tick placement loses precision. With `pad`, 5% is added
/// on each side, but not across zero: data that are all ≥ 0 start the axis at 0.
pub(super) fn axis_range(data: Option<(f64, f64)>, pad: bool) -> (f64, f64) {
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
pub(super) fn tick_label(value: f64, range: (f64, f64)) -> String {
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
pub(super) fn log_tick_label(value: f64) -> String {
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
pub(super) fn trim_zeros(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// `value` in scientific notation with `digits` decimals, trailing zeros dropped.
pub(super) fn short_scientific(value: f64, digits: usize) -> String {
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
pub(super) type Curve = Vec<Vec<(f64, f64)>>;

/// Place `points` on the axes `x` and `y`, breaking the curve at each point that has no place.
pub(super) fn place(points: impl Iterator<Item = (f64, f64)>, x: &Axis, y: &Axis) -> Curve {
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
pub(super) fn finite(values: impl Iterator<Item = f64>) -> Vec<f64> {
    values
        .filter(|v| v.is_finite())
        .map(|v| v.clamp(-LIMIT, LIMIT))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
