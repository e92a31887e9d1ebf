"""The GitHub files are valid: issue forms, their config, the PR template and the workflows.

GitHub rejects an issue form with a missing key, an unknown element type or a repeated id, and
shows no error until someone opens the "New issue" page; a workflow with a broken key fails only
when it runs. These checks catch both at test time.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from lessonkit.report import links as report

ROOT = Path(__file__).resolve().parents[1]
GITHUB = ROOT / ".github"
FORMS = sorted((GITHUB / "ISSUE_TEMPLATE").glob("*.yml"))
FORMS = [f for f in FORMS if f.name != "config.yml"]
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
ELEMENT_TYPES = {"markdown", "input", "textarea", "dropdown", "checkboxes"}
ID = re.compile(r"^[A-Za-z0-9_-]+$")


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name} is not a YAML mapping"
    return data


def _repo_url() -> str:
    for line in (ROOT / "mkdocs.yml").read_text(encoding="utf-8").splitlines():
        if line.startswith("repo_url:"):
            return line.split(":", 1)[1].strip().rstrip("/")
    raise AssertionError("mkdocs.yml has no repo_url")


def test_there_are_the_two_forms() -> None:
    assert {f.name for f in FORMS} == {"mistake.yml", "lesson-idea.yml"}


@pytest.mark.parametrize("path", FORMS, ids=lambda p: p.name)
def test_issue_form_has_what_github_requires(path: Path) -> None:
    form = _load(path)
    for key in ("name", "description", "body"):
        assert isinstance(form.get(key), str if key != "body" else list), f"{key} missing"
        assert form[key], f"{key} is empty"
    assert all(isinstance(label, str) and label for label in form.get("labels", []))
    assert form.get("labels"), "name the labels the form applies"
    ids: list[str] = []
    for element in form["body"]:
        assert element["type"] in ELEMENT_TYPES, element
        attributes = element["attributes"]
        if element["type"] == "markdown":
            assert attributes["value"].strip()
            continue
        assert attributes["label"].strip()
        assert ID.match(element["id"]), element["id"]
        ids.append(element["id"])
        if element["type"] in ("dropdown", "checkboxes"):
            assert attributes["options"], f"{element['id']} has no options"
        if element["type"] == "checkboxes":
            assert all(option["label"] for option in attributes["options"])
        required = element.get("validations", {}).get("required", False)
        assert isinstance(required, bool)
    assert len(ids) == len(set(ids)), f"repeated ids in {path.name}: {ids}"
    assert any(e["type"] != "markdown" for e in form["body"]), "a form needs a field"


def test_mistake_form_has_every_field_the_report_links_fill() -> None:
    form = _load(GITHUB / "ISSUE_TEMPLATE" / report.TEMPLATE)
    ids = {e.get("id") for e in form["body"]}
    assert set(report.FIELDS.values()) <= ids
    labels = {e["attributes"]["label"] for e in form["body"] if e["type"] != "markdown"}
    assert {"What is wrong or unclear?", "Suggested fix"} <= labels
    required = {e["id"] for e in form["body"] if e.get("validations", {}).get("required")}
    assert required == {"page", "problem"}, "the link fills page; the reader writes problem"


def test_issue_config_turns_blank_issues_off_and_points_questions_elsewhere() -> None:
    config = _load(GITHUB / "ISSUE_TEMPLATE" / "config.yml")
    assert config["blank_issues_enabled"] is False
    assert config["contact_links"]
    for link in config["contact_links"]:
        assert link["name"] and link["about"]
        assert link["url"].startswith(_repo_url() + "/"), "the repository is named in mkdocs.yml"


def test_pull_request_template_has_a_checklist() -> None:
    text = (GITHUB / "pull_request_template.md").read_text(encoding="utf-8")
    boxes = re.findall(r"^\s*- \[ \] (.+)$", text, flags=re.MULTILINE)
    assert len(boxes) >= 5
    assert any("scripts/test" in box for box in boxes)
    assert any("lessonkit check" in box for box in boxes)


def _triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    # YAML 1.1 reads a bare `on` key as the boolean True; GitHub reads it as "on".
    triggers = workflow.get("on", workflow.get(True))
    assert triggers, "a workflow needs `on:`"
    return triggers if isinstance(triggers, dict) else dict.fromkeys(triggers)


def test_there_are_the_two_workflows() -> None:
    assert {w.name for w in WORKFLOWS} == {"ci.yml", "pages.yml"}


NODE24 = {
    "actions/checkout": 5,
    "actions/setup-python": 6,
    "actions/cache": 5,
    "actions/configure-pages": 6,
    "actions/upload-pages-artifact": 5,
    "actions/deploy-pages": 5,
}
"""The first major version of each action that runs on Node 24: GitHub's runners removed Node 20
on 2026-09-16, so an older major no longer runs."""


def test_workflows_use_actions_that_run_on_todays_runners() -> None:
    for path in WORKFLOWS:
        for job in _load(path)["jobs"].values():
            for step in job["steps"]:
                if "uses" in step:
                    action, _, version = step["uses"].partition("@v")
                    assert action in NODE24, f"{path.name}: {action}: add its Node 24 major"
                    assert int(version) >= NODE24[action], f"{path.name}: {step['uses']}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_has_what_github_requires(path: Path) -> None:
    workflow = _load(path)
    assert workflow.get("name")
    _triggers(workflow)
    assert workflow["jobs"]
    for name, job in workflow["jobs"].items():
        assert ID.match(name)
        assert job["runs-on"], f"job {name} has no runs-on"
        assert job["steps"], f"job {name} has no steps"
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), f"a step needs uses or run: {step}"
            if "uses" in step:
                assert re.match(r"^[\w.-]+/[\w./-]+@v\d+$", step["uses"]), step["uses"]
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"\$\{\{[^}]*\bsecrets\.", text), "no workflow needs a secret"
    assert "pull_request_target" not in _triggers(workflow), "forks never get write access"


def test_pull_request_workflow_is_read_only_and_runs_tests_and_strict_build() -> None:
    workflow = _load(GITHUB / "workflows" / "ci.yml")
    assert "pull_request" in _triggers(workflow)
    assert workflow["permissions"] == {"contents": "read"}
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    for job in workflow["jobs"].values():
        assert set(job.get("permissions", {}).values()) <= {"read", "none"}
    runs = [step.get("run", "") for step in steps]
    assert "scripts/test" in runs
    assert ".venv/bin/lessonkit check" in runs
    assert any(r.startswith("scripts/build") for r in runs), "scripts/build is strict"
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False
    _assert_caches(steps)


def _assert_caches(steps: list[dict[str, Any]]) -> None:
    python = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert python["with"]["cache"] == "pip"
    cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == ".lessonkit/cache"
    assert "restore-keys" in cache["with"], "a changed lesson should still reuse the old cache"


def test_pages_workflow_deploys_main_with_the_official_actions() -> None:
    workflow = _load(GITHUB / "workflows" / "pages.yml")
    assert _triggers(workflow)["push"]["branches"] == ["main"]
    assert workflow["permissions"] == {"contents": "read"}
    jobs = workflow["jobs"]
    uses = {s["uses"].split("@")[0] for job in jobs.values() for s in job["steps"] if "uses" in s}
    assert {
        "actions/configure-pages",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    } <= uses
    writers = {name for name, job in jobs.items() if "permissions" in job}
    assert writers == {"deploy"}, "only the job that deploys may write to Pages"
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert jobs["deploy"]["environment"]["name"] == "github-pages"
    assert "build" in jobs["deploy"]["needs"]
    build_steps = jobs["build"]["steps"]
    assert any(s.get("run", "").startswith("scripts/build") for s in build_steps)
    upload = next(s for s in build_steps if "upload-pages-artifact" in s.get("uses", ""))
    assert upload["with"]["path"] == "site"
    _assert_caches(build_steps)
