//! A `pure` site: on a sampled call the caller copies its arguments and, once the body has run,
//! its result into the worker's ring instead of forking; the *runner* written here reads them
//! back in the worker, checks that the function gives the caller's result on the copy, and
//! runs the tests on it. Where the worker is not available (or the site was moved back), the
//! call forks as any other.
//!
//! What can travel is decided by the types: `&[T]` travels as `Vec<T>`, `&str` as `String`,
//! `&T` and `T` as `T`, each by `invite::Travel` (or serde, with invite's `serde` feature).
//! What cannot be pure (a receiver, a `&mut` argument, `impl Trait`, an `async` or `unsafe`
//! function, In Vivo tests, a borrowed result) is refused here, on the offending token.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Type, TypeReference};

use super::execution::source_run;
use super::shape::{Passing, Receiver, Shape};
use crate::parse::{Args, Test};

/// Why the worker cannot test a function's calls: where, what `pure` says of it (an error),
/// and the short reason `invite.toml`'s `isolation = "worker"` is told at run time.
struct Refusal {
    span: proc_macro2::Span,
    error: String,
    reason: String,
}

fn refusal(span: proc_macro2::Span, error: &str, reason: impl Into<String>) -> Option<Refusal> {
    Some(Refusal {
        span,
        error: format!("`pure` {error}"),
        reason: reason.into(),
    })
}

/// Why the worker could not test the function, if it could not; `word` is where an error
/// that belongs to no token goes.
fn worker_refusal(shape: &Shape, args: &Args, word: proc_macro2::Span) -> Option<Refusal> {
    if shape.receiver != Receiver::None {
        return refusal(
            shape.receiver_span,
            "takes functions whose result depends on their arguments alone, and a method reads \
             its receiver: put the relations on a free or associated function without `self`, or \
             drop `pure` so that the site forks",
            "it is a method, and a method reads its receiver",
        );
    }
    if shape.is_async {
        return refusal(
            word,
            "does not take an `async fn`: its tests need the program's executor; drop `pure`",
            "it is an `async fn`",
        );
    }
    if shape.is_unsafe {
        return refusal(
            word,
            "does not take an `unsafe fn`; drop `pure`",
            "it is an `unsafe fn`",
        );
    }
    for t in &args.tests {
        let (why, fix) = match t {
            Test::InVivo(_) => (
                "In Vivo tests, which act on the live state",
                "drop `pure`, or move the other tests",
            ),
            // Observations are records of up to a MiB, made on the fork path only.
            Test::Discover(_) => (
                "relation discovery",
                "discover first, without `pure` (a development run), then write the relations \
                 `invite discover` proposes into `#[invite::metamorphic(pure, ...)]` and drop \
                 `discover = true`",
            ),
            _ => continue,
        };
        return refusal(
            word,
            &format!("cannot go with {why}: {fix}"),
            format!("it has {why}"),
        );
    }
    if let Some(e) = args.state.first() {
        return refusal(
            e.span(),
            "cannot go with `state = ...`: a pure function has no state beyond its arguments",
            "it declares `state = ...`",
        );
    }
    for p in &shape.params {
        let name = &p.ident;
        if p.passing == Passing::Mut {
            return refusal(
                p.ty_tokens.span(),
                &format!(
                    "takes values and shared references: parameter `{name}` is `&mut`, and what \
                     the function changes there is not its result; drop `pure`"
                ),
                format!("its parameter `{name}` is `&mut`"),
            );
        }
        if has_impl_trait(&p.ty_tokens) {
            return refusal(
                p.ty_tokens.span(),
                &format!(
                    "needs types that can be named: parameter `{name}` is `impl Trait`; use a \
                     generic parameter bounded by `invite::Travel`, or drop `pure`"
                ),
                format!("its parameter `{name}` is `impl Trait`"),
            );
        }
    }
    if let Some(out) = &shape.output {
        if has_impl_trait(out) {
            return refusal(
                out.span(),
                "needs a result type that can be named, not `impl Trait`; drop `pure`",
                "its result is `impl Trait`",
            );
        }
        if matches!(out, Type::Reference(_)) {
            return refusal(
                out.span(),
                "needs an owned result (the worker compares its own with the caller's): return \
                 a value, or drop `pure`",
                "its result is borrowed",
            );
        }
        if matches!(out, Type::Never(_)) {
            return refusal(
                out.span(),
                "needs a function that returns; drop `pure`",
                "it never returns",
            );
        }
    }
    None
}

/// Refuses `pure` where the worker could not test the function.
pub(super) fn check_pure(shape: &Shape, args: &Args) -> syn::Result<()> {
    let Some(word) = args.pure else {
        return Ok(());
    };
    match worker_refusal(shape, args, word) {
        Some(r) => Err(syn::Error::new(r.span, r.error)),
        None => Ok(()),
    }
}

/// Why the worker cannot test the site, for its `SiteMeta` (empty: the attribute writes the
/// worker's path, which `pure` or `isolation = "worker"` in `invite.toml` takes).
pub(super) fn no_worker(shape: &Shape, args: &Args) -> String {
    if args.pure_off {
        return "it is compiled `pure = false`".to_owned();
    }
    if let Some(r) = worker_refusal(shape, args, proc_macro2::Span::call_site()) {
        return r.reason;
    }
    if args.pure.is_none() {
        if let Some(why) = unsure_copy(shape) {
            return why;
        }
    }
    String::new()
}

/// Of a site not declared `pure`, a shape whose copy in the worker might not compile, which
/// only `pure` (whose errors the user then sees) may take: a lifetime the call fixes
/// (`&'static str`, a lifetime of the function or its impl, a `for<'a>` type), or a reference
/// to a type that may be unsized (`&Path`, `&dyn Trait`, `&Self`, `&T` with `T: ?Sized`),
/// which the worker cannot own a copy of. A type it knows is sized, or a slice or `str`, is
/// fine.
fn unsure_copy(shape: &Shape) -> Option<String> {
    if shape.lifetime_params {
        return Some("it has lifetime parameters, which its call may fix".to_owned());
    }
    let names_lifetime = |ty: &Type| {
        struct Find(bool);
        impl syn::visit::Visit<'_> for Find {
            fn visit_lifetime(&mut self, l: &syn::Lifetime) {
                self.0 |= l.ident != "_";
            }
            fn visit_bound_lifetimes(&mut self, _: &syn::BoundLifetimes) {
                self.0 = true;
            }
        }
        let mut f = Find(false);
        syn::visit::Visit::visit_type(&mut f, ty);
        f.0
    };
    if let Some(out) = &shape.output {
        if names_lifetime(out) {
            return Some("its result names a lifetime".to_owned());
        }
    }
    for p in &shape.params {
        let name = &p.ident;
        if names_lifetime(&p.ty_tokens) {
            return Some(format!("its parameter `{name}` names a lifetime"));
        }
        if let Type::Reference(r) = &p.ty_tokens {
            if !surely_sized_referent(&r.elem, shape) {
                return Some(format!(
                    "its parameter `{name}` is a reference to `{}`, of which the worker cannot \
                     be sure to own a copy: declare the site `pure` (its types must then \
                     travel), or take it by value",
                    crate::text::source_text(&r.elem.to_token_stream())
                ));
            }
        }
    }
    None
}

/// Whether the worker can own a copy of what a `&` parameter points at: a slice or `str`
/// (copied as a `Vec` or a `String`), or a type known to be sized.
fn surely_sized_referent(ty: &Type, shape: &Shape) -> bool {
    const SIZED: [&str; 26] = [
        "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
        "f32", "f64", "bool", "char", "String", "Vec", "VecDeque", "Option", "Result", "Box",
        "HashMap", "BTreeMap", "HashSet", "BTreeSet",
    ];
    match ty {
        Type::Slice(_) | Type::Array(_) | Type::Tuple(_) => true,
        Type::Paren(p) => surely_sized_referent(&p.elem, shape),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let ident = last.ident.to_string();
            ident == "str"
                || SIZED.contains(&ident.as_str())
                || (p.path.segments.len() == 1
                    && ident != "Self"
                    && shape.type_params.contains(&last.ident)
                    && !shape.maybe_unsized.contains(&last.ident))
        }
        _ => false,
    }
}

fn has_impl_trait(ty: &Type) -> bool {
    struct Find(bool);
    impl syn::visit::Visit<'_> for Find {
        fn visit_type_impl_trait(&mut self, _: &syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut f = Find(false);
    syn::visit::Visit::visit_type(&mut f, ty);
    f.0
}

/// A type with every named lifetime made `'_`: inside the runner the function's lifetimes
/// name nothing (the values are the runner's own).
fn anonymous_lifetimes(ty: &Type) -> Type {
    struct Erase;
    impl VisitMut for Erase {
        fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
            if l.ident != "static" {
                *l = syn::Lifetime::new("'_", l.span());
            }
        }
    }
    let mut ty = ty.clone();
    Erase.visit_type_mut(&mut ty);
    ty
}

/// How a site's values cross: written by `invite::Travel` alone (`pure`, without invite's
/// `serde` feature: a type that cannot travel is an error on it), by method resolution
/// between `Travel` and serde (`pure` with the feature), or by resolution with a last resort
/// that copies nothing (a site only `invite.toml` may send to the worker: a type that cannot
/// travel makes its calls fork, said at run time).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Declared,
    IfAble,
}

impl Mode {
    fn by_resolution(self) -> bool {
        self == Mode::IfAble || cfg!(feature = "serde")
    }

    /// The traits method resolution chooses from.
    fn imports(self) -> TokenStream {
        let last = if self == Mode::IfAble {
            quote!(CannotTravel as _,)
        } else {
            TokenStream::new()
        };
        quote! {
            #[allow(unused_imports)]
            use ::invite::__private::{#last ViaSerde as _, ViaTravel as _};
        }
    }
}

/// How one parameter crosses: the caller's statement that writes it, the runner's that read
/// it back and bind it under its own name, and the type whose `Travel` decides whether it can.
struct Crossing {
    put: TokenStream,
    take: TokenStream,
    carried: Option<Type>,
}

/// Writes `value` (a reference to a `ty`) into `__invite_out`. Spanned on the type, so that a
/// type that cannot travel gets one error there, in terms of `invite::Travel`.
fn put_value(mode: Mode, ty: &Type, value: TokenStream) -> TokenStream {
    if mode.by_resolution() {
        quote_spanned!(ty.span()=> (&&::invite::__private::Carry::<#ty>::new()).invite_put(#value, __invite_out);)
    } else {
        quote_spanned!(ty.span()=> <#ty as ::invite::Travel>::put(#value, __invite_out);)
    }
}

/// Reads a `ty` back from `__invite_in`, as [`put_value`] wrote it: an `Option`.
fn take_value(mode: Mode, ty: &Type) -> TokenStream {
    if mode.by_resolution() {
        quote_spanned!(ty.span()=> (&&::invite::__private::Carry::<#ty>::new()).invite_take(__invite_in))
    } else {
        quote_spanned!(ty.span()=> <#ty as ::invite::Travel>::take(__invite_in))
    }
}

fn crossing(mode: Mode, ident: &syn::Ident, ty: &Type, by_value: bool, k: usize) -> Crossing {
    let held = format_ident!("__invite_held{}", k);
    let garbled = quote!(return __invite_run.garbled(););
    if !by_value {
        if let Type::Reference(TypeReference { elem, .. }) = ty {
            let elem = anonymous_lifetimes(elem);
            match &elem {
                Type::Slice(s) => {
                    let item = &s.elem;
                    let vec: Type = syn::parse_quote!(::std::vec::Vec<#item>);
                    let put = if mode.by_resolution() {
                        quote_spanned!(item.span()=>
                            (&&::invite::__private::Carry::<#item>::new())
                                .invite_put_items(#ident, __invite_out);
                        )
                    } else {
                        quote_spanned!(item.span()=>
                            <u64 as ::invite::Travel>::put(&(#ident.len() as u64), __invite_out);
                            <#item as ::invite::Travel>::put_items(#ident, __invite_out);
                        )
                    };
                    let take = take_value(mode, &vec);
                    return Crossing {
                        put,
                        take: quote! {
                            let ::core::option::Option::Some(#held) = #take else { #garbled };
                            let #ident: &[#item] = &#held[..];
                        },
                        carried: Some((**item).clone()),
                    };
                }
                Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
                    return Crossing {
                        put: quote! {
                            <u64 as ::invite::Travel>::put(&(#ident.len() as u64), __invite_out);
                            __invite_out.extend_from_slice(#ident.as_bytes());
                        },
                        take: quote! {
                            let ::core::option::Option::Some(#held) =
                                <::std::string::String as ::invite::Travel>::take(__invite_in)
                            else { #garbled };
                            let #ident: &str = #held.as_str();
                        },
                        carried: None,
                    };
                }
                _ => {
                    let take = take_value(mode, &elem);
                    return Crossing {
                        put: put_value(mode, &elem, quote!(#ident)),
                        take: quote! {
                            let ::core::option::Option::Some(#held) = #take else { #garbled };
                            let #ident: &#elem = &#held;
                        },
                        carried: Some(elem.clone()),
                    };
                }
            }
        }
    }
    let ty = anonymous_lifetimes(ty);
    let take = take_value(mode, &ty);
    Crossing {
        put: put_value(mode, &ty, quote!(&#ident)),
        take: quote! {
            let ::core::option::Option::Some(#held) = #take else { #garbled };
            let #ident: #ty = #held;
        },
        carried: Some(ty),
    }
}

fn crossings(mode: Mode, shape: &Shape) -> Vec<Crossing> {
    shape
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| crossing(mode, &p.ident, &p.ty_tokens, p.passing == Passing::Value, k))
        .collect()
}

/// The result's type (`()` without one).
fn result_type(shape: &Shape) -> Type {
    match &shape.output {
        Some(t) => anonymous_lifetimes(t),
        None => syn::parse_quote!(()),
    }
}

/// Without the `enabled` feature: the copies a pure site's calls would make, in a branch that
/// never runs, so that a type that cannot travel is refused as with the feature.
pub(super) fn travel_checks(shape: &Shape) -> TokenStream {
    let puts = crossings(Mode::Declared, shape).into_iter().map(|c| c.put);
    let take_result = take_value(Mode::Declared, &result_type(shape));
    let imports = Mode::Declared.imports();
    quote! {
        if false {
            #imports
            let __invite_out: &mut ::std::vec::Vec<u8> = &mut ::std::vec::Vec::new();
            #(#puts)*
            let __invite_in: &mut &[u8] = &mut &[][..];
            let _ = #take_result;
        }
    }
}

/// Whether `ty` names one of `params` (a type parameter of the function).
fn names_any(ty: &Type, params: &[syn::Ident]) -> bool {
    struct Find<'a>(&'a [syn::Ident], bool);
    impl syn::visit::Visit<'_> for Find<'_> {
        fn visit_path(&mut self, p: &syn::Path) {
            if p.segments
                .first()
                .is_some_and(|s| self.0.contains(&s.ident))
            {
                self.1 = true;
            }
            syn::visit::visit_path(self, p);
        }
    }
    let mut f = Find(params, false);
    syn::visit::Visit::visit_type(&mut f, ty);
    f.1
}

/// The first of the site's parameters and result whose type cannot travel, as an
/// `Option<Untravelled>`: always `None` for a site declared `pure` (which refuses such types
/// at compile time).
fn untravelled(mode: Mode, shape: &Shape, crossings: &[Crossing], ret: &Type) -> TokenStream {
    if mode == Mode::Declared {
        return quote!(::core::option::Option::None);
    }
    let named = shape.params.iter().zip(crossings).filter_map(|(p, c)| {
        let what = format!("its parameter `{}: {}`", p.ident, p.ty);
        let generic = names_any(&p.ty_tokens, &shape.type_params);
        c.carried.as_ref().map(|t| (what, t.clone(), generic))
    });
    let result = (
        format!(
            "its result `{}`",
            crate::text::source_text(&ret.to_token_stream())
        ),
        ret.clone(),
        names_any(ret, &shape.type_params),
    );
    let checks = named
        .chain(std::iter::once(result))
        .map(|(what, ty, generic)| {
            quote! {
                if let ::core::option::Option::Some(__invite_ty) =
                    (&&::invite::__private::Carry::<#ty>::new()).invite_untravelled()
                {
                    break 'untravelled ::core::option::Option::Some(
                        ::invite::__private::Untravelled {
                            what: #what,
                            ty: __invite_ty,
                            generic: #generic,
                        },
                    );
                }
            }
        });
    let imports = mode.imports();
    quote! {
        'untravelled: {
            #imports
            #(#checks)*
            ::core::option::Option::None
        }
    }
}

/// The sampled branch and the body of a site the worker may test: `sample` decides, `unseen`
/// may drop the call, `child` is the forked run's code (used when the call forks), `body` the
/// function's statements.
pub(super) fn pure_body(
    mode: Mode,
    shape: &Shape,
    sample: TokenStream,
    unseen: TokenStream,
    child: &TokenStream,
    body: TokenStream,
) -> TokenStream {
    let crossings = crossings(mode, shape);
    let puts = crossings.iter().map(|c| &c.put);
    let takes = crossings.iter().map(|c| &c.take);
    let ret = result_type(shape);
    let untravelled = untravelled(mode, shape, &crossings, &ret);
    let take_caller = take_value(mode, &ret);
    let put_result = put_value(mode, &ret, quote!(&__invite_value));
    let imports = mode.imports();
    let fresh = source_run(shape, "__invite_pure");
    let (setup, call) = (&fresh.setup, &fresh.call);
    quote! {
        let __invite_queued: ::core::option::Option<::invite::__private::Queued> =
            if let ::core::option::Option::Some(__invite_sampled) = #sample {
            ::invite::__private::cold_path(|| {
                #unseen
                let __invite_runner: ::invite::__private::Runner =
                    |__invite_in: &mut &[u8], __invite_run: ::invite::__private::WorkerRun<'_>| {
                        #[allow(unused_imports)]
                        use ::invite::__private::{
                            ApproxCompare as _, HasDebug as _, Incomparable as _, NoDebug as _,
                            StdEq as _, StdOrd as _,
                        };
                        #imports
                        #(#takes)*
                        let ::core::option::Option::Some(__invite_caller) = #take_caller
                        else { return __invite_run.garbled(); };
                        let mut __invite_purity = |__invite_t: &mut ::invite::__private::TestCtx| {
                            #setup
                            __invite_t.replay();
                            let __invite_fresh = #call;
                            if (&&::invite::__private::Cmp(&__invite_fresh, &__invite_caller))
                                .invite_same(__invite_t.tolerance())
                                == ::core::option::Option::Some(false)
                            {
                                ::core::option::Option::Some(::std::format!(
                                    "the function gave {} on the worker's copy of the arguments \
                                     where the caller's call gave {}: it is not pure (it reads \
                                     state beyond its arguments that the program changed since \
                                     the worker started)",
                                    (&&::invite::__private::DebugProbe(&__invite_fresh)).invite_debug(),
                                    (&&::invite::__private::DebugProbe(&__invite_caller)).invite_debug(),
                                ))
                            } else {
                                ::core::option::Option::None
                            }
                        };
                        let __invite_run = __invite_run.with_purity(&mut __invite_purity);
                        { #child }
                    };
                match ::invite::__private::queue_call(
                    __invite_sampled,
                    __invite_runner,
                    #untravelled,
                    |__invite_out: &mut ::std::vec::Vec<u8>| {
                        #imports
                        #(#puts)*
                    },
                ) {
                    ::core::result::Result::Ok(__invite_q) => __invite_q,
                    ::core::result::Result::Err(__invite_sampled) => {
                        if let ::core::option::Option::Some(__invite_permit) = __invite_sampled.admit() {
                            ::invite::__private::fork_run(__invite_permit, |__invite_run| {
                                #child
                            });
                        }
                        ::core::option::Option::None
                    }
                }
            })
        } else {
            ::core::option::Option::None
        };
        #[allow(clippy::redundant_closure_call)]
        let __invite_value: #ret = (|| -> #ret { #body })();
        if let ::core::option::Option::Some(__invite_q) = __invite_queued {
            __invite_q.send(|__invite_out: &mut ::std::vec::Vec<u8>| {
                #imports
                #put_result
            });
        }
        __invite_value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::shape::shape_of;
    use crate::parse::Kind;

    fn site(kind: Kind, attr: &str, item: &str) -> (Shape, Args) {
        let mut args = Args::default();
        args.add(kind, attr.parse().unwrap()).unwrap();
        let func: syn::ItemFn = syn::parse_str(item).unwrap();
        (shape_of(&func, &args, None).unwrap(), args)
    }

    /// Why a metamorphic site `item` has no worker's path, empty where it has one.
    fn no_worker_of(attr: &str, item: &str) -> String {
        let (shape, args) = site(Kind::Metamorphic, attr, item);
        no_worker(&shape, &args)
    }

    #[test]
    fn the_worker_s_path_is_written_where_its_copy_surely_compiles() {
        for item in [
            "fn f(x: &[f64], s: &str, n: &u64, v: &Vec<u8>, o: &Option<i32>) -> f64 { 0.0 }",
            "fn f(t: &(u8, u8), a: &[u8; 4], p: &(u64)) -> u8 { 0 }",
            "fn f<T: Clone>(x: &T) -> u8 { 0 }",
            "fn f(x: &'_ u8) -> u8 { 0 }",
        ] {
            assert_eq!(no_worker_of("result == result", item), "", "{item}");
        }
    }

    #[test]
    fn a_shape_whose_copy_might_not_compile_keeps_the_fork_s_path_and_says_why() {
        for (item, why) in [
            (
                "fn f<'a>(x: &'a u8) -> u8 { 0 }",
                "it has lifetime parameters",
            ),
            (
                "fn f(x: u8) -> Cow<'static, str> { 0 }",
                "its result names a lifetime",
            ),
            (
                "fn f(x: &'static u8) -> u8 { 0 }",
                "its parameter `x` names a lifetime",
            ),
            (
                "fn f(g: for<'a> fn(&'a u8) -> u8) -> u8 { 0 }",
                "its parameter `g` names a lifetime",
            ),
            ("fn f(p: &Path) -> u8 { 0 }", "a reference to `Path`"),
            ("fn f(p: &std::path::Path) -> u8 { 0 }", "Path`, of which"),
            ("fn f(d: &dyn Fn()) -> u8 { 0 }", "a reference to `dyn Fn"),
            (
                "fn f(d: &(dyn Fn())) -> u8 { 0 }",
                "a reference to `(dyn Fn",
            ),
            ("fn f<T: ?Sized>(x: &T) -> u8 { 0 }", "a reference to `T`"),
            ("fn f(x: &<u8 as Tr>::Out) -> u8 { 0 }", "a reference to"),
            ("fn f<T>(x: &T::Out) -> u8 { 0 }", "Out`, of which"),
            // A projection named like a sized type is still a projection.
            ("fn f(x: &<u8 as Tr>::Vec) -> u8 { 0 }", "Vec`, of which"),
            // A `for<'a>` that names no lifetime inside still binds one.
            (
                "fn f(g: for<'a> fn(&u8) -> u8) -> u8 { 0 }",
                "its parameter `g` names a lifetime",
            ),
            ("fn f(x: &Self) -> u8 { 0 }", "a reference to `Self`"),
        ] {
            let got = no_worker_of("result == result", item);
            assert!(got.contains(why), "{item}: {got:?}");
        }
        // `pure` takes them all, the compiler then being the judge.
        let (shape, args) = site(
            Kind::Metamorphic,
            "pure, result == result",
            "fn f(p: &Path) -> u8 { 0 }",
        );
        assert_eq!(no_worker(&shape, &args), "");
        // `pure = false` keeps any site out.
        assert_eq!(
            no_worker_of("pure = false, result == result", "fn f(x: u8) -> u8 { x }"),
            "it is compiled `pure = false`"
        );
    }

    #[test]
    fn in_vivo_tests_and_discovery_are_no_work_for_the_worker() {
        for (attr, why) in [("test = t", ""), ("discover = true", "relation discovery")] {
            let got = no_worker_of(attr, "fn f(x: u8) -> u8 { x }");
            assert!(
                got.contains(why) && (why.is_empty() == got.is_empty()),
                "{attr}: {got:?}"
            );
        }
        let (shape, args) = site(Kind::InVivo, "test = t", "fn f(x: u8) -> u8 { x }");
        assert!(no_worker(&shape, &args).contains("In Vivo tests"));
        // Declared `pure`, the same refusals are errors on the token.
        let (shape, args) = site(
            Kind::Metamorphic,
            "pure, discover = true",
            "fn f(x: u8) -> u8 { x }",
        );
        let err = check_pure(&shape, &args).unwrap_err().to_string();
        assert!(err.contains("relation discovery"), "{err}");
        let (shape, args) = site(
            Kind::Metamorphic,
            "pure, f(x) == result",
            "fn f(x: u8) -> u8 { x }",
        );
        assert!(check_pure(&shape, &args).is_ok());
    }

    #[test]
    fn the_runner_s_types_name_no_lifetime_of_the_function() {
        let ty: Type = syn::parse_str("&'a Vec<&'b str>").unwrap();
        let erased = anonymous_lifetimes(&ty).to_token_stream().to_string();
        assert_eq!(erased, "& '_ Vec < & '_ str >");
        let kept: Type = syn::parse_str("&'static str").unwrap();
        assert_eq!(
            anonymous_lifetimes(&kept).to_token_stream().to_string(),
            "& 'static str"
        );
    }

    #[test]
    fn a_type_names_a_type_parameter_anywhere_in_it() {
        let params = [syn::Ident::new("T", proc_macro2::Span::call_site())];
        for (text, names) in [
            ("T", true),
            ("Vec<T>", true),
            ("Option<(u8, T)>", true),
            ("T::Item", true),
            ("Vec<u8>", false),
            ("U", false),
            ("crate::T", false),
        ] {
            let ty: Type = syn::parse_str(text).unwrap();
            assert_eq!(names_any(&ty, &params), names, "{text}");
        }
    }

    #[test]
    fn only_an_undeclared_site_falls_back_to_no_copy_at_all() {
        assert!(Mode::IfAble.by_resolution());
        assert_eq!(Mode::Declared.by_resolution(), cfg!(feature = "serde"));
        assert!(Mode::IfAble.imports().to_string().contains("CannotTravel"));
        assert!(!Mode::Declared
            .imports()
            .to_string()
            .contains("CannotTravel"));
    }
}
