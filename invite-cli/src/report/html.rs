//! The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched).
//! The failures come first, under the summary line: each with its relation in full and its
//! inputs a click away in full. Then three charts (outcomes per site, tests over time on a real
//! time axis, projected overhead against ρ on axes fitted to the sites) and the tables of the
//! text report. The page fits a 1,280 px window: long text wraps anywhere, tables included.
//! Every piece of logged text passes through [`esc`]: relation texts, inputs and panic messages
//! come from the program under test and may contain anything.

use std::fmt::Write as _;

use super::aggregate::{Failure, Summary};
use super::text::input_label;
use super::tuning::format_rho;
use invite::record::{Outcome, OutcomeCounts, REPLAY_INPUT};

/// HTML-escapes text for element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn colour(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "#2e7d32",
        Outcome::Fail => "#c62828",
        Outcome::Error => "#ef6c00",
        Outcome::Timeout => "#6a1b9a",
        Outcome::Inconclusive => "#757575",
        Outcome::Blocked => "#5d4037",
        Outcome::Skipped => "#b0bec5",
        // An outcome of a later version.
        _ => "#757575",
    }
}

/// The report as a self-contained HTML page.
pub fn render(s: &Summary) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Invite report</title><style>{CSS}</style></head><body>\
         <h1>Invite report</h1><p>{} records from {} file(s), {} instance(s); {} bad line(s) skipped.</p>",
        s.input.records,
        s.input.files,
        s.instances.len(),
        s.input.bad_lines + s.input.unknown_kinds
    );
    failures(&mut h, s);
    // A fleet's tables; a single instance's page stays as it was.
    let fleet = s.instances.len() > 1;
    if fleet {
        fleet_failures(&mut h, s);
    }
    legend(&mut h);
    h.push_str("<h2>Outcomes per site</h2>");
    outcomes_chart(&mut h, s);
    h.push_str("<h2>Tests over time</h2>");
    timeline_chart(&mut h, s);
    if s.tuning.is_some() {
        h.push_str("<h2>Projected overhead against &#961;</h2>");
        overhead_chart(&mut h, s);
    }
    tables(&mut h, s);
    if fleet {
        instances(&mut h, s);
    }
    h.push_str("</body></html>\n");
    h
}

/// A time to the second, without its fraction: `2026-11-22 10:01:00`.
fn second(t: &str) -> String {
    esc(&t.get(..19).unwrap_or(t).replace('T', " "))
}

/// Each kind of failure once, with how far it spread.
fn fleet_failures(h: &mut String, s: &Summary) {
    if s.fleet_failures.is_empty() {
        return;
    }
    h.push_str(
        "<h2>Failures across instances</h2><table id=\"fleet-failures\"><tr>\
         <th>fingerprint</th><th>site</th><th>test</th><th>outcome</th><th>failures</th>\
         <th>instances</th><th>first seen (UTC)</th><th>last seen (UTC)</th><th>versions</th></tr>",
    );
    for f in &s.fleet_failures {
        let _ = write!(
            h,
            "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td class=\"fail\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&f.fingerprint),
            esc(&f.site),
            esc(&f.test),
            f.outcome,
            f.failures,
            f.instances,
            second(&f.first),
            second(&f.last),
            esc(&f.versions.join(", "))
        );
    }
    h.push_str("</table>");
}

/// Each instance, and each version of each service.
fn instances(h: &mut String, s: &Summary) {
    let dash = |t: &str| {
        if t.is_empty() {
            "-".to_string()
        } else {
            esc(t)
        }
    };
    h.push_str(
        "<h2>Instances</h2><table id=\"instances\"><tr><th>instance</th><th>service</th>\
         <th>version</th><th>shard</th><th>tests</th><th>overhead</th><th>first seen (UTC)</th>\
         <th>last seen (UTC)</th></tr>",
    );
    for i in &s.instances {
        let _ = write!(
            h,
            "<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
            esc(&i.instance),
            dash(&i.service),
            dash(&i.version),
            dash(i.shard.as_deref().unwrap_or("")),
            i.tests,
            i.overhead_share
                .map_or("-".into(), |o| format!("{:.3}%", o * 100.0)),
            second(&i.first),
            second(&i.last)
        );
    }
    h.push_str(
        "</table><h2>Services and versions</h2><table id=\"versions\"><tr><th>service</th>\
         <th>version</th><th>instances</th><th>tests</th>",
    );
    for o in Outcome::ALL {
        let _ = write!(h, "<th>{o}</th>");
    }
    h.push_str("</tr>");
    for v in &s.versions {
        let _ = write!(
            h,
            "<tr><th>{}</th><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
            dash(&v.service),
            dash(&v.version),
            v.instances,
            v.tests
        );
        outcome_cells(h, &v.outcomes);
        h.push_str("</tr>");
    }
    h.push_str("</table>");
}

/// Logged text wraps anywhere (a long token too), tables shrink to the page with it, and
/// nothing is wider than the window: the page never scrolls sideways.
const CSS: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;overflow-wrap:anywhere}\
table{border-collapse:collapse;margin:1em 0;max-width:100%}td,th{border:1px solid #ccc;padding:2px 6px}\
td.n{text-align:right;white-space:nowrap}pre{background:#f4f4f4;padding:8px;margin:4px 0;\
white-space:pre-wrap;overflow-wrap:anywhere}svg{max-width:100%}\
.failure{margin:0 0 1em 1em}.failure p{margin:4px 0}summary{cursor:pointer}\
.legend span{display:inline-block;margin-right:1em}.sw{width:10px;height:10px;display:inline-block;margin-right:4px}\
.fail{color:#c62828}svg text{font:11px sans-serif}";

fn legend(h: &mut String) {
    h.push_str("<p class=\"legend\">");
    for o in Outcome::ALL {
        let _ = write!(
            h,
            "<span><i class=\"sw\" style=\"background:{}\"></i>{o}</span>",
            colour(o)
        );
    }
    h.push_str("</p>");
}

fn outcomes_chart(h: &mut String, s: &Summary) {
    let (label_w, bar_w, row) = (260.0, 480.0, 22.0);
    let height = row * s.sites.len().max(1) as f64 + 10.0;
    let _ = write!(
        h,
        "<svg id=\"outcomes\" width=\"{}\" height=\"{height}\" role=\"img\">",
        label_w + bar_w + 80.0
    );
    let most = s
        .sites
        .iter()
        .map(|x| x.outcomes.total())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    for (i, site) in s.sites.iter().enumerate() {
        let y = 5.0 + i as f64 * row;
        let _ = write!(
            h,
            "<text x=\"0\" y=\"{}\">{}</text>",
            y + 14.0,
            esc(&site.site)
        );
        let mut x = label_w;
        for o in Outcome::ALL {
            let n = site.outcomes.get(o);
            if n == 0 {
                continue;
            }
            let w = bar_w * n as f64 / most;
            let _ = write!(
                h,
                "<rect x=\"{x:.1}\" y=\"{y}\" width=\"{w:.1}\" height=\"{}\" fill=\"{}\">\
                 <title>{}: {n} {o}</title></rect>",
                row - 6.0,
                colour(o),
                esc(&site.site)
            );
            x += w;
        }
        let _ = write!(
            h,
            "<text x=\"{:.1}\" y=\"{}\">{}</text>",
            x + 4.0,
            y + 14.0,
            site.outcomes.total()
        );
    }
    h.push_str("</svg>");
}

/// The tests of the timeline, in bins of equal length on a real time axis.
#[derive(Debug, PartialEq)]
pub struct Binned {
    /// Minutes since the Unix epoch at which the first bin starts.
    pub start: i64,
    /// Minutes per bin: 1 for logs of up to [`MAX_BINS`] minutes, else a round length.
    pub width: i64,
    /// Outcomes per bin, every bin from the first test to the last, empty ones too.
    pub bins: Vec<OutcomeCounts>,
    /// Tests in minutes whose time could not be read (left off the chart).
    pub unplaced: u64,
}

/// Most bins the timeline draws; longer logs get longer bins.
pub const MAX_BINS: i64 = 120;

/// Bin lengths, in minutes, that read well on an axis.
const ROUND_WIDTHS: [i64; 12] = [1, 2, 5, 10, 15, 30, 60, 120, 240, 360, 720, 1440];

/// Minutes since the Unix epoch of a `YYYY-MM-DDTHH:MM` minute; `None` when it is not one.
pub fn minute_number(minute: &str) -> Option<i64> {
    let t = humantime::parse_rfc3339(&format!("{minute}:00Z")).ok()?;
    let secs = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(secs / 60).ok()
}

/// `YYYY-MM-DD HH:MM` of a minute number.
fn minute_text(minute: i64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(minute.max(0) as u64 * 60);
    let text = humantime::format_rfc3339_seconds(t).to_string();
    text.get(..16).unwrap_or(&text).replacen('T', " ", 1)
}

/// Places the per-minute buckets on a time axis: gaps stay gaps, and a long log is binned.
pub fn bin_timeline(buckets: &[super::aggregate::TimeBucket]) -> Option<Binned> {
    let mut placed = Vec::with_capacity(buckets.len());
    let mut unplaced = 0;
    for b in buckets {
        match minute_number(&b.minute) {
            Some(m) => placed.push((m, &b.outcomes)),
            None => unplaced += b.outcomes.total(),
        }
    }
    let first = placed.iter().map(|(m, _)| *m).min()?;
    let last = placed.iter().map(|(m, _)| *m).max()?;
    let span = last - first + 1;
    let needed = (span + MAX_BINS - 1) / MAX_BINS;
    let width = ROUND_WIDTHS
        .into_iter()
        .find(|w| *w >= needed)
        .unwrap_or_else(|| (needed + 1439) / 1440 * 1440);
    // Bins start on a multiple of their length, so that their edges are round times.
    let start = first.div_euclid(width) * width;
    let count = (last - start) / width + 1;
    let mut bins = vec![OutcomeCounts::default(); count as usize];
    for (m, outcomes) in placed {
        bins[((m - start) / width) as usize].merge(outcomes);
    }
    Some(Binned {
        start,
        width,
        bins,
        unplaced,
    })
}

fn timeline_chart(h: &mut String, s: &Summary) {
    let (w, ht, left, bottom) = (760.0, 200.0, 40.0, 30.0);
    let _ = write!(
        h,
        "<svg id=\"timeline\" width=\"{w}\" height=\"{ht}\" role=\"img\">"
    );
    let Some(t) = bin_timeline(&s.timeline) else {
        h.push_str("<text x=\"10\" y=\"20\">no test records</text></svg>");
        return;
    };
    let most = t.bins.iter().map(|b| b.total()).max().unwrap_or(1).max(1) as f64;
    let slot = (w - left - 10.0) / t.bins.len() as f64;
    let plot_h = ht - bottom - 10.0;
    for (i, b) in t.bins.iter().enumerate() {
        let x = left + i as f64 * slot;
        let mut y = ht - bottom;
        let from = minute_text(t.start + i as i64 * t.width);
        for o in Outcome::ALL {
            let n = b.get(o);
            if n == 0 {
                continue;
            }
            let bh = plot_h * n as f64 / most;
            y -= bh;
            let _ = write!(
                h,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{}\">\
                 <title>{from} UTC, {} min: {n} {o}</title></rect>",
                (slot * 0.9).max(1.0),
                colour(o),
                t.width
            );
        }
    }
    // About six labelled ticks, on bin edges.
    let ticks = t.bins.len().div_ceil(6).max(1);
    for i in (0..=t.bins.len()).step_by(ticks) {
        let x = left + i as f64 * slot;
        let _ = write!(
            h,
            "<line class=\"tick\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#999\"/>\
             <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            ht - bottom,
            ht - bottom + 4.0,
            ht - 12.0,
            minute_text(t.start + i as i64 * t.width)
        );
    }
    let _ = write!(
        h,
        "<text x=\"0\" y=\"12\">{most}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">\
         tests per {} min, UTC</text></svg>",
        w,
        ht - 1.0,
        t.width
    );
    if t.unplaced > 0 {
        let _ = write!(
            h,
            "<p>{} test(s) at times that could not be read are left off this chart.</p>",
            t.unplaced
        );
    }
}

/// The decades an overhead chart spans: powers of ten from `lo` to `hi` (exponents).
#[derive(Debug, PartialEq)]
pub struct Axes {
    /// ρ from 10^x.0 to 10^x.1.
    pub x: (i32, i32),
    /// Overhead share from 10^y.0 to 10^y.1.
    pub y: (i32, i32),
}

/// A logarithmic axis: the decades `10^lo ..= 10^hi` onto the pixels `from ..= to`.
#[derive(Debug, Clone, Copy)]
pub struct LogAxis {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
}

impl LogAxis {
    /// The axis of the decade exponents `decades` over the pixels `pixels` (which may run
    /// downwards).
    pub fn new(decades: (i32, i32), pixels: (f64, f64)) -> LogAxis {
        LogAxis {
            lo: f64::from(decades.0),
            hi: f64::from(decades.1),
            from: pixels.0,
            to: pixels.1,
        }
    }

    /// The pixel of `v`; values outside the axis, zero and negative ones sit at its ends.
    pub fn at(&self, v: f64) -> f64 {
        let e = if v > 0.0 { v.log10() } else { self.lo };
        let share = (e.clamp(self.lo, self.hi) - self.lo) / (self.hi - self.lo);
        self.from + share * (self.to - self.from)
    }
}

/// Most decades an axis spans: beyond, the smallest values are cut off.
const MAX_DECADES: i32 = 8;

/// Axes fitted to the lines (`slope` per unit ρ) and the ρ values worth seeing (current and
/// recommended): the smallest ρ shown is a decade below the smallest of interest, and the
/// overhead axis covers every line over that range and the target.
pub fn fit_axes(slopes: &[f64], rhos: &[f64], target: Option<f64>) -> Axes {
    let floor10 = |v: f64| v.log10().floor() as i32;
    let ceil10 = |v: f64| v.log10().ceil() as i32;
    let smallest_rho = rhos
        .iter()
        .copied()
        .filter(|r| *r > 0.0 && r.is_finite())
        .fold(1.0f64, f64::min);
    let x_lo = (floor10(smallest_rho) - 1).clamp(-MAX_DECADES, -1);
    let x = (x_lo, 0);
    let lo_rho = 10f64.powi(x_lo);
    let mut values: Vec<f64> = slopes
        .iter()
        .copied()
        .filter(|s| *s > 0.0 && s.is_finite())
        .flat_map(|s| [s * lo_rho, s])
        .collect();
    values.extend(target.filter(|t| *t > 0.0 && t.is_finite()));
    let (min, max) = values
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(*v), b.max(*v)));
    if values.is_empty() {
        return Axes { x, y: (-5, 0) };
    }
    let hi = ceil10(max).max(floor10(max) + 1);
    let lo = floor10(min).clamp(hi - MAX_DECADES, hi - 1);
    Axes { x, y: (lo, hi) }
}

fn overhead_chart(h: &mut String, s: &Summary) {
    let Some(t) = &s.tuning else { return };
    let (w, ht, left, bottom) = (760.0, 260.0, 60.0, 30.0);
    let lines: Vec<(usize, f64, Option<f64>, Option<f64>)> = s
        .sites
        .iter()
        .zip(&t.sites)
        .enumerate()
        .filter_map(|(i, (site, tuned))| {
            let slope = site.calls_per_sec? * site.parent_us_per_run? / 1e6;
            (slope > 0.0 && slope.is_finite()).then_some((
                i,
                slope,
                tuned.rho.filter(|r| *r > 0.0),
                tuned.current_rho.or(site.rho).filter(|r| *r > 0.0),
            ))
        })
        .collect();
    let slopes: Vec<f64> = lines.iter().map(|l| l.1).collect();
    let rhos: Vec<f64> = lines.iter().flat_map(|l| [l.2, l.3]).flatten().collect();
    let axes = fit_axes(&slopes, &rhos, t.target_overhead);
    let x_axis = LogAxis::new(axes.x, (left, w - 10.0));
    // Pixels grow downwards: the axis runs from the bottom of the plot to its top.
    let y_axis = LogAxis::new(axes.y, (ht - bottom, 10.0));
    let x_of = |rho: f64| x_axis.at(rho);
    let y_of = |o: f64| y_axis.at(o);
    let _ = write!(
        h,
        "<svg id=\"overhead\" width=\"{w}\" height=\"{ht}\" role=\"img\">"
    );
    for e in axes.x.0..=axes.x.1 {
        let rho = 10f64.powi(e);
        let _ = write!(
            h,
            "<text class=\"xtick\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x_of(rho),
            ht - 8.0,
            format_rho(rho)
        );
    }
    let step = ((axes.y.1 - axes.y.0) as usize).div_ceil(6).max(1);
    for e in (axes.y.0..=axes.y.1).step_by(step) {
        let o = 10f64.powi(e);
        let _ = write!(
            h,
            "<text class=\"ytick\" x=\"0\" y=\"{:.1}\">{}</text>",
            y_of(o) + 4.0,
            percent_label(o)
        );
    }
    if let Some(target) = t.target_overhead {
        let y = y_of(target);
        let _ = write!(
            h,
            "<line x1=\"{left}\" x2=\"{w}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#c62828\" stroke-dasharray=\"4\"/>"
        );
    }
    let palette = [
        "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#5d4037",
    ];
    let mut key = String::from("<p class=\"legend\">");
    for &(i, slope, recommended, current) in &lines {
        let site = &s.sites[i].site;
        let c = palette[i % palette.len()];
        let _ = write!(
            key,
            "<span><i class=\"sw\" style=\"background:{c}\"></i>{}</span>",
            esc(site)
        );
        let lo = 10f64.powi(axes.x.0);
        let (x1, y1, x2, y2) = (x_of(lo), y_of(slope * lo), x_of(1.0), y_of(slope));
        let _ = write!(
            h,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{c}\">\
             <title>{}</title></line>",
            esc(site)
        );
        if let Some(rho) = current {
            let _ = write!(
                h,
                "<circle class=\"now\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"none\" stroke=\"{c}\">\
                 <title>{}: now rho = {}</title></circle>",
                x_of(rho),
                y_of(slope * rho),
                esc(site),
                format_rho(rho)
            );
        }
        if let Some(rho) = recommended {
            let _ = write!(
                h,
                "<circle class=\"recommended\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{c}\">\
                 <title>{}: recommended rho = {}</title></circle>",
                x_of(rho),
                y_of(slope * rho),
                esc(site),
                format_rho(rho)
            );
        }
    }
    h.push_str("</svg>");
    h.push_str(&key);
    h.push_str(
        "</p><p>Lines: overhead share against ρ; rings: the ρ now; dots: the recommended ρ; \
         dashed: the target.</p>",
    );
}

/// An overhead share as a percentage label for a power-of-ten tick.
fn percent_label(share: f64) -> String {
    let p = share * 100.0;
    if p >= 1.0 {
        format!("{p:.0}%")
    } else {
        format!("{}%", format_rho(p))
    }
}

/// One table cell per outcome, in `Outcome::ALL` order.
fn outcome_cells(h: &mut String, counts: &OutcomeCounts) {
    for o in Outcome::ALL {
        let _ = write!(h, "<td class=\"n\">{}</td>", counts.get(o));
    }
}

fn tables(h: &mut String, s: &Summary) {
    h.push_str("<h2>Sites</h2><table><tr><th>site / test</th><th>runs</th>");
    for o in Outcome::ALL {
        let _ = write!(h, "<th>{o}</th>");
    }
    h.push_str("<th>median µs</th><th>p95 µs</th><th>caller µs/run</th><th>overhead</th></tr>");
    for site in &s.sites {
        let _ = write!(
            h,
            "<tr><th>{}</th><td class=\"n\">{}</td>",
            esc(&site.site),
            site.runs
        );
        outcome_cells(h, &site.outcomes);
        let _ = write!(
            h,
            "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            site.duration_us.median,
            site.duration_us.p95,
            site.parent_us_per_run.map_or("-".into(), |c| format!("{c:.0}")),
            site.overhead_share.map_or("-".into(), |o| format!("{:.3}%", o * 100.0)),
        );
        for t in &site.per_test {
            let _ = write!(
                h,
                "<tr><td><code>{}</code></td><td class=\"n\">{}</td>",
                esc(&t.test),
                t.runs
            );
            outcome_cells(h, &t.outcomes);
            let _ = write!(
                h,
                "<td class=\"n\">{}</td><td class=\"n\">{}</td><td></td><td></td></tr>",
                t.duration_us.median, t.duration_us.p95
            );
        }
    }
    h.push_str("</table>");
    skips_table(h, s);
    if let Some(t) = &s.tuning {
        tuning_table(h, t);
        h.push_str("<pre id=\"tuning\">");
        for site in &t.sites {
            let _ = writeln!(h, "[functions.{}]", esc(&format!("{:?}", site.site)));
            match site.rho {
                Some(rho) => {
                    let _ = writeln!(h, "rho = {}", format_rho(rho));
                }
                None => {
                    let _ = writeln!(
                        h,
                        "# not tuned: {}",
                        esc(site.note.as_deref().unwrap_or("?"))
                    );
                }
            }
        }
        h.push_str("</pre>");
    }
}

/// Characters of an input shown before a click: the rest is in its `<details>`.
const PREVIEW: usize = 100;

/// The failures, first on the page: each failing test under its relation in full, each failure
/// with its detail, its inputs (whole when short, else a preview that opens onto the whole text)
/// and what replays it.
fn failures(h: &mut String, s: &Summary) {
    h.push_str("<section id=\"failures\"><h2>Failures</h2>");
    let mut any = false;
    for site in &s.sites {
        for t in site.per_test.iter().filter(|t| t.failures_total > 0) {
            any = true;
            let _ = write!(
                h,
                "<h3 class=\"fail\">{}: <code>{}</code> ({} failing)</h3>",
                esc(&site.site),
                esc(&t.test),
                t.failures_total
            );
            for f in &t.failures {
                failure(h, f);
            }
            let kept = t.failures.len() as u64;
            if t.failures_total > kept {
                let _ = write!(
                    h,
                    "<p class=\"more\">… and {} more</p>",
                    t.failures_total - kept
                );
            }
        }
    }
    if !any {
        h.push_str("<p>No failures.</p>");
    }
    h.push_str("</section>");
}

fn failure(h: &mut String, f: &Failure) {
    let _ = write!(
        h,
        "<div class=\"failure\"><p>{} at {} on {}:{} run {}</p>",
        f.outcome,
        esc(&f.time),
        esc(&f.host),
        f.pid,
        f.run
    );
    if let Some(detail) = &f.detail {
        let _ = write!(h, "<pre class=\"detail\">{}</pre>", esc(detail));
    }
    for (name, value) in f.inputs.iter().filter(|(n, _)| *n != REPLAY_INPUT) {
        let head = format!("{} = ", input_label(name, value));
        if value.chars().count() <= PREVIEW {
            let _ = write!(
                h,
                "<p class=\"input\"><code>{}{}</code></p>",
                esc(&head),
                esc(value)
            );
        } else {
            let preview: String = value.chars().take(PREVIEW).collect();
            let _ = write!(
                h,
                "<details class=\"input\"><summary><code>{}{}…</code></summary><pre>{}</pre></details>",
                esc(&head),
                esc(&preview),
                esc(value)
            );
        }
    }
    match f.inputs.get(REPLAY_INPUT) {
        Some(command) => {
            let _ = write!(h, "<pre class=\"replay\">replay: {}</pre>", esc(command));
        }
        None => {
            let _ = write!(
                h,
                "<pre class=\"replay\">replay: test_seed {}, rng stream {} word {}, rng seed {}</pre>",
                f.seeds.test_seed,
                f.seeds.rng_stream,
                f.seeds.rng_word_pos,
                esc(&f.seeds.rng_seed)
            );
        }
    }
    h.push_str("</div>");
}

/// Why sampled calls started no run, per site: what the caps refused and what was saved.
fn skips_table(h: &mut String, s: &Summary) {
    h.push_str(
        "<h2>Sampled calls</h2><table id=\"skips\"><tr><th>site</th><th>calls</th>\
         <th>sampled</th><th>runs</th><th>refused: concurrency</th><th>refused: overhead</th>\
         <th>off</th><th>fork failed</th><th>seen state</th><th>worker ring full</th>\
         <th>unrun at exit</th><th>not hidden (adopter never reaps)</th></tr>",
    );
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |n| n.to_string());
    for site in &s.sites {
        let k = &site.skipped;
        let _ = write!(
            h,
            "<tr><th>{}</th><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            esc(&site.site),
            opt(site.calls),
            opt(site.sampled),
            site.runs,
            k.concurrency,
            k.overhead,
            k.disabled,
            k.fork_failed,
            k.dedup,
            k.ring_full,
            k.unrun,
            k.unhidden
        );
    }
    h.push_str("</table>");
}

/// The recommended ρ per site with what it is projected to give.
fn tuning_table(h: &mut String, t: &super::tuning::Tuning) {
    let _ = write!(
        h,
        "<h2>Tuning for {}</h2><table id=\"projections\"><tr><th>site</th><th>ρ now</th>\
         <th>recommended ρ</th><th>projected tests/min</th><th>projected overhead</th>\
         <th>note</th></tr>",
        esc(&t.target_text(percent_label))
    );
    let rho = |r: Option<f64>| r.map_or("-".to_string(), format_rho);
    for site in &t.sites {
        let _ = write!(
            h,
            "<tr><th>{}</th><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td>{}</td></tr>",
            esc(&site.site),
            rho(site.current_rho),
            rho(site.rho),
            site.projected_tests_per_min
                .map_or("-".to_string(), |n| format!("{n:.0}")),
            site.projected_overhead
                .map_or("-".to_string(), |o| format!("{:.3}%", o * 100.0)),
            esc(site.note.as_deref().unwrap_or(""))
        );
    }
    h.push_str("</table><p>To paste into invite.toml:</p>");
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::aggregate::TimeBucket;

    fn bucket(minute: &str, pass: u64, fail: u64) -> TimeBucket {
        TimeBucket {
            minute: minute.to_string(),
            outcomes: OutcomeCounts {
                pass,
                fail,
                ..Default::default()
            },
        }
    }

    #[test]
    fn minutes_are_numbered_on_the_clock_and_back() {
        assert_eq!(minute_number("1970-01-01T00:00"), Some(0));
        assert_eq!(minute_number("1970-01-02T01:05"), Some(24 * 60 + 65));
        let m = minute_number("2026-11-22T10:31").unwrap();
        assert_eq!(minute_text(m), "2026-11-22 10:31");
        assert_eq!(minute_number("2026-11-22T10:3é"), None);
        assert_eq!(minute_number("not a time"), None);
        assert_eq!(minute_number(""), None);
    }

    #[test]
    fn gaps_stay_on_the_time_axis() {
        let t = bin_timeline(&[
            bucket("2026-11-22T10:00", 3, 0),
            bucket("2026-11-22T10:04", 1, 2),
        ])
        .unwrap();
        assert_eq!(t.width, 1);
        assert_eq!(t.start, minute_number("2026-11-22T10:00").unwrap());
        assert_eq!(
            t.bins.len(),
            5,
            "10:00 to 10:04, the three empty minutes too"
        );
        assert_eq!(t.bins[0].pass, 3);
        assert!(t.bins[1..4].iter().all(|b| b.total() == 0));
        assert_eq!((t.bins[4].pass, t.bins[4].fail), (1, 2));
        assert_eq!(t.unplaced, 0);
    }

    #[test]
    fn a_long_log_is_binned_on_round_times_and_nothing_is_lost() {
        // A day and a half with tests at both ends and an unreadable minute.
        let t = bin_timeline(&[
            bucket("2026-11-22T00:07", 1, 0),
            bucket("2026-11-22T00:14", 2, 0),
            bucket("2026-11-23T12:00", 0, 4),
            bucket("garbage", 5, 0),
        ])
        .unwrap();
        // 36 hours in at most 120 bins: 18 minutes each at least, so 30.
        assert_eq!(t.width, 30);
        assert_eq!(t.start % 30, 0);
        assert!(t.bins.len() as i64 <= MAX_BINS, "{}", t.bins.len());
        assert_eq!(t.bins[0].pass, 3, "00:07 and 00:14 share the 00:00 bin");
        assert_eq!(t.bins.last().unwrap().fail, 4);
        let drawn: u64 = t.bins.iter().map(|b| b.total()).sum();
        assert_eq!((drawn, t.unplaced), (7, 5));
        // Past the largest round length, whole days.
        let long = bin_timeline(&[
            bucket("2026-01-01T00:00", 1, 0),
            bucket("2026-12-31T00:00", 1, 0),
        ])
        .unwrap();
        // 364 days in at most 120 bins: at least 4368 minutes each, so four whole days.
        assert_eq!(long.width, 4 * 1440);
        assert!(long.bins.len() as i64 <= MAX_BINS);
        assert!(bin_timeline(&[bucket("garbage", 1, 0)]).is_none());
        assert!(bin_timeline(&[]).is_none());
    }

    #[test]
    fn exactly_max_bins_minutes_keep_one_minute_bins() {
        let first = minute_number("2026-11-22T00:00").unwrap();
        let last = first + MAX_BINS - 1;
        let t = bin_timeline(&[
            bucket("2026-11-22T00:00", 1, 0),
            bucket(&minute_text(last).replacen(' ', "T", 1), 1, 0),
        ])
        .unwrap();
        assert_eq!((t.width, t.bins.len() as i64), (1, MAX_BINS));
        let t = bin_timeline(&[
            bucket("2026-11-22T00:00", 1, 0),
            bucket(&minute_text(last + 1).replacen(' ', "T", 1), 1, 0),
        ])
        .unwrap();
        assert_eq!(t.width, 2);
    }

    #[test]
    fn axes_fit_the_sites_and_the_target() {
        // A site at ρ 1e-6 costing 2% at ρ = 1: ρ from 1e-7, overhead down to 2e-9.
        let a = fit_axes(&[0.02], &[1e-6], Some(0.01));
        assert_eq!(a.x, (-7, 0));
        assert_eq!(a.y, (-9, -1));
        // Nothing of interest: the default decades.
        assert_eq!(
            fit_axes(&[], &[], None),
            Axes {
                x: (-1, 0),
                y: (-5, 0)
            }
        );
        // A costly site: the overhead axis reaches above 100%.
        let a = fit_axes(&[30.0], &[0.5], None);
        assert_eq!(a.x, (-2, 0));
        assert_eq!(a.y, (-1, 2));
        // Very small values are cut at MAX_DECADES below the top.
        let a = fit_axes(&[1.0], &[1e-30], None);
        assert_eq!(a.x.0, -MAX_DECADES);
        assert_eq!(a.y, (1 - MAX_DECADES, 1));
        // A target above the lines raises the top; a target of 0 is none.
        assert_eq!(fit_axes(&[0.02], &[0.5], None).y, (-4, -1));
        assert_eq!(fit_axes(&[0.02], &[0.5], Some(5.0)).y, (-4, 1));
        assert_eq!(fit_axes(&[0.02], &[0.5], Some(0.0)).y, (-4, -1));
        // A value that is exactly a power of ten still gets a decade above it.
        assert_eq!(fit_axes(&[0.1], &[0.1], None).y, (-3, 0));
        // Zero, negative and non-finite inputs are ignored.
        assert_eq!(
            fit_axes(&[0.0, -1.0, f64::NAN], &[0.0, f64::INFINITY], Some(-1.0)),
            Axes {
                x: (-1, 0),
                y: (-5, 0)
            }
        );
    }

    #[test]
    fn a_log_axis_puts_decades_evenly_between_its_pixels() {
        let x = LogAxis::new((-4, 0), (60.0, 260.0));
        assert_eq!(x.at(1e-4), 60.0);
        assert_eq!(x.at(1.0), 260.0);
        assert!((x.at(1e-2) - 160.0).abs() < 1e-9);
        assert!((x.at(1e-3) - 110.0).abs() < 1e-9);
        // Outside, zero and negative: at the ends.
        assert_eq!(x.at(10.0), 260.0);
        assert_eq!(x.at(1e-9), 60.0);
        assert_eq!(x.at(0.0), 60.0);
        assert_eq!(x.at(-1.0), 60.0);
        // Downwards: the smallest value at the bottom pixel.
        let y = LogAxis::new((-3, -1), (230.0, 10.0));
        assert_eq!(y.at(1e-3), 230.0);
        assert_eq!(y.at(0.1), 10.0);
        assert!((y.at(1e-2) - 120.0).abs() < 1e-9);
    }

    #[test]
    fn percent_labels_read_as_percentages() {
        assert_eq!(percent_label(1.0), "100%");
        assert_eq!(percent_label(0.01), "1%");
        assert_eq!(percent_label(0.001), "0.1%");
        assert_eq!(percent_label(1e-5), "0.001%");
    }

    fn failed(test: &str, run: u64, inputs: &[(&str, &str)], detail: Option<&str>) -> String {
        invite::record::Record::Test(invite::record::Test {
            v: 1,
            time: format!("2026-11-22T10:0{run}:00.000000Z"),
            host: "h".into(),
            pid: 1,
            instance: String::new(),
            service: String::new(),
            version: String::new(),
            site: "app::f".into(),
            test: test.into(),
            run,
            outcome: Outcome::Fail,
            parent_us: 100,
            duration_us: 10,
            inputs: inputs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            exact: Default::default(),
            detail: detail.map(str::to_string),
            seeds: invite::record::Seeds {
                rng_seed: "cd".repeat(32),
                rng_stream: 3,
                rng_word_pos: 8,
                test_seed: run,
            },
        })
        .to_line()
    }

    fn summary(lines: &[String], keep: usize) -> Summary {
        let mut agg = crate::report::aggregate::Aggregator::new(keep);
        for line in lines {
            agg.add_line(line.as_bytes()).unwrap();
        }
        agg.finish()
    }

    /// The text of the failure block (`<div class="failure">`) that holds `needle`.
    fn block<'a>(html: &'a str, needle: &str) -> &'a str {
        let at = html
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} in {html}"));
        let start = html[..at].rfind("<div class=\"failure\">").unwrap();
        &html[start..at + html[at..].find("</div>").unwrap()]
    }

    #[test]
    fn failures_come_first_with_inputs_whole_or_a_click_from_whole() {
        let exactly = "s".repeat(PREVIEW);
        let longer = format!("[{}]", ["1.5"; 40].join(", "));
        let s = summary(
            &[
                failed(
                    "f(x) == 1",
                    1,
                    &[("x", &exactly), ("xs", &longer)],
                    Some("1 != 2"),
                ),
                failed(
                    "f(x) == 1",
                    2,
                    &[("replay", "invite system a.toml --seed 4")],
                    None,
                ),
            ],
            3,
        );
        let html = render(&s);
        let first = html
            .find("<section id=\"failures\"><h2>Failures</h2>")
            .unwrap();
        for later in ["<p class=\"legend\">", "<svg", "<table", "<h2>Sites</h2>"] {
            assert!(
                first < html.find(later).unwrap(),
                "{later} before the failures"
            );
        }
        assert!(html.contains("<h3 class=\"fail\">app::f: <code>f(x) == 1</code> (2 failing)</h3>"));
        // An input of PREVIEW characters is shown as it is; a longer one as its first PREVIEW,
        // its label with its length, opening onto the whole text.
        let one = block(&html, "run 1</p>");
        assert!(
            one.starts_with(
                "<div class=\"failure\"><p>fail at 2026-11-22T10:01:00.000000Z on h:1 run 1</p>"
            ),
            "{one}"
        );
        assert!(one.contains("<pre class=\"detail\">1 != 2</pre>"), "{one}");
        assert!(
            one.contains(&format!(
                "<p class=\"input\"><code>x = {exactly}</code></p>"
            )),
            "{one}"
        );
        let preview: String = longer.chars().take(PREVIEW).collect();
        assert!(
            one.contains(&format!(
                "<details class=\"input\"><summary><code>xs (len 40) = {preview}…</code></summary>\
                 <pre>{longer}</pre></details>"
            )),
            "{one}"
        );
        assert_eq!(one.matches("<details").count(), 1, "{one}");
        assert!(
            one.contains(
                "<pre class=\"replay\">replay: test_seed 1, rng stream 3 word 8, rng seed cdcd"
            ),
            "{one}"
        );
        // A whole program's failure: its command replays it, and it is no input; no detail.
        let two = block(&html, "run 2</p>");
        assert!(
            two.contains("<pre class=\"replay\">replay: invite system a.toml --seed 4</pre>"),
            "{two}"
        );
        assert!(
            !two.contains("class=\"input\"") && !two.contains("detail"),
            "{two}"
        );
        assert!(!html.contains("No failures."));
        assert!(
            !html.contains("class=\"more\""),
            "all the failures are shown"
        );
    }

    #[test]
    fn a_long_input_is_cut_for_its_preview_before_it_is_escaped() {
        // The preview's cut falls inside `<b>&`: whole entities on either side of it.
        let hostile = format!("{}<b>&</b>{}", "y".repeat(PREVIEW - 2), "z".repeat(10));
        let s = summary(&[failed("t", 1, &[("x", &hostile)], Some("<i>"))], 3);
        let html = render(&s);
        let preview = format!("{}&lt;b", "y".repeat(PREVIEW - 2));
        assert!(
            html.contains(&format!("<summary><code>x = {preview}…</code></summary>")),
            "{html}"
        );
        assert!(
            html.contains(&format!("<pre>{}</pre>", esc(&hostile))),
            "{html}"
        );
        assert!(
            html.contains("<pre class=\"detail\">&lt;i&gt;</pre>"),
            "{html}"
        );
        assert!(!html.contains("<b>") && !html.contains("<i>"), "{html}");
    }

    #[test]
    fn failures_left_out_are_counted_and_none_is_said() {
        let lines: Vec<String> = (1..=3).map(|run| failed("t", run, &[], None)).collect();
        let html = render(&summary(&lines, 1));
        assert_eq!(html.matches("<div class=\"failure\">").count(), 1, "{html}");
        assert!(
            html.contains("<p class=\"more\">… and 2 more</p></section>"),
            "{html}"
        );
        let pass = failed("t", 1, &[], None).replace("\"fail\"", "\"pass\"");
        let html = render(&summary(&[pass], 1));
        assert!(
            html.contains(
                "<section id=\"failures\"><h2>Failures</h2><p>No failures.</p></section>"
            ),
            "{html}"
        );
    }

    /// The elements `<tag ...>` inside the chart `id`.
    fn elements<'a>(html: &'a str, id: &str, tag: &str) -> Vec<&'a str> {
        let chart = &html[html.find(&format!("<svg id=\"{id}\"")).unwrap()..];
        let chart = &chart[..chart.find("</svg>").unwrap()];
        chart
            .match_indices(&format!("<{tag} "))
            .map(|(i, _)| &chart[i..i + chart[i..].find('>').unwrap()])
            .collect()
    }

    /// The number in attribute `name` of an element's text.
    fn attr(element: &str, name: &str) -> f64 {
        let key = format!(" {name}=\"");
        let rest = &element[element
            .find(&key)
            .unwrap_or_else(|| panic!("{name} in {element}"))
            + key.len()..];
        rest[..rest.find('"').unwrap()].parse().unwrap()
    }

    /// Three sites failing once each, two of them costing 0.1% and 0.2% of wall time at ρ = 1
    /// (10 and 20 calls a second, 100 µs a run) and one never called, tuned for an overhead so
    /// small that the overhead axis spans eight decades.
    fn three_sites() -> Summary {
        let lines: Vec<String> = ["app::f", "app::g", "app::h"]
            .iter()
            .map(|site| failed("t", 1, &[], None).replace("\"app::f\"", &format!("{site:?}")))
            .collect();
        let mut s = summary(&lines, 3);
        for (site, calls) in s.sites.iter_mut().zip([10.0, 20.0, 0.0]) {
            site.calls_per_sec = Some(calls);
            site.rho = Some(0.5);
        }
        s.tuning = Some(crate::report::tuning::tune(&s.sites, Some(1e-9), None, 1));
        s
    }

    #[test]
    fn each_site_has_its_row_its_line_and_its_colour() {
        let html = render(&three_sites());
        // The outcomes chart: a row a site, one under the other.
        let svg = elements(&html, "outcomes", "svg")[0];
        assert_eq!(attr(svg, "height"), 3.0 * 22.0 + 10.0, "{svg}");
        let ys: Vec<f64> = elements(&html, "outcomes", "rect")
            .iter()
            .map(|r| attr(r, "y"))
            .collect();
        assert_eq!(ys, [5.0, 27.0, 49.0]);
        // The overhead chart: a line for each site called, in a colour of its own; none for the
        // site never called.
        let lines: Vec<&str> = elements(&html, "overhead", "line")
            .into_iter()
            .filter(|l| !l.contains("stroke-dasharray"))
            .collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains("stroke=\"#1565c0\""), "{}", lines[0]);
        assert!(lines[1].contains("stroke=\"#2e7d32\""), "{}", lines[1]);
        assert!(html.contains("<title>app::f</title></line>"));
        assert!(html.contains("<title>app::g</title></line>"));
        assert!(!html.contains("<title>app::h</title></line>"));
        // Each line ends, at ρ = 1, at its site's overhead share, on axes fitted to the shares
        // and to the ρ now and recommended: eight decades of overhead.
        let s = three_sites();
        let tuned = &s.tuning.as_ref().unwrap().sites;
        let rhos: Vec<f64> = tuned[..2]
            .iter()
            .flat_map(|t| [t.rho.unwrap(), 0.5])
            .collect();
        let axes = fit_axes(&[1e-3, 2e-3], &rhos, Some(1e-9));
        assert_eq!(axes.y, (-10, -2));
        let y = LogAxis::new(axes.y, (230.0, 10.0));
        assert!(
            (attr(lines[0], "y2") - y.at(1e-3)).abs() < 0.06,
            "{}",
            lines[0]
        );
        assert!(
            (attr(lines[1], "y2") - y.at(2e-3)).abs() < 0.06,
            "{}",
            lines[1]
        );
        // Eight decades of overhead: a tick every second one, from the bottom of the plot.
        let ticks: Vec<f64> = html
            .split("<text class=\"ytick\" ")
            .skip(1)
            .map(|t| attr(&format!(" {t}"), "y"))
            .collect();
        assert_eq!(ticks.len(), 5, "{ticks:?}");
        assert!((ticks[0] - (260.0 - 30.0 + 4.0)).abs() < 0.05, "{ticks:?}");
        let step = ticks[0] - ticks[1];
        assert!(
            ticks.windows(2).all(|w| (w[0] - w[1] - step).abs() < 0.11),
            "{ticks:?}"
        );
        // Labelled with the shares they stand for, 10^-10 to 10^-2: the lines are at their
        // sites' shares, not shifted by some decades with their axis.
        let labels: Vec<&str> = html
            .split("<text class=\"ytick\" ")
            .skip(1)
            .map(|t| &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
            .collect();
        let shares: Vec<String> = [-10, -8, -6, -4, -2]
            .map(|e| percent_label(10f64.powi(e)))
            .into();
        assert_eq!(labels, shares);
        assert_eq!(labels[4], "1%");
        // Each called site's ρ now (a ring) and recommended (a dot).
        assert_eq!(html.matches("<circle class=\"now\"").count(), 2);
        assert_eq!(html.matches("<circle class=\"recommended\"").count(), 2);
    }

    #[test]
    fn a_rho_of_zero_gets_no_ring_or_dot() {
        let mut s = three_sites();
        for site in &mut s.sites {
            site.rho = Some(0.0);
        }
        let tuning = s.tuning.as_mut().unwrap();
        for site in &mut tuning.sites {
            site.rho = site.rho.map(|_| 0.0);
            site.current_rho = Some(0.0);
        }
        let html = render(&s);
        assert_eq!(elements(&html, "overhead", "circle"), Vec::<&str>::new());
    }

    #[test]
    fn the_timeline_s_bars_are_as_tall_as_their_counts_and_titled_with_their_bins() {
        // Two tests at 10:00 and one at 12:30: 151 minutes in bins of 2.
        let at = |minute: &str, run: u64| {
            failed("t", run, &[], None).replace(
                &format!("2026-11-22T10:0{run}:00"),
                &format!("2026-11-22T{minute}:00"),
            )
        };
        let html = render(&summary(
            &[at("10:00", 1), at("10:00", 2), at("12:30", 3)],
            3,
        ));
        let bars = elements(&html, "timeline", "rect");
        assert_eq!(bars.len(), 2, "{bars:?}");
        assert_eq!(
            attr(bars[0], "height"),
            160.0,
            "the busiest bin fills the plot"
        );
        assert_eq!(attr(bars[1], "height"), 80.0, "half as many, half as tall");
        assert!(html.contains("<title>2026-11-22 10:00 UTC, 2 min: 2 fail</title>"));
        assert!(html.contains("<title>2026-11-22 12:30 UTC, 2 min: 1 fail</title>"));
    }

    #[test]
    fn escaping_neutralises_markup() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }
}
