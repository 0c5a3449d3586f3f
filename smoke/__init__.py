"""Post-deploy smoke check: one call of each kind against the deployed stacks.

Run it as ``make smoke`` (or ``PYTHONPATH=agent python -m smoke``) after ``cdk deploy``.
"""
