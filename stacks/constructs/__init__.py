"""Reusable constructs: each owns its resources, IAM and cdk-nag acknowledgements."""
