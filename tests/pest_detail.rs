//! tooldef leaves pest's process-wide error-detail flag as it found it. This file holds one test
//! so that no other test in its process touches the flag meanwhile.

use pest::Parser;

#[derive(pest_derive::Parser)]
#[grammar_inline = "word = { ASCII_ALPHA+ ~ EOI }"]
struct HostParser;

/// Whether a failed parse of the host's own grammar carries pest's detail.
fn host_detail_on() -> bool {
    HostParser::parse(Rule::word, "1")
        .err()
        .is_some_and(|e| e.parse_attempts().is_some())
}

#[test]
fn the_host_programs_detail_setting_is_kept() {
    let broken = "/// A.\ntool t { a: }\n";
    for host in [false, true, false] {
        pest::set_error_detail(host);
        let errors = tooldef::parse(broken).unwrap_err();
        // The message names the expected token, which needs the detail.
        let message = &errors.errors().next().unwrap().message;
        assert!(message.starts_with("expected "), "{message}");
        assert_ne!(message, "expected something else, found `}`");
        assert_eq!(host_detail_on(), host, "the setting was changed");
    }
}
