//! `shogilab-full`: every `shogilab` subcommand, networks included (links libtorch). Each
//! subcommand beyond the engine-only ones lives in `cli/`; the `shogilab` front binary hands it
//! every command it does not run itself.

mod cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    if let Err(e) = cli::run(args) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
