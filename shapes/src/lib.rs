//! Every shape of function that real Rust code has, each instrumented by Invite: free functions
//! with generics, lifetimes, `impl Trait` arguments, const generics and patterns; methods with
//! every receiver; trait impls (generic traits, associated types, an inherent method of the
//! same name, default methods); families made by `macro_rules!`; and `async fn`s.
//!
//! Each function carries a defect that is planted when the environment says so
//! ([`planted`]), which its relation or In Vivo test must catch. The crate denies missing docs
//! and unsafe code (but for the one module of `unsafe` and `extern "C"` shapes), as a careful
//! user's would: the attributes must add no undocumented public item and no unsafe block.

#![deny(missing_docs, unsafe_code, warnings)]

use std::sync::OnceLock;

pub mod asyncs;
pub mod families;
pub mod free;
pub mod methods;
#[allow(unsafe_code)]
pub mod raw;
pub mod traits;

/// The environment variable that lists the sites (by the names Invite gives them, one per
/// line) whose defect is planted in this process.
pub const DEFECTS: &str = "INVITE_SHAPES_DEFECTS";

/// Whether the defect of the function Invite names `site` is planted in this process.
pub fn planted(site: &str) -> bool {
    static PLANTED: OnceLock<Vec<String>> = OnceLock::new();
    PLANTED
        .get_or_init(|| {
            std::env::var(DEFECTS)
                .map(|v| v.lines().map(str::to_owned).collect())
                .unwrap_or_default()
        })
        .iter()
        .any(|d| d == site)
}

/// One when the site's defect is planted, else zero: what a defective function adds.
pub fn off_by(site: &str) -> f64 {
    if planted(site) {
        1.0
    } else {
        0.0
    }
}
