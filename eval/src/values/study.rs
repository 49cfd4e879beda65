//! A piece-value study (`shogilab values`) as typed steps: a [`StudyConfig`] and the loaded
//! [`StudyInputs`] open a [`Study`] (its game log read and checked), [`Study::play`] plays the
//! missing imbalance games into the log, [`Study::fit`] fits every method the inputs allow and
//! orders them into a [`StudyResult`], and [`Study::write_report`] (in [`super::output`])
//! writes the CSV, Markdown and chart files. The binary only parses arguments, loads the
//! inputs and shows progress ([`Progress`]).

use super::imbalance::{self, GameLine, ImbalanceConfig, ImbalanceError, RunPlan, TaskOutcome};
use super::log::{GameLog, LogError, SessionLine, Table};
use super::odds::{self, Calibration};
use super::output::OutputError;
use super::probe::{self, ProbeError};
use super::report::{self, PrimaryRow, Reference};
use super::texel::{self, TexelData, TexelError};
use super::{Kinds, MethodResult};
use shogilab_engine::{Position, Variant};
use shogilab_selfplay::Evaluator;
use shogilab_store::{Store, Task};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// The methods, by their names in the CSV `method` column.
pub const METHODS: [&str; 4] = ["imbalance", "imbalance-positions", "texel", "probe"];

/// A study that cannot run, naming the input at fault.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    #[error("--unit {unit:?}: variant {variant} has no such piece kind (kinds: {kinds})")]
    Unit { unit: String, variant: String, kinds: String },
    #[error("--unit {unit:?}: the reference table {path} gives it no positive value, so it cannot be expressed in that unit")]
    ReferenceUnit { unit: String, path: String },
    #[error("nothing to measure: give --games N, --datasets PATH or --probe EVAL")]
    NothingToMeasure,
    #[error("{path}: a JSON-lines game log of an earlier version; convert it first with `shogilab values --convert-log {path}`")]
    OldLog { path: PathBuf },
    #[error("--primary {0:?}: expected auto, or methods among imbalance, imbalance-positions, texel, probe")]
    Primary(String),
    #[error(transparent)]
    Imbalance(#[from] ImbalanceError),
    #[error(transparent)]
    Log(#[from] LogError),
    #[error(transparent)]
    Texel(#[from] TexelError),
    #[error(transparent)]
    Probe(#[from] ProbeError),
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// The engine of the imbalance games, in the report's words.
fn engine_description(cfg: &ImbalanceConfig) -> String {
    match &cfg.agent {
        Some(a) => format!(
            "engine `{}`: the match agent `{}` against itself, one instance per side, at the limits its spec gives (the checkpoints it loads named by their SHA-256 digests)",
            cfg.engine_id(),
            a.spec
        ),
        None => format!(
            "engine `{}`: alpha-beta depth {} + captures-only quiescence, material from mobility-derived values (`PieceValues::mobility`, not the GCSA table), +{} cp per rank advanced, ±{} cp root jitter, repeated positions penalised",
            cfg.engine_id(),
            cfg.depth,
            cfg.advance_cp,
            cfg.noise_cp
        ),
    }
}

/// The order of the methods in the report; the primary column takes each kind from the first
/// method that measured it.
#[derive(Debug, Clone, PartialEq)]
pub enum Primary {
    /// Among the methods fitted on game results, the one with the narrowest mean interval
    /// that measures at least 80% of the kinds first, then the others by width, probing last.
    Auto,
    /// This order of method names; methods not named follow in the order fitted.
    Order(Vec<String>),
}

impl Primary {
    /// From names: `auto` anywhere means [`Primary::Auto`]; other names must be [`METHODS`].
    pub fn parse(names: &[String]) -> Result<Primary, StudyError> {
        if let Some(bad) = names.iter().find(|m| *m != "auto" && !METHODS.contains(&m.as_str())) {
            return Err(StudyError::Primary(bad.clone()));
        }
        Ok(if names.iter().any(|m| m == "auto") {
            Primary::Auto
        } else {
            Primary::Order(names.to_vec())
        })
    }
}

/// What to measure and where the report goes.
#[derive(Debug, Clone)]
pub struct StudyConfig {
    pub variant: Arc<Variant>,
    /// Report folder.
    pub out: PathBuf,
    /// Where the game log is: default `<out>/games/<variant>/`.
    pub log: Option<Store>,
    /// Imbalance games of these setup rules the log should hold.
    pub games: usize,
    pub threads: usize,
    /// Games per part file of the log.
    pub part_games: usize,
    /// The kind whose value is 1 (`pawn`, `gold general`, ...); the reference table is
    /// divided by its value in the table.
    pub unit: String,
    /// The imbalance engine and setup rules; its seed also seeds the bootstrap.
    pub engine: ImbalanceConfig,
    /// Leave out of the fit the setups whose first move takes the last royal.
    pub drop_won_setups: bool,
    /// Fit `imbalance-positions` too (the slowest fit).
    pub fit_positions: bool,
    /// Bootstrap resamples per method.
    pub bootstrap: usize,
    pub primary: Primary,
    /// Positions to probe.
    pub probe_positions: usize,
    /// The command line, recorded in the report.
    pub command: String,
}

/// Self-play datasets read for the `texel` regression.
pub struct Datasets {
    pub data: TexelData,
    pub files: Vec<PathBuf>,
}

/// An evaluator to probe, with the report's words for it.
pub struct ProbeInput {
    pub evaluator: Arc<dyn Evaluator>,
    pub description: String,
}

/// Everything read before any game is played.
#[derive(Default)]
pub struct StudyInputs {
    pub reference: Option<Reference>,
    pub datasets: Option<Datasets>,
    pub probe: Option<ProbeInput>,
}

/// Progress of the long steps, for a user interface; every method has a no-op default.
pub trait Progress {
    /// A line about the step starting or ending.
    fn step(&mut self, _message: &str) {}
    /// A game finished (games played in this session so far).
    fn game(&mut self, _game: &GameLine, _played: usize) {}
    /// Positions probed so far, of `total`.
    fn probed(&mut self, _done: usize, _total: usize) {}
}

/// No progress shown.
pub struct Quiet;

impl Progress for Quiet {}

/// A playing session.
#[derive(Debug, Clone)]
pub struct Played {
    /// Games played and logged.
    pub games: usize,
    pub seconds: f64,
    pub threads: usize,
}

/// The setups left out by [`StudyConfig::drop_won_setups`].
#[derive(Debug, Clone, Copy)]
pub struct LeftOut {
    pub setups: usize,
    pub games: usize,
}

/// The fitted methods, in report order.
#[derive(Debug, Clone)]
pub struct StudyResult {
    /// In the order of [`StudyConfig::primary`].
    pub methods: Vec<MethodResult>,
    /// Per kind, the first method that measured it.
    pub primary: Vec<PrimaryRow>,
    /// The imbalance games fitted.
    pub games: Vec<GameLine>,
    pub left_out: Option<LeftOut>,
    /// The odds games of the log, per kind given as odds (not in `games`: the regressions
    /// are fitted without them, so the two measurements of a unit are independent).
    pub calibrations: Vec<Calibration>,
}

/// An open study: its inputs checked and its game log read.
pub struct Study {
    pub(super) cfg: StudyConfig,
    pub(super) inputs: StudyInputs,
    pub(super) kinds: Kinds,
    pub(super) log: GameLog,
    games: Vec<GameLine>,
}

impl Study {
    /// Read and check the game log (an old JSON-lines log left unconverted, or games of
    /// another engine, are refused) and that there is something to measure.
    pub fn open(cfg: StudyConfig, mut inputs: StudyInputs) -> Result<Study, StudyError> {
        let v = &cfg.variant;
        let kinds = Kinds::new(v).with_unit(&cfg.unit).ok_or_else(|| StudyError::Unit {
            unit: cfg.unit.clone(),
            variant: v.name.clone(),
            kinds: Kinds::new(v).names.join(", "),
        })?;
        if let (Some(r), Some(unit)) = (inputs.reference.as_mut(), kinds.unit) {
            if !r.rescale(unit) {
                let path = r.path.clone();
                return Err(StudyError::ReferenceUnit { unit: cfg.unit.clone(), path });
            }
        }
        let log = match &cfg.log {
            Some(store) => GameLog::at(store.clone()),
            None => GameLog::of_variant(&cfg.out, &v.name),
        };
        let old = cfg.out.join("games").join(format!("{}.jsonl", v.name));
        if cfg.log.is_none() && old.exists() && log.is_empty()? {
            return Err(StudyError::OldLog { path: old });
        }
        let games = log.read_games()?;
        if cfg.games == 0 && games.is_empty() && inputs.datasets.is_none() && inputs.probe.is_none()
        {
            return Err(StudyError::NothingToMeasure);
        }
        cfg.engine.check()?;
        if let Some(kind) = &cfg.engine.odds {
            odds::check(v, &kinds, kind)?;
        }
        imbalance::check_engine(&log, &games, &cfg.engine)?;
        Ok(Study { cfg, inputs, kinds, log, games })
    }

    pub fn config(&self) -> &StudyConfig {
        &self.cfg
    }

    pub fn log(&self) -> &GameLog {
        &self.log
    }

    /// Every game in the log.
    pub fn games(&self) -> &[GameLine] {
        &self.games
    }

    /// Games still to play for [`StudyConfig::games`] games of these setup rules.
    pub fn to_play(&self) -> usize {
        self.cfg.games.saturating_sub(imbalance::count_of(&self.games, &self.cfg.engine.agent_id()))
    }

    /// Play the missing games into the log until `stop` says so.
    pub fn play(
        &mut self,
        stop: &(dyn Fn() -> bool + Sync),
        progress: &mut dyn Progress,
    ) -> Result<Played, StudyError> {
        let before = self.games.len();
        let plan = RunPlan {
            target: self.cfg.games,
            threads: self.cfg.threads,
            part_games: self.cfg.part_games,
        };
        let t0 = Instant::now();
        let mut played = 0;
        self.games = imbalance::run_games(
            &self.cfg.variant,
            &self.cfg.engine,
            &self.log,
            plan,
            stop,
            &mut |g, _| {
                played += 1;
                progress.game(g, played);
            },
        )?;
        let seconds = t0.elapsed().as_secs_f64();
        Ok(Played { games: self.games.len() - before, seconds, threads: self.cfg.threads })
    }

    /// Play `task`'s share of the [`StudyConfig::games`] games into its one part of the log
    /// ([`imbalance::run_task`]); nothing is fitted and no session is logged.
    pub fn play_task(
        &mut self,
        task: Task,
        stop: &(dyn Fn() -> bool + Sync),
        progress: &mut dyn Progress,
    ) -> Result<TaskOutcome, StudyError> {
        let (v, cfg) = (&self.cfg.variant, &self.cfg.engine);
        let split = (task, self.cfg.games, self.cfg.threads);
        Ok(imbalance::run_task(v, cfg, &self.log, split, stop, &mut |g, played| {
            progress.game(g, played)
        })?)
    }

    /// How the log's games are stored: task parts (and their task count) and other parts.
    pub fn log_summary(&self) -> Result<String, StudyError> {
        let tasks = self.log.task_parts()?;
        let numbered = self.log.parts(Table::Games)?.len() - tasks.len();
        let split = match tasks.first() {
            Some((t, _)) => format!("{} task parts (of {} tasks)", tasks.len(), t.count),
            None => "0 task parts".to_string(),
        };
        Ok(format!(
            "log {}: {split}, {numbered} other parts, {} games",
            self.log.url(),
            self.games.len()
        ))
    }

    /// Log a playing session (none for a session that played nothing).
    pub fn record_session(&self, played: &Played, note: Option<&str>) -> Result<(), StudyError> {
        if played.games == 0 {
            return Ok(());
        }
        let line = SessionLine {
            agent: self.cfg.engine.agent_id(),
            played: played.games as u64,
            seconds: played.seconds,
            threads: played.threads as u64,
            note: note.map(str::to_string),
        };
        self.log.append_sessions(&[line])?;
        Ok(())
    }

    /// Fit every method the log and the inputs allow, in report order.
    pub fn fit(&self, progress: &mut dyn Progress) -> Result<StudyResult, StudyError> {
        let (games, left_out) = self.games_to_fit(progress)?;
        let (odds_games, games): (Vec<GameLine>, Vec<GameLine>) =
            games.into_iter().partition(|g| odds::is_odds(&g.agent));
        let (n, seed) = (self.cfg.bootstrap, self.cfg.engine.seed);
        let calibrations = odds::calibrate(&odds_games, n, seed)?;
        let mut methods = self.imbalance_methods(&games, left_out, progress)?;
        if let Some(d) = &self.inputs.datasets {
            methods.push(self.texel_method(d, progress)?);
        }
        if let Some(p) = &self.inputs.probe {
            methods.push(self.probe_method(p, &games, progress)?);
        }
        let methods = order_methods(methods, &self.cfg.primary, &self.kinds);
        let primary = report::primary_rows(&self.kinds, &methods);
        Ok(StudyResult { methods, primary, games, left_out, calibrations })
    }

    /// The log's games, less the won setups when asked.
    fn games_to_fit(
        &self,
        progress: &mut dyn Progress,
    ) -> Result<(Vec<GameLine>, Option<LeftOut>), StudyError> {
        if !self.cfg.drop_won_setups || self.games.is_empty() {
            return Ok((self.games.clone(), None));
        }
        let (kept, setups) = imbalance::drop_won_setups(&self.cfg.variant, self.games.clone())?;
        let games = self.games.len() - kept.len();
        progress.step(&format!("left out {setups} setups ({games} games) won by the first move"));
        Ok((kept, Some(LeftOut { setups, games })))
    }

    /// The two fits of the imbalance games (none without games).
    fn imbalance_methods(
        &self,
        games: &[GameLine],
        left_out: Option<LeftOut>,
        progress: &mut dyn Progress,
    ) -> Result<Vec<MethodResult>, StudyError> {
        if games.is_empty() {
            return Ok(Vec::new());
        }
        let (cfg, seed, n) = (&self.cfg.engine, self.cfg.engine.seed, self.cfg.bootstrap);
        progress
            .step(&format!("fitting {} imbalance games ({n} bootstrap resamples)", games.len()));
        let dropped = left_out.map_or(String::new(), |l| {
            format!(
                "; left out (`--drop-won-setups`): {} setups, {} games, whose first move could take the last royal",
                l.setups, l.games
            )
        });
        let desc = format!(
            "engine-vs-itself games from the start array with random pieces removed or promoted in place, each setup also mirrored with colours swapped (setup rules and games: {}{dropped}); {}; draw at {} plies, no adjudication; logistic regression of Black's score (draw 0.5) on per-kind count differences with a first-move intercept, ridge 1e-3, bootstrap over setups",
            imbalance::setup_summary(games), engine_description(cfg), cfg.max_plies
        );
        let mut out = vec![imbalance::fit(&self.kinds, games, n, seed, desc)?];
        if !self.cfg.fit_positions {
            return Ok(out);
        }
        let desc = format!(
            "the same games, Texel-style: Black's result regressed on the material difference of every quiet position of the games (the move played from it changes no material: captures and promotions during the game add variation in every kind), constant + side-to-move terms, ridge 1e-3, bootstrap over setups; engine `{}`",
            cfg.engine_id()
        );
        let v = &self.cfg.variant;
        out.extend(imbalance::fit_positions(v, &self.kinds, games, n, seed, desc)?);
        Ok(out)
    }

    /// The regression on the datasets.
    fn texel_method(
        &self,
        d: &Datasets,
        progress: &mut dyn Progress,
    ) -> Result<MethodResult, StudyError> {
        progress.step(&format!("fitting {} dataset games", d.data.games));
        let mut dirs: Vec<String> = d
            .files
            .iter()
            .map(|f| f.parent().map(|p| p.display().to_string()).unwrap_or_default())
            .collect();
        dirs.dedup();
        let desc = format!(
            "logistic regression of the game result (Black's score, draw 0.5) on per-kind count differences of quiet positions (the move played from them changes no material), constant + side-to-move terms, ridge 1e-3, bootstrap over games; data: {} files in {}",
            d.files.len(),
            dirs.join(", ")
        );
        let seed = self.cfg.engine.seed;
        Ok(texel::fit(&self.kinds, &d.data, self.cfg.bootstrap, seed, desc)?)
    }

    /// The positions to probe: sampled from the datasets, else the imbalance setups' start
    /// arrays (else the variant's start position); with the words for the report.
    fn probe_positions(&self, games: &[GameLine]) -> (Vec<(Position, u32)>, &'static str) {
        let (v, n) = (&self.cfg.variant, self.cfg.probe_positions);
        let mut picked: Vec<(Position, u32)> = Vec::new();
        if let Some(d) = &self.inputs.datasets {
            let sfens = &d.data.sample_sfens;
            let step = (sfens.len() / n.max(1)).max(1);
            for (sfen, ply) in sfens.iter().step_by(step).take(n) {
                if let Ok(p) = Position::from_sfen(v, sfen) {
                    picked.push((p, *ply));
                }
            }
            return (picked, "mid-game positions sampled from the datasets");
        }
        for g in games.iter().filter(|g| g.swap == 0).take(n) {
            if let Ok(p) = Position::from_sfen(v, &g.sfen) {
                picked.push((p, 0));
            }
        }
        if picked.is_empty() {
            picked.push((Position::start(v), 0));
        }
        (picked, "start arrays of the imbalance setups")
    }

    /// Probe the evaluator.
    fn probe_method(
        &self,
        p: &ProbeInput,
        games: &[GameLine],
        progress: &mut dyn Progress,
    ) -> Result<MethodResult, StudyError> {
        let (positions, source) = self.probe_positions(games);
        let total = positions.len();
        progress.step(&format!("probing {} positions", positions.len()));
        let desc = format!(
            "{}; value drop when a piece of the side to move is removed (promoted kinds: promoted piece vs no piece), relative to a pawn's; {source}; bootstrap over positions",
            p.description
        );
        Ok(probe::probe(
            &self.cfg.variant,
            &self.kinds,
            p.evaluator.as_ref(),
            &positions,
            64,
            self.cfg.bootstrap,
            self.cfg.engine.seed,
            desc,
            &mut |n| progress.probed(n, total),
        )?)
    }
}

/// The methods in report order (see [`Primary`]).
pub fn order_methods(
    methods: Vec<MethodResult>,
    primary: &Primary,
    kinds: &Kinds,
) -> Vec<MethodResult> {
    let (probes, mut fitted): (Vec<MethodResult>, Vec<MethodResult>) =
        methods.into_iter().partition(|m| m.method == "probe");
    match primary {
        Primary::Auto => {
            // probe intervals only cover the sampling of positions, not the evaluator's own
            // error, so only the methods fitted on game results compete on width
            let key = |m: &MethodResult| {
                let (mean, _, missing) = m.widths();
                let covers = (kinds.len() - missing) as f64 >= 0.8 * kinds.len() as f64;
                (!covers, if mean.is_finite() { mean } else { f64::INFINITY })
            };
            fitted.sort_by(|x, y| key(x).partial_cmp(&key(y)).unwrap_or(std::cmp::Ordering::Equal));
            fitted.extend(probes);
            fitted
        }
        Primary::Order(names) => {
            let mut rest = fitted;
            rest.extend(probes);
            let mut out = Vec::with_capacity(rest.len());
            for name in names {
                if let Some(i) = rest.iter().position(|m| &m.method == name) {
                    out.push(rest.remove(i));
                }
            }
            out.extend(rest);
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(name: &str, half_width: f64) -> MethodResult {
        let e = |piece: &str| super::super::ValueEstimate {
            piece: piece.into(),
            value: 2.0,
            lo: 2.0 - half_width,
            hi: 2.0 + half_width,
        };
        MethodResult {
            method: name.into(),
            estimates: vec![e("pawn"), e("rook")],
            ..Default::default()
        }
    }

    #[test]
    fn methods_are_ordered_by_name_or_by_width_with_the_probe_last() {
        let kinds = Kinds {
            names: vec!["pawn".into(), "rook".into()],
            of_type: vec![0, 1],
            royal: vec![false; 2],
            pawn: Some(0),
            unit: Some(0),
        };
        let fitted = || {
            vec![
                method("imbalance", 0.5),
                method("imbalance-positions", 0.2),
                method("texel", 0.9),
                method("probe", 0.01),
            ]
        };
        let names = |ms: &[MethodResult]| ms.iter().map(|m| m.method.clone()).collect::<Vec<_>>();
        let auto = order_methods(fitted(), &Primary::Auto, &kinds);
        assert_eq!(names(&auto), ["imbalance-positions", "imbalance", "texel", "probe"]);
        let order = Primary::parse(&["probe".into(), "texel".into()]).unwrap();
        let named = order_methods(fitted(), &order, &kinds);
        assert_eq!(names(&named), ["probe", "texel", "imbalance", "imbalance-positions"]);
        assert_eq!(Primary::parse(&["texel".into(), "auto".into()]).unwrap(), Primary::Auto);
        let e = Primary::parse(&["texel".into(), "elo".into()]).unwrap_err().to_string();
        assert!(e.contains("--primary \"elo\""), "{e}");
    }
}
