"""python tools/bundle_runner {generate,check} …  — see README.md beside this file."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bundle_runner.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
