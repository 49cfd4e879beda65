//! One game between two agents, refereed by the engine's game rules. An agent that fails
//! (crash, hang, protocol error, illegal or unparsable move, a false win claim) loses the game
//! by forfeit, with the reason recorded.

use crate::agent::{check_limits, Agent, AgentError, Choice, LimitSource, Limits};
use shogilab_engine::{Color, Game, Move, Position, Status, Termination};

/// The outcome of one game.
#[derive(Debug, Clone)]
pub struct GameResult {
    pub status: Status,
    /// Start position (before the opening moves).
    pub start_sfen: String,
    /// Every move in USI, opening moves included.
    pub moves: Vec<String>,
    /// Plies played, opening included.
    pub plies: usize,
    /// Plies of the opening.
    pub opening_plies: usize,
    /// The side that forfeited and why.
    pub forfeit: Option<(Color, String)>,
    /// Per colour (Black, White): moves whose search size the agent reported, and the total
    /// nodes (or simulations) of those moves.
    pub searched: [(u64, u64); 2],
}

impl GameResult {
    /// Score for `c`: 1, 0.5 or 0.
    pub fn score_for(&self, c: Color) -> f64 {
        (self.status.score_for(c) as f64 + 1.0) / 2.0
    }

    /// PGN-style result from Black's (the first mover's) side: `1-0`, `0-1`, `1/2-1/2`.
    pub fn result_str(&self) -> &'static str {
        match self.status {
            Status::Win(Color::Black, _) => "1-0",
            Status::Win(Color::White, _) => "0-1",
            Status::Draw(_) => "1/2-1/2",
            Status::Ongoing => "*",
        }
    }

    /// The game as one `replay` line: `sfen <SFEN> moves ...`.
    pub fn replay_line(&self) -> String {
        let mut s = format!("sfen {}", self.start_sfen);
        if !self.moves.is_empty() {
            s.push_str(" moves ");
            s.push_str(&self.moves.join(" "));
        }
        s
    }

    /// How it ended, with a forfeit's reason.
    pub fn describe(&self) -> String {
        match &self.forfeit {
            Some((c, r)) => format!("{} ({} forfeits: {r})", self.status, side_name(*c)),
            None => self.status.to_string(),
        }
    }
}

/// `black` / `white`.
pub fn side_name(c: Color) -> &'static str {
    if c == Color::Black {
        "black"
    } else {
        "white"
    }
}

/// Errors of the referee itself (not of an agent).
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error("opening move {ply} is not legal here")]
    BadOpening { ply: usize },
    /// An agent cannot play at the game's limits (refused before the game starts).
    #[error(transparent)]
    Limit(AgentError),
}

fn forfeit_termination(e: &AgentError) -> Termination {
    match e {
        AgentError::IllegalMove { .. } => Termination::IllegalMove,
        _ => Termination::Resignation,
    }
}

/// Play one game: `agents[0]` has Black (moves first), `agents[1]` White. The opening moves are
/// played first without asking the agents; `max_plies` (0 = none) caps the game as a draw.
/// An agent that cannot play at `limits` ([`check_limits`]) is an error before anything is
/// played.
pub fn play_game(
    agents: [&mut dyn Agent; 2],
    start: Position,
    opening_moves: &[Move],
    max_plies: u32,
    limits: &Limits,
) -> Result<GameResult, PlayError> {
    let [a0, a1] = agents;
    let mut agents: [&mut dyn Agent; 2] = [a0, a1];
    for a in &agents {
        check_limits(&**a, limits, LimitSource::Match).map_err(PlayError::Limit)?;
    }
    let start_sfen = start.to_sfen();
    let mut game = Game::new(start);
    let mut forfeit: Option<(Color, String)> = None;
    let mut status_override: Option<Status> = None;
    let mut searched = [(0u64, 0u64); 2];
    // tell both agents about the game before the opening
    for (i, a) in agents.iter_mut().enumerate() {
        if let Err(e) = a.new_game(&game) {
            let c = Color::from_idx(i);
            forfeit = Some((c, e.to_string()));
            status_override = Some(Status::Win(c.flip(), forfeit_termination(&e)));
            break;
        }
    }
    for (i, &m) in opening_moves.iter().enumerate() {
        if !game.legal().contains(&m) {
            return Err(PlayError::BadOpening { ply: i + 1 });
        }
        game.play(m);
    }
    if max_plies > 0 {
        game.set_max_plies(max_plies);
    }
    while status_override.is_none() && !game.status().is_over() {
        let side = game.position().side_to_move();
        let agent = &mut agents[side.idx()];
        match agent.choose(&game, limits) {
            Ok(Choice::Move(m)) => {
                if let Some(n) = agent.last_nodes() {
                    searched[side.idx()].0 += 1;
                    searched[side.idx()].1 += n;
                }
                if game.legal().contains(&m) {
                    game.play(m);
                } else {
                    let pos = game.position();
                    let usi = pos.move_to_usi(m);
                    let why = match pos.parse_usi(&usi) {
                        Ok(_) => "it repeats an earlier position".to_string(),
                        Err(e) => e.to_string(),
                    };
                    forfeit = Some((side, format!("illegal move {usi}: {why}")));
                    status_override = Some(Status::Win(side.flip(), Termination::IllegalMove));
                }
            }
            Ok(Choice::Resign) => game.resign(side),
            Ok(Choice::DeclareWin) => {
                if game.impasse_declaration(side) {
                    status_override = Some(Status::Win(side, Termination::Impasse));
                } else {
                    forfeit = Some((side, "false win declaration".into()));
                    status_override = Some(Status::Win(side.flip(), Termination::IllegalMove));
                }
            }
            Err(e) => {
                forfeit = Some((side, e.to_string()));
                status_override = Some(Status::Win(side.flip(), forfeit_termination(&e)));
            }
        }
    }
    let status = status_override.unwrap_or_else(|| game.status());
    let (start, moves) = crate::agent::start_and_moves(&game);
    let mut p = start;
    let usi: Vec<String> = moves
        .iter()
        .map(|&m| {
            let s = p.move_to_usi(m);
            p.play(m);
            s
        })
        .collect();
    Ok(GameResult {
        status,
        start_sfen,
        plies: usi.len(),
        moves: usi,
        opening_plies: opening_moves.len(),
        forfeit,
        searched,
    })
}
