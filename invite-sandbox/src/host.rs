//! Facts about the machine that records carry.

/// This machine's host name, as the kernel holds it (`uname`'s node name, which is what
/// `gethostname` returns).
pub fn name() -> String {
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}
