//! `shogilab`: the front end. The engine-only commands (`perft`, `replay`, `playout`, `sfen`,
//! `check-variant`, `usi`/`xboard` serving an engine agent, and `values` unless it probes a
//! network) run here, in a binary that does not link libtorch, so they start in milliseconds.
//! Everything else (help and version included) is handed, with the same arguments, to
//! `shogilab-full` beside this binary, which has every command.

use clap::Parser;
use shogilab_cli::engine_cmds::{EngineCommand, NoNetworks};
use std::os::unix::process::CommandExt;
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "shogilab")]
struct Front {
    #[command(subcommand)]
    cmd: EngineCommand,
}

fn main() {
    match Front::try_parse() {
        Ok(front) if !front.cmd.needs_network() => {
            quiet_on_closed_pipe();
            if let Err(e) = front.cmd.run(Arc::new(NoNetworks)) {
                eprintln!("error: {}", shogilab_cli::error_line(&e));
                std::process::exit(1);
            }
        }
        _ => exec_full(),
    }
}

/// Let a closed output pipe end the process the way it ends other Unix tools
/// (`shogilab perft --divide | head`), instead of a panic in `println!`. The engine commands
/// only: `shogilab-full` talks to engine processes through pipes, where a peer that exits must
/// come back as an error (Rust's default, which it keeps).
fn quiet_on_closed_pipe() {
    // SAFETY: called before this process starts any thread; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Replace this process by `shogilab-full` with the same arguments.
fn exec_full() -> ! {
    let full = std::env::current_exe()
        .map(|exe| exe.with_file_name("shogilab-full"))
        .unwrap_or_else(|_| "shogilab-full".into());
    let err =
        std::process::Command::new(&full).arg0("shogilab").args(std::env::args_os().skip(1)).exec();
    eprintln!(
        "error: cannot start {}: {err} (the commands beyond the engine's live in shogilab-full, \
         which scripts/build builds beside shogilab)",
        full.display()
    );
    std::process::exit(1);
}
