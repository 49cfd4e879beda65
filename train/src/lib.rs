//! shogilab-train: the policy/value network and its training.
//!
//! * [`model`]: the network (embedding input, residual trunk with global pooling, pointer
//!   policy head over legal moves, win/draw/loss head) and its size presets;
//! * [`batch`]: packing positions and legal moves into tensors;
//! * [`tch_eval`]: the network as a self-play `Evaluator` (CPU or CUDA);
//! * [`examples`]: stored samples decoded into training examples, the held-out split by game;
//! * [`schedule`]: the learning-rate schedule;
//! * [`trainer`]: the optimisation steps and held-out figures;
//! * [`checkpoint`]: weights plus metadata, refused with a clear error when they do not fit.

pub mod batch;
pub mod checkpoint;
pub mod evaluator;
pub mod examples;
pub mod golden;
pub mod model;
pub mod schedule;
pub mod tch_eval;
pub mod trainer;

pub use model::{Net, NetConfig};
pub use tch_eval::TchEvaluator;

/// The device libtorch should use: the first CUDA GPU if there is one, else the CPU.
pub fn default_device() -> tch::Device {
    tch::Device::cuda_if_available()
}
