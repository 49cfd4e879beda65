//! Files written whole or not at all.
//!
//! Every output of shogilab (Parquet shards, checkpoints, reports, charts, configs) goes through
//! [`write_atomic`] or [`AtomicFile`]: the bytes go to a temporary file in the destination's
//! folder, which is flushed to disk (`fsync`) and renamed over the destination, and the folder
//! itself is flushed so that the rename survives a power failure. A reader therefore sees either
//! the old file or the complete new one, never a prefix; a failed write leaves the destination
//! untouched and removes the temporary file.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A failed atomic write, naming the destination.
#[derive(Debug, thiserror::Error)]
pub enum FsioError {
    /// Creating, writing, flushing or renaming the temporary file failed.
    #[error("writing {path}: {source}")]
    Io {
        /// The destination that was being written.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> FsioError + '_ {
    move |source| FsioError::Io { path: path.to_path_buf(), source }
}

/// The folder a path lives in (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// A file being written under a temporary name beside its destination; [`AtomicFile::commit`]
/// puts it in place. Dropped without `commit`, it is removed and the destination is untouched.
pub struct AtomicFile {
    dest: PathBuf,
    tmp: tempfile::NamedTempFile,
}

impl AtomicFile {
    /// Start writing `dest` (its folder is created if missing).
    pub fn create(dest: &Path) -> Result<AtomicFile, FsioError> {
        let dir = parent_dir(dest);
        std::fs::create_dir_all(dir).map_err(io_err(dest))?;
        let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // The destination's extension stays last: writers that pick a format by extension
        // (image encoders) see the same one.
        let ext = dest.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
        // 0o666 less the umask, as `File::create` would (not tempfile's private 0o600)
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o666);
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(&format!(".tmp{ext}"))
            .permissions(mode)
            .tempfile_in(dir)
            .map_err(io_err(dest))?;
        Ok(AtomicFile { dest: dest.to_path_buf(), tmp })
    }

    /// The path of the temporary file (for writers that want a path, such as chart renderers).
    pub fn temp_path(&self) -> &Path {
        self.tmp.path()
    }

    /// The open temporary file.
    pub fn file(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// Flush the temporary file to disk, rename it over the destination and flush the folder.
    pub fn commit(self) -> Result<(), FsioError> {
        let AtomicFile { dest, tmp } = self;
        tmp.as_file().sync_all().map_err(io_err(&dest))?;
        tmp.persist(&dest).map_err(|e| FsioError::Io { path: dest.clone(), source: e.error })?;
        sync_dir(parent_dir(&dest)).map_err(io_err(&dest))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.tmp.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

/// Flush a folder's entries (the rename) to disk; a no-op where folders cannot be opened.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    match File::open(dir) {
        Ok(f) => f.sync_all().or_else(|e| {
            // Some file systems refuse fsync on a folder; the rename itself has happened.
            if e.kind() == std::io::ErrorKind::InvalidInput {
                Ok(())
            } else {
                Err(e)
            }
        }),
        Err(_) => Ok(()),
    }
}

/// Write `contents` to `path` atomically (see the module documentation).
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), FsioError> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(contents).map_err(io_err(path))?;
    f.commit()
}

/// Write through a closure that receives a temporary path (for libraries that only write to a
/// path); the file is renamed into place when the closure succeeds. The temporary file has the
/// destination's own name, inside a temporary folder beside it, so that formats that record
/// their file name (libtorch's archives name their root folder after it) or choose by
/// extension (image encoders) see the real one.
pub fn write_atomic_with<E>(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<Result<(), E>, FsioError> {
    let dir = parent_dir(path);
    std::fs::create_dir_all(dir).map_err(io_err(path))?;
    let name = path.file_name().unwrap_or(path.as_os_str());
    let folder = tempfile::Builder::new()
        .prefix(&format!(".{}.", name.to_string_lossy()))
        .suffix(".tmp")
        .tempdir_in(dir)
        .map_err(io_err(path))?;
    let tmp = folder.path().join(name);
    if let Err(e) = write(&tmp) {
        return Ok(Err(e));
    }
    File::open(&tmp).and_then(|f| f.sync_all()).map_err(io_err(path))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))?;
    sync_dir(dir).map_err(io_err(path))?;
    Ok(Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub").join("a.txt");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second, longer");
        let names: Vec<_> = std::fs::read_dir(p.parent().unwrap()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the destination remains");
        // readable by others as a plainly created file is (under the usual umask 022)
        use std::os::unix::fs::PermissionsExt;
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), mode(&plain));
    }

    #[test]
    fn dropped_writer_leaves_destination_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        write_atomic(&p, b"kept").unwrap();
        {
            let mut f = AtomicFile::create(&p).unwrap();
            f.write_all(b"partial").unwrap();
        }
        assert_eq!(std::fs::read(&p).unwrap(), b"kept");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn failing_closure_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("chart.png");
        let r = write_atomic_with(&p, |_tmp| Err::<(), _>("render failed")).unwrap();
        assert_eq!(r, Err("render failed"));
        assert!(!p.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn temporary_keeps_the_extension() {
        let dir = tempfile::tempdir().unwrap();
        let f = AtomicFile::create(&dir.path().join("chart.png")).unwrap();
        let tmp = f.temp_path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(tmp.starts_with(".chart.png.") && tmp.ends_with(".tmp.png"), "{tmp}");
    }

    #[test]
    fn unwritable_destination_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, b"x").unwrap();
        let err = write_atomic(&blocker.join("inside.txt"), b"y").unwrap_err();
        assert!(err.to_string().contains("inside.txt"), "{err}");
    }
}
