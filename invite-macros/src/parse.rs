//! The attributes' arguments, parsed into plain data. Nothing here generates code.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, ExprLit, Ident, Lit, Token};

use crate::text::source_text;

/// Which attribute the arguments came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Metamorphic,
    InVivo,
    Discover,
}

impl Kind {
    pub fn attr(self) -> &'static str {
        match self {
            Kind::Metamorphic => "#[invite::metamorphic]",
            Kind::InVivo => "#[invite::in_vivo]",
            Kind::Discover => "#[invite::discover]",
        }
    }

    fn options(self) -> &'static [&'static str] {
        match self {
            Kind::Metamorphic => &[
                "test",
                "name",
                "tolerance",
                "timeout_ms",
                "rho",
                "self_check",
                "dedup",
                "state",
                "discover",
                "pure",
                "mutants",
            ],
            Kind::InVivo => &["test", "name", "timeout_ms", "rho", "dedup", "state"],
            Kind::Discover => &["name", "timeout_ms", "rho", "mutants"],
        }
    }
}

/// One metamorphic relation: `[if guard =>] [statistical(...) =>] body`.
pub struct Relation {
    pub guard: Option<Expr>,
    pub statistical: Option<Box<Statistical>>,
    pub body: Expr,
    pub text: String,
}

/// How a relation that holds in distribution is judged: `statistical(runs = 30, test = welch,
/// alpha = 0.001, control = true)`. Every key may be left out.
pub struct Statistical {
    pub runs: Option<usize>,
    /// The test's name, as `invite::stats::Test::parse` reads it.
    pub test: Option<String>,
    pub alpha: Option<f64>,
    pub control: bool,
}

/// The tests `invite::stats` knows, by the names relations give them.
pub const STATISTICAL_TESTS: [&str; 4] = ["welch", "mann_whitney", "ks", "variance_ratio"];
/// The bounds `invite::stats` enforces on the runs per side.
const STATISTICAL_RUNS: std::ops::RangeInclusive<usize> = 5..=100_000;

/// A test function named by `test = path`.
pub struct TestFn {
    pub path: Expr,
    pub text: String,
}

/// One test of a site, in the order written.
pub enum Test {
    Relation(Relation),
    Metamorphic(TestFn),
    InVivo(TestFn),
    /// Relation discovery; the text (`discover fn ...`) is set once the signature is known.
    Discover(String),
}

impl Test {
    pub fn text(&self) -> &str {
        match self {
            Test::Relation(r) => &r.text,
            Test::Metamorphic(t) | Test::InVivo(t) => &t.text,
            Test::Discover(text) => text,
        }
    }
}

/// Everything the attributes of one function say.
#[derive(Default)]
pub struct Args {
    pub tests: Vec<Test>,
    /// A string literal, or a macro call that gives one (`concat!(...)`, in a `macro_rules!`
    /// family), for the site's name.
    pub name: Option<Expr>,
    pub tolerance: Option<f64>,
    pub timeout_ms: Option<u64>,
    pub rho: Option<f64>,
    pub self_check: Option<bool>,
    pub dedup: Option<bool>,
    /// Expressions that, with the arguments, make up the state `dedup` remembers.
    pub state: Vec<Expr>,
    /// `pure`: the result depends on the arguments alone, so the worker may test calls
    /// without a fork. The place of the word, for errors.
    pub pure: Option<Span>,
    /// `pure = false`: the worker never tests the site, whatever `invite.toml` says.
    pub pure_off: bool,
    /// `mutants = true`: discovery runs wrong versions of the function beside it.
    pub mutants: Option<bool>,
}

impl Args {
    /// Parses one attribute's arguments and adds them to what earlier attributes said.
    pub fn add(&mut self, kind: Kind, tokens: TokenStream) -> syn::Result<()> {
        let items = split_top_level(tokens);
        if kind == Kind::Discover {
            self.discover(Span::call_site())?;
        } else if items.is_empty() {
            let msg = match kind {
                Kind::Metamorphic => {
                    "#[invite::metamorphic] needs at least one relation, such as \
                     `f(&multiply(xs, 2.0)) == result * 2.0`, or `test = path::to::check`"
                }
                Kind::InVivo => "#[invite::in_vivo] needs `test = path::to::test`",
                Kind::Discover => unreachable!("discovery needs no items"),
            };
            return Err(syn::Error::new(Span::call_site(), msg));
        }
        for item in items {
            let text = source_text(&item);
            let parsed = (|input: ParseStream| parse_item(kind, input)).parse2(item)?;
            match parsed {
                Item::Relation(guard, statistical, body) => {
                    self.tests.push(Test::Relation(Relation {
                        guard,
                        statistical,
                        body,
                        text,
                    }))
                }
                Item::Option(name, value) => self.option(kind, &name, value)?,
            }
        }
        Ok(())
    }

    fn option(&mut self, kind: Kind, name: &syn::Ident, value: Expr) -> syn::Result<()> {
        let key = name.to_string();
        let dup = || syn::Error::new(name.span(), format!("`{key}` is given twice"));
        match key.as_str() {
            "test" => {
                let text = source_text(&quote::ToTokens::to_token_stream(&value));
                if !matches!(value, Expr::Path(_)) {
                    return Err(syn::Error::new(
                        value.span(),
                        "`test = ...` takes the path of a function, such as `Self::check` or `checks::put_then_get`",
                    ));
                }
                let t = TestFn { path: value, text };
                self.tests.push(match kind {
                    Kind::InVivo => Test::InVivo(t),
                    _ => Test::Metamorphic(t),
                });
            }
            "name" => {
                if self.name.is_some() {
                    return Err(dup());
                }
                match value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(ref s),
                        ..
                    }) if !s.value().trim().is_empty() => self.name = Some(value),
                    Expr::Macro(ref m)
                        if m.mac.path.is_ident("concat") || m.mac.path.is_ident("stringify") =>
                    {
                        self.name = Some(value)
                    }
                    other => return Err(syn::Error::new(
                        other.span(),
                        "`name` takes a non-empty string, such as `name = \"stats::std_dev\"`, \
                             or `concat!(...)` of strings (in a macro that makes a family of \
                             functions)",
                    )),
                }
            }
            "tolerance" => {
                if self.tolerance.is_some() {
                    return Err(dup());
                }
                let v = number(&value, "`tolerance` takes a number such as `1e-9`")?;
                if !(v.is_finite() && v >= 0.0) {
                    return Err(syn::Error::new(
                        value.span(),
                        "`tolerance` must be 0 or more",
                    ));
                }
                self.tolerance = Some(v);
            }
            "rho" => {
                if self.rho.is_some() {
                    return Err(dup());
                }
                let v = number(&value, "`rho` takes a probability such as `0.01`")?;
                if !(0.0..=1.0).contains(&v) {
                    return Err(syn::Error::new(
                        value.span(),
                        format!("`rho` is a probability from 0.0 to 1.0, got {v}"),
                    ));
                }
                self.rho = Some(v);
            }
            "timeout_ms" => {
                if self.timeout_ms.is_some() {
                    return Err(dup());
                }
                let v = match &value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Int(i), ..
                    }) => i.base10_parse::<u64>().ok(),
                    _ => None,
                };
                match v {
                    Some(v) if v > 0 => self.timeout_ms = Some(v),
                    _ => {
                        return Err(syn::Error::new(
                            value.span(),
                            "`timeout_ms` takes a whole number of milliseconds of 1 or more",
                        ))
                    }
                }
            }
            "mutants" => {
                if self.mutants.is_some() {
                    return Err(dup());
                }
                self.mutants = Some(flag(&value, "`mutants` takes `true` or `false`")?);
            }
            "dedup" => {
                if self.dedup.is_some() {
                    return Err(dup());
                }
                self.dedup = Some(flag(&value, "`dedup` takes `true` or `false`")?);
            }
            "state" => {
                if !self.state.is_empty() {
                    return Err(dup());
                }
                match value {
                    Expr::Array(a) if !a.elems.is_empty() => {
                        self.state = a.elems.into_iter().collect()
                    }
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "`state` takes a list of expressions that describe the state, such as \
                             `state = [self.len(), self.capacity()]`",
                        ))
                    }
                }
            }
            "discover" => {
                if flag(&value, "`discover` takes `true` or `false`")? {
                    self.discover(name.span())?;
                }
            }
            "pure" => {
                if self.pure.is_some() || self.pure_off {
                    return Err(dup());
                }
                if flag(&value, "`pure` takes `true` or `false` (or stands alone)")? {
                    self.pure = Some(name.span());
                } else {
                    self.pure_off = true;
                }
            }
            "self_check" => {
                if self.self_check.is_some() {
                    return Err(dup());
                }
                self.self_check = Some(flag(&value, "`self_check` takes `true` or `false`")?);
            }
            _ => unreachable!("filtered by parse_item"),
        }
        Ok(())
    }
}

impl Args {
    /// Adds the discovery entry, once.
    fn discover(&mut self, span: Span) -> syn::Result<()> {
        if self.tests.iter().any(|t| matches!(t, Test::Discover(_))) {
            return Err(syn::Error::new(
                span,
                "discovery is asked for twice: keep either #[invite::discover] or `discover = true`",
            ));
        }
        // Checked with the attributes off too: the expansion type-checks the conversions.
        if !cfg!(feature = "discover") {
            return Err(syn::Error::new(
                span,
                "relation discovery is an optional part of invite: enable it with \
                 `invite-mt = { version = \"...\", features = [\"discover\"] }` in Cargo.toml \
                 (a build that only checks relations leaves it out)",
            ));
        }
        self.tests.push(Test::Discover(String::new()));
        Ok(())
    }

    /// Names the discovery entry after the function's signature.
    pub fn name_discovery(&mut self, signature: &str) {
        for t in &mut self.tests {
            if let Test::Discover(text) = t {
                // The prefix is `invite::site::DISCOVER_PREFIX`, which the collector strips.
                *text = format!("discover {signature}");
            }
        }
    }
}

enum Item {
    Relation(Option<Expr>, Option<Box<Statistical>>, Expr),
    Option(syn::Ident, Expr),
}

const DISCOVER_TAKES: &str = "#[invite::discover] proposes relations and takes only the options \
    `name`, `rho`, `timeout_ms` and `mutants`; relations you have written belong in \
    #[invite::metamorphic]";

fn parse_item(kind: Kind, input: ParseStream) -> syn::Result<Item> {
    if input.peek(Token![if]) {
        match kind {
            Kind::InVivo => {
                return Err(input.error("#[invite::in_vivo] takes `test = path`, not relations"))
            }
            Kind::Discover => return Err(input.error(DISCOVER_TAKES)),
            Kind::Metamorphic => {}
        }
        input.parse::<Token![if]>()?;
        let guard = Expr::parse_without_eager_brace(input)?;
        input.parse::<Token![=>]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                "a guarded relation reads `if <condition> => <relation>`",
            )
        })?;
        let statistical = parse_statistical(input)?;
        let body: Expr = input.parse()?;
        check_boolean_shape(&body)?;
        check_boolean_shape(&guard)?;
        if let Some(st) = &statistical {
            check_statistical(st, &body, Some(&guard))?;
        }
        return Ok(Item::Relation(Some(guard), statistical, body));
    }
    if kind == Kind::Metamorphic {
        if let Some(st) = parse_statistical(input)? {
            let body: Expr = input.parse()?;
            check_boolean_shape(&body)?;
            check_statistical(&st, &body, None)?;
            return Ok(Item::Relation(None, Some(st), body));
        }
    }
    let expr: Expr = input.parse()?;
    // `pure` alone is the option `pure = true`.
    if let Expr::Path(p) = &expr {
        if p.path.is_ident("pure") && kind == Kind::Metamorphic {
            let word = p.path.get_ident().expect("one segment").clone();
            let yes = syn::parse_quote_spanned!(word.span()=> true);
            return Ok(Item::Option(word, yes));
        }
    }
    if let Expr::Assign(assign) = &expr {
        if let Expr::Path(p) = &*assign.left {
            if let Some(ident) = p.path.get_ident() {
                if kind.options().contains(&ident.to_string().as_str()) {
                    return Ok(Item::Option(ident.clone(), (*assign.right).clone()));
                }
                let expected = kind.options().join(", ");
                return Err(syn::Error::new(
                    ident.span(),
                    format!(
                        "`{ident} = ...` is neither an option of {} ({expected}) nor a \
                         relation; to compare, write `==`",
                        kind.attr()
                    ),
                ));
            }
        }
    }
    match kind {
        Kind::InVivo => return Err(syn::Error::new(
            expr.span(),
            "#[invite::in_vivo] takes `test = path`; relations belong in #[invite::metamorphic]",
        )),
        Kind::Discover => return Err(syn::Error::new(expr.span(), DISCOVER_TAKES)),
        Kind::Metamorphic => {}
    }
    check_boolean_shape(&expr)?;
    Ok(Item::Relation(None, None, expr))
}

const STATISTICAL_FORM: &str =
    "a statistical relation reads `statistical(runs = 30, test = welch, \
    alpha = 0.0001, control = false) => <left> == <right>`, every key optional";

/// Parses `statistical(key = value, ...) =>` when the input starts with it.
fn parse_statistical(input: ParseStream) -> syn::Result<Option<Box<Statistical>>> {
    let fork = input.fork();
    let starts = fork.parse::<syn::Ident>().is_ok_and(|i| i == "statistical")
        && fork.peek(syn::token::Paren);
    if !starts {
        return Ok(None);
    }
    let word = input.parse::<syn::Ident>()?;
    if !cfg!(feature = "statistical") {
        return Err(syn::Error::new(
            word.span(),
            "statistical relations are an optional part of invite: enable them with \
             `invite-mt = { version = \"...\", features = [\"statistical\"] }` in Cargo.toml",
        ));
    }
    let content;
    syn::parenthesized!(content in input);
    let pairs =
        syn::punctuated::Punctuated::<syn::ExprAssign, Token![,]>::parse_terminated(&content)
            .map_err(|e| syn::Error::new(e.span(), STATISTICAL_FORM))?;
    let mut st = Statistical {
        runs: None,
        test: None,
        alpha: None,
        control: false,
    };
    let mut seen = Vec::new();
    for pair in pairs {
        let key = match &*pair.left {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        }
        .ok_or_else(|| syn::Error::new(pair.left.span(), STATISTICAL_FORM))?;
        if seen.contains(&key) {
            return Err(syn::Error::new(
                pair.left.span(),
                format!("`{key}` is given twice"),
            ));
        }
        seen.push(key.clone());
        let value = &*pair.right;
        match key.as_str() {
            "runs" => {
                let n = match value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Int(i), ..
                    }) => i.base10_parse::<usize>().ok(),
                    _ => None,
                };
                match n {
                    Some(n) if STATISTICAL_RUNS.contains(&n) => st.runs = Some(n),
                    _ => {
                        return Err(syn::Error::new(
                            value.span(),
                            format!(
                                "`runs` takes the number of runs per side, a whole number from \
                                 {} to {} (30 when not given)",
                                STATISTICAL_RUNS.start(),
                                STATISTICAL_RUNS.end()
                            ),
                        ))
                    }
                }
            }
            "test" => {
                let name = match value {
                    Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }) => Some(s.value()),
                    _ => None,
                }
                .map(|n| n.trim().to_ascii_lowercase().replace('-', "_"));
                match name {
                    Some(n) if STATISTICAL_TESTS.contains(&n.as_str()) => st.test = Some(n),
                    _ => {
                        return Err(syn::Error::new(
                            value.span(),
                            format!(
                                "`test` takes one of {} (welch when not given)",
                                STATISTICAL_TESTS.join(", ")
                            ),
                        ))
                    }
                }
            }
            "alpha" => {
                let v = number(value, "`alpha` takes a probability such as `0.001`")?;
                if !(v > 0.0 && v < 1.0) {
                    return Err(syn::Error::new(
                        value.span(),
                        format!(
                            "`alpha` is the false-alarm rate per check, above 0 and below 1, \
                             got {v}"
                        ),
                    ));
                }
                st.alpha = Some(v);
            }
            "control" => match value {
                Expr::Lit(ExprLit {
                    lit: Lit::Bool(b), ..
                }) => st.control = b.value,
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "`control` takes `true` or `false`",
                    ))
                }
            },
            _ => {
                return Err(syn::Error::new(
                    pair.left.span(),
                    format!(
                        "`{key}` is not a key of `statistical(...)`: use runs, test, alpha and \
                         control"
                    ),
                ))
            }
        }
    }
    input.parse::<Token![=>]>().map_err(|e| {
        syn::Error::new(
            e.span(),
            "`statistical(...)` is followed by `=>` and the relation",
        )
    })?;
    Ok(Some(Box::new(st)))
}

/// A statistical relation compares two samples: its body is one comparison the test can judge,
/// and its guard, checked once before the runs, cannot use a result.
fn check_statistical(st: &Statistical, body: &Expr, guard: Option<&Expr>) -> syn::Result<()> {
    let op = match body {
        Expr::Binary(b) => Some(&b.op),
        _ => None,
    };
    let two_sided_only = matches!(st.test.as_deref(), Some("ks" | "variance_ratio"));
    match op {
        Some(syn::BinOp::Eq(_)) => {}
        Some(syn::BinOp::Lt(_) | syn::BinOp::Le(_) | syn::BinOp::Gt(_) | syn::BinOp::Ge(_))
            if !two_sided_only => {}
        Some(syn::BinOp::Lt(_) | syn::BinOp::Le(_) | syn::BinOp::Gt(_) | syn::BinOp::Ge(_)) => {
            return Err(syn::Error::new(
                body.span(),
                "this test compares two samples for sameness only: write the relation with \
                 `==`, or use `test = welch` or `test = mann_whitney` for `<`, `<=`, `>` and `>=`",
            ))
        }
        _ => {
            return Err(syn::Error::new(
                body.span(),
                "a statistical relation compares a sample of its left side with a sample of its \
                 right side: write it as `<left> == <right>` (or `<`, `<=`, `>`, `>=`), such as \
                 `f(&multiply(xs, 2.0)) == result * 2.0`",
            ))
        }
    }
    if let Some(g) = guard {
        if mentions_ident(g, "result") {
            return Err(syn::Error::new(
                g.span(),
                "the guard of a statistical relation is checked once, before its runs, and \
                 cannot use `result`: guard on the arguments",
            ));
        }
    }
    Ok(())
}

/// Rejects expressions that can never be a `bool`, with a hint. The rest is left to the type
/// checker, through a trait whose error message says the same.
fn check_boolean_shape(e: &Expr) -> syn::Result<()> {
    let why = match e {
        Expr::Assign(_) => "this is an assignment, not a relation; did you mean `==`?",
        Expr::Lit(ExprLit {
            lit: Lit::Bool(_), ..
        }) => return Ok(()),
        Expr::Lit(_) => "a relation must be a boolean expression, not a literal",
        Expr::Range(_) | Expr::Array(_) | Expr::Tuple(_) | Expr::Closure(_) | Expr::Struct(_) => {
            "a relation must be a boolean expression, such as `f(&permute(xs)) == result`"
        }
        _ => return Ok(()),
    };
    Err(syn::Error::new(e.span(), why))
}

/// A `true` or `false` literal, or the error `msg` on the value.
fn flag(e: &Expr, msg: &str) -> syn::Result<bool> {
    match e {
        Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(b.value),
        other => Err(syn::Error::new(other.span(), msg)),
    }
}

fn number(e: &Expr, msg: &str) -> syn::Result<f64> {
    let v = match e {
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => f.base10_parse::<f64>().ok(),
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<f64>().ok(),
        _ => None,
    };
    v.ok_or_else(|| syn::Error::new(e.span(), msg))
}

/// Splits attribute arguments at top-level commas, keeping each item's tokens (and spans).
/// Parentheses, brackets and braces arrive as single groups; the only other commas at the top
/// level sit inside turbofish generics (`f::<A, B>(x)`), tracked by their angle brackets.
pub fn split_top_level(tokens: TokenStream) -> Vec<TokenStream> {
    let mut items = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    let mut angle_depth = 0usize;
    for tt in tokens {
        if let TokenTree::Punct(p) = &tt {
            match p.as_char() {
                '<' if angle_depth > 0 || after_path_separator(&current) => angle_depth += 1,
                '>' if angle_depth > 0 => angle_depth -= 1,
                ',' if angle_depth == 0 => {
                    if !current.is_empty() {
                        items.push(current.drain(..).collect());
                    }
                    continue;
                }
                _ => {}
            }
        }
        current.push(tt);
    }
    if !current.is_empty() {
        items.push(current.into_iter().collect());
    }
    items
}

fn after_path_separator(before: &[TokenTree]) -> bool {
    matches!(before, [.., TokenTree::Punct(a), TokenTree::Punct(b)] if a.as_char() == ':' && b.as_char() == ':')
}

/// Whether `e` names `name` anywhere (`result` in a guard, say).
pub fn mentions_ident(e: &Expr, name: &str) -> bool {
    struct Finder<'n>(&'n str, bool);
    impl<'a> Visit<'a> for Finder<'_> {
        fn visit_ident(&mut self, i: &'a Ident) {
            if i == self.0 {
                self.1 = true;
            }
        }
    }
    let mut f = Finder(name, false);
    f.visit_expr(e);
    f.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn name_of(tokens: TokenStream) -> syn::Result<Option<String>> {
        let mut args = Args::default();
        args.add(Kind::Metamorphic, tokens)?;
        Ok(args.name.map(|n| quote!(#n).to_string()))
    }

    #[test]
    fn a_name_is_a_non_empty_string_or_a_concat_or_stringify_of_one() {
        assert_eq!(
            name_of(quote!(f(x) == result, name = "app::f")).unwrap(),
            Some("\"app::f\"".into())
        );
        assert!(
            name_of(quote!(f(x) == result, name = concat!("app::", "f")))
                .unwrap()
                .is_some()
        );
        assert!(name_of(quote!(f(x) == result, name = stringify!(app)))
            .unwrap()
            .is_some());
        assert_eq!(name_of(quote!(f(x) == result)).unwrap(), None);
        for bad in [
            quote!(f(x) == result, name = ""),
            quote!(f(x) == result, name = "  "),
            quote!(f(x) == result, name = 3),
            quote!(f(x) == result, name = format!("app")),
            quote!(f(x) == result, name = "a", name = "b"),
        ] {
            let err = name_of(bad.clone()).expect_err(&bad.to_string());
            assert!(
                err.to_string().contains("`name` takes") || err.to_string().contains("twice"),
                "{err}"
            );
        }
    }

    #[test]
    fn pure_is_said_once_and_only_to_a_metamorphic_attribute() {
        let add = |kind, tokens: TokenStream| Args::default().add(kind, tokens);
        for twice in [
            quote!(pure, pure, f(x) == result),
            quote!(pure = false, pure, f(x) == result),
            quote!(pure, pure = false, f(x) == result),
        ] {
            let err = add(Kind::Metamorphic, twice.clone()).expect_err(&twice.to_string());
            assert!(err.to_string().contains("twice"), "{twice}: {err}");
        }
        let mut args = Args::default();
        args.add(Kind::Metamorphic, quote!(pure, f(x) == result))
            .unwrap();
        assert!(args.pure.is_some() && !args.pure_off);
        // Another bare word is a property, and `pure` is no In Vivo option.
        let mut args = Args::default();
        args.add(Kind::Metamorphic, quote!(holds)).unwrap();
        assert!(args.pure.is_none());
        assert_eq!(args.tests.len(), 1);
        assert!(add(Kind::InVivo, quote!(pure, test = t)).is_err());
    }
}
