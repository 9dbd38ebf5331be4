"""Runs a notebook headless, every cell in order, and writes the executed copy with its outputs.

    python3 run_notebook.py NOTEBOOK [OUT_DIR]

The cells run in the notebook's own folder, in a kernel of the interpreter that runs this
script (so `~/luztar-env/bin/python run_notebook.py ...` uses a virtual environment's
luztar, whatever Jupyter's default kernel is). The executed copy, with printed output
and figures, goes to OUT_DIR/<name>.ipynb (default: the current directory), written
only when every cell ran. Exit status 1 at the first cell that raises, with its
traceback. Needs Debian's python3-nbclient and python3-ipykernel.
"""
import os
import sys
import tempfile

# debugpy (imported with ipykernel, here and in the kernel) warns that frozen modules may make
# a debugger miss breakpoints: a headless run sets none
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")

import nbclient  # noqa: E402
import nbformat  # noqa: E402
from ipykernel.kernelspec import write_kernel_spec  # noqa: E402
from jupyter_client import KernelManager  # noqa: E402
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python3 run_notebook.py NOTEBOOK [OUT_DIR]")
    notebook = os.path.abspath(sys.argv[1])
    out_dir = sys.argv[2] if len(sys.argv) == 3 else "."
    nb = nbformat.read(notebook, as_version=4)
    with tempfile.TemporaryDirectory() as specs:
        # a kernel of this interpreter (its argv names sys.executable), not the system's default one
        write_kernel_spec(os.path.join(specs, "this-python"))
        km = KernelManager(kernel_name="this-python", kernel_spec_manager=KernelSpecManager(kernel_dirs=[specs]))
        client = nbclient.NotebookClient(nb, km=km, timeout=300,
                                         resources={"metadata": {"path": os.path.dirname(notebook)}})
        try:
            client.execute()
        except nbclient.exceptions.CellExecutionError as e:
            print(e, file=sys.stderr)
            sys.exit(1)
        finally:  # a kernel manager given to the client is ours to stop
            if km.has_kernel:
                km.shutdown_kernel(now=True)
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, os.path.basename(notebook))
    nbformat.write(nb, out)
    cells = sum(c.cell_type == "code" for c in nb.cells)
    print(f"{sys.argv[1]}: {cells} code cells ran without error; executed copy: {out}")


if __name__ == "__main__":
    main()
