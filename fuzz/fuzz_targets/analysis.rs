//! Arbitrary bytes as a document open in an editor, asked every question a language server asks
//! (`tooldef::analysis`), at offsets spread over the text and past its end, including offsets
//! inside a character.
//!
//! Invariants:
//! - no query panics, whatever the offset;
//! - every span a query returns for the document lies within its text, on character boundaries,
//!   and so does every fix a diagnostic offers; a fix applied to a document that parses gives
//!   one that parses;
//! - a rename's edits do not overlap, and applied to a document that parses, give one that
//!   parses;
//! - formatting's edit, applied, gives `tooldef::format`'s text, and formatting that asks for no
//!   further edit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tooldef::analysis::{Analysis, Edit, Symbol};
use tooldef::Span;

const KEY: &str = "fuzz.tool";

fn in_text(text: &str, span: Span, what: &str) {
    assert!(
        span.start <= span.end
            && span.end <= text.len()
            && text.is_char_boundary(span.start)
            && text.is_char_boundary(span.end),
        "{what}: {span:?} is not a span of a text of {} bytes",
        text.len()
    );
}

fn symbols_in_text(text: &str, symbols: &[Symbol]) {
    for s in symbols {
        in_text(text, s.span, "symbol");
        in_text(text, s.name_span, "symbol name");
        symbols_in_text(text, &s.children);
    }
}

/// `edits` (of the document) applied to `text`, from the last to the first.
fn apply(text: &str, edits: &[Edit]) -> String {
    let mut edits: Vec<&Edit> = edits.iter().filter(|e| e.document == KEY).collect();
    edits.sort_by_key(|e| (e.span.start, e.span.end));
    for pair in edits.windows(2) {
        assert!(
            pair[0].span.end <= pair[1].span.start,
            "edits overlap: {:?} and {:?}",
            pair[0].span,
            pair[1].span
        );
    }
    let mut out = text.to_string();
    for e in edits.iter().rev() {
        in_text(text, e.span, "edit");
        out.replace_range(e.span.start..e.span.end, &e.new_text);
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut analysis = Analysis::new();
    analysis.set(KEY, text);
    let parses = analysis.parses(KEY);
    for d in analysis.diagnostics(KEY) {
        assert!(d.span.end <= text.len() + 1, "diagnostic {:?}", d.span);
        for fix in &d.fixes {
            in_text(text, fix.span, "fix");
            let mut fixed = text.to_string();
            fixed.replace_range(fix.span.start..fix.span.end, &fix.text);
            if parses {
                assert!(
                    tooldef::parse(&fixed).is_ok(),
                    "the fix {:?} breaks the syntax:\n{fixed}",
                    fix.title
                );
            }
        }
    }
    symbols_in_text(text, &analysis.symbols(KEY));

    let step = (text.len() / 40).max(1);
    let offsets = (0..=text.len() + 1).step_by(step).chain([text.len(), text.len() + 7]);
    for (i, offset) in offsets.enumerate() {
        if let Some(hover) = analysis.hover(KEY, offset) {
            in_text(text, hover.span, "hover");
        }
        if let Some(place) = analysis.definition(KEY, offset) {
            if place.document == KEY {
                in_text(text, place.span, "definition");
            }
        }
        for place in analysis.references(KEY, offset, i % 2 == 0) {
            if place.document == KEY {
                in_text(text, place.span, "reference");
            }
        }
        let _ = analysis.completions(KEY, offset);
        if let Ok((span, _)) = analysis.prepare_rename(KEY, offset) {
            in_text(text, span, "rename target");
            // Renaming is asked at a few places only: each builds the edits for the whole text.
            if i % 8 == 0 {
                if let Ok(edits) = analysis.rename(KEY, offset, "renamed_by_fuzz") {
                    let renamed = apply(text, &edits);
                    if parses {
                        assert!(
                            tooldef::parse(&renamed).is_ok(),
                            "the rename at {offset} breaks the syntax:\n{renamed}"
                        );
                    }
                }
            }
        }
    }

    if let Ok(Some(edit)) = analysis.format(KEY) {
        let formatted = apply(text, std::slice::from_ref(&edit));
        assert_eq!(
            Ok(&formatted),
            tooldef::format(text).as_ref(),
            "the format edit is not the formatted text"
        );
        analysis.set(KEY, formatted.as_str());
        assert!(
            matches!(analysis.format(KEY), Ok(None)),
            "formatting the formatted text asks for an edit"
        );
    }
});
