//! The `shogilab` command line as a library: the engine-only commands ([`engine_cmds`]), shared
//! by the `shogilab` front binary (no libtorch) and `shogilab-full` (every command).

// The argument structs' doc comments are clap's help texts, where `[:DEPTH]` and `[options]`
// mean optional parts, not links.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

pub mod engine_cmds;
