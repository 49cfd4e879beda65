//! The policy/value network (tch / libtorch).
//!
//! * Input: the board as piece codes through a learned embedding (equivalent to one-hot planes,
//!   but it scales to tai's ~260 piece types), plus a projection of the scalar features added
//!   to every square.
//! * Trunk: residual blocks of two 3x3 convolutions with batch norm; every second block adds a
//!   channel bias computed from global average and max pooling (KataGo's global pooling), so
//!   information crosses a 25x25 board in few blocks.
//! * Policy: one logit per legal move, scored by a pointer head over slot features (the
//!   squares, a "none" slot and one slot per hand kind): `q(from) . k(to) / sqrt(d)` plus terms
//!   for the intermediate stops and the promotion flag; normalised over the legal moves only.
//! * Value: win/draw/loss logits from the pooled trunk.

use serde::{Deserialize, Serialize};
use shogilab_selfplay::encode::Encoder;
use shogilab_selfplay::InvalidSetting;
use tch::{nn, Kind, Tensor};

/// Network size.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Trunk channels.
    pub channels: i64,
    /// Residual blocks.
    pub blocks: i64,
    /// Width of the policy head's query/key vectors.
    pub head_dim: i64,
    /// Hidden units of the value head.
    pub value_hidden: i64,
}

impl NetConfig {
    /// Named presets: `tiny`, `small`, `medium`, `large`.
    pub fn preset(name: &str) -> Option<NetConfig> {
        let (c, b, d, v) = match name {
            "tiny" => (16, 1, 16, 32),
            "small" => (32, 3, 32, 64),
            "medium" => (64, 6, 64, 128),
            "large" => (128, 10, 128, 256),
            _ => return None,
        };
        Some(NetConfig { channels: c, blocks: b, head_dim: d, value_hidden: v })
    }

    /// Check every size against its range; the error names the `net.*` key.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        for (k, v, hi) in [
            ("channels", self.channels, 1024),
            ("blocks", self.blocks, 64),
            ("head_dim", self.head_dim, 1024),
            ("value_hidden", self.value_hidden, 4096),
        ] {
            if v < 1 || v > hi {
                return Err(InvalidSetting::new(k, v, &format!("must be 1..{hi}")).within("net"));
            }
        }
        Ok(())
    }
}

#[derive(Debug)]
struct Block {
    c1: nn::Conv2D,
    b1: nn::BatchNorm,
    c2: nn::Conv2D,
    b2: nn::BatchNorm,
    pool: Option<nn::Linear>,
}

impl Block {
    fn new(p: nn::Path, c: i64, global_pool: bool) -> Block {
        let conv = nn::ConvConfig { padding: 1, bias: false, ..Default::default() };
        Block {
            c1: nn::conv2d(&p / "c1", c, c, 3, conv),
            b1: nn::batch_norm2d(&p / "b1", c, Default::default()),
            c2: nn::conv2d(&p / "c2", c, c, 3, conv),
            b2: nn::batch_norm2d(&p / "b2", c, Default::default()),
            pool: global_pool.then(|| nn::linear(&p / "pool", 2 * c, c, Default::default())),
        }
    }

    fn forward(&self, x: &Tensor, train: bool) -> Tensor {
        let h = x.apply(&self.c1).apply_t(&self.b1, train).relu();
        // Not `+=`: on a tensor that is an in-place add, which breaks the backward pass.
        let h = match &self.pool {
            Some(pool) => {
                let g = global_pool(&h).apply(pool);
                h + g.unsqueeze(-1).unsqueeze(-1)
            }
            None => h,
        };
        let h = h.apply(&self.c2).apply_t(&self.b2, train);
        (h + x).relu()
    }
}

/// [B, C, H, W] -> [B, 2C] (mean and max over the board).
fn global_pool(x: &Tensor) -> Tensor {
    let mean = x.mean_dim(&[2i64, 3][..], false, Kind::Float);
    let max = x.amax(&[2i64, 3][..], false);
    Tensor::cat(&[mean, max], 1)
}

/// The network.
#[derive(Debug)]
pub struct Net {
    pub cfg: NetConfig,
    pub height: i64,
    pub width: i64,
    pub hand_kinds: i64,
    embed: nn::Embedding,
    scalars: nn::Linear,
    blocks: Vec<Block>,
    extra_slots: Tensor,
    q: nn::Linear,
    k: nn::Linear,
    mid1: nn::Linear,
    mid2: nn::Linear,
    promo: nn::Linear,
    v1: nn::Linear,
    v2: nn::Linear,
}

/// Trunk output needed by the heads.
pub struct Trunk {
    /// [B, N, C] slot features (squares, none, hand kinds).
    pub slots: Tensor,
    /// [B, 3] win/draw/loss logits.
    pub wdl: Tensor,
}

impl Net {
    /// Build the network for an encoder's variant under `vs.root()`.
    pub fn new(vs: &nn::Path, enc: &Encoder, cfg: &NetConfig) -> Net {
        let c = cfg.channels;
        let blocks =
            (0..cfg.blocks).map(|i| Block::new(vs / format!("block{i}"), c, i % 2 == 1)).collect();
        let nextra = 1 + enc.hand_kinds as i64;
        Net {
            cfg: cfg.clone(),
            height: enc.height as i64,
            width: enc.width as i64,
            hand_kinds: enc.hand_kinds as i64,
            embed: nn::embedding(vs / "embed", enc.vocab() as i64, c, Default::default()),
            scalars: nn::linear(vs / "scalars", enc.num_scalars() as i64, c, Default::default()),
            blocks,
            extra_slots: vs.var(
                "extra_slots",
                &[nextra, c],
                nn::Init::Randn { mean: 0.0, stdev: 0.1 },
            ),
            q: nn::linear(vs / "q", c, cfg.head_dim, Default::default()),
            k: nn::linear(vs / "k", c, cfg.head_dim, Default::default()),
            mid1: nn::linear(vs / "mid1", c, 1, Default::default()),
            mid2: nn::linear(vs / "mid2", c, 1, Default::default()),
            promo: nn::linear(vs / "promo", 2 * c, 1, Default::default()),
            v1: nn::linear(vs / "v1", 2 * c, cfg.value_hidden, Default::default()),
            v2: nn::linear(vs / "v2", cfg.value_hidden, 3, Default::default()),
        }
    }

    /// board: [B, H*W] int64 codes; scalars: [B, S] float.
    pub fn trunk(&self, board: &Tensor, scalars: &Tensor, train: bool) -> Trunk {
        let b = board.size()[0];
        let c = self.cfg.channels;
        let x = board.apply(&self.embed); // [B, HW, C]
        let x = x.transpose(1, 2).reshape([b, c, self.height, self.width]);
        let s = scalars.apply(&self.scalars).unsqueeze(-1).unsqueeze(-1);
        let mut h = (x + s).relu();
        for blk in &self.blocks {
            h = blk.forward(&h, train);
        }
        let pooled = global_pool(&h);
        let wdl = pooled.apply(&self.v1).relu().apply(&self.v2);
        let sq = h.flatten(2, 3).transpose(1, 2); // [B, HW, C]
        let extra = self.extra_slots.unsqueeze(0).expand([b, -1, -1], true);
        let slots = Tensor::cat(&[sq, extra], 1);
        Trunk { slots, wdl }
    }

    /// Move logits. moves: [B, M, 5] int64 (from, to, mid1, mid2, promote); mask: [B, M] bool
    /// (true = a real move). Padding entries get -inf.
    pub fn policy_logits(&self, t: &Trunk, moves: &Tensor, mask: &Tensor) -> Tensor {
        let c = self.cfg.channels;
        let (b, m) = (moves.size()[0], moves.size()[1]);
        let gather = |col: i64| -> Tensor {
            let idx = moves.select(2, col).unsqueeze(-1).expand([b, m, c], true);
            t.slots.gather(1, &idx, false) // [B, M, C]
        };
        let (f, to, m1, m2) = (gather(0), gather(1), gather(2), gather(3));
        let promote = moves.select(2, 4).to_kind(Kind::Float);
        let qk =
            (f.apply(&self.q) * to.apply(&self.k)).sum_dim_intlist(&[2i64][..], false, Kind::Float)
                / (self.cfg.head_dim as f64).sqrt();
        let mids = m1.apply(&self.mid1).squeeze_dim(-1) + m2.apply(&self.mid2).squeeze_dim(-1);
        let pr = Tensor::cat(&[f, to], 2).apply(&self.promo).squeeze_dim(-1) * promote;
        (qk + mids + pr).masked_fill(&mask.logical_not(), f64::NEG_INFINITY)
    }
}
