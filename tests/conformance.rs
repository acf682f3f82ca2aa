//! Conformance on real corpora nobody here wrote (`../shared/corpus/`, see its MANIFEST.md):
//! JSON-Schema-Test-Suite draft 2020-12, BFCL function documents and calls, MCP tool lists.
//! Each test prints a notice and passes when the corpus is absent, and fails when `CI=true`.

mod target_rules;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Map, Value};
use tooldef::emit::{self, Options, Target};
use tooldef::import::{self, Dialect};
use tooldef::model::Ty;
use tooldef::validate::first_violation as strict_violation;

#[path = "support/corpus.rs"]
mod shared;

fn corpus() -> Option<PathBuf> {
    shared::corpus("conformance test")
}

fn read_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_lines(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// JSON-Schema-Test-Suite

/// The keyword files MANIFEST.md lists as expressible by a tool language.
const EXPRESSIBLE: &[&str] = &[
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "items",
    "prefixItems",
    "properties",
    "required",
    "additionalProperties",
    "default",
    "format",
];

/// Cases of the expressible files that the importer rejects, by `file / case`, with the reason.
const EXPECTED_REJECTIONS: &[(&str, &str)] = &[
    (
        "additionalProperties / additionalProperties being false does not allow other properties",
        "uses `patternProperties`, which the language does not express",
    ),
    (
        "additionalProperties / non-ASCII pattern with additionalProperties",
        "uses `patternProperties`, which the language does not express",
    ),
    (
        "additionalProperties / additionalProperties does not look in applicators",
        "uses `allOf`, which the language does not express",
    ),
    (
        "additionalProperties / additionalProperties with propertyNames",
        "uses `propertyNames`, which the language does not express",
    ),
    (
        "additionalProperties / dependentSchemas with additionalProperties",
        "uses `dependentSchemas`, which the language does not express",
    ),
    (
        "items / items does not look in applicators, valid case",
        "uses `allOf`, which the language does not express",
    ),
    (
        "properties / properties, patternProperties, additionalProperties interaction",
        "uses `patternProperties`, which the language does not express",
    ),
    (
        "properties / properties with escaped characters",
        "a property name holds a control character, which field names refuse (hidden-text guard)",
    ),
    (
        "required / required with escaped characters",
        "a property name holds a control character, which field names refuse (hidden-text guard)",
    ),
];

/// Tests whose verdict differs, by `file / case / test`, with the reason.
const EXPECTED_FAILURES: &[(&str, &str)] = &[
    (
        "format / email format / invalid email string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),
    (
        "format / ipv4 format / invalid ipv4 string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),
    (
        "format / ipv6 format / invalid ipv6 string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),
    (
        "format / hostname format / invalid hostname string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),
    (
        "format / date format / invalid date string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),
    (
        "format / date-time format / invalid date-time string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),
    (
        "format / time format / invalid time string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),
    (
        "format / uri format / invalid uri string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),
    (
        "format / uuid format / invalid uuid string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),
    (
        "format / duration format / invalid duration string is only an annotation by default",
        "tooldef asserts `@format` by default (`@formats(annotate)` makes it an annotation)",
    ),

    (
        "optional/bignum / integer / a bignum is an integer",
        "an integer field refuses a double beyond ±2^53: reading may have rounded it (this one is 1.2345678910111214e52, not the 53 digits written), and tooldef never passes a rounded integer on",
    ),
    (
        "optional/bignum / integer / a negative bignum is an integer",
        "an integer field refuses a double beyond ±2^53: reading may have rounded it (this one is 1.2345678910111214e52, not the 53 digits written), and tooldef never passes a rounded integer on",
    ),
    (
        "optional/float-overflow / all integers are multiples of 0.5, if overflow is handled / valid if optional overflow handling is implemented",
        "an integer field refuses the double 1e308: beyond ±2^53 a double may be a rounded reading of the text",
    ),
];

#[test]
fn json_schema_test_suite() {
    let Some(root) = corpus() else { return };
    let dir = root.join("jsts/draft2020-12");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    // The optional files about numbers and regular expressions; `optional/format/` asserts
    // formats, which are annotations in tooldef as in draft 2020-12 by default.
    for name in [
        "bignum",
        "float-overflow",
        "non-bmp-regex",
        "ecmascript-regex",
    ] {
        files.push(dir.join("optional").join(format!("{name}.json")));
    }
    // The formats tooldef asserts, with the test suite's cases for format assertion.
    for format in tooldef::model::Format::ALL {
        let name = format.as_str();
        files.push(dir.join("optional/format").join(format!("{name}.json")));
    }
    files.sort();
    let mut rows: BTreeMap<String, [usize; 5]> = BTreeMap::new(); // cases, imported, rejected, tests, passed
    let mut unexpected = Vec::new();
    let mut rejected_expressible = Vec::new();
    let mut seen_expected = Vec::new();
    for path in files {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let stem = if path
            .parent()
            .is_some_and(|p| p.ends_with("optional/format"))
        {
            format!("optional/format/{stem}")
        } else if path.parent().is_some_and(|p| p.ends_with("optional")) {
            format!("optional/{stem}")
        } else {
            stem
        };
        let expressible = EXPRESSIBLE.contains(&stem.as_str());
        let cases = read_json(&path);
        for case in cases.as_array().unwrap() {
            let cname = format!("{stem} / {}", case["description"].as_str().unwrap_or(""));
            let row = rows.entry(stem.clone()).or_default();
            row[0] += 1;
            match import::import_type(&case["schema"], "Root") {
                Err(e) => {
                    row[2] += 1;
                    assert!(
                        !e.issues.is_empty() && e.issues.iter().all(|i| !i.message.is_empty()),
                        "{cname}: an error without a message"
                    );
                    if expressible {
                        rejected_expressible.push((cname.clone(), e.to_string()));
                    }
                }
                Ok((imported, id)) => {
                    row[1] += 1;
                    let again = imported.module.to_source().unwrap();
                    assert_eq!(
                        again, imported.source,
                        "{cname}: import → print → compile → print is not a fixpoint"
                    );
                    let ty = Ty::Ref(id);
                    for t in case["tests"].as_array().unwrap() {
                        row[3] += 1;
                        let tname =
                            format!("{cname} / {}", t["description"].as_str().unwrap_or(""));
                        let ok = strict_violation(&imported.module, &ty, &t["data"]).is_none();
                        if ok == t["valid"].as_bool().unwrap() {
                            row[4] += 1;
                        } else if EXPECTED_FAILURES.iter().any(|(n, _)| *n == tname) {
                            seen_expected.push(tname);
                        } else {
                            unexpected.push(format!(
                                "{tname}: expected valid={} (schema {}, data {})\n{}",
                                t["valid"], case["schema"], t["data"], imported.source
                            ));
                        }
                    }
                }
            }
        }
    }
    println!("| file | cases | imported | rejected | tests | passed |");
    for (f, r) in &rows {
        println!(
            "| {f} | {} | {} | {} | {} | {} |",
            r[0], r[1], r[2], r[3], r[4]
        );
    }
    let total = rows
        .iter()
        .filter(|(f, _)| EXPRESSIBLE.contains(&f.as_str()))
        .fold([0; 5], |mut acc, (_, r)| {
            for i in 0..5 {
                acc[i] += r[i];
            }
            acc
        });
    println!(
        "expressible files: {} cases, {} imported, {} rejected; {} tests, {} passed",
        total[0], total[1], total[2], total[3], total[4]
    );
    let group = |keep: &dyn Fn(&str) -> bool| {
        rows.iter()
            .filter(|(f, _)| keep(f.as_str()))
            .fold([0; 5], |mut acc, (_, r)| {
                for i in 0..5 {
                    acc[i] += r[i];
                }
                acc
            })
    };
    let optional = group(&|f| f.starts_with("optional/"));
    let others = group(&|f| !f.starts_with("optional/") && !EXPRESSIBLE.contains(&f));
    println!("optional files (bignum, float-overflow, regex): {} cases, {} imported, {} rejected; {} tests, {} passed", optional[0], optional[1], optional[2], optional[3], optional[4]);
    println!(
        "other files: {} cases, {} imported, {} rejected; {} tests, {} passed",
        others[0], others[1], others[2], others[3], others[4]
    );
    println!("expected failures seen: {}", seen_expected.len());
    for (n, why) in &rejected_expressible {
        println!("rejected: {n}: {why}");
    }
    let unlisted: Vec<&(String, String)> = rejected_expressible
        .iter()
        .filter(|(n, _)| !EXPECTED_REJECTIONS.iter().any(|(e, _)| e == n))
        .collect();
    assert!(
        unexpected.is_empty(),
        "{} unexpected verdicts:\n{}",
        unexpected.len(),
        unexpected.join("\n\n")
    );
    assert!(
        unlisted.is_empty(),
        "expressible cases rejected without being listed: {unlisted:#?}"
    );
    for (n, _) in EXPECTED_FAILURES {
        assert!(
            seen_expected.iter().any(|s| s == n),
            "expected failure `{n}` now passes; remove it from the list"
        );
    }
    for (n, _) in EXPECTED_REJECTIONS {
        assert!(
            rejected_expressible.iter().any(|(s, _)| s == n),
            "expected rejection `{n}` now imports; remove it from the list"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// BFCL

fn bfcl_one(function: &Value) -> Result<import::Imported, import::ImportError> {
    import::import_bfcl(
        &Value::Array(vec![function.clone()]),
        &import::Options::default(),
    )
}

#[test]
fn bfcl_functions_import_and_pass_every_target() {
    let Some(root) = corpus() else { return };
    let functions = read_lines(&root.join("bfcl/derived/functions_unique.jsonl"));
    let mut imported = 0;
    let mut failures = Vec::new();
    let mut refused: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut emitted = 0;
    let mut refused_outputs = 0;
    let mut refused_per_target: BTreeMap<&str, usize> = BTreeMap::new();
    let mut reimported = 0;
    for f in &functions {
        let name = f["name"].as_str().unwrap_or("");
        let m = match bfcl_one(f) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        imported += 1;
        // import → print → compile is a fixpoint.
        let again = m.module.to_source().unwrap();
        assert_eq!(
            again, m.source,
            "{name}: printing the imported model changes its source"
        );
        for &target in Target::ALL {
            match emit::tools(&m.module, target, &Options { warnings: false }) {
                Ok(out) => {
                    emitted += 1;
                    let broken = target_rules::check(target, &out.json);
                    assert!(
                        broken.is_empty(),
                        "{name} for {}: {broken:?}",
                        target.as_str()
                    );
                    if target == Target::JsonSchema {
                        // Emitted JSON Schema, imported faithfully, gives the same parameters.
                        let options = import::Options {
                            name: Some(name.to_string()),
                            keep_open: false,
                            ..Default::default()
                        };
                        let back = import::import_json_schema(&out.json[0]["parameters"], &options)
                            .unwrap_or_else(|e| panic!("{name}: re-import: {e}"));
                        assert_eq!(
                            back.module.tools[0].params, m.module.tools[0].params,
                            "{name}: emit → import changes the parameters\n{}\n{}",
                            m.source, back.source
                        );
                        reimported += 1;
                    }
                }
                Err(e) => {
                    refused_outputs += 1;
                    *refused_per_target.entry(target.as_str()).or_default() += 1;
                    // Only a provider's name rules refuse a BFCL function: every construct
                    // BFCL uses is carried, or lowered, by every target. Anthropic strict mode
                    // also limits optional and union-typed parameters per request, which some
                    // BFCL functions pass on their own.
                    for d in e.errors() {
                        assert!(
                            d.code == tooldef::Code::InvalidName
                                || (target == Target::AnthropicStrict
                                    && d.code == tooldef::Code::TargetLimit),
                            "{name} for {}: unexpected error {:?}: {}",
                            target.as_str(),
                            d.code,
                            d.message
                        );
                        *refused
                            .entry((target.as_str().to_string(), d.code.as_str().to_string()))
                            .or_default() += 1;
                    }
                }
            }
        }
    }
    println!("BFCL functions: {} of {} imported; {emitted} target outputs pass their rules; {refused_outputs} outputs refused ({refused_per_target:?} functions per target); refusal diagnostics: {refused:?}; {reimported} json-schema outputs re-import to the same parameters", imported, functions.len());
    assert_eq!(functions.len(), 3526);
    assert!(
        failures.is_empty(),
        "{} functions failed to import:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The BFCL function document a call was made against.
fn bfcl_documents(root: &std::path::Path, category: &str) -> BTreeMap<String, Vec<Value>> {
    read_lines(&root.join(format!("bfcl/BFCL_v4_{category}.json")))
        .into_iter()
        .map(|e| {
            let id = e["id"].as_str().unwrap_or("").to_string();
            let fs = e["function"].as_array().cloned().unwrap_or_default();
            (id, fs)
        })
        .collect()
}

/// Valid ground-truth calls that closed objects reject, with the reason.
const BFCL_EXPECTED: &[(&str, &str)] = &[(
    "live_multiple_189-83-0",
    "`data` declares placeholder properties (`param1`, `param2`: \"Replace with actual parameter names\") and the call sends others; closed by default it is refused, and accepted with --keep-open",
)];

fn other_type_value(v: &Value) -> Value {
    match v {
        Value::String(_) => json!(12345),
        Value::Number(_) => json!("not a number"),
        Value::Bool(_) => json!("not a boolean"),
        Value::Array(_) => json!("not an array"),
        Value::Object(_) => json!("not an object"),
        Value::Null => json!(["null replaced"]),
    }
}

/// The BFCL categories with single-turn ground-truth calls.
const BFCL_CALL_CATEGORIES: [&str; 10] = [
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "simple_java",
    "simple_javascript",
];

#[test]
fn bfcl_ground_truth_calls_and_mutations() {
    let Some(root) = corpus() else { return };

    let known: Value = read_json(&root.join("bfcl/derived/known_invalid_groundtruth_calls.json"));
    let known: Vec<(String, String)> = known
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap_or("").to_string(),
                p[1].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let (mut calls, mut agree, mut valid_accepted, mut valid, mut invalid, mut invalid_rejected) =
        (0, 0, 0, 0, 0, 0);
    let (mut mutations, mut mutations_rejected) = (0, 0);
    let mut disagreements = Vec::new();
    let mut unrejected = Vec::new();
    let mut expected_seen: Vec<String> = Vec::new();
    for cat in BFCL_CALL_CATEGORIES {
        let docs = bfcl_documents(&root, cat);
        for call in read_lines(&root.join(format!("bfcl/derived/{cat}.calls.jsonl"))) {
            let id = call["id"].as_str().unwrap();
            let fname = call["function"].as_str().unwrap();
            let Some(doc) = docs
                .get(id)
                .and_then(|fs| fs.iter().find(|f| f["name"] == fname))
            else {
                panic!("{id}: no document for {fname}");
            };
            let m = bfcl_one(doc).unwrap_or_else(|e| panic!("{id}: {e}"));
            let tool = &m.module.tools[0];
            let ty = Ty::Object(Box::new(tool.params.clone()));
            let args = &call["args"];
            let reference = call["jsonschema_valid"].as_bool().unwrap();
            let ours = strict_violation(&m.module, &ty, args);
            calls += 1;
            if reference {
                valid += 1;
                if ours.is_none() {
                    valid_accepted += 1;
                }
            } else {
                invalid += 1;
                assert!(
                    known.iter().any(|(k, f)| k == id && f == fname),
                    "{id} is invalid but not in the known list"
                );
                if ours.is_some() {
                    invalid_rejected += 1;
                }
            }
            if ours.is_none() == reference {
                agree += 1;
            } else if let Some((_, why)) = BFCL_EXPECTED.iter().find(|(k, _)| *k == id) {
                // Open again, the call must pass.
                let open = import::import_bfcl(
                    &Value::Array(vec![doc.clone()]),
                    &import::Options {
                        name: None,
                        keep_open: true,
                        ..Default::default()
                    },
                )
                .unwrap();
                let open_ty = Ty::Object(Box::new(open.module.tools[0].params.clone()));
                assert!(
                    strict_violation(&open.module, &open_ty, args).is_none(),
                    "{id}: {why}"
                );
                expected_seen.push(id.to_string());
            } else {
                disagreements.push(format!(
                    "{id} {fname}: reference valid={reference}, ours: {ours:?}; args {args}\n{}",
                    m.source
                ));
            }
            if !reference || ours.is_some() {
                continue;
            }
            // Mutations of a valid call must all be rejected.
            let Some(obj) = args.as_object() else {
                continue;
            };
            let mut mutated: Vec<(String, Value)> = Vec::new();
            if let Some(f) = tool.params.fields.iter().find(|f| f.required) {
                let mut o = obj.clone();
                o.remove(&f.name);
                mutated.push((format!("drop `{}`", f.name), Value::Object(o)));
            }
            let mut o = obj.clone();
            o.insert("__unknown_parameter__".into(), json!(1));
            mutated.push(("add an unknown parameter".into(), Value::Object(o)));
            for (k, v) in obj {
                let Some(field) = tool.params.field(k) else {
                    continue;
                };
                let resolved = m.module.resolve(&field.ty);
                if !matches!(resolved, Ty::Any) {
                    let mut o = obj.clone();
                    o.insert(k.clone(), other_type_value(v));
                    if strict_violation(&m.module, &field.ty, &o[k]).is_some() {
                        mutated.push((format!("change the type of `{k}`"), Value::Object(o)));
                    }
                }
                let is_enum = match resolved {
                    Ty::Enum(_) => true,
                    Ty::Nullable(inner) => matches!(m.module.resolve(inner), Ty::Enum(_)),
                    _ => false,
                };
                if is_enum {
                    let mut o = obj.clone();
                    o.insert(k.clone(), json!("__not_in_the_enum__"));
                    mutated.push((format!("leave the enum of `{k}`"), Value::Object(o)));
                }
            }
            for (what, value) in mutated {
                mutations += 1;
                if strict_violation(&m.module, &ty, &value).is_some() {
                    mutations_rejected += 1;
                } else {
                    unrejected.push(format!("{id}: {what}: {value}"));
                }
            }
        }
    }
    println!("BFCL calls: {calls}; agree with the reference validator: {agree}; valid accepted in strict mode {valid_accepted}/{valid}, {} expected failures (accepted with --keep-open); known-invalid rejected {invalid_rejected}/{invalid}; mutations rejected {mutations_rejected}/{mutations}", expected_seen.len());
    for (id, _) in BFCL_EXPECTED {
        assert!(
            expected_seen.iter().any(|s| s == id),
            "expected failure {id} now passes; remove it"
        );
    }
    for d in &disagreements {
        println!("disagreement: {d}");
    }
    assert!(
        unrejected.is_empty(),
        "mutated calls accepted:\n{}",
        unrejected.join("\n")
    );
    assert_eq!(
        valid_accepted + expected_seen.len(),
        valid,
        "valid ground-truth calls rejected:\n{}",
        disagreements.join("\n")
    );
    assert!(mutations > 3000);
}

// ---------------------------------------------------------------------------------------------
// MCP

/// Values to try for a schema: one of every JSON type, the schema's own enum and const values,
/// and values at and beyond its bounds.
fn candidates(schema: &Value, depth: usize) -> Vec<Value> {
    let mut out = vec![
        json!(null),
        json!(true),
        json!(0),
        json!(1),
        json!(-1),
        json!(2.5),
        json!(""),
        json!("abc"),
        json!([]),
        json!({}),
    ];
    let Some(s) = schema.as_object() else {
        return out;
    };
    for key in ["enum"] {
        if let Some(Value::Array(vs)) = s.get(key) {
            out.extend(vs.iter().cloned());
        }
    }
    if let Some(c) = s.get("const") {
        out.push(c.clone());
    }
    for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(n) = s.get(key).and_then(Value::as_f64) {
            for d in [-1.0, 0.0, 1.0] {
                let x = n + d;
                out.push(if x.fract() == 0.0 && x.abs() < 1e15 {
                    json!(x as i64)
                } else {
                    json!(x)
                });
            }
        }
    }
    for key in ["minLength", "maxLength"] {
        if let Some(n) = s.get(key).and_then(Value::as_u64) {
            for len in [n.saturating_sub(1), n, n + 1] {
                out.push(Value::String("x".repeat(len.min(10_000) as usize)));
            }
        }
    }
    if depth < 3 {
        if let Some(items) = s.get("items") {
            for c in candidates(items, depth + 1).into_iter().take(12) {
                out.push(json!([c]));
            }
        }
        if s.contains_key("properties") {
            out.push(instance(schema, depth + 1));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(bs)) = s.get(key) {
                for b in bs {
                    out.extend(candidates(b, depth + 1).into_iter().skip(10));
                    if b.get("properties").is_some() {
                        out.push(instance(b, depth + 1));
                    }
                }
            }
        }
    }
    out
}

/// An object with every property set to a value its schema accepts, when one is found.
fn instance(schema: &Value, depth: usize) -> Value {
    let mut o = Map::new();
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (k, p) in props {
            let v = match jsonschema::validator_for(p) {
                Ok(val) => candidates(p, depth).into_iter().find(|c| val.is_valid(c)),
                Err(_) => None,
            };
            if let Some(v) = v {
                o.insert(k.clone(), v);
            }
        }
    }
    Value::Object(o)
}

/// Instances for a tool's input schema: a full one, each property replaced by each candidate,
/// each property dropped, and one with an unknown key (flagged).
fn instances(schema: &Value) -> Vec<(Value, bool)> {
    let base = instance(schema, 0);
    let mut out = vec![
        (base.clone(), false),
        (json!({}), false),
        (json!("not an object"), false),
    ];
    if let (Some(b), Some(Value::Object(props))) = (base.as_object(), schema.get("properties")) {
        for (k, p) in props {
            for c in candidates(p, 0) {
                let mut o = b.clone();
                o.insert(k.clone(), c);
                out.push((Value::Object(o), false));
            }
            let mut o = b.clone();
            o.remove(k);
            out.push((Value::Object(o), false));
        }
        let mut o = b.clone();
        o.insert("__unknown_key__".into(), json!("x"));
        out.push((Value::Object(o), true));
    }
    out
}

#[test]
fn mcp_tools_import_and_keep_their_meaning() {
    let Some(root) = corpus() else { return };
    let doc = read_json(&root.join("mcp/all_tools.json"));
    let originals = doc.as_array().unwrap();
    let (mut checked, mut same) = (0, 0);
    let mut differences = Vec::new();
    for keep_open in [false, true] {
        let options = import::Options {
            name: None,
            keep_open,
            ..Default::default()
        };
        let m = import::import(&doc, Dialect::Mcp, &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.module.tools.len(), 169);
        let again = m.module.to_source().unwrap();
        assert_eq!(again, m.source);
        let out = emit::tools(&m.module, Target::Mcp, &Options { warnings: false }).unwrap();
        assert!(target_rules::check(Target::Mcp, &out.json).is_empty());
        // Importing the export again gives the same source: a fixpoint after the first pass.
        let round =
            import::import(&out.json, Dialect::Mcp, &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            round.source, m.source,
            "re-importing the mcp export changes the source"
        );
        let tools = out.json["tools"].as_array().unwrap();
        for (orig, ours) in originals.iter().zip(tools) {
            let name = orig["name"].as_str().unwrap();
            assert_eq!(ours["name"], orig["name"]);
            let title = orig
                .get("title")
                .or_else(|| orig["annotations"].get("title"));
            assert_eq!(ours.get("title"), title, "{name}: title");
            for hint in [
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ] {
                let theirs = orig.get("annotations").and_then(|a| a.get(hint));
                let mine = ours.get("annotations").and_then(|a| a.get(hint));
                let conflicting = hint == "destructiveHint"
                    && orig["annotations"]["readOnlyHint"] == json!(true)
                    && theirs == Some(&json!(true));
                if !conflicting {
                    assert_eq!(mine, theirs, "{name}: {hint}");
                }
            }
            // tooldef asserts `format`, so both validators are told to.
            let build = |s: &Value| {
                jsonschema::options()
                    .should_validate_formats(true)
                    .build(s)
                    .unwrap()
            };
            let original = build(&orig["inputSchema"]);
            let emitted = build(&ours["inputSchema"]);
            for (value, unknown_key) in instances(&orig["inputSchema"]) {
                if unknown_key && !keep_open {
                    continue;
                }
                checked += 1;
                let a = original.is_valid(&value);
                let b = emitted.is_valid(&value);
                // Our own validator agrees with our schema.
                let tool = m.module.tool(name).unwrap();
                let v = strict_violation(
                    &m.module,
                    &Ty::Object(Box::new(tool.params.clone())),
                    &value,
                )
                .is_none();
                assert_eq!(
                    v, b,
                    "{name}: validator and emitted schema disagree on {value}"
                );
                if a == b {
                    same += 1;
                } else {
                    differences.push(format!(
                        "{name} (keep_open={keep_open}): original {a}, ours {b}: {value}"
                    ));
                }
            }
        }
    }
    println!("MCP: 169 tools imported; {same} of {checked} generated instances judged alike by the original and the exported schema");
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// BFCL lists `null` as an acceptable value for some optional parameters (379 alternatives,
/// nearly all on parameters documented with `default: null` but typed `string`, `integer`, ...).
/// The policy: strict mode rejects `null` for a type that does not allow it, as JSON Schema
/// does (the message tells the model to leave the key out); lax mode reads `null` on an optional
/// field as "absent" and records the `null-as-absent` coercion. Checked on every such
/// alternative: the call with its first alternatives, that parameter set to `null`.
#[test]
fn bfcl_null_alternatives_follow_the_lax_policy() {
    use tooldef::validate::{CoercionRule, Mode, Validator};
    let Some(root) = corpus() else { return };
    let (mut alternatives, mut strict_rejected, mut strict_accepted, mut lax_accepted) =
        (0, 0, 0, 0);
    let mut skipped = 0;
    let mut failures = Vec::new();
    for cat in BFCL_CALL_CATEGORIES {
        let docs = bfcl_documents(&root, cat);
        for answer in read_lines(&root.join(format!("bfcl/possible_answer/BFCL_v4_{cat}.json"))) {
            let id = answer["id"].as_str().unwrap_or("");
            for call in answer["ground_truth"].as_array().into_iter().flatten() {
                let Some((fname, params)) = call.as_object().and_then(|o| o.iter().next()) else {
                    continue;
                };
                let Some(params) = params.as_object() else {
                    continue;
                };
                let nulls: Vec<&String> = params
                    .iter()
                    .filter(|(_, alts)| alts.as_array().is_some_and(|a| a.contains(&Value::Null)))
                    .map(|(k, _)| k)
                    .collect();
                if nulls.is_empty() {
                    continue;
                }
                let doc = docs
                    .get(id)
                    .and_then(|fs| fs.iter().find(|f| f["name"] == *fname))
                    .unwrap_or_else(|| panic!("{id}: no document for {fname}"));
                let m = bfcl_one(doc).unwrap_or_else(|e| panic!("{id}: {e}"));
                let validator = Validator::new(&m.module, &m.module.tools[0]).unwrap();
                // The call with every parameter at its first alternative (`""`: left out).
                let mut base = Map::new();
                for (k, alts) in params {
                    if let Some(first) = alts.as_array().and_then(|a| a.first()) {
                        if first != "" {
                            base.insert(k.clone(), first.clone());
                        }
                    }
                }
                for p in nulls {
                    alternatives += 1;
                    let mut args = base.clone();
                    args.insert(p.clone(), Value::Null);
                    let mut without = args.clone();
                    without.remove(p);
                    if validator
                        .validate_value(&Value::Object(without), Mode::Strict)
                        .is_err()
                    {
                        // The rest of the call is one of BFCL's known slips; not about null.
                        skipped += 1;
                        continue;
                    }
                    let args = Value::Object(args);
                    match validator.validate_value(&args, Mode::Strict) {
                        Ok(_) => strict_accepted += 1,
                        Err(_) => strict_rejected += 1,
                    }
                    match validator.validate_value(&args, Mode::Lax) {
                        Ok(v) => {
                            let nullable = v.coercions.is_empty();
                            let read_as_absent = v.coercions.iter().any(|c| {
                                c.rule == CoercionRule::NullAsAbsent
                                    && c.path
                                        == format!("/{}", p.replace('~', "~0").replace('/', "~1"))
                            });
                            if nullable || read_as_absent {
                                lax_accepted += 1;
                            } else {
                                failures.push(format!(
                                    "{id} {fname}.{p}: unexpected coercions {:?}",
                                    v.coercions
                                ));
                            }
                        }
                        Err(e) => failures.push(format!("{id} {fname}.{p}: lax mode rejects: {e}")),
                    }
                }
            }
        }
    }
    println!(
        "BFCL null alternatives: {alternatives}; rest of the call invalid (skipped) {skipped}; strict rejects {strict_rejected}, accepts {strict_accepted} (nullable types); lax accepts {lax_accepted}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(lax_accepted + skipped, alternatives);
    // None of these types allows null: strict mode rejects every one (README's table).
    assert_eq!(strict_accepted, 0);
    assert_eq!(strict_rejected, lax_accepted);
    assert!(
        alternatives >= 370,
        "only {alternatives} null alternatives found"
    );
}
