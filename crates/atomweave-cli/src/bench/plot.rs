//! `atomweave bench-plot`: turns each `<method>_benchmark.csv` written by
//! `atomweave bench -f` into a PNG showing time per operation and resident
//! memory against the size of the space, one line per layer.

use std::error::Error;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::types::{RangedCoordf64, RangedCoordu64};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub(crate) const SUFFIX: &str = "_benchmark.csv";
const HEADER: &str = "layer,atoms,ns_per_op,rss_bytes";
const WIDTH: u32 = 1200;
const HEIGHT: u32 = 900;
const FONT: &str = "sans-serif";
const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
];
/// matplotlib's "tab10", the colours the old matplotlib plots used.
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
/// Fainter than plotters' default minor grid, which crowds dense lines.
const GRID: RGBColor = RGBColor(238, 238, 238);
const TITLE_PX: u32 = 28;
const DESC_PX: u32 = 20;
const LABEL_PX: u32 = 17;
const MARGIN: u32 = 20;
const TOP_X_AREA: u32 = 10;
const BOTTOM_X_AREA: u32 = 62;
const SWATCH: i32 = 36;
const MARKER: i32 = 6;

/// Writes `<method>_benchmark.png` beside every `<method>_benchmark.csv` in `dir`; returns the PNGs written.
pub fn plot_dir(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("reading directory {}: {e}", dir.display()))?;
    let mut csvs = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("reading directory {}: {e}", dir.display()))?.path();
        let is_csv = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.len() > SUFFIX.len() && n.ends_with(SUFFIX));
        if is_csv && path.is_file() {
            csvs.push(path);
        }
    }
    if csvs.is_empty() {
        return Err(format!("no *{SUFFIX} files in {} (`atomweave bench -f` writes them)", dir.display()));
    }
    csvs.sort();
    csvs.into_iter()
        .map(|csv| {
            let png = csv.with_extension("png");
            plot_file(&csv, &png)?;
            Ok(png)
        })
        .collect()
}

/// Plots one CSV file into one PNG file.
pub fn plot_file(csv: &Path, png: &Path) -> Result<(), String> {
    if !png.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
        return Err(format!("{}: the plot's file name must end in .png", png.display()));
    }
    let layers = read_layers(csv)?;
    load_font()?;
    // Fails early with a plain message: the encoder reports I/O errors as debug dumps.
    fs::File::create(png).map_err(|e| format!("writing {}: {e}", png.display()))?;
    let name = csv.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let method = name.strip_suffix(SUFFIX).or_else(|| name.strip_suffix(".csv")).unwrap_or(name);
    render(&layers, method, png).map_err(|e| {
        // Leave no empty or half-written picture behind.
        let _ = fs::remove_file(png);
        format!("drawing {}: {e}", png.display())
    })
}

/// One measurement, in the units plotted.
struct Point {
    atoms: u64,
    ns: f64,
    mib: f64,
}

/// The measurements of one layer, in order of space size.
struct Layer {
    name: String,
    points: Vec<Point>,
}

impl Layer {
    /// A line through points that share one x would be invisible or vertical.
    fn needs_markers(&self) -> bool {
        self.points.iter().all(|p| p.atoms == self.points[0].atoms)
    }
}

/// Parses a benchmark CSV into its layers, in order of first appearance.
fn read_layers(csv: &Path) -> Result<Vec<Layer>, String> {
    let text = fs::read_to_string(csv).map_err(|e| format!("reading {}: {e}", csv.display()))?;
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty());
    match lines.next() {
        Some((_, HEADER)) => {}
        Some((n, l)) => return Err(format!("{}: line {n}: expected the header `{HEADER}`, found `{l}`", csv.display())),
        None => return Err(format!("{}: empty file, expected the header `{HEADER}` and rows", csv.display())),
    }
    let mut layers: Vec<Layer> = Vec::new();
    for (n, line) in lines {
        let (layer, point) = parse_row(line).map_err(|e| format!("{}: line {n}: {e}: `{line}`", csv.display()))?;
        match layers.iter_mut().find(|l| l.name == layer) {
            Some(l) => l.points.push(point),
            None => layers.push(Layer { name: layer.to_string(), points: vec![point] }),
        }
    }
    if layers.is_empty() {
        return Err(format!("{}: no rows after the header", csv.display()));
    }
    for layer in &mut layers {
        layer.points.sort_by_key(|p| p.atoms);
    }
    Ok(layers)
}

/// Parses `layer,atoms,ns_per_op,rss_bytes`.
fn parse_row(line: &str) -> Result<(&str, Point), String> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let [layer, atoms, ns, rss] = fields[..] else {
        return Err(format!("expected 4 fields ({HEADER}), found {}", fields.len()));
    };
    if layer.is_empty() {
        return Err("the layer name is empty".to_string());
    }
    let atoms = atoms.parse::<u64>().map_err(|_| format!("atoms `{atoms}` is not a whole number"))?;
    let ns = ns.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).ok_or_else(|| format!("ns_per_op `{ns}` is not a non-negative number"))?;
    let rss = rss.parse::<u64>().map_err(|_| format!("rss_bytes `{rss}` is not a whole number"))?;
    Ok((layer, Point { atoms, ns, mib: rss as f64 / (1024.0 * 1024.0) }))
}

/// Registers a system TrueType font with plotters, once per process: its
/// pure-Rust text renderer has no fonts of its own.
fn load_font() -> Result<(), String> {
    static LOADED: OnceLock<Result<(), String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            for path in FONT_PATHS {
                let Ok(bytes) = fs::read(path) else { continue };
                // plotters keeps registered fonts for the life of the process.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font(FONT, FontStyle::Normal, bytes).is_ok() {
                    return Ok(());
                }
            }
            Err(format!("no usable font for the plot text (looked for {}); install one with `apt-get install fonts-dejavu-core`", FONT_PATHS.join(", ")))
        })
        .clone()
}

/// Draws the whole picture into `png`.
fn render(layers: &[Layer], method: &str, png: &Path) -> Result<(), Box<dyn Error>> {
    let root = BitMapBackend::new(png, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(&format!("{method}: time and memory against space size"), (FONT, TITLE_PX))?;
    let legend_height = draw_legend(&root, layers)?;
    let (_, panels) = root.split_vertically(legend_height);
    // Both plotting areas get the same height; only the bottom panel has x labels.
    let plot_height = panels.dim_in_pixel().1.saturating_sub(TOP_X_AREA + BOTTOM_X_AREA + 2 * MARGIN) / 2;
    let (top, bottom) = panels.split_vertically(MARGIN + plot_height + TOP_X_AREA);

    let x = x_range(layers);
    let ns_max = layers.iter().flat_map(|l| &l.points).map(|p| p.ns).fold(0.0, f64::max);
    let ns_top = if ns_max > 0.0 { ns_max * 1.05 } else { 1.0 };
    let mib = mib_range(layers);
    // Room for the widest tick label beside the axis description, the same in
    // both panels so their axes line up.
    let label_style = TextStyle::from((FONT, LABEL_PX).into_font());
    let mut widest = 0;
    for label in [short_number(ns_top), short_number(mib.end)] {
        widest = widest.max(root.estimate_text_size(&label, &label_style)?.0);
    }
    let y_area = widest.max(40) + DESC_PX + 30;

    let mut chart = panel(&top, x.clone(), 0.0..ns_top, TOP_X_AREA, y_area)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|_| String::new())
        .y_desc("ns per operation")
        .y_label_formatter(&|v| short_number(*v))
        .label_style((FONT, LABEL_PX))
        .light_line_style(GRID)
        .axis_desc_style((FONT, DESC_PX))
        .draw()?;
    draw_series(&mut chart, layers, |p| p.ns)?;

    let mut chart = panel(&bottom, x, mib, BOTTOM_X_AREA, y_area)?;
    chart
        .configure_mesh()
        .x_desc("atoms in the space")
        .x_label_formatter(&|v| group_digits(*v))
        .y_desc("resident memory (MiB)")
        .y_label_formatter(&|v| short_number(*v))
        .label_style((FONT, LABEL_PX))
        .light_line_style(GRID)
        .axis_desc_style((FONT, DESC_PX))
        .draw()?;
    draw_series(&mut chart, layers, |p| p.mib)?;

    root.present()?;
    Ok(())
}

type Chart<'a> = ChartContext<'a, BitMapBackend<'a>, Cartesian2d<RangedCoordu64, RangedCoordf64>>;
type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;
type DrawResult<'a, T> = Result<T, DrawingAreaErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>>;

/// One panel's axes: the atoms on x, `y` on y.
fn panel<'a>(area: &Area<'a>, x: Range<u64>, y: Range<f64>, x_area: u32, y_area: u32) -> DrawResult<'a, Chart<'a>> {
    ChartBuilder::on(area)
        .margin_top(MARGIN)
        .margin_right(3 * MARGIN)
        .margin_left(MARGIN)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area)
        .build_cartesian_2d(x, y)
}

/// One line per layer, or markers where a line could not be seen. Each
/// layer's line is thinner than the one before, so that where two layers
/// give the same figures the earlier still shows around the later.
fn draw_series<'a>(chart: &mut Chart<'a>, layers: &[Layer], y: impl Fn(&Point) -> f64) -> DrawResult<'a, ()> {
    for (i, (layer, colour)) in layers.iter().zip(COLOURS.iter().cycle()).enumerate() {
        let width = 4 - i.min(2) as u32;
        if layer.needs_markers() {
            chart.draw_series(layer.points.iter().map(|p| Circle::new((p.atoms, y(p)), MARKER, colour.filled())))?;
        } else {
            // One path per segment: plotters joins a thick polyline with unbounded
            // miters, which shoot spikes across the picture where noisy data turns.
            chart.draw_series(
                layer.points.windows(2).map(|w| PathElement::new(vec![(w[0].atoms, y(&w[0])), (w[1].atoms, y(&w[1]))], colour.stroke_width(width))),
            )?;
        }
    }
    Ok(())
}

/// Draws the layers' names and colours in centred rows across the top of
/// `area`, outside the panels so it never hides data; returns the height used.
fn draw_legend(area: &Area, layers: &[Layer]) -> Result<u32, Box<dyn Error>> {
    let style = TextStyle::from((FONT, DESC_PX).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let usable = area.dim_in_pixel().0 - 2 * MARGIN;
    // Rows of (layer, colour, width of its entry).
    let mut rows = vec![Vec::new()];
    let mut row_width = 0;
    for (layer, colour) in layers.iter().zip(COLOURS.iter().cycle()) {
        let width = SWATCH as u32 + 8 + area.estimate_text_size(&layer.name, &style)?.0 + 30;
        if row_width > 0 && row_width + width > usable {
            rows.push(Vec::new());
            row_width = 0;
        }
        rows.last_mut().expect("rows starts non-empty").push((layer, colour, width));
        row_width += width;
    }
    let row_height = 2 * DESC_PX;
    for (r, entries) in rows.iter().enumerate() {
        let y = (r as u32 * row_height + row_height / 2) as i32;
        let total: u32 = entries.iter().map(|e| e.2).sum();
        let mut x = (area.dim_in_pixel().0.saturating_sub(total) / 2) as i32;
        for &(layer, colour, width) in entries {
            area.draw(&PathElement::new(vec![(x, y), (x + SWATCH, y)], colour.stroke_width(3)))?;
            if layer.needs_markers() {
                area.draw(&Circle::new((x + SWATCH / 2, y), MARKER, colour.filled()))?;
            }
            area.draw(&Text::new(layer.name.as_str(), (x + SWATCH + 8, y), style.clone()))?;
            x += width as i32;
        }
    }
    Ok(rows.len() as u32 * row_height)
}

/// The atoms axis: every point, and some room when all share one size.
fn x_range(layers: &[Layer]) -> Range<u64> {
    let atoms = || layers.iter().flat_map(|l| &l.points).map(|p| p.atoms);
    let (lo, hi) = (atoms().min().unwrap_or(0), atoms().max().unwrap_or(0));
    if lo == hi {
        let pad = (lo / 20).max(1);
        lo.saturating_sub(pad)..hi.saturating_add(pad)
    } else {
        lo..hi
    }
}

/// The memory axis: every point with a margin, so a flat line is not drawn on the frame.
fn mib_range(layers: &[Layer]) -> Range<f64> {
    let mib = || layers.iter().flat_map(|l| &l.points).map(|p| p.mib);
    let (lo, hi) = (mib().fold(f64::INFINITY, f64::min), mib().fold(0.0, f64::max));
    let pad = if hi > lo { (hi - lo) * 0.05 } else { 1.0 };
    (lo - pad).max(0.0)..hi + pad
}

/// `1234567` as `1,234,567`.
fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() * 4 / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A tick value without the float noise of its computation
/// (`0.30000000000000004`), grouped like the atoms axis when large.
fn short_number(v: f64) -> String {
    if v >= 1000.0 {
        return group_digits(v.round() as u64);
    }
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    /// A fresh directory under the system temp dir, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("atomweave-plot-{}-{name}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn write(&self, name: &str, text: &str) -> PathBuf {
            let path = self.0.join(name);
            fs::write(&path, text).unwrap();
            path
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// Width and height from the IHDR chunk, which a PNG must start with.
    fn png_size(path: &Path) -> (u32, u32) {
        let bytes = fs::read(path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG: {}", path.display());
        assert_eq!(&bytes[12..16], b"IHDR");
        let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
        (be(16), be(20))
    }

    #[test]
    fn two_layers_make_a_png() {
        let dir = Scratch::new("two-layers");
        let mut csv = format!("{HEADER}\n");
        for i in 0..100u64 {
            let spike = if i % 37 == 5 { 150.0 } else { 0.0 };
            let atoms = 262_144 + i * 100;
            let ns = 80.0 + (i * 7 % 11) as f64 - 5.0 + spike;
            writeln!(csv, "AtomSpace,{atoms},{ns:.1},{}", 104_857_600 + i * 4096).unwrap();
            writeln!(csv, "AtomTable,{atoms},{:.1},{}", ns - 20.0, 98_566_144 + i * 4096).unwrap();
        }
        dir.write("addLink_benchmark.csv", &csv);
        dir.write("notes.txt", "not a benchmark");
        let pngs = plot_dir(&dir.0).unwrap();
        assert_eq!(pngs, [dir.0.join("addLink_benchmark.png")]);
        assert_eq!(png_size(&pngs[0]), (WIDTH, HEIGHT));
    }

    #[test]
    fn single_row_makes_a_png() {
        let dir = Scratch::new("single-row");
        let csv = dir.write("getType_benchmark.csv", &format!("{HEADER}\nAtomSpace,262144,81.5,104857600\n\n"));
        let png = dir.0.join("getType.png");
        plot_file(&csv, &png).unwrap();
        assert_eq!(png_size(&png), (WIDTH, HEIGHT));
    }

    #[test]
    fn malformed_line_is_named() {
        let dir = Scratch::new("malformed");
        let text = format!("{HEADER}\nAtomSpace,262144,81.5,104857600\n\nAtomSpace,many,80.0,104857600\n");
        let csv = dir.write("addNode_benchmark.csv", &text);
        let err = plot_file(&csv, &dir.0.join("addNode_benchmark.png")).unwrap_err();
        assert!(err.contains("addNode_benchmark.csv: line 4: atoms `many`"), "{err}");
        let err = plot_dir(&dir.0).unwrap_err();
        assert!(err.contains("line 4"), "{err}");

        dir.write("addNode_benchmark.csv", &format!("{HEADER}\nAtomSpace,262144,81.5\n"));
        let err = plot_dir(&dir.0).unwrap_err();
        assert!(err.contains("line 2: expected 4 fields"), "{err}");
    }

    #[test]
    fn empty_directory_is_an_error() {
        let dir = Scratch::new("empty");
        let err = plot_dir(&dir.0).unwrap_err();
        assert!(err.contains("no *_benchmark.csv files"), "{err}");
    }
}
