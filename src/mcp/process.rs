//! Running a bound handler: the command is started with the normalized arguments as one JSON
//! document on its standard input; its standard output is the result (JSON when it parses, text
//! otherwise); a non-zero exit is a tool error carrying the end of its standard error.
//!
//! The child runs in a process group of its own, and the whole group is killed when the child
//! exits and when the call is dropped (a timeout, a cancellation): nothing a handler starts
//! outlives its call, and a background process that holds the output pipe cannot keep a finished
//! call waiting. The child's environment is clean: [`ENV_ALLOWLIST`] taken from the server's,
//! then what the binding lists, so no secret of the server (its token) reaches a handler.

use std::process::Stdio;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use super::bindings::Binding;
use crate::runtime::ToolError;

/// The most standard output a handler may write.
pub(super) const MAX_OUTPUT: usize = 16 * 1024 * 1024;

/// How much of the end of standard error a tool error carries.
const STDERR_TAIL: usize = 2048;

/// The variables of the server's environment a handler gets (when set); everything else it gets
/// comes from its binding's `env`.
pub(crate) const ENV_ALLOWLIST: [&str; 4] = ["PATH", "HOME", "LANG", "TZ"];

/// A child's process group, killed whole when this is dropped.
struct Group(Option<u32>);

impl Group {
    fn kill(&mut self) {
        #[cfg(unix)]
        if let Some(id) = self
            .0
            .take()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(rustix::process::Pid::from_raw)
        {
            // A group that is gone already is ESRCH: nothing to do.
            let _ = rustix::process::kill_process_group(id, rustix::process::Signal::KILL);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Runs `binding` with `arguments` on its standard input. The result is the output's JSON when
/// it parses, and the output as a string otherwise.
pub(crate) async fn run(binding: &Binding, arguments: &Value) -> Result<Value, ToolError> {
    let Some((program, args)) = binding.command.split_first() else {
        return Err(ToolError::new("the binding's command is empty"));
    };
    let program = if program.contains('/') {
        binding.cwd.join(program).into_os_string()
    } else {
        program.into()
    };
    let mut command = tokio::process::Command::new(&program);
    command.args(args).current_dir(&binding.cwd).env_clear();
    for name in ENV_ALLOWLIST
        .iter()
        .copied()
        .chain(binding.pass_env.iter().map(String::as_str))
    {
        if let Some(value) = std::env::var_os(name) {
            command.env(name, value);
        }
    }
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command
        .envs(&binding.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            ToolError::new(format!(
                "the handler `{}` could not be started: {e}",
                binding.command.join(" ")
            ))
        })?;
    // The child leads its group: the group's id is its process id.
    let mut group = Group(child.id());
    let input = serde_json::to_vec(arguments).map_err(ToolError::from_error)?;
    let mut stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let write = async move {
        if let Some(stdin) = stdin.as_mut() {
            // A handler that does not read its input closes the pipe early: not an error.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        }
        drop(stdin);
    };
    // Once the child exits, what it left running is killed, so that the pipes close.
    let waited = async {
        let status = child.wait().await;
        group.kill();
        status
    };
    let (_, out, err, status) = tokio::join!(
        write,
        read_limited(stdout, MAX_OUTPUT),
        read_tail(stderr),
        waited
    );
    let status = status.map_err(ToolError::from_error)?;
    let err = tail(&err);
    if !status.success() {
        let how = match status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "was stopped by a signal".to_string(),
        };
        return Err(ToolError::new(if err.is_empty() {
            format!("the handler {how}")
        } else {
            format!("the handler {how}: {err}")
        }));
    }
    let out = out.map_err(|()| {
        ToolError::new(format!(
            "the handler wrote more than {MAX_OUTPUT} bytes to its standard output"
        ))
    })?;
    let text = String::from_utf8(out)
        .map_err(|_| ToolError::new("the handler's standard output is not UTF-8"))?;
    Ok(match serde_json::from_str::<Value>(&text) {
        Ok(v) => v,
        Err(_) => Value::String(text),
    })
}

/// Reads a pipe to its end, failing past `limit` bytes (the rest is drained, so that the child
/// is not blocked on a full pipe).
async fn read_limited(pipe: Option<impl AsyncRead + Unpin>, limit: usize) -> Result<Vec<u8>, ()> {
    let Some(mut pipe) = pipe else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    let mut over = false;
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if out.len() + n > limit {
                    over = true;
                } else if !over {
                    out.extend_from_slice(&buf[..n]);
                }
            }
        }
    }
    if over {
        Err(())
    } else {
        Ok(out)
    }
}

/// Reads a pipe to its end, keeping only its last bytes (twice what a tool error carries).
async fn read_tail(pipe: Option<impl AsyncRead + Unpin>) -> Vec<u8> {
    let Some(mut pipe) = pipe else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
        if out.len() > 2 * STDERR_TAIL {
            out.drain(..out.len() - 2 * STDERR_TAIL);
        }
    }
    out
}

/// The end of standard error, trimmed, at most [`STDERR_TAIL`] bytes (cut at a character).
fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim();
    if text.len() <= STDERR_TAIL {
        return text.to_string();
    }
    let mut start = text.len() - STDERR_TAIL;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}

#[cfg(all(test, unix))]
mod tests {
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use super::*;

    fn binding(script: &str, dir: &Path, timeout: Duration) -> Binding {
        Binding {
            command: vec!["sh".into(), "-c".into(), script.into()],
            cwd: dir.to_path_buf(),
            env: [("GIVEN".to_string(), "yes".to_string())]
                .into_iter()
                .collect(),
            pass_env: vec!["TOOLDEF_TEST_PASSED".to_string()],
            timeout,
        }
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    }

    /// Whether process `pid` is gone (or a zombie no one has reaped yet).
    fn gone(pid: &str) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat
                .rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        }
    }

    fn pids(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let path: PathBuf = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "pid") {
                out.push(
                    std::fs::read_to_string(&path)
                        .expect("pid")
                        .trim()
                        .to_string(),
                );
            }
        }
        out
    }

    fn until_gone(dir: &Path) -> Vec<String> {
        for _ in 0..200 {
            let alive: Vec<String> = pids(dir).into_iter().filter(|p| !gone(p)).collect();
            if alive.is_empty() {
                return alive;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        pids(dir).into_iter().filter(|p| !gone(p)).collect()
    }

    /// A handler that leaves 1, 2, 4, 8 background processes holding its output answers as
    /// soon as it exits (they used to keep the pipe open: a finished call became a timeout), and
    /// every one of them is killed with it.
    #[test]
    fn background_children_die_with_the_call() {
        let rt = runtime();
        for n in [1, 2, 4, 8] {
            let dir = tempfile::tempdir().expect("temp dir");
            let script = format!(
                "i=0; while [ $i -lt {n} ]; do sh -c 'echo $$ > bg'$i'.pid; exec sleep 300' & i=$((i+1)); done; \
                 while [ $(ls *.pid 2>/dev/null | wc -l) -lt {n} ]; do sleep 0.01; done; echo '{{\"ok\": true}}'"
            );
            let b = binding(&script, dir.path(), Duration::from_secs(60));
            let result = rt.block_on(async {
                tokio::time::timeout(Duration::from_secs(20), run(&b, &serde_json::json!({}))).await
            });
            let value = result
                .unwrap_or_else(|_| panic!("{n} background children held a finished call"))
                .expect("the handler succeeds");
            assert_eq!(value, serde_json::json!({"ok": true}));
            assert_eq!(pids(dir.path()).len(), n);
            let alive = until_gone(dir.path());
            assert!(
                alive.is_empty(),
                "{n}: still running after the call: {alive:?}"
            );
        }
    }

    /// A call dropped at its timeout kills the handler's whole group, not only the handler.
    #[test]
    fn a_timeout_kills_the_whole_group() {
        let rt = runtime();
        for n in [1, 4] {
            let dir = tempfile::tempdir().expect("temp dir");
            let script = format!(
                "i=0; while [ $i -lt {n} ]; do sh -c 'echo $$ > bg'$i'.pid; exec sleep 300' & i=$((i+1)); done; sleep 300"
            );
            let b = binding(&script, dir.path(), Duration::from_secs(60));
            let timed_out = rt.block_on(async {
                tokio::time::timeout(Duration::from_millis(500), run(&b, &serde_json::json!({})))
                    .await
                    .is_err()
            });
            assert!(timed_out);
            assert_eq!(pids(dir.path()).len(), n, "the children started");
            let alive = until_gone(dir.path());
            assert!(alive.is_empty(), "{n}: outlived the call: {alive:?}");
        }
    }

    /// A handler sees the allowlist and its binding's variables, and nothing else of the
    /// server's environment (its token among them).
    #[test]
    fn handlers_get_a_clean_environment() {
        let rt = runtime();
        let dir = tempfile::tempdir().expect("temp dir");
        let b = binding("env", dir.path(), Duration::from_secs(20));
        // The server's secret, which a handler must not see.
        std::env::set_var("TOOLDEF_TEST_SECRET_TOKEN", "s3cret");
        // A variable the binding names is passed on.
        std::env::set_var("TOOLDEF_TEST_PASSED", "named");
        let out = rt
            .block_on(run(&b, &serde_json::json!({})))
            .expect("env runs");
        let text = out.as_str().expect("text").to_string();
        let names: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once('=').map(|(k, _)| k))
            .collect();
        assert!(!text.contains("s3cret"), "{text}");
        assert!(names.contains(&"GIVEN"), "{text}");
        assert!(text.contains("TOOLDEF_TEST_PASSED=named"), "{text}");
        for name in names {
            assert!(
                ENV_ALLOWLIST.contains(&name)
                    || name == "GIVEN"
                    || name == "TOOLDEF_TEST_PASSED"
                    || name == "PWD"
                    || name == "SHLVL"
                    || name == "_",
                "{name} reached the handler"
            );
        }
    }
}
