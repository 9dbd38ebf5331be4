"""Executes a notebook headless (nbclient) in a scratch folder; exits non-zero on any cell error.

    run_notebook.py NOTEBOOK WORK_DIR
"""
import os
import sys

import nbclient
import nbformat

notebook, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
nb = nbformat.read(notebook, as_version=4)
client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                 resources={"metadata": {"path": work}})
try:
    client.execute()
except nbclient.exceptions.CellExecutionError as e:
    print(e, file=sys.stderr)
    sys.exit(1)
nbformat.write(nb, os.path.join(work, os.path.basename(notebook)))  # executed copy, to look at
print(f"{notebook}: {sum(c.cell_type == 'code' for c in nb.cells)} code cells ran without error")
