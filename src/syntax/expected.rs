//! Which punctuation would have fitted where a source went wrong.
//!
//! Pest reports the grammar rules it tried at the farthest place a rule started, and nothing of
//! the literal tokens (`:`, `}`, …) it tried beyond it: `a: string[ }` fails, as far as rules go,
//! at `[`, though the text really went wrong at `}`, where `]` was wanted. Pest can record the
//! tokens too, but only behind a switch that is global to the process, which a library must not
//! flip (it races with other threads and overrides the host program's own choice).
//!
//! So a failed piece is parsed once more, on the cold path, by pest's grammar interpreter over
//! the same grammar file in which each punctuation token is a rule of its own. Rules are what
//! pest reports, so the interpreter's error names the tokens, at the farthest place one was
//! tried. The grammar is read once per process.

use std::sync::OnceLock;

use pest_meta::ast::{Expr, Rule, RuleType};
use pest_vm::Vm;

/// The punctuation worth naming in "expected ..." messages.
const TOKENS: &[&str] = &[
    ":", "?", "=", "|", ",", "->", "...", "{", "}", "(", ")", "[", "]", ">",
];

/// The name the interpreter's grammar gives the rule of a token (a space keeps it apart from
/// every rule of the grammar file).
const PREFIX: &str = "token ";

/// The interpreter for the grammar, built on first use; `None` if the grammar file could not be
/// read as a grammar (a build would have failed first, since the derived parser reads it too).
fn interpreter() -> Option<&'static Vm> {
    static VM: OnceLock<Option<Vm>> = OnceLock::new();
    VM.get_or_init(|| {
        let grammar = include_str!("../../grammar/tool.pest");
        let pairs =
            pest_meta::parser::parse(pest_meta::parser::Rule::grammar_rules, grammar).ok()?;
        let mut rules = pest_meta::parser::consume_rules(pairs).ok()?;
        for rule in &mut rules {
            let expr = std::mem::replace(&mut rule.expr, Expr::Str(String::new()));
            rule.expr = expr.map_bottom_up(|e| match e {
                Expr::Str(s) if TOKENS.contains(&s.as_str()) => Expr::Ident(format!("{PREFIX}{s}")),
                e => e,
            });
        }
        rules.extend(TOKENS.iter().map(|t| Rule {
            name: format!("{PREFIX}{t}"),
            ty: RuleType::Normal,
            expr: Expr::Str((*t).to_string()),
        }));
        Some(Vm::new(pest_meta::optimizer::optimize(rules)))
    })
    .as_ref()
}

/// The farthest byte at which the parse of `source` tried a punctuation token, and the tokens it
/// tried there (in byte order of the token text). `None` when the source parses, or when no
/// token was tried where the parse gave up.
pub(super) fn farthest_tokens(source: &str) -> Option<(usize, Vec<&'static str>)> {
    let error = interpreter()?.parse("file", source).err()?;
    let pest::error::ErrorVariant::ParsingError { positives, .. } = &error.variant else {
        return None;
    };
    let pos = match error.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let tokens: Vec<&'static str> = positives
        .iter()
        .filter_map(|rule| {
            let token = rule.strip_prefix(PREFIX)?;
            TOKENS.iter().copied().find(|t| *t == token)
        })
        .collect();
    (!tokens.is_empty()).then_some((pos, tokens))
}
