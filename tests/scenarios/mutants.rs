//! `#[invite::mutants]`: wrong versions of a function that compile wherever it does, never run
//! forever, and let the representative set keep the relations that tell them from the function.

use invite::discover::Discovery;

/// Shapes a body takes: a generic parameter, a pattern, an early `return`, `?`, a `match`, a
/// constant array with a constant index, a literal at its type's end, a closure, a loop left
/// alone, an array whose length its type names, an index that a version moves past the end.
#[invite::mutants]
fn shapes<T: Copy + Into<f64>>(xs: &[T], (lo, hi): (f64, f64), k: u8) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    const STEPS: [u8; 3] = [1, 2, 255];
    let table: [f64; 3] = [0.5; 3];
    let first: f64 = xs.first().copied()?.into();
    let mut n = 0u32;
    while n < 3 {
        n += 1;
    }
    let scaled = xs
        .iter()
        .map(|&x| x.into() * table[1])
        .filter(|v| *v >= lo && *v <= hi)
        .count();
    let step = match k {
        0 => STEPS[0],
        _ => STEPS[2] - k.min(254),
    };
    // A one-element array at a constant index: the version's index one past its end reads as
    // no constant to the lint that would make it an error.
    let only = [first];
    Some(only[0] + scaled as f64 + f64::from(step) + f64::from(n) + f64::from(255u8))
}

#[invite::mutants]
fn nothing_to_change(x: f64) -> f64 {
    let mut y = x;
    loop {
        if y > x {
            break y;
        }
        y += 1.0;
    }
}

#[invite::mutants]
fn to_byte(x: i32) -> u8 {
    if x < 0 {
        0
    } else if x > 255 {
        255
    } else {
        x as u8
    }
}

#[test]
fn wrong_versions_compile_for_every_shape_and_differ_from_the_function() {
    let list = invite::mutants_of!(shapes::<f32>);
    assert!(
        list.len() >= 8,
        "{:?}",
        list.iter().map(|m| m.0).collect::<Vec<_>>()
    );
    assert!(list.len() <= 16);
    let xs = [0.5f32, 3.0, -2.0, 40.0, 1.0];
    let calls = [
        (&xs[..], (0.0, 10.0), 7),
        (&xs[..1], (0.5, 1.0), 0),
        (&xs[3..], (-1.0, 20.0), 255),
    ];
    let differ: Vec<&str> = list
        .iter()
        .filter(|(_, m)| {
            calls.iter().any(|&(xs, bounds, k)| {
                invite::discover::quietly(|| m(xs, bounds, k)) != Some(shapes(xs, bounds, k))
            })
        })
        .map(|m| m.0)
        .collect();
    assert!(
        differ.len() * 2 >= list.len(),
        "{differ:?} of {}",
        list.len()
    );
    // The loop's condition and the literal inside it are left alone: nothing else is there.
    assert!(list.iter().all(|(what, _)| !what.contains("n < 3")));
    assert_eq!(invite::mutants_of!(nothing_to_change).len(), 0);
    assert_eq!(nothing_to_change(2.0), 3.0);
}

#[test]
fn every_boundary_of_a_clamp_is_a_wrong_version_named_by_its_change() {
    let list = invite::mutants_of!(to_byte);
    let named: Vec<&str> = list.iter().map(|m| m.0).collect();
    assert_eq!(
        named,
        [
            "`x < 0` as `x <= 0`",
            "`0` as `1`",
            "`0` as `1` (2)",
            "`x > 255` as `x >= 255`",
            "`255` as `254`",
            "`255` as `254` (2)",
        ]
    );
    // A boundary moved onto a value both branches map alike is wrong nowhere (`x <= 0` at 0,
    // `x < 1` at 0, `x >= 255` at 255): only the values the branches give are.
    let wrong: Vec<bool> = list
        .iter()
        .map(|(_, m)| (-300..300).any(|x| m(x) != to_byte(x)))
        .collect();
    assert_eq!(wrong, [false, false, true, false, false, true]);
}

#[invite::mutants]
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

/// The representative set keeps, beside the relations that catch every made-up wrong output,
/// those that catch a wrong version of the function none of them catches.
#[test]
fn the_representative_set_keeps_what_catches_a_wrong_version() {
    let sig = "fn median(xs: &[f64]) -> f64";
    let inputs: Vec<(Vec<f64>,)> = (0..80)
        .map(|i| {
            let xs = (0..1 + i % 7).map(|j| ((i * 31 + j * 17) % 23) as f64 * 0.5 - 4.0);
            (xs.collect(),)
        })
        .collect();
    let plain = Discovery::new(sig, median)
        .unwrap()
        .inputs(inputs.clone())
        .run();
    let versions = invite::mutants_of!(median);
    let judged = Discovery::new(sig, median)
        .unwrap()
        .inputs(inputs.clone())
        .mutants(versions.clone())
        .run();
    // The same proposals, each now saying what it catches of the wrong versions.
    assert!(
        judged.relations().eq(plain.relations()),
        "{judged}\n{plain}"
    );
    assert!(
        judged.0.iter().all(|p| p.mutants == versions.len()),
        "{judged}"
    );
    assert!(judged
        .to_string()
        .contains(&format!(" of {} mutants", versions.len())));
    let (by_outputs, by_versions) = (plain.representative(), judged.representative());
    // What the outputs chose stays.
    for p in by_outputs.relations() {
        assert!(by_versions.relations().any(|r| r == p), "{p} left out");
    }
    let mut gained = Vec::new();
    for (what, m) in versions {
        let d = Discovery::new(sig, m).unwrap();
        let kills = |p: &invite::discover::Proposals| !d.failing(p, inputs.clone()).is_empty();
        // Each version any proposal catches, the representative set catches.
        assert_eq!(kills(&judged), kills(&by_versions), "{what}: {by_versions}");
        if kills(&by_versions) && !kills(&by_outputs) {
            gained.push(what);
        }
    }
    // `n / 2 - 1` as `n / 1 - 1`: the lower middle of an even length taken from the end,
    // which the relations of made-up outputs do not tell.
    assert!(!gained.is_empty(), "{by_outputs}\n{by_versions}");
}

/// A fee by bands, under discovery in a running program: its wrong versions are observed in
/// the observing child beside it.
#[invite::discover(mutants = true)]
fn fee(cents: i64) -> i64 {
    if cents > 1000 {
        cents / 50
    } else if cents > 0 {
        20
    } else {
        0
    }
}

/// Three times the magnitude: an exact relation (`tripled(-x) == result`) catches a version
/// whose branches disagree.
#[invite::discover(mutants = true)]
fn tripled(x: i64) -> i64 {
    if x < 0 {
        -3 * x
    } else {
        3 * x
    }
}

/// The same fee, with no wrong versions: they are asked for.
#[invite::discover]
fn fee_alone(cents: i64) -> i64 {
    if cents > 1000 {
        cents / 50
    } else {
        20
    }
}

#[test]
fn a_live_discovery_runs_the_wrong_versions_and_its_proposals_say_what_they_catch() {
    use invite::record::Record;
    let config = "default_rho = 1.0\nmax_concurrent = 64\nmax_overhead = 1.0\n\
                  child_cpu_charge = 0.0\nwhen_busy = \"wait\"";
    let run = crate::support::scenario(here!(), config, || {
        for i in 0..48 {
            let cents = i * 97 - 800;
            let right = match cents {
                c if c > 1000 => c / 50,
                c if c > 0 => 20,
                _ => 0,
            };
            assert_eq!(fee(cents), right);
            assert!(invite::wait_idle(std::time::Duration::from_secs(30)));
        }
        for i in 0..40 {
            assert_eq!(tripled(i * 7 - 140), 3 * (i * 7 - 140i64).abs());
            assert!(invite::wait_idle(std::time::Duration::from_secs(30)));
        }
        assert_eq!(fee_alone(1200), 24);
        assert!(invite::wait_idle(std::time::Duration::from_secs(30)));
    });
    run.assert_success();
    let of = |site: &str| -> Vec<invite::discover::Observation> {
        run.records()
            .into_iter()
            .filter_map(|r| match r {
                Record::Observation(o) if o.site.ends_with(site) => Some(o.observation),
                _ => None,
            })
            .collect()
    };
    let alone = of("::fee_alone");
    assert_eq!(alone.len(), 1, "{}", run.describe());
    assert!(alone[0].mutants.is_empty(), "{:?}", alone[0].mutants);
    let obs = of("::fee");
    assert_eq!(obs.len(), 48, "{}", run.describe());
    // Four of its seven versions (`>` twice, `1000`, `50`, `0` twice, `20` changed) on each
    // call, in turn, and each on some.
    assert!(
        obs.iter().all(|o| o.mutants.len() == 4),
        "{:?}",
        obs[0].mutants
    );
    let run_on: std::collections::HashSet<&str> = obs
        .iter()
        .flat_map(|o| o.mutants.iter().map(|m| m.version.as_str()))
        .collect();
    assert_eq!(run_on.len(), 7, "{run_on:?}");
    assert!(
        run_on.contains("`cents > 1000` as `cents >= 1000`"),
        "{run_on:?}"
    );
    assert!(run_on.contains("`0` as `1` (2)"), "{run_on:?}");
    // `50` as `49` differs on every fee above the band.
    assert!(obs
        .iter()
        .any(|o| o.mutants.iter().any(|m| !m.differs.is_empty())));
    let found = invite::discover::propose_observed(
        "scenarios::mutants::fee",
        "fn fee(cents: i64) -> i64",
        &obs,
        30,
    )
    .unwrap();
    assert!(
        found.proposals.0.iter().all(|p| p.mutants == 7),
        "{}",
        found.proposals
    );
    // Its four versions (`<`, `0`, each `3`) on every call; the branches' factors caught.
    let obs = of("::tripled");
    assert_eq!(obs.len(), 40, "{}", run.describe());
    let found = invite::discover::propose_observed(
        "scenarios::mutants::tripled",
        "fn tripled(x: i64) -> i64",
        &obs,
        30,
    )
    .unwrap();
    let rep = found.proposals.representative();
    let most = |ps: &invite::discover::Proposals| ps.0.iter().map(|p| p.kills).max();
    assert_eq!(most(&found.proposals), Some(2), "{}", found.proposals);
    assert_eq!(most(&rep), Some(2), "{rep}");
}

/// A tariff as a model holds one: a threshold and a rate, read through `self`.
#[derive(Clone, Debug, PartialEq, invite::Discoverable)]
struct Tariff {
    threshold: i64,
    rate: i64,
}

impl Tariff {
    /// Under discovery, with the wrong versions of a method: each takes the receiver.
    #[invite::discover(mutants = true)]
    fn charge(&self, cents: i64) -> i64 {
        if cents > self.threshold {
            cents / self.rate
        } else {
            20
        }
    }

    /// The same, its versions built to be called by hand; `self` in a macro call's tokens
    /// and a `self::` path are the receiver's and the module's.
    #[invite::mutants]
    fn quoted(&self, cents: i64) -> String {
        let over = cents > self.threshold;
        let band = self::band_name(over);
        format!("{band}: {}", if over { cents / self.rate } else { 20 })
    }
}

fn band_name(over: bool) -> &'static str {
    if over {
        "over"
    } else {
        "flat"
    }
}

#[test]
fn the_wrong_versions_of_a_method_take_its_receiver() {
    let tariff = Tariff {
        threshold: 1000,
        rate: 50,
    };
    let list = invite::mutants_of!(Tariff::quoted);
    let named: Vec<&str> = list.iter().map(|m| m.0).collect();
    assert!(
        named.contains(&"`cents > self.threshold` as `cents >= self.threshold`"),
        "{named:?}"
    );
    // Each version reads the receiver it is given: the boundary moved differs at the
    // threshold of each tariff, and only there.
    let moved = list
        .iter()
        .find(|m| m.0 == "`cents > self.threshold` as `cents >= self.threshold`")
        .unwrap()
        .1;
    let other = Tariff {
        threshold: 300,
        rate: 10,
    };
    for t in [&tariff, &other] {
        let differ: Vec<i64> = (0..2000).filter(|&c| moved(t, c) != t.quoted(c)).collect();
        assert_eq!(differ, [t.threshold], "{t:?}");
    }
    assert_eq!(tariff.quoted(2000), "over: 40");
}

#[test]
fn a_live_discovery_of_a_method_runs_its_wrong_versions_on_the_receiver() {
    use invite::record::Record;
    let config = "default_rho = 1.0\nmax_concurrent = 64\nmax_overhead = 1.0\n\
                  child_cpu_charge = 0.0\nwhen_busy = \"wait\"";
    let run = crate::support::scenario(here!(), config, || {
        let tariff = Tariff {
            threshold: 1000,
            rate: 50,
        };
        for i in 0..40 {
            let cents = i * 97 - 800;
            let right = if cents > 1000 { cents / 50 } else { 20 };
            assert_eq!(tariff.charge(cents), right);
            assert!(invite::wait_idle(std::time::Duration::from_secs(30)));
        }
    });
    run.assert_success();
    let obs: Vec<invite::discover::Observation> = run
        .records()
        .into_iter()
        .filter_map(|r| match r {
            Record::Observation(o) if o.site.ends_with("::charge") => Some(o.observation),
            _ => None,
        })
        .collect();
    assert_eq!(obs.len(), 40, "{}", run.describe());
    assert!(obs.iter().all(|o| !o.mutants.is_empty()), "{:?}", obs[0]);
    let run_on: std::collections::HashSet<&str> = obs
        .iter()
        .flat_map(|o| o.mutants.iter().map(|m| m.version.as_str()))
        .collect();
    assert!(
        run_on.contains("`cents > self.threshold` as `cents >= self.threshold`"),
        "{run_on:?}"
    );
    // `20` as `21` differs on every call at or below the threshold.
    assert!(obs.iter().any(|o| o
        .mutants
        .iter()
        .any(|m| m.version.starts_with("`20`") && !m.differs.is_empty())));
    let found = invite::discover::propose_observed(
        "scenarios::mutants::Tariff::charge",
        "fn charge(&self, self.threshold: i64, self.rate: i64, cents: i64) -> i64",
        &obs,
        30,
    )
    .unwrap();
    assert!(
        found.proposals.0.iter().all(|p| p.mutants == run_on.len()),
        "{}",
        found.proposals
    );
}

/// Shapes `mutants = true` takes under discovery: an associated function that names `Self`,
/// an early `return` and `?`, a closure, a pattern.
struct Bands;

#[invite::sites]
impl Bands {
    #[invite::discover(mutants = true)]
    fn band(x: i64) -> u8 {
        if x < 10 {
            1
        } else {
            Self::top()
        }
    }

    fn top() -> u8 {
        2
    }
}

#[invite::discover(mutants = true)]
fn ratio((a, b): (i64, i64), bias: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    let shifted = |k: i64| k + bias * 2;
    Some(shifted(q) + 1)
}

#[test]
fn versions_under_discovery_compile_for_these_shapes_and_leave_calls_alone() {
    assert_eq!((Bands::band(3), Bands::band(30)), (1, 2));
    assert_eq!(ratio((7, 2), 1), Some(6));
    assert_eq!(ratio((7, 0), 1), None);
}
