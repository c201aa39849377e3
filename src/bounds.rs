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

/// An argument a `#[invite::metamorphic]` function takes by value: each execution runs on its
/// own clone of it, so it must be `Clone`.
#[diagnostic::on_unimplemented(
    message = "`#[invite::metamorphic]` on a function taking an argument of type `{Self}` by value needs `{Self}: Clone`",
    label = "each execution runs on its own clone of this argument",
    note = "make the type `Clone` (an `impl Trait` argument can ask for `+ Clone`), take the argument by reference, or check this function with `#[invite::in_vivo(test = ...)]`, which gets the live argument"
)]
pub trait CloneArgument: Sized {
    /// A fresh copy of the argument for one execution.
    fn clone_for_execution(&self) -> Self;
}

impl<T: Clone> CloneArgument for T {
    fn clone_for_execution(&self) -> Self {
        self.clone()
    }
}

/// What a `&mut` argument of a `#[invite::metamorphic]` function points at: each execution
/// runs on its own copy of it, so it must be `ToOwned` (`Clone`, a slice, a `str`).
#[diagnostic::on_unimplemented(
    message = "`#[invite::metamorphic]` on a function taking `&mut {Self}` needs `{Self}: ToOwned`",
    label = "each execution runs on its own copy of what this argument points at",
    note = "make the type `Clone` (an `impl Trait` argument can ask for `+ Clone`), or check this function with `#[invite::in_vivo(test = ...)]`, which gets the live argument"
)]
pub trait OwnArgument {
    /// The copy's type.
    type Owned;
    /// A fresh copy for one execution.
    fn own_for_execution(&self) -> Self::Owned;
}

impl<T: ?Sized + ToOwned> OwnArgument for T {
    type Owned = T::Owned;
    fn own_for_execution(&self) -> T::Owned {
        self.to_owned()
    }
}

/// A fresh copy of a by-value argument, for one execution.
pub fn clone_argument<T: CloneArgument>(argument: &T) -> T {
    argument.clone_for_execution()
}

/// A fresh copy of what a `&mut` argument points at, for one execution.
pub fn own_argument<T: ?Sized + OwnArgument>(argument: &T) -> T::Owned {
    argument.own_for_execution()
}
