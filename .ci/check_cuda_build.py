"""Reads `ozblas info --json` on stdin: the CUDA executor must be compiled in, from the
toolkit source given as the argument, with its architectures named, Blackwell's among them
(sm_100 and sm_120: the FP4 engine's devices)."""
import json
import sys

b = json.load(sys.stdin)["build"]
if not (b["cuda"] and b["cuda_toolkit_source"] == sys.argv[1] and b["cuda_architectures"]):
    sys.exit(f"CUDA executor not built as expected: {b}")
for cc in ("100", "120"):
    if not any(a.split("-")[0] == cc for a in b["cuda_architectures"]):
        sys.exit(f"CUDA executor built without sm_{cc}: {b['cuda_architectures']}")
print(f"CUDA executor built from {b['cuda_toolkit_source']}: CUDA {b['cuda_toolkit']}, "
      f"architectures {' '.join(b['cuda_architectures'])}")
