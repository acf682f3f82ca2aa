//! JSON values across the edge: Python objects to `serde_json::Value` and back.
//!
//! Only the JSON types cross: `dict` (string keys), `list`, `tuple`, `str`, `int`, `float`,
//! `bool` and `None`. Anything else is a `TypeError` that names the parameter and the path.
//! Both directions stop at [`MAX_DEPTH`] levels, so a deep or cyclic structure is an error,
//! never an exhausted stack.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

/// The deepest nesting converted. The validator's own limit (128 levels) is lower, so a value
/// between the two reaches the validator, which refuses it with its message.
pub(crate) const MAX_DEPTH: usize = 512;

/// A Python object as a JSON value; `param` names the argument in errors.
pub(crate) fn to_value(obj: &Bound<'_, PyAny>, param: &str) -> PyResult<Value> {
    let mut path = String::new();
    to_value_at(obj, param, &mut path, 0)
}

fn to_value_at(
    obj: &Bound<'_, PyAny>,
    param: &str,
    path: &mut String,
    depth: usize,
) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{param}: nested deeper than {MAX_DEPTH} levels (or a structure that contains itself) at `{path}`"
        )));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    // `bool` is a subclass of `int`: it is asked first.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::Number(u.into()));
        }
        // An integer past 64 bits becomes the nearest number, as a JSON reader would read it.
        let f: f64 = obj.extract()?;
        return Number::from_f64(f).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!("{param}: integer out of range at `{path}`"))
        });
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let f = f.value();
        return Number::from_f64(f).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!("{param}: {f} is not a JSON number (at `{path}`)"))
        });
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(PyTypeError::new_err(format!(
                    "{param}: a key of a JSON object must be a str, not {} (at `{path}`)",
                    type_name(&k)
                )));
            };
            let key = key.to_str()?;
            let len = path.len();
            path.push('/');
            path.push_str(key);
            let value = to_value_at(&v, param, path, depth + 1)?;
            path.truncate(len);
            map.insert(key.to_owned(), value);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return sequence(l.iter(), l.len(), param, path, depth);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return sequence(t.iter(), t.len(), param, path, depth);
    }
    Err(PyTypeError::new_err(format!(
        "{param}: {} is not a JSON value (at `{path}`)",
        type_name(obj)
    )))
}

fn sequence<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    param: &str,
    path: &mut String,
    depth: usize,
) -> PyResult<Value> {
    let mut out = Vec::with_capacity(len);
    for (i, item) in items.enumerate() {
        let at = path.len();
        path.push('/');
        path.push_str(&i.to_string());
        out.push(to_value_at(&item, param, path, depth + 1)?);
        path.truncate(at);
    }
    Ok(Value::Array(out))
}

/// The name of an object's type, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_string())
}

/// A JSON value as Python objects: `dict` (in the value's key order), `list`, `str`, `int`,
/// `float`, `bool`, `None`.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    // The key cache is never waited for: a conversion that finds it taken (by another thread,
    // or by a conversion under way on this one, re-entered from a finalizer) makes its keys.
    match KEYS.try_lock() {
        Ok(mut keys) => to_py_at(py, value, 0, Some(&mut keys)),
        Err(_) => to_py_at(py, value, 0, None),
    }
}

/// The `str` objects made for object keys, shared by every conversion: the keys a tool's
/// arguments repeat (its field names) are each made, decoded and hashed by Python once, and
/// then only counted again. Bounded, so that keys a model makes up cannot grow it without end;
/// a key past the bound is made each time, as every key was before.
type KeyCache = HashMap<Box<str>, Py<PyString>, BuildHasherDefault<Fnv>>;

static KEYS: Mutex<KeyCache> = Mutex::new(HashMap::with_hasher(BuildHasherDefault::new()));

/// The most keys cached, and the longest (in bytes).
const MAX_KEYS: usize = 4096;
const MAX_KEY_LEN: usize = 64;

/// The `str` of an object key, from the cache when it is there (and put there when it fits).
fn key<'py>(py: Python<'py>, k: &str, keys: Option<&mut KeyCache>) -> Bound<'py, PyString> {
    let Some(keys) = keys.filter(|_| k.len() <= MAX_KEY_LEN) else {
        return PyString::new(py, k);
    };
    if let Some(s) = keys.get(k) {
        return s.bind(py).clone();
    }
    let s = PyString::new(py, k);
    if keys.len() < MAX_KEYS {
        keys.insert(k.into(), s.clone().unbind());
    }
    s
}

/// FNV-1a: keys are short, and looked up far more often than they are added; no key a caller
/// sends is ever added past the bound, so a poor spread costs at most a slower lookup.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

fn to_py_at<'py>(
    py: Python<'py>,
    value: &Value,
    depth: usize,
    mut keys: Option<&mut KeyCache>,
) -> PyResult<Bound<'py, PyAny>> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "a value nested deeper than {MAX_DEPTH} levels"
        )));
    }
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.push(to_py_at(py, item, depth + 1, keys.as_deref_mut())?);
            }
            PyList::new(py, out)?.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                let k = key(py, k, keys.as_deref_mut());
                dict.set_item(k, to_py_at(py, v, depth + 1, keys.as_deref_mut())?)?;
            }
            dict.into_any()
        }
    })
}
