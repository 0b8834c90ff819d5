//! Crowds: an inelastic impact among touching balls is one impact of them all. A crowd at
//! restitution 0 ends moving as one, the kinetic energy relative to the centre of mass never
//! rises, and momentum is kept; elastic chains still pass impacts on pair by pair (Newton's
//! cradle, in `physics`).

use crate::common::{no_gravity, position, random_vector, v3, velocity};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use toibox::hecs::{Entity, World};
use toibox::{
    BallDef, ConvexPolygon, Cylinder, InfiniteCylinder, Plane, Real, Stepper, ToiMode, Vec3,
};

/// Kinetic energy relative to the centre of mass, and the momentum, of `balls`.
fn relative_energy(world: &World, balls: &[(Entity, Real)]) -> (Real, Vec3) {
    let mass: Real = balls.iter().map(|b| b.1).sum();
    let momentum = balls
        .iter()
        .fold(Vec3::ZERO, |p, &(e, m)| p + velocity(world, e) * m);
    let centre = momentum / mass;
    let energy = balls
        .iter()
        .map(|&(e, m)| 0.5 * m * (velocity(world, e) - centre).length_squared())
        .sum();
    (energy, momentum)
}

/// Balls of radius 0.1 at `(x, speed, mass)` on the x axis, restitution 0.
fn row(items: &[(Real, Real, Real)]) -> (World, Vec<(Entity, Real)>) {
    let mut world = World::new();
    let balls = items
        .iter()
        .map(|&(x, speed, mass)| {
            let e = BallDef::new(v3(x, 0.0, 0.0), 0.1)
                .velocity(v3(speed, 0.0, 0.0))
                .mass(mass)
                .restitution(0.0)
                .spawn(&mut world);
            (e, mass)
        })
        .collect();
    (world, balls)
}

#[test]
fn a_light_ball_squeezed_between_heavy_ones_at_restitution_0_ends_the_squeeze_at_rest() {
    // Mass 30 at -0.5 moving at +100, 0.03 at rest at 0, 30 at 0.5 moving at -100: no
    // momentum, so one perfectly inelastic impact of all three leaves them at rest. Pair by
    // pair, the light ball bounced between them ever faster and the TC rule sent them back at
    // 93.9 (88% of the energy). Other mass ratios and steps alike
    for (heavy, light, dt) in [
        (30.0, 0.03, 1.0 / 60.0),
        (1.0, 1.0, 0.01),
        (1e3, 1e-3, 0.1),
        (1.0, 1e3, 1.0),
    ] {
        let (mut world, balls) = row(&[
            (-0.5, 100.0, heavy),
            (0.0, 0.0, light),
            (0.5, -100.0, heavy),
        ]);
        let (start, _) = relative_energy(&world, &balls);
        let mut stepper = Stepper::new(no_gravity());
        for _ in 0..((1.0 / dt) as usize).max(2) {
            let report = stepper.step(&mut world, dt).unwrap();
            assert!(report.stats.max_penetration <= 1e-9, "{:?}", report.stats);
        }
        let (end, momentum) = relative_energy(&world, &balls);
        let what = format!("masses {heavy}/{light}, dt {dt}");
        assert!(end <= 1e-3 * start, "{what}: {end} of {start}");
        assert!(end <= 1e-12 * start, "{what}: {end} of {start}");
        assert!(
            momentum.length() <= 1e-12 * heavy * 100.0,
            "{what}: {momentum}"
        );
        for &(e, _) in &balls {
            assert!(velocity(&world, e).length() <= 1e-9 * 100.0, "{what}");
            assert!(position(&world, e).x.abs() <= 0.2 + 1e-6, "{what}");
        }
    }
}

#[test]
fn a_crowd_at_restitution_0_ends_moving_as_one_and_loses_no_momentum() {
    // Five balls of masses 1 to 5 closing on each other along x with momentum left over: all
    // end at the centre of mass's velocity, `Σ m v / Σ m`
    let items = [
        (-2.0, 9.0, 1.0),
        (-1.0, 3.0, 5.0),
        (0.0, -1.0, 2.0),
        (1.0, -4.0, 4.0),
        (2.0, -2.0, 3.0),
    ];
    let (mut world, balls) = row(&items);
    let mass: Real = items.iter().map(|i| i.2).sum();
    let centre = items.iter().map(|i| i.1 * i.2).sum::<Real>() / mass;
    let (start, momentum) = relative_energy(&world, &balls);
    let mut stepper = Stepper::new(no_gravity());
    let mut last = start;
    for _ in 0..200 {
        stepper.step(&mut world, 0.01).unwrap();
        let (now, p) = relative_energy(&world, &balls);
        assert!(now <= last * (1.0 + 1e-12) + 1e-15, "{now} after {last}");
        assert!(
            (p - momentum).length() <= 1e-12 * mass * 9.0,
            "{p} against {momentum}"
        );
        last = now;
    }
    for &(e, _) in &balls {
        let v = velocity(&world, e);
        assert!((v.x - centre).abs() <= 1e-9 * 9.0, "{v} against {centre}");
    }
    assert!(last <= 1e-12 * start);
}

#[test]
fn a_ball_squeezed_against_a_wall_by_a_heavy_one_stops_with_it() {
    // A wall at x = 0 (restitution 0), a light ball at rest against it, a heavy one coming at
    // 10: one impact of the three stops both balls against the wall
    let mut world = World::new();
    world.spawn((
        Plane::new(Vec3::ZERO, Vec3::X).unwrap(),
        toibox::sim::Restitution(0.0),
    ));
    let light = BallDef::new(v3(0.1, 0.0, 0.0), 0.1)
        .mass(0.01)
        .restitution(0.0)
        .spawn(&mut world);
    let heavy = BallDef::new(v3(1.0, 0.0, 0.0), 0.1)
        .velocity(v3(-10.0, 0.0, 0.0))
        .mass(10.0)
        .restitution(0.0)
        .spawn(&mut world);
    let mut stepper = Stepper::new(no_gravity());
    for _ in 0..60 {
        stepper.step(&mut world, 1.0 / 60.0).unwrap();
    }
    for (ball, x) in [(light, 0.1), (heavy, 0.3)] {
        assert!(
            velocity(&world, ball).length() <= 1e-9,
            "{}",
            velocity(&world, ball)
        );
        assert!((position(&world, ball).x - x).abs() <= 1e-9);
    }
}

#[test]
fn an_elastic_ball_pressing_a_light_one_into_a_dead_wall_stops_there() {
    // A light ball at rest against a wall of restitution 0, a heavy one coming at 10 along the
    // wall's normal, both elastic. Pair by pair the light ball bounces off the heavy one and
    // dies on the wall, again and again at one instant: each round keeps (M - m) / (M + m) of
    // the heavy ball's speed, so the limit is both at rest. Past 64 rounds the light ball is in
    // a collapse and takes that limit with all it touches, the elastic contact too; the TC rule
    // made the wall elastic there and sent the heavy ball back. Walls of each kind (a plane, a
    // cylinder's side, a polygon's face), facing other ways, masses 10 to 1e6 times the light
    // one's
    let mut rng = Pcg64::seed_from_u64(0xDEAD_0A11);
    for kind in 0..3 {
        for ratio in [10.0, 1e3, 1e6] {
            let n = random_vector(&mut rng, 1.0).normalize();
            let foot = random_vector(&mut rng, 1.0);
            let mut world = World::new();
            let dead = toibox::sim::Restitution(0.0);
            let across = n.any_orthonormal_vector();
            // Each wall's surface passes through `foot` with normal `n` there
            match kind {
                0 => {
                    world.spawn((Plane::new(foot, n).unwrap(), dead));
                }
                1 => {
                    let axis = foot - n * 2.0;
                    let side = InfiniteCylinder::new(axis, across, 2.0).unwrap();
                    world.spawn((Cylinder::from(side), dead));
                }
                _ => {
                    let other = n.cross(across);
                    let corners = vec![foot + across, foot + other, foot - across, foot - other];
                    let face = ConvexPolygon::new(corners).unwrap();
                    // Its normal is either side: the ball is on the side of `n` either way
                    world.spawn((face, dead));
                }
            }
            let light = BallDef::new(foot + n * 0.1, 0.1)
                .mass(1.0)
                .spawn(&mut world);
            let heavy = BallDef::new(foot + n * 0.6, 0.1)
                .velocity(n * -10.0)
                .mass(ratio)
                .spawn(&mut world);
            let what = format!("kind {kind}, ratio {ratio}, normal {n}");
            let mut stepper = Stepper::new(no_gravity());
            let mut last = 0.5 * ratio * 100.0;
            for step in 0..30 {
                let report = stepper.step(&mut world, 1.0 / 60.0).unwrap();
                let s = &report.stats;
                assert_eq!(s.events_cap_hits, 0, "{what}, step {step}");
                assert!(s.max_penetration <= 1e-9, "{what}, step {step}");
                let energy = s.kinetic_energy;
                assert!(energy <= last * (1.0 + 1e-12), "{what}: {last} -> {energy}");
                last = energy;
            }
            // At rest to the crowd's tolerance: 1e-9 of its fastest speed, the light ball's 20
            for (ball, d) in [(light, 0.1), (heavy, 0.3)] {
                let v = velocity(&world, ball);
                assert!(v.length() <= 1e-9 * 20.0, "{what}: a ball moves at {v}");
                let gap = (position(&world, ball) - foot).dot(n);
                assert!((gap - d).abs() <= 1e-9, "{what}: {gap} from the wall");
            }
        }
    }
}

#[test]
fn a_ball_driven_into_a_narrow_wedge_with_a_dead_wall_slides_along_its_edge() {
    // Two walls meeting at an angle θ below 45°, at least one dead (restitution 0), a ball
    // touching both driven into the edge at speed s while sliding along it at u. In the plane
    // across the edge, the dead wall takes the ball's motion across it and the other sends it
    // back into the dead one, keeping cos 2θ of its speed a round: infinitely many collisions at
    // one instant, and the limit is the slide along the edge alone. Past 64 collisions the
    // collapse's crowd takes that limit (the elastic wall too), and a ball the crowd leaves
    // slower than rounding is stopped: pair by pair it met the walls again at speeds down to
    // 1e-300, and the step ran into its budget. Edges along random axes, θ 5° to 40°, the
    // elastic wall either one or none, balls of restitution 1 and 0.7
    let mut rng = Pcg64::seed_from_u64(0x0_3ED6E);
    for trial in 0..24 {
        let edge = random_vector(&mut rng, 1.0).normalize();
        let p = edge.any_orthonormal_vector();
        let q = edge.cross(p);
        let theta = rng.random_range(5.0_f64..40.0).to_radians();
        // Wall a holds `edge` and `p`, facing `q`; wall b is turned from it by θ about the edge
        let (n_a, n_b) = (q, p * theta.sin() - q * theta.cos());
        let r = 0.1;
        let centre =
            (p * (theta / 2.0).cos() + q * (theta / 2.0).sin()) * (r / (theta / 2.0).sin());
        let phi = theta * rng.random_range(0.2..0.8);
        let s = rng.random_range(1.0..20.0);
        let u = rng.random_range(-3.0..3.0);
        let dead = [trial % 3 != 1, trial % 3 != 2];
        let restitution = if trial % 2 == 0 { 1.0 } else { 0.7 };
        let dt = if trial % 4 < 2 { 1.0 / 60.0 } else { 0.1 };
        let mut world = World::new();
        for (n, dead) in [(n_a, dead[0]), (n_b, dead[1])] {
            let e = if dead { 0.0 } else { 1.0 };
            world.spawn((
                Plane::new(Vec3::ZERO, n).unwrap(),
                toibox::sim::Restitution(e),
            ));
        }
        let ball = BallDef::new(centre, r)
            .velocity(edge * u - (p * phi.cos() + q * phi.sin()) * s)
            .restitution(restitution)
            .spawn(&mut world);
        let what = format!("trial {trial}: θ {theta}, dead {dead:?}, s {s}, u {u}, dt {dt}");
        let mut stepper = Stepper::new(no_gravity());
        for step in 0..5 {
            let report = stepper.step(&mut world, dt).unwrap();
            let stats = &report.stats;
            assert_eq!(stats.events_cap_hits, 0, "{what}, step {step}");
            assert!(stats.collisions <= 200, "{what}, step {step}: {stats:?}");
            assert!(stats.max_penetration <= 1e-9, "{what}, step {step}");
        }
        // To the crowd's tolerance, 1e-9 of its fastest speed
        let v = velocity(&world, ball);
        let tolerance = 1e-9 * (s + u.abs());
        assert!(
            (v - edge * u).length() <= tolerance,
            "{what}: {v} against {}",
            edge * u
        );
        let at = position(&world, ball);
        assert!((at.dot(n_a) - r).abs() <= 1e-9, "{what}: {at}");
        assert!((at.dot(n_b) - r).abs() <= 1e-9, "{what}: {at}");
        assert!((at.dot(edge) - u * 5.0 * dt).abs() <= 1e-6, "{what}: {at}");
    }
}

#[test]
fn a_collapse_met_by_a_sampled_search_ends_inelastic_too() {
    // The squeeze (30, 0.03, 30 closing at 100, no momentum) with NeHe's sliced
    // searches (the discrete test lets them pass at this speed), which meet pairs apart or
    // overlapping: no two impacts are
    // at one instant, so a collapse's crowd is what lies within the gap its pair was met at.
    // With the TC rule these collapses were elastic and the heavy balls went back at about
    // 94; now the squeeze ends at rest, at restitution 0 and at 0.3 (where the light ball
    // collides back and forth until the collapse's limit), and energy never rises. (With 8
    // slices, at 0.3, the light ball leaves the first impacts at 170 and that search misses
    // it passing through a heavy one: the heavy balls then meet at 0.3.)
    for mode in [
        ToiMode::Sliced { slices: 150 },
        ToiMode::SlicedBisect {
            slices: 150,
            tolerance: 1e-9,
        },
    ] {
        for restitution in [0.0, 0.3] {
            let what = format!("{mode:?}, restitution {restitution}");
            let (mut world, balls) =
                row(&[(-0.5, 100.0, 30.0), (0.0, 0.0, 0.03), (0.5, -100.0, 30.0)]);
            for &(b, _) in &balls {
                world.get::<&mut toibox::sim::Restitution>(b).unwrap().0 = restitution;
            }
            let (start, _) = relative_energy(&world, &balls);
            let mut stepper = Stepper::new(no_gravity());
            let mut last = start;
            for step in 0..60 {
                stepper.step_with(&mut world, 1.0 / 60.0, &mode).unwrap();
                let (now, _) = relative_energy(&world, &balls);
                assert!(
                    now <= last * (1.0 + 1e-12),
                    "{what}, step {step}: {last} -> {now}"
                );
                last = now;
            }
            assert!(last <= 1e-3 * start, "{what}: {last} of {start} left");
        }
    }
}

#[test]
fn random_inelastic_crowds_never_gain_relative_energy_nor_overlap() {
    // Balls of radii 0.05 to 0.15 and masses 0.01 to 100 in a cube of 1, thrown together at
    // up to 5, restitution 0, no gravity, walls of restitution 0: the relative energy of the
    // balls never rises (walls take momentum, so the energy is checked in all), nothing ends
    // inside anything
    for seed in 0..24 {
        let mut rng = Pcg64::seed_from_u64(seed + 77_000);
        let mut world = World::new();
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            for side in [-1.0, 1.0] {
                world.spawn((
                    Plane::new(axis * side, -axis * side).unwrap(),
                    toibox::sim::Restitution(0.0),
                ));
            }
        }
        let mut placed: Vec<(Vec3, Real)> = Vec::new();
        while placed.len() < 20 {
            let r = rng.random_range(0.05..0.15);
            let p = random_vector(&mut rng, 1.0 - r);
            if placed.iter().all(|&(q, s)| q.distance(p) > r + s) {
                placed.push((p, r));
            }
        }
        let balls: Vec<(Entity, Real)> = placed
            .iter()
            .map(|&(p, r)| {
                let m = 10.0_f64.powf(rng.random_range(-2.0..2.0));
                let v = -p.normalize() * rng.random_range(0.0..5.0);
                let e = BallDef::new(p, r)
                    .velocity(v)
                    .mass(m)
                    .restitution(0.0)
                    .spawn(&mut world);
                (e, m)
            })
            .collect();
        let energy = |world: &World| {
            balls
                .iter()
                .map(|&(e, m)| 0.5 * m * velocity(world, e).length_squared())
                .sum::<Real>()
        };
        let mut stepper = Stepper::new(no_gravity());
        let mut last = energy(&world);
        let scale = last;
        for step in 0..120 {
            let report = stepper.step(&mut world, 0.02).unwrap();
            let now = energy(&world);
            assert!(
                now <= last + 1e-12 * scale,
                "seed {seed}, step {step}: {last} -> {now}"
            );
            assert!(
                report.stats.max_penetration <= 1e-9,
                "seed {seed}: {:?}",
                report.stats
            );
            assert_eq!(report.stats.escaped, 0, "seed {seed}");
            last = now;
        }
    }
}

#[test]
fn balls_placed_overlapping_in_a_crowd_are_pushed_apart_not_passed_through() {
    // Three balls at restitution 0 on the x axis: the middle one overlaps the left by 0.05
    // (placed so by hand) and touches the right; the left one comes at 1. The overlapping pair
    // is met pair by pair (pushed apart), and nothing passes through anything
    let (mut world, balls) = row(&[(-0.15, 1.0, 1.0), (0.0, 0.0, 1.0), (0.2, 0.0, 1.0)]);
    let mut stepper = Stepper::new(no_gravity());
    for _ in 0..60 {
        stepper.step(&mut world, 1.0 / 60.0).unwrap();
    }
    let x: Vec<Real> = balls.iter().map(|&(e, _)| position(&world, e).x).collect();
    assert!(x[0] < x[1] && x[1] < x[2], "{x:?}");
    assert!(
        x[1] - x[0] >= 0.2 - 1e-9 && x[2] - x[1] >= 0.2 - 1e-9,
        "{x:?}"
    );
}

#[test]
fn the_squeeze_ends_at_rest_with_friction_under_gravity_on_a_floor_and_at_any_restitution() {
    // The squeeze (30, 0.03, 30 at -0.5, 0, 0.5 closing at 100): no momentum along
    // the line, so all end at rest, the kinetic energy relative to the centre of mass at most
    // 1e-3 of its start, whatever friction (0.5: one impact with Coulomb's cone and the
    // spins), gravity (in flight, or sliding and rolling on a floor of restitution 0) or
    // restitution (0.3 and 0.7: the light ball collides back and forth, ever faster, until it
    // takes the collapse's limit, one perfectly inelastic impact of all three). Pair by pair
    // with the TC rule the heavy balls left at 84 to 94. Nothing overlaps; energy never rises
    for floor in [false, true] {
        for (friction, restitution, gravity) in [
            (0.0, 0.0, Vec3::ZERO),
            (0.5, 0.0, Vec3::ZERO),
            (0.0, 0.3, Vec3::ZERO),
            (0.0, 0.0, v3(0.0, -9.81, 0.0)),
            (0.5, 0.0, v3(0.0, -9.81, 0.0)),
            (0.0, 0.7, v3(0.0, -9.81, 0.0)),
            (0.5, 0.3, v3(0.0, -9.81, 0.0)),
        ] {
            if floor && gravity == Vec3::ZERO {
                continue;
            }
            let what = format!(
                "friction {friction}, restitution {restitution}, gravity {gravity}, floor {floor}"
            );
            let mut world = World::new();
            if floor {
                world.spawn((
                    Plane::new(v3(0.0, -0.1, 0.0), Vec3::Y).unwrap(),
                    toibox::sim::Restitution(0.0),
                    toibox::sim::Friction(friction),
                ));
            }
            let balls: Vec<(Entity, Real)> =
                [(-0.5, 100.0, 30.0), (0.0, 0.0, 0.03), (0.5, -100.0, 30.0)]
                    .iter()
                    .map(|&(x, speed, mass)| {
                        let ball = BallDef::new(v3(x, 0.0, 0.0), 0.1)
                            .velocity(v3(speed, 0.0, 0.0))
                            .mass(mass)
                            .restitution(restitution)
                            .friction(friction)
                            .spawn(&mut world);
                        (ball, mass)
                    })
                    .collect();
            let along = |world: &World| {
                let (e, _) = relative_energy(world, &balls);
                // Along the line only: under gravity the centre of mass falls
                e - balls
                    .iter()
                    .map(|&(b, m)| 0.5 * m * velocity(world, b).y.powi(2))
                    .sum::<Real>()
            };
            let start = along(&world);
            let mut stepper = Stepper::new(toibox::StepConfig {
                gravity,
                ..no_gravity()
            });
            let (mut last, scale) = crate::common::energy(&world, gravity);
            for step in 0..60 {
                let report = stepper.step(&mut world, 1.0 / 60.0).unwrap();
                assert!(report.stats.max_penetration <= 1e-9, "{what}, step {step}");
                let (now, _) = crate::common::energy(&world, gravity);
                assert!(
                    now <= last + 1e-12 * scale,
                    "{what}, step {step}: {last} -> {now}"
                );
                last = now;
            }
            let end = along(&world);
            assert!(end <= 1e-3 * start, "{what}: {end} of {start} left");
            for &(b, _) in &balls {
                let v = velocity(&world, b);
                assert!(v.x.abs() <= 1e-3, "{what}: a ball moves at {v}");
            }
        }
    }
}

/// Step `world` under standard gravity for `steps` steps of 1/60, checking that no step gains
/// energy, overlaps, runs out of its budget, or takes more than `most` collisions; return the
/// most collisions a step took.
fn step_squeeze(world: &mut World, steps: usize, most: u64, what: &str) -> u64 {
    let gravity = v3(0.0, -9.81, 0.0);
    let mut stepper = Stepper::new(toibox::StepConfig::default());
    let (mut last, scale) = crate::common::energy(world, gravity);
    let mut busiest = 0;
    for step in 0..steps {
        let stats = stepper.step(world, 1.0 / 60.0).unwrap().stats;
        let (now, _) = crate::common::energy(world, gravity);
        assert!(
            now <= last + 1e-12 * scale,
            "{what}, step {step}: {last} -> {now}"
        );
        assert!(stats.max_penetration <= 1e-9, "{what}, step {step}");
        assert_eq!(stats.events_cap_hits, 0, "{what}, step {step}");
        assert!(
            stats.collisions <= most,
            "{what}, step {step}: {} collisions",
            stats.collisions
        );
        busiest = busiest.max(stats.collisions);
        last = now;
    }
    busiest
}

#[test]
fn a_squeeze_of_balls_lying_on_others_is_one_impact_and_ends_at_rest() {
    // A ball that gravity presses into what holds it up (a groove, or two balls under it)
    // goes straight with the rest of the step's gravity paid in advance. A squeeze among such
    // balls was met pair by pair, and past 64 collisions elastically (the TC rule): a heavy
    // ball driven along a groove into a light one lying against a dead wall came back at 94%
    // of its energy, and a heavy ball dropped on a light one on top of two others in a box ran
    // out the budget (1,400 contacts) or took 1,200 in one step. Taken with what each ball has
    // earned, it is one impact of all that touch. Each ball collides at most 64 times before
    // the limit, so no step takes more than 64 per ball.
    let dead = |world: &mut World, plane: Plane| {
        world.spawn((plane, toibox::sim::Restitution(0.0)));
    };
    for (light, heavy, speed, slope) in [
        (1e-3, 1.0, 3.0, 45.0_f64),
        (1e-2, 10.0, 1.0, 30.0),
        (0.03, 30.0, 5.0, 60.0),
        (1.0, 1.0, 2.0, 45.0),
    ] {
        for restitution in [0.0, 0.3] {
            let what = format!(
                "groove at {slope}°, {light} against the wall, {heavy} at {speed}, \
                 restitution {restitution}"
            );
            // A groove along z, its sides at `slope` to the level, a wall at z = -0.1
            let (sin, cos) = slope.to_radians().sin_cos();
            let mut world = World::new();
            dead(
                &mut world,
                Plane::new(Vec3::ZERO, v3(sin, cos, 0.0)).unwrap(),
            );
            dead(
                &mut world,
                Plane::new(Vec3::ZERO, v3(-sin, cos, 0.0)).unwrap(),
            );
            dead(&mut world, Plane::new(v3(0.0, 0.0, -0.1), Vec3::Z).unwrap());
            let y = 0.1 / cos;
            let spawn = |world: &mut World, z: Real, mass: Real, speed: Real| {
                BallDef::new(v3(0.0, y, z), 0.1)
                    .velocity(v3(0.0, 0.0, -speed))
                    .mass(mass)
                    .restitution(restitution)
                    .spawn(world)
            };
            let l = spawn(&mut world, 0.0, light, 0.0);
            let h = spawn(&mut world, 0.6, heavy, speed);
            step_squeeze(&mut world, 60, 2 * 64, &what);
            for (ball, z) in [(l, 0.0), (h, 0.2)] {
                let (p, v) = (position(&world, ball), velocity(&world, ball));
                assert!(v.length() <= 1e-9, "{what}: a ball at {p} moves at {v}");
                assert!((p.z - z).abs() <= 1e-9, "{what}: a ball at {p}");
            }
        }
    }
    // A light ball lying on two heavy ones in a box just their width, a heavy one dropped on it
    // a little off its centre
    for (light, heavy, speed, off) in [(1e-3, 1.0, 3.0, 0.0), (1e-2, 10.0, 1.0, 0.01)] {
        for restitution in [0.0, 0.3] {
            let what = format!(
                "{light} on two of {heavy}, {heavy} falling at {speed}, {off} off centre, \
                 restitution {restitution}"
            );
            let mut world = World::new();
            dead(&mut world, Plane::new(Vec3::ZERO, Vec3::Y).unwrap());
            dead(&mut world, Plane::new(v3(-0.2, 0.0, 0.0), Vec3::X).unwrap());
            dead(&mut world, Plane::new(v3(0.2, 0.0, 0.0), -Vec3::X).unwrap());
            let top = 0.1 + 0.2 * 60.0_f64.to_radians().sin();
            let mut balls = Vec::new();
            for (p, mass, speed) in [
                (v3(-0.1, 0.1, 0.0), heavy, 0.0),
                (v3(0.1, 0.1, 0.0), heavy, 0.0),
                (v3(0.0, top, 0.0), light, 0.0),
                (v3(off, top + 0.3, 0.0), heavy, speed),
            ] {
                let ball = BallDef::new(p, 0.1)
                    .velocity(v3(0.0, -speed, 0.0))
                    .mass(mass)
                    .restitution(restitution)
                    .spawn(&mut world);
                balls.push(ball);
            }
            step_squeeze(&mut world, 60, 4 * 64, &what);
            for &ball in &balls[..3] {
                let v = velocity(&world, ball);
                assert!(v.length() <= 1e-9, "{what}: a ball moves at {v}");
            }
        }
    }
}

#[test]
fn random_rough_crowds_under_gravity_never_gain_energy_nor_overlap() {
    // Ten balls of masses 0.01 to 100 and radii 0.05 to 0.15 thrown together at up to 20 in a
    // box of walls of restitution 0, under gravity, with friction 0.5 and restitution 0 or 0.5
    // everywhere: the energy (kinetic, spin and gravity's) never rises, nothing ends inside
    // anything or outside the box
    for seed in 0..16 {
        let mut rng = Pcg64::seed_from_u64(seed + 78_000);
        let restitution = if seed % 2 == 0 { 0.0 } else { 0.5 };
        let gravity = v3(0.0, -9.81, 0.0);
        let mut world = World::new();
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            for side in [-1.0, 1.0] {
                world.spawn((
                    Plane::new(axis * side * 0.5, -axis * side).unwrap(),
                    toibox::sim::Restitution(0.0),
                    toibox::sim::Friction(0.5),
                ));
            }
        }
        let mut placed: Vec<(Vec3, Real)> = Vec::new();
        while placed.len() < 10 {
            let r = rng.random_range(0.05..0.15);
            let p = random_vector(&mut rng, 0.5 - r);
            if placed.iter().all(|&(q, s)| q.distance(p) > r + s) {
                placed.push((p, r));
            }
        }
        for &(p, r) in &placed {
            BallDef::new(p, r)
                .velocity(-p.normalize() * rng.random_range(0.0..20.0))
                .mass(10.0_f64.powf(rng.random_range(-2.0..2.0)))
                .restitution(restitution)
                .friction(0.5)
                .spawn(&mut world);
        }
        let mut stepper = Stepper::new(toibox::StepConfig {
            gravity,
            ..no_gravity()
        });
        let (mut last, scale) = crate::common::energy(&world, gravity);
        for step in 0..120 {
            let report = stepper.step(&mut world, 1.0 / 60.0).unwrap();
            let (now, _) = crate::common::energy(&world, gravity);
            assert!(
                now <= last + 1e-12 * scale,
                "seed {seed}, step {step}: {last} -> {now}"
            );
            assert!(
                report.stats.max_penetration <= 1e-9,
                "seed {seed}, step {step}"
            );
            assert_eq!(report.stats.escaped, 0, "seed {seed}, step {step}");
            last = now;
        }
    }
}
