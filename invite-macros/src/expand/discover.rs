//! Relation discovery's side of the expansion: what a function under `#[invite::discover]` must
//! be (refused otherwise), its signature as discovery reads it, and the entry that, in the
//! child, runs the function on the live arguments and on the follow-ups discovery makes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Type};

use super::execution::{awaited_call, receiver_for_execution};
use super::shape::{Passing, Receiver, Shape};

/// The `&mut` parameter of an in-place function (one such parameter, no result): what it
/// holds after the call is the result discovery compares.
fn in_place(shape: &Shape) -> Option<usize> {
    let mut muts = shape
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.passing == Passing::Mut);
    match (muts.next(), muts.next(), &shape.output) {
        (Some((i, _)), None, None) => Some(i),
        _ => None,
    }
}

/// Refuses, at compile time, what discovery cannot call again on transformed copies.
pub(super) fn check_discoverable(func: &ItemFn, shape: &Shape) -> syn::Result<()> {
    let in_place = in_place(shape);
    for (i, (p, input)) in shape
        .params
        .iter()
        .zip(
            func.sig
                .inputs
                .iter()
                .filter(|i| matches!(i, FnArg::Typed(_))),
        )
        .enumerate()
    {
        if p.passing == Passing::Mut && in_place != Some(i) {
            return Err(syn::Error::new(
                input.span(),
                "relation discovery calls the function again on transformed copies of its \
                 arguments and compares the results; it compares what a `&mut` parameter holds \
                 after the call only where that is the function's one output (one `&mut` \
                 parameter, no result): discover a function of that shape, or one that takes \
                 this parameter by value or by `&` reference",
            ));
        }
    }
    if let syn::Safety::Unsafe(token) = &func.sig.safety {
        return Err(syn::Error::new(
            token.span(),
            "relation discovery calls the function on inputs it makes up, and an `unsafe fn` \
             may only be called on inputs that meet its safety preconditions: discover a safe \
             function that checks them and calls this one",
        ));
    }
    if shape.output.is_none() && in_place.is_none() {
        return Err(syn::Error::new(
            func.sig.ident.span(),
            "relation discovery compares the function's results, and this function returns \
             none: discover a function that returns a value (a number, a string, a vector, a tuple, \
             a struct that derives `invite::Discoverable`), or changes one `&mut` parameter in \
             place",
        ));
    }
    Ok(())
}

/// The signature as discovery reads it: `fn name(&self, x: f64, xs: &[f64]) -> f64`.
pub(super) fn signature_text(shape: &Shape) -> String {
    let receiver = match shape.receiver {
        Receiver::None => None,
        Receiver::Ref => Some("&self".to_string()),
        Receiver::RefMut => Some("&mut self".to_string()),
        Receiver::PinMut => Some("self: Pin<&mut Self>".to_string()),
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
pub(super) fn discover_arm(shape: &Shape) -> TokenStream {
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
            Passing::Mut => {
                quote!(<#o as #d>::to_value(&::std::borrow::ToOwned::to_owned(&*#id)))
            }
            Passing::Value => quote!(<#o as #d>::to_value(&#id)),
        }
    });
    let locals: Vec<Ident> = (0..shape.params.len())
        .map(|i| format_ident!("__invite_d{}", i))
        .collect();
    let converts: Vec<TokenStream> = locals
        .iter()
        .zip(&owned)
        .enumerate()
        .map(|(i, (l, o))| {
            quote!(#[allow(unused_mut)] let mut #l = <#o as #d>::from_value(__invite_v.get(#i)?)?;)
        })
        .collect();
    let (setup, receiver, _) = receiver_for_execution(shape, "__invite_d_self");
    // A `&self` receiver whose type derives `Discoverable` has its fields moved: they lead the
    // values, and each call is on a receiver rebuilt from them.
    let fields = shape.receiver == Receiver::Ref;
    let this = &shape.self_tok;
    let (probe, field_values, rebuild, receiver) = if fields {
        (
            quote! {
                #[allow(unused_imports)]
                use ::invite::__private::{ReceiverFields as _, ReceiverOpaque as _};
                let __invite_rp = ::invite::__private::ReceiverProbe::<Self>::new();
                let __invite_rv: ::std::vec::Vec<::invite::__private::Value> =
                    (&&__invite_rp).values(#this).unwrap_or_default();
                let __invite_rf = if __invite_rv.is_empty() {
                    ::std::vec::Vec::new()
                } else {
                    (&&__invite_rp).fields()
                };
                let __invite_nf = __invite_rf.len();
            },
            quote!(.chain(__invite_rv.into_iter().map(::core::option::Option::Some))),
            quote! {
                let (__invite_fv, __invite_v) = __invite_v.split_at(__invite_nf.min(__invite_v.len()));
                let __invite_rebuilt = if __invite_nf > 0 {
                    ::core::option::Option::Some((&&__invite_rp).rebuild(__invite_fv)?)
                } else {
                    ::core::option::Option::None
                };
                let __invite_recv = match &__invite_rebuilt {
                    ::core::option::Option::Some(__invite_r) => &**__invite_r,
                    ::core::option::Option::None => #this,
                };
            },
            Some(quote!(__invite_recv)),
        )
    } else {
        (
            TokenStream::new(),
            TokenStream::new(),
            TokenStream::new(),
            receiver,
        )
    };
    let field_list = if fields {
        quote!(&__invite_rf)
    } else {
        quote!(&[])
    };
    let mut call_args: Vec<TokenStream> = receiver.into_iter().collect();
    for (p, l) in shape.params.iter().zip(&locals) {
        call_args.push(match p.passing {
            Passing::Shared => quote!(&#l),
            Passing::Mut => quote!(&mut #l),
            Passing::Value => quote!(#l),
        });
    }
    let call = awaited_call(shape, &call_args, false);
    let (out_owned, out_value) = match (in_place(shape), shape.output.as_ref()) {
        // What the parameter holds after the call.
        (Some(i), _) => {
            let (l, o) = (&locals[i], &owned[i]);
            (o.clone(), quote!(<#o as #d>::to_value(&#l)))
        }
        (None, Some(output)) => match output {
            Type::Reference(_) => {
                let o = owned_type(output);
                let v = quote!(<#o as #d>::to_value(&::std::borrow::ToOwned::to_owned(__invite_r)));
                (o, v)
            }
            other => (
                quote!(#other),
                quote!(<#other as #d>::to_value(&__invite_r)),
            ),
        },
        (None, None) => unreachable!("checked by check_discoverable"),
    };
    // One call on fresh copies of the values, on the replayed random stream: of the function,
    // and of each wrong version, on the receiver rebuilt alike.
    let run = |call: TokenStream| {
        quote! {
            #rebuild
            #(#converts)*
            #setup
            __invite_t.replay();
            #[allow(clippy::let_unit_value)]
            let __invite_r = ::invite::__private::discover_quietly(|| #call)?;
            #out_value
        }
    };
    let run_function = run(call);
    let run_version = run(quote!(__invite_f(#(#call_args),*)));
    // The wrong versions, named as the records key them.
    let (versions, wrong) = match &shape.mutants {
        Some((list, pointer)) => (
            quote! {
                let __invite_versions: ::std::vec::Vec<(&'static str, #pointer)> = #list;
            },
            quote! {
                |__invite_k: usize, __invite_v: &[::invite::__private::Value]|
                    -> ::core::option::Option<::invite::__private::Value>
                {
                    let __invite_f = __invite_versions.get(__invite_k)?.1;
                    #run_version
                }
            },
        ),
        None => (
            quote!(let __invite_versions: [(&'static str, ()); 0] = [];),
            quote!(|_: usize, _: &[::invite::__private::Value]| ::core::option::Option::None),
        ),
    };
    let signature = signature_text(shape);
    quote!({
        #versions
        // The receiver's fields first: a method's versions rebuild it from them too.
        #probe
        let mut __invite_wrong = #wrong;
        let mut __invite_call = |__invite_v: &[::invite::__private::Value]|
            -> ::core::option::Option<::invite::__private::Value>
        {
            #run_function
        };
        ::invite::__private::discover_observe(
            __invite_t,
            #signature,
            #field_list,
            &[#(#kinds),*],
            <#out_owned as #d>::KIND,
            ::std::iter::empty()#field_values.chain([#(#values),*]).collect(),
            &mut __invite_call,
            &__invite_versions.iter().map(|__invite_w| __invite_w.0).collect::<::std::vec::Vec<_>>(),
            &mut __invite_wrong,
        );
    })
}
