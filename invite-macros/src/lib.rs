//! Attribute macros of [invite](https://docs.rs/invite-mt) (the `invite-mt` package): `#[invite::metamorphic(...)]` and
//! `#[invite::in_vivo(...)]`. Use them through the `invite` crate, whose documentation
//! describes what they accept.
//!
//! `parse` reads the attributes' arguments into plain data, `expand` turns that data and the
//! function into tokens, `text` recovers each relation's source text for the log.

mod derive;
mod enclosing;
mod expand;
mod mutate;
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
/// and each argument: a reference parameter as it is (`&[f64]`, `&mut Vec<f64>`), a by-value
/// one by reference (`f64` as `&f64`); it returns `bool`, `()` or `Result<_, E: Debug>`.
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
/// parameters are taken by value or by `&` reference. Options: `name`, `rho`, `timeout_ms`,
/// and `mutants = true` to observe the wrong versions `#[invite::mutants]` would build of the
/// function (or `&self` method, on the same receiver) beside it, by which `invite discover`
/// judges its proposals.
/// `discover = true` in `#[invite::metamorphic]` does the same beside its tests.
#[proc_macro_attribute]
pub fn discover(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(parse::Kind::Discover, attr.into(), item.into()).into()
}

/// Lets relation discovery reason about a struct: its values are compared whole, a vector of
/// them is a list whose order and length discovery moves, and where it is the receiver of a
/// method under `#[invite::discover]`, each field is moved as a parameter of its own.
///
/// ```ignore
/// #[derive(Clone, PartialEq, invite::Discoverable)]
/// struct Knn { rows: Vec<Row>, k: usize }
/// ```
///
/// Every field's type must be discoverable itself. Relations that move a field are written
/// `Self { rows: invite::mr::permute(&self.rows), ..self.clone() }.predict(q) == result`, so
/// the struct needs `Clone` where such a relation is pasted.
#[proc_macro_derive(Discoverable)]
pub fn derive_discoverable(item: TokenStream) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(item) {
        Ok(input) => derive::discoverable(input)
            .unwrap_or_else(syn::Error::into_compile_error)
            .into(),
        Err(e) => e.into_compile_error().into(),
    }
}

/// Builds wrong versions of a free function (or an inherent associated one, or a method that
/// takes `&self`; not a trait impl's, beside which no other item may stand), for relation
/// discovery to judge its relations by: each is the body with one comparison's boundary or
/// sense, one `&&`/`||`, or one literal changed (at most 16, spread over the body). The
/// function itself is left as written. A method's versions take the receiver first
/// (`fn(&Self, ...)`), and read it wherever the body reads `self`.
///
/// ```ignore
/// #[invite::mutants]
/// fn clamp_to_byte(x: i32) -> u8 { if x < 0 { 0 } else if x > 255 { 255 } else { x as u8 } }
///
/// let found = Discovery::new("fn clamp_to_byte(x: i32) -> u8", clamp_to_byte)?
///     .mutants(invite::mutants_of!(clamp_to_byte))
///     .inputs(-300..300)
///     .run();
/// ```
///
/// Only changes that keep the types are made, a changed literal passes through `black_box`
/// (no lint reads it as a constant), and nothing is changed inside `while`, `loop`, an
/// iterator without end or an `unsafe` block. Each version copies the body, so a body that
/// calls a macro that might define an item (any but the standard library's and the logging
/// facades'), a method that takes `self` otherwise than as `&self`, an `async` or `unsafe fn`,
/// an `impl Trait` parameter and a result that borrows are refused. Put it above
/// `#[invite::discover]` or `#[invite::metamorphic]`.
#[proc_macro_attribute]
pub fn mutants(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    match mutate::expand(attr.into(), item.clone()) {
        Ok(tokens) => tokens.into(),
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            out.into()
        }
    }
}

/// The wrong versions `#[invite::mutants]` built of a function, named by its path:
/// `invite::mutants_of!(stats::median)`, a `Vec<(&str, fn(...) -> ...)>`.
#[proc_macro]
pub fn mutants_of(input: TokenStream) -> TokenStream {
    mutate::of(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Tells the wrapped methods of an `impl` or `trait` block which block they are in.
///
/// ```ignore
/// #[invite::sites]
/// impl Model for Knn {
///     #[invite::metamorphic(self.predict(&reverse(q)) == result)]
///     fn predict(&self, q: &[f64]) -> f64 { /* ... */ }
/// }
/// ```
///
/// A method alone does not know its block. Without this attribute it is called through
/// `Self` and named at its first call, which serves every method but two: a trait impl's
/// method whose type also has an inherent method of the same name (its site says so at its
/// first call and is not tested), and an associated function that neither takes `self` nor
/// names `Self` in its signature, body or relations (a compile error that says to call it
/// through `Self`).
#[proc_macro_attribute]
pub fn sites(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    match enclosing::expand_sites(attr.into(), item.clone()) {
        Ok(tokens) => tokens.into(),
        // The block as it was, so that one mistake gives one error.
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            out.into()
        }
    }
}

/// What `#[invite::sites]` hands each wrapped method; read by the method's own attribute,
/// which removes it. Left alone (the method's attribute failed first), it changes nothing.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn __block(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
