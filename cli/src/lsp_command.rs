//! `tooldef lsp`: the language server, over standard input and output.
//!
//! The protocol layer over [`tooldef::analysis`]: lsp-server reads and writes the framed
//! JSON-RPC messages, lsp-types gives them their shapes, and this file keeps the open documents,
//! turns LSP positions into byte offsets and back, and answers each message with the analysis.
//!
//! No input stops the server but `exit`, the end of standard input or a message past the message
//! limit: a request with broken parameters, for a document that is not open or for a position
//! past its end is answered (an error response, or an empty result), a message that is not
//! JSON-RPC is skipped, and a document over `--max-input-bytes` is refused with a diagnostic.
//!
//! Edits are applied as they come; the documents they changed are compiled, and their
//! diagnostics published, once the messages the client queued are taken, or before a request.

use std::collections::{BTreeSet, HashMap};
use std::io::{self, BufRead, Read};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread;

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOptions, CodeActionOrCommand,
    CodeActionProviderCapability, CodeActionResponse, CompletionItem, CompletionItemKind,
    CompletionOptions, CompletionResponse, CompletionTextEdit, DiagnosticRelatedInformation,
    DiagnosticSeverity, DocumentSymbol, DocumentSymbolResponse, GotoDefinitionResponse, Hover,
    HoverContents, HoverProviderCapability, InitializeResult, InsertTextFormat, MarkupContent,
    MarkupKind, NumberOrString, OneOf, Position, PositionEncodingKind, PrepareRenameResponse,
    PublishDiagnosticsParams, Range, RenameOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, Uri, WorkspaceEdit,
};
use ropey::Rope;
use serde_json::Value;

use tooldef::analysis::{self, Analysis, CompletionKind, RenameError, SymbolKind};
use tooldef::{Diagnostic, FileLoader, Loader, Severity, Span};

use super::build_command::tool_files;
use super::read::{self, Limit};
use super::{to_stderr, InputLimits};

/// The arguments of `tooldef lsp`.
#[derive(clap::Args)]
pub(crate) struct LspArgs {
    /// Speak over standard input and output: the only transport, and the default. Accepted
    /// because clients such as VS Code's pass it.
    #[arg(long)]
    stdio: bool,
}

/// Exit codes: 0 after `shutdown` then `exit`; 1 when the client exits without `shutdown`, or
/// standard input ends or breaks first.
const EXIT_CLEAN: u8 = 0;
const EXIT_UNCLEAN: u8 = 1;

pub(crate) fn run(args: &LspArgs, limits: &InputLimits) -> Result<u8, String> {
    let _ = args.stdio;
    let (connection, writer) = stdio(message_limit(limits.max_input_bytes));
    let code = serve(&connection, limits);
    // Dropping the sender lets the writer finish what is queued (the answer to `shutdown`).
    drop(connection);
    let _ = writer.join();
    Ok(code)
}

/// The largest message read: a source at `--max-input-bytes` with every byte escaped (`\u0000`
/// is six bytes), and room for the rest of the message.
fn message_limit(max_input_bytes: usize) -> usize {
    max_input_bytes.saturating_mul(6).saturating_add(1 << 20)
}

/// The two ends of the connection: what the client sent, and what goes back.
struct Connection {
    sender: Sender<Message>,
    /// Each message read, with what it counts in [`Connection::backlog`].
    receiver: Receiver<(Message, usize)>,
    backlog: Arc<Backlog>,
}

/// How much the reader may read ahead of the server, in bytes of message bodies (and
/// [`MESSAGE_COST`] a message): enough for a burst of edits to be queued whole, so that the
/// server applies them all and compiles once, not once per edit.
const READ_AHEAD: usize = 16 << 20;

/// What a message counts in the backlog besides its body: its parsed form's own allocations.
const MESSAGE_COST: usize = 256;

/// The bytes of the messages read and not yet taken by the server: the reader waits while they
/// are more than [`READ_AHEAD`], so what is queued stays bounded however fast the client writes.
#[derive(Default)]
struct Backlog {
    bytes: Mutex<usize>,
    taken: Condvar,
}

impl Backlog {
    fn add(&self, bytes: usize) {
        let mut queued = self.bytes.lock().unwrap_or_else(PoisonError::into_inner);
        *queued = queued.saturating_add(bytes);
    }

    fn take(&self, bytes: usize) {
        let mut queued = self.bytes.lock().unwrap_or_else(PoisonError::into_inner);
        *queued = queued.saturating_sub(bytes);
        self.taken.notify_all();
    }

    /// Waits until the server has taken enough that no more than `bytes` are queued.
    fn wait_for_room(&self, bytes: usize) {
        let mut queued = self.bytes.lock().unwrap_or_else(PoisonError::into_inner);
        while *queued > bytes {
            queued = self
                .taken
                .wait(queued)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Connection {
    /// The next message, waiting for it; `None` once the reader has stopped and every message
    /// is taken.
    fn recv(&self) -> Option<Message> {
        let (message, cost) = self.receiver.recv().ok()?;
        self.backlog.take(cost);
        Some(message)
    }

    /// The next message if one is queued already.
    fn try_recv(&self) -> Option<Message> {
        let (message, cost) = self.receiver.try_recv().ok()?;
        self.backlog.take(cost);
        Some(message)
    }
}

/// Reads messages from standard input and writes messages to standard output, each on a thread
/// of its own; returns the connection and the writer thread.
fn stdio(limit: usize) -> (Connection, thread::JoinHandle<()>) {
    let (to_server, receiver) = crossbeam_channel::unbounded();
    let (sender, from_server) = crossbeam_channel::bounded::<Message>(0);
    let backlog = Arc::new(Backlog::default());
    let reader_backlog = Arc::clone(&backlog);
    thread::spawn(move || {
        let stdin = io::stdin();
        let mut input = Frames::new(stdin.lock(), limit);
        read_messages(&mut input, &to_server, &reader_backlog);
    });
    let writer = thread::spawn(move || {
        let stdout = io::stdout();
        let mut out = stdout.lock();
        for message in from_server {
            if message.write(&mut out).is_err() {
                break;
            }
        }
    });
    let connection = Connection {
        sender,
        receiver,
        backlog,
    };
    (connection, writer)
}

/// Passes each message read to `to`, until `exit`, the end of the input or an error that loses
/// the framing, reading ahead of the server as far as `backlog` lets it. A message whose body
/// is not JSON-RPC is skipped with a note on standard error.
fn read_messages(
    input: &mut Frames<impl BufRead>,
    to: &Sender<(Message, usize)>,
    backlog: &Backlog,
) {
    loop {
        match Message::read(input) {
            Ok(Some(message)) => {
                let exit =
                    matches!(&message, Message::Notification(n) if n.method == note::Exit::METHOD);
                let cost = input.watch.body.saturating_add(MESSAGE_COST);
                backlog.add(cost);
                if to.send((message, cost)).is_err() || exit {
                    return;
                }
                backlog.wait_for_room(READ_AHEAD);
            }
            Ok(None) => return,
            Err(e) if input.between_messages() && e.kind() == io::ErrorKind::InvalidData => {
                to_stderr(&format!("tooldef lsp: skipped a message: {e}\n"));
            }
            Err(e) => {
                to_stderr(&format!(
                    "tooldef lsp: cannot read the client's messages: {e}\n"
                ));
                return;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The framing guard

/// The longest header line read (`Content-Length: …` is about 30 bytes).
const MAX_HEADER_LINE: usize = 1024;

/// Standard input as lsp-server's [`Message::read`] reads it, watched on the way: a header that
/// announces a body longer than the limit, or a header line without end, is an error before
/// lsp-server sets aside room for it. lsp-server does the framing; this only counts.
struct Frames<R> {
    inner: R,
    limit: usize,
    watch: Watch,
}

/// What the bytes consumed so far say about the message being read.
#[derive(Debug)]
struct Watch {
    /// Bytes of the body still to come; 0 while reading headers.
    body_left: usize,
    /// The header line being read.
    line: Vec<u8>,
    /// The length the headers of the message being read announce.
    announced: usize,
    /// The length of the body of the message being read, or of the last one read.
    body: usize,
    /// Why reading must stop.
    refused: Option<String>,
    /// Whether the last message ended (its body read whole) and nothing of the next one has
    /// been read: an error here leaves the framing intact.
    between: bool,
}

impl<R: BufRead> Frames<R> {
    fn new(inner: R, limit: usize) -> Self {
        Frames {
            inner,
            limit,
            watch: Watch {
                body_left: 0,
                line: Vec::new(),
                announced: 0,
                body: 0,
                refused: None,
                between: true,
            },
        }
    }

    fn between_messages(&self) -> bool {
        self.watch.between && self.watch.refused.is_none()
    }
}

impl Watch {
    fn consumed(&mut self, mut bytes: &[u8], limit: usize) {
        while !bytes.is_empty() {
            if self.body_left > 0 {
                let n = self.body_left.min(bytes.len());
                self.body_left -= n;
                bytes = &bytes[n..];
                self.between = self.body_left == 0;
                continue;
            }
            self.between = false;
            let b = bytes[0];
            bytes = &bytes[1..];
            if self.line.len() >= MAX_HEADER_LINE {
                self.refused = Some(format!(
                    "a header line is longer than {MAX_HEADER_LINE} bytes"
                ));
                return;
            }
            self.line.push(b);
            if b != b'\n' {
                continue;
            }
            let line = String::from_utf8_lossy(&self.line).trim().to_string();
            self.line.clear();
            if line.is_empty() {
                // The end of the headers: the body follows.
                self.body_left = std::mem::take(&mut self.announced);
                self.body = self.body_left;
                self.between = self.body_left == 0;
            } else if let Some((name, value)) = line.split_once(':') {
                if name.trim().eq_ignore_ascii_case("content-length") {
                    match value.trim().parse::<usize>() {
                        Ok(n) if n > limit => {
                            self.refused = Some(format!(
                                "a message of {n} bytes is longer than the limit of {limit} bytes (six times --max-input-bytes, and 1 MiB)"
                            ));
                            return;
                        }
                        Ok(n) => self.announced = n,
                        // lsp-server reports the bad header itself.
                        Err(_) => {}
                    }
                }
            }
        }
    }
}

impl<R: BufRead> Read for Frames<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(out.len());
            out[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Frames<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Some(why) = &self.watch.refused {
            return Err(io::Error::new(io::ErrorKind::InvalidData, why.clone()));
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if amount == 0 {
            return;
        }
        // The bytes are buffered already: looking at them reads nothing more.
        if let Ok(buffered) = self.inner.fill_buf() {
            let seen = &buffered[..amount.min(buffered.len())];
            self.watch.consumed(seen, self.limit);
        }
        self.inner.consume(amount);
    }
}

// ---------------------------------------------------------------------------------------------
// The session

/// How the client counts columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16,
}

struct Server<'c> {
    connection: &'c Connection,
    analysis: Analysis,
    encoding: Encoding,
    /// Whether completions may be snippets (`min_length($1)`).
    snippets: bool,
    /// The version of each open document, as the client numbers them.
    versions: HashMap<String, i32>,
    /// The workspace's folder (from `rootUri` or the first workspace folder), whose `.tool`
    /// files a rename also edits when they are not open.
    root: Option<PathBuf>,
    /// Reads those files: regular files only (a pipe or a device is never opened), each within
    /// `--max-input-bytes`.
    disk: FileLoader,
    /// The limit on a document's text: `--max-input-bytes`, as `check` bounds a source.
    limit: Limit,
    /// The open documents whose text was over [`Server::limit`], with the size it had: they are
    /// neither compiled nor kept, and requests about them are answered as about a document that
    /// is not open. A whole new text under the limit (or closing and opening again) takes one
    /// back.
    refused: HashMap<String, usize>,
    /// The documents edited (or opened) since they were last compiled, with their text: edits
    /// are applied as they come, and each document is compiled once the client's queued
    /// messages are taken, or before a request ([`Server::flush`]). Compiling at every edit
    /// made a burst of edits cost a compilation each (300 edits of a 100 KB document: 13.5 s,
    /// and a hover waited for them all).
    edited: HashMap<String, Lines>,
}

/// Runs a session: the handshake, then every message until `exit`. Returns the exit code.
fn serve(connection: &Connection, limits: &InputLimits) -> u8 {
    let Some(mut server) = initialize(connection, limits) else {
        return EXIT_UNCLEAN;
    };
    let mut shutdown = false;
    loop {
        // What the client queued is taken first, its edits applied as they come; the documents
        // they changed are compiled once nothing more is queued.
        let message = match connection.try_recv() {
            Some(message) => message,
            None => {
                server.flush();
                match connection.recv() {
                    Some(message) => message,
                    None => return EXIT_UNCLEAN,
                }
            }
        };
        match message {
            Message::Request(request) => {
                let response = if shutdown {
                    error(
                        request.id,
                        ErrorCode::InvalidRequest,
                        "the server is shutting down".into(),
                    )
                } else if request.method == req::Shutdown::METHOD {
                    shutdown = true;
                    Response::new_ok(request.id, Value::Null)
                } else {
                    // A request sees every edit sent before it.
                    server.flush();
                    server.request(request)
                };
                server.send(response.into());
            }
            Message::Notification(n) if n.method == note::Exit::METHOD => {
                return if shutdown { EXIT_CLEAN } else { EXIT_UNCLEAN };
            }
            Message::Notification(n) => server.notification(n),
            Message::Response(_) => {}
        }
    }
}

/// Waits for `initialize` and answers it with the capabilities; requests before it are refused,
/// other notifications dropped. `None` when the client leaves first.
fn initialize<'c>(connection: &'c Connection, limits: &InputLimits) -> Option<Server<'c>> {
    while let Some(message) = connection.recv() {
        match message {
            Message::Request(r) if r.method == req::Initialize::METHOD => {
                let encoding = encoding(&r.params);
                let snippets = r.params["capabilities"]["textDocument"]["completion"]
                    ["completionItem"]["snippetSupport"]
                    == true;
                let result = InitializeResult {
                    capabilities: capabilities(encoding),
                    server_info: Some(ServerInfo {
                        name: "tooldef".into(),
                        version: Some(env!("CARGO_PKG_VERSION").into()),
                    }),
                };
                let root = workspace_root(&r.params);
                // Imports stay inside `--root`, else the workspace; a client that opened no
                // folder names no project, and its imports are held only to `.tool` files.
                let disk = FileLoader {
                    max_bytes: limits.max_input_bytes,
                    ..match limits.root.clone().or_else(|| root.clone()) {
                        Some(within) => FileLoader::within(within),
                        None => FileLoader::default(),
                    }
                };
                let server = Server {
                    connection,
                    analysis: Analysis::with_loader(disk.clone()),
                    encoding,
                    snippets,
                    versions: HashMap::new(),
                    root,
                    disk,
                    limit: limits.input(),
                    refused: HashMap::new(),
                    edited: HashMap::new(),
                };
                server.send(ok(r.id, serde_json::to_value(result)).into());
                return Some(server);
            }
            Message::Request(r) => {
                let refused = error(
                    r.id,
                    ErrorCode::ServerNotInitialized,
                    "the server is not initialized".into(),
                );
                let _ = connection.sender.send(refused.into());
            }
            Message::Notification(n) if n.method == note::Exit::METHOD => return None,
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
    None
}

/// UTF-8 when the client offers it (`general.positionEncodings`), else UTF-16, which every
/// client speaks.
fn encoding(params: &Value) -> Encoding {
    let offered = params["capabilities"]["general"]["positionEncodings"].as_array();
    let utf8 = offered.is_some_and(|list| {
        list.iter()
            .any(|e| e.as_str() == Some(PositionEncodingKind::UTF8.as_str()))
    });
    if utf8 {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    }
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["@".into()]),
            ..CompletionOptions::default()
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        ..ServerCapabilities::default()
    }
}

/// The response that carries a result (serialized), or says it could not be.
fn ok(id: RequestId, result: serde_json::Result<Value>) -> Response {
    match result {
        Ok(value) => Response::new_ok(id, value),
        Err(e) => error(id, ErrorCode::InternalError, e.to_string()),
    }
}

fn error(id: RequestId, code: ErrorCode, message: String) -> Response {
    Response::new_err(id, code as i32, message)
}

/// A request's answer, or the error response that refuses it.
type Answer<T> = Result<T, (ErrorCode, String)>;

impl Server<'_> {
    fn send(&self, message: Message) {
        // A client that stopped reading gets nothing more; the session ends with its input.
        let _ = self.connection.sender.send(message);
    }

    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let method = request.method.clone();
        // A bug in a query answers that request with an error; the session goes on.
        match panic::catch_unwind(AssertUnwindSafe(|| self.answer(request))) {
            Ok(response) => response,
            Err(_) => error(
                id,
                ErrorCode::InternalError,
                format!("tooldef failed to answer `{method}`"),
            ),
        }
    }

    fn answer(&self, request: Request) -> Response {
        let id = request.id.clone();
        match request.method.as_str() {
            req::HoverRequest::METHOD => self.handle::<req::HoverRequest>(request, Self::hover),
            req::GotoDefinition::METHOD => {
                self.handle::<req::GotoDefinition>(request, Self::definition)
            }
            req::References::METHOD => self.handle::<req::References>(request, Self::references),
            req::Completion::METHOD => self.handle::<req::Completion>(request, Self::completion),
            req::DocumentSymbolRequest::METHOD => {
                self.handle::<req::DocumentSymbolRequest>(request, Self::symbols)
            }
            req::Formatting::METHOD => self.handle::<req::Formatting>(request, Self::formatting),
            req::PrepareRenameRequest::METHOD => {
                self.handle::<req::PrepareRenameRequest>(request, Self::prepare_rename)
            }
            req::Rename::METHOD => self.handle::<req::Rename>(request, Self::rename),
            req::CodeActionRequest::METHOD => {
                self.handle::<req::CodeActionRequest>(request, Self::code_actions)
            }
            req::Initialize::METHOD => error(
                id,
                ErrorCode::InvalidRequest,
                "the server is initialized already".into(),
            ),
            method => error(
                id,
                ErrorCode::MethodNotFound,
                format!("tooldef does not answer `{method}`"),
            ),
        }
    }

    /// Reads a request's parameters, answers them with `answer`, and wraps the result.
    fn handle<R: req::Request>(
        &self,
        request: Request,
        answer: fn(&Self, R::Params) -> Answer<R::Result>,
    ) -> Response {
        match serde_json::from_value::<R::Params>(request.params) {
            Ok(params) => match answer(self, params) {
                Ok(result) => ok(request.id, serde_json::to_value(result)),
                Err((code, message)) => error(request.id, code, message),
            },
            Err(e) => error(
                request.id,
                ErrorCode::InvalidParams,
                format!("invalid parameters for `{}`: {e}", R::METHOD),
            ),
        }
    }

    fn notification(&mut self, n: Notification) {
        let method = n.method.clone();
        let handled = match method.as_str() {
            note::DidOpenTextDocument::METHOD => n
                .extract::<lsp_types::DidOpenTextDocumentParams>(&method)
                .map(|p| {
                    let key = p.text_document.uri.as_str().to_string();
                    self.versions.insert(key.clone(), p.text_document.version);
                    self.refused.remove(&key);
                    let text = p.text_document.text;
                    let encoding = self.encoding;
                    self.edit(key, text.len(), || Lines::new(&text, encoding));
                }),
            note::DidChangeTextDocument::METHOD => n
                .extract::<lsp_types::DidChangeTextDocumentParams>(&method)
                .map(|p| {
                    let key = p.text_document.uri.as_str().to_string();
                    let open = self.analysis.text(&key).is_some()
                        || self.edited.contains_key(&key)
                        || self.refused.contains_key(&key);
                    if !open {
                        return;
                    }
                    // Each change applies to the text the ones before it left, so all of them
                    // are made to one rope: each in time logarithmic in the text, plus its own
                    // length. A whole new text replaces what came before it. A refused document
                    // has no text to edit: only a whole new text takes it back.
                    let mut changes = p.content_changes;
                    let whole = changes.iter().rposition(|c| c.range.is_none());
                    let edited = self.edited.remove(&key);
                    let mut lines = match (whole, edited, self.analysis.text(&key)) {
                        (Some(i), _, _) => Lines::new(&changes[i].text, self.encoding),
                        (None, Some(lines), _) => lines,
                        (None, None, Some(text)) => Lines::new(text, self.encoding),
                        (None, None, None) => return,
                    };
                    for change in changes.drain(whole.map_or(0, |i| i + 1)..) {
                        if let Some(range) = change.range {
                            lines.replace(range, &change.text);
                        }
                    }
                    self.versions.insert(key.clone(), p.text_document.version);
                    self.refused.remove(&key);
                    self.edit(key, lines.rope.len_bytes(), || lines);
                }),
            note::DidCloseTextDocument::METHOD => n
                .extract::<lsp_types::DidCloseTextDocumentParams>(&method)
                .map(|p| {
                    let key = p.text_document.uri.as_str().to_string();
                    self.edited.remove(&key);
                    self.analysis.remove(&key);
                    self.versions.remove(&key);
                    self.refused.remove(&key);
                    self.send_diagnostics(p.text_document.uri, Vec::new(), None);
                    // Its importers now read it from disk.
                    self.publish_affected(&key);
                }),
            // `initialized`, `$/cancelRequest` (every answer is immediate), saves, settings.
            _ => Ok(()),
        };
        if let Err(e) = handled {
            to_stderr(&format!("tooldef lsp: ignored `{method}`: {e}\n"));
        }
    }

    /// Tells the client (`window/showMessage`) that a rename left out the workspace files it
    /// could not read, and why: the first few reasons, and how many more.
    fn show_skipped(&self, reasons: &[String]) {
        const SHOWN: usize = 3;
        let message = format!(
            "rename left out {} workspace file{} it could not read: {}",
            reasons.len(),
            if reasons.len() == 1 { "" } else { "s" },
            tooldef::listed(reasons, SHOWN, "; ")
        );
        let params = lsp_types::ShowMessageParams {
            typ: lsp_types::MessageType::WARNING,
            message,
        };
        self.send(Notification::new(note::ShowMessage::METHOD.into(), params).into());
    }

    /// Gives a document its new text, of `size` bytes, to be compiled by [`Server::flush`]. A
    /// text over [`Server::limit`] is neither compiled nor kept (`text` is not even made): the
    /// document is refused, and its one diagnostic says why. (The compiler's memory grows with
    /// its source, some 200 bytes a byte: a 20 MB document took 4.3 GB.)
    fn edit(&mut self, key: String, size: usize, text: impl FnOnce() -> Lines) {
        if size <= self.limit.bytes {
            self.edited.insert(key, text());
            return;
        }
        self.edited.remove(&key);
        // Its importers now read it from disk, through the same limit.
        if self.analysis.remove(&key) {
            for k in self.analysis.affected_by(&key) {
                self.publish(&k);
            }
        }
        self.refused.insert(key.clone(), size);
        self.publish(&key);
    }

    /// Compiles each document edited since it was last compiled, then publishes the
    /// diagnostics of each of them and of the open documents that may import them, once each.
    fn flush(&mut self) {
        if self.edited.is_empty() {
            return;
        }
        let mut affected = BTreeSet::new();
        for (key, lines) in std::mem::take(&mut self.edited) {
            self.analysis.set(key.clone(), lines.text());
            affected.extend(self.analysis.affected_by(&key));
        }
        for key in affected {
            self.publish(&key);
        }
    }

    /// Publishes the diagnostics of a changed document and of the open documents that may
    /// import it.
    fn publish_affected(&self, key: &str) {
        for k in self.analysis.affected_by(key) {
            self.publish(&k);
        }
    }

    /// Publishes the diagnostics of an open document; of a refused one, the one that says so.
    /// A document with edits not yet compiled is left to [`Server::flush`]: what the analysis
    /// holds of it is older than its version.
    fn publish(&self, key: &str) {
        let Ok(uri) = Uri::from_str(key) else {
            return;
        };
        if self.edited.contains_key(key) {
            return;
        }
        let version = self.versions.get(key).copied();
        if let Some(&size) = self.refused.get(key) {
            let diagnostic = lsp_types::Diagnostic {
                range: Range::default(),
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String("too-large".into())),
                source: Some("tooldef".into()),
                message: format!(
                    "{}; it is not checked until it is within the limit (send its whole text, or close and open it again)",
                    read::too_large(&format!("this document ({size} bytes)"), self.limit)
                ),
                ..lsp_types::Diagnostic::default()
            };
            self.send_diagnostics(uri, vec![diagnostic], version);
            return;
        }
        let Some(text) = self.analysis.text(key) else {
            return;
        };
        let lines = Lines::new(text, self.encoding);
        // The other documents the diagnostics' related places are in, each indexed once.
        let mut others = LinesOf::new(&self.analysis, self.encoding);
        let diagnostics = self
            .analysis
            .diagnostics(key)
            .iter()
            .map(|d| Self::diagnostic(&uri, &lines, &mut others, d))
            .collect();
        self.send_diagnostics(uri, diagnostics, version);
    }

    fn send_diagnostics(
        &self,
        uri: Uri,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.send(Notification::new(note::PublishDiagnostics::METHOD.into(), params).into());
    }

    fn diagnostic(
        uri: &Uri,
        lines: &Lines,
        others: &mut LinesOf,
        d: &Diagnostic,
    ) -> lsp_types::Diagnostic {
        let related: Vec<DiagnosticRelatedInformation> = d
            .related
            .iter()
            .filter_map(|r| {
                let location = match &r.file {
                    None => lsp_types::Location {
                        uri: uri.clone(),
                        range: lines.range(r.span),
                    },
                    // A location in another document: one the client has open.
                    Some(source) => others.location(&analysis::Location {
                        document: source.name().to_string(),
                        span: r.span,
                    })?,
                };
                Some(DiagnosticRelatedInformation {
                    location,
                    message: r.message.clone(),
                })
            })
            .collect();
        let message = match &d.help {
            Some(help) => format!("{}\nhelp: {help}", d.message),
            None => d.message.clone(),
        };
        lsp_types::Diagnostic {
            range: lines.range(d.span),
            severity: Some(match d.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
            }),
            code: Some(NumberOrString::String(d.code.as_str().into())),
            source: Some("tooldef".into()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            ..lsp_types::Diagnostic::default()
        }
    }

    /// The document and the byte offset of a position in it; `None` for a document that is not
    /// open or a line past its end.
    fn locate<'a>(&'a self, uri: &'a Uri, at: Position) -> Option<(&'a str, Lines, usize)> {
        let key = uri.as_str();
        let lines = Lines::new(self.analysis.text(key)?, self.encoding);
        let offset = lines.offset(at)?;
        Some((key, lines, offset))
    }

    fn hover(&self, p: lsp_types::HoverParams) -> Answer<Option<Hover>> {
        let at = &p.text_document_position_params;
        let Some((key, lines, offset)) = self.locate(&at.text_document.uri, at.position) else {
            return Ok(None);
        };
        Ok(self.analysis.hover(key, offset).map(|h| Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: hover_markdown(&h),
            }),
            range: Some(lines.range(h.span)),
        }))
    }

    fn definition(
        &self,
        p: lsp_types::GotoDefinitionParams,
    ) -> Answer<Option<GotoDefinitionResponse>> {
        let at = &p.text_document_position_params;
        let Some((key, _, offset)) = self.locate(&at.text_document.uri, at.position) else {
            return Ok(None);
        };
        Ok(self
            .analysis
            .definition(key, offset)
            .and_then(|l| LinesOf::new(&self.analysis, self.encoding).location(&l))
            .map(GotoDefinitionResponse::Scalar))
    }

    fn references(
        &self,
        p: lsp_types::ReferenceParams,
    ) -> Answer<Option<Vec<lsp_types::Location>>> {
        let at = &p.text_document_position;
        let Some((key, _, offset)) = self.locate(&at.text_document.uri, at.position) else {
            return Ok(None);
        };
        let found = self
            .analysis
            .references(key, offset, p.context.include_declaration);
        let mut lines = LinesOf::new(&self.analysis, self.encoding);
        Ok(Some(
            found.iter().filter_map(|l| lines.location(l)).collect(),
        ))
    }

    fn completion(&self, p: lsp_types::CompletionParams) -> Answer<Option<CompletionResponse>> {
        let at = &p.text_document_position;
        let Some((key, lines, offset)) = self.locate(&at.text_document.uri, at.position) else {
            return Ok(None);
        };
        let Some(found) = self.analysis.completions(key, offset) else {
            return Ok(None);
        };
        let range = lines.range(found.span);
        let items = found
            .items
            .into_iter()
            .map(|c| {
                let snippet = c.snippet.filter(|_| self.snippets);
                CompletionItem {
                    kind: Some(match c.kind {
                        CompletionKind::BuiltinType | CompletionKind::Keyword => {
                            CompletionItemKind::KEYWORD
                        }
                        CompletionKind::Type => CompletionItemKind::STRUCT,
                        CompletionKind::Enum => CompletionItemKind::ENUM,
                        CompletionKind::Attribute => CompletionItemKind::PROPERTY,
                        CompletionKind::Value => CompletionItemKind::ENUM_MEMBER,
                    }),
                    detail: c.detail,
                    insert_text_format: Some(if snippet.is_some() {
                        InsertTextFormat::SNIPPET
                    } else {
                        InsertTextFormat::PLAIN_TEXT
                    }),
                    text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                        range,
                        new_text: snippet.unwrap_or(c.insert),
                    })),
                    label: c.label,
                    ..CompletionItem::default()
                }
            })
            .collect();
        Ok(Some(CompletionResponse::Array(items)))
    }

    fn symbols(
        &self,
        p: lsp_types::DocumentSymbolParams,
    ) -> Answer<Option<DocumentSymbolResponse>> {
        let key = p.text_document.uri.as_str();
        let Some(text) = self.analysis.text(key) else {
            return Ok(None);
        };
        let lines = Lines::new(text, self.encoding);
        let symbols = self.analysis.symbols(key);
        Ok(Some(DocumentSymbolResponse::Nested(
            symbols.iter().map(|s| document_symbol(&lines, s)).collect(),
        )))
    }

    fn formatting(&self, p: lsp_types::DocumentFormattingParams) -> Answer<Option<Vec<TextEdit>>> {
        let key = p.text_document.uri.as_str();
        let Some(text) = self.analysis.text(key) else {
            return Ok(None);
        };
        // A file that does not parse is left as it is; its diagnostics say why.
        if !self.analysis.parses(key) {
            return Ok(None);
        }
        let lines = Lines::new(text, self.encoding);
        match self.analysis.format(key) {
            Ok(edit) => Ok(Some(
                edit.into_iter()
                    .map(|e| TextEdit {
                        range: lines.range(e.span),
                        new_text: e.new_text,
                    })
                    .collect(),
            )),
            Err(errors) => Err((ErrorCode::RequestFailed, errors.to_string())),
        }
    }

    /// The quick fixes of the document's diagnostics in the range asked about: each fix a
    /// diagnostic offers (the name a "did you mean" suggests), as an edit of the document.
    fn code_actions(&self, p: lsp_types::CodeActionParams) -> Answer<Option<CodeActionResponse>> {
        let uri = &p.text_document.uri;
        let key = uri.as_str();
        let Some(text) = self.analysis.text(key) else {
            return Ok(None);
        };
        // Kinds are dotted paths: `quickfix` is asked for by `quickfix` and by its parents.
        let wanted = p.context.only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|k| CodeActionKind::QUICKFIX.as_str().starts_with(k.as_str()))
        });
        if !wanted {
            return Ok(Some(Vec::new()));
        }
        let lines = Lines::new(text, self.encoding);
        let mut others = LinesOf::new(&self.analysis, self.encoding);
        let mut actions = Vec::new();
        for d in self.analysis.diagnostics(key) {
            let range = lines.range(d.span);
            if d.fixes.is_empty() || range.start > p.range.end || p.range.start > range.end {
                continue;
            }
            let shown = Self::diagnostic(uri, &lines, &mut others, &d);
            for fix in &d.fixes {
                let edit = TextEdit {
                    range: lines.range(fix.span),
                    new_text: fix.text.clone(),
                };
                // lsp-types' `Uri` hashes and compares its text, which never changes.
                #[allow(clippy::mutable_key_type)]
                let changes = HashMap::from([(uri.clone(), vec![edit])]);
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: fix.title.clone(),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![shown.clone()]),
                    edit: Some(WorkspaceEdit {
                        changes: Some(changes),
                        ..WorkspaceEdit::default()
                    }),
                    is_preferred: Some(d.fixes.len() == 1),
                    ..CodeAction::default()
                }));
            }
        }
        Ok(Some(actions))
    }

    fn prepare_rename(
        &self,
        p: lsp_types::TextDocumentPositionParams,
    ) -> Answer<Option<PrepareRenameResponse>> {
        let Some((key, lines, offset)) = self.locate(&p.text_document.uri, p.position) else {
            return Ok(None);
        };
        match self.analysis.prepare_rename(key, offset) {
            Ok((span, placeholder)) => Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
                range: lines.range(span),
                placeholder,
            })),
            Err(RenameError::Nothing) => Ok(None),
            Err(e) => Err((ErrorCode::RequestFailed, e.to_string())),
        }
    }

    fn rename(&self, p: lsp_types::RenameParams) -> Answer<Option<WorkspaceEdit>> {
        let at = &p.text_document_position;
        let Some((key, _, offset)) = self.locate(&at.text_document.uri, at.position) else {
            return Ok(None);
        };
        // The open documents, and the workspace's other `.tool` files as they are on disk, so
        // that a type renamed in one file is renamed where other files import it too.
        let mut whole = Analysis::new();
        for k in self.analysis.keys() {
            whole.set(k, self.analysis.text(k).unwrap_or_default());
        }
        // A file that cannot be read (a pipe, a device, one over the size limit, not UTF-8) is
        // left out, and the client is told which.
        let mut skipped = Vec::new();
        for path in self
            .root
            .iter()
            .flat_map(|r| tool_files(std::slice::from_ref(r)))
        {
            let uri = file_uri(&path);
            if self.analysis.text(&uri).is_some() {
                continue;
            }
            match self.disk.load(&path.to_string_lossy()) {
                Ok(text) => whole.set(uri, text),
                Err(why) => skipped.push(why),
            }
        }
        if !skipped.is_empty() {
            self.show_skipped(&skipped);
        }
        let edits = whole
            .rename(key, offset, &p.new_name)
            .map_err(|e| (ErrorCode::RequestFailed, e.to_string()))?;
        // lsp-types' `Uri` hashes and compares its text, which never changes; the cell clippy
        // sees inside it is not part of either.
        #[allow(clippy::mutable_key_type)]
        let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
        let mut lines = LinesOf::new(&whole, self.encoding);
        for edit in edits {
            let Some(range) = lines.range(&edit.document, edit.span) else {
                continue;
            };
            let Ok(uri) = Uri::from_str(&edit.document) else {
                continue;
            };
            changes.entry(uri).or_default().push(TextEdit {
                range,
                new_text: edit.new_text,
            });
        }
        Ok(Some(WorkspaceEdit {
            changes: Some(changes),
            ..WorkspaceEdit::default()
        }))
    }
}

/// The folder of the workspace the client opened: `rootUri`, else the first of
/// `workspaceFolders` (a `file://` URI), else none.
fn workspace_root(params: &Value) -> Option<PathBuf> {
    let uri = params["rootUri"]
        .as_str()
        .or_else(|| params["workspaceFolders"][0]["uri"].as_str())?;
    let uri = Uri::from_str(uri).ok()?;
    if uri.scheme().map(|s| s.as_str()) != Some("file") {
        return None;
    }
    let decoded = uri
        .path()
        .as_estr()
        .decode()
        .into_string_lossy()
        .into_owned();
    Some(PathBuf::from(decoded))
}

/// The `file://` URI of an absolute path, as clients write them: each byte outside the
/// unreserved characters and `/` percent-encoded.
fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

fn document_symbol(lines: &Lines, s: &analysis::Symbol) -> DocumentSymbol {
    #[allow(deprecated)] // `deprecated` is a field every literal must name.
    DocumentSymbol {
        // Clients refuse a symbol without a name; `""` is a (quoted) name the checker rejects.
        name: if s.name.is_empty() {
            "\"\"".into()
        } else {
            s.name.clone()
        },
        detail: s.detail.clone(),
        kind: match s.kind {
            SymbolKind::Tool => lsp_types::SymbolKind::FUNCTION,
            SymbolKind::Object => lsp_types::SymbolKind::STRUCT,
            SymbolKind::Alias => lsp_types::SymbolKind::TYPE_PARAMETER,
            SymbolKind::Enum => lsp_types::SymbolKind::ENUM,
            SymbolKind::Field => lsp_types::SymbolKind::FIELD,
            SymbolKind::EnumValue => lsp_types::SymbolKind::ENUM_MEMBER,
            SymbolKind::Import => lsp_types::SymbolKind::MODULE,
        },
        tags: None,
        deprecated: None,
        range: lines.range(s.span),
        selection_range: lines.range(s.name_span),
        children: (!s.children.is_empty()).then(|| {
            s.children
                .iter()
                .map(|c| document_symbol(lines, c))
                .collect()
        }),
    }
}

/// A hover as Markdown: the declaration as `.tool` code, its description, its constraints and
/// its JSON Schema.
fn hover_markdown(h: &analysis::Hover) -> String {
    let mut out = fenced("tool", &h.code);
    if let Some(description) = &h.description {
        out.push_str("\n\n");
        out.push_str(description);
    }
    if !h.constraints.is_empty() {
        out.push_str("\n\nConstraints: ");
        let written: Vec<String> = h.constraints.iter().map(|c| code_span(c)).collect();
        out.push_str(&written.join(", "));
    }
    if let Some(schema) = &h.schema {
        let json = serde_json::to_string_pretty(schema).unwrap_or_default();
        out.push_str("\n\nJSON Schema:\n");
        out.push_str(&fenced("json", &json));
    }
    out
}

/// A fenced code block, its fence longer than any run of backticks in `code`.
fn fenced(language: &str, code: &str) -> String {
    let fence = "`".repeat(longest_backticks(code).max(2) + 1);
    format!("{fence}{language}\n{code}\n{fence}")
}

/// Inline code, its backticks more than any run in `code` (and spaced off when it holds any).
fn code_span(code: &str) -> String {
    match longest_backticks(code) {
        0 => format!("`{code}`"),
        n => {
            let ticks = "`".repeat(n + 1);
            format!("{ticks} {code} {ticks}")
        }
    }
}

fn longest_backticks(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// Positions

/// The [`Lines`] of the documents of an analysis, each made once, when first asked for: an
/// answer with many places (references, a rename, related places of diagnostics) indexes each
/// document once, not once per place. Indexing per place made references and rename take time
/// proportional to the places times the document (80,000 uses of a type: 98 s).
struct LinesOf<'a> {
    analysis: &'a Analysis,
    encoding: Encoding,
    made: HashMap<String, Lines>,
}

impl<'a> LinesOf<'a> {
    fn new(analysis: &'a Analysis, encoding: Encoding) -> Self {
        LinesOf {
            analysis,
            encoding,
            made: HashMap::new(),
        }
    }

    /// The LSP range of a span of document `key`; `None` when it is not open.
    fn range(&mut self, key: &str, span: Span) -> Option<Range> {
        if !self.made.contains_key(key) {
            let text = self.analysis.text(key)?;
            self.made
                .insert(key.to_string(), Lines::new(text, self.encoding));
        }
        Some(self.made.get(key)?.range(span))
    }

    /// The LSP location of a place in one of the documents.
    fn location(&mut self, l: &analysis::Location) -> Option<lsp_types::Location> {
        Some(lsp_types::Location {
            range: self.range(&l.document, l.span)?,
            uri: Uri::from_str(&l.document).ok()?,
        })
    }
}

/// The lines of a text, to turn LSP positions (a line and a column in UTF-8 or UTF-16 code
/// units) into byte offsets and back, and to apply the client's edits. Lines end at `\n`,
/// `\r\n` or a lone `\r`, as LSP says.
///
/// The text is held in a rope, which counts lines, characters and UTF-16 units in each of its
/// chunks: a conversion takes time logarithmic in the text, whatever the line's length, and so
/// does an edit. Counting the line's characters for each position made an outline of one long
/// line quadratic (40,000 types on one line, 1 MB: 196 s), and indexing the whole text again
/// for each edit of a `didChange` made its edits quadratic (4,000 edits of a 4 MB document:
/// 24.5 s).
struct Lines {
    rope: Rope,
    encoding: Encoding,
}

impl Lines {
    fn new(text: &str, encoding: Encoding) -> Self {
        Lines {
            rope: Rope::from_str(text),
            encoding,
        }
    }

    /// The character index where line `line`'s text ends (before its line break).
    fn line_end(&self, line: usize) -> usize {
        if line + 1 >= self.rope.len_lines() {
            return self.rope.len_chars();
        }
        let next = self.rope.line_to_char(line + 1);
        let crlf =
            next >= 2 && self.rope.char(next - 1) == '\n' && self.rope.char(next - 2) == '\r';
        next - if crlf { 2 } else { 1 }
    }

    /// The byte offset of a position; a column past the end of its line is the line's end, a
    /// column inside a character is the character, a line past the last is `None`.
    fn offset(&self, at: Position) -> Option<usize> {
        let line = usize::try_from(at.line).ok()?;
        if line >= self.rope.len_lines() {
            return None;
        }
        let (start, end) = (self.rope.line_to_char(line), self.line_end(line));
        let column = usize::try_from(at.character).unwrap_or(usize::MAX);
        let char = match self.encoding {
            Encoding::Utf8 => {
                let (start, end) = (self.rope.char_to_byte(start), self.rope.char_to_byte(end));
                self.rope
                    .byte_to_char(start.saturating_add(column).min(end))
            }
            Encoding::Utf16 => {
                let start = self.rope.char_to_utf16_cu(start);
                let end = self.rope.char_to_utf16_cu(end);
                self.rope
                    .utf16_cu_to_char(start.saturating_add(column).min(end))
            }
        };
        Some(self.rope.char_to_byte(char))
    }

    /// The byte offset of a position, a line past the last being the end of the text (for the
    /// ranges of edits).
    fn offset_clamped(&self, at: Position) -> usize {
        self.offset(at).unwrap_or(self.rope.len_bytes())
    }

    fn position(&self, offset: usize) -> Position {
        let char = self.rope.byte_to_char(offset.min(self.rope.len_bytes()));
        let line = self.rope.char_to_line(char);
        let start = self.rope.line_to_char(line);
        let char = char.min(self.line_end(line));
        let column = match self.encoding {
            Encoding::Utf8 => self.rope.char_to_byte(char) - self.rope.char_to_byte(start),
            Encoding::Utf16 => self.rope.char_to_utf16_cu(char) - self.rope.char_to_utf16_cu(start),
        };
        Position {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            character: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }

    fn range(&self, span: Span) -> Range {
        Range {
            start: self.position(span.start),
            end: self.position(span.end),
        }
    }

    /// Replaces the text of an LSP range (read as [`Lines::offset_clamped`] reads it; an end
    /// before the start is the start) with `text`.
    fn replace(&mut self, range: Range, text: &str) {
        let start = self.rope.byte_to_char(self.offset_clamped(range.start));
        let end = self
            .rope
            .byte_to_char(self.offset_clamped(range.end))
            .max(start);
        self.rope.remove(start..end);
        self.rope.insert(start, text);
    }

    fn text(&self) -> String {
        self.rope.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn columns_count_utf16_units_or_utf8_bytes() {
        // `é` is 2 bytes and 1 UTF-16 unit; `🙂` is 4 bytes and 2 units.
        let text = "é🙂x\nab";
        let x = text.find('x').unwrap();
        let utf16 = Lines::new(text, Encoding::Utf16);
        assert_eq!(utf16.position(x), pos(0, 3));
        assert_eq!(utf16.offset(pos(0, 3)), Some(x));
        let utf8 = Lines::new(text, Encoding::Utf8);
        assert_eq!(utf8.position(x), pos(0, 6));
        assert_eq!(utf8.offset(pos(0, 6)), Some(x));
        // A column inside a character stands for the character.
        assert_eq!(utf16.offset(pos(0, 2)), Some(2));
        assert_eq!(utf8.offset(pos(0, 4)), Some(2));
        // Past the end of a line: the line's end; past the last line: nothing.
        assert_eq!(utf16.offset(pos(0, 99)), Some(x + 1));
        assert_eq!(utf16.offset(pos(1, 1)), Some(x + 3));
        assert_eq!(utf16.offset(pos(2, 0)), None);
        assert_eq!(utf16.offset_clamped(pos(9, 0)), text.len());
        assert_eq!(utf16.position(text.len() + 5), pos(1, 2));
    }

    #[test]
    fn lines_end_at_lf_crlf_and_cr() {
        let text = "a\r\nb\rc\nd";
        let lines = Lines::new(text, Encoding::Utf16);
        for (line, start) in [(0, 0), (1, 3), (2, 5), (3, 7)] {
            assert_eq!(lines.offset(pos(line, 0)), Some(start));
        }
        assert_eq!(lines.position(1), pos(0, 1));
        assert_eq!(lines.position(2), pos(0, 1), "inside the CRLF");
        assert_eq!(lines.offset(pos(0, 5)), Some(1));
        assert_eq!(lines.offset(pos(2, 1)), Some(6));
        assert_eq!(
            lines.range(Span::new(3, 8)),
            Range::new(pos(1, 0), pos(3, 1))
        );
    }

    #[test]
    fn positions_and_offsets_agree_on_every_kind_of_line() {
        for text in ["", "\r", "a\r\nbé\r🙂\n\nx\r", "é\r\n", "🙂🙂\n🙂"] {
            for encoding in [Encoding::Utf8, Encoding::Utf16] {
                let lines = Lines::new(text, encoding);
                for b in 0..=text.len() {
                    let at = lines.offset(lines.position(b)).expect("a line of the text");
                    // Back at `b`, unless `b` is inside a character or a line break.
                    let bytes = text.as_bytes();
                    let inside_break =
                        b > 0 && bytes[b - 1] == b'\r' && bytes.get(b) == Some(&b'\n');
                    if text.is_char_boundary(b) && !inside_break {
                        assert_eq!(at, b, "{text:?} {encoding:?}");
                    }
                    assert_eq!(lines.offset(lines.position(at)), Some(at));
                }
            }
        }
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    fn read_all(input: &str, limit: usize) -> (Vec<Message>, bool) {
        let (to, from) = crossbeam_channel::unbounded();
        let mut frames = Frames::new(io::BufReader::with_capacity(7, input.as_bytes()), limit);
        read_messages(&mut frames, &to, &Backlog::default());
        drop(to);
        (
            from.iter().map(|(m, _)| m).collect(),
            frames.watch.refused.is_some(),
        )
    }

    #[test]
    fn messages_are_read_whole_and_junk_between_them_skipped() {
        let ping = r#"{"jsonrpc":"2.0","method":"ping"}"#;
        let input = [
            frame(ping),
            frame("not json"),
            frame("{\"x\": 1}"),
            frame(ping),
        ]
        .concat();
        let (messages, refused) = read_all(&input, 1000);
        assert_eq!(messages.len(), 2);
        assert!(!refused);
    }

    #[test]
    fn a_body_longer_than_the_limit_is_refused_before_it_is_read() {
        let input = "Content-Length: 18446744073709551615\r\n\r\n{}";
        let (messages, refused) = read_all(input, 1000);
        assert!(messages.is_empty());
        assert!(refused);
        let huge = format!("Content-Length: 1001\r\n\r\n{}", "x".repeat(1001));
        assert!(read_all(&huge, 1000).1);
        let ok = frame(&format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"{}\"}}",
            "x".repeat(960)
        ));
        assert_eq!(read_all(&ok, 1000).0.len(), 1);
    }

    #[test]
    fn a_header_line_without_end_is_refused() {
        let input = "X".repeat(10 * MAX_HEADER_LINE);
        let (messages, refused) = read_all(&input, 1000);
        assert!(messages.is_empty());
        assert!(refused);
    }

    #[test]
    fn hover_code_fences_outlast_the_backticks_inside() {
        assert_eq!(fenced("tool", "a"), "```tool\na\n```");
        assert_eq!(fenced("tool", "x ```` y"), "`````tool\nx ```` y\n`````");
        assert_eq!(code_span("@a(\"`\")"), "`` @a(\"`\") ``");
        assert_eq!(code_span("@min(1)"), "`@min(1)`");
    }
}
