//! Turns parsed arguments plus the function into tokens. Nothing here parses attributes.
//!
//! A wrapped function stays one item with its signature and body as written: the sampling
//! decision, and on a sampled call the fork and the tests, are statements put before the body.
//! Nothing is added beside the function, so the attributes work where no sibling item may
//! stand (a trait impl) and a signature survives whole (`Self`, generics, lifetimes, `async`,
//! receivers). A relation's follow-up execution calls the function itself: inside a test
//! process instrumentation is off, so the call runs the body alone.
//!
//! Hygiene: every local the expansion introduces is named `__invite_*` and, in a last pass,
//! given a mixed-site span, so that user code can neither see nor shadow it wherever the
//! function comes from (a `macro_rules!` body, another macro's output). The relation's `result`
//! is renamed to such a local; `self` is written with the signature's own token.
//!
//! This file is the entry point and the order of the steps; each step has a room of its own:
//! `shape` reads the function, `checks` refuses what cannot be instrumented, `result` renames a
//! relation's `result`, `wrapper` writes the new body and `site` its site, `arms` the code of
//! each test in the child, `execution` and `follow_ups` the calls of the function those tests
//! make, and `discover` the observation of a function under relation discovery.

mod arms;
mod checks;
mod discover;
mod execution;
mod follow_ups;
mod pure;
mod result;
mod shape;
mod site;
mod wrapper;

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::quote;
use syn::spanned::Spanned;
use syn::ItemFn;

use self::checks::{check_awaits, check_names, check_signature, check_unsafe};
use self::discover::{check_discoverable, signature_text};
use self::result::{rename_result, RESULT};
use self::shape::shape_of;
use self::wrapper::generate;
use crate::enclosing::Enclosing;
use crate::parse::{Args, Kind, Test};

pub fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(kind, attr, item.clone()) {
        Ok(tokens) => respan_locals(tokens),
        // Keep the function so that one mistake gives one error, not a cascade.
        Err(e) => {
            let err = e.to_compile_error();
            quote!(#err #item)
        }
    }
}

fn try_expand(kind: Kind, attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut func = parse_function(kind, item)?;
    check_signature(kind, &func)?;
    let mut args = Args::default();
    args.add(kind, attr)?;
    // Stacked invite attributes share one expansion, so one fork serves every test of a call.
    let mut kept = Vec::new();
    let mut block = None;
    for a in std::mem::take(&mut func.attrs) {
        if crate::enclosing::is_hidden(&a) {
            block = Some(a.parse_args::<Enclosing>()?);
            continue;
        }
        if is_mutants(&a) {
            return Err(syn::Error::new(
                a.span(),
                format!(
                    "#[invite::mutants] would copy the body {} instruments: put it above \
                     {}, so that its versions are of the function as written",
                    kind.attr(),
                    kind.attr()
                ),
            ));
        }
        match invite_attr_kind(&a) {
            Some(other) => {
                let tokens = match &a.meta {
                    syn::Meta::List(l) => l.tokens.clone(),
                    _ => TokenStream::new(),
                };
                args.add(other, tokens)?;
            }
            None => kept.push(a),
        }
    }
    func.attrs = kept;
    let mut shape = shape_of(&func, &args, block)?;
    if let (Some(token), Some(Enclosing::Trait { name })) = (&func.sig.asyncness, &shape.enclosing)
    {
        return Err(syn::Error::new(
            token.span(),
            format!(
                "{} cannot wrap an `async fn` default method of `{name}`: its tests call it, and \
                 rustc cannot infer the trait's future type from a body that uses it; put the \
                 attribute on the method in the trait's `impl` blocks, or on an `async fn` \
                 this one awaits",
                kind.attr()
            ),
        ));
    }
    check_names(&func, &shape, &args)?;
    check_unsafe(kind, &func, &shape, &args)?;
    self::pure::check_pure(&shape, &args)?;
    check_awaits(&shape, &args)?;
    if args.mutants.is_some() && !args.tests.iter().any(|t| matches!(t, Test::Discover(_))) {
        return Err(syn::Error::new(
            func.sig.ident.span(),
            "`mutants` is an option of relation discovery: write it in #[invite::discover(...)], \
             or beside `discover = true`",
        ));
    }
    if args.tests.iter().any(|t| matches!(t, Test::Discover(_))) {
        check_discoverable(&func, &shape)?;
        args.name_discovery(&signature_text(&shape));
        // Wrong versions of a free function, run beside it where asked, to judge relations
        // by.
        if args.mutants == Some(true) {
            shape.mutants = Some(crate::mutate::listed(&func, crate::mutate::BY_DISCOVERY)?);
        }
    }
    rename_result(&mut args);
    Ok(generate(&func, &shape, &args))
}

/// The function, or an error that says where the attribute goes.
fn parse_function(kind: Kind, item: TokenStream) -> syn::Result<ItemFn> {
    match syn::parse2::<ItemFn>(item.clone()) {
        Ok(f) => Ok(f),
        Err(e) => match syn::parse2::<syn::TraitItemFn>(item) {
            Ok(t) if t.default.is_none() => Err(syn::Error::new(
                t.sig.ident.span(),
                format!(
                    "{} goes on a function with a body, and a trait's required method has none: \
                     put it on the method in the trait's `impl` blocks, or on a default method",
                    kind.attr()
                ),
            )),
            _ => Err(syn::Error::new(
                e.span(),
                format!("{} goes on a function or method", kind.attr()),
            )),
        },
    }
}

/// Gives every `__invite_*` identifier a mixed-site span at its own place: locals of the
/// expansion resolve among themselves, never to or from the user's names.
fn respan_locals(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(i) if i.to_string().starts_with("__invite_") && i != RESULT => {
                let mut i = i;
                i.set_span(Span::mixed_site().located_at(i.span()));
                TokenTree::Ident(i)
            }
            TokenTree::Group(g) => {
                let mut out = Group::new(g.delimiter(), respan_locals(g.stream()));
                out.set_span(g.span());
                TokenTree::Group(out)
            }
            other => other,
        })
        .collect()
}

/// An attribute's path, segment by segment (`invite::metamorphic` is two).
pub(crate) fn attr_path(a: &syn::Attribute) -> Vec<String> {
    a.path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect()
}

/// The name of an attribute that may be invite's: `#[invite::name]`, or `#[name]` imported.
fn invite_attr_name(a: &syn::Attribute) -> Option<String> {
    match attr_path(a).as_slice() {
        [one] => Some(one.clone()),
        [first, last] if first == "invite" => Some(last.clone()),
        _ => None,
    }
}

/// Whether `a` is `#[invite::mutants]` (or `#[mutants]`, imported).
fn is_mutants(a: &syn::Attribute) -> bool {
    invite_attr_name(a).is_some_and(|n| n == "mutants")
}

pub(crate) fn invite_attr_kind(a: &syn::Attribute) -> Option<Kind> {
    match invite_attr_name(a)?.as_str() {
        "metamorphic" => Some(Kind::Metamorphic),
        "in_vivo" => Some(Kind::InVivo),
        "discover" => Some(Kind::Discover),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locals_of_the_expansion_get_mixed_site_spans_and_nothing_else_changes() {
        let out = respan_locals(quote!(let __invite_t = x; { __invite_a0 } result));
        assert_eq!(
            out.to_string(),
            "let __invite_t = x ; { __invite_a0 } result"
        );
    }

    #[test]
    fn an_attribute_is_invite_s_by_its_name_alone_or_under_invite() {
        let attr = |tokens: TokenStream| -> syn::Attribute { syn::parse_quote!(#[#tokens]) };
        assert!(matches!(
            invite_attr_kind(&attr(quote!(invite::discover))),
            Some(Kind::Discover)
        ));
        assert!(matches!(
            invite_attr_kind(&attr(quote!(in_vivo))),
            Some(Kind::InVivo)
        ));
        assert!(invite_attr_kind(&attr(quote!(other::discover))).is_none());
        assert!(invite_attr_kind(&attr(quote!(invite::mutants))).is_none());
        assert!(is_mutants(&attr(quote!(invite::mutants))));
        assert!(is_mutants(&attr(quote!(mutants))));
        assert!(!is_mutants(&attr(quote!(other::mutants))));
        assert!(!is_mutants(&attr(quote!(invite::discover))));
        assert!(!is_mutants(&attr(quote!(a::b::mutants))));
    }
}
