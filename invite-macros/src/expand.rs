//! Turns parsed arguments plus the function into tokens. Nothing here parses attributes.
//!
//! A wrapped function becomes two items with the same signature: the original, renamed
//! `__invite_original_<name>` and hidden, and a wrapper under the original name. Emitting a
//! sibling item (rather than a closure inside the wrapper) keeps generics, lifetimes, `Self`
//! and receivers exactly as written, and gives relations a real function to call for follow-up
//! executions.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, FnArg, Ident, ItemFn, Pat, ReceiverKind, Type};

use crate::parse::{mentions_ident, Args, Kind, Relation, Test};

/// How the method takes `self`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Receiver {
    None,
    Ref,
    RefMut,
    Value,
}

/// How a parameter is passed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Passing {
    Shared,
    Mut,
    Value,
}

struct Param {
    ident: Ident,
    passing: Passing,
    /// The type as written, for the log (regression tests are written from it).
    ty: String,
    /// The type, for the conversions of relation discovery.
    ty_tokens: Type,
}

/// What expansion needs to know about the function.
struct Shape {
    name: Ident,
    original: Ident,
    receiver: Receiver,
    receiver_span: Span,
    params: Vec<Param>,
    /// An associated function: the original is reached through `Self::`.
    assoc: bool,
    /// The name of the type whose `impl` block holds the function, when the source says.
    impl_type: Option<String>,
    /// `::<T, U>` for calls of the original, empty when `impl Trait` arguments forbid it.
    turbofish: TokenStream,
    is_unsafe: bool,
    /// The result type, when the function has one.
    output: Option<Type>,
}

pub fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(kind, attr, item.clone()) {
        Ok(tokens) => tokens,
        // Keep the function so that one mistake gives one error, not a cascade.
        Err(e) => {
            let err = e.to_compile_error();
            quote!(#err #item)
        }
    }
}

fn try_expand(kind: Kind, attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut func: ItemFn = syn::parse2(item).map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("{} goes on a function or method", kind.attr()),
        )
    })?;
    check_signature(kind, &func)?;
    let mut args = Args::default();
    args.add(kind, attr)?;
    // Stacked invite attributes share one wrapper, so one fork serves every test of a call.
    let mut kept = Vec::new();
    for a in std::mem::take(&mut func.attrs) {
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
    let mut shape = shape_of(&func, &args)?;
    check_names(&shape, &args)?;
    if args.tests.iter().any(|t| matches!(t, Test::Discover(_))) {
        check_discoverable(&func, &shape)?;
        args.name_discovery(&signature_text(&shape));
    }
    if cfg!(feature = "enabled") {
        Ok(generate(&func, &shape, &args))
    } else {
        // The function stays as written; its relations still refer to it by its own name.
        shape.original = shape.name.clone();
        Ok(generate_type_check(&func, &shape, &args))
    }
}

/// Without the `enabled` feature: the plain function, and beside it a hidden function that is
/// never called but holds the tests' code, so that relations are type-checked as with the
/// feature and the helpers they use count as used (an `allow(dead_code)` item is a root of
/// rustc's liveness analysis). The optimiser drops it; no site is registered.
fn generate_type_check(func: &ItemFn, shape: &Shape, args: &Args) -> TokenStream {
    let mut checker = plain_signature(&func.sig, shape);
    checker.ident = format_ident!("__invite_tests_of_{}", shape.name);
    checker.output = syn::ReturnType::Default;
    checker.constness = None;
    let child = child_branch(shape, args);
    let state = &args.state;
    quote! {
        #func

        #[doc(hidden)]
        #[allow(dead_code, unused_variables, unused_mut, clippy::all)]
        #checker {
            #( let _ = &#state; )*
            ::invite::__private::type_check_only(|__invite_run| { #child });
        }
    }
}

/// The signature with each parameter bound to the plain name `shape_of` chose and no `mut`
/// binding: the generated functions only pass arguments on. Types stay exactly as written.
fn plain_signature(sig: &syn::Signature, shape: &Shape) -> syn::Signature {
    let mut plain = sig.clone();
    let mut params = shape.params.iter();
    for input in plain.inputs.iter_mut() {
        match input {
            FnArg::Receiver(r) => {
                // `mut self` binds mutably in the original only.
                r.mutability = None;
            }
            FnArg::Typed(t) => {
                let ident = params
                    .next()
                    .expect("one param per typed input")
                    .ident
                    .clone();
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
    plain
}

fn check_signature(kind: Kind, f: &ItemFn) -> syn::Result<()> {
    let sig = &f.sig;
    if let Some(t) = &sig.asyncness {
        return Err(syn::Error::new(
            t.span(),
            format!(
                "{} cannot wrap an `async fn`: a forked child cannot drive the future's later \
                 polls; instrument a synchronous function that this one calls",
                kind.attr()
            ),
        ));
    }
    if let Some(t) = &sig.constness {
        return Err(syn::Error::new(
            t.span(),
            format!(
                "{} cannot wrap a `const fn`: testing forks at run time; remove `const` or \
                 instrument a non-const function that calls this one",
                kind.attr()
            ),
        ));
    }
    if let Some(v) = &sig.variadic {
        return Err(syn::Error::new(
            v.span(),
            "variadic functions cannot be instrumented",
        ));
    }
    Ok(())
}

fn invite_attr_kind(a: &syn::Attribute) -> Option<Kind> {
    let segs: Vec<String> = a
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let last = match segs.as_slice() {
        [one] => one.as_str(),
        [first, last] if first == "invite" => last.as_str(),
        _ => return None,
    };
    match last {
        "metamorphic" => Some(Kind::Metamorphic),
        "in_vivo" => Some(Kind::InVivo),
        "discover" => Some(Kind::Discover),
        _ => None,
    }
}

fn shape_of(f: &ItemFn, args: &Args) -> syn::Result<Shape> {
    let sig = &f.sig;
    let mut receiver = Receiver::None;
    let mut receiver_span = Span::call_site();
    let mut params = Vec::new();
    let mut impl_trait = false;
    for (i, input) in sig.inputs.iter().enumerate() {
        match input {
            FnArg::Receiver(r) => {
                if matches!(r.kind, ReceiverKind::Typed(..)) {
                    return Err(syn::Error::new(
                        r.span(),
                        "typed receivers such as `self: Box<Self>` are not supported; take \
                         `&self`, `&mut self` or `self`",
                    ));
                }
                receiver_span = r.self_token.span;
                receiver = match &r.kind {
                    ReceiverKind::Reference(_, _, Some(_)) => Receiver::RefMut,
                    ReceiverKind::Reference(_, _, None) => Receiver::Ref,
                    _ => Receiver::Value,
                };
            }
            FnArg::Typed(t) => {
                impl_trait |= mentions_impl_trait(&t.ty);
                let ident = match &*t.pat {
                    Pat::Ident(p) => p.ident.clone(),
                    _ => format_ident!("__invite_arg{}", i),
                };
                let passing = match &*t.ty {
                    Type::Reference(r) if r.mutability.is_some() => Passing::Mut,
                    Type::Reference(_) => Passing::Shared,
                    _ => Passing::Value,
                };
                let ty = crate::text::source_text(&t.ty.to_token_stream());
                params.push(Param {
                    ident,
                    passing,
                    ty,
                    ty_tokens: (*t.ty).clone(),
                });
            }
        }
    }
    let name = sig.ident.clone();
    let sig_mentions_self = sig
        .to_token_stream()
        .into_iter()
        .any(|t| t.to_string() == "Self");
    let relations_call_self = args.tests.iter().any(|t| match t {
        Test::Relation(r) => {
            let mut v = FindsSelfCall {
                name: &name,
                found: false,
            };
            v.visit_expr(&r.body);
            v.found
        }
        _ => false,
    });
    let impl_type = crate::enclosing::impl_type_of(&name);
    let assoc = receiver != Receiver::None
        || sig_mentions_self
        || relations_call_self
        || impl_type.is_some();
    let generic_args: Vec<TokenStream> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let turbofish = if impl_trait || generic_args.is_empty() {
        TokenStream::new()
    } else {
        quote!(::<#(#generic_args),*>)
    };
    Ok(Shape {
        original: format_ident!("__invite_original_{}", name),
        name,
        receiver,
        receiver_span,
        params,
        assoc,
        impl_type,
        turbofish,
        is_unsafe: matches!(sig.safety, syn::Safety::Unsafe(_)),
        output: match &sig.output {
            syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
            syn::ReturnType::Default => None,
        },
    })
}

fn mentions_impl_trait(ty: &Type) -> bool {
    struct Finder(bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_type_impl_trait(&mut self, _: &'a syn::TypeImplTrait) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    f.visit_type(ty);
    f.0
}

struct FindsSelfCall<'a> {
    name: &'a Ident,
    found: bool,
}

impl<'a> Visit<'a> for FindsSelfCall<'_> {
    fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
        let s = &p.path.segments;
        if s.len() == 2 && s[0].ident == "Self" && s[1].ident == *self.name {
            self.found = true;
        }
        syn::visit::visit_expr_path(self, p);
    }
}

/// Reports a lower-case name in a relation that is neither a parameter, `result`, `self`, nor
/// bound inside the relation: almost always a typo, and rustc's own error would not say what a
/// relation may use.
fn check_names(shape: &Shape, args: &Args) -> syn::Result<()> {
    let mut known: Vec<String> = shape.params.iter().map(|p| p.ident.to_string()).collect();
    known.extend(["result", "self"].map(String::from));
    known.push(shape.name.to_string());
    for t in &args.tests {
        if let Test::Relation(r) = t {
            let mut bound = BoundNames(Vec::new());
            bound.visit_expr(&r.body);
            if let Some(g) = &r.guard {
                bound.visit_expr(g);
            }
            let mut uses = ValueNames(Vec::new());
            uses.visit_expr(&r.body);
            if let Some(g) = &r.guard {
                uses.visit_expr(g);
            }
            for ident in uses.0 {
                let s = ident.to_string();
                let lower = s
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_lowercase() || c == '_');
                if lower && !known.contains(&s) && !bound.0.contains(&s) {
                    let params: Vec<String> = shape
                        .params
                        .iter()
                        .map(|p| format!("`{}`", p.ident))
                        .collect();
                    let list = if params.is_empty() {
                        "none".into()
                    } else {
                        params.join(", ")
                    };
                    return Err(syn::Error::new(
                        ident.span(),
                        format!(
                            "`{s}` is not a parameter of `{}`: a relation can use the parameters \
                             ({list}), `result` (the call's output) and `self`",
                            shape.name
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

struct BoundNames(Vec<String>);

impl<'a> Visit<'a> for BoundNames {
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        self.0.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}

struct ValueNames(Vec<Ident>);

impl<'a> Visit<'a> for ValueNames {
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        // The callee is a function name, not a value.
        if !matches!(&*c.func, Expr::Path(_)) {
            self.visit_expr(&c.func);
        }
        for a in &c.args {
            self.visit_expr(a);
        }
    }

    fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
        if p.qself.is_none() {
            if let Some(ident) = p.path.get_ident() {
                self.0.push(ident.clone());
            }
        }
    }
}

fn generate(func: &ItemFn, shape: &Shape, args: &Args) -> TokenStream {
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
        ..
    } = func;
    let original = &shape.original;
    let mut original_sig = sig.clone();
    original_sig.ident = original.clone();
    // Attributes that concern the body or compilation go on both; the rest stay on the wrapper.
    let original_attrs = attrs.iter().filter(|a| {
        let p = a.path();
        !(p.is_ident("doc")
            || p.is_ident("inline")
            || p.is_ident("deprecated")
            || p.is_ident("must_use")
            || p.is_ident("no_mangle")
            || p.is_ident("export_name")
            || p.is_ident("test"))
    });

    let wrapper_sig = plain_signature(sig, shape);

    let arg_idents: Vec<&Ident> = shape.params.iter().map(|p| &p.ident).collect();
    let turbofish = &shape.turbofish;
    let call_original = if shape.receiver != Receiver::None {
        quote!(Self::#original #turbofish(self, #(#arg_idents),*))
    } else if shape.assoc {
        quote!(Self::#original #turbofish(#(#arg_idents),*))
    } else {
        quote!(#original #turbofish(#(#arg_idents),*))
    };
    let call_original = if shape.is_unsafe {
        quote!(unsafe { #call_original })
    } else {
        call_original
    };

    let site = site_static(shape, args);
    let child = child_branch(shape, args);
    let unseen = unseen_check(shape, args);
    quote! {
        #[doc(hidden)]
        #[inline(always)]
        #[allow(clippy::too_many_arguments, clippy::needless_lifetimes, dead_code)]
        #(#original_attrs)*
        #original_sig #block

        #(#attrs)*
        #vis #wrapper_sig {
            #site
            if let ::core::option::Option::Some(__invite_sampled) =
                ::invite::__private::Site::sample(&__INVITE_SITE, &__INVITE_LOCAL)
            {
                // Out of line, so that the unsampled path keeps a small frame.
                ::invite::__private::cold_path(|| {
                    #unseen
                    if let ::core::option::Option::Some(__invite_permit) = __invite_sampled.admit() {
                        ::invite::__private::fork_run(__invite_permit, |__invite_run| {
                            #child
                        });
                    }
                });
            }
            #call_original
        }
    }
}

fn site_static(shape: &Shape, args: &Args) -> TokenStream {
    // `module::Type::method` in an impl block, `module::function` elsewhere.
    let fn_name = match &shape.impl_type {
        Some(ty) => format!("{ty}::{}", shape.name),
        None => shape.name.to_string(),
    };
    let name = match &args.name {
        Some(lit) => quote!(#lit),
        None => quote!(::core::concat!(::core::module_path!(), "::", #fn_name)),
    };
    let tests = args.tests.iter().map(|t| {
        let text = t.text();
        let kind = match t {
            Test::Relation(_) => quote!(Relation),
            Test::Metamorphic(_) => quote!(Metamorphic),
            Test::InVivo(_) => quote!(InVivo),
            Test::Discover(_) => quote!(Discover),
        };
        quote!((#text, ::invite::__private::TestKind::#kind))
    });
    let opt_f64 = |v: Option<f64>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let rho = opt_f64(args.rho);
    let tolerance = opt_f64(args.tolerance);
    let timeout = match args.timeout_ms {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let self_check = args.self_check.unwrap_or(true);
    let dedup = args.dedup.unwrap_or(false);
    let params = shape.params.iter().map(|p| {
        let name = p.ident.to_string();
        let ty = &p.ty;
        quote!((#name, #ty))
    });
    let line = quote_spanned!(shape.name.span()=> ::core::line!());
    quote! {
        static __INVITE_SITE: ::invite::__private::Site =
            ::invite::__private::Site::new(::invite::__private::SiteMeta {
                name: #name,
                file: ::core::file!(),
                line: #line,
                tests: &[#(#tests),*],
                params: &[#(#params),*],
                rho: #rho,
                tolerance: #tolerance,
                timeout_ms: #timeout,
                self_check: #self_check,
                dedup: #dedup,
            });
        ::invite::__private::inventory::submit! {
            ::invite::__private::SiteRef(&__INVITE_SITE)
        }
        ::std::thread_local! {
            static __INVITE_LOCAL: ::invite::__private::SiteLocal =
                const { ::invite::__private::SiteLocal::new() };
        }
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
            return;
        };
    }
}

/// The code of the child: capture the inputs, then hand every test to the run.
fn child_branch(shape: &Shape, args: &Args) -> TokenStream {
    let mut inputs = Vec::new();
    if shape.receiver != Receiver::None {
        inputs.push(quote!((
            "self",
            (&&::invite::__private::DebugProbe(&self)).invite_debug()
        )));
    }
    for p in &shape.params {
        let ident = &p.ident;
        let label = ident.to_string();
        inputs.push(quote!((#label, (&&::invite::__private::DebugProbe(&#ident)).invite_debug())));
    }
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
            ApproxCompare as _, HasDebug as _, Incomparable as _, NoDebug as _, StdEq as _,
            StdOrd as _,
        };
        let __invite_inputs = ::invite::__private::capture_inputs(|| ::std::vec![#(#inputs),*]);
        __invite_run.run(
            __invite_inputs,
            &mut |__invite_t: &mut ::invite::__private::TestCtx| {
                #[allow(unreachable_code, clippy::diverging_sub_expression)]
                match __invite_t.index() {
                    #(#arms,)*
                    _ => {}
                }
            },
        )
    }
}

/// Refuses, at compile time, what discovery cannot call again on transformed copies.
fn check_discoverable(func: &ItemFn, shape: &Shape) -> syn::Result<()> {
    for (p, input) in shape.params.iter().zip(
        func.sig
            .inputs
            .iter()
            .filter(|i| matches!(i, FnArg::Typed(_))),
    ) {
        if p.passing == Passing::Mut {
            return Err(syn::Error::new(
                input.span(),
                "relation discovery calls the function again on transformed copies of its \
                 arguments and compares the results; a `&mut` parameter is an output it cannot \
                 compare: discover a function that takes it by value or by `&` reference",
            ));
        }
    }
    if shape.output.is_none() {
        return Err(syn::Error::new(
            func.sig.ident.span(),
            "relation discovery compares the function's results, and this function returns \
             none: discover a function that returns a number, a `bool` or a vector of numbers",
        ));
    }
    Ok(())
}

/// The signature as discovery reads it: `fn name(&self, x: f64, xs: &[f64]) -> f64`.
fn signature_text(shape: &Shape) -> String {
    let receiver = match shape.receiver {
        Receiver::None => None,
        Receiver::Ref => Some("&self".to_string()),
        Receiver::RefMut => Some("&mut self".to_string()),
        Receiver::Value => Some("self".to_string()),
    };
    let params: Vec<String> = receiver
        .into_iter()
        .chain(
            shape
                .params
                .iter()
                .map(|p| format!("{}: {}", p.ident, p.ty)),
        )
        .collect();
    let output = shape
        .output
        .as_ref()
        .map(|t| crate::text::source_text(&t.to_token_stream()))
        .unwrap_or_else(|| "()".into());
    format!("fn {}({}) -> {output}", shape.name, params.join(", "))
}

/// The type discovery converts a value of `ty` through: `<U as ToOwned>::Owned` for a `&U`
/// (a `&[f64]` is discovered as a `Vec<f64>`), `ty` itself otherwise.
fn owned_type(ty: &Type) -> TokenStream {
    match ty {
        Type::Reference(r) => {
            let elem = &r.elem;
            quote!(<#elem as ::std::borrow::ToOwned>::Owned)
        }
        other => quote!(#other),
    }
}

/// A discovery entry: the function run on the live arguments and on follow-ups made from them,
/// each call on fresh copies and on the replayed random stream.
fn discover_arm(shape: &Shape) -> TokenStream {
    let owned: Vec<TokenStream> = shape
        .params
        .iter()
        .map(|p| owned_type(&p.ty_tokens))
        .collect();
    let d = quote!(::invite::__private::Discoverable);
    let kinds = owned.iter().map(|o| quote!(<#o as #d>::KIND));
    let values = shape.params.iter().zip(&owned).map(|(p, o)| {
        let id = &p.ident;
        match p.passing {
            Passing::Shared => quote!(<#o as #d>::to_value(&::std::borrow::ToOwned::to_owned(#id))),
            _ => quote!(<#o as #d>::to_value(&#id)),
        }
    });
    let locals: Vec<Ident> = (0..shape.params.len())
        .map(|i| format_ident!("__invite_d{}", i))
        .collect();
    let converts = locals
        .iter()
        .zip(&owned)
        .enumerate()
        .map(|(i, (l, o))| quote!(let #l = <#o as #d>::from_value(__invite_v.get(#i)?)?;));
    let mut setup = TokenStream::new();
    let mut call_args = Vec::new();
    match shape.receiver {
        Receiver::None => {}
        Receiver::Ref => call_args.push(quote!(self)),
        Receiver::RefMut => {
            let copy = clone_receiver(shape, quote!(&*self));
            setup.extend(quote!(let mut __invite_d_self = #copy;));
            call_args.push(quote!(&mut __invite_d_self));
        }
        Receiver::Value => call_args.push(clone_receiver(shape, quote!(&self))),
    }
    for (p, l) in shape.params.iter().zip(&locals) {
        call_args.push(match p.passing {
            Passing::Shared => quote!(&#l),
            _ => quote!(#l),
        });
    }
    let call = call_original(shape, &call_args);
    let output = shape
        .output
        .as_ref()
        .expect("checked by check_discoverable");
    let (out_owned, out_value) = match output {
        Type::Reference(_) => {
            let o = owned_type(output);
            let v = quote!(<#o as #d>::to_value(&::std::borrow::ToOwned::to_owned(__invite_r)));
            (o, v)
        }
        other => (
            quote!(#other),
            quote!(<#other as #d>::to_value(&__invite_r)),
        ),
    };
    let signature = signature_text(shape);
    quote!({
        let mut __invite_call = |__invite_v: &[::invite::__private::Value]|
            -> ::core::option::Option<::invite::__private::Value>
        {
            #(#converts)*
            #setup
            __invite_t.replay();
            let __invite_r = ::invite::__private::discover_quietly(|| #call)?;
            #out_value
        };
        ::invite::__private::discover_observe(
            __invite_t,
            #signature,
            &[#(#kinds),*],
            <#out_owned as #d>::KIND,
            ::std::vec![#(#values),*],
            &mut __invite_call,
        );
    })
}

/// The source run: statements that prepare fresh copies of mutable inputs, the call, and the
/// receiver and arguments a hand-written test sees afterwards.
struct SourceRun {
    setup: TokenStream,
    call: TokenStream,
    check_receiver: Option<TokenStream>,
    check_args: Vec<TokenStream>,
}

fn source_run(shape: &Shape) -> SourceRun {
    let mut setup = TokenStream::new();
    let mut call_args = Vec::new();
    let check_receiver = match shape.receiver {
        Receiver::None => None,
        Receiver::Ref => {
            call_args.push(quote!(self));
            Some(quote!(self))
        }
        Receiver::RefMut => {
            let copy = clone_receiver(shape, quote!(&*self));
            setup.extend(quote!(let mut __invite_src_self = #copy;));
            call_args.push(quote!(&mut __invite_src_self));
            Some(quote!(&mut __invite_src_self))
        }
        Receiver::Value => {
            call_args.push(clone_receiver(shape, quote!(&self)));
            Some(quote!(&self))
        }
    };
    let mut check_args = Vec::new();
    for p in &shape.params {
        let ident = &p.ident;
        match p.passing {
            Passing::Shared => {
                call_args.push(quote!(#ident));
                check_args.push(quote!(#ident));
            }
            Passing::Mut => {
                let copy = format_ident!("__invite_src_{}", ident);
                setup.extend(quote!(
                    let mut #copy = ::std::borrow::ToOwned::to_owned(&*#ident);
                ));
                call_args.push(quote!(&mut #copy));
                check_args.push(quote!(&mut #copy));
            }
            Passing::Value => {
                call_args.push(quote!(::core::clone::Clone::clone(&#ident)));
                check_args.push(quote!(&#ident));
            }
        }
    }
    let call = call_original(shape, &call_args);
    SourceRun {
        setup,
        call,
        check_receiver,
        check_args,
    }
}

/// A call of the original function with `args` (the receiver first, for a method).
fn call_original(shape: &Shape, args: &[TokenStream]) -> TokenStream {
    let original = &shape.original;
    let turbofish = &shape.turbofish;
    let callee = if shape.assoc {
        quote!(Self::#original)
    } else {
        quote!(#original)
    };
    let call = quote!(#callee #turbofish(#(#args),*));
    if shape.is_unsafe {
        quote!(unsafe { #call })
    } else {
        call
    }
}

/// A fresh clone of the receiver for one execution. Spanned on `self`, so that a receiver
/// type without `Clone` gets one error there, saying to derive `Clone` or use `in_vivo`.
fn clone_receiver(shape: &Shape, of: TokenStream) -> TokenStream {
    quote_spanned!(shape.receiver_span=> <Self as ::invite::bounds::CloneReceiver>::clone_for_execution(#of))
}

/// Runs the source, then (unless turned off) runs it again on the same stream and gives up as
/// `inconclusive` when the two disagree.
fn source_and_self_check(src: &SourceRun) -> TokenStream {
    let SourceRun { setup, call, .. } = src;
    quote! {
        #setup
        __invite_t.replay();
        let result = #call;
        let _ = &result;
        if __invite_t.self_check() {
            let __invite_again = {
                #setup
                __invite_t.replay();
                #call
            };
            if (&&::invite::__private::Cmp(&result, &__invite_again))
                .invite_same(__invite_t.tolerance())
                == ::core::option::Option::Some(false)
            {
                __invite_t.set(
                    ::invite::__private::Outcome::Inconclusive,
                    ::core::option::Option::Some(::std::format!(
                        "the source run gave {} and then {} on a replay of the same random \
                         stream: the function is nondeterministic beyond invite::rng()",
                        (&&::invite::__private::DebugProbe(&result)).invite_debug(),
                        (&&::invite::__private::DebugProbe(&__invite_again)).invite_debug(),
                    )),
                );
                return;
            }
        }
    }
}

/// A relation's guard: when false, the relation is recorded as skipped and nothing more runs.
fn guard_check(shape: &Shape, g: &Expr) -> TokenStream {
    let span = g.span();
    let mut g = g.clone();
    FollowUps { shape }.visit_expr_mut(&mut g);
    let holds = quote_spanned!(span=> ::invite::bounds::Holds::holds(#g));
    quote! {
        if !#holds {
            __invite_t.set(
                ::invite::__private::Outcome::Skipped,
                ::core::option::Option::Some(::std::string::String::from("the guard was false")),
            );
            return;
        }
    }
}

fn relation_arm(shape: &Shape, r: &Relation) -> TokenStream {
    let mut body = r.body.clone();
    FollowUps { shape }.visit_expr_mut(&mut body);
    let src = source_run(shape);
    let source = source_and_self_check(&src);
    let guard_check = r.guard.as_ref().map(|g| guard_check(shape, g));
    let guard_uses_result = r
        .guard
        .as_ref()
        .is_some_and(|g| mentions_ident(g, "result"));
    let (guard_before, guard_after) = if guard_uses_result {
        (None, guard_check)
    } else {
        (guard_check, None)
    };
    // The relation as written, for the place of its compile errors (the rewritten calls carry
    // their own place, so the whole expression spans the relation).
    let verdict = verdict(&body, r.body.span());
    quote! {{
        #guard_before
        #source
        #guard_after
        #verdict
    }}
}

/// A relation that holds in distribution: the source and the relation's two sides run `runs`
/// times, every execution on its own random stream, and the two samples go to the test.
fn statistical_arm(shape: &Shape, r: &Relation, checks: usize) -> TokenStream {
    let st = r.statistical.as_ref().expect("a statistical relation");
    let mut body = r.body.clone();
    FollowUps { shape }.visit_expr_mut(&mut body);
    let Expr::Binary(b) = &body else {
        unreachable!("checked by parse::check_statistical")
    };
    let claim = match b.op {
        BinOp::Eq(_) => quote!(Same),
        BinOp::Lt(_) | BinOp::Le(_) => quote!(NotAbove),
        _ => quote!(NotBelow),
    };
    let (left, right) = (&b.left, &b.right);
    let guard = r.guard.as_ref().map(|g| guard_check(shape, g));
    let test = st.test.as_deref().unwrap_or("welch");
    let runs = st
        .runs
        .map_or(quote!(::invite::stats::DEFAULT_RUNS), |n| quote!(#n));
    let alpha = st
        .alpha
        .map_or(quote!(::invite::stats::DEFAULT_ALPHA), |a| quote!(#a));
    let control = st.control;
    let SourceRun { setup, call, .. } = source_run(shape);
    let (ls, rs) = (left.span(), right.span());
    let sample =
        |e: &Expr, span: Span| quote_spanned!(span=> ::invite::stats::Sample::sample(&(#e)));
    let left_sample = sample(left, ls);
    let right_sample = sample(right, rs);
    quote! {{
        #guard
        let __invite_plan = ::invite::stats::Plan {
            test: ::invite::stats::Test::parse(#test).expect("checked when the relation was parsed"),
            runs: #runs,
            alpha: #alpha,
            checks: #checks,
            control: #control,
        };
        __invite_t.independent_streams();
        let mut __invite_left = ::std::vec::Vec::with_capacity(__invite_plan.runs);
        let mut __invite_right = ::std::vec::Vec::with_capacity(__invite_plan.runs);
        for _ in 0..__invite_plan.runs {
            #setup
            __invite_t.replay();
            let result = #call;
            let _ = &result;
            __invite_left.push(#left_sample);
            __invite_right.push(#right_sample);
        }
        let mut __invite_control = ::std::vec::Vec::new();
        if __invite_plan.control {
            for _ in 0..__invite_plan.runs {
                #setup
                __invite_t.replay();
                let result = #call;
                let _ = &result;
                __invite_control.push(#right_sample);
            }
        }
        let (__invite_outcome, __invite_detail) = ::invite::stats::judge(
            &__invite_plan,
            ::invite::stats::Claim::#claim,
            &__invite_left,
            &__invite_right,
            if __invite_plan.control { ::core::option::Option::Some(&__invite_control[..]) } else { ::core::option::Option::None },
            __invite_t.tolerance(),
        );
        __invite_t.set(__invite_outcome, ::core::option::Option::Some(__invite_detail));
    }}
}

/// The relation's verdict: tolerant comparisons at the top level, tolerant `in_range` and
/// `one_of`, anything else as a plain `bool`.
fn verdict(body: &Expr, span: Span) -> TokenStream {
    let set = quote! {
        __invite_t.set(
            if __invite_holds {
                ::invite::__private::Outcome::Pass
            } else {
                ::invite::__private::Outcome::Fail
            },
            __invite_detail,
        );
    };
    let dbg = |e: TokenStream| quote!((&&::invite::__private::DebugProbe(&#e)).invite_debug());
    if let Expr::Binary(b) = body {
        let op = match b.op {
            BinOp::Eq(_) => Some((quote!(Eq), true)),
            BinOp::Ne(_) => Some((quote!(Ne), true)),
            BinOp::Lt(_) => Some((quote!(Lt), false)),
            BinOp::Le(_) => Some((quote!(Le), false)),
            BinOp::Gt(_) => Some((quote!(Gt), false)),
            BinOp::Ge(_) => Some((quote!(Ge), false)),
            _ => None,
        };
        if let Some((op, equality)) = op {
            let (left, right) = (&b.left, &b.right);
            let method = if equality {
                quote!(invite_eq)
            } else {
                quote!(invite_ord)
            };
            let l = dbg(quote!(__invite_l));
            let r = dbg(quote!(__invite_r));
            return quote! {
                let __invite_l = #left;
                let __invite_r = #right;
                let __invite_tol = __invite_t.tolerance();
                let __invite_holds = (&&::invite::__private::Cmp(&__invite_l, &__invite_r))
                    .#method(::invite::__private::Op::#op, __invite_tol);
                let __invite_detail = ::core::option::Option::Some(
                    ::invite::__private::comparison_detail(
                        #l, ::invite::__private::Op::#op, #r, __invite_tol,
                    ),
                );
                #set
            };
        }
    }
    if let Expr::Call(c) = body {
        let callee = match &*c.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let a: Vec<&Expr> = c.args.iter().collect();
        match (callee.as_deref(), a.as_slice()) {
            (Some("in_range"), [x, lo, hi]) => {
                let (dx, dlo, dhi) = (
                    dbg(quote!(__invite_x)),
                    dbg(quote!(__invite_lo)),
                    dbg(quote!(__invite_hi)),
                );
                return quote! {
                    let __invite_x = #x;
                    let __invite_lo = #lo;
                    let __invite_hi = #hi;
                    let __invite_tol = __invite_t.tolerance();
                    let __invite_holds = (&&::invite::__private::Cmp(&__invite_x, &__invite_lo))
                        .invite_ord(::invite::__private::Op::Ge, __invite_tol)
                        && (&&::invite::__private::Cmp(&__invite_x, &__invite_hi))
                            .invite_ord(::invite::__private::Op::Le, __invite_tol);
                    let __invite_detail = ::core::option::Option::Some(::std::format!(
                        "value: {}, range: [{}, {}] (tolerance {:e})", #dx, #dlo, #dhi, __invite_tol
                    ));
                    #set
                };
            }
            (Some("one_of"), [x, options]) => {
                let (dx, dopts) = (dbg(quote!(__invite_x)), dbg(quote!(__invite_options)));
                return quote! {
                    let __invite_x = #x;
                    let __invite_options = #options;
                    let __invite_tol = __invite_t.tolerance();
                    let __invite_holds = __invite_options.iter().any(|__invite_o| {
                        (&&::invite::__private::Cmp(&__invite_x, __invite_o))
                            .invite_eq(::invite::__private::Op::Eq, __invite_tol)
                    });
                    let __invite_detail = ::core::option::Option::Some(::std::format!(
                        "value: {}, options: {} (tolerance {:e})", #dx, #dopts, __invite_tol
                    ));
                    #set
                };
            }
            _ => {}
        }
    }
    let holds = quote_spanned!(span=> ::invite::bounds::Holds::holds(#body));
    quote! {
        let __invite_holds = #holds;
        let __invite_detail = ::core::option::Option::None;
        #set
    }
}

fn metamorphic_test_arm(shape: &Shape, path: &Expr) -> TokenStream {
    let src = source_run(shape);
    let source = source_and_self_check(&src);
    let receiver = src.check_receiver.iter();
    let check_args = &src.check_args;
    let call = quote_spanned!(path.span()=>
        ::invite::bounds::TestOutput::verdict(#path(#(#receiver,)* #(#check_args,)* &result))
    );
    quote! {{
        #source
        let (__invite_o, __invite_d) = #call;
        __invite_t.set(__invite_o, __invite_d);
    }}
}

fn in_vivo_arm(shape: &Shape, path: &Expr) -> TokenStream {
    let receiver = match shape.receiver {
        Receiver::None => None,
        Receiver::Ref => Some(quote!(self)),
        Receiver::RefMut => Some(quote!(&mut *self)),
        Receiver::Value => Some(quote!(__invite_t.take(&self))),
    };
    let receiver = receiver.iter();
    let args = shape.params.iter().map(|p| {
        let ident = &p.ident;
        match p.passing {
            Passing::Shared => quote!(#ident),
            Passing::Mut => quote!(&mut *#ident),
            Passing::Value => quote!(&#ident),
        }
    });
    let call = quote_spanned!(path.span()=>
        ::invite::bounds::TestOutput::verdict(#path(#(#receiver,)* #(#args),*))
    );
    quote! {{
        __invite_t.replay();
        let (__invite_o, __invite_d) = #call;
        __invite_t.set(__invite_o, __invite_d);
    }}
}

/// A follow-up execution: arguments first (into `binds`, keeping their temporaries alive for the
/// call), then the stream rewound, then the call. It keeps the `span` of the call it replaces,
/// so that a relation's compile errors point at the relation, not at the whole attribute.
fn replayed(
    shape: &Shape,
    span: Span,
    args: &[TokenStream],
    binds: &[Ident],
    call: TokenStream,
) -> Expr {
    let call = if shape.is_unsafe {
        quote!(unsafe { #call })
    } else {
        call
    };
    syn::parse_quote_spanned! {span=>
        match (#(#args,)*) {
            (#(#binds,)*) => {
                __invite_t.replay();
                #call
            }
        }
    }
}

/// Rewrites calls of the function's own name in a relation into calls of the original on a
/// follow-up input: arguments are evaluated first (they may hold nested follow-ups), then the
/// stream is rewound, then the original runs, on a fresh clone of a mutable receiver.
struct FollowUps<'a> {
    shape: &'a Shape,
}

impl VisitMut for FollowUps<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let span = e.span();
        let shape = self.shape;
        let original = &shape.original;
        match e {
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return };
                if p.qself.is_some() {
                    return;
                }
                let segs = &p.path.segments;
                let via_self =
                    segs.len() == 2 && segs[0].ident == "Self" && segs[1].ident == shape.name;
                let bare = segs.len() == 1 && segs[0].ident == shape.name && !shape.assoc;
                if !(via_self || bare) {
                    return;
                }
                let mut callee = p.path.clone();
                callee.segments.last_mut().expect("non-empty path").ident = original.clone();
                let mut args: Vec<TokenStream> = c.args.iter().map(|a| quote!(#a)).collect();
                let binds: Vec<Ident> = (0..args.len())
                    .map(|i| format_ident!("__invite_a{}", i))
                    .collect();
                let mut call_args: Vec<TokenStream> = binds.iter().map(|b| quote!(#b)).collect();
                let clones_receiver = matches!(shape.receiver, Receiver::RefMut | Receiver::Value);
                if via_self && clones_receiver && !args.is_empty() {
                    // Only borrowed, to be cloned: the receiver itself must stay usable.
                    let recv = &args[0];
                    args[0] = quote!(&(#recv));
                }
                if via_self && !call_args.is_empty() {
                    let recv = &binds[0];
                    let copy = clone_receiver(shape, quote!(#recv));
                    match shape.receiver {
                        Receiver::RefMut => call_args[0] = quote!(&mut #copy),
                        Receiver::Value => call_args[0] = copy,
                        _ => {}
                    }
                }
                *e = replayed(shape, span, &args, &binds, quote!(#callee(#(#call_args),*)));
            }
            Expr::MethodCall(m) if m.method == shape.name && shape.receiver != Receiver::None => {
                let recv = &m.receiver;
                let turbofish = &m.turbofish;
                let args: Vec<&Expr> = m.args.iter().collect();
                let binds: Vec<Ident> = (0..args.len())
                    .map(|i| format_ident!("__invite_a{}", i))
                    .collect();
                let copy = clone_receiver(shape, quote!(&#recv));
                let call = match shape.receiver {
                    Receiver::Ref => quote!((#recv).#original #turbofish(#(#binds),*)),
                    _ => quote!({
                        #[allow(unused_mut)]
                        let mut __invite_recv = #copy;
                        __invite_recv.#original #turbofish(#(#binds),*)
                    }),
                };
                let args: Vec<TokenStream> = args.iter().map(|a| quote!(#a)).collect();
                *e = replayed(shape, span, &args, &binds, call);
            }
            _ => {}
        }
    }
}
