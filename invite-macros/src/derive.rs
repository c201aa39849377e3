//! `#[derive(invite::Discoverable)]`: a struct's fields as values discovery compares whole and,
//! where the struct is a method's receiver, moves one by one.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Index, Member};

/// The implementation of `Discoverable` (and `Element`, so that a vector of the struct is a
/// list) for a struct whose fields are all discoverable.
pub fn discoverable(input: DeriveInput) -> syn::Result<TokenStream> {
    if !cfg!(feature = "discover") {
        return Err(syn::Error::new(
            input.ident.span(),
            "relation discovery is an optional part of invite: enable it with \
             `invite-mt = { version = \"...\", features = [\"discover\"] }` in Cargo.toml, or \
             derive `Discoverable` only where it is on \
             (`#[cfg_attr(feature = \"...\", derive(invite::Discoverable))]`)",
        ));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "`Discoverable` is derived for structs: discovery moves a struct's fields, and an \
             enum or a union has no fields every value holds; discover a function of a struct \
             or of the values the variants hold",
        ));
    };
    if let Some(param) = input.generics.params.first() {
        return Err(syn::Error::new(
            param.span(),
            "`Discoverable` is derived for structs without type or lifetime parameters: a \
             relation names the struct's fields with their types, which a parameter leaves \
             open; derive it for a concrete struct, or implement `invite::discover::\
             Discoverable` by hand",
        ));
    }
    let d = quote!(::invite::__private::Discoverable);
    let value = quote!(::invite::__private::Value);
    let name = &input.ident;
    let (members, types): (Vec<Member>, Vec<&syn::Type>) = match &data.fields {
        Fields::Named(f) => f
            .named
            .iter()
            .map(|f| (Member::Named(f.ident.clone().expect("named")), &f.ty))
            .unzip(),
        Fields::Unnamed(f) => f
            .unnamed
            .iter()
            .enumerate()
            .map(|(i, f)| (Member::Unnamed(Index::from(i)), &f.ty))
            .unzip(),
        Fields::Unit => (Vec::new(), Vec::new()),
    };
    let names: Vec<String> = members
        .iter()
        .map(|m| match m {
            Member::Named(i) => i.to_string(),
            Member::Unnamed(i) => i.index.to_string(),
        })
        .collect();
    let type_texts: Vec<String> = types
        .iter()
        .map(|t| crate::text::source_text(&t.to_token_stream()))
        .collect();
    let count = members.len();
    let indices = 0..count;
    // Spanned on each field's type, so that a field discovery cannot reason about is named.
    let to_values = members
        .iter()
        .zip(&types)
        .map(|(m, t)| quote::quote_spanned!(t.span()=> <#t as #d>::to_value(&self.#m)?));
    let from_values = members
        .iter()
        .zip(&types)
        .zip(indices)
        .map(|((m, t), i)| quote!(#m: <#t as #d>::from_value(&__invite_items[#i])?));
    Ok(quote! {
        impl #d for #name {
            const KIND: ::invite::__private::Kind = ::invite::__private::Kind::Record;
            fn fields() -> ::std::vec::Vec<::invite::__private::Field> {
                ::std::vec![#(::invite::__private::Field {
                    name: #names,
                    ty: #type_texts,
                    kind: <#types as #d>::KIND,
                }),*]
            }
            fn to_value(&self) -> ::core::option::Option<#value> {
                ::core::option::Option::Some(#value::Record(::std::vec![#(#to_values),*]))
            }
            fn from_value(__invite_v: &#value) -> ::core::option::Option<Self> {
                match __invite_v {
                    #value::Record(__invite_items) if __invite_items.len() == #count => {
                        ::core::option::Option::Some(Self { #(#from_values),* })
                    }
                    _ => ::core::option::Option::None,
                }
            }
        }
        impl ::invite::__private::Element for #name {}
    })
}
