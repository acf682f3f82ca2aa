//! Modules: a source that imports types and enums from other sources
//! (`import { Address } from "./common.tool"`).
//!
//! The files of a build are loaded through a [`Loader`], laid end to end in one span space (file
//! `i` starts one byte after file `i - 1` ends), parsed there, and checked as one syntax tree: the
//! root's items and the types and enums of every file it reaches. Spans are then mapped back to
//! their files, so a diagnostic names its file and its related places may name others. Before the
//! check, this module enforces what imports mean: an imported name must be defined in the file
//! it is imported from; a file may use only its own names and the names it imports; an import
//! that is never used is a warning; files may not import each other in a circle. Type names are
//! one namespace across a build (the schemas' `$defs` are keyed by them), so two files defining
//! the same name is a duplicate, reported with both places.

use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

use indexmap::IndexMap;

use crate::ast::{self, Item, TypeExpr, TypeKind};
use crate::check;
use crate::diagnostic::{Code, Diagnostic, Errors, Span};
use crate::source::Source;
use crate::suggest::{listed, Budget};
use crate::syntax;
use crate::Compiled;

/// The most names of a file an unresolved import's help lists.
const LISTED_DEFINITIONS: usize = 10;

/// The most bytes all the files of one build may hold together: an import cannot get around the
/// limit on one source.
pub const MAX_BUILD_BYTES: usize = 64 << 20;

/// The most files one build may read.
pub const MAX_BUILD_FILES: usize = 10_000;

/// How many files an `import-cycle` error names at each end of a longer circle.
const CYCLE_ENDS: usize = 3;

/// Supplies the sources that imports name: from disk ([`FileLoader`]), from memory
/// ([`MemoryLoader`]), or from wherever a host keeps them.
pub trait Loader {
    /// The name of the source that `path` (as written in an import) names, when the importing
    /// source is called `from`. Equal names are the same source.
    /// An absolute `path` is taken as it is; `from` is empty for the root of a build.
    fn resolve(&self, from: &str, path: &str) -> String {
        let base = Path::new(from).parent().unwrap_or(Path::new(""));
        normalize(&base.join(path))
    }

    /// The text of the source called `name`, or why it cannot be had.
    fn load(&self, name: &str) -> Result<String, String>;
}

/// Reads imported files from disk, each through a size limit (a file whose size is known to be
/// over it is refused unread). An import names a regular `.tool` file (through links) inside the
/// loader's root folder, when it has one: a path that leads out of the root (`../../secret.tool`,
/// an absolute path, a link that points out) is refused before anything is read, and so is a
/// file that is not a `.tool` source, so that no diagnostic ever quotes a file that was not meant
/// to be read. A device, a pipe or a folder is refused before it is opened, since reading one may
/// never end (a FIFO waits for a writer) or may take what belongs to someone else (`/dev/stdin`
/// is the protocol stream of a language server). A name pointed at one of those between that
/// check and the open is refused once open, and the open does not wait (on Unix it does not
/// block, so a FIFO is seen for what it is).
#[derive(Clone, Debug)]
pub struct FileLoader {
    /// The most bytes one file may hold.
    pub max_bytes: usize,
    /// The folder that imports must stay inside (`None`: any folder). [`Toolset::new`] and the
    /// command line set it to the folder that holds every file they were given.
    ///
    /// [`Toolset::new`]: crate::Toolset::new
    pub root: Option<PathBuf>,
}

impl Default for FileLoader {
    fn default() -> Self {
        FileLoader {
            max_bytes: 10 << 20,
            root: None,
        }
    }
}

impl FileLoader {
    /// A loader whose imports stay inside `root` (taken through its links; a root that cannot be
    /// found lets no import through).
    pub fn within(root: impl AsRef<Path>) -> FileLoader {
        let root = root.as_ref();
        FileLoader {
            root: Some(std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf())),
            ..FileLoader::default()
        }
    }

    /// The file that `name` is, through its links, if the loader may read it: a `.tool` file,
    /// inside the root when there is one.
    fn admit(&self, name: &str) -> Result<PathBuf, String> {
        let not_a_source =
            || format!("cannot import `{name}`: it is not a `.tool` source (an import names one)");
        if Path::new(name).extension().is_none_or(|e| e != "tool") {
            return Err(not_a_source());
        }
        let real = std::fs::canonicalize(name).map_err(|e| format!("cannot read `{name}`: {e}"))?;
        if let Some(root) = &self.root {
            if !real.starts_with(root) {
                return Err(format!(
                    "cannot import `{name}`: it is outside the project root `{}` (imports stay \
                     inside the folder of the files being compiled; `--root` names a wider one)",
                    root.display()
                ));
            }
        }
        if real.extension().is_none_or(|e| e != "tool") {
            return Err(not_a_source());
        }
        Ok(real)
    }
}

impl Loader for FileLoader {
    fn load(&self, name: &str) -> Result<String, String> {
        let real = self.admit(name)?;
        let cannot = |e: std::io::Error| format!("cannot read `{name}`: {e}");
        let not_a_file = || format!("cannot read `{name}`: not a regular file");
        if !std::fs::metadata(&real).map_err(cannot)?.is_file() {
            return Err(not_a_file());
        }
        let (file, meta) = open_regular(&real)
            .map_err(cannot)?
            .ok_or_else(not_a_file)?;
        let too_large = || {
            format!(
                "`{name}` is larger than {} bytes (the limit for one file)",
                self.max_bytes
            )
        };
        // A file known to be too large is refused unread; one that grows is cut at the limit.
        let cap = u64::try_from(self.max_bytes)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        if meta.len() >= cap {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        file.take(cap).read_to_end(&mut bytes).map_err(cannot)?;
        if bytes.len() > self.max_bytes {
            return Err(too_large());
        }
        String::from_utf8(bytes).map_err(|_| format!("`{name}` is not valid UTF-8"))
    }
}

/// The deepest folder that holds every one of `names` (files, by the names they were given;
/// a name with no folder is in the current one), through links: the project root that imports
/// stay inside when none is named.
pub fn project_root<'a>(names: impl IntoIterator<Item = &'a str>) -> PathBuf {
    let mut common: Option<PathBuf> = None;
    for name in names {
        let folder = match Path::new(name).parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let Ok(folder) = std::fs::canonicalize(folder) else {
            continue;
        };
        common = Some(match common {
            None => folder,
            Some(c) => c
                .components()
                .zip(folder.components())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common.unwrap_or_else(|| std::fs::canonicalize(".").unwrap_or_else(|_| PathBuf::from(".")))
}

/// `name` opened for reading, with its metadata, if it is a regular file (through links); `None`
/// if it is something else. Looked at once open, in case the name was pointed elsewhere after a
/// check by name; and on Unix, opened without waiting, since opening a FIFO for reading waits
/// for a writer before its kind can be looked at.
fn open_regular(name: &Path) -> std::io::Result<Option<(std::fs::File, std::fs::Metadata)>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Reads from a regular file do not wait either way.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(name)?;
    let meta = file.metadata()?;
    Ok(meta.is_file().then_some((file, meta)))
}

/// Sources held in memory, by name (paths such as `"lib/common.tool"`).
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader {
    sources: HashMap<String, String>,
}

impl MemoryLoader {
    /// A loader with no sources.
    pub fn new() -> Self {
        MemoryLoader::default()
    }

    /// Adds (or replaces) the source called `name`.
    pub fn insert(&mut self, name: impl AsRef<str>, text: impl Into<String>) -> &mut Self {
        let name = normalize(Path::new(name.as_ref()));
        self.sources.insert(name, text.into());
        self
    }
}

impl Loader for MemoryLoader {
    fn load(&self, name: &str) -> Result<String, String> {
        self.sources
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no source called `{name}`"))
    }
}

/// A path with `.` left out and `..` taken back where it can be, as text (see [`normalize_parts`]).
fn normalize(path: &Path) -> String {
    // The prefix and root of an absolute path cannot be taken back; the other components are
    // text, since the path was made of text.
    let mut root = Vec::new();
    let mut rest = Vec::new();
    for c in path.components() {
        let text = c.as_os_str().to_str().unwrap_or_default();
        match c {
            Component::Prefix(_) | Component::RootDir => root.push(text),
            Component::CurDir => rest.push("."),
            Component::ParentDir => rest.push(".."),
            Component::Normal(_) => rest.push(text),
        }
    }
    let parts = normalize_parts(root.len(), root.into_iter().chain(rest));
    parts.iter().collect::<PathBuf>().display().to_string()
}

/// The parts of a path (its folders and file name) with `.` and empty parts left out and each
/// `..` taking back the name before it: the one rule for import paths, which every loader's
/// `resolve` follows. The first `root` parts (an absolute path's root, a URI's scheme and
/// authority) are never taken back, and a `..` at them is dropped (`/..` is `/`). In a relative
/// path a `..` with no name before it to take back is kept, so `../../x` stays `../../x` and
/// `a/../../b` is `../b`.
pub(crate) fn normalize_parts<'a>(
    root: usize,
    parts: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let mut out: Vec<&'a str> = Vec::new();
    for part in parts {
        if out.len() < root {
            out.push(part);
            continue;
        }
        match part {
            "" | "." => {}
            ".." => match out.last() {
                Some(&last) if out.len() > root && last != ".." => {
                    out.pop();
                }
                _ if root == 0 => out.push(".."),
                _ => {}
            },
            name => out.push(name),
        }
    }
    out
}

/// One file of a build, placed at `base` in the shared span space.
struct Module {
    source: Source,
    base: usize,
    items: Vec<Item>,
    /// For a root of a set, the source as it was given (its diagnostics carry it).
    given: Option<Source>,
}

/// Compiles the source called `name` with the sources it imports, read through `loader`.
/// Diagnostics in the root source have no `file`; those in an imported source carry it.
pub fn compile_with(name: &str, text: &str, loader: &dyn Loader) -> Result<Compiled, Errors> {
    let mut build = Build::default();
    // The root is named as the loader names the files it reaches (`./a.tool` is `a.tool`), so
    // that an import of it is known as the same file.
    build.add(&loader.resolve("", name), text.to_string());
    build.load_imports(loader);
    let set = build.finish();
    match set.module {
        Some(module) => Ok(Compiled {
            module,
            warnings: set.diagnostics,
        }),
        None => Err(Errors::new(set.diagnostics)),
    }
}

/// A set of sources compiled as one build ([`compile_set`]).
pub(crate) struct CompiledSet {
    /// The tools of every root and the types they reach, checked once; `None` when the set has
    /// an error.
    pub module: Option<crate::model::Module>,
    /// Every diagnostic of the set, each once, each carrying its file, sorted by file and place.
    pub diagnostics: Vec<Diagnostic>,
    /// For each of the module's tools, the index of the root that defines it.
    pub tool_roots: Vec<usize>,
    /// Where each file sits in the span space that the module's spans point into.
    pub places: Places,
}

/// Compiles several sources as one build: every file, whether named or imported, is read and
/// parsed once, its imports resolved once, and the whole checked once, so that the cost grows
/// with the files and not with how often they are imported. Type names are one namespace across
/// the set; a tool name defined by two roots is an error at the second. Each diagnostic carries
/// its file (a root's is the source as given).
pub(crate) fn compile_set(roots: &[Source], loader: &dyn Loader) -> CompiledSet {
    let mut build = Build {
        roots_named: true,
        ..Build::default()
    };
    for (r, root) in roots.iter().enumerate() {
        let name = loader.resolve("", root.name());
        if let Some(&m) = build.by_name.get(&name) {
            // The same file named twice is read once.
            build.root_of.push(m);
            continue;
        }
        if let Some(d) = build.over_limits(root.text().len(), Span::default()) {
            build.diagnostics.push(d.in_file(root));
            build.root_of.push(usize::MAX);
            continue;
        }
        let m = build.add(&name, root.text().to_string());
        build.modules[m].given = Some(root.clone());
        build.root_of.push(m);
        debug_assert_eq!(build.root_of.len(), r + 1);
    }
    build.load_imports(loader);
    build.finish()
}

/// Where each file of a build sits in its shared span space: turns a span of the compiled
/// module into a span of its file.
#[derive(Clone, Debug, Default)]
pub(crate) struct Places {
    /// Each file's first offset and the source its diagnostics carry (`None`: the root of a
    /// single-source build, whose diagnostics carry no file), in order of offset.
    files: Vec<(usize, Option<Source>)>,
}

impl Places {
    /// The file a span of the shared space falls in.
    fn at(&self, offset: usize) -> usize {
        self.files
            .partition_point(|(base, _)| *base <= offset)
            .saturating_sub(1)
    }

    /// A diagnostic of the shared span space, placed in its file; its related places and fixes
    /// too.
    pub(crate) fn place(&self, mut d: Diagnostic) -> Diagnostic {
        if d.file.is_some() || self.files.is_empty() {
            return d;
        }
        let m = self.at(d.span.start);
        let (base, file) = &self.files[m];
        let base = *base;
        d.span = Span::new(
            d.span.start.saturating_sub(base),
            d.span.end.saturating_sub(base),
        );
        d.file.clone_from(file);
        // A fix edits the diagnostic's own file.
        for f in &mut d.fixes {
            f.span = Span::new(
                f.span.start.saturating_sub(base),
                f.span.end.saturating_sub(base),
            );
        }
        for r in &mut d.related {
            if r.file.is_some() {
                continue;
            }
            let rm = self.at(r.span.start);
            let (rbase, rfile) = &self.files[rm];
            r.span = Span::new(
                r.span.start.saturating_sub(*rbase),
                r.span.end.saturating_sub(*rbase),
            );
            if rm != m {
                r.file.clone_from(rfile);
            }
        }
        d
    }
}

#[derive(Default)]
struct Build {
    modules: Vec<Module>,
    by_name: HashMap<String, usize>,
    /// The next free offset of the span space.
    end: usize,
    diagnostics: Vec<Diagnostic>,
    broken: Vec<String>,
    /// Where an import was found to close a circle (so that it is reported once).
    cyclic: HashSet<usize>,
    /// The file each import path of each file names, once it was loaded.
    targets: HashMap<(usize, String), usize>,
    /// Whether the roots' diagnostics carry their file (a set), or not (one source).
    roots_named: bool,
    /// For each root of a set, its file (`usize::MAX`: not read, over a limit).
    root_of: Vec<usize>,
}

impl Build {
    /// Parses a source into the build; returns its index.
    fn add(&mut self, name: &str, text: String) -> usize {
        let base = self.end;
        self.end = base + text.len() + 1;
        let parsed = syntax::parse_recovering_at(&text, base);
        self.diagnostics.extend(parsed.errors);
        self.broken.extend(parsed.broken_names);
        let index = self.modules.len();
        self.by_name.insert(name.to_string(), index);
        self.modules.push(Module {
            source: Source::new(name, text),
            base,
            items: parsed.file.items,
            given: None,
        });
        index
    }

    /// The roots of the build: every root of a set, or the one source.
    fn roots(&self) -> Vec<usize> {
        if self.root_of.is_empty() {
            return if self.modules.is_empty() {
                Vec::new()
            } else {
                vec![0]
            };
        }
        let mut roots: Vec<usize> = self
            .root_of
            .iter()
            .copied()
            .filter(|&m| m != usize::MAX)
            .collect();
        roots.dedup();
        roots
    }

    /// The error for one more file of `len` bytes, if it would take the build past a limit.
    fn over_limits(&self, len: usize, span: Span) -> Option<Diagnostic> {
        if self.modules.len() >= MAX_BUILD_FILES {
            return Some(
                Diagnostic::error(
                    Code::UnresolvedImport,
                    span,
                    format!("the build reads more than {MAX_BUILD_FILES} files"),
                )
                .with_label("one file too many"),
            );
        }
        if self.end.saturating_add(len) > MAX_BUILD_BYTES {
            return Some(
                Diagnostic::error(
                    Code::UnresolvedImport,
                    span,
                    format!("the files of the build hold more than {MAX_BUILD_BYTES} bytes"),
                )
                .with_label("too much source"),
            );
        }
        None
    }

    /// Loads every file the roots reach, depth first without recursion, reporting circles. Each
    /// file is read once and each import followed once, however many roots reach it.
    fn load_imports(&mut self, loader: &dyn Loader) {
        // Whether each file has been entered (a root not yet entered is entered when an import
        // reaches it, so that a circle through it is seen).
        let mut entered: Vec<bool> = vec![false; self.modules.len()];
        for root in self.roots() {
            if !entered[root] {
                entered[root] = true;
                self.load_from(root, loader, &mut entered);
            }
        }
    }

    /// [`Build::load_imports`] from one file.
    fn load_from(&mut self, root: usize, loader: &dyn Loader, entered: &mut Vec<bool>) {
        // The path of files being loaded, each with the index of the item to look for its next
        // import from (each item is looked at once).
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        // Where each file on the path is on it, so that an import back to one is found at once.
        let mut on_stack: HashMap<usize, usize> = HashMap::from([(root, 0)]);
        while let Some(&(module, next)) = stack.last() {
            let items = &self.modules[module].items;
            let found = items
                .iter()
                .enumerate()
                .skip(next)
                .find_map(|(k, i)| match i {
                    Item::Import(i) => Some((k, i.path.clone(), i.path_span)),
                    _ => None,
                });
            let Some((k, path, span)) = found else {
                on_stack.remove(&module);
                stack.pop();
                continue;
            };
            if let Some(top) = stack.last_mut() {
                top.1 = k + 1;
            }
            let from = self.modules[module].source.name().to_string();
            let target = loader.resolve(&from, &path);
            if let Some(&t) = self.by_name.get(&target) {
                self.targets.insert((module, path), t);
                if let Some(&at) = on_stack.get(&t) {
                    self.cycle(&stack[at..], span);
                } else if !entered[t] {
                    entered[t] = true;
                    on_stack.insert(t, stack.len());
                    stack.push((t, 0));
                }
                continue;
            }
            // Over a limit, the file is not read; read, its size counts.
            let loaded = match self.over_limits(0, span) {
                Some(d) => Err(Box::new(d)),
                None => match loader.load(&target) {
                    Ok(text) => match self.over_limits(text.len(), span) {
                        Some(d) => Err(Box::new(d)),
                        None => Ok(text),
                    },
                    Err(why) => Err(Box::new(
                        Diagnostic::error(Code::UnresolvedImport, span, why)
                            .with_label("cannot be read")
                            .with_help("the path is relative to the folder of the importing file"),
                    )),
                },
            };
            match loaded {
                Ok(text) => {
                    let index = self.add(&target, text);
                    entered.push(true);
                    self.targets.insert((module, path), index);
                    on_stack.insert(index, stack.len());
                    stack.push((index, 0));
                }
                Err(d) => self.diagnostics.push(*d),
            }
        }
    }

    /// Reports the circle that the import at `span` closes: `path` runs from the file it imports
    /// to the file it is in. Each import that closes a circle is reported once, at that import,
    /// with the files of the circle in order; a long circle is named by its first and last
    /// [`CYCLE_ENDS`] files and the number between, so that a report has a bounded length however
    /// long the circle (n files that each import the next and the first close n - 1 circles).
    fn cycle(&mut self, path: &[(usize, usize)], span: Span) {
        if !self.cyclic.insert(span.start) {
            return;
        }
        // The circle ends where it starts.
        let len = path.len() + 1;
        let file = |k: usize| self.modules[path[k % path.len()].0].source.name();
        let mut chain: Vec<String> = Vec::new();
        if len <= 2 * CYCLE_ENDS + 1 {
            chain.extend((0..len).map(|k| file(k).to_string()));
        } else {
            chain.extend((0..CYCLE_ENDS).map(|k| file(k).to_string()));
            chain.push(format!("… {} files …", len - 2 * CYCLE_ENDS));
            chain.extend((len - CYCLE_ENDS..len).map(|k| file(k).to_string()));
        }
        let chain = chain.join(" → ");
        self.diagnostics.push(
            Diagnostic::error(
                Code::ImportCycle,
                span,
                format!("files import each other in a circle: {chain}"),
            )
            .with_label("closes the circle")
            .with_help(
                "move the types the files share into a file that imports neither; types that \
                 refer to each other must be defined in one file",
            ),
        );
    }

    /// What each file may name, checked before the whole is checked as one tree.
    fn visibility(&mut self) {
        // What each file defines, in order, the first definition of a name kept: looked up once
        // for each name imported from it.
        let defines: Vec<IndexMap<&str, Span>> = self
            .modules
            .iter()
            .map(|module| {
                let mut own = IndexMap::new();
                for n in definitions(&module.items) {
                    own.entry(n.text.as_str()).or_insert(n.span);
                }
                own
            })
            .collect();
        // Where each name is first defined in any file: the file a missing import should name.
        let mut first_defined: HashMap<&str, (usize, Span)> = HashMap::new();
        for (m, own) in defines.iter().enumerate() {
            for (&name, &span) in own {
                first_defined.entry(name).or_insert((m, span));
            }
        }
        let broken: HashSet<&str> = self.broken.iter().map(String::as_str).collect();
        let mut suggestions = Budget::default();
        let mut found = Vec::new();
        for (m, module) in self.modules.iter().enumerate() {
            let own = &defines[m];
            // Imported names: where the import names them, and whether they are used (a name
            // that could not be imported counts as used: its error is enough).
            let mut imported: HashMap<&str, (Span, bool)> = HashMap::new();
            // What removing each imported name takes out of the source.
            let mut removal: HashMap<&str, Span> = HashMap::new();
            for item in &module.items {
                let Item::Import(import) = item else { continue };
                let target = self.targets.get(&(m, import.path.clone()));
                for (i, n) in import.names.iter().enumerate() {
                    let name = n.text.as_str();
                    removal
                        .entry(name)
                        .or_insert_with(|| import_removal(module, import, i));
                    if let Some(first) = own.get(name) {
                        found.push(
                            Diagnostic::error(
                                Code::DuplicateName,
                                n.span,
                                format!("`{name}` is imported and also defined in this file"),
                            )
                            .with_label("imported here")
                            .with_related(*first, "defined here")
                            .with_help("rename one of them, or drop the import"),
                        );
                        continue;
                    }
                    if let Some((first, _)) = imported.get(name) {
                        found.push(
                            Diagnostic::error(
                                Code::DuplicateName,
                                n.span,
                                format!("`{name}` is imported twice"),
                            )
                            .with_label("imported again")
                            .with_related(*first, "first imported here"),
                        );
                        continue;
                    }
                    imported.insert(name, (n.span, target.is_none()));
                    let Some(&t) = target else {
                        // The file could not be read: already reported at the path.
                        continue;
                    };
                    let names = &defines[t];
                    if !names.contains_key(name) && !broken.contains(name) {
                        imported.insert(name, (n.span, true));
                        let there = self.modules[t].source.name();
                        let mut d = Diagnostic::error(
                            Code::UnresolvedImport,
                            n.span,
                            format!("`{there}` defines no type or enum `{name}`"),
                        )
                        .with_label("not defined there");
                        d = match suggestions.did_you_mean(name, names.keys().copied()) {
                            Some(s) => d
                                .with_help(format!("did you mean `{s}`?"))
                                .with_replacement(n.span, name, s, s),
                            None if names.is_empty() => {
                                d.with_help("that file defines no types or enums")
                            }
                            None => d.with_help(format!(
                                "it defines: {}",
                                listed(names.keys(), LISTED_DEFINITIONS, ", ")
                            )),
                        };
                        found.push(d);
                    }
                }
            }
            // Every type name the file uses must be its own, imported or built in.
            let mut uses = Vec::new();
            ast::each_node(&module.items, &mut |node| {
                if let ast::Node::Type(TypeExpr {
                    kind: TypeKind::Named(n),
                    ..
                }) = node
                {
                    uses.push(n);
                }
            });
            for n in uses {
                let name = n.text.as_str();
                if own.contains_key(name) {
                    continue;
                }
                if let Some((_, used)) = imported.get_mut(name) {
                    *used = true;
                    continue;
                }
                let Some(&(there, span)) = first_defined.get(name) else {
                    continue; // Not defined anywhere: the check calls it unknown.
                };
                let path = relative(module.source.name(), self.modules[there].source.name());
                let title = format!("Import `{name}` from `{path}`");
                let written = if syntax::is_identifier(name) {
                    name.to_string()
                } else {
                    syntax::quote(name)
                };
                // Into an import of that path with names, else as an import of its own before
                // the first item.
                let fix = match module
                    .items
                    .iter()
                    .filter_map(|i| match i {
                        Item::Import(i) if i.path == path => i.names.last(),
                        _ => None,
                    })
                    .next()
                {
                    Some(last) => (
                        Span::new(last.span.end, last.span.end),
                        format!(", {written}"),
                    ),
                    None => {
                        let at = module.items.first().map_or(module.base, |i| i.span().start);
                        // Ended as the file's lines are.
                        let newline = crate::print::line_break(module.source.text());
                        let line = format!(
                            "import {{ {written} }} from {}{newline}",
                            syntax::quote(&path)
                        );
                        (Span::new(at, at), line)
                    }
                };
                found.push(
                    Diagnostic::error(
                        Code::UnknownType,
                        n.span,
                        format!(
                            "`{name}` is defined in `{}` but not imported here",
                            self.modules[there].source.name()
                        ),
                    )
                    .with_label("not imported")
                    .with_related(span, "defined here")
                    .with_help(format!("add `import {{ {name} }} from \"{path}\"`"))
                    .with_fix(title, fix.0, fix.1),
                );
            }
            for (name, (span, used)) in imported {
                if !used {
                    let mut d = Diagnostic::warning(
                        Code::UnusedImport,
                        span,
                        format!("`{name}` is imported but never used"),
                    )
                    .with_label("unused")
                    .with_help("remove it from the import");
                    if let Some(&cut) = removal.get(name) {
                        d = d.with_fix(format!("Remove the import of `{name}`"), cut, "");
                    }
                    found.push(d);
                }
            }
        }
        self.diagnostics.extend(found);
    }

    /// Checks the whole once, maps every span back to its file, and gives the result.
    fn finish(mut self) -> CompiledSet {
        self.visibility();
        let roots = self.roots();
        let is_root: HashSet<usize> = roots.iter().copied().collect();
        // The roots' items, and the types and enums of the files they reach (tools are not
        // imported). A tool name that an earlier root defines is reported here, with both
        // places, and left out of the check.
        let mut items = Vec::new();
        let mut first_tool: HashMap<String, Span> = HashMap::new();
        let mut clashes = Vec::new();
        for (m, module) in self.modules.iter_mut().enumerate() {
            let own = std::mem::take(&mut module.items);
            let root = is_root.contains(&m);
            let mut here: HashSet<String> = HashSet::new();
            for item in own {
                match &item {
                    Item::Type(_) | Item::Enum(_) => items.push(item),
                    Item::Tool(t) if root => {
                        let name = t.name.text.clone();
                        match first_tool.get(&name) {
                            Some(&first) if !here.contains(&name) => {
                                clashes.push(
                                    Diagnostic::error(
                                        Code::DuplicateName,
                                        t.name.span,
                                        format!("tool `{name}` is defined in two files of the set"),
                                    )
                                    .with_label("defined again here")
                                    .with_related(first, "first defined here")
                                    .with_help(
                                        "tool names are unique across a toolset; rename one of \
                                         the tools",
                                    ),
                                );
                            }
                            _ => {
                                first_tool.entry(name.clone()).or_insert(t.name.span);
                                here.insert(name);
                                items.push(item);
                            }
                        }
                    }
                    _ if root => items.push(item),
                    _ => {}
                }
            }
        }
        let file = ast::File { items };
        let (module, checked) = check::check(&file, &self.broken);
        let mut all = std::mem::take(&mut self.diagnostics);
        all.extend(clashes);
        // A name both imported and defined is reported as that clash; the check would call the
        // two definitions a duplicate again.
        let clashes: HashSet<Span> = all
            .iter()
            .filter(|d| d.code == Code::DuplicateName)
            .flat_map(|d| d.related.iter().map(|r| r.span))
            .collect();
        all.extend(checked.into_iter().filter(|d| {
            d.code != Code::DuplicateName || !d.related.iter().any(|r| clashes.contains(&r.span))
        }));
        let places = Places {
            files: self
                .modules
                .iter()
                .enumerate()
                .map(|(m, module)| {
                    let file = match &module.given {
                        Some(given) => Some(given.clone()),
                        None if m == 0 && !self.roots_named => None,
                        None => Some(module.source.clone()),
                    };
                    (module.base, file)
                })
                .collect(),
        };
        let mut all: Vec<Diagnostic> = all.into_iter().map(|d| places.place(d)).collect();
        crate::diagnostic::sort(&mut all);
        // Syntax errors are not the check's, so its module alone does not say the build is good.
        let module = module.filter(|_| !all.iter().any(Diagnostic::is_error));
        let tool_roots = module
            .as_ref()
            .map(|module| {
                let root_index: HashMap<usize, usize> = self
                    .root_of
                    .iter()
                    .enumerate()
                    .rev()
                    .map(|(r, &m)| (m, r))
                    .collect();
                module
                    .tools
                    .iter()
                    .map(|t| {
                        let m = places.at(t.span.start);
                        root_index.get(&m).copied().unwrap_or(0)
                    })
                    .collect()
            })
            .unwrap_or_default();
        CompiledSet {
            module,
            diagnostics: all,
            tool_roots,
            places,
        }
    }
}

/// What removing the `i`th name of `import` (in `module`) takes out of the source: the name and
/// the comma that joins it to the next (or, for the last, to the one before), or, for the only
/// name, the whole import and its line break.
fn import_removal(module: &Module, import: &ast::ImportDef, i: usize) -> Span {
    let names = &import.names;
    match (i.checked_sub(1), names.get(i), names.get(i + 1)) {
        (_, Some(n), Some(next)) => Span::new(n.span.start, next.span.start),
        (Some(before), Some(n), None) => Span::new(names[before].span.end, n.span.end),
        _ => {
            let text = module.source.text();
            let end = import.span.end.saturating_sub(module.base);
            let rest = text.get(end..).unwrap_or_default();
            let line_break = if rest.starts_with("\r\n") {
                2
            } else {
                usize::from(rest.starts_with('\n'))
            };
            Span::new(import.span.start, import.span.end + line_break)
        }
    }
}

/// `to` as a path relative to the folder of `from` (both names of a build).
fn relative(from: &str, to: &str) -> String {
    let from_dir: Vec<Component> = Path::new(from)
        .parent()
        .map(|p| p.components().collect())
        .unwrap_or_default();
    let to_parts: Vec<Component> = Path::new(to).components().collect();
    let shared = from_dir
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    for _ in shared..from_dir.len() {
        out.push("..");
    }
    for c in &to_parts[shared..] {
        out.push(c.as_os_str());
    }
    let text = out.display().to_string();
    if text.starts_with("..") {
        text
    } else {
        format!("./{text}")
    }
}

/// The names of the types and enums that items define.
fn definitions(items: &[Item]) -> impl Iterator<Item = &ast::Name> {
    items
        .iter()
        .filter(|i| matches!(i, Item::Type(_) | Item::Enum(_)))
        .filter_map(Item::name)
}

/// Whether a parsed file imports anything.
pub(crate) fn has_imports(file: &ast::File) -> bool {
    file.items.iter().any(|i| matches!(i, Item::Import(_)))
}

/// The error for imports in a source compiled without a loader.
pub(crate) fn imports_need_a_loader(file: &ast::File) -> Vec<Diagnostic> {
    file.items
        .iter()
        .filter_map(|i| match i {
            Item::Import(import) => Some(
                Diagnostic::error(
                    Code::UnresolvedImport,
                    import.path_span,
                    "this source imports files, but was compiled on its own",
                )
                .with_label("not loaded")
                .with_help(
                    "compile it from a file (`tooldef check FILE`), or in a program with \
                     `tooldef::compile_with` and a `Loader`",
                ),
            ),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{normalize, normalize_parts, open_regular};
    use std::path::Path;

    /// A FIFO put where a file was checked is refused once open, and the open does not wait
    /// for a writer (a wait that never returns fails the test).
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_opened_without_waiting_and_refused() {
        use std::sync::mpsc;
        use std::time::Duration;

        let dir = std::env::temp_dir().join(format!("tooldef-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("swapped.tool");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if !made {
            eprintln!("notice: mkfifo is unavailable; the test is skipped");
            return;
        }
        let file = dir.join("file.tool");
        std::fs::write(&file, "/// t\ntool t {}\n").unwrap();
        let name = fifo.display().to_string();
        let (sent, got) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = sent.send(open_regular(Path::new(&name)).map(|o| o.is_some()));
        });
        let opened = got
            .recv_timeout(Duration::from_secs(20))
            .expect("opening a FIFO waited for a writer");
        assert!(!opened.expect("a FIFO opens"), "a FIFO taken for a file");
        let opened = open_regular(&file).expect("a file opens");
        assert!(opened.is_some_and(|(_, meta)| meta.len() > 0));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dots_are_taken_back_by_one_rule() {
        for (path, want) in [
            ("a/../../b", "../b"),
            ("../../x", "../../x"),
            ("../../../x/../y", "../../../y"),
            ("./a/./b/..", "a"),
            ("a/b/c/../../shared.tool", "a/shared.tool"),
            ("c/../../../shared.tool", "../../shared.tool"),
            ("/a/b/../c", "/a/c"),
            ("/a/../../b", "/b"),
            ("/..", "/"),
            ("/../..", "/"),
            ("a/..", ""),
        ] {
            assert_eq!(normalize(Path::new(path)), want, "{path}");
        }
    }

    #[test]
    fn the_root_parts_are_kept_whatever_they_hold() {
        let uri = ["file:", "", "", "w", "..", "..", "x.tool"];
        assert_eq!(normalize_parts(3, uri), ["file:", "", "", "x.tool"]);
        assert_eq!(normalize_parts(0, ["..", "..", "a", ".."]), ["..", ".."]);
    }
}
