//! `--from bfcl`: Berkeley Function Calling Leaderboard function documents
//! (`{name, description, parameters: {type: "dict", properties, required}}`), with BFCL's type
//! names (`dict`, `float`, `tuple`, `any` and Java names) and its non-standard `optional` key.

use serde_json::Value;

use super::schema::Rules;
use super::{entries, str_at, tools, ImportError, Imported, Options, ToolSpec, Units};

pub(super) fn import(
    doc: &Value,
    options: &Options,
    units: &mut Units,
) -> Result<Imported, ImportError> {
    let mut specs = Vec::new();
    for (ptr, entry) in entries(doc, &["function", "functions"]) {
        // A BFCL test entry holds its functions under `function`.
        let list: Vec<(String, &Value)> = match entry.get("function") {
            Some(Value::Array(fs)) => fs
                .iter()
                .enumerate()
                .map(|(i, f)| (format!("{ptr}/function/{i}"), f))
                .collect(),
            _ => vec![(ptr, entry)],
        };
        for (p, f) in list {
            let mut spec = ToolSpec::new(p);
            spec.name = str_at(f, "name");
            spec.description = str_at(f, "description");
            spec.input = f.get("parameters");
            if spec.input.is_none() {
                spec.input = f.get("bfcl_parameters");
                spec.input_key = "bfcl_parameters";
            }
            specs.push(spec);
        }
    }
    let rules = Rules {
        bfcl: true,
        ..Rules::tool_dialect(options)
    };
    tools(specs, rules, Vec::new(), units)
}
