//! `tooldef._tooldef`: the Python binding of the tooldef library.
//!
//! A thin layer: every argument is converted at the edge and handed to the library's public
//! API (`Toolset`, its validators, dispatch, response formats); no rule of the language or the
//! validator lives here. Long work releases the GIL. A Rust panic becomes PyO3's
//! `PanicException`, never a crash of the interpreter.

#![forbid(unsafe_code)]

mod convert;
mod errors;
mod results;
mod run;
mod toolset;
mod validator;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _tooldef(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<toolset::PyToolset>()?;
    m.add_function(wrap_pyfunction!(toolset::import_tools, m)?)?;
    m.add_function(wrap_pyfunction!(run::_wait_for_handlers, m)?)?;
    m.add_class::<validator::ToolValidator>()?;
    m.add_class::<results::ValidationResult>()?;
    m.add_class::<results::Batch>()?;
    m.add_class::<results::Call>()?;
    m.add_class::<results::Dispatched>()?;
    m.add_class::<toolset::HandlerDecorator>()?;
    m.add_class::<run::Reply>()?;
    m.add_class::<run::RunResult>()?;
    m.add("CallError", m.py().get_type::<run::CallError>())?;
    m.add("CompileError", m.py().get_type::<errors::CompileError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
