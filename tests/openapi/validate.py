#!/usr/bin/env python3
"""Validate JSON documents against one definition of a Kubernetes OpenAPI v3 document.

usage: validate.py [--partial] [--each] [--allow-unknown] SCHEMA-FILE DEFINITION [JSON-FILE...]

SCHEMA-FILE is an OpenAPI 3.0 document such as
tests/openapi/apis__events.k8s.io__v1_openapi.json; DEFINITION is the name of
one of its components/schemas, e.g. io.k8s.api.events.v1.Event.  Each
JSON-FILE ("-", or none at all: standard input) holds one JSON value; with
--each it holds a JSON array and each element is validated on its own.

The OpenAPI schemas are turned into a JSON Schema (draft 7) document:
  - "nullable": true also accepts null;
  - boolean exclusiveMinimum/exclusiveMaximum (OpenAPI 3.0) become numeric;
  - format int-or-string accepts an integer or a string;
  - every schema that has "properties" and no "additionalProperties" of its
    own gets "additionalProperties": false, so unknown (misspelt) field names
    fail, as they would with the API server's strict field validation;
    --allow-unknown turns this off (schemas marked
    x-kubernetes-preserve-unknown-fields are left open either way);
  - other x-kubernetes-* extensions are ignored.
Also checked: format date-time (RFC 3339; Kubernetes Time and MicroTime);
"integer" means a JSON number with no fraction part or exponent (Go refuses
2.0 for an int32); a document may not repeat a key in an object or use
NaN/Infinity.

--partial is for merge patches: it drops "required" at the top level of
DEFINITION only (nested objects keep theirs), so a patch carrying only some
fields still has its fields' types and names checked.

Output: "ok" for each valid document, or one "PATH: message" line per problem
for an invalid one (PATH is a JSON path such as $.series.count).  When more
than one document is validated, each line starts with "FILE: " or
"FILE[INDEX]: ".  Exit status: 0 all valid, 1 any invalid, 2 usage error
(bad options, unreadable schema or input file, unknown DEFINITION).
"""

import argparse
import copy
import datetime
import json
import re
import sys
import urllib.parse

try:
    import jsonschema
    import jsonschema.exceptions
    import jsonschema.validators
except ImportError:  # pragma: no cover
    sys.stderr.write("validate.py: the Python module jsonschema is needed "
                     "(Debian: apt-get install python3-jsonschema)\n")
    sys.exit(2)


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------
# OpenAPI 3.0 schema -> JSON Schema draft 7

# Keywords whose value is a schema, a list of schemas, or a map of schemas.
_SCHEMA_KEYS = ("items", "not", "additionalProperties")
_SCHEMA_LIST_KEYS = ("allOf", "anyOf", "oneOf")
_SCHEMA_MAP_KEYS = ("properties", "patternProperties")


def convert(schema, allow_unknown):
    """Return a draft-7 copy of one OpenAPI 3.0 schema object (recursively)."""
    if not isinstance(schema, dict):
        return schema  # true/false (additionalProperties), or malformed: as is
    s = dict(schema)
    for k in _SCHEMA_KEYS:
        if k in s:
            s[k] = convert(s[k], allow_unknown)
    for k in _SCHEMA_LIST_KEYS:
        if isinstance(s.get(k), list):
            s[k] = [convert(x, allow_unknown) for x in s[k]]
    for k in _SCHEMA_MAP_KEYS:
        if isinstance(s.get(k), dict):
            s[k] = {n: convert(x, allow_unknown) for n, x in s[k].items()}

    # OpenAPI 3.0's boolean exclusiveMinimum/-Maximum modify minimum/maximum.
    for ex, lim in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(s.get(ex), bool):
            if s.pop(ex) and lim in s:
                s[ex] = s.pop(lim)

    # IntOrString is published as {"type": "string", "format": "int-or-string"}.
    if s.get("format") == "int-or-string" or s.get("x-kubernetes-int-or-string") is True:
        s["type"] = ["integer", "string"]

    if (not allow_unknown and "properties" in s and "additionalProperties" not in s
            and s.get("x-kubernetes-preserve-unknown-fields") is not True):
        s["additionalProperties"] = False

    if s.pop("nullable", False) is True:
        if "type" in s:
            t = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if "null" not in t:
                s["type"] = t + ["null"]
            if isinstance(s.get("enum"), list) and None not in s["enum"]:
                s["enum"] = s["enum"] + [None]
        else:
            s = {"anyOf": [{"type": "null"}, s]}
    return s


def pointer_ref(name):
    token = name.replace("~", "~0").replace("/", "~1")
    return "#/components/schemas/" + urllib.parse.quote(token, safe="")


def build_schema(doc, definition, partial, allow_unknown):
    schemas = doc.get("components", {}).get("schemas")
    if not isinstance(schemas, dict):
        raise UsageError("the schema file has no components/schemas")
    if definition not in schemas:
        near = [n for n in schemas if n.rsplit(".", 1)[-1] == definition.rsplit(".", 1)[-1]]
        hint = ("; did you mean " + ", ".join(sorted(near)) + "?") if near else \
            " (it has %d; e.g. %s)" % (len(schemas), ", ".join(sorted(schemas)[:5]))
        raise UsageError("no definition %r in components/schemas%s" % (definition, hint))
    conv = {n: convert(s, allow_unknown) for n, s in schemas.items()}
    target = definition
    if partial:
        top = copy.deepcopy(conv[definition])
        if isinstance(top, dict):
            top.pop("required", None)
            if list(top) == ["anyOf"] and top["anyOf"][:1] == [{"type": "null"}]:
                top["anyOf"][1].pop("required", None)  # a nullable definition
        target = "validate.py partial " + definition
        conv[target] = top
    components = dict(doc.get("components", {}))
    components["schemas"] = conv
    return {"$ref": pointer_ref(target), "components": components}


# ---------------------------------------------------------------------------
# Formats and types

_RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?"
    r"(?:[Zz]|([+-])(\d{2}):(\d{2}))$")


def is_rfc3339(value):
    if not isinstance(value, str):
        return True
    m = _RFC3339.match(value)
    if not m:
        return False
    y, mo, d, h, mi, sec = (int(x) for x in m.group(1, 2, 3, 4, 5, 6))
    try:
        datetime.date(y, mo, d)
    except ValueError:
        return False
    if h > 23 or mi > 59 or sec > 60:  # 60: leap second
        return False
    if m.group(8) and (int(m.group(9)) > 23 or int(m.group(10)) > 59):
        return False
    return True


def make_format_checker():
    checker = jsonschema.FormatChecker()
    if "date-time" not in checker.checkers:
        # jsonschema checks date-time only when rfc3339-validator is installed.
        checker.checks("date-time")(is_rfc3339)
    return checker


def make_validator_class():
    def is_integer(_checker, instance):
        # json.loads gives int only for numbers without fraction or exponent.
        return isinstance(instance, int) and not isinstance(instance, bool)

    base = jsonschema.Draft7Validator
    types = base.TYPE_CHECKER.redefine("integer", is_integer)
    return jsonschema.validators.extend(base, type_checker=types)


# ---------------------------------------------------------------------------
# Input

def _no_constants(name):
    raise ValueError("%s is not JSON" % name)


def _pairs(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError("duplicate key %s in an object" % json.dumps(k))
        obj[k] = v
    return obj


def parse_json(text):
    return json.loads(text, parse_constant=_no_constants, object_pairs_hook=_pairs)


def read_text(name):
    try:
        if name == "-":
            return sys.stdin.read()
        with open(name, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError("cannot read %s: %s" % (name, e))


def json_path(path):
    out = "$"
    for p in path:
        if isinstance(p, int):
            out += "[%d]" % p
        elif re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", p):
            out += "." + p
        else:
            out += "[%s]" % json.dumps(p)
    return out


def problems(validator, instance):
    out = []
    for err in sorted(validator.iter_errors(instance),
                      key=lambda e: [str(x) for x in e.absolute_path]):
        best = err
        if err.context:  # anyOf/oneOf: name the closest alternative's complaint
            # ...but not "is not of type 'null'" from a nullable wrapper.
            ctx = [e for e in err.context
                   if not (e.validator == "type" and e.validator_value == "null")]
            best = jsonschema.exceptions.best_match(ctx or err.context) or err
        out.append("%s: %s" % (json_path(best.absolute_path), best.message))
    return out


# ---------------------------------------------------------------------------

class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write("%s: %s\n" % (self.prog, message))
        sys.exit(2)


def main(argv):
    ap = Parser(prog="validate.py",
                description="Validate JSON documents against a Kubernetes OpenAPI v3 definition.",
                epilog="Exit status: 0 valid, 1 invalid, 2 usage error.")
    ap.add_argument("--partial", action="store_true",
                    help="drop 'required' at the top level of DEFINITION (merge patches)")
    ap.add_argument("--each", action="store_true",
                    help="each JSON-FILE holds an array; validate every element")
    ap.add_argument("--allow-unknown", action="store_true",
                    help="do not refuse fields that the schema does not name")
    ap.add_argument("schema_file", metavar="SCHEMA-FILE")
    ap.add_argument("definition", metavar="DEFINITION")
    ap.add_argument("files", metavar="JSON-FILE", nargs="*", default=[])
    args = ap.parse_args(argv)

    try:
        try:
            doc = parse_json(read_text(args.schema_file))
        except ValueError as e:
            raise UsageError("%s is not JSON: %s" % (args.schema_file, e))
        if not isinstance(doc, dict):
            raise UsageError("%s is not an OpenAPI document" % args.schema_file)
        schema = build_schema(doc, args.definition, args.partial, args.allow_unknown)
        cls = make_validator_class()
        validator = cls(schema, format_checker=make_format_checker())

        files = args.files or ["-"]
        texts = [(name, read_text(name)) for name in files]
    except UsageError as e:
        sys.stderr.write("validate.py: %s\n" % e)
        return 2

    docs = []  # (label, instance, problems already found or None)
    for name, text in texts:
        label = "<stdin>" if name == "-" else name
        try:
            value = parse_json(text)
        except ValueError as e:
            docs.append((label, None, ["$: not valid JSON: %s" % e]))
            continue
        if not args.each:
            docs.append((label, value, None))
        elif not isinstance(value, list):
            kind = {dict: "an object", str: "a string", bool: "a boolean",
                    type(None): "null"}.get(type(value), "a number")
            docs.append((label, None, ["$: --each wants a JSON array, not %s" % kind]))
        elif not value:
            docs.append((label, None, []))
        else:
            docs.extend(("%s[%d]" % (label, i), v, None) for i, v in enumerate(value))

    prefix = len(docs) > 1 or args.each
    bad = False
    for label, instance, found in docs:
        if found is None:
            found = problems(validator, instance)
        elif not found:
            print("%s: ok (empty array, nothing to validate)" % label)
            continue
        if found:
            bad = True
            for line in found:
                print(("%s: %s" % (label, line)) if prefix else line)
        else:
            print(("%s: ok" % label) if prefix else "ok")
    sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
