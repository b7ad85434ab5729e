"""The wheel carries the templates, static files, translations and migrations inside the package (companion/_files)."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

FILES = ("templates", "static", "translations", "migrations")


class BuildWithFiles(build_py):
    """build_py, then the app's folders copied beside the modules (they live at the top of a clone)."""

    def run(self) -> None:
        super().run()
        for name in FILES:
            shutil.copytree(
                name,
                Path(self.build_lib, "companion", "_files", name),
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
                dirs_exist_ok=True,
            )


setup(cmdclass={"build_py": BuildWithFiles})
