//! The workloads the benchmarks share: the same tools and instances for tooldef and for the
//! jsonschema crate (which validates against the draft 2020-12 schema tooldef emits), and the
//! checks that both sides agree on every instance, so that no comparison measures two different
//! questions. The checks run whenever a benchmark binary starts, including the one-pass smoke
//! mode (`cargo test --benches`), and panic on any disagreement.

#![allow(dead_code)] // Each benchmark binary uses part of the shared workloads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use tooldef::model::Module;
use tooldef::validate::{Mode, Validator};

/// One tool, compiled by both sides.
pub struct Subject {
    /// tooldef's compiled validator.
    pub ours: Validator,
    /// The jsonschema crate's validator, compiled once from the emitted parameters schema.
    pub theirs: jsonschema::Validator,
    /// The emitted parameters schema.
    pub schema: Value,
}

/// One instance of a tool's arguments: as text (as providers deliver it) and parsed.
pub struct Instance {
    /// Index into [`Workload::subjects`].
    pub subject: usize,
    pub text: String,
    pub value: Value,
}

/// A named set of instances, all valid or all invalid.
pub struct Set {
    pub name: String,
    pub valid: bool,
    pub instances: Vec<Instance>,
}

/// Tools and the instance sets run against them.
pub struct Workload {
    pub name: String,
    pub subjects: Vec<Subject>,
    pub sets: Vec<Set>,
}

/// The project's root (the benchmarks in `benches/codegen` are a package of their own, two
/// levels down).
pub fn manifest_dir() -> &'static Path {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    if dir.ends_with("benches/codegen") {
        dir.parent().and_then(Path::parent).unwrap_or(dir)
    } else {
        dir
    }
}

/// Compiles every tool of a module by both sides.
pub fn subject(module: &Module, tool: &str) -> Subject {
    let t = module
        .tool(tool)
        .unwrap_or_else(|| panic!("no tool {tool}"));
    let schema = tooldef::emit::parameters(module, t);
    let theirs = jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("jsonschema rejects the schema of {tool}: {e}"));
    let ours = Validator::new(module, t).unwrap_or_else(|e| panic!("{tool}: {e}"));
    Subject {
        ours,
        theirs,
        schema,
    }
}

/// tooldef's full validation of `value` with every error's message and the one message for the
/// model written out (the "with messages" comparison); a count that uses them.
pub fn ours_with_messages(s: &Subject, value: &Value) -> usize {
    match s.ours.validate_value(value, Mode::Strict) {
        Ok(v) => usize::from(v.arguments.is_object()),
        Err(e) => {
            let messages: Vec<(String, String)> = e
                .errors
                .iter()
                .map(|e| (e.path.clone(), e.message().into_owned()))
                .collect();
            messages.len() + e.message().len()
        }
    }
}

/// jsonschema's errors of `value` collected as `(path, message)` strings.
pub fn theirs_with_messages(s: &Subject, value: &Value) -> usize {
    s.theirs
        .iter_errors(value)
        .map(|e| (e.instance_path().to_string(), e.to_string()))
        .collect::<Vec<_>>()
        .len()
}

fn instance(subject: usize, value: Value) -> Instance {
    Instance {
        subject,
        text: serde_json::to_string(&value).expect("a Value serializes"),
        value,
    }
}

fn compile_file(path: &Path) -> Module {
    let source = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    match tooldef::compile(&source) {
        Ok(c) => c.module,
        Err(e) => panic!("{} does not compile: {e:?}", path.display()),
    }
}

/// `examples/weather.tool`'s `get_weather_by_locality` (ten parameters: an enum, a bounded
/// integer with a default, a literal union, a unique array, a nullable named object, a map): a
/// valid instance, and one with exactly three errors.
pub fn weather() -> Workload {
    let module = compile_file(&manifest_dir().join("examples/weather.tool"));
    let subjects = vec![subject(&module, "get_weather_by_locality")];
    let valid = json!({
        "city": "Paris",
        "country": "FR",
        "unit": "celsius",
        "days": 3,
        "format": "html",
        "tags": ["travel", "spring"],
        "at": {"lat": 48.8566, "lon": 2.3522}
    });
    let invalid = json!({
        "city": "",
        "country": "FR",
        "unit": "kelvin",
        "days": 20,
        "tags": ["travel"]
    });
    Workload {
        name: "weather".into(),
        subjects,
        sets: vec![
            Set {
                name: "weather/valid".into(),
                valid: true,
                instances: vec![instance(0, valid)],
            },
            Set {
                name: "weather/3_errors".into(),
                valid: false,
                instances: vec![instance(0, invalid)],
            },
        ],
    }
}

/// `benches/workloads/nested.tool`: arrays of objects, enums, unique arrays, a pattern, a
/// nullable named object.
pub fn nested() -> Workload {
    let module = compile_file(&manifest_dir().join("benches/workloads/nested.tool"));
    let subjects = vec![subject(&module, "create_project")];
    let person = |name: &str, role: &str| json!({"name": name, "email": format!("{}@example.org", name.to_lowercase()), "role": role});
    let tasks: Vec<Value> = (0..12)
        .map(|i| {
            let priority = ["low", "normal", "high", "urgent"][i % 4];
            json!({
                "title": format!("Task number {i}"),
                "priority": priority,
                "estimate": 1.5 * i as f64,
                "assignee": if i % 3 == 0 { Value::Null } else { person("Ada", "editor") },
                "tags": ["backend", format!("sprint-{}", i % 5)]
            })
        })
        .collect();
    let valid = json!({
        "name": "Apollo",
        "members": [person("Ada", "owner"), person("Grace", "editor"), person("Linus", "viewer")],
        "tasks": tasks,
        "labels": ["space", "moon", "rockets"],
        "milestones": [10, 20, 30, 45, 60],
        "public": true
    });
    let mut invalid = valid.clone();
    // Five problems, at several depths: an enum value, a duplicate in a unique array, a pattern,
    // a bound and an unknown key.
    invalid["tasks"][3]["priority"] = json!("critical");
    invalid["labels"] = json!(["space", "moon", "space"]);
    invalid["members"][1]["email"] = json!("not an email");
    invalid["tasks"][7]["estimate"] = json!(-2);
    invalid["owner"] = json!("Ada");
    Workload {
        name: "nested".into(),
        subjects,
        sets: vec![
            Set {
                name: "nested/valid".into(),
                valid: true,
                instances: vec![instance(0, valid)],
            },
            Set {
                name: "nested/5_errors".into(),
                valid: false,
                instances: vec![instance(0, invalid)],
            },
        ],
    }
}

/// A file of `n` tools shaped like the weather example, with a shared enum.
pub fn generated(n: usize) -> String {
    let mut s =
        String::from("/// Unit.\nenum Unit {\n  /// C.\n  celsius\n  /// F.\n  fahrenheit\n}\n");
    for i in 0..n {
        s.push_str(&format!(
            "/// Tool number {i}: returns the weather.\n@read_only\ntool tool_{i} {{\n  /// The city.\n  city: string @min_length(1)\n  state?: string\n  unit?: Unit = \"celsius\"\n  /// Days.\n  days?: integer @min(1) @max(14) = 1\n  tags?: string[] @max_items(10) @unique\n  at?: {{ lat: number @min(-90) @max(90), lon: number }} | null\n}}\n"
        ));
    }
    s
}

/// The sources of the compile benchmarks, by name: the weather example, the nested workload and
/// a generated file of 1,000 tools.
pub fn compile_sources() -> Vec<(&'static str, String)> {
    let read =
        |p: &str| std::fs::read_to_string(manifest_dir().join(p)).expect("a benchmark source");
    vec![
        ("weather", read("examples/weather.tool")),
        ("nested", read("benches/workloads/nested.tool")),
        ("generated_1000", generated(1000)),
    ]
}

/// The JSON Schema tool list emitted for `source`, as a value and as the text serde_json parses
/// against tooldef's compile.
pub fn emitted(source: &str) -> (Value, String) {
    let compiled = tooldef::compile(source).expect("compiles");
    let emitted = tooldef::emit::tools(
        &compiled.module,
        tooldef::emit::Target::JsonSchema,
        &tooldef::emit::Options::default(),
    )
    .expect("emits");
    let text = serde_json::to_string(&emitted.json).expect("json");
    (emitted.json, text)
}

/// Compiles `source` and one validator per tool; how many validators were built.
pub fn validators(source: &str) -> usize {
    match tooldef::compile(source) {
        Ok(c) => {
            let m = &c.module;
            m.tools
                .iter()
                .filter(|t| Validator::new(m, t).is_ok())
                .count()
        }
        Err(_) => 0,
    }
}

// ---------------------------------------------------------------------------------------------
// BFCL

/// Where the BFCL calls are: `../shared/corpus/bfcl/derived`. `None` (with a notice) when the
/// corpus is absent; a panic when it is absent and `CI=true`.
pub fn bfcl_dir() -> Option<PathBuf> {
    let dir = manifest_dir().join("../shared/corpus/bfcl/derived");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "the BFCL corpus is missing at {} (required when CI=true)",
            dir.display()
        );
    }
    eprintln!(
        "notice: {} is absent; skipping the BFCL workloads",
        dir.display()
    );
    None
}

fn doc(out: &mut String, indent: &str, text: Option<&str>) {
    let text = text.map(str::trim).filter(|t| !t.is_empty());
    for line in text.unwrap_or("No description.").lines() {
        out.push_str(indent);
        out.push_str("/// ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

fn literal(v: &Value) -> Option<String> {
    match v {
        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => Some(v.to_string()),
        _ => None,
    }
}

/// A `.tool` type for a BFCL parameter schema; `None` when the converter does not handle it.
fn bfcl_type(schema: &Value, defaults: bool, indent: &str) -> Option<String> {
    let s = schema.as_object()?;
    if let Some(members) = s.get("enum") {
        let members = members.as_array()?;
        if members.is_empty() {
            return None;
        }
        let lits: Option<Vec<String>> = members.iter().map(literal).collect();
        return Some(format!("({})", lits?.join(" | ")));
    }
    let ty = match s.get("type") {
        None => return Some("any".into()),
        Some(Value::String(t)) => t.as_str(),
        Some(_) => return None,
    };
    let max = s
        .get("maximum")
        .and_then(Value::as_number)
        .map(|m| format!(" @max({m})"))
        .unwrap_or_default();
    Some(match ty {
        "string" => "string".into(),
        "integer" => format!("integer{max}"),
        "number" => format!("number{max}"),
        "boolean" => "boolean".into(),
        "null" => "null".into(),
        "array" => match s.get("items") {
            Some(items) => format!("({})[]", bfcl_type(items, defaults, indent)?),
            None => "any[]".into(),
        },
        "object" => match s.get("properties").and_then(Value::as_object) {
            Some(props) if !props.is_empty() => {
                let required = s.get("required").and_then(Value::as_array);
                let inner = format!("{indent}  ");
                let mut out = String::from("{\n");
                bfcl_fields(&mut out, props, required, defaults, &inner)?;
                out.push_str(indent);
                out.push('}');
                out
            }
            _ => "map<any>".into(),
        },
        _ => return None,
    })
}

fn bfcl_fields(
    out: &mut String,
    props: &Map<String, Value>,
    required: Option<&Vec<Value>>,
    defaults: bool,
    indent: &str,
) -> Option<()> {
    for (name, p) in props {
        let is_required = required.is_some_and(|r| r.iter().any(|x| x.as_str() == Some(name)));
        doc(out, indent, p.get("description").and_then(Value::as_str));
        out.push_str(indent);
        out.push_str(&Value::String(name.clone()).to_string());
        if !is_required {
            out.push('?');
        }
        out.push_str(": ");
        out.push_str(&bfcl_type(p, defaults, indent)?);
        if let Some(d) = p.get("default").filter(|_| defaults && !is_required) {
            out.push_str(" = ");
            out.push_str(&d.to_string());
        }
        out.push('\n');
    }
    Some(())
}

/// The `.tool` source of a BFCL function: one tool named `call`.
fn bfcl_source(function: &str, schema: &Value, defaults: bool) -> Option<String> {
    let props = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    let mut out = String::new();
    doc(&mut out, "", Some(&format!("Calls `{function}`.")));
    out.push_str("tool call {\n");
    if let Some(props) = props {
        bfcl_fields(&mut out, props, required, defaults, "  ")?;
    }
    out.push_str("}\n");
    Some(out)
}

/// The invalid twin of a valid call: the first argument replaced by a value of another JSON
/// type, and an undeclared key added.
fn mutate(args: &Value) -> Value {
    let mut out = args.clone();
    if let Value::Object(map) = &mut out {
        if let Some((_, v)) = map.iter_mut().next() {
            *v = match v {
                Value::String(_) => json!(12345),
                Value::Number(n) => Value::String(n.to_string()),
                Value::Bool(b) => Value::String(b.to_string()),
                Value::Array(_) => json!("[]"),
                Value::Object(_) => json!("{}"),
                Value::Null => json!(0),
            };
        }
        map.insert("unexpected_key".into(), json!(true));
    }
    out
}

/// The twin that leaves out a required argument (the last one the call gives), if the schema
/// requires any the call gives.
fn drop_required(args: &Value, schema: &Value) -> Option<Value> {
    let required = schema["required"].as_array()?;
    let mut out = args.clone();
    let map = out.as_object_mut()?;
    let key = required
        .iter()
        .rev()
        .filter_map(Value::as_str)
        .find(|k| map.contains_key(*k))?
        .to_string();
    map.shift_remove(&key);
    Some(out)
}

/// The twin whose only problem is an undeclared key.
fn add_unknown_key(args: &Value) -> Value {
    let mut out = args.clone();
    if let Value::Object(map) = &mut out {
        map.insert("unexpected_key".into(), json!(true));
    }
    out
}

/// Counts of what the BFCL loader kept and left out, for the notice.
#[derive(Default, Debug)]
pub struct BfclStats {
    pub calls: usize,
    pub reference_invalid: usize,
    pub unconvertible: usize,
    pub compiled_without_defaults: usize,
    pub not_compiling: usize,
    pub invalid_on_emitted_schema: usize,
    pub kept: usize,
    /// Kept calls that give every declared argument: their unknown-key twin holds more keys
    /// than the tool has fields.
    pub every_field_given: usize,
    /// Twins that drop a required argument and hold fewer keys than the tool requires.
    pub dropped_below_required: usize,
    pub tools: usize,
}

/// Every valid single-turn BFCL call (`*.calls.jsonl` with `jsonschema_valid`), converted to a
/// one-tool `.tool` source, and its mutated invalid twin. Calls whose schema the converter does
/// not handle, or whose arguments the emitted (closed) schema rejects, are counted and left out.
pub fn bfcl() -> Option<(Workload, BfclStats)> {
    let dir = bfcl_dir()?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".calls.jsonl"))
        .collect();
    files.sort();
    let mut stats = BfclStats::default();
    let mut subjects = Vec::new();
    let mut by_schema: HashMap<String, Option<usize>> = HashMap::new();
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    let mut missing = Vec::new();
    let mut unknown = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable corpus file");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let call: Value = serde_json::from_str(line).expect("corpus lines are JSON");
            stats.calls += 1;
            if call["jsonschema_valid"] != json!(true) {
                stats.reference_invalid += 1;
                continue;
            }
            let function = call["function"].as_str().unwrap_or("f");
            let schema = &call["json_schema"];
            let key = format!("{function}\n{schema}");
            let slot = match by_schema.get(&key) {
                Some(slot) => *slot,
                None => {
                    let slot = bfcl_module(function, schema, &mut stats).map(|module| {
                        subjects.push(subject(&module, "call"));
                        subjects.len() - 1
                    });
                    by_schema.insert(key, slot);
                    slot
                }
            };
            let Some(slot) = slot else {
                stats.unconvertible += 1;
                continue;
            };
            let args = call["args"].clone();
            let s = &subjects[slot];
            if !s.theirs.is_valid(&args) {
                stats.invalid_on_emitted_schema += 1;
                continue;
            }
            stats.kept += 1;
            let keys = |v: &Value| v.as_object().map_or(0, Map::len);
            let required = schema["required"].as_array().map_or(0, Vec::len);
            if keys(&args) == keys(&schema["properties"]) {
                stats.every_field_given += 1;
            }
            invalid.push(instance(slot, mutate(&args)));
            if let Some(twin) = drop_required(&args, schema) {
                if keys(&twin) < required {
                    stats.dropped_below_required += 1;
                }
                missing.push(instance(slot, twin));
            }
            unknown.push(instance(slot, add_unknown_key(&args)));
            valid.push(instance(slot, args));
        }
    }
    stats.tools = subjects.len();
    Some((
        Workload {
            name: "bfcl".into(),
            subjects,
            sets: vec![
                Set {
                    name: "bfcl/valid".into(),
                    valid: true,
                    instances: valid,
                },
                Set {
                    name: "bfcl/invalid_twins".into(),
                    valid: false,
                    instances: invalid,
                },
                Set {
                    name: "bfcl/missing_required".into(),
                    valid: false,
                    instances: missing,
                },
                Set {
                    name: "bfcl/unknown_key".into(),
                    valid: false,
                    instances: unknown,
                },
            ],
        },
        stats,
    ))
}

fn bfcl_module(function: &str, schema: &Value, stats: &mut BfclStats) -> Option<Module> {
    let with = bfcl_source(function, schema, true)?;
    if let Ok(c) = tooldef::compile(&with) {
        return Some(c.module);
    }
    // BFCL defaults are often of another type than their parameter (`"None"` for an integer);
    // the checker rejects those, so try again without defaults.
    let without = bfcl_source(function, schema, false)?;
    match tooldef::compile(&without) {
        Ok(c) => {
            stats.compiled_without_defaults += 1;
            Some(c.module)
        }
        Err(_) => {
            stats.not_compiling += 1;
            None
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Agreement

/// Checks that tooldef and jsonschema agree on every instance of a workload, and that every
/// entry point of tooldef agrees with itself; panics on the first disagreement.
pub fn check(w: &Workload) {
    for set in &w.sets {
        assert!(
            !set.instances.is_empty(),
            "{}: the set has no instances",
            set.name
        );
        for (i, inst) in set.instances.iter().enumerate() {
            let s = &w.subjects[inst.subject];
            let at = || format!("{} #{i}: {}", set.name, inst.text);
            let parsed: Value = serde_json::from_str(&inst.text).expect("instance text parses");
            assert_eq!(parsed, inst.value, "{}: text and value differ", at());
            let theirs = s.theirs.is_valid(&inst.value);
            let ours = s.ours.is_valid(&inst.value, Mode::Strict);
            assert_eq!(theirs, set.valid, "jsonschema is_valid: {}", at());
            assert_eq!(ours, set.valid, "tooldef is_valid: {}", at());
            assert_eq!(
                s.ours.is_valid(inst.text.as_str(), Mode::Strict),
                set.valid,
                "tooldef is_valid on text: {}",
                at()
            );
            let their_errors: Vec<String> = s
                .theirs
                .iter_errors(&inst.value)
                .map(|e| e.to_string())
                .collect();
            let our_full = s.ours.validate_value(&inst.value, Mode::Strict);
            assert_eq!(their_errors.is_empty(), set.valid, "iter_errors: {}", at());
            assert_eq!(our_full.is_ok(), set.valid, "validate_value: {}", at());
            if let Err(e) = &our_full {
                assert!(
                    !e.errors.is_empty() && e.errors.iter().all(|e| !e.message().is_empty()),
                    "{}",
                    at()
                );
            }
            assert_eq!(
                s.ours.validate_str(&inst.text, Mode::Strict).is_ok(),
                set.valid,
                "validate_str strict: {}",
                at()
            );
            if let Ok(full) = &our_full {
                // The text path (which moves the parsed value) and the value path (which walks
                // it) normalize the arguments alike, in both modes.
                for mode in [Mode::Strict, Mode::Lax] {
                    let from_text = s.ours.validate_str(&inst.text, mode);
                    assert_eq!(
                        from_text.as_ref().ok(),
                        Some(full),
                        "validate_str {mode:?}: {}",
                        at()
                    );
                }
            }
        }
    }
}

/// Checks the exact error count both sides report on a set of single-instance workloads.
pub fn check_error_count(w: &Workload, set: &str, count: usize) {
    let set = w
        .sets
        .iter()
        .find(|s| s.name == set)
        .unwrap_or_else(|| panic!("no set {set}"));
    for inst in &set.instances {
        let s = &w.subjects[inst.subject];
        let theirs = s.theirs.iter_errors(&inst.value).count();
        let ours = s
            .ours
            .validate_value(&inst.value, Mode::Strict)
            .err()
            .map_or(0, |e| e.errors.len());
        assert_eq!(theirs, count, "{}: jsonschema error count", set.name);
        assert_eq!(ours, count, "{}: tooldef error count", set.name);
    }
}
