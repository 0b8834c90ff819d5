//! The command line: `run`, `compare` and `check`, their JSON contract, their files, and their
//! errors.
//!
//! Every test runs the built `toibox` binary with its output piped, as a script would, and
//! reads what it prints. The JSON field names checked here are the contract that users' scripts
//! rely on.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// `toibox` with `args`, to run from the crate root.
fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toibox"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

/// Run `toibox` with `args` from the crate root.
fn toibox(args: &[&str]) -> Output {
    command(args).output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 output")
}

fn json(output: &Output) -> Value {
    assert!(output.status.success(), "failed: {}", stderr(output));
    serde_json::from_str(&stdout(output)).expect("one JSON object")
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toibox-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("a scene file");
    path.display().to_string()
}

/// Two equal balls of radius 0.5 at x = ±1.5 (gap 2) closing at 2, without gravity: they meet
/// at t = 1 at x = ±0.5 and swap velocities; each then reaches its wall (x = ±4, so centre at
/// ±3.5) at t = 1 + 3 = 4.
const HEAD_ON: &str = r#"Scene(
    name: "Two balls head-on",
    dt: 0.01,
    steps: 300,
    gravity: (0.0, 0.0, 0.0),
    balls: [
        (pos: (-1.5, 0.0, 0.0), vel: (1.0, 0.0, 0.0), radius: 0.5),
        (pos: (1.5, 0.0, 0.0), vel: (-1.0, 0.0, 0.0), radius: 0.5, name: "right",
         color: (1.0, 0.2, 0.2)),
    ],
    planes: [
        (point: (-4.0, 0.0, 0.0), normal: (1.0, 0.0, 0.0)),
        (point: (4.0, 0.0, 0.0), normal: (-1.0, 0.0, 0.0)),
    ],
)"#;

/// The fields of each of `compare`'s results, in order: the JSON's keys and the CSV's header.
const COMPARE_FIELDS: [&str; 16] = [
    "toi",
    "collisions",
    "missed",
    "spurious",
    "compared",
    "toi_error_mean",
    "toi_error_max",
    "max_penetration",
    "escaped",
    "passed_through",
    "cap_hits",
    "energy_drift",
    "ms_per_step",
    "toi_queries_per_step",
    "state_drift_max",
    "state_drift_mean",
];

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

fn vector(v: &Value) -> [f64; 3] {
    let a = v.as_array().unwrap_or_else(|| panic!("an array: {v}"));
    assert_eq!(a.len(), 3, "{v}");
    [number(&a[0]), number(&a[1]), number(&a[2])]
}

#[test]
fn run_json_has_every_field_of_the_contract_and_the_closed_form_answer() {
    let dir = scratch("run-json");
    let scene = write(&dir, "head_on.ron", HEAD_ON);
    let out = json(&toibox(&["run", &scene, "--json"]));
    for key in ["scene", "toi", "steps", "dt", "time", "balls", "stats"] {
        assert!(out.get(key).is_some(), "no `{key}` in {out}");
    }
    assert_eq!(out["scene"], scene.as_str());
    assert_eq!(out["toi"], "analytic");
    assert_eq!(out["steps"], 300);
    assert_eq!(number(&out["dt"]), 0.01);
    assert!((number(&out["time"]) - 3.0).abs() < 1e-12);
    let stats = &out["stats"];
    for key in [
        "collisions",
        "ball_ball",
        "ball_plane",
        "ball_cylinder",
        "ball_polygon",
        "toi_queries",
        "events_cap_hits",
        "stopped",
        "energy_stopped",
        "momentum_stopped",
        "max_penetration",
        "escaped",
        "energy_start",
        "energy_end",
        "momentum_start",
        "momentum_end",
        "wall_ms",
    ] {
        assert!(stats.get(key).is_some(), "no `stats.{key}` in {stats}");
    }
    // Head-on at t = 1; the walls only at t = 4, after the run: one collision
    assert_eq!(stats["collisions"], 1);
    assert_eq!(stats["ball_ball"], 1);
    assert_eq!(stats["ball_plane"], 0);
    // Elastic: energy and momentum exactly kept (equal masses swap velocities)
    let e0 = number(&stats["energy_start"]);
    assert!(
        (number(&stats["energy_end"]) - e0).abs() <= 1e-15 * e0,
        "{stats}"
    );
    let p0 = vector(&stats["momentum_start"]);
    let p1 = vector(&stats["momentum_end"]);
    assert!(
        p0.iter().zip(&p1).all(|(a, b)| (a - b).abs() < 1e-15),
        "{stats}"
    );
    let balls = out["balls"].as_array().expect("balls");
    assert_eq!(balls.len(), 2);
    // Left ball: at t = 1 at x = -0.5, then back at -1 for 2: x = -2.5
    assert!(
        (vector(&balls[0]["pos"])[0] + 2.5).abs() < 1e-12,
        "{}",
        balls[0]
    );
    assert_eq!(vector(&balls[0]["vel"]), [-1.0, 0.0, 0.0]);
    assert!(
        (vector(&balls[1]["pos"])[0] - 2.5).abs() < 1e-12,
        "{}",
        balls[1]
    );
    // Each ball as a scene file gives it, every field filled in
    assert_eq!(number(&balls[1]["radius"]), 0.5);
    assert_eq!(number(&balls[1]["restitution"]), 1.0);
    let volume = 4.0 / 3.0 * std::f64::consts::PI * 0.125;
    assert!(
        (number(&balls[1]["mass"]) - volume).abs() < 1e-12,
        "{}",
        balls[1]
    );
    assert_eq!(vector(&balls[1]["spin"]), [0.0, 0.0, 0.0]);
    assert_eq!(balls[1]["name"], "right");
    assert!(balls[0]["name"].is_null());
    assert_eq!(vector(&balls[1]["color"]), [1.0, 0.2, 0.2]);
    assert!(out.get("events").is_none(), "events only when asked");
}

#[test]
fn run_events_name_balls_and_shapes_by_their_indices() {
    let dir = scratch("run-events");
    let scene = write(&dir, "head_on.ron", HEAD_ON);
    let out = json(&toibox(&[
        "run", &scene, "--json", "--events", "--steps", "450",
    ]));
    let events = out["events"].as_array().expect("events");
    // t = 1: the pair; t = 4: each ball at its wall
    assert_eq!(events.len(), 3, "{events:?}");
    let first = &events[0];
    for key in [
        "step", "time", "kind", "a", "b", "point", "normal", "impulse",
    ] {
        assert!(first.get(key).is_some(), "no `{key}` in {first}");
    }
    assert_eq!(first["kind"], "ball_ball");
    assert!((number(&first["time"]) - 1.0).abs() < 1e-12, "{first}");
    // t = 1 ends step 99 and starts step 100: rounding decides which
    let step = first["step"].as_u64().unwrap();
    assert!(step == 99 || step == 100, "{first}");
    let pair = [first["a"].as_u64(), first["b"].as_u64()];
    assert!(
        pair == [Some(0), Some(1)] || pair == [Some(1), Some(0)],
        "{first}"
    );
    // Mass 4/3 π 0.125, velocity change 2: impulse 2 m
    let m = 4.0 / 3.0 * std::f64::consts::PI * 0.125;
    assert!(
        (number(&first["impulse"]) - 2.0 * m).abs() < 1e-12,
        "{first}"
    );
    let walls: Vec<(u64, u64)> = events[1..]
        .iter()
        .map(|e| {
            assert_eq!(e["kind"], "ball_plane");
            assert!((number(&e["time"]) - 4.0).abs() < 1e-12, "{e}");
            (e["a"].as_u64().unwrap(), e["b"].as_u64().unwrap())
        })
        .collect();
    // Ball 0 ends at the left wall, planes[0]; ball 1 at the right, planes[1]
    assert!(
        walls.contains(&(0, 0)) && walls.contains(&(1, 1)),
        "{walls:?}"
    );
}

#[test]
fn run_takes_steps_and_toi_from_the_command_line() {
    let dir = scratch("run-options");
    let scene = write(&dir, "head_on.ron", HEAD_ON);
    let out = json(&toibox(&[
        "run",
        &scene,
        "--json",
        "--steps",
        "7",
        "--toi",
        "sliced:10",
    ]));
    assert_eq!(out["steps"], 7);
    assert_eq!(out["toi"], "sliced:10");
    assert!((number(&out["time"]) - 0.07).abs() < 1e-12);
}

#[test]
fn run_prints_a_short_summary_without_json() {
    let dir = scratch("run-summary");
    let scene = write(&dir, "head_on.ron", HEAD_ON);
    let out = toibox(&["run", &scene]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Two balls head-on"), "{text}");
    assert!(text.contains("2 balls; 1 collision ("), "{text}");
    assert!(text.lines().count() <= 6, "{text}");
    // Piped: no progress bar
    assert_eq!(stderr(&out), "");
}

/// A ball of mass 1 trapped between planes 0.201 apart (radius 0.1), moving across at 100,
/// elastic, without gravity: about 1,700 bounces a step, past the default budget of 1,100.
const TRAPPED: &str = r#"Scene(
    name: "Trapped",
    dt: 0.016666666666666666,
    steps: 3,
    gravity: (0.0, 0.0, 0.0),
    balls: [(pos: (0.0, 0.1005, 0.0), vel: (0.0, 100.0, 0.0), radius: 0.1, mass: 1.0)],
    planes: [
        (point: (0.0, 0.0, 0.0), normal: (0.0, 1.0, 0.0)),
        (point: (0.0, 0.201, 0.0), normal: (0.0, -1.0, 0.0)),
    ],
)"#;

#[test]
fn run_reports_the_energy_the_budget_took() {
    // The first step spends its budget and stops the ball at a wall, at rest: it had
    // ½ 1 100² = 5000, all the energy there was, and the later steps take nothing more
    let dir = scratch("run-budget");
    let scene = write(&dir, "trapped.ron", TRAPPED);
    let out = json(&toibox(&["run", &scene, "--json"]));
    let stats = &out["stats"];
    assert_eq!(stats["events_cap_hits"], 1, "{stats}");
    assert_eq!(stats["stopped"], 1, "{stats}");
    let taken = number(&stats["energy_stopped"]);
    assert!((taken - 5000.0).abs() <= 1e-12 * 5000.0, "{stats}");
    assert_eq!(number(&stats["energy_end"]), 0.0, "{stats}");
    assert!(
        (number(&stats["energy_start"]) - taken).abs() <= 1e-12 * taken,
        "{stats}"
    );
    // Its momentum when it stopped, along y one way or the other
    let [x, y, z] = vector(&stats["momentum_stopped"]);
    assert!(
        x == 0.0 && z == 0.0 && (y.abs() - 100.0).abs() <= 1e-12,
        "{stats}"
    );
    assert_eq!(vector(&out["balls"][0]["vel"]), [0.0, 0.0, 0.0]);
    // And the summary says so, beside the cap hits
    let text = stdout(&toibox(&["run", &scene]));
    assert!(
        text.contains("cap hits 1 (1 ball stopped short, 5.00e3 of energy taken)"),
        "{text}"
    );
}

#[test]
fn compare_json_reports_every_figure_for_every_default_strategy() {
    let dir = scratch("compare-json");
    let scene = write(&dir, "head_on.ron", HEAD_ON);
    let out = json(&toibox(&["compare", &scene, "--json", "--steps", "450"]));
    assert_eq!(out["scene"], scene.as_str());
    assert_eq!(out["steps"], 450);
    let results = out["results"].as_array().expect("results");
    let names: Vec<&str> = results.iter().map(|r| r["toi"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["analytic", "sliced:150", "sliced-bisect:150", "discrete"]
    );
    for r in results {
        for key in COMPARE_FIELDS {
            assert!(r.get(key).is_some(), "no `{key}` in {r}");
        }
        assert_eq!(r.as_object().unwrap().len(), COMPARE_FIELDS.len(), "{r}");
    }
    let analytic = &results[0];
    assert_eq!(analytic["missed"], 0);
    assert_eq!(number(&analytic["toi_error_max"]), 0.0);
    assert_eq!(number(&analytic["state_drift_max"]), 0.0);
    assert_eq!(analytic["collisions"], 3);
    // Slow, wide contacts: the sliced search sees them all, a slice early at most
    let sliced = &results[1];
    assert_eq!(sliced["missed"], 0, "{sliced}");
    assert!(
        number(&sliced["toi_error_max"]) <= 0.01 / 150.0 * (1.0 + 1e-9),
        "{sliced}"
    );
}

#[test]
fn compare_writes_csv_and_a_png_plot() {
    let dir = scratch("compare-files");
    let scene = write(&dir, "head_on.ron", HEAD_ON);
    let csv = dir.join("table.csv");
    let png = dir.join("plot.png");
    let out = toibox(&[
        "compare",
        &scene,
        "--steps",
        "50",
        "--toi",
        "analytic,sliced:20",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = std::fs::read_to_string(&csv).expect("the CSV");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(lines[0].starts_with("toi,collisions,missed"), "{table}");
    assert!(lines[1].starts_with("analytic,") && lines[2].starts_with("sliced:20,"));
    // The CSV's columns are the JSON's fields, in order
    let mut reader = csv::Reader::from_path(&csv).expect("a CSV reader");
    let header = reader.headers().expect("a header").clone();
    assert_eq!(header.iter().collect::<Vec<_>>(), COMPARE_FIELDS);
    // Every row has every column; every column after the first is a number, but the time
    // errors are empty where no contact was compared
    let mut empty = 0;
    for row in reader.records() {
        let row = row.expect("a well-formed row");
        assert_eq!(row.len(), header.len(), "{row:?}");
        let compared = &row[4];
        for (name, value) in header.iter().zip(row.iter()).skip(1) {
            if name.starts_with("toi_error") && compared == "0" {
                assert_eq!(value, "", "{name} in {row:?}");
                empty += 1;
            } else {
                assert!(value.parse::<f64>().is_ok(), "{name} = {value} in {row:?}");
            }
        }
    }
    // The balls meet at t = 1, after these 50 steps: sliced:20 asks within each step and
    // compares nothing, while the analytic predictions look ahead and find three contacts
    assert_eq!(empty, 2, "{table}");
    let bytes = std::fs::read(&png).expect("the PNG");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    // The human table names both strategies
    let text = stdout(&out);
    assert!(
        text.contains("analytic") && text.contains("sliced:20"),
        "{text}"
    );
}

#[test]
fn a_plot_that_cannot_be_written_leaves_no_files_and_no_output() {
    let dir = scratch("compare-bad-plot");
    let scene = write(&dir, "head_on.ron", HEAD_ON);
    let csv = dir.join("table.csv");
    let png = dir.join("no such dir").join("plot.png");
    let out = toibox(&[
        "compare",
        &scene,
        "--steps",
        "5",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        png.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert_eq!(stdout(&out), "", "no partial output");
    assert!(stderr(&out).contains("plot.png"), "{}", stderr(&out));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["head_on.ron"], "only the scene is left");
}

#[test]
fn output_paths_are_refused_before_the_scene_is_read() {
    // The scene does not exist: an error about the output path shows it was checked first
    let dir = scratch("refuse-early");
    let missing_scene = dir.join("no_scene.ron");
    let scene = missing_scene.to_str().unwrap();
    let in_dir = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    let no_dir = dir.join("no such dir").join("table.csv");
    for (args, wanted) in [
        (
            vec!["compare", scene, "--plot", &in_dir("plot.jpg")],
            "allowed extensions: png, svg",
        ),
        (
            vec!["compare", scene, "--plot", &in_dir("plot")],
            "allowed extensions: png, svg",
        ),
        (
            vec!["compare", scene, "--csv", &in_dir("table.txt")],
            "allowed extensions: csv",
        ),
        (
            vec!["compare", scene, "--csv", no_dir.to_str().unwrap()],
            "cannot write: no directory",
        ),
        (
            vec![
                "view",
                scene,
                "--frames",
                "1",
                "--screenshot",
                &in_dir("s.bmp"),
            ],
            "allowed extensions: png",
        ),
    ] {
        let out = toibox(&args);
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
        let error = stderr(&out);
        assert!(error.contains(wanted), "{args:?}: {error}");
        assert!(!error.contains("no_scene.ron"), "{args:?}: {error}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no file left");
}

#[test]
fn check_prints_one_line_per_file_and_fails_on_any_error() {
    let dir = scratch("check");
    let good = write(&dir, "good.ron", HEAD_ON);
    let bad = write(
        &dir,
        "bad.ron",
        "Scene(dt: 0.01, balls: [(pos: (0.0, 0.0, 0.0), radius: -1.0)])",
    );
    let out = toibox(&["check", &good]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 1);
    assert!(stdout(&out).starts_with("ok: "), "{}", stdout(&out));

    let out = toibox(&["check", &good, &bad]);
    assert!(!out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("ok: "));
    assert!(
        lines[1].contains(&bad) && lines[1].contains("balls[0].radius"),
        "{text}"
    );
    assert!(lines[1].contains("allowed"), "{text}");
}

#[test]
fn a_missing_scene_is_an_error_naming_it_with_no_output() {
    for command in ["run", "compare", "view"] {
        let out = toibox(&[command, "no/such/scene.ron"]);
        assert!(!out.status.success(), "{command}");
        assert_eq!(stdout(&out), "", "{command}");
        let err = stderr(&out);
        assert!(err.contains("no/such/scene.ron"), "{command}: {err}");
        assert!(err.lines().count() <= 3, "{command}: {err}");
    }
}

#[test]
fn every_bad_argument_is_refused_by_the_parser_in_one_style() {
    let dir = scratch("bad-args");
    let scene = write(&dir, "head_on.ron", HEAD_ON);
    let cases: [(&[&str], &str); 11] = [
        (&["view", &scene, "--size", "10x"], "--size <WIDTHxHEIGHT>"),
        (
            &["view", &scene, "--size", "32x32"],
            "--size <WIDTHxHEIGHT>",
        ),
        (&["view", &scene, "--compare", "analytic"], "--compare"),
        (&["view", &scene, "--compare", "analytic,rk4"], "rk4"),
        (&["view", &scene, "--frames", "0"], "--frames <N>"),
        (&["run", &scene, "--steps", "0"], "--steps <N>"),
        (&["run", &scene, "--toi", "sliced:0"], "--toi <STRATEGY>"),
        (&["run", &scene, "--frames", "3"], "--frames"),
        (&["compare", &scene, "--slices", "4,0"], "--slices <N,...>"),
        (&["compare", &scene, "--explain", "some"], "--explain <N>"),
        (&["sweeps", "--cases", "0"], "--cases <N>"),
    ];
    for (args, names) in cases {
        let out = toibox(args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(stdout(&out), "", "{args:?}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(names), "{args:?}: {err}");
        assert!(
            err.trim_end()
                .ends_with("For more information, try '--help'."),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_bad_strategy_name_is_refused_with_what_is_allowed() {
    let dir = scratch("bad-toi");
    let scene = write(&dir, "head_on.ron", HEAD_ON);
    let out = toibox(&["run", &scene, "--toi", "rk4"]);
    assert!(!out.status.success());
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(err.contains("rk4") && err.contains("allowed"), "{err}");
    let out = toibox(&["compare", &scene, "--toi", "analytic,sliced:0"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("sliced:0") || stderr(&out).contains("`0`"));
}

#[test]
fn bullets_tunnel_with_the_sliced_strategies_and_never_with_the_analytic_one() {
    let out = json(&toibox(&["compare", "scenes/bullets.ron", "--json"]));
    let results = out["results"].as_array().expect("results");
    let get = |name: &str| {
        results
            .iter()
            .find(|r| r["toi"] == name)
            .unwrap_or_else(|| panic!("no {name} in {out}"))
    };
    let analytic = get("analytic");
    assert_eq!(analytic["missed"], 0, "{analytic}");
    assert_eq!(analytic["escaped"], 0, "{analytic}");
    assert_eq!(analytic["passed_through"], 0, "{analytic}");
    assert_eq!(analytic["cap_hits"], 0, "{analytic}");
    // The judge sees the bullets that went through the panes
    for name in ["sliced:150", "sliced-bisect:150", "discrete"] {
        let r = get(name);
        assert!(r["missed"].as_u64().unwrap() > 0, "{r}");
        assert!(r["passed_through"].as_u64().unwrap() > 0, "{r}");
    }
    // The discrete test finds no contact to compare: no time error, rather than a zero one
    let discrete = get("discrete");
    assert_eq!(discrete["compared"], 0, "{discrete}");
    assert!(discrete["toi_error_mean"].is_null(), "{discrete}");
    assert!(discrete["toi_error_max"].is_null(), "{discrete}");
}

/// A ball of radius 0.1 resting on a floor at y = -1 under a ceiling at y = 1, in steps of
/// `DT`: a parabola under gravity through its two equal ends would bulge |g| dt² / 8 up (0.31
/// at dt 0.5, 30.7 at dt 5), through the ceiling 1.8 above its top from dt 1.3 on.
const RESTING_UNDER_A_CEILING: &str = "Scene(dt: DT, steps: 4, restitution: 1.0,
    planes: [
        (point: (0.0, -1.0, 0.0), normal: (0.0, 1.0, 0.0)),
        (point: (0.0, 1.0, 0.0), normal: (0.0, -1.0, 0.0)),
    ],
    balls: [(pos: (0.0, -0.9, 0.0), radius: 0.1)],
)";

/// A ball of radius 0.5 at x = -50 flying at `VX` = 100 / `DT` along x at a thin pane at
/// x = 0 (the square |y|, |z| <= 200), in one step of `DT`: it reaches the pane halfway
/// through the step, having fallen g (dt/2)² / 2 (122.6 at dt 10), and would end at x = 50.
const THROUGH_A_PANE: &str = "Scene(dt: DT, steps: 1,
    polygons: [(vertices: [(0.0, -200.0, -200.0), (0.0, 200.0, -200.0), (0.0, 200.0, 200.0),
        (0.0, -200.0, 200.0)])],
    balls: [(pos: (-50.0, 0.0, 0.0), vel: (VX, 0.0, 0.0), radius: 0.5)],
)";

#[test]
fn run_judges_a_ball_resting_under_a_ceiling_where_it_stands_at_long_steps() {
    let dir = scratch("resting-long-steps");
    for dt in ["0.5", "2.0", "5.0", "10.0"] {
        let text = RESTING_UNDER_A_CEILING.replace("DT", dt);
        let scene = write(&dir, &format!("room_{dt}.ron"), &text);
        let out = json(&toibox(&["run", &scene, "--json"]));
        let stats = &out["stats"];
        assert_eq!(stats["passed_through"], 0, "dt {dt}: {stats}");
        assert_eq!(stats["escaped"], 0, "dt {dt}: {stats}");
        // It rested, and slept: it never moved
        assert_eq!(stats["sleeping"], 1, "dt {dt}: {stats}");
        assert_eq!(vector(&out["balls"][0]["pos"]), [0.0, -0.9, 0.0], "dt {dt}");
    }
}

#[test]
fn run_judges_a_ball_that_tunnelled_through_a_pane_at_long_steps() {
    let dir = scratch("tunnel-long-steps");
    for dt in [2.0, 5.0, 10.0] {
        let text = THROUGH_A_PANE
            .replace("DT", &format!("{dt:?}"))
            .replace("VX", &format!("{:?}", 100.0 / dt));
        let scene = write(&dir, &format!("pane_{dt}.ron"), &text);
        // The exact sweep bounces it off the pane; the end-of-step test lets it through
        let analytic = json(&toibox(&["run", &scene, "--json"]));
        assert_eq!(
            analytic["stats"]["passed_through"], 0,
            "dt {dt}: {analytic}"
        );
        assert!(number(&analytic["balls"][0]["pos"][0]) < 0.0, "dt {dt}");
        let discrete = json(&toibox(&["run", &scene, "--json", "--toi", "discrete"]));
        assert_eq!(
            discrete["stats"]["passed_through"], 1,
            "dt {dt}: {discrete}"
        );
        assert_eq!(discrete["stats"]["escaped"], 0, "dt {dt}: {discrete}");
        assert!(number(&discrete["balls"][0]["pos"][0]) > 0.0, "dt {dt}");
    }
}

#[test]
fn compare_explains_each_missed_contact_and_each_ball_that_passed_through() {
    let out = toibox(&[
        "compare",
        "scenes/bullets.ron",
        "--toi",
        "analytic,sliced:150",
        "--explain",
        "3",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let section = |name: &str| {
        let start = text
            .find(&format!("\n{name}:\n"))
            .unwrap_or_else(|| panic!("no {name} section in {text}"));
        text[start + 1..]
            .split("\n\n")
            .next()
            .expect("a section")
            .to_owned()
    };
    let analytic = section("analytic");
    assert!(analytic.contains("nothing missed"), "{analytic}");
    let sliced = section("sliced:150");
    let lines: Vec<&str> = sliced.lines().skip(1).collect();
    // Three of each kind at most, by kind: missed first, then passed through
    let missed = lines
        .iter()
        .filter(|l| l.trim_start().starts_with("missed"))
        .count();
    let through = (lines.iter())
        .filter(|l| l.trim_start().starts_with("passed through"))
        .count();
    assert_eq!((missed, through), (3, 3), "{sliced}");
    for line in &lines {
        // Balls by their scene names, the other body, a depth
        assert!(line.contains("step") && line.contains("depth"), "{line}");
        assert!(line.contains("(pane ") || line.contains("(pair "), "{line}");
        assert!(
            line.contains("polygon 0") || line.contains("ball "),
            "{line}"
        );
    }
}

#[test]
fn compare_slices_sets_the_sliced_strategies_beside_analytic() {
    let out = json(&toibox(&[
        "compare",
        "scenes/bullets.ron",
        "--slices",
        "5,50",
        "--json",
    ]));
    let names: Vec<&str> = (out["results"].as_array().expect("results").iter())
        .map(|r| r["toi"].as_str().expect("a name"))
        .collect();
    assert_eq!(
        names,
        [
            "analytic",
            "sliced:5",
            "sliced:50",
            "sliced-bisect:5",
            "sliced-bisect:50"
        ]
    );
    // With --plot, the trade-off: one line per family, analytic on its own
    let dir = scratch("compare-pareto");
    let picture = dir.join("pareto.svg");
    let out = toibox(&[
        "compare",
        "scenes/bullets.ron",
        "--slices",
        "5,50",
        "--plot",
        picture.to_str().expect("a UTF-8 path"),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let svg = std::fs::read_to_string(&picture).expect("the picture");
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    for label in ["analytic", "sliced", "sliced-bisect", "missed contacts"] {
        assert!(svg.contains(label), "no {label} in the picture");
    }
    let out = toibox(&[
        "compare",
        "scenes/bullets.ron",
        "--slices",
        "5",
        "--toi",
        "analytic",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--slices"), "{}", stderr(&out));
}

#[test]
fn output_read_only_in_part_ends_the_run_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // A reader that takes one line and closes the pipe, as `toibox run ... | head -1` does
    let mut child = command(&["run", "scenes/resting_pile.ron", "--events", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut first = String::new();
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    out.read_line(&mut first).expect("a first line");
    drop(out);
    let output = child.wait_with_output().expect("it ends");
    assert!(first.starts_with('{'), "JSON first: {first:?}");
    assert!(stderr(&output).is_empty(), "said: {}", stderr(&output));
    assert_ne!(output.status.code(), Some(101), "no panic");
}
