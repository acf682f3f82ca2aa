//! `tooldef.Toolset`: the library's `Toolset`, shared between threads, with the arguments
//! converted at the edge.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use serde_json::Value;
use tooldef::emit::{Options, Target};
use tooldef::envelope::Provider;
use tooldef::validate::{Mode, Validator};
use tooldef::{Answer, DispatchOptions, Source, Toolset};

use crate::convert::{to_py, to_value, type_name};
use crate::errors::{compile_error, diagnostics_list, load_error, validator_error};
use crate::results::{Batch, Call, Dispatched, ValidationResult};
use crate::run;
use crate::validator::{strs_of, texts_of, ToolValidator};
use tooldef::runtime::{RunOptions, Runtime};

/// What `__reduce__` returns: the constructor and its arguments (the `(name, text)` sources).
type Reduced<'py> = (Bound<'py, PyAny>, (Vec<(String, String)>,));

/// Argument text longer than this is validated with the GIL released.
const DETACH_BYTES: usize = 64 * 1024;

/// The fewest texts a thread of `validate_many` takes.
const MIN_CHUNK: usize = 256;

/// The compiled tools of one or more `.tool` sources, keyed by name. Immutable: one toolset can
/// be used from many threads at once. It pickles by its sources.
#[pyclass(frozen, module = "tooldef._tooldef", name = "Toolset")]
pub(crate) struct PyToolset {
    pub(crate) inner: Arc<Toolset>,
    /// The Python handlers registered, by tool (not pickled: a process registers its own).
    handlers: Mutex<Vec<(String, Py<PyAny>)>>,
    /// Each tool's `ToolValidator` in its own mode and the source's reading, by name, made
    /// when `is_valid` or `validate` first asks for the tool with neither `mode` nor `target`:
    /// the call after that is a lookup in a `dict` whose `str` keys hash once.
    validators: Py<PyDict>,
}

/// The arguments of a call as Python gave them.
pub(crate) enum Args<'a> {
    Text(&'a str),
    Value(Value),
}

/// `str` and `bytes` are text for the Rust reader; a `dict` is a parsed value.
pub(crate) fn read_args<'a>(obj: &'a Bound<'_, PyAny>, param: &str) -> PyResult<Args<'a>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Args::Text(s.to_str()?));
    }
    if obj.cast::<PyBytes>().is_ok() || obj.cast::<PyDict>().is_ok() {
        return match text_of(obj, param)? {
            Some(text) => Ok(Args::Text(text)),
            None => Ok(Args::Value(to_value(obj, param)?)),
        };
    }
    Err(PyTypeError::new_err(format!(
        "{param} must be str, bytes or dict, not {}",
        type_name(obj)
    )))
}

/// The text of a `str` or `bytes` (which must be UTF-8); `None` for other objects.
pub(crate) fn text_of<'a>(obj: &'a Bound<'_, PyAny>, param: &str) -> PyResult<Option<&'a str>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return s.to_str().map(Some);
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return std::str::from_utf8(b.as_bytes())
            .map(Some)
            .map_err(|e| PyValueError::new_err(format!("{param}: not UTF-8 text: {e}")));
    }
    Ok(None)
}

/// A `str` argument; any other type is a `TypeError` that names the parameter.
fn str_arg<'a>(obj: &'a Bound<'_, PyAny>, param: &str) -> PyResult<&'a str> {
    match obj.cast::<PyString>() {
        Ok(s) => s.to_str(),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{param} must be str, not {}",
            type_name(obj)
        ))),
    }
}

/// An optional `str` argument (`None` is absent).
fn opt_str_arg<'a>(obj: Option<&'a Bound<'_, PyAny>>, param: &str) -> PyResult<Option<&'a str>> {
    match obj {
        Some(o) if !o.is_none() => str_arg(o, param).map(Some),
        _ => Ok(None),
    }
}

fn parse_mode(mode: Option<&str>) -> PyResult<Option<Mode>> {
    match mode {
        None => Ok(None),
        Some("strict") => Ok(Some(Mode::Strict)),
        Some("lax") => Ok(Some(Mode::Lax)),
        Some(other) => Err(PyValueError::new_err(format!(
            "mode must be \"strict\" or \"lax\", not {other:?}"
        ))),
    }
}

fn parse_target(target: &str) -> PyResult<Target> {
    Target::from_name(target).ok_or_else(|| {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.as_str()).collect();
        PyValueError::new_err(format!(
            "target must be one of {}, not {target:?}",
            names.join(", ")
        ))
    })
}

fn parse_provider(provider: &str) -> PyResult<Provider> {
    Provider::from_name(provider).ok_or_else(|| {
        let names: Vec<&str> = Provider::ALL.iter().map(|p| p.as_str()).collect();
        PyValueError::new_err(format!(
            "provider must be one of {}, not {provider:?}",
            names.join(", ")
        ))
    })
}

/// The provider whose response this is, by the shape of its top level.
fn detect(response: &Value) -> Option<Provider> {
    let o = response.as_object()?;
    let is = |key: &str, value: &str| o.get(key).and_then(Value::as_str) == Some(value);
    if o.contains_key("choices") {
        Some(Provider::OpenAi)
    } else if o.contains_key("candidates") {
        Some(Provider::Gemini)
    } else if is("object", "response") || o.get("output").is_some_and(Value::is_array) {
        Some(Provider::OpenAiResponses)
    } else if is("method", "tools/call") || (o.contains_key("name") && !o.contains_key("content")) {
        Some(Provider::Mcp)
    } else if o.get("content").is_some_and(Value::is_array)
        && (is("type", "message") || is("role", "assistant"))
    {
        Some(Provider::Anthropic)
    } else {
        None
    }
}

/// An MCP `CallToolRequest`'s params (or the request without its JSON-RPC frame) as the
/// `tools/call` request the library reads; id 0 where the request has none.
fn mcp_request(response: Value) -> Value {
    match response {
        Value::Object(mut o) if o.contains_key("method") => {
            o.entry("jsonrpc").or_insert_with(|| "2.0".into());
            o.entry("id").or_insert_with(|| 0.into());
            Value::Object(o)
        }
        params => {
            serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": params})
        }
    }
}

/// The `.tool` files of `paths`: a folder gives every `*.tool` file in it, recursively, in
/// sorted order (hidden folders, `target` and `node_modules` skipped), as the command line
/// reads folders.
fn expand(paths: &[PathBuf]) -> PyResult<Vec<PathBuf>> {
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let kind = entry.file_type()?;
            if kind.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    collect(&path, out)?;
                }
            } else if kind.is_file() && name.ends_with(".tool") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            collect(p, &mut out).map_err(|e| {
                pyo3::exceptions::PyOSError::new_err(format!("cannot read {}: {e}", p.display()))
            })?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

impl PyToolset {
    fn wrap(py: Python<'_>, toolset: Toolset) -> PyToolset {
        PyToolset {
            inner: Arc::new(toolset),
            handlers: Mutex::new(Vec::new()),
            validators: PyDict::new(py).unbind(),
        }
    }

    /// The cached validator of `tool` (see `validators`), made on first use; `None` when `tool`
    /// is not exactly a `str` (a subclass could hash or compare as another name) or names no
    /// tool, for the general path to answer.
    fn cached<'py>(
        &self,
        py: Python<'py>,
        tool: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, ToolValidator>>> {
        let Ok(name) = tool.cast_exact::<PyString>() else {
            return Ok(None);
        };
        let cache = self.validators.bind(py);
        if let Some(found) = cache.get_item(name)? {
            if let Ok(v) = found.cast_into::<ToolValidator>() {
                return Ok(Some(v));
            }
        }
        let Ok(v) = self.inner.validator(name.to_str()?) else {
            return Ok(None);
        };
        let made = Bound::new(
            py,
            ToolValidator {
                mode: v.default_mode(),
                validator: v.clone(),
                target: None,
            },
        )?;
        cache.set_item(name, &made)?;
        Ok(Some(made))
    }

    /// A runtime over the toolset with the handlers registered and the approver given.
    fn runtime(&self, py: Python<'_>, approver: Option<&Bound<'_, PyAny>>) -> PyResult<Runtime> {
        let mut runtime = Runtime::new(Arc::clone(&self.inner));
        let handlers = self.handlers.lock().unwrap_or_else(|e| e.into_inner());
        for (name, function) in handlers.iter() {
            runtime
                .register(name, run::handler(function.clone_ref(py)))
                .map_err(|e| validator_error(py, e))?;
        }
        if let Some(a) = approver.filter(|a| !a.is_none()) {
            runtime = runtime.with_approver(run::approver(a.clone().unbind()));
        }
        Ok(runtime)
    }

    fn run_options(
        mode: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
    ) -> PyResult<RunOptions> {
        Ok(RunOptions {
            mode: parse_mode(opt_str_arg(mode, "mode")?)?,
            target: opt_str_arg(target, "target")?
                .map(parse_target)
                .transpose()?,
            timeout: run::duration(timeout)?,
            ..RunOptions::default()
        })
    }

    fn validator(&self, py: Python<'_>, tool: &str, target: Option<&str>) -> PyResult<&Validator> {
        match target {
            None => self.inner.validator(tool),
            Some(t) => self.inner.validator_for(tool, parse_target(t)?),
        }
        .map_err(|e| validator_error(py, e))
    }

    fn from_sources(py: Python<'_>, sources: Vec<Source>) -> PyResult<PyToolset> {
        py.detach(|| Toolset::new(sources))
            .map(|t| PyToolset::wrap(py, t))
            .map_err(|e| compile_error(py, &e))
    }
}

/// Validates with the GIL released when the text is long.
pub(crate) fn run<T: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> T + Send) -> T {
    if len > DETACH_BYTES {
        py.detach(f)
    } else {
        f()
    }
}

#[pymethods]
impl PyToolset {
    /// The toolset of the files and folders at `paths` (a folder: every `*.tool` in it,
    /// recursively); imports are read relative to each file.
    #[staticmethod]
    #[pyo3(signature = (*paths))]
    fn from_files(py: Python<'_>, paths: &Bound<'_, PyTuple>) -> PyResult<PyToolset> {
        let mut given = Vec::with_capacity(paths.len());
        for p in paths.iter() {
            let path: PathBuf = p.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "paths: expected str or os.PathLike, not {}",
                    type_name(&p)
                ))
            })?;
            given.push(path);
        }
        if given.is_empty() {
            return Err(PyValueError::new_err(
                "paths: give at least one file or folder",
            ));
        }
        let files = expand(&given)?;
        py.detach(|| Toolset::from_files(&files))
            .map(|t| PyToolset::wrap(py, t))
            .map_err(|e| load_error(py, e))
    }

    /// The toolset of one source; `name` is the file its diagnostics name (and the folder its
    /// imports are read from).
    #[staticmethod]
    #[pyo3(signature = (text, name = None))]
    fn from_source(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        name: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyToolset> {
        let text = str_arg(text, "text")?;
        let name = opt_str_arg(name, "name")?.unwrap_or("tools.tool");
        PyToolset::from_sources(py, vec![Source::new(name, text)])
    }

    /// The toolset of several `(name, text)` sources.
    #[staticmethod]
    fn from_sources_list(py: Python<'_>, sources: Vec<(String, String)>) -> PyResult<PyToolset> {
        let sources = sources
            .into_iter()
            .map(|(name, text)| Source::new(name, text))
            .collect();
        PyToolset::from_sources(py, sources)
    }

    /// The sources as `(name, text)` pairs, in the order given.
    #[getter]
    fn sources(&self) -> Vec<(String, String)> {
        self.inner
            .sources()
            .iter()
            .map(|s| (s.name().to_string(), s.text().to_string()))
            .collect()
    }

    /// Pickled by its sources: `tooldef._rebuild` compiles them, once per process for the same
    /// sources.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let build = slf.py().import("tooldef")?.getattr("_rebuild")?;
        Ok((build, (slf.get().sources(),)))
    }

    /// The tool names, in source order.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.inner.names().map(str::to_string).collect()
    }

    /// The warnings of every source, as dicts.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        diagnostics_list(py, self.inner.warnings())
    }

    /// The tool's compact signature, as the failure message prints it.
    fn signature(&self, py: Python<'_>, tool: &Bound<'_, PyAny>) -> PyResult<String> {
        let tool = str_arg(tool, "tool")?;
        Ok(self.validator(py, tool, None)?.signature().to_string())
    }

    /// Every tool in a target's shape, as one document of plain Python objects.
    #[pyo3(signature = (target = None))]
    fn emit<'py>(
        &self,
        py: Python<'py>,
        target: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let target = parse_target(opt_str_arg(target, "target")?.unwrap_or("json-schema"))?;
        let emitted = self
            .inner
            .emit_with(target, &Options { warnings: false })
            .map_err(|e| compile_error(py, &e))?;
        to_py(py, &emitted.json)
    }

    /// Validates a call's arguments: the model's text (`str` or `bytes`) or a parsed `dict`.
    #[pyo3(signature = (tool, arguments, *, mode = None, target = None))]
    fn validate(
        &self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        arguments: &Bound<'_, PyAny>,
        mode: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ValidationResult> {
        if mode.is_none() && target.is_none() {
            if let Some(v) = self.cached(py, tool)? {
                return v.get().validate(py, arguments);
            }
        }
        let tool = str_arg(tool, "tool")?;
        let mode = opt_str_arg(mode, "mode")?;
        let target = opt_str_arg(target, "target")?;
        let mode = parse_mode(mode)?;
        let args = read_args(arguments, "arguments")?;
        let v = self.validator(py, tool, target)?;
        let mode = mode.unwrap_or(v.default_mode());
        let result = match args {
            Args::Text(text) => run(py, text.len(), || v.validate_str(text, mode)),
            Args::Value(value) => v.validate_value(&value, mode).map(|ok| ok.into_owned()),
        };
        Ok(ValidationResult { result })
    }

    /// Whether a call's arguments are valid, without building messages.
    #[pyo3(signature = (tool, arguments, *, mode = None, target = None))]
    fn is_valid(
        &self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        arguments: &Bound<'_, PyAny>,
        mode: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        if mode.is_none() && target.is_none() {
            if let Some(v) = self.cached(py, tool)? {
                return v.get().is_valid(py, arguments);
            }
        }
        let tool = str_arg(tool, "tool")?;
        let mode = opt_str_arg(mode, "mode")?;
        let target = opt_str_arg(target, "target")?;
        let mode = parse_mode(mode)?;
        let args = read_args(arguments, "arguments")?;
        let v = self.validator(py, tool, target)?;
        let mode = mode.unwrap_or(v.default_mode());
        Ok(match args {
            Args::Text(text) => run(py, text.len(), || v.is_valid(text, mode)),
            Args::Value(value) => v.is_valid(&value, mode),
        })
    }

    /// One tool's validator, with the mode and target settled once: its `is_valid` and
    /// `validate` take only the arguments, so a caller validating many calls of one tool pays
    /// for neither the name lookup nor the options on each call.
    #[pyo3(name = "validator", signature = (tool, *, mode = None, target = None))]
    fn validator_of(
        &self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        mode: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ToolValidator> {
        let name = str_arg(tool, "tool")?;
        let mode = parse_mode(opt_str_arg(mode, "mode")?)?;
        let target = opt_str_arg(target, "target")?
            .map(parse_target)
            .transpose()?;
        let v = match target {
            None => self.inner.validator(name),
            Some(t) => self.inner.validator_for(name, t),
        }
        .map_err(|e| validator_error(py, e))?;
        Ok(ToolValidator {
            mode: mode.unwrap_or(v.default_mode()),
            validator: v.clone(),
            target,
        })
    }

    /// Validates many argument texts on Rust threads with the GIL released.
    #[pyo3(signature = (tool, texts, *, mode = None, target = None, threads = None))]
    fn validate_many(
        &self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        texts: &Bound<'_, PyAny>,
        mode: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
        threads: Option<usize>,
    ) -> PyResult<Batch> {
        let tool = str_arg(tool, "tool")?;
        let mode = opt_str_arg(mode, "mode")?;
        let target = opt_str_arg(target, "target")?;
        let mode = parse_mode(mode)?;
        let items = texts_of(texts)?;
        let strs = strs_of(&items)?;
        let v = self.validator(py, tool, target)?;
        let mode = mode.unwrap_or(v.default_mode());
        let threads = threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
            .max(1);
        let verdicts = py.detach(|| many(v, &strs, mode, threads));
        Ok(Batch { verdicts })
    }

    /// Reads the tool calls of a provider's response (an SDK's response object, a `dict`, or
    /// JSON text), validates each, and builds the replies for the invalid and unknown ones.
    #[pyo3(signature = (response, *, provider = None, target = None, mode = None))]
    fn dispatch(
        &self,
        py: Python<'_>,
        response: &Bound<'_, PyAny>,
        provider: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
        mode: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Dispatched> {
        let provider = opt_str_arg(provider, "provider")?;
        let target = opt_str_arg(target, "target")?;
        let mode = opt_str_arg(mode, "mode")?;
        let options = DispatchOptions {
            target: target.map(parse_target).transpose()?,
            mode: parse_mode(mode)?,
        };
        let provider = provider.map(parse_provider).transpose()?;
        if let (Some(text), Some(p)) = (text_of(response, "response")?, provider) {
            // The library reads the text itself (OpenAI's without building what a call does
            // not need).
            if p != Provider::Mcp {
                let out = py
                    .detach(|| self.inner.dispatch_str(p, text, &options))
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                return dispatched(py, p, &out);
            }
        }
        let (provider, value) = response_of(response, provider)?;
        let out = py
            .detach(|| self.inner.dispatch(provider, &value, &options))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        dispatched(py, provider, &out)
    }

    /// The structured-output block of `target` for a named type (or, with `tool=`, a tool's
    /// `-> T`): the value of OpenAI's `response_format` or `text`, Anthropic's
    /// `output_format`, or the fields of Gemini's `generationConfig`.
    #[pyo3(signature = (type_name = None, target = None, *, tool = None))]
    fn response_format<'py>(
        &self,
        py: Python<'py>,
        type_name: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
        tool: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let type_name = opt_str_arg(type_name, "type_name")?;
        let tool = opt_str_arg(tool, "tool")?;
        let answer = answer(type_name, tool)?;
        let target = parse_target(opt_str_arg(target, "target")?.unwrap_or("openai"))?;
        let emitted = self
            .inner
            .response_format(answer, target, &Options { warnings: false })
            .map_err(|e| compile_error(py, &e))?;
        to_py(py, &emitted.json)
    }

    /// Checks a model's structured answer (text or a parsed value) against a named type (or,
    /// with `tool=`, a tool's `-> T`), as `tooldef parse` does.
    #[pyo3(signature = (type_name = None, text = None, *, mode = None, target = None, tool = None))]
    fn parse(
        &self,
        py: Python<'_>,
        type_name: Option<&Bound<'_, PyAny>>,
        text: Option<&Bound<'_, PyAny>>,
        mode: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
        tool: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ValidationResult> {
        let type_name = opt_str_arg(type_name, "type_name")?;
        let tool = opt_str_arg(tool, "tool")?;
        let mode = opt_str_arg(mode, "mode")?;
        let target = opt_str_arg(target, "target")?;
        let answer = answer(type_name, tool)?;
        let mode = parse_mode(mode)?;
        let Some(text) = text else {
            return Err(PyTypeError::new_err("parse() missing the answer: text"));
        };
        let args = read_args(text, "text")?;
        let v = match target {
            Some(t) => self.inner.answer_validator_for(answer, parse_target(t)?),
            None => self.inner.answer_validator(answer),
        }
        .map_err(|e| validator_error(py, e))?;
        let mode = mode.unwrap_or(v.default_mode());
        let result = match args {
            Args::Text(text) => run(py, text.len(), || v.validate_str(text, mode)),
            Args::Value(value) => v.validate_value(&value, mode).map(|ok| ok.into_owned()),
        };
        Ok(ValidationResult { result })
    }

    /// Registers `function` as the handler of `tool`; it gets the normalized arguments as a
    /// dict and returns the result (an `async def` function's coroutine is run to its end).
    fn register_handler(
        &self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        function: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let tool = str_arg(tool, "tool")?;
        if !function.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "function must be callable, not {}",
                type_name(function)
            )));
        }
        if self.inner.tool(tool).is_none() {
            return Err(validator_error(
                py,
                tooldef::validate::CompileError::UnknownTool {
                    name: tool.to_string(),
                    suggestion: self.inner.suggest(tool).map(str::to_string),
                },
            ));
        }
        let mut handlers = self.handlers.lock().unwrap_or_else(|e| e.into_inner());
        handlers.retain(|(name, _)| name != tool);
        handlers.push((tool.to_string(), function.clone().unbind()));
        Ok(())
    }

    /// A decorator that registers the function it decorates as the handler of `tool`.
    fn handler(slf: &Bound<'_, Self>, tool: &Bound<'_, PyAny>) -> PyResult<HandlerDecorator> {
        str_arg(tool, "tool")?;
        Ok(HandlerDecorator {
            toolset: slf.clone().unbind(),
            tool: tool.clone().unbind(),
        })
    }

    /// Runs one call through its handler under the tool's policies (validation, approval,
    /// timeout, retry, on-error, the output check).
    #[pyo3(signature = (tool, arguments, *, approver = None, mode = None, target = None, timeout = None))]
    #[allow(clippy::too_many_arguments)]
    fn call(
        &self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        arguments: &Bound<'_, PyAny>,
        approver: Option<&Bound<'_, PyAny>>,
        mode: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
    ) -> PyResult<run::Reply> {
        let tool = str_arg(tool, "tool")?;
        let options = PyToolset::run_options(mode, target, timeout)?;
        let args = read_args(arguments, "arguments")?;
        let runtime = self.runtime(py, approver)?;
        let args = match &args {
            Args::Text(t) => tooldef::validate::Arguments::Text(t),
            Args::Value(v) => tooldef::validate::Arguments::Value(v),
        };
        run::call(py, &runtime, tool, args, options, |_, _| None)
    }

    /// Runs every call of a provider's response through its handler under the tool's
    /// policies, and returns the replies in the provider's shape with each call's audit.
    #[pyo3(signature = (response, *, approver = None, provider = None, mode = None, target = None, timeout = None))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        py: Python<'_>,
        response: &Bound<'_, PyAny>,
        approver: Option<&Bound<'_, PyAny>>,
        provider: Option<&Bound<'_, PyAny>>,
        mode: Option<&Bound<'_, PyAny>>,
        target: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
    ) -> PyResult<run::RunResult> {
        let provider = opt_str_arg(provider, "provider")?
            .map(parse_provider)
            .transpose()?;
        let options = PyToolset::run_options(mode, target, timeout)?;
        let (provider, value) = response_of(response, provider)?;
        let calls = provider
            .calls(&value)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let runtime = self.runtime(py, approver)?;
        let out = PyList::empty(py);
        let replies = PyList::empty(py);
        let audits = PyList::empty(py);
        for c in &calls {
            let reply = run::call(
                py,
                &runtime,
                &c.name,
                c.arguments.as_arguments(),
                options.clone(),
                |text, is_error| Some(provider.reply(c, text, is_error)),
            )?;
            replies.append(reply.reply.clone_ref(py))?;
            audits.append(reply.audit.clone_ref(py))?;
            out.append(Bound::new(py, reply)?)?;
        }
        Ok(run::RunResult {
            calls: out.unbind(),
            replies: replies.unbind(),
            audits: audits.unbind(),
        })
    }

    /// `run` for `async` code: the calls run on a worker thread (`asyncio.to_thread`), so the
    /// event loop goes on while handlers run.
    #[pyo3(signature = (response, **kwargs))]
    fn run_async<'py>(
        slf: &Bound<'py, Self>,
        response: &Bound<'py, PyAny>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let run = slf.getattr("run")?;
        py.import("asyncio")?
            .getattr("to_thread")?
            .call((run, response), kwargs)
    }

    /// Registers every tool on an MCP Python SDK server (`MCPServer`): the emitted
    /// `inputSchema`, and each call validated and run by this toolset (`tooldef._mcp`).
    #[pyo3(signature = (server, handlers = None))]
    fn register<'py>(
        slf: &Bound<'py, Self>,
        server: &Bound<'py, PyAny>,
        handlers: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        slf.py()
            .import("tooldef._mcp")?
            .getattr("register")?
            .call1((slf, server, handlers))
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, name: &str) -> bool {
        self.inner.tool(name).is_some()
    }

    fn __repr__(&self) -> String {
        let names: Vec<&str> = self.inner.names().collect();
        format!("Toolset({names:?})")
    }
}

/// A response as the provider's JSON: the provider named, or told from the shape.
fn response_of(
    response: &Bound<'_, PyAny>,
    provider: Option<Provider>,
) -> PyResult<(Provider, Value)> {
    let value = match text_of(response, "response")? {
        Some(text) => serde_json::from_str(text)
            .map_err(|e| PyValueError::new_err(format!("response: not valid JSON: {e}")))?,
        None => response_value(response)?,
    };
    let provider = match provider {
        Some(p) => p,
        None => detect(&value).ok_or_else(|| {
            PyValueError::new_err(
                "response: cannot tell which provider's response this is; pass provider=",
            )
        })?,
    };
    let value = if provider == Provider::Mcp {
        mcp_request(value)
    } else {
        value
    };
    Ok((provider, value))
}

/// What `Toolset.handler(tool)` returns: called with a function, registers it and returns it.
#[pyclass(frozen, module = "tooldef._tooldef", name = "HandlerDecorator")]
pub(crate) struct HandlerDecorator {
    toolset: Py<PyToolset>,
    tool: Py<PyAny>,
}

#[pymethods]
impl HandlerDecorator {
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        function: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.toolset
            .get()
            .register_handler(py, self.tool.bind(py), &function)?;
        Ok(function)
    }
}

fn answer<'a>(type_name: Option<&'a str>, tool: Option<&'a str>) -> PyResult<Answer<'a>> {
    match (type_name, tool) {
        (Some(t), None) => Ok(Answer::Type(t)),
        (None, Some(t)) => Ok(Answer::Output(t)),
        _ => Err(PyTypeError::new_err(
            "give exactly one of type_name and tool",
        )),
    }
}

/// An SDK response object (`model_dump(mode="json")`, by alias, without unset `None`s) or a
/// plain `dict`, as JSON.
fn response_value(response: &Bound<'_, PyAny>) -> PyResult<Value> {
    if response.cast::<PyDict>().is_ok() {
        return to_value(response, "response");
    }
    if response.hasattr("model_dump")? {
        let kwargs = PyDict::new(response.py());
        kwargs.set_item("mode", "json")?;
        kwargs.set_item("by_alias", true)?;
        kwargs.set_item("exclude_none", true)?;
        let dumped = response.call_method("model_dump", (), Some(&kwargs))?;
        return to_value(&dumped, "response");
    }
    Err(PyTypeError::new_err(format!(
        "response must be an SDK response object, a dict, str or bytes, not {}",
        type_name(response)
    )))
}

fn dispatched(
    py: Python<'_>,
    provider: Provider,
    out: &tooldef::Dispatched,
) -> PyResult<Dispatched> {
    let calls = PyList::empty(py);
    for report in &out.calls {
        calls.append(Bound::new(py, Call::new(py, report)?)?)?;
    }
    Ok(Dispatched {
        calls: calls.unbind(),
        replies: to_py(py, &Value::Array(out.replies.clone()))?.unbind(),
        provider: provider.as_str(),
        all_valid: out.all_valid(),
    })
}

/// The verdict on each text, on up to `threads` scoped threads.
pub(crate) fn many(
    v: &Validator,
    texts: &[&str],
    mode: Mode,
    threads: usize,
) -> Vec<Option<String>> {
    let one = |text: &str| -> Option<String> {
        if mode == Mode::Strict && v.is_valid(text, mode) {
            return None;
        }
        v.validate_str(text, mode).err().map(|e| e.message())
    };
    let threads = threads.min(texts.len().div_ceil(MIN_CHUNK)).max(1);
    if threads == 1 {
        return texts.iter().map(|t| one(t)).collect();
    }
    let chunk = texts.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = texts
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(|t| one(t)).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// A tool document of another format (a JSON Schema, OpenAI or Anthropic tools, Gemini
/// declarations, an MCP `tools/list` result, BFCL functions) as `.tool` source, as
/// `tooldef import` writes it. `document` is a parsed value or JSON (or JSON Lines) text.
#[pyfunction]
#[pyo3(signature = (document, *, dialect = None, name = None, keep_open = false))]
pub(crate) fn import_tools(
    document: &Bound<'_, PyAny>,
    dialect: Option<&Bound<'_, PyAny>>,
    name: Option<&Bound<'_, PyAny>>,
    keep_open: bool,
) -> PyResult<String> {
    use tooldef::import::{self, Dialect};
    let dialect = opt_str_arg(dialect, "dialect")?.unwrap_or("json-schema");
    let dialect = Dialect::from_name(dialect).ok_or_else(|| {
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.as_str()).collect();
        PyValueError::new_err(format!(
            "dialect must be one of {}, not {dialect:?}",
            names.join(", ")
        ))
    })?;
    let doc = match text_of(document, "document")? {
        Some(text) => {
            import::parse_input(text).map_err(|e| PyValueError::new_err(e.to_string()))?
        }
        None => to_value(document, "document")?,
    };
    let options = import::Options {
        name: opt_str_arg(name, "name")?.map(str::to_string),
        keep_open,
        // The source alone cannot say which tools were left out: all or nothing.
        strict: true,
        ..import::Options::default()
    };
    import::import(&doc, dialect, &options)
        .map(|imported| imported.source)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
