"""Keys that change when the compiler does (compiler/version.py): one byte of the device prelude or of
any compiler source changes the compiler key, and with it every kernel build key and the service's
compilation dedup key; the same bytes elsewhere give the same key."""
from __future__ import annotations

import shutil

import pytest

import compiler
from compiler.build import build_key, toolchain_key
from compiler.context import CompileOptions
from compiler.version import PACKAGE_ROOT, compiler_key, package_version


@pytest.fixture()
def copy(tmp_path):
    dst = tmp_path / "compiler"
    shutil.copytree(PACKAGE_ROOT, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def flip_one_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def test_same_sources_anywhere_give_the_same_key(copy):
    assert compiler_key(copy) == compiler_key()
    assert len(compiler_key()) == 64


@pytest.mark.parametrize("rel", ["codegen/prelude_device.cuh", "codegen/prelude_host.h", "pipeline.py",
                                 "ops/elementwise.py"])
def test_one_byte_changes_the_key(copy, rel):
    before = compiler_key(copy)
    flip_one_byte(copy / rel)
    from compiler.version import _key
    _key.cache_clear()
    assert compiler_key(copy) != before


def test_a_new_source_file_changes_the_key(copy):
    before = compiler_key(copy)
    (copy / "passes" / "extra_pass.py").write_text("X = 1\n")
    from compiler.version import _key
    _key.cache_clear()
    assert compiler_key(copy) != before


def test_every_build_key_and_the_dedup_key_carry_the_compiler_key(copy, models_dir):
    art = compiler.compile(str(models_dir / "bert.onnx"), "h100", CompileOptions(build=False, disable=("rammer",)))
    digests = {k.digest for k in art.plan.kernels()}
    tool = toolchain_key("sm_90")
    assert compiler_key()[:20] in tool and art.report["compiler_key"] == compiler_key()
    flip_one_byte(copy / "codegen" / "prelude_device.cuh")
    other_tool = tool.replace(compiler_key()[:20], compiler_key(copy)[:20])
    assert other_tool != tool
    assert all(build_key(d, tool) != build_key(d, other_tool) for d in digests) and len(digests) >= 5

    from service.jobs import compilation_dedup_key, toolchain
    from compiler.targets import get_target
    assert toolchain("sm_90") == tool       # the service's dedup key holds the same toolchain string
    opts = CompileOptions()
    same = compilation_dedup_key(art.report["model"]["sha256"], get_target("h100"), opts, tool)
    assert same == compilation_dedup_key(art.report["model"]["sha256"], get_target("h100"), opts, tool)
    assert same != compilation_dedup_key(art.report["model"]["sha256"], get_target("h100"), opts, other_tool)


def test_version_comes_from_the_package_metadata():
    from importlib import metadata
    assert compiler.__version__ == package_version() == metadata.version("brickyard")
