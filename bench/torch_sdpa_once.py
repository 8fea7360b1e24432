#!/usr/bin/env python3
"""torch_sdpa_once.py B H S D [backend] — a few calls of PyTorch's scaled_dot_product_attention
forward through one backend (cudnn, flash or efficient; default cudnn), non-causal then causal, for
a profiler to look at (bench/attn_profile.sh): bf16 [b,s,h,d] activations as [b,h,s,d] views, the
inputs of compare_attention.py. Each mask runs twice; the profiler skips the first.
torch_sdpa_once.py --decode B Sq Skv [backend]: decode as compare_attention.py --decode times it
(GQA 32:8, D=128, enable_gqa, no mask), four calls.
"""
import sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}
if sys.argv[1] == "--decode":
    B, Sq, Skv = (int(x) for x in sys.argv[2:5])
    backend = BACKENDS[sys.argv[5] if len(sys.argv) > 5 else "cudnn"]
    q = torch.randn(B, Sq, 32, 128, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    k, v = (torch.randn(B, Skv, 8, 128, device="cuda", dtype=torch.bfloat16).transpose(1, 2) for _ in range(2))
    with sdpa_kernel(backend):
        for _ in range(4):
            F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    torch.cuda.synchronize()
    sys.exit(0)
B, H, S, D = (int(x) for x in sys.argv[1:5])
backend = BACKENDS[sys.argv[5] if len(sys.argv) > 5 else "cudnn"]
q, k, v = (torch.randn(B, S, H, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2) for _ in range(3))
torch.cuda.synchronize()
with sdpa_kernel(backend):
    for causal in (False, True):
        for _ in range(2):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
torch.cuda.synchronize()
