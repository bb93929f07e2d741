"""The fast check-worthiness student: a one-layer WordPiece CNN, trained with torch, scored in numpy.

Architecture (chosen so scoring is gathers and adds, no matrix product per token):

    pieces  = WordPiece ids of the lower-cased sentence (MiniLM's tokenizer, no special
              tokens, at most MAX_PIECES), framed by [PAD] (id 0, a zero vector)
    conv_t  = relu(b + sum_{k=0..2} E[piece_{t+k-1}] @ W_k)   (kernel 3, one position per piece)
    pooled  = [max_t conv_t, mean_t conv_t]
    logit   = pooled @ w + c

E (vocabulary x DIM) starts from the static MiniLM piece vectors (PCA to DIM) and is trained.
At export E @ W_k is folded into three tables T_k (vocabulary x WIDTH), so scoring one
piece is three row gathers and two adds (pipeline.nlp.checkworthiness.StudentScorer).

Training targets: hard labels blended with the teacher's soft labels on CT24 train+dev,
and the teacher's soft labels alone on the transfer sentences (pipeline.distillation).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

MAX_PIECES = 80
PAD_ID = 0


@dataclass(frozen=True)
class StudentConfig:
    dim: int = 96
    width: int = 192
    epochs: float = 6.0
    batch: int = 256
    lr: float = 2e-3
    hard_weight: float = 0.5  # target on labelled rows = w * label + (1 - w) * sigmoid(teacher)
    dropout: float = 0.2
    weight_decay: float = 0.0
    seed: int = 0


def piece_ids(tokenizer, texts: Sequence[str]) -> list[np.ndarray]:
    """WordPiece ids per text, no special tokens, truncated to MAX_PIECES."""
    encodings = tokenizer.encode_batch(list(texts), add_special_tokens=False)
    return [np.asarray(e.ids[:MAX_PIECES], np.int64) for e in encodings]


def pca_init(vectors: np.ndarray, dim: int, seed: int = 0) -> np.ndarray:
    """Static piece vectors projected on their first `dim` principal axes, unit mean norm."""
    centred = vectors - vectors.mean(0, keepdims=True)
    rng = np.random.default_rng(seed)
    sample = centred[rng.choice(len(centred), min(len(centred), 20000), replace=False)]
    _, _, vt = np.linalg.svd(sample.astype(np.float64), full_matrices=False)
    projected = centred @ vt[:dim].T
    projected /= np.linalg.norm(projected, axis=1).mean()
    projected[PAD_ID] = 0.0
    return projected.astype(np.float32)


def build_module(vocab: int, config: StudentConfig, init: np.ndarray | None):
    import torch

    class StudentCNN(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = torch.nn.Embedding(vocab, config.dim, padding_idx=PAD_ID)
            if init is not None:
                with torch.no_grad():
                    self.embedding.weight.copy_(torch.from_numpy(init))
            self.conv = torch.nn.Conv1d(config.dim, config.width, 3, padding=1)
            self.drop = torch.nn.Dropout(config.dropout)
            self.out = torch.nn.Linear(2 * config.width, 1)

        def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            x = self.drop(self.embedding(ids)).transpose(1, 2)  # B, dim, L
            h = torch.relu(self.conv(x)) * mask.unsqueeze(1)  # B, width, L (relu >= 0: masked max is exact)
            pooled = torch.cat([h.max(2).values, h.sum(2) / mask.sum(1, keepdim=True).clamp(min=1)], 1)
            return self.out(self.drop(pooled)).squeeze(-1)

    return StudentCNN()


def _batch(pieces: list[np.ndarray], rows: np.ndarray, device):
    import torch

    length = max(1, max(len(pieces[r]) for r in rows))
    ids = np.zeros((len(rows), length), np.int64)
    mask = np.zeros((len(rows), length), np.float32)
    for i, r in enumerate(rows):
        ids[i, : len(pieces[r])] = pieces[r]
        mask[i, : len(pieces[r])] = 1.0
    return torch.from_numpy(ids).to(device), torch.from_numpy(mask).to(device)


def fit(
    pieces: list[np.ndarray],
    targets: np.ndarray,
    vocab: int,
    config: StudentConfig,
    init: np.ndarray | None,
    device: str = "cpu",
    log: Callable[[str], None] | None = None,
):
    """Train on soft targets in [0, 1] (binary cross-entropy); returns the torch module."""
    import torch

    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    module = build_module(vocab, config, init).to(device)
    optimiser = torch.optim.AdamW(module.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    per_epoch = math.ceil(len(pieces) / config.batch)
    steps = int(per_epoch * config.epochs)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: max(0.0, 1.0 - s / steps))
    target = torch.from_numpy(targets.astype(np.float32)).to(device)
    # Similar lengths in a batch keep padding low: sort by length inside shuffled chunks.
    lengths = np.fromiter((len(p) for p in pieces), np.int64, len(pieces))
    step, started = 0, time.time()
    module.train()
    while step < steps:
        order = rng.permutation(len(pieces))
        chunks = [order[i : i + config.batch * 50] for i in range(0, len(order), config.batch * 50)]
        batches = []
        for chunk in chunks:
            chunk = chunk[np.argsort(lengths[chunk], kind="stable")]
            batches += [chunk[i : i + config.batch] for i in range(0, len(chunk), config.batch)]
        for b in rng.permutation(len(batches)):
            if step >= steps:
                break
            rows = batches[b]
            ids, mask = _batch(pieces, rows, device)
            logit = module(ids, mask)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit, target[torch.from_numpy(rows).to(device)])
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            scheduler.step()
            step += 1
            if log and step % per_epoch == 0:
                log(f"  student epoch {step // per_epoch}/{config.epochs:g}: loss {loss.item():.4f} ({time.time() - started:.0f}s)")
    module.eval()
    return module


def predict(module, pieces: list[np.ndarray], device: str = "cpu", batch: int = 1024) -> np.ndarray:
    import torch

    out = np.empty(len(pieces), np.float64)
    order = np.argsort([len(p) for p in pieces], kind="stable")
    with torch.no_grad():
        for start in range(0, len(order), batch):
            rows = order[start : start + batch]
            ids, mask = _batch(pieces, rows, device)
            out[rows] = module(ids, mask).double().cpu().numpy()
    return out


def tables_logit(tables: np.ndarray, bias: np.ndarray, out_w: np.ndarray, out_b: float, pieces: list[np.ndarray]) -> np.ndarray:
    """The student's logits from the folded tables, in numpy (the scorer's arithmetic)."""
    lengths = np.fromiter((max(1, len(p)) for p in pieces), np.int64, len(pieces))
    framed = np.zeros(int(lengths.sum()) + 2 * len(pieces), np.int64)
    starts = np.r_[0, np.cumsum(lengths + 2)[:-1]]
    for start, p in zip(starts, pieces, strict=True):
        framed[start + 1 : start + 1 + len(p)] = p
    centre = np.concatenate([np.arange(s + 1, s + 1 + n) for s, n in zip(starts, lengths, strict=True)])
    conv = tables[0][framed[centre - 1]]
    conv += tables[1][framed[centre]]
    conv += tables[2][framed[centre + 1]]
    conv += bias
    np.maximum(conv, 0.0, out=conv)
    offsets = np.r_[0, np.cumsum(lengths)[:-1]]
    pooled_max = np.maximum.reduceat(conv, offsets, axis=0)
    pooled_mean = np.add.reduceat(conv, offsets, axis=0) / lengths[:, None]
    width = conv.shape[1]
    return pooled_max @ out_w[:width] + pooled_mean @ out_w[width:] + out_b
