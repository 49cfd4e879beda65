//! Serving an agent to a GUI or tournament manager: [`UsiServer`] (shogi, and chushogi in
//! lishogi's USI form) and [`XBoardServer`] (protocol 2, WinBoard coordinates, for chu and
//! tenjiku). Both handle one input line at a time ([`LineServer::handle`]) and [`serve`] runs
//! them over any reader and writer, so that sessions can be tested with in-memory IO.
//!
//! Malformed lines get an error message on the output (`info string error ...` for USI,
//! `Error (...): ...` for XBoard); nothing a GUI sends can make a server panic. The agent is
//! built by an [`AgentFactory`] whenever the variant changes; the GUI's time control becomes a
//! move time, and limits the agent does not honour are left out (a GUI always sends a clock).

mod usi;
mod xboard;

pub use usi::UsiServer;
pub use xboard::XBoardServer;

use crate::agent::{Agent, AgentError, LimitUse, Limits};
use shogilab_engine::{EngineError, Variant};
use std::io::{BufRead, Write};
use std::sync::Arc;

/// Builds the served agent for a variant (again after the GUI changes the variant).
pub type AgentFactory = Box<dyn FnMut(&Arc<Variant>) -> Result<Box<dyn Agent>, AgentError> + Send>;

/// Why a position command was refused.
#[derive(Debug, thiserror::Error)]
pub enum PositionError {
    #[error("position sfen without an SFEN")]
    MissingSfen,
    #[error("expected `position startpos` or `position sfen ...`")]
    BadForm,
    #[error("expected `moves`, found {0:?}")]
    ExpectedMoves(String),
    #[error("{0}")]
    Sfen(EngineError),
    #[error("move {index} ({text}): {source}")]
    Move {
        index: usize,
        text: String,
        #[source]
        source: EngineError,
    },
}

/// A protocol server that answers one line at a time.
pub trait LineServer {
    /// Handle one line, pushing the answer lines to `out`; `false` means quit.
    fn handle(&mut self, line: &str, out: &mut Vec<String>) -> bool;
    /// The answer to an input line that is not UTF-8.
    fn unreadable(&self, e: &std::io::Error) -> String;
}

/// Run `server` over `input` until `quit` or the end of the input, flushing after each line.
pub fn serve(
    server: &mut dyn LineServer,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    let mut out = Vec::new();
    for line in input.lines() {
        out.clear();
        let go_on = match line {
            Ok(l) => server.handle(l.trim(), &mut out),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                out.push(server.unreadable(&e));
                true
            }
            Err(e) => return Err(e),
        };
        for l in &out {
            writeln!(output, "{l}")?;
        }
        output.flush()?;
        if !go_on {
            break;
        }
    }
    Ok(())
}

/// `limits` without the kinds `agent` does not honour.
fn honoured(agent: &dyn Agent, limits: Limits) -> Limits {
    let s = agent.limit_support();
    let keep = |u: LimitUse| u == LimitUse::Honoured;
    Limits {
        nodes: limits.nodes.filter(|_| keep(s.nodes)),
        movetime_ms: limits.movetime_ms.filter(|_| keep(s.movetime)),
    }
}
