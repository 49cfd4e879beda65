//! A USI engine as an [`Agent`]: `usi`/`usiok`, `setoption`, `isready`/`readyok`,
//! `usinewgame`, `position (startpos|sfen ...) moves ...`, `go nodes N` or
//! `go btime 0 wtime 0 byoyomi MS`, and `bestmove` (`resign` and `win` included). Chushogi
//! engines in lishogi's form (Fairy-Stockfish) get `setoption name UCI_Variant value chushogi`.
//! Every read has a deadline; any failure is an [`AgentError`] (a forfeit for the referee).

use crate::agent::{start_and_usi_moves, Agent, AgentError, Choice, Limits};
use crate::engine_proc::EngineProc;
use shogilab_engine::{Game, Position, Variant};
use std::sync::Arc;
use std::time::Duration;

/// How to run a USI engine.
#[derive(Debug, Clone)]
pub struct UsiConfig {
    pub path: String,
    pub args: Vec<String>,
    /// `setoption name N value V` sent after `usiok`.
    pub options: Vec<(String, String)>,
    /// Limit for `usiok` and `readyok`.
    pub init_timeout: Duration,
    /// Time allowed beyond the move time (or for a node-limited search).
    pub move_margin: Duration,
    /// Move time when the limits give neither nodes nor time.
    pub default_movetime_ms: u64,
}

impl UsiConfig {
    pub fn new(path: &str) -> UsiConfig {
        UsiConfig {
            path: path.to_string(),
            args: Vec::new(),
            options: Vec::new(),
            init_timeout: Duration::from_secs(10),
            move_margin: Duration::from_secs(10),
            default_movetime_ms: 1000,
        }
    }
}

/// The USI name of a variant for `UCI_Variant` (lishogi/Fairy-Stockfish spelling).
pub fn usi_variant_name(v: &Variant) -> String {
    match v.name.as_str() {
        "chu" => "chushogi".into(),
        "shogi" => "shogi".into(),
        other => other.to_string(),
    }
}

/// An external USI engine.
pub struct UsiAgent {
    cfg: UsiConfig,
    variant: Arc<Variant>,
    proc: Option<EngineProc>,
    name: String,
    engine_name: Option<String>,
}

impl UsiAgent {
    pub fn new(cfg: UsiConfig, variant: Arc<Variant>) -> UsiAgent {
        // Settings are part of the name: two levels of one engine are two agents.
        let mut name = format!("usi:{}", cfg.path);
        for (k, v) in &cfg.options {
            name.push_str(&format!("|{k}={v}"));
        }
        UsiAgent { cfg, variant, proc: None, name, engine_name: None }
    }

    /// The name the engine gave in `id name`, once started.
    pub fn engine_name(&self) -> Option<&str> {
        self.engine_name.as_deref()
    }

    fn start(&mut self) -> Result<&mut EngineProc, AgentError> {
        if self.proc.as_mut().is_some_and(|p| p.alive()) {
            // checked above; re-borrow below
        } else {
            self.proc = None;
            let mut p = EngineProc::spawn(&self.cfg.path, &self.cfg.args, &self.name)?;
            p.send("usi")?;
            let mut has_variant_option = false;
            let mut id = None;
            p.wait_for(self.cfg.init_timeout, "usi (usiok)", |l| {
                if let Some(n) = l.strip_prefix("id name ") {
                    id = Some(n.trim().to_string());
                }
                if l.starts_with("option name UCI_Variant ") {
                    has_variant_option = true;
                }
                l.trim() == "usiok"
            })?;
            self.engine_name = id;
            // Engines that play several variants (Fairy-Stockfish, lishogi's) select by this.
            if has_variant_option {
                p.send(&format!(
                    "setoption name UCI_Variant value {}",
                    usi_variant_name(&self.variant)
                ))?;
            }
            for (k, v) in &self.cfg.options {
                p.send(&format!("setoption name {k} value {v}"))?;
            }
            p.send("isready")?;
            p.wait_for(self.cfg.init_timeout, "isready (readyok)", |l| l.trim() == "readyok")?;
            self.proc = Some(p);
        }
        self.proc.as_mut().ok_or_else(|| AgentError::Unsupported("engine not running".into()))
    }

    fn position_command(&self, start: &Position, moves: &[String]) -> String {
        let start_sfen = start.to_sfen();
        let std_sfen = Position::start(&self.variant).to_sfen();
        let mut s = if start_sfen == std_sfen {
            "position startpos".to_string()
        } else {
            format!("position sfen {start_sfen}")
        };
        if !moves.is_empty() {
            s.push_str(" moves ");
            s.push_str(&moves.join(" "));
        }
        s
    }
}

impl Agent for UsiAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// `go nodes N` and `go byoyomi MS`.
    fn limit_support(&self) -> crate::agent::LimitSupport {
        crate::agent::LimitSupport::ALL
    }

    fn new_game(&mut self, _game: &Game) -> Result<(), AgentError> {
        let init = self.cfg.init_timeout;
        let p = self.start()?;
        p.drain();
        p.send("usinewgame")?;
        // make sure the engine is responsive before the clock starts
        p.send("isready")?;
        p.wait_for(init, "isready (readyok)", |l| l.trim() == "readyok")?;
        Ok(())
    }

    fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError> {
        let (start, usi) = start_and_usi_moves(game);
        let pos_cmd = self.position_command(&start, &usi);
        let (go, wait) = match (limits.nodes, limits.movetime_ms) {
            (Some(n), None) => (format!("go nodes {n}"), self.cfg.move_margin * 3),
            (n, t) => {
                let ms = t.unwrap_or(self.cfg.default_movetime_ms);
                let mut g = format!("go btime 0 wtime 0 byoyomi {ms}");
                if let Some(n) = n {
                    g.push_str(&format!(" nodes {n}"));
                }
                (g, Duration::from_millis(ms) + self.cfg.move_margin)
            }
        };
        let p = self.start()?;
        p.drain();
        p.send(&pos_cmd)?;
        p.send(&go)?;
        let line = p.wait_for(wait, "go (bestmove)", |l| l.starts_with("bestmove"))?;
        let mv = line.split_whitespace().nth(1).ok_or_else(|| AgentError::Protocol {
            engine: self.name.clone(),
            line: line.clone(),
            reason: "bestmove without a move".into(),
        })?;
        match mv {
            "resign" => Ok(Choice::Resign),
            "win" => Ok(Choice::DeclareWin),
            _ => game
                .parse_usi(mv)
                .map(Choice::Move)
                .map_err(|e| AgentError::IllegalMove { mv: mv.to_string(), reason: e.to_string() }),
        }
    }
}
