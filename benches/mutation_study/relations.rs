//! Relations for the public functions of the `statistical` crate (1.0.0), and a driver that calls
//! them as a program would: every call sampled, each run awaited, then the outcomes read back
//! in process. The test fails when any relation failed, errored or timed out: that is how a
//! mutant counts as killed by invite. A panic of the program's own call is caught and ignored,
//! so that only what invite's tests saw counts.
//!
//! The relations were written from the definitions of the statistics, before any mutant was
//! looked at. The run script (`run` beside this file) places this file into a scratch
//! workspace with the crate.

mod common;

use common::{call, Inputs, Study};
use invite::mr::{
    add, concatenate, in_range_tolerant, include, multiply, negate, permute, reverse,
};

fn n(xs: &[f64]) -> f64 {
    xs.len() as f64
}

fn max(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

fn min(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Not all the same value: the moments divide by the spread.
fn spread(xs: &[f64]) -> bool {
    max(xs) > min(xs)
}

fn positive(xs: &[f64]) -> bool {
    xs.iter().all(|&x| x > 0.0)
}

fn squares(xs: &[f64]) -> Vec<f64> {
    xs.iter().map(|x| x * x).collect()
}

/// Whether one value occurs more often than every other (the mode is then well defined).
fn has_unique_mode(xs: &[i64]) -> bool {
    let mut counts = std::collections::HashMap::new();
    for x in xs {
        *counts.entry(x).or_insert(0) += 1;
    }
    let top = counts.values().copied().max().unwrap_or(0);
    counts.values().filter(|&&c| c == top).count() == 1
}

#[invite::metamorphic(
    mean(&permute(xs)) == result,
    mean(&add(xs, 3.5)) == result + 3.5,
    mean(&multiply(xs, -2.0)) == result * -2.0,
    mean(&concatenate(xs, xs)) == result,
    mean(&include(xs, result)) == result,
    mean(&[xs[0]]) == xs[0],
    in_range_tolerant(&result, &min(xs), &max(xs), 1e-9),
)]
pub fn mean(xs: &[f64]) -> f64 {
    statistical::mean(xs)
}

#[invite::metamorphic(
    median(&permute(xs)) == result,
    median(&add(xs, 3.5)) == result + 3.5,
    median(&multiply(xs, -2.0)) == result * -2.0,
    median(&concatenate(xs, xs)) == result,
    median(&include(xs, result)) == result,
    median(&[xs[0]]) == xs[0],
    in_range_tolerant(&result, &min(xs), &max(xs), 1e-9),
    if xs.len() % 2 == 1 => xs.contains(&result),
    2 * xs.iter().filter(|&&x| x <= result).count() >= xs.len(),
    2 * xs.iter().filter(|&&x| x >= result).count() >= xs.len(),
)]
pub fn median(xs: &[f64]) -> f64 {
    statistical::median(xs)
}

#[invite::metamorphic(
    variance(&permute(xs), xbar) == result,
    variance(&add(xs, 2.5), xbar.map(|m| m + 2.5)) == result,
    variance(&multiply(xs, -3.0), xbar.map(|m| m * -3.0)) == result * 9.0,
    if xbar.is_none() => variance(xs, Some(mean(xs))) == result,
    if xbar.is_none() => variance(&concatenate(xs, xs), None) * (2.0 * n(xs) - 1.0)
        == result * 2.0 * (n(xs) - 1.0),
    if xbar.is_none() => variance(&include(xs, mean(xs)), None) * n(xs) == result * (n(xs) - 1.0),
    population_variance(xs, xbar) * n(xs) == result * (n(xs) - 1.0),
    result >= 0.0,
)]
pub fn variance(xs: &[f64], xbar: Option<f64>) -> f64 {
    statistical::variance(xs, xbar)
}

#[invite::metamorphic(
    population_variance(&permute(xs), mu) == result,
    population_variance(&add(xs, 2.5), mu.map(|m| m + 2.5)) == result,
    population_variance(&multiply(xs, -3.0), mu.map(|m| m * -3.0)) == result * 9.0,
    if mu.is_none() => population_variance(xs, Some(mean(xs))) == result,
    if mu.is_none() => population_variance(xs, Some(mean(xs) + 1.0)) == result + 1.0,
    if mu.is_none() => population_variance(&concatenate(xs, xs), None) == result,
    if mu.is_none() => population_variance(&include(xs, mean(xs)), None) * (n(xs) + 1.0)
        == result * n(xs),
    result >= 0.0,
)]
pub fn population_variance(xs: &[f64], mu: Option<f64>) -> f64 {
    statistical::population_variance(xs, mu)
}

#[invite::metamorphic(
    standard_deviation(&permute(xs), xbar) == result,
    standard_deviation(&add(xs, 2.5), xbar.map(|m| m + 2.5)) == result,
    standard_deviation(&multiply(xs, -3.0), xbar.map(|m| m * -3.0)) == result * 3.0,
    if xbar.is_none() => standard_deviation(xs, Some(mean(xs))) == result,
    if xbar.is_none() => standard_deviation(&concatenate(xs, xs), None) * (2.0 * n(xs) - 1.0).sqrt()
        == result * (2.0 * (n(xs) - 1.0)).sqrt(),
    result * result == variance(xs, xbar),
    result >= 0.0,
)]
pub fn standard_deviation(xs: &[f64], xbar: Option<f64>) -> f64 {
    statistical::standard_deviation(xs, xbar)
}

#[invite::metamorphic(
    population_standard_deviation(&permute(xs), mu) == result,
    population_standard_deviation(&add(xs, 2.5), mu.map(|m| m + 2.5)) == result,
    population_standard_deviation(&multiply(xs, -3.0), mu.map(|m| m * -3.0)) == result * 3.0,
    if mu.is_none() => population_standard_deviation(&concatenate(xs, xs), None) == result,
    if mu.is_none() => population_standard_deviation(xs, Some(mean(xs) + 2.0)).powi(2)
        == result * result + 4.0,
    result * result == population_variance(xs, mu),
    result >= 0.0,
)]
pub fn population_standard_deviation(xs: &[f64], mu: Option<f64>) -> f64 {
    statistical::population_standard_deviation(xs, mu)
}

#[invite::metamorphic(
    if spread(xs) => standard_scores(&add(xs, 4.0)) == result,
    if spread(xs) => standard_scores(&multiply(xs, 2.5)) == result,
    if spread(xs) => standard_scores(&negate(xs)) == negate(&result[..]),
    if spread(xs) => standard_scores(&reverse(xs)) == reverse(&result),
    if spread(xs) => mean(&result) == 0.0,
    if spread(xs) => variance(&result, None) == 1.0,
    result.len() == xs.len(),
)]
pub fn standard_scores(xs: &[f64]) -> Vec<f64> {
    statistical::standard_scores(xs)
}

#[invite::metamorphic(
    harmonic_mean(&permute(xs)) == result,
    harmonic_mean(&multiply(xs, 2.5)) == result * 2.5,
    harmonic_mean(&concatenate(xs, xs)) == result,
    harmonic_mean(&include(xs, result)) == result,
    harmonic_mean(&[xs[0]]) == xs[0],
    if positive(xs) => result <= geometric_mean(xs),
    if positive(xs) => in_range_tolerant(&result, &min(xs), &max(xs), 1e-9),
)]
pub fn harmonic_mean(xs: &[f64]) -> f64 {
    statistical::univariate::harmonic_mean(xs)
}

#[invite::metamorphic(
    geometric_mean(&permute(xs)) == result,
    geometric_mean(&multiply(xs, 2.5)) == result * 2.5,
    geometric_mean(&concatenate(xs, xs)) == result,
    geometric_mean(&include(xs, result)) == result,
    geometric_mean(&squares(xs)) == result * result,
    geometric_mean(&[xs[0]]) == xs[0],
    if positive(xs) => result <= mean(xs),
    if positive(xs) => in_range_tolerant(&result, &min(xs), &max(xs), 1e-9),
)]
pub fn geometric_mean(xs: &[f64]) -> f64 {
    statistical::univariate::geometric_mean(xs)
}

#[invite::metamorphic(
    quadratic_mean(&permute(xs)) == result,
    quadratic_mean(&multiply(xs, -2.5)) == result * 2.5,
    quadratic_mean(&concatenate(xs, xs)) == result,
    quadratic_mean(&include(xs, result)) == result,
    quadratic_mean(&[xs[0]]) == xs[0].abs(),
    result * result == mean(&squares(xs)),
    result >= mean(xs).abs(),
)]
pub fn quadratic_mean(xs: &[f64]) -> f64 {
    statistical::univariate::quadratic_mean(xs)
}

#[invite::metamorphic(
    if has_unique_mode(xs) => mode(&permute(xs)) == result,
    if has_unique_mode(xs) => mode(&concatenate(xs, xs)) == result,
    if has_unique_mode(xs) => mode(&add(xs, 5)) == result.map(|m| m + 5),
    if has_unique_mode(xs) => mode(&multiply(xs, -3)) == result.map(|m| m * -3),
    if has_unique_mode(xs) => mode(&include(xs, result.unwrap_or(0))) == result,
    xs.is_empty() == result.is_none(),
    result.is_none_or(|m| xs.contains(&m)),
    result.is_none_or(|m| xs.iter().all(|x| {
        xs.iter().filter(|&y| y == x).count() <= xs.iter().filter(|&&y| y == m).count()
    })),
    // Which of several equally common values is returned depends on the order of a `HashMap`
    // made afresh on each call, so two runs of a tie need not agree: no self-check here.
    self_check = false,
)]
pub fn mode(xs: &[i64]) -> Option<i64> {
    statistical::mode(xs)
}

#[invite::metamorphic(
    average_deviation(&permute(xs), center) == result,
    average_deviation(&add(xs, 2.5), center.map(|m| m + 2.5)) == result,
    average_deviation(&multiply(xs, -3.0), center.map(|m| m * -3.0)) == result * 3.0,
    if center.is_none() => average_deviation(xs, Some(mean(xs))) == result,
    if center.is_none() => average_deviation(&concatenate(xs, xs), None) == result,
    if center.is_none() => average_deviation(&include(xs, mean(xs)), None) * (n(xs) + 1.0)
        == result * n(xs),
    if center.is_none() => average_deviation(xs, Some(max(xs) + 1.0)) == max(xs) + 1.0 - mean(xs),
    if center.is_none() => result <= population_standard_deviation(xs, None),
    result >= 0.0,
)]
pub fn average_deviation(xs: &[f64], center: Option<f64>) -> f64 {
    statistical::univariate::average_deviation(xs, center)
}

#[invite::metamorphic(
    pearson_skewness(mode, mean, stdev) == -result,
    pearson_skewness(mean * 2.0, mode * 2.0, stdev * 2.0) == result,
    pearson_skewness(mean + 3.0, mode + 3.0, stdev) == result,
    pearson_skewness(mean, mode, stdev * 2.0) * 2.0 == result,
    pearson_skewness(mean, mean, stdev) == 0.0,
    pearson_skewness(mode + stdev, mode, stdev) == 1.0,
)]
pub fn pearson_skewness(mean: f64, mode: f64, stdev: f64) -> f64 {
    statistical::univariate::pearson_skewness(mean, mode, stdev)
}

#[invite::metamorphic(
    if spread(xs) => skewness(&permute(xs), center, scale) == result,
    if spread(xs) => skewness(&add(xs, 2.5), center.map(|m| m + 2.5), scale) == result,
    if spread(xs) => skewness(&multiply(xs, 3.0), center.map(|m| m * 3.0), scale.map(|s| s * 3.0))
        == result,
    if spread(xs) => skewness(&negate(xs), center.map(|m| -m), scale) == -result,
    if spread(xs) && center.is_none() && scale.is_none() => skewness(
        xs,
        Some(mean(xs)),
        Some(population_standard_deviation(xs, None)),
    ) == result,
    if spread(xs) => skewness(xs, center, scale) * (n(xs) - 2.0) / (n(xs) * (n(xs) - 1.0)).sqrt()
        == pskewness(xs, center, scale),
    if spread(xs) && center.is_none() && scale.is_none() => skewness(&concatenate(xs, xs), None, None)
        * (2.0 * n(xs) - 2.0) / (2.0 * n(xs) * (2.0 * n(xs) - 1.0)).sqrt()
        == result * (n(xs) - 2.0) / (n(xs) * (n(xs) - 1.0)).sqrt(),
)]
pub fn skewness(xs: &[f64], center: Option<f64>, scale: Option<f64>) -> f64 {
    statistical::univariate::skewness(xs, center, scale)
}

#[invite::metamorphic(
    if spread(xs) => pskewness(&permute(xs), center, scale) == result,
    if spread(xs) => pskewness(&add(xs, 2.5), center.map(|m| m + 2.5), scale) == result,
    if spread(xs) => pskewness(&multiply(xs, 3.0), center.map(|m| m * 3.0), scale.map(|s| s * 3.0))
        == result,
    if spread(xs) => pskewness(&negate(xs), center.map(|m| -m), scale) == -result,
    if spread(xs) && center.is_none() && scale.is_none() => pskewness(
        xs,
        Some(mean(xs)),
        Some(population_standard_deviation(xs, None)),
    ) == result,
    if spread(xs) && center.is_none() && scale.is_none() => pskewness(&concatenate(xs, xs), None, None)
        == result,
    if spread(xs) && center.is_none() && scale.is_none() => result * result
        <= pkurtosis(xs, None, None) + 2.0,
)]
pub fn pskewness(xs: &[f64], center: Option<f64>, scale: Option<f64>) -> f64 {
    statistical::univariate::pskewness(xs, center, scale)
}

#[invite::metamorphic(
    if spread(xs) => kurtosis(&permute(xs), center, scale) == result,
    if spread(xs) => kurtosis(&add(xs, 2.5), center.map(|m| m + 2.5), scale) == result,
    if spread(xs) => kurtosis(&multiply(xs, -3.0), center.map(|m| m * -3.0), scale.map(|s| s * 3.0))
        == result,
    if spread(xs) && center.is_none() && scale.is_none() => kurtosis(
        xs,
        Some(mean(xs)),
        Some(population_standard_deviation(xs, None)),
    ) == result,
    if spread(xs) => result
        == (n(xs) - 1.0) / ((n(xs) - 2.0) * (n(xs) - 3.0))
            * ((n(xs) + 1.0) * (pkurtosis(xs, center, scale) + 3.0) - 3.0 * (n(xs) - 1.0)),
)]
pub fn kurtosis(xs: &[f64], center: Option<f64>, scale: Option<f64>) -> f64 {
    statistical::univariate::kurtosis(xs, center, scale)
}

#[invite::metamorphic(
    if spread(xs) => pkurtosis(&permute(xs), center, scale) == result,
    if spread(xs) => pkurtosis(&add(xs, 2.5), center.map(|m| m + 2.5), scale) == result,
    if spread(xs) => pkurtosis(&multiply(xs, -3.0), center.map(|m| m * -3.0), scale.map(|s| s * 3.0))
        == result,
    if spread(xs) && center.is_none() && scale.is_none() => pkurtosis(
        xs,
        Some(mean(xs)),
        Some(population_standard_deviation(xs, None)),
    ) == result,
    if spread(xs) && center.is_none() && scale.is_none() => pkurtosis(&concatenate(xs, xs), None, None)
        == result,
    if spread(xs) && center.is_none() && scale.is_none() => result >= -2.0,
    if spread(xs) && scale.is_some() => pkurtosis(xs, center, scale.map(|s| s * 2.0)) * 16.0
        == result - 45.0,
)]
pub fn pkurtosis(xs: &[f64], center: Option<f64>, scale: Option<f64>) -> f64 {
    statistical::univariate::pkurtosis(xs, center, scale)
}

#[invite::metamorphic(
    standard_error_mean(stdev * 2.0, size, population) == result * 2.0,
    if population.is_none() => standard_error_mean(stdev, size * 4.0, None) * 2.0 == result,
    if population.is_none() => standard_error_mean(stdev, size, Some(size)) == 0.0,
    if population.is_none() && size > 1.0 => standard_error_mean(stdev, size, Some(2.0 * size - 1.0))
        .powi(2) * 2.0 == result * result,
    if population.is_some() => result <= standard_error_mean(stdev, size, None),
    result >= 0.0,
)]
pub fn standard_error_mean(stdev: f64, size: f64, population: Option<f64>) -> f64 {
    statistical::univariate::standard_error_mean(stdev, size, population)
}

#[invite::metamorphic(
    standard_error_skewness(size * 4) * 2.0 == result,
    standard_error_skewness(size) * 2.0 == standard_error_kurtosis(size),
    result > 0.0,
)]
pub fn standard_error_skewness(size: u64) -> f64 {
    statistical::univariate::standard_error_skewness(size)
}

#[invite::metamorphic(
    standard_error_kurtosis(size * 4) * 2.0 == result,
    standard_error_kurtosis(size * 9) * 3.0 == result,
    result > 0.0,
)]
pub fn standard_error_kurtosis(size: u64) -> f64 {
    statistical::univariate::standard_error_kurtosis(size)
}

#[test]
fn relations_hold_on_live_calls() {
    let study = Study::start(1, 20);
    let rounds = study.rounds;
    let mut gen = Inputs(study.seed);
    let mut samples: Vec<Vec<f64>> = vec![
        vec![2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0],
        vec![1.0, 2.0, 3.0],
        vec![-3.5, 0.25, 8.0, 1.0, 1.0],
        vec![10.0, 1.0, 100.0, 3.0, 7.0, 2.0],
    ];
    for _ in 0..rounds {
        for len in [3, 4, 7, 10] {
            samples.push(gen.vector(len, -50.0, 50.0));
            samples.push(gen.vector(len, 0.5, 40.0));
        }
    }
    let positive: Vec<&Vec<f64>> = samples
        .iter()
        .filter(|xs| xs.iter().all(|&x| x > 0.0))
        .collect();
    for xs in &samples {
        let m = statistical::mean(xs);
        let psd = statistical::population_standard_deviation(xs, None);
        call(|| {
            mean(xs);
        });
        call(|| {
            median(xs);
        });
        call(|| {
            quadratic_mean(xs);
        });
        for center in [None, Some(m), Some(m + 1.5)] {
            call(|| {
                variance(xs, center);
            });
            call(|| {
                population_variance(xs, center);
            });
            call(|| {
                standard_deviation(xs, center);
            });
            call(|| {
                population_standard_deviation(xs, center);
            });
            call(|| {
                average_deviation(xs, center);
            });
        }
        call(|| {
            standard_scores(xs);
        });
        for (center, scale) in [(None, None), (Some(m), Some(psd)), (Some(m - 1.0), Some(2.0))] {
            call(|| {
                skewness(xs, center, scale);
            });
            call(|| {
                pskewness(xs, center, scale);
            });
            if xs.len() > 3 {
                call(|| {
                    kurtosis(xs, center, scale);
                });
            }
            call(|| {
                pkurtosis(xs, center, scale);
            });
        }
        call(|| {
            pearson_skewness(m, statistical::median(xs), psd.max(0.5));
        });
    }
    for xs in &positive {
        call(|| {
            harmonic_mean(xs);
        });
        call(|| {
            geometric_mean(xs);
        });
    }
    for xs in [
        vec![3, 1, 3, 2, 3, 5],
        vec![7],
        vec![-2, -2, 4, 4, 4, 0],
        vec![1, 2, 2, 9, 9, 9, 9, 3],
        vec![4, 1, 9, -6],
    ] {
        call(|| {
            mode(&xs);
        });
    }
    for (stdev, size, population) in [
        (2.0, 10.0, None),
        (0.5, 30.0, Some(100.0)),
        (3.0, 4.0, None),
    ] {
        call(|| {
            standard_error_mean(stdev, size, population);
        });
    }
    let sizes = if rounds > 1 { (1..=8 * rounds as u64).collect() } else { vec![1, 6, 24, 50] };
    for size in sizes {
        call(|| {
            standard_error_skewness(size);
        });
        call(|| {
            standard_error_kurtosis(size);
        });
    }

    study.finish();
}
