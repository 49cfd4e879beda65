//! An XBoard/WinBoard engine as an [`Agent`] (HaChu for chu and tenjiku: Debian `hachu`).
//!
//! Start: `xboard`, `protover 2`, features until `feature done=1`. Each game: `new`,
//! `variant V`, `memory N` (HaChu accepts no moves before it has a hash table), `force`,
//! `easy`, `post`, `sd N` when a depth is set. Each move: `force`, the moves played since the
//! engine last moved (`usermove` prefix when the engine asked for it), each followed by
//! `ping`/`pong` to catch an `Illegal move` reply to that very move, `st S` (the move time
//! rounded up to whole seconds, with or without a depth), `time`/`otim` (centiseconds), `go`;
//! then `move ...` (legs split over lines ending in `,` are joined), `resign` or a result
//! claim. Every read has a deadline.
//!
//! Two behaviours of HaChu are handled here (they were a Python shim around HaChu before):
//! * a lion's pass is sent as the null move `@@@@`; when the engine rejects a pass in that
//!   form (other than as a repetition), the client sends the same pass as two legs
//!   (`f3g4,g4f3`), and the other way round, and keeps the form that worked
//!   ([`XBoardAgent::pass_rewrites`] counts them);
//! * HaChu refuses any move that recreates an earlier position (the old strict rule), also when
//!   this variant's rules allow it. The client then fails with a reason that starts with
//!   [`REFUSED_REPETITION`] (else [`REFUSED_LEGAL`]), so that the referee's forfeit names the
//!   cause: a difference of rules, not a loss over the board.

use crate::agent::{start_and_moves, Agent, AgentError, Choice, Limits};
use crate::engine_proc::EngineProc;
use crate::winboard::{is_pass, move_to_wb, move_to_wb_legs, parse_wb_move};
use shogilab_engine::{Game, Move, Position, Variant};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// Start of the forfeit reason when the engine refuses a legal move of its opponent that
/// recreates an earlier position (a stricter repetition rule than the variant's).
pub const REFUSED_REPETITION: &str = "the engine refused its opponent's legal move that \
recreates an earlier position (its repetition rule is stricter than this variant's)";

/// Start of the forfeit reason when the engine refuses any other legal move of its opponent.
pub const REFUSED_LEGAL: &str = "the engine refused its opponent's legal move";

/// A move of the opponent on its way to the engine.
struct Outgoing {
    /// 1-based ply of the game.
    ply: usize,
    text: String,
    /// For a pass: the other notation (two legs when `text` is `@@@@`, and the other way).
    other_pass: Option<String>,
    /// The position after it occurred earlier in the game.
    repeats: bool,
}

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
    /// Send passes as two legs (after the engine refused `@@@@` and took the legs).
    pass_as_legs: bool,
    pass_rewrites: u64,
    /// The thinking lines (`ply score time nodes pv`) of the last search.
    thinking: Vec<Thinking>,
}

/// One thinking line of an XBoard engine (`post` output).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thinking {
    pub depth: u32,
    pub score: i32,
    /// Centiseconds since the search started.
    pub centis: u64,
    pub nodes: u64,
}

impl Thinking {
    /// Parse `ply score time nodes [pv]`; `None` for any other line.
    pub fn parse(line: &str) -> Option<Thinking> {
        let mut t = line.split_whitespace();
        let depth = t.next()?.trim_end_matches(['.', '&']).parse().ok()?;
        let score = t.next()?.parse().ok()?;
        let centis = t.next()?.parse().ok()?;
        let nodes = t.next()?.parse().ok()?;
        Some(Thinking { depth, score, centis, nodes })
    }
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
            pass_as_legs: false,
            pass_rewrites: 0,
            thinking: Vec::new(),
        }
    }

    /// The thinking lines of the last search, in the order the engine printed them.
    pub fn thinking(&self) -> &[Thinking] {
        &self.thinking
    }

    /// How many passes were re-sent in the other notation after the engine refused the first.
    pub fn pass_rewrites(&self) -> u64 {
        self.pass_rewrites
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

    /// Wait until the engine has processed everything sent so far and return the first
    /// `Illegal move` or `Error` reply on the way, if any (nothing to check without `ping`).
    fn ping(&mut self) -> Result<Option<String>, AgentError> {
        if !self.ping {
            return Ok(None);
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
        Ok(bad)
    }

    /// [`Self::ping`], with a rejection as a protocol failure.
    fn sync(&mut self) -> Result<(), AgentError> {
        match self.ping()? {
            Some(l) => Err(self.proto_err(&l, "the engine rejected a command")),
            None => Ok(()),
        }
    }

    fn send_text(&mut self, text: &str) -> Result<(), AgentError> {
        let line = if self.usermove { format!("usermove {text}") } else { text.to_string() };
        self.p()?.send(&line)
    }

    /// Send one move of the opponent and check that the engine took it; a refused pass is
    /// tried once more in the other notation.
    fn send_move(&mut self, m: &Outgoing) -> Result<(), AgentError> {
        self.send_text(&m.text)?;
        let Some(reply) = self.ping()? else { return Ok(()) };
        if let (Some(other), false) = (&m.other_pass, m.repeats) {
            self.send_text(other)?;
            if self.ping()?.is_none() {
                self.pass_rewrites += 1;
                self.pass_as_legs = other != "@@@@";
                return Ok(());
            }
        }
        let cause = if m.repeats { REFUSED_REPETITION } else { REFUSED_LEGAL };
        let mut reason = format!("{cause}: ply {} `{}`", m.ply, m.text);
        if let Some(other) = &m.other_pass {
            reason.push_str(&format!(" (a pass; also sent as `{other}`)"));
        }
        Err(self.proto_err(&reply, &reason))
    }

    /// Bring the engine's game up to `moves` (from the start, after a reset when the game is
    /// not a continuation of what it was sent), in force mode.
    fn catch_up(&mut self, start: &Position, moves: &[Move]) -> Result<(), AgentError> {
        self.start()?;
        if self.sent.len() > moves.len() || self.sent[..] != moves[..self.sent.len()] {
            self.reset()?;
        }
        let out = self.outgoing(start, moves, self.sent.len());
        self.p()?.drain();
        self.p()?.send("force")?;
        for m in &out {
            self.send_move(m)?;
            self.sent.push(moves[m.ply - 1]);
        }
        Ok(())
    }

    /// Search for `ms` milliseconds (`st` in whole seconds, `time`/`otim` in centiseconds) and
    /// read the engine's move text: `None` when it resigns or claims a result without a move.
    fn go(&mut self, ms: u64) -> Result<Option<String>, AgentError> {
        let st = ms.div_ceil(1000);
        if self.last_st != Some(st) {
            self.p()?.send(&format!("st {st}"))?;
            self.last_st = Some(st);
        }
        self.sync()?;
        let wait = Duration::from_millis(ms) + self.cfg.move_margin;
        let wait = if self.cfg.depth.is_some() { wait.max(Duration::from_secs(120)) } else { wait };
        let cs = ms.div_ceil(10);
        let name = self.name.clone();
        let p = self.p()?;
        p.send(&format!("time {cs}"))?;
        p.send(&format!("otim {cs}"))?;
        p.send("go")?;
        let deadline = std::time::Instant::now() + wait;
        let mut text = String::new();
        self.thinking.clear();
        loop {
            let line = self.p()?.recv(deadline, "go (move)", wait.as_millis() as u64)?;
            let l = line.trim();
            if let Some(t) = Thinking::parse(l) {
                self.thinking.push(t);
                continue;
            }
            if let Some(m) = l.strip_prefix("move ") {
                text.push_str(m.trim());
                if text.ends_with(',') {
                    continue; // HaChu prints each leg of a double move on its own line
                }
                return Ok(Some(text));
            }
            let claim = l.starts_with("1-0") || l.starts_with("0-1") || l.starts_with("1/2-1/2");
            // a result claim without a move: the engine sees no move to make
            if l == "resign" || l.starts_with("resign ") || (claim && text.is_empty()) {
                return Ok(None);
            }
            if l.starts_with("Illegal move") || l.starts_with("Error") {
                return Err(AgentError::Protocol {
                    engine: name,
                    line: line.clone(),
                    reason: "the engine rejected a command".into(),
                });
            }
        }
    }

    /// The moves of `moves` after the first `from`, in WinBoard notation, each with whether it
    /// recreates an earlier position of the game.
    fn outgoing(&self, start: &Position, moves: &[Move], from: usize) -> Vec<Outgoing> {
        let mut pos = start.clone();
        let mut seen = HashSet::from([pos.hash()]);
        let mut out = Vec::new();
        for (i, &m) in moves.iter().enumerate() {
            let text = if i < from {
                None
            } else if is_pass(&pos, m) {
                let (null, legs) = ("@@@@".to_string(), move_to_wb_legs(&pos, m));
                Some(if self.pass_as_legs { (legs, Some(null)) } else { (null, Some(legs)) })
            } else {
                Some((move_to_wb(&pos, m), None))
            };
            pos.play(m);
            let repeats = !seen.insert(pos.hash());
            if let Some((text, other_pass)) = text {
                out.push(Outgoing { ply: i + 1, text, other_pass, repeats });
            }
        }
        out
    }
}

impl Agent for XBoardAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Move time through `st`; the protocol has no node limit.
    fn limit_support(&self) -> crate::agent::LimitSupport {
        use crate::agent::LimitUse;
        crate::agent::LimitSupport { nodes: LimitUse::Unsupported, movetime: LimitUse::Honoured }
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
        self.catch_up(&start, &moves)?;
        let ms = limits.movetime_ms.unwrap_or(self.cfg.default_movetime_ms).max(1);
        let Some(text) = self.go(ms)? else { return Ok(Choice::Resign) };
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

#[cfg(test)]
mod tests {
    //! The client against a scripted engine (bash): a pass refused as `@@@@` and taken as two
    //! legs, and refusals of legal moves told apart by whether the move repeats a position.
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// A fake XBoard engine: features, `pong`, the bash `case` arm `usermove` (which may answer
    /// `Illegal move`), `resign` on `go`; every line it gets is appended to `<script>.log`.
    fn fake(name: &str, usermove: &str) -> (String, std::path::PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("shogilab-xboard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        let log = dir.join(format!("{name}.log"));
        let body = format!(
            r#"#!/bin/bash
while read -r line; do
  echo "$line" >> '{log}'
  case "$line" in
    protover*) echo 'feature usermove=1 ping=1 variants="chu" done=1';;
    ping*) echo "pong ${{line#ping }}";;
    usermove*) {usermove};;
    go) echo "resign";;
    quit) exit 0;;
  esac
done"#,
            log = log.display()
        );
        std::fs::write(&p, body).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        let _ = std::fs::remove_file(&log);
        (p.to_string_lossy().into_owned(), log)
    }

    /// A chu game (seeded random moves) that ends with a lion's pass by the side to move.
    fn game_ending_in_a_pass() -> Game {
        let v = Variant::builtin("chu").unwrap();
        let mut rng = SmallRng::seed_from_u64(7);
        for _ in 0..200 {
            let mut g = Game::new(Position::start(&v));
            for _ in 0..120 {
                let pos = g.position().clone();
                if let Some(&m) = g.legal().iter().find(|&&m| is_pass(&pos, m)) {
                    g.play(m);
                    return g;
                }
                let legal = g.legal();
                if legal.is_empty() || g.status().is_over() {
                    break;
                }
                let m = legal[rng.gen_range(0..legal.len())];
                g.play(m);
            }
        }
        panic!("no pass found in 200 random chu games");
    }

    /// Four chu plies that bring back the start position: a piece of each side out and back.
    fn game_with_a_repetition() -> Game {
        let v = Variant::builtin("chu").unwrap();
        let mut g = Game::new(Position::start(&v));
        let simple = |g: &Game| -> Vec<Move> {
            g.legal()
                .iter()
                .copied()
                .filter(|m| !m.is_drop() && m.mids().next().is_none())
                .collect()
        };
        let back =
            |g: &Game, m: Move| simple(g).into_iter().find(|r| r.from == m.to && r.to == m.from);
        for b in simple(&g) {
            let mut g1 = g.clone();
            g1.play(b);
            for w in simple(&g1) {
                let mut g2 = g1.clone();
                g2.play(w);
                let Some(b2) = back(&g2, b) else { continue };
                g2.play(b2);
                if let Some(w2) = back(&g2, w) {
                    g2.play(w2);
                    g = g2;
                    return g;
                }
            }
        }
        panic!("no out-and-back pair of moves in the chu start position");
    }

    fn agent(path: &str) -> XBoardAgent {
        let mut cfg = XBoardConfig::new(path);
        cfg.init_timeout = Duration::from_secs(5);
        cfg.move_margin = Duration::from_secs(2);
        XBoardAgent::new(cfg, Variant::builtin("chu").unwrap())
    }

    #[test]
    fn a_pass_refused_as_the_null_move_is_sent_as_two_legs() {
        let g = game_ending_in_a_pass();
        let arm = r#"if [ "$line" = "usermove @@@@" ]; then echo "Illegal move"; fi"#;
        let (path, log) = fake("refuses-null", arm);
        let mut xb = agent(&path);
        xb.new_game(&Game::new(Position::start(g.position().variant()))).unwrap();
        let limits = Limits { nodes: None, movetime_ms: Some(100) };
        assert_eq!(xb.choose(&g, &limits), Ok(Choice::Resign));
        assert_eq!(xb.pass_rewrites(), 1);
        let sent = std::fs::read_to_string(log).unwrap();
        let mut before = g.clone();
        let pass = before.unplay().unwrap();
        let legs = move_to_wb_legs(before.position(), pass);
        assert!(legs.contains(','), "two legs: {legs}");
        let null_at = sent.find("usermove @@@@").expect("the pass went as @@@@ first");
        let legs_at = sent.find(&format!("usermove {legs}")).expect("then as two legs");
        assert!(null_at < legs_at, "{sent}");
        // the next pass goes as legs at once (the form that worked)
        assert!(xb.pass_as_legs);
    }

    #[test]
    fn a_refused_repetition_is_named_as_a_difference_of_rules() {
        let g = game_with_a_repetition();
        assert_eq!(g.plies(), 4);
        let limits = Limits { nodes: None, movetime_ms: Some(100) };
        // the engine refuses every fourth usermove line (the one that brings the start back)
        let fourth = r#"n=$((n+1)); if [ $n -eq 4 ]; then echo "Illegal move {Repeats earlier position}"; fi"#;
        let (path, _) = fake("refuses-repetition", fourth);
        let mut xb = agent(&path);
        xb.new_game(&Game::new(Position::start(g.position().variant()))).unwrap();
        let e = xb.choose(&g, &limits).unwrap_err().to_string();
        assert!(e.contains(REFUSED_REPETITION) && e.contains("ply 4"), "{e}");
        // a refusal of a move that repeats nothing is a plain refusal of a legal move
        let second = r#"n=$((n+1)); if [ $n -eq 2 ]; then echo "Illegal move"; fi"#;
        let (path, _) = fake("refuses-second", second);
        let mut xb = agent(&path);
        xb.new_game(&Game::new(Position::start(g.position().variant()))).unwrap();
        let e = xb.choose(&g, &limits).unwrap_err().to_string();
        assert!(e.contains(REFUSED_LEGAL) && e.contains("ply 2"), "{e}");
        assert!(!e.contains(REFUSED_REPETITION), "{e}");
    }
}
