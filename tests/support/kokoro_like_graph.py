"""A small ONNX graph with Kokoro's duration structure: the stand-in for exports not here.

The fp32 export used on AWS is not available on this machine. Its duration path is the same as
the int8 export's (the int8 file is that export with quantized weights), so this graph rebuilds
just that path with different node names, and lets tests vary what the locator relies on:

    tokens -> Cast -> (x * w + b) -> Sigmoid -> ReduceSum(-1) -> Div(speed) -> Round
           -> Clip(min 1) | Max(1) -> Cast(int64) -> Gather(0) | Squeeze(0) -> CumSum
    audio = 0.1 repeated (samples_per_unit * total duration) times

`durations()` computes the same numbers with numpy, independently of ONNX Runtime.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper

BINS = 16  # duration bins summed by the predictor
WEIGHT, BIAS = 0.02, -0.5  # so token ids give durations of a few units that differ by id


def durations(ids: list[int], speed: float) -> np.ndarray:
    """What the graph predicts for [pad, *ids, pad], computed with numpy."""
    x = np.array([0, *ids, 0], dtype=np.float32)
    logits = x[:, None] * np.float32(WEIGHT) + np.linspace(BIAS, 1.0, BINS, dtype=np.float32)
    summed = (1 / (1 + np.exp(-logits))).sum(-1) / np.float32(speed)
    return np.maximum(np.round(summed), 1).astype(np.int64)


def build(
    *,
    prefix: str = "/stand_in",
    clamp: str = "Clip",
    select: str = "Gather",
    divide_by_speed: bool = True,
    with_round: bool = True,
    declare_durations: bool = False,
    second_chain: bool = False,
    samples_per_unit: int = 600,
) -> onnx.ModelProto:
    nodes: list[onnx.NodeProto] = []
    inits = [
        helper.make_tensor("w", TensorProto.FLOAT, [], [WEIGHT]),
        helper.make_tensor(
            "bins", TensorProto.FLOAT, [BINS], np.linspace(BIAS, 1.0, BINS).tolist()
        ),
        helper.make_tensor("axis_last", TensorProto.INT64, [1], [-1]),
        helper.make_tensor("zero", TensorProto.INT64, [], [0]),
        helper.make_tensor("minus_one", TensorProto.INT64, [], [-1]),
        helper.make_tensor("one_f", TensorProto.FLOAT, [], [1.0]),
        helper.make_tensor("unit", TensorProto.INT64, [], [samples_per_unit]),
        helper.make_tensor("shape_1", TensorProto.INT64, [1], [1]),
    ]

    def node(op: str, inputs: list[str], **attrs: Any) -> str:
        out = f"{prefix}/{op}_{len(nodes)}_out"
        nodes.append(
            helper.make_node(op, inputs, [out], name=f"{prefix}/{op}_{len(nodes)}", **attrs)
        )
        return out

    x = node("Cast", ["tokens"], to=TensorProto.FLOAT)
    x = node("Unsqueeze", [x, "axis_last"])
    logits = node("Add", [node("Mul", [x, "w"]), "bins"])
    summed = node("ReduceSum", [node("Sigmoid", [logits]), "axis_last"], keepdims=0)
    # Without the Div the speed input is unused, which ONNX Runtime accepts.
    scaled = node("Div", [summed, "speed"]) if divide_by_speed else node("Mul", [summed, "one_f"])
    rounded = node("Round", [scaled]) if with_round else node("Floor", [scaled])
    if clamp == "Clip":
        clamped = node("Clip", [rounded, "one_f"])
    else:
        clamped = node("Max", ["one_f", rounded])
    as_int = node("Cast", [clamped], to=TensorProto.INT64)
    if select == "Gather":  # batch 0, as the int8 export does
        durations_tensor = node("Gather", [as_int, "zero"], axis=0)
    else:
        inits.append(helper.make_tensor("axis_0", TensorProto.INT64, [1], [0]))
        durations_tensor = node("Squeeze", [as_int, "axis_0"])
    ends = node("CumSum", [durations_tensor, "zero"])
    if second_chain:  # a second, equally plausible duration path: the locator must refuse
        again = node("Cast", [node("Clip", [node("Round", [scaled]), "one_f"])], to=7)
        node("CumSum", [node("Gather", [again, "zero"], axis=0), "zero"])
    total = node("Gather", [ends, "minus_one"], axis=0)
    samples = node("Reshape", [node("Mul", [total, "unit"]), "shape_1"])
    value = helper.make_tensor("value", TensorProto.FLOAT, [1], [0.1])
    nodes.append(helper.make_node("ConstantOfShape", [samples], ["audio"], value=value))

    outputs = [helper.make_tensor_value_info("audio", TensorProto.FLOAT, ["samples"])]
    if declare_durations:
        outputs.append(helper.make_tensor_value_info(durations_tensor, TensorProto.INT64, ["n"]))
    graph = helper.make_graph(
        nodes,
        "kokoro_like",
        [
            helper.make_tensor_value_info("tokens", TensorProto.INT64, [1, "t"]),
            helper.make_tensor_value_info("style", TensorProto.FLOAT, [1, 256]),
            helper.make_tensor_value_info("speed", TensorProto.FLOAT, [1]),
        ],
        outputs,
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def durations_tensor_name(model: onnx.ModelProto) -> str:
    """The tensor that enters the CumSum: what a correct locator must return."""
    cumsum = next(n for n in model.graph.node if n.op_type == "CumSum")
    return cumsum.input[0]


def write_weights(root: Path, model: onnx.ModelProto, vocab: dict[str, int]) -> Path:
    """A weights directory the server can load: model, vocabulary and one voice."""
    import json

    onnx.save(model, root / "kokoro-v1.0.onnx")
    (root / "config.json").write_text(json.dumps({"vocab": vocab}), encoding="utf-8")
    np.savez(root / "voices.npz", af_stand_in=np.zeros((510, 1, 256), np.float32))
    return root
