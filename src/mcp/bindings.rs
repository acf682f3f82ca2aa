//! Bindings: which command runs each tool, read from a TOML file.
//!
//! ```toml
//! [tools.create_event]
//! command = ["python3", "handlers/create_event.py"]  # argv, no shell
//! cwd = "handlers"          # optional, relative to the bindings file
//! env = { TZ = "UTC" }      # optional
//! pass_env = ["API_KEY"]    # optional: variables of the server's environment, by name
//! timeout_ms = 10000        # optional, default 30000
//! ```
//!
//! A binding that names a tool the set does not have, or a command that cannot be started, is
//! an error at load time naming the file and the key.

use std::path::{Path, PathBuf};
use std::time::Duration;

use indexmap::IndexMap;
use serde::Deserialize;

use crate::runtime::{Handler, Runtime};
use crate::Toolset;

/// The default time a handler may run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(30_000);

/// The command bound to a tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The program and its arguments (no shell). The program is resolved at load time: a path
    /// with a `/` against the binding's working directory, a bare name on `PATH`.
    pub command: Vec<String>,
    /// The working directory (the bindings file's directory unless the binding says another,
    /// relative to it).
    pub cwd: PathBuf,
    /// Variables added to the handler's environment.
    pub env: IndexMap<String, String>,
    /// Variables of the server's environment passed on to the handler by name (when set),
    /// beside the few every handler gets; nothing else of the server's environment reaches it.
    pub pass_env: Vec<String>,
    /// How long the handler may run.
    pub timeout: Duration,
}

/// The bindings of a toolset's tools, by tool name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings {
    /// The file they were read from.
    pub path: PathBuf,
    /// Each bound tool's binding, in file order.
    pub tools: IndexMap<String, Binding>,
}

/// Why bindings could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum BindingsError {
    /// The file could not be read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        error: std::io::Error,
    },
    /// The file is not TOML of the bindings' shape.
    #[error("{path}: {message}")]
    Syntax {
        /// The file.
        path: String,
        /// The parser's message, with the line and column.
        message: String,
    },
    /// A binding is wrong: an unknown tool, an empty command, a program that cannot be started.
    #[error("{path}: [tools.{tool}]{key}: {message}")]
    Binding {
        /// The file.
        path: String,
        /// The tool's key.
        tool: String,
        /// `.command`, `.cwd`, or nothing for the table itself.
        key: String,
        /// What is wrong.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileShape {
    #[serde(default)]
    tools: IndexMap<String, BindingShape>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BindingShape {
    command: Vec<String>,
    cwd: Option<PathBuf>,
    #[serde(default)]
    env: IndexMap<String, String>,
    #[serde(default)]
    pass_env: Vec<String>,
    timeout_ms: Option<u64>,
}

impl Bindings {
    /// A runtime for `toolset` whose handlers run the bound commands, each with its timeout (a
    /// tool without a binding has no handler). The bindings must have been loaded for this
    /// toolset ([`Bindings::parse`] checks each tool's name against it).
    pub fn runtime(&self, toolset: std::sync::Arc<Toolset>) -> Runtime {
        let mut runtime = Runtime::new(toolset);
        for (name, binding) in &self.tools {
            let b = binding.clone();
            let handler = Handler::new(move |args: serde_json::Value| {
                let b = b.clone();
                async move { super::process::run(&b, &args).await }
            })
            .with_timeout(binding.timeout);
            // The bindings were checked against the set when they were loaded.
            let _ = runtime.register(name, handler);
        }
        runtime
    }

    /// Reads the bindings at `path` and checks them against `toolset`: every key names a tool
    /// of the set, and every command can be started.
    pub fn load(path: &Path, toolset: &Toolset) -> Result<Bindings, BindingsError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|error| BindingsError::Io {
            path: name.clone(),
            error,
        })?;
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Bindings::parse(&text, &name, dir, toolset)
    }

    /// Parses bindings from text; `name` names the file in errors and `dir` is the directory
    /// relative paths start from.
    pub fn parse(
        text: &str,
        name: &str,
        dir: &Path,
        toolset: &Toolset,
    ) -> Result<Bindings, BindingsError> {
        let shape: FileShape = toml::from_str(text).map_err(|e| BindingsError::Syntax {
            path: name.to_string(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let error = |tool: &str, key: &str, message: String| BindingsError::Binding {
            path: name.to_string(),
            tool: tool.to_string(),
            key: key.to_string(),
            message,
        };
        let mut tools = IndexMap::new();
        for (tool, b) in shape.tools {
            if toolset.tool(&tool).is_none() {
                let hint = toolset
                    .suggest(&tool)
                    .map(|s| format!("; did you mean `{s}`?"))
                    .unwrap_or_default();
                return Err(error(
                    &tool,
                    "",
                    format!("no tool named `{tool}` in the tool files{hint}"),
                ));
            }
            let Some(program) = b.command.first() else {
                return Err(error(
                    &tool,
                    ".command",
                    "the command is empty; give the program and its arguments".into(),
                ));
            };
            let cwd = match &b.cwd {
                Some(c) => dir.join(c),
                None => dir.to_path_buf(),
            };
            if !cwd.is_dir() {
                return Err(error(
                    &tool,
                    ".cwd",
                    format!("{} is not a directory", cwd.display()),
                ));
            }
            if resolve_program(program, &cwd).is_none() {
                return Err(error(
                    &tool,
                    ".command",
                    format!(
                        "`{program}` cannot be started: no such executable file{}",
                        if program.contains('/') {
                            format!(" (relative to {})", cwd.display())
                        } else {
                            " on PATH".into()
                        }
                    ),
                ));
            }
            tools.insert(
                tool,
                Binding {
                    command: b.command,
                    cwd,
                    env: b.env,
                    pass_env: b.pass_env,
                    timeout: b.timeout_ms.map_or(DEFAULT_TIMEOUT, Duration::from_millis),
                },
            );
        }
        Ok(Bindings {
            path: PathBuf::from(name),
            tools,
        })
    }
}

/// The executable file a program names: a path with a `/` against `cwd`, a bare name on
/// `PATH`.
fn resolve_program(program: &str, cwd: &Path) -> Option<PathBuf> {
    if program.contains('/') {
        let p = cwd.join(program);
        return is_executable(&p).then_some(p);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}
