//! Every input the command line reads goes through [`read_bounded`]: at most the limit plus one
//! byte is read, so `/dev/zero` or an endless pipe ends with an error in bounded memory instead
//! of growing until allocation fails.

use std::io::Read;
use std::path::{Path, PathBuf};

use tooldef::validate::Limits;

/// The limits on what the command line reads (`docs/limits.md`): how much, and from where.
#[derive(Clone, Debug, clap::Args)]
pub(crate) struct InputLimits {
    /// The largest source, import, response or bindings file read, in bytes (suffixes KiB, MiB
    /// and GiB are accepted).
    #[arg(
        long,
        global = true,
        value_name = "BYTES",
        default_value_t = DEFAULT_MAX_INPUT_BYTES,
        value_parser = parse_size
    )]
    pub max_input_bytes: usize,
    /// The largest argument text read by `validate` and `call`, in bytes; the validator accepts
    /// the same (suffixes KiB, MiB and GiB are accepted).
    #[arg(
        long,
        global = true,
        value_name = "BYTES",
        default_value_t = Limits::DEFAULT_MAX_BYTES,
        value_parser = parse_size
    )]
    pub max_args_bytes: usize,
    /// The folder that imports must stay inside. By default, the deepest folder that holds
    /// every file named on the command line (`-`: the current folder).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// The default of `--max-input-bytes`: 10 MiB.
pub(crate) const DEFAULT_MAX_INPUT_BYTES: usize = 10 * 1024 * 1024;

/// Which limit applies to an input, to read it and to name the option that changes it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limit {
    pub bytes: usize,
    pub option: &'static str,
}

impl InputLimits {
    /// The loader of the imports of `sources` (named as read): through the input limit, and
    /// inside `--root` or the folder that holds them all.
    pub(crate) fn loader<'a>(
        &self,
        sources: impl IntoIterator<Item = &'a str>,
    ) -> tooldef::FileLoader {
        let root = match &self.root {
            Some(root) => root.clone(),
            None => tooldef::project_root(sources),
        };
        tooldef::FileLoader {
            max_bytes: self.max_input_bytes,
            ..tooldef::FileLoader::within(root)
        }
    }

    /// The toolset of `sources`, their imports read through [`InputLimits::loader`].
    pub(crate) fn toolset(
        &self,
        sources: Vec<tooldef::Source>,
    ) -> Result<tooldef::Toolset, tooldef::Errors> {
        let loader = self.loader(sources.iter().map(tooldef::Source::name));
        tooldef::Toolset::with_loader(sources, &loader)
    }

    /// The limit on source, import, response and bindings files.
    pub(crate) fn input(&self) -> Limit {
        Limit {
            bytes: self.max_input_bytes,
            option: "--max-input-bytes",
        }
    }

    /// The limit on argument text.
    pub(crate) fn args(&self) -> Limit {
        Limit {
            bytes: self.max_args_bytes,
            option: "--max-args-bytes",
        }
    }
}

/// Reads all of `reader`, but never more than `limit.bytes` bytes: one byte more is an error that
/// names the limit and the option that raises it. `name` names the input in messages.
pub(crate) fn read_bounded(reader: impl Read, name: &str, limit: Limit) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let cap = u64::try_from(limit.bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    reader
        .take(cap)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() > limit.bytes {
        return Err(too_large(name, limit));
    }
    Ok(bytes)
}

/// Reads the file at `path` through [`read_bounded`]; a file whose size is known to exceed the
/// limit is refused before anything is read.
///
/// A folder is refused with what to do; a named pipe is opened without waiting for a writer (a
/// pipe no one writes to reads as empty, where the open used to wait forever), then read to its
/// end.
pub(crate) fn read_file_bounded(path: &Path, limit: Limit) -> Result<Vec<u8>, String> {
    let name = path.display().to_string();
    if path.is_dir() {
        return Err(format!(
            "cannot read {name}: it is a folder, and holds no `.tool` file to read; name a file, \
             or a folder of `.tool` files"
        ));
    }
    let file = open_without_waiting(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    if let Ok(meta) = file.metadata() {
        if meta.is_file() && meta.len() > u64::try_from(limit.bytes).unwrap_or(u64::MAX) {
            return Err(too_large(&name, limit));
        }
    }
    read_bounded(file, &name, limit)
}

/// `path` opened for reading; on Unix without waiting for a pipe's writer, then made to wait for
/// data as usual.
fn open_without_waiting(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
        let file = options.open(path)?;
        let flags = rustix::fs::fcntl_getfl(&file)?;
        rustix::fs::fcntl_setfl(&file, flags - rustix::fs::OFlags::NONBLOCK)?;
        Ok(file)
    }
    #[cfg(not(unix))]
    options.open(path)
}

pub(crate) fn too_large(name: &str, limit: Limit) -> String {
    format!(
        "{name} is larger than the limit of {} bytes{}; raise it with {} BYTES",
        limit.bytes,
        human(limit.bytes),
        limit.option
    )
}

/// ` (4 MiB)` for a whole number of KiB, MiB or GiB; nothing otherwise.
fn human(bytes: usize) -> String {
    for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!(" ({} {unit})", bytes / size);
        }
    }
    String::new()
}

/// `4194304`, `4096KiB`, `4MiB`, `1GiB`.
fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let (digits, factor) = [("GiB", 1usize << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
        .iter()
        .find_map(|&(unit, f)| s.strip_suffix(unit).map(|d| (d.trim_end(), f)))
        .unwrap_or((s, 1));
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .ok_or_else(|| format!("`{s}` is not a size: give bytes, or a number with KiB, MiB or GiB"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_and_without_units() {
        assert_eq!(parse_size("4194304"), Ok(4 * 1024 * 1024));
        assert_eq!(parse_size("10MiB"), Ok(DEFAULT_MAX_INPUT_BYTES));
        assert_eq!(parse_size("2 KiB"), Ok(2048));
        assert!(parse_size("10MB").is_err());
        assert!(parse_size("-1").is_err());
    }
}
