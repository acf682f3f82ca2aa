//! The strict reading of `openai-strict` against the schema that target emits, differentially:
//! for every example tool and for generated tools the target can carry, calls in the target's
//! shape (every key present, `null` or a value in optional fields) and near misses of them (a
//! key dropped, a wrong type, an extra key, `null` in a required field) are given to the
//! `jsonschema` crate on the emitted `parameters` and to `Validator::for_target` in strict mode.
//!
//! 1. They agree, except that the validator also rejects a call that breaks a constraint the
//!    target folded into a description ([`Case::check`] says exactly when that is allowed).
//! 2. An accepted call comes back in the source's shape: what the source reading returns for the
//!    call with every `null` that stands for "absent" removed.
//! 3. No message of the target reading asks to omit a key: its schema forbids that.
//!
//! Plus, over every example tool with an optional field that does not take `null`: `null` there
//! is rejected by the source reading's strict mode (the message says to omit the key), accepted
//! by the target reading, and accepted by lax mode in both (the source recording the
//! `null-as-absent` coercion).

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{TestCaseError, TestRunner};
use serde_json::{json, Map, Value};

use tooldef::emit::{self, Options, Target};
use tooldef::model::*;
use tooldef::validate::{CoercionRule, CompileError, ErrorCode, Mode, Validator};
use tooldef::Code;

#[path = "support/random_tools.rs"]
mod random_tools;
use random_tools::*;

// ---------------------------------------------------------------------------------------------
// A small deterministic generator

/// SplitMix64: enough randomness for arguments, and the same calls on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

fn f64_of(n: &Option<Spanned<serde_json::Number>>) -> Option<f64> {
    n.as_ref().and_then(|n| n.value.as_f64())
}

fn number(x: f64, integer: bool) -> Value {
    if integer || (x.fract() == 0.0 && x.abs() < 1e15) {
        json!(x as i64)
    } else {
        json!(x)
    }
}

/// A string for `rules`: mostly one that fits the pattern (when there is one), of a length
/// around the bounds; sometimes one that misses them.
/// A few valid values of each format.
fn valid_values(format: Format) -> &'static [&'static str] {
    match format {
        Format::Date => &["2024-02-29", "1999-12-31"],
        Format::DateTime => &["2024-05-31T09:30:00Z", "1999-12-31t23:59:60+00:00"],
        Format::Time => &["09:30:00Z", "23:59:59.5-01:00"],
        Format::Duration => &["P1DT12H", "PT0S", "P2W"],
        Format::Email => &["ada@example.com", "x.y@[192.0.2.1]"],
        Format::Hostname => &["example.com", "a-b.c"],
        Format::Ipv4 => &["192.0.2.1", "0.0.0.0"],
        Format::Ipv6 => &["::1", "2001:db8::1"],
        Format::Uri => &["https://example.com/a?b#c", "urn:isbn:0451450523"],
        Format::Uuid => &["123e4567-e89b-12d3-a456-426614174000"],
    }
}

fn string_for(rules: &StringRules, rng: &mut Rng) -> Value {
    let lo = rules.min_length.as_ref().map_or(0, |m| m.value) as usize;
    let hi = rules
        .max_length
        .as_ref()
        .map_or(lo + 6, |m| m.value as usize)
        .max(lo);
    let len = if rng.chance(10) {
        // Just outside the bounds: only a folded constraint (lengths) can reject it.
        if rng.chance(50) {
            lo.saturating_sub(1)
        } else {
            hi + 1
        }
    } else {
        lo + rng.below(hi - lo + 1)
    };
    if let Some(f) = &rules.format {
        if rng.chance(80) {
            if let Some(s) = rng.pick(valid_values(f.value)) {
                return Value::String(s.to_string());
            }
        }
    }
    if let Some(p) = &rules.pattern {
        if rng.chance(90) {
            if let Some(s) = matching(&p.value, len, rng) {
                return Value::String(s);
            }
        }
    }
    let alphabet: Vec<char> = "abcXYZ019-_/@é😀 ".chars().collect();
    let s: String = (0..len)
        .map(|_| *rng.pick(&alphabet).unwrap_or(&'a'))
        .collect();
    Value::String(s)
}

/// A string that matches `pattern`, made by proptest from the pattern without its anchors and
/// padded toward `len` where the pattern leaves an end open.
fn matching(pattern: &str, len: usize, rng: &mut Rng) -> Option<String> {
    let start = pattern.starts_with('^');
    let end = pattern.ends_with('$') && !pattern.ends_with("\\$");
    let core = &pattern[usize::from(start)..pattern.len() - usize::from(end)];
    let strategy = proptest::string::string_regex(core).ok()?;
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &{
            let mut seed = [0u8; 32];
            for chunk in seed.chunks_mut(8) {
                chunk.copy_from_slice(&rng.next().to_le_bytes());
            }
            seed
        }),
    );
    let mut s = strategy.new_tree(&mut runner).ok()?.current();
    let pad: String = "abc"
        .chars()
        .cycle()
        .take(len.saturating_sub(s.chars().count()))
        .collect();
    if !end {
        s.push_str(&pad);
    } else if !start {
        s.insert_str(0, &pad);
    }
    let re = regex::Regex::new(pattern).ok()?;
    re.is_match(&s).then_some(s)
}

/// A value of `ty` in the source's shape (optional fields sometimes left out), mostly valid;
/// numbers and lengths now and then just outside their bounds.
fn value_of(module: &Module, ty: &Ty, rng: &mut Rng, depth: usize) -> Value {
    match ty {
        Ty::Any | Ty::Never => rng
            .pick(&[json!(1), json!("x"), json!(null), json!([]), json!({})])
            .cloned()
            .unwrap_or_default(),
        Ty::Null => Value::Null,
        Ty::Boolean => json!(rng.chance(50)),
        Ty::Integer(r) | Ty::Number(r) => {
            let integer = matches!(ty, Ty::Integer(_));
            let step = f64_of(&r.multiple_of).unwrap_or(if integer { 1.0 } else { 0.25 });
            let lo = f64_of(&r.minimum)
                .or(f64_of(&r.exclusive_minimum).map(|x| x + step))
                .unwrap_or(-20.0);
            let hi = f64_of(&r.maximum)
                .or(f64_of(&r.exclusive_maximum).map(|x| x - step))
                .unwrap_or(lo + 40.0)
                .max(lo);
            let first = (lo / step).ceil() as i64 - 1;
            let n = ((hi - lo) / step).floor() as i64 + 3;
            let k = first + (rng.next() % n.max(1) as u64) as i64;
            number(k as f64 * step, integer)
        }
        Ty::String(rules) => string_for(rules, rng),
        Ty::Const(v) => v.clone(),
        Ty::Enum(members) => rng
            .pick(members)
            .map(|m| m.value.clone())
            .unwrap_or_default(),
        Ty::Array(a) => {
            let lo = a.min_items.as_ref().map_or(0, |m| m.value) as usize;
            let hi = a
                .max_items
                .as_ref()
                .map_or(lo + 3, |m| m.value as usize)
                .max(lo);
            let len = if depth > 3 {
                lo
            } else {
                lo + rng.below(hi - lo + 1)
            };
            let mut items: Vec<Value> = Vec::new();
            for _ in 0..len {
                let item = value_of(module, &a.items, rng, depth + 1);
                // Unique arrays mostly stay unique; now and then a duplicate is kept.
                let unique = a.unique.as_ref().is_some_and(|u| u.value);
                if unique
                    && rng.chance(85)
                    && items
                        .iter()
                        .any(|x| tooldef::validate::json_equal(x, &item))
                {
                    continue;
                }
                items.push(item);
            }
            Value::Array(items)
        }
        Ty::Tuple(t) => Value::Array(
            t.items
                .iter()
                .map(|i| value_of(module, i, rng, depth + 1))
                .collect(),
        ),
        Ty::Object(o) => {
            let mut map = Map::new();
            for f in &o.fields {
                if !f.required && (depth > 3 || rng.chance(35)) {
                    continue;
                }
                let v = match rng.pick(&f.examples) {
                    Some(example) if rng.chance(30) => example.clone(),
                    _ => value_of(module, &f.ty, rng, depth + 1),
                };
                map.insert(f.name.clone(), v);
            }
            Value::Object(map)
        }
        Ty::Ref(id) => value_of(module, &module.get(*id).ty, rng, depth + 1),
        Ty::Nullable(inner) => {
            if depth > 3 || rng.chance(20) {
                Value::Null
            } else {
                value_of(module, inner, rng, depth)
            }
        }
        Ty::AnyOf(members) => match rng.pick(members) {
            Some(m) => value_of(module, m, rng, depth),
            None => Value::Null,
        },
    }
}

// ---------------------------------------------------------------------------------------------
// The two shapes

/// Whether `value` fits `ty` in the source's reading, strict mode.
fn fits(module: &Module, ty: &Ty, value: &Value) -> bool {
    tooldef::validate::first_violation(module, ty, value).is_none()
}

/// A value in the source's shape turned into the target's: every optional field left out is sent
/// as `null`. In a union, any member that takes the value may be the one the call is made for
/// (`{}` fits every member whose fields are all optional; in the target's shape, the `null`s
/// tell them apart).
fn to_target_shape(module: &Module, ty: &Ty, value: &mut Value, rng: &mut Rng) {
    match (module.resolve(ty), value) {
        (Ty::Nullable(inner), v) if !v.is_null() => to_target_shape(module, inner, v, rng),
        (Ty::AnyOf(members), v) => {
            let fitting: Vec<&Ty> = members.iter().filter(|m| fits(module, m, v)).collect();
            if let Some(m) = rng.pick(&fitting) {
                to_target_shape(module, m, v, rng);
            }
        }
        (Ty::Array(a), Value::Array(items)) => {
            for item in items {
                to_target_shape(module, &a.items, item, rng);
            }
        }
        (Ty::Object(o), Value::Object(map)) => {
            for f in &o.fields {
                match map.get_mut(&f.name) {
                    Some(v) => to_target_shape(module, &f.ty, v, rng),
                    None if !f.required => {
                        map.insert(f.name.clone(), Value::Null);
                    }
                    None => {}
                }
            }
        }
        _ => {}
    }
}

/// A call in the target's shape turned into the source's: every `null` that stands for
/// "absent" (in an optional field whose type has no `null`) removed.
fn to_source_shape(module: &Module, ty: &Ty, value: &mut Value) {
    match (module.resolve(ty), value) {
        (Ty::Nullable(inner), v) if !v.is_null() => to_source_shape(module, inner, v),
        (Ty::AnyOf(members), v) => {
            // The member the target's shape names first: an object member is sent with every
            // one of its keys, so a member whose keys the call does not hold is ruled out there
            // even when the call, without its nulls, would fit it. Then any member that fits.
            let read = |m: &Ty| read_as(module, m, v);
            let read = members
                .iter()
                .filter(|m| has_every_key(module, m, v))
                .find_map(read)
                .or_else(|| members.iter().find_map(read));
            if let Some(c) = read {
                *v = c;
            }
        }
        (Ty::Array(a), Value::Array(items)) => {
            for item in items {
                to_source_shape(module, &a.items, item);
            }
        }
        (Ty::Object(o), Value::Object(map)) => {
            for f in &o.fields {
                match map.get_mut(&f.name) {
                    Some(v) if v.is_null() && f.null_means_absent(module) => {
                        map.shift_remove(&f.name);
                    }
                    Some(v) => to_source_shape(module, &f.ty, v),
                    None => {}
                }
            }
        }
        _ => {}
    }
}

/// Whether somewhere in `value` (in the target's shape) a union is left only with members that
/// break the source's rules: the members whose keys the value holds (the ones the target's
/// schema can take) all reject it, though another member, one the target's shape rules out by
/// a key the value leaves out, would take it without its nulls. There the schema took a member
/// whose folded constraint the validator applies.
fn forced_member(module: &Module, ty: &Ty, value: &Value) -> bool {
    match (module.resolve(ty), value) {
        (Ty::Nullable(inner), v) if !v.is_null() => forced_member(module, inner, v),
        (Ty::AnyOf(members), v) => {
            let keyed: Vec<&Ty> = members
                .iter()
                .filter(|m| has_every_key(module, m, v))
                .collect();
            if !keyed.is_empty() && !keyed.iter().any(|m| read_as(module, m, v).is_some()) {
                return true;
            }
            keyed.iter().any(|m| forced_member(module, m, v))
        }
        (Ty::Array(a), Value::Array(items)) => items
            .iter()
            .any(|item| forced_member(module, &a.items, item)),
        (Ty::Object(o), Value::Object(map)) => o.fields.iter().any(|f| {
            map.get(&f.name)
                .is_some_and(|v| !v.is_null() && forced_member(module, &f.ty, v))
        }),
        _ => false,
    }
}

/// `value` in the source's shape as member `ty` reads it, if it fits that member there.
fn read_as(module: &Module, ty: &Ty, value: &Value) -> Option<Value> {
    let mut c = value.clone();
    to_source_shape(module, ty, &mut c);
    fits(module, ty, &c).then_some(c)
}

/// Whether `value` holds a key for every field of `ty`, when `ty` is an object: what the
/// target's shape asks of a member of a union (every key sent, `null` for an absent one).
fn has_every_key(module: &Module, ty: &Ty, value: &Value) -> bool {
    match (module.resolve(ty), value) {
        (Ty::Object(o), Value::Object(map)) => o.fields.iter().all(|f| map.contains_key(&f.name)),
        _ => true,
    }
}

/// Whether `ty` holds a union with two or more members that are objects.
fn has_object_union(module: &Module, ty: &Ty, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    match module.resolve(ty) {
        Ty::AnyOf(members) => {
            members
                .iter()
                .filter(|m| matches!(module.resolve(m), Ty::Object(_)))
                .count()
                >= 2
                || members
                    .iter()
                    .any(|m| has_object_union(module, m, depth + 1))
        }
        Ty::Nullable(inner) => has_object_union(module, inner, depth + 1),
        Ty::Array(a) => has_object_union(module, &a.items, depth + 1),
        Ty::Object(o) => o
            .fields
            .iter()
            .any(|f| has_object_union(module, &f.ty, depth + 1)),
        _ => false,
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The pointers of every node of `value`, and of its objects.
fn nodes(value: &Value, at: String, all: &mut Vec<String>, objects: &mut Vec<String>) {
    match value {
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                nodes(x, format!("{at}/{i}"), all, objects);
            }
        }
        Value::Object(map) => {
            objects.push(at.clone());
            for (k, x) in map {
                nodes(x, format!("{at}/{}", escape(k)), all, objects);
            }
        }
        _ => {}
    }
    all.push(at);
}

/// Pointers to the fields of `value` (in either shape) that are declared: `required` fields
/// whose type has no `null`, and optional fields whose `null` means absent. Only through
/// objects (a `null` put there leaves every other part of the call as it was read).
fn declared_fields(
    module: &Module,
    ty: &Ty,
    value: &Value,
    at: &str,
    required: &mut Vec<String>,
    absent: &mut Vec<String>,
) {
    match (module.resolve(ty), value) {
        (Ty::Nullable(inner), v) if !v.is_null() => {
            declared_fields(module, inner, v, at, required, absent)
        }
        (Ty::Object(o), Value::Object(map)) => {
            for f in &o.fields {
                let Some(v) = map.get(&f.name) else { continue };
                let here = format!("{at}/{}", escape(&f.name));
                if f.required && !module.accepts_null(&f.ty) {
                    required.push(here.clone());
                }
                if f.null_means_absent(module) {
                    absent.push(here.clone());
                }
                declared_fields(module, &f.ty, v, &here, required, absent);
            }
        }
        _ => {}
    }
}

/// Near misses of a call in the target's shape: a key dropped, a value of the wrong type, an
/// extra key, `null` in a required field that does not take it. `0..=2` of them.
fn near_miss(module: &Module, tool: &Tool, call: &mut Value, rng: &mut Rng) {
    let params = Ty::Object(Box::new(tool.params.clone()));
    for _ in 0..rng.below(3) {
        let (mut all, mut objects) = (Vec::new(), Vec::new());
        nodes(call, String::new(), &mut all, &mut objects);
        match rng.below(4) {
            0 => {
                let Some(at) = rng.pick(&objects).cloned() else {
                    continue;
                };
                if let Some(Value::Object(m)) = call.pointer_mut(&at) {
                    let keys: Vec<String> = m.keys().cloned().collect();
                    if let Some(k) = rng.pick(&keys) {
                        m.shift_remove(k);
                    }
                }
            }
            1 => {
                let Some(at) = rng.pick(&all).cloned() else {
                    continue;
                };
                let wrong = [
                    json!("x"),
                    json!(7),
                    json!(2.5),
                    json!(true),
                    json!([]),
                    json!({}),
                ];
                if let (Some(node), Some(w)) = (call.pointer_mut(&at), rng.pick(&wrong)) {
                    *node = w.clone();
                }
            }
            2 => {
                let Some(at) = rng.pick(&objects).cloned() else {
                    continue;
                };
                if let Some(Value::Object(m)) = call.pointer_mut(&at) {
                    m.insert("zz_extra".into(), json!(1));
                }
            }
            _ => {
                let (mut required, mut absent) = (Vec::new(), Vec::new());
                declared_fields(module, &params, call, "", &mut required, &mut absent);
                if let Some(node) = rng.pick(&required).and_then(|at| call.pointer_mut(at)) {
                    *node = Value::Null;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The differential check

/// How many calls each side decided.
#[derive(Debug, Default)]
struct Counts {
    /// Both accepted.
    accepted: usize,
    /// Both rejected.
    rejected: usize,
    /// The schema accepted; the validator rejected, for a constraint folded into a description.
    folded: usize,
    /// Both accepted; a union read the call as another member than the source reading reads it
    /// without its nulls (counted in `accepted` too).
    member: usize,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.accepted += other.accepted;
        self.rejected += other.rejected;
        self.folded += other.folded;
        self.member += other.member;
    }
}

/// The error codes a constraint folded by `openai-strict` makes (`@min_length`, `@max_length`,
/// `@unique`, the rules across keys, and `@format(uri)`, which OpenAI's format list lacks; inside
/// a union, the union's own error). `= default`, `@example` and `@deprecated` constrain nothing in strict mode.
const FOLDED_CODES: &[ErrorCode] = &[
    ErrorCode::FormatMismatch,
    ErrorCode::TooShort,
    ErrorCode::TooLong,
    ErrorCode::DuplicateItems,
    ErrorCode::NoMatch,
    ErrorCode::TooFewKeys,
    ErrorCode::TooManyKeys,
    ErrorCode::MissingOneOf,
    ErrorCode::ConflictingKeys,
    ErrorCode::MissingDependent,
];

/// One tool, compiled every way the check needs.
struct Case<'m> {
    module: &'m Module,
    tool: &'m Tool,
    params: Ty,
    /// The `parameters` of `openai-strict`.
    strict_schema: Value,
    schema: jsonschema::Validator,
    /// The `json-schema` target's parameters: the source's shape with every constraint.
    source_schema: jsonschema::Validator,
    target: Validator,
    source: Validator,
    /// Whether the target folded any constraint into a description.
    folded: bool,
}

fn draft(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| format!("{e}\n{schema}"))
}

impl<'m> Case<'m> {
    /// `Ok(None)` when the target refuses the tool (then `for_target` and `emit::tool` both
    /// fail).
    fn new(module: &'m Module, tool: &'m Tool) -> Result<Option<Case<'m>>, String> {
        let emitted = emit::tool(module, tool, Target::OpenAiStrict, &Options::default());
        let target = Validator::for_target(module, tool, Target::OpenAiStrict);
        let (emitted, target) = match (emitted, target) {
            (Ok(e), Ok(t)) => (e, t),
            (Err(_), Err(CompileError::NotRepresentable { .. })) => return Ok(None),
            (e, t) => {
                return Err(format!(
                    "the emitter and the validator disagree on whether `{}` fits: {:?} / {:?}",
                    tool.name,
                    e.map(|e| e.json),
                    t.map(|t| t.reading())
                ))
            }
        };
        // A tool with lowered constructs (maps, extra keys, `any`) is read in another shape
        // than the one this harness makes: `lowered_values_come_back_in_the_source_shape`
        // covers it.
        if emitted
            .warnings
            .iter()
            .any(|w| w.code == Code::LoweredConstruct)
        {
            return Ok(None);
        }
        let strict_schema = emitted.json["function"]["parameters"].clone();
        let source_json = emit::parameters(module, tool);
        Ok(Some(Case {
            module,
            tool,
            params: Ty::Object(Box::new(tool.params.clone())),
            schema: draft(&strict_schema)?,
            strict_schema,
            source_schema: draft(&source_json)?,
            target,
            source: Validator::new(module, tool).map_err(|e| e.to_string())?,
            folded: emitted
                .warnings
                .iter()
                .any(|w| w.code == Code::FoldedConstraint),
        }))
    }

    /// Whether two readings of one call may differ as readings of a union of objects: the tool
    /// has such a union, and both are valid arguments in the source's shape.
    fn union_reading(&self, a: &Value, b: &Value) -> bool {
        has_object_union(self.module, &self.params, 0)
            && self.source.is_valid(a, Mode::Strict)
            && self.source.is_valid(b, Mode::Strict)
    }

    /// A message with the tool author's own texts (descriptions, which may well say "when
    /// omitted") taken out: what is left is tooldef's wording.
    fn without_descriptions(&self, message: &str) -> String {
        let mut texts: Vec<&str> = vec![self.tool.description.as_str()];
        let mut fields: Vec<&ObjectTy> = vec![&self.tool.params];
        fn objects<'a>(ty: &'a Ty, out: &mut Vec<&'a ObjectTy>) {
            match ty {
                Ty::Object(o) => {
                    out.push(o);
                    for f in &o.fields {
                        objects(&f.ty, out);
                    }
                }
                Ty::Array(a) => objects(&a.items, out),
                Ty::Nullable(inner) => objects(inner, out),
                Ty::AnyOf(members) => members.iter().for_each(|m| objects(m, out)),
                _ => {}
            }
        }
        for f in &self.tool.params.fields {
            objects(&f.ty, &mut fields);
        }
        for n in &self.module.types {
            texts.extend(n.description.as_deref());
            objects(&n.ty, &mut fields);
            if let Ty::Enum(members) = &n.ty {
                texts.extend(members.iter().filter_map(|m| m.description.as_deref()));
            }
        }
        for o in fields {
            texts.extend(o.fields.iter().filter_map(|f| f.description.as_deref()));
        }
        // Longest first, so a text that holds another is taken out whole.
        texts.sort_by_key(|t| std::cmp::Reverse(t.len()));
        let mut out = message.to_string();
        for t in texts.into_iter().filter(|t| !t.is_empty()) {
            out = out.replace(t, "");
        }
        out
    }

    fn source_shape(&self, call: &Value) -> Value {
        let mut v = call.clone();
        to_source_shape(self.module, &self.params, &mut v);
        v
    }

    /// Checks one call in (or near) the target's shape.
    fn check(&self, call: &Value, counts: &mut Counts) -> Result<(), String> {
        let context = || {
            format!(
                "tool `{}`\ncall {call}\nstrict schema {}",
                self.tool.name, self.strict_schema
            )
        };
        let expected = self.schema.is_valid(call);
        let got = self.target.validate_value(call, Mode::Strict);
        // The text path reads the same.
        let text = self.target.validate_str(&call.to_string(), Mode::Strict);
        if text.as_ref().ok().map(|v| &v.arguments) != got.as_ref().ok().map(|v| &v.arguments) {
            return Err(format!("text and value readings differ\n{}", context()));
        }
        match got {
            Ok(valid) => {
                if !expected {
                    let errors: Vec<String> = self
                        .schema
                        .iter_errors(call)
                        .map(|e| e.to_string())
                        .collect();
                    return Err(format!(
                        "the validator accepts what the schema rejects: {errors:?}\n{}",
                        context()
                    ));
                }
                if !valid.coercions.is_empty() {
                    return Err(format!("coercions in strict mode\n{}", context()));
                }
                // In the source's shape: what the source reading makes of the call without the
                // nulls that stand for absent fields.
                let bare = self.source_shape(call);
                let source = match self.source.validate_value(&bare, Mode::Strict) {
                    Ok(source) => source,
                    // Without their nulls, two items of a `@unique` array can read as equal
                    // where the nulls told the target's reading which member of a union of
                    // objects each was made for; the target's arguments must then be valid in
                    // the source's shape.
                    Err(_)
                        if has_object_union(self.module, &self.params, 0)
                            && self.source.is_valid(&*valid.arguments, Mode::Strict) =>
                    {
                        counts.member += 1;
                        counts.accepted += 1;
                        return Ok(());
                    }
                    Err(e) => {
                        return Err(format!(
                            "the source reading rejects {bare}: {}\n{}",
                            e.message(),
                            context()
                        ))
                    }
                };
                if source.arguments != valid.arguments {
                    // Allowed only where a union of objects reads the call as another member:
                    // without its nulls, a call can fit several members (`{}` fits every member
                    // whose fields are all optional; `{"c": null}` fits one where `c` takes null
                    // and one where it is absent), and the source reading takes the first, while
                    // the nulls told the target's reading which member the call was made for.
                    // Both arguments must then be valid in the source's shape.
                    if !self.union_reading(&valid.arguments, &source.arguments) {
                        return Err(format!(
                            "arguments differ: target {} source {}\n{}",
                            valid.arguments,
                            source.arguments,
                            context()
                        ));
                    }
                    counts.member += 1;
                }
                // Lax mode accepts it too; with the same arguments when its only coercions are
                // the nulls read as absent (a union may otherwise take another member, one that
                // needs a coercion: lax mode reads by the source's rules).
                // (In a union of objects, lax mode may even read two items of a unique array as
                // the same member where the strict reading told them apart.)
                let lax = match self.target.validate_value(call, Mode::Lax) {
                    Ok(lax) => lax,
                    Err(_) if has_object_union(self.module, &self.params, 0) => {
                        counts.member += usize::from(source.arguments == valid.arguments);
                        counts.accepted += 1;
                        return Ok(());
                    }
                    Err(e) => return Err(format!("lax rejects: {}\n{}", e.message(), context())),
                };
                let only_nulls = lax
                    .coercions
                    .iter()
                    .all(|c| c.rule == CoercionRule::NullAsAbsent);
                if only_nulls
                    && lax.arguments != valid.arguments
                    && !self.union_reading(&lax.arguments, &valid.arguments)
                {
                    return Err(format!(
                        "lax arguments {} differ from strict {}\n{}",
                        lax.arguments,
                        valid.arguments,
                        context()
                    ));
                }
                counts.accepted += 1;
            }
            Err(invalid) => {
                let message = invalid.message();
                if self.without_descriptions(&message).contains("omit") {
                    return Err(format!(
                        "the message asks to omit a key: {message}\n{}",
                        context()
                    ));
                }
                if expected {
                    // Allowed only for a folded constraint: the tool has one, every error is
                    // one such a constraint makes, and the source reading (and the full schema)
                    // reject the call in the source's shape too.
                    let bare = self.source_shape(call);
                    let codes: Vec<ErrorCode> = invalid.errors.iter().map(|e| e.code).collect();
                    let explained = self.folded
                        && codes.iter().all(|c| FOLDED_CODES.contains(c))
                        && (forced_member(self.module, &self.params, call)
                            || (!self.source.is_valid(&bare, Mode::Strict)
                                && !self.source_schema.is_valid(&bare)));
                    if !explained {
                        return Err(format!(
                            "the validator rejects what the schema accepts: {codes:?} {message}\n{}",
                            context()
                        ));
                    }
                    counts.folded += 1;
                } else {
                    counts.rejected += 1;
                }
            }
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// 1. and 3. over the examples

fn examples() -> Vec<(String, Module)> {
    let mut paths: Vec<_> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples"))
        .expect("examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tool"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            let module = tooldef::compile(&text)
                .unwrap_or_else(|e| panic!("{}: {e:?}", p.display()))
                .module;
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                module,
            )
        })
        .collect()
}

/// Calls for a tool: its own generated values in the target's shape, and near misses of them.
fn calls(module: &Module, tool: &Tool, rng: &mut Rng, n: usize) -> Vec<Value> {
    let params = Ty::Object(Box::new(tool.params.clone()));
    (0..n)
        .map(|_| {
            let mut call = value_of(module, &params, rng, 0);
            to_target_shape(module, &params, &mut call, rng);
            if rng.chance(50) {
                near_miss(module, tool, &mut call, rng);
            }
            call
        })
        .collect()
}

#[test]
fn example_tools_agree_with_the_strict_schema() {
    let mut total = Counts::default();
    let (mut carried, mut refused) = (0, 0);
    for (file, module) in examples() {
        for tool in &module.tools {
            let case = Case::new(&module, tool).unwrap_or_else(|e| panic!("{file}: {e}"));
            let Some(case) = case else {
                refused += 1;
                println!("{file} {}: refused by openai-strict", tool.name);
                continue;
            };
            carried += 1;
            let mut counts = Counts::default();
            let mut rng = Rng(0x5EED ^ carried as u64);
            for call in calls(&module, tool, &mut rng, 400) {
                case.check(&call, &mut counts)
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
            }
            println!(
                "{file} {}: both accepted {}, both rejected {}, only the validator (folded) {}",
                tool.name, counts.accepted, counts.rejected, counts.folded
            );
            assert!(
                counts.accepted > 0,
                "{file} {}: no call accepted",
                tool.name
            );
            assert!(
                counts.rejected > 0,
                "{file} {}: no call rejected",
                tool.name
            );
            total.add(&counts);
        }
    }
    println!(
        "examples: {carried} tools carried, {refused} refused; both accepted {} (a union read as another member {}), both rejected {}, only the validator (folded) {}",
        total.accepted, total.member, total.rejected, total.folded
    );
    assert!(carried >= 10, "{carried}");
}

// ---------------------------------------------------------------------------------------------
// 1. and 3. over generated tools

/// A spec the strict target can mostly carry: what it refuses (`any`, `never`, tuples, open
/// objects, maps, literal arrays) replaced by something it takes.
fn carried(spec: &Spec) -> Spec {
    match spec {
        Spec::Any => Spec::Bool,
        Spec::Const(v) if v.is_array() || v.is_object() => Spec::Const(json!("a")),
        Spec::Tuple { items, unique, .. } => Spec::Array {
            items: Box::new(items.first().map_or(Spec::Bool, carried)),
            min: None,
            max: None,
            unique: *unique,
        },
        Spec::Array {
            items,
            min,
            max,
            unique,
        } => Spec::Array {
            items: Box::new(carried(items)),
            min: *min,
            max: *max,
            unique: *unique,
        },
        Spec::Object { fields, .. } => {
            let fields: Vec<_> = fields
                .iter()
                .filter(|(_, _, s, _)| !matches!(s, Spec::Never))
                .map(|(n, r, s, d)| (n.clone(), *r, carried(s), d.clone()))
                .collect();
            // Rules across keys are read in the source's shape (what the model sent as `null`
            // for an absent field is absent): drawn again for the fields that are carried.
            let seed = [fields.len() as u8, 1 + fields.len() as u8, 2];
            let rules = key_rules(&fields, seed);
            Spec::Object {
                fields,
                extra: Extra::Closed,
                rules,
            }
        }
        Spec::Nullable(inner) => Spec::Nullable(Box::new(carried(inner))),
        Spec::AnyOf(members) => Spec::AnyOf(members.iter().map(carried).collect()),
        Spec::Named(inner) => Spec::Named(Box::new(carried(inner))),
        other => other.clone(),
    }
}

/// An object whose fields are all optional, most with a default: `{}` fits every such member of
/// a union, so the member a call in the source's shape is read as can depend on the `null`s.
fn optional_object() -> BoxedStrategy<Spec> {
    let names = prop::sample::subsequence(vec!["a", "b", "c", "city"], 1..3);
    (names, prop::collection::vec((leaf(), any::<bool>()), 3))
        .prop_map(|(names, leaves)| {
            let fields = names
                .into_iter()
                .zip(leaves)
                .map(|(n, (spec, defaulted))| {
                    let spec = carried(&spec);
                    let default = if defaulted { default_for(&spec) } else { None };
                    (n.to_string(), false, spec, default)
                })
                .collect();
            Spec::Object {
                fields,
                extra: Extra::Closed,
                rules: KeyRules::default(),
            }
        })
        .boxed()
}

/// A tool with a union of such objects, alone and as the items of a unique array.
fn union_tool() -> BoxedStrategy<Spec> {
    let union = prop::collection::vec(optional_object(), 2..4).prop_map(Spec::AnyOf);
    (union.clone(), union, any::<bool>())
        .prop_map(|(u, items, unique)| Spec::Object {
            fields: vec![
                ("u".to_string(), true, u, None),
                (
                    "v".to_string(),
                    false,
                    Spec::Array {
                        items: Box::new(items),
                        min: None,
                        max: None,
                        unique,
                    },
                    None,
                ),
            ],
            extra: Extra::Closed,
            rules: KeyRules::default(),
        })
        .boxed()
}

fn generated() -> impl Strategy<Value = (Spec, Value, u64)> {
    prop_oneof![
        4 => tool_spec().prop_map(|s| carried(&s)),
        1 => tool_spec(),
        1 => union_tool(),
    ]
    .prop_flat_map(|s| {
        let args = instance(&s);
        (Just(s), args, any::<u64>())
    })
}

#[test]
fn generated_tools_agree_with_the_strict_schema() {
    let mut runner = TestRunner::new(config(300));
    let total = std::cell::RefCell::new(Counts::default());
    let refused = std::cell::Cell::new(0usize);
    let result = runner.run(&generated(), |(spec, args, seed)| {
        let (module, tool) = build(&spec);
        let case = Case::new(&module, &tool).map_err(TestCaseError::fail)?;
        let Some(case) = case else {
            refused.set(refused.get() + 1);
            return Ok(());
        };
        let mut counts = Counts::default();
        // The generated arguments in the target's shape, as they are and with near misses.
        let mut call = args;
        let mut rng = Rng(seed);
        to_target_shape(&module, &case.params, &mut call, &mut rng);
        case.check(&call, &mut counts)
            .map_err(TestCaseError::fail)?;
        near_miss(&module, &tool, &mut call, &mut rng);
        case.check(&call, &mut counts)
            .map_err(TestCaseError::fail)?;
        // And calls made from the model.
        for call in calls(&module, &tool, &mut rng, 8) {
            case.check(&call, &mut counts)
                .map_err(TestCaseError::fail)?;
        }
        total.borrow_mut().add(&counts);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let total = total.into_inner();
    println!(
        "generated: {} tools refused; both accepted {} (a union read as another member {}), both rejected {}, only the validator (folded) {}",
        refused.get(),
        total.accepted,
        total.member,
        total.rejected,
        total.folded
    );
    assert!(total.accepted > 200, "{total:?}");
    assert!(total.rejected > 200, "{total:?}");
}

// ---------------------------------------------------------------------------------------------
// 2. null for an optional field, in both readings

/// A call for `tool` that the target reading accepts, with `case`.
fn accepted_call(case: &Case, rng: &mut Rng) -> Option<Value> {
    let params = &case.params;
    (0..5000).find_map(|_| {
        let mut call = value_of(case.module, params, rng, 0);
        to_target_shape(case.module, params, &mut call, rng);
        case.target.is_valid(&call, Mode::Strict).then_some(call)
    })
}

#[test]
fn null_for_an_optional_field_in_both_readings() {
    let mut tested = 0;
    for (file, module) in examples() {
        for tool in &module.tools {
            let has_such_field = tool
                .params
                .fields
                .iter()
                .any(|f| f.null_means_absent(&module));
            let Some(case) = Case::new(&module, tool).unwrap_or_else(|e| panic!("{file}: {e}"))
            else {
                continue;
            };
            if !has_such_field {
                continue;
            }
            let mut rng = Rng(0xA11CE);
            let call = accepted_call(&case, &mut rng)
                .unwrap_or_else(|| panic!("{file} {}: no accepted call found", tool.name));
            let (mut required, mut absent) = (Vec::new(), Vec::new());
            declared_fields(&module, &case.params, &call, "", &mut required, &mut absent);
            assert!(!absent.is_empty(), "{file} {}: {call}", tool.name);
            for at in absent {
                let context = format!("{file} {} at {at}: {call}", tool.name);
                // The target's shape, with null there.
                let mut shown = call.clone();
                *shown.pointer_mut(&at).unwrap() = Value::Null;
                let strict = case
                    .target
                    .validate_value(&shown, Mode::Strict)
                    .unwrap_or_else(|e| panic!("{context}: target rejects: {}", e.message()));
                assert!(strict.coercions.is_empty(), "{context}");
                let lax = case
                    .target
                    .validate_value(&shown, Mode::Lax)
                    .unwrap_or_else(|e| panic!("{context}: target lax rejects: {}", e.message()));
                assert_eq!(lax.arguments, strict.arguments, "{context}");

                // The source's shape, with null only there.
                let mut bare = case.source_shape(&shown);
                let parent = at.rsplit_once('/').map_or("", |(p, _)| p);
                let key = at.rsplit_once('/').map_or(at.as_str(), |(_, k)| k);
                let key = key.replace("~1", "/").replace("~0", "~");
                bare.pointer_mut(parent)
                    .and_then(Value::as_object_mut)
                    .unwrap_or_else(|| panic!("{context}"))
                    .insert(key, Value::Null);
                let err = case
                    .source
                    .validate_value(&bare, Mode::Strict)
                    .expect_err(&context);
                assert_eq!(err.errors.len(), 1, "{context}: {}", err.message());
                assert_eq!(err.errors[0].path, at, "{context}");
                assert!(
                    err.message().contains("omit the key"),
                    "{context}: {}",
                    err.message()
                );
                let source_lax = case
                    .source
                    .validate_value(&bare, Mode::Lax)
                    .unwrap_or_else(|e| panic!("{context}: source lax rejects: {}", e.message()));
                assert!(
                    source_lax
                        .coercions
                        .iter()
                        .any(|c| c.rule == CoercionRule::NullAsAbsent && c.path == at),
                    "{context}: {:?}",
                    source_lax.coercions
                );
                // Both readings agree on what the call means.
                assert_eq!(source_lax.arguments, strict.arguments, "{context}");
                tested += 1;
            }
        }
    }
    println!("null for an optional field: {tested} fields checked");
    assert!(tested >= 10, "{tested}");
}
