//! `--from openai`: Chat Completions tools (`{"type": "function", "function": {...}}`) and the
//! Responses API's flat function tools.

use serde_json::Value;

use super::schema::Rules;
use super::{entries, str_at, tools, ImportError, Imported, Issue, Options, ToolSpec, Units};
use crate::diagnostic::Code;

pub(super) fn import(
    doc: &Value,
    options: &Options,
    units: &mut Units,
) -> Result<Imported, ImportError> {
    let mut specs = Vec::new();
    let mut errors = Vec::new();
    for (ptr, entry) in entries(doc, &["tools"]) {
        if units.skips(&ptr) {
            continue;
        }
        if let Some(t) = str_at(entry, "type") {
            if t != "function" {
                units.seen.push(ptr.clone());
                errors.push(Issue::reading(
                    format!("{ptr}/type"),
                    Code::ImportUnsupported,
                    format!("only function tools can be imported, not `{t}` tools"),
                ));
                continue;
            }
        }
        let (f, fptr) = match entry.get("function") {
            Some(f) => (f, format!("{ptr}/function")),
            None => (entry, ptr.clone()),
        };
        let mut spec = ToolSpec::new(fptr);
        spec.name = str_at(f, "name");
        spec.description = str_at(f, "description");
        spec.input = f.get("parameters");
        specs.push(spec);
    }
    let rules = Rules::tool_dialect(options);
    tools(specs, rules, errors, units)
}
