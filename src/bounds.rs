//! What the attributes require of the code in relations and tests.
//!
//! The attributes' generated code calls these traits' methods on your relations, tests and
//! receivers, so a compile error about one of them is about your code: each says what was
//! found and what to write instead. You never implement or call them yourself.

use std::fmt::Debug;

use crate::record::Outcome;

/// A relation's value: a relation must be a `bool` expression.
#[diagnostic::on_unimplemented(
    message = "an invite relation must be a boolean expression, found `{Self}`",
    label = "this relation is not a `bool`",
    note = "write a comparison such as `f(&multiply(xs, 2.0)) == result * 2.0`, or a call that returns `bool`"
)]
pub trait Holds {
    /// Whether the relation held.
    fn holds(self) -> bool;
}

impl Holds for bool {
    fn holds(self) -> bool {
        self
    }
}

/// What a hand-written metamorphic test or an In Vivo test may return: `bool`, `()` (a test
/// that fails by panicking) or `Result<_, E: Debug>`.
#[diagnostic::on_unimplemented(
    message = "an invite test must return `bool`, `()` or `Result<_, E: Debug>`, found `{Self}`",
    label = "this test's return type",
    note = "return `false` or `Err(..)` on failure, or panic (as `assert!` does)"
)]
pub trait TestOutput {
    /// The outcome, with a detail for a failure.
    fn verdict(self) -> (Outcome, Option<String>);
}

impl TestOutput for bool {
    fn verdict(self) -> (Outcome, Option<String>) {
        if self {
            (Outcome::Pass, None)
        } else {
            (Outcome::Fail, Some("the test returned false".to_string()))
        }
    }
}

impl TestOutput for () {
    fn verdict(self) -> (Outcome, Option<String>) {
        (Outcome::Pass, None)
    }
}

impl<T, E: Debug> TestOutput for Result<T, E> {
    fn verdict(self) -> (Outcome, Option<String>) {
        match self {
            Ok(_) => (Outcome::Pass, None),
            Err(e) => (Outcome::Fail, Some(format!("the test returned Err({e:?})"))),
        }
    }
}

/// The receiver of a `#[invite::metamorphic]` method that takes `&mut self` or `self`: each
/// execution runs on its own clone of it, so it must be `Clone`.
#[diagnostic::on_unimplemented(
    message = "`#[invite::metamorphic]` on a method taking `&mut self` or `self` needs `{Self}: Clone`",
    label = "each execution runs on its own clone of this receiver",
    note = "derive `Clone` for `{Self}`, or check this method with `#[invite::in_vivo(test = ...)]`, which runs on the live receiver"
)]
pub trait CloneReceiver: Sized {
    /// A fresh copy of the receiver for one execution.
    fn clone_for_execution(&self) -> Self;
}

impl<T: Clone> CloneReceiver for T {
    fn clone_for_execution(&self) -> Self {
        self.clone()
    }
}
