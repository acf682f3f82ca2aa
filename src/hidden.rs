//! The tool-poisoning guard: which characters may hide text from a person reading a tool
//! definition while a model still reads them.
//!
//! This is the one place the rule lives; the checker (`.tool` source) and the importer (every
//! `--from` dialect) both call [`find`]. docs/language.md ("The tool-poisoning guard") lists the
//! positions it applies to.
//!
//! A character is hidden when it is in one of these classes ([`Class`]), tried in this order so
//! that a message names the most specific one:
//!
//! | Class | Characters | Source |
//! |---|---|---|
//! | [`Class::Control`] | C0, DEL and C1 controls (`General_Category=Cc`) | `icu_properties` |
//! | [`Class::LineSeparator`] | U+2028, U+2029 (`General_Category=Zl`, `Zp`) | `icu_properties` |
//! | [`Class::Tag`] | U+E0000–U+E007F, the tag characters | the block |
//! | [`Class::VariationSelector`] | U+FE00–U+FE0F, U+E0100–U+E01EF, the Mongolian free variation selectors (`Variation_Selector`) | `icu_properties` |
//! | [`Class::BidiControl`] | marks, embeddings, overrides and isolates (`Bidi_Control`) | `icu_properties` |
//! | [`Class::HangulFiller`] | U+115F, U+1160, U+3164, U+FFA0 | the four fillers |
//! | [`Class::InterlinearAnnotation`] | U+FFF9–U+FFFB | the three characters |
//! | [`Class::DefaultIgnorable`] | everything else with `Default_Ignorable_Code_Point` (zero-width space and joiners, soft hyphen, combining grapheme joiner, U+17B4/U+17B5, musical symbol format characters, …) | `icu_properties` |
//! | [`Class::Format`] | every other format character (`General_Category=Cf`, e.g. U+0600, U+110BD) | `icu_properties` |
//!
//! The tag, Hangul filler and interlinear annotation classes are subsets of the property classes
//! after them; they are named only so that a message says what was found.
//!
//! What counts depends on where the text goes ([`Text`]): a description may hold line feeds and
//! tabs; a value that a target writes into a description as JSON has its C0 controls escaped
//! (`\n`, `\u0000`), so they are visible there and allowed.

use icu_properties::props::{
    BidiControl, DefaultIgnorableCodePoint, GeneralCategory, VariationSelector,
};
use icu_properties::{CodePointMapData, CodePointSetData};
use serde_json::Value;

use crate::validate::error::escape_pointer;

/// Why a character is hidden. The order of the variants is the order [`class`] tries them in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A C0, DEL or C1 control character (`General_Category=Cc`).
    Control,
    /// U+2028 LINE SEPARATOR or U+2029 PARAGRAPH SEPARATOR (`Zl`, `Zp`): a line break many
    /// editors and diff viewers do not show.
    LineSeparator,
    /// A Unicode tag character, U+E0000–U+E007F: an invisible copy of ASCII.
    Tag,
    /// A variation selector (`Variation_Selector`): U+FE00–U+FE0F, U+E0100–U+E01EF and the
    /// Mongolian free variation selectors; 256 of them are enough to encode any byte after a
    /// visible character.
    VariationSelector,
    /// A bidirectional control (`Bidi_Control`): marks, embeddings, overrides and isolates,
    /// which reorder what a reviewer sees.
    BidiControl,
    /// A Hangul filler: U+115F, U+1160, U+3164 or U+FFA0, blank letters.
    HangulFiller,
    /// An interlinear annotation character, U+FFF9–U+FFFB.
    InterlinearAnnotation,
    /// Any other `Default_Ignorable_Code_Point`: a character that renders as nothing.
    DefaultIgnorable,
    /// Any other format character (`General_Category=Cf`).
    Format,
}

impl Class {
    /// The class in words, for messages ("a variation selector").
    pub fn describe(self) -> &'static str {
        match self {
            Class::Control => "a control character",
            Class::LineSeparator => "a line or paragraph separator",
            Class::Tag => "a Unicode tag character",
            Class::VariationSelector => "a variation selector",
            Class::BidiControl => "a bidirectional control",
            Class::HangulFiller => "a Hangul filler",
            Class::InterlinearAnnotation => "an interlinear annotation character",
            Class::DefaultIgnorable => "a default-ignorable (zero-width) character",
            Class::Format => "a format character",
        }
    }
}

/// Where a text goes, which decides the few characters that are not hidden there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Text {
    /// A description (doc comment): line feed and tab are layout, not hidden text.
    Prose,
    /// A name, a title, a scope: one line, no control character at all.
    Line,
    /// A string inside a value that a target writes into a description as JSON (a folded
    /// default, example or enum value): C0 controls come out escaped (`\n`, `\u0000`), visible.
    Json,
}

/// A hidden character found in a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hidden {
    /// The character.
    pub char: char,
    /// Its byte offset in the text.
    pub offset: usize,
    /// Why it is hidden.
    pub class: Class,
}

impl Hidden {
    /// "U+200B", as messages write it.
    pub fn code_point(&self) -> String {
        format!("U+{:04X}", self.char as u32)
    }
}

/// The class of a hidden character, whatever the text; `None` for a character that shows.
pub fn class(c: char) -> Option<Class> {
    if c.is_ascii() {
        return c.is_ascii_control().then_some(Class::Control);
    }
    let gc = CodePointMapData::<GeneralCategory>::new().get(c);
    if gc == GeneralCategory::Control {
        return Some(Class::Control);
    }
    if matches!(
        gc,
        GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator
    ) {
        return Some(Class::LineSeparator);
    }
    if ('\u{E0000}'..='\u{E007F}').contains(&c) {
        return Some(Class::Tag);
    }
    if CodePointSetData::new::<VariationSelector>().contains(c) {
        return Some(Class::VariationSelector);
    }
    if CodePointSetData::new::<BidiControl>().contains(c) {
        return Some(Class::BidiControl);
    }
    if matches!(c, '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}') {
        return Some(Class::HangulFiller);
    }
    if ('\u{FFF9}'..='\u{FFFB}').contains(&c) {
        return Some(Class::InterlinearAnnotation);
    }
    if CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c) {
        return Some(Class::DefaultIgnorable);
    }
    (gc == GeneralCategory::Format).then_some(Class::Format)
}

/// Whether `c` is hidden in a text of kind `text`.
pub fn is_hidden(c: char, text: Text) -> bool {
    hidden_class(c, text).is_some()
}

fn hidden_class(c: char, text: Text) -> Option<Class> {
    match (text, c) {
        (Text::Prose, '\n' | '\t') => None,
        (Text::Json, '\u{0}'..='\u{1F}') => None,
        // Printable ASCII: the common case, without a table lookup.
        (_, ' '..='~') => None,
        _ => class(c),
    }
}

/// The first hidden character of a text, if any.
pub fn find(s: &str, text: Text) -> Option<Hidden> {
    // Fast path: printable ASCII has none (a branch-free fold over the bytes, which the
    // compiler vectorizes); the rare text with anything else is read character by character.
    let suspect = s
        .bytes()
        .fold(false, |acc, b| acc | !(0x20..0x7f).contains(&b));
    if !suspect {
        return None;
    }
    s.char_indices().find_map(|(offset, c)| {
        hidden_class(c, text).map(|class| Hidden {
            char: c,
            offset,
            class,
        })
    })
}

/// The text without its hidden characters.
pub fn strip(s: &str, text: Text) -> String {
    s.chars().filter(|&c| !is_hidden(c, text)).collect()
}

/// The first hidden character in the strings of a value (object keys included), as a target
/// would write the value into a description: with the JSON pointer of the string inside the
/// value ("" for the value itself, "/0/name" for a string in an array of objects).
pub fn find_in_value(v: &Value) -> Option<(String, Hidden)> {
    match v {
        Value::String(s) => find(s, Text::Json).map(|h| (String::new(), h)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| find_in_value(item).map(|(p, h)| (format!("/{i}{p}"), h))),
        Value::Object(m) => m.iter().find_map(|(k, item)| {
            let key = escape_pointer(k);
            if let Some(h) = find(k, Text::Json) {
                return Some((format!("/{key}"), h));
            }
            find_in_value(item).map(|(p, h)| (format!("/{key}{p}"), h))
        }),
        _ => None,
    }
}

/// The text with every hidden character written as `<U+XXXX>`, so that a message quoting it
/// shows what an editor would not.
pub fn reveal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if class(c).is_some() {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_name_the_most_specific_reason() {
        assert_eq!(class('\u{7F}'), Some(Class::Control));
        assert_eq!(class('\u{85}'), Some(Class::Control));
        assert_eq!(class('\u{2029}'), Some(Class::LineSeparator));
        assert_eq!(class('\u{E0041}'), Some(Class::Tag));
        assert_eq!(class('\u{E01EF}'), Some(Class::VariationSelector));
        assert_eq!(class('\u{180B}'), Some(Class::VariationSelector));
        assert_eq!(class('\u{202E}'), Some(Class::BidiControl));
        assert_eq!(class('\u{3164}'), Some(Class::HangulFiller));
        assert_eq!(class('\u{FFFA}'), Some(Class::InterlinearAnnotation));
        assert_eq!(class('\u{00AD}'), Some(Class::DefaultIgnorable));
        assert_eq!(class('\u{0600}'), Some(Class::Format));
        for visible in ['a', ' ', 'é', '中', '😀', '\u{00A0}', '\u{0301}'] {
            assert_eq!(class(visible), None, "{visible:?}");
        }
    }

    #[test]
    fn layout_depends_on_the_text() {
        assert!(find("a\nb\tc", Text::Prose).is_none());
        assert_eq!(find("a\nb", Text::Line).map(|h| h.offset), Some(1));
        assert!(find("a\nb\u{0}", Text::Json).is_none());
        assert_eq!(
            find("a\u{7F}", Text::Json).map(|h| h.class),
            Some(Class::Control)
        );
    }

    #[test]
    fn values_are_searched_to_the_leaves() {
        let v = serde_json::json!([{"ok": "x", "k\u{200B}": 1}]);
        assert_eq!(
            find_in_value(&v).map(|(p, _)| p),
            Some("/0/k\u{200B}".into())
        );
        let v = serde_json::json!({"a/b": ["x", "y\u{FE0F}"]});
        assert_eq!(find_in_value(&v).map(|(p, _)| p), Some("/a~1b/1".into()));
        assert_eq!(reveal("a\u{200B}b"), "a<U+200B>b");
    }
}
