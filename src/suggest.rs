//! "Did you mean ...?" suggestions for misspelt names, and the bounded lists of names a
//! message shows when no suggestion fits.

use std::borrow::Cow;
use std::fmt::{self, Write};

/// The longest name, in characters, that gets a suggestion. Nobody mistypes a longer one, and
/// comparing two names costs the product of their lengths: a 100,000-character unknown type name
/// took about a minute to compare with the names a file defines.
const LONGEST_SUGGESTED: usize = 64;

/// The candidate closest to `name`, if it is close enough to be a likely typo.
///
/// Names are compared in lower case; the score is the larger of the normalized
/// Damerau–Levenshtein similarity and the Jaro–Winkler similarity less 0.15, and must reach 0.7;
/// the first of equally close candidates wins.
pub fn did_you_mean<'a, I>(name: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    did_you_mean_tiered::<1>(name, candidates.into_iter().map(|c| (c, 0)))
}

/// [`did_you_mean`] over nested sets of candidates, likeliest first: a candidate of tier `t`
/// belongs to sets `t` to `TIERS - 1`, and the answer is the closest candidate of the first set
/// that has one close enough. Each candidate is scored once, whatever the number of sets.
///
/// Both metrics are costly, so each is computed only when an upper bound on it leaves it able to
/// reach the bar and to win: the characters the two names share bound both (see [`Shared`]),
/// and the Damerau–Levenshtein distance is also at least the difference of the lengths.
pub(crate) fn did_you_mean_tiered<'a, const TIERS: usize>(
    name: &str,
    candidates: impl IntoIterator<Item = (&'a str, usize)>,
) -> Option<&'a str> {
    // (A name of at most that many bytes has at most that many characters.)
    if name.len() > LONGEST_SUGGESTED && name.chars().nth(LONGEST_SUGGESTED).is_some() {
        return None;
    }
    let lower = lowercase(name);
    let shared = Shared::new(&lower);
    // The closest candidate of each set so far.
    let mut best: [Option<(f64, &'a str)>; TIERS] = [None; TIERS];
    for (candidate, tier) in candidates {
        let Some(first) = best.get(tier) else {
            continue;
        };
        // The sets grow with the tier, so the closest so far of this candidate's own set is the
        // easiest to beat: a score that cannot reach the bar or beat it changes no answer. The
        // margin keeps rounding in the metrics and the bounds from mattering.
        let useful = |most: f64| most + 1e-9 >= 0.7 && first.is_none_or(|(s, _)| most + 1e-9 >= s);
        // Bounds of the two parts of the score. An equal name has both at their top, 1 and
        // 0.85, and so is never passed over here.
        let bounds = shared.bound(candidate);
        if bounds.is_some_and(|(l, w)| !useful(l.max(w))) {
            continue;
        }
        let other = lowercase(candidate);
        let score = if other == lower {
            1.0
        } else {
            let (levenshtein_most, winkler_most) = bounds.unwrap_or_else(|| {
                // The distance is at least the difference of the lengths (the bound from
                // shared characters is tighter still).
                let (len, other_len) = (lower.chars().count(), other.chars().count());
                let longer = len.max(other_len) as f64;
                (1.0 - len.abs_diff(other_len) as f64 / longer, f64::INFINITY)
            });
            if !useful(levenshtein_most.max(winkler_most)) {
                continue;
            }
            // A Jaro–Winkler score that cannot matter is left out: the score is then the
            // Damerau–Levenshtein similarity, or below the bar or the best either way.
            let winkler = if useful(winkler_most) {
                strsim::jaro_winkler(&lower, &other) - 0.15
            } else {
                f64::NEG_INFINITY
            };
            if levenshtein_most + 1e-9 > winkler && useful(levenshtein_most) {
                strsim::normalized_damerau_levenshtein(&lower, &other).max(winkler)
            } else {
                winkler
            }
        };
        if score >= 0.7 {
            for slot in &mut best[tier..] {
                if slot.is_none_or(|(s, _)| score > s) {
                    *slot = Some((score, candidate));
                }
            }
        }
    }
    best.into_iter().flatten().next().map(|(_, c)| c)
}

/// The suggestions of one check, under a bound on their work in all: each unknown name is
/// compared with every candidate, so n unknown names among n defined ones would cost n² (times
/// the names' lengths). Once a suggestion would go past the bound, no more are made, and the
/// messages give their general help instead.
#[derive(Debug)]
pub(crate) struct Budget {
    /// What is left, in pairs of bytes compared (a name's length times a candidate's).
    left: usize,
}

impl Default for Budget {
    /// About a tenth of a second of comparisons; a file of a thousand unknown names among a
    /// thousand types of ten characters spends a third of it.
    fn default() -> Self {
        Budget { left: 1 << 28 }
    }
}

impl Budget {
    /// [`did_you_mean`], while the budget lasts.
    pub(crate) fn did_you_mean<'a, I>(&mut self, name: &str, candidates: I) -> Option<&'a str>
    where
        I: IntoIterator<Item = &'a str>,
    {
        self.did_you_mean_tiered::<1>(name, candidates.into_iter().map(|c| (c, 0)))
    }

    /// [`did_you_mean_tiered`], while the budget lasts: each candidate is paid for as it is
    /// read, and a search that would go past what is left stops there and suggests nothing.
    pub(crate) fn did_you_mean_tiered<'a, const TIERS: usize>(
        &mut self,
        name: &str,
        candidates: impl IntoIterator<Item = (&'a str, usize)>,
    ) -> Option<&'a str> {
        let per_byte = name.len() + 1;
        let left = self.left;
        let mut cost: usize = 0;
        let paid = candidates.into_iter().map_while(|(candidate, tier)| {
            cost = cost.saturating_add(per_byte.saturating_mul(candidate.len() + 1));
            (cost <= left).then_some((candidate, tier))
        });
        let answer = did_you_mean_tiered::<TIERS>(name, paid);
        if cost > left {
            // Spent: reading the candidates again for each later name would be the cost the
            // budget bounds.
            self.left = 0;
            return None;
        }
        self.left -= cost;
        answer
    }
}

/// `items`, at most `most` of them, joined by `separator`, then "and N more" when there are
/// more: the list a message gives of what there is, of bounded length however many there are.
pub fn listed<T: fmt::Display>(
    items: impl IntoIterator<Item = T>,
    most: usize,
    separator: &str,
) -> String {
    let mut out = String::new();
    let mut count = 0usize;
    for item in items {
        if count < most {
            if count > 0 {
                out.push_str(separator);
            }
            let _ = write!(out, "{item}");
        }
        count += 1;
    }
    if count > most {
        let _ = write!(out, " and {} more", count - most);
    }
    out
}

/// The characters of an ASCII name, counted, to bound the similarity of another name to it from
/// the characters they share (`m`, with multiplicity):
/// - the Damerau–Levenshtein distance is at least the longer length less `m` (every character
///   the other lacks must be edited; a transposition moves characters without changing them),
///   so the normalized similarity is at most `m` over the longer length;
/// - Jaro's matches are shared characters, so Jaro is at most `J = (m/|a| + m/|b| + 1) / 3`,
///   and Winkler adds a tenth of the rest for each character of the common prefix `p` (at most
///   four), which rises with Jaro: Jaro–Winkler is at most `J + p × (1 - J) / 10`.
struct Shared {
    /// How many times each byte occurs (at most 255: a count that saturates only loosens the
    /// bound); `None` for a name that is not ASCII (no bound then).
    counts: Option<[u8; 128]>,
    /// The name's first four bytes (as many as it has), for the common prefix.
    head: [u8; 4],
    /// The name's length.
    len: usize,
}

impl Shared {
    fn new(name: &str) -> Shared {
        let counts = name.is_ascii().then(|| {
            let mut counts = [0; 128];
            for b in name.bytes() {
                let c = &mut counts[usize::from(b & 0x7f)];
                *c = u8::saturating_add(*c, 1);
            }
            counts
        });
        let mut head = [0; 4];
        let n = name.len().min(4);
        head[..n].copy_from_slice(&name.as_bytes()[..n]);
        Shared {
            counts,
            head,
            len: name.len(),
        }
    }

    /// Upper bounds on the normalized Damerau–Levenshtein similarity and on the Jaro–Winkler
    /// similarity less 0.15 (the two parts of the score) of `other`, in lower case, against the
    /// name, when both are ASCII.
    fn bound(&self, other: &str) -> Option<(f64, f64)> {
        let len = self.len;
        let counts = self.counts.as_ref()?;
        // The occurrences of each byte of `other` so far: one is shared while there are no
        // more of them than the name has.
        let mut seen = [0u8; 128];
        let mut m = 0usize;
        for b in other.bytes() {
            if !b.is_ascii() {
                return None;
            }
            let at = usize::from(b.to_ascii_lowercase());
            // (Wrapping only loosens the bound: past 255, each occurrence counts as shared.)
            seen[at] = seen[at].wrapping_add(1);
            m += usize::from(seen[at] <= counts[at]);
        }
        if len == 0 && other.is_empty() {
            // Equal: both at their top.
            return Some((1.0, 0.85));
        }
        if m == 0 {
            // Nothing shared (or one name empty): both similarities are 0.
            return Some((0.0, -0.15));
        }
        // The common prefix, of at most four characters (ASCII: one a byte).
        let prefix = other
            .bytes()
            .zip(&self.head[..len.min(4)])
            .take_while(|&(b, &h)| b.to_ascii_lowercase() == h)
            .count();
        let (a, b, m) = (len as f64, other.len() as f64, m as f64);
        let jaro = (m / a + m / b + 1.0) / 3.0;
        let winkler = jaro + 0.1 * prefix as f64 * (1.0 - jaro);
        Some((m / a.max(b), winkler - 0.15))
    }
}

/// `s` in lower case, borrowed when it has no upper-case letter to change.
fn lowercase(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        Cow::Owned(s.to_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::{did_you_mean, did_you_mean_tiered, listed, Budget};

    #[test]
    fn a_long_name_gets_no_suggestion() {
        let long = "a".repeat(64);
        let longer = "a".repeat(65);
        assert_eq!(
            did_you_mean(&long[1..], [long.as_str()]),
            Some(long.as_str())
        );
        assert_eq!(did_you_mean(&longer, [longer.as_str()]), None);
    }

    #[test]
    fn a_spent_budget_suggests_nothing_more() {
        let names: Vec<String> = (0..50).map(|i| format!("name{i}")).collect();
        let mut budget = Budget { left: 10_000 };
        // Each asks 6 bytes against 50 names of 6 and 7 bytes (with one for each): 2,040 pairs,
        // so the budget makes four and is spent by the fifth.
        let made = (0..10)
            .filter(|i| {
                budget
                    .did_you_mean(&format!("nmae{i}"), names[..50].iter().map(String::as_str))
                    .is_some()
            })
            .count();
        assert_eq!(made, 4);
        assert_eq!(budget.left, 0);
        assert_eq!(budget.did_you_mean("nmae1", ["name1"]), None);
    }

    #[test]
    fn a_list_stops_at_its_most() {
        assert_eq!(listed(["a", "b"], 3, ", "), "a, b");
        assert_eq!(listed(["a", "b", "c"], 3, ", "), "a, b, c");
        assert_eq!(
            listed(["a", "b", "c", "d", "e"], 3, "; "),
            "a; b; c and 2 more"
        );
        assert_eq!(listed(Vec::<&str>::new(), 3, ", "), "");
    }

    #[test]
    fn suggests_close_names_only() {
        let names = ["string", "integer", "number", "boolean"];
        assert_eq!(did_you_mean("strng", names), Some("string"));
        assert_eq!(did_you_mean("Integer", names), Some("integer"));
        assert_eq!(did_you_mean("int", names), Some("integer"));
        assert_eq!(did_you_mean("xyz", names), None);
    }

    /// The suggestion as it was computed before the length bound: every metric on every
    /// candidate.
    fn reference<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
        let lower = name.to_lowercase();
        let mut best: Option<(f64, &'a str)> = None;
        for &candidate in candidates {
            let c = candidate.to_lowercase();
            let score = if c == lower {
                1.0
            } else {
                strsim::normalized_damerau_levenshtein(&lower, &c)
                    .max(strsim::jaro_winkler(&lower, &c) - 0.15)
            };
            if score >= 0.7 && best.is_none_or(|(s, _)| score > s) {
                best = Some((score, candidate));
            }
        }
        best.map(|(_, c)| c)
    }

    /// The bound from shared characters passes over no candidate that could change the answer:
    /// every word of up to four letters over a small alphabet (with a case change and a
    /// separator), each asked against many lists of the others.
    #[test]
    fn the_shared_character_bound_changes_no_suggestion() {
        let mut words = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = words
                .iter()
                .filter(|w| w.len() == words.last().map_or(0, String::len))
                .flat_map(|w| ["a", "b", "c", "_"].map(|c| format!("{w}{c}")))
                .collect();
            words.extend(longer);
        }
        words.extend(["Ab".into(), "ABC".into(), "abcabc".into(), "cabbage".into()]);
        let all: Vec<&str> = words.iter().map(String::as_str).collect();
        for (i, name) in all.iter().enumerate() {
            for width in [1, 4, 9, 40] {
                let from = (i * 7) % all.len();
                let candidates: Vec<&str> =
                    all.iter().cycle().skip(from).take(width).copied().collect();
                assert_eq!(
                    did_you_mean(name, candidates.iter().copied()),
                    reference(name, &candidates),
                    "{name:?} among {candidates:?}"
                );
            }
        }
    }

    /// Scoring each candidate once gives what asking set after set gives.
    #[test]
    fn tiers_answer_as_sets_asked_in_turn() {
        let fields = [
            ("city", 2),
            ("country", 0),
            ("unit", 1),
            ("units", 2),
            ("days", 1),
            ("format", 0),
            ("max_results", 1),
            ("query", 2),
        ];
        for key in [
            "cty",
            "countri",
            "unitz",
            "day",
            "fromat",
            "maxresults",
            "qery",
            "zzz",
        ] {
            let set = |t: usize| fields.iter().filter(move |f| f.1 <= t).map(|f| f.0);
            let asked = did_you_mean(key, set(0))
                .or_else(|| did_you_mean(key, set(1)))
                .or_else(|| did_you_mean(key, set(2)));
            assert_eq!(did_you_mean_tiered::<3>(key, fields), asked, "{key}");
        }
    }

    /// The bound skips only work that cannot change the answer: the same suggestion as the
    /// reference on every pair of a set of names, typos and unrelated words.
    #[test]
    fn the_length_bound_changes_no_suggestion() {
        let words = [
            "",
            "a",
            "id",
            "city",
            "City",
            "cty",
            "ctiy",
            "country",
            "countries",
            "unit",
            "units",
            "days",
            "day",
            "format",
            "fromat",
            "tags",
            "tag",
            "celsius",
            "celcius",
            "Celsius",
            "fahrenheit",
            "farenheit",
            "kelvin",
            "priority",
            "priorty",
            "assignee",
            "asignee",
            "estimate",
            "title",
            "titel",
            "ÉTÉ",
            "été",
            "straße",
            "strasse",
            "user_id",
            "userId",
            "max_results",
            "maxResults",
            "limit",
            "offset",
            "query",
            "q",
            "search_query",
            "unexpected_key",
            "expected_value",
            "unit_of_measure",
            "units_of_measure",
            "measure_unit",
            "max_result",
            "maxResult",
        ];
        for name in words {
            for n in 1..=words.len() {
                let candidates = &words[..n];
                assert_eq!(
                    did_you_mean(name, candidates.iter().copied()),
                    reference(name, candidates),
                    "{name:?} among {candidates:?}"
                );
            }
        }
    }
}
