//! A child process spoken to in lines: a thread reads its stdout into a channel so that every
//! read has a deadline (`recv_timeout`) and a hung engine never blocks the caller. Exit and
//! closed pipes are reported as [`AgentError::Crashed`]; the process is killed on drop.
//! [`installed_or_skip`] is for tests that need an external engine: a missing engine is a
//! reported skip, never a silent pass.

use crate::agent::AgentError;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Environment variable naming a file to which every skipped check appends one line (set by
/// `scripts/test`, which prints the count).
pub const SKIP_LOG_ENV: &str = "SHOGILAB_SKIP_LOG";

/// For tests that need an external engine: true when `path` exists; otherwise print
/// `SKIPPED: <test>: <package> not installed (<path>; apt-get install <package>)` and append
/// that line to the file named by `SHOGILAB_SKIP_LOG`, if set, so that the skip is counted.
pub fn installed_or_skip(test: &str, path: &str, package: &str) -> bool {
    let log = std::env::var_os(SKIP_LOG_ENV).map(std::path::PathBuf::from);
    installed_or_skip_to(test, path, package, log.as_deref())
}

/// [`installed_or_skip`] with the skip log given.
fn installed_or_skip_to(
    test: &str,
    path: &str,
    package: &str,
    log: Option<&std::path::Path>,
) -> bool {
    if std::path::Path::new(path).exists() {
        return true;
    }
    let line =
        format!("SKIPPED: {test}: {package} not installed ({path}; apt-get install {package})");
    println!("{line}");
    eprintln!("{line}");
    if let Some(log) = log {
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .and_then(|mut f| writeln!(f, "{line}"));
        if let Err(e) = appended {
            eprintln!("warning: cannot append to {SKIP_LOG_ENV}={}: {e}", log.display());
        }
    }
    false
}

/// Lines of traffic kept for error messages.
const LOG_LINES: usize = 40;

/// A running engine process.
pub struct EngineProc {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<String>,
    log: VecDeque<String>,
}

impl EngineProc {
    /// Start `path` with `args`; `name` is used in error messages.
    pub fn spawn(path: &str, args: &[String], name: &str) -> Result<EngineProc, AgentError> {
        let mut child = Command::new(path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| AgentError::Spawn { engine: name.to_string(), detail: e.to_string() })?;
        let stdout = child.stdout.take().ok_or_else(|| AgentError::Spawn {
            engine: name.to_string(),
            detail: "no stdout pipe".into(),
        })?;
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name(format!("engine-reader-{name}"))
            .spawn(move || {
                let mut r = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match r.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                            if tx.send(line).is_err() {
                                break;
                            }
                        }
                    }
                }
            })
            .map_err(|e| AgentError::Spawn { engine: name.to_string(), detail: e.to_string() })?;
        Ok(EngineProc { name: name.to_string(), child, stdin, rx, log: VecDeque::new() })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn note(&mut self, s: String) {
        if self.log.len() >= LOG_LINES {
            self.log.pop_front();
        }
        self.log.push_back(s);
    }

    /// The last lines exchanged (`> ` sent, `< ` received).
    pub fn recent(&self) -> Vec<String> {
        self.log.iter().cloned().collect()
    }

    fn crashed(&mut self) -> AgentError {
        // give the exit status a moment to appear
        let mut detail = "closed its output".to_string();
        for _ in 0..20 {
            match self.child.try_wait() {
                Ok(Some(st)) => {
                    detail = format!("exited with {st}");
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(e) => {
                    detail = e.to_string();
                    break;
                }
            }
        }
        AgentError::Crashed { engine: self.name.clone(), detail }
    }

    /// Send one line.
    pub fn send(&mut self, line: &str) -> Result<(), AgentError> {
        self.note(format!("> {line}"));
        let ok = match self.stdin.as_mut() {
            Some(w) => writeln!(w, "{line}").and_then(|_| w.flush()).is_ok(),
            None => false,
        };
        if ok {
            Ok(())
        } else {
            self.stdin = None;
            Err(self.crashed())
        }
    }

    /// Next line before `deadline`; `what` names the awaited answer in the timeout error.
    pub fn recv(&mut self, deadline: Instant, what: &str, ms: u64) -> Result<String, AgentError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(line) => {
                self.note(format!("< {line}"));
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => {
                Err(AgentError::Timeout { engine: self.name.clone(), what: what.into(), ms })
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.crashed()),
        }
    }

    /// Read lines until `pred` accepts one (returned) or the timeout passes.
    pub fn wait_for(
        &mut self,
        timeout: Duration,
        what: &str,
        mut pred: impl FnMut(&str) -> bool,
    ) -> Result<String, AgentError> {
        let deadline = Instant::now() + timeout;
        let ms = timeout.as_millis() as u64;
        loop {
            let line = self.recv(deadline, what, ms)?;
            if pred(&line) {
                return Ok(line);
            }
        }
    }

    /// Drop lines already waiting (stale output of an earlier command).
    pub fn drain(&mut self) {
        while let Ok(line) = self.rx.try_recv() {
            self.note(format!("< {line}"));
        }
    }

    /// Is the process still running?
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for EngineProc {
    fn drop(&mut self) {
        if let Some(mut w) = self.stdin.take() {
            let _ = writeln!(w, "quit");
            let _ = w.flush();
        }
        for _ in 0..10 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_engine_is_a_logged_skip() {
        let dir = std::env::temp_dir().join(format!("shogilab-skips-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("skips");
        let _ = std::fs::remove_file(&log);
        assert!(!installed_or_skip_to("t1", "/nonexistent/hachu", "hachu", Some(&log)));
        assert!(!installed_or_skip_to("t2", "/nonexistent/fs", "fairy-stockfish", Some(&log)));
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            text,
            "SKIPPED: t1: hachu not installed (/nonexistent/hachu; apt-get install hachu)\n\
             SKIPPED: t2: fairy-stockfish not installed (/nonexistent/fs; apt-get install \
             fairy-stockfish)\n"
        );
        // a present file is no skip and writes nothing
        assert!(installed_or_skip_to("t3", log.to_str().unwrap(), "x", Some(&log)));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), text);
    }
}
