//! The viewer's loop: input, fixed steps, drawing each pane, the HUD, screenshots.

use std::cell::Cell;
use std::path::Path;
use std::rc::Rc;
use std::time::Instant;

use macroquad::camera::{set_camera, set_default_camera};
use macroquad::color::Color;
use macroquad::input::{
    KeyCode, MouseButton, get_char_pressed, is_key_down, is_key_pressed, is_mouse_button_down,
    is_mouse_button_pressed, mouse_position, mouse_wheel,
};
use macroquad::material::{gl_use_default_material, gl_use_material};
use macroquad::shapes::draw_rectangle;
use macroquad::texture::get_screen_data;
use macroquad::time::{get_fps, get_frame_time};
use macroquad::window::{clear_background, next_frame, screen_height, screen_width};

use super::camera::{Orbit, OrbitCamera};
use super::effects::{Flashes, Trails, spin_rings};
use super::hud::{ACCENT, DIM, FAULT, Hud, Line, TEXT, WARN};
use super::markers::{self, Marked};
use super::pacing::{FASTEST, MIN_STEP_RATE, Pacing, SLOWEST, base_speed, speed_label};
use super::pane::{Pane, drift};
use super::render::{Batch, Lights, Materials, Spheres, StaticScene, palette, rgba, v3};
use super::screenshot::{unique_name, write_png};
use super::{ViewError, ViewOptions, ViewSummary};
use crate::geometry::Aabb;
use crate::math::{Real, Vec3};
use crate::scene::{Scene, SceneItem};
use crate::sim::{FixedStep, Orientation};

mod input;
mod status;

/// Most physics steps in one frame at ×1; faster speeds allow proportionally more.
const MAX_STEPS_PER_FRAME: u32 = 8;
/// Wall-clock time a frame may spend stepping before the rest of its steps are dropped.
const PHYSICS_BUDGET_MS: f64 = 40.0;
/// Balls drawn at least this many pixels in radius, so tiny ones stay visible.
const MIN_PIXELS: Real = 2.0;
/// How long a message stays, in seconds.
const TOAST_SECONDS: f32 = 3.0;
/// Trails are on at the start for scenes of at most this many balls.
const TRAILS_UP_TO: usize = 50;

/// The background: a dark blue-grey.
const BACKGROUND: Color = Color::new(0.075, 0.085, 0.11, 1.0);

/// What a mouse drag does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Drag {
    Orbit,
    Pan,
}

/// Everything the loop keeps between frames.
struct App {
    scene: Scene,
    file: String,
    panes: Vec<Pane>,
    flashes: Vec<Flashes>,
    trails: Vec<Trails>,
    colors: Vec<[f32; 3]>,
    bounds: Aabb,
    statics: StaticScene,
    camera: OrbitCamera,
    clock: FixedStep,
    /// Simulated time per wall second at ×1.
    base_speed: Real,
    /// The speed is `base_speed × 2^speed_power`, from ×1/64 to ×8.
    speed_power: i32,
    paused: bool,
    /// How the scene starts and ends; frames of one step each (`fixed`) neither pause nor
    /// hold.
    pacing: Pacing,
    /// Held at the end of the scene's run since the start or the last reset.
    held: bool,
    /// Draw the balls at the end of the last step, not on their way through it: after a
    /// step by hand and at the hold, until the clock takes its next step.
    show_end: bool,
    trails_on: bool,
    /// The statistics of each pane are shown.
    hud_on: bool,
    help: bool,
    follow: Option<usize>,
    /// The orbit before following began.
    unfollowed: Option<Orbit>,
    drag: Option<(Drag, (f32, f32))>,
    toast: Option<(String, f32)>,
    /// Approach speed change below which a contact gets no flash (resting contacts).
    flash_speed: Real,
    /// Frames advance by exactly one step: headless checks.
    fixed: bool,
    /// Steps dropped because a frame ran out of time, since the start.
    dropped_steps: u64,
}

/// Run the viewer in the window macroquad opened; `frames_drawn` counts the frames as they
/// are drawn, for the caller to report when the window is closed early.
pub(super) async fn run(
    scene: Scene,
    options: ViewOptions,
    frames_drawn: Rc<Cell<u64>>,
) -> Result<ViewSummary, ViewError> {
    let materials = Materials::load().map_err(ViewError::Shaders)?;
    let mut hud = Hud::load().map_err(ViewError::Font)?;
    let spheres = Spheres::new();
    let mut app = App::new(scene, &options);
    let mut batch = Batch::default();
    let mut frame = 0;
    loop {
        if is_key_pressed(KeyCode::Escape) {
            break;
        }
        let frame_time = if app.fixed {
            1.0 / 60.0
        } else {
            get_frame_time().min(0.25)
        };
        let take_shot = app.input();
        app.advance(frame_time);
        hud.resize(screen_height());
        app.draw(&materials, &spheres, &hud, &mut batch);
        frame += 1;
        frames_drawn.set(frame);
        let last = options.frames.is_some_and(|n| frame >= n);
        let final_shot = options.screenshot.as_deref().filter(|_| last);
        if let Some(path) = final_shot {
            capture(path)?;
        } else if take_shot {
            let stem = Path::new(&app.file)
                .file_stem()
                .map_or_else(|| "scene".into(), |s| s.to_string_lossy());
            let path = unique_name(Path::new("."), &stem);
            let message = match capture(&path) {
                Ok(()) => format!("saved {}", path.display()),
                Err(e) => e.to_string(),
            };
            app.toast = Some((message, TOAST_SECONDS));
        }
        if last {
            break;
        }
        next_frame().await;
    }
    Ok(ViewSummary {
        frames: frame,
        steps: app.panes[0].world.sim.steps(),
        screenshot: options.screenshot.clone(),
    })
}

/// Write what is on the screen now to `path`.
fn capture(path: &Path) -> Result<(), ViewError> {
    let image = get_screen_data();
    write_png(
        path,
        u32::from(image.width),
        u32::from(image.height),
        &image.bytes,
    )
}

impl App {
    fn new(scene: Scene, options: &ViewOptions) -> Self {
        let strategies = if options.strategies.is_empty() {
            vec![scene.toi.clone()]
        } else {
            options.strategies.clone()
        };
        let panes: Vec<Pane> = strategies
            .iter()
            .map(|s| Pane::new(&scene, s.clone()))
            .collect();
        let n = scene.balls.len();
        let colors = (scene.balls.iter().enumerate())
            .map(|(i, b)| b.color.unwrap_or_else(|| palette(i)))
            .collect();
        let bounds = Aabb::of_scene(&scene);
        let clip = bounds.grown(bounds.largest_extent() * 0.01);
        let statics = StaticScene::new(&scene, &clip);
        let aspect = f64::from(options.size.0) / panes.len() as f64 / f64::from(options.size.1);
        let camera = OrbitCamera::framing(&bounds, scene.gravity, aspect);
        let base_speed = base_speed(scene.dt);
        let pacing = Pacing::of_scene(&scene, bounds.largest_extent(), base_speed);
        // Frames of one step each show every step whatever the pace
        let fixed = options.frames.is_some();
        let trail_steps = (0.75 * base_speed / scene.dt).round().clamp(8.0, 240.0) as usize;
        let gravity_speed = scene.gravity.length() * scene.dt;
        let mut app = Self {
            flashes: panes.iter().map(|_| Flashes::default()).collect(),
            trails: panes.iter().map(|_| Trails::new(n, trail_steps)).collect(),
            panes,
            colors,
            bounds,
            statics,
            camera,
            clock: FixedStep::new(scene.dt, MAX_STEPS_PER_FRAME),
            base_speed,
            speed_power: pacing.speed_power,
            paused: pacing.paused && !fixed,
            pacing,
            held: false,
            show_end: false,
            trails_on: options.trails.unwrap_or(n <= TRAILS_UP_TO),
            hud_on: true,
            help: false,
            follow: None,
            unfollowed: None,
            drag: None,
            toast: None,
            flash_speed: 4.0 * gravity_speed,
            fixed,
            dropped_steps: 0,
            file: options.file.clone(),
            scene,
        };
        app.start_trails();
        app.reclock();
        app
    }

    /// Return the steps taken, by the pane furthest on (a pane stops at an error).
    fn steps(&self) -> u64 {
        self.panes
            .iter()
            .map(|p| p.world.sim.steps())
            .max()
            .unwrap_or(0)
    }

    /// Return the speed factor, `2^speed_power`.
    fn speed_factor(&self) -> Real {
        2f64.powi(self.speed_power)
    }

    /// Make a new clock for the current speed: at most 8 steps a frame at ×1, more when faster.
    fn reclock(&mut self) {
        let per_frame = (self.base_speed * self.speed_factor() / (self.scene.dt * MIN_STEP_RATE))
            .ceil()
            .max(1.0);
        let cap = (f64::from(MAX_STEPS_PER_FRAME) * per_frame).min(1024.0) as u32;
        self.clock = FixedStep::new(self.scene.dt, cap);
    }

    fn start_trails(&mut self) {
        for (trails, pane) in self.trails.iter_mut().zip(&self.panes) {
            trails.clear();
            for (i, ball) in pane.balls.iter().enumerate() {
                trails.push(i, ball.previous);
            }
        }
    }

    fn say(&mut self, message: impl Into<String>) {
        self.toast = Some((message.into(), TOAST_SECONDS));
    }

    /// Advance the clocks by a frame of `seconds` and take the steps it asks for.
    fn advance(&mut self, seconds: f32) {
        for flashes in &mut self.flashes {
            flashes.age(seconds, self.paused);
        }
        if let Some((_, left)) = &mut self.toast {
            *left -= seconds;
            if *left <= 0.0 {
                self.toast = None;
            }
        }
        if self.paused {
            return;
        }
        let steps = if self.fixed {
            self.clock.advance(self.scene.dt)
        } else {
            self.clock
                .advance(f64::from(seconds) * self.base_speed * self.speed_factor())
        };
        let started = Instant::now();
        for k in 0..steps {
            // Out of time: drop the rest, which slows the simulation instead of the window
            if !self.fixed && started.elapsed().as_secs_f64() * 1e3 > PHYSICS_BUDGET_MS {
                self.dropped_steps += u64::from(steps - k);
                break;
            }
            // Hold at the end of the scene's run, once its last step has been shown
            let over = self.steps() >= self.scene.steps;
            if self.pacing.hold_at_end && !self.fixed && !self.held && over {
                self.paused = true;
                self.held = true;
                self.show_end = true;
                break;
            }
            self.show_end = false;
            self.step_all();
        }
    }

    /// Step every pane once and feed the effects from the steps' events.
    fn step_all(&mut self) {
        // Until the drawing shows a step, its contacts and ends are not on the trails
        let wall_per_step = if self.fixed || self.show_end {
            0.0
        } else {
            self.scene.dt / (self.base_speed * self.speed_factor())
        };
        for (k, pane) in self.panes.iter_mut().enumerate() {
            if self.trails_on {
                for &(i, _, centre) in &pane.contacts {
                    self.trails[k].push(i, centre);
                }
                for (i, ball) in pane.balls.iter().enumerate() {
                    self.trails[k].push(i, ball.position);
                }
            }
            pane.step(&self.scene, self.scene.dt);
            let report = pane.world.sim.report();
            for event in &report.events {
                let Some(SceneItem::Ball(i)) = pane.world.item(event.a) else {
                    continue;
                };
                let ball = &self.scene.balls[i];
                // Skip resting contacts
                if event.impulse / ball.mass <= self.flash_speed {
                    continue;
                }
                // When the drawn ball gets there
                let delay = event.time / self.scene.dt * wall_per_step;
                self.flashes[k].add(event, ball.radius, self.colors[i], delay as f32);
            }
        }
    }

    fn draw(&mut self, materials: &Materials, spheres: &Spheres, hud: &Hud, batch: &mut Batch) {
        // A fixed frame has just taken its step, a step by hand too: show its end
        let alpha = if self.fixed || self.show_end {
            1.0
        } else {
            self.clock.alpha()
        };
        if let Some(i) = self.follow {
            self.camera.orbit.target = self.panes[0].centres(alpha)[i];
        }
        clear_background(BACKGROUND);
        let (width, height) = (screen_width(), screen_height());
        let n = self.panes.len();
        let pane_width = (width / n as f32).floor();
        for k in 0..n {
            let x = pane_width * k as f32;
            let viewport = (x as i32, 0, pane_width as i32, height as i32);
            self.draw_pane(k, viewport, alpha, materials, spheres, batch);
            set_default_camera();
            if self.hud_on {
                self.draw_hud(k, x, pane_width, hud);
            }
        }
        if n > 1 {
            for k in 1..n {
                let x = pane_width * k as f32;
                draw_rectangle(x - 1.5, 0.0, 3.0, height, Color::new(0.85, 0.87, 0.9, 1.0));
            }
        }
        if self.hud_on {
            let hint = "H: help   Tab: hide the statistics";
            hud.text(
                hint,
                width - hud.width(hint) - 12.0,
                height - 12.0,
                (height / 46.0).clamp(13.0, 22.0).round(),
                DIM,
            );
        }
        if let Some(hint) = self.run_hint() {
            hud.banner(&hint, width, height);
        }
        if self.help {
            hud.help(width, height);
        }
        if let Some((message, left)) = &self.toast {
            hud.toast(message, width, height, *left);
        }
    }

    /// Return the hint to show at the start of a paused scene and at the end of the run of a
    /// short or fast one.
    fn run_hint(&self) -> Option<String> {
        let steps = self.steps();
        let speed = speed_label(self.speed_power);
        if self.paused && steps == 0 {
            Some(format!(
                "paused at the start: Space plays at {speed}, . takes one step"
            ))
        } else if self.pacing.hold_at_end && steps >= self.scene.steps {
            let n = self.scene.steps;
            let on = if self.paused { ", Space to go on" } else { "" };
            Some(format!("the scene's {n} steps are over: R to reset{on}"))
        } else {
            None
        }
    }

    fn draw_pane(
        &self,
        k: usize,
        viewport: (i32, i32, i32, i32),
        alpha: Real,
        materials: &Materials,
        spheres: &Spheres,
        batch: &mut Batch,
    ) {
        let pane = &self.panes[k];
        let camera = &self.camera;
        set_camera(&camera.camera3d(viewport, self.bounds.radius()));
        let height = f64::from(viewport.3);
        let eye = camera.eye();
        let (right, up, forward) = camera.axes();
        let lights = Lights {
            eye: v3(eye),
            key: v3((-right * 0.65 + up * 0.6 - forward * 0.5).normalize()),
            fill: v3((right * 0.8 - up * 0.15 - forward * 0.4).normalize()),
            up: v3(camera.world_up()),
        };
        materials.set_lights(&lights);

        // Opaque and lit: cylinders, balls
        gl_use_material(&materials.lit);
        self.statics.opaque(batch);
        let mut marked = Vec::new();
        let mut turning = Vec::new();
        let centres = pane.centres(alpha);
        // Near to far, so that the depth test spares the hidden ones their shading
        let mut order: Vec<(Real, usize)> = (pane.balls.iter().enumerate())
            .map(|(i, b)| ((b.position - eye).dot(forward), i))
            .collect();
        order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        for (_, i) in order {
            let ball = &pane.balls[i];
            let center = centres[i];
            let pixel = camera.pixel_size(center, height);
            let radius = ball.radius.max(pixel * MIN_PIXELS);
            if let Some((step, from, to)) = pane.fault_paths[i] {
                // Inside the fault's step the path grows with the ball; the ring waits for the
                // step's end
                let drawn = step < pane.world.sim.steps() || alpha >= 1.0;
                let reached = if drawn { to } else { from.lerp(to, alpha) };
                marked.push(Marked {
                    center,
                    radius,
                    path: (from, reached),
                    ring: drawn,
                });
            }
            let template = spheres.for_size((radius / pixel) as f32);
            let color = rgba(self.colors[i], 1.0);
            batch.sphere(template, v3(center), radius as f32, color);
            let entity = pane.world.balls[i];
            if let Ok(turned) = pane.world.sim.world.get::<&Orientation>(entity) {
                turning.push((center, radius, turned.0));
            }
        }
        batch.flush();

        // Lines: grids, edges, and the equator and a meridian of each spinning ball
        gl_use_default_material();
        self.statics.panel_lines(eye);
        self.statics.polygon_edges();
        for &(center, radius, orientation) in &turning {
            spin_rings(center, radius, orientation);
        }

        // Translucent, each kind back to front: panels (the background), trails, fault
        // markers, glows, polygons (last, so that what passed behind one shows through it)
        gl_use_material(&materials.flat);
        self.statics.panel_fills(eye, batch);
        batch.flush();
        if self.trails_on {
            let balls = (pane.balls.iter().enumerate())
                .map(|(i, b)| (centres[i], b.radius, self.colors[i]));
            let passed = pane.contacts.iter().filter(|c| c.1 <= alpha);
            let passed = passed.map(|&(i, _, centre)| (i, centre));
            self.trails[k].draw(balls, passed, camera, height, batch);
            batch.flush();
        }
        markers::draw(&marked, camera, height, batch);
        batch.flush();
        gl_use_material(&materials.glow);
        self.flashes[k].draw(camera, height, batch);
        batch.flush();
        gl_use_material(&materials.lit);
        self.statics.polygon_fills(eye, batch);
        batch.flush();
        gl_use_default_material();
    }
}
