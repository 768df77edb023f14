"""aesi: automatic event schema induction.

The library is Prefect-free: every function here can be called from a notebook, and
``SchemaInducer`` (``aesi_lib.inducer``) fits a schema in a few lines. The Prefect tasks in
``tasks/`` and flows in ``flows/`` only wrap these functions.
"""

__version__ = "0.1.0"

__all__ = ["SchemaInducer", "__version__", "load"]


def __getattr__(name: str):
    # The Python API on first use only: every `aesi` command imports this package, and the
    # API's imports (pandas, the pipeline) would slow each one's start.
    if name in ("SchemaInducer", "load"):
        from aesi_lib import inducer

        return getattr(inducer, name)
    raise AttributeError(f"module 'aesi_lib' has no attribute {name!r}")
