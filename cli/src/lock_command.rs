//! `tooldef lock`: pin what each provider receives of every tool (`docs/diff-and-lock.md`), and
//! `--check` to say which tools changed since, and how.
//!
//! The lock holds, per tool, a SHA-256 of the JSON each target emits for it (or, for a server's
//! tools, of the tool JSON as listed), the tool's MCP `Tool` JSON, its definition, and (for
//! `.tool` sources) the settings no provider receives: `@requires_approval`, and the
//! validation's and the runtime's (`@strict`/`@lax`, `@formats`, `@scope`, `@on_error`,
//! `@retry`, `@meta`). When an entry no longer matches, both definitions are imported
//! (`--from mcp`, objects kept as they are), given their settings, and compared with
//! [`tooldef::diff`], so the report gives diff's classes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Number, Value};
use sha2::{Digest, Sha256};
use tooldef::emit::{self, Options, Target};
use tooldef::import::Dialect;
use tooldef::model::{
    Additional, Cache, Formats, Mode, ObjectTy, OnError, OnInvalid, Retry, Tool, Wait,
};
use tooldef::{Change, ChangeKind, Module, Toolset};

use crate::build_command::{load, tool_files};
use crate::diff_command::{print_changes, ChangesFormat};
use crate::mcp_client_command::Remote;
use crate::read::InputLimits;
use crate::{read_input, to_stderr, write, EXIT_ERRORS, EXIT_USAGE};

/// The version of the lock's format.
const VERSION: u64 = 1;

/// The arguments of `tooldef lock`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["files", "server", "url"])))]
pub(crate) struct LockArgs {
    /// Files and folders (searched for `*.tool`, recursively).
    #[arg(conflicts_with_all = ["server", "url"])]
    files: Vec<PathBuf>,
    #[command(flatten)]
    remote: Remote,
    /// The lock file.
    #[arg(long, value_name = "PATH", default_value = "tools.lock")]
    lock: PathBuf,
    /// Write nothing; list every tool added, removed or changed since the lock, with diff's
    /// classes, and exit with 1 if any is.
    #[arg(long)]
    check: bool,
    /// How to print the changes (and, on standard error, diagnostics).
    #[arg(long, value_enum, default_value_t = ChangesFormat::Human)]
    format: ChangesFormat,
}

/// Where the locked tools came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Files,
    Server,
}

impl Origin {
    fn as_str(self) -> &'static str {
        match self {
            Origin::Files => "files",
            Origin::Server => "server",
        }
    }

    /// How messages name it.
    fn describe(self) -> &'static str {
        match self {
            Origin::Files => ".tool files",
            Origin::Server => "an MCP server",
        }
    }
}

/// What the lock keeps of one tool.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    /// The MCP `Tool` JSON.
    definition: Value,
    /// `@requires_approval`, which no provider receives (sources only).
    requires_approval: Option<bool>,
    /// The validation's and the runtime's settings, which no provider receives either (sources
    /// only; `None` in a lock written before they were kept): see [`settings_json`].
    settings: Option<Value>,
    /// Target name → SHA-256 of the tool's JSON for it, in lowercase hex.
    sha256: BTreeMap<String, String>,
}

impl Entry {
    /// This entry as a lock that does not keep the settings would have it: what an entry of
    /// such a lock is compared with.
    fn as_kept_by(&self, locked: &Entry) -> Entry {
        Entry {
            settings: locked.settings.as_ref().and(self.settings.clone()),
            ..self.clone()
        }
    }
}

/// A lock: where its tools came from, and each tool by name.
#[derive(Clone, Debug, PartialEq)]
struct Lock {
    from: Origin,
    tools: BTreeMap<String, Entry>,
}

pub(crate) fn run(args: &LockArgs, limits: &InputLimits) -> Result<u8, String> {
    let current = if args.remote.is_given() {
        server_lock(&args.remote, limits)?
    } else {
        let Some(toolset) = load(&args.files, limits, args.format.diagnostics())? else {
            return Ok(EXIT_USAGE);
        };
        files_lock(&toolset)?
    };
    if args.check {
        return check(args, limits, &current);
    }
    let files = tool_files(&args.files);
    let inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    write::refuse_output_over_input(&args.lock, &inputs)?;
    let mut text = serde_json::to_string_pretty(&to_json(&current)).map_err(|e| e.to_string())?;
    text.push('\n');
    write::write_file(&args.lock, text.as_bytes())?;
    let n = current.tools.len();
    to_stderr(&format!(
        "locked {n} tool{} in {}\n",
        if n == 1 { "" } else { "s" },
        args.lock.display()
    ));
    Ok(0)
}

/// `--check`: the changes since the lock, printed; 1 when there is any.
fn check(args: &LockArgs, limits: &InputLimits, current: &Lock) -> Result<u8, String> {
    let name = args.lock.display();
    if !args.lock.exists() {
        return Err(format!(
            "there is no lock file at {name}; write it with `tooldef lock` (and the same sources) first"
        ));
    }
    let input = read_input(&args.lock, limits.input())?;
    let value: Value =
        serde_json::from_slice(&input.bytes).map_err(|e| format!("{name} is not JSON: {e}"))?;
    let locked = from_json(&value).map_err(|e| format!("{name}: {e}"))?;
    if locked.from != current.from {
        return Err(format!(
            "{name} pins the tools of {}, not of {}: check it with {}",
            locked.from.describe(),
            current.from.describe(),
            match locked.from {
                Origin::Server => "--server or --url",
                Origin::Files => "the .tool files it was written from",
            }
        ));
    }
    let unkept: Vec<&str> = locked
        .tools
        .iter()
        .filter(|(n, e)| e.settings.is_none() && current.tools.contains_key(*n))
        .filter(|_| locked.from == Origin::Files)
        .map(|(n, _)| n.as_str())
        .collect();
    if !unkept.is_empty() {
        to_stderr(&format!(
            "note: {name} was written before the lock kept the settings no provider receives (`@strict`/`@lax`, `@formats`, `@scope`, `@on_error`, `@retry`, `@meta`), so their changes are not checked for {}; run `tooldef lock` to pin them\n",
            list(&unkept)
        ));
    }
    let changes = compare(&locked, current);
    print_changes(&changes, args.format);
    if changes.is_empty() {
        return Ok(0);
    }
    if args.format == ChangesFormat::Human {
        for line in tool_report(&locked, current, &changes) {
            to_stderr(&format!("{line}\n"));
        }
        to_stderr(&format!(
            "the tools differ from {name}: review the changes, then run `tooldef lock` to pin them\n"
        ));
    }
    Ok(EXIT_ERRORS)
}

/// One line per tool that differs: `tool `x`: changed (model, compatible)`.
fn tool_report(locked: &Lock, current: &Lock, changes: &[Change]) -> Vec<String> {
    let mut names: BTreeSet<&str> = locked.tools.keys().map(String::as_str).collect();
    names.extend(current.tools.keys().map(String::as_str));
    // The classes of each tool's changes, gathered in one pass over them.
    let mut classes: HashMap<&str, BTreeSet<ChangeKind>> = HashMap::new();
    for c in changes {
        classes.entry(c.tool.as_str()).or_default().insert(c.kind);
    }
    names
        .into_iter()
        .filter_map(|name| {
            let status = match (locked.tools.get(name), current.tools.get(name)) {
                (Some(_), None) => "removed",
                (None, Some(_)) => "added",
                (Some(a), Some(b)) if *a != b.as_kept_by(a) => "changed",
                _ => return None,
            };
            let kinds: Vec<&str> = classes
                .get(name)
                .into_iter()
                .flatten()
                .map(|k| k.as_str())
                .collect();
            Some(format!("tool `{name}`: {status} ({})", kinds.join(", ")))
        })
        .collect()
}

/// Every change from the locked tools to the current ones, tool by tool in name order.
fn compare(locked: &Lock, current: &Lock) -> Vec<Change> {
    let mut names: BTreeSet<&String> = locked.tools.keys().collect();
    names.extend(current.tools.keys());
    let mut changes = Vec::new();
    for name in names {
        match (locked.tools.get(name), current.tools.get(name)) {
            (Some(_), None) => changes.push(whole(
                name,
                ChangeKind::Breaking,
                "tool removed since the lock: calls to it fail",
            )),
            (None, Some(_)) => changes.push(whole(
                name,
                ChangeKind::Compatible,
                "tool added since the lock",
            )),
            (Some(a), Some(b)) if *a != b.as_kept_by(a) => {
                changes.extend(classify(name, a, &b.as_kept_by(a)));
            }
            _ => {}
        }
    }
    changes
}

fn whole(tool: &str, kind: ChangeKind, message: &str) -> Change {
    Change {
        tool: tool.to_string(),
        path: String::new(),
        kind,
        message: message.to_string(),
    }
}

/// How a tool changed: its two definitions imported and compared. What the definitions do not
/// show (a target's rendering alone) is still a change of what the model reads.
fn classify(name: &str, old: &Entry, new: &Entry) -> Vec<Change> {
    let mut changes = poisoned(name, old, new);
    let explained = !changes.is_empty();
    changes.extend(compared(name, old, new, explained));
    changes
}

/// A `safety` change when the new definition holds an invisible or control character that the
/// old one did not hold there: the import behind the comparison removes such characters, so
/// that the two would otherwise compare equal, or differ only in rendering.
fn poisoned(name: &str, old: &Entry, new: &Entry) -> Vec<Change> {
    let Some((at, hidden)) = tooldef::hidden::find_in_value(&new.definition) else {
        return Vec::new();
    };
    if tooldef::hidden::find_in_value(&old.definition)
        .is_some_and(|(was, h)| was == at && h.char == hidden.char)
    {
        return Vec::new();
    }
    vec![whole(
        name,
        ChangeKind::Safety,
        &format!(
            "the definition now holds the invisible character {} ({}) at `{}`: text a model reads \
             but a reviewer does not see, a way to hide instructions (tool poisoning)",
            hidden.code_point(),
            hidden.class.describe(),
            if at.is_empty() { "/" } else { &at }
        ),
    )]
}

/// How the two definitions differ, imported and compared; unless `explained`, a change the
/// comparison does not see is named as one of the JSON a target receives.
fn compared(name: &str, old: &Entry, new: &Entry, explained: bool) -> Vec<Change> {
    let (a, b) = match (model_of(old), model_of(new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            return vec![whole(
                name,
                ChangeKind::Breaking,
                &format!(
                "the definitions cannot be compared, so the change is reported as breaking: {e}"
            ),
            )]
        }
    };
    let mut changes = tooldef::diff(&a, &b);
    for c in &mut changes {
        c.tool = name.to_string();
    }
    if changes.is_empty() && !explained {
        let targets: Vec<&str> = old
            .sha256
            .keys()
            .chain(new.sha256.keys())
            .filter(|t| old.sha256.get(*t) != new.sha256.get(*t))
            .map(String::as_str)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        changes.push(whole(
            name,
            ChangeKind::Model,
            &format!(
                "the JSON sent to {} changed, though the definitions compare equal (an order or a target's rendering)",
                targets.join(", ")
            ),
        ));
    }
    changes
}

/// The model of one locked tool: its MCP definition imported as `import --from mcp` would,
/// objects kept as they are, with `@requires_approval` and the settings from the lock.
fn model_of(entry: &Entry) -> Result<Module, String> {
    let options = tooldef::import::Options {
        keep_open: true,
        ..tooldef::import::Options::default()
    };
    let doc = json!({ "tools": [entry.definition] });
    let mut module = tooldef::import::import(&doc, Dialect::Mcp, &options)
        .map_err(|e| e.to_string())?
        .module;
    if let (Some(required), Some(tool)) = (entry.requires_approval, module.tools.first_mut()) {
        tool.requires_approval = required;
    }
    if let (Some(settings), Some(tool)) = (&entry.settings, module.tools.first_mut()) {
        apply_settings(settings, tool, "settings")?;
    }
    Ok(module)
}

/// `a`, `b` and `c`.
fn list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// The settings of `tool` that no provider receives but its validator or a runtime reads, as
/// the lock keeps them: only those the source states, keys sorted. `mode`: `"strict"` or
/// `"lax"`; `formats`: `"annotate"` (asserting is the default); `scope`: the text; `on_error`:
/// `"raise"` or `"suppress"`; `retry`: `{"base", "times", "wait"}` (and `"on"`, the error
/// kinds, when the policy names them), `wait` being `"linear"`, `"exponential"` or a number of
/// seconds, or a list of them when the tool has several `@retry`; `on_invalid`: `"reply"` or
/// `"raise"`; `cache`: `{"ttl"}` in seconds; `meta`: the `@meta` object, in its order.
fn settings_json(tool: &Tool) -> Value {
    let mut m = Map::new();
    if tool.formats == Formats::Annotate {
        m.insert("formats".into(), json!("annotate"));
    }
    if !tool.meta.is_empty() {
        let meta: Map<String, Value> = tool.meta.clone().into_iter().collect();
        m.insert("meta".into(), Value::Object(meta));
    }
    if let Some(mode) = tool.mode {
        let mode = match mode {
            Mode::Strict => "strict",
            Mode::Lax => "lax",
        };
        m.insert("mode".into(), json!(mode));
    }
    if let Some(on_error) = tool.on_error {
        let on_error = match on_error {
            OnError::Raise => "raise",
            OnError::Suppress => "suppress",
        };
        m.insert("on_error".into(), json!(on_error));
    }
    let seconds = |x: f64| Number::from_f64(x).map_or(Value::Null, Value::Number);
    let retries: Vec<Value> = tool
        .retry
        .iter()
        .map(|r| {
            let wait = match r.wait {
                Wait::Fixed(x) => seconds(x),
                Wait::Linear => json!("linear"),
                Wait::Exponential => json!("exponential"),
            };
            let mut retry = json!({"base": seconds(r.base), "times": r.times, "wait": wait});
            if !r.on.is_empty() {
                retry["on"] = json!(r.on);
            }
            retry
        })
        .collect();
    match <[Value; 1]>::try_from(retries) {
        Ok([one]) => {
            m.insert("retry".into(), one);
        }
        Err(several) if !several.is_empty() => {
            m.insert("retry".into(), Value::Array(several));
        }
        Err(_) => {}
    }
    if let Some(on_invalid) = tool.on_invalid {
        let on_invalid = match on_invalid {
            OnInvalid::Reply => "reply",
            OnInvalid::Raise => "raise",
        };
        m.insert("on_invalid".into(), json!(on_invalid));
    }
    if let Some(cache) = tool.cache {
        m.insert(
            "cache".into(),
            json!({"ttl": seconds(cache.ttl.as_secs_f64())}),
        );
    }
    if let Some(scope) = &tool.scope {
        m.insert("scope".into(), json!(scope));
    }
    Value::Object(m)
}

/// Puts the settings kept by [`settings_json`] on `tool`; a malformed one is an error at its
/// pointer below `pointer`.
fn apply_settings(value: &Value, tool: &mut Tool, pointer: &str) -> Result<(), String> {
    let at = |key: &str, what: &str| format!("at {pointer}/{key}: {what}");
    let m = value
        .as_object()
        .ok_or_else(|| format!("at {pointer}: not an object"))?;
    let word = |key: &str, words: &[&str]| -> Result<Option<usize>, String> {
        let Some(v) = m.get(key) else { return Ok(None) };
        let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
        v.as_str()
            .and_then(|s| words.iter().position(|w| *w == s))
            .map(Some)
            .ok_or_else(|| at(key, &format!("must be {}", quoted.join(" or "))))
    };
    if let Some(key) = m.keys().find(|k| {
        ![
            "cache",
            "formats",
            "meta",
            "mode",
            "on_error",
            "on_invalid",
            "retry",
            "scope",
        ]
        .contains(&k.as_str())
    }) {
        return Err(at(key, "not a setting the lock keeps"));
    }
    tool.formats = match word("formats", &["annotate", "assert"])? {
        Some(0) => Formats::Annotate,
        _ => Formats::Assert,
    };
    tool.mode = word("mode", &["strict", "lax"])?.map(|i| [Mode::Strict, Mode::Lax][i]);
    tool.on_error =
        word("on_error", &["raise", "suppress"])?.map(|i| [OnError::Raise, OnError::Suppress][i]);
    tool.scope = match m.get("scope") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(at("scope", "not a string")),
    };
    tool.meta = match m.get("meta") {
        None => Default::default(),
        Some(Value::Object(meta)) => meta.clone().into_iter().collect(),
        Some(_) => return Err(at("meta", "not an object")),
    };
    tool.on_invalid =
        word("on_invalid", &["reply", "raise"])?.map(|i| [OnInvalid::Reply, OnInvalid::Raise][i]);
    tool.cache = match m.get("cache") {
        None => None,
        Some(c) => {
            let ttl = c
                .get("ttl")
                .and_then(Value::as_f64)
                .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
                .ok_or_else(|| at("cache/ttl", "missing, or not a number of seconds"))?;
            Some(Cache { ttl })
        }
    };
    tool.retry = match m.get("retry") {
        None => Vec::new(),
        Some(Value::Array(several)) => several
            .iter()
            .enumerate()
            .map(|(i, r)| read_retry(r, &format!("{pointer}/retry/{i}")))
            .collect::<Result<_, _>>()?,
        Some(r) => vec![read_retry(r, &format!("{pointer}/retry"))?],
    };
    Ok(())
}

/// One `@retry` as [`settings_json`] keeps it; a malformed one is an error at its pointer.
fn read_retry(r: &Value, pointer: &str) -> Result<Retry, String> {
    let at = |key: &str, what: &str| format!("at {pointer}/{key}: {what}");
    let number = |key: &str| r.get(key).and_then(Value::as_f64);
    let times = r
        .get("times")
        .and_then(Value::as_u64)
        .and_then(|t| u32::try_from(t).ok())
        .ok_or_else(|| at("times", "missing, or not a count"))?;
    let base = number("base").ok_or_else(|| at("base", "missing, or not a number"))?;
    let wait = match r.get("wait") {
        Some(Value::String(w)) if w == "linear" => Wait::Linear,
        Some(Value::String(w)) if w == "exponential" => Wait::Exponential,
        Some(Value::Number(n)) => Wait::Fixed(n.as_f64().unwrap_or_default()),
        _ => {
            return Err(at(
                "wait",
                "must be \"linear\", \"exponential\" or a number of seconds",
            ))
        }
    };
    let on = match r.get("on") {
        None => Vec::new(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .map(|k| k.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| at("on", "not a list of error kinds"))?,
        Some(_) => return Err(at("on", "not a list of error kinds")),
    };
    Ok(Retry {
        times,
        on,
        wait,
        base,
    })
}

/// SHA-256 of a value's compact JSON, in lowercase hex.
fn sha256(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    let mut hex = String::with_capacity(64);
    for byte in Sha256::digest(text.as_bytes()) {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// The lock of a toolset: every target's JSON of each tool hashed, and its MCP definition kept.
fn files_lock(toolset: &Toolset) -> Result<Lock, String> {
    let options = Options { warnings: false };
    let mut tools = BTreeMap::new();
    for (module, tool) in toolset.tools() {
        let mut sha = BTreeMap::new();
        let mut definition = None;
        for &target in Target::ALL {
            // A target that cannot carry the tool has no hash; one that starts to is a change.
            let Ok(emitted) = emit::tool(module, tool, target, &options) else {
                continue;
            };
            sha.insert(target.as_str().to_string(), sha256(&emitted.json));
            if target == Target::Mcp {
                definition = Some(emitted.json);
            }
        }
        let definition = definition.ok_or_else(|| {
            format!(
                "tool `{}` cannot be locked: the lock keeps its MCP definition, and target mcp refuses it (see `tooldef compile --target mcp`)",
                tool.name
            )
        })?;
        tools.insert(
            tool.name.clone(),
            Entry {
                definition,
                requires_approval: Some(tool.requires_approval),
                settings: Some(settings_json(tool)),
                sha256: sha,
            },
        );
    }
    Ok(Lock {
        from: Origin::Files,
        tools,
    })
}

/// The lock of a server's tools: each tool's JSON as listed, hashed and kept.
fn server_lock(remote: &Remote, limits: &InputLimits) -> Result<Lock, String> {
    let listed = crate::mcp_client_command::list_tools(remote, limits)?;
    let mut tools = BTreeMap::new();
    for (i, tool) in listed.into_iter().enumerate() {
        let name = tool
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{}: at /tools/{i}: the tool has no name", remote.name()))?
            .to_string();
        if let Some(warning) = crate::mcp_client_command::poisoning(&remote.name(), &tool) {
            crate::to_stderr(&format!("{warning}; it is pinned as listed\n"));
        }
        let sha = BTreeMap::from([(Target::Mcp.as_str().to_string(), sha256(&tool))]);
        let entry = Entry {
            definition: tool,
            requires_approval: None,
            settings: None,
            sha256: sha,
        };
        if tools.insert(name.clone(), entry).is_some() {
            return Err(format!("{}: lists tool `{name}` twice", remote.name()));
        }
    }
    Ok(Lock {
        from: Origin::Server,
        tools,
    })
}

/// The lock as JSON: every object of its own with its keys sorted; definitions as they are.
fn to_json(lock: &Lock) -> Value {
    let tools: Map<String, Value> = lock
        .tools
        .iter()
        .map(|(name, e)| {
            let mut entry = Map::new();
            entry.insert("definition".into(), e.definition.clone());
            if let Some(r) = e.requires_approval {
                entry.insert("requires_approval".into(), Value::Bool(r));
            }
            if let Some(settings) = &e.settings {
                entry.insert("settings".into(), settings.clone());
            }
            let sha: Map<String, Value> = e
                .sha256
                .iter()
                .map(|(t, h)| (t.clone(), Value::String(h.clone())))
                .collect();
            entry.insert("sha256".into(), Value::Object(sha));
            (name.clone(), Value::Object(entry))
        })
        .collect();
    json!({
        "from": lock.from.as_str(),
        "tools": tools,
        "version": VERSION,
    })
}

/// Reads a lock; a malformed one is an error at a JSON pointer.
fn from_json(value: &Value) -> Result<Lock, String> {
    let at = |pointer: &str, what: &str| format!("at {pointer}: {what}");
    let root = value
        .as_object()
        .ok_or_else(|| at("/", "not a JSON object"))?;
    match root.get("version").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) => {
            return Err(at(
                "/version",
                &format!("version {v} is not one this tooldef reads (it reads {VERSION})"),
            ))
        }
        None => return Err(at("/version", "missing, or not a number")),
    }
    let from = match root.get("from").and_then(Value::as_str) {
        Some("files") => Origin::Files,
        Some("server") => Origin::Server,
        _ => return Err(at("/from", "must be \"files\" or \"server\"")),
    };
    let listed = root
        .get("tools")
        .and_then(Value::as_object)
        .ok_or_else(|| at("/tools", "missing, or not an object"))?;
    let mut tools = BTreeMap::new();
    for (name, entry) in listed {
        let pointer = format!("/tools/{}", tooldef::validate::error::escape_pointer(name));
        tools.insert(name.clone(), entry_from_json(entry, &pointer)?);
    }
    Ok(Lock { from, tools })
}

fn entry_from_json(entry: &Value, pointer: &str) -> Result<Entry, String> {
    let at = |key: &str, what: &str| format!("at {pointer}/{key}: {what}");
    let definition = entry
        .get("definition")
        .filter(|d| d.is_object())
        .ok_or_else(|| at("definition", "missing, or not an object"))?
        .clone();
    let requires_approval = match entry.get("requires_approval") {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err(at("requires_approval", "not a boolean")),
    };
    // Checked here, so that a malformed setting is an error of the lock, at its pointer.
    let settings = entry.get("settings").cloned();
    if let Some(s) = &settings {
        let params = ObjectTy {
            fields: Vec::new(),
            additional: Additional::Closed,
            rules: Default::default(),
        };
        let mut probe = Tool::new("t", "", params);
        apply_settings(s, &mut probe, &format!("{pointer}/settings"))?;
    }
    let hashes = entry
        .get("sha256")
        .and_then(Value::as_object)
        .ok_or_else(|| at("sha256", "missing, or not an object"))?;
    let mut sha256 = BTreeMap::new();
    for (target, hash) in hashes {
        let hash = hash
            .as_str()
            .ok_or_else(|| at(&format!("sha256/{target}"), "not a string"))?;
        sha256.insert(target.clone(), hash.to_string());
    }
    Ok(Entry {
        definition,
        requires_approval,
        settings,
        sha256,
    })
}
