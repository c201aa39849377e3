//! The lines printed about sampled calls that went untested: refused by the caps (once, at
//! exit) or without a process to run in (with the stats records that count them).

use crate::config::{Config, WhenBusy};
use crate::record::SkipCounts;

/// The line printed at exit when the caps refused most sampled calls: how many, why, and which
/// key to raise. `None` when they refused half or fewer, or too few calls were sampled to say.
pub(super) fn refusal_notice(sampled: u64, skips: &SkipCounts, config: &Config) -> Option<String> {
    let refused = skips.refused_by_caps();
    if sampled < 10 || refused * 2 <= sampled {
        return None;
    }
    let key = if skips.concurrency >= skips.overhead {
        format!("max_concurrent (now {})", config.max_concurrent)
    } else {
        format!("max_overhead (now {})", config.max_overhead)
    };
    // The advice follows the settings in force: `when_busy = "wait"` refuses only what
    // `tests_per_site` lets through without waiting.
    let more = match (config.when_busy, config.tests_per_site) {
        (WhenBusy::Skip, _) => {
            format!("raise {key} in invite.toml, or set when_busy = \"wait\" to test every sampled call")
        }
        (WhenBusy::Wait, Some(n)) => format!(
            "raise tests_per_site (now {n}: a site's calls stop waiting once it has started \
             that many tests) or remove it to test every sampled call, or raise {key} in \
             invite.toml"
        ),
        (WhenBusy::Wait, None) => format!("raise {key} in invite.toml"),
    };
    Some(format!(
        "the caps refused {refused} of {sampled} sampled calls ({}%): {} because \
         max_concurrent = {} runs were alive, {} because another run would have passed \
         max_overhead = {}; to test more, {more}",
        refused * 100 / sampled,
        skips.concurrency,
        config.max_concurrent,
        skips.overhead,
        config.max_overhead,
    ))
}

/// The warning, with a stats record, that `new` more sampled calls (`total` in all) went
/// untested because their run's process could not be made.
pub(super) fn fork_failure_notice(new: u64, total: u64) -> String {
    let calls = if new == 1 { "call" } else { "calls" };
    format!(
        "{new} sampled {calls} went untested ({total} since start): their run could not be started \
         because fork or pipe failed (the machine or the program's limits are out of processes, \
         memory or descriptors, or a seccomp filter around the program refuses clone); the \
         calls themselves went on. They are counted as fork_failed in the stats records"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fork_failure_notice_says_how_many_went_untested_why_and_where_they_are_counted() {
        assert!(fork_failure_notice(1, 1).starts_with("1 sampled call went untested (1 since"));
        let line = fork_failure_notice(3, 12);
        assert!(
            line.starts_with("3 sampled calls went untested (12 since start)"),
            "{line}"
        );
        assert!(line.contains("fork or pipe failed"), "{line}");
        assert!(line.contains("counted as fork_failed"), "{line}");
    }

    #[test]
    fn the_refusal_notice_names_the_cap_that_refused_most_and_only_when_most_were_refused() {
        let config = Config {
            max_concurrent: 1,
            max_overhead: 0.05,
            ..Config::default()
        };
        let skips = |concurrency, overhead| SkipCounts {
            concurrency,
            overhead,
            dedup: 1000,
            ..SkipCounts::default()
        };
        let line = refusal_notice(100, &skips(60, 11), &config).unwrap();
        assert_eq!(
            line,
            "the caps refused 71 of 100 sampled calls (71%): 60 because \
             max_concurrent = 1 runs were alive, 11 because another run would have passed \
             max_overhead = 0.05; to test more, raise max_concurrent (now 1) in invite.toml, \
             or set when_busy = \"wait\" to test every sampled call"
        );
        let line = refusal_notice(100, &skips(11, 60), &config).unwrap();
        assert!(
            line.contains("raise max_overhead (now 0.05) in invite.toml,"),
            "{line}"
        );
        // Half refused, or too few sampled: nothing to say.
        assert_eq!(refusal_notice(100, &skips(25, 25), &config), None);
        assert!(refusal_notice(100, &skips(25, 26), &config).is_some());
        assert_eq!(refusal_notice(9, &skips(9, 0), &config), None);
        assert!(refusal_notice(10, &skips(10, 0), &config).is_some());
    }

    #[test]
    fn the_refusal_notice_advises_from_the_settings_in_force() {
        let waiting = |tests_per_site| Config {
            max_concurrent: 1,
            when_busy: WhenBusy::Wait,
            tests_per_site,
            ..Config::default()
        };
        let skips = SkipCounts {
            concurrency: 60,
            ..SkipCounts::default()
        };
        let capped = refusal_notice(100, &skips, &waiting(Some(4))).unwrap();
        assert!(!capped.contains("set when_busy"), "{capped}");
        assert!(
            capped.ends_with(
                "to test more, raise tests_per_site (now 4: a site's calls stop waiting once it \
                 has started that many tests) or remove it to test every sampled call, or raise \
                 max_concurrent (now 1) in invite.toml"
            ),
            "{capped}"
        );
        let uncapped = refusal_notice(100, &skips, &waiting(None)).unwrap();
        assert!(
            uncapped.ends_with("to test more, raise max_concurrent (now 1) in invite.toml"),
            "{uncapped}"
        );
    }
}
