//! Analyses of the whole module: reference cycles (recursive types, and those no value can
//! satisfy) and the depth and size of each tool's schema once named types are inlined.

use std::collections::HashSet;

use crate::ast;
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::model::*;

use super::{Checker, MAX_SCHEMA_DEPTH, MAX_SCHEMA_NODES, MAX_SCHEMA_TEXT, MAX_UNION_DEPTH};

impl Checker {
    // -----------------------------------------------------------------------------------------
    // Whole-module analyses

    /// Marks the named types that take part in a reference cycle, and rejects the cycles that
    /// no finite value can satisfy (every step through a required field or a non-empty array).
    pub(super) fn recursion(
        &mut self,
        module: &mut Module,
        file: &ast::File,
        refs: &[Vec<usize>],
        unguarded: &[Vec<usize>],
        components: &[Vec<usize>],
    ) {
        let n = module.types.len();
        let musts: Vec<Vec<usize>> = module
            .types
            .iter()
            .map(|t| must_contain(&t.ty).into_iter().map(|id| id.0).collect())
            .collect();
        for component in components {
            let cyclic = component.len() > 1 || refs[component[0]].contains(&component[0]);
            if cyclic {
                for &i in component {
                    module.types[i].recursive = true;
                }
            }
        }
        let name_spans = type_name_spans(file);
        let mut reported = vec![false; n];
        for component in cycles(&musts) {
            let names = cycle_names(module, &component);
            for &i in &component {
                reported[i] = true;
                let span = name_spans.get(i).copied().unwrap_or(module.types[i].span);
                self.error(
                    Diagnostic::error(
                        Code::InfiniteRecursion,
                        span,
                        format!(
                            "type `{}` contains itself through required fields ({}), so no finite value fits it",
                            module.types[i].name,
                            names
                        ),
                    )
                    .with_label("infinitely recursive")
                    .with_help("break the cycle with an optional field (`name?: T`), a nullable type (`T | null`), an array (`T[]`) or a map"),
                );
            }
        }
        // `type A = A | string`: a reference to itself with nothing around it adds no value.
        for component in cycles(unguarded) {
            let names = cycle_names(module, &component);
            for &i in component.iter().filter(|&&i| !reported[i]) {
                let span = name_spans.get(i).copied().unwrap_or(module.types[i].span);
                self.error(
                    Diagnostic::error(
                        Code::InfiniteRecursion,
                        span,
                        format!(
                            "type `{}` is defined as a union containing itself ({}), which adds no value",
                            module.types[i].name,
                            names
                        ),
                    )
                    .with_label("refers to itself")
                    .with_help("a recursive type must nest itself inside an object, an array or a map; remove the self-reference from the union"),
                );
            }
        }
    }

    /// Rejects tools whose inlined schema nests deeper than [`MAX_SCHEMA_DEPTH`], has more
    /// than [`MAX_SCHEMA_NODES`] schemas (a type used twice by each of 30 nested types inlines
    /// to 2^30 copies) or carries more than [`MAX_SCHEMA_TEXT`] bytes of text, counted as
    /// [`crate::shape`] says: through aliases, and with the body of every recursive type the
    /// tool reaches.
    pub(super) fn depth(&mut self, module: &Module) {
        let shapes = crate::shape::Shapes::of(module);
        for tool in &module.tools {
            let shape = shapes.tool(module, tool);
            let (depth, size) = (shape.depth, shape.size);
            if depth > MAX_SCHEMA_DEPTH {
                self.error(
                    Diagnostic::error(
                        Code::SchemaTooDeep,
                        tool.span,
                        format!(
                            "the schema of tool `{}` nests {depth} levels deep once named types are inlined; the limit is {MAX_SCHEMA_DEPTH}",
                            tool.name
                        ),
                    )
                    .with_label("too deep")
                    .with_help("flatten the arguments (each alias in a chain counts as a level); models handle shallow schemas far better"),
                );
            } else if size > MAX_SCHEMA_NODES as u64 {
                self.error(
                    Diagnostic::error(
                        Code::SchemaTooLarge,
                        tool.span,
                        format!(
                            "the schema of tool `{}` has {} subschemas once named types are inlined; the limit is {MAX_SCHEMA_NODES}",
                            tool.name,
                            if size == u64::MAX { "too many".to_string() } else { size.to_string() }
                        ),
                    )
                    .with_label("too large")
                    .with_help("named types used many times are copied at every use, and a recursive type's body counts once; simplify the types"),
                );
            } else if shape.text > MAX_SCHEMA_TEXT as u64 {
                self.error(
                    Diagnostic::error(
                        Code::SchemaTooLarge,
                        tool.span,
                        format!(
                            "the schema of tool `{}` carries {} bytes of text (names, descriptions, defaults, examples, enum values, patterns) once named types are inlined; the limit is {MAX_SCHEMA_TEXT}",
                            tool.name,
                            if shape.text == u64::MAX { "too many".to_string() } else { shape.text.to_string() }
                        ),
                    )
                    .with_label("too large")
                    .with_help("a named type's descriptions are copied at every use of the type; shorten them, or use the type in fewer places"),
                );
            }
        }
    }
}

impl Checker {
    /// Rejects named types whose values the validator tries against more than
    /// [`MAX_UNION_DEPTH`] unions and nullable types one inside the other, through named types,
    /// before any object, array or scalar: the validator takes stack for each without reading
    /// deeper into the value, at every level of a value of a recursive type, and the
    /// schema-depth limit does not see such a chain when its types are recursive (each is
    /// emitted once, under `$defs`). Each type that starts such a chain is reported once, at its
    /// name. Returns whether any was.
    pub(super) fn union_depth(
        &mut self,
        module: &Module,
        file: &ast::File,
        unguarded: &[Vec<usize>],
    ) -> bool {
        // Each component after every component it reaches: a type's references are measured
        // before it (a cycle, which the checker rejects, counts its unmeasured members as 0).
        let mut depth = vec![0usize; module.types.len()];
        for component in strongly_connected(unguarded) {
            for i in component {
                depth[i] = union_descent(&module.types[i].ty, &depth);
            }
        }
        let too_deep = |i: usize| depth[i] > MAX_UNION_DEPTH;
        let mut below_another = vec![false; depth.len()];
        for i in (0..depth.len()).filter(|&i| too_deep(i)) {
            for &j in &unguarded[i] {
                below_another[j] = true;
            }
        }
        let name_spans = type_name_spans(file);
        let mut found = false;
        for i in (0..depth.len()).filter(|&i| too_deep(i) && !below_another[i]) {
            found = true;
            let named = &module.types[i];
            let span = name_spans.get(i).copied().unwrap_or(named.span);
            self.error(
                Diagnostic::error(
                    Code::SchemaTooDeep,
                    span,
                    format!(
                        "type `{}` nests {} unions and nullable types one inside the other, through named types; the limit is {MAX_UNION_DEPTH}",
                        named.name, depth[i]
                    ),
                )
                .with_label("too deep")
                .with_help("write the members of the inner unions into one union"),
            );
        }
        found
    }
}

/// How many unions and nullable types a value of `ty` goes through, one inside the other,
/// before an object, an array or a scalar (`named`: that count for each named type).
fn union_descent(ty: &Ty, named: &[usize]) -> usize {
    match ty {
        Ty::Ref(id) => named.get(id.0).copied().unwrap_or(0),
        Ty::Nullable(t) => union_descent(t, named).saturating_add(1),
        Ty::AnyOf(ts) => ts
            .iter()
            .map(|t| union_descent(t, named))
            .max()
            .unwrap_or(0)
            .saturating_add(1),
        _ => 0,
    }
}

/// The span of each named type's name, by index in [`Module::types`].
fn type_name_spans(file: &ast::File) -> Vec<Span> {
    file.items
        .iter()
        .filter_map(|item| match item {
            ast::Item::Type(t) => Some(t.name.span),
            ast::Item::Enum(e) => Some(e.name.span),
            ast::Item::Tool(_) | ast::Item::Import(_) => None,
        })
        .collect()
}

/// The strongly connected components that contain a cycle.
fn cycles(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    strongly_connected(adj)
        .into_iter()
        .filter(|c| c.len() > 1 || adj[c[0]].contains(&c[0]))
        .collect()
}

/// "A → B → C" (at most six names) for a cycle's message.
fn cycle_names(module: &Module, component: &[usize]) -> String {
    let mut names: Vec<&str> = component
        .iter()
        .map(|&i| module.types[i].name.as_str())
        .collect();
    names.sort_unstable();
    if names.len() > 6 {
        format!("{} → … ({} types)", names[..6].join(" → "), names.len())
    } else {
        names.join(" → ")
    }
}

/// For each named type, the named types `collect` finds in its definition, each once.
pub(super) fn references(module: &Module, collect: fn(&Ty, &mut Vec<TypeId>)) -> Vec<Vec<usize>> {
    module
        .types
        .iter()
        .map(|t| {
            let mut ids = Vec::new();
            collect(&t.ty, &mut ids);
            let mut out: Vec<usize> = ids.into_iter().map(|id| id.0).collect();
            // Sorted once: a union of many references, each looked up in the list so far, took
            // time in the square of its length.
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect()
}

/// The named types a type refers to without any array, object or map around the reference.
pub(super) fn unguarded_refs(ty: &Ty, out: &mut Vec<TypeId>) {
    match ty {
        Ty::Ref(id) => out.push(*id),
        Ty::Nullable(t) => unguarded_refs(t, out),
        Ty::AnyOf(ts) => ts.iter().for_each(|t| unguarded_refs(t, out)),
        _ => {}
    }
}

/// The named types that every value of `ty` must contain.
fn must_contain(ty: &Ty) -> HashSet<TypeId> {
    match ty {
        Ty::Ref(id) => HashSet::from([*id]),
        Ty::Object(o) => o
            .fields
            .iter()
            .filter(|f| f.required)
            .flat_map(|f| must_contain(&f.ty))
            .collect(),
        Ty::Array(a) if a.min_items.as_ref().is_some_and(|m| m.value > 0) => must_contain(&a.items),
        Ty::Tuple(t) => {
            let mut out: HashSet<TypeId> = t.items[..t.required.min(t.items.len())]
                .iter()
                .flat_map(must_contain)
                .collect();
            if t.min_len() > t.items.len() as u64 {
                if let Additional::Schema(r) = &t.rest {
                    out.extend(must_contain(r));
                }
            }
            out
        }
        Ty::AnyOf(ts) => {
            let mut sets = ts.iter().map(must_contain);
            let first = sets.next().unwrap_or_default();
            sets.fold(first, |acc, s| acc.intersection(&s).copied().collect())
        }
        _ => HashSet::new(),
    }
}

/// Tarjan's algorithm without recursion: the strongly connected components of a graph, each
/// emitted after every component it reaches.
pub(super) fn strongly_connected(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = adj[v].get(*edge) {
                *edge += 1;
                if w >= n {
                    continue;
                }
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::strongly_connected;

    #[test]
    fn finds_cycles_and_orders_sinks_first() {
        // 0 → 1 → 2 → 1, 3 alone
        let adj = vec![vec![1], vec![2], vec![1], vec![]];
        let sccs = strongly_connected(&adj);
        let mut sorted: Vec<Vec<usize>> = sccs
            .iter()
            .map(|c| {
                let mut c = c.clone();
                c.sort();
                c
            })
            .collect();
        sorted.sort();
        assert_eq!(sorted, vec![vec![0], vec![1, 2], vec![3]]);
        let pos = |x: usize| sccs.iter().position(|c| c.contains(&x)).unwrap();
        assert!(
            pos(1) < pos(0),
            "the cycle is emitted before what reaches it"
        );
    }

    #[test]
    fn deep_chains_do_not_recurse() {
        let n = 200_000;
        let adj: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        assert_eq!(strongly_connected(&adj).len(), n);
    }
}
