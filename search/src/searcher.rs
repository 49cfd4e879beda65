//! The search: iterative deepening with aspiration windows over a principal-variation
//! alpha-beta search, and a quiescence search of captures at its leaves.
//!
//! Each part stands beside its condition:
//! * transposition table cut-offs at non-PV nodes, its move searched first everywhere;
//! * check extension: a side whose single royal is attacked is searched a ply deeper;
//! * reverse futility pruning: near the leaves, a static evaluation far above beta returns;
//! * null move: a side that can pass and still stay above beta is cut off, except where its
//!   single royal is attacked (in royal-capture variants passing there loses the royal, under
//!   the check rule passing is illegal) and where it has only royals and pawns on the board;
//! * late-move reductions for quiet moves late in the order, re-searched at full depth when they
//!   beat alpha, and late-move pruning of quiet moves at the last plies;
//! * quiescence: captures ordered by victim then attacker, those that lose material by the
//!   exchange estimate ([`crate::ordering::see_at_least`]) and those that cannot lift the score
//!   to alpha (delta pruning) left out; under the check rule a side in check tries every move.
//!
//! Game ends inside the tree follow the variant: a side with no royal left has lost (royal
//! capture), a side without a legal move has lost (checkmate; stalemate loses in the built-in
//! variants). Repetition: under the forbidden rule a move that recreates an earlier position of
//! the game or of the line is not a move; under the other rules a repeated position scores a
//! draw, except a cycle in which every move of one side attacked the other's single royal
//! (perpetual check, and the attacks on the royal that chu's attacker rule counts): that side
//! has lost.

use crate::evaluator::Psq;
use crate::limits::{Limits, Options};
use crate::ordering::{self, Heuristics, Reductions, MAX_PLY};
use crate::report::{Line, Outcome};
use crate::score::{self, Score, DRAW, INFINITE};
use crate::time::TimeManager;
use crate::tt::{Bound, Table};
use shogilab_engine::position::Undo;
use shogilab_engine::variant::RepetitionRule;
use shogilab_engine::{Game, Move, MoveList, Position};
use std::collections::HashSet;
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Per ply of the line being searched.
#[derive(Default, Clone)]
struct Frame {
    moves: MoveList,
    keys: Vec<i32>,
    /// Black's evaluation of the position at this ply.
    acc: i32,
    /// The position's Zobrist key.
    key: u64,
    /// The move that led here attacked the mover's opponent's single royal.
    checking: bool,
    /// The move that led here was a null move.
    null: bool,
    pv: Vec<Move>,
    quiets: Vec<Move>,
}

/// A root move and what the iterations found for it.
#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    score: Score,
    previous: Score,
    pv: Vec<Move>,
    /// Its score is exact in the current iteration.
    exact: bool,
}

/// The searching engine of one variant: its evaluator, its table and heuristics.
pub struct Engine {
    psq: Arc<Psq>,
    options: Options,
    tt: Table,
    heuristics: Heuristics,
    reductions: Reductions,
    /// Per type: a royal or an unpromoted pawn (the null move's zugzwang guard).
    pawn_or_royal: Vec<bool>,
    frames: Vec<Frame>,
    // per search
    limits: Limits,
    time: TimeManager,
    nodes: u64,
    seldepth: usize,
    aborted: bool,
    /// Iterations completed by the search under way.
    completed: u32,
    history: HashSet<u64>,
    rule: RepetitionRule,
    root: Vec<RootMove>,
}

impl Engine {
    pub fn new(psq: Arc<Psq>, options: Options) -> Engine {
        let v = Arc::clone(psq.variant());
        Engine {
            tt: Table::new(options.hash_mb),
            heuristics: Heuristics::new(v.types.len(), v.squares.len()),
            reductions: Reductions::new(),
            pawn_or_royal: v
                .types
                .iter()
                .map(|t| t.royal || (t.name == "pawn" && !t.promoted))
                .collect(),
            frames: vec![Frame::default(); MAX_PLY + 4],
            limits: Limits::default(),
            time: TimeManager::new(Default::default(), Instant::now()),
            nodes: 0,
            seldepth: 0,
            aborted: false,
            completed: 0,
            history: HashSet::new(),
            rule: v.rules.repetition,
            root: Vec::new(),
            psq,
            options,
        }
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The principal variations the next searches report.
    pub fn set_multipv(&mut self, k: usize) {
        self.options.multipv = k.max(1);
    }

    pub fn evaluator(&self) -> &Arc<Psq> {
        &self.psq
    }

    /// Forget what earlier searches learnt (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.heuristics.clear();
    }

    /// The static evaluation of a position for its side to move (centipawns).
    pub fn evaluate(&self, pos: &Position) -> Score {
        self.psq.for_side(self.psq.full(pos), pos.side_to_move())
    }

    /// Search the game's current position; `report` gets each completed line. `None` when the
    /// game has no legal move.
    pub fn search(
        &mut self,
        game: &Game,
        limits: Limits,
        report: &mut dyn FnMut(&Line),
    ) -> Option<Outcome> {
        let start = Instant::now();
        self.prepare(game, limits, start)?;
        let mut pos = game.position().clone();
        self.frames[0].acc = self.psq.full(&pos);
        self.frames[0].key = pos.hash();
        self.frames[0].checking = pos.in_check_of(pos.side_to_move());
        self.frames[0].null = false;
        let max_depth =
            self.limits.depth.unwrap_or(MAX_PLY as u32 - 8).clamp(1, MAX_PLY as u32 - 8);
        let (mut lines, mut completed) = (Vec::new(), 0);
        let mut last = Duration::ZERO;
        for depth in 1..=max_depth {
            let began = Instant::now();
            let found = self.iteration(&mut pos, depth as i32, start, report);
            if self.aborted {
                // a partial iteration counts where its best move was searched exactly
                self.keep_partial(&mut lines);
                break;
            }
            lines = found;
            completed = depth;
            self.completed = depth;
            let before = std::mem::replace(&mut last, began.elapsed());
            let best = self.root[0].score;
            if score::is_decided(best) && score::MATE - best.abs() <= depth as i32 {
                break;
            }
            if !self.time.start_iteration(last, before) {
                break;
            }
        }
        let best = &self.root[0];
        Some(Outcome {
            best: best.mv,
            score: best.score,
            depth: completed,
            nodes: self.nodes,
            time: start.elapsed(),
            lines,
        })
    }

    /// Set up a search; `None` when the game has no legal move.
    fn prepare(&mut self, game: &Game, limits: Limits, start: Instant) -> Option<()> {
        if game.legal().is_empty() {
            return None;
        }
        self.time = TimeManager::new(limits.time, start);
        self.limits = limits;
        self.nodes = 0;
        self.seldepth = 0;
        self.aborted = false;
        self.completed = 0;
        self.history = game.position_hashes().collect();
        self.rule = game.position().variant().rules.repetition;
        self.tt.new_search();
        self.heuristics.new_search();
        let root = game.position();
        let mut moves: Vec<(Score, Move)> = game
            .legal()
            .iter()
            .map(|&m| {
                (
                    ordering::victims(&self.psq, root, m)
                        + ordering::promotion_gain(&self.psq, root, m),
                    m,
                )
            })
            .collect();
        moves.sort_by_key(|&(k, _)| -k);
        self.root = moves
            .into_iter()
            .map(|(_, mv)| RootMove {
                mv,
                score: -INFINITE,
                previous: -INFINITE,
                pv: vec![mv],
                exact: false,
            })
            .collect();
        Some(())
    }

    /// One iteration over every principal variation; the lines found.
    fn iteration(
        &mut self,
        pos: &mut Position,
        depth: i32,
        start: Instant,
        report: &mut dyn FnMut(&Line),
    ) -> Vec<Line> {
        for rm in &mut self.root {
            rm.previous = rm.score;
            rm.exact = false;
        }
        let k = self.options.multipv.clamp(1, self.root.len());
        let mut lines = Vec::with_capacity(k);
        for pv_index in 0..k {
            let found = self.aspiration(pos, depth, pv_index, start, report);
            if self.aborted {
                break;
            }
            // the best of the moves from pv_index on stands at pv_index
            self.root[pv_index..].sort_by_key(|r| -r.score);
            lines.push(self.line(pv_index, depth, start, found));
        }
        if !self.aborted {
            self.root[..k].sort_by_key(|r| -r.score);
            for (i, l) in lines.iter_mut().enumerate() {
                *l = self.line(i, depth, start, None);
                report(l);
            }
        }
        lines
    }

    /// The line of the root move at `i`.
    fn line(&self, i: usize, depth: i32, start: Instant, bound: Option<bool>) -> Line {
        let rm = &self.root[i];
        Line {
            multipv: i + 1,
            depth: depth as u32,
            seldepth: self.seldepth as u32,
            score: rm.score,
            lower_bound: bound,
            nodes: self.nodes,
            time: start.elapsed(),
            hashfull: self.tt.hashfull(),
            pv: rm.pv.clone(),
        }
    }

    /// The root search of one principal variation at `depth` in a window around the last
    /// score, widened until the score falls inside it. Returns `None` (an exact score).
    fn aspiration(
        &mut self,
        pos: &mut Position,
        depth: i32,
        pv_index: usize,
        start: Instant,
        report: &mut dyn FnMut(&Line),
    ) -> Option<bool> {
        let previous = self.root[pv_index].previous;
        let mut delta = 30;
        let (mut alpha, mut beta) = if self.options.aspiration
            && depth >= 4
            && !score::is_decided(previous)
            && previous > -INFINITE
        {
            (previous - delta, previous + delta)
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            let s = self.root_search(pos, depth, alpha, beta, pv_index);
            if self.aborted {
                return None;
            }
            if s <= alpha && alpha > -INFINITE {
                report(&self.line(pv_index, depth, start, Some(false)));
                beta = (alpha + beta) / 2;
                alpha = (s - delta).max(-INFINITE);
            } else if s >= beta && beta < INFINITE {
                report(&self.line(pv_index, depth, start, Some(true)));
                beta = (s + delta).min(INFINITE);
            } else {
                return None;
            }
            delta += delta / 2 + 10;
            if delta > 1500 {
                (alpha, beta) = (-INFINITE, INFINITE);
            }
        }
    }

    /// The root node: the root moves from `pv_index` on, best of the last iteration first.
    fn root_search(
        &mut self,
        pos: &mut Position,
        depth: i32,
        mut alpha: Score,
        beta: Score,
        pv_index: usize,
    ) -> Score {
        let mut best = -INFINITE;
        self.root[pv_index..].sort_by_key(|r| -r.previous);
        for i in pv_index..self.root.len() {
            let m = self.root[i].mv;
            let gives = self.make(pos, m, 0);
            let s = if i == pv_index {
                -self.node(pos, depth - 1, -beta, -alpha, 1, true)
            } else {
                let mut s = -self.node(pos, depth - 1, -alpha - 1, -alpha, 1, false);
                if s > alpha && !self.aborted {
                    s = -self.node(pos, depth - 1, -beta, -alpha, 1, true);
                }
                s
            };
            self.unmake(pos, gives);
            if self.aborted {
                return best;
            }
            let rm = &mut self.root[i];
            rm.score = s;
            if i == pv_index || s > alpha {
                rm.exact = s > alpha && s < beta;
                rm.pv.clear();
                rm.pv.push(m);
                rm.pv.extend_from_slice(&self.frames[1].pv);
            }
            if s > best {
                best = s;
            }
            if s > alpha {
                alpha = s;
                if s >= beta {
                    break;
                }
            }
        }
        best
    }

    /// After an abandoned iteration: its first root move (last iteration's best) keeps its
    /// score if searched exactly; a move that beat it exactly moves in front.
    fn keep_partial(&mut self, lines: &mut [Line]) {
        if let Some(i) =
            (0..self.root.len()).filter(|&i| self.root[i].exact).max_by_key(|&i| self.root[i].score)
        {
            if self.root[i].score > self.root[0].previous || i == 0 {
                let rm = self.root.remove(i);
                if let Some(l) = lines.first_mut() {
                    l.score = rm.score;
                    l.pv = rm.pv.clone();
                }
                self.root.insert(0, rm);
                return;
            }
        }
        self.root[0].score = self.root[0].previous.max(self.root[0].score);
    }

    /// Play `m` at `ply`: the next frame's evaluation and key. Returns the undo record and
    /// whether the move attacks the opponent's single royal.
    fn make(&mut self, pos: &mut Position, m: Move, ply: usize) -> (Undo, bool) {
        let u = pos.play(m);
        let acc = self.frames[ply].acc + self.psq.delta(pos, &u);
        let checking = pos.in_check_of(pos.side_to_move());
        let f = &mut self.frames[ply + 1];
        f.acc = acc;
        f.key = pos.hash();
        f.checking = checking;
        f.null = false;
        (u, checking)
    }

    /// [`Engine::make`], unless the move recreates a position the forbidden-repetition rule
    /// forbids: then the move is taken back and `None` returned (it is not a move here).
    fn make_legal(&mut self, pos: &mut Position, m: Move, ply: usize) -> Option<(Undo, bool)> {
        let made = self.make(pos, m, ply);
        if self.forbidden_repeat(ply + 1) {
            self.unmake(pos, made);
            return None;
        }
        Some(made)
    }

    fn unmake(&mut self, pos: &mut Position, made: (Undo, bool)) {
        pos.unplay(&made.0);
    }

    /// Count a node; whether the search is abandoned.
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            let stopped =
                self.limits.stop.as_ref().is_some_and(|s| s.load(AtomicOrdering::Relaxed));
            // the first iteration always completes (a move with a score), unless stopped
            if stopped || (self.completed > 0 && self.time.out_of_time()) {
                self.aborted = true;
            }
        }
        if self.completed > 0 && self.limits.nodes.is_some_and(|n| self.nodes >= n) {
            self.aborted = true;
        }
        self.aborted
    }

    /// The static evaluation at `ply` for the side to move.
    #[inline]
    fn static_eval(&self, pos: &Position, ply: usize) -> Score {
        self.psq.for_side(self.frames[ply].acc, pos.side_to_move())
    }

    /// A side with no royal left has lost (royal-capture variants).
    #[inline]
    fn royal_lost(pos: &Position) -> bool {
        !pos.variant().rules.check && pos.royal_count(pos.side_to_move()) == 0
    }

    /// The score of the position at `ply` by the repetition rule, if it repeats an earlier one.
    fn repetition(&self, ply: usize) -> Option<Score> {
        let key = self.frames[ply].key;
        let mut back = ply;
        while back >= 2 {
            back -= 2;
            if self.frames[back].key == key {
                return Some(self.cycle_score(back, ply));
            }
        }
        self.history.contains(&key).then_some(self.draw(ply))
    }

    /// The score of a draw at `ply` for its side to move: the contempt against the root side.
    #[inline]
    fn draw(&self, ply: usize) -> Score {
        if ply.is_multiple_of(2) {
            DRAW - self.options.contempt
        } else {
            DRAW + self.options.contempt
        }
    }

    /// The score of a cycle on the line from `from` to `ply` for the side to move at `ply`:
    /// a side all of whose moves in it attacked the other's single royal has lost.
    fn cycle_score(&self, from: usize, ply: usize) -> Score {
        if self.rule == RepetitionRule::Draw {
            return self.draw(ply);
        }
        // frames[k].checking: the move into ply k; moves into ply, ply-2, ... are the opponent's
        let all = |last: usize| {
            (from + 1..=last)
                .rev()
                .step_by(2)
                .all(|k| self.frames[k].checking && !self.frames[k].null)
        };
        let (theirs, ours) = (all(ply), all(ply - 1));
        match (theirs, ours) {
            (true, false) => -score::mated_in(ply),
            (false, true) => score::mated_in(ply + 1),
            _ => self.draw(ply),
        }
    }

    /// Under the forbidden rule: whether the position just reached at `ply` recreates one.
    fn forbidden_repeat(&self, ply: usize) -> bool {
        self.rule == RepetitionRule::Forbidden && self.repetition(ply).is_some()
    }

    /// The negamax score of the position at `ply` within `alpha..beta`, `depth` plies deep.
    fn node(
        &mut self,
        pos: &mut Position,
        mut depth: i32,
        mut alpha: Score,
        mut beta: Score,
        ply: usize,
        pv: bool,
    ) -> Score {
        self.frames[ply].pv.clear();
        if Self::royal_lost(pos) {
            return score::mated_in(ply);
        }
        if self.rule != RepetitionRule::Forbidden {
            if let Some(s) = self.repetition(ply) {
                return s;
            }
        }
        let in_check = self.frames[ply].checking;
        if in_check && self.options.check_extension && ply < 2 * MAX_PLY / 3 {
            depth += 1;
        }
        if depth <= 0 || ply >= MAX_PLY - 2 {
            return self.quiescence(pos, alpha, beta, ply);
        }
        if self.tick() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        // mate distance: no line from here beats a mate already found nearer the root
        alpha = alpha.max(score::mated_in(ply));
        beta = beta.min(score::MATE - ply as Score - 1);
        if alpha >= beta {
            return alpha;
        }
        let key = self.frames[ply].key;
        let entry = self.tt.probe(key);
        if let Some(e) = entry {
            let s = score::from_table(e.score, ply);
            let cuts = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
                Bound::None => false,
            };
            if !pv && e.depth as i32 >= depth && cuts {
                return s;
            }
        }
        let eval = self.static_eval(pos, ply);
        if !pv && !in_check {
            if let Some(s) = self.prune_early(pos, depth, beta, eval, ply) {
                return s;
            }
        }
        let table_move = entry.map(|e| e.mv).unwrap_or_default();
        self.search_moves(pos, depth, alpha, beta, ply, pv, in_check, eval, table_move)
    }

    /// Reverse futility pruning and the null move, before any move is tried.
    fn prune_early(
        &mut self,
        pos: &mut Position,
        depth: i32,
        beta: Score,
        eval: Score,
        ply: usize,
    ) -> Option<Score> {
        if self.aborted || score::is_decided(beta) {
            return None;
        }
        if self.options.futility && depth <= 6 && eval - 120 * depth >= beta {
            return Some(eval);
        }
        let can_pass = !self.frames[ply].null && self.has_pieces(pos);
        if self.options.null_move && depth >= 3 && eval >= beta && can_pass {
            let r = 3 + depth / 4 + ((eval - beta) / 250).min(2);
            let u = pos.play_null();
            let f = self.frames[ply].acc;
            let next = &mut self.frames[ply + 1];
            (next.acc, next.key, next.checking, next.null) = (f, pos.hash(), false, true);
            let s = -self.node(pos, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
            pos.unplay_null(u);
            if !self.aborted && s >= beta {
                return Some(if score::is_decided(s) { beta } else { s });
            }
        }
        None
    }

    /// Whether the side to move has pieces besides royals and pawns (where passing is rarely
    /// the best move, so a null move proves something).
    fn has_pieces(&self, pos: &Position) -> bool {
        let side = pos.pieces(pos.side_to_move());
        side.iter()
            .any(|&s| !self.pawn_or_royal[shogilab_engine::cell::cell_type(pos.cell(s)) as usize])
    }

    /// Generate, order and search the moves of a node.
    #[allow(clippy::too_many_arguments)]
    fn search_moves(
        &mut self,
        pos: &mut Position,
        depth: i32,
        mut alpha: Score,
        beta: Score,
        ply: usize,
        pv: bool,
        in_check: bool,
        eval: Score,
        table_move: Move,
    ) -> Score {
        self.generate(pos, ply, table_move, false);
        let original_alpha = alpha;
        let (mut best, mut best_move, mut legal) = (-INFINITE, Move::default(), 0usize);
        let mut quiets = std::mem::take(&mut self.frames[ply].quiets);
        quiets.clear();
        let n = self.frames[ply].moves.len();
        let killers = self.heuristics.killers(ply);
        for i in 0..n {
            let (m, _) = self.pick(ply, i);
            let quiet = !m.promotes() && ordering::victims(&self.psq, pos, m) == 0;
            let killer = killers.contains(&m);
            // late-move pruning: quiet moves far down the order at the last plies
            if self.options.futility
                && !pv
                && !in_check
                && quiet
                && depth <= 3
                && legal >= 6 + 4 * (depth * depth) as usize
                && !score::is_decided(best)
            {
                continue;
            }
            let Some(made) = self.make_legal(pos, m, ply) else { continue };
            legal += 1;
            let gives = made.1;
            let reducible = quiet && !killer && !gives && !in_check;
            let s = self.search_child(pos, depth, alpha, beta, ply, pv, legal, reducible);
            self.unmake(pos, made);
            if self.aborted {
                self.frames[ply].quiets = quiets;
                return 0;
            }
            if s > best {
                best = s;
            }
            if s > alpha {
                best_move = m;
                alpha = s;
                if pv {
                    let (head, tail) = self.frames.split_at_mut(ply + 1);
                    head[ply].pv.clear();
                    head[ply].pv.push(m);
                    head[ply].pv.extend_from_slice(&tail[0].pv);
                }
                if alpha >= beta {
                    if quiet {
                        self.heuristics.reward(pos, m, ply, depth, &quiets);
                    }
                    break;
                }
            }
            if quiet {
                quiets.push(m);
            }
        }
        self.frames[ply].quiets = quiets;
        if legal == 0 {
            return score::mated_in(ply);
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            self.frames[ply].key,
            best_move,
            score::to_table(best, ply),
            eval,
            depth as i16,
            bound,
        );
        best
    }

    /// Search the child just made, the `number`th legal move: the first with the full window,
    /// the others with a null window (reduced when `reducible`), re-searched when they beat
    /// alpha.
    #[allow(clippy::too_many_arguments)]
    fn search_child(
        &mut self,
        pos: &mut Position,
        depth: i32,
        alpha: Score,
        beta: Score,
        ply: usize,
        pv: bool,
        number: usize,
        reducible: bool,
    ) -> Score {
        if number == 1 {
            return -self.node(pos, depth - 1, -beta, -alpha, ply + 1, pv);
        }
        let mut r = 0;
        if self.options.late_move_reductions
            && reducible
            && depth >= 3
            && number > if pv { 4 } else { 2 }
        {
            r = self.reductions.of(depth, number) - pv as i32;
            r = r.clamp(0, depth - 2);
        }
        let mut s = -self.node(pos, depth - 1 - r, -alpha - 1, -alpha, ply + 1, false);
        if s > alpha && r > 0 && !self.aborted {
            s = -self.node(pos, depth - 1, -alpha - 1, -alpha, ply + 1, false);
        }
        if s > alpha && s < beta && pv && !self.aborted {
            s = -self.node(pos, depth - 1, -beta, -alpha, ply + 1, true);
        }
        s
    }

    /// Fill the frame's moves and their ordering keys (all legal moves, or the captures).
    fn generate(&mut self, pos: &Position, ply: usize, table_move: Move, captures: bool) {
        let mut moves = std::mem::take(&mut self.frames[ply].moves);
        let mut keys = std::mem::take(&mut self.frames[ply].keys);
        moves.clear();
        keys.clear();
        if captures {
            pos.legal_captures(&mut moves);
        } else {
            pos.legal_moves(&mut moves);
        }
        let killers = self.heuristics.killers(ply);
        for &m in &moves {
            keys.push(self.key(pos, m, table_move, killers));
        }
        self.frames[ply].moves = moves;
        self.frames[ply].keys = keys;
    }

    /// The ordering key of a move.
    #[inline]
    fn key(&self, pos: &Position, m: Move, table_move: Move, killers: [Move; 2]) -> i32 {
        if m == table_move {
            return ordering::KEY_TABLE_MOVE;
        }
        let victims = ordering::victims(&self.psq, pos, m);
        if victims > 0 {
            let attacker = self.psq.value(ordering::mover_type(pos, m));
            let mvv = victims.min(1 << 20) * 8 - attacker.clamp(0, 1 << 20) / 128;
            let good = victims >= attacker || ordering::see_at_least(&self.psq, pos, m, 0);
            return if good {
                ordering::KEY_GOOD_CAPTURE + mvv
            } else {
                ordering::KEY_BAD_CAPTURE + mvv
            };
        }
        if m.promotes() {
            return ordering::KEY_PROMOTION
                + ordering::promotion_gain(&self.psq, pos, m).clamp(0, 1 << 20);
        }
        if m == killers[0] {
            return ordering::KEY_KILLER;
        }
        if m == killers[1] {
            return ordering::KEY_KILLER - 1;
        }
        self.heuristics.history(pos, m)
    }

    /// The `i`th move in order: the best of those left, swapped into place.
    #[inline]
    fn pick(&mut self, ply: usize, i: usize) -> (Move, i32) {
        let f = &mut self.frames[ply];
        let mut best = i;
        for j in i + 1..f.keys.len() {
            if f.keys[j] > f.keys[best] {
                best = j;
            }
        }
        f.keys.swap(i, best);
        f.moves.swap(i, best);
        (f.moves[i], f.keys[i])
    }

    /// The quiescence search: captures until the position is quiet.
    fn quiescence(
        &mut self,
        pos: &mut Position,
        mut alpha: Score,
        beta: Score,
        ply: usize,
    ) -> Score {
        self.frames[ply].pv.clear();
        if self.tick() {
            return 0;
        }
        if Self::royal_lost(pos) {
            return score::mated_in(ply);
        }
        self.seldepth = self.seldepth.max(ply);
        let check_rule_check = pos.variant().rules.check && self.frames[ply].checking;
        let stand = self.static_eval(pos, ply);
        if ply >= MAX_PLY - 2 {
            return stand;
        }
        let mut best = -INFINITE;
        if !check_rule_check {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        self.generate(pos, ply, Move::default(), !check_rule_check);
        let n = self.frames[ply].moves.len();
        let mut legal = 0;
        for i in 0..n {
            let (m, key) = self.pick(ply, i);
            if !check_rule_check {
                if self.options.see_pruning && key < ordering::KEY_PROMOTION {
                    continue; // a capture that loses material
                }
                let gain = ordering::victims(&self.psq, pos, m)
                    + ordering::promotion_gain(&self.psq, pos, m);
                if stand + gain + 200 < alpha && !score::is_decided(alpha) {
                    continue;
                }
            }
            let Some(made) = self.make_legal(pos, m, ply) else { continue };
            legal += 1;
            let s = -self.quiescence(pos, -beta, -alpha, ply + 1);
            self.unmake(pos, made);
            if self.aborted {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        if check_rule_check && legal == 0 {
            // under the check rule the generator gave every move: none is legal
            return score::mated_in(ply);
        }
        best
    }
}
