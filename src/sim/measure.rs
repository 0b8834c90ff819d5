//! Measuring the end of a step: overlaps, escapes, energy and momentum.

use super::bodies::Balls;
use super::calendar::Other;
use super::events::StepStats;
use super::statics::Static;
use crate::geometry::Shape;
use crate::math::Real;

impl StepStats {
    /// Measure the balls at the end of a step into the statistics: the deepest overlap and the
    /// balls escaped (centre behind a plane or inside a cylinder), over the statics tested
    /// everywhere and the `pairs` asked about in the step (any pair that overlaps at its end is
    /// among them), and the kinetic energy and momentum. `escaped` is scratch, a flag per ball.
    pub(super) fn measure(
        &mut self,
        balls: &Balls,
        statics: &[Static],
        everywhere: &[u32],
        pairs: &[(u32, Other)],
        escaped: &mut Vec<bool>,
    ) {
        let ball = |i: usize| balls.ball(i);
        let mut deepest: Real = 0.0;
        escaped.clear();
        escaped.resize(balls.len(), false);
        for &k in everywhere {
            let shape = &statics[k as usize].shape;
            for (body, escaped) in balls.body.iter().zip(escaped.iter_mut()) {
                let (gap, holds_centre) = shape.gap(body.path.origin);
                *escaped |= holds_centre;
                deepest = deepest.max(body.radius - gap);
            }
        }
        for &(i, other) in pairs {
            let i = i as usize;
            let depth = match other {
                Other::Static(k) => {
                    let b = ball(i);
                    let (gap, holds_centre) = statics[k as usize].shape.gap(b.center);
                    escaped[i] |= holds_centre;
                    (b.radius - gap).max(0.0)
                }
                Other::Ball(j) => ball(j as usize).proximity(&ball(i)).depth(),
            };
            deepest = deepest.max(depth);
        }
        self.max_penetration = deepest;
        self.escaped = escaped.iter().filter(|&&e| e).count() as u64;
        self.kinetic_energy = balls.kinetic_energy();
        self.momentum = balls.momentum().to_array();
    }
}
