//! `shogilab ladder`: a strength ladder from a TOML configuration (`configs/ladder/*.toml`): a
//! round robin with one Elo table, head-to-head matches, and the report
//! `reports/strength/<variant>.md`. Finished pairings are kept in the work folder
//! (`runs/ladder-<variant>/`), so a second run with the same settings only rewrites the report.
//! External engines come from Debian (`apt-get install hachu fairy-stockfish`); an agent whose
//! engine or checkpoint is missing is left out, and the report says why.

use anyhow::Result;
use clap::Args;
use shogilab_pipeline::checkpoint_for_spec;
use shogilab_pipeline::ladder::{
    default_paths, run_ladder, write_report, LadderConfig, ReportMeta, RunOptions,
};
use std::path::PathBuf;

#[derive(Args)]
pub struct LadderArgs {
    /// The ladder's configuration (TOML): variant, game settings, agents with their limits and
    /// notes, head-to-head matches, external engines with their install hints.
    #[arg(long)]
    pub config: PathBuf,
    /// Games per pair of the round robin (replaces the configuration's games_per_pair).
    #[arg(long)]
    pub games_per_pair: Option<usize>,
    /// Work folder (settings and finished pairings) [default: runs/ladder-<variant>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The report [default: reports/strength/<variant>.md].
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Pairings played at a time, one thread each (the results do not depend on it). With
    /// agents limited by time keep it at most the number of cores, and OMP_NUM_THREADS=1.
    #[arg(long, default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub jobs: usize,
}

/// The command line as typed, each argument quoted when it needs it.
fn command_line() -> String {
    let quote = |a: String| {
        if a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+".contains(c)) {
            a
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    };
    let mut args: Vec<String> = std::env::args().map(quote).collect();
    if let Some(first) = args.first_mut() {
        *first = "shogilab".into();
    }
    args.join(" ")
}

pub fn run(a: LadderArgs) -> Result<()> {
    let mut cfg = LadderConfig::load(&a.config)?;
    if let Some(n) = a.games_per_pair {
        cfg.games_per_pair = n;
        cfg.check()?;
    }
    let (default_out, default_report) = default_paths(&cfg);
    let out = a.out.unwrap_or(default_out);
    let report = a.report.unwrap_or(default_report);
    let config_text = std::fs::read_to_string(&a.config)?;
    let log = |line: &str| eprintln!("{line}");
    let jobs = a.jobs;
    let result = run_ladder(
        &cfg,
        RunOptions { out_dir: out.clone(), extra: &checkpoint_for_spec, log: &log, jobs },
    )?;
    for l in &result.left_out {
        eprintln!("left out: {}: {}", l.name, l.reason);
    }
    let meta = ReportMeta::collect(&command_line(), &a.config, &config_text, &out, jobs);
    write_report(&report, &result, &cfg, &meta)?;
    for (k, row) in result.table.iter().enumerate() {
        println!(
            "{:>2}. {:<40} {:>+6.0} [{:+.0}, {:+.0}]  {}",
            k + 1,
            row.name,
            row.elo,
            row.ci_low,
            row.ci_high,
            row.tally.describe()
        );
    }
    println!(
        "wrote {} ({} pairings played, {} read back from {})",
        report.display(),
        result.played,
        result.reused,
        out.display()
    );
    Ok(())
}
