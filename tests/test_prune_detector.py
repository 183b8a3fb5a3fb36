"""A detector cut to a thinner one (vision.training.prune_detector): live mode's start."""

from __future__ import annotations

import pytest

from vision.training.offline import configure_environment

configure_environment()
torch = pytest.importorskip("torch")
tasks = pytest.importorskip("ultralytics.nn.tasks")

from vision.training.prune_detector import main, thinned  # noqa: E402


def _trained_like(seed: int):  # -> an ultralytics DetectionModel
    """YOLOv8n with one class, its batch norms given the spread of scales and statistics a
    trained network has (fresh ones are all 1 and 0, so every channel would tie)."""
    torch.manual_seed(seed)
    model = tasks.DetectionModel("yolov8n.yaml", nc=1, verbose=False)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(-1.5, 1.5)
                module.bias.normal_(0, 0.2)
                module.running_mean.normal_(0, 0.2)
                module.running_var.uniform_(0.5, 2.0)
    return model.eval()


def test_a_network_cut_to_its_own_width_reads_as_it_did() -> None:
    # Every channel kept: each index map (concatenations, C2f's halves, the residual adds,
    # SPPF's pooled copies, the head) must put every weight back where it was.
    teacher = _trained_like(0)
    student = thinned(teacher, 0.25).eval()
    image = torch.rand(1, 3, 96, 128)
    with torch.no_grad():
        assert torch.allclose(student(image)[0], teacher(image)[0], atol=1e-5)


def test_a_thinner_network_keeps_each_layers_strongest_channels() -> None:
    teacher = _trained_like(1)
    student = thinned(teacher, 0.125).eval()
    first_t, first_s = teacher.model[0], student.model[0]
    assert first_s.conv.out_channels == first_t.conv.out_channels // 2
    strongest = torch.argsort(first_t.bn.weight.abs(), descending=True)[:8].sort().values
    assert torch.equal(first_s.conv.weight, first_t.conv.weight[strongest])
    assert torch.equal(first_s.bn.running_var, first_t.bn.running_var[strongest])
    # The second layer reads only the channels the first kept.
    second_t, second_s = teacher.model[1], student.model[1]
    kept_out = torch.argsort(second_t.bn.weight.abs(), descending=True)[:16].sort().values
    assert torch.equal(second_s.conv.weight, second_t.conv.weight[kept_out][:, strongest])
    # A backbone bottleneck adds its output to its input: both keep the same channels, the
    # strongest of its C2f's second half.
    c2f_t, c2f_s = teacher.model[2], student.model[2]
    half = c2f_t.c
    second_half = torch.argsort(c2f_t.cv1.bn.weight[half:].abs(),
                                descending=True)[:c2f_s.c].sort().values
    assert c2f_t.m[0].add
    assert torch.equal(c2f_s.m[0].cv2.bn.bias, c2f_t.m[0].cv2.bn.bias[second_half])
    image = torch.rand(1, 3, 64, 96)
    with torch.no_grad():
        assert student(image)[0].shape == teacher(image)[0].shape
    assert sum(p.numel() for p in student.parameters()) < \
        sum(p.numel() for p in teacher.parameters()) / 3


def test_the_command_writes_a_checkpoint_ultralytics_trains_from(tmp_path, capsys) -> None:
    weights, out = tmp_path / "cards.pt", tmp_path / "thin.pt"
    torch.save({"model": _trained_like(2), "train_args": {"single_cls": True}}, weights)
    assert main([str(weights), str(out)]) == 0
    assert "912," in capsys.readouterr().out  # the parameter count at width 0.125
    loaded, _ = tasks.load_checkpoint(out)
    assert loaded.yaml["scales"] == {"t": [0.33, 0.125, 1024]}
    # Built again from its own YAML (as the trainer does), the network takes its weights.
    rebuilt = tasks.DetectionModel(loaded.yaml, nc=1, verbose=False)
    rebuilt.load_state_dict(loaded.float().state_dict())
