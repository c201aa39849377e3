//! The caller allocates nothing for a run: a sampled call takes a pipe the collector made ahead
//! of time, forks and sends one message by value. Counted with a global allocator that counts
//! the calling thread's allocations only.
// A test stands in for a program, hostile ones included: it forks, signals, maps memory and
// opens descriptors the way programs do, with raw system calls (each with the reason it is sound).
#![allow(unsafe_code)]

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::Duration;

use invite::record::Outcome::*;
use support::scenario;

struct Counting;

thread_local! {
    /// Whether this thread's allocations are being counted, and how many there were.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: a thread being torn down has no locals left, and counts nothing.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        }
    });
}

// SAFETY: every call is passed on to the system allocator unchanged; counting touches only
// const-initialised thread locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller's layout, passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller's layout, passed on unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: a block the system allocator gave, with its layout.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: a block the system allocator gave, with its layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The allocations this thread makes while `f` runs.
fn allocations_in(f: impl FnOnce()) -> u64 {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|on| on.set(true));
    f();
    COUNTING.with(|on| on.set(false));
    ALLOCATIONS.with(|n| n.get())
}

#[invite::metamorphic(tripled(x + 1) == result + 3)]
fn tripled(x: u64) -> u64 {
    3 * x
}

#[test]
fn a_sampled_call_allocates_nothing_in_the_caller() {
    sampled_calls_allocate_nothing(here!(), "");
}

/// In a fleet (of one, so that every call is this member's), the sampler also works out which
/// of the site's tests are the member's in the call's period: without allocating either.
#[test]
fn a_fleet_member_s_sampled_call_allocates_nothing_in_the_caller() {
    sampled_calls_allocate_nothing(here!(), "fleet = { size = 1, member = 0, rotate = \"1s\" }");
}

fn sampled_calls_allocate_nothing(name: &str, more: &str) {
    let config = format!("default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0\n{more}");
    let run = scenario(name, &config, || {
        // The counter counts: a box is one allocation.
        assert_eq!(
            allocations_in(|| drop(std::hint::black_box(Box::new(1u64)))),
            1
        );
        // The first call starts invite (configuration, log, collector) and this thread's
        // sampling state; those are made once, not per run.
        tripled(1);
        assert!(invite::wait_idle(Duration::from_secs(30)));
        let mut counts = Vec::new();
        for x in 2..12 {
            counts.push(allocations_in(|| {
                std::hint::black_box(tripled(x));
            }));
            assert!(invite::wait_idle(Duration::from_secs(30)));
        }
        println!("{counts:?}");
    });
    run.assert_success();
    assert_eq!(
        run.stdout,
        format!("{:?}\n", [0u64; 10]),
        "{}",
        run.describe()
    );
    // Every one of those calls was a run.
    assert_eq!(
        run.outcomes_of("tripled(x + 1) == result + 3"),
        vec![Pass; 11],
        "{}",
        run.describe()
    );
    let shard = run.records().into_iter().find_map(|r| match r {
        invite::record::Record::Start(s) => Some(s.shard),
        _ => None,
    });
    let in_a_fleet = more.contains("fleet");
    assert_eq!(shard, Some(in_a_fleet.then(|| "0/1".to_string())));
}

#[invite::metamorphic(priced(2 * qty).await == 2 * result)]
async fn priced(qty: u64) -> u64 {
    7 * qty
}

/// Polls a future once with a waker that does nothing: what an executor's first poll does.
fn poll_once<F: std::future::Future>(f: F) -> std::task::Poll<F::Output> {
    let mut f = std::pin::pin!(f);
    f.as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
}

#[test]
fn an_async_site_s_unsampled_call_allocates_nothing_and_is_ready_at_its_first_poll() {
    // One call in a million sampled, so that the calls take the countdown's path: the first
    // starts invite and draws this thread's countdown, and the calls counted are unsampled (a
    // sampled one among them would fork and show as a test below).
    let config = "default_rho = 0.0\n[functions.\"allocation::priced\"]\nrho = 0.000001";
    let run = scenario(here!(), config, || {
        assert!(poll_once(priced(1)).is_ready());
        let mut counts = Vec::new();
        for qty in 2..12 {
            counts.push(allocations_in(|| {
                assert_eq!(poll_once(priced(qty)), std::task::Poll::Ready(7 * qty));
            }));
        }
        println!("{counts:?}");
    });
    run.assert_success();
    assert_eq!(
        run.stdout,
        format!("{:?}\n", [0u64; 10]),
        "{}",
        run.describe()
    );
    assert!(
        run.tests().is_empty(),
        "a call was sampled: {}",
        run.describe()
    );
}

#[test]
fn a_sampled_async_call_is_tested_from_its_first_poll_and_awaits_nothing_more() {
    let config = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";
    let run = scenario(here!(), config, || {
        // Sampled: the run forks at the first poll, and the call is still ready at once.
        assert_eq!(poll_once(priced(3)), std::task::Poll::Ready(21));
        assert!(invite::wait_idle(Duration::from_secs(30)));
    });
    run.assert_success();
    assert_eq!(
        run.outcomes_of("priced(2 * qty).await == 2 * result"),
        vec![Pass],
        "{}",
        run.describe()
    );
}
