#!/usr/bin/env python3
"""The fleet export's checks, run by tests/integration/fleet.rs with the venv that
tests/e2e/install-tools.sh makes (.e2e/python: pinned duckdb and jsonschema).

  check.py validate SCHEMA_DIR FILE...   every line against docs/schema/export-<kind>.schema.json
  check.py query SQL_DIR GLOB            docs/fleet/load.sql, then every other .sql file there

Both print one JSON object on stdout. `validate` exits 1 when a line does not validate.
"""

import importlib.metadata
import json
import os
import sys


def validate(schema_dir, files):
    import jsonschema

    validators = {}
    for name in os.listdir(schema_dir):
        if name.startswith("export-") and name.endswith(".schema.json"):
            with open(os.path.join(schema_dir, name), encoding="utf-8") as source:
                schema = json.load(source)
            jsonschema.Draft202012Validator.check_schema(schema)
            kind = name[len("export-"):-len(".schema.json")]
            validators[kind] = jsonschema.Draft202012Validator(
                schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    counts, errors = {}, []
    for path in files:
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                record = json.loads(line)
                kind = record.get("kind")
                validator = validators.get(kind)
                if validator is None:
                    errors.append(f"{path}:{number}: no schema for kind {kind!r}")
                    continue
                for error in validator.iter_errors(record):
                    errors.append(f"{path}:{number}: {kind}: {error.message}")
                counts[kind] = counts.get(kind, 0) + 1
    print(json.dumps({"lines": sum(counts.values()), "kinds": counts, "schemas": sorted(validators),
                      "jsonschema": importlib.metadata.version("jsonschema"),
                      "errors": errors[:50]}))
    return 1 if errors else 0


def query(sql_dir, pattern):
    import duckdb

    connection = duckdb.connect()
    connection.execute("SET VARIABLE ctxhooks_exports = ?", [pattern])
    with open(os.path.join(sql_dir, "load.sql"), encoding="utf-8") as load:
        connection.execute(load.read())
    answers = {"duckdb": duckdb.__version__}
    for name in sorted(os.listdir(sql_dir)):
        if not name.endswith(".sql") or name == "load.sql":
            continue
        with open(os.path.join(sql_dir, name), encoding="utf-8") as source:
            cursor = connection.execute(source.read())
        columns = [column[0] for column in cursor.description]
        answers[name] = [
            {column: (value.isoformat() if hasattr(value, "isoformat") else value)
             for column, value in zip(columns, row)}
            for row in cursor.fetchall()
        ]
    print(json.dumps(answers))
    return 0


if __name__ == "__main__":
    command, *arguments = sys.argv[1:]
    if command == "validate":
        sys.exit(validate(arguments[0], arguments[1:]))
    if command == "query":
        sys.exit(query(arguments[0], arguments[1]))
    sys.exit(f"unknown command {command!r}")
