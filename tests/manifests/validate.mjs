// tests/manifests/validate.mjs FILE... [--invalid FILE...]: every Kubernetes object of the files (JSON or YAML; one
// object, a List or a YAML stream) validated against the JSON schema that kubernetes-models
// generates from Kubernetes' published OpenAPI (the v1 APIs of the release it names): types,
// required fields, enums. One TAP line per object; an object of a kind the schemas do not
// have (KubeSchedulerConfiguration, dracel's own TierPolicy) is a skip that names it, never a
// pass. The objects of the files after --invalid must each fail (so that the check is seen to
// catch what it is for). Exits 1 on any failure. Run by scripts/manifest-check from the directory npm ci
// installed into.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

// apiVersion -> the module of its kinds
const groups = async (apiVersion) => {
  const mod = apiVersion.includes('/') ? apiVersion : `v1`;
  if (!/^[a-z0-9.\-]+(\/v[0-9a-z]+)?$/.test(mod)) return null;
  try {
    return await import(`kubernetes-models/${mod}`);
  } catch {
    return null;
  }
};

let n = 0, failed = 0;
const tap = (ok, name, why, skip) => {
  n++;
  console.log(`${ok ? 'ok' : 'not ok'} ${n} - ${name}${skip ? ` # SKIP ${skip}` : ''}`);
  if (!ok) {
    failed++;
    for (const l of String(why).split('\n').slice(0, 20)) console.log(`#   ${l}`);
  }
};

const objectsOf = (v, out) => {
  if (Array.isArray(v)) { for (const x of v) objectsOf(x, out); return out; }
  if (!v || typeof v !== 'object') return out;
  if (typeof v.kind === 'string' && v.kind.endsWith('List') && Array.isArray(v.items)) {
    for (const x of v.items) objectsOf(x, out);
    return out;
  }
  if (typeof v.apiVersion === 'string' && typeof v.kind === 'string') out.push(v);
  return out;
};

let invalid = false;
for (const file of process.argv.slice(2)) {
  if (file === '--invalid') { invalid = true; continue; }
  const text = fs.readFileSync(file, 'utf8');
  const docs = YAML.parseAllDocuments(text);
  const objs = [];
  for (const d of docs) {
    if (d.errors.length) { tap(false, `${file}: YAML`, d.errors[0].message); continue; }
    objectsOf(d.toJS(), objs);
  }
  for (const o of objs) {
    const name = `${path.relative(process.cwd(), file) || file}: ${o.apiVersion} ${o.kind} ${o.metadata?.namespace ? o.metadata.namespace + '/' : ''}${o.metadata?.name ?? ''}`;
    const mod = await groups(o.apiVersion);
    const Model = mod && mod[o.kind];
    if (!Model || typeof Model !== 'function') {
      tap(true, name, '', 'not among the schemas of Kubernetes\' OpenAPI');
      continue;
    }
    let why = null;
    try {
      new Model(o).validate();
    } catch (e) {
      why = e.message;
    }
    if (invalid)
      tap(why !== null, `${name}: refused (${why ?? 'accepted'})`, 'a broken object was accepted');
    else
      tap(why === null, name, why);
  }
}
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
