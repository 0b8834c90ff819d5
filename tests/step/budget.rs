//! The budget of resolved collisions (`StepConfig::max_events_per_step`): past it, each contact
//! stops its moving balls where they touch, and a stopped ball ends the step at rest, reporting
//! the velocity it has (none) and no spin. What it had when it stopped is taken out of the world
//! and counted in `StepStats::energy_stopped` and `StepStats::momentum_stopped`. These tests
//! check, with numbers worked out by hand where they can be:
//! - a light ball jammed under a heavy one (the case that reported -1098 while it stood) reports
//!   no velocity in any step it stands, and the jam ends, at restitution 0 (where the landing
//!   rests at once) and at 0.5 (where the budget runs out in the landing step);
//! - the same landing past a budget of one contact, at several mass ratios: the ball stopped at
//!   the touch had `m g h`, all of it counted;
//! - an elastic gas without gravity, with a budget of 1 to 5 contacts: the kinetic energy left
//!   plus what was stopped is what it started with, and likewise momentum, step after step;
//! - a ball stopped against a cylinder and one against a polygon: at rest touching it, its
//!   motion and spin counted.
//!
//! In every case nothing ends inside anything, and energy never rises.

use crate::common::{can, deepest_overlap, energy, position, spin_of, triangle, v3, velocity};
use hecs::{Entity, World};
use toibox::scene::{Scene, random_block};
use toibox::sim::{Mass, kinetic_energy, momentum};
use toibox::{
    Ball, BallDef, ConvexPolygon, Cylinder, PairKind, Plane, Position, Real, Shape, Simulation,
    StepConfig, StepStats, Stepper, Vec3, Velocity,
};

/// Standard gravity, as in the default configuration.
const G: Real = 9.81;

/// The jam of the issue: a ball of mass `bottom` on a floor, one of mass `top` 0.05 above
/// resting on it, 0.001 off its centre (radius 0.1 both), friction 1, `restitution` (0 in the
/// issue), steps of 1/120, as a scene file gives it.
fn jam(bottom: Real, top: Real, restitution: Real) -> Scene {
    let text = format!(
        "Scene(dt: 0.008333333333333333, steps: 240, restitution: {restitution:?}, friction: 1.0,
           planes: [(point: (0.0, 0.0, 0.0), normal: (0.0, 1.0, 0.0))],
           balls: [(pos: (0.0, 0.1, 0.0), radius: 0.1, mass: {bottom:e}),
                   (pos: (0.001, 0.35, 0.0), radius: 0.1, mass: {top:e})])"
    );
    Scene::parse(&text, "jam.ron").unwrap()
}

/// How far the top ball of [`jam`] falls before it touches the bottom one: from 0.35 to where
/// the centres are 0.2 apart, 0.001 apart across.
fn jam_fall() -> Real {
    0.35 - (0.1 + (0.2_f64 * 0.2 - 0.001 * 0.001).sqrt())
}

/// What one step of [`jam`] left.
struct JamStep {
    stats: StepStats,
    /// Energy (kinetic and of gravity) before and after, and its scale.
    energy: (Real, Real, Real),
    /// The balls' positions, velocities and spins at the end, bottom ball first.
    balls: [(Vec3, Vec3, Vec3); 2],
}

/// Step [`jam`] with `budget`, checking after every step that nothing overlaps, energy never
/// rises, and a ball that stood through the step reports no velocity; return every step.
fn step_jam(bottom: Real, top: Real, restitution: Real, budget: Option<usize>) -> Vec<JamStep> {
    let scene = jam(bottom, top, restitution);
    let mut built = scene.build();
    built.sim.stepper.config.max_events_per_step = budget;
    let g = built.sim.stepper.config.gravity;
    let balls = [built.balls[0], built.balls[1]];
    let what = format!("masses {bottom:e} under {top:e}, budget {budget:?}");
    let mut steps = Vec::new();
    for step in 0..scene.steps {
        let world = &built.sim.world;
        let before = balls.map(|b| position(world, b));
        let (start, _) = energy(world, g);
        let stats = built.sim.step(scene.dt).unwrap().stats;
        let world = &built.sim.world;
        let (end, scale) = energy(world, g);
        assert!(
            end <= start + 1e-12 * scale,
            "{what}, step {step}: energy rose from {start} to {end}"
        );
        let after = balls.map(|b| position(world, b));
        let gap = after[0].distance(after[1]) - 0.2;
        assert!(
            gap >= -1e-12,
            "{what}, step {step}: the balls overlap by {gap}"
        );
        for (k, p) in after.iter().enumerate() {
            assert!(p.y >= 0.1 - 1e-12, "{what}, step {step}: ball {k} at {p}");
            // Stood through the step: it reports the velocity it has, none that would move it
            // beyond the same rounding in a step (the stopped light ball used to report -1098
            // here, step after step)
            if p.distance(before[k]) <= 1e-12 {
                let v = velocity(world, balls[k]);
                assert!(
                    v.length() * scene.dt <= 1e-12,
                    "{what}, step {step}: ball {k} stood at {p} moving at {v}"
                );
            }
        }
        assert_eq!(stats.escaped, 0, "{what}, step {step}");
        assert!(stats.max_penetration <= 1e-12, "{what}, step {step}");
        steps.push(JamStep {
            stats,
            energy: (start, end, scale),
            balls: balls.map(|b| (position(world, b), velocity(world, b), spin_of(world, b))),
        });
    }
    steps
}

#[test]
fn a_light_ball_jammed_under_a_heavy_one_reports_the_velocity_it_has() {
    // The case: 1e-6 under 1e6, restitution 0, the default budget (1,200 contacts).
    // The heavy ball falls h = 0.35 - 0.1 - √(0.2² - 0.001²) = 0.0500025 and lands at
    // √(2 h / g) = 0.10097, in step 12 (from 0; steps of 1/120). The light ball lies on the
    // floor, so at restitution 0 the landing's series of bounces ends at once: a resting
    // contact, and the budget never runs out (it used to, in that step, as the light ball
    // collided between the two; before that, in every step, the light one reporting -1098
    // while it stood). The light ball stands and reports
    // no velocity in every step (`step_jam` checks it), and the jam ends: the heavy ball,
    // 0.001 off centre, rolls off the light one to the floor
    let steps = step_jam(1e-6, 1e6, 0.0, None);
    assert!(steps.iter().all(|s| s.stats.events_cap_hits == 0));
    let met: Vec<usize> = (0..steps.len())
        .filter(|&k| steps[k].stats.ball_ball > 0)
        .collect();
    assert_eq!(met.first(), Some(&12), "the balls met in steps {met:?}");
    // The landing takes the fall's energy along the contact normal, at 0.005 rad to the fall
    // (cos² of it), and at most all of it
    let (start, end, _) = steps[12].energy;
    let fall = 1e6 * G * jam_fall();
    let normal = fall * (1.0 - (0.001_f64 / 0.2).powi(2));
    let taken = start - end;
    assert!(
        taken >= normal * (1.0 - 1e-9) && taken <= fall * (1.0 + 1e-12),
        "{taken} taken of a fall of {fall}, {normal} of it along the normal"
    );
    for (k, step) in steps.iter().enumerate() {
        let (light, _, _) = step.balls[0];
        assert!(
            light.distance(v3(0.0, 0.1, 0.0)) <= 1e-3,
            "step {k}: the light ball went to {light}"
        );
    }
    let (heavy, _, _) = steps.last().unwrap().balls[1];
    assert!(
        (heavy.y - 0.1).abs() <= 1e-9,
        "the heavy ball ended at {heavy}"
    );
}

#[test]
fn a_light_ball_jammed_under_a_heavy_one_bouncing_stops_at_the_budget() {
    // The jam at restitution 0.5: the landing's series of bounces would last 0.2, past
    // the step, so the heavy ball bounces on the light one, which collides between it and the
    // floor: an inelastic collapse. With a budget of 40 contacts, below the 64 changes of
    // course after which a ball takes the collapse's limit, the budget runs out in the landing
    // step only; both stop, at rest, in that step. What they had is about the heavy one's
    // fall, M g h: the light one's share, and what its collisions took, are each within a
    // millionth of it. (With the default budget the collapse ends as one impact instead: the
    // next test)
    let steps = step_jam(1e-6, 1e6, 0.5, Some(40));
    let capped: Vec<usize> = (0..steps.len())
        .filter(|&k| steps[k].stats.events_cap_hits > 0)
        .collect();
    assert_eq!(capped, [12], "the budget ran out in steps {capped:?}");
    let landing = &steps[12];
    assert_eq!(landing.stats.stopped, 2);
    let fall = 1e6 * G * jam_fall();
    let taken = landing.stats.energy_stopped;
    assert!(
        (taken - fall).abs() <= 1e-6 * fall,
        "{taken} taken of a fall of {fall}"
    );
    // Counted once: what is left and what was taken are what the step began with, less only
    // what the collisions took
    let (start, end, scale) = landing.energy;
    assert!(end + taken <= start + 1e-12 * scale);
    assert!(
        end + taken >= start - 1e-6 * scale,
        "{end} + {taken} of {start}"
    );

    // At rest where they stopped, both, as the world says at the end of that step
    for (k, (_, v, w)) in landing.balls.iter().enumerate() {
        assert_eq!((*v, *w), (Vec3::ZERO, Vec3::ZERO), "ball {k}");
    }
    // The jam ends: the heavy ball rolls off the light one to the floor
    let (heavy, _, _) = steps.last().unwrap().balls[1];
    assert!(
        (heavy.y - 0.1).abs() <= 1e-9,
        "the heavy ball ended at {heavy}"
    );
}

#[test]
fn a_light_ball_jammed_under_a_heavy_one_bouncing_ends_the_collapse_as_one_impact() {
    // The same jam with the default budget: past 64 changes of course in the landing step the
    // light ball's impacts take the collapse's limit, one perfectly inelastic impact of the
    // crowd (the heavy ball, the light one, the floor, with Coulomb's friction), so the budget
    // never runs out; the light ball stays where it lies, and reports no velocity while it
    // stands (`step_jam` checks energy, overlaps and that), and the heavy ball rolls off it.
    // Mass ratios to 1e6 and restitutions 0.3 to 0.8 (at the 1e12 the friction
    // solve loses its digits: that jam stops at the budget, as the test above)
    for (bottom, top, restitution) in [
        (1e-3, 1e3, 0.5),
        (1e-4, 1e2, 0.3),
        (1e-2, 10.0, 0.8),
        (1.0, 1.0, 0.5),
    ] {
        let what = format!("masses {bottom:e} under {top:e}, restitution {restitution}");
        let steps = step_jam(bottom, top, restitution, None);
        assert!(
            steps.iter().all(|s| s.stats.events_cap_hits == 0),
            "{what}: the budget ran out"
        );
        // Through the landing and the collapse, where it lay (later the heavy ball rolling off
        // it nudges it along the floor)
        for (k, step) in steps[..=20].iter().enumerate() {
            let (light, _, _) = step.balls[0];
            assert!(
                light.distance(v3(0.0, 0.1, 0.0)) <= 1e-3,
                "{what}, step {k}: the light ball went to {light}"
            );
        }
        let (heavy, _, _) = steps.last().unwrap().balls[1];
        assert!(heavy.y < 0.2, "{what}: the heavy ball ended at {heavy}");
    }
}

#[test]
fn a_ball_landing_past_the_budget_stops_with_what_it_had_at_every_mass_ratio() {
    // The jam with a budget of one contact: in the landing step (12) the lower ball's resting
    // contact with the floor is the one, and the upper ball is stopped as it touches: it had
    // fallen h from rest, so it had m g h exactly, all of it counted, and the step ends with
    // the energy it began with less that. Both balls end the step at rest. Mass ratios from
    // the 1e-12 to 1e3; per step, nothing overlaps, energy never rises, and a ball
    // that stood reports no velocity
    for (bottom, top) in [(1e-6, 1e6), (1e-3, 1.0), (1.0, 1.0), (1e3, 1.0)] {
        let steps = step_jam(bottom, top, 0.0, Some(1));
        let what = format!("masses {bottom:e} under {top:e}");
        assert!(
            steps[..12].iter().all(|s| s.stats.stopped == 0),
            "{what}: stopped before landing"
        );
        let landing = &steps[12];
        assert!(landing.stats.events_cap_hits > 0, "{what}");
        for (k, (_, v, w)) in landing.balls.iter().enumerate() {
            assert_eq!((*v, *w), (Vec3::ZERO, Vec3::ZERO), "{what}: ball {k}");
        }
        let fall = top * G * jam_fall();
        let taken = landing.stats.energy_stopped;
        assert!(
            (taken - fall).abs() <= 1e-12 * fall,
            "{what}: {taken} taken of a fall of {fall}"
        );
        let stopped = landing.stats.momentum_stopped();
        let speed = (2.0 * G * jam_fall()).sqrt();
        assert!(
            (stopped - v3(0.0, -top * speed, 0.0)).length() <= 1e-12 * top * speed,
            "{what}: momentum {stopped} stopped"
        );
        let (start, end, scale) = landing.energy;
        assert!(
            (end + taken - start).abs() <= 1e-12 * scale,
            "{what}: {end} + {taken} of {start}"
        );
    }
}

/// The balls of `world` at rest, velocity zero to the bit.
fn at_rest(world: &World) -> Vec<Entity> {
    world
        .query::<(Entity, &Velocity)>()
        .iter()
        .filter(|(_, v)| v.0 == Vec3::ZERO)
        .map(|(e, _)| e)
        .collect()
}

#[test]
fn an_elastic_gas_past_the_budget_loses_only_what_its_stopped_balls_had() {
    // 40 balls at speed 5 in a box of planes of half side 0.5, elastic, frictionless, without
    // gravity, with a budget of 1 to 5 contacts a step: the budget runs out in the first steps.
    // Nothing but stopping takes energy: after every step the kinetic energy left plus all that
    // stopped balls had is the energy at the start, to rounding (1e-9). Momentum changes by the
    // walls' impulses and what stopped balls had. In the first step no ball is at rest until it
    // is stopped: exactly the stopped balls end it at rest
    for budget in 1..=5 {
        let mut sim = Simulation::new(StepConfig {
            gravity: Vec3::ZERO,
            max_events_per_step: Some(budget),
            ..StepConfig::default()
        });
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            for side in [-0.5, 0.5] {
                sim.add_plane(Plane::new(axis * side, -axis * side.signum()).unwrap());
            }
        }
        let block = random_block(
            Vec3::splat(-0.5),
            Vec3::splat(0.5),
            40,
            0.05,
            5.0,
            budget as u64,
        );
        for ball in block.unwrap() {
            sim.spawn_ball(ball);
        }
        let what = format!("budget {budget}");
        let start = kinetic_energy(&sim.world);
        let scale: Real = sim
            .world
            .query::<(&Velocity, &Mass)>()
            .iter()
            .map(|(v, m)| m.0 * v.0.length())
            .sum();
        let mut expected = momentum(&sim.world);
        let (mut taken, mut held) = (0.0, 0);
        for step in 0..20 {
            let report = sim.step(1.0 / 60.0).unwrap();
            let stats = report.stats;
            held += stats.events_cap_hits;
            taken += stats.energy_stopped;
            // Walls change momentum by their impulses, along their normals towards the ball
            for event in report
                .events
                .iter()
                .filter(|e| e.kind == PairKind::BallPlane)
            {
                expected += event.normal * event.impulse;
            }
            expected -= stats.momentum_stopped();
            let now = kinetic_energy(&sim.world);
            assert!(
                (now + taken - start).abs() <= 1e-9 * start,
                "{what}, step {step}: {now} left and {taken} taken of {start}"
            );
            let p = momentum(&sim.world);
            assert!(
                (p - expected).length() <= 1e-9 * scale,
                "{what}, step {step}: momentum {p}, expected {expected}"
            );
            if step == 0 {
                assert!(stats.stopped > 0, "{what}: {stats:?}");
                assert_eq!(at_rest(&sim.world).len() as u64, stats.stopped, "{what}");
            }
            let overlap = deepest_overlap(&sim.world);
            assert!(overlap <= 1e-12, "{what}, step {step}: overlap {overlap}");
            for p in sim.world.query::<&Position>().iter() {
                assert!(
                    p.0.abs().max_element() <= 0.45 + 1e-12,
                    "{what}, step {step}: at {}",
                    p.0
                );
            }
            assert_eq!(stats.escaped, 0, "{what}, step {step}");
        }
        assert!(held > 0 && taken > 0.0, "{what}: the budget never ran out");
    }
}

#[test]
fn a_ball_stopped_against_a_cylinder_ends_at_rest_touching_it() {
    // The can (axis along y from the origin, radius 2), no gravity, a budget of none: a ball
    // of radius 1 and mass 2 at (-5, 2, 0) moving +4 along x and spinning at 5 about z touches
    // the side at x = -3 at t = 0.5 and is held there. It ends the step at rest, its spin gone:
    // it had ½ 2 4² = 16 of motion and ½ (2/5 2 1²) 5² = 10 of spin, and momentum (8, 0, 0)
    let mut world = World::new();
    world.spawn((Cylinder::from(can()),));
    let ball = BallDef::new(v3(-5.0, 2.0, 0.0), 1.0)
        .mass(2.0)
        .velocity(v3(4.0, 0.0, 0.0))
        .spin(v3(0.0, 0.0, 5.0))
        .spawn(&mut world);
    let mut stepper = Stepper::new(StepConfig {
        gravity: Vec3::ZERO,
        max_events_per_step: Some(0),
        ..StepConfig::default()
    });
    for step in 0..3 {
        let stats = stepper.step(&mut world, 1.0).unwrap().stats;
        let p = position(&world, ball);
        assert!(
            (p - v3(-3.0, 2.0, 0.0)).length() <= 1e-12,
            "step {step}: at {p}"
        );
        assert_eq!(velocity(&world, ball), Vec3::ZERO, "step {step}");
        assert_eq!(spin_of(&world, ball), Vec3::ZERO, "step {step}");
        assert!(stats.max_penetration <= 1e-12, "step {step}: {stats:?}");
        if step == 0 {
            assert_eq!((stats.events_cap_hits, stats.stopped), (1, 1));
            assert!(
                (stats.energy_stopped - 26.0).abs() <= 1e-12 * 26.0,
                "{stats:?}"
            );
            assert_eq!(stats.momentum_stopped, [8.0, 0.0, 0.0]);
        } else {
            // At rest against it: nothing approaches, nothing is stopped again
            assert_eq!((stats.collisions, stats.stopped), (0, 0), "step {step}");
            assert_eq!(stats.energy_stopped, 0.0);
        }
    }
}

#[test]
fn a_ball_dropped_onto_a_polygon_past_the_budget_stays_where_it_stopped() {
    // The triangle in z = 0 (normal +z) with gravity along -z, a budget of none: a ball of
    // radius 1 and mass 2 dropped from rest at (1, 1, 3) falls h = 2 onto it and is held
    // there, at rest: it had m g h = 2 · 9.81 · 2 = 39.24 and momentum m √(2 g h) down. In each
    // later step gravity presses it on again, the contact is held at once and the ball stops
    // with nothing earned: it stays, at rest, neither sinking nor taking anything more
    let gravity = v3(0.0, 0.0, -G);
    let mut world = World::new();
    let plate: ConvexPolygon = triangle();
    world.spawn((plate.clone(),));
    let ball = BallDef::new(v3(1.0, 1.0, 3.0), 1.0)
        .mass(2.0)
        .spawn(&mut world);
    let mut stepper = Stepper::new(StepConfig {
        gravity,
        max_events_per_step: Some(0),
        ..StepConfig::default()
    });
    // It touches at t = √(2 h / g) = 0.6386: in the first step of 1
    for step in 0..5 {
        let stats = stepper.step(&mut world, 1.0).unwrap().stats;
        let p = position(&world, ball);
        assert!(
            (p - v3(1.0, 1.0, 1.0)).length() <= 1e-12,
            "step {step}: at {p}"
        );
        let gap = plate.proximity(&Ball::new(p, 1.0)).distance;
        assert!(gap >= -1e-12, "step {step}: {gap} into the plate");
        assert_eq!(velocity(&world, ball), Vec3::ZERO, "step {step}");
        if step == 0 {
            assert_eq!(stats.stopped, 1);
            let fall = 2.0 * G * 2.0;
            assert!(
                (stats.energy_stopped - fall).abs() <= 1e-12 * fall,
                "{stats:?}"
            );
            let down = 2.0 * (2.0 * G * 2.0).sqrt();
            assert!(
                (stats.momentum_stopped() - v3(0.0, 0.0, -down)).length() <= 1e-12 * down,
                "{stats:?}"
            );
        } else {
            assert_eq!(stats.energy_stopped, 0.0, "step {step}: {stats:?}");
        }
    }
}
