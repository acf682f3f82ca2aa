//! Presenting diagnostics to people: source snippets drawn by miette (feature `cli`).
//!
//! This is the only module that formats for a terminal; the stages before it produce plain data
//! (and [`Diagnostic::to_json`](crate::Diagnostic::to_json) is the form for machines).

use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};

use crate::diagnostic::{Diagnostic, Severity};

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
    source: NamedSource<String>,
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
        self.diagnostic
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let len = self.source.inner().len();
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
            .map(move |r| LabeledSpan::new_with_span(Some(r.message.clone()), clamp(r.span)));
        Some(Box::new(std::iter::once(primary).chain(related)))
    }
}

/// Renders one diagnostic with a snippet of `source` (named `file`).
pub fn report(diagnostic: &Diagnostic, file: &str, source: &str, style: Style) -> String {
    let theme = match style {
        Style::Color => GraphicalTheme::unicode(),
        Style::Plain => GraphicalTheme::unicode_nocolor(),
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false);
    let report = Report {
        diagnostic,
        source: NamedSource::new(file, source.to_string()),
    };
    let mut out = String::new();
    if handler.render_report(&mut out, &report).is_err() {
        out = format!("{}: {}\n", diagnostic.code, diagnostic.message);
    }
    out
}

/// Renders every diagnostic, separated by blank lines.
pub fn reports(diagnostics: &[Diagnostic], file: &str, source: &str, style: Style) -> String {
    diagnostics
        .iter()
        .map(|d| report(d, file, source, style))
        .collect::<Vec<_>>()
        .join("\n")
}
