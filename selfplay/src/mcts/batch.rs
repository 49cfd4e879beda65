//! Several leaves of one search evaluated together: [`Search::gather`] walks to up to `max`
//! unexpanded leaves, each walk's path given a virtual loss (one visit valued as a loss for the
//! side that chose each edge) so that the next walk turns elsewhere; the evaluator then scores
//! the gathered leaves as one batch, and [`Search::deliver_gathered`] removes the virtual losses,
//! expands the leaves and backs their values up. A network on a CPU evaluates a batch of leaves
//! several times faster per leaf than one leaf at a time, which a single game's search otherwise
//! cannot use. Each leaf's position is copied into a slot that is reused from batch to batch.

use super::{back_up, expand, Node, Search, Walk};
use crate::evaluator::EvalOutput;
use rand::Rng;
use shogilab_engine::{Move, MoveList, Position};

/// A gathered leaf: its path from the root, its position and legal moves.
pub(super) struct HeldLeaf {
    path: Vec<u32>,
    pos: Position,
    moves: MoveList,
}

impl Search {
    /// Walk to up to `max` leaves that need an evaluation and hold them (decided nodes met on
    /// the way are backed up as usual). Stops early at the root's own evaluation (always
    /// alone), when the budget is spent, or when a walk reaches a leaf already held. Returns
    /// the number held: 0 when the search is complete.
    pub fn gather<R: Rng>(&mut self, rng: &mut R, max: usize) -> usize {
        debug_assert!(!self.pending && self.held == 0);
        while self.held < max.max(1) {
            match self.walk(rng) {
                Walk::Backed => {}
                Walk::Done => break,
                Walk::Leaf => {
                    let leaf = self.path.last().copied().unwrap_or(0);
                    let taken =
                        self.batch[..self.held].iter().any(|h| h.path.last() == Some(&leaf));
                    if taken {
                        self.unwind();
                        break;
                    }
                    self.hold();
                    if leaf == 0 {
                        break;
                    }
                }
            }
        }
        self.held
    }

    /// The held leaves' positions and legal moves, in the order their evaluations are due.
    pub fn gathered(&self) -> impl Iterator<Item = (&Position, &[Move])> {
        self.batch[..self.held].iter().map(|h| (&h.pos, &h.moves[..]))
    }

    /// Give the evaluations of the held leaves (as [`Search::gathered`] lists them).
    pub fn deliver_gathered(&mut self, evals: &[EvalOutput]) {
        debug_assert_eq!(evals.len(), self.held);
        for (h, e) in self.batch[..self.held].iter().zip(evals) {
            virtual_loss(&mut self.nodes, &h.path, false);
            let leaf = h.path.last().copied().unwrap_or(0);
            expand(&mut self.nodes, leaf, &h.moves, e);
            if leaf == 0 {
                self.root_value = e.value();
            } else {
                back_up(&mut self.nodes, &h.path, e.value());
                self.sims_done += 1;
            }
        }
        self.held = 0;
    }

    /// Copy the walk's leaf into the next slot, give its path a virtual loss, and bring the
    /// working position back to the root.
    fn hold(&mut self) {
        if self.held == self.batch.len() {
            let pos = self.pos.clone();
            self.batch.push(HeldLeaf { path: Vec::new(), pos, moves: MoveList::new() });
        } else {
            self.batch[self.held].pos.clone_from(&self.pos);
        }
        let slot = &mut self.batch[self.held];
        slot.path.clone_from(&self.path);
        slot.moves.clone_from(&self.leaf_moves);
        virtual_loss(&mut self.nodes, &slot.path, true);
        self.held += 1;
        self.unwind();
    }
}

/// Add (`on`) or remove one visit valued as a loss for the side that chose each edge of
/// `path`, and one root visit.
fn virtual_loss(nodes: &mut [Node], path: &[u32], on: bool) {
    for &i in &path[1..] {
        let n = &mut nodes[i as usize];
        if on {
            n.visits += 1;
            n.value_sum -= 1.0;
        } else {
            n.visits -= 1;
            n.value_sum += 1.0;
        }
    }
    if on {
        nodes[0].visits += 1;
    } else {
        nodes[0].visits -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Search, SearchConfig, Step};
    use crate::evaluator::EvalOutput;
    use rand::rngs::SmallRng;
    use rand::SeedableRng;
    use shogilab_engine::{Game, Move, Position, Variant};

    /// A deterministic evaluation that varies from position to position: a prior and a value
    /// drawn from the position's hash.
    fn hashed_eval(pos: &Position, moves: &[Move]) -> EvalOutput {
        let h = pos.hash();
        let weights: Vec<f32> =
            (0..moves.len()).map(|i| 1.0 + ((h >> (i % 48)) & 7) as f32).collect();
        let sum: f32 = weights.iter().sum();
        let win = (h % 1000) as f32 / 1000.0;
        EvalOutput {
            policy: weights.iter().map(|w| w / sum).collect(),
            wdl: [win * 0.8, 0.2, (1.0 - win) * 0.8],
        }
    }

    fn chu_midgame() -> Position {
        let v = Variant::builtin("chu").expect("chu is built in");
        let mut game = Game::new(Position::start(&v));
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..40 {
            let legal = game.legal().to_vec();
            game.play(legal[rand::Rng::gen_range(&mut rng, 0..legal.len())]);
        }
        game.position().clone()
    }

    fn search(root: &Position, simulations: u32) -> Search {
        let cfg = SearchConfig { simulations, gumbel_noise: false, ..SearchConfig::default() };
        let mut s = Search::new(cfg, root.clone());
        s.reset(root);
        s
    }

    /// Run a search to its end, `batch` leaves at a time.
    fn run_batched(s: &mut Search, batch: usize) -> usize {
        let mut rng = SmallRng::seed_from_u64(1);
        let mut rounds = 0;
        while s.gather(&mut rng, batch) > 0 {
            let evals: Vec<EvalOutput> = s.gathered().map(|(p, m)| hashed_eval(p, m)).collect();
            s.deliver_gathered(&evals);
            rounds += 1;
        }
        rounds
    }

    /// Every visit is a real one: the root's visits are the simulations, every evaluated node
    /// has one visit more than its children together, and no value exceeds its visits.
    fn assert_no_virtual_loss_left(s: &Search) {
        let sims: u32 = s.nodes[s.children(0)].iter().map(|k| k.visits).sum();
        assert_eq!((s.nodes[0].visits, sims), (s.sims_done, s.sims_done));
        for (i, n) in s.nodes.iter().enumerate().skip(1) {
            assert!(n.value_sum.abs() <= n.visits as f32 + 1e-3, "node {i}");
            if n.terminal.is_none() && n.expanded {
                let below: u32 = s.nodes[s.children(i as u32)].iter().map(|k| k.visits).sum();
                assert_eq!(n.visits, below + 1, "node {i}");
            }
        }
    }

    #[test]
    fn one_leaf_at_a_time_is_the_plain_search() {
        let root = chu_midgame();
        let mut plain = search(&root, 200);
        let mut rng = SmallRng::seed_from_u64(1);
        while plain.advance(&mut rng) == Step::NeedEval {
            let e = hashed_eval(plain.position(), &plain.leaf_moves);
            plain.deliver(&e);
        }
        let mut single = search(&root, 200);
        assert_eq!(run_batched(&mut single, 1), 201, "the root, then one leaf a round");
        let (a, b) = (plain.result(), single.result());
        assert_eq!((a.best, &a.visits), (b.best, &b.visits));
        // a virtual loss taken back leaves a value sum equal up to f32 rounding
        for (p, q) in a.policy.iter().zip(&b.policy) {
            assert!((p - q).abs() < 1e-5, "{p} {q}");
        }
    }

    #[test]
    fn batched_leaves_spend_exactly_the_simulations_and_leave_no_virtual_loss() {
        let root = chu_midgame();
        for (sims, batch) in [(64, 8), (300, 16), (500, 4)] {
            let mut s = search(&root, sims);
            let rounds = run_batched(&mut s, batch);
            assert_eq!(s.simulations_done(), sims);
            assert!(rounds < sims as usize / 2, "{rounds} rounds for {sims} simulations");
            assert_no_virtual_loss_left(&s);
            let r = s.result();
            assert_eq!(r.visits.iter().sum::<u32>(), sims);
            assert!(r.moves.contains(&r.best));
        }
    }

    #[test]
    fn a_search_extended_between_batches_goes_on_from_where_it_stopped() {
        let root = chu_midgame();
        let mut s = search(&root, 40);
        run_batched(&mut s, 8);
        s.extend(120);
        run_batched(&mut s, 8);
        assert_eq!(s.simulations_done(), 120);
        assert_no_virtual_loss_left(&s);
    }
}
