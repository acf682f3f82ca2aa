//! Values written in the source (defaults, examples, constants, attribute arguments) → JSON, with
//! their depth and number limits.

use serde_json::{Number, Value};

use crate::ast::{self, ValueKind};
use crate::diagnostic::{Code, Diagnostic, Span};

use super::{Checker, MAX_VALUE_DEPTH};

impl Checker {
    // -----------------------------------------------------------------------------------------
    // Values

    /// Converts a literal value, reporting numbers out of range and too deep nesting.
    pub(super) fn value(&mut self, v: &ast::Value) -> Option<Value> {
        self.value_at(v, 0)
    }

    /// `depth` counts the arrays and objects around `v`.
    fn value_at(&mut self, v: &ast::Value, depth: usize) -> Option<Value> {
        let container = matches!(v.kind, ValueKind::Array(_) | ValueKind::Object(_));
        if container && depth >= MAX_VALUE_DEPTH {
            self.error(
                Diagnostic::error(
                    Code::NestingTooDeep,
                    v.span,
                    format!("values nest deeper than {MAX_VALUE_DEPTH} levels"),
                )
                .with_label("too deep"),
            );
            return None;
        }
        Some(match &v.kind {
            ValueKind::Null => Value::Null,
            ValueKind::Bool(b) => Value::Bool(*b),
            ValueKind::Number(lexeme) => Value::Number(self.number(lexeme, v.span)?),
            ValueKind::String(s) => Value::String(s.clone()),
            ValueKind::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.value_at(item, depth + 1)?);
                }
                Value::Array(out)
            }
            ValueKind::Object(entries) => {
                let mut out = serde_json::Map::new();
                for (key, item) in entries {
                    let value = self.value_at(item, depth + 1)?;
                    if out.insert(key.text.clone(), value).is_some() {
                        self.error(
                            Diagnostic::error(
                                Code::DuplicateName,
                                key.span,
                                format!("key `{}` appears twice in this object", key.text),
                            )
                            .with_label("duplicate key"),
                        );
                    }
                }
                Value::Object(out)
            }
        })
    }

    pub(super) fn number(&mut self, lexeme: &str, span: Span) -> Option<Number> {
        let integral = !lexeme.contains(['.', 'e', 'E']);
        if integral {
            if let Ok(n) = lexeme.parse::<i64>() {
                return Some(Number::from(n));
            }
            if let Ok(n) = lexeme.parse::<u64>() {
                return Some(Number::from(n));
            }
        }
        match lexeme.parse::<Number>() {
            Ok(n) if integral && !(n.is_i64() || n.is_u64()) => {
                self.error(
                    Diagnostic::error(
                        Code::InvalidNumber,
                        span,
                        format!("the integer {lexeme} does not fit in 64 bits"),
                    )
                    .with_label("out of range")
                    .with_help("integers range from -9223372036854775808 to 18446744073709551615"),
                );
                None
            }
            Ok(n) => Some(n),
            Err(_) => {
                self.error(
                    Diagnostic::error(
                        Code::InvalidNumber,
                        span,
                        format!("the number {lexeme} is out of range"),
                    )
                    .with_label("out of range")
                    .with_help("numbers must be finite 64-bit floating-point values"),
                );
                None
            }
        }
    }
}

pub(super) fn non_negative(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
        .filter(|x| *x >= 0.0 && x.is_finite())
}
