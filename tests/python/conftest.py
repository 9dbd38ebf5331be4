"""pytest set-up for the luztar package tests (run by ctest: tests/CMakeLists.txt).

ctest puts the built package first on PYTHONPATH and names the models folder and the CLI
in LUZTAR_MODELS_DIR and LUZTAR_CLI; run by hand from the source tree:

    PYTHONPATH=build/python LUZTAR_CLI=build/luztar /usr/bin/python3 -m pytest tests/python
"""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def models_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("LUZTAR_MODELS_DIR", ROOT / "models"))


@pytest.fixture
def cli() -> str:
    path = os.environ.get("LUZTAR_CLI", str(ROOT / "build" / "luztar"))
    if not os.path.exists(path):
        pytest.fail(f"the luztar CLI is not built at {path} (LUZTAR_CLI)")
    return path
