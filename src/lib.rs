//! The `shogilab` command line as a library: the engine-only commands ([`engine_cmds`]), shared
//! by the `shogilab` front binary (no libtorch) and `shogilab-full` (every command).

pub mod engine_cmds;
