//! The generation loop: generations of self-play -> training -> evaluation of the new network
//! against the previous one, in one run directory. Every stage writes its outputs atomically and
//! is skipped when they exist, so running the same configuration again continues where it
//! stopped; a run directory whose `run.toml` records other settings is refused (only
//! `generations` may grow).
//!
//! Layout: `selfplay/gen-G/` (Parquet shards), `models/gen-G.ot` (+ `.json`, `.csv`, `.png`),
//! `eval/gen-G/` (the match against the previous generation: `match.json` is read back as data,
//! `games.log` has a line per game), `run.toml`, `loss.png` (training loss over all
//! generations), `report.md`.

use crate::anchors::{play_anchors, points, write_curve, AnchorPoint};
use crate::compute::{cores, ComputeLog, StageTime};
use crate::config::PipelineConfig;
use crate::error::PipelineError;
use crate::evaluate::{run_evaluation, EvalJob};
use crate::selfplay::{run_selfplay, SelfplayJob, SelfplaySummary};
use crate::settings::diff_tables;
use crate::teacher::{run_teacher, TeacherJob};
use crate::train::{loss_chart, run_train, TrainJob, TrainSummary};
use shogilab_engine::Variant;
use shogilab_eval::record::MatchRecord;
use shogilab_fsio::write_atomic;
use shogilab_selfplay::encode::Encoder;
use shogilab_store::Store;
use shogilab_train::checkpoint;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What one generation did.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationReport {
    pub generation: u32,
    /// The self-play evaluator: `uniform` or the previous checkpoint.
    pub selfplay_evaluator: String,
    pub selfplay: SelfplaySummary,
    /// The checkpoint this generation trained.
    pub model: PathBuf,
    /// `None` when the checkpoint existed already (a continued run).
    pub train: Option<TrainSummary>,
    /// The new network against the previous one; `None` when `eval.games` is 0.
    pub eval: Option<MatchRecord>,
    /// The new network against each anchor (`eval.anchors`).
    pub anchors: Vec<(String, MatchRecord)>,
}

/// What a pipeline run holds after [`run_pipeline`].
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineReport {
    pub variant: String,
    /// The teacher network (`models/gen-0000.ot`) when the run starts from teacher data.
    pub teacher: Option<PathBuf>,
    pub generations: Vec<GenerationReport>,
    /// Every network against every anchor, with the CPU-hours that made it.
    pub curve: Vec<AnchorPoint>,
}

impl PipelineReport {
    /// The report as Markdown (`report.md`).
    pub fn markdown(&self) -> String {
        let mut md = format!(
            "# Pipeline run: {}\n\n| generation | self-play evaluator | games | positions | new \
             model | vs previous: W/D/L | score [95% CI] | Elo [95% CI] |\n\
             |---|---|---:|---:|---|---|---|---|\n",
            self.variant
        );
        for g in &self.generations {
            let (wdl, score, elo) = match &g.eval {
                Some(e) => (
                    format!("+{} ={} -{}", e.wins, e.draws, e.losses),
                    format!("{:.3} [{:.3}, {:.3}]", e.score, e.score_ci95[0], e.score_ci95[1]),
                    format!("{:+.1} [{:+.1}, {:+.1}]", e.elo, e.elo_ci95[0], e.elo_ci95[1]),
                ),
                None => ("not evaluated".into(), String::new(), String::new()),
            };
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} | {wdl} | {score} | {elo} |\n",
                g.generation,
                g.selfplay_evaluator,
                g.selfplay.games,
                g.selfplay.positions,
                g.model.display()
            ));
        }
        md.push_str("\nTraining loss over all generations: loss.png. Settings: run.toml.\n");
        md.push_str(&self.curve_markdown());
        md
    }

    /// The anchor table (empty without anchors).
    fn curve_markdown(&self) -> String {
        if self.curve.is_empty() {
            return String::new();
        }
        let mut md = String::from(
            "\n## Against the anchors (curve.csv, elo-by-generation.png, elo-by-cpu-hours.png)\n\n\
             W/D/L over the board; games won or lost by a forfeit are counted apart (the score and\n\
             the Elo count every game).\n\n\
             | network | CPU-hours | anchor | W/D/L | forfeits: won / lost | score [95% CI] | Elo [95% CI] |\n\
             |---|---:|---|---|---|---|---|\n",
        );
        for p in &self.curve {
            let r = &p.record;
            let t = r.tally();
            let (won, lost) = t.over_the_board();
            let (fw, fl) = (t.forfeit_wins, t.forfeit_losses);
            md.push_str(&format!(
                "| gen-{:04} | {:.2} | `{}` | +{won} ={} -{lost} | {fw} / {fl} | {:.3} [{:.3}, {:.3}] | {:+.0} [{:+.0}, {:+.0}] |\n",
                p.generation, p.cpu_hours, r.b.replace('|', "\\|"), t.draws, r.score,
                r.score_ci95[0], r.score_ci95[1], r.elo, r.elo_ci95[0], r.elo_ci95[1]
            ));
        }
        md
    }
}

/// The resolved settings of a run, as `run.toml` records them.
fn run_toml(
    variant: &str,
    options: &[String],
    cfg: &PipelineConfig,
) -> Result<String, PipelineError> {
    let body = cfg.to_toml().map_err(|e| PipelineError::BadRecord {
        path: PathBuf::from("run.toml"),
        reason: e.to_string(),
    })?;
    Ok(format!(
        "# shogilab pipeline: the fully resolved settings of this run (re-running with other\n\
         # settings is refused, except a larger `generations`).\n\
         variant = {variant:?}\noptions = {options:?}\n\n{body}"
    ))
}

/// Refuse to continue a run that was started with different settings.
fn check_resume(path: &Path, fresh: &str) -> Result<(), PipelineError> {
    let Ok(old) = std::fs::read_to_string(path) else { return Ok(()) };
    let parse = |t: &str| -> Result<toml::Table, PipelineError> {
        toml::from_str(t).map_err(|e| PipelineError::BadRecord {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    };
    let diffs = diff_tables(&parse(&old)?, &parse(fresh)?, &["generations"]);
    if diffs.is_empty() {
        return Ok(());
    }
    Err(PipelineError::SettingsDiffer {
        path: path.to_path_buf(),
        diffs,
        hint: "continue with the same settings (only `generations` may grow) or choose a new --out",
    })
}

/// Paths of a run directory.
struct Layout<'a>(&'a Path);

impl Layout<'_> {
    fn model(&self, g: u32) -> PathBuf {
        self.0.join(format!("models/gen-{g:04}.ot"))
    }
    fn selfplay(&self, g: u32) -> PathBuf {
        self.0.join(format!("selfplay/gen-{g:04}"))
    }
    fn eval(&self, g: u32) -> PathBuf {
        self.0.join(format!("eval/gen-{g:04}"))
    }
}

/// Run (or continue) a pipeline in `run_dir`. `options` are the variant options as given
/// (`NAME=VALUE`), recorded in `run.toml`.
pub fn run_pipeline(
    v: &Arc<Variant>,
    options: &[String],
    cfg: &PipelineConfig,
    run_dir: &Path,
) -> Result<PipelineReport, PipelineError> {
    std::fs::create_dir_all(run_dir).map_err(PipelineError::io(run_dir))?;
    let settings = run_toml(&v.name, options, cfg)?;
    check_resume(&run_dir.join("run.toml"), &settings)?;
    write_atomic(&run_dir.join("run.toml"), settings.as_bytes())?;
    let at = Layout(run_dir);
    let compute = ComputeLog::new(run_dir);
    let teacher = teacher_stage(v, cfg, &at, &compute)?;
    let mut report = PipelineReport {
        variant: v.name.clone(),
        teacher: teacher.clone(),
        generations: Vec::new(),
        curve: Vec::new(),
    };
    if let Some(t) = &teacher {
        let r = play_anchors(v, cfg, t, &at.eval(0).join("anchors"))?;
        report.curve.extend(points(0, &r, &compute.read()?));
    }
    for g in 0..cfg.generations {
        let gen = generation(v, cfg, run_dir, g, &compute)?;
        report.curve.extend(points(g + 1, &gen.anchors, &compute.read()?));
        report.generations.push(gen);
    }
    if !report.curve.is_empty() {
        write_curve(run_dir, &report.curve)?;
    }
    write_atomic(&run_dir.join("report.md"), report.markdown().as_bytes())?;
    Ok(report)
}

/// The supervised start (`teacher.log`): the log's games exported to `teacher/`, and
/// `models/gen-0000.ot` trained on them, unless it exists. `None` without a teacher log.
fn teacher_stage(
    v: &Arc<Variant>,
    cfg: &PipelineConfig,
    at: &Layout<'_>,
    compute: &ComputeLog,
) -> Result<Option<PathBuf>, PipelineError> {
    let out = at.model(0);
    if !cfg.teacher.network.is_empty() {
        if !out.exists() {
            adopt_network(v, cfg, &out, compute)?;
        }
        return Ok(Some(out));
    }
    if cfg.teacher.log.is_empty() {
        return Ok(None);
    }
    if !out.exists() {
        let data = at.0.join("teacher");
        eprintln!("== teacher: positions of {} -> {}", cfg.teacher.log, data.display());
        let export = TeacherJob {
            log: PathBuf::from(&cfg.teacher.log),
            out: data.clone(),
            every: cfg.teacher.every,
            max_games: 0,
            games_per_shard: 500,
            seed: cfg.seed,
            value_depth: cfg.teacher.value_depth,
            value_scale: (cfg.teacher.value_scale != 0.0).then_some(cfg.teacher.value_scale),
        };
        let t0 = Instant::now();
        run_teacher(v, &export)?;
        eprintln!("== teacher: training {}", out.display());
        let job = TrainJob {
            data: vec![data.display().to_string()],
            out: out.clone(),
            init: None,
            preset: cfg.preset.clone(),
            steps: cfg.teacher.steps,
            seed: cfg.seed,
            cfg: cfg.train.clone(),
        };
        run_train(v, &job)?;
        compute.add(stage_time(0, "teacher", t0))?;
    }
    Ok(Some(out))
}

/// `teacher.network` copied to `models/gen-0000.ot` (metadata first), after checking that it
/// loads for this variant; its CPU-hours (`teacher.network_cpu_hours`) go into the compute log
/// as the teacher stage's.
fn adopt_network(
    v: &Arc<Variant>,
    cfg: &PipelineConfig,
    out: &Path,
    compute: &ComputeLog,
) -> Result<(), PipelineError> {
    let from = PathBuf::from(&cfg.teacher.network);
    eprintln!("== teacher: generation 0 is {}", from.display());
    checkpoint::load(&from, &Encoder::new(v.clone()), tch::Device::Cpu)?;
    for ext in ["json", "ot"] {
        let src = from.with_extension(ext);
        let bytes = std::fs::read(&src).map_err(PipelineError::io(&src))?;
        write_atomic(&out.with_extension(ext), &bytes)?;
    }
    let seconds = cfg.teacher.network_cpu_hours * 3600.0;
    compute.add(StageTime { generation: 0, stage: "teacher".into(), seconds, threads: 1 })
}

fn stage_time(generation: u32, stage: &str, t0: Instant) -> StageTime {
    StageTime {
        generation,
        stage: stage.to_string(),
        seconds: t0.elapsed().as_secs_f64(),
        threads: cores(),
    }
}

/// One generation: self-play with the latest network, training of the next, evaluation.
fn generation(
    v: &Arc<Variant>,
    cfg: &PipelineConfig,
    run_dir: &Path,
    g: u32,
    compute: &ComputeLog,
) -> Result<GenerationReport, PipelineError> {
    let at = Layout(run_dir);
    let from_teacher = !cfg.teacher.log.is_empty() || !cfg.teacher.network.is_empty();
    let evaluator = if g == 0 && !from_teacher {
        "uniform".to_string()
    } else {
        at.model(g).display().to_string()
    };
    let selfplay = selfplay_stage(v, cfg, &at, g, &evaluator, compute)?;
    let next = at.model(g + 1);
    let train = match next.exists() {
        true => None,
        false => Some(train_stage(v, cfg, &at, g, from_teacher, compute)?),
    };
    let csvs: Vec<PathBuf> = (1..=g + 1).map(|k| at.model(k).with_extension("csv")).collect();
    loss_chart(&csvs, &run_dir.join("loss.png"))?;
    let eval = (cfg.eval.games > 0).then(|| evaluate(v, cfg, &at, g, &evaluator)).transpose()?;
    let anchors = play_anchors(v, cfg, &next, &at.eval(g + 1).join("anchors"))?;
    Ok(GenerationReport {
        generation: g,
        selfplay_evaluator: evaluator,
        selfplay,
        model: next,
        train,
        eval,
        anchors,
    })
}

/// Generation `g`'s self-play games with `evaluator` (those already in its folder are kept);
/// its time goes to the compute log when it played any.
fn selfplay_stage(
    v: &Arc<Variant>,
    cfg: &PipelineConfig,
    at: &Layout<'_>,
    g: u32,
    evaluator: &str,
    compute: &ComputeLog,
) -> Result<SelfplaySummary, PipelineError> {
    eprintln!("== generation {g}: self-play with {evaluator}");
    let t0 = Instant::now();
    let job = SelfplayJob {
        out: Store::folder(at.selfplay(g)),
        games: cfg.games,
        shard_games: cfg.shard_games,
        seed: cfg.seed.wrapping_add(g as u64 * 1_000_003),
        evaluator: evaluator.to_string(),
        generation: g,
        cfg: cfg.selfplay.clone(),
        task: None,
    };
    let selfplay = run_selfplay(v, &job)?;
    if selfplay.games_played > 0 {
        compute.add(stage_time(g, "selfplay", t0))?;
    }
    Ok(selfplay)
}

/// Train generation `g + 1`'s network on the replay window of self-play folders ending at `g`,
/// from generation `g`'s network (or the teacher's) when there is one.
fn train_stage(
    v: &Arc<Variant>,
    cfg: &PipelineConfig,
    at: &Layout<'_>,
    g: u32,
    from_teacher: bool,
    compute: &ComputeLog,
) -> Result<TrainSummary, PipelineError> {
    let next = at.model(g + 1);
    eprintln!("== generation {g}: training {}", next.display());
    let first = (g + 1).saturating_sub(cfg.train.window);
    let job = TrainJob {
        data: (first..=g).map(|k| at.selfplay(k).display().to_string()).collect(),
        out: next,
        init: (g > 0 || from_teacher).then(|| at.model(g)),
        preset: cfg.preset.clone(),
        steps: cfg.steps,
        seed: cfg.seed.wrapping_add(g as u64),
        cfg: cfg.train.clone(),
    };
    let t0 = Instant::now();
    let report = run_train(v, &job)?;
    compute.add(stage_time(g, "train", t0))?;
    Ok(report)
}

/// The new network of generation `g` against the previous one (`uniform` for the first),
/// reported in one line; the games go to `eval/gen-G/`.
fn evaluate(
    v: &Arc<Variant>,
    cfg: &PipelineConfig,
    at: &Layout<'_>,
    g: u32,
    prev: &str,
) -> Result<MatchRecord, PipelineError> {
    let sims = cfg.eval_simulations();
    let out = at.eval(g + 1);
    let job = EvalJob {
        a: format!("mcts:{}:{sims}", at.model(g + 1).display()),
        b: format!("mcts:{prev}:{sims}"),
        games: cfg.eval.games,
        max_plies: cfg.selfplay.max_plies,
        opening_plies: cfg.eval.opening_plies,
        seed: cfg.seed,
        out: out.clone(),
    };
    eprintln!("== generation {g}: new network against {prev}");
    let r = run_evaluation(v, &job)?;
    eprintln!(
        "== generation {g}: {} (games: {})",
        r.summary_line(),
        out.join("games.log").display()
    );
    Ok(r)
}
