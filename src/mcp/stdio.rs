//! The server's stdio transport: one JSON-RPC message a line, read here so that every line that
//! cannot be read still gets the answer JSON-RPC gives it; answers go out through rmcp's writer.
//!
//! rmcp's own stdio transport drops a line serde_json refuses without a word: text that is not
//! JSON, but also JSON nested more than 127 levels or holding a number beyond a double
//! (`1e400`), so a client waiting on the id of such a request waits forever. Here:
//!
//! - a line that is not JSON is answered -32700 (parse error) with id null;
//! - JSON that is not a message (not an object, no `method`, an id that is neither a string nor
//!   an integer) is answered -32600 (invalid request) with id null; a notification that cannot
//!   be read is dropped, since it has no answer;
//! - a `tools/call` whose `arguments` object is the only part that cannot be read is handed on
//!   with its arguments as text ([`RawArguments`]): the validator reads them and says what is
//!   wrong (`too-deep` with its place, a number out of range with its line and column) in a tool
//!   error, as for any invalid arguments;
//! - any other request that cannot be read is answered with its id: -32602 (invalid params) when
//!   the problem is in its `params`, -32600 otherwise;
//! - a line longer than rmcp's limit (`DEFAULT_MAX_LINE_LENGTH`, 16 MiB) is skipped unread and
//!   answered -32600, with the id found in its first 64 KiB (a client waiting on it used to wait
//!   out its own timeout), else with id null.
//!
//! "id null": rmcp's writer leaves the id out of such an answer, as MCP 2026-07-28 has it.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use rmcp::model::{
    CallToolRequestMethod, ClientRequest, ConstString, ErrorData, JsonRpcMessage, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The arguments of a `tools/call`, as the client wrote them, when serde_json cannot read them
/// into a value; carried in the request's extensions, where a client cannot put anything.
#[derive(Clone, Debug)]
pub(crate) struct RawArguments(pub String);

/// The transport over standard input and output.
pub(crate) struct Lines {
    read: BufReader<tokio::io::Stdin>,
    /// The line read so far (kept across a cancelled `receive`).
    line: Vec<u8>,
    /// Skipping the rest of a line over the limit.
    discarding: bool,
    /// rmcp's transport, for its writer only.
    write: AsyncRwTransport<RoleServer, tokio::io::Empty, tokio::io::Stdout>,
    /// The answer to a line being written: kept across a cancelled `receive`, so that it is
    /// written whole, and before anything read after its line is answered.
    answering: Option<Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>>,
}

impl Lines {
    pub(crate) fn new() -> Lines {
        Lines {
            read: BufReader::new(tokio::io::stdin()),
            line: Vec::new(),
            discarding: false,
            write: AsyncRwTransport::new_server(tokio::io::empty(), tokio::io::stdout()),
            answering: None,
        }
    }

    /// Reads up to the end of a line into `self.line`, holding at most the limit. Cancel-safe:
    /// what was read stays in `self.line` and the next call goes on from there.
    async fn read_line(&mut self) -> Read {
        loop {
            let (used, done) = {
                let available = match self.read.fill_buf().await {
                    Ok(a) if !a.is_empty() => a,
                    _ => return Read::End,
                };
                let newline = available.iter().position(|&b| b == b'\n');
                let take = newline.map_or(available.len(), |i| i + 1);
                if self.discarding {
                    self.discarding = newline.is_none();
                    (take, None)
                } else if self.line.len().saturating_add(take) > DEFAULT_MAX_LINE_LENGTH {
                    // The request's id is read from the start of the line, so that the answer
                    // reaches the client that waits for it.
                    let id = leading_id(&self.line[..self.line.len().min(ID_PREFIX)]);
                    self.line.clear();
                    self.discarding = newline.is_none();
                    (take, Some(Read::Oversized(id)))
                } else {
                    self.line.extend_from_slice(&available[..take]);
                    (take, newline.map(|_| Read::Line))
                }
            };
            self.read.consume(used);
            if let Some(done) = done {
                return done;
            }
        }
    }

    /// Starts writing an error answer; `receive` finishes it before it reads on. Without an id,
    /// rmcp's writer leaves `id` out, as MCP 2026-07-28 says (JSON-RPC 2.0 writes `null`).
    fn answer(&mut self, id: Option<RequestId>, error: ErrorData) {
        self.answering = Some(Box::pin(self.write.send(JsonRpcMessage::error(error, id))));
    }
}

enum Read {
    Line,
    /// A line over the limit, with the id found at its start.
    Oversized(Option<RequestId>),
    End,
}

/// How much of the start of an oversized line is searched for its id.
const ID_PREFIX: usize = 64 * 1024;

/// The `id` of the JSON object that `prefix` starts, if the prefix holds it whole as a key of
/// the outer object (a string or an integer); the rest of the object may be missing. Strings are
/// skipped with their escapes, so a key `"id"` inside a nested value or a string is not taken.
fn leading_id(prefix: &[u8]) -> Option<RequestId> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < prefix.len() {
        match prefix[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < prefix.len() && prefix[i] != b'"' {
                    i += if prefix[i] == b'\\' { 2 } else { 1 };
                }
                let text = prefix.get(start..=i)?;
                i += 1;
                if depth == 1 {
                    let rest = prefix.get(i..)?;
                    let colon = rest.iter().position(|b| !b.is_ascii_whitespace())?;
                    if text == b"\"id\"" && rest[colon] == b':' {
                        i += colon + 1;
                        let value = prefix.get(i..)?;
                        let start = value.iter().position(|b| !b.is_ascii_whitespace())?;
                        let value = &value[start..];
                        let end = if value.first() == Some(&b'"') {
                            1 + value[1..].iter().position(|&b| b == b'"')? + 1
                        } else {
                            value
                                .iter()
                                .position(|b| !(b.is_ascii_digit() || *b == b'-'))?
                        };
                        let text = std::str::from_utf8(&value[..end]).ok()?;
                        return serde_json::from_str(text).ok();
                    }
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        i += 1;
    }
    None
}

impl Transport<RoleServer> for Lines {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(answering) = &mut self.answering {
                // A failed write shows in the service's next send.
                let _ = answering.await;
                self.answering = None;
            }
            match self.read_line().await {
                Read::End => return None,
                Read::Oversized(id) => {
                    self.answer(
                        id,
                        ErrorData::invalid_request(
                            format!(
                                "a message is longer than {DEFAULT_MAX_LINE_LENGTH} bytes; \
                                 it was not read"
                            ),
                            None,
                        ),
                    );
                    continue;
                }
                Read::Line => {}
            }
            let read = read_message(&self.line);
            self.line.clear();
            match read {
                Outcome::Message(message) => return Some(*message),
                Outcome::Drop => {}
                Outcome::Answer(id, error) => self.answer(id, error),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.close().await
    }
}

/// What a line is.
enum Outcome {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Nothing to do: an empty line, or a notification that cannot be read.
    Drop,
    Answer(Option<RequestId>, ErrorData),
}

/// Reads one line (with or without its line end): as rmcp reads it, or else what answers it.
fn read_message(line: &[u8]) -> Outcome {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Outcome::Drop;
    }
    let error = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => return Outcome::Message(Box::new(message)),
        Err(e) => e,
    };
    // serde_json skips a value it is not asked to build without a depth limit and without
    // reading its numbers, so this checks the syntax alone, in linear time.
    if let Err(e) = serde_json::from_slice::<IgnoredAny>(line) {
        return Outcome::Answer(
            None,
            ErrorData::parse_error(format!("the message is not JSON: {e}"), None),
        );
    }
    let not_a_message = || {
        Outcome::Answer(
            None,
            ErrorData::invalid_request(format!("not a JSON-RPC message: {error}"), None),
        )
    };
    let Ok(fields) = serde_json::from_slice::<BTreeMap<String, &RawValue>>(line) else {
        return not_a_message();
    };
    let method = fields
        .get("method")
        .and_then(|m| serde_json::from_str::<String>(m.get()).ok());
    let (id, method) = match (fields.get("id"), method) {
        // A notification has no answer.
        (None, Some(_)) => return Outcome::Drop,
        (Some(id), Some(method)) => match serde_json::from_str::<RequestId>(id.get()) {
            Ok(id) => (id, method),
            Err(_) => return not_a_message(),
        },
        (_, None) => return not_a_message(),
    };
    if method == CallToolRequestMethod::VALUE {
        if let Some(call) = with_raw_arguments(&fields) {
            return Outcome::Message(Box::new(call));
        }
    }
    let params = fields
        .get("params")
        .and_then(|p| serde_json::from_str::<serde_json::Map<String, Value>>(p.get()).err());
    let answer = match params {
        Some(why) => ErrorData::invalid_params(
            format!("the params of `{method}` cannot be read: {why}"),
            None,
        ),
        None => ErrorData::invalid_request(format!("the request cannot be read: {error}"), None),
    };
    Outcome::Answer(Some(id), answer)
}

/// A `tools/call` read without its `arguments` object, which is carried as text, when that is
/// the only part serde_json could not read.
fn with_raw_arguments(
    fields: &BTreeMap<String, &RawValue>,
) -> Option<RxJsonRpcMessage<RoleServer>> {
    let mut params: BTreeMap<String, &RawValue> =
        serde_json::from_str(fields.get("params")?.get()).ok()?;
    let arguments = params.remove("arguments")?;
    if !arguments.get().starts_with('{') {
        return None;
    }
    let rest = RawValue::from_string(serde_json::to_string(&params).ok()?).ok()?;
    let mut fields = fields.clone();
    fields.insert("params".to_string(), &rest);
    let mut message: RxJsonRpcMessage<RoleServer> =
        serde_json::from_str(&serde_json::to_string(&fields).ok()?).ok()?;
    let JsonRpcMessage::Request(request) = &mut message else {
        return None;
    };
    let ClientRequest::CallToolRequest(call) = &mut request.request else {
        return None;
    };
    call.extensions
        .insert(RawArguments(arguments.get().to_string()));
    Some(message)
}

#[cfg(test)]
mod tests {
    use super::leading_id;
    use rmcp::model::RequestId;

    #[test]
    fn the_id_is_found_at_the_start_of_a_cut_line() {
        let number = |n| Some(RequestId::Number(n));
        for (prefix, want) in [
            (
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"a":"xx"#,
                number(2),
            ),
            (r#"{ "id" : 17 , "params": {"#, number(17)),
            (r#"{"id":-3,"#, number(-3)),
            (
                r#"{"params":{"id":5,"t":"\"id\":9"},"id":7,"x":"#,
                number(7),
            ),
            (
                r#"{"method":"x","params":{"text":"\"id\": 9 and more"#,
                None,
            ),
            (r#"{"method":"x","params":{"id":5,"text":"xxxx"#, None),
            (
                r#"{"id":"req-1","method":"#,
                Some(RequestId::String("req-1".into())),
            ),
            (r#"{"id":12"#, None),
            (r#"["id", 3]"#, None),
            ("", None),
        ] {
            assert_eq!(leading_id(prefix.as_bytes()), want, "{prefix}");
        }
    }
}
