//! The evaluator's training loop (`shogilab evaluator loop --config FILE`): generation after
//! generation, the current champion plays itself and writes positions scored by its search,
//! tch fits the next evaluator to the last generations' data, and an SPRT match at a time per
//! move gates it against the champion. A generation that passes becomes the champion.
//!
//! Everything lives in the run folder, each step's output written whole under its final name,
//! so a killed loop resumes at the first step whose output is missing:
//!
//! | file | step |
//! |---|---|
//! | `loop.toml` | the resolved config (a rerun with other settings is refused) |
//! | `gen-000.psq` | the starting evaluator (material, or the config's `start`) |
//! | `data-NNN/` | positions played by the champion of generation NNN |
//! | `gen-NNN.psq` | the evaluator fitted after generation NNN-1's data |
//! | `gate-NNN.json` | its SPRT match against the champion: W/D/L, score, interval, decision |

use serde::{Deserialize, Serialize};
use shogilab_engine::Variant;
use shogilab_eval::agent::Limits;
use shogilab_eval::search_agent::{load_evaluator, material, SearchAgent};
use shogilab_eval::{run_match, MatchConfig, Openings, Sprt, SprtDecision};
use shogilab_search::evaluator::file;
use shogilab_search::Options;
use shogilab_train::evaluator::data::{self, DataConfig, PlaySettings};
use shogilab_train::evaluator::fit::{self, FitConfig};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The loop's config file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopConfig {
    pub variant: String,
    /// Variant options, `NAME=VALUE`.
    #[serde(default)]
    pub options: Vec<String>,
    /// Generations to fit.
    pub generations: u32,
    pub seed: u64,
    /// The starting evaluator: a .psq file, or `material`.
    #[serde(default = "material_name")]
    pub start: String,
    pub datagen: PlaySettings,
    pub fit: FitConfig,
    /// Generations of data each fit reads (the newest ones).
    pub fit_window: u32,
    pub gate: GateSettings,
}

fn material_name() -> String {
    "material".into()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateSettings {
    pub max_games: usize,
    pub movetime_ms: u64,
    pub max_plies: u32,
    pub elo0: f64,
    pub elo1: f64,
}

/// The result of a gate, as `gate-NNN.json` holds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Gate {
    pub candidate: String,
    pub champion: String,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub score: f64,
    pub score_ci: (f64, f64),
    pub elo: f64,
    pub elo_ci: (f64, f64),
    /// `H1` (the candidate is better), `H0`, or `undecided` after the most games.
    pub decision: String,
}

type Error = Box<dyn std::error::Error + Send + Sync>;

fn gen_path(dir: &Path, g: u32) -> PathBuf {
    dir.join(format!("gen-{g:03}.psq"))
}

/// Run (or resume) the loop in `dir`; `log` gets a line per step.
pub fn run_loop(cfg: &LoopConfig, dir: &Path, log: &mut dyn FnMut(&str)) -> Result<(), Error> {
    let opts: Vec<(String, String)> = cfg
        .options
        .iter()
        .map(|o| {
            o.split_once('=')
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| format!("option {o:?} is not NAME=VALUE"))
        })
        .collect::<Result<_, _>>()?;
    let v = Variant::load(&cfg.variant, &opts)?;
    std::fs::create_dir_all(dir)?;
    save_config(cfg, dir)?;
    if !gen_path(dir, 0).exists() {
        let start =
            if cfg.start == "material" { material(&v) } else { load_evaluator(&v, &cfg.start)? };
        file::save(&start, &gen_path(dir, 0), &format!("start: {}", cfg.start))?;
    }
    let mut champion = 0;
    for g in 0..cfg.generations {
        let data_dir = dir.join(format!("data-{g:03}"));
        log(&format!("generation {g}: data from gen-{champion:03}"));
        datagen(&v, cfg, &gen_path(dir, champion), &data_dir, g)?;
        let next = gen_path(dir, g + 1);
        if !next.exists() {
            let dirs: Vec<PathBuf> = (g.saturating_sub(cfg.fit_window.max(1) - 1)..=g)
                .map(|k| dir.join(format!("data-{k:03}")))
                .collect();
            fit_next(&v, cfg, &gen_path(dir, champion), &dirs, &next, log)?;
        }
        let gate = gate(&v, cfg, dir, g + 1, champion, log)?;
        log(&format!(
            "gate gen-{:03} vs gen-{champion:03}: +{} ={} -{} score {:.3} [{:.3}, {:.3}] {}",
            g + 1,
            gate.wins,
            gate.draws,
            gate.losses,
            gate.score,
            gate.score_ci.0,
            gate.score_ci.1,
            gate.decision
        ));
        if gate.decision == "H1" {
            champion = g + 1;
        }
    }
    log(&format!("champion: gen-{champion:03}"));
    Ok(())
}

/// Write the resolved config, or refuse one that differs from the saved one.
fn save_config(cfg: &LoopConfig, dir: &Path) -> Result<(), Error> {
    let path = dir.join("loop.toml");
    let text = toml::to_string(cfg)?;
    match std::fs::read_to_string(&path) {
        Ok(saved) => {
            let saved: LoopConfig =
                toml::from_str(&saved).map_err(|e| format!("{}: {e}", path.display()))?;
            if &saved != cfg {
                return Err(format!("{}: this run was started with other settings; use another folder or the same config", path.display()).into());
            }
            Ok(())
        }
        Err(_) => {
            let tmp = path.with_extension("toml.tmp");
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, &path)?;
            Ok(())
        }
    }
}

fn datagen(
    v: &Arc<Variant>,
    cfg: &LoopConfig,
    eval: &Path,
    out: &Path,
    g: u32,
) -> Result<(), Error> {
    let (psq, _) = file::load(v, eval)?;
    let dc = DataConfig {
        variant: v.name.clone(),
        evaluator: eval.display().to_string(),
        play: cfg.datagen.clone(),
        seed: cfg.seed.wrapping_add(g as u64 * 1_000_003),
    };
    data::generate(v, Arc::new(psq), &dc, out, &|_| {})?;
    Ok(())
}

fn fit_next(
    v: &Arc<Variant>,
    cfg: &LoopConfig,
    init: &Path,
    dirs: &[PathBuf],
    out: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<(), Error> {
    let (start, _) = file::load(v, init)?;
    let mut samples = Vec::new();
    for d in dirs {
        samples.extend(data::read(d, v)?);
    }
    let f = &cfg.fit;
    let (psq, r) = fit::fit(&start, &samples, f, cfg.seed, &mut |_, _, _| {})?;
    let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let source = format!(
        "fit to {} positions of {} from {} (lambda {}, scale {:.0}, held-out loss {:.5} -> {:.5} at epoch {})",
        r.train_positions, names.join(" "), init.display(), f.lambda, r.scale, r.holdout_loss[0], r.holdout_loss[r.best_epoch], r.best_epoch
    );
    log(&format!("{}: {source}", out.display()));
    file::save(&psq, out, &source)?;
    Ok(())
}

fn gate(
    v: &Arc<Variant>,
    cfg: &LoopConfig,
    dir: &Path,
    candidate: u32,
    champion: u32,
    log: &mut dyn FnMut(&str),
) -> Result<Gate, Error> {
    let path = dir.join(format!("gate-{candidate:03}.json"));
    if let Ok(text) = std::fs::read_to_string(&path) {
        return Ok(serde_json::from_str(&text)?);
    }
    let agent = |g: u32| -> Result<SearchAgent, Error> {
        let p = gen_path(dir, g);
        let (psq, _) = file::load(v, &p)?;
        Ok(SearchAgent::new(
            Arc::new(psq),
            Options::default(),
            64,
            format!("search:{}", p.display()),
        ))
    };
    let (mut a, mut b) = (agent(candidate)?, agent(champion)?);
    let g = &cfg.gate;
    let mc = MatchConfig {
        games: g.max_games,
        max_plies: g.max_plies,
        limits: Limits { movetime_ms: Some(g.movetime_ms), nodes: None },
        openings: Openings::Random { plies: 4, still_royals: true },
        seed: cfg.seed.wrapping_add(candidate as u64),
        sprt: Some(Sprt::new(g.elo0, g.elo1, 0.05, 0.05)),
        task: None,
    };
    let mut n = 0;
    let r = run_match(&mut a, &mut b, v, &mc, &mut |_| {
        n += 1;
    })?;
    log(&format!("gate of gen-{candidate:03}: {n} games"));
    let decision = match r.sprt.map(|s| s.decision) {
        Some(SprtDecision::AcceptH1) => "H1",
        Some(SprtDecision::AcceptH0) => "H0",
        _ => "undecided",
    };
    let s = &r.summary;
    let gate = Gate {
        candidate: r.a.clone(),
        champion: r.b.clone(),
        wins: r.tally.wins,
        draws: r.tally.draws,
        losses: r.tally.losses,
        score: s.score,
        score_ci: s.score_ci,
        elo: s.elo,
        elo_ci: s.elo_ci,
        decision: decision.into(),
    };
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, serde_json::to_string_pretty(&gate)?)?;
    std::fs::rename(&tmp, &path)?;
    Ok(gate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_config_parses_and_an_unknown_key_is_refused() {
        let text = include_str!("../../configs/evaluator/chu.toml");
        let cfg: LoopConfig = toml::from_str(text).unwrap();
        assert_eq!((cfg.variant.as_str(), cfg.fit_window), ("chu", 2));
        let bad = text.replace("[gate]", "[gate]\nmovetim = 3");
        let err = toml::from_str::<LoopConfig>(&bad).unwrap_err().to_string();
        assert!(err.contains("movetim"), "{err}");
    }
}
