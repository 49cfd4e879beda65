//! `shogilab values`: empirical piece values in pawn units, three ways (imbalance matches,
//! regression on self-play datasets, value-network probing), each with 95% bootstrap
//! intervals, compared with a reference table (the German Chu Shogi Association's, from
//! `configs/values/<variant>-gcsa.toml`). This module parses the arguments, loads the inputs
//! (reference, datasets, evaluator) and shows progress; the study itself is
//! `shogilab_eval::values::study` (games into the Parquet log `<out>/games/<variant>/`, fits,
//! report files). `--convert-log` converts a JSON-lines log of an earlier version. Every input
//! is checked before any game is played or any file written.

use super::protocol::{checkpoint_names, spec_needs_network};
use super::task_args::{TaskArgs, TaskLine};
use super::{Networks, VariantArgs};
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use shogilab_engine::Variant;
use shogilab_eval::values::imbalance::{
    AgentEngine, BuildAgent, GameLine, ImbalanceConfig, ImbalanceError,
};
use shogilab_eval::values::report::Reference;
use shogilab_eval::values::study::{
    Datasets, Primary, ProbeInput, Progress, Study, StudyConfig, StudyError, StudyInputs,
};
use shogilab_eval::values::{jsonl, texel, Kinds};
use shogilab_eval::{parse_agent_spec, ExtraError};
use shogilab_selfplay::{Evaluator, Material, PieceValues, Uniform};
use shogilab_store::{cache, Store, Task};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct ValuesArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Report folder: <variant>.csv, <variant>-all.csv, <variant>.md, <variant>.png,
    /// <variant>-intervals.png, and the game log games/<variant>/ (Parquet part files).
    #[arg(long, default_value = "reports/piece-values")]
    pub out: PathBuf,
    /// Game log location: a folder or s3://bucket/prefix (S3 settings from the AWS_*
    /// environment variables). Default: <out>/games/<variant>.
    #[arg(long, value_name = "URL")]
    pub log: Option<String>,
    // (values: the task's games are stored as the log's one part task-IIIII-of-NNNNN.parquet;
    // nothing is fitted.)
    #[command(flatten)]
    pub task: TaskArgs,
    /// Imbalance games of these setup rules the log should hold (missing ones are played; 0 =
    /// play none). Every game of the same engine in the log is fitted, whatever its setup rules.
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    /// Stop starting new games after this many minutes (the fit uses what the log holds).
    #[arg(long)]
    pub max_minutes: Option<f64>,
    /// Imbalance games per part file of the log: a run killed outright (not by SIGINT or
    /// SIGTERM, which write the games played) loses at most the games of one part.
    #[arg(long, default_value_t = 500)]
    pub part_games: usize,
    /// Game threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Imbalance engine: full-width depth before the captures-only search.
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Play the imbalance (or odds) games with this match agent against itself instead of
    /// the imbalance engine: any agent spec with its limits, e.g.
    /// `mcts:models/chu.ot:batch=8@movetime=100`. The log records the spec and the SHA-256 of
    /// each checkpoint it loads, and refuses games of another engine.
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["depth", "budget_per_root_move", "advance", "noise"])]
    pub engine: Option<String>,
    /// Imbalance setups: draw again any setup whose first mover (in either colour order) can
    /// capture the other side's last royal at once (tenjiku: a removed general can leave a king open to a jumping
    /// general); such games measure the start array's geometry, not the material.
    #[arg(long)]
    pub safe_royals: bool,
    /// Fit: leave out the setups whose first move (in either colour order) takes the other
    /// side's last royal (the games `--safe-royals` would not have played; tenjiku about 3% of
    /// the games of its plain rules).
    #[arg(long)]
    pub drop_won_setups: bool,
    /// Fit: skip `imbalance-positions` (the regression on every quiet position of the games,
    /// by far the slowest fit: minutes for the 32,706 committed chu games)
    #[arg(long)]
    pub no_positions: bool,
    /// Imbalance engine: give each root move its own node budget and search the root with a
    /// window (required from depth 2: with one budget for all the root moves, the moves
    /// searched after it runs out get only the static evaluation). The committed logs were
    /// played without it.
    #[arg(long)]
    pub budget_per_root_move: bool,
    /// Ply cap of the imbalance games (a draw when reached; no adjudication).
    #[arg(long, default_value_t = 400)]
    pub max_plies: u32,
    /// Imbalance engine: bonus in centipawns per rank a piece stands from its back rank.
    #[arg(long, default_value_t = 3)]
    pub advance: i32,
    /// Imbalance engine: root jitter, +- centipawns.
    #[arg(long, default_value_t = 30)]
    pub noise: i32,
    /// Imbalance setups: pieces of each side promoted in place for certain, before the
    /// 60% chance of one more (more variation in the kinds that exist only by promotion).
    #[arg(long, default_value_t = 0)]
    pub min_promotions: usize,
    /// Imbalance setups: up to this many non-pawn pieces removed per side.
    #[arg(long, default_value_t = 3)]
    pub max_removals: usize,
    /// Imbalance setups: up to this many pawns removed per side.
    #[arg(long, default_value_t = 3)]
    pub max_pawns: usize,
    /// Imbalance setups: chance that a side with a promoted prince loses its king.
    #[arg(long, default_value_t = 0.5)]
    pub royal_drop: f64,
    /// Odds games instead of random imbalances (to calibrate a unit): the start array less one
    /// piece of this kind (e.g. `pawn`, `'gold general'`) on one side, both colours. They go to
    /// the same log, are fitted apart from the imbalance games, and give the report's
    /// calibration section and `<variant>-odds.csv`
    #[arg(long, value_name = "KIND")]
    pub odds: Option<String>,
    /// Self-play data for the regression: positions-*.parquet files or folders searched
    /// recursively (repeatable).
    #[arg(long = "datasets", value_name = "PATH")]
    pub datasets: Vec<PathBuf>,
    /// Evaluator to probe: a checkpoint (.ot), or `material` (mobility values: a sanity check
    /// that gives them back).
    #[arg(long, value_name = "EVAL")]
    pub probe: Option<String>,
    /// Positions to probe (sampled from the datasets, else from the imbalance setups).
    #[arg(long, default_value_t = 200)]
    pub probe_positions: usize,
    /// Reference table (ValueFile TOML). Default: configs/values/<variant>-gcsa.toml when it
    /// exists; `none` for no comparison.
    #[arg(long)]
    pub reference: Option<String>,
    /// Unit of the values: the piece kind worth 1 (`pawn`, `'gold general'`, `'silver
    /// general'`, ...; English names as in the report). The reference table is shown in the
    /// same unit; with another unit than the pawn, the values table adds the primary method's
    /// value in pawns where the pawn's effect is bounded away from zero
    #[arg(long, value_name = "KIND", default_value = "pawn")]
    pub unit: String,
    /// Bootstrap resamples per method.
    #[arg(long, default_value_t = 400)]
    pub bootstrap: usize,
    /// Primary column: an order of preference (default: the randomised imbalance experiment
    /// first, then the observational regressions, probing last), or `auto` (among the
    /// methods fitted on game results, the one with the
    /// narrowest mean interval that measures at least 80% of the kinds, then the others by
    /// width, probing last). Methods: imbalance, imbalance-positions, texel, probe.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "imbalance,imbalance-positions,texel,probe"
    )]
    pub primary: Vec<String>,
    /// Convert a JSON-lines game log of an earlier version (games/<variant>.jsonl, with
    /// <variant>-sessions.jsonl beside it) into the Parquet log games/<variant>/, then stop;
    /// refuses a folder that already holds a log. Nothing else is read or written.
    #[arg(long, value_name = "FILE.jsonl")]
    pub convert_log: Option<PathBuf>,
}

/// The reference table: `--reference`, else the variant's GCSA table when there is one.
fn load_reference(a: &ValuesArgs, v: &Arc<Variant>, kinds: &Kinds) -> Result<Option<Reference>> {
    let path = match a.reference.as_deref() {
        Some("none") => return Ok(None),
        Some(p) => PathBuf::from(p),
        None => {
            let p = PathBuf::from(format!("configs/values/{}-gcsa.toml", v.name));
            if !p.exists() {
                return Ok(None);
            }
            p
        }
    };
    if !path.is_file() {
        bail!("--reference {}: no such file", path.display());
    }
    let pv = PieceValues::from_file(Arc::clone(v), &path)
        .map_err(|e| anyhow::anyhow!("--reference {e}"))?;
    let mut values = vec![f64::NAN; kinds.len()];
    for (t, &x) in pv.per_type.iter().enumerate() {
        values[kinds.of_type[t]] = x as f64;
    }
    Ok(Some(Reference { source: pv.source, path: path.display().to_string(), values }))
}

/// The evaluator of `--probe`, with the report's words for it.
fn load_probe(spec: &str, v: &Arc<Variant>, networks: &dyn Networks) -> Result<ProbeInput> {
    let input =
        |evaluator: Arc<dyn Evaluator>, description: String| ProbeInput { evaluator, description };
    match spec {
        "material" => Ok(input(
            Arc::new(Material::new(PieceValues::mobility(Arc::clone(v)))),
            "the `material` evaluator (mobility-derived values; gives them back)".into(),
        )),
        "uniform" => {
            Ok(input(Arc::new(Uniform), "the `uniform` evaluator (constant value)".into()))
        }
        p if p.ends_with(".ot") => {
            if !Path::new(p).is_file() {
                bail!("--probe {p}: no such checkpoint");
            }
            let ev = networks.load(p, v).with_context(|| format!("--probe {p}"))?;
            Ok(input(
                ev,
                format!(
                    "checkpoint `{p}` (value head, win/draw/loss -> logit of the expected score)"
                ),
            ))
        }
        o => bail!("--probe {o:?}: expected a checkpoint path ending in .ot, or material"),
    }
}

/// The study's settings from the arguments, each checked.
fn study_config(
    a: &ValuesArgs,
    v: &Arc<Variant>,
    networks: &Arc<dyn Networks>,
) -> Result<StudyConfig> {
    check_ranges(a)?;
    let primary = Primary::parse(&a.primary)?;
    let engine = engine_config(a, v, networks)?;
    let command = std::env::args()
        .skip(1)
        .map(|s| if s.contains(' ') { format!("'{s}'") } else { s })
        .collect::<Vec<_>>()
        .join(" ");
    let log = a.log.as_deref().map(Store::open).transpose()?;
    Ok(StudyConfig {
        variant: Arc::clone(v),
        out: a.out.clone(),
        log,
        games: a.games,
        threads: a
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)),
        part_games: a.part_games,
        unit: a.unit.clone(),
        engine,
        drop_won_setups: a.drop_won_setups,
        fit_positions: !a.no_positions,
        bootstrap: a.bootstrap,
        primary,
        probe_positions: a.probe_positions,
        command: format!("shogilab {command}"),
    })
}

/// The numeric arguments that have a range, each refused with its flag outside it.
fn check_ranges(a: &ValuesArgs) -> Result<()> {
    if a.bootstrap < 20 {
        bail!("--bootstrap {}: use at least 20 resamples", a.bootstrap);
    }
    if let Some(m) = a.max_minutes {
        if !(m.is_finite() && m >= 0.0) {
            bail!("--max-minutes {m}: must be a non-negative number");
        }
    }
    if !(0.0..=1.0).contains(&a.royal_drop) {
        bail!("--royal-drop {}: expected a chance between 0 and 1", a.royal_drop);
    }
    if a.part_games == 0 {
        bail!("--part-games 0: a part holds at least one game");
    }
    Ok(())
}

/// The engine that plays the imbalance (and odds) games, and how its setups are drawn.
fn engine_config(
    a: &ValuesArgs,
    v: &Arc<Variant>,
    networks: &Arc<dyn Networks>,
) -> Result<ImbalanceConfig> {
    Ok(ImbalanceConfig {
        depth: a.depth,
        root_budget: a.budget_per_root_move,
        safe_royals: a.safe_royals,
        noise_cp: a.noise,
        max_plies: a.max_plies,
        advance_cp: a.advance,
        min_promotions: a.min_promotions,
        max_removals: a.max_removals,
        max_pawns: a.max_pawns,
        royal_drop: a.royal_drop,
        odds: a.odds.clone(),
        seed: a.seed,
        agent: a.engine.as_deref().map(|s| agent_engine(s, v, networks)).transpose()?,
        ..ImbalanceConfig::default()
    })
}

/// The agent of `--engine`, built once here so that a bad spec fails before any game, with
/// the digests of the checkpoints it loads (each checked against the variant).
fn agent_engine(spec: &str, v: &Arc<Variant>, networks: &Arc<dyn Networks>) -> Result<AgentEngine> {
    let (owned, variant, nets) = (spec.to_string(), Arc::clone(v), Arc::clone(networks));
    let build: Arc<BuildAgent> = Arc::new(move |seed| {
        let load = |name: &str| {
            name.ends_with(".ot").then(|| nets.load(name, &variant).map_err(ExtraError::from))
        };
        parse_agent_spec(&owned, &variant, seed, &load)
    });
    build(0).with_context(|| format!("--engine {spec:?}"))?;
    let fingerprint = checkpoint_names(spec, v)
        .iter()
        .map(|name| checkpoint_digest(name))
        .collect::<Result<Vec<_>>>()?
        .join(",");
    Ok(AgentEngine { spec: spec.to_string(), fingerprint, build })
}

/// `NAME=DIGEST` for a checkpoint an agent spec loads: the file's name and the first 12 hex
/// digits of its SHA-256 (a URL is fetched into the cache first).
fn checkpoint_digest(name: &str) -> Result<String> {
    let local = cache::fetch(name, "json").with_context(|| format!("--engine: {name}"))?;
    let bytes = std::fs::read(&local).with_context(|| format!("--engine: reading {name}"))?;
    let file = Path::new(name).file_name().map_or(name.into(), |f| f.to_string_lossy());
    Ok(format!("{file}={}", &cache::sha256_hex(&bytes)[..12]))
}

/// Every input, read before any game is played: reference, datasets, evaluator.
fn study_inputs(a: &ValuesArgs, v: &Arc<Variant>, networks: &dyn Networks) -> Result<StudyInputs> {
    let reference = load_reference(a, v, &Kinds::new(v))?;
    let datasets = if a.datasets.is_empty() {
        None
    } else {
        let files = texel::dataset_files(&a.datasets)?;
        eprintln!("reading {} dataset files", files.len());
        Some(Datasets { data: texel::load(&files, v, &Kinds::new(v))?, files })
    };
    let probe = a.probe.as_deref().map(|p| load_probe(p, v, networks)).transpose()?;
    Ok(StudyInputs { reference, datasets, probe })
}

/// Progress bars on stderr.
#[derive(Default)]
struct Bars {
    bar: Option<ProgressBar>,
    started: Option<Instant>,
    decisive: usize,
}

impl Bars {
    fn bar(&mut self, len: usize, template: &str) -> &ProgressBar {
        self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::new(len as u64);
            bar.set_style(
                ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        })
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Bars {
    fn step(&mut self, message: &str) {
        self.finish();
        eprintln!("{message}");
    }

    fn game(&mut self, game: &GameLine, played: usize) {
        let t0 = *self.started.get_or_insert_with(Instant::now);
        if game.result != 0.5 {
            self.decisive += 1;
        }
        let decisive = self.decisive;
        let bar = self.bar(0, "{bar:30} {pos}/{len} imbalance games {msg} [{elapsed}<{eta}]");
        bar.inc(1);
        bar.set_message(format!(
            "{:.0}% decisive, {:.0} games/h",
            100.0 * decisive as f64 / played as f64,
            played as f64 / t0.elapsed().as_secs_f64().max(1e-3) * 3600.0
        ));
    }

    fn probed(&mut self, done: usize, total: usize) {
        self.bar(total, "{bar:30} {pos}/{len} positions probed").set_position(done as u64);
    }
}

/// Play the missing games. SIGINT/SIGTERM: no new games, the games played and the session
/// are logged, then a non-zero exit; a second signal exits at once (losing the games of the
/// part not yet written).
fn play(study: &mut Study, max_minutes: Option<f64>) -> Result<()> {
    let todo = study.to_play();
    let t0 = Instant::now();
    let deadline = max_minutes.map(|m| t0 + Duration::from_secs_f64(m * 60.0));
    let interrupted = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&interrupted))
            .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&interrupted)))
            .context("installing the signal handlers")?;
    }
    let stop =
        || interrupted.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d);
    let mut bars = Bars::default();
    bars.bar(todo, "{bar:30} {pos}/{len} imbalance games {msg} [{elapsed}<{eta}]");
    let played = study.play(&stop, &mut bars)?;
    bars.finish();
    let total = study.games().len();
    eprintln!(
        "played {} imbalance games in {:.0} s ({total} in the log)",
        played.games, played.seconds
    );
    let stopped = interrupted.load(Ordering::Relaxed);
    study.record_session(&played, stopped.then_some("stopped by a signal"))?;
    if stopped {
        bail!(
            "interrupted: {} new games kept in {} ({total} in all), nothing fitted; the same command continues",
            played.games,
            study.log().url()
        );
    }
    Ok(())
}

/// One task: its games into its part of the log, then one JSON line on stdout (the task, its
/// games, the games played now, seconds, the part's URL) for a scheduler to read.
fn play_task(study: &mut Study, task: Task) -> Result<()> {
    let line = TaskLine::start(task);
    let mut bars = Bars::default();
    let interrupted = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register(sig, Arc::clone(&interrupted))
            .context("installing the signal handlers")?;
    }
    let stop = || interrupted.load(Ordering::Relaxed);
    let outcome = study.play_task(task, &stop, &mut bars)?;
    bars.finish();
    line.print(outcome.games, outcome.played, ("object", outcome.url.into()));
    Ok(())
}

/// `--convert-log`: an old JSON-lines log into the Parquet log beside it.
fn convert(path: &Path) -> Result<()> {
    let c = jsonl::convert(path)?;
    if c.torn {
        eprintln!(
            "{}: the last line was cut short (an interrupted write): left out",
            path.display()
        );
    }
    println!("converted {} games and {} sessions into {}", c.games, c.sessions, c.log.display());
    Ok(())
}

impl ValuesArgs {
    /// Whether the command probes a network (a checkpoint) or plays with one, and so needs
    /// libtorch.
    pub fn needs_network(&self) -> bool {
        let engine = self.engine.as_deref();
        let plays =
            || engine.is_some_and(|s| self.variant.load().is_ok_and(|v| spec_needs_network(s, &v)));
        self.probe.as_deref().is_some_and(|p| p.ends_with(".ot")) || plays()
    }
}

pub fn run(a: ValuesArgs, networks: Arc<dyn Networks>) -> Result<()> {
    if let Some(path) = &a.convert_log {
        return convert(path);
    }
    let v = a.variant.load()?;
    let cfg = study_config(&a, &v, &networks)?;
    let inputs = study_inputs(&a, &v, &*networks)?;
    let mut study = Study::open(cfg, inputs).map_err(|e| match e {
        StudyError::Imbalance(e @ ImbalanceError::SharedRootBudget { .. }) => {
            anyhow!("--depth {}: {e}: add --budget-per-root-move", a.depth)
        }
        e => e.into(),
    })?;
    if let Some(task) = a.task.task()? {
        return play_task(&mut study, task);
    }
    if study.to_play() > 0 {
        play(&mut study, a.max_minutes)?;
    }
    println!("{}", study.log_summary()?);
    let mut bars = Bars::default();
    let result = study.fit(&mut bars)?;
    bars.finish();
    let written = study.write_report(&result)?;
    for line in &written.summary {
        eprintln!("{line}");
    }
    println!("wrote {}", written.markdown.display());
    Ok(())
}
