//! `--from anthropic`: Messages API tools (`{name, description, input_schema}`).

use serde_json::Value;

use super::schema::Rules;
use super::{entries, str_at, tools, ImportError, Imported, Options, ToolSpec, Units};

pub(super) fn import(
    doc: &Value,
    options: &Options,
    units: &mut Units,
) -> Result<Imported, ImportError> {
    let mut specs = Vec::new();
    for (ptr, entry) in entries(doc, &["tools"]) {
        let mut spec = ToolSpec::new(ptr);
        spec.name = str_at(entry, "name");
        spec.description = str_at(entry, "description");
        spec.input = entry.get("input_schema");
        spec.input_key = "input_schema";
        specs.push(spec);
    }
    let rules = Rules::tool_dialect(options);
    tools(specs, rules, Vec::new(), units)
}
