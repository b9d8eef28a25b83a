"""Build hook for the compiled kernels; everything else is in pyproject.toml.

Both extensions are optional: where no C compiler is found, the install still succeeds
and the counting engine and the search agent run their Python paths (same answers,
slower).  The counting kernel is one translation unit that includes one file per
algorithm from ``kwartet_epistemic/_kernel/``.
"""

from glob import glob

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "kwartet_epistemic._counting_kernel",
            ["kwartet_epistemic/_counting_kernel.c"],
            depends=sorted(glob("kwartet_epistemic/_kernel/*")),
            extra_compile_args=["-O3", "-std=c11"],
            optional=True,
        ),
        Extension(
            "kwartet_epistemic.agents._playout_kernel",
            ["kwartet_epistemic/agents/_playout_kernel.c"],
            extra_compile_args=["-O3", "-std=c11"],
            optional=True,
        ),
    ]
)
