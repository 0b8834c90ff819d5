//! The `toibox` command line (feature `cli`): clap arguments, the commands, and their output
//! as tables, JSON, CSV and plots.

mod plot;
mod print;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use toibox::ToiMode;
use toibox::output::{self, Output};
use toibox::runs::{self, RunOptions};
use toibox::scene::{Scene, SceneError};
use toibox::sweeps::{self, PairKind};

use plot::Series;
use print::{
    count, print_comparison, print_events, print_explained, print_summary, print_table, write_csv,
};

/// toibox: a ball simulation with pluggable, exact time of impact.
///
/// With no command, opens the NeHe room in the viewer; `toibox SCENE.ron` opens that scene.
#[derive(Parser, Debug)]
#[command(version, about, long_about = None, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// A scene file (RON) to open in the viewer, as `toibox view SCENE` does.
    #[arg(value_name = "SCENE.ron")]
    scene: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Watch a scene in a window [default: the NeHe room]
    View(ViewArgs),
    /// Step a scene without a window and print what happened
    Run(RunArgs),
    /// Run a scene with several TOI strategies from the same state and compare them
    Compare(CompareArgs),
    /// Check scene files and print one line each
    Check(CheckArgs),
    /// Compare TOI strategies on seeded random sweeps of every pair kind
    Sweeps(SweepsArgs),
}

/// The strategies `compare` and `sweeps` set side by side unless told otherwise.
const COMPARED: &str = "analytic,sliced:150,sliced-bisect:150,discrete";

/// The scene `toibox` and `toibox view` open by default.
const NEHE_ROOM: &str = "scenes/nehe_room.ron";

#[derive(Parser, Debug, Default)]
struct ViewArgs {
    /// The scene file (RON) [default: the NeHe room]
    #[arg(value_name = "SCENE.ron")]
    scene: Option<PathBuf>,
    /// TOI strategy: analytic, sliced[:N], sliced-bisect[:N[:TOL]] or discrete [default: the
    /// scene's `toi`]
    #[arg(long, value_name = "STRATEGY", conflicts_with = "compare")]
    toi: Option<ToiMode>,
    /// Two strategies side by side, comma-separated, e.g. analytic,sliced:20
    #[arg(long, value_name = "STRATEGY,STRATEGY", value_parser = parse_pair)]
    compare: Option<Pair>,
    /// Draw N frames, each exactly one step, then close
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    frames: Option<u64>,
    /// With --frames, write the last frame to this PNG
    #[arg(long, value_name = "FILE.png", requires = "frames")]
    screenshot: Option<PathBuf>,
    /// The window's size in pixels [default: 1280x800]
    #[arg(long, value_name = "WIDTHxHEIGHT", value_parser = parse_size)]
    size: Option<(u32, u32)>,
}

/// Two strategies, for `view --compare`.
#[derive(Clone, Debug)]
struct Pair(ToiMode, ToiMode);

/// Read `A,B`: two strategy names.
fn parse_pair(text: &str) -> Result<Pair, String> {
    let names: Vec<&str> = text.split(',').collect();
    let [a, b] = names[..] else {
        return Err("allowed: two strategies, comma-separated, e.g. analytic,sliced:20".to_owned());
    };
    let read = |name: &str| name.trim().parse::<ToiMode>().map_err(|e| e.to_string());
    Ok(Pair(read(a)?, read(b)?))
}

/// Read a window size, `WIDTHxHEIGHT`.
fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let error = || "allowed: WIDTHxHEIGHT in pixels, e.g. 1280x800".to_owned();
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(error)?;
    let size: (u32, u32) = (
        w.trim().parse().map_err(|_| error())?,
        h.trim().parse().map_err(|_| error())?,
    );
    #[cfg(feature = "viewer")]
    {
        let sizes = toibox::viewer::WINDOW_SIZES;
        if !(sizes.contains(&size.0) && sizes.contains(&size.1)) {
            return Err(format!(
                "allowed: {} to {} pixels each way",
                sizes.start(),
                sizes.end()
            ));
        }
    }
    Ok(size)
}

#[derive(Parser, Debug)]
struct RunArgs {
    /// The scene file (RON)
    #[arg(value_name = "SCENE.ron")]
    scene: PathBuf,
    /// Steps to take [default: the scene's `steps`]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    steps: Option<u64>,
    /// TOI strategy: analytic, sliced[:N], sliced-bisect[:N[:TOL]] or discrete [default: the
    /// scene's `toi`]
    #[arg(long, value_name = "STRATEGY")]
    toi: Option<ToiMode>,
    /// Print one JSON object instead of a summary
    #[arg(long)]
    json: bool,
    /// List every collision: a line each, or an `events` list with --json
    #[arg(long)]
    events: bool,
}

#[derive(Parser, Debug)]
struct CompareArgs {
    /// The scene file (RON)
    #[arg(value_name = "SCENE.ron")]
    scene: PathBuf,
    /// Steps each strategy takes [default: the scene's `steps`]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    steps: Option<u64>,
    /// TOI strategies, comma-separated, each analytic, sliced[:N], sliced-bisect[:N[:TOL]] or
    /// discrete
    #[arg(
        long,
        value_name = "STRATEGY,...",
        value_delimiter = ',',
        default_value = COMPARED
    )]
    toi: Vec<ToiMode>,
    /// Compare analytic with sliced:N and sliced-bisect:N at each of these slice counts; with
    /// --plot, also draw the trade-off of cost per step against missed contacts
    #[arg(long, value_delimiter = ',', value_name = "N,...", conflicts_with = "toi",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    slices: Vec<u32>,
    /// List the first N missed, spurious, passed-through and escaped contacts of each strategy
    /// (step, time, ball, the other body, depth)
    #[arg(long, value_name = "N", default_value_t = 0)]
    explain: usize,
    /// Print one JSON object instead of a table
    #[arg(long)]
    json: bool,
    /// Also write the table to this CSV file
    #[arg(long, value_name = "FILE.csv")]
    csv: Option<PathBuf>,
    /// Also plot every strategy over time into this PNG or SVG file: missed contacts, balls
    /// passed through or escaped, drift from the analytic run, energy drift, deepest overlap
    #[arg(long, value_name = "FILE.png|FILE.svg")]
    plot: Option<PathBuf>,
}

#[derive(Parser, Debug)]
struct CheckArgs {
    /// Scene files (RON)
    #[arg(required = true, value_name = "SCENE.ron")]
    scenes: Vec<PathBuf>,
}

#[derive(Parser, Debug)]
struct SweepsArgs {
    /// Cases per pair kind (ball-ball, ball-plane, ball-cylinder, ball-polygon)
    #[arg(long, value_name = "N", default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    cases: u32,
    /// Seed of the case generator: the same seed gives the same cases everywhere
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// TOI strategies to compare with the analytic answers, comma-separated, each analytic,
    /// sliced[:N], sliced-bisect[:N[:TOL]] or discrete
    #[arg(
        long,
        value_name = "STRATEGY,...",
        value_delimiter = ',',
        default_value = COMPARED
    )]
    toi: Vec<ToiMode>,
    /// Print one JSON object instead of a table
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = Cli::parse();
    let view_scene = || {
        Command::View(ViewArgs {
            scene: cli.scene.clone(),
            ..ViewArgs::default()
        })
    };
    match cli.command.unwrap_or_else(view_scene) {
        Command::View(args) => view(&args),
        Command::Run(args) => run(&args),
        Command::Compare(args) => compare(&args),
        Command::Check(args) => check(&args),
        Command::Sweeps(args) => run_sweeps(&args),
    }
}

/// End the process, as other command-line tools do, when what reads its output has closed it
/// (`toibox run scene.ron --json | head`): Rust ignores `SIGPIPE`, and every later write to
/// standard output would then panic.
fn quiet_on_closed_pipe() {
    // SAFETY: called first in `main`, before any other thread runs; `SIG_DFL` is a valid
    // disposition for `SIGPIPE`.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Print `error` on standard error and fail.
fn fail(error: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::FAILURE
}

/// The NeHe room, built in, for when `toibox` runs away from the repository.
const NEHE_ROOM_TEXT: &str = include_str!("../../../scenes/nehe_room.ron");

fn view(args: &ViewArgs) -> ExitCode {
    // The options first: a bad list or path fails before the scene is read
    if let Some(path) = &args.screenshot
        && let Err(e) = output::check(path, Output::Screenshot)
    {
        return fail(e);
    }
    let strategies = match (&args.compare, &args.toi) {
        (Some(Pair(a, b)), _) => vec![a.clone(), b.clone()],
        (None, Some(toi)) => vec![toi.clone()],
        (None, None) => Vec::new(),
    };
    let size = args.size;
    let path = args.scene.as_deref().unwrap_or(Path::new(NEHE_ROOM));
    let (scene, path) = match (&args.scene, Scene::load(path)) {
        (_, Ok(scene)) => (scene, path),
        (None, Err(SceneError::Read { .. })) => {
            let built_in = Path::new("nehe_room.ron (built in)");
            match Scene::parse(NEHE_ROOM_TEXT, &built_in.display().to_string()) {
                Ok(scene) => (scene, built_in),
                Err(e) => return fail(e),
            }
        }
        (_, Err(e)) => return fail(e),
    };
    show(scene, path, args, strategies, size)
}

#[cfg(feature = "viewer")]
fn show(
    scene: Scene,
    path: &Path,
    args: &ViewArgs,
    strategies: Vec<ToiMode>,
    size: Option<(u32, u32)>,
) -> ExitCode {
    use toibox::viewer::{self, ViewOptions};
    let defaults = ViewOptions::default();
    let options = ViewOptions {
        file: path.display().to_string(),
        strategies,
        frames: args.frames,
        screenshot: args.screenshot.clone(),
        size: size.unwrap_or(defaults.size),
        ..defaults
    };
    // No display and nothing asked of the window: the headless run, as the README says
    if matches!(viewer::check(&options), Err(viewer::ViewError::NoDisplay)) && args.frames.is_none()
    {
        return view_headless(
            &scene,
            path,
            &options.strategies,
            "no display to open the viewer on",
        );
    }
    match viewer::view(scene, options) {
        Ok(summary) => {
            if let Some(png) = &summary.screenshot {
                eprintln!(
                    "{}: {} frames, {} steps",
                    png.display(),
                    summary.frames,
                    summary.steps
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

#[cfg(not(feature = "viewer"))]
fn show(
    scene: Scene,
    path: &Path,
    args: &ViewArgs,
    strategies: Vec<ToiMode>,
    size: Option<(u32, u32)>,
) -> ExitCode {
    if args.frames.is_some() || args.screenshot.is_some() || size.is_some() || strategies.len() > 1
    {
        return fail("this toibox was built without the viewer (cargo feature `viewer`)");
    }
    view_headless(&scene, path, &strategies, "no viewer in this build")
}

/// Run `scene` headless with the first of `strategies` (or its own), saying `why` first.
fn view_headless(scene: &Scene, path: &Path, strategies: &[ToiMode], why: &str) -> ExitCode {
    eprintln!("{why}; running {} headless", path.display());
    let options = RunOptions {
        steps: scene.steps,
        toi: strategies.first().unwrap_or(&scene.toi).clone(),
        events: false,
    };
    headless(scene, path, options, false)
}

fn run(args: &RunArgs) -> ExitCode {
    let scene = match Scene::load(&args.scene) {
        Ok(scene) => scene,
        Err(e) => return fail(e),
    };
    let options = RunOptions {
        steps: args.steps.unwrap_or(scene.steps),
        toi: args.toi.clone().unwrap_or_else(|| scene.toi.clone()),
        events: args.events,
    };
    headless(&scene, &args.scene, options, args.json)
}

fn headless(scene: &Scene, path: &Path, options: RunOptions, json: bool) -> ExitCode {
    let bar = progress_bar(options.steps, "steps");
    let report = runs::run(scene, &path.display().to_string(), options, |k| {
        bar.set_position(k);
    });
    bar.finish_and_clear();
    let report = match report {
        Ok(report) => report,
        Err(e) => return fail(e),
    };
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("plain data")
        );
    } else {
        print_summary(&report);
        if let Some(events) = &report.events {
            print_events(events);
        }
    }
    ExitCode::SUCCESS
}

fn compare(args: &CompareArgs) -> ExitCode {
    // Output files first: a bad path fails before the run, not after it
    let outputs = [(&args.csv, Output::Csv), (&args.plot, Output::Plot)];
    for (path, kind) in outputs {
        if let Some(path) = path
            && let Err(e) = output::check(path, kind)
        {
            return fail(e);
        }
    }
    let scene = match Scene::load(&args.scene) {
        Ok(scene) => scene,
        Err(e) => return fail(e),
    };
    let strategies = if args.slices.is_empty() {
        args.toi.clone()
    } else {
        let sliced = args.slices.iter().map(|&slices| ToiMode::Sliced { slices });
        let bisect = (args.slices.iter()).map(|&slices| ToiMode::SlicedBisect {
            slices,
            tolerance: ToiMode::BISECT_TOLERANCE,
        });
        std::iter::once(ToiMode::Analytic)
            .chain(sliced)
            .chain(bisect)
            .collect()
    };
    if strategies.is_empty() {
        return fail(
            "--toi lists no strategy; allowed: analytic, sliced[:N], sliced-bisect[:N[:TOL]], discrete",
        );
    }
    let options = runs::CompareOptions {
        steps: args.steps.unwrap_or(scene.steps),
        strategies,
        explain: args.explain,
    };
    let steps = options.steps;
    let name = args.scene.display().to_string();
    let bar = progress_bar(steps * (2 * options.strategies.len() as u64 + 1), "steps");
    let comparison = runs::compare(&scene, &name, &options, |k| bar.set_position(k));
    bar.finish_and_clear();
    let comparison = match comparison {
        Ok(c) => c,
        Err(e) => return fail(e),
    };

    // Files first, all written or none; then standard output
    let csv = match &args.csv {
        Some(path) => match output::prepare(path, |w| write_csv(&comparison, w)) {
            Ok(pending) => Some(pending),
            Err(e) => return fail(e),
        },
        None => None,
    };
    if let Some(path) = &args.plot {
        let title = format!("{name}: {steps} steps");
        let drawn = if args.slices.is_empty() {
            plot::plot_comparison(path, &title, &series_of(&comparison), plot::DEFAULT_SIZE)
        } else {
            let title = format!("{title}: cost against missed contacts");
            plot::plot_pareto(path, &title, &pareto_of(&comparison), plot::DEFAULT_SIZE)
        };
        if let Err(e) = drawn {
            return fail(e);
        }
    }
    if let Some(Err(e)) = csv.map(output::Pending::commit) {
        return fail(e);
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&comparison).expect("plain data")
        );
    } else {
        print_comparison(&comparison);
        print_explained(&comparison, &scene);
    }
    ExitCode::SUCCESS
}

/// Return each strategy's curves over time, from a first point at time 0 where every figure
/// is zero (a scene never starts overlapping).
fn series_of(c: &runs::Comparison) -> Vec<Series> {
    let from_zero =
        |values: &mut dyn Iterator<Item = f64>| std::iter::once(0.0).chain(values).collect();
    (c.runs.iter())
        .map(|run| {
            let trace = &run.trace;
            let e0 = run.stats.energy_start;
            Series {
                label: run.toi.clone(),
                time: from_zero(&mut trace.time.iter().copied()),
                missed: from_zero(&mut trace.missed.iter().map(|&n| n as f64)),
                faulty: from_zero(&mut trace.faulty.iter().map(|&n| n as f64)),
                drift: from_zero(&mut trace.drift.iter().copied()),
                energy: from_zero(&mut trace.energy.iter().map(|&e| runs::relative_change(e0, e))),
                overlap: from_zero(&mut trace.penetration.iter().copied()),
            }
        })
        .collect()
}

/// Return each strategy as a point of cost per step against missed contacts, by family.
fn pareto_of(c: &runs::Comparison) -> Vec<plot::ParetoPoint> {
    (c.results.iter())
        .map(|r| {
            let strategy: ToiMode = r.toi.parse().expect("a strategy's own name");
            let (family, label) = match strategy {
                ToiMode::Sliced { slices } => ("sliced", slices.to_string()),
                ToiMode::SlicedBisect { slices, .. } => ("sliced-bisect", slices.to_string()),
                ToiMode::Analytic | ToiMode::Discrete | ToiMode::Custom(_) => {
                    (r.toi.as_str(), r.toi.clone())
                }
            };
            plot::ParetoPoint {
                label,
                family: family.to_owned(),
                ms_per_step: r.ms_per_step,
                missed: r.missed as f64,
            }
        })
        .collect()
}

fn check(args: &CheckArgs) -> ExitCode {
    let mut failed = 0;
    for path in &args.scenes {
        match Scene::load(path) {
            Ok(scene) => println!(
                "ok: {}: {}, {}, {}, {}; dt {}, {}, {}",
                path.display(),
                count(scene.balls.len(), "ball"),
                count(scene.planes.len(), "plane"),
                count(scene.cylinders.len(), "cylinder"),
                count(scene.polygons.len(), "polygon"),
                scene.dt,
                count(scene.steps, "step"),
                scene.toi
            ),
            Err(e) => {
                failed += 1;
                println!("error: {e}");
            }
        }
    }
    if failed > 0 {
        eprintln!("{failed} of {} scenes have errors", args.scenes.len());
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn run_sweeps(args: &SweepsArgs) -> ExitCode {
    let cases: Vec<_> = PairKind::ALL
        .into_iter()
        .flat_map(|kind| sweeps::generate(kind, args.cases as usize, args.seed))
        .collect();
    let total = (cases.len() * (args.toi.len() + 1)) as u64;
    let bar = progress_bar(total, "queries");
    let rows = sweeps::compare(&cases, &args.toi, |done| bar.set_position(done));
    bar.finish_and_clear();

    if args.json {
        let report = serde_json::json!({
            "cases_per_kind": args.cases,
            "seed": args.seed,
            "results": rows,
        });
        println!("{report:#}");
    } else {
        print_table(args, &rows);
    }
    ExitCode::SUCCESS
}

/// A progress bar on a terminal's standard error; hidden when it is not a terminal.
fn progress_bar(total: u64, unit: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {unit} ({{eta}} left)"))
            .expect("a valid template"),
    );
    bar
}
