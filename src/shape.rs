//! How deep and how large a tool's schema is once named types are inlined: the one rule the
//! checker's limits and the emitters' guard both apply.
//!
//! - A non-recursive named type is inlined at every use, so it counts at every use.
//! - A recursive type is emitted once (under `$defs`) and referenced: a reference counts as one
//!   schema of depth one, and the type's body counts once for each tool that reaches it, with
//!   its own depth (a `$defs` entry is a schema root of its own). So a large body cannot hide
//!   behind a recursive type.
//! - An alias (`type A = B`) counts as a level of depth: every stage that reads the model follows
//!   it, so a chain of ten thousand aliases is ten thousand levels, not none.
//!
//! - The text a schema carries (names, descriptions, defaults, examples, enum values,
//!   patterns) is counted at every copy, as the subschemas are: a long description on a type
//!   inlined thousands of times is copied thousands of times.
//!
//! Named types are measured once each, in dependency order and without recursion through the
//! reference graph, so neither a long alias chain nor a deep chain of types can overflow the
//! stack here.

use serde_json::Value;

use crate::model::{Additional, Field, Module, NamedKind, Tool, Ty, TypeId};

/// The depth, the number of subschemas and the text of a schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Levels of nesting (a scalar is 0; an object holding scalars is 1).
    pub depth: usize,
    /// Subschemas, saturating.
    pub size: u64,
    /// Bytes of text the schema carries (see [`text_of_fields`]), saturating.
    pub text: u64,
}

/// The shapes of a module's named types once inlined (recursive references counted as one).
pub(crate) struct Shapes {
    types: Vec<Shape>,
}

impl Shapes {
    /// Measures every named type of `module`.
    pub(crate) fn of(module: &Module) -> Shapes {
        let n = module.types.len();
        let mut shapes = Shapes {
            types: vec![
                Shape {
                    depth: 0,
                    size: 1,
                    text: 0,
                };
                n
            ],
        };
        // The references of each type to non-recursive types: those must be measured first.
        // They form no cycle (a type in a cycle is recursive), so a post-order visit of this
        // graph measures each type after everything it inlines.
        let deps: Vec<Vec<usize>> = module
            .types
            .iter()
            .map(|t| {
                let mut out = Vec::new();
                refs(&t.ty, &mut out);
                out.retain(|id| module.types.get(id.0).is_some_and(|t| !t.recursive));
                out.into_iter().map(|id| id.0).collect()
            })
            .collect();
        let mut done = vec![false; n];
        let mut on_stack = vec![false; n];
        for root in 0..n {
            if done[root] {
                continue;
            }
            let mut stack = vec![(root, 0usize)];
            on_stack[root] = true;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                match deps[node].get(*next) {
                    Some(&d) => {
                        *next += 1;
                        // `on_stack` guards against a cycle the checker has not rejected yet
                        // (it reports those); a type on the stack is measured as a leaf.
                        if !done[d] && !on_stack[d] {
                            on_stack[d] = true;
                            stack.push((d, 0));
                        }
                    }
                    None => {
                        stack.pop();
                        on_stack[node] = false;
                        done[node] = true;
                        shapes.types[node] = shapes.named(module, node);
                    }
                }
            }
        }
        shapes
    }

    fn named(&self, module: &Module, i: usize) -> Shape {
        let named = &module.types[i];
        let mut body = self.ty(module, &named.ty);
        body.text = body
            .text
            .saturating_add(text_len(named.description.as_deref()));
        match named.kind {
            NamedKind::Alias => Shape {
                depth: body.depth.saturating_add(1),
                ..body
            },
            _ => body,
        }
    }

    /// The shape of a type (its named types as measured).
    pub(crate) fn ty(&self, module: &Module, ty: &Ty) -> Shape {
        let nest = |own_text: u64, items: &mut dyn Iterator<Item = &Ty>| {
            let mut depth = 0;
            let mut size = 1u64;
            let mut text = own_text;
            for t in items {
                let s = self.ty(module, t);
                depth = depth.max(s.depth);
                size = size.saturating_add(s.size);
                text = text.saturating_add(s.text);
            }
            Shape {
                depth: depth.saturating_add(1),
                size,
                text,
            }
        };
        let leaf = |text: u64| Shape {
            depth: 0,
            size: 1,
            text,
        };
        match ty {
            Ty::Ref(id) => match module.types.get(id.0) {
                // A reference names its definition.
                Some(t) if t.recursive => Shape {
                    depth: 1,
                    size: 1,
                    text: t.name.len() as u64,
                },
                Some(_) => self.types[id.0],
                None => Shape {
                    depth: 1,
                    size: 1,
                    text: 0,
                },
            },
            Ty::Array(a) => nest(0, &mut std::iter::once(&a.items)),
            Ty::Tuple(t) => {
                let extra = match &t.rest {
                    Additional::Schema(r) => Some(r),
                    _ => None,
                };
                nest(0, &mut t.items.iter().chain(extra))
            }
            Ty::Object(o) => {
                let extra = match &o.additional {
                    Additional::Schema(t) => Some(t),
                    _ => None,
                };
                let own = text_of_fields(&o.fields);
                nest(own, &mut o.fields.iter().map(|f| &f.ty).chain(extra))
            }
            Ty::Nullable(t) => nest(0, &mut std::iter::once(t.as_ref())),
            Ty::AnyOf(ts) => nest(0, &mut ts.iter()),
            Ty::String(rules) => leaf(rules.pattern.as_ref().map_or(0, |p| p.value.len() as u64)),
            Ty::Const(v) => leaf(value_len(v)),
            Ty::Enum(members) => leaf(members.iter().fold(0u64, |n, m| {
                n.saturating_add(value_len(&m.value))
                    .saturating_add(text_len(m.description.as_deref()))
            })),
            _ => leaf(0),
        }
    }

    /// The shape of a tool's schemas: its parameters and output, and once each the body of
    /// every recursive type they reach (the deepest of these roots, and the sum of sizes).
    pub(crate) fn tool(&self, module: &Module, tool: &Tool) -> Shape {
        let fields = tool.params.fields.iter().map(|f| &f.ty);
        let extra = match &tool.params.additional {
            Additional::Schema(t) => Some(t),
            _ => None,
        };
        let own: Vec<&Ty> = fields.chain(extra).chain(tool.output.as_ref()).collect();
        let mut depth = 0;
        let mut size = 1u64;
        let mut text = 0u64;
        for t in &own {
            let s = self.ty(module, t);
            depth = depth.max(s.depth);
            size = size.saturating_add(s.size);
            text = text.saturating_add(s.text);
        }
        let shape = Shape {
            depth: depth.saturating_add(1),
            size,
            text: text
                .saturating_add(text_of_fields(&tool.params.fields))
                .saturating_add((tool.name.len() + tool.description.len()) as u64),
        };
        self.with_recursive_bodies(module, &own, shape)
    }

    /// The shape of the schemas of a type emitted on its own (a structured output, an editor's
    /// hover): its inlined schema, and once each the body of every recursive type it reaches.
    pub(crate) fn root(&self, module: &Module, ty: &Ty) -> Shape {
        self.with_recursive_bodies(module, &[ty], self.ty(module, ty))
    }

    /// `shape` (of the schemas of `own`) with the body of every recursive type `own` reaches,
    /// each a schema root of its own under `$defs`: the deepest root, and the sums.
    fn with_recursive_bodies(&self, module: &Module, own: &[&Ty], mut shape: Shape) -> Shape {
        for id in reachable_recursive(module, own) {
            let named = &module.types[id.0];
            let body = self.ty(module, &named.ty);
            let text = body
                .text
                .saturating_add(text_len(named.description.as_deref()));
            shape.depth = shape.depth.max(body.depth);
            shape.size = shape.size.saturating_add(body.size);
            shape.text = shape.text.saturating_add(text);
        }
        shape
    }
}

/// The text an object's fields carry themselves (their types aside): each name, description,
/// default and example. Names are counted once though targets may repeat them (in
/// `properties` and `required`): the count bounds the output up to a constant factor.
fn text_of_fields(fields: &[Field]) -> u64 {
    fields.iter().fold(0u64, |n, f| {
        let examples = f
            .examples
            .iter()
            .fold(0u64, |n, e| n.saturating_add(value_len(e)));
        n.saturating_add(f.name.len() as u64)
            .saturating_add(text_len(f.description.as_deref()))
            .saturating_add(f.default.as_ref().map_or(0, value_len))
            .saturating_add(examples)
    })
}

fn text_len(text: Option<&str>) -> u64 {
    text.map_or(0, |t| t.len() as u64)
}

/// The bytes of a value's strings and keys, and one for every other part: a measure of its
/// JSON text without writing it. Iterative, since a model built by hand may hold a value of
/// any depth.
pub(crate) fn value_len(value: &Value) -> u64 {
    let mut n = 0u64;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        n = n.saturating_add(1);
        match v {
            Value::String(s) => n = n.saturating_add(s.len() as u64),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                for (k, v) in map {
                    n = n.saturating_add(k.len() as u64);
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    n
}

/// The named types `ty` refers to (directly, not through other named types), in order, with
/// repeats.
pub(crate) fn refs(ty: &Ty, out: &mut Vec<TypeId>) {
    match ty {
        Ty::Ref(id) => out.push(*id),
        Ty::Array(a) => refs(&a.items, out),
        Ty::Tuple(t) => {
            t.items.iter().for_each(|i| refs(i, out));
            if let Additional::Schema(r) = &t.rest {
                refs(r, out);
            }
        }
        Ty::Object(o) => {
            o.fields.iter().for_each(|f| refs(&f.ty, out));
            if let Additional::Schema(t) = &o.additional {
                refs(t, out);
            }
        }
        Ty::Nullable(t) => refs(t, out),
        Ty::AnyOf(ts) => ts.iter().for_each(|t| refs(t, out)),
        _ => {}
    }
}

/// The recursive types reachable from `roots` through any references, each once.
fn reachable_recursive(module: &Module, roots: &[&Ty]) -> Vec<TypeId> {
    let mut seen = vec![false; module.types.len()];
    let mut stack = Vec::new();
    for t in roots {
        refs(t, &mut stack);
    }
    let mut out = Vec::new();
    while let Some(id) = stack.pop() {
        let Some(named) = module.types.get(id.0) else {
            continue;
        };
        if std::mem::replace(&mut seen[id.0], true) {
            continue;
        }
        if named.recursive {
            out.push(id);
        }
        refs(&named.ty, &mut stack);
    }
    out.sort();
    out
}
