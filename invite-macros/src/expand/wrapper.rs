//! The function as it comes out: its signature, then (before the body as written) the
//! statements that register its site, decide whether this call is sampled and, on a sampled
//! call, fork a run whose child captures the inputs and runs each test. Without the `enabled`
//! feature the same tests are written into a branch that never runs, so that they are still
//! type-checked.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{FnArg, ItemFn, Pat};

use super::arms::{in_vivo_arm, metamorphic_test_arm, relation_arm, statistical_arm};
use super::discover::discover_arm;
use super::pure::{no_worker, pure_body, Mode};
use super::shape::{plain_name, Receiver, Shape};
use super::site::{place, site_static};
use crate::parse::{Args, Test};

pub(super) fn generate(func: &ItemFn, shape: &Shape, args: &Args) -> TokenStream {
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
        ..
    } = func;
    // Inner attributes of the body (`#![allow(...)]`) must open the new body.
    let (inner, outer): (Vec<_>, Vec<_>) = attrs
        .iter()
        .partition(|a| matches!(a.style, syn::AttrStyle::Inner(_)));
    let (sig, rebinds) = named_signature(sig, shape);
    let stmts = &block.stmts;
    // A site the worker could test gets the worker's path: `pure` takes it by default, and
    // `isolation = "worker"` in `invite.toml` may send any other there.
    if cfg!(feature = "enabled") && no_worker(shape, args).is_empty() {
        let mode = if args.pure.is_some() {
            Mode::Declared
        } else {
            Mode::IfAble
        };
        let site = site_static(shape, args);
        let child = child_branch(shape, args);
        let body = quote!(#(#rebinds)* #(#stmts)*);
        let pure = pure_body(
            mode,
            shape,
            sample_call(shape, args),
            unseen_check(shape, args),
            &child,
            body,
        );
        return quote! {
            #(#outer)*
            #vis #sig {
                #(#inner)*
                #site
                #pure
            }
        };
    }
    let instrumentation = if cfg!(feature = "enabled") {
        sampling(shape, args)
    } else {
        type_check(shape, args)
    };
    // The body's statements join the new body rather than nest in it as a block: a nested
    // one-expression block would draw `unused_braces`.
    quote! {
        #(#outer)*
        #vis #sig {
            #(#inner)*
            #instrumentation
            #(#rebinds)*
            #(#stmts)*
        }
    }
}

/// The signature with each parameter that is not a plain name bound to the name `shape_of`
/// chose, and the statements that bind the patterns as written at the start of the body.
fn named_signature(sig: &syn::Signature, shape: &Shape) -> (syn::Signature, Vec<TokenStream>) {
    let mut named = sig.clone();
    let mut rebinds = Vec::new();
    let mut params = shape.params.iter();
    for input in named.inputs.iter_mut() {
        if let FnArg::Typed(t) = input {
            let ident = params
                .next()
                .expect("one param per typed input")
                .ident
                .clone();
            if plain_name(&t.pat).is_none() {
                let pat = &t.pat;
                rebinds.push(quote!(let #pat = #ident;));
                *t.pat = Pat::Ident(syn::PatIdent {
                    attrs: Vec::new(),
                    by_ref: None,
                    mutability: None,
                    ident,
                    subpat: None,
                });
            }
        }
    }
    (named, rebinds)
}

/// With the `enabled` feature: the site, and on a sampled call (out of line) the caps' say and
/// the fork. The body runs next, whatever became of the tests.
fn sampling(shape: &Shape, args: &Args) -> TokenStream {
    let site = site_static(shape, args);
    let child = child_branch(shape, args);
    let unseen = unseen_check(shape, args);
    let sample = sample_call(shape, args);
    let safe = user_code_is_safe(shape);
    quote! {
        #site
        #safe
        let () = if let ::core::option::Option::Some(__invite_sampled) = #sample {
            // Out of line, so that the unsampled path keeps a small frame.
            ::invite::__private::cold_path(|| {
                #unseen
                if let ::core::option::Option::Some(__invite_permit) = __invite_sampled.admit() {
                    ::invite::__private::fork_run(__invite_permit, |__invite_run| {
                        #child
                    });
                }
            });
        };
    }
}

/// In an `unsafe fn`, the attribute's code sits in the function's body, where (before edition
/// 2024) an unsafe operation needs no `unsafe` block. The user's relations, guards and state
/// expressions must say `unsafe` themselves, as anywhere else in Rust: the lint that asks for
/// it is made an error over the statement that holds them.
pub(super) fn user_code_is_safe(shape: &Shape) -> TokenStream {
    if shape.is_unsafe {
        quote!(#[deny(unsafe_op_in_unsafe_fn)])
    } else {
        TokenStream::new()
    }
}

/// The per-call decision of the site.
fn sample_call(shape: &Shape, args: &Args) -> TokenStream {
    let place = place(shape, args);
    quote!(::invite::__private::Site::sample(
        &__INVITE_SITE,
        &__INVITE_LOCAL,
        #place,
    ))
}

/// Without the `enabled` feature: the tests' code in a branch that never runs, so that
/// relations are type-checked as with the feature and the helpers they use count as used. The
/// compiler drops the branch; no site is registered.
fn type_check(shape: &Shape, args: &Args) -> TokenStream {
    let child = child_branch(shape, args);
    let state = &args.state;
    let travels = if args.pure.is_some() {
        super::pure::travel_checks(shape)
    } else {
        TokenStream::new()
    };
    let safe = user_code_is_safe(shape);
    // The function's place too, so that a path its tests could not call it through is the same
    // compile error with the feature and without.
    let place = place(shape, args);
    quote! {
        #travels
        #safe
        let () = if false {
            #( let _ = &#state; )*
            let _: fn() -> ::invite::__private::Place = #place;
            ::invite::__private::type_check_only(|__invite_run| { #child });
        };
    }
}

/// With `dedup = true`: hash the arguments (and declared state) and drop a sampled call whose
/// state was tested before. Types that are `Hash` hash as such; floating point numbers and
/// containers of them hash by value.
fn unseen_check(shape: &Shape, args: &Args) -> TokenStream {
    if args.dedup != Some(true) {
        return TokenStream::new();
    }
    let feeds = shape
        .params
        .iter()
        .map(|p| {
            let ident = &p.ident;
            quote!(#ident)
        })
        .chain(args.state.iter().map(|e| quote!(#e)))
        .map(|value| quote!((&&::invite::__private::HashProbe(&#value)).invite_hash(__invite_h);));
    quote! {
        #[allow(unused_imports)]
        use ::invite::__private::{ViaHash as _, ViaStateHash as _};
        let ::core::option::Option::Some(__invite_sampled) = __invite_sampled.unseen(|| {
            ::invite::__private::state_hash(|__invite_h| { #(#feeds)* })
        }) else {
            // The sampled branch's closure gives `()` or, on a worker's site, no queued call.
            return ::core::default::Default::default();
        };
    }
}

/// The exact forms of the inputs, for regression tests (see the runtime's `record::Exact`):
/// each argument's bytes where its type travels to the worker (a slice as a `Vec`, a `str` as
/// a `String`), the receiver's with its type's name; added to the captured inputs under names
/// no parameter has.
fn exact_inputs(shape: &Shape) -> TokenStream {
    let mut forms = Vec::new();
    let this = &shape.self_tok;
    let passing = match (&shape.receiver_ty, shape.receiver) {
        (None, Receiver::Ref) => Some("&"),
        (None, Receiver::RefMut) => Some("&mut "),
        (None, Receiver::Value) => Some(""),
        _ => None,
    };
    let receiver = match passing {
        Some(p) => {
            let value = if p.is_empty() {
                quote!(&#this)
            } else {
                quote!(&*#this)
            };
            forms.push(form(
                "self",
                quote!(::invite::__private::ExactProbe(#value)),
            ));
            quote!(::core::option::Option::Some(#p))
        }
        None => quote!(::core::option::Option::None),
    };
    for p in &shape.params {
        let ident = &p.ident;
        let referent = match &p.ty_tokens {
            syn::Type::Reference(r) => Some(&*r.elem),
            _ => None,
        };
        let probe = match referent {
            Some(syn::Type::Slice(_)) => quote!(::invite::__private::ExactItems(&#ident[..])),
            Some(syn::Type::Path(t)) if t.qself.is_none() && t.path.is_ident("str") => {
                quote!(::invite::__private::ExactProbe(&::std::string::ToString::to_string(&*#ident)))
            }
            Some(_) => quote!(::invite::__private::ExactProbe(&*#ident)),
            None => quote!(::invite::__private::ExactProbe(&#ident)),
        };
        forms.push(form(&ident.to_string(), probe));
    }
    quote! {
        __invite_inputs.extend(::invite::__private::capture_exact(#receiver, || {
            #[allow(unused_imports)]
            use ::invite::__private::{ExactSerde as _, ExactTravel as _, NoExact as _};
            ::std::vec![#(#forms),*]
        }));
    }
}

/// One argument's exact form, under the names `record::Exact::split` reads.
fn form(name: &str, probe: TokenStream) -> TokenStream {
    let value = format!("\u{0}exact {name}");
    let ty = format!("\u{0}type {name}");
    quote!((#value, #ty, (&&#probe).invite_exact()))
}

/// The code of the child: capture the inputs, then hand every test to the run.
fn child_branch(shape: &Shape, args: &Args) -> TokenStream {
    let mut inputs = Vec::new();
    if shape.receiver != Receiver::None {
        let this = &shape.self_tok;
        inputs.push(quote!((
            "self",
            (&&::invite::__private::DebugProbe(&#this)).invite_debug()
        )));
    }
    for p in &shape.params {
        let ident = &p.ident;
        let label = ident.to_string();
        inputs.push(quote!((#label, (&&::invite::__private::DebugProbe(&#ident)).invite_debug())));
    }
    let exact = exact_inputs(shape);
    // The statistical relations share the site's false-alarm rate (Bonferroni).
    let checks = args
        .tests
        .iter()
        .filter(|t| matches!(t, Test::Relation(r) if r.statistical.is_some()))
        .count();
    let arms = args.tests.iter().enumerate().map(|(i, t)| {
        let body = match t {
            Test::Relation(r) if r.statistical.is_some() => statistical_arm(shape, r, checks),
            Test::Relation(r) => relation_arm(shape, r),
            Test::Metamorphic(tf) => metamorphic_test_arm(shape, &tf.path),
            Test::InVivo(tf) => in_vivo_arm(shape, &tf.path),
            Test::Discover(_) => discover_arm(shape),
        };
        quote!(#i => #body)
    });
    quote! {
        #[allow(unused_imports)]
        use ::invite::__private::{
            ApproxCompare as _, HasDebug as _, Incomparable as _, NoDebug as _, NotFuture as _,
            StdEq as _, StdOrd as _, ViaFuture as _,
        };
        let mut __invite_inputs =
            ::invite::__private::capture_inputs(|| ::std::vec![#(#inputs),*]);
        #exact
        __invite_run.run(
            __invite_inputs,
            &mut |__invite_t: &mut ::invite::__private::TestCtx| {
                #[allow(unreachable_code, clippy::diverging_sub_expression, clippy::unit_arg)]
                match __invite_t.index() {
                    #(#arms,)*
                    _ => {}
                }
            },
        )
    }
}
