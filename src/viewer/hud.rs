//! Text on the screen: the statistics box of each pane, the help overlay, short messages.

use macroquad::color::Color;
use macroquad::shapes::{draw_rectangle, draw_rectangle_lines};
use macroquad::text::{Font, TextParams, draw_text_ex, load_ttf_font_from_bytes, measure_text};

use super::markers;

/// DejaVu Sans, cut down to Latin, Greek and common symbols (as the plots use).
static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-subset.ttf");

/// Text colours.
pub(crate) const TEXT: Color = Color::new(0.92, 0.93, 0.95, 1.0);
/// Secondary text.
pub(crate) const DIM: Color = Color::new(0.62, 0.66, 0.72, 1.0);
/// Warnings: cap hits, errors.
pub(crate) const WARN: Color = Color::new(1.0, 0.42, 0.36, 1.0);
/// The judge's faults: the colour of their markers.
pub(crate) const FAULT: Color =
    Color::new(markers::FAULT[0], markers::FAULT[1], markers::FAULT[2], 1.0);
/// Headings.
pub(crate) const ACCENT: Color = Color::new(1.0, 0.78, 0.35, 1.0);

/// One line of the HUD.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// The text.
    pub text: String,
    /// Its colour.
    pub color: Color,
    /// Drawn larger, as a title.
    pub title: bool,
}

impl Line {
    /// A line of `text` in `color`.
    #[must_use]
    pub fn new(text: impl Into<String>, color: Color) -> Self {
        Self {
            text: text.into(),
            color,
            title: false,
        }
    }

    /// A title line.
    #[must_use]
    pub fn title(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            color: TEXT,
            title: true,
        }
    }
}

/// The HUD's font and sizes.
pub(crate) struct Hud {
    font: Font,
    /// Font size of ordinary lines, in pixels.
    size: f32,
}

impl Hud {
    /// Load the font.
    pub fn load() -> Result<Self, macroquad::Error> {
        let font = load_ttf_font_from_bytes(FONT)?;
        Ok(Self { font, size: 16.0 })
    }

    /// Size the text for a window `height` pixels high.
    pub fn resize(&mut self, height: f32) {
        self.size = (height / 46.0).clamp(13.0, 22.0).round();
    }

    fn size_of(&self, line: &Line) -> f32 {
        if line.title {
            (self.size * 1.2).round()
        } else {
            self.size
        }
    }

    /// Return the width of `text` at the ordinary size.
    #[must_use]
    pub fn width(&self, text: &str) -> f32 {
        measure_text(text, Some(&self.font), self.size as u16, 1.0).width
    }

    /// Draw `text` with its baseline at `(x, y)`.
    pub fn text(&self, text: &str, x: f32, y: f32, size: f32, color: Color) {
        draw_text_ex(
            text,
            x,
            y,
            TextParams {
                font: Some(&self.font),
                font_size: size as u16,
                color,
                ..TextParams::default()
            },
        );
    }

    /// Draw `lines` in a dark translucent box whose top left corner is `(x, y)`, at most
    /// `max_width` wide; return the box's height.
    pub fn panel(&self, x: f32, y: f32, max_width: f32, lines: &[Line]) -> f32 {
        let pad = (self.size * 0.7).round();
        let gap = (self.size * 0.42).round();
        let width = lines
            .iter()
            .map(|l| measure_text(&l.text, Some(&self.font), self.size_of(l) as u16, 1.0).width)
            .fold(0.0, f32::max)
            + 2.0 * pad;
        let width = width.min(max_width);
        let height = lines.iter().map(|l| self.size_of(l) + gap).sum::<f32>() + 2.0 * pad - gap;
        draw_rectangle(x, y, width, height, Color::new(0.04, 0.05, 0.07, 0.72));
        draw_rectangle_lines(x, y, width, height, 1.0, Color::new(1.0, 1.0, 1.0, 0.12));
        let mut baseline = y + pad;
        for line in lines {
            let size = self.size_of(line);
            baseline += size * 0.8;
            self.text(&line.text, x + pad, baseline, size, line.color);
            baseline += size * 0.2 + gap;
        }
        height
    }

    /// Draw a message centred near the bottom of a `width` × `height` window.
    pub fn toast(&self, text: &str, width: f32, height: f32, fade: f32) {
        self.bar(text, width, height, 0.0, fade, false);
    }

    /// Draw a hint that stays, centred above the place of messages, framed to stand out.
    pub fn banner(&self, text: &str, width: f32, height: f32) {
        self.bar(text, width, height, 1.0, 1.0, true);
    }

    /// Draw `text` in a box centred `row` boxes above the message place, faded to `fade`.
    fn bar(&self, text: &str, width: f32, height: f32, row: f32, fade: f32, framed: bool) {
        let pad = self.size * 0.7;
        let w = self.width(text) + 2.0 * pad;
        let h = self.size + 2.0 * pad;
        let x = (width - w) * 0.5;
        let y = height - h - self.size * 2.5 - row * (h + self.size * 0.6);
        let alpha = fade.clamp(0.0, 1.0);
        draw_rectangle(x, y, w, h, Color::new(0.04, 0.05, 0.07, 0.8 * alpha));
        if framed {
            draw_rectangle_lines(x, y, w, h, 1.5, Color { a: 0.6, ..ACCENT });
        }
        let color = Color { a: alpha, ..ACCENT };
        self.text(text, x + pad, y + pad + self.size * 0.8, self.size, color);
    }

    /// Draw the help overlay in the middle of a `width` × `height` window.
    pub fn help(&self, width: f32, height: f32) {
        const KEYS: [(&str, &str); 19] = [
            ("mouse drag", "orbit"),
            ("wheel", "zoom"),
            ("Shift+drag, right drag", "pan"),
            ("Space", "pause / run"),
            (".", "one step (when paused)"),
            ("R", "reset to the initial state"),
            ("T", "next TOI strategy (pane under the mouse)"),
            ("+ / -", "more / fewer slices (sliced strategies)"),
            ("[ / ]", "slower / faster (×1/64 … ×8)"),
            ("F", "follow a ball: next ball, then off"),
            ("L", "trails on / off"),
            ("P", "save a screenshot (PNG, current directory)"),
            ("C", "frame the whole scene again"),
            ("Tab", "hide / show the statistics"),
            ("H, F1", "this help"),
            ("Esc", "quit"),
            (
                "magenta ring",
                "a fault: the ball escaped (behind a plane, in a",
            ),
            ("", "cylinder) or passed into or through something"),
            (
                "magenta line",
                "its path in the step the fault was found in",
            ),
        ];
        let key_width = KEYS.iter().map(|(k, _)| self.width(k)).fold(0.0, f32::max);
        let text_width = KEYS.iter().map(|(_, t)| self.width(t)).fold(0.0, f32::max);
        let pad = self.size * 1.2;
        let line = self.size * 1.45;
        let w = key_width + text_width + 3.0 * pad;
        let h = line * (KEYS.len() as f32 + 1.6) + 2.0 * pad;
        let (x, y) = ((width - w) * 0.5, (height - h) * 0.5);
        draw_rectangle(x, y, w, h, Color::new(0.03, 0.04, 0.06, 0.88));
        draw_rectangle_lines(x, y, w, h, 1.5, Color::new(1.0, 0.78, 0.35, 0.5));
        let mut baseline = y + pad + self.size * 1.2;
        self.text("toibox viewer", x + pad, baseline, self.size * 1.2, ACCENT);
        baseline += line * 1.6;
        for (key, what) in KEYS {
            self.text(key, x + pad, baseline, self.size, ACCENT);
            self.text(what, x + 2.0 * pad + key_width, baseline, self.size, TEXT);
            baseline += line;
        }
    }
}
