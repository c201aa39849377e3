//! Relation discovery on textbook functions: speed (thread CPU per function), recall (the
//! share of each function's representative relations proposed), and precision (proposals that
//! fail on further fresh inputs, over at least 10,000 checks).
//!
//! `cargo bench --bench discovery`

use invite::discover::{Args, Discovery, Function, Proposals};
use rand::{Rng, SeedableRng};

/// CPU time of this thread, in seconds.
fn cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

struct Tally {
    rows: Vec<String>,
    expected: usize,
    found: usize,
    checks: usize,
    false_relations: Vec<String>,
    cpu: Vec<f64>,
    /// CPU per function, by the kind of its parameters.
    cpu_by_kind: Vec<(&'static str, f64)>,
    power_rows: Vec<String>,
    mutants: usize,
    killed: usize,
    killed_by_hand: usize,
    equivalent: Vec<String>,
    survivors: Vec<String>,
    /// Per family: proposals, and mutants its proposals alone kill.
    families: [(usize, usize); FAMILIES.len()],
}

/// The families of relations, as their text shows them.
const FAMILIES: [&str; 5] = [
    "between two runs",
    "between three runs",
    "composite",
    "property of the result",
    "under a guard (any of the above)",
];

/// The families a proposed relation belongs to (the last, a guard, besides its own).
fn families(name: &str, relation: &str) -> Vec<usize> {
    let body = relation.split("=> ").last().unwrap_or(relation);
    let calls =
        body.matches(&format!("{name}(")).count() + body.matches(&format!(".{name}(")).count();
    let composite = ["multiply", "add", "negate"].iter().any(|m| {
        body.contains(&format!("invite::mr::{m}(&invite::mr::"))
            || body.contains(&format!("invite::mr::{m}(&xs[1..]"))
    });
    let own = match calls {
        0 => 3,
        1 if composite => 2,
        1 => 0,
        _ => 1,
    };
    let mut out = vec![own];
    if relation.starts_with("if ") {
        out.push(4);
    }
    out
}

impl Tally {
    fn case<A: Args + Clone, F: Function<A>>(
        &mut self,
        sig: &str,
        f: F,
        inputs: Vec<A>,
        fresh: Vec<A>,
        expect: &[&str],
    ) -> Case<A> {
        let outputs = fresh
            .iter()
            .map(|a| format!("{:?}", a.to_values().and_then(|v| f.call_values(&v))))
            .collect();
        let d = Discovery::new(sig, f).expect("signature").inputs(inputs);
        let t0 = cpu();
        let found = d.run();
        let took = cpu() - t0;
        let missing: Vec<&str> = expect
            .iter()
            .copied()
            .filter(|e| !found.relations().any(|r| r == *e))
            .collect();
        let failing = d.failing(&found, fresh.clone());
        self.checks += found.0.len() * fresh.len();
        self.expected += expect.len();
        self.found += expect.len() - missing.len();
        self.false_relations.extend(failing.iter().cloned());
        self.cpu.push(took);
        self.cpu_by_kind.push((kind(sig), took));
        let name = sig
            .split('(')
            .next()
            .unwrap_or(sig)
            .trim_start_matches("fn ");
        self.rows.push(format!(
            "| {name} | {:.0} ms | {} | {}/{} | {} |",
            took * 1e3,
            found.0.len(),
            expect.len() - missing.len(),
            expect.len(),
            failing.len()
        ));
        for m in missing {
            eprintln!("{name}: not proposed: {m}");
        }
        for f in failing {
            eprintln!("{name}: fails on fresh inputs: {f}");
        }
        // `SHOW` prints every function's proposals; `INVITE_BENCH_SHOW=quantile,clamp` those
        // of the functions named.
        let shown = std::env::var("INVITE_BENCH_SHOW")
            .is_ok_and(|names| names.split(',').any(|n| n.trim() == name));
        if std::env::var_os("SHOW").is_some() || shown {
            eprintln!("{found}");
        }
        let hand = Proposals(
            found
                .0
                .iter()
                .filter(|p| expect.contains(&p.relation.as_str()))
                .cloned()
                .collect(),
        );
        Case {
            name: name.to_string(),
            sig: sig.to_string(),
            found,
            hand,
            fresh,
            outputs,
        }
    }

    /// Runs the proposals, and the representative (hand-written) relations alone, against
    /// each mutant of the case's function, as pasted relations would run on it.
    fn power<A: Args + Clone, M: Function<A>>(&mut self, c: Case<A>, mutants: Vec<(&str, M)>) {
        let (mut killed, mut by_hand, mut live) = (0, 0, 0);
        for (label, m) in mutants {
            let outputs: Vec<String> = c
                .fresh
                .iter()
                .map(|a| format!("{:?}", a.to_values().and_then(|v| m.call_values(&v))))
                .collect();
            if outputs == c.outputs {
                self.equivalent.push(format!("{}: {label}", c.name));
                continue;
            }
            live += 1;
            let d = Discovery::new(&c.sig, m).expect("signature");
            let caught = !d.failing(&c.found, c.fresh.clone()).is_empty();
            let caught_by_hand = !d.failing(&c.hand, c.fresh.clone()).is_empty();
            killed += usize::from(caught);
            by_hand += usize::from(caught_by_hand);
            for (k, family) in self.families.iter_mut().enumerate() {
                let alone = Proposals(
                    c.found
                        .0
                        .iter()
                        .filter(|p| families(&c.name, &p.relation).contains(&k))
                        .cloned()
                        .collect(),
                );
                if !alone.0.is_empty() && !d.failing(&alone, c.fresh.clone()).is_empty() {
                    family.1 += 1;
                }
            }
            if !caught {
                self.survivors.push(format!("{}: {label}", c.name));
            }
        }
        self.mutants += live;
        for p in &c.found.0 {
            for k in families(&c.name, &p.relation) {
                self.families[k].0 += 1;
            }
        }
        self.killed += killed;
        self.killed_by_hand += by_hand;
        self.power_rows
            .push(format!("| {} | {live} | {killed} | {by_hand} |", c.name));
    }
}

/// The kind of a function's parameters, as its signature writes them: numbers (one, two or
/// three), sequences only, or mixed (a sequence and a number).
fn kind(sig: &str) -> &'static str {
    let params = sig
        .split_once('(')
        .and_then(|(_, rest)| rest.rsplit_once(')'))
        .map_or("", |(params, _)| params);
    let (mut seqs, mut numbers) = (0, 0);
    for p in params.split(',').filter(|p| !p.trim().is_empty()) {
        if p.contains('[') || p.contains("Vec<") {
            seqs += 1;
        } else {
            numbers += 1;
        }
    }
    match (seqs, numbers) {
        (0, 0 | 1) => "one number",
        (0, 2) => "two numbers",
        (0, _) => "three numbers",
        (_, 0) => "sequences",
        _ => "mixed",
    }
}

/// One function's discovery, kept to run its proposals against mutants.
struct Case<A> {
    name: String,
    sig: String,
    found: Proposals,
    hand: Proposals,
    fresh: Vec<A>,
    outputs: Vec<String>,
}

fn scalars(rng: &mut impl Rng, n: usize, lo: f64, hi: f64) -> Vec<(f64,)> {
    (0..n).map(|_| (rng.random_range(lo..hi),)).collect()
}

fn pairs(rng: &mut impl Rng, n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|_| (rng.random_range(-10.0..10.0), rng.random_range(-10.0..10.0)))
        .collect()
}

fn seqs(rng: &mut impl Rng, n: usize) -> Vec<(Vec<f64>,)> {
    (0..n)
        .map(|_| {
            let len = rng.random_range(0..9);
            ((0..len)
                .map(|_| (rng.random_range(-50.0..50.0f64) * 8.0).round() / 8.0)
                .collect(),)
        })
        .collect()
}

fn int_seqs(rng: &mut impl Rng, n: usize) -> Vec<(Vec<i64>,)> {
    (0..n)
        .map(|_| {
            let len = rng.random_range(0..9);
            ((0..len).map(|_| rng.random_range(-6..6)).collect(),)
        })
        .collect()
}

/// A non-empty sample, its elements drawn as [`seqs`] draws them.
fn sample(rng: &mut impl Rng) -> Vec<f64> {
    let len = rng.random_range(1..9);
    (0..len)
        .map(|_| (rng.random_range(-50.0..50.0f64) * 8.0).round() / 8.0)
        .collect()
}

/// Non-empty samples, each with a number drawn from `lo..=hi`.
fn samples_with(rng: &mut impl Rng, n: usize, lo: f64, hi: f64) -> Vec<(Vec<f64>, f64)> {
    (0..n)
        .map(|_| (sample(rng), rng.random_range(lo..=hi)))
        .collect()
}

/// Numbers `a`, `b` in `-r..r` and `t` in `0..=1`.
fn endpoints(rng: &mut impl Rng, n: usize, r: f64) -> Vec<(f64, f64, f64)> {
    (0..n)
        .map(|_| {
            (
                rng.random_range(-r..r),
                rng.random_range(-r..r),
                rng.random_range(0.0..=1.0),
            )
        })
        .collect()
}

/// A number `x` in `-2r..2r` and bounds `lo <= hi` in `-r..r`.
fn bounded(rng: &mut impl Rng, n: usize, r: f64) -> Vec<(f64, f64, f64)> {
    (0..n)
        .map(|_| {
            let (u, v) = (rng.random_range(-r..r), rng.random_range(-r..r));
            (rng.random_range(-2.0 * r..2.0 * r), u.min(v), u.max(v))
        })
        .collect()
}

/// A number `x` in `-r..r` and a step in `0.1..5`.
fn stepped(rng: &mut impl Rng, n: usize, r: f64) -> Vec<(f64, f64)> {
    (0..n)
        .map(|_| (rng.random_range(-r..r), rng.random_range(0.1..5.0)))
        .collect()
}

fn mean(xs: Vec<f64>) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn variance(xs: Vec<f64>) -> f64 {
    let m = mean(xs.clone());
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// The `tau`-quantile by linear interpolation between order statistics (R's type 7, NumPy's
/// default): `h = (n - 1)·tau`, between the `floor(h)`-th and `ceil(h)`-th smallest.
fn quantile(mut xs: Vec<f64>, tau: f64) -> f64 {
    assert!(!xs.is_empty() && (0.0..=1.0).contains(&tau));
    xs.sort_by(f64::total_cmp);
    let h = (xs.len() - 1) as f64 * tau;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    xs[lo] + (h - lo as f64) * (xs[hi] - xs[lo])
}

/// The `p`-th percentile by nearest rank: the `ceil(p·n / 100)`-th smallest (the smallest for
/// `p = 0`).
fn percentile(mut xs: Vec<f64>, p: usize) -> f64 {
    assert!(!xs.is_empty() && p <= 100);
    xs.sort_by(f64::total_cmp);
    let rank = (p * xs.len()).div_ceil(100).max(1);
    xs[rank - 1]
}

/// The exponentially weighted mean, the last element weighed `alpha`, the one before
/// `alpha·(1 - alpha)`, and so on; the first carries what is left.
fn ewma(xs: Vec<f64>, alpha: f64) -> f64 {
    assert!(!xs.is_empty() && alpha > 0.0 && alpha <= 1.0);
    xs[1..]
        .iter()
        .fold(xs[0], |s, &x| alpha * x + (1.0 - alpha) * s)
}

/// `x` held within `lo..=hi`; like `f64::clamp`, it refuses `lo > hi`.
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    assert!(lo <= hi);
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

// The mutants replace operators as cargo-mutants does, `x * x` becoming `x / x` among them.
#[allow(clippy::eq_op)]
fn main() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let r = &mut rng;
    let mut t = Tally {
        rows: Vec::new(),
        expected: 0,
        found: 0,
        checks: 0,
        false_relations: Vec::new(),
        cpu: Vec::new(),
        cpu_by_kind: Vec::new(),
        power_rows: Vec::new(),
        mutants: 0,
        families: [(0, 0); FAMILIES.len()],
        killed: 0,
        killed_by_hand: 0,
        equivalent: Vec::new(),
        survivors: Vec::new(),
    };
    const N: usize = 100;
    const FRESH: usize = 400;
    let k = "std::f64::consts";

    let s = |r: &mut rand::rngs::StdRng, lo, hi| {
        (scalars(r, N, lo, hi), scalars(r, FRESH, lo * 2.0, hi * 2.0))
    };
    let (i, f) = s(r, -10.0, 10.0);
    let c = t.case(
        "fn sin(x: f64) -> f64",
        f64::sin,
        i,
        f,
        &[
            "sin(-x) == -result",
            &format!("sin(x + {k}::PI) == -result"),
        ],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 10.0);
    let c = t.case(
        "fn cos(x: f64) -> f64",
        f64::cos,
        i,
        f,
        &["cos(-x) == result", &format!("cos(x + {k}::PI) == -result")],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -1.5, 1.5);
    let c = t.case(
        "fn tan(x: f64) -> f64",
        f64::tan,
        i,
        f,
        &["tan(-x) == -result", &format!("tan(x + {k}::PI) == result")],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -20.0, 20.0);
    let c = t.case(
        "fn exp(x: f64) -> f64",
        f64::exp,
        i,
        f,
        &[
            &format!("exp(x + 1.0) == {k}::E * result"),
            "exp(2.0 * x) == result.powi(2)",
        ],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 100.0);
    let c = t.case(
        "fn ln(x: f64) -> f64",
        f64::ln,
        i,
        f,
        &[&format!("if x >= 0.0 => ln(2.0 * x) == result + {k}::LN_2")],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 100.0);
    let c = t.case(
        "fn sqrt(x: f64) -> f64",
        f64::sqrt,
        i,
        f,
        &["if x >= 0.0 => sqrt(4.0 * x) == 2.0 * result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -100.0, 100.0);
    let c = t.case(
        "fn cbrt(x: f64) -> f64",
        f64::cbrt,
        i,
        f,
        &["cbrt(-x) == -result", "cbrt(8.0 * x) == 2.0 * result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 10.0);
    let c = t.case(
        "fn sinh(x: f64) -> f64",
        f64::sinh,
        i,
        f,
        &["sinh(-x) == -result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 10.0);
    let c = t.case(
        "fn cosh(x: f64) -> f64",
        f64::cosh,
        i,
        f,
        &["cosh(-x) == result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -5.0, 5.0);
    let c = t.case(
        "fn tanh(x: f64) -> f64",
        f64::tanh,
        i,
        f,
        &["tanh(-x) == -result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 10.0);
    let c = t.case(
        "fn atan(x: f64) -> f64",
        f64::atan,
        i,
        f,
        &["atan(-x) == -result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 10.0);
    let c = t.case(
        "fn abs(x: f64) -> f64",
        f64::abs,
        i,
        f,
        &["abs(-x) == result", "abs(2.0 * x) == 2.0 * result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -20.0, 20.0);
    let c = t.case(
        "fn exp2(x: f64) -> f64",
        f64::exp2,
        i,
        f,
        &["exp2(x + 1.0) == 2.0 * result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 100.0);
    let c = t.case(
        "fn log2(x: f64) -> f64",
        f64::log2,
        i,
        f,
        &["if x >= 0.0 => log2(2.0 * x) == result + 1.0"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 10.0);
    let c = t.case(
        "fn recip(x: f64) -> f64",
        f64::recip,
        i,
        f,
        &["recip(-x) == -result", "recip(2.0 * x) == 0.5 * result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = s(r, -10.0, 10.0);
    let c = t.case(
        "fn square(x: f64) -> f64",
        |x: f64| x * x,
        i,
        f,
        &["square(-x) == result", "square(2.0 * x) == 4.0 * result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
            ("* -> +", |x| x + x),
            ("* -> /", |x| x / x),
        ],
    );
    let (i, f) = s(r, -10.0, 10.0);
    let c = t.case(
        "fn parabola(x: f64) -> f64",
        |x: f64| (x - 1.5) * (x - 1.5) - 2.0,
        i,
        f,
        &["parabola(3.0 - x) == result"],
    );
    t.power::<_, fn(f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
            ("first - -> +", |x| (x + 1.5) * (x - 1.5) - 2.0),
            ("second - -> +", |x| (x - 1.5) * (x + 1.5) - 2.0),
            ("* -> +", |x| (x - 1.5) + (x - 1.5) - 2.0),
            ("* -> /", |x| (x - 1.5) / (x - 1.5) - 2.0),
            ("last - -> +", |x| (x - 1.5) * (x - 1.5) + 2.0),
        ],
    );
    let (i, f) = (pairs(r, N), pairs(r, FRESH));
    let c = t.case(
        "fn hypot(x: f64, y: f64) -> f64",
        f64::hypot,
        i,
        f,
        &[
            "hypot(y, x) == result",
            "hypot(-x, y) == result",
            "hypot(2.0 * x, 2.0 * y) == 2.0 * result",
        ],
    );
    t.power::<_, fn(f64, f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _| 0.0),
            ("-> 1.0", |_, _| 1.0),
            ("-> -1.0", |_, _| -1.0),
        ],
    );
    let (i, f) = (pairs(r, N), pairs(r, FRESH));
    let c = t.case(
        "fn atan2(y: f64, x: f64) -> f64",
        f64::atan2,
        i,
        f,
        &[
            "atan2(2.0 * y, 2.0 * x) == result",
            "atan2(0.5 * y, 0.5 * x) == result",
        ],
    );
    t.power::<_, fn(f64, f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _| 0.0),
            ("-> 1.0", |_, _| 1.0),
            ("-> -1.0", |_, _| -1.0),
        ],
    );
    let (i, f) = (pairs(r, N), pairs(r, FRESH));
    let c = t.case(
        "fn max(x: f64, y: f64) -> f64",
        f64::max,
        i,
        f,
        &[
            "max(y, x) == result",
            "max(2.0 * x, 2.0 * y) == 2.0 * result",
        ],
    );
    t.power::<_, fn(f64, f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _| 0.0),
            ("-> 1.0", |_, _| 1.0),
            ("-> -1.0", |_, _| -1.0),
            ("max -> min", f64::min),
        ],
    );
    let ints = |r: &mut rand::rngs::StdRng, n| -> Vec<(f64, i32)> {
        (0..n)
            .map(|_| (r.random_range(-3.0..3.0), r.random_range(-4..5)))
            .collect()
    };
    let (i, f) = (ints(r, N), ints(r, FRESH));
    let c = t.case(
        "fn powi(x: f64, n: i32) -> f64",
        f64::powi,
        i,
        f,
        &["powi(x, 2 * n) == result.powi(2)"],
    );
    t.power::<_, fn(f64, i32) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _| 0.0),
            ("-> 1.0", |_, _| 1.0),
            ("-> -1.0", |_, _| -1.0),
        ],
    );
    let evens = |r: &mut rand::rngs::StdRng, n| -> Vec<(i64,)> {
        (0..n).map(|_| (r.random_range(-1000..1000),)).collect()
    };
    let (i, f) = (evens(r, N), evens(r, FRESH));
    let c = t.case(
        "fn is_even(n: i64) -> bool",
        |n: i64| n % 2 == 0,
        i,
        f,
        &["is_even(n + 1) == !result", "is_even(-n) == result"],
    );
    t.power::<_, fn(i64) -> bool>(
        c,
        vec![
            ("-> true", |_| true),
            ("-> false", |_| false),
            ("% -> /", |n| n / 2 == 0),
            ("% -> +", |n| n + 2 == 0),
            ("== -> !=", |n| n % 2 != 0),
        ],
    );

    let sq = |r: &mut rand::rngs::StdRng| (seqs(r, N), seqs(r, FRESH));
    let ne = "if !xs.is_empty() => ";
    let (i, f) = sq(r);
    let c = t.case(
        "fn mean(xs: &[f64]) -> f64",
        mean,
        i,
        f,
        &[
            &format!("{ne}mean(&invite::mr::permute(xs)) == result"),
            &format!("{ne}mean(&invite::mr::add(xs, 1.0)) == result + 1.0"),
            &format!("{ne}mean(&invite::mr::multiply(xs, 2.0)) == 2.0 * result"),
        ],
    );
    t.power::<_, fn(Vec<f64>) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
            ("/ -> *", |xs| xs.iter().sum::<f64>() * xs.len() as f64),
            ("/ -> %", |xs| xs.iter().sum::<f64>() % xs.len() as f64),
        ],
    );
    let (i, f) = sq(r);
    let c = t.case(
        "fn variance(xs: &[f64]) -> f64",
        variance,
        i,
        f,
        &[
            &format!("{ne}variance(&invite::mr::add(xs, 1.0)) == result"),
            &format!("{ne}variance(&invite::mr::multiply(xs, 2.0)) == 4.0 * result"),
        ],
    );
    t.power::<_, fn(Vec<f64>) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
            ("first - -> +", |xs| {
                let m = mean(xs.clone());
                xs.iter().map(|x| (x + m) * (x - m)).sum::<f64>() / xs.len() as f64
            }),
            ("* -> /", |xs| {
                let m = mean(xs.clone());
                xs.iter().map(|x| (x - m) / (x - m)).sum::<f64>() / xs.len() as f64
            }),
            ("* -> +", |xs| {
                let m = mean(xs.clone());
                xs.iter().map(|x| (x - m) + (x - m)).sum::<f64>() / xs.len() as f64
            }),
            ("/ -> *", |xs| {
                let m = mean(xs.clone());
                xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() * xs.len() as f64
            }),
        ],
    );
    let (i, f) = sq(r);
    let c = t.case(
        "fn std_dev(xs: &[f64]) -> f64",
        |xs: Vec<f64>| variance(xs).sqrt(),
        i,
        f,
        &[
            &format!("{ne}std_dev(&invite::mr::add(xs, 1.0)) == result"),
            &format!("{ne}std_dev(&invite::mr::multiply(xs, 2.0)) == 2.0 * result"),
        ],
    );
    t.power::<_, fn(Vec<f64>) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
        ],
    );
    let (i, f) = sq(r);
    let c = t.case(
        "fn median(xs: &[f64]) -> f64",
        median,
        i,
        f,
        &[
            &format!("{ne}median(&invite::mr::permute(xs)) == result"),
            &format!("{ne}median(&invite::mr::negate(xs)) == -result"),
        ],
    );
    t.power::<_, fn(Vec<f64>) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
            ("+ -> -", |mut xs| {
                xs.sort_by(f64::total_cmp);
                let n = xs.len();
                if n == 0 {
                    f64::NAN
                } else if n % 2 == 1 {
                    xs[n / 2]
                } else {
                    (xs[n / 2 - 1] - xs[n / 2]) / 2.0
                }
            }),
            ("/ 2.0 -> * 2.0", |mut xs| {
                xs.sort_by(f64::total_cmp);
                let n = xs.len();
                if n == 0 {
                    f64::NAN
                } else if n % 2 == 1 {
                    xs[n / 2]
                } else {
                    (xs[n / 2 - 1] + xs[n / 2]) * 2.0
                }
            }),
            ("== 1 -> != 1", |mut xs| {
                xs.sort_by(f64::total_cmp);
                let n = xs.len();
                if n == 0 {
                    f64::NAN
                } else if n % 2 != 1 {
                    xs[n / 2]
                } else {
                    (xs[n / 2 - 1] + xs[n / 2]) / 2.0
                }
            }),
            ("no sort", |xs| {
                let n = xs.len();
                if n == 0 {
                    f64::NAN
                } else if n % 2 == 1 {
                    xs[n / 2]
                } else {
                    (xs[n / 2 - 1] + xs[n / 2]) / 2.0
                }
            }),
        ],
    );
    let (i, f) = sq(r);
    let largest = |xs: Vec<f64>| xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let c = t.case(
        "fn largest(xs: &[f64]) -> f64",
        largest,
        i,
        f,
        &[
            "largest(&invite::mr::permute(xs)) == result",
            "largest(&invite::mr::add(xs, 1.0)) == result + 1.0",
            &format!("{ne}largest(&invite::mr::include(xs, xs[0])) == result"),
        ],
    );
    t.power::<_, fn(Vec<f64>) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
            ("max -> min", |xs| {
                xs.iter().copied().fold(f64::NEG_INFINITY, f64::min)
            }),
            ("first only", |xs| {
                xs.first().copied().unwrap_or(f64::NEG_INFINITY)
            }),
        ],
    );
    let (i, f) = sq(r);
    let smallest = |xs: Vec<f64>| xs.iter().copied().fold(f64::INFINITY, f64::min);
    let c = t.case(
        "fn smallest(xs: &[f64]) -> f64",
        smallest,
        i,
        f,
        &["smallest(&invite::mr::permute(xs)) == result"],
    );
    t.power::<_, fn(Vec<f64>) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
            ("min -> max", |xs| {
                xs.iter().copied().fold(f64::INFINITY, f64::max)
            }),
            ("last only", |xs| {
                xs.last().copied().unwrap_or(f64::INFINITY)
            }),
        ],
    );
    let (i, f) = sq(r);
    let c = t.case(
        "fn sum(xs: &[f64]) -> f64",
        |xs: Vec<f64>| xs.iter().sum::<f64>(),
        i,
        f,
        &[
            "sum(&invite::mr::permute(xs)) == result",
            "sum(&invite::mr::concatenate(xs, xs)) == 2.0 * result",
            "sum(&invite::mr::multiply(xs, 2.0)) == 2.0 * result",
        ],
    );
    t.power::<_, fn(Vec<f64>) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
            ("sum -> product", |xs| xs.iter().product::<f64>()),
            ("skip first", |xs| xs.iter().skip(1).sum::<f64>()),
        ],
    );
    let (i, f) = sq(r);
    let c = t.case(
        "fn norm(xs: &[f64]) -> f64",
        |xs: Vec<f64>| xs.iter().map(|x| x * x).sum::<f64>().sqrt(),
        i,
        f,
        &[
            "norm(&invite::mr::multiply(xs, 2.0)) == 2.0 * result",
            "norm(&invite::mr::negate(xs)) == result",
        ],
    );
    t.power::<_, fn(Vec<f64>) -> f64>(
        c,
        vec![
            ("-> 0.0", |_| 0.0),
            ("-> 1.0", |_| 1.0),
            ("-> -1.0", |_| -1.0),
            ("* -> +", |xs| xs.iter().map(|x| x + x).sum::<f64>().sqrt()),
            ("* -> /", |xs| xs.iter().map(|x| x / x).sum::<f64>().sqrt()),
            ("no sqrt", |xs| xs.iter().map(|x| x * x).sum::<f64>()),
        ],
    );
    let (i, f) = sq(r);
    let sort = |mut xs: Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        xs
    };
    let c = t.case(
        "fn sort(xs: &[f64]) -> Vec<f64>",
        sort,
        i,
        f,
        &[
            "sort(&invite::mr::permute(xs)) == result",
            "sort(&invite::mr::add(xs, 1.0)) == invite::mr::add(&result, 1.0)",
        ],
    );
    t.power::<_, fn(Vec<f64>) -> Vec<f64>>(
        c,
        vec![
            ("-> vec![]", |_| vec![]),
            ("-> vec![0.0]", |_| vec![0.0]),
            ("-> vec![1.0]", |_| vec![1.0]),
            ("no sort", |xs| xs),
            ("reversed", |mut xs| {
                xs.sort_by(|a, b| b.total_cmp(a));
                xs
            }),
        ],
    );
    let (i, f) = (int_seqs(r, N), int_seqs(r, FRESH));
    let dedup = |mut xs: Vec<i64>| {
        xs.sort();
        xs.dedup();
        xs
    };
    let c = t.case(
        "fn dedup(xs: &[i64]) -> Vec<i64>",
        dedup,
        i,
        f,
        &[
            "dedup(&invite::mr::permute(xs)) == result",
            "dedup(&invite::mr::concatenate(xs, xs)) == result",
        ],
    );
    t.power::<_, fn(Vec<i64>) -> Vec<i64>>(
        c,
        vec![
            ("-> vec![]", |_| vec![]),
            ("-> vec![0]", |_| vec![0]),
            ("-> vec![1]", |_| vec![1]),
            ("no dedup", |mut xs| {
                xs.sort();
                xs
            }),
            ("no sort", |mut xs| {
                xs.dedup();
                xs
            }),
        ],
    );
    let (i, f) = (int_seqs(r, N), int_seqs(r, FRESH));
    let c = t.case(
        "fn count_positive(xs: &[i64]) -> usize",
        |xs: Vec<i64>| xs.iter().filter(|&&x| x > 0).count(),
        i,
        f,
        &[
            "count_positive(&invite::mr::permute(xs)) == result",
            "count_positive(&invite::mr::concatenate(xs, xs)) == 2 * result",
        ],
    );
    t.power::<_, fn(Vec<i64>) -> usize>(
        c,
        vec![
            ("-> 0", |_| 0),
            ("-> 1", |_| 1),
            ("> -> >=", |xs| xs.iter().filter(|&&x| x >= 0).count()),
            ("> -> <", |xs| xs.iter().filter(|&&x| x < 0).count()),
            ("> -> ==", |xs| xs.iter().filter(|&&x| x == 0).count()),
        ],
    );

    // Functions of mixed shape, as statistics and geometry code has them: a sample and a
    // number, or three numbers. The representative relations are the ones a person would
    // write that discovery can check: `Discovery::failing` judges a relation by the check the
    // search kept with it, so a relation counts only as a proposal, written in the engine's
    // vocabulary (one parameter transformed, or all numbers scaled together; properties of
    // the result alone or against one number parameter). What a person writes beyond it is
    // noted at each function.
    let mixed = |r: &mut rand::rngs::StdRng, lo, hi| {
        (samples_with(r, N, lo, hi), samples_with(r, FRESH, lo, hi))
    };
    // Beyond the vocabulary: monotone in tau (`quantile(xs, 0.5 * tau) <= result`: no
    // inequality is searched for a number's transformation), negation with tau reflected
    // (`quantile(&invite::mr::negate(xs), 1.0 - tau) == -result`: two parameters at once),
    // and the result within the sample's range (no property bounds a number by a sequence).
    let (i, f) = mixed(r, 0.0, 1.0);
    let c = t.case(
        "fn quantile(xs: &[f64], tau: f64) -> f64",
        quantile,
        i,
        f,
        &[
            "quantile(&invite::mr::permute(xs), tau) == result",
            "quantile(&invite::mr::add(xs, 1.0), tau) == result + 1.0",
            "quantile(&invite::mr::multiply(xs, 2.0), tau) == 2.0 * result",
        ],
    );
    t.power::<_, fn(Vec<f64>, f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _| 0.0),
            ("-> 1.0", |_, _| 1.0),
            ("-> -1.0", |_, _| -1.0),
            ("len - 1 -> len + 1", |mut xs, tau| {
                assert!(!xs.is_empty() && (0.0..=1.0).contains(&tau));
                xs.sort_by(f64::total_cmp);
                let h = (xs.len() + 1) as f64 * tau;
                let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
                xs[lo] + (h - lo as f64) * (xs[hi] - xs[lo])
            }),
            ("* tau -> / tau", |mut xs, tau| {
                assert!(!xs.is_empty() && (0.0..=1.0).contains(&tau));
                xs.sort_by(f64::total_cmp);
                let h = (xs.len() - 1) as f64 / tau;
                let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
                xs[lo] + (h - lo as f64) * (xs[hi] - xs[lo])
            }),
            ("+ -> -", |mut xs, tau| {
                assert!(!xs.is_empty() && (0.0..=1.0).contains(&tau));
                xs.sort_by(f64::total_cmp);
                let h = (xs.len() - 1) as f64 * tau;
                let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
                xs[lo] - (h - lo as f64) * (xs[hi] - xs[lo])
            }),
            ("h - lo -> h + lo", |mut xs, tau| {
                assert!(!xs.is_empty() && (0.0..=1.0).contains(&tau));
                xs.sort_by(f64::total_cmp);
                let h = (xs.len() - 1) as f64 * tau;
                let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
                xs[lo] + (h + lo as f64) * (xs[hi] - xs[lo])
            }),
            ("* (xs[hi] - xs[lo]) -> /", |mut xs, tau| {
                assert!(!xs.is_empty() && (0.0..=1.0).contains(&tau));
                xs.sort_by(f64::total_cmp);
                let h = (xs.len() - 1) as f64 * tau;
                let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
                xs[lo] + (h - lo as f64) / (xs[hi] - xs[lo])
            }),
            ("xs[hi] - xs[lo] -> +", |mut xs, tau| {
                assert!(!xs.is_empty() && (0.0..=1.0).contains(&tau));
                xs.sort_by(f64::total_cmp);
                let h = (xs.len() - 1) as f64 * tau;
                let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
                xs[lo] + (h - lo as f64) * (xs[hi] + xs[lo])
            }),
            ("no sort", |xs, tau| {
                assert!(!xs.is_empty() && (0.0..=1.0).contains(&tau));
                let h = (xs.len() - 1) as f64 * tau;
                let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
                xs[lo] + (h - lo as f64) * (xs[hi] - xs[lo])
            }),
        ],
    );
    // Beyond the vocabulary: monotone in p (`percentile(xs, p / 2) <= result`), and the
    // result one of the sample's elements (`xs.contains(&result)`).
    let ranks = |r: &mut rand::rngs::StdRng, n| -> Vec<(Vec<f64>, usize)> {
        (0..n)
            .map(|_| (sample(r), r.random_range(0..=100)))
            .collect()
    };
    let (i, f) = (ranks(r, N), ranks(r, FRESH));
    let c = t.case(
        "fn percentile(xs: &[f64], p: usize) -> f64",
        percentile,
        i,
        f,
        &[
            "percentile(&invite::mr::permute(xs), p) == result",
            "percentile(&invite::mr::add(xs, 1.0), p) == result + 1.0",
            "percentile(&invite::mr::multiply(xs, 2.0), p) == 2.0 * result",
            "percentile(&invite::mr::concatenate(xs, xs), p) == result",
        ],
    );
    t.power::<_, fn(Vec<f64>, usize) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _| 0.0),
            ("-> 1.0", |_, _| 1.0),
            ("-> -1.0", |_, _| -1.0),
            ("* -> +", |mut xs, p| {
                assert!(!xs.is_empty() && p <= 100);
                xs.sort_by(f64::total_cmp);
                let rank = (p + xs.len()).div_ceil(100).max(1);
                xs[rank - 1]
            }),
            ("div_ceil -> /", |mut xs, p| {
                assert!(!xs.is_empty() && p <= 100);
                xs.sort_by(f64::total_cmp);
                let rank = (p * xs.len() / 100).max(1);
                xs[rank - 1]
            }),
            ("max -> min", |mut xs, p| {
                assert!(!xs.is_empty() && p <= 100);
                xs.sort_by(f64::total_cmp);
                let rank = (p * xs.len()).div_ceil(100).min(1);
                xs[rank - 1]
            }),
            ("rank - 1 -> rank + 1", |mut xs, p| {
                assert!(!xs.is_empty() && p <= 100);
                xs.sort_by(f64::total_cmp);
                let rank = (p * xs.len()).div_ceil(100).max(1);
                xs[rank + 1]
            }),
            ("no sort", |xs, p| {
                assert!(!xs.is_empty() && p <= 100);
                let rank = (p * xs.len()).div_ceil(100).max(1);
                xs[rank - 1]
            }),
        ],
    );
    // Beyond the vocabulary: the last element alone for `alpha = 1.0`
    // (`ewma(xs, 1.0) == xs[xs.len() - 1]`), and the result within the sample's range.
    let (i, f) = mixed(r, 0.05, 1.0);
    let c = t.case(
        "fn ewma(xs: &[f64], alpha: f64) -> f64",
        ewma,
        i,
        f,
        &[
            "ewma(&invite::mr::add(xs, 1.0), alpha) == result + 1.0",
            "ewma(&invite::mr::multiply(xs, 2.0), alpha) == 2.0 * result",
            "ewma(&invite::mr::negate(xs), alpha) == -result",
        ],
    );
    t.power::<_, fn(Vec<f64>, f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _| 0.0),
            ("-> 1.0", |_, _| 1.0),
            ("-> -1.0", |_, _| -1.0),
            ("alpha * x -> alpha + x", |xs, alpha| {
                assert!(!xs.is_empty() && alpha > 0.0 && alpha <= 1.0);
                xs[1..]
                    .iter()
                    .fold(xs[0], |s, &x| (alpha + x) + (1.0 - alpha) * s)
            }),
            ("+ -> -", |xs, alpha| {
                assert!(!xs.is_empty() && alpha > 0.0 && alpha <= 1.0);
                xs[1..]
                    .iter()
                    .fold(xs[0], |s, &x| alpha * x - (1.0 - alpha) * s)
            }),
            ("1.0 - alpha -> 1.0 + alpha", |xs, alpha| {
                assert!(!xs.is_empty() && alpha > 0.0 && alpha <= 1.0);
                xs[1..]
                    .iter()
                    .fold(xs[0], |s, &x| alpha * x + (1.0 + alpha) * s)
            }),
            ("* s -> / s", |xs, alpha| {
                assert!(!xs.is_empty() && alpha > 0.0 && alpha <= 1.0);
                xs[1..]
                    .iter()
                    .fold(xs[0], |s, &x| alpha * x + (1.0 - alpha) / s)
            }),
        ],
    );
    // Beyond the vocabulary, every relation a person writes: the ends swapped with t
    // reflected (`lerp(b, a, 1.0 - t) == result`), both ends translated or scaled with t
    // left alone (`lerp(a + 1.0, b + 1.0, t) == result + 1.0`, `lerp(2.0 * a, 2.0 * b, t) ==
    // 2.0 * result`: the engine moves one parameter, or scales all three), the ends at 0 and
    // 1, and the result between them.
    let (i, f) = (endpoints(r, N, 10.0), endpoints(r, FRESH, 20.0));
    let c = t.case(
        "fn lerp(a: f64, b: f64, t: f64) -> f64",
        |a: f64, b: f64, t: f64| a + t * (b - a),
        i,
        f,
        &[],
    );
    t.power::<_, fn(f64, f64, f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _, _| 0.0),
            ("-> 1.0", |_, _, _| 1.0),
            ("-> -1.0", |_, _, _| -1.0),
            ("+ -> -", |a, b, t| a - t * (b - a)),
            ("* -> +", |a, b, t| a + (t + (b - a))),
            ("* -> /", |a, b, t| a + t / (b - a)),
            ("- -> +", |a, b, t| a + t * (b + a)),
        ],
    );
    // Beyond the vocabulary: idempotence (`clamp(result, lo, hi) == result`), translation of
    // all three (`clamp(x + 1.0, lo + 1.0, hi + 1.0) == result + 1.0`), negation with the
    // bounds swapped (`clamp(-x, -hi, -lo) == -result`), monotone in x.
    let (i, f) = (bounded(r, N, 10.0), bounded(r, FRESH, 20.0));
    let c = t.case(
        "fn clamp(x: f64, lo: f64, hi: f64) -> f64",
        clamp,
        i,
        f,
        &[
            "clamp(2.0 * x, 2.0 * lo, 2.0 * hi) == 2.0 * result",
            "result >= lo",
            "result <= hi",
        ],
    );
    t.power::<_, fn(f64, f64, f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _, _| 0.0),
            ("-> 1.0", |_, _, _| 1.0),
            ("-> -1.0", |_, _, _| -1.0),
            ("< -> <=", |x, lo, hi| {
                assert!(lo <= hi);
                if x <= lo {
                    lo
                } else if x > hi {
                    hi
                } else {
                    x
                }
            }),
            ("< -> ==", |x, lo, hi| {
                assert!(lo <= hi);
                if x == lo {
                    lo
                } else if x > hi {
                    hi
                } else {
                    x
                }
            }),
            ("< -> >", |x, lo, hi| {
                assert!(lo <= hi);
                if x > lo {
                    lo
                } else if x > hi {
                    hi
                } else {
                    x
                }
            }),
            ("> -> >=", |x, lo, hi| {
                assert!(lo <= hi);
                if x < lo {
                    lo
                } else if x >= hi {
                    hi
                } else {
                    x
                }
            }),
            ("> -> ==", |x, lo, hi| {
                assert!(lo <= hi);
                if x < lo {
                    lo
                } else if x == hi {
                    hi
                } else {
                    x
                }
            }),
            ("> -> <", |x, lo, hi| {
                assert!(lo <= hi);
                if x < lo {
                    lo
                } else if x < hi {
                    hi
                } else {
                    x
                }
            }),
        ],
    );
    // Beyond the vocabulary: a step's translation (`round_to(x + step, step) == result +
    // step`: the offset is a parameter), idempotence (`round_to(result, step) == result`),
    // and the distance (`(result - x).abs() <= 0.5 * step`).
    let (i, f) = (stepped(r, N, 50.0), stepped(r, FRESH, 100.0));
    let c = t.case(
        "fn round_to(x: f64, step: f64) -> f64",
        |x: f64, step: f64| {
            assert!(step > 0.0);
            (x / step).round() * step
        },
        i,
        f,
        &[
            "round_to(-x, step) == -result",
            "round_to(2.0 * x, 2.0 * step) == 2.0 * result",
        ],
    );
    t.power::<_, fn(f64, f64) -> f64>(
        c,
        vec![
            ("-> 0.0", |_, _| 0.0),
            ("-> 1.0", |_, _| 1.0),
            ("-> -1.0", |_, _| -1.0),
            ("/ -> *", |x, step| {
                assert!(step > 0.0);
                (x * step).round() * step
            }),
            ("* -> /", |x, step| {
                assert!(step > 0.0);
                (x / step).round() / step
            }),
            ("* -> +", |x, step| {
                assert!(step > 0.0);
                (x / step).round() + step
            }),
            ("round -> trunc", |x, step| {
                assert!(step > 0.0);
                (x / step).trunc() * step
            }),
            ("round -> floor", |x, step| {
                assert!(step > 0.0);
                (x / step).floor() * step
            }),
        ],
    );

    println!(
        "Relation discovery, offline, {N} inputs per function (`cargo bench --bench discovery`)\n"
    );
    println!(
        "| function | CPU | proposed | representative found | failed on {FRESH} fresh inputs |"
    );
    println!("|---|---|---|---|---|");
    for row in &t.rows {
        println!("{row}");
    }
    let worst = t.cpu.iter().copied().fold(0.0, f64::max);
    let total: f64 = t.cpu.iter().sum();
    println!("\nfunctions: {}", t.rows.len());
    println!(
        "CPU per function: mean {:.0} ms, worst {:.0} ms",
        total / t.cpu.len() as f64 * 1e3,
        worst * 1e3
    );
    for kind in [
        "one number",
        "two numbers",
        "three numbers",
        "sequences",
        "mixed",
    ] {
        let of: Vec<f64> = t
            .cpu_by_kind
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, c)| *c)
            .collect();
        println!(
            "  functions of {kind}: {}, CPU mean {:.0} ms, worst {:.0} ms",
            of.len(),
            of.iter().sum::<f64>() / of.len().max(1) as f64 * 1e3,
            of.iter().copied().fold(0.0, f64::max) * 1e3
        );
    }
    println!(
        "recall: {}/{} representative relations ({:.0}%)",
        t.found,
        t.expected,
        100.0 * t.found as f64 / t.expected as f64
    );
    println!(
        "precision: {} proposals failed, over {} checks on fresh inputs",
        t.false_relations.len(),
        t.checks
    );
    println!("\nPower: the proposals, pasted, run against mutants of each function (the body replaced by");
    println!("a constant, as cargo-mutants does, and its operators replaced); beside them the");
    println!("representative relations alone, as a person would write them.\n");
    println!("| function | non-equivalent mutants | killed by the proposals | killed by the representative relations |");
    println!("|---|---|---|---|");
    for row in &t.power_rows {
        println!("{row}");
    }
    println!(
        "\npower: proposals kill {}/{} ({:.0}%); representative relations alone kill {}/{} ({:.0}%); {} equivalent mutants left out",
        t.killed,
        t.mutants,
        100.0 * t.killed as f64 / t.mutants.max(1) as f64,
        t.killed_by_hand,
        t.mutants,
        100.0 * t.killed_by_hand as f64 / t.mutants.max(1) as f64,
        t.equivalent.len()
    );
    for e in &t.equivalent {
        println!("  equivalent: {e}");
    }
    for sv in &t.survivors {
        println!("  survived the proposals: {sv}");
    }
    println!(
        "\nPer family: how many proposals, and how many of the mutants each family's proposals"
    );
    println!("kill on their own.\n");
    println!("| family | proposals | mutants killed alone |");
    println!("|---|---|---|");
    for (name, (proposals, killed)) in FAMILIES.iter().zip(t.families) {
        println!(
            "| {name} | {proposals} | {killed}/{} ({:.0}%) |",
            t.mutants,
            100.0 * killed as f64 / t.mutants.max(1) as f64
        );
    }
}
