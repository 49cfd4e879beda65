//! The evaluator file (`.psq`): what the engine loads and the trainer writes.
//!
//! Layout, little-endian:
//! 1. the magic `SHOGILAB-PSQ\0` (13 bytes) and the format version (u32, now 1);
//! 2. the header's length (u32) and the header, JSON: `variant` (name), `feature_set`
//!    (`psq-v1`), `types` and `squares` (the board table's shape), `hands`, `pieces` (the
//!    variant's piece tokens joined by spaces: a variant of the same name with other pieces is
//!    refused), `scale` (centipawns per logit), `tempo`, and `source` (free text: how it was made);
//! 3. the board weights (`types × squares` i32) then the hand weights (`hands` i32);
//! 4. the CRC-32 of everything before it (u32).
//!
//! Every fault is named: a file of another variant or feature set, a wrong shape, a truncated
//! or corrupted file. Files are written to a temporary name and renamed.

use super::{Psq, FEATURE_SET};
use serde::{Deserialize, Serialize};
use shogilab_engine::Variant;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MAGIC: &[u8; 13] = b"SHOGILAB-PSQ\0";
const VERSION: u32 = 1;

/// The JSON header of an evaluator file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Header {
    pub variant: String,
    pub feature_set: String,
    pub types: usize,
    pub squares: usize,
    pub hands: usize,
    pub pieces: String,
    pub scale: f32,
    pub tempo: i32,
    pub source: String,
}

/// Why an evaluator file cannot be used; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: not a shogilab evaluator file (no SHOGILAB-PSQ magic)")]
    Magic { path: PathBuf },
    #[error("{path}: format version {found}, this build reads version {VERSION}")]
    Version { path: PathBuf, found: u32 },
    #[error("{path}: truncated ({len} bytes; {needed} needed for {what})")]
    Truncated { path: PathBuf, len: usize, needed: usize, what: &'static str },
    #[error("{path}: checksum mismatch (stored {stored:08x}, computed {computed:08x}): the file is corrupted")]
    Checksum { path: PathBuf, stored: u32, computed: u32 },
    #[error("{path}: bad header: {reason}")]
    Header { path: PathBuf, reason: String },
    #[error("{path}: an evaluator for {found}, not {expected}")]
    Variant { path: PathBuf, found: String, expected: String },
    #[error("{path}: feature set {found}, this engine computes {FEATURE_SET}")]
    FeatureSet { path: PathBuf, found: String },
    #[error("{path}: {field} is {found} in the file, {expected} in the variant {variant}")]
    Shape { path: PathBuf, field: &'static str, found: String, expected: String, variant: String },
}

/// The header that `psq` would be written with.
pub fn header_of(psq: &Psq, source: &str) -> Header {
    let v = psq.variant();
    Header {
        variant: v.name.clone(),
        feature_set: FEATURE_SET.into(),
        types: v.types.len(),
        squares: v.squares.len(),
        hands: v.hand_types.len(),
        pieces: piece_tokens(v),
        scale: psq.scale(),
        tempo: psq.tempo(),
        source: source.into(),
    }
}

fn piece_tokens(v: &Variant) -> String {
    v.types.iter().map(|t| t.token.as_str()).collect::<Vec<_>>().join(" ")
}

/// The file's bytes.
pub fn to_bytes(psq: &Psq, source: &str) -> Vec<u8> {
    let header = serde_json::to_vec(&header_of(psq, source)).expect("a header serialises");
    let mut out = Vec::with_capacity(64 + header.len() + 4 * psq.board_weights().len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    for w in psq.board_weights().iter().chain(psq.hand_weights()) {
        out.extend_from_slice(&w.to_le_bytes());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Write `psq` to `path` (through a temporary name, renamed when complete).
pub fn save(psq: &Psq, path: &Path, source: &str) -> Result<(), FileError> {
    let io = |source| FileError::Io { path: path.to_path_buf(), source };
    let tmp = path.with_extension("psq.tmp");
    std::fs::write(&tmp, to_bytes(psq, source)).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// Read an evaluator for `variant` from `path`.
pub fn load(variant: &Arc<Variant>, path: &Path) -> Result<(Psq, Header), FileError> {
    let bytes =
        std::fs::read(path).map_err(|source| FileError::Io { path: path.into(), source })?;
    from_bytes(variant, &bytes, path)
}

/// A little-endian reader that names what it ran out on.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], FileError> {
        let end = self.at + n;
        if end > self.bytes.len() {
            let (path, len) = (self.path.to_path_buf(), self.bytes.len());
            return Err(FileError::Truncated { path, len, needed: end, what });
        }
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, FileError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().expect("4 bytes")))
    }

    fn i32s(&mut self, n: usize, what: &'static str) -> Result<Vec<i32>, FileError> {
        let raw = self.take(4 * n, what)?;
        Ok(raw
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect())
    }
}

/// Parse the bytes of an evaluator file for `variant`; `path` names it in errors.
pub fn from_bytes(
    variant: &Arc<Variant>,
    bytes: &[u8],
    path: &Path,
) -> Result<(Psq, Header), FileError> {
    let p = || path.to_path_buf();
    let mut r = Reader { bytes, at: 0, path };
    if r.take(MAGIC.len(), "the magic").map_err(|_| FileError::Magic { path: p() })? != MAGIC {
        return Err(FileError::Magic { path: p() });
    }
    let version = r.u32("the version")?;
    if version != VERSION {
        return Err(FileError::Version { path: p(), found: version });
    }
    let len = r.u32("the header length")? as usize;
    let header: Header = serde_json::from_slice(r.take(len, "the header")?)
        .map_err(|e| FileError::Header { path: p(), reason: e.to_string() })?;
    check_header(&header, variant, path)?;
    let board = r.i32s(header.types * header.squares, "the board weights")?;
    let hand = r.i32s(header.hands, "the hand weights")?;
    let body = r.at;
    let stored = r.u32("the checksum")?;
    let computed = crc32fast::hash(&bytes[..body]);
    if stored != computed {
        return Err(FileError::Checksum { path: p(), stored, computed });
    }
    if r.at != bytes.len() {
        return Err(FileError::Header {
            path: p(),
            reason: format!("{} bytes after the checksum", bytes.len() - r.at),
        });
    }
    let psq = Psq::new(Arc::clone(variant), board, hand, header.tempo, header.scale)
        .map_err(|e| FileError::Header { path: p(), reason: e.to_string() })?;
    if !(header.scale.is_finite() && header.scale > 0.0) {
        return Err(FileError::Header {
            path: p(),
            reason: format!("scale {} is not positive", header.scale),
        });
    }
    Ok((psq, header))
}

fn check_header(h: &Header, v: &Variant, path: &Path) -> Result<(), FileError> {
    if h.variant != v.name {
        return Err(FileError::Variant {
            path: path.into(),
            found: h.variant.clone(),
            expected: v.name.clone(),
        });
    }
    if h.feature_set != FEATURE_SET {
        return Err(FileError::FeatureSet { path: path.into(), found: h.feature_set.clone() });
    }
    let shape = |field, found: String, expected: String| {
        if found == expected {
            Ok(())
        } else {
            Err(FileError::Shape {
                path: path.into(),
                field,
                found,
                expected,
                variant: v.name.clone(),
            })
        }
    };
    shape("types", h.types.to_string(), v.types.len().to_string())?;
    shape("squares", h.squares.to_string(), v.squares.len().to_string())?;
    shape("hands", h.hands.to_string(), v.hand_types.len().to_string())?;
    shape("pieces", h.pieces.clone(), piece_tokens(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chu() -> (Arc<Variant>, Psq) {
        let v = Variant::builtin("chu").unwrap();
        let values: Vec<f32> = (0..v.types.len()).map(|i| 1.0 + i as f32 * 0.25).collect();
        let psq = Psq::from_values(Arc::clone(&v), &values, 650.0);
        (v, psq)
    }

    #[test]
    fn a_written_file_reads_back_the_same_weights() {
        let (v, psq) = chu();
        let bytes = to_bytes(&psq, "test");
        let (back, header) = from_bytes(&v, &bytes, Path::new("x.psq")).unwrap();
        assert_eq!(back.board_weights(), psq.board_weights());
        assert_eq!(back.hand_weights(), psq.hand_weights());
        assert_eq!((header.variant.as_str(), header.source.as_str()), ("chu", "test"));
        assert_eq!(back.scale(), 650.0);
    }

    #[test]
    fn every_fault_of_a_file_is_named() {
        let (v, psq) = chu();
        let bytes = to_bytes(&psq, "test");
        let err = |b: &[u8], var: &Arc<Variant>| {
            from_bytes(var, b, Path::new("e.psq")).unwrap_err().to_string()
        };
        let truncated = err(&bytes[..bytes.len() - 9], &v);
        assert!(truncated.contains("e.psq: truncated"), "{truncated}");
        let mut flipped = bytes.clone();
        let n = flipped.len();
        flipped[n - 20] ^= 1;
        assert!(err(&flipped, &v).contains("checksum mismatch"));
        assert!(err(b"hello", &v).contains("no SHOGILAB-PSQ magic"));
        let shogi = Variant::builtin("shogi").unwrap();
        assert!(err(&bytes, &shogi).contains("an evaluator for chu, not shogi"));
        let mut b = bytes.clone();
        let at = b.windows(FEATURE_SET.len()).position(|w| w == FEATURE_SET.as_bytes()).unwrap();
        b[at + FEATURE_SET.len() - 1] = b'9';
        assert!(err(&b, &v).contains("feature set psq-v9"), "{}", err(&b, &v));
    }
}
