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
use super::effects::{Flashes, Trails};
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
use crate::sim::FixedStep;

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

    /// Return the pane under the mouse.
    fn pane_under_mouse(&self) -> usize {
        let (x, _) = mouse_position();
        let n = self.panes.len();
        ((x / screen_width() * n as f32) as usize).min(n - 1)
    }

    /// React to the keyboard and the mouse; return true when a screenshot is asked for.
    fn input(&mut self) -> bool {
        let mut shot = false;
        if is_key_pressed(KeyCode::H) || is_key_pressed(KeyCode::F1) {
            self.help = !self.help;
        }
        if is_key_pressed(KeyCode::Space) {
            self.paused = !self.paused;
            self.say(if self.paused { "paused" } else { "running" });
        }
        if is_key_pressed(KeyCode::R) {
            for pane in &mut self.panes {
                pane.reset(&self.scene);
            }
            self.flashes.iter_mut().for_each(Flashes::clear);
            self.start_trails();
            self.reclock();
            self.held = false;
            self.show_end = false;
            self.paused = self.pacing.paused && !self.fixed;
            self.say("reset to the initial state");
        }
        if is_key_pressed(KeyCode::T) {
            let k = self.pane_under_mouse();
            self.panes[k].cycle_strategy();
            let s = self.panes[k].strategy();
            self.say(format!("strategy: {s}"));
        }
        if is_key_pressed(KeyCode::F) {
            self.cycle_follow();
        }
        if is_key_pressed(KeyCode::L) {
            self.trails_on = !self.trails_on;
            self.start_trails();
            self.say(if self.trails_on {
                "trails on"
            } else {
                "trails off"
            });
        }
        if is_key_pressed(KeyCode::C) {
            self.follow = None;
            self.unfollowed = None;
            self.camera.orbit = self.camera.home;
        }
        if is_key_pressed(KeyCode::P) {
            shot = true;
        }
        if is_key_pressed(KeyCode::Tab) {
            self.hud_on = !self.hud_on;
            if !self.hud_on {
                self.say("statistics hidden: Tab shows them");
            }
        }
        // By character, whatever the keyboard layout (the keypad's + and - included)
        let mut step_once = false;
        while let Some(c) = get_char_pressed() {
            match c {
                '+' | '=' => self.change_slices(true),
                '-' | '_' => self.change_slices(false),
                '[' => self.change_speed(-1),
                ']' => self.change_speed(1),
                '.' => step_once = true,
                _ => {}
            }
        }
        if step_once {
            self.paused = true;
            self.step_all();
            self.show_end = true;
        }
        self.mouse();
        shot
    }

    fn change_slices(&mut self, up: bool) {
        let k = self.pane_under_mouse();
        self.panes[k].change_slices(up);
        let n = self.panes[k].slices;
        self.say(format!("slices: {n} ({})", self.panes[k].strategy()));
    }

    fn change_speed(&mut self, by: i32) {
        self.speed_power = (self.speed_power + by).clamp(SLOWEST, FASTEST);
        self.reclock();
        self.say(format!("speed {}", speed_label(self.speed_power)));
    }

    fn cycle_follow(&mut self) {
        let n = self.scene.balls.len();
        self.follow = match self.follow {
            None if n > 0 => Some(0),
            Some(i) if i + 1 < n => Some(i + 1),
            _ => None,
        };
        match self.follow {
            Some(i) => {
                if self.unfollowed.is_none() {
                    self.unfollowed = Some(self.camera.orbit);
                }
                let r = self.scene.balls[i].radius;
                self.camera.orbit.distance = (15.0 * r).max(0.25 * self.bounds.radius());
                self.say(format!("following {}", self.scene.ball_label(i)));
            }
            None => {
                if let Some(orbit) = self.unfollowed.take() {
                    self.camera.orbit = orbit;
                }
                self.say("following off");
            }
        }
    }

    fn mouse(&mut self) {
        let position = mouse_position();
        let shift = is_key_down(KeyCode::LeftShift) || is_key_down(KeyCode::RightShift);
        if is_mouse_button_pressed(MouseButton::Left) {
            self.drag = Some((if shift { Drag::Pan } else { Drag::Orbit }, position));
        } else if is_mouse_button_pressed(MouseButton::Right)
            || is_mouse_button_pressed(MouseButton::Middle)
        {
            self.drag = Some((Drag::Pan, position));
        }
        let held = is_mouse_button_down(MouseButton::Left)
            || is_mouse_button_down(MouseButton::Right)
            || is_mouse_button_down(MouseButton::Middle);
        if !held {
            self.drag = None;
        }
        if let Some((kind, last)) = self.drag {
            let (dx, dy) = (
                f64::from(position.0 - last.0),
                f64::from(position.1 - last.1),
            );
            match kind {
                Drag::Orbit => self.camera.rotate(dx, dy),
                Drag::Pan => {
                    self.camera.pan(dx, dy, f64::from(screen_height()));
                    self.follow = None;
                    self.unfollowed = None;
                }
            }
            self.drag = Some((kind, position));
        }
        let (_, wheel) = mouse_wheel();
        if wheel != 0.0 {
            self.camera.zoom(f64::from(wheel.signum()));
        }
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
        }
        batch.flush();

        // Lines: grids, edges
        gl_use_default_material();
        self.statics.panel_lines(eye);
        self.statics.polygon_edges();

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

    fn draw_hud(&self, k: usize, x: f32, width: f32, hud: &Hud) {
        let pane = &self.panes[k];
        let sim = &pane.world.sim;
        let report = sim.report();
        let mut lines = Vec::with_capacity(12);
        let title = if self.scene.name.is_empty() {
            self.file.clone()
        } else {
            self.scene.name.clone()
        };
        lines.push(Line::title(title));
        if !self.file.is_empty() && !self.scene.name.is_empty() {
            lines.push(Line::new(self.file.clone(), DIM));
        }
        let label = if self.panes.len() > 1 {
            format!("{} pane: {}", ["left", "right"][k.min(1)], pane.strategy())
        } else {
            format!("strategy {}", pane.strategy())
        };
        lines.push(Line::new(label, ACCENT));
        let state = if self.paused { "  paused" } else { "" };
        let (steps, run) = (sim.steps(), self.scene.steps);
        let of = if steps <= run {
            format!("{steps} of {run}")
        } else {
            format!("{steps} (the scene's run: {run})")
        };
        lines.push(Line::new(
            format!(
                "time {}   steps {of}   speed {}{state}",
                short(sim.time()),
                speed_label(self.speed_power)
            ),
            TEXT,
        ));
        lines.push(Line::new(
            format!(
                "collisions {} this step, {} in all",
                report.stats.collisions, pane.totals.collisions
            ),
            TEXT,
        ));
        let (start, now) = pane.energy;
        let change = if start == 0.0 {
            format!("change {}", sci(now - start))
        } else {
            format!("drift {}", percent(drift(start, now)))
        };
        let potential = if self.scene.gravity == Vec3::ZERO {
            ""
        } else {
            " (kinetic + potential)"
        };
        lines.push(Line::new(
            format!("energy {}{potential}   {change}", sci(now)),
            TEXT,
        ));
        // Under gravity kinetic energy trades with height: shown, not judged
        if self.scene.gravity != Vec3::ZERO {
            lines.push(Line::new(
                format!(
                    "kinetic {}, at the start {}",
                    sci(pane.kinetic()),
                    sci(pane.kinetic_start)
                ),
                DIM,
            ));
        }
        let (escaped, through) = pane.faults.counts();
        lines.push(Line::new(
            format!("escaped {escaped}   passed through {through}"),
            if escaped + through > 0 { FAULT } else { TEXT },
        ));
        let (cap_hits, stopped) = (pane.totals.events_cap_hits, pane.totals.stopped);
        lines.push(Line::new(
            format!("cap hits {cap_hits} ({stopped} balls stopped short)"),
            if cap_hits > 0 { WARN } else { TEXT },
        ));
        let ms = pane
            .physics_ms
            .map_or_else(|| "-".to_owned(), |ms| format!("{ms:.3}"));
        let rate = if self.fixed {
            "one step a frame".to_owned()
        } else {
            format!("{} fps", get_fps())
        };
        lines.push(Line::new(format!("physics {ms} ms/step   {rate}"), TEXT));
        let mut status = Vec::new();
        if let Some(i) = self.follow {
            status.push(format!("following ball {i}"));
        }
        if self.trails_on {
            status.push("trails".to_owned());
        }
        if self.dropped_steps > 0 && k == 0 {
            status.push(format!(
                "{} steps dropped (slow frames)",
                self.dropped_steps
            ));
        }
        if !status.is_empty() {
            lines.push(Line::new(status.join("   "), DIM));
        }
        if let Some(error) = &pane.error {
            lines.push(Line::new(format!("stopped: {error}"), WARN));
        }
        let margin = 10.0;
        hud.panel(x + margin, margin, width - 2.0 * margin, &lines);
    }
}

/// Return `x` with at most 3 decimals and no trailing zeros.
fn short(x: Real) -> String {
    let text = format!("{x:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_owned()
}

/// Return `x` in scientific notation with 3 significant digits (and no minus zero).
fn sci(x: Real) -> String {
    format!("{:.2e}", x + 0.0)
}

/// Return a relative value as a signed percentage.
fn percent(x: Real) -> String {
    if x.abs() < 5e-7 {
        "0%".to_owned()
    } else if x.abs() < 1e-3 {
        format!("{:+.1e}%", x * 100.0)
    } else {
        format!("{:+.2}%", x * 100.0)
    }
}
