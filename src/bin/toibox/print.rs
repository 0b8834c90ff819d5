//! What the commands print: run summaries and events, comparison tables and their
//! incidents, the CSV of a comparison, and the sweeps' table.

use toibox::runs::{self, RunReport};
use toibox::scene::Scene;
use toibox::sweeps::Comparison;

use crate::SweepsArgs;

/// Print each collision on a line of its own, in the order they happened.
pub(crate) fn print_events(events: &[runs::EventRecord]) {
    println!("  {} events:", events.len());
    for e in events {
        let [px, py, pz] = e.point;
        let [nx, ny, nz] = e.normal;
        println!(
            "  step {:>6}  t {:<12}  {:<13} ball {} with {} {}  at ({}, {}, {})  normal ({}, {}, {})  impulse {:.6e}",
            e.step,
            short(e.time),
            e.kind.name(),
            e.a,
            e.kind.name().trim_start_matches("ball_"),
            e.b,
            short(px),
            short(py),
            short(pz),
            short(nx),
            short(ny),
            short(nz),
            e.impulse
        );
    }
}

pub(crate) fn print_summary(r: &RunReport) {
    let (s, totals) = (&r.stats, &r.stats.steps);
    let title = if r.name.is_empty() {
        String::new()
    } else {
        format!(" \"{}\"", r.name)
    };
    println!(
        "{}{title}: {} steps of {} ({} time units) with {}",
        r.scene,
        r.steps,
        r.dt,
        short(r.time),
        r.toi
    );
    println!(
        "  {}; {} (ball-ball {}, plane {}, cylinder {}, polygon {}); {}",
        count(r.balls.len(), "ball"),
        count(totals.collisions, "collision"),
        totals.ball_ball,
        totals.ball_plane,
        totals.ball_cylinder,
        totals.ball_polygon,
        count(totals.toi_queries, "TOI query")
    );
    let drift = plain_zero(runs::relative_change(s.energy_start, s.energy_end));
    println!(
        "  energy {:.6e} -> {:.6e} (drift {drift:.2e}); deepest overlap {:.2e}; escaped {}; passed through {}; cap hits {} ({} stopped short, {}); asleep at the end {}",
        plain_zero(s.energy_start),
        plain_zero(s.energy_end),
        plain_zero(totals.max_penetration),
        totals.escaped,
        s.passed_through,
        totals.events_cap_hits,
        count(totals.stopped, "ball"),
        taken(totals.energy_stopped),
        totals.sleeping
    );
    if totals.contact_solves + totals.contact_solves_left > 0 {
        println!(
            "  contacts solved together {} ({} sweeps; {} by Coulomb's convex relaxation), largest residual speed {:.2e} ({:.2} of its tolerance); {} left to pair-by-pair contacts",
            count(totals.contact_solves, "time"),
            totals.contact_sweeps,
            totals.contact_solves_relaxed,
            totals.contact_residual,
            totals.contact_residual_share,
            count(totals.contact_solves_left, "island")
        );
    }
    println!(
        "  {:.1} ms of stepping, {:.3} ms per step",
        s.wall_ms,
        s.wall_ms / r.steps.max(1) as f64
    );
}

/// Return what stopping balls took of the energy: "none taken" or "1.23e-4 of energy taken".
fn taken(energy: f64) -> String {
    if energy == 0.0 {
        "none taken".to_owned()
    } else {
        format!("{energy:.2e} of energy taken")
    }
}

/// Return `n` and `noun`, in the plural unless `n` is 1: "1 ball", "2 balls", "0 TOI queries".
pub(crate) fn count(n: impl TryInto<u64> + Copy + std::fmt::Display, noun: &str) -> String {
    match (n.try_into().ok(), noun.strip_suffix('y')) {
        (Some(1), _) => format!("{n} {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}

/// Return `x`, with a negative zero made positive: printed, `-0.000000e0` says nothing more
/// than `0.000000e0`.
pub(crate) fn plain_zero(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x }
}

/// Return `x` with at most 6 decimals and no trailing zeros.
pub(crate) fn short(x: f64) -> String {
    let text = format!("{x:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

/// Print each strategy's incidents, one line each, naming balls by their scene names.
pub(crate) fn print_explained(c: &runs::Comparison, scene: &Scene) {
    use toibox::scene::SceneItem;
    let name = |item: SceneItem| match item {
        SceneItem::Ball(i) => scene.ball_label(i),
        SceneItem::Plane(i) => format!("plane {i}"),
        SceneItem::Cylinder(i) => format!("cylinder {i}"),
        SceneItem::Polygon(i) => format!("polygon {i}"),
    };
    for explained in &c.explain {
        println!("\n{}:", explained.toi);
        if explained.incidents.is_empty() {
            println!("  nothing missed, spurious, passed through or escaped");
        }
        for i in &explained.incidents {
            let kind = match i.kind {
                runs::IncidentKind::Missed => "missed",
                runs::IncidentKind::Spurious => "spurious",
                runs::IncidentKind::PassedThrough => "passed through",
                runs::IncidentKind::Escaped => "escaped",
            };
            println!(
                "  {kind:<15} step {:>5}  t {:>10.6}  {:<24} {:<14} depth {:.3e}",
                i.step,
                i.time,
                name(SceneItem::Ball(i.ball)),
                name(i.other),
                i.depth
            );
        }
    }
}

/// Write `c`'s table as CSV: a header of the JSON's field names, then a row per strategy.
pub(crate) fn write_csv(c: &runs::Comparison, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    for result in &c.results {
        writer.serialize(result)?;
    }
    writer.flush()
}

pub(crate) fn print_comparison(c: &runs::Comparison) {
    println!(
        "{}: {} steps per strategy, each checked against the analytic sweep\n",
        c.scene, c.steps
    );
    println!(
        "{:<22} {:>10} {:>8} {:>9} {:>11} {:>11} {:>11} {:>8} {:>8} {:>9} {:>11} {:>9} {:>11} {:>11}",
        "strategy",
        "collisions",
        "missed",
        "spurious",
        "mean |dt|",
        "max |dt|",
        "deepest",
        "escaped",
        "through",
        "cap hits",
        "energy",
        "ms/step",
        "queries/st",
        "drift max"
    );
    for r in &c.results {
        println!(
            "{:<22} {:>10} {:>8} {:>9} {:>11} {:>11} {:>11.2e} {:>8} {:>8} {:>9} {:>11.2e} {:>9.3} {:>11.1} {:>11.2e}",
            r.toi,
            r.collisions,
            r.missed,
            r.spurious,
            or_dash(r.toi_error_mean),
            or_dash(r.toi_error_max),
            plain_zero(r.max_penetration),
            r.escaped,
            r.passed_through,
            r.cap_hits,
            plain_zero(r.energy_drift),
            r.ms_per_step,
            r.toi_queries_per_step,
            plain_zero(r.state_drift_max)
        );
    }
    println!(
        "\nmissed: contacts the analytic sweep finds from the same state and the strategy does not\n\
         (tunnelling). mean/max |dt|: time error of the contacts both find (- where none). deepest:\n\
         largest overlap at a step end. through: balls that passed through something in some step\n\
         (the judge: a path through a shape, or an overlap beyond 5% of the radius). cap hits:\n\
         contacts held after a step's budget ran out. energy: relative drift of kinetic plus\n\
         potential energy. drift max: farthest a ball ends from where the analytic run puts it.\n\
         Times are wall clock: compare within one run."
    );
}

/// Return `x` as the table prints a time error, or `-` where nothing was compared.
pub(crate) fn or_dash(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |x| format!("{x:.2e}"))
}

pub(crate) fn print_table(args: &SweepsArgs, rows: &[Comparison]) {
    println!(
        "toibox {}: {} seeded sweeps per pair kind (seed {}), each strategy against the exact one\n",
        env!("CARGO_PKG_VERSION"),
        args.cases,
        args.seed
    );
    println!(
        "{:<20} {:<14} {:>8} {:>8} {:>9} {:>12} {:>12} {:>10}",
        "strategy", "pair", "hits", "missed", "spurious", "mean early", "max error", "ns/query"
    );
    for row in rows {
        println!(
            "{:<20} {:<14} {:>8} {:>8} {:>9} {:>12.3e} {:>12.3e} {:>10.0}",
            row.strategy,
            row.kind.name(),
            row.hits,
            row.missed,
            row.spurious,
            row.mean_time_error,
            row.max_time_error,
            row.ns_per_query
        );
    }
    println!(
        "\nmissed: exact hits the strategy did not see (tunnelling). spurious: hits where the exact\n\
         sweep finds none. mean early / max error: how much earlier than the exact time a hit was\n\
         reported, in units of the interval. Times are wall clock: compare within one run."
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_zeros_read_as_words_and_numbers() {
        assert_eq!(count(1_u64, "ball"), "1 ball");
        assert_eq!(count(0_usize, "ball"), "0 balls");
        assert_eq!(count(2_u64, "TOI query"), "2 TOI queries");
        assert_eq!(count(1_u64, "TOI query"), "1 TOI query");
        // A negative zero prints as zero; a negative number keeps its sign
        assert_eq!(format!("{:.6e}", plain_zero(-0.0)), "0.000000e0");
        assert_eq!(format!("{:.2e}", plain_zero(-1e-3)), "-1.00e-3");
    }
}
