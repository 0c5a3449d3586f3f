"""Builds, in moto, the account state after "deployed, then `cdk destroy`": this app's
leftovers next to look-alikes and other apps' resources that must never be touched."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import pytest

from teardown.cli import main

APP = "kokoro-voice"
REGION = "us-east-1"
ACCOUNT = "123456789012"  # moto's default account
# The repository `cdk synth` names in the asset manifests (the default synthesizer and its
# default qualifier). Typed here so that building the world does not start aws-cdk-lib's
# runtime; tests/teardown/test_teardown_cdk_contract.py checks it against aws-cdk-lib.
REPO_TEMPLATE = "cdk-hnb659fds-container-assets-${AWS::AccountId}-${AWS::Region}"


def bootstrap_repo(region: str = REGION) -> str:
    return REPO_TEMPLATE.replace("${AWS::AccountId}", ACCOUNT).replace("${AWS::Region}", region)


BOOTSTRAP_REPO = bootstrap_repo()
TTS_TAG = "a" * 64  # asset hashes, as in cdk.out
AGENT_TAG = "b" * 64
FOREIGN_TAG = "c" * 64
FOREIGN_SAME_DIGEST_TAG = "other-app-same-image"
APP_TAGS = [{"Key": "app", "Value": APP}]
ROLE = f"arn:aws:iam::{ACCOUNT}:role/sagemaker"


@dataclass
class World:
    app_dir: Path
    weights_bucket: str = "kokoro-voice-weights-1a2b3c"
    lookalike_bucket: str = "kokoro-voice-weights-lookalike"
    other_app_bucket: str = "kokoro-voice-weights-otherapp"
    endpoint: str = "kokoro-voice-tts"
    endpoint_config: str = "kokoro-voice-tts-config"
    model: str = "kokoro-voice-tts-model"
    foreign_model: str = "someone-elses-model"
    tagged_repo: str = "kokoro-voice-extra"
    foreign_repo: str = "unrelated-repo"
    stack: str = "KokoroVoice-Agent"
    runtime_id: str = ""
    foreign_runtime_id: str = ""
    app_log_groups: list[str] = field(default_factory=list)
    foreign_log_groups: list[str] = field(default_factory=list)
    # (kind, name) the dry run must flag, exactly.
    expected: set[tuple[str, str]] = field(default_factory=set)

    @property
    def argv(self) -> list[str]:
        """The cleanup CLI's arguments for this world's app directory."""
        return ["--app-dir", str(self.app_dir)]


def write_app_dir(app_dir: Path) -> None:
    """cdk.json context and a synthesized asset manifest, as `cdk synth` leaves them."""
    app_dir.mkdir(parents=True, exist_ok=True)
    (app_dir / "cdk.json").write_text(
        json.dumps({"app": "python3 app.py", "context": {"app_name": APP}})
    )
    repo = REPO_TEMPLATE
    manifest = {
        "version": "48.0.0",
        "files": {},
        "dockerImages": {
            TTS_TAG: {
                "source": {"directory": f"asset.{TTS_TAG}", "platform": "linux/amd64"},
                "destinations": {
                    "current_account-current_region": {"repositoryName": repo, "imageTag": TTS_TAG}
                },
            },
        },
    }
    agent_manifest = {
        "version": "48.0.0",
        "dockerImages": {
            AGENT_TAG: {
                "source": {"directory": f"asset.{AGENT_TAG}", "platform": "linux/arm64"},
                "destinations": {
                    f"{ACCOUNT}-{REGION}": {
                        "repositoryName": repo,
                        "imageTag": AGENT_TAG,
                        "region": REGION,
                    },
                    # The same asset published to another region: not this scan's business.
                    f"{ACCOUNT}-eu-west-1": {
                        "repositoryName": bootstrap_repo("eu-west-1"),
                        "imageTag": AGENT_TAG,
                        "region": "eu-west-1",
                    },
                },
            },
        },
    }
    out = app_dir / "cdk.out"
    out.mkdir(exist_ok=True)
    (out / "KokoroVoice-Tts.assets.json").write_text(json.dumps(manifest))
    (out / "KokoroVoice-Agent.assets.json").write_text(json.dumps(agent_manifest))


def image_manifest(seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).hexdigest()
    return json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
            "config": {
                "mediaType": "application/vnd.docker.container.image.v1+json",
                "size": 7023,
                "digest": f"sha256:{digest}",
            },
            "layers": [
                {
                    "mediaType": "application/vnd.docker.image.rootfs.diff.tar.gzip",
                    "size": 32654,
                    "digest": f"sha256:{digest[::-1]}",
                }
            ],
        }
    )


def build(app_dir: Path) -> World:
    """Create the leftovers; call inside mock_aws()."""
    write_app_dir(app_dir)
    w = World(app_dir=app_dir)
    s3 = boto3.client("s3", region_name=REGION)

    # The retained, versioned weights bucket: several versions and delete markers.
    s3.create_bucket(Bucket=w.weights_bucket)
    s3.put_bucket_versioning(Bucket=w.weights_bucket, VersioningConfiguration={"Status": "Enabled"})
    s3.put_bucket_tagging(Bucket=w.weights_bucket, Tagging={"TagSet": APP_TAGS})
    for body in (b"x" * 1000, b"y" * 2000, b"z" * 3000):
        s3.put_object(Bucket=w.weights_bucket, Key="kokoro-v1.0.onnx", Body=body)
    s3.put_object(Bucket=w.weights_bucket, Key="voices-v1.0.bin", Body=b"v" * 500)
    s3.put_object(Bucket=w.weights_bucket, Key="old/config.json", Body=b"{}")
    s3.delete_object(Bucket=w.weights_bucket, Key="old/config.json")
    s3.delete_object(Bucket=w.weights_bucket, Key="old/config.json")
    s3.put_object(Bucket=w.weights_bucket, Key="tmp/download.part", Body=b"t" * 10)
    s3.delete_object(Bucket=w.weights_bucket, Key="tmp/download.part")

    # Untagged look-alike and another app's bucket: same name pattern, never ours.
    s3.create_bucket(Bucket=w.lookalike_bucket)
    s3.put_object(Bucket=w.lookalike_bucket, Key="kokoro-v1.0.onnx", Body=b"keep me")
    s3.create_bucket(Bucket=w.other_app_bucket)
    s3.put_bucket_tagging(
        Bucket=w.other_app_bucket, Tagging={"TagSet": [{"Key": "app", "Value": "other-app"}]}
    )
    # This app's bucket in another region: a different deployment, not this scan's.
    boto3.client("s3", region_name="eu-west-1").create_bucket(
        Bucket="kokoro-voice-weights-euwest1",
        CreateBucketConfiguration={"LocationConstraint": "eu-west-1"},
    )
    s3.put_bucket_tagging(Bucket="kokoro-voice-weights-euwest1", Tagging={"TagSet": APP_TAGS})

    # ECR: the shared bootstrap repository with this app's and others' images.
    ecr = boto3.client("ecr", region_name=REGION)
    ecr.create_repository(repositoryName=BOOTSTRAP_REPO)
    ecr.put_image(
        repositoryName=BOOTSTRAP_REPO, imageManifest=image_manifest("tts"), imageTag=TTS_TAG
    )
    ecr.put_image(
        repositoryName=BOOTSTRAP_REPO, imageManifest=image_manifest("agent"), imageTag=AGENT_TAG
    )
    # Another app pushed the very same agent image under its own tag: the digest is shared.
    ecr.put_image(
        repositoryName=BOOTSTRAP_REPO,
        imageManifest=image_manifest("agent"),
        imageTag=FOREIGN_SAME_DIGEST_TAG,
    )
    ecr.put_image(
        repositoryName=BOOTSTRAP_REPO, imageManifest=image_manifest("foreign"), imageTag=FOREIGN_TAG
    )
    ecr.create_repository(repositoryName=w.tagged_repo, tags=[{"Key": "app", "Value": APP}])
    ecr.put_image(
        repositoryName=w.tagged_repo, imageManifest=image_manifest("extra"), imageTag="v1"
    )
    ecr.create_repository(repositoryName=w.foreign_repo)
    ecr.put_image(repositoryName=w.foreign_repo, imageManifest=image_manifest("x"), imageTag="v1")

    # SageMaker: a leftover endpoint (moto rejects ml.g5.*: ml.m5.large in tests only).
    sm = boto3.client("sagemaker", region_name=REGION)
    container = {"Image": f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/{BOOTSTRAP_REPO}:{TTS_TAG}"}
    sm.create_model(
        ModelName=w.model, ExecutionRoleArn=ROLE, PrimaryContainer=container, Tags=APP_TAGS
    )
    sm.create_endpoint_config(
        EndpointConfigName=w.endpoint_config,
        ProductionVariants=[
            {
                "VariantName": "AllTraffic",
                "ModelName": w.model,
                "InstanceType": "ml.m5.large",
                "InitialInstanceCount": 2,
            }
        ],
        Tags=APP_TAGS,
    )
    sm.create_endpoint(EndpointName=w.endpoint, EndpointConfigName=w.endpoint_config, Tags=APP_TAGS)
    sm.create_model(ModelName=w.foreign_model, ExecutionRoleArn=ROLE, PrimaryContainer=container)

    # AgentCore runtimes: ours (tagged) and a foreign one.
    control = boto3.client("bedrock-agentcore-control", region_name=REGION)
    runtime_args = {
        "agentRuntimeArtifact": {"containerConfiguration": {"containerUri": container["Image"]}},
        "roleArn": ROLE,
        "networkConfiguration": {"networkMode": "PUBLIC"},
    }
    w.runtime_id = control.create_agent_runtime(
        agentRuntimeName="kokoro_voice_agent", tags={"app": APP}, **runtime_args
    )["agentRuntimeId"]
    w.foreign_runtime_id = control.create_agent_runtime(
        agentRuntimeName="other_agent", **runtime_args
    )["agentRuntimeId"]

    # Log groups: service-created (untagged, matched by prefix + name), app-tagged, foreign.
    logs = boto3.client("logs", region_name=REGION)
    w.app_log_groups = [
        f"/aws/sagemaker/Endpoints/{w.endpoint}",
        f"/aws/bedrock-agentcore/runtimes/{w.runtime_id}-DEFAULT",
        "/kokoro/custom-metrics",
    ]
    w.foreign_log_groups = [
        "/aws/sagemaker/Endpoints/other-endpoint",
        f"/aws/bedrock-agentcore/runtimes/{w.foreign_runtime_id}-DEFAULT",
        "/aws/sagemaker/Endpoints/kokoro-voice-but-other-app",
    ]
    logs.create_log_group(logGroupName=w.app_log_groups[0])
    logs.create_log_group(logGroupName=w.app_log_groups[1])
    logs.create_log_group(logGroupName=w.app_log_groups[2], tags={"app": APP})
    logs.create_log_group(logGroupName=w.foreign_log_groups[0])
    logs.create_log_group(logGroupName=w.foreign_log_groups[1])
    logs.create_log_group(logGroupName=w.foreign_log_groups[2], tags={"app": "other-app"})

    # A partial destroy left the agent stack; CDKToolkit and another app's stack stay.
    cfn = boto3.client("cloudformation", region_name=REGION)
    template = json.dumps({"Resources": {"Topic": {"Type": "AWS::SNS::Topic"}}})
    cfn.create_stack(StackName=w.stack, TemplateBody=template, Tags=APP_TAGS)
    cfn.create_stack(StackName="CDKToolkit", TemplateBody=template)
    cfn.create_stack(
        StackName="KokoroVoice2-Tts",
        TemplateBody=template,
        Tags=[{"Key": "app", "Value": "kokoro-voice2"}],
    )

    w.expected = {
        ("stack", w.stack),
        ("bucket", w.weights_bucket),
        ("image", _image_name(ecr, TTS_TAG)),
        ("image", _image_name(ecr, AGENT_TAG)),
        ("repository", w.tagged_repo),
        ("endpoint", w.endpoint),
        ("endpoint-config", w.endpoint_config),
        ("model", w.model),
        ("agent-runtime", "kokoro_voice_agent"),
        *(("log-group", g) for g in w.app_log_groups),
    }
    return w


def _image_name(ecr: Any, tag: str) -> str:
    digest = ecr.describe_images(repositoryName=BOOTSTRAP_REPO, imageIds=[{"imageTag": tag}])[
        "imageDetails"
    ][0]["imageDigest"]
    return digest[:19]


def image_tags(repository: str) -> dict[str, list[str]]:
    """digest -> tags of every image in a repository."""
    ecr = boto3.client("ecr", region_name=REGION)
    return {
        i["imageDigest"]: sorted(i.get("imageTags", []))
        for i in ecr.describe_images(repositoryName=repository)["imageDetails"]
    }


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, Any]]:
    """main(argv + --json) in-process; returns the exit code and the parsed stdout."""
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def flagged(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {(f["kind"], f["name"]) for f in report["findings"]}
