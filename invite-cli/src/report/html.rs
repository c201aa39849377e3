//! The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched)
//! with three charts: outcomes per site, tests over time, and projected overhead against ρ.
//! Every piece of logged text passes through [`esc`]: relation texts, inputs and panic messages
//! come from the program under test and may contain anything.

use std::fmt::Write as _;

use super::aggregate::Summary;
use super::tuning::format_rho;
use invite::record::{Outcome, OutcomeCounts};

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
    h.push_str("</body></html>\n");
    h
}

const CSS: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px}\
td.n{text-align:right}pre{background:#f4f4f4;padding:8px;overflow-x:auto}\
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

fn timeline_chart(h: &mut String, s: &Summary) {
    let (w, ht, left, bottom) = (760.0, 200.0, 40.0, 30.0);
    let _ = write!(
        h,
        "<svg id=\"timeline\" width=\"{w}\" height=\"{ht}\" role=\"img\">"
    );
    let buckets = &s.timeline;
    if buckets.is_empty() {
        h.push_str("<text x=\"10\" y=\"20\">no test records</text></svg>");
        return;
    }
    let most = buckets
        .iter()
        .map(|b| b.outcomes.total())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let slot = (w - left) / buckets.len() as f64;
    let plot_h = ht - bottom - 10.0;
    for (i, b) in buckets.iter().enumerate() {
        let x = left + i as f64 * slot;
        let mut y = ht - bottom;
        for o in Outcome::ALL {
            let n = b.outcomes.get(o);
            if n == 0 {
                continue;
            }
            let bh = plot_h * n as f64 / most;
            y -= bh;
            let _ = write!(
                h,
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{}\">\
                 <title>{} UTC: {n} {o}</title></rect>",
                (slot * 0.9).max(1.0),
                colour(o),
                esc(&b.minute)
            );
        }
    }
    let _ = write!(
        h,
        "<text x=\"0\" y=\"12\">{most}</text><text x=\"{left}\" y=\"{}\">{}</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{} (tests per minute, UTC)</text></svg>",
        ht - 8.0,
        esc(&buckets[0].minute),
        w,
        ht - 8.0,
        esc(&buckets[buckets.len() - 1].minute)
    );
}

fn overhead_chart(h: &mut String, s: &Summary) {
    let Some(t) = &s.tuning else { return };
    let (w, ht, left, bottom) = (760.0, 260.0, 60.0, 30.0);
    // Log-log axes: ρ from 1e-4 to 1, overhead share from 1e-5 to 1.
    let x_of = |rho: f64| left + (rho.log10() + 4.0) / 4.0 * (w - left - 10.0);
    let y_of = |o: f64| 10.0 + (-o.max(1e-5).log10()) / 5.0 * (ht - bottom - 10.0);
    let _ = write!(
        h,
        "<svg id=\"overhead\" width=\"{w}\" height=\"{ht}\" role=\"img\">"
    );
    for e in 0..=4 {
        let rho = 10f64.powi(-e);
        let _ = write!(
            h,
            "<text x=\"{:.1}\" y=\"{}\">{}</text>",
            x_of(rho) - 10.0,
            ht - 8.0,
            format_rho(rho)
        );
    }
    for e in 0..=5 {
        let o = 10f64.powi(-e);
        let _ = write!(
            h,
            "<text x=\"0\" y=\"{:.1}\">{}%</text>",
            y_of(o) + 4.0,
            o * 100.0
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
    for (i, (site, tuned)) in s.sites.iter().zip(&t.sites).enumerate() {
        let (Some(rate), Some(cost)) = (site.calls_per_sec, site.parent_us_per_run) else {
            continue;
        };
        let slope = rate * cost / 1e6;
        let c = palette[i % palette.len()];
        let _ = write!(
            key,
            "<span><i class=\"sw\" style=\"background:{c}\"></i>{}</span>",
            esc(&site.site)
        );
        let (x1, y1, x2, y2) = (x_of(1e-4), y_of(slope * 1e-4), x_of(1.0), y_of(slope));
        let _ = write!(
            h,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" stroke=\"{c}\">\
             <title>{}</title></line>",
            esc(&site.site)
        );
        if let Some(rho) = tuned.rho.filter(|r| *r > 0.0) {
            let _ = write!(
                h,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{c}\"><title>{}: rho = {}</title></circle>",
                x_of(rho.max(1e-4)),
                y_of(slope * rho),
                esc(&site.site),
                format_rho(rho)
            );
        }
    }
    h.push_str("</svg>");
    h.push_str(&key);
    h.push_str(
        "</p><p>Lines: overhead share against ρ; dots: the recommended ρ; dashed: the target.</p>",
    );
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
    h.push_str("</table><h2>Failures</h2>");
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
                let _ = write!(
                    h,
                    "<pre>{} at {} on {}:{} run {}\ndetail: {}\n",
                    f.outcome,
                    esc(&f.time),
                    esc(&f.host),
                    f.pid,
                    f.run,
                    esc(f.detail.as_deref().unwrap_or("-"))
                );
                for (k, v) in &f.inputs {
                    let _ = writeln!(h, "input {} = {}", esc(k), esc(v));
                }
                let _ = write!(
                    h,
                    "replay: test_seed {}, rng stream {} word {}, rng seed {}</pre>",
                    f.seeds.test_seed,
                    f.seeds.rng_stream,
                    f.seeds.rng_word_pos,
                    esc(&f.seeds.rng_seed)
                );
            }
        }
    }
    if !any {
        h.push_str("<p>No failures.</p>");
    }
    if let Some(t) = &s.tuning {
        h.push_str("<h2>Tuning</h2><pre id=\"tuning\">");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_neutralises_markup() {
        assert_eq!(
            esc("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }
}
