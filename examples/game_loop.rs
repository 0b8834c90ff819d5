//! The stepper in a macroquad game loop: fixed physics `dt`, any frame rate, smooth drawing.
//!
//! Each frame, `FixedStep` turns the frame's duration into a whole number of physics steps and
//! an interpolation factor; the balls are drawn between their last two states, converted from
//! the simulation's f64 to macroquad's f32 with `as_vec3()`. Physics always steps at `DT`, so
//! the motion is the same at 30 or 240 frames per second, and the same as stepping headless.
//! The loop reacts to the step's events in the same body: a ball that hits the right wall is
//! despawned and a new one drops in at the left.
//!
//! `cargo run --example game_loop` opens a window (Esc quits). With `--headless` it runs the
//! same loop on made-up frame times without a window and checks that the result equals plain
//! stepping; `--frames N` closes the window after N frames.

use macroquad::prelude::*;
use toibox::hecs::Entity;
use toibox::{BallDef, FixedStep, Plane, Position, PreviousPosition, Simulation, StepConfig};

/// The physics step.
const DT: f64 = 1.0 / 120.0;
/// Most physics steps in one frame.
const MAX_STEPS: u32 = 8;
/// Half the width of the box.
const HALF: f64 = 2.0;

/// A box of balls with a floor, two walls and a back and front pane, under gravity; and the
/// right wall, which takes the balls that hit it.
fn scene() -> (Simulation, Entity) {
    let mut sim = Simulation::new(StepConfig::default());
    let x = toibox::Vec3::X;
    let (y, z) = (toibox::Vec3::Y, toibox::Vec3::Z);
    sim.add_plane(Plane::new(toibox::Vec3::ZERO, y).unwrap());
    sim.add_plane(Plane::new(-x * HALF, x).unwrap());
    let drain = sim.add_plane(Plane::new(x * HALF, -x).unwrap());
    sim.add_plane(Plane::new(-z * 0.2, z).unwrap());
    sim.add_plane(Plane::new(z * 0.2, -z).unwrap());
    for n in 0..20 {
        let p = toibox::Vec3::new(-1.5 + 0.15 * n as f64, 1.0 + 0.1 * n as f64, 0.0);
        let v = toibox::Vec3::new(1.5 - 0.1 * n as f64, 0.0, 0.0);
        sim.spawn_ball(BallDef::new(p, 0.1).velocity(v).restitution(0.9));
    }
    (sim, drain)
}

/// One physics step, and the game's answer to its events: a ball that hit `drain` is gone,
/// and a new one drops in at the top left. Returns how many were replaced.
fn step(sim: &mut Simulation, drain: Entity) -> usize {
    let report = sim.step(DT).expect("a valid scene");
    let mut replaced = 0;
    for event in &report.events {
        if event.b == drain && sim.world.despawn(event.a).is_ok() {
            let top_left = toibox::Vec3::new(-1.8, 2.5 + 0.25 * (replaced % 4) as f64, 0.0);
            sim.spawn_ball(BallDef::new(top_left, 0.1).velocity(toibox::Vec3::X));
            replaced += 1;
        }
    }
    replaced
}

fn positions(sim: &Simulation) -> Vec<[u64; 3]> {
    let mut query = sim.world.query::<&Position>();
    query
        .iter()
        .map(|p| p.0.to_array().map(f64::to_bits))
        .collect()
}

/// The loop without a window: irregular frames, then the check against plain stepping.
fn headless() {
    let (mut sim, drain) = scene();
    let mut clock = FixedStep::new(DT, MAX_STEPS);
    let (mut steps, mut replaced) = (0, 0);
    // Frames of 4 to 40 ms in a fixed pattern, like a stuttering display
    for frame in 0..600 {
        let frame_time = 0.004 + 0.036 * ((frame * 7919) % 101) as f64 / 100.0;
        for _ in 0..clock.advance(frame_time) {
            replaced += step(&mut sim, drain);
            steps += 1;
        }
        assert!((0.0..1.0).contains(&clock.alpha()));
    }
    let (mut reference, drain) = scene();
    for _ in 0..steps {
        step(&mut reference, drain);
    }
    assert_eq!(
        positions(&sim),
        positions(&reference),
        "same steps, same state"
    );
    assert!(replaced > 0, "balls reach the right wall");
    assert_eq!(sim.world.query::<&Position>().iter().count(), 20);
    assert_eq!(sim.report().stats.escaped, 0);
    println!(
        "headless: 600 frames ran {steps} steps of {DT:.5} s ({:.3} s dropped), {replaced} \
         balls replaced; the state equals {steps} plain steps",
        clock.dropped()
    );
}

async fn windowed(frames: Option<u64>) {
    let (mut sim, drain) = scene();
    let mut clock = FixedStep::new(DT, MAX_STEPS);
    let mut frame = 0;
    loop {
        if is_key_pressed(KeyCode::Escape) || frames.is_some_and(|n| frame >= n) {
            break;
        }
        for _ in 0..clock.advance(get_frame_time() as f64) {
            step(&mut sim, drain);
        }
        let alpha = clock.alpha();

        clear_background(Color::from_rgba(24, 26, 32, 255));
        let scale = screen_width().min(screen_height() * 2.0) / (2.0 * HALF as f32 + 0.4);
        // Positions are f64; macroquad draws in f32, the same glam's Vec3
        let to_screen = |p: toibox::Vec3| {
            let p: Vec3 = p.as_vec3();
            vec2(
                screen_width() / 2.0 + p.x * scale,
                screen_height() * 0.9 - p.y * scale,
            )
        };
        let floor_left = to_screen(toibox::Vec3::new(-HALF, 0.0, 0.0));
        let floor_right = to_screen(toibox::Vec3::new(HALF, 0.0, 0.0));
        draw_line(
            floor_left.x,
            floor_left.y,
            floor_right.x,
            floor_right.y,
            3.0,
            GRAY,
        );
        let mut query = sim.world.query::<(&Position, &PreviousPosition)>();
        for (position, previous) in query.iter() {
            let p = to_screen(previous.0.lerp(position.0, alpha));
            draw_circle(p.x, p.y, 0.1 * scale, ORANGE);
        }
        draw_text(
            format!(
                "t = {:.2} s, {} steps, {:.0} fps",
                sim.time(),
                sim.steps(),
                get_fps()
            ),
            12.0,
            24.0,
            24.0,
            WHITE,
        );
        frame += 1;
        next_frame().await;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--headless") {
        headless();
        return;
    }
    let frames = args
        .iter()
        .position(|a| a == "--frames")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok());
    macroquad::Window::new("toibox: game loop", windowed(frames));
}
