//! The network on CPU: a checkpoint saved and reloaded gives identical outputs, a checkpoint of
//! another variant is refused with a precise error, and training steps lower the loss.

use shogilab_engine::{MoveList, Position, Variant};
use shogilab_selfplay::encode::Encoder;
use shogilab_selfplay::{EvalRequest, Evaluator};
use shogilab_train::checkpoint::{self, CheckpointMeta};
use shogilab_train::examples::Example;
use shogilab_train::trainer::{TrainConfig, Trainer};
use shogilab_train::{Net, NetConfig, TchEvaluator};
use tch::{nn, Device};

fn outputs(
    ev: &TchEvaluator,
    positions: &[(Position, MoveList)],
) -> Vec<shogilab_selfplay::EvalOutput> {
    let reqs: Vec<EvalRequest> = positions
        .iter()
        .map(|(p, m)| EvalRequest { pos: p, moves: m, repetitions: 0, plies: 0 })
        .collect();
    let mut out = Vec::new();
    ev.evaluate(&reqs, &mut out);
    out
}

fn sample_positions(v: &std::sync::Arc<Variant>) -> Vec<(Position, MoveList)> {
    let mut pos = Position::start(v);
    let mut res = Vec::new();
    for _ in 0..3 {
        let mut l = MoveList::new();
        pos.legal_moves(&mut l);
        res.push((pos.clone(), l.clone()));
        pos.play(l[l.len() / 2]);
    }
    res
}

#[test]
fn checkpoint_round_trip_and_refusal() {
    tch::manual_seed(1);
    let v = Variant::builtin("chu").unwrap();
    let enc = Encoder::new(v.clone());
    let cfg = NetConfig::preset("tiny").unwrap();
    let vs = nn::VarStore::new(Device::Cpu);
    let net = Net::new(&vs.root(), &enc, &cfg);
    let dir = std::env::temp_dir().join(format!("shogilab-ckpt-{}", std::process::id()));
    let path = dir.join("gen-0001.ot");
    checkpoint::save(&vs, &CheckpointMeta::for_net(&enc, &cfg, 0, "test"), &path).unwrap();
    let ps = sample_positions(&v);
    let a = outputs(&TchEvaluator::new(vs, net, enc.clone(), "a".into()), &ps);
    for o in &a {
        let s: f32 = o.policy.iter().sum();
        assert!((s - 1.0).abs() < 1e-4, "policy sums to {s}");
        assert!((o.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    }
    let (vs2, net2, meta) = checkpoint::load(&path, &enc, Device::Cpu).unwrap();
    assert_eq!(meta.variant, "chu");
    // the same weights saved again (elsewhere, same name) give the same bytes: content hashes
    // name weights
    let again = dir.join("copy").join("gen-0001.ot");
    checkpoint::save(&vs2, &meta, &again).unwrap();
    assert!(std::fs::read(&path).unwrap() == std::fs::read(&again).unwrap(), "bytes differ");
    let b = outputs(&TchEvaluator::new(vs2, net2, enc, "b".into()), &ps);
    assert_eq!(a, b, "reloaded checkpoint gives different outputs");
    // another variant's encoder refuses it
    let shogi = Encoder::new(Variant::builtin("shogi").unwrap());
    let err = checkpoint::load(&path, &shogi, Device::Cpu).expect_err("must refuse").to_string();
    assert!(err.contains("chu") && err.contains("gen-0001"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Every preset trains (`small` has a global-pooling block, `tiny` none).
#[test]
fn training_lowers_the_loss() {
    for preset in ["tiny", "small"] {
        tch::manual_seed(2);
        let v = Variant::builtin("shogi").unwrap();
        let enc = Encoder::new(v.clone());
        let cfg = NetConfig::preset(preset).unwrap();
        let vs = nn::VarStore::new(Device::Cpu);
        let net = Net::new(&vs.root(), &enc, &cfg);
        let examples: Vec<Example> = sample_positions(&v)
            .into_iter()
            .map(|(pos, moves)| {
                let mut target = vec![0.0; moves.len()];
                target[0] = 1.0;
                Example::new(&enc, &pos, &moves, 0, target, [1.0, 0.0, 0.0])
            })
            .collect();
        let mut t = Trainer::new(
            enc,
            vs,
            net,
            TrainConfig { batch_size: 3, learning_rate: 0.01, ..Default::default() },
        )
        .unwrap();
        let refs: Vec<&Example> = examples.iter().collect();
        let before = t.step(&refs, &[false; 3], None).total_loss;
        t.train(&examples, 60, 0, 1, |_, _| {});
        let after = t.step(&refs, &[false; 3], None).total_loss;
        assert!(after < before * 0.7, "{preset}: loss {before} -> {after}");
    }
}
