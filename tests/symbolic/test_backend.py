"""The BDD backend: what the first BDD of a process costs and loads."""

from __future__ import annotations


def test_the_first_bdd_of_a_process_does_not_load_networkx_and_networkx_still_imports() -> None:
    """dd loads networkx (a tenth of a second) for exports this library never uses: the
    first structure of a process goes without it, and a later import of networkx works."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import kwartet_epistemic as kw\n"
        "from kwartet_epistemic.symbolic.puzzles import muddy_children_structure\n"
        "assert 'networkx' not in sys.modules and 'dd' not in sys.modules\n"
        "ks = muddy_children_structure(5)\n"
        "assert ks.count_states() == 32\n"
        "assert 'dd' in sys.modules and 'networkx' not in sys.modules\n"
        "import networkx\n"
        "assert networkx.complete_graph(3).number_of_edges() == 3\n"
        "assert muddy_children_structure(4).count_states() == 16\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
