//! Sharing the testing load across a fleet of instances (Distributed In Vivo Testing).
//!
//! Each instance of a program knows its place in the fleet, member K of N (from `INVITE_SHARD`
//! or `fleet` in `invite.toml`), and tests only its share of the (site, test) pairs, at the
//! configured ρ: every pair is then tested as often as a lone instance would test it, while each
//! instance carries about 1/N of the load. The share is chosen by rendezvous hashing: a pair
//! belongs to the member whose hash with it is highest, so that a change of N moves only the
//! pairs the new (or departed) members win, and every member computes the same owner without
//! talking to the others. The hash also takes the rotation period, counted on the wall clock
//! that every instance shares, so that over time each pair is tested by every member in turn
//! (on its inputs, under its load) while at any moment exactly one member tests it.

use std::time::Duration;

/// The rotation period when `fleet.rotate` is not set.
pub const DEFAULT_ROTATE: Duration = Duration::from_secs(600);

/// A hash of `parts` that every build, version and machine computes alike (unlike the standard
/// library's hasher, whose output may change between releases): FNV-1a over the parts, each
/// followed by a byte no UTF-8 text holds, then a finaliser that spreads every input bit.
pub fn stable_hash(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.iter().chain(std::iter::once(&0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    mix(h)
}

/// SplitMix64's finaliser: a bijection of `u64` in which each input bit changes about half of
/// the output bits.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// This instance's place in the fleet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// From 0 to `size - 1`.
    pub member: u64,
    /// Members in the fleet, 1 or more.
    pub size: u64,
    /// How long one assignment of pairs to members lasts; at least a second.
    pub rotate: Duration,
}

impl Shard {
    /// The rotation period `since_epoch` (the wall clock, from the Unix epoch) falls in.
    pub fn period(&self, since_epoch: Duration) -> u64 {
        since_epoch.as_secs() / self.rotate.as_secs().max(1)
    }

    /// How long from `since_epoch` until the next period begins.
    pub fn until_next_period(&self, since_epoch: Duration) -> Duration {
        let rotate = self.rotate.as_secs().max(1);
        let next = Duration::from_secs((self.period(since_epoch) + 1) * rotate);
        next.saturating_sub(since_epoch)
    }

    /// Whether this member tests `test` of `site` in `period`.
    pub fn owns(&self, site: &str, test: &str, period: u64) -> bool {
        owner(self.size, site, test, period) == self.member
    }
}

/// The member of a fleet of `size` that tests `test` of `site` in `period`: the one whose hash
/// with the pair and the period is highest (rendezvous hashing).
pub fn owner(size: u64, site: &str, test: &str, period: u64) -> u64 {
    let pair = stable_hash(&[site.as_bytes(), test.as_bytes()]);
    let round = mix(pair ^ mix(period.wrapping_add(0x9e37_79b9_7f4a_7c15)));
    (0..size.max(1))
        .max_by_key(|&k| (mix(round ^ mix(k ^ 0x5851_f42d_4c95_7f2d)), k))
        .unwrap_or(0)
}

/// Why a fleet place (`INVITE_SHARD`'s `K/N`, or `fleet`'s `member` and `size`) is refused.
/// Its text says what is wrong and, for a place written as text, what to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardError {
    /// What is wrong.
    pub kind: ShardErrorKind,
    /// Whether the place was written as `K/N` (the message then shows the form).
    pub written: bool,
}

/// What is wrong with a fleet place.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShardErrorKind {
    /// The text has no `/` between the member and the fleet size.
    NoSlash(String),
    /// The member or the fleet size is not a whole number of 0 or more.
    NotWhole {
        /// "the member" or "the fleet size".
        what: &'static str,
        /// What was written.
        text: String,
    },
    /// A fleet of no member tests nothing.
    Empty,
    /// The member is not below the fleet size.
    Outside {
        /// The member given.
        member: u64,
        /// The fleet size given.
        size: u64,
    },
}

/// How a place is written, for the messages.
const MEMBER_OF_FORM: &str =
    "write it as K/N, member K of a fleet of N, K from 0 to N - 1 (such as 0/8)";

impl std::fmt::Display for ShardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            ShardErrorKind::NoSlash(text) => write!(f, "`{}` has no `/`", text.escape_debug())?,
            ShardErrorKind::NotWhole { what, text } => write!(
                f,
                "{what} `{}` is not a whole number of 0 or more",
                text.escape_debug()
            )?,
            ShardErrorKind::Empty => write!(f, "a fleet of 0 members tests nothing")?,
            ShardErrorKind::Outside { member, size } => write!(
                f,
                "member {member} is outside a fleet of {size} (members are numbered 0 to {})",
                size - 1
            )?,
        }
        if self.written {
            write!(f, ": {MEMBER_OF_FORM}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ShardError {}

/// Parses `INVITE_SHARD`'s `K/N`: member K of a fleet of N, K from 0 to N − 1. The error says
/// what is wrong and what to write.
pub fn parse_member_of(text: &str) -> Result<(u64, u64), ShardError> {
    let written = |kind| ShardError {
        kind,
        written: true,
    };
    let (k, n) = text
        .trim()
        .split_once('/')
        .ok_or_else(|| written(ShardErrorKind::NoSlash(text.to_string())))?;
    let whole = |what: &'static str, v: &str| {
        v.trim().parse::<u64>().map_err(|_| {
            written(ShardErrorKind::NotWhole {
                what,
                text: v.to_string(),
            })
        })
    };
    let (k, n) = (whole("the member", k)?, whole("the fleet size", n)?);
    check_member_of(k, n).map_err(|e| written(e.kind))?;
    Ok((k, n))
}

/// Whether `member` can be a member of a fleet of `size`; the error says why not.
pub fn check_member_of(member: u64, size: u64) -> Result<(), ShardError> {
    let refused = |kind| {
        Err(ShardError {
            kind,
            written: false,
        })
    };
    if size == 0 {
        return refused(ShardErrorKind::Empty);
    }
    if member >= size {
        return refused(ShardErrorKind::Outside { member, size });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs() -> Vec<(String, String)> {
        (0..16)
            .flat_map(|s| (0..4).map(move |t| (format!("app::site_{s}"), format!("test {t}"))))
            .collect()
    }

    #[test]
    fn the_hash_is_fixed_across_builds() {
        // Members of one fleet may run different builds: the owner of a pair must not change
        // with the compiler. These values are FNV-1a and SplitMix64's, computed by hand.
        assert_eq!(stable_hash(&[]), mix(0xcbf2_9ce4_8422_2325));
        assert_eq!(
            stable_hash(&[b"a"]),
            mix(
                (((0xcbf2_9ce4_8422_2325u64 ^ 0x61).wrapping_mul(0x100_0000_01b3)) ^ 0xff)
                    .wrapping_mul(0x100_0000_01b3)
            )
        );
        assert_eq!(mix(0), 0);
        // SplitMix64's first output from seed 0, as its reference implementation gives it.
        assert_eq!(mix(0x9e37_79b9_7f4a_7c15), 0xe220_a839_7b1d_cdaf);
        // Parts are delimited: moving a byte from one part to the next changes the hash.
        assert_ne!(stable_hash(&[b"ab", b"c"]), stable_hash(&[b"a", b"bc"]));
    }

    #[test]
    fn owners_are_fixed_across_builds() {
        // Members of one fleet may run different versions: a pair's owner in a period is part
        // of the contract between them, pinned here.
        let mut owners: Vec<u64> = [
            ("app::f", "f(x) == x", 0),
            ("app::f", "f(x) == x", 1),
            ("app::g", "g(&permute(xs)) == result", 2_960_000),
            (
                "fleet::site_07",
                "site_07(&[xs, xs].concat()) == 2.0 * result",
                598_553_430,
            ),
        ]
        .iter()
        .map(|(s, t, p)| owner(8, s, t, *p))
        .collect();
        owners.extend((0..12).map(|i| owner(3 + i % 6, &format!("s{i}"), "t", i * 7)));
        assert_eq!(owners, [4, 5, 3, 2, 2, 0, 2, 4, 6, 4, 0, 0, 1, 1, 2, 5]);
    }

    #[test]
    fn every_pair_has_exactly_one_owner_in_every_period() {
        for size in [1, 2, 3, 8] {
            for period in [0, 1, 2_960_000] {
                for (site, test) in pairs() {
                    let owners: Vec<u64> = (0..size)
                        .filter(|&m| {
                            Shard {
                                member: m,
                                size,
                                rotate: DEFAULT_ROTATE,
                            }
                            .owns(&site, &test, period)
                        })
                        .collect();
                    assert_eq!(owners.len(), 1, "{site} {test} in a fleet of {size}");
                    assert_eq!(owners[0], owner(size, &site, &test, period));
                }
            }
        }
    }

    #[test]
    fn the_load_is_shared_about_evenly() {
        let many: Vec<(String, String)> = (0..4000)
            .map(|i| (format!("s{}", i / 7), format!("t{i}")))
            .collect();
        let mut counts = [0u32; 8];
        for (s, t) in &many {
            counts[owner(8, s, t, 5) as usize] += 1;
        }
        // 500 expected each; the binomial's spread is about 21.
        for c in counts {
            assert!((400..=600).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn growing_the_fleet_moves_only_the_pairs_the_new_member_wins() {
        let many: Vec<(String, String)> = (0..4000)
            .map(|i| (format!("s{}", i / 7), format!("t{i}")))
            .collect();
        let mut moved = 0;
        for (s, t) in &many {
            let (before, after) = (owner(8, s, t, 3), owner(9, s, t, 3));
            if before != after {
                assert_eq!(after, 8, "a pair moved between old members");
                moved += 1;
            }
        }
        // About 1/9 of the pairs: 444.
        assert!((330..=560).contains(&moved), "{moved}");
    }

    #[test]
    fn pairs_change_hands_from_one_period_to_the_next() {
        let p = pairs();
        let changed = p
            .iter()
            .filter(|(s, t)| owner(8, s, t, 10) != owner(8, s, t, 11))
            .count();
        // 7/8 of 64 expected.
        assert!(changed > 40, "{changed} of {}", p.len());
    }

    #[test]
    fn periods_follow_the_shared_clock() {
        let shard = Shard {
            member: 0,
            size: 2,
            rotate: Duration::from_secs(600),
        };
        assert_eq!(shard.period(Duration::from_secs(1199)), 1);
        assert_eq!(shard.period(Duration::from_secs(1200)), 2);
        assert_eq!(
            shard.until_next_period(Duration::from_millis(1_199_250)),
            Duration::from_millis(750)
        );
        assert_eq!(
            shard.until_next_period(Duration::from_secs(1200)),
            Duration::from_secs(600)
        );
        let fast = Shard {
            rotate: Duration::from_millis(10),
            ..shard
        };
        // A period under a second counts as a second.
        assert_eq!(fast.period(Duration::from_secs(7)), 7);
    }

    #[test]
    fn member_of_reads_k_of_n_and_refuses_the_rest_with_the_form() {
        assert_eq!(parse_member_of("3/8"), Ok((3, 8)));
        assert_eq!(parse_member_of(" 0 / 1 "), Ok((0, 1)));
        let err = |t: &str| parse_member_of(t).unwrap_err().to_string();
        assert!(
            err("8/8")
                .starts_with("member 8 is outside a fleet of 8 (members are numbered 0 to 7)"),
            "{}",
            err("8/8")
        );
        assert!(
            err("0/0").starts_with("a fleet of 0 members"),
            "{}",
            err("0/0")
        );
        assert!(err("-1/4").starts_with("the member `-1` is not a whole number"));
        assert!(err("3").starts_with("`3` has no `/`"));
        assert!(err("1/x").starts_with("the fleet size `x`"));
        for e in [err("8/8"), err("0/0"), err("-1/4"), err("3")] {
            assert!(e.ends_with("(such as 0/8)"), "{e}");
        }
        assert!(
            err("\u{1b}[2J/4").contains("\\u{1b}"),
            "control characters are escaped"
        );
        // Checked from the configuration's numbers, the form is not shown.
        let checked = check_member_of(3, 2).unwrap_err();
        assert_eq!(checked.kind, ShardErrorKind::Outside { member: 3, size: 2 });
        assert!(!checked.to_string().contains("K/N"), "{checked}");
        assert_eq!(
            check_member_of(0, 0).unwrap_err().kind,
            ShardErrorKind::Empty
        );
        assert_eq!(check_member_of(1, 2), Ok(()));
    }
}
