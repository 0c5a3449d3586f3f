"""The Kokoro image's CUDA runtime must run on the NVIDIA driver of the configured inference AMI.

Every `-1` SageMaker inference AMI ships the NVIDIA Container Toolkit with CUDA-compat mounting
disabled, so a CUDA runtime newer than the host driver cannot lean on the forward-compat
package. The driver facts are read from the SageMaker service model that botocore ships
(ProductionVariant.InferenceAmiVersion documents each AMI's driver and CUDA version), not typed
here; the image's CUDA version is read from container/Dockerfile.
"""

from __future__ import annotations

import re
from pathlib import Path

import botocore.session
import pytest

from tests.support.cdk_synth import TTS, Synthesized

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "container" / "Dockerfile"


def _sagemaker_ami_docs() -> tuple[list[str], str]:
    model = botocore.session.get_session().get_service_model("sagemaker")
    enum = model.shape_for("ProductionVariantInferenceAmiVersion").enum
    doc = model.shape_for("ProductionVariant").members["InferenceAmiVersion"].documentation
    return enum, doc


def ami_driver(ami: str) -> tuple[int, tuple[int, int], bool]:
    """(NVIDIA driver branch, CUDA version the driver supports, compat mounting disabled)."""
    enum, doc = _sagemaker_ami_docs()
    if ami not in enum:
        raise LookupError(f"{ami!r} is not a SageMaker InferenceAmiVersion ({enum})")
    entry = re.search(rf"<dt>{re.escape(ami)}</dt>\s*<dd>(.*?)</dd>", doc, re.S)
    if entry is None:
        raise LookupError(f"botocore documents no driver for {ami!r}")
    text = entry.group(1)
    driver = re.search(r"NVIDIA driver version: (\d+)", text)
    cuda = re.search(r"CUDA version: (\d+)\.(\d+)", text)
    if driver is None or cuda is None:
        raise LookupError(f"{ami!r} is not a GPU AMI: {text}")
    compat_off = "disabled CUDA-compat mounting" in text
    return int(driver.group(1)), (int(cuda.group(1)), int(cuda.group(2))), compat_off


def image_cuda(dockerfile_text: str) -> tuple[int, int]:
    base = re.search(
        r"^FROM\s+nvidia/cuda:(\d+)\.(\d+)\.\d+-cudnn-runtime-\S+", dockerfile_text, re.M
    )
    assert base, "the Kokoro image is not built FROM an nvidia/cuda cudnn-runtime image"
    return int(base.group(1)), int(base.group(2))


def incompatibility(ami: str, cuda: tuple[int, int]) -> str | None:
    """Why an image with this CUDA runtime cannot run on this AMI, or None when it can."""
    driver, driver_cuda, compat_off = ami_driver(ami)
    if cuda <= driver_cuda:
        return None
    why = (
        f"image CUDA {cuda[0]}.{cuda[1]} > driver {driver} (CUDA {driver_cuda[0]}.{driver_cuda[1]})"
    )
    return why + (" and the AMI does not mount the CUDA compat package" if compat_off else "")


def _configured_ami(synthesized: Synthesized) -> str:
    config = synthesized.only(TTS, "AWS::SageMaker::EndpointConfig")["Properties"]
    (variant,) = config["ProductionVariants"]
    return variant["InferenceAmiVersion"]


def test_configured_ami_driver_covers_the_image_cuda(synthesized: Synthesized) -> None:
    ami = _configured_ami(synthesized)
    cuda = image_cuda(DOCKERFILE.read_text())
    assert incompatibility(ami, cuda) is None, incompatibility(ami, cuda)


def test_onnxruntime_gpu_build_matches_the_image() -> None:
    # onnxruntime-gpu 1.26 is a CUDA 12.x / cuDNN 9 build (ONNX Runtime's CUDA EP requirements:
    # any CUDA 12.x runtime, cuDNN 9); the nvidia/cuda 12.x cudnn images ship libcudnn9-cuda-12.
    lock = (REPO / "container" / "requirements-gpu.lock").read_text()
    assert re.search(r"^onnxruntime-gpu==1\.26\.0 ", lock, re.M)
    assert image_cuda(DOCKERFILE.read_text())[0] == 12


def test_the_previous_ami_is_rejected_for_this_image() -> None:
    # The pairing found in deployment: CUDA 12.6 on driver 550 (CUDA 12.4) with compat mounting off.
    why = incompatibility("al2-ami-sagemaker-inference-gpu-3-1", (12, 6))
    assert why == (
        "image CUDA 12.6 > driver 550 (CUDA 12.4) "
        "and the AMI does not mount the CUDA compat package"
    )


def test_unknown_or_non_gpu_ami_is_a_clear_error() -> None:
    with pytest.raises(LookupError, match="not a SageMaker InferenceAmiVersion"):
        ami_driver("al2-ami-sagemaker-inference-gpu-9")
    with pytest.raises(LookupError, match="not a GPU AMI"):
        ami_driver("al2-ami-sagemaker-inference-neuron-2")
