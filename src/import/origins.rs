//! Where each printed part of an imported module came from: the side table that turns the
//! checker's diagnostics on the printed source back into JSON pointers into the input.
//!
//! The importer builds a model, and the model is printed and compiled by the real checker, so
//! each rule of the language is stated once, in the checker. While it builds the model, the
//! importer records the JSON pointer of each tool, named type, field, constraint and enum value
//! it reads. Tools and named types are known by their index; fields and constraints carry a tag in
//! their span (the model's spans are free until the model is compiled from a source), which the
//! model printer keeps in the syntax tree it prints. The printed source is parsed again, and the
//! two syntax trees, which differ only in their spans, are walked side by side: each tagged node
//! of one gives the printed span of the same node in the other. A diagnostic then belongs to the
//! innermost recorded part whose printed span holds it.
//!
//! Everything here is linear in the size of the module: one entry per recorded part, one walk,
//! and one sweep over the parts sorted by where they start.

use serde_json::Value;

use crate::ast::{self, Item, TypeKind};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::model::{Field, Module, Ty};

/// Where a tool came from.
#[derive(Clone, Debug, Default)]
pub(crate) struct ToolOrigin {
    /// The tool's JSON pointer.
    pub pointer: String,
    /// The pointer of its name; `None` when the importer made the name up (a bare schema's
    /// tool), which may then be repaired.
    pub name: Option<String>,
    /// The pointer of its description, when the input gave one.
    pub description: Option<String>,
    /// The pointer of its title, when the input gave one.
    pub title: Option<String>,
    /// The pointer of its parameter schema.
    pub params: String,
    /// The pointer of its output schema.
    pub output: Option<String>,
}

/// Where a named type came from.
#[derive(Clone, Debug, Default)]
pub(crate) struct TypeOrigin {
    /// The schema's pointer.
    pub pointer: String,
    /// The pointers of the values of an enum, in the model's order.
    pub members: Vec<String>,
}

/// Where a field came from.
#[derive(Clone, Debug, Default)]
pub(crate) struct FieldOrigin {
    /// The property's pointer.
    pub pointer: String,
    /// The pointers of the examples the field holds, in order.
    pub examples: Vec<String>,
    /// The pointers of the values of the field's enum, in the model's order.
    pub members: Vec<String>,
}

/// A tagged part of the model.
#[derive(Clone, Debug)]
enum Tagged {
    Field(FieldOrigin),
    /// A constraint, or a rule across keys: the pointer of its keyword.
    Keyword(String),
}

/// The side table of one import.
#[derive(Clone, Debug, Default)]
pub(crate) struct Origins {
    pub tools: Vec<ToolOrigin>,
    pub types: Vec<TypeOrigin>,
    tagged: Vec<Tagged>,
}

/// The span that tags the `i`-th tagged part: never the default span, which untagged parts
/// keep.
fn tag_span(i: usize) -> Span {
    Span::new(i + 1, i + 1)
}

fn tag_index(span: Span) -> Option<usize> {
    (span.start == span.end && span.start > 0).then(|| span.start - 1)
}

impl Origins {
    /// Records a field; its model span is the returned tag.
    pub(crate) fn field(&mut self, origin: FieldOrigin) -> Span {
        self.tagged.push(Tagged::Field(origin));
        tag_span(self.tagged.len() - 1)
    }

    /// Records a keyword (a constraint, a rule across keys); its model span is the returned tag.
    pub(crate) fn keyword(&mut self, pointer: String) -> Span {
        self.tagged.push(Tagged::Keyword(pointer));
        tag_span(self.tagged.len() - 1)
    }

    fn field_at(&self, span: Span) -> Option<(usize, &FieldOrigin)> {
        let i = tag_index(span)?;
        match self.tagged.get(i)? {
            Tagged::Field(f) => Some((i, f)),
            Tagged::Keyword(_) => None,
        }
    }

    fn keyword_at(&self, span: Span) -> Option<&str> {
        match self.tagged.get(tag_index(span)?)? {
            Tagged::Keyword(p) => Some(p),
            Tagged::Field(_) => None,
        }
    }
}

/// What a printed part is, for the repairs the importer makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// A tool, its parameters, its output.
    Tool(usize),
    /// The name of a tool.
    ToolName(usize),
    /// A description, a title, a type, an enum value, a constraint: nothing to repair.
    Other,
    /// A field (its tag).
    Field(usize),
    /// A field's default (the field's tag).
    Default(usize),
    /// A field's example (the field's tag, the example's index).
    Example(usize, usize),
}

/// One recorded part: where it was printed, its pointer, and what it is.
#[derive(Clone, Debug)]
struct Entry {
    span: Span,
    pointer: String,
    part: Part,
    /// For a tool's name: the pointer of the tool, which diagnostics about the whole tool
    /// (reported at its name) point at.
    whole: Option<String>,
}

/// The printed parts, in the order they start.
pub(crate) struct Table {
    entries: Vec<Entry>,
}

/// Where a diagnostic came from in the input.
pub(crate) struct Place<'t> {
    pub pointer: &'t str,
    pub part: Part,
}

impl Table {
    /// Walks the syntax tree the model was printed from (`built`, with its tags) beside the
    /// tree parsed back from the print (`printed`, with real spans).
    pub(crate) fn new(built: &ast::File, printed: &ast::File, origins: &Origins) -> Table {
        let mut w = Walk {
            origins,
            entries: Vec::new(),
        };
        let (mut tools, mut types) = (0, 0);
        // An item whose print did not parse (it nested too deeply) is missing from the printed
        // tree: the items are paired by kind and name, and a lost item is known by the gap
        // between the printed items around it.
        let mut next = 0;
        let mut lost: Vec<(String, Part)> = Vec::new();
        for b in &built.items {
            let p = printed.items.get(next).filter(|p| same_item(b, p));
            let (pointer, part) = match b {
                Item::Tool(_) => (
                    origins.tools.get(tools).map(|o| o.pointer.clone()),
                    Part::Tool(tools),
                ),
                _ => (
                    origins.types.get(types).map(|o| o.pointer.clone()),
                    Part::Other,
                ),
            };
            let Some(p) = p else {
                if let Some(pointer) = pointer {
                    lost.push((pointer, part));
                }
                match b {
                    Item::Tool(_) => tools += 1,
                    _ => types += 1,
                }
                continue;
            };
            if !lost.is_empty() {
                let from = next
                    .checked_sub(1)
                    .map_or(0, |i| item_span(&printed.items[i]).end);
                w.lost(
                    std::mem::take(&mut lost),
                    Span::new(from, item_span(p).start),
                );
            }
            next += 1;
            match (b, p) {
                (Item::Tool(b), Item::Tool(p)) => {
                    w.tool(tools, b, p);
                    tools += 1;
                }
                (Item::Type(b), Item::Type(p)) => {
                    if let Some(o) = origins.types.get(types) {
                        w.push(p.span, &o.pointer, Part::Other);
                        w.doc(p.doc.as_ref(), &o.pointer);
                        w.attrs(&b.attrs, &p.attrs);
                        w.top(&b.body, &p.body, &o.pointer, &o.members);
                    }
                    types += 1;
                }
                (Item::Enum(_), Item::Enum(p)) => {
                    if let Some(o) = origins.types.get(types) {
                        w.push(p.span, &o.pointer, Part::Other);
                        w.doc(p.doc.as_ref(), &o.pointer);
                        for (m, ptr) in p.members.iter().zip(&o.members) {
                            w.push(m.span, ptr, Part::Other);
                        }
                    }
                    types += 1;
                }
                _ => {}
            }
        }
        if !lost.is_empty() {
            let from = printed.items.last().map_or(0, |p| item_span(p).end);
            w.lost(lost, Span::new(from, usize::MAX));
        }
        let mut entries = w.entries;
        // Outer parts first where two start together, so that the innermost comes last.
        entries.sort_by_key(|e| (e.span.start, std::cmp::Reverse(e.span.end)));
        Table { entries }
    }

    /// The innermost recorded part that holds each diagnostic's span (`None` outside every
    /// part), in the diagnostics' order. One sweep: the diagnostics in the order they start,
    /// beside the parts in the order they start, with the parts open at that point on a stack
    /// (as deep as the printed source nests).
    pub(crate) fn places<'t>(&'t self, diagnostics: &[Diagnostic]) -> Vec<Option<Place<'t>>> {
        let mut order: Vec<usize> = (0..diagnostics.len()).collect();
        order.sort_by_key(|&i| (diagnostics[i].span.start, diagnostics[i].span.end));
        let mut out: Vec<Option<Place<'t>>> = (0..diagnostics.len()).map(|_| None).collect();
        let mut open: Vec<&Entry> = Vec::new();
        let mut next = 0;
        for i in order {
            let d = &diagnostics[i];
            let span = d.span;
            while let Some(e) = self
                .entries
                .get(next)
                .filter(|e| e.span.start <= span.start)
            {
                while open.last().is_some_and(|o| o.span.end < e.span.start) {
                    open.pop();
                }
                open.push(e);
                next += 1;
            }
            let holder = open
                .iter()
                .rev()
                .find(|e| e.span.start <= span.start && span.end <= e.span.end);
            out[i] = holder.map(|e| {
                let about_the_name = matches!(
                    d.code,
                    Code::InvalidName | Code::DuplicateName | Code::ForbiddenCharacter
                );
                match (&e.whole, e.part) {
                    (Some(whole), Part::ToolName(t)) if !about_the_name => Place {
                        pointer: whole,
                        part: Part::Tool(t),
                    },
                    _ => Place {
                        pointer: &e.pointer,
                        part: e.part,
                    },
                }
            });
        }
        out
    }
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::Tool(t) => t.span,
        Item::Type(t) => t.span,
        Item::Enum(e) => e.span,
        Item::Import(i) => i.span,
    }
}

fn same_item(a: &Item, b: &Item) -> bool {
    match (a, b) {
        (Item::Tool(a), Item::Tool(b)) => a.name.text == b.name.text,
        (Item::Type(a), Item::Type(b)) => a.name.text == b.name.text,
        (Item::Enum(a), Item::Enum(b)) => a.name.text == b.name.text,
        _ => false,
    }
}

struct Walk<'o> {
    origins: &'o Origins,
    entries: Vec<Entry>,
}

impl Walk<'_> {
    fn push(&mut self, span: Span, pointer: &str, part: Part) {
        self.entries.push(Entry {
            span,
            pointer: pointer.to_string(),
            part,
            whole: None,
        });
    }

    /// Items lost from the printed tree, printed in the gap `span`: the gap is theirs when it
    /// is one item's.
    fn lost(&mut self, items: Vec<(String, Part)>, span: Span) {
        if let [(pointer, part)] = items.as_slice() {
            self.push(span, pointer, *part);
        }
    }

    fn doc(&mut self, doc: Option<&ast::Doc>, owner: &str) {
        if let Some(d) = doc {
            self.push(d.span, &format!("{owner}/description"), Part::Other);
        }
    }

    fn tool(&mut self, index: usize, b: &ast::ToolDef, p: &ast::ToolDef) {
        let Some(o) = self.origins.tools.get(index) else {
            return;
        };
        self.push(p.span, &o.pointer, Part::Tool(index));
        self.entries.push(Entry {
            span: p.name.span,
            pointer: o.name.clone().unwrap_or_else(|| o.pointer.clone()),
            part: Part::ToolName(index),
            whole: Some(o.pointer.clone()),
        });
        if let (Some(d), Some(ptr)) = (&p.doc, &o.description) {
            self.push(d.span, ptr, Part::Other);
        }
        if let (Some(a), Some(ptr)) = (p.attrs.iter().find(|a| a.name.text == "title"), &o.title) {
            self.push(a.span, ptr, Part::Other);
        }
        self.attrs(&b.attrs, &p.attrs);
        self.push(p.params.span, &o.params, Part::Tool(index));
        self.body(&b.params, &p.params);
        if let (Some(b), Some(p), Some(ptr)) = (&b.output, &p.output, &o.output) {
            self.push(p.span, ptr, Part::Tool(index));
            self.ty(b, p);
        }
    }

    /// The attributes whose tags name a keyword.
    fn attrs(&mut self, built: &[ast::Attribute], printed: &[ast::Attribute]) {
        for (b, p) in built.iter().zip(printed) {
            if let Some(ptr) = self.origins.keyword_at(b.span) {
                self.push(p.span, ptr, Part::Other);
            }
        }
    }

    /// The type of a field or a named type, whose enum values have pointers of their own.
    fn top(&mut self, b: &ast::TypeExpr, p: &ast::TypeExpr, owner: &str, members: &[String]) {
        if !members.is_empty() {
            if let (TypeKind::Union(_), TypeKind::Union(ps)) = (&b.kind, &p.kind) {
                for (m, ptr) in ps.iter().zip(members) {
                    self.push(m.span, ptr, Part::Other);
                }
            }
        }
        self.push(p.span, owner, Part::Other);
        self.ty(b, p);
    }

    fn body(&mut self, b: &ast::ObjectBody, p: &ast::ObjectBody) {
        for (bf, pf) in b.fields.iter().zip(&p.fields) {
            self.field(bf, pf);
        }
        if let (Some(b), Some(p)) = (&b.rest, &p.rest) {
            self.ty(b, p);
        }
    }

    fn field(&mut self, b: &ast::Field, p: &ast::Field) {
        let Some((tag, o)) = self.origins.field_at(b.span) else {
            // A field the importer did not read from a property (a literal object's): its
            // type may still hold tagged parts.
            self.ty(&b.ty, &p.ty);
            return;
        };
        let ptr = &o.pointer;
        self.push(p.span, ptr, Part::Field(tag));
        self.push(p.name.span, ptr, Part::Field(tag));
        self.doc(p.doc.as_ref(), ptr);
        if let Some(d) = &p.default {
            self.push(d.span, &format!("{ptr}/default"), Part::Default(tag));
        }
        let examples = p.annotations.iter().filter(|a| a.name.text == "example");
        for (i, (a, eptr)) in examples.zip(&o.examples).enumerate() {
            self.push(a.span, eptr, Part::Example(tag, i));
        }
        self.top(&b.ty, &p.ty, ptr, &o.members);
    }

    fn ty(&mut self, b: &ast::TypeExpr, p: &ast::TypeExpr) {
        match (&b.kind, &p.kind) {
            (TypeKind::Array(b), TypeKind::Array(p)) | (TypeKind::Map(b), TypeKind::Map(p)) => {
                self.ty(b, p)
            }
            (TypeKind::Object(b), TypeKind::Object(p)) => self.body(b, p),
            (TypeKind::Tuple(b), TypeKind::Tuple(p)) => {
                for (bi, pi) in b.items.iter().zip(&p.items) {
                    self.ty(&bi.ty, &pi.ty);
                }
                if let (Some(b), Some(p)) = (&b.rest, &p.rest) {
                    self.ty(b, p);
                }
            }
            (TypeKind::Union(b), TypeKind::Union(p)) => {
                for (bm, pm) in b.iter().zip(p) {
                    self.ty(bm, pm);
                }
            }
            (TypeKind::Constrained(b, battrs), TypeKind::Constrained(p, pattrs)) => {
                self.attrs(battrs, pattrs);
                self.ty(b, p);
            }
            _ => {}
        }
    }
}

/// The pointers of the values of an enum read from `schema` at `ptr`, in the order `ty` holds
/// them (the values it kept, in the schema's order): empty when `ty` is not an enum of the
/// schema's `enum`.
pub(crate) fn enum_pointers(ty: &Ty, schema: &Value, ptr: &str) -> Vec<String> {
    let members = match ty {
        Ty::Enum(ms) => ms,
        Ty::Nullable(inner) => match &**inner {
            Ty::Enum(ms) => ms,
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    let Some(Value::Array(list)) = schema.get("enum") else {
        return Vec::new();
    };
    // The kept values are a subsequence of the schema's: one pass finds them all.
    let mut at = 0;
    let mut out = Vec::with_capacity(members.len());
    for m in members {
        while at < list.len() && !crate::validate::json_equal(&list[at], &m.value) {
            at += 1;
        }
        if at < list.len() {
            out.push(format!("{ptr}/enum/{at}"));
            at += 1;
        } else {
            out.push(format!("{ptr}/enum"));
        }
    }
    out
}

/// A repair of the model the importer makes rather than fail: a value it drops, a name it
/// makes valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Repair {
    /// Drop the default of the field with this tag.
    DropDefault(usize),
    /// Drop the example of the field with this tag, at this index.
    DropExample(usize, usize),
    /// Rename the tool at this index.
    RenameTool(usize),
}

impl Origins {
    /// Applies repairs to the model and keeps the table in step (the pointers of the examples
    /// after a dropped one move up).
    pub(crate) fn repair(&mut self, module: &mut Module, repairs: &[Repair]) {
        let mut fields: std::collections::HashMap<usize, Vec<&Repair>> = Default::default();
        for r in repairs {
            match r {
                Repair::DropDefault(t) | Repair::DropExample(t, _) => {
                    fields.entry(*t).or_default().push(r)
                }
                Repair::RenameTool(i) => {
                    if let Some(t) = module.tools.get_mut(*i) {
                        t.name = valid_tool_name(&t.name);
                    }
                }
            }
        }
        if fields.is_empty() {
            return;
        }
        let mut visit = |f: &mut Field| {
            let Some(tag) = tag_index(f.span) else { return };
            let Some(rs) = fields.get(&tag) else { return };
            let mut dropped: Vec<usize> = Vec::new();
            for r in rs {
                match r {
                    Repair::DropDefault(_) => f.default = None,
                    Repair::DropExample(_, i) => dropped.push(*i),
                    Repair::RenameTool(_) => {}
                }
            }
            dropped.sort_unstable();
            dropped.dedup();
            for i in dropped.into_iter().rev() {
                if i < f.examples.len() {
                    f.examples.remove(i);
                    if let Some(Tagged::Field(o)) = self.tagged.get_mut(tag) {
                        if i < o.examples.len() {
                            o.examples.remove(i);
                        }
                    }
                }
            }
        };
        for t in &mut module.tools {
            for f in &mut t.params.fields {
                visit_field(f, &mut visit);
            }
            if let Some(ty) = &mut t.output {
                visit_ty(ty, &mut visit);
            }
            if let crate::model::Additional::Schema(ty) = &mut t.params.additional {
                visit_ty(ty, &mut visit);
            }
        }
        for t in &mut module.types {
            visit_ty(&mut t.ty, &mut visit);
        }
    }
}

fn visit_field(f: &mut Field, visit: &mut dyn FnMut(&mut Field)) {
    visit(f);
    visit_ty(&mut f.ty, visit);
}

/// Every field in `ty`, at any depth (as deep as the importer nests, which it bounds).
fn visit_ty(ty: &mut Ty, visit: &mut dyn FnMut(&mut Field)) {
    use crate::model::Additional;
    match ty {
        Ty::Object(o) => {
            for f in &mut o.fields {
                visit_field(f, visit);
            }
            if let Additional::Schema(t) = &mut o.additional {
                visit_ty(t, visit);
            }
        }
        Ty::Array(a) => visit_ty(&mut a.items, visit),
        Ty::Tuple(t) => {
            for item in &mut t.items {
                visit_ty(item, visit);
            }
            if let Additional::Schema(r) = &mut t.rest {
                visit_ty(r, visit);
            }
        }
        Ty::Nullable(inner) => visit_ty(inner, visit),
        Ty::AnyOf(members) => {
            for m in members {
                visit_ty(m, visit);
            }
        }
        _ => {}
    }
}

/// The name a tool made from a bare schema gets when the checker refuses the one its title gave:
/// every character but an ASCII letter or digit becomes `_`.
pub(crate) fn valid_tool_name(name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if clean.is_empty() {
        "imported".to_string()
    } else {
        clean
    }
}
