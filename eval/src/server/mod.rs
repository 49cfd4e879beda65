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
use std::sync::mpsc::Sender;
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
    /// Where lines written while no input line is being handled go (a search running in the
    /// background: `info` lines, its `bestmove`); servers without one ignore it.
    fn attach(&mut self, _output: Sender<String>) {}
    /// The input has ended: end what runs in the background (its last lines are written).
    fn finish(&mut self) {}
}

/// Run `server` over `input` until `quit` or the end of the input. One writer thread writes
/// (and flushes) every line, the answers to input lines and the lines of background searches
/// alike, in the order they are sent.
pub fn serve(
    server: &mut dyn LineServer,
    input: impl BufRead,
    mut output: impl Write + Send,
) -> std::io::Result<()> {
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    server.attach(tx.clone());
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> std::io::Result<()> {
            for line in rx {
                writeln!(output, "{line}")?;
                output.flush()?;
            }
            Ok(())
        });
        let read = read_lines(server, input, &tx);
        server.finish();
        server.attach(std::sync::mpsc::channel().0);
        drop(tx);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the writer thread panicked")));
        read.and(written)
    })
}

fn read_lines(
    server: &mut dyn LineServer,
    input: impl BufRead,
    tx: &Sender<String>,
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
        for l in out.drain(..) {
            // the writer ends only after this loop: a send cannot fail before
            let _ = tx.send(l);
        }
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
