//! Presenting diagnostics to people: source snippets drawn by miette (feature `cli`).
//!
//! This is the only module that formats for a terminal; the stages before it produce plain data
//! (and [`Diagnostic::to_json`](crate::Diagnostic::to_json) is the form for machines).

use std::fmt;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceSpan, SpanContents,
};

use crate::diagnostic::{Diagnostic, LineIndex, Severity};

/// How to draw reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Unicode box drawing with ANSI colours.
    Color,
    /// Unicode box drawing, no escape codes (for pipes, files, `NO_COLOR` and tests).
    Plain,
}

struct Report<'a> {
    diagnostic: &'a Diagnostic,
    source: &'a Windowed<'a>,
    /// The help, followed by the related places in other files (a snippet shows one file).
    help: Option<String>,
}

/// A source as miette reads it, but found through a line index: miette's own reading of a
/// source walks it from the start for every span, and a copy of it goes with every report, so
/// a file with many diagnostics cost time in its length times their number. Here each span is
/// read from a window of the lines around it.
struct Windowed<'a> {
    name: &'a str,
    text: &'a str,
    lines: LineIndex,
}

impl miette::SourceCode for Windowed<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let (start, len) = (span.offset(), span.len());
        if start + len > self.text.len() {
            return Err(MietteError::OutOfBounds);
        }
        // miette stops reading where its context ends; the window only has to reach that far
        // (its reading counts a span's own line break apart from the lines after it, so two
        // lines of slack).
        let first = self.lines.line_of(start).saturating_sub(before + 1);
        let last = self.lines.line_of(start + len.saturating_sub(1)) + after + 2;
        let from = self.lines.line_start(first).unwrap_or(0);
        let to = self.lines.line_start(last + 1).unwrap_or(self.text.len());
        let window: &'b str = &self.text[from..to];
        let inner =
            window.read_span(&SourceSpan::new((start - from).into(), len), before, after)?;
        let shifted = SourceSpan::new((inner.span().offset() + from).into(), inner.span().len());
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.to_string(),
            inner.data(),
            shifted,
            inner.line() + first,
            inner.column(),
            // miette's reading counts the line breaks from the start of the source to the end
            // of the context, and decides from that whether two labels share a snippet.
            inner.line_count() + first,
        )))
    }
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.diagnostic, f)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(format!("tooldef::{}", self.diagnostic.code)))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let len = self.source.text.len();
        let clamp = move |s: crate::Span| {
            let start = s.start.min(len);
            (start, s.end.clamp(start, len) - start)
        };
        let d = self.diagnostic;
        let label = (!d.label.is_empty()).then(|| d.label.clone());
        let primary = LabeledSpan::new_primary_with_span(label, clamp(d.span));
        let related = d
            .related
            .iter()
            .filter(|r| r.file.is_none())
            .map(move |r| LabeledSpan::new_with_span(Some(r.message.clone()), clamp(r.span)));
        Some(Box::new(std::iter::once(primary).chain(related)))
    }
}

/// Renders one diagnostic with a snippet of `source` (named `file`).
pub fn report(diagnostic: &Diagnostic, file: &str, source: &str, style: Style) -> String {
    reports(std::slice::from_ref(diagnostic), file, source, style)
}

/// Renders every diagnostic, separated by blank lines. The source is indexed once, and each
/// snippet is read from the lines around its spans, so the time grows with the source plus the
/// number of diagnostics, not with their product.
pub fn reports(diagnostics: &[Diagnostic], file: &str, source: &str, style: Style) -> String {
    let theme = match style {
        Style::Color => GraphicalTheme::unicode(),
        Style::Plain => GraphicalTheme::unicode_nocolor(),
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false);
    let windowed = Windowed {
        name: file,
        text: source,
        lines: LineIndex::new(source),
    };
    let mut out = String::new();
    for (i, diagnostic) in diagnostics.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let elsewhere = diagnostic.related.iter().filter_map(|r| {
            r.file
                .as_ref()
                .map(|f| format!("{}: {}", r.message, f.locate(r.span)))
        });
        let help: Vec<String> = diagnostic.help.iter().cloned().chain(elsewhere).collect();
        let report = Report {
            diagnostic,
            source: &windowed,
            help: (!help.is_empty()).then(|| help.join("\n")),
        };
        let mut one = String::new();
        if handler.render_report(&mut one, &report).is_err() {
            one = format!("{}: {}\n", diagnostic.code, diagnostic.message);
        }
        out.push_str(&one);
    }
    out
}
