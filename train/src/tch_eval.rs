//! The `tch` evaluator: a network behind the self-play `Evaluator` trait. One forward pass per
//! batch, on CUDA when libtorch finds a GPU and on the CPU otherwise.

use crate::batch::InputBatch;
use crate::model::Net;
use shogilab_selfplay::encode::Encoder;
use shogilab_selfplay::{EvalOutput, EvalRequest, Evaluator};
use std::sync::Mutex;
use tch::{nn, Device, Kind, Tensor};

/// A network used for inference.
pub struct TchEvaluator {
    inner: Mutex<Inner>,
    pub encoder: Encoder,
    pub model_id: String,
    pub device: Device,
}

struct Inner {
    _vs: nn::VarStore,
    net: Net,
    batch: InputBatch,
}

impl TchEvaluator {
    pub fn new(vs: nn::VarStore, net: Net, encoder: Encoder, model_id: String) -> TchEvaluator {
        let device = vs.device();
        TchEvaluator {
            inner: Mutex::new(Inner { _vs: vs, net, batch: InputBatch::default() }),
            encoder,
            model_id,
            device,
        }
    }
}

/// One inference pass on packed inputs: the policy over each sample's legal moves and the
/// win/draw/loss probabilities, both on the CPU. (Also what `bench-selfplay` times as the raw
/// forward throughput.)
pub fn forward(
    net: &Net,
    board: &Tensor,
    scalars: &Tensor,
    moves: &Tensor,
    mask: &Tensor,
) -> (Tensor, Tensor) {
    tch::no_grad(|| {
        let t = net.trunk(board, scalars, false);
        let p = net.policy_logits(&t, moves, mask).softmax(1, Kind::Float);
        let w = t.wdl.softmax(1, Kind::Float);
        (p.to_device(Device::Cpu), w.to_device(Device::Cpu))
    })
}

impl Evaluator for TchEvaluator {
    fn variant(&self) -> Option<&str> {
        Some(&self.encoder.variant.name)
    }

    fn id(&self) -> String {
        self.model_id.clone()
    }

    fn evaluate(&self, batch: &[EvalRequest<'_>], out: &mut Vec<EvalOutput>) {
        out.resize_with(batch.len(), EvalOutput::default);
        if batch.is_empty() {
            return;
        }
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let Inner { net, batch: b, .. } = &mut *inner;
        b.fill(&self.encoder, batch.iter().map(|r| (r.pos, r.moves, r.plies)), false);
        let (board, scalars, moves, mask) = b.tensors(self.device);
        let (policy, wdl) = forward(net, &board, &scalars, &moves, &mask);
        let m = b.max_moves;
        let p: Vec<f32> = Vec::<f32>::try_from(policy.flatten(0, -1)).unwrap_or_default();
        let w: Vec<f32> = Vec::<f32>::try_from(wdl.flatten(0, -1)).unwrap_or_default();
        for (i, (r, o)) in batch.iter().zip(out.iter_mut()).enumerate() {
            o.policy.clear();
            let n = r.moves.len();
            if p.len() >= (i + 1) * m {
                o.policy.extend_from_slice(&p[i * m..i * m + n]);
            } else {
                o.policy.resize(n, 1.0 / n.max(1) as f32);
            }
            if w.len() >= 3 * (i + 1) {
                o.wdl = [w[3 * i], w[3 * i + 1], w[3 * i + 2]];
            }
        }
    }
}
