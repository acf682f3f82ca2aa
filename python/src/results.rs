//! What validation and dispatch hand back to Python: immutable objects that keep the library's
//! result and build Python values only for the attributes read.

use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::Value;
use tooldef::validate::{Invalid, Validated};
use tooldef::{CallReport, Verdict};

use crate::convert::to_py;

/// The verdict on one set of arguments (or one structured answer).
#[pyclass(frozen, module = "tooldef._tooldef", name = "ValidationResult")]
pub(crate) struct ValidationResult {
    pub(crate) result: Result<Validated<'static>, Invalid>,
}

fn serialized<'py, T: serde::Serialize>(
    py: Python<'py>,
    items: &[T],
) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(items).unwrap_or(Value::Array(Vec::new()));
    to_py(py, &value)
}

#[pymethods]
impl ValidationResult {
    /// Whether the arguments are valid.
    #[getter]
    fn valid(&self) -> bool {
        self.result.is_ok()
    }

    /// The normalized arguments (defaults filled in, coercions applied), or `None`.
    #[getter]
    fn arguments<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.result {
            Ok(v) => to_py(py, &v.arguments),
            Err(_) => Ok(py.None().into_bound(py)),
        }
    }

    /// Every problem as `{"path", "code", "message"}`; empty when valid.
    #[getter]
    fn errors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.result {
            Ok(_) => Ok(PyList::empty(py).into_any()),
            Err(e) => to_py(py, &e.errors_json()),
        }
    }

    /// The message for the model (every problem and the tool's signature), or `None`.
    #[getter]
    fn message(&self) -> Option<String> {
        self.result.as_ref().err().map(Invalid::message)
    }

    /// Every coercion lax mode applied: `{"path", "rule", "from", "to"}`.
    #[getter]
    fn coercions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.result {
            Ok(v) => serialized(py, &v.coercions),
            Err(e) => serialized(py, &e.coercions),
        }
    }

    /// Every repair lax mode's lenient reading made to text that was not JSON:
    /// `{"kind", "line", "column"}`.
    #[getter]
    fn repairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.result {
            Ok(v) => serialized(py, &v.repairs),
            Err(_) => Ok(PyList::empty(py).into_any()),
        }
    }

    fn __bool__(&self) -> bool {
        self.result.is_ok()
    }

    fn __repr__(&self) -> String {
        match &self.result {
            Ok(v) => format!("ValidationResult(valid=True, arguments={})", v.arguments),
            Err(e) => format!("ValidationResult(valid=False, errors={})", e.errors_json()),
        }
    }
}

/// The verdicts of [`crate::toolset::PyToolset::validate_many`]: `None` for a valid text, the
/// message for the model for an invalid one.
#[pyclass(frozen, module = "tooldef._tooldef", name = "Batch")]
pub(crate) struct Batch {
    pub(crate) verdicts: Vec<Option<String>>,
}

#[pymethods]
impl Batch {
    /// One bool per text, in order.
    #[getter]
    fn valid(&self) -> Vec<bool> {
        self.verdicts.iter().map(Option::is_none).collect()
    }

    /// One entry per text: `None` when valid, else the message for the model.
    #[getter]
    fn messages(&self) -> Vec<Option<String>> {
        self.verdicts.clone()
    }

    /// The invalid texts as `(index, message)` pairs.
    #[getter]
    fn invalid(&self) -> Vec<(usize, String)> {
        self.verdicts
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.as_ref().map(|m| (i, m.clone())))
            .collect()
    }

    /// How many texts are valid.
    #[getter]
    fn valid_count(&self) -> usize {
        self.verdicts.iter().filter(|m| m.is_none()).count()
    }

    /// How many texts are invalid.
    #[getter]
    fn invalid_count(&self) -> usize {
        self.verdicts.iter().filter(|m| m.is_some()).count()
    }

    fn __len__(&self) -> usize {
        self.verdicts.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Batch(len={}, valid={}, invalid={})",
            self.verdicts.len(),
            self.valid_count(),
            self.invalid_count()
        )
    }
}

/// One tool call of a dispatched response and its verdict.
#[pyclass(frozen, module = "tooldef._tooldef", name = "Call")]
pub(crate) struct Call {
    /// The provider's call id (`None` where it gave none).
    #[pyo3(get)]
    id: Py<PyAny>,
    /// The tool called.
    #[pyo3(get)]
    tool: String,
    /// `"valid"`, `"invalid"` or `"unknown"` (no tool of that name in the set).
    #[pyo3(get)]
    verdict: &'static str,
    /// The normalized arguments of a valid call, else `None`.
    #[pyo3(get)]
    arguments: Py<PyAny>,
    /// Every problem as `{"path", "code", "message"}`.
    #[pyo3(get)]
    errors: Py<PyAny>,
    /// The message for the model, or `None`.
    #[pyo3(get)]
    message: Option<String>,
    /// The coercions lax mode applied.
    #[pyo3(get)]
    coercions: Py<PyAny>,
    /// The repairs lax mode's lenient reading made.
    #[pyo3(get)]
    repairs: Py<PyAny>,
}

#[pymethods]
impl Call {
    /// Whether the call may run.
    #[getter]
    fn valid(&self) -> bool {
        self.verdict == "valid"
    }

    fn __repr__(&self) -> String {
        format!("Call(tool={:?}, verdict={:?})", self.tool, self.verdict)
    }
}

impl Call {
    pub(crate) fn new(py: Python<'_>, report: &CallReport) -> PyResult<Call> {
        let json = report.to_json();
        let get = |key: &str| -> PyResult<Py<PyAny>> {
            match json.get(key) {
                Some(v) => Ok(to_py(py, v)?.unbind()),
                None => Ok(PyList::empty(py).into_any().unbind()),
            }
        };
        let verdict = match report.verdict {
            Verdict::Valid(_) => "valid",
            Verdict::Invalid(_) => "invalid",
            Verdict::Unknown(_) => "unknown",
        };
        Ok(Call {
            id: to_py(py, report.call.id.as_ref().unwrap_or(&Value::Null))?.unbind(),
            tool: report.call.name.clone(),
            verdict,
            arguments: match json.get("arguments") {
                Some(v) => to_py(py, v)?.unbind(),
                None => py.None(),
            },
            errors: get("errors")?,
            message: report.message(),
            coercions: get("coercions")?,
            repairs: get("repairs")?,
        })
    }
}

/// A dispatched response: every call with its verdict, and the replies for the invalid and
/// unknown ones in the provider's shape.
#[pyclass(frozen, module = "tooldef._tooldef", name = "Dispatched")]
pub(crate) struct Dispatched {
    /// Every call, in order.
    #[pyo3(get)]
    pub(crate) calls: Py<PyList>,
    /// The provider-shaped reply for every invalid or unknown call, in call order.
    #[pyo3(get)]
    pub(crate) replies: Py<PyAny>,
    /// The provider the response was read as.
    #[pyo3(get)]
    pub(crate) provider: &'static str,
    pub(crate) all_valid: bool,
}

#[pymethods]
impl Dispatched {
    /// Whether every call is valid.
    #[getter]
    fn all_valid(&self) -> bool {
        self.all_valid
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Dispatched(provider={:?}, calls={}, all_valid={})",
            self.provider,
            self.calls.bind(py).len(),
            if self.all_valid { "True" } else { "False" }
        )
    }
}
