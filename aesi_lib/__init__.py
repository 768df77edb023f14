"""aesi: automatic event schema induction.

The library is Prefect-free: every function here can be called from a notebook. The Prefect
tasks in ``tasks/`` and flows in ``flows/`` only wrap these functions.
"""

__version__ = "0.1.0"
