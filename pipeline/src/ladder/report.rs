//! The ladder's Markdown report (`reports/strength/<variant>.md`), written from the typed
//! [`LadderResult`]: the agents with the limits they played at, the Elo table with wins and
//! losses over the board and by forfeit in separate columns, the forfeits with their reasons,
//! every pair, the head-to-head matches, and the machine, binary and command that produced it.

use super::record::{ForfeitKind, GameLog, LadderResult, PairLog};
use super::LadderError;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Where and how the report was made.
#[derive(Debug, Clone)]
pub struct ReportMeta {
    /// The command line that produced it.
    pub command: String,
    /// Date and time (UTC) and the commit.
    pub when: String,
    pub binary: String,
    pub machine: String,
    /// The configuration file and its text as read.
    pub config_path: String,
    pub config_text: String,
    /// The work folder.
    pub work_dir: String,
}

/// The trimmed standard output of a command, `None` when it fails or prints nothing.
fn run_text(cmd: &str, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new(cmd).args(args).output().ok()?;
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !s.is_empty()).then_some(s)
}

impl ReportMeta {
    /// Collect the date, commit, binary and machine of this process.
    /// `jobs`: the pairings played at a time.
    pub fn collect(
        command: &str,
        config_path: &Path,
        config_text: &str,
        work_dir: &Path,
        jobs: usize,
    ) -> Self {
        let date = run_text("date", &["-u", "+%Y-%m-%d %H:%M"]).unwrap_or_else(|| "?".into());
        let commit = run_text("git", &["rev-parse", "--short", "HEAD"]).unwrap_or("?".into());
        let dirty = run_text("git", &["status", "--porcelain", "--untracked-files=no"]).is_some();
        ReportMeta {
            command: command.to_string(),
            when: format!(
                "{date} (UTC), commit {commit}{}",
                if dirty { " with uncommitted changes" } else { "" }
            ),
            binary: binary_line(),
            machine: machine_line(jobs),
            config_path: config_path.display().to_string(),
            config_text: config_text.to_string(),
            work_dir: work_dir.display().to_string(),
        }
    }
}

/// This executable: its path, version, size and build time.
fn binary_line() -> String {
    let Ok(p) = std::env::current_exe() else {
        return format!("shogilab {}", env!("CARGO_PKG_VERSION"));
    };
    let size = std::fs::metadata(&p).map_or("?".into(), |m| m.len().to_string());
    let built = run_text("date", &["-u", "-r", &p.to_string_lossy(), "+%Y-%m-%d %H:%M"])
        .unwrap_or_else(|| "?".into());
    format!(
        "`{}`, shogilab {} ({size} bytes, built {built} UTC)",
        p.display(),
        env!("CARGO_PKG_VERSION")
    )
}

/// The machine as the games saw it: cores, CPU model, load at the end, libtorch threads and
/// the pairings played at a time (`jobs`).
fn machine_line(jobs: usize) -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':').map(|(_, v)| v.trim().to_string()))
        })
        .unwrap_or_else(|| "?".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into());
    let omp = std::env::var("OMP_NUM_THREADS").unwrap_or_else(|_| "unset".into());
    format!(
        "{cores} cores, {cpu}; load average at the end {load}; OMP_NUM_THREADS={omp}; \
         pairings played {jobs} at a time (one thread each)"
    )
}

/// `+12 [+3, +20]` style Elo (infinite ends as `+inf`/`-inf`).
fn elo(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "+inf" } else { "-inf" }.into()
    } else {
        format!("{x:+.0}")
    }
}

/// How games ended: `decisive by royal-captured 12, draw by ply-limit 3, forfeit 1` (a
/// forfeit is counted as such, whatever termination the referee gave it).
fn endings<'a>(games: impl Iterator<Item = &'a GameLog>) -> String {
    let mut c: BTreeMap<String, usize> = BTreeMap::new();
    for g in games {
        let key = if g.forfeit.is_some() {
            "forfeit".to_string()
        } else {
            let kind = if g.result == "1/2-1/2" { "draw" } else { "decisive" };
            format!("{kind} by {}", g.termination.as_deref().unwrap_or("?"))
        };
        *c.entry(key).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = c.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.iter().map(|(k, n)| format!("{k} {n}")).collect::<Vec<_>>().join(", ")
}

/// The report's head: what made it, where, and the agents with the limits they played at.
fn header(r: &LadderResult, m: &ReportMeta, out: &mut String) {
    let _ = writeln!(out, "# Strength ladder: {}\n", r.variant);
    let _ = writeln!(out, "Generated by `{}` on {}.", m.command, m.when);
    let _ = writeln!(out, "Binary: {}.", m.binary);
    let _ = writeln!(out, "Machine: {}.", m.machine);
    let _ = writeln!(
        out,
        "Pairings: {} played by this run, {} read back from `{}` (played earlier under the same \
         settings).\n",
        r.played, r.reused, m.work_dir
    );
    out.push_str("## Agents and the limits they played at\n\n");
    out.push_str("| agent | spec | limits per move | what it is |\n|---|---|---|---|\n");
    for a in &r.agents {
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} |",
            a.name,
            a.spec.replace('|', "\\|"),
            a.limits,
            a.note
        );
    }
    out.push('\n');
    for (name, text) in &r.externals {
        let _ = writeln!(out, "External `{name}`: {text}.");
    }
    if !r.left_out.is_empty() {
        out.push_str("\nLeft out of this run:\n\n");
        for l in &r.left_out {
            let _ = writeln!(out, "* `{}`: {}.", l.name, l.reason);
        }
    }
}

/// The round robin's Elo table, wins and losses over the board apart from forfeits.
fn elo_table(r: &LadderResult, cfg: &super::LadderConfig, out: &mut String) {
    let games: usize = r.pairs.iter().map(|p| p.games.len()).sum();
    let anchor = &r.anchor;
    let _ = writeln!(
        out,
        "\n## Elo ladder (maximum likelihood over all {games} games, 95% intervals, anchor `{anchor}` = 0)\n"
    );
    let _ = writeln!(
        out,
        "Round robin, {} games per pair (colours alternate over paired random openings of {} \
         plies{}), seed {}, ply cap {} (a draw).\n",
        cfg.games_per_pair,
        cfg.opening_plies,
        if cfg.still_royals { " that move no royal" } else { "" },
        cfg.seed,
        cfg.max_plies
    );
    out.push_str(
        "| rank | agent | Elo | 95% CI | games | W over the board | W by forfeit | D | L over the board | L by forfeit | score |\n\
         |---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (k, row) in r.table.iter().enumerate() {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | [{}, {}] | {} |",
            k + 1,
            row.name,
            elo(row.elo),
            elo(row.ci_low),
            elo(row.ci_high),
            row.result_cells(),
        );
    }
    elo_notes(r, games, out);
}

/// What the Elo table's reader needs beside it: how forfeits count, the virtual draws where
/// the fit needed them, how the games ended and the round robin's games per hour.
fn elo_notes(r: &LadderResult, games: usize, out: &mut String) {
    out.push_str(
        "\nThe fit scores a forfeit as a loss of the side that forfeited (a crash, a hang, an \
         illegal move, or an engine refusing a legal move of its opponent); the columns keep \
         those games apart from the results over the board.\n",
    );
    if r.regularized {
        out.push_str(
            "\nSome agent won or lost every game: the fit added one virtual draw per pair.\n",
        );
    }
    let _ = writeln!(out, "\nHow the games ended: {}.", endings(r.round_robin_games()));
    let wall: f64 = r.pairs.iter().map(|p| p.wall_seconds).sum();
    let _ = writeln!(
        out,
        "\nRound-robin wall time {:.1} min for {games} games (the pairings' own times, summed): \
         **{:.0} games per hour**.",
        wall / 60.0,
        games as f64 * 3600.0 / wall.max(1e-9)
    );
}

/// Every forfeit of the report's games, by agent and kind, with one reason each as an example.
fn forfeits(r: &LadderResult, out: &mut String) {
    out.push_str("\n### Forfeits (all games of this report)\n\n");
    let mut by_agent: BTreeMap<&str, BTreeMap<ForfeitKind, Vec<&str>>> = BTreeMap::new();
    for g in r.pairs.iter().chain(&r.h2h).flat_map(|p| &p.games) {
        if let Some(f) = &g.forfeit {
            let kinds = by_agent.entry(f.agent.as_str()).or_default();
            kinds.entry(ForfeitKind::of(&f.reason)).or_default().push(f.reason.as_str());
        }
    }
    if by_agent.is_empty() {
        out.push_str("No game ended by a forfeit.\n");
    }
    for (agent, kinds) in by_agent {
        let total: usize = kinds.values().map(Vec::len).sum();
        let _ = writeln!(out, "* `{agent}` forfeited {total} games:");
        for (kind, reasons) in kinds {
            let _ = writeln!(
                out,
                "  * {} x {}; for example: {}",
                reasons.len(),
                kind.explain(),
                reasons[0].replace('|', "\\|")
            );
        }
    }
}

/// One pair's W-D-L from the row agent's side (`flip`: the pair was played the other way round),
/// with the forfeits among them marked.
fn pair_cell(p: &PairLog, flip: bool) -> String {
    let t = if flip { p.tally.flipped() } else { p.tally };
    let mut s = format!("{}-{}-{}", t.wins, t.draws, t.losses);
    if t.forfeit_wins > 0 {
        let _ = write!(s, " (+{}f)", t.forfeit_wins);
    }
    if t.forfeit_losses > 0 {
        let _ = write!(s, " (-{}f)", t.forfeit_losses);
    }
    s
}

/// The cross table of every pair in the round robin, rows and columns in ladder order.
fn pair_table(r: &LadderResult, out: &mut String) {
    out.push_str("\n### Every pair (the row agent's W-D-L against the column agent)\n\n");
    let names: Vec<&str> = r.table.iter().map(|row| row.name.as_str()).collect();
    out.push_str("| |");
    for k in 1..=names.len() {
        let _ = write!(out, " {k} |");
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(names.len()));
    out.push('\n');
    for (k, a) in names.iter().enumerate() {
        let _ = write!(out, "| {} `{a}` |", k + 1);
        for b in &names {
            let cell = r.pairs.iter().find_map(|p| {
                if (p.a.as_str(), p.b.as_str()) == (*a, *b) {
                    Some(pair_cell(p, false))
                } else if (p.b.as_str(), p.a.as_str()) == (*a, *b) {
                    Some(pair_cell(p, true))
                } else {
                    None
                }
            });
            let _ = write!(out, " {} |", cell.unwrap_or_default());
        }
        out.push('\n');
    }
    out.push_str(
        "\n`(+Nf)`: N of the wins came by the opponent's forfeit; `(-Nf)`: N of the losses by the \
         row agent's own forfeit.\n",
    );
}

/// The head-to-head matches, outside the fit: each with its score, Elo and how its games ended.
fn h2h_table(r: &LadderResult, cfg: &super::LadderConfig, out: &mut String) {
    if r.h2h.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Head-to-head matches (separate games, seed {}; not part of the fit above)\n",
        cfg.h2h_seed()
    );
    out.push_str(
        "| A | B | games | W over the board | W by forfeit | D | L over the board | L by forfeit | score of A | 95% CI | Elo A-B | 95% CI | games/hour |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|\n",
    );
    for p in &r.h2h {
        let (t, s) = (&p.tally, p.summary());
        let (won, lost) = t.over_the_board();
        let _ = writeln!(
            out,
            "| `{}` | `{}` | {} | {} | {} | {} | {} | {} | {:.3} | [{:.3}, {:.3}] | {} | [{}, {}] | {:.0} |",
            p.a,
            p.b,
            t.games(),
            won,
            t.forfeit_wins,
            t.draws,
            lost,
            t.forfeit_losses,
            s.score,
            s.score_ci.0,
            s.score_ci.1,
            elo(s.elo),
            elo(s.elo_ci.0),
            elo(s.elo_ci.1),
            t.games() as f64 * 3600.0 / p.wall_seconds.max(1e-9)
        );
    }
    out.push('\n');
    for p in &r.h2h {
        let _ = writeln!(out, "* `{}` vs `{}`: {}.", p.a, p.b, endings(p.games.iter()));
    }
}

/// The command, the configuration as read, and where every game is kept.
fn commands(m: &ReportMeta, out: &mut String) {
    out.push_str("\n## Command\n\n```sh\n");
    let _ = writeln!(out, "{}", m.command);
    let _ = writeln!(out, "```\n\nThe configuration as read (`{}`):\n\n```toml", m.config_path);
    let _ = writeln!(out, "{}", m.config_text.trim_end());
    let _ = writeln!(
        out,
        "```\n\nEvery game is in `{}/` (`pairs/NN.json`, `h2h/NN.json`: each game as a `shogilab \
         replay` line with its result and any forfeit's reason; `ladder.toml`: the settings), \
         not committed.",
        m.work_dir
    );
}

/// The report as Markdown.
pub fn render_report(r: &LadderResult, cfg: &super::LadderConfig, m: &ReportMeta) -> String {
    let mut out = String::new();
    header(r, m, &mut out);
    if !cfg.not_on_ladder.is_empty() {
        out.push_str("\nNot on this ladder:\n\n");
        for n in &cfg.not_on_ladder {
            let _ = writeln!(out, "* {}", n.trim());
        }
    }
    elo_table(r, cfg, &mut out);
    forfeits(r, &mut out);
    pair_table(r, &mut out);
    h2h_table(r, cfg, &mut out);
    commands(m, &mut out);
    out
}

/// Write the report to `path` atomically.
pub fn write_report(
    path: &Path,
    r: &LadderResult,
    cfg: &super::LadderConfig,
    m: &ReportMeta,
) -> Result<(), LadderError> {
    shogilab_fsio::write_atomic(path, render_report(r, cfg, m).as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::record::{ForfeitLog, LadderAgent};
    use shogilab_eval::gauntlet::fit_table;
    use shogilab_eval::r#match::Tally;

    fn game(black: &str, white: &str, result: &str, forfeit: Option<&str>) -> GameLog {
        GameLog {
            black: black.into(),
            white: white.into(),
            result: result.into(),
            termination: Some(
                if forfeit.is_some() { "resignation" } else { "royal-captured" }.into(),
            ),
            plies: 40,
            forfeit: forfeit.map(|agent| ForfeitLog {
                side: if agent == black { "black" } else { "white" }.into(),
                agent: agent.into(),
                reason: format!(
                    "{agent}: protocol error: {}: ply 9",
                    shogilab_eval::xboard_client::REFUSED_REPETITION
                ),
            }),
            line: "sfen x".into(),
        }
    }

    /// A two-agent ladder where `b` won one game over the board and forfeited one: the report
    /// shows `a`'s win as a win by forfeit and `b`'s as a win over the board, and names the cause.
    #[test]
    fn forfeits_are_counted_apart_from_results_over_the_board() {
        let tally = Tally { wins: 1, draws: 0, losses: 1, forfeit_wins: 1, forfeit_losses: 0 };
        let pair = PairLog {
            a: "a".into(),
            b: "b".into(),
            tally,
            games: vec![game("a", "b", "1-0", Some("b")), game("b", "a", "1-0", None)],
            wall_seconds: 2.0,
        };
        let (table, regularized) = fit_table(&["a".into(), "b".into()], &[(0, 1, tally)]).unwrap();
        let agent = |n: &str| LadderAgent {
            name: n.into(),
            spec: "random".into(),
            limits: "none".into(),
            note: "n".into(),
        };
        let r = LadderResult {
            variant: "chu".into(),
            anchor: "a".into(),
            agents: vec![agent("a"), agent("b")],
            left_out: vec![],
            table,
            regularized,
            pairs: vec![pair],
            h2h: vec![],
            reused: 0,
            played: 1,
            externals: vec![],
        };
        let cfg: crate::ladder::LadderConfig = toml::from_str(
            "variant = \"chu\"\ngames_per_pair = 2\nmax_plies = 9\n[[agent]]\nspec = \"random\"\nnote = \"n\"\n",
        )
        .unwrap();
        let meta = ReportMeta {
            command: "shogilab ladder --config x.toml".into(),
            when: "now".into(),
            binary: "b".into(),
            machine: "m".into(),
            config_path: "x.toml".into(),
            config_text: "variant = \"chu\"".into(),
            work_dir: "w".into(),
        };
        let md = render_report(&r, &cfg, &meta);
        // rank | agent | Elo | CI | games | W board | W forfeit | D | L board | L forfeit
        let row = |name: &str| {
            md.lines().find(|l| l.contains(&format!("| `{name}` | ")) && l.contains('%')).unwrap()
        };
        let cols = |l: &str| l.split('|').map(str::trim).collect::<Vec<_>>()[6..11].join(" ");
        assert_eq!(cols(row("a")), "0 1 0 1 0", "{md}");
        assert_eq!(cols(row("b")), "1 0 0 0 1", "{md}");
        assert!(md.contains("| 1 `a` |  | 1-0-1 (+1f) |"), "{md}");
        assert!(
            md.contains("How the games ended: decisive by royal-captured 1, forfeit 1."),
            "{md}"
        );
        assert!(md.contains("* `b` forfeited 1 games:\n  * 1 x refused a legal move"), "{md}");
    }
}
