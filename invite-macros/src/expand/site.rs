//! The site a wrapped function registers: its name as the log and `invite.toml` spell it,
//! the static that holds its tests, parameters and options, and what the function says of
//! its own place at its first sampled call. Naming has rules of its own (inherent and trait
//! impls, default methods, impls a macro writes for a type it is given), which is why it lives
//! apart from the code that samples.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;

use super::shape::Shape;
use crate::parse::{Args, Test};

/// The site's name: `module::function` for a free function; for a method, a pattern that its
/// first sampled call completes from where the compiler put it (`module::Type::method`,
/// `<module::Type as Trait>::method`, `module::Trait::method`; see the runtime's `place`), so
/// that the macro needs no more than the method's tokens.
fn site_name(shape: &Shape, args: &Args) -> TokenStream {
    if let Some(name) = &args.name {
        return quote!(#name);
    }
    let method = shape.name.unraw().to_string();
    if named_at_first_call(shape, args) {
        let pattern = format!("{{Self}}::{method}");
        return quote!(#pattern);
    }
    quote!(::core::concat!(::core::module_path!(), "::", #method))
}

/// Whether the site is named at its first call: a method or associated function without a
/// `name` of its own.
pub(super) fn named_at_first_call(shape: &Shape, args: &Args) -> bool {
    args.name.is_none() && shape.assoc
}

/// Where the function is, for its site's first sampled call: a marker function in its body
/// whose path the compiler prints, and the path its tests call it through.
pub(super) fn place(shape: &Shape, args: &Args) -> TokenStream {
    let callee = shape.callee();
    let turbofish = &shape.turbofish;
    let calls_itself = args.tests.iter().any(|t| !matches!(t, Test::InVivo(_)));
    let callee = if shape.impl_trait || !calls_itself {
        // Its `impl Trait` parameters cannot be named without arguments to infer them from;
        // In Vivo tests alone never call it.
        quote!(::core::option::Option::None)
    } else {
        quote!(::core::option::Option::Some(::core::any::type_name_of_val(&#callee #turbofish)))
    };
    let named_as_free = args.name.is_none() && !named_at_first_call(shape, args);
    quote!(|| {
        fn __invite_here() {}
        ::invite::__private::Place {
            marker: ::core::any::type_name_of_val(&__invite_here),
            module: ::core::module_path!(),
            callee: #callee,
            named_as_free: #named_as_free,
        }
    })
}

pub(super) fn site_static(shape: &Shape, args: &Args) -> TokenStream {
    let name = site_name(shape, args);
    let naming = if named_at_first_call(shape, args) {
        quote!(::invite::__private::Naming::AtFirstCall)
    } else {
        quote!(::invite::__private::Naming::Fixed)
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
    let pure = args.pure.is_some();
    let no_worker = super::pure::no_worker(shape, args);
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
                naming: #naming,
                file: ::core::file!(),
                line: #line,
                tests: &[#(#tests),*],
                params: &[#(#params),*],
                rho: #rho,
                tolerance: #tolerance,
                timeout_ms: #timeout,
                self_check: #self_check,
                dedup: #dedup,
                pure: #pure,
                no_worker: #no_worker,
                krate: (
                    match ::core::option_env!("CARGO_CRATE_NAME") {
                        ::core::option::Option::Some(n) => n,
                        ::core::option::Option::None => "",
                    },
                    match ::core::option_env!("CARGO_PKG_VERSION") {
                        ::core::option::Option::Some(v) => v,
                        ::core::option::Option::None => "",
                    },
                ),
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
