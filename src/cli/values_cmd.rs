//! `shogilab values`: empirical piece values in pawn units, three ways (imbalance matches,
//! regression on self-play datasets, value-network probing), each with 95% bootstrap
//! intervals, compared with a reference table (the German Chu Shogi Association's, from
//! `configs/values/<variant>-gcsa.toml`). Writes `<out>/<variant>.csv`, `<variant>-all.csv`,
//! `<variant>-effects.csv` (the unit-free regression coefficients), `<variant>-effects.png`,
//! `<variant>.md`, `<variant>.png` and `<variant>-intervals.png`; the imbalance games go to the
//! append-only log `<out>/games/<variant>.jsonl`, so re-running continues and `--games N`
//! extends. Every input is checked before any game is played or any file written.

use super::{write_atomic, VariantArgs};
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use shogilab_engine::{Position, Variant};
use shogilab_eval::values::imbalance::{self, ImbalanceConfig};
use shogilab_eval::values::report::{self, PrimaryRow, Reference, ReportInput};
use shogilab_eval::values::{probe, texel, Kinds, MethodResult, ValueEstimate};
use shogilab_plot::{Estimate, Labels, Series};
use shogilab_selfplay::{Evaluator, Material, PieceValues, Uniform};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct ValuesArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Report folder: <variant>.csv, <variant>-all.csv, <variant>.md, <variant>.png,
    /// <variant>-intervals.png, and the game log games/<variant>.jsonl.
    #[arg(long, default_value = "reports/piece-values")]
    pub out: PathBuf,
    /// Imbalance games of these setup rules the log should hold (missing ones are played; 0 =
    /// play none). Every game of the same engine in the log is fitted, whatever its setup rules.
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    /// Stop starting new games after this many minutes (the fit uses what the log holds).
    #[arg(long)]
    pub max_minutes: Option<f64>,
    /// Game threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Imbalance engine: full-width depth before the captures-only search.
    #[arg(long, default_value_t = 1)]
    pub depth: u32,
    /// Imbalance setups: draw again any setup whose first mover (in either colour order) can
    /// capture the other side's last royal at once (tenjiku: a removed general can leave a king open to a jumping
    /// general); such games measure the start array's geometry, not the material.
    #[arg(long)]
    pub safe_royals: bool,
    /// Fit: leave out the setups whose first move (in either colour order) takes the other
    /// side's last royal (the games `--safe-royals` would not have played; tenjiku about 3% of
    /// the games of its plain rules).
    #[arg(long)]
    pub drop_won_setups: bool,
    /// Imbalance engine: give each root move its own node budget and search the root with a
    /// window (required from depth 2: with one budget for all the root moves, the moves
    /// searched after it runs out get only the static evaluation). The committed logs were
    /// played without it.
    #[arg(long)]
    pub budget_per_root_move: bool,
    /// Ply cap of the imbalance games (a draw when reached; no adjudication).
    #[arg(long, default_value_t = 400)]
    pub max_plies: u32,
    /// Imbalance engine: bonus in centipawns per rank a piece stands from its back rank.
    #[arg(long, default_value_t = 3)]
    pub advance: i32,
    /// Imbalance engine: root jitter, +- centipawns.
    #[arg(long, default_value_t = 30)]
    pub noise: i32,
    /// Imbalance setups: pieces of each side promoted in place for certain, before the
    /// 60% chance of one more (more variation in the kinds that exist only by promotion).
    #[arg(long, default_value_t = 0)]
    pub min_promotions: usize,
    /// Imbalance setups: up to this many non-pawn pieces removed per side.
    #[arg(long, default_value_t = 3)]
    pub max_removals: usize,
    /// Imbalance setups: up to this many pawns removed per side.
    #[arg(long, default_value_t = 3)]
    pub max_pawns: usize,
    /// Imbalance setups: chance that a side with a promoted prince loses its king.
    #[arg(long, default_value_t = 0.5)]
    pub royal_drop: f64,
    /// Self-play data for the regression: positions-*.parquet files or folders searched
    /// recursively (repeatable).
    #[arg(long = "datasets", value_name = "PATH")]
    pub datasets: Vec<PathBuf>,
    /// Evaluator to probe: a checkpoint (.ot), or `material` (mobility values: a sanity check
    /// that gives them back).
    #[arg(long, value_name = "EVAL")]
    pub probe: Option<String>,
    /// Positions to probe (sampled from the datasets, else from the imbalance setups).
    #[arg(long, default_value_t = 200)]
    pub probe_positions: usize,
    /// Reference table (ValueFile TOML). Default: configs/values/<variant>-gcsa.toml when it
    /// exists; `none` for no comparison.
    #[arg(long)]
    pub reference: Option<String>,
    /// Bootstrap resamples per method.
    #[arg(long, default_value_t = 400)]
    pub bootstrap: usize,
    /// Primary column: an order of preference (default: the randomised imbalance experiment
    /// first, then the observational regressions, probing last), or `auto` (among the
    /// methods fitted on game results, the one with the
    /// narrowest mean interval that measures at least 80% of the kinds, then the others by
    /// width, probing last). Methods: imbalance, imbalance-positions, texel, probe.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "imbalance,imbalance-positions,texel,probe"
    )]
    pub primary: Vec<String>,
}

fn load_reference(a: &ValuesArgs, v: &Arc<Variant>, kinds: &Kinds) -> Result<Option<Reference>> {
    let path = match a.reference.as_deref() {
        Some("none") => return Ok(None),
        Some(p) => PathBuf::from(p),
        None => {
            let p = PathBuf::from(format!("configs/values/{}-gcsa.toml", v.name));
            if !p.exists() {
                return Ok(None);
            }
            p
        }
    };
    if !path.is_file() {
        bail!("--reference {}: no such file", path.display());
    }
    let pv = PieceValues::from_file(Arc::clone(v), &path)
        .map_err(|e| anyhow::anyhow!("--reference {e}"))?;
    let mut values = vec![f64::NAN; kinds.len()];
    for (t, &x) in pv.per_type.iter().enumerate() {
        values[kinds.of_type[t]] = x as f64;
    }
    Ok(Some(Reference { source: pv.source, path: path.display().to_string(), values }))
}

fn load_probe(spec: &str, v: &Arc<Variant>) -> Result<(Arc<dyn Evaluator>, String)> {
    match spec {
        "material" => Ok((
            Arc::new(Material::new(PieceValues::mobility(Arc::clone(v)))),
            "the `material` evaluator (mobility-derived values; gives them back)".into(),
        )),
        "uniform" => Ok((Arc::new(Uniform), "the `uniform` evaluator (constant value)".into())),
        p if p.ends_with(".ot") => {
            let path = Path::new(p);
            if !path.is_file() {
                bail!("--probe {p}: no such checkpoint");
            }
            let meta = shogilab_train::checkpoint::read_meta(path)
                .map_err(|e| anyhow::anyhow!("--probe {p}: {e}"))?;
            if meta.variant != v.name {
                bail!("--probe {p}: checkpoint is for {:?}, not {:?}", meta.variant, v.name);
            }
            let ev = super::selfplay_cmd::make_evaluator(p, v)
                .with_context(|| format!("--probe {p}"))?;
            Ok((
                Arc::from(ev),
                format!(
                    "checkpoint `{p}` (value head, win/draw/loss -> logit of the expected score)"
                ),
            ))
        }
        o => bail!("--probe {o:?}: expected a checkpoint path ending in .ot, or material"),
    }
}

fn speed_lines(log: &[imbalance::GameLine], sessions: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if log.is_empty() {
        return out;
    }
    let ms: f64 = log.iter().map(|g| g.ms as f64).sum();
    let plies: f64 = log.iter().map(|g| g.plies as f64).sum();
    out.push(format!(
        "imbalance: {} games, mean {:.0} plies and {:.2} s per game on one thread ({:.0} games per thread-hour)",
        log.len(),
        plies / log.len() as f64,
        ms / 1000.0 / log.len() as f64,
        3.6e6 * log.len() as f64 / ms.max(1.0)
    ));
    if let Ok(text) = std::fs::read_to_string(sessions) {
        let (mut played, mut secs) = (0.0, 0.0);
        let mut threads = std::collections::BTreeSet::new();
        for l in text.lines() {
            if let Ok(j) = serde_json::from_str::<serde_json::Value>(l) {
                played += j["played"].as_f64().unwrap_or(0.0);
                secs += j["seconds"].as_f64().unwrap_or(0.0);
                threads.insert(j["threads"].as_u64().unwrap_or(0));
            }
        }
        if secs > 0.0 {
            out.push(format!(
                "imbalance: {played:.0} games in {:.1} min of wall clock with {} threads on this project's 2-core machine (shared with other work, nice 10): {:.0} games per hour",
                secs / 60.0,
                threads.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("/"),
                played / secs * 3600.0
            ));
        }
    }
    out
}

pub fn run(a: ValuesArgs) -> Result<()> {
    let v = a.variant.load()?;
    let kinds = Kinds::new(&v);
    if kinds.pawn.is_none() {
        bail!("variant {:?} has no piece named \"pawn\": no unit for the values", v.name);
    }
    if a.bootstrap < 20 {
        bail!("--bootstrap {}: use at least 20 resamples", a.bootstrap);
    }
    for m in &a.primary {
        if !["auto", "imbalance", "imbalance-positions", "texel", "probe"].contains(&m.as_str()) {
            bail!("--primary {m:?}: expected auto, or methods among imbalance, imbalance-positions, texel, probe");
        }
    }
    if let Some(m) = a.max_minutes {
        if !(m.is_finite() && m >= 0.0) {
            bail!("--max-minutes {m}: must be a non-negative number");
        }
    }
    // every input first: reference, datasets, evaluator
    let reference = load_reference(&a, &v, &kinds)?;
    let texel_data = if a.datasets.is_empty() {
        None
    } else {
        let files = texel::dataset_files(&a.datasets).map_err(anyhow::Error::msg)?;
        eprintln!("reading {} dataset files", files.len());
        Some((texel::load(&files, &v, &kinds).map_err(anyhow::Error::msg)?, files))
    };
    let probe_ev = a.probe.as_deref().map(|p| load_probe(p, &v)).transpose()?;
    let log_path = a.out.join("games").join(format!("{}.jsonl", v.name));
    let sessions_path = a.out.join("games").join(format!("{}-sessions.jsonl", v.name));
    let (existing, _) = imbalance::read_log(&log_path).map_err(anyhow::Error::msg)?;
    if a.games == 0 && existing.is_empty() && texel_data.is_none() && probe_ev.is_none() {
        bail!("nothing to measure: give --games N, --datasets PATH or --probe EVAL");
    }
    if !(0.0..=1.0).contains(&a.royal_drop) {
        bail!("--royal-drop {}: expected a chance between 0 and 1", a.royal_drop);
    }
    let cfg = ImbalanceConfig {
        depth: a.depth,
        root_budget: a.budget_per_root_move,
        safe_royals: a.safe_royals,
        noise_cp: a.noise,
        max_plies: a.max_plies,
        advance_cp: a.advance,
        min_promotions: a.min_promotions,
        max_removals: a.max_removals,
        max_pawns: a.max_pawns,
        royal_drop: a.royal_drop,
        seed: a.seed,
        ..ImbalanceConfig::default()
    };
    cfg.check().map_err(|e| anyhow!("--depth {}: {e}: add --budget-per-root-move", a.depth))?;
    imbalance::check_engine(&log_path, &existing, &cfg).map_err(anyhow::Error::msg)?;
    // imbalance games
    let mut games = existing;
    let have = imbalance::count_of(&games, &cfg.agent_id());
    if a.games > have {
        let threads = a
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
        let todo = a.games - have;
        let bar = ProgressBar::new(todo as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} imbalance games {msg} [{elapsed}<{eta}]",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let t0 = Instant::now();
        let deadline = a.max_minutes.map(|m| t0 + Duration::from_secs_f64(m * 60.0));
        // SIGINT/SIGTERM: no new games, the session line is written, then a non-zero exit; a
        // second signal exits at once (the log keeps every finished game either way)
        let interrupted = Arc::new(AtomicBool::new(false));
        for sig in [SIGINT, SIGTERM] {
            signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&interrupted))
                .and_then(|_| signal_hook::flag::register(sig, Arc::clone(&interrupted)))
                .context("installing the signal handlers")?;
        }
        let stop =
            || interrupted.load(Ordering::Relaxed) || deadline.is_some_and(|d| Instant::now() >= d);
        let before = games.len();
        let (mut decisive, mut played) = (0usize, 0usize);
        games = imbalance::run_games(&v, &cfg, &log_path, a.games, threads, &stop, &mut |g, _| {
            played += 1;
            if g.result != 0.5 {
                decisive += 1;
            }
            bar.inc(1);
            bar.set_message(format!(
                "{:.0}% decisive, {:.0} games/h",
                100.0 * decisive as f64 / played as f64,
                played as f64 / t0.elapsed().as_secs_f64().max(1e-3) * 3600.0
            ));
        })
        .map_err(anyhow::Error::msg)?;
        bar.finish_and_clear();
        let secs = t0.elapsed().as_secs_f64();
        let n = games.len() - before;
        eprintln!("played {n} imbalance games in {secs:.0} s ({} in the log)", games.len());
        let stopped = interrupted.load(Ordering::Relaxed);
        if n > 0 {
            let mut line = serde_json::json!({"played": n, "seconds": secs, "threads": threads,
                "agent": cfg.agent_id()});
            if stopped {
                line["note"] = "stopped by a signal".into();
            }
            let line = line.to_string() + "\n";
            use std::io::Write;
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&sessions_path)
                .and_then(|mut f| f.write_all(line.as_bytes()))
                .with_context(|| format!("writing {}", sessions_path.display()))?;
        }
        if stopped {
            bail!(
                "interrupted: {n} new games kept in {} ({} in all), nothing fitted; the same command continues",
                log_path.display(),
                games.len()
            );
        }
    }
    // fits
    let mut methods: Vec<MethodResult> = Vec::new();
    let mut dropped = String::new();
    if a.drop_won_setups && !games.is_empty() {
        let before = games.len();
        let (kept, setups) = imbalance::drop_won_setups(&v, games)
            .map_err(|e| anyhow!("{}: {e}", log_path.display()))?;
        let left_out = before - kept.len();
        games = kept;
        dropped = format!(
            "; left out (`--drop-won-setups`): {setups} setups, {left_out} games, whose first move could take the last royal"
        );
        eprintln!("left out {setups} setups ({left_out} games) won by the first move");
    }
    if !games.is_empty() {
        eprintln!("fitting {} imbalance games ({} bootstrap resamples)", games.len(), a.bootstrap);
        let desc = format!(
            "engine-vs-itself games from the start array with random pieces removed or promoted in place, each setup also mirrored with colours swapped (setup rules and games: {}{dropped}); engine `{}`: alpha-beta depth {} + captures-only quiescence, material from mobility-derived values (`PieceValues::mobility`, not the GCSA table), +{} cp per rank advanced, ±{} cp root jitter, repeated positions penalised; draw at {} plies, no adjudication; logistic regression of Black's score (draw 0.5) on per-kind count differences with a first-move intercept, ridge 1e-3, bootstrap over setups",
            imbalance::setup_summary(&games), cfg.engine_id(), cfg.depth, cfg.advance_cp, cfg.noise_cp, cfg.max_plies
        );
        methods.push(
            imbalance::fit(&kinds, &games, a.bootstrap, a.seed, desc)
                .map_err(anyhow::Error::msg)?,
        );
        let desc = format!(
            "the same games, Texel-style: Black's result regressed on the material difference of every quiet position of the games (the move played from it changes no material: captures and promotions during the game add variation in every kind), constant + side-to-move terms, ridge 1e-3, bootstrap over setups; engine `{}`",
            cfg.engine_id()
        );
        if let Some(m) = imbalance::fit_positions(&v, &kinds, &games, a.bootstrap, a.seed, desc)
            .map_err(anyhow::Error::msg)?
        {
            methods.push(m);
        }
    }
    if let Some((data, files)) = &texel_data {
        eprintln!("fitting {} dataset games", data.games);
        let mut dirs: Vec<String> = files
            .iter()
            .map(|f| f.parent().map(|p| p.display().to_string()).unwrap_or_default())
            .collect();
        dirs.dedup();
        let desc = format!(
            "logistic regression of the game result (Black's score, draw 0.5) on per-kind count differences of quiet positions (the move played from them changes no material), constant + side-to-move terms, ridge 1e-3, bootstrap over games; data: {} files in {}",
            files.len(),
            dirs.join(", ")
        );
        methods
            .push(texel::fit(&kinds, data, a.bootstrap, a.seed, desc).map_err(anyhow::Error::msg)?);
    }
    if let Some((ev, desc)) = &probe_ev {
        let mut rng_pick: Vec<(Position, u32)> = Vec::new();
        let source;
        if let Some((data, _)) = &texel_data {
            source = "mid-game positions sampled from the datasets";
            let n = data.sample_sfens.len();
            let step = (n / a.probe_positions.max(1)).max(1);
            for (sfen, ply) in data.sample_sfens.iter().step_by(step).take(a.probe_positions) {
                if let Ok(p) = Position::from_sfen(&v, sfen) {
                    rng_pick.push((p, *ply));
                }
            }
        } else {
            source = "start arrays of the imbalance setups";
            for g in games.iter().filter(|g| g.swap == 0).take(a.probe_positions) {
                if let Ok(p) = Position::from_sfen(&v, &g.sfen) {
                    rng_pick.push((p, 0));
                }
            }
            if rng_pick.is_empty() {
                rng_pick.push((Position::start(&v), 0));
            }
        }
        eprintln!("probing {} positions", rng_pick.len());
        let bar = ProgressBar::new(rng_pick.len() as u64);
        let r = probe::probe(
            &v,
            &kinds,
            ev.as_ref(),
            &rng_pick,
            64,
            a.bootstrap,
            a.seed,
            format!("{desc}; value drop when a piece of the side to move is removed (promoted kinds: promoted piece vs no piece), relative to a pawn's; {source}; bootstrap over positions"),
            &mut |n| bar.set_position(n as u64),
        )
        .map_err(anyhow::Error::msg)?;
        bar.finish_and_clear();
        methods.push(r);
    }
    // primary order
    let mut ordered: Vec<MethodResult> = Vec::new();
    if a.primary.iter().any(|p| p == "auto") {
        let n = kinds.len() as f64;
        // probe intervals only cover the sampling of positions, not the evaluator's own error,
        // so only the methods fitted on game results compete on width
        let mut by_width: Vec<&MethodResult> =
            methods.iter().filter(|m| m.method != "probe").collect();
        let key = |m: &MethodResult| {
            let (mean, _, missing) = m.widths();
            let covers = (kinds.len() - missing) as f64 >= 0.8 * n;
            (!covers, if mean.is_finite() { mean } else { f64::INFINITY })
        };
        by_width.sort_by(|x, y| key(x).partial_cmp(&key(y)).unwrap_or(std::cmp::Ordering::Equal));
        ordered.extend(by_width.into_iter().cloned());
        ordered.extend(methods.iter().filter(|m| m.method == "probe").cloned());
    } else {
        for name in &a.primary {
            if let Some(m) = methods.iter().find(|m| &m.method == name) {
                ordered.push(m.clone());
            }
        }
        for m in &methods {
            if !ordered.iter().any(|o| o.method == m.method) {
                ordered.push(m.clone());
            }
        }
    }
    let primary: Vec<PrimaryRow> = report::primary_rows(&kinds, &ordered);
    let promotes_to: Vec<Option<usize>> = (0..kinds.len())
        .map(|k| {
            v.types
                .iter()
                .find(|t| kinds.of_type[t.id as usize] == k && !t.promoted)
                .and_then(|t| t.promotes_to)
                .map(|p| kinds.of_type[p as usize])
        })
        .collect();
    let name = v.name.clone();
    // charts first (each atomic), then the text files
    let (xs, xlabel): (Vec<f64>, String) = match &reference {
        Some(r) => (r.values.clone(), format!("reference value ({})", r.source)),
        None => {
            let mob = PieceValues::mobility(Arc::clone(&v));
            let mut x = vec![f64::NAN; kinds.len()];
            for (t, &m) in mob.per_type.iter().enumerate() {
                x[kinds.of_type[t]] = m as f64;
            }
            (x, "mobility-derived value (no published table)".to_string())
        }
    };
    let primary_estimates: Vec<ValueEstimate> =
        primary.iter().map(|p| p.estimate.clone()).collect();
    let values_png = chart_against(
        &a.out.join(format!("{name}.png")),
        Labels {
            title: &format!("{name}: measured piece values (pawn = 1, 95% intervals)"),
            x: &xlabel,
            y: "measured value (primary method)",
        },
        &xs,
        &primary_estimates,
        1.0,
    )?;
    // the unit-free effects of the first regression method that has them
    let effects_png = match ordered.iter().find(|m| !m.effects.is_empty()) {
        Some(m) => chart_against(
            &a.out.join(format!("{name}-effects.png")),
            Labels {
                title: &format!(
                    "{name}: effect of one more piece on the win odds ({}, 95% intervals)",
                    m.method
                ),
                x: &xlabel,
                y: "effect (centi-logits of the expected score)",
            },
            &xs,
            &m.effects,
            100.0,
        )?,
        None => {
            let _ = std::fs::remove_file(a.out.join(format!("{name}-effects.png")));
            false
        }
    };
    let series_of = |curve: fn(&MethodResult) -> &[(f64, f64)], scale: f64, cap: f64| {
        ordered
            .iter()
            .map(|m| Series {
                name: format!(
                    "{} ({})",
                    m.method,
                    if m.method == "probe" { "positions" } else { "games" }
                ),
                // the first refits, before the pawn coefficient settles, would flatten the chart
                points: curve(m)
                    .iter()
                    .map(|&(x, y)| (x, scale * y))
                    .filter(|p| p.1.is_finite() && p.1 <= cap)
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect::<Vec<Series>>()
    };
    // widths in pawns where they are finite, else the unit-free effects' widths
    let mut series = series_of(|m| &m.curve, 1.0, 20.0);
    let mut unit = "pawns";
    if series.is_empty() {
        series = series_of(|m| &m.effect_curve, 100.0, f64::INFINITY);
        unit = "effects, centi-logits";
    }
    let intervals_png = !series.is_empty();
    if series.is_empty() {
        eprintln!("no finite interval widths yet: {name}-intervals.png not drawn");
        // a chart from an earlier run would no longer match the report
        let _ = std::fs::remove_file(a.out.join(format!("{name}-intervals.png")));
    } else {
        shogilab_plot::line_chart(
            &a.out.join(format!("{name}-intervals.png")),
            Labels {
                title: &format!("{name}: mean 95% half-width against games used"),
                x: "games (probe: positions) used, refitting on the first n",
                y: &format!("mean 95% CI half-width ({unit})"),
            },
            &series,
        )?;
    }
    let mut files = vec![
        format!("`{name}.csv` (primary)"),
        format!("`{name}-all.csv` (every method)"),
        format!("`{name}-effects.csv` (unit-free effects)"),
    ];
    for (drawn, file) in [
        (values_png, format!("`{name}.png`")),
        (effects_png, format!("`{name}-effects.png`")),
        (intervals_png, format!("`{name}-intervals.png`")),
    ] {
        if drawn {
            files.push(file);
        }
    }
    files.push(format!("`games/{name}.jsonl` (imbalance game log)"));
    let command = format!(
        "shogilab {}",
        std::env::args()
            .skip(1)
            .map(|s| if s.contains(' ') { format!("'{s}'") } else { s })
            .collect::<Vec<_>>()
            .join(" ")
    );
    let md = report::markdown(&ReportInput {
        variant: &name,
        command: &command,
        kinds: &kinds,
        methods: &ordered,
        primary: &primary,
        reference: reference.as_ref(),
        speed: speed_lines(&games, &sessions_path),
        promotes_to,
        promoted_only: (0..kinds.len())
            .map(|k| !v.types.iter().any(|t| kinds.of_type[t.id as usize] == k && !t.promoted))
            .collect(),
        files,
        depth: cfg.depth,
    });
    write_atomic(
        &a.out.join(format!("{name}-all.csv")),
        report::csv_all(&ordered, reference.as_ref()).as_bytes(),
    )?;
    write_atomic(
        &a.out.join(format!("{name}-effects.csv")),
        report::csv_effects(&ordered, reference.as_ref()).as_bytes(),
    )?;
    write_atomic(
        &a.out.join(format!("{name}.csv")),
        report::csv_primary(&primary, reference.as_ref()).as_bytes(),
    )?;
    write_atomic(&a.out.join(format!("{name}.md")), md.as_bytes())?;
    // summary
    for m in &ordered {
        let (mean, max, missing) = m.widths();
        let corr = reference.as_ref().map(|r| {
            let (s, p, n) = report::correlation(report::ranked(m).0, r);
            let ci = report::spearman_interval(m, r)
                .map_or(String::new(), |(a, b)| format!(" [{a:.3}, {b:.3}]"));
            format!(", Spearman {s:.3}{ci}, Pearson {p:.3} over {n} kinds")
        });
        eprintln!(
            "{}: {} games/positions, mean half-width {mean:.2}, widest {max:.2}, {missing} without interval{}",
            m.method,
            m.games,
            corr.unwrap_or_default()
        );
    }
    println!("wrote {}", a.out.join(format!("{name}.md")).display());
    Ok(())
}

/// Estimates (times `scale`) against `xs` with their intervals, as a PNG at `path`; with
/// `scale` 1 (values in pawns) a y = x line. Fewer than two finite points (the pawn alone is
/// 1 by definition) draw nothing and remove a chart left by an earlier run. Whether it drew.
fn chart_against(
    path: &Path,
    labels: Labels,
    xs: &[f64],
    estimates: &[ValueEstimate],
    scale: f64,
) -> Result<bool> {
    let finite: Vec<(&ValueEstimate, f64)> = estimates
        .iter()
        .zip(xs.iter().copied())
        .filter(|(e, x)| e.value.is_finite() && x.is_finite())
        .collect();
    // unbounded ends are drawn to a few times the largest value
    let cap = finite.iter().map(|(e, x)| (scale * e.value).abs().max(*x)).fold(1.0, f64::max) * 3.0;
    let pts: Vec<Estimate> = finite
        .iter()
        .map(|(e, x)| Estimate {
            label: e.piece.clone(),
            x: *x,
            y: scale * e.value,
            lo: (scale * e.lo).clamp(-cap, cap),
            hi: (scale * e.hi).clamp(-cap, cap),
        })
        .collect();
    if pts.len() < 2 {
        eprintln!("fewer than two measured kinds: {} not drawn", path.display());
        let _ = std::fs::remove_file(path);
        return Ok(false);
    }
    shogilab_plot::estimates_chart(path, labels, &pts, scale == 1.0)?;
    Ok(true)
}
