//! Names in a target language: case conversion, escaping, and the deterministic renaming that
//! keeps two names apart when they collide after conversion.

use std::collections::HashSet;

/// The words of a name: runs of ASCII letters and digits, split at `_`, at any other character
/// and where a lower-case letter or digit meets an upper-case one (`createEvent` → `create`,
/// `Event`). Characters that are not ASCII letters or digits separate words and are dropped.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            current.push(c);
        } else {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            prev_lower = false;
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// `create_event` → `CreateEvent`; a name with no ASCII letter or digit gives `fallback`, and
/// one that starts with a digit is prefixed with `T`.
pub(crate) fn pascal(name: &str, fallback: &str) -> String {
    let mut out = String::new();
    for w in words(name) {
        let mut chars = w.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    if out.is_empty() {
        out = fallback.to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    out
}

/// `createEvent` → `create_event`; a name with no ASCII letter or digit gives `fallback`, and
/// one that starts with a digit is prefixed with `_`.
pub(crate) fn snake(name: &str, fallback: &str) -> String {
    let out = words(name)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_");
    let mut out = if out.is_empty() {
        fallback.to_string()
    } else {
        out
    };
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// The names taken in one namespace; [`Taken::claim`] gives a name that is not, by appending
/// the least number from 2 that makes it free.
#[derive(Default)]
pub(crate) struct Taken {
    names: HashSet<String>,
}

impl Taken {
    /// A namespace where `reserved` are already taken.
    pub(crate) fn with(reserved: &[&str]) -> Taken {
        Taken {
            names: reserved.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// `name` if free, else `name2`, `name3`, …; the result is taken from then on.
    pub(crate) fn claim(&mut self, name: &str) -> String {
        let mut candidate = name.to_string();
        let mut n = 2u64;
        while self.names.contains(&candidate) {
            let sep = if name.ends_with(|c: char| c.is_ascii_digit()) {
                "_"
            } else {
                ""
            };
            candidate = format!("{name}{sep}{n}");
            n += 1;
        }
        self.names.insert(candidate.clone());
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Case conversion splits at underscores and case changes and drops what is not ASCII.
    #[test]
    fn names_convert_case() {
        assert_eq!(pascal("create_event", "X"), "CreateEvent");
        assert_eq!(pascal("getHTTPThing", "X"), "GetHttpthing");
        assert_eq!(pascal("9lives", "X"), "T9lives");
        assert_eq!(pascal("été", "X"), "T");
        assert_eq!(pascal("ü", "X"), "X");
        assert_eq!(snake("createEvent", "f"), "create_event");
        assert_eq!(snake("a-b c", "f"), "a_b_c");
        assert_eq!(snake("1st", "f"), "_1st");
        assert_eq!(snake("日本", "f"), "f");
    }

    /// A taken name gets the least free number.
    #[test]
    fn collisions_are_numbered() {
        let mut t = Taken::with(&["Tools"]);
        assert_eq!(t.claim("Tools"), "Tools2");
        assert_eq!(t.claim("Tools"), "Tools3");
        assert_eq!(t.claim("V1"), "V1");
        assert_eq!(t.claim("V1"), "V1_2");
    }
}
