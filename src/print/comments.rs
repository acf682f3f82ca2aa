//! The `//` comments of a source, found by a scan that skips strings, for the formatter to put
//! back.

/// A `//` comment of a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Comment {
    /// Byte offset of the first `/`.
    pub(crate) offset: usize,
    /// The text, from `//` to the end of the line (without the line break and trailing blanks).
    pub(crate) text: String,
    /// Whether code precedes it on its line.
    pub(crate) trailing: bool,
}

/// Every `//` comment (not `///` doc comments, but `////` lines) of a source, in order. Strings
/// are skipped, so `"http://x"` holds no comment.
pub(crate) fn comments(source: &str) -> Vec<Comment> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_has_code = false;
    while i < bytes.len() {
        if let Some(literal) = crate::syntax::string_at(source, i) {
            line_has_code = true;
            i = literal.end;
            continue;
        }
        match bytes[i] {
            b'\n' => {
                line_has_code = false;
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = source[i..].find('\n').map_or(source.len(), |n| i + n);
                let text = source[i..end].trim_end();
                let doc = text.starts_with("///") && !text.starts_with("////");
                if !doc {
                    out.push(Comment {
                        offset: i,
                        text: text.to_string(),
                        trailing: line_has_code,
                    });
                }
                i = end;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            _ => {
                line_has_code = true;
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_hold_no_comments() {
        let c = comments("/// A.\ntool t {\n  a?: string = \"http://x\" // real\n}\n//// four\n");
        let texts: Vec<(&str, bool)> = c.iter().map(|c| (c.text.as_str(), c.trailing)).collect();
        assert_eq!(texts, [("// real", true), ("//// four", false)]);
    }

    #[test]
    fn raw_strings_hold_no_comments() {
        let c = comments(
            "tool t {\n  a: string @pattern(r\"C:\\\") // one\n  b: string @pattern(r#\"a\"//\"#) // two\n  bar: string // three\n}\n",
        );
        let texts: Vec<&str> = c.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["// one", "// two", "// three"]);
    }
}
