//! Wrong versions of a function's output: a relation that still holds when the results are
//! nudged, scaled, made constant or cut short would not catch such a defect, and is worth
//! little (`mean(&permute(xs)) == result` alone is satisfied by `0.0`).

use super::value::{Kind, Value};

/// Relative size of a nudge: far above any tolerance taken from noise, far below a value.
const NUDGE: f64 = 1e-3;

/// One wrong version of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Perturbation {
    /// Always the first result observed.
    Constant,
    /// Scaled by `1 + ε` (integers: doubled; booleans: always true).
    Scaled,
    /// Shifted by ε (integers: by one; booleans: always false).
    Shifted,
    /// Shifted by ε times a number from the input.
    InputShifted,
    /// Shifted by ε times the square of that number.
    InputSquared,
    /// Shifted by ε times the input's length (functions of sequences).
    SizeShifted,
    /// Negated.
    Negated,
    /// A sequence's last element changed.
    OneChanged,
    /// A sequence one element longer.
    Longer,
    /// A sequence one element shorter.
    Shorter,
    /// A sequence reversed.
    Reversed,
    /// Zero, `false`, an empty sequence: a body replaced by the constant a mutation tool
    /// tries first. With [`One`](Perturbation::One) and
    /// [`MinusOne`](Perturbation::MinusOne) only for the representative set (see
    /// [`Perturbation::FIXED`]): a relation with such a fixed point (`1` for a double-angle
    /// formula) must not stand for one without it.
    Zero,
    /// One, `true`, `[0]`.
    One,
    /// Minus one, `true`, `[1]`.
    MinusOne,
}

impl Perturbation {
    /// The perturbations that make sense for results of a kind, from inputs with sequences
    /// (`sized`) or without.
    pub fn for_kind(kind: Kind, sized: bool) -> Vec<Perturbation> {
        use Perturbation::*;
        let mut out = match kind {
            Kind::Float | Kind::Int => vec![
                Constant,
                Scaled,
                Shifted,
                InputShifted,
                InputSquared,
                Negated,
            ],
            Kind::Bool => vec![Constant, Scaled, Shifted, InputShifted, Negated],
            // Doubled, a character added, another case, reversed, one character short.
            Kind::Str => vec![
                Constant,
                Scaled,
                Shifted,
                InputShifted,
                Negated,
                Reversed,
                Shorter,
            ],
            // Another length, another order.
            Kind::List => vec![Constant, Longer, Shorter, Reversed],
            // Another character, another case.
            Kind::Char => vec![Constant, Shifted, Negated],
            // Every part moved, or the parts in another order.
            Kind::Record => vec![Constant, Scaled, Shifted, InputShifted, Reversed],
            // The value inside moved, or `None` (`Err`) where it was not and back.
            Kind::Option | Kind::Result => vec![Constant, Scaled, Shifted, InputShifted, Negated],
            Kind::FloatSeq | Kind::IntSeq => {
                vec![
                    Constant,
                    Scaled,
                    Shifted,
                    InputShifted,
                    OneChanged,
                    Longer,
                    Shorter,
                    Reversed,
                ]
            }
        };
        if sized && kind != Kind::Bool {
            out.push(SizeShifted);
        }
        out
    }

    /// Every wrong output tried on results of a kind: those of [`for_kind`](Self::for_kind),
    /// then the [`FIXED`](Self::FIXED) constants.
    pub fn listed(kind: Kind, sized: bool) -> Vec<Perturbation> {
        let mut list = Perturbation::for_kind(kind, sized);
        list.extend(Perturbation::FIXED);
        list
    }

    /// The constants every list ends with, which a relation's evidence records but its count
    /// of wrong outputs caught leaves out.
    pub const FIXED: [Perturbation; 3] = [
        Perturbation::Zero,
        Perturbation::One,
        Perturbation::MinusOne,
    ];

    /// The perturbed result. `first` is the first result observed, `scale` a typical magnitude
    /// of the results, `probe` the number taken from the input.
    pub fn apply(self, y: &Value, first: &Value, scale: f64, probe: f64, size: usize) -> Value {
        use Perturbation::*;
        let eps = NUDGE * scale;
        let (shape, probe) = if self == SizeShifted {
            (InputShifted, size as f64)
        } else {
            (self, probe)
        };
        let fixed = |n: i8| match y {
            Value::Float(_) => Value::Float(f64::from(n)),
            Value::Int(_) => Value::Int(i128::from(n)),
            Value::Bool(_) => Value::Bool(n != 0),
            Value::FloatSeq(_) if n == 0 => Value::FloatSeq(Vec::new()),
            Value::FloatSeq(_) => Value::FloatSeq(vec![f64::from(u8::from(n < 0))]),
            Value::IntSeq(_) if n == 0 => Value::IntSeq(Vec::new()),
            Value::IntSeq(_) => Value::IntSeq(vec![i128::from(n < 0)]),
            Value::Str(_) if n == 0 => Value::Str(String::new()),
            Value::Str(_) => Value::Str(if n < 0 { "b" } else { "a" }.to_string()),
            Value::Char(_) => Value::Char(match n {
                0 => '\0',
                1 => 'a',
                _ => 'b',
            }),
            // An empty list, or the result's first element alone: no element can be made up.
            Value::List(_) if n == 0 => Value::List(Vec::new()),
            Value::List(items) => Value::List(items.iter().take(1).cloned().collect()),
            Value::Record(_) => y.clone(),
            Value::Option(_) if n == 0 => Value::Option(None),
            Value::Result(_) if n == 0 => Value::Result(Err("0".into())),
            Value::Option(_) | Value::Result(_) => y.clone(),
        };
        match (shape, y) {
            (Constant, _) => first.clone(),
            (Zero, _) => fixed(0),
            (One, _) => fixed(1),
            (MinusOne, _) => fixed(-1),
            (Scaled, Value::Float(x)) => Value::Float(x * (1.0 + NUDGE)),
            (Shifted, Value::Float(x)) => Value::Float(x + eps),
            (InputShifted, Value::Float(x)) => Value::Float(x + eps * probe),
            (InputSquared, Value::Float(x)) => Value::Float(x + eps * probe * probe),
            (Negated, Value::Float(x)) => Value::Float(-x),
            (Scaled, Value::Int(i)) => Value::Int(i.wrapping_mul(2)),
            (Shifted, Value::Int(i)) => Value::Int(i.wrapping_add(1)),
            (InputShifted, Value::Int(i)) => Value::Int(i.wrapping_add(probe as i128)),
            (InputSquared, Value::Int(i)) => Value::Int(i.wrapping_add((probe * probe) as i128)),
            (Negated, Value::Int(i)) => Value::Int(i.wrapping_neg()),
            (Scaled, Value::Bool(_)) => Value::Bool(true),
            (Shifted, Value::Bool(_)) => Value::Bool(false),
            (InputShifted, Value::Bool(b)) => Value::Bool(*b != (probe > 0.0)),
            (Negated, Value::Bool(b)) => Value::Bool(!b),
            (_, Value::FloatSeq(xs)) => {
                Value::FloatSeq(seq(shape, xs.clone(), eps, probe, |x, d| x + d))
            }
            (_, Value::IntSeq(xs)) => {
                let v: Vec<f64> = xs.iter().map(|&i| i as f64).collect();
                let out = seq(shape, v, 1.0, probe.round(), |x, d| x + d.max(1.0));
                Value::IntSeq(out.into_iter().map(|x| x as i128).collect())
            }
            (Scaled, Value::Str(s)) => Value::Str(s.repeat(2)),
            (Shifted, Value::Str(s)) => Value::Str(format!("{s}x")),
            // What the input says, added: a result that ignores part of its input.
            (InputShifted, Value::Str(s)) => Value::Str(format!("{s}{}", probe.round())),
            (Negated, Value::Str(s)) => Value::Str(if s.chars().any(char::is_lowercase) {
                s.to_uppercase()
            } else {
                s.to_lowercase()
            }),
            (Reversed, Value::Str(s)) => Value::Str(s.chars().rev().collect()),
            (Shifted, Value::Char(c)) => Value::Char(char::from_u32(*c as u32 + 1).unwrap_or('a')),
            (Negated, Value::Char(c)) => Value::Char(if c.is_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }),
            (Longer, Value::List(items)) => {
                let mut items = items.clone();
                items.extend(items.last().cloned());
                Value::List(items)
            }
            (Shorter, Value::List(items)) => {
                Value::List(items[..items.len().saturating_sub(1)].to_vec())
            }
            (Negated, Value::Option(Some(_))) => Value::Option(None),
            (Negated, Value::Result(Ok(_))) => Value::Result(Err("wrong".into())),
            // A value where there was none: the first result's, when it has one.
            (Negated, Value::Option(None) | Value::Result(Err(_))) => match first.inner() {
                Some(Some(_)) => first.clone(),
                _ => y.clone(),
            },
            // No value on some inputs, chosen by the input: a wrong version that gives up where
            // it should not, which only a relation of where `None` falls catches.
            (InputShifted, Value::Option(Some(_))) if gives_up(probe) => Value::Option(None),
            (InputShifted, Value::Result(Ok(_))) if gives_up(probe) => {
                Value::Result(Err("wrong".into()))
            }
            (_, Value::Option(Some(v))) => {
                let first = first.inner().flatten().unwrap_or(v);
                Value::Option(Some(Box::new(self.apply(v, first, scale, probe, size))))
            }
            (_, Value::Result(Ok(v))) => {
                let first = first.inner().flatten().unwrap_or(v);
                Value::Result(Ok(Box::new(self.apply(v, first, scale, probe, size))))
            }
            (Scaled | Shifted | InputShifted, Value::Record(items)) => Value::Record(
                items
                    .iter()
                    .map(|v| self.apply(v, v, scale, probe, size))
                    .collect(),
            ),
            (Reversed, Value::List(items) | Value::Record(items)) => {
                let reversed = items.iter().rev().cloned().collect();
                if matches!(y, Value::List(_)) {
                    Value::List(reversed)
                } else {
                    Value::Record(reversed)
                }
            }
            (Shorter, Value::Str(s)) => {
                let mut s = s.clone();
                s.pop();
                Value::Str(s)
            }
            (_, other) => other.clone(),
        }
    }
}

/// Whether a wrong version gives no value on the input whose probe is `probe`: on about half
/// of the inputs, by a hash of all the probe's bits (an input and its double differ).
fn gives_up(probe: f64) -> bool {
    probe.to_bits().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 63 == 1
}

fn seq(
    p: Perturbation,
    mut xs: Vec<f64>,
    eps: f64,
    probe: f64,
    add: impl Fn(f64, f64) -> f64,
) -> Vec<f64> {
    use Perturbation::*;
    match p {
        Scaled => xs.iter_mut().for_each(|x| *x = add(*x, *x * NUDGE)),
        Shifted => xs.iter_mut().for_each(|x| *x = add(*x, eps)),
        InputShifted => xs.iter_mut().for_each(|x| *x += eps * probe),
        OneChanged => {
            if let Some(last) = xs.last_mut() {
                *last = add(*last, eps);
            }
        }
        Longer => xs.push(xs.last().copied().unwrap_or(0.0)),
        Shorter => {
            xs.pop();
        }
        Reversed => xs.reverse(),
        // Whole results, made in `apply`.
        Constant | InputSquared | SizeShifted | Negated | Zero | One | MinusOne => {}
    }
    xs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_perturbation_changes_what_it_names() {
        let y = Value::Float(2.0);
        let first = Value::Float(7.0);
        let at = |p: Perturbation| p.apply(&y, &first, 10.0, 3.0, 4).number().unwrap();
        assert_eq!(at(Perturbation::Constant), 7.0);
        assert_eq!(at(Perturbation::Zero), 0.0);
        assert_eq!(at(Perturbation::One), 1.0);
        assert_eq!(at(Perturbation::MinusOne), -1.0);
        let fixed = |y: Value| Perturbation::FIXED.map(|p| p.apply(&y, &first, 1.0, 0.0, 0));
        assert_eq!(
            fixed(Value::Int(5)),
            [Value::Int(0), Value::Int(1), Value::Int(-1)]
        );
        assert_eq!(
            fixed(Value::Bool(false)),
            [Value::Bool(false), Value::Bool(true), Value::Bool(true)]
        );
        assert_eq!(
            fixed(Value::FloatSeq(vec![2.0, 3.0])),
            [
                Value::FloatSeq(vec![]),
                Value::FloatSeq(vec![0.0]),
                Value::FloatSeq(vec![1.0])
            ]
        );
        assert_eq!(
            fixed(Value::IntSeq(vec![4])),
            [
                Value::IntSeq(vec![]),
                Value::IntSeq(vec![0]),
                Value::IntSeq(vec![1])
            ]
        );
        assert_eq!(at(Perturbation::Scaled), 2.0 * 1.001);
        assert_eq!(at(Perturbation::Shifted), 2.01);
        assert!((at(Perturbation::InputShifted) - 2.03).abs() < 1e-12);
        assert!((at(Perturbation::InputSquared) - 2.09).abs() < 1e-12);
        assert_eq!(at(Perturbation::Negated), -2.0);
        let xs = Value::FloatSeq(vec![1.0, 2.0]);
        let s = |p: Perturbation| p.apply(&xs, &xs, 1.0, 0.0, 0).elements().unwrap();
        assert_eq!(s(Perturbation::Longer), [1.0, 2.0, 2.0]);
        assert_eq!(s(Perturbation::Shorter), [1.0]);
        assert_eq!(s(Perturbation::Reversed), [2.0, 1.0]);
        assert_eq!(s(Perturbation::OneChanged), [1.0, 2.001]);
        let ints = Value::IntSeq(vec![4, 5]);
        assert_eq!(
            Perturbation::Scaled.apply(&ints, &ints, 1.0, 0.0, 0),
            Value::IntSeq(vec![5, 6])
        );
        assert_eq!(
            Perturbation::OneChanged.apply(&ints, &ints, 1.0, 0.0, 0),
            Value::IntSeq(vec![4, 6])
        );
        assert_eq!(
            Perturbation::Shifted.apply(&Value::Int(4), &first, 1.0, 0.0, 0),
            Value::Int(5)
        );
        assert_eq!(
            Perturbation::InputShifted.apply(&Value::Bool(true), &first, 1.0, 1.0, 0),
            Value::Bool(false)
        );
        assert!((at(Perturbation::SizeShifted) - 2.04).abs() < 1e-12);
        assert_eq!(Perturbation::for_kind(Kind::Bool, true).len(), 5);
        assert_eq!(Perturbation::for_kind(Kind::Float, false).len(), 6);
        assert_eq!(Perturbation::for_kind(Kind::Float, true).len(), 7);
    }
}
