//! The `impl` or `trait` block a function is written in, found in its source file.
//!
//! An attribute on a method sees the method alone, not the block around it, and stable Rust
//! has no compile-time name for `Self` or for the trait being implemented. The compiler does
//! tell a macro where its input is (file and line, stable since Rust 1.88), so the enclosing
//! block is read from the file itself: a small lexer that knows comments, strings and character
//! literals tracks the open braces up to the function's line, and the innermost one's header,
//! if it is an `impl` or a `trait`, is parsed with syn. In a `macro_rules!` body the header may
//! hold fragments (`impl Stat for $t`): they are read as placeholders, and whatever contains
//! one is unknown. Anything unexpected (no file, a header syn cannot read) gives `None`, and
//! the expansion falls back on what the function itself says.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

/// The block that directly holds a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Enclosing {
    /// Not an `impl` or `trait` block: a module, a function body.
    Free,
    /// An `impl` block: its self type's last path segment and, for a trait impl, the trait.
    /// Either is `None` when a macro fragment stands in it.
    Impl {
        self_ty: Option<String>,
        trait_: Option<TraitRef>,
        /// The impl has generic parameters: one site serves every instantiation.
        generic: bool,
    },
    /// A trait definition (the function is a default method).
    Trait { name: String },
}

/// The trait of a trait impl.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TraitRef {
    /// Its last path segment, for the site's name; `None` when a fragment stands in it.
    pub name: Option<String>,
    /// The path as written (`Stat<T>`), for `<Self as Stat<T>>::method`; `None` when it holds
    /// a fragment.
    pub path: Option<String>,
}

/// What directly holds the function named by `ident`; `None` when the source cannot be read
/// (outside the compiler, or a file that is not on disk) or the block's header cannot be
/// parsed.
pub(crate) fn enclosing_of(ident: &proc_macro2::Ident) -> Option<Enclosing> {
    if !proc_macro::is_available() {
        return None;
    }
    let span = ident.span().unwrap();
    let file = span.local_file()?;
    let line = span.line();
    let column = span.column();
    thread_local! {
        /// Each file once per compilation: a crate's macros run in one process.
        static FILES: RefCell<HashMap<PathBuf, Option<String>>> = RefCell::new(HashMap::new());
    }
    FILES.with(|files| {
        let mut files = files.borrow_mut();
        let text = files
            .entry(file.clone())
            .or_insert_with(|| std::fs::read_to_string(&file).ok());
        text.as_deref().and_then(|t| enclosing_at(t, line, column))
    })
}

/// What directly encloses the position `line`:`column` (1-based line, 0-based column in
/// characters) of `source`.
pub(crate) fn enclosing_at(source: &str, line: usize, column: usize) -> Option<Enclosing> {
    let offset = offset_of(source, line, column);
    match innermost_open_header(&source[..offset]) {
        None => Some(Enclosing::Free),
        Some(header) => block_of(header),
    }
}

/// The self type's name of the `impl` block directly enclosing a position, `None` elsewhere.
#[cfg(test)]
fn impl_type_at(source: &str, line: usize, column: usize) -> Option<String> {
    match enclosing_at(source, line, column)? {
        Enclosing::Impl { self_ty, .. } => self_ty,
        _ => None,
    }
}

/// The byte offset of a line and character column, clamped to the text.
fn offset_of(source: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match source[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return source.len(),
        }
    }
    source[start..]
        .char_indices()
        .nth(column)
        .map_or(source.len(), |(i, _)| start + i)
}

/// The text before each `{` still open at the end of `code`, since the last `;`, `{` or `}`;
/// returns the innermost one.
fn innermost_open_header(code: &str) -> Option<&str> {
    let bytes = code.as_bytes();
    // Open braces: where each one's header starts and where the brace is.
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut statement_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = code[i..].find('\n').map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = skip_block_comment(bytes, i);
                continue;
            }
            b'"' => {
                i = skip_string(bytes, i + 1);
                continue;
            }
            b'r' | b'b' | b'c' if !ident_before(bytes, i) => {
                if let Some(end) = skip_prefixed_string(bytes, i) {
                    i = end;
                    continue;
                }
            }
            b'\'' => {
                i = skip_char_or_lifetime(bytes, i);
                continue;
            }
            b'{' => {
                open.push((statement_start, i));
                statement_start = i + 1;
            }
            b'}' => {
                open.pop();
                statement_start = i + 1;
            }
            b';' => statement_start = i + 1,
            _ => {}
        }
        i += 1;
    }
    open.last().map(|&(start, brace)| &code[start..brace])
}

fn ident_before(bytes: &[u8], i: usize) -> bool {
    i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')
}

/// Past a block comment starting at `i` (they nest).
fn skip_block_comment(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i + 1 < bytes.len() {
        if bytes[i] == b'/' && bytes[i + 1] == b'*' {
            depth += 1;
            i += 2;
        } else if bytes[i] == b'*' && bytes[i + 1] == b'/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// Past the closing quote of a string whose content starts at `i`.
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// A string with a prefix at `i` (`b"…"`, `c"…"`, `r"…"`, `r#"…"#`, `br#"…"#`, `cr"…"`), or
/// `None` when `i` starts something else (an identifier, a byte literal is left to the caller).
fn skip_prefixed_string(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if bytes[j] == b'b' || bytes[j] == b'c' {
        j += 1;
    }
    let raw = bytes.get(j) == Some(&b'r');
    if raw {
        j += 1;
    }
    let hashes = bytes[j..].iter().take_while(|&&b| b == b'#').count();
    j += hashes;
    if bytes.get(j) != Some(&b'"') || (hashes > 0 && !raw) || j == i {
        return None;
    }
    if !raw {
        return Some(skip_string(bytes, j + 1));
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = j + 1;
    Some(
        bytes[body..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map_or(bytes.len(), |p| body + p + close.len()),
    )
}

/// Past a character literal (`'a'`, `'\n'`, `'\u{1F600}'`, `'{'`) or a lifetime (`'a`) at `i`.
fn skip_char_or_lifetime(bytes: &[u8], i: usize) -> usize {
    if bytes.get(i + 1) == Some(&b'\\') {
        // An escape (`'\''` too): the literal ends at the next quote after the escaped one.
        return bytes
            .get(i + 3..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\''))
            .map_or(bytes.len(), |p| i + 3 + p + 1);
    }
    // One character (of any UTF-8 length) then a quote is a literal; anything else a lifetime.
    let width = match bytes.get(i + 1) {
        Some(&b) if b < 0x80 => 1,
        Some(&b) if b >= 0xF0 => 4,
        Some(&b) if b >= 0xE0 => 3,
        Some(_) => 2,
        None => return bytes.len(),
    };
    if bytes.get(i + 1 + width) == Some(&b'\'') {
        i + 2 + width
    } else {
        i + 1
    }
}

/// What stands in for a `macro_rules!` fragment (`$t`) while a header is parsed.
const FRAGMENT: &str = "__InviteMacroFragment";

/// The block whose header (the text before its `{`) is `header`: `Free` for anything but an
/// `impl` or a `trait`, `None` for an `impl` or `trait` header that cannot be parsed. In a
/// `macro_rules!` arm written with parentheses the matcher comes first (`($t:ty) => ( impl
/// Stat for $t`): only what follows the last `=>` is read, without the openers of the arm and
/// of a repetition (`$( impl Stat for $t`).
fn block_of(header: &str) -> Option<Enclosing> {
    let header = replace_fragments(header);
    let body = header
        .rfind("=>")
        .map_or(&header[..], |i| &header[i + 2..])
        .trim_start_matches(|c: char| matches!(c, '$' | '(' | '[') || c.is_whitespace());
    let body = without_inner_attributes(body);
    let text = format!("{body} {{}}");
    if let Ok(item) = syn::parse_str::<syn::ItemImpl>(&text) {
        return Some(impl_block(&item));
    }
    if let Ok(item) = syn::parse_str::<syn::ItemTrait>(&text) {
        return Some(Enclosing::Trait {
            name: item.ident.to_string(),
        });
    }
    let first_word = body
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .find(|w| {
            !matches!(
                *w,
                "pub" | "crate" | "super" | "in" | "unsafe" | "auto" | "default"
            )
        });
    match first_word {
        Some("impl" | "trait") => None,
        _ => Some(Enclosing::Free),
    }
}

/// `header` without the inner attributes that open a module's body (`#![allow(...)] impl ...`).
fn without_inner_attributes(mut header: &str) -> &str {
    while let Some(rest) = header.trim_start().strip_prefix("#!") {
        let rest = rest.trim_start();
        let mut depth = 0usize;
        let mut end = None;
        for (i, c) in rest.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = Some(i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        match end {
            Some(end) if rest.starts_with('[') => header = &rest[end..],
            _ => return header,
        }
    }
    header
}

fn impl_block(item: &syn::ItemImpl) -> Enclosing {
    let self_ty = match &*item.self_ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .filter(|_| {
                !quote::ToTokens::to_token_stream(p)
                    .to_string()
                    .contains(FRAGMENT)
            }),
        _ => None,
    };
    let trait_ = item.trait_.as_ref().map(|(path, _)| {
        let text = quote::ToTokens::to_token_stream(path).to_string();
        let known = !text.contains(FRAGMENT);
        TraitRef {
            name: path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .filter(|n| n != FRAGMENT),
            path: known.then_some(text),
        }
    });
    Enclosing::Impl {
        self_ty,
        trait_,
        generic: !item.generics.params.is_empty(),
    }
}

/// `header` with every `$name` fragment replaced by a placeholder identifier.
fn replace_fragments(header: &str) -> String {
    let mut out = String::with_capacity(header.len());
    let mut chars = header.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(|n| n.is_alphabetic() || *n == '_') {
            while chars
                .peek()
                .is_some_and(|n| n.is_alphanumeric() || *n == '_')
            {
                chars.next();
            }
            out.push_str(FRAGMENT);
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line (from 1) and column (from 0) of the name of the first `fn NAME` in `source`.
    fn position_of(source: &str, name: &str) -> (usize, usize) {
        let at_name = source
            .match_indices(&format!("fn {name}"))
            .map(|(i, _)| i + 3)
            .find(|&i| !source[i + name.len()..].starts_with(|c: char| c.is_alphanumeric()))
            .expect("the function");
        let line = source[..at_name].matches('\n').count() + 1;
        let column = source[..at_name]
            .rsplit('\n')
            .next()
            .unwrap()
            .chars()
            .count();
        (line, column)
    }

    /// The impl type around the first `fn NAME` in `source`.
    fn of_fn(source: &str, name: &str) -> Option<String> {
        let (line, column) = position_of(source, name);
        impl_type_at(source, line, column)
    }

    fn imp(name: &str) -> Option<String> {
        Some(name.to_string())
    }

    #[test]
    fn a_method_is_in_its_impl() {
        let src = "struct Stats;\nimpl Stats {\n    #[invite::metamorphic(x)]\n    pub fn push(&mut self) {}\n}\n";
        assert_eq!(of_fn(src, "push"), imp("Stats"));
    }

    #[test]
    fn generics_paths_traits_and_where_clauses_name_the_self_type() {
        let src = "impl<T: Clone> crate::a::Stats<T> where T: Copy {\n    fn push(&self) {}\n}\n\
                   impl<'a> std::fmt::Display for Wrapper<'a> {\n    fn fmt(&self) {}\n}\n\
                   unsafe impl Send for Raw {\n    fn raw() {}\n}\n";
        assert_eq!(of_fn(src, "push"), imp("Stats"));
        assert_eq!(of_fn(src, "fmt"), imp("Wrapper"));
        assert_eq!(of_fn(src, "raw"), imp("Raw"));
    }

    #[test]
    fn free_functions_and_functions_nested_in_methods_are_not_in_an_impl() {
        let src = "mod m {\n    fn free() {}\n}\nimpl S {\n    fn outer(&self) {\n        fn inner() {}\n    }\n}\nfn top() {}\n";
        assert_eq!(of_fn(src, "free"), None);
        assert_eq!(of_fn(src, "inner"), None);
        assert_eq!(of_fn(src, "top"), None);
        assert_eq!(of_fn(src, "outer"), imp("S"));
    }

    #[test]
    fn earlier_blocks_are_closed_and_later_ones_do_not_count() {
        let src = "impl A {\n    fn a() {}\n}\nfn between() { let x = S { f: 1 }; }\nimpl B {\n    fn b() { if x { } }\n    fn c() {}\n}\n";
        assert_eq!(of_fn(src, "a"), imp("A"));
        assert_eq!(of_fn(src, "between"), None);
        assert_eq!(of_fn(src, "b"), imp("B"));
        assert_eq!(of_fn(src, "c"), imp("B"));
    }

    #[test]
    fn braces_in_comments_strings_and_characters_are_not_blocks() {
        let src = "// {\n/* { /* nested { */ */\nconst S: &str = \"{ \\\" {\";\nconst R: &str = r##\"{ \"# {\"##;\nconst B: &[u8] = br\"{\";\nconst C: char = '{';\nconst E: char = '\\'';\nfn g<'a>(x: &'a str) -> &'a str { x }\nconst U: char = 'é';\nimpl<'a> Outer<'a> {\n    fn method(&self) { let _ = '}'; }\n    fn next() {}\n}\n";
        assert_eq!(of_fn(src, "method"), imp("Outer"));
        assert_eq!(of_fn(src, "next"), imp("Outer"));
        assert_eq!(of_fn(src, "g"), None);
    }

    #[test]
    fn identifiers_ending_in_string_prefixes_are_identifiers() {
        let src =
            "fn f() { let bar = 1; let car = \"}\"; let br = 2; }\nimpl T {\n    fn m() {}\n}\n";
        assert_eq!(of_fn(src, "m"), imp("T"));
    }

    #[test]
    fn types_that_are_not_paths_and_unreadable_headers_give_no_type() {
        let src =
            "impl Tr for [f64] {\n    fn s() {}\n}\nimpl <T as Tr>::Out {\n    fn q() {}\n}\n";
        assert_eq!(of_fn(src, "s"), None);
        assert_eq!(of_fn(src, "q"), None);
    }

    /// What encloses the first `fn NAME` in `source`.
    fn block_around(source: &str, name: &str) -> Option<Enclosing> {
        let (line, column) = position_of(source, name);
        enclosing_at(source, line, column)
    }

    /// An impl block: its self type, its trait's name and path, whether it is generic.
    fn impl_of(
        self_ty: Option<&str>,
        trait_: Option<(Option<&str>, Option<&str>)>,
        generic: bool,
    ) -> Option<Enclosing> {
        Some(Enclosing::Impl {
            self_ty: self_ty.map(String::from),
            trait_: trait_.map(|(name, path)| TraitRef {
                name: name.map(String::from),
                path: path.map(String::from),
            }),
            generic,
        })
    }

    #[test]
    fn a_trait_impl_names_its_type_and_trait_and_says_whether_it_is_generic() {
        let src = "impl<T: Float> crate::s::Stat<T> for Data<T> where T: Copy {\n    fn mean(&self) {}\n}\nimpl Add for V2 {\n    fn add(self) {}\n}\n";
        assert_eq!(
            block_around(src, "mean"),
            impl_of(
                Some("Data"),
                Some((Some("Stat"), Some("crate :: s :: Stat < T >"))),
                true
            )
        );
        assert_eq!(
            block_around(src, "add"),
            impl_of(Some("V2"), Some((Some("Add"), Some("Add"))), false)
        );
    }

    #[test]
    fn a_default_method_is_in_its_trait() {
        let src = "pub trait Summary: Sized {\n    fn values(&self) -> Vec<f64>;\n    fn total(&self) -> f64 { 0.0 }\n}\n";
        assert_eq!(
            block_around(src, "total"),
            Some(Enclosing::Trait {
                name: "Summary".into()
            })
        );
    }

    #[test]
    fn macro_fragments_leave_what_holds_them_unknown() {
        let src = "macro_rules! m {\n    ($t:ty, $tr:path) => {\n        impl Width for Range<$t> {\n            fn width(&self) {}\n        }\n        impl $tr for $t {\n            fn other(&self) {}\n        }\n    };\n}\n";
        assert_eq!(
            block_around(src, "width"),
            impl_of(None, Some((Some("Width"), Some("Width"))), false)
        );
        assert_eq!(
            block_around(src, "other"),
            impl_of(None, Some((None, None)), false)
        );
    }

    #[test]
    fn a_macro_arm_in_parentheses_or_a_repetition_is_read_past_its_opener() {
        let paren = "macro_rules! m {\n    ($t:ident) => ( impl $t {\n        fn sum(&self) {}\n    } );\n}\n";
        let repeated = "macro_rules! m {\n    ($($t:ident),*) => { $( impl Tr for $t {\n        fn sum(&self) {}\n    } )* };\n}\n";
        for src in [paren, repeated] {
            assert!(
                matches!(
                    block_around(src, "sum"),
                    Some(Enclosing::Impl { self_ty: None, .. })
                ),
                "{src}"
            );
        }
    }

    #[test]
    fn a_function_returning_impl_trait_is_no_impl_and_a_broken_impl_header_is_unknown() {
        let src = "fn outer() -> impl Iterator<Item = u8> {\n    fn inner() {}\n    std::iter::empty()\n}\nimpl<T Broken {\n    fn f() {}\n}\n";
        assert_eq!(block_around(src, "inner"), Some(Enclosing::Free));
        assert_eq!(block_around(src, "f"), None);
        assert_eq!(block_around("fn top() {}\n", "top"), Some(Enclosing::Free));
    }

    #[test]
    fn inner_attributes_that_open_a_module_do_not_hide_its_impl() {
        let src = "mod m {\n    #![allow(clippy::all)]\n    #![allow(dead_code)]\n    impl super::Scorer for P {\n        fn score(&self) {}\n    }\n}\n";
        assert_eq!(
            block_around(src, "score"),
            impl_of(
                Some("P"),
                Some((Some("Scorer"), Some("super :: Scorer"))),
                false
            )
        );
        assert_eq!(without_inner_attributes("#![a] #![b[c]] impl X"), " impl X");
        assert_eq!(without_inner_attributes("#!oops impl X"), "#!oops impl X");
        assert_eq!(
            without_inner_attributes("#!oops [a] impl X"),
            "#!oops [a] impl X"
        );
    }

    #[test]
    fn positions_past_the_end_are_clamped() {
        assert_eq!(impl_type_at("impl A {\n", 40, 3), imp("A"));
        assert_eq!(impl_type_at("impl A { fn f() {}", 1, 400), imp("A"));
        assert_eq!(offset_of("ab\ncd", 2, 1), 4);
        assert_eq!(offset_of("ab\ncd", 1, 0), 0);
    }
}
