//! Strategies side by side on one scene, each measured against the analytic run.

use serde::Serialize;

use super::audit::{Audit, Verdict};
use super::{RunOptions, RunReport, Runner, relative_change, run};
use crate::judge::Fault;
use crate::math::Real;
use crate::scene::{Scene, SceneItem};
use crate::sim::StepError;
use crate::toi::ToiMode;

/// What to compare, and how much to explain.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareOptions {
    /// Steps each strategy takes.
    pub steps: u64,
    /// The strategies, in the order the results list them.
    pub strategies: Vec<ToiMode>,
    /// How many of each kind of [`Incident`] to keep per strategy (0: none).
    pub explain: usize,
}

/// One strategy measured against the analytic run of the same scene.
///
/// The contact columns (`missed`, `spurious`, `compared` and the time errors) come from asking
/// the analytic sweep every question the strategy is asked, from the same state, with these
/// rules: a pair already touching when the query begins is not a new contact; each contact
/// (one pair on one pair of paths) is counted once, however often it is asked about again;
/// a contact the strategy reports after the analytic one, when the pair is apart again on its
/// paths (the first contact skipped), is missed, not compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StrategyResult {
    /// The strategy, as on the command line.
    pub toi: String,
    /// Collisions resolved.
    pub collisions: u64,
    /// Contacts the analytic sweep finds and this strategy does not (tunnelling), or skips for
    /// a later one. Zero for analytic itself.
    pub missed: u64,
    /// Contacts this strategy reports where the analytic sweep finds none.
    pub spurious: u64,
    /// Contacts both found, whose times were compared.
    pub compared: u64,
    /// Mean of `|t - t_analytic|` over the compared contacts, in time units; `None` (`null` in
    /// JSON, empty in CSV) when no contact was compared.
    pub toi_error_mean: Option<Real>,
    /// Largest `|t - t_analytic|`; `None` when no contact was compared.
    pub toi_error_max: Option<Real>,
    /// Largest overlap at the end of any step.
    pub max_penetration: Real,
    /// Most balls behind a plane or inside a shape at the end of any step.
    pub escaped: u64,
    /// Balls the [`judge`](crate::judge) found passed through something in some step.
    pub passed_through: u64,
    /// Contacts held after a step's budget of collisions ran out, summed over the steps.
    pub cap_hits: u64,
    /// `(E_end - E_start) / |E_start|` (absolute when `E_start` is zero).
    pub energy_drift: Real,
    /// Wall-clock milliseconds per step (of a run without the analytic cross-check).
    pub ms_per_step: Real,
    /// Time-of-impact queries per step.
    pub toi_queries_per_step: Real,
    /// Largest distance of a ball's final position from its position in the analytic run.
    pub state_drift_max: Real,
    /// Mean distance of the final positions from the analytic run's.
    pub state_drift_mean: Real,
}

/// What an [`Incident`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IncidentKind {
    /// A contact the analytic sweep finds and the strategy does not, or skips for a later one.
    Missed,
    /// A contact the strategy reports and the analytic sweep does not find.
    Spurious,
    /// A ball the judge found passed through something.
    PassedThrough,
    /// A ball the judge found behind a plane or inside a cylinder.
    Escaped,
}

/// One contact or fault behind a number of the table, for a user to check.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Incident {
    /// What it is.
    pub kind: IncidentKind,
    /// The step, counted from 0.
    pub step: u64,
    /// Simulation time: of the contact for missed and spurious ones (the analytic time, and the
    /// strategy's), of the end of the step for the judge's findings.
    pub time: Real,
    /// The ball, by its number in the scene.
    pub ball: usize,
    /// The other body.
    pub other: SceneItem,
    /// How deep the ball went into the other body, in length units: for a missed contact the
    /// deepest overlap on the two straight paths of the query (while the ball moves twice the
    /// sum of the radii past the contact); for a spurious one minus the gap at the
    /// reported time (negative: they were apart); for the judge's findings the deepest overlap
    /// on the ball's path in the step.
    pub depth: Real,
}

/// The incidents of one strategy.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Explained {
    /// The strategy, as on the command line.
    pub toi: String,
    /// The first missed, spurious, passed-through and escaped incidents, as many of each as
    /// asked for, in that order, each kind in the order met.
    pub incidents: Vec<Incident>,
}

/// Every strategy's result on one scene.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The scene, as the caller named it.
    pub scene: String,
    /// Steps each strategy took.
    pub steps: u64,
    /// One per strategy, in the order asked.
    pub results: Vec<StrategyResult>,
    /// One per strategy when incidents were asked for (`explain` > 0).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub explain: Vec<Explained>,
    /// Each strategy's run (the audited one, with the missed contacts and the drift from the
    /// analytic run traced), for plots.
    #[serde(skip)]
    pub runs: Vec<RunReport>,
}

/// Run `scene` with each of `options.strategies` from the same initial state, and measure each
/// against the analytic run; `progress(steps_done)` counts the steps of all runs
/// (`steps * (2 * strategies + 1)`: each strategy runs once alone to be timed, then once
/// audited, in step with the analytic run).
///
/// # Errors
///
/// The first [`StepError`] of any run.
pub fn compare(
    scene: &Scene,
    name: &str,
    options: &CompareOptions,
    mut progress: impl FnMut(u64),
) -> Result<Comparison, StepError> {
    let CompareOptions {
        steps,
        ref strategies,
        explain,
    } = *options;
    let count = strategies.len() as u64;
    let mut timed = Vec::with_capacity(strategies.len());
    for (k, toi) in (0..).zip(strategies.iter().cloned()) {
        let options = RunOptions {
            steps,
            toi,
            events: false,
        };
        timed.push(run(scene, name, options, |d| progress(k * steps + d))?);
    }

    // The audited runs in step with the analytic one, for the drift after each step
    let audits: Vec<Audit> = (strategies.iter())
        .map(|toi| Audit::new(toi.clone(), explain))
        .collect();
    let mut reference = Runner::new(scene, false);
    let mut checked: Vec<Runner<'_>> = strategies
        .iter()
        .map(|_| Runner::new(scene, false))
        .collect();
    for step in 0..steps {
        reference.step(&ToiMode::Analytic)?;
        for (runner, audit) in checked.iter_mut().zip(&audits) {
            audit.begin_step(step, runner.world.sim.time());
            runner.step(audit)?;
            runner.trace.missed.push(audit.missed());
            let drift = (runner.positions().zip(reference.positions()))
                .map(|(a, b)| a.distance(b))
                .fold(0.0, Real::max);
            runner.trace.drift.push(drift);
        }
        progress(count * steps + (step + 1) * (count + 1));
    }

    let reference = reference.finish(name, "analytic");
    let mut results = Vec::with_capacity(strategies.len());
    let mut explained = Vec::new();
    let mut runs = Vec::with_capacity(strategies.len());
    for ((timed, runner), audit) in timed.into_iter().zip(checked).zip(&audits) {
        let findings = runner.judge.findings.clone();
        let world_items = |e| runner.world.item(e);
        let tally = audit.tally().clone();
        let mut incidents: Vec<Incident> = Vec::new();
        for verdict in [Verdict::Missed, Verdict::Spurious] {
            let kind = match verdict {
                Verdict::Missed => IncidentKind::Missed,
                Verdict::Spurious => IncidentKind::Spurious,
            };
            for n in tally.noted.iter().filter(|n| n.verdict == verdict) {
                if let (Some(SceneItem::Ball(ball)), Some(other)) =
                    (world_items(n.ball), world_items(n.other))
                {
                    incidents.push(Incident {
                        kind,
                        step: n.step,
                        time: n.time,
                        ball,
                        other,
                        depth: n.depth,
                    });
                }
            }
        }
        for fault in [Fault::PassedThrough, Fault::Escaped] {
            let kind = match fault {
                Fault::PassedThrough => IncidentKind::PassedThrough,
                Fault::Escaped => IncidentKind::Escaped,
            };
            let found = findings.iter().filter(|f| f.fault == fault).take(explain);
            incidents.extend(found.map(|f| {
                Incident {
                    kind,
                    step: f.step,
                    time: runner
                        .trace
                        .time
                        .get(f.step as usize)
                        .copied()
                        .unwrap_or(0.0),
                    ball: f.ball,
                    other: f.other,
                    depth: f.depth,
                }
            }));
        }
        let mut checked = runner.finish(name, &timed.toi);
        debug_assert_eq!(checked.balls, timed.balls, "the audit changes nothing");
        checked.stats.wall_ms = timed.stats.wall_ms;

        let s = &checked.stats;
        let drifts: Vec<Real> = (checked.balls.iter().zip(&reference.balls))
            .map(|(a, b)| a.pos.distance(b.pos))
            .collect();
        let per_step = |x: Real| if steps > 0 { x / steps as Real } else { 0.0 };
        let compared = tally.compared;
        results.push(StrategyResult {
            toi: checked.toi.clone(),
            collisions: s.steps.collisions,
            missed: tally.missed,
            spurious: tally.spurious,
            compared,
            toi_error_mean: (compared > 0).then(|| tally.error_sum / compared as Real),
            toi_error_max: (compared > 0).then_some(tally.error_max),
            max_penetration: s.steps.max_penetration,
            escaped: s.steps.escaped,
            passed_through: s.passed_through,
            cap_hits: s.steps.events_cap_hits,
            energy_drift: relative_change(s.energy_start, s.energy_end),
            ms_per_step: per_step(s.wall_ms),
            toi_queries_per_step: per_step(s.steps.toi_queries as Real),
            state_drift_max: drifts.iter().copied().fold(0.0, Real::max),
            state_drift_mean: if drifts.is_empty() {
                0.0
            } else {
                drifts.iter().sum::<Real>() / drifts.len() as Real
            },
        });
        if explain > 0 {
            explained.push(Explained {
                toi: checked.toi.clone(),
                incidents,
            });
        }
        runs.push(checked);
    }
    Ok(Comparison {
        scene: name.to_owned(),
        steps,
        results,
        explain: explained,
        runs,
    })
}
