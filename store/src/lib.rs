//! Run data at a URL: a local folder or S3-compatible object storage.
//!
//! A [`Store`] is one location: a folder (`runs/x`, `/abs/path`, `file:///abs/path`) or a
//! prefix in a bucket (`s3://bucket/prefix`). Both hold flat objects by name, written whole:
//! [`Store::put`] goes through [`shogilab_fsio::write_atomic`] in a folder (temporary file,
//! rename) and through one PUT in a bucket (S3 makes an object visible only once complete), so a
//! reader never sees part of an object, and a killed writer leaves nothing or a temporary file
//! whose name readers ignore.
//!
//! S3 settings come from the usual AWS environment variables (`AWS_ENDPOINT_URL`,
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, ...);
//! requests are path-style, and an `http://` endpoint (a server on the same machine or network)
//! is allowed. Opening a bucket location lists it once, so that an unreachable endpoint, wrong
//! credentials or a missing bucket fail at once with the URL named, before any work is done.
//! Failed requests are retried a few times over at most [`RETRY_SECONDS`] seconds.

pub mod cache;
pub mod task;

pub use object_store::aws::AmazonS3ConfigKey;
pub use task::{Task, TaskError};

use futures_util::TryStreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path as ObjectPath;
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt, PutPayload, RetryConfig};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long a failing request is retried before its error is reported.
pub const RETRY_SECONDS: u64 = 20;

/// A location that cannot be opened, read or written, naming its URL.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{url}: {reason}")]
    Url { url: String, reason: String },
    #[error("{url}: {source}")]
    Io {
        url: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{url}: {source}")]
    Remote {
        url: String,
        #[source]
        source: object_store::Error,
    },
    #[error(transparent)]
    Write(#[from] shogilab_fsio::FsioError),
}

/// An S3 bucket and the runtime its requests run on.
struct Bucket {
    client: Arc<dyn ObjectStore>,
    runtime: tokio::runtime::Runtime,
}

/// Where a [`Store`]'s objects live.
#[derive(Clone)]
enum Backend {
    Folder(PathBuf),
    S3 { bucket: Arc<Bucket>, prefix: String },
}

/// One location: a folder or a bucket prefix (see the module documentation).
#[derive(Clone)]
pub struct Store {
    url: String,
    backend: Backend,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Store({})", self.url)
    }
}

impl Store {
    /// Open a location; a bucket location is listed once to check the endpoint, the
    /// credentials and the bucket.
    pub fn open(url: &str) -> Result<Store, StoreError> {
        let url = url.trim_end_matches('/');
        if let Some(rest) = url.strip_prefix("s3://") {
            return open_s3(url, rest);
        }
        if let Some(path) = url.strip_prefix("file://") {
            return Ok(Store::folder(path));
        }
        if let Some((scheme, _)) = url.split_once("://") {
            return Err(StoreError::Url {
                url: url.into(),
                reason: format!(
                    "unsupported scheme {scheme:?}: expected a folder, file:// or s3://"
                ),
            });
        }
        if url.is_empty() {
            return Err(StoreError::Url { url: url.into(), reason: "empty location".into() });
        }
        Ok(Store::folder(url))
    }

    /// A local folder (which need not exist yet).
    pub fn folder(path: impl Into<PathBuf>) -> Store {
        let path = path.into();
        Store { url: path.display().to_string(), backend: Backend::Folder(path) }
    }

    /// The location's URL (a folder's path as given).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The URL of an object of this location.
    pub fn url_of(&self, name: &str) -> String {
        format!("{}/{name}", self.url)
    }

    /// The folder, for a local location.
    pub fn local_dir(&self) -> Option<&Path> {
        match &self.backend {
            Backend::Folder(p) => Some(p),
            Backend::S3 { .. } => None,
        }
    }

    /// The names of the objects directly in this location (not in locations inside it), sorted;
    /// an absent folder or prefix holds none.
    pub fn list(&self) -> Result<Vec<String>, StoreError> {
        let mut names = match &self.backend {
            Backend::Folder(dir) => list_folder(dir).map_err(|e| self.io(e))?,
            Backend::S3 { bucket, prefix } => {
                let prefix = ObjectPath::from(prefix.as_str());
                let listing = bucket
                    .runtime
                    .block_on(bucket.client.list_with_delimiter(Some(&prefix)))
                    .map_err(|e| self.remote(e))?;
                listing
                    .objects
                    .iter()
                    .filter_map(|o| o.location.filename().map(String::from))
                    .collect()
            }
        };
        names.sort();
        Ok(names)
    }

    /// An object's bytes, or `None` when there is no such object.
    pub fn get(&self, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match &self.backend {
            Backend::Folder(dir) => match std::fs::read(dir.join(name)) {
                Ok(b) => Ok(Some(b)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(StoreError::Io { url: self.url_of(name), source: e }),
            },
            Backend::S3 { bucket, prefix } => {
                let key = key_of(prefix, name);
                let got = bucket.runtime.block_on(async {
                    let r = bucket.client.get(&key).await?;
                    r.bytes().await
                });
                Ok(self.found(name, got)?.map(|b| b.to_vec()))
            }
        }
    }

    /// Whether an object exists.
    pub fn exists(&self, name: &str) -> Result<bool, StoreError> {
        match &self.backend {
            Backend::Folder(dir) => Ok(dir.join(name).is_file()),
            Backend::S3 { bucket, prefix } => {
                let head = bucket.runtime.block_on(bucket.client.head(&key_of(prefix, name)));
                Ok(self.found(name, head)?.is_some())
            }
        }
    }

    /// Write an object whole, replacing any object of that name (see the module documentation).
    pub fn put(&self, name: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Folder(dir) => Ok(shogilab_fsio::write_atomic(&dir.join(name), &bytes)?),
            Backend::S3 { bucket, prefix } => {
                let key = key_of(prefix, name);
                bucket
                    .runtime
                    .block_on(bucket.client.put(&key, PutPayload::from(bytes)))
                    .map(|_| ())
                    .map_err(|e| StoreError::Remote { url: self.url_of(name), source: e })
            }
        }
    }

    /// Remove an object (nothing happens when there is none).
    pub fn delete(&self, name: &str) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Folder(dir) => match std::fs::remove_file(dir.join(name)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(StoreError::Io { url: self.url_of(name), source: e })
                }
                _ => Ok(()),
            },
            Backend::S3 { bucket, prefix } => {
                let deleted = bucket.runtime.block_on(bucket.client.delete(&key_of(prefix, name)));
                self.found(name, deleted).map(|_| ())
            }
        }
    }

    /// A request's outcome for object `name`: `None` when there is no such object.
    fn found<T>(
        &self,
        name: &str,
        outcome: Result<T, object_store::Error>,
    ) -> Result<Option<T>, StoreError> {
        match outcome {
            Ok(x) => Ok(Some(x)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(source) => Err(StoreError::Remote { url: self.url_of(name), source }),
        }
    }

    fn io(&self, source: std::io::Error) -> StoreError {
        StoreError::Io { url: self.url.clone(), source }
    }

    fn remote(&self, source: object_store::Error) -> StoreError {
        StoreError::Remote { url: self.url.clone(), source }
    }
}

/// The key of object `name` under `prefix` (no leading `/` when the prefix is empty).
fn key_of(prefix: &str, name: &str) -> ObjectPath {
    if prefix.is_empty() {
        ObjectPath::from(name)
    } else {
        ObjectPath::from(format!("{prefix}/{name}"))
    }
}

/// The file names in a folder (an absent folder has none).
fn list_folder(dir: &Path) -> std::io::Result<Vec<String>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            if let Some(n) = entry.file_name().to_str() {
                names.push(n.to_string());
            }
        }
    }
    Ok(names)
}

/// The endpoint the AWS environment names, if any.
fn endpoint_from_env() -> Option<String> {
    ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
}

/// The S3 settings that differ from what another reader (polars' scans) takes from the same
/// environment: the endpoint under any of the names this module reads, path-style requests,
/// and plain HTTP when the endpoint is `http://`.
pub fn s3_settings() -> Vec<(AmazonS3ConfigKey, String)> {
    let mut settings = vec![(AmazonS3ConfigKey::VirtualHostedStyleRequest, "false".to_string())];
    if let Some(endpoint) = endpoint_from_env() {
        let http = endpoint.starts_with("http://");
        settings.push((AmazonS3ConfigKey::Endpoint, endpoint));
        if http {
            settings.push((
                AmazonS3ConfigKey::Client(object_store::ClientConfigKey::AllowHttp),
                "true".into(),
            ));
        }
    }
    settings
}

/// `s3://bucket/prefix`: the client from the environment, checked with one listing.
fn open_s3(url: &str, rest: &str) -> Result<Store, StoreError> {
    let bad = |reason: &str| StoreError::Url { url: url.into(), reason: reason.into() };
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(bad("no bucket name (expected s3://bucket/prefix)"));
    }
    let allow_http = endpoint_from_env().is_some_and(|e| e.starts_with("http://"));
    let options = ClientOptions::new()
        .with_allow_http(allow_http)
        .with_connect_timeout(Duration::from_secs(5))
        .with_timeout(Duration::from_secs(120));
    let retry = RetryConfig {
        max_retries: 3,
        retry_timeout: Duration::from_secs(RETRY_SECONDS),
        ..Default::default()
    };
    let client = AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .with_virtual_hosted_style_request(false)
        .with_client_options(options)
        .with_retry(retry)
        .build()
        .map_err(|e| StoreError::Remote { url: url.into(), source: e })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StoreError::Io { url: url.into(), source: e })?;
    let bucket = Arc::new(Bucket { client: Arc::new(client), runtime });
    let store = Store {
        url: url.into(),
        backend: Backend::S3 { bucket, prefix: prefix.trim_matches('/').to_string() },
    };
    store.check()?;
    Ok(store)
}

impl Store {
    /// One request that fails when the endpoint, the credentials or the bucket are wrong.
    fn check(&self) -> Result<(), StoreError> {
        if let Backend::S3 { bucket, prefix } = &self.backend {
            let prefix = ObjectPath::from(prefix.as_str());
            bucket
                .runtime
                .block_on(async {
                    let mut stream = bucket.client.list(Some(&prefix));
                    stream.try_next().await
                })
                .map_err(|e| self.remote(e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_holds_whole_objects_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let sub = Store::open(&format!("file://{}/games/chu", dir.path().display())).unwrap();
        assert_eq!(sub.list().unwrap(), Vec::<String>::new(), "an absent folder is empty");
        assert_eq!(sub.get("a").unwrap(), None);
        sub.put("b.parquet", b"two".to_vec()).unwrap();
        sub.put("a.parquet", b"one".to_vec()).unwrap();
        sub.put("a.parquet", b"uno".to_vec()).unwrap();
        std::fs::create_dir(dir.path().join("games/chu/inner")).unwrap();
        assert_eq!(sub.list().unwrap(), ["a.parquet", "b.parquet"], "files only, sorted");
        assert_eq!(sub.get("a.parquet").unwrap().as_deref(), Some(&b"uno"[..]));
        assert!(sub.exists("b.parquet").unwrap() && !sub.exists("c").unwrap());
        assert_eq!(sub.local_dir(), Some(dir.path().join("games/chu").as_path()));
        assert!(sub.url().ends_with("/games/chu"), "{}", sub.url());
    }

    #[test]
    fn bad_urls_are_refused_naming_them() {
        let e = Store::open("gs://bucket/x").unwrap_err().to_string();
        assert!(e.contains("gs://bucket/x") && e.contains("unsupported scheme"), "{e}");
        let e = Store::open("s3:///x").unwrap_err().to_string();
        assert!(e.contains("no bucket name"), "{e}");
        assert!(Store::open("").is_err());
    }
}
