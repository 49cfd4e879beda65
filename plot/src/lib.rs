//! PNG charts for shogilab's reports: line charts (training loss, interval width against games)
//! and estimate-against-reference scatter plots with error bars (piece values against the
//! German Chu Shogi Association table). A line chart puts its legend in the corner whose
//! legend-sized box its lines and bars cross least, so the legend hides as little as it can.
//!
//! The font (DejaVu Sans, `assets/fonts/`, Bitstream Vera licence) is compiled in, so charts
//! render the same on a machine without any fonts installed. Every chart is drawn to a temporary
//! file beside its destination and renamed into place: a failed render never leaves half a PNG.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::path::Path;
use std::sync::Once;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
const SIZE: (u32, u32) = (1000, 640);
// twelve distinguishable colours, so that a chart of up to twelve lines repeats none
const PALETTE: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 0),
    RGBColor(255, 187, 120),
];

/// Why a chart could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("{path}: nothing to plot ({what})")]
    Empty { path: String, what: String },
    #[error("{path}: {msg}")]
    Render { path: String, msg: String },
}

/// One named line of a line chart.
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// An interval `(lo, hi)` for each point, drawn as an error bar with a marker on the
    /// point; empty: a plain line.
    pub bars: Vec<(f64, f64)>,
}

/// One labelled estimate: `x` is the reference, `y` the estimate with its interval `[lo, hi]`.
#[derive(Debug, Clone)]
pub struct Estimate {
    pub label: String,
    pub x: f64,
    pub y: f64,
    pub lo: f64,
    pub hi: f64,
}

/// Axis titles and chart caption.
#[derive(Debug, Clone, Copy)]
pub struct Labels<'a> {
    pub title: &'a str,
    pub x: &'a str,
    pub y: &'a str,
}

fn font_ready() {
    static ONCE: Once = Once::new();
    // The font is a compile-time constant known to parse; a failure only loses text.
    ONCE.call_once(|| {
        let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Range of `values` with a margin, never empty.
fn span(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        return None;
    }
    let pad = ((hi - lo) * 0.05).max(1e-6);
    Some((lo - pad, hi + pad))
}

/// What a drawing step returns (plotters' errors, or a message).
type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draw into a temporary PNG next to `path`, then put it in place (`shogilab_fsio`).
fn render(
    path: &Path,
    draw: impl FnOnce(&DrawingArea<BitMapBackend, plotters::coord::Shift>) -> DrawResult,
) -> Result<(), PlotError> {
    font_ready();
    let fail = |msg: String| PlotError::Render { path: path.display().to_string(), msg };
    let drawn = shogilab_fsio::write_atomic_with(path, |tmp| -> DrawResult {
        let root = BitMapBackend::new(tmp, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
        Ok(())
    })
    .map_err(|e| fail(e.to_string()))?;
    drawn.map_err(|e| fail(e.to_string()))
}

/// The plotting area of a chart: caption, axis ranges, the mesh and the axis labels.
fn axes<'a, 'b>(
    root: &'a DrawingArea<BitMapBackend<'b>, plotters::coord::Shift>,
    labels: &Labels,
    xs: (f64, f64),
    ys: (f64, f64),
) -> Result<
    ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    Box<dyn std::error::Error>,
> {
    let mut chart = ChartBuilder::on(root)
        .caption(labels.title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(xs.0..xs.1, ys.0..ys.1)?;
    chart
        .configure_mesh()
        .x_desc(labels.x)
        .y_desc(labels.y)
        .label_style(("sans-serif", 14))
        .draw()?;
    Ok(chart)
}

/// A line chart with one line per series and a legend in the corner the lines cross least.
pub fn line_chart(path: &Path, labels: Labels, series: &[Series]) -> Result<(), PlotError> {
    let all = || series.iter().flat_map(|s| s.points.iter().copied());
    let bar_ends = series.iter().flat_map(|s| s.bars.iter().flat_map(|b| [b.0, b.1]));
    let (Some(xs), Some(ys)) = (span(all().map(|p| p.0)), span(all().map(|p| p.1).chain(bar_ends)))
    else {
        return Err(PlotError::Empty {
            path: path.display().to_string(),
            what: format!("{} series without finite points", series.len()),
        });
    };
    render(path, |root| {
        let mut chart = axes(root, &labels, xs, ys)?;
        for (i, s) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let pts = s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite());
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                .label(s.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(2))
                });
            draw_bars(&mut chart, s, color)?;
        }
        chart
            .configure_series_labels()
            .position(legend_corner(series, xs, ys).position())
            .label_font(("sans-serif", 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    })
}

/// A corner of the plotting area, where a legend may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Corner {
    right: bool,
    upper: bool,
}

impl Corner {
    /// Tried in this order; the first of those the data crosses least wins.
    const ALL: [Corner; 4] = [
        Corner { right: true, upper: true },
        Corner { right: false, upper: true },
        Corner { right: true, upper: false },
        Corner { right: false, upper: false },
    ];

    fn position(self) -> SeriesLabelPosition {
        match (self.right, self.upper) {
            (true, true) => SeriesLabelPosition::UpperRight,
            (false, true) => SeriesLabelPosition::UpperLeft,
            (true, false) => SeriesLabelPosition::LowerRight,
            (false, false) => SeriesLabelPosition::LowerLeft,
        }
    }

    /// Whether `(fx, fy)`, a point as fractions of the axes' ranges, lies in this corner's box
    /// of `w` × `h` (fractions too).
    fn holds(self, (fx, fy): (f64, f64), w: f64, h: f64) -> bool {
        let x_in = if self.right { fx >= 1.0 - w } else { fx <= w };
        let y_in = if self.upper { fy >= 1.0 - h } else { fy <= h };
        x_in && y_in
    }
}

/// The corner whose legend-sized box the lines and bars cross least (sampled along each
/// segment), so that the legend hides as little of the data as it can; upper right on a tie.
fn legend_corner(series: &[Series], xs: (f64, f64), ys: (f64, f64)) -> Corner {
    // a legend row is about 20 px of the plot's ~520; its width about a quarter of the plot
    let (w, h) = (0.25, ((series.len() as f64 * 20.0 + 24.0) / 520.0).min(1.0));
    let frac = |(x, y): (f64, f64)| ((x - xs.0) / (xs.1 - xs.0), (y - ys.0) / (ys.1 - ys.0));
    let samples: Vec<(f64, f64)> = series.iter().flat_map(traced).map(frac).collect();
    let crossings = |c: &Corner| samples.iter().filter(|&&p| c.holds(p, w, h)).count();
    Corner::ALL.into_iter().min_by_key(crossings).unwrap_or(Corner::ALL[0])
}

/// Points along a series' line (its finite points and 16 steps along each segment between
/// them) and the ends of its bars.
fn traced(s: &Series) -> Vec<(f64, f64)> {
    const STEPS: usize = 16;
    let finite = |p: &(f64, f64)| p.0.is_finite() && p.1.is_finite();
    let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(finite).collect();
    let along = pts.windows(2).flat_map(|w| {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        (0..STEPS).map(move |i| {
            let t = i as f64 / STEPS as f64;
            (x0 + t * (x1 - x0), y0 + t * (y1 - y0))
        })
    });
    let bar_ends = s.points.iter().zip(&s.bars).flat_map(|(p, b)| [(p.0, b.0), (p.0, b.1)]);
    along.chain(pts.last().copied()).chain(bar_ends.filter(finite)).collect()
}

/// A series' error bars, each with a marker on its point (nothing without bars).
fn draw_bars(
    chart: &mut ChartContext<'_, BitMapBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    s: &Series,
    color: RGBColor,
) -> DrawResult {
    let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
    let bars = s.points.iter().zip(&s.bars).filter(|(p, b)| finite(&[p.0, p.1, b.0, b.1]));
    chart.draw_series(
        bars.map(|(p, b)| ErrorBar::new_vertical(p.0, b.0, p.1, b.1, color.filled(), 10)),
    )?;
    Ok(())
}

/// Estimates (y, with vertical error bars) against reference values (x), each point labelled,
/// with the line y = x drawn for comparison when `diagonal` is set.
pub fn estimates_chart(
    path: &Path,
    labels: Labels,
    points: &[Estimate],
    diagonal: bool,
) -> Result<(), PlotError> {
    let xs = span(points.iter().map(|p| p.x));
    // with the diagonal, both axes span both ranges, so the diagonal crosses the chart
    let ys = span(
        points
            .iter()
            .flat_map(|p| [p.lo, p.hi, p.y])
            .chain(xs.filter(|_| diagonal).into_iter().flat_map(|x| [x.0, x.1])),
    );
    let (Some(xs), Some(ys)) = (xs, ys) else {
        return Err(PlotError::Empty {
            path: path.display().to_string(),
            what: "no estimate with finite numbers".into(),
        });
    };
    render(path, |root| {
        let mut chart = axes(root, &labels, xs, ys)?;
        if diagonal {
            let (a, b) = (xs.0.max(ys.0), xs.1.min(ys.1));
            chart
                .draw_series(LineSeries::new([(a, a), (b, b)], BLACK.mix(0.4)))?
                .label("y = x")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], BLACK.mix(0.4)));
        }
        let color = PALETTE[0];
        let finite =
            || points.iter().filter(|p| [p.x, p.y, p.lo, p.hi].iter().all(|v| v.is_finite()));
        chart
            .draw_series(
                finite().map(|p| ErrorBar::new_vertical(p.x, p.lo, p.y, p.hi, color.filled(), 8)),
            )?
            .label("estimate, 95% interval")
            .legend(move |(x, y)| Circle::new((x + 12, y), 4, color.filled()));
        chart.draw_series(finite().map(|p| {
            EmptyElement::at((p.x, p.y))
                + Circle::new((0, 0), 3, color.filled())
                + Text::new(p.label.clone(), (6, -14), ("sans-serif", 12))
        }))?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 15))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn tmpdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("shogilab-plot-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn is_png(path: &Path) -> bool {
        std::fs::read(path)
            .map(|b| b.len() > 1000 && b.starts_with(b"\x89PNG\r\n\x1a\n"))
            .unwrap_or(false)
    }

    #[test]
    fn line_chart_writes_a_png_and_no_temporary() {
        let dir = tmpdir("line");
        let path = dir.join("loss.png");
        let s = Series {
            name: "loss".into(),
            points: (0..50).map(|i| (i as f64, 1.0 / (1.0 + i as f64))).collect(),
            bars: Vec::new(),
        };
        line_chart(&path, Labels { title: "t", x: "step", y: "loss" }, &[s]).unwrap();
        assert!(is_png(&path));
        let names: Vec<_> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn estimates_chart_writes_a_png() {
        let dir = tmpdir("est");
        let path = dir.join("values.png");
        let pts: Vec<Estimate> = (1..8)
            .map(|i| Estimate {
                label: format!("p{i}"),
                x: i as f64,
                y: i as f64 * 1.1,
                lo: i as f64 - 0.5,
                hi: i as f64 * 1.2 + 0.5,
            })
            .collect();
        estimates_chart(&path, Labels { title: "values", x: "GCSA", y: "measured" }, &pts, true)
            .unwrap();
        assert!(is_png(&path));
    }

    fn line(name: &str, points: &[(f64, f64)]) -> Series {
        Series { name: name.into(), points: points.to_vec(), bars: Vec::new() }
    }

    #[test]
    fn the_legend_goes_where_the_lines_are_not() {
        let (xs, ys) = ((0.0, 10.0), (0.0, 10.0));
        // a falling line leaves the upper right free: the default corner
        let falling = line("f", &[(0.0, 10.0), (10.0, 0.0)]);
        assert_eq!(legend_corner(&[falling], xs, ys), Corner { right: true, upper: true });
        // a rising line crosses it: the upper left is the first free corner
        let rising = line("r", &[(0.0, 0.0), (10.0, 10.0)]);
        assert_eq!(legend_corner(&[rising], xs, ys), Corner { right: false, upper: true });
        // lines along the top of the chart and a bar reaching the lower right: lower left
        let top = line("t", &[(0.0, 9.5), (10.0, 9.5)]);
        let mut bar = line("b", &[(9.5, 5.0)]);
        bar.bars = vec![(0.5, 5.0)];
        assert_eq!(legend_corner(&[top, bar], xs, ys), Corner { right: false, upper: false });
    }

    #[test]
    fn nothing_to_plot_is_an_error_naming_the_file() {
        let dir = tmpdir("empty");
        let path = dir.join("none.png");
        let e = line_chart(&path, Labels { title: "t", x: "x", y: "y" }, &[]).unwrap_err();
        assert!(e.to_string().contains("none.png"), "{e}");
        assert!(!path.exists());
    }

    #[test]
    fn unwritable_destination_is_an_error() {
        let path = Path::new("/proc/shogilab-no-such-dir/x.png");
        let s = Series { name: "a".into(), points: vec![(0.0, 1.0), (1.0, 2.0)], bars: Vec::new() };
        let e = line_chart(path, Labels { title: "t", x: "x", y: "y" }, &[s]).unwrap_err();
        assert!(e.to_string().contains("x.png"), "{e}");
    }
}
