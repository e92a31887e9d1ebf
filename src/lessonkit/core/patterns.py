"""``lazy`` is ``re.compile``; it goes once execute/ stops importing it."""

import re

lazy = re.compile
