//! The `search` agent: the searching engine of `shogilab-search` (principal-variation
//! alpha-beta with its piece-square evaluator) as a match player.
//!
//! Spec: `search[:EVAL][:depth=N][:hash=MB][:contempt=CP][:off=FEATURE+FEATURE...]`. EVAL is an evaluator
//! file (`.psq`) of the variant, or `material` (the default: mobility values with the royal
//! floor, no positional terms). Without a per-move limit the search goes to `depth` (default
//! 6). `off` turns search features off, to measure what each is worth: `null`, `lmr`,
//! `futility`, `aspiration`, `see`, `check`.

use crate::agent::{Agent, AgentError, Choice, LimitSupport, Limits, ThinkRequest};
use shogilab_engine::{Game, Variant};
use shogilab_search::evaluator::{file, Psq};
use shogilab_search::{Engine, Options, TimeControl};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The searching engine as an agent.
pub struct SearchAgent {
    engine: Engine,
    depth: u32,
    name: String,
    nodes: u64,
}

/// The evaluator named by a spec: a file, or material from mobility.
pub fn load_evaluator(variant: &Arc<Variant>, eval: &str) -> Result<Psq, String> {
    if eval == "material" {
        return Ok(material(variant));
    }
    file::load(variant, Path::new(eval)).map(|(psq, _)| psq).map_err(|e| e.to_string())
}

/// The starting evaluator: each kind worth its mobility (royals floored above every other
/// kind), half of it flat and half by square (a piece is worth more where it has more moves;
/// royals flat, so that nothing draws a king forward).
pub fn material(variant: &Arc<Variant>) -> Psq {
    use shogilab_engine::material::{mobility_by_square, royal_floor};
    let by_square = mobility_by_square(variant);
    let mut values: Vec<f32> =
        by_square.iter().map(|row| row.iter().sum::<f32>() / row.len() as f32).collect();
    royal_floor(variant, &mut values);
    let squares = variant.squares.len();
    let mut board = Vec::with_capacity(values.len() * squares);
    for (t, row) in by_square.iter().enumerate() {
        let royal = variant.types[t].royal;
        // Black's square order is the relative order: a Black piece's own view
        board.extend(row.iter().map(|&m| {
            let v = if royal { values[t] } else { 0.5 * values[t] + 0.5 * m };
            (v * 100.0).round() as i32
        }));
    }
    let hand =
        variant.hand_types.iter().map(|&t| (values[t as usize] * 100.0).round() as i32).collect();
    Psq::new(Arc::clone(variant), board, hand, 0, 600.0).expect("shapes built from the variant")
}

/// Parse `search[:...]` (the part after `search`, if any).
pub fn parse(
    spec: &str,
    rest: Option<&str>,
    variant: &Arc<Variant>,
) -> Result<SearchAgent, AgentError> {
    let bad = |reason: String| AgentError::Spec { spec: spec.to_string(), reason };
    let (mut eval, mut depth, mut options) = ("material".to_string(), 6u32, Options::default());
    for part in rest.into_iter().flat_map(|r| r.split(':')) {
        match part.split_once('=') {
            Some(("depth", d)) => {
                depth = d.parse().map_err(|_| bad(format!("depth {d:?} is not a number")))?
            }
            Some(("contempt", c)) => {
                options.contempt = c
                    .parse()
                    .map_err(|_| bad(format!("contempt {c:?} is not a number of centipawns")))?
            }
            Some(("hash", h)) => {
                options.hash_mb =
                    h.parse().map_err(|_| bad(format!("hash {h:?} is not a number of MiB")))?
            }
            Some(("off", list)) => {
                for f in list.split('+') {
                    turn_off(&mut options, f).map_err(bad)?;
                }
            }
            Some((k, _)) => {
                return Err(bad(format!(
                    "unknown setting {k:?}; expected depth, hash, contempt or off"
                )))
            }
            None => eval = part.to_string(),
        }
    }
    if !(1..=64).contains(&depth) {
        return Err(bad(format!("depth {depth} must be 1..64")));
    }
    if !(1..=65536).contains(&options.hash_mb) {
        return Err(bad(format!("hash {} MiB must be 1..65536", options.hash_mb)));
    }
    let psq = load_evaluator(variant, &eval).map_err(bad)?;
    Ok(SearchAgent::new(Arc::new(psq), options, depth, spec.to_string()))
}

fn turn_off(o: &mut Options, feature: &str) -> Result<(), String> {
    let flag = match feature {
        "null" => &mut o.null_move,
        "lmr" => &mut o.late_move_reductions,
        "futility" => &mut o.futility,
        "aspiration" => &mut o.aspiration,
        "see" => &mut o.see_pruning,
        "check" => &mut o.check_extension,
        other => {
            return Err(format!(
                "unknown feature {other:?}; expected null, lmr, futility, aspiration, see or check"
            ))
        }
    };
    *flag = false;
    Ok(())
}

impl SearchAgent {
    pub fn new(psq: Arc<Psq>, options: Options, depth: u32, name: String) -> SearchAgent {
        SearchAgent { engine: Engine::new(psq, options), depth, name, nodes: 0 }
    }

    /// The engine, for analysis and reports.
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

impl Agent for SearchAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, _game: &Game) -> Result<(), AgentError> {
        self.engine.clear();
        Ok(())
    }

    fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError> {
        let mut l = shogilab_search::Limits { nodes: limits.nodes, ..Default::default() };
        match limits.movetime_ms {
            Some(ms) => l.time = TimeControl::MoveTime(Duration::from_millis(ms)),
            None if limits.nodes.is_none() => l.depth = Some(self.depth),
            None => {}
        }
        l.time.validate().map_err(|e| AgentError::Limit {
            agent: self.name.clone(),
            limit: "movetime".into(),
            reason: e.to_string(),
        })?;
        let out = self.engine.search(game, l, &mut |_| {}).ok_or(AgentError::NoLegalMove)?;
        self.nodes = out.nodes;
        Ok(Choice::Move(out.best))
    }

    fn limit_support(&self) -> LimitSupport {
        LimitSupport::ALL
    }

    fn last_nodes(&self) -> Option<u64> {
        Some(self.nodes)
    }

    fn can_think(&self) -> bool {
        true
    }

    fn think(
        &mut self,
        game: &Game,
        request: ThinkRequest,
        info: &mut dyn FnMut(&shogilab_search::Line),
    ) -> Option<Result<shogilab_search::Outcome, AgentError>> {
        if let Err(e) = request.limits.time.validate() {
            let limit = format!("{:?}", request.limits.time);
            return Some(Err(AgentError::Limit {
                agent: self.name.clone(),
                limit,
                reason: e.to_string(),
            }));
        }
        self.engine.set_multipv(request.multipv.max(1));
        let out = self.engine.search(game, request.limits, info).ok_or(AgentError::NoLegalMove);
        if let Ok(o) = &out {
            self.nodes = o.nodes;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shogilab_engine::Position;

    #[test]
    fn settings_reach_the_engine() {
        let v = Variant::builtin("chu").unwrap();
        let a =
            parse("search:depth=3:hash=8:off=null+lmr", Some("depth=3:hash=8:off=null+lmr"), &v)
                .unwrap();
        assert_eq!(a.depth, 3);
        let o = a.engine.options();
        assert_eq!(o.hash_mb, 8);
        assert!(!o.null_move && !o.late_move_reductions && o.futility);
    }

    #[test]
    fn bad_settings_and_files_are_named() {
        let v = Variant::builtin("chu").unwrap();
        let err = |rest: &str| parse("s", Some(rest), &v).err().unwrap().to_string();
        assert!(err("off=nul").contains("unknown feature \"nul\""));
        assert!(err("depth=0").contains("depth 0 must be 1..64"));
        assert!(err("nowhere.psq").contains("nowhere.psq"));
        assert!(err("color=1").contains("unknown setting \"color\""));
    }

    #[test]
    fn it_takes_a_free_rook_in_shogi() {
        let v = Variant::builtin("shogi").unwrap();
        let pos = Position::from_sfen(
            &v,
            "lnsgkgsnl/7b1/ppppppppp/9/9/4r4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        )
        .unwrap();
        let mut a = parse("search", None, &v).unwrap();
        let game = Game::new(pos);
        let Choice::Move(m) =
            a.choose(&game, &Limits { nodes: Some(20_000), ..Limits::default() }).unwrap()
        else {
            panic!("no move")
        };
        assert_eq!(game.position().move_to_usi(m), "5g5f");
    }
}
