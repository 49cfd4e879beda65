//! `shogilab-full`: every `shogilab` subcommand, networks included (links libtorch). Each
//! subcommand beyond the engine-only ones lives in `cli/`; the `shogilab` front binary hands it
//! every command it does not run itself.

// The argument structs' doc comments are clap's help texts: `[:DEPTH]` is an optional part and
// `<variant>` a placeholder, not links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

mod cli;

use clap::Parser;

fn main() {
    let args = cli::Cli::parse();
    if let Err(e) = cli::run(args) {
        eprintln!("error: {}", shogilab_cli::error_line(&e));
        std::process::exit(1);
    }
}
