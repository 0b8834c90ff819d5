//! The judge against hand-worked cases and brute force.

use super::*;

fn scene() -> Scene {
    // A floor, a pane at x = 0 (2 x 2), and a pole along y through x = 5
    Scene::parse(
        "Scene(dt: 0.1, gravity: (0.0, 0.0, 0.0),
           balls: [(pos: (-2.0, 0.0, 0.0), radius: 0.1), (pos: (3.0, 0.0, 0.0), radius: 0.1)],
           planes: [(point: (0.0, -1.0, 0.0), normal: (0.0, 1.0, 0.0))],
           cylinders: [Infinite(point: (5.0, 0.0, 0.0), axis: (0.0, 1.0, 0.0), radius: 0.5)],
           polygons: [(vertices: [(0.0, -1.0, -1.0), (0.0, 1.0, -1.0), (0.0, 1.0, 1.0), (0.0, -1.0, 1.0)])])",
        "faults.ron",
    )
    .unwrap()
}

/// A ball of radius 0.1 that collided in the step, or flew straight (the scene has no
/// gravity).
fn state(previous: Vec3, position: Vec3, collided: bool) -> BallStep {
    let motion = if collided {
        Motion::Bent
    } else {
        Motion::Flight {
            acceleration: Vec3::ZERO,
        }
    };
    BallStep {
        previous,
        position,
        radius: 0.1,
        motion,
    }
}

/// The path a stepper writes: only its acceleration matters to the judge.
fn path(acceleration: Vec3) -> Path {
    Path {
        acceleration,
        ..Path::default()
    }
}

#[test]
fn a_path_that_reaches_back_to_where_the_ball_began_is_the_one_it_flew() {
    let g = Vec3::new(0.0, -10.0, 0.0);
    let flight = |acceleration| Motion::Flight { acceleration };
    // From the origin going (1, 10, 0), under g for 2: at (2, 20 - 20, 0) going (1, -10, 0)
    let (start, end, v) = (
        Vec3::ZERO,
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(1.0, -10.0, 0.0),
    );
    assert_eq!(
        Motion::of_path(start, end, v, Some(&path(g)), 2.0),
        flight(g)
    );
    // Asleep: no velocity, no acceleration, no displacement
    let (at, still) = (Vec3::new(0.0, -0.9, 0.0), Vec3::ZERO);
    let asleep = Motion::of_path(at, at, still, Some(&path(still)), 5.0);
    assert_eq!(asleep, flight(still));
    // Stopped at t = 1 at (1, 5, 0), keeping (1, 0, 0) on a straight path: taken back over
    // the step it starts at (-1, 5, 0), not at the origin
    let stopped = Motion::of_path(
        start,
        Vec3::new(1.0, 5.0, 0.0),
        Vec3::X,
        Some(&path(still)),
        2.0,
    );
    assert_eq!(stopped, Motion::Bent);
    // Resting at the same spot, pressed on by gravity: no parabola ends where it began
    // with no velocity
    assert_eq!(
        Motion::of_path(at, at, still, Some(&path(g)), 5.0),
        Motion::Bent
    );
    // Without a path
    assert_eq!(Motion::of_path(start, end, v, None, 2.0), Motion::Bent);
}

#[test]
fn paths_flown_all_step_reach_back_and_paths_that_changed_course_do_not() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    let vector = |rng: &mut rand_pcg::Pcg64, half: Real| {
        let v = Vec3::new(rng.random(), rng.random(), rng.random());
        (v * 2.0 - 1.0) * half
    };
    let g = Vec3::new(0.0, -9.81, 0.0);
    for round in 0..2000 {
        let dt = [0.01, 0.5, 2.0, 5.0, 10.0][round % 5];
        // A path begun up to an epoch of 64 steps before this one, as the stepper keeps
        // them, or a straight one
        let acceleration = if round % 3 == 0 { Vec3::ZERO } else { g };
        let flown = Path {
            origin: vector(&mut rng, 100.0),
            velocity: vector(&mut rng, 20.0),
            acceleration,
            time: 0.0,
            until: Real::INFINITY,
        };
        let t0 = (round % 65) as Real * dt;
        let (t1, previous) = (t0 + dt, flown.at(t0));
        let (end, velocity) = (flown.at(t1), flown.velocity_at(t1));
        let motion = Motion::of_path(previous, end, velocity, Some(&flown), dt);
        assert_eq!(motion, Motion::Flight { acceleration }, "round {round}");
        // A change of velocity by 0.1 to 10 between a twentieth and all but a twentieth of
        // the step: the start it gives moves by 5e-3 at least
        let turn = t0 + dt * (0.05 + 0.9 * rng.random::<Real>());
        let change = vector(&mut rng, 1.0).normalize() * (0.1 + 9.9 * rng.random::<Real>());
        let turned = Path {
            origin: flown.at(turn),
            velocity: flown.velocity_at(turn) + change,
            time: turn,
            ..flown
        };
        let (end, velocity) = (turned.at(t1), turned.velocity_at(t1));
        let motion = Motion::of_path(previous, end, velocity, Some(&turned), dt);
        assert_eq!(motion, Motion::Bent, "round {round}");
    }
}

#[test]
fn a_ball_standing_under_a_ceiling_is_judged_standing_not_on_a_parabola() {
    // Floor at y = -1, ceiling at y = 1: a ball of radius 0.1 resting at y = -0.9
    let room = Scene::parse(
        "Scene(dt: 5.0, balls: [(pos: (0.0, -0.9, 0.0), radius: 0.1)],
           planes: [(point: (0.0, -1.0, 0.0), normal: (0.0, 1.0, 0.0)),
                    (point: (0.0, 1.0, 0.0), normal: (0.0, -1.0, 0.0))])",
        "room.ron",
    )
    .unwrap();
    let at = Vec3::new(0.0, -0.9, 0.0);
    let ball = |acceleration| BallStep {
        previous: at,
        position: at,
        radius: 0.1,
        motion: Motion::Flight { acceleration },
    };
    let mut judge = Judge::new(&room);
    judge.judge(&[ball(Vec3::ZERO)], 5.0);
    assert_eq!(judge.counts(), (0, 0));
    // Through the same ends a parabola under gravity bulges |g| dt² / 8 = 30.66 up, through
    // the ceiling 1.8 above the ball's top: 28.86 deep at its apex, y = 29.76
    let mut judge = Judge::new(&room);
    judge.judge(&[ball(room.gravity)], 5.0);
    assert_eq!(judge.counts(), (0, 1));
    let found = judge.findings[0];
    assert_eq!(found.other, SceneItem::Plane(1));
    let apex = -0.9 + 9.81 * 25.0 / 8.0;
    assert!((found.depth - (apex + 0.1 - 1.0)).abs() < 1e-9, "{found:?}");
}

#[test]
fn a_ball_stopped_when_the_budget_ran_out_is_judged_where_it_stopped() {
    // Without gravity, from x = 0 at 1 towards a wall at x = 1: touching at t = 0.5, where
    // a budget of no collisions stops it, keeping its velocity for the next step
    let scene = Scene::parse(
        "Scene(dt: 1.0, gravity: (0.0, 0.0, 0.0),
           balls: [(pos: (0.0, 0.0, 0.0), vel: (1.0, 0.0, 0.0), radius: 0.5)],
           planes: [(point: (1.0, 0.0, 0.0), normal: (-1.0, 0.0, 0.0))])",
        "wall.ron",
    )
    .unwrap();
    let mut world = scene.build();
    world.sim.stepper.config.max_events_per_step = Some(0);
    let report = world.sim.step(1.0).unwrap();
    assert!(report.events.is_empty());
    assert_eq!(report.stats.stopped, 1);
    let mut balls = Vec::new();
    read_step(&world, &report.events, 1.0, &mut balls);
    assert!((balls[0].position - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-12);
    assert_eq!(balls[0].motion, Motion::Bent);
    let mut judge = Judge::new(&scene);
    judge.judge(&balls, 1.0);
    assert_eq!(judge.counts(), (0, 0));
}

#[test]
fn the_grid_finds_the_pairs_that_testing_every_pair_finds() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
    let scene = Scene::parse(
        "Scene(dt: 0.1, balls: [], planes: [], cylinders: [], polygons: [])",
        "none.ron",
    )
    .unwrap();
    for round in 0..20 {
        // Crowded balls of mixed sizes, a few of them fast enough to be wide
        let balls: Vec<BallStep> = (0..300)
            .map(|k| {
                let at = Vec3::new(rng.random(), rng.random(), rng.random()) * 3.0;
                let speed = if k % 37 == 0 { 40.0 } else { 0.5 };
                let step = Vec3::new(rng.random(), rng.random(), rng.random()) - 0.5;
                BallStep {
                    previous: at,
                    position: at + step * speed * 0.1,
                    radius: rng.random_range(0.01..0.08),
                    motion: if rng.random_bool(0.2) {
                        Motion::Bent
                    } else {
                        Motion::Flight {
                            acceleration: scene.gravity,
                        }
                    },
                }
            })
            .collect();
        let mut judge = Judge::new(&scene);
        judge.per_ball = vec![None; balls.len()];
        judge.judge_pairs(&balls, 0.1);
        let mut expected = vec![None; balls.len()];
        for i in 0..balls.len() {
            for j in i + 1..balls.len() {
                if pair_passed_through(&balls[i], &balls[j], 0.1) {
                    expected[i] = Some(Fault::PassedThrough);
                    expected[j] = Some(Fault::PassedThrough);
                }
            }
        }
        assert_eq!(judge.per_ball, expected, "round {round}");
        assert!(
            expected.iter().any(Option::is_some),
            "round {round} tests nothing"
        );
    }
}

#[test]
fn least_finds_the_bottom_of_a_convex_gap() {
    // A narrow V near one end, a parabola, a line, a constant
    let v = |t: Real| (400.0 * (t - 0.0075125)).abs() - 0.005;
    assert!((least(v, 0.0075, 0.016_666) + 0.005).abs() < 1e-9);
    let parabola = |t: Real| (t - 0.3) * (t - 0.3) - 1.0;
    assert!((least(parabola, 0.0, 1.0) + 1.0).abs() < 1e-12);
    assert_eq!(least(|t| 2.0 - t, 0.0, 1.5), 0.5);
    assert_eq!(least(|_| 4.0, 1.0, 1.0), 4.0);
}

#[test]
fn a_ball_that_crossed_the_pane_passed_through_it() {
    let mut judge = Judge::new(&scene());
    let parked = state(Vec3::new(3.0, 0.0, 0.0), Vec3::new(3.0, 0.0, 0.0), false);
    // From x = -2 to x = 2 in one step, straight through the pane at x = 0
    let crossed = state(Vec3::new(-2.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0), false);
    judge.judge(&[crossed, parked], 0.1);
    assert_eq!(judge.per_ball, vec![Some(Fault::PassedThrough), None]);
    // A bounce (a collision in the step) that ends clear is no fault
    let mut judge = Judge::new(&scene());
    let bounced = state(Vec3::new(-2.0, 0.0, 0.0), Vec3::new(-1.0, 0.0, 0.0), true);
    judge.judge(&[bounced, parked], 0.1);
    assert_eq!(judge.per_ball, vec![None, None]);
}

#[test]
fn behind_the_floor_or_inside_the_pole_is_escaped() {
    let mut judge = Judge::new(&scene());
    let below = state(Vec3::new(-2.0, 0.0, 0.0), Vec3::new(-2.0, -1.5, 0.0), false);
    let inside = state(Vec3::new(3.0, 0.0, 0.0), Vec3::new(5.1, 0.0, 0.0), false);
    judge.judge(&[below, inside], 0.1);
    assert_eq!(judge.counts(), (2, 0));
}

#[test]
fn balls_that_crossed_each_other_passed_through_and_touching_ones_did_not() {
    let mut judge = Judge::new(&scene());
    // Head-on along z = 2 (clear of the pane), swapping places in one step
    let a = state(Vec3::new(-1.0, 0.0, 2.0), Vec3::new(1.0, 0.0, 2.0), false);
    let b = state(Vec3::new(1.0, 0.0, 2.0), Vec3::new(-1.0, 0.0, 2.0), false);
    judge.judge(&[a, b], 0.1);
    assert_eq!(judge.counts(), (0, 2));
    // Resting in contact (centres 2 radii apart) is fine
    let mut judge = Judge::new(&scene());
    let a = state(Vec3::new(-1.0, 0.0, 2.0), Vec3::new(-1.0, 0.0, 2.0), false);
    let b = state(Vec3::new(-0.8, 0.0, 2.0), Vec3::new(-0.8, 0.0, 2.0), false);
    judge.judge(&[a, b], 0.1);
    assert_eq!(judge.counts(), (0, 0));
}
