// Tokenizes `.tool` sources with the TextMate engine VS Code uses (vscode-textmate on
// vscode-oniguruma) and checks the grammar in `syntaxes/tool.tmLanguage.json`:
//
// - every regex in the grammar compiles, and every `#name` include names a repository rule;
// - every non-blank piece of every example (`../../examples/*.tool`, or the directories or files
//   given as arguments) gets a scope of its own: one beyond `source.tool` and the `meta.*` scopes
//   of the blocks around it; none is `invalid.*`; every block the grammar opens is closed by the
//   end of the file;
// - inline sources get the specific scopes they must (doc comment vs comment, raw strings,
//   escapes, attributes, keywords, numbers, ...).
//
// Run: `npm test` (after `npm ci`). Exits non-zero on any failure, naming file:line:column.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const grammarPath = path.join(root, 'syntaxes', 'tool.tmLanguage.json');
const SCOPE = 'source.tool';

let passed = 0;
let failed = 0;
function report(name, problems) {
  if (problems.length === 0) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}`);
    for (const p of problems.slice(0, 20)) console.log(`     ${p}`);
    if (problems.length > 20) console.log(`     ... and ${problems.length - 20} more`);
  }
}

// ------------------------------------------------------------------------------------------------
// The engine

const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
const onigLib = Promise.resolve({
  createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
  createOnigString: (s) => new oniguruma.OnigString(s),
});

const grammarText = fs.readFileSync(grammarPath, 'utf8');
const rawGrammar = JSON.parse(grammarText);

// ------------------------------------------------------------------------------------------------
// Static checks: every regex compiles, every include resolves

function* walkRules(node, where) {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* walkRules(node[i], `${where}[${i}]`);
  } else if (node && typeof node === 'object') {
    yield [node, where];
    for (const [k, v] of Object.entries(node)) {
      if (v && typeof v === 'object') yield* walkRules(v, `${where}.${k}`);
    }
  }
}

{
  const problems = [];
  if (rawGrammar.scopeName !== SCOPE) problems.push(`scopeName is ${rawGrammar.scopeName}, not ${SCOPE}`);
  const repo = rawGrammar.repository ?? {};
  let regexes = 0;
  for (const [rule, where] of walkRules(rawGrammar, 'grammar')) {
    for (const key of ['match', 'begin', 'end', 'while']) {
      if (typeof rule[key] !== 'string') continue;
      // vscode-textmate fills back-references (`\1`) in `end`/`while` with the text `begin`
      // captured; compile them with an empty capture, as it would.
      const source = key === 'end' || key === 'while' ? rule[key].replace(/\\(\d+)/g, '') : rule[key];
      regexes++;
      try {
        new oniguruma.OnigScanner([source]).dispose();
      } catch (e) {
        problems.push(`${where}.${key}: regex does not compile (${e.message}): ${rule[key]}`);
      }
    }
    if (typeof rule.include === 'string') {
      const inc = rule.include;
      if (inc.startsWith('#') && !(inc.slice(1) in repo)) {
        problems.push(`${where}.include: no repository rule ${inc}`);
      } else if (!inc.startsWith('#') && inc !== '$self' && inc !== '$base') {
        problems.push(`${where}.include: unexpected include ${inc}`);
      }
    }
  }
  if (regexes === 0) problems.push('the grammar has no regexes');
  report(`grammar: ${regexes} regexes compile, includes resolve`, problems);
}

const registry = new vsctm.Registry({
  onigLib,
  loadGrammar: async (scopeName) =>
    scopeName === SCOPE ? vsctm.parseRawGrammar(grammarText, grammarPath) : null,
});
const grammar = await registry.loadGrammar(SCOPE);
if (!grammar) {
  console.log('FAIL the grammar did not load');
  process.exit(1);
}

/** Tokenizes `text` line by line: tokens with 1-based line numbers, and problems with the engine. */
function tokenize(text) {
  const lines = text.split(/\r?\n/);
  const tokens = [];
  const problems = [];
  let stack = vsctm.INITIAL;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let r;
    try {
      r = grammar.tokenizeLine(line, stack, 5000);
    } catch (e) {
      // An invalid regex is compiled, and throws, the first time its rule is reached.
      problems.push(`${i + 1}:1: the engine failed: ${e.message}`);
      break;
    }
    if (r.stoppedEarly) problems.push(`${i + 1}:1: tokenizing the line took too long`);
    for (const t of r.tokens) {
      tokens.push({ line: i + 1, start: t.startIndex, text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    }
    stack = r.ruleStack;
  }
  return { lines, tokens, stack, problems };
}

const has = (scopes, s) => scopes.some((x) => x === s || x.startsWith(s + '.'));
/** A scope of its own: not the file's, not a block's `meta.*`. */
const ownScope = (scopes) => scopes.some((s) => s !== SCOPE && !s.startsWith('meta.'));
const show = (t) => `${JSON.stringify(t.text)} [${t.scopes.join(' ')}]`;
const at = (t) => `${t.line}:${t.start + t.text.search(/\S/) + 1}`;

/** The coverage checks: nothing bare, nothing invalid (unless allowed), every block closed. */
function coverage(label, text, { allowInvalid = false } = {}) {
  const { lines, tokens, stack, problems } = tokenize(text);
  const out = problems.map((p) => `${label}:${p}`);
  for (const t of tokens) {
    if (!/\S/.test(t.text.replace(/\uFEFF/g, ''))) continue;
    if (!ownScope(t.scopes)) out.push(`${label}:${at(t)}: no scope: ${show(t)}`);
    else if (!allowInvalid && t.scopes.some((s) => s.startsWith('invalid'))) {
      out.push(`${label}:${at(t)}: marked invalid: ${show(t)}`);
    }
  }
  // A line that starts with exactly three slashes is a doc comment; `//`, `////` and more are
  // comments (`//!`, the file's doc, may be either).
  for (const t of tokens) {
    const line = lines[t.line - 1];
    if (t.start !== line.search(/\S/) || !line.startsWith('//', t.start)) continue;
    const doc = /^\/\/\/(?!\/)/.test(line.slice(t.start));
    const wrong = doc
      ? !has(t.scopes, 'comment.line.documentation') || has(t.scopes, 'comment.line.double-slash')
      : !has(t.scopes, 'comment.line') ||
        (!line.startsWith('//!', t.start) && has(t.scopes, 'comment.line.documentation'));
    if (wrong) out.push(`${label}:${at(t)}: a ${doc ? 'doc comment' : 'comment'} scoped as ${show(t)}`);
  }
  if (stack.depth !== 1) out.push(`${label}: ${stack.depth - 1} block(s) still open at the end of the file`);
  return out;
}

// ------------------------------------------------------------------------------------------------
// The examples

const args = process.argv.slice(2);
const inputs = args.length > 0 ? args : [path.resolve(root, '../../examples')];
const files = [];
for (const input of inputs) {
  const p = path.resolve(input);
  if (fs.statSync(p).isDirectory()) {
    for (const f of fs.readdirSync(p).sort()) if (f.endsWith('.tool')) files.push(path.join(p, f));
  } else {
    files.push(p);
  }
}
if (files.length === 0) {
  report(`examples: .tool files in ${inputs.join(', ')}`, ['no .tool file found']);
}
for (const file of files) {
  const label = path.relative(process.cwd(), file);
  const text = fs.readFileSync(file, 'utf8');
  report(`${label} (${text.split('\n').length} lines)`, coverage(label, text));
}

// ------------------------------------------------------------------------------------------------
// Inline cases: specific scopes

/**
 * Each expectation: `find` (a unique piece of the source), optionally `part` (the piece within it
 * to look at), `scope` (every character of the piece must carry it, or a scope under it) and
 * `not` (scopes none of them may carry).
 */
const cases = [
  {
    name: 'doc comment, comment, four slashes, file doc',
    source: [
      '//! What this file is.',
      '/// The tool.',
      '// A plain comment.',
      '//// Four slashes.',
      'tool ping {}',
    ],
    expect: [
      { find: '/// The tool.', scope: 'comment.line.documentation', not: ['comment.line.double-slash'] },
      { find: '// A plain comment.', scope: 'comment.line.double-slash', not: ['comment.line.documentation'] },
      { find: '//// Four slashes.', scope: 'comment.line.double-slash', not: ['comment.line.documentation'] },
      { find: '//! What this file is.', scope: 'comment' },
      { find: 'tool ping', part: 'tool', scope: 'keyword.declaration.tool' },
      { find: 'tool ping', part: 'ping', scope: 'entity.name.function' },
    ],
  },
  {
    name: 'raw strings keep backslashes and quotes',
    source: [
      'type Digits = string @pattern(r"^\\d+$") @after_raw',
      'type Quoted = string @pattern(r#"say "hi" \\n"#) @after_hashes',
      'type Path = string @pattern(r##"a"#b"##)',
      '/// Raw names.',
      'tool r#"kb.raw"# {',
      '  r"x-y"?: string = r"\\"',
      '}',
    ],
    expect: [
      { find: 'r"^\\d+$"', scope: 'string.quoted.raw' },
      { find: 'r"^\\d+$"', part: '\\d', scope: 'string.quoted.raw', not: ['constant.character.escape', 'invalid'] },
      { find: '"hi" \\n', scope: 'string.quoted.raw', not: ['constant.character.escape', 'invalid'] },
      { find: 'a"#b', scope: 'string.quoted.raw' },
      { find: '@after_raw', part: 'after_raw', scope: 'entity.other.attribute-name', not: ['string'] },
      { find: '@after_hashes', part: 'after_hashes', scope: 'entity.other.attribute-name', not: ['string'] },
      { find: 'kb.raw', scope: 'entity.name.function' },
      { find: 'r#"kb.raw"#', scope: 'string.quoted.raw' },
      { find: 'r"x-y"', scope: 'variable.other.property' },
      { find: 'r"x-y"', scope: 'string.quoted.raw' },
      { find: 'r"\\"', scope: 'string.quoted.raw', not: ['constant.character.escape', 'invalid'] },
      { find: 'type Digits', part: 'type', scope: 'keyword.declaration.type' },
      { find: 'type Digits', part: 'Digits', scope: 'entity.name.type' },
      { find: 'Digits = string', part: '=', scope: 'keyword.operator' },
      { find: 'Digits = string', part: 'string', scope: 'support.type.primitive' },
    ],
  },
  {
    name: 'string escapes',
    allowInvalid: true,
    source: [
      '/// A tool with a quoted name.',
      'tool "kb.search" {',
      '  greeting?: string = "a\\n\\"\\u00e9\\/ \\q"',
      '  "first-name"?: string',
      '}',
    ],
    expect: [
      { find: '"kb.search"', scope: 'entity.name.function' },
      { find: '"kb.search"', scope: 'string.quoted.double' },
      { find: '\\n', scope: 'constant.character.escape' },
      { find: '\\"', scope: 'constant.character.escape' },
      { find: '\\u00e9', scope: 'constant.character.escape' },
      { find: '\\/', scope: 'constant.character.escape' },
      { find: '\\q', scope: 'invalid.illegal' },
      { find: 'greeting?', part: 'greeting', scope: 'variable.other.property' },
      { find: 'greeting?', part: '?', scope: 'keyword.operator.optional' },
      { find: '"first-name"', scope: 'variable.other.property' },
      { find: '"first-name"', scope: 'string.quoted.double' },
    ],
  },
  {
    name: 'numbers',
    source: ['type N = integer @min(-90) @max(1440) @multiple_of(0.25) @x(2e-3, 1E+2, 0, -1.5e10)'],
    expect: [
      { find: '-90', scope: 'constant.numeric.integer' },
      { find: '1440', scope: 'constant.numeric.integer' },
      { find: '0.25', scope: 'constant.numeric.decimal' },
      { find: '2e-3', scope: 'constant.numeric.decimal' },
      { find: '1E+2', scope: 'constant.numeric.decimal' },
      { find: ' 0,', part: '0', scope: 'constant.numeric.integer' },
      { find: '-1.5e10', scope: 'constant.numeric.decimal' },
      { find: '@min', part: 'min', scope: 'entity.other.attribute-name' },
      { find: '@min', part: '@', scope: 'punctuation.definition.attribute' },
    ],
  },
  {
    name: 'keywords, contextual names, types and values',
    source: [
      'import { Address, Money } from "./common.tool"',
      'import {',
      '  Later',
      '} from r"./raw.tool"',
      '/// Colors.',
      'enum Color { red, "dark blue", 3 }',
      '/// A tool called type.',
      '@read_only @retry(times: 2, wait: date-time)',
      'tool type -> map<Address> {',
      '  type: string',
      '  tool?: Money | null',
      '  list: [integer, boolean?, ...: string][]',
      '  flag: true',
      '  sort?: { by: string } = { by: "name", n: [1, false] }',
      '  ...',
      '}',
    ],
    expect: [
      { find: 'import { Address', part: 'import', scope: 'keyword.control.import' },
      { find: 'import { Address', part: 'Address', scope: 'entity.name.type' },
      { find: '} from "', part: 'from', scope: 'keyword.control.from' },
      { find: '"./common.tool"', scope: 'string.quoted.double' },
      { find: 'Later', scope: 'entity.name.type' },
      { find: 'r"./raw.tool"', scope: 'string.quoted.raw' },
      { find: 'enum Color', part: 'enum', scope: 'keyword.declaration.enum' },
      { find: 'enum Color', part: 'Color', scope: 'entity.name.type' },
      { find: 'red', scope: 'variable.other.enummember' },
      { find: '"dark blue"', scope: 'string.quoted.double' },
      { find: ' 3 }', part: '3', scope: 'constant.numeric.integer' },
      { find: '@read_only', part: 'read_only', scope: 'entity.other.attribute-name' },
      { find: 'times: 2', part: 'times', scope: 'variable.parameter' },
      { find: 'date-time', scope: 'constant.other.word' },
      { find: 'tool type', part: 'tool', scope: 'keyword.declaration.tool' },
      { find: 'tool type', part: 'type', scope: 'entity.name.function', not: ['keyword'] },
      { find: '->', scope: 'keyword.operator.arrow' },
      { find: 'map<', part: 'map', scope: 'support.type' },
      { find: 'map<', part: '<', scope: 'punctuation.definition.typeparameters.begin' },
      { find: '<Address>', part: '>', scope: 'punctuation.definition.typeparameters.end' },
      { find: '  type: string', part: 'type', scope: 'variable.other.property', not: ['keyword'] },
      { find: '  type: string', part: ':', scope: 'punctuation.separator.key-value' },
      { find: '  tool?:', part: 'tool', scope: 'variable.other.property', not: ['keyword'] },
      { find: 'Money | null', part: 'Money', scope: 'entity.name.type' },
      { find: 'Money | null', part: '|', scope: 'keyword.operator.union' },
      { find: 'Money | null', part: 'null', scope: 'constant.language.null' },
      { find: 'boolean?', part: '?', scope: 'keyword.operator.optional' },
      { find: '...: string]', part: '...', scope: 'keyword.operator.rest' },
      { find: '[integer', part: '[', scope: 'punctuation.section.brackets.begin' },
      { find: 'string][]', part: '[]', scope: 'punctuation.section.brackets' },
      { find: 'flag: true', part: 'true', scope: 'constant.language.boolean' },
      { find: '} = {', part: '=', scope: 'keyword.operator.assignment' },
      { find: '{ by: "name"', part: 'by', scope: 'support.type.property-name' },
      { find: '{ by: string', part: 'by', scope: 'variable.other.property' },
      { find: 'false]', part: 'false', scope: 'constant.language.boolean' },
      { find: '  ...\n', part: '...', scope: 'keyword.operator.rest' },
    ],
  },
];

for (const c of cases) {
  const source = c.source.join('\n') + '\n';
  const label = `inline:${c.name}`;
  const problems = coverage(label, source, { allowInvalid: c.allowInvalid });
  const { lines, tokens } = tokenize(source);
  const lineStarts = [];
  for (let i = 0, off = 0; i < lines.length; off += lines[i].length + 1, i++) lineStarts.push(off);
  for (const e of c.expect) {
    const where = source.indexOf(e.find);
    if (where < 0 || source.indexOf(e.find, where + 1) >= 0) {
      problems.push(`${label}: ${JSON.stringify(e.find)} is not once in the source`);
      continue;
    }
    const part = e.part ?? e.find;
    const from = where + e.find.indexOf(part);
    for (let off = from; off < from + part.length; off++) {
      if (/\s/.test(source[off])) continue;
      let line = 0;
      while (line + 1 < lineStarts.length && lineStarts[line + 1] <= off) line++;
      const col = off - lineStarts[line];
      const t = tokens.find((t) => t.line === line + 1 && t.start <= col && col < t.start + t.text.length);
      const pos = `${label}:${line + 1}:${col + 1}`;
      if (!t) {
        problems.push(`${pos}: no token for ${JSON.stringify(source[off])}`);
        break;
      }
      const bad = [];
      if (!has(t.scopes, e.scope)) bad.push(`wants ${e.scope}`);
      for (const n of e.not ?? []) if (has(t.scopes, n)) bad.push(`must not be ${n}`);
      if (bad.length > 0) {
        problems.push(`${pos}: ${JSON.stringify(part)} in ${JSON.stringify(e.find)} ${bad.join(', ')}; token ${show(t)}`);
        break;
      }
    }
  }
  report(label, problems);
}

console.log(`tokenize: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
