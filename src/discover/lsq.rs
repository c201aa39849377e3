//! Weighted linear least squares for the few coefficients of a relation, by Householder QR:
//! numerically sound, closed form, and small enough (at most four columns) that a linear
//! algebra crate would only add build time.

/// The `x` minimising `Σ (w_i (A_i·x - t_i))²`; `None` when the columns are dependent (a
/// constant result makes `y` and `1` the same column) or the data are not finite.
pub fn solve(rows: &[Vec<f64>], targets: &[f64], weights: &[f64]) -> Option<Vec<f64>> {
    let cols = rows.first()?.len();
    let n = rows.len();
    if n < cols || cols == 0 {
        return None;
    }
    // Column-major working copy of the weighted system, with the target as the last column.
    let mut a: Vec<Vec<f64>> = (0..=cols)
        .map(|j| {
            (0..n)
                .map(|i| weights[i] * if j < cols { rows[i][j] } else { targets[i] })
                .collect()
        })
        .collect();
    if a.iter().flatten().any(|v| !v.is_finite()) {
        return None;
    }
    let scale = a[..cols]
        .iter()
        .map(|c| c.iter().map(|v| v * v).sum::<f64>().sqrt())
        .fold(0.0, f64::max);
    if scale == 0.0 {
        return None;
    }
    for k in 0..cols {
        let norm = a[k][k..].iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm <= 1e-12 * scale {
            return None;
        }
        let alpha = if a[k][k] > 0.0 { -norm } else { norm };
        let mut v: Vec<f64> = a[k][k..].to_vec();
        v[0] -= alpha;
        let vv: f64 = v.iter().map(|x| x * x).sum();
        if vv == 0.0 {
            continue;
        }
        for col in a.iter_mut().skip(k) {
            let dot: f64 = v.iter().zip(&col[k..]).map(|(p, q)| p * q).sum();
            let f = 2.0 * dot / vv;
            for (c, p) in col[k..].iter_mut().zip(&v) {
                *c -= f * p;
            }
        }
    }
    // Back substitution on the upper triangle.
    let mut x = vec![0.0; cols];
    for k in (0..cols).rev() {
        let mut s = a[cols][k];
        for j in k + 1..cols {
            s -= a[j][k] * x[j];
        }
        x[k] = s / a[k][k];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_line_and_parabola_are_recovered() {
        let ys = [0.3, -1.7, 2.5, 4.0, -0.2];
        let rows: Vec<Vec<f64>> = ys.iter().map(|&y| vec![y, 1.0]).collect();
        let t: Vec<f64> = ys.iter().map(|y| -2.0 * y + 0.5).collect();
        let x = solve(&rows, &t, &[1.0; 5]).unwrap();
        assert!(
            (x[0] + 2.0).abs() < 1e-14 && (x[1] - 0.5).abs() < 1e-14,
            "{x:?}"
        );
        let rows: Vec<Vec<f64>> = ys.iter().map(|&y| vec![y * y, y, 1.0]).collect();
        let t: Vec<f64> = ys.iter().map(|y| 2.0 * y * y - 1.0).collect();
        let w: Vec<f64> = ys.iter().map(|y| 1.0 / (1.0 + y * y)).collect();
        let x = solve(&rows, &t, &w).unwrap();
        assert!((x[0] - 2.0).abs() < 1e-13 && x[1].abs() < 1e-13 && (x[2] + 1.0).abs() < 1e-13);
    }

    #[test]
    fn a_least_squares_compromise_is_the_mean() {
        let rows = vec![vec![1.0]; 4];
        let x = solve(&rows, &[1.0, 2.0, 3.0, 6.0], &[1.0; 4]).unwrap();
        assert!((x[0] - 3.0).abs() < 1e-14);
        // Weights matter: the heavy point pulls the answer to itself.
        let x = solve(&rows, &[1.0, 2.0, 3.0, 6.0], &[1.0, 1.0, 1.0, 1e6]).unwrap();
        assert!((x[0] - 6.0).abs() < 1e-6, "{x:?}");
    }

    #[test]
    fn dependent_columns_too_few_rows_and_bad_data_give_none() {
        let rows = vec![vec![2.0, 1.0]; 5];
        assert!(solve(&rows, &[1.0; 5], &[1.0; 5]).is_none());
        assert!(solve(&[vec![1.0, 2.0]], &[1.0], &[1.0]).is_none());
        assert!(solve(&[vec![f64::NAN], vec![1.0]], &[1.0, 1.0], &[1.0, 1.0]).is_none());
        assert!(solve(&[vec![0.0], vec![0.0]], &[1.0, 1.0], &[1.0, 1.0]).is_none());
        assert!(solve(&[], &[], &[]).is_none());
    }
}
