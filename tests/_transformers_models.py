"""Forward and backward of tiny transformers models; run by tests/test_transformers.py.

`python _transformers_models.py OUT_DIR` (real torch) builds GPT-2, BERT and Llama from a seed, saves each
state_dict to OUT_DIR/<model>.pt and its loss, logits and parameter gradients to OUT_DIR/torch.npz;
`python -m facade _transformers_models.py OUT_DIR` loads those state_dicts instead and writes OUT_DIR/facade.npz.
"""

import sys
from pathlib import Path

import numpy as np
import torch

if torch.__name__ != "facade":
    import _torchvision  # noqa: F401  (transformers imports torchvision when it is installed: through its shim)
import transformers
from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

ON_FACADE = torch.__name__ == "facade"
OUT = Path(sys.argv[1])
SIZE = dict(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2)

CONFIGS = {
    "gpt2": (GPT2LMHeadModel, GPT2Config, dict(vocab_size=100, n_embd=32, n_layer=2, n_head=2, n_positions=16,
                                               bos_token_id=0, eos_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0,
                                               attn_pdrop=0.0)),
    "bert": (BertForMaskedLM, BertConfig, dict(SIZE, intermediate_size=64, max_position_embeddings=16,
                                               hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)),
    "llama": (LlamaForCausalLM, LlamaConfig, dict(SIZE, intermediate_size=64, num_key_value_heads=1,
                                                  max_position_embeddings=16)),
}

rng = np.random.default_rng(0)
input_ids = torch.tensor(rng.integers(0, 100, size=(2, 16)))
attention_mask = torch.ones(2, 16, dtype=torch.long)
attention_mask[1, 12:] = 0  # right padding in the second row
labels = input_ids.masked_fill(attention_mask == 0, -100)

results = {}
for name, (model_cls, config_cls, kwargs) in CONFIGS.items():
    for impl in ("eager", "sdpa"):
        torch.manual_seed(0)
        model = model_cls(config_cls(**kwargs, attn_implementation=impl))
        weights = OUT / f"{name}.pt"
        if ON_FACADE or impl != "eager":
            model.load_state_dict(torch.load(weights))
        else:
            torch.save(model.state_dict(), weights)
        assert model.config._attn_implementation == impl, (name, model.config._attn_implementation)
        model.train()
        out = model(input_ids=input_ids, attention_mask=attention_mask, labels=labels)
        out.loss.backward()
        key = f"{name}/{impl}"
        results[f"{key}/loss"] = out.loss.detach().numpy()
        results[f"{key}/logits"] = out.logits.detach().numpy()
        for pname, p in model.named_parameters():
            results[f"{key}/grad/{pname}"] = p.grad.numpy()

np.savez(OUT / ("facade.npz" if ON_FACADE else "torch.npz"), **results)
print(transformers.__version__, len(results))
