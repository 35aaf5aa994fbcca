"""Shared fixtures for integration tests: where the binaries are."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def bindir():
    return pathlib.Path(os.environ.get("WARREN_BIN", ROOT / "bin"))
