"""The pure diagnosis mapping: the SDKs' real exception types and AWS's real error wording in,
the plain cause and the missing permission out."""

from __future__ import annotations

import pytest
from aws_sdk_sagemaker_runtime_http2.models import InputValidationError, ModelError
from botocore.exceptions import (
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)
from kokoro_stream.aws_credentials import AwsCredentialsError
from kokoro_stream.sagemaker_client import SdkCallError
from smithy_core.exceptions import SmithyError

from smoke.diagnosis import (
    Call,
    Cause,
    access_denied,
    from_event,
    from_exception,
    not_in_service,
)

INVOKE = Call("InvokeEndpoint", "sagemaker:InvokeEndpoint", "endpoint kokoro-voice-tts")
STREAM = Call(
    "InvokeEndpointWithBidirectionalStream",
    "sagemaker:InvokeEndpointWithBidirectionalStream",
    "endpoint kokoro-voice-tts",
    stream=True,
)
AGENT = Call("InvokeAgentRuntime", "bedrock-agentcore:InvokeAgentRuntime", "runtime arn:x")
ROLE = "arn:aws:sts::123456789012:assumed-role/Dev/alice"
ENDPOINT_ARN = "arn:aws:sagemaker:us-east-1:123456789012:endpoint/kokoro-voice-tts"


def client_error(code: str, message: str, status: int = 400) -> ClientError:
    response = {
        "Error": {"Code": code, "Message": message},
        "ResponseMetadata": {"HTTPStatusCode": status},
    }
    return ClientError(response, "InvokeEndpoint")


def test_denial_names_action_resource_and_principal_from_awss_message() -> None:
    message = (
        f"User: {ROLE} is not authorized to perform: sagemaker:InvokeEndpoint on resource: "
        f"{ENDPOINT_ARN} because no identity-based policy allows the sagemaker:InvokeEndpoint "
        "action"
    )
    d = from_exception(client_error("AccessDeniedException", message, 403), INVOKE)
    assert d.cause is Cause.ACCESS_DENIED
    assert d.summary == (
        f"InvokeEndpoint: access denied, missing permission sagemaker:InvokeEndpoint on "
        f"{ENDPOINT_ARN}"
    )
    assert d.advice.startswith(f"allow sagemaker:InvokeEndpoint on {ENDPOINT_ARN} for {ROLE}")


def test_an_explicit_deny_is_not_fixed_by_an_allow() -> None:
    message = (
        f"User: {ROLE} is not authorized to perform: sagemaker:InvokeEndpoint on resource: "
        f"{ENDPOINT_ARN} with an explicit deny in a service control policy"
    )
    d = access_denied(INVOKE, message)
    assert d.advice.startswith("an explicit deny (in a service control policy) blocks it")


def test_denial_without_an_action_names_the_one_the_call_needs() -> None:
    d = from_exception(
        client_error("AccessDeniedException", "Your account is not authorized.", 403), AGENT
    )
    assert "missing permission bedrock-agentcore:InvokeAgentRuntime on runtime arn:x" in d.summary


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (NoCredentialsError(), Cause.NO_CREDENTIALS),
        (AwsCredentialsError("no AWS credentials found"), Cause.NO_CREDENTIALS),
        (ReadTimeoutError(endpoint_url="https://x"), Cause.NO_RESPONSE),
        (EndpointConnectionError(endpoint_url="https://x"), Cause.UNREACHABLE),
        (
            client_error("ExpiredTokenException", "The security token expired"),
            Cause.BAD_CREDENTIALS,
        ),
        (client_error("ThrottlingException", "Rate exceeded", 429), Cause.THROTTLED),
        (client_error("ResourceNotFoundException", "No runtime", 404), Cause.NOT_FOUND),
        (  # SageMaker's wording for an unknown endpoint (aws/amazon-sagemaker-examples#293)
            client_error("ValidationError", "Endpoint e of account 123456789012 not found."),
            Cause.NOT_FOUND,
        ),
        (client_error("ValidationError", "Body is too long"), Cause.UNEXPECTED),
        (
            client_error("ModelError", "Received client error (400) from primary", 424),
            Cause.MODEL_ERROR,
        ),
        (ModelError(message="Received server error (500) from primary"), Cause.MODEL_ERROR),
        (InputValidationError(message="Endpoint e of account 1 not found."), Cause.NOT_FOUND),
        (SmithyError("AWS_IO_TLS_NEGOTIATION_TIMEOUT: tls negotiation timeout"), Cause.NO_RESPONSE),
        (SmithyError("AWS_IO_DNS_INVALID_NAME: host name invalid"), Cause.UNREACHABLE),
        (ValueError("something else"), Cause.UNEXPECTED),
    ],
)
def test_exceptions_map_to_their_cause(error: BaseException, cause: Cause) -> None:
    assert from_exception(error, STREAM).cause is cause


def test_the_transports_credential_failure_is_found_along_the_cause_chain() -> None:
    """What `SageMakerBidiTts.open_session` raises when botocore's chain fails: SdkCallError
    from AwsCredentialsError from botocore's own error."""
    try:
        try:
            try:
                raise NoCredentialsError()
            except NoCredentialsError as botocore_error:
                raise AwsCredentialsError("botocore's credential chain failed") from botocore_error
        except AwsCredentialsError as inner:
            raise SdkCallError("AwsCredentialsError: botocore's credential chain failed") from inner
    except SdkCallError as outer:
        d = from_exception(outer, STREAM)
    assert d.cause is Cause.NO_CREDENTIALS
    assert "AwsCredentialsError: botocore's credential chain failed" in d.summary
    assert "aws sso login" in d.advice  # the same chain as boto3's: the same remedy


def test_stream_silence_points_at_port_8443_and_invocation_silence_does_not() -> None:
    stream = from_exception(TimeoutError(), STREAM, timeout_s=30)
    invoke = from_exception(TimeoutError(), INVOKE, timeout_s=30)
    assert "port 8443" in stream.advice and "8443" not in invoke.advice
    assert "within 30 s" in stream.summary and "within 30 s" in invoke.summary


def test_the_cause_inside_an_agent_error_event_wins() -> None:
    """The agent's execution role lacks the stream permission: the agent reports tts_* with
    AWS's denial inside; that denial, not the wrapper, is the diagnosis."""
    message = (
        "SageMaker AccessDeniedException: User: arn:aws:sts::123456789012:assumed-role/"
        "KokoroVoice-Agent-Role/session is not authorized to perform: "
        f"sagemaker:InvokeEndpointWithBidirectionalStream on resource: {ENDPOINT_ARN}"
    )
    d = from_event("tts_unavailable", message, AGENT)
    assert d.cause is Cause.ACCESS_DENIED
    assert "sagemaker:InvokeEndpointWithBidirectionalStream" in d.summary
    assert "KokoroVoice-Agent-Role" in d.advice


@pytest.mark.parametrize(
    ("code", "message", "cause"),
    [
        ("tts_unavailable", "TimeoutError()", Cause.AGENT_ERROR),
        (
            "tts_unavailable",
            "NoCredentialsError: Unable to locate credentials",
            Cause.NO_CREDENTIALS,
        ),
        (  # the agent's transport, as its tts_unavailable event words it
            "tts_unavailable",
            "SageMaker stream did not open: AwsCredentialsError: no AWS credentials found",
            Cause.NO_CREDENTIALS,
        ),
        ("tts_service_error", "ExpiredTokenException: token expired", Cause.BAD_CREDENTIALS),
    ],
)
def test_agent_error_events(code: str, message: str, cause: Cause) -> None:
    assert from_event(code, message, AGENT).cause is cause


def test_stream_failures_keep_their_code() -> None:
    d = from_event("tts_disconnected", "SageMaker stream ended before session_end", STREAM)
    assert d.cause is Cause.STREAM_FAILED
    assert "tts_disconnected" in d.summary


def test_endpoint_states() -> None:
    creating = not_in_service("e", "Creating", None)
    failed = not_in_service("e", "Failed", "CUDA driver too old")
    assert creating.cause is failed.cause is Cause.NOT_IN_SERVICE
    assert "aws sagemaker wait endpoint-in-service --endpoint-name e" in creating.advice
    assert "CUDA driver too old" in failed.summary and "/aws/sagemaker/Endpoints/e" in failed.advice
