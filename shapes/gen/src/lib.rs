//! `scaler!(name, factor)`: a function `name(x: f64) -> f64` that multiplies by `factor`, with
//! a relation, all of it made by this macro. Its parameter and the relation's `result` carry
//! mixed-site spans, as a careful macro's own identifiers do, so that nothing the instrumented
//! function's expansion introduces may resolve to them or they to it unless it keeps hygiene.

use proc_macro::{Ident, Span, TokenStream, TokenTree};

/// `scaler!(name, factor)`: see the crate's documentation.
#[proc_macro]
pub fn scaler(input: TokenStream) -> TokenStream {
    let mut parts = input
        .into_iter()
        .filter(|t| !matches!(t, TokenTree::Punct(_)));
    let name = match parts.next() {
        Some(TokenTree::Ident(i)) => i.to_string(),
        _ => panic!("scaler!(name, factor)"),
    };
    let factor = parts.next().expect("scaler!(name, factor)").to_string();
    let site = format!("invite_shapes::families::{name}");
    let code = format!(
        "/// `x` times {factor}, made by a procedural macro.
        #[invite::metamorphic({name}(2.0 * x) == 2.0 * (result))]
        pub fn {name}(x: f64) -> f64 {{
            {factor} * x + crate::off_by({site:?})
        }}"
    );
    let tokens: TokenStream = code.parse().expect("valid code");
    with_own_spans(tokens)
}

/// The macro's own identifiers (`x`, `result`) given mixed-site spans.
fn with_own_spans(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) if i.to_string() == "x" || i.to_string() == "result" => {
                TokenTree::Ident(Ident::new(&i.to_string(), Span::mixed_site()))
            }
            TokenTree::Group(g) => {
                let mut out = proc_macro::Group::new(g.delimiter(), with_own_spans(g.stream()));
                out.set_span(g.span());
                TokenTree::Group(out)
            }
            other => other,
        })
        .collect()
}
