"""ECR: this app's images in a shared repository (the CDK bootstrap container-assets repo),
identified by their exact tags, and whole repositories tagged with the app's tag."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from botocore.exceptions import ClientError

from teardown import pricing
from teardown.aws import error_code
from teardown.config import QUALIFIER_CONTEXT_KEY
from teardown.inventory.tags import is_app, tag_dict
from teardown.model import Finding, ServiceCheck
from teardown.paging import paginated
from teardown.scope import Scope


def is_shared_asset_repository(name: str) -> bool:
    """CDK bootstrap asset repositories are shared by every app in the account/region:
    never delete them whole, whatever their tags say."""
    return name.startswith("cdk-") and "-container-assets-" in name


def _images(ecr: Any, repository: str) -> list[dict[str, Any]]:
    return list(paginated(ecr, "describe_images", "imageDetails", repositoryName=repository))


def _shared_repo_findings(scope: Scope, ecr: Any, repository: str, ours: set[str]) -> list[Finding]:
    try:
        images = _images(ecr, repository)
    except ClientError as exc:
        if error_code(exc) == "RepositoryNotFoundException":
            return []
        raise
    found = []
    for image in images:
        tags = set(image.get("imageTags", []))
        mine = sorted(tags & ours)
        if not mine:
            continue
        foreign = sorted(tags - ours)
        size = int(image.get("imageSizeInBytes", 0))
        digest = image["imageDigest"]
        note = (
            f"digest also tagged {', '.join(foreign)} (not this app's): only this app's tags "
            "are removed"
            if foreign
            else ""
        )
        found.append(
            Finding(
                service="ecr",
                kind="image",
                name=digest[:19],
                status="pushed",
                detail=f"in {repository}; tags {', '.join(mine)}; {pricing.human_bytes(size)}",
                billing=size > 0,
                usd_per_month=pricing.storage_usd_per_month(size, pricing.ECR_USD_PER_GB_MONTH),
                note=note,
                ref={
                    "repository": repository,
                    "digest": digest,
                    "tags": mine,
                    "foreign_tags": foreign,
                    "size_bytes": size,
                },
            )
        )
    return found


def _repositories(ecr: Any) -> list[dict[str, Any]]:
    return list(paginated(ecr, "describe_repositories", "repositories"))


def _tagged_repo_findings(
    scope: Scope, ecr: Any, repositories: list[dict[str, Any]]
) -> list[Finding]:
    found = []
    for repo in repositories:
        name = repo["repositoryName"]
        if is_shared_asset_repository(name):
            continue
        tags = ecr.list_tags_for_resource(resourceArn=repo["repositoryArn"]).get("tags")
        if not is_app(tag_dict(tags), scope.app_name):
            continue
        images = _images(ecr, name)
        size = sum(int(i.get("imageSizeInBytes", 0)) for i in images)
        found.append(
            Finding(
                service="ecr",
                kind="repository",
                name=name,
                status="exists",
                detail=f"{len(images)} image(s), {pricing.human_bytes(size)}",
                billing=size > 0,
                usd_per_month=pricing.storage_usd_per_month(size, pricing.ECR_USD_PER_GB_MONTH),
                ref={"repository": name, "images": len(images), "size_bytes": size},
            )
        )
    return found


def _check_bootstrap_repository(scope: Scope, check: ServiceCheck, names: set[str]) -> None:
    """Images looked up by tag in the bootstrap repository are only known to be absent if that
    repository is the right one: with no tags known, or with the repository missing while one
    of another qualifier exists, the ECR part is UNCHECKED, never clean."""
    expected = scope.bootstrap_repo
    if expected in names:
        if not scope.image_refs:
            check.unchecked(
                f"shared repository {expected} exists but this app's image tags are unknown: "
                "run `npx cdk synth` first (cdk.out/*.assets.json) or pass --image-tag"
            )
        return
    suffix = f"-{scope.account}-{scope.region}"
    others = sorted(n for n in names if is_shared_asset_repository(n) and n.endswith(suffix))
    if others:
        check.unchecked(
            f"bootstrap repository {expected} does not exist, but {', '.join(others)} does: "
            "the account was bootstrapped with another qualifier; set "
            f"'{QUALIFIER_CONTEXT_KEY}' in cdk.json context to it, or run after "
            "`npx cdk synth` (cdk.out names the repository)"
        )


def find(scope: Scope, check: ServiceCheck, earlier: list[Finding]) -> list[Finding]:
    ecr = scope.clients.get("ecr")
    repositories = _repositories(ecr)
    found = _tagged_repo_findings(scope, ecr, repositories)
    whole = {f.name for f in found}

    by_repo: dict[str, set[str]] = defaultdict(set)
    for ref in scope.image_refs:
        by_repo[ref.repository].add(ref.tag)
    for repository, tags in sorted(by_repo.items()):
        if repository not in whole:  # a tagged repository is reported (and deleted) whole
            found.extend(_shared_repo_findings(scope, ecr, repository, tags))

    if scope.bootstrap_repo is not None:
        names = {r["repositoryName"] for r in repositories}
        _check_bootstrap_repository(scope, check, names)
    return found
