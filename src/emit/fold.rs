//! The one phrasing used when a target cannot express a constraint and it is folded into a
//! description ("Must be between 1 and 14 (inclusive).", "One of: 1 (low), 2 (high).").
//!
//! Every sentence starts with a capital letter and ends with a period, so sentences join with a
//! single space. Values are written as JSON (strings in double quotes), as the model will send
//! them.

use serde_json::{Number, Value};

use super::Target;
use crate::model::{EnumMember, Format, KeyGroup, NumberRules};

/// A value that some targets write into a description as JSON text ("Defaults to ...",
/// "Example: ...", "One of: ...", "Must be ..."), where the model reads it as it reads prose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Folded {
    /// A `= default`: OpenAI strict mode and Gemini's JSON Schema have no `default` keyword.
    Default,
    /// An `@example(...)`: OpenAI strict mode, Anthropic strict mode and Gemini's JSON Schema
    /// have no `examples` keyword.
    Example,
    /// A `@pattern(...)`: Gemini's JSON Schema has no `pattern` keyword, and Anthropic strict
    /// mode takes only a subset of regular expressions.
    Pattern,
    /// A value of an enum whose values have descriptions: every target lists them, with their
    /// descriptions, in a "One of: ..." sentence (the JSON Schema family in the description of
    /// a field that has one).
    DocumentedEnumValue,
    /// A value of an enum that mixes strings with numbers, two of them spelled alike (`1` and
    /// `"1"`): Gemini's OpenAPI enums hold strings only, and it sends the values as their
    /// spellings unless two are alike.
    MixedEnumValue,
    /// A value of an enum that holds a boolean: Gemini's JSON Schema enums hold no booleans;
    /// its OpenAPI form sends them as spellings, unless two values are spelled `alike`.
    BooleanEnumValue {
        /// Whether two values are spelled alike, so that gemini-openapi folds them too.
        alike: bool,
    },
}

impl Folded {
    /// The value in words ("default").
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Folded::Default => "default",
            Folded::Example => "example",
            Folded::Pattern => "pattern",
            Folded::DocumentedEnumValue
            | Folded::MixedEnumValue
            | Folded::BooleanEnumValue { .. } => "enum value",
        }
    }
}

/// The targets that write a value of this kind into a description. The one list the
/// tool-poisoning guard reads (tests/hidden_chars.rs compares it with what every target emits).
pub(crate) fn folding_targets(folded: Folded) -> Vec<Target> {
    let strict = |t: &Target| matches!(t, Target::OpenAiStrict | Target::OpenAiResponses);
    Target::ALL
        .iter()
        .copied()
        .filter(|t| match folded {
            Folded::Default => strict(t) || *t == Target::Gemini,
            Folded::Example => strict(t) || matches!(t, Target::Gemini | Target::AnthropicStrict),
            Folded::Pattern => matches!(t, Target::Gemini | Target::AnthropicStrict),
            Folded::DocumentedEnumValue => true,
            Folded::MixedEnumValue => *t == Target::GeminiOpenApi,
            Folded::BooleanEnumValue { alike } => {
                *t == Target::Gemini || (alike && *t == Target::GeminiOpenApi)
            }
        })
        .collect()
}

/// How targets fold the values of an enum into descriptions, if any does: every target when a
/// value has a description; Gemini's JSON Schema form when a value is a boolean; gemini-openapi
/// when a value is not a string and two are spelled alike (otherwise it sends the spellings as
/// a string enum, [`crate::validate::reading`]); a literal array or object keeps the enum out of
/// Gemini altogether. Values no target folds are data, written only as `enum` and `const`
/// keywords.
pub(crate) fn enum_folding<'a>(
    values: impl IntoIterator<Item = &'a Value>,
    documented: bool,
) -> Option<Folded> {
    if documented {
        return Some(Folded::DocumentedEnumValue);
    }
    let values: Vec<&Value> = values.into_iter().collect();
    let (mut number, mut boolean, mut composite) = (false, false, false);
    for v in &values {
        number |= v.is_number();
        boolean |= v.is_boolean();
        composite |= v.is_array() || v.is_object();
    }
    let alike = || crate::validate::reading::spelled_alike(values.iter().copied());
    match (composite, boolean, number) {
        (true, _, _) => None,
        (false, true, _) => Some(Folded::BooleanEnumValue { alike: alike() }),
        (false, false, true) => alike().then_some(Folded::MixedEnumValue),
        (false, false, false) => None,
    }
}

/// "Must be between 1 and 14 (inclusive).", "Must be greater than 0 and at most 1.", ...: the
/// whole range of a number, or `None` when it has no bounds.
pub(crate) fn range(rules: &NumberRules) -> Option<String> {
    // Each bound as (value, inclusive).
    let lo = rules.lower().map(|b| (&b.value.value, !b.exclusive));
    let hi = rules.upper().map(|b| (&b.value.value, !b.exclusive));
    Some(match (lo, hi) {
        (Some((a, true)), Some((b, true))) => format!("Must be between {a} and {b} (inclusive)."),
        (Some((a, false)), Some((b, false))) => format!("Must be between {a} and {b} (exclusive)."),
        (Some((a, true)), Some((b, false))) => format!("Must be at least {a} and less than {b}."),
        (Some((a, false)), Some((b, true))) => format!("Must be greater than {a} and at most {b}."),
        (Some((a, true)), None) => format!("Must be at least {a}."),
        (Some((a, false)), None) => format!("Must be greater than {a}."),
        (None, Some((b, true))) => format!("Must be at most {b}."),
        (None, Some((b, false))) => format!("Must be less than {b}."),
        (None, None) => return None,
    })
}

/// "Must be a multiple of 5."
pub(crate) fn multiple_of(n: &Number) -> String {
    format!("Must be a multiple of {n}.")
}

/// "Must be between 1 and 10 characters long.", "Must be at least 1 character long.", ...
pub(crate) fn length(min: Option<u64>, max: Option<u64>) -> Option<String> {
    let chars = |n: u64| if n == 1 { "character" } else { "characters" };
    Some(match (min, max) {
        (Some(a), Some(b)) if a == b => format!("Must be exactly {a} {} long.", chars(a)),
        (Some(a), Some(b)) => format!("Must be between {a} and {b} characters long."),
        (Some(a), None) => format!("Must be at least {a} {} long.", chars(a)),
        (None, Some(b)) => format!("Must be at most {b} {} long.", chars(b)),
        (None, None) => return None,
    })
}

/// "Must have between 2 and 5 items.", "Must have at least 2 items.", ...: `@min_items` and
/// `@max_items`.
pub(crate) fn item_count(min: Option<u64>, max: Option<u64>) -> Option<String> {
    let items = |n: u64| if n == 1 { "item" } else { "items" };
    Some(match (min, max) {
        (Some(a), Some(b)) if a == b => format!("Must have exactly {a} {}.", items(a)),
        (Some(a), Some(b)) => format!("Must have between {a} and {b} items."),
        (Some(a), None) => format!("Must have at least {a} {}.", items(a)),
        (None, Some(b)) => format!("Must have at most {b} {}.", items(b)),
        (None, None) => return None,
    })
}

/// "Must have between 1 and 50 keys.", "Must have at least 1 key.", ...: `@min_properties` and
/// `@max_properties`.
pub(crate) fn key_count(min: Option<u64>, max: Option<u64>) -> Option<String> {
    let keys = |n: u64| if n == 1 { "key" } else { "keys" };
    Some(match (min, max) {
        (Some(a), Some(b)) if a == b => format!("Must have exactly {a} {}.", keys(a)),
        (Some(a), Some(b)) => format!("Must have between {a} and {b} keys."),
        (Some(a), None) => format!("Must have at least {a} {}.", keys(a)),
        (None, Some(b)) => format!("Must have at most {b} {}.", keys(b)),
        (None, None) => return None,
    })
}

/// `Exactly one of "a", "b" must be given.`, `At most one of "a", "b" may be given.`,
/// `When "a" is given, "b" and "c" must be given too.`: a rule across fields.
pub(crate) fn key_group(group: &KeyGroup) -> String {
    let names = |names: &[String]| -> String {
        let quoted: Vec<String> = names
            .iter()
            .map(|n| Value::from(n.as_str()).to_string())
            .collect();
        match quoted.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => quoted.join(""),
        }
    };
    match group {
        KeyGroup::ExactlyOneOf(f) => format!("Exactly one of {} must be given.", names(f)),
        KeyGroup::AtMostOneOf(f) => format!("At most one of {} may be given.", names(f)),
        KeyGroup::Requires { key, needs } => format!(
            "When {} is given, {} must be given too.",
            Value::from(key.as_str()),
            names(needs)
        ),
    }
}

/// "Must match the pattern \"^[a-z]+$\".": the pattern as a JSON string.
pub(crate) fn pattern(p: &str) -> String {
    format!("Must match the pattern {}.", Value::String(p.to_string()))
}

/// "Items must be unique."
pub(crate) fn unique() -> String {
    "Items must be unique.".to_string()
}

/// "Must be an email address.", one sentence per format.
pub(crate) fn format(f: Format) -> String {
    let what = match f {
        Format::Date => "a date (RFC 3339 full-date, YYYY-MM-DD)",
        Format::DateTime => "a date and time (RFC 3339 date-time)",
        Format::Time => "a time (RFC 3339 full-time, HH:MM:SS with an offset)",
        Format::Duration => "a duration (ISO 8601, e.g. P3DT4H)",
        Format::Email => "an email address",
        Format::Hostname => "a host name",
        Format::Ipv4 => "an IPv4 address",
        Format::Ipv6 => "an IPv6 address",
        Format::Uri => "an absolute URI",
        Format::Uuid => "a UUID",
    };
    format!("Must be {what}.")
}

/// "One of: 1 (low), 2 (high).": every value, with its description when it has one.
pub(crate) fn one_of(members: &[EnumMember]) -> String {
    let items: Vec<String> = members
        .iter()
        .map(|m| match &m.description {
            Some(d) => format!("{} ({})", m.value, d.trim().trim_end_matches('.')),
            None => m.value.to_string(),
        })
        .collect();
    format!("One of: {}.", items.join(", "))
}

/// "Must be true.": a literal type.
pub(crate) fn constant(v: &Value) -> String {
    format!("Must be {v}.")
}

/// "Defaults to 1."
pub(crate) fn default(v: &Value) -> String {
    format!("Defaults to {v}.")
}

/// "Example: 3." or "Examples: 3, 7."
pub(crate) fn examples(values: &[Value]) -> Option<String> {
    match values {
        [] => None,
        [one] => Some(format!("Example: {one}.")),
        many => {
            let items: Vec<String> = many.iter().map(Value::to_string).collect();
            Some(format!("Examples: {}.", items.join(", ")))
        }
    }
}

/// "Deprecated."
pub(crate) fn deprecated() -> String {
    "Deprecated.".to_string()
}

/// Joins a description and folded sentences into one text, or `None` when both are empty.
pub(crate) fn join(description: Option<&str>, notes: &[String]) -> Option<String> {
    let notes = notes.join(" ");
    match (
        description.map(str::trim_end).filter(|d| !d.is_empty()),
        notes.is_empty(),
    ) {
        (Some(d), false) => {
            let sep = if d.ends_with(['.', '!', '?', ':']) {
                " "
            } else {
                ". "
            };
            Some(format!("{d}{sep}{notes}"))
        }
        (Some(d), true) => Some(d.to_string()),
        (None, false) => Some(notes),
        (None, true) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Spanned;
    use crate::Span;

    fn n(v: i64) -> Option<Spanned<Number>> {
        Some(Spanned::new(Number::from(v), Span::default()))
    }

    #[test]
    fn ranges_use_one_phrasing() {
        let r = NumberRules {
            minimum: n(1),
            maximum: n(14),
            ..Default::default()
        };
        assert_eq!(
            range(&r).as_deref(),
            Some("Must be between 1 and 14 (inclusive).")
        );
        let r = NumberRules {
            exclusive_minimum: n(0),
            maximum: n(1),
            ..Default::default()
        };
        assert_eq!(
            range(&r).as_deref(),
            Some("Must be greater than 0 and at most 1.")
        );
        let r = NumberRules {
            minimum: n(0),
            exclusive_minimum: n(0),
            ..Default::default()
        };
        assert_eq!(range(&r).as_deref(), Some("Must be greater than 0."));
        let r = NumberRules {
            minimum: n(5),
            exclusive_minimum: n(0),
            ..Default::default()
        };
        assert_eq!(range(&r).as_deref(), Some("Must be at least 5."));
        assert_eq!(range(&NumberRules::default()), None);
    }

    #[test]
    fn enums_list_values_with_descriptions() {
        let members = vec![
            EnumMember {
                value: Value::from(1),
                description: Some("low.".into()),
            },
            EnumMember {
                value: Value::from(2),
                description: Some("high".into()),
            },
            EnumMember {
                value: Value::from(3),
                description: None,
            },
        ];
        assert_eq!(one_of(&members), "One of: 1 (low), 2 (high), 3.");
    }

    #[test]
    fn joins_with_one_separator() {
        let notes = vec!["Must be at least 1.".to_string()];
        assert_eq!(
            join(Some("Days"), &notes).as_deref(),
            Some("Days. Must be at least 1.")
        );
        assert_eq!(
            join(Some("Days."), &notes).as_deref(),
            Some("Days. Must be at least 1.")
        );
        assert_eq!(join(None, &notes).as_deref(), Some("Must be at least 1."));
        assert_eq!(join(None, &[]), None);
        assert_eq!(
            length(Some(1), None).as_deref(),
            Some("Must be at least 1 character long.")
        );
    }
}
