//! Values that cross from a caller to the worker of a `pure` site (see `sandbox::worker`).
//!
//! A pure site does not fork on a sampled call: the caller writes its arguments and its result
//! into a shared ring, and a worker process reads them back into values of its own. This is
//! the format of that copy: little-endian, lengths as `u64`, no tags, no versioning (both sides
//! are the same binary), so that a number costs its bytes and a slice of numbers one copy.
//!
//! [`Travel`] is implemented for numbers, `bool`, `char`, `String`, `Vec`, arrays, tuples,
//! `Option`, `Result` and `Box`; a parameter `&[T]` travels as a `Vec<T>` and `&str` as a
//! `String`. With the `serde` feature any other `Serialize + DeserializeOwned` type travels too.
//! A reader never trusts the bytes: a length beyond what is left, an invalid `char` or UTF-8,
//! is `None`, never a panic or an allocation the bytes do not pay for.

/// A value a caller can copy to the worker of a `pure` site, and the worker read back.
///
/// Implement it for a type of your own by writing its fields in order and reading them back in
/// the same order:
///
/// ```
/// use invite::Travel;
///
/// struct Point { x: f64, y: f64 }
///
/// impl Travel for Point {
///     fn put(&self, out: &mut Vec<u8>) {
///         self.x.put(out);
///         self.y.put(out);
///     }
///     fn take(input: &mut &[u8]) -> Option<Point> {
///         Some(Point { x: f64::take(input)?, y: f64::take(input)? })
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot travel to the worker of a `pure` site",
    label = "this parameter's or result's type does not implement `invite::Travel`",
    note = "implement `invite::Travel` for it, enable invite's `serde` feature for a type that \
            is `Serialize + DeserializeOwned`, or drop `pure` so that the site forks"
)]
pub trait Travel: Sized {
    /// Appends the value.
    fn put(&self, out: &mut Vec<u8>);
    /// Reads a value written by [`put`](Travel::put) from the front of `input`, and moves
    /// `input` past it; `None` for bytes that are not such a value.
    fn take(input: &mut &[u8]) -> Option<Self>;
    /// Appends a slice of values; numbers override it with one copy.
    #[doc(hidden)]
    fn put_items(items: &[Self], out: &mut Vec<u8>) {
        for item in items {
            item.put(out);
        }
    }
    /// Reads `n` values; numbers override it with one copy.
    #[doc(hidden)]
    fn take_items(n: usize, input: &mut &[u8]) -> Option<Vec<Self>> {
        // Every value takes at least a byte, but for zero-sized ones: the bytes left bound
        // what may be reserved.
        let mut items = Vec::with_capacity(n.min(input.len()));
        for _ in 0..n {
            items.push(Self::take(input)?);
        }
        Some(items)
    }
}

/// The first `n` bytes of `input`, moving past them.
fn split<'a>(input: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if input.len() < n {
        return None;
    }
    let (head, rest) = input.split_at(n);
    *input = rest;
    Some(head)
}

fn put_len(n: usize, out: &mut Vec<u8>) {
    (n as u64).put(out);
}

fn take_len(input: &mut &[u8]) -> Option<usize> {
    usize::try_from(u64::take(input)?).ok()
}

macro_rules! numbers {
    ($($t:ty),*) => {$(
        impl Travel for $t {
            #[inline]
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            #[inline]
            fn take(input: &mut &[u8]) -> Option<$t> {
                let bytes = split(input, std::mem::size_of::<$t>())?;
                Some(<$t>::from_le_bytes(bytes.try_into().ok()?))
            }
            fn put_items(items: &[$t], out: &mut Vec<u8>) {
                put_numbers(items, out);
            }
            fn take_items(n: usize, input: &mut &[u8]) -> Option<Vec<$t>> {
                let bytes = split(input, n.checked_mul(std::mem::size_of::<$t>())?)?;
                Some(
                    bytes
                        .chunks_exact(std::mem::size_of::<$t>())
                        .map(|c| <$t>::from_le_bytes(c.try_into().expect("exact chunks")))
                        .collect(),
                )
            }
        }
    )*};
}

/// A slice of numbers in one copy, where the machine's order is the format's.
#[cfg(all(invite_linux, target_endian = "little"))]
fn put_numbers<T: invite_sandbox::bytes::Number>(items: &[T], out: &mut Vec<u8>) {
    out.extend_from_slice(invite_sandbox::bytes::of_numbers(items));
}

#[cfg(not(all(invite_linux, target_endian = "little")))]
fn put_numbers<T: Travel>(items: &[T], out: &mut Vec<u8>) {
    for item in items {
        item.put(out);
    }
}

numbers!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

impl Travel for bool {
    fn put(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn take(input: &mut &[u8]) -> Option<bool> {
        match split(input, 1)? {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
}

impl Travel for char {
    fn put(&self, out: &mut Vec<u8>) {
        u32::from(*self).put(out);
    }
    fn take(input: &mut &[u8]) -> Option<char> {
        char::from_u32(u32::take(input)?)
    }
}

impl Travel for () {
    fn put(&self, _: &mut Vec<u8>) {}
    fn take(_: &mut &[u8]) -> Option<()> {
        Some(())
    }
}

impl Travel for String {
    fn put(&self, out: &mut Vec<u8>) {
        put_str(self, out);
    }
    fn take(input: &mut &[u8]) -> Option<String> {
        let n = take_len(input)?;
        let bytes = split(input, n)?;
        String::from_utf8(bytes.to_vec()).ok()
    }
}

/// Writes a `&str` as a [`String`] travels.
pub fn put_str(s: &str, out: &mut Vec<u8>) {
    put_len(s.len(), out);
    out.extend_from_slice(s.as_bytes());
}

/// Writes a slice as a [`Vec`] travels.
pub fn put_slice<T: Travel>(items: &[T], out: &mut Vec<u8>) {
    put_len(items.len(), out);
    T::put_items(items, out);
}

impl<T: Travel> Travel for Vec<T> {
    fn put(&self, out: &mut Vec<u8>) {
        put_slice(self, out);
    }
    fn take(input: &mut &[u8]) -> Option<Vec<T>> {
        let n = take_len(input)?;
        T::take_items(n, input)
    }
}

impl<T: Travel> Travel for Box<T> {
    fn put(&self, out: &mut Vec<u8>) {
        (**self).put(out);
    }
    fn take(input: &mut &[u8]) -> Option<Box<T>> {
        T::take(input).map(Box::new)
    }
}

impl<T: Travel, const N: usize> Travel for [T; N] {
    fn put(&self, out: &mut Vec<u8>) {
        T::put_items(self, out);
    }
    fn take(input: &mut &[u8]) -> Option<[T; N]> {
        T::take_items(N, input)?.try_into().ok()
    }
}

impl<T: Travel> Travel for Option<T> {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.put(out);
            }
        }
    }
    fn take(input: &mut &[u8]) -> Option<Option<T>> {
        match split(input, 1)? {
            [0] => Some(None),
            [1] => Some(Some(T::take(input)?)),
            _ => None,
        }
    }
}

impl<T: Travel, E: Travel> Travel for Result<T, E> {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            Ok(v) => {
                out.push(0);
                v.put(out);
            }
            Err(e) => {
                out.push(1);
                e.put(out);
            }
        }
    }
    fn take(input: &mut &[u8]) -> Option<Result<T, E>> {
        match split(input, 1)? {
            [0] => Some(Ok(T::take(input)?)),
            [1] => Some(Err(E::take(input)?)),
            _ => None,
        }
    }
}

macro_rules! tuples {
    ($(($($n:tt $t:ident),+)),*) => {$(
        impl<$($t: Travel),+> Travel for ($($t,)+) {
            fn put(&self, out: &mut Vec<u8>) {
                $(self.$n.put(out);)+
            }
            fn take(input: &mut &[u8]) -> Option<Self> {
                Some(($($t::take(input)?,)+))
            }
        }
    )*};
}

tuples!(
    (0 A),
    (0 A, 1 B),
    (0 A, 1 B, 2 C),
    (0 A, 1 B, 2 C, 3 D),
    (0 A, 1 B, 2 C, 3 D, 4 E),
    (0 A, 1 B, 2 C, 3 D, 4 E, 5 F)
);

/// How generated code copies a value of type `T` whatever it implements: [`Travel`] if it can,
/// else (with the `serde` feature) `serde`, else, where the site was not declared `pure` and
/// only `invite.toml` may send it to the worker, nothing ([`CannotTravel`]). Chosen at compile
/// time by method resolution: `(&&Carry::<T>::new()).invite_put(..)` finds [`ViaTravel`]
/// (on `&&Carry`) first, then `ViaSerde` (on `&Carry`, with the `serde` feature), then [`CannotTravel`] (on `Carry`
/// by value, hence `Copy`).
pub struct Carry<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Carry<T> {
    /// The dispatcher for `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Carry<T> {
        Carry(std::marker::PhantomData)
    }
}

impl<T> Clone for Carry<T> {
    fn clone(&self) -> Carry<T> {
        *self
    }
}

impl<T> Copy for Carry<T> {}

/// [`Carry`]'s first choice: the type's own [`Travel`].
pub trait ViaTravel<T> {
    /// Appends `value`.
    fn invite_put(&self, value: &T, out: &mut Vec<u8>);
    /// Appends the length of `items`, then each; read back as a `Vec<T>`.
    fn invite_put_items(&self, items: &[T], out: &mut Vec<u8>);
    /// Reads a value back.
    fn invite_take(&self, input: &mut &[u8]) -> Option<T>;
    /// `None`: `T` travels.
    fn invite_untravelled(&self) -> Option<&'static str> {
        None
    }
}

impl<T: Travel> ViaTravel<T> for &Carry<T> {
    #[inline]
    fn invite_put(&self, value: &T, out: &mut Vec<u8>) {
        value.put(out);
    }
    #[inline]
    fn invite_put_items(&self, items: &[T], out: &mut Vec<u8>) {
        put_len(items.len(), out);
        T::put_items(items, out);
    }
    #[inline]
    fn invite_take(&self, input: &mut &[u8]) -> Option<T> {
        T::take(input)
    }
}

/// [`Carry`]'s second choice, with the `serde` feature: postcard.
#[cfg(feature = "serde")]
pub trait ViaSerde<T> {
    /// Appends `value`.
    fn invite_put(&self, value: &T, out: &mut Vec<u8>);
    /// Appends `items` as a `Vec<T>` would be.
    fn invite_put_items(&self, items: &[T], out: &mut Vec<u8>);
    /// Reads a value back.
    fn invite_take(&self, input: &mut &[u8]) -> Option<T>;
    /// `None`: `T` travels.
    fn invite_untravelled(&self) -> Option<&'static str> {
        None
    }
}

#[cfg(feature = "serde")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> ViaSerde<T> for Carry<T> {
    fn invite_put(&self, value: &T, out: &mut Vec<u8>) {
        put_serialized(value, out);
    }
    fn invite_put_items(&self, items: &[T], out: &mut Vec<u8>) {
        // postcard writes a slice as it writes a `Vec`: the worker reads it back as one.
        put_serialized(items, out);
    }
    fn invite_take(&self, input: &mut &[u8]) -> Option<T> {
        let n = take_len(input)?;
        postcard::from_bytes(split(input, n)?).ok()
    }
}

#[cfg(feature = "serde")]
fn put_serialized<V: serde::Serialize + ?Sized>(value: &V, out: &mut Vec<u8>) {
    // A value serde cannot write (a map with non-string keys, say, in some formats; never in
    // postcard's) travels as nothing, which the worker reads as a failed copy.
    let mut body = postcard::to_allocvec(value).unwrap_or_default();
    put_len(body.len(), out);
    out.append(&mut body);
}

/// [`Carry`]'s last resort, in scope only where `invite.toml` alone may send a site to the
/// worker: `T` cannot travel, which the caller learns from
/// [`invite_untravelled`](CannotTravel::invite_untravelled) before it writes anything, and then
/// forks. The copies are never made.
pub trait CannotTravel<T> {
    /// Writes nothing.
    fn invite_put(self, value: &T, out: &mut Vec<u8>);
    /// Writes nothing.
    fn invite_put_items(self, items: &[T], out: &mut Vec<u8>);
    /// Reads nothing.
    fn invite_take(self, input: &mut &[u8]) -> Option<T>;
    /// The type's name: it does not travel.
    fn invite_untravelled(self) -> Option<&'static str>;
}

impl<T> CannotTravel<T> for Carry<T> {
    fn invite_put(self, _: &T, _: &mut Vec<u8>) {}
    fn invite_put_items(self, _: &[T], _: &mut Vec<u8>) {}
    fn invite_take(self, _: &mut &[u8]) -> Option<T> {
        None
    }
    fn invite_untravelled(self) -> Option<&'static str> {
        Some(std::any::type_name::<T>())
    }
}

/// What of a site cannot travel to the worker, as its attribute's expansion found it.
#[derive(Clone, Copy, Debug)]
pub struct Untravelled {
    /// The parameter as written (`its parameter \`o: &Opaque\``), or the result.
    pub what: &'static str,
    /// The type that has neither `Travel` nor serde, as this instance of the function has it.
    pub ty: &'static str,
    /// The type written names a type parameter of the function: whether it travels was
    /// decided once for every instance, by the parameter's bounds.
    pub generic: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round<T: Travel + PartialEq + std::fmt::Debug>(v: T) {
        let mut out = Vec::new();
        v.put(&mut out);
        let mut input = out.as_slice();
        assert_eq!(T::take(&mut input), Some(v));
        assert!(input.is_empty(), "everything written is read back");
    }

    #[test]
    fn values_come_back_as_they_went() {
        round(0u8);
        round(-7i64);
        round(u128::MAX);
        round(1.5f64);
        round(f32::INFINITY);
        round(true);
        round(false);
        round('λ');
        round(());
        round(String::from("naïve"));
        round(vec![1.0f64, -2.5, 3.0]);
        round(vec![vec![1u32], vec![], vec![2, 3]]);
        round([1i32, 2, 3]);
        round(Some(vec![String::from("a")]));
        round(None::<u8>);
        round(Ok::<u8, String>(4));
        round(Err::<u8, String>("no".into()));
        round((1u8, -2i16, 3.0f32, 'x', false, String::from("six")));
        round(Box::new(9u16));
        let mut out = Vec::new();
        f64::NAN.put(&mut out);
        assert!(f64::take(&mut out.as_slice()).is_some_and(f64::is_nan));
    }

    #[test]
    fn a_slice_and_a_str_travel_as_a_vec_and_a_string() {
        let mut out = Vec::new();
        put_slice(&[1.0f64, 2.0][..], &mut out);
        put_str("abc", &mut out);
        let mut input = out.as_slice();
        assert_eq!(Vec::<f64>::take(&mut input), Some(vec![1.0, 2.0]));
        assert_eq!(String::take(&mut input), Some("abc".to_string()));
        assert!(input.is_empty());
    }

    #[test]
    fn bytes_that_are_not_a_value_are_refused() {
        // Too short, a bad tag, invalid UTF-8, an invalid char, a length beyond the input.
        assert_eq!(u32::take(&mut &[1u8, 2][..]), None);
        assert_eq!(bool::take(&mut &[2u8][..]), None);
        assert_eq!(<Option<u8> as Travel>::take(&mut &[9u8, 1][..]), None);
        assert_eq!(<Result<u8, u8> as Travel>::take(&mut &[2u8, 1][..]), None);
        let mut bad = Vec::new();
        put_len(2, &mut bad);
        bad.extend_from_slice(&[0xff, 0xfe]);
        assert_eq!(String::take(&mut bad.as_slice()), None);
        let mut bad = Vec::new();
        0xD800u32.put(&mut bad);
        assert_eq!(char::take(&mut bad.as_slice()), None);
        let mut huge = Vec::new();
        put_len(usize::MAX / 2, &mut huge);
        assert_eq!(Vec::<u64>::take(&mut huge.as_slice()), None);
        assert_eq!(Vec::<bool>::take(&mut huge.as_slice()), None);
        assert_eq!(<[u8; 4]>::take(&mut &[1u8, 2, 3][..]), None);
        assert_eq!(String::take(&mut &[][..]), None);
    }

    #[cfg(feature = "serde")]
    #[test]
    // The borrows are the generated code's: they choose `ViaTravel` where it applies.
    #[allow(clippy::needless_borrow)]
    fn with_the_serde_feature_a_serde_type_travels_by_resolution() {
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        struct Reading {
            value: f64,
            unit: String,
        }
        let r = Reading {
            value: -1.5,
            unit: "mV".into(),
        };
        let mut out = Vec::new();
        (&&Carry::<Reading>::new()).invite_put(&r, &mut out);
        let mut input = out.as_slice();
        assert_eq!((&&Carry::<Reading>::new()).invite_take(&mut input), Some(r));
        assert!(input.is_empty());
        // A length beyond the bytes, or bytes that are not one, are refused.
        assert_eq!(
            (&&Carry::<Reading>::new()).invite_take(&mut &out[..3]),
            None
        );
        let mut garbage = Vec::new();
        put_len(2, &mut garbage);
        garbage.extend_from_slice(&[0xff, 0xff]);
        assert_eq!(
            (&&Carry::<Reading>::new()).invite_take(&mut garbage.as_slice()),
            None
        );
    }

    #[test]
    fn generated_code_finds_travel_by_resolution() {
        let mut out = Vec::new();
        (&&Carry::<(u8, f64)>::new()).invite_put(&(3, 0.5), &mut out);
        let back = (&&Carry::<(u8, f64)>::new()).invite_take(&mut out.as_slice());
        assert_eq!(back, Some((3, 0.5)));
    }

    #[test]
    // The borrows are the generated code's: they choose the first impl that applies.
    #[allow(clippy::needless_borrow)]
    fn a_type_that_cannot_travel_is_named_and_copies_nothing() {
        struct Opaque;
        assert_eq!((&&Carry::<(u8, f64)>::new()).invite_untravelled(), None);
        assert_eq!((&&Carry::<Vec<String>>::new()).invite_untravelled(), None);
        let name = (&&Carry::<Opaque>::new()).invite_untravelled();
        assert!(name.is_some_and(|n| n.ends_with("Opaque")), "{name:?}");
        let mut out = Vec::new();
        (&&Carry::<Opaque>::new()).invite_put(&Opaque, &mut out);
        (&&Carry::<Opaque>::new()).invite_put_items(&[Opaque, Opaque], &mut out);
        assert!(out.is_empty());
        assert!((&&Carry::<Opaque>::new())
            .invite_take(&mut &[1u8, 2, 3][..])
            .is_none());
    }

    #[test]
    #[allow(clippy::needless_borrow)]
    fn items_written_by_resolution_come_back_as_a_vec() {
        let mut out = Vec::new();
        (&&Carry::<i32>::new()).invite_put_items(&[3, -4, 5], &mut out);
        (&&Carry::<String>::new()).invite_put_items(&["a".to_string()], &mut out);
        let mut input = out.as_slice();
        assert_eq!(
            (&&Carry::<Vec<i32>>::new()).invite_take(&mut input),
            Some(vec![3, -4, 5])
        );
        assert_eq!(
            (&&Carry::<Vec<String>>::new()).invite_take(&mut input),
            Some(vec!["a".to_string()])
        );
        assert!(input.is_empty());
    }

    #[cfg(feature = "serde")]
    #[test]
    #[allow(clippy::needless_borrow)]
    fn serde_items_come_back_as_a_vec() {
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        struct Pair(u8, String);
        let items = [Pair(1, "x".into()), Pair(2, String::new())];
        let mut out = Vec::new();
        (&&Carry::<Pair>::new()).invite_put_items(&items, &mut out);
        assert_eq!((&&Carry::<Pair>::new()).invite_untravelled(), None);
        let mut input = out.as_slice();
        assert_eq!(
            (&&Carry::<Vec<Pair>>::new()).invite_take(&mut input),
            Some(Vec::from(items))
        );
        assert!(input.is_empty());
    }
}
