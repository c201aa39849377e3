//! The `impl` block a function is written in, found in its source file.
//!
//! An attribute on a method sees the method alone, not the `impl` around it, and stable Rust
//! has no compile-time name for `Self`. The compiler does tell a macro where its input is (file
//! and line, stable since Rust 1.88), so the enclosing block is read from the file itself: a
//! small lexer that knows comments, strings and character literals tracks the open braces up
//! to the function's line, and the innermost one's header, if it is an `impl`, is parsed with
//! syn for its self type. Anything unexpected (no file, a header syn cannot read, a type that
//! is not a path) gives `None`, and the site keeps its module-level name.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;

/// The name of the type whose `impl` block directly holds the function named by `ident`;
/// `None` when it is not in one, or when the source cannot be read (outside the compiler, or a
/// file that is not on disk).
pub(crate) fn impl_type_of(ident: &proc_macro2::Ident) -> Option<String> {
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
        text.as_deref().and_then(|t| impl_type_at(t, line, column))
    })
}

/// The self type's name of the `impl` block directly enclosing the position `line`:`column`
/// (1-based line, 0-based column in characters) of `source`.
pub(crate) fn impl_type_at(source: &str, line: usize, column: usize) -> Option<String> {
    let offset = offset_of(source, line, column);
    innermost_open_header(&source[..offset]).and_then(impl_type)
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

/// The self type's name if `header` (the text before a `{`) is an `impl` block's.
fn impl_type(header: &str) -> Option<String> {
    let item: syn::ItemImpl = syn::parse_str(&format!("{header} {{}}")).ok()?;
    match *item.self_ty {
        syn::Type::Path(p) if p.qself.is_none() => Some(p.path.segments.last()?.ident.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The impl type around the first `fn NAME` in `source`.
    fn of_fn(source: &str, name: &str) -> Option<String> {
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

    #[test]
    fn positions_past_the_end_are_clamped() {
        assert_eq!(impl_type_at("impl A {\n", 40, 3), imp("A"));
        assert_eq!(impl_type_at("impl A { fn f() {}", 1, 400), imp("A"));
        assert_eq!(offset_of("ab\ncd", 2, 1), 4);
        assert_eq!(offset_of("ab\ncd", 1, 0), 0);
    }
}
