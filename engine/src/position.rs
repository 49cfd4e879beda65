//! The position: padded mailbox board, piece lists, hands, Zobrist hash, counter-strike state,
//! and `play`/`unplay` with an undo record (a move may capture several pieces: lion double
//! captures, lion-dog triple captures, fire-demon burns).

use crate::cell::{cell_color, cell_type, piece_cell, Cell, Color, TypeId, EMPTY, WALL};
use crate::error::ConsistencyError;
use crate::moves::Move;
use crate::variant::Variant;
use std::sync::Arc;

/// Most pieces one move can remove: three stops plus eight burned neighbours plus the mover.
pub const MAX_REMOVED: usize = 12;

/// What `unplay` needs to restore the position exactly.
#[derive(Clone, Copy, Debug)]
pub struct Undo {
    pub mv: Move,
    /// The moving piece's cell before the move (drops: the dropped cell).
    pub moved: Cell,
    /// Removed pieces: (square, cell, piece-list index), in removal order.
    removed: [(u16, Cell, u16); MAX_REMOVED],
    nremoved: u8,
    /// The mover itself was removed (burned next to an enemy fire demon).
    pub suicide: bool,
    hash: u64,
    lion_sq: u16,
    /// Hand indices incremented by this move (captures into hand), in order.
    hand_gain: [u8; 3],
    nhand_gain: u8,
}

impl Undo {
    /// Pieces removed by the move: (square, cell).
    pub fn removed(&self) -> impl Iterator<Item = (u16, Cell)> + '_ {
        self.removed[..self.nremoved as usize].iter().map(|&(s, c, _)| (s, c))
    }
    /// Did the move capture (or burn) anything of the opponent?
    pub fn captured_any(&self) -> bool {
        self.removed().any(|(_, c)| cell_color(c) != cell_color(self.moved))
    }
}

/// What [`Position::unplay_null`] restores.
#[derive(Clone, Copy, Debug)]
pub struct NullUndo {
    lion_sq: u16,
}

/// A game position.
#[derive(Clone)]
pub struct Position {
    pub(crate) v: Arc<Variant>,
    pub(crate) board: Vec<Cell>,
    pub(crate) side: Color,
    /// Hand counts per colour, indexed by [`crate::variant::PieceType::hand`].
    pub(crate) hands: [Vec<u8>; 2],
    /// Piece squares per colour.
    pub(crate) plist: [Vec<u16>; 2],
    /// Index of each occupied square in its colour's piece list.
    pub(crate) pindex: Vec<u16>,
    pub(crate) royals: [u16; 2],
    /// Square of the single royal (check-rule variants); 0 when not exactly one.
    pub(crate) king: [u16; 2],
    pub(crate) hash: u64,
    /// Counter-strike square (chu rule C): a non-lion captured a lion here on the last move.
    pub(crate) lion_sq: u16,
    /// Move number as written in SFEN (starts at 1, counts plies).
    pub(crate) ply: u32,
    /// Unpromoted nifu pieces per colour and file (x index).
    pub(crate) nifu_files: [[u8; 32]; 2],
}

impl Position {
    /// An empty board of the variant, Black to move.
    pub fn empty(v: Arc<Variant>) -> Position {
        let mut board = vec![WALL; v.size];
        for &s in &v.squares {
            board[s as usize] = EMPTY;
        }
        let nh = v.max_hand;
        let size = v.size;
        Position {
            v,
            board,
            side: Color::Black,
            hands: [vec![0; nh], vec![0; nh]],
            plist: [Vec::with_capacity(256), Vec::with_capacity(256)],
            pindex: vec![0; size],
            royals: [0, 0],
            king: [0, 0],
            hash: 0,
            lion_sq: 0,
            ply: 1,
            nifu_files: [[0; 32]; 2],
        }
    }

    #[inline]
    pub fn variant(&self) -> &Arc<Variant> {
        &self.v
    }
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }
    #[inline]
    pub fn cell(&self, sq: u16) -> Cell {
        self.board[sq as usize]
    }
    /// Piece squares of a colour (order follows the move history, not the board).
    #[inline]
    pub fn pieces(&self, c: Color) -> &[u16] {
        &self.plist[c.idx()]
    }
    /// Hand count of hand index `h`.
    #[inline]
    pub fn hand(&self, c: Color, h: usize) -> u8 {
        self.hands[c.idx()][h]
    }
    #[inline]
    pub fn royal_count(&self, c: Color) -> u16 {
        self.royals[c.idx()]
    }
    /// The counter-strike square of chu's rule C, if set.
    #[inline]
    pub fn lion_capture_square(&self) -> Option<u16> {
        (self.lion_sq != 0).then_some(self.lion_sq)
    }
    /// SFEN move number.
    #[inline]
    pub fn move_number(&self) -> u32 {
        self.ply
    }
    /// Squares of a colour's royal pieces.
    pub fn royal_squares(&self, c: Color) -> impl Iterator<Item = u16> + '_ {
        self.plist[c.idx()]
            .iter()
            .copied()
            .filter(move |&s| self.v.types[cell_type(self.board[s as usize]) as usize].royal)
    }

    /// Put a piece on an empty square (for building positions by hand; keeps the hash and
    /// piece lists in step).
    pub fn place(&mut self, sq: u16, c: Color, t: TypeId) {
        if self.board[sq as usize] == EMPTY && (t as usize) < self.v.types.len() {
            self.put(sq, piece_cell(c, t));
        }
    }

    // ----- low-level mutation (keeps lists, hash and counters in step) -----

    #[inline]
    pub(crate) fn put(&mut self, sq: u16, cell: Cell) {
        let c = cell_color(cell);
        let t = &self.v.types[cell_type(cell) as usize];
        self.board[sq as usize] = cell;
        self.pindex[sq as usize] = self.plist[c.idx()].len() as u16;
        self.plist[c.idx()].push(sq);
        self.hash ^= self.v.zob_piece(cell, sq);
        if t.royal {
            self.royals[c.idx()] += 1;
            self.king[c.idx()] = if self.royals[c.idx()] == 1 { sq } else { 0 };
        }
        if t.nifu {
            let (x, _) = self.v.xy(sq);
            self.nifu_files[c.idx()][x as usize] += 1;
        }
    }

    /// Remove the piece on `sq`; returns its cell and its old list index.
    #[inline]
    fn remove(&mut self, sq: u16) -> (Cell, u16) {
        let cell = self.board[sq as usize];
        let c = cell_color(cell);
        let ci = c.idx();
        let idx = self.pindex[sq as usize];
        let last = self.plist[ci].pop().unwrap_or(sq);
        if last != sq {
            self.plist[ci][idx as usize] = last;
            self.pindex[last as usize] = idx;
        }
        self.board[sq as usize] = EMPTY;
        self.hash ^= self.v.zob_piece(cell, sq);
        let t = &self.v.types[cell_type(cell) as usize];
        if t.royal {
            self.royals[ci] -= 1;
            self.king[ci] = if self.royals[ci] == 1 { self.find_royal(c) } else { 0 };
        }
        if t.nifu {
            let (x, _) = self.v.xy(sq);
            self.nifu_files[ci][x as usize] -= 1;
        }
        (cell, idx)
    }

    /// Inverse of `remove`: put the piece back at its old list index.
    #[inline]
    fn restore(&mut self, sq: u16, cell: Cell, idx: u16) {
        let c = cell_color(cell);
        let ci = c.idx();
        let idx = idx as usize;
        if idx < self.plist[ci].len() {
            let moved = self.plist[ci][idx];
            self.plist[ci].push(moved);
            self.pindex[moved as usize] = (self.plist[ci].len() - 1) as u16;
            self.plist[ci][idx] = sq;
        } else {
            self.plist[ci].push(sq);
        }
        self.pindex[sq as usize] = idx as u16;
        self.board[sq as usize] = cell;
        self.hash ^= self.v.zob_piece(cell, sq);
        let t = &self.v.types[cell_type(cell) as usize];
        if t.royal {
            self.royals[ci] += 1;
            self.king[ci] = if self.royals[ci] == 1 { sq } else { 0 };
        }
        if t.nifu {
            let (x, _) = self.v.xy(sq);
            self.nifu_files[ci][x as usize] += 1;
        }
    }

    /// Move the piece on `from` to the empty square `to`, changing its cell to `new`.
    #[inline]
    fn relocate(&mut self, from: u16, to: u16, new: Cell) {
        let old = self.board[from as usize];
        let ci = cell_color(old).idx();
        let idx = self.pindex[from as usize];
        self.plist[ci][idx as usize] = to;
        self.pindex[to as usize] = idx;
        self.board[from as usize] = EMPTY;
        self.board[to as usize] = new;
        self.hash ^= self.v.zob_piece(old, from) ^ self.v.zob_piece(new, to);
        let (to_old, to_new) =
            (&self.v.types[cell_type(old) as usize], &self.v.types[cell_type(new) as usize]);
        if to_old.royal || to_new.royal {
            let c = cell_color(old);
            self.royals[ci] = self.royals[ci] - to_old.royal as u16 + to_new.royal as u16;
            self.king[ci] = if self.royals[ci] == 1 { self.find_royal(c) } else { 0 };
        }
        if to_old.nifu || to_new.nifu {
            let (fx, _) = self.v.xy(from);
            let (tx, _) = self.v.xy(to);
            if to_old.nifu {
                self.nifu_files[ci][fx as usize] -= 1;
            }
            if to_new.nifu {
                self.nifu_files[ci][tx as usize] += 1;
            }
        }
    }

    /// Change the piece on `sq` in place (promotion or contagion without moving).
    fn transform(&mut self, sq: u16, new: Cell) {
        let old = self.board[sq as usize];
        let c = cell_color(old);
        let ci = c.idx();
        // The piece keeps its list slot; only the board, hash and counters change.
        let (t_old, t_new) =
            (&self.v.types[cell_type(old) as usize], &self.v.types[cell_type(new) as usize]);
        let royal_delta = t_new.royal as i32 - t_old.royal as i32;
        let nifu_delta = t_new.nifu as i32 - t_old.nifu as i32;
        self.board[sq as usize] = new;
        self.hash ^= self.v.zob_piece(old, sq) ^ self.v.zob_piece(new, sq);
        if royal_delta != 0 {
            self.royals[ci] = (self.royals[ci] as i32 + royal_delta) as u16;
            self.king[ci] = if self.royals[ci] == 1 { self.find_royal(c) } else { 0 };
        }
        if nifu_delta != 0 {
            let (x, _) = self.v.xy(sq);
            self.nifu_files[ci][x as usize] =
                (self.nifu_files[ci][x as usize] as i32 + nifu_delta) as u8;
        }
    }

    fn find_royal(&self, c: Color) -> u16 {
        self.royal_squares(c).next().unwrap_or(0)
    }

    #[inline]
    fn set_hand(&mut self, c: Color, h: usize, n: u8) {
        let old = self.hands[c.idx()][h];
        self.hash ^= self.v.zob_hand(c, h, old) ^ self.v.zob_hand(c, h, n);
        self.hands[c.idx()][h] = n;
    }

    #[inline]
    fn set_lion_sq(&mut self, sq: u16) {
        if self.lion_sq != 0 {
            self.hash ^= self.v.zob_lion(self.lion_sq);
        }
        self.lion_sq = sq;
        if sq != 0 {
            self.hash ^= self.v.zob_lion(sq);
        }
    }

    /// Play a move (assumed legal, or at least pseudo-legal). Returns the undo record.
    pub fn play(&mut self, m: Move) -> Undo {
        let us = self.side;
        let mut u = Undo {
            mv: m,
            moved: EMPTY,
            removed: [(0, EMPTY, 0); MAX_REMOVED],
            nremoved: 0,
            suicide: false,
            hash: self.hash,
            lion_sq: self.lion_sq,
            hand_gain: [0; 3],
            nhand_gain: 0,
        };
        let new_lion_sq = if m.is_drop() {
            self.play_drop(m, us, &mut u);
            0
        } else {
            self.play_board_move(m, us, &mut u)
        };
        if self.v.rules.lion_trading || self.lion_sq != 0 {
            self.set_lion_sq(new_lion_sq);
        }
        self.side = us.flip();
        self.hash ^= self.v.zob_side;
        self.ply += 1;
        u
    }

    /// A drop of `us`: the piece leaves the hand for the board.
    #[inline]
    fn play_drop(&mut self, m: Move, us: Color, u: &mut Undo) {
        let t = m.drop_type();
        let cell = piece_cell(us, t);
        u.moved = cell;
        let h = self.v.types[t as usize].hand.unwrap_or(0) as usize;
        let n = self.hands[us.idx()][h];
        self.set_hand(us, h, n.saturating_sub(1));
        self.put(m.to, cell);
    }

    /// A move of `us` on the board: the captures on its stops, the mover's new type
    /// (promotion, contagion), then the mover placed and any burning. Returns the square of a
    /// lion taken by a non-lion under the lion-trading rule (0: none).
    #[inline]
    fn play_board_move(&mut self, m: Move, us: Color, u: &mut Undo) -> u16 {
        let cell = self.board[m.from as usize];
        u.moved = cell;
        let mover = cell_type(cell);
        let mt = &self.v.types[mover as usize];
        let mut new_type = if m.promotes() { mt.promotes_to.unwrap_or(mover) } else { mover };
        let (mover_is_lion, immune) = (mt.lion, mt.contagion_immune);
        let mut new_lion_sq = 0;
        // Captures on the intermediate stops, then on the destination.
        let stops = [m.mid[0], m.mid[1], if m.to != m.from { m.to } else { 0 }];
        for s in stops {
            if s == 0 || s == m.from {
                continue;
            }
            let victim = self.board[s as usize];
            if victim == EMPTY || cell_color(victim) == us {
                continue;
            }
            let vt = &self.v.types[cell_type(victim) as usize];
            if vt.lion && !mover_is_lion && self.v.rules.lion_trading {
                new_lion_sq = s;
            }
            if let (Some(ct), false) = (vt.contagion, immune) {
                new_type = ct;
            }
            self.capture(s, us, u);
        }
        let new_cell = piece_cell(us, new_type);
        if m.to != m.from {
            self.relocate(m.from, m.to, new_cell);
        } else if new_cell != cell {
            // igui with promotion or contagion: the piece changes in place
            self.transform(m.from, new_cell);
        }
        if self.v.any_burner {
            self.burn(u, m.to, mover, us);
        }
        new_lion_sq
    }

    /// `us` takes the piece on `s`: it leaves the board (recorded in `u`) and, where captured
    /// pieces go to the hand, joins `us`'s hand as its unpromoted kind.
    #[inline]
    fn capture(&mut self, s: u16, us: Color, u: &mut Undo) {
        let demoted = self.v.types[cell_type(self.board[s as usize]) as usize].demoted;
        let hand = self.v.types[demoted as usize].hand;
        let (vc, idx) = self.remove(s);
        u.removed[u.nremoved as usize] = (s, vc, idx);
        u.nremoved += 1;
        if let Some(h) = hand {
            let h = h as usize;
            let n = self.hands[us.idx()][h];
            self.set_hand(us, h, n + 1);
            u.hand_gain[u.nhand_gain as usize] = h as u8;
            u.nhand_gain += 1;
        }
    }

    /// Fire-demon burning after a move ending on `to` by a piece that was of type `mover`.
    fn burn(&mut self, u: &mut Undo, to: u16, mover: TypeId, us: Color) {
        let them = us.flip();
        let dirs = self.v.dirs8;
        // Passive burn: ending next to an enemy burner destroys the mover.
        let next_to_burner = dirs.iter().any(|&d| {
            let c = self.board[(to as i16 + d) as usize];
            c != EMPTY
                && c != WALL
                && cell_color(c) == them
                && self.v.types[cell_type(c) as usize].burns
        });
        if next_to_burner {
            if self.board[to as usize] != EMPTY {
                let (c, idx) = self.remove(to);
                u.removed[u.nremoved as usize] = (to, c, idx);
                u.nremoved += 1;
                u.suicide = true;
            }
            return;
        }
        let now = cell_type(self.board[to as usize]);
        let burns = self.v.types[mover as usize].burns
            || (self.v.rules.promotion_burns && self.v.types[now as usize].burns);
        if burns {
            for d in dirs {
                let s = (to as i16 + d) as u16;
                let c = self.board[s as usize];
                if c != EMPTY && c != WALL && cell_color(c) == them {
                    let (vc, idx) = self.remove(s);
                    u.removed[u.nremoved as usize] = (s, vc, idx);
                    u.nremoved += 1;
                }
            }
        }
    }

    /// Undo a move made by [`Position::play`].
    pub fn unplay(&mut self, u: &Undo) {
        let m = u.mv;
        self.side = self.side.flip();
        self.ply -= 1;
        let us = self.side;
        if m.is_drop() {
            self.remove(m.to);
            let h = self.v.types[m.drop_type() as usize].hand.unwrap_or(0) as usize;
            self.hands[us.idx()][h] += 1;
        } else {
            // Restore in reverse order of removal (burns first, then stops).
            let n = u.nremoved as usize;
            let mut i = n;
            // The mover may have been removed by suicide (last entry).
            if u.suicide {
                i -= 1;
                let (s, c, idx) = u.removed[i];
                self.restore(s, c, idx);
            }
            if m.to != m.from {
                self.relocate(m.to, m.from, u.moved);
            } else if self.board[m.from as usize] != u.moved {
                self.transform(m.from, u.moved);
            }
            while i > 0 {
                i -= 1;
                let (s, c, idx) = u.removed[i];
                self.restore(s, c, idx);
            }
            for k in 0..u.nhand_gain as usize {
                let h = u.hand_gain[k] as usize;
                self.hands[us.idx()][h] -= 1;
            }
        }
        self.lion_sq = u.lion_sq;
        self.hash = u.hash;
    }

    /// A null move: the side to move passes (searches use it to prove that a position is good
    /// enough without moving). The counter-strike square of the lion-trading rule is cleared,
    /// as after any move that takes no lion. Undone by [`Position::unplay_null`].
    pub fn play_null(&mut self) -> NullUndo {
        let u = NullUndo { lion_sq: self.lion_sq };
        self.set_lion_sq(0);
        self.side = self.side.flip();
        self.hash ^= self.v.zob_side;
        self.ply += 1;
        u
    }

    /// Undo a [`Position::play_null`].
    pub fn unplay_null(&mut self, u: NullUndo) {
        self.ply -= 1;
        self.hash ^= self.v.zob_side;
        self.side = self.side.flip();
        self.set_lion_sq(u.lion_sq);
    }

    /// Hash recomputed from scratch (for tests: must equal the incremental one).
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0u64;
        for &s in &self.v.squares {
            let c = self.board[s as usize];
            if c != EMPTY {
                h ^= self.v.zob_piece(c, s);
            }
        }
        for c in [Color::Black, Color::White] {
            for (i, &n) in self.hands[c.idx()].iter().enumerate() {
                h ^= self.v.zob_hand(c, i, 0) ^ self.v.zob_hand(c, i, n);
            }
        }
        // zob_hand(.., 0) terms cancel out; keep the incremental convention: start hash has them
        // XOR-ed pairwise, so only non-zero counts contribute.
        if self.lion_sq != 0 {
            h ^= self.v.zob_lion(self.lion_sq);
        }
        if self.side == Color::White {
            h ^= self.v.zob_side;
        }
        h
    }

    /// Structural equality of two positions (board, hands, side, counter-strike square).
    pub fn same_as(&self, o: &Position) -> bool {
        self.board == o.board
            && self.hands == o.hands
            && self.side == o.side
            && self.lion_sq == o.lion_sq
    }

    /// Check internal consistency (piece lists, counters, hash). For tests.
    pub fn validate(&self) -> Result<(), ConsistencyError> {
        for c in [Color::Black, Color::White] {
            let ci = c.idx();
            let mut royals = 0;
            for (i, &s) in self.plist[ci].iter().enumerate() {
                let cell = self.board[s as usize];
                if cell == EMPTY || cell == WALL || cell_color(cell) != c {
                    let square = self.v.square_name(s);
                    return Err(ConsistencyError::StalePieceList { color: c, square });
                }
                let recorded = self.pindex[s as usize];
                if recorded as usize != i {
                    let square = self.v.square_name(s);
                    return Err(ConsistencyError::PieceIndex { square, recorded, actual: i });
                }
                royals += self.v.types[cell_type(cell) as usize].royal as u16;
            }
            if royals != self.royals[ci] {
                let recorded = self.royals[ci];
                return Err(ConsistencyError::RoyalCount { color: c, recorded, counted: royals });
            }
        }
        let board = self.v.squares.iter().filter(|&&s| self.board[s as usize] != EMPTY).count();
        let lists = self.plist[0].len() + self.plist[1].len();
        if board != lists {
            return Err(ConsistencyError::PieceCount { board, lists });
        }
        let fresh = self.compute_hash();
        if fresh != self.hash {
            return Err(ConsistencyError::Hash { incremental: self.hash, fresh });
        }
        Ok(())
    }

    /// Replace the side to move (used by SFEN parsing and null-move tests).
    pub(crate) fn set_side(&mut self, c: Color) {
        if self.side != c {
            self.hash ^= self.v.zob_side;
            self.side = c;
        }
    }
    pub(crate) fn set_hand_count(&mut self, c: Color, h: usize, n: u8) {
        self.set_hand(c, h, n);
    }
    pub(crate) fn set_lion_square(&mut self, sq: u16) {
        self.set_lion_sq(sq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_null_move_and_its_undo_restore_the_position() {
        let v = Variant::builtin("chu").unwrap();
        let mut pos = Position::start(&v);
        let before = pos.clone();
        let u = pos.play_null();
        assert_ne!(pos.side_to_move(), before.side_to_move());
        assert_eq!(pos.hash(), pos.compute_hash());
        pos.unplay_null(u);
        assert!(pos.same_as(&before));
        assert_eq!(pos.hash(), before.hash());
    }

    #[test]
    fn validate_names_the_fault_it_finds() {
        let v = Variant::builtin("shogi").unwrap();
        let mut pos = Position::start(&v);
        assert_eq!(pos.validate(), Ok(()));
        pos.hash ^= 1;
        assert!(matches!(pos.validate(), Err(ConsistencyError::Hash { .. })));
        pos.hash ^= 1;
        pos.royals[Color::White.idx()] = 2;
        let want = ConsistencyError::RoyalCount { color: Color::White, recorded: 2, counted: 1 };
        assert_eq!(pos.validate(), Err(want));
    }
}
