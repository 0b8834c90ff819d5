//! Predictions: what a ball asks about (its neighbourhood, the roaming balls, the statics
//! everywhere), the one query, the asker of a pair, and cell crossings.

use std::cmp::Ordering;

use super::{Step, Stepper};
use crate::geometry::Shape;
use crate::math::{Real, Vec3};
use crate::sim::calendar::{Happening, NEVER, Other, earlier, key_of};
use crate::sim::measure::Touching;
use crate::sim::neighbours::Around;
use crate::sim::response::closing;
use crate::toi::{MovingBall, QueryPair, Toi, ToiStrategy};

/// How many times a pair found touching and parting while pressed together is asked again
/// from when it is farthest apart (see [`Stepper::ask`] and [`Stepper::parts_until`]). From
/// the tangent plane's farthest point its parting shrinks by the ratio of the curvature term
/// to the pressing acceleration (`v_t² / (R_a + R_b)` against `g_n`) each time: a ball sliding
/// at 0.5 over one of the same size at 0.6 rad from the top, parting at 1e-7, needs 5 to be
/// found closing. Two balls are asked from the farthest point of their curved parting, which
/// takes one or a few; a ball on a static's edge may still take more. In 1,500 harsh rough
/// boxes with small budgets, 16 left two pairs to sink 2.7e-9 and 7.4e-7 into each other, and
/// the most any pair took with 64 was 16. Past the bound the pair is left, as before.
const PARTING_ASKS: usize = 64;

/// Why a ball predicts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Asking {
    /// The first predictions of the step: each pair is asked once, by its asker.
    First,
    /// The ball changed course, and so becomes the asker of its pairs; `except` changed course
    /// with it and predicts next.
    Changed {
        /// The other ball of the contact, if any.
        except: Option<usize>,
    },
    /// Where each ball keeps only its earliest event: that event went stale, or turned out to
    /// be no contact, and the ball looks again for its next one. Its path and its cell
    /// crossings are as they were.
    Again,
}

impl Stepper {
    /// Predict ball `i`'s contacts from `now` to the step's horizon with everything near it, and
    /// its cell crossings (see [`Asking`]).
    pub(super) fn predict<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        now: Real,
        asking: Asking,
    ) {
        let (first, except) = match asking {
            Asking::First => (true, None),
            Asking::Changed { except } => {
                self.pairs.changes += 1;
                self.pairs.changed[i] = self.pairs.changes;
                self.pairs.changed_at[i] = now;
                (false, except.map(|j| Other::Ball(j as u32)))
            }
            Asking::Again => (false, None),
        };
        if self.kept.keeps {
            self.kept.earliest[i] = NEVER;
        }
        let mut found = std::mem::take(&mut self.scratch.found);
        self.candidates(i, &mut found);
        self.ask_all(step, i, &mut found, now, first, except);
        self.scratch.found = found;
        if asking != Asking::Again {
            for g in self.neighbours.grids_of(i) {
                self.schedule_crossing(i, g, now, step.horizon);
            }
        }
    }

    /// Put into `found` what ball `i` may meet in the step: the balls and statics in the cells
    /// around it, the roaming balls and the statics asked about everywhere (a roaming ball:
    /// everything). Unsorted; a ball may be listed twice.
    pub(super) fn candidates(&mut self, i: usize, found: &mut Vec<Other>) {
        found.clear();
        if self.neighbours.roams(i) {
            found.extend(
                (0..self.balls.len() as u32)
                    .filter(|&j| j as usize != i)
                    .map(Other::Ball),
            );
            found.extend((0..self.statics.len() as u32).map(Other::Static));
        } else {
            for g in self.neighbours.grids_of(i) {
                self.neighbours
                    .for_each(i, g, Around::All, |other| found.push(other));
            }
            found.extend(self.neighbours.roaming.iter().map(|&j| Other::Ball(j)));
            found.extend(self.neighbours.everywhere.iter().map(|&k| Other::Static(k)));
        }
    }

    /// Ask about each of `found` for ball `i` from `now` to the step's horizon, in order (balls,
    /// then statics, by index), but for what its path box cannot reach, for `except` (which asks in
    /// turn), and in the first predictions (`first`) for the pairs the other ball asks. The order
    /// is fixed because resting contacts keep the first touches they meet.
    pub(super) fn ask_all<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        found: &mut [Other],
        now: Real,
        first: bool,
        except: Option<Other>,
    ) {
        found.sort_unstable();
        let my_box = self.balls.path_box(i, now, step.horizon);
        for &other in found.iter() {
            let skip = except == Some(other)
                || self.declines(i, other)
                || match other {
                    Other::Static(k) => {
                        let s = &self.statics[k as usize];
                        s.everywhere && s.shape.misses_box(&my_box)
                    }
                    Other::Ball(j) => {
                        let j = j as usize;
                        (first && self.asker(i, j) != i)
                            || !my_box.overlaps(&self.balls.path_box(j, now, step.horizon))
                    }
                };
            if !skip {
                self.ask(step, i, other, now);
            }
        }
    }

    /// Ask the step's strategy when ball `i` meets `other` before its horizon, and schedule what it
    /// finds at `now` or later. The one place a query is made.
    ///
    /// The query starts where the later of the two balls last changed course (its clock), not
    /// at `now`: a prediction depends on the two paths only, never on when it was asked, so
    /// asking again (a crossing, a fresh stepper) gives the same bits.
    pub(super) fn ask<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        other: Other,
        now: Real,
    ) {
        // The asker of the pair, and where the later of the two paths began
        let (a, other, from) = match other {
            Other::Static(_) => (i, other, self.balls.body[i].path.time),
            Other::Ball(j) => {
                let j = j as usize;
                let (a, b) = if self.asker(i, j) == i {
                    (i, j)
                } else {
                    (j, i)
                };
                let from = self.balls.body[a]
                    .path
                    .time
                    .max(self.balls.body[b].path.time);
                (a, Other::Ball(b as u32), from)
            }
        };
        // Declined on paths that curve back together: not before they can meet again
        let from = match self.declined_until(a, other) {
            Some(after) if after >= step.horizon => return,
            Some(after) => from.max(after),
            None => from,
        };
        let (me, toi) = self.query(step, a, other, from);
        // A certain miss, or a certain hit after the step, cannot end it overlapping (`measure`)
        let can_overlap = match toi {
            Toi::Miss => false,
            Toi::Hit(contact) => from + contact.time <= step.t1,
            Toi::Overlapping(_) => true,
        };
        if can_overlap || !step.strategy.misses_are_certain() {
            self.pairs
                .contacts
                .push(Touching::new(a as u32, other, &self.balls.counter));
        }
        let Some((from, me, toi)) = self.past_grazes(step, a, other, now, (from, me, toi)) else {
            return;
        };
        self.schedule(step, a, other, from, now, (&me, &toi));
        // A pair that touches and parts on curved paths may meet again: asked again from when
        // it is farthest apart along the normal. Found touching there and still parting, it
        // parts by the curvature of its surfaces sliding over each other, which shrinks by
        // about that curvature over the pressing acceleration each time it is asked again
        let (mut me, mut toi, mut at) = (me, toi, from);
        for _ in 0..PARTING_ASKS {
            let Toi::Overlapping(contact) = toi else {
                break;
            };
            let Some(later) = self.parts_until(step, &me, other, at, contact.normal) else {
                break;
            };
            if later >= step.horizon {
                break;
            }
            (me, toi) = self.query(step, a, other, later);
            match toi {
                Toi::Hit(_) => self.schedule(step, a, other, later, now, (&me, &toi)),
                Toi::Overlapping(contact) => {
                    let them = self.other_motion(other, later);
                    let mine = (me.velocity, me.acceleration);
                    if closing(mine, them, contact.normal, step.rest_speed).is_some() {
                        self.push_contact(a, other, later.max(now));
                        break;
                    }
                }
                Toi::Miss => {}
            }
            at = later;
        }
    }

    /// Pass over what a query of ball `a` and `other` from `from` found before `now` where it is
    /// a graze: a touch that did not approach, which the stepper that met it declined then and
    /// asked again from when the pair is farthest apart (see [`Stepper::look_again`]). A
    /// stepper that comes to these paths later (a fresh one, or a crossing) finds the same
    /// touch and goes on from the same time, so both meet what follows alike. `None` where the
    /// pair parts beyond the horizon; else the query to schedule.
    fn past_grazes<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        a: usize,
        other: Other,
        now: Real,
        (mut from, mut me, mut toi): (Real, MovingBall, Toi),
    ) -> Option<(Real, MovingBall, Toi)> {
        for _ in 0..PARTING_ASKS {
            let Toi::Hit(contact) = toi else {
                break;
            };
            let then = from + contact.time;
            if then >= now {
                break;
            }
            let Some(after) = self.declined_at(step, a, other, then) else {
                break;
            };
            self.pairs
                .declined
                .push((Touching::new(a as u32, other, &self.balls.counter), after));
            if after >= step.horizon {
                return None;
            }
            (me, toi) = self.query(step, a, other, after);
            from = after;
        }
        Some((from, me, toi))
    }

    /// For ball `i` touching `other` at `then`: `None` where they approach there (a contact),
    /// else when they may meet again, as [`Stepper::look_again`] declines it (infinite: never).
    fn declined_at<S: ToiStrategy + ?Sized>(
        &self,
        step: &Step<'_, S>,
        i: usize,
        other: Other,
        then: Real,
    ) -> Option<Real> {
        let (pressed, after) = self.parting(step, i, other, then);
        (!pressed).then_some(after)
    }

    /// How ball `i` and `other`, touching at `t`, part: whether they are pressed together
    /// (closing along their normal), and when they may meet again (infinite: never; see
    /// [`Stepper::parts_until`]).
    pub(super) fn parting<S: ToiStrategy + ?Sized>(
        &self,
        step: &Step<'_, S>,
        i: usize,
        other: Other,
        t: Real,
    ) -> (bool, Real) {
        let me = self.balls.moving(i, t);
        let normal = self.normal_at(i, other, t);
        let them = self.other_motion(other, t);
        let mine = (me.velocity, me.acceleration);
        let pressed = closing(mine, them, normal, step.rest_speed).is_some();
        let after = self
            .parts_until(step, &me, other, t, normal)
            .unwrap_or(Real::INFINITY);
        (pressed, after)
    }

    /// The normal from `other` towards ball `i` at `t`.
    fn normal_at(&self, i: usize, other: Other, t: Real) -> Vec3 {
        let ball = self.balls.ball_at(i, t);
        match other {
            Other::Ball(j) => self.balls.ball_at(j as usize, t).proximity(&ball).normal,
            Other::Static(k) => self.statics[k as usize].shape.proximity(&ball).normal,
        }
    }

    /// Ask the step's strategy when ball `a` meets `other` between `from` and its horizon: the ball
    /// as it moves from `from`, and the answer.
    fn query<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        a: usize,
        other: Other,
        from: Real,
    ) -> (MovingBall, Toi) {
        let me = self.balls.moving(a, from);
        step.strategy.before_query(&QueryPair {
            ball: self.balls.entity[a],
            other: match other {
                Other::Static(k) => self.statics[k as usize].entity,
                Other::Ball(b) => self.balls.entity[b as usize],
            },
            start: from - self.kept.clock,
        });
        let toi = match other {
            Other::Static(k) => {
                self.statics[k as usize]
                    .shape
                    .toi(step.strategy, &me, step.horizon - from)
            }
            Other::Ball(b) => {
                let them = self.balls.moving(b as usize, from);
                step.strategy.ball_ball(&me, &them, step.horizon - from)
            }
        };
        self.report.stats.toi_queries += 1;
        (me, toi)
    }

    /// The velocity and acceleration of `other` at `t` (zero for a static shape).
    pub(super) fn other_motion(&self, other: Other, t: Real) -> (Vec3, Vec3) {
        match other {
            Other::Ball(j) => {
                let path = &self.balls.body[j as usize].path;
                (path.velocity_at(t), path.acceleration)
            }
            Other::Static(_) => (Vec3::ZERO, Vec3::ZERO),
        }
    }

    /// For ball `me` touching `other` at `from` with normal `n` (towards the ball): when a
    /// pair that moves apart but is accelerated back together is farthest apart along `n`;
    /// `None` for any other pair. Until twice that time the pair cannot touch (the other lies
    /// behind its tangent plane, which the ball leaves and comes back to on a parabola), so
    /// asking again from then finds its next contact. On straight paths, or accelerated
    /// apart, a pair that parts never meets again.
    ///
    /// Two balls sliding over each other at `v_t` part farther: each one's surface curves
    /// away from the other's path by `v_t² / D` (`D` the sum of the radii), which slows their
    /// coming back from `b` to `b - v_t²/D`. Asked only from the tangent plane's farthest
    /// point, a pair with `v_t²/D` near `b` was found touching and parting again and again,
    /// its parting shrinking by `v_t²/(b D)` each time. Where the pair turns little about
    /// each other until then, the farthest point on that curve is taken instead.
    pub(super) fn parts_until<S: ToiStrategy + ?Sized>(
        &self,
        step: &Step<'_, S>,
        me: &MovingBall,
        other: Other,
        from: Real,
        n: Vec3,
    ) -> Option<Real> {
        let them = self.other_motion(other, from);
        let mine = (me.velocity, me.acceleration);
        if closing(mine, them, n, step.rest_speed).is_some() {
            return None;
        }
        let relative = me.velocity - them.0;
        let apart = relative.dot(n);
        let back = -(me.acceleration - them.1).dot(n);
        if !(apart > 0.0 && back > 0.0) {
            return None;
        }
        if let Other::Ball(j) = other {
            let reach = me.radius + self.balls.body[j as usize].radius;
            let slide = relative - n * apart;
            let returning = back - slide.length_squared() / reach;
            let farthest = apart / returning;
            // Turned by under a thousandth of a radian, where the curve is that of the spheres
            if returning > 0.0 && slide.length() * farthest < 1e-3 * reach {
                return Some(from + farthest);
            }
        }
        Some(from + apart / back)
    }

    /// The first predictions of the step: every ball awake asks about what is near it, each
    /// pair once.
    pub(super) fn predict_all<S: ToiStrategy + ?Sized>(&mut self, step: &Step<'_, S>) {
        for i in 0..self.balls.len() {
            if !self.balls.rest[i].asleep() {
                self.predict(step, i, step.t0, Asking::First);
            }
        }
    }

    /// Start the step from the last one's calendar: the balls whose paths changed since it
    /// (edited, or stopped by the budget) are listed where they are, their old events go stale,
    /// and they ask about everything near them, so their neighbours meet them too.
    pub(super) fn predict_changed<S: ToiStrategy + ?Sized>(&mut self, step: &Step<'_, S>) {
        let changed = std::mem::take(&mut self.kept.changed_balls);
        for &i in &changed {
            let i = i as usize;
            self.balls.counter[i] += 1;
            self.neighbours.relist(i, self.balls.start[i]);
        }
        // Contacts found before whose balls have not changed course since still hold
        let counters = &self.balls.counter;
        self.pairs.contacts.retain(|c| c.live(counters));
        self.pairs.declined.retain(|(c, _)| c.live(counters));
        // Stale events pile up over the steps: drop them when they outnumber the balls
        if self.calendar.len() > 3 * self.balls.len() + 1024 {
            self.calendar.compact(counters, &self.kept.earliest);
        }
        for &i in &changed {
            self.predict(step, i as usize, step.t0, Asking::Changed { except: None });
        }
        self.kept.changed_balls = changed;
        self.kept.changed_balls.clear();
    }

    /// True when ball `i` and `other` met at a contact that turned out not to approach, parted
    /// for good, and neither has changed course since: the pair is left out of predictions
    /// (see [`Stepper::look_again`]).
    fn declines(&self, i: usize, other: Other) -> bool {
        self.declined_until(i, other) == Some(Real::INFINITY)
    }

    /// When ball `i` and `other` may meet again, if they met at a contact that turned out not
    /// to approach and neither has changed course since.
    fn declined_until(&self, i: usize, other: Other) -> Option<Real> {
        if self.pairs.declined.is_empty() {
            return None;
        }
        self.pairs
            .declined
            .iter()
            .filter(|(d, _)| {
                let same = (d.a as usize == i && d.other == other)
                    || (other == Other::Ball(d.a) && d.other == Other::Ball(i as u32));
                same && d.live(&self.balls.counter)
            })
            .map(|&(_, after)| after)
            .reduce(Real::max)
    }

    /// Return which of balls `i` and `j` asks about their pair: the one that changed course
    /// last in the step; of two that have not changed course since it began, the one awake,
    /// then the one whose path is long (longer than a cell of the memory order, or roaming),
    /// then the lower index. Events are ordered by their asker at equal times, so this rule
    /// fixes the order in which simultaneous contacts are resolved, whoever met the pair first.
    ///
    /// Where paths hold across steps, what a stepper saw in earlier steps cannot count (one
    /// that takes the world over mid-epoch never saw it): the asker is the ball whose path
    /// began last, then the lower index (the world's order).
    pub(super) fn asker(&self, i: usize, j: usize) -> usize {
        if self.kept.keeps {
            let (a, b) = (self.balls.body[i].path.time, self.balls.body[j].path.time);
            return match a.total_cmp(&b) {
                Ordering::Greater => i,
                Ordering::Less => j,
                Ordering::Equal => i.min(j),
            };
        }
        match self.pairs.changed[i].cmp(&self.pairs.changed[j]) {
            Ordering::Greater => i,
            Ordering::Less => j,
            Ordering::Equal => {
                let key = |k: usize| (self.balls.rest[k].asleep(), !self.pairs.long[k], k);
                if key(i) < key(j) { i } else { j }
            }
        }
    }

    /// Schedule ball `i`'s next crossing out of its cell of grid `g`, if it happens before
    /// `t_end`.
    pub(super) fn schedule_crossing(&mut self, i: usize, g: usize, now: Real, t_end: Real) {
        let body = &self.balls.body[i];
        if let Some((time, axis, step)) = self.neighbours.next_crossing(i, g, body, now, t_end) {
            let happening = Happening::Crossing {
                grid: g as u8,
                axis: axis as u8,
                step: step as i8,
            };
            self.calendar
                .push(time, i as u32, happening, &self.balls.counter);
        }
    }

    /// Move ball `i` into the next cell of grid `g` at `now`, ask about the balls and statics
    /// that have come within reach, and schedule its next crossing.
    pub(super) fn cross<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        g: usize,
        axis: usize,
        towards: i64,
        now: Real,
    ) {
        self.neighbours.cross(i, g, axis, towards);
        let mut found = std::mem::take(&mut self.scratch.found);
        found.clear();
        self.neighbours.for_each(
            i,
            g,
            Around::Slab {
                axis,
                step: towards,
            },
            |other| found.push(other),
        );
        self.ask_all(step, i, &mut found, now, false, None);
        self.scratch.found = found;
        self.schedule_crossing(i, g, now, step.horizon);
    }

    /// Push the event a query from `from` found, if it is one, at `now` or later. A touch at
    /// `from` before `now` was met when the pair was asked at `from`, and is not met again.
    pub(super) fn schedule<S: ToiStrategy + ?Sized>(
        &mut self,
        step: &Step<'_, S>,
        i: usize,
        other: Other,
        from: Real,
        now: Real,
        (me, toi): (&MovingBall, &Toi),
    ) {
        let time = match *toi {
            Toi::Hit(contact) => (from + contact.time).clamp(now, step.horizon),
            Toi::Overlapping(_) if from < now => return,
            // Asked from a later start (a pair declined until then): met when that comes
            Toi::Overlapping(_) if from > now => from,
            Toi::Overlapping(contact) => {
                // Touches are read only by resting contacts, which need a rest speed above zero
                let rests = step.rest_speed > 0.0;
                if rests {
                    self.balls.supports_mut(i).touch(contact.normal);
                }
                if let Other::Ball(j) = other {
                    if rests {
                        self.balls.supports_mut(j as usize).touch(-contact.normal);
                    }
                    self.sleep.links.push((i as u32, j));
                }
                // Touching or overlapping: a contact now only if approaching, or pressed in
                let (mine, them) = (
                    (me.velocity, me.acceleration),
                    self.other_motion(other, now),
                );
                if closing(mine, them, contact.normal, step.rest_speed).is_none() {
                    return;
                }
                now
            }
            Toi::Miss => return,
        };
        self.push_contact(i, other, time);
    }

    /// Put a contact of ball `i` with `other` at `time` into the calendar.
    fn push_contact(&mut self, i: usize, other: Other, time: Real) {
        let happening = Happening::Contact(other);
        if !self.kept.keeps {
            self.calendar
                .push(time, i as u32, happening, &self.balls.counter);
            return;
        }
        // Each ball keeps its earliest event only, the other ball's included
        let key = key_of(time, i as u32, happening);
        if earlier(key, self.kept.earliest[i]) {
            self.kept.earliest[i] = key;
            self.calendar
                .push_for(time, i as u32, happening, &self.balls.counter, false);
        }
        if let Other::Ball(j) = other
            && earlier(key, self.kept.earliest[j as usize])
        {
            self.kept.earliest[j as usize] = key;
            self.calendar
                .push_for(time, i as u32, happening, &self.balls.counter, true);
        }
    }
}
