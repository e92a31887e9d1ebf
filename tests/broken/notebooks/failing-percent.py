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
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A percent script

# %%
total = 1

# %%
print(totl)

# %% [markdown]
# <!-- expect: 24: NameError: name 'totl' is not defined -->
