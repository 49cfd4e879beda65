//! One line of explanation for each kind whose measured value and reference value differ by
//! more than their intervals (the agreement section of the report): from what the games show
//! of the kind (its promotion reached or not, its multi-step moves or its mobility left unused)
//! and, where they show nothing, from what the engine is (a shallow material search, or the
//! match agent that `--engine` named).
//!
//! The rules, in the order they are tried:
//! - a royal kind: the reference ignores royalty;
//! - a kind whose reference, brought to the table's scale ([`reference_scale`]: the engine's
//!   unit is not the reference's), lies inside its interval: the unit, not the rank, differs,
//!   and the rules below are not tried;
//! - a kind whose promotion is at least three reference pawns dearer: below its reference, the
//!   value lies in the promotion (seldom reached, or the promoted kind undervalued too); above
//!   it, the promotion explains the gap when reached for at least a tenth of its pieces and that
//!   share of the promoted kind's value makes up at least half of the gap;
//! - a kind that exists only by promotion, below its reference;
//! - a kind below its reference whose multi-step moves or mobility the engine left unused;
//! - otherwise the engine (its depth, or the agent's spec), with "a compressed scale" where most
//!   large kinds are below their reference; in every case how the engine used the kind.
//!
//! Where the scale does not close a gap of the imbalance method, [`gap_games`] finds the
//! logged games that decide between the kind's value and its scaled reference
//! ([`super::evidence`]): the report adds their score, which says which value the engine's own
//! games support, and cites the easiest of them.

use super::evidence::{deciding_games, Deciding};
use super::imbalance::GameLine;
use super::report::{reference_at, short, ReportInput};
use super::scale::{reference_scale, Point};
use super::usage::{self, Usage};
use super::ValueEstimate;
use std::collections::BTreeMap;

/// The engine that played the games, as the explanations name it.
#[derive(Clone, Copy, Debug)]
pub enum Engine<'a> {
    /// The imbalance engine: a material search of this full-width depth, then captures.
    Search { depth: u32 },
    /// A match agent (`values --engine SPEC`), named by its spec.
    Agent { spec: &'a str },
}

impl Engine<'_> {
    /// What the engine is, in parentheses after "the engine".
    fn what(self) -> String {
        match self {
            Engine::Search { depth } => format!("material search at depth {depth} + captures"),
            Engine::Agent { spec } => format!("the match agent `{spec}`"),
        }
    }

    /// The engine as the subject of a sentence about what it plans for or values.
    fn subject(self) -> String {
        match self {
            Engine::Search { depth } => format!("a depth-{depth} engine"),
            Engine::Agent { spec } => format!("this engine (`{spec}`)"),
        }
    }
}

/// Why kind `k`, measured at `e`, differs from its reference value `gcsa`: the reasons joined
/// by semicolons.
pub(crate) fn why(k: usize, e: &ValueEstimate, input: &ReportInput, gcsa: f64) -> String {
    let mut r = Vec::new();
    if input.kinds.royal[k] {
        r.push("royal: the GCSA average ignores royalty, while here a king is only ever removed from a side that keeps a prince (and a prince is an extra life)".to_string());
    }
    match scale_reason(e, input, gcsa) {
        Some(reason) => r.push(reason),
        None => gap_reasons(k, e, input, gcsa, &mut r),
    }
    if let Some(c) = input.usage.and_then(|u| usage::clause(u, k, input.promotes_to[k].is_some())) {
        r.push(c);
    }
    r.join("; ")
}

/// The reference value of every kind of the table (NaN where it has none).
fn references(input: &ReportInput) -> Vec<f64> {
    (0..input.primary.len()).map(|j| reference_at(input.reference, j)).collect()
}

/// The reference table's scale at this table ([`reference_scale`] over the primary values).
fn table_scale(input: &ReportInput) -> f64 {
    let measured: Vec<Point> = input
        .primary
        .iter()
        .map(|p| Point { value: p.estimate.value, lo: p.estimate.lo, hi: p.estimate.hi })
        .collect();
    reference_scale(&measured, &references(input), input.kinds.unit)
}

/// Per kind (in [`super::Kinds`] order), the imbalance games that decide between its value and
/// its reference at this table's scale, for the kinds whose gap that scale does not close: a
/// reference outside the primary interval both as it is and scaled, with the imbalance method
/// primary (its games are the ones whose setups the values predict). `values`: the imbalance
/// method's values by kind name; `examples`: decisive games cited per kind.
pub fn gap_games(
    input: &ReportInput,
    games: &[GameLine],
    values: &BTreeMap<String, f64>,
    examples: usize,
) -> Vec<Option<Deciding>> {
    let scale = table_scale(input);
    let outside = |e: &ValueEstimate, r: f64| r.is_finite() && !(e.lo..=e.hi).contains(&r);
    (0..input.primary.len())
        .map(|k| {
            let (row, gcsa) = (&input.primary[k], reference_at(input.reference, k));
            let gap = row.method == "imbalance"
                && row.estimate.value.is_finite()
                && Some(k) != input.kinds.unit
                && outside(&row.estimate, gcsa)
                && outside(&row.estimate, scale * gcsa);
            let kind = &input.kinds.names[k];
            gap.then(|| deciding_games(games, values, kind, scale * gcsa, examples))
        })
        .collect()
}

/// Where the reference brought to this table's scale lies inside `e`'s interval: the table's
/// unit differs from the reference's, not the kind's place among the others.
fn scale_reason(e: &ValueEstimate, input: &ReportInput, gcsa: f64) -> Option<String> {
    let scale = table_scale(input);
    let scaled = scale * gcsa;
    (scaled.is_finite() && (e.lo..=e.hi).contains(&scaled)).then(|| format!(
        "the unit, not the rank: this table is {scale:.2} times the GCSA table (the median ratio over the kinds it measures clearly above zero), and at that scale the GCSA value is {}, inside the interval",
        short(scaled)
    ))
}

/// The reasons for a gap that the table's scale does not account for: the kind's promotion,
/// its unused power, or else the engine's depth.
fn gap_reasons(k: usize, e: &ValueEstimate, input: &ReportInput, gcsa: f64, r: &mut Vec<String>) {
    if let Some(p) = input.promotes_to[k] {
        let pv = reference_at(input.reference, p);
        // three of the reference's pawns more (in the report's unit)
        let pawn = input.kinds.pawn.map_or(f64::NAN, |q| reference_at(input.reference, q));
        if pv.is_finite() && pv - gcsa >= 3.0 * pawn {
            if e.value < gcsa {
                r.push(promotion_reason(k, p, pv, input));
            } else {
                r.extend(promotion_share(k, p, pv, gcsa, e.value, input));
            }
        }
    }
    let promoted_only = input.promoted_only[k] && !input.kinds.royal[k];
    if promoted_only && e.value < gcsa {
        r.push("exists only by promotion: in the games it appears by in-place promotion in the start array, where a long-range promoted piece has few targets and the engine has no plan for it".into());
    }
    if r.is_empty() && e.value < gcsa {
        r.extend(input.usage.and_then(|u| unused_power(u, k)));
    }
    if r.is_empty() {
        if e.value < gcsa {
            let mut line = format!(
                "the engine ({}) turns this piece into wins less surely than strong players do",
                input.engine.what()
            );
            if compressed(input) {
                line += "; most large pieces come out below their GCSA value (a compressed scale)";
            }
            r.push(line);
        } else {
            r.push(match input.engine {
                Engine::Search { depth } => format!("worth more to a depth-{depth} tactical engine, whose games are decided by short-range captures, than in human play"),
                Engine::Agent { .. } => format!("worth more to {} than in human play", input.engine.subject()),
            });
        }
    }
}

/// Whether most large kinds (a reference value above the median reference) are measured below
/// their reference: the table's scale is compressed at the top, whatever its unit.
fn compressed(input: &ReportInput) -> bool {
    let reference = references(input);
    let mut known: Vec<f64> = reference.iter().copied().filter(|v| v.is_finite()).collect();
    known.sort_by(f64::total_cmp);
    let Some(&median) = known.get(known.len() / 2) else { return false };
    let large: Vec<bool> = input
        .primary
        .iter()
        .zip(&reference)
        .filter(|(_, &g)| g > median)
        .map(|(row, &g)| row.estimate.value < g)
        .collect();
    2 * large.iter().filter(|&&below| below).count() > large.len()
}

/// What the games and the table say of kind `k`'s promotion to `p`: the share of its pieces
/// the engine promoted, and `p`'s primary value.
fn promotion_facts(k: usize, p: usize, input: &ReportInput) -> (Option<f64>, Option<f64>) {
    let rate = input.usage.and_then(|u| u.promotion_rate(k));
    (rate, input.primary.get(p).map(|row| row.estimate.value))
}

/// Why a kind that promotes to a much dearer one `p` (reference `pv`) is undervalued: the
/// engine seldom promotes it, or it does and undervalues `p` too.
fn promotion_reason(k: usize, p: usize, pv: f64, input: &ReportInput) -> String {
    let head =
        format!("the value lies in its promotion to {} (GCSA {})", input.kinds.names[p], short(pv));
    let plans = format!(
        "human averages price in promotion prospects that {} does not plan for",
        input.engine.subject()
    );
    match promotion_facts(k, p, input) {
        (Some(x), _) if x < 0.1 => format!("{head}, which the engine reached for only {:.1}% of its pieces: {plans}", 100.0 * x),
        (Some(x), Some(v)) if v < pv => format!("{head}; the engine promoted {:.1}% of its pieces, and values the {} itself below GCSA ({})", 100.0 * x, input.kinds.names[p], short(v)),
        _ => format!("{head}: {plans}"),
    }
}

/// Why a kind that promotes to a much dearer one `p` (reference `pv`) is worth more than its
/// reference `gcsa`: the engine promoted at least a tenth of its pieces, and that share of the
/// promoted kind's value here makes up at least half of the gap. None otherwise, or where the
/// games record no promotions or `p` has no value here.
fn promotion_share(
    k: usize,
    p: usize,
    pv: f64,
    gcsa: f64,
    value: f64,
    input: &ReportInput,
) -> Option<String> {
    let (rate, promoted) = promotion_facts(k, p, input);
    let rate = rate.filter(|&x| x >= 0.1)?;
    let promoted = promoted.filter(|v| v.is_finite())?;
    let (share, gap) = (rate * promoted, value - gcsa);
    let name = &input.kinds.names[p];
    let (lead, tail) = if share >= gap {
        ("the gap lies", format!("{}, more than the {}", short(share), short(gap)))
    } else {
        ("much of the gap lies", format!("{} of the {}", short(share), short(gap)))
    };
    (share >= gap / 2.0).then(|| format!(
        "{lead} in its promotion to {name} (GCSA {}), which the engine reached for {:.1}% of its pieces: that share of the {name}'s {} here is {tail} by which it exceeds GCSA",
        short(pv),
        100.0 * rate,
        short(promoted),
    ))
}

/// What the games show a piece worth less than its reference value failed to use: its
/// multi-step moves (played at under a third of their share of its legal moves, where they are
/// at least 5% of them), or its mobility (moved under half as often as the average piece).
fn unused_power(u: &Usage, k: usize) -> Option<String> {
    if let Some((played, legal)) = u.multi_step(k) {
        if legal >= 0.05 && played < legal / 3.0 {
            return Some(
                "the engine seldom uses its multi-step moves (lion moves, igui, area moves)".into(),
            );
        }
    }
    (u.activity(k)? < 0.5).then(|| "the engine seldom moves it".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::report::{PrimaryRow, Reference};
    use crate::values::Kinds;

    /// Six kinds with their usage in games: pawn, lion, rook, dragon, lance, kirin.
    struct Explained {
        kinds: Kinds,
        reference: Reference,
        primary: Vec<PrimaryRow>,
        usage: Usage,
    }

    impl Explained {
        fn new() -> Self {
            let row = |v: f64| PrimaryRow {
                estimate: ValueEstimate {
                    piece: String::new(),
                    value: v,
                    lo: v - 0.5,
                    hi: v + 0.5,
                },
                method: "imbalance".into(),
            };
            let per = |moves, multi, legal, legal_multi, promotions| usage::KindUsage {
                at_start: 100,
                piece_turns: 1000,
                legal,
                legal_multi,
                moves,
                moves_multi: multi,
                promotions,
                removed: 0,
                lost: 0,
            };
            Explained {
                kinds: Kinds {
                    names: ["pawn", "lion", "rook", "dragon", "lance", "kirin"]
                        .map(String::from)
                        .to_vec(),
                    of_type: vec![0, 1, 2, 3, 4, 5],
                    royal: vec![false; 6],
                    pawn: Some(0),
                    unit: Some(0),
                },
                reference: Reference {
                    source: "test".into(),
                    path: "test.toml".into(),
                    values: vec![1.0, 20.0, 6.0, 10.0, 3.0, 3.0],
                },
                // the table's scale: the median of the ratios 0.35, 0.75, 0.6, 0.33 and 1.67
                primary: vec![row(1.0), row(7.0), row(4.5), row(6.0), row(1.0), row(5.0)],
                // the lion has multi-step moves in 20% of its legal moves and plays 1%; the lance
                // moves 0.1 times as often as the average (about 100 moves per 1000 piece-turns)
                usage: Usage {
                    kinds: vec![
                        per(100, 0, 500, 0, 0),
                        per(100, 1, 2000, 400, 0),
                        per(200, 0, 900, 0, 50),
                        per(100, 0, 900, 0, 0),
                        per(10, 0, 100, 0, 2),
                        per(100, 0, 900, 0, 25),
                    ],
                    games: 10,
                    plies: 5000,
                },
            }
        }

        fn input(&self, usage: bool) -> ReportInput<'_> {
            ReportInput {
                variant: "test",
                command: "",
                kinds: &self.kinds,
                methods: &[],
                primary: &self.primary,
                reference: Some(&self.reference),
                speed: Vec::new(),
                promotes_to: vec![None, None, Some(3), None, Some(1), Some(1)],
                promoted_only: vec![false; 6],
                files: Vec::new(),
                engine: Engine::Search { depth: 1 },
                calibrations: &[],
                usage: usage.then_some(&self.usage),
                gap_games: &[],
            }
        }

        /// The explanation of kind `k` valued at `value` (None: its primary value).
        fn why(&self, k: usize, value: Option<f64>, usage: bool) -> String {
            let mut e = self.primary[k].estimate.clone();
            e.value = value.unwrap_or(e.value);
            why(k, &e, &self.input(usage), self.reference.values[k])
        }
    }

    /// The explanations cite what the games show: an unused multi-step move, a rarely moved
    /// piece, a promotion seldom reached or a promoted kind undervalued too.
    #[test]
    fn explanations_follow_the_usage_of_each_kind() {
        let x = Explained::new();
        let lion = x.why(1, None, true);
        assert!(lion.starts_with("the engine seldom uses its multi-step moves"), "{lion}");
        assert!(
            lion.contains("1.0% of its moves multi-step against 20.0% of its legal moves"),
            "{lion}"
        );
        // the rook promotes (50%) to a dragon it values below GCSA (6 against 10)
        let rook = x.why(2, None, true);
        assert!(
            rook.contains(
                "promoted 50.0% of its pieces, and values the dragon itself below GCSA (6.00)"
            ),
            "{rook}"
        );
        // the lance reaches its lion (17 pawns dearer) for 2% of its pieces
        let lance = x.why(4, None, true);
        assert!(lance.contains("reached for only 2.0% of its pieces"), "{lance}");
        let lion = x.why(1, None, false);
        assert!(lion.starts_with("the engine (material search at depth 1"), "{lion}");
        assert!(!lion.contains("games:"), "{lion}");
    }

    /// The compressed-scale clause is only added where most large kinds are below their
    /// reference (above the median reference, 6 here): the lion and the dragon; with the dragon
    /// at 12, the lion alone is below.
    #[test]
    fn a_compressed_scale_is_claimed_only_where_the_large_kinds_are_below() {
        let x = Explained::new();
        assert!(x.why(1, None, false).ends_with("(a compressed scale)"));
        let mut y = Explained::new();
        y.primary[3].estimate.value = 12.0;
        let lion = y.why(1, None, false);
        assert!(lion.starts_with("the engine (material search at depth 1"), "{lion}");
        assert!(!lion.contains("compressed"), "{lion}");
    }

    /// Games of a match agent (`values --engine SPEC`) are explained by that agent, not by a
    /// material search's depth.
    #[test]
    fn an_agent_engine_is_named_by_its_spec() {
        let x = Explained::new();
        let input =
            ReportInput { engine: Engine::Agent { spec: "mcts:net.ot:64" }, ..x.input(false) };
        let lion = why(1, &x.primary[1].estimate, &input, x.reference.values[1]);
        assert!(lion.starts_with("the engine (the match agent `mcts:net.ot:64`)"), "{lion}");
        assert!(!lion.contains("depth"), "{lion}");
    }

    /// A kind whose reference, at the table's scale (0.6 here), lies inside its interval is
    /// explained by the unit, and by nothing else; the others keep their own reasons.
    #[test]
    fn a_gap_that_the_table_scale_closes_is_the_unit() {
        let x = Explained::new();
        let dragon = x.why(3, None, true);
        assert!(
            dragon.starts_with("the unit, not the rank: this table is 0.60 times the GCSA table (the median ratio over the kinds it measures clearly above zero), and at that scale the GCSA value is 6.00, inside the interval; "),
            "{dragon}"
        );
        assert!(!dragon.contains("depth-1") && !dragon.contains("promotion"), "{dragon}");
        for k in [1, 2, 4, 5] {
            assert!(!x.why(k, None, true).contains("the unit, not the rank"), "kind {k}");
        }
    }

    /// A kind above its reference is explained by a promotion the engine reached often, when
    /// that share of the promoted kind's value makes up at least half of the gap.
    #[test]
    fn a_promotion_reached_often_explains_a_kind_above_its_reference() {
        let x = Explained::new();
        // the kirin (5 here, GCSA 3) became a lion (7 here) for 25% of its pieces: 1.75 of 2
        let kirin = x.why(5, None, true);
        assert!(
            kirin.starts_with("much of the gap lies in its promotion to lion (GCSA 20.00), which the engine reached for 25.0% of its pieces: that share of the lion's 7.00 here is 1.75 of the 2.00 by which it exceeds GCSA"),
            "{kirin}"
        );
        let kirin = x.why(5, Some(4.5), true);
        assert!(kirin.contains("here is 1.75, more than the 1.50 by which it exceeds"), "{kirin}");
        // with a gap of 6, or no record of its promotions, the promotion explains nothing
        for kirin in [x.why(5, Some(9.0), true), x.why(5, None, false)] {
            assert!(kirin.starts_with("worth more to a depth-1 tactical engine"), "{kirin}");
        }
    }

    /// A gap that the table's scale does not close cites the imbalance games that decide
    /// between the table's value and the scaled reference; a gap the scale closes, and the
    /// unit, cite none. The lion (7 here, GCSA 20, 12 at the scale 0.6) against two rooks
    /// (4.5 each): at 7 the rooks are favoured, at 12 the lion; the rook side wins 30 of 40.
    #[test]
    fn a_gap_beyond_the_scale_cites_the_games_that_decide_it() {
        let x = Explained::new();
        let game = |i: usize| GameLine {
            setup: i,
            swap: 0,
            agent: "ab1q-test".into(),
            seed: 0,
            sfen: "9/9/9/9/9/9/9/9/9 b - 1".into(),
            diff: [("lion".to_string(), 1), ("rook".to_string(), -2)].into(),
            result: if i.is_multiple_of(4) { 1.0 } else { 0.0 },
            plies: 200 - i as u32,
            termination: "royal-captured".into(),
            ms: 0,
            moves: format!("move{i}"),
        };
        let games: Vec<GameLine> = (0..40).map(game).collect();
        let values =
            (x.kinds.names.iter().cloned()).zip(x.primary.iter().map(|p| p.estimate.value));
        let values: BTreeMap<String, f64> = values.collect();
        let deciding = gap_games(&x.input(true), &games, &values, 2);
        assert!(deciding[0].is_none() && deciding[3].is_none(), "the unit; the dragon's scale");
        let lion = deciding[1].as_ref().unwrap();
        assert_eq!((lion.wins, lion.draws, lion.losses, lion.other), (30, 0, 10, 12.0));
        assert_eq!(deciding[2].as_ref().map(|d| d.summary.games), Some(0), "no rook game flips");
        let input = ReportInput { gap_games: &deciding, ..x.input(true) };
        let md = super::super::report::markdown(&input);
        assert!(md.contains("the GCSA value at this table's scale is 12.00; 40 games decide between its value 7.00 and 12.00: the side its value favours scored +30 =0 -10"), "{md}");
        assert!(md.contains("line 1 (setup 39/0: lion vs 2 rook, the lion side lost in 161 plies), line 2 (setup 38/0"), "{md}");
        let file = super::super::report::gap_games_file(&input);
        let file: Vec<&str> = file.lines().collect();
        assert_eq!(
            file,
            [
                "sfen 9/9/9/9/9/9/9/9/9 b - 1 moves move39",
                "sfen 9/9/9/9/9/9/9/9/9 b - 1 moves move38"
            ]
        );
    }
}
