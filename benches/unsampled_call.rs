//! The cost of instrumentation on calls that are not sampled, side by side with the same
//! function uninstrumented: at ρ = 0 (one relaxed load) and at ρ = 0.001 on its unsampled path
//! (the load plus a thread-local countdown; the few sampled calls are refused by a zero
//! overhead budget, so no fork disturbs the measurement).
//!
//! The same for an `async fn` (each future polled once, to its output) and for a trait impl
//! method, each beside its uninstrumented twin.
//!
//! Also the unseen-state filter's lookup and insert.
//!
//! ```text
//! cargo bench --bench unsampled_call
//! ```
// A benchmark stands in for a program: it forks, waits and touches memory the way programs do,
// with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod support;

use support::median;

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, Criterion};

#[inline(never)]
fn plain(x: u64) -> u64 {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x55
}

#[inline(never)]
#[invite::in_vivo(test = same)]
fn at_rho_zero(x: u64) -> u64 {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x55
}

#[inline(never)]
#[invite::in_vivo(test = same, rho = 0.001)]
fn at_rho_small(x: u64) -> u64 {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x55
}

fn same(x: &u64) -> bool {
    plain(*x) == at_rho_zero(*x)
}

#[inline(never)]
async fn plain_async(x: u64) -> u64 {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x55
}

#[inline(never)]
#[invite::in_vivo(test = same)]
async fn async_at_rho_zero(x: u64) -> u64 {
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x55
}

/// The future's output, polled once: these futures await nothing.
#[inline(always)]
fn ready<F: std::future::Future<Output = u64>>(f: F) -> u64 {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => unreachable!("awaits nothing"),
    }
}

fn plain_async_call(x: u64) -> u64 {
    ready(plain_async(x))
}

fn async_call_at_rho_zero(x: u64) -> u64 {
    ready(async_at_rho_zero(x))
}

trait Mix {
    fn mix(&self, x: u64) -> u64;
}

struct PlainMix;
struct InstrumentedMix;

impl Mix for PlainMix {
    #[inline(never)]
    fn mix(&self, x: u64) -> u64 {
        x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x55
    }
}

impl Mix for InstrumentedMix {
    #[inline(never)]
    #[invite::metamorphic(self.mix(x) == result)]
    fn mix(&self, x: u64) -> u64 {
        x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x55
    }
}

fn plain_method(x: u64) -> u64 {
    black_box(&PlainMix).mix(x)
}

fn method_at_rho_zero(x: u64) -> u64 {
    black_box(&InstrumentedMix).mix(x)
}

fn bench(c: &mut Criterion) {
    // ρ = 0 by default; `at_rho_small` has rho = 0.001 from its attribute. A zero overhead budget
    // refuses every sampled call, so the bench measures the unsampled path only.
    let _dir = support::start_invite("default_rho = 0.0\nmax_overhead = 0.0\n");
    let mut g = c.benchmark_group("unsampled call");
    g.bench_function("plain", |b| b.iter(|| plain(black_box(7))));
    g.bench_function("instrumented, rho = 0", |b| {
        b.iter(|| at_rho_zero(black_box(7)))
    });
    g.bench_function("instrumented, rho = 0.001", |b| {
        b.iter(|| at_rho_small(black_box(7)))
    });
    g.finish();

    // Unseen-state testing: one lookup-and-insert in a 1 MiB seen-state filter, with a fresh
    // state each time (the filter fills as the bench runs, as it would in a long-lived process).
    let filter = invite::__private::SeenFilter::new(1 << 20);
    let mut state = 0u64;
    c.bench_function("dedup lookup and insert, 1 MiB filter", |b| {
        b.iter(|| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            filter.check_and_insert(black_box(state))
        })
    });
}

/// Nanoseconds per call, over `n` calls.
fn per_call(f: fn(u64) -> u64, n: u64) -> f64 {
    let started = Instant::now();
    let mut acc = 0u64;
    for i in 0..n {
        acc = acc.wrapping_add(f(black_box(i)));
    }
    black_box(acc);
    started.elapsed().as_secs_f64() * 1e9 / n as f64
}

/// The three measured in alternation, many rounds, so that drift hits them alike.
fn side_by_side() {
    let n = 20_000_000;
    let (mut p, mut z, mut s) = (vec![], vec![], vec![]);
    for _ in 0..15 {
        p.push(per_call(plain, n));
        z.push(per_call(at_rho_zero, n));
        s.push(per_call(at_rho_small, n));
    }
    let (mut pa, mut za, mut pm, mut zm) = (vec![], vec![], vec![], vec![]);
    for _ in 0..15 {
        pa.push(per_call(plain_async_call, n));
        za.push(per_call(async_call_at_rho_zero, n));
        pm.push(per_call(plain_method, n));
        zm.push(per_call(method_at_rho_zero, n));
    }
    let (p, z, s) = (median(p), median(z), median(s));
    let (pa, za, pm, zm) = (median(pa), median(za), median(pm), median(zm));
    println!("\nside by side, median of 15 rounds of {n} calls:");
    println!("  plain                      {p:6.3} ns/call");
    println!(
        "  instrumented, rho = 0      {z:6.3} ns/call  ({:+.3} ns)",
        z - p
    );
    println!(
        "  instrumented, rho = 0.001  {s:6.3} ns/call  ({:+.3} ns)",
        s - p
    );
    println!("  async fn, plain            {pa:6.3} ns/call");
    println!(
        "  async fn, rho = 0          {za:6.3} ns/call  ({:+.3} ns)",
        za - pa
    );
    println!("  trait method, plain        {pm:6.3} ns/call");
    println!(
        "  trait method, rho = 0      {zm:6.3} ns/call  ({:+.3} ns)",
        zm - pm
    );
}

criterion_group!(benches, bench);

fn main() {
    benches();
    side_by_side();
    Criterion::default().configure_from_args().final_summary();
}
