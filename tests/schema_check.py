#!/usr/bin/env python3
"""The JSON Schemas in schema/ against every example file in the repo
(boards/*.yaml as inventories, scenarios/*.yaml as scenarios), and against
broken examples that must be refused. Exit 1 on any mismatch.
  schema_check.py SOURCE_DIR"""
import glob
import json
import os
import sys

import jsonschema
import yaml

src = sys.argv[1]
failed = 0


class Loader(yaml.SafeLoader):
    """YAML 1.2 booleans, as libyaml's orch reads them: on/off/yes/no are
    strings (power: { on: ..., off: ... }, a step's on: ROLE)."""


Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:bool"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Loader.add_implicit_resolver("tag:yaml.org,2002:bool",
                             __import__("re").compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                             list("tTfF"))


def load(text):
    return yaml.load(text, Loader=Loader)


def load_schema(name):
    with open(os.path.join(src, "schema", name)) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def check(validator, doc, where, want_ok):
    global failed
    errors = list(validator.iter_errors(doc))
    if bool(errors) == want_ok:
        failed += 1
        why = "; ".join(e.message for e in errors[:3]) if errors else "accepted"
        print(f"{where}: {'refused' if errors else 'accepted'}, wanted "
              f"{'accepted' if want_ok else 'refused'}: {why}")


scenario = load_schema("orch-scenario.schema.json")
inventory = load_schema("orch-inventory.schema.json")
n = 0
for path in sorted(glob.glob(os.path.join(src, "boards", "*.yaml"))):
    with open(path) as f:
        check(inventory, load(f), path, True)
    n += 1
for path in sorted(glob.glob(os.path.join(src, "scenarios", "*.yaml"))):
    with open(path) as f:
        check(scenario, load(f), path, True)
    n += 1
for text, what in [("tests: [{name: a, run: x, timout: 5s}]", "a misspelt key"),
                   ("tests: [{name: a, run: x, repeat: 0}]", "repeat 0"),
                   ("tests: [{name: a, run: x, metrics: [{name: m}]}]", "a metric without regex"),
                   ("tests: [{name: a, run: x, push: {dest: y}}]", "a push without src")]:
    check(scenario, load(text), what, False)
check(scenario, load(
    "x-c: &c {timeout: 5s}\nvars: {a: 1}\ninclude: [b.yaml]\n"
    "tests:\n  - {<<: *c, name: a, run: x, env: {A: b}, fetch: {src: /tmp/l}}\n"
    "  - include: more.yaml\n"), "anchors, includes, vars", True)
check(inventory, load("boards: {a: {sssh: {}}}"), "a misspelt board key", False)
print(f"schema_check: {n} example files, {failed} mismatches")
sys.exit(1 if failed or n == 0 else 0)
