"""The SNS topic every alarm of the app notifies, encrypted with a key CloudWatch may use."""

from __future__ import annotations

from aws_cdk import ArnFormat, Duration, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct


class AlarmTopic(Construct):
    """KMS-encrypted, SSL-only topic that CloudWatch alarms of this account publish to.

    CloudWatch calls KMS itself when it publishes to an encrypted topic, and neither the AWS
    managed `alias/aws/sns` key nor the account-root statement of a key policy lets it: a
    notification to such a topic is dropped and only the alarm's history says why. So the
    topic has its own key whose policy grants `cloudwatch.amazonaws.com` (limited to alarms
    of this account) `kms:Decrypt` and `kms:GenerateDataKey*`, and a topic policy letting
    the same principal publish. The key is deleted with the stack (after KMS's shortest
    waiting period, 7 days, during which it is not billed), so a destroy leaves nothing
    billing.
    """

    def __init__(self, scope: Construct, construct_id: str, *, email: str | None) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        self.key = kms.Key(
            self,
            "Key",
            description="Encrypts the alarm topic; CloudWatch alarms of this account use it",
            enable_key_rotation=True,
            pending_window=Duration.days(7),
            removal_policy=RemovalPolicy.DESTROY,
        )
        self.topic = sns.Topic(
            self, "Topic", master_key=self.key, enforce_ssl=True, display_name="Voice alarms"
        )
        alarms_of_this_account = stack.format_arn(
            service="cloudwatch",
            resource="alarm",
            resource_name="*",
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
        cloudwatch = iam.ServicePrincipal(
            "cloudwatch.amazonaws.com",
            conditions={
                "StringEquals": {"aws:SourceAccount": stack.account},
                "ArnLike": {"aws:SourceArn": alarms_of_this_account},
            },
        )
        # sns:Publish in the topic policy and Decrypt/GenerateDataKey* in the key policy.
        self.topic.grant_publish(cloudwatch)
        if email:
            # SNS mails a confirmation link first; nothing is delivered until it is clicked.
            self.topic.add_subscription(subscriptions.EmailSubscription(email))
