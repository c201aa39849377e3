//! A relation's calls of the function itself become follow-up executions: the arguments are
//! evaluated first, the random stream is rewound, and the function runs on a fresh copy of a
//! receiver it could change. This rewrite of the relation's own expression is a room of its
//! own because it must keep every other token, and its place, as the relation wrote it.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Ident};

use super::execution::clone_receiver;
use super::shape::{OwnCall, Receiver, Shape};

/// A follow-up execution: arguments first (into `binds`, keeping their temporaries alive for the
/// call), then the stream rewound, then `prepare` (a receiver's fresh copy) and the call. It
/// keeps the `span` of the call it replaces, so that a relation's compile errors point at the
/// relation, not at the whole attribute. For an `async fn` the call is left a future, for the
/// relation to `.await` as written; one that owns a fresh receiver owns it in an `async`
/// block. A call of an `unsafe fn` gets no `unsafe` block here: the relation chose these
/// arguments, so it must say `unsafe` around the call itself, as anywhere else in Rust, and
/// without that the call is the compiler's error at the relation.
fn replayed(
    shape: &Shape,
    span: Span,
    args: &[TokenStream],
    binds: &[Ident],
    prepare: TokenStream,
    call: TokenStream,
) -> Expr {
    let call = if shape.is_async && !prepare.is_empty() {
        quote!(async move { #call.await })
    } else {
        call
    };
    syn::parse_quote_spanned! {span=>
        match (#(#args,)*) {
            (#(#binds,)*) => {
                __invite_t.replay();
                #prepare
                #call
            }
        }
    }
}

/// Rewrites calls of the function's own name in a relation into follow-up executions:
/// arguments are evaluated first (they may hold nested follow-ups), then the stream is rewound,
/// then the function runs (its body alone, inside a test process), on a fresh clone of a
/// receiver it may change or consume. The call stays as written otherwise.
pub(super) struct FollowUps<'a> {
    shape: &'a Shape,
    /// Inside one of the relation's own `unsafe` blocks.
    in_unsafe: bool,
}

impl<'a> FollowUps<'a> {
    pub(super) fn new(shape: &'a Shape) -> FollowUps<'a> {
        FollowUps {
            shape,
            in_unsafe: false,
        }
    }

    /// A fresh copy of the receiver that `of` (a reference to it) points at, and how to pass it.
    fn fresh_receiver(&self, of: &Ident) -> (TokenStream, TokenStream) {
        let copy = clone_receiver(self.shape, quote!(#of));
        match self.shape.receiver {
            Receiver::RefMut => (
                quote!(let mut __invite_recv = #copy;),
                quote!(&mut __invite_recv),
            ),
            // Boxed rather than pinned on the stack: an `async fn`'s follow-up is a future that
            // owns its receiver beyond this arm.
            Receiver::PinMut => (
                quote!(let mut __invite_recv = ::std::boxed::Box::pin(#copy);),
                quote!(__invite_recv.as_mut()),
            ),
            _ => (quote!(let __invite_recv = #copy;), quote!(__invite_recv)),
        }
    }

    /// The receiver's clone is needed: the execution could change or consume it.
    fn clones_receiver(&self) -> bool {
        matches!(
            self.shape.receiver,
            Receiver::RefMut | Receiver::PinMut | Receiver::Value
        )
    }
}

/// `self` itself: the live receiver, which a follow-up must not change or consume.
fn is_self_expr(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident("self"))
}

impl VisitMut for FollowUps<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let outer = self.in_unsafe;
        self.in_unsafe |= matches!(e, Expr::Unsafe(_));
        syn::visit_mut::visit_expr_mut(self, e);
        self.in_unsafe = outer;
        let span = e.span();
        let shape = self.shape;
        if shape.is_unsafe && !self.in_unsafe && shape.own_call(e).is_some() {
            // The function's body is an unsafe context before edition 2024, so rustc would
            // let the call through: the relation must vouch for these inputs itself.
            let name = shape.name.to_string();
            let message = format!(
                "`{name}` is an `unsafe fn`, and this call gives it inputs its caller never \
                 vouched for: write the call in an `unsafe {{ }}` block of the relation, with a \
                 `// SAFETY:` comment that says why its preconditions hold"
            );
            *e = syn::parse_quote_spanned!(span=> ::core::compile_error!(#message));
            return;
        }
        let binds_for =
            |n: usize| -> Vec<Ident> { (0..n).map(|i| format_ident!("__invite_a{}", i)).collect() };
        let own = shape.own_call(e);
        match e {
            Expr::Call(c) if own.is_some() => {
                let Expr::Path(p) = &*c.func else {
                    unreachable!("own_call reads only paths")
                };
                let via_self = own == Some(OwnCall::ViaSelf);
                // Through the trait when it is known, so that an inherent method of the same
                // name cannot answer for it; the call's own generic arguments stay.
                let callee = match shape.trait_callee() {
                    Some(path) if via_self => {
                        let generics = &p.path.segments.last().expect("non-empty").arguments;
                        quote!(#path #generics)
                    }
                    _ => {
                        let f = &c.func;
                        quote!(#f)
                    }
                };
                let mut args: Vec<TokenStream> = c.args.iter().map(|a| quote!(#a)).collect();
                let binds = binds_for(args.len());
                let mut call_args: Vec<TokenStream> = binds.iter().map(|b| quote!(#b)).collect();
                let mut prepare = TokenStream::new();
                let live_receiver = c.args.first().is_some_and(is_self_expr);
                if via_self && self.clones_receiver() && live_receiver {
                    // Only borrowed, to be cloned: the receiver itself must stay usable.
                    let recv = &args[0];
                    args[0] = quote!(&(#recv));
                    let (make, pass) = self.fresh_receiver(&binds[0]);
                    prepare = make;
                    call_args[0] = pass;
                }
                let call = quote!(#callee(#(#call_args),*));
                *e = replayed(shape, span, &args, &binds, prepare, call);
            }
            Expr::MethodCall(m) if own == Some(OwnCall::Method) => {
                let recv = &m.receiver;
                let method = &m.method;
                let turbofish = &m.turbofish;
                let mut args: Vec<TokenStream> = m.args.iter().map(|a| quote!(#a)).collect();
                let binds = binds_for(args.len());
                let live_receiver = is_self_expr(recv);
                let trait_callee = shape.trait_callee().filter(|_| live_receiver);
                if !(live_receiver && self.clones_receiver()) {
                    // Another value (a fresh one, or not the function's type at all) is called
                    // as written; the live receiver, shared, through the trait when known.
                    let call = match &trait_callee {
                        Some(path) => quote!(#path #turbofish(#recv, #(#binds),*)),
                        None => quote!((#recv).#method #turbofish(#(#binds),*)),
                    };
                    *e = replayed(shape, span, &args, &binds, TokenStream::new(), call);
                    return;
                }
                // The live receiver is evaluated with the arguments, borrowed, and cloned after
                // the stream is rewound.
                let of = format_ident!("__invite_recv_of");
                args.insert(0, quote!(&(#recv)));
                let mut all = vec![of.clone()];
                all.extend(binds.iter().cloned());
                let (make, pass) = self.fresh_receiver(&of);
                let call = match (&trait_callee, shape.receiver) {
                    (Some(path), _) => quote!(#path #turbofish(#pass, #(#binds),*)),
                    (None, Receiver::PinMut) => {
                        quote!(#pass.#method #turbofish(#(#binds),*))
                    }
                    (None, _) => quote!(__invite_recv.#method #turbofish(#(#binds),*)),
                };
                *e = replayed(shape, span, &args, &all, make, call);
            }
            _ => {}
        }
    }
}
