"""Prints where python3 imports packages installed under the prefix given as argument.

Used by `cmake --install` (CMakeLists.txt, LUZTAR_PYTHON): a virtual environment
(pyvenv.cfg at the prefix) gets lib/pythonX.Y/site-packages; otherwise the first of
this interpreter's site directories under the prefix (Debian: /usr/local ->
/usr/local/lib/python3.11/dist-packages), else lib/pythonX.Y/site-packages.
"""
import os
import site
import sys

prefix = os.path.abspath(sys.argv[1])
version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
default = os.path.join(prefix, "lib", version, "site-packages")
if os.path.exists(os.path.join(prefix, "pyvenv.cfg")):
    print(default)
else:
    # directly under prefix/lib: /usr must not pick /usr/local/lib/...
    under = [d for d in site.getsitepackages()
             if os.path.relpath(os.path.abspath(d), prefix).startswith("lib" + os.sep)]
    print(under[0] if under else default)
