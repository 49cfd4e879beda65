//! Helpers shared by the integration tests that run the `shogilab` binary.

#![allow(dead_code)] // each test file uses its own subset

use std::path::PathBuf;
use std::process::Command;

/// Run `shogilab ARGS`: success, and stdout followed by stderr.
pub fn shogilab(args: &[&str]) -> (bool, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_shogilab")).args(args).output().expect("run shogilab");
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// A fresh (removed if present) temporary path unique to this test process.
pub fn tmp(prefix: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shogilab-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
