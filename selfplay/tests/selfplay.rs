use shogilab_engine::{Color, Position, Variant};
use shogilab_selfplay::*;

#[test]
fn uniform_selfplay_games_finish_with_valid_policies() {
    let v = Variant::builtin("chu").unwrap();
    let mut cfg = SelfplayConfig { concurrent: 4, max_plies: 60, ..Default::default() };
    cfg.search.simulations = 8;
    let mut games = Vec::new();
    play_games(&v, &cfg, &Uniform, 42, 0, 6, |g| games.push(g), |_| {});
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
    let mut again = Vec::new();
    play_games(&v, &cfg, &Uniform, 42, 0, 6, |g| again.push(g), |_| {});
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
    let mut s = Search::new(
        SearchConfig { simulations: 64, gumbel_noise: false, ..Default::default() },
        pos.clone(),
    );
    s.reset(&pos);
    let mut rng: rand::rngs::SmallRng = rand::SeedableRng::seed_from_u64(1);
    let mut out = Vec::new();
    loop {
        match s.advance(&mut rng) {
            mcts::Step::NeedEval => {
                let req = EvalRequest {
                    pos: s.position(),
                    moves: &s.leaf_moves,
                    repetitions: 0,
                    plies: 0,
                };
                ev.evaluate(&[req], &mut out);
                let o = out[0].clone();
                s.deliver(&o);
            }
            mcts::Step::Done => break,
        }
    }
    let r = s.result();
    assert_eq!(pos.move_to_usi(r.best), "2e8e");
    assert!(r.value > 0.0);
    let _ = Color::Black;
}
