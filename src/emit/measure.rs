//! How much one tool weighs in one target: the compact JSON the provider receives, its size, and
//! the share of it that is description text. Tokens are counted by a function the caller gives
//! (the command line passes OpenAI's `o200k_base`), so the library needs no tokenizer.
//!
//! ```
//! use tooldef::emit::{measure, Target};
//!
//! let module = tooldef::compile("/// Greet.\ntool greet {\n  /// Who.\n  name: string\n}\n")
//!     .unwrap()
//!     .module;
//! let payload = measure::payload(&module, &module.tools[0], Target::Anthropic).unwrap();
//! assert!(payload.json.starts_with(r#"{"name":"greet","description":"Greet.""#));
//! assert_eq!(payload.descriptions, ["Greet.", "Who."]);
//! // Counting words instead of tokens, for the example.
//! let size = payload.measure(|text| text.split_whitespace().count());
//! assert_eq!(size.bytes, payload.json.len());
//! assert_eq!(size.description_tokens, 2);
//! ```

use serde_json::Value;

use super::{tool, Options, Target};
use crate::diagnostic::Errors;
use crate::model::{Module, Tool};

/// What a provider receives for one tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payload {
    /// The tool in the target's shape ([`super::tool`]), as compact JSON: the text a request
    /// carries.
    pub json: String,
    /// Every description in it, the tool's and its schemas', in document order.
    pub descriptions: Vec<String>,
}

/// The size of a [`Payload`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// The bytes of the compact JSON.
    pub bytes: usize,
    /// The tokens of the compact JSON.
    pub tokens: usize,
    /// The tokens of the descriptions, each counted on its own and summed.
    pub description_tokens: usize,
}

/// The payload of `tool` in `target`, or the errors when the target cannot represent it.
pub fn payload(module: &Module, tool_: &Tool, target: Target) -> Result<Payload, Errors> {
    let emitted = tool(module, tool_, target, &Options { warnings: false })?;
    let mut descriptions = Vec::new();
    collect_descriptions(&emitted.json, &mut descriptions);
    Ok(Payload {
        json: emitted.json.to_string(),
        descriptions,
    })
}

impl Payload {
    /// The size of the payload, with tokens counted by `count`.
    pub fn measure(&self, count: impl Fn(&str) -> usize) -> Size {
        Size {
            bytes: self.json.len(),
            tokens: count(&self.json),
            description_tokens: self.descriptions.iter().map(|d| count(d)).sum(),
        }
    }
}

/// The keywords whose value is data (a JSON value the model may send), never a schema: a
/// `description` key inside them is not a description.
const DATA_KEYWORDS: &[&str] = &["const", "enum", "default", "example", "examples"];

/// The keywords whose value maps names to schemas: their keys are names, not keywords.
const SCHEMA_MAPS: &[&str] = &["properties", "$defs", "patternProperties"];

/// Pushes every `description` string of a tool document, in order.
fn collect_descriptions(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("description", Value::String(s)) => out.push(s.clone()),
                    (k, Value::Object(schemas)) if SCHEMA_MAPS.contains(&k) => {
                        schemas.values().for_each(|s| collect_descriptions(s, out));
                    }
                    (k, _) if DATA_KEYWORDS.contains(&k) => {}
                    _ => collect_descriptions(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_descriptions(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_read_from_schemas_not_from_names_or_data() {
        let source = "/// Do it.\ntool t {\n  /// The text.\n  description?: string = \"x\"\n  \
                      /// A choice.\n  obj?: { description: string } = { description: \"no\" }\n}\n";
        let module = crate::compile(source).unwrap().module;
        let p = payload(&module, &module.tools[0], Target::JsonSchema).unwrap();
        assert_eq!(p.descriptions, ["Do it.", "The text.", "A choice."]);
    }
}
