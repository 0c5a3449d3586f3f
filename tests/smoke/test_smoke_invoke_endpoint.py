"""Check 1 (InvokeEndpoint) through the boto3 client the smoke check builds, against the real
Kokoro server behind the SageMaker front-door stand-in, and each failure it must diagnose."""

from __future__ import annotations

import json
from typing import Any

import pytest

from smoke.diagnosis import Cause
from smoke.invoke_endpoint import TEXT, run_invoke_check
from tests.support.aws_front import AwsFront, signed_with
from tests.support.listeners import SilentListener
from tests.support.smoke_results import diagnosed, passed_timings
from tests.support.smoke_world import ENDPOINT, KEY_ID, REGION, front_client

pytestmark = pytest.mark.model


def runtime_client(aws_env: pytest.MonkeyPatch, url: str, timeout_s: float = 60.0) -> Any:
    return front_client(aws_env, "sagemaker-runtime", url, timeout_s)


def test_one_invocation_returns_wav_from_the_real_model(
    aws_env: pytest.MonkeyPatch, front: AwsFront, front_url: str
) -> None:
    result = run_invoke_check(runtime_client(aws_env, front_url), ENDPOINT, None, 60)
    first_audio_ms, total_ms = passed_timings(result)
    assert 0 < first_audio_ms <= total_ms
    seconds = float(result.detail.split(" s of WAV")[0])
    assert 0.5 < seconds < 10.0  # one sentence of real speech
    # What the client really sent: SageMaker's path, the container's JSON body, SigV4 for
    # the region and the `sagemaker` signing name, to the host and port it was routed to.
    (sent,) = front.requests
    assert sent.raw_path == f"/endpoints/{ENDPOINT}/invocations"
    assert sent.host == front_url.removeprefix("http://")
    assert json.loads(sent.body) == {"text": TEXT, "format": "wav"}
    assert signed_with(sent) == {"key_id": KEY_ID, "region": REGION, "service": "sagemaker"}


def test_container_error_is_a_model_error_with_the_containers_message(
    aws_env: pytest.MonkeyPatch, front: AwsFront, front_url: str
) -> None:
    result = run_invoke_check(runtime_client(aws_env, front_url), ENDPOINT, "xx_nobody", 60)
    diagnosis = diagnosed(result, Cause.MODEL_ERROR)
    assert "unknown_voice" in diagnosis.summary  # the real container's error code
    assert json.loads(front.requests[0].body)["voice"] == "xx_nobody"


@pytest.mark.parametrize(
    ("message", "action", "in_advice"),
    [
        (  # the wording of a real denial (philschmid/cdk-samples#2)
            f"User: arn:aws:sts::123456789012:assumed-role/Dev/alice is not authorized to "
            f"perform: sagemaker:InvokeEndpoint on resource: arn:aws:sagemaker:{REGION}:"
            f"123456789012:endpoint/{ENDPOINT} because no identity-based policy allows the "
            "sagemaker:InvokeEndpoint action",
            "sagemaker:InvokeEndpoint",
            "arn:aws:sts::123456789012:assumed-role/Dev/alice",
        ),
        (  # a denial whose message names no action: the check names the one it needs
            "Your account is not authorized to invoke this API operation.",
            "sagemaker:InvokeEndpoint",
            "the caller",
        ),
    ],
)
def test_access_denied_names_the_missing_action(
    aws_env: pytest.MonkeyPatch,
    front: AwsFront,
    front_url: str,
    message: str,
    action: str,
    in_advice: str,
) -> None:
    front.fail_with("invoke", 403, "AccessDeniedException", message)
    result = run_invoke_check(runtime_client(aws_env, front_url), ENDPOINT, None, 60)
    diagnosis = diagnosed(result, Cause.ACCESS_DENIED)
    assert f"missing permission {action}" in diagnosis.summary
    assert in_advice in diagnosis.advice


def test_endpoint_missing_at_invocation_is_not_found(
    aws_env: pytest.MonkeyPatch, front: AwsFront, front_url: str
) -> None:
    # SageMaker's own answer for an unknown endpoint (aws/amazon-sagemaker-examples#293).
    message = f"Endpoint {ENDPOINT} of account 123456789012 not found."
    front.fail_with("invoke", 400, "ValidationError", message)
    result = run_invoke_check(runtime_client(aws_env, front_url), ENDPOINT, None, 60)
    diagnosed(result, Cause.NOT_FOUND)


def test_a_listener_that_never_answers_is_no_response_after_the_timeout(
    aws_env: pytest.MonkeyPatch,
) -> None:
    with SilentListener() as silent:
        client = runtime_client(aws_env, f"http://127.0.0.1:{silent.port}", timeout_s=1.0)
        result = run_invoke_check(client, ENDPOINT, None, 1.0)
        assert silent.accepted == 1  # one attempt: the smoke check does not retry
    diagnosis = diagnosed(result, Cause.NO_RESPONSE)
    assert "no response within 1 s" in diagnosis.summary
