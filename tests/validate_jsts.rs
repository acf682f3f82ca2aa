//! Strict mode against the JSON-Schema-Test-Suite (draft 2020-12): every test whose schema the
//! language can express is run through a one-parameter tool `v: T` as `{"v": data}`.
//!
//! Most suite schemas leave `type` out on purpose (`{"minLength": 2}` ignores non-strings); such a
//! schema maps to the type its keywords apply to, and only the tests whose data has that type are
//! run, which keeps the suite's semantics for the tests that remain.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tooldef::validate::{Mode, Validator};

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/jsts/draft2020-12");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "the JSON-Schema-Test-Suite corpus is missing at {} (required when CI=true)",
            dir.display()
        );
    }
    eprintln!("notice: {} is absent; skipping the suite", dir.display());
    None
}

/// The kind of data a keyword applies to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Applies {
    All,
    Number,
    String,
    Array,
    Object,
}

fn scalar_literal(v: &Value) -> Option<String> {
    match v {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
        _ => None,
    }
}

/// A tooldef type for a schema, and the data it applies to; `None` when the language cannot say
/// it.
fn convert(schema: &Value) -> Option<(String, Applies)> {
    let Value::Object(s) = schema else {
        return None;
    };
    let ignored = [
        "$schema",
        "description",
        "title",
        "default",
        "examples",
        "$comment",
    ];
    let keys: Vec<&str> = s
        .keys()
        .map(String::as_str)
        .filter(|k| !ignored.contains(k))
        .collect();
    let numeric = [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ];
    let stringy = ["minLength", "maxLength", "pattern"];
    let arrayish = ["minItems", "maxItems", "uniqueItems", "items"];
    let objecty = ["properties", "required", "additionalProperties"];
    let group = |g: &[&str]| keys.iter().any(|k| g.contains(k));
    let other = keys.iter().any(|k| {
        !numeric.contains(k)
            && !stringy.contains(k)
            && !arrayish.contains(k)
            && !objecty.contains(k)
            && !["type", "enum", "const"].contains(k)
    });
    if other {
        return None;
    }
    let groups = [
        group(&numeric),
        group(&stringy),
        group(&arrayish),
        group(&objecty),
        group(&["enum", "const"]),
    ];
    if group(&objecty) {
        return object(s);
    }
    if groups.iter().filter(|g| **g).count() > 1 {
        return None;
    }
    let ty = s.get("type");
    if let Some(e) = s.get("enum") {
        if ty.is_some() {
            return None;
        }
        let values = e.as_array()?;
        let mut parts: Vec<String> = Vec::new();
        let mut null = false;
        for v in values {
            if v.is_null() {
                null = true;
            } else {
                parts.push(scalar_literal(v)?);
            }
        }
        if null {
            parts.push("null".into());
        }
        return (!parts.is_empty()).then(|| (parts.join(" | "), Applies::All));
    }
    if let Some(c) = s.get("const") {
        if ty.is_some() {
            return None;
        }
        return if c.is_null() {
            Some(("null".into(), Applies::All))
        } else {
            scalar_literal(c).map(|l| (l, Applies::All))
        };
    }
    let mut attrs = String::new();
    for (key, attr) in [
        ("minimum", "min"),
        ("maximum", "max"),
        ("exclusiveMinimum", "exclusive_min"),
        ("exclusiveMaximum", "exclusive_max"),
        ("multipleOf", "multiple_of"),
        ("minLength", "min_length"),
        ("maxLength", "max_length"),
        ("minItems", "min_items"),
        ("maxItems", "max_items"),
    ] {
        if let Some(v) = s.get(key) {
            attrs.push_str(&format!(" @{attr}({})", v.as_number()?));
        }
    }
    if let Some(p) = s.get("pattern") {
        attrs.push_str(&format!(" @pattern({p})"));
    }
    match s.get("uniqueItems") {
        Some(Value::Bool(true)) => attrs.push_str(" @unique"),
        Some(Value::Bool(false)) | None => {}
        Some(_) => return None,
    }
    let (base, applies) = match ty {
        Some(Value::String(t)) => {
            let base = match t.as_str() {
                "integer" | "number" | "string" | "boolean" | "null" => t.clone(),
                "array" => "any[]".into(),
                "object" => "{ ... }".into(),
                _ => return None,
            };
            if (group(&numeric) && !["integer", "number"].contains(&t.as_str()))
                || (group(&stringy) && t != "string")
                || (group(&arrayish) && t != "array")
            {
                return None;
            }
            (base, Applies::All)
        }
        Some(Value::Array(ts)) => {
            if !attrs.is_empty() || s.contains_key("items") {
                return None;
            }
            let names: Option<Vec<String>> = ts
                .iter()
                .map(|t| match t.as_str()? {
                    "array" => Some("any[]".to_string()),
                    "object" => Some("{ ... }".to_string()),
                    other => Some(other.to_string()),
                })
                .collect();
            return Some((names?.join(" | "), Applies::All));
        }
        Some(_) => return None,
        None if group(&numeric) => ("number".into(), Applies::Number),
        None if group(&stringy) => ("string".into(), Applies::String),
        None if group(&arrayish) => ("any[]".into(), Applies::Array),
        None => return None,
    };
    let base = match s.get("items") {
        None => base,
        Some(items) => {
            let (inner, applies_inner) = convert(items)?;
            if applies_inner != Applies::All || base != "any[]" {
                return None;
            }
            format!("({inner})[]")
        }
    };
    Some((format!("{base}{attrs}"), applies))
}

/// `{ name?: T, ... }` for `properties` / `required` / `additionalProperties: false`.
fn object(s: &Map<String, Value>) -> Option<(String, Applies)> {
    match s.get("type") {
        None => {}
        Some(t) if t == "object" => {}
        Some(_) => return None,
    }
    let required: Vec<&str> = match s.get("required") {
        None => Vec::new(),
        Some(r) => r
            .as_array()?
            .iter()
            .map(Value::as_str)
            .collect::<Option<_>>()?,
    };
    let empty = Map::new();
    let props = match s.get("properties") {
        None => &empty,
        Some(p) => p.as_object()?,
    };
    let mut fields = Vec::new();
    for (name, schema) in props {
        let (ty, applies) = convert(schema)?;
        if applies != Applies::All {
            return None;
        }
        let mark = if required.contains(&name.as_str()) {
            ""
        } else {
            "?"
        };
        fields.push(format!("{}{mark}: {ty}", Value::String(name.clone())));
    }
    for r in &required {
        if !props.contains_key(*r) {
            fields.push(format!("{}: any", Value::String(r.to_string())));
        }
    }
    match s.get("additionalProperties") {
        None | Some(Value::Bool(true)) => fields.push("...".into()),
        Some(Value::Bool(false)) => {}
        Some(_) => return None,
    }
    let applies = if s.contains_key("type") {
        Applies::All
    } else {
        Applies::Object
    };
    Some((format!("{{ {} }}", fields.join(", ")), applies))
}

fn applies(a: Applies, data: &Value) -> bool {
    match a {
        Applies::All => true,
        Applies::Number => data.is_number(),
        Applies::String => data.is_string(),
        Applies::Array => data.is_array(),
        Applies::Object => data.is_object(),
    }
}

#[test]
fn strict_mode_passes_the_expressible_suite() {
    let Some(dir) = corpus() else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    let (mut run, mut schemas, mut failures) = (0, 0, Vec::new());
    for file in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
    {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let groups: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        for group in groups.as_array().cloned().unwrap_or_default() {
            let Some((ty, applies_to)) = convert(&group["schema"]) else {
                continue;
            };
            let source = format!("/// Suite.\ntool suite {{ v: {ty} }}");
            let Ok(compiled) = tooldef::compile(&source) else {
                continue;
            };
            let Ok(v) = Validator::for_tool(&compiled.module, "suite") else {
                continue;
            };
            schemas += 1;
            for test in group["tests"].as_array().cloned().unwrap_or_default() {
                let data = &test["data"];
                if !applies(applies_to, data) {
                    continue;
                }
                run += 1;
                let mut args = Map::new();
                args.insert("v".into(), data.clone());
                let ours = v.validate_value(&Value::Object(args), Mode::Strict).is_ok();
                if Some(ours) != test["valid"].as_bool() {
                    failures.push(format!(
                        "{} / {} / {}: `{ty}` on {data}: ours {ours}",
                        file.file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                        group["description"],
                        test["description"]
                    ));
                }
            }
        }
    }
    eprintln!("JSON-Schema-Test-Suite: {schemas} schemas, {run} tests run");
    assert!(
        failures.is_empty(),
        "{} of {run} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The adapter must keep covering the suite; a regression here means schemas stopped mapping.
    assert!(
        schemas >= 55 && run >= 250,
        "only {schemas} schemas / {run} tests were expressible"
    );
}
