"""Find Kokoro's per-token durations inside an ONNX export and expose them as a graph output.

Kokoro's duration predictor ends in `round(sum(sigmoid(x)) / speed).clamp(min=1)`, and those
integers build the alignment (a CumSum over them, or a repeat). Exports declare only `audio`, so
the tensor is found by that structure, never by a node name (names differ between exports):

    Div(.., <graph input>) -> Round -> {Clip | Max | Cast | Squeeze | Gather ...}* -> CumSum

The tensor that enters the CumSum (or is already a graph output) is exposed. A graph with no such
chain, or with more than one, is refused with the reason: timings are never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

import onnx

# Ops that carry the durations on without changing their values (batch select, dtype, shape).
PASS_THROUGH = frozenset(
    {"Cast", "Squeeze", "Unsqueeze", "Reshape", "Flatten", "Identity", "Gather", "Clip", "Max"}
)
CLAMPS = frozenset({"Clip", "Max"})  # `.clamp(min=1)`: every token lasts at least one unit
ALIGNMENT_OPS = frozenset({"CumSum"})
# Ops that may sit between the `speed` graph input and the Div (dtype, shape).
SPEED_PATH = frozenset({"Cast", "Reshape", "Unsqueeze", "Squeeze", "Expand", "Identity"})
MAX_CHAIN = 8


class DurationsNotFound(Exception):
    """The graph has no (or no unique) duration tensor; the reason says what was missing."""


@dataclass(frozen=True)
class DurationTensor:
    name: str  # the tensor to fetch
    declared: bool  # already a graph output (an export that declares durations)


class _Graph:
    def __init__(self, graph: onnx.GraphProto) -> None:
        self.graph = graph
        self.producer = {out: node for node in graph.node for out in node.output}
        self.consumers: dict[str, list[onnx.NodeProto]] = {}
        for node in graph.node:
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)
        self.inputs = {i.name for i in graph.input}
        self.outputs = {o.name for o in graph.output}

    def from_graph_input(self, tensor: str) -> bool:
        """True if `tensor` is a graph input or reaches one through dtype/shape ops only."""
        for _ in range(MAX_CHAIN):
            if tensor in self.inputs:
                return True
            node = self.producer.get(tensor)
            if node is None or node.op_type not in SPEED_PATH or not node.input:
                return False
            tensor = node.input[0]
        return False

    def divided_by_input(self, round_node: onnx.NodeProto) -> bool:
        node = self.producer.get(round_node.input[0])
        return (
            node is not None
            and node.op_type == "Div"
            and len(node.input) == 2
            and self.from_graph_input(node.input[1])
        )

    def follow_to_alignment(self, round_node: onnx.NodeProto) -> str | None:
        """The clamped durations tensor that feeds the alignment, or None."""
        tensor: str = round_node.output[0]
        clamped = False
        for _ in range(MAX_CHAIN):
            users = self.consumers.get(tensor, [])
            if clamped and (
                tensor in self.outputs or any(u.op_type in ALIGNMENT_OPS for u in users)
            ):
                return tensor
            carriers = [u for u in users if u.op_type in PASS_THROUGH and _carries(u, tensor)]
            if len(carriers) != 1:
                return None
            clamped = clamped or carriers[0].op_type in CLAMPS
            tensor = carriers[0].output[0]
        return None


def _carries(node: onnx.NodeProto, tensor: str) -> bool:
    """The node passes `tensor` on as its data (Max is symmetric; the others take input 0)."""
    return tensor in node.input if node.op_type == "Max" else node.input[0] == tensor


def find_duration_tensor(graph: onnx.GraphProto) -> DurationTensor:
    """Locate the per-token duration tensor by structure. Raises DurationsNotFound."""
    view = _Graph(graph)
    rounds = [n for n in graph.node if n.op_type == "Round"]
    if not rounds:
        raise DurationsNotFound("the graph has no Round node (no rounded duration predictor)")
    found = []
    for node in rounds:
        if not view.divided_by_input(node):
            continue
        tensor = view.follow_to_alignment(node)
        if tensor is not None:
            found.append(tensor)
    if not found:
        raise DurationsNotFound(
            f"none of {len(rounds)} Round node(s) is a speed-divided, clamped duration that "
            "feeds the alignment (Div(.., input) -> Round -> clamp -> CumSum)"
        )
    if len(found) > 1:
        raise DurationsNotFound(f"several duration candidates, refusing to guess: {found}")
    return DurationTensor(found[0], declared=found[0] in view.outputs)


def expose_durations(model: onnx.ModelProto) -> DurationTensor:
    """Add the duration tensor as a graph output (in place) unless it already is one."""
    tensor = find_duration_tensor(model.graph)
    if not tensor.declared:
        output = onnx.ValueInfoProto()
        output.name = tensor.name  # type and shape left for ONNX Runtime to infer
        model.graph.output.append(output)
    return tensor
