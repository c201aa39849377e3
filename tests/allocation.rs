//! The caller allocates nothing for a run: a sampled call takes a pipe the collector made ahead
//! of time, forks and sends one message by value. Counted with a global allocator that counts
//! the calling thread's allocations only.

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
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
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
    let config = "default_rho = 1.0\nmax_overhead = 1.0\nchild_cpu_charge = 0.0";
    let run = scenario(here!(), config, || {
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
}
