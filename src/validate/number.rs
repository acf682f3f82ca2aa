//! Exact comparisons of JSON numbers, as JSON Schema defines them: numbers are compared by value,
//! whatever their representation (`1` equals `1.0`, `u64::MAX` is greater than `1.8e19`), and
//! `multipleOf` is decided on the decimal a number is written as (an integral double on the
//! integer it equals).

use std::cmp::Ordering;

use serde_json::Number;

/// A number as an exact integer or a finite double.
#[derive(Clone, Copy, Debug)]
enum Exact {
    Int(i128),
    Float(f64),
}

fn exact(n: &Number) -> Exact {
    if let Some(i) = n.as_i64() {
        Exact::Int(i128::from(i))
    } else if let Some(u) = n.as_u64() {
        Exact::Int(i128::from(u))
    } else {
        Exact::Float(n.as_f64().unwrap_or(0.0))
    }
}

/// Compares an exact integer with a finite double, exactly.
fn cmp_int_float(i: i128, f: f64) -> Ordering {
    if f.is_nan() {
        return Ordering::Equal;
    }
    // Integers up to 2^53 in magnitude are exact doubles.
    if i.unsigned_abs() <= 1 << 53 {
        return (i as f64).partial_cmp(&f).unwrap_or(Ordering::Equal);
    }
    // Every i128 lies strictly inside ±1.7e38.
    if f >= 1.7e38 {
        return Ordering::Less;
    }
    if f <= -1.7e38 {
        return Ordering::Greater;
    }
    let whole = f.trunc();
    // `whole` is integral and inside the i128 range, so the conversion is exact.
    match i.cmp(&(whole as i128)) {
        Ordering::Equal => {
            if f > whole {
                Ordering::Less
            } else if f < whole {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        other => other,
    }
}

/// Compares two JSON numbers by value.
pub(crate) fn cmp(a: &Number, b: &Number) -> Ordering {
    match (exact(a), exact(b)) {
        (Exact::Int(x), Exact::Int(y)) => x.cmp(&y),
        (Exact::Int(x), Exact::Float(y)) => cmp_int_float(x, y),
        (Exact::Float(x), Exact::Int(y)) => cmp_int_float(y, x).reverse(),
        (Exact::Float(x), Exact::Float(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// Whether two JSON numbers are equal by value.
#[inline]
pub(super) fn equal(a: &Number, b: &Number) -> bool {
    // Most numbers compared are integers that fit an `i64`.
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    cmp(a, b) == Ordering::Equal
}

/// The number as a double, when the double is exactly the number.
#[inline(always)]
pub(super) fn exact_f64(n: &Number) -> Option<f64> {
    const LIMIT: u64 = 1 << 53;
    if n.is_f64() {
        n.as_f64()
    } else if let Some(i) = n.as_i64() {
        (i.unsigned_abs() <= LIMIT).then_some(i as f64)
    } else {
        n.as_u64().filter(|&u| u <= LIMIT).map(|u| u as f64)
    }
}

/// The largest magnitude up to which every integer is an exact double (2^53).
pub(super) const EXACT_DOUBLE: f64 = 9_007_199_254_740_992.0;

/// Whether a number is an integer that tooldef holds exactly: an `i64` or a `u64` (an integer
/// written without a fraction or exponent within -2^63 … 2^64-1, which the JSON reader keeps
/// exactly), or a double with a zero fractional part within ±2^53.
///
/// A double beyond ±2^53 is not an integer here, although JSON Schema would call it one when its
/// fraction is zero: such a double is what reading rounded the text to (`99999999999999999999`
/// and `998888888888888888.5` both read as integral doubles), so accepting it would hand the
/// tool a number the model never wrote. RFC 8259 §6 and RFC 7493 §2.2 draw the same line.
pub(super) fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.fract() == 0.0 && f.abs() <= EXACT_DOUBLE)
}

/// Whether a number is a double with a zero fractional part beyond ±2^53: integral as a double,
/// but not an integer [`is_integer`] accepts.
pub(super) fn is_inexact_integer(n: &Number) -> bool {
    n.is_f64()
        && n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0 && f.abs() > EXACT_DOUBLE)
}

/// A key that is equal for numbers that are equal by value (used to hash JSON values).
pub(super) fn hash_key(n: &Number) -> u64 {
    let f = n.as_f64().unwrap_or(0.0);
    // -0.0 and 0.0 are the same number.
    if f == 0.0 {
        0
    } else {
        f.to_bits()
    }
}

/// A finite double as the decimal it prints as: `mantissa / 10^decimals`.
fn decimal_parts(value: f64) -> Option<(i128, i32)> {
    if !value.is_finite() {
        return None;
    }
    // `{:e}` prints the shortest digits that read back as the same double, e.g. `1.5e-1`.
    let text = format!("{value:e}");
    let (digits, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    let negative = digits.starts_with('-');
    let digits = digits.trim_start_matches('-');
    let (int_part, frac_part) = digits.split_once('.').unwrap_or((digits, ""));
    let mut mantissa: i128 = 0;
    for b in int_part.bytes().chain(frac_part.bytes()) {
        mantissa = mantissa
            .checked_mul(10)?
            .checked_add(i128::from(b.checked_sub(b'0')?))?;
    }
    let decimals = i32::try_from(frac_part.len()).ok()? - exponent;
    Some((if negative { -mantissa } else { mantissa }, decimals))
}

/// Whether `value / multiple` is an integer, reading both as the decimals they are written as
/// (`0.3` is a multiple of `0.1`). `multiple` must be positive.
pub(crate) fn is_multiple_of(value: &Number, multiple: &Number) -> bool {
    if let (Exact::Int(v), Exact::Int(m)) = (exact(value), exact(multiple)) {
        return m != 0 && v % m == 0;
    }
    let (Some(v), Some(m)) = (value.as_f64(), multiple.as_f64()) else {
        return false;
    };
    if v == 0.0 {
        return true;
    }
    if m <= 0.0 || v.abs() < m {
        return false;
    }
    // An integral double is the integer it equals (shortest-decimal digits would round
    // 998888888888888832 to 998888888888888900); inside ±2^127 the division is exact in i128.
    const TWO_127: f64 = 1.7014118346046923e38;
    if v.fract() == 0.0 && m.fract() == 0.0 && v.abs() < TWO_127 && m < TWO_127 {
        return (v as i128) % (m as i128) == 0;
    }
    if let (Some((vm, vd)), Some((mm, md))) = (decimal_parts(v), decimal_parts(m)) {
        if mm != 0 {
            let shared = vd.min(md);
            let scale = |mantissa: i128, decimals: i32| {
                let places = u32::try_from(decimals - shared).ok()?;
                mantissa.checked_mul(10_i128.checked_pow(places)?)
            };
            if let (Some(a), Some(b)) = (scale(vm, md), scale(mm, vd)) {
                if b != 0 {
                    return a % b == 0;
                }
            }
        }
    }
    let q = v / m;
    if q.is_finite() {
        return q.fract() == 0.0;
    }
    // The quotient overflows (`1e308 / 0.5`): the remainder, which `%` computes exactly on
    // doubles, still tells.
    v % m == 0.0
}

/// The number as an `i64` or `u64` when it is integral and fits, otherwise unchanged.
pub(super) fn normalize_integer(n: &Number) -> Option<Number> {
    if n.is_i64() || n.is_u64() {
        return None;
    }
    let f = n.as_f64()?;
    if f.fract() != 0.0 {
        return None;
    }
    // ±2^63 and 2^64 are exact doubles.
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    const TWO_64: f64 = 18_446_744_073_709_551_616.0;
    if (-TWO_63..TWO_63).contains(&f) {
        Some(Number::from(f as i64))
    } else if (0.0..TWO_64).contains(&f) {
        Some(Number::from(f as u64))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn n(v: serde_json::Value) -> Number {
        match v {
            serde_json::Value::Number(n) => n,
            _ => Number::from(0),
        }
    }

    #[test]
    fn compares_across_representations() {
        assert!(equal(&n(json!(1)), &n(json!(1.0))));
        assert_eq!(
            cmp(&n(json!(u64::MAX)), &n(json!(1.8e19))),
            Ordering::Greater
        );
        assert_eq!(cmp(&n(json!(-1)), &n(json!(-0.5))), Ordering::Less);
        assert_eq!(cmp(&n(json!(2.5)), &n(json!(2))), Ordering::Greater);
        assert_eq!(
            cmp(
                &n(json!(9007199254740993_u64)),
                &n(json!(9007199254740992.0))
            ),
            Ordering::Greater
        );
    }

    #[test]
    fn multiple_of_reads_decimals() {
        assert!(is_multiple_of(&n(json!(0.3)), &n(json!(0.1))));
        assert!(is_multiple_of(&n(json!(0.0075)), &n(json!(0.0001))));
        assert!(!is_multiple_of(&n(json!(0.00751)), &n(json!(0.0001))));
        assert!(is_multiple_of(&n(json!(15)), &n(json!(5))));
        assert!(!is_multiple_of(&n(json!(16)), &n(json!(5))));
        assert!(is_multiple_of(&n(json!(1000000.1)), &n(json!(0.1))));
        assert!(!is_multiple_of(&n(json!(1000000.05)), &n(json!(0.1))));
        assert!(is_multiple_of(&n(json!(4.0)), &n(json!(2))));
        // An integral double is the integer it equals, not its shortest decimal: the double
        // 998888888888888832 prints as 9.988888888888888e17 (remainder 1 by 3) and is a
        // multiple of 3; 222004167105843296 prints as 2.220041671058433e17 (a multiple of 3)
        // and leaves a remainder of 2.
        assert!(is_multiple_of(
            &n(json!(998888888888888832.0)),
            &n(json!(3))
        ));
        assert!(!is_multiple_of(
            &n(json!(222004167105843296.0)),
            &n(json!(3))
        ));
        assert!(is_multiple_of(
            &n(json!(222004167105843296.0)),
            &n(json!(2))
        ));
    }

    #[test]
    fn multiple_of_survives_an_overflowing_quotient() {
        // 1e308 / 0.5 is infinite as a double; the remainder still decides.
        assert!(is_multiple_of(&n(json!(1e308)), &n(json!(0.5))));
        assert!(is_multiple_of(&n(json!(-1e308)), &n(json!(0.5))));
        assert!(!is_multiple_of(&n(json!(1e308)), &n(json!(3e-300))));
    }

    #[test]
    fn integers_are_the_exact_ones() {
        assert!(is_integer(&n(json!(3.0))));
        assert!(is_integer(&n(json!(9007199254740992.0))));
        assert!(is_integer(&n(json!(u64::MAX))));
        assert!(is_integer(&n(json!(i64::MIN))));
        assert!(!is_integer(&n(json!(1e20))));
        assert!(!is_integer(&n(json!(9007199254740994.0))));
        assert!(!is_integer(&n(json!(0.5))));
        assert!(is_inexact_integer(&n(json!(1e20))));
        assert!(!is_inexact_integer(&n(json!(u64::MAX))));
        assert!(!is_inexact_integer(&n(json!(0.5))));
        assert!(is_inexact_integer(&n(json!(2.5e20 + 0.5))));
    }

    #[test]
    fn normalizes_integral_floats() {
        assert_eq!(normalize_integer(&n(json!(3.0))), Some(Number::from(3)));
        assert_eq!(normalize_integer(&n(json!(-3.0))), Some(Number::from(-3)));
        assert_eq!(normalize_integer(&n(json!(3.5))), None);
        assert_eq!(normalize_integer(&n(json!(1e30))), None);
    }
}
