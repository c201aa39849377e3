//! The code of each test in the child, one match arm per test of the site: a relation (its
//! guard, the source run and its determinism self-check, then the verdict), a relation that
//! holds in distribution, a hand-written metamorphic test, and an In Vivo test on the live
//! state. Each arm sets the test's outcome.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, Ident};

use super::execution::{clone_receiver, source_run, user_value, SourceRun};
use super::follow_ups::FollowUps;
use super::result::{result_of, RESULT};
use super::shape::{Passing, Receiver, Shape};
use crate::parse::{mentions_ident, Relation};

/// Runs the source, then (unless turned off) runs it again on the same stream and gives up as
/// `inconclusive` when the two disagree.
fn source_and_self_check(shape: &Shape, src: &SourceRun, result: &Ident) -> TokenStream {
    let SourceRun { setup, call, .. } = src;
    // The replay's copies live beside the first run's, as long as both results may borrow them.
    let again = source_run(shape, "__invite_again");
    let (again_setup, again_call) = (&again.setup, &again.call);
    quote! {
        #setup
        __invite_t.replay();
        let #result = #call;
        let _ = &#result;
        if __invite_t.self_check() {
            #again_setup
            __invite_t.replay();
            let __invite_again = #again_call;
            if (&&::invite::__private::Cmp(&#result, &__invite_again))
                .invite_same(__invite_t.tolerance())
                == ::core::option::Option::Some(false)
            {
                __invite_t.set(
                    ::invite::__private::Outcome::Inconclusive,
                    ::core::option::Option::Some(::std::format!(
                        "the source run gave {} and then {} on a replay of the same random \
                         stream: the function is nondeterministic beyond invite::rng()",
                        (&&::invite::__private::DebugProbe(&#result)).invite_debug(),
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
    FollowUps::new(shape).visit_expr_mut(&mut g);
    let g = user_value(shape, &g);
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

pub(super) fn relation_arm(shape: &Shape, r: &Relation) -> TokenStream {
    let mut body = r.body.clone();
    FollowUps::new(shape).visit_expr_mut(&mut body);
    let src = source_run(shape, "__invite_src");
    let source = source_and_self_check(shape, &src, &result_of(r));
    let guard_check = r.guard.as_ref().map(|g| guard_check(shape, g));
    let guard_uses_result = r.guard.as_ref().is_some_and(|g| mentions_ident(g, RESULT));
    let (guard_before, guard_after) = if guard_uses_result {
        (None, guard_check)
    } else {
        (guard_check, None)
    };
    // The relation as written, for the place of its compile errors (the rewritten calls carry
    // their own place, so the whole expression spans the relation).
    let verdict = verdict(shape, &body, r.body.span());
    quote! {{
        #guard_before
        #source
        #guard_after
        #verdict
    }}
}

/// A relation that holds in distribution: the source and the relation's two sides run `runs`
/// times, every execution on its own random stream, and the two samples go to the test.
pub(super) fn statistical_arm(shape: &Shape, r: &Relation, checks: usize) -> TokenStream {
    let st = r.statistical.as_ref().expect("a statistical relation");
    let mut body = r.body.clone();
    FollowUps::new(shape).visit_expr_mut(&mut body);
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
    let SourceRun { setup, call, .. } = source_run(shape, "__invite_src");
    let result = result_of(r);
    let (ls, rs) = (left.span(), right.span());
    let sample = |e: &Expr, span: Span| {
        let e = user_value(shape, e);
        quote_spanned!(span=> ::invite::stats::Sample::sample(&(#e)))
    };
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
            let #result = #call;
            let _ = &#result;
            __invite_left.push(#left_sample);
            __invite_right.push(#right_sample);
        }
        let mut __invite_control = ::std::vec::Vec::new();
        if __invite_plan.control {
            for _ in 0..__invite_plan.runs {
                #setup
                __invite_t.replay();
                let #result = #call;
                let _ = &#result;
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
fn verdict(shape: &Shape, body: &Expr, span: Span) -> TokenStream {
    let value = |e: &Expr| user_value(shape, e);
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
            let (left, right) = (value(&b.left), value(&b.right));
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
                let (x, lo, hi) = (value(x), value(lo), value(hi));
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
                let (x, options) = (value(x), value(options));
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
    let body = value(body);
    let holds = quote_spanned!(span=> ::invite::bounds::Holds::holds(#body));
    quote! {
        let __invite_holds = #holds;
        let __invite_detail = ::core::option::Option::None;
        #set
    }
}

pub(super) fn metamorphic_test_arm(shape: &Shape, path: &Expr) -> TokenStream {
    let src = source_run(shape, "__invite_src");
    let result = Ident::new(RESULT, Span::call_site());
    let source = source_and_self_check(shape, &src, &result);
    let receiver = src.check_receiver.iter();
    let check_args = &src.check_args;
    let call = quote_spanned!(path.span()=>
        ::invite::bounds::TestOutput::verdict(
            (&&::invite::__private::Awaited::new(
                #path(#(#receiver,)* #(#check_args,)* &#result)
            )).invite_await()
        )
    );
    quote! {{
        #source
        let (__invite_o, __invite_d) = #call;
        __invite_t.set(__invite_o, __invite_d);
    }}
}

pub(super) fn in_vivo_arm(shape: &Shape, path: &Expr) -> TokenStream {
    let this = &shape.self_tok;
    let receiver = match shape.receiver {
        Receiver::None => None,
        Receiver::Ref => Some(quote!(#this)),
        Receiver::RefMut => Some(quote!(&mut *#this)),
        // A pinned receiver cannot be moved out of: the test gets a pinned clone.
        Receiver::PinMut => {
            let copy = clone_receiver(shape, quote!(&*#this));
            Some(quote!(::core::pin::pin!(#copy)))
        }
        Receiver::Value => Some(quote!(__invite_t.take(&#this))),
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
        ::invite::bounds::TestOutput::verdict(
            (&&::invite::__private::Awaited::new(#path(#(#receiver,)* #(#args),*))).invite_await()
        )
    );
    quote! {{
        __invite_t.replay();
        let (__invite_o, __invite_d) = #call;
        __invite_t.set(__invite_o, __invite_d);
    }}
}
