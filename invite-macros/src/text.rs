//! The source text of a relation, as the user wrote it, for the log and the report.
//!
//! `quote!(#expr).to_string()` would print `std_dev (& permute (xs)) == result`. Instead the
//! tokens' own line and column positions put the original spacing back; tokens on a new line
//! are joined with one space.

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

/// One token's text with the positions it spans.
struct Piece {
    text: String,
    start: (usize, usize),
    end: (usize, usize),
}

fn position(span: Span, end: bool) -> Option<(usize, usize)> {
    // Only meaningful inside a running macro; elsewhere (unit tests) there are no positions.
    if !proc_macro::is_available() {
        return None;
    }
    let s = span.unwrap();
    let p = if end { s.end() } else { s.start() };
    Some((p.line(), p.column()))
}

fn flatten(tokens: TokenStream, out: &mut Vec<Piece>) {
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                if !open.is_empty() {
                    out.push(piece(open.to_string(), g.span_open()));
                }
                flatten(g.stream(), out);
                if !close.is_empty() {
                    out.push(piece(close.to_string(), g.span_close()));
                }
            }
            other => {
                let span = other.span();
                out.push(piece(other.to_string(), span));
            }
        }
    }
}

fn piece(text: String, span: Span) -> Piece {
    let start = position(span, false).unwrap_or((0, 0));
    let end = position(span, true).unwrap_or((0, 0));
    Piece { text, start, end }
}

/// The tokens as written. Falls back to the token printer's spacing when positions are missing.
pub fn source_text(tokens: &TokenStream) -> String {
    let mut pieces = Vec::new();
    flatten(tokens.clone(), &mut pieces);
    if pieces.iter().any(|p| p.start == (0, 0) && p.end == (0, 0)) {
        return tokens.to_string();
    }
    let mut out = String::new();
    for (i, p) in pieces.iter().enumerate() {
        if i > 0 {
            let prev = &pieces[i - 1];
            if p.start.0 != prev.end.0 {
                out.push(' ');
            } else if p.start.1 > prev.end.1 {
                out.push_str(&" ".repeat(p.start.1 - prev.end.1));
            }
        }
        out.push_str(&p.text);
    }
    out
}
