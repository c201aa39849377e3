#[invite::in_vivo(test = writes)]
fn f(x: u64) -> u64 {
    x
}
fn writes(_: &u64) -> bool {
    std::fs::write("/tmp/scratch-written", "x").is_ok()
}
fn main() {
    f(1);
    invite::wait_idle(std::time::Duration::from_secs(5));
    invite::shutdown();
}
