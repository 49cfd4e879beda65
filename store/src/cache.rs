//! Checkpoints (and other immutable files with a sidecar) by content hash.
//!
//! [`publish`] stores a file and its sidecar (a checkpoint's `.ot` and `.json`) in a location
//! under the SHA-256 of the file, `<hex>.ot` + `<hex>.json`, so that a name never stands for two
//! contents. [`fetch`] makes such a URL a local path: a folder's file is used where it is; a
//! bucket object is downloaded once per machine into `$SHOGILAB_CACHE/objects/` (default
//! `~/.cache/shogilab/objects/`), checked against the hash in its name, and later fetches of the
//! same name read the cache without a request. Objects not named by a hash are downloaded
//! every time (into the cache, under their content hash).

use crate::{Store, StoreError};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The cache folder of fetched objects.
pub fn cache_dir() -> PathBuf {
    let root = std::env::var_os("SHOGILAB_CACHE").map(PathBuf::from).unwrap_or_else(|| {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
        home.join(".cache").join("shogilab")
    });
    root.join("objects")
}

/// The SHA-256 of some bytes, in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether a file stem is a SHA-256 in lower-case hex.
fn is_hash(stem: &str) -> bool {
    stem.len() == 64 && stem.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A URL's location and file name, and the name's stem and extension.
fn split(url: &str) -> Result<(&str, &str, &str, &str), StoreError> {
    let bad = |reason: &str| StoreError::Url { url: url.into(), reason: reason.into() };
    let (location, name) = url.rsplit_once('/').ok_or_else(|| bad("no file name"))?;
    let (stem, ext) = name.rsplit_once('.').ok_or_else(|| bad("no file extension"))?;
    Ok((location, name, stem, ext))
}

/// Store `file` and its sidecar (same stem, extension `sidecar_ext`) in `to` under the file's
/// content hash; returns the URL of the stored file. Nothing is written when both exist.
pub fn publish(file: &Path, sidecar_ext: &str, to: &Store) -> Result<String, StoreError> {
    let read = |p: &Path| {
        std::fs::read(p).map_err(|e| StoreError::Io { url: p.display().to_string(), source: e })
    };
    let bytes = read(file)?;
    let sidecar = read(&file.with_extension(sidecar_ext))?;
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("bin");
    let hash = sha256_hex(&bytes);
    let (name, side) = (format!("{hash}.{ext}"), format!("{hash}.{sidecar_ext}"));
    if !(to.exists(&name)? && to.exists(&side)?) {
        to.put(&side, sidecar)?;
        to.put(&name, bytes)?;
    }
    Ok(to.url_of(&name))
}

/// A local path for `url` with its sidecar beside it (see the module documentation); a plain
/// path is returned as it is.
pub fn fetch(url: &str, sidecar_ext: &str) -> Result<PathBuf, StoreError> {
    if !url.contains("://") {
        return Ok(PathBuf::from(url));
    }
    let (location, name, stem, ext) = split(url)?;
    let cache = cache_dir();
    let cached = |hash: &str| cache.join(format!("{hash}.{ext}"));
    let hit = cached(stem);
    // a name that is a hash names one content: no request when the cache holds it
    if is_hash(stem) && hit.is_file() && hit.with_extension(sidecar_ext).is_file() {
        return Ok(hit);
    }
    let store = Store::open(location)?;
    if let Some(dir) = store.local_dir() {
        return Ok(dir.join(name));
    }
    let missing = || StoreError::Url { url: url.into(), reason: "no such object".into() };
    let bytes = store.get(name)?.ok_or_else(missing)?;
    let side_name = format!("{stem}.{sidecar_ext}");
    let sidecar = store.get(&side_name)?.ok_or_else(|| StoreError::Url {
        url: store.url_of(&side_name),
        reason: "no such object (the sidecar of the file)".into(),
    })?;
    let hash = sha256_hex(&bytes);
    if is_hash(stem) && hash != stem {
        return Err(StoreError::Url {
            url: url.into(),
            reason: format!("its content has SHA-256 {hash}, not the one of its name"),
        });
    }
    let path = cached(&hash);
    shogilab_fsio::write_atomic(&path.with_extension(sidecar_ext), &sidecar)?;
    shogilab_fsio::write_atomic(&path, &bytes)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_file_is_named_by_its_hash_and_fetched_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("gen-0003.ot");
        std::fs::write(&file, b"weights").unwrap();
        std::fs::write(dir.path().join("gen-0003.json"), b"{}").unwrap();
        let to = Store::folder(dir.path().join("checkpoints"));
        let url = publish(&file, "json", &to).unwrap();
        let hash = sha256_hex(b"weights");
        assert!(url.ends_with(&format!("checkpoints/{hash}.ot")), "{url}");
        assert_eq!(to.list().unwrap(), [format!("{hash}.json"), format!("{hash}.ot")]);
        assert_eq!(publish(&file, "json", &to).unwrap(), url, "publishing again changes nothing");
        let local = fetch(&url, "json").unwrap();
        assert_eq!(local, dir.path().join("checkpoints").join(format!("{hash}.ot")), "no copy");
        assert_eq!(std::fs::read(&local).unwrap(), b"weights");
        assert!(fetch("s3://", "json").is_err());
    }
}
