//! How fast a scene plays: the speed steps of `[` and `]`, and the rule that starts a short
//! or fast scene slowed or paused, so that it is not over before one sees it.
//!
//! The rule looks at two wall-clock durations at ×1: the scene's run (its `steps` of `dt`)
//! and the time its fastest ball takes to cross the scene's box. The speed is halved until
//! the run lasts at least [`MIN_RUN_SECONDS`] and the crossing [`MIN_CROSSING_SECONDS`]; a
//! scene still too fast at the slowest speed starts paused there, for `Space` or `.` to
//! start it. A scene the rule slowed or paused holds at the end of its run, with a hint to
//! replay it.

use crate::math::Real;
use crate::scene::Scene;

/// The slowest speed, as a power of two: ×1/64.
pub(crate) const SLOWEST: i32 = -6;
/// The fastest speed, as a power of two: ×8.
pub(crate) const FASTEST: i32 = 3;
/// Steps per wall second at least, at ×1: scenes with long steps (NeHe's 0.6) run one per
/// frame.
pub(crate) const MIN_STEP_RATE: Real = 60.0;
/// Wall-clock seconds a scene's run should last at least.
pub(crate) const MIN_RUN_SECONDS: Real = 5.0;
/// Wall-clock seconds the fastest ball should take at least to cross the scene's box: 15
/// frames at 60 a second, enough for the eye to follow (a billiard break's 0.32 s is).
pub(crate) const MIN_CROSSING_SECONDS: Real = 0.25;

/// How a scene starts playing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pacing {
    /// The speed is `2^speed_power` times the base speed, in `[SLOWEST, FASTEST]`.
    pub speed_power: i32,
    /// Start paused: too fast even at the slowest speed.
    pub paused: bool,
    /// Pause when the scene's run is over: a scene slowed or paused at the start.
    pub hold_at_end: bool,
}

impl Pacing {
    /// The pacing of a run that lasts `run` wall seconds at ×1, in which the fastest ball
    /// crosses the scene in `crossing` wall seconds at ×1 (infinite when every ball is at
    /// rest). Both `>= 0`; zero counts as too fast at any speed.
    #[must_use]
    pub fn new(run: Real, crossing: Real) -> Self {
        let slowdown = (MIN_RUN_SECONDS / run)
            .max(MIN_CROSSING_SECONDS / crossing)
            .max(1.0);
        let halvings = slowdown.log2().ceil();
        // False for infinitely many, and for a NaN (0 / 0)
        let fits = halvings <= Real::from(-SLOWEST);
        let paused = !fits;
        let speed_power = if paused { SLOWEST } else { -(halvings as i32) };
        Self {
            speed_power,
            paused,
            hold_at_end: speed_power < 0,
        }
    }

    /// The pacing of `scene`, whose box is `extent` across at its largest, played at
    /// `base_speed` simulated seconds per wall second at ×1.
    #[must_use]
    pub fn of_scene(scene: &Scene, extent: Real, base_speed: Real) -> Self {
        let run = scene.steps as Real * scene.dt / base_speed;
        let fastest = (scene.balls.iter())
            .map(|b| b.velocity.length())
            .fold(0.0, Real::max);
        let crossing = if fastest > 0.0 {
            extent / fastest / base_speed
        } else {
            Real::INFINITY
        };
        Self::new(run, crossing)
    }
}

/// Return the simulated seconds per wall second at ×1 for steps of `dt`: wall-clock speed,
/// or [`MIN_STEP_RATE`] steps a second when a step is longer than its share.
#[must_use]
pub(crate) fn base_speed(dt: Real) -> Real {
    (dt * MIN_STEP_RATE).max(1.0)
}

/// Return the speed label of `2^power`: ×1/64 … ×8.
#[must_use]
pub(crate) fn speed_label(power: i32) -> String {
    if power >= 0 {
        format!("×{}", 1 << power)
    } else {
        format!("×1/{}", 1 << -power)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Aabb;

    #[test]
    fn long_slow_scenes_play_at_wall_clock_speed() {
        let pacing = Pacing::new(30.0, 4.0);
        assert_eq!(
            pacing,
            Pacing {
                speed_power: 0,
                paused: false,
                hold_at_end: false
            }
        );
        assert_eq!(Pacing::new(MIN_RUN_SECONDS, Real::INFINITY).speed_power, 0);
    }

    #[test]
    fn short_or_fast_scenes_are_halved_until_they_last() {
        // A 1.5 s run needs 5 / 1.5 = 3.3: two halvings (×1/4)
        let short = Pacing::new(1.5, Real::INFINITY);
        assert_eq!((short.speed_power, short.paused), (-2, false));
        assert!(short.hold_at_end);
        // A crossing of 0.01 s needs 0.25 / 0.01 = 25: five halvings (×1/32)
        assert_eq!(Pacing::new(100.0, 0.01).speed_power, -5);
        // The stricter of the two decides: 5 / 0.6 = 8.3 (four halvings) against
        // 0.25 / 0.05 = 5 (three)
        assert_eq!(Pacing::new(0.6, 0.05).speed_power, -4);
        assert_eq!(Pacing::new(10.0, 0.05).speed_power, -3);
    }

    #[test]
    fn too_fast_at_the_slowest_speed_starts_paused_there() {
        // 64 halvings' worth exactly fits: 5 / 64 s of run is ×1/64
        let fits = Pacing::new(MIN_RUN_SECONDS / 64.0, Real::INFINITY);
        assert_eq!((fits.speed_power, fits.paused), (SLOWEST, false));
        let paused = Pacing::new(MIN_RUN_SECONDS / 65.0, Real::INFINITY);
        assert_eq!((paused.speed_power, paused.paused), (SLOWEST, true));
        assert!(paused.hold_at_end);
        assert!(Pacing::new(0.0, 0.0).paused);
    }

    #[test]
    fn the_bullets_start_paused_and_the_other_demo_scenes_at_wall_clock_speed() {
        // Bullets: 3 steps of 1/60 s, 0.05 s at ×1, and 3.2 s even at ×1/64. The billiard
        // break's cue ball crosses the 2.54 m table at 8 m/s in 0.32 s, at ×1
        for (file, expected) in [
            ("bullets.ron", (SLOWEST, true)),
            ("nehe_room.ron", (0, false)),
            ("newtons_cradle.ron", (0, false)),
            ("billiards_break.ron", (0, false)),
            ("galton_board.ron", (0, false)),
            ("resting_pile.ron", (0, false)),
            ("gas_1k.ron", (0, false)),
        ] {
            let path = format!("{}/scenes/{file}", env!("CARGO_MANIFEST_DIR"));
            let scene = Scene::load(&path).unwrap();
            let extent = Aabb::of_scene(&scene).largest_extent();
            let pacing = Pacing::of_scene(&scene, extent, base_speed(scene.dt));
            assert_eq!((pacing.speed_power, pacing.paused), expected, "{file}");
        }
    }

    #[test]
    fn speeds_are_labelled_as_fractions_and_multiples() {
        assert_eq!(speed_label(SLOWEST), "×1/64");
        assert_eq!(speed_label(0), "×1");
        assert_eq!(speed_label(FASTEST), "×8");
    }
}
