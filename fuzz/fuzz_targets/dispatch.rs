//! Arbitrary bytes as a provider's response, dispatched against a fixed tool set: the first byte
//! picks the provider, the target the model was shown and the mode; the rest is the response.
//!
//! Invariants:
//! - `Toolset::dispatch_str` never panics;
//! - when `serde_json` reads the text, `Toolset::dispatch` on the parsed value gives the same
//!   result: the same calls, verdicts and replies, or the same error (OpenAI's responses are read
//!   by a reader of their own that skips the parts a call does not need, and it must agree);
//! - every call that is not valid has exactly one reply, in call order, and the result renders
//!   as JSON.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tooldef::emit::Target;
use tooldef::envelope::Provider;
use tooldef::validate::Mode;
use tooldef::{DispatchOptions, Toolset, Verdict};

const SOURCE: &str = r#"
/// Get the current weather in a given location.
tool get_weather {
  /// The city and state, e.g. San Francisco, CA.
  location: string @min_length(1)
  unit?: "celsius" | "fahrenheit" = "celsius"
  days?: integer @min(1) @max(14)
}

/// Get the local time in a time zone.
@lax
tool get_time {
  timezone: string @pattern("^\\w+/\\w+$")
  at?: { hour: integer, minute?: integer } | null
}

/// Book a table.
tool book {
  guests: integer[] @max_items(4)
  notes?: map<string>
  kind?: { k: "a", n: number } | { k: "b", s: string }
}
"#;

fn toolset() -> &'static Toolset {
    static SET: OnceLock<Toolset> = OnceLock::new();
    SET.get_or_init(|| Toolset::from_source(SOURCE).expect("the fuzz tool set compiles"))
}

fn options(byte: u8) -> (Provider, DispatchOptions) {
    let provider = Provider::ALL[usize::from(byte & 7) % Provider::ALL.len()];
    let target = match (byte >> 3) & 3 {
        0 => None,
        1 => Some(provider.target()),
        2 => Some(Target::OpenAiStrict),
        _ => Some(Target::JsonSchema),
    };
    let mode = match byte >> 5 {
        0..=3 => None,
        4 | 5 => Some(Mode::Strict),
        _ => Some(Mode::Lax),
    };
    (provider, DispatchOptions { target, mode })
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let set = toolset();
    let (provider, options) = options(first);
    let from_text = set.dispatch_str(provider, text, &options);
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let from_value = set.dispatch(provider, &value, &options);
        match (&from_text, &from_value) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{provider}: text and value dispatch differ"),
            (Err(a), Err(b)) => assert_eq!(
                a.to_string(),
                b.to_string(),
                "{provider}: text and value fail differently"
            ),
            _ => panic!(
                "{provider}: text gives {:?}, value gives {:?}",
                from_text.as_ref().map(|d| d.calls.len()),
                from_value.as_ref().map(|d| d.calls.len())
            ),
        }
    }
    if let Ok(dispatched) = from_text {
        let not_valid = dispatched
            .calls
            .iter()
            .filter(|c| !matches!(c.verdict, Verdict::Valid(_)))
            .count();
        assert_eq!(dispatched.replies.len(), not_valid, "a reply per call not valid");
        assert_eq!(dispatched.all_valid(), not_valid == 0);
        let json = dispatched.to_json();
        assert!(serde_json::to_string(&json).is_ok());
    }
});
