//! The functions discovery calls: tuples of arguments taken apart into values, and a function
//! of them called on values, its panics on follow-up inputs outside its domain kept quiet.

use super::value::{Discoverable, Kind, Value};

/// A tuple of arguments discovery can take apart.
pub trait Args: Sized {
    /// The kinds of its elements.
    fn kinds() -> Vec<Kind>;
    /// Its elements as values.
    fn to_values(&self) -> Option<Vec<Value>>;
}

/// What [`Discovery`](super::Discovery) takes as one input of a function whose arguments are
/// `A`: a tuple of them, or, for a function of one argument, the argument alone (`xs` as well
/// as `(xs,)`).
pub trait IntoArgs<A: Args> {
    /// The tuple of arguments.
    fn into_args(self) -> A;
}

impl<A: Args> IntoArgs<A> for A {
    fn into_args(self) -> A {
        self
    }
}

impl<X: Discoverable> IntoArgs<(X,)> for X {
    fn into_args(self) -> (X,) {
        (self,)
    }
}

/// A function of [`Args`] whose result discovery can compare.
pub trait Function<A: Args> {
    /// The kind of its result.
    fn output_kind() -> Kind;
    /// Calls it on values (`None`: they do not convert, or it panicked).
    fn call_values(&self, v: &[Value]) -> Option<Value>;
}

macro_rules! tuples {
    ($(($($t:ident $i:tt),+)),*) => {$(
        impl<$($t: Discoverable),+> Args for ($($t,)+) {
            fn kinds() -> Vec<Kind> {
                vec![$($t::KIND),+]
            }
            fn to_values(&self) -> Option<Vec<Value>> {
                Some(vec![$(self.$i.to_value()?),+])
            }
        }
        impl<F, R: Discoverable, $($t: Discoverable),+> Function<($($t,)+)> for F
        where
            F: Fn($($t),+) -> R,
        {
            fn output_kind() -> Kind {
                R::KIND
            }
            fn call_values(&self, v: &[Value]) -> Option<Value> {
                let args = ($($t::from_value(v.get($i)?)?,)+);
                quietly(|| self($(args.$i),+))?.to_value()
            }
        }
    )*};
}
// Up to eight: four points of the plane (a cubic curve's control points) as numbers.
tuples!(
    (A 0),
    (A 0, B 1),
    (A 0, B 1, C 2),
    (A 0, B 1, C 2, D 3),
    (A 0, B 1, C 2, D 3, E 4),
    (A 0, B 1, C 2, D 3, E 4, G 5),
    (A 0, B 1, C 2, D 3, E 4, G 5, H 6),
    (A 0, B 1, C 2, D 3, E 4, G 5, H 6, I 7)
);

/// Runs `f`, turning a panic into `None` without printing it: a follow-up input outside the
/// function's domain is an answer ("the relation does not apply here"), not an error.
#[doc(hidden)]
pub fn quietly<R>(f: impl FnOnce() -> R) -> Option<R> {
    crate::role::quietly(f)
}
