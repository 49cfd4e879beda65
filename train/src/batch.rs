//! Reusable input buffers: positions and their legal moves packed into padded tensors
//! (`[B, H*W]` codes, `[B, S]` scalars, `[B, M, 5]` moves, `[B, M]` mask).

use shogilab_engine::{Move, Position};
use shogilab_selfplay::encode::Encoder;
use tch::{Device, Tensor};

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
        self.fill_with(enc, items.map(|(p, m, n)| (p, m, n, mirror)));
    }

    /// Like `fill`, with a per-sample mirror flag.
    pub fn fill_with<'a>(
        &mut self,
        enc: &Encoder,
        items: impl Iterator<Item = (&'a Position, &'a [Move], u32, bool)> + Clone,
    ) {
        let nsq = enc.squares();
        self.nsq = nsq;
        self.nscalars = enc.num_scalars();
        self.size = items.clone().count();
        self.max_moves = items.clone().map(|(_, m, _, _)| m.len()).max().unwrap_or(1).max(1);
        self.board.clear();
        self.board.resize(self.size * nsq, 0);
        self.scalars.clear();
        self.moves.clear();
        self.moves.resize(self.size * self.max_moves * 5, 0);
        self.mask.clear();
        self.mask.resize(self.size * self.max_moves, false);
        for (i, (pos, moves, plies, mirror)) in items.enumerate() {
            let row = &mut self.board[i * nsq..(i + 1) * nsq];
            enc.encode_board_into(pos, row);
            if mirror {
                let w = enc.width;
                for r in row.chunks_mut(w) {
                    r.reverse();
                }
            }
            enc.encode_scalars_into(pos, 0, plies, &mut self.scalars);
            for (j, &m) in moves.iter().enumerate() {
                let e = enc.encode_move(pos, m);
                let f = |x: i64| if mirror { enc.mirror_index(x) } else { x };
                let o = (i * self.max_moves + j) * 5;
                self.moves[o..o + 5].copy_from_slice(&[
                    f(e.from),
                    f(e.to),
                    f(e.mid1),
                    f(e.mid2),
                    e.promote,
                ]);
                self.mask[i * self.max_moves + j] = true;
            }
            // padding rows point at the "none" slot
            for j in moves.len()..self.max_moves {
                let o = (i * self.max_moves + j) * 5;
                self.moves[o..o + 4].copy_from_slice(&[nsq as i64; 4]);
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
