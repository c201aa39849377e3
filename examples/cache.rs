//! An LRU cache under a random workload, checked by an In Vivo test on its live state.
//!
//! The defect: when the cache is full, `put` of a new key evicts the *second* least recently used
//! entry instead of the least recently used one (an off-by-one in the recency walk). Nothing
//! crashes and the hit rate barely moves; the In Vivo test, run on the cache exactly as it was
//! before a sampled `put`, sees that the entry that should have gone is still there.
//!
//! ```text
//! cargo run --release --example cache
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::hash::Hash;

use invite::record::{Outcome, Record};
use rand::{Rng, SeedableRng};

/// A least-recently-used cache of fixed capacity.
#[derive(Clone, Debug)]
pub struct Lru<K, V> {
    capacity: usize,
    tick: u64,
    entries: HashMap<K, (V, u64)>,
    /// Recency: tick of last use to key. The smallest tick is the least recently used.
    order: BTreeMap<u64, K>,
}

impl<K: Hash + Eq + Clone + Debug, V: Clone + PartialEq + Debug> Lru<K, V> {
    pub fn new(capacity: usize) -> Self {
        assert!(capacity >= 2, "capacity must be at least 2");
        Lru {
            capacity,
            tick: 0,
            entries: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn contains(&self, k: &K) -> bool {
        self.entries.contains_key(k)
    }

    fn touch(&mut self, k: &K) {
        self.tick += 1;
        if let Some((_, t)) = self.entries.get_mut(k) {
            self.order.remove(t);
            *t = self.tick;
            self.order.insert(self.tick, k.clone());
        }
    }

    pub fn get(&mut self, k: &K) -> Option<&V> {
        if !self.entries.contains_key(k) {
            return None;
        }
        self.touch(k);
        self.entries.get(k).map(|(v, _)| v)
    }

    /// The least recently used key: the next to be evicted.
    pub fn least_recent(&self) -> Option<&K> {
        self.order.values().next()
    }

    /// Inserts or replaces; returns the previous value of `k`.
    #[invite::in_vivo(test = Self::put_then_get, rho = 0.05)]
    pub fn put(&mut self, k: K, v: V) -> Option<V> {
        if let Some((old, _)) = self.entries.get_mut(&k) {
            let prev = std::mem::replace(old, v);
            self.touch(&k);
            return Some(prev);
        }
        if self.entries.len() == self.capacity {
            // DEFECT: `nth(1)` skips the least recently used entry; eviction must take the
            // first one in recency order.
            if let Some(&t) = self.order.keys().nth(1) {
                let victim = self.order.remove(&t).expect("present");
                self.entries.remove(&victim);
            }
        }
        self.tick += 1;
        self.order.insert(self.tick, k.clone());
        self.entries.insert(k, (v, self.tick));
        None
    }

    pub fn remove(&mut self, k: &K) -> Option<V> {
        let (v, t) = self.entries.remove(k)?;
        self.order.remove(&t);
        Some(v)
    }

    /// In Vivo test: on the live cache, a put is visible, keeps the size right, evicts the least
    /// recently used entry when full, and a remove undoes it.
    fn put_then_get(&mut self, k: &K, v: &V) -> Result<(), String> {
        let existed = self.contains(k);
        let before = self.len();
        let full = before == self.capacity && !existed;
        let lru = self.least_recent().cloned();
        self.put(k.clone(), v.clone());
        if self.get(k) != Some(v) {
            return Err("the value just put is not there".into());
        }
        let expected = if existed {
            before
        } else {
            (before + 1).min(self.capacity)
        };
        if self.len() != expected {
            return Err(format!(
                "size {} after put, expected {expected}",
                self.len()
            ));
        }
        if let (true, Some(lru)) = (full, lru) {
            if self.contains(&lru) {
                return Err(format!(
                    "put on a full cache kept the least recently used key {lru:?} and evicted another"
                ));
            }
        }
        self.remove(k);
        if self.contains(k) || self.len() + 1 != expected {
            return Err("remove did not undo the put".into());
        }
        Ok(())
    }
}

fn main() {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let mut cache: Lru<u32, String> = Lru::new(64);
    let (mut hits, mut misses) = (0u64, 0u64);
    for _ in 0..300_000 {
        // A skewed key popularity: most requests go to a small hot set.
        let key = if rng.random_bool(0.8) {
            rng.random_range(0..48)
        } else {
            rng.random_range(0..2000)
        };
        if cache.get(&key).is_some() {
            hits += 1;
        } else {
            misses += 1;
            cache.put(key, format!("value-{key}"));
        }
    }
    println!(
        "300000 requests: {hits} hits, {misses} misses, hit rate {:.1}%, {} entries cached",
        100.0 * hits as f64 / (hits + misses) as f64,
        cache.len()
    );
    invite::shutdown();

    let pid = std::process::id();
    let log = std::fs::read_to_string("invite-log.jsonl").unwrap_or_default();
    let tests: Vec<_> = log
        .lines()
        .filter_map(|l| match Record::from_line(l) {
            Ok(Record::Test(t)) if t.pid == pid => Some(t),
            _ => None,
        })
        .collect();
    let failed: Vec<_> = tests
        .iter()
        .filter(|t| t.outcome == Outcome::Fail)
        .collect();
    println!(
        "Invite: {} In Vivo tests of Lru::put, {} failed",
        tests.len(),
        failed.len()
    );
    if let Some(t) = failed.first() {
        println!("  first failure: {}", t.detail.as_deref().unwrap_or("?"));
        println!("  inputs: k = {}, v = {}", t.inputs["k"], t.inputs["v"]);
    }
}
