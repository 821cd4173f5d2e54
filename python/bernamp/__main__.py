"""python -m bernamp ARGS... runs the binary the client finds (BERNAMP_BIN,
the bundled one, PATH) with ARGS."""

import os
import sys

from ._binary import find_binary
from ._errors import BinaryNotFoundError


def main() -> None:
    try:
        binary = find_binary()
    except BinaryNotFoundError as err:
        print(f"bernamp: {err}", file=sys.stderr)
        sys.exit(1)
    if sys.platform == "win32":
        import subprocess
        sys.exit(subprocess.call([binary] + sys.argv[1:]))
    os.execv(binary, [binary] + sys.argv[1:])


if __name__ == "__main__":
    main()
