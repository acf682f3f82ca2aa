//! `tooldef build`: a whole set of files and folders compiled into one document per target, and
//! `--check` to tell CI whether the committed documents are up to date. Also the expansion of
//! folders into their `.tool` files that every command that reads sources uses.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use tooldef::{Diagnostic, Source, Toolset};

use crate::read::InputLimits;
use crate::EXIT_ERRORS;
use crate::{print_diagnostics, read_input, to_stderr, write, Format, TargetArg};

/// The arguments of `tooldef build`.
#[derive(clap::Args)]
pub(crate) struct BuildArgs {
    /// Files and folders (searched for `*.tool`, recursively).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The targets, comma-separated: one document each, `OUT/<target>.json`.
    #[arg(long, value_enum, value_delimiter = ',', required = true)]
    target: Vec<TargetArg>,
    /// The folder the documents are written to.
    #[arg(long)]
    out_dir: PathBuf,
    /// Write nothing; list the documents that are missing or not what the sources give, and
    /// exit with 1 if any is.
    #[arg(long)]
    check: bool,
    /// How to print diagnostics (on standard error).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// The `.tool` files of `paths`: files as given (and `-`), folders searched recursively, in
/// sorted order; hidden folders and `target`/`node_modules` are skipped, and so are the special
/// files found in a folder (a pipe, a socket or a device, or a link to one: opening a pipe
/// waits for a writer). A folder that holds no
/// `.tool` file, or cannot be read, is passed on as it is, so that the command reports it as an
/// input it cannot read and goes on with the others.
pub(crate) fn tool_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in paths {
        if path.as_os_str() != "-" && path.is_dir() {
            let mut found = Vec::new();
            match collect(path, &mut found) {
                Ok(()) if !found.is_empty() => {
                    found.sort();
                    out.extend(found);
                }
                _ => out.push(path.clone()),
            }
        } else {
            out.push(path.clone());
        }
    }
    out
}

/// Every `.tool` file under `dir`, without recursion (a stack of folders to visit). A link to a
/// file outside `dir` is left out: a folder names what it holds, and nothing it points at.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let top =
        std::fs::canonicalize(dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            // Symbolic links to folders are not followed, so a link cannot make a loop.
            let kind = entry
                .file_type()
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            if kind.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    todo.push(path);
                }
            } else if name.ends_with(".tool") && !special(&path) {
                let inside = !kind.is_symlink()
                    || std::fs::canonicalize(&path).is_ok_and(|real| real.starts_with(&top));
                if inside {
                    out.push(path);
                }
            }
        }
    }
    Ok(())
}

/// Whether `path` is a pipe, a socket or a device, or a link to one (a link that leads nowhere is
/// kept, to be reported as an input that cannot be read).
fn special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Reads each of `files` as a source (UTF-8, within the input limit).
pub(crate) fn read_sources(files: &[PathBuf], limits: &InputLimits) -> Result<Vec<Source>, String> {
    let mut sources = Vec::with_capacity(files.len());
    for path in files {
        let input = read_input(path, limits.input())?;
        let text = String::from_utf8(input.bytes)
            .map_err(|_| format!("`{}` is not valid UTF-8", input.name))?;
        sources.push(Source::new(input.name, text));
    }
    Ok(sources)
}

/// The toolset of a set of files and folders; `Ok(None)` when it does not compile (its
/// diagnostics are printed).
pub(crate) fn load(
    paths: &[PathBuf],
    limits: &InputLimits,
    format: Format,
) -> Result<Option<Toolset>, String> {
    let sources = read_sources(&tool_files(paths), limits)?;
    match limits.toolset(sources) {
        Ok(t) => Ok(Some(t)),
        Err(errors) => {
            report(errors.diagnostics, format);
            Ok(None)
        }
    }
}

pub(crate) fn build(args: &BuildArgs, limits: &InputLimits) -> Result<u8, String> {
    let files = tool_files(&args.paths);
    let sources = read_sources(&files, limits)?;
    let outputs: Vec<(TargetArg, PathBuf)> = args
        .target
        .iter()
        .map(|t| {
            let name = t
                .to_possible_value()
                .map_or_else(String::new, |v| v.get_name().to_string());
            (*t, args.out_dir.join(format!("{name}.json")))
        })
        .collect();
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    for (_, out) in &outputs {
        write::refuse_output_over_input(out, &inputs)?;
    }
    let toolset = match limits.toolset(sources) {
        Ok(t) => t,
        Err(errors) => {
            report(errors.diagnostics, args.format);
            return Ok(EXIT_ERRORS);
        }
    };
    let mut warnings: Vec<Diagnostic> = toolset.warnings().to_vec();
    let mut documents = Vec::new();
    for (target, path) in outputs {
        match toolset.emit(target.into()) {
            Ok(emitted) => {
                warnings.extend(emitted.warnings);
                let mut text =
                    serde_json::to_string_pretty(&emitted.json).map_err(|e| e.to_string())?;
                text.push('\n');
                documents.push((path, text));
            }
            Err(errors) => {
                report(errors.diagnostics, args.format);
                return Ok(EXIT_ERRORS);
            }
        }
    }
    if !warnings.is_empty() {
        report(warnings, args.format);
    }
    if args.check {
        let mut stale = Vec::new();
        for (path, text) in &documents {
            match std::fs::read(path) {
                Ok(bytes) if bytes == text.as_bytes() => {}
                Ok(_) => stale.push(format!("{}: not what the sources give", path.display())),
                Err(_) => stale.push(format!("{}: missing", path.display())),
            }
        }
        for line in &stale {
            to_stderr(&format!("{line}\n"));
        }
        if !stale.is_empty() {
            to_stderr("run `tooldef build` without --check to write them\n");
            return Ok(EXIT_ERRORS);
        }
        return Ok(0);
    }
    std::fs::create_dir_all(&args.out_dir).map_err(|e| {
        let what = if args.out_dir.exists() {
            "a file of that name is there; name another --out-dir, or move the file"
        } else {
            "check that its parent folders can be created and written"
        };
        format!(
            "cannot create the folder `{}`: {e}; {what}",
            args.out_dir.display()
        )
    })?;
    for (path, text) in &documents {
        write::write_file(path, text.as_bytes())?;
    }
    Ok(0)
}

/// Prints diagnostics that each carry their file.
pub(crate) fn report(diagnostics: Vec<Diagnostic>, format: Format) {
    print_diagnostics(
        &[(String::new(), String::new(), diagnostics)],
        format,
        false,
    );
}
