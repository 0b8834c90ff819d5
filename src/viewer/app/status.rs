//! What the HUD says about a pane: the scene, the strategy, time and speed, collisions, energy,
//! faults, cap hits and the cost of the physics.

use super::*;

impl App {
    pub(super) fn draw_hud(&self, k: usize, x: f32, width: f32, hud: &Hud) {
        let pane = &self.panes[k];
        let sim = &pane.world.sim;
        let report = sim.report();
        let mut lines = Vec::with_capacity(12);
        let title = if self.scene.name.is_empty() {
            self.file.clone()
        } else {
            self.scene.name.clone()
        };
        lines.push(Line::title(title));
        if !self.file.is_empty() && !self.scene.name.is_empty() {
            lines.push(Line::new(self.file.clone(), DIM));
        }
        let label = if self.panes.len() > 1 {
            format!("{} pane: {}", ["left", "right"][k.min(1)], pane.strategy())
        } else {
            format!("strategy {}", pane.strategy())
        };
        lines.push(Line::new(label, ACCENT));
        let state = if self.paused { "  paused" } else { "" };
        let (steps, run) = (sim.steps(), self.scene.steps);
        let of = if steps <= run {
            format!("{steps} of {run}")
        } else {
            format!("{steps} (the scene's run: {run})")
        };
        lines.push(Line::new(
            format!(
                "time {}   steps {of}   speed {}{state}",
                short(sim.time()),
                speed_label(self.speed_power)
            ),
            TEXT,
        ));
        lines.push(Line::new(
            format!(
                "collisions {} this step, {} in all",
                report.stats.collisions, pane.totals.collisions
            ),
            TEXT,
        ));
        let (start, now) = pane.energy;
        let change = if start == 0.0 {
            format!("change {}", sci(now - start))
        } else {
            format!("drift {}", percent(drift(start, now)))
        };
        let potential = if self.scene.gravity == Vec3::ZERO {
            ""
        } else {
            " (kinetic + potential)"
        };
        lines.push(Line::new(
            format!("energy {}{potential}   {change}", sci(now)),
            TEXT,
        ));
        // Under gravity kinetic energy trades with height: shown, not judged
        if self.scene.gravity != Vec3::ZERO {
            lines.push(Line::new(
                format!(
                    "kinetic {}, at the start {}",
                    sci(pane.kinetic()),
                    sci(pane.kinetic_start)
                ),
                DIM,
            ));
        }
        let (escaped, through) = pane.faults.counts();
        lines.push(Line::new(
            format!("escaped {escaped}   passed through {through}"),
            if escaped + through > 0 { FAULT } else { TEXT },
        ));
        let totals = &pane.totals;
        let (cap_hits, stopped) = (totals.events_cap_hits, totals.stopped);
        let taken = sci(totals.energy_stopped);
        lines.push(Line::new(
            format!("cap hits {cap_hits} ({stopped} balls stopped short, energy {taken} taken)"),
            if cap_hits > 0 { WARN } else { TEXT },
        ));
        let ms = pane
            .physics_ms
            .map_or_else(|| "-".to_owned(), |ms| format!("{ms:.3}"));
        let rate = if self.fixed {
            "one step a frame".to_owned()
        } else {
            format!("{} fps", get_fps())
        };
        lines.push(Line::new(format!("physics {ms} ms/step   {rate}"), TEXT));
        let mut status = Vec::new();
        if let Some(i) = self.follow {
            status.push(format!("following ball {i}"));
        }
        if self.trails_on {
            status.push("trails".to_owned());
        }
        if self.dropped_steps > 0 && k == 0 {
            status.push(format!(
                "{} steps dropped (slow frames)",
                self.dropped_steps
            ));
        }
        if !status.is_empty() {
            lines.push(Line::new(status.join("   "), DIM));
        }
        if let Some(error) = &pane.error {
            lines.push(Line::new(format!("stopped: {error}"), WARN));
        }
        let margin = 10.0;
        hud.panel(x + margin, margin, width - 2.0 * margin, &lines);
    }
}

/// Return `x` with at most 3 decimals and no trailing zeros.
fn short(x: Real) -> String {
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_owned()
}

/// Return `x` in scientific notation with 3 significant digits (and no minus zero).
fn sci(x: Real) -> String {
    format!("{:.2e}", x + 0.0)
}

/// Return a relative value as a signed percentage.
fn percent(x: Real) -> String {
    if x.abs() < 5e-7 {
        "0%".to_owned()
    } else if x.abs() < 1e-3 {
        format!("{:+.1e}%", x * 100.0)
    } else {
        format!("{:+.2}%", x * 100.0)
    }
}
