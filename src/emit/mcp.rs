//! The MCP target: a `tools/list` result, `{"tools": [{name, title?, description, inputSchema,
//! outputSchema?, annotations?}]}` (Model Context Protocol, `Tool`).
//!
//! `inputSchema` is the canonical JSON Schema without `$schema` (MCP's default dialect is draft
//! 2020-12); a tool without parameters gets `{"type": "object", "additionalProperties": false}`.
//! `outputSchema` is emitted when the `-> T` output is an object (MCP's structured content is
//! always an object); other outputs are left out with a warning. `annotations` carries the hints
//! the source states (`@read_only`, `@destructive`, `@idempotent`, `@open_world`). `_meta`
//! carries `@meta`: each key must be a valid MCP `_meta` key (an optional reverse-DNS prefix
//! ending in `/`, then a name), and a prefix MCP reserves for itself (`modelcontextprotocol` or
//! `mcp` as any label but the last) is refused.

use serde_json::{json, Map, Value};

use super::{bad_tool_name, json_schema, name_fits, plain_parameters, strip_schema_uri, Target};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::{Additional, Module, Tool, Ty};

/// Whether MCP accepts `name` as a tool name: `[A-Za-z0-9_.-]{1,128}`.
pub(super) fn valid_name(name: &str) -> bool {
    name_fits(name, 128, |c| {
        c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
    })
}

/// The MCP `Tool` object of one tool.
pub(super) fn tool(module: &Module, tool: &Tool) -> (Value, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    if !valid_name(&tool.name) {
        diagnostics.push(bad_tool_name(
            tool,
            Target::Mcp,
            "are 1 to 128 characters from A-Z, a-z, 0-9, `_`, `.` and `-`",
        ));
    }
    let mut out = Map::new();
    out.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(title) = &tool.title {
        out.insert("title".into(), Value::String(title.clone()));
    }
    out.insert(
        "description".into(),
        Value::String(tool.description.clone()),
    );
    let input = if tool.params.fields.is_empty() {
        match tool.params.additional {
            Additional::Closed => json!({"type": "object", "additionalProperties": false}),
            Additional::Open => json!({"type": "object"}),
            Additional::Schema(_) => plain_parameters(module, tool),
        }
    } else {
        plain_parameters(module, tool)
    };
    out.insert("inputSchema".into(), input);
    if let Some(output) = &tool.output {
        if matches!(module.resolve(output), Ty::Object(_)) {
            if let Some(schema) = json_schema::output(module, tool) {
                let mut schema = strip_schema_uri(schema);
                // A recursive output type is a `$ref` at the root; MCP clients read the root's
                // `type`, so say it is an object beside the reference.
                if let Value::Object(map) = &mut schema {
                    if !map.contains_key("type") {
                        map.shift_insert(0, "type".into(), Value::String("object".into()));
                    }
                }
                out.insert("outputSchema".into(), schema);
            }
        } else {
            diagnostics.push(
                Diagnostic::warning(
                    Code::NotRepresentable,
                    tool.span,
                    format!(
                        "the output of tool `{}` is {}, not an object; MCP output schemas describe objects only, so `outputSchema` is left out",
                        tool.name,
                        describe_kind(module, output)
                    ),
                )
                .with_label("output not in the MCP tool")
                .with_help("return an object (e.g. `-> { result: T }`) to publish the output schema"),
            );
        }
    }
    let hints = [
        ("readOnlyHint", tool.hints.read_only),
        ("destructiveHint", tool.hints.destructive),
        ("idempotentHint", tool.hints.idempotent),
        ("openWorldHint", tool.hints.open_world),
    ];
    let annotations: Map<String, Value> = hints
        .into_iter()
        .filter_map(|(k, v)| v.map(|b| (k.to_string(), Value::Bool(b))))
        .collect();
    if !annotations.is_empty() {
        out.insert("annotations".into(), Value::Object(annotations));
    }
    if !tool.meta.is_empty() {
        for key in tool.meta.keys() {
            if let Some(problem) = meta_key_problem(key) {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidName,
                        tool.span,
                        format!("`@meta` key `{key}` of tool `{}` {problem}", tool.name),
                    )
                    .with_label("not a valid MCP `_meta` key")
                    .with_help("a key is an optional prefix of dot-separated labels ending in `/` (e.g. `com.example/`), then a name of letters, digits, `-`, `_` and `.` that starts and ends with a letter or digit"),
                );
            }
        }
        let meta: Map<String, Value> = tool
            .meta
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.insert("_meta".into(), Value::Object(meta));
    }
    (Value::Object(out), diagnostics)
}

/// Why `key` is not a valid MCP `_meta` key, or `None` when it is.
fn meta_key_problem(key: &str) -> Option<&'static str> {
    let (prefix, name) = match key.rfind('/') {
        Some(i) => (Some(&key[..i]), &key[i + 1..]),
        None => (None, key),
    };
    let inner = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if !name.is_empty()
        && (!name.starts_with(|c: char| c.is_ascii_alphanumeric())
            || !name.ends_with(|c: char| c.is_ascii_alphanumeric())
            || !name.chars().all(inner))
    {
        return Some("has a name that does not start and end with a letter or digit, or holds other characters than letters, digits, `-`, `_` and `.`");
    }
    let prefix = prefix?;
    let labels: Vec<&str> = prefix.split('.').collect();
    let label_ok = |l: &str| {
        l.starts_with(|c: char| c.is_ascii_alphabetic())
            && l.ends_with(|c: char| c.is_ascii_alphanumeric())
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    if !labels.iter().all(|l| label_ok(l)) {
        return Some("has a prefix that is not dot-separated labels (each starting with a letter, ending with a letter or digit, with letters, digits and `-` between)");
    }
    if labels[..labels.len() - 1]
        .iter()
        .any(|l| matches!(*l, "modelcontextprotocol" | "mcp"))
    {
        return Some("has a prefix MCP reserves for itself");
    }
    None
}

fn describe_kind(module: &Module, ty: &Ty) -> String {
    let kind = module.resolve(ty).kind_name();
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}

#[cfg(test)]
mod tests {
    use super::meta_key_problem;

    #[test]
    fn meta_keys_follow_mcp() {
        for ok in [
            "owner",
            "com.example/owner",
            "a-b_c.d",
            "x/",
            "example.com/a1",
            "",
        ] {
            assert_eq!(meta_key_problem(ok), None, "{ok}");
        }
        for bad in [
            "owner_",
            "_owner",
            "a b",
            "modelcontextprotocol.io/x",
            "mcp.dev/x",
            "tools.mcp.com/x",
            "1abc.com/x",
            "a..b/x",
            "-a/x",
        ] {
            assert!(meta_key_problem(bad).is_some(), "{bad}");
        }
        // `mcp` as the last label is not the reserved form.
        assert_eq!(meta_key_problem("dev.mcp/x"), None);
    }
}
