#!/usr/bin/python3
"""Lints the repository's GitHub Actions workflows, as actionlint would
(actionlint is not packaged for Debian 12):

  lint_workflows.py REPO_ROOT

1. Each .github/workflows/*.yml is valid against workflow.schema.json (the
   workflow syntax holdfast uses; unknown keys are errors, a workflow_call
   input needs a description and a type, and its default that type).
2. Every expression names what exists: inputs.X a declared input, needs.J
   a job this job needs (needs.J.outputs.O one it declares), steps.S an
   earlier step of the same job, matrix.K a key of the job's matrix,
   jobs.J.outputs.O a job's declared output; every job in `needs` exists.
3. No `run:` script holds an expression: inputs and outputs reach scripts
   through `env:`, so no caller's string can inject shell code.
4. Every input of a reusable (workflow_call) workflow is used, and the
   README documents it (its name in backquotes).

Before the repository's files it lints known-bad workflows, each of which
must be refused for the reason it was made for, so that a lint that
accepts everything fails here. Prints "N passed, N failed"; exits 1 on
any failure.
"""
import json
import pathlib
import re
import sys

import jsonschema
import yaml

HERE = pathlib.Path(__file__).resolve().parent
SCHEMA = json.loads((HERE / "workflow.schema.json").read_text())
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
REFERENCE = re.compile(
    rf"(?<![\w.])(inputs|needs|steps|matrix|jobs)\.({NAME})(?:\.({NAME})(?:\.({NAME}))?)?")


def load(text):
    workflow = yaml.safe_load(text)
    # YAML 1.1 reads the key `on` as the boolean true.
    if isinstance(workflow, dict) and True in workflow:
        workflow["on"] = workflow.pop(True)
    return workflow


def strings(value):
    """Every string inside value (a YAML tree)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def expressions(value, implicit=False):
    """The expressions in value; an `if:` is one without ${{ }}."""
    for text in strings(value):
        found = EXPRESSION.findall(text)
        if found:
            yield from found
        elif implicit:
            yield text


def triggers(workflow, name):
    on = workflow.get("on")
    if isinstance(on, dict):
        return on.get(name) or {}
    return {}


def declared_inputs(workflow):
    names = set()
    for trigger in ("workflow_call", "workflow_dispatch"):
        names |= set((triggers(workflow, trigger).get("inputs") or {}).keys())
    return names


def job_needs(job):
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


def check_references(workflow, where, text, scope, errors):
    jobs = workflow.get("jobs", {})
    for kind, first, second, third in REFERENCE.findall(text):
        if kind == "inputs" and first not in declared_inputs(workflow):
            errors.append(f"{where}: inputs.{first} is not a declared input")
        elif kind == "needs":
            if first not in scope.get("needs", []):
                errors.append(f"{where}: needs.{first}, but the job does not need {first}")
            elif second == "outputs" and third and third not in jobs.get(first, {}).get("outputs", {}):
                errors.append(f"{where}: needs.{first}.outputs.{third} is not an output of {first}")
        elif kind == "steps" and first not in scope.get("steps", []):
            errors.append(f"{where}: steps.{first} is not an earlier step of this job")
        elif kind == "matrix" and scope.get("matrix") is not None and first not in scope["matrix"]:
            errors.append(f"{where}: matrix.{first} is not a key of the job's matrix")
        elif kind == "jobs":
            if first not in jobs:
                errors.append(f"{where}: jobs.{first} is not a job")
            elif second == "outputs" and third and third not in jobs[first].get("outputs", {}):
                errors.append(f"{where}: jobs.{first}.outputs.{third} is not an output of {first}")


def schema_errors(error):
    """An error and, under a oneOf or anyOf, why each branch failed."""
    path = "/".join(str(p) for p in error.absolute_path) or "(top)"
    if not error.context:
        return [f"{path}: {error.message}"]
    return [e for sub in error.context for e in schema_errors(sub)]


def lint(workflow, name, readme=None):
    """The problems of one workflow, as sentences."""
    errors = [f"{name}: {e}" for error in jsonschema.Draft7Validator(SCHEMA).iter_errors(workflow)
              for e in schema_errors(error)]
    if errors:
        return errors
    jobs = workflow["jobs"]
    for trigger in ("workflow_call",):
        outputs = triggers(workflow, trigger).get("outputs") or {}
        for output, spec in outputs.items():
            for text in expressions(spec.get("value", "")):
                check_references(workflow, f"{name}: on.{trigger}.outputs.{output}", text,
                                 {}, errors)
    for job_name, job in jobs.items():
        needs = job_needs(job)
        for need in needs:
            if need not in jobs:
                errors.append(f"{name}: jobs.{job_name}.needs: no job {need}")
        matrix = (job.get("strategy") or {}).get("matrix")
        scope = {"needs": needs, "steps": [],
                 "matrix": matrix if isinstance(matrix, dict) else None}
        steps = job.get("steps", [])
        all_ids = [s["id"] for s in steps if "id" in s]
        for key, value in job.items():
            if key == "steps":
                continue
            job_scope = dict(scope, steps=all_ids if key == "outputs" else [])
            for text in expressions(value, implicit=(key == "if")):
                check_references(workflow, f"{name}: jobs.{job_name}.{key}", text, job_scope, errors)
        for index, step in enumerate(steps):
            where = f"{name}: jobs.{job_name}.steps[{index}]"
            step_scope = dict(scope, steps=[s["id"] for s in steps[:index] if "id" in s])
            for key, value in step.items():
                for text in expressions(value, implicit=(key == "if")):
                    check_references(workflow, f"{where}.{key}", text, step_scope, errors)
            if "run" in step and EXPRESSION.search(step["run"]):
                errors.append(f"{where}.run: an expression inside a script; pass it through env:")
    inputs = (triggers(workflow, "workflow_call").get("inputs") or {}).keys()
    used = set()
    for text in expressions(workflow.get("jobs")):
        used |= {m[1] for m in REFERENCE.findall(text) if m[0] == "inputs"}
    for job in jobs.values():
        for step in job.get("steps", []):
            if isinstance(step.get("if"), str):
                used |= {m[1] for m in REFERENCE.findall(step["if"]) if m[0] == "inputs"}
    for input_name in inputs:
        if input_name not in used:
            errors.append(f"{name}: input {input_name} is declared and never used")
        if readme is not None and f"`{input_name}`" not in readme:
            errors.append(f"{name}: the README does not document input `{input_name}`")
    return errors


GOOD_CALL = """
on:
  workflow_call:
    inputs:
      command: {description: "a command", type: string, default: ""}
jobs:
  a:
    runs-on: ubuntu-latest
    outputs: {verdict: "${{ steps.s.outputs.exit }}"}
    steps:
      - id: s
        env: {COMMAND: "${{ inputs.command }}"}
        run: echo "$COMMAND"
"""

# Each known-bad workflow, and a part of the error it must cause.
BAD = {
    "undeclared input": (GOOD_CALL.replace("inputs.command }}", "inputs.comand }}"),
                         "inputs.comand is not a declared input"),
    "expression in a script": (GOOD_CALL.replace('run: echo "$COMMAND"',
                                                 'run: echo "${{ inputs.command }}"'),
                               "an expression inside a script"),
    "unknown key": (GOOD_CALL.replace("runs-on:", "run-on:"), "run-on"),
    "input without a type": (GOOD_CALL.replace("type: string, ", ""), "'type' is a required"),
    "default of another type": (GOOD_CALL.replace('default: ""', "default: 3"),
                                "is not of type 'string'"),
    "later step": (GOOD_CALL.replace('env: {COMMAND: "${{ inputs.command }}"}',
                                     'env: {X: "${{ steps.t.outputs.x }}", '
                                     'COMMAND: "${{ inputs.command }}"}'),
                   "steps.t is not an earlier step"),
    "missing job": (GOOD_CALL.replace("runs-on: ubuntu-latest",
                                      "needs: [b]\n    runs-on: ubuntu-latest"),
                    "no job b"),
    "unused input": (GOOD_CALL.replace("inputs:\n", "inputs:\n      spare: {description: x, "
                                       "type: number, default: 1}\n"),
                     "input spare is declared and never used"),
    "undocumented input": (GOOD_CALL, "does not document input `command`"),
    "step with run and uses": (GOOD_CALL.replace("run: echo", "uses: actions/checkout@v4\n"
                                                 "        run: echo"), "is valid under each of"),
}


def main():
    root = pathlib.Path(sys.argv[1])
    passed = failed = 0

    def verdict(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAILED: {what}")

    good = lint(load(GOOD_CALL), "good", readme="`command`")
    verdict(not good, f"a good workflow is accepted: {good}")
    for reason, (text, expected) in BAD.items():
        errors = lint(load(text), reason, readme="" if reason == "undocumented input" else None)
        verdict(any(expected in e for e in errors),
                f"the lint refuses a workflow with {reason} (wanted '{expected}', got {errors})")

    readme = (root / "README.md").read_text()
    files = sorted((root / ".github" / "workflows").glob("*.yml"))
    verdict(bool(files), "the repository has workflows to lint")
    for path in files:
        workflow = load(path.read_text())
        reusable = "workflow_call" in (workflow.get("on") or {})
        errors = lint(workflow, path.name, readme if reusable else None)
        for error in errors:
            print(error)
        verdict(not errors, f"{path.name} lints clean")
        print(f"{path.name}: {'clean' if not errors else f'{len(errors)} problems'}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
