//! The viewer in a real window: `toibox view SCENE --frames N --screenshot FILE` renders the
//! scene and the PNG is checked for what it should show.
//!
//! Every render runs the built binary, directly when `DISPLAY` is set, else under `xvfb-run`
//! (a virtual X server; Mesa draws). Without either, the render tests skip with a message, or
//! fail when `CI` is set: CI must run them. The checks on a picture: its size; not blank
//! (many distinct colours, much of it not background); the scene's ball colours present
//! (pixels close in hue to each saturated colour, outside the HUD's corner; a quarter of the
//! colours may be hidden behind something); the balls shaded, not flat; the HUD's text in
//! each pane; in a comparison, the divider between the two panes, and the fault marker's
//! colour only in the pane whose balls the judge faulted.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

use toibox::scene::Scene;

/// One render at a time: `xvfb-run -a` picks a free display number, racily.
static RENDER: Mutex<()> = Mutex::new(());

/// How windows can be opened here.
enum Display {
    /// A display is set: run the binary as is.
    Direct,
    /// Run it under `xvfb-run`.
    Xvfb,
}

/// Return how to open a window, or `None` after saying why the test skips; panic when `CI`
/// is set and no window can be opened.
fn display() -> Option<Display> {
    if std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty()) {
        return Some(Display::Direct);
    }
    let xvfb = Command::new("xvfb-run").arg("--help").output().is_ok();
    if xvfb {
        return Some(Display::Xvfb);
    }
    let why = "no DISPLAY and no xvfb-run: the viewer cannot open a window \
               (install xvfb, xauth and Mesa's libgl1-mesa-dri, as .ci/run does)";
    if std::env::var_os("CI").is_some() {
        panic!("CI is set, so the viewer must be tested: {why}");
    }
    // Past the test harness's capture, so that the skip shows in a plain `cargo test`
    let _ = writeln!(std::io::stderr(), "viewer test skipped: {why}");
    None
}

/// Run `toibox` with `args` from the crate root, under `display`.
fn toibox(display: &Display, args: &[&str]) -> Output {
    let binary = env!("CARGO_BIN_EXE_toibox");
    let mut command = match display {
        Display::Direct => Command::new(binary),
        Display::Xvfb => {
            let mut c = Command::new("xvfb-run");
            c.args(["-a", "-s", "-screen 0 1600x1000x24", binary]);
            c
        }
    };
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

/// A picture: RGB rows, top down. Its file is removed when the test passes and kept for a
/// look when it fails.
struct Picture {
    path: PathBuf,
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

impl Drop for Picture {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("the screenshot is kept: {}", self.path.display());
        } else {
            let _ = std::fs::remove_file(&self.path);
            if let Some(dir) = self.path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
}

impl Picture {
    fn read(path: &Path) -> Self {
        let file = std::fs::File::open(path).expect("the screenshot exists");
        let mut reader = png::Decoder::new(file).read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("a PNG frame");
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("unexpected colour type {other:?}"),
        };
        let rgb = buf[..info.buffer_size()]
            .chunks_exact(channels)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        Self {
            path: path.to_owned(),
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }

    /// The pixels of the rectangle `[x0, x1) × [y0, y1)`.
    fn region(&self, x0: usize, x1: usize, y0: usize, y1: usize) -> impl Iterator<Item = [u8; 3]> {
        (y0..y1).flat_map(move |y| (x0..x1).map(move |x| self.at(x, y)))
    }

    /// The pixels of pane `k` of `n` outside the HUD's corner (the top left 45% by 45%).
    fn scene_pixels(&self, k: usize, n: usize) -> Vec<[u8; 3]> {
        let (x0, x1) = (self.width * k / n, self.width * (k + 1) / n);
        let (hud_x, hud_y) = (x0 + (x1 - x0) * 45 / 100, self.height * 45 / 100);
        (0..self.height)
            .flat_map(|y| (x0..x1).map(move |x| (x, y)))
            .filter(|&(x, y)| x >= hud_x || y >= hud_y)
            .map(|(x, y)| self.at(x, y))
            .collect()
    }
}

/// Hue in degrees, saturation and value of an RGB colour in `[0, 1]`.
fn hsv([r, g, b]: [f32; 3]) -> (f32, f32, f32) {
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let delta = max - min;
    let hue = if delta == 0.0 {
        0.0
    } else if max == r {
        60.0 * ((g - b) / delta).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / delta + 2.0)
    } else {
        60.0 * ((r - g) / delta + 4.0)
    };
    let saturation = if max == 0.0 { 0.0 } else { delta / max };
    (hue, saturation, max)
}

fn bytes_hsv(p: [u8; 3]) -> (f32, f32, f32) {
    hsv(p.map(|c| f32::from(c) / 255.0))
}

/// Count the pixels close in hue (±12°) to `color`, saturated and not dark: lit shading
/// changes the brightness of a ball, not its hue.
fn count_hue(pixels: &[[u8; 3]], color: [f32; 3]) -> usize {
    let (hue, _, _) = hsv(color);
    pixels
        .iter()
        .filter(|&&p| {
            let (h, s, v) = bytes_hsv(p);
            let d = (h - hue).abs();
            d.min(360.0 - d) <= 12.0 && s >= 0.35 && v >= 0.25
        })
        .count()
}

/// The saturated colours of a scene's balls, one each.
fn saturated_colors(scene: &Scene) -> Vec<[f32; 3]> {
    let mut colors: Vec<[f32; 3]> = Vec::new();
    for c in scene.balls.iter().filter_map(|b| b.color) {
        let (_, saturation, value) = hsv(c);
        if saturation >= 0.5 && value >= 0.4 && !colors.contains(&c) {
            colors.push(c);
        }
    }
    colors
}

/// Render `scene` with `extra` arguments for `frames` frames at `size` and return the picture;
/// `None` when the test skips.
fn render(scene: &str, extra: &[&str], frames: u32, size: &str) -> Option<Picture> {
    let display = display()?;
    let _one_at_a_time = RENDER.lock().unwrap_or_else(|e| e.into_inner());
    let name = Path::new(scene).file_stem().unwrap().to_string_lossy();
    let dir = scratch(&format!("{name}-{}", extra.len()));
    let path = dir.join("shot.png");
    let _ = std::fs::remove_file(&path);
    let frames = frames.to_string();
    let path_text = path.display().to_string();
    let mut args = vec![
        "view",
        scene,
        "--frames",
        &frames,
        "--screenshot",
        &path_text,
        "--size",
        size,
    ];
    args.extend_from_slice(extra);
    let out = toibox(&display, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "toibox {args:?} failed: {stderr}");
    // One step a frame, whatever the machine's speed
    let summary = format!("{frames} frames, {frames} steps");
    assert!(stderr.contains(&summary), "{args:?}: {stderr}");
    let picture = Picture::read(&path);
    let partials = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".partial")
        })
        .count();
    assert_eq!(partials, 0, "a partial file was left behind");
    Some(picture)
}

/// A directory of this run for the files of `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toibox-viewer-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Check that `picture` is `width` × `height`, not blank, and has a HUD in each of its `n`
/// panes.
fn check_picture(picture: &Picture, width: usize, height: usize, n: usize) {
    assert_eq!((picture.width, picture.height), (width, height));
    let background = picture.at(width / n / 2, height - 3);
    let differing = picture
        .rgb
        .iter()
        .filter(|p| p.iter().zip(&background).any(|(a, b)| a.abs_diff(*b) > 12))
        .count();
    assert!(
        differing * 20 > picture.rgb.len(),
        "blank: only {differing} of {} pixels differ from the background",
        picture.rgb.len()
    );
    let mut distinct: Vec<[u8; 3]> = picture.rgb.iter().map(|p| p.map(|c| c >> 3)).collect();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(
        distinct.len() > 300,
        "only {} distinct colours",
        distinct.len()
    );
    for k in 0..n {
        // Light text on the dark box at the pane's top left
        let x0 = width * k / n;
        let text = picture
            .region(x0 + 12, x0 + 240, 12, 90)
            .filter(|&p| {
                let (_, s, v) = bytes_hsv(p);
                s < 0.2 && v > 0.7
            })
            .count();
        assert!(text > 150, "pane {k}: no HUD text ({text} light pixels)");
    }
}

/// Check that pane `k` of `n` shows the saturated ball colours of `scene`, each in at least
/// `least` pixels, but for `may_miss` of them (hidden behind a pole, off the screen).
fn check_colors(
    picture: &Picture,
    scene: &Scene,
    (k, n): (usize, usize),
    least: usize,
    may_miss: usize,
) {
    let pixels = picture.scene_pixels(k, n);
    let colors = saturated_colors(scene);
    assert!(!colors.is_empty());
    let missing: Vec<([f32; 3], usize)> = colors
        .iter()
        .map(|&c| (c, count_hue(&pixels, c)))
        .filter(|&(_, found)| found < least)
        .collect();
    assert!(
        missing.len() <= may_miss,
        "pane {k}: {} of {} ball colours missing (colour, pixels near its hue; at least {least} \
         expected): {missing:?}",
        missing.len(),
        colors.len()
    );
}

fn load(scene: &str) -> Scene {
    Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join(scene)).expect("a demo scene")
}

/// Seven balls in a ring on a floor, nothing in front of them: every colour must show.
const RING: &str = r#"Scene(
    name: "Colour ring",
    dt: 0.01,
    gravity: (0.0, -9.81, 0.0),
    balls: [
        (pos: (1.0, 0.3, 0.0), radius: 0.3, color: (1.0, 0.0, 0.0)),
        (pos: (0.62, 0.3, 0.78), radius: 0.3, color: (1.0, 0.55, 0.0)),
        (pos: (-0.22, 0.3, 0.97), radius: 0.3, color: (0.95, 0.9, 0.1)),
        (pos: (-0.9, 0.3, 0.43), radius: 0.3, color: (0.1, 0.8, 0.2)),
        (pos: (-0.9, 0.3, -0.43), radius: 0.3, color: (0.0, 0.8, 0.9)),
        (pos: (-0.22, 0.3, -0.97), radius: 0.3, color: (0.15, 0.25, 1.0)),
        (pos: (0.62, 0.3, -0.78), radius: 0.3, color: (0.8, 0.1, 0.9)),
    ],
    planes: [(point: (0.0, 0.0, 0.0), normal: (0.0, 1.0, 0.0))],
)"#;

#[test]
fn every_ball_colour_shows_on_shaded_balls() {
    let dir = scratch("ring-scene");
    let file = dir.join("ring.ron");
    std::fs::write(&file, RING).expect("a scene file");
    let path = file.display().to_string();
    let picture = render(&path, &[], 10, "1024x640");
    std::fs::remove_file(&file).expect("the scene file is there");
    std::fs::remove_dir(&dir).expect("an empty directory");
    let Some(picture) = picture else {
        return;
    };
    check_picture(&picture, 1024, 640, 1);
    let scene = Scene::parse(RING, "ring.ron").expect("the ring");
    check_colors(&picture, &scene, (0, 1), 400, 0);
    // Shaded, not flat: each ball shows many levels of brightness
    for ball in &scene.balls {
        let color = ball.color.unwrap();
        let (hue, _, _) = hsv(color);
        let mut levels: Vec<u8> = picture
            .rgb
            .iter()
            .filter(|&&p| {
                let (h, s, v) = bytes_hsv(p);
                let d = (h - hue).abs();
                d.min(360.0 - d) <= 8.0 && s > 0.5 && v > 0.15
            })
            .map(|&p| p.into_iter().max().unwrap())
            .collect();
        levels.sort_unstable();
        levels.dedup();
        assert!(levels.len() > 40, "{color:?}: only {} levels", levels.len());
    }
}

#[test]
fn the_nehe_room_shows_its_shaded_balls_in_their_colours() {
    let Some(picture) = render("scenes/nehe_room.ron", &[], 200, "1024x640") else {
        return;
    };
    check_picture(&picture, 1024, 640, 1);
    // The central pole hides some of the ten balls from the starting view
    check_colors(&picture, &load("scenes/nehe_room.ron"), (0, 1), 20, 4);
    // Shaded, not flat: the red balls show many levels of red
    let mut reds: Vec<u8> = picture
        .rgb
        .iter()
        .filter(|&&p| {
            let (h, s, v) = bytes_hsv(p);
            !(8.0..=352.0).contains(&h) && s > 0.6 && v > 0.2
        })
        .map(|p| p[0])
        .collect();
    reds.sort_unstable();
    reds.dedup();
    assert!(reds.len() > 40, "only {} shades of red", reds.len());
}

#[test]
fn the_billiards_break_shows_its_balls() {
    let Some(picture) = render("scenes/billiards_break.ron", &[], 60, "1024x640") else {
        return;
    };
    check_picture(&picture, 1024, 640, 1);
    check_colors(&picture, &load("scenes/billiards_break.ron"), (0, 1), 20, 1);
}

#[test]
fn the_spin_shots_and_the_marble_run_show_their_balls() {
    // The three coloured object balls of the spin shots, three quarters of a second in; the
    // marbles on their ramps after a second and a half (hidden behind a ramp: at most two)
    for (scene, frames, least, may_miss) in [
        ("scenes/spin_shots.ron", 90, 20, 0),
        ("scenes/marble_run.ron", 180, 10, 2),
    ] {
        let Some(picture) = render(scene, &[], frames, "1024x640") else {
            return;
        };
        check_picture(&picture, 1024, 640, 1);
        check_colors(&picture, &load(scene), (0, 1), least, may_miss);
    }
}

#[test]
fn the_galton_board_shows_its_gold_balls() {
    let Some(picture) = render("scenes/galton_board.ron", &[], 90, "1024x640") else {
        return;
    };
    check_picture(&picture, 1024, 640, 1);
    check_colors(&picture, &load("scenes/galton_board.ron"), (0, 1), 500, 0);
}

#[test]
fn a_comparison_shows_two_panes_with_a_divider_and_a_hud_each() {
    let extra = ["--compare", "analytic,sliced:150"];
    let Some(picture) = render("scenes/bullets.ron", &extra, 1, "1280x720") else {
        return;
    };
    check_picture(&picture, 1280, 720, 2);
    // The divider: a light column in the middle, top to bottom
    let middle = picture.width / 2;
    let light = (0..picture.height)
        .filter(|&y| {
            (middle - 2..=middle + 1).any(|x| {
                let (_, s, v) = bytes_hsv(picture.at(x, y));
                s < 0.15 && v > 0.75
            })
        })
        .count();
    assert!(
        light * 10 > picture.height * 9,
        "no divider: {light} light rows"
    );
    let scene = load("scenes/bullets.ron");
    for k in 0..2 {
        check_colors(&picture, &scene, (k, 2), 15, 0);
    }
}

#[test]
fn only_the_balls_the_judge_faults_get_the_fault_marker() {
    let extra = ["--compare", "analytic,sliced:150"];
    let Some(picture) = render("scenes/bullets.ron", &extra, 2, "1280x720") else {
        return;
    };
    check_picture(&picture, 1280, 720, 2);
    // The marker's magenta, which no ball of the scene has: none where the analytic sweep
    // stops every bullet, the paths of the fifteen that passed through under the sliced one
    let fault = [1.0, 0.2, 0.85];
    let scene = load("scenes/bullets.ron");
    assert!(saturated_colors(&scene).iter().all(|&c| {
        let d = (hsv(c).0 - hsv(fault).0).abs();
        d.min(360.0 - d) > 30.0
    }));
    let analytic = count_hue(&picture.scene_pixels(0, 2), fault);
    let sliced = count_hue(&picture.scene_pixels(1, 2), fault);
    assert!(
        analytic < 20,
        "{analytic} fault pixels in the analytic pane"
    );
    assert!(
        sliced > 1000,
        "only {sliced} fault pixels in the sliced pane"
    );
    // The balls keep their own colours in both panes
    for k in 0..2 {
        check_colors(&picture, &scene, (k, 2), 15, 0);
    }
}

#[test]
fn bad_input_fails_on_one_line_before_any_window() {
    // One line of error; where clap read the arguments, its tip to try --help follows
    // No display needed: these fail before one is looked for
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toibox"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("DISPLAY")
            .output()
            .expect("the binary runs")
    };
    let dir = scratch("bad-input");
    let shot = dir.join("never.png");
    let shot = shot.display().to_string();
    for (args, needle) in [
        (
            vec!["view", "scenes/bullets.ron", "--compare", "analytic,rk4"],
            "rk4",
        ),
        (
            vec!["view", "scenes/bullets.ron", "--compare", "analytic"],
            "--compare",
        ),
        (
            vec![
                "view",
                "scenes/bullets.ron",
                "--compare",
                "analytic,sliced:0",
            ],
            "`0`",
        ),
        (
            vec![
                "view",
                "no/such/scene.ron",
                "--frames",
                "2",
                "--screenshot",
                &shot,
            ],
            "no/such/scene.ron",
        ),
        (
            vec![
                "view",
                "scenes/bullets.ron",
                "--frames",
                "2",
                "--screenshot",
                "/no/such/dir/a.png",
            ],
            "/no/such/dir/a.png",
        ),
    ] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        let mut lines = err.lines().filter(|line| !line.is_empty());
        let first = lines.next().unwrap_or_default();
        assert!(
            first.starts_with("error: ") && first.contains(needle),
            "{args:?}: {err}"
        );
        assert!(
            lines.all(|line| line == "For more information, try '--help'."),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(!Path::new(&shot).exists());
    std::fs::remove_dir(&dir).expect("nothing written");
}

#[test]
fn a_spinning_ball_shows_rings_that_one_at_rest_does_not() {
    let dir = scratch("spin-scenes");
    let scene = |spin: &str| {
        format!(
            "Scene(dt: 0.01, gravity: (0.0, 0.0, 0.0), balls: [(pos: (0.0, 0.0, 0.0), \
             radius: 1.0, spin: {spin}, color: (0.2, 0.5, 0.95))])"
        )
    };
    let mut counts = Vec::new();
    for (name, spin) in [
        ("still", "(0.0, 0.0, 0.0)"),
        ("spinning", "(0.0, 2.0, 0.5)"),
    ] {
        let file = dir.join(format!("{name}.ron"));
        std::fs::write(&file, scene(spin)).expect("a scene file");
        let picture = render(&file.display().to_string(), &[], 5, "640x480");
        std::fs::remove_file(&file).expect("the scene file is there");
        let Some(picture) = picture else {
            return;
        };
        // The lower right of the ball, away from the HUD (whose lines differ between the two)
        let (w, h) = (picture.width, picture.height);
        let middle: Vec<[u8; 3]> = (h / 2..3 * h / 4)
            .flat_map(|y| (w / 2..3 * w / 4).map(move |x| (x, y)))
            .map(|(x, y)| picture.rgb[y * w + x])
            .collect();
        counts.push(count_hue(&middle, [0.2, 0.5, 0.95]));
    }
    std::fs::remove_dir(&dir).expect("an empty directory");
    // The equator and a meridian cover some of the ball's own pixels
    let (still, spinning) = (counts[0], counts[1]);
    assert!(still > 5_000, "the ball shows: {still} pixels");
    assert!(
        spinning + 100 < still,
        "rings hide ball pixels: {spinning} spinning against {still} still"
    );
}
