//! The XBoard server (protocol 2) for chu and tenjiku (and shogi): WinBoard coordinates,
//! `variant`, `new`, `force`, `go`, `usermove`, `setboard` with our SFEN, `memory`, `time`,
//! `otim`, `st`, `ping`, `undo`, `remove`, `quit`.

use super::{honoured, AgentFactory, LineServer};
use crate::agent::{start_and_moves, Agent, AgentError, Choice, Limits};
use crate::winboard::{move_to_wb, parse_wb_move};
use shogilab_engine::{Color, Game, Position, Status, Variant};
use std::sync::Arc;

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
const IGNORED: [&str; 24] = [
    "xboard", "accepted", "rejected", "easy", "hard", "post", "nopost", "random", "computer",
    "name", "rating", "ics", "cores", "egtpath", "option", "hint", "bk", "draw", ".", "?", "level",
    "sd", "nps", "exit",
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

    /// The agent's choice in the current game, telling it about a new game first.
    fn choose(&mut self) -> Result<Choice, AgentError> {
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
        match self.choose() {
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
