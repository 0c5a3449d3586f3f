"""The repository's command-line tools, as a user meets them: every option has a help text,
`--help` keeps each example command on its own line, and a tool whose other side is not
running (a closed loopback port, a name that does not resolve) says so in one line on stderr
and exits non-zero, without a traceback."""

from __future__ import annotations

import argparse
import importlib
import os
from subprocess import CompletedProcess

import pytest

from devkit.processes import free_port, run_module

# module -> the function that builds its parser
PARSERS = {
    "devkit.caller": "build_parser",
    "playground.__main__": "build_parser",
    "playground.screenshots": "build_parser",
    "demo.__main__": "build_parser",
    "demo.agent_demo": "build_parser",
    "smoke.cli": "build_parser",
    "teardown.cli": "build_parser",
}


def parser_of(module: str) -> argparse.ArgumentParser:
    built = getattr(importlib.import_module(module), PARSERS[module])()
    assert isinstance(built, argparse.ArgumentParser)
    return built


@pytest.mark.parametrize("module", sorted(PARSERS))
def test_every_option_says_what_it_does(module: str) -> None:
    undocumented = [
        action.option_strings or action.dest
        for action in parser_of(module)._actions
        if not action.help or action.help == argparse.SUPPRESS
    ]
    assert undocumented == []


@pytest.mark.parametrize("module", sorted(PARSERS))
def test_help_keeps_the_examples_on_their_own_lines(module: str) -> None:
    parser = parser_of(module)
    doc = parser.description or ""
    examples = [line for line in doc.splitlines() if line.startswith("    python -m ")]
    assert examples, f"{module}: its help shows no example command"
    shown = parser.format_help().splitlines()
    for example in examples:
        assert example in shown


def run_tool(args: list[str], env: dict[str, str] | None = None) -> CompletedProcess[str]:
    return run_module(args[0], args[1:], {**os.environ, **(env or {})})


def assert_one_line_error(done: CompletedProcess[str], says: str) -> None:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert says in lines[0]


@pytest.mark.parametrize(
    "options",
    [["--prompt", "hi"], ["--ws", "--prompt", "hi"], ["--list-voices"], ["--ws", "--list-voices"]],
)
def test_the_caller_without_an_agent_says_it_cannot_reach_it(options: list[str]) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nobody listens there
    done = run_tool(["devkit.caller", "--url", url, *options])
    assert_one_line_error(done, "cannot reach the voice agent at")
    assert done.stdout == ""


def test_the_caller_says_so_when_the_agents_name_does_not_resolve() -> None:
    done = run_tool(["devkit.caller", "--url", "http://agent.invalid:8080", "--list-voices"])
    assert_one_line_error(done, "cannot reach the voice agent at http://agent.invalid:8080")


# What an AWS tool reaches, pointed at a closed loopback port (botocore honours
# AWS_ENDPOINT_URL for every service), with credentials that are never sent anywhere.
NO_AWS = {
    "AWS_ACCESS_KEY_ID": "AKIAUNREACHABLE00001",
    "AWS_SECRET_ACCESS_KEY": "not-a-secret",
    "AWS_REGION": "us-east-1",
    "AWS_MAX_ATTEMPTS": "1",
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
}


def test_teardown_without_aws_says_it_cannot_reach_it() -> None:
    env = {**NO_AWS, "AWS_ENDPOINT_URL": f"http://127.0.0.1:{free_port()}"}
    done = run_tool(["teardown"], env)
    assert_one_line_error(done, "cannot reach AWS")
