//! toibox side by side with its peers: the same work in toibox and in rapier3d or parry3d.
//!
//! - `peers gas --balls N --steps S [--speed V]`: the elastic gas of `scenes/gas_*.ron` in
//!   toibox (analytic, and sliced:150 for reference) and in rapier3d (without and with CCD);
//!   milliseconds per step, collisions per second, kinetic energy kept, balls outside the box,
//!   peak memory.
//! - `peers toi --cases N --seed S`: toibox's seeded random sweeps answered by its closed forms
//!   and by parry3d's `cast_shapes`; queries per second and agreement.
//!
//! Both print an aligned table, or one JSON object with `--json`.
#![warn(missing_docs)]

mod gas;
mod memory;
mod table;
mod toi;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::gas::{Engine, GasConfig, GasReport};
use crate::toi::{Kind, ToiReport};

/// toibox side by side with rapier3d and parry3d.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Step the elastic gas in toibox and in rapier3d, each engine in a process of its own.
    Gas(GasArgs),
    /// Answer toibox's random sweeps with toibox and with parry3d's cast_shapes.
    Toi(ToiArgs),
    /// Run one engine on the gas and print its figures as JSON (what `gas` runs per engine).
    #[command(hide = true)]
    Engine(EngineArgs),
}

/// The gas's size, length of run and speed.
#[derive(clap::Args, Debug)]
struct GasShape {
    /// Balls in the box (radius 0.05, 5% of its volume).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    balls: u64,
    /// Steps of 1/60 to run and time.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..))]
    steps: u64,
    /// Speed of every ball at the start.
    #[arg(long, default_value_t = 5.0)]
    speed: f64,
}

impl GasShape {
    fn config(&self) -> GasConfig {
        GasConfig {
            balls: self.balls,
            steps: self.steps,
            speed: self.speed,
        }
    }
}

#[derive(clap::Args, Debug)]
struct GasArgs {
    #[command(flatten)]
    gas: GasShape,
    /// Engines to run, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "toibox,toibox-sliced,rapier,rapier-ccd"
    )]
    engines: Vec<Engine>,
    /// Run the engines this many times, in turn, and keep each engine's fastest round: on a
    /// shared machine, the one least disturbed by other work.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    rounds: u32,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct EngineArgs {
    /// The engine.
    #[arg(value_enum)]
    engine: Engine,
    #[command(flatten)]
    gas: GasShape,
}

#[derive(clap::Args, Debug)]
struct ToiArgs {
    /// Cases per pair kind.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    cases: u32,
    /// Seed of the case generator: the same seed gives the same cases everywhere.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Disagreements to show per pair kind.
    #[arg(long, default_value_t = 3)]
    examples: usize,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Gas(args) => gas(&args),
        Command::Toi(args) => toi(&args),
        Command::Engine(args) => engine(&args),
    }
}

/// Print `error` on standard error and fail.
fn fail(error: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {error}");
    ExitCode::FAILURE
}

fn gas(args: &GasArgs) -> ExitCode {
    let config = args.gas.config();
    if !(config.speed.is_finite() && config.speed >= 0.0) {
        return fail(format!(
            "--speed is {}; allowed: a finite speed, 0 or more",
            config.speed
        ));
    }
    let results = match gas::run_all(&args.engines, &config, args.rounds, args.json) {
        Ok(results) => results,
        Err(e) => return fail(e),
    };
    if args.json {
        let report = GasReport {
            command: "gas",
            balls: config.balls,
            steps: config.steps,
            rounds: args.rounds,
            speed: config.speed,
            dt: gas::DT,
            radius: gas::RADIUS,
            volume_fraction: gas::VOLUME_FRACTION,
            box_side: config.box_side(),
            seed: gas::SEED,
            engines: results,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("plain numbers and text")
        );
    } else {
        println!(
            "elastic gas: {} balls of radius {} at speed {} in a box of side {:.4} ({}% of its \
             volume), dt 1/60, {} steps ({:.2} s simulated), fastest of {} round{}\n",
            config.balls,
            gas::RADIUS,
            config.speed,
            config.box_side(),
            gas::VOLUME_FRACTION * 100.0,
            config.steps,
            config.steps as f64 * gas::DT,
            args.rounds,
            if args.rounds == 1 { "" } else { "s" },
        );
        print!("{}", gas::table(&results));
        println!(
            "\nms/step       median wall-clock time of one step\n\
             x toibox      ms/step over toibox analytic's\n\
             collisions/s  collisions resolved per second of stepping (toibox only)\n\
             energy kept   kinetic energy at the end over the start\n\
             outside       balls whose centre ended outside the box\n\
             peak MB       the engine's process at its peak (VmHWM)\n\
             B/ball        that peak less the memory before the world was built, per ball"
        );
    }
    ExitCode::SUCCESS
}

fn engine(args: &EngineArgs) -> ExitCode {
    match gas::run_engine(args.engine, &args.gas.config()) {
        Ok(result) => {
            println!(
                "{}",
                serde_json::to_string(&result).expect("plain numbers and text")
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

fn toi(args: &ToiArgs) -> ExitCode {
    let cases = args.cases as usize;
    let reports: Vec<_> = Kind::ALL
        .into_iter()
        .map(|kind| {
            if !args.json {
                eprintln!("comparing {} on {cases} cases", kind.name());
            }
            toi::compare(kind, cases, args.seed)
        })
        .collect();
    if args.json {
        let report = ToiReport {
            command: "toi",
            cases,
            seed: args.seed,
            tolerance: toi::TOLERANCE,
            kinds: reports,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("plain numbers and text")
        );
    } else {
        println!(
            "toibox's random sweeps (seed {}), answered by toibox's closed forms and by parry3d's \
             cast_shapes\n",
            args.seed
        );
        print!("{}", toi::text(&reports, args.examples));
    }
    ExitCode::SUCCESS
}
