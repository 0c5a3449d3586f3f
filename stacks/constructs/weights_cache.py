"""Retained S3 bucket for the model weights, filled at deploy time by a custom resource."""

from __future__ import annotations

from pathlib import Path

from aws_cdk import CustomResource, Duration, RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from aws_cdk import custom_resources as cr
from constructs import Construct

from stacks.nag import acknowledge, iam5, nag_rendering
from stacks.weights_manifest import WeightsRevision

HANDLER_DIR = Path(__file__).resolve().parent.parent / "weights_cache"
# The Lambda asset is stacks/ with everything but the weights_cache package left out.
HANDLER_ASSET_EXCLUDE = ["*", f"!{HANDLER_DIR.name}", f"!{HANDLER_DIR.name}/*.py"]
WEIGHTS_ROOT_PREFIX = "kokoro/"


class WeightsCache(Construct):
    """The weights bucket plus the deploy-time step that copies one pinned revision into it.

    Attributes: ``bucket``, ``prefix`` ('kokoro/<revision>/') and ``model_data_url``
    (s3://bucket/prefix, a token that makes dependants wait until the files are in place).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        revision: WeightsRevision,
        existing_bucket_name: str | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.prefix = revision.prefix
        self.bucket_imported = existing_bucket_name is not None
        self.bucket = (
            self._import_bucket(existing_bucket_name)
            if existing_bucket_name is not None
            else self._create_bucket()
        )

        handler = self._handler_function()
        provider = cr.Provider(self, "Provider", on_event_handler=handler)
        self._acknowledge_provider(provider, handler)
        resource = _custom_resource(self, provider, self.bucket, revision)
        self.model_data_url = resource.get_att_string("ModelDataUrl")

    def _create_bucket(self) -> s3.Bucket:
        bucket = s3.Bucket(
            self,
            "Bucket",
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            # Retained on destroy: a later deploy can import it (context weights_bucket) and
            # reuse the 354 MB of weights; the cleanup script reports it and deletes it on
            # request.
            removal_policy=RemovalPolicy.RETAIN,
            lifecycle_rules=[
                s3.LifecycleRule(
                    id="abort-incomplete-multipart-uploads",
                    abort_incomplete_multipart_upload_after=Duration.days(1),
                )
            ],
        )
        acknowledge(
            bucket,
            "AwsSolutions-S1",
            (
                "The bucket only holds public, sha256-pinned model weights written by this "
                "stack's custom resource and read by the SageMaker execution role; server access "
                "logs would need a second retained bucket for no security gain. CloudTrail data "
                "events can be enabled on it if an audit trail is required."
            ),
        )
        return bucket

    def _import_bucket(self, name: str) -> s3.IBucket:
        """The bucket a destroyed stack retained: encryption, public access block and object
        ownership are bucket settings and survived; its SSL-only bucket policy was a stack
        resource and was deleted with the stack, so it is put back here."""
        bucket = s3.Bucket.from_bucket_name(self, "Bucket", name)
        policy = s3.BucketPolicy(self, "BucketPolicy", bucket=bucket)
        policy.document.add_statements(
            iam.PolicyStatement(
                sid="DenyInsecureTransport",
                effect=iam.Effect.DENY,
                principals=[iam.AnyPrincipal()],
                actions=["s3:*"],
                resources=[bucket.bucket_arn, bucket.arn_for_objects("*")],
                conditions={"Bool": {"aws:SecureTransport": "false"}},
            )
        )
        return bucket

    def _handler_function(self) -> lambda_.Function:
        log_group = logs.LogGroup(
            self,
            "HandlerLogs",
            retention=logs.RetentionDays.ONE_MONTH,
            removal_policy=RemovalPolicy.DESTROY,
        )
        role = self._handler_role(log_group)
        function = lambda_.Function(
            self,
            "Handler",
            runtime=lambda_.Runtime.PYTHON_3_12,
            # The package (handler + the download code it shares with `make weights`), alone.
            handler=f"{HANDLER_DIR.name}.handler.on_event",
            code=lambda_.Code.from_asset(str(HANDLER_DIR.parent), exclude=HANDLER_ASSET_EXCLUDE),
            role=role,
            log_group=log_group,
            # Streams ~350 MB from the upstream host into S3: minutes, not seconds. The
            # download is streamed part by part, so memory only needs a few 16 MiB buffers
            # (the default 512 MB ephemeral storage is never used).
            timeout=Duration.minutes(15),
            memory_size=1024,
            description="Copies the pinned Kokoro-82M weights into S3 with sha256 checks",
        )
        acknowledge(
            function,
            "AwsSolutions-L1",
            (
                "Pinned to Python 3.12, the version this project targets and tests the handler "
                "with (stdlib + the runtime's boto3 only); bump it together with the tests."
            ),
        )
        return function

    def _handler_role(self, log_group: logs.LogGroup) -> iam.Role:
        """Writes under kokoro/ of the weights bucket and to its own log group, nothing else."""
        role = iam.Role(
            self,
            "HandlerRole",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description="Weights cache: write the pinned weights under kokoro/ and its own logs",
        )
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                resources=[log_group.log_group_arn],
            )
        )
        role.add_to_policy(
            iam.PolicyStatement(
                # PutObject covers create/upload-part/complete of a multipart upload;
                # GetObject backs HeadObject (the "already cached?" check).
                actions=["s3:PutObject", "s3:GetObject", "s3:AbortMultipartUpload"],
                resources=[self.bucket.arn_for_objects(f"{WEIGHTS_ROOT_PREFIX}*")],
            )
        )
        role.add_to_policy(
            iam.PolicyStatement(
                # Without ListBucket, HeadObject on a missing key answers 403 instead of 404.
                actions=["s3:ListBucket"],
                resources=[self.bucket.bucket_arn],
                conditions={"StringLike": {"s3:prefix": [f"{WEIGHTS_ROOT_PREFIX}*"]}},
            )
        )
        acknowledge(
            role,
            iam5(f"{nag_rendering(self, self.bucket.bucket_arn)}/{WEIGHTS_ROOT_PREFIX}*"),
            (
                "Scoped to the objects under kokoro/ of this stack's weights bucket (one prefix "
                "per pinned revision, named at deploy time) and to the handler's own log group "
                "streams."
            ),
        )
        return role

    def _acknowledge_provider(self, provider: cr.Provider, handler: lambda_.Function) -> None:
        acknowledge(
            provider,
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
            "AWSLambdaBasicExecutionRole]",
            (
                "The CDK custom-resource Provider framework function uses the AWS managed "
                "AWSLambdaBasicExecutionRole for its own logs; it runs no user code."
            ),
        )
        acknowledge(
            provider,
            iam5(f"{nag_rendering(self, handler.function_arn)}:*"),
            (
                "The Provider framework may invoke only the weights handler function, including "
                "its versions (function-arn:*), as generated by aws-cdk-lib."
            ),
        )
        acknowledge(
            provider,
            "AwsSolutions-L1",
            (
                "The Provider framework function's runtime is chosen and updated by aws-cdk-lib, "
                "not by this app."
            ),
        )


def _custom_resource(
    scope: Construct, provider: cr.Provider, bucket: s3.IBucket, revision: WeightsRevision
) -> CustomResource:
    # Changing the revision changes Prefix and so the physical id: CloudFormation then
    # sends Delete for the old one, which leaves the old prefix in place (retained).
    return CustomResource(
        scope,
        "Files",
        service_token=provider.service_token,
        resource_type="Custom::KokoroWeights",
        properties={
            "BucketName": bucket.bucket_name,
            "Prefix": revision.prefix,
            "Revision": revision.name,
            "Files": [f.as_properties() for f in revision.files],
        },
    )
