//! The transposition table: what earlier searches learnt about a position (its best move, a
//! score with the kind of bound it is, the depth it was searched to and its static evaluation),
//! found by the position's Zobrist key.
//!
//! Two-way buckets: a new entry replaces the same position, else the shallower of the two (an
//! entry of an older search counts as shallower). Mate scores are stored relative to the node
//! ([`crate::score::to_table`]).

use crate::score::Score;
use shogilab_engine::Move;

/// What a stored score says about the true score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bound {
    #[default]
    None,
    /// The true score is at most this (no move reached alpha).
    Upper,
    /// The true score is at least this (a move reached beta).
    Lower,
    Exact,
}

/// One stored position.
#[derive(Debug, Clone, Copy, Default)]
pub struct Entry {
    key: u64,
    pub mv: Move,
    pub score: Score,
    pub eval: Score,
    pub depth: i16,
    pub bound: Bound,
    age: u8,
}

/// A table of a fixed size (a power of two of buckets).
pub struct Table {
    entries: Vec<Entry>,
    mask: usize,
    age: u8,
}

impl Table {
    /// A table of about `mb` megabytes (at least one bucket).
    pub fn new(mb: usize) -> Table {
        let bytes = mb.max(1) * 1024 * 1024;
        let want = bytes / std::mem::size_of::<Entry>() / 2;
        let buckets = (want.max(1) + 1).next_power_of_two() / 2;
        Table {
            entries: vec![Entry::default(); 2 * buckets.max(1)],
            mask: buckets.max(1) - 1,
            age: 0,
        }
    }

    /// Forget everything (a new game).
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
        self.age = 0;
    }

    /// Mark the start of a new search: entries of earlier ones give way first.
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    fn bucket(&self, key: u64) -> usize {
        2 * ((key as usize) & self.mask)
    }

    /// The entry of this position, if stored.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        self.entries[b..b + 2].iter().find(|e| e.key == key && e.bound != Bound::None).copied()
    }

    /// Store what a search found; a move of `Move::default()` keeps the stored move.
    pub fn store(
        &mut self,
        key: u64,
        mv: Move,
        score: Score,
        eval: Score,
        depth: i16,
        bound: Bound,
    ) {
        let b = self.bucket(key);
        let age = self.age;
        let worth = |e: &Entry| {
            if e.bound == Bound::None {
                i32::MIN
            } else {
                e.depth as i32 - if e.age == age { 0 } else { 256 }
            }
        };
        let i = if self.entries[b].key == key {
            b
        } else if self.entries[b + 1].key == key {
            b + 1
        } else if worth(&self.entries[b]) <= worth(&self.entries[b + 1]) {
            b
        } else {
            b + 1
        };
        let e = &mut self.entries[i];
        // an exact score, or a deeper search, or another position: replace
        if e.key != key || bound == Bound::Exact || depth >= e.depth - 2 || e.age != age {
            let mv = if mv == Move::default() && e.key == key { e.mv } else { mv };
            *e = Entry { key, mv, score, eval, depth, bound, age };
        }
    }

    /// Thousandths of the table's entries written by the current search (USI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let n = self.entries.len().min(2000);
        let used = self.entries[..n]
            .iter()
            .filter(|e| e.bound != Bound::None && e.age == self.age)
            .count();
        (used * 1000 / n) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_position_is_found_and_another_is_not() {
        let mut t = Table::new(1);
        let m = Move::new(20, 30);
        t.store(0xdead_beef, m, 55, 10, 4, Bound::Lower);
        let e = t.probe(0xdead_beef).unwrap();
        assert_eq!((e.mv, e.score, e.eval, e.depth, e.bound), (m, 55, 10, 4, Bound::Lower));
        assert!(t.probe(0xdead_bef0).is_none());
        t.clear();
        assert!(t.probe(0xdead_beef).is_none());
    }

    #[test]
    fn a_bucket_keeps_the_deeper_entry_of_this_search() {
        let mut t = Table::new(1);
        let buckets = (t.mask + 1) as u64;
        let (a, b, c) = (7, 7 + buckets, 7 + 2 * buckets);
        t.store(a, Move::new(1, 2), 0, 0, 9, Bound::Exact);
        t.store(b, Move::new(1, 3), 0, 0, 2, Bound::Exact);
        t.store(c, Move::new(1, 4), 0, 0, 5, Bound::Exact);
        assert!(t.probe(a).is_some(), "the deepest stays");
        assert!(t.probe(b).is_none(), "the shallowest gives way");
        assert!(t.probe(c).is_some());
        // in a new search the old entries give way first
        t.new_search();
        t.store(b, Move::new(1, 3), 0, 0, 1, Bound::Upper);
        assert_eq!(t.probe(b).unwrap().depth, 1);
    }
}
