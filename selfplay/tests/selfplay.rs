use shogilab_engine::{Position, Variant};
use shogilab_selfplay::*;

/// Settings of a small test run: `concurrent` games at once, a ply cap, `simulations` a move.
fn config(concurrent: usize, max_plies: u32, simulations: u32) -> SelfplayConfig {
    let mut cfg = SelfplayConfig { concurrent, max_plies, ..Default::default() };
    cfg.search.simulations = simulations;
    cfg
}

/// `n` games with the uniform evaluator, in the order they finished.
fn uniform_games(
    v: &std::sync::Arc<Variant>,
    cfg: &SelfplayConfig,
    seed: u64,
    n: u64,
) -> Vec<GameRecord> {
    let mut games = Vec::new();
    play_games(v, cfg, &Uniform, seed, 0, n, |g| games.push(g), |_| {});
    games
}

#[test]
fn uniform_selfplay_games_finish_with_valid_policies() {
    let v = Variant::builtin("chu").unwrap();
    let cfg = config(4, 60, 8);
    let mut games = uniform_games(&v, &cfg, 42, 6);
    assert_eq!(games.len(), 6);
    for g in &games {
        assert!(g.status.is_over());
        for p in &g.positions {
            let sum: f32 = p.policy_probs.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
            assert_eq!(p.policy_moves.len(), p.policy_probs.len());
            assert!(p.policy_moves.contains(&p.mv));
            let pos = Position::from_sfen(&v, &p.sfen).unwrap();
            let mut legal = shogilab_engine::MoveList::new();
            pos.legal_moves(&mut legal);
            assert_eq!(legal.len(), p.policy_moves.len(), "policy covers every legal move");
        }
    }
    // reproducible: same seed, same games
    let mut again = uniform_games(&v, &cfg, 42, 6);
    games.sort_by_key(|g| g.game_index);
    again.sort_by_key(|g| g.game_index);
    for (a, b) in games.iter().zip(&again) {
        assert_eq!(a.moves, b.moves);
    }
}

#[test]
fn material_search_takes_a_hanging_piece() {
    let v = Variant::builtin("shogi").unwrap();
    // Black rook can take an undefended white rook.
    let pos = Position::from_sfen(&v, "4k4/9/9/9/1r5R1/9/9/9/4K4 b - 1").unwrap();
    let ev = Material::new(PieceValues::mobility(v.clone()));
    let r = search_best(&pos, &ev, &[]);
    assert_eq!(pos.move_to_usi(r.best), "2e8e");
    assert!(r.value > 0.0);
}

#[test]
fn parquet_shards_read_back_with_the_documented_columns() {
    use shogilab_selfplay::dataset;
    let v = Variant::builtin("shogi").unwrap();
    let cfg = config(2, 20, 4);
    let games = uniform_games(&v, &cfg, 3, 2);
    let dir = std::env::temp_dir().join(format!("shogilab-ds-{}", std::process::id()));
    let (pp, gp) = dataset::write_shard(&dir, 0, &games, "shogi", 0, "uniform", 4).unwrap();
    assert!(gp.exists());
    let samples = dataset::read_samples(std::slice::from_ref(&pp), "shogi").unwrap();
    let n: usize = games.iter().map(|g| g.positions.len()).sum();
    assert_eq!(samples.len(), n);
    for s in &samples {
        assert!((s.policy_probs.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!((-1..=1).contains(&s.result));
    }
    // wrong variant and a corrupt file are refused with the file named
    let e = dataset::read_samples(std::slice::from_ref(&pp), "chu").unwrap_err().to_string();
    assert!(e.contains("positions-00000") && e.contains("shogi"), "{e}");
    let bad = dir.join("bad.parquet");
    std::fs::write(&bad, b"not parquet at all").unwrap();
    let e = dataset::read_samples(&[bad], "shogi").unwrap_err().to_string();
    assert!(e.contains("bad.parquet"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_sampled_window_is_a_seeded_share_of_its_rows() {
    use shogilab_selfplay::dataset::{self, Sampling};
    let v = Variant::builtin("shogi").unwrap();
    let games = uniform_games(&v, &config(4, 60, 4), 9, 8);
    let dir = std::env::temp_dir().join(format!("shogilab-sample-{}", std::process::id()));
    let (pp, _) = dataset::write_shard(&dir, 0, &games, "shogi", 0, "uniform", 4).unwrap();
    let sources = [pp.display().to_string()];
    let key = |s: &dataset::Sample| (s.game_id.clone(), s.ply);
    let read = |sampling| {
        let rows = dataset::read_window(&sources, "shogi", sampling).unwrap();
        rows.iter().map(key).collect::<Vec<_>>()
    };
    let all = read(None);
    assert_eq!(all.len(), games.iter().map(|g| g.positions.len()).sum::<usize>());
    assert_eq!(read(Some(Sampling { fraction: 1.0, seed: 5 })), all, "fraction 1 keeps every row");
    let half = read(Some(Sampling { fraction: 0.5, seed: 5 }));
    let share = half.len() as f64 / all.len() as f64;
    assert!((0.4..0.6).contains(&share), "kept {} of {}", half.len(), all.len());
    assert!(half.iter().all(|k| all.contains(k)), "a sample holds rows of the window only");
    assert_eq!(read(Some(Sampling { fraction: 0.5, seed: 5 })), half, "same seed, same rows");
    assert_ne!(read(Some(Sampling { fraction: 0.5, seed: 6 })), half, "another seed, other rows");
    let tenth = read(Some(Sampling { fraction: 0.1, seed: 5 })).len() as f64 / all.len() as f64;
    assert!((0.05..0.15).contains(&tenth), "fraction 0.1 kept {tenth}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Run a deterministic search to the end with `ev`.
fn search_best(pos: &Position, ev: &dyn Evaluator, history: &[u64]) -> SearchResult {
    let mut s = Search::new(
        SearchConfig { simulations: 64, gumbel_noise: false, ..Default::default() },
        pos.clone(),
    );
    s.reset(pos);
    s.set_history(history.iter().copied());
    let mut rng: rand::rngs::SmallRng = rand::SeedableRng::seed_from_u64(1);
    let mut out = Vec::new();
    while let mcts::Step::NeedEval = s.advance(&mut rng) {
        let req = EvalRequest { pos: s.position(), moves: &s.leaf_moves, repetitions: 0, plies: 0 };
        ev.evaluate(&[req], &mut out);
        let o = out[0].clone();
        s.deliver(&o);
    }
    s.result()
}

#[test]
fn search_values_a_repeated_position_by_the_variant_rule() {
    // Black is a rook up: every quiet move keeps a winning value, except one that returns to a
    // position the game has already seen, which the search must see as a draw and avoid.
    let v = Variant::builtin("shogi").unwrap();
    let pos = Position::from_sfen(&v, "4k4/9/9/9/7R1/9/9/9/4K4 b - 1").unwrap();
    let ev = Material::new(PieceValues::mobility(v.clone()));
    let first = search_best(&pos, &ev, &[]);
    assert!(first.value > 0.1, "winning: {}", first.value);
    let mut after = pos.clone();
    after.play(first.best);
    let second = search_best(&pos, &ev, &[after.hash()]);
    assert_ne!(second.best, first.best, "the search repeated a position while winning");
    assert!(second.value > 0.1);
    // Where repeating is forbidden (tai), the repeating move loses for the side that makes it.
    let tai = Variant::builtin("tai").unwrap();
    let tpos = Position::start(&tai);
    let ev = Uniform;
    let first = search_best(&tpos, &ev, &[]);
    let mut after = tpos.clone();
    after.play(first.best);
    let second = search_best(&tpos, &ev, &[after.hash()]);
    let i = second.moves.iter().position(|m| *m == first.best).unwrap();
    assert_ne!(second.best, first.best);
    assert!(second.visits[i] <= 1, "a forbidden repetition keeps being searched");
}

/// Playout-cap randomisation: about the configured share of moves is searched fully and
/// recorded; the fast searches are played but not recorded; every move is recorded at 1.
#[test]
fn only_full_searches_become_training_positions() {
    let v = Variant::builtin("shogi").unwrap();
    let mut cfg = config(4, 80, 8);
    cfg.fast_simulations = 2;
    cfg.full_search_fraction = 0.25;
    cfg.validate().expect("valid settings");
    let games = uniform_games(&v, &cfg, 7, 8);
    let (moves, recorded): (usize, usize) =
        games.iter().fold((0, 0), |(m, r), g| (m + g.moves.len(), r + g.positions.len()));
    let share = recorded as f64 / moves as f64;
    assert!((0.12..0.40).contains(&share), "{recorded} of {moves} moves recorded");
    for g in &games {
        for p in &g.positions {
            assert_eq!(p.visits, 8, "a recorded position had a full search");
            assert_eq!(g.moves.get(p.ply as usize), Some(&p.mv), "recorded at its ply");
        }
    }
    cfg.full_search_fraction = 1.0;
    let all = uniform_games(&v, &cfg, 7, 2);
    assert!(all.iter().all(|g| g.positions.len() == g.moves.len()));
    cfg.fast_simulations = 9;
    cfg.validate().expect("fast searches unused at a fraction of 1");
    cfg.full_search_fraction = 0.5;
    let e = cfg.validate().expect_err("fast above full").to_string();
    assert!(e.contains("selfplay.fast_simulations"), "{e}");
}
