# ---
# title: Percent
# description: A broken notebook lesson.
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
# ---

import math

# %% tags=["hide-outputs"]
print(math.pi)

# %% [markdown]
# <!-- expect: 15: unknown cell tag 'hide-outputs' -->
