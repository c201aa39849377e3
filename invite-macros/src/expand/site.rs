//! The site a wrapped function registers: its name as the log and `invite.toml` spell it,
//! and the static that holds its tests, parameters and options. Naming has rules of its own
//! (inherent and trait impls, default methods, impls a macro writes for a type it is given),
//! which is why it lives apart from the code that samples.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;

use super::shape::Shape;
use crate::enclosing::{Enclosing, TraitRef};
use crate::parse::{Args, Test};

/// The site's name: `module::function`, `module::Type::method` in an inherent impl,
/// `<module::Type as Trait>::method` in a trait impl, `module::Trait::method` for a trait's
/// default method. In an impl a macro makes for a type it is given (`impl Stat for $t`), the
/// type has no name here: the name is a pattern that the site's first call completes from
/// `type_name::<Self>()` (see `named_by_self_type`).
fn site_name(shape: &Shape, args: &Args) -> TokenStream {
    if let Some(name) = &args.name {
        return quote!(#name);
    }
    if named_by_self_type(shape, args) {
        let self_ty = "{Self}";
        let pattern = match &shape.enclosing {
            Some(Enclosing::Impl {
                trait_: Some(TraitRef { name: Some(tr), .. }),
                ..
            }) => format!("<{self_ty} as {tr}>::{}", shape.name.unraw()),
            _ => format!("{self_ty}::{}", shape.name.unraw()),
        };
        return quote!(#pattern);
    }
    let method = shape.name.unraw().to_string();
    let module = quote!(::core::module_path!());
    match &shape.enclosing {
        Some(Enclosing::Impl {
            self_ty: Some(ty),
            trait_: Some(TraitRef { name: Some(tr), .. }),
            ..
        }) => {
            let after = format!(" as {tr}>::{method}");
            quote!(::core::concat!("<", #module, "::", #ty, #after))
        }
        Some(Enclosing::Impl {
            self_ty: Some(ty), ..
        }) => {
            let after = format!("{ty}::{method}");
            quote!(::core::concat!(#module, "::", #after))
        }
        Some(Enclosing::Trait { name: tr }) => {
            let after = format!("{tr}::{method}");
            quote!(::core::concat!(#module, "::", #after))
        }
        _ => quote!(::core::concat!(#module, "::", #method)),
    }
}

/// Whether the site is named at its first call from its `Self` type: a method of an impl whose
/// self type is a macro fragment, without a `name` of its own.
pub(super) fn named_by_self_type(shape: &Shape, args: &Args) -> bool {
    args.name.is_none() && matches!(shape.enclosing, Some(Enclosing::Impl { self_ty: None, .. }))
}

pub(super) fn site_static(shape: &Shape, args: &Args) -> TokenStream {
    let name = site_name(shape, args);
    let naming = match &shape.enclosing {
        Some(Enclosing::Impl { generic, .. }) if named_by_self_type(shape, args) => {
            quote!(::invite::__private::Naming::OfSelf { generic_impl: #generic })
        }
        _ => quote!(::invite::__private::Naming::Fixed),
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
