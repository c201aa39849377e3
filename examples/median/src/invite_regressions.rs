// `invite report --emit-tests src/invite_regressions.rs` writes this module's tests.
