"""Critical properties of the TTS endpoint stack, asserted on the synthesized template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from aws_cdk.assertions import Match, Template

from devkit.paths import REPO_ROOT
from stacks.app_builder import build_app
from stacks.dockerfile_guard import BIDI_LABEL_KEY
from stacks.weights_manifest import load_revision
from tests.support.cdk_synth import RETAINED_BUCKET, TTS, Synthesized, load_json, stack_of

pytestmark = pytest.mark.synth


def test_endpoint_config_variant(synthesized: Synthesized) -> None:
    synthesized.assertions[TTS].has_resource_properties(
        "AWS::SageMaker::EndpointConfig",
        {
            "ProductionVariants": [
                Match.object_like(
                    {
                        "VariantName": "AllTraffic",
                        "InstanceType": "ml.g5.xlarge",
                        "InitialInstanceCount": 1,
                        "InferenceAmiVersion": "al2023-ami-sagemaker-inference-gpu-4-1",
                        "ContainerStartupHealthCheckTimeoutInSeconds": 600,
                        "ModelDataDownloadTimeoutInSeconds": 600,
                        "RoutingConfig": {"RoutingStrategy": "LEAST_OUTSTANDING_REQUESTS"},
                    }
                )
            ],
            "Tags": Match.array_with([{"Key": BIDI_LABEL_KEY, "Value": "true"}]),
        },
    )


def test_model_reads_uncompressed_weights_prefix(synthesized: Synthesized) -> None:
    model = synthesized.only(TTS, "AWS::SageMaker::Model")["Properties"]
    container = model["PrimaryContainer"]
    source = container["ModelDataSource"]["S3DataSource"]
    assert source["S3DataType"] == "S3Prefix"
    assert source["CompressionType"] == "None"
    # The URI comes from the weights custom resource, so the model waits for the files.
    custom = synthesized.resources(TTS, "Custom::KokoroWeights")
    assert source["S3Uri"] == {"Fn::GetAtt": [next(iter(custom)), "ModelDataUrl"]}
    assert container["Mode"] == "SingleModel"
    assert container["Environment"] == {
        "KOKORO_MODEL_DIR": "/opt/ml/model",
        "KOKORO_VOICE": "af_heart",
        "KOKORO_PROVIDER": "cuda",
        "KOKORO_CUDNN_CONV_ALGO_SEARCH": "HEURISTIC",
        "KOKORO_MAX_SESSIONS": "32",
    }
    assert model["EnableNetworkIsolation"] is True
    assert "ModelDataUrl" not in container  # no model.tar.gz


def test_endpoint_has_deterministic_name(synthesized: Synthesized) -> None:
    endpoint = synthesized.only(TTS, "AWS::SageMaker::Endpoint")["Properties"]
    assert endpoint["EndpointName"] == "kokoro-voice-tts"
    config_id = next(iter(synthesized.resources(TTS, "AWS::SageMaker::EndpointConfig")))
    assert endpoint["EndpointConfigName"] == {"Fn::GetAtt": [config_id, "EndpointConfigName"]}


def test_weights_custom_resource_carries_pinned_manifest(synthesized: Synthesized) -> None:
    revision = load_revision("kokoro-82m-v1.0-onnx-fp32")
    props = synthesized.only(TTS, "Custom::KokoroWeights")["Properties"]
    assert props["Prefix"] == "kokoro/kokoro-82m-v1.0-onnx-fp32/"
    assert props["Files"] == [f.as_properties() for f in revision.files]
    assert {f["name"] for f in props["Files"]} == {
        "kokoro-v1.0.onnx",
        "voices-v1.0.bin",
        "config.json",
    }


def test_weights_bucket_is_retained_encrypted_ssl_only_private(synthesized: Synthesized) -> None:
    bucket = synthesized.only(TTS, "AWS::S3::Bucket")
    assert bucket["DeletionPolicy"] == "Retain"
    assert bucket["UpdateReplacePolicy"] == "Retain"
    props = bucket["Properties"]
    assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"][0][
        "ServerSideEncryptionByDefault"
    ] == {"SSEAlgorithm": "AES256"}
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    rules = props["LifecycleConfiguration"]["Rules"]
    assert {"AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}}.items() <= rules[
        0
    ].items()
    policy = synthesized.only(TTS, "AWS::S3::BucketPolicy")["Properties"]["PolicyDocument"]
    deny_insecure = [
        s
        for s in policy["Statement"]
        if s["Effect"] == "Deny"
        and s.get("Condition") == {"Bool": {"aws:SecureTransport": "false"}}
    ]
    assert deny_insecure, "bucket policy must deny non-TLS requests"


def test_weights_handler_function(synthesized: Synthesized) -> None:
    synthesized.assertions[TTS].has_resource_properties(
        "AWS::Lambda::Function",
        {
            "Runtime": "python3.12",
            "Handler": "weights_cache.handler.on_event",
            "Timeout": 900,
            "MemorySize": 1024,
        },
    )


def test_autoscaling_on_concurrency(synthesized: Synthesized) -> None:
    target = synthesized.only(TTS, "AWS::ApplicationAutoScaling::ScalableTarget")["Properties"]
    assert target["ResourceId"] == "endpoint/kokoro-voice-tts/variant/AllTraffic"
    assert target["ScalableDimension"] == "sagemaker:variant:DesiredInstanceCount"
    assert (target["MinCapacity"], target["MaxCapacity"]) == (1, 2)
    assert "AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint" in json.dumps(
        target["RoleARN"]
    )
    policy = synthesized.only(TTS, "AWS::ApplicationAutoScaling::ScalingPolicy")["Properties"]
    tracking = policy["TargetTrackingScalingPolicyConfiguration"]
    assert tracking["PredefinedMetricSpecification"] == {
        "PredefinedMetricType": "SageMakerVariantConcurrentRequestsPerModelHighResolution"
    }
    # The target the app is deployed with: cdk.json's context (its derivation:
    # docs/performance.md, "Where a g5 runs out").
    context = json.loads((REPO_ROOT / "cdk.json").read_text(encoding="utf-8"))["context"]
    assert tracking["TargetValue"] == context["target_concurrency_per_instance"]


def test_alarms_on_errors_first_sound_and_refusals(synthesized: Synthesized) -> None:
    """SageMaker's error counts, and the server's log metrics; no ModelLatency, which a
    bidirectional stream turns into the length of the call (docs/monitoring.md)."""
    alarms = [
        a["Properties"] for a in synthesized.resources(TTS, "AWS::CloudWatch::Alarm").values()
    ]
    by_metric = {}
    for alarm in alarms:
        if "MetricName" in alarm:  # a plain metric of SageMaker's
            assert alarm["Namespace"] == "AWS/SageMaker"
            assert {"Name": "EndpointName", "Value": "kokoro-voice-tts"} in alarm["Dimensions"]
            by_metric[alarm["MetricName"]] = alarm
        else:  # a log metric of this app's namespace
            (query,) = alarm["Metrics"]
            stat = query["MetricStat"]
            assert stat["Metric"]["Namespace"] == "kokoro-voice"
            by_metric[stat["Metric"]["MetricName"]] = {**alarm, **stat}
    assert set(by_metric) == {
        "Invocation5XXErrors",
        "InvocationModelErrors",
        "ServerFirstSoundMs",
        "SessionsRefused",
    }
    first_sound = by_metric["ServerFirstSoundMs"]
    assert (first_sound["Stat"], first_sound["Threshold"]) == ("p95", 1500)
    refused = by_metric["SessionsRefused"]
    assert (refused["Stat"], refused["Period"], refused["Threshold"]) == ("Sum", 300, 1)
    assert refused["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    assert "ModelLatency" not in json.dumps(synthesized.templates[TTS])


def test_endpoint_log_group_is_named_for_the_endpoint(synthesized: Synthesized) -> None:
    # Created or adopted by LogRetention, not a stack resource (tests/stacks/test_deploy_checks.py).
    synthesized.assertions[TTS].has_resource_properties(
        "Custom::LogRetention",
        {"LogGroupName": "/aws/sagemaker/Endpoints/kokoro-voice-tts", "RetentionInDays": 30},
    )


def test_kokoro_image_is_amd64_and_agent_image_arm64(synthesized: Synthesized) -> None:
    platforms = {}
    for stack in ("KokoroVoice-Tts", "KokoroVoice-Agent"):
        assets = load_json(synthesized.outdir / f"{stack}.assets.json")
        for image in assets["dockerImages"].values():
            platforms[image["displayName"]] = image["source"]["platform"]
    assert platforms == {
        "KokoroImage": "linux/amd64",
        "VoiceAgent/Runtime/AgentRuntimeArtifact": "linux/arm64",
    }


def test_outputs(synthesized: Synthesized) -> None:
    outputs = synthesized.templates[TTS]["Outputs"]
    assert {"EndpointName", "EndpointArn", "WeightsBucketName", "ImageUri"} <= set(outputs)
    assert outputs["VoicePaused"]["Value"] == "false"


def test_context_overrides_reach_the_template(tmp_path: Path) -> None:
    app = build_app(
        {
            "app_name": "demo-voice",
            "instance_type": "ml.g6.xlarge",
            "max_instances": "3",
            "voice": "bf_emma",
        },
        outdir=str(tmp_path),
    )
    template = Template.from_stack(stack_of(app, "DemoVoice-Tts"))
    template.has_resource_properties(
        "AWS::SageMaker::EndpointConfig",
        {"ProductionVariants": [Match.object_like({"InstanceType": "ml.g6.xlarge"})]},
    )
    template.has_resource_properties("AWS::SageMaker::Endpoint", {"EndpointName": "demo-voice-tts"})
    template.has_resource_properties(
        "AWS::ApplicationAutoScaling::ScalableTarget",
        {"MaxCapacity": 3, "ResourceId": "endpoint/demo-voice-tts/variant/AllTraffic"},
    )
    template.has_resource_properties(
        "AWS::SageMaker::Model",
        {
            "PrimaryContainer": Match.object_like(
                {"Environment": Match.object_like({"KOKORO_VOICE": "bf_emma"})}
            )
        },
    )


def _imported_arn(suffix: str = "") -> dict:
    return {
        "Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, f":s3:::{RETAINED_BUCKET}{suffix}"]]
    }


def test_weights_bucket_context_imports_the_retained_bucket(variant: Synthesized) -> None:
    # Imported, not created: no second bucket, and the weights step fills the named one.
    assert variant.resources(TTS, "AWS::S3::Bucket") == {}
    props = variant.only(TTS, "Custom::KokoroWeights")["Properties"]
    assert props["BucketName"] == RETAINED_BUCKET
    assert props["Prefix"] == "kokoro/kokoro-82m-v1.0-onnx-fp32/"
    outputs = variant.templates[TTS]["Outputs"]
    assert outputs["WeightsBucketName"]["Value"] == RETAINED_BUCKET


def test_reused_bucket_gets_its_ssl_only_policy_back(variant: Synthesized) -> None:
    # The bucket policy was a stack resource and went with the destroyed stack.
    policy = variant.only(TTS, "AWS::S3::BucketPolicy")
    assert "DeletionPolicy" not in policy  # deleted again on destroy, so a re-import can add it
    props = policy["Properties"]
    assert props["Bucket"] == RETAINED_BUCKET
    (statement,) = props["PolicyDocument"]["Statement"]
    assert statement["Effect"] == "Deny"
    assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert statement["Resource"] == [_imported_arn(), _imported_arn("/*")]


def test_reused_bucket_iam_stays_scoped_to_its_prefixes(variant: Synthesized) -> None:
    by_role: dict[str, list[dict]] = {"TtsExecutionRole": [], "WeightsHandlerRole": []}
    for logical_id, res in variant.resources(TTS, "AWS::IAM::Policy").items():
        for role in by_role:
            if logical_id.startswith(role):
                by_role[role] += res["Properties"]["PolicyDocument"]["Statement"]
    s3 = {
        role: {json.dumps(s["Action"]): s for s in stmts if "s3:" in json.dumps(s["Action"])}
        for role, stmts in by_role.items()
    }
    model = s3["TtsExecutionRole"]
    assert model['"s3:GetObject"']["Resource"] == _imported_arn(
        "/kokoro/kokoro-82m-v1.0-onnx-fp32/*"
    )
    assert model['"s3:ListBucket"']["Resource"] == _imported_arn()
    assert model['"s3:ListBucket"']["Condition"] == {
        "StringLike": {
            "s3:prefix": ["kokoro/kokoro-82m-v1.0-onnx-fp32/", "kokoro/kokoro-82m-v1.0-onnx-fp32/*"]
        }
    }
    writer = s3["WeightsHandlerRole"]
    put = writer['["s3:PutObject", "s3:GetObject", "s3:AbortMultipartUpload"]']
    assert put["Resource"] == _imported_arn("/kokoro/*")
    assert writer['"s3:ListBucket"']["Condition"] == {"StringLike": {"s3:prefix": ["kokoro/*"]}}


@pytest.fixture(scope="module")
def with_user_voices(tmp_path_factory: pytest.TempPathFactory) -> dict:
    app = build_app(
        {"user_voices_prefix": "voices/"}, outdir=str(tmp_path_factory.mktemp("cdk.out.voices"))
    )
    app.synth()  # cdk-nag and CloudFormation's validation run here
    return dict(Template.from_stack(stack_of(app, TTS)).to_json())


def _only(template: dict, cfn_type: str) -> dict:
    (found,) = [r for r in template["Resources"].values() if r["Type"] == cfn_type]
    return found


def test_user_voices_prefix_points_the_server_into_the_weights(with_user_voices: dict) -> None:
    container = _only(with_user_voices, "AWS::SageMaker::Model")["Properties"]["PrimaryContainer"]
    assert container["Environment"]["KOKORO_USER_VOICES_DIR"] == "/opt/ml/model/voices"
    # CloudFormation's AWS::SageMaker::Model has no AdditionalModelDataSources: the voices
    # come with the one weights data source, unchanged.
    assert "AdditionalModelDataSources" not in container
    source = container["ModelDataSource"]["S3DataSource"]
    assert (source["S3DataType"], source["CompressionType"]) == ("S3Prefix", "None")


def _actions(statement: dict) -> list:
    actions = statement["Action"]
    return actions if isinstance(actions, list) else [actions]


def test_user_voices_need_no_wider_read_than_the_weights(
    with_user_voices: dict, synthesized: Synthesized
) -> None:
    # kokoro/<revision>/voices/ lies under kokoro/<revision>/, which the role already reads.
    # Only the S3 grants are compared: the image's grants name its asset hash, which changes
    # whenever a file under container/ does between the two syntheses.
    def policies(template: dict) -> list:
        return [
            statement
            for logical_id, r in template["Resources"].items()
            if r["Type"] == "AWS::IAM::Policy" and logical_id.startswith("TtsExecutionRole")
            for statement in r["Properties"]["PolicyDocument"]["Statement"]
            if any(str(a).startswith("s3:") for a in _actions(statement))
        ]

    default = policies(synthesized.templates[TTS])
    assert len(default) >= 2  # GetObject and ListBucket on the weights prefix
    assert policies(with_user_voices) == default


def test_user_voices_template_has_no_cfn_lint_errors(with_user_voices: dict) -> None:
    from cfnlint.api import ManualArgs, lint

    matches = lint(json.dumps(with_user_voices), config=ManualArgs(regions=["us-east-1"]))
    errors = [m for m in matches if m.rule.id.startswith("E")]
    assert not errors, "\n".join(str(m) for m in errors)


def test_default_synth_has_no_user_voices(synthesized: Synthesized) -> None:
    container = synthesized.only(TTS, "AWS::SageMaker::Model")["Properties"]["PrimaryContainer"]
    assert "KOKORO_USER_VOICES_DIR" not in container["Environment"]


@pytest.mark.parametrize(
    ("value", "expected"), [("voices", "voices/"), ("my/voices/", "my/voices/"), ("", "")]
)
def test_user_voices_prefix_is_read_as_a_folder(value: str, expected: str) -> None:
    from aws_cdk import App

    from stacks.config import load_config

    node = App(context={"user_voices_prefix": value}).node
    assert load_config(node).user_voices_prefix == expected


@pytest.mark.parametrize("value", ["/voices/", "../voices/", "voices/../x", "a//b", "v o"])
def test_user_voices_prefix_outside_the_weights_is_refused(value: str) -> None:
    from aws_cdk import App

    from stacks.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="user_voices_prefix"):
        load_config(App(context={"user_voices_prefix": value}).node)
