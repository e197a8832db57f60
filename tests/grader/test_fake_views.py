"""grader.fake.views: the plain-size rule for view and _unsafe_view gives what eager gives (sizes,
strides, offset, aliasing, the refusal of an unviewable view) and steps aside for symbolic sizes."""
from __future__ import annotations

import pytest
import torch

from grader.fake import checks, views

_VIEWS = [
    lambda x: x.view(6, 4),
    lambda x: x.view(-1),
    lambda x: x.reshape(3, 8),
    lambda x: x[:, 1].reshape(4, 2),  # not contiguous: reshape copies, then views the copy
    lambda x: x.transpose(0, 1).reshape(12, 2),
    lambda x: x.view(2, 12)[1:].view(3, 4),
    lambda x: x.unsqueeze(1).expand(2, 5, 3, 4).reshape(10, 12),
    lambda x: x.flatten(1).view(2, 3, 4).permute(2, 0, 1).contiguous().view(-1, 3),
]


def _layout(base: torch.Tensor, v: torch.Tensor) -> tuple:
    return (tuple(v.shape), tuple(v.stride()), v.storage_offset(), v.untyped_storage()._cdata == base.untyped_storage()._cdata)


@pytest.mark.parametrize("view", range(len(_VIEWS)))
def test_fake_views_are_what_eager_makes(view: int):
    real = torch.arange(24.0).reshape(2, 3, 4)
    eager = _layout(real, _VIEWS[view](real))
    mode, (fake,) = checks.build([checks.sketch(real)], "cuda")  # installs the rule, as every fake run does
    with mode:
        got = _VIEWS[view](fake)
        assert got.device.type == "cuda"
        assert _layout(fake, got) == eager


def test_an_unviewable_view_is_refused_as_eager_refuses_it():
    if not views.install():
        pytest.skip("this torch's fake-tensor rules are not where grader.fake.views looks: torch's own rule runs")
    with pytest.raises(RuntimeError) as eager:
        torch.zeros(2, 3, 4).transpose(0, 1).view(24)
    mode, (fake,) = checks.build([checks.sketch(torch.zeros(2, 3, 4))], "cuda")
    with mode, pytest.raises(RuntimeError) as faked:
        fake.transpose(0, 1).view(24)
    assert str(faked.value) == str(eager.value)


def test_symbolic_sizes_keep_torchs_rule():
    """A size known only from the values (nonzero's count) is a symbol: torch's rule views it."""
    mode, (fake,) = checks.build([checks.sketch(torch.zeros(6, 4))], "cpu", shape_env=True)
    with mode:
        found = (fake > 0).nonzero()
        lifted = found.view(1, found.shape[0], 2)
        assert not isinstance(lifted.shape[1], int) and str(lifted.shape[1]) == str(found.shape[0])
