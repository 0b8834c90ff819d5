//! The judge on stepped scenes, at steps of 0.5 to 10 time units.
//!
//! - Balls resting on a floor (normal along x, y or z, gravity against it) under a ceiling, a
//!   capped cylinder or a polygon 0.05 above their tops pass through nothing and escape
//!   nothing, sleeping or awake, on a smooth floor or a rough one, placed at rest or dropped
//!   onto it: a ball that stood still is judged standing, where a parabola under gravity
//!   through its two equal ends would bulge |g| dt² / 8 (0.31 to 123) into what is above it.
//! - A ball that the end-of-step test or a sliced search of two slices lets through a thin
//!   pane, or two balls that they let through each other, are still caught, at steps of 2 to
//!   10, on their parabolas.
//! - On the demo scenes, every ball that the stepper kept on one path all through a step is
//!   judged along that path: under gravity while awake, standing while asleep.

use std::fmt::Write;

use toibox::judge::{BallStep, Fault, Judge, Motion, read_step};
use toibox::scene::{Scene, SceneItem, SceneWorld};
use toibox::{Real, Sleep, ToiMode, Vec3};

/// Radius of the resting balls.
const RADIUS: Real = 0.1;

/// Gap between the top of a resting ball and what is above it.
const GAP: Real = 0.05;

/// Step lengths the scenes are stepped with.
const STEP_LENGTHS: [Real; 4] = [0.5, 2.0, 5.0, 10.0];

/// What is just above the resting balls.
#[derive(Clone, Copy, Debug)]
enum Above {
    /// A plane facing down.
    Ceiling,
    /// A capped cylinder of radius 0.05 lying across, 4 long.
    Cylinder,
    /// A square of side 2, facing up and down.
    Polygon,
}

/// The floor's surroundings and the balls on it, as a scene file gives them.
struct Room {
    /// The floor's normal: gravity is 9.81 against it, and the floor passes through `-up`.
    up: Vec3,
    above: Above,
    dt: Real,
    /// Friction of everything (0: smooth, and clusters at rest are projected).
    friction: Real,
    /// Height of the balls' centres above where they rest (0: placed at rest). Restitution is
    /// 0.5: a ball dropped 0.02 lands at 0.064 and its bounces end 0.128 later (see
    /// `StepConfig::rest_speed`), within the first step at every step length here.
    lift: Real,
    /// Where the balls are across the floor, along the first direction across it.
    across: Vec<Real>,
}

/// A vector as a scene file writes one.
fn ron(v: Vec3) -> String {
    format!("({:?}, {:?}, {:?})", v.x, v.y, v.z)
}

/// Two unit directions across `up`, at right angles to it and to each other.
fn across(up: Vec3) -> (Vec3, Vec3) {
    let u = if up.x == 0.0 { Vec3::X } else { Vec3::Y };
    (u, up.cross(u))
}

impl Room {
    /// Where a ball resting at `offset` across the floor has its centre.
    fn resting(&self, offset: Real) -> Vec3 {
        self.up * (RADIUS - 1.0) + across(self.up).0 * offset
    }

    /// The scene file, stepped for 6 steps.
    fn scene(&self) -> Scene {
        let (up, (u, w)) = (self.up, across(self.up));
        // The underside of what is above: 0.05 over the top of a resting ball
        let h = up * (2.0 * RADIUS + GAP - 1.0);
        let mut text = format!(
            "Scene(dt: {:?}, steps: 6, gravity: {}, friction: {:?}, restitution: 0.5,
               planes: [(point: {}, normal: {})",
            self.dt,
            ron(up * -9.81),
            self.friction,
            ron(-up),
            ron(up)
        );
        let (mut cylinders, mut polygons) = (String::new(), String::new());
        match self.above {
            Above::Ceiling => write!(text, ", (point: {}, normal: {})", ron(h), ron(-up)),
            Above::Cylinder => {
                let c = h + up * 0.05;
                let (a, b) = (ron(c - u * 2.0), ron(c + u * 2.0));
                write!(cylinders, "Capped(a: {a}, b: {b}, radius: 0.05)")
            }
            Above::Polygon => {
                let corners = [h - u - w, h + u - w, h + u + w, h - u + w].map(ron);
                write!(polygons, "(vertices: [{}])", corners.join(", "))
            }
        }
        .expect("writing to a string");
        let balls: Vec<String> = (self.across.iter())
            .map(|&offset| {
                let at = self.resting(offset) + up * self.lift;
                format!("(pos: {}, radius: {RADIUS:?})", ron(at))
            })
            .collect();
        write!(
            text,
            "], cylinders: [{cylinders}], polygons: [{polygons}], balls: [{}])",
            balls.join(", ")
        )
        .expect("writing to a string");
        Scene::parse(&text, "room.ron").unwrap_or_else(|e| panic!("{e}\n{text}"))
    }
}

/// What a judged run saw: the judge, the world at its end, and the balls as judged after each
/// step.
struct Judged {
    judge: Judge,
    world: SceneWorld,
    steps: Vec<Vec<BallStep>>,
}

/// Step `scene` for its steps with `strategy`, balls sleeping if `sleep`, judging each step.
fn judged(scene: &Scene, strategy: ToiMode, sleep: bool) -> Judged {
    let mut world = scene.build();
    world.sim.stepper.config.strategy = strategy;
    if !sleep {
        world.sim.stepper.config.sleep = None;
    }
    let mut judge = Judge::new(scene);
    let mut steps = Vec::new();
    for _ in 0..scene.steps {
        let report = world.sim.step(scene.dt).expect("a valid step");
        let mut balls = Vec::new();
        read_step(&world, &report.events, scene.dt, &mut balls);
        judge.judge(&balls, scene.dt);
        steps.push(balls);
    }
    Judged {
        judge,
        world,
        steps,
    }
}

/// True when `ball` was judged standing: on its one path, without acceleration or motion.
fn standing(ball: &BallStep) -> bool {
    let still = Motion::Flight {
        acceleration: Vec3::ZERO,
    };
    ball.motion == still && ball.previous == ball.position
}

/// Check that the balls of `room` rest and pass through nothing, stepped with and without
/// sleep; asleep, each must have been judged standing in some step.
fn check_resting(room: &Room) {
    let scene = room.scene();
    let what = format!(
        "floor normal {}, {:?} above, dt {}, friction {}, lifted {}",
        room.up, room.above, room.dt, room.friction, room.lift
    );
    for sleep in [true, false] {
        let run = judged(&scene, ToiMode::Analytic, sleep);
        let what = format!("{what}, sleep {sleep}");
        assert_eq!(
            run.judge.counts(),
            (0, 0),
            "{what}: {:?}",
            run.judge.findings
        );
        let w = &run.world.sim.world;
        for (k, (&ball, &offset)) in run.world.balls.iter().zip(&room.across).enumerate() {
            let p = crate::common::position(w, ball);
            let rest = room.resting(offset);
            assert!(
                p.distance(rest) <= 1e-9,
                "{what}: ball {k} at {p}, rests at {rest}"
            );
            let stood = run.steps.iter().any(|balls| standing(&balls[k]));
            assert!(!sleep || stood, "{what}: ball {k} never judged standing");
        }
    }
}

#[test]
fn a_ball_resting_under_something_low_passes_through_nothing_at_long_steps() {
    for up in [Vec3::X, Vec3::Y, Vec3::Z] {
        for above in [Above::Ceiling, Above::Cylinder, Above::Polygon] {
            for dt in STEP_LENGTHS {
                for (friction, lift) in [(0.0, 0.0), (0.5, 0.0), (0.0, 0.02), (0.5, 0.02)] {
                    check_resting(&Room {
                        up,
                        above,
                        dt,
                        friction,
                        lift,
                        across: vec![0.0],
                    });
                }
            }
        }
    }
}

#[test]
fn an_elastic_ball_bouncing_under_something_low_passes_through_nothing_at_long_steps() {
    // Dropped 0.02 onto the floor at restitution 1, it bounces 0.02 high for good (every 0.128)
    // at any step length, many times a step: no bounce is taken as rest, the judge finds
    // nothing, and it never rises above where it was let go
    for above in [Above::Ceiling, Above::Cylinder, Above::Polygon] {
        for dt in STEP_LENGTHS {
            let room = Room {
                up: Vec3::Y,
                above,
                dt,
                friction: 0.0,
                lift: 0.02,
                across: vec![0.0],
            };
            let mut scene = room.scene();
            for ball in &mut scene.balls {
                ball.restitution = 1.0;
            }
            for shape in &mut scene.planes {
                shape.restitution = 1.0;
            }
            let run = judged(&scene, ToiMode::Analytic, true);
            let what = format!("{above:?} above, dt {dt}");
            assert_eq!(
                run.judge.counts(),
                (0, 0),
                "{what}: {:?}",
                run.judge.findings
            );
            let w = &run.world.sim.world;
            let p = crate::common::position(w, run.world.balls[0]);
            let rest = room.resting(0.0);
            assert!(
                p.y >= rest.y - 1e-12 && p.y <= rest.y + 0.02 + 1e-12,
                "{what}: at {p}"
            );
            let v = crate::common::velocity(w, run.world.balls[0]);
            let energy = 0.5 * v.length_squared() + 9.81 * (p.y - rest.y);
            assert!(
                (energy - 9.81 * 0.02).abs() <= 1e-9,
                "{what}: energy {energy} per unit mass"
            );
        }
    }
}

#[test]
fn two_balls_resting_side_by_side_under_a_low_ceiling_pass_through_nothing() {
    for dt in STEP_LENGTHS {
        for friction in [0.0, 0.5] {
            // 0.001 apart
            check_resting(&Room {
                up: Vec3::Y,
                above: Above::Ceiling,
                dt,
                friction,
                lift: 0.0,
                across: vec![-0.1005, 0.1005],
            });
        }
    }
}

/// The strategies that can let a fast ball through: the end-of-step test, and a sliced search
/// whose two slices sample the middle and the end of the step.
fn tunnelling() -> [ToiMode; 2] {
    [ToiMode::Discrete, ToiMode::Sliced { slices: 2 }]
}

#[test]
fn a_ball_tunnelling_through_a_pane_at_a_long_step_is_caught() {
    for dt in [2.0, 5.0, 10.0] {
        // From x = -50 at 100 / dt through the pane x = -25 (|y|, |z| <= 100) at t = dt/4,
        // fallen g (dt/4)² / 2 (at most 30.7), to x = 50
        let text = format!(
            "Scene(dt: {dt:?}, steps: 1,
               polygons: [(vertices: [(-25.0, -100.0, -100.0), (-25.0, 100.0, -100.0),
                 (-25.0, 100.0, 100.0), (-25.0, -100.0, 100.0)])],
               balls: [(pos: (-50.0, 0.0, 0.0), vel: ({:?}, 0.0, 0.0), radius: 0.5)])",
            100.0 / dt
        );
        let scene = Scene::parse(&text, "pane.ron").unwrap_or_else(|e| panic!("{e}"));
        let exact = judged(&scene, ToiMode::Analytic, true);
        let x = |run: &Judged| crate::common::position(&run.world.sim.world, run.world.balls[0]).x;
        assert!(
            x(&exact) < -25.0,
            "dt {dt}: the exact sweep bounces it back"
        );
        assert_eq!(exact.judge.counts(), (0, 0), "dt {dt}");
        for strategy in tunnelling() {
            let run = judged(&scene, strategy.clone(), true);
            assert!(x(&run) > 0.0, "dt {dt}, {strategy}: it went through");
            assert_eq!(run.judge.counts(), (0, 1), "dt {dt}, {strategy}");
            let found = run.judge.findings[0];
            assert_eq!(found.fault, Fault::PassedThrough);
            assert_eq!((found.step, found.ball), (0, 0));
            assert_eq!(found.other, SceneItem::Polygon(0));
            // Its centre crossed the pane: its deepest overlap is its radius
            assert!((found.depth - 0.5).abs() <= 1e-6, "{found:?}");
        }
    }
}

#[test]
fn balls_tunnelling_through_each_other_at_a_long_step_are_caught() {
    for dt in [2.0, 5.0, 10.0] {
        // Head-on from x = ±25 at ±100 / dt, falling together: they meet at t = dt/4 at
        // x = 0 and end at x = ±75, swapped, unless they bounce
        let speed = 100.0 / dt;
        let text = format!(
            "Scene(dt: {dt:?}, steps: 1, balls: [
               (pos: (-25.0, 0.0, 0.0), vel: ({speed:?}, 0.0, 0.0), radius: 0.5),
               (pos: (25.0, 0.0, 0.0), vel: ({:?}, 0.0, 0.0), radius: 0.5)])",
            -speed
        );
        let scene = Scene::parse(&text, "pair.ron").unwrap_or_else(|e| panic!("{e}"));
        let swapped = |run: &Judged| {
            let x = |k: usize| crate::common::position(&run.world.sim.world, run.world.balls[k]).x;
            x(0) > x(1)
        };
        let exact = judged(&scene, ToiMode::Analytic, true);
        assert!(!swapped(&exact), "dt {dt}: the exact sweep bounces them");
        assert_eq!(exact.judge.counts(), (0, 0), "dt {dt}");
        for strategy in tunnelling() {
            let run = judged(&scene, strategy.clone(), true);
            assert!(swapped(&run), "dt {dt}, {strategy}: they went through");
            assert_eq!(run.judge.counts(), (0, 2), "dt {dt}, {strategy}");
        }
    }
}

/// Step the demo scene `name` for `steps` of `dt` (its own when `None`), checking after each
/// step that every ball that collided is judged bent, every ball that slept through the step
/// standing, and every other one in flight under gravity; return how many flew and stood.
fn check_paths(name: &str, dt: Option<Real>, steps: u64) -> (u64, u64) {
    let mut scene = Scene::load(format!("scenes/{name}.ron")).unwrap_or_else(|e| panic!("{e}"));
    let dt = dt.unwrap_or(scene.dt);
    scene.dt = dt;
    let mut world = scene.build();
    let flight = Motion::Flight {
        acceleration: scene.gravity,
    };
    let (mut flew, mut stood) = (0, 0);
    let mut balls = Vec::new();
    let mut was_asleep = vec![false; world.balls.len()];
    for k in 0..steps {
        let report = world.sim.step(dt).expect("a valid step");
        read_step(&world, &report.events, dt, &mut balls);
        let mut collided = vec![false; balls.len()];
        for event in &report.events {
            for e in [event.a, event.b] {
                if let Some(SceneItem::Ball(i)) = world.item(e) {
                    collided[i] = true;
                }
            }
        }
        for (i, ball) in balls.iter().enumerate() {
            let sleep = world.sim.world.get::<&Sleep>(world.balls[i]);
            let asleep = sleep.is_ok_and(|s| s.asleep());
            // A sleeper woken with its island at the step's end stood all step
            let slept = std::mem::replace(&mut was_asleep[i], asleep);
            let what = format!("{name}, dt {dt}, step {k}, ball {i}: {ball:?}");
            if collided[i] {
                assert_eq!(ball.motion, Motion::Bent, "{what}");
            } else if asleep || slept {
                assert!(standing(ball), "{what}");
                stood += 1;
            } else {
                assert_eq!(ball.motion, flight, "{what}");
                flew += 1;
            }
        }
    }
    println!("{name}, dt {dt}: {flew} balls judged in flight, {stood} standing");
    (flew, stood)
}

#[test]
fn every_ball_the_stepper_flew_on_one_path_is_judged_along_it() {
    // Flight and bounces in a room, pegs and bins, a pile that falls asleep; at longer steps
    // the board's balls soon lie still and sleep
    let (flew, _) = check_paths("nehe_room", None, 300);
    assert!(flew > 0);
    let (flew, _) = check_paths("nehe_room", Some(2.0), 100);
    assert!(flew > 0);
    let (flew, stood) = check_paths("galton_board", None, 200);
    assert!(flew > 0 && stood > 0);
    let (_, stood) = check_paths("galton_board", Some(0.5), 100);
    assert!(stood > 0);
    let (flew, stood) = check_paths("resting_pile", None, 300);
    assert!(flew > 0 && stood > 0);
    let (_, stood) = check_paths("resting_pile", Some(0.5), 100);
    assert!(stood > 0);
}
