//! Round robins (every pair) and gauntlets (the first agent against each other one) among
//! several agents, with one maximum-likelihood Elo table over all games (the first agent
//! anchored at 0).

use crate::agent::Agent;
use crate::elo::{fit, EloError, PairResult};
use crate::play::PlayError;
use crate::r#match::{run_match, GameRecord, MatchConfig, MatchResult};
use serde::Serialize;
use shogilab_engine::Variant;
use std::sync::Arc;

/// Which pairs play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GauntletMode {
    RoundRobin,
    /// Agent 0 against every other agent.
    Gauntlet,
}

#[derive(Debug, Clone)]
pub struct GauntletConfig {
    pub mode: GauntletMode,
    /// Settings of every pairing (`games` = games per pair).
    pub per_pair: MatchConfig,
}

/// One row of the Elo table.
#[derive(Debug, Clone, Serialize)]
pub struct EloRow {
    pub name: String,
    pub elo: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub stderr: f64,
    pub games: f64,
    pub points: f64,
    pub forfeits: usize,
}

/// All matches and the table.
#[derive(Debug, Clone)]
pub struct GauntletResult {
    pub matches: Vec<(usize, usize, MatchResult)>,
    pub table: Vec<EloRow>,
    pub anchor: String,
    pub regularized: bool,
}

impl GauntletResult {
    /// The table as Markdown, best first.
    pub fn markdown(&self) -> String {
        let mut rows: Vec<&EloRow> = self.table.iter().collect();
        rows.sort_by(|a, b| b.elo.total_cmp(&a.elo));
        let mut s = String::from(
            "| rank | agent | Elo | 95% CI | games | score | forfeits |\n|---:|---|---:|---|---:|---:|---:|\n",
        );
        for (i, r) in rows.iter().enumerate() {
            s.push_str(&format!(
                "| {} | {} | {:+.1} | [{:+.1}, {:+.1}] | {} | {:.1}% | {} |\n",
                i + 1,
                r.name,
                r.elo,
                r.ci_low,
                r.ci_high,
                r.games,
                if r.games > 0.0 { 100.0 * r.points / r.games } else { 0.0 },
                r.forfeits
            ));
        }
        s.push_str(&format!(
            "\nAnchor: {} = 0. Maximum-likelihood Bradley-Terry fit over all games{}.\n",
            self.anchor,
            if self.regularized {
                " (a perfect score somewhere: one virtual draw added per pair)"
            } else {
                ""
            }
        ));
        s
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GauntletError {
    #[error(transparent)]
    Play(#[from] PlayError),
    #[error(transparent)]
    Elo(#[from] EloError),
    #[error("need at least two agents")]
    TooFew,
}

/// Run the pairings and fit the table. `on_game(i, j, record)` sees every game.
pub fn run_gauntlet(
    agents: &mut [Box<dyn Agent>],
    variant: &Arc<Variant>,
    cfg: &GauntletConfig,
    on_game: &mut dyn FnMut(usize, usize, &GameRecord),
) -> Result<GauntletResult, GauntletError> {
    let n = agents.len();
    if n < 2 {
        return Err(GauntletError::TooFew);
    }
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if cfg.mode == GauntletMode::RoundRobin || i == 0 {
                pairs.push((i, j));
            }
        }
    }
    let mut matches = Vec::new();
    let mut forfeits = vec![0usize; n];
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let (lo, hi) = agents.split_at_mut(j);
        let a = &mut lo[i];
        let b = &mut hi[0];
        let mut mc = cfg.per_pair.clone();
        mc.seed = cfg.per_pair.seed.wrapping_add(k as u64 * 7919);
        let r = run_match(a.as_mut(), b.as_mut(), variant, &mc, &mut |g| on_game(i, j, g))?;
        for g in &r.games {
            if let Some((c, _)) = &g.result.forfeit {
                let a_lost = (*c == shogilab_engine::Color::Black) == g.a_black;
                forfeits[if a_lost { i } else { j }] += 1;
            }
        }
        matches.push((i, j, r));
    }
    let results: Vec<PairResult> = matches
        .iter()
        .map(|(i, j, r)| PairResult {
            a: *i,
            b: *j,
            score_a: r.wins as f64 + 0.5 * r.draws as f64,
            games: r.games.len() as f64,
        })
        .collect();
    let f = fit(n, &results, 0)?;
    let table = (0..n)
        .map(|i| EloRow {
            name: agents[i].name(),
            elo: f.ratings[i],
            ci_low: f.ci95[i].0,
            ci_high: f.ci95[i].1,
            stderr: f.stderr[i],
            games: f.games[i],
            points: f.points[i],
            forfeits: forfeits[i],
        })
        .collect();
    Ok(GauntletResult { matches, table, anchor: agents[0].name(), regularized: f.regularized })
}
