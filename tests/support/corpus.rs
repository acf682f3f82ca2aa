//! The shared corpus (`../shared/corpus/`, see its MANIFEST.md) for the tests that read it: a
//! notice and a skip when it is absent (a fresh clone), a failure when `CI=true`.

use std::path::PathBuf;

/// The corpus folder, or `None` after printing that `what` is skipped.
pub fn corpus(what: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("the corpus is missing at {} and CI=true", dir.display());
    }
    eprintln!("notice: {} is absent; {what} skipped", dir.display());
    None
}
