//! The attributes' arguments, parsed into plain data. Nothing here generates code.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, LitStr, Token};

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
            ],
            Kind::InVivo => &["test", "name", "timeout_ms", "rho", "dedup", "state"],
            Kind::Discover => &["name", "timeout_ms", "rho"],
        }
    }
}

/// One metamorphic relation: `[if guard =>] body`.
pub struct Relation {
    pub guard: Option<Expr>,
    pub body: Expr,
    pub text: String,
}

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
    pub name: Option<LitStr>,
    pub tolerance: Option<f64>,
    pub timeout_ms: Option<u64>,
    pub rho: Option<f64>,
    pub self_check: Option<bool>,
    pub dedup: Option<bool>,
    /// Expressions that, with the arguments, make up the state `dedup` remembers.
    pub state: Vec<Expr>,
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
                Item::Relation(guard, body) => {
                    self.tests
                        .push(Test::Relation(Relation { guard, body, text }))
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
                        lit: Lit::Str(s), ..
                    }) if !s.value().trim().is_empty() => self.name = Some(s),
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "`name` takes a non-empty string, such as `name = \"stats::std_dev\"`",
                        ))
                    }
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
            "dedup" => {
                if self.dedup.is_some() {
                    return Err(dup());
                }
                match value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Bool(b), ..
                    }) => self.dedup = Some(b.value),
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "`dedup` takes `true` or `false`",
                        ))
                    }
                }
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
            "discover" => match value {
                Expr::Lit(ExprLit {
                    lit: Lit::Bool(b), ..
                }) => {
                    if b.value {
                        self.discover(name.span())?;
                    }
                }
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "`discover` takes `true` or `false`",
                    ))
                }
            },
            "self_check" => {
                if self.self_check.is_some() {
                    return Err(dup());
                }
                match value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Bool(b), ..
                    }) => self.self_check = Some(b.value),
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "`self_check` takes `true` or `false`",
                        ))
                    }
                }
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
    Relation(Option<Expr>, Expr),
    Option(syn::Ident, Expr),
}

const DISCOVER_TAKES: &str = "#[invite::discover] proposes relations and takes only the options \
    `name`, `rho` and `timeout_ms`; relations you have written belong in #[invite::metamorphic]";

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
        let body: Expr = input.parse()?;
        check_boolean_shape(&body)?;
        check_boolean_shape(&guard)?;
        return Ok(Item::Relation(Some(guard), body));
    }
    let expr: Expr = input.parse()?;
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
    Ok(Item::Relation(None, expr))
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
