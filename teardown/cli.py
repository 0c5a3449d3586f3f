"""Find what `cdk destroy` left behind for this app (retained weights bucket, pushed images,
anything still billing) and report it; --delete removes it.

    python -m teardown                                # dry run: the report only
    python -m teardown --region eu-central-1 --json
    python -m teardown --delete --keep-weights-bucket

Exit codes:
  0  nothing of the app is left and every service was checked
  1  something is left (dry run; or after --delete: refused, or not everything removed)
  2  cannot run: bad option or cdk.json, unknown region, missing or rejected credentials
  3  some service or resource could not be checked (e.g. access denied): not known clean
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from teardown import report
from teardown.aws import Clients, CredentialsError, caller_account, make_session, resolve_region
from teardown.config import ConfigError, cdk_defaults, validate_app_name
from teardown.delete import delete_findings
from teardown.inventory import run_inventory
from teardown.manifests import ImageRef, bootstrap_repository, image_refs_from_manifests
from teardown.model import Inventory
from teardown.scope import Scope

EXIT_CLEAN = 0
EXIT_LEFTOVERS = 1
EXIT_USAGE = 2
EXIT_UNCHECKED = 3

_IMAGE_TAG_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m teardown",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the examples, line by line
    )
    parser.add_argument("--app-name", help="app name (default: cdk.json context app_name)")
    parser.add_argument(
        "--region",
        help="AWS region (default: AWS_REGION, then AWS_DEFAULT_REGION, then the profile's)",
    )
    parser.add_argument("--profile", help="AWS named profile (default: credential chain)")
    parser.add_argument(
        "--stack",
        action="append",
        default=[],
        metavar="NAME",
        help="stack to check (repeatable); default: stacks tagged with the app or named after it",
    )
    parser.add_argument(
        "--image-tag",
        action="append",
        default=[],
        metavar="TAG",
        help="image tag of this app in the CDK bootstrap repository (repeatable), "
        "in addition to those in cdk.out/*.assets.json",
    )
    parser.add_argument(
        "--app-dir", type=Path, default=Path("."), help="CDK app directory (cdk.json, cdk.out)"
    )
    parser.add_argument("--cdk-out", type=Path, help="cloud assembly (default: APP_DIR/cdk.out)")
    parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
    parser.add_argument("--delete", action="store_true", help="delete what is flagged")
    parser.add_argument(
        "--keep-weights-bucket",
        action="store_true",
        help="never delete the retained weights bucket, so a later deploy can reuse it "
        "(-c weights_bucket=NAME); it is still reported",
    )
    parser.add_argument("--yes", action="store_true", help="with --delete: do not ask")
    return parser


def exit_code(inventory: Inventory) -> int:
    if inventory.unchecked:
        return EXIT_UNCHECKED
    return EXIT_LEFTOVERS if inventory.findings else EXIT_CLEAN


def confirm(app_name: str, count: int) -> bool:
    """Ask on stderr, read stdin; only the app name or 'yes' confirms. EOF refuses."""
    print(
        f"\nDelete the {count} resource(s) above? This cannot be undone.\n"
        f"Type the app name ({app_name}) or 'yes' to confirm: ",
        end="",
        file=sys.stderr,
        flush=True,
    )
    try:
        answer = input().strip()
    except EOFError:
        return False
    return answer in {app_name, "yes"}


def build_scope(args: argparse.Namespace) -> Scope:
    """Resolve options, cdk.json defaults, region and identity into what a run looks at."""
    defaults = cdk_defaults(args.app_dir)
    app_name = validate_app_name(args.app_name or defaults.app_name)
    for tag in args.image_tag:
        if not _IMAGE_TAG_RE.match(tag):
            raise ConfigError(f"invalid --image-tag {tag!r}: not a valid ECR image tag")
    session = make_session(args.profile)
    region = resolve_region(session, args.region)
    clients = Clients(session, region)
    account = caller_account(clients)
    cdk_out = args.cdk_out or args.app_dir / "cdk.out"
    refs = image_refs_from_manifests(cdk_out, account, region)
    sources = [f"{cdk_out}/*.assets.json"] if refs else []
    # The manifests name their repository; --image-tag tags, or knowing that no tags are
    # known, need the bootstrap repository's name (and aws-cdk-lib to build it).
    bootstrap_repo: str | None = None
    if args.image_tag or not refs:
        bootstrap_repo = bootstrap_repository(defaults.qualifier, account, region)
        refs |= {ImageRef(bootstrap_repo, tag) for tag in args.image_tag}
    if args.image_tag:
        sources.append("--image-tag")
    return Scope(
        app_name=app_name,
        region=region,
        account=account,
        clients=clients,
        bootstrap_repo=bootstrap_repo,
        image_refs=refs,
        image_ref_sources=sources,
        stack_names=list(args.stack),
        keep_weights_bucket=args.keep_weights_bucket,
    )


def _run(args: argparse.Namespace) -> int:
    scope = build_scope(args)
    before = run_inventory(scope)
    before.image_ref_sources = scope.image_ref_sources
    code = exit_code(before)
    if not args.json:
        print(report.render_table(before))
    if not args.delete:
        if args.json:
            _print_json({"mode": "dry-run", **report.inventory_json(before), "exit_code": code})
        else:
            print(report.summary_line(before, code))
            if before.findings:
                print("Re-run with --delete to remove what is flagged.")
        return code

    targets = [f for f in before.findings if f.deletable]
    result: dict[str, Any] = {"mode": "delete", "before": report.inventory_json(before)}
    deletion: dict[str, Any]
    if not targets:
        print("Nothing to delete.", file=sys.stderr)
        after, deletion = before, {"confirmed": None, "deleted": [], "errors": []}
    elif not args.yes and not confirm(scope.app_name, len(targets)):
        print("Not confirmed: nothing deleted.", file=sys.stderr)
        after, deletion = before, {"confirmed": False, "deleted": [], "errors": []}
    else:
        outcome = delete_findings(scope, targets)
        deletion = {"confirmed": True, "deleted": outcome.deleted, "errors": outcome.errors}
        scope.progress("re-checking ...")
        after = run_inventory(scope)
        after.image_ref_sources = scope.image_ref_sources
        if not args.json:
            print(f"\nDeleted {len(outcome.deleted)} resource(s).")
            for err in outcome.errors:
                print(f"FAILED: {err}")
            print("\nAfter deletion:\n" + report.render_table(after))

    code = exit_code(after)
    if deletion["errors"] and code == EXIT_CLEAN:
        code = EXIT_LEFTOVERS
    if args.json:
        result.update(report.inventory_json(after))
        result.update({"deletion": deletion, "exit_code": code})
        _print_json(result)
    else:
        print(report.summary_line(after, code))
    return code


def _print_json(data: dict[str, Any]) -> None:
    print(json.dumps(data, indent=2, sort_keys=False))


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.yes and not args.delete:
        parser.error("--yes only applies together with --delete")
    try:
        return _run(args)
    except (ConfigError, CredentialsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
