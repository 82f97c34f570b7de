#!/usr/bin/env node
// run.js: runs the CEL conformance suite (google/cel-spec's simple tests, as published on npm in
// @bufbuild/cel-spec) against dracel, in the plain CEL environment (DESIGN.md).
//
// scripts/conformance fetches the pinned package, builds tests/conformance/runner and calls:
//   node run.js --suite DIR --runner PATH --known FILE [--only PREFIX] [--verbose] [--list-failing]
// DIR is the unpacked package (the directory holding package.json). The suite's tests are read
// from dist/cjs/testdata/conformance.js (plain data), converted from protobuf JSON values to
// dracel's typed JSON, and evaluated by `runner` (C, linked to the library: see runner.c for why).
//
// Every test is named file/section/test (a repeated name in a section gets " (2)", " (3)"...).
// A test is skipped when its file, section or name is in SKIP below (features dracel does not
// have, with the reason); every other test must pass unless known-failures.txt lists it. The run
// fails when a test fails that the list does not name, when a listed test passes (remove its
// line: the list only shrinks), and when the list names a test that is not run.
// --list-failing prints every failing test as a list line, to help triage; it never edits the list.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');

// ---- What is not run, and why. Keys: "file", "file/section" or "file/section/test".
const PROTO = 'protobuf messages, wrapper types and well-known types: dracel has no protobuf';
const TIME = 'timestamp and duration: not supported by dracel';
const SKIP = {
  'dynamic': PROTO + ' (wrappers, Struct/Value/ListValue, Any)',
  'enums': 'protobuf enums: ' + PROTO,
  'proto2': PROTO,
  'proto2_ext': 'protobuf extensions: ' + PROTO,
  'proto3': PROTO,
  'wrappers': PROTO,
  'timestamps': TIME,
  'namespace': 'containers (namespaced name resolution): not supported by dracel',
  'unknowns': 'unknown values (partial evaluation): not supported by dracel',
  'block_ext': "cel.block: cel-go's internal optimizer form, not in Kubernetes' CEL environment",
  'math_ext': "the math extension (math.greatest, bitwise ops, ...): not in Kubernetes' CEL environment",
  'encoders_ext': "the encoders extension (base64): not in Kubernetes' CEL environment",
  'comparisons/eq_wrapper': PROTO,
  'parse/struct_field_names': 'message field names: ' + PROTO,
  'type_deductions/field_access': PROTO,
  'type_deductions/wrappers': PROTO,
  'type_deductions/type_parameters': 'custom function declarations: the C API declares only variables',
  'type_deductions/functions/function_result_type': 'custom function declarations: the C API declares only variables',
};
// Single tests of otherwise supported sections, grouped by reason.
const SKIP_TESTS = {
  [PROTO]: [
    'comparisons/eq_literal/eq_dyn_json_null',
    'comparisons/eq_literal/not_eq_dyn_proto2_msg_null',
    'comparisons/eq_literal/not_eq_dyn_proto3_msg_null',
    'comparisons/ne_literal/ne_proto2',
    'comparisons/ne_literal/ne_proto3',
    'comparisons/ne_literal/ne_proto2_missing_fields_neq',
    'comparisons/ne_literal/ne_proto3_missing_fields_neq',
    'comparisons/ne_literal/ne_proto_nan_not_equal',
    'comparisons/ne_literal/ne_proto_different_types',
    'comparisons/ne_literal/ne_proto2_any_unpack',
    'comparisons/ne_literal/ne_proto2_any_unpack_bytewise_fallback',
    'comparisons/ne_literal/ne_proto3_any_unpack',
    'comparisons/ne_literal/ne_proto3_any_unpack_bytewise_fallback',
    'optionals/optionals/has_optional_ofNonZeroValue_struct_optional_ofNonZeroValue_map_optindex_field',
    'optionals/optionals/optional_ofNonZeroValue_struct_optional_ofNonZeroValue_map_optindex_field',
    'optionals/optionals/struct_map_optindex_field',
    'optionals/optionals/struct_optional_ofNonZeroValue_map_optindex_field',
    'optionals/optionals/struct_map_optindex_field_nested',
    'optionals/optionals/struct_list_optindex_field',
    'optionals/optionals/empty_struct_optindex_hasValue',
    'optionals/optionals/optional_empty_struct_optindex_hasValue',
    'optionals/optionals/struct_optindex_value',
    'optionals/optionals/optional_struct_optindex_value',
    'optionals/optionals/optional_struct_optindex_index_value',
    'parse/nest/message_literal',
    'parse/repeat/select',
    'parse/repeat/message_literal',
    'parse/whitespace/spaces',
    'parse/whitespace/tabs',
    'parse/whitespace/new_lines',
    'parse/whitespace/new_pages',
    'parse/whitespace/carriage_returns',
    'parse/comments/new_line_terminated',
    'string_ext/format_errors/object not allowed',
    'string_ext/format_errors/object inside list',
    'string_ext/format_errors/object inside map',
    'type_deductions/complex_initializers/struct',
    'type_deductions/flexible_type_parameter_assignment/comprehension_type_var_aliasing',
    'type_deductions/flexible_type_parameter_assignment/overload_type_var_aliasing',
    'type_deductions/flexible_type_parameter_assignment/list_parameters_do_not_unify',
    'type_deductions/legacy_nullable_types/null_assignable_to_message_parameter_candidate',
    'type_deductions/legacy_nullable_types/null_assignable_to_duration_parameter_candidate',
    'type_deductions/legacy_nullable_types/null_assignable_to_timestamp_parameter_candidate',
  ],
  [TIME]: [
    'comparisons/eq_literal/not_eq_dyn_duration_null',
    'comparisons/eq_literal/not_eq_dyn_timestamp_null',
    'conversions/int/timestamp',
    'conversions/identity/duration',
    'conversions/identity/timestamp',
    'string_ext/format/timestamp support for string',
    'string_ext/format/duration support for string',
    'string_ext/format/list support for string',
    'string_ext/format/map support for string',
    'string_ext/format/dyntype support for timestamp',
    'string_ext/format/dyntype support for duration',
    'string_ext/format/dyntype support for maps',
    'string_ext/format_errors/duration substitution not allowed with decimal clause',
  ],
};

// ---- Command line.
function usage(msg) {
  process.stderr.write(`run.js: ${msg}\nusage: node run.js --suite DIR --runner PATH --known FILE ` +
    '[--only PREFIX] [--verbose] [--list-failing]\n');
  process.exit(2);
}
const opt = { only: '', verbose: false, listFailing: false };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const val = () => (++i < process.argv.length ? process.argv[i] : usage(`${a} takes a value`));
  if (a === '--suite') opt.suite = val();
  else if (a === '--runner') opt.runner = val();
  else if (a === '--known') opt.known = val();
  else if (a === '--only') opt.only = val();
  else if (a === '--verbose') opt.verbose = true;
  else if (a === '--list-failing') opt.listFailing = true;
  else usage(`unknown argument ${a}`);
}
if (!opt.suite || !opt.runner || !opt.known) usage('--suite, --runner and --known are required');

// ---- Conversion: cel.expr.Value (protobuf JSON) -> typed JSON (DESIGN.md).
class Unsupported extends Error {}

function b64norm(s) {
  return Buffer.from(s, 'base64').toString('base64');
}

function toTyped(v) {
  if (v === null || typeof v !== 'object') throw new Unsupported(`not a Value: ${JSON.stringify(v)}`);
  if ('int64Value' in v) return { int: String(v.int64Value) };
  if ('uint64Value' in v) return { uint: String(v.uint64Value) };
  if ('doubleValue' in v) {
    const d = v.doubleValue;
    if (typeof d === 'number' || d === 'NaN' || d === 'Infinity' || d === '-Infinity') return { double: d };
    return { double: Number(d) };
  }
  if ('stringValue' in v) return { string: v.stringValue };
  if ('bytesValue' in v) return { bytes: b64norm(v.bytesValue) };
  if ('boolValue' in v) return { bool: v.boolValue };
  if ('nullValue' in v) return { null: null };
  if ('listValue' in v) return { list: (v.listValue.values || []).map(toTyped) };
  if ('mapValue' in v) return { map: (v.mapValue.entries || []).map((e) => [toTyped(e.key), toTyped(e.value)]) };
  if ('typeValue' in v) return { type: v.typeValue };
  throw new Unsupported(`no typed JSON for ${Object.keys(v).join(',') || 'an empty Value'}`);
}

// Typed JSON text, keeping the sign of -0.0 (JSON.stringify writes -0 as 0).
function typedText(t) {
  return JSON.stringify(t, (k, x) => (Object.is(x, -0) ? '__NEGZERO__' : x)).replace(/"__NEGZERO__"/g, '-0.0');
}

// cel.expr.Type (protobuf JSON) -> cel-go's type name, as dracel_program_type() prints it.
const PRIM = { BOOL: 'bool', INT64: 'int', UINT64: 'uint', DOUBLE: 'double', STRING: 'string', BYTES: 'bytes' };
function typeName(t) {
  if ('primitive' in t) return PRIM[t.primitive] || `?${t.primitive}`;
  if ('null' in t) return 'null_type';
  if ('dyn' in t) return 'dyn';
  if ('listType' in t) return `list(${typeName(t.listType.elemType)})`;
  if ('mapType' in t) return `map(${typeName(t.mapType.keyType)}, ${typeName(t.mapType.valueType)})`;
  if ('abstractType' in t) {
    const p = t.abstractType.parameterTypes || [];
    return p.length ? `${t.abstractType.name}(${p.map(typeName).join(', ')})` : t.abstractType.name;
  }
  if ('type' in t) return `type(${typeName(t.type)})`;
  if ('typeParam' in t) return t.typeParam;
  throw new Unsupported(`no type name for ${JSON.stringify(t)}`);
}
// The checker's and the runtime's spellings of the null type differ in cel-go ("null", "null_type").
const normType = (s) => s.replace(/\bnull\b(?!_)/g, 'null_type');

// ---- Comparison of typed JSON values: the suite's rules (maps ignore order, NaN matches NaN),
// otherwise exact: the kinds must agree (1 is not 1u nor 1.0).
function num(d) {
  return d === 'NaN' ? NaN : d === 'Infinity' ? Infinity : d === '-Infinity' ? -Infinity : Number(d);
}
function kindOf(t) {
  const k = Object.keys(t);
  return k.length === 1 ? k[0] : '?';
}
function valueEq(a, b) {
  const ka = kindOf(a);
  if (ka !== kindOf(b)) return false;
  const x = a[ka], y = b[ka];
  switch (ka) {
    case 'int': case 'uint':
      try { return BigInt(x) === BigInt(y); } catch { return false; }
    case 'double': {
      const p = num(x), q = num(y);
      return (Number.isNaN(p) && Number.isNaN(q)) || p === q;
    }
    case 'string': case 'bool': case 'type': return x === y;
    case 'null': return true;
    case 'bytes': return b64norm(x) === b64norm(y);
    case 'list': return x.length === y.length && x.every((e, i) => valueEq(e, y[i]));
    case 'map':
      return x.length === y.length &&
        x.every(([k, v]) => y.some(([k2, v2]) => valueEq(k, k2) && valueEq(v, v2)));
    case 'optional':
      return x === null || y === null ? x === y : valueEq(x, y);
    default: return JSON.stringify(x) === JSON.stringify(y);
  }
}

// ---- The suite.
function loadSuite(dir) {
  const file = path.join(dir, 'dist', 'cjs', 'testdata', 'conformance.js');
  if (!fs.existsSync(file)) usage(`${file} not found: is --suite the unpacked @bufbuild/cel-spec?`);
  const root = require(path.resolve(file)).tests;
  const tests = [];
  tests.names = new Set(); // files and file/section names, tests or not
  for (const f of root.suites || []) {
    tests.names.add(f.name);
    for (const s of f.suites || []) {
      tests.names.add(`${f.name}/${s.name}`);
      const seen = new Map();
      for (const t of s.tests || []) {
        const base = `${f.name}/${s.name}/${t.original.name ?? t.original.expr.replace(/\s+/g, ' ').trim()}`;
        const n = (seen.get(base) || 0) + 1;
        seen.set(base, n);
        tests.push({ id: n === 1 ? base : `${base} (${n})`, file: f.name, section: s.name, t: t.original });
      }
    }
  }
  return tests;
}

function skipReason(test, skipTests) {
  return SKIP[test.file] || SKIP[`${test.file}/${test.section}`] || SKIP[test.id] || skipTests.get(test.id);
}

// Turn one suite test into a runner case, or throw Unsupported.
function toCase(test) {
  const t = test.t;
  const c = { flags: 0, binds: [], want: null };
  if (t.disableCheck) c.flags |= 1;
  if (t.checkOnly) c.flags |= 2;
  if (t.container) throw new Unsupported(`container ${t.container}`);
  const bound = t.bindings || {};
  for (const d of t.typeEnv || []) {
    if (d.function) throw new Unsupported(`declares function ${d.name}`);
    if (!(d.name in bound)) throw new Unsupported(`declares ${d.name} without a value (the C API declares by binding)`);
  }
  for (const [name, b] of Object.entries(bound)) {
    if (!b.value) throw new Unsupported(`binding ${name} is not a value`);
    c.binds.push([name, typedText(toTyped(b.value))]);
  }
  if (t.evalError || t.anyEvalErrors) c.want = { error: true };
  else if (t.typedResult) {
    c.want = { type: typeName(t.typedResult.deducedType) };
    if (t.typedResult.result && !t.checkOnly) c.want.value = toTyped(t.typedResult.result);
  } else if (t.unknown || t.anyUnknowns) throw new Unsupported('unknown values');
  else if ('value' in t) c.want = { value: toTyped(t.value) };
  else c.want = { value: { bool: true } }; // the suite's default matcher
  return c;
}

function encodeCase(test, c) {
  const expr = Buffer.from(test.t.expr, 'utf8');
  const parts = [Buffer.from(`CASE ${c.flags} ${c.binds.length} ${expr.length}\n`), expr, Buffer.from('\n')];
  for (const [name, json] of c.binds) {
    const n = Buffer.from(name, 'utf8'), j = Buffer.from(json, 'utf8');
    parts.push(Buffer.from(`BIND ${n.length} ${j.length}\n`), n, j, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

// Run the cases through the runner; a crash or a hang costs one case (the runner flushes a line
// per case, so the first case without an answer is the culprit) and the rest are run again.
const HANG_MS = 20000;
const runnerProblems = [];
function runBatch(items) {
  return new Promise((resolve) => {
    const out = [];
    const child = spawn(opt.runner, [], { stdio: ['pipe', 'pipe', 'inherit'] });
    let buf = '', timer = null, hung = false;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => { hung = true; child.kill('SIGKILL'); }, HANG_MS);
    };
    arm();
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        out.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        arm();
      }
    });
    child.on('error', (e) => { console.error(`run.js: cannot run ${opt.runner}: ${e.message}`); process.exit(2); });
    child.stdin.on('error', () => {}); // EPIPE after a crash: handled below
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const answers = out.map((l) => {
        try { return JSON.parse(l); } catch { return { broken: l }; }
      });
      if (answers.length >= items.length) {
        if (code !== 0 || signal)
          runnerProblems.push(`runner ${signal ? `killed by ${signal}` : `exited with status ${code}`} ` +
            'after answering every case (a sanitizer report on stderr?)');
        return resolve(answers.slice(0, items.length));
      }
      const why = hung ? `no answer within ${HANG_MS / 1000} s (hang?)`
        : `runner ${signal ? `killed by ${signal}` : `exited with status ${code}`}`;
      const k = Math.min(answers.length, items.length - 1);
      const done = answers.slice(0, k);
      done.push({ crash: why });
      if (k + 1 >= items.length) return resolve(done);
      runBatch(items.slice(k + 1)).then((rest) => resolve(done.concat(rest)));
    });
    child.stdin.end(Buffer.concat(items.map((it) => it.bytes)));
  });
}

function show(v) {
  return v === undefined ? '(nothing)' : typeof v === 'string' ? v : JSON.stringify(v);
}

// The verdict on one answer: null when it passes, else what went wrong.
function judge(c, a) {
  if (a.crash) return `CRASH: ${a.crash}`;
  if (a.broken !== undefined) return `unreadable runner output: ${a.broken}`;
  if (a.bind) return `binding rejected: ${a.bind}`;
  if (a.compile) return `compile error: ${a.compile.split('\n')[0]}`;
  const w = c.want;
  if (w.type !== undefined && normType(a.type || '') !== normType(w.type))
    return `checked type: want ${w.type}, got ${a.type}`;
  if (c.flags & 2) return null;
  const r = a.result || {};
  if (w.error) return 'error' in r ? null : `want an evaluation error, got ${show(r)}`;
  if (w.value === undefined) return null;
  if ('error' in r) return `want ${show(w.value)}, got error: ${r.error}`;
  return valueEq(w.value, r) ? null : `want ${show(w.value)}, got ${show(r)}`;
}

// ---- known-failures.txt: "[deviation]" / "[failure]" headers; "file/section/test  # reason".
function loadKnown(file) {
  const known = new Map();
  const problems = [];
  let kind = null;
  fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    const where = `${path.basename(file)}:${i + 1}`;
    if (/^\s*(#|$)/.test(line)) return;
    const h = line.match(/^\[(deviation|failure)\]\s*$/);
    if (h) { kind = h[1]; return; }
    const m = line.match(/^(.*?\S)\s+#\s*(\S.*)$/);
    if (!m) { problems.push(`${where}: an entry needs a reason: "file/section/test  # reason"`); return; }
    if (!kind) { problems.push(`${where}: entry before any [deviation] or [failure] header`); return; }
    if (known.has(m[1])) problems.push(`${where}: ${m[1]} is listed twice`);
    known.set(m[1], { kind, reason: m[2], where });
  });
  return { known, problems };
}

async function main() {
  const skipTests = new Map();
  for (const [reason, ids] of Object.entries(SKIP_TESTS)) for (const id of ids) skipTests.set(id, reason);
  const all = loadSuite(opt.suite);
  const { known, problems } = loadKnown(opt.known);
  const ids = new Set(all.map((t) => t.id));
  for (const k of [...Object.keys(SKIP), ...skipTests.keys()]) {
    if (!all.names.has(k) && !ids.has(k))
      problems.push(`run.js: SKIP names ${k}, which is not in the suite`);
  }

  let skipped = 0;
  const items = [], failures = [], skipCounts = new Map();
  for (const test of all) {
    if (opt.only && !test.id.startsWith(opt.only)) continue;
    const why = skipReason(test, skipTests);
    if (why) {
      skipped++;
      skipCounts.set(why, (skipCounts.get(why) || 0) + 1);
      continue;
    }
    let c;
    try {
      c = toCase(test);
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      failures.push({ test, why: `cannot convert the test: ${e.message} (add it to SKIP with a reason)` });
      continue;
    }
    items.push({ test, c, bytes: encodeCase(test, c) });
  }
  const answers = items.length ? await runBatch(items) : [];
  let passed = 0;
  items.forEach((it, i) => {
    const why = judge(it.c, answers[i]);
    if (why === null) passed++;
    else failures.push({ test: it.test, why });
  });

  const failing = new Set(failures.map((f) => f.test.id));
  const unexpected = failures.filter((f) => !known.has(f.test.id));
  const knownFailing = failures.length - unexpected.length;
  const fixed = [];
  problems.push(...runnerProblems);
  for (const [id, k] of known) {
    if (!ids.has(id)) problems.push(`${k.where}: ${id} is not a test of the suite: remove its line`);
    else if (opt.only && !id.startsWith(opt.only)) continue;
    else if (skipReason(all.find((t) => t.id === id), skipTests))
      problems.push(`${k.where}: ${id} is skipped (SKIP in run.js): remove its line`);
    else if (!failing.has(id)) fixed.push(id);
  }

  const line = (f) => `${f.test.id}: ${JSON.stringify(f.test.t.expr)}: ${f.why}`;
  if (opt.verbose) {
    for (const [why, n] of skipCounts) console.log(`skipped ${n}: ${why}`);
    for (const f of failures) if (known.has(f.test.id)) console.log(`known   ${line(f)}`);
  }
  for (const f of unexpected) console.log(`FAIL    ${line(f)}`);
  for (const id of fixed) console.log(`FIXED   ${id} passes now: remove its line from known-failures.txt (the list only shrinks)`);
  for (const p of problems) console.log(`PROBLEM ${p}`);
  if (opt.listFailing) {
    console.log('# every failing test, as known-failures.txt lines (triage each: [deviation] or [failure])');
    for (const f of failures) console.log(`${f.test.id}  # ${f.why.replace(/\s+/g, ' ')}`);
  }
  const nDev = [...known.entries()].filter(([id, k]) => k.kind === 'deviation' && failing.has(id)).length;
  console.log(`conformance: ${passed} passed, ${knownFailing} known failures, ${skipped} skipped (unsupported sections)`);
  console.log(`conformance: known failures: ${nDev} deviations (cel-go differs), ${knownFailing - nDev} dracel failures`);
  const bad = unexpected.length + fixed.length + problems.length;
  console.log(`${passed} passed, ${bad} failed`);
  process.exit(bad ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(2); });
