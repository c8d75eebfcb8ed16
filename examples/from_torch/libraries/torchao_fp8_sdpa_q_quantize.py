"""torchao 0.18.0 per-head FP8 quantization of attention queries for FP8 SDPA inference
(`torchao.prototype.fp8_sdpa_inference.fp8_sdpa_quantization.q_quantize_func(x)`): x [B, H, S, D]
quantized to float8_e4m3fn with one scale per (batch, head), returning the FP8 tensor and the
float32 descale [B, H]. The host code picks the number of S chunks from the device's SM count
(`torch.cuda.get_device_properties`), then launches three kernels: autotuned partial abs-max per
chunk, a reduce to scale/descale, and an autotuned quantize."""
import torch
from torchao.prototype.fp8_sdpa_inference.fp8_sdpa_quantization import q_quantize_func

AUTOPLUGIN_EXAMPLES = ["user_torchao::fp8_sdpa_q_quantize(x=[1, 32, 4096, 128])"]


@torch.library.custom_op("user_torchao::fp8_sdpa_q_quantize", mutates_args=())
def fp8_sdpa_q_quantize(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return q_quantize_func(x)


@fp8_sdpa_q_quantize.register_fake
def _(x):
    return (x.new_empty(x.shape, dtype=torch.float8_e4m3fn),
            x.new_empty((x.shape[0], x.shape[1]), dtype=torch.float32))
