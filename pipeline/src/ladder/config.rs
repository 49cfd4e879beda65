//! The ladder's TOML configuration ([`LadderConfig`]): the variant and game settings, the agents
//! with their limits and notes, the head-to-head matches, and the external things some agents
//! need (engine binaries, checkpoints) with the hint that says how to get each. Loading checks
//! every field and names the file and the key of the first fault.

use super::LadderError;
use serde::Deserialize;
use shogilab_eval::Limits;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// A strength ladder: a round robin among `agents`, then the `h2h` matches.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LadderConfig {
    /// A built-in variant name or a variant TOML file.
    pub variant: String,
    /// Seed of the round robin (pair `k` plays with `seed + 7919 k`; agent `i` is seeded
    /// `seed + 101 i`).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Games of each pair of the round robin (openings are played twice, colours swapped).
    pub games_per_pair: usize,
    /// Ply cap of every game (a draw when reached).
    pub max_plies: u32,
    /// Random plies of each opening.
    #[serde(default = "default_opening_plies")]
    pub opening_plies: usize,
    /// The random plies move no royal piece (`match --still-royals`; for tai, whose random
    /// plies otherwise hand the first mover the other Emperor at ply 5).
    #[serde(default)]
    pub still_royals: bool,
    /// Seed of the head-to-head matches (default: `seed + 10`).
    pub h2h_seed: Option<u64>,
    /// The agents, the anchor (Elo 0) first.
    #[serde(rename = "agent", default)]
    pub agents: Vec<AgentConfig>,
    /// Head-to-head matches between two agents of the ladder, outside the Elo fit.
    #[serde(rename = "h2h", default)]
    pub h2h: Vec<H2hConfig>,
    /// Things outside this repository that agents need, by name.
    #[serde(default)]
    pub external: BTreeMap<String, External>,
    /// Lines for the report about players that are not on this ladder, and why.
    #[serde(default)]
    pub not_on_ladder: Vec<String>,
    /// The file this configuration was read from (named in errors).
    #[serde(skip)]
    pub source: PathBuf,
}

fn default_seed() -> u64 {
    1
}

fn default_opening_plies() -> usize {
    4
}

/// One agent of the ladder.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// An agent spec without `@LIMITS` (`alphabeta:2`, `xboard:/usr/games/hachu|sd=1`).
    pub spec: String,
    /// Its name in the tables (default: the spec).
    pub name: Option<String>,
    /// Nodes (alpha-beta, USI) or simulations (MCTS) per move.
    pub nodes: Option<u64>,
    /// Milliseconds per move (alpha-beta, USI, XBoard).
    pub movetime_ms: Option<u64>,
    /// What the agent is, for the report.
    pub note: String,
    /// Names of [`LadderConfig::external`] entries this agent needs; when one is missing the
    /// agent is left out of the ladder, and the report says why.
    #[serde(default)]
    pub needs: Vec<String>,
}

impl AgentConfig {
    /// The name in the tables.
    pub fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.spec)
    }

    /// The limits as configured.
    pub fn limits(&self) -> Limits {
        Limits { nodes: self.nodes, movetime_ms: self.movetime_ms }
    }
}

/// A head-to-head match between two agents (by name).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct H2hConfig {
    pub a: String,
    pub b: String,
    pub games: usize,
}

/// Something outside the repository: an engine binary or a checkpoint.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct External {
    /// The file that must exist.
    pub path: String,
    /// How to get it (`apt-get install hachu`, the command that trains a checkpoint).
    pub hint: String,
    /// The Debian package whose version the report names (`dpkg-query`).
    pub package: Option<String>,
}

impl External {
    pub fn present(&self) -> bool {
        Path::new(&self.path).exists()
    }
}

impl LadderConfig {
    /// Read and check `path`; errors name the file and the key.
    pub fn load(path: &Path) -> Result<LadderConfig, LadderError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| LadderError::Read { path: path.to_path_buf(), source })?;
        let mut cfg: LadderConfig = toml::from_str(&text)
            .map_err(|e| LadderError::Parse { path: path.to_path_buf(), message: e.to_string() })?;
        cfg.source = path.to_path_buf();
        cfg.check()?;
        Ok(cfg)
    }

    /// The seed of the head-to-head matches.
    pub fn h2h_seed(&self) -> u64 {
        self.h2h_seed.unwrap_or(self.seed.wrapping_add(10))
    }

    /// Check every field (after a change such as `--games-per-pair`); errors name
    /// [`Self::source`] and the key.
    pub fn check(&self) -> Result<(), LadderError> {
        let bad = |key: String, reason: String| LadderError::Invalid {
            path: self.source.clone(),
            key,
            reason,
        };
        if self.games_per_pair == 0 {
            return Err(bad("games_per_pair".into(), "must be at least 1".into()));
        }
        if self.agents.len() < 2 {
            return Err(bad("agent".into(), "a ladder needs at least two [[agent]]".into()));
        }
        let mut names = HashSet::new();
        for (k, a) in self.agents.iter().enumerate() {
            let key = |field: &str| format!("agent[{k}].{field}");
            if a.spec.contains('@') {
                return Err(bad(
                    key("spec"),
                    format!("{:?}: give limits as nodes / movetime_ms, not @", a.spec),
                ));
            }
            for (field, v) in [("nodes", a.nodes), ("movetime_ms", a.movetime_ms)] {
                if v == Some(0) {
                    return Err(bad(key(field), "must be at least 1".into()));
                }
            }
            if !names.insert(a.display_name()) {
                return Err(bad(key("name"), format!("{:?} names two agents", a.display_name())));
            }
            for n in &a.needs {
                if !self.external.contains_key(n) {
                    return Err(bad(key("needs"), format!("no [external.{n}]")));
                }
            }
        }
        for (k, h) in self.h2h.iter().enumerate() {
            for (field, name) in [("a", &h.a), ("b", &h.b)] {
                if !names.contains(name.as_str()) {
                    return Err(bad(format!("h2h[{k}].{field}"), format!("no agent {name:?}")));
                }
            }
            if h.a == h.b {
                return Err(bad(format!("h2h[{k}].b"), "an agent against itself".into()));
            }
            if h.games == 0 {
                return Err(bad(format!("h2h[{k}].games"), "must be at least 1".into()));
            }
        }
        Ok(())
    }

    /// The agents whose needs are all present, with their indices; and the others, each with
    /// the first missing external.
    pub fn split_available(&self) -> (Vec<usize>, Vec<(usize, String)>) {
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for (i, a) in self.agents.iter().enumerate() {
            match a.needs.iter().find(|n| !self.external[n.as_str()].present()) {
                Some(n) => off.push((i, n.clone())),
                None => on.push(i),
            }
        }
        (on, off)
    }
}

/// Where a run writes by default: `runs/ladder-<variant>` and `reports/strength/<variant>.md`
/// (the variant's file stem when it is a path).
pub fn default_paths(cfg: &LadderConfig) -> (PathBuf, PathBuf) {
    let stem = Path::new(&cfg.variant)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| cfg.variant.clone());
    (
        PathBuf::from(format!("runs/ladder-{stem}")),
        PathBuf::from(format!("reports/strength/{stem}.md")),
    )
}
