//! Friction at impacts: Coulomb friction with sticking and sliding (Walton's model with a
//! tangential restitution of zero), against the impulses worked out by hand.
//!
//! Covered: an oblique impact on a plane in the sliding regime, under random tilts, speeds and
//! coefficients (velocity and spin to 1e-9); the sticking regime, where the contact point
//! stops slipping (a spinning ball dropped on a rough floor leaps sideways); two balls in the
//! sliding regime; the combine rule (geometric mean); a ball that gains spin gets the
//! components; energy (kinetic, rotational and potential) never rises in random rough worlds,
//! nor in harsher ones (mixed sizes and masses, a log and a slope, any gravity and step);
//! friction 0 steps bit for bit as without the components. On a surface (in closed form on a
//! plane, see `surface`; step by step elsewhere): a ball launched along a rough floor slides,
//! slowed by `μ g`, and rolls at 5/7 of its speed; with spin it ends at `(5 v0 - 2 r ω)/7`
//! (draw, follow and natural roll); rolling resistance slows a rolling ball by `c g dt` a step
//! until it stops and sleeps.

use crate::common::{energy, position, random_vector, spin_of, v3, velocity};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use toibox::hecs::{Entity, World};
use toibox::scene::random_block;
use toibox::sim::{Friction, Mass, Restitution, combine_friction};
use toibox::{
    AngularVelocity, BallDef, BallField, CappedCylinder, ConvexPolygon, Cylinder, Orientation,
    Plane, Real, Sleep, StepConfig, StepError, Stepper, Vec3,
};

/// Relative tolerance of the hand-worked outcomes.
const WORKED: Real = 1e-9;

pub(crate) fn stepper(gravity: Vec3) -> Stepper {
    Stepper::new(StepConfig {
        gravity,
        ..StepConfig::default()
    })
}

fn close(actual: Vec3, expected: Vec3, what: &str) {
    let scale = expected.length().max(1.0);
    assert!(
        (actual - expected).length() <= WORKED * scale,
        "{what}: {actual} against {expected}"
    );
}

/// A unit vector perpendicular to `n`.
fn across(n: Vec3, rng: &mut Pcg64) -> Vec3 {
    let any = random_vector(rng, 1.0);
    (any - n * any.dot(n)).normalize()
}

#[test]
fn an_oblique_impact_on_a_plane_slides_as_worked_out() {
    // A ball of radius R and mass m meets a plane with normal n at approach speed a and
    // tangential speed s along t, without spin. J_n = (1 + e) m a. Sticking would need
    // 2/7 m s; Coulomb allows mu J_n, smaller here, so it slides: v' = v + J_n/m n - mu J_n/m t
    // and w' = 5 mu J_n / (2 m R) (n x t)
    let mut rng = Pcg64::seed_from_u64(3);
    for case in 0..50 {
        let n = random_vector(&mut rng, 1.0).normalize();
        let t = across(n, &mut rng);
        let (radius, e) = (rng.random_range(0.1..2.0), rng.random_range(0.0..1.0));
        let (approach, slide) = (rng.random_range(0.5..5.0), rng.random_range(0.5..5.0));
        // Sliding: mu (1 + e) a < 2/7 s
        let mu = rng.random_range(0.05..0.95) * 2.0 / 7.0 * slide / ((1.0 + e) * approach);
        let mut world = World::new();
        world.spawn((Plane::new(Vec3::ZERO, n).unwrap(), Friction(mu)));
        let v = t * slide - n * approach;
        // The contact comes half way through a step of 1
        let start = n * (radius + 0.5 * approach) - t * (0.5 * slide);
        let ball = BallDef::new(start, radius)
            .velocity(v)
            .restitution(e)
            .friction(mu)
            .spawn(&mut world);
        let m = world.get::<&Mass>(ball).unwrap().0;
        let mut sim = stepper(Vec3::ZERO);
        let report = sim.step(&mut world, 1.0).unwrap();
        assert_eq!(report.events.len(), 1, "case {case}");
        let j_n = (1.0 + e) * m * approach;
        let what = format!("case {case}");
        assert!(
            (report.events[0].impulse - j_n).abs() <= WORKED * j_n,
            "{what}: impulse"
        );
        let v1 = v + n * (j_n / m) - t * (mu * j_n / m);
        close(velocity(&world, ball), v1, &what);
        let w1 = n.cross(t) * (2.5 * mu * j_n / (m * radius));
        close(spin_of(&world, ball), w1, &what);
        // Half a step at v1 after the contact
        close(position(&world, ball), n * radius + v1 * 0.5, &what);
    }
}

#[test]
fn a_sticking_impact_stops_the_slip_and_a_spinning_ball_leaps_sideways() {
    // With a large mu the contact point stops slipping: the tangential impulse is -2/7 m u
    // for a slip u, so v_t' = v_t - 2/7 u and w' = w + 5/(7 R) (n x u). A ball spinning about
    // z and dropped on a rough floor (u = w R x at the bottom) moves off along -x at 2/7 w R
    let radius = 0.4;
    for (v, w) in [
        (v3(0.0, -2.0, 0.0), v3(0.0, 0.0, 10.0)),
        (v3(1.5, -1.0, 0.5), v3(3.0, -2.0, 1.0)),
        (v3(-0.5, -3.0, 0.0), v3(0.0, 4.0, -6.0)),
    ] {
        let mut world = World::new();
        world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(), Friction(10.0)));
        let ball = BallDef::new(v3(0.0, radius - 0.5 * v.y, 0.0), radius)
            .velocity(v)
            .spin(w)
            .restitution(0.5)
            .friction(10.0)
            .spawn(&mut world);
        stepper(Vec3::ZERO).step(&mut world, 1.0).unwrap();
        let n = Vec3::Y;
        let contact = -n * radius;
        let slip = v + w.cross(contact);
        let u = slip - n * slip.dot(n);
        let v1 = v3(v.x, -0.5 * v.y, v.z) - u * (2.0 / 7.0);
        let w1 = w + n.cross(u) * (5.0 / (7.0 * radius));
        let what = format!("v {v}, w {w}");
        close(velocity(&world, ball), v1, &what);
        close(spin_of(&world, ball), w1, &what);
        // The contact point no longer slips
        let after = v1 + w1.cross(contact);
        assert!(
            (after - n * after.dot(n)).length() < 1e-12,
            "{what}: {after}"
        );
        if v.x == 0.0 {
            close(v1, v3(-2.0 / 7.0 * w.z * radius, 1.0, 0.0), "the leap");
        }
    }
}

#[test]
fn two_balls_slide_on_each_other_as_worked_out() {
    // Equal balls, b at rest, a coming down on it along -y with a sideways speed s along x:
    // J_n = (1 + e) m a / 2; sticking would need m s / 7, mu J_n is smaller. Friction pushes
    // the top ball's underside back and the bottom ball's top forward, so both turn the same
    // way: w = 5 mu J_n / (2 m R) (n x x) on each
    let (radius, e, a, s) = (0.5, 0.8, 2.0, 3.0);
    let mu = 0.5 * (s / 7.0) / ((1.0 + e) * a / 2.0);
    let mut world = World::new();
    let top = BallDef::new(v3(0.0, 2.0 * radius + 0.5 * a, 0.0), radius)
        .velocity(v3(s, -a, 0.0))
        .restitution(e)
        .friction(mu)
        .spawn(&mut world);
    let bottom = BallDef::new(v3(0.5 * s, 0.0, 0.0), radius)
        .restitution(e)
        .friction(mu)
        .spawn(&mut world);
    let m = world.get::<&Mass>(top).unwrap().0;
    stepper(Vec3::ZERO).step(&mut world, 1.0).unwrap();
    let j_n = (1.0 + e) * m * a / 2.0;
    let j_t = mu * j_n;
    close(
        velocity(&world, top),
        v3(s - j_t / m, -a + j_n / m, 0.0),
        "top",
    );
    close(
        velocity(&world, bottom),
        v3(j_t / m, -j_n / m, 0.0),
        "bottom",
    );
    let w = Vec3::Y.cross(Vec3::X) * (2.5 * j_t / (m * radius));
    close(spin_of(&world, top), w, "top spin");
    close(spin_of(&world, bottom), w, "bottom spin");
    // A ball set spinning got its orientation too
    assert!(world.get::<&Orientation>(bottom).is_ok());
}

#[test]
fn a_pair_rubs_with_the_geometric_mean() {
    assert_eq!(combine_friction(0.3, 0.3), 0.3);
    assert_eq!(combine_friction(0.0, 0.8), 0.0);
    assert!((combine_friction(0.1, 0.4) - 0.2).abs() < 1e-15);
}

/// Step `world` by `dt` under `gravity`, checking that its energy (kinetic, rotational and
/// potential) did not rise beyond rounding and that nothing ended overlapping; return the
/// number of contacts met. `what` names the step in a failure.
pub(crate) fn step_losing_energy(
    stepper: &mut Stepper,
    world: &mut World,
    gravity: Vec3,
    dt: Real,
    what: &str,
) -> usize {
    let (before, scale) = energy(world, gravity);
    let report = stepper.step(world, dt).unwrap();
    let (after, _) = energy(world, gravity);
    assert!(
        after <= before + 1e-12 * scale,
        "{what}: energy rose from {before} to {after}"
    );
    assert!(
        report.stats.max_penetration <= 1e-9,
        "{what}: {:?}",
        report.stats
    );
    report.events.len()
}

/// A closed box of half-size 1 whose walls have friction `wall`.
fn rough_box(world: &mut World, wall: Real) {
    for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
        for side in [-1.0, 1.0] {
            let plane = Plane::new(axis * side, -axis * side).unwrap();
            world.spawn((plane, Friction(wall)));
        }
    }
}

#[test]
fn energy_never_rises_in_random_rough_worlds() {
    // Without gravity, with gravity down, and with gravity along a random direction
    for seed in 0..48 {
        let mut rng = Pcg64::seed_from_u64(seed);
        let tilted = random_vector(&mut rng, 1.0);
        let gravity = match seed % 3 {
            0 => Vec3::ZERO,
            1 => v3(0.0, -9.81, 0.0),
            _ => tilted.normalize() * 9.81,
        };
        let mut world = World::new();
        rough_box(&mut world, rng.random_range(0.0..1.5));
        let block = random_block(Vec3::splat(-1.0), Vec3::splat(1.0), 40, 0.08, 4.0, seed);
        for ball in block.unwrap() {
            let spin = random_vector(&mut rng, 20.0);
            ball.friction(rng.random_range(0.0..1.5))
                .restitution(rng.random_range(0.0..1.0))
                .spin(spin)
                .spawn(&mut world);
        }
        let mut stepper = stepper(gravity);
        let mut rubbed = false;
        for step in 0..150 {
            let what = format!("seed {seed}, step {step}");
            rubbed |= step_losing_energy(&mut stepper, &mut world, gravity, 1.0 / 60.0, &what) > 0;
        }
        assert!(rubbed, "seed {seed}: nothing met");
    }
}

/// A harsher random world: 30 balls of radii 0.03 to 0.12 and masses 0.1 to 10, at speeds up
/// to 6 with spins up to 20 rad/s, rough (0 to 1.5) and bouncy (0 to 1), half of them with
/// rolling resistance, in the rough box with a log and a slope across the lower half, under a
/// gravity of 1 to 20 along a random direction (along -z for a third), stepped with steps of
/// 1/60, 1/30, 1/240, 0.05 or 0.2 for 2.5 time units.
fn harsh_world(seed: u64) -> (World, Vec3, Real) {
    let mut rng = Pcg64::seed_from_u64(seed + 7_000);
    let dir = random_vector(&mut rng, 1.0).normalize();
    let gravity = if seed % 3 == 0 {
        v3(0.0, 0.0, -9.81)
    } else {
        dir * rng.random_range(1.0..20.0)
    };
    let dt = [1.0 / 60.0, 1.0 / 30.0, 1.0 / 240.0, 0.05, 0.2][(seed % 5) as usize];
    let mut world = World::new();
    rough_box(&mut world, rng.random_range(0.0..1.5));
    let log = CappedCylinder::new(v3(-0.9, -0.5, 0.0), v3(0.9, -0.5, 0.2), 0.12).unwrap();
    world.spawn((Cylinder::from(log), Friction(rng.random_range(0.0..1.0))));
    let slope = ConvexPolygon::new(vec![
        v3(-0.9, -0.2, -0.9),
        v3(0.9, -0.2, -0.9),
        v3(0.9, -0.6, -0.2),
        v3(-0.9, -0.6, -0.2),
    ])
    .unwrap();
    world.spawn((slope, Friction(rng.random_range(0.0..1.0))));
    let mut placed: Vec<(Vec3, Real)> = Vec::new();
    while placed.len() < 30 {
        let r = rng.random_range(0.03..0.12);
        let p = v3(
            rng.random_range(-1.0 + r..1.0 - r),
            rng.random_range(r..1.0 - r),
            rng.random_range(-1.0 + r..1.0 - r),
        );
        if placed.iter().all(|(q, s)| q.distance(p) >= r + s) {
            placed.push((p, r));
        }
    }
    for (p, r) in placed {
        let v = random_vector(&mut rng, 1.0) * rng.random_range(0.0..6.0);
        let spin = random_vector(&mut rng, 20.0);
        BallDef::new(p, r)
            .velocity(v)
            .mass(rng.random_range(0.1..10.0))
            .friction(rng.random_range(0.0..1.5))
            .restitution(rng.random_range(0.0..1.0))
            .rolling_resistance(if seed % 2 == 0 {
                0.0
            } else {
                rng.random_range(0.0..0.05)
            })
            .spin(spin)
            .spawn(&mut world);
    }
    (world, gravity, dt)
}

#[test]
fn energy_never_rises_in_harsh_random_worlds() {
    for seed in 0..160 {
        let (mut world, gravity, dt) = harsh_world(seed);
        let mut stepper = stepper(gravity);
        for step in 0..(2.5 / dt) as usize {
            let what = format!("seed {seed}, step {step}");
            step_losing_energy(&mut stepper, &mut world, gravity, dt, &what);
        }
    }
}

#[test]
fn friction_zero_steps_bit_for_bit_as_without_it() {
    let run = |with_components: bool| {
        let mut world = World::new();
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            for side in [-1.0, 1.0] {
                let plane = Plane::new(axis * side, -axis * side).unwrap();
                let e = world.spawn((plane, Restitution(0.7)));
                if with_components {
                    world.insert_one(e, Friction(0.0)).unwrap();
                }
            }
        }
        let block = random_block(Vec3::splat(-1.0), Vec3::splat(1.0), 60, 0.08, 4.0, 9);
        let balls: Vec<Entity> = block
            .unwrap()
            .into_iter()
            .map(|b| {
                let e = b.restitution(0.9).spawn(&mut world);
                if with_components {
                    world.insert_one(e, Friction(0.0)).unwrap();
                }
                e
            })
            .collect();
        let mut stepper = stepper(v3(0.0, -9.81, 0.0));
        for _ in 0..200 {
            stepper.step(&mut world, 1.0 / 60.0).unwrap();
        }
        balls
            .iter()
            .map(|&b| (position(&world, b), velocity(&world, b), spin_of(&world, b)))
            .collect::<Vec<_>>()
    };
    let (plain, rough) = (run(false), run(true));
    for (k, (a, b)) in plain.iter().zip(&rough).enumerate() {
        assert_eq!(
            a.0.to_array().map(f64::to_bits),
            b.0.to_array().map(f64::to_bits),
            "{k}"
        );
        assert_eq!(
            a.1.to_array().map(f64::to_bits),
            b.1.to_array().map(f64::to_bits),
            "{k}"
        );
        assert_eq!(b.2, Vec3::ZERO, "{k}: no spin without friction");
    }
}

#[test]
fn a_bad_friction_is_refused_naming_the_ball() {
    for bad in [-0.1, Real::NAN, Real::INFINITY] {
        let mut world = World::new();
        let ball = BallDef::new(Vec3::ZERO, 0.5).spawn(&mut world);
        world.insert_one(ball, Friction(bad)).unwrap();
        let error = stepper(Vec3::ZERO).step(&mut world, 0.1).unwrap_err();
        assert!(
            matches!(error, StepError::InvalidBall { entity, field: BallField::Friction } if entity == ball),
            "{bad}: {error}"
        );
        let message = error.to_string();
        assert!(
            message.contains("friction") && message.contains(">= 0"),
            "{message}"
        );
    }
}

#[test]
fn scene_fields_give_friction_and_snapshots_keep_it() {
    // The scene's default (0.3) for what gives none; a ball, a plane and a generator give
    // their own. The listed ball skids on the floor and is set spinning; a snapshot taken then
    // restores friction and spin, and steps on bit for bit
    let text = "Scene(dt: 0.01, gravity: (0.0, -9.81, 0.0), friction: 0.3,
        balls: [(pos: (0.0, 0.6, 0.0), vel: (2.0, -1.0, 0.0), radius: 0.5, friction: 0.6,
                 rolling_resistance: 0.02)],
        generators: [Random(min: (3.0, 0.1, 3.0), max: (4.0, 1.0, 4.0), count: 3, radius: 0.1,
                            speed: 0.0, seed: 1, friction: 0.0)],
        planes: [(point: (0.0, 0.0, 0.0), normal: (0.0, 1.0, 0.0), friction: 0.8),
                 (point: (9.0, 0.0, 0.0), normal: (-1.0, 0.0, 0.0))])";
    let scene = toibox::scene::Scene::parse(text, "rough.ron").unwrap();
    assert_eq!(scene.balls[0].friction, 0.6);
    assert_eq!(scene.balls[0].rolling_resistance, 0.02);
    assert!(scene.balls[1..].iter().all(|b| b.friction == 0.0));
    assert_eq!(
        (scene.planes[0].friction, scene.planes[1].friction),
        (0.8, 0.3)
    );
    let mut built = scene.build();
    let ball = built.balls[0];
    assert_eq!(built.sim.world.get::<&Friction>(ball).unwrap().0, 0.6);
    for _ in 0..20 {
        built.sim.step(scene.dt).unwrap();
    }
    let w = &built.sim.world;
    assert!(
        spin_of(w, ball).z < 0.0,
        "rolls forward: {}",
        spin_of(w, ball)
    );
    let snapshot = toibox::scene::Snapshot::capture(w);
    let text = snapshot.to_ron();
    let mut restored = toibox::scene::Snapshot::from_ron(&text, "snap.ron")
        .unwrap()
        .restore()
        .unwrap();
    assert_eq!(toibox::scene::Snapshot::capture(&restored), snapshot);
    let mut fresh = stepper(scene.gravity);
    for _ in 0..20 {
        built.sim.step(scene.dt).unwrap();
        fresh.step(&mut restored, scene.dt).unwrap();
    }
    assert_eq!(
        toibox::scene::Snapshot::capture(&restored).to_ron(),
        toibox::scene::Snapshot::capture(&built.sim.world).to_ron()
    );
}

/// Roll a ball of radius `r` launched at `v0` with spin `w0` on a rough floor (friction `mu`,
/// normal `up`, gravity `g` against it) for `steps` steps of `dt`; return its velocity and
/// spin after each step.
fn roll(r: Real, v0: Vec3, w0: Vec3, mu: Real, up: Vec3, steps: usize) -> Vec<(Vec3, Vec3)> {
    let dt = 1.0 / 60.0;
    let (mut world, ball) = crate::surface::lying(up, r, (v0, w0), (mu, 0.0));
    let mut stepper = stepper(-up * 9.81);
    (0..steps)
        .map(|_| {
            stepper.step(&mut world, dt).unwrap();
            (velocity(&world, ball), spin_of(&world, ball))
        })
        .collect()
}

#[test]
fn a_sliding_ball_rolls_after_two_sevenths_at_five_sevenths_of_its_speed() {
    // Without spin, a ball launched at v0 slides, slowed by mu g, until its contact point
    // stops slipping at t = 2 v0 / (7 mu g), and rolls on at 5/7 v0 with spin v/r: the speed
    // after k steps is v0 - mu g k dt while it slides (the step that holds t is left out
    // here; `surface` checks it), and the rolling speed is exact (the impulses at the contact
    // keep the angular momentum about it). Floors facing y and z, several speeds, radii and
    // coefficients
    let g = 9.81;
    let dt = 1.0 / 60.0;
    for (up, along) in [(Vec3::Y, Vec3::X), (Vec3::Z, v3(0.6, -0.8, 0.0))] {
        for (r, speed, mu) in [(0.5, 3.0, 0.2), (0.03, 1.2, 0.5), (2.0, 7.0, 0.05)] {
            let v0 = along * speed;
            let history = roll(r, v0, Vec3::ZERO, mu, up, 300);
            let t_roll = 2.0 * speed / (7.0 * mu * g);
            let what = format!("up {up}, r {r}, v0 {speed}, mu {mu}");
            for (k, &(v, w)) in history.iter().enumerate() {
                let t = (k + 1) as Real * dt;
                if t < t_roll - dt {
                    close(
                        v,
                        along * (speed - mu * g * t),
                        &format!("{what}, step {k}"),
                    );
                } else if t > t_roll + dt {
                    close(v, v0 * (5.0 / 7.0), &format!("{what}, step {k}: rolling"));
                    close(w, up.cross(v) / r, &format!("{what}, step {k}: spin"));
                }
            }
        }
    }
}

#[test]
fn a_draw_shot_ends_at_five_v0_less_two_r_w_over_seven() {
    // Back-spin w0 against the motion: the ball ends rolling at (5 v0 - 2 r w0)/7, backwards
    // when 2 r w0 > 5 v0 (a draw shot); top-spin adds to it (a follow shot); w0 = v0/r rolls
    // from the start (a natural roll)
    let (r, v0, mu) = (0.028, 2.0, 0.2);
    for w0 in [0.0, 30.0, 100.0, 200.0, -50.0, -v0 / r] {
        // Back-spin for motion along +x on a floor facing +y turns about +z
        let history = roll(r, v3(v0, 0.0, 0.0), v3(0.0, 0.0, w0), mu, Vec3::Y, 300);
        let end = (5.0 * v0 - 2.0 * r * w0) / 7.0;
        let (v, w) = *history.last().unwrap();
        let what = format!("w0 {w0}");
        close(v, v3(end, 0.0, 0.0), &what);
        close(w, v3(0.0, 0.0, -end / r), &format!("{what}: spin"));
    }
}

#[test]
fn rolling_resistance_slows_a_rolling_ball_to_a_stop() {
    // A ball rolling at v on a rough level floor with rolling resistance c loses c g dt of its
    // speed a step, its spin following (still rolling), and stops after v / (c g); sliding, it
    // first rolls as before. Then it lies still and falls asleep
    let (r, g, dt) = (0.1, 9.81, 1.0 / 60.0);
    for (v0, w0, c) in [(1.0, -10.0, 0.05), (2.0, 0.0, 0.1), (0.5, -5.0, 0.3)] {
        let mut world = World::new();
        world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(), Friction(0.4)));
        let ball = BallDef::new(v3(0.0, r, 0.0), r)
            .velocity(v3(v0, 0.0, 0.0))
            .spin(v3(0.0, 0.0, w0))
            .friction(0.4)
            .rolling_resistance(c)
            .restitution(0.0)
            .spawn(&mut world);
        let mut stepper = stepper(v3(0.0, -g, 0.0));
        let mut last: Option<Real> = None;
        let mut stopped_at = None;
        for k in 0..2000 {
            stepper.step(&mut world, dt).unwrap();
            let (v, w) = (velocity(&world, ball), spin_of(&world, ball));
            let what = format!("v0 {v0}, w0 {w0}, c {c}, step {k}");
            assert!(v.x >= 0.0 && v.y == 0.0, "{what}: {v}");
            let rolling = (v.x + w.z * r).abs() < 1e-12;
            if let Some(before) = last
                && rolling
                && before > 0.0
            {
                let expected = (before - c * g * dt).max(0.0);
                assert!(
                    (v.x - expected).abs() < 1e-12,
                    "{what}: {} after {before}",
                    v.x
                );
            }
            if v.x == 0.0 && stopped_at.is_none() {
                stopped_at = Some(k);
            }
            last = rolling.then_some(v.x);
        }
        let stopped_at = stopped_at.unwrap_or_else(|| panic!("v0 {v0}: never stopped"));
        // Rolling from about 5/7 of (v0 - w0 r) / ... on: it stops within the time its rolling
        // speed lasts
        let roll = (5.0 * v0 - 2.0 * r * w0) / 7.0;
        let lasts = roll / (c * g);
        assert!(
            (stopped_at as Real) * dt <= lasts + 2.0 * v0 / (7.0 * 0.4 * g) + 2.0 * dt,
            "v0 {v0}: stopped at step {stopped_at}"
        );
        assert!(
            world.get::<&toibox::Sleep>(ball).unwrap().asleep(),
            "v0 {v0}: asleep"
        );
    }
}

#[test]
fn a_ball_spinning_in_place_winds_down() {
    // Spinning about the vertical on a floor, with rolling resistance c: the spin about the
    // normal loses 5/2 c g dt / r a step (the same resistance about the normal as across it)
    // until it stops; without rolling resistance it spins on
    let (r, g, dt, w0) = (0.1, 9.81, 1.0 / 60.0, 12.0);
    for c in [0.0, 0.02, 0.2] {
        let mut world = World::new();
        world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(), Friction(0.5)));
        let ball = BallDef::new(v3(0.0, r, 0.0), r)
            .spin(v3(0.0, w0, 0.0))
            .friction(0.5)
            .rolling_resistance(c)
            .spawn(&mut world);
        let mut stepper = stepper(v3(0.0, -g, 0.0));
        for k in 1..=20 {
            stepper.step(&mut world, dt).unwrap();
            let expected = (w0 - 2.5 * c * g * dt / r * k as Real).max(0.0);
            let w = spin_of(&world, ball);
            assert!(
                (w - v3(0.0, expected, 0.0)).length() < 1e-12,
                "c {c}, step {k}: {w}, expected {expected}"
            );
            assert_eq!(velocity(&world, ball), Vec3::ZERO, "c {c}, step {k}");
        }
    }
}

/// A ball turning in place on a rough floor is not still: it stays awake while it turns. A
/// sleeper given a spin wakes, as one given a velocity does (a sleeper that kept turning would
/// drive its neighbours by friction while its own change was thrown away).
#[test]
fn a_turning_ball_stays_awake_and_a_spin_wakes_a_sleeper() {
    let mut world = World::new();
    world.spawn((Plane::new(Vec3::ZERO, Vec3::Y).unwrap(), Friction(0.5)));
    let ball = BallDef::new(v3(0.0, 0.25, 0.0), 0.25)
        .friction(0.5)
        .spin(v3(0.0, 5.0, 0.0))
        .spawn(&mut world);
    let asleep = |world: &World| world.get::<&Sleep>(ball).unwrap().asleep();
    let mut stepper = stepper(v3(0.0, -9.81, 0.0));
    for _ in 0..180 {
        stepper.step(&mut world, 1.0 / 60.0).unwrap();
    }
    assert!(!asleep(&world), "a ball turning in place sleeps");
    assert_eq!(spin_of(&world, ball), v3(0.0, 5.0, 0.0));
    // Stopped, it sleeps
    world.insert_one(ball, AngularVelocity(Vec3::ZERO)).unwrap();
    for _ in 0..180 {
        stepper.step(&mut world, 1.0 / 60.0).unwrap();
    }
    assert!(asleep(&world), "a still ball stays awake");
    // Set turning across the floor, it wakes and rolls off
    world
        .insert_one(ball, AngularVelocity(v3(0.0, 0.0, -4.0)))
        .unwrap();
    for _ in 0..30 {
        stepper.step(&mut world, 1.0 / 60.0).unwrap();
    }
    assert!(!asleep(&world));
    assert!(
        position(&world, ball).x > 0.01,
        "{}",
        position(&world, ball)
    );
}
