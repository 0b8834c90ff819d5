//! The `toibox` command line.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use toibox::Strategy;
use toibox::sweeps::{self, Comparison, PairKind};

/// toibox: a ball simulation with pluggable, exact time of impact.
#[derive(Parser, Debug)]
#[command(version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compare TOI strategies on seeded random sweeps of every pair kind (the default command).
    Sweeps(SweepsArgs),
}

#[derive(Parser, Debug)]
struct SweepsArgs {
    /// Cases per pair kind (ball-ball, ball-plane, ball-cylinder, ball-polygon).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    cases: u32,
    /// Seed of the case generator: the same seed gives the same cases everywhere.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Strategies to compare with the analytic answers, comma-separated:
    /// analytic, sliced[:N], sliced-bisect[:N[:TOL]], discrete.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "analytic,sliced:150,sliced-bisect:150,discrete"
    )]
    toi: Vec<Strategy>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

impl Default for SweepsArgs {
    fn default() -> Self {
        Self::parse_from(["sweeps"])
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli
        .command
        .unwrap_or(Command::Sweeps(SweepsArgs::default()))
    {
        Command::Sweeps(args) => run_sweeps(&args),
    }
}

fn run_sweeps(args: &SweepsArgs) -> ExitCode {
    let cases: Vec<_> = PairKind::ALL
        .into_iter()
        .flat_map(|kind| sweeps::generate(kind, args.cases as usize, args.seed))
        .collect();
    let total = (cases.len() * (args.toi.len() + 1)) as u64;
    let bar = progress_bar(total);
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
fn progress_bar(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} queries ({eta} left)")
            .expect("a valid template"),
    );
    bar
}

fn print_table(args: &SweepsArgs, rows: &[Comparison]) {
    println!(
        "toibox {}: {} seeded sweeps per pair kind (seed {}), each strategy against the exact one\n",
        env!("CARGO_PKG_VERSION"),
        args.cases,
        args.seed
    );
    println!(
        "{:<20} {:<14} {:>8} {:>8} {:>9} {:>12} {:>12} {:>10}",
        "strategy", "pair", "hits", "missed", "spurious", "mean early", "max error", "ns/query"
    );
    for row in rows {
        println!(
            "{:<20} {:<14} {:>8} {:>8} {:>9} {:>12.3e} {:>12.3e} {:>10.0}",
            row.strategy,
            row.kind.name(),
            row.hits,
            row.missed,
            row.spurious,
            row.mean_time_error,
            row.max_time_error,
            row.ns_per_query
        );
    }
    println!(
        "\nmissed: exact hits the strategy did not see (tunnelling). spurious: hits where the exact\n\
         sweep finds none. mean early / max error: how much earlier than the exact time a hit was\n\
         reported, in units of the interval. Times are wall clock: compare within one run."
    );
}
