//! The library's errors as Python exceptions.

use pyo3::exceptions::{PyFileNotFoundError, PyKeyError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tooldef::validate::CompileError as ValidatorError;
use tooldef::{Diagnostic, Errors, LoadError};

pyo3::create_exception!(
    tooldef,
    CompileError,
    PyValueError,
    "Sources that do not compile (or a tool a target cannot carry): `str()` lists every \
     diagnostic as `file:line:column: [code] message`; `.diagnostics` holds them as dicts."
);

/// One diagnostic as a dict: file, line, column, end_line, end_column, code, severity,
/// message, help.
pub(crate) fn diagnostic_dict<'py>(
    py: Python<'py>,
    d: &Diagnostic,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let (file, start, end) = match &d.file {
        Some(source) => (
            Some(source.name().to_string()),
            Some(source.line_col(d.span.start)),
            Some(source.line_col(d.span.end)),
        ),
        None => (None, None, None),
    };
    dict.set_item("file", file)?;
    dict.set_item("line", start.map(|p| p.0))?;
    dict.set_item("column", start.map(|p| p.1))?;
    dict.set_item("end_line", end.map(|p| p.0))?;
    dict.set_item("end_column", end.map(|p| p.1))?;
    dict.set_item("code", d.code.as_str())?;
    dict.set_item("severity", if d.is_error() { "error" } else { "warning" })?;
    dict.set_item("message", &d.message)?;
    dict.set_item("help", d.help.as_deref())?;
    Ok(dict)
}

/// The diagnostics as a list of dicts.
pub(crate) fn diagnostics_list<'py>(
    py: Python<'py>,
    diagnostics: &[Diagnostic],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in diagnostics {
        list.append(diagnostic_dict(py, d)?)?;
    }
    Ok(list)
}

/// `CompileError` for a set of diagnostics: the text is one `Display` line per diagnostic, as
/// the command line prints them without snippets.
pub(crate) fn compile_error(py: Python<'_>, errors: &Errors) -> PyErr {
    let text = errors
        .diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    let err = CompileError::new_err(text);
    if let Ok(list) = diagnostics_list(py, &errors.diagnostics) {
        // Setting an attribute on a fresh exception instance cannot fail in practice; if it
        // did, the error would still carry its text.
        let _ = err.value(py).setattr("diagnostics", list);
    }
    err
}

/// A load error: unreadable files are `OSError` (`FileNotFoundError` when missing), sources
/// that do not compile are `CompileError`.
pub(crate) fn load_error(py: Python<'_>, e: LoadError) -> PyErr {
    match e {
        LoadError::Io { path, error } => {
            let text = format!("cannot read {path}: {error}");
            if error.kind() == std::io::ErrorKind::NotFound {
                PyFileNotFoundError::new_err(text)
            } else {
                PyOSError::new_err(text)
            }
        }
        LoadError::Invalid(errors) => compile_error(py, &errors),
    }
}

/// A validator that cannot be had: an unknown tool or type is a `KeyError` with the library's
/// did-you-mean; a tool the target cannot carry is a `CompileError` with the target's errors.
pub(crate) fn validator_error(py: Python<'_>, e: ValidatorError) -> PyErr {
    match e {
        ValidatorError::UnknownTool { .. } | ValidatorError::UnknownType { .. } => {
            PyKeyError::new_err(e.to_string())
        }
        ValidatorError::NotRepresentable { ref errors, .. } => {
            let err = compile_error(py, errors);
            let _ = err.value(py).setattr("args", (e.to_string(),));
            err
        }
        other => PyValueError::new_err(other.to_string()),
    }
}
