//! toibox side by side with its peers: the same work in toibox and in rapier3d or parry3d.
//!
//! - `peers gas --balls N --steps S [--speed V]`: the elastic gas of `scenes/gas_*.ron` in
//!   toibox (analytic, and sliced:150 for reference) and in rapier3d (without and with CCD);
//!   milliseconds per step, collisions per second, kinetic energy kept, balls outside the box,
//!   peak memory.
//! - `peers pile --balls N --steps S`: balls dropped into an open box until they rest, in toibox
//!   (analytic) and in rapier3d; milliseconds per step, the step from which every ball rests,
//!   balls outside the box, the deepest overlap at the end, peak memory.
//! - `peers toi --cases N --seed S`: toibox's seeded random sweeps answered by its closed forms
//!   and by parry3d's `cast_shapes`; queries per second and agreement.
//!
//! Each prints an aligned table, or one JSON object with `--json`.
#![warn(missing_docs)]

mod child;
mod gas;
mod memory;
mod pile;
mod table;
mod toi;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::gas::{Engine, GasConfig, GasReport};
use crate::pile::{PileConfig, PileEngine, PileReport};
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
    /// Drop balls into an open box in toibox and in rapier3d until they rest, each engine in a
    /// process of its own.
    Pile(PileArgs),
    /// Answer toibox's random sweeps with toibox and with parry3d's cast_shapes.
    Toi(ToiArgs),
    /// Run one engine on the gas and print its figures as JSON (what `gas` runs per engine).
    #[command(hide = true)]
    Engine(EngineArgs),
    /// Run one engine on the pile and print its figures as JSON (what `pile` runs per engine).
    #[command(hide = true)]
    PileEngine(PileEngineArgs),
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

/// The pile's size and length of run.
#[derive(clap::Args, Debug)]
struct PileShape {
    /// Balls dropped into the box (radius 0.05, from a lattice 9 sites wide along x and z).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    balls: u64,
    /// Steps of 1/60 to run and time.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    steps: u64,
}

impl PileShape {
    fn config(&self) -> PileConfig {
        PileConfig {
            balls: self.balls,
            steps: self.steps,
        }
    }
}

/// What `pile` runs and how it answers.
#[derive(clap::Args, Debug)]
struct PileArgs {
    #[command(flatten)]
    pile: PileShape,
    /// Engines to run, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "toibox,rapier"
    )]
    engines: Vec<PileEngine>,
    /// Run the engines this many times, in turn, and keep each engine's fastest round: on a
    /// shared machine, the one least disturbed by other work.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    rounds: u32,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// The one engine `pile-engine` runs, and on what pile.
#[derive(clap::Args, Debug)]
struct PileEngineArgs {
    /// The engine.
    #[arg(value_enum)]
    engine: PileEngine,
    #[command(flatten)]
    pile: PileShape,
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
        Command::Pile(args) => pile(&args),
        Command::PileEngine(args) => pile_engine(&args),
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

/// Run `pile`: each engine in a child process, then the table or the JSON object.
fn pile(args: &PileArgs) -> ExitCode {
    let config = args.pile.config();
    let results = match pile::run_all(&args.engines, &config, args.rounds, args.json) {
        Ok(results) => results,
        Err(e) => return fail(e),
    };
    if args.json {
        let report = PileReport::new(&config, args.rounds, results);
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("plain numbers and text")
        );
    } else {
        let (min, max) = config.lattice_box();
        println!(
            "pile: {} balls of radius {} placed by the lattice generator in x, z = ±{:.2}, y = {:.2} \
             to {:.2}, at speed {} in random directions (seed {}),\ndropped into an open box of \
             half-size {} (floor y = {}, walls x, z = ±{}), gravity {}, restitution {}, no \
             friction, dt 1/60, {} steps ({:.2} s simulated), fastest of {} round{}\n",
            config.balls,
            pile::RADIUS,
            max.x,
            min.y,
            max.y,
            pile::SPEED,
            pile::SEED,
            pile::HALF,
            -pile::HALF,
            pile::HALF,
            -pile::GRAVITY,
            pile::RESTITUTION,
            config.steps,
            config.steps as f64 * pile::DT,
            args.rounds,
            if args.rounds == 1 { "" } else { "s" },
        );
        print!("{}", pile::table(&results));
        println!(
            "\nms/step      mean wall-clock time of one step over the run\n\
             x toibox     ms/step over toibox analytic's\n\
             rest step    first step after which every ball is at rest (speed <= {}) to the end \
             of the run\n\
             moving       balls faster than that at the end\n\
             asleep       balls asleep at the end, by the engine's own sleeping\n\
             outside      balls whose centre ended below the floor or beyond a wall\n\
             max overlap  deepest overlap at the end, ball-ball or ball-floor/wall, in length units\n\
             height       top of the highest ball above the floor at the end\n\
             cap hits     contacts held after a step's budget of collisions ran out (toibox only)\n\
             peak MB      the engine's process at its peak (VmHWM)\n\
             B/ball       that peak less the memory before the world was built, per ball",
            pile::REST_SPEED,
        );
    }
    ExitCode::SUCCESS
}

/// Run `pile-engine`: one engine in this process, its figures as one line of JSON.
fn pile_engine(args: &PileEngineArgs) -> ExitCode {
    match pile::run_engine(args.engine, &args.pile.config()) {
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
