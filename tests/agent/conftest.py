"""The agent tests' own fixtures: the SageMaker contract tests' environments (the shared
model and servers come from tests/conftest.py)."""

from tests.support.sagemaker_contract import bare_aws_env, env_keys  # noqa: F401
