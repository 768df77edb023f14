"""experiments/encoder_layers.py: the shallow model keeps the first layers, in order."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from experiments import encoder_layers


class _Add(torch.nn.Module):
    """A layer that adds its number, so the layers a pass went through show in its output."""

    def __init__(self, number: int) -> None:
        super().__init__()
        self.number = number

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return states * 10 + self.number


def _encoder(n_layers: int) -> SimpleNamespace:
    stack = torch.nn.ModuleList(_Add(i + 1) for i in range(n_layers))
    model = SimpleNamespace(encoder=SimpleNamespace(layer=stack),
                            config=SimpleNamespace(num_hidden_layers=n_layers))
    return SimpleNamespace(loaded=True, _model=model)


def test_the_first_layers_are_kept_in_order_and_the_config_follows():
    encoder = encoder_layers.first_layers(_encoder(6), 3)
    stack = encoder._model.encoder.layer
    assert isinstance(stack, torch.nn.ModuleList)
    assert encoder._model.config.num_hidden_layers == 3
    states = torch.zeros(1)
    for layer in stack:
        states = layer(states)
    assert states.item() == 123                     # layers 1, 2, 3, and no other


@pytest.mark.parametrize("layers", [0, 7])
def test_a_layer_count_the_model_does_not_have_is_refused(layers):
    with pytest.raises(ValueError, match="has 6 layers"):
        encoder_layers.first_layers(_encoder(6), layers)
