//! `--from mcp`: a `tools/list` result (`{"tools": [{name, title?, description, inputSchema,
//! outputSchema?, annotations?}]}`) or a list of such tools.

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
        spec.title = str_at(entry, "title");
        spec.description = str_at(entry, "description");
        spec.input = entry.get("inputSchema");
        spec.input_key = "inputSchema";
        spec.output = entry.get("outputSchema");
        spec.annotations = entry.get("annotations");
        specs.push(spec);
    }
    let rules = Rules::tool_dialect(options);
    tools(specs, rules, Vec::new(), units)
}
