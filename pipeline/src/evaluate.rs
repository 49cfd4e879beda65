//! The evaluation stage: a match between two agents (in the pipeline, the new network against
//! the previous one) shown as a progress bar, written to its folder (`games.txt`,
//! `games.jsonl`, `games.log` with one line per game, `match.json`, `match.md`) and returned
//! as a typed [`MatchRecord`]. A folder that already holds `match.json` is read back instead of
//! played again.

use crate::error::PipelineError;
use crate::evaluators::checkpoint_for_spec;
use indicatif::{ProgressBar, ProgressStyle};
use shogilab_engine::Variant;
use shogilab_eval::agent::Limits;
use shogilab_eval::r#match::{run_match, MatchConfig};
use shogilab_eval::record::{read_match_record, write_match_dir, MatchRecord};
use shogilab_eval::Openings;
use shogilab_eval::{parse_agent_spec, Agent};
use std::path::PathBuf;
use std::sync::Arc;

/// One evaluation match.
#[derive(Debug, Clone)]
pub struct EvalJob {
    /// Agent specs (see [`shogilab_eval::spec`]); results are from `a`'s side.
    pub a: String,
    pub b: String,
    pub games: usize,
    /// Ply cap per game (a draw when reached); 0 = none.
    pub max_plies: u32,
    /// Random plies of each opening (shared by each colour-swapped pair).
    pub opening_plies: usize,
    pub seed: u64,
    /// The match folder.
    pub out: PathBuf,
}

/// An agent from a spec; checkpoints (`mcts:PATH.ot`) load in the variant they were trained
/// for.
pub fn make_agent(
    spec: &str,
    v: &Arc<Variant>,
    seed: u64,
) -> Result<Box<dyn Agent>, PipelineError> {
    Ok(parse_agent_spec(spec, v, seed, &checkpoint_for_spec)?)
}

/// Play the match (or read the finished one back) and return its record.
pub fn run_evaluation(v: &Arc<Variant>, job: &EvalJob) -> Result<MatchRecord, PipelineError> {
    if let Some(done) = read_match_record(&job.out)? {
        return Ok(done);
    }
    let mut a = make_agent(&job.a, v, job.seed)?;
    let mut b = make_agent(&job.b, v, job.seed.wrapping_add(1))?;
    let cfg = MatchConfig {
        games: job.games,
        max_plies: job.max_plies,
        limits: Limits::default(),
        openings: Openings::random(job.opening_plies),
        seed: job.seed,
        sprt: None,
        task: None,
    };
    let bar = ProgressBar::new(job.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let (mut w, mut d, mut l) = (0, 0, 0);
    let r = run_match(a.as_mut(), b.as_mut(), v, &cfg, &mut |g| {
        match g.score_a() {
            s if s > 0.75 => w += 1,
            s if s < 0.25 => l += 1,
            _ => d += 1,
        }
        bar.inc(1);
        bar.set_message(format!("+{w} ={d} -{l}"));
    })?;
    bar.finish_and_clear();
    Ok(write_match_dir(&job.out, &r, &v.name)?)
}
