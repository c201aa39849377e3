//! A relation's `result` names the call's output, which the expansion holds in a local of its
//! own. Renaming it is a room of its own because it must respect Rust's scopes: a closure, a
//! match arm or a `let` inside the relation may bind a `result` of its own, and a macro's
//! tokens can be renamed only by reading them as tokens.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::quote;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Ident, Pat};

use super::checks::BoundNames;
use crate::parse::{Args, Relation, Test};

/// The output's local name; relations' `result` is renamed to it. It keeps the span of the
/// relation's own `result` (see [`result_of`]), not a mixed-site one: a relation's expression
/// then spans tokens of one context, and its errors point into it.
pub(super) const RESULT: &str = "__invite_result";

/// The local that holds a relation's output: named as its `result` was renamed, so that the
/// two resolve alike wherever the relation was written.
pub(super) fn result_of(r: &Relation) -> Ident {
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
pub(super) fn rename_result(args: &mut Args) {
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
            TokenTree::Literal(l) => {
                // `format!("{result}")` captures `result` by the string's own text.
                let text = syn::parse2::<syn::LitStr>(TokenTree::Literal(l.clone()).into())
                    .ok()
                    .and_then(|s| renamed_captures(&s.value()));
                match text {
                    Some(text) => {
                        let mut renamed = proc_macro2::Literal::string(&text);
                        renamed.set_span(l.span());
                        TokenTree::Literal(renamed)
                    }
                    None => TokenTree::Literal(l),
                }
            }
            other => other,
        };
        after_path_or_field =
            matches!(&next, TokenTree::Punct(p) if p.as_char() == '.' || p.as_char() == ':');
        out.push(next);
    }
    out.into_iter().collect()
}

/// A format string with its captures of `result` (`{result}`, `{result:?}`, `{result:>8.3}`)
/// renamed, or `None` when it has none. `{{` and `}}` are braces, not captures.
fn renamed_captures(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut renamed = false;
    while let Some(at) = rest.find(['{', '}']) {
        let (head, tail) = rest.split_at(at);
        out.push_str(head);
        if tail.starts_with("{{") || tail.starts_with("}}") || tail.starts_with('}') {
            let brace = if tail[1..].starts_with(&tail[..1]) {
                2
            } else {
                1
            };
            out.push_str(&tail[..brace]);
            rest = &tail[brace..];
            continue;
        }
        let argument = &tail[1..];
        let name = argument.find(['}', ':']).unwrap_or(argument.len());
        out.push('{');
        if &argument[..name] == "result" {
            out.push_str(RESULT);
            rest = &argument[name..];
            renamed = true;
        } else {
            rest = argument;
        }
    }
    out.push_str(rest);
    renamed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Kind;

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
    fn a_format_string_s_captures_of_result_are_renamed_and_nothing_else_in_it() {
        assert_eq!(
            renamed(r#"format!("{result}:{result:?}/{result:>8.3}") == s"#),
            r#"format ! ("{__invite_result}:{__invite_result:?}/{__invite_result:>8.3}") == s"#
        );
        // Braces doubled are text; other captures, and `result` in a longer name, are left.
        assert_eq!(
            renamed(r#"format!("{{result}} {x} {results} {} }}{result}", y) == s"#),
            r#"format ! ("{{result}} {x} {results} {} }}{__invite_result}" , y) == s"#
        );
        // A string with no capture of it keeps its own spelling.
        assert_eq!(
            renamed(r#"concat!(r"{{a}}", "result") == s"#),
            r#"concat ! (r"{{a}}" , "result") == s"#
        );
        assert_eq!(renamed_captures("{result"), Some(format!("{{{RESULT}")));
        assert_eq!(renamed_captures("{res}"), None);
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
}
