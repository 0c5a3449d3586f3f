"""The weights-cache Lambda's code asset, as synthesized, imports on its own.

The handler shares its download code with `make weights` (stacks/weights_cache/download.py)
through a relative import, so the asset must hold the `weights_cache` package and the
function's handler must name it. Lambda puts the asset root on the import path and imports the
handler's module: the same is done here in a fresh interpreter whose working directory is the
asset (the editable install of this repository provides `stacks.weights_cache`, never a
top-level `weights_cache`).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.cdk_synth import TTS, Synthesized

pytestmark = pytest.mark.synth


def test_lambda_asset_holds_the_package_and_imports_standalone(synthesized: Synthesized) -> None:
    functions = synthesized.resources(TTS, "AWS::Lambda::Function")
    (props,) = [
        f["Properties"] for f in functions.values() if "weights" in f["Properties"]["Handler"]
    ]
    module, _, function = props["Handler"].rpartition(".")
    asset = synthesized.outdir / ("asset." + props["Code"]["S3Key"].removesuffix(".zip"))
    files = sorted(str(p.relative_to(asset)) for p in asset.rglob("*.py"))
    assert files == [
        "weights_cache/__init__.py",
        "weights_cache/download.py",
        "weights_cache/handler.py",
    ]
    probe = (
        f"import importlib; m = importlib.import_module({module!r}); "
        f"print(callable(getattr(m, {function!r})), m.__file__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=asset, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", str(asset / "weights_cache" / "handler.py")]
