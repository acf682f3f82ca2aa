//! Parsing: source text → pest pairs (`grammar/tool.pest`) → the syntax tree in `ast`.
//!
//! Before pest runs, a linear pre-scan rejects nesting deeper than [`MAX_NESTING`], so no input
//! can exhaust the stack of the recursive-descent parser or of the later stages. Pest's errors are
//! reworded for humans: every grammar rule has a description in [`describe_rule`].

use pest::iterators::Pair;
use pest::Parser as _;

use crate::ast::*;
use crate::diagnostic::{Code, Diagnostic, Span};

mod expected;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/tool.pest"]
struct ToolParser;

/// The deepest nesting of `{`, `[`, `(`, `<` and `T[]` suffixes that the parser accepts.
pub const MAX_NESTING: usize = 64;

/// Whether `name` is an identifier (`[A-Za-z_][A-Za-z0-9_]*`, the grammar's `ident`): a name
/// that is written bare. Every other name is written as a string (see [`quote`]).
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `text` as a string in double quotes with JSON escapes, which reads back as `text`.
pub(crate) fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
}

/// Parses a whole `.tool` source into its syntax tree.
///
/// Errors are syntax errors (`syntax`), nesting beyond [`MAX_NESTING`] (`nesting-too-deep`), and
/// malformed string escapes (`syntax`); every broken item is reported (see [`parse_recovering`]).
pub(crate) fn parse(source: &str) -> Result<File, Vec<Diagnostic>> {
    let parsed = parse_recovering(source);
    if parsed.errors.is_empty() {
        Ok(parsed.file)
    } else {
        Err(parsed.errors)
    }
}

/// What a parse that goes on past syntax errors found: the items that parsed, every error, and
/// the names of the types and enums whose definitions are broken (so that the checker does not
/// call their uses unknown).
pub(crate) struct Recovered {
    pub(crate) file: File,
    pub(crate) errors: Vec<Diagnostic>,
    pub(crate) broken_names: Vec<String>,
}

/// Parses a source, going on past syntax errors: when the whole source does not parse, it is cut
/// where items begin (a line that starts with `tool`, `type`, `enum` or `import` and a name, with
/// the `///` and `@` lines right above it) and each piece is parsed on its own, so one broken item
/// costs one error and the items after it still parse. A source that parses costs one parse; one
/// that does not costs at most three passes over each piece (the nesting pre-scan, the parse,
/// and the parse that details an error), so the time stays linear.
pub(crate) fn parse_recovering(source: &str) -> Recovered {
    parse_recovering_at(source, 0)
}

/// [`parse_recovering`] for a source placed at byte `base` of a larger text (the files of a set
/// of modules are laid end to end, so one span says both the file and the place).
pub(crate) fn parse_recovering_at(source: &str, base: usize) -> Recovered {
    let mut out = Recovered {
        file: File { items: Vec::new() },
        errors: Vec::new(),
        broken_names: Vec::new(),
    };
    // The nesting pre-scan counts every bracket left open, so brackets that broken items leave
    // open add up: when the whole source fails it, each piece is scanned on its own below.
    if prescan_nesting(source).is_ok() {
        if let Ok(pairs) = ToolParser::parse(Rule::file, source) {
            lower_file(pairs, base, &mut out);
            return out;
        }
    }
    let starts = item_starts(source);
    let bounds = std::iter::once(0)
        .chain(starts.into_iter().filter(|&s| s > 0))
        .chain(std::iter::once(source.len()))
        .collect::<Vec<_>>();
    for piece in bounds.windows(2) {
        let (from, to) = (piece[0], piece[1]);
        let text = &source[from..to];
        if let Err(errors) = prescan_nesting(text) {
            out.errors
                .extend(errors.into_iter().map(|d| shifted(d, base + from)));
            out.broken_names.extend(defined_name(text));
            continue;
        }
        match ToolParser::parse(Rule::file, text) {
            Ok(pairs) => lower_file(pairs, base + from, &mut out),
            Err(e) => {
                out.errors
                    .push(shifted(syntax_error(text, &e), base + from));
                out.broken_names.extend(defined_name(text));
            }
        }
    }
    out
}

/// Lowers the items of a parsed piece of source that starts at byte `base`.
fn lower_file(mut pairs: pest::iterators::Pairs<'_, Rule>, base: usize, out: &mut Recovered) {
    let Some(file) = pairs.next() else { return };
    let text = file.as_str();
    let first = out.file.items.len();
    let mut lower = Lower {
        errors: Vec::new(),
        base,
    };
    for pair in file.into_inner() {
        let before = lower.errors.len();
        let item = match pair.as_rule() {
            Rule::tool_def => Item::Tool(lower.tool_def(pair)),
            Rule::type_def => Item::Type(lower.type_def(pair)),
            Rule::enum_def => Item::Enum(lower.enum_def(pair)),
            Rule::import_def => Item::Import(lower.import_def(pair)),
            _ => continue,
        };
        if lower.errors.len() == before {
            out.file.items.push(item);
        } else {
            // Lowered with a placeholder where the error is: checking it would report the
            // placeholder, so it counts as broken.
            match item {
                Item::Type(t) => out.broken_names.push(t.name.text),
                Item::Enum(e) => out.broken_names.push(e.name.text),
                Item::Tool(_) | Item::Import(_) => {}
            }
        }
    }
    out.errors.append(&mut lower.errors);
    let at_line_start = |at: usize| {
        at.checked_sub(base + 1)
            .is_none_or(|i| text.as_bytes().get(i) == Some(&b'\n'))
    };
    give_line_attributes_to_next_items(&mut out.file.items[first..], at_line_start);
}

/// An alias's type takes constraints after it (`type A = string @min_length(1)`), so the
/// grammar also reads the attributes of the item after it as the alias's (`@read_only` before
/// `tool`). An attribute that starts a line is the next item's, as for recovery (see
/// [`item_starts`]): each such trailing run moves to the item that follows, when one does that
/// takes attributes.
fn give_line_attributes_to_next_items(items: &mut [Item], at_line_start: impl Fn(usize) -> bool) {
    for i in 1..items.len() {
        let (before, after) = items.split_at_mut(i);
        let (Some(Item::Type(alias)), Some(next)) = (before.last_mut(), after.first_mut()) else {
            continue;
        };
        let attrs = match next {
            Item::Tool(t) => (&mut t.attrs, &mut t.span),
            Item::Type(t) => (&mut t.attrs, &mut t.span),
            Item::Enum(e) => (&mut e.attrs, &mut e.span),
            Item::Import(_) => continue,
        };
        let moved = take_line_attributes(&mut alias.body, &at_line_start);
        if let Some(first) = moved.first() {
            alias.span.end = alias.body.span.end;
            attrs.1.start = attrs.1.start.min(first.span.start);
            attrs.0.splice(0..0, moved);
        }
    }
}

/// The constraints at the end of `expr` from the first that starts a line on, taken out.
fn take_line_attributes(
    expr: &mut TypeExpr,
    at_line_start: &impl Fn(usize) -> bool,
) -> Vec<Attribute> {
    match &mut expr.kind {
        TypeKind::Union(members) => {
            let Some(last) = members.last_mut() else {
                return Vec::new();
            };
            let moved = take_line_attributes(last, at_line_start);
            expr.span.end = last.span.end;
            moved
        }
        TypeKind::Constrained(inner, attrs) => {
            let Some(k) = attrs.iter().position(|a| at_line_start(a.span.start)) else {
                return Vec::new();
            };
            let moved = attrs.split_off(k);
            match attrs.last() {
                Some(a) => expr.span.end = a.span.end,
                None => {
                    let inner = std::mem::replace(
                        &mut **inner,
                        TypeExpr {
                            kind: TypeKind::Union(Vec::new()),
                            span: expr.span,
                        },
                    );
                    *expr = inner;
                }
            }
            moved
        }
        _ => Vec::new(),
    }
}

/// The byte offsets where items begin, for recovery: lines that start (in the first column) with
/// an item keyword followed by a blank and a name, a string or `{`, moved up over the `///` and
/// `@` lines right above them. A field named `type` (`type: string`) is no item: a `:` follows.
fn item_starts(source: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    // Where the current run of `///` and `@` lines began.
    let mut run: Option<usize> = None;
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let here = offset;
        offset += line.len();
        if line.starts_with("///") || line.starts_with('@') {
            run.get_or_insert(here);
            continue;
        }
        let opens_item = ["tool", "type", "enum", "import"].iter().any(|kw| {
            line.strip_prefix(kw).is_some_and(|rest| {
                let after = rest.trim_start_matches([' ', '\t']);
                after.len() < rest.len()
                    && after.starts_with(|c: char| {
                        c.is_ascii_alphabetic() || matches!(c, '_' | '"' | '{')
                    })
            })
        });
        if opens_item {
            starts.push(run.unwrap_or(here));
        }
        run = None;
    }
    starts
}

/// The name a broken piece of source was defining, when it is a `type` or an `enum`: the word
/// after the keyword.
fn defined_name(piece: &str) -> Option<String> {
    piece.lines().find_map(|line| {
        let rest = line
            .strip_prefix("type ")
            .or_else(|| line.strip_prefix("enum "))?;
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty()).then_some(name)
    })
}

/// A diagnostic found in a piece of source that starts at byte `base`, placed in the whole.
fn shifted(mut d: Diagnostic, base: usize) -> Diagnostic {
    d.span = Span::new(d.span.start + base, d.span.end + base);
    for r in &mut d.related {
        r.span = Span::new(r.span.start + base, r.span.end + base);
    }
    d
}

/// Rejects sources whose brackets nest deeper than [`MAX_NESTING`], in one pass over the bytes
/// that skips strings and comments.
fn prescan_nesting(source: &str) -> Result<(), Vec<Diagnostic>> {
    let bytes = source.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(literal) = string_at(source, i) {
            i = literal.end;
            continue;
        }
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if bytes.get(i + 1) == Some(&b'>') => i += 1,
            b'{' | b'[' | b'(' | b'<' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(vec![Diagnostic::error(
                        Code::NestingTooDeep,
                        Span::new(i, i + 1),
                        format!("nesting is deeper than {MAX_NESTING} levels"),
                    )
                    .with_label("too deep")
                    .with_help("flatten the definition, for example with named types")]);
                }
            }
            b'}' | b']' | b')' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// A string literal found by [`string_at`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Literal {
    /// One past its closing quote (and fence), or the end of its line when it is not closed.
    pub(crate) end: usize,
    /// Whether it is closed on its line.
    pub(crate) closed: bool,
    /// For a raw string, the number of `#` in its fence; `None` for an ordinary string.
    pub(crate) fence: Option<usize>,
}

/// The string literal that opens at byte `i`, if one does: `"…"` with escapes, or a raw
/// `r"…"` / `r#"…"#` (an `r` that continues a name opens none). The lexical rule of strings for
/// every scan that is not the parser (the nesting pre-scan, the formatter's comment scan, the
/// unclosed-string error), so that all of them agree with the grammar on where a string ends.
pub(crate) fn string_at(source: &str, i: usize) -> Option<Literal> {
    let bytes = source.as_bytes();
    let line_end = |from: usize| source[from..].find('\n').map_or(source.len(), |n| from + n);
    match *bytes.get(i)? {
        b'"' => {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'\n' {
                match bytes[j] {
                    b'"' => {
                        return Some(Literal {
                            end: j + 1,
                            closed: true,
                            fence: None,
                        })
                    }
                    b'\\' if bytes.get(j + 1).is_some_and(|&b| b != b'\n') => j += 2,
                    _ => j += 1,
                }
            }
            Some(Literal {
                end: j.min(bytes.len()),
                closed: false,
                fence: None,
            })
        }
        b'r' if i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') => {
            let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
            if bytes.get(i + 1 + hashes) != Some(&b'"') {
                return None;
            }
            let body = i + hashes + 2;
            let end = line_end(body);
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let found = source[body..end].find(&close);
            Some(Literal {
                end: found.map_or(end, |n| body + n + close.len()),
                closed: found.is_some(),
                fence: Some(hashes),
            })
        }
        _ => None,
    }
}

/// Turns pairs into AST nodes, one function per construct.
struct Lower {
    errors: Vec<Diagnostic>,
    /// Where the parsed text starts in the source (pieces are parsed on their own in recovery).
    base: usize,
}

impl Lower {
    /// The span of a pair in the whole source.
    fn span_of(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        Span::new(s.start() + self.base, s.end() + self.base)
    }

    fn tool_def(&mut self, pair: Pair<Rule>) -> ToolDef {
        let span = self.span_of(&pair);
        let mut doc = None;
        let mut attrs = Vec::new();
        let mut name = None;
        let mut output = None;
        let mut params = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => doc = self.docs(p),
                Rule::attribute => attrs.push(self.attribute(p)),
                Rule::ident | Rule::string => name = Some(self.name(p)),
                Rule::output => {
                    if let Some(t) = p.into_inner().next() {
                        output = Some(self.type_expr(t, 0));
                    }
                }
                Rule::object_body => params = Some(self.object_body(p, 0)),
                _ => {}
            }
        }
        ToolDef {
            doc,
            attrs,
            name: name.unwrap_or_else(|| missing_name(span)),
            output,
            params: params.unwrap_or(ObjectBody {
                fields: Vec::new(),
                open: None,
                rest: None,
                span,
            }),
            span,
        }
    }

    fn type_def(&mut self, pair: Pair<Rule>) -> TypeDef {
        let span = self.span_of(&pair);
        let mut doc = None;
        let mut attrs = Vec::new();
        let mut name = None;
        let mut body = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => doc = self.docs(p),
                Rule::attribute => attrs.push(self.attribute(p)),
                Rule::ident => name = Some(self.name(p)),
                Rule::object_body => {
                    let s = self.span_of(&p);
                    body = Some(TypeExpr {
                        kind: TypeKind::Object(self.object_body(p, 0)),
                        span: s,
                    });
                }
                Rule::type_expr => body = Some(self.type_expr(p, 0)),
                _ => {}
            }
        }
        TypeDef {
            doc,
            attrs,
            name: name.unwrap_or_else(|| missing_name(span)),
            body: body.unwrap_or(TypeExpr {
                kind: TypeKind::Named(missing_name(span)),
                span,
            }),
            span,
        }
    }

    fn import_def(&mut self, pair: Pair<Rule>) -> ImportDef {
        let span = self.span_of(&pair);
        let mut names = Vec::new();
        let mut path = String::new();
        let mut path_span = span;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => names.push(self.name(p)),
                Rule::string => {
                    path_span = self.span_of(&p);
                    path = self.string(&p);
                }
                _ => {}
            }
        }
        ImportDef {
            names,
            path,
            path_span,
            span,
        }
    }

    fn enum_def(&mut self, pair: Pair<Rule>) -> EnumDef {
        let span = self.span_of(&pair);
        let mut doc = None;
        let mut attrs = Vec::new();
        let mut name = None;
        let mut members = Vec::new();
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => doc = self.docs(p),
                Rule::attribute => attrs.push(self.attribute(p)),
                Rule::ident => name = Some(self.name(p)),
                Rule::enum_member => members.push(self.enum_member(p)),
                _ => {}
            }
        }
        EnumDef {
            doc,
            attrs,
            name: name.unwrap_or_else(|| missing_name(span)),
            members,
            span,
        }
    }

    fn enum_member(&mut self, pair: Pair<Rule>) -> EnumMember {
        let span = self.span_of(&pair);
        let mut doc = None;
        let mut value = EnumValue::Ident(String::new());
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => doc = self.docs(p),
                Rule::ident => value = EnumValue::Ident(p.as_str().to_string()),
                Rule::integer => value = EnumValue::Integer(p.as_str().to_string()),
                Rule::string => value = EnumValue::String(self.string(&p)),
                _ => {}
            }
        }
        EnumMember { doc, value, span }
    }

    /// The `///` lines of a `docs` pair (an atomic token: its text is split here, which is cheaper
    /// than a pair per line). The span runs from the first `///` to the end of the last line.
    fn docs(&mut self, pair: Pair<Rule>) -> Option<Doc> {
        let start = pair.as_span().start();
        let mut span: Option<Span> = None;
        let mut text = String::new();
        let mut offset = start;
        for segment in pair.as_str().split('\n') {
            let line_start = offset;
            offset += segment.len() + 1;
            let trimmed = segment.trim_start_matches([' ', '\t', '\r']);
            let Some(line) = trimmed.strip_prefix("///") else {
                continue;
            };
            let from = line_start + (segment.len() - trimmed.len());
            let s = Span::new(from, line_start + segment.len());
            span = Some(span.map_or(s, |all| all.to(s)));
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(line.strip_prefix(' ').unwrap_or(line).trim_end());
        }
        let trimmed = text.trim();
        if trimmed.len() != text.len() {
            text = trimmed.to_string();
        }
        Some(Doc { text, span: span? })
    }

    fn attribute(&mut self, pair: Pair<Rule>) -> Attribute {
        let span = self.span_of(&pair);
        let mut name = missing_name(span);
        let mut args = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::ident => name = self.name(p),
                Rule::attr_args => {
                    args = Some(p.into_inner().map(|a| self.attr_arg(a)).collect());
                }
                _ => {}
            }
        }
        Attribute { name, args, span }
    }

    fn attr_arg(&mut self, pair: Pair<Rule>) -> AttrArg {
        let span = self.span_of(&pair);
        let mut name = None;
        let mut value = None;
        let mut inner = pair.into_inner().peekable();
        while let Some(p) = inner.next() {
            // Two parts: the first is the name (`name: value`, `"a-b": value`).
            let named = inner.peek().is_some();
            match p.as_rule() {
                Rule::ident | Rule::string if named => name = Some(self.name(p)),
                Rule::word => value = Some(AttrValue::Word(self.name(p))),
                Rule::word_list => value = Some(self.word_list(p)),
                _ => value = Some(AttrValue::Value(self.value(p))),
            }
        }
        AttrArg {
            name,
            value: value.unwrap_or(AttrValue::Value(Value {
                kind: ValueKind::Null,
                span,
            })),
            span,
        }
    }

    fn word_list(&mut self, pair: Pair<Rule>) -> AttrValue {
        let span = self.span_of(&pair);
        let items = pair
            .into_inner()
            .map(|p| match p.as_rule() {
                Rule::word => AttrValue::Word(self.name(p)),
                _ => AttrValue::Value(self.value(p)),
            })
            .collect();
        AttrValue::List { items, span }
    }

    fn object_body(&mut self, pair: Pair<Rule>, depth: usize) -> ObjectBody {
        let span = self.span_of(&pair);
        let mut fields = Vec::new();
        let mut open = None;
        let mut rest = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::field => fields.push(self.field(p, depth)),
                Rule::open_marker => {
                    open = Some(self.span_of(&p));
                    if let Some(t) = p.into_inner().find(|t| t.as_rule() == Rule::type_expr) {
                        rest = Some(Box::new(self.type_expr(t, depth + 1)));
                    }
                }
                _ => {}
            }
        }
        ObjectBody {
            fields,
            open,
            rest,
            span,
        }
    }

    fn tuple_type(&mut self, pair: Pair<Rule>, depth: usize) -> TupleExpr {
        let span = self.span_of(&pair);
        let mut items = Vec::new();
        let mut open = None;
        let mut rest = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::tuple_item => {
                    let item_span = self.span_of(&p);
                    let mut ty = None;
                    let mut optional = false;
                    for q in p.into_inner() {
                        match q.as_rule() {
                            Rule::type_expr => ty = Some(self.type_expr(q, depth)),
                            Rule::optional_mark => optional = true,
                            _ => {}
                        }
                    }
                    items.push(TupleItem {
                        ty: ty.unwrap_or_else(|| placeholder(item_span)),
                        optional,
                        span: item_span,
                    });
                }
                Rule::open_marker => {
                    open = Some(self.span_of(&p));
                    if let Some(t) = p.into_inner().find(|t| t.as_rule() == Rule::type_expr) {
                        rest = Some(Box::new(self.type_expr(t, depth + 1)));
                    }
                }
                _ => {}
            }
        }
        TupleExpr {
            items,
            open,
            rest,
            span,
        }
    }

    fn field(&mut self, pair: Pair<Rule>, depth: usize) -> Field {
        let span = self.span_of(&pair);
        let mut doc = None;
        let mut name = missing_name(span);
        let mut optional = false;
        let mut ty = None;
        let mut annotations = Vec::new();
        let mut default = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::docs => doc = self.docs(p),
                Rule::ident | Rule::string => name = self.name(p),
                Rule::optional_mark => optional = true,
                Rule::type_expr => ty = Some(self.type_expr(p, depth)),
                Rule::attribute => annotations.push(self.attribute(p)),
                Rule::default => {
                    if let Some(v) = p.into_inner().next() {
                        default = Some(self.value(v));
                    }
                }
                _ => {}
            }
        }
        Field {
            doc,
            name,
            optional,
            ty: ty.unwrap_or(TypeExpr {
                kind: TypeKind::Named(missing_name(span)),
                span,
            }),
            annotations,
            default,
            span,
        }
    }

    fn type_expr(&mut self, pair: Pair<Rule>, depth: usize) -> TypeExpr {
        let span = self.span_of(&pair);
        let mut members = pair
            .into_inner()
            .filter(|p| p.as_rule() == Rule::postfix_type);
        let Some(first) = members.next() else {
            return placeholder(span);
        };
        let first = self.postfix_type(first, depth);
        // Most types are a single member: no list to build.
        let Some(second) = members.next() else {
            return first;
        };
        let mut all = vec![first];
        all.push(self.postfix_type(second, depth));
        for p in members {
            all.push(self.postfix_type(p, depth));
        }
        // The pair's own span runs on over the blanks after the last member.
        let span = all[0].span.to(all[all.len() - 1].span);
        TypeExpr {
            kind: TypeKind::Union(all),
            span,
        }
    }

    fn postfix_type(&mut self, pair: Pair<Rule>, mut depth: usize) -> TypeExpr {
        let mut inner = pair.into_inner();
        let Some(first) = inner.next() else {
            return placeholder(Span::default());
        };
        let mut ty = self.primary_type(first, depth);
        for op in inner {
            let op_span = self.span_of(&op);
            let span = ty.span.to(op_span);
            match op.as_rule() {
                Rule::array_suffix => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        self.errors.push(
                            Diagnostic::error(
                                Code::NestingTooDeep,
                                op_span,
                                format!("types nest deeper than {MAX_NESTING} levels"),
                            )
                            .with_label("too deep"),
                        );
                        return placeholder(span);
                    }
                    ty = TypeExpr {
                        kind: TypeKind::Array(Box::new(ty)),
                        span,
                    };
                }
                _ => {
                    let attr = self.attribute(op);
                    ty = match ty.kind {
                        TypeKind::Constrained(inner, mut attrs) => {
                            attrs.push(attr);
                            TypeExpr {
                                kind: TypeKind::Constrained(inner, attrs),
                                span,
                            }
                        }
                        kind => TypeExpr {
                            kind: TypeKind::Constrained(
                                Box::new(TypeExpr {
                                    kind,
                                    span: ty.span,
                                }),
                                vec![attr],
                            ),
                            span,
                        },
                    };
                }
            }
        }
        ty
    }

    fn primary_type(&mut self, pair: Pair<Rule>, depth: usize) -> TypeExpr {
        let span = self.span_of(&pair);
        let kind = match pair.as_rule() {
            Rule::paren_type => match pair.into_inner().next() {
                Some(t) => return self.type_expr(t, depth + 1),
                None => return placeholder(span),
            },
            Rule::object_body => TypeKind::Object(self.object_body(pair, depth + 1)),
            Rule::tuple_type => TypeKind::Tuple(self.tuple_type(pair, depth + 1)),
            Rule::literal_type => match pair.into_inner().next() {
                Some(v) => TypeKind::Literal(self.value(v)),
                None => return placeholder(span),
            },
            Rule::named_type => return self.named_type(pair, depth),
            _ => return placeholder(span),
        };
        TypeExpr { kind, span }
    }

    /// A name, `true`/`false`, or `map<T>`.
    fn named_type(&mut self, pair: Pair<Rule>, depth: usize) -> TypeExpr {
        let mut inner = pair.into_inner();
        let Some(ident) = inner.next() else {
            return placeholder(Span::default());
        };
        let name = self.name(ident);
        // The pair's own span runs on over the blanks after the name.
        let mut span = name.span;
        let args = inner.next().and_then(|a| {
            span = span.to(self.span_of(&a));
            a.into_inner().next()
        });
        let args = args.map(|t| self.type_expr(t, depth + 1));
        let kind = match (name.text.as_str(), args) {
            ("map", Some(values)) => TypeKind::Map(Box::new(values)),
            ("true" | "false", None) => TypeKind::Literal(Value {
                kind: ValueKind::Bool(name.text == "true"),
                span,
            }),
            (_, None) => TypeKind::Named(name),
            (_, Some(_)) => {
                self.errors.push(
                    Diagnostic::error(
                        Code::Syntax,
                        span,
                        format!("`{}` does not take a type argument", name.text),
                    )
                    .with_label("unexpected `<...>`")
                    .with_help("only `map<T>` takes a type argument; for a list write `T[]`"),
                );
                TypeKind::Named(name)
            }
        };
        TypeExpr { kind, span }
    }

    fn value(&mut self, pair: Pair<Rule>) -> Value {
        let span = self.span_of(&pair);
        let kind = match pair.as_rule() {
            Rule::kw_null => ValueKind::Null,
            Rule::kw_true => ValueKind::Bool(true),
            Rule::kw_false => ValueKind::Bool(false),
            Rule::number | Rule::integer => ValueKind::Number(pair.as_str().to_string()),
            Rule::string => ValueKind::String(self.string(&pair)),
            Rule::array_value => {
                ValueKind::Array(pair.into_inner().map(|v| self.value(v)).collect())
            }
            Rule::object_value => ValueKind::Object(
                pair.into_inner()
                    .filter_map(|entry| {
                        let mut parts = entry.into_inner();
                        let key = parts.next()?;
                        let value = parts.next()?;
                        Some((self.name(key), self.value(value)))
                    })
                    .collect(),
            ),
            _ => ValueKind::Null,
        };
        Value { kind, span }
    }

    fn name(&mut self, pair: Pair<Rule>) -> Name {
        let span = self.span_of(&pair);
        if pair.as_rule() == Rule::string {
            Name {
                text: self.string(&pair),
                quoted: true,
                span,
            }
        } else {
            Name {
                text: pair.as_str().to_string(),
                quoted: false,
                span,
            }
        }
    }

    /// Unescapes a string literal (its pair includes the quotes) with serde_json, whose escapes
    /// are ours; a raw string is its text between the quotes.
    fn string(&mut self, pair: &Pair<Rule>) -> String {
        let text = pair.as_str();
        if let Some(raw) = text.strip_prefix('r') {
            let hashes = raw.len() - raw.trim_start_matches('#').len();
            let inner = raw.get(hashes + 1..raw.len() - hashes - 1).unwrap_or("");
            if let Some(c) = inner.chars().find(|&c| c.is_control() && c != '\t') {
                self.errors.push(
                    Diagnostic::error(
                        Code::Syntax,
                        self.span_of(pair),
                        format!(
                            "a raw string cannot hold the control character U+{:04X}",
                            c as u32
                        ),
                    )
                    .with_label("control character")
                    .with_help("write it as an escape in an ordinary string, e.g. \"\\u0007\""),
                );
            }
            return inner.to_string();
        }
        // The common case, no escape and no control character, needs no decoding.
        if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
            if !inner.bytes().any(|b| b == b'\\' || b < 0x20) {
                return inner.to_string();
            }
        }
        match serde_json::from_str::<String>(text) {
            Ok(s) => s,
            Err(e) => {
                let (label, help) = string_problem(&e);
                self.errors.push(
                    Diagnostic::error(
                        Code::Syntax,
                        self.span_of(pair),
                        format!("invalid string literal: {}", strip_position(&e.to_string())),
                    )
                    .with_label(label)
                    .with_help(help),
                );
                String::new()
            }
        }
    }
}

/// The label and the help for a string literal serde_json refused.
fn string_problem(e: &serde_json::Error) -> (&'static str, &'static str) {
    let message = e.to_string();
    if message.contains("surrogate") || message.contains("hex escape") {
        (
            "invalid `\\u` escape",
            "a `\\u` escape takes four hex digits, and a surrogate must be followed by its pair, \
             e.g. \"\\ud83d\\ude00\"",
        )
    } else if message.contains("control character") {
        (
            "control character",
            "write a tab as `\\t`; other control characters as `\\u` escapes, e.g. `\\u0007`",
        )
    } else {
        (
            "invalid escape",
            "a backslash starts an escape (`\\n`, `\\\"`, `\\\\`, `\\u00e9`); for a backslash itself, \
             double it (\"^\\\\d+$\") or write a raw string (r\"^\\d+$\"), as patterns usually are",
        )
    }
}

fn strip_position(message: &str) -> &str {
    message.split(" at line ").next().unwrap_or(message)
}

fn missing_name(span: Span) -> Name {
    Name {
        text: String::new(),
        quoted: false,
        span,
    }
}

fn placeholder(span: Span) -> TypeExpr {
    TypeExpr {
        kind: TypeKind::Named(Name {
            text: "any".into(),
            quoted: false,
            span,
        }),
        span,
    }
}

/// A human description of what a grammar rule stands for, used to reword pest's errors.
pub(crate) fn describe_rule(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::WHITESPACE | Rule::COMMENT => "a blank or comment",
        Rule::file => "a `tool`, `type` or `enum` definition or an `import`",
        Rule::item => "`tool`, `type`, `enum` or `import`",
        Rule::docs | Rule::doc_line | Rule::doc_text => "a `///` doc comment",
        Rule::attribute | Rule::constraint => "an attribute such as `@min(1)`",
        Rule::annotation_name => "`@deprecated` or `@example`",
        Rule::attr_args => "attribute arguments in parentheses",
        Rule::attr_arg => "an attribute argument",
        Rule::attr_value => "an attribute argument",
        Rule::word => "a word such as `raise`",
        Rule::word_list | Rule::list_word => "a list such as `[amount, currency]`",
        Rule::enum_def => "an enum definition",
        Rule::enum_member | Rule::enum_value => "an enum value (a name, string or integer)",
        Rule::type_def => "a type definition",
        Rule::tool_def => "a tool definition",
        Rule::tool_name => "a tool name",
        Rule::output => "`-> Type`",
        Rule::object_body => "`{`",
        Rule::open_marker => "`...`",
        Rule::field => "a field such as `city: string`",
        Rule::field_name => "a field name",
        Rule::optional_mark => "`?`",
        Rule::default => "`= default`",
        Rule::type_expr
        | Rule::postfix_type
        | Rule::primary_type
        | Rule::paren_type
        | Rule::named_type => "a type such as `string` or `integer[]`",
        Rule::array_suffix => "`[]`",
        Rule::tuple_type | Rule::tuple_members => "a tuple type such as `[string, integer]`",
        Rule::tuple_item => "a tuple item such as `string` or `integer?`",
        Rule::type_args => "`<T>`",
        Rule::literal_type => "a literal type such as `\"a\"` or `3`",
        Rule::value => "a value (string, number, `true`, `false`, `null`, array or object)",
        Rule::object_value => "an object value `{ ... }`",
        Rule::object_entry => "a key and value such as `\"key\": 1`",
        Rule::array_value => "an array value `[ ... ]`",
        Rule::string | Rule::string_inner => "a string in double quotes",
        Rule::raw_string | Rule::raw_inner | Rule::raw_start => "a raw string such as r\"^\\d+$\"",
        Rule::number => "a number",
        Rule::integer => "an integer",
        Rule::ident | Rule::ident_char => "a name",
        Rule::kw_enum => "`enum`",
        Rule::kw_type => "`type`",
        Rule::kw_tool => "`tool`",
        Rule::kw_import => "`import`",
        Rule::kw_from => "`from` and the path in quotes",
        Rule::import_def => "an import such as `import { Address } from \"./common.tool\"`",
        Rule::kw_true => "`true`",
        Rule::kw_false => "`false`",
        Rule::kw_null => "`null`",
    }
}

/// A string (`"…` or a raw `r#"…`) that opens at `pos` and is not closed on its line: the
/// error names the missing end rather than what the grammar expected instead of the string.
fn unclosed_string(source: &str, pos: usize) -> Option<Diagnostic> {
    let literal = string_at(source, pos)?;
    if literal.closed {
        return None;
    }
    let close = format!("\"{}", "#".repeat(literal.fence.unwrap_or(0)));
    let end = if source[..literal.end].ends_with('\r') {
        literal.end - 1
    } else {
        literal.end
    };
    Some(
        Diagnostic::error(
            Code::Syntax,
            Span::new(pos, end),
            "this string is not closed before the end of the line",
        )
        .with_label(format!("no closing `{close}`"))
        .with_help(format!(
            "end it with `{close}` on the same line; a string cannot span lines (write `\\n` in an \
             ordinary string for a line break)"
        )),
    )
}

fn syntax_error(source: &str, err: &pest::error::Error<Rule>) -> Diagnostic {
    let mut pos = match err.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let mut expected: Vec<String> = Vec::new();
    // Pest places rule failures where the rule started; the farthest token tried is where the
    // text really went wrong (`a: string[ }` fails at `}`, not at `[`).
    let rule_pos = pos;
    let mut farther = false;
    if let Some((at, tokens)) = expected::farthest_tokens(source) {
        if at > pos {
            farther = true;
            pos = at;
        }
        if farther || at == pos {
            expected.extend(tokens.iter().map(|t| format!("`{t}`")));
        }
    }
    if farther && expected.is_empty() {
        // No token worth naming at the farthest point: report where the rule failed instead.
        farther = false;
        pos = rule_pos;
    }
    if let pest::error::ErrorVariant::ParsingError { positives, .. } = &err.variant {
        for rule in positives {
            // Rules that are one token are already named by the token.
            let token_like = matches!(
                rule,
                Rule::default
                    | Rule::type_args
                    | Rule::array_suffix
                    | Rule::open_marker
                    | Rule::optional_mark
                    | Rule::output
            );
            let blank = matches!(
                rule,
                Rule::WHITESPACE | Rule::COMMENT | Rule::docs | Rule::doc_line
            );
            if farther || token_like || blank {
                continue;
            }
            let d = describe_rule(*rule).to_string();
            if !expected.contains(&d) {
                expected.push(d);
            }
        }
    }
    // A string left open where the failed rule started, or where the text went wrong, is the
    // problem (a raw string's `r` otherwise reads as a word that wants `)` after it).
    if let Some(d) = unclosed_string(source, rule_pos).or_else(|| unclosed_string(source, pos)) {
        return d;
    }
    let found = found_at(source, pos);
    let end = (pos + found.len().max(1)).min(source.len()).max(pos);
    let expected_text = match expected.as_slice() {
        [] => "something else".to_string(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    };
    let shown = if found.is_empty() {
        "end of file".to_string()
    } else {
        format!("`{found}`")
    };
    let mut d = Diagnostic::error(
        Code::Syntax,
        Span::new(pos, end),
        format!("expected {expected_text}, found {shown}"),
    )
    .with_label(format!("expected {expected_text}"));
    let before = source[..pos.min(source.len())].trim_end();
    let last_line = before.rsplit('\n').next().unwrap_or("").trim_start();
    if found.starts_with("///") || last_line.contains("///") {
        d = d.with_help("a `///` doc comment must come right before a tool, type, enum, field or enum value; use `//` for other comments");
    } else if found == "<" {
        d = d
            .with_help("write `map<T>` with no blank before `<`; only `map` takes a type argument");
    } else if found == "," || found == ";" {
        d = d
            .with_help("fields and enum values are separated by line breaks (a comma is optional)");
    }
    d
}

/// The token at `pos`: a word, a `///`, or one character; empty at the end.
fn found_at(source: &str, pos: usize) -> &str {
    let rest = source.get(pos..).unwrap_or("");
    if rest.starts_with("///") {
        return "///";
    }
    let Some(first) = rest.chars().next() else {
        return "";
    };
    if first.is_alphanumeric() || first == '_' {
        let len = rest
            .char_indices()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
            .map_or(rest.len(), |(i, _)| i);
        &rest[..len]
    } else {
        &rest[..first.len_utf8()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(source: &str) -> ToolDef {
        match parse(source).map(|f| f.items.into_iter().next()) {
            Ok(Some(Item::Tool(t))) => t,
            other => panic!("not one tool: {other:?}"),
        }
    }

    #[test]
    fn doc_lines_are_joined_trimmed_and_spanned() {
        let source = "/// First line.  \r\n   ///second\r\n\n\t///\n///  third\r\ntool t {}";
        let t = tool(source);
        let doc = t.doc.expect("a doc");
        // One leading blank is dropped, trailing blanks and the CR are trimmed, an empty doc line
        // stays an empty line; blank lines between doc lines are not doc lines.
        assert_eq!(doc.text, "First line.\nsecond\n\n third");
        assert_eq!(doc.span.start, 0);
        let last = source.find("///  third").unwrap();
        // The span ends at the end of the last line (its CR included, as a line's text is).
        assert_eq!(doc.span.end, last + "///  third\r".len());
    }

    #[test]
    fn doc_of_blanks_only_is_empty_text() {
        let t = tool("///\n///   \ntool t {}");
        assert_eq!(t.doc.map(|d| d.text), Some(String::new()));
    }

    #[test]
    fn four_slashes_are_a_comment_not_a_doc() {
        let t = tool("//// not a doc\n/// Doc.\n//// also not\ntool t {}");
        assert_eq!(t.doc.map(|d| d.text), Some("Doc.".to_string()));
    }

    #[test]
    fn strings_decode_escapes_and_reject_raw_control_characters() {
        let t = tool("tool \"a\\u00e9\\n\" { \"plain name\": string }");
        assert_eq!(t.name.text, "a\u{e9}\n");
        assert_eq!(t.params.fields[0].name.text, "plain name");
        let errors = parse("tool t { \"a\tb\": string }").unwrap_err();
        assert_eq!(errors[0].code, Code::Syntax);
        assert!(errors[0].message.contains("invalid string literal"));
    }

    #[test]
    fn raw_strings_have_no_escapes_and_end_at_their_fence() {
        let t = tool(concat!(
            "tool r\"raw name\" {\n",
            "  a: string @pattern(r\"^\\d+\\.\\d+$\")\n",
            "  b?: string @pattern(r#\"say \"hi\"\"#) = r##\"a\"#b\"##\n",
            "  r\"c d\": \"x\" | r\"\\\"\n",
            "  r: string\n",
            "  rate: r\n",
            "}"
        ));
        assert_eq!(t.name.text, "raw name");
        let f = &t.params.fields;
        let pattern = |i: usize| match &f[i].ty.kind {
            TypeKind::Constrained(_, attrs) => match &attrs[0].args.as_ref().unwrap()[0].value {
                AttrValue::Value(Value {
                    kind: ValueKind::String(s),
                    ..
                }) => s.clone(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        };
        assert_eq!(pattern(0), "^\\d+\\.\\d+$");
        assert_eq!(pattern(1), "say \"hi\"");
        let default = f[1].default.as_ref().map(|d| &d.kind);
        assert_eq!(default, Some(&ValueKind::String("a\"#b".into())));
        assert_eq!(f[2].name.text, "c d");
        // `r` alone, or starting a longer name, is still a name.
        assert_eq!(f[3].name.text, "r");
        assert!(matches!(&f[4].ty.kind, TypeKind::Named(n) if n.text == "r"));
    }

    #[test]
    fn raw_strings_end_at_the_line_and_refuse_control_characters() {
        assert!(parse("tool t { a: string @pattern(r\"abc\n\") }").is_err());
        assert!(parse("tool t { a: string @pattern(r#\"abc\") }").is_err());
        let errors = parse("tool t { a: string @pattern(r\"a\u{7}b\") }").unwrap_err();
        assert!(
            errors[0].message.contains("control character U+0007"),
            "{}",
            errors[0].message
        );
    }

    #[test]
    fn an_unclosed_string_names_its_missing_end() {
        for (source, opener, close) in [
            (
                "tool t {\n  a: string @pattern(r#\"abc\")\n}\n",
                "r#\"",
                "`\"#`",
            ),
            (
                "tool t {\n  a: string @pattern(\"abc)\n}\n",
                "\"abc",
                "`\"`",
            ),
            ("tool t {\n  a?: string = \"a\\\"\n}\n", "\"a", "`\"`"),
        ] {
            let errors = parse(source).unwrap_err();
            assert!(
                errors[0].message.contains("not closed"),
                "{source}: {}",
                errors[0].message
            );
            assert!(
                errors[0].label.contains(close),
                "{source}: {}",
                errors[0].label
            );
            assert_eq!(
                errors[0].span.start,
                source.find(opener).unwrap_or(0),
                "{source}"
            );
        }
    }

    #[test]
    fn items_start_at_their_keyword_lines_with_the_docs_and_attributes_above() {
        let source = "// head\n/// T.\n@read_only\ntool t {\n  type: string\n  tool ?: x\n}\n  type Indented = string\ntype A = string\nenum E { a }\n";
        let starts = item_starts(source);
        let at = |s: &str| source.find(s).unwrap_or(usize::MAX);
        assert_eq!(starts, [at("/// T."), at("type A"), at("enum E")]);
    }

    #[test]
    fn every_broken_item_is_reported_and_the_others_still_parse() {
        let source = "type A { a: string @min(1 }\n/// Ok.\ntool ok { a: string }\ntool b { x:: string }\ntype C = string\nenum D { \"x }\n";
        let parsed = parse_recovering(source);
        let lines: Vec<usize> = parsed
            .errors
            .iter()
            .map(|d| source[..d.span.start].matches('\n').count() + 1)
            .collect();
        assert_eq!(lines, [1, 4, 6], "{:?}", parsed.errors);
        let names: Vec<&str> = parsed
            .file
            .items
            .iter()
            .filter_map(|i| i.name().map(|n| n.text.as_str()))
            .collect();
        assert_eq!(names, ["ok", "C"]);
        assert_eq!(parsed.broken_names, ["A", "D"]);
        // Spans of the items after a broken one point into the whole source.
        let Item::Type(c) = &parsed.file.items[1] else {
            panic!("not a type")
        };
        assert_eq!(&source[c.name.span.start..c.name.span.end], "C");
    }

    #[test]
    fn an_invalid_escape_says_to_double_the_backslash_or_go_raw() {
        let errors = parse("tool t { a: string @pattern(\"^[0-9]+\\.[0-9]+$\") }").unwrap_err();
        let help = errors[0].help.as_deref().unwrap_or("");
        assert!(
            help.contains("double it") && help.contains("raw string"),
            "{help}"
        );
        assert!(!help.contains("surrogate"), "{help}");
        let errors = parse("tool t { a: string = \"\\ud83d\" }").unwrap_err();
        let help = errors[0].help.as_deref().unwrap_or("");
        assert!(help.contains("surrogate"), "{help}");
    }

    #[test]
    fn unions_keep_their_members_and_span() {
        let t = tool("tool t { a: string | integer[] | null  }");
        let ty = &t.params.fields[0].ty;
        match &ty.kind {
            TypeKind::Union(members) => assert_eq!(members.len(), 3),
            other => panic!("not a union: {other:?}"),
        }
        let source = "tool t { a: string | integer[] | null  }";
        assert_eq!(
            &source[ty.span.start..ty.span.end],
            "string | integer[] | null"
        );
    }
}
