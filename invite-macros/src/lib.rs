//! Attribute macros of [invite](https://docs.rs/invite-mt) (the `invite-mt` package): `#[invite::metamorphic(...)]` and
//! `#[invite::in_vivo(...)]`. Use them through the `invite` crate, whose documentation
//! describes what they accept.
//!
//! `parse` reads the attributes' arguments into plain data, `expand` turns that data and the
//! function into tokens, `text` recovers each relation's source text for the log.

mod enclosing;
mod expand;
mod parse;
mod text;

use proc_macro::TokenStream;

/// Checks metamorphic relations on sampled calls of the function, in a forked child.
///
/// ```ignore
/// #[invite::metamorphic(
///     std_dev(&permute(xs)) == result,
///     std_dev(&multiply(xs, 2.0)) == result * 2.0,
///     if xs.len() > 1 => std_dev(&include(xs, mean(xs))) <= result,
///     tolerance = 1e-9,
/// )]
/// pub fn std_dev(xs: &[f64]) -> f64 { /* ... */ }
/// ```
///
/// Items are relations (`bool` expressions, optionally guarded by `if cond =>`), hand-written
/// tests (`test = path`, called with each parameter by reference and `&result`), and the options
/// `name = "..."`, `tolerance = 1e-9`, `timeout_ms = 500`, `rho = 0.01`, `self_check = false`.
#[proc_macro_attribute]
pub fn metamorphic(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(parse::Kind::Metamorphic, attr.into(), item.into()).into()
}

/// Runs In Vivo tests on sampled calls of the function, in a forked child, on the live state
/// as it was just before the call.
///
/// ```ignore
/// #[invite::in_vivo(test = Self::put_then_get)]
/// pub fn put(&mut self, k: K, v: V) -> Option<V> { /* ... */ }
/// ```
///
/// Each `test = path` names a function that takes the receiver (with the method's mutability)
/// and references to the arguments, and returns `bool`, `()` or `Result<_, E: Debug>`.
/// Options: `name`, `timeout_ms`, `rho`.
#[proc_macro_attribute]
pub fn in_vivo(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(parse::Kind::InVivo, attr.into(), item.into()).into()
}

/// Proposes metamorphic relations from sampled calls of the function: in a forked child, the
/// function is run on the live arguments and on follow-ups made from them (scaled, shifted,
/// reflected, permuted, ...), and the results are logged as an `observation` record.
/// `invite discover LOG` then proposes the relations that held, ready to paste into
/// `#[invite::metamorphic(...)]`.
///
/// ```ignore
/// #[invite::discover]
/// pub fn std_dev(xs: &[f64]) -> f64 { /* ... */ }
/// ```
///
/// Parameters and result must be numbers, `bool`, or vectors or slices of numbers; the
/// parameters are taken by value or by `&` reference. Options: `name`, `rho`, `timeout_ms`.
/// `discover = true` in `#[invite::metamorphic]` does the same beside its tests.
#[proc_macro_attribute]
pub fn discover(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(parse::Kind::Discover, attr.into(), item.into()).into()
}
