//! The plots drawn whole: files, sizes, colours, frames and awkward data.

use super::*;
use std::fs;

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut names: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    names
}

/// Four strategies over ten seconds at 60 Hz, shaped like a real comparison.
fn four_series() -> Vec<Series> {
    let time: Vec<f64> = (1..=600).map(|i| f64::from(i) / 60.0).collect();
    let curve = |f: &dyn Fn(f64) -> f64| time.iter().map(|&t| f(t)).collect::<Vec<_>>();
    let series = |label: &str, missed: f64, energy: &dyn Fn(f64) -> f64, depth: f64| Series {
        label: label.into(),
        time: time.clone(),
        missed: curve(&|t| (missed * t).floor()),
        faulty: curve(&|t| (missed * t / 40.0).floor()),
        drift: curve(&|t| missed * 1e-3 * t * t + 1e-14),
        energy: curve(energy),
        overlap: curve(&|t| depth * (1.0 + (t * 3.0).sin()).abs()),
    };
    vec![
        series("analytic", 0.0, &|t| 1e-13 * (t * 7.0).sin(), 0.0),
        series("sliced:150", 2.0, &|t| -0.002 * t, 0.004),
        series("sliced-bisect:150", 0.5, &|t| -0.0005 * t, 0.001),
        series("discrete", 60.0, &|t| 0.01 * t * t, 0.02),
    ]
}

/// A sliced and a bisecting family at four slice counts each, and the analytic sweep.
fn pareto_points() -> Vec<ParetoPoint> {
    let mut points = Vec::new();
    for (family, cost, misses) in [("sliced", 0.02, 4000.0), ("sliced-bisect", 0.03, 900.0)] {
        for slices in [5.0, 20.0, 80.0, 320.0] {
            points.push(ParetoPoint {
                label: format!("{slices}"),
                family: family.into(),
                ms_per_step: cost * slices,
                missed: (misses / (slices * slices) - 0.1).floor().max(0.0),
            });
        }
    }
    points.push(ParetoPoint {
        label: "analytic".into(),
        family: ANALYTIC.into(),
        ms_per_step: 0.4,
        missed: 0.0,
    });
    points
}

/// The width and height in the header of the PNG at `path`.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn writes_a_png_of_the_requested_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("compare.png");
    plot_comparison(&path, "synthetic scene", &four_series(), (900, 700)).unwrap();
    assert_eq!(png_size(&path), (900, 700));
    // Only the plot is left in the directory: the temporary file was renamed.
    assert_eq!(entries(dir.path()), vec![path.clone()]);

    // Writing again replaces the file; the extension is read in any case
    let upper = dir.path().join("pareto.PNG");
    plot_pareto(&upper, "cost", &pareto_points(), (300, 300)).unwrap();
    assert_eq!(png_size(&upper), (300, 300));
    plot_comparison(&path, "again", &four_series()[..1], (300, 300)).unwrap();
    assert_eq!(png_size(&path), (300, 300));
    assert_eq!(entries(dir.path()), vec![path, upper]);
}

/// How many pixels of the PNG at `path` have exactly `colour`.
fn pixels_of(path: &Path, colour: RGBColor) -> usize {
    let mut reader = png::Decoder::new(fs::File::open(path).unwrap())
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = match info.color_type {
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        other => panic!("unexpected colour type {other:?}"),
    };
    buf[..info.buffer_size()]
        .chunks_exact(channels)
        .filter(|p| (p[0], p[1], p[2]) == (colour.0, colour.1, colour.2))
        .count()
}

#[test]
fn curves_stay_inside_their_frame() {
    // Curves along every edge of the data: zeros from time 0, a maximum at the last time,
    // a lone point in a corner; four series, so the first is drawn widest
    assert!(register_font());
    let (width, height) = (640u32, 420u32);
    let layout = Layout::new((width, height));
    for (x, y) in [
        (Axis::time(&[0.0, 2.0]), Axis::for_values(&[0.0, 5.0])),
        (
            Axis::time(&[0.0, 2.0]),
            Axis::for_values(&[1e-9, 1e-3, 7.0]),
        ),
    ] {
        let (lo, hi) = (y.range.0.max(1e-9), 5.0);
        let curves: Vec<Curve> = (0..4)
            .map(|k| match k {
                0 => vec![vec![(0.0, lo), (1.0, lo), (2.0, lo)]],
                1 => vec![vec![(0.0, lo), (2.0, hi)]],
                2 => vec![vec![(0.0, hi), (2.0, hi)]],
                _ => vec![vec![(2.0, lo)]],
            })
            .collect();
        let frame = Frame {
            caption: "edges",
            x: &x,
            y: &y,
            x_desc: Some("time"),
            y_desc: None,
            y_label_width: 30,
        };
        let mut drawn = vec![255u8; (width * height * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut drawn, (width, height));
            draw_panel(&root.into_drawing_area(), &layout, &frame, &curves).unwrap();
        }
        // The frame the panel drew in, built again on a scratch picture
        let mut scratch = vec![255u8; drawn.len()];
        let root = BitMapBackend::with_buffer(&mut scratch, (width, height));
        let area = root.into_drawing_area();
        let (wx, wy) = widened(&area, &layout, &frame);
        let framed = Frame {
            x: &wx,
            y: &wy,
            ..frame
        };
        let mut builder = chart_builder(&area, &layout, &framed);
        let mut pixels = || -> Result<_, String> {
            with_chart!(builder, &framed, |chart| {
                let chart = &mut chart;
                Ok(chart.plotting_area().get_pixel_range())
            })
        };
        let (columns, rows) = pixels().unwrap();
        let mut seen = 0;
        for (k, pixel) in drawn.chunks_exact(3).enumerate() {
            let (px, py) = ((k % width as usize) as i32, (k / width as usize) as i32);
            if (0..4).any(|c| {
                let RGBColor(r, g, b) = colour(c);
                pixel == [r, g, b]
            }) {
                seen += 1;
                assert!(
                    (columns.start..=columns.end).contains(&px)
                        && (rows.start..=rows.end).contains(&py),
                    "{:?}: a curve at ({px}, {py}), outside {columns:?} x {rows:?}",
                    y.scale
                );
            }
        }
        assert!(seen > 1000, "the curves are drawn: {seen} pixels");
    }
}

#[test]
fn equal_curves_show_every_colour() {
    // Two strategies with the same values (sliced and sliced-bisect on the bullets): the
    // second is drawn over the first, which must still show beside it in every panel
    let first = four_series().swap_remove(1);
    let second = Series {
        label: "twin".into(),
        ..first.clone()
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("twins.png");
    plot_comparison(&path, "twins", &[first, second], DEFAULT_SIZE).unwrap();
    let (under, over) = (pixels_of(&path, colour(0)), pixels_of(&path, colour(1)));
    println!("pixels: first {under}, second {over}");
    assert!(over > 1000, "the curves are drawn: {over} pixels");
    // A pixel on each side of the second's three along every curve (drawn with equal
    // widths, the first would keep its legend swatch only, some 200 pixels)
    assert!(3 * under > over, "first {under} pixels, second {over}");
}

/// The texts of the SVG `svg`, trimmed.
fn svg_texts(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>')?.1.split_once("</text>"))
        .map(|(text, _)| text.trim())
        .collect()
}

#[test]
fn writes_an_svg_with_the_legend() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("compare.svg");
    plot_comparison(&path, "synthetic <scene>", &four_series(), DEFAULT_SIZE).unwrap();
    let svg = fs::read_to_string(&path).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
    assert!(svg.contains(r#"width="1200" height="900""#));
    let texts = svg_texts(&svg);
    for label in ["analytic", "sliced:150", "sliced-bisect:150", "discrete"] {
        assert!(texts.contains(&label), "{label} missing from {texts:?}");
    }
    assert!(texts.contains(&"synthetic &lt;scene&gt;"), "{texts:?}");

    let path = dir.path().join("pareto.svg");
    plot_pareto(&path, "cost", &pareto_points(), DEFAULT_SIZE).unwrap();
    let svg = fs::read_to_string(&path).unwrap();
    let texts = svg_texts(&svg);
    // The families, a point's label, and the floor of the log axis of misses
    for label in ["sliced", "sliced-bisect", "analytic", "320", "0"] {
        assert!(texts.contains(&label), "{label} missing from {texts:?}");
    }
}

#[test]
fn a_missing_directory_is_an_error_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-dir").join("compare.png");
    let err = plot_comparison(&path, "t", &four_series(), DEFAULT_SIZE).unwrap_err();
    assert!(
        matches!(&err, PlotError::Io { path: named, .. } if *named == path),
        "{err:?}"
    );
    assert!(err.to_string().contains("compare.png"), "{err}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn a_failed_rename_removes_the_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    // A non-empty directory in the target's place: the rename fails after drawing
    let path = dir.path().join("taken.svg");
    fs::create_dir(&path).unwrap();
    fs::write(path.join("keep"), b"x").unwrap();
    let err = plot_pareto(&path, "t", &pareto_points(), (400, 300)).unwrap_err();
    assert!(
        matches!(
            err,
            PlotError::Io {
                action: "renaming",
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(entries(dir.path()), vec![path.clone()]);
    assert_eq!(entries(&path), vec![path.join("keep")]);
}

#[test]
fn bad_sizes_paths_and_extensions_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.png");
    for size in [
        (0, 0),
        (100, 600),
        (600, MAX_SIDE + 1),
        (u32::MAX, u32::MAX),
    ] {
        let err = plot_comparison(&path, "t", &four_series(), size).unwrap_err();
        assert!(matches!(err, PlotError::Size { .. }), "{err:?}");
        assert!(err.to_string().contains("p.png"), "{err}");
    }
    let err = plot_comparison(&dir.path().join(".."), "t", &[], DEFAULT_SIZE).unwrap_err();
    assert!(matches!(err, PlotError::Path { .. }), "{err:?}");
    for name in ["p.jpg", "p", "p.svg.gz"] {
        let err = plot_pareto(&dir.path().join(name), "t", &[], DEFAULT_SIZE).unwrap_err();
        assert!(matches!(err, PlotError::Extension { .. }), "{err:?}");
        assert!(
            err.to_string().ends_with("allowed extensions: png, svg"),
            "{err}"
        );
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn awkward_data_is_drawn_without_panicking() {
    let dir = tempfile::tempdir().unwrap();
    let s = |label: &str, time: Vec<f64>, values: Vec<f64>| Series {
        label: label.into(),
        missed: values.clone(),
        energy: values.iter().map(|v| -v).collect(),
        overlap: values,
        time,
        ..Series::default()
    };
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let cases: Vec<(&str, Vec<Series>)> = vec![
        ("no series", vec![]),
        ("empty curves", vec![s("empty", vec![], vec![])]),
        ("one point", vec![s("one", vec![0.5], vec![0.1])]),
        ("zeros", vec![s("zero", vec![0.0, 1.0, 2.0], vec![0.0; 3])]),
        ("one time", vec![s("t", vec![2.0, 2.0], vec![1.0, 300.0])]),
        ("short curve", vec![s("t", vec![1.0, 2.0, 3.0], vec![1.0])]),
        (
            "non-finite",
            vec![s(
                "nan\nlabel",
                vec![0.0, 1.0, inf, 3.0, nan],
                vec![nan, 1.0, 2.0, 3e5, -inf],
            )],
        ),
        (
            "huge",
            vec![
                s("max", vec![0.0, 1.0], vec![f64::MAX, 1e-310]),
                s("tiny", vec![0.0, 1e-300], vec![1e-310, 5e-324]),
                s("offset", vec![0.0, 1.0], vec![1.0, 1.0 + 1e-15]),
                s("times", vec![-f64::MAX, f64::MAX], vec![0.0, 1.0]),
            ],
        ),
        (
            "many long labels",
            (0..40_u32)
                .map(|i| {
                    s(
                        &format!("strategy {i} {}", "x".repeat(i as usize * 5)),
                        vec![0.0, 1.0],
                        vec![f64::from(i), 1e3 * f64::from(i)],
                    )
                })
                .collect(),
        ),
    ];
    for (index, (title, series)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("case{index}.png"));
        plot_comparison(&path, &title.repeat(20), series, (MIN_SIDE, MIN_SIDE))
            .unwrap_or_else(|e| panic!("{title}: {e}"));
        plot_comparison(&path, title, series, (1000, 400))
            .unwrap_or_else(|e| panic!("{title}: {e}"));
        assert_eq!(png_size(&path), (1000, 400), "{title}");
        // The points of the same data, as a Pareto chart
        let points: Vec<ParetoPoint> = (series.iter())
            .flat_map(|s| {
                s.time.iter().zip(&s.missed).map(|(&t, &m)| ParetoPoint {
                    label: s.label.clone(),
                    family: s.label.clone(),
                    ms_per_step: t,
                    missed: m,
                })
            })
            .collect();
        let path = dir.path().join(format!("case{index}.svg"));
        plot_pareto(&path, title, &points, (MIN_SIDE, MIN_SIDE))
            .unwrap_or_else(|e| panic!("{title}: {e}"));
    }
}
