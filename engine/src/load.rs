//! Loading a variant: a built-in name or a TOML file is resolved ([`crate::resolve`]),
//! compiled into tables ([`crate::variant`]) and its start position parsed ([`crate::sfen`]).
//! This module sits above all three, so that the tables never depend on positions.

use crate::error::{EngineError, Result};
use crate::position::Position;
use crate::resolve;
use crate::spec::VariantSpec;
use crate::variant::Variant;
use std::sync::Arc;

impl Variant {
    /// Load a built-in variant by name (`shogi`/`standard`, `chu`/`chushogi`, `tenjiku`, `tai`).
    pub fn builtin(name: &str) -> Result<Arc<Variant>> {
        Self::builtin_with(name, &[])
    }

    /// Load a built-in variant with options (`name=value` pairs).
    pub fn builtin_with(name: &str, options: &[(String, String)]) -> Result<Arc<Variant>> {
        let text =
            resolve::builtin_text(name).ok_or_else(|| EngineError::UnknownVariant(name.into()))?;
        let origin = format!("built-in {name}");
        let spec = resolve::resolve(&origin, text, options)?;
        Self::compile(&origin, spec)
    }

    /// Load a variant by built-in name or from a TOML file path.
    pub fn load(name_or_path: &str, options: &[(String, String)]) -> Result<Arc<Variant>> {
        if resolve::builtin_name(name_or_path).is_some() {
            return Self::builtin_with(name_or_path, options);
        }
        let path = std::path::Path::new(name_or_path);
        if path.extension().and_then(|e| e.to_str()) == Some("toml") || path.exists() {
            let text = std::fs::read_to_string(path).map_err(|e| EngineError::Spec {
                origin: name_or_path.into(),
                errors: vec![format!("cannot read file: {e}")],
            })?;
            let spec = resolve::resolve(name_or_path, &text, options)?;
            return Self::compile(name_or_path, spec);
        }
        Err(EngineError::UnknownVariant(name_or_path.into()))
    }

    /// Compile a resolved spec and check that its start position parses; `source` names the
    /// spec in error messages. Every fault of the tables is listed in one error; the start
    /// position is checked only when the tables compile.
    pub fn compile(source: &str, spec: VariantSpec) -> Result<Arc<Variant>> {
        let v = Arc::new(Self::compile_tables(source, spec)?);
        if let Err(e) = Position::from_sfen(&v, &v.spec.start) {
            return Err(EngineError::Spec {
                origin: source.into(),
                errors: vec![format!("start position: {e}")],
            });
        }
        Ok(v)
    }
}
