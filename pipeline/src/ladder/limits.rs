//! The limits each agent of a ladder plays at: the configured ones, made explicit for external
//! engines that would otherwise play at their client's default move time
//! ([`effective_limits`]), as the `@LIMITS` tail of the agent's spec, and in words for the
//! report. Whether an agent can play at a limit is the agent's own answer
//! ([`shogilab_eval::check_limits`], applied when the spec is parsed): a ladder never records a
//! limit an agent ignored.

use shogilab_eval::{Limits, UsiConfig, XBoardConfig};

/// The agent kind of a spec (the text before the first `:`).
fn kind(spec: &str) -> &str {
    spec.split(':').next().unwrap_or(spec).trim()
}

/// The limits `spec` plays at: the configured ones, or for an external engine without any, its
/// client's default move time.
pub fn effective_limits(spec: &str, limits: &Limits) -> Limits {
    if limits.nodes.is_some() || limits.movetime_ms.is_some() {
        return *limits;
    }
    let default_ms = match kind(spec) {
        "usi" => Some(UsiConfig::new("").default_movetime_ms),
        "xboard" => Some(XBoardConfig::new("").default_movetime_ms),
        _ => None,
    };
    Limits { nodes: None, movetime_ms: default_ms }
}

/// `spec` with its limits as an `@` tail (what the agent parser takes).
pub fn spec_with_limits(spec: &str, limits: &Limits) -> String {
    let mut parts = Vec::new();
    if let Some(n) = limits.nodes {
        parts.push(format!("nodes={n}"));
    }
    if let Some(ms) = limits.movetime_ms {
        parts.push(format!("movetime={ms}"));
    }
    if parts.is_empty() {
        spec.to_string()
    } else {
        format!("{spec}@{}", parts.join(","))
    }
}

/// The limits in words, as played (`limits` from [`effective_limits`]).
pub fn describe_limits(spec: &str, limits: &Limits) -> String {
    let mut parts = Vec::new();
    if let Some(n) = limits.nodes {
        parts.push(match kind(spec) {
            "mcts" => format!("at most {n} simulations per move"),
            "usi" => format!("`go nodes {n}`"),
            _ => format!("{n} nodes per move"),
        });
    }
    if let Some(ms) = limits.movetime_ms {
        parts.push(match kind(spec) {
            "xboard" => format!(
                "{ms} ms per move (`st {}`, `time {cs}`, `otim {cs}`)",
                ms.div_ceil(1000),
                cs = ms.div_ceil(10)
            ),
            "usi" => format!("{ms} ms per move (`byoyomi {ms}`)"),
            "mcts" => format!("{ms} ms per move (as many simulations as fit)"),
            _ => format!("{ms} ms per move"),
        });
    }
    if parts.is_empty() {
        match kind(spec) {
            "alphabeta" | "ab" => "the spec's depth, no node or time cap".into(),
            "mcts" => "the spec's simulations per move, no time cap".into(),
            _ => "none (no search limit applies)".into(),
        }
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_engines_play_at_their_default_when_given_none() {
        let none = Limits::default();
        let e = effective_limits("xboard:/usr/games/hachu|sd=1", &none);
        assert_eq!(e.movetime_ms, Some(XBoardConfig::new("").default_movetime_ms));
        assert_eq!(effective_limits("alphabeta:2", &none), none);
        assert_eq!(spec_with_limits("alphabeta:2", &none), "alphabeta:2");
        let both = Limits { nodes: Some(5), movetime_ms: Some(100) };
        assert_eq!(spec_with_limits("usi:/x", &both), "usi:/x@nodes=5,movetime=100");
        assert_eq!(
            describe_limits("xboard:/h", &Limits { nodes: None, movetime_ms: Some(1000) }),
            "1000 ms per move (`st 1`, `time 100`, `otim 100`)"
        );
    }
}
