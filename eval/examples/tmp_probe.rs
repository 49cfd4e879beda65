use shogilab_engine::{Game, Position, Variant};
use shogilab_eval::alphabeta::Material;
use shogilab_eval::root_screen::screen_values;
use shogilab_eval::search::{AlphaBeta, NodeLimits, QuiescenceMoves, RootRules, SearchOptions};
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let v = Variant::builtin(&a[0]).unwrap();
    let sfen = std::fs::read_to_string(&a[1]).unwrap();
    let g = Game::new(Position::from_sfen(&v, sfen.trim()).unwrap());
    let depth: u32 = a[2].parse().unwrap();
    let opts = SearchOptions {
        depth,
        max_ply: 128,
        quiescence: Some(QuiescenceMoves::Captures),
        iterative: true,
        root_window: true,
        budget_per_root_move: false,
    };
    let mut ab = AlphaBeta::new(Material(screen_values(&v)), opts);
    let policy = vec![0.0f32; g.legal().len()];
    let among = if a.len() > 4 {
        shogilab_eval::root_screen::candidates(g.position(), g.legal(), &policy, 16)
    } else {
        Vec::new()
    };
    println!("{} candidates", among.len());
    let mut rules = RootRules { margin: 1_000_000_0, only: &among, ..RootRules::default() };
    let t = std::time::Instant::now();
    ab.search(&g, NodeLimits::default(), &mut rules);
    let mut sc: Vec<(String, i64)> =
        ab.root_scores().iter().map(|s| (g.position().move_to_usi(s.0), s.1)).collect();
    sc.sort_by_key(|s| -s.1);
    println!("depth {} in {:?}; static {}", ab.depth_completed(), t.elapsed(), {
        use shogilab_eval::search::Evaluation;
        ab.evaluation().eval(g.position())
    });
    for s in sc.iter().take(12) {
        println!("{:>10} {}", s.1, s.0);
    }
    let e: Vec<_> = sc.iter().filter(|s| s.0.starts_with(&a[3])).take(200).collect();
    println!("moves from {}: {} ; best {:?} worst {:?}", a[3], e.len(), e.first(), e.last());
}
