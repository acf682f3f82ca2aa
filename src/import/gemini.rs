//! `--from gemini`: function declarations, with `parameters` in Gemini's OpenAPI 3.0 schema
//! subset (upper-case type names, `nullable`) or `parametersJsonSchema` and
//! `responseJsonSchema` in JSON Schema.

use serde_json::Value;

use super::schema::Rules;
use super::{entries, str_at, tools, ImportError, Imported, Options, ToolSpec, Units};

pub(super) fn import(
    doc: &Value,
    options: &Options,
    units: &mut Units,
) -> Result<Imported, ImportError> {
    let mut specs = Vec::new();
    for (ptr, entry) in entries(
        doc,
        &["functionDeclarations", "function_declarations", "tools"],
    ) {
        let nested = entry
            .get("functionDeclarations")
            .or_else(|| entry.get("function_declarations"));
        let list: Vec<(String, &Value)> = match nested {
            Some(Value::Array(ds)) => ds
                .iter()
                .enumerate()
                .map(|(i, d)| (format!("{ptr}/functionDeclarations/{i}"), d))
                .collect(),
            _ => vec![(ptr, entry)],
        };
        for (p, d) in list {
            let mut spec = ToolSpec::new(p);
            spec.name = str_at(d, "name");
            spec.description = str_at(d, "description");
            if let Some(p) = d.get("parametersJsonSchema") {
                spec.input = Some(p);
                spec.input_key = "parametersJsonSchema";
            } else {
                spec.input = d.get("parameters");
            }
            // The output of a function, in the JSON Schema form (`gemini`'s `-> T`).
            spec.output = d.get("responseJsonSchema");
            spec.output_key = "responseJsonSchema";
            specs.push(spec);
        }
    }
    let rules = Rules {
        openapi: true,
        ..Rules::tool_dialect(options)
    };
    tools(specs, rules, Vec::new(), units)
}
