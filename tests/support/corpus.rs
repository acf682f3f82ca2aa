//! The shared corpus (`../shared/corpus/`, see its MANIFEST.md) for the tests that read it: a
//! notice and a skip when it is absent (a fresh clone), a failure when `CI=true`.

use std::path::{Path, PathBuf};

/// The corpus folder, or `None` after printing that `what` is skipped. Found beside the checkout
/// from the package's folder or one above it, so that the command line's tests (`cli/`) read it
/// too.
pub fn corpus(what: &str) -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let beside = |folder: &Path| folder.join("../shared/corpus");
    if let Some(dir) = manifest
        .ancestors()
        .take(2)
        .map(beside)
        .find(|d| d.is_dir())
    {
        return Some(dir);
    }
    let dir = beside(manifest);
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("the corpus is missing at {} and CI=true", dir.display());
    }
    eprintln!("notice: {} is absent; {what} skipped", dir.display());
    None
}
