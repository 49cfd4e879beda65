//! The USI server: standard shogi, and chushogi in lishogi's USI form (the server's variant,
//! or `setoption name UCI_Variant value chushogi`); `position startpos|sfen ... moves ...`,
//! `go` with `btime/wtime/byoyomi/binc/winc/movetime/nodes`, `bestmove` (`resign` when the agent
//! resigns or there is no move).

use super::{honoured, AgentFactory, LineServer, PositionError};
use crate::agent::{start_and_moves, Agent, AgentError, Choice, Limits};
use shogilab_engine::{Color, Game, Position, Variant};
use std::sync::Arc;

/// USI server state.
pub struct UsiServer {
    variant: Arc<Variant>,
    name: String,
    factory: AgentFactory,
    agent: Option<Box<dyn Agent>>,
    game: Option<Game>,
    fresh: bool,
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
        Ok(UsiServer { variant, name, factory, agent: Some(agent), game: None, fresh: true })
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
        out.push("usiok".into());
    }
}

impl LineServer for UsiServer {
    fn handle(&mut self, line: &str, out: &mut Vec<String>) -> bool {
        let toks: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = toks.first() else { return true };
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
}
