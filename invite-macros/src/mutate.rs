//! `#[invite::mutants]` and `invite::mutants_of!`: wrong versions of a function, each its body
//! with one change of the kind a mutation tool makes first, for relation discovery to judge
//! its relations by the errors code makes in its branches rather than by made-up outputs.
//!
//! Only changes that keep every type are made: a comparison's boundary (`<` and `<=` are both
//! `PartialOrd`) or its sense (`==` and `!=` both `PartialEq`), a logical connective, an
//! integer literal one lower (zero one higher: it stays within its type), a float literal one
//! higher. A changed literal, and a literal beside a changed comparison, is passed through
//! `black_box`, so that no lint that reads constants (an index past an array's end, a
//! comparison a type makes useless) turns a version into an error, and no lint is allowed
//! for it. Arithmetic operators are left as they are: a type may add without subtracting.
//! Nothing is changed inside `while` and `loop`, an iterator without end or an `unsafe`
//! block, nor in types, patterns, items, attributes, statements under `#[cfg]` or macro
//! calls; a body that calls a macro that might define items (each version repeats the body)
//! is refused.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, FnArg, GenericParam, ItemFn, Lit, LitFloat, LitInt, ReturnType, Type};

/// The most wrong versions built of one function: each costs discovery a run of the function's
/// follow-ups, and past a few per branch they repeat one another. Spread over the body.
pub const MUTANTS: usize = 16;

/// The name of the function that lists `name`'s wrong versions.
fn list_name(name: &syn::Ident) -> syn::Ident {
    format_ident!("__invite_mutants_{}", name, span = name.span())
}

/// The expansion of `#[invite::mutants]`: the function as written, and beside it the function
/// that lists its wrong versions.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(
            attr.span(),
            "`#[invite::mutants]` takes no arguments: write `#[invite::mutants]`",
        ));
    }
    let func: ItemFn = syn::parse2(item)?;
    let (list, pointer) = listed(&func, BY_ATTRIBUTE)?;
    let name = list_name(&func.sig.ident);
    let vis = &func.vis;
    let (impl_generics, _, where_clause) = func.sig.generics.split_for_impl();
    // The list is there where the function is.
    let cfgs = func
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"));
    Ok(quote! {
        #func
        /// The wrong versions of the function beside, each named by its change.
        #(#cfgs)*
        #[doc(hidden)]
        #vis fn #name #impl_generics() -> ::std::vec::Vec<(&'static str, #pointer)> #where_clause {
            #list
        }
    })
}

/// Who builds the versions, for a refusal to name: the attribute, or discovery's option.
pub const BY_ATTRIBUTE: &str = "`#[invite::mutants]` builds";

/// As [`BY_ATTRIBUTE`], for `#[invite::discover(mutants = true)]`.
pub const BY_DISCOVERY: &str = "`mutants = true` runs";

/// The wrong versions of `func`, as an expression of `Vec<(&'static str, pointer)>`, with the
/// pointer type; an error that says why where none can be built.
pub fn listed(func: &ItemFn, by: &str) -> syn::Result<(TokenStream, TokenStream)> {
    check(func, by)?;
    // A method's versions take its receiver first, as `&Self`, named where `self` was.
    let method = func.sig.receiver().is_some();
    let types: Vec<TokenStream> = func
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            FnArg::Typed(t) => t.ty.to_token_stream(),
            FnArg::Receiver(_) => quote!(&Self),
        })
        .collect();
    let output = match &func.sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, t) => t.to_token_stream(),
    };
    let pointer = quote!(fn(#(#types),*) -> #output);
    // The parameters as patterns and types: an attribute on one is for the function's other
    // attributes, which see the function, not these.
    let params: Vec<TokenStream> = func
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            FnArg::Typed(t) => {
                let (pat, ty) = (&t.pat, &t.ty);
                quote!(#pat: #ty)
            }
            // A closure's parameter cannot be named `self`.
            FnArg::Receiver(_) => quote!(__invite_self: &Self),
        })
        .collect();
    let entries = mutated(&func.block).into_iter().map(|(what, mut body)| {
        if method {
            Receiver.visit_block_mut(&mut body);
        }
        quote!((#what, (|#(#params),*| -> #output #body) as #pointer))
    });
    Ok((quote!(::std::vec![#(#entries),*]), pointer))
}

/// `self` in a method's body, renamed to the versions' parameter: in expressions and in the
/// tokens of macro calls, but not in `self::` paths, which name the module, nor in nested
/// items, which have their own.
struct Receiver;

impl VisitMut for Receiver {
    fn visit_expr_path_mut(&mut self, e: &mut syn::ExprPath) {
        if e.qself.is_none() && e.path.is_ident("self") {
            e.path = syn::parse_quote!(__invite_self);
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = receiver_in(std::mem::take(&mut m.tokens));
    }
}

/// [`Receiver`]'s renaming of a macro call's tokens.
fn receiver_in(tokens: TokenStream) -> TokenStream {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let path_after = |k: usize| {
        matches!((trees.get(k + 1), trees.get(k + 2)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && b.as_char() == ':')
    };
    trees
        .iter()
        .enumerate()
        .map(|(k, t)| match t {
            TokenTree::Ident(i) if i == "self" && !path_after(k) => {
                TokenTree::Ident(proc_macro2::Ident::new("__invite_self", i.span()))
            }
            TokenTree::Group(g) => {
                let mut inner = proc_macro2::Group::new(g.delimiter(), receiver_in(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other.clone(),
        })
        .collect()
}

/// Whether a receiver is `&self`, with no type written.
fn shared(r: &syn::Receiver) -> bool {
    matches!(r.kind, syn::ReceiverKind::Reference(_, _, None))
}

/// `invite::mutants_of!(path::to::f)`: the list `#[invite::mutants]` made for `f`.
pub fn of(input: TokenStream) -> syn::Result<TokenStream> {
    let mut path: syn::Path = syn::parse2(input).map_err(|e| {
        syn::Error::new(
            e.span(),
            "`invite::mutants_of!` takes the path of a function under `#[invite::mutants]`: \
             `invite::mutants_of!(stats::median)`",
        )
    })?;
    let last = path
        .segments
        .last_mut()
        .ok_or_else(|| syn::Error::new(Span::call_site(), "a function's path is not empty"))?;
    last.ident = list_name(&last.ident);
    Ok(quote!(#path()))
}

/// Refuses what a wrong version cannot be built of, saying what can.
fn check(func: &ItemFn, by: &str) -> syn::Result<()> {
    let refuse = |span: Span, what: &str| {
        Err(syn::Error::new(
            span,
            format!(
                "{by} wrong versions of a safe, synchronous function or `&self` method, each a \
                 copy of its body, and {what}; give discovery the wrong versions of this \
                 function by hand (`Discovery::mutants`), or build them of a function it calls"
            ),
        ))
    };
    let sig = &func.sig;
    if let Some(a) = &sig.asyncness {
        return refuse(a.span(), "an `async fn` is none of these");
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        return refuse(
            u.span(),
            "an `unsafe fn` may not be called on made-up inputs",
        );
    }
    if let Some(v) = &sig.variadic {
        return refuse(v.span(), "a variadic function is none of these");
    }
    for a in &sig.inputs {
        match a {
            FnArg::Receiver(r) if !shared(r) => {
                return refuse(
                    r.span(),
                    "a version takes the receiver only as `&self` (no type written), so \
                     that none changes or consumes what the program holds",
                )
            }
            FnArg::Receiver(_) => {}
            FnArg::Typed(t) if mentions(&t.ty, Mention::ImplTrait) => {
                return refuse(t.ty.span(), "an `impl Trait` parameter has no type to name")
            }
            FnArg::Typed(t) if t.attrs.iter().any(|a| a.path().is_ident("cfg")) => {
                return refuse(
                    t.span(),
                    "a parameter under `#[cfg]` leaves the versions' type unknown",
                )
            }
            FnArg::Typed(_) => {}
        }
    }
    if let Some(l) = sig
        .generics
        .params
        .iter()
        .find(|p| matches!(p, GenericParam::Lifetime(_)))
    {
        return refuse(
            l.span(),
            "a named lifetime ties its pointer to one borrow: elide it",
        );
    }
    if let Some(m) = unknown_macro(&func.block) {
        return refuse(
            m.span(),
            &format!(
                "`{}!` might define an item or register something, which a copy would repeat",
                m.path
                    .segments
                    .last()
                    .map_or_else(String::new, |s| s.ident.to_string())
            ),
        );
    }
    if let Some(span) = repeated_item(&func.block) {
        return refuse(
            span,
            "this item may stand once only (an `impl` of a type outside the body, an \
             `extern` block, an exported symbol), and each version repeats the body",
        );
    }
    if let ReturnType::Type(_, t) = &sig.output {
        if mentions(t, Mention::ImplTrait) {
            return refuse(t.span(), "an `impl Trait` result has no type to name");
        }
        if mentions(t, Mention::Borrow) {
            return refuse(
                t.span(),
                "a result that borrows from the arguments has no pointer type that outlives them",
            );
        }
    }
    Ok(())
}

/// Macros whose calls make expressions or statements and never items, which a copy of the
/// body may repeat: the standard library's, and the logging facades'.
const PLAIN_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "concat",
    "dbg",
    "eprint",
    "eprintln",
    "format",
    "format_args",
    "line",
    "column",
    "file",
    "matches",
    "panic",
    "print",
    "println",
    "stringify",
    "todo",
    "unimplemented",
    "unreachable",
    "vec",
    "write",
    "writeln",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
];

/// The first call of a macro in the body that is not one of [`PLAIN_MACROS`].
fn unknown_macro(body: &syn::Block) -> Option<syn::Macro> {
    struct Finder(Option<syn::Macro>);
    impl<'a> Visit<'a> for Finder {
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            let plain = m
                .path
                .segments
                .last()
                .is_some_and(|s| PLAIN_MACROS.iter().any(|p| s.ident == p));
            if !plain && self.0.is_none() {
                self.0 = Some(m.clone());
            }
        }
    }
    let mut f = Finder(None);
    f.visit_block(body);
    f.0
}

/// An item of the body that may not be repeated: an `impl` block (of a type the body may not
/// declare), an `extern` block, or an item exported by name (`#[no_mangle]`,
/// `#[export_name]`).
fn repeated_item(body: &syn::Block) -> Option<Span> {
    struct Finder(Option<Span>);
    impl<'a> Visit<'a> for Finder {
        fn visit_item(&mut self, i: &'a syn::Item) {
            let exported = |attrs: &[syn::Attribute]| {
                attrs.iter().any(|a| {
                    let text = a.to_token_stream().to_string();
                    ["no_mangle", "export_name"]
                        .iter()
                        .any(|n| text.contains(n))
                })
            };
            let attrs: &[syn::Attribute] = match i {
                syn::Item::Fn(f) => &f.attrs,
                syn::Item::Static(s) => &s.attrs,
                // A macro's definition is a macro call, refused as one (`unknown_macro`).
                _ => &[],
            };
            if matches!(i, syn::Item::Impl(_) | syn::Item::ForeignMod(_)) || exported(attrs) {
                self.0.get_or_insert(i.span());
            }
            syn::visit::visit_item(self, i);
        }
    }
    let mut f = Finder(None);
    f.visit_block(body);
    f.0
}

#[derive(Clone, Copy, PartialEq)]
enum Mention {
    ImplTrait,
    Borrow,
}

/// Whether `ty` holds an `impl Trait`, or a reference or lifetime.
fn mentions(ty: &Type, what: Mention) -> bool {
    struct Finder(Mention, bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_type(&mut self, t: &'a Type) {
            match (self.0, t) {
                (Mention::ImplTrait, Type::ImplTrait(_)) => self.1 = true,
                // A `&'static` borrows from no argument.
                (Mention::Borrow, Type::Reference(r))
                    if r.lifetime.as_ref().is_some_and(|l| l.ident == "static") =>
                {
                    self.visit_type(&r.elem)
                }
                (Mention::Borrow, Type::Reference(_)) => self.1 = true,
                _ => syn::visit::visit_type(self, t),
            }
        }
        fn visit_lifetime(&mut self, l: &'a syn::Lifetime) {
            self.1 |= self.0 == Mention::Borrow && l.ident != "static";
        }
    }
    let mut f = Finder(what, false);
    f.visit_type(ty);
    f.1
}

/// The wrong versions of `body`: each with its change described, at most [`MUTANTS`],
/// spread evenly over the places a change can be made.
pub fn mutated(body: &syn::Block) -> Vec<(String, syn::Block)> {
    let mut count = Mutator::at(usize::MAX);
    count.visit_block_mut(&mut body.clone());
    let places = count.seen;
    let chosen: Vec<usize> = if places <= MUTANTS {
        (0..places).collect()
    } else {
        (0..MUTANTS).map(|k| k * places / MUTANTS).collect()
    };
    let mut out: Vec<(String, syn::Block)> = Vec::new();
    for at in chosen {
        let mut body = body.clone();
        let mut m = Mutator::at(at);
        m.visit_block_mut(&mut body);
        if let Some(what) = m.done {
            // Each named apart: the second `0` as `1` is another place.
            let same = out
                .iter()
                .filter(|(w, _)| w == &what || w.starts_with(&format!("{what} (")))
                .count();
            let what = match same {
                0 => what,
                n => format!("{what} ({})", n + 1),
            };
            out.push((what, body));
        }
    }
    out
}

/// Walks a body in a fixed order, counting the places a change can be made, and makes the
/// change at place `target`.
struct Mutator {
    target: usize,
    seen: usize,
    done: Option<String>,
}

impl Mutator {
    fn at(target: usize) -> Mutator {
        Mutator {
            target,
            seen: 0,
            done: None,
        }
    }

    /// One more place; whether it is the one to change.
    fn here(&mut self) -> bool {
        let hit = self.seen == self.target;
        self.seen += 1;
        hit
    }
}

/// An operator's replacement, where it keeps the types.
fn swapped(op: &BinOp) -> Option<BinOp> {
    // Written by the expansion, not by the user: lints on user code pass it by.
    let s = Span::call_site();
    Some(match op {
        BinOp::Lt(_) => BinOp::Le(syn::Token![<=](s)),
        BinOp::Le(_) => BinOp::Lt(syn::Token![<](s)),
        BinOp::Gt(_) => BinOp::Ge(syn::Token![>=](s)),
        BinOp::Ge(_) => BinOp::Gt(syn::Token![>](s)),
        BinOp::Eq(_) => BinOp::Ne(syn::Token![!=](s)),
        BinOp::Ne(_) => BinOp::Eq(syn::Token![==](s)),
        BinOp::And(_) => BinOp::Or(syn::Token![||](s)),
        BinOp::Or(_) => BinOp::And(syn::Token![&&](s)),
        _ => return None,
    })
}

/// Whether `e` is a `let` condition of a chain (`if let Some(x) = y && x > 0`), which `||`
/// may not join.
fn has_let(e: &Expr) -> bool {
    match e {
        Expr::Let(_) => true,
        Expr::Binary(b) if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) => {
            has_let(&b.left) || has_let(&b.right)
        }
        _ => false,
    }
}

/// Whether an iterator expression may have no end: a range without one, or an adapter that
/// repeats, whose end a changed condition inside it might never reach.
fn endless(e: &Expr) -> bool {
    struct Finder(bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_expr_range(&mut self, r: &'a syn::ExprRange) {
            self.0 |= r.end.is_none() && r.start.is_some();
            syn::visit::visit_expr_range(self, r);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            self.0 |= m.method == "cycle";
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_path(&mut self, p: &'a syn::Path) {
            self.0 |= p.segments.last().is_some_and(|s| {
                ["repeat", "repeat_with", "successors", "from_fn"]
                    .iter()
                    .any(|n| s.ident == n)
            });
            syn::visit::visit_path(self, p);
        }
    }
    let mut f = Finder(false);
    f.visit_expr(e);
    f.0
}

/// The source of `e`, on one line and cut short.
fn shown(e: &impl ToTokens) -> String {
    let text = crate::text::source_text(&e.to_token_stream());
    match text.char_indices().nth(48) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text,
    }
}

impl VisitMut for Mutator {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if self.done.is_some() {
            return;
        }
        match e {
            // A changed condition may never let them end.
            Expr::While(_) | Expr::Loop(_) => {}
            Expr::ForLoop(f) if endless(&f.expr) => {}
            Expr::MethodCall(_) if endless(e) => {}
            // A repeat's length is a constant its type may name.
            Expr::Repeat(r) => self.visit_expr_mut(&mut r.expr),
            // Unchecked code may read past an end a changed literal moves.
            Expr::Const(_) | Expr::Macro(_) | Expr::Verbatim(_) | Expr::Unsafe(_) => {}
            Expr::Binary(b) => {
                let connective = matches!(b.op, BinOp::And(_) | BinOp::Or(_));
                // `||` may not join a `let`, nor leave a variable assigned on one side only.
                let fixed = connective && (has_let(&b.left) || has_let(&b.right) || assigns(b));
                if let Some(op) = swapped(&b.op).filter(|_| !fixed) {
                    if self.here() {
                        let (left, right) = (shown(&b.left), shown(&b.right));
                        let now = op.to_token_stream().to_string();
                        self.done = Some(format!("`{}` as `{left} {now} {right}`", shown(&*b)));
                        b.op = op;
                        for side in [&mut b.left, &mut b.right] {
                            if matches!(**side, Expr::Lit(_)) {
                                **side = hidden(side);
                            }
                        }
                        return;
                    }
                }
                syn::visit_mut::visit_expr_binary_mut(self, b);
            }
            Expr::Lit(l) => {
                let new = match &l.lit {
                    Lit::Int(i) => match i.base10_parse::<u128>() {
                        Ok(v) => {
                            let to = if v == 0 { 1 } else { v - 1 };
                            Lit::Int(LitInt::new(
                                &format!("{to}{}", i.suffix()),
                                Span::call_site(),
                            ))
                        }
                        Err(_) => return,
                    },
                    // Past 2^53 one more is the same float: no change, no place.
                    Lit::Float(f) => match f.base10_parse::<f64>() {
                        Ok(v) if v + 1.0 != v => Lit::Float(LitFloat::new(
                            &format!("{:?}{}", v + 1.0, f.suffix()),
                            Span::call_site(),
                        )),
                        _ => return,
                    },
                    _ => return,
                };
                if self.here() {
                    self.done = Some(format!(
                        "`{}` as `{}`",
                        l.lit.to_token_stream(),
                        new.to_token_stream()
                    ));
                    l.lit = new;
                    *e = hidden(e);
                }
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    // Types (an array's length), patterns, items, attributes, generic arguments (a const
    // generic) and macro calls are left as written.
    fn visit_type_mut(&mut self, _: &mut Type) {}
    fn visit_pat_mut(&mut self, _: &mut syn::Pat) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_attribute_mut(&mut self, _: &mut syn::Attribute) {}
    fn visit_generic_argument_mut(&mut self, _: &mut syn::GenericArgument) {}
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}

    fn visit_stmt_mut(&mut self, st: &mut syn::Stmt) {
        // A statement compiled out changes nothing.
        let gated = st.to_token_stream().into_iter().take(2).any(|t| {
            matches!(&t, proc_macro2::TokenTree::Group(g)
                if g.stream().to_string().starts_with("cfg"))
        });
        if !gated {
            syn::visit_mut::visit_stmt_mut(self, st);
        }
    }
}

/// `e` passed through `black_box`: the same value of the same type, which no lint reads as a
/// constant.
fn hidden(e: &Expr) -> Expr {
    syn::parse_quote!(::core::hint::black_box(#e))
}

/// Whether either side of a connective assigns, or declares: with the other connective it
/// might be left unassigned.
fn assigns(b: &syn::ExprBinary) -> bool {
    struct Finder(bool);
    impl<'a> Visit<'a> for Finder {
        fn visit_expr_assign(&mut self, _: &'a syn::ExprAssign) {
            self.0 = true;
        }
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            self.0 |= matches!(
                b.op,
                BinOp::AddAssign(_)
                    | BinOp::SubAssign(_)
                    | BinOp::MulAssign(_)
                    | BinOp::DivAssign(_)
                    | BinOp::RemAssign(_)
                    | BinOp::BitXorAssign(_)
                    | BinOp::BitAndAssign(_)
                    | BinOp::BitOrAssign(_)
                    | BinOp::ShlAssign(_)
                    | BinOp::ShrAssign(_)
            );
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_local(&mut self, _: &'a syn::Local) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    f.visit_expr(&b.left);
    f.visit_expr(&b.right);
    f.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn versions(body: TokenStream) -> Vec<(String, String)> {
        let block: syn::Block = syn::parse2(body).unwrap();
        mutated(&block)
            .into_iter()
            .map(|(what, b)| (what, b.to_token_stream().to_string()))
            .collect()
    }

    #[test]
    fn each_comparison_connective_and_literal_is_changed_once() {
        let v = versions(quote!({
            if x < 0 && y >= 2 {
                1.5
            } else {
                0.0
            }
        }));
        let whats: Vec<&str> = v.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(
            whats,
            [
                "`x < 0 && y >= 2` as `x < 0 || y >= 2`",
                "`x < 0` as `x <= 0`",
                "`0` as `1`",
                "`y >= 2` as `y > 2`",
                "`2` as `1`",
                "`1.5` as `2.5`",
                "`0.0` as `1.0`",
            ]
        );
        // A literal beside a changed comparison, and a changed literal, pass through
        // `black_box`: no lint reads them as constants.
        let hidden = |e: TokenStream| quote!(::core::hint::black_box(#e));
        let zero = hidden(quote!(0));
        assert_eq!(
            v[1].1,
            quote!({ if x <= #zero && y >= 2 { 1.5 } else { 0.0 } }).to_string()
        );
        let one = hidden(quote!(1));
        assert_eq!(
            v[2].1,
            quote!({ if x < #one && y >= 2 { 1.5 } else { 0.0 } }).to_string()
        );
        assert!(v[0].1.contains("||"));
        assert!(!v[0].1.contains("black_box"), "{}", v[0].1);
        // Two of one change at two places are named apart.
        let twice = versions(quote!({
            if x < 0 {
                0
            } else {
                x
            }
        }));
        let named: Vec<&str> = twice.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(
            named,
            ["`x < 0` as `x <= 0`", "`0` as `1`", "`0` as `1` (2)"]
        );
    }

    #[test]
    fn suffixes_stay_and_every_comparison_has_its_pair() {
        let v = versions(quote!({
            (a == b, a != b, a > b, a <= b, 7u8, 2.0f32, a || b)
        }));
        let bodies: Vec<&str> = v.iter().map(|(_, b)| b.as_str()).collect();
        for (i, swapped) in [
            "a != b", "a == b", "a >= b", "a < b", "6u8", "3.0f32", "a && b",
        ]
        .iter()
        .enumerate()
        {
            assert!(bodies[i].contains(swapped), "{i}: {}", bodies[i]);
        }
    }

    #[test]
    fn what_could_loop_forever_or_change_a_type_is_left_alone() {
        let untouched = [
            quote!({
                while i < n {
                    i += 1;
                }
            }),
            quote!({
                loop {
                    if i > 3 {
                        break;
                    }
                }
            }),
            quote!({
                for i in 0.. {
                    if i == n {
                        return i;
                    }
                }
            }),
            quote!({ (1..).find(|k| k * k > n) }),
            quote!({ xs.iter().cycle().take_while(|x| **x > 0).count() }),
            quote!({ std::iter::successors(Some(1), |x| Some(x * 2)).find(|x| *x > n) }),
            quote!({
                let a: [u8; 4] = [x; 4];
                a
            }),
            quote!({
                match n {
                    0 => a,
                    _ => b,
                }
            }),
            quote!({ format!("{}", n > 0) }),
            quote!({
                const K: usize = 3;
                f::<3>()
            }),
            quote!({ if let Some(x) = y && x.ok { a } else { b } }),
            quote!({ if x.ok && let Some(y) = x.y && y.ok { a } else { b } }),
            quote!({ if let Some(x) = y && x.ok && z { a } else { b } }),
            quote!({ unsafe { *xs.get_unchecked(xs.len() - 1) } }),
            quote!({ 9007199254740992.0 }),
            quote!({
                #[cfg(never)]
                let y = x < 3;
                x
            }),
            quote!({
                let big = 1e300;
                big
            }),
        ];
        for body in untouched {
            let v = versions(body.clone());
            // Only the `let` chain's own comparison may change, never the chain itself.
            assert!(
                v.iter()
                    .all(|(w, _)| !w.contains("||") && !w.contains("&&")),
                "{body}: {v:?}"
            );
            assert!(
                v.is_empty() || body.to_string().contains("if let"),
                "{body}: {v:?}"
            );
        }
        // `||` would leave `y` unassigned where `&&` did not, and `z` undeclared: the
        // comparisons change, not the connective.
        for body in [
            quote!({
                let y;
                if x > 0 && {
                    y = x;
                    y > 4
                } {
                    y
                } else {
                    0
                }
            }),
            quote!({
                let mut y = 0;
                if x > 0 && {
                    y += x;
                    y > 4
                } {
                    y
                } else {
                    0
                }
            }),
            quote!({
                if x > 0 && {
                    let z = x;
                    z > 4
                } {
                    1
                } else {
                    0
                }
            }),
        ] {
            let v = versions(body.clone());
            assert!(v.iter().all(|(w, _)| !w.contains("||")), "{body}: {v:?}");
            assert!(v.iter().any(|(w, _)| w.contains("x > 0")), "{body}: {v:?}");
        }
        // A range with an end, a slice to a bound, and an iterator's adapters are changed
        // inside; the full range too.
        let bounded = versions(quote!({ xs[..2].iter().filter(|x| **x > 0).count() }));
        assert_eq!(bounded.len(), 3, "{bounded:?}");
        assert_eq!(
            versions(quote!({ xs[..].iter().filter(|x| **x > 0).count() })).len(),
            2
        );
        // A `for` over something with an end is changed inside.
        assert_eq!(
            versions(quote!({
                for x in xs {
                    if x > 0 {
                        n
                    }
                }
            }))
            .len(),
            2
        );
    }

    #[test]
    fn many_places_give_at_most_the_cap_spread_over_the_body() {
        let lits = (0..40).map(|i| quote!(#i));
        let v = versions(quote!({ [#(#lits),*] }));
        assert_eq!(v.len(), MUTANTS);
        assert_eq!(v[0].0, "`0i32` as `1i32`");
        assert_eq!(v[MUTANTS - 1].0, format!("`{0}i32` as `{1}i32`", 37, 36));
    }

    #[test]
    fn functions_no_pointer_can_name_are_refused_with_the_way_out() {
        for f in [
            quote!(
                async fn f(x: f64) -> f64 {
                    x
                }
            ),
            quote!(
                unsafe fn f(x: f64) -> f64 {
                    x
                }
            ),
            quote!(
                fn f(&mut self, x: f64) -> f64 {
                    x
                }
            ),
            quote!(
                fn f(self, x: f64) -> f64 {
                    x
                }
            ),
            quote!(
                fn f(self: &Self, x: f64) -> f64 {
                    x
                }
            ),
            quote!(
                fn f(x: impl Into<f64>) -> f64 {
                    x.into()
                }
            ),
            quote!(
                fn f<'a>(x: &'a [f64]) -> f64 {
                    x[0]
                }
            ),
            quote!(
                fn f(x: &[f64]) -> &f64 {
                    &x[0]
                }
            ),
            quote!(
                fn f(x: f64) -> impl Copy {
                    x
                }
            ),
            quote!(
                fn f(x: f64) -> f64 {
                    impl Tr for Outer {}
                    x
                }
            ),
            quote!(
                fn f(x: f64) -> f64 {
                    #[no_mangle]
                    extern "C" fn g() {}
                    x
                }
            ),
            quote!(
                fn f(x: f64) -> f64 {
                    extern "C" {
                        fn g();
                    }
                    x
                }
            ),
            quote!(
                fn f(x: f64) -> f64 {
                    #[macro_export]
                    macro_rules! m {
                        () => {};
                    }
                    x
                }
            ),
            quote!(
                fn f(x: f64) -> f64 {
                    #[no_mangle]
                    static S: u8 = 0;
                    x
                }
            ),
            quote!(
                fn f(x: &str) -> std::str::Chars<'_> {
                    x.chars()
                }
            ),
        ] {
            let e = expand(TokenStream::new(), f.clone())
                .unwrap_err()
                .to_string();
            assert!(e.contains("Discovery::mutants"), "{f}: {e}");
        }
        // Each refusal names its reason.
        for (f, why) in [
            (
                quote!(
                    fn f(x: f64) -> f64 {
                        impl_display!(Celsius);
                        x
                    }
                ),
                "`impl_display!` might define an item",
            ),
            (
                quote!(
                    fn f(x: f64) -> f64 {
                        let y = registry::submit!(x);
                        y
                    }
                ),
                "`submit!` might define an item",
            ),
            (
                quote!(
                    fn f(#[cfg(feature = "a")] x: f64) -> f64 {
                        1.0
                    }
                ),
                "a parameter under `#[cfg]`",
            ),
            (
                quote!(
                    fn f(#[cfg(feature = "a")] (a, b): (f64, f64)) -> f64 {
                        1.0
                    }
                ),
                "a parameter under `#[cfg]`",
            ),
        ] {
            let e = expand(TokenStream::new(), f.clone())
                .unwrap_err()
                .to_string();
            assert!(e.contains(why), "{f}: {e}");
        }
        // A result that borrows nothing from the arguments is named, and so is a parameter
        // with an elided lifetime.
        for f in [
            quote!(
                fn f(x: u8) -> std::borrow::Cow<'static, str> {
                    x.to_string().into()
                }
            ),
            quote!(
                fn f(x: std::borrow::Cow<'_, str>) -> usize {
                    if x.len() > 2 {
                        1
                    } else {
                        0
                    }
                }
            ),
        ] {
            assert!(expand(TokenStream::new(), f.clone()).is_ok(), "{f}");
        }
        // A result that borrows nothing from the arguments is named.
        assert!(expand(
            TokenStream::new(),
            quote!(
                fn f(x: u8) -> &'static str {
                    if x > 0 {
                        "a"
                    } else {
                        "b"
                    }
                }
            )
        )
        .is_ok());
        // The standard library's and the logging facades' macros make no item.
        assert!(expand(
            TokenStream::new(),
            quote!(
                fn f(x: f64) -> f64 {
                    println!("{x}");
                    log::debug!("{}", x);
                    assert!(x > 0.0);
                    x
                }
            )
        )
        .is_ok());
        // Items that may be repeated are: each version has its own.
        assert!(expand(
            TokenStream::new(),
            quote!(
                fn f(x: f64) -> f64 {
                    struct A;
                    fn g(y: f64) -> f64 {
                        y
                    }
                    const K: f64 = 2.0;
                    g(x) * K
                }
            )
        )
        .is_ok());
        let e = expand(
            quote!(x),
            quote!(
                fn f() {}
            ),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("takes no arguments"), "{e}");
    }

    #[test]
    fn the_list_is_a_function_of_pointers_beside_the_function() {
        let out = expand(
            TokenStream::new(),
            quote!(
                pub fn sign<T: Copy>(x: f64, xs: &[T]) -> i8 {
                    if x < 0.0 {
                        -1
                    } else {
                        1
                    }
                }
            ),
        )
        .unwrap()
        .to_string();
        assert!(out.starts_with("pub fn sign"), "{out}");
        assert!(!out.contains("allow"), "no lint is allowed: {out}");
        assert!(
            out.contains("pub fn __invite_mutants_sign < T : Copy > ()"),
            "{out}"
        );
        assert!(out.contains("as fn (f64 , & [T]) -> i8"), "{out}");
        // A parameter's attribute is the function's; the list goes where the function goes.
        let out = expand(
            TokenStream::new(),
            quote!(
                #[cfg(feature = "simd")]
                fn g(#[other] x: f64) -> f64 {
                    x + 1.0
                }
            ),
        )
        .unwrap()
        .to_string();
        let list = &out[out.find("__invite_mutants_g").unwrap()..];
        assert!(!list.contains("other"), "{list}");
        assert_eq!(
            out.matches("# [cfg (feature = \"simd\")]").count(),
            2,
            "{out}"
        );
        // A method's versions take `&Self` first, and read it where the body reads `self`:
        // in expressions, closures and macro calls, but not in a `self::` path or an item of
        // its own.
        let out = expand(
            TokenStream::new(),
            quote!(
                fn fee(&self, c: i64) -> i64 {
                    fn inner(x: i64) -> i64 {
                        x
                    }
                    let cap = || self.cap;
                    println!("{}", self.rate);
                    if c > self.threshold {
                        self::scale(c, cap())
                    } else {
                        inner(20)
                    }
                }
            ),
        )
        .unwrap()
        .to_string();
        let list = &out[out.find("__invite_mutants_fee").unwrap()..];
        assert!(list.contains("as fn (& Self , i64) -> i64"), "{list}");
        assert!(
            list.contains("| __invite_self : & Self , c : i64 |"),
            "{list}"
        );
        for read in [
            "__invite_self . cap",
            "__invite_self . rate",
            "c > __invite_self . threshold",
            "self :: scale",
            "fn inner (x : i64)",
        ] {
            assert!(list.contains(read), "{read}: {list}");
        }
        // Outside the versions' names (string literals), no `self` is read.
        let code: String = list.split('"').step_by(2).collect();
        assert!(
            !code.replace("__invite_self", "").contains("self ."),
            "{code}"
        );
        let of = of(quote!(stats::sign::<u8>)).unwrap().to_string();
        assert_eq!(of, "stats :: __invite_mutants_sign :: < u8 > ()");
        assert!(super::of(quote!(1 + 2)).is_err());
    }
}
