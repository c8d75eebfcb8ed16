"""The build's Triton compile step (tools/triton_aot.py) as a module, for the trial compilations
of recovery and the artefacts of writing."""
from pathlib import Path

from .errors import GenerationError


def triton_aot_module():
    """tools/triton_aot.py as a module (the build's compile step, for trial compilations)."""
    import importlib.util
    import sys
    script = triton_aot_script()
    if script is None:
        raise GenerationError("triton_aot.py not found beside the package: reinstall autoplugin")
    if "triton_aot" not in sys.modules:
        sys.path.insert(0, str(script.parent))  # it imports triton_aot_embed beside it
        spec = importlib.util.spec_from_file_location("triton_aot", script)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["triton_aot"] = module
    return sys.modules["triton_aot"]


def triton_aot_script():
    """tools/triton_aot.py of a source checkout, or the installed one beside autoplugin's CMake
    files (PREFIX/share/autoplugin/python/autoplugin/... -> PREFIX/lib*/cmake/autoplugin)."""
    here = Path(__file__).resolve()
    candidates = [here.parents[3] / "tools" / "triton_aot.py"]
    if len(here.parents) > 5:
        prefix = here.parents[5]
        candidates += sorted(prefix.glob("lib*/cmake/autoplugin/triton_aot.py"))
    return next((c for c in candidates if c.is_file()), None)
