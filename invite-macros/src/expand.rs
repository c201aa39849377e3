//! Turns parsed arguments plus the function into tokens. Nothing here parses attributes.
//!
//! A wrapped function stays one item with its signature and body as written: the sampling
//! decision, and on a sampled call the fork and the tests, are statements put before the body.
//! Nothing is added beside the function, so the attributes work where no sibling item may
//! stand (a trait impl) and a signature survives whole (`Self`, generics, lifetimes, `async`,
//! receivers). A relation's follow-up execution calls the function itself: inside a test
//! process instrumentation is off, so the call runs the body alone.
//!
//! Hygiene: every local the expansion introduces is named `__invite_*` and, in a last pass,
//! given a mixed-site span, so that user code can neither see nor shadow it wherever the
//! function comes from (a `macro_rules!` body, another macro's output). The relation's `result`
//! is renamed to such a local; `self` is written with the signature's own token.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Expr, FnArg, Ident, ItemFn, Pat, ReceiverKind, Type};

use crate::enclosing::{Enclosing, TraitRef};
use crate::parse::{mentions_ident, Args, Kind, Relation, Test};

/// How the method takes `self`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Receiver {
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
enum Passing {
    Shared,
    Mut,
    Value,
}

struct Param {
    ident: Ident,
    passing: Passing,
    /// The type as written, for the log (regression tests are written from it).
    ty: String,
    /// The type, for the conversions of relation discovery.
    ty_tokens: Type,
}

/// What expansion needs to know about the function.
struct Shape {
    name: Ident,
    receiver: Receiver,
    /// `self`, with the span of the signature's receiver, so that it resolves to it even when
    /// the function comes from a macro.
    self_tok: Ident,
    /// The type of a typed by-value receiver (`Box<Self>`); `None` for `Self`.
    receiver_ty: Option<Type>,
    receiver_span: Span,
    params: Vec<Param>,
    /// A method or associated function: the function is reached through `Self`.
    assoc: bool,
    /// The block the function is written in, when its source could be read.
    enclosing: Option<Enclosing>,
    /// `::<T, U>` for calls of the function, empty when `impl Trait` arguments forbid it.
    turbofish: TokenStream,
    is_unsafe: bool,
    is_async: bool,
    /// The result type, when the function has one.
    output: Option<Type>,
}

impl Shape {
    /// The function's path from inside it: `name`, `Self::name`, or `<Self as Trait>::name` in
    /// a trait impl whose trait is known (an inherent method of the same name would otherwise
    /// win).
    fn callee(&self) -> TokenStream {
        let name = &self.name;
        if !self.assoc {
            return quote!(#name);
        }
        self.trait_callee().unwrap_or_else(|| quote!(Self::#name))
    }

    /// `<Self as Trait>::name`, in a trait impl whose trait is known.
    fn trait_callee(&self) -> Option<TokenStream> {
        let name = &self.name;
        match &self.enclosing {
            Some(Enclosing::Impl {
                trait_: Some(TraitRef {
                    path: Some(path), ..
                }),
                ..
            }) => {
                let path = path.parse::<TokenStream>().ok()?;
                Some(quote!(<Self as #path>::#name))
            }
            _ => None,
        }
    }

    /// How `e` calls the function itself, if it does: the one reading of a relation's calls
    /// that the follow-ups and the check of awaits share.
    fn own_call(&self, e: &Expr) -> Option<OwnCall> {
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
            }) => Some(t.as_str()),
            _ => None,
        };
        matches!(segs, [ty, name] if *name == &self.name
            && (*ty == "Self" || own_type.is_some_and(|t| *ty == t)))
    }
}

/// How a relation's call reaches the function itself.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OwnCall {
    /// `Self::name(..)`, `Type::name(..)`, `<Self as Trait>::name(..)`.
    ViaSelf,
    /// `name(..)`, for a function outside an impl.
    Bare,
    /// `value.name(..)`.
    Method,
}

pub fn expand(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(kind, attr, item.clone()) {
        Ok(tokens) => respan_locals(tokens),
        // Keep the function so that one mistake gives one error, not a cascade.
        Err(e) => {
            let err = e.to_compile_error();
            quote!(#err #item)
        }
    }
}

fn try_expand(kind: Kind, attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let mut func = parse_function(kind, item)?;
    check_signature(kind, &func)?;
    let mut args = Args::default();
    args.add(kind, attr)?;
    // Stacked invite attributes share one expansion, so one fork serves every test of a call.
    let mut kept = Vec::new();
    for a in std::mem::take(&mut func.attrs) {
        match invite_attr_kind(&a) {
            Some(other) => {
                let tokens = match &a.meta {
                    syn::Meta::List(l) => l.tokens.clone(),
                    _ => TokenStream::new(),
                };
                args.add(other, tokens)?;
            }
            None => kept.push(a),
        }
    }
    func.attrs = kept;
    let shape = shape_of(&func, &args)?;
    if let (Some(token), Some(Enclosing::Trait { name })) = (&func.sig.asyncness, &shape.enclosing)
    {
        return Err(syn::Error::new(
            token.span(),
            format!(
                "{} cannot wrap an `async fn` default method of `{name}`: its tests call it, and \
                 rustc cannot infer the trait's future type from a body that uses it; put the \
                 attribute on the method in the trait's `impl` blocks, or on an `async fn` \
                 this one awaits",
                kind.attr()
            ),
        ));
    }
    check_names(&func, &shape, &args)?;
    check_awaits(&shape, &args)?;
    if args.tests.iter().any(|t| matches!(t, Test::Discover(_))) {
        check_discoverable(&func, &shape)?;
        args.name_discovery(&signature_text(&shape));
    }
    rename_result(&mut args);
    Ok(generate(&func, &shape, &args))
}

/// The function, or an error that says where the attribute goes.
fn parse_function(kind: Kind, item: TokenStream) -> syn::Result<ItemFn> {
    match syn::parse2::<ItemFn>(item.clone()) {
        Ok(f) => Ok(f),
        Err(e) => match syn::parse2::<syn::TraitItemFn>(item) {
            Ok(t) if t.default.is_none() => Err(syn::Error::new(
                t.sig.ident.span(),
                format!(
                    "{} goes on a function with a body, and a trait's required method has none: \
                     put it on the method in the trait's `impl` blocks, or on a default method",
                    kind.attr()
                ),
            )),
            _ => Err(syn::Error::new(
                e.span(),
                format!("{} goes on a function or method", kind.attr()),
            )),
        },
    }
}

/// Gives every `__invite_*` identifier a mixed-site span at its own place: locals of the
/// expansion resolve among themselves, never to or from the user's names.
fn respan_locals(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(i) if i.to_string().starts_with("__invite_") && i != RESULT => {
                let mut i = i;
                i.set_span(Span::mixed_site().located_at(i.span()));
                TokenTree::Ident(i)
            }
            TokenTree::Group(g) => {
                let mut out = Group::new(g.delimiter(), respan_locals(g.stream()));
                out.set_span(g.span());
                TokenTree::Group(out)
            }
            other => other,
        })
        .collect()
}

/// The output's local name; relations' `result` is renamed to it. It keeps the span of the
/// relation's own `result` (see [`result_of`]), not a mixed-site one: a relation's expression
/// then spans tokens of one context, and its errors point into it.
const RESULT: &str = "__invite_result";

/// The local that holds a relation's output: named as its `result` was renamed, so that the
/// two resolve alike wherever the relation was written.
fn result_of(r: &Relation) -> Ident {
    fn first(tokens: TokenStream) -> Option<Ident> {
        tokens.into_iter().find_map(|tt| match tt {
            TokenTree::Ident(i) if i == RESULT => Some(i),
            TokenTree::Group(g) => first(g.stream()),
            _ => None,
        })
    }
    let guard = &r.guard;
    let body = &r.body;
    first(quote!(#guard #body)).unwrap_or_else(|| Ident::new(RESULT, Span::call_site()))
}

/// Renames `result` in every relation to the expansion's own local, keeping its place. Where
/// the relation binds a `result` of its own (a closure's parameter, a match arm, a `let`), that
/// one is left as written within its scope.
fn rename_result(args: &mut Args) {
    for t in &mut args.tests {
        if let Test::Relation(r) = t {
            RenameResult.visit_expr_mut(&mut r.body);
            if let Some(g) = &mut r.guard {
                RenameResult.visit_expr_mut(g);
            }
        }
    }
}

struct RenameResult;

fn result_local(span: Span) -> Ident {
    Ident::new(RESULT, span)
}

/// Whether `pat` binds the name `result`.
fn binds_result(pat: &Pat) -> bool {
    let mut names = BoundNames(Vec::new());
    names.visit_pat(pat);
    names.0.iter().any(|n| n == "result")
}

impl VisitMut for RenameResult {
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        if !c.inputs.iter().any(binds_result) {
            syn::visit_mut::visit_expr_closure_mut(self, c);
        }
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        if !binds_result(&arm.pat) {
            syn::visit_mut::visit_arm_mut(self, arm);
        }
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        for stmt in &mut b.stmts {
            if let syn::Stmt::Local(local) = stmt {
                if let Some(init) = &mut local.init {
                    self.visit_local_init_mut(init);
                }
                if binds_result(&local.pat) {
                    // From here on `result` is the block's own.
                    return;
                }
                continue;
            }
            self.visit_stmt_mut(stmt);
        }
    }

    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.is_ident("result") {
            let span = p.path.segments[0].ident.span();
            p.path.segments[0].ident = result_local(span);
        }
    }

    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        // `S { result }` names the field too: write it out before renaming the value.
        if f.colon_token.is_none() {
            f.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_value_mut(self, f);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = rename_in_tokens(std::mem::take(&mut m.tokens));
    }
}

/// `result` renamed in a macro's tokens, except after `.` or `::` (a field or a path).
fn rename_in_tokens(tokens: TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let mut after_path_or_field = false;
    for tt in tokens {
        let next = match tt {
            TokenTree::Ident(i) if i == "result" && !after_path_or_field => {
                TokenTree::Ident(result_local(i.span()))
            }
            TokenTree::Group(g) => {
                let mut out = Group::new(g.delimiter(), rename_in_tokens(g.stream()));
                out.set_span(g.span());
                TokenTree::Group(out)
            }
            other => other,
        };
        after_path_or_field =
            matches!(&next, TokenTree::Punct(p) if p.as_char() == '.' || p.as_char() == ':');
        out.push(next);
    }
    out.into_iter().collect()
}

fn check_signature(kind: Kind, f: &ItemFn) -> syn::Result<()> {
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

fn invite_attr_kind(a: &syn::Attribute) -> Option<Kind> {
    let segs: Vec<String> = a
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let last = match segs.as_slice() {
        [one] => one.as_str(),
        [first, last] if first == "invite" => last.as_str(),
        _ => return None,
    };
    match last {
        "metamorphic" => Some(Kind::Metamorphic),
        "in_vivo" => Some(Kind::InVivo),
        "discover" => Some(Kind::Discover),
        _ => None,
    }
}

/// A parameter's pattern when it is a plain name (`x`, `mut x`): the name it binds.
fn plain_name(pat: &Pat) -> Option<&Ident> {
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

fn shape_of(f: &ItemFn, args: &Args) -> syn::Result<Shape> {
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
    let enclosing = match crate::enclosing::enclosing_of(&name) {
        // A method read as free: its impl is elsewhere than its tokens (a macro wrote the method
        // into an impl written outside it). Named at its first call, as a fragment's would be.
        Some(Enclosing::Free) if receiver != Receiver::None || sig_mentions_self => {
            Some(Enclosing::Impl {
                self_ty: None,
                trait_: None,
                generic: true,
            })
        }
        other => other,
    };
    let in_block = matches!(
        enclosing,
        Some(Enclosing::Impl { .. } | Enclosing::Trait { .. })
    );
    let assoc = receiver != Receiver::None || sig_mentions_self || relations_call_self || in_block;
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
        output: match &sig.output {
            syn::ReturnType::Type(_, ty) => Some((**ty).clone()),
            syn::ReturnType::Default => None,
        },
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

/// Reports a lower-case name in a relation that is neither a parameter, `result`, `self`, nor
/// bound inside the relation: almost always a typo, and rustc's own error would not say what a
/// relation may use.
fn check_names(func: &ItemFn, shape: &Shape, args: &Args) -> syn::Result<()> {
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
fn check_awaits(shape: &Shape, args: &Args) -> syn::Result<()> {
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

struct BoundNames(Vec<String>);

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

fn generate(func: &ItemFn, shape: &Shape, args: &Args) -> TokenStream {
    let ItemFn {
        attrs,
        vis,
        sig,
        block,
        ..
    } = func;
    // Inner attributes of the body (`#![allow(...)]`) must open the new body.
    let (inner, outer): (Vec<_>, Vec<_>) = attrs
        .iter()
        .partition(|a| matches!(a.style, syn::AttrStyle::Inner(_)));
    let (sig, rebinds) = named_signature(sig, shape);
    let instrumentation = if cfg!(feature = "enabled") {
        sampling(shape, args)
    } else {
        type_check(shape, args)
    };
    // The body's statements join the new body rather than nest in it as a block: a nested
    // one-expression block would draw `unused_braces`.
    let stmts = &block.stmts;
    quote! {
        #(#outer)*
        #vis #sig {
            #(#inner)*
            #instrumentation
            #(#rebinds)*
            #(#stmts)*
        }
    }
}

/// The signature with each parameter that is not a plain name bound to the name `shape_of`
/// chose, and the statements that bind the patterns as written at the start of the body.
fn named_signature(sig: &syn::Signature, shape: &Shape) -> (syn::Signature, Vec<TokenStream>) {
    let mut named = sig.clone();
    let mut rebinds = Vec::new();
    let mut params = shape.params.iter();
    for input in named.inputs.iter_mut() {
        if let FnArg::Typed(t) = input {
            let ident = params
                .next()
                .expect("one param per typed input")
                .ident
                .clone();
            if plain_name(&t.pat).is_none() {
                let pat = &t.pat;
                rebinds.push(quote!(let #pat = #ident;));
                *t.pat = Pat::Ident(syn::PatIdent {
                    attrs: Vec::new(),
                    by_ref: None,
                    mutability: None,
                    ident,
                    subpat: None,
                });
            }
        }
    }
    (named, rebinds)
}

/// With the `enabled` feature: the site, and on a sampled call (out of line) the caps' say and
/// the fork. The body runs next, whatever became of the tests.
fn sampling(shape: &Shape, args: &Args) -> TokenStream {
    let site = site_static(shape, args);
    let child = child_branch(shape, args);
    let unseen = unseen_check(shape, args);
    let sample = if named_by_self_type(shape, args) {
        quote!(::invite::__private::Site::sample_of_self(
            &__INVITE_SITE,
            &__INVITE_LOCAL,
            ::core::any::type_name::<Self>,
        ))
    } else {
        quote!(::invite::__private::Site::sample(
            &__INVITE_SITE,
            &__INVITE_LOCAL
        ))
    };
    quote! {
        #site
        if let ::core::option::Option::Some(__invite_sampled) = #sample {
            // Out of line, so that the unsampled path keeps a small frame.
            ::invite::__private::cold_path(|| {
                #unseen
                if let ::core::option::Option::Some(__invite_permit) = __invite_sampled.admit() {
                    ::invite::__private::fork_run(__invite_permit, |__invite_run| {
                        #child
                    });
                }
            });
        }
    }
}

/// Without the `enabled` feature: the tests' code in a branch that never runs, so that
/// relations are type-checked as with the feature and the helpers they use count as used. The
/// compiler drops the branch; no site is registered.
fn type_check(shape: &Shape, args: &Args) -> TokenStream {
    let child = child_branch(shape, args);
    let state = &args.state;
    quote! {
        if false {
            #( let _ = &#state; )*
            ::invite::__private::type_check_only(|__invite_run| { #child });
        }
    }
}

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
fn named_by_self_type(shape: &Shape, args: &Args) -> bool {
    args.name.is_none() && matches!(shape.enclosing, Some(Enclosing::Impl { self_ty: None, .. }))
}

fn site_static(shape: &Shape, args: &Args) -> TokenStream {
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

/// With `dedup = true`: hash the arguments (and declared state) and drop a sampled call whose
/// state was tested before. Types that are `Hash` hash as such; floating point numbers and
/// containers of them hash by value.
fn unseen_check(shape: &Shape, args: &Args) -> TokenStream {
    if args.dedup != Some(true) {
        return TokenStream::new();
    }
    let feeds = shape
        .params
        .iter()
        .map(|p| {
            let ident = &p.ident;
            quote!(#ident)
        })
        .chain(args.state.iter().map(|e| quote!(#e)))
        .map(|value| quote!((&&::invite::__private::HashProbe(&#value)).invite_hash(__invite_h);));
    quote! {
        #[allow(unused_imports)]
        use ::invite::__private::{ViaHash as _, ViaStateHash as _};
        let ::core::option::Option::Some(__invite_sampled) = __invite_sampled.unseen(|| {
            ::invite::__private::state_hash(|__invite_h| { #(#feeds)* })
        }) else {
            return;
        };
    }
}

/// The code of the child: capture the inputs, then hand every test to the run.
fn child_branch(shape: &Shape, args: &Args) -> TokenStream {
    let mut inputs = Vec::new();
    if shape.receiver != Receiver::None {
        let this = &shape.self_tok;
        inputs.push(quote!((
            "self",
            (&&::invite::__private::DebugProbe(&#this)).invite_debug()
        )));
    }
    for p in &shape.params {
        let ident = &p.ident;
        let label = ident.to_string();
        inputs.push(quote!((#label, (&&::invite::__private::DebugProbe(&#ident)).invite_debug())));
    }
    // The statistical relations share the site's false-alarm rate (Bonferroni).
    let checks = args
        .tests
        .iter()
        .filter(|t| matches!(t, Test::Relation(r) if r.statistical.is_some()))
        .count();
    let arms = args.tests.iter().enumerate().map(|(i, t)| {
        let body = match t {
            Test::Relation(r) if r.statistical.is_some() => statistical_arm(shape, r, checks),
            Test::Relation(r) => relation_arm(shape, r),
            Test::Metamorphic(tf) => metamorphic_test_arm(shape, &tf.path),
            Test::InVivo(tf) => in_vivo_arm(shape, &tf.path),
            Test::Discover(_) => discover_arm(shape),
        };
        quote!(#i => #body)
    });
    quote! {
        #[allow(unused_imports)]
        use ::invite::__private::{
            ApproxCompare as _, HasDebug as _, Incomparable as _, NoDebug as _, NotFuture as _,
            StdEq as _, StdOrd as _, ViaFuture as _,
        };
        let __invite_inputs = ::invite::__private::capture_inputs(|| ::std::vec![#(#inputs),*]);
        __invite_run.run(
            __invite_inputs,
            &mut |__invite_t: &mut ::invite::__private::TestCtx| {
                #[allow(unreachable_code, clippy::diverging_sub_expression, clippy::unit_arg)]
                match __invite_t.index() {
                    #(#arms,)*
                    _ => {}
                }
            },
        )
    }
}

/// Refuses, at compile time, what discovery cannot call again on transformed copies.
fn check_discoverable(func: &ItemFn, shape: &Shape) -> syn::Result<()> {
    for (p, input) in shape.params.iter().zip(
        func.sig
            .inputs
            .iter()
            .filter(|i| matches!(i, FnArg::Typed(_))),
    ) {
        if p.passing == Passing::Mut {
            return Err(syn::Error::new(
                input.span(),
                "relation discovery calls the function again on transformed copies of its \
                 arguments and compares the results; a `&mut` parameter is an output it cannot \
                 compare: discover a function that takes it by value or by `&` reference",
            ));
        }
    }
    if shape.output.is_none() {
        return Err(syn::Error::new(
            func.sig.ident.span(),
            "relation discovery compares the function's results, and this function returns \
             none: discover a function that returns a number, a `bool` or a vector of numbers",
        ));
    }
    Ok(())
}

/// The signature as discovery reads it: `fn name(&self, x: f64, xs: &[f64]) -> f64`.
fn signature_text(shape: &Shape) -> String {
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
fn discover_arm(shape: &Shape) -> TokenStream {
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
            _ => quote!(<#o as #d>::to_value(&#id)),
        }
    });
    let locals: Vec<Ident> = (0..shape.params.len())
        .map(|i| format_ident!("__invite_d{}", i))
        .collect();
    let converts = locals
        .iter()
        .zip(&owned)
        .enumerate()
        .map(|(i, (l, o))| quote!(let #l = <#o as #d>::from_value(__invite_v.get(#i)?)?;));
    let (setup, receiver, _) = receiver_for_execution(shape, "__invite_d_self");
    let mut call_args: Vec<TokenStream> = receiver.into_iter().collect();
    for (p, l) in shape.params.iter().zip(&locals) {
        call_args.push(match p.passing {
            Passing::Shared => quote!(&#l),
            _ => quote!(#l),
        });
    }
    let call = awaited_call(shape, &call_args);
    let output = shape
        .output
        .as_ref()
        .expect("checked by check_discoverable");
    let (out_owned, out_value) = match output {
        Type::Reference(_) => {
            let o = owned_type(output);
            let v = quote!(<#o as #d>::to_value(&::std::borrow::ToOwned::to_owned(__invite_r)));
            (o, v)
        }
        other => (
            quote!(#other),
            quote!(<#other as #d>::to_value(&__invite_r)),
        ),
    };
    let signature = signature_text(shape);
    quote!({
        let mut __invite_call = |__invite_v: &[::invite::__private::Value]|
            -> ::core::option::Option<::invite::__private::Value>
        {
            #(#converts)*
            #setup
            __invite_t.replay();
            let __invite_r = ::invite::__private::discover_quietly(|| #call)?;
            #out_value
        };
        ::invite::__private::discover_observe(
            __invite_t,
            #signature,
            &[#(#kinds),*],
            <#out_owned as #d>::KIND,
            ::std::vec![#(#values),*],
            &mut __invite_call,
        );
    })
}

/// The source run: statements that prepare fresh copies of mutable inputs, the call, and the
/// receiver and arguments a hand-written test sees afterwards.
struct SourceRun {
    setup: TokenStream,
    call: TokenStream,
    check_receiver: Option<TokenStream>,
    check_args: Vec<TokenStream>,
}

/// The receiver of one execution: statements that make its fresh copy, the argument to pass,
/// and what a hand-written test sees of it afterwards. `local` names the copy.
fn receiver_for_execution(
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
fn source_run(shape: &Shape, prefix: &str) -> SourceRun {
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
    let call = awaited_call(shape, &call_args);
    SourceRun {
        setup,
        call,
        check_receiver,
        check_args,
    }
}

/// A call of the function with `args` (the receiver first, for a method), its future driven to
/// its output for an `async fn`. Inside a test process the call runs the body alone.
fn awaited_call(shape: &Shape, args: &[TokenStream]) -> TokenStream {
    let callee = shape.callee();
    let turbofish = &shape.turbofish;
    let call = quote!(#callee #turbofish(#(#args),*));
    let call = if shape.is_unsafe {
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

/// A call of an `unsafe fn`, in an `unsafe` block that may be nested in the relation's own
/// (where the block is not needed, as in edition 2024 relations that say `unsafe` themselves).
fn unsafe_call(call: TokenStream) -> TokenStream {
    quote!({
        #[allow(unused_unsafe)]
        let __invite_value = unsafe { #call };
        __invite_value
    })
}

/// A user's expression in a test of an `async fn`, where it may `.await`: driven to its value
/// on the test's executor. Left as it is for other functions.
fn user_value(shape: &Shape, e: &Expr) -> TokenStream {
    if shape.is_async {
        quote_spanned!(e.span()=> ::invite::__private::block_on(async { #e }))
    } else {
        quote!(#e)
    }
}

/// A fresh clone of the receiver for one execution. Spanned on `self`, so that a receiver
/// type without `Clone` gets one error there, saying to derive `Clone` or use `in_vivo`.
fn clone_receiver(shape: &Shape, of: TokenStream) -> TokenStream {
    let ty = match &shape.receiver_ty {
        Some(ty) => quote!(#ty),
        None => quote_spanned!(shape.receiver_span=> Self),
    };
    quote_spanned!(shape.receiver_span=> <#ty as ::invite::bounds::CloneReceiver>::clone_for_execution(#of))
}

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

fn relation_arm(shape: &Shape, r: &Relation) -> TokenStream {
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
fn statistical_arm(shape: &Shape, r: &Relation, checks: usize) -> TokenStream {
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

fn metamorphic_test_arm(shape: &Shape, path: &Expr) -> TokenStream {
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

fn in_vivo_arm(shape: &Shape, path: &Expr) -> TokenStream {
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

/// A follow-up execution: arguments first (into `binds`, keeping their temporaries alive for the
/// call), then the stream rewound, then `prepare` (a receiver's fresh copy) and the call. It
/// keeps the `span` of the call it replaces, so that a relation's compile errors point at the
/// relation, not at the whole attribute. For an `async fn` the call is left a future, for the
/// relation to `.await` as written; one that owns a fresh receiver owns it in an `async`
/// block.
fn replayed(
    shape: &Shape,
    in_unsafe: bool,
    span: Span,
    args: &[TokenStream],
    binds: &[Ident],
    prepare: TokenStream,
    call: TokenStream,
) -> Expr {
    let call = if shape.is_unsafe && !in_unsafe {
        unsafe_call(call)
    } else {
        call
    };
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
struct FollowUps<'a> {
    shape: &'a Shape,
    /// Inside the relation's own `unsafe` block: a call of an `unsafe fn` needs no other.
    in_unsafe: bool,
}

impl<'a> FollowUps<'a> {
    fn new(shape: &'a Shape) -> FollowUps<'a> {
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
        let in_unsafe = self.in_unsafe;
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
                *e = replayed(shape, in_unsafe, span, &args, &binds, prepare, call);
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
                    *e = replayed(
                        shape,
                        in_unsafe,
                        span,
                        &args,
                        &binds,
                        TokenStream::new(),
                        call,
                    );
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
                *e = replayed(shape, in_unsafe, span, &args, &all, make, call);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The relation `text` after `result` is renamed, as tokens' text.
    fn renamed(text: &str) -> String {
        let mut args = Args::default();
        args.add(Kind::Metamorphic, text.parse().unwrap()).unwrap();
        rename_result(&mut args);
        match &args.tests[0] {
            Test::Relation(r) => {
                let (guard, body) = (&r.guard, &r.body);
                quote!(#guard #body).to_string()
            }
            _ => unreachable!("a relation"),
        }
    }

    #[test]
    fn result_is_renamed_wherever_the_relation_does_not_bind_its_own() {
        assert_eq!(renamed("f(x) == result"), "f (x) == __invite_result");
        assert_eq!(
            renamed("if result > 0.0 => f(x) >= result"),
            "__invite_result > 0.0 f (x) >= __invite_result"
        );
        // A closure's, a match arm's and a `let`'s own `result` are theirs within their scope.
        assert_eq!(
            renamed("xs.iter().all(|result| *result <= 1.0) && result >= 0.0"),
            "xs . iter () . all (| result | * result <= 1.0) && __invite_result >= 0.0"
        );
        assert_eq!(
            renamed("match g(x) { Some(result) => result, None => result } > 0"),
            "match g (x) { Some (result) => result , None => __invite_result } > 0"
        );
        assert_eq!(
            renamed("{ let y = result; let result = 2.0; result + y } > 0.0"),
            "{ let y = __invite_result ; let result = 2.0 ; result + y } > 0.0"
        );
        // Struct shorthand keeps the field's name.
        assert_eq!(
            renamed("S { result } == S { result: 1 }"),
            "S { result : __invite_result } == S { result : 1 }"
        );
    }

    #[test]
    fn in_a_macro_result_is_renamed_except_as_a_field_or_a_path_segment() {
        assert_eq!(
            renamed("approx!(result, s.result, a::result, (result))"),
            "approx ! (__invite_result , s . result , a :: result , (__invite_result))"
        );
    }

    #[test]
    fn the_output_local_takes_the_first_renamed_result_even_inside_groups() {
        let mut args = Args::default();
        args.add(Kind::Metamorphic, "f(&[result]) > 0".parse().unwrap())
            .unwrap();
        rename_result(&mut args);
        let Test::Relation(r) = &args.tests[0] else {
            unreachable!("a relation")
        };
        assert_eq!(result_of(r), RESULT);
        let mut args = Args::default();
        args.add(Kind::Metamorphic, "f(x) > 0".parse().unwrap())
            .unwrap();
        let Test::Relation(r) = &args.tests[0] else {
            unreachable!("a relation")
        };
        assert_eq!(
            result_of(r),
            RESULT,
            "a relation without result still names it"
        );
    }

    #[test]
    fn locals_of_the_expansion_get_mixed_site_spans_and_nothing_else_changes() {
        let out = respan_locals(quote!(let __invite_t = x; { __invite_a0 } result));
        assert_eq!(
            out.to_string(),
            "let __invite_t = x ; { __invite_a0 } result"
        );
    }

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

    fn shape(attr: &str, item: &str) -> Shape {
        let mut args = Args::default();
        args.add(Kind::Metamorphic, attr.parse().unwrap()).unwrap();
        let func: ItemFn = syn::parse_str(item).unwrap();
        shape_of(&func, &args).unwrap()
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
