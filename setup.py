"""Build hook for the counting engine's compiled kernel; everything else is in pyproject.toml.

The extension is optional: where no C compiler is found, the install still succeeds and
the counting engine runs its NumPy path (same answers, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kwartet_epistemic._counting_kernel",
            ["kwartet_epistemic/_counting_kernel.c"],
            extra_compile_args=["-O3", "-std=c11"],
            optional=True,
        )
    ]
)
