//! `@format`, asserted: whether a string is a valid value of each format the language knows, as
//! JSON Schema 2020-12's format-assertion vocabulary defines them (RFC 3339 dates, times and
//! durations, RFC 5321 mailboxes, RFC 1123 host names, IPv4 and IPv6 addresses, RFC 3986 URIs,
//! RFC 4122 UUIDs). Mature crates do the parts they do well (`email_address` for the mailbox
//! syntax, `fluent-uri` for URIs, `idna` to decode `xn--` labels and `icu_properties` for the
//! scripts IDNA2008's contextual rules name, the standard library for IP addresses); the date,
//! time and duration grammars are short enough to read here.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use crate::model::Format;

/// Whether `s` is a valid value of `format`.
pub(crate) fn is_valid(format: Format, s: &str) -> bool {
    match format {
        Format::Date => date(s),
        Format::DateTime => date_time(s),
        Format::Time => time(s),
        Format::Duration => duration(s),
        Format::Email => email(s),
        Format::Hostname => hostname(s),
        Format::Ipv4 => Ipv4Addr::from_str(s).is_ok(),
        Format::Ipv6 => Ipv6Addr::from_str(s).is_ok(),
        Format::Uri => fluent_uri::Uri::parse(s).is_ok(),
        Format::Uuid => uuid(s),
    }
}

/// A valid value of `format`, for messages.
pub(crate) fn example(format: Format) -> &'static str {
    match format {
        Format::Date => "2024-05-31",
        Format::DateTime => "2024-05-31T09:30:00Z",
        Format::Time => "09:30:00Z",
        Format::Duration => "P1DT12H",
        Format::Email => "ada@example.com",
        Format::Hostname => "api.example.com",
        Format::Ipv4 => "192.0.2.1",
        Format::Ipv6 => "2001:db8::1",
        Format::Uri => "https://example.com/path",
        Format::Uuid => "123e4567-e89b-12d3-a456-426614174000",
    }
}

/// What the format is, in words, for messages.
pub(crate) fn described(format: Format) -> &'static str {
    match format {
        Format::Date => "a date (RFC 3339 full-date, YYYY-MM-DD)",
        Format::DateTime => "a date-time (RFC 3339, with a time zone offset or Z)",
        Format::Time => "a time (RFC 3339 full-time, with a time zone offset or Z)",
        Format::Duration => "a duration (ISO 8601, as in RFC 3339 appendix A)",
        Format::Email => "an email address",
        Format::Hostname => "a host name",
        Format::Ipv4 => "an IPv4 address in dotted-quad form",
        Format::Ipv6 => "an IPv6 address",
        Format::Uri => "an absolute URI with a scheme",
        Format::Uuid => "a UUID in its hyphenated form",
    }
}

/// Exactly `n` ASCII digits as a number.
fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, with the days of the month (and of February in a leap
/// year).
fn date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..]))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `full-time`: `HH:MM:SS[.fraction](Z|±HH:MM)`. A leap second (`:60`) is valid only at
/// 23:59 UTC, once the offset is taken off.
fn time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[..2]), digits(&b[3..5]), digits(&b[6..8]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &b[8..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let n = fraction.iter().take_while(|d| d.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    // Minutes past midnight, UTC.
    let local = i64::from(hour * 60 + minute);
    let utc = match rest {
        [b'Z' | b'z'] => local,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(oh), Some(om)) = (digits(&[*h1, *h2]), digits(&[*m1, *m2])) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let offset = i64::from(oh * 60 + om);
            if *sign == b'+' {
                local - offset
            } else {
                local + offset
            }
        }
        _ => return false,
    };
    second != 60 || utc.rem_euclid(24 * 60) == 23 * 60 + 59
}

/// RFC 3339 `date-time`: a full-date, `T` (either case), a full-time.
fn date_time(s: &str) -> bool {
    match s.as_bytes().get(10) {
        Some(b'T' | b't') => date(&s[..10]) && time(&s[11..]),
        _ => false,
    }
}

/// RFC 3339 appendix A `duration`: `P` then weeks alone, or years, months and days (each unit
/// once, in that order, and a month between years and days), then optionally `T` and hours,
/// minutes and seconds (likewise); at least one unit, and at least one after a `T`.
fn duration(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('P') else {
        return false;
    };
    let (date_part, time_part) = match rest.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (rest, None),
    };
    // The units present, in order, each after one or more digits.
    fn units(part: &str, allowed: &[u8]) -> Option<Vec<u8>> {
        let b = part.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let unit = *b.get(i)?;
            if i == start || !allowed.contains(&unit) {
                return None;
            }
            out.push(unit);
            i += 1;
        }
        Some(out)
    }
    // Units taken from `order` as a run without gaps (`Y` then `D` skips `M`), each once.
    fn contiguous(units: &[u8], order: &[u8]) -> bool {
        let positions: Option<Vec<usize>> = units
            .iter()
            .map(|u| order.iter().position(|o| o == u))
            .collect();
        positions.is_some_and(|p| p.windows(2).all(|w| w[1] == w[0] + 1))
    }
    let Some(date_units) = units(date_part, b"YMDW") else {
        return false;
    };
    let time_units = match time_part {
        Some(t) => match units(t, b"HMS") {
            Some(u) if !u.is_empty() => u,
            _ => return false,
        },
        None => Vec::new(),
    };
    if date_units == b"W" {
        return time_units.is_empty();
    }
    if date_units.is_empty() && time_units.is_empty() {
        return false;
    }
    contiguous(&date_units, b"YMD") && contiguous(&time_units, b"HMS")
}

/// RFC 1123 host name: dot-separated labels of ASCII letters, digits and hyphens, 1 to 63
/// characters, not starting or ending with a hyphen, 253 characters in all. A label with
/// hyphens in its third and fourth places must be an IDNA A-label (`xn--` and valid punycode).
fn hostname(s: &str) -> bool {
    if s.is_empty() || s.len() > 253 {
        return false;
    }
    s.split('.').all(|label| {
        let b = label.as_bytes();
        let ascii = !b.is_empty()
            && b.len() <= 63
            && b[0] != b'-'
            && b[b.len() - 1] != b'-'
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-');
        if !ascii {
            return false;
        }
        if b.len() >= 4 && &b[2..4] == b"--" {
            if label.len() <= 4 || !label[..4].eq_ignore_ascii_case("xn--") {
                return false;
            }
            let (unicode, result) = idna::domain_to_unicode(label);
            return result.is_ok() && u_label(&unicode);
        }
        true
    })
}

/// The rules of IDNA2008 a decoded label must keep beyond what UTS 46 (the `idna` crate)
/// checks: no `--` in the third and fourth places (RFC 5891 4.2.3.1), the code points RFC 5892
/// 2.6 disallows, and the contextual rules of RFC 5892 appendix A for the middle dot, the Greek
/// keraia, the Hebrew geresh and gershayim, and the katakana middle dot.
fn u_label(label: &str) -> bool {
    use icu_properties::props::Script;
    use icu_properties::CodePointMapData;
    let chars: Vec<char> = label.chars().collect();
    if chars.get(2) == Some(&'-') && chars.get(3) == Some(&'-') {
        return false;
    }
    let script = |c: char| CodePointMapData::<Script>::new().get(c);
    chars.iter().enumerate().all(|(i, &c)| {
        let before = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let after = chars.get(i + 1).copied();
        match c {
            '\u{0640}'
            | '\u{07FA}'
            | '\u{302E}'
            | '\u{302F}'
            | '\u{3031}'..='\u{3035}'
            | '\u{303B}' => false,
            '\u{00B7}' => before == Some('l') && after == Some('l'),
            '\u{0375}' => after.is_some_and(|a| script(a) == Script::Greek),
            '\u{05F3}' | '\u{05F4}' => before.is_some_and(|b| script(b) == Script::Hebrew),
            '\u{30FB}' => chars.iter().any(|&o| {
                o != '\u{30FB}'
                    && matches!(script(o), Script::Hiragana | Script::Katakana | Script::Han)
            }),
            _ => true,
        }
    })
}

/// RFC 5321 mailbox: the local part and domain syntax of `email_address`, with a domain that is
/// a host name or an address literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`).
fn email(s: &str) -> bool {
    // RFC 5321 allows an empty quoted local part, which `email_address` refuses.
    let text = match s.strip_prefix("\"\"@") {
        Some(domain) => format!("\"a\"@{domain}"),
        None => s.to_string(),
    };
    let Ok(address) = email_address::EmailAddress::from_str(&text) else {
        return false;
    };
    if !address.local_part().is_ascii() {
        return false;
    }
    let domain = address.domain();
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => {
                Ipv6Addr::from_str(&literal[5..]).is_ok()
            }
            _ => Ipv4Addr::from_str(literal).is_ok(),
        },
        None => hostname(domain),
    }
}

/// RFC 4122 UUID, hyphenated: 8-4-4-4-12 hexadecimal digits.
fn uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_is_valid() {
        for &f in Format::ALL {
            assert!(is_valid(f, example(f)), "{}", f.as_str());
        }
    }

    #[test]
    fn dates_and_times() {
        assert!(date("2024-02-29"));
        assert!(!date("2023-02-29"));
        assert!(!date("1900-02-29"));
        assert!(date("2000-02-29"));
        assert!(!date("2024-13-01"));
        assert!(!date("2024-1-01"));
        assert!(!date("２024-01-01"));
        assert!(time("23:59:60Z"));
        assert!(!time("22:59:60Z"));
        assert!(time("01:29:60+01:30"));
        assert!(time("15:59:60-08:00"));
        assert!(!time("12:00:00"));
        assert!(!time("12:00:00.Z"));
        assert!(time("12:00:00.123z"));
        assert!(date_time("2024-05-31t09:30:00+02:00"));
        assert!(!date_time("2024-05-31 09:30:00Z"));
        assert!(!date_time("yesterday"));
        // Found by the fuzz target `validate`, where the jsonschema crate (0.60) reads `0.` as
        // two digits.
        assert!(!date_time("2024-01-01T00:00:0.Z"));
    }

    #[test]
    fn durations() {
        for ok in [
            "P4Y",
            "PT0S",
            "P0D",
            "P1M",
            "PT1M",
            "PT36H",
            "P1DT12H",
            "P2W",
            "P1Y2M3DT4H5M6S",
        ] {
            assert!(duration(ok), "{ok}");
        }
        for bad in [
            "P", "PT", "P1", "P1Y2W", "P2WT1H", "P1YT", "P1Y1D", "PT1H1S", "P1D1Y", "1D", "P1.5D",
        ] {
            assert!(!duration(bad), "{bad}");
        }
    }

    #[test]
    fn names_and_addresses() {
        assert!(hostname("www.example.com"));
        assert!(hostname("xn--4gbwdl.xn--wgbh1c"));
        assert!(!hostname("ab--cd.example"));
        // IDNA2008's contextual rules: a middle dot only between two `l`s.
        assert!(!hostname("xn--l-fda"));
        assert!(hostname("xn--ll-0ea"));
        assert!(!hostname("-a.example"));
        assert!(!hostname("a_b.example"));
        assert!(!hostname(""));
        assert!(!hostname(&"a".repeat(64)));
        assert!(email("joe.bloggs@example.com"));
        assert!(email("te~st@example.com"));
        assert!(!email("not-an-email"));
        assert!(!email("2962"));
        assert!(email("joe@[127.0.0.1]"));
        assert!(email("joe@[IPv6:::1]"));
        assert!(!is_valid(Format::Ipv4, "087.10.0.1"));
        assert!(is_valid(Format::Ipv6, "::ffff:192.0.2.1"));
        assert!(is_valid(Format::Uri, "urn:isbn:0451450523"));
        assert!(!is_valid(Format::Uri, "//example.com/no-scheme"));
        assert!(uuid("2EB8AA08-AA98-11EA-B4AA-73B441D16380"));
        assert!(!uuid("2eb8aa08aa9811eab4aa73b441d16380"));
    }
}
