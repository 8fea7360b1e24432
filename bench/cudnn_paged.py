"""cudnn_paged.py — cuDNN's own paged-K/V decode, timed on bench_attention --decode's paged shapes.

PyTorch's scaled_dot_product_attention has no paged K/V, so compare_attention.py --decode reaches
cuDNN's paged attention through NVIDIA's Python frontend (the `cudnn` module of the
nvidia-cudnn-frontend wheel, carried to the GPU machine; it loads the libcudnn that PyTorch loaded).
The graph is the one bench_attention builds (bench_attention.c decode_graph): Q and O [b,s,h,d]
bf16 with 32 query heads, K/V containers [B·Skv/64, 8, 64, 128] bf16, page tables [B,1,Skv/64,1]
int32 holding each batch's pages in a random order, sequence lengths [B,1,1,1] with the padding
mask on, scale 1/sqrt(128), no stats. Timed as the rest (torch_timing.timed, 2 rotated input sets).

paged_tbs(B, Sq, Skv) returns (TB/s counting the K/V bytes 2·B·Skv·8·128·2, "") or (None, reason).
"""
import math

import torch

from torch_timing import timed

HQ, HK, D, PAGE = 32, 8, 128, 64

try:
    import cudnn
except Exception as e:  # the frontend wheel is not installed: the column reads n/a
    cudnn, IMPORT_ERROR = None, f"no cudnn frontend ({e.__class__.__name__})"


def _inputs(B, Sq, Skv):
    pages = B * Skv // PAGE
    q = torch.randn(B, Sq, HQ, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    k, v = (torch.randn(pages, HK, PAGE, D, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    table = torch.randperm(pages, device="cuda", dtype=torch.int32).reshape(B, 1, Skv // PAGE, 1)
    lens_q = torch.full((B, 1, 1, 1), Sq, device="cuda", dtype=torch.int32)
    lens_kv = torch.full((B, 1, 1, 1), Skv, device="cuda", dtype=torch.int32)
    o = torch.empty_like(q)
    return q, k, v, table, lens_q, lens_kv, o


def _graph(handle, sample, Skv):
    q, k, v, table, lens_q, lens_kv, o = sample
    g = cudnn.pygraph(io_data_type=cudnn.data_type.BFLOAT16, intermediate_data_type=cudnn.data_type.FLOAT,
                      compute_data_type=cudnn.data_type.FLOAT, handle=handle)
    t = {name: g.tensor_like(x) for name, x in
         (("q", q), ("k", k), ("v", v), ("table_k", table), ("table_v", table), ("lens_q", lens_q),
          ("lens_kv", lens_kv))}
    out, _ = g.sdpa(name="decode", q=t["q"], k=t["k"], v=t["v"], is_inference=True, attn_scale=1.0 / math.sqrt(D),
                    use_padding_mask=True, seq_len_q=t["lens_q"], seq_len_kv=t["lens_kv"],
                    paged_attention_k_table=t["table_k"], paged_attention_v_table=t["table_v"],
                    paged_attention_max_seq_len_kv=Skv)
    out.set_output(True).set_dim(list(o.shape)).set_stride(list(o.stride()))
    g.validate()
    g.build_operation_graph()
    g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    g.check_support()
    g.build_plans()
    return g, t, out


def paged_tbs(B, Sq, Skv, sets=2, reps=20, warmup=3):
    if cudnn is None:
        return None, IMPORT_ERROR
    try:
        handle = cudnn.create_handle()
        cudnn.set_stream(handle, torch.cuda.current_stream().cuda_stream)
        data = [_inputs(B, Sq, Skv) for _ in range(sets)]
        g, t, out = _graph(handle, data[0], Skv)
        ws = torch.empty(max(g.get_workspace_size(), 1), device="cuda", dtype=torch.uint8)

        def run(q, k, v, table, lens_q, lens_kv, o):
            g.execute({t["q"]: q, t["k"]: k, t["v"]: v, t["table_k"]: table, t["table_v"]: table,
                       t["lens_q"]: lens_q, t["lens_kv"]: lens_kv, out: o}, ws, handle=handle)
        ms = timed(run, data, reps, warmup)
        check = _check(data[0], run)
        del data
        torch.cuda.empty_cache()
        nbytes = 2.0 * B * Skv * HK * D * 2
        return nbytes / (ms * 1e-3) / 1e12, check
    except Exception as e:  # not supported by this cuDNN, or a frontend error: reported, not fatal
        return None, f"{e.__class__.__name__}: {str(e).splitlines()[0][:120]}"


def _check(sample, run):
    """'' when cuDNN's paged output matches PyTorch's math on the gathered dense K/V, else a note:
    the peer's number only counts if it computed the right thing."""
    q, k, v, table, lens_q, lens_kv, o = sample
    o.fill_(float("nan"))
    run(*sample)
    torch.cuda.synchronize()
    B, Skv = q.shape[0], table.shape[2] * PAGE
    idx = table.reshape(B, -1).long()
    kd = k[idx].permute(0, 2, 1, 3, 4).reshape(B, HK, Skv, D)  # [B, P, HK, 64, D] -> [B, HK, Skv, D]
    vd = v[idx].permute(0, 2, 1, 3, 4).reshape(B, HK, Skv, D)
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), kd.float(), vd.float(), enable_gqa=True)
    err = ((o.float() - ref).abs() - (0.02 + 0.02 * ref.abs())).max().item()
    return "" if err <= 0 else "WRONG"
