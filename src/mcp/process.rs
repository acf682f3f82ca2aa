//! Running a bound handler: the command is started with the normalized arguments as one JSON
//! document on its standard input; its standard output is the result (JSON when it parses, text
//! otherwise); a non-zero exit is a tool error carrying the end of its standard error.
//!
//! The child is killed when the call is dropped (a timeout, a cancellation), so a handler never
//! outlives its call.

use std::process::Stdio;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use super::bindings::Binding;
use crate::runtime::ToolError;

/// The most standard output a handler may write.
pub(super) const MAX_OUTPUT: usize = 16 * 1024 * 1024;

/// How much of the end of standard error a tool error carries.
const STDERR_TAIL: usize = 2048;

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
    let mut child = tokio::process::Command::new(&program)
        .args(args)
        .current_dir(&binding.cwd)
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
    let (_, out, err, status) = tokio::join!(
        write,
        read_limited(stdout, MAX_OUTPUT),
        read_tail(stderr),
        child.wait()
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
