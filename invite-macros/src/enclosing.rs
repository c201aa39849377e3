//! The `impl` or `trait` block around a method, as `#[invite::sites]` on that block tells it.
//!
//! An attribute on a method sees the method alone. The attribute macros read nothing but the
//! tokens the compiler hands them (no source file: an editor's unsaved buffer, code a build
//! script or a macro wrote, and a long-lived macro server all see the same expansion), so a
//! method learns its block only when the block says it: `#[invite::sites]` on an `impl` or
//! `trait` block hands every wrapped method in it a hidden `#[invite::__block(...)]` attribute
//! that the method's own attribute reads. Without it a method is called through `Self` and its
//! site is named at its first call from where the compiler put it (the runtime's `place`
//! module), which is enough but in two cases: a trait impl's method whose type has an inherent
//! method of the same name (its site refuses to test, and says to add `#[invite::sites]`), and
//! an associated function that neither takes `self` nor names `Self` in its signature, body or
//! relations (rustc cannot find it by its bare name, and says to call it through `Self`).

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::{Ident, Token};

/// The block that directly holds a method, as its block's `#[invite::sites]` said.
#[derive(Clone)]
pub(crate) enum Enclosing {
    /// An `impl` block: its self type's last path segment (`None` for a type that is no path,
    /// such as `[f64]`) and, for a trait impl, the trait's path as written (`Stat<T>`).
    Impl {
        self_ty: Option<Ident>,
        trait_path: Option<syn::Path>,
    },
    /// A trait definition (the method is a default method).
    Trait { name: Ident },
}

impl Enclosing {
    fn of_impl(item: &syn::ItemImpl) -> Enclosing {
        let self_ty = match &*item.self_ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                p.path.segments.last().map(|s| s.ident.clone())
            }
            _ => None,
        };
        Enclosing::Impl {
            self_ty,
            trait_path: item.trait_.as_ref().map(|(path, _)| path.clone()),
        }
    }
}

/// The hidden attribute's arguments: `impl Type`, `impl _`, `impl Type as path::Trait<T>`, or
/// `trait Name`.
impl Parse for Enclosing {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![trait]) {
            input.parse::<Token![trait]>()?;
            return Ok(Enclosing::Trait {
                name: input.parse()?,
            });
        }
        input.parse::<Token![impl]>()?;
        let self_ty = if input.peek(Token![_]) {
            input.parse::<Token![_]>()?;
            None
        } else {
            Some(input.parse()?)
        };
        let trait_path = if input.peek(Token![as]) {
            input.parse::<Token![as]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(Enclosing::Impl {
            self_ty,
            trait_path,
        })
    }
}

impl ToTokens for Enclosing {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(match self {
            Enclosing::Trait { name } => quote!(trait #name),
            Enclosing::Impl {
                self_ty,
                trait_path,
            } => {
                let ty = match self_ty {
                    Some(t) => quote!(#t),
                    None => quote!(_),
                };
                let tr = trait_path.as_ref().map(|p| quote!(as #p));
                quote!(impl #ty #tr)
            }
        });
    }
}

/// The hidden attribute's last path segment.
pub(crate) const HIDDEN: &str = "__block";

/// `#[invite::sites]`: the block, with each method that carries an invite attribute told
/// which block it is in.
pub(crate) fn expand_sites(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new_spanned(
            attr,
            "#[invite::sites] takes no arguments",
        ));
    }
    let mut item: syn::Item = syn::parse2(item)?;
    match &mut item {
        syn::Item::Impl(block) => {
            let enclosing = Enclosing::of_impl(block);
            for it in &mut block.items {
                if let syn::ImplItem::Fn(f) = it {
                    tell(&mut f.attrs, &enclosing);
                }
            }
        }
        syn::Item::Trait(block) => {
            let enclosing = Enclosing::Trait {
                name: block.ident.clone(),
            };
            for it in &mut block.items {
                if let syn::TraitItem::Fn(f) = it {
                    tell(&mut f.attrs, &enclosing);
                }
            }
        }
        other => {
            return Err(syn::Error::new_spanned(
                other,
                "#[invite::sites] goes on an `impl` or `trait` block whose methods carry \
                 #[invite::metamorphic], #[invite::in_vivo] or #[invite::discover]",
            ))
        }
    }
    Ok(item.into_token_stream())
}

/// Appends the hidden attribute to a method that carries an invite attribute: after it, so
/// that the first invite attribute, which expands first, finds it among the rest.
fn tell(attrs: &mut Vec<syn::Attribute>, enclosing: &Enclosing) {
    if attrs
        .iter()
        .any(|a| crate::expand::invite_attr_kind(a).is_some())
    {
        let hidden = Ident::new(HIDDEN, Span::call_site());
        attrs.push(syn::parse_quote!(#[::invite::#hidden(#enclosing)]));
    }
}

/// Whether `a` is the hidden attribute.
pub(crate) fn is_hidden(a: &syn::Attribute) -> bool {
    let segs = crate::expand::attr_path(a);
    matches!(segs.as_slice(), [first, last] if first == "invite" && last == HIDDEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn told(block: TokenStream) -> Vec<String> {
        let out: syn::Item = syn::parse2(expand_sites(TokenStream::new(), block).unwrap()).unwrap();
        let fns: Vec<Vec<syn::Attribute>> = match out {
            syn::Item::Impl(i) => i
                .items
                .into_iter()
                .filter_map(|it| match it {
                    syn::ImplItem::Fn(f) => Some(f.attrs),
                    _ => None,
                })
                .collect(),
            syn::Item::Trait(t) => t
                .items
                .into_iter()
                .filter_map(|it| match it {
                    syn::TraitItem::Fn(f) => Some(f.attrs),
                    _ => None,
                })
                .collect(),
            _ => unreachable!(),
        };
        fns.iter()
            .map(|attrs| {
                attrs
                    .iter()
                    .filter(|a| is_hidden(a))
                    .map(|a| {
                        let e: Enclosing = a.parse_args().unwrap();
                        e.to_token_stream().to_string()
                    })
                    .collect::<Vec<_>>()
                    .join(";")
            })
            .collect()
    }

    #[test]
    fn each_wrapped_method_of_a_trait_impl_is_told_its_type_and_trait() {
        let block = quote! {
            impl<T: Copy> crate::stats::Spread<f64> for Data<T> where T: Into<f64> {
                #[invite::metamorphic(self.spread() == result)]
                fn spread(&self) -> f64 { 0.0 }
                fn plain(&self) {}
                #[metamorphic(result)]
                fn other(&self) -> bool { true }
            }
        };
        assert_eq!(
            told(block),
            vec![
                "impl Data as crate :: stats :: Spread < f64 >",
                "",
                "impl Data as crate :: stats :: Spread < f64 >"
            ]
        );
    }

    #[test]
    fn inherent_impls_types_that_are_no_path_and_traits_are_told_too() {
        let inherent = quote!(impl Stats { #[invite::in_vivo(test = t)] fn push(&mut self) {} });
        assert_eq!(told(inherent), vec!["impl Stats"]);
        let slice =
            quote!(impl Stat for [f64] { #[invite::discover] fn mean(&self) -> f64 { 0.0 } });
        assert_eq!(told(slice), vec!["impl _ as Stat"]);
        let tr = quote!(
            trait Scorer {
                #[invite::metamorphic(true)]
                fn score(&self) -> f64 {
                    0.0
                }
            }
        );
        assert_eq!(told(tr), vec!["trait Scorer"]);
    }

    #[test]
    fn anything_but_a_block_or_an_argument_is_refused_with_what_to_do() {
        let e = expand_sites(
            TokenStream::new(),
            quote!(
                fn f() {}
            ),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("goes on an `impl` or `trait` block"),
            "{e}"
        );
        let e = expand_sites(quote!(x), quote!(impl S {})).unwrap_err();
        assert!(e.to_string().contains("takes no arguments"), "{e}");
    }
}
