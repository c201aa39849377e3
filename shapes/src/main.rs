//! The workload of the shapes suite: calls every shape, the async ones from tasks of a
//! multi-threaded runtime, waits for the tests, and prints a digest of every result (which
//! instrumentation must not change).

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use invite_shapes::{asyncs, families, free, methods, raw, traits};

/// A `#[tokio::main]` program, as services are.
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut results = sync_shapes();
    results.extend(async_shapes().await);

    // An async call that is not sampled adds no poll: polled once, it is ready.
    let mut unsampled = pin!(asyncs::price(1.0, 1.0));
    let ready = unsampled
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
        .is_ready();
    results.push(("ready at the first poll", f64::from(u8::from(ready))));

    let waited = invite::wait_idle(Duration::from_secs(120));
    let by_name: HashMap<&str, f64> = results.iter().copied().collect();
    assert_eq!(
        by_name.len(),
        results.len(),
        "every result has its own name"
    );
    for (name, v) in &results {
        println!("result {name} = {v:?}");
    }
    println!("sites {}", invite::site_names().count());
    println!("idle {waited}");
}

/// Calls every synchronous shape; their results by name.
fn sync_shapes() -> Vec<(&'static str, f64)> {
    let mut results: Vec<(&str, f64)> = Vec::new();
    let xs = [1.5, -7.0, 3.0, 2.5, 0.5];
    let mut r = |name: &'static str, v: f64| results.push((name, v));

    r("sum", free::sum(&xs));
    r("weighted", free::weighted(&[1u8, 2, 3], 0.5));
    r("longest", free::longest(&xs[..3], &xs).len() as f64);
    r("total_of", free::total_of(vec![1.0, 2.0, 4.0]));
    r("dot", free::dot([1.0, 2.0, 3.0], [0.5, 0.25, 2.0]));
    r("norm", free::norm((3.0, 4.0)));
    r("median", free::median(xs.to_vec()));
    r("checked_mean", free::checked_mean(&xs));
    r("in_unit", free::in_unit(2.5, "km"));
    r(
        "parse_scaled",
        free::parse_scaled(" 1.25 ", 4.0).unwrap_or(f64::NAN),
    );
    r("fib", free::fib(5) as f64);
    let mut v = vec![2.0, -8.0, 4.0];
    r("normalize", free::normalize(&mut v));
    r("outer_spread", free::outer_spread(&xs));
    r("halved", free::halved(9.0));
    let mut ys = vec![1.0, 5.0, -2.0];
    r("max_mut", *free::max_mut(&mut ys));
    r("twice", free::twice(-1.25));
    r("sum_of_squares", free::sum_of_squares(&[1.0, 2.0, 3.0]));
    r("pure_mean", free::pure_mean(&xs));
    r("pure_scaled", free::pure_scaled(3u8, 1.5));
    r(
        "Km::to_metres",
        <traits::Km as traits::Unit>::to_metres(2.5),
    );
    // SAFETY: the slice is not empty.
    #[allow(unsafe_code)]
    r("first_unchecked", unsafe { raw::first_unchecked(&xs) });
    r("c_scale", raw::c_scale(1.5, 4.0));

    let stats = methods::Stats { xs: xs.to_vec() };
    r("Stats::mean", stats.mean());
    r("Stats::midpoint", methods::Stats::midpoint(1.0, 4.0));
    r("Stats::scaled_sum", stats.scaled_sum(3.0f32));
    r("Stats::largest", *stats.largest());
    let mut acc = methods::Acc { total: 1.5 };
    r("Acc::push", acc.push(2.0));
    r("Acc::into_total", acc.clone().into_total());
    r("Acc::scaled_total", acc.clone().scaled_total(3.0));
    r("Acc::boxed_total", Box::new(acc.clone()).boxed_total());
    r("Acc::shared_total", Arc::new(acc.clone()).shared_total());
    let mut pinned = acc.clone();
    r(
        "Acc::pinned_push",
        std::pin::Pin::new(&mut pinned).pinned_push(0.5),
    );
    let mut counter = methods::Counter::default();
    counter.bump(2);
    r("Counter::bump", counter.hits as f64);
    r(
        "Series::peak",
        methods::Series {
            xs: vec![1i32, -7, 3, 2],
        }
        .peak(),
    );

    let mut stack = methods::Stack {
        items: vec![4, 8, 15],
        ..Default::default()
    };
    r("Stack::pop", stack.pop().map_or(-1.0, f64::from));
    r("Stack::get_or_insert", *stack.get_or_insert(21));

    use traits::{Cdf, Scale, Scorer, Spread, Store, Summary};
    r("Shadowed::score", Scorer::score(&traits::Shadowed, &xs));
    r(
        "Shadowed inherent score",
        traits::Shadowed::score(&traits::Shadowed, &xs),
    );
    r("Quiet::score", traits::Quiet.score(&xs));
    r("Smallest::score", traits::Smallest.score(&xs));
    r("Mean::score", traits::Mean.score(&xs));
    r(
        "Data::spread",
        traits::Data {
            xs: vec![1u16, 9, 4, 2],
        }
        .spread(),
    );
    r("Vec::spread", xs.to_vec().spread());
    let sum = traits::V2 { x: 1.0, y: 2.0 } + traits::V2 { x: 0.5, y: -1.0 };
    r("V2::add", sum.x + 10.0 * sum.y);
    r("V2 inherent add", traits::V2 { x: 1.0, y: 2.0 }.add(1.0).x);
    r(
        "Score::cmp",
        traits::Score(3).cmp(&traits::Score(5)) as i8 as f64,
    );
    let mut countdown = traits::Countdown { left: 3 };
    r("Countdown::next", countdown.next().map_or(-1.0, f64::from));
    r("Mean::scale_by", traits::Mean.scale_by(2u8));
    r(
        "Summary::total",
        traits::Data { xs: xs.to_vec() }.total() + traits::Mean.total(),
    );
    r(
        "Uniform::cdf",
        traits::Uniform { lo: 0.0, hi: 4.0 }.cdf(1.0),
    );
    let mut store = traits::MapStore::default();
    store.put(7, 2.5);
    r("MapStore::put", store.get(7).unwrap_or(f64::NAN));

    use families::Width;
    r(
        "total_f32",
        f64::from(families::total_f32(&[1.0, 2.5, -4.0])),
    );
    r("total_f64", families::total_f64(&xs));
    r(
        "Range<f64>::width",
        families::Range { lo: -1.5, hi: 2.0 }.width(),
    );
    r(
        "Range<i32>::width",
        families::Range { lo: -3, hi: 4 }.width(),
    );
    r("Floats::sum", families::Floats(xs.to_vec()).sum());
    r("Floats::sum again", families::Floats(vec![2.0, 3.0]).sum());
    r("Ints::sum", families::Ints(vec![3, -4, 10]).sum());
    r("tripled", families::tripled(1.5));
    r("quintupled", families::quintupled(1.5));
    r("septupled", families::septupled(1.5));

    results
}

/// Calls every async shape from tasks of the runtime; their results by name.
async fn async_shapes() -> Vec<(&'static str, f64)> {
    {
        let rates = Arc::new(asyncs::Rates::default());
        rates.table.lock().await.insert(1, 1.25);
        // From spawned tasks, so that the instrumented futures must be `Send`.
        let price = tokio::spawn(asyncs::price(2.5, 4.0));
        let mean = tokio::spawn(async { asyncs::mean_of(&[1u8, 9, 4, 2]).await });
        let rate = tokio::spawn({
            let rates = Arc::clone(&rates);
            async move { rates.rate(3).await }
        });
        let deposit = tokio::spawn(async {
            let mut account = asyncs::Account { balance: 10.0 };
            account.deposit(2.5).await
        });
        let pinned = tokio::spawn(async {
            let mut account = asyncs::Account { balance: 10.0 };
            std::pin::Pin::new(&mut account).pinned_deposit(1.5).await
        });
        let quote = tokio::spawn(async {
            use asyncs::Pricer;
            asyncs::Flat(1.5).quote(4.0).await
        });
        let tax = tokio::spawn(asyncs::tax(50.0));
        let delayed = tokio::spawn(asyncs::delayed(2.0));
        let yielded = tokio::spawn(asyncs::yielded(2.0));
        let mut out = Vec::new();
        for (name, task) in [
            ("price", price),
            ("mean_of", mean),
            ("Rates::rate", rate),
            ("Account::deposit", deposit),
            ("Account::pinned_deposit", pinned),
            ("Flat::quote", quote),
            ("tax", tax),
            ("delayed", delayed),
            ("yielded", yielded),
        ] {
            out.push((name, task.await.expect("the task")));
        }
        out
    }
}
