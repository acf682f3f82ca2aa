//! `tooldef.ToolValidator`: one tool's validator with its mode and target settled, for callers
//! that validate many calls of the same tool.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use tooldef::emit::Target;
use tooldef::validate::{Mode, Validator};

use crate::convert::type_name;
use crate::results::{Batch, ValidationResult};
use crate::toolset::{many, read_args, run, text_of, Args};

/// What `Toolset.validator(tool, mode=, target=)` returns. Immutable, and owns its validator
/// (a copy of the toolset's), so it outlives the toolset and is shared by threads freely.
#[pyclass(frozen, module = "tooldef._tooldef", name = "ToolValidator")]
pub(crate) struct ToolValidator {
    pub(crate) validator: Validator,
    /// The mode given, or the tool's own.
    pub(crate) mode: Mode,
    pub(crate) target: Option<Target>,
}

#[pymethods]
impl ToolValidator {
    /// Whether the arguments (the model's text as `str` or `bytes`, or a parsed `dict`) are
    /// valid, without building messages.
    pub(crate) fn is_valid(&self, py: Python<'_>, arguments: &Bound<'_, PyAny>) -> PyResult<bool> {
        let (v, mode) = (&self.validator, self.mode);
        // A `str` is the usual case: read in place, without the general dispatch on type.
        if let Ok(s) = arguments.cast::<PyString>() {
            let text = s.to_str()?;
            return Ok(run(py, text.len(), || v.is_valid(text, mode)));
        }
        Ok(match read_args(arguments, "arguments")? {
            Args::Text(text) => run(py, text.len(), || v.is_valid(text, mode)),
            Args::Value(value) => v.is_valid(&value, mode),
        })
    }

    /// Validates the arguments; the result has `.valid`, `.arguments`, `.errors`, `.message`,
    /// `.coercions` and `.repairs`, as `Toolset.validate` gives.
    pub(crate) fn validate(
        &self,
        py: Python<'_>,
        arguments: &Bound<'_, PyAny>,
    ) -> PyResult<ValidationResult> {
        let (v, mode) = (&self.validator, self.mode);
        let result = match read_args(arguments, "arguments")? {
            Args::Text(text) => run(py, text.len(), || v.validate_str(text, mode)),
            Args::Value(value) => v.validate_value(&value, mode).map(|ok| ok.into_owned()),
        };
        Ok(ValidationResult { result })
    }

    /// Validates many argument texts on Rust threads with the GIL released, as
    /// `Toolset.validate_many` does.
    #[pyo3(signature = (texts, *, threads = None))]
    fn validate_many(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<Batch> {
        let items = texts_of(texts)?;
        let strs = strs_of(&items)?;
        let threads = threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
            .max(1);
        let (v, mode) = (&self.validator, self.mode);
        let verdicts = py.detach(|| many(v, &strs, mode, threads));
        Ok(Batch { verdicts })
    }

    /// The tool's name.
    #[getter]
    fn tool(&self) -> &str {
        self.validator.tool()
    }

    /// The mode calls are validated in: the one given, or the tool's own.
    #[getter]
    fn mode(&self) -> &'static str {
        mode_name(self.mode)
    }

    /// The target whose shape calls are read in, or `None` for the source's.
    #[getter]
    fn target(&self) -> Option<&'static str> {
        self.target.map(|t| t.as_str())
    }

    /// The tool's compact signature, as the failure message prints it.
    #[getter]
    fn signature(&self) -> &str {
        self.validator.signature()
    }

    fn __repr__(&self) -> String {
        let target = match self.target {
            Some(t) => format!(", target='{}'", t.as_str()),
            None => String::new(),
        };
        format!(
            "ToolValidator('{}', mode='{}'{target})",
            self.validator.tool(),
            mode_name(self.mode)
        )
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Strict => "strict",
        Mode::Lax => "lax",
    }
}

/// The items of `texts`, an iterable of `str` or `bytes` (a single `str` or `bytes` is refused:
/// it would be read as characters or bytes).
pub(crate) fn texts_of<'py>(texts: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if texts.cast::<PyString>().is_ok() || texts.cast::<PyBytes>().is_ok() {
        return Err(PyTypeError::new_err(
            "texts must be an iterable of str or bytes, not a single str or bytes",
        ));
    }
    texts
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "texts must be an iterable of str or bytes, not {}",
                type_name(texts)
            ))
        })?
        .collect()
}

/// The text of each item, borrowed; an item of another type is a `TypeError` naming its index.
pub(crate) fn strs_of<'a>(items: &'a [Bound<'_, PyAny>]) -> PyResult<Vec<&'a str>> {
    let mut strs: Vec<&str> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match text_of(item, &format!("texts[{i}]"))? {
            Some(t) => strs.push(t),
            None => {
                return Err(PyTypeError::new_err(format!(
                    "texts[{i}] must be str or bytes, not {}",
                    type_name(item)
                )))
            }
        }
    }
    Ok(strs)
}
