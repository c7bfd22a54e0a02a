"""Reads `ozblas info --json` on stdin: the CUDA executor must be compiled in, from the
toolkit source given as the argument, with its architectures named."""
import json
import sys

b = json.load(sys.stdin)["build"]
if not (b["cuda"] and b["cuda_toolkit_source"] == sys.argv[1] and b["cuda_architectures"]):
    sys.exit(f"CUDA executor not built as expected: {b}")
print(f"CUDA executor built from {b['cuda_toolkit_source']}: CUDA {b['cuda_toolkit']}, "
      f"architectures {' '.join(b['cuda_architectures'])}")
