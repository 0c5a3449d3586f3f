"""Pure pieces: asset manifests, name matching, price arithmetic, report formatting."""

from __future__ import annotations

import json

import pytest

from teardown import pricing
from teardown.config import CdkDefaults, ConfigError, cdk_defaults, name_matches_app
from teardown.manifests import ImageRef, image_refs_from_manifests
from teardown.model import Finding, Inventory, ServiceCheck
from teardown.report import cost_text, render_table, summary_line


def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _image(repo, tag, **extra):
    return {
        "source": {"directory": "x"},
        "destinations": {"d": {"repositoryName": repo, "imageTag": tag, **extra}},
    }


def test_manifest_placeholders_are_resolved_and_other_regions_skipped(tmp_path):
    repo = "cdk-q1-container-assets-${AWS::AccountId}-${AWS::Region}"
    _write(tmp_path / "A.assets.json", {"dockerImages": {"h1": _image(repo, "h1")}})
    # Nested assembly (a CDK stage), one image for this region and one for another.
    _write(
        tmp_path / "assembly-Prod" / "B.assets.json",
        {
            "files": {"f": {}},
            "dockerImages": {
                "h2": _image("custom-repo", "h2", region="us-east-1"),
                "h3": _image(repo, "h3", region="eu-west-1"),
            },
        },
    )
    _write(tmp_path / "C.assets.json", {"files": {}})  # no images at all

    refs = image_refs_from_manifests(tmp_path, "111122223333", "us-east-1")

    assert refs == {
        ImageRef("cdk-q1-container-assets-111122223333-us-east-1", "h1"),
        ImageRef("custom-repo", "h2"),
    }


def test_no_cloud_assembly_means_no_refs(tmp_path):
    assert image_refs_from_manifests(tmp_path / "missing", "1", "us-east-1") == set()


@pytest.mark.parametrize(
    "content",
    [
        "{broken",
        json.dumps({"dockerImages": []}),
        json.dumps({"dockerImages": {"h": {"destinations": {"d": {}}}}}),
    ],
)
def test_malformed_manifest_is_a_clear_error(tmp_path, content):
    (tmp_path / "A.assets.json").write_text(content)
    with pytest.raises(ConfigError, match=r"A\.assets\.json"):
        image_refs_from_manifests(tmp_path, "1", "us-east-1")


def test_cdk_defaults_read_context_with_fallbacks(tmp_path):
    assert cdk_defaults(tmp_path) == CdkDefaults(app_name="kokoro-voice", qualifier=None)
    _write(
        tmp_path / "cdk.json",
        {"context": {"app_name": "my-voice", "@aws-cdk/core:bootstrapQualifier": "abc"}},
    )
    assert cdk_defaults(tmp_path) == CdkDefaults(app_name="my-voice", qualifier="abc")
    _write(tmp_path / "cdk.json", {"context": ["not", "an", "object"]})
    with pytest.raises(ConfigError, match="'context' must be a JSON object"):
        cdk_defaults(tmp_path)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("kokoro-voice-tts", True),
        ("kokoro_voice_agent-AbC123-DEFAULT", True),
        ("KokoroVoice-Tts", True),
        ("KokoroVoiceTtsEndpoint", True),
        ("kokoro-voice", True),
        ("KokoroVoice2-Tts", False),
        ("kokoro-voice2", False),
        ("kokorovoices", False),
        ("my-kokoro-voice", False),
    ],
)
def test_names_derived_from_the_app_name(name, expected):
    assert name_matches_app(name, "kokoro-voice") is expected


def test_prices_are_arithmetic_on_the_table():
    assert pricing.endpoint_usd_per_hour("ml.g5.xlarge", 2) == pytest.approx(2 * 1.408)
    assert pricing.endpoint_usd_per_hour("ml.unknown.size", 1) is None
    assert pricing.storage_usd_per_month(10 * 1024**3, 0.023) == pytest.approx(0.23)
    assert pricing.hourly_to_monthly(1.0) == 730
    with pytest.raises(ValueError, match="size_bytes"):
        pricing.storage_usd_per_month(-1, 0.023)
    with pytest.raises(ValueError, match="instance_count"):
        pricing.endpoint_usd_per_hour("ml.g5.xlarge", -1)
    assert "estimates" in pricing.PRICING_NOTE and "us-east-1" in pricing.PRICING_NOTE


@pytest.mark.parametrize(
    ("size", "text"), [(0, "0 B"), (1023, "1023 B"), (1536, "1.5 KiB"), (5 * 1024**3, "5.0 GiB")]
)
def test_human_bytes(size, text):
    assert pricing.human_bytes(size) == text


def _f(**kw):
    base = {"service": "s3", "kind": "bucket", "name": "b", "status": "retained", "detail": "d"}
    return Finding(**{**base, **kw})


def test_cost_text_variants():
    assert cost_text(_f(usd_per_hour=1.408, usd_per_month=1027.84)) == "$1.408/hour (~$1,028/month)"
    assert cost_text(_f(billing=True)) == "unknown"
    assert cost_text(_f(billing=True, usd_per_month=0.5)) == "$0.50/month"
    assert cost_text(_f(billing=True, usd_per_month=0.001)) == "<$0.01/month"
    assert cost_text(_f()) == "-"


def test_table_lists_unchecked_services_with_reasons():
    inv = Inventory("kokoro-voice", "us-east-1", "123")
    inv.checks["s3"] = ServiceCheck("s3")
    inv.checks["sagemaker"] = ServiceCheck("sagemaker")
    inv.checks["sagemaker"].unchecked("access denied (AccessDeniedException on ListEndpoints)")
    text = render_table(inv)
    assert "Nothing of this app was found." in text
    assert "sagemaker          UNCHECKED" in text and "AccessDeniedException" in text
    assert summary_line(inv, 3) == (
        "Result: 0 leftover(s); 1 service(s) UNCHECKED: not known to be clean (exit 3)."
    )
