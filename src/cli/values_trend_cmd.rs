//! `shogilab values-trend`: piece values against the strength of the engines that measured them
//! (`shogilab_eval::values::trend`), from a TOML config listing each engine's table and Elo.

use anyhow::{Context, Result};
use clap::Args;
use shogilab_eval::values::trend::Trend;
use shogilab_fsio::write_atomic;
use std::path::PathBuf;

#[derive(Args)]
pub struct TrendArgs {
    /// The trend's config (TOML): variant, unit, and one [[engine]] per measured table (label,
    /// values = a <variant>-all.csv, method, and elo = [elo, low, high] or match = a
    /// match.json with anchor_elo; optionally log = the engine's game log, whose games the
    /// report cites where values and reference disagree); see configs/values/chu-trend.toml
    #[arg(long)]
    pub config: PathBuf,
    /// Report folder: <variant>-trend.md, <variant>-trend.csv, and the charts
    /// <variant>-trend.png (the 10 most valuable kinds), <variant>-trend-2.png (the next 10), ...,
    /// and <variant>-evidence.txt (the cited games, for `shogilab replay`) when a log is named
    #[arg(long, default_value = "reports/piece-values")]
    pub out: PathBuf,
}

pub fn run(a: TrendArgs) -> Result<()> {
    let trend = Trend::load(&a.config)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("--out {}", a.out.display()))?;
    let stem = format!("{}-trend", trend.config.variant);
    let charts = trend.charts(&a.out, &stem, 10)?;
    let command =
        format!("shogilab values-trend --config {} --out {}", a.config.display(), a.out.display());
    let mut md = trend.markdown(&command);
    let names: Vec<String> = charts
        .iter()
        .filter_map(|c| c.file_name().map(|f| format!("`{}`", f.to_string_lossy())))
        .collect();
    md.push_str(&format!("\nCharts (value against Elo, ten kinds each): {}.\n", names.join(", ")));
    md.push_str(&format!(
        "\n## The config\n\n`{}`:\n\n```toml\n{}```\n",
        a.config.display(),
        trend.source
    ));
    write_atomic(&a.out.join(format!("{stem}.csv")), trend.csv().as_bytes())?;
    write_atomic(&a.out.join(format!("{stem}.md")), md.as_bytes())?;
    if trend.log.is_some() {
        let evidence = a.out.join(format!("{}-evidence.txt", trend.config.variant));
        write_atomic(&evidence, trend.evidence_file().as_bytes())?;
        eprintln!("wrote {}", evidence.display());
    }
    for c in charts {
        eprintln!("wrote {}", c.display());
    }
    eprintln!("wrote {}", a.out.join(format!("{stem}.md")).display());
    Ok(())
}
