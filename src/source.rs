//! Named source texts: what a diagnostic points into when it comes from one of several files.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use crate::diagnostic::{LineIndex, Span};

/// A `.tool` source with its name (a path as given, or a name the host chose), shared cheaply.
/// Diagnostics of a [`crate::Toolset`] carry the source they point into.
#[derive(Clone)]
pub struct Source(Arc<Inner>);

struct Inner {
    name: String,
    text: String,
    lines: LineIndex,
}

impl Source {
    /// A source called `name` holding `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        let text = text.into();
        Source(Arc::new(Inner {
            name: name.into(),
            lines: LineIndex::new(&text),
            text,
        }))
    }

    /// Reads a file as UTF-8 (named by the path as given). Invalid UTF-8 is an I/O error of
    /// kind `InvalidData`.
    pub fn read(path: impl AsRef<Path>) -> std::io::Result<Source> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)?;
        Ok(Source::new(path.display().to_string(), text))
    }

    /// The identity of the shared value: the same for a source and its clones.
    pub(crate) fn id(&self) -> *const () {
        Arc::as_ptr(&self.0).cast()
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.0.text
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        self.0.lines.line_col(&self.0.text, offset)
    }

    /// `name:line:column` of the start of a span.
    pub fn locate(&self, span: Span) -> String {
        let (line, column) = self.line_col(span.start);
        format!("{}:{line}:{column}", self.name())
    }
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("name", &self.0.name)
            .finish()
    }
}

/// Sources are equal when they are the same text under the same name.
impl PartialEq for Source {
    fn eq(&self, other: &Source) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.name() == other.name() && self.text() == other.text())
    }
}

impl Eq for Source {}
