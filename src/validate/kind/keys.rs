//! Comparing short strings (object keys, enum values) by a few word loads instead of a call to
//! `memcmp`.

#[inline(always)]
fn word4(s: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&s[at..at + 4]);
    u32::from_ne_bytes(w)
}

#[inline(always)]
fn word8(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[at..at + 8]);
    u64::from_ne_bytes(w)
}

/// Whether two strings are equal: short ones (most keys and enum values) compared with a few
/// word loads instead of a call to `memcmp`.
#[inline(always)]
pub(crate) fn same_str(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// [`same_str`] on bytes.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    // The same words [`StrKey`] keeps, compared as they are read, so that a difference in the
    // first word decides without reading the second (building both keys and comparing them
    // cost 3% more on the nested benchmark).
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        // The first, middle and last bytes are all of them.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        // Two overlapping words cover every byte.
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// A string's length and a few words of it: two strings of at most 16 bytes are equal exactly
/// when their keys are (the first, middle and last bytes of the shortest; two overlapping words
/// of the others); longer ones also need their bytes compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StrKey {
    len: usize,
    head: u64,
    tail: u64,
}

impl StrKey {
    /// Whether equal keys mean equal strings (at most 16 bytes: the key holds all of them).
    #[inline(always)]
    pub(crate) fn is_whole(&self) -> bool {
        self.len <= 16
    }

    #[inline(always)]
    pub(crate) fn new(s: &str) -> StrKey {
        let b = s.as_bytes();
        let n = b.len();
        let (head, tail) = match n {
            0 => (0, 0),
            1..=3 => (
                u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16,
                0,
            ),
            4..=7 => (u64::from(word4(b, 0)), u64::from(word4(b, n - 4))),
            _ => (word8(b, 0), word8(b, n - 8)),
        };
        StrKey { len: n, head, tail }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-wise comparison agrees with `==` on every length and every differing byte.
    #[test]
    fn same_str_agrees_with_eq() {
        let base: String = "abcdefghijklmnopqrstuvwxyz".into();
        for n in 0..=20 {
            let a = &base[..n];
            assert!(same_str(a, a));
            assert!(!same_str(a, &base[..n + 1]));
            for i in 0..n {
                let mut b = a.as_bytes().to_vec();
                b[i] = b'-';
                let b = String::from_utf8(b).unwrap_or_default();
                assert!(!same_str(a, &b), "{a} vs {b}");
            }
        }
        assert!(same_str("é", "é"));
        assert!(!same_str("é", "è"));
    }
}
