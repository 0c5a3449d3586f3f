"""The dry-run report and refused deletions against moto: every test here only reads the
leftover world, so the module builds it once (`read_only_world`). A test that deletes
belongs in test_teardown_story.py, which builds a fresh world per test."""

from __future__ import annotations

import io

import pytest

from teardown import pricing
from teardown.cli import EXIT_LEFTOVERS, main
from tests.support import teardown_world as tw
from tests.support.teardown_world import flagged, run_json


@pytest.fixture
def world(read_only_world: tw.World) -> tw.World:
    return read_only_world


def test_dry_run_flags_exactly_the_apps_leftovers(world, capsys):
    code, report = run_json(capsys, world.argv)

    assert code == EXIT_LEFTOVERS
    assert report["mode"] == "dry-run"
    assert (report["app_name"], report["region"]) == (tw.APP, tw.REGION)
    assert flagged(report) == world.expected
    assert all(s["status"] == "CHECKED" for s in report["services"].values())
    assert report["exit_code"] == EXIT_LEFTOVERS


def test_bucket_report_counts_every_version_and_marker(world, capsys):
    _, report = run_json(capsys, world.argv)
    [bucket] = [f for f in report["findings"] if f["kind"] == "bucket"]

    # kokoro-v1.0.onnx: 3 versions (1 current); voices: 1; old/config.json: 1 non-current
    # under 2 delete markers; tmp/download.part: 1 non-current under 1 delete marker.
    assert bucket["ref"]["current_objects"] == 2
    assert bucket["ref"]["noncurrent_versions"] == 4
    assert bucket["ref"]["delete_markers"] == 3
    assert bucket["ref"]["size_bytes"] == 1000 + 2000 + 3000 + 500 + 2 + 10
    expected_cost = 6512 / 1024**3 * pricing.S3_STANDARD_USD_PER_GB_MONTH
    assert bucket["est_usd_per_month"] == pytest.approx(expected_cost)
    assert "us-east-1" in report["pricing_note"] and "0.023" in report["pricing_note"]


def test_bucket_report_says_how_a_later_deploy_reuses_it(world, capsys):
    _, report = run_json(capsys, world.argv)
    [bucket] = [f for f in report["findings"] if f["kind"] == "bucket"]

    reuse = f"-c weights_bucket={world.weights_bucket}"
    assert bucket["ref"]["reuse_with"] == reuse
    assert f"npx cdk deploy --all {reuse}" in bucket["note"]
    assert "--delete removes it for good" in bucket["note"]


def test_endpoint_is_flagged_as_billing_with_hourly_estimate(world, capsys, monkeypatch):
    # moto cannot hold ml.g5.xlarge; price the test instance type to check the arithmetic.
    monkeypatch.setitem(pricing.SAGEMAKER_HOSTING_USD_PER_HOUR, "ml.m5.large", 0.115)
    _, report = run_json(capsys, world.argv)
    [endpoint] = [f for f in report["findings"] if f["kind"] == "endpoint"]

    assert endpoint["billing"] is True
    assert endpoint["est_usd_per_hour"] == pytest.approx(2 * 0.115)
    assert endpoint["est_usd_per_month"] == pytest.approx(2 * 0.115 * 730)
    assert "2 x ml.m5.large" in endpoint["detail"]
    assert report["totals"]["est_usd_per_hour"] == pytest.approx(0.23)


def test_unknown_instance_price_is_said_not_guessed(world, capsys):
    _, report = run_json(capsys, world.argv)
    [endpoint] = [f for f in report["findings"] if f["kind"] == "endpoint"]
    assert endpoint["est_usd_per_hour"] is None
    assert "not in the estimate table" in endpoint["note"]


def test_table_report_is_readable(world, capsys):
    code = main(world.argv)
    out = capsys.readouterr().out

    assert code == EXIT_LEFTOVERS
    assert "SERVICE" in out and "EST. COST" in out
    assert f"Image tags of this app from: {world.app_dir}/cdk.out/*.assets.json" in out
    assert world.weights_bucket in out and "BILLING" in out
    assert "3 delete markers" in out
    assert "Re-run with --delete" in out
    assert f"Result: {len(world.expected)} leftover(s) (exit 1)." in out
    assert world.lookalike_bucket not in out


@pytest.mark.parametrize("answer", ["no\n", "Kokoro-Voice\n", ""])
def test_refused_confirmation_deletes_nothing(world, capsys, monkeypatch, answer):
    monkeypatch.setattr("sys.stdin", io.StringIO(answer))  # "" is EOF: refused too
    code = main([*world.argv, "--delete"])
    captured = capsys.readouterr()

    assert code == EXIT_LEFTOVERS
    assert "Type the app name (kokoro-voice) or 'yes'" in captured.err
    assert "Not confirmed: nothing deleted." in captured.err
    code, report = run_json(capsys, world.argv)
    assert flagged(report) == world.expected
