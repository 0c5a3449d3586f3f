"""The model: ONNX Runtime session, model files, per-call planning, durations and word timings."""
