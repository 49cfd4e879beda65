//! `shogilab check-variant`: validate a variant spec and summarise it.

use super::parse_options;
use anyhow::Result;
use clap::Args;
use shogilab_engine::{Color, Position, Variant};

#[derive(Args)]
pub struct CheckArgs {
    /// Path to a variant TOML (or a built-in name).
    pub file: String,
    /// Variant option, NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
}

pub fn run(a: CheckArgs) -> Result<()> {
    let opts = parse_options(&a.options)?;
    let v = Variant::load(&a.file, &opts)?;
    let pos = Position::start(&v);
    let kinds = v.spec.pieces.len();
    println!("{}: OK", a.file);
    println!("  name: {} ({}x{})", v.name, v.files, v.ranks);
    println!("  piece kinds: {kinds}, piece types incl. promoted sides: {}", v.types.len());
    println!(
        "  start position: {} black, {} white pieces",
        pos.pieces(Color::Black).len(),
        pos.pieces(Color::White).len()
    );
    for (name, o) in &v.spec.options {
        let sel = v.spec.selected.get(name).cloned().unwrap_or_default();
        let vals: Vec<&String> = o.values.keys().collect();
        println!("  option {name} = {sel} (values: {vals:?})");
    }
    Ok(())
}
