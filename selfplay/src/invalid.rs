//! The error of a setting outside its range: the dotted key, the value given and what the key
//! accepts. Returned by the `validate` methods of [`crate::SearchConfig`] and
//! [`crate::SelfplayConfig`].

/// A setting outside its range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key} = {value}: {expected}")]
pub struct InvalidSetting {
    /// Dotted key, e.g. `selfplay.search.simulations`.
    pub key: String,
    /// The value given, as written in TOML.
    pub value: String,
    /// What the key accepts, e.g. `must be 1..100000`.
    pub expected: String,
}

impl InvalidSetting {
    /// A setting `key` that has `value` but must be `expected`.
    pub fn new(key: &str, value: impl std::fmt::Display, expected: &str) -> InvalidSetting {
        InvalidSetting { key: key.to_string(), value: value.to_string(), expected: expected.into() }
    }

    /// The same error with its key placed under `section` (`search.x` -> `selfplay.search.x`).
    pub fn within(mut self, section: &str) -> InvalidSetting {
        self.key = format!("{section}.{}", self.key);
        self
    }
}
