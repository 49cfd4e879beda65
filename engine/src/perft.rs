//! Perft: count the leaf nodes of the legal-move tree, with bulk counting at the last ply.
//! Counts follow the position-level rules (no game-end test, as lishogi's perft).

use crate::movegen::Convention;
use crate::moves::MoveList;
use crate::position::Position;

/// Perft counter with one reusable move list per ply.
pub struct Perft {
    lists: Vec<MoveList>,
    pub conv: Convention,
}

impl Perft {
    pub fn new(conv: Convention) -> Perft {
        Perft { lists: Vec::new(), conv }
    }

    /// Number of leaf nodes at `depth`.
    pub fn count(&mut self, pos: &mut Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        while self.lists.len() < depth as usize {
            self.lists.push(MoveList::with_capacity(256));
        }
        self.rec(pos, depth)
    }

    fn rec(&mut self, pos: &mut Position, depth: u32) -> u64 {
        let mut list = std::mem::take(&mut self.lists[depth as usize - 1]);
        list.clear();
        pos.legal_moves_conv(&mut list, self.conv);
        let n = if depth == 1 {
            list.len() as u64
        } else {
            let mut n = 0;
            for &m in &list {
                let u = pos.play(m);
                n += self.rec(pos, depth - 1);
                pos.unplay(&u);
            }
            n
        };
        self.lists[depth as usize - 1] = list;
        n
    }

    /// Per-move counts at the root (USI move, nodes), in generation order.
    pub fn divide(&mut self, pos: &mut Position, depth: u32) -> Vec<(String, u64)> {
        let mut root = MoveList::new();
        pos.legal_moves_conv(&mut root, self.conv);
        root.iter()
            .map(|&m| {
                let u = pos.play(m);
                let n = self.count(pos, depth.saturating_sub(1));
                pos.unplay(&u);
                (pos.move_to_usi(m), n)
            })
            .collect()
    }
}
