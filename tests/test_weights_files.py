"""Weights files from elsewhere: every bad one an InvalidNetworkError (a one-line error at the
command line), checked before anything is allocated; never a MemoryError, a decompression
bomb read, or a network that silently plays as the first play."""

import io
import zipfile

import numpy as np
import pytest

from gulbara.cli import main
from gulbara.net.model import MAX_FILE_BYTES, InvalidNetworkError, ValueNet, default_net


def with_member(tmp_path, name, data, compress=zipfile.ZIP_STORED):
    """The shipped network's file with member ``name`` replaced by ``data``."""
    path = tmp_path / "net.npz"
    default_net().save(str(path))
    source = zipfile.ZipFile(path)
    members = {info.filename: source.read(info) for info in source.infolist()}
    source.close()
    members[name] = data
    with zipfile.ZipFile(path, "w", compress) as archive:
        for member, content in members.items():
            archive.writestr(member, content)
    return str(path)


def test_regression_a_header_declaring_a_huge_shape_is_refused_before_allocation(tmp_path):
    """An 11 KB .npz whose header declares a huge shape gave a raw MemoryError traceback."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (209, 10 ** 12)})
    path = with_member(tmp_path, "w1.npy", header.getvalue())
    with pytest.raises(InvalidNetworkError, match=r"member 'w1.npy' declares .* holds"):
        ValueNet.load(path)


def test_regression_a_decompression_bomb_is_refused_unread(tmp_path):
    """A 1 MB .npz expanding to 1 GB of metadata was loaded and accepted."""
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(MAX_FILE_BYTES // 8 + 1024, np.float64))
    path = with_member(tmp_path, "meta_filler.npy", buffer.getvalue(), zipfile.ZIP_DEFLATED)
    with pytest.raises(InvalidNetworkError, match="would expand to .* at most"):
        ValueNet.load(path)


def test_regression_a_bare_npy_with_a_huge_header_is_not_read(tmp_path):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (10 ** 12,)})
    path = tmp_path / "net.npz"
    path.write_bytes(header.getvalue())
    with pytest.raises(InvalidNetworkError):
        ValueNet.load(str(path))


def test_regression_a_saturated_network_is_reported(tmp_path, capsys):
    """A network with huge finite weights scored every play the same and silently played as
    the first play."""
    a = default_net().arrays
    path = str(tmp_path / "hot.npz")
    ValueNet(a["w1"] * 1e6, a["b1"] * 1e6, a["w2"] * 1e6, a["b2"] * 1e6).save(path)
    with pytest.raises(InvalidNetworkError, match="scores every play .* the same"):
        ValueNet.load(path)
    assert main(["selfplay", "--policy", path, "--games", "2", "--workers", "1",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "scores every play" in err
    assert not default_net().is_saturated()


def test_regression_a_bad_weights_file_is_one_line_at_the_command_line(tmp_path, capsys):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (209, 10 ** 12)})
    path = with_member(tmp_path, "w1.npy", header.getvalue())
    for argv in (["selfplay", "--policy", path, "--games", "2", "--workers", "1", "--quiet"],
                 ["train", "--games", "20", "--out", str(tmp_path / "o.npz"), "--init", path]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "declares" in err, argv
