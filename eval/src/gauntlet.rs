//! Round robins (every pair) and gauntlets (the first agent against each other one) among
//! several agents, with one maximum-likelihood Elo table over all games (the first agent
//! anchored at 0). [`plan`] and [`fit_table`] are the two halves of [`run_gauntlet`], for
//! callers that play (or reuse) the pairings themselves, such as the strength ladder.

use crate::agent::Agent;
use crate::elo::{fit, EloError, PairResult};
use crate::play::PlayError;
use crate::r#match::{run_match, GameRecord, MatchConfig, MatchResult, Tally};
use serde::{Deserialize, Serialize};
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
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EloRow {
    pub name: String,
    pub elo: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub stderr: f64,
    pub games: f64,
    pub points: f64,
    /// Games this agent forfeited (`tally.forfeit_losses`).
    pub forfeits: usize,
    /// The agent's W/D/L over all its games, forfeits apart.
    pub tally: Tally,
}

impl EloRow {
    /// The result columns of the Elo tables: games, wins over the board, wins by forfeit,
    /// draws, losses over the board, losses by forfeit, score in percent.
    pub fn result_cells(&self) -> String {
        let t = &self.tally;
        let (won, lost) = t.over_the_board();
        let score = if self.games > 0.0 { 100.0 * self.points / self.games } else { 0.0 };
        format!(
            "{} | {won} | {} | {} | {lost} | {} | {score:.1}%",
            self.games, t.forfeit_wins, t.draws, t.forfeit_losses,
        )
    }
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
    /// The table as Markdown ([`table_markdown`]).
    pub fn markdown(&self) -> String {
        table_markdown(&self.table, &self.anchor, self.regularized)
    }
}

/// An Elo table as Markdown, best first, wins and losses over the board and by forfeit in
/// separate columns; `anchor` is the agent at 0, `regularized` whether the fit added virtual
/// draws.
pub fn table_markdown(table: &[EloRow], anchor: &str, regularized: bool) -> String {
    let mut rows: Vec<&EloRow> = table.iter().collect();
    rows.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    let mut s = String::from(
        "| rank | agent | Elo | 95% CI | games | W over the board | W by forfeit | D | \
         L over the board | L by forfeit | score |\n\
         |---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (i, r) in rows.iter().enumerate() {
        s.push_str(&format!(
            "| {} | {} | {:+.1} | [{:+.1}, {:+.1}] | {} |\n",
            i + 1,
            r.name,
            r.elo,
            r.ci_low,
            r.ci_high,
            r.result_cells(),
        ));
    }
    s.push_str(&format!(
        "\nAnchor: {anchor} = 0. Maximum-likelihood Bradley-Terry fit over all games{}. A forfeit \
         (crash, hang, illegal move, refusal of a legal move) scores as a loss of the side \
         that forfeited; the columns tell those games apart from results over the board.\n",
        if regularized {
            " (a perfect score somewhere: one virtual draw added per pair)"
        } else {
            ""
        }
    ));
    s
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

/// The pairings of a gauntlet in playing order, each with its match settings: pair `k` plays
/// with seed `per_pair.seed + 7919 k`, so a pairing's games do not depend on the others.
pub fn plan(n: usize, cfg: &GauntletConfig) -> Vec<(usize, usize, MatchConfig)> {
    let mut pairs = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if cfg.mode == GauntletMode::RoundRobin || i == 0 {
                pairs.push((i, j));
            }
        }
    }
    pairs
        .into_iter()
        .enumerate()
        .map(|(k, (i, j))| {
            let mut mc = cfg.per_pair.clone();
            mc.seed = cfg.per_pair.seed.wrapping_add(k as u64 * 7919);
            (i, j, mc)
        })
        .collect()
}

/// The Elo table of `names` (agent 0 anchored at 0) from the pairings' tallies, each `(i, j,
/// tally from i's side)`; also whether the fit was regularized.
pub fn fit_table(
    names: &[String],
    pairs: &[(usize, usize, Tally)],
) -> Result<(Vec<EloRow>, bool), GauntletError> {
    let n = names.len();
    if n < 2 {
        return Err(GauntletError::TooFew);
    }
    let results: Vec<PairResult> = pairs
        .iter()
        .map(|(i, j, t)| PairResult { a: *i, b: *j, score_a: t.points(), games: t.games() as f64 })
        .collect();
    let f = fit(n, &results, 0)?;
    let mut tallies = vec![Tally::default(); n];
    for (i, j, t) in pairs {
        tallies[*i] = tallies[*i].plus(t);
        tallies[*j] = tallies[*j].plus(&t.flipped());
    }
    let table = (0..n)
        .map(|i| EloRow {
            name: names[i].clone(),
            elo: f.ratings[i],
            ci_low: f.ci95[i].0,
            ci_high: f.ci95[i].1,
            stderr: f.stderr[i],
            games: f.games[i],
            points: f.points[i],
            forfeits: tallies[i].forfeit_losses as usize,
            tally: tallies[i],
        })
        .collect();
    Ok((table, f.regularized))
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
    let mut matches = Vec::new();
    for (i, j, mc) in plan(n, cfg) {
        let (lo, hi) = agents.split_at_mut(j);
        let (a, b) = (&mut lo[i], &mut hi[0]);
        let r = run_match(a.as_mut(), b.as_mut(), variant, &mc, &mut |g| on_game(i, j, g))?;
        matches.push((i, j, r));
    }
    let names: Vec<String> = agents.iter().map(|a| a.name()).collect();
    let tallies: Vec<(usize, usize, Tally)> =
        matches.iter().map(|(i, j, r)| (*i, *j, r.tally)).collect();
    let (table, regularized) = fit_table(&names, &tallies)?;
    Ok(GauntletResult { matches, table, anchor: names[0].clone(), regularized })
}
