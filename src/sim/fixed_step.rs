//! A fixed-timestep helper for game loops.

use crate::math::Real;

/// Turns variable frame times into a whole number of fixed physics steps.
///
/// Each frame, [`FixedStep::advance`] adds the frame's duration to an accumulator and says how
/// many steps of `dt` to run; what is left over is the fraction [`FixedStep::alpha`] of a step
/// by which to interpolate the drawing between the last two states. Physics then runs at the
/// same `dt` whatever the frame rate, so it gives the same results as stepping headless.
///
/// A slow frame could ask for ever more steps (the "spiral of death"); at most
/// `max_steps_per_frame` are run and the rest of the backlog is dropped, which slows the
/// simulation down instead of stalling the program.
///
/// ```
/// use toibox::FixedStep;
/// let mut clock = FixedStep::new(0.01, 5);
/// assert_eq!(clock.advance(0.025), 2);
/// assert!((clock.alpha() - 0.5).abs() < 1e-12);
/// assert_eq!(clock.advance(1.0), 5); // capped; the backlog is dropped
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedStep {
    dt: Real,
    max_steps_per_frame: u32,
    accumulator: Real,
    dropped: Real,
}

impl FixedStep {
    /// Create a helper for steps of `dt` (positive) and at most `max_steps_per_frame` (at
    /// least 1) steps per frame.
    ///
    /// # Panics
    /// When `dt` is not a finite positive number.
    #[must_use]
    pub fn new(dt: Real, max_steps_per_frame: u32) -> Self {
        assert!(
            dt.is_finite() && dt > 0.0,
            "dt is {dt}; allowed: a finite number > 0"
        );
        Self {
            dt,
            max_steps_per_frame: max_steps_per_frame.max(1),
            accumulator: 0.0,
            dropped: 0.0,
        }
    }

    /// Return the step length.
    #[must_use]
    pub fn dt(&self) -> Real {
        self.dt
    }

    /// Add a frame of `frame_time` (negative or non-finite counts as zero) and return how many
    /// steps to run now.
    pub fn advance(&mut self, frame_time: Real) -> u32 {
        if frame_time.is_finite() && frame_time > 0.0 {
            self.accumulator += frame_time;
        }
        // Whole steps in the accumulator, with a relative allowance for rounding
        let whole = ((self.accumulator / self.dt) * (1.0 + 1e-12)).floor();
        let steps = whole.min(Real::from(self.max_steps_per_frame));
        // Keep only the part of a step left over; what the cap refused is dropped
        self.dropped += (whole - steps) * self.dt;
        self.accumulator = (self.accumulator - whole * self.dt).clamp(0.0, self.dt);
        steps as u32
    }

    /// Return how far the accumulator is into the next step, in `[0, 1)`: the factor to
    /// interpolate the drawing between the previous and the current state.
    #[must_use]
    pub fn alpha(&self) -> Real {
        (self.accumulator / self.dt).clamp(0.0, 1.0 - Real::EPSILON)
    }

    /// Return the simulated time dropped so far because frames asked for more steps than the
    /// cap allows.
    #[must_use]
    pub fn dropped(&self) -> Real {
        self.dropped
    }
}
