//! The `shogilab` command line as a library: the engine-only commands ([`engine_cmds`]), shared
//! by the `shogilab` front binary (no libtorch) and `shogilab-full` (every command).

// The argument structs' doc comments are clap's help texts, where `[:DEPTH]` and `[options]`
// mean optional parts, not links.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

pub mod engine_cmds;

/// An error and its causes on one line, as `error: ...` prints it: each cause is appended
/// after `: ` unless the message so far already says it (most errors of the libraries quote
/// their cause in their own message).
pub fn error_line(e: &anyhow::Error) -> String {
    let mut line = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !line.contains(&c) {
            line.push_str(": ");
            line.push_str(&c);
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::error_line;

    #[derive(Debug, thiserror::Error)]
    #[error("reading {path}: {source}")]
    struct Quoting {
        path: String,
        source: std::io::Error,
    }

    #[test]
    fn a_cause_already_quoted_is_not_repeated() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(Quoting { path: "a.toml".into(), source: io() });
        assert_eq!(error_line(&e), "reading a.toml: no such file");
        let e = anyhow::Error::new(io()).context("loading the run");
        assert_eq!(error_line(&e), "loading the run: no such file");
    }
}
