//! `shogilab sfen`: print a position.

use super::VariantArgs;
use anyhow::Result;
use clap::Args;
use shogilab_engine::Position;

#[derive(Args)]
pub struct SfenArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Parse and re-print this SFEN (checks it) instead of the start position.
    #[arg(long)]
    pub sfen: Option<String>,
    /// Also print a board diagram.
    #[arg(long)]
    pub board: bool,
}

pub fn run(a: SfenArgs) -> Result<()> {
    let v = a.variant.load()?;
    let pos = match &a.sfen {
        Some(s) => Position::from_sfen(&v, s)?,
        None => Position::start(&v),
    };
    if a.board {
        print!("{}", pos.diagram());
    }
    println!("{}", pos.to_sfen());
    Ok(())
}
