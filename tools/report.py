#!/usr/bin/env python3
"""tools/report.py: the benchmark report (`make report`); the command
line of the package tools/report/ (its __init__.py says what each module
draws or tabulates).

    tools/report.py                       boot ./run.sh (the scenarios) and report
    tools/report.py build/test-logs/bench.txt     report on saved rows
    tools/report.py a.log b.log peer.txt  several logs' rows together
    tools/report.py serial.log --out DIR --paper-data DIR
"""

import os
import sys

# This file's directory holds the package of the same name, which the
# import finds first.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
