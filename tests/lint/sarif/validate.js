// tests/lint/sarif/validate.js LOG.sarif...: validates SARIF logs against the SARIF 2.1.0 JSON
// schema (the one Microsoft's SARIF multitool ships) with ajv, then with the multitool's own
// rules (`Sarif.Multitool validate`), which check what a schema cannot (rule ids consistent
// with the driver's rules, URIs). Prints one TAP line per log and check; exits 1 on any
// failure. Run by scripts/sarif-check, from the directory npm ci installed into.
'use strict';
const fs = require('fs');
const path = require('path');
const cp = require('child_process');
const Ajv2020 = require('ajv/dist/2020');
const addFormats = require('ajv-formats');

const base = path.join(__dirname, 'node_modules', '@microsoft', 'sarif-multitool-linux');
const schema = JSON.parse(fs.readFileSync(path.join(base, 'sarif-2.1.0.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const valid = ajv.compile(schema);
const tool = path.join(base, 'Sarif.Multitool');
fs.chmodSync(tool, 0o755); // its postinstall (chmod) is not run by npm ci --ignore-scripts
let n = 0, failed = 0;
const check = (name, ok, why) => {
  n++;
  console.log(`${ok ? 'ok' : 'not ok'} ${n} - ${name}`);
  if (!ok) { failed++; for (const l of String(why).split('\n').slice(0, 20)) console.log(`# ${l}`); }
};
for (const f of process.argv.slice(2)) {
  const log = JSON.parse(fs.readFileSync(f, 'utf8'));
  check(`${path.basename(f)}: the SARIF 2.1.0 schema`, valid(log), JSON.stringify(valid.errors, null, 1));
  const out = f + '.multitool.sarif';
  fs.rmSync(out, { force: true });
  const r = cp.spawnSync(tool, ['validate', f, '-o', out, '--quiet'], { encoding: 'utf8' });
  let errors = [];
  if (r.status === 0 && fs.existsSync(out)) {
    const v = JSON.parse(fs.readFileSync(out, 'utf8'));
    const run = v.runs[0];
    errors = (run.results || []).filter(x => (x.level || 'warning') === 'error')
      .map(x => `${x.ruleId}: ${JSON.stringify(x.message)}`);
    if (run.invocations && run.invocations[0] && run.invocations[0].executionSuccessful === false)
      errors.push('the multitool did not finish');
  } else {
    errors.push(`the multitool exited ${r.status}: ${r.stderr || r.stdout}`);
  }
  check(`${path.basename(f)}: the SARIF multitool's rules`, errors.length === 0, errors.join('\n'));
}
console.log(`1..${n}`);
console.log(`${n - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
