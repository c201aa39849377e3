//! The errors of the crate root's own functions, so that a program that starts invite from code
//! can tell what went wrong, and what to change, without reading a message.
//!
//! Each module keeps the errors of its own functions ([`crate::config::ConfigError`],
//! [`crate::stats::Error`], [`crate::discover::SignatureError`]); this one holds those of
//! functions re-exported at the root.

use std::fmt;

use crate::config::ConfigError;

/// Why [`crate::init_with`] did not apply a configuration. Invite is left as it was: started
/// from the file (or off) when it had already started, else not started yet.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InitError {
    /// The configuration could not be written out as TOML, to be checked as a file would be:
    /// it holds a value the file cannot (such as a `seed` above `i64::MAX`). Change that value.
    Unwritable(toml::ser::Error),
    /// The configuration holds a value the file would be refused for (out of range, or a
    /// setting the build lacks the feature for). The error names the key and the fix; its text
    /// is this error's text.
    Invalid(ConfigError),
    /// Invite had already started (or been found off) from the configuration file or an earlier
    /// call. Call `init_with` before the first instrumented call.
    AlreadyStarted,
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitError::Unwritable(e) => write!(
                f,
                "invite::init_with: the configuration cannot be written out: {e}"
            ),
            InitError::Invalid(e) => e.fmt(f),
            InitError::AlreadyStarted => f.write_str(
                "invite::init_with: invite had already started (or been found off) from the \
                 configuration file or an earlier call; call init_with before the first \
                 instrumented call",
            ),
        }
    }
}

impl std::error::Error for InitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InitError::Unwritable(e) => Some(e),
            // Its text is this error's text: a chain printed link by link would repeat it.
            InitError::Invalid(e) => e.source(),
            InitError::AlreadyStarted => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn each_kind_reads_as_before_and_chains_to_its_cause() {
        let unwritable: toml::ser::Error = <toml::ser::Error as serde::ser::Error>::custom("x");
        let e = InitError::Unwritable(unwritable.clone());
        assert_eq!(
            e.to_string(),
            format!("invite::init_with: the configuration cannot be written out: {unwritable}")
        );
        assert_eq!(e.source().unwrap().to_string(), unwritable.to_string());
        let invalid = ConfigError {
            file: "invite::init_with".into(),
            line: 1,
            column: 16,
            key: "max_overhead".into(),
            message: "expected a number from 0.0 to 1.0".into(),
            more: Vec::new(),
        };
        let e = InitError::Invalid(invalid.clone());
        assert_eq!(e.to_string(), invalid.to_string());
        assert!(e.source().is_none());
        let e = InitError::AlreadyStarted;
        assert!(e.to_string().contains("already started"), "{e}");
        assert!(e.source().is_none());
    }
}
