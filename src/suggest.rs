//! "Did you mean ...?" suggestions for misspelt names.

/// The candidate closest to `name`, if it is close enough to be a likely typo.
pub fn did_you_mean<'a, I>(name: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let lower = name.to_lowercase();
    let mut best: Option<(f64, &'a str)> = None;
    for candidate in candidates {
        let score = if candidate.to_lowercase() == lower {
            1.0
        } else {
            strsim::normalized_damerau_levenshtein(&lower, &candidate.to_lowercase())
                .max(strsim::jaro_winkler(&lower, &candidate.to_lowercase()) - 0.15)
        };
        if score >= 0.7 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn suggests_close_names_only() {
        let names = ["string", "integer", "number", "boolean"];
        assert_eq!(did_you_mean("strng", names), Some("string"));
        assert_eq!(did_you_mean("Integer", names), Some("integer"));
        assert_eq!(did_you_mean("int", names), Some("integer"));
        assert_eq!(did_you_mean("xyz", names), None);
    }
}
