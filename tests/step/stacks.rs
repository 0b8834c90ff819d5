//! Coulomb's limit: stacks stand exactly when friction can hold them, and slide or roll apart
//! when it cannot.
//!
//! Three equal balls, two on a floor touching and one on top (the classic problem of three
//! stacked cylinders): each bottom ball's torque about its centre needs the friction at the
//! floor to equal that at the top contact, and then its horizontal balance needs
//! `F / N = cos 60° / (1 + sin 60°) = tan 15° = 2 - √3` (0.268) at the top contact, whatever
//! the masses and gravity (the floor needs less). On a frictionless floor the bottom balls
//! cannot be held from turning, so the stack falls at any friction between the balls. A
//! pyramid of four balls is the same balance with the top contact steeper: `tan(θ / 2)`,
//! `sin θ = 1/√3` (0.318).

use crate::common::{energy, position, velocity};
use toibox::hecs::{Entity, World};
use toibox::{BallDef, Plane, Real, Sleep, StepConfig, Stepper, Vec3};

/// The friction at which the three-ball stack stands: `2 - √3`.
fn threshold() -> Real {
    2.0 - 3.0_f64.sqrt()
}

/// A three-ball stack of radius `r` on a floor facing `up` (gravity 9.81 against it), balls
/// of friction `mu` (the floor `floor_mu`), restitution 0, the top ball `top_mass` times as
/// heavy as each bottom one: the world, and its balls (bottom, bottom, top).
fn stack(r: Real, up: Vec3, (mu, floor_mu): (Real, Real), top_mass: Real) -> (World, [Entity; 3]) {
    let mut world = World::new();
    world.spawn((
        Plane::new(Vec3::ZERO, up).unwrap(),
        toibox::sim::Friction(floor_mu),
        toibox::sim::Restitution(0.0),
    ));
    let across = if up.x == 0.0 { Vec3::X } else { Vec3::Y };
    let mass = 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    let ball = |at: Vec3, m: Real, world: &mut World| {
        BallDef::new(at, r)
            .mass(m)
            .friction(mu)
            .restitution(0.0)
            .spawn(world)
    };
    let a = ball(up * r - across * r, mass, &mut world);
    let b = ball(up * r + across * r, mass, &mut world);
    let top = ball(
        up * (r + 2.0 * r * 60f64.to_radians().sin()),
        mass * top_mass,
        &mut world,
    );
    (world, [a, b, top])
}

/// Step the stack for 300 steps of `dt` (5 time units at 1/60); return true when it stood (no
/// ball moved by more than 1e-9 of the radius in any step, every ball still and asleep at the
/// end), false when it fell (the top ball came down by more than a hundredth of a radius; near
/// the threshold it slides slowly). Energy never rises.
fn stands(world: &mut World, balls: &[Entity], up: Vec3, dt: Real, what: &str) -> bool {
    watch(world, balls, (up, dt, 5.0), what).0
}

/// Step a pile on a floor facing `up` for `seconds` in steps of `dt` as [`stands`] does: true
/// when it stood, and the relaxed solves of its clusters (see
/// `StepStats::contact_solves_relaxed`).
fn watch(
    world: &mut World,
    balls: &[Entity],
    (up, dt, seconds): (Vec3, Real, Real),
    what: &str,
) -> (bool, u64) {
    let gravity = up * -9.81;
    let mut stepper = Stepper::new(StepConfig {
        gravity,
        ..StepConfig::default()
    });
    let start: Vec<Vec3> = balls.iter().map(|&b| position(world, b)).collect();
    let top = balls.len() - 1;
    let r = world.get::<&toibox::sim::Radius>(balls[0]).unwrap().0;
    let mut moved = false;
    let mut relaxed = 0;
    let steps = (seconds / dt).round() as usize;
    let fastest = |world: &World| {
        balls
            .iter()
            .map(|&b| velocity(world, b).length())
            .fold(0.0, Real::max)
    };
    for step in 0..steps {
        let (before, scale) = energy(world, gravity);
        let was = fastest(world);
        let stats = stepper.step(world, dt).unwrap().stats;
        relaxed += stats.contact_solves_relaxed;
        let (after, _) = energy(world, gravity);
        // Solved together from the first step, to the stated tolerances: 1e-12 of the rest
        // speed (2 |g| dt by default) for resting clusters, and for crowds (a pile falling
        // apart meets them) 2e-9 of their fastest speed, none while it stands
        assert!(step > 0 || stats.contact_solves > 0, "{what}: not solved");
        let speed = was.max(fastest(world)) + 9.81 * dt;
        let moving = if was > 0.0 { 2e-9 * speed } else { 0.0 };
        let tolerance = (1e-12 * 2.0 * 9.81 * dt).max(moving);
        assert!(
            stats.contact_residual <= tolerance,
            "{what}, step {step}: residual {:e}",
            stats.contact_residual
        );
        assert!(
            after <= before + 1e-12 * scale,
            "{what}, step {step}: energy rose from {before} to {after}"
        );
        for (k, &b) in balls.iter().enumerate() {
            moved |= position(world, b).distance(start[k]) > 1e-9 * r;
        }
    }
    let fell = (start[top] - position(world, balls[top])).dot(up) > 0.01 * r;
    assert!(
        moved == fell,
        "{what}: moved {moved} but fell {fell}: top at {}",
        position(world, balls[top])
    );
    if !moved {
        for &b in balls {
            assert_eq!(
                velocity(world, b),
                Vec3::ZERO,
                "{what}: a ball stood moving"
            );
            let asleep = world.get::<&Sleep>(b).is_ok_and(|s| s.asleep());
            assert!(asleep, "{what}: a ball stood awake");
        }
    }
    (!moved, relaxed)
}

#[test]
fn a_three_ball_stack_stands_exactly_when_friction_can_hold_it() {
    // Both sides of 2 - √3 with margins (the 0.02 and 0.5, Rapier's 0.2 and 0.3, and
    // within 0.01 of it), for two radii, top balls of a tenth to ten times the mass, floors
    // facing three ways, and steps of 1/240 to 1/30
    let t = threshold();
    for (r, up, top_mass, dt) in [
        (0.1, Vec3::Y, 1.0, 1.0 / 60.0),
        (0.05, Vec3::X, 10.0, 1.0 / 120.0),
        (1.0, Vec3::Z, 0.1, 1.0 / 30.0),
        (0.1, Vec3::new(0.0, 0.6, 0.8), 3.0, 1.0 / 240.0),
    ] {
        for mu in [0.0, 0.02, 0.2, t - 0.01] {
            let what = format!("r {r}, up {up}, top mass x{top_mass}, dt {dt}, friction {mu}");
            let (mut world, balls) = stack(r, up, (mu, mu), top_mass);
            assert!(
                !stands(&mut world, &balls, up, dt, &what),
                "{what}: it stood"
            );
        }
        for mu in [t + 0.01, 0.3, 0.5, 1.0] {
            let what = format!("r {r}, up {up}, top mass x{top_mass}, dt {dt}, friction {mu}");
            let (mut world, balls) = stack(r, up, (mu, mu), top_mass);
            assert!(stands(&mut world, &balls, up, dt, &what), "{what}: it fell");
        }
    }
}

#[test]
fn a_three_ball_stack_friction_cannot_hold_comes_apart_at_any_step_length() {
    // Below 2 - √3 the stack cannot stand anywhere on its way down (the top contact only
    // steepens), so the top ball ends on the floor, at any step. At steps of 1/4 and 1/2 it
    // stopped part way and slept: a step's kick left the top ball in the air, nothing was
    // solved, and the bottom balls, still for the moment, slept under it. Above the limit it
    // stands at these steps too
    let t = threshold();
    for (r, up, top_mass) in [
        (0.1, Vec3::Y, 1.0),
        (0.05, Vec3::X, 3.0),
        (1.0, Vec3::Z, 0.3),
    ] {
        for dt in [1.0 / 60.0, 0.1, 0.25, 0.5, 1.0, 2.0_f64] {
            for mu in [0.02, 0.2, 0.25, t - 0.01] {
                let what = format!("r {r}, up {up}, top mass x{top_mass}, dt {dt}, friction {mu}");
                let (mut world, balls) = stack(r, up, (mu, mu), top_mass);
                let mut stepper = Stepper::new(StepConfig {
                    gravity: up * -9.81,
                    ..StepConfig::default()
                });
                // 8 time units, or 40 steps where they are longer (a step of 1 takes a
                // stack of radius 1 a fifth of a radius down)
                for _ in 0..((8.0 / dt).round() as usize).max(40) {
                    stepper.step(&mut world, dt).unwrap();
                }
                let height = position(&world, balls[2]).dot(up);
                assert!(
                    (height - r).abs() <= 1e-9 * r,
                    "{what}: the top ball stopped at {height}"
                );
            }
            if dt >= 0.25 {
                for mu in [t + 0.01, 0.5] {
                    let what =
                        format!("r {r}, up {up}, top mass x{top_mass}, dt {dt}, friction {mu}");
                    let (mut world, balls) = stack(r, up, (mu, mu), top_mass);
                    assert!(stands(&mut world, &balls, up, dt, &what), "{what}: it fell");
                }
            }
        }
    }
}

#[test]
fn a_three_ball_stack_on_a_frictionless_floor_falls_at_any_friction() {
    for mu in [0.3, 1.0, 5.0] {
        let what = format!("friction {mu} between the balls, none on the floor");
        let (mut world, balls) = stack(0.1, Vec3::Y, (mu, 0.0), 1.0);
        assert!(
            !stands(&mut world, &balls, Vec3::Y, 1.0 / 60.0, &what),
            "{what}: it stood"
        );
    }
}

/// A pyramid of four equal balls of radius `r` on a floor (`y = 0`): three touching in a
/// triangle, one on top touching all three; friction `mu` between the balls (the floor
/// `floor_mu`), restitution 0.
fn pyramid(r: Real, (mu, floor_mu): (Real, Real)) -> (World, Vec<Entity>) {
    let mut world = World::new();
    world.spawn((
        Plane::new(Vec3::ZERO, Vec3::Y).unwrap(),
        toibox::sim::Friction(floor_mu),
        toibox::sim::Restitution(0.0),
    ));
    let ball = |at: Vec3, world: &mut World| {
        BallDef::new(at, r)
            .friction(mu)
            .restitution(0.0)
            .spawn(world)
    };
    // Bottom centres 2r / √3 from the axis; the top 2r √(2/3) above them
    let out = 2.0 * r / 3.0_f64.sqrt();
    let mut balls: Vec<Entity> = [0.0, 120.0, 240.0]
        .map(|a: Real| a.to_radians())
        .map(|a| ball(Vec3::new(out * a.cos(), r, out * a.sin()), &mut world))
        .to_vec();
    balls.push(ball(
        Vec3::new(0.0, r + 2.0 * r * (2.0 / 3.0_f64).sqrt(), 0.0),
        &mut world,
    ));
    (world, balls)
}

#[test]
fn a_four_ball_pyramid_stands_exactly_when_friction_can_hold_it() {
    // The three-ball stack's balance with the top contact at θ from the vertical, sin θ = 1/√3
    // (the bottom balls' contacts with each other part, so they carry nothing): F / N =
    // tan(θ / 2) = sin θ / (1 + cos θ) = 0.318 at the top contact
    let sin = 1.0 / 3.0_f64.sqrt();
    let t = sin / (1.0 + (1.0 - sin * sin).sqrt());
    for (r, dt) in [(0.1, 1.0 / 60.0), (0.5, 1.0 / 30.0), (0.02, 1.0 / 120.0)] {
        for (mu, holds) in [
            (0.02, false),
            (2.0 - 3.0_f64.sqrt(), false),
            (t - 0.01, false),
            (t + 0.01, true),
            (0.5, true),
            (1.0, true),
        ] {
            let what = format!("pyramid of radius {r}, dt {dt}, friction {mu}");
            let (mut world, balls) = pyramid(r, (mu, mu));
            let stood = stands(&mut world, &balls, Vec3::Y, dt, &what);
            assert_eq!(stood, holds, "{what}: stood {stood}");
        }
    }
    // A frictionless floor cannot hold the bottom balls from turning
    let (mut world, balls) = pyramid(0.1, (1.0, 0.0));
    let what = "pyramid on a frictionless floor";
    assert!(
        !stands(&mut world, &balls, Vec3::Y, 1.0 / 60.0, what),
        "{what}: it stood"
    );
}

/// A pyramid of six balls of radius `r` in a plane on a floor: three touching in a row, two on
/// them, one on top; friction `mu` everywhere, restitution 0.
fn six(r: Real, mu: Real) -> (World, Vec<Entity>) {
    let mut world = World::new();
    world.spawn((
        Plane::new(Vec3::ZERO, Vec3::Y).unwrap(),
        toibox::sim::Friction(mu),
        toibox::sim::Restitution(0.0),
    ));
    let rise = 2.0 * r * 60f64.to_radians().sin();
    let mut balls = Vec::new();
    for (row, count) in [(0, 3), (1, 2), (2, 1)] {
        for k in 0..count {
            let x = (2 * k + row) as Real * r;
            let at = Vec3::new(x, r + row as Real * rise, 0.0);
            balls.push(
                BallDef::new(at, r)
                    .friction(mu)
                    .restitution(0.0)
                    .spawn(&mut world),
            );
        }
    }
    (world, balls)
}

#[test]
fn a_six_ball_pyramid_falls_below_the_stacks_limit_and_stands_on_rough_balls() {
    // Each outer bottom ball carries only the ball above it (its contact with the middle one
    // parts), so it is the three-ball stack's bottom ball: below 2 - √3 nothing holds it (the
    // pyramid as a whole needs more, 0.434: see `TRIANGLE_LIMITS`)
    for (mu, holds) in [(0.02, false), (0.2, false), (1.0, true), (2.0, true)] {
        let what = format!("six-ball pyramid, friction {mu}");
        let (mut world, balls) = six(0.1, mu);
        let stood = stands(&mut world, &balls, Vec3::Y, 1.0 / 60.0, &what);
        assert_eq!(stood, holds, "{what}: stood {stood}");
    }
}

/// A pyramid of equal balls of radius `r` in a plane on a floor facing `up`: `rows` rows, the
/// lowest touching in a line, each ball above in the hollow of two below; friction `mu`
/// everywhere, restitution 0.
fn triangle(r: Real, up: Vec3, rows: usize, mu: Real) -> (World, Vec<Entity>) {
    let mut world = World::new();
    world.spawn((
        Plane::new(Vec3::ZERO, up).unwrap(),
        toibox::sim::Friction(mu),
        toibox::sim::Restitution(0.0),
    ));
    let across = up.any_orthonormal_vector();
    let rise = 2.0 * r * 60f64.to_radians().sin();
    let mut balls = Vec::new();
    for row in 0..rows {
        for k in 0..rows - row {
            let x = (2 * k + row) as Real * r;
            let at = across * x + up * (r + row as Real * rise);
            let ball = BallDef::new(at, r).friction(mu).restitution(0.0);
            balls.push(ball.spawn(&mut world));
        }
    }
    (world, balls)
}

/// The least friction at which a pyramid in a plane of 3, 4, 6, 7 and 8 rows (6, 10, 21, 28
/// and 36 balls) can stand: the least `μ` for which contact forces within every cone balance
/// the weights and turn no ball, a linear programme on the forces solved outside this project
/// (it gives `2 - √3` for two rows, the three-ball stack). Each outer bottom ball is the
/// stack's bottom ball, but the balls above it share their load unevenly, and the bottom row
/// needs more.
const TRIANGLE_LIMITS: [(usize, Real); 5] = [
    (3, 0.43399),
    (4, 0.47296),
    (6, 0.51271),
    (7, 0.52310),
    (8, 0.53064),
];

#[test]
fn pyramids_in_a_plane_stand_exactly_when_friction_can_hold_them() {
    // Within 0.02 of each limit on both sides (the six-ball pyramid used to fall at friction
    // 0.5 from rounding each step doubled, the 21-ball one to fall at 1 and stand at 0.5, and
    // the 36-ball one, over the 32 balls a rough island then had at most, to stand at 0.2),
    // for radii 0.02 to 1, floors facing three ways and steps of 1/120 to 1/30
    let cases = [
        (0.1, Vec3::Y, 1.0 / 60.0),
        (0.02, Vec3::X, 1.0 / 120.0),
        (1.0, Vec3::new(0.0, 0.6, -0.8), 1.0 / 30.0),
    ];
    for (rows, limit) in TRIANGLE_LIMITS {
        let cases = if rows >= 6 { &cases[..1] } else { &cases[..] };
        for &(r, up, dt) in cases {
            for (mu, holds) in [(limit - 0.02, false), (limit + 0.02, true), (1.0, true)] {
                let what = format!("{rows} rows, r {r}, up {up}, dt {dt}, friction {mu}");
                let (mut world, balls) = triangle(r, up, rows, mu);
                let stood = stands(&mut world, &balls, up, dt, &what);
                assert_eq!(stood, holds, "{what}: stood {stood}");
            }
        }
    }
}

/// A square pyramid of `layers` layers of balls of radius `r` on a floor, each ball in the
/// hollow of four below; friction `mu` everywhere, restitution 0.
fn square_pyramid(r: Real, layers: usize, mu: Real) -> (World, Vec<Entity>) {
    let mut world = World::new();
    world.spawn((
        Plane::new(Vec3::ZERO, Vec3::Y).unwrap(),
        toibox::sim::Friction(mu),
        toibox::sim::Restitution(0.0),
    ));
    let rise = 2.0 * r / 2.0_f64.sqrt();
    let mut balls = Vec::new();
    for layer in 0..layers {
        let n = layers - layer;
        for i in 0..n {
            for k in 0..n {
                let at = Vec3::new(
                    (2 * i + layer) as Real * r,
                    r + layer as Real * rise,
                    (2 * k + layer) as Real * r,
                );
                let ball = BallDef::new(at, r).friction(mu).restitution(0.0);
                balls.push(ball.spawn(&mut world));
            }
        }
    }
    (world, balls)
}

#[test]
fn square_pyramids_stand_on_rough_balls_and_fall_on_smooth_ones() {
    // Pyramids of 14 and 30 balls, each in the hollow of four below: at friction 1 they stand,
    // still to 1e-9 of the radius and asleep, every ball reporting no velocity (corner balls
    // left rolling at 1e-16 by a solve's rounding used to stay awake for ever); at 0.02 they
    // fall (a corner ball under one at 45° needs tan 22.5° = 0.41 where nothing else holds it)
    for layers in [3, 4] {
        for (mu, holds) in [(0.02, false), (1.0, true)] {
            let what = format!("square pyramid of {layers} layers, friction {mu}");
            let (mut world, balls) = square_pyramid(0.1, layers, mu);
            let stood = stands(&mut world, &balls, Vec3::Y, 1.0 / 60.0, &what);
            assert_eq!(stood, holds, "{what}: stood {stood}");
        }
    }
}

/// The least friction at which a square pyramid of three layers (14 balls) can stand, from
/// the linear programme on its forces (see [`TRIANGLE_LIMITS`]).
const SQUARE_LIMIT: Real = 0.523;

#[test]
fn a_square_pyramid_of_fourteen_stands_exactly_when_friction_can_hold_it() {
    // It used to fall at 0.56, where it can stand: rest first's exact finish stalled at speeds
    // of 1e-9, because an impulse that a Newton step took past its cone's edge stayed there
    // and the next step could not balance it. Radii 0.05 to 0.5, steps 1/120 to 1/30: it
    // stands at 0.54 and 0.56 (still to 1e-9 of the radius, asleep, every residual within the
    // tolerance), and falls at 0.51, its energy never rising (its collapse meets crowds, whose
    // looser tolerance the standing check would refuse)
    for (r, dt) in [(0.1, 1.0 / 60.0), (0.05, 1.0 / 120.0), (0.5, 1.0 / 30.0)] {
        for mu in [SQUARE_LIMIT + 0.017, SQUARE_LIMIT + 0.037] {
            let what = format!("r {r}, dt {dt}, friction {mu}");
            let (mut world, balls) = square_pyramid(r, 3, mu);
            assert!(
                stands(&mut world, &balls, Vec3::Y, dt, &what),
                "{what}: fell"
            );
        }
        let what = format!("r {r}, dt {dt}, friction {}", SQUARE_LIMIT - 0.013);
        let (mut world, balls) = square_pyramid(r, 3, SQUARE_LIMIT - 0.013);
        let fell = collapse(&mut world, &balls, (dt, 5.0), 1e-12, &what);
        assert!(fell > r, "{what}: the top ball came down by {fell} only");
    }
}

/// Step a pile on a floor facing +y (gravity 9.81 against it) for `seconds` in steps of `dt`,
/// checking that its energy never rises by more than `rise` of its scale from one step to the
/// next; return how far its last ball (the top) came down.
fn collapse(
    world: &mut World,
    balls: &[Entity],
    (dt, seconds): (Real, Real),
    rise: Real,
    what: &str,
) -> Real {
    let gravity = Vec3::Y * -9.81;
    let mut stepper = Stepper::new(StepConfig {
        gravity,
        ..StepConfig::default()
    });
    let top = balls[balls.len() - 1];
    let high = position(world, top).y;
    let (mut before, _) = energy(world, gravity);
    for step in 0..(seconds / dt).round() as usize {
        stepper.step(world, dt).unwrap();
        let (after, scale) = energy(world, gravity);
        assert!(
            after <= before + rise * scale,
            "{what}, step {step}: energy rose from {before} to {after}"
        );
        before = after;
    }
    high - position(world, top).y
}

#[test]
fn collapsing_piles_never_gain_energy_at_long_steps() {
    // A pile that friction cannot hold, at steps of 1/4 to 2. The resting clusters of a step's
    // start take a whole step of gravity at once, and a pile that came apart within the step
    // kept that push: the three-ball stack at dt 2 ended with four times its energy. A step
    // goes in halves where a pushing contact would turn by a radian or open by its radii on
    // its path; then energy never rises, and the pile falls as at short steps
    let r = 0.1;
    for rows in [2, 3] {
        for mu in [0.0, 0.1] {
            for dt in [0.25, 0.5, 1.0, 2.0] {
                let what = format!("{rows} rows, friction {mu}, dt {dt}");
                let (mut world, balls) = triangle(r, Vec3::Y, rows, mu);
                let fell = collapse(&mut world, &balls, (dt, 4.0), 1e-9, &what);
                assert!(fell > r, "{what}: the top ball came down by {fell} only");
            }
        }
    }
}

/// A pile built with a coefficient of friction.
type Build = fn(Real) -> (World, Vec<Entity>);

/// Where each ball of `balls` (of radius `r`) ended, if one rests on a slope: none does when
/// each lies on the floor facing +y, or exactly on top of another (its centre `2r` straight
/// above that one's, a balance friction does not enter).
fn on_a_slope(world: &World, balls: &[Entity], r: Real) -> Option<Vec3> {
    let at: Vec<Vec3> = balls.iter().map(|&b| position(world, b)).collect();
    at.iter().copied().find(|&p| {
        let on_floor = (p.y - r).abs() <= 1e-9 * r;
        let on_top = at
            .iter()
            .any(|&q| (p - q - Vec3::Y * 2.0 * r).length() <= 1e-9 * r);
        !on_floor && !on_top
    })
}

#[test]
fn piles_friction_cannot_hold_come_down_at_any_step_length() {
    // Below 2 - √3 everywhere, no ball can rest on others except straight on top of one: the
    // supports of any other roll or slide apart under it, as the three-ball stack's do, and
    // steeper contacts need more friction. At a step of 1/4, 5 of these 48 cases stopped part
    // way and slept (3 rows and the six at 0.2 and 0.25, the pyramid of four at 0.2): balls
    // still for the moment slept under a ball still coming down, then held it like a floor.
    // A ball that began the step near nothing, or that its cluster's solve left unbalanced,
    // now keeps awake the balls below it that it touched
    let r = 0.1;
    let builds: [(&str, Build); 4] = [
        ("3 rows", |mu| triangle(0.1, Vec3::Y, 3, mu)),
        ("six", |mu| six(0.1, mu)),
        ("pyramid of four", |mu| pyramid(0.1, (mu, mu))),
        ("square of 3 layers", |mu| square_pyramid(0.1, 3, mu)),
    ];
    for (what, build) in builds {
        for mu in [0.1, 0.2, 0.25] {
            for dt in [1.0 / 60.0, 0.25, 0.5, 1.0_f64] {
                let (mut world, balls) = build(mu);
                let mut stepper = Stepper::new(StepConfig {
                    gravity: Vec3::Y * -9.81,
                    ..StepConfig::default()
                });
                for _ in 0..((6.0 / dt).round() as usize).max(40) {
                    stepper.step(&mut world, dt).unwrap();
                }
                let slope = on_a_slope(&world, &balls, r);
                assert!(
                    slope.is_none(),
                    "{what}, friction {mu}, dt {dt}: a ball stopped on a slope at {slope:?}"
                );
            }
        }
    }
}

#[test]
fn piles_of_45_30_and_55_balls_fall_apart_below_their_limits_and_stand_above() {
    // A pyramid in a plane of 9 rows (45 balls, limit 0.53634 from the linear programme) and
    // square pyramids of 4 and 5 layers (30 balls, 0.59441, and 55, 0.60720, from a
    // second-order cone programme, all solved outside this project). Below, the Coulomb sweeps of these hyperstatic piles
    // do not settle, and their clusters used to be left to the event loop's resting contacts,
    // which held them up (9 rows stood at 0.516, 4 layers at 0.57); they are now taken with
    // the convex relaxation of Coulomb's law, exactly, where friction provably cannot hold
    // them. Each step's residual stays within the stated tolerance and energy never rises
    // (see `watch`); the top ball comes down within half a second
    let dt = 1.0 / 60.0;
    for (what, limit, build) in [
        (
            "9 rows",
            0.53634,
            (|mu| triangle(0.1, Vec3::Y, 9, mu)) as fn(Real) -> _,
        ),
        ("square of 4 layers", 0.59441, |mu| {
            square_pyramid(0.1, 4, mu)
        }),
        // It stood at 0.58 until its relaxed solve's unknowns were ordered for a narrow
        // envelope: the factor was over `MAX_WORK` at 3.5e7 to 4.6e7 multiply-adds
        ("square of 5 layers", 0.60720, |mu| {
            square_pyramid(0.1, 5, mu)
        }),
    ] {
        let (mut world, balls) = build(limit - 0.02);
        let what_falls = format!("{what} at {}", limit - 0.02);
        let (stood, relaxed) = watch(&mut world, &balls, (Vec3::Y, dt, 0.5), &what_falls);
        assert!(!stood, "{what_falls}: it stood");
        assert!(relaxed > 0, "{what_falls}: no relaxed solve");
        let (mut world, balls) = build(limit + 0.02);
        let what_stands = format!("{what} at {}", limit + 0.02);
        assert!(
            stands(&mut world, &balls, Vec3::Y, dt, &what_stands),
            "{what_stands}: it fell"
        );
    }
}
