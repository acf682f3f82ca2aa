//! Presenting diagnostics to people: source snippets drawn by miette (feature `cli`).
//!
//! This is the only module that formats for a terminal; the stages before it produce plain data
//! (and [`Diagnostic::to_json`](crate::Diagnostic::to_json) is the form for machines).

use std::fmt;
use std::ops::Range;

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

/// A line of at most this many bytes is shown whole.
const WHOLE_LINE: usize = 240;
/// On a longer line, how many characters are shown before and after each label's start and end
/// (and from the start of a line that holds none).
const AROUND: usize = 60;
/// Stands for the text left out of a line.
const CUT: &str = "…";

struct Report<'a> {
    diagnostic: &'a Diagnostic,
    excerpt: Excerpt<'a>,
    /// The help, followed by the related places in other files (a snippet shows one file).
    help: Option<String>,
}

/// What miette is shown of a source for one diagnostic: the lines its snippets hold, each line
/// longer than [`WHOLE_LINE`] cut to the characters around the labels on it, with [`CUT`] where
/// text is left out. miette draws every line it is given whole, and aligns a label with a
/// formatting width (at most 65,535), so a diagnostic far along a long line panicked in it, and
/// each of many diagnostics on one line repeated the whole line.
///
/// Offsets in the excerpt stand for offsets in the source: the labels are given to miette in the
/// excerpt's offsets, and each read of it answers with the source's line numbers and columns.
struct Excerpt<'a> {
    name: &'a str,
    /// The source and its index, for the columns a read answers (in characters).
    source: &'a str,
    index: &'a LineIndex,
    text: String,
    /// The lines shown, in order: runs of consecutive lines, one run per snippet.
    lines: Vec<Shown>,
    /// The labels' spans in the excerpt: the diagnostic's own, then its related places in this
    /// source.
    spans: Vec<Range<usize>>,
}

/// A line of the source in an [`Excerpt`].
struct Shown {
    /// Its 0-based number in the source.
    number: usize,
    /// Where it starts in the source.
    start: usize,
    /// Where it starts and ends (after its line break) in the excerpt.
    at: Range<usize>,
    /// The parts of it shown, each as (where in the source, where it starts in the excerpt).
    parts: Vec<(Range<usize>, usize)>,
    /// Where its line break (or the end of the source) is in the source and in the excerpt.
    end: (usize, usize),
}

impl Shown {
    /// The excerpt's offset for source offset `offset` on this line (a place left out is drawn
    /// at the nearest place shown).
    fn to_excerpt(&self, offset: usize) -> usize {
        if offset >= self.end.0 {
            return self.end.1 + (offset - self.end.0);
        }
        match self.parts.iter().rev().find(|(r, _)| r.start <= offset) {
            Some((r, at)) => at + (offset.min(r.end) - r.start),
            None => self.parts.first().map_or(self.end.1, |(_, at)| *at),
        }
    }

    /// The source's offset for excerpt offset `offset` on this line.
    fn to_source(&self, offset: usize) -> usize {
        if offset >= self.end.1 {
            return self.end.0 + (offset - self.end.1);
        }
        match self.parts.iter().rev().find(|(_, at)| *at <= offset) {
            Some((r, at)) => (r.start + (offset - at)).min(r.end),
            None => self.start,
        }
    }
}

/// The lines miette draws around a span: one either side of it (its `context_lines`).
fn context(lines: &LineIndex, last_line: usize, span: &Range<usize>) -> (usize, usize) {
    let first = lines.line_of(span.start);
    let last = lines.line_of(span.end.saturating_sub(1).max(span.start));
    (first.saturating_sub(1), (last + 1).min(last_line))
}

/// The most lines between two labels' snippets that miette draws as one snippet, the lines
/// between shown.
const JOINED_GAP: usize = 8;

/// What an excerpt read answers as its line count, for a read whose lines run from `first` to
/// `last`: miette draws two labels in one snippet when the second's lines start within the
/// first's line plus this count. The count is the read's own lines and [`JOINED_GAP`], so labels
/// a few lines apart share a snippet and labels further apart are drawn apart. (miette's own
/// reading counts the line breaks from the start of the source, so that labels on lines a and
/// 2a were drawn as one snippet with every line between them: a duplicate at the end of a long
/// file drew the whole file.)
fn line_count(first: usize, last: usize) -> usize {
    last - first + 1 + JOINED_GAP
}

impl<'a> Excerpt<'a> {
    /// The excerpt of `text` (named `name`, indexed by `lines`) for labels at `spans`.
    fn new(name: &'a str, text: &'a str, lines: &'a LineIndex, spans: Vec<Range<usize>>) -> Self {
        let last_line = lines.line_of(text.len());
        // The runs of lines miette will draw as one snippet each, found as it finds them: the
        // labels in order, each joining the run before when miette would draw them together.
        let mut order: Vec<&Range<usize>> = spans.iter().collect();
        order.sort_by_key(|s| s.start);
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for span in order {
            let (first, last) = context(lines, last_line, span);
            match runs.last_mut() {
                Some((a, b)) if first <= *a + line_count(*a, *b) => *b = (*b).max(last),
                _ => runs.push((first, last)),
            }
        }
        let mut excerpt = Excerpt {
            name,
            source: text,
            index: lines,
            text: String::new(),
            lines: Vec::new(),
            spans: Vec::new(),
        };
        for (first, last) in runs {
            for number in first..=last {
                excerpt.push_line(text, lines, number, &spans);
            }
        }
        excerpt.spans = spans
            .iter()
            .map(|s| {
                let start = excerpt.line(s.start, lines).to_excerpt(s.start);
                let end = if s.end > s.start {
                    excerpt.line(s.end - 1, lines).to_excerpt(s.end)
                } else {
                    start
                };
                start..end.max(start)
            })
            .collect();
        excerpt
    }

    /// The line shown that holds source offset `offset`.
    fn line(&self, offset: usize, lines: &LineIndex) -> &Shown {
        let number = lines.line_of(offset);
        let i = self.lines.partition_point(|l| l.number < number);
        &self.lines[i.min(self.lines.len() - 1)]
    }

    /// Adds line `number` of `text`, cut around the ends of the `spans` on it when it is long.
    fn push_line(&mut self, text: &str, lines: &LineIndex, number: usize, spans: &[Range<usize>]) {
        let start = lines.line_start(number).unwrap_or(text.len());
        let next = lines.line_start(number + 1).unwrap_or(text.len());
        let end = if text[start..next].ends_with('\n') {
            next - 1
        } else {
            next
        };
        let shown: Vec<Range<usize>> = if next - start <= WHOLE_LINE {
            std::iter::once(start..end).collect()
        } else {
            let mut anchors: Vec<usize> = Vec::new();
            for s in spans {
                if lines.line_of(s.start) == number {
                    anchors.push(s.start);
                }
                if s.end > s.start && lines.line_of(s.end - 1) == number {
                    anchors.push(s.end);
                }
            }
            if anchors.is_empty() {
                anchors.push(start);
            }
            let mut windows: Vec<Range<usize>> = anchors
                .into_iter()
                .map(|a| {
                    let mut a = a.clamp(start, end);
                    while !text.is_char_boundary(a) {
                        a -= 1;
                    }
                    let from = text[start..a]
                        .char_indices()
                        .rev()
                        .take(AROUND)
                        .last()
                        .map_or(a, |(i, _)| start + i);
                    let to = text[a..end]
                        .char_indices()
                        .nth(AROUND)
                        .map_or(end, |(i, _)| a + i);
                    from..to
                })
                .collect();
            windows.sort_by_key(|w| w.start);
            let mut merged: Vec<Range<usize>> = Vec::new();
            for w in windows {
                match merged.last_mut() {
                    Some(m) if w.start <= m.end => m.end = m.end.max(w.end),
                    _ => merged.push(w),
                }
            }
            merged
        };
        let at = self.text.len();
        let mut parts = Vec::with_capacity(shown.len());
        for (i, part) in shown.iter().enumerate() {
            if part.start > start || i > 0 {
                self.text.push_str(CUT);
            }
            parts.push((part.clone(), self.text.len()));
            self.text.push_str(&text[part.clone()]);
        }
        if shown.last().is_some_and(|p| p.end < end) {
            self.text.push_str(CUT);
        }
        let break_at = self.text.len();
        self.text.push_str(&text[end..next]);
        self.lines.push(Shown {
            number,
            start,
            at: at..self.text.len(),
            parts,
            end: (end, break_at),
        });
    }
}

impl miette::SourceCode for Excerpt<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let (start, len) = (span.offset(), span.len());
        if start + len > self.text.len() || self.lines.is_empty() {
            return Err(MietteError::OutOfBounds);
        }
        let find = |offset: usize| {
            self.lines
                .partition_point(|l| l.at.end <= offset)
                .min(self.lines.len() - 1)
        };
        let (first, last) = (
            find(start),
            find((start + len).saturating_sub(1).max(start)),
        );
        // A read must stay within one run of lines: the excerpt holds nothing between runs.
        let follows = |i: usize| self.lines[i].number == self.lines[i - 1].number + 1;
        if (first + 1..=last).any(|i| !follows(i)) {
            return Err(MietteError::OutOfBounds);
        }
        let mut from = first;
        while from > 0 && first - from < before && follows(from) {
            from -= 1;
        }
        let mut to = last;
        while to + 1 < self.lines.len() && to - last < after && follows(to + 1) {
            to += 1;
        }
        let (top, bottom) = (&self.lines[from], &self.lines[to]);
        // miette reads a column only without lines before (as its own reading does), and names
        // it in the report's header. Its own reading counts bytes; this one counts characters,
        // as the line and column of every other form do (`LineIndex::line_col`).
        let column = if before == 0 {
            let (_, column) = self
                .index
                .line_col(self.source, self.lines[first].to_source(start));
            column - 1
        } else {
            0
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.to_string(),
            &self.text.as_bytes()[top.at.start..bottom.at.end],
            SourceSpan::new(top.at.start.into(), bottom.at.end - top.at.start),
            top.number,
            column,
            line_count(top.number, bottom.number),
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
        Some(&self.excerpt)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let d = self.diagnostic;
        let label = (!d.label.is_empty()).then(|| d.label.clone());
        let messages = std::iter::once(label).chain(
            d.related
                .iter()
                .filter(|r| r.file.is_none())
                .map(|r| Some(r.message.clone())),
        );
        let labels = messages
            .zip(&self.excerpt.spans)
            .enumerate()
            .map(|(i, (message, span))| {
                let span = (span.start, span.len());
                if i == 0 {
                    LabeledSpan::new_primary_with_span(message, span)
                } else {
                    LabeledSpan::new_with_span(message, span)
                }
            });
        Some(Box::new(labels))
    }
}

/// Renders one diagnostic with a snippet of `source` (named `file`).
pub fn report(diagnostic: &Diagnostic, file: &str, source: &str, style: Style) -> String {
    reports(std::slice::from_ref(diagnostic), file, source, style)
}

/// Renders every diagnostic, separated by blank lines. The source is indexed once, and each
/// snippet holds the lines around its labels (as many as miette puts in one snippet), so the
/// time does not grow with the number of diagnostics times the length of the source. A line
/// longer than 240 bytes is shown cut to the 60 characters either side of each label's start and
/// end on it, with `…` where text is left out (the line and column named are the source's), so
/// neither does a report's size grow with the length of its lines.
pub fn reports(diagnostics: &[Diagnostic], file: &str, source: &str, style: Style) -> String {
    let mut out = String::new();
    each_report(diagnostics, file, source, style, |text| {
        out.push_str(text);
        true
    });
    out
}

/// [`reports`], written to `out` one diagnostic at a time: what is held at once is one report,
/// not every report of a source with a million problems. Stops at the first error of `out`
/// (a closed pipe), which it returns.
pub fn write_reports(
    out: &mut impl std::io::Write,
    diagnostics: &[Diagnostic],
    file: &str,
    source: &str,
    style: Style,
) -> std::io::Result<()> {
    let mut result = Ok(());
    each_report(diagnostics, file, source, style, |text| {
        result = out.write_all(text.as_bytes());
        result.is_ok()
    });
    result
}

/// Renders each diagnostic in turn and hands `write` its text (with the blank line that
/// separates it from the one before), while `write` answers `true`.
fn each_report(
    diagnostics: &[Diagnostic],
    file: &str,
    source: &str,
    style: Style,
    mut write: impl FnMut(&str) -> bool,
) {
    let theme = match style {
        Style::Color => GraphicalTheme::unicode(),
        Style::Plain => GraphicalTheme::unicode_nocolor(),
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false);
    let lines = LineIndex::new(source);
    let len = source.len();
    let clamp = |s: crate::Span| {
        let start = s.start.min(len);
        start..s.end.clamp(start, len)
    };
    let mut one = String::new();
    for (i, diagnostic) in diagnostics.iter().enumerate() {
        one.clear();
        if i > 0 {
            one.push('\n');
        }
        let elsewhere = diagnostic.related.iter().filter_map(|r| {
            r.file
                .as_ref()
                .map(|f| format!("{}: {}", r.message, f.locate(r.span)))
        });
        let help: Vec<String> = diagnostic.help.iter().cloned().chain(elsewhere).collect();
        let spans = std::iter::once(diagnostic.span)
            .chain(
                diagnostic
                    .related
                    .iter()
                    .filter(|r| r.file.is_none())
                    .map(|r| r.span),
            )
            .map(clamp)
            .collect();
        let report = Report {
            diagnostic,
            excerpt: Excerpt::new(file, source, &lines, spans),
            help: (!help.is_empty()).then(|| help.join("\n")),
        };
        let at = one.len();
        if handler.render_report(&mut one, &report).is_err() {
            one.truncate(at);
            one.push_str(&format!("{}: {}\n", diagnostic.code, diagnostic.message));
        }
        if !write(&one) {
            return;
        }
    }
}
