//! Where the compiler put a wrapped method, read at run time.
//!
//! The attribute macros read nothing but the tokens they are given, and a method's tokens do not
//! say which `impl` or `trait` block holds it. The compiler knows: every wrapped function holds
//! an empty marker function, and `std::any::type_name_of_val` of the marker prints its path,
//! `<app::Knn as app::Model>::predict::__invite_here` in a trait impl, `app::Knn::new::…` in an
//! inherent one, `app::Model::score::…` in a trait's default method. From that path a method's
//! site takes its name at its first call ([`site_prefix`]), and the site checks that the path
//! its tests call the function through reaches the function itself ([`same_function`]): in a
//! trait impl whose type has an inherent method of the same name, `Self::name` reaches the
//! inherent one.
//!
//! `type_name` promises no format; what is read here is what rustc has printed for years, and
//! a path that does not read as expected gives a name still unique to the method (its whole
//! path) and a check that refuses rather than passes.

/// What a wrapped function says of itself at its site's first sampled call.
#[derive(Clone, Copy, Debug)]
pub struct Place {
    /// `type_name_of_val` of the marker function in its body.
    pub marker: &'static str,
    /// `module_path!()` where the function is written.
    pub module: &'static str,
    /// `type_name_of_val` of the path its tests call it through; `None` where that path cannot
    /// be named without its arguments (a function with `impl Trait` parameters).
    pub callee: Option<&'static str>,
    /// The site was named `module::function` at compile time, as a free function is: its
    /// tokens showed neither `self` nor `Self`.
    pub named_as_free: bool,
}

/// The marker function's name, as the expansion writes it.
pub const MARKER: &str = "__invite_here";

/// The path of the function that holds the marker: `marker` without the marker's own segment
/// and without the `{{closure}}` segments an `async fn`'s body adds. An impl written in another
/// module than its type's is printed as a segment of that module (`app::io::<impl app::Model
/// for app::Knn>::predict`); it is read back as the path a call prints (`<app::Knn as
/// app::Model>::predict`), an inherent one (`<impl app::Knn>`) as the type's path.
pub(crate) fn owner_path(marker: &str) -> String {
    let path = marker
        .strip_suffix(MARKER)
        .and_then(|p| p.strip_suffix("::"))
        .unwrap_or(marker);
    let segments: Vec<&str> = split_top(path, "::")
        .into_iter()
        // rustc's own segments (`{{closure}}`, `{{constant}}`) start so; no path's do.
        .filter(|s| !s.starts_with("{{"))
        .collect();
    let Some(at) = segments.iter().rposition(|s| s.starts_with("<impl ")) else {
        return segments.join("::");
    };
    let block = &segments[at]["<impl ".len()..segments[at].len() - 1];
    let head = match split_top(block, " for ").as_slice() {
        [tr, ty] => format!("<{ty} as {tr}>"),
        _ => block.to_string(),
    };
    std::iter::once(head.as_str())
        .chain(segments[at + 1..].iter().copied())
        .collect::<Vec<_>>()
        .join("::")
}

/// What stands before `::method` in the name of a method's site: `<module::Type as Trait>` in
/// a trait impl, `module::Type` in an inherent impl, `module::Trait` for a default method.
/// `module` is where the method is written, as for a free function's site; the type keeps its
/// generic arguments only when they are concrete (an impl for `Vec<f64>`, not `impl<T> … for
/// Data<T>`, whose one site serves every `T`), and the trait keeps none.
pub(crate) fn site_prefix(place: &Place, method: &str) -> String {
    let owner = owner_path(place.marker);
    let Some(holder) = owner
        .strip_suffix(method)
        .and_then(|o| o.strip_suffix("::"))
    else {
        return owner;
    };
    if let Some((ty, tr)) = qualified(holder) {
        let tr = without_generic_arguments(last_segment(tr));
        return format!("<{} as {tr}>", type_in(ty, place.module));
    }
    format!("{}::{}", place.module, type_name_part(last_segment(holder)))
}

/// A type as a site's name shows it: a path type by its last segment after `module`; any other
/// type (`[f64]`, `&str`, a tuple) as printed.
fn type_in(ty: &str, module: &str) -> String {
    let is_path =
        ty.starts_with(|c: char| c.is_alphabetic() || c == '_') && !ty.starts_with("dyn ");
    if is_path {
        format!("{module}::{}", type_name_part(last_segment(ty)))
    } else {
        ty.to_string()
    }
}

/// A path segment without generic arguments that stand for an impl's parameters (`_`).
fn type_name_part(segment: &str) -> String {
    let generic = segment.find('<').is_some_and(|i| {
        segment[i..]
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "_")
    });
    if generic {
        without_generic_arguments(segment)
    } else {
        segment.to_string()
    }
}

/// Whether the path the tests call through (`callee`) names the function that holds the
/// marker. Generic arguments are left out on both sides (the marker's impl prints `_` for its
/// parameters, the call its instance's types), and a default method (`app::Trait::m`) is
/// reached as `<T as app::Trait>::m` for whichever `T` implements it.
pub(crate) fn same_function(callee: &str, marker: &str) -> bool {
    let owner = without_generic_arguments(&owner_path(marker));
    let callee = without_generic_arguments(callee);
    if owner == callee {
        return true;
    }
    // A trait's default method, called as `Self::m` on an implementing type.
    let (Some(method_at), false) = (callee.rfind("::"), owner.starts_with('<')) else {
        return false;
    };
    match qualified(&callee[..method_at]) {
        Some((_, tr)) => format!("{tr}{}", &callee[method_at..]) == owner,
        None => false,
    }
}

/// For a site named as a free function: the block it is really in (`app::Feet`, `<app::Feet as
/// app::Unit>`), when its marker shows one; `None` for a free function, nested or not.
pub(crate) fn unnamed_block(place: &Place, method: &str) -> Option<String> {
    if !place.named_as_free {
        return None;
    }
    let owner = without_generic_arguments(&owner_path(place.marker));
    let holder = owner.strip_suffix(method)?.strip_suffix("::")?;
    let in_block =
        holder.starts_with('<') || last_segment(holder).starts_with(|c: char| c.is_uppercase());
    in_block.then(|| holder.to_string())
}

/// `<T as Trait>` read as `(T, Trait)`.
fn qualified(path: &str) -> Option<(&str, &str)> {
    let inner = path.strip_prefix('<')?.strip_suffix('>')?;
    let parts = split_top(inner, " as ");
    match parts.as_slice() {
        [ty, tr] => Some((ty, tr)),
        _ => None,
    }
}

/// The last `::` segment of a path, outside angle and square brackets.
fn last_segment(path: &str) -> &str {
    split_top(path, "::").pop().unwrap_or(path)
}

/// `text` split at each `sep` that is outside `<…>`, `[…]` and `(…)`.
fn split_top<'a>(text: &'a str, sep: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < bytes.len() {
        match bytes[i] {
            b'<' | b'[' | b'(' => depth += 1,
            // `->` in a function pointer type is no closing bracket.
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' | b']' | b')' => depth -= 1,
            _ if depth == 0 && text[i..].starts_with(sep) => {
                parts.push(&text[start..i]);
                i += sep.len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&text[start..]);
    parts
}

/// `type_name` without its generic arguments at any depth: `a::B<c::D<E>>::f` is `a::B::f`.
/// The angle brackets of a qualified path (`<T as Trait>::f`) stay: they open a path, not
/// arguments.
pub(crate) fn without_generic_arguments(type_name: &str) -> String {
    let mut out = String::with_capacity(type_name.len());
    // For each open bracket: whether it opened generic arguments (dropped) or a qualified path.
    let mut open: Vec<bool> = Vec::new();
    let mut prev: Option<char> = None;
    for c in type_name.chars() {
        let dropping = open.iter().any(|&args| args);
        match c {
            '<' => {
                // After a name (`Vec<`), arguments; anywhere else (`<T as`, `<<`), a path.
                let args = prev.is_some_and(|p| p.is_alphanumeric() || p == '_');
                open.push(args);
                if !args && !dropping {
                    out.push(c);
                }
            }
            '>' if prev != Some('-') => {
                let args = open.pop().unwrap_or(false);
                if !args && !dropping {
                    out.push(c);
                }
            }
            _ if !dropping => out.push(c),
            _ => {}
        }
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(marker: &'static str) -> Place {
        Place {
            marker,
            module: "app::models",
            callee: None,
            named_as_free: false,
        }
    }

    #[test]
    fn a_trait_impls_method_is_named_by_its_type_and_trait() {
        let p = place("<app::models::Knn as app::Model>::predict::__invite_here");
        assert_eq!(site_prefix(&p, "predict"), "<app::models::Knn as Model>");
        let p = place("<app::Data<_> as app::Spread<f64>>::spread::__invite_here");
        assert_eq!(site_prefix(&p, "spread"), "<app::models::Data as Spread>");
        let p = place("<alloc::vec::Vec<f64> as app::Stat>::mean::__invite_here");
        assert_eq!(site_prefix(&p, "mean"), "<app::models::Vec<f64> as Stat>");
        let p = place("<[f64] as app::Stat>::mean::__invite_here");
        assert_eq!(site_prefix(&p, "mean"), "<[f64] as Stat>");
    }

    #[test]
    fn inherent_and_default_methods_are_named_by_their_block() {
        let p = place("app::models::Knn<_>::fit::__invite_here");
        assert_eq!(site_prefix(&p, "fit"), "app::models::Knn");
        let p = place("app::models::Model::score::{{closure}}::__invite_here");
        assert_eq!(site_prefix(&p, "score"), "app::models::Model");
    }

    #[test]
    fn a_path_that_does_not_read_as_expected_names_the_method_by_its_whole_path() {
        let p = place("somewhere::else::__invite_here");
        assert_eq!(site_prefix(&p, "fit"), "somewhere::else");
    }

    #[test]
    fn an_impl_written_away_from_its_type_reads_as_the_type_and_trait() {
        let marker = "app::io::<impl app::Model for app::Knn<_>>::predict::__invite_here";
        assert_eq!(owner_path(marker), "<app::Knn<_> as app::Model>::predict");
        assert_eq!(
            site_prefix(&place(marker), "predict"),
            "<app::models::Knn as Model>"
        );
        assert!(same_function(
            "<app::Knn<u8> as app::Model>::predict",
            marker
        ));
        assert!(!same_function("app::Knn<u8>::predict", marker));
        let inherent = "app::io::<impl app::Knn>::fit::{{closure}}::__invite_here";
        assert_eq!(owner_path(inherent), "app::Knn::fit");
        assert_eq!(site_prefix(&place(inherent), "fit"), "app::models::Knn");
    }

    #[test]
    fn a_function_named_as_free_but_written_in_a_block_is_told_from_a_nested_one() {
        let free = |marker| Place {
            named_as_free: true,
            ..place(marker)
        };
        let p = free("app::Feet::from_metres::__invite_here");
        assert_eq!(
            unnamed_block(&p, "from_metres").as_deref(),
            Some("app::Feet")
        );
        let p = free("<app::Km as app::Unit>::to_metres::__invite_here");
        assert_eq!(
            unnamed_block(&p, "to_metres").as_deref(),
            Some("<app::Km as app::Unit>")
        );
        assert_eq!(
            unnamed_block(&free("app::outer::inner::__invite_here"), "inner"),
            None
        );
        assert_eq!(unnamed_block(&free("app::f::__invite_here"), "f"), None);
        let named = place("app::Feet::from_metres::__invite_here");
        assert_eq!(
            unnamed_block(&named, "from_metres"),
            None,
            "named as a method already"
        );
    }

    #[test]
    fn the_owner_is_the_markers_path_without_closures() {
        assert_eq!(owner_path("a::f::{{closure}}::__invite_here"), "a::f");
        assert_eq!(
            owner_path("<a::S<_> as a::T<u8>>::f::__invite_here"),
            "<a::S<_> as a::T<u8>>::f"
        );
    }

    #[test]
    fn the_callee_must_reach_the_function_that_holds_the_marker() {
        let marker = "<tn::m::S<_> as tn::m::Tr<u8>>::f::__invite_here";
        assert!(same_function("<tn::m::S<u8> as tn::m::Tr<u8>>::f", marker));
        assert!(
            !same_function("tn::m::S<u8>::f", marker),
            "an inherent method of the same name"
        );
        assert!(same_function("tn::m::f<u8>", "tn::m::f::__invite_here"));
        assert!(!same_function("tn::m::f", "tn::m::S::f::__invite_here"));
        assert!(same_function(
            "tn::m::S::g",
            "tn::m::S<_>::g::{{closure}}::__invite_here"
        ));
        // A default method, reached through an implementing type.
        assert!(same_function(
            "<tn::m::S<u8> as tn::m::Tr>::d",
            "tn::m::Tr::d::__invite_here"
        ));
        assert!(!same_function(
            "<tn::m::S as tn::m::Other>::d",
            "tn::m::Tr::d::__invite_here"
        ));
        assert!(!same_function("tn::m::S::d", "tn::m::Tr::d::__invite_here"));
    }

    #[test]
    fn generic_arguments_are_left_out_at_any_depth_but_qualified_paths_stay() {
        assert_eq!(without_generic_arguments("a::B<c::D<E>, F>"), "a::B");
        assert_eq!(without_generic_arguments("a::B"), "a::B");
        assert_eq!(without_generic_arguments("x::Y<u8>::Z"), "x::Y::Z");
        assert_eq!(
            without_generic_arguments("<a::S<u8> as a::T<fn() -> u8>>::f"),
            "<a::S as a::T>::f"
        );
        assert_eq!(
            without_generic_arguments("<[f64] as a::T>::f"),
            "<[f64] as a::T>::f"
        );
    }

    #[test]
    fn paths_split_only_outside_brackets() {
        // The `>` of a function pointer's `->` closes nothing.
        assert_eq!(
            split_top("fn(u8) -> u8 as a::T", " as "),
            vec!["fn(u8) -> u8", "a::T"]
        );
        assert_eq!(last_segment("<a::S as a::T<fn() -> u8>>::f"), "f");
        // A `>` that opens the text has nothing before it to look at.
        assert_eq!(split_top(">a::b", "::"), vec![">a::b"]);
        assert_eq!(last_segment("a::B<c::D>"), "B<c::D>");
        assert_eq!(last_segment("<a::B as c::D>"), "<a::B as c::D>");
        assert_eq!(split_top("a<b as c> as d", " as "), vec!["a<b as c>", "d"]);
    }
}
