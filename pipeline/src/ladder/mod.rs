//! Strength ladders: a TOML list of agents at stated limits, played as a round robin with a
//! maximum-likelihood Elo table and head-to-head matches, written as a report.
