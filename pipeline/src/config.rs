//! Run configuration of a pipeline run, resolved in layers: built-in defaults, then a commented
//! TOML file (`--config`, e.g. `configs/pipeline/quickstart.toml`), then the command-line
//! shortcuts (`--games`, `--generations`, ...), then `--set key=value` overrides.
//!
//! Every layer is checked against the defaults' key tree before anything runs: an unknown key,
//! a value of the wrong type or a value out of range is an error naming the file (or `--set`)
//! and the dotted key. The resolved configuration is what `run.toml` records.

use serde::{Deserialize, Serialize};
use shogilab_selfplay::{InvalidSetting, SelfplayConfig};
use shogilab_train::trainer::TrainConfig;
use shogilab_train::NetConfig;
use std::path::Path;
use toml::{Table, Value};

/// Why a configuration layer or the resolved configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A configuration file could not be read.
    #[error("reading {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A configuration file is not TOML.
    #[error("{path}: not valid TOML: {source}")]
    Toml {
        path: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    /// A `--set` argument is not `KEY=VALUE`.
    #[error("{origin} {pair:?}: {reason}")]
    Assignment { origin: String, pair: String, reason: String },
    /// A key the configuration does not have.
    #[error("{origin}: unknown key `{key}` (known here: {known})")]
    UnknownKey { origin: String, key: String, known: String },
    /// A value of the wrong kind.
    #[error("{origin}: `{key}` = {value}: expected {expected}")]
    WrongType { origin: String, key: String, value: String, expected: &'static str },
    /// The merged tree does not make a configuration.
    #[error("configuration from {origins}: {source}")]
    Shape {
        origins: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    /// A value out of range.
    #[error("configuration from {origins}: {source}")]
    Range {
        origins: String,
        #[source]
        source: RangeError,
    },
    /// The defaults could not be turned into a table (a bug).
    #[error("internal: the default configuration is not a table: {0}")]
    Defaults(Box<toml::ser::Error>),
}

/// A setting out of range.
#[derive(Debug, thiserror::Error)]
pub enum RangeError {
    /// A pipeline or self-play setting.
    #[error(transparent)]
    Setting(#[from] InvalidSetting),
}

/// Everything a pipeline run does, per generation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineConfig {
    /// Seed of the whole run (self-play, training and evaluation seeds derive from it).
    pub seed: u64,
    /// Generations of self-play -> training -> evaluation.
    pub generations: u32,
    /// Self-play games per generation.
    pub games: u64,
    /// Games per Parquet shard (the unit of resumption).
    pub shard_games: u64,
    /// Network preset of the first network: tiny, small, medium, large.
    pub preset: String,
    /// Training steps per generation.
    pub steps: u64,
    pub selfplay: SelfplayConfig,
    pub train: TrainConfig,
    pub eval: EvalConfig,
    pub teacher: TeacherConfig,
}

/// The supervised start: a searching engine's logged games exported as teacher positions
/// (`<run>/teacher/`, as `shogilab teacher` does) and generation 0's network trained on them
/// before any self-play, instead of self-play from a fresh network.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TeacherConfig {
    /// Imbalance game log folder (e.g. `reports/piece-values/depth2/games/chu`); empty: no
    /// supervised start (pure self-play from zero).
    pub log: String,
    /// Keep one position in `every` of each game.
    pub every: u32,
    /// Training steps on the teacher positions.
    pub steps: u64,
    /// Depth of the alpha-beta search that labels the positions' values (0: the values repeat
    /// the games' results).
    pub value_depth: u32,
    /// Logistic scale (centipawns) of those search scores; 0: fitted to the results of the
    /// log's first 500 games (`shogilab teacher --value-scale`).
    pub value_scale: f64,
    /// A network already trained on teacher data (`.ot` with its `.json`), taken as
    /// generation 0 instead of training one on `log` (empty: train it).
    pub network: String,
    /// The CPU-hours that trained `network` (its `models/README.md` entry), counted in the
    /// learning curve as the teacher stage's compute.
    pub network_cpu_hours: f64,
}

impl Default for TeacherConfig {
    fn default() -> Self {
        TeacherConfig {
            log: String::new(),
            every: 4,
            steps: 0,
            value_depth: 1,
            value_scale: 0.0,
            network: String::new(),
            network_cpu_hours: 0.0,
        }
    }
}

/// Evaluation of each new network against the previous one (the uniform search for the first).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct EvalConfig {
    /// Games per generation (0 skips the evaluation).
    pub games: usize,
    /// Simulations per move of both sides (0: the self-play number).
    pub simulations: u32,
    /// Random opening plies before the agents take over (shared by each colour-swapped pair).
    pub opening_plies: usize,
    /// Fixed reference agents (specs such as `greedy`, `alphabeta:2`) that every new network
    /// plays, for the Elo curve over generations and CPU-hours.
    pub anchors: Vec<String>,
    /// Games of each network against each anchor.
    pub anchor_games: usize,
    /// Milliseconds per move of both sides in the anchor games (0: the network plays its
    /// simulations, the anchor its own default).
    pub movetime_ms: u64,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            games: 10,
            simulations: 0,
            opening_plies: 4,
            anchors: Vec::new(),
            anchor_games: 20,
            movetime_ms: 0,
        }
    }
}

impl Default for PipelineConfig {
    fn default() -> Self {
        let mut selfplay = SelfplayConfig { concurrent: 32, max_plies: 300, ..Default::default() };
        selfplay.search.simulations = 16;
        PipelineConfig {
            seed: 1,
            generations: 3,
            games: 48,
            shard_games: 16,
            preset: "tiny".into(),
            steps: 200,
            selfplay,
            train: TrainConfig { learning_rate: 0.002, window: 3, ..Default::default() },
            eval: EvalConfig::default(),
            teacher: TeacherConfig::default(),
        }
    }
}

impl PipelineConfig {
    /// Range checks beyond what the types say; the error names the dotted key.
    pub fn validate(&self) -> Result<(), RangeError> {
        let at_least_one = [
            ("generations", self.generations as u64),
            ("games", self.games),
            ("shard_games", self.shard_games),
            ("steps", self.steps),
            ("train.window", self.train.window as u64),
        ];
        for (key, v) in at_least_one {
            if v == 0 {
                return Err(InvalidSetting::new(key, 0, "must be at least 1").into());
            }
        }
        let trains_teacher = !self.teacher.log.is_empty() && self.teacher.network.is_empty();
        let conditional = [
            ("teacher.steps", self.teacher.steps, trains_teacher, "teacher.log"),
            ("teacher.every", self.teacher.every as u64, trains_teacher, "teacher.log"),
            (
                "eval.anchor_games",
                self.eval.anchor_games as u64,
                !self.eval.anchors.is_empty(),
                "eval.anchors",
            ),
        ];
        for (key, v, needed, with) in conditional {
            if needed && v == 0 {
                let expected = format!("must be at least 1 with {with}");
                return Err(InvalidSetting::new(key, 0, &expected).into());
            }
        }
        let hours = self.teacher.network_cpu_hours;
        if !(hours.is_finite() && hours >= 0.0) {
            let expected = "must be a number of hours, 0 or more";
            return Err(InvalidSetting::new("teacher.network_cpu_hours", hours, expected).into());
        }
        if NetConfig::preset(&self.preset).is_none() {
            let expected = "expected tiny, small, medium or large";
            return Err(
                InvalidSetting::new("preset", format!("{:?}", self.preset), expected).into()
            );
        }
        self.selfplay.validate()?;
        Ok(self.train.validate()?)
    }

    /// Simulations per move in the evaluation matches.
    pub fn eval_simulations(&self) -> u32 {
        if self.eval.simulations == 0 {
            self.selfplay.search.simulations
        } else {
            self.eval.simulations
        }
    }

    /// The configuration as TOML (what `run.toml` holds).
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        toml::to_string(self)
    }
}

/// One override layer: where it comes from (for messages) and its table.
pub struct Layer {
    pub origin: String,
    pub table: Table,
}

impl Layer {
    /// A TOML file.
    pub fn file(path: &Path) -> Result<Layer, ConfigError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|source| ConfigError::Read { path: p.clone(), source })?;
        let table: Table = toml::from_str(&text)
            .map_err(|source| ConfigError::Toml { path: p.clone(), source: Box::new(source) })?;
        Ok(Layer { origin: p, table })
    }

    /// `key=value` pairs (`--set`); the value is read as TOML (`64`, `0.5`, `true`,
    /// `"small"`), a bare word as a string.
    pub fn assignments(origin: &str, pairs: &[String]) -> Result<Layer, ConfigError> {
        let mut table = Table::new();
        let refuse = |pair: &str, reason: &str| ConfigError::Assignment {
            origin: origin.to_string(),
            pair: pair.to_string(),
            reason: reason.to_string(),
        };
        for pair in pairs {
            let Some((key, raw)) = pair.split_once('=') else {
                return Err(refuse(
                    pair,
                    "expected KEY=VALUE (e.g. selfplay.search.simulations=64)",
                ));
            };
            let (key, raw) = (key.trim(), raw.trim());
            if key.is_empty() || key.split('.').any(str::is_empty) {
                return Err(refuse(pair, "empty key"));
            }
            let value = toml::from_str::<Table>(&format!("v = {raw}"))
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| Value::String(raw.to_string()));
            insert_dotted(&mut table, key, value);
        }
        Ok(Layer { origin: origin.to_string(), table })
    }
}

fn insert_dotted(table: &mut Table, key: &str, value: Value) {
    match key.split_once('.') {
        None => {
            table.insert(key.to_string(), value);
        }
        Some((head, rest)) => {
            let sub = table.entry(head.to_string()).or_insert_with(|| Value::Table(Table::new()));
            if !sub.is_table() {
                *sub = Value::Table(Table::new());
            }
            if let Value::Table(t) = sub {
                insert_dotted(t, rest, value);
            }
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "true or false",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "an array",
        Value::Table(_) => "a table",
    }
}

/// Merge `over` into `base`, allowing only keys `base` has and values of the same kind
/// (an integer where a number is expected is accepted).
fn merge(base: &mut Table, over: &Table, origin: &str, prefix: &str) -> Result<(), ConfigError> {
    for (k, v) in over {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        let Some(slot) = base.get_mut(k) else {
            let mut known: Vec<&str> = base.keys().map(String::as_str).collect();
            known.sort_unstable();
            return Err(ConfigError::UnknownKey {
                origin: origin.to_string(),
                key,
                known: known.join(", "),
            });
        };
        match (slot, v) {
            (Value::Table(b), Value::Table(o)) => merge(b, o, origin, &key)?,
            (Value::Float(f), Value::Integer(i)) => *f = *i as f64,
            (slot, v) if std::mem::discriminant(slot) == std::mem::discriminant(v) => {
                *slot = v.clone()
            }
            (slot, v) => {
                return Err(ConfigError::WrongType {
                    origin: origin.to_string(),
                    key,
                    value: v.to_string(),
                    expected: kind(slot),
                })
            }
        }
    }
    Ok(())
}

/// Resolve the defaults and the layers, in order, into a checked configuration.
pub fn resolve(layers: &[Layer]) -> Result<PipelineConfig, ConfigError> {
    let mut tree = Table::try_from(PipelineConfig::default())
        .map_err(|e| ConfigError::Defaults(Box::new(e)))?;
    for layer in layers {
        merge(&mut tree, &layer.table, &layer.origin, "")?;
    }
    let used: Vec<&str> =
        layers.iter().filter(|l| !l.table.is_empty()).map(|l| l.origin.as_str()).collect();
    let origins = if used.is_empty() { "defaults".to_string() } else { used.join(" + ") };
    let cfg: PipelineConfig = Value::Table(tree)
        .try_into()
        .map_err(|e| ConfigError::Shape { origins: origins.clone(), source: Box::new(e) })?;
    cfg.validate().map_err(|source| ConfigError::Range { origins, source })?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(pairs: &[&str]) -> Layer {
        Layer::assignments("--set", &pairs.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap()
    }

    #[test]
    fn defaults_are_valid_and_round_trip() {
        let cfg = resolve(&[]).unwrap();
        assert_eq!(cfg, PipelineConfig::default());
        let back: PipelineConfig = toml::from_str(&cfg.to_toml().unwrap()).unwrap();
        assert_eq!(back, cfg);
    }

    #[test]
    fn later_layers_win() {
        let file = Layer {
            origin: "f.toml".into(),
            table: toml::from_str("games = 7\n[selfplay.search]\nsimulations = 40\n").unwrap(),
        };
        let cfg =
            resolve(&[file, set(&["games=9", "train.learning_rate=1", "preset=small"])]).unwrap();
        assert_eq!(cfg.games, 9);
        assert_eq!(cfg.selfplay.search.simulations, 40);
        assert_eq!(cfg.train.learning_rate, 1.0);
        assert_eq!(cfg.preset, "small");
    }

    #[test]
    fn unknown_key_is_named_with_its_origin() {
        let e = resolve(&[set(&["selfplay.search.simulatons=3"])]).unwrap_err().to_string();
        assert!(e.contains("--set") && e.contains("`selfplay.search.simulatons`"), "{e}");
        assert!(e.contains("simulations"), "lists the known keys: {e}");
    }

    #[test]
    fn wrong_type_and_out_of_range_are_errors() {
        let e = resolve(&[set(&["games=many"])]).unwrap_err().to_string();
        assert!(e.contains("`games`") && e.contains("integer"), "{e}");
        let e = resolve(&[set(&["selfplay.concurrent=0"])]).unwrap_err().to_string();
        assert!(e.contains("selfplay.concurrent"), "{e}");
        let e = resolve(&[set(&["selfplay.search.simulations=0"])]).unwrap_err().to_string();
        assert!(e.contains("selfplay.search.simulations = 0"), "{e}");
        let e = resolve(&[set(&["preset=huge"])]).unwrap_err().to_string();
        assert!(e.contains("preset"), "{e}");
        assert!(matches!(
            Layer::assignments("--set", &["novalue".into()]),
            Err(ConfigError::Assignment { .. })
        ));
    }
}
