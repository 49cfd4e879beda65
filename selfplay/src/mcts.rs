//! Monte-Carlo tree search with a Gumbel root (sequential halving over sampled actions,
//! Danihelka et al. 2022, as in DeepMind's mctx) and PUCT below the root.
//!
//! The search is a state machine so that many games can share one batched evaluator:
//! [`Search::advance`] runs simulations until a leaf needs an evaluation (the leaf position is
//! left on the search's working position) or the move's simulations are done;
//! [`Search::deliver`] expands the leaf with the evaluation and backs the value up. The tree is
//! an arena of nodes; the working position is advanced and restored with play/unplay, so a
//! simulation does not clone positions or allocate once the buffers have grown.
//!
//! A single game can also evaluate several leaves at once ([`Search::gather`], module
//! `batch`): each gathered leaf's path carries a virtual loss until its evaluation arrives.

use crate::evaluator::EvalOutput;
use crate::invalid::InvalidSetting;
use rand::Rng;
use serde::{Deserialize, Serialize};
use shogilab_engine::variant::{Color, RepetitionRule};
use shogilab_engine::{Move, MoveList, Position};

mod batch;

/// Search settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Simulations per move (the root evaluation not counted).
    pub simulations: u32,
    /// Actions sampled at the root for sequential halving.
    pub gumbel_k: u32,
    /// sigma(q) = (c_visit + max visits) * c_scale * q, q rescaled to [0, 1].
    pub c_visit: f32,
    pub c_scale: f32,
    /// PUCT exploration constant below the root.
    pub c_puct: f32,
    /// Value given to unvisited children below the root, relative to the parent's value.
    pub fpu_reduction: f32,
    /// Sample Gumbel noise at the root (self-play); off for deterministic play.
    pub gumbel_noise: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 32,
            gumbel_k: 16,
            c_visit: 50.0,
            c_scale: 0.1,
            c_puct: 1.25,
            fpu_reduction: 0.2,
            gumbel_noise: true,
        }
    }
}

impl SearchConfig {
    /// Check ranges; the error names the key (`search.simulations`, ...).
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        if self.simulations == 0 || self.simulations > 100_000 {
            return Err(InvalidSetting::new(
                "search.simulations",
                self.simulations,
                "must be 1..100000",
            ));
        }
        if self.gumbel_k < 1 || self.gumbel_k > 4096 {
            return Err(InvalidSetting::new("search.gumbel_k", self.gumbel_k, "must be 1..4096"));
        }
        let non_negative = [
            ("search.c_visit", self.c_visit),
            ("search.c_scale", self.c_scale),
            ("search.c_puct", self.c_puct),
            ("search.fpu_reduction", self.fpu_reduction),
        ];
        for (k, v) in non_negative {
            if !(v.is_finite() && v >= 0.0) {
                return Err(InvalidSetting::new(k, v, "must be a non-negative number"));
            }
        }
        Ok(())
    }
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    mv: Move,
    prior: f32,
    /// Log prior (root Gumbel scores).
    logit: f32,
    visits: u32,
    /// Sum of values from the point of view of the player who chose this edge.
    value_sum: f32,
    first_child: u32,
    num_children: u32,
    /// Value for the side to move at this node if it is terminal.
    terminal: Option<f32>,
    expanded: bool,
}

impl Node {
    fn new(mv: Move, prior: f32) -> Node {
        Node {
            mv,
            prior,
            logit: prior.max(1e-12).ln(),
            visits: 0,
            value_sum: 0.0,
            first_child: NONE,
            num_children: 0,
            terminal: None,
            expanded: false,
        }
    }
    fn q(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }
}

/// What `advance` stopped on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A leaf needs an evaluation: the working position and `leaf_moves` describe it.
    NeedEval,
    /// All simulations of this move are done.
    Done,
}

/// The result of a finished search.
#[derive(Debug, Clone)]
pub struct SearchResult {
    /// The chosen move.
    pub best: Move,
    /// Improved policy over the root's legal moves (sums to 1), in `moves` order.
    pub moves: Vec<Move>,
    pub policy: Vec<f32>,
    /// Root value for the side to move, in [-1, 1].
    pub value: f32,
    /// Root visit counts, in `moves` order.
    pub visits: Vec<u32>,
}

/// Search state of one game.
pub struct Search {
    pub cfg: SearchConfig,
    nodes: Vec<Node>,
    /// Working position: the root position, or the pending leaf during an evaluation.
    pos: Position,
    undo: Vec<shogilab_engine::position::Undo>,
    path: Vec<u32>,
    /// Legal moves at the pending leaf.
    pub leaf_moves: MoveList,
    /// Gumbel noise of the root children (indexed like them).
    gumbel: Vec<f32>,
    /// Root children considered by sequential halving.
    considered: Vec<u32>,
    schedule: Vec<u32>,
    sims_done: u32,
    root_value: f32,
    pending: bool,
    /// Hashes of the game's positions before the root (`set_history`).
    history: Vec<u64>,
    /// Hashes of the root and the positions on the current path.
    path_hashes: Vec<u64>,
    /// The opponent's replies to a root move (scratch of `mark_royal_blunders`).
    replies: MoveList,
    /// Leaf slots of [`Search::gather`] (the first `held` are waiting for their evaluation).
    batch: Vec<batch::HeldLeaf>,
    held: usize,
    /// The root moves a screen allows ([`Search::screen_root`]); empty: all.
    allowed: Vec<Move>,
}

/// What one walk from the root ended on.
enum Walk {
    /// An unexpanded leaf, left on the working position (`path`, `leaf_moves`).
    Leaf,
    /// A decided node, whose value is backed up already.
    Backed,
    /// Nothing left to search.
    Done,
}

/// The number of visits the chosen root action must already have at each simulation
/// (sequential halving as a fixed schedule, after mctx).
fn halving_schedule(m: u32, n: u32) -> Vec<u32> {
    if m <= 1 {
        return (0..n).collect();
    }
    let log2m = (m as f32).log2().ceil().max(1.0) as u32;
    let mut seq = Vec::with_capacity(n as usize);
    let mut visits = vec![0u32; m as usize];
    let mut considered = m;
    while (seq.len() as u32) < n {
        let extra = (n / (log2m * considered)).max(1);
        for _ in 0..extra {
            seq.extend_from_slice(&visits[..considered as usize]);
            for v in visits.iter_mut().take(considered as usize) {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    seq.truncate(n as usize);
    seq
}

/// Value of a position without search: decided states only (no moves: loss; no royal left:
/// loss; in royal-capture variants, a legal move that captures the opponent's last royal: win).
/// Returns the value for the side to move.
pub fn terminal_value(pos: &Position, moves: &[Move]) -> Option<f32> {
    let v = pos.variant();
    if !v.rules.check && pos.royal_count(pos.side_to_move()) == 0 {
        return Some(-1.0);
    }
    if moves.is_empty() {
        return Some(-1.0);
    }
    royal_capture(pos, moves).map(|_| 1.0)
}

/// In a royal-capture variant (no check rule), a move of `moves` (the legal moves of `pos`)
/// that captures the opponent's last royal: the game is won on the spot. Moves that reach the
/// royal's square (as destination or as a lion's intermediate step) are the candidates, each
/// confirmed by playing it on a copy; a capture by burning (the fire demon) is not looked for.
pub fn royal_capture(pos: &Position, moves: &[Move]) -> Option<Move> {
    let them = pos.side_to_move().flip();
    let sq = last_royal(pos, them)?;
    let mut copy: Option<Position> = None;
    moves.iter().copied().filter(|m| m.to == sq || m.mids().any(|s| s == sq)).find(|&m| {
        let p = copy.get_or_insert_with(|| pos.clone());
        let undo = p.play(m);
        let won = p.royal_count(them) == 0;
        p.unplay(&undo);
        won
    })
}

/// The square of `c`'s only royal in a royal-capture variant (taking it ends the game).
fn last_royal(pos: &Position, c: Color) -> Option<u16> {
    if pos.variant().rules.check || pos.royal_count(c) != 1 {
        return None;
    }
    pos.royal_squares(c).next()
}

impl Search {
    pub fn new(cfg: SearchConfig, root: Position) -> Search {
        Search {
            cfg,
            nodes: Vec::with_capacity(4096),
            pos: root,
            undo: Vec::with_capacity(64),
            path: Vec::with_capacity(64),
            leaf_moves: MoveList::with_capacity(256),
            gumbel: Vec::new(),
            considered: Vec::new(),
            schedule: Vec::new(),
            sims_done: 0,
            root_value: 0.0,
            pending: false,
            history: Vec::new(),
            path_hashes: Vec::with_capacity(64),
            replies: MoveList::with_capacity(256),
            batch: Vec::new(),
            held: 0,
            allowed: Vec::new(),
        }
    }

    /// The game's earlier positions (hashes), so that the search sees repetitions: a position
    /// reached again in the tree is a draw, or, where the variant forbids repeating a position,
    /// a loss for the side that repeated it. Call after `reset`; `reset` clears it.
    pub fn set_history(&mut self, hashes: impl IntoIterator<Item = u64>) {
        self.history.clear();
        self.history.extend(hashes);
    }

    /// Value (for the side to move) of the working position if it repeats an earlier one.
    fn repetition_value(&self) -> Option<f32> {
        let h = self.pos.hash();
        if !self.path_hashes.contains(&h) && !self.history.contains(&h) {
            return None;
        }
        Some(match self.pos.variant().rules.repetition {
            RepetitionRule::Forbidden => 1.0,
            _ => 0.0,
        })
    }

    /// The working position (the pending leaf while an evaluation is outstanding).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Start a new search from `root` (the previous tree is dropped).
    pub fn reset(&mut self, root: &Position) {
        self.pos.clone_from(root);
        self.nodes.clear();
        self.nodes.push(Node::new(Move::default(), 1.0));
        self.undo.clear();
        self.path.clear();
        self.path.push(0);
        self.gumbel.clear();
        self.considered.clear();
        self.schedule.clear();
        self.sims_done = 0;
        self.pending = false;
        self.held = 0;
        self.leaf_moves.clear();
        self.history.clear();
        self.allowed.clear();
    }

    /// Allow only `allowed` at the root of this search (call after `reset`, before the first
    /// `advance`): the other root moves count as lost, so the root samples its candidates among
    /// the allowed ones. An outside judge of the root moves (a tactical screen) uses it; an
    /// empty list, or one that allows no root move, allows every move.
    pub fn screen_root(&mut self, allowed: &[Move]) {
        self.allowed.clear();
        self.allowed.extend_from_slice(allowed);
    }

    /// Root visits so far.
    pub fn simulations_done(&self) -> u32 {
        self.sims_done
    }

    /// Set the simulation budget of the search in progress to `total` (at least the simulations
    /// done): a timed search raises it while time remains. Once the root is prepared, its
    /// halving schedule is recomputed for the new total (the root actions' visits so far stay;
    /// the selection falls back to the least visited action where they do not fit the new
    /// schedule).
    pub fn extend(&mut self, total: u32) {
        self.cfg.simulations = total.max(self.sims_done).max(1);
        if !self.considered.is_empty() {
            self.schedule = halving_schedule(self.considered.len() as u32, self.cfg.simulations);
        }
    }

    /// Run until a leaf needs an evaluation or the search is complete.
    pub fn advance<R: Rng>(&mut self, rng: &mut R) -> Step {
        debug_assert!(!self.pending && self.held == 0);
        loop {
            match self.walk(rng) {
                Walk::Leaf => {
                    self.pending = true;
                    return Step::NeedEval;
                }
                Walk::Backed => {}
                Walk::Done => return Step::Done,
            }
        }
    }

    /// One simulation's walk from the root: to an unexpanded leaf (left on the working
    /// position), or to a decided node (backed up at once), or nothing when the budget is spent
    /// (simulations done plus leaves held by [`Search::gather`]).
    fn walk<R: Rng>(&mut self, rng: &mut R) -> Walk {
        if !self.nodes[0].expanded {
            // The root itself needs an evaluation first.
            self.path.clear();
            self.path.push(0);
            self.leaf_moves.clear();
            self.pos.legal_moves(&mut self.leaf_moves);
            if let Some(v) = terminal_value(&self.pos, &self.leaf_moves) {
                self.nodes[0].terminal = Some(v);
                self.nodes[0].expanded = true;
                self.root_value = v;
                return Walk::Done;
            }
            return Walk::Leaf;
        }
        if self.nodes[0].terminal.is_some()
            || self.sims_done + self.held as u32 >= self.cfg.simulations
            || self.nodes[0].num_children == 0
        {
            return Walk::Done;
        }
        if self.considered.is_empty() {
            self.prepare_root(rng);
        }
        self.path.clear();
        self.path.push(0);
        self.path_hashes.clear();
        self.path_hashes.push(self.pos.hash());
        let mut node = self.select_root();
        loop {
            let m = self.nodes[node as usize].mv;
            self.undo.push(self.pos.play(m));
            self.path.push(node);
            if let Some(v) = self.nodes[node as usize].terminal {
                self.backup(v);
                return Walk::Backed;
            }
            if let Some(v) = self.repetition_value() {
                // The path to a node is fixed and so is the history: mark it for good.
                self.decide(node, v);
                return Walk::Backed;
            }
            self.path_hashes.push(self.pos.hash());
            if !self.nodes[node as usize].expanded {
                self.leaf_moves.clear();
                self.pos.legal_moves(&mut self.leaf_moves);
                if let Some(v) = terminal_value(&self.pos, &self.leaf_moves) {
                    self.decide(node, v);
                    return Walk::Backed;
                }
                return Walk::Leaf;
            }
            node = self.select_puct(node);
        }
    }

    /// Mark `node` (the end of the path) decided with value `v` and back it up.
    fn decide(&mut self, node: u32, v: f32) {
        let n = &mut self.nodes[node as usize];
        n.terminal = Some(v);
        n.expanded = true;
        self.backup(v);
    }

    /// Give the evaluation of the pending leaf.
    pub fn deliver(&mut self, e: &EvalOutput) {
        debug_assert!(self.pending);
        self.pending = false;
        let leaf = *self.path.last().unwrap_or(&0);
        expand(&mut self.nodes, leaf, &self.leaf_moves, e);
        let v = e.value();
        if leaf == 0 {
            self.root_value = v;
            return;
        }
        self.backup(v);
    }

    /// Back a value (for the side to move at the leaf) up the path, restoring the position.
    fn backup(&mut self, leaf_value: f32) {
        back_up(&mut self.nodes, &self.path, leaf_value);
        self.sims_done += 1;
        self.unwind();
    }

    /// Bring the working position back to the root.
    fn unwind(&mut self) {
        while let Some(u) = self.undo.pop() {
            self.pos.unplay(&u);
        }
    }

    fn children(&self, n: u32) -> std::ops::Range<usize> {
        let node = &self.nodes[n as usize];
        if node.num_children == 0 {
            return 0..0; // unexpanded or decided (first_child is NONE)
        }
        node.first_child as usize..(node.first_child + node.num_children) as usize
    }

    /// In a royal-capture variant, mark the root moves after which the opponent takes the
    /// mover's last royal as decided losses, so that the root samples its candidates among the
    /// others (a saving move with a small prior is otherwise never looked at).
    fn mark_royal_blunders(&mut self) {
        if last_royal(&self.pos, self.pos.side_to_move()).is_none() {
            return;
        }
        for c in self.children(0) {
            let undo = self.pos.play(self.nodes[c].mv);
            self.replies.clear();
            self.pos.legal_moves(&mut self.replies);
            if royal_capture(&self.pos, &self.replies).is_some() {
                let n = &mut self.nodes[c];
                (n.terminal, n.expanded) = (Some(1.0), true);
            }
            self.pos.unplay(&undo);
        }
    }

    /// Mark the root moves that the screen ([`Search::screen_root`]) does not allow as lost,
    /// unless it allows none of them.
    fn mark_screened(&mut self) {
        let range = self.children(0);
        if !self.nodes[range.clone()].iter().any(|n| self.allowed.contains(&n.mv)) {
            return;
        }
        for n in &mut self.nodes[range] {
            if !self.allowed.contains(&n.mv) {
                (n.terminal, n.expanded) = (Some(1.0), true);
            }
        }
    }

    fn prepare_root<R: Rng>(&mut self, rng: &mut R) {
        self.mark_royal_blunders();
        self.mark_screened();
        let range = self.children(0);
        self.gumbel.clear();
        for _ in range.clone() {
            let g = if self.cfg.gumbel_noise {
                let u: f32 = rng.gen_range(1e-9f32..1.0);
                -(-u.ln()).ln()
            } else {
                0.0
            };
            self.gumbel.push(g);
        }
        let mut idx: Vec<u32> = (0..range.len() as u32).collect();
        let score = |i: u32| self.gumbel[i as usize] + self.nodes[range.start + i as usize].logit;
        let lost = |i: u32| self.nodes[range.start + i as usize].terminal == Some(1.0);
        // moves known to lose at once come last; the others by Gumbel score
        idx.sort_by(|&a, &b| lost(a).cmp(&lost(b)).then(score(b).total_cmp(&score(a))));
        let m = (self.cfg.gumbel_k as usize).min(idx.len()).max(1);
        idx.truncate(m);
        // a lost move is a candidate only when every move is lost
        if idx.first().is_some_and(|&i| !lost(i)) {
            idx.retain(|&i| !lost(i));
        }
        let m = idx.len();
        self.considered = idx;
        self.schedule = halving_schedule(m as u32, self.cfg.simulations);
    }

    /// Completed Q values of the root children (value mix for unvisited ones), for the side to
    /// move at the root, and the sigma transform.
    fn completed_q(&self) -> Vec<f32> {
        let range = self.children(0);
        let kids = &self.nodes[range.clone()];
        let total: u32 = kids.iter().map(|k| k.visits).sum();
        let (mut pq, mut p) = (0.0f32, 0.0f32);
        for k in kids.iter().filter(|k| k.visits > 0) {
            pq += k.prior * k.q();
            p += k.prior;
        }
        let vmix = if p > 0.0 {
            (self.root_value + total as f32 * pq / p) / (1.0 + total as f32)
        } else {
            self.root_value
        };
        let q: Vec<f32> = kids.iter().map(|k| if k.visits > 0 { k.q() } else { vmix }).collect();
        // rescale to [0, 1] over the children, as mctx does
        let (lo, hi) = q.iter().fold((f32::MAX, f32::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let maxn = kids.iter().map(|k| k.visits).max().unwrap_or(0) as f32;
        let scale = (self.cfg.c_visit + maxn) * self.cfg.c_scale;
        q.iter()
            .map(|&x| {
                let r = if hi > lo { (x - lo) / (hi - lo) } else { 0.5 };
                scale * r
            })
            .collect()
    }

    fn select_root(&self) -> u32 {
        let range = self.children(0);
        let next = self.sims_done as usize + self.held;
        let target = self.schedule.get(next).copied().unwrap_or(0);
        let sq = self.completed_q();
        let mut best = NONE;
        let mut best_score = f32::MIN;
        // prefer actions with exactly `target` visits; fall back to the least visited
        let min_visits = self
            .considered
            .iter()
            .map(|&i| self.nodes[range.start + i as usize].visits)
            .min()
            .unwrap_or(0);
        let want = if self
            .considered
            .iter()
            .any(|&i| self.nodes[range.start + i as usize].visits == target)
        {
            target
        } else {
            min_visits
        };
        for &i in &self.considered {
            let n = &self.nodes[range.start + i as usize];
            if n.visits != want {
                continue;
            }
            let s = self.gumbel[i as usize] + n.logit + sq[i as usize];
            if s > best_score {
                best_score = s;
                best = (range.start + i as usize) as u32;
            }
        }
        if best == NONE {
            best = range.start as u32;
        }
        best
    }

    fn select_puct(&self, node: u32) -> u32 {
        let parent = &self.nodes[node as usize];
        let sqrt_n = (parent.visits.max(1) as f32).sqrt();
        // the parent's value from the point of view of its side to move = -(its edge value)
        let fpu = -parent.q() - self.cfg.fpu_reduction;
        let mut best = NONE;
        let mut best_score = f32::MIN;
        for c in self.children(node) {
            let k = &self.nodes[c];
            let q = if k.visits > 0 { k.q() } else { fpu };
            let u = self.cfg.c_puct * k.prior * sqrt_n / (1.0 + k.visits as f32);
            if q + u > best_score {
                best_score = q + u;
                best = c as u32;
            }
        }
        best
    }

    /// The outcome of the finished search.
    pub fn result(&self) -> SearchResult {
        let range = self.children(0);
        let kids = &self.nodes[range.clone()];
        let moves: Vec<Move> = kids.iter().map(|k| k.mv).collect();
        let visits: Vec<u32> = kids.iter().map(|k| k.visits).collect();
        if kids.is_empty() {
            // a decided root: the winning capture if there is one (all of the policy, over
            // every legal move), else no move
            let win = royal_capture(&self.pos, &self.leaf_moves).filter(|_| self.root_value > 0.0);
            let Some(win) = win else {
                let value = self.root_value;
                return SearchResult {
                    best: Move::default(),
                    moves: vec![],
                    policy: vec![],
                    value,
                    visits: vec![],
                };
            };
            let moves = self.leaf_moves.to_vec();
            let policy = moves.iter().map(|&m| if m == win { 1.0 } else { 0.0 }).collect();
            let visits = vec![0; moves.len()];
            return SearchResult { best: win, moves, policy, value: self.root_value, visits };
        }
        let sq = self.completed_q();
        // improved policy: softmax(logits + sigma(completed q))
        let logits: Vec<f32> = kids.iter().zip(&sq).map(|(k, s)| k.logit + s).collect();
        let mx = logits.iter().copied().fold(f32::MIN, f32::max);
        let mut policy: Vec<f32> = logits.iter().map(|l| (l - mx).exp()).collect();
        let sum: f32 = policy.iter().sum();
        policy.iter_mut().for_each(|p| *p /= sum);
        // chosen action: among the considered actions with the most visits, the best
        // g + logit + sigma(q)
        let maxv = self.considered.iter().map(|&i| kids[i as usize].visits).max().unwrap_or(0);
        let mut best = self.considered.first().copied().unwrap_or(0) as usize;
        let mut best_score = f32::MIN;
        for &i in &self.considered {
            let i = i as usize;
            if kids[i].visits != maxv {
                continue;
            }
            let s = self.gumbel.get(i).copied().unwrap_or(0.0) + kids[i].logit + sq[i];
            if s > best_score {
                best_score = s;
                best = i;
            }
        }
        let total: u32 = visits.iter().sum();
        let value = if total > 0 {
            let q: f32 = kids.iter().map(|k| k.value_sum).sum::<f32>() / total as f32;
            (self.root_value + total as f32 * q) / (1.0 + total as f32)
        } else {
            self.root_value
        };
        SearchResult { best: kids[best].mv, moves, policy, value, visits }
    }
}

/// Give `leaf` its children, one per move with the evaluation's prior.
fn expand(nodes: &mut Vec<Node>, leaf: u32, moves: &[Move], e: &EvalOutput) {
    let first = nodes.len() as u32;
    let n = moves.len();
    for (i, &m) in moves.iter().enumerate() {
        let p = e.policy.get(i).copied().unwrap_or(1.0 / n as f32);
        nodes.push(Node::new(m, p));
    }
    let node = &mut nodes[leaf as usize];
    node.first_child = first;
    node.num_children = n as u32;
    node.expanded = true;
}

/// Add one visit of value `leaf_value` (for the side to move at the path's end) to every node
/// of `path` (path[0] is the root; each later entry is an edge whose chooser is the opponent of
/// the side to move below it).
fn back_up(nodes: &mut [Node], path: &[u32], leaf_value: f32) {
    let mut v = leaf_value;
    for &i in path[1..].iter().rev() {
        v = -v;
        let n = &mut nodes[i as usize];
        n.visits += 1;
        n.value_sum += v;
    }
    nodes[0].visits += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;
    use shogilab_engine::{Game, Variant};

    /// Every position of seeded random chu games (chu captures by landing or by a lion's step,
    /// never by burning), with its legal moves.
    fn random_chu_positions(games: u64) -> Vec<(Game, Vec<Move>)> {
        let v = Variant::builtin("chu").expect("chu is built in");
        let mut out = Vec::new();
        for seed in 0..games {
            let mut game = Game::new(Position::start(&v));
            let mut rng = SmallRng::seed_from_u64(seed);
            while !game.status().is_over() && game.plies() < 800 {
                let legal = game.legal().to_vec();
                out.push((game.clone(), legal.clone()));
                game.play(legal[rng.gen_range(0..legal.len())]);
            }
        }
        out
    }

    #[test]
    fn royal_capture_is_found_exactly_where_a_move_wins_the_game() {
        let mut found = 0;
        let positions = random_chu_positions(30);
        for (game, legal) in &positions {
            let pos = game.position();
            let them = pos.side_to_move().flip();
            // brute force: every legal move played, the opponent's royals counted
            let takes_last_royal = |&m: &Move| {
                let mut p = pos.clone();
                p.play(m);
                p.royal_count(them) == 0
            };
            let got = royal_capture(pos, legal);
            let brute = legal.iter().any(takes_last_royal);
            assert_eq!(got.is_some(), brute, "{}", pos.to_sfen());
            if let Some(m) = got {
                // the game's own verdict: the move wins
                let mut g = game.clone();
                g.play(m);
                assert_eq!(g.status().score_for(them.flip()), 1, "{}", pos.to_sfen());
                found += 1;
            }
        }
        assert!(found >= 30 && positions.len() > 3000, "{found} of {}", positions.len());
    }

    /// Search the chu start with uniform evaluations, the root screened to `allowed`; the
    /// result's moves that got visits.
    fn visited_under_screen(allowed: &[Move]) -> (SearchResult, Vec<Move>) {
        let v = Variant::builtin("chu").expect("chu is built in");
        let root = Position::start(&v);
        let cfg = SearchConfig { simulations: 64, gumbel_noise: false, ..SearchConfig::default() };
        let mut search = Search::new(cfg, root.clone());
        search.reset(&root);
        search.screen_root(allowed);
        let mut rng = SmallRng::seed_from_u64(7);
        while search.advance(&mut rng) == Step::NeedEval {
            let n = search.leaf_moves.len();
            search.deliver(&EvalOutput { policy: vec![1.0 / n as f32; n], wdl: [0.0, 1.0, 0.0] });
        }
        let r = search.result();
        let visited = r.moves.iter().zip(&r.visits).filter(|(_, &n)| n > 0).map(|(m, _)| *m);
        let visited = visited.collect();
        (r, visited)
    }

    #[test]
    fn a_screened_root_searches_and_plays_only_the_allowed_moves() {
        let v = Variant::builtin("chu").expect("chu is built in");
        let legal = Game::new(Position::start(&v)).legal().to_vec();
        let allowed = [legal[3], legal[17], legal[30]];
        let (r, visited) = visited_under_screen(&allowed);
        assert!(allowed.contains(&r.best));
        assert!(!visited.is_empty() && visited.iter().all(|m| allowed.contains(m)), "{visited:?}");
        // a screen that allows no root move screens nothing: the 16 candidates are searched
        let (_, visited) = visited_under_screen(&[Move::new(0, 0)]);
        assert_eq!(visited.len(), 16);
    }

    #[test]
    fn a_root_with_a_royal_capture_plays_it_without_an_evaluation() {
        let positions = random_chu_positions(5);
        let (game, legal) = positions
            .iter()
            .find(|(g, l)| royal_capture(g.position(), l).is_some())
            .expect("a random chu game ends by a royal capture");
        let mut search = Search::new(SearchConfig::default(), game.position().clone());
        search.reset(game.position());
        assert_eq!(search.advance(&mut SmallRng::seed_from_u64(1)), Step::Done);
        let r = search.result();
        assert_eq!(Some(r.best), royal_capture(game.position(), legal));
        // the policy covers every legal move (the dataset's schema), all of it on the capture
        assert_eq!(&r.moves, legal);
        let on = |m: &Move| if *m == r.best { 1.0 } else { 0.0 };
        assert_eq!(r.policy, legal.iter().map(on).collect::<Vec<f32>>());
        assert_eq!(r.value, 1.0);
    }

    #[test]
    fn schedule_is_sequential_halving() {
        let s = halving_schedule(4, 8);
        assert_eq!(s, vec![0, 0, 0, 0, 1, 1, 2, 2]);
        assert_eq!(halving_schedule(1, 3), vec![0, 1, 2]);
        assert_eq!(halving_schedule(16, 32).len(), 32);
    }
}
