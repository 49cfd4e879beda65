//! Reusable input buffers: positions and their legal moves packed into padded tensors
//! (`[B, H*W]` codes, `[B, S]` scalars, `[B, M, 5]` moves, `[B, M]` mask), straight from
//! positions (inference) or from inputs encoded once ([`EncodedInput`], training).

use shogilab_engine::{Move, Position};
use shogilab_selfplay::encode::Encoder;
use tch::{Device, Tensor};

/// One position's network inputs, encoded once and stored compactly (training keeps these
/// instead of positions: a tenth of the memory, and no move generation per batch).
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedInput {
    board: Vec<u16>,
    scalars: Vec<f32>,
    /// Per legal move: from, to, mid1, mid2, promote.
    moves: Vec<[u16; 5]>,
}

impl EncodedInput {
    /// Encode a position with its legal moves (in the order of the policy target).
    pub fn new(enc: &Encoder, pos: &Position, moves: &[Move], plies: u32) -> EncodedInput {
        let mut board = vec![0i64; enc.squares()];
        enc.encode_board_into(pos, &mut board);
        let mut scalars = Vec::with_capacity(enc.num_scalars());
        enc.encode_scalars_into(pos, 0, plies, &mut scalars);
        let moves = moves
            .iter()
            .map(|&m| {
                let e = enc.encode_move(pos, m);
                [e.from, e.to, e.mid1, e.mid2, e.promote].map(|x| x as u16)
            })
            .collect();
        EncodedInput { board: board.into_iter().map(|c| c as u16).collect(), scalars, moves }
    }

    /// Number of legal moves.
    pub fn num_moves(&self) -> usize {
        self.moves.len()
    }
}

/// Packed inputs of one batch; the vectors are reused between batches.
#[derive(Default)]
pub struct InputBatch {
    pub size: usize,
    pub max_moves: usize,
    pub board: Vec<i64>,
    pub scalars: Vec<f32>,
    pub moves: Vec<i64>,
    pub mask: Vec<bool>,
    nscalars: usize,
    nsq: usize,
}

impl InputBatch {
    /// Fill from (position, legal moves, plies) triples; `mirror` flips every sample left-right
    /// (only valid when the encoder says so).
    pub fn fill<'a>(
        &mut self,
        enc: &Encoder,
        items: impl Iterator<Item = (&'a Position, &'a [Move], u32)> + Clone,
        mirror: bool,
    ) {
        let size = items.clone().count();
        let max_moves = items.clone().map(|(_, m, _)| m.len()).max().unwrap_or(1);
        self.reset(enc, size, max_moves);
        for (i, (pos, moves, plies)) in items.enumerate() {
            let nsq = self.nsq;
            enc.encode_board_into(pos, &mut self.board[i * nsq..(i + 1) * nsq]);
            enc.encode_scalars_into(pos, 0, plies, &mut self.scalars);
            for (j, &m) in moves.iter().enumerate() {
                let e = enc.encode_move(pos, m);
                self.put_move(i, j, [e.from, e.to, e.mid1, e.mid2, e.promote]);
            }
            self.finish_row(enc, i, moves.len(), mirror);
        }
    }

    /// Fill from encoded inputs, each with its own mirror flag.
    pub fn fill_encoded<'a>(
        &mut self,
        enc: &Encoder,
        items: impl Iterator<Item = (&'a EncodedInput, bool)> + Clone,
    ) {
        let size = items.clone().count();
        let max_moves = items.clone().map(|(e, _)| e.moves.len()).max().unwrap_or(1);
        self.reset(enc, size, max_moves);
        for (i, (e, mirror)) in items.enumerate() {
            let nsq = self.nsq;
            let row = &mut self.board[i * nsq..(i + 1) * nsq];
            row.iter_mut().zip(&e.board).for_each(|(d, &s)| *d = s as i64);
            self.scalars.extend_from_slice(&e.scalars);
            for (j, m) in e.moves.iter().enumerate() {
                self.put_move(i, j, m.map(|x| x as i64));
            }
            self.finish_row(enc, i, e.moves.len(), mirror);
        }
    }

    /// Size the buffers for `size` samples of up to `max_moves` moves.
    fn reset(&mut self, enc: &Encoder, size: usize, max_moves: usize) {
        self.nsq = enc.squares();
        self.nscalars = enc.num_scalars();
        self.size = size;
        self.max_moves = max_moves.max(1);
        self.board.clear();
        self.board.resize(size * self.nsq, 0);
        self.scalars.clear();
        self.moves.clear();
        self.moves.resize(size * self.max_moves * 5, 0);
        self.mask.clear();
        self.mask.resize(size * self.max_moves, false);
    }

    fn put_move(&mut self, i: usize, j: usize, m: [i64; 5]) {
        let o = (i * self.max_moves + j) * 5;
        self.moves[o..o + 5].copy_from_slice(&m);
        self.mask[i * self.max_moves + j] = true;
    }

    /// Point the padding moves of sample `i` at the "none" slot and mirror it if asked.
    fn finish_row(&mut self, enc: &Encoder, i: usize, nmoves: usize, mirror: bool) {
        let nsq = self.nsq;
        for j in nmoves..self.max_moves {
            let o = (i * self.max_moves + j) * 5;
            self.moves[o..o + 4].copy_from_slice(&[nsq as i64; 4]);
        }
        if !mirror {
            return;
        }
        for r in self.board[i * nsq..(i + 1) * nsq].chunks_mut(enc.width) {
            r.reverse();
        }
        for j in 0..nmoves {
            let o = (i * self.max_moves + j) * 5;
            for x in &mut self.moves[o..o + 4] {
                *x = enc.mirror_index(*x);
            }
        }
    }

    /// The batch as tensors on `device`: (board, scalars, moves, mask).
    pub fn tensors(&self, device: Device) -> (Tensor, Tensor, Tensor, Tensor) {
        let b = self.size as i64;
        let board = Tensor::from_slice(&self.board).view([b, self.nsq as i64]).to_device(device);
        let scalars =
            Tensor::from_slice(&self.scalars).view([b, self.nscalars as i64]).to_device(device);
        let moves =
            Tensor::from_slice(&self.moves).view([b, self.max_moves as i64, 5]).to_device(device);
        let mask =
            Tensor::from_slice(&self.mask).view([b, self.max_moves as i64]).to_device(device);
        (board, scalars, moves, mask)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shogilab_engine::{MoveList, Variant};

    /// Encoded inputs fill the same tensors as the positions they came from, mirrored or not.
    #[test]
    fn encoded_inputs_fill_like_positions() {
        let v = Variant::builtin("chu").expect("chu is built in");
        let enc = Encoder::new(v.clone());
        let mut pos = Position::start(&v);
        let mut moves = MoveList::new();
        pos.legal_moves(&mut moves);
        let m = moves[3];
        pos.play(m);
        moves.clear();
        pos.legal_moves(&mut moves);
        let e = EncodedInput::new(&enc, &pos, &moves, 1);
        for mirror in [false, true] {
            let (mut a, mut b) = (InputBatch::default(), InputBatch::default());
            a.fill(&enc, std::iter::once((&pos, moves.as_slice(), 1)), mirror);
            b.fill_encoded(&enc, std::iter::once((&e, mirror)));
            assert_eq!((a.board, a.scalars), (b.board, b.scalars));
            assert_eq!((a.moves, a.mask), (b.moves, b.mask));
        }
    }
}
