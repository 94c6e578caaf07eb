#!/usr/bin/env python3
"""Validates JSON documents (files, or standard input with -) against a JSON Schema.

  validate-json.py SCHEMA FILE...   NDJSON input (one document per line) is accepted too.
Exit 0 when every document is valid; 1 with the errors on stderr otherwise.
"""
import json
import sys

import os

import jsonschema
from referencing import Registry, Resource


def documents(name):
    text = sys.stdin.read() if name == "-" else open(name).read()
    try:
        yield json.loads(text)
    except json.JSONDecodeError:
        for line in text.splitlines():
            if line.strip():
                yield json.loads(line)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    schema = json.load(open(sys.argv[1]))
    # Every schema beside this one, by its $id, so they can refer to each other.
    folder = os.path.dirname(os.path.abspath(sys.argv[1]))
    resources = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            other = json.load(open(os.path.join(folder, name)))
            resources.append((other["$id"], Resource.from_contents(other)))
    validator = jsonschema.Draft202012Validator(schema, registry=Registry().with_resources(resources))
    failed = 0
    for name in sys.argv[2:]:
        for document in documents(name):
            for error in validator.iter_errors(document):
                failed += 1
                print(f"{name}: {'/'.join(map(str, error.absolute_path))}: {error.message}", file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
