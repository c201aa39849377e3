//! What expansion needs to know about the function, read once from its signature, its
//! relations and the block it is written in: how it takes `self` and each parameter, how it
//! calls itself, and whether a relation's call is a call of it. The rooms that write code all
//! ask the `Shape` made here, so that they agree on these answers.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::visit::Visit;
use syn::{Expr, FnArg, Ident, ItemFn, Pat, ReceiverKind, Type};

use crate::enclosing::Enclosing;
use crate::parse::{Args, Test};

/// How the method takes `self`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Receiver {
    None,
    /// `&self`, `self: &Self`.
    Ref,
    /// `&mut self`, `self: &mut Self`: each execution gets a clone.
    RefMut,
    /// `self: Pin<&mut Self>`: each execution gets a clone, pinned on its stack.
    PinMut,
    /// `self`, `self: Box<Self>`, `self: Arc<Self>`, ...: each execution gets a clone.
    Value,
}

/// How a parameter is passed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Passing {
    Shared,
    Mut,
    Value,
}

pub(super) struct Param {
    pub(super) ident: Ident,
    pub(super) passing: Passing,
    /// The type as written, for the log (regression tests are written from it).
    pub(super) ty: String,
    /// The type, for the conversions of relation discovery.
    pub(super) ty_tokens: Type,
}

/// What expansion needs to know about the function.
pub(super) struct Shape {
    pub(super) name: Ident,
    pub(super) receiver: Receiver,
    /// `self`, with the span of the signature's receiver, so that it resolves to it even when
    /// the function comes from a macro.
    pub(super) self_tok: Ident,
    /// The type of a typed by-value receiver (`Box<Self>`); `None` for `Self`.
    pub(super) receiver_ty: Option<Type>,
    pub(super) receiver_span: Span,
    pub(super) params: Vec<Param>,
    /// A method or associated function: the function is reached through `Self`.
    pub(super) assoc: bool,
    /// The block the function is written in, when `#[invite::sites]` on it said.
    pub(super) enclosing: Option<Enclosing>,
    /// `::<T, U>` for calls of the function, empty when `impl Trait` arguments forbid it.
    pub(super) turbofish: TokenStream,
    pub(super) is_unsafe: bool,
    pub(super) is_async: bool,
    /// A parameter's type holds `impl Trait`: the function cannot be named without arguments.
    pub(super) impl_trait: bool,
    /// The result type, when the function has one.
    pub(super) output: Option<Type>,
    /// The function's type parameters, with `Self` in a trait's default method: a type that
    /// names one is known only per instance.
    pub(super) type_params: Vec<Ident>,
    /// The function declares lifetime parameters.
    pub(super) lifetime_params: bool,
    /// Its type parameters that may be unsized (`T: ?Sized`, in the list or a where-clause).
    pub(super) maybe_unsized: Vec<Ident>,
    /// Under discovery, the wrong versions of a free function (`#[invite::mutants]`'s) as an
    /// expression of their list, with their pointer type; `None` where none can be built.
    pub(super) mutants: Option<(TokenStream, TokenStream)>,
}

impl Shape {
    /// The function's path from inside it: `name`, `Self::name`, or `<Self as Trait>::name` in
    /// a trait impl whose trait is known (an inherent method of the same name would otherwise
    /// win).
    pub(super) fn callee(&self) -> TokenStream {
        let name = &self.name;
        if !self.assoc {
            return quote!(#name);
        }
        self.trait_callee().unwrap_or_else(|| quote!(Self::#name))
    }

    /// `<Self as Trait>::name`, in a trait impl whose trait `#[invite::sites]` said.
    pub(super) fn trait_callee(&self) -> Option<TokenStream> {
        let name = &self.name;
        match &self.enclosing {
            Some(Enclosing::Impl {
                trait_path: Some(path),
                ..
            }) => Some(quote!(<Self as #path>::#name)),
            _ => None,
        }
    }

    /// How `e` calls the function itself, if it does: the one reading of a relation's calls
    /// that the follow-ups and the check of awaits share.
    pub(super) fn own_call(&self, e: &Expr) -> Option<OwnCall> {
        match e {
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return None;
                };
                let segs: Vec<&Ident> = p.path.segments.iter().map(|s| &s.ident).collect();
                let via_qself = p.qself.as_ref().is_some_and(|q| is_self(&q.ty))
                    && segs.last().is_some_and(|l| **l == self.name);
                if via_qself || (p.qself.is_none() && self.names_self_path(&segs)) {
                    Some(OwnCall::ViaSelf)
                } else if p.qself.is_none()
                    && segs.len() == 1
                    && *segs[0] == self.name
                    && !self.assoc
                {
                    Some(OwnCall::Bare)
                } else {
                    None
                }
            }
            Expr::MethodCall(m) if m.method == self.name && self.receiver != Receiver::None => {
                Some(OwnCall::Method)
            }
            _ => None,
        }
    }

    /// Whether `segs` (a path's segments) name the function through `Self` or its own type.
    fn names_self_path(&self, segs: &[&Ident]) -> bool {
        let own_type = match &self.enclosing {
            Some(Enclosing::Impl {
                self_ty: Some(t), ..
            }) => Some(t),
            _ => None,
        };
        matches!(segs, [ty, name] if *name == &self.name
            && (*ty == "Self" || own_type.is_some_and(|t| *ty == t)))
    }
}

/// How a relation's call reaches the function itself.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum OwnCall {
    /// `Self::name(..)`, `Type::name(..)`, `<Self as Trait>::name(..)`.
    ViaSelf,
    /// `name(..)`, for a function outside an impl.
    Bare,
    /// `value.name(..)`.
    Method,
}

/// A parameter's pattern when it is a plain name (`x`, `mut x`): the name it binds.
pub(super) fn plain_name(pat: &Pat) -> Option<&Ident> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(&p.ident),
        _ => None,
    }
}

/// How a typed receiver (`self: T`) is taken.
fn typed_receiver(ty: &Type) -> Receiver {
    match ty {
        Type::Reference(r) if is_self(&r.elem) => {
            if r.mutability.is_some() {
                Receiver::RefMut
            } else {
                Receiver::Ref
            }
        }
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last();
            let pinned_mut = last.is_some_and(|s| {
                s.ident == "Pin"
                    && matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                        if matches!(a.args.first(), Some(syn::GenericArgument::Type(Type::Reference(r)))
                            if r.mutability.is_some() && is_self(&r.elem)))
            });
            if pinned_mut {
                Receiver::PinMut
            } else {
                Receiver::Value
            }
        }
        _ => Receiver::Value,
    }
}

fn is_self(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"))
}

pub(super) fn shape_of(f: &ItemFn, args: &Args, block: Option<Enclosing>) -> syn::Result<Shape> {
    let sig = &f.sig;
    let mut receiver = Receiver::None;
    let mut receiver_span = Span::call_site();
    let mut receiver_ty = None;
    let mut params = Vec::new();
    let mut impl_trait = false;
    for (i, input) in sig.inputs.iter().enumerate() {
        match input {
            FnArg::Receiver(r) => {
                receiver_span = r.self_token.span;
                receiver = match &r.kind {
                    ReceiverKind::Reference(_, _, Some(_)) => Receiver::RefMut,
                    ReceiverKind::Reference(_, _, None) => Receiver::Ref,
                    ReceiverKind::Typed(_, ty) => {
                        let how = typed_receiver(ty);
                        if how == Receiver::Value {
                            receiver_ty = Some((**ty).clone());
                        }
                        how
                    }
                    _ => Receiver::Value,
                };
            }
            FnArg::Typed(t) => {
                impl_trait |= mentions_impl_trait(&t.ty);
                let ident = match plain_name(&t.pat) {
                    Some(ident) => ident.clone(),
                    None => format_ident!("__invite_arg{}", i),
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
    // `Self` in the body (`Self::helper(x)`, `Self::LIMIT`) says the function is written in
    // an `impl` or `trait` block, as it does in the signature.
    let body_mentions_self = {
        let mut v = MentionsSelf(false);
        v.visit_block(&f.block);
        v.0
    };
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
    // Only what the block's `#[invite::sites]` said: the macro reads nothing but its tokens.
    let enclosing = block;
    let in_block = matches!(
        enclosing,
        Some(Enclosing::Impl { .. } | Enclosing::Trait { .. })
    );
    let assoc = receiver != Receiver::None
        || sig_mentions_self
        || body_mentions_self
        || relations_call_self
        || in_block;
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
    let mut type_params: Vec<Ident> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.clone()),
            _ => None,
        })
        .collect();
    // In a trait's default method `Self` is a type parameter; where the block is unknown, a
    // method's `Self` may be one, and is taken for one (its values are then checked per
    // instance rather than at compile time).
    if assoc && !matches!(enclosing, Some(Enclosing::Impl { .. })) {
        type_params.push(Ident::new("Self", Span::call_site()));
    }
    let turbofish = if impl_trait || generic_args.is_empty() {
        TokenStream::new()
    } else {
        quote!(::<#(#generic_args),*>)
    };
    Ok(Shape {
        name,
        receiver,
        self_tok: Ident::new("self", receiver_span),
        receiver_ty,
        receiver_span,
        params,
        assoc,
        enclosing,
        turbofish,
        is_unsafe: matches!(sig.safety, syn::Safety::Unsafe(_)),
        is_async: sig.asyncness.is_some(),
        impl_trait,
        output: match &sig.output {
            syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
            syn::ReturnType::Default => None,
        },
        type_params,
        lifetime_params: sig
            .generics
            .params
            .iter()
            .any(|p| matches!(p, syn::GenericParam::Lifetime(_))),
        maybe_unsized: maybe_unsized(&sig.generics),
        mutants: None,
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

/// Whether a body names `Self` outside the items nested in it (whose `Self` is their own),
/// macro calls' tokens included.
struct MentionsSelf(bool);

impl<'a> Visit<'a> for MentionsSelf {
    fn visit_item(&mut self, _: &'a syn::Item) {}

    fn visit_ident(&mut self, i: &'a Ident) {
        self.0 |= i == "Self";
    }

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        fn any_self(tokens: TokenStream) -> bool {
            tokens.into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => i == "Self",
                proc_macro2::TokenTree::Group(g) => any_self(g.stream()),
                _ => false,
            })
        }
        self.0 |= any_self(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

struct FindsSelfCall<'a> {
    name: &'a Ident,
    found: bool,
}

impl<'a> Visit<'a> for FindsSelfCall<'_> {
    fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
        let s = &p.path.segments;
        let via_self = s.len() == 2 && s[0].ident == "Self" && s[1].ident == *self.name;
        let via_qself = p.qself.as_ref().is_some_and(|q| is_self(&q.ty))
            && s.last().is_some_and(|l| l.ident == *self.name);
        if via_self || via_qself {
            self.found = true;
        }
        syn::visit::visit_expr_path(self, p);
    }
}

/// The type parameters bounded `?Sized`, in their list or a where-clause.
fn maybe_unsized(generics: &syn::Generics) -> Vec<Ident> {
    let relaxed = |bounds: &syn::punctuated::Punctuated<syn::TypeParamBound, syn::Token![+]>| {
        bounds
            .iter()
            .any(|b| matches!(b, syn::TypeParamBound::Trait(t) if t.maybe.is_some()))
    };
    let mut out: Vec<Ident> = generics
        .type_params()
        .filter(|t| relaxed(&t.bounds))
        .map(|t| t.ident.clone())
        .collect();
    for pred in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        if let syn::WherePredicate::Type(t) = pred {
            if let (Type::Path(p), true) = (&t.bounded_ty, relaxed(&t.bounds)) {
                out.extend(p.path.get_ident().cloned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Kind;

    fn shape(attr: &str, item: &str) -> Shape {
        let mut args = Args::default();
        args.add(Kind::Metamorphic, attr.parse().unwrap()).unwrap();
        let func: ItemFn = syn::parse_str(item).unwrap();
        shape_of(&func, &args, None).unwrap()
    }

    #[test]
    fn a_function_is_reached_through_self_when_it_or_its_relations_say_so() {
        let free = shape("f(x) == result", "fn f(x: u8) -> u8 { x }");
        assert!(!free.assoc);
        assert_eq!(free.callee().to_string(), "f");
        for (attr, item) in [
            ("Self::f(x) == result", "fn f(x: u8) -> u8 { x }"),
            ("<Self as T>::f(x) == result", "fn f(x: u8) -> u8 { x }"),
            ("result > 0", "fn f(&self) -> u8 { 1 }"),
            ("result > 0", "fn f(x: u8) -> Self { x }"),
        ] {
            let s = shape(attr, item);
            assert!(s.assoc, "{attr} on {item}");
            assert_eq!(s.callee().to_string(), "Self :: f");
        }
        // `Self` in the body, in an expression or a macro's tokens; not in a nested item's.
        for item in [
            "fn f(x: u8) -> u8 { Self::g(x) }",
            "fn f(x: u8) -> u8 { x.min(Self::MAX) }",
            "fn f(x: u8) -> u8 { let v: Vec<Self> = vec![]; x }",
            "fn f(x: u8) -> u8 { assert!(Self::ok(x)); x }",
            "fn f(x: u8) -> u8 { assert!([Self::MAX][0] >= x); x }",
            "fn f(x: u8) -> u8 { g(|| { (x, [Self::g(x)]) }).0 }",
        ] {
            assert!(shape("result > 0", item).assoc, "{item}");
        }
        for item in [
            "fn f(x: u8) -> u8 { struct A; impl A { fn a() -> Self { A } } x }",
            "fn f(x: u8) -> u8 { trait T { fn t() -> Self; } x }",
            "fn f(x: u8) -> u8 { let self_ = 1; x + self_ }",
            "fn f(x: u8) -> u8 { assert!([x][0] >= x, \"{x}\"); x }",
        ] {
            assert!(!shape("result > 0", item).assoc, "{item}");
        }
        assert!(!shape("Self::g(x) == result", "fn f(x: u8) -> u8 { x }").assoc);
        assert!(!shape("<Self as T>::g(x) == result", "fn f(x: u8) -> u8 { x }").assoc);
        assert!(!shape("Other::f(x) == result", "fn f(x: u8) -> u8 { x }").assoc);
    }

    #[test]
    fn generic_arguments_are_passed_on_unless_an_impl_trait_argument_forbids_them() {
        let generic = shape(
            "result > 0",
            "fn f<'a, T: Copy, const N: usize>(x: &'a [T; N]) -> u8 { 1 }",
        );
        assert_eq!(generic.turbofish.to_string(), ":: < T , N >");
        let opaque = shape(
            "result > 0",
            "fn f<T: Copy>(x: T, y: impl Copy) -> u8 { 1 }",
        );
        assert!(opaque.turbofish.is_empty());
        let nested = shape("result > 0", "fn f<T>(x: Vec<impl Copy>, y: T) -> u8 { 1 }");
        assert!(nested.turbofish.is_empty());
    }

    #[test]
    fn a_parameter_is_a_plain_name_only_when_bound_by_value_as_a_whole() {
        let pat = |s: &str| {
            let f: ItemFn = syn::parse_str(&format!("fn f({s}: u8) {{}}")).unwrap();
            match &f.sig.inputs[0] {
                FnArg::Typed(t) => plain_name(&t.pat).map(|i| i.to_string()),
                _ => unreachable!("a typed parameter"),
            }
        };
        assert_eq!(pat("x"), Some("x".into()));
        assert_eq!(pat("mut x"), Some("x".into()));
        assert_eq!(pat("ref x"), None);
        assert_eq!(pat("x @ _"), None);
        assert_eq!(pat("_"), None);
    }

    #[test]
    fn typed_receivers_are_taken_as_written() {
        let ty = |s: &str| syn::parse_str::<Type>(s).unwrap();
        assert!(typed_receiver(&ty("&Self")) == Receiver::Ref);
        assert!(typed_receiver(&ty("&'a mut Self")) == Receiver::RefMut);
        assert!(typed_receiver(&ty("Pin<&mut Self>")) == Receiver::PinMut);
        assert!(typed_receiver(&ty("std::pin::Pin<&mut Self>")) == Receiver::PinMut);
        assert!(typed_receiver(&ty("Pin<&Self>")) == Receiver::Value);
        assert!(typed_receiver(&ty("Box<Self>")) == Receiver::Value);
        assert!(typed_receiver(&ty("&Box<Self>")) == Receiver::Value);
    }
}
