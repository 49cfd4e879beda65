//! One game between two agents, refereed by the engine's game rules. An agent that fails
//! (crash, hang, protocol error, illegal or unparsable move, a false win claim) loses the game
//! by forfeit, with the reason recorded.

use crate::agent::{
    check_limits, start_and_usi_moves, Agent, AgentError, Choice, LimitSource, Limits,
};
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

/// A game ended by the referee rather than by the position: a forfeit, or a win declared by
/// impasse.
struct Ending {
    status: Status,
    forfeit: Option<(Color, String)>,
}

impl Ending {
    /// `side` loses by forfeit for `why`.
    fn forfeit(side: Color, why: String, termination: Termination) -> Self {
        Ending { status: Status::Win(side.flip(), termination), forfeit: Some((side, why)) }
    }

    /// `side` loses by forfeit because its agent failed with `e`.
    fn failed(side: Color, e: &AgentError) -> Self {
        Self::forfeit(side, e.to_string(), forfeit_termination(e))
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
    let mut ending = announce_game(&mut agents, &game);
    for (i, &m) in opening_moves.iter().enumerate() {
        if !game.legal().contains(&m) {
            return Err(PlayError::BadOpening { ply: i + 1 });
        }
        game.play(m);
    }
    if max_plies > 0 {
        game.set_max_plies(max_plies);
    }
    let mut searched = [(0u64, 0u64); 2];
    while ending.is_none() && !game.status().is_over() {
        let side = game.position().side_to_move().idx();
        ending = play_turn(&mut *agents[side], &mut game, limits, &mut searched[side]);
    }
    let (status, forfeit) = match ending {
        Some(e) => (e.status, e.forfeit),
        None => (game.status(), None),
    };
    let (_, moves) = start_and_usi_moves(&game);
    Ok(GameResult {
        status,
        start_sfen,
        plies: moves.len(),
        moves,
        opening_plies: opening_moves.len(),
        forfeit,
        searched,
    })
}

/// Tell both agents about the game before its opening; the first that fails forfeits.
fn announce_game(agents: &mut [&mut dyn Agent; 2], game: &Game) -> Option<Ending> {
    agents.iter_mut().enumerate().find_map(|(i, a)| {
        let e = a.new_game(game).err()?;
        Some(Ending::failed(Color::from_idx(i), &e))
    })
}

/// Ask the side to move for its move and play it, adding its search size to `searched`
/// (moves, nodes). `Some` when the turn ends the game outside the position's own rules.
fn play_turn(
    agent: &mut dyn Agent,
    game: &mut Game,
    limits: &Limits,
    searched: &mut (u64, u64),
) -> Option<Ending> {
    let side = game.position().side_to_move();
    match agent.choose(game, limits) {
        Ok(Choice::Move(m)) => {
            if let Some(n) = agent.last_nodes() {
                searched.0 += 1;
                searched.1 += n;
            }
            if game.legal().contains(&m) {
                game.play(m);
                return None;
            }
            let why = illegal_move_reason(game.position(), m);
            Some(Ending::forfeit(side, why, Termination::IllegalMove))
        }
        Ok(Choice::Resign) => {
            game.resign(side);
            None
        }
        Ok(Choice::DeclareWin) if game.impasse_declaration(side) => {
            Some(Ending { status: Status::Win(side, Termination::Impasse), forfeit: None })
        }
        Ok(Choice::DeclareWin) => {
            Some(Ending::forfeit(side, "false win declaration".into(), Termination::IllegalMove))
        }
        Err(e) => Some(Ending::failed(side, &e)),
    }
}

/// Why `m` is not legal in `pos`: the parser's reason, or a repetition that the rules forbid.
fn illegal_move_reason(pos: &Position, m: Move) -> String {
    let usi = pos.move_to_usi(m);
    let why = match pos.parse_usi(&usi) {
        Ok(_) => "it repeats an earlier position".to_string(),
        Err(e) => e.to_string(),
    };
    format!("illegal move {usi}: {why}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::RandomAgent;
    use shogilab_engine::Variant;

    /// An agent that answers every `choose` with `choice`, and fails `new_game` if told to.
    struct Fixed {
        choice: Choice,
        fail_new_game: bool,
    }

    impl Agent for Fixed {
        fn name(&self) -> String {
            "fixed".into()
        }
        fn new_game(&mut self, _game: &Game) -> Result<(), AgentError> {
            if self.fail_new_game {
                return Err(AgentError::Unsupported("this start position".into()));
            }
            Ok(())
        }
        fn choose(&mut self, _game: &Game, _limits: &Limits) -> Result<Choice, AgentError> {
            Ok(self.choice)
        }
    }

    fn play_white(choice: Choice, fail_new_game: bool) -> GameResult {
        let v = Variant::builtin("shogi").unwrap();
        let mut black = RandomAgent::new(1);
        let mut white = Fixed { choice, fail_new_game };
        play_game([&mut black, &mut white], Position::start(&v), &[], 20, &Limits::default())
            .unwrap()
    }

    #[test]
    fn a_false_win_declaration_forfeits_after_the_first_move() {
        let r = play_white(Choice::DeclareWin, false);
        assert_eq!(r.forfeit, Some((Color::White, "false win declaration".into())));
        assert_eq!(r.status, Status::Win(Color::Black, Termination::IllegalMove));
        assert_eq!(r.plies, 1);
    }

    #[test]
    fn an_agent_that_cannot_start_forfeits_before_any_move() {
        let r = play_white(Choice::Resign, true);
        let (side, why) = r.forfeit.expect("a forfeit");
        assert_eq!(side, Color::White);
        assert!(why.contains("unsupported: this start position"), "{why}");
        assert_eq!(r.status, Status::Win(Color::Black, Termination::Resignation));
        assert_eq!(r.plies, 0);
    }

    #[test]
    fn a_move_of_the_wrong_side_forfeits_with_the_parsers_reason() {
        let v = Variant::builtin("shogi").unwrap();
        let start = Position::start(&v);
        // Black's first pawn push, offered by White after Black has moved
        let black_move = start.parse_usi("7g7f").unwrap();
        let r = play_white(Choice::Move(black_move), false);
        let (side, why) = r.forfeit.expect("a forfeit");
        assert_eq!(side, Color::White);
        assert!(why.starts_with("illegal move 7g7f: "), "{why}");
        assert!(!why.contains("repeats"), "{why}");
        assert_eq!(r.status, Status::Win(Color::Black, Termination::IllegalMove));
    }
}
