//! The keyboard and the mouse: what each key and drag does to the app.

use super::*;

impl App {
    /// Return the pane under the mouse.
    pub(super) fn pane_under_mouse(&self) -> usize {
        let (x, _) = mouse_position();
        let n = self.panes.len();
        ((x / screen_width() * n as f32) as usize).min(n - 1)
    }

    /// React to the keyboard and the mouse; return true when a screenshot is asked for.
    pub(super) fn input(&mut self) -> bool {
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

    pub(super) fn change_slices(&mut self, up: bool) {
        let k = self.pane_under_mouse();
        self.panes[k].change_slices(up);
        let n = self.panes[k].slices;
        self.say(format!("slices: {n} ({})", self.panes[k].strategy()));
    }

    pub(super) fn change_speed(&mut self, by: i32) {
        self.speed_power = (self.speed_power + by).clamp(SLOWEST, FASTEST);
        self.reclock();
        self.say(format!("speed {}", speed_label(self.speed_power)));
    }

    pub(super) fn cycle_follow(&mut self) {
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

    pub(super) fn mouse(&mut self) {
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
}
