"""This app's container image tags, read from the synthesized CDK asset manifests.

``cdk synth`` writes ``cdk.out/<Stack>.assets.json``; each ``dockerImages`` entry names the
ECR repository (the shared bootstrap repository for DockerImageAsset) and the image tag (the
asset hash) it is published under. Those tags are exactly this app's images, so the cleanup
can delete them from a repository other apps share without touching anything else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from teardown.config import ConfigError


@dataclass(frozen=True, order=True)
class ImageRef:
    repository: str
    tag: str


def bootstrap_repository(qualifier: str | None, account: str, region: str) -> str:
    """The default synthesizer's container-assets repository in ``account``/``region``, for
    ``qualifier`` (None: the CDK's default qualifier).

    The name template and the default qualifier are read from the installed aws-cdk-lib, the
    library that synthesizes the app, never from a copy: a one-letter typo in a copy once sent
    the cleanup to a repository that does not exist. Imported here, not at module level:
    starting aws-cdk-lib's runtime takes about a second, and a run with cdk.out never needs it.
    """
    try:
        from aws_cdk import DefaultStackSynthesizer
    except (ImportError, OSError) as exc:  # OSError: no `node` for aws-cdk-lib's runtime
        raise ConfigError(
            f"cannot load aws-cdk-lib ({exc}) to name the CDK's default bootstrap repository: "
            "run from the project's virtualenv (make setup) with Node.js on PATH, as for "
            "`npx cdk`, or after `npx cdk synth` so cdk.out names the repository"
        ) from exc
    template = DefaultStackSynthesizer.DEFAULT_IMAGE_ASSETS_REPOSITORY_NAME
    qualifier = qualifier or DefaultStackSynthesizer.DEFAULT_QUALIFIER
    return _substitute(template.replace("${Qualifier}", qualifier), account, region)


def _substitute(value: str, account: str, region: str) -> str:
    return (
        value.replace("${AWS::AccountId}", account)
        .replace("${AWS::Region}", region)
        .replace("${AWS::Partition}", "aws")
    )


def manifest_files(cdk_out: Path) -> list[Path]:
    """All asset manifests, including those of nested assemblies (stages)."""
    if not cdk_out.is_dir():
        return []
    return sorted(cdk_out.rglob("*.assets.json"))


def image_refs_from_manifests(cdk_out: Path, account: str, region: str) -> set[ImageRef]:
    """Image (repository, tag) pairs this app publishes to ``account``/``region``."""
    refs: set[ImageRef] = set()
    for path in manifest_files(cdk_out):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read asset manifest {path}: {exc}") from exc
        images = data.get("dockerImages", {}) if isinstance(data, dict) else {}
        if not isinstance(images, dict):
            raise ConfigError(f"{path}: 'dockerImages' must be a JSON object")
        for asset_id, asset in images.items():
            destinations = asset.get("destinations", {}) if isinstance(asset, dict) else {}
            for dest in destinations.values():
                if not isinstance(dest, dict) or "repositoryName" not in dest:
                    raise ConfigError(f"{path}: image asset {asset_id} has a bad destination")
                dest_region = _substitute(str(dest.get("region", region)), account, region)
                if dest_region != region:
                    continue  # published to another region: not this scan's business
                repo = _substitute(str(dest["repositoryName"]), account, region)
                refs.add(ImageRef(repo, _substitute(str(dest["imageTag"]), account, region)))
    return refs
