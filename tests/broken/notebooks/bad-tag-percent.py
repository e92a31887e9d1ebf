# ---
# title: Percent tag
# description: A broken notebook lesson.
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A tag in a script

# %% tags=["hide-outputs"]
print(1)

# %% [markdown]
# <!-- expect: 20: unknown cell tag 'hide-outputs' -->
