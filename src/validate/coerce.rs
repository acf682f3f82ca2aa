//! Lax mode's coercions: how a value of the wrong JSON type may still be read as the expected
//! one. The policy (docs/coercion.md) follows Pikuri's rules:
//!
//! - integer ← a base-10 whole number in a string, after trimming: optional sign, digits,
//!   optional `.0…`; within `i64`/`u64`. No exponents, hex, underscores or fractions.
//! - number ← a numeric string after trimming (`[+-]digits[.digits][e[+-]digits]`); `NaN`,
//!   `Infinity` and overflow are errors.
//! - boolean ← the strings `"true"` / `"false"` after trimming.
//! - string ← a finite number, as its decimal text.
//!
//! Nothing else is coerced: no JSON inside strings, no wrapping into arrays, no truthiness.

use serde::Serialize;
use serde_json::{Number, Value};

/// Which coercion rule was applied. The names are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CoercionRule {
    /// `"42"` → `42` for an integer.
    IntegerFromString,
    /// `"4.5"` → `4.5` for a number.
    NumberFromString,
    /// `"true"` → `true` for a boolean.
    BooleanFromString,
    /// `42` → `"42"` for a string.
    StringFromNumber,
    /// `null` for an optional field that is not nullable: treated as absent (the default, if
    /// any, is filled in).
    NullAsAbsent,
}

impl CoercionRule {
    /// The stable name of the rule, e.g. `"integer-from-string"`.
    pub fn as_str(self) -> &'static str {
        match self {
            CoercionRule::IntegerFromString => "integer-from-string",
            CoercionRule::NumberFromString => "number-from-string",
            CoercionRule::BooleanFromString => "boolean-from-string",
            CoercionRule::StringFromNumber => "string-from-number",
            CoercionRule::NullAsAbsent => "null-as-absent",
        }
    }
}

/// One change lax mode made to the arguments.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Coercion {
    /// Where: a JSON pointer into the arguments.
    pub path: String,
    /// The rule applied.
    pub rule: CoercionRule,
    /// The value as it arrived.
    pub from: Value,
    /// The value it became; `None` when the key was dropped (`null` for an optional field
    /// without a default).
    pub to: Option<Value>,
}

/// Why a string could not be read as the expected type.
pub(crate) type Refusal = &'static str;

/// Splits an optional sign from ASCII digits; `None` unless the rest is one or more digits.
fn signed_digits(s: &str) -> Option<(bool, &str)> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some((negative, digits))
}

/// A whole number from its sign and digits, if it fits `i64` (negative) or `u64`.
fn whole(negative: bool, digits: &str) -> Option<Number> {
    let digits = digits.trim_start_matches('0');
    if digits.len() > 20 {
        return None;
    }
    let magnitude: u64 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    if negative {
        if magnitude == 0 {
            return Some(Number::from(0));
        }
        let value = 0_i128 - i128::from(magnitude);
        i64::try_from(value).ok().map(Number::from)
    } else {
        Some(Number::from(magnitude))
    }
}

/// Lax integer from a string: trimmed, `[+-]digits[.0…]`, within `i64`/`u64`.
pub(crate) fn integer_from_str(s: &str) -> Result<Number, Refusal> {
    let t = s.trim();
    let int_part = match t.split_once('.') {
        Some((int_part, frac)) => {
            if frac.is_empty() || !frac.bytes().all(|b| b == b'0') {
                return Err(
                    if !frac.is_empty() && frac.bytes().all(|b| b.is_ascii_digit()) {
                        "it has a fractional part"
                    } else {
                        "it is not a base-10 whole number"
                    },
                );
            }
            int_part
        }
        None => t,
    };
    let (negative, digits) = signed_digits(int_part).ok_or("it is not a base-10 whole number")?;
    whole(negative, digits).ok_or("it is out of the 64-bit integer range")
}

/// Lax number from a string: trimmed, `[+-]digits[.digits][(e|E)[+-]digits]`, finite.
pub(crate) fn number_from_str(s: &str) -> Result<Number, Refusal> {
    let t = s.trim();
    let (mantissa, exponent) = match t.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (t, None),
    };
    let (int_part, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let refusal = "it is not a decimal number";
    let (negative, digits) = signed_digits(int_part).ok_or(refusal)?;
    if let Some(f) = frac {
        if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
            return Err(refusal);
        }
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        if e.is_empty() || !e.bytes().all(|b| b.is_ascii_digit()) {
            return Err(refusal);
        }
    }
    if frac.is_none() && exponent.is_none() {
        if let Some(n) = whole(negative, digits) {
            return Ok(n);
        }
    }
    let f: f64 = t.parse().map_err(|_| refusal)?;
    if !f.is_finite() {
        return Err("it is out of the range of a 64-bit floating-point number");
    }
    Number::from_f64(f).ok_or(refusal)
}

/// Lax boolean from a string: exactly `true` or `false` after trimming.
pub(crate) fn boolean_from_str(s: &str) -> Result<bool, Refusal> {
    match s.trim() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err("only the strings \"true\" and \"false\" read as booleans"),
    }
}

/// Lax string from a number: its decimal text (`42`, `1.5`, `1e100`).
pub(crate) fn string_from_number(n: &Number) -> String {
    n.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(integer_from_str(" 42 "), Ok(Number::from(42)));
        assert_eq!(integer_from_str("+7"), Ok(Number::from(7)));
        assert_eq!(integer_from_str("-0"), Ok(Number::from(0)));
        assert_eq!(integer_from_str("5.000"), Ok(Number::from(5)));
        assert_eq!(
            integer_from_str("18446744073709551615"),
            Ok(Number::from(u64::MAX))
        );
        assert_eq!(
            integer_from_str("-9223372036854775808"),
            Ok(Number::from(i64::MIN))
        );
        for bad in [
            "1.5",
            "1e3",
            "0x1A",
            "1_000",
            "",
            "  ",
            "5.",
            ".5",
            "--1",
            "18446744073709551616",
        ] {
            assert!(integer_from_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(
            number_from_str("4.5"),
            Ok(Number::from_f64(4.5).unwrap_or(Number::from(0)))
        );
        assert_eq!(number_from_str(" 12 "), Ok(Number::from(12)));
        assert!(number_from_str("1e3").is_ok());
        for bad in [
            "NaN", "Infinity", "inf", "1e400", "abc", "", "1.", "1e", "0x10",
        ] {
            assert!(number_from_str(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn booleans() {
        assert_eq!(boolean_from_str(" true"), Ok(true));
        assert!(boolean_from_str("True").is_err());
        assert!(boolean_from_str("yes").is_err());
    }
}
