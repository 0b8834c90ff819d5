//! A time-of-impact strategy of your own: conservative advancement.
//!
//! Conservative advancement steps a ball forward by `gap / closing speed`: since no point of the
//! ball moves faster than its speed, it can never step past the first contact. It needs no
//! closed form, so it works for any shape with a distance query, but converges slowly on
//! glancing contacts. This example plugs it in through the `ToiStrategy` trait, then checks it
//! against the exact sweep on seeded random cases and asserts that they agree.
//!
//! Run with `cargo run --example custom_toi`.

use toibox::sweeps::{PairKind, generate};
use toibox::{
    Analytic, Contact, ConvexPolygon, Cylinder, MovingBall, Plane, Proximity, Real, Shape, Toi,
    ToiStrategy,
};

/// Conservative advancement, to a gap of `tolerance`, in at most `max_steps` steps.
struct ConservativeAdvancement {
    tolerance: Real,
    max_steps: usize,
}

impl ConservativeAdvancement {
    /// Advance along `[0, t_max]` while the gap is open; `speed` bounds how fast it closes.
    fn advance(&self, proximity_at: impl Fn(Real) -> Proximity, speed: Real, t_max: Real) -> Toi {
        let start = proximity_at(0.0);
        if start.overlaps() {
            return Toi::Overlapping(Contact::from_proximity(0.0, &start));
        }
        let mut t = 0.0;
        for _ in 0..self.max_steps {
            let here = proximity_at(t);
            if here.distance <= self.tolerance {
                return Toi::Hit(Contact::from_proximity(t, &here));
            }
            // A still ball never closes a gap
            if speed == 0.0 {
                return Toi::Miss;
            }
            t += here.distance / speed;
            if t > t_max {
                return Toi::Miss;
            }
        }
        Toi::Miss
    }
}

impl ToiStrategy for ConservativeAdvancement {
    fn ball_ball(&self, ball: &MovingBall, other: &MovingBall, t_max: Real) -> Toi {
        let speed = (ball.velocity - other.velocity).length();
        self.advance(|t| other.at(t).proximity(&ball.at(t)), speed, t_max)
    }

    fn ball_plane(&self, ball: &MovingBall, plane: &Plane, t_max: Real) -> Toi {
        let speed = ball.velocity.length();
        self.advance(|t| plane.proximity(&ball.at(t)), speed, t_max)
    }

    fn ball_cylinder(&self, ball: &MovingBall, cylinder: &Cylinder, t_max: Real) -> Toi {
        let speed = ball.velocity.length();
        self.advance(|t| cylinder.proximity(&ball.at(t)), speed, t_max)
    }

    fn ball_polygon(&self, ball: &MovingBall, polygon: &ConvexPolygon, t_max: Real) -> Toi {
        let speed = ball.velocity.length();
        self.advance(|t| polygon.proximity(&ball.at(t)), speed, t_max)
    }
}

fn main() {
    let mine = ConservativeAdvancement {
        tolerance: 1e-10,
        max_steps: 100_000,
    };
    println!("conservative advancement against the exact sweep, 2000 seeded cases per pair kind");
    for kind in PairKind::ALL {
        let (mut agree, mut largest_gap, mut hits) = (0, 0.0_f64, 0);
        let cases = generate(kind, 2000, 7);
        for case in &cases {
            let (exact, found) = (case.query(&Analytic), case.query(&mine));
            match (exact, found) {
                (Toi::Hit(e), Toi::Hit(f)) => {
                    // Never past the exact time; close to it
                    assert!(
                        f.time <= e.time + 1e-12,
                        "{kind:?}: late by {}",
                        f.time - e.time
                    );
                    largest_gap = largest_gap.max(e.time - f.time);
                    hits += 1;
                    agree += 1;
                }
                (Toi::Miss, Toi::Miss) => agree += 1,
                (e, f) => println!("  {kind:?}: exact {e:?}, mine {f:?}"),
            }
        }
        println!(
            "  {:<14} {agree}/{} agree, {hits} hits, reported at most {largest_gap:.1e} early",
            kind.name(),
            cases.len()
        );
        assert_eq!(agree, cases.len(), "{kind:?}: the strategies disagree");
        // The gap tolerance over speeds of at least 0.3 bounds how early a hit can be
        assert!(largest_gap < 1e-9, "{kind:?}: {largest_gap:e} early");
    }
}
