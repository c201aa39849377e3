//! What the attributes refuse at compile time, each with an error on the offending token that
//! says what to do instead: a `const` or variadic signature, names in a relation that are near
//! misses of a parameter, and an `async fn`'s calls of itself left without `.await`. Caught
//! here, they never reach rustc as errors about invite's internals. (An item that is no
//! function with a body is refused as it is parsed, in `mod.rs`; what discovery cannot call,
//! in `discover.rs`.)

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, FnArg, Ident, ItemFn};

use super::shape::{plain_name, Passing, Receiver, Shape};
use crate::parse::{Args, Kind, Test};

pub(super) fn check_signature(kind: Kind, f: &ItemFn) -> syn::Result<()> {
    let sig = &f.sig;
    if let Some(t) = &sig.constness {
        return Err(syn::Error::new(
            t.span(),
            format!(
                "{} cannot wrap a `const fn`: testing forks at run time, and a `const fn` may run \
                 at compile time; remove `const` or instrument a non-const function that calls \
                 this one",
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

/// An `unsafe fn` whose repeat of the live call would not be the same call: its caller's
/// `unsafe` block vouched for the inputs where they were, and a `&mut` argument or a receiver
/// the tests must copy would be passed from another place. Relations on other inputs are the
/// user's own `unsafe` (see `follow_ups`).
pub(super) fn check_unsafe(
    kind: Kind,
    func: &ItemFn,
    shape: &Shape,
    args: &Args,
) -> syn::Result<()> {
    let syn::Safety::Unsafe(token) = &func.sig.safety else {
        return Ok(());
    };
    // An In Vivo test gets the live inputs themselves and calls nothing of its own accord.
    let repeats = args.tests.iter().any(|t| !matches!(t, Test::InVivo(_)));
    if !repeats {
        return Ok(());
    }
    let moved = match shape.receiver {
        Receiver::RefMut | Receiver::PinMut | Receiver::Value => Some("its receiver".to_string()),
        Receiver::None | Receiver::Ref => shape
            .params
            .iter()
            .find(|p| p.passing == Passing::Mut)
            .map(|p| format!("its parameter `{}`", p.ident)),
    };
    match moved {
        Some(what) => Err(syn::Error::new(
            token.span(),
            format!(
                "{} cannot test this `unsafe fn`: its tests repeat the live call on copies of \
                 what it may change, and {what} would then live elsewhere than where its caller \
                 vouched for it; wrap a safe function that checks the preconditions and calls \
                 this one",
                kind.attr()
            ),
        )),
        None => Ok(()),
    }
}

/// Reports a lower-case name in a relation that is neither a parameter, `result`, `self`, nor
/// bound inside the relation: almost always a typo, and rustc's own error would not say what a
/// relation may use.
pub(super) fn check_names(func: &ItemFn, shape: &Shape, args: &Args) -> syn::Result<()> {
    // Names bound inside a parameter's pattern (`(x, y): (f64, f64)`): not parameters either,
    // but worth a word of their own.
    let mut in_patterns = BoundNames(Vec::new());
    for input in &func.sig.inputs {
        if let FnArg::Typed(t) = input {
            if plain_name(&t.pat).is_none() {
                in_patterns.visit_pat(&t.pat);
            }
        }
    }
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
                // A name far from every known one may be a function or a constant (`map(double)`):
                // rustc judges it. A near one is a typo, said here with what is known.
                let near = known.iter().any(|k| strsim::levenshtein(k, &s) <= 2);
                let in_pattern = in_patterns.0.contains(&s);
                if lower && (near || in_pattern) && !known.contains(&s) && !bound.0.contains(&s) {
                    if in_pattern {
                        return Err(syn::Error::new(
                            ident.span(),
                            format!(
                                "`{s}` is bound by a parameter's pattern, which a relation cannot \
                                 see: give that parameter a name (`p: (f64, f64)`) and \
                                 destructure it in the body (`let (x, y) = p;`)"
                            ),
                        ));
                    }
                    let params: Vec<String> = shape
                        .params
                        .iter()
                        .filter(|p| !p.ident.to_string().starts_with("__invite_"))
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

/// In an `async fn`'s relations a call of the function is a future, as in its body: one that
/// is not awaited would be compared as a future, which rustc reports in terms of invite's
/// internals. Said here instead, with the fix.
pub(super) fn check_awaits(shape: &Shape, args: &Args) -> syn::Result<()> {
    struct Unawaited<'a> {
        shape: &'a Shape,
        found: Option<Span>,
    }
    impl Unawaited<'_> {
        fn is_self_call(&self, e: &Expr) -> bool {
            self.shape.own_call(e).is_some()
        }
    }
    impl<'a> Visit<'a> for Unawaited<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Await(a) if self.is_self_call(&a.base) => {
                    // The call itself is awaited; its arguments may hold other calls.
                    match &*a.base {
                        Expr::Call(c) => c.args.iter().for_each(|x| self.visit_expr(x)),
                        Expr::MethodCall(m) => {
                            self.visit_expr(&m.receiver);
                            m.args.iter().for_each(|x| self.visit_expr(x));
                        }
                        _ => {}
                    }
                }
                _ if self.is_self_call(e) => {
                    self.found.get_or_insert(e.span());
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    if !shape.is_async {
        return Ok(());
    }
    for t in &args.tests {
        if let Test::Relation(r) = t {
            let mut v = Unawaited { shape, found: None };
            if let Some(g) = &r.guard {
                v.visit_expr(g);
            }
            v.visit_expr(&r.body);
            if let Some(span) = v.found {
                return Err(syn::Error::new(
                    span,
                    format!(
                        "`{0}` is an `async fn`: in its relations, as in its body, a call of \
                         `{0}` is a future; add `.await` to the call",
                        shape.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

pub(super) struct BoundNames(pub(super) Vec<String>);

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

#[cfg(test)]
mod tests {
    use super::super::try_expand;
    use crate::parse::Kind;

    /// The expansion of `attr` on `item`, or its error's message.
    fn expanded(attr: &str, item: &str) -> Result<String, String> {
        try_expand(
            Kind::Metamorphic,
            attr.parse().unwrap(),
            item.parse().unwrap(),
        )
        .map(|t| t.to_string())
        .map_err(|e| e.to_string())
    }

    #[test]
    fn an_async_fn_s_own_calls_in_a_relation_must_be_awaited() {
        let f = "async fn f(x: f64) -> f64 { x }";
        for bad in [
            "f(x) == result",
            "f(f(x)).await == result",
            "if f(x) == 1.0 => result > 0.0",
        ] {
            let err = expanded(bad, f).expect_err(bad);
            assert!(err.contains("add `.await`"), "{bad}: {err}");
        }
        for good in [
            "f(x).await == result",
            "f(f(x).await).await == result",
            "g(x) == result",
        ] {
            expanded(good, f).unwrap_or_else(|e| panic!("{good}: {e}"));
        }
        let m = "async fn m(&self, x: f64) -> f64 { x }";
        for bad in [
            "self.m(x) == result",
            "Self::m(self, x) == result",
            "<Self as T>::m(self, x) == result",
        ] {
            assert!(expanded(bad, m).is_err(), "{bad}");
        }
        for good in [
            "self.m(x).await == result",
            "Self::m(self, x).await == result",
            "other.n(x) == result",
        ] {
            expanded(good, m).unwrap_or_else(|e| panic!("{good}: {e}"));
        }
        for bad in [
            "async { f(x) }.await == result",
            "self.m(self.m(x)).await == result",
        ] {
            let item = if bad.contains("self") { m } else { f };
            assert!(expanded(bad, item).is_err(), "{bad}");
        }
        expanded("<Self as T>::g(self, x) == result", m).unwrap();
        // Not async: nothing to await.
        expanded("f(x) == result", "fn f(x: f64) -> f64 { x }").unwrap();
    }

    #[test]
    fn a_relation_s_near_misses_of_a_parameter_are_errors_and_other_names_rust_s() {
        let f = "fn total(xs: &[f64], (lo, hi): (f64, f64)) -> f64 { lo + hi }";
        let err = expanded("total(&ys, (0.0, 1.0)) == result", f).unwrap_err();
        assert!(err.contains("`ys` is not a parameter of `total`"), "{err}");
        assert!(err.contains("(`xs`)"), "hidden names are not listed: {err}");
        let err = expanded("total(xs, (lo, 1.0)) == result", f).unwrap_err();
        assert!(err.contains("bound by a parameter's pattern"), "{err}");
        for good in [
            "total(xs, (0.0, 1.0)) == result",
            "xs.iter().copied().map(double).sum::<f64>() >= result",
            "xs.iter().all(|y| y <= &result)",
            "total(xs, (0.0, 1.0)) == RESULT_MAX",
            "total(xs, (0.0, 1.0)) <= XS",
        ] {
            expanded(good, f).unwrap_or_else(|e| panic!("{good}: {e}"));
        }
    }

    #[test]
    fn what_cannot_be_instrumented_is_refused_with_the_fix() {
        let err = expanded("result > 0", "fn f(&self) -> u32;").unwrap_err();
        assert!(err.contains("required method has none"), "{err}");
        let err = expanded("result > 0", "struct S;").unwrap_err();
        assert!(err.contains("goes on a function or method"), "{err}");
        let err = expanded("result > 0", "const fn f() -> u32 { 1 }").unwrap_err();
        assert!(err.contains("cannot wrap a `const fn`"), "{err}");
        expanded("result > 0", "fn f() -> u32 { 1 }").unwrap();
    }
}
