//! Language queries for editors: what a language server asks about `.tool` sources.
//!
//! An [`Analysis`] holds a set of documents keyed by a name the host chooses (a path or a URI)
//! and answers questions about them at byte offsets: diagnostics, hover, go to definition,
//! references, completion, document symbols, rename and formatting. Everything here is plain
//! data over source text and byte offsets; the protocol (positions in lines and UTF-16 or UTF-8
//! columns, JSON-RPC) is the host's business (`tooldef lsp` in the command line).
//!
//! Every query is answered from the syntax tree ([`crate::parse`]) and, where it needs the
//! checked model (the JSON Schema of a field), from [`crate::compile`]. Completion alone reads
//! tokens rather than the tree, since it is asked while the source is half typed.
//!
//! A document keeps its diagnostics, not its compiled model: a model holds the models of
//! everything the document imports, so many documents importing one large file would each hold
//! a copy of it. The analysis keeps one compiled model at a time, that of the document last
//! changed or asked about; a query about another document compiles that one again.
//!
//! Names resolve within a document and through its imports (`import { A } from "./x.tool"`):
//! into another open document, or into the file on disk. Documents are compiled with their
//! imports, and each remembers every file its compilation asked for, read or not (an import that
//! failed to load is one a document opened later may satisfy). A change recompiles the changed
//! document and those that asked for it ([`Analysis::affected_by`] names them, for a host to
//! republish their diagnostics); other documents are left alone.
//!
//! ```
//! use tooldef::analysis::Analysis;
//!
//! let source = "/// Places.\ntool find { near: Point }\ntype Point { lat: number, lon: number }\n";
//! let mut analysis = Analysis::new();
//! analysis.set("find.tool", source);
//!
//! let use_site = source.find("Point").unwrap();
//! let definition = analysis.definition("find.tool", use_site).unwrap();
//! assert_eq!(&source[definition.span.start..definition.span.end], "Point");
//! assert!(definition.span.start > use_site);
//!
//! let edits = analysis.rename("find.tool", use_site, "Place").unwrap();
//! assert_eq!(edits.len(), 2);
//! ```

mod complete;
mod hover;
mod locate;
mod rename;
mod symbols;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use crate::ast;
use crate::diagnostic::{Diagnostic, Errors, Span};
use crate::Compiled;

pub use complete::{Completion, CompletionKind, Completions};
pub use rename::RenameError;
pub use symbols::{Symbol, SymbolKind};

/// The documents an editor has open, and the questions asked about them.
#[derive(Debug, Default)]
pub struct Analysis {
    documents: BTreeMap<String, Document>,
    /// The number of the last compilation: each document keeps the number of its own.
    generation: u64,
    /// The one compiled model the analysis keeps (behind a lock, so that a query through `&self`
    /// may fill it).
    model: Mutex<Option<Model>>,
    /// Reads the imports that are not open documents: inside its root, within its size limit.
    disk: crate::FileLoader,
}

/// The compiled model of one document, as its compilation numbered `generation` made it: valid
/// while the document keeps that number.
#[derive(Debug)]
struct Model {
    key: String,
    generation: u64,
    /// `None` when that compilation failed.
    compiled: Option<Compiled>,
}

/// One document: its text, its syntax tree and what its last compilation found.
#[derive(Debug)]
struct Document {
    text: String,
    parsed: Result<ast::File, Errors>,
    /// Its own diagnostics, errors and warnings, in source order (those in the files it imports
    /// are theirs).
    diagnostics: Vec<Diagnostic>,
    /// Whether it compiled: whether a query may ask for its checked model.
    checks: bool,
    /// The number of its last compilation (0 before the first): a change to it or to a file it
    /// read gives it a new one, which no kept model has.
    generation: u64,
    /// Every file its compilation asked the loader for (its import closure, and the imports that
    /// could not be read): a change to one of them may change its diagnostics.
    reads: BTreeSet<String>,
    /// Where each type or enum is defined: the index of its item (the first, when a name is
    /// defined twice).
    definitions: HashMap<String, usize>,
}

impl Document {
    /// A document, compiled later (with the other documents at hand, for its imports).
    fn new(text: String) -> Document {
        let parsed = crate::parse(&text);
        let diagnostics = match &parsed {
            Ok(_) => Vec::new(),
            Err(e) => own(&e.diagnostics),
        };
        let mut definitions = HashMap::new();
        if let Ok(file) = &parsed {
            for (i, item) in file.items.iter().enumerate() {
                if let (ast::Item::Type(_) | ast::Item::Enum(_), Some(n)) = (item, item.name()) {
                    definitions.entry(n.text.clone()).or_insert(i);
                }
            }
        }
        Document {
            text,
            parsed,
            diagnostics,
            checks: false,
            generation: 0,
            reads: BTreeSet::new(),
            definitions,
        }
    }

    fn file(&self) -> Option<&ast::File> {
        self.parsed.as_ref().ok()
    }

    /// The source text of a span, or `""` for a span that is not in the text.
    fn slice(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    /// The type or enum item defined as `name` in this document.
    fn definition(&self, name: &str) -> Option<&ast::Item> {
        let file = self.file()?;
        file.items.get(*self.definitions.get(name)?)
    }
}

/// A place in one of the documents.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    /// The document's key, as given to [`Analysis::set`].
    pub document: String,
    /// The byte range.
    pub span: Span,
}

/// A replacement of the text of a span by new text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The document's key.
    pub document: String,
    /// The byte range replaced (empty for an insertion).
    pub span: Span,
    /// The text put in its place.
    pub new_text: String,
}

/// What [`Analysis::hover`] shows about the name under the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct Hover {
    /// The name the hover is about.
    pub span: Span,
    /// `.tool` text that declares it: a field as written, a tool's signature, a type's or an
    /// enum's definition, a built-in type's name.
    pub code: String,
    /// Its `///` description (for a built-in type, what it means).
    pub description: Option<String>,
    /// For a field, the constraints of its type as written (`@min_length(1)`).
    pub constraints: Vec<String>,
    /// The JSON Schema emitted for it (draft 2020-12, without `$schema`): a field's property
    /// schema, a type's or an enum's schema, with the `$defs` of the recursive types it refers
    /// to. Absent while the document has errors, for a tool, or when the schema would pass the
    /// emitters' size limits once named types are inlined.
    pub schema: Option<Value>,
}

impl Analysis {
    /// An analysis without documents.
    pub fn new() -> Analysis {
        Analysis::default()
    }

    /// An analysis that reads the imports it does not have open through `disk` (an editor
    /// gives it the workspace's folder as its root, so that no import reads outside it).
    pub fn with_loader(disk: crate::FileLoader) -> Analysis {
        Analysis {
            disk,
            ..Analysis::default()
        }
    }

    /// Opens a document, or replaces its text.
    pub fn set(&mut self, key: impl Into<String>, text: impl Into<String>) {
        let key = key.into();
        self.documents
            .insert(key.clone(), Document::new(text.into()));
        self.recompile(&key);
    }

    /// Compiles the document `changed` and every document whose compilation asked for it (it
    /// imports it, or imports a file that does), one at a time: each keeps its diagnostics, and
    /// the model of `changed` is kept for the queries that follow an edit.
    fn recompile(&mut self, changed: &str) {
        // The kept model may be one of those about to change: dropped before any other is made.
        *self.model.get_mut().unwrap_or_else(PoisonError::into_inner) = None;
        let mut affected = self.affected_by(changed);
        // `changed` last, so that its model is the only one alive from then on.
        affected.sort_by_key(|k| k == changed);
        for key in affected {
            let Some((compiled, reads)) =
                self.documents.get(&key).and_then(|d| self.compile(&key, d))
            else {
                continue;
            };
            self.generation = self.generation.wrapping_add(1);
            let generation = self.generation;
            let Some(doc) = self.documents.get_mut(&key) else {
                continue;
            };
            doc.diagnostics = match &compiled {
                Ok(c) => own(&c.warnings),
                Err(e) => own(&e.diagnostics),
            };
            doc.checks = compiled.is_ok();
            doc.reads = reads;
            doc.generation = generation;
            if key == changed {
                *self.model.get_mut().unwrap_or_else(PoisonError::into_inner) = Some(Model {
                    key,
                    generation,
                    compiled: compiled.ok(),
                });
            }
        }
    }

    /// Compiles a document with its imports, read from the open documents first, then from
    /// disk; with every file the compilation asked for. `None` when it does not parse.
    fn compile(
        &self,
        key: &str,
        doc: &Document,
    ) -> Option<(Result<Compiled, Errors>, BTreeSet<String>)> {
        doc.file()?;
        let loader = Recording {
            inner: EditorLoader {
                open: &self.documents,
                disk: self.disk.clone(),
            },
            asked: RefCell::new(BTreeSet::new()),
        };
        let compiled = crate::compile_with(key, &doc.text, &loader);
        Some((compiled, loader.asked.into_inner()))
    }

    /// `f` of the checked model of document `key`: the kept model when it is that document's
    /// as it stands, else the document compiled again (and kept in place of the other). `None`
    /// when the document is not open or did not compile (its errors or those of its imports).
    fn with_model<R>(&self, key: &str, f: impl FnOnce(&Compiled) -> Option<R>) -> Option<R> {
        let doc = self.documents.get(key)?;
        if !doc.checks {
            return None;
        }
        let mut kept = self.model.lock().unwrap_or_else(PoisonError::into_inner);
        let current = |m: &Model| m.key == key && m.generation == doc.generation;
        if !kept.as_ref().is_some_and(current) {
            // Dropped before the next one is made: one model at a time.
            *kept = None;
            let (compiled, _) = self.compile(key, doc)?;
            *kept = Some(Model {
                key: key.to_string(),
                generation: doc.generation,
                compiled: compiled.ok(),
            });
        }
        f(kept.as_ref()?.compiled.as_ref()?)
    }

    /// How many compiled models the analysis holds.
    #[cfg(test)]
    fn models(&self) -> usize {
        let kept = self.model.lock().unwrap_or_else(PoisonError::into_inner);
        usize::from(kept.as_ref().is_some_and(|m| m.compiled.is_some()))
    }

    /// The keys of the open documents whose diagnostics may change when `key` changes: itself
    /// and every document whose compilation asked for it, read or not (through an import, or an
    /// import of an import).
    pub fn affected_by(&self, key: &str) -> Vec<String> {
        self.documents
            .iter()
            .filter(|(k, d)| k.as_str() == key || d.reads.contains(key))
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// Closes a document; whether it was open.
    pub fn remove(&mut self, key: &str) -> bool {
        let removed = self.documents.remove(key).is_some();
        // The documents that import it now read it from disk.
        self.recompile(key);
        removed
    }

    /// The text of a document.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.documents.get(key).map(|d| d.text.as_str())
    }

    /// The keys of the open documents, in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.documents.keys().map(String::as_str)
    }

    /// Whether a document is open and follows the grammar (other errors aside).
    pub fn parses(&self, key: &str) -> bool {
        self.documents.get(key).is_some_and(|d| d.parsed.is_ok())
    }

    /// Every diagnostic of a document, errors and warnings, in source order: what
    /// [`crate::compile`] reports. Empty for a document that is not open.
    pub fn diagnostics(&self, key: &str) -> Vec<Diagnostic> {
        self.documents
            .get(key)
            .map(|d| d.diagnostics.clone())
            .unwrap_or_default()
    }

    /// What to show for the name at `offset`: a field, a tool, a type or enum (defined or used)
    /// or a built-in type.
    pub fn hover(&self, key: &str, offset: usize) -> Option<Hover> {
        hover::hover(self, key, offset)
    }

    /// Where the type or enum named at `offset` is defined (a field name in a value, such as
    /// `lat` in `= { lat: 1 }`, goes to the field).
    pub fn definition(&self, key: &str, offset: usize) -> Option<Location> {
        let doc = self.documents.get(key)?;
        match locate::at(doc, offset)? {
            locate::Found::Reference(name) => self.resolve(key, &name.text),
            locate::Found::Definition(item) => item.name().map(|n| Location {
                document: key.to_string(),
                span: n.span,
            }),
            locate::Found::Field { field, .. } | locate::Found::Key { field, .. } => {
                Some(Location {
                    document: key.to_string(),
                    span: field.name.span,
                })
            }
            locate::Found::Tool(_) | locate::Found::Builtin(_) => None,
        }
    }

    /// Every place that names the type, enum or field at `offset`: the uses of a type or enum in
    /// types, and for a field, the keys that name it in defaults and examples. With
    /// `include_declaration`, the definition too. Sorted by document and position.
    pub fn references(&self, key: &str, offset: usize, include_declaration: bool) -> Vec<Location> {
        rename::references(self, key, offset, include_declaration)
    }

    /// Completions at `offset`: type names where a type goes, attribute names after `@`, the
    /// values of an enum or literal union where a default or example of that type goes, and
    /// the item keywords between items. Read from the tokens, so a half-typed source is
    /// completed as well as a whole one.
    pub fn completions(&self, key: &str, offset: usize) -> Option<Completions> {
        let doc = self.documents.get(key)?;
        complete::completions(&doc.text, offset)
    }

    /// The outline of a document: tools, types and enums, with their fields and values as
    /// children. Empty while the document does not parse.
    pub fn symbols(&self, key: &str) -> Vec<Symbol> {
        match self.documents.get(key) {
            Some(doc) => symbols::symbols(doc),
            None => Vec::new(),
        }
    }

    /// The name a rename at `offset` would change, and its current text; an error says why
    /// there is nothing to rename there.
    pub fn prepare_rename(&self, key: &str, offset: usize) -> Result<(Span, String), RenameError> {
        rename::prepare(self, key, offset)
    }

    /// The edits that rename the type, enum or field at `offset` to `new_name` everywhere it is
    /// named. Refused when the new name is not an identifier, is reserved, or is already taken.
    pub fn rename(
        &self,
        key: &str,
        offset: usize,
        new_name: &str,
    ) -> Result<Vec<Edit>, RenameError> {
        rename::rename(self, key, offset, new_name)
    }

    /// The edit that lays a document out as [`crate::format`] does: one replacement of the part
    /// that changes, or none when the document is formatted already. Fails when the document
    /// does not parse or the formatter refuses it.
    pub fn format(&self, key: &str) -> Result<Option<Edit>, Errors> {
        let Some(doc) = self.documents.get(key) else {
            return Ok(None);
        };
        let formatted = crate::format(&doc.text)?;
        Ok(
            changed_part(&doc.text, &formatted).map(|(span, new_text)| Edit {
                document: key.to_string(),
                span,
                new_text: new_text.to_string(),
            }),
        )
    }

    /// Where the type or enum `name`, as named in document `key`, is defined: in the document
    /// itself, or in the file an import of it names (open, or read from disk). Every query that
    /// resolves a name goes through here.
    fn resolve(&self, key: &str, name: &str) -> Option<Location> {
        let doc = self.documents.get(key)?;
        if let Some(item) = doc.definition(name) {
            return Some(Location {
                document: key.to_string(),
                span: item.name()?.span,
            });
        }
        let path = doc.file()?.items.iter().find_map(|i| match i {
            ast::Item::Import(i) if i.names.iter().any(|n| n.text == name) => Some(&i.path),
            _ => None,
        })?;
        let loader = EditorLoader {
            open: &self.documents,
            disk: self.disk.clone(),
        };
        let target = crate::Loader::resolve(&loader, key, path);
        let span = match self.documents.get(&target) {
            Some(there) => there.definition(name)?.name()?.span,
            None => {
                let text = crate::Loader::load(&loader, &target).ok()?;
                let file = crate::parse(&text).ok()?;
                let item = file.items.iter().find(|i| {
                    matches!(i, ast::Item::Type(_) | ast::Item::Enum(_))
                        && i.name().is_some_and(|n| n.text == name)
                })?;
                item.name()?.span
            }
        };
        Some(Location {
            document: target,
            span,
        })
    }

    fn document(&self, key: &str) -> Option<&Document> {
        self.documents.get(key)
    }
}

/// A document's own diagnostics among those of its compilation: those in the files it imports
/// are theirs.
fn own(diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
    diagnostics
        .iter()
        .filter(|d| d.file.is_none())
        .cloned()
        .collect()
}

/// The span of `old` that differs from `new` and the text that replaces it: the common prefix
/// and suffix left out (on character boundaries), or `None` when the texts are equal.
fn changed_part<'n>(old: &str, new: &'n str) -> Option<(Span, &'n str)> {
    if old == new {
        return None;
    }
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = old.len().min(new.len()) - prefix;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    Some((
        Span::new(prefix, old.len() - suffix),
        &new[prefix..new.len() - suffix],
    ))
}

/// The offset, moved back to the start of the character it falls in; `None` past the end.
fn char_offset(text: &str, offset: usize) -> Option<usize> {
    if offset > text.len() {
        return None;
    }
    let mut at = offset;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    Some(at)
}

#[cfg(test)]
mod tests;

/// A loader that notes every name it is asked for.
struct Recording<L> {
    inner: L,
    asked: RefCell<BTreeSet<String>>,
}

impl<L: crate::Loader> crate::Loader for Recording<L> {
    fn resolve(&self, from: &str, path: &str) -> String {
        self.inner.resolve(from, path)
    }

    fn load(&self, name: &str) -> Result<String, String> {
        self.asked.borrow_mut().insert(name.to_string());
        self.inner.load(name)
    }
}

/// Reads imports for the documents of an editor: an open document's text first (it may be
/// unsaved), else the file on disk. Keys are paths or `file://` URIs; an import's path is joined
/// to the importing key's folder as text, so a URI stays a URI.
struct EditorLoader<'a> {
    open: &'a BTreeMap<String, Document>,
    disk: crate::FileLoader,
}

impl crate::Loader for EditorLoader<'_> {
    fn resolve(&self, from: &str, path: &str) -> String {
        if from.is_empty() || path.contains("://") {
            return path.to_string();
        }
        let mut folder: Vec<&str> = from.split('/').collect();
        folder.pop();
        // The parts that `..` may not remove: a URI's scheme and authority, a leading `/`.
        let root = if from.contains("://") {
            3
        } else {
            usize::from(from.starts_with('/'))
        };
        let mut parts =
            crate::modules::normalize_parts(root, folder.into_iter().chain(path.split('/')));
        if root > 0 && parts.len() == root {
            // The root itself: `/`, `file:///`.
            parts.push("");
        }
        parts.join("/")
    }

    fn load(&self, name: &str) -> Result<String, String> {
        if let Some(d) = self.open.get(name) {
            return Ok(d.text.clone());
        }
        let path = match name.strip_prefix("file://") {
            Some(rest) => {
                fluent_uri::pct_enc::EStr::<fluent_uri::pct_enc::encoder::Path>::new(rest)
                    .map(|e| e.decode().to_string_lossy().into_owned())
                    .unwrap_or_else(|| rest.to_string())
            }
            None => name.to_string(),
        };
        crate::Loader::load(&self.disk, &path)
    }
}
