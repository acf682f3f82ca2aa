//! tooldef never touches pest's process-wide error-detail flag, yet its syntax errors name the
//! tokens that would have fitted. This file holds one test so that no other test in its process
//! sets the flag meanwhile.

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
fn the_host_programs_detail_setting_is_never_changed() {
    let broken = "/// A.\ntool t { a: string[ }\n";
    for host in [false, true, false] {
        pest::set_error_detail(host);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let seen_other = std::thread::scope(|s| {
            // A host thread parsing its own grammar all along: it must never see the setting
            // differ from its own.
            let watcher = s.spawn(|| {
                let mut differed = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    if host_detail_on() != host {
                        differed += 1;
                    }
                }
                differed
            });
            for _ in 0..200 {
                let errors = tooldef::parse(broken).unwrap_err();
                let message = &errors.errors().next().unwrap().message;
                // The message names the token wanted where the text went wrong.
                assert_eq!(message, "expected `]`, found `}`");
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            watcher.join().unwrap()
        });
        assert_eq!(
            seen_other, 0,
            "the setting was changed while tooldef parsed"
        );
        assert_eq!(host_detail_on(), host, "the setting was changed");
    }
}
