//! Structure-aware: an `arbitrary` description of a `.tool` file (named types that refer to each
//! other and to themselves, long alias chains, deeply nested objects and arrays, wide objects
//! and enums, unions, maps, tuples, literals and constraints), rendered to text. Byte fuzzing
//! rarely gets past the parser to shapes this large; here most inputs compile. Every source
//! that compiles passes the `compile` target's checks (`common::check_module`), with one
//! target's emission a run, chosen by the input (each emission inlines the named types again,
//! and emitting all of them made most of a run's cost; a campaign covers them all). Sizes stay
//! below the limits' neighbourhood (chains, widths and enums under 64, nesting under 72), and
//! long chains, widths and enums are rarer than short ones (see `length`), so that a run
//! reaches millions of inputs; growth at scale is the hostile tests' and the
//! `hostile` benchmark's job, which double each shape.
#![no_main]

use std::fmt::Write;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

#[derive(Arbitrary, Debug)]
struct Spec {
    types: Vec<Ty>,
    enums: Vec<u8>,
    tools: Vec<ToolSpec>,
    /// `type C0 = C1`, …, `type Cn = <last>` (n below 64, see [`length`]).
    chain: u8,
    last: Ty,
    /// `{ a: { a: … } }` and `integer[][]…`, this deep (below 72: past the parser's nesting
    /// limit of 64 and the schema depth limit of 40).
    depth: u8,
    /// A tool of this many fields (below 64, see [`length`]).
    width: u8,
    /// The target this run emits for (an index into `Target::ALL`).
    target: u8,
}

#[derive(Arbitrary, Debug)]
struct ToolSpec {
    fields: Vec<Field>,
    open: Open,
    output: Option<Ty>,
    lax: bool,
}

#[derive(Arbitrary, Debug)]
struct Field {
    optional: bool,
    quoted: bool,
    ty: Ty,
}

#[derive(Arbitrary, Debug)]
enum Open {
    Closed,
    Any,
    Typed(Ty),
}

#[derive(Arbitrary, Debug)]
enum Ty {
    String(Option<u8>, Option<u8>, Option<u8>),
    Integer(Option<i16>, Option<i16>, Option<u8>),
    Number(Option<i16>, bool),
    Boolean,
    Null,
    Any,
    Never,
    Named(u8),
    Enum(u8),
    Chain,
    Literal(Literal),
    Array(Box<Ty>, Option<u8>, Option<u8>, bool),
    Map(Box<Ty>),
    Tuple(Vec<Ty>, u8, Option<Box<Ty>>),
    Union(Vec<Ty>),
    Object(Vec<Field>, Box<Open>),
}

#[derive(Arbitrary, Debug)]
enum Literal {
    Str(u8),
    Int(i32),
    Float(i16),
    Bool(bool),
}

const PATTERNS: &[&str] = &[
    "^\\\\w+$",
    "\\\\d{2,}",
    "^[a-z]*$",
    "(a|b)+c?",
    "^\\\\S+@\\\\S+$",
    "[^\\\\s]",
    "x{0,3}y",
    "^\\\\p{L}+$",
];

struct Out {
    types: usize,
    enums: usize,
    chain: bool,
    budget: usize,
}

impl Out {
    fn ty(&mut self, s: &mut String, t: &Ty) {
        if self.budget == 0 {
            s.push_str("string");
            return;
        }
        self.budget -= 1;
        match t {
            Ty::String(min, max, pattern) => {
                s.push_str("string");
                if let Some(n) = min {
                    let _ = write!(s, " @min_length({})", n % 16);
                }
                if let Some(n) = max {
                    let _ = write!(s, " @max_length({})", n % 64 + 16);
                }
                if let Some(p) = pattern {
                    let _ = write!(
                        s,
                        " @pattern(\"{}\")",
                        PATTERNS[*p as usize % PATTERNS.len()]
                    );
                }
            }
            Ty::Integer(min, max, multiple) => {
                s.push_str("integer");
                if let Some(n) = min {
                    let _ = write!(s, " @min({n})");
                }
                if let Some(n) = max {
                    let _ = write!(s, " @max({})", i32::from(*n) + i32::from(i16::MAX));
                }
                if let Some(n) = multiple {
                    let _ = write!(s, " @multiple_of({})", n % 9 + 1);
                }
            }
            Ty::Number(min, exclusive) => {
                s.push_str("number");
                if let Some(n) = min {
                    let kw = if *exclusive { "exclusive_min" } else { "min" };
                    let _ = write!(s, " @{kw}({}.5)", n);
                }
            }
            Ty::Boolean => s.push_str("boolean"),
            Ty::Null => s.push_str("null"),
            Ty::Any => s.push_str("any"),
            Ty::Never => s.push_str("never"),
            Ty::Named(i) if self.types > 0 => {
                let _ = write!(s, "T{}", *i as usize % self.types);
            }
            Ty::Enum(i) if self.enums > 0 => {
                let _ = write!(s, "E{}", *i as usize % self.enums);
            }
            Ty::Chain if self.chain => s.push_str("C0"),
            Ty::Named(_) | Ty::Enum(_) | Ty::Chain => s.push_str("integer"),
            Ty::Literal(l) => match l {
                Literal::Str(n) => {
                    let _ = write!(s, "\"v{n}\"");
                }
                Literal::Int(n) => {
                    let _ = write!(s, "{n}");
                }
                Literal::Float(n) => {
                    let _ = write!(s, "{n}.25");
                }
                Literal::Bool(b) => {
                    let _ = write!(s, "{b}");
                }
            },
            Ty::Array(item, min, max, unique) => {
                s.push('(');
                self.ty(s, item);
                s.push_str(")[]");
                if let Some(n) = min {
                    let _ = write!(s, " @min_items({})", n % 4);
                }
                if let Some(n) = max {
                    let _ = write!(s, " @max_items({})", n % 8 + 4);
                }
                if *unique {
                    s.push_str(" @unique");
                }
            }
            Ty::Map(v) => {
                s.push_str("map<");
                self.ty(s, v);
                s.push('>');
            }
            Ty::Tuple(items, optional_from, rest) => {
                s.push('[');
                let from = *optional_from as usize;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    self.ty(s, item);
                    if i >= from {
                        s.push('?');
                    }
                }
                if let Some(rest) = rest {
                    if !items.is_empty() {
                        s.push_str(", ");
                    }
                    s.push_str("...: ");
                    self.ty(s, rest);
                }
                s.push(']');
            }
            Ty::Union(members) => {
                if members.is_empty() {
                    s.push_str("null");
                }
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        s.push_str(" | ");
                    }
                    s.push('(');
                    self.ty(s, m);
                    s.push(')');
                }
            }
            Ty::Object(fields, open) => {
                s.push('{');
                self.fields(s, fields, open, " ");
                s.push('}');
            }
        }
    }

    fn fields(&mut self, s: &mut String, fields: &[Field], open: &Open, sep: &str) {
        for (i, f) in fields.iter().enumerate() {
            s.push_str(sep);
            if f.quoted {
                let _ = write!(s, "\"f-{i} é\"");
            } else {
                let _ = write!(s, "f{i}");
            }
            if f.optional {
                s.push('?');
            }
            s.push_str(": ");
            self.ty(s, &f.ty);
            s.push(',');
        }
        match open {
            Open::Closed => {}
            Open::Any => {
                s.push_str(sep);
                s.push_str("...");
            }
            Open::Typed(t) => {
                s.push_str(sep);
                s.push_str("...: ");
                self.ty(s, t);
            }
        }
        s.push_str(sep);
    }
}

/// A chain's, a width's or an enum's length from one byte: any length below 64 for a quarter of
/// the bytes, one below 16 for the rest. Every length stays reachable, while the average source
/// stays small enough for a campaign of millions of runs (each run compiles the source twice).
fn length(byte: u8) -> usize {
    match byte {
        192.. => usize::from(byte - 192),
        _ => usize::from(byte % 16),
    }
}

fn render(spec: &Spec) -> String {
    let mut out = Out {
        types: spec.types.len(),
        enums: spec.enums.len(),
        chain: spec.chain > 0,
        budget: 20_000,
    };
    let mut s = String::new();
    for (i, t) in spec.types.iter().enumerate() {
        let _ = write!(s, "/// Type {i}.\ntype T{i} = ");
        out.ty(&mut s, t);
        s.push_str("\n\n");
    }
    for (i, n) in spec.enums.iter().enumerate() {
        let _ = write!(s, "/// Enum {i}.\nenum E{i} {{");
        for v in 0..=length(*n) {
            if v % 3 == 0 {
                let _ = write!(s, " {v}");
            } else {
                let _ = write!(s, " v{v}");
            }
        }
        s.push_str(" }\n\n");
    }
    if spec.chain > 0 {
        let n = length(spec.chain);
        for i in 0..n {
            let _ = writeln!(s, "/// Link {i}.\ntype C{i} = C{}", i + 1);
        }
        let _ = write!(s, "/// The end.\ntype C{n} = ");
        out.ty(&mut s, &spec.last);
        s.push_str("\n\n");
    }
    for (i, t) in spec.tools.iter().enumerate() {
        let _ = write!(s, "/// Tool {i}.\n");
        if t.lax {
            s.push_str("@lax\n");
        }
        let _ = write!(s, "tool t{i}");
        if let Some(o) = &t.output {
            s.push_str(" -> ");
            out.ty(&mut s, o);
        }
        s.push_str(" {");
        out.fields(&mut s, &t.fields, &t.open, "\n  ");
        s.push_str("}\n\n");
    }
    // Deep: nested objects and arrays, and a wide tool.
    let depth = spec.depth as usize % 72;
    s.push_str("/// Deep and wide.\ntool deep {\n  nested: ");
    for _ in 0..depth {
        s.push_str("{ a?: ");
    }
    s.push_str("integer");
    for _ in 0..depth {
        s.push_str(" }");
    }
    s.push_str("\n  arrays?: integer");
    for _ in 0..depth {
        s.push_str("[]");
    }
    for i in 0..length(spec.width) {
        let _ = write!(s, "\n  w{i}?: ");
        if spec.types.is_empty() {
            s.push_str("string");
        } else {
            let _ = write!(s, "T{} | null", i % spec.types.len());
        }
    }
    s.push_str("\n}\n");
    s
}

fuzz_target!(|spec: Spec| {
    let source = render(&spec);
    if let Ok(compiled) = tooldef::compile(&source) {
        let all = tooldef::emit::Target::ALL;
        let target = all[usize::from(spec.target) % all.len()];
        common::check_module(&compiled.module, &[target]);
    }
});
