//! Chooses the platform layer: Linux gets the sandbox, every other target (and a Linux build
//! with `--cfg invite_portable`, which CI uses to test the fallback) gets the portable one, in
//! which the runtime stays off and `invite::check` runs relations in process.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(invite_linux)");
    println!("cargo::rustc-check-cfg=cfg(invite_portable)");
    println!("cargo::rerun-if-changed=build.rs");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    let forced = std::env::var_os("CARGO_CFG_INVITE_PORTABLE").is_some();
    if linux && !forced {
        println!("cargo::rustc-cfg=invite_linux");
    }
}
