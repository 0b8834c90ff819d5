//! The calendar's ring of fine buckets: a list of events per fine bucket, all in one pool.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Event;

/// The fine buckets of the calendar's current bucket: a list of events per fine bucket, the
/// events of all lists in one pool, so that the ring costs what it holds whatever its length.
#[derive(Debug, Default)]
pub(super) struct Ring {
    /// The first event of each fine bucket's list in `pool`, or `NO_EVENT`.
    head: Vec<u32>,
    pool: Vec<Event>,
    /// The next event of the same list, or, for a free place, the next free one.
    next: Vec<u32>,
    /// The first free place in `pool`, or `NO_EVENT`.
    free: u32,
    /// Events held.
    pub len: usize,
}

/// No event: the end of a list.
const NO_EVENT: u32 = u32::MAX;

impl Ring {
    /// Forget every event and make `slots` fine buckets.
    pub fn reset(&mut self, slots: usize) {
        self.head.clear();
        self.head.resize(slots, NO_EVENT);
        self.pool.clear();
        self.next.clear();
        self.free = NO_EVENT;
        self.len = 0;
    }

    /// Add `event` to fine bucket `slot`.
    #[inline]
    pub fn push(&mut self, slot: usize, event: Event) {
        let place = if self.free == NO_EVENT {
            self.pool.push(event);
            self.next.push(NO_EVENT);
            (self.pool.len() - 1) as u32
        } else {
            let place = self.free;
            self.free = self.next[place as usize];
            self.pool[place as usize] = event;
            place
        };
        self.next[place as usize] = self.head[slot];
        self.head[slot] = place;
        self.len += 1;
    }

    /// Move the events of fine bucket `slot` into `heap`.
    pub fn drain_into(&mut self, slot: usize, heap: &mut BinaryHeap<Reverse<Event>>) {
        let mut place = std::mem::replace(&mut self.head[slot], NO_EVENT);
        while place != NO_EVENT {
            let p = place as usize;
            heap.push(Reverse(self.pool[p]));
            place = std::mem::replace(&mut self.next[p], self.free);
            self.free = p as u32;
            self.len -= 1;
        }
    }

    /// Keep only the events for which `keep` is true.
    pub fn retain(&mut self, keep: impl Fn(&Event) -> bool) {
        for slot in 0..self.head.len() {
            let mut link = NO_EVENT;
            let mut place = std::mem::replace(&mut self.head[slot], NO_EVENT);
            while place != NO_EVENT {
                let p = place as usize;
                place = self.next[p];
                if keep(&self.pool[p]) {
                    self.next[p] = link;
                    link = p as u32;
                } else {
                    self.next[p] = self.free;
                    self.free = p as u32;
                    self.len -= 1;
                }
            }
            self.head[slot] = link;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(time: f64, a: u32) -> Event {
        Event {
            time,
            a,
            b: 0,
            count_a: 0,
            count_b: 0,
        }
    }

    /// Each list gives back what went in; kept events stay, dropped and drained places are
    /// reused, so the pool holds no more than the most events held at once.
    #[test]
    fn lists_give_back_their_events_and_places_are_reused() {
        let mut ring = Ring::default();
        ring.reset(4);
        for a in 0..6 {
            ring.push((a % 2) as usize, event(f64::from(a), a));
        }
        assert_eq!(ring.len, 6);
        // Keep the even times only: slot 0 has 0, 2, 4; slot 1 loses 1, 3, 5
        ring.retain(|e| e.a % 2 == 0 && e.a > 0);
        assert_eq!(ring.len, 2);
        let mut heap = BinaryHeap::new();
        ring.drain_into(1, &mut heap);
        assert!(heap.is_empty());
        ring.drain_into(0, &mut heap);
        let mut times: Vec<f64> = heap.into_iter().map(|Reverse(e)| e.time).collect();
        times.sort_by(f64::total_cmp);
        assert_eq!(times, [2.0, 4.0]);
        assert_eq!(ring.len, 0);
        // Six places were made; pushing six more reuses them
        for a in 0..6 {
            ring.push(3, event(f64::from(a), a));
        }
        assert_eq!(ring.pool.len(), 6);
        assert_eq!(ring.len, 6);
    }
}
