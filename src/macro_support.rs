//! What the attribute macros' generated code calls. Not a public API: it changes without notice.
//!
//! Several helpers use autoref-based dispatch: `(&&Probe(x)).method()` resolves to the impl on
//! `&Probe` when the best bound holds (say, `Approx`), else to the impl on `&&Probe` (say,
//! `PartialEq`), else to the impl on `Probe` (a fallback). Method lookup tries those receiver
//! types in that order, so each call site gets the best behaviour its types allow, without
//! specialisation and without asking users for bounds.

use std::any::type_name;
use std::fmt::Debug;

pub use crate::dedup::{state_hash, HashProbe, ViaHash, ViaStateHash};
pub use crate::executor::block_on;
pub use crate::mr::{in_range_tolerant, one_of_tolerant, Approx, Op};
pub use crate::record::Outcome;
pub use crate::role::in_child;
pub use crate::sandbox::worker::{queue as queue_call, Queued, Runner, WorkerRun};
pub use crate::sandbox::{ChildRun, TestCtx};
#[cfg(feature = "serde")]
pub use crate::travel::ViaSerde;
pub use crate::travel::{CannotTravel, Carry, Untravelled, ViaTravel};
/// Without the `serde` feature nothing travels through serde: generated code imports this
/// empty trait in its place.
#[cfg(not(feature = "serde"))]
pub trait ViaSerde {}

// Below the user API, for invite's own CLI, benchmarks and scenario tests.
pub use crate::dedup::SeenFilter;
pub use crate::site::all as sites;
#[cfg(invite_linux)]
pub use invite_sandbox::usage::resident_mib;

/// The run's parts that the scenario tests reach.
#[cfg(invite_linux)]
pub mod sandbox {
    pub use crate::sandbox::orphans::{GRACE, UNCONFIRMED};
}

/// Forks a run for a sampled call that the caps admitted; `tests` run in it and never return.
pub fn fork_run(permit: Permit, tests: impl FnOnce(ChildRun)) {
    crate::runtime::fork_run(permit, tests)
}
pub use crate::place::Place;
pub use crate::site::{Naming, Permit, Sampled, Site, SiteLocal, SiteMeta, SiteRef, TestKind};
pub use inventory;

#[cfg(feature = "discover")]
/// Largest observation a discovery entry records, in bytes of JSON: a run's frames are capped
/// at 4 MiB, and one record should stay readable line by line.
const OBSERVATION_MAX: usize = 1 << 20;

/// Longest `Debug` text kept for one value.
const DEBUG_CHARS: usize = 512;

/// Runs the sampled branch of a wrapper out of line: kept out of the wrapper, its stack frame
/// and register saves do not burden every unsampled call. What it returns (a call queued for
/// the worker) comes back in a register, so the unsampled call tests a value it never wrote.
#[cold]
#[inline(never)]
pub fn cold_path<T, F: FnOnce() -> T>(f: F) -> T {
    f()
}

/// Without the `enabled` feature, holds a function's tests so that they are type-checked;
/// never calls them.
pub fn type_check_only(_tests: impl FnOnce(ChildRun)) {}

/// The value an In Vivo or hand-written metamorphic test returned, awaited on the test's
/// executor when it is a future (an `async fn` test), as it is otherwise:
/// `(&&Awaited::new(value)).invite_await()`.
pub struct Awaited<T>(std::cell::Cell<Option<T>>);

impl<T> Awaited<T> {
    pub fn new(value: T) -> Awaited<T> {
        Awaited(std::cell::Cell::new(Some(value)))
    }

    fn take(&self) -> T {
        self.0.take().expect("a test's value is awaited once")
    }
}

pub trait ViaFuture {
    type Output;
    fn invite_await(&self) -> Self::Output;
}

impl<F: std::future::Future> ViaFuture for &Awaited<F> {
    type Output = F::Output;
    fn invite_await(&self) -> F::Output {
        block_on(self.take())
    }
}

pub trait NotFuture {
    type Output;
    fn invite_await(&self) -> Self::Output;
}

impl<T> NotFuture for Awaited<T> {
    type Output = T;
    fn invite_await(&self) -> T {
        self.take()
    }
}

/// A pair of values to compare.
pub struct Cmp<'a, L: ?Sized, R: ?Sized>(pub &'a L, pub &'a R);

pub trait ApproxCompare {
    fn invite_eq(&self, op: Op, tol: f64) -> bool;
    fn invite_ord(&self, op: Op, tol: f64) -> bool;
    fn invite_same(&self, tol: f64) -> Option<bool>;
}

impl<L: Approx<R> + ?Sized, R: ?Sized> ApproxCompare for &Cmp<'_, L, R> {
    fn invite_eq(&self, op: Op, tol: f64) -> bool {
        op.holds(self.0.approx_cmp(self.1, tol))
    }
    fn invite_ord(&self, op: Op, tol: f64) -> bool {
        op.holds(self.0.approx_cmp(self.1, tol))
    }
    fn invite_same(&self, tol: f64) -> Option<bool> {
        Some(self.0.approx_same(self.1, tol))
    }
}

pub trait StdEq {
    fn invite_eq(&self, op: Op, tol: f64) -> bool;
    fn invite_same(&self, tol: f64) -> Option<bool>;
}

impl<L: PartialEq<R> + ?Sized, R: ?Sized> StdEq for &&Cmp<'_, L, R> {
    fn invite_eq(&self, op: Op, _tol: f64) -> bool {
        (self.0 == self.1) == (op == Op::Eq)
    }
    fn invite_same(&self, _tol: f64) -> Option<bool> {
        Some(self.0 == self.1)
    }
}

pub trait StdOrd {
    fn invite_ord(&self, op: Op, tol: f64) -> bool;
}

impl<L: PartialOrd<R> + ?Sized, R: ?Sized> StdOrd for &&Cmp<'_, L, R> {
    fn invite_ord(&self, op: Op, _tol: f64) -> bool {
        op.holds(self.0.partial_cmp(self.1))
    }
}

/// For the determinism self-check only: values that cannot be compared are not checked.
pub trait Incomparable {
    fn invite_same(&self, tol: f64) -> Option<bool>;
}

impl<L: ?Sized, R: ?Sized> Incomparable for Cmp<'_, L, R> {
    fn invite_same(&self, _tol: f64) -> Option<bool> {
        None
    }
}

/// A value whose exact form is wanted (see [`crate::record::Exact`]): by method resolution,
/// `(&&ExactProbe(&v)).invite_exact()` finds [`ExactTravel`] first, then with the `serde`
/// feature [`ExactSerde`], then [`NoExact`]. The bytes are those the worker's copies use, so
/// that [`crate::exact!`] reads them back as the worker does.
pub struct ExactProbe<'a, T: ?Sized>(pub &'a T);

impl<T: ?Sized> Clone for ExactProbe<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for ExactProbe<'_, T> {}

/// An exact form: the bytes, and the type they are read back as.
pub type ExactForm = Option<(Vec<u8>, &'static str)>;

pub trait ExactTravel {
    fn invite_exact(&self) -> ExactForm;
}

impl<T: crate::Travel> ExactTravel for &ExactProbe<'_, T> {
    fn invite_exact(&self) -> ExactForm {
        let mut out = Vec::new();
        self.0.put(&mut out);
        Some((out, type_name::<T>()))
    }
}

#[cfg(feature = "serde")]
pub trait ExactSerde {
    fn invite_exact(&self) -> ExactForm;
}

#[cfg(feature = "serde")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> ExactSerde for ExactProbe<'_, T> {
    fn invite_exact(&self) -> ExactForm {
        Some((bounded_postcard(self.0)?, type_name::<T>()))
    }
}

/// `value` as the worker's serde copies write it (its length, then postcard), written into at
/// most [`EXACT_MAX`] bytes: a larger value is never encoded whole, so a long argument costs
/// its run no more memory than that.
#[cfg(feature = "serde")]
fn bounded_postcard<V: serde::Serialize + ?Sized>(value: &V) -> Option<Vec<u8>> {
    let mut body = vec![0u8; EXACT_MAX];
    let used = postcard::to_slice(value, &mut body).ok()?.len();
    let mut out = Vec::with_capacity(used + 8);
    crate::Travel::put(&(used as u64), &mut out);
    out.extend_from_slice(&body[..used]);
    Some(out)
}

#[cfg(not(feature = "serde"))]
pub trait ExactSerde {}

pub trait NoExact {
    fn invite_exact(self) -> ExactForm;
}

impl<T: ?Sized> NoExact for ExactProbe<'_, T> {
    fn invite_exact(self) -> ExactForm {
        None
    }
}

/// A slice whose exact form is wanted: written as a `Vec` of its items is, so that the
/// regression test rebuilds the `Vec` it lends. The same three choices as [`ExactProbe`].
pub struct ExactItems<'a, T>(pub &'a [T]);

impl<T> Clone for ExactItems<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ExactItems<'_, T> {}

impl<T: crate::Travel> ExactTravel for &ExactItems<'_, T> {
    fn invite_exact(&self) -> ExactForm {
        // Each item takes at least its own size: a slice that cannot fit is never encoded.
        if self.0.len().saturating_mul(std::mem::size_of::<T>()) > EXACT_MAX {
            return None;
        }
        let mut out = Vec::new();
        crate::travel::ViaTravel::invite_put_items(
            &&crate::travel::Carry::<T>::new(),
            self.0,
            &mut out,
        );
        Some((out, type_name::<Vec<T>>()))
    }
}

#[cfg(feature = "serde")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> ExactSerde for ExactItems<'_, T> {
    fn invite_exact(&self) -> ExactForm {
        // postcard writes a slice as it writes a `Vec`: read back as one.
        Some((bounded_postcard(self.0)?, type_name::<Vec<T>>()))
    }
}

impl<T> NoExact for ExactItems<'_, T> {
    fn invite_exact(self) -> ExactForm {
        None
    }
}

/// The longest exact form a test record keeps of one argument, in bytes: a record should stay
/// a line a log reader takes at once, as an observation does.
pub const EXACT_MAX: usize = 256 * 1024;

/// The exact forms a test process captured, as inputs named as [`crate::record::Exact::split`]
/// reads them: for each argument, its form under its value's name and its type under its
/// type's name; an argument without a form, or whose form is longer than [`EXACT_MAX`], is
/// left out. `receiver` says how the function takes its receiver, where that was asked for.
pub fn capture_exact(
    receiver: Option<&'static str>,
    f: impl FnOnce() -> Vec<(&'static str, &'static str, ExactForm)>,
) -> Vec<(&'static str, String)> {
    let Ok(forms) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (value_name, type_name, form) in forms {
        let Some((bytes, ty)) = form.filter(|(b, _)| b.len() <= EXACT_MAX) else {
            continue;
        };
        out.push((value_name, crate::record::hex(&bytes)));
        out.push((type_name, ty.to_string()));
    }
    if let Some(passing) = receiver {
        out.push((crate::record::RECEIVER, passing.to_string()));
    }
    out
}

/// An argument of type `$ty` rebuilt exactly from the hexadecimal of its logged exact form
/// (see [`crate::record::Exact`]): through [`crate::Travel`] if the type implements it, else,
/// with the `serde` feature, serde. The regression tests `invite report --emit-tests` writes
/// use it for every argument that has one, whatever the length of its `Debug` text.
///
/// ```
/// use invite::Travel;
///
/// let mut logged = Vec::new();
/// vec![1.0f64, -1.0].put(&mut logged);
/// let xs: Vec<f64> = invite::exact!(Vec<f64>, &invite::record::hex(&logged));
/// assert_eq!(xs, [1.0, -1.0]);
/// ```
#[macro_export]
macro_rules! exact {
    ($ty:ty, $hex:expr) => {{
        #[allow(unused_imports)]
        use $crate::__private::{CannotTravel as _, ViaSerde as _, ViaTravel as _};
        let __invite_bytes = $crate::record::unhex($hex)
            .expect("the exact form of a logged argument: hexadecimal digits");
        let mut __invite_in: &[u8] = &__invite_bytes[..];
        let __invite_value: $ty = (&&$crate::__private::Carry::<$ty>::new())
            .invite_take(&mut __invite_in)
            .expect(concat!(
                "the logged bytes are not a `",
                stringify!($ty),
                "`: was the type changed since the log was written?"
            ));
        __invite_value
    }};
}

/// A value whose `Debug` text is wanted, if it has one.
pub struct DebugProbe<'a, T: ?Sized>(pub &'a T);

pub trait HasDebug {
    fn invite_debug(&self) -> String;
}

impl<T: Debug + ?Sized> HasDebug for &DebugProbe<'_, T> {
    fn invite_debug(&self) -> String {
        crate::mr::truncated_debug(self.0, DEBUG_CHARS)
    }
}

pub trait NoDebug {
    fn invite_debug(&self) -> String;
}

impl<T: ?Sized> NoDebug for DebugProbe<'_, T> {
    fn invite_debug(&self) -> String {
        format!("<{} has no Debug>", type_name::<T>())
    }
}

/// The arguments' `Debug` texts; a `Debug` implementation that panics costs only its text.
pub fn capture_inputs(
    f: impl FnOnce() -> Vec<(&'static str, String)>,
) -> Vec<(&'static str, String)> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| vec![("?", "<a Debug implementation panicked>".to_string())])
}

/// The detail line of a top-level comparison.
pub fn comparison_detail(left: String, op: Op, right: String, tol: f64) -> String {
    let nan = if left.contains("NaN") || right.contains("NaN") {
        "; NaN equals nothing, itself included: where NaN is a legitimate result, guard the \
         relation (`if !xs.is_empty() => ...`)"
    } else {
        ""
    };
    format!(
        "left: {left}, right: {right} ({} with tolerance {tol:e}){nan}",
        op.symbol()
    )
}

#[cfg(feature = "discover")]
pub use crate::discover::{quietly as discover_quietly, Discoverable, Element, Field, Kind, Value};

/// What a discovery entry knows of a method's receiver: its fields, when its type derives
/// `Discoverable`. Asked as `(&&ReceiverProbe::<Self>::new()).fields()`: the method of
/// [`ReceiverFields`] is found first where the type implements the trait, that of
/// [`ReceiverOpaque`] otherwise (a receiver moved by nothing), so the expansion needs to know
/// neither.
#[cfg(feature = "discover")]
pub struct ReceiverProbe<T: ?Sized>(std::marker::PhantomData<fn(&T)>);

#[cfg(feature = "discover")]
impl<T: ?Sized> ReceiverProbe<T> {
    /// The probe of `T`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ReceiverProbe(std::marker::PhantomData)
    }
}

/// A receiver whose fields discovery moves.
#[cfg(feature = "discover")]
pub trait ReceiverFields<T: ?Sized> {
    /// Its fields.
    fn fields(&self) -> Vec<crate::discover::Field>;
    /// Its fields' values (`None` where one cannot be represented).
    fn values(&self, receiver: &T) -> Option<Vec<Value>>;
    /// A receiver with these fields (boxed: where the expansion cannot tell, `Self` may be
    /// unsized).
    fn rebuild(&self, fields: &[Value]) -> Option<Box<T>>;
}

#[cfg(feature = "discover")]
impl<T: Discoverable> ReceiverFields<T> for &ReceiverProbe<T> {
    fn fields(&self) -> Vec<crate::discover::Field> {
        T::fields()
    }
    fn values(&self, receiver: &T) -> Option<Vec<Value>> {
        match receiver.to_value()? {
            Value::Record(items) if items.len() == T::fields().len() => Some(items),
            _ => None,
        }
    }
    fn rebuild(&self, fields: &[Value]) -> Option<Box<T>> {
        T::from_value(&Value::Record(fields.to_vec())).map(Box::new)
    }
}

/// A receiver discovery does not move.
#[cfg(feature = "discover")]
pub trait ReceiverOpaque<T: ?Sized> {
    /// None.
    fn fields(&self) -> Vec<crate::discover::Field>;
    /// None.
    fn values(&self, receiver: &T) -> Option<Vec<Value>>;
    /// None.
    fn rebuild(&self, fields: &[Value]) -> Option<Box<T>>;
}

#[cfg(feature = "discover")]
impl<T: ?Sized> ReceiverOpaque<T> for ReceiverProbe<T> {
    fn fields(&self) -> Vec<crate::discover::Field> {
        Vec::new()
    }
    fn values(&self, _: &T) -> Option<Vec<Value>> {
        None
    }
    fn rebuild(&self, _: &[Value]) -> Option<Box<T>> {
        None
    }
}

/// The signature with a receiver's fields as parameters after `&self`:
/// `fn predict(&self, self.rows: Vec<Row>, q: &[f64]) -> u32`.
#[cfg(feature = "discover")]
fn with_fields(signature: &str, fields: &[crate::discover::Field]) -> String {
    let Some(at) = signature.find("(&self") else {
        return signature.to_string();
    };
    let at = at + "(&self".len();
    let mut out = signature[..at].to_string();
    for f in fields {
        out += &format!(", self.{}: {}", f.name, f.ty);
    }
    out + &signature[at..]
}

#[cfg(feature = "discover")]
/// A discovery entry's child: observes the function on the live input (`None` where an
/// argument cannot be represented) and on its follow-ups, and hands the observation, as JSON,
/// to the collector as the verdict's detail.
///
/// `fields` are the receiver's where its type derives `Discoverable`: its values lead
/// `input`, and they are moved as parameters of their own. The wrong versions of the function
/// named `versions` (`mutants = true`), `wrong(k, input)` the `k`-th, are observed on the same
/// input, a few on each call ([`MUTANTS_PER_CALL`]), and recorded where they differ.
#[allow(clippy::too_many_arguments)]
pub fn discover_observe(
    t: &TestCtx,
    signature: &str,
    fields: &[crate::discover::Field],
    kinds: &[Kind],
    output: Kind,
    input: Vec<Option<Value>>,
    call: &mut crate::discover::Call<'_>,
    versions: &[&str],
    wrong: &mut dyn FnMut(usize, &[Value]) -> Option<Value>,
) {
    // A method's versions are called as the method is, on the receiver rebuilt from the
    // fields that lead the input, where it has them.
    let mutants = Mutants { versions, wrong };
    let (outcome, detail) = if fields.is_empty() {
        observation_verdict(signature, kinds, output, input, call, None, mutants)
    } else {
        let signature = with_fields(signature, fields);
        let kinds: Vec<Kind> = fields
            .iter()
            .map(|f| f.kind)
            .chain(kinds.iter().copied())
            .collect();
        observation_verdict(
            &signature,
            &kinds,
            output,
            input,
            call,
            Some(&signature),
            mutants,
        )
    };
    t.set_observation(outcome, detail);
}

/// Wrong versions of the function observed beside it on a call's input: on each call at most
/// this many, the next ones in turn from a place the call's seed picks, so that a call costs
/// at most this many observations more and every version is observed on some calls.
#[cfg(feature = "discover")]
pub const MUTANTS_PER_CALL: usize = 4;

/// The wrong versions of a function under discovery: their names, and the `k`-th called.
#[cfg(feature = "discover")]
struct Mutants<'a> {
    versions: &'a [&'a str],
    wrong: &'a mut dyn FnMut(usize, &[Value]) -> Option<Value>,
}

#[cfg(feature = "discover")]
impl Mutants<'_> {
    /// The versions a call with `seed` runs.
    fn picked(&self, seed: u64) -> impl Iterator<Item = usize> {
        let n = self.versions.len();
        let start = if n == 0 {
            0
        } else {
            (seed % n as u64) as usize
        };
        (0..n.min(MUTANTS_PER_CALL)).map(move |j| (start + j) % n)
    }
}

#[cfg(feature = "discover")]
fn observation_verdict(
    signature: &str,
    kinds: &[Kind],
    output: Kind,
    input: Vec<Option<Value>>,
    call: &mut crate::discover::Call<'_>,
    flattened: Option<&str>,
    mutants: Mutants<'_>,
) -> (Outcome, String) {
    use crate::discover::{observe, Signature, Transform};
    let sig = match Signature::parse(signature, kinds, output) {
        Ok(sig) => sig,
        Err(e) => {
            return (
                Outcome::Error,
                format!("discovery cannot read the signature: {e}"),
            )
        }
    };
    let Some(input) = input.into_iter().collect::<Option<Vec<Value>>>() else {
        return (
            Outcome::Inconclusive,
            "an argument cannot be represented exactly (a u128 beyond the range of i128): \
             this call is not observed"
                .into(),
        );
    };
    let transforms = Transform::all(&sig);
    let seed = crate::rng::with_transform(rand::Rng::random::<u64>);
    let Some(mut obs) = observe(&sig, &transforms, input, call, seed) else {
        return (
            Outcome::Inconclusive,
            format!(
                "not observed: the function panicked on the live input, its result is not of \
                 the declared kind, or a sequence is longer than {} elements",
                crate::discover::MAX_LEN
            ),
        );
    };
    obs.signature = flattened.map(str::to_string);
    // Each version observed as the function is, from the same seed: a follow-up made of the
    // result is made of the version's own.
    let which: Vec<usize> = mutants.picked(seed).collect();
    for k in which {
        let wrong = &mut *mutants.wrong;
        let mut version = |v: &[Value]| wrong(k, v);
        let theirs = observe(&sig, &transforms, obs.input.clone(), &mut version, seed);
        obs.add_mutant(mutants.versions[k], theirs.as_ref());
    }
    let json = serde_json::to_string(&obs);
    // The versions' runs are what gives way to the cap, never the function's own.
    let json = match json {
        Ok(j) if j.len() > OBSERVATION_MAX && !obs.mutants.is_empty() => {
            obs.mutants.clear();
            serde_json::to_string(&obs)
        }
        other => other,
    };
    match json {
        Ok(json) => recorded(json),
        Err(e) => (
            Outcome::Error,
            format!("the observation cannot be written: {e}"),
        ),
    }
}

#[cfg(feature = "discover")]
/// An observation as its record holds it, or, past [`OBSERVATION_MAX`], why not and what to
/// do: every follow-up's result is in it, so long inputs make long records.
fn recorded(json: String) -> (Outcome, String) {
    if json.len() <= OBSERVATION_MAX {
        return (Outcome::Pass, json);
    }
    let detail = format!(
        "not recorded: the observation takes {} bytes, more than the {OBSERVATION_MAX} a record \
         may hold (it keeps the result of every follow-up input, and these inputs are long); \
         discover the function where it is called on shorter inputs (a sample of the column), \
         or run invite::discover::Discovery on such inputs offline, where no record caps them",
        json.len()
    );
    (Outcome::Inconclusive, detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_too_long_for_a_record_has_no_exact_form() {
        #[allow(unused_imports)]
        use super::{ExactSerde as _, ExactTravel as _, NoExact as _};
        let fits = vec![1.0f64; EXACT_MAX / 8 - 1];
        let (bytes, ty) = (&&ExactItems(&fits[..])).invite_exact().expect("a form");
        assert_eq!((bytes.len(), ty), (EXACT_MAX, "alloc::vec::Vec<f64>"));
        let long = vec![1.0f64; EXACT_MAX / 8 + 1];
        assert!((&&ExactItems(&long[..])).invite_exact().is_none());
    }

    #[cfg(feature = "serde")]
    #[test]
    // The probe as the expansion writes it, whichever impl answers.
    #[allow(clippy::needless_borrow)]
    fn a_serde_argument_is_encoded_within_the_bound_and_rebuilt() {
        #[allow(unused_imports)]
        use super::{ExactSerde as _, ExactTravel as _, NoExact as _};
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        struct Model {
            rows: Vec<u8>,
        }
        let small = Model {
            rows: vec![7; 1000],
        };
        let (bytes, ty) = (&&ExactProbe(&small)).invite_exact().expect("a form");
        assert!(ty.ends_with("Model"), "{ty}");
        let back: Model = crate::exact!(Model, &crate::record::hex(&bytes));
        assert_eq!(back, small);
        let big = Model {
            rows: vec![7; EXACT_MAX],
        };
        assert!((&&ExactProbe(&big)).invite_exact().is_none());
    }

    #[test]
    fn an_argument_is_rebuilt_exactly_from_its_exact_form() {
        let xs = vec![0.1f64, -0.0, f64::MAX, f64::MIN_POSITIVE];
        let mut out = Vec::new();
        crate::Travel::put(&xs, &mut out);
        let back: Vec<f64> = crate::exact!(Vec<f64>, &crate::record::hex(&out));
        assert_eq!(back.len(), 4);
        for (a, b) in xs.iter().zip(&back) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
    }

    #[test]
    #[cfg(feature = "discover")]
    fn an_observation_past_the_record_cap_says_what_to_do() {
        let (outcome, json) = recorded("x".repeat(OBSERVATION_MAX));
        assert_eq!((outcome, json.len()), (Outcome::Pass, OBSERVATION_MAX));
        let (outcome, detail) = recorded("x".repeat(OBSERVATION_MAX + 1));
        assert_eq!(outcome, Outcome::Inconclusive);
        assert!(detail.starts_with("not recorded: the observation takes 1048577 bytes"));
        assert!(detail.contains("shorter inputs"), "{detail}");
        assert!(detail.contains("invite::discover::Discovery"), "{detail}");
    }

    #[cfg(feature = "discover")]
    fn verdict(
        signature: &str,
        input: Vec<Option<Value>>,
        f: impl Fn(&[f64]) -> Option<Value>,
    ) -> (Outcome, String) {
        let kinds: Vec<Kind> = input.iter().flatten().map(Value::kind).collect();
        let mut call = |v: &[Value]| f(&v[0].elements().or_else(|| Some(vec![v[0].number()?]))?);
        observation_verdict(
            signature,
            &kinds,
            Kind::Float,
            input,
            &mut call,
            None,
            none(),
        )
    }

    #[cfg(feature = "discover")]
    fn none() -> Mutants<'static> {
        Mutants {
            versions: &[],
            wrong: Box::leak(Box::new(|_: usize, _: &[Value]| -> Option<Value> {
                unreachable!("no wrong version")
            })),
        }
    }

    #[test]
    #[cfg(feature = "discover")]
    fn past_the_cap_the_versions_give_way_and_the_function_s_runs_stay() {
        // A sequence returned as it came: the longest that fits a record alone, and four
        // versions that reverse it, whose runs would take it past the cap.
        let kinds = [Kind::FloatSeq];
        let observe_len = |len: usize, versions: &[&str]| {
            let xs = Value::FloatSeq((0..len).map(|i| i as f64 * 0.37 + 0.1).collect());
            let mut echo = |v: &[Value]| Some(v[0].clone());
            let mut reversed = |_: usize, v: &[Value]| {
                let mut xs = v[0].elements()?;
                xs.reverse();
                Some(Value::FloatSeq(xs))
            };
            observation_verdict(
                "fn echo(xs: &[f64]) -> Vec<f64>",
                &kinds,
                Kind::FloatSeq,
                vec![Some(xs)],
                &mut echo,
                None,
                Mutants {
                    versions,
                    wrong: &mut reversed,
                },
            )
        };
        let mut len = 4096;
        while observe_len(len, &[]).0 != Outcome::Pass {
            len = len * 3 / 4;
        }
        // The largest that fits without the versions, to within a quarter.
        let four = ["a", "b", "c", "d"];
        let (outcome, detail) = observe_len(len, &four);
        assert_eq!(outcome, Outcome::Pass, "{detail}");
        let obs: crate::discover::Observation = serde_json::from_str(&detail).unwrap();
        assert!(
            obs.mutants.is_empty(),
            "{} versions kept",
            obs.mutants.len()
        );
        assert!(!obs.follow.is_empty());
        // Short enough for both, the versions stay.
        let (outcome, detail) = observe_len(len / 8, &four);
        assert_eq!(outcome, Outcome::Pass, "{detail}");
        let obs: crate::discover::Observation = serde_json::from_str(&detail).unwrap();
        assert_eq!(obs.mutants.len(), 4);
        assert!(obs.mutants.iter().all(|m| !m.differs.is_empty()));
    }

    #[test]
    #[cfg(feature = "discover")]
    fn a_few_wrong_versions_run_on_each_call_each_on_some() {
        let names: Vec<&'static str> = (0..16)
            .map(|k| &*Box::leak(format!("v{k}").into_boxed_str()))
            .collect();
        let names: &'static [&'static str] = Box::leak(names.into_boxed_slice());
        let m = |versions: usize| Mutants {
            versions: &names[..versions],
            wrong: Box::leak(Box::new(|_: usize, _: &[Value]| None)),
        };
        assert_eq!(m(0).picked(7).count(), 0);
        assert_eq!(m(3).picked(7).collect::<Vec<_>>(), [1, 2, 0]);
        assert_eq!(m(10).picked(7).collect::<Vec<_>>(), [7, 8, 9, 0]);
        assert_eq!(m(10).picked(12).collect::<Vec<_>>(), [2, 3, 4, 5]);
        let run: std::collections::HashSet<usize> = (0..40)
            .flat_map(|seed| m(16).picked(seed).collect::<Vec<_>>())
            .collect();
        assert_eq!(run.len(), 16);
        // Recorded where they differ: `x * x` for `sin` differs on the input and its runs;
        // `sin` itself nowhere.
        let sine = |v: &[Value]| Some(Value::Float(v[0].number()?.sin()));
        let mut wrong = |k: usize, v: &[Value]| match k {
            0 => Some(Value::Float(v[0].number()?.sin())),
            _ => Some(Value::Float(v[0].number()?.powi(2))),
        };
        let (outcome, detail) = observation_verdict(
            "fn sin(x: f64) -> f64",
            &[Kind::Float],
            Kind::Float,
            vec![Some(Value::Float(0.5))],
            &mut { sine },
            None,
            Mutants {
                versions: &["sine", "square"],
                wrong: &mut wrong,
            },
        );
        assert_eq!(outcome, Outcome::Pass, "{detail}");
        let obs: crate::discover::Observation = serde_json::from_str(&detail).unwrap();
        let same = obs.mutants.iter().find(|m| m.version == "sine").unwrap();
        assert!(same.differs.is_empty(), "{same:?}");
        let squared = obs.mutants.iter().find(|m| m.version == "square").unwrap();
        assert_eq!(squared.differs[0].run, 0);
        assert_eq!(squared.differs[0].output, Some(Value::Float(0.25)));
        assert!(squared.differs.len() > 1, "{squared:?}");
        let as_squared = obs.of_mutant("square").unwrap();
        assert_eq!(as_squared.output, Value::Float(0.25));
        // Each follow-up as the square gave it: `-x` squared is the square.
        let sig =
            crate::discover::Signature::parse("fn sin(x: f64) -> f64", &[Kind::Float], Kind::Float)
                .unwrap();
        let transforms = crate::discover::Transform::all(&sig);
        let negated = transforms
            .iter()
            .position(|t| t.id(&sig) == "-x")
            .unwrap_or_else(|| {
                panic!(
                    "{:?}",
                    transforms.iter().map(|t| t.id(&sig)).collect::<Vec<_>>()
                )
            });
        assert_eq!(as_squared.follow[negated].output, Some(Value::Float(0.25)));
        assert_eq!(
            obs.follow[negated].output,
            Some(Value::Float((-0.5f64).sin()))
        );
        assert_eq!(obs.of_mutant("sine").unwrap().output, obs.output);
        assert!(obs.of_mutant("cube").is_none());
    }

    #[test]
    #[cfg(feature = "discover")]
    fn an_observation_is_the_verdict_of_a_discovery_entry() {
        let sine = |x: &[f64]| Some(Value::Float(x[0].sin()));
        let (outcome, detail) =
            verdict("fn sin(x: f64) -> f64", vec![Some(Value::Float(0.5))], sine);
        assert_eq!(outcome, Outcome::Pass, "{detail}");
        let obs: crate::discover::Observation = serde_json::from_str(&detail).unwrap();
        assert_eq!(obs.input, vec![Value::Float(0.5)]);
        assert_eq!(obs.output, Value::Float(0.5f64.sin()));
        let sig =
            crate::discover::Signature::parse("fn sin(x: f64) -> f64", &[Kind::Float], Kind::Float)
                .unwrap();
        assert_eq!(
            obs.follow.len(),
            crate::discover::Transform::all(&sig).len()
        );
    }

    #[test]
    #[cfg(feature = "discover")]
    fn a_call_discovery_cannot_observe_says_why() {
        let sine = |x: &[f64]| Some(Value::Float(x[0].sin()));
        let (outcome, detail) = verdict(
            "fn sin(x: f64, y: f64) -> f64",
            vec![Some(Value::Float(0.5))],
            sine,
        );
        assert_eq!(outcome, Outcome::Error);
        assert!(
            detail.starts_with("discovery cannot read the signature: "),
            "{detail}"
        );

        let mut never = |_: &[Value]| -> Option<Value> { unreachable!("not called") };
        let (outcome, detail) = observation_verdict(
            "fn sin(x: u64) -> f64",
            &[Kind::Int],
            Kind::Float,
            vec![None],
            &mut never,
            None,
            none(),
        );
        assert_eq!(outcome, Outcome::Inconclusive);
        assert!(detail.contains("beyond the range of i128"), "{detail}");

        let (outcome, detail) = verdict(
            "fn sin(x: f64) -> f64",
            vec![Some(Value::Float(0.5))],
            |_| None,
        );
        assert_eq!(outcome, Outcome::Inconclusive);
        assert!(detail.contains("panicked on the live input"), "{detail}");

        // 4096 numbers out, for each of some twenty follow-ups of two sequences: over the 1 MiB a
        // record holds.
        let long = Value::FloatSeq(
            (0..4096)
                .map(|i| -(i as f64 + 0.1) * std::f64::consts::PI * 1e-300)
                .collect(),
        );
        let sum = |x: &[f64]| Some(Value::Float(x.iter().sum::<f64>() + 0.123_456_789_012_345));
        let (outcome, _) = verdict("fn sum(xs: &[f64]) -> f64", vec![Some(long.clone())], sum);
        assert_eq!(outcome, Outcome::Pass);
        let kinds = [Kind::FloatSeq, Kind::FloatSeq];
        let mut echo = |v: &[Value]| Some(v[0].clone());
        let (outcome, detail) = observation_verdict(
            "fn echo(xs: &[f64], ys: &[f64]) -> Vec<f64>",
            &kinds,
            Kind::FloatSeq,
            vec![Some(long.clone()), Some(long)],
            &mut echo,
            None,
            none(),
        );
        assert_eq!(outcome, Outcome::Inconclusive);
        assert!(
            detail.contains("more than the 1048576 a record may hold"),
            "{detail}"
        );
    }

    #[test]
    fn a_comparison_with_nan_on_either_side_says_how_to_guard_it() {
        let hint = "NaN equals nothing";
        let detail = |l: &str, r: &str| comparison_detail(l.into(), Op::Eq, r.into(), 1e-6);
        assert!(detail("NaN", "1.0").contains(hint));
        assert!(detail("1.0", "NaN").contains(hint));
        assert!(detail("[1.0, NaN]", "[1.0, NaN]").contains(hint));
        assert_eq!(
            detail("1.0", "2.0"),
            "left: 1.0, right: 2.0 (== with tolerance 1e-6)"
        );
    }
}
