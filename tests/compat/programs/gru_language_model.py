"""A character-level GRU language model trained by truncated backpropagation through time:
the hidden state is carried across windows and detached, gradients are clipped by value and
by norm, ReduceLROnPlateau watches a validation perplexity computed under torch.no_grad
(cross-entropy with ignore_index for padding). Midway the model, optimizer and scheduler
state go through torch.save / torch.load in a BytesIO, a fresh copy resumes from it, and
both copies must continue identically; then greedy decoding under inference_mode."""

import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TEXT = "the cat sat on the mat. the rat sat on the cat. a cat and a rat met on a mat. "
VOCAB = sorted(set(TEXT)) + ["<pad>"]
PAD = len(VOCAB) - 1


class CharGRU(nn.Module):
    def __init__(self, vocab, dim=12, hidden=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.gru = nn.GRU(dim, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens, h=None):
        out, h = self.gru(self.embed(tokens), h)
        return self.head(out), h


def build(rng):
    model = CharGRU(len(VOCAB)).double()
    state = {k: torch.tensor(rng.uniform(-0.3, 0.3, tuple(v.shape))) for k, v in model.state_dict().items()}
    model.load_state_dict(state)
    opt = torch.optim.RMSprop(model.parameters(), lr=0.01, alpha=0.9)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=0)
    return model, opt, sched


def windows(ids, batch, length):
    usable = (len(ids) - 1) // batch * batch
    streams = ids[:usable + 1]
    cols = usable // batch
    src = streams[:-1].view(batch, cols)
    tgt = streams[1:].view(batch, cols)
    return [(src[:, i:i + length], tgt[:, i:i + length]) for i in range(0, cols, length)]


def train_epoch(model, opt, chunks):
    h, total = None, 0.0
    for src, tgt in chunks:
        logits, h = model(src, None if h is None else h.detach())
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 0.5)
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        total += loss.item()
    return total / len(chunks)


@torch.no_grad()
def perplexity(model, tokens, targets):
    logits, _ = model(tokens)
    nll = F.cross_entropy(logits.transpose(1, 2), targets, ignore_index=PAD)
    return torch.exp(nll)


def run():
    rng = np.random.default_rng(2)
    ids = torch.tensor([VOCAB.index(c) for c in TEXT])
    chunks = windows(ids, batch=3, length=8)
    val = torch.full((2, 10), PAD, dtype=torch.long)
    val[0, :10] = ids[4:14]
    val[1, :6] = ids[30:36]
    val_tgt = torch.roll(val, -1, dims=1)
    val_tgt[:, -1] = PAD
    val_tgt[1, 5] = PAD

    model, opt, sched = build(rng)
    log = []
    for epoch in range(3):
        loss = train_epoch(model, opt, chunks)
        ppl = perplexity(model, val, val_tgt)
        sched.step(ppl)
        log.append([loss, ppl.item(), opt.param_groups[0]["lr"]])

    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buffer)
    buffer.seek(0)
    checkpoint = torch.load(buffer, weights_only=True)
    twin, twin_opt, twin_sched = build(np.random.default_rng(99))
    twin.load_state_dict(checkpoint["model"])
    twin_opt.load_state_dict(checkpoint["opt"])
    twin_sched.load_state_dict(checkpoint["sched"])
    a = train_epoch(model, opt, chunks)
    b = train_epoch(twin, twin_opt, chunks)

    model.eval()
    with torch.inference_mode():
        prompt = ids[:5].unsqueeze(0)
        logits, h = model(prompt)
        generated = []
        nxt = logits[:, -1].argmax(dim=-1, keepdim=True)
        for _ in range(12):
            generated.append(nxt.item())
            logits, h = model(nxt, h)
            nxt = logits[:, -1].argmax(dim=-1, keepdim=True)
    return {"log": log, "resumed": [a, b], "weights_equal": float(all(
        torch.equal(p, q) for p, q in zip(model.parameters(), twin.parameters()))),
        "head": model.head.weight, "generated": generated}


if __name__ == "__main__":
    print(run())
