//! The setups of the imbalance games: the start array with a few random pieces removed or
//! promoted in place on each side, drawn from the setup's own random stream (so that setup `i`
//! is the same in every run and every task), with its mirror; and the setups lost before they
//! start (the first move captures the other side's last royal), redrawn or left out.

use super::{start_of, GameLine, ImbalanceConfig, ImbalanceError};
use crate::values::odds;
use crate::values::Kinds;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use shogilab_engine::variant::TYPE_MASK;
use shogilab_engine::{Color, MoveList, Position, Variant};
use shogilab_selfplay::worker::game_seed as mix;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

/// Draws before [`make_setup`] gives up looking for a setup that no first move wins.
const SAFE_ROYAL_DRAWS: usize = 1000;

/// The two start positions of setup `index` (as drawn, and mirrored with colours swapped).
/// With [`ImbalanceConfig::safe_royals`], setups whose first mover (in either colour order)
/// could capture the other side's last royal at once are drawn again, from the same random stream; if none of
/// `SAFE_ROYAL_DRAWS` draws is safe, the last is kept.
pub fn make_setup(
    v: &Arc<Variant>,
    kinds: &Kinds,
    cfg: &ImbalanceConfig,
    index: usize,
) -> [Position; 2] {
    let mut rng = SmallRng::seed_from_u64(mix(cfg.seed ^ cfg.setup_salt(), index as u64 + 1));
    let mut setup = draw_setup(v, kinds, cfg, &mut rng);
    if cfg.safe_royals {
        let mut moves = MoveList::with_capacity(256);
        for _ in 1..SAFE_ROYAL_DRAWS {
            if !setup.iter().any(|p| wins_at_once(p, &mut moves)) {
                break;
            }
            setup = draw_setup(v, kinds, cfg, &mut rng);
        }
    }
    setup
}

/// Whether the side to move can capture the other side's last royal with its first move (a
/// game lost before it starts).
pub fn wins_at_once(pos: &Position, moves: &mut MoveList) -> bool {
    let them = pos.side_to_move().flip();
    let mut p = pos.clone();
    moves.clear();
    p.legal_captures(moves);
    moves.iter().any(|&m| {
        let u = p.play(m);
        let bare = p.royal_count(them) == 0;
        p.unplay(&u);
        bare
    })
}

/// A piece of the start array in a setup being drawn: (square, colour, type, present).
pub(in crate::values) type SetupPiece = (u16, Color, u16, bool);

/// The pieces of the start array, all present.
pub(in crate::values) fn start_pieces(v: &Arc<Variant>) -> Vec<SetupPiece> {
    let start = Position::start(v);
    let mut pieces = Vec::new();
    for &sq in &v.squares {
        let c = start.cell(sq);
        if c != 0 && c & 0x8000 == 0 {
            let col = if c & Color::Black.bit() != 0 { Color::Black } else { Color::White };
            pieces.push((sq, col, c & TYPE_MASK, true));
        }
    }
    pieces
}

/// The two start positions of a drawn setup: as drawn, and rotated 180° with the colours
/// swapped (so that each side of the imbalance moves first once).
pub(in crate::values) fn setup_pair(v: &Arc<Variant>, pieces: &[SetupPiece]) -> [Position; 2] {
    let build = |mirror: bool| -> Position {
        let mut pos = Position::empty(Arc::clone(v));
        for &(sq, col, t, present) in pieces {
            if !present {
                continue;
            }
            let (sq, col) = if mirror {
                let (x, y) = v.xy(sq);
                (v.sq(v.files as i16 - 1 - x, v.ranks as i16 - 1 - y), col.flip())
            } else {
                (sq, col)
            };
            pos.place(sq, col, t);
        }
        // through SFEN, so that the game starts from exactly the logged position
        Position::from_sfen(v, &pos.to_sfen()).unwrap_or(pos)
    };
    [build(false), build(true)]
}

/// One draw of the setup rules from `rng`: the position as drawn and its mirror.
fn draw_setup(
    v: &Arc<Variant>,
    kinds: &Kinds,
    cfg: &ImbalanceConfig,
    rng: &mut SmallRng,
) -> [Position; 2] {
    if let Some(kind) = &cfg.odds {
        return odds::draw(v, kinds, kind, rng);
    }
    let mut pieces = start_pieces(v);
    let pawn = kinds.pawn;
    for col in [Color::Black, Color::White] {
        let pick_kind = |pieces: &Vec<SetupPiece>,
                         rng: &mut SmallRng,
                         ok: &dyn Fn(u16) -> bool|
         -> Option<usize> {
            let mut by_kind: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for (i, p) in pieces.iter().enumerate() {
                if p.1 == col && p.3 && ok(p.2) {
                    by_kind.entry(kinds.of_type[p.2 as usize]).or_default().push(i);
                }
            }
            if by_kind.is_empty() {
                return None;
            }
            let ks: Vec<&Vec<usize>> = by_kind.values().collect();
            let list = ks[rng.gen_range(0..ks.len())];
            Some(list[rng.gen_range(0..list.len())])
        };
        let types = &v.types;
        let n_remove = rng.gen_range(0..=cfg.max_removals);
        for _ in 0..n_remove {
            let ok = |t: u16| !types[t as usize].royal && Some(kinds.of_type[t as usize]) != pawn;
            if let Some(i) = pick_kind(&pieces, rng, &ok) {
                pieces[i].3 = false;
            }
        }
        let n_pawns = rng.gen_range(0..=cfg.max_pawns);
        for _ in 0..n_pawns {
            let ok =
                |t: u16| Some(kinds.of_type[t as usize]) == pawn && !types[t as usize].promoted;
            if let Some(i) = pick_kind(&pieces, rng, &ok) {
                pieces[i].3 = false;
            }
        }
        let mut promote = |rng: &mut SmallRng| {
            let ok = |t: u16| types[t as usize].promotes_to.is_some();
            if let Some(i) = pick_kind(&pieces, rng, &ok) {
                if let Some(p) = types[pieces[i].2 as usize].promotes_to {
                    pieces[i].2 = p;
                }
            }
        };
        for _ in 0..cfg.min_promotions {
            promote(rng);
        }
        let mut prob = cfg.promote_prob;
        while rng.gen::<f64>() < prob {
            promote(rng);
            prob /= 2.0;
        }
        // a side with a second royal (a promoted prince) may lose its king
        let royals: Vec<usize> = (0..pieces.len())
            .filter(|&i| pieces[i].1 == col && pieces[i].3 && types[pieces[i].2 as usize].royal)
            .collect();
        if royals.len() >= 2 && rng.gen::<f64>() < cfg.royal_drop {
            let unpromoted: Vec<usize> =
                royals.iter().copied().filter(|&i| !types[pieces[i].2 as usize].promoted).collect();
            if let Some(&i) = unpromoted.first() {
                pieces[i].3 = false;
            }
        }
    }
    setup_pair(v, &pieces)
}

/// The games of the setups that the first move wins (in either colour order, see
/// [`wins_at_once`]) left out: the same selection as [`ImbalanceConfig::safe_royals`] makes
/// before playing (rejection sampling keeps the other setups' distribution), applied to a log
/// played without it. Returns the games kept and how many setups were left out.
pub fn drop_won_setups(
    v: &Arc<Variant>,
    games: Vec<GameLine>,
) -> Result<(Vec<GameLine>, usize), ImbalanceError> {
    let mut moves = MoveList::with_capacity(256);
    let mut won: HashSet<(&str, usize)> = HashSet::new();
    for g in &games {
        let pos = start_of(v, g)?;
        if wins_at_once(&pos, &mut moves) {
            won.insert((g.agent.as_str(), g.setup));
        }
    }
    let keep: Vec<bool> =
        games.iter().map(|g| !won.contains(&(g.agent.as_str(), g.setup))).collect();
    let n = won.len();
    Ok((games.into_iter().zip(keep).filter(|(_, k)| *k).map(|(g, _)| g).collect(), n))
}
