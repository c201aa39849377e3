//! One execution of the function inside a test: fresh copies of what it may change (a
//! `&mut self` receiver, `&mut` and by-value arguments), the call through the function's own
//! path, an `unsafe` block where the function needs one, and an `async fn`'s future driven to
//! its output. The test arms, the follow-ups and discovery build their executions from these,
//! so that each one starts from the inputs the live call saw.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Expr;

use super::shape::{Passing, Receiver, Shape};

/// The source run: statements that prepare fresh copies of mutable inputs, the call, and the
/// receiver and arguments a hand-written test sees afterwards.
pub(super) struct SourceRun {
    pub(super) setup: TokenStream,
    pub(super) call: TokenStream,
    pub(super) check_receiver: Option<TokenStream>,
    pub(super) check_args: Vec<TokenStream>,
}

/// The receiver of one execution: statements that make its fresh copy, the argument to pass,
/// and what a hand-written test sees of it afterwards. `local` names the copy.
pub(super) fn receiver_for_execution(
    shape: &Shape,
    local: &str,
) -> (TokenStream, Option<TokenStream>, Option<TokenStream>) {
    let this = &shape.self_tok;
    let local = format_ident!("{}", local);
    match shape.receiver {
        Receiver::None => (TokenStream::new(), None, None),
        Receiver::Ref => (TokenStream::new(), Some(quote!(#this)), Some(quote!(#this))),
        Receiver::RefMut => {
            let copy = clone_receiver(shape, quote!(&*#this));
            (
                quote!(let mut #local = #copy;),
                Some(quote!(&mut #local)),
                Some(quote!(&mut #local)),
            )
        }
        Receiver::PinMut => {
            let copy = clone_receiver(shape, quote!(&*#this));
            (
                quote!(let mut #local = ::core::pin::pin!(#copy);),
                Some(quote!(#local.as_mut())),
                Some(quote!(#local.as_mut())),
            )
        }
        Receiver::Value => (
            TokenStream::new(),
            Some(clone_receiver(shape, quote!(&#this))),
            Some(quote!(&#this)),
        ),
    }
}

/// `prefix` names the fresh copies, so that two source runs can share a scope (a result may
/// borrow from its copies).
pub(super) fn source_run(shape: &Shape, prefix: &str) -> SourceRun {
    let (mut setup, receiver, check_receiver) =
        receiver_for_execution(shape, &format!("{prefix}_self"));
    let mut call_args: Vec<TokenStream> = receiver.into_iter().collect();
    let mut check_args = Vec::new();
    for p in &shape.params {
        let ident = &p.ident;
        match p.passing {
            Passing::Shared => {
                call_args.push(quote!(#ident));
                check_args.push(quote!(#ident));
            }
            Passing::Mut => {
                let copy = format_ident!("{}_{}", prefix, ident);
                // Spanned on the parameter, so that a type without a copy gets one error there.
                let own = quote_spanned!(ident.span()=> ::invite::bounds::own_argument(&*#ident));
                setup.extend(quote!(
                    let mut #copy = #own;
                ));
                call_args.push(quote!(&mut #copy));
                check_args.push(quote!(&mut #copy));
            }
            Passing::Value => {
                call_args
                    .push(quote_spanned!(ident.span()=> ::invite::bounds::clone_argument(&#ident)));
                check_args.push(quote!(&#ident));
            }
        }
    }
    let call = awaited_call(shape, &call_args, true);
    SourceRun {
        setup,
        call,
        check_receiver,
        check_args,
    }
}

/// A call of the function with `args` (the receiver first, for a method), its future driven to
/// its output for an `async fn`. Inside a test process the call runs the body alone.
/// `live_inputs`: the call repeats the live call (a source run), the one call of an
/// `unsafe fn` that may be made without the user's own `unsafe` block.
pub(super) fn awaited_call(shape: &Shape, args: &[TokenStream], live_inputs: bool) -> TokenStream {
    let callee = shape.callee();
    let turbofish = &shape.turbofish;
    let call = quote!(#callee #turbofish(#(#args),*));
    let call = if shape.is_unsafe && live_inputs {
        unsafe_call(call)
    } else {
        call
    };
    if shape.is_async {
        quote!(::invite::__private::block_on(#call))
    } else {
        call
    }
}

/// The source run of an `unsafe fn`: the one `unsafe` block the expansion writes around a call
/// of the user's code. It repeats the live call, whose caller vouched for the function's
/// preconditions in its own `unsafe` block: the same arguments, shared ones as they are and
/// by-value ones as clones equal to them, on a copy of the same memory. `check_unsafe` refuses
/// the shapes where a repeat would be another call (a `&mut` argument or a receiver that must be
/// copied to a new place); relations and discovery call it on other inputs, and get no block.
fn unsafe_call(call: TokenStream) -> TokenStream {
    quote!({
        #[allow(unused_unsafe)]
        // SAFETY: the live call's inputs, passed as the caller passed them (see above).
        let __invite_value = unsafe { #call };
        __invite_value
    })
}

/// A user's expression in a test of an `async fn`, where it may `.await`: driven to its value
/// on the test's executor. Left as it is for other functions.
pub(super) fn user_value(shape: &Shape, e: &Expr) -> TokenStream {
    if shape.is_async {
        quote_spanned!(e.span()=> ::invite::__private::block_on(async { #e }))
    } else {
        quote!(#e)
    }
}

/// A fresh clone of the receiver for one execution. Spanned on `self`, so that a receiver
/// type without `Clone` gets one error there, saying to derive `Clone` or use `in_vivo`.
pub(super) fn clone_receiver(shape: &Shape, of: TokenStream) -> TokenStream {
    let ty = match &shape.receiver_ty {
        Some(ty) => quote!(#ty),
        None => quote_spanned!(shape.receiver_span=> Self),
    };
    quote_spanned!(shape.receiver_span=> <#ty as ::invite::bounds::CloneReceiver>::clone_for_execution(#of))
}
