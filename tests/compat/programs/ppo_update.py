"""One PPO update on a recorded rollout of a tiny grid-walk task: an actor-critic MLP with a
Categorical policy head (logits) and a Normal head for a continuous 'speed' action; returns
and GAE advantages computed backwards under no_grad by writing into preallocated buffers
(adv[t] = delta[t] + gamma * lam * adv[t + 1] * not_done[t]); advantages normalised in
place; clipped surrogate, clipped value loss, entropy bonus, kl_divergence between the old
and new policies as a diagnostic; minibatches from a fixed NumPy permutation; Adam with
gradient clipping. Actions are recorded in NumPy, so no sampling differs."""

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical, Normal, kl_divergence


class ActorCritic(nn.Module):
    def __init__(self, obs, actions, hidden=8):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh())
        self.logits = nn.Linear(hidden, actions)
        self.mu = nn.Linear(hidden, 1)
        self.log_std = nn.Parameter(torch.full((1,), -0.5))
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return Categorical(logits=self.logits(h)), Normal(self.mu(h).squeeze(-1), self.log_std.exp()), \
            self.value(h).squeeze(-1)


def advantages(rewards, values, last_value, dones, gamma=0.97, lam=0.9):
    T = rewards.shape[0]
    adv = torch.zeros(T + 1, dtype=rewards.dtype)
    with torch.no_grad():
        next_values = torch.cat([values[1:], last_value.view(1)])
        delta = rewards + gamma * next_values * (1 - dones) - values
        for t in range(T - 1, -1, -1):
            adv[t] = delta[t] + gamma * lam * adv[t + 1] * (1 - dones[t])
    adv = adv[:-1]
    return adv, adv + values


def run():
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(53)
    T, obs_dim, n_act = 24, 4, 3
    model = ActorCritic(obs_dim, n_act)
    model.load_state_dict({k: torch.tensor(rng.normal(0, 0.5, tuple(v.shape))) for k, v in model.state_dict().items()})
    obs = torch.tensor(rng.normal(size=(T, obs_dim)))
    acts = torch.tensor(rng.integers(0, n_act, T))
    speeds = torch.tensor(rng.normal(0.3, 0.5, T))
    rewards = torch.tensor(rng.normal(size=T))
    dones = torch.zeros(T)
    dones[[7, 15]] = 1.0

    with torch.no_grad():
        old_cat, old_norm, values = model(obs)
        old_logp = old_cat.log_prob(acts) + old_norm.log_prob(speeds)
        _, _, last_value = model(torch.tensor(rng.normal(size=(1, obs_dim))))
    adv, returns = advantages(rewards, values, last_value[0], dones)
    adv.sub_(adv.mean()).div_(adv.std() + 1e-8)

    opt = torch.optim.Adam(model.parameters(), lr=3e-3, eps=1e-5)
    clip, log = 0.2, []
    for epoch in range(3):
        perm = torch.from_numpy(rng.permutation(T))
        for mb in perm.split(8):
            cat, norm, v = model(obs[mb])
            logp = cat.log_prob(acts[mb]) + norm.log_prob(speeds[mb])
            ratio = (logp - old_logp[mb]).exp()
            surrogate = torch.min(ratio * adv[mb], ratio.clamp(1 - clip, 1 + clip) * adv[mb]).mean()
            v_clipped = values[mb] + (v - values[mb]).clamp(-clip, clip)
            v_loss = 0.5 * torch.max((v - returns[mb]) ** 2, (v_clipped - returns[mb]) ** 2).mean()
            entropy = (cat.entropy() + norm.entropy()).mean()
            loss = -surrogate + 0.5 * v_loss - 0.01 * entropy
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            opt.step()
            log.append([loss.item(), ratio.mean().item()])
    with torch.no_grad():
        new_cat, new_norm, _ = model(obs)
        kl = (kl_divergence(old_cat, new_cat) + kl_divergence(old_norm, new_norm)).mean()
    return {"adv": adv, "returns": returns, "log": log, "kl": kl, "log_std": model.log_std,
            "logits_w": model.logits.weight}


if __name__ == "__main__":
    print(run())
