//! `shogilab usi` and `shogilab xboard`: serve an agent (`--agent`, see `shogilab_eval::spec`)
//! to a GUI or tournament manager over stdin/stdout.
//!
//! * USI: standard shogi, and chushogi in lishogi's USI form (`--variant chu`, or
//!   `setoption name UCI_Variant value chushogi`); `position startpos|sfen ... moves ...`,
//!   `go` with `btime/wtime/byoyomi/binc/winc/movetime/nodes`, `bestmove` (`resign` when the
//!   agent resigns or there is no move).
//! * XBoard (protocol 2) for chu and tenjiku (and shogi): WinBoard coordinates, `variant`,
//!   `new`, `force`, `go`, `usermove`, `setboard` with our SFEN, `memory`, `time`, `otim`,
//!   `st`, `ping`, `undo`, `remove`, `quit`.
//!
//! Malformed lines get an error message on stdout (`info string error ...` for USI,
//! `Error (...): ...` for XBoard); nothing a GUI sends can make the server panic.

use super::VariantArgs;
use anyhow::Result;
use clap::Args;
use shogilab_engine::{Color, Game, Position, Status, Variant};
use shogilab_eval::agent::{Agent, Choice, Limits};
use shogilab_eval::winboard::{move_to_wb, parse_wb_move};
use shogilab_eval::{parse_agent_spec, selfplay::Evaluator};
use std::io::{BufRead, Write};
use std::sync::Arc;

/// Evaluators beyond `uniform` and `material` for `mcts:NAME` specs (checkpoints plug in here).
pub fn extra_evaluator(name: &str) -> Option<Arc<dyn Evaluator>> {
    if !name.ends_with(".ot") {
        return None;
    }
    let load = || -> anyhow::Result<Arc<dyn Evaluator>> {
        let path = std::path::Path::new(name);
        let meta = shogilab_train::checkpoint::read_meta(path)?;
        let v = Variant::builtin(&meta.variant)?;
        Ok(Arc::from(super::selfplay_cmd::make_evaluator(name, &v)?))
    };
    match load() {
        Ok(e) => Some(e),
        Err(e) => {
            eprintln!("error: {e:#}");
            None
        }
    }
}

#[derive(Args)]
pub struct UsiArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Agent to serve: random, greedy, alphabeta[:DEPTH], mcts:EVAL[:SIMS], usi:PATH, xboard:PATH.
    #[arg(long, default_value = "alphabeta:3")]
    pub agent: String,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args)]
pub struct XBoardArgs {
    /// Variant until the GUI sends `variant`: chu, tenjiku, shogi, or a TOML spec.
    #[arg(long, short = 'v', default_value = "chu")]
    pub variant: String,
    /// Agent to serve: random, greedy, alphabeta[:DEPTH], mcts:EVAL[:SIMS], usi:PATH, xboard:PATH.
    #[arg(long, default_value = "alphabeta:2")]
    pub agent: String,
    /// Seed of the agent's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

fn serve(mut handle: impl FnMut(&str, &mut Vec<String>) -> bool) -> Result<()> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    let mut out = Vec::new();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                // invalid UTF-8 and the like: report and go on
                writeln!(stdout, "info string error unreadable input: {e}")?;
                stdout.flush()?;
                continue;
            }
        };
        out.clear();
        let go_on = handle(line.trim(), &mut out);
        for l in &out {
            writeln!(stdout, "{l}")?;
        }
        stdout.flush()?;
        if !go_on {
            break;
        }
    }
    Ok(())
}

pub fn run_usi(a: UsiArgs) -> Result<()> {
    let v = a.variant.load()?;
    let mut s = UsiServer::new(v, a.agent, a.seed)?;
    serve(|l, out| s.handle(l, out))
}

pub fn run_xboard(a: XBoardArgs) -> Result<()> {
    let v = Variant::load(&a.variant, &[])?;
    let mut s = XBoardServer::new(v, a.agent, a.seed)?;
    serve(|l, out| s.handle(l, out))
}

fn build_agent(spec: &str, v: &Arc<Variant>, seed: u64) -> Result<Box<dyn Agent>, String> {
    parse_agent_spec(spec, v, seed, &extra_evaluator).map_err(|e| e.to_string())
}

/// USI server state.
pub struct UsiServer {
    variant: Arc<Variant>,
    spec: String,
    seed: u64,
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

impl UsiServer {
    pub fn new(variant: Arc<Variant>, spec: String, seed: u64) -> Result<UsiServer> {
        // fail early on a bad spec
        build_agent(&spec, &variant, seed).map_err(anyhow::Error::msg)?;
        Ok(UsiServer { variant, spec, seed, agent: None, game: None, fresh: true })
    }

    fn agent(&mut self) -> Result<&mut Box<dyn Agent>, String> {
        if self.agent.is_none() {
            self.agent = Some(build_agent(&self.spec, &self.variant, self.seed)?);
            self.fresh = true;
        }
        self.agent.as_mut().ok_or_else(|| "no agent".to_string())
    }

    fn usi_variant(&self) -> String {
        shogilab_eval::usi_client::usi_variant_name(&self.variant)
    }

    /// Handle one line; `false` means quit.
    pub fn handle(&mut self, line: &str, out: &mut Vec<String>) -> bool {
        let toks: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = toks.first() else { return true };
        match cmd {
            "usi" => {
                out.push(format!("id name shogilab ({})", self.spec));
                out.push("id author shogilab".into());
                out.push(format!(
                    "option name UCI_Variant type combo default {} var shogi var chushogi",
                    self.usi_variant()
                ));
                out.push("usiok".into());
            }
            "isready" => match self.agent() {
                Ok(_) => out.push("readyok".into()),
                Err(e) => {
                    out.push(format!("info string error {e}"));
                    out.push("readyok".into());
                }
            },
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

    fn setoption(&mut self, toks: &[&str], out: &mut Vec<String>) {
        // setoption name <id> [value <x>]
        let name_at = toks.iter().position(|t| *t == "name");
        let value_at = toks.iter().position(|t| *t == "value");
        let Some(n) = name_at else {
            out.push("info string error setoption without a name".into());
            return;
        };
        let name = toks[n + 1..value_at.unwrap_or(toks.len())].join(" ");
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

    fn parse_position(&self, toks: &[&str]) -> Result<Game, String> {
        let (pos, rest) = match toks.get(1) {
            Some(&"startpos") => (Position::start(&self.variant), &toks[2..]),
            Some(&"sfen") => {
                let end = toks.iter().position(|t| *t == "moves").unwrap_or(toks.len());
                if end <= 2 {
                    return Err("position sfen without an SFEN".into());
                }
                let sfen = toks[2..end].join(" ");
                let p = Position::from_sfen(&self.variant, &sfen).map_err(|e| e.to_string())?;
                (p, &toks[end..])
            }
            _ => return Err("expected `position startpos` or `position sfen ...`".into()),
        };
        let mut g = Game::new(pos);
        match rest.first() {
            None => {}
            Some(&"moves") => {
                for (i, m) in rest[1..].iter().enumerate() {
                    let mv = g.parse_usi(m).map_err(|e| format!("move {} ({m}): {e}", i + 1))?;
                    g.play(mv);
                }
            }
            Some(t) => return Err(format!("expected `moves`, found {t:?}")),
        }
        Ok(g)
    }

    fn go(&mut self, toks: &[&str], out: &mut Vec<String>) {
        let num = |key: &str| -> Option<u64> {
            toks.iter()
                .position(|t| *t == key)
                .and_then(|i| toks.get(i + 1))
                .and_then(|s| s.parse().ok())
        };
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
        let us = game.position().side_to_move();
        let (time, inc) = if us == Color::Black {
            (num("btime"), num("binc"))
        } else {
            (num("wtime"), num("winc"))
        };
        let movetime = num("movetime")
            .or(num("byoyomi").filter(|&b| b > 0).map(|b| b + time.unwrap_or(0) / 40))
            .or_else(|| time.map(|t| t / 40 + inc.unwrap_or(0)).filter(|&t| t > 0));
        let limits = Limits { nodes: num("nodes"), movetime_ms: movetime };
        let fresh = self.fresh;
        let agent = match self.agent() {
            Ok(a) => a,
            Err(e) => {
                out.push(format!("info string error {e}"));
                out.push("bestmove resign".into());
                return;
            }
        };
        if fresh {
            let (start, _) = shogilab_eval::agent::start_and_moves(&game);
            if let Err(e) = agent.new_game(&Game::new(start)) {
                out.push(format!("info string error {e}"));
            }
        }
        self.fresh = false;
        let agent = match self.agent.as_mut() {
            Some(a) => a,
            None => return,
        };
        match agent.choose(&game, &limits) {
            Ok(Choice::Move(m)) => out.push(format!("bestmove {}", game.position().move_to_usi(m))),
            Ok(Choice::Resign) => out.push("bestmove resign".into()),
            Ok(Choice::DeclareWin) => out.push("bestmove win".into()),
            Err(e) => {
                out.push(format!("info string error {e}"));
                out.push("bestmove resign".into());
            }
        }
    }
}

/// XBoard server state.
pub struct XBoardServer {
    variant: Arc<Variant>,
    spec: String,
    seed: u64,
    agent: Option<Box<dyn Agent>>,
    game: Game,
    /// The side the engine plays (our colours: Black moves first = WinBoard's white).
    engine: Option<Color>,
    fresh: bool,
    time_cs: Option<u64>,
    st_s: Option<u64>,
}

fn result_line(s: Status) -> String {
    match s {
        Status::Win(Color::Black, t) => format!("1-0 {{{} wins by {}}}", "Black", t.as_str()),
        Status::Win(Color::White, t) => format!("0-1 {{{} wins by {}}}", "White", t.as_str()),
        Status::Draw(t) => format!("1/2-1/2 {{draw by {}}}", t.as_str()),
        Status::Ongoing => "*".into(),
    }
}

impl XBoardServer {
    pub fn new(variant: Arc<Variant>, spec: String, seed: u64) -> Result<XBoardServer> {
        build_agent(&spec, &variant, seed).map_err(anyhow::Error::msg)?;
        let game = Game::new(Position::start(&variant));
        Ok(XBoardServer {
            variant,
            spec,
            seed,
            agent: None,
            game,
            engine: Some(Color::White),
            fresh: true,
            time_cs: None,
            st_s: None,
        })
    }

    fn reset(&mut self, pos: Position) {
        self.game = Game::new(pos);
        self.fresh = true;
    }

    /// Handle one line; `false` means quit.
    pub fn handle(&mut self, line: &str, out: &mut Vec<String>) -> bool {
        let toks: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = toks.first() else { return true };
        let arg = line[cmd.len()..].trim();
        let num = || toks.get(1).and_then(|s| s.parse::<u64>().ok());
        match cmd {
            "xboard" | "accepted" | "rejected" | "easy" | "hard" | "post" | "nopost" | "random"
            | "computer" | "name" | "rating" | "ics" | "cores" | "egtpath" | "option" | "hint"
            | "bk" | "draw" | "." | "?" | "level" | "sd" | "nps" | "exit" | "analyze"
            | "memory" => {}
            "protover" => out.push(format!(
                "feature myname=\"shogilab {}\" variants=\"chu,tenjiku,shogi\" usermove=1 \
                 setboard=1 ping=1 memory=1 sigint=0 sigterm=0 colors=0 reuse=1 done=1",
                self.spec
            )),
            "variant" => {
                let name = arg;
                match Variant::load(name, &[]) {
                    Ok(v) => {
                        self.variant = v;
                        self.agent = None;
                        let p = Position::start(&self.variant);
                        self.reset(p);
                    }
                    Err(e) => out.push(format!("Error (unsupported variant): {name}: {e}")),
                }
            }
            "new" => {
                let p = Position::start(&self.variant);
                self.reset(p);
                self.engine = Some(Color::White);
            }
            "force" => self.engine = None,
            "white" => self.engine = Some(Color::White),
            "black" => self.engine = Some(Color::Black),
            "go" => {
                self.engine = Some(self.game.position().side_to_move());
                self.think(out);
            }
            "playother" => self.engine = Some(self.game.position().side_to_move().flip()),
            "time" => match num() {
                Some(t) => self.time_cs = Some(t),
                None => out.push(format!("Error (bad number): {line}")),
            },
            "otim" => {}
            "st" => match num() {
                Some(t) => self.st_s = Some(t),
                None => out.push(format!("Error (bad number): {line}")),
            },
            "ping" => out.push(format!("pong {arg}")),
            "setboard" => match Position::from_sfen(&self.variant, arg) {
                Ok(p) => self.reset(p),
                Err(e) => out.push(format!("tellusererror Illegal position: {e}")),
            },
            "undo" => {
                self.game.unplay();
            }
            "remove" => {
                self.game.unplay();
                self.game.unplay();
            }
            "result" => self.engine = None,
            "quit" => return false,
            "usermove" => self.user_move(arg, out),
            _ => {
                // protocol 1 GUIs send bare moves
                if parse_wb_move(self.game.position(), cmd).is_ok() {
                    self.user_move(cmd, out);
                } else {
                    out.push(format!("Error (unknown command): {line}"));
                }
            }
        }
        true
    }

    fn user_move(&mut self, text: &str, out: &mut Vec<String>) {
        if self.game.status().is_over() {
            out.push(format!("Illegal move (the game is over): {text}"));
            return;
        }
        match parse_wb_move(self.game.position(), text) {
            Ok(m) if self.game.legal().contains(&m) => {
                self.game.play(m);
                if self.game.status().is_over() {
                    out.push(result_line(self.game.status()));
                } else if self.engine == Some(self.game.position().side_to_move()) {
                    self.think(out);
                }
            }
            Ok(_) => out.push(format!("Illegal move (repeats an earlier position): {text}")),
            Err(e) => out.push(format!("Illegal move ({e}): {text}")),
        }
    }

    fn think(&mut self, out: &mut Vec<String>) {
        if self.game.status().is_over() {
            out.push(result_line(self.game.status()));
            self.engine = None;
            return;
        }
        if self.agent.is_none() {
            match build_agent(&self.spec, &self.variant, self.seed) {
                Ok(a) => self.agent = Some(a),
                Err(e) => {
                    out.push(format!("Error (agent): {e}"));
                    return;
                }
            }
        }
        let Some(agent) = self.agent.as_mut() else { return };
        if self.fresh {
            let (start, _) = shogilab_eval::agent::start_and_moves(&self.game);
            if let Err(e) = agent.new_game(&Game::new(start)) {
                out.push(format!("Error (agent): {e}"));
            }
            self.fresh = false;
        }
        let movetime =
            self.st_s.map(|s| s * 1000).or(self.time_cs.map(|cs| cs * 10 / 40)).filter(|&t| t > 0);
        let limits = Limits { nodes: None, movetime_ms: movetime };
        match agent.choose(&self.game, &limits) {
            Ok(Choice::Move(m)) => {
                out.push(format!("move {}", move_to_wb(self.game.position(), m)));
                self.game.play(m);
                if self.game.status().is_over() {
                    out.push(result_line(self.game.status()));
                }
            }
            Ok(Choice::Resign) | Ok(Choice::DeclareWin) => {
                out.push("resign".into());
                self.engine = None;
            }
            Err(e) => {
                out.push(format!("Error (agent): {e}"));
                out.push("resign".into());
                self.engine = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &mut dyn FnMut(&str, &mut Vec<String>) -> bool, lines: &[&str]) -> Vec<String> {
        let mut all = Vec::new();
        for l in lines {
            let mut out = Vec::new();
            s(l, &mut out);
            all.extend(out);
        }
        all
    }

    #[test]
    fn usi_session() {
        let v = Variant::builtin("shogi").unwrap();
        let mut s = UsiServer::new(v, "random".into(), 1).unwrap();
        let out = run(
            &mut |l, o| s.handle(l, o),
            &[
                "usi",
                "isready",
                "usinewgame",
                "position startpos moves 7g7f",
                "go btime 1000 wtime 1000 byoyomi 100",
            ],
        );
        assert!(out.contains(&"usiok".to_string()));
        assert!(out.last().unwrap().starts_with("bestmove "), "{out:?}");
        let bad = run(
            &mut |l, o| s.handle(l, o),
            &["position startpos moves 7g7x", "go", "frobnicate", "position sfen", "setoption"],
        );
        assert!(bad.iter().filter(|l| l.starts_with("info string error")).count() >= 4, "{bad:?}");
        assert!(bad.contains(&"bestmove resign".to_string()));
    }

    #[test]
    fn usi_chushogi_by_option() {
        let v = Variant::builtin("shogi").unwrap();
        let mut s = UsiServer::new(v, "greedy".into(), 1).unwrap();
        let out = run(
            &mut |l, o| s.handle(l, o),
            &[
                "usi",
                "setoption name UCI_Variant value chushogi",
                "isready",
                "position startpos",
                "go nodes 1",
            ],
        );
        let best = out.last().unwrap();
        let mv = best.strip_prefix("bestmove ").unwrap();
        let g = Game::new(Position::start(&Variant::builtin("chu").unwrap()));
        assert!(g.parse_usi(mv).is_ok(), "{best}");
    }

    #[test]
    fn xboard_session() {
        let v = Variant::builtin("chu").unwrap();
        let mut s = XBoardServer::new(v, "random".into(), 1).unwrap();
        let out = run(
            &mut |l, o| s.handle(l, o),
            &[
                "xboard",
                "protover 2",
                "variant chu",
                "memory 16",
                "new",
                "force",
                "usermove h4h5",
                "go",
            ],
        );
        assert!(out[0].contains("done=1"), "{out:?}");
        let mv = out.iter().find(|l| l.starts_with("move ")).expect("a move");
        assert!(parse_wb_move(s.game.position(), "h9h8").is_ok() || !mv.is_empty());
        let bad = run(
            &mut |l, o| s.handle(l, o),
            &["usermove z9z9", "frob", "setboard nonsense", "time x", "ping 7"],
        );
        assert!(bad[0].starts_with("Illegal move"), "{bad:?}");
        assert!(bad[1].starts_with("Error (unknown command)"), "{bad:?}");
        assert!(bad[2].starts_with("tellusererror"), "{bad:?}");
        assert!(bad[3].starts_with("Error"), "{bad:?}");
        assert_eq!(bad[4], "pong 7");
    }
}
