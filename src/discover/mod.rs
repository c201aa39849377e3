//! Relation discovery: invite proposes metamorphic relations from a function's own calls.
//!
//! For every input it sees, discovery runs the function on follow-up inputs made by a fixed set
//! of transformations (for numbers `x' = a·x + b` on a grid, and `c - x` with the symmetry point
//! `c` solved; for sequences permuting, reversing, sorting, including and excluding elements,
//! scaling and translating; for several parameters swapping and scaling them all) and records
//! the results ([`Observation`]). The search then looks, per transformation, for an output
//! relation that held on every input:
//!
//! - equalities linear or quadratic in the two results, their coefficients solved in closed
//!   form by least squares on half of the observations, snapped to simple constants (integers,
//!   halves, π, e, ln 2, √2) only where that still fits, and checked on all of them;
//! - inequalities, and for sequences reversal, permutation, inclusion and length relations;
//! - where a relation holds on one category of inputs only (the sign of a number, a non-empty,
//!   sorted or varied sequence), the relation under that guard.
//!
//! The tolerance of each check is taken from the function's own noise: how far its result moves
//! when the input moves by one unit in the last place. A relation is proposed only when it
//! held on at least `min_inputs` distinct inputs and catches some wrong version of the output
//! (constant, scaled, shifted, negated, shortened, ...; see [`Proposal::detects`]); relations
//! that follow from two others (`sin(x + 2π)` from `sin(x + π)` twice) are folded away unless
//! they catch more. [`Proposals::representative`] keeps the fewest that together catch every
//! wrong output any of them catches; [`suspects`] reports apart the relations that held on most
//! inputs and failed on one kind of them (an even length, a repeated element): a defect there,
//! or a guard to write.
//!
//! Observing and searching are separate: an [`Observation`] is serializable, so observations
//! made anywhere can be searched with [`propose`]. The [`Discovery`] builder does both, offline,
//! on inputs you give:
//!
//! ```
//! let found = invite::discover::Discovery::new("fn sin(x: f64) -> f64", |x: f64| x.sin())
//!     .unwrap()
//!     .inputs((0..60).map(|i| (i as f64 * 0.37 - 11.0,)))
//!     .run();
//! assert!(found.relations().any(|r| r == "sin(-x) == -result"));
//! println!("{found}");
//! ```
//!
//! The public face is here: the re-exports, the default of `min_inputs` and the error. The
//! proposals, their ranking and their printing are in `proposal`, the folding away of relations
//! that follow from others in `fold`, the proposals from a log's observations (those of another
//! version left out) in `observed`, the offline builder in `discovery`, the inputs it builds at
//! the edges of a function's domain in `edge`, and the functions it calls on values in
//! `function`.

mod constant;
mod cover;
mod discovery;
mod edge;
mod fold;
mod form;
mod function;
mod guard;
mod image;
mod lsq;
mod observe;
mod observed;
mod period;
mod perturb;
mod project;
mod property;
mod proposal;
mod render;
mod residue;
mod search;
mod signature;
mod suspect;
mod through;
mod transform;
mod triple;
mod value;

use std::fmt;

pub use discovery::Discovery;
#[doc(hidden)]
pub use function::quietly;
pub use function::{Args, Function, IntoArgs};
pub use observe::Observation;
// How an observation is made: what generated code and a log writer call, not the API a user
// proposes relations with; hidden from the documentation, and free to change.
#[doc(hidden)]
pub use observe::{observe, Call, Differ, Follow, MutantRun, MAX_LEN};
pub use observed::{propose_observed, Observed};
pub use proposal::{propose, Proposal, Proposals};
pub use signature::SignatureError;
#[doc(hidden)]
pub use signature::{Param, Signature};
pub use suspect::{suspects, Suspect};
#[doc(hidden)]
pub use transform::Transform;
pub use value::{Discoverable, Element, Field, Kind, Value};

/// Distinct inputs a relation must hold on before it is proposed, unless told otherwise.
pub const DEFAULT_MIN_INPUTS: usize = 30;

/// Why discovery could not start on a function: its signature does not parse or does not agree
/// with the function.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The signature given to [`Discovery::new`]: fix it as the [`SignatureError`] says. Its
    /// text is this error's text.
    Signature(SignatureError),
    /// The signature a site's observations name ([`propose_observed`]) does not parse or does
    /// not match the recorded arguments: the log was written by another version of invite, or
    /// edited. Record the site again with the current build.
    RecordedSignature {
        /// The site whose records name the signature.
        site: String,
        /// What is wrong with the signature.
        source: SignatureError,
    },
    /// A function given to [`Discovery::sibling`] cannot be used: fix it as the reason says.
    Sibling {
        /// Its signature as given.
        signature: String,
        /// Why, and what to give instead.
        reason: &'static str,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Signature(e) => e.fmt(f),
            Error::RecordedSignature { site, source } => write!(f, "site {site}: {source}"),
            Error::Sibling { signature, reason } => {
                write!(f, "the other function `{signature}` {reason}")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Its text is this error's text: a chain printed link by link would repeat it.
            Error::Signature(e) => e.source(),
            Error::RecordedSignature { source, .. } => Some(source),
            Error::Sibling { .. } => None,
        }
    }
}
