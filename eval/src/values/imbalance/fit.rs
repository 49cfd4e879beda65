//! The fits of the imbalance games: the logistic regression of the results on the setups'
//! differences in material (clusters are setups, resampled together), and the regression on
//! the quiet positions of the games.

use super::{agents_in, logged_move, rules_of, start_of, GameLine, ImbalanceError};
use crate::values::stats::{logistic_fit, pearson, ratio, ratio_bootstrap, spearman, Design};
use crate::values::{
    estimates_from, positions_fit_notes, unit_notes, width_curve, Kinds, MethodResult,
};
use shogilab_engine::{Color, Position, Variant};
use std::collections::HashMap;
use std::sync::Arc;

/// Games in a stable order: setup rules in the order they first appear in the log, then setup
/// and colour; the cluster key of a game is (setup rules, setup).
fn ordered(games: &[GameLine]) -> Vec<(usize, &GameLine)> {
    let agents = agents_in(games);
    let mut out: Vec<(usize, &GameLine)> =
        games.iter().map(|g| (agents.iter().position(|a| *a == g.agent).unwrap_or(0), g)).collect();
    out.sort_by_key(|(r, g)| (*r, g.setup, g.swap));
    out
}

/// The regression rows of a set of games: intercept (Black moves first) + per-kind differences;
/// clusters are setups (both colours of a setup resampled together), numbered by setup order.
pub fn design(kinds: &Kinds, games: &[GameLine]) -> Result<Design, ImbalanceError> {
    let mut d = Design::new(1 + kinds.len());
    let mut cluster_of: HashMap<(usize, usize), usize> = HashMap::new();
    for (r, g) in ordered(games) {
        let mut x = vec![0.0; 1 + kinds.len()];
        x[0] = 1.0;
        for (name, n) in &g.diff {
            let k = kinds.index(name).ok_or_else(|| ImbalanceError::UnknownKind {
                setup: g.setup,
                swap: g.swap,
                kind: name.clone(),
            })?;
            x[1 + k] = *n as f64;
        }
        let next = cluster_of.len();
        let c = *cluster_of.entry((r, g.setup)).or_insert(next);
        d.push(&x, g.result.clamp(0.0, 1.0), 1.0, c);
    }
    Ok(d)
}

/// When the games come from several setup rules: each rule set fitted alone (point estimates),
/// so that a reader sees whether pooling them is sound (the model is the same for all rules;
/// a pawn coefficient that differs between them shows where it is not quite).
fn per_rules_note(kinds: &Kinds, games: &[GameLine], unit: usize, ridge: f64) -> Option<String> {
    let rules = agents_in(games);
    if rules.len() < 2 {
        return None;
    }
    let mut parts = Vec::new();
    let mut values: Vec<Vec<f64>> = Vec::new();
    for r in &rules {
        let own: Vec<GameLine> = games.iter().filter(|g| g.agent == *r).cloned().collect();
        let d = design(kinds, &own).ok()?;
        let fit = logistic_fit(&d, None, ridge);
        let coef = fit.beta[1 + unit];
        parts.push(format!(
            "`{}` ({} games) {} coefficient {coef:.4}",
            rules_of(r),
            own.len(),
            kinds.unit_name()
        ));
        values.push((0..kinds.len()).map(|k| ratio(fit.beta[1 + k], coef)).collect());
    }
    let (a, b): (Vec<f64>, Vec<f64>) = values[0]
        .iter()
        .zip(&values[values.len() - 1])
        .enumerate()
        .filter(|(k, (x, y))| *k != unit && x.is_finite() && y.is_finite())
        .map(|(_, (x, y))| (*x, *y))
        .unzip();
    if a.len() < 3 {
        return Some(format!(
            "setup rules fitted alone: {}; no comparison of their values (a rule set without a positive {name} coefficient has none in {name} units)",
            parts.join(", "),
            name = kinds.unit_name()
        ));
    }
    let mut ratios: Vec<f64> =
        a.iter().zip(&b).filter(|(x, _)| **x > 0.5).map(|(x, y)| y / x).collect();
    ratios.sort_by(|x, y| x.total_cmp(y));
    let median = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
    Some(format!(
        "setup rules fitted alone: {}; the first and last rules' values correlate at Pearson {:.2} (Spearman {:.2}) over {} kinds, the last's are {:.2} times the first's (median ratio over kinds worth more than half a {})",
        parts.join(", "),
        pearson(&a, &b),
        spearman(&a, &b),
        a.len(),
        median,
        kinds.unit_name()
    ))
}

/// Fit the imbalance games.
pub fn fit(
    kinds: &Kinds,
    games: &[GameLine],
    resamples: usize,
    seed: u64,
    description: String,
) -> Result<MethodResult, ImbalanceError> {
    let unit = kinds.unit.ok_or(ImbalanceError::NoUnit)?;
    let d = design(kinds, games)?;
    if d.rows() == 0 {
        return Err(ImbalanceError::NoGames);
    }
    let ridge = 1e-3;
    let r = ratio_bootstrap(&d, 1 + unit, ridge, resamples, seed);
    let mut estimates = estimates_from(kinds, &r, 1);
    let (curve, effect_curve) =
        width_curve(&d, 1 + unit, 1, kinds.len(), ridge, (resamples / 2).max(50), seed, &|s| {
            s.rows() as f64
        });
    let mut notes = Vec::new();
    let decisive = games.iter().filter(|g| g.result != 0.5).count();
    notes.push(format!(
        "{} games from {} setups, {} decisive ({:.0}%), first-move coefficient {:.3} (logit), {} coefficient {:.4}",
        games.len(),
        d.clusters,
        decisive,
        100.0 * decisive as f64 / games.len().max(1) as f64,
        r.fit.beta[0],
        kinds.unit_name(),
        r.fit.beta[1 + unit]
    ));
    notes.extend(unit_notes(kinds, &r, 1));
    if let Some(n) = per_rules_note(kinds, games, unit, ridge) {
        notes.push(n);
    }
    for (k, e) in estimates.iter_mut().enumerate() {
        if e.value.is_nan() && kinds.royal[k] {
            notes.push(format!("{}: never differs between the sides (royal)", e.piece));
        }
    }
    Ok(MethodResult {
        method: "imbalance".into(),
        description,
        estimates,
        games: games.len(),
        samples: d.rows(),
        curve,
        effect_curve,
        notes,
        ..Default::default()
    }
    .with_draws(kinds, &r, 1))
}

/// Texel-style rows from the positions of the logged games (those that record their moves):
/// Black's result regressed on the material difference of every quiet position (the move
/// played from it changes no material), with a constant and a side-to-move term; identical
/// rows of a game are merged; clusters are setups, as for [`design`].
pub fn position_design(
    v: &Arc<Variant>,
    kinds: &Kinds,
    games: &[GameLine],
) -> Result<(Design, usize), ImbalanceError> {
    let p = 2 + kinds.len();
    let mut d = Design::new(p);
    let mut cluster_of: HashMap<(usize, usize), usize> = HashMap::new();
    let mut quiet = 0;
    for (r, g) in ordered(games).into_iter().filter(|(_, g)| !g.moves.is_empty()) {
        let next = cluster_of.len();
        let cluster = *cluster_of.entry((r, g.setup)).or_insert(next);
        let mut pos = start_of(v, g)?;
        let mut rows: Vec<Vec<f64>> = Vec::new();
        let row = |pos: &Position| -> Vec<f64> {
            let mut x = Vec::with_capacity(p);
            x.push(1.0);
            x.push(if pos.side_to_move() == Color::Black { 1.0 } else { -1.0 });
            x.extend(kinds.diff(pos, Color::Black));
            x
        };
        rows.push(row(&pos));
        for (i, mv) in g.moves.split_whitespace().enumerate() {
            let m = logged_move(&pos, g, i, mv)?;
            pos.play(m);
            rows.push(row(&pos));
        }
        let mut index: HashMap<Vec<i64>, usize> = HashMap::new();
        let y = g.result.clamp(0.0, 1.0);
        for i in 0..rows.len() {
            if i + 1 < rows.len() && rows[i][2..] != rows[i + 1][2..] {
                continue;
            }
            quiet += 1;
            let key: Vec<i64> = rows[i].iter().map(|x| *x as i64).collect();
            match index.get(&key) {
                Some(&r) => d.w[r] += 1.0,
                None => {
                    index.insert(key, d.rows());
                    d.push(&rows[i], y, 1.0, cluster);
                }
            }
        }
    }
    d.clusters = cluster_of.len();
    Ok((d, quiet))
}

/// Fit the positions of the logged games ([`position_design`]); `None` when no game records
/// its moves.
pub fn fit_positions(
    v: &Arc<Variant>,
    kinds: &Kinds,
    games: &[GameLine],
    resamples: usize,
    seed: u64,
    description: String,
) -> Result<Option<MethodResult>, ImbalanceError> {
    let unit = kinds.unit.ok_or(ImbalanceError::NoUnit)?;
    let (d, quiet) = position_design(v, kinds, games)?;
    if d.rows() == 0 {
        return Ok(None);
    }
    let with_moves = games.iter().filter(|g| !g.moves.is_empty()).count();
    let ridge = 1e-3;
    let r = ratio_bootstrap(&d, 2 + unit, ridge, resamples, seed);
    let estimates = estimates_from(kinds, &r, 2);
    let (curve, effect_curve) =
        width_curve(&d, 2 + unit, 2, kinds.len(), ridge, (resamples / 2).max(50), seed, &|s| {
            // clusters are setups of (up to) two games
            (s.clusters as f64) * with_moves as f64 / d.clusters.max(1) as f64
        });
    let head = format!(
        "{with_moves} games ({} setups) with recorded moves, {quiet} quiet positions ({} weighted rows)",
        d.clusters,
        d.rows()
    );
    let notes = positions_fit_notes(head, kinds, &r, &estimates, "");
    Ok(Some(
        MethodResult {
            method: "imbalance-positions".into(),
            description,
            estimates,
            games: with_moves,
            samples: quiet,
            curve,
            effect_curve,
            notes,
            ..Default::default()
        }
        .with_draws(kinds, &r, 2),
    ))
}
