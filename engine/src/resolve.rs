//! Spec resolution: `extends` (inherit a built-in variant or another file) and `[options]`
//! (named alternative rules), applied on the TOML tables before typed deserialisation.
//!
//! Merge rules: top-level keys of the child replace the parent's; `rules` and `options` merge
//! key by key; `[[piece]]` entries merge by `code` (fields of the child win, `remove = true`
//! deletes the piece, new codes are appended).

use crate::error::{EngineError, Result};
use crate::spec::VariantSpec;
use toml::{Table, Value};

/// Built-in variant files, embedded in the binary.
pub const BUILTIN: &[(&str, &str)] = &[
    ("shogi", include_str!("../../configs/variants/shogi.toml")),
    ("chu", include_str!("../../configs/variants/chu.toml")),
    ("tenjiku", include_str!("../../configs/variants/tenjiku.toml")),
    ("tai", include_str!("../../configs/variants/tai.toml")),
];

/// Map a user-facing variant name (including lishogi's names) to a built-in one.
pub fn builtin_name(name: &str) -> Option<&'static str> {
    match name.to_ascii_lowercase().as_str() {
        "shogi" | "standard" => Some("shogi"),
        "chu" | "chushogi" | "chu-shogi" => Some("chu"),
        "tenjiku" | "tenjikushogi" | "tenjiku-shogi" => Some("tenjiku"),
        "tai" | "taishogi" | "tai-shogi" => Some("tai"),
        _ => None,
    }
}

fn spec_err(source: &str, msg: impl Into<String>) -> EngineError {
    EngineError::Spec { origin: source.to_string(), errors: vec![msg.into()] }
}

/// The text of a built-in variant.
pub fn builtin_text(name: &str) -> Option<&'static str> {
    let n = builtin_name(name)?;
    BUILTIN.iter().find(|(k, _)| *k == n).map(|(_, t)| *t)
}

fn load_table(source: &str, text: &str, depth: usize) -> Result<Table> {
    if depth > 8 {
        return Err(spec_err(source, "`extends` chain is longer than 8 (a cycle?)"));
    }
    let mut table: Table =
        text.parse().map_err(|e: toml::de::Error| spec_err(source, format!("TOML syntax: {e}")))?;
    if let Some(parent) = table.remove("extends") {
        let parent = parent
            .as_str()
            .ok_or_else(|| spec_err(source, "`extends` must be a string"))?
            .to_string();
        let (psrc, ptext) = match builtin_text(&parent) {
            Some(t) => (format!("built-in {parent}"), t.to_string()),
            None => {
                let t = std::fs::read_to_string(&parent).map_err(|e| {
                    spec_err(
                        source,
                        format!(
                            "`extends = {parent:?}`: not a built-in variant and not readable: {e}"
                        ),
                    )
                })?;
                (parent.clone(), t)
            }
        };
        let mut base = load_table(&psrc, &ptext, depth + 1)?;
        // A child names itself; it does not inherit the parent's aliases.
        base.remove("aliases");
        merge(&mut base, table);
        table = base;
    }
    Ok(table)
}

/// Merge `child` into `base` with the rules in the module docs.
pub fn merge(base: &mut Table, child: Table) {
    for (k, v) in child {
        match (k.as_str(), base.get_mut(&k), v) {
            ("rules" | "options", Some(Value::Table(b)), Value::Table(c)) => {
                for (kk, vv) in c {
                    b.insert(kk, vv);
                }
            }
            ("piece", Some(Value::Array(b)), Value::Array(c)) => merge_pieces(b, c),
            (_, _, v) => {
                base.insert(k, v);
            }
        }
    }
}

fn merge_pieces(base: &mut Vec<Value>, child: Vec<Value>) {
    for p in child {
        let Value::Table(pt) = p else {
            base.push(p);
            continue;
        };
        let code = pt.get("code").and_then(|c| c.as_str()).map(str::to_string);
        let pos = code.as_ref().and_then(|c| {
            base.iter().position(|b| b.get("code").and_then(|x| x.as_str()) == Some(c.as_str()))
        });
        let remove = pt.get("remove").and_then(|r| r.as_bool()).unwrap_or(false);
        match (pos, remove) {
            (Some(i), true) => {
                base.remove(i);
            }
            (Some(i), false) => {
                if let Value::Table(bt) = &mut base[i] {
                    for (k, v) in pt {
                        bt.insert(k, v);
                    }
                }
            }
            (None, _) => base.push(Value::Table(pt)),
        }
    }
}

/// Resolve a spec text: `extends`, then the options (`name=value` pairs; unset ones take their
/// default). Returns the self-contained spec.
pub fn resolve(source: &str, text: &str, options: &[(String, String)]) -> Result<VariantSpec> {
    let mut table = load_table(source, text, 0)?;
    let opts = table.get("options").and_then(|o| o.as_table()).cloned().unwrap_or_default();
    for (name, _) in options {
        if !opts.contains_key(name) {
            let known: Vec<&String> = opts.keys().collect();
            return Err(spec_err(
                source,
                format!("unknown option {name:?} (this variant has: {known:?})"),
            ));
        }
    }
    let mut selected = toml::Table::new();
    for (name, opt) in &opts {
        let chosen = options.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        let default = opt.get("default").and_then(|d| d.as_str()).unwrap_or("").to_string();
        let value = chosen.unwrap_or(default);
        selected.insert(name.clone(), Value::String(value.clone()));
        let patch = opt
            .get("values")
            .and_then(|v| v.get(&value))
            .ok_or_else(|| spec_err(source, format!("option {name:?} has no value {value:?}")))?;
        if let Value::Table(p) = patch {
            let mut child = Table::new();
            if let Some(r) = p.get("rules") {
                child.insert("rules".into(), r.clone());
            }
            if let Some(pc) = p.get("pieces") {
                child.insert("piece".into(), pc.clone());
            }
            merge(&mut table, child);
        }
    }
    table.insert("selected".into(), Value::Table(selected));
    let spec: VariantSpec =
        table.try_into().map_err(|e: toml::de::Error| spec_err(source, e.message().to_string()))?;
    Ok(spec)
}
