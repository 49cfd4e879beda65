//! The XBoard server (protocol 2) for chu and tenjiku (and shogi): WinBoard coordinates,
//! `variant`, `new`, `force`, `go`, `usermove`, `setboard` with our SFEN, `memory`, `time`,
//! `otim`, `st`, `level`, `sd`, `post`/`nopost`, `ping`, `undo`, `remove`, `quit`.
//!
//! An agent that searches with reports ([`Agent::can_think`], the `search` agent) plays under the
//! GUI's clock (`level MPS BASE INC` with `time`, or `st`) through the engine's time manager, to
//! `sd` plies at most, and prints its thinking lines (`ply score time nodes pv`) after `post`.

use super::{honoured, AgentFactory, LineServer};
use crate::agent::{start_and_moves, Agent, AgentError, Choice, Limits, ThinkRequest};
use crate::winboard::{move_to_wb, parse_wb_move};
use shogilab_engine::{Color, Game, Position, Status, Variant};
use shogilab_search::TimeControl;
use std::sync::Arc;
use std::time::Duration;

/// XBoard server state.
pub struct XBoardServer {
    variant: Arc<Variant>,
    name: String,
    factory: AgentFactory,
    agent: Option<Box<dyn Agent>>,
    game: Game,
    /// The side the engine plays (our colours: Black moves first = WinBoard's white).
    engine: Option<Color>,
    fresh: bool,
    time_cs: Option<u64>,
    st_s: Option<u64>,
    /// `level`: moves per session (0: all), increment (seconds).
    level: Option<(u32, f64)>,
    sd: Option<u32>,
    post: bool,
}

fn result_line(s: Status) -> String {
    match s {
        Status::Win(Color::Black, t) => format!("1-0 {{Black wins by {}}}", t.as_str()),
        Status::Win(Color::White, t) => format!("0-1 {{White wins by {}}}", t.as_str()),
        Status::Draw(t) => format!("1/2-1/2 {{draw by {}}}", t.as_str()),
        Status::Ongoing => "*".into(),
    }
}

/// Commands the server accepts and ignores.
const IGNORED: [&str; 20] = [
    "xboard", "accepted", "rejected", "easy", "hard", "random", "computer", "name", "rating",
    "ics", "cores", "egtpath", "option", "hint", "bk", "draw", ".", "?", "nps", "exit",
];

impl XBoardServer {
    /// Serve the agents `factory` builds, named `name` (the spec) in `myname`. The agent is
    /// built once here so that a bad spec fails before the GUI connects.
    pub fn new(
        variant: Arc<Variant>,
        name: String,
        mut factory: AgentFactory,
    ) -> Result<XBoardServer, AgentError> {
        let agent = factory(&variant)?;
        let game = Game::new(Position::start(&variant));
        Ok(XBoardServer {
            variant,
            name,
            factory,
            agent: Some(agent),
            game,
            engine: Some(Color::White),
            fresh: true,
            time_cs: None,
            st_s: None,
            level: None,
            sd: None,
            post: false,
        })
    }

    /// The game in progress.
    pub fn game(&self) -> &Game {
        &self.game
    }

    fn reset(&mut self, pos: Position) {
        self.game = Game::new(pos);
        self.fresh = true;
    }

    fn set_variant(&mut self, name: &str, out: &mut Vec<String>) {
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

    /// The search's clock: `st`, else the time left with `level`'s increment and moves.
    fn time_control(&self) -> TimeControl {
        let ms = Duration::from_millis;
        if let Some(st) = self.st_s {
            return TimeControl::MoveTime(ms(st * 1000));
        }
        match self.time_cs {
            Some(cs) => {
                let (mps, inc) = self.level.unwrap_or((0, 0.0));
                let played = (self.game.plies() / 2) as u32;
                let to_go = (mps > 0).then(|| mps - played % mps);
                TimeControl::Clock {
                    remaining: ms(cs * 10),
                    increment: Duration::from_secs_f64(inc.max(0.0)),
                    byoyomi: Duration::ZERO,
                    moves_to_go: to_go,
                }
            }
            None => TimeControl::None,
        }
    }

    /// A searching agent's move under the GUI's clock, its thinking lines after `post`.
    fn think_with_clock(&mut self, out: &mut Vec<String>) -> Result<Choice, AgentError> {
        let mut limits = shogilab_search::Limits {
            depth: self.sd,
            time: self.time_control(),
            ..Default::default()
        };
        if limits.time == TimeControl::None && limits.depth.is_none() {
            limits.depth = Some(6);
        }
        let (post, root) = (self.post, self.game.position().clone());
        let agent = self.agent.as_mut().ok_or(AgentError::Unsupported("no agent".into()))?;
        let request = ThinkRequest { limits, multipv: 1 };
        let mut lines = Vec::new();
        let result = agent.think(&self.game, request, &mut |l| {
            if post && l.lower_bound.is_none() {
                lines.push(l.to_xboard(&root));
            }
        });
        out.append(&mut lines);
        match result {
            Some(r) => r.map(|o| Choice::Move(o.best)),
            None => Err(AgentError::Unsupported("the agent cannot search under a clock".into())),
        }
    }

    /// `level MPS BASE INC`: BASE is minutes or minutes:seconds.
    fn set_level(&mut self, arg: &str, out: &mut Vec<String>) {
        let parts: Vec<&str> = arg.split_whitespace().collect();
        match (
            parts.first().and_then(|m| m.parse::<u32>().ok()),
            parts.get(2).and_then(|i| i.parse::<f64>().ok()),
        ) {
            (Some(mps), Some(inc)) if parts.len() == 3 => self.level = Some((mps, inc)),
            _ => out.push(format!("Error (bad level, expected MPS BASE INC): level {arg}")),
        }
    }

    /// The agent's choice in the current game, telling it about a new game first.
    fn choose(&mut self, out: &mut Vec<String>) -> Result<Choice, AgentError> {
        if self.agent.is_none() {
            self.agent = Some((self.factory)(&self.variant)?);
            self.fresh = true;
        }
        let agent = self.agent.as_mut().ok_or(AgentError::Unsupported("no agent".into()))?;
        if self.fresh {
            let (start, _) = start_and_moves(&self.game);
            agent.new_game(&Game::new(start))?;
            self.fresh = false;
        }
        if agent.can_think() {
            return self.think_with_clock(out);
        }
        let agent = self.agent.as_mut().ok_or(AgentError::Unsupported("no agent".into()))?;
        let movetime =
            self.st_s.map(|s| s * 1000).or(self.time_cs.map(|cs| cs * 10 / 40)).filter(|&t| t > 0);
        let limits = honoured(agent.as_ref(), Limits { nodes: None, movetime_ms: movetime });
        agent.choose(&self.game, &limits)
    }

    fn think(&mut self, out: &mut Vec<String>) {
        if self.game.status().is_over() {
            out.push(result_line(self.game.status()));
            self.engine = None;
            return;
        }
        match self.choose(out) {
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

    fn number(line: &str, slot: &mut Option<u64>, out: &mut Vec<String>) {
        match line.split_whitespace().nth(1).and_then(|s| s.parse::<u64>().ok()) {
            Some(t) => *slot = Some(t),
            None => out.push(format!("Error (bad number): {line}")),
        }
    }
}

impl LineServer for XBoardServer {
    fn handle(&mut self, line: &str, out: &mut Vec<String>) -> bool {
        let Some(cmd) = line.split_whitespace().next() else { return true };
        let arg = line[cmd.len()..].trim();
        match cmd {
            c if IGNORED.contains(&c) || c == "analyze" || c == "memory" => {}
            "protover" => out.push(format!(
                "feature myname=\"shogilab {}\" variants=\"chu,tenjiku,shogi\" usermove=1 \
                 setboard=1 ping=1 memory=1 sigint=0 sigterm=0 colors=0 reuse=1 done=1",
                self.name
            )),
            "variant" => self.set_variant(arg, out),
            "new" => {
                let p = Position::start(&self.variant);
                self.reset(p);
                self.engine = Some(Color::White);
            }
            "force" | "result" => self.engine = None,
            "white" => self.engine = Some(Color::White),
            "black" => self.engine = Some(Color::Black),
            "go" => {
                self.engine = Some(self.game.position().side_to_move());
                self.think(out);
            }
            "playother" => self.engine = Some(self.game.position().side_to_move().flip()),
            "time" => Self::number(line, &mut self.time_cs, out),
            "level" => self.set_level(arg, out),
            "post" => self.post = true,
            "nopost" => self.post = false,
            "sd" => {
                let mut d = None;
                Self::number(line, &mut d, out);
                self.sd = d.map(|d| d.clamp(1, 64) as u32).or(self.sd);
            }
            "st" => Self::number(line, &mut self.st_s, out),
            "otim" => {}
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
            "quit" => return false,
            "usermove" => self.user_move(arg, out),
            // protocol 1 GUIs send bare moves
            _ if parse_wb_move(self.game.position(), cmd).is_ok() => self.user_move(cmd, out),
            _ => out.push(format!("Error (unknown command): {line}")),
        }
        true
    }

    fn unreadable(&self, e: &std::io::Error) -> String {
        format!("Error (unreadable input): {e}")
    }
}
