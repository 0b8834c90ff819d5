//! The viewer: a scene in 3D with macroquad, stepped live (feature `viewer`).
//!
//! The viewer is a thin caller of the library: it builds the scene's world, steps it at the
//! scene's fixed `dt` through [`FixedStep`](crate::FixedStep), and draws each ball on its path
//! from its [`PreviousPosition`](crate::PreviousPosition) through the step's contacts (the
//! stepper's events) to its [`Position`](crate::Position), at the clock's interpolation factor
//! (a flash waits for the drawn ball to reach its contact). The motion is smooth at any frame rate, and after `n` steps
//! the state is bit for bit that of `toibox run` with `n` steps and the same strategy.
//!
//! Simulated time runs at wall-clock speed, or at one step per sixtieth of a second when a
//! step is longer than that (NeHe's room steps 0.6 time units a frame); `[` and `]` scale it
//! from ×1/64 to ×8. A short or fast scene starts slowed, or paused with a hint (`Space`
//! plays, `.` takes one step) when even ×1/64 is too fast, and holds at the end of its run
//! with a hint to reset (`R`); the rule is in `pacing.rs`: the run should last 5 s and the
//! fastest ball take a quarter of a second to cross the scene.
//!
//! What it shows: balls as lit spheres in their colours (a palette colour by ball number
//! when a ball has none); planes as translucent panels with a grid, clipped to the box of the
//! scene's balls and finite shapes (slightly enlarged); cylinders (infinite ones crossing the
//! box) and polygons; a flash at each contact and, optionally, trails; a HUD per pane, which
//! `Tab` hides and shows: the strategy, time and steps, collisions, the energy (kinetic plus
//! gravity's potential) and its drift, under gravity the kinetic energy on a line of its own
//! (it trades with height), faults, cap hits and timings. Two strategies side by side (`compare`) share one camera. A ball that
//! the library's judge finds escaped or passed through something keeps its colour and gets
//! a magenta ring, with a magenta line for its path in the step the fault was found in; that
//! colour marks faults and nothing else. `H` or `F1` lists the keys.
//!
//! With `frames` set, every frame advances exactly one step (a fixed frame time of `dt`), so
//! the picture after `n` frames does not depend on the machine, and nothing starts paused or
//! holds; with `screenshot` set, the last frame is written to a PNG.
//!
//! ```no_run
//! use toibox::scene::Scene;
//! use toibox::viewer::{self, ViewOptions};
//!
//! let scene = Scene::load("scenes/nehe_room.ron").unwrap();
//! let options = ViewOptions {
//!     frames: Some(120),
//!     screenshot: Some("nehe.png".into()),
//!     ..ViewOptions::default()
//! };
//! viewer::view(scene, options).unwrap();
//! ```

mod app;
mod bounds;
mod camera;
mod effects;
mod hud;
mod markers;
mod pacing;
mod pane;
mod render;
mod screenshot;

use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::rc::Rc;

use crate::output::OutputError;
use crate::scene::Scene;
use crate::toi::{ParseToiModeError, ToiMode};

/// Most panes side by side.
pub const MAX_PANES: usize = 2;

/// Widths and heights a window may have, in pixels.
pub const WINDOW_SIZES: std::ops::RangeInclusive<u32> = 64..=16384;

/// How to show a scene.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewOptions {
    /// How the HUD names the scene's file.
    pub file: String,
    /// The strategy of each pane: empty for one pane with the scene's own strategy, one for
    /// one pane, two for a side-by-side comparison.
    pub strategies: Vec<ToiMode>,
    /// Close after this many frames; `None` runs until the user quits. Each frame then
    /// takes exactly one step.
    pub frames: Option<u64>,
    /// Write the last frame to this PNG (needs `frames`).
    pub screenshot: Option<PathBuf>,
    /// The window's size in pixels, each at least 64.
    pub size: (u32, u32),
    /// Trails on at the start; `None`: on for scenes of at most 50 balls.
    pub trails: Option<bool>,
}

impl Default for ViewOptions {
    fn default() -> Self {
        Self {
            file: String::new(),
            strategies: Vec::new(),
            frames: None,
            screenshot: None,
            size: (1280, 800),
            trails: None,
        }
    }
}

/// What a finished view did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewSummary {
    /// Frames drawn.
    pub frames: u64,
    /// Steps taken (by each pane).
    pub steps: u64,
    /// The screenshot written at the end, if asked for.
    pub screenshot: Option<PathBuf>,
}

/// Why the viewer could not show a scene, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// More strategies to compare than [`MAX_PANES`]; found before any window opens.
    #[error("{count} strategies to compare; allowed: at most {MAX_PANES}, e.g. analytic,sliced:20")]
    TooManyPanes {
        /// Strategies asked for.
        count: usize,
    },
    /// A strategy to compare has a bad parameter; found before any window opens.
    #[error(transparent)]
    Strategy(#[from] ParseToiModeError),
    /// The window size is out of [`WINDOW_SIZES`]; found before any window opens.
    #[error(
        "window size {width}x{height}; allowed: {} to {} pixels each way",
        WINDOW_SIZES.start(),
        WINDOW_SIZES.end()
    )]
    Size {
        /// Width asked for, in pixels.
        width: u32,
        /// Height asked for, in pixels.
        height: u32,
    },
    /// Zero frames asked for; found before any window opens.
    #[error("0 frames; allowed: 1 or more")]
    NoFrames,
    /// A screenshot was asked for without a number of frames to take it after.
    #[error("a screenshot needs --frames N: it is the last of N frames")]
    ScreenshotWithoutFrames,
    /// The screenshot's path cannot be written, or writing it failed.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The screen gave fewer or more bytes than its size needs.
    #[error(
        "{}: cannot write: the screen gave {bytes} bytes for {width}x{height} pixels",
        path.display()
    )]
    ScreenData {
        /// The screenshot's path.
        path: PathBuf,
        /// Bytes given.
        bytes: usize,
        /// Width, in pixels.
        width: u32,
        /// Height, in pixels.
        height: u32,
    },
    /// There is no display to open a window on; found before any window opens.
    #[error(
        "no display to open the viewer on (DISPLAY and WAYLAND_DISPLAY are unset); \
         run it under xvfb-run for a virtual one, or use `toibox run`"
    )]
    NoDisplay,
    /// The viewer's shaders did not compile.
    #[error("cannot compile the viewer's shaders: {0}")]
    Shaders(#[source] macroquad::Error),
    /// The viewer's font did not load.
    #[error("cannot load the viewer's font: {0}")]
    Font(#[source] macroquad::Error),
    /// The window closed before the frames asked for were drawn.
    #[error("the window closed after {frames} of {asked} frames")]
    Closed {
        /// Frames drawn.
        frames: u64,
        /// Frames asked for.
        asked: u64,
    },
}

/// Check `options` without opening anything: pane count, size, frames, the screenshot's
/// directory, and a display to open a window on.
pub fn check(options: &ViewOptions) -> Result<(), ViewError> {
    if options.strategies.len() > MAX_PANES {
        return Err(ViewError::TooManyPanes {
            count: options.strategies.len(),
        });
    }
    for strategy in &options.strategies {
        strategy.validate()?;
    }
    let (width, height) = options.size;
    if !(WINDOW_SIZES.contains(&width) && WINDOW_SIZES.contains(&height)) {
        return Err(ViewError::Size { width, height });
    }
    if options.frames == Some(0) {
        return Err(ViewError::NoFrames);
    }
    if let Some(path) = &options.screenshot {
        if options.frames.is_none() {
            return Err(ViewError::ScreenshotWithoutFrames);
        }
        crate::output::check(path, crate::output::Output::Screenshot)?;
    }
    #[cfg(all(unix, not(target_os = "macos")))]
    if std::env::var_os("DISPLAY").is_none_or(|d| d.is_empty())
        && std::env::var_os("WAYLAND_DISPLAY").is_none_or(|d| d.is_empty())
    {
        return Err(ViewError::NoDisplay);
    }
    Ok(())
}

/// Open a window on `scene` and run until the user quits or the frames asked for are drawn.
///
/// Checks the options first ([`check`]); returns when the window has closed. The window is
/// macroquad's: this must be called at most once per process, from the main thread.
pub fn view(scene: Scene, options: ViewOptions) -> Result<ViewSummary, ViewError> {
    check(&options)?;
    let title = if scene.name.is_empty() {
        format!("toibox: {}", options.file)
    } else {
        format!("toibox: {}", scene.name)
    };
    let conf = macroquad::conf::Conf {
        miniquad_conf: macroquad::miniquad::conf::Conf {
            window_title: title,
            window_width: options.size.0 as i32,
            window_height: options.size.1 as i32,
            high_dpi: false,
            sample_count: 1,
            window_resizable: options.frames.is_none(),
            ..Default::default()
        },
        // A draw call holds one batch (macroquad wants a little more room than it gets);
        // more would only take memory
        draw_call_vertex_capacity: render::BATCH_VERTICES + 1024,
        draw_call_index_capacity: render::BATCH_INDICES + 1024,
        ..Default::default()
    };
    let asked = options.frames;
    let outcome: Rc<RefCell<Option<Result<ViewSummary, ViewError>>>> = Rc::default();
    let frames = Rc::new(Cell::new(0));
    let (slot, counter) = (Rc::clone(&outcome), Rc::clone(&frames));
    macroquad::Window::from_config(conf, async move {
        let result = app::run(scene, options, counter).await;
        *slot.borrow_mut() = Some(result);
    });
    let result = outcome.borrow_mut().take();
    match (result, asked) {
        (Some(result), _) => result,
        // Closed by the user or the window manager before the loop ended
        (None, Some(asked)) => Err(ViewError::Closed {
            frames: frames.get(),
            asked,
        }),
        (None, None) => Ok(ViewSummary {
            frames: frames.get(),
            ..ViewSummary::default()
        }),
    }
}
