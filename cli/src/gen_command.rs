//! `tooldef gen`: typed code for the tools of a set of files and folders (read as `build` reads
//! them), written to a file or to standard output.

use std::path::{Path, PathBuf};

use crate::build_command::{read_sources, report, tool_files};
use crate::read::InputLimits;
use crate::{to_stdout, write, Format, EXIT_ERRORS};

/// The languages `tooldef gen` writes.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum Language {
    /// serde types, a `Tools` trait with one method per tool, and `register`.
    Rust,
    /// Type declarations (interfaces, literal unions) and a `Tools` interface.
    Typescript,
}

/// The arguments of `tooldef gen`.
#[derive(clap::Args)]
pub(crate) struct GenArgs {
    /// The language to write.
    #[arg(value_enum)]
    language: Language,
    /// Files and folders (searched for `*.tool`, recursively).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Write the code here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// How to print diagnostics (on standard error).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
}

/// Runs `tooldef gen`.
pub(crate) fn run(args: &GenArgs, limits: &InputLimits) -> Result<u8, String> {
    let files = tool_files(&args.paths);
    if let Some(out) = &args.output {
        let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
        write::refuse_output_over_input(out, &inputs)?;
    }
    let sources = read_sources(&files, limits)?;
    let origin = sources
        .iter()
        .map(|s| format!("`{}`", s.name()))
        .collect::<Vec<_>>()
        .join(", ");
    let toolset = match limits.toolset(sources) {
        Ok(t) => t,
        Err(errors) => {
            report(errors.diagnostics, args.format);
            return Ok(EXIT_ERRORS);
        }
    };
    if !toolset.warnings().is_empty() {
        report(toolset.warnings().to_vec(), args.format);
    }
    let code = match args.language {
        Language::Rust => tooldef::codegen::rust(&toolset, &origin),
        Language::Typescript => tooldef::codegen::typescript(&toolset, &origin),
    };
    match &args.output {
        Some(path) => write::write_file(path, code.as_bytes())?,
        None => to_stdout(&code),
    }
    Ok(0)
}
