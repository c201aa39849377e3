//! `describe STAT... FILE`: the statistics named, of the numbers in FILE (one or more per line),
//! one per line, computed by the `statistical` crate. The program the system-level half of the
//! mutation study runs under `invite system`, as a user would run a third-party tool.

use statistical::univariate as uni;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((file, stats)) = args.split_last() else {
        eprintln!("usage: describe STAT... FILE");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
        eprintln!("describe: {file}: {e}");
        std::process::exit(2);
    });
    let xs: Vec<f64> = text
        .split_whitespace()
        .map(|w| {
            w.parse().unwrap_or_else(|_| {
                eprintln!("describe: {file}: `{w}` is not a number");
                std::process::exit(2);
            })
        })
        .collect();
    let n = xs.len() as f64;
    for stat in stats {
        let value = match stat.as_str() {
            "mean" => statistical::mean(&xs),
            "median" => statistical::median(&xs),
            "variance" => statistical::variance(&xs, None),
            "pvariance" => statistical::population_variance(&xs, None),
            "sd" => statistical::standard_deviation(&xs, None),
            "psd" => statistical::population_standard_deviation(&xs, None),
            "harmonic" => uni::harmonic_mean(&xs),
            "geometric" => uni::geometric_mean(&xs),
            "quadratic" => uni::quadratic_mean(&xs),
            "avgdev" => uni::average_deviation(&xs, None),
            "skewness" => uni::skewness(&xs, None, None),
            "pskewness" => uni::pskewness(&xs, None, None),
            "kurtosis" => uni::kurtosis(&xs, None, None),
            "pkurtosis" => uni::pkurtosis(&xs, None, None),
            "pearson" => uni::pearson_skewness(
                statistical::mean(&xs),
                statistical::median(&xs),
                statistical::population_standard_deviation(&xs, None),
            ),
            "sem" => uni::standard_error_mean(statistical::standard_deviation(&xs, None), n, None),
            "sem_fpc" => uni::standard_error_mean(
                statistical::standard_deviation(&xs, None),
                n,
                Some(4.0 * n),
            ),
            "se_skewness" => uni::standard_error_skewness(xs.len() as u64),
            "se_kurtosis" => uni::standard_error_kurtosis(xs.len() as u64),
            "mode" => {
                let ints: Vec<i64> = xs.iter().map(|x| x.round() as i64).collect();
                match statistical::mode(&ints) {
                    Some(m) => m as f64,
                    None => {
                        println!("none");
                        continue;
                    }
                }
            }
            "scores" => {
                for z in statistical::standard_scores(&xs) {
                    println!("{z}");
                }
                continue;
            }
            other => {
                eprintln!("describe: unknown statistic `{other}`");
                std::process::exit(2);
            }
        };
        println!("{value}");
    }
}
