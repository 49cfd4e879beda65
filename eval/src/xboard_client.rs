//! An XBoard/WinBoard engine as an [`Agent`] (HaChu for chu and tenjiku: Debian `hachu`).
//!
//! Start: `xboard`, `protover 2`, features until `feature done=1`. Each game: `variant V`,
//! `memory N` (HaChu accepts no moves before it has a hash table), `new`, `force`, `easy`. Each
//! move: `force`, the moves played since the engine last moved (`usermove` prefix when the
//! engine asked for it), `ping`/`pong` to catch an `Illegal move` reply, `st`, `time`/`otim`
//! (centiseconds), `go`; then `move ...` (legs split over lines ending in `,` are joined),
//! `resign` or a result claim. Every read has a deadline.

use crate::agent::{start_and_moves, Agent, AgentError, Choice, Limits};
use crate::engine_proc::EngineProc;
use crate::winboard::{move_to_wb, parse_wb_move};
use shogilab_engine::{Game, Move, Position, Variant};
use std::sync::Arc;
use std::time::Duration;

/// How to run an XBoard engine.
#[derive(Debug, Clone)]
pub struct XBoardConfig {
    pub path: String,
    pub args: Vec<String>,
    /// Hash size in MB for `memory`.
    pub memory_mb: u32,
    /// Fixed depth (`sd`), if any.
    pub depth: Option<u32>,
    /// Limit for the feature negotiation and pings.
    pub init_timeout: Duration,
    /// Time allowed beyond the move time.
    pub move_margin: Duration,
    /// Move time when the limits give none.
    pub default_movetime_ms: u64,
}

impl XBoardConfig {
    pub fn new(path: &str) -> XBoardConfig {
        XBoardConfig {
            path: path.to_string(),
            args: Vec::new(),
            memory_mb: 16,
            depth: None,
            init_timeout: Duration::from_secs(10),
            move_margin: Duration::from_secs(10),
            default_movetime_ms: 1000,
        }
    }
}

/// WinBoard's name of a variant.
pub fn xboard_variant_name(v: &Variant) -> String {
    v.name.clone()
}

/// An external XBoard engine.
pub struct XBoardAgent {
    cfg: XBoardConfig,
    variant: Arc<Variant>,
    proc: Option<EngineProc>,
    name: String,
    usermove: bool,
    ping: bool,
    ping_n: u32,
    /// Moves the engine's board holds.
    sent: Vec<Move>,
    last_st: Option<u64>,
}

fn feature_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("{key}=");
    let i = line.find(&pat)?;
    let rest = &line[i + pat.len()..];
    if let Some(r) = rest.strip_prefix('"') {
        r.split('"').next()
    } else {
        rest.split_whitespace().next()
    }
}

impl XBoardAgent {
    pub fn new(cfg: XBoardConfig, variant: Arc<Variant>) -> XBoardAgent {
        // Settings are part of the name: two levels of one engine are two agents.
        let mut name = format!("xboard:{}", cfg.path);
        if let Some(d) = cfg.depth {
            name.push_str(&format!("|sd={d}"));
        }
        if cfg.memory_mb != XBoardConfig::new("").memory_mb {
            name.push_str(&format!("|memory={}", cfg.memory_mb));
        }
        XBoardAgent {
            cfg,
            variant,
            proc: None,
            name,
            usermove: false,
            ping: false,
            ping_n: 0,
            sent: Vec::new(),
            last_st: None,
        }
    }

    fn proto_err(&self, line: &str, reason: &str) -> AgentError {
        AgentError::Protocol { engine: self.name.clone(), line: line.into(), reason: reason.into() }
    }

    fn start(&mut self) -> Result<(), AgentError> {
        if self.proc.as_mut().is_some_and(|p| p.alive()) {
            return Ok(());
        }
        self.proc = None;
        let mut p = EngineProc::spawn(&self.cfg.path, &self.cfg.args, &self.name)?;
        p.send("xboard")?;
        p.send("protover 2")?;
        let (mut usermove, mut ping, mut variants) = (false, false, None::<String>);
        p.wait_for(self.cfg.init_timeout, "protover 2 (feature done=1)", |l| {
            if !l.starts_with("feature ") {
                return false;
            }
            if let Some(v) = feature_value(l, "usermove") {
                usermove = v == "1";
            }
            if let Some(v) = feature_value(l, "ping") {
                ping = v == "1";
            }
            if let Some(v) = feature_value(l, "variants") {
                variants = Some(v.to_string());
            }
            feature_value(l, "done") == Some("1")
        })?;
        let want = xboard_variant_name(&self.variant);
        if let Some(vs) = &variants {
            if !vs.split(',').any(|x| x.trim() == want) {
                return Err(AgentError::Unsupported(format!(
                    "{} does not play {want} (variants={vs})",
                    self.name
                )));
            }
        }
        self.usermove = usermove;
        self.ping = ping;
        self.proc = Some(p);
        Ok(())
    }

    fn p(&mut self) -> Result<&mut EngineProc, AgentError> {
        self.proc.as_mut().ok_or_else(|| AgentError::Unsupported("engine not running".into()))
    }

    /// Reset the engine's game to the variant's start position, in force mode.
    fn reset(&mut self) -> Result<(), AgentError> {
        self.start()?;
        let variant = xboard_variant_name(&self.variant);
        let mem = self.cfg.memory_mb;
        let depth = self.cfg.depth;
        let p = self.p()?;
        p.drain();
        // Protocol 2 order: `new` resets the variant, so `variant` follows it; HaChu accepts
        // moves only once `memory` has given it a hash table.
        p.send("new")?;
        p.send(&format!("variant {variant}"))?;
        p.send(&format!("memory {mem}"))?;
        p.send("force")?;
        p.send("easy")?;
        p.send("post")?;
        if let Some(d) = depth {
            p.send(&format!("sd {d}"))?;
        }
        self.sent.clear();
        self.last_st = None;
        self.sync()
    }

    /// Wait until the engine has processed everything sent so far; an `Illegal move` or
    /// `Error` reply on the way is a protocol failure.
    fn sync(&mut self) -> Result<(), AgentError> {
        if !self.ping {
            return Ok(());
        }
        self.ping_n += 1;
        let n = self.ping_n;
        let to = self.cfg.init_timeout;
        let p = self.p()?;
        p.send(&format!("ping {n}"))?;
        let pong = format!("pong {n}");
        let mut bad = None;
        p.wait_for(to, "ping (pong)", |l| {
            if l.starts_with("Illegal move") || l.starts_with("Error") {
                bad.get_or_insert_with(|| l.to_string());
            }
            l.trim() == pong
        })?;
        match bad {
            Some(l) => Err(self.proto_err(&l, "the engine rejected a command or a legal move")),
            None => Ok(()),
        }
    }
}

impl Agent for XBoardAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, _game: &Game) -> Result<(), AgentError> {
        self.reset()
    }

    fn choose(&mut self, game: &Game, limits: &Limits) -> Result<Choice, AgentError> {
        let (start, moves) = start_and_moves(game);
        if start.to_sfen() != Position::start(&self.variant).to_sfen() {
            return Err(AgentError::Unsupported(format!(
                "{}: games from a set-up position are not supported",
                self.name
            )));
        }
        self.start()?;
        if self.sent.len() > moves.len() || self.sent[..] != moves[..self.sent.len()] {
            self.reset()?;
        }
        // the moves since the engine's board, in WinBoard notation
        let mut pos = start.clone();
        let mut texts = Vec::new();
        for (i, &m) in moves.iter().enumerate() {
            if i >= self.sent.len() {
                texts.push(move_to_wb(&pos, m));
            }
            pos.play(m);
        }
        let ms = limits.movetime_ms.unwrap_or(self.cfg.default_movetime_ms).max(1);
        let st = ms.div_ceil(1000);
        let cs = ms.div_ceil(10);
        let usermove = self.usermove;
        let resend_st = self.last_st != Some(st) && self.cfg.depth.is_none();
        {
            let p = self.p()?;
            p.drain();
            p.send("force")?;
            for t in &texts {
                p.send(&if usermove { format!("usermove {t}") } else { t.clone() })?;
            }
            if resend_st {
                p.send(&format!("st {st}"))?;
            }
        }
        if resend_st {
            self.last_st = Some(st);
        }
        self.sent = moves.clone();
        self.sync()?;
        let wait = Duration::from_millis(ms) + self.cfg.move_margin;
        let wait = if self.cfg.depth.is_some() { wait.max(Duration::from_secs(120)) } else { wait };
        let name = self.name.clone();
        let p = self.p()?;
        p.send(&format!("time {cs}"))?;
        p.send(&format!("otim {cs}"))?;
        p.send("go")?;
        let deadline = std::time::Instant::now() + wait;
        let mut text = String::new();
        loop {
            let line = p.recv(deadline, "go (move)", wait.as_millis() as u64)?;
            let l = line.trim();
            if let Some(m) = l.strip_prefix("move ") {
                text.push_str(m.trim());
                if text.ends_with(',') {
                    continue; // HaChu prints each leg of a double move on its own line
                }
                break;
            }
            if l == "resign" || l.starts_with("resign ") {
                return Ok(Choice::Resign);
            }
            if l.starts_with("1-0") || l.starts_with("0-1") || l.starts_with("1/2-1/2") {
                // a result claim without a move: the engine sees no move to make
                if text.is_empty() {
                    return Ok(Choice::Resign);
                }
            }
            if l.starts_with("Illegal move") || l.starts_with("Error") {
                return Err(AgentError::Protocol {
                    engine: name,
                    line: line.clone(),
                    reason: "the engine rejected a command".into(),
                });
            }
        }
        let m = parse_wb_move(game.position(), &text)
            .map_err(|e| AgentError::IllegalMove { mv: text.clone(), reason: e.to_string() })?;
        if !game.legal().contains(&m) {
            return Err(AgentError::IllegalMove {
                mv: text,
                reason: "it repeats an earlier position, which this variant forbids".into(),
            });
        }
        self.sent.push(m);
        Ok(Choice::Move(m))
    }
}
