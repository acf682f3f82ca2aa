//! Every file the command line writes goes through [`write_file`], so that no failure can leave a
//! cut or empty file behind, and through [`refuse_output_over_input`] first when an input could
//! be overwritten by mistake.

use std::fs::Metadata;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` so that the file holds either its old content or all of the new one,
/// whatever happens meanwhile (a full disk, a file-size limit, a kill).
///
/// The bytes go to a temporary file in the target's directory, which is flushed, synced to disk
/// and then renamed over the target; on any error the temporary file is removed and the target
/// is untouched. A file that is replaced keeps its permissions; a new one gets the usual
/// permissions of a new file (`0o666` less the umask). A symbolic link is written through: the
/// file it points to is replaced and the link stays. A target that exists but is not a regular
/// file (`/dev/stdout`, a named pipe) cannot be replaced by a rename and is written directly.
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let (target, existing) = resolve(path);
    if let Some(meta) = &existing {
        if meta.is_dir() {
            return Err(format!(
                "cannot write {}: it is a folder; name a file to write (a path inside it, or \
                 another one)",
                path.display()
            ));
        }
        if !meta.is_file() {
            return std::fs::write(&target, bytes).map_err(fail);
        }
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut builder = tempfile::Builder::new();
    builder.suffix(".tmp");
    let prefix = format!(".{name}.");
    builder.prefix(&prefix);
    #[cfg(unix)]
    let new_file_mode = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(0o666)
    };
    #[cfg(unix)]
    if existing.is_none() {
        // Passed to open(2), so the umask applies, as it does to any new file.
        builder.permissions(new_file_mode);
    }
    let mut temp = builder.tempfile_in(dir).map_err(fail)?;
    // Through the `File`, whose errors name no temporary path.
    temp.as_file_mut().write_all(bytes).map_err(fail)?;
    temp.as_file_mut().flush().map_err(fail)?;
    if let Some(meta) = &existing {
        temp.as_file()
            .set_permissions(meta.permissions())
            .map_err(fail)?;
    }
    temp.as_file().sync_all().map_err(fail)?;
    temp.persist(&target).map_err(|e| fail(e.error))?;
    sync_dir(dir);
    Ok(())
}

/// The file to replace (the end of any symbolic links) and its metadata when it exists. A
/// special file keeps the path as given: `/dev/stdout` resolves to no path when it is a pipe.
fn resolve(path: &Path) -> (PathBuf, Option<Metadata>) {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            (real, Some(meta))
        }
        Ok(meta) => (path.to_path_buf(), Some(meta)),
        // Missing (or a dangling link, which the rename then replaces): a new file.
        Err(_) => (path.to_path_buf(), None),
    }
}

/// Makes the rename itself durable; where directories cannot be opened or synced, the rename
/// has still happened, so a failure here is not worth reporting.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// A usage error when `output` is one of `inputs`: the same path once symbolic links are
/// resolved, or the same file (a hard link) where file identity can be compared. `-` (standard
/// input) is never the output.
pub(crate) fn refuse_output_over_input(output: &Path, inputs: &[&Path]) -> Result<(), String> {
    // Only a regular file can be replaced; writing to a device or a pipe loses no input.
    let Ok(out_meta) = std::fs::metadata(output) else {
        return Ok(()); // It does not exist yet, so it is no input.
    };
    if !out_meta.is_file() {
        return Ok(());
    }
    let out_real = std::fs::canonicalize(output).ok();
    for input in inputs.iter().filter(|i| i.as_os_str() != "-") {
        let same_path = out_real.is_some() && std::fs::canonicalize(input).ok() == out_real;
        let same_identity = std::fs::metadata(input).is_ok_and(|m| same_file(&out_meta, &m));
        if same_path || same_identity {
            return Err(format!(
                "the output {} is the input {}: writing it would replace the input; \
                 choose another output file",
                output.display(),
                input.display()
            ));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &Metadata, b: &Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &Metadata, _: &Metadata) -> bool {
    false
}
