//! The USI server: standard shogi, and chushogi in lishogi's USI form (the server's variant,
//! or `setoption name UCI_Variant value chushogi`); `position startpos|sfen ... moves ...`,
//! `go` with `btime/wtime/byoyomi/binc/winc/movetime/nodes`, `bestmove` (`resign` when the agent
//! resigns or there is no move).
//!
//! An agent that searches with reports ([`Agent::can_think`], the `search` agent) searches in a
//! thread of its own: `info depth … score … nodes … nps … pv …` lines as each iteration
//! completes, `go infinite` until `stop`, `go depth N`, the clock (`btime/wtime/binc/winc/
//! byoyomi/movestogo`) through the engine's time manager, and `setoption name MultiPV`. Any
//! command that changes the position, and `quit`, stops a running search first.

use super::{honoured, AgentFactory, LineServer, PositionError};
use crate::agent::{start_and_moves, Agent, AgentError, Choice, Limits, ThinkRequest};
use shogilab_engine::{Color, Game, Position, Variant};
use shogilab_search::TimeControl;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A search running in its thread: it gives the agent back when it ends.
struct Running {
    stop: Arc<AtomicBool>,
    infinite: bool,
    handle: JoinHandle<Box<dyn Agent>>,
}

/// USI server state.
pub struct UsiServer {
    variant: Arc<Variant>,
    name: String,
    factory: AgentFactory,
    agent: Option<Box<dyn Agent>>,
    game: Option<Game>,
    fresh: bool,
    output: Option<Sender<String>>,
    running: Option<Running>,
    multipv: usize,
}

/// Variant name in `UCI_Variant` -> built-in name.
fn variant_from_usi(name: &str) -> &str {
    match name {
        "chushogi" => "chu",
        "tenjikushogi" => "tenjiku",
        other => other,
    }
}

/// The value after `key` in a `go` command.
fn go_number(toks: &[&str], key: &str) -> Option<u64> {
    toks.iter().position(|t| *t == key).and_then(|i| toks.get(i + 1)).and_then(|s| s.parse().ok())
}

/// The limits of a `go` command for the side to move: `movetime`, else the byoyomi plus a
/// fortieth of the main time, else a fortieth of the main time plus the increment; `nodes`.
fn go_limits(toks: &[&str], us: Color) -> Limits {
    let num = |key| go_number(toks, key);
    let (time, inc) =
        if us == Color::Black { (num("btime"), num("binc")) } else { (num("wtime"), num("winc")) };
    let movetime = num("movetime")
        .or(num("byoyomi").filter(|&b| b > 0).map(|b| b + time.unwrap_or(0) / 40))
        .or_else(|| time.map(|t| t / 40 + inc.unwrap_or(0)).filter(|&t| t > 0));
    Limits { nodes: num("nodes"), movetime_ms: movetime }
}

impl UsiServer {
    /// Serve the agents `factory` builds, named `name` (the spec) in `id name`. The agent is
    /// built once here so that a bad spec fails before the GUI connects.
    pub fn new(
        variant: Arc<Variant>,
        name: String,
        mut factory: AgentFactory,
    ) -> Result<UsiServer, AgentError> {
        let agent = factory(&variant)?;
        Ok(UsiServer {
            variant,
            name,
            factory,
            agent: Some(agent),
            game: None,
            fresh: true,
            output: None,
            running: None,
            multipv: 1,
        })
    }

    fn agent(&mut self) -> Result<&mut Box<dyn Agent>, AgentError> {
        if self.agent.is_none() {
            self.agent = Some((self.factory)(&self.variant)?);
            self.fresh = true;
        }
        self.agent.as_mut().ok_or(AgentError::Unsupported("no agent".into()))
    }

    fn setoption(&mut self, toks: &[&str], out: &mut Vec<String>) {
        // setoption name <id> [value <x>]
        let value_at = toks.iter().position(|t| *t == "value");
        let Some(n) = toks.iter().position(|t| *t == "name") else {
            out.push("info string error setoption without a name".into());
            return;
        };
        let name = toks[n + 1..value_at.unwrap_or(toks.len()).max(n + 1)].join(" ");
        let value = value_at.map(|i| toks[i + 1..].join(" ")).unwrap_or_default();
        if name == "UCI_Variant" {
            match Variant::load(variant_from_usi(&value), &[]) {
                Ok(v) => {
                    self.variant = v;
                    self.agent = None;
                    self.game = None;
                }
                Err(e) => out.push(format!("info string error UCI_Variant {value:?}: {e}")),
            }
        } else if name == "MultiPV" {
            match value.parse::<usize>() {
                Ok(k) if (1..=64).contains(&k) => self.multipv = k,
                _ => out.push(format!("info string error MultiPV {value:?}: expected 1..64")),
            }
        } else if !name.starts_with("USI_") {
            out.push(format!("info string error unknown option {name:?}"));
        }
    }

    fn parse_position(&self, toks: &[&str]) -> Result<Game, PositionError> {
        let (pos, rest) = match toks.get(1) {
            Some(&"startpos") => (Position::start(&self.variant), &toks[2..]),
            Some(&"sfen") => {
                let end = toks.iter().position(|t| *t == "moves").unwrap_or(toks.len());
                if end <= 2 {
                    return Err(PositionError::MissingSfen);
                }
                let sfen = toks[2..end].join(" ");
                let p = Position::from_sfen(&self.variant, &sfen).map_err(PositionError::Sfen)?;
                (p, &toks[end..])
            }
            _ => return Err(PositionError::BadForm),
        };
        let mut g = Game::new(pos);
        match rest.first() {
            None => {}
            Some(&"moves") => {
                for (i, m) in rest[1..].iter().enumerate() {
                    let mv = g.parse_usi(m).map_err(|source| PositionError::Move {
                        index: i + 1,
                        text: m.to_string(),
                        source,
                    })?;
                    g.play(mv);
                }
            }
            Some(t) => return Err(PositionError::ExpectedMoves(t.to_string())),
        }
        Ok(g)
    }

    /// The agent's answer to `go` in `game`, telling it about a new game first.
    fn think(&mut self, game: &Game, toks: &[&str]) -> Result<Choice, AgentError> {
        let fresh = self.fresh;
        let agent = self.agent()?;
        if fresh {
            let (start, _) = start_and_moves(game);
            agent.new_game(&Game::new(start))?;
        }
        let limits = honoured(agent.as_ref(), go_limits(toks, game.position().side_to_move()));
        let choice = agent.choose(game, &limits);
        self.fresh = false;
        choice
    }

    /// Wait for the running search (stopping it first when `stop`, or when it is infinite).
    fn finish_search(&mut self, stop: bool) {
        if let Some(r) = self.running.take() {
            if stop || r.infinite {
                r.stop.store(true, Ordering::Relaxed);
            }
            if let Ok(agent) = r.handle.join() {
                self.agent = Some(agent);
            }
        }
    }

    /// Start the agent's search of `game` in its own thread.
    fn spawn_think(&mut self, game: Game, toks: &[&str], out: &mut Vec<String>) {
        let (Some(tx), Some(mut agent)) = (self.output.clone(), self.agent.take()) else {
            out.push("info string error no output for a background search".into());
            out.push("bestmove resign".into());
            return;
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (request, infinite) =
            think_request(toks, game.position().side_to_move(), self.multipv, &stop);
        let handle = std::thread::spawn(move || {
            let root = game.position().clone();
            let result = agent.think(&game, request, &mut |l| {
                let _ = tx.send(l.to_usi(&root));
            });
            let line = match result {
                Some(Ok(o)) => match o.reply() {
                    Some(r) => {
                        let mut after = root.clone();
                        after.play(o.best);
                        format!(
                            "bestmove {} ponder {}",
                            root.move_to_usi(o.best),
                            after.move_to_usi(r)
                        )
                    }
                    None => format!("bestmove {}", root.move_to_usi(o.best)),
                },
                Some(Err(e)) => {
                    let _ = tx.send(format!("info string error {e}"));
                    "bestmove resign".into()
                }
                None => "bestmove resign".into(),
            };
            let _ = tx.send(line);
            agent
        });
        self.running = Some(Running { stop, infinite, handle });
    }

    fn go(&mut self, toks: &[&str], out: &mut Vec<String>) {
        let Some(game) = self.game.clone() else {
            out.push("info string error no valid position".into());
            out.push("bestmove resign".into());
            return;
        };
        if game.status().is_over() || game.legal().is_empty() {
            out.push(format!("info string game over: {}", game.status()));
            out.push("bestmove resign".into());
            return;
        }
        if self.agent().is_ok_and(|a| a.can_think()) {
            if self.fresh {
                let (start, _) = start_and_moves(&game);
                if let Some(Err(e)) = self.agent.as_mut().map(|a| a.new_game(&Game::new(start))) {
                    out.push(format!("info string error {e}"));
                }
                self.fresh = false;
            }
            return self.spawn_think(game, toks, out);
        }
        match self.think(&game, toks) {
            Ok(Choice::Move(m)) => out.push(format!("bestmove {}", game.position().move_to_usi(m))),
            Ok(Choice::Resign) => out.push("bestmove resign".into()),
            Ok(Choice::DeclareWin) => out.push("bestmove win".into()),
            Err(e) => {
                out.push(format!("info string error {e}"));
                out.push("bestmove resign".into());
            }
        }
    }

    fn hello(&self, out: &mut Vec<String>) {
        out.push(format!("id name shogilab ({})", self.name));
        out.push("id author shogilab".into());
        out.push(format!(
            "option name UCI_Variant type combo default {} var shogi var chushogi",
            crate::usi_client::usi_variant_name(&self.variant)
        ));
        out.push("option name MultiPV type spin default 1 min 1 max 64".into());
        out.push("usiok".into());
    }
}

impl LineServer for UsiServer {
    fn handle(&mut self, line: &str, out: &mut Vec<String>) -> bool {
        let toks: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = toks.first() else { return true };
        if !matches!(cmd, "isready" | "usi" | "ponderhit") {
            self.finish_search(cmd != "gameover");
        }
        match cmd {
            "usi" => self.hello(out),
            "isready" => {
                if let Err(e) = self.agent() {
                    out.push(format!("info string error {e}"));
                }
                out.push("readyok".into());
            }
            "setoption" => self.setoption(&toks, out),
            "usinewgame" => {
                self.game = None;
                self.fresh = true;
            }
            "position" => match self.parse_position(&toks) {
                Ok(g) => self.game = Some(g),
                Err(e) => {
                    self.game = None;
                    out.push(format!("info string error {e}"));
                }
            },
            "go" => self.go(&toks, out),
            "stop" | "ponderhit" | "gameover" => {}
            "quit" => return false,
            _ => out.push(format!("info string error unknown command: {line}")),
        }
        true
    }

    fn unreadable(&self, e: &std::io::Error) -> String {
        format!("info string error unreadable input: {e}")
    }

    fn attach(&mut self, output: Sender<String>) {
        self.output = Some(output);
    }

    /// The input ended: an infinite search is stopped, a limited one completes.
    fn finish(&mut self) {
        self.finish_search(false);
    }
}

/// The search a `go` command asks for, and whether it is infinite (until `stop`).
fn think_request(
    toks: &[&str],
    us: Color,
    multipv: usize,
    stop: &Arc<AtomicBool>,
) -> (ThinkRequest, bool) {
    let num = |key| go_number(toks, key);
    let ms = Duration::from_millis;
    let limited = ["movetime", "btime", "wtime", "byoyomi", "depth", "nodes"]
        .iter()
        .any(|k| toks.contains(k));
    // `go` without a limit searches until `stop`, as `go infinite`
    let infinite = toks.contains(&"infinite") || !limited;
    let (time, inc) =
        if us == Color::Black { (num("btime"), num("binc")) } else { (num("wtime"), num("winc")) };
    let tc = if infinite {
        TimeControl::None
    } else if let Some(t) = num("movetime") {
        TimeControl::MoveTime(ms(t))
    } else if time.is_some() || num("byoyomi").is_some() {
        TimeControl::Clock {
            remaining: ms(time.unwrap_or(0)),
            increment: ms(inc.unwrap_or(0)),
            byoyomi: ms(num("byoyomi").unwrap_or(0)),
            moves_to_go: num("movestogo").map(|n| n as u32),
        }
    } else {
        TimeControl::None
    };
    let limits = shogilab_search::Limits {
        depth: num("depth").map(|d| d as u32),
        nodes: num("nodes"),
        time: tc,
        stop: Some(Arc::clone(stop)),
    };
    (ThinkRequest { limits, multipv }, infinite)
}
